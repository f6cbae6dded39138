"""Hands told in words: ``texas42 show`` (records, hand by hand, trick by trick, with the
solver's verdict on each play under ``--analyse``) and the narration ``texas42 play`` prints
as a game goes on.

``Narrator.step`` steps a one-table state by one action and says what happened (a bid, the
contract, the exchange, a play, the end of a trick, the result of the hand), so a game being
played and a record being shown read the same. ``analyse_play`` is the solver's verdict on
one play: the points it gives away against perfect play, from the mover's team's side.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from texas42_env import tiles as T
from texas42_env.core import (BIDDING, DECLARING, EXCHANGING, HAND_OVER, PHASE_NAMES, PLAYING,
                              Game, State)
from texas42_env.records import (Record, RecordError, exchange_actions, parse_record, replay,
                                 start_state)
from texas42_env.rules import CONTRACT_NAMES, NELLO, SEVENS, TRUMP_SUIT


def sort_tiles(game: Game, tiles: Sequence[int], contract: int = -1) -> list[int]:
    """Tile ids in reading order: the trumps of ``contract`` first (best first), then the
    rest high end first (``6-6 6-4 5-5 5-1 ...``)."""
    trumps = int(game.tables.follow[contract, TRUMP_SUIT]) if contract >= 0 else 0
    rank = game.tables.rank

    def key(t: int):
        if trumps >> t & 1:
            return (0, -int(rank[contract, TRUMP_SUIT, t]), 0)
        return (1, -int(T.HI[t]), -int(T.LO[t]))

    return sorted((int(t) for t in tiles), key=key)


def tiles_text(game: Game, tiles: Sequence[int], contract: int = -1) -> str:
    return " ".join(T.TILE_NAMES[t] for t in sort_tiles(game, tiles, contract))


def seat_name(seat: int) -> str:
    return f"seat {seat}"


class Narrator:
    """Steps a one-table state by one action and tells what happened, in lines of text.

    ``who(seat)`` names a seat, ``teams`` the two teams (``us``/``them`` for a player);
    the exchange of a seat in ``hidden`` is told without its tiles (the others at the table
    do not see the cat).
    """

    def __init__(self, game: Game, who: Callable[[int], str] = seat_name,
                 teams: Sequence[str] = ("team 0", "team 1"), hidden: Sequence[int] = (),
                 first: int = 0):
        self.game, self.who, self.teams, self.hidden = game, who, tuple(teams), set(hidden)
        self.order = (first, 1 - first)  # the team named first in tallies
        self.unit = "marks" if game.rules.scoring == "marks" else "points"

    def tally(self, values) -> str:
        """Two numbers by team, the first team first: ``us 16, them 0``."""
        return ", ".join(f"{self.teams[t]} {values[t]}" for t in self.order)

    def points(self, st: State) -> str:
        return self.tally([int(x) for x in st.points[0]])

    def step(self, st: State, action: int, note: str = "") -> list[str]:
        """Step table 0 of ``st`` by ``action`` (``IllegalActionError`` if it is not legal);
        ``note`` is added to the line of the action."""
        game, who = self.game, self.who
        phase, seat = int(st.phase[0]), int(st.to_move[0])
        trick_no, n_in = int(st.trick_no[0]), int(st.n_in_trick[0])
        game.step(st, np.array([action]))
        name = game.actions.name(action)
        lines: list[str] = []
        if phase == BIDDING:
            if int(st.n_bids[0]) == 1:
                lines.append("bidding:")
            lines.append(f"  {who(seat)}: {name}{note}")
            if int(st.phase[0]) != BIDDING and int(st.bidder[0]) >= 0:
                lines.append(f"the bid goes to {who(int(st.bidder[0]))} at "
                             f"{game.actions.name(int(st.high_action[0]))}")
        elif phase == DECLARING:
            lines.append(f"contract: {name}, named by {who(seat)}{note}")
            if int(st.sit_out[0]) >= 0:
                lines.append(f"sitting out this hand (nello): {who(int(st.sit_out[0]))}")
        elif phase == EXCHANGING and int(st.phase[0]) != EXCHANGING:
            lines.append(self.exchange(st, seat, seat in self.hidden) + note)
        elif phase == PLAYING:
            if n_in == 0:
                lines.append(f"trick {trick_no + 1}:")
            lines.append(f"  {who(seat)}: {name}{note}")
            if int(st.trick_no[0]) > trick_no:
                pts = int(st.trick_points[0, trick_no])
                lines.append(f"  -> won by {who(int(st.trick_winners[0, trick_no]))}: "
                             f"{pts} point{'s' * (pts != 1)} (so far {self.points(st)})")
        if phase < HAND_OVER <= int(st.phase[0]):
            lines += self.result(st)
        return lines

    def exchange(self, st: State, seat: int, hide: bool = False) -> str:
        """The exchange ``seat`` made with the cat (only how many tiles, with ``hide``)."""
        n = int(st.n_swaps[0])
        if hide:
            return f"exchange by {self.who(seat)}: {n} tile{'s' * (n != 1)} swapped with the cat"
        if n == 0:
            return f"exchange by {self.who(seat)}: none (the hand is kept)"
        take = " ".join(T.TILE_NAMES[t] for t in st.ex_take[0, :n])
        discard = " ".join(T.TILE_NAMES[t] for t in st.ex_discard[0, :n])
        return f"exchange by {self.who(seat)}: took {take} from the cat, discarded {discard}"

    def result(self, st: State) -> list[str]:
        """The outcome of table 0's hand, once it is over."""
        if int(st.bidder[0]) < 0:
            return ["everyone passed: the hand is thrown in (no score)"]
        game, teams = self.game, self.teams
        bidder, need = int(st.bidder[0]), int(st.need[0])
        bt = bidder & 1
        bid = game.actions.name(int(st.high_action[0]))
        contract = CONTRACT_NAMES[int(st.contract[0])]
        made = int(st.made[0]) == 1
        if int(st.contract[0]) == NELLO:
            goal = "no trick"
        elif need > 0:
            goal = f"{need} points"
        else:
            goal = "every trick"
        tricks = int(st.trick_no[0])
        early = f" after {tricks} trick{'s' * (tricks != 1)}" if tricks < game.n_tricks else ""
        gained = [f"+{int(x)}" for x in st.hand_score[0]]
        return [f"result: {self.who(bidder)} bid {bid} in {contract}, {teams[bt]} to take {goal}: "
                f"{'made' if made else 'set'}{early}; points {self.points(st)}",
                f"this hand scores {self.tally(gained)} {self.unit}"]


# ----------------------------------------------------------------------------- analysis
@dataclass
class Verdict:
    """The solver's judgement of one play: ``values`` are the bidding team's final points
    after each legal play (perfect play after it), ``loss`` the points the play gives away
    against the best one, from the mover's team's side (0 for a best play)."""

    seat: int
    tile: str
    loss: int
    best: list[str]
    values: dict[str, int]


def analysable(game: Game, st: State) -> str | None:
    """Why the solver cannot judge the plays of table 0's hand (None when it can)."""
    if game.rules.ruleset != "standard":
        return f"the solver does not cover the {game.rules.ruleset} ruleset"
    c = int(st.contract[0])
    if c in (NELLO, SEVENS):
        return f"the solver does not cover {CONTRACT_NAMES[c]} (suits, doubles and follow-me only)"
    return None


def analyse_play(game: Game, st: State, action: int) -> Verdict:
    """The verdict on playing ``action`` at table 0 of ``st`` (standard ruleset, play phase,
    a suit, doubles or follow-me contract); the state is not changed."""
    tile = T.TILE_NAMES[action - game.actions.play0]
    seat = int(st.to_move[0])
    legal = [T.TILE_NAMES[a - game.actions.play0] for a in np.flatnonzero(st.legal[0])]
    if len(legal) == 1:  # nothing to judge: no search
        return Verdict(seat, tile, 0, legal, {})
    from .solver import solve_position  # numba: compiled or loaded when first needed

    values = solve_position(game, st, 0)["values"]
    sign = 1 if (seat & 1) == (int(st.bidder[0]) & 1) else -1  # the mover's side
    best_value = max(sign * v for v in values.values())
    best = [t for t, v in values.items() if sign * v == best_value]
    return Verdict(seat, tile, best_value - sign * values[tile], best, values)


def verdict_note(v: Verdict) -> str:
    if v.loss > 0:
        return f"   lost {v.loss}  MISTAKE (best: {' '.join(v.best)})"
    return "   lost 0" + ("  (only play)" if len(v.best) == 1 and not v.values else "")


# ----------------------------------------------------------------------------- records
def read_records(text: str) -> Iterator[tuple[int, Record]]:
    """The records in a file's text, with the line each starts on: one JSON record (it may
    span lines) or JSON Lines (blank lines skipped). ``RecordError`` with the line for a line
    that is not a record, raised when the reader gets there."""
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, dict):
        yield 1, _parse(whole, 1)
        return
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            raise RecordError("record", f"not JSON ({e.msg} at column {e.colno})", lineno) from None
        except (ValueError, RecursionError) as e:
            raise RecordError("record", f"not JSON this reader accepts ({e})", lineno) from None
        yield lineno, _parse(obj, lineno)


def _parse(obj, lineno: int) -> Record:
    try:
        return parse_record(obj)
    except RecordError as e:
        raise RecordError(e.field, e.message, lineno) from None


def show_record(record: Record, analyse: bool = False) -> list[str]:
    """A record told hand by hand, trick by trick; with ``analyse``, each play's verdict and
    the points each team gave away."""
    game, st = start_state(record)
    raw = record.raw
    narrator = Narrator(game)
    about = [record.rules.ruleset + " rules"]
    if record.rules.options():
        about.append(f"options {json.dumps(record.rules.options())}")
    for key in ("game", "hand", "seed"):
        if isinstance(raw.get(key), int):
            about.append(f"{key} {raw[key]}")
    agents = raw.get("agents")
    agents = agents if isinstance(agents, list) and len(agents) == game.n_seats else None
    lines = [", ".join(about), f"dealer: seat {record.dealer}", "hands as dealt:"]
    for s, hand in enumerate(record.hands):
        who = f" ({agents[s]})" if agents else ""
        lines.append(f"  seat {s}{who}: {tiles_text(game, hand)}")
    if record.rules.copies == 2:
        lines.append(f"  cat: {tiles_text(game, record.cat)}")
    result = replay(record)
    n_ok = result["error"]["index"] if not result["ok"] else len(record.actions)
    lost = [[0, 0], [0, 0]]  # per team: points given away, mistakes
    for action in record.actions[:n_ok]:
        ids = exchange_actions(game, st, 0, action) if isinstance(action, dict) else \
            [game.actions.id(action)]
        for a in ids:
            note = ""
            if analyse and int(st.phase[0]) == PLAYING and analysable(game, st) is None:
                v = analyse_play(game, st, a)
                note = verdict_note(v)
                lost[v.seat & 1][0] += v.loss
                lost[v.seat & 1][1] += v.loss > 0
            lines += narrator.step(st, a, note)
    if not result["ok"]:
        e = result["error"]
        who = "" if e["seat"] is None else f" by seat {e['seat']}"
        lines.append(f"illegal action {e['index']}{who} (phase {e['phase']}): "
                     f"{json.dumps(e['action'])}: {e['reason']}; the record stops here")
    elif int(st.phase[0]) < HAND_OVER:
        lines.append(f"the record stops here: seat {int(st.to_move[0])} is to "
                     f"{PHASE_NAMES[int(st.phase[0])]}")
    if analyse and int(st.contract[0]) >= 0:
        why = analysable(game, st)
        if why:
            lines.append(f"analysis: none ({why})")
        else:
            lines.append("analysis, points given away against perfect play: " + "; ".join(
                f"team {t} {lost[t][0]} ({lost[t][1]} mistake{'s' * (lost[t][1] != 1)})"
                for t in (0, 1)))
    return lines


def show_text(text: str, analyse: bool = False) -> Iterator[str]:
    """The account of each record in a file's text, record by record (``RecordError`` with
    the line when one is not a record, after the records before it)."""
    for n, (lineno, record) in enumerate(read_records(text), start=1):
        yield f"=== record {n} (line {lineno}) ===\n" + "\n".join(show_record(record, analyse))
