"""The actor-learner trainer (agents/training/rollout.py, Trainer(actors=N)): the same seed
gives the same weights whatever the number of actors, a killed actor's blocks are made again
and counted once, a resumed learner goes on exactly, and the device key."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch

import pickle

from agents.nets.device import resolve_device
from agents.training.rollout import merge, pack_rows, unpack_rows
from helpers import ROOT, actor_trainer, assert_a_killed_learner_resumes_exactly, same_weights, trained
from texas42_env.rules import ConfigError


pytestmark = pytest.mark.usefixtures("torch_one_thread")


@pytest.mark.parametrize("actors", [1, 2])
def test_local_actors_give_the_weights_of_one_process(alone, actors):
    t = actor_trainer(actors)
    assert same_weights(trained(t), alone[0]) and t.samples == alone[1]


def test_the_blocks_merge_into_the_rollout_of_their_tables():
    t = actor_trainer()
    ro = t.rollout()
    assert ro.hands == 48 and ro.tables["kind"].size == 48
    has = ro.nxt >= 0
    assert (ro.nxt[has] > np.flatnonzero(has)).all()  # a seat's next sample comes after it
    # a block is played the same alone: its samples are a contiguous slice of the update's
    tasks = t.block_tasks(t._share({k: v.clone() for k, v in t.policy.state_dict().items()}))
    assert [(b.first, b.size) for b in tasks] == [(0, 16), (16, 16), (32, 16)]
    second = t.worker.play(tasks[1])
    first = t.worker.play(tasks[0])
    lo = first.actions.size
    assert np.array_equal(ro.actions[lo:lo + second.actions.size], second.actions)
    assert np.array_equal(ro.obs[lo:lo + second.actions.size], second.obs)
    again = merge([first, second, t.worker.play(tasks[2])], tasks[0].schedule)
    assert np.array_equal(again.nxt, ro.nxt) and np.array_equal(again.rewards, ro.rewards)


def test_staleness_one_gives_one_set_of_weights_whatever_the_actors(alone):
    """algorithm.staleness 1 (update k+1's hands played while update k learns, with the
    weights before it): the same weights in one process and on two actors, and other
    weights than the synchronous run's."""
    here = actor_trainer(0, staleness=1)
    one = trained(here)
    two = actor_trainer(2, staleness=1)
    assert same_weights(trained(two), one) and two.samples == here.samples
    assert not same_weights(one, alone[0])


def test_a_checkpoint_mid_staleness_resumes_the_rollout_under_way():
    """With staleness 1 a checkpoint holds what the next update's rollout (under way when it
    was written) plays with; a trainer loaded from it, here on two actors, ends with the
    weights of a run that never stopped."""
    whole = trained(actor_trainer(0, staleness=1))
    first = actor_trainer(0, staleness=1)
    trained(first, 1)
    state = pickle.loads(pickle.dumps(first.state_dict()))
    assert state["pending"]["update"] == 1
    again = actor_trainer(2, staleness=1)
    again.load_state_dict(state)
    assert same_weights(trained(again, 2), whole)
    assert actor_trainer().state_dict()["pending"] is None  # staleness 0: nothing under way


def test_an_actors_rollout_travels_packed_and_arrives_bit_for_bit():
    ro = actor_trainer().rollout()
    back = pickle.loads(pickle.dumps(ro))
    assert back.obs.dtype == np.float32 and back.obs.flags.c_contiguous
    assert np.array_equal(back.obs.view(np.uint32), ro.obs.view(np.uint32))
    assert len(pickle.dumps(ro)) < ro.obs.nbytes / 4  # the observations packed
    odd = np.array([[0.0, -0.0, 1.0, 0.5, np.nan, -1.0, np.inf]], np.float32)
    assert np.array_equal(unpack_rows(pack_rows(odd)).view(np.uint32), odd.view(np.uint32))
    assert unpack_rows(pack_rows(np.zeros((0, 5), np.float32))).shape == (0, 5)


def test_a_killed_local_actor_is_replaced_and_its_blocks_made_once(alone, capsys):
    t = actor_trainer(2)
    try:
        t.train_update()
        pid = next(iter(t._actors._pool._processes))
        os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        weights = trained(t, 2)
    finally:
        t.close()
    assert "a local worker process died; starting another" in capsys.readouterr().out
    assert same_weights(weights, alone[0]) and t.samples == alone[1]  # counted once


def test_a_learner_killed_mid_run_resumes_exactly(tmp_path):
    """scripts/train.py with two local actors, SIGKILLed after its first checkpoint; resumed,
    it ends with the weights of a run that was never stopped."""
    assert_a_killed_learner_resumes_exactly(tmp_path, ["actors=2"], updates=6)


def test_a_device_torch_cannot_use_is_one_line_and_a_non_zero_exit(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: device=cuda is allowed here")  # said, not silent
    with pytest.raises(ConfigError, match="device: cuda asked, but torch sees no CUDA GPU"):
        resolve_device("cuda")
    with pytest.raises(ConfigError, match="device must be auto, cpu, cuda, cuda:N or mps"):
        resolve_device("gpu")
    assert resolve_device("auto").type == "cpu" and resolve_device("cpu").type == "cpu"
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "train.py"), "device=cuda",
                          f"hydra.run.dir={tmp_path / 'run'}"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "train: device: cuda asked, but torch sees no CUDA GPU here (this install can use: "
        "cpu); use device=cpu or auto"]
    assert not (tmp_path / "run").exists()


def test_a_checkpoint_holds_cpu_tensors_whatever_the_learners_device(tmp_path):
    """What a GPU-trained checkpoint must be to load on a CPU-only install: every tensor on
    the CPU (the learner's device does not reach the file)."""
    t = actor_trainer()
    trained(t, 1)
    state = t.state_dict()

    def tensors(x):
        if isinstance(x, torch.Tensor):
            yield x
        elif isinstance(x, dict):
            for v in x.values():
                yield from tensors(v)
        elif isinstance(x, (list, tuple)):
            for v in x:
                yield from tensors(v)

    found = list(tensors(state))
    assert len(found) > 10 and all(x.device.type == "cpu" for x in found)
