"""Self-play training: `python scripts/train.py [key=value ...]` (configs/train.yaml).

Writes checkpoints/, tb/ (TensorBoard), eval.jsonl and config.json in the run folder;
`resume=RUN_FOLDER` continues a run exactly.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.checkpoint import CheckpointError  # noqa: E402
from agents.training import TrainConfig, run_training  # noqa: E402
from texas42_env.rules import ConfigError  # noqa: E402


@hydra.main(config_path="../configs", config_name="train", version_base=None)
def main(cfg: DictConfig) -> None:
    plain = OmegaConf.to_container(cfg, resolve=True)
    try:
        config = TrainConfig.from_dict(plain)
        hc = HydraConfig.get()
        given = {o.split("=", 1)[0].lstrip("+~").split(".", 1)[0] for o in hc.overrides.task}
        out = run_training(config, Path(hc.runtime.output_dir), given=given)
    except (ConfigError, CheckpointError) as e:
        raise SystemExit(f"train: {e}") from None
    print(f"\n{out['update']} updates, {out['samples']} samples, "
          f"{out['samples_per_s']:.0f} samples/s; checkpoint: {out['checkpoint']}")


if __name__ == "__main__":
    main()
