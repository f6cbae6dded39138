"""Regret by decision: how much an agent's play gives away, position by position, against a
reference search's move values (the experiments ``strength/regret.py`` and
``learning/diagnosis.py`` are built on it).

``positions`` makes held-out play decisions with a choice (hands of their own games bid and
played by the heuristic at every seat, every ``EVERY``-th decision kept as a one-table
state); ``picks`` is the tile an agent plays in each; ``mean_ci`` a mean with its 95%
interval; ``start`` the command line the experiments share (``--positions``, ``--seed``,
``--agents NAME=SPEC ...``) and their results file.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from texas42_env.actions import NO_ACTION
from texas42_env.core import HAND_OVER, PLAYING, Game
from texas42_env.observation import make_encoder

from agents.base import make_agent, parse_spec
from agents.driver import act_rows

FIRST_GAME = 7 << 40  # their own games: no arena, training or label deals
EVERY = 3  # keep every third play decision with a choice (spread over the hand)
REFERENCE = {"name": "pimc", "n_worlds": 256, "seed": 9}


def positions(game: Game, n: int, seed: int) -> list:
    """``n`` one-table states at play decisions with a choice (see the module)."""
    enc = make_encoder(game)
    h = make_agent("heuristic").setup(game)
    out, seen, block = [], 0, 0
    while len(out) < n:
        st = game.reset(64, seed=seed, game_ids=FIRST_GAME + block * 64 + np.arange(64))
        block += 1
        while (st.phase < HAND_OVER).any() and len(out) < n:
            rows = np.flatnonzero(st.phase < HAND_OVER)
            for t in rows:
                if st.phase[t] == PLAYING and st.legal[t, game.actions.play0:].sum() >= 2:
                    if seen % EVERY == 0:
                        out.append(st.take([t]))
                    seen += 1
            a = np.full(64, NO_ACTION, np.int64)
            a[rows] = act_rows(game, st, h, rows, enc)
            game.step(st, a)
    return out[:n]


def picks(game: Game, states: list, spec) -> np.ndarray:
    """The tile (id) the agent of ``spec`` plays in each one-table position."""
    agent = make_agent(parse_spec(spec) if isinstance(spec, str) else spec).setup(game)
    enc = make_encoder(game)
    return np.array([int(act_rows(game, st, agent, np.array([0]), enc)[0])
                     - game.actions.play0 for st in states])


def mean_ci(x: np.ndarray) -> list[float]:
    """[mean, low, high]: the mean and its 95% normal interval (all the mean below 2 values)."""
    if x.size < 2:
        return [float(x.mean()) if x.size else float("nan")] * 3
    m, se = float(x.mean()), float(x.std(ddof=1) / np.sqrt(x.size))
    return [m, m - 1.96 * se, m + 1.96 * se]


def start(doc: str, here: Path, name: str, default_agents: dict[str, str]):
    """The command line of the regret experiments: (args, agents, game,
    states, results, key): the held-out positions of ``--positions`` and ``--seed``, the
    agents named (``--agents NAME=SPEC ...``, default ``default_agents``) and the results so far in
    ``here/NAME.json`` with this run's block (``key``) made."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--agents", nargs="*", default=None,
                    help="NAME=SPEC pairs (default: the module's AGENTS)")
    args = ap.parse_args()
    agents = dict(default_agents) if not args.agents else \
        {k: v for k, _, v in (a.partition("=") for a in args.agents)}
    game = Game()
    states = positions(game, args.positions, args.seed)
    out = here / f"{name}.json"
    results = json.loads(out.read_text()) if out.exists() else {}
    key = f"seed{args.seed}_{args.positions}"
    results.setdefault(key, {"reference": REFERENCE, "positions": args.positions,
                             "seed": args.seed, "agents": {}})
    return args, agents, game, states, results, key


__all__ = ["EVERY", "FIRST_GAME", "REFERENCE", "mean_ci", "picks", "positions", "start"]
