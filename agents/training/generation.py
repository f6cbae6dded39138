"""Self-play data spread over workers: the generic way to make training data on a backend.

``SelfPlay(agent, ruleset, rules, seed, deals)`` holds an agent (built once per worker from
its spec) and answers ``batch(k)``: the decisions of deals ``k * deals .. (k + 1) * deals - 1``
(games from ``FIRST_GAME`` up, never an arena's or training's deals) played to the end of
their hands with the agent at every seat, as arrays. A batch depends only on the settings and
``k`` (the agents' draws are keyed by the decision), so whichever worker makes it, and in
whatever order, the data are the same. ``self_play_batches(backend, settings, ks)`` yields
the batches of ``ks`` in order, made by ``backend.generators`` (local processes or Ray
actors, each holding its own agent).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Iterable, Iterator

import numpy as np

from texas42_env.core import HAND_OVER, NO_ACTION, Game
from texas42_env.observation import make_encoder
from texas42_env.rewards import team_rewards
from texas42_env.rules import RulesConfig

from agents.base import make_agent
from agents.driver import act_rows
from agents.scale.backend import Backend

FIRST_GAME = 3 << 40  # self-play deals: their own games


@dataclass(frozen=True)
class SelfPlaySettings:
    agent: Any = "heuristic"  # a spec: name, NAME:KEY=VALUE,... or a dict
    ruleset: str = "standard"
    rules: dict = field(default_factory=dict)
    seed: int = 0
    deals: int = 64  # deals a batch


class SelfPlay:
    """A worker's generator (see the module)."""

    def __init__(self, settings: SelfPlaySettings):
        self.settings = settings
        spec = settings.agent
        self.game = Game(RulesConfig.from_options(settings.ruleset, settings.rules))
        self.agent = make_agent(spec)
        self.agent.setup(self.game)
        self.encoder = make_encoder(self.game)

    def batch(self, k: int) -> dict[str, np.ndarray]:
        """Every decision of batch ``k``'s deals: ``obs`` (float32 [n, obs]), ``mask`` (bool
        [n, actions]), ``action`` (int64 [n]), ``deal`` (int64 [n]: the game id), ``seat``
        (int8 [n]) and ``reward`` (float32 [n]: the seat's team's marks of the hand)."""
        s = self.settings
        n = s.deals
        game, enc = self.game, self.encoder
        ids = FIRST_GAME + k * n + np.arange(n)
        st = game.reset(n, seed=s.seed, game_ids=ids)
        parts: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "table", "seat")}
        while True:
            active = np.flatnonzero(st.phase < HAND_OVER)
            if active.size == 0:
                break
            seats = st.to_move[active]
            obs = enc.encode(st, seats, idx=active)
            a = act_rows(game, st, self.agent, active, enc, seats, observations=obs)
            for key, value in (("obs", obs), ("mask", st.legal[active].copy()), ("action", a),
                               ("table", active), ("seat", seats)):
                parts[key].append(value)
            full = np.full(n, NO_ACTION, np.int64)
            full[active] = a
            game.step(st, full)
        table = np.concatenate(parts["table"])
        seat = np.concatenate(parts["seat"]).astype(np.int8)
        rewards = team_rewards(st, np.arange(n), "marks")  # [n, 2]
        return {"obs": np.concatenate(parts["obs"]).astype(np.float32),
                "mask": np.concatenate(parts["mask"]),
                "action": np.concatenate(parts["action"]).astype(np.int64),
                "deal": ids[table].astype(np.int64), "seat": seat,
                "reward": rewards[table, seat % 2].astype(np.float32)}


def self_play_batches(backend: Backend, settings: SelfPlaySettings,
                      ks: Iterable[int]) -> Iterator[dict[str, np.ndarray]]:
    """The batches of ``ks``, in order, made by ``backend``'s workers."""
    with backend.generators(partial(SelfPlay, settings)) as workers:
        yield from workers.map("batch", list(ks))


__all__ = ["FIRST_GAME", "SelfPlay", "SelfPlaySettings", "self_play_batches"]
