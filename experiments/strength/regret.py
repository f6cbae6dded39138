"""Experiment strength, part 5: points lost a decision against a PIMC-256 reference.

`python experiments/strength/regret.py [--positions N] [--seed S] [--agents NAME=SPEC ...]`

Held-out positions: hands of their own games (seed ``--seed``) bid and played by the
heuristic at every seat; every ``EVERY``-th play decision with a choice is kept (as a
one-table state), up to ``--positions``. Each is valued by PIMC with 256 worlds (every legal
tile's value in each world, as the mover's points of 42: ``mover_utility``), and each agent
plays it: its regret is the reference's best average minus the average of its pick (0 when
it picks a best move), its agreement the share of picks that are best. The reference values
are kept in partial/regret_reference_seed{S}_{N}.npz, so a rerun only plays the agents.
Writes regret.json and regret.md here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agents.base import make_agent, parse_spec  # noqa: E402
from agents.baselines.pimc import mover_utility  # noqa: E402
from agents.driver import act_rows  # noqa: E402
from agents.runs import write_npz  # noqa: E402
from texas42_env.actions import NO_ACTION  # noqa: E402
from texas42_env.core import HAND_OVER, PLAYING, Game  # noqa: E402
from texas42_env.observation import make_encoder  # noqa: E402

HERE = Path(__file__).resolve().parent
FIRST_GAME = 7 << 40  # their own games: no arena, training or label deals
EVERY = 3  # keep every third play decision with a choice (spread over the hand)
REFERENCE = {"name": "pimc", "n_worlds": 256, "seed": 9}
AGENTS = {
    "heuristic": "heuristic",
    "pimc16": {"name": "pimc", "n_worlds": 16},
    "fit16": {"name": "pimc", "n_worlds": 16, "bid_model": "heuristic"},
    "honest16": {"name": "pimc", "n_worlds": 16, "exact_tricks": 0},
    "learned_play": {"name": "neural", "path": "agents/shipped/weights/play-standard.pt"},
}


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


def judge(game: Game, states: list, values: np.ndarray, spec) -> dict:
    t0 = time.perf_counter()
    played = picks(game, states, spec)
    took = time.perf_counter() - t0
    lost = np.nanmax(values, axis=1) - values[np.arange(len(states)), played]
    m, lo, hi = mean_ci(lost)
    return {"regret": m, "ci": [lo, hi], "agreement": float((lost <= 1e-9).mean()),
            "seconds": round(took, 1)}


def start(doc: str, here: Path, name: str, default_agents: dict[str, str]):
    """The command line of this script and of those built on it: (args, agents, game,
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
