"""The agent interface, the registry of agents by name and agent spec strings.

An agent maps the observations and legal masks of many tables (any of them, any seats) to
one action each: ``act(observations, masks) -> actions``. ``act_one`` is the single-table
convenience. Agents are built by name (``make_agent("random", seed=1)``) from the registry,
which configs and command lines use. A spec is a name, a dict ``{"name": ..., **options}``
(as configs write it) or the command line's ``NAME:KEY=VALUE,...`` (``parse_spec``,
``spec_text``, ``spec_name``).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from texas42_env.core import Game, State


@dataclass
class Context:
    """Where the rows of an ``act`` call come from: row i is table ``tables[i]`` of ``state``,
    seat ``seats[i]``. The driver passes one to every agent: random choices are keyed by the
    decision it names (``texas42_env.sampling.decision_keys``), and search reads the table.
    An agent may use only what that seat may know: its hand and the public history, or
    ``texas42_env.worlds`` samples drawn for that seat."""

    game: Game
    state: State
    tables: np.ndarray
    seats: np.ndarray


class Agent:
    """Base class: override ``act``. ``needs_observation = False`` tells callers they may
    pass ``None`` for the observations (the agent looks only at the masks);
    ``needs_state = True`` says it cannot act without a ``Context`` (search agents; the
    others fall back to a plain seeded generator without one, as in ``act_one``)."""

    name = "agent"
    needs_observation = True
    needs_state = False
    rulesets: tuple[str, ...] = ("standard", "six-player")

    def setup(self, game: Game) -> "Agent":
        """Called once with the game (rules, action space) the agent will play."""
        if game.rules.ruleset not in self.rulesets:
            raise ValueError(f"agent {self.name!r} does not play ruleset {game.rules.ruleset!r}")
        self.game = game
        return self

    def act(self, observations: np.ndarray | None, masks: np.ndarray,
            context: Context | None = None) -> np.ndarray:
        """One legal action per row of ``masks`` (bool [n, n_actions])."""
        raise NotImplementedError

    def act_one(self, observation: np.ndarray | None, mask: np.ndarray) -> int:
        obs = None if observation is None else np.asarray(observation)[None, :]
        return int(self.act(obs, np.asarray(mask, bool)[None, :])[0])

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


REGISTRY: dict[str, Callable[..., Agent]] = {}


def register(name: str) -> Callable:
    """Class decorator: make the agent buildable as ``make_agent(name, **kwargs)``."""
    def deco(cls):
        if name in REGISTRY:
            raise ValueError(f"agent name {name!r} is already registered")
        REGISTRY[name] = cls
        cls.name = name
        return cls
    return deco


def make_agent(spec: str | dict[str, Any], **kwargs: Any) -> Agent:
    """An agent from a spec: a name, ``NAME:KEY=VALUE,...`` or a JSON object as the command
    line writes it (``parse_spec``), or a dict ``{"name": ..., **kwargs}`` as configs do."""
    if isinstance(spec, str):
        spec = parse_spec(spec)
    if isinstance(spec, dict) or hasattr(spec, "keys"):
        spec = dict(spec)
        name = spec.pop("name", None)
        kwargs = {**spec, **kwargs}
    else:
        name = spec
    if name not in REGISTRY:
        raise ValueError(f"unknown agent {name!r}; registered: {', '.join(sorted(REGISTRY))}")
    try:
        agent = REGISTRY[name](**kwargs)
    except TypeError as e:  # a misspelt or unknown option
        target = REGISTRY[name]
        target = target.__init__ if inspect.isclass(target) else target
        params = [p for p in inspect.signature(target).parameters if p not in ("self", "kwargs")]
        raise ValueError(f"agent {name!r}: {e}; its options: {', '.join(params) or 'none'}") \
            from None
    agent.name = name if not kwargs else f"{name}({', '.join(f'{k}={v}' for k, v in sorted(kwargs.items()))})"
    return agent


def parse_spec(text: str) -> str | dict:
    """An agent spec from the command line: ``NAME``, ``NAME:KEY=VALUE,...`` (values read
    as JSON where they parse, else as strings), e.g. ``neural:path=runs/train/X``, or a JSON
    object with a ``name`` (``{"name": "compose", "play": {"name": "pimc", "n_worlds": 32}}``:
    options that hold specs of their own)."""
    if text.lstrip().startswith("{"):
        try:
            spec = json.loads(text)
        except ValueError as e:
            raise ValueError(f"agent {text!r}: not a JSON object ({e})") from None
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
            raise ValueError(f"agent {text!r}: a JSON spec needs a \"name\"")
        return spec
    name, _, rest = text.partition(":")
    if not rest:
        return name
    spec: dict = {"name": name}
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"agent {text!r}: expected NAME:KEY=VALUE,..., got {item!r}")
        try:
            spec[key] = json.loads(value)
        except ValueError:
            spec[key] = value
    return spec


def spec_text(spec: Any) -> str:
    """An agent spec as the command line writes it (``pimc:n_worlds=8``)."""
    if isinstance(spec, Agent):
        return spec.name
    if isinstance(spec, str):
        return spec
    rest = ",".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}"
                    for k, v in spec.items() if k != "name")
    return spec["name"] + (f":{rest}" if rest else "")


def spec_name(spec: Any) -> str:
    """The registered name in an agent spec (a name, ``NAME:K=V,...`` or a dict)."""
    if isinstance(spec, str) and spec.lstrip().startswith("{"):
        try:
            spec = parse_spec(spec)
        except ValueError:
            return spec
    if isinstance(spec, str):
        return spec.partition(":")[0]
    if isinstance(spec, dict) or hasattr(spec, "keys"):
        return spec.get("name", "")
    return repr(spec)
