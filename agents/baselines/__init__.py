"""The baseline agents: ``random`` and ``passive`` (yardsticks), ``heuristic`` (rules of
thumb), ``pimc`` (search over sampled worlds), ``compose`` (one agent's bidding, another's
play) and ``neural`` (a trained policy; torch is
imported only when one is built)."""

from agents.base import REGISTRY
from agents.baselines.compose import ComposeAgent
from agents.baselines.heuristic import HeuristicAgent
from agents.baselines.pimc import PimcAgent
from agents.baselines.simple import PassiveAgent, RandomAgent


def _neural(**kwargs):
    """``make_agent("neural", path=CHECKPOINT_OR_RUN)``."""
    from agents.baselines.neural import NeuralAgent  # torch: only when a policy is built

    return NeuralAgent(**kwargs)


_neural.rulesets = ("standard", "six-player")
REGISTRY["neural"] = _neural

__all__ = ["ComposeAgent", "HeuristicAgent", "PassiveAgent", "PimcAgent", "RandomAgent"]
