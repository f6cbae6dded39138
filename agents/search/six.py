"""The compiled search of the exact solver (``agents.search.solver``) for the six-player game:
six hands in two teams of three (seats 0/2/4 and 1/3/5), 9 tricks, two copies of each tile.

A hand is one int64 over the 28 tile types: bit ``t`` when it holds a copy of type ``t``, bit
``28 + t`` when it holds both (``hand_word``). Which copy is played never matters: the copies
are alike but for the first-played rule, which the trick's strict "better than the best so
far" keeps. The search is the suit search's (``agents.search.points``) for six seats:
fail-soft alpha-beta over an explicit stack of frames, a transposition table of bounds at
trick starts keyed by two independent 64-bit hashes of the six hands and the leader, plays
ordered by the same cheap rules with equivalent plays searched once (``_alike6``: the suit
search's test over the other five hands' tile types, and never two tiles of which another
hand holds a copy), MTD(f) at the root, the last trick counted directly.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.search.alphabeta import (alike, back_up, live_suits, narrow, open_frame,
                                     play_child, pop_frame, start_frame, store_bounds, tt_cut)
from agents.search.layout import (BEAT, COUNT, ENTER, FOLLOW, F_ALPHA, F_BETA, F_BRANK,
                                  F_BSEAT, F_HAND, F_I, F_K1, F_K2, F_KILLER, F_LEADER, F_LED,
                                  F_LEFT, F_N, F_NIN, F_SEAT, LED, NEXT, P_GEN, P_NODES,
                                  P_PASSES, P_PPT, P_TEAM, P_ZERO, RANK, RETURN, bit_index)

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
            p += tab[COUNT, t] * (((x >> t) & 1) + ((x >> (28 + t)) & 1))
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
    """``alphabeta.alike`` for two-copy hands: never the same play when another hand holds a
    copy of either tile, since the copy's trick goes to whichever of the two falls first
    (keeping ``t`` may beat a later copy of ``u`` where keeping ``u`` loses to it)."""
    if others & ((np.int64(1) << t) | (np.int64(1) << u)):
        return False
    return alike(t, u, n_in, led, brank, suits, others, tab)


@njit(cache=True, inline="always")
def _order6(h, seat, leader, n_in, led, brank, bseat, m, tt_move, killer, tab, scratch, ply):
    """The plays of ``m`` (tile types) best-first, one of each class of equivalent plays
    (``points._order`` for six seats); return how many."""
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
        t = bit_index(bit)
        c = tab[COUNT, t]
        same = False
        for j in range(n):
            u = scratch[ply, 0, j]
            if tab[COUNT, u] != c or tab[LED, u] != tab[LED, t]:
                continue
            if suits < 0:
                suits = live_suits(others, n_in, led, tab)
            if _alike6(t, u, n_in, led, brank, suits, others, tab):
                same = True
                if t == tt_move:
                    scratch[ply, 0, j] = t
                break
        if same:
            continue
        if n_in == 0:
            s = tab[LED, t]
            r = tab[RANK + s, t]
            if t == tt_move:
                sc = 10000
            elif tab[BEAT + s, t] & opp == 0:  # nothing the opponents hold beats it
                sc = 1000 + 10 * c - r
            else:
                sc = 100 + 10 * c + r
        else:
            r = tab[RANK + led, t]
            if (bseat & 1) == team:
                if safe < 0:  # can an opponent still to play take the trick?
                    safe = 1
                    for k in range(n_in + 1, SEATS):
                        q = (leader + k) % SEATS
                        if (q & 1) == team:
                            continue
                        hq = h[q] & _TYPES
                        f = hq & tab[FOLLOW, led]
                        if f == 0:
                            f = hq
                        while f:
                            b = f & -f
                            f ^= b
                            if tab[RANK + led, bit_index(b)] > brank:
                                safe = 0
                                break
                        if safe == 0:
                            break
                if safe:  # the side holds the trick: feed it count
                    sc = 500 + 10 * c - r
                elif r > brank:
                    sc = 1000 + 10 * c - r
                else:
                    sc = 100 - 10 * c - r - tab[RANK + tab[LED, t], t]
            elif r > brank:
                sc = 1000 + 10 * c - r
            else:
                sc = 100 - 10 * c - r - tab[RANK + tab[LED, t], t]
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
    t = bit_index(h[leader] & _TYPES)
    s = tab[LED, t]
    best = tab[RANK + s, t]
    win = leader
    pts = tab[COUNT, t] + ppt
    for k in range(1, SEATS):
        seat = (leader + k) % SEATS
        u = bit_index(h[seat] & _TYPES)
        pts += tab[COUNT, u]
        r = tab[RANK + s, u]
        if r > best:
            best = r
            win = seat
    return pts if (win & 1) == bt else 0


@njit(cache=True, inline="always")
def _moves(hand, n_in, led, tab):
    m = hand & _TYPES
    if n_in > 0:
        f = m & tab[FOLLOW, led]
        if f != 0:
            m = f
    return m


@njit(cache=True, _nrt=False)  # no reference counting: see alphabeta
def _ab6(h, leader, n_in, led, brank, bseat, tpts, left, alpha, beta, tab, prm, tt,
         count_tiles, scratch, frames):
    """Points the bidding team takes from here on: ``points._ab`` for six seats (``h``: the
    six hands as ``hand_word``s, changed and restored; ``tt``: two hash words, then lower
    bound | upper bound << 8 | (best play + 1) << 16 | generation << 24)."""
    bt = prm[P_TEAM]
    ppt = prm[P_PPT]
    gen = prm[P_GEN]
    mask = tt.shape[0] - 1
    F = frames
    d = 0
    start_frame(F, leader, n_in, led, brank, bseat, tpts, left, alpha, beta)
    mode = ENTER
    val = 0
    while True:
        if mode == ENTER:
            prm[P_NODES] += 1
            leader = F[d, F_LEADER]
            n_in = F[d, F_NIN]
            left = F[d, F_LEFT]
            alpha = F[d, F_ALPHA]
            beta = F[d, F_BETA]
            seat = (leader + n_in) % SEATS
            tt_move = -1
            idx = -1
            lo = 0
            hi = 0
            if n_in == 0:
                if left == 0:
                    val = 0
                    mode = RETURN
                    continue
                if left == 1:
                    val = _last_trick6(h, leader, ppt, tab, bt)
                    mode = RETURN
                    continue
                hi = _points_left(h, left, ppt, tab, count_tiles)
                if hi <= alpha:
                    val = hi
                    mode = RETURN
                    continue
                if beta <= 0:
                    val = 0
                    mode = RETURN
                    continue
                k1, k2 = _keys(h, leader)
                idx = (k1 >> 7) & mask
                e = tt[idx, 2]
                if tt[idx, 0] == k1 and tt[idx, 1] == k2 and (e >> 24) == gen:
                    lo = e & 255
                    hi = (e >> 8) & 255
                    tt_move = ((e >> 16) & 255) - 1
                    cut, val = tt_cut(lo, hi, alpha, beta)
                    if cut:
                        mode = RETURN
                        continue
                    alpha, beta = narrow(lo, hi, alpha, beta)
                F[d, F_K1] = k1
                F[d, F_K2] = k2
            led = F[d, F_LED]
            hand = h[seat]
            m = _moves(hand, n_in, led, tab)
            if m & (m - 1) == 0:  # one legal play
                scratch[d, 0, 0] = bit_index(m)
                n = 1
            else:
                n = _order6(h, seat, leader, n_in, led, F[d, F_BRANK], F[d, F_BSEAT], m,
                            tt_move, F[d, F_KILLER], tab, scratch, d)
            open_frame(F, d, alpha, beta, -1 if (seat & 1) == bt else 1000, idx, lo, hi, n,
                       hand)
            F[d, F_SEAT] = seat
            mode = NEXT
        elif mode == NEXT:
            i = F[d, F_I]
            if i < F[d, F_N]:
                t = scratch[d, 0, i]
                seat = F[d, F_SEAT]
                h[seat] = _without(F[d, F_HAND], t)
                play_child(F, d, t, seat, F[d, F_NIN], SEATS - 1, bt, ppt, tab)
                d += 1
                mode = ENTER
            else:  # every play searched, or a cutoff
                val = store_bounds(F, d, tt, gen)
                mode = RETURN
        else:  # RETURN: ``val`` is the value of the node at depth d
            if d == 0:
                return val
            d, seat, v, t = pop_frame(F, d, h, val, scratch)
            if back_up(F, d, v, t, (seat & 1) == bt):
                F[d, F_KILLER] = t
            mode = NEXT


@njit(cache=True)
def _mtdf6(h, leader, n_in, led, brank, bseat, tpts, left, guess, top, tab, prm, tt,
           count_tiles, scratch, frames):
    """The exact value in 0..top by null-window searches from ``guess`` (MTD(f))."""
    lo = 0
    hi = top
    g = min(max(guess, lo), hi)
    while lo < hi:
        prm[P_PASSES] += 1
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
    bt = prm[P_TEAM]
    ppt = prm[P_PPT]
    zero = prm[P_ZERO]
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
            s = tab[LED, t]
            v = _mtdf6(h, leader, n_in + 1, s, tab[RANK + s, t], seat, tab[COUNT, t], left,
                       guess, top, tab, prm, tt, count_tiles, scratch, frames)
        else:
            r = tab[RANK + led, t]
            nb = brank
            ns = bseat
            if r > brank:
                nb = r
                ns = seat
            pts = tpts + tab[COUNT, t]
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
    suits = live_suits(others, n_in, led, tab)
    while m:
        bit = m & -m
        m ^= bit
        t = bit_index(bit)
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
    top = tpts + _points_left(h, left, prm[P_PPT], tab, count_tiles)
    return _mtdf6(h, leader, n_in, led, brank, bseat, tpts, left, top // 2, top, tab, prm, tt,
                  count_tiles, scratch, frames)
