"""Make a hand-value dataset: `python scripts/bid_data.py [key=value ...]` (configs/bid_data.yaml).

Writes config.json and chunk_NNNNN.npz files into `out`; run the same command again to resume
after an interrupt. See agents/bidding/dataset.py for the format. A bad value or an unknown key
stops it before any hand is valued, with one line naming the key.
"""

from __future__ import annotations

from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from agents.bidding.dataset import DataConfig, DatasetError, generate
from agents.hydra_apps import hydra_error, one_line, run_app, tidy_run
from texas42_env.rules import ConfigError


@hydra.main(config_path="../configs", config_name="bid_data", version_base=None)
def main(cfg: DictConfig) -> None:
    with tidy_run(Path(HydraConfig.get().runtime.output_dir)):
        _main(cfg)


def _main(cfg: DictConfig) -> None:
    try:
        plain = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
        out = plain.pop("out", None)
        show = plain.pop("progress", True)
        if not isinstance(out, str) or not out:
            raise ConfigError(key="out", value=out, allowed="the dataset's folder")
        config = DataConfig.from_dict(plain)
    except (ConfigError, DatasetError, OmegaConfBaseException) as e:
        raise SystemExit(one_line("bid_data", hydra_error(e) or e)) from None
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=config.hands // config.chunk, unit="chunk",
                   desc=f"hand values ({config.chunk} hands a chunk)")

    def progress(done, total):
        if bar is not None:
            bar.n = done
            bar.refresh()

    try:
        res = generate(config, out, progress)
    except DatasetError as e:
        raise SystemExit(one_line("bid_data", e)) from None
    finally:
        if bar is not None:
            bar.close()
    print(f"{res['hands']} hands in {res['chunks']} chunks ({res['made']} made now): {out}")


if __name__ == "__main__":
    run_app(main, "bid_data")
