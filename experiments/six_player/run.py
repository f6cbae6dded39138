"""Experiment six_player: the six-player game's agents in duplicate matches.

`python experiments/six_player/run.py [--pairs N] [--seed S]` plays every match of MATCHES on
the same deals twice (teams swapped between seats 0/2/4 and 1/3/5) and writes results.json and
report.md here. The heuristic's settings were chosen on seed 100; the default seed 1 is fresh.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agents import make_agent  # noqa: E402
from agents.arena.duplicate import play_duplicate, summarize  # noqa: E402
from texas42_env.rules import RulesConfig  # noqa: E402

HERE = Path(__file__).resolve().parent
MATCHES = [("passive", "random"), ("heuristic", "random"), ("heuristic", "passive")]


def _rate(x: float) -> str:
    return f"{x:.2f}" if x == x else "n/a (no bids)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = RulesConfig.make("six-player")
    results = {"config": {"ruleset": "six-player", "pairs": args.pairs, "seed": args.seed,
                          "mode": "hands"}, "matches": {}}
    for a, b in MATCHES:
        t0 = time.perf_counter()
        stats = play_duplicate(rules, make_agent(a), make_agent(b, seed=1), args.pairs,
                               seed=args.seed)
        s = summarize(stats)
        s["seconds"] = round(time.perf_counter() - t0, 1)
        results["matches"][f"{a} vs {b}"] = s
        print(f"{a} vs {b}: {s['marks_per_hand']}", flush=True)
    (HERE / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    lines = ["# Six-player duplicate matches", "",
             f"`python experiments/six_player/run.py --pairs {args.pairs} --seed {args.seed}`: "
             f"{args.pairs} deal pairs a match (each deal played twice, the teams swapped "
             "between seats 0/2/4 and 1/3/5), one hand a deal, seed "
             f"{args.seed} (the heuristic's bid margin was chosen on seed 100).", "",
             "| match | marks/hand (A-B) [95% CI] | A made | B made | A bid |",
             "|---|---|---|---|---|"]
    for name, s in results["matches"].items():
        m, lo, hi = s["marks_per_hand"]
        lines.append(f"| {name} | {m:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                     f"{_rate(s['a_made_rate'][0])} | {_rate(s['b_made_rate'][0])} | "
                     f"{s['a_bid_rate'][0]:.3f} |")
    lines += ["", "Random bids almost every hand (a random action among many bids) and is set "
              "nearly always; passive never bids unless forced.", "",
              "Not yet here (issue 16): PIMC for the six-player game (the solver does not "
              "search it yet) and a learned agent that beats the heuristic.", ""]
    (HERE / "report.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
