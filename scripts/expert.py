"""Expert iteration: `python scripts/expert.py init=RUN [key=value ...]` (configs/expert.yaml).

Writes config.json, labels/round_R/chunk_K.npz, checkpoints/round_R.pt, metrics.jsonl and tb/
into `out`; run the same command again to resume after an interrupt. See
agents/training/expert.py. A bad value or an unknown key stops it before any label is made,
with one line naming the key.
"""

from __future__ import annotations

from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from agents.hydra_apps import hydra_error, one_line, run_app, tidy_run
from agents.training.expert import ExpertConfig, run_expert
from texas42_env.rules import ConfigError


@hydra.main(config_path="../configs", config_name="expert", version_base=None)
def main(cfg: DictConfig) -> None:
    with tidy_run(Path(HydraConfig.get().runtime.output_dir)):
        _main(cfg)


def _main(cfg: DictConfig) -> None:
    try:
        plain = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
        out = plain.pop("out", None)
        if not isinstance(out, str) or not out:
            raise ConfigError(key="out", value=out, allowed="the run's folder")
        config = ExpertConfig.from_dict(plain)
    except (ConfigError, OmegaConfBaseException) as e:
        raise SystemExit(one_line("expert", hydra_error(e) or e)) from None
    bars = {}

    def progress(what, done, total):
        if not config.progress:
            return
        from tqdm import tqdm

        bar = bars.get(what)
        if bar is None:
            for old in bars.values():
                old.close()
            bar = bars[what] = tqdm(total=total, desc=what, dynamic_ncols=True)
        bar.n = done
        bar.refresh()

    try:
        res = run_expert(config, out, progress)
    except ConfigError as e:
        raise SystemExit(one_line("expert", e)) from None
    finally:
        for bar in bars.values():
            bar.close()
    for m in res["rounds"]:
        h = m["holdout_after"]
        print(f"round {m['round']}: {m['positions']} positions; held out: agreement "
              f"{h['agreement']:.3f}, regret {h['regret']:.3f} points a decision")
    print(f"checkpoint: {res['checkpoint']}")


if __name__ == "__main__":
    run_app(main, "expert")
