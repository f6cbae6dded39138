"""The one stepping driver: ask each table's agent for the seat to move, then step the batch.

``act_rows`` asks one agent at some tables of a state, building the observations only when
the agent reads them (``needs_observation``) and giving every agent the ``Context`` (cheap:
the state and the rows; agents that draw at random key their draws by it, and search agents,
``needs_state``, require it); ``choose`` asks several agents, each at the tables it controls;
``play_out`` plays tables to the end of their hands with one agent at every seat. Every agent
that plays (in the arena, behaviour cloning, the bidding lab, search, the terminal game) is
asked through these; PPO's rollout steps its learner, a policy recording log-probabilities
and values rather than an agent, itself.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from texas42_env.actions import NO_ACTION
from texas42_env.core import PLAYING, Game, State
from texas42_env.observation import make_encoder

from agents.base import Agent, Context


def act_rows(game: Game, st: State, agent: Agent, rows: np.ndarray, encoder,
             seats: np.ndarray | None = None, observations: np.ndarray | None = None
             ) -> np.ndarray:
    """``agent``'s actions at tables ``rows`` of ``st`` for ``seats`` (default: the seats to
    move there); ``observations``, when the caller has encoded them already."""
    rows = np.asarray(rows)
    seats = st.to_move[rows] if seats is None else seats
    obs = observations if observations is not None else \
        encoder.encode(st, seats, idx=rows) if agent.needs_observation else None
    return agent.act(obs, st.legal[rows], Context(game, st, rows, seats))


def choose(game: Game, st: State, agents: Sequence[Agent], who: np.ndarray, encoder,
           seats: np.ndarray | None = None) -> np.ndarray:
    """One action per table: table t's from ``agents[who[t]]`` (``NO_ACTION`` where
    ``who[t] < 0``), each agent asked once for all of its tables."""
    seats = st.to_move if seats is None else seats
    actions = np.full(st.batch_size, NO_ACTION, np.int64)
    for k, agent in enumerate(agents):
        rows = np.flatnonzero(who == k)
        if rows.size:
            actions[rows] = act_rows(game, st, agent, rows, encoder, seats[rows])
    return actions


def play_out(game: Game, st: State, agent: Agent, encoder=None,
             until_trick: int | None = None) -> None:
    """Play every table of ``st`` to the end of its hand, ``agent`` at every seat; with
    ``until_trick``, only until ``until_trick`` tricks are done (or the hand ends; a trick
    in progress is always finished)."""
    encoder = encoder if encoder is not None else make_encoder(game)
    n = st.batch_size
    while True:
        playing = st.phase == PLAYING
        if until_trick is not None:
            playing &= (st.trick_no < until_trick) | (st.n_in_trick > 0)
        active = np.flatnonzero(playing)
        if active.size == 0:
            return
        a = act_rows(game, st, agent, active, encoder)
        if active.size < (st.phase == PLAYING).sum():  # some stopped mid-hand: they wait
            sub = st.take(active)
            game.step(sub, a)
            st.put(active, sub)
            continue
        full = np.full(n, NO_ACTION, np.int64)
        full[active] = a
        game.step(st, full)
