"""The compiled search of the exact solver (``agents.search.solver``) for suit, doubles and
follow-me contracts: the per-contract table layout, move ordering, the last-two-tricks table,
fail-soft alpha-beta (``_ab``) and MTD(f) at the root (``_solve_root``, ``_solve_value``).
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
_MAX_PLIES = 32  # rows of the per-depth arrays (a hand has 28 plays)

# rows of the per-contract table ``tab`` (int64 [24, 28]) the search reads
_RANK = 0  # 9 rows: rank[s, t], strength of t in a trick of suit s (core's ``_rank``)
_BEAT = 9  # 9 rows: beat[s, t], bitmask of the tiles that beat t in a trick of suit s
_LED = 18  # led[t]: the suit t calls for when led (core's ``_led``)
_COUNT = 19  # count[t]
_FOLLOW = 20  # follow[s] for s in 0..8: bitmask of suit s (core's ``_follow``)
_MEM = 21  # mem[t]: the suits (bits 0..8) t belongs to
_LEADS = 22  # leads[s] for s in 0..8: bitmask of the tiles that call for s when led
_TRUMP_ORDER = 23  # the trumps, highest first, then -1
_ROWS = 24

# the search's parameters and counters (``prm``)
_P_TEAM, _P_PPT, _P_GEN, _P_NODES, _P_ZERO, _P_PASSES = range(6)
_N_PARAMS = 8

_COUNT_TILES = np.array([t for t in range(T.N_TILES) if T.COUNT[t]], np.int64)


@njit(cache=True, inline="always")
def _bit_index(bit):
    """The index of the single set bit of ``bit`` (one count-trailing-zeros instruction)."""
    return trailing_zeros(bit)


@njit(cache=True, inline="always")
def _points_left(rem, left, ppt, tab):
    """Most points still to come: the count tiles left plus the tricks' points."""
    p = left * ppt
    for t in _COUNT_TILES:
        if rem >> t & 1:
            p += tab[_COUNT, t]
    return p


@njit(cache=True, inline="always")
def _live_suits(others, n_in, led, tab):
    """The suits a trick can still call for where another hand plays: those another hand can
    lead, and the one led now."""
    suits = 0
    for x in range(9):
        if others & tab[_LEADS, x]:
            suits |= 1 << x
    if n_in > 0:
        suits |= 1 << led
    return suits


@njit(cache=True, inline="always")
def _alike(t, u, n_in, led, brank, suits, others, tab):
    """Whether tiles ``t`` and ``u`` of one hand are the same play (see ``_order``)."""
    if tab[_COUNT, u] != tab[_COUNT, t] or tab[_LED, u] != tab[_LED, t]:
        return False
    if (tab[_MEM, u] ^ tab[_MEM, t]) & suits:
        return False
    if n_in > 0 and (tab[_RANK + led, u] > brank) != (tab[_RANK + led, t] > brank):
        return False
    k = suits | (1 << tab[_LED, t])  # and the suit it calls for, led by this hand
    while k:
        sb = k & -k
        k ^= sb
        s = _bit_index(sb)
        if (tab[_BEAT + s, u] ^ tab[_BEAT + s, t]) & others:
            return False
    return True


@njit(cache=True, inline="always")
def _order(h, seat, n_in, led, brank, bseat, m, tt_move, killer, tab, scratch, ply):
    """Write the plays in ``m`` to ``scratch[ply, 0]`` best-first (their scores to
    ``scratch[ply, 1]``), one of each class of equivalent plays; return how many.

    Two tiles of one hand are the same play when swapping them changes nothing in any trick
    to come: the same count; the same suit when led; in that suit, and in every suit another
    hand can still lead (and the suit led now), the same tiles of the other hands above them;
    in those last suits the same membership; now, the same side of the trick's best. What
    holds of the other hands' tiles now holds of every subset of them, so the two subtrees are
    alike to the end.
    """
    n = 0
    opp = h[(seat + 1) & 3] | h[(seat + 3) & 3]
    others = opp | h[(seat + 2) & 3]
    suits = -1  # found when first needed
    safe = -1
    while m:
        bit = m & -m
        m ^= bit
        t = _bit_index(bit)
        c = tab[_COUNT, t]
        same = False
        for j in range(n):
            u = scratch[ply, 0, j]
            if tab[_COUNT, u] != c or tab[_LED, u] != tab[_LED, t]:
                continue
            if suits < 0:
                suits = _live_suits(others, n_in, led, tab)
            if _alike(t, u, n_in, led, brank, suits, others, tab):
                same = True
                if t == tt_move:  # list the table's move in its class's place
                    scratch[ply, 0, j] = t
                break
        if same:
            continue
        if n_in == 0:
            s = tab[_LED, t]
            r = tab[_RANK + s, t]
            if t == tt_move:
                sc = 10000
            elif tab[_BEAT + s, t] & opp == 0:  # nothing the opponents hold beats it
                sc = 1000 + 10 * c - r  # such sure winners first, count first, low first
            else:
                sc = 100 + 10 * c + r  # then count and high first (fewest nodes, measured)
        else:
            r = tab[_RANK + led, t]
            if (bseat & 1) == (seat & 1):
                if safe < 0:  # can the last hand to play still take the trick?
                    safe = 1
                    if n_in == 2:
                        h4 = h[(seat + 1) & 3]
                        f4 = h4 & tab[_FOLLOW, led]
                        if f4 == 0:
                            f4 = h4
                        while f4:
                            b4 = f4 & -f4
                            f4 ^= b4
                            if tab[_RANK + led, _bit_index(b4)] > brank:
                                safe = 0
                                break
                if safe:  # the partner holds the trick: feed it count
                    sc = 500 + 10 * c - r
                elif r > brank:  # overtake, as cheaply as may be
                    sc = 1000 + 10 * c - r
                else:
                    sc = 100 - 10 * c - r - tab[_RANK + tab[_LED, t], t]
            elif r > brank:  # take the trick, as cheaply as may be
                sc = 1000 + 10 * c - r
            else:  # cannot win: throw the least
                sc = 100 - 10 * c - r - tab[_RANK + tab[_LED, t], t]
        if t == killer:
            sc += 60  # a play that refuted a sibling line: likely again
        # insertion by score, highest first
        i = n
        while i > 0 and scratch[ply, 1, i - 1] < sc:
            scratch[ply, 1, i] = scratch[ply, 1, i - 1]
            scratch[ply, 0, i] = scratch[ply, 0, i - 1]
            i -= 1
        scratch[ply, 1, i] = sc
        scratch[ply, 0, i] = t
        n += 1
    return n


@njit(cache=True, inline="always")
def _last_trick(h, leader, ppt, tab, bt):
    """Points the bidding team takes in the last trick (one tile in each hand)."""
    t = _bit_index(h[leader])
    s = tab[_LED, t]
    best = tab[_RANK + s, t]
    win = leader
    pts = tab[_COUNT, t] + ppt
    for k in range(1, 4):
        seat = (leader + k) & 3
        u = _bit_index(h[seat])
        pts += tab[_COUNT, u]
        r = tab[_RANK + s, u]
        if r > best:
            best = r
            win = seat
    return pts if (win & 1) == bt else 0


@njit(cache=True, inline="always")
def _sure_points(h, tab, ppt, bt):
    """(points the bidding team, points the other team is sure to take from here on), from
    the top trumps: the team holding the highest trumps left takes the trick each of them falls
    in (nobody else holds a higher one), at least as many tricks as one of its hands holds of
    them, and their count."""
    team = -1
    k0 = 0
    k1 = 0
    pts = 0
    for j in range(T.N_TILES):
        t = tab[_TRUMP_ORDER, j]
        if t < 0:
            break
        bit = np.int64(1) << t
        owner = -1
        for q in range(4):
            if h[q] & bit:
                owner = q
        if owner < 0:
            continue  # played
        if team < 0:
            team = owner & 1
        elif (owner & 1) != team:
            break
        pts += tab[_COUNT, t]
        if owner < 2:
            k0 += 1
        else:
            k1 += 1
    pts += ppt * max(k0, k1)
    if team == bt:
        return pts, 0
    return 0, pts


@njit(cache=True, inline="always")
def _other(hand, bit):
    """The tile left in a two-tile hand once ``bit`` is played."""
    return _bit_index(hand ^ bit)


@njit(cache=True, inline="always")
def _leader_side_wins(x0, x1, x2, x3, rank_row, tab):
    """Whether relative seats 0 and 2 take a trick whose tiles rank ``tab[rank_row, x]``
    (positive ranks are unique and the led tile's is positive)."""
    return max(tab[rank_row, x0], tab[rank_row, x2]) > max(tab[rank_row, x1],
                                                           tab[rank_row, x3])


@njit(cache=True, inline="always")
def _two_tricks(h, leader, ppt, tab, bt):
    """Exact points the bidding team takes in the last two tricks (two tiles in each hand,
    ``leader`` to lead): alpha-beta over the at most 16 ways the first of them goes, valued
    for the leader's side (the points of both tricks it takes; the other side takes the rest
    of ``total``)."""
    h0 = h[leader]
    h1 = h[(leader + 1) & 3]
    h2 = h[(leader + 2) & 3]
    h3 = h[(leader + 3) & 3]
    total = _points_left(h0 | h1 | h2 | h3, 2, ppt, tab)
    a0 = -1  # the leader's best so far
    m0 = h0
    while m0:
        b0 = m0 & -m0
        m0 ^= b0
        t0 = _bit_index(b0)
        x0 = _other(h0, b0)
        led = tab[_LED, t0]
        fol = tab[_FOLLOW, led]
        row = _RANK + led
        c0 = tab[_COUNT, t0] + ppt
        m1 = h1 & fol
        if m1 == 0:
            m1 = h1
        b1v = 1000  # seat 1's best (lowest) so far
        while m1:
            b1 = m1 & -m1
            m1 ^= b1
            t1 = _bit_index(b1)
            x1 = _other(h1, b1)
            c1 = c0 + tab[_COUNT, t1]
            m2 = h2 & fol
            if m2 == 0:
                m2 = h2
            b2v = a0  # seat 2's best so far, at least what the leader has
            while m2:
                b2 = m2 & -m2
                m2 ^= b2
                t2 = _bit_index(b2)
                x2 = _other(h2, b2)
                c2 = c1 + tab[_COUNT, t2]
                m3 = h3 & fol
                if m3 == 0:
                    m3 = h3
                b3v = b1v  # seat 3's best so far, at most what seat 1 has
                while m3:
                    b3 = m3 & -m3
                    m3 ^= b3
                    t3 = _bit_index(b3)
                    x3 = _other(h3, b3)
                    pts1 = c2 + tab[_COUNT, t3]
                    r0 = tab[row, t0]
                    r1 = tab[row, t1]
                    r2 = tab[row, t2]
                    r3 = tab[row, t3]
                    first = max(r0, r2) > max(r1, r3)
                    if first:  # the leader's side leads the last trick
                        y = x0 if r0 > r2 else x2
                    else:
                        y = x1 if r1 > r3 else x3
                    v = pts1 if first else 0
                    if _leader_side_wins(x0, x1, x2, x3, _RANK + tab[_LED, y], tab):
                        v += total - pts1
                    if v < b3v:
                        b3v = v
                        if v <= b2v:
                            break  # seat 2 has better already
                if b3v > b2v:
                    b2v = b3v
                    if b2v >= b1v:
                        break  # seat 1 has better already
            if b2v < b1v:
                b1v = b2v
                if b1v <= a0:
                    break  # the leader has better already
        if b1v > a0:
            a0 = b1v
    return a0 if (leader & 1) == bt else total - a0


# fields of a search frame (one row of ``frames`` per depth)
(_F_LEADER, _F_NIN, _F_LED, _F_BRANK, _F_BSEAT, _F_TPTS, _F_LEFT, _F_ALPHA, _F_BETA, _F_AIN,
 _F_BIN, _F_BEST, _F_BEST_T, _F_IDX, _F_LO, _F_HI, _F_N, _F_I, _F_GAIN, _F_SEAT,
 _F_HAND, _F_KILLER) = range(22)
_N_FIELDS = 24
_ENTER, _NEXT, _RETURN = 0, 1, 2


@njit(cache=True)
def _ab(h, leader, n_in, led, brank, bseat, tpts, left, alpha, beta, tab, prm, tt, lt,
        scratch, frames):
    """Points the bidding team takes from here on: fail-soft alpha-beta, iterative (an
    explicit stack of frames, so no call or reference counting per node).

    ``h``: the four hands (int64 bitmasks, changed and restored); a trick led by ``leader`` with
    ``n_in`` plays so far, of suit ``led``, best rank ``brank`` by ``bseat``, count ``tpts``;
    ``left`` tricks still to finish (the one in progress included). ``tab``: the contract's
    tables; ``prm``: the search's parameters and counters (``_P_*``); ``tt``: the
    transposition table (two key words, then lower bound | upper bound << 8 | (best play + 1)
    << 16 | generation << 24); ``lt``: the last two tricks' values (two key words, generation,
    value); ``scratch``: each depth's plays in order and their scores;
    ``frames``: each depth's frame (``_F_*``).
    """
    bt = prm[_P_TEAM]
    ppt = prm[_P_PPT]
    gen = prm[_P_GEN]
    mask = tt.shape[0] - 1
    F = frames
    d = 0
    F[0, _F_LEADER] = leader
    F[0, _F_NIN] = n_in
    F[0, _F_LED] = led
    F[0, _F_BRANK] = brank
    F[0, _F_BSEAT] = bseat
    F[0, _F_TPTS] = tpts
    F[0, _F_LEFT] = left
    F[0, _F_ALPHA] = alpha
    F[0, _F_BETA] = beta
    mode = _ENTER
    val = 0
    while True:
        if mode == _ENTER:
            prm[_P_NODES] += 1
            leader = F[d, _F_LEADER]
            n_in = F[d, _F_NIN]
            left = F[d, _F_LEFT]
            alpha = F[d, _F_ALPHA]
            beta = F[d, _F_BETA]
            seat = (leader + n_in) & 3
            tt_move = -1
            idx = -1
            lo = 0
            hi = 0
            if n_in == 0:
                if left == 0:
                    val = 0
                    mode = _RETURN
                    continue
                if left == 1:
                    val = _last_trick(h, leader, ppt, tab, bt)
                    mode = _RETURN
                    continue
                rem = h[0] | h[1] | h[2] | h[3]
                hi = _points_left(rem, left, ppt, tab)
                if hi <= alpha:
                    val = hi
                    mode = _RETURN
                    continue
                if beta <= 0:
                    val = 0
                    mode = _RETURN
                    continue
                k1 = h[0] | (h[1] << 28)
                k2 = h[2] | (h[3] << 28) | (leader << 56)
                x = k1 * -7046029254386353131 ^ k2 * -4658895280553007687
                x ^= x >> 29
                if left == 2:  # two tricks left: counted exactly, kept in their own table
                    j = (x >> 7) & (lt.shape[0] - 1)
                    if lt[j, 0] == k1 and lt[j, 1] == k2 and lt[j, 2] == gen:
                        val = lt[j, 3]
                    else:
                        val = _two_tricks(h, leader, ppt, tab, bt)
                        lt[j, 0] = k1
                        lt[j, 1] = k2
                        lt[j, 2] = gen
                        lt[j, 3] = val
                    mode = _RETURN
                    continue
                idx = (x >> 7) & mask
                e = tt[idx, 2]
                found = tt[idx, 0] == k1 and tt[idx, 1] == k2 and (e >> 24) == gen
                if not found:
                    lo, sure = _sure_points(h, tab, ppt, bt)
                    hi -= sure
                    if lo >= beta:
                        val = lo
                        mode = _RETURN
                        continue
                    if hi <= alpha:
                        val = hi
                        mode = _RETURN
                        continue
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi
                else:
                    lo = e & 255
                    hi = (e >> 8) & 255
                    tt_move = ((e >> 16) & 255) - 1
                    if lo >= beta:
                        val = lo
                        mode = _RETURN
                        continue
                    if hi <= alpha:
                        val = hi
                        mode = _RETURN
                        continue
                    if lo == hi:
                        val = lo
                        mode = _RETURN
                        continue
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi
            led = F[d, _F_LED]
            hand = h[seat]
            m = hand
            if n_in > 0:
                f = hand & tab[_FOLLOW, led]
                if f != 0:
                    m = f
            if m & (m - 1) == 0:  # one legal play
                scratch[d, 0, 0] = _bit_index(m)
                n = 1
            else:
                n = _order(h, seat, n_in, led, F[d, _F_BRANK], F[d, _F_BSEAT], m, tt_move,
                           F[d, _F_KILLER], tab, scratch, d)
            F[d, _F_ALPHA] = alpha
            F[d, _F_BETA] = beta
            F[d, _F_AIN] = alpha
            F[d, _F_BIN] = beta
            F[d, _F_BEST] = -1 if (seat & 1) == bt else 1000
            F[d, _F_BEST_T] = -1
            F[d, _F_IDX] = idx
            F[d, _F_LO] = lo
            F[d, _F_HI] = hi
            F[d, _F_N] = n
            F[d, _F_I] = 0
            F[d, _F_SEAT] = seat
            F[d, _F_HAND] = hand
            mode = _NEXT
        elif mode == _NEXT:
            i = F[d, _F_I]
            if i < F[d, _F_N]:
                t = scratch[d, 0, i]
                seat = F[d, _F_SEAT]
                h[seat] = F[d, _F_HAND] ^ (np.int64(1) << t)
                n_in = F[d, _F_NIN]
                c = d + 1
                alpha = F[d, _F_ALPHA]
                beta = F[d, _F_BETA]
                gain = 0
                if n_in == 0:
                    s = tab[_LED, t]
                    F[c, _F_LEADER] = seat
                    F[c, _F_NIN] = 1
                    F[c, _F_LED] = s
                    F[c, _F_BRANK] = tab[_RANK + s, t]
                    F[c, _F_BSEAT] = seat
                    F[c, _F_TPTS] = tab[_COUNT, t]
                    F[c, _F_LEFT] = F[d, _F_LEFT]
                else:
                    led = F[d, _F_LED]
                    r = tab[_RANK + led, t]
                    nb = F[d, _F_BRANK]
                    ns = F[d, _F_BSEAT]
                    if r > nb:
                        nb = r
                        ns = seat
                    pts = F[d, _F_TPTS] + tab[_COUNT, t]
                    if n_in == 3:
                        if (ns & 1) == bt:
                            gain = pts + ppt
                        F[c, _F_LEADER] = ns
                        F[c, _F_NIN] = 0
                        F[c, _F_LED] = 0
                        F[c, _F_BRANK] = 0
                        F[c, _F_BSEAT] = 0
                        F[c, _F_TPTS] = 0
                        F[c, _F_LEFT] = F[d, _F_LEFT] - 1
                    else:
                        F[c, _F_LEADER] = F[d, _F_LEADER]
                        F[c, _F_NIN] = n_in + 1
                        F[c, _F_LED] = led
                        F[c, _F_BRANK] = nb
                        F[c, _F_BSEAT] = ns
                        F[c, _F_TPTS] = pts
                        F[c, _F_LEFT] = F[d, _F_LEFT]
                F[d, _F_GAIN] = gain
                F[c, _F_ALPHA] = alpha - gain
                F[c, _F_BETA] = beta - gain
                d = c
                mode = _ENTER
            else:  # every play searched, or a cutoff
                best = F[d, _F_BEST]
                idx = F[d, _F_IDX]
                if idx >= 0:
                    lo = F[d, _F_LO]
                    hi = F[d, _F_HI]
                    if best <= F[d, _F_AIN]:
                        hi = best
                    elif best >= F[d, _F_BIN]:
                        lo = best
                    else:
                        lo = best
                        hi = best
                    tt[idx, 0] = h[0] | (h[1] << 28)
                    tt[idx, 1] = h[2] | (h[3] << 28) | (F[d, _F_LEADER] << 56)
                    tt[idx, 2] = lo | (hi << 8) | ((F[d, _F_BEST_T] + 1) << 16) | (gen << 24)
                val = best
                mode = _RETURN
        else:  # _RETURN: ``val`` is the value of the node at depth d
            if d == 0:
                return val
            d -= 1
            seat = F[d, _F_SEAT]
            h[seat] = F[d, _F_HAND]
            v = val + F[d, _F_GAIN]
            i = F[d, _F_I]
            t = scratch[d, 0, i]
            if (seat & 1) == bt:
                if v > F[d, _F_BEST]:
                    F[d, _F_BEST] = v
                    F[d, _F_BEST_T] = t
                    if v > F[d, _F_ALPHA]:
                        F[d, _F_ALPHA] = v
            else:
                if v < F[d, _F_BEST]:
                    F[d, _F_BEST] = v
                    F[d, _F_BEST_T] = t
                    if v < F[d, _F_BETA]:
                        F[d, _F_BETA] = v
            if F[d, _F_ALPHA] >= F[d, _F_BETA]:
                F[d, _F_I] = F[d, _F_N]
                F[d, _F_KILLER] = t
            else:
                F[d, _F_I] = i + 1
            mode = _NEXT


@njit(cache=True)
def _mtdf(h, leader, n_in, led, brank, bseat, tpts, left, guess, top, tab, prm, tt, lt,
          scratch, frames):
    """The exact value in 0..top by null-window searches from ``guess`` (MTD(f))."""
    lo = 0
    hi = top
    g = min(max(guess, lo), hi)
    while lo < hi:
        prm[_P_PASSES] += 1
        b = g + 1 if g == lo else g
        g = _ab(h, leader, n_in, led, brank, bseat, tpts, left, b - 1, b, tab, prm, tt, lt,
                scratch, frames)
        if g < b:
            hi = g
        else:
            lo = g
    return g


@njit(cache=True)
def _solve_root(h, leader, n_in, led, brank, bseat, tpts, left, out, tab, prm, tt, lt,
                scratch, frames):
    """``out[t]``: the points the bidding team takes from here on after play ``t`` (every legal
    play of the seat to move; -1 elsewhere)."""
    bt = prm[_P_TEAM]
    ppt = prm[_P_PPT]
    zero = prm[_P_ZERO]  # 0 as a plain int64: one compiled version of ``_mtdf``
    seat = (leader + n_in) & 3
    hand = h[seat]
    m = hand
    if n_in > 0:
        f = hand & tab[_FOLLOW, led]
        if f != 0:
            m = f
    rem = h[0] | h[1] | h[2] | h[3]
    top = tpts + _points_left(rem, left, ppt, tab)
    guess = top // 2
    row = _MAX_PLIES - 1  # the search below uses the rows of depth 0..28
    n = _order(h, seat, n_in, led, brank, bseat, m, zero - 1, zero - 1, tab, scratch, row)
    for i in range(n):  # one play of each class of equivalent plays, best-first
        t = scratch[row, 0, i]
        bit = np.int64(1) << t
        h[seat] = hand ^ bit
        if n_in == 0:
            s = tab[_LED, t]
            v = _mtdf(h, leader, n_in + 1, s, tab[_RANK + s, t], seat, tab[_COUNT, t], left,
                      guess, top, tab, prm, tt, lt, scratch, frames)
        else:
            r = tab[_RANK + led, t]
            nb = brank
            ns = bseat
            if r > brank:
                nb = r
                ns = seat
            pts = tpts + tab[_COUNT, t]
            if n_in == 3:
                gain = pts + ppt if (ns & 1) == bt else zero
                rest = _points_left(rem ^ bit, left - 1, ppt, tab)
                v = gain + _mtdf(h, ns, zero, zero, zero, zero, zero, left - 1, guess - gain,
                                 rest, tab, prm, tt, lt, scratch, frames)
            else:
                v = _mtdf(h, leader, n_in + 1, led, nb, ns, pts, left, guess, top,
                          tab, prm, tt, lt, scratch, frames)
        h[seat] = hand
        out[t] = v
        guess = v
    # the other plays take the value of the play they are the same as
    others = h[(seat + 1) & 3] | h[(seat + 2) & 3] | h[(seat + 3) & 3]
    suits = _live_suits(others, n_in, led, tab)
    while m:
        bit = m & -m
        m ^= bit
        t = _bit_index(bit)
        if out[t] < 0:
            for i in range(n):
                u = scratch[row, 0, i]
                if _alike(t, u, n_in, led, brank, suits, others, tab):
                    out[t] = out[u]
                    break
    return 0


@njit(cache=True)
def _solve_value(h, leader, n_in, led, brank, bseat, tpts, left, tab, prm, tt, lt, scratch,
                 frames):
    """The points the bidding team takes from here on under perfect play."""
    rem = h[0] | h[1] | h[2] | h[3]
    top = tpts + _points_left(rem, left, prm[_P_PPT], tab)
    return _mtdf(h, leader, n_in, led, brank, bseat, tpts, left, top // 2, top,
                 tab, prm, tt, lt, scratch, frames)


