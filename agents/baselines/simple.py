"""The yardsticks: ``random`` (uniformly random legal actions) and ``passive`` (passes
whenever it may).

Given the table's ``Context`` (as the driver gives every agent), each random choice is a
keyed draw (``texas42_env.sampling``: fixed by the agent's seed and the decision), so a seed
and the deals fix the actions whatever the batch layout; without one (``act_one``) they come
from the agent's own seeded generator.
"""

from __future__ import annotations

import numpy as np

from texas42_env.config import check, whole
from texas42_env.sampling import decision_keys, keyed_uniform_legal, uniform_legal

from agents.base import Agent, register

RANDOM_PLAY = 1  # the salt of the yardsticks' keyed draws (with the agent's seed)


def random_legal(agent: Agent, masks: np.ndarray, context) -> np.ndarray:
    """Uniformly random legal actions: keyed by the decisions with a ``context``, else from
    ``agent.rng``."""
    if context is None:
        return uniform_legal(masks, agent.rng)
    keys = decision_keys(context.state, context.tables, context.seats,
                         (agent.seed, RANDOM_PLAY))
    return keyed_uniform_legal(masks, keys)


class _Seeded(Agent):
    """An agent of random choices: keyed by the decision given a context, else from a
    generator of its own seed."""

    needs_observation = False

    def __init__(self, seed: int = 0):
        check("seed", seed, whole(0))
        self.seed = seed
        self.rng = np.random.default_rng(seed)


@register("random")
class RandomAgent(_Seeded):
    """Uniformly random legal actions."""

    def act(self, observations, masks, context=None):
        return random_legal(self, masks, context)


@register("passive")
class PassiveAgent(_Seeded):
    """Passes whenever it may; bids the least it can when it must; plays at random. A weak
    yardstick: it never takes a hand it was not forced into."""

    def act(self, observations, masks, context=None):
        actions = random_legal(self, masks, context)
        bids = self.game.actions.contract0 if hasattr(self, "game") else 25
        bidding = masks[:, :bids].any(axis=1)
        if bidding.any():
            m = masks[bidding]
            actions[bidding] = np.where(m[:, 0], 0, np.argmax(m, axis=1))
        return actions
