"""Train the bid net: `python scripts/train_bidnet.py data=FOLDER [key=value ...]` (configs/bidnet.yaml).

Writes bidnet.pt (the checkpoint `bidnet:path=...` reads) and metrics.json into the run folder.
`finetune.from=RUN/bidnet.pt` fine-tunes that net by self-play instead. A bad value or an
unknown key stops it before training, with one line naming the key.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from agents.training.bidnet_training import FinetuneConfig, TrainBidConfig, finetune_bidnet, train_bidnet
from agents.nets.checkpoint import CheckpointError
from agents.nets.device import resolve_device
from agents.bidding.dataset import DatasetError
from agents.hydra_apps import hydra_error, one_line, run_app, tidy_run
from texas42_env.config import Rule, build, check, check_keys
from texas42_env.rules import ConfigError


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
        raise SystemExit(one_line("train_bidnet", e)) from None
    finally:
        if bar is not None:
            bar.close()


@hydra.main(config_path="../configs", config_name="bidnet", version_base=None)
def main(cfg: DictConfig) -> None:
    with tidy_run(Path(HydraConfig.get().runtime.output_dir)):
        _main(cfg)


def _main(cfg: DictConfig) -> None:
    try:
        plain = OmegaConf.to_container(cfg, resolve=True, throw_on_missing=True)
        show = plain.pop("progress", True)
        ft = dict(check("finetune", plain.pop("finetune", {}), Rule("mapping", says=(
            "a mapping of fine-tuning settings (from: a bid net's checkpoint, ...)"))))
        own = [f.name for f in fields(FinetuneConfig)
               if f.name not in ("seed", "threads", "device")]
        check_keys(ft, own + ["from"], "finetune.")  # seed, threads, device: the run's own
        start = ft.pop("from", None)
        config = build(TrainBidConfig, plain)
        ft_config = build(FinetuneConfig, ft, "finetune.", seed=config.seed,
                          threads=config.threads, device=config.device)
        resolve_device(config.device)  # one this install cannot use: said before any work
    except (ConfigError, OmegaConfBaseException) as e:
        raise SystemExit(one_line("train_bidnet", hydra_error(e))) from None
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
    run_app(main, "train_bidnet")
