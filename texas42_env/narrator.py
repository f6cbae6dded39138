"""One narrator: a hand told in words.

``Narrator.step`` steps a one-table state by one action and says what happened (a bid, the
contract, the exchange, a play, the end of a trick, the result of the hand), so a game being
played (``texas42 play``) and a record being shown (``texas42 show``) read the same.
``describe_hand`` tells a finished (or partial) hand after the fact, trick by trick, as
``texas42 demo`` and the environments' ``render`` print it. ``tiles_text`` writes tiles in
reading order.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import tiles as T
from .core import BIDDING, DECLARING, EXCHANGING, HAND_OVER, PLAYING, Game, State
from .records import summary
from .rules import CONTRACT_NAMES, NELLO, TRUMP_SUIT


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


def describe_hand(game: Game, st, b: int = 0) -> str:
    """A readable account of table ``b``'s hand, trick by trick."""
    names = game.actions.names
    lines = [f"Hand {int(st.hand_no[b]) + 1} of game {int(st.game_id[b])}, "
             f"dealer seat {int(st.dealer[b])}"]
    for s in range(game.n_seats):
        tiles = sorted(game.hand_tiles(st, b, s, dealt=True), reverse=True)
        lines.append(f"  seat {s}: " + " ".join(names[game.actions.play0 + t] for t in tiles))
    first, nb = int(st.first_bidder[b]), int(st.n_bids[b])
    bids = ", ".join(f"seat {(first + i) % game.n_seats} {names[a]}"
                     for i, a in enumerate(st.bids[b, :nb]))
    lines.append(f"  bids: {bids}")
    s = summary(game, st, b)
    if s["bidder"] is None:
        lines.append("  everyone passed: the hand is thrown in" if s["complete"]
                     else "  the bidding goes on")
        return "\n".join(lines)
    lines.append(f"  seat {s['bidder']} won the bid at {s['bid']}; seat {s['declarer']} "
                 f"named {s['contract']}")
    for k, trick in enumerate(s["tricks"], start=1):
        seats = [(trick["leader"] + i) % game.n_seats for i in range(game.n_seats)]
        seats = [x for x in seats if x != int(st.sit_out[b])]
        plays = ", ".join(f"{x}:{t}" for x, t in zip(seats, trick["plays"]))
        won = f" -> seat {trick['winner']} ({trick['points']} pts)" if "winner" in trick else ""
        lines.append(f"  trick {k}: {plays}{won}")
    result = {True: "made", False: "set", None: "undecided"}[s["made"]]
    lines.append(f"  points {s['points'][0]}-{s['points'][1]}: bid {result}; "
                 f"this hand scores {s['score'][0]}-{s['score'][1]}, "
                 f"game {int(st.score[b, 0])}-{int(st.score[b, 1])}")
    return "\n".join(lines)
