"""A training run: the PPO trainer with checkpoints, evaluation, TensorBoard and a progress bar.

``run_training(config, run_dir)`` is what ``scripts/train.py`` (Hydra) calls. The run folder
gets ``checkpoints/ckpt_<update>.pt`` (every ``checkpoint_every`` updates, at the end, and on
Ctrl-C, which stops after the update in progress; the newest ``keep_checkpoints`` kept), ``tb/`` (TensorBoard events), ``eval.jsonl``
(one line per evaluation) and ``config.json`` (the resolved config).

``metrics.jsonl`` (the logged figures of every update) and ``curves.png`` (evaluations and
training curves, redrawn at each evaluation and at the end).

``resume=`` (a run folder or a checkpoint file) continues a run exactly where its checkpoint
left it: the saved config is used (only ``updates``, ``eval``, ``progress`` and ``threads``
given on the command line change it; a new ``updates`` also stretches the opponent schedule,
which is laid over the run's length), the weights, optimizer, pool and generators are
restored, deals continue from the next update's games, log lines after the checkpoint are
dropped and later checkpoints (an abandoned continuation) are renamed ``*.superseded-<time>``.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from texas42_env.config import (RULES, Rule, build, check_rules, number, one_of, setting, validate,
                                whole)
from texas42_env.records import json_lines
from texas42_env.rules import RULESETS, ConfigError, RulesConfig

from agents.arena.duplicate import play_duplicate, summarize
from agents.base import REGISTRY, spec_name
from agents.baselines.neural import NeuralAgent, policy_from_checkpoint
from agents.nets.checkpoint import (CheckpointError, checkpoint_update, checkpoints_in,
                                    latest_checkpoint, load_checkpoint, save_checkpoint)
from agents.nets.policy import ModelConfig
from agents.training.imitation import warm_start
from agents.training.ppo import OpponentsConfig, PPOConfig, Trainer

MAY_CHANGE_ON_RESUME = ("updates", "eval", "progress", "threads", "resume")


AGENT_NAMES = Rule("list", test=lambda v: all(isinstance(x, str) for x in v),
                   says="a list of agent names")
GROUP = Rule("mapping", says="a mapping of the group's keys")


@dataclass
class EvalConfig:
    every: int = setting(50, whole(0))  # updates between evaluations (0: only at the end)
    pairs: int = setting(500, whole(1))  # duplicate deal pairs per opponent
    against: list[str] = setting(rule=AGENT_NAMES,
                                 default_factory=lambda: ["random", "heuristic"])
    # the evaluation deals (kept apart from the training deals)
    seed: int = setting(12345, whole(0))

    def __post_init__(self):
        validate(self, "eval.")


@dataclass
class WarmStartConfig:
    """Behaviour cloning from an agent's self-play before PPO (``hands: 0`` = off).
    ``agent``: a name, ``NAME:KEY=VALUE,...`` or ``{name: ..., ...}`` (e.g. a learned bidder
    with the heuristic's play: ``bidnet:path=experiments/bidding/nets/supervised.pt``)."""

    agent: Any = "heuristic"
    hands: int = setting(0, whole(0))
    epochs: int = setting(4, whole(1))
    minibatch: int = setting(2048, whole(1))
    lr: float = setting(1e-3, number(above=0))

    def __post_init__(self):
        validate(self, "warm_start.")


@dataclass
class TrainConfig:
    seed: int = setting(0, whole(0))
    updates: int = setting(100, whole(1))
    ruleset: str = setting("standard", one_of(*RULESETS, noun="ruleset"))
    rules: dict = setting(rule=RULES, default_factory=dict)
    algorithm: dict = setting(rule=GROUP, default_factory=dict)
    model: dict = setting(rule=GROUP, default_factory=dict)
    opponents: dict = setting(rule=GROUP, default_factory=dict)
    eval: dict = setting(rule=GROUP, default_factory=dict)
    warm_start: dict = setting(rule=GROUP, default_factory=dict)
    checkpoint_every: int = setting(25, whole(1))
    keep_checkpoints: int = setting(3, whole(1))
    resume: str | None = setting(None, Rule("text", says="a run folder or checkpoint file",
                                            optional=True))
    threads: int = setting(2, whole(1))
    progress: bool = True

    def __post_init__(self):
        validate(self)

    @classmethod
    def from_dict(cls, d: dict) -> "TrainConfig":
        return build(cls, d, what="training option")

    def parts(self) -> tuple[RulesConfig, ModelConfig, PPOConfig, OpponentsConfig, EvalConfig,
                             WarmStartConfig]:
        rules = check_rules(self.rules, self.ruleset)
        model, ppo, opp, ev, warm = (
            build(kind, getattr(self, name), f"{name}.")
            for name, kind in (("model", ModelConfig), ("algorithm", PPOConfig),
                               ("opponents", OpponentsConfig), ("eval", EvalConfig),
                               ("warm_start", WarmStartConfig)))
        registered = sorted(REGISTRY)
        for where, name in [("eval.against", a) for a in ev.against] + \
                [("warm_start.agent", spec_name(warm.agent))]:
            if name not in REGISTRY:
                raise ConfigError.unknown(where, name, registered, noun="agent")
            if where == "eval.against" and getattr(REGISTRY[name], "needs_state", False):
                raise ConfigError(f"{where}: {name!r} searches (it needs the tables' state); "
                                  "choose an agent that plays from observations",
                                  key=where, value=name,
                                  allowed="an agent that plays from observations")
        if rules.ruleset != "standard":
            if ev.against or (warm.hands and spec_name(warm.agent) != "random"):
                raise ConfigError("the heuristic and the duplicate arena play the standard "
                                  "ruleset only: set eval.against=[] and warm_start.hands=0 "
                                  f"for {rules.ruleset!r}", key="eval.against",
                                  value=ev.against, allowed="[] for this ruleset")
            if max(opp._ends("heuristic")) > 0:
                raise ConfigError(f"opponents.heuristic must be 0 for {rules.ruleset!r} "
                                  "(the heuristic plays the standard ruleset)",
                                  key="opponents.heuristic", value=opp.heuristic, allowed=0)
        return rules, model, ppo, opp, ev, warm


def evaluate(trainer: Trainer, ev: EvalConfig) -> dict[str, Any]:
    """Duplicate matches of the current policy (greedy) against each of ``ev.against``."""
    agent = NeuralAgent(policy=trainer.policy, ruleset=trainer.rules.ruleset)
    agent.name = "learner"
    out = {}
    trainer.policy.eval()
    for name in ev.against:
        stats = play_duplicate(trainer.rules, agent, name, ev.pairs, seed=ev.seed, chunk=2048)
        s = summarize(stats, n_boot=1000, seed=ev.seed)
        made = s["a_made_rate"][0]
        out[name] = {"marks_per_hand": s["marks_per_hand"],
                     "made_rate": None if np.isnan(made) else made,  # None: it never bid
                     "bid_rate": s["a_bid_rate"][0], "pairs": ev.pairs}
    return out


def run_training(config: TrainConfig, run_dir: str | Path,
                 given: set[str] | None = None) -> dict[str, Any]:
    """Train; returns the last evaluation and where the final checkpoint is.

    On resume, ``given`` names the keys the user set (the Hydra app passes the command
    line's): only those of ``MAY_CHANGE_ON_RESUME`` replace the run's saved values; ``None``
    means every one in ``config`` does (for callers that build the config themselves)."""
    from torch.utils.tensorboard import SummaryWriter  # tensorboard: only when training

    resumed = None
    if config.resume:
        ckpt = latest_checkpoint(config.resume)
        resumed = load_checkpoint(ckpt, require=("model", "optimizer", "rng", "step",
                                                 "train_config"))
        saved = resumed["train_config"]
        changed = {k: v for k, v in asdict(config).items()
                   if k not in MAY_CHANGE_ON_RESUME and saved.get(k) != v}
        keep = {k: v for k, v in asdict(config).items()
                if k in MAY_CHANGE_ON_RESUME and (given is None or k in given)}
        config = TrainConfig.from_dict({**saved, **keep})
        run_dir = ckpt.parent.parent if ckpt.parent.name == "checkpoints" else ckpt.parent
        if changed:
            print(f"resume: using the run's saved config; ignored: {', '.join(sorted(changed))}")
    run_dir = Path(run_dir)
    torch.set_num_threads(max(1, int(config.threads)))
    rules, model, ppo, opp, ev, warm = config.parts()
    trainer = Trainer(rules, model, ppo, opp, seed=config.seed, updates=config.updates)
    ck_dir = run_dir / "checkpoints"
    if resumed is not None:
        try:
            trainer.load_state_dict(resumed)
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise CheckpointError(f"{ckpt}: does not fit this run: {e}") from None
        print(f"resumed {ckpt} at update {trainer.update}")
        for name in ("metrics.jsonl", "eval.jsonl"):  # drop what came after the checkpoint
            _truncate_jsonl(run_dir / name, trainer.update)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for later in checkpoints_in(ck_dir):  # kept under another name, never resumed by
            if checkpoint_update(later) > trainer.update:  # mistake, never deleted
                later.rename(later.with_name(f"{later.name}.superseded-{stamp}"))
                print(f"resume: {later.name} came after the checkpoint resumed from; kept as "
                      f"{later.name}.superseded-{stamp}")
    else:
        run_dir.mkdir(parents=True, exist_ok=True)
        if checkpoints_in(ck_dir):
            raise ConfigError(f"{run_dir} already holds checkpoints: continue it with "
                              f"resume={run_dir}, or choose another folder")
    (run_dir / "config.json").write_text(json.dumps(asdict(config), indent=2) + "\n")
    # events after the checkpoint (an abandoned continuation) are hidden from TensorBoard
    writer = SummaryWriter(str(run_dir / "tb"),
                           purge_step=trainer.update + 1 if trainer.update else None)

    def save() -> Path:
        payload = trainer.state_dict()
        payload["train_config"] = asdict(config)
        path = save_checkpoint(ck_dir / f"ckpt_{trainer.update:06d}.pt", payload)
        for old in checkpoints_in(ck_dir)[:-config.keep_checkpoints]:  # parts(): >= 1
            old.unlink()
        return path

    def do_eval() -> dict:
        res = evaluate(trainer, ev)
        for name, r in res.items():
            m, lo, hi = r["marks_per_hand"]
            writer.add_scalar(f"eval/{name}/marks_per_hand", m, trainer.update)
            writer.add_scalar(f"eval/{name}/ci_low", lo, trainer.update)
            writer.add_scalar(f"eval/{name}/ci_high", hi, trainer.update)
            if r["made_rate"] is not None:
                writer.add_scalar(f"eval/{name}/made_rate", r["made_rate"], trainer.update)
        with open(run_dir / "eval.jsonl", "a") as f:
            f.write(json.dumps({"update": trainer.update, "samples": trainer.samples,
                                **res}) + "\n")
        return res

    if resumed is None and warm.hands > 0:

        logs = warm_start(trainer, warm, progress=config.progress)
        for k, v in logs.items():
            writer.add_scalar(f"warm_start/{k}", v, 0)
    last_eval: dict = {}
    bar = tqdm(total=config.updates, initial=trainer.update, disable=not config.progress,
               desc="train", unit="update", dynamic_ncols=True)
    t_start, s_start = time.perf_counter(), trainer.samples
    stop = _StopAtBoundary()
    try:
        while trainer.update < config.updates:
            if stop.requested:
                raise KeyboardInterrupt
            logs = trainer.train_update()
            for k, v in logs.items():
                writer.add_scalar(k, v, trainer.update)
            with open(run_dir / "metrics.jsonl", "a") as f:  # NaN (no such table) as null
                f.write(json.dumps({"update": trainer.update, "samples": trainer.samples,
                                    **{k: None if v != v else round(float(v), 6)
                                       for k, v in logs.items()}}) + "\n")
            bar.update(1)
            bar.set_postfix(sps=f"{logs['perf/samples_per_s']:.0f}",
                            ret=f"{logs['rollout/learner_return']:+.2f}")
            if ev.against and ev.every and trainer.update % ev.every == 0:
                last_eval = do_eval()
                bar.write(_eval_line(trainer.update, last_eval))
                plot_run(run_dir)
            if trainer.update % config.checkpoint_every == 0:
                save()
    except KeyboardInterrupt:
        stop.restore()
        bar.close()
        if stop.requested and not stop.forced:  # between updates: the state is whole
            path = save()
            print(f"\ninterrupted: saved {path}; continue with resume={run_dir}")
        else:
            print(f"\ninterrupted; the newest checkpoint in {ck_dir} is where resume= "
                  f"continues from")
        writer.close()
        raise
    stop.restore()
    bar.close()
    elapsed = time.perf_counter() - t_start
    if ev.against and (not ev.every or trainer.update % ev.every or not last_eval):
        last_eval = do_eval()
        print(_eval_line(trainer.update, last_eval))
    path = save()
    plot_run(run_dir)
    _link_latest(run_dir)
    writer.add_scalar("perf/run_samples_per_s", (trainer.samples - s_start) / max(elapsed, 1e-9),
                      trainer.update)
    writer.close()
    return {"eval": last_eval, "checkpoint": str(path), "update": trainer.update,
            "samples": trainer.samples, "seconds": elapsed,
            "samples_per_s": (trainer.samples - s_start) / max(elapsed, 1e-9)}


class _StopAtBoundary:
    """The first Ctrl-C asks the loop to stop after the update in progress (a checkpoint
    mid-update would hold half-used generators and half-updated weights); a second one
    interrupts at once. Only in the main thread; restored on the way out."""

    def __init__(self):

        self.requested = self.forced = False
        self._old = None
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum, frame):
        if self.requested:
            self.forced = True
            raise KeyboardInterrupt
        self.requested = True
        print("\nstopping after this update (Ctrl-C again to stop now, without saving)")

    def restore(self):

        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None


def read_jsonl(path: Path) -> list[dict]:
    """The objects of a JSON Lines log; a line torn by an interrupt is skipped."""
    if not path.is_file():
        return []
    return [row for _, row, error in json_lines(path.read_text().splitlines())
            if error is None]  # (a line torn by an interrupt is not JSON: skipped)


def _truncate_jsonl(path: Path, update: int) -> None:
    """Keep the lines of updates up to ``update`` (rewritten atomically)."""
    if not path.is_file():
        return
    keep = [r for r in read_jsonl(path) if r.get("update", 0) <= update]
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in keep))
    tmp.replace(path)


def plot_run(run_dir: str | Path) -> Path | None:
    """``curves.png`` of a run folder: the evaluations (marks per hand with 95% CIs) and the
    training curves (mean return, entropies, explained variance, samples/s) by update."""
    import matplotlib  # matplotlib: only to draw the plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after choosing the Agg backend)

    run_dir = Path(run_dir)
    metrics = read_jsonl(run_dir / "metrics.jsonl")
    evals = read_jsonl(run_dir / "eval.jsonl")
    if not metrics:
        return None
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    u = [m["update"] for m in metrics]
    ax = axes[0, 0]
    names = sorted({k for e in evals for k in e if isinstance(e[k], dict)})
    for name in names:
        pts = [(e["update"], *e[name]["marks_per_hand"]) for e in evals if name in e]
        x, m, lo, hi = map(list, zip(*pts))
        ax.plot(x, m, marker="o", label=f"vs {name}")
        ax.fill_between(x, lo, hi, alpha=0.2)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_title("duplicate evaluation: marks per hand (95% CI)")
    if names:
        ax.legend()
    for ax, keys, title in ((axes[0, 1], ["rollout/learner_return"],
                             "learner's return per hand vs other opponents"),
                            (axes[1, 0], ["losses/entropy_bid", "losses/entropy_play",
                                          "losses/explained_variance"], "entropy, expl. var."),
                            (axes[1, 1], ["perf/samples_per_s"], "samples per second")):
        for k in keys:
            ax.plot(u, [float("nan") if m.get(k) is None else m[k] for m in metrics],
                    label=k.split("/")[1])
        ax.set_title(title)
        if len(keys) > 1:
            ax.legend()
    for ax in axes.flat:
        ax.set_xlabel("update")
    fig.tight_layout()
    path = run_dir / "curves.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _link_latest(run_dir: Path) -> None:
    """``<parent>/latest`` -> the run folder, so the newest run has a fixed name
    (``make_agent({"name": "neural", "path": "runs/train/latest"})``)."""
    link = run_dir.parent / "latest"
    try:
        if link.is_symlink() or not link.exists():
            tmp = run_dir.parent / f".latest.{run_dir.name}"
            if tmp.is_symlink():
                tmp.unlink()
            tmp.symlink_to(run_dir.resolve(), target_is_directory=True)
            tmp.replace(link)
    except OSError:
        pass  # a file system without links: the run folder is still named in the output


def _eval_line(update: int, res: dict) -> str:
    parts = [f"{name}: {r['marks_per_hand'][0]:+.3f} [{r['marks_per_hand'][1]:+.3f}, "
             f"{r['marks_per_hand'][2]:+.3f}] marks/hand" for name, r in res.items()]
    return f"update {update}: " + "; ".join(parts)


__all__ = ["EvalConfig", "TrainConfig", "WarmStartConfig", "evaluate", "plot_run",
           "policy_from_checkpoint", "run_training"]
