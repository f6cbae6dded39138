"""``NeuralAgent``: a trained bidding and play policy, from a checkpoint or in memory.

``make_agent("neural", path="runs/train/X/checkpoints/ckpt_000100.pt")`` (or the run folder:
its newest checkpoint) plays in the arena, tournaments and the CLI like any agent. By default
it plays the likeliest legal action (``greedy=True``); ``greedy=False`` samples from the
policy: given the table's ``Context`` (as the driver gives it) by inverse CDF on a keyed draw
(``texas42_env.sampling``: fixed by the seed and the decision, whatever the batch layout),
without one (``act_one``) from its own seeded generator.
"""

from __future__ import annotations

import numpy as np
import torch

from texas42_env.core import Game
from texas42_env.observation import make_encoder
from texas42_env.rules import RulesConfig
from texas42_env.sampling import decision_keys, keyed_random

from agents.base import Agent
from agents.nets.checkpoint import CheckpointError, latest_checkpoint, load_checkpoint
from agents.nets.policy import ModelConfig, Policy

NEURAL_SAMPLE = 2  # the salt of the sampling agent's keyed draws (with its seed)


def policy_from_checkpoint(data: dict, path="checkpoint") -> Policy:
    """The policy a loaded checkpoint holds, with its averaged weights where it has them
    (``algorithm.ema``: what it acts with); ``CheckpointError`` if its weights do not fit."""
    m = data["model"]
    try:
        config = ModelConfig(**m["config"])
        # a move-ranking head's features follow from the rules the net was trained for
        game = Game(RulesConfig.from_options(data["rules"]["ruleset"],
                                             data["rules"].get("options", {}))) \
            if config.ranking else None
        policy = Policy(int(m["obs_size"]), int(m["n_actions"]), int(m["play0"]),
                        config, int(m.get("critic_size", 0)), game)
        policy.load_state_dict(m.get("ema_state_dict") or m["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as e:
        raise CheckpointError(f"{path}: its model does not load: {e}") from None
    policy.eval()
    return policy


class NeuralAgent(Agent):
    """A ``Policy`` (bidding net + play net) acting on observations and masks."""

    def __init__(self, path: str | None = None, policy: Policy | None = None,
                 greedy: bool = True, seed: int = 0, ruleset: str | None = None):
        if (path is None) == (policy is None):
            raise ValueError("NeuralAgent needs a checkpoint path or a policy (one of them)")
        self.path = None
        if path is not None:
            self.path = latest_checkpoint(path)
            data = load_checkpoint(self.path)
            policy = policy_from_checkpoint(data, self.path)
            ruleset = data.get("rules", {}).get("ruleset", ruleset)
        self.policy = policy
        self.ruleset = ruleset
        self.greedy = greedy
        self.seed = seed
        self.generator = torch.Generator().manual_seed(seed)

    def setup(self, game):
        super().setup(game)
        size = make_encoder(game).size
        p = self.policy
        if (p.obs_size, p.n_actions) != (size, game.n_actions):
            where = self.path or "the policy"
            raise ValueError(f"{where} was trained for observations of {p.obs_size} and "
                             f"{p.n_actions} actions; this game ({game.rules.ruleset}) has "
                             f"{size} and {game.n_actions}")
        return self

    def act(self, observations, masks, context=None):
        obs = np.ascontiguousarray(observations, np.float32)
        uniforms = None
        if not self.greedy and context is not None:
            uniforms = keyed_random(decision_keys(context.state, context.tables,
                                                  context.seats, (self.seed, NEURAL_SAMPLE)))
        actions, _, _ = self.policy.act(obs, np.asarray(masks, bool), self.generator,
                                        greedy=self.greedy, uniforms=uniforms)
        return actions


__all__ = ["NeuralAgent", "policy_from_checkpoint"]
