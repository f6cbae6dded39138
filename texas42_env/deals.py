"""Reproducible deals: a deal is fixed by ``(seed, game, hand)``, whatever the batch size
or the table's position, by a counter-based hash (splitmix64) of those numbers: each tile
instance gets a key and the sorted keys are the shuffle.
"""

from __future__ import annotations

import numpy as np

_U1 = np.uint64(1)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer over a uint64 array: a counter-based hash for seeding deals."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _key(seed: int, *parts) -> np.ndarray:
    h = _mix(np.array([seed & (2**64 - 1)], np.uint64))
    for p in parts:
        h = _mix(h ^ np.asarray(p).astype(np.uint64))
    return h


def deal_hands(seed: int, game_ids, hand_nos, n_seats: int, hand_size: int,
               n_instances: int) -> tuple[np.ndarray, np.ndarray]:
    """Hands (uint64 bitmasks, [n, seats]) and cats for the deals ``(seed, game, hand)``."""
    game_ids = np.atleast_1d(np.asarray(game_ids, np.int64))
    hand_nos = np.broadcast_to(np.asarray(hand_nos, np.int64), game_ids.shape)
    base = _key(seed, 1, game_ids, hand_nos)
    ctr = np.arange(n_instances, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03)
    keys = _mix(base[:, None] ^ ctr[None, :])
    # one flat sort for all rows: (row, 40 bits of the tile's key, tile) in one word
    n, N = keys.shape
    perm = np.empty((n, N), np.uint64)
    for lo in range(0, n, 1 << 16):
        part = keys[lo:lo + (1 << 16)]
        rows = np.arange(len(part), dtype=np.uint64)[:, None] << np.uint64(46)
        word = rows | ((part >> np.uint64(24)) << np.uint64(6)) | np.arange(N, dtype=np.uint64)
        perm[lo:lo + len(part)] = (np.sort(word, axis=None) & np.uint64(63)).reshape(-1, N)
    S, H = n_seats, hand_size
    bits = _U1 << perm
    hands = np.bitwise_or.reduce(bits[:, : S * H].reshape(-1, S, H), axis=2)
    cat = np.bitwise_or.reduce(bits[:, S * H:], axis=1) if S * H < n_instances else \
        np.zeros(len(game_ids), np.uint64)
    return hands, cat


def first_dealer(seed: int, game_ids, n_seats: int) -> np.ndarray:
    """The first dealer of each game, fixed by ``(seed, game)``."""
    game_ids = np.atleast_1d(np.asarray(game_ids, np.int64))
    return (_key(seed, 2, game_ids) % np.uint64(n_seats)).astype(np.int64)
