"""Train the bid net: `python scripts/train_bidnet.py data=FOLDER [key=value ...]` (configs/bidnet.yaml).

Writes bidnet.pt (the checkpoint `bidnet:path=...` reads) and metrics.json into the run folder.
`finetune.from=RUN/bidnet.pt` fine-tunes that net by self-play instead.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents.bidnet import FinetuneConfig, TrainBidConfig, finetune_bidnet, train_bidnet  # noqa: E402
from agents.checkpoint import CheckpointError  # noqa: E402
from agents.hand_values import DatasetError  # noqa: E402


def _run(fn, total: int, unit: str, desc: str, show: bool, postfix):
    """``fn(progress)`` under a progress bar (``postfix(figures)``: its figures); errors in
    the config, data or checkpoint end the script with their message."""
    bar = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=total, unit=unit, desc=desc)

    def progress(_, figures):
        if bar is not None:
            bar.update(1)
            bar.set_postfix(**postfix(figures))

    try:
        return fn(progress)
    except (ValueError, CheckpointError, DatasetError) as e:
        raise SystemExit(f"train_bidnet: {e}") from None
    finally:
        if bar is not None:
            bar.close()


@hydra.main(config_path="../configs", config_name="bidnet", version_base=None)
def main(cfg: DictConfig) -> None:
    plain = OmegaConf.to_container(cfg, resolve=True)
    show = plain.pop("progress")
    ft = plain.pop("finetune")
    start = ft.pop("from")
    try:
        config = TrainBidConfig(**plain)
        ft_config = FinetuneConfig(**ft, seed=config.seed, threads=config.threads)
    except (TypeError, ValueError) as e:
        raise SystemExit(f"train_bidnet: bad config: {e}") from None
    run = Path(HydraConfig.get().runtime.output_dir)
    if start is not None:
        result = _run(lambda p: finetune_bidnet(start, ft_config, run / "bidnet.pt", p),
                      ft_config.rounds, "round", "self-play fine-tuning", show,
                      lambda f: {"made": f"{f['made_rate']:.3f}",
                                 "predicted": f"{f['predicted']:.3f}"})
        for fig in result["history"]:
            print(f"round {fig['round']}: {fig['contracts']} contracts won, made "
                  f"{fig['made_rate']:.3f}, predicted {fig['predicted']:.3f}, "
                  f"ECE {fig.get('ece', float('nan')):.3f} (before training on them)")
    else:
        result = _run(lambda p: train_bidnet(config, run / "bidnet.pt", p), config.epochs,
                      "epoch", "bid net", show,
                      lambda f: {"val_bce": f"{f['bce']:.4f}", "brier": f"{f['brier']:.4f}"})
        v, f = result["val"], result["constant_predictor"]
        print(f"held-out {result['val_hands']} hands: cross-entropy {v['bce']:.4f} (constant "
              f"{f['bce']:.4f}), Brier {v['brier']:.4f} ({f['brier']:.4f}), expected points "
              f"off by {v['points_mae']:.2f} ({f['points_mae']:.2f})")
    (run / "metrics.json").write_text(json.dumps(result, indent=2) + "\n")
    print(run / "bidnet.pt")


if __name__ == "__main__":
    main()
