"""An exact (double-dummy) solver for the play of a hand: every hand visible, perfect play.

``solve_position(game, state, b)`` gives, for each legal play of the seat to move at table
``b``, the points the bidding team holds at the end of the hand (all tricks played, as under
``play_out``) when that play is made and everyone then plays perfectly: the bidding team
maximizes its final points, the other team minimizes them. In nello and sevens the value is in tricks
(below). ``solve_value`` is the value of the
position itself. ``solve_records`` does the same for game records stopped in the play phase.

Following and winning come from the core's tables (``Game.trick_tables``: rank, led suit,
following, count), nothing else. The search, compiled with numba, is fail-soft alpha-beta over the
four hands (bitmasks) and the trick in progress (leader, plays so far, suit led, best rank and
its seat, count so far), its value the points the bidding team takes from there on:

- iterative, an explicit stack of frames (no call or reference counting per node);
- a transposition table of bounds at trick starts, keyed by the four hands and the leader,
  with the best play found there tried first;
- plays ordered by cheap rules (lead sure winners, low first; take a trick cheaply; feed count
  to a partner's safe trick; throw the least), the play that refuted a sibling (killer) early;
- equivalent plays searched once: two tiles of a hand that no other hand's tile, nor the trick
  so far, tells apart in any suit still playable (see ``_order``);
- bounds at trick starts: the points left, and the points the team holding the top trumps is
  sure of; the last two tricks counted exactly (a small alpha-beta), kept in a small table of
  their own that stays in cache.

Each legal play at the root is valued exactly by MTD(f) (null-window searches sharing the
table), its first guess the value of the play before; plays equivalent to one valued take its
value.

The six-player game (six hands, 9 tricks, two copies of each tile) has its own search of
the same kind (``agents.search.six``); it is exact from any position, but a solve from the
first trick takes seconds to minutes (measured with the heuristic's bids and exchanges and
random play: median 1.6 ms with 5 tricks left, 65 ms with 6, 0.17 s with 7, 1.8 s with 8),
so PIMC solves from 5 tricks left and rolls out before (``agents.baselines.pimc``).

Nello and sevens are valued in tricks (see "nello, sevens" below): nello, the tricks the
bidder takes with every trick played (the bidder minimising, the opponents maximising), by a
search of the same kind over the three hands that play (``nello_value``: no count, no MTD(f):
the values are 0..7); sevens, the tricks the bidding team takes before the hand ends, which
one line of play decides (every legal play is as good as another).
"""

from __future__ import annotations

from typing import Iterable, Iterator

import numpy as np

from texas42_env import tiles as T
from texas42_env.core import PHASE_NAMES, PLAYING, Game, State
from texas42_env.records import json_lines
from texas42_env.rules import N_LED, NELLO, SEVENS, TRUMP_SUIT
from texas42_env.worlds import replayed

from agents.search import six as six_search
from agents.search.layout import (BEAT, COUNT, COUNT_TILES, FOLLOW, LEAF_BITS, LEADS, LED,
                                  MAX_PLIES, MEM, N_FIELDS, N_PARAMS, P_BIDDER, P_GEN, P_NODES,
                                  P_PASSES, P_PPT, P_TEAM, RANK, ROWS, TRUMP_ORDER, TT_BITS)
from agents.search.nello import nello_root, nello_value, sevens_plays, sevens_tricks
from agents.search.points import search_root, search_value

__all__ = ["Solver", "solve_position", "solve_record",
           "solve_records", "solve_value"]

class Solver:
    """The compiled search with its transposition table and the contracts' tables. The
    module's functions share one; each call starts a fresh table generation. Not
    thread-safe (one per thread)."""

    def __init__(self, tt_bits: int = TT_BITS):
        self.tt = np.zeros((1 << tt_bits, 4), np.int64)
        self.lt = np.zeros((1 << LEAF_BITS, 4), np.int64)
        self.generation = 0
        self.nodes = 0  # nodes searched by the last call
        self.passes = 0  # null-window searches made by the last call
        self._scratch = np.zeros((MAX_PLIES, 2, 8), np.int64)
        self._frames = np.zeros((MAX_PLIES, N_FIELDS), np.int64)
        self._tables: dict[tuple[int, int], tuple] = {}
        self._scratch6 = np.zeros((six_search.MAX_PLIES, 2, six_search.MAX_MOVES), np.int64)
        self._frames6 = np.zeros((six_search.MAX_PLIES, N_FIELDS), np.int64)

    def contract_table(self, game: Game, c: int) -> np.ndarray:
        """The search's table for contract ``c`` of ``game``, derived from the core's tables."""
        key = (id(game.tables), c)
        got = self._tables.get(key)
        if got is None or got[0] is not game.tables:
            rank, led, follow, count = game.trick_tables(c)
            tab = np.zeros((ROWS, T.N_TILES), np.int64)
            tab[RANK:RANK + N_LED] = rank
            for s in range(N_LED):
                for t in range(T.N_TILES):
                    tab[BEAT + s, t] = T.mask_of(np.flatnonzero(rank[s] > rank[s, t]))
            tab[LED] = led
            tab[COUNT] = count
            tab[FOLLOW, :N_LED] = [int(x) for x in follow]
            for t in range(T.N_TILES):
                tab[MEM, t] = sum(1 << x for x in range(N_LED) if tab[FOLLOW, x] >> t & 1)
                tab[LEADS, tab[LED, t]] |= 1 << t
            trumps = [t for t in range(T.N_TILES) if tab[MEM, t] == 1 << TRUMP_SUIT]
            trumps.sort(key=lambda t: -rank[TRUMP_SUIT, t])
            tab[TRUMP_ORDER] = -1
            tab[TRUMP_ORDER, :len(trumps)] = trumps
            got = (game.tables, tab)
            self._tables[key] = got
        return got[1]

    def trick_table(self, game: Game, c: int) -> np.ndarray:
        """``contract_table`` with no count: nello's search, whose value is tricks."""
        key = (id(game.tables), c, "tricks")
        got = self._tables.get(key)
        if got is None or got[0] is not game.tables:
            tab = self.contract_table(game, c).copy()
            tab[COUNT] = 0
            got = (game.tables, tab)
            self._tables[key] = got
        return got[1]

    def _tricks(self, game: Game, state: State, b: int, values: bool):
        """Nello and sevens: (seat to move, {tile id: value}) when ``values``, else the
        position's value, in the contract's tricks (see ``Solver.position``)."""
        c = int(state.contract[b])
        bidder = int(state.bidder[b])
        team = bidder & 1
        have = int(state.tricks_won[b, team])
        seat = int(state.to_move[b])
        h = [int(x) for x in state.hands[b]]
        n_in = int(state.n_in_trick[b])
        brank, bseat = (int(state.best_rank[b]), int(state.best_seat[b])) if n_in else (0, 0)
        if c == SEVENS:
            rank = game.trick_tables(SEVENS)[0][0]
            classes = [int(x) for x in game.tables.sevens_class]
            tie = game.rules.sevens_tie == "bidder"
            plays = sevens_plays(h[seat], classes)
            out = {t: have + sevens_tricks(h, seat, n_in, brank, bseat, team, tie, rank,
                                            classes, t) for t in T.tiles_of(plays)}
            self.nodes = self.passes = 0
            return (seat, out) if values else (max(out.values()) if out else have)
        tab = self.trick_table(game, NELLO)
        h[(bidder + 2) & 3] = 0  # the partner sits out
        ha = np.array(h, np.int64)
        left = game.n_tricks - int(state.trick_no[b])
        self.generation += 1
        prm = np.zeros(N_PARAMS, np.int64)
        prm[P_GEN], prm[P_BIDDER] = self.generation, bidder
        led = int(state.led[b]) if n_in else 0
        if values:
            out = np.full(T.N_TILES, -1, np.int64)
            nello_root(ha, int(state.leader[b]), n_in, led, brank, bseat, left, out, tab,
                        prm, self.tt, self._scratch, self._frames)
            res = (seat, {int(t): have + int(out[t]) for t in np.flatnonzero(out >= 0)})
        else:
            res = have + int(nello_value(ha, seat, int(state.leader[b]), n_in, led, brank,
                                       bseat, left, -1, left + 1, tab, prm, self.tt,
                                       self._scratch, self._frames))
        self.nodes = int(prm[P_NODES])
        self.passes = 1
        return res

    def _setup(self, game: Game, state: State, b) -> tuple:
        tab = self.contract_table(game, int(state.contract[b]))
        if game.six:
            h = np.array([six_search.hand_word(int(x)) for x in state.hands[b]], np.int64)
        else:
            h = np.array([int(x) for x in state.hands[b]], np.int64)
        n_in = int(state.n_in_trick[b])
        left = game.n_tricks - int(state.trick_no[b])
        team = int(state.bidder[b]) & 1
        self.generation += 1
        prm = np.zeros(N_PARAMS, np.int64)
        prm[P_TEAM], prm[P_PPT], prm[P_GEN] = team, game.rules.points_per_trick, self.generation
        if n_in == 0:
            trick = (0, 0, 0, 0)
        else:
            trick = (int(state.led[b]), int(state.best_rank[b]), int(state.best_seat[b]),
                     int(state.trick_pts[b]))
        args = (h, int(state.leader[b]), n_in, *trick, left)
        return b, team, tab, prm, args

    def _finish(self, prm: np.ndarray) -> None:
        self.nodes = int(prm[P_NODES])
        self.passes = int(prm[P_PASSES])

    def position(self, game: Game, state: State, b: int) -> tuple[int, dict[int, int]]:
        """(seat to move, {tile id: value}) at table ``b``: the bidding team's final points;
        nello, the tricks the bidder takes with every trick played; sevens, the tricks the
        bidding team takes before the hand ends."""
        b = _check_position(game, state, b)
        if int(state.contract[b]) in (NELLO, SEVENS):
            return self._tricks(game, state, b, True)
        b, team, tab, prm, args = self._setup(game, state, b)
        out = np.full(T.N_TILES, -1, np.int64)
        if game.six:
            six_search.solve_root6(*args, out, tab, prm, self.tt, COUNT_TILES, self._scratch6,
                                   self._frames6)
        else:
            search_root(*args, out, tab, prm, self.tt, self.lt, self._scratch, self._frames)
        self._finish(prm)
        have = int(state.points[b, team])
        return int(state.to_move[b]), {int(t): have + int(out[t])
                                       for t in np.flatnonzero(out >= 0)}

    def value(self, game: Game, state: State, b: int) -> int:
        """The value of table ``b``'s position under perfect play (as ``position``'s)."""
        b = _check_position(game, state, b)
        if int(state.contract[b]) in (NELLO, SEVENS):
            return self._tricks(game, state, b, False)
        b, team, tab, prm, args = self._setup(game, state, b)
        if game.six:
            v = six_search.solve_value6(*args, tab, prm, self.tt, COUNT_TILES, self._scratch6,
                                        self._frames6)
        else:
            v = search_value(*args, tab, prm, self.tt, self.lt, self._scratch, self._frames)
        self._finish(prm)
        return int(state.points[b, team]) + int(v)


def _check_position(game: Game, state: State, b) -> int:
    if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or \
            not 0 <= b < state.batch_size:
        raise ValueError(f"table must be 0..{state.batch_size - 1}, got {b!r}")
    b = int(b)
    phase = int(state.phase[b])
    if phase != PLAYING:
        raise ValueError(f"table {b}: not in the play phase (phase {PHASE_NAMES[phase]})")
    return b


_SOLVER: Solver | None = None


def _solver() -> Solver:
    global _SOLVER
    if _SOLVER is None:
        _SOLVER = Solver()
    return _SOLVER


def solve_position(game: Game, state: State, b: int = 0) -> dict:
    """``{"to_move": seat, "values": {tile name: value}}`` at table ``b`` (play phase, all
    hands visible): for each legal play, when it is made and everyone then plays perfectly,
    the bidding team's points at the end of the hand (all tricks played); nello, the tricks
    the bidder takes with every trick played; sevens, the tricks the bidding team takes
    before the hand ends. Tiles in name order. ``ValueError`` outside the play phase."""
    seat, values = _solver().position(game, state, b)
    names = {T.TILE_NAMES[t]: v for t, v in values.items()}
    return {"to_move": seat, "values": {k: names[k] for k in sorted(names)}}


def solve_value(game: Game, state: State, b: int = 0) -> int:
    """The value of table ``b``'s position under perfect play, as ``solve_position``'s (the
    best of its values for the side to move: in nello the bidder's fewest, the opponents'
    most), found by one search."""
    return _solver().value(game, state, b)


# ----------------------------------------------------------------------------- records
def solve_record(obj) -> dict:
    """``solve_position`` of a decoded game record's last position, or ``{"error": ...}``
    when it is not a legal record in the play phase."""
    try:
        game, st = replayed(obj)  # a RecordError (a ValueError) names a malformed field
        phase = int(st.phase[0])
        if phase != PLAYING:
            return {"error": f"the record is not in the play phase (phase "
                             f"{PHASE_NAMES[phase]})"}
        return solve_position(game, st, 0)
    except ValueError as e:
        return {"error": str(e)}


def solve_records(lines: Iterable[str | bytes]) -> Iterator[dict]:
    """For each game-record JSON line (blank lines skipped), ``solve_record``'s object; a line
    that is not JSON, or not a record, gives ``{"error": "line N: ..."}``. Never raises for
    a bad line."""
    for lineno, obj, error in json_lines(lines):
        if error is not None:
            yield {"error": f"line {lineno}: {error.message}"}
            continue
        out = solve_record(obj)
        if "error" in out:
            out = {"error": f"line {lineno}: {out['error']}"}
        yield out


# ----------------------------------------------------------------------------- bench


