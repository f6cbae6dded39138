"""Experiment strength, part 5: points lost a decision against a PIMC-256 reference.

`python experiments/strength/regret.py [--positions N] [--seed S] [--agents NAME=SPEC ...]`

Held-out positions: hands of their own games (seed ``--seed``) bid and played by the
heuristic at every seat; every ``EVERY``-th play decision with a choice is kept (as a
one-table state), up to ``--positions``. Each is valued by PIMC with 256 worlds (every legal
tile's value in each world, as the mover's points of 42: ``mover_utility``), and each agent
plays it: its regret is the reference's best average minus the average of its pick (0 when
it picks a best move), its agreement the share of picks that are best. The reference values
are kept in partial/regret_reference_seed{S}_{N}.npz, so a rerun only plays the agents.
Writes regret.json and regret.md here. The positions, the picks and the command line are
``agents.arena.regret``'s.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from agents.arena.regret import REFERENCE, mean_ci, picks, start
from agents.base import make_agent
from agents.baselines.pimc import mover_utility
from agents.runs import write_npz
from texas42_env.core import Game

HERE = Path(__file__).resolve().parent
AGENTS = {
    "heuristic": "heuristic",
    "pimc16": {"name": "pimc", "n_worlds": 16},
    "fit16": {"name": "pimc", "n_worlds": 16, "bid_model": "heuristic"},
    "honest16": {"name": "pimc", "n_worlds": 16, "exact_tricks": 0},
    "learned_play": {"name": "neural", "path": "agents/shipped/weights/play-standard.pt"},
}


def reference(game: Game, states: list, path: Path) -> np.ndarray:
    """float64 [n, 28]: each legal tile's average value to the mover over the reference's
    worlds (NaN where not legal), from ``path`` when it is there."""
    if path.exists():
        with np.load(path) as z:
            return z["values"]
    ref = make_agent(REFERENCE).setup(game)
    values = np.full((len(states), 28), np.nan)
    t0 = time.perf_counter()
    for i, st in enumerate(states):
        s = int(st.to_move[0])
        legal, v, mult = ref.move_values(game, st, 0, s, st.legal[0])
        u = mover_utility(v, int(st.contract[0]), s, int(st.bidder[0]), game.n_tricks)
        values[i, legal] = (mult @ u) / mult.sum()
        if (i + 1) % 100 == 0:
            print(f"  reference: {i + 1}/{len(states)} ({time.perf_counter() - t0:.0f} s)",
                  flush=True)
    path.parent.mkdir(exist_ok=True)
    write_npz(path, {"values": values})
    return values


def judge(game: Game, states: list, values: np.ndarray, spec) -> dict:
    t0 = time.perf_counter()
    played = picks(game, states, spec)
    took = time.perf_counter() - t0
    lost = np.nanmax(values, axis=1) - values[np.arange(len(states)), played]
    m, lo, hi = mean_ci(lost)
    return {"regret": m, "ci": [lo, hi], "agreement": float((lost <= 1e-9).mean()),
            "seconds": round(took, 1)}


def main() -> None:
    args, agents, game, states, results, key = start(__doc__, HERE, "regret", AGENTS)
    out = HERE / "regret.json"
    values = reference(game, states, HERE / "partial" /
                       f"regret_reference_seed{args.seed}_{args.positions}.npz")
    for name, spec in agents.items():
        r = judge(game, states, values, spec)
        r["spec"] = spec
        results[key]["agents"][name] = r
        print(f"{name}: regret {r['regret']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] points "
              f"a decision, agreement {r['agreement']:.3f}", flush=True)
        out.write_text(json.dumps(results, indent=1) + "\n")
    lines = ["# Regret against a PIMC-256 reference", "",
             "`python experiments/strength/regret.py` (see its docstring): held-out play "
             "decisions with a choice from heuristic games, each valued by PIMC with 256 "
             "worlds; an agent's regret is the reference's best average value minus that of "
             "its pick (points of 42 to the mover; 95% CI over positions).", ""]
    for key, block in results.items():
        lines += [f"## {block['positions']} positions, seed {block['seed']}", "",
                  "| agent | regret (points a decision) [95% CI] | picks a best move | "
                  "seconds |", "|---|---|---|---|"]
        for name, r in sorted(block["agents"].items(), key=lambda kv: kv[1]["regret"]):
            lines.append(f"| {name} | {r['regret']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] "
                         f"| {r['agreement']:.3f} | {r['seconds']:.0f} |")
        lines.append("")
    (HERE / "regret.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
