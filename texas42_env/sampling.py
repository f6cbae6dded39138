"""Uniformly random legal actions for a batch of tables, from their legal masks."""

from __future__ import annotations

import numpy as np

_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
_SELECT = np.zeros((256, 8), dtype=np.int64)  # _SELECT[byte, k]: position of the k-th set bit
for _byte in range(256):
    for _k, _bit in enumerate(j for j in range(8) if _byte >> j & 1):
        _SELECT[_byte, _k] = _bit


def uniform_legal(mask: np.ndarray, rng: np.random.Generator, no_action: int = -1) -> np.ndarray:
    """One action per row of the bool ``mask`` [B, A], uniform over its True entries;
    ``no_action`` where a row has none."""
    B = mask.shape[0]
    if B == 1:
        legal = np.flatnonzero(mask[0])
        return np.array([legal[rng.integers(legal.size)] if legal.size else no_action])
    packed = np.packbits(mask, axis=1, bitorder="little")
    pop = _POP[packed]
    cum = pop.cumsum(axis=1)
    n = cum[:, -1]
    k = (rng.random(B) * n).astype(np.int64)
    byte = (cum > k[:, None]).argmax(axis=1)
    rows = np.arange(B)
    within = k - (cum[rows, byte] - pop[rows, byte])
    actions = byte * 8 + _SELECT[packed[rows, byte], within]
    return np.where(n > 0, actions, no_action)
