"""Agents: anything mapping observations and masks to actions, behind one interface
(``agents.base``), one registry of names and spec strings and one stepping driver
(``agents.driver``). Folders by kind: ``baselines`` (random, passive, heuristic, PIMC,
neural), ``search`` (the exact solver), ``nets`` (networks, checkpoints), ``bidding`` (the
bidding lab), ``training`` (self-play), ``arena`` (duplicate matches, tournaments, ratings),
``shipped`` (``champion`` and ``learned``, their weights in the package), ``ui`` (the
terminal game, show, demo); ``cli`` is the ``texas42`` command and ``bench`` its
benchmarks. Modules that moved still import by their old names (``agents.moved``). See
docs/architecture.md."""

from agents import moved

moved.install()

from agents.base import REGISTRY, Agent, Context, make_agent, parse_spec, register, spec_text
from agents.baselines import HeuristicAgent, PassiveAgent, PimcAgent, RandomAgent
from agents.bidding import LearnedBidder, SimBidder
from agents.shipped import ChampionAgent, LearnedAgent

__all__ = ["Agent", "ChampionAgent", "Context", "HeuristicAgent", "LearnedAgent", "LearnedBidder", "PassiveAgent", "PimcAgent",
           "RandomAgent", "SimBidder", "REGISTRY", "make_agent", "parse_spec", "register",
           "spec_text"]
