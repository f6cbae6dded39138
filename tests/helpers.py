"""Small builders shared by the tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from texas42_env import tiles as T
from texas42_env.state import PLAYING

TESTS = Path(__file__).resolve().parent  # tests/: the suite's helpers, references and data
ROOT = TESTS.parent  # the checkout
DATA = TESTS / "data"

# the deal of the spec's worked examples
SPEC_HANDS = [
    ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
    ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
    ["4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"],
    ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"],
]


def record(bids=(), contract=None, plays=(), dealer=3, hands=SPEC_HANDS, **options):
    rec = {"format": "texas42-record/1", "ruleset": "standard", "dealer": dealer,
           "hands": [list(h) for h in hands], "bids": list(bids), "plays": list(plays)}
    if contract is not None:
        rec["contract"] = contract
    if options:
        rec["options"] = options
    return rec


def masks(hands) -> np.ndarray:
    return np.array([[T.mask_of(T.parse_tile(x) for x in h) for h in hands]], dtype=np.uint64)


def snapshot(state) -> dict:
    return {f: getattr(state, f).copy() for f in state.STORED}


def same_state(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[f], b[f]) for f in a)


def fixed_bidder(curves, **kw):
    """A ``ValueBidder`` whose estimates are ``curves`` ([contracts, 13]) for every hand."""
    from agents.bidding.bidders import ValueBidder

    class FixedBidder(ValueBidder):
        def estimates(self, hands, where=None):
            return np.broadcast_to(self.curves, (len(hands),) + self.curves.shape)

    agent = FixedBidder(**kw)
    agent.curves = np.asarray(curves, float)
    return agent


def tiny_training(**over) -> dict:
    """A training config of a few seconds: 32 deals an update, small nets, a short warm
    start (2 updates unless ``over`` says otherwise)."""
    d = dict(seed=1, updates=2, algorithm=dict(tables=32, minibatch=128, epochs=2),
             model=dict(hidden=32, bid_hidden=32),
             opponents=dict(self_play=0.5, pool=0.3, heuristic=0.2, snapshot_every=1),
             eval=dict(every=2, pairs=10), warm_start=dict(hands=64, epochs=1, minibatch=256),
             checkpoint_every=1, keep_checkpoints=3, progress=False)
    d.update(over)
    return d


def actor_trainer(actors=0, backend=None, seed=5, precision="fp32", **ppo):
    """A trainer of small nets and 48 tables an update in three deal blocks, with every
    opponent kind, playing on ``actors`` workers of ``backend`` (0: in this process); the
    ``ppo`` keys over these."""
    from agents.nets.policy import ModelConfig  # torch: only the training tests load it
    from agents.training.ppo import OpponentsConfig, PPOConfig, Trainer  # torch, as above
    from texas42_env.rules import RulesConfig

    ppo = {"tables": 48, "deal_block": 16, "minibatch": 256, "epochs": 2, **ppo}
    opponents = OpponentsConfig(self_play=0.3, pool=0.3, heuristic=0.2, random=0.2,
                                snapshot_every=1)
    return Trainer(RulesConfig.make(), ModelConfig(hidden=32, bid_hidden=32),
                   PPOConfig(**ppo), opponents, seed=seed, updates=4, actors=actors,
                   backend=backend, precision=precision)


def trained(trainer, updates: int = 3, after_first=None) -> dict:
    """``trainer``'s weights after ``updates`` updates (``after_first(trainer)`` called once
    the first is done), the trainer closed however it ends."""
    try:
        for i in range(updates):
            trainer.train_update()
            if after_first is not None and i == 0:
                after_first(trainer)
    finally:
        trainer.close()
    return trainer.policy.state_dict()


def same_weights(a: dict, b: dict) -> bool:
    """Two state dicts hold the same tensors, bit for bit."""
    import torch  # torch: only the training tests load it

    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def assert_a_killed_learner_resumes_exactly(tmp_path, where: list[str], updates: int) -> None:
    """scripts/train.py with ``where`` (its actors' keys), SIGKILLed with its process group
    after its first checkpoints and resumed with ``where``, ends with the weights of an
    unbroken run in one process."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from agents.nets.checkpoint import load_checkpoint  # torch: only the training tests

    base = [f"updates={updates}", "algorithm.tables=32", "algorithm.deal_block=16",
            "algorithm.minibatch=128", "algorithm.epochs=1", "model.hidden=16",
            "model.bid_hidden=16", "checkpoint_every=1", "keep_checkpoints=10", "eval.every=0",
            "eval.against=[]", "progress=false", "opponents.snapshot_every=1", "seed=2"]
    train = [sys.executable, str(ROOT / "scripts" / "train.py")]
    whole = subprocess.run(train + base + [f"hydra.run.dir={tmp_path / 'whole'}"],
                           capture_output=True, text=True, timeout=600)
    assert whole.returncode == 0, whole.stderr[-2000:]
    run = tmp_path / "killed"
    driver = subprocess.Popen(train + base + where + [f"hydra.run.dir={run}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    ckpts = run / "checkpoints"
    end = time.time() + 300
    while time.time() < end and len(list(ckpts.glob("ckpt_*.pt"))) < 2:
        time.sleep(0.05)
    os.killpg(driver.pid, signal.SIGKILL)  # the learner and any actors it started, at once
    driver.wait(timeout=60)
    done = len(list(ckpts.glob("ckpt_*.pt")))
    assert 2 <= done < updates, "the learner was not killed mid-run"
    again = subprocess.run(train + [f"resume={run}"] + where, capture_output=True, text=True,
                           timeout=600)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "resume: continuing" in again.stdout
    last = f"ckpt_{updates:06d}.pt"
    a = load_checkpoint(tmp_path / "whole" / "checkpoints" / last)
    b = load_checkpoint(ckpts / last)
    assert same_weights(a["model"]["state_dict"], b["model"]["state_dict"])
    assert a["step"] == b["step"]


def stepped(game, st, action: int):
    """A copy of one-table state ``st`` after ``action``."""
    nxt = st.copy()
    game.step(nxt, np.array([action]))
    return nxt


def brute_values(game, st, b: int = 0) -> dict[str, int]:
    """Every legal play's value by plain minimax through the core's own ``step`` (no pruning,
    no table): the bidding team's points once every trick is played. ``game`` must play out."""
    assert game.rules.play_out
    one = st.take([b])
    return {T.TILE_NAMES[a - game.actions.play0]: _brute_points(game, stepped(game, one, a))
            for a in np.flatnonzero(one.legal[0])}


def _brute_points(game, st) -> int:
    team = int(st.bidder[0]) & 1
    if st.phase[0] != PLAYING:
        return int(st.points[0, team])
    vals = [_brute_points(game, stepped(game, st, a)) for a in np.flatnonzero(st.legal[0])]
    return max(vals) if int(st.to_move[0]) & 1 == team else min(vals)
