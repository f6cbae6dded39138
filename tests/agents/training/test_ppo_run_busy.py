"""Training runs that behave on a busy machine and lose nothing: one thread a process
by default, the warm start saved and resumed, Ctrl-C in the script, tidy run folders, what
resume takes from the command line, the curves and the two-process training bench."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf

from agents import bench
from agents.base import Agent, make_agent
from agents.bidding import dataset
from agents.nets.checkpoint import checkpoints_in, load_checkpoint
from agents.nets.policy import ModelConfig
from agents.training import imitation
from agents.training.ppo_run import (TrainConfig, TrainingInterrupted, curves_figure, plot_run,
                                 run_training)
from agents.training.bidnet_training import FinetuneConfig, TrainBidConfig
from agents.training.ppo import Trainer, use_threads
from texas42_env.rules import ConfigError
from helpers import ROOT, tiny_training

TRAIN = ROOT / "scripts" / "train.py"
STATE = ("model", "optimizer", "rng", "step", "train_config")
# the script's tiny run: 32 deals an update, small nets, checkpoints every update
TINY_ARGS = ["algorithm.tables=32", "algorithm.minibatch=128", "algorithm.epochs=1",
             "model.hidden=32", "model.bid_hidden=32", "eval.every=0", "eval.pairs=10",
             "eval.against=[random]", "checkpoint_every=1", "progress=false",
             "warm_start.epochs=1", "warm_start.minibatch=256"]


pytestmark = pytest.mark.usefixtures("restore_torch_threads")


tiny = tiny_training  # a run of a few seconds


def tensors(x, where=""):
    """Every tensor inside a checkpoint's data, by dotted name."""
    if isinstance(x, torch.Tensor):
        yield where, x
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from tensors(v, f"{where}.{k}")
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from tensors(v, f"{where}.{i}")


def assert_same_state(a: dict, b: dict) -> None:
    """Two checkpoints hold the same weights, optimizer, pool and generators, tensor by
    tensor, and the same counters."""
    ta, tb = dict(tensors({k: a[k] for k in ("model", "optimizer", "pool", "rng")})), \
        dict(tensors({k: b[k] for k in ("model", "optimizer", "pool", "rng")}))
    assert sorted(ta) == sorted(tb)
    for name, t in ta.items():
        assert torch.equal(t, tb[name]), name
    assert a["step"] == b["step"] and sorted(a["rng"]) == sorted(b["rng"])


def script(*args, cwd, **kw):
    return subprocess.Popen([sys.executable, str(TRAIN), *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def wait_for(path: Path, proc, seconds: float = 120) -> None:
    """Poll until ``path`` exists (the process still running)."""
    deadline = time.monotonic() + seconds
    while not (path.exists() or path.is_symlink()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no {path} after {seconds} s"
        time.sleep(0.05)


# ---------------------------------------------------------------------- threads
def test_threads_default_to_auto_one_a_process_and_a_number_still_works(tmp_path, monkeypatch):
    assert TrainConfig().threads == "auto"
    assert TrainBidConfig().threads == "auto" and FinetuneConfig().threads == "auto"
    for name in ("train", "bidnet"):
        assert OmegaConf.load(ROOT / "configs" / f"{name}.yaml").threads == "auto"
    seen = []
    real = Trainer.train_update

    def note_threads(self):
        seen.append(torch.get_num_threads())
        return real(self)

    monkeypatch.setattr(Trainer, "train_update", note_threads)
    quick = dict(updates=1, warm_start=dict(hands=0), eval=dict(against=[]))
    torch.set_num_threads(2)
    run_training(TrainConfig.from_dict(tiny(**quick)), tmp_path / "auto")
    run_training(TrainConfig.from_dict(tiny(**quick, threads=2)), tmp_path / "two")
    assert seen == [1, 2]
    with pytest.raises(ConfigError) as e:
        TrainConfig(threads=0)
    assert str(e.value) == ("threads must be 'auto' (one thread a process) or a positive whole "
                            "number, got 0")


def test_numba_is_given_the_thread_count_before_it_loads():
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_NUM_THREADS"}
    code = ("import sys; from agents.training.ppo import use_threads; "
            "assert 'numba' not in sys.modules; use_threads('auto'); import numba; "
            "print(numba.config.NUMBA_NUM_THREADS, numba.get_num_threads(), end=' '); "
            "use_threads(3); print(numba.get_num_threads())")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["1", "1", "1"]  # numba's pool cannot grow past its start


def test_bid_data_workers_start_with_one_thread_each(monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    with dataset.one_thread_each(), \
            ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        seen = {k: pool.submit(os.getenv, k).result() for k in dataset.WORKER_THREADS}
        torch_threads = pool.submit(torch.get_num_threads).result()
    assert seen == {k: "1" for k in dataset.WORKER_THREADS} and torch_threads == 1
    assert os.environ["OMP_NUM_THREADS"] == "7" and "MKL_NUM_THREADS" not in os.environ


# ---------------------------------------------------------------------- nothing lost
def test_a_kill_right_after_the_warm_start_checkpoint_loses_nothing(tmp_path, monkeypatch):
    run = tmp_path / "killed"
    p = script(*TINY_ARGS, "updates=300", "warm_start.hands=64", f"hydra.run.dir={run}",
               cwd=tmp_path)
    first = run / "checkpoints" / "ckpt_000000.pt"
    try:
        wait_for(first, p)
    finally:
        p.kill()
        p.communicate()
    assert p.returncode == -signal.SIGKILL
    saved = json.loads((run / "config.json").read_text())
    assert saved["warm_start"]["hands"] == 64

    def no_demonstrations(*args):
        raise AssertionError("the warm start was redone")

    monkeypatch.setattr(imitation, "demonstrations", no_demonstrations)
    out = run_training(TrainConfig.from_dict(dict(resume=str(first), updates=3,
                                                  progress=False)),
                       tmp_path / "unused", given={"resume", "updates", "progress"})
    monkeypatch.undo()
    assert out["checkpoint"] == str(run / "checkpoints" / "ckpt_000003.pt")
    assert not (tmp_path / "unused").exists()
    whole = run_training(TrainConfig.from_dict({**saved, "updates": 3}), tmp_path / "whole")
    assert_same_state(load_checkpoint(out["checkpoint"], STATE),
                      load_checkpoint(whole["checkpoint"], STATE))


def test_a_warm_start_stopped_part_way_goes_on_from_its_last_chunk(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setattr(imitation, "CHUNK", 32)  # three chunks of 96 hands
    config = tiny(updates=1, eval=dict(against=[]),
                  warm_start=dict(hands=96, epochs=1, minibatch=64))
    run_training(TrainConfig.from_dict(config), tmp_path / "whole")
    real = imitation.demonstrations
    firsts = []

    def ctrl_c_in_the_first_chunk(trainer, agent, first, n):
        firsts.append(first)
        if first == 0:
            os.kill(os.getpid(), signal.SIGINT)
        return real(trainer, agent, first, n)

    monkeypatch.setattr(imitation, "demonstrations", ctrl_c_in_the_first_chunk)
    cut = tmp_path / "cut"
    with pytest.raises(TrainingInterrupted) as stopped:
        run_training(TrainConfig.from_dict(config), cut)
    progress = cut / "checkpoints" / "warm_start.pt"
    assert str(stopped.value) == (f"interrupted in the warm start: saved {progress} (32 of 96 "
                                  f"hands); continue with resume={cut}")
    assert firsts == [0] and not checkpoints_in(cut / "checkpoints")
    assert load_checkpoint(progress, STATE)["warm_start"]["done"] == 32
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    capsys.readouterr()
    run_training(TrainConfig.from_dict(dict(resume=str(cut), progress=False)),
                 tmp_path / "unused", given={"resume", "progress"})
    assert capsys.readouterr().out.splitlines()[0] == (
        f"resume: continuing {cut} from warm_start.pt (the warm start after 32 of 96 hands)")
    assert firsts == [0, 32, 64] and not progress.exists()
    for name in ("ckpt_000000.pt", "ckpt_000001.pt"):  # after the warm start; at the end
        assert_same_state(load_checkpoint(tmp_path / "whole" / "checkpoints" / name, STATE),
                          load_checkpoint(cut / "checkpoints" / name, STATE))


def test_a_second_ctrl_c_stops_at_once_and_says_where_resume_goes_on(tmp_path, monkeypatch):
    real = Trainer.train_update

    def ctrl_c_twice(self):
        if self.update == 1:  # in the second update, after checkpoints 0 and 1
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
        return real(self)

    monkeypatch.setattr(Trainer, "train_update", ctrl_c_twice)
    cut = tmp_path / "cut"
    with pytest.raises(TrainingInterrupted) as stopped:
        run_training(TrainConfig.from_dict(tiny(eval=dict(against=[]))), cut)
    assert str(stopped.value) == (f"interrupted without saving; resume={cut} continues from "
                                  "ckpt_000001.pt")
    assert stopped.value.checkpoint is None
    assert [c.name for c in checkpoints_in(cut / "checkpoints")] == ["ckpt_000000.pt",
                                                                      "ckpt_000001.pt"]


def test_the_agents_generators_are_found_for_a_resumed_warm_start():
    class Holder(Agent):
        def __init__(self):
            self.seed = 3  # not a generator: not saved
            self.inner = make_agent("random", seed=3)
            self.rng = np.random.default_rng(3)

    assert list(imitation.agent_generators(make_agent("random", seed=3))) == ["rng"]
    assert sorted(imitation.agent_generators(Holder())) == ["inner.rng", "rng"]


# ---------------------------------------------------------------------- the script
@pytest.fixture(scope="module")
def stopped(tmp_path_factory):
    """A tiny run of the script stopped by Ctrl-C once it has a checkpoint: (run folder, its
    `latest` link as seen while it ran, the process, its stdout, its stderr)."""
    root = tmp_path_factory.mktemp("stopped")
    run = root / "runs" / "train" / "run"
    p = script(*TINY_ARGS, "updates=500", "warm_start.hands=0", f"hydra.run.dir={run}",
               cwd=root)
    try:
        wait_for(run / "checkpoints" / "ckpt_000001.pt", p)
        wait_for(run.parent / "latest.pt", p)
        latest = (run.parent / "latest.pt").resolve()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    return run, latest, p, out, err


def test_ctrl_c_in_the_script_saves_and_exits_130_with_one_line(stopped):
    run, latest, p, out, err = stopped
    assert p.returncode == 130
    assert "Traceback" not in err + out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    m = re.fullmatch(r"train: interrupted: saved (\S+) \(update (\d+)\); continue with "
                     rf"resume={re.escape(str(run))}", lines[0])
    assert m, lines[0]
    data = load_checkpoint(m.group(1), STATE)
    assert Path(m.group(1)).parent == run / "checkpoints"
    assert data["step"]["update"] == int(m.group(2)) >= 1
    assert "stopping after this update" in out
    assert latest.parent == (run / "checkpoints").resolve()  # `latest.pt` pointed into the
    # run before it ended


def test_resume_goes_on_in_the_run_folder_and_refuses_a_key_that_cannot_change(stopped,
                                                                               tmp_path):
    run, _, _, _, _ = stopped
    before = [c.name for c in checkpoints_in(run / "checkpoints")]
    n = max(int(c[5:11]) for c in before)
    refused = script(f"resume={run}", "model=large", "seed=5", f"hydra.run.dir={tmp_path / 'a'}",
                     cwd=tmp_path)
    out, err = refused.communicate(timeout=120)
    assert refused.returncode == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [
        "train: resume: model, seed cannot change when a run continues (model.bid_hidden: 32 "
        "in the run, 256 given; model.hidden: 32 in the run, 512 given; model.layers: 2 in "
        "the run, 3 given; seed: 0 in the run, 5 given); drop them from the command line, or "
        "start a new run without resume="]
    assert [c.name for c in checkpoints_in(run / "checkpoints")] == before
    # the run's own values may be given again; keys not typed are neither used nor reported
    go_on = script(f"resume={run}", f"updates={n + 1}", "model.hidden=32", "env=standard",
                   "progress=false", f"hydra.run.dir={tmp_path / 'b'}", cwd=tmp_path)
    out, err = go_on.communicate(timeout=120)
    assert go_on.returncode == 0, err
    assert out.splitlines()[0] == (f"resume: continuing {run} from ckpt_{n:06d}.pt "
                                   f"(update {n})")
    assert "ignored" not in out
    assert (run / "checkpoints" / f"ckpt_{n + 1:06d}.pt").is_file()
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()  # no empty folders
    assert not list(run.rglob("*.log"))  # no train.log: nothing logs to it


# ---------------------------------------------------------------------- resume, curves
@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """A whole tiny run with evaluations: its folder."""
    before = torch.get_num_threads()
    folder = tmp_path_factory.mktemp("finished") / "run"
    run_training(TrainConfig.from_dict(tiny()), folder)
    torch.set_num_threads(before)
    return folder


def test_resume_takes_the_keys_typed_and_nothing_else(finished, tmp_path, capsys):
    copy = tmp_path / "copy"
    shutil.copytree(finished, copy)
    given = TrainConfig.from_dict(tiny(resume=str(copy), seed=9, eval=dict(every=5, pairs=12)))
    run_training(given, tmp_path / "unused", given={"resume", "eval.pairs"})
    out = capsys.readouterr().out
    assert "ignored" not in out and out.startswith(f"resume: continuing {copy} from ")
    saved = json.loads((copy / "config.json").read_text())
    assert saved["eval"]["pairs"] == 12 and saved["eval"]["every"] == 2 and saved["seed"] == 1
    with pytest.raises(ConfigError, match=r"^resume: seed cannot change when a run continues "
                                          r"\(seed: 1 in the run, 9 given\)"):
        run_training(given, tmp_path / "unused", given={"resume", "seed"})


def test_the_curves_have_units_one_quantity_an_axis_and_the_run_in_the_title(finished):
    fig = curves_figure(finished)
    assert [ax.get_ylabel() for ax in fig.axes] == [
        "marks per hand (learner - opponent)", "marks per hand", "entropy (nats)",
        "explained variance (1 = exact)", "KL divergence (nats)", "samples per second"]
    assert all(ax.get_xlabel() == "update" for ax in fig.axes)
    assert [line.get_label() for line in fig.axes[2].get_lines()] == ["bid", "play"]
    for ax in fig.axes[1:2] + fig.axes[3:]:
        assert len(ax.get_lines()) == 1
    title = fig._suptitle.get_text()
    for part in (finished.name, "standard", "seed 1", "2 updates x 32 hands", "play 32x2",
                 "warm start: 64 hands of heuristic"):
        assert part in title, (part, title)
    assert plot_run(finished).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------- bench
def test_the_train_bench_times_two_processes_at_once_beside_one_alone():
    small = ModelConfig(hidden=16, bid_hidden=16)
    alone = bench.bench_train(updates=1, tables=16, model=small)
    assert set(alone) == {"kind", "workers", "actors", "tables", "updates", "samples",
                          "seconds", "samples_per_s", "rollout_share", "learn_share",
                          "split_s", "threads", "precision", "staleness", "cores"}
    assert alone["threads"] == 1 and alone["samples"] > 16
    pair = bench.bench_train_pair(updates=1, tables=16, model=small)
    assert pair["processes"] == 2 and pair["threads"] == [1, 1]
    assert len(pair["samples_per_s"]) == 2 and min(pair["samples_per_s"]) > 0
    assert pair["total_samples_per_s"] == sum(pair["samples_per_s"])
    row = {**alone, "two_processes": {**pair, "vs_alone": pair["total_samples_per_s"]
                                      / alone["samples_per_s"]}}
    first, second = bench.agent_row(row).splitlines()
    assert first.startswith(" train: PPO rollout + learning, 16 hands an update: ")
    assert first.endswith("(1 torch thread)")
    assert second.startswith(" train: two processes at once, one thread each: ")
    assert f"= {pair['total_samples_per_s']:,.0f} samples/s" in second


def test_a_run_starts_from_the_weights_of_init_and_refuses_what_does_not_fit(tmp_path):
    first = run_training(TrainConfig.from_dict(tiny(updates=1)), tmp_path / "a")
    src = load_checkpoint(first["checkpoint"])["model"]["state_dict"]
    cfg = tiny(updates=1, init=str(tmp_path / "a"), warm_start=dict(hands=0),
               eval=dict(every=0, pairs=4))
    seen = {}
    orig = Trainer.train_update

    def spy(self):  # the weights just before the first update are init's
        if not seen:
            sd = self.policy.state_dict()
            seen["same"] = all(torch.equal(sd[k], src[k]) for k in src)
        return orig(self)

    Trainer.train_update = spy
    try:
        run_training(TrainConfig.from_dict(cfg), tmp_path / "b")
    finally:
        Trainer.train_update = orig
    assert seen["same"]
    with pytest.raises(ConfigError, match="init must be null with a warm start"):
        run_training(TrainConfig.from_dict({**cfg, "warm_start": dict(hands=64)}),
                     tmp_path / "c")
    with pytest.raises(ConfigError, match=r"init: .* holds a policy of model"):
        run_training(TrainConfig.from_dict({**cfg, "model": dict(hidden=16, bid_hidden=32)}),
                     tmp_path / "d")
    with pytest.raises(ConfigError, match="init: "):
        run_training(TrainConfig.from_dict({**cfg, "init": str(tmp_path / "none")}),
                     tmp_path / "e")


def test_the_train_bench_by_workers_gives_a_row_each_with_where_the_time_went(monkeypatch):
    """``--workers 1,2``: one process, then two local actors and a learner of two threads,
    each row with the rollout's and the learner's wall time and the workers' split."""
    small = ModelConfig(hidden=16, bid_hidden=16)
    real = bench.bench_train
    monkeypatch.setattr(bench, "bench_train", lambda **kw: real(**kw, model=small))
    try:
        rows = bench.bench_train_workers([1, 2], updates=1, tables=32)
        assert torch.get_num_threads() == 2  # the learner of two workers took two threads
    finally:
        use_threads(1)
    assert [(r["workers"], r["actors"], r["threads"]) for r in rows] == [(1, 0, 1), (2, 2, 2)]
    for r in rows:
        sp = r["split_s"]
        assert r["samples"] > 32 and r["samples_per_s"] == r["samples"] / r["seconds"]
        assert 0 < sp["rollout_s"] + sp["learn_s"] <= r["seconds"]
        assert min(sp["core_s"], sp["encode_s"], sp["inference_s"]) > 0
    assert rows[1]["vs_first"] == rows[1]["samples_per_s"] / rows[0]["samples_per_s"]
    text = bench.train_workers_row(rows[1])
    assert text.startswith(" train: 2 workers (2 actor processes + the learner, learner 2 "
                           "threads, fp32): ") and "core stepping" in text and "net inference" in text


def test_the_learner_in_bf16_trains_other_weights_and_a_resume_says_so(tmp_path, capsys):
    """precision bf16: the learner's passes under autocast, its weights float32 and other
    than fp32's; a run resumed in another precision says its weights round differently."""
    from helpers import actor_trainer, same_weights, trained

    fp32, bf16 = actor_trainer(), actor_trainer(precision="bf16")
    assert bf16.precision == "bf16" and fp32.precision == "fp32"
    a, b = trained(fp32, 1), trained(bf16, 1)
    assert all(v.dtype == torch.float32 and torch.isfinite(v).all() for v in b.values())
    assert not same_weights(a, b)
    with pytest.raises(ValueError, match="precision: fp32 or bf16, not 'half'"):
        actor_trainer(precision="half")
    cfg = tiny_training(updates=1, warm_start=dict(hands=0), eval=dict(every=0, against=[]))
    run_training(TrainConfig.from_dict(cfg), tmp_path / "run")
    capsys.readouterr()
    run_training(TrainConfig.from_dict({**cfg, "updates": 2, "precision": "bf16",
                                        "resume": str(tmp_path / "run")}), tmp_path / "run")
    assert ("resume: the run's learner computed in fp32, now in bf16: the weights from here "
            "round differently") in capsys.readouterr().out


def test_bench_workers_without_kind_train_is_refused(capsys):
    from agents.cli import main

    with pytest.raises(SystemExit) as e:
        main(["bench", "--kinds", "core", "--workers", "0"])
    assert e.value.code == 2
    assert main(["bench", "--kinds", "core", "--workers", "2"]) == 2
    capsys.readouterr()
    assert main(["bench", "--kinds", "train", "--staleness", "1"]) == 2
    assert capsys.readouterr().err.strip() == (
        "texas42 bench: argument --staleness: applies to kind train with --workers: add "
        "--workers 1,2")
