"""Agents: anything mapping observations and masks to actions (random, heuristic, search,
learned), the duplicate arena and ratings."""

from .base import REGISTRY, Agent, RandomAgent, make_agent, register

__all__ = ["Agent", "RandomAgent", "REGISTRY", "make_agent", "register"]
