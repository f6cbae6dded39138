"""Self-play training: `python scripts/train.py [key=value ...]` (configs/train.yaml).

Writes checkpoints/, tb/ (TensorBoard), eval.jsonl, metrics.jsonl, curves.png and config.json
in the run folder; `resume=RUN_FOLDER` continues a run exactly, in its own folder (a key that
cannot change on resume, given with another value than the run's, is refused). A bad value,
an unknown key or a checkpoint that does not load stops it before training with one line
naming the key (`rules` takes any rules.md option: `rules={nello: false}` or
`rules.nello=false`). Ctrl-C stops after the update in progress, saves it and ends with one
line saying how to continue (exit status 130). The folder Hydra makes for a command that
trains nothing in it (a resume, a refused start) is removed again.
"""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from agents.nets.checkpoint import CheckpointError
from agents.scale.backend import BackendError
from agents.training.ppo_run import TrainConfig, run_training
from agents.hydra_apps import drop_if_unused, hydra_error, one_line, run_app
from texas42_env.rules import ConfigError

CONFIGS = Path(__file__).resolve().parents[1] / "configs"


def typed_keys(overrides: list[str]) -> set[str]:
    """The keys the command line sets, dotted (``algorithm.lr=0.1``: ``algorithm.lr``;
    ``model=large``: ``model``); a group option that sets keys at the top
    (``env=six-player``) stands for each key its file sets (``ruleset``, ``eval.against``)."""
    keys = set()
    own = {f.name for f in fields(TrainConfig)}
    for override in overrides:
        key, _, value = override.partition("=")
        key = key.lstrip("+~")
        option = CONFIGS / key / f"{value}.yaml"
        if key not in own and option.is_file():
            keys |= _leaves(OmegaConf.to_container(OmegaConf.load(option)) or {}, "")
        else:
            keys.add(key)
    return keys


def _leaves(d: dict, prefix: str) -> set[str]:
    out = set()
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out |= _leaves(v, f"{prefix}{k}.")
        else:
            out.add(f"{prefix}{k}")
    return out


@hydra.main(config_path="../configs", config_name="train", version_base=None)
def main(cfg: DictConfig) -> None:
    hc = HydraConfig.get()
    folder = Path(hc.runtime.output_dir)
    try:
        config = TrainConfig.from_dict(OmegaConf.to_container(cfg, resolve=True))
        out = run_training(config, folder, given=typed_keys(list(hc.overrides.task)))
    except (ConfigError, CheckpointError, BackendError, OmegaConfBaseException) as e:
        raise SystemExit(one_line("train", hydra_error(e) or e)) from None
    except KeyboardInterrupt as e:  # run_training's says what it saved
        print(one_line("train", e) if str(e) else "train: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        drop_if_unused(folder)
    print(f"\n{out['update']} updates, {out['samples']} samples, "
          f"{out['samples_per_s']:.0f} samples/s; checkpoint: {out['checkpoint']}")


if __name__ == "__main__":
    run_app(main, "train", open_keys=("rules",))
