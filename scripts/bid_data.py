"""Make a hand-value dataset: `python scripts/bid_data.py [key=value ...]` (configs/bid_data.yaml).

Writes config.json and chunk_NNNNN.npz files into `out`; run the same command again to resume
after an interrupt. See agents/hand_values.py for the format.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.hand_values import DataConfig, DatasetError, generate  # noqa: E402


@hydra.main(config_path="../configs", config_name="bid_data", version_base=None)
def main(cfg: DictConfig) -> None:
    plain = OmegaConf.to_container(cfg, resolve=True)
    out = plain.pop("out")
    show = plain.pop("progress")
    try:
        config = DataConfig.from_dict(plain)
    except DatasetError as e:
        raise SystemExit(f"bid_data: {e}") from None
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
        raise SystemExit(f"bid_data: {e}") from None
    finally:
        if bar is not None:
            bar.close()
    print(f"{res['hands']} hands in {res['chunks']} chunks ({res['made']} made now): {out}")


if __name__ == "__main__":
    main()
