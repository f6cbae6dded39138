"""The Ray backend against a real Ray: a local cluster on 127.0.0.1 (two worker CPUs, token
authentication) started by the fixture and stopped after. What Ray computes must be what the
local backend computes (tournament files, dataset chunks, generated batches), a worker killed
mid-task must be retried with its result written once, and a killed driver must resume."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agents.arena.tournament import TournamentConfig, run_tournament
from agents.bidding.dataset import DataConfig, chunk_path, generate
from agents.scale.backend import Backend, worker_env
from agents.training.generation import SelfPlaySettings, self_play_batches
from helpers import ROOT, actor_trainer, assert_a_killed_learner_resumes_exactly, same_weights, trained

RAY = str(Path(sys.executable).parent / "ray")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """A Ray head on 127.0.0.1 with 2 CPUs (so two worker processes) and its own token;
    this process and the drivers it starts join it (Ray reads the token settings when it is
    first imported, so nothing here imports it before they are set)."""
    port = _free_port()
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN")}
    os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
    subprocess.run([RAY, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
                    "--num-cpus=2", "--include-dashboard=false", "--disable-usage-stats"],
                   check=True, timeout=180, capture_output=True)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        import ray  # loaded by the tests' first connection, after the token was set

        ray.shutdown()
        subprocess.run([RAY, "stop", "--force"], timeout=120, capture_output=True)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


AGENTS = {"random": {"name": "random", "seed": 0}, "passive": {"name": "passive", "seed": 0},
          "heuristic": {"name": "heuristic"}}


def _cfg(**over) -> TournamentConfig:
    base = dict(agents=AGENTS, deals=24, block=8, seed=3, workers=1, progress=False,
                n_boot=50)
    return TournamentConfig.from_dict({**base, **over})


def _files(run: Path) -> dict[str, bytes]:
    """Every file a tournament writes but its plot."""
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*"))
            if p.is_file() and p.suffix != ".png"}


def test_a_tournament_on_ray_writes_what_the_local_backend_writes(cluster, tmp_path):
    run_tournament(_cfg(), tmp_path / "local")
    want = _files(tmp_path / "local")
    assert "blocks.jsonl" in want and len(want) >= 6  # results, blocks, ratings, report, records
    for workers in (1, 2):
        run = tmp_path / f"ray{workers}"
        run_tournament(_cfg(backend="ray", workers=workers, ray={"address": cluster}), run)
        assert _files(run) == want, workers
    two = tmp_path / "local2"
    run_tournament(_cfg(workers=2), two)  # local processes: the same files again
    assert _files(two) == want


def test_dataset_chunks_on_ray_are_the_local_ones(cluster, tmp_path):
    base = dict(hands=24, chunk=8, worlds=2, evaluate="playout", seed=4)
    generate(DataConfig(**base), tmp_path / "local")
    generate(DataConfig(**base, workers=2, backend="ray", ray={"address": cluster}),
             tmp_path / "ray")
    for k in range(3):
        a, b = np.load(chunk_path(tmp_path / "local", k)), np.load(chunk_path(tmp_path / "ray", k))
        assert sorted(a.files) == sorted(b.files)
        assert all(np.array_equal(a[f], b[f]) for f in a.files)


def test_generated_batches_on_ray_actors_are_the_local_ones(cluster):
    settings = SelfPlaySettings(agent="heuristic", deals=8, seed=2)
    want = list(self_play_batches(Backend("local", 1), settings, range(4)))
    got = list(self_play_batches(Backend("ray", 2, cluster), settings, range(4)))
    assert len(got) == 4
    for x, y in zip(want, got):
        assert sorted(x) == sorted(y) and all(np.array_equal(x[k], y[k]) for k in x)
    assert not np.array_equal(want[0]["deal"], want[1]["deal"])


def test_ray_workers_take_one_thread_each(cluster):
    names = ["OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"]
    got = []
    Backend("ray", 2, cluster).run(os.getenv, names, lambda i, v: got.append(v))
    assert got == [worker_env()[k] for k in names] and "1" in got


def _pids(prefix: bytes) -> list[int]:
    """Processes whose command line starts with ``prefix`` (Ray names a worker by what it
    runs: ``ray::_apply`` a task of ours, ``ray::_RayHolder.call`` an actor's call)."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f.read().startswith(prefix):
                        out.append(int(pid))
            except OSError:
                continue
    return out


def _task_pids() -> list[int]:
    """Ray worker processes running one of our tasks now."""
    return _pids(b"ray::_apply")


SLOW = {"pimc": {"name": "pimc", "n_worlds": 4, "bidding": "heuristic"},
        "heuristic": {"name": "heuristic"}}
SLOW3 = {**SLOW, "passive": {"name": "passive"}}  # three matches, one of them quick


def test_a_worker_killed_mid_task_is_retried_and_its_result_written_once(cluster, tmp_path):
    cfg = dict(agents=SLOW, deals=30, block=10, anchor="heuristic")
    run_tournament(_cfg(**cfg), tmp_path / "local")
    killed = []

    def kill_one() -> None:
        end = time.time() + 120
        while time.time() < end and not killed:
            pids = _task_pids()
            if pids:
                time.sleep(0.3)  # mid-task: still running one of our tasks when killed
                if pids[0] in _task_pids():
                    try:
                        os.kill(pids[0], signal.SIGKILL)
                        killed.append(pids[0])
                    except ProcessLookupError:
                        pass
                continue
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one)
    killer.start()
    run_tournament(_cfg(**cfg, backend="ray", workers=2, ray={"address": cluster}),
                   tmp_path / "ray")
    killer.join()
    assert killed, "no task was seen running to be killed"
    assert _files(tmp_path / "ray") == _files(tmp_path / "local")
    blocks = (tmp_path / "ray" / "blocks.jsonl").read_text().splitlines()
    assert len(blocks) == 3  # each block once


def test_a_killed_driver_resumes_from_what_is_on_disk(cluster, tmp_path):
    """Killed after its first block; the rerun plays only what is missing and writes what
    an unbroken local run writes, the matches' rows in their order."""
    cfg = dict(agents=SLOW3, deals=40, block=10, anchor="heuristic")
    run_tournament(_cfg(**cfg), tmp_path / "local")
    run = tmp_path / "ray"
    cmd = [sys.executable, str(ROOT / "scripts" / "tournament.py"),
           "agents=" + json.dumps(SLOW3).replace('"', ""), "deals=40", "block=10", "seed=3",
           "workers=1", "progress=false", "n_boot=50", "anchor=heuristic", "backend=ray",
           f"ray.address={cluster}", f"hydra.run.dir={run}"]
    driver = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    blocks = run / "blocks.jsonl"
    end = time.time() + 240
    while time.time() < end and not (blocks.exists() and blocks.read_text().count("\n") >= 1):
        time.sleep(0.1)
    driver.send_signal(signal.SIGKILL)
    driver.wait(timeout=60)
    first = blocks.read_text().count("\n")
    assert 1 <= first < 12, "the driver was not killed mid-tournament"
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert blocks.read_text().count("\n") == 12  # the kept blocks were not played again
    got = _files(run)
    for name, data in _files(tmp_path / "local").items():
        assert got[name] == data, name


# ----------------------------------------------------------------- the actor-learner on Ray
def test_ray_actors_give_the_weights_of_one_process(cluster, alone):
    t = actor_trainer(2, Backend("ray", 2, cluster))
    assert same_weights(trained(t), alone[0]) and t.samples == alone[1]


def test_a_ray_actor_killed_mid_update_is_restarted_and_its_blocks_counted_once(cluster,
                                                                                 alone):
    """An actor SIGKILLed while the second update's blocks are being played: Ray starts it
    again, its block is played again, and the run ends with the weights and sample count of
    a run never broken."""
    killed = []

    def kill_during_the_next_update(trainer) -> None:
        def kill() -> None:
            end = time.time() + 60
            while time.time() < end and not killed:
                busy = _pids(b"ray::_RayHolder.call")  # an actor playing a block now
                if busy:
                    try:
                        os.kill(busy[0], signal.SIGKILL)
                        killed.append(busy[0])
                    except ProcessLookupError:
                        pass
                time.sleep(0.005)

        threading.Thread(target=kill, daemon=True).start()

    t = actor_trainer(2, Backend("ray", 2, cluster))
    weights = trained(t, 3, after_first=kill_during_the_next_update)
    assert killed, "no actor was seen playing to be killed"
    assert same_weights(weights, alone[0]) and t.samples == alone[1]


def test_a_learner_with_ray_actors_killed_mid_run_resumes_exactly(cluster, tmp_path):
    """scripts/train.py with two Ray actors, SIGKILLed after its first checkpoints; resumed
    on Ray, it ends with the weights of an unbroken run in one process."""
    assert_a_killed_learner_resumes_exactly(
        tmp_path, ["actors=2", "backend=ray", f"ray.address={cluster}"], updates=5)
