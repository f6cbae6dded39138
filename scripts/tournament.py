"""Run a tournament: `python scripts/tournament.py [key=value ...]` (configs/tournament.yaml).

Writes results.jsonl, ratings.csv, report.md, ratings.png and records/ in the run folder;
rerun with the same `hydra.run.dir=...` to resume after an interrupt (Ctrl-C stops the
workers at once, keeps every finished match and block, says so and exits 130). Every agent
is built and every value checked before the first match: a bad one stops it with one line
naming the key (`agents.x: unknown agent ...`). `agents` and `rules` take keys of their own without a `+`:
`agents.x=heuristic`, `rules={nello: false}`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from agents.arena.tournament import (TournamentConfig, TournamentInterrupted,
                                     run_tournament, team)
from agents.hydra_apps import hydra_error, one_line, run_app, tidy_run
from texas42_env.rules import ConfigError


OmegaConf.register_new_resolver("team", team, replace=True)  # ${team:${ruleset},a,b}


@hydra.main(config_path="../configs", config_name="tournament", version_base=None)
def main(cfg: DictConfig) -> None:
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    # TournamentError (a bad config, a run folder that cannot be resumed) is a ConfigError
    with tidy_run(run_dir):
        try:
            config = TournamentConfig.from_dict(OmegaConf.to_container(cfg, resolve=True))
            out = run_tournament(config, run_dir)
        except (ConfigError, OmegaConfBaseException) as e:
            raise SystemExit(one_line("tournament", hydra_error(e))) from None
        except TournamentInterrupted as e:  # what is kept and how to resume
            print(f"\n{e}", file=sys.stderr, flush=True)
            raise SystemExit(130) from None
    print(f"\nratings (Elo, {config.anchor} = 0, 95% CI):")
    for name, (r, lo, hi) in sorted(out["ratings"].items(), key=lambda kv: -kv[1][0]):
        print(f"  {name:>12} {r:8.0f}  [{lo:.0f}, {hi:.0f}]")
    print(f"report: {run_dir / 'report.md'}")


if __name__ == "__main__":
    run_app(main, "tournament", open_keys=("agents", "rules"))
