"""Turn a training run folder into an experiment folder: its config, curves and an arena report.

Run: `python experiments/training_report.py RUN_FOLDER OUT_FOLDER [--pairs 4000] [--seed 777]
[--command "..."]`. Copies config.json, eval.jsonl and curves.png from the run, plays the
run's newest checkpoint in duplicate matches against random and the heuristic on deals the
training never saw (their own seed), and writes results.json and report.md.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from agents.arena.duplicate import play_duplicate, summarize
from agents.nets.checkpoint import latest_checkpoint, load_checkpoint
from agents.baselines.neural import NeuralAgent
from agents.runs import atomic_write, read_lines, write_json
from texas42_env.rules import RulesConfig


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("run")
    p.add_argument("out")
    p.add_argument("--pairs", type=int, default=4000)
    p.add_argument("--seed", type=int, default=777)
    p.add_argument("--command", default="", help="the command that made the run")
    p.add_argument("--machine", default="2 CPU cores", help="where the run ran, for the report")
    args = p.parse_args()
    run, out = Path(args.run), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "eval.jsonl", "curves.png"):
        if (run / name).is_file():
            shutil.copy(run / name, out / name)
    ckpt = latest_checkpoint(run)
    data = load_checkpoint(ckpt, require=("model", "step"))
    step = data["step"]
    metrics = read_lines(run / "metrics.jsonl")
    train_s = sum(m["perf/rollout_s"] + m["perf/learn_s"] for m in metrics)
    sps = step["samples"] / train_s if train_s else float("nan")
    agent = NeuralAgent(path=str(ckpt))
    agent.name = "learned"
    saved = data.get("rules", {})
    rules = RulesConfig.from_options(saved.get("ruleset", "standard"), saved.get("options"))
    results = {}
    for opp in ("random", "heuristic"):
        t0 = time.time()
        s = summarize(play_duplicate(rules, agent, opp, args.pairs, seed=args.seed, chunk=2048),
                      n_boot=1000, seed=args.seed)
        s["seconds"] = round(time.time() - t0, 1)
        results[f"learned vs {opp}"] = s
        print(f"learned vs {opp}: {s['marks_per_hand']}", flush=True)
    write_json(out / "results.json",
               {"checkpoint": ckpt.name, "step": step, "pairs": args.pairs, "seed": args.seed,
                "ppo_seconds": round(train_s, 1), "ppo_samples_per_s": round(sps),
                "matches": results})
    evals = read_lines(run / "eval.jsonl")
    lines = [f"# Training run: {out.name}", ""]
    if args.command:
        lines += ["```bash", args.command, "```", ""]
    lines += [f"{step['update']} PPO updates, {step['samples']:,} samples, {step['hands']:,} "
              f"hands; rollout + learning {train_s / 60:.1f} min at {sps:,.0f} samples/s "
              f"({args.machine}); config in config.json, curves in "
              f"curves.png.", "",
              f"## Arena: the final checkpoint ({ckpt.name}), {args.pairs} duplicate deal "
              f"pairs, seed {args.seed} (deals training never saw)", "",
              "| match | marks/hand (A-B) [95% CI] | A made | B made | A bid |",
              "|---|---|---|---|---|"]
    for name, s in results.items():
        m, lo, hi = s["marks_per_hand"]
        lines.append(f"| {name} | {m:+.3f} [{lo:+.3f}, {hi:+.3f}] | "
                     f"{s['a_made_rate'][0]:.2f} | {s['b_made_rate'][0]:.2f} | "
                     f"{s['a_bid_rate'][0]:.2f} |")
    lines += ["", "## Evaluations during training (eval.jsonl)", "",
              "| update | vs random | vs heuristic |", "|---|---|---|"]
    for e in evals:
        cells = []
        for opp in ("random", "heuristic"):
            if opp in e:
                m, lo, hi = e[opp]["marks_per_hand"]
                cells.append(f"{m:+.3f} [{lo:+.3f}, {hi:+.3f}]")
            else:
                cells.append("")
        lines.append(f"| {e['update']} | {cells[0]} | {cells[1]} |")
    atomic_write(out / "report.md", "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
