"""The compiled search of the exact solver (``agents.search.solver``) for the points
contracts of the four-seat game (suits, doubles, follow-me): move ordering, the last two
tricks counted exactly (in their own table), fail-soft alpha-beta (``_ab``, its steps
``agents.search.alphabeta``'s) and MTD(f) at the root (``solve_root``, ``solve_value``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from texas42_env import tiles as T

from agents.search.alphabeta import (alike, back_up, fill_alike, keys4, legal_plays,
                                     live_suits, narrow, open_frame, play_child, pop_frame,
                                     start_frame, store_bounds, tt_cut)
from agents.search.layout import (BEAT, COUNT, COUNT_TILES, ENTER, FOLLOW, F_ALPHA, F_BETA,
                                  F_BRANK, F_BSEAT, F_HAND, F_I, F_K1, F_K2, F_KILLER,
                                  F_LEADER, F_LED, F_LEFT, F_N, F_NIN, F_SEAT, LED, MAX_PLIES,
                                  NEXT, P_GEN, P_NODES, P_PASSES, P_PPT, P_TEAM, P_ZERO, RANK,
                                  RETURN, TRUMP_ORDER, bit_index)


@njit(cache=True, inline="always")
def _points_left(rem, left, ppt, tab):
    """Most points still to come: the count tiles left plus the tricks' points."""
    p = left * ppt
    for t in COUNT_TILES:
        if rem >> t & 1:
            p += tab[COUNT, t]
    return p


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
        t = bit_index(bit)
        c = tab[COUNT, t]
        same = False
        for j in range(n):
            u = scratch[ply, 0, j]
            if tab[COUNT, u] != c or tab[LED, u] != tab[LED, t]:
                continue
            if suits < 0:
                suits = live_suits(others, n_in, led, tab)
            if alike(t, u, n_in, led, brank, suits, others, tab):
                same = True
                if t == tt_move:  # list the table's move in its class's place
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
                sc = 1000 + 10 * c - r  # such sure winners first, count first, low first
            else:
                sc = 100 + 10 * c + r  # then count and high first (fewest nodes, measured)
        else:
            r = tab[RANK + led, t]
            if (bseat & 1) == (seat & 1):
                if safe < 0:  # can the last hand to play still take the trick?
                    safe = 1
                    if n_in == 2:
                        h4 = h[(seat + 1) & 3]
                        f4 = h4 & tab[FOLLOW, led]
                        if f4 == 0:
                            f4 = h4
                        while f4:
                            b4 = f4 & -f4
                            f4 ^= b4
                            if tab[RANK + led, bit_index(b4)] > brank:
                                safe = 0
                                break
                if safe:  # the partner holds the trick: feed it count
                    sc = 500 + 10 * c - r
                elif r > brank:  # overtake, as cheaply as may be
                    sc = 1000 + 10 * c - r
                else:
                    sc = 100 - 10 * c - r - tab[RANK + tab[LED, t], t]
            elif r > brank:  # take the trick, as cheaply as may be
                sc = 1000 + 10 * c - r
            else:  # cannot win: throw the least
                sc = 100 - 10 * c - r - tab[RANK + tab[LED, t], t]
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
    t = bit_index(h[leader])
    s = tab[LED, t]
    best = tab[RANK + s, t]
    win = leader
    pts = tab[COUNT, t] + ppt
    for k in range(1, 4):
        seat = (leader + k) & 3
        u = bit_index(h[seat])
        pts += tab[COUNT, u]
        r = tab[RANK + s, u]
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
        t = tab[TRUMP_ORDER, j]
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
        pts += tab[COUNT, t]
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
    return bit_index(hand ^ bit)


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
        t0 = bit_index(b0)
        x0 = _other(h0, b0)
        led = tab[LED, t0]
        fol = tab[FOLLOW, led]
        row = RANK + led
        c0 = tab[COUNT, t0] + ppt
        m1 = h1 & fol
        if m1 == 0:
            m1 = h1
        b1v = 1000  # seat 1's best (lowest) so far
        while m1:
            b1 = m1 & -m1
            m1 ^= b1
            t1 = bit_index(b1)
            x1 = _other(h1, b1)
            c1 = c0 + tab[COUNT, t1]
            m2 = h2 & fol
            if m2 == 0:
                m2 = h2
            b2v = a0  # seat 2's best so far, at least what the leader has
            while m2:
                b2 = m2 & -m2
                m2 ^= b2
                t2 = bit_index(b2)
                x2 = _other(h2, b2)
                c2 = c1 + tab[COUNT, t2]
                m3 = h3 & fol
                if m3 == 0:
                    m3 = h3
                b3v = b1v  # seat 3's best so far, at most what seat 1 has
                while m3:
                    b3 = m3 & -m3
                    m3 ^= b3
                    t3 = bit_index(b3)
                    x3 = _other(h3, b3)
                    pts1 = c2 + tab[COUNT, t3]
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
                    if _leader_side_wins(x0, x1, x2, x3, RANK + tab[LED, y], tab):
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


@njit(cache=True, _nrt=False)  # no reference counting: see alphabeta
def _ab(h, leader, n_in, led, brank, bseat, tpts, left, alpha, beta, tab, prm, tt, lt,
        scratch, frames):
    """Points the bidding team takes from here on: fail-soft alpha-beta, iterative (an
    explicit stack of frames, so no call or reference counting per node).

    ``h``: the four hands (int64 bitmasks, changed and restored); a trick led by ``leader`` with
    ``n_in`` plays so far, of suit ``led``, best rank ``brank`` by ``bseat``, count ``tpts``;
    ``left`` tricks still to finish (the one in progress included). ``tab``: the contract's
    tables; ``prm``: the search's parameters and counters (``layout.P_*``); ``tt``: the
    transposition table (two key words, then lower bound | upper bound << 8 | (best play + 1)
    << 16 | generation << 24); ``lt``: the last two tricks' values (two key words, generation,
    value); ``scratch``: each depth's plays in order and their scores;
    ``frames``: each depth's frame (``layout.F_*``).
    """
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
            seat = (leader + n_in) & 3
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
                    val = _last_trick(h, leader, ppt, tab, bt)
                    mode = RETURN
                    continue
                rem = h[0] | h[1] | h[2] | h[3]
                hi = _points_left(rem, left, ppt, tab)
                if hi <= alpha:
                    val = hi
                    mode = RETURN
                    continue
                if beta <= 0:
                    val = 0
                    mode = RETURN
                    continue
                k1, k2, x = keys4(h, leader)
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
                    mode = RETURN
                    continue
                idx = (x >> 7) & mask
                e = tt[idx, 2]
                found = tt[idx, 0] == k1 and tt[idx, 1] == k2 and (e >> 24) == gen
                if not found:
                    lo, sure = _sure_points(h, tab, ppt, bt)
                    hi -= sure
                    if lo >= beta:
                        val = lo
                        mode = RETURN
                        continue
                    if hi <= alpha:
                        val = hi
                        mode = RETURN
                        continue
                    alpha, beta = narrow(lo, hi, alpha, beta)
                else:
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
            m = legal_plays(hand, n_in, led, tab)
            if m & (m - 1) == 0:  # one legal play
                scratch[d, 0, 0] = bit_index(m)
                n = 1
            else:
                n = _order(h, seat, n_in, led, F[d, F_BRANK], F[d, F_BSEAT], m, tt_move,
                           F[d, F_KILLER], tab, scratch, d)
            open_frame(F, d, alpha, beta, -1 if (seat & 1) == bt else 1000, idx, lo, hi, n,
                       hand)
            F[d, F_SEAT] = seat
            mode = NEXT
        elif mode == NEXT:
            i = F[d, F_I]
            if i < F[d, F_N]:
                t = scratch[d, 0, i]
                seat = F[d, F_SEAT]
                h[seat] = F[d, F_HAND] ^ (np.int64(1) << t)
                play_child(F, d, t, seat, F[d, F_NIN], 3, bt, ppt, tab)
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
def _mtdf(h, leader, n_in, led, brank, bseat, tpts, left, guess, top, tab, prm, tt, lt,
          scratch, frames):
    """The exact value in 0..top by null-window searches from ``guess`` (MTD(f))."""
    lo = 0
    hi = top
    g = min(max(guess, lo), hi)
    while lo < hi:
        prm[P_PASSES] += 1
        b = g + 1 if g == lo else g
        g = _ab(h, leader, n_in, led, brank, bseat, tpts, left, b - 1, b, tab, prm, tt, lt,
                scratch, frames)
        if g < b:
            hi = g
        else:
            lo = g
    return g


@njit(cache=True)
def search_root(h, leader, n_in, led, brank, bseat, tpts, left, out, tab, prm, tt, lt,
                scratch, frames):
    """``out[t]``: the points the bidding team takes from here on after play ``t`` (every legal
    play of the seat to move; -1 elsewhere)."""
    bt = prm[P_TEAM]
    ppt = prm[P_PPT]
    zero = prm[P_ZERO]  # 0 as a plain int64: one compiled version of ``_mtdf``
    seat = (leader + n_in) & 3
    hand = h[seat]
    m = legal_plays(hand, n_in, led, tab)
    rem = h[0] | h[1] | h[2] | h[3]
    top = tpts + _points_left(rem, left, ppt, tab)
    guess = top // 2
    row = MAX_PLIES - 1  # the search below uses the rows of depth 0..28
    n = _order(h, seat, n_in, led, brank, bseat, m, zero - 1, zero - 1, tab, scratch, row)
    for i in range(n):  # one play of each class of equivalent plays, best-first
        t = scratch[row, 0, i]
        bit = np.int64(1) << t
        h[seat] = hand ^ bit
        if n_in == 0:
            s = tab[LED, t]
            v = _mtdf(h, leader, n_in + 1, s, tab[RANK + s, t], seat, tab[COUNT, t], left,
                      guess, top, tab, prm, tt, lt, scratch, frames)
        else:
            r = tab[RANK + led, t]
            nb = brank
            ns = bseat
            if r > brank:
                nb = r
                ns = seat
            pts = tpts + tab[COUNT, t]
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
    fill_alike(out, m, n, row, n_in, led, brank, others, tab, scratch)
    return 0


@njit(cache=True)
def search_value(h, leader, n_in, led, brank, bseat, tpts, left, tab, prm, tt, lt, scratch,
                 frames):
    """The points the bidding team takes from here on under perfect play."""
    rem = h[0] | h[1] | h[2] | h[3]
    top = tpts + _points_left(rem, left, prm[P_PPT], tab)
    return _mtdf(h, leader, n_in, led, brank, bseat, tpts, left, top // 2, top,
                 tab, prm, tt, lt, scratch, frames)


