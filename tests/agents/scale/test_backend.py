"""The backends' common interface on the local backend (tests/agents/scale/test_backend_ray.py runs Ray itself):
ordered results, held generators, clear refusals."""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from importlib import import_module

import pytest

from agents.arena.tournament import TournamentConfig, TournamentError, run_tournament
from agents.bidding.dataset import DataConfig, DataConfigError
from agents.scale.backend import Backend, BackendError, _submit_all, worker_env


def test_results_come_in_task_order_on_one_or_many_processes():
    for workers in (1, 2):
        got = []
        Backend("local", workers).run(abs, [-5, 3, -2, 0, -9], lambda i, r: got.append((i, r)))
        assert got == [(0, 5), (1, 3), (2, 2), (3, 0), (4, 9)]


def test_generators_hold_one_object_each_and_answer_in_item_order():
    for workers in (1, 2):
        with Backend("local", workers).generators(partial(complex, 0, 1)) as g:
            assert list(g.map("__mul__", [1, 2, 3])) == [1j, 2j, 3j]


def test_local_generators_start_every_worker_and_hand_out_items_at_once():
    """Every process is up (its object built) before the generators return, and ``map``
    gives the workers its items when called, not when its results are first read: what
    lets a trainer's actors play while its learner trains."""
    with Backend("local", 2).generators(partial(import_module, "time")) as g:
        assert len(g._pool._processes) == 2
        results = g.map("clock_gettime", [time.CLOCK_REALTIME] * 3)  # each worker's clock
        time.sleep(0.5)
        read = time.time()
        made = list(results)
    assert len(made) == 3 and all(t < read for t in made)


def test_bad_backends_and_worker_counts_are_refused():
    with pytest.raises(ValueError, match="allowed: local, ray"):
        Backend("spark")
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match="workers"):
            Backend("local", bad)


def test_ray_missing_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if not installed
    with pytest.raises(BackendError, match=r"pip install 'texas42\[ray\]'"):
        Backend("ray")
    cfg = TournamentConfig.from_dict({"agents": {"random": "random", "passive": "passive"},
                                      "deals": 2, "backend": "ray", "progress": False})
    with pytest.raises(TournamentError, match=r"backend ray|texas42\[ray\]"):
        run_tournament(cfg, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_configs_name_a_bad_backend_or_ray_key():
    with pytest.raises(TournamentError, match="backend"):
        TournamentConfig.from_dict({"agents": {"a": "random", "b": "passive"},
                                    "backend": "spark"}).check()
    with pytest.raises(TournamentError, match="ray.nope"):
        TournamentConfig.from_dict({"agents": {"a": "random", "b": "passive"},
                                    "ray": {"nope": 1}})
    with pytest.raises(DataConfigError, match="backend"):
        DataConfig(backend="spark")


def test_local_worker_processes_start_with_one_thread_each(monkeypatch):
    """The settings are in a worker's environment when it starts (torch and numba read them
    as they load, before any task runs), and the driver's own are left as they were."""
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("NUMBA_NUM_THREADS", "2")
    got = []
    names = ["OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "MKL_NUM_THREADS"]
    Backend("local", 2).run(os.getenv, names, lambda i, v: got.append(v))
    assert got == ["1", "2", "1"]
    assert "OMP_NUM_THREADS" not in os.environ and os.environ["NUMBA_NUM_THREADS"] == "2"


def test_a_local_worker_that_dies_stops_the_run_with_a_clear_error():
    with pytest.raises(BackendError, match="a local worker process died"):
        Backend("local", 2).run(os._exit, [0, 0, 0], lambda i, v: None)


class _DyingPool:
    """A pool whose first task's worker died and whose next submit trips over the closed
    pipes as it starts a replacement (the race behind CPython's 'bad value(s) in
    fds_to_keep'); ``broken`` False: the submit fails for a reason of its own."""

    def __init__(self, broken: bool):
        self.broken, self.calls = broken, 0

    def submit(self, fn, x):
        self.calls += 1
        if self.calls > 1:
            raise ValueError("bad value(s) in fds_to_keep")
        f = Future()
        f.set_exception(BrokenProcessPool("died") if self.broken else RuntimeError("no"))
        return f


def test_a_worker_dying_while_tasks_are_submitted_is_a_broken_pool():
    with pytest.raises(BrokenProcessPool):
        _submit_all(_DyingPool(True), os._exit, [0, 0, 0])
    with pytest.raises(ValueError, match="fds_to_keep"):  # not a death: said as it is
        _submit_all(_DyingPool(False), os._exit, [0, 0, 0])


def test_workers_take_one_thread_unless_told_otherwise(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert worker_env()["OMP_NUM_THREADS"] == "1" and worker_env()["NUMBA_NUM_THREADS"] == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert worker_env()["OMP_NUM_THREADS"] == "3"
