"""Experiment six_player: the six-player game's agents in duplicate matches.

`python experiments/six_player/run.py [--pairs N] [--pimc-pairs N] [--learned RUN] [--seed S]`
plays every match of MATCHES on the same deals twice (teams swapped between seats 0/2/4 and
1/3/5) and writes results.json and report.md here. Each match is played in blocks of
``BLOCK`` deal pairs kept in partial/ as they finish, so a killed run resumes where it
stopped (same seed and counts); results.json is rewritten after every match. The
heuristic's settings were chosen on seed 100, PIMC's (16 worlds, exact from 5 tricks left)
on speed and a 60-pair look at seed 200; the default seed 1 is fresh.
"""

from __future__ import annotations

import argparse
import inspect
import json
import time
from pathlib import Path

from agents.arena.duplicate import PairStats, play_duplicate, summarize
from agents.base import REGISTRY, make_agent, parse_spec
from agents.runs import atomic_write
from texas42_env.rules import RulesConfig

HERE = Path(__file__).resolve().parent
BLOCK = 100  # deal pairs a saved block of a search match (the others are one block)
MATCHES = [("passive", "random"), ("heuristic", "random"), ("heuristic", "passive"),
           ("pimc", "heuristic")]


def _rate(x: float) -> str:
    return f"{x:.2f}" if x == x else "n/a (no bids)"


def _agent(text: str, seed: int):
    """The agent of a command-line spec, seeded ``seed`` where it takes a seed and the spec
    names none (side B is seeded 1, so two random sides draw differently)."""
    spec = parse_spec(text)
    spec = {"name": spec} if isinstance(spec, str) else spec
    if "seed" not in spec and "seed" in inspect.signature(REGISTRY[spec["name"]]).parameters:
        spec["seed"] = seed
    return make_agent(spec)


def play_match(rules, a: str, b: str, pairs: int, seed: int, tag: str) -> tuple[dict, float]:
    """The match's summary and seconds, from saved blocks where they exist."""
    folder = HERE / "partial"
    folder.mkdir(exist_ok=True)
    parts, seconds = [], 0.0
    block = BLOCK if a.startswith("pimc") else pairs
    for lo in range(0, pairs, block):
        n = min(block, pairs - lo)
        path = folder / f"{tag}_seed{seed}_{lo}_{n}.json"
        if path.exists():
            saved = json.loads(path.read_text())
            if saved["a"] == a and saved["b"] == b:
                parts.append(PairStats.from_dict(saved["stats"]))
                seconds += saved["seconds"]
                continue
        t0 = time.perf_counter()
        stats = play_duplicate(rules, _agent(a, 0), _agent(b, 1), n, seed=seed, first_deal=lo,
                               chunk=n)
        took = time.perf_counter() - t0
        atomic_write(path, json.dumps({"a": a, "b": b, "seconds": took,
                                       "stats": stats.to_dict()}))
        parts.append(stats)
        seconds += took
        print(f"  {a} vs {b}: {lo + n}/{pairs} pairs, {seconds:.0f} s", flush=True)
    return summarize(PairStats.concat(parts)), seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=4000)
    ap.add_argument("--pimc-pairs", type=int, default=1000,
                    help="deal pairs of the PIMC match (about an hour on one core here)")
    ap.add_argument("--learned", default=None,
                    help="a six-player training run (or checkpoint): adds learned vs heuristic")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rules = RulesConfig.make("six-player")
    matches = list(MATCHES)
    if args.learned:
        matches.append((f"neural:path={args.learned}", "heuristic"))
    out = HERE / "results.json"
    results = {"config": {"ruleset": "six-player", "pairs": args.pairs,
                          "pimc_pairs": args.pimc_pairs, "seed": args.seed, "mode": "hands",
                          "learned": args.learned}, "matches": {}}
    for a, b in matches:
        pairs = args.pimc_pairs if a.startswith("pimc") else args.pairs
        tag = "learned" if a.startswith("neural") else a
        s, seconds = play_match(rules, a, b, pairs, args.seed, f"{tag}_{b}")
        s["seconds"] = round(seconds, 1)
        name = f"{'learned' if tag == 'learned' else a} vs {b}"
        results["matches"][name] = s
        print(f"{name}: {s['marks_per_hand']}", flush=True)
        out.write_text(json.dumps(results, indent=1) + "\n")
    write_report(results)


def write_report(results: dict) -> None:
    c = results["config"]
    lines = ["# Six-player duplicate matches", "",
             f"`python experiments/six_player/run.py --pairs {c['pairs']} --pimc-pairs "
             f"{c['pimc_pairs']} --seed {c['seed']}"
             + (f" --learned {c['learned']}" if c.get("learned") else "") + "`: "
             "each deal played twice, the teams swapped between seats 0/2/4 and 1/3/5, one "
             f"hand a deal, seed {c['seed']} (the heuristic's bid margin was chosen on seed "
             "100, PIMC's settings on speed and seed 200).", "",
             "| match | deal pairs | marks/hand (A-B) [95% CI] | A made | B made | A bid | "
             "seconds |", "|---|---|---|---|---|---|---|"]
    for name, s in results["matches"].items():
        m, lo, hi = s["marks_per_hand"]
        lines.append(f"| {name} | {s['pairs']} | {m:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                     f"{_rate(s['a_made_rate'][0])} | {_rate(s['b_made_rate'][0])} | "
                     f"{s['a_bid_rate'][0]:.3f} | {s['seconds']:.0f} |")
    lines += ["", "Random bids almost every hand (a random action among many bids) and is set "
              "nearly always; passive never bids unless forced. PIMC bids, declares and "
              "exchanges as the heuristic, so its match compares card play under identical "
              "bidding: 16 worlds a decision, each legal play rolled out by the heuristic to "
              "5 tricks left and solved exactly from there (from then on every world is "
              "solved).", ""]
    if c.get("learned"):
        lines += ["The learned agent is the last checkpoint (update 1500) of a run of "
                  "`configs/six_long.yaml` (`python scripts/train.py --config-name six_long`): "
                  "its config, evaluations during training (500 pairs each, seed 12345) and "
                  "curves are in `learned/`; it was not chosen among checkpoints.", ""]
    (HERE / "report.md").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
