"""The yardsticks: ``random`` (uniformly random legal actions) and ``passive`` (passes
whenever it may)."""

from __future__ import annotations

import numpy as np

from texas42_env.sampling import uniform_legal

from agents.base import Agent, register


@register("random")
class RandomAgent(Agent):
    """Uniformly random legal actions."""

    needs_observation = False

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observations, masks, context=None):
        return uniform_legal(masks, self.rng)


@register("passive")
class PassiveAgent(Agent):
    """Passes whenever it may; bids the least it can when it must; plays at random. A weak
    yardstick: it never takes a hand it was not forced into."""

    needs_observation = False

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observations, masks, context=None):
        actions = uniform_legal(masks, self.rng)
        bids = self.game.actions.contract0 if hasattr(self, "game") else 25
        bidding = masks[:, :bids].any(axis=1)
        if bidding.any():
            m = masks[bidding]
            actions[bidding] = np.where(m[:, 0], 0, np.argmax(m, axis=1))
        return actions
