"""Agents: anything mapping observations and masks to actions (random, heuristic, search,
learned), the duplicate arena and ratings."""

from .base import REGISTRY, Agent, RandomAgent, make_agent, register
from .heuristic import HeuristicAgent  # registers "heuristic"

__all__ = ["Agent", "HeuristicAgent", "RandomAgent", "REGISTRY", "make_agent", "register"]
