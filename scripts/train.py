"""Self-play training: `python scripts/train.py [key=value ...]` (configs/train.yaml).

Writes checkpoints/, tb/ (TensorBoard), eval.jsonl and config.json in the run folder;
`resume=RUN_FOLDER` continues a run exactly. A bad value, an unknown key or a checkpoint that
does not load stops it before training with one line naming the key (`rules` takes any
rules.md option: `rules={nello: false}` or `rules.nello=false`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.nets.checkpoint import CheckpointError  # noqa: E402
from agents.training.app import TrainConfig, run_training  # noqa: E402
from agents.apps import hydra_error, one_line, run_app  # noqa: E402
from texas42_env.rules import ConfigError  # noqa: E402


@hydra.main(config_path="../configs", config_name="train", version_base=None)
def main(cfg: DictConfig) -> None:
    try:
        config = TrainConfig.from_dict(OmegaConf.to_container(cfg, resolve=True))
        hc = HydraConfig.get()
        given = {o.split("=", 1)[0].lstrip("+~").split(".", 1)[0] for o in hc.overrides.task}
        out = run_training(config, Path(hc.runtime.output_dir), given=given)
    except (ConfigError, CheckpointError, OmegaConfBaseException) as e:
        raise SystemExit(one_line("train", hydra_error(e) or e)) from None
    print(f"\n{out['update']} updates, {out['samples']} samples, "
          f"{out['samples_per_s']:.0f} samples/s; checkpoint: {out['checkpoint']}")


if __name__ == "__main__":
    run_app(main, "train", open_keys=("rules",))
