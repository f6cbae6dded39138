"""The figures of experiment strength: `python experiments/strength/summary.py`.

Reads every tournament folder here (its blocks.jsonl: finished and unfinished matches alike;
results.jsonl for a match played as one task)
and writes figures.md: each match as side B minus side A is turned into "the new agent minus
the baseline" (the second agent of each row below), with its deal pairs, marks per hand
(95% bootstrap CI over deal pairs), made rates and, in games mode, games won.
"""

from __future__ import annotations

import json
from pathlib import Path

from agents.arena.duplicate import PairStats, summarize

HERE = Path(__file__).resolve().parent
FOLDERS = ("search", "learned", "champion_dev", "champion_points", "champion_thumb",
           "champion", "champion_games", "specials_hands", "specials_games", "repriced_dev",
           "round_robin")
# each folder's references, the first that a match holds: its row is the other minus it
REFERENCES = {"search": ("pimc16",), "learned": ("pimc16_play", "heuristic", "learned_play"),
              "specials_hands": ("thumb",), "specials_games": ("thumb",),
              "repriced_dev": ("learned",),
              "round_robin": ("random", "heuristic", "pimc", "search", "learned")}


def matches(folder: Path) -> list[tuple[str, str, str, dict]]:
    """(a, b, mode, summary) of every match with blocks in ``folder``, in first-seen order."""
    parts: dict[tuple, list] = {}
    blocks = folder / "blocks.jsonl"
    for line in (blocks.read_text() if blocks.exists() else "").splitlines():
        if line.strip():
            row = json.loads(line)
            m = row["key"]["match"]
            parts.setdefault((m["a"], m["b"], m["mode"]), []).append(
                PairStats.from_dict(row["stats"]))
    for line in (folder / "results.jsonl").read_text().splitlines():
        if line.strip():  # a match played as one task has no blocks
            row = json.loads(line)
            k = row["key"]
            key = (k["a"], k["b"], k["mode"])
            if key not in parts:
                parts[key] = [PairStats.from_dict(row["stats"])]
    return [(a, b, mode, summarize(PairStats.concat(v), mode))
            for (a, b, mode), v in parts.items()]


def _flip(x: list[float]) -> list[float]:
    return [-x[0], -x[2], -x[1]]


def main() -> None:
    lines = ["# Experiment strength: figures", "",
             "Written by `python experiments/strength/summary.py` from each folder's "
             "blocks.jsonl (a match still being played shows the pairs done so far). Each row "
             "is the new agent minus the reference (the first named), marks per hand with "
             "95% bootstrap CIs over deal pairs.", ""]
    for name in FOLDERS:
        folder = HERE / name
        if not any((folder / f).exists() for f in ("blocks.jsonl", "results.jsonl")):
            continue
        lines += [f"## {name}", "", "| new - reference | mode | deal pairs | marks/hand "
                  "[95% CI] | made: new / reference | games won by the new |",
                  "|---|---|---|---|---|---|"]
        for a, b, mode, s in matches(folder):
            refs = REFERENCES.get(name, ("heuristic",))
            ref_of = next(r for r in refs if r in (a, b))
            flip = b == ref_of  # the row is a - b as played
            new, ref = (a, b) if flip else (b, a)
            m = s["marks_per_hand"] if flip else _flip(s["marks_per_hand"])
            made_new = s["a_made_rate" if flip else "b_made_rate"][0]
            made_ref = s["b_made_rate" if flip else "a_made_rate"][0]
            games = ""
            if mode == "games":
                w = s["a_win_rate"] if flip else [1 - s["a_win_rate"][0], 1 - s["a_win_rate"][2],
                                                  1 - s["a_win_rate"][1]]
                games = f"{w[0]:.3f} [{w[1]:.3f}, {w[2]:.3f}]"
            lines.append(f"| {new} - {ref} | {mode} | {s['pairs']} | {m[0]:+.3f} [{m[1]:+.3f}, "
                         f"{m[2]:+.3f}] | {made_new:.3f} / {made_ref:.3f} | {games} |")
        lines.append("")
    (HERE / "figures.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
