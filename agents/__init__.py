"""Agents: anything mapping observations and masks to actions (random, heuristic, search,
learned), the duplicate arena and ratings."""

from .base import REGISTRY, Agent, RandomAgent, make_agent, register
from .heuristic import HeuristicAgent  # registers "heuristic"
from .pimc import PimcAgent  # registers "pimc" (numba is imported when it first searches)
from .bidding import SimBidder  # registers "simbid"
from .bidnet import LearnedBidder  # registers "bidnet" (torch only when a net is loaded)


def _neural(**kwargs):
    """``make_agent("neural", path=CHECKPOINT_OR_RUN)``: torch is imported only when used."""
    from .neural import NeuralAgent

    return NeuralAgent(**kwargs)


REGISTRY["neural"] = _neural

__all__ = ["Agent", "HeuristicAgent", "LearnedBidder", "PimcAgent", "RandomAgent", "SimBidder", "REGISTRY", "make_agent", "register"]
