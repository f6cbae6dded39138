"""Agents: anything mapping observations and masks to actions (random, heuristic, search, learned)."""
