"""Run a tournament: `python scripts/tournament.py [key=value ...]` (configs/tournament.yaml).

Writes results.jsonl, ratings.csv, report.md, ratings.png and records/ in the run folder;
rerun with the same `hydra.run.dir=...` to resume after an interrupt.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.tournament import TournamentConfig, TournamentError, run_tournament  # noqa: E402


@hydra.main(config_path="../configs", config_name="tournament", version_base=None)
def main(cfg: DictConfig) -> None:
    plain = OmegaConf.to_container(cfg, resolve=True)
    try:
        config = TournamentConfig(**plain)
    except TypeError as e:
        raise SystemExit(f"tournament: bad config: {e}") from None
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    try:
        out = run_tournament(config, run_dir)
    except TournamentError as e:
        raise SystemExit(f"tournament: {e}") from None
    print(f"\nratings (Elo, {config.anchor} = 0, 95% CI):")
    for name, (r, lo, hi) in sorted(out["ratings"].items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:>12} {r:8.0f}  [{lo:.0f}, {hi:.0f}]")
    print(f"report: {run_dir / 'report.md'}")


if __name__ == "__main__":
    main()
