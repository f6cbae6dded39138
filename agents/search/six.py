"""The compiled search of the exact solver (``agents.search.solver``) for the six-player game:
six hands in two teams of three (seats 0/2/4 and 1/3/5), 9 tricks, two copies of each tile.

A hand is one int64 over the 28 tile types: bit ``t`` when it holds a copy of type ``t``, bit
``28 + t`` when it holds both (``hand_word``). Which copy is played never matters: the copies
are alike but for the first-played rule, which the trick's strict "better than the best so
far" keeps. The search is the suit search's (``agents.search.kernels``) for six seats:
fail-soft alpha-beta over an explicit stack of frames, a transposition table of bounds at
trick starts keyed by two independent 64-bit hashes of the six hands and the leader, plays
ordered by the same cheap rules with equivalent plays searched once (``_alike6``: the suit
search's test over the other five hands' tile types, and never two tiles of which another
hand holds a copy), MTD(f) at the root, the last trick counted directly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.search.kernels import (_BEAT, _COUNT, _ENTER, _FOLLOW, _LED, _NEXT, _P_GEN,
                                   _P_NODES, _P_PASSES, _P_PPT, _P_TEAM, _P_ZERO, _RANK,
                                   _RETURN, _alike, _bit_index, _live_suits)

SEATS = 6
MAX_PLIES = 64  # rows of the per-depth arrays (a hand has 54 plays; the root uses the last)
MAX_MOVES = 10  # a hand holds at most 9 tile types (the exchange leaves 9 tiles)
_TYPES = (1 << 28) - 1
_K1, _K2 = -7046029254386353131, -4658895280553007687  # odd multipliers of the two hashes
_LOW35, _LOW33 = (1 << 35) - 1, (1 << 33) - 1


def hand_word(instances: int) -> int:
    """The search's word for a hand given as the core's instance bitmask (copy 0 at bit
    ``t``, copy 1 at bit ``28 + t``): bit ``t`` holds a copy of ``t``, bit ``28 + t`` both."""
    lo = instances & _TYPES
    hi = (instances >> 28) & _TYPES
    return (lo | hi) | ((lo & hi) << 28)


@njit(cache=True, inline="always")
def _without(hand, t):
    """``hand`` less one copy of type ``t``."""
    two = np.int64(1) << (28 + t)
    if hand & two:
        return hand ^ two
    return hand ^ (np.int64(1) << t)


@njit(cache=True, inline="always")
def _points_left(h, left, ppt, tab, count_tiles):
    """Most points still to come: the count tiles held (each copy) plus the tricks' points."""
    p = left * ppt
    for q in range(SEATS):
        x = h[q]
        for t in count_tiles:
            p += tab[_COUNT, t] * (((x >> t) & 1) + ((x >> (28 + t)) & 1))
    return p


@njit(cache=True, inline="always")
def _keys(h, leader):
    """Two independent hashes of the six hands and the leader (multiply, then xor with a
    logical shift: the arithmetic shift of an int64 would pin the top bit)."""
    x = np.int64(leader + 1) * _K2
    y = np.int64(leader + 1)
    for q in range(SEATS):
        x = (x ^ h[q]) * _K1
        x ^= (x >> 29) & _LOW35
        y = (y ^ h[q]) * _K2
        y ^= (y >> 31) & _LOW33
    return x, y


@njit(cache=True, inline="always")
def _alike6(t, u, n_in, led, brank, suits, others, tab):
    """``kernels._alike`` for two-copy hands: never the same play when another hand holds a
    copy of either tile, since the copy's trick goes to whichever of the two falls first
    (keeping ``t`` may beat a later copy of ``u`` where keeping ``u`` loses to it)."""
    if others & ((np.int64(1) << t) | (np.int64(1) << u)):
        return False
    return _alike(t, u, n_in, led, brank, suits, others, tab)


@njit(cache=True, inline="always")
def _order6(h, seat, leader, n_in, led, brank, bseat, m, tt_move, killer, tab, scratch, ply):
    """The plays of ``m`` (tile types) best-first, one of each class of equivalent plays
    (``kernels._order`` for six seats); return how many."""
    team = seat & 1
    opp = 0
    others = 0
    for q in range(SEATS):
        if q != seat:
            ty = h[q] & _TYPES
            others |= ty
            if (q & 1) != team:
                opp |= ty
    suits = -1
    safe = -1
    n = 0
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
            if _alike6(t, u, n_in, led, brank, suits, others, tab):
                same = True
                if t == tt_move:
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
                sc = 1000 + 10 * c - r
            else:
                sc = 100 + 10 * c + r
        else:
            r = tab[_RANK + led, t]
            if (bseat & 1) == team:
                if safe < 0:  # can an opponent still to play take the trick?
                    safe = 1
                    for k in range(n_in + 1, SEATS):
                        q = (leader + k) % SEATS
                        if (q & 1) == team:
                            continue
                        hq = h[q] & _TYPES
                        f = hq & tab[_FOLLOW, led]
                        if f == 0:
                            f = hq
                        while f:
                            b = f & -f
                            f ^= b
                            if tab[_RANK + led, _bit_index(b)] > brank:
                                safe = 0
                                break
                        if safe == 0:
                            break
                if safe:  # the side holds the trick: feed it count
                    sc = 500 + 10 * c - r
                elif r > brank:
                    sc = 1000 + 10 * c - r
                else:
                    sc = 100 - 10 * c - r - tab[_RANK + tab[_LED, t], t]
            elif r > brank:
                sc = 1000 + 10 * c - r
            else:
                sc = 100 - 10 * c - r - tab[_RANK + tab[_LED, t], t]
        if t == killer:
            sc += 60
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
def _last_trick6(h, leader, ppt, tab, bt):
    """Points the bidding team takes in the last trick (one tile in each hand)."""
    t = _bit_index(h[leader] & _TYPES)
    s = tab[_LED, t]
    best = tab[_RANK + s, t]
    win = leader
    pts = tab[_COUNT, t] + ppt
    for k in range(1, SEATS):
        seat = (leader + k) % SEATS
        u = _bit_index(h[seat] & _TYPES)
        pts += tab[_COUNT, u]
        r = tab[_RANK + s, u]
        if r > best:
            best = r
            win = seat
    return pts if (win & 1) == bt else 0


@njit(cache=True, inline="always")
def _moves(hand, n_in, led, tab):
    m = hand & _TYPES
    if n_in > 0:
        f = m & tab[_FOLLOW, led]
        if f != 0:
            m = f
    return m


# fields of a search frame (one row of ``frames`` per depth)
(_F_LEADER, _F_NIN, _F_LED, _F_BRANK, _F_BSEAT, _F_TPTS, _F_LEFT, _F_ALPHA, _F_BETA, _F_AIN,
 _F_BIN, _F_BEST, _F_BEST_T, _F_IDX, _F_LO, _F_HI, _F_N, _F_I, _F_GAIN, _F_SEAT,
 _F_HAND, _F_KILLER, _F_K1, _F_K2) = range(24)
N_FIELDS = 24


@njit(cache=True)
def _ab6(h, leader, n_in, led, brank, bseat, tpts, left, alpha, beta, tab, prm, tt,
         count_tiles, scratch, frames):
    """Points the bidding team takes from here on: ``kernels._ab`` for six seats (``h``: the
    six hands as ``hand_word``s, changed and restored; ``tt``: two hash words, then lower
    bound | upper bound << 8 | (best play + 1) << 16 | generation << 24)."""
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
            seat = (leader + n_in) % SEATS
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
                    val = _last_trick6(h, leader, ppt, tab, bt)
                    mode = _RETURN
                    continue
                hi = _points_left(h, left, ppt, tab, count_tiles)
                if hi <= alpha:
                    val = hi
                    mode = _RETURN
                    continue
                if beta <= 0:
                    val = 0
                    mode = _RETURN
                    continue
                k1, k2 = _keys(h, leader)
                idx = (k1 >> 7) & mask
                e = tt[idx, 2]
                if tt[idx, 0] == k1 and tt[idx, 1] == k2 and (e >> 24) == gen:
                    lo = e & 255
                    hi = (e >> 8) & 255
                    tt_move = ((e >> 16) & 255) - 1
                    if lo >= beta:
                        val = lo
                        mode = _RETURN
                        continue
                    if hi <= alpha or lo == hi:
                        val = hi
                        mode = _RETURN
                        continue
                    if lo > alpha:
                        alpha = lo
                    if hi < beta:
                        beta = hi
                F[d, _F_K1] = k1
                F[d, _F_K2] = k2
            led = F[d, _F_LED]
            hand = h[seat]
            m = _moves(hand, n_in, led, tab)
            if m & (m - 1) == 0:  # one legal play
                scratch[d, 0, 0] = _bit_index(m)
                n = 1
            else:
                n = _order6(h, seat, leader, n_in, led, F[d, _F_BRANK], F[d, _F_BSEAT], m,
                            tt_move, F[d, _F_KILLER], tab, scratch, d)
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
                h[seat] = _without(F[d, _F_HAND], t)
                n_in = F[d, _F_NIN]
                c = d + 1
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
                    if r > nb:  # strictly: of two copies the first played ranks higher
                        nb = r
                        ns = seat
                    pts = F[d, _F_TPTS] + tab[_COUNT, t]
                    if n_in == SEATS - 1:
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
                F[c, _F_ALPHA] = F[d, _F_ALPHA] - gain
                F[c, _F_BETA] = F[d, _F_BETA] - gain
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
                    tt[idx, 0] = F[d, _F_K1]
                    tt[idx, 1] = F[d, _F_K2]
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
def _mtdf6(h, leader, n_in, led, brank, bseat, tpts, left, guess, top, tab, prm, tt,
           count_tiles, scratch, frames):
    """The exact value in 0..top by null-window searches from ``guess`` (MTD(f))."""
    lo = 0
    hi = top
    g = min(max(guess, lo), hi)
    while lo < hi:
        prm[_P_PASSES] += 1
        b = g + 1 if g == lo else g
        g = _ab6(h, leader, n_in, led, brank, bseat, tpts, left, b - 1, b, tab, prm, tt,
                 count_tiles, scratch, frames)
        if g < b:
            hi = g
        else:
            lo = g
    return g


@njit(cache=True)
def solve_root6(h, leader, n_in, led, brank, bseat, tpts, left, out, tab, prm, tt,
                count_tiles, scratch, frames):
    """``out[t]``: the points the bidding team takes from here on after playing tile type
    ``t`` (every legal play of the seat to move; -1 elsewhere)."""
    bt = prm[_P_TEAM]
    ppt = prm[_P_PPT]
    zero = prm[_P_ZERO]
    seat = (leader + n_in) % SEATS
    hand = h[seat]
    m = _moves(hand, n_in, led, tab)
    top = tpts + _points_left(h, left, ppt, tab, count_tiles)
    guess = top // 2
    row = MAX_PLIES - 1
    n = _order6(h, seat, leader, n_in, led, brank, bseat, m, zero - 1, zero - 1, tab, scratch,
                row)
    for i in range(n):
        t = scratch[row, 0, i]
        h[seat] = _without(hand, t)
        if n_in == 0:
            s = tab[_LED, t]
            v = _mtdf6(h, leader, n_in + 1, s, tab[_RANK + s, t], seat, tab[_COUNT, t], left,
                       guess, top, tab, prm, tt, count_tiles, scratch, frames)
        else:
            r = tab[_RANK + led, t]
            nb = brank
            ns = bseat
            if r > brank:
                nb = r
                ns = seat
            pts = tpts + tab[_COUNT, t]
            if n_in == SEATS - 1:
                gain = pts + ppt if (ns & 1) == bt else zero
                rest = _points_left(h, left - 1, ppt, tab, count_tiles)
                v = gain + _mtdf6(h, ns, zero, zero, zero, zero, zero, left - 1, guess - gain,
                                  rest, tab, prm, tt, count_tiles, scratch, frames)
            else:
                v = _mtdf6(h, leader, n_in + 1, led, nb, ns, pts, left, guess, top, tab, prm,
                           tt, count_tiles, scratch, frames)
        h[seat] = hand
        out[t] = v
        guess = v
    # the other plays take the value of the play they are the same as
    others = 0
    for q in range(SEATS):
        if q != seat:
            others |= h[q] & _TYPES
    suits = _live_suits(others, n_in, led, tab)
    while m:
        bit = m & -m
        m ^= bit
        t = _bit_index(bit)
        if out[t] < 0:
            for i in range(n):
                u = scratch[row, 0, i]
                if _alike6(t, u, n_in, led, brank, suits, others, tab):
                    out[t] = out[u]
                    break
    return 0


@njit(cache=True)
def solve_value6(h, leader, n_in, led, brank, bseat, tpts, left, tab, prm, tt, count_tiles,
                 scratch, frames):
    """The points the bidding team takes from here on under perfect play."""
    top = tpts + _points_left(h, left, prm[_P_PPT], tab, count_tiles)
    return _mtdf6(h, leader, n_in, led, brank, bseat, tpts, left, top // 2, top, tab, prm, tt,
                  count_tiles, scratch, frames)
