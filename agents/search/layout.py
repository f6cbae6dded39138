"""What the compiled searches of the exact solver (``agents.search.points``, ``nello``,
``six``) share as data: the rows of the per-contract table they read, the search's
parameters and counters, the one layout of a search frame (a row of ``frames`` per depth of
the explicit stack), the modes of the iterative alpha-beta, and the single-bit index.
``agents.search.solver`` fills these arrays; ``agents.search.alphabeta`` steps the frames.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from texas42_env import tiles as T

try:  # one count-trailing-zeros instruction (numba's internal intrinsic)
    from numba.cpython.unsafe.numbers import trailing_zeros
except ImportError:  # a numba without it: de Bruijn multiplication
    _DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                          31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], np.int64)

    @njit(cache=True, inline="always")
    def trailing_zeros(bit):
        if bit >> 32:
            return 32 + _DEBRUIJN[(((bit >> 32) * 0x077CB531) & 0xFFFFFFFF) >> 27]
        return _DEBRUIJN[((bit * 0x077CB531) & 0xFFFFFFFF) >> 27]

TT_BITS = 19  # transposition table: 2**19 entries of 4 words (16 MiB)
LEAF_BITS = 10  # the last two tricks' values: 2**10 entries of 4 words (32 KiB)
MAX_PLIES = 32  # rows of the per-depth arrays of the four-seat game (a hand has 28 plays)

# rows of the per-contract table ``tab`` (int64 [24, 28]) the searches read
RANK = 0  # 9 rows: rank[s, t], strength of t in a trick of suit s (core's ``_rank``)
BEAT = 9  # 9 rows: beat[s, t], bitmask of the tiles that beat t in a trick of suit s
LED = 18  # led[t]: the suit t calls for when led (core's ``_led``)
COUNT = 19  # count[t]
FOLLOW = 20  # follow[s] for s in 0..8: bitmask of suit s (core's ``_follow``)
MEM = 21  # mem[t]: the suits (bits 0..8) t belongs to
LEADS = 22  # leads[s] for s in 0..8: bitmask of the tiles that call for s when led
TRUMP_ORDER = 23  # the trumps, highest first, then -1
ROWS = 24

# the search's parameters and counters (``prm``)
P_TEAM, P_PPT, P_GEN, P_NODES, P_ZERO, P_PASSES, P_BIDDER = range(7)  # P_BIDDER: nello's
N_PARAMS = 8

COUNT_TILES = np.array([t for t in range(T.N_TILES) if T.COUNT[t]], np.int64)

# fields of a search frame (one row of ``frames`` per depth): the node's position (the seat
# to move, the trick: its leader, plays so far, suit led, best rank and its seat, count on
# the table; the tricks left), its window (alpha, beta; as entered: ain, bin), its best value
# and play so far, its transposition-table row (idx, -1 for none), key words and stored
# bounds, its plays (how many, the one being searched), the gain of the play being searched,
# the mover's hand before it, and the play that last cut it off (killer)
(F_SEAT, F_LEADER, F_NIN, F_LED, F_BRANK, F_BSEAT, F_TPTS, F_LEFT, F_ALPHA, F_BETA, F_AIN,
 F_BIN, F_BEST, F_BEST_T, F_IDX, F_LO, F_HI, F_N, F_I, F_GAIN, F_HAND, F_KILLER, F_K1,
 F_K2) = range(24)
N_FIELDS = 24

ENTER, NEXT, RETURN = 0, 1, 2  # the iterative search's modes: a node entered, its next play,
# a child's value returned


@njit(cache=True, inline="always")
def bit_index(bit):
    """The index of the single set bit of ``bit`` (one count-trailing-zeros instruction)."""
    return trailing_zeros(bit)


__all__ = ["BEAT", "COUNT", "COUNT_TILES", "ENTER", "FOLLOW", "F_AIN", "F_ALPHA", "F_BEST",
           "F_BEST_T", "F_BETA", "F_BIN", "F_BRANK", "F_BSEAT", "F_GAIN", "F_HAND", "F_HI",
           "F_I", "F_IDX", "F_K1", "F_K2", "F_KILLER", "F_LED", "F_LEADER", "F_LEFT", "F_LO",
           "F_N", "F_NIN", "F_SEAT", "F_TPTS", "LEADS", "LEAF_BITS", "LED", "MAX_PLIES", "MEM",
           "NEXT", "N_FIELDS", "N_PARAMS", "P_BIDDER", "P_GEN", "P_NODES", "P_PASSES", "P_PPT",
           "P_TEAM", "P_ZERO", "RANK", "RETURN", "ROWS", "TRUMP_ORDER", "TT_BITS", "bit_index"]
