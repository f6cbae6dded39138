"""The compiled batch path of ``ObservationEncoder.encode`` (numba): each row written in one
pass, straight from the State's blocks: zeroed (a few rows at a time), then the tile counts
of the hand, the ones of the one-hot fields and the numbers last (as
``ObservationEncoder._encode_one`` does for one table on Python ints).

The encoder hands the kernel its layout as four tuples of ints, in the order of the names in
``observation.KERNEL_LAYOUT``: the game's sizes, the fields' offsets in the vector, rows of
``State.scalars`` and first columns of ``State.columns``.
"""

from __future__ import annotations

from numba import njit

from .rules import SEVENS
from .state import GAME_OVER, PLAYING
from .tiles import N_TILES

_BLOCK = 8  # rows zeroed at once, just before they are written: they are in cache then


@njit(cache=True, inline="always")
def _rel(x, seat, S):
    """The relative seat of absolute seat ``x`` seen from ``seat`` (both 0..S - 1)."""
    d = x - seat
    return d + S if d < 0 else d


@njit(cache=True, inline="always")
def _seat_one(row, offset, x, seat, S):
    """Set the one of absolute seat ``x`` in a field by relative seat (none for -1: nobody)."""
    if x >= 0:
        row[offset + _rel(x, seat, S)] = 1


@njit(cache=True, error_model="numpy")
def encode_rows(out, tables, seats, scalars, columns, hands, score, bid_cols, sizes, fields,
                rows, cols):
    """Write into ``out[i]`` (float32 [n, size], C order) the view of ``seats[i]``
    (0..seats - 1) at table ``tables[i]``. ``hands`` is ``State.hands`` viewed as int64;
    ``bid_cols`` maps a bid action to its feature columns (-1: none)."""
    S, Tn, C, F, total_points, target = sizes
    (o_hand, o_dealer, o_phase, o_bids, o_high_bidder, o_bidder, o_declarer, o_contract,
     o_sits_out, o_played_by, o_played_in, o_leaders, o_winners, o_current, o_led, o_points,
     o_tricks, o_result, o_score, o_voids) = fields
    (r_dealer, r_high_bidder, r_bidder, r_declarer, r_sit_out, r_phase, r_contract, r_n_in,
     r_led, r_made, r_n_bids, r_first_bidder, r_n_plays, r_trick_size, r_trick_no) = rows
    (c_bids, c_plays, c_play_seats, c_play_slots, c_leaders, c_winners, c_points, c_tricks_won,
     c_voids) = cols
    short = max(S - 1, 1)  # plays in a trick with a seat sitting out
    n, width = out.shape
    flat = out.reshape(-1)
    for i in range(n):
        if i % _BLOCK == 0:
            flat[i * width:min(i + _BLOCK, n) * width] = 0
        b, seat = tables[i], seats[i]
        row = out[i]
        h = hands[b, seat]
        if C == 1:
            for t in range(N_TILES):
                row[o_hand + t] = h >> t & 1
        else:
            for t in range(N_TILES):
                row[o_hand + t] = ((h >> t & 1) + (h >> (N_TILES + t) & 1)) * 0.5
        # one per table: who is dealer, bid high, won the bidding, named, sits out (-1: none)
        _seat_one(row, o_dealer, scalars[r_dealer, b], seat, S)
        _seat_one(row, o_high_bidder, scalars[r_high_bidder, b], seat, S)
        _seat_one(row, o_bidder, scalars[r_bidder, b], seat, S)
        _seat_one(row, o_declarer, scalars[r_declarer, b], seat, S)
        _seat_one(row, o_sits_out, scalars[r_sit_out, b], seat, S)
        phase, contract = scalars[r_phase, b], scalars[r_contract, b]
        if phase >= 0:
            row[o_phase + min(phase, GAME_OVER - 1)] = 1
        if contract >= 0:
            row[o_contract + contract] = 1
        # bids: slot j made by relative seat (first bidder + j - seat) % S
        first = _rel(scalars[r_first_bidder, b], seat, S)
        for j in range(scalars[r_n_bids, b]):
            a = columns[b, c_bids + j]
            who = first + j
            if who >= S:
                who -= S
            for k in range(bid_cols.shape[1]):
                col = bid_cols[a, k]
                if col >= 0:
                    row[o_bids + who * F + col] = 1
        # the plays made: tile (and copy) -> who played it and in which trick; the trick in
        # progress is the last n_in_trick of them
        n_plays, n_in = scalars[r_n_plays, b], scalars[r_n_in, b]
        size = S if scalars[r_trick_size, b] == S else short
        trick = in_trick = 0  # play j's trick and its place there: j // size, j % size
        for j in range(n_plays):
            tile = columns[b, c_plays + j]
            key = tile if C == 1 else columns[b, c_play_slots + j] * N_TILES + tile
            who = _rel(columns[b, c_play_seats + j], seat, S)
            row[o_played_by + key * S + who] = 1
            row[o_played_in + key * Tn + trick] = 1
            if j >= n_plays - n_in:
                row[o_current + who * N_TILES + tile] = 1
            in_trick += 1
            if in_trick == size:
                trick += 1
                in_trick = 0
        # finished tricks: who led and who won each
        for k in range(scalars[r_trick_no, b]):
            row[o_leaders + k * S + _rel(columns[b, c_leaders + k], seat, S)] = 1
            row[o_winners + k * S + _rel(columns[b, c_winners + k], seat, S)] = 1
        if n_in > 0 and phase == PLAYING and contract != SEVENS:  # sevens calls no suit
            row[o_led + scalars[r_led, b]] = 1
        made = scalars[r_made, b]
        if made == 1:
            row[o_result] = 1
        elif made == 0:
            row[o_result + 1] = 1
        for a in range(S):
            bits = columns[b, c_voids + a] & 511
            if bits:
                cell = o_voids + _rel(a, seat, S) * 9
                while bits:  # bit k: suit k
                    if bits & 1:
                        row[cell] = 1
                    bits >>= 1
                    cell += 1
        # numbers, us / them
        us = seat & 1
        them = us ^ 1
        row[o_points] = columns[b, c_points + us] / total_points
        row[o_points + 1] = columns[b, c_points + them] / total_points
        row[o_tricks] = columns[b, c_tricks_won + us] / Tn
        row[o_tricks + 1] = columns[b, c_tricks_won + them] / Tn
        row[o_score] = min(score[b, us] / target, 1.0)
        row[o_score + 1] = min(score[b, them] / target, 1.0)
