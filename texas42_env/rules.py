"""The rules configuration: a ruleset plus every house-rule option of rules.md.

``RulesConfig`` is frozen and validated on construction; a wrong option name or value raises
``ConfigError`` naming it and listing what is allowed. ``RulesConfig.tables`` holds the lookup
tables derived from the configuration once (which tiles follow which suit under which contract,
ranks, counts), shared by the core, the records and everything above.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Mapping

import numpy as np

from . import tiles as T


class ConfigError(ValueError):
    """A configuration value that is not allowed: the one error of every config check (the rules
    here, and every config dataclass through ``texas42_env.config``).

    ``key`` is the setting as a command line writes it (``algorithm.tables``, ``agents.x``),
    ``value`` what was given and ``allowed`` what may be given (words, or the names allowed);
    each is None where a message alone was given (the rules options' messages below). The
    message, one line, comes in four shapes:

    - a bad value, ``ConfigError(key=, value=, allowed=)``: ``KEY must be ALLOWED, got VALUE``;
    - an unknown name, ``ConfigError.unknown``: ``KEY: unknown NOUN 'VALUE'; allowed: A, B``;
    - an unknown key, ``ConfigError.unknown_key``: ``unknown key 'KEY'; allowed: A, B``;
    - another fault of a value, ``ConfigError.at``: ``KEY: FAULT`` (e.g. a checkpoint that does
      not load, the fault naming the file and what it lacks).
    """

    def __init__(self, message: str | None = None, *, key: str | None = None,
                 value: Any = None, allowed: Any = None):
        if message is None:
            message = f"{key} must be {allowed}, got {value!r}"
        super().__init__(message)
        self.key, self.value, self.allowed = key, value, allowed

    @classmethod
    def unknown(cls, key: str, value: Any, allowed: Any, noun: str | None = None,
                note: str = "") -> "ConfigError":
        """``value`` of ``key`` is none of the names ``allowed``."""
        noun = noun or key.rsplit(".", 1)[-1]
        names = ", ".join(str(a) for a in allowed)
        return cls(f"{key}: unknown {noun} {value!r}; allowed: {names}"
                   + (f" ({note})" if note else ""), key=key, value=value, allowed=tuple(allowed))

    @classmethod
    def unknown_key(cls, keys: str | list[str], allowed: Any, what: str = "key") -> "ConfigError":
        """``keys`` (dotted) are none of the keys ``allowed`` (the names at their level)."""
        keys = [keys] if isinstance(keys, str) else list(keys)
        names = ", ".join(str(a) for a in allowed)
        said = f"{what} {keys[0]!r}" if len(keys) == 1 else f"{what}s {', '.join(keys)}"
        return cls(f"unknown {said}; allowed: {names}", key=keys[0], allowed=tuple(allowed))

    @classmethod
    def at(cls, key: str, fault: Any, value: Any = None, allowed: Any = None) -> "ConfigError":
        """``value`` of ``key`` is refused for ``fault`` (an exception or words), e.g. an agent
        spec whose checkpoint is missing; the fault's own ``allowed`` is kept."""
        allowed = allowed if allowed is not None else getattr(fault, "allowed", None)
        return cls(f"{key}: {fault}", key=key, value=value, allowed=allowed)


RULESETS = ("standard", "six-player")

# Contracts (what the declarer names). 0..6 are the trump suits.
DOUBLES, FOLLOW_ME, NELLO, SEVENS = 7, 8, 9, 10
N_CONTRACTS = 11
CONTRACT_NAMES = tuple(f"{s}s" for s in range(7)) + ("doubles", "follow-me", "nello", "sevens")

# Suits a trick can call for: the numbers 0..6, the trump suit, doubles as a suit of their own.
TRUMP_SUIT, DOUBLES_SUIT = 7, 8
N_LED = 9
SUIT_NAMES = tuple(f"{s}s" for s in range(7)) + ("trumps", "doubles")


@dataclass(frozen=True)
class OptionSpec:
    name: str
    doc: str
    choices: tuple = ()  # allowed values for enumerated and boolean options
    int_range: tuple[int, int] | None = None  # inclusive bounds for integer options

    def check(self, value: Any) -> None:
        if self.int_range is not None:
            lo, hi = self.int_range
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ConfigError(
                    f"option {self.name!r}: bad value {value!r}; allowed: an integer {lo}..{hi}")
        elif not any(value is c or (type(value) is type(c) and value == c) for c in self.choices):
            allowed = ", ".join(repr(c) for c in self.choices)
            raise ConfigError(f"option {self.name!r}: bad value {value!r}; allowed: {allowed}")


OPTION_SPECS: dict[str, OptionSpec] = {
    s.name: s
    for s in (
        OptionSpec("max_opening_marks", "largest first mark bid", int_range=(1, 7)),
        OptionSpec("all_pass", "when all pass: the dealer must bid, or the hand is thrown in",
                   choices=("force_dealer", "redeal")),
        OptionSpec("first_bidder", "who bids first", choices=("left_of_dealer", "holder_of_1_0")),
        OptionSpec("plunge", "plunge allowed", choices=(True, False)),
        OptionSpec("plunge_min_doubles", "doubles needed to plunge", int_range=(1, 7)),
        OptionSpec("plunge_marks", "least value of a plunge, in marks", int_range=(1, 7)),
        OptionSpec("splash", "splash allowed", choices=(True, False)),
        OptionSpec("nello", "nello may be declared", choices=(True, False)),
        OptionSpec("nello_min_marks", "least bid for nello, in marks", int_range=(0, 7)),
        OptionSpec("nello_doubles", "where doubles stand in nello",
                   choices=("high", "low", "own_suit")),
        OptionSpec("sevens", "sevens may be declared", choices=(True, False)),
        OptionSpec("sevens_min_marks", "least bid for sevens, in marks", int_range=(0, 7)),
        OptionSpec("sevens_tie", "who wins a tie for closest to 7", choices=("first", "bidder")),
        OptionSpec("follow_me_doubles", "where doubles stand in follow-me",
                   choices=("high", "own_suit")),
        OptionSpec("play_out", "play all tricks after the result is decided", choices=(True, False)),
        OptionSpec("scoring", "score by marks or by points", choices=("marks", "points")),
        OptionSpec("target", "score that wins the game (default: 7 marks; 250 points, "
                   "500 six-player)", int_range=(1, 100000)),
    )
}

DEFAULTS: dict[str, dict[str, Any]] = {
    "standard": {
        "max_opening_marks": 2, "all_pass": "force_dealer", "first_bidder": "left_of_dealer",
        "plunge": True, "plunge_min_doubles": 4, "plunge_marks": 4, "splash": False,
        "nello": True, "nello_min_marks": 1, "nello_doubles": "high",
        "sevens": False, "sevens_min_marks": 1, "sevens_tie": "first",
        "follow_me_doubles": "high", "play_out": False, "scoring": "marks", "target": None,
    },
    "six-player": {
        "all_pass": "force_dealer", "play_out": False, "scoring": "points", "target": None,
        "follow_me_doubles": "high",
    },
}
DEFAULT_TARGET = {("standard", "marks"): 7, ("standard", "points"): 250,
                  ("six-player", "marks"): 7, ("six-player", "points"): 500}


@dataclass(frozen=True)
class RulesConfig:
    """A ruleset and all its options. Build with ``RulesConfig.make`` or ``preset``."""

    ruleset: str = "standard"
    max_opening_marks: int = 2
    all_pass: str = "force_dealer"
    first_bidder: str = "left_of_dealer"
    plunge: bool = True
    plunge_min_doubles: int = 4
    plunge_marks: int = 4
    splash: bool = False
    nello: bool = True
    nello_min_marks: int = 1
    nello_doubles: str = "high"
    sevens: bool = False
    sevens_min_marks: int = 1
    sevens_tie: str = "first"
    follow_me_doubles: str = "high"
    play_out: bool = False
    scoring: str = "marks"
    target: int | None = None

    @classmethod
    def make(cls, ruleset: str = "standard", **options: Any) -> "RulesConfig":
        """The ruleset's defaults with ``options`` changed; ``ConfigError`` on a bad one."""
        return cls.from_options(ruleset, options)

    @classmethod
    def from_options(cls, ruleset: str, options: Mapping[str, Any] | None) -> "RulesConfig":
        if ruleset not in RULESETS:
            raise ConfigError(f"unknown ruleset {ruleset!r}; allowed: {', '.join(RULESETS)}")
        allowed = DEFAULTS[ruleset]
        values = dict(DEFAULTS["standard"])
        values.update(allowed)
        for name, value in (options or {}).items():
            if name not in allowed:
                raise ConfigError(
                    f"unknown option {name!r} for ruleset {ruleset!r}; "
                    f"allowed: {', '.join(sorted(allowed))}")
            OPTION_SPECS[name].check(value)
            values[name] = value
        return cls(ruleset=ruleset, **values)

    def __post_init__(self) -> None:
        if self.ruleset not in RULESETS:
            raise ConfigError(f"unknown ruleset {self.ruleset!r}; allowed: {', '.join(RULESETS)}")
        allowed = DEFAULTS[self.ruleset]
        for f in dataclasses.fields(self):
            if f.name in ("ruleset",) or (f.name == "target" and self.target is None):
                continue
            value = getattr(self, f.name)
            OPTION_SPECS[f.name].check(value)
            if f.name not in allowed and value != DEFAULTS["standard"][f.name]:
                raise ConfigError(f"unknown option {f.name!r} for ruleset {self.ruleset!r}; "
                                  f"allowed: {', '.join(sorted(allowed))}")

    # ----- derived facts -----
    @property
    def n_seats(self) -> int:
        return 6 if self.ruleset == "six-player" else 4

    @property
    def hand_size(self) -> int:
        return 9 if self.ruleset == "six-player" else 7

    @property
    def n_tricks(self) -> int:
        return self.hand_size

    @property
    def copies(self) -> int:
        return 2 if self.ruleset == "six-player" else 1

    @property
    def total_points(self) -> int:
        return 88 if self.ruleset == "six-player" else 42

    @property
    def points_per_trick(self) -> int:
        return 2 if self.ruleset == "six-player" else 1

    @property
    def resolved_target(self) -> int:
        if self.target is not None:
            return self.target
        return DEFAULT_TARGET[(self.ruleset, self.scoring)]

    def options(self) -> dict[str, Any]:
        """The options that differ from the ruleset's defaults, as a record writes them."""
        out = {}
        for name, default in DEFAULTS[self.ruleset].items():
            value = getattr(self, name)
            if name == "target":
                if value is not None and value != DEFAULT_TARGET[(self.ruleset, self.scoring)]:
                    out[name] = value
            elif value != default:
                out[name] = value
        return out

    def contract_allowed(self, contract: int) -> bool:
        if contract == NELLO:
            return self.nello and self.ruleset == "standard"
        if contract == SEVENS:
            return self.sevens and self.ruleset == "standard"
        return True

    @cached_property
    def tables(self) -> "Tables":
        return Tables(self)


PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "standard-points": {"scoring": "points"},
    "no-specials": {"plunge": False, "nello": False},
    "all-specials": {"splash": True, "sevens": True},
    "play-out": {"play_out": True},
    "six-player": {"ruleset": "six-player"},
}


def preset(name: str, **overrides: Any) -> RulesConfig:
    """A named preset (see ``PRESETS``), with ``overrides`` applied on top."""
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; allowed: {', '.join(PRESETS)}")
    opts = dict(PRESETS[name])
    opts.update(overrides)
    ruleset = opts.pop("ruleset", "standard")
    return RulesConfig.from_options(ruleset, opts)


class Tables:
    """Lookup tables derived once from a rules configuration, indexed by contract.

    - ``led[c, t]``: the suit tile ``t`` calls for when led under contract ``c``;
    - ``follow[c, s]``: bitmask of the tiles that belong to suit ``s`` under ``c``;
    - ``rank[c, s, t]``: strength of ``t`` in a trick that called for ``s`` (0: cannot win);
    - ``sevens_rank[t]``: closeness to 7 (higher is closer), ``sevens_class[d]`` tiles at distance d.
    """

    def __init__(self, rules: RulesConfig):
        self.rules = rules
        led = np.zeros((N_CONTRACTS, T.N_TILES), dtype=np.int8)
        follow = np.zeros((N_CONTRACTS, N_LED), dtype=np.uint64)
        rank = np.zeros((N_CONTRACTS, N_LED, T.N_TILES), dtype=np.int16)
        for c in range(N_CONTRACTS):
            for t in range(T.N_TILES):
                suits = self.suits_of(c, t)
                led[c, t] = self.led_suit(c, t)
                for s in suits:
                    follow[c, s] |= np.uint64(1 << t)
                for s in range(N_LED):
                    rank[c, s, t] = self._strength(c, s, t)
        self.led = led
        self.follow = follow
        self.rank = rank
        dist = np.abs(T.PIPS.astype(np.int16) - 7)
        self.sevens_rank = (10 - dist).astype(np.int16)
        self.sevens_class = np.array(
            [T.mask_of(np.flatnonzero(dist == d)) for d in range(8)], dtype=np.uint64)
        self.count = T.COUNT.astype(np.int16)

    # Slow, readable definitions the tables are built from (also used to explain errors).
    def doubles_own_suit(self, c: int) -> bool:
        r = self.rules
        return (c == FOLLOW_ME and r.follow_me_doubles == "own_suit") or (
            c == NELLO and r.nello_doubles == "own_suit")

    @staticmethod
    def is_trump(c: int, t: int) -> bool:
        if c < 7:
            return bool(T.HI[t] == c or T.LO[t] == c)
        return c == DOUBLES and bool(T.IS_DOUBLE[t])

    def suits_of(self, c: int, t: int) -> tuple[int, ...]:
        """Suits tile ``t`` belongs to (can follow) under contract ``c``."""
        if c == SEVENS:
            return ()
        if self.is_trump(c, t):
            return (TRUMP_SUIT,)
        if T.IS_DOUBLE[t] and self.doubles_own_suit(c):
            return (DOUBLES_SUIT,)
        return tuple(sorted({int(T.HI[t]), int(T.LO[t])}))

    def led_suit(self, c: int, t: int) -> int:
        if c == SEVENS:
            return 0
        if self.is_trump(c, t):
            return TRUMP_SUIT
        if T.IS_DOUBLE[t] and self.doubles_own_suit(c):
            return DOUBLES_SUIT
        return int(T.HI[t])

    def _strength(self, c: int, s: int, t: int) -> int:
        if c == SEVENS:
            return 0
        hi, lo, dbl = int(T.HI[t]), int(T.LO[t]), bool(T.IS_DOUBLE[t])
        if self.is_trump(c, t):
            # doubles as trump rank by pips; a trump suit has its double on top
            return 30 + (hi if c == DOUBLES else (8 if dbl else (lo if hi == c else hi)))
        if s not in self.suits_of(c, t):
            return 0
        if s == DOUBLES_SUIT:
            return 10 + hi
        if dbl:
            low = c == NELLO and self.rules.nello_doubles == "low"
            return 10 if low else 20
        other = lo if hi == s else hi
        return 11 + other

    def suit_name(self, s: int) -> str:
        return SUIT_NAMES[s]
