"""The games the web app is playing: a person at one seat, agents at the others, in memory.

``WebGame`` is one game at one table: the agents act by themselves up to the person's turn
(or the end of the hand), the person's action is checked by the core (an illegal one is
refused with the core's reason and changes nothing), each finished hand becomes a record.
``Store`` keeps such things (games, uploaded records) by a random id, at most ``cap`` of
them, each forgotten ``ttl`` seconds after it was last used. ``agent_spec`` admits only
agents by registered name with plain options (no file paths, no nested specs): a web
client cannot make the server open a file or run anything but a registered agent.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any, Callable, Generic, Mapping, TypeVar

from texas42_env.core import EXCHANGING, GAME_OVER, HAND_OVER, Game
from texas42_env.narrator import Narrator
from texas42_env.observation import make_encoder
from texas42_env.records import record_from_state
from texas42_env.rules import ConfigError, RulesConfig

from agents.base import REGISTRY, parse_spec, spec_text
from agents.ui.play import PERSON, bot_move, make_bot, seat_bots, seat_words
from agents.ui.web.view import PHASES, table_view

NEXT = "next"  # the person's action that deals the next hand once one is over
MAX_SEED = 2**31 - 1


class WebError(ValueError):
    """A request the game refuses (a bad setting, an action not allowed now); nothing
    changed. ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def agent_spec(text: Any, seat: int) -> str | dict:
    """The agent spec a web client asked for at ``seat``: a registered name, optionally
    with options of plain values (``pimc:n_worlds=8``); ``WebError`` for anything else,
    file paths and nested specs included."""
    where = f"agents[{seat}]"
    if not isinstance(text, str) or not text or len(text) > 200:
        raise WebError(f"{where}: an agent is a name such as 'champion' or "
                        f"'pimc:n_worlds=8', got {text!r}")
    if text.lstrip().startswith("{"):
        raise WebError(f"{where}: JSON agent specs are not taken here; write NAME or "
                        f"NAME:KEY=VALUE,...")
    try:
        spec = parse_spec(text)
    except ValueError as e:
        raise WebError(f"{where}: {e}") from None
    name = spec if isinstance(spec, str) else spec["name"]
    if name not in REGISTRY:
        raise WebError(f"{where}: unknown agent {name!r}; agents: {', '.join(sorted(REGISTRY))}")
    for key, value in ({} if isinstance(spec, str) else spec).items():
        if key == "name":
            continue
        if "path" in key.lower() or not isinstance(value, (int, float, bool, str)) or \
                (isinstance(value, str) and any(c in value for c in "/\\:.")):
            raise WebError(f"{where}: option {key}={value!r} is not taken by the web app "
                            f"(no files, no nested specs: plain numbers and names only)")
    return spec


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
            if not str(key).isdigit() or not 0 <= int(key) < n or int(key) == human_seat:
                raise WebError(f"agents: a seat is 0..{n - 1} and not the human's "
                                f"({human_seat}), got {key!r}")
            per_seat[int(key)] = agent_spec(text, int(key))
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
        event = {"seat": seat, "phase": ("bid", "declare", "exchange", "play")[phase],
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
        game unchanged."""
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
        view.update(human_seat=self.seat, legal=self.legal(), events=self.events,
                    hands_done=len(self.records))
        return view


T = TypeVar("T")


class Store(Generic[T]):
    """At most ``cap`` things by random id, each forgotten ``ttl`` seconds after its last
    use; thread-safe."""

    def __init__(self, cap: int, ttl: float, what: str = "game",
                 clock: Callable[[], float] = time.monotonic):
        self.cap, self.ttl, self.what, self.clock = cap, ttl, what, clock
        self.items: dict[str, tuple[float, T]] = {}
        self.lock = threading.Lock()

    def room(self) -> None:
        """``WebError`` (429) when the store is full, before anything is built for it."""
        with self.lock:
            self._sweep()
            self._check()

    def _check(self) -> None:
        if len(self.items) >= self.cap:
            raise WebError(f"too many {self.what}s open ({self.cap}); one is forgotten "
                            f"{self.ttl / 60:g} minutes after its last use", status=429)

    def _sweep(self) -> None:
        now = self.clock()
        for key in [k for k, (used, _) in self.items.items() if now - used > self.ttl]:
            del self.items[key]

    def add(self, item: T) -> str:
        with self.lock:
            self._sweep()
            self._check()
            key = secrets.token_urlsafe(12)
            self.items[key] = (self.clock(), item)
            return key

    def get(self, key: str) -> T:
        with self.lock:
            self._sweep()
            if key not in self.items:
                raise WebError(f"no {self.what} {key[:40]!r} (unknown, or forgotten after "
                                f"{self.ttl / 60:g} minutes unused)", status=404)
            _, item = self.items[key]
            self.items[key] = (self.clock(), item)
            return item

    def __len__(self) -> int:
        return len(self.items)
