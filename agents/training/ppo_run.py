"""A training run: the PPO trainer with checkpoints, evaluation, TensorBoard and a progress bar.

``run_training(config, run_dir)`` is what ``scripts/train.py`` (Hydra) calls. The run folder
gets ``checkpoints/ckpt_<update>.pt`` (``ckpt_000000.pt`` right after a warm start, then every
``checkpoint_every`` updates, at the end, and on Ctrl-C, which stops after the update in
progress; the newest ``keep_checkpoints`` kept), ``checkpoints/warm_start.pt`` while a warm
start is under way (its progress after each chunk of hands, so a kill or Ctrl-C in it loses one
chunk at most), ``tb/`` (TensorBoard events), ``eval.jsonl`` (one line per evaluation),
``metrics.jsonl`` (the logged figures of every update), ``curves.png`` (evaluations and
training curves, redrawn at each evaluation and at the end) and ``config.json`` (the resolved
config). ``<parent>/<latest>`` (``latest.pt`` by default; each config of ``configs/`` names
its own, ``latest: null`` none) is a relative link to the run's newest checkpoint from the
first on: a file, so TensorBoard's ``--logdir <parent>`` lists each run once. Ctrl-C ends
``run_training`` with ``TrainingInterrupted``, saying what was saved and how to continue.

``threads: auto`` (the default) is one torch (and numba) thread a process: beside any other
CPU job two threads on two cores run 5-30x slower, and one gives the same weights on every
machine (``THREADS`` in ``agents/training/ppo.py``). Other counts round differently, so a run
continues exactly only at its own count (resume keeps it unless ``threads=`` is given, and
says so when it changes).

``resume=`` (a run folder or a checkpoint file) continues a run exactly where its checkpoint
left it, in the run's own folder (it says so): the saved config is used; only ``updates``,
``eval``, ``progress`` and ``threads`` given on the command line change it (a new ``updates``
also stretches the opponent schedule, which is laid over the run's length), and any other key
given that differs from the run's is refused, naming it. The weights, optimizer, pool and
generators are restored, deals continue from the next update's games, a warm start stopped
part-way goes on from its last chunk, log lines after the checkpoint are dropped and later
checkpoints (an abandoned continuation) are renamed ``*.superseded-<time>``.
"""

from __future__ import annotations

import copy
import json
import os
import signal
import textwrap
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
from tqdm import tqdm

from texas42_env.config import (RULES, Rule, build, check_rules, number, one_of, setting, validate,
                                whole)
from texas42_env.core import Game
from texas42_env.rules import RULESETS, ConfigError, RulesConfig

from agents.arena.duplicate import play_duplicate, summarize
from agents.base import REGISTRY, make_agent, spec_name
from agents.baselines.neural import NeuralAgent, policy_from_checkpoint
from agents.nets.checkpoint import (CheckpointError, checkpoint_update, checkpoints_in,
                                    latest_checkpoint, load_checkpoint, save_checkpoint)
from agents.nets.device import DEVICE, PRECISION, resolve_device, resolve_precision
from agents.nets.policy import ModelConfig
from agents.runs import append_line, new_run, read_lines, truncate_lines, write_json
from agents.scale.backend import KINDS, Backend, BackendError, RayConfig
from agents.training.imitation import progress_fault, warm_start
from agents.training.ppo import (THREADS, OpponentsConfig, PPOConfig, Trainer, thread_count,
                                 use_threads)

# where a run's work happens may change when it continues (actors and the backend never
# change its weights; another device or thread count rounds differently, and says so)
MAY_CHANGE_ON_RESUME = ("updates", "eval", "progress", "threads", "resume", "actors", "backend",
                        "ray", "device", "precision", "latest")
WARM_PROGRESS = "warm_start.pt"  # in checkpoints/: a warm start's progress, chunk by chunk


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C ended a run; the message (one line) says what was saved and how to continue;
    ``checkpoint``: the file saved on the way out, None when nothing was."""

    def __init__(self, message: str, checkpoint: Path | None = None):
        super().__init__(message)
        self.checkpoint = checkpoint


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
    # a policy checkpoint (or run folder) whose weights the run starts from (its model must
    # be this run's); not a resume: a new run, its own optimizer, from update 0
    init: str | None = setting(None, Rule("text", says="a policy checkpoint or run folder",
                                          optional=True))
    resume: str | None = setting(None, Rule("text", says="a run folder or checkpoint file",
                                            optional=True))
    # the link, in the run folder's parent, to its newest checkpoint (None: no link)
    latest: str | None = setting("latest.pt", Rule(
        "text", test=lambda v: v not in ("", ".", "..") and "/" not in v and "\\" not in v,
        says="a file name (no folder)", optional=True))
    # torch and numba threads; "auto": one a process (THREADS in agents/training/ppo.py)
    threads: int | str = setting("auto", THREADS)
    # the learner's nets, optimizer and minibatches: auto (a GPU when torch sees one), cpu,
    # cuda, cuda:N, mps; rollouts play on the CPU
    device: str = setting("auto", DEVICE)
    # the learner's passes: fp32 (the same weights on every machine) | bf16 (autocast: faster
    # where the device computes it natively, other weights) | auto (bf16 where native: a CUDA
    # GPU with bfloat16, a CPU with AVX512-BF16 or AMX; else fp32) (agents/nets/device.py)
    precision: str = setting("fp32", PRECISION)
    # rollout workers: 0 plays in this process; N on the backend's workers (local processes,
    # or Ray actors at ray.address), the same weights either way (agents/training/rollout.py)
    actors: int = setting(0, whole(0))
    backend: str = setting("local", one_of(*KINDS, noun="backend"))
    ray: dict = setting(rule=GROUP, default_factory=dict)  # RayConfig's keys (address)
    progress: bool = True

    def __post_init__(self):
        validate(self)
        build(RayConfig, self.ray, "ray.")

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
                [("warm_start.agent", spec_name(warm.agent)),
                 ("opponents.search_agent", spec_name(opp.search_agent))]:
            if name not in REGISTRY:
                raise ConfigError.unknown(where, name, registered, noun="agent")
            if where == "eval.against" and getattr(REGISTRY[name], "needs_state", False):
                raise ConfigError(f"{where}: {name!r} searches (it needs the tables' state); "
                                  "choose an agent that plays from observations",
                                  key=where, value=name,
                                  allowed="an agent that plays from observations")
        if max(opp._ends("search")) > 0:
            try:  # its settings named before any work (its search's own errors say why)
                make_agent(opp.search_agent).setup(Game(rules))
            except (ValueError, TypeError) as e:
                raise ConfigError(f"opponents.search_agent: {e}", key="opponents.search_agent",
                                  value=opp.search_agent, allowed="an agent spec that plays "
                                  f"{rules.ruleset}") from None
        return rules, model, ppo, opp, ev, warm


def evaluate(trainer: Trainer, ev: EvalConfig) -> dict[str, Any]:
    """Duplicate matches of the current policy (greedy) against each of ``ev.against``."""
    policy = trainer.acting_policy()  # the averaged weights with algorithm.ema
    agent = NeuralAgent(policy=policy, ruleset=trainer.rules.ruleset)
    agent.name = "learner"
    out = {}
    policy.eval()
    for name in ev.against:
        stats = play_duplicate(trainer.rules, agent, name, ev.pairs, seed=ev.seed, chunk=2048)
        s = summarize(stats, n_boot=1000, seed=ev.seed)
        made = s["a_made_rate"][0]
        out[name] = {"marks_per_hand": s["marks_per_hand"],
                     "made_rate": None if np.isnan(made) else made,  # None: it never bid
                     "bid_rate": s["a_bid_rate"][0], "pairs": ev.pairs}
    return out


def _init_weights(trainer: Trainer, where: str, model: ModelConfig, warm) -> None:
    """The policy's weights from the checkpoint at ``where`` (``ConfigError`` naming
    ``init`` when it does not load or does not fit)."""
    if warm.hands:
        raise ConfigError(key="init", value=where,
                          allowed="null with a warm start (warm_start.hands: 0 to start "
                                  "from a checkpoint)")
    try:
        data = load_checkpoint(latest_checkpoint(where))
        policy = policy_from_checkpoint(data, where)
    except (CheckpointError, OSError, ValueError) as e:
        raise ConfigError.at("init", e, value=where) from None
    if policy.config != model or (policy.obs_size, policy.n_actions) != \
            (trainer.policy.obs_size, trainer.policy.n_actions):
        raise ConfigError.at("init", f"{where} holds a policy of model {policy.config.to_dict()}"
                             f" for {policy.obs_size} observations; this run's model is "
                             f"{model.to_dict()} for {trainer.policy.obs_size}", value=where)
    trainer.policy.load_state_dict(policy.state_dict())


def run_training(config: TrainConfig, run_dir: str | Path,
                 given: set[str] | None = None) -> dict[str, Any]:
    """Train; returns the last evaluation and where the final checkpoint is.

    On resume, ``given`` names the keys the user set (dotted: ``updates``, ``eval.pairs``,
    ``model``; the Hydra app passes the command line's): those of ``MAY_CHANGE_ON_RESUME``
    replace the run's saved values and any other that differs from the run's is refused
    (``ConfigError`` naming it). ``None`` means every key of ``MAY_CHANGE_ON_RESUME`` in
    ``config`` is taken and the others that differ are reported as ignored (for callers that
    build the config themselves). Ctrl-C raises ``TrainingInterrupted``."""
    resumed = ckpt = None
    if config.resume:
        ckpt = resume_point(config.resume)
        if ckpt.is_symlink():  # resume=runs/train/latest.pt: the run the link points into
            ckpt = ckpt.resolve()
        resumed = load_checkpoint(ckpt, require=("model", "optimizer", "rng", "step",
                                                 "train_config"))
        config = _resumed_config(config, resumed["train_config"], given)
        run_dir = ckpt.parent.parent if ckpt.parent.name == "checkpoints" else ckpt.parent
    run_dir = Path(run_dir)
    if resumed is not None and thread_count(resumed["train_config"].get("threads", 1)) \
            != thread_count(config.threads):
        print(f"resume: {thread_count(resumed['train_config'].get('threads', 1))} threads in "
              f"the run, {thread_count(config.threads)} now: the weights from here round "
              "differently from the run's own continuation")
    use_threads(config.threads)
    rules, model, ppo, opp, ev, warm = config.parts()
    device = resolve_device(config.device)
    if resumed is not None and resumed["train_config"].get("device", "cpu") != config.device:
        print(f"resume: the run trained on {resumed['train_config'].get('device', 'cpu')}, "
              f"now on {config.device}: the weights from here round differently from the "
              "run's own continuation")
    precision = resolve_precision(config.precision, device)
    if resumed is not None and resumed.get("precision", "fp32") != precision:
        print(f"resume: the run's learner computed in {resumed.get('precision', 'fp32')}, now "
              f"in {precision}: the weights from here round differently from the run's own "
              "continuation")
    backend = None
    if config.actors:
        try:
            backend = Backend(config.backend, config.actors,
                              build(RayConfig, config.ray, "ray.").address)
        except BackendError as e:
            raise ConfigError.at("backend", e, value=config.backend) from None
    trainer = Trainer(rules, model, ppo, opp, seed=config.seed, updates=config.updates,
                      actors=config.actors, backend=backend, device=device,
                      precision=precision)
    try:
        return _train(config, run_dir, trainer, resumed, ckpt, rules, model, ppo, opp, ev,
                      warm)
    finally:
        trainer.close()


def _train(config, run_dir, trainer, resumed, ckpt, rules, model, ppo, opp, ev, warm):
    """``run_training`` once the trainer is built (closed by the caller)."""
    from torch.utils.tensorboard import SummaryWriter  # tensorboard: only when training

    ck_dir = run_dir / "checkpoints"
    warm_progress = None  # a warm start stopped part-way: where it goes on from
    if resumed is not None:
        try:
            trainer.load_state_dict(resumed)
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise CheckpointError(f"{ckpt}: does not fit this run: {e}") from None
        warm_progress = resumed.get("warm_start")
        if warm_progress and progress_fault(warm_progress, warm):
            raise CheckpointError(f"{ckpt}: {progress_fault(warm_progress, warm)}")
        at = f"the warm start after {warm_progress['done']} of {warm.hands} hands" \
            if warm_progress else f"update {trainer.update}"
        print(f"resume: continuing {run_dir} from {ckpt.name} ({at})")
        for name in ("metrics.jsonl", "eval.jsonl"):  # drop what came after the checkpoint
            truncate_lines(run_dir / name, lambda row: row.get("update", 0) <= trainer.update,
                           error=ConfigError)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for later in checkpoints_in(ck_dir):  # kept under another name, never resumed by
            if checkpoint_update(later) > trainer.update or warm_progress:  # mistake, never
                later.rename(later.with_name(f"{later.name}.superseded-{stamp}"))  # deleted
                print(f"resume: {later.name} came after the checkpoint resumed from; kept as "
                      f"{later.name}.superseded-{stamp}")
        if not warm_progress:  # the run has a checkpoint: `latest` may point at it
            (ck_dir / WARM_PROGRESS).unlink(missing_ok=True)  # (stale: the checkpoint holds
            _link_latest(run_dir, config.latest, ckpt)  # the whole warm start)
    else:
        if config.init:
            _init_weights(trainer, config.init, model, warm)
        held = checkpoints_in(ck_dir) or (ck_dir / WARM_PROGRESS).exists()
        new_run(run_dir, holds="checkpoints" if held else None, resume_with=f"resume={run_dir}",
                error=ConfigError)
        link = f"; {run_dir.parent / config.latest} will link to its newest checkpoint" \
            if config.latest else ""
        print(f"train: run folder {run_dir} (resume={run_dir} continues it){link}", flush=True)
    write_json(run_dir / "config.json", asdict(config))
    # events after the checkpoint (an abandoned continuation) are hidden from TensorBoard
    writer = SummaryWriter(str(run_dir / "tb"),
                           purge_step=trainer.update + 1 if trainer.update else None)
    def save() -> Path:
        payload = trainer.state_dict()
        payload["train_config"] = asdict(config)
        path = save_checkpoint(ck_dir / f"ckpt_{trainer.update:06d}.pt", payload)
        _link_latest(run_dir, config.latest, path)  # before the old ones go
        for old in checkpoints_in(ck_dir)[:-config.keep_checkpoints]:  # parts(): >= 1
            old.unlink()
        return path

    warm_done = [warm_progress["done"] if warm_progress else 0]

    def save_warm(progress: dict) -> None:
        payload = trainer.state_dict()
        payload["train_config"] = asdict(config)
        payload["warm_start"] = progress
        save_checkpoint(ck_dir / WARM_PROGRESS, payload)
        warm_done[0] = progress["done"]

    def do_eval() -> dict:
        res = evaluate(trainer, ev)
        for name, r in res.items():
            m, lo, hi = r["marks_per_hand"]
            writer.add_scalar(f"eval/{name}/marks_per_hand", m, trainer.update)
            writer.add_scalar(f"eval/{name}/ci_low", lo, trainer.update)
            writer.add_scalar(f"eval/{name}/ci_high", hi, trainer.update)
            if r["made_rate"] is not None:
                writer.add_scalar(f"eval/{name}/made_rate", r["made_rate"], trainer.update)
        append_line(run_dir / "eval.jsonl", {"update": trainer.update,
                                             "samples": trainer.samples, **res})
        return res

    last_eval: dict = {}
    bar = None
    stop = _StopAtBoundary()
    warming = warm.hands > 0 and (resumed is None or warm_progress is not None)
    try:
        if warming:
            stop.what = "this chunk of the warm start"
            logs = warm_start(trainer, warm, progress=config.progress, resume=warm_progress,
                              save=save_warm, stop=lambda: stop.requested)
            for k, v in logs.items():
                writer.add_scalar(f"warm_start/{k}", v, 0)
            save()  # ckpt_000000: the warm-started policy, resumed from without redoing it
            (ck_dir / WARM_PROGRESS).unlink(missing_ok=True)
            warming = False
        stop.what = "this update"
        bar = tqdm(total=config.updates, initial=trainer.update, disable=not config.progress,
                   desc="train", unit="update", dynamic_ncols=True)
        t_start, s_start = time.perf_counter(), trainer.samples
        while trainer.update < config.updates:
            if stop.requested:
                raise KeyboardInterrupt
            logs = trainer.train_update()
            for k, v in logs.items():
                writer.add_scalar(k, v, trainer.update)
            append_line(run_dir / "metrics.jsonl", {  # NaN (no such table) as null
                "update": trainer.update, "samples": trainer.samples,
                **{k: None if v != v else round(float(v), 6) for k, v in logs.items()}})
            bar.update(1)
            bar.set_postfix(sps=f"{logs['perf/samples_per_s']:.0f}",
                            ret=f"{logs['rollout/learner_return']:+.2f}")
            if ev.against and ev.every and trainer.update % ev.every == 0:
                last_eval = do_eval()
                bar.write(_eval_line(trainer.update, last_eval))
                plot_run(run_dir)
            if trainer.update % config.checkpoint_every == 0:
                save()
    except BackendError as e:  # the actors' cluster is gone: what is saved stays
        stop.restore()
        if bar is not None:
            bar.close()
        writer.close()
        raise BackendError(f"{e}; {_where_resume_goes_on(run_dir)}") from None
    except KeyboardInterrupt:
        stop.restore()
        if bar is not None:
            bar.close()
        whole = stop.requested and not stop.forced  # stopped between updates or chunks
        path = None
        if whole and warming:
            path = ck_dir / WARM_PROGRESS
            message = (f"interrupted in the warm start: saved {path} ({warm_done[0]} of "
                       f"{warm.hands} hands); continue with resume={run_dir}")
        elif whole:
            path = save()
            message = (f"interrupted: saved {path} (update {trainer.update}); continue with "
                       f"resume={run_dir}")
        else:
            message = f"interrupted without saving; {_where_resume_goes_on(run_dir)}"
        writer.close()
        raise TrainingInterrupted(message, path) from None
    stop.restore()
    bar.close()
    elapsed = time.perf_counter() - t_start
    if ev.against and (not ev.every or trainer.update % ev.every or not last_eval):
        last_eval = do_eval()
        print(_eval_line(trainer.update, last_eval))
    path = save()
    plot_run(run_dir)
    writer.add_scalar("perf/run_samples_per_s", (trainer.samples - s_start) / max(elapsed, 1e-9),
                      trainer.update)
    writer.close()
    return {"eval": last_eval, "checkpoint": str(path), "update": trainer.update,
            "samples": trainer.samples, "seconds": elapsed,
            "samples_per_s": (trainer.samples - s_start) / max(elapsed, 1e-9)}


def resume_point(where: str | Path) -> Path:
    """What ``resume=WHERE`` continues from: ``WHERE`` itself if it is a file, else the run's
    newest checkpoint, else its warm start's progress (a run stopped in its warm start)."""
    try:
        return latest_checkpoint(where)
    except CheckpointError:
        for progress in (Path(where) / "checkpoints" / WARM_PROGRESS,
                         Path(where) / WARM_PROGRESS):
            if progress.is_file():
                return progress
        raise


def _where_resume_goes_on(run_dir: Path) -> str:
    """Where ``resume=run_dir`` would continue from, in words."""
    try:
        point = resume_point(run_dir)
    except CheckpointError:
        return f"nothing is saved in {run_dir} yet"
    return f"resume={run_dir} continues from {point.name}"


def _resumed_config(config: TrainConfig, saved: dict, given: set[str] | None) -> TrainConfig:
    """The config a resumed run goes on with (``run_training`` says how ``given`` counts)."""
    new = asdict(config)
    if given is None:
        ignored = sorted(k for k, v in new.items()
                         if k not in MAY_CHANGE_ON_RESUME and saved.get(k) != v)
        if ignored:
            print(f"resume: using the run's saved config; ignored: {', '.join(ignored)}")
        return TrainConfig.from_dict({**saved, **{k: new[k] for k in MAY_CHANGE_ON_RESUME}})
    merged = copy.deepcopy(saved)
    refused: list[str] = []
    differences: list[str] = []
    for key in sorted(given):
        value = _at(new, key)
        if key.split(".")[0] in MAY_CHANGE_ON_RESUME:
            if value is not _MISSING:
                _put(merged, key, value)
            continue
        found = _differences(key, _at(saved, key), value)
        if found:
            refused.append(key)
            differences += found
    if refused:
        them = "it" if len(refused) == 1 else "them"
        raise ConfigError(f"resume: {', '.join(refused)} cannot change when a run continues "
                          f"({'; '.join(differences)}); drop {them} from the command line, or "
                          "start a new run without resume=",
                          key=refused[0], value=_at(new, refused[0]),
                          allowed="the run's own value")
    merged["resume"] = new["resume"]
    return TrainConfig.from_dict(merged)


_MISSING = object()


def _at(d: Any, key: str) -> Any:
    """The value at dotted ``key`` in nested dicts (``_MISSING`` where there is none)."""
    for part in key.split("."):
        if not isinstance(d, dict) or part not in d:
            return _MISSING
        d = d[part]
    return d


def _put(d: dict, key: str, value: Any) -> None:
    """Set dotted ``key`` in nested dicts, making the dicts on the way."""
    *path, last = key.split(".")
    for part in path:
        if not isinstance(d.get(part), dict):
            d[part] = {}
        d = d[part]
    d[last] = copy.deepcopy(value)


def _differences(key: str, run: Any, given: Any) -> list[str]:
    """``KEY: RUN in the run, GIVEN given`` for each leaf under ``key`` that differs."""
    if isinstance(run, dict) and isinstance(given, dict):
        return [line for k in sorted(set(run) | set(given), key=str)
                for line in _differences(f"{key}.{k}", run.get(k, _MISSING),
                                         given.get(k, _MISSING))]
    if run == given:
        return []
    return [f"{key}: {_shown(run)} in the run, {_shown(given)} given"]


def _shown(value: Any) -> str:
    return "not set" if value is _MISSING else repr(value)


class _StopAtBoundary:
    """The first Ctrl-C asks the run to stop after ``what`` is done (the update or the warm
    start's chunk in progress: a checkpoint mid-update would hold half-used generators and
    half-updated weights); a second one interrupts at once. Only in the main thread; restored
    on the way out."""

    def __init__(self):

        self.requested = self.forced = False
        self.what = "this update"
        self._old = None
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGINT, self._handle)

    def _handle(self, signum, frame):
        if self.requested:
            self.forced = True
            raise KeyboardInterrupt
        self.requested = True
        print(f"\nstopping after {self.what} (Ctrl-C again to stop now, without saving)",
              flush=True)

    def restore(self):

        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None


def plot_run(run_dir: str | Path) -> Path | None:
    """Draw ``curves.png`` of a run folder (``curves_figure``); None before any update."""
    fig = curves_figure(run_dir)
    if fig is None:
        return None
    import matplotlib.pyplot as plt  # matplotlib: only to draw the plot (Agg: chosen above)

    path = Path(run_dir) / "curves.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def curves_figure(run_dir: str | Path):
    """The figure of ``curves.png``, one quantity an axis, each with its unit, by update:
    duplicate evaluations (marks per hand with 95% CIs), the learner's return per hand, the
    policy entropies (nats), the explained variance, PPO's approximate KL (nats) and samples
    per second; titled with the run's name and config. None before any update."""
    import matplotlib  # matplotlib: only to draw the plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after choosing the Agg backend)

    run_dir = Path(run_dir)
    metrics = read_lines(run_dir / "metrics.jsonl")  # (a live run's torn last line: left out)
    evals = read_lines(run_dir / "eval.jsonl")
    if not metrics:
        return None
    try:
        config = json.loads((run_dir / "config.json").read_text())
    except (OSError, ValueError):
        config = {}
    reward = (config.get("algorithm") or {}).get("reward", "marks")
    fig, axes = plt.subplots(3, 2, figsize=(11, 10))
    u = [m["update"] for m in metrics]
    ax = axes[0, 0]
    names = draw_evaluations(ax, evals, lambda e: e["update"])
    ax.set_title("duplicate evaluation (95% CI)")
    ax.set_ylabel("marks per hand (learner - opponent)")
    if names:
        ax.legend()
    for ax, keys, title, unit in (
            (axes[0, 1], ["rollout/learner_return"],
             "learner's return vs opponents other than itself", f"{reward} per hand"),
            (axes[1, 0], ["losses/entropy_bid", "losses/entropy_play"], "policy entropy",
             "entropy (nats)"),
            (axes[1, 1], ["losses/explained_variance"], "value heads: explained variance",
             "explained variance (1 = exact)"),
            (axes[2, 0], ["losses/approx_kl"], "PPO: approximate KL per update",
             "KL divergence (nats)"),
            (axes[2, 1], ["perf/samples_per_s"], "throughput", "samples per second")):
        for k in keys:
            ax.plot(u, [float("nan") if m.get(k) is None else m[k] for m in metrics],
                    label=k.split("/")[1].replace("entropy_", ""))
        ax.set_title(title)
        ax.set_ylabel(unit)
        if len(keys) > 1:
            ax.legend()
    for ax in axes.flat:
        ax.set_xlabel("update")
    fig.suptitle(f"run {run_dir.resolve().name}\n{config_line(config)}", fontsize=10)
    fig.tight_layout()
    return fig


def draw_evaluations(ax, evals: list[dict], x: Callable[[dict], float],
                     note: Callable[[dict], str] | None = None) -> list[str]:
    """Each opponent's duplicate evaluations (``eval.jsonl`` lines: opponent -> its
    ``marks_per_hand`` [estimate, low, high]) on ``ax`` against ``x(line)``, the 95% CI as a
    band, each point labelled ``note(line)`` where given, and the zero line. Returns the
    opponents' names."""
    names = sorted({k for e in evals for k in e if isinstance(e[k], dict)})
    for name in names:
        pts = [e for e in evals if name in e]
        xs = [x(e) for e in pts]
        m, lo, hi = (list(v) for v in zip(*(e[name]["marks_per_hand"] for e in pts)))
        ax.plot(xs, m, marker="o", label=f"vs {name}")
        ax.fill_between(xs, lo, hi, alpha=0.2)
        for xi, mi, e in zip(xs, m, pts) if note else ():
            ax.annotate(note(e), (xi, mi), fontsize=7, textcoords="offset points",
                        xytext=(0, 6), ha="center")
    ax.axhline(0, color="grey", lw=0.8)
    return names


def config_line(config: dict) -> str:
    """A run's config in words for a title (wrapped): ruleset and rules, seed, updates and
    hands, the nets, PPO's learning rate, the opponents, the warm start."""
    if not config:
        return "(no config.json)"
    algo, model, opp, warm = ({**asdict(kind()), **(config.get(name) or {})} for name, kind in (
        ("algorithm", PPOConfig), ("model", ModelConfig), ("opponents", OpponentsConfig),
        ("warm_start", WarmStartConfig)))  # the groups' defaults under what the run set
    rules = config.get("rules") or {}
    parts = [config.get("ruleset", "standard") + (f" {rules}" if rules else ""),
             f"seed {config.get('seed')}",
             f"{config.get('updates')} updates x {algo['tables']} hands",
             f"nets: play {model['hidden']}x{model['layers']}, bid {model['bid_hidden']}x"
             f"{model['bid_layers']}, critic {model['critic']}",
             f"lr {algo['lr']}",
             "opponents " + ", ".join(f"{k} {opp[k]}" for k in ("self_play", "pool", "heuristic",
                                                                "random"))
             + (f", search {opp['search']} ({opp['search_agent']})" if opp["search"] else "")
             + (f", league (prioritize {opp['prioritize']})" if opp["prioritize"] else ""),
             f"warm start: {warm['hands']} hands of {warm['agent']}" if warm["hands"]
             else "no warm start"]
    return "\n".join(textwrap.wrap("; ".join(parts), 120))


def _link_latest(run_dir: Path, name: str | None, checkpoint: Path) -> None:
    """``<parent>/NAME`` -> ``checkpoint`` (relative, so the runs folder may move), so the
    newest checkpoint of a config's runs has a fixed name (``neural:path=runs/train/latest.pt``,
    ``resume=runs/train/latest.pt``); a file or folder of that name that is not a link is
    left alone."""
    if name is None:
        return
    link = run_dir.parent / name
    try:
        if link.is_symlink() or not link.exists():
            tmp = run_dir.parent / f".{name}.{run_dir.name}"
            if tmp.is_symlink():
                tmp.unlink()
            tmp.symlink_to(os.path.relpath(checkpoint.resolve(), run_dir.parent.resolve()))
            tmp.replace(link)
    except OSError:
        pass  # a file system without links: the run folder is still named in the output


def _eval_line(update: int, res: dict) -> str:
    parts = [f"{name}: {r['marks_per_hand'][0]:+.3f} [{r['marks_per_hand'][1]:+.3f}, "
             f"{r['marks_per_hand'][2]:+.3f}] marks/hand" for name, r in res.items()]
    return f"update {update}: " + "; ".join(parts)


__all__ = ["EvalConfig", "TrainConfig", "TrainingInterrupted", "WarmStartConfig", "config_line",
           "curves_figure", "draw_evaluations", "evaluate", "plot_run", "policy_from_checkpoint", "resume_point",
           "run_training"]
