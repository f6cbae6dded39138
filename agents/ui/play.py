"""``texas42 play``: a game in the terminal for one person and bots in the other seats.

The person plays one seat (standard: one of four, six-player: one of six); every other seat
is an agent of the registry (``agents.base.make_agent``), the partner too. The game is told
as it happens (``texas42_env.narrator.Narrator``): the person's tiles, every bid, the contract, each
trick (who played what, who won it, its points), the result and the score between hands.
At the person's turn the legal choices are listed, numbered; an answer is a number or an
action in the notation of rules.md (``6-4``, ``30``, ``1m``, ``pass``, ``doubles``,
``take 5-0``); anything else, or an action the rules refuse, is answered with the reason
(the core's ``Game.reason``) and asked again. End of input, ``q`` or Ctrl-C end the game
cleanly: the records so far (the hand in progress too) are saved.

``TerminalGame`` reads and writes any text streams, so tests drive it with ``io.StringIO``.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from typing import Any, Sequence, TextIO

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import SIX_LEVELS, SIX_TRUMPS
from texas42_env.core import (BIDDING, DECLARING, EXCHANGING, GAME_OVER, HAND_OVER, Game,
                              IllegalActionError)
from texas42_env.narrator import Narrator, tiles_text
from texas42_env.observation import make_encoder
from texas42_env.records import record_from_state, write_records
from texas42_env.rules import SEVENS, RulesConfig

from agents.base import REGISTRY, Agent, make_agent, spec_text
from agents.driver import act_rows

PERSON = "person"  # the person's seat in a record's "agents" field
HELP = ("Answer with a choice's number or its notation: a tile (6-4), a bid (30, 1m or 42, "
        "pass, plunge; six-player 60:5s), a contract (5s, doubles, follow-me, nello), "
        "an exchange (take 5-0, discard 2-1, keep). ? shows this again, q quits.")


class Quit(Exception):
    """The person ended the game (q, end of input, Ctrl-C)."""


def default_bot(ruleset: str) -> str:
    """The bots' agent when none is named: the shipped champion (it plays both rulesets)."""
    return "champion"


def agents_playing(ruleset: str) -> list[str]:
    """The registered agents that play ``ruleset``, by name."""
    return sorted(n for n, f in REGISTRY.items() if ruleset in getattr(f, "rulesets", (ruleset,)))


def make_bot(spec: Any, game: Game, seat: int, seed: int = 0) -> Agent:
    """The agent of ``spec`` (a name, a spec dict or an ``Agent``) set up for ``game`` at
    ``seat``: seeded from the game's seed and the seat unless the spec names a seed;
    ``ValueError`` naming the seat when it cannot play (an unknown agent, a standard-only
    agent in the six-player game)."""
    ruleset = game.rules.ruleset
    agent = spec if isinstance(spec, Agent) else None
    if agent is None:
        spec = {"name": spec} if isinstance(spec, str) else dict(spec)
        factory = REGISTRY.get(spec.get("name"))
        if factory is not None and ruleset not in getattr(factory, "rulesets", (ruleset,)):
            raise ValueError(f"seat {seat}: agent {spec['name']!r} plays the standard ruleset "
                             f"only, not {ruleset}; agents for {ruleset}: "
                             f"{', '.join(agents_playing(ruleset))}")
        if factory is not None and "seed" not in spec and \
                "seed" in inspect.signature(factory).parameters:
            spec["seed"] = seed * 1000 + seat  # a different stream per seat, fixed by the seed
    try:
        return (agent or make_agent(spec)).setup(game)
    except ValueError as e:
        raise ValueError(f"seat {seat}: {e}") from None


def seat_bots(rules: RulesConfig, seat: int = 0, partner: Any = None, opponents: Any = None,
              per_seat: dict[int, Any] | None = None) -> dict[int, Any]:
    """The agent spec of every seat but the person's: ``partner`` for the person's team
    mates, ``opponents`` for the others (default: ``default_bot``), ``per_seat`` over both."""
    n = rules.n_seats
    if not 0 <= seat < n:
        raise ValueError(f"--seat must be a seat 0..{n - 1}, got {seat}")
    default = default_bot(rules.ruleset)
    specs = {s: (partner if (s - seat) % 2 == 0 else opponents) or default
             for s in range(n) if s != seat}
    for s, spec in (per_seat or {}).items():
        if s == seat or not 0 <= s < n:
            raise ValueError(f"a bot's seat must be 0..{n - 1} and not yours ({seat}), got {s}")
        specs[s] = spec
    return specs


def seat_words(s: int, me: int, n_seats: int) -> str:
    """Seat ``s`` as the person at seat ``me`` calls it: ``you``, ``seat 1 (left)``,
    ``seat 2 (partner)``; six-player, ``partner`` or ``opponent``."""
    if s == me:
        return "you"
    if n_seats == 4:
        role = {1: "left", 2: "partner", 3: "right"}[(s - me) % 4]
    else:
        role = "partner" if (s - me) % 2 == 0 else "opponent"
    return f"seat {s} ({role})"


def bot_move(game: Game, st, agent: Agent, encoder, seat: int, name: str) -> int:
    """The action of the bot ``agent`` at ``seat`` (to move at table 0 of ``st``);
    ``IllegalActionError`` naming the bot when it chose an action the rules refuse."""
    a = int(act_rows(game, st, agent, np.array([0]), encoder, np.array([seat]))[0])
    if not (0 <= a < game.n_actions and st.legal[0, a]):
        phase, _, reason = game.explain(st, 0, a)
        raise IllegalActionError(0, seat, a, f"bot {name!r} chose it: {reason}", phase)
    return a


class TerminalGame:
    """One game at one table: the person at ``seat`` answers on ``input``, the bots (an
    agent per other seat) act by themselves; everything is told on ``output``."""

    def __init__(self, rules: RulesConfig, bots: dict[int, Any], seat: int = 0, seed: int = 0,
                 reveal: bool = False, input: TextIO | None = None, output: TextIO | None = None):
        self.game = game = Game(rules)
        self.seat, self.seed, self.reveal = seat, seed, reveal
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.bots = {s: make_bot(b, game, s, seed) for s, b in bots.items()}
        if set(self.bots) != set(range(game.n_seats)) - {seat}:
            raise ValueError(f"need a bot at every seat but yours ({seat})")
        self.names = {s: spec_text(b) for s, b in bots.items()}
        self.encoder = make_encoder(game)
        self.echo = not getattr(self.input, "isatty", lambda: False)()
        self.team = seat & 1
        teams = ("us", "them") if self.team == 0 else ("them", "us")
        self.narrator = Narrator(game, self.who, teams, hidden=list(self.bots), first=self.team)
        self.st = game.reset(1, seed=seed)

    # ------------------------------------------------------------------ words
    def who(self, s: int) -> str:
        return seat_words(s, self.seat, self.game.n_seats)

    def say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.output)
        self.output.flush()

    def score(self) -> str:
        tally = self.narrator.tally([int(x) for x in self.st.score[0]])
        return f"score: {tally} (first to {self.game.target} {self.narrator.unit})"

    # ------------------------------------------------------------------ the game
    def run(self, hands: int | None = None, out: str | None = None) -> list[dict]:
        """Play to the end of the game (or ``hands`` hands, or until the person quits);
        return the records of the hands, also appended to ``out`` (JSON Lines) as they end
        (an existing file keeps its records: games accumulate)."""
        game, st = self.game, self.st
        r = game.rules
        mates = [s for s in self.bots if (s - self.seat) % 2 == 0]
        others = [s for s in self.bots if (s - self.seat) % 2]
        options = f", options {json.dumps(r.options())}" if r.options() else ""
        self.say(f"texas42 play: {r.ruleset} rules{options}, first to {game.target} "
                 f"{self.narrator.unit}; seed {self.seed}",
                 f"you are seat {self.seat}; "
                 + "; ".join(f"{self.who(s)}: {self.names[s]}" for s in mates + others), HELP)
        records: list[dict] = []

        def keep(rec: dict) -> None:
            records.append(rec)
            if out:
                write_records(out, [rec])

        try:
            while True:
                self.play_hand()
                keep(self.record())
                self.say(self.score())
                if int(st.phase[0]) == GAME_OVER:
                    won = int(st.winner[0]) == self.team
                    self.say(f"game over: {'your team wins' if won else 'the other team wins'}")
                    break
                if hands is not None and len(records) >= hands:
                    self.say(f"stopped after {len(records)} hand{'s' * (len(records) != 1)}")
                    break
                game.next_hand(st)
        except (Quit, KeyboardInterrupt):
            if int(st.phase[0]) < HAND_OVER and int(st.n_bids[0]):
                keep(self.record())  # the hand in progress, as far as it went
            self.say("", "game ended. " + self.score())
        if out:
            self.say(f"{len(records)} record{'s' * (len(records) != 1)} written to {out} "
                     f"(texas42 replay {out} checks them, texas42 show {out} tells them)")
        return records

    def record(self) -> dict:
        agents = [self.names.get(s, PERSON) for s in range(self.game.n_seats)]
        return record_from_state(self.game, self.st, 0, agents=agents)

    def play_hand(self) -> None:
        game, st = self.game, self.st
        self.say("", f"=== hand {int(st.hand_no[0]) + 1}: dealer {self.who(int(st.dealer[0]))}; "
                 f"{self.score()} ===",
                 f"your tiles: {tiles_text(game, game.hand_tiles(st, 0, self.seat))}")
        while int(st.phase[0]) < HAND_OVER:
            s = int(st.to_move[0])
            a = self.ask() if s == self.seat else self.bot_action(s)
            self.say(*("  " + line for line in self.narrator.step(st, a)))
        if self.reveal:
            self.show_hands()

    def show_hands(self) -> None:
        game, st = self.game, self.st
        self.say("hands as dealt:")
        for s in range(game.n_seats):
            self.say(f"  {self.who(s)}: {tiles_text(game, game.hand_tiles(st, 0, s, dealt=True))}")
        if game.rules.copies == 2:
            cat = [t % T.N_TILES for t in T.tiles_of(int(st.dealt_cat[0]))]
            self.say(f"  the cat: {tiles_text(game, cat)}")
            if int(st.contract[0]) >= 0:
                self.say("  " + self.narrator.exchange(st, int(st.declarer[0])))

    def bot_action(self, s: int) -> int:
        return bot_move(self.game, self.st, self.bots[s], self.encoder, s, self.names[s])

    # ------------------------------------------------------------------ the person's turn
    def choices(self) -> tuple[list[int], str]:
        """The numbered choices (action ids) and a line offering anything more."""
        game, st = self.game, self.st
        legal = [int(a) for a in np.flatnonzero(st.legal[0])]
        if not (game.six and int(st.phase[0]) == BIDDING):
            return legal, ""
        # six-player bids: pass and the cheapest bid in each trump numbered; the rest typed
        by_trump: dict[int, int] = {}
        for a in legal[1:] if legal[0] == 0 else legal:
            by_trump.setdefault((a - 1) % SIX_TRUMPS, a)
        levels = sorted({SIX_LEVELS[(a - 1) // SIX_TRUMPS] for a in legal if a})
        numbered = [0] * (legal[0] == 0) + sorted(by_trump.values(),
                                                  key=lambda a: (a - 1) % SIX_TRUMPS)
        more = (f"or any LEVEL:TRUMP with the trumps above and a level of "
                f"{', '.join(map(str, levels))}")
        return numbered, more

    def context(self) -> list[str]:
        """What the person needs in view to choose."""
        game, st = self.game, self.st
        phase = int(st.phase[0])
        c = int(st.contract[0])
        tiles = tiles_text(game, game.hand_tiles(st, 0, self.seat), c)
        if phase == BIDDING:
            high = int(st.high_bidder[0])
            high = (f"high bid {game.actions.name(int(st.high_action[0]))} by {self.who(high)}"
                    if high >= 0 else "no bid yet")
            return [f"your bid ({high}; your tiles {tiles}):"]
        if phase == DECLARING:
            return [f"your tiles: {tiles}", "name the contract:"]
        if phase == EXCHANGING:
            cat = [t % T.N_TILES for t in T.tiles_of(int(st.cat[0]) & int(st.dealt_cat[0]))]
            return [f"your tiles: {tiles}; left in the cat: {tiles_text(game, cat) or 'nothing'}",
                    "exchange with the cat (take a tile, then discard one; keep to stop):"]
        trump = game.actions.name(game.actions.contract0 + c)
        if c == SEVENS:
            todo = "your play (a tile closest to 7):"
        elif int(st.n_in_trick[0]):
            todo = f"your play (follow {game.tables.suit_name(int(st.led[0]))} if you can):"
        else:
            todo = "your lead:"
        return [f"your tiles ({trump}): {tiles}", todo]

    def ask(self) -> int:
        """The person's action: asked until it is a legal one. ``Quit`` at end of input."""
        numbered, more = self.choices()
        names = self.game.actions.names
        menu = "  ".join(f"{i}) {names[a]}" for i, a in enumerate(numbered, start=1))
        self.say(*self.context(), "  " + menu + (f"\n  {more}" if more else ""))
        while True:
            self.output.write("> ")
            self.output.flush()
            line = self.input.readline()
            if not line:
                self.say("(end of input)")
                raise Quit
            if self.echo:
                self.say(line.rstrip("\n"))
            text = line.strip()
            if text.lower() in ("q", "quit", "exit"):
                raise Quit
            if text in ("?", "h", "help"):
                self.say(HELP, *self.context(), "  " + menu + (f"\n  {more}" if more else ""))
                continue
            a = self.parse(text, numbered)
            if a is None:
                self.say(f"{text!r} is not a choice: type a number 1..{len(numbered)} or an "
                         f"action in notation (? for help, q to quit)" if text else
                         "type a choice (? for help, q to quit)")
                continue
            if not self.st.legal[0, a]:
                self.say(f"{names[a]} is not allowed: {self.game.reason(self.st, 0, a)}")
                continue
            return a

    def parse(self, text: str, numbered: Sequence[int]) -> int | None:
        """The action a person's answer names: its notation, a number of the menu, a tile
        written ``6 4`` or ``6/4``, ``42``/``84`` for ``1m``/``2m``; None if none."""
        sp = self.game.actions
        t = re.sub(r"\s+", " ", text.strip().lower())
        t = re.sub(r"(\d)\s*[/ ]\s*(\d)$", r"\1-\2", t)  # 6 4, 6/4 -> 6-4
        word, _, tile = t.rpartition(" ")
        if word in ("take", "discard") and re.fullmatch(r"\d-\d", tile):
            t = f"{word} {tile[::-1] if tile[0] < tile[2] else tile}"
        for cand in (t, t.replace(" ", "-"), re.sub(r"^(\d+) ", r"\1:", t)):
            a = sp.id(cand)
            if a is not None:
                return a
        if t.isdigit():
            n = int(t)
            if 1 <= n <= len(numbered):
                return numbered[n - 1]
            if not self.game.six and n % 42 == 0 and n:
                return sp.id(f"{n // 42}m")
        return None

