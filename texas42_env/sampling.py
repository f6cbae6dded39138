"""Uniformly random legal actions for a batch of tables, from their legal masks, and keyed
draws: random numbers fixed by a decision's key, whatever the batch layout."""

from __future__ import annotations

import numpy as np

from .deals import _mix

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
    return _pick_legal(mask, None, no_action, rng)


def _pick_legal(mask: np.ndarray, u: np.ndarray | None, no_action: int,
                rng: np.random.Generator | None = None) -> np.ndarray:
    """The ``floor(u * n)``-th legal action of each row (n: its legal actions); ``u`` drawn
    from ``rng`` (after the masks are packed) when not given."""
    B, A = mask.shape
    words = -(-A // 64)
    packed = np.packbits(mask, axis=1, bitorder="little")
    if packed.shape[1] != words * 8:
        packed = np.pad(packed, ((0, 0), (0, words * 8 - packed.shape[1])))
    x = packed.view("<u8")  # [B, words]
    pop = np.bitwise_count(x).astype(np.int64)
    if words == 1:
        n, word, x = pop[:, 0], 0, x[:, 0]
        k = ((rng.random(B) if u is None else u) * n).astype(np.int64)
    else:
        cum = pop.cumsum(axis=1)
        n = cum[:, -1]
        k = ((rng.random(B) if u is None else u) * n).astype(np.int64)
        word = (cum > k[:, None]).argmax(axis=1)
        rows = np.arange(B)
        k = k - (cum[rows, word] - pop[rows, word])
        x = x[rows, word]
    actions = word * 64 + _kth_bit(x, np.minimum(k, np.maximum(n - 1, 0)))
    return np.where(n > 0, actions, no_action)


# ----------------------------------------------------------------------------- keyed draws
# A random choice drawn from one generator depends on how many draws came before it, so on
# how the tables were batched. A keyed draw depends on its key alone: the key of a decision
# hashes (salt, the state's seed, game, hand, seat, phase, step in the hand), as deals.py
# keys deals, so a seed and the deals fix every choice whatever the batch layout.
_MASK64 = 2**64 - 1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _u64(part) -> np.ndarray:
    """An int (any size or sign, taken mod 2**64) or an integer array as uint64."""
    if isinstance(part, (int, np.integer)):
        return np.uint64(int(part) & _MASK64)
    a = np.asarray(part)
    return a if a.dtype == np.uint64 else a.astype(np.int64).astype(np.uint64)


def hash_key(*parts) -> np.ndarray:
    """uint64 [n] (n = 1 for scalar parts): a splitmix64 hash chained over ints and integer
    arrays, broadcast together; a part that is a tuple of ints is hashed in order."""
    h = _mix(np.zeros(1, np.uint64))
    for p in parts:
        for q in (p if isinstance(p, tuple) else (p,)):
            h = _mix(h ^ _u64(q))
    return h


def decision_steps(state, tables) -> np.ndarray:
    """int64 [n]: the steps taken in each table's hand before its decision now (bids,
    exchange steps, plays): with the phase it says which decision of the hand this is."""
    t = np.asarray(tables)
    return (state.n_bids[t] + 2 * state.n_swaps[t] + (state.ex_pending[t] >= 0)
            + state.n_plays[t])


def decision_keys(state, tables, seats, salt) -> np.ndarray:
    """uint64 [n]: the key of the decision now at ``tables`` of ``state`` for ``seats``,
    from ``salt`` (an int or a tuple of ints: the agent's seed and what the draw is for), the
    state's seed, the game, the hand, the seat, the phase and the steps before it in the hand.
    All of it is public, so a keyed draw tells a seat nothing it may not know."""
    t = np.asarray(tables, np.int64)
    return hash_key(salt, state.seed, state.game_id[t], state.hand_no[t],
                    np.asarray(seats, np.int64), state.phase[t], decision_steps(state, t))


def keyed_random(keys: np.ndarray, k: int | None = None) -> np.ndarray:
    """Floats in [0, 1) fixed by ``keys`` (uint64 [n]): [n], or [n, k] with ``k`` (the j-th
    number of a key is the same whatever ``k``)."""
    keys = np.asarray(keys, np.uint64)
    j = np.arange(1, (k or 1) + 1, dtype=np.uint64) * _GOLDEN
    u = (_mix(keys[:, None] ^ j[None, :]) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return u if k is not None else u[:, 0]


def keyed_generator(key) -> np.random.Generator:
    """A NumPy generator seeded by one key (for draws of many numbers, e.g. worlds)."""
    return np.random.default_rng(int(np.asarray(key, np.uint64).reshape(-1)[0]))


def keyed_uniform_legal(mask: np.ndarray, keys: np.ndarray, no_action: int = -1
                        ) -> np.ndarray:
    """``uniform_legal`` with each row's choice fixed by its key (uint64 [B]) instead of a
    shared generator: a row's action is the same whatever the other rows."""
    return _pick_legal(mask, keyed_random(keys), no_action)
