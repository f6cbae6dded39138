"""The compiled search of the exact solver (``agents.search.solver``) for nello, and the
one line of play that values sevens.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.search.alphabeta import (alike, back_up, fill_alike, keys4, legal_plays,
                                     live_suits, narrow, open_frame, pop_frame, start_frame,
                                     store_bounds, tt_cut)
from agents.search.layout import (BEAT, ENTER, F_ALPHA, F_BETA, F_BRANK, F_BSEAT, F_GAIN,
                                  F_HAND, F_I, F_K1, F_K2, F_LEADER, F_LED, F_LEFT, F_N, F_NIN,
                                  F_SEAT, LED, MAX_PLIES, NEXT, P_BIDDER, P_GEN, P_NODES, RANK,
                                  RETURN, bit_index)

# ----------------------------------------------------------------------------- nello, sevens
# Nello and sevens are valued in tricks, not points. Nello: the bidder plays alone against the
# two opponents (the partner sits out, its hand set to 0 here), three-tile tricks, every trick
# played; the value is the tricks the bidder takes, the bidder minimising. Sevens: every legal
# play of a seat is a tile of its closest class (all of one rank), so the play is forced up to
# equivalent tiles; the value is the tricks the bidding team takes before its first lost trick.


@njit(cache=True, inline="always")
def _nello_next(seat, out):
    """The seat after ``seat`` when ``out`` sits out."""
    s = (seat + 1) & 3
    return (s + 1) & 3 if s == out else s


@njit(cache=True, inline="always")
def _nello_order(h, seat, bs, n_in, led, brank, bseat, m, tt_move, tab, scratch, ply):
    """``_order`` for nello: the plays of ``m`` best-first for the mover (the bidder ``bs``
    wants to lose each trick, the opponents to make it win), one of each class of
    equivalent plays (``alike``, on tables without count); return how many."""
    out = (bs + 2) & 3
    others = 0
    for q in range(4):
        if q != seat:
            others |= h[q]
    opp = h[(bs + 1) & 3] | h[(bs + 3) & 3]
    suits = live_suits(others, n_in, led, tab)
    n = 0
    while m:
        bit = m & -m
        m ^= bit
        t = bit_index(bit)
        same = False
        for j in range(n):
            u = scratch[ply, 0, j]
            if alike(t, u, n_in, led, brank, suits, others, tab):
                same = True
                if t == tt_move:
                    scratch[ply, 0, j] = t
                break
        if same:
            continue
        if n_in == 0:
            s = tab[LED, t]
            r = tab[RANK + s, t]
            if seat == bs:  # lead a tile an opponent beats, the highest such first
                sc = 1000 + r if tab[BEAT + s, t] & opp else 100 - r
            else:  # lead low: the bidder may have to take it
                sc = 500 - r
        else:
            r = tab[RANK + led, t]
            if seat == bs:
                if r <= brank:  # duck, under the best as high as may be
                    sc = 1000 + r
                else:  # must win: as low as may be (last: any)
                    sc = 100 - r
            elif bseat == bs:  # the bidder holds the trick: stay under it, high first
                sc = 1000 + r if r <= brank else 100 - r
            elif _nello_next(seat, out) == bs:  # the bidder plays next: leave it low
                sc = 1000 - r
            else:  # the partner holds the trick and the bidder has played: throw high
                sc = 500 + r
        if t == tt_move:
            sc = 100000
        i = n
        while i > 0 and scratch[ply, 1, i - 1] < sc:
            scratch[ply, 1, i] = scratch[ply, 1, i - 1]
            scratch[ply, 0, i] = scratch[ply, 0, i - 1]
            i -= 1
        scratch[ply, 1, i] = sc
        scratch[ply, 0, i] = t
        n += 1
    return n


@njit(cache=True, _nrt=False)  # no reference counting: see alphabeta
def nello_value(h, seat, leader, n_in, led, brank, bseat, left, alpha, beta, tab, prm, tt,
              scratch, frames):
    """The tricks the bidder takes from here on (the trick in progress included), every trick
    played: fail-soft alpha-beta, the bidder minimising, ``seat`` to move; iterative, as
    ``_ab`` (an explicit stack of frames), with a transposition table of bounds at trick
    starts keyed by the hands (the partner's is 0) and the leader, its best play tried
    first."""
    bs = prm[P_BIDDER]
    sit = (bs + 2) & 3
    gen = prm[P_GEN]
    mask = tt.shape[0] - 1
    F = frames
    d = 0
    start_frame(F, leader, n_in, led, brank, bseat, 0, left, alpha, beta)
    F[0, F_SEAT] = seat
    mode = ENTER
    val = 0
    while True:
        if mode == ENTER:
            prm[P_NODES] += 1
            seat = F[d, F_SEAT]
            leader = F[d, F_LEADER]
            n_in = F[d, F_NIN]
            left = F[d, F_LEFT]
            alpha = F[d, F_ALPHA]
            beta = F[d, F_BETA]
            idx = -1
            tt_move = -1
            lo = 0
            hi = left
            if n_in == 0:
                if left == 0:
                    val = 0
                    mode = RETURN
                    continue
                if left == 1:  # one tile in each hand
                    t = bit_index(h[leader])
                    s = tab[LED, t]
                    best_r = tab[RANK + s, t]
                    win = leader
                    q = leader
                    for _ in range(2):
                        q = _nello_next(q, sit)
                        r = tab[RANK + s, bit_index(h[q])]
                        if r > best_r:
                            best_r = r
                            win = q
                    val = 1 if win == bs else 0
                    mode = RETURN
                    continue
                k1, k2, x = keys4(h, leader)
                idx = (x >> 7) & mask
                e = tt[idx, 2]
                if tt[idx, 0] == k1 and tt[idx, 1] == k2 and (e >> 24) == gen:
                    lo = e & 255
                    hi = (e >> 8) & 255
                    tt_move = ((e >> 16) & 255) - 1
                    cut, val = tt_cut(lo, hi, alpha, beta)
                    if cut:
                        mode = RETURN
                        continue
                elif beta <= 0:  # the bidder takes at least 0, at most ``left``: never an
                    val = 0  # empty window searched (fail-soft needs alpha < beta)
                    mode = RETURN
                    continue
                elif left <= alpha:
                    val = left
                    mode = RETURN
                    continue
                alpha, beta = narrow(lo, hi, alpha, beta)
                F[d, F_K1] = k1
                F[d, F_K2] = k2
            led = F[d, F_LED]
            hand = h[seat]
            m = legal_plays(hand, n_in, led, tab)
            if m & (m - 1) == 0:
                scratch[d, 0, 0] = bit_index(m)
                n = 1
            else:
                n = _nello_order(h, seat, bs, n_in, led, F[d, F_BRANK], F[d, F_BSEAT], m,
                                 tt_move, tab, scratch, d)
            open_frame(F, d, alpha, beta, 1000 if seat == bs else -1, idx, lo, hi, n, hand)
            mode = NEXT
        elif mode == NEXT:
            i = F[d, F_I]
            if i < F[d, F_N]:
                t = scratch[d, 0, i]
                seat = F[d, F_SEAT]
                h[seat] = F[d, F_HAND] ^ (np.int64(1) << t)
                n_in = F[d, F_NIN]
                c = d + 1
                gain = 0
                if n_in == 0:
                    s = tab[LED, t]
                    F[c, F_SEAT] = _nello_next(seat, sit)
                    F[c, F_LEADER] = seat
                    F[c, F_NIN] = 1
                    F[c, F_LED] = s
                    F[c, F_BRANK] = tab[RANK + s, t]
                    F[c, F_BSEAT] = seat
                    F[c, F_LEFT] = F[d, F_LEFT]
                else:
                    led = F[d, F_LED]
                    r = tab[RANK + led, t]
                    nb = F[d, F_BRANK]
                    ns = F[d, F_BSEAT]
                    if r > nb:
                        nb = r
                        ns = seat
                    if n_in == 2:  # the trick is done: its winner leads the next
                        if ns == bs:
                            gain = 1
                        F[c, F_SEAT] = ns
                        F[c, F_LEADER] = ns
                        F[c, F_NIN] = 0
                        F[c, F_LED] = 0
                        F[c, F_BRANK] = 0
                        F[c, F_BSEAT] = 0
                        F[c, F_LEFT] = F[d, F_LEFT] - 1
                    else:
                        F[c, F_SEAT] = _nello_next(seat, sit)
                        F[c, F_LEADER] = F[d, F_LEADER]
                        F[c, F_NIN] = 2
                        F[c, F_LED] = led
                        F[c, F_BRANK] = nb
                        F[c, F_BSEAT] = ns
                        F[c, F_LEFT] = F[d, F_LEFT]
                F[d, F_GAIN] = gain
                F[c, F_ALPHA] = F[d, F_ALPHA] - gain
                F[c, F_BETA] = F[d, F_BETA] - gain
                d = c
                mode = ENTER
            else:  # every play searched, or a cutoff
                val = store_bounds(F, d, tt, gen)
                mode = RETURN
        else:  # RETURN: ``val`` is the value of the node at depth d
            if d == 0:
                return val
            d, seat, v, t = pop_frame(F, d, h, val, scratch)
            back_up(F, d, v, t, seat != bs)
            mode = NEXT


@njit(cache=True)
def nello_root(h, leader, n_in, led, brank, bseat, left, out, tab, prm, tt, scratch,
                frames):
    """``out[t]``: the tricks the bidder takes from here on after play ``t`` (every legal play
    of the seat to move; -1 elsewhere); returns the position's value (the best of them for
    the mover)."""
    bs = prm[P_BIDDER]
    sit = (bs + 2) & 3
    seat = leader
    for _ in range(n_in):
        seat = _nello_next(seat, sit)
    hand = h[seat]
    m = legal_plays(hand, n_in, led, tab)
    row = MAX_PLIES - 1
    n = _nello_order(h, seat, bs, n_in, led, brank, bseat, m, -1, tab, scratch, row)
    nxt = _nello_next(seat, sit)
    best = 1000 if seat == bs else -1
    for i in range(n):
        t = scratch[row, 0, i]
        h[seat] = hand ^ (np.int64(1) << t)
        if n_in == 0:
            s = tab[LED, t]
            v = nello_value(h, nxt, seat, 1, s, tab[RANK + s, t], seat, left, -1, left + 1,
                          tab, prm, tt, scratch, frames)
        else:
            r = tab[RANK + led, t]
            nb = brank
            ns = bseat
            if r > nb:
                nb = r
                ns = seat
            if n_in == 2:
                g = 1 if ns == bs else 0
                v = g + nello_value(h, ns, ns, 0, 0, 0, 0, left - 1, -1, left, tab, prm, tt,
                                  scratch, frames)
            else:
                v = nello_value(h, nxt, leader, 2, led, nb, ns, left, -1, left + 1, tab, prm,
                              tt, scratch, frames)
        h[seat] = hand
        out[t] = v
        best = min(best, v) if seat == bs else max(best, v)
    others = 0
    for q in range(4):
        if q != seat:
            others |= h[q]
    # the other plays take the value of the play they are the same as
    fill_alike(out, m, n, row, n_in, led, brank, others, tab, scratch)
    return best


def sevens_plays(hand: int, classes) -> int:
    """The legal plays of ``hand`` under sevens: its tiles closest to 7."""
    return next((hand & c for c in classes if hand & c), 0)


def sevens_tricks(h: list[int], seat: int, n_in: int, brank: int, bseat: int, bt: int,
                   tie: bool, rank, classes, first: int = -1) -> int:
    """The tricks the bidding team ``bt`` takes from here on until the hand ends (its first
    lost trick, or the last), ``seat`` to move in a trick with ``n_in`` plays of best rank
    ``brank`` by ``bseat``, ``first`` (when given) played first. Every legal play is of one closeness class, so of one rank and
    the same as any other: one line of play decides it."""
    h = list(h)
    won = 0
    while True:
        plays = sevens_plays(h[seat], classes)
        if plays == 0:  # every tile played
            return won
        t = first if first >= 0 else (plays & -plays).bit_length() - 1
        first = -1
        h[seat] ^= 1 << t
        r = int(rank[t]) + (tie and (seat & 1) == bt)
        if n_in == 0 or r > brank:
            brank, bseat = r, seat
        n_in += 1
        seat = (seat + 1) & 3
        if n_in == 4:
            if (bseat & 1) != bt:
                return won
            won += 1
            seat, n_in = bseat, 0


