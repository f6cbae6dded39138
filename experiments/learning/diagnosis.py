"""Experiment learning, part 1: where the searchless players lose, decision by decision.

`python experiments/learning/diagnosis.py [--positions N] [--seed S] [--agents NAME=SPEC ...]`

The positions of ``agents.arena.regret``, as ``experiments/strength/regret.py``'s (held-out
hands bid and played by the heuristic at every seat; every third play decision with a
choice), each valued by PIMC with 256 worlds in two measures: the mover's points of 42 (as
regret.py) and the chance that the hand goes the mover's way (its team makes the bid, or
sets it), the measure the marks reward pays, times the bid's marks. Each agent plays every
position; its regret in a measure is the reference's best minus its pick's. The regrets are
split by what the decision is: a lead or a follow, by the bidding team (offence) or the
other (defence), in nello, early (tricks 1-3) or late. Reference values are kept in partial/
(a rerun only plays the agents). Writes diagnosis.json and diagnosis.md here.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from agents.arena.regret import REFERENCE, mean_ci, picks, start
from agents.base import make_agent
from agents.baselines.pimc import good_at, mover_utility
from agents.runs import write_npz
from texas42_env.core import Game
from texas42_env.rules import NELLO

HERE = Path(__file__).resolve().parent
AGENTS = {
    "heuristic": "heuristic",
    "pimc16": {"name": "pimc", "n_worlds": 16},
    "expert_play": {"name": "neural", "path": "agents/shipped/weights/play-standard.pt"},
}


def categories(game: Game, st) -> dict[str, bool]:
    """What a one-table position's decision is (see the module)."""
    mover, bidder = int(st.to_move[0]), int(st.bidder[0])
    return {"lead": int(st.n_in_trick[0]) == 0, "follow": int(st.n_in_trick[0]) > 0,
            "offence": (mover & 1) == (bidder & 1), "defence": (mover & 1) != (bidder & 1),
            "nello": int(st.contract[0]) == NELLO, "early": int(st.trick_no[0]) < 3,
            "late": int(st.trick_no[0]) >= 3}


def reference(game: Game, states: list, path: Path) -> dict[str, np.ndarray]:
    """Per position and legal tile (float64 [n, 28], NaN where not legal): the average
    points to the mover (``points``) and the bid's marks times the chance the hand goes the
    mover's way (``marks``) over the reference's worlds; from ``path`` when it is there."""
    if path.exists():
        with np.load(path) as z:
            return {k: z[k] for k in ("points", "marks")}
    ref = make_agent(REFERENCE).setup(game)
    out = {k: np.full((len(states), 28), np.nan) for k in ("points", "marks")}
    t0 = time.perf_counter()
    for i, st in enumerate(states):
        s, bidder, contract = int(st.to_move[0]), int(st.bidder[0]), int(st.contract[0])
        legal, v, mult = ref.move_values(game, st, 0, s, st.legal[0])
        u = mover_utility(v, contract, s, bidder, game.n_tricks)
        good = u >= good_at(contract, int(st.need[0]), (s & 1) == (bidder & 1))
        w = mult / mult.sum()
        out["points"][i, legal] = w @ u
        out["marks"][i, legal] = int(st.bid_marks[0]) * (w @ good)
        if (i + 1) % 100 == 0:
            print(f"  reference: {i + 1}/{len(states)} ({time.perf_counter() - t0:.0f} s)",
                  flush=True)
    path.parent.mkdir(exist_ok=True)
    write_npz(path, out)
    return out


def judge(game: Game, states: list, ref: dict[str, np.ndarray], cats: list[dict],
          spec) -> dict:
    """An agent's regrets in both measures, overall and by category, with 95% CIs."""
    played = picks(game, states, spec)
    rows = np.arange(len(states))
    lost = {k: np.nanmax(v, axis=1) - v[rows, played] for k, v in ref.items()}
    out = {"all": {"n": len(states), **{k: mean_ci(x) for k, x in lost.items()},
                   "best_points": float((lost["points"] <= 1e-9).mean())}}
    for name in cats[0]:
        sel = np.array([c[name] for c in cats])
        out[name] = {"n": int(sel.sum()), **{k: mean_ci(x[sel]) for k, x in lost.items()}}
    return out


def report(results: dict) -> str:
    lines = ["# Where the searchless players lose: regret by decision", "",
             "`python experiments/learning/diagnosis.py` (see its docstring): held-out play "
             "decisions with a choice from heuristic games, valued by PIMC with 256 worlds. "
             "*points*: the mover's points of 42 lost a decision against the reference's best "
             "move; *marks*: the bid's marks times the chance of the hand going the mover's way "
             "lost (what the marks reward pays). Mean [95% CI] over the positions of each kind.",
             ""]
    for block in results.values():
        lines += [f"## {block['positions']} positions, seed {block['seed']}", ""]
        names = list(block["agents"])
        kinds = [k for k, v in next(iter(block["agents"].values())).items()
                 if isinstance(v, dict)]
        for measure in ("marks", "points"):
            lines += [f"### {measure} lost a decision", "",
                      "| kind | n | " + " | ".join(names) + " |",
                      "|---|---|" + "---|" * len(names)]
            for kind in kinds:
                n = block["agents"][names[0]][kind]["n"]
                cells = []
                for name in names:
                    m, lo, hi = block["agents"][name][kind][measure]
                    cells.append(f"{m:.3f} [{lo:.3f}, {hi:.3f}]" if n > 1 else "-")
                lines.append(f"| {kind} | {n} | " + " | ".join(cells) + " |")
            lines.append("")
    return "\n".join(lines)


def main() -> None:
    args, agents, game, states, results, key = start(__doc__, HERE, "diagnosis", AGENTS)
    out = HERE / "diagnosis.json"
    cats = [categories(game, st) for st in states]
    ref = reference(game, states, HERE / "partial" /
                    f"diagnosis_reference_seed{args.seed}_{args.positions}.npz")
    for name, spec in agents.items():
        t0 = time.perf_counter()
        r = judge(game, states, ref, cats, spec)
        r["spec"], r["seconds"] = spec, round(time.perf_counter() - t0, 1)
        results[key]["agents"][name] = r
        a = r["all"]
        print(f"{name}: marks {a['marks'][0]:.4f} [{a['marks'][1]:.4f}, {a['marks'][2]:.4f}], "
              f"points {a['points'][0]:.3f} a decision", flush=True)
        out.write_text(json.dumps(results, indent=1) + "\n")
    (HERE / "diagnosis.md").write_text(report(results))


if __name__ == "__main__":
    main()
