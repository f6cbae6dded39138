"""The compiled search of the exact solver (``agents.search.solver``) for nello, and the
one line of play that values sevens.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.search.kernels import (_BEAT, _ENTER, _FOLLOW, _LED, _MAX_PLIES, _NEXT, _P_GEN,
                                   _P_NODES, _RANK, _RETURN,
                                   _alike, _bit_index,
                                   _live_suits)

# ----------------------------------------------------------------------------- nello, sevens
# Nello and sevens are valued in tricks, not points. Nello: the bidder plays alone against the
# two opponents (the partner sits out, its hand set to 0 here), three-tile tricks, every trick
# played; the value is the tricks the bidder takes, the bidder minimising. Sevens: every legal
# play of a seat is a tile of its closest class (all of one rank), so the play is forced up to
# equivalent tiles; the value is the tricks the bidding team takes before its first lost trick.
_P_BIDDER = 6  # ``prm``: the bidder's seat (nello)


@njit(cache=True, inline="always")
def _nello_next(seat, out):
    """The seat after ``seat`` when ``out`` sits out."""
    s = (seat + 1) & 3
    return (s + 1) & 3 if s == out else s


@njit(cache=True, inline="always")
def _nello_order(h, seat, bs, n_in, led, brank, bseat, m, tt_move, tab, scratch, ply):
    """``_order`` for nello: the plays of ``m`` best-first for the mover (the bidder ``bs``
    wants to lose each trick, the opponents to make it win), one of each class of
    equivalent plays (``_alike``, on tables without count); return how many."""
    out = (bs + 2) & 3
    others = 0
    for q in range(4):
        if q != seat:
            others |= h[q]
    opp = h[(bs + 1) & 3] | h[(bs + 3) & 3]
    suits = _live_suits(others, n_in, led, tab)
    n = 0
    while m:
        bit = m & -m
        m ^= bit
        t = _bit_index(bit)
        same = False
        for j in range(n):
            u = scratch[ply, 0, j]
            if _alike(t, u, n_in, led, brank, suits, others, tab):
                same = True
                if t == tt_move:
                    scratch[ply, 0, j] = t
                break
        if same:
            continue
        if n_in == 0:
            s = tab[_LED, t]
            r = tab[_RANK + s, t]
            if seat == bs:  # lead a tile an opponent beats, the highest such first
                sc = 1000 + r if tab[_BEAT + s, t] & opp else 100 - r
            else:  # lead low: the bidder may have to take it
                sc = 500 - r
        else:
            r = tab[_RANK + led, t]
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


# fields of a nello search frame (one row of ``frames`` per depth)
(_N_SEAT, _N_LEADER, _N_NIN, _N_LED, _N_BRANK, _N_BSEAT, _N_LEFT, _N_ALPHA, _N_BETA, _N_AIN,
 _N_BIN, _N_BEST, _N_BEST_T, _N_IDX, _N_LO, _N_HI, _N_N, _N_I, _N_GAIN, _N_HAND, _N_K1,
 _N_K2) = range(22)


@njit(cache=True)
def _nello_ab(h, seat, leader, n_in, led, brank, bseat, left, alpha, beta, tab, prm, tt,
              scratch, frames):
    """The tricks the bidder takes from here on (the trick in progress included), every trick
    played: fail-soft alpha-beta, the bidder minimising, ``seat`` to move; iterative, as
    ``_ab`` (an explicit stack of frames), with a transposition table of bounds at trick
    starts keyed by the hands (the partner's is 0) and the leader, its best play tried
    first."""
    bs = prm[_P_BIDDER]
    sit = (bs + 2) & 3
    gen = prm[_P_GEN]
    mask = tt.shape[0] - 1
    F = frames
    d = 0
    F[0, _N_SEAT] = seat
    F[0, _N_LEADER] = leader
    F[0, _N_NIN] = n_in
    F[0, _N_LED] = led
    F[0, _N_BRANK] = brank
    F[0, _N_BSEAT] = bseat
    F[0, _N_LEFT] = left
    F[0, _N_ALPHA] = alpha
    F[0, _N_BETA] = beta
    mode = _ENTER
    val = 0
    while True:
        if mode == _ENTER:
            prm[_P_NODES] += 1
            seat = F[d, _N_SEAT]
            leader = F[d, _N_LEADER]
            n_in = F[d, _N_NIN]
            left = F[d, _N_LEFT]
            alpha = F[d, _N_ALPHA]
            beta = F[d, _N_BETA]
            idx = -1
            tt_move = -1
            lo = 0
            hi = left
            if n_in == 0:
                if left == 0:
                    val = 0
                    mode = _RETURN
                    continue
                if left == 1:  # one tile in each hand
                    t = _bit_index(h[leader])
                    s = tab[_LED, t]
                    best_r = tab[_RANK + s, t]
                    win = leader
                    q = leader
                    for _ in range(2):
                        q = _nello_next(q, sit)
                        r = tab[_RANK + s, _bit_index(h[q])]
                        if r > best_r:
                            best_r = r
                            win = q
                    val = 1 if win == bs else 0
                    mode = _RETURN
                    continue
                k1 = h[0] | (h[1] << 28)
                k2 = h[2] | (h[3] << 28) | (leader << 56)
                x = k1 * -7046029254386353131 ^ k2 * -4658895280553007687
                x ^= x >> 29
                idx = (x >> 7) & mask
                e = tt[idx, 2]
                if tt[idx, 0] == k1 and tt[idx, 1] == k2 and (e >> 24) == gen:
                    lo = e & 255
                    hi = (e >> 8) & 255
                    tt_move = ((e >> 16) & 255) - 1
                    if lo >= beta or lo == hi:
                        val = lo
                        mode = _RETURN
                        continue
                    if hi <= alpha:
                        val = hi
                        mode = _RETURN
                        continue
                elif beta <= 0:  # the bidder takes at least 0, at most ``left``: never an
                    val = 0  # empty window searched (fail-soft needs alpha < beta)
                    mode = _RETURN
                    continue
                elif left <= alpha:
                    val = left
                    mode = _RETURN
                    continue
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
                F[d, _N_K1] = k1
                F[d, _N_K2] = k2
            led = F[d, _N_LED]
            hand = h[seat]
            m = hand
            if n_in > 0:
                f = hand & tab[_FOLLOW, led]
                if f != 0:
                    m = f
            if m & (m - 1) == 0:
                scratch[d, 0, 0] = _bit_index(m)
                n = 1
            else:
                n = _nello_order(h, seat, bs, n_in, led, F[d, _N_BRANK], F[d, _N_BSEAT], m,
                                 tt_move, tab, scratch, d)
            F[d, _N_ALPHA] = alpha
            F[d, _N_BETA] = beta
            F[d, _N_AIN] = alpha
            F[d, _N_BIN] = beta
            F[d, _N_BEST] = 1000 if seat == bs else -1
            F[d, _N_BEST_T] = -1
            F[d, _N_IDX] = idx
            F[d, _N_LO] = lo
            F[d, _N_HI] = hi
            F[d, _N_N] = n
            F[d, _N_I] = 0
            F[d, _N_HAND] = hand
            mode = _NEXT
        elif mode == _NEXT:
            i = F[d, _N_I]
            if i < F[d, _N_N]:
                t = scratch[d, 0, i]
                seat = F[d, _N_SEAT]
                h[seat] = F[d, _N_HAND] ^ (np.int64(1) << t)
                n_in = F[d, _N_NIN]
                c = d + 1
                gain = 0
                if n_in == 0:
                    s = tab[_LED, t]
                    F[c, _N_SEAT] = _nello_next(seat, sit)
                    F[c, _N_LEADER] = seat
                    F[c, _N_NIN] = 1
                    F[c, _N_LED] = s
                    F[c, _N_BRANK] = tab[_RANK + s, t]
                    F[c, _N_BSEAT] = seat
                    F[c, _N_LEFT] = F[d, _N_LEFT]
                else:
                    led = F[d, _N_LED]
                    r = tab[_RANK + led, t]
                    nb = F[d, _N_BRANK]
                    ns = F[d, _N_BSEAT]
                    if r > nb:
                        nb = r
                        ns = seat
                    if n_in == 2:  # the trick is done: its winner leads the next
                        if ns == bs:
                            gain = 1
                        F[c, _N_SEAT] = ns
                        F[c, _N_LEADER] = ns
                        F[c, _N_NIN] = 0
                        F[c, _N_LED] = 0
                        F[c, _N_BRANK] = 0
                        F[c, _N_BSEAT] = 0
                        F[c, _N_LEFT] = F[d, _N_LEFT] - 1
                    else:
                        F[c, _N_SEAT] = _nello_next(seat, sit)
                        F[c, _N_LEADER] = F[d, _N_LEADER]
                        F[c, _N_NIN] = 2
                        F[c, _N_LED] = led
                        F[c, _N_BRANK] = nb
                        F[c, _N_BSEAT] = ns
                        F[c, _N_LEFT] = F[d, _N_LEFT]
                F[d, _N_GAIN] = gain
                F[c, _N_ALPHA] = F[d, _N_ALPHA] - gain
                F[c, _N_BETA] = F[d, _N_BETA] - gain
                d = c
                mode = _ENTER
            else:  # every play searched, or a cutoff
                best = F[d, _N_BEST]
                idx = F[d, _N_IDX]
                if idx >= 0:
                    lo = F[d, _N_LO]
                    hi = F[d, _N_HI]
                    if best <= F[d, _N_AIN]:
                        hi = best
                    elif best >= F[d, _N_BIN]:
                        lo = best
                    else:
                        lo = best
                        hi = best
                    tt[idx, 0] = F[d, _N_K1]
                    tt[idx, 1] = F[d, _N_K2]
                    tt[idx, 2] = lo | (hi << 8) | ((F[d, _N_BEST_T] + 1) << 16) | (gen << 24)
                val = best
                mode = _RETURN
        else:  # _RETURN: ``val`` is the value of the node at depth d
            if d == 0:
                return val
            d -= 1
            seat = F[d, _N_SEAT]
            h[seat] = F[d, _N_HAND]
            v = val + F[d, _N_GAIN]
            i = F[d, _N_I]
            t = scratch[d, 0, i]
            if seat == bs:
                if v < F[d, _N_BEST]:
                    F[d, _N_BEST] = v
                    F[d, _N_BEST_T] = t
                    if v < F[d, _N_BETA]:
                        F[d, _N_BETA] = v
            else:
                if v > F[d, _N_BEST]:
                    F[d, _N_BEST] = v
                    F[d, _N_BEST_T] = t
                    if v > F[d, _N_ALPHA]:
                        F[d, _N_ALPHA] = v
            if F[d, _N_ALPHA] >= F[d, _N_BETA]:
                F[d, _N_I] = F[d, _N_N]
            else:
                F[d, _N_I] = i + 1
            mode = _NEXT


@njit(cache=True)
def _nello_root(h, leader, n_in, led, brank, bseat, left, out, tab, prm, tt, scratch,
                frames):
    """``out[t]``: the tricks the bidder takes from here on after play ``t`` (every legal play
    of the seat to move; -1 elsewhere); returns the position's value (the best of them for
    the mover)."""
    bs = prm[_P_BIDDER]
    sit = (bs + 2) & 3
    seat = leader
    for _ in range(n_in):
        seat = _nello_next(seat, sit)
    hand = h[seat]
    m = hand
    if n_in > 0:
        f = hand & tab[_FOLLOW, led]
        if f != 0:
            m = f
    row = _MAX_PLIES - 1
    n = _nello_order(h, seat, bs, n_in, led, brank, bseat, m, -1, tab, scratch, row)
    nxt = _nello_next(seat, sit)
    best = 1000 if seat == bs else -1
    for i in range(n):
        t = scratch[row, 0, i]
        h[seat] = hand ^ (np.int64(1) << t)
        if n_in == 0:
            s = tab[_LED, t]
            v = _nello_ab(h, nxt, seat, 1, s, tab[_RANK + s, t], seat, left, -1, left + 1,
                          tab, prm, tt, scratch, frames)
        else:
            r = tab[_RANK + led, t]
            nb = brank
            ns = bseat
            if r > nb:
                nb = r
                ns = seat
            if n_in == 2:
                g = 1 if ns == bs else 0
                v = g + _nello_ab(h, ns, ns, 0, 0, 0, 0, left - 1, -1, left, tab, prm, tt,
                                  scratch, frames)
            else:
                v = _nello_ab(h, nxt, leader, 2, led, nb, ns, left, -1, left + 1, tab, prm,
                              tt, scratch, frames)
        h[seat] = hand
        out[t] = v
        best = min(best, v) if seat == bs else max(best, v)
    others = 0
    for q in range(4):
        if q != seat:
            others |= h[q]
    suits = _live_suits(others, n_in, led, tab)
    while m:  # the other plays take the value of the play they are the same as
        bit = m & -m
        m ^= bit
        t = _bit_index(bit)
        if out[t] < 0:
            for i in range(n):
                u = scratch[row, 0, i]
                if _alike(t, u, n_in, led, brank, suits, others, tab):
                    out[t] = out[u]
                    break
    return best


def _sevens_plays(hand: int, classes) -> int:
    """The legal plays of ``hand`` under sevens: its tiles closest to 7."""
    return next((hand & c for c in classes if hand & c), 0)


def _sevens_tricks(h: list[int], seat: int, n_in: int, brank: int, bseat: int, bt: int,
                   tie: bool, rank, classes, first: int = -1) -> int:
    """The tricks the bidding team ``bt`` takes from here on until the hand ends (its first
    lost trick, or the last), ``seat`` to move in a trick with ``n_in`` plays of best rank
    ``brank`` by ``bseat``, ``first`` (when given) played first. Every legal play is of one closeness class, so of one rank and
    the same as any other: one line of play decides it."""
    h = list(h)
    won = 0
    while True:
        plays = _sevens_plays(h[seat], classes)
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


