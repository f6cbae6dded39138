"""Ship weights with the package: `python scripts/ship.py SOURCE NAME --note "..." [--dir D]`.

Copies the checkpoint SOURCE (a policy checkpoint or run folder, or a bid-net checkpoint) to
agents/shipped/weights/NAME.pt (or D/NAME.pt: an experiment's net kept with its figures)
with only what acting needs (the model, its rules and the
config that trained it; no optimizer, snapshot pool or generator states) and its provenance:
SOURCE as given, the commit it was shipped at and the note (where the figures are).
"""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from agents.nets.checkpoint import (CheckpointError, latest_checkpoint, load_checkpoint,
                                    save_checkpoint)
from agents.shipped import WEIGHTS

KEEP = ("kind", "net", "model", "rules", "train_config", "expert", "train", "data", "context",
        "finetune", "finetune_history")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("name", help="the file's name under agents/shipped/weights (no .pt)")
    ap.add_argument("--note", default="", help="where its figures are")
    ap.add_argument("--dir", default=str(WEIGHTS),
                    help="the folder it goes to (default: the package's shipped weights)")
    args = ap.parse_args()
    try:
        src = Path(args.source)
        src = latest_checkpoint(src) if src.is_dir() else src
        data = load_checkpoint(src)
    except (CheckpointError, OSError, ValueError) as e:
        raise SystemExit(f"ship: {e}") from None
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    payload = {k: data[k] for k in KEEP if k in data}
    payload["provenance"] = {"source": args.source, "checkpoint": src.name, "commit": commit,
                             "note": args.note}
    out = save_checkpoint(Path(args.dir) / f"{args.name}.pt", payload)
    print(f"{out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}: "
          f"{out.stat().st_size / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
