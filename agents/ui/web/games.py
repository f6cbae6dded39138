"""The games the web app is playing: a person at one seat, agents at the others, in memory.

``WebGame`` is one game at one table: the agents act by themselves up to the person's turn
(or the end of the hand), the person's action is checked by the core (an illegal one is
refused with the core's reason and changes nothing), each finished hand becomes a record.
``Store`` keeps such things (games, uploaded records) by a random id, at most ``cap`` of
them, each forgotten ``ttl`` seconds after it was last used. ``agent_spec`` admits only
agents by registered name, with their default options (``agents_for``: no weights file to
name, no option to make a search as slow as a client likes): a web client cannot make the
server open a file or run anything but a registered agent as it is.

The game's seed fixes every deal of the game, so the person is told it (in the state and in
the records) only once the game is over.
"""

from __future__ import annotations

import inspect
import re
import secrets
import threading
import time
from typing import Any, Callable, Generic, Mapping, TypeVar

from texas42_env.core import EXCHANGING, GAME_OVER, HAND_OVER, Game
from texas42_env.narrator import Narrator
from texas42_env.observation import make_encoder
from texas42_env.records import record_from_state
from texas42_env.rules import ConfigError, RulesConfig

from agents.base import REGISTRY, spec_text
from agents.ui.play import PERSON, agents_playing, bot_move, make_bot, seat_bots, seat_words
from agents.ui.web.view import PHASES, table_view

NEXT = "next"  # the person's action that deals the next hand once one is over
MAX_SEED = 2**31 - 1


class WebError(ValueError):
    """A request the game refuses (a bad setting, an action not allowed now); nothing
    changed. ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def agents_for(ruleset: str) -> list[str]:
    """The agents a web client may seat in ``ruleset``: registered, playing it and built
    with no option (no weights file to name)."""
    def bare(name: str) -> bool:  # not a file to name (neural, bidnet), nor a needed option
        factory = REGISTRY[name]
        target = factory.__init__ if inspect.isclass(factory) else factory
        params = [p for p in inspect.signature(target).parameters.values() if p.name != "self"]
        return not any(p.name == "path" or p.kind is p.VAR_KEYWORD or p.default is p.empty
                       for p in params)

    return [name for name in agents_playing(ruleset) if bare(name)]


def agent_spec(name: Any, seat: int, ruleset: str) -> str:
    """The agent a web client asked for at ``seat``: one of ``agents_for(ruleset)`` by
    name; ``WebError`` for anything else (options, file paths, specs included)."""
    allowed = agents_for(ruleset)
    if name in allowed:
        return name
    shown = repr(name) if not isinstance(name, str) or len(name) <= 60 else \
        repr(name[:60] + "...")
    extra = " (the web app takes agents by name only, with their default options)" \
        if isinstance(name, str) and any(c in name for c in ":{=") else ""
    raise WebError(f"agents[{seat}]: {shown} is not an agent for the {ruleset} ruleset"
                   f"{extra}; agents: {', '.join(allowed)}")


class WebGame:
    """One game: the person at ``seat``, ``bots`` (seat -> agent spec) at the others."""

    def __init__(self, rules: RulesConfig, bots: Mapping[int, Any], seat: int, seed: int):
        self.game = game = Game(rules)
        self.seat, self.seed = seat, seed
        self.bots = {s: make_bot(b, game, s, seed) for s, b in bots.items()}
        self.names = [spec_text(bots[s]) if s in bots else PERSON for s in range(game.n_seats)]
        self.encoder = make_encoder(game)
        team = seat & 1
        self.narrator = Narrator(game, self.who, ("us", "them") if team == 0 else ("them", "us"),
                                 hidden=list(self.bots), first=team)
        self.st = game.reset(1, seed=seed)
        self.records: list[dict] = []
        self.events: list[dict] = []  # this hand's steps, as the person may see them
        self.lock = threading.Lock()
        self.advance()

    def who(self, s: int) -> str:
        return seat_words(s, self.seat, self.game.n_seats)

    @classmethod
    def create(cls, ruleset: str = "standard", rules: Mapping[str, Any] | None = None,
               human_seat: int = 0, agents: Mapping[str, Any] | None = None,
               seed: int | None = None) -> "WebGame":
        """A new game from the API's fields; ``WebError`` naming the bad one."""
        try:
            config = RulesConfig.from_options(ruleset, rules or {})
        except ConfigError as e:
            raise WebError(f"rules: {e}") from None
        n = config.n_seats
        if isinstance(human_seat, bool) or not isinstance(human_seat, int) or \
                not 0 <= human_seat < n:
            raise WebError(f"human_seat must be a seat 0..{n - 1}, got {human_seat!r}")
        per_seat = {}
        for key, text in (agents or {}).items():
            if not re.fullmatch(r"[0-9]{1,2}", str(key)) or not 0 <= int(key) < n or \
                    int(key) == human_seat:
                raise WebError(f"agents: a seat is 0..{n - 1} and not the human's "
                               f"({human_seat}), got {str(key)[:20]!r}")
            per_seat[int(key)] = agent_spec(text, int(key), ruleset)
        if seed is None:
            seed = secrets.randbelow(MAX_SEED)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise WebError(f"seed must be a whole number 0..{MAX_SEED}, got {seed!r}")
        try:
            specs = seat_bots(config, human_seat, per_seat=per_seat)
            return cls(config, specs, human_seat, seed)
        except (ValueError, ConfigError) as e:  # an agent that cannot play this game
            raise WebError(f"agents: {e}") from None

    # ------------------------------------------------------------------ playing
    def step(self, seat: int, action: int) -> None:
        game, st = self.game, self.st
        phase = int(st.phase[0])
        lines = self.narrator.step(st, action)
        hidden = phase == EXCHANGING and seat != self.seat
        event = {"seat": seat, "phase": PHASES[phase],
                 "action": None if hidden else game.actions.name(action), "lines": lines}
        self.events.append(event)
        if int(st.phase[0]) >= HAND_OVER:
            self.records.append(record_from_state(game, st, 0, agents=self.names))

    def advance(self) -> None:
        """The agents act until it is the person's turn or the hand is over."""
        st = self.st
        while int(st.phase[0]) < HAND_OVER and int(st.to_move[0]) != self.seat:
            s = int(st.to_move[0])
            self.step(s, bot_move(self.game, st, self.bots[s], self.encoder, s, self.names[s]))

    def legal(self) -> list[str]:
        """The person's choices now: action names, ``next`` between hands, none otherwise."""
        st, phase = self.st, int(self.st.phase[0])
        if phase == GAME_OVER:
            return []
        if phase == HAND_OVER:
            return [NEXT]
        if int(st.to_move[0]) != self.seat:
            return []
        return [self.game.actions.name(int(a)) for a in st.legal[0].nonzero()[0]]

    def act(self, text: Any) -> None:
        """Play the person's action (its notation, or ``next`` between hands) and the
        agents' replies; ``WebError`` with the core's reason when it is not allowed, the
        game unchanged (and unchanged too, with a 500, if an agent fails in its reply)."""
        before = (self.st.copy(), list(self.events), len(self.records))
        try:
            self._act(text)
        except WebError:
            raise
        except Exception as e:  # an agent failed: the game goes back to before the action
            self.st.restore(before[0])
            self.events, self.records = before[1], self.records[:before[2]]
            raise WebError(f"an agent failed in its reply ({type(e).__name__}: {e}); the "
                           f"game is as it was before your action", status=500) from e

    def _act(self, text: Any) -> None:
        game, st = self.game, self.st
        phase = int(st.phase[0])
        if not isinstance(text, str):
            raise WebError(f"action must be a string in the notation of rules.md, "
                           f"got {text!r}")
        if phase == GAME_OVER:
            raise WebError("the game is over")
        if text == NEXT:
            if phase != HAND_OVER:
                raise WebError(f"{NEXT!r} deals the next hand once this one is over; "
                               f"it is seat {int(st.to_move[0])}'s turn to {PHASES[phase]}")
            game.next_hand(st)
            self.events = []
            self.advance()
            return
        a = game.actions.id(text)
        if a is None:
            raise WebError(f"{text[:40]!r} is not an action of the {game.rules.ruleset} "
                           f"ruleset; allowed now: {', '.join(self.legal()) or 'none'}")
        if phase == HAND_OVER:
            raise WebError(f"the hand is over: {NEXT!r} deals the next one")
        if int(st.to_move[0]) != self.seat:
            raise WebError(f"it is seat {int(st.to_move[0])}'s turn, not yours")
        if not st.legal[0, a]:
            raise WebError(f"{text} is not allowed: {game.reason(st, 0, a)}")
        self.step(self.seat, a)
        self.advance()

    # ------------------------------------------------------------------ what the person sees
    def state(self) -> dict:
        """The game as the person may see it: their own tiles, the others' counted until
        the hand is over, the events of this hand, their legal choices."""
        view = table_view(self.game, self.st, seat=self.seat, names=self.names,
                          narrator=self.narrator)
        view.update(human_seat=self.seat, legal=self.legal(), events=list(self.events),
                    hands_done=len(self.records), seed=self.seed if self.over else None)
        return view

    @property
    def over(self) -> bool:
        return int(self.st.phase[0]) == GAME_OVER

    def public_records(self) -> list[dict]:
        """The finished hands' records as the person may have them: without the seed (it
        fixes the deals still to come) until the game is over."""
        if self.over:
            return list(self.records)
        return [{k: v for k, v in r.items() if k != "seed"} for r in self.records]


T = TypeVar("T")


class Store(Generic[T]):
    """At most ``cap`` things by random id, each forgotten ``ttl`` seconds after its last
    use; thread-safe. When full, a thing ``spent(thing)`` says is done with (a finished
    game) makes room, or with ``lru`` the least recently used one; otherwise ``WebError``
    429. A place is taken (``reserve``) before the thing is built, so things being built
    count too."""

    def __init__(self, cap: int, ttl: float, what: str = "game",
                 spent: Callable[[Any], bool] = lambda item: False, lru: bool = False,
                 clock: Callable[[], float] = time.monotonic):
        self.cap, self.ttl, self.what, self.spent, self.lru = cap, ttl, what, spent, lru
        self.clock = clock
        self.items: dict[str, list] = {}  # id -> [last used, the thing, None while built]
        self.lock = threading.Lock()

    def _sweep(self) -> None:
        now = self.clock()
        for key in [k for k, (used, _) in self.items.items() if now - used > self.ttl]:
            del self.items[key]

    def _make_room(self) -> None:
        if len(self.items) < self.cap:
            return
        ready = [(used, k) for k, (used, item) in self.items.items() if item is not None]
        spent = [(used, k) for used, k in ready if self.spent(self.items[k][1])]
        victims = spent or (ready if self.lru else [])
        if not victims:
            raise WebError(f"too many {self.what}s open ({self.cap}); one is forgotten "
                           f"{self.ttl / 60:g} minutes after its last use", status=429)
        del self.items[min(victims)[1]]

    def reserve(self) -> str:
        """A new id with a place kept for its thing (``WebError`` 429 when there is none)."""
        with self.lock:
            self._sweep()
            self._make_room()
            key = secrets.token_urlsafe(12)
            self.items[key] = [self.clock(), None]
            return key

    def fill(self, key: str, item: T) -> None:
        with self.lock:
            self.items[key] = [self.clock(), item]

    def drop(self, key: str) -> bool:
        """Forget ``key``'s thing (or the place kept for it); whether there was one."""
        with self.lock:
            return self.items.pop(key, None) is not None

    def add(self, item: T) -> str:
        key = self.reserve()
        self.fill(key, item)
        return key

    def get(self, key: str) -> T:
        with self.lock:
            self._sweep()
            entry = self.items.get(key)
            if entry is None or entry[1] is None:
                raise WebError(f"no {self.what} {key[:40]!r} (unknown, or forgotten after "
                               f"{self.ttl / 60:g} minutes unused)", status=404)
            entry[0] = self.clock()
            return entry[1]

    def __len__(self) -> int:
        return len(self.items)
