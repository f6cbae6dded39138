"""Uniformly random legal actions for a batch of tables, from their legal masks."""

from __future__ import annotations

import numpy as np

_BITS16 = np.unpackbits(np.arange(1 << 16, dtype="<u2").view(np.uint8).reshape(-1, 2), axis=1,
                        bitorder="little").astype(bool)
# _SELECT16[v, k]: position of the k-th set bit of the 16-bit value v
_SELECT16 = np.argsort(~_BITS16, axis=1, kind="stable").astype(np.int8)


def _kth_bit(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Position of the k-th (from 0) set bit of each uint64 in ``x`` (k < popcount)."""
    pos = np.zeros(x.shape, np.int64)
    for width in (32, 16):
        low = x & np.uint64((1 << width) - 1)
        c = np.bitwise_count(low).astype(np.int64)
        high = k >= c
        k = np.where(high, k - c, k)
        x = np.where(high, x >> np.uint64(width), low)
        pos += high * width
    return pos + _SELECT16[x.astype(np.int64), k]


def uniform_legal(mask: np.ndarray, rng: np.random.Generator, no_action: int = -1) -> np.ndarray:
    """One action per row of the bool ``mask`` [B, A], uniform over its True entries;
    ``no_action`` where a row has none."""
    B, A = mask.shape
    if B == 1:
        legal = np.flatnonzero(mask[0])
        return np.array([legal[rng.integers(legal.size)] if legal.size else no_action])
    words = -(-A // 64)
    packed = np.packbits(mask, axis=1, bitorder="little")
    if packed.shape[1] != words * 8:
        packed = np.pad(packed, ((0, 0), (0, words * 8 - packed.shape[1])))
    x = packed.view("<u8")  # [B, words]
    pop = np.bitwise_count(x).astype(np.int64)
    if words == 1:
        n, word, x = pop[:, 0], 0, x[:, 0]
        k = (rng.random(B) * n).astype(np.int64)
    else:
        cum = pop.cumsum(axis=1)
        n = cum[:, -1]
        k = (rng.random(B) * n).astype(np.int64)
        word = (cum > k[:, None]).argmax(axis=1)
        rows = np.arange(B)
        k = k - (cum[rows, word] - pop[rows, word])
        x = x[rows, word]
    actions = word * 64 + _kth_bit(x, np.minimum(k, np.maximum(n - 1, 0)))
    return np.where(n > 0, actions, no_action)
