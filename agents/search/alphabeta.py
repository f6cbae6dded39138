"""What the compiled searches of the exact solver (``agents.search.points``, ``nello``,
``six``) share as code: the steps of the fail-soft alpha-beta over an explicit stack of
frames (``agents.search.layout``'s fields) and of the root's handling of equivalent plays.

Each search keeps its own loop (what a node is worth at its leaves, how its plays are
ordered, which seat follows which); these are the steps that are the same in all of them.
Every one is inlined where it is called (``inline="always"``: numba compiles it into the
caller's loop, so the hot path pays no call). The loops that inline them are compiled
without numba's reference counting (``_nrt=False``; they allocate nothing): with it, every
inlined step that takes an array (the frames, the table) would count a reference to it in
and out at every node, which made the search 1.6 times slower.
"""

from __future__ import annotations

from numba import njit

from agents.search.layout import (BEAT, COUNT, F_AIN, F_ALPHA, F_BEST, F_BEST_T, F_BETA,
                                  F_BIN, F_BRANK, F_BSEAT, F_GAIN, F_HAND, F_HI, F_I, F_IDX,
                                  F_K1, F_K2, F_LED, F_LEADER, F_LEFT, F_LO, F_N, F_NIN,
                                  F_SEAT, F_TPTS, FOLLOW, LEADS, LED, MEM, RANK, bit_index)


@njit(cache=True, inline="always")
def start_frame(F, leader, n_in, led, brank, bseat, tpts, left, alpha, beta):
    """Frame 0: the position searched, in the window (``alpha``, ``beta``)."""
    F[0, F_LEADER] = leader
    F[0, F_NIN] = n_in
    F[0, F_LED] = led
    F[0, F_BRANK] = brank
    F[0, F_BSEAT] = bseat
    F[0, F_TPTS] = tpts
    F[0, F_LEFT] = left
    F[0, F_ALPHA] = alpha
    F[0, F_BETA] = beta


@njit(cache=True, inline="always")
def keys4(h, leader):
    """The four-seat game's key words of a trick start (the hands, 28 bits each, and the
    leader) and their hash (the table row is ``hash >> 7`` masked)."""
    k1 = h[0] | (h[1] << 28)
    k2 = h[2] | (h[3] << 28) | (leader << 56)
    x = k1 * -7046029254386353131 ^ k2 * -4658895280553007687
    x ^= x >> 29
    return k1, k2, x


@njit(cache=True, inline="always")
def legal_plays(hand, n_in, led, tab):
    """The tiles of ``hand`` that may be played: the suit led where it holds any."""
    if n_in > 0:
        f = hand & tab[FOLLOW, led]
        if f != 0:
            return f
    return hand


@njit(cache=True, inline="always")
def narrow(lo, hi, alpha, beta):
    """The window (``alpha``, ``beta``) within the bounds ``lo``..``hi``."""
    if lo > alpha:
        alpha = lo
    if hi < beta:
        beta = hi
    return alpha, beta


@njit(cache=True, inline="always")
def tt_cut(lo, hi, alpha, beta):
    """(whether the bounds ``lo``..``hi`` of a stored node decide it in the window, its
    value then): a lower bound at or above beta, an upper one at or below alpha, or both
    the same."""
    if lo >= beta or lo == hi:
        return True, lo
    if hi <= alpha:
        return True, hi
    return False, lo


@njit(cache=True, inline="always")
def open_frame(F, d, alpha, beta, best, idx, lo, hi, n, hand):
    """Frame ``d`` ready to search its ``n`` ordered plays in the window (``alpha``,
    ``beta``) from ``best`` (the worst value for its mover), its table row ``idx`` (-1: none)
    holding the bounds ``lo``..``hi``, ``hand`` the mover's hand."""
    F[d, F_ALPHA] = alpha
    F[d, F_BETA] = beta
    F[d, F_AIN] = alpha
    F[d, F_BIN] = beta
    F[d, F_BEST] = best
    F[d, F_BEST_T] = -1
    F[d, F_IDX] = idx
    F[d, F_LO] = lo
    F[d, F_HI] = hi
    F[d, F_N] = n
    F[d, F_I] = 0
    F[d, F_HAND] = hand


@njit(cache=True, inline="always")
def store_bounds(F, d, tt, gen):
    """Frame ``d``'s best value, every play searched or cut off; where it has a table row,
    the bounds that value gives (fail-soft: an upper bound where it failed low, a lower one
    where it failed high, exact between), its best play and the table's generation written
    there under the node's key words."""
    best = F[d, F_BEST]
    idx = F[d, F_IDX]
    if idx >= 0:
        lo = F[d, F_LO]
        hi = F[d, F_HI]
        if best <= F[d, F_AIN]:
            hi = best
        elif best >= F[d, F_BIN]:
            lo = best
        else:
            lo = best
            hi = best
        tt[idx, 0] = F[d, F_K1]
        tt[idx, 1] = F[d, F_K2]
        tt[idx, 2] = lo | (hi << 8) | ((F[d, F_BEST_T] + 1) << 16) | (gen << 24)
    return best


@njit(cache=True, inline="always")
def back_up(F, d, v, t, maximising):
    """Play ``t`` of frame ``d`` is worth ``v`` to it: its best and its window updated for
    its mover (``maximising`` or not); True where that cuts the node off (its other plays
    are not searched), else its next play is due."""
    if maximising:
        if v > F[d, F_BEST]:
            F[d, F_BEST] = v
            F[d, F_BEST_T] = t
            if v > F[d, F_ALPHA]:
                F[d, F_ALPHA] = v
    else:
        if v < F[d, F_BEST]:
            F[d, F_BEST] = v
            F[d, F_BEST_T] = t
            if v < F[d, F_BETA]:
                F[d, F_BETA] = v
    if F[d, F_ALPHA] >= F[d, F_BETA]:
        F[d, F_I] = F[d, F_N]
        return True
    F[d, F_I] += 1
    return False


@njit(cache=True, inline="always")
def pop_frame(F, d, h, val, scratch):
    """Back from frame ``d`` worth ``val`` to its parent: (the parent's depth, its mover,
    the play's value to it (``val`` and the play's gain), the play), the mover's hand
    restored in ``h``."""
    d -= 1
    seat = F[d, F_SEAT]
    h[seat] = F[d, F_HAND]
    return d, seat, val + F[d, F_GAIN], scratch[d, 0, F[d, F_I]]


@njit(cache=True, inline="always")
def play_child(F, d, t, seat, n_in, last, bt, ppt, tab):
    """Frame ``d + 1``: the position after ``seat`` plays ``t`` in frame ``d``'s trick (its
    ``n_in`` plays so far; ``last``: the play that ends a trick) in a points contract, with
    the window shifted by the points the bidding team ``bt`` gains (a trick it wins: its
    count and ``ppt``), which frame ``d`` keeps (``F_GAIN``) and is returned."""
    c = d + 1
    gain = 0
    if n_in == 0:
        s = tab[LED, t]
        F[c, F_LEADER] = seat
        F[c, F_NIN] = 1
        F[c, F_LED] = s
        F[c, F_BRANK] = tab[RANK + s, t]
        F[c, F_BSEAT] = seat
        F[c, F_TPTS] = tab[COUNT, t]
        F[c, F_LEFT] = F[d, F_LEFT]
    else:
        led = F[d, F_LED]
        r = tab[RANK + led, t]
        nb = F[d, F_BRANK]
        ns = F[d, F_BSEAT]
        if r > nb:  # strictly: of two alike tiles (six-player copies) the first ranks higher
            nb = r
            ns = seat
        pts = F[d, F_TPTS] + tab[COUNT, t]
        if n_in == last:
            if (ns & 1) == bt:
                gain = pts + ppt
            F[c, F_LEADER] = ns
            F[c, F_NIN] = 0
            F[c, F_LED] = 0
            F[c, F_BRANK] = 0
            F[c, F_BSEAT] = 0
            F[c, F_TPTS] = 0
            F[c, F_LEFT] = F[d, F_LEFT] - 1
        else:
            F[c, F_LEADER] = F[d, F_LEADER]
            F[c, F_NIN] = n_in + 1
            F[c, F_LED] = led
            F[c, F_BRANK] = nb
            F[c, F_BSEAT] = ns
            F[c, F_TPTS] = pts
            F[c, F_LEFT] = F[d, F_LEFT]
    F[d, F_GAIN] = gain
    F[c, F_ALPHA] = F[d, F_ALPHA] - gain
    F[c, F_BETA] = F[d, F_BETA] - gain
    return gain


@njit(cache=True, inline="always")
def live_suits(others, n_in, led, tab):
    """The suits a trick can still call for where another hand plays: those another hand can
    lead, and the one led now."""
    suits = 0
    for x in range(9):
        if others & tab[LEADS, x]:
            suits |= 1 << x
    if n_in > 0:
        suits |= 1 << led
    return suits


@njit(cache=True, inline="always")
def alike(t, u, n_in, led, brank, suits, others, tab):
    """Whether tiles ``t`` and ``u`` of one hand are the same play (see
    ``agents.search.points._order``)."""
    if tab[COUNT, u] != tab[COUNT, t] or tab[LED, u] != tab[LED, t]:
        return False
    if (tab[MEM, u] ^ tab[MEM, t]) & suits:
        return False
    if n_in > 0 and (tab[RANK + led, u] > brank) != (tab[RANK + led, t] > brank):
        return False
    k = suits | (1 << tab[LED, t])  # and the suit it calls for, led by this hand
    while k:
        sb = k & -k
        k ^= sb
        s = bit_index(sb)
        if (tab[BEAT + s, u] ^ tab[BEAT + s, t]) & others:
            return False
    return True


@njit(cache=True, inline="always")
def fill_alike(out, m, n, row, n_in, led, brank, others, tab, scratch):
    """At the root: each play of ``m`` not searched (``out`` -1) takes the value of the
    searched play (``scratch[row, 0, :n]``) it is the same as (``alike``), ``others`` the
    tiles of the other hands."""
    suits = live_suits(others, n_in, led, tab)
    while m:
        bit = m & -m
        m ^= bit
        t = bit_index(bit)
        if out[t] < 0:
            for i in range(n):
                u = scratch[row, 0, i]
                if alike(t, u, n_in, led, brank, suits, others, tab):
                    out[t] = out[u]
                    break


__all__ = ["alike", "back_up", "fill_alike", "keys4", "legal_plays", "live_suits", "narrow",
           "open_frame", "play_child", "pop_frame", "start_frame", "store_bounds", "tt_cut"]
