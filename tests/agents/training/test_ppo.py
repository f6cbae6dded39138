"""Self-play PPO (agents/training/ppo.py): the opponent schedule, rollouts, GAE and learning."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.policy import ModelConfig
from agents.training.ppo import OPPONENT_KINDS, OpponentsConfig, PPOConfig, Rollout, Trainer
from texas42_env.core import HAND_OVER
from texas42_env.rewards import team_rewards
from texas42_env.rules import NELLO, RulesConfig

TINY = ModelConfig(hidden=32, bid_hidden=32)
SELF_PLAY = dict(self_play=1, pool=0, heuristic=0, random=0)
HEURISTIC = dict(self_play=0, pool=0, heuristic=1, random=0)


pytestmark = pytest.mark.usefixtures("torch_one_thread")


def make_trainer(ruleset="standard", opponents=None, seed=0, updates=10, model=TINY,
                 **ppo) -> Trainer:
    ppo = {"tables": 32, "minibatch": 128, "epochs": 2, **ppo}
    return Trainer(RulesConfig.make(ruleset), model, PPOConfig(**ppo),
                   OpponentsConfig(**(opponents or SELF_PLAY)), seed=seed, updates=updates)


def traced_rollout(trainer: Trainer):
    """A rollout, with what happened at each step: the tables in play, the seat to move,
    each table's mask and action, and the rows the opponents played; the final state."""
    log = []
    worker = trainer.worker  # the rollouts of a trainer without actors play here
    game_step, opponents_act = worker.game.step, worker._opponents_act
    final = {}

    def step(st, actions):
        final["st"] = st
        log.append({"active": st.phase < HAND_OVER, "seats": st.to_move.copy(),
                    "masks": st.legal.copy(), "actions": np.array(actions, copy=True)})
        game_step(st, actions)

    def opp(st, rows_mask, *args):  # called just before each step
        opp_rows.append(rows_mask.copy())
        opponents_act(st, rows_mask, *args)

    opp_rows: list[np.ndarray] = []
    worker.game.step, worker._opponents_act = step, opp
    try:
        ro = trainer.rollout()
    finally:
        del worker.game.step, worker._opponents_act
    for entry, rows in zip(log, opp_rows, strict=True):
        entry["opponent"] = rows
        entry["learner"] = entry["active"] & ~rows
    return ro, log, final["st"]


def sample_origins(ro: Rollout, log) -> tuple[np.ndarray, np.ndarray]:
    """The table and seat of every sample, from the trace."""
    tables, seats = [], []
    for k, entry in enumerate(log):
        rows = np.flatnonzero(entry["learner"])
        assert (ro.step == k).sum() == rows.size, f"step {k}"
        tables.append(rows)
        seats.append(entry["seats"][rows])
    return np.concatenate(tables), np.concatenate(seats)


# ---------------------------------------------------------------------- configuration
def test_schedule_weights_interpolate_linearly_over_the_run():
    opp = OpponentsConfig(self_play=[1.0, 0.0], pool=0, heuristic=(0.0, 1.0), random=0.5)
    np.testing.assert_allclose(opp.weights(0.0, True), np.array([1, 0, 0, 0.5, 0]) / 1.5)
    np.testing.assert_allclose(opp.weights(0.5, True), np.array([0.5, 0, 0.5, 0.5, 0]) / 1.5)
    np.testing.assert_allclose(opp.weights(1.0, True), np.array([0, 0, 1, 0.5, 0]) / 1.5)
    np.testing.assert_allclose(opp.weights(0.25, True), np.array([0.75, 0, 0.25, 0.5, 0]) / 1.5)
    assert OPPONENT_KINDS == ("self_play", "pool", "heuristic", "random", "search")


def test_pool_weight_goes_to_self_play_until_a_snapshot_exists():
    opp = OpponentsConfig(self_play=0.2, pool=[0.6, 0.2], heuristic=0.2, random=0)
    np.testing.assert_allclose(opp.weights(0.0, False), [0.8, 0, 0.2, 0, 0])
    np.testing.assert_allclose(opp.weights(0.0, True), [0.2, 0.6, 0.2, 0, 0])
    np.testing.assert_allclose(opp.weights(1.0, False), np.array([0.4, 0, 0.2, 0, 0]) / 0.6)
    only_pool = OpponentsConfig(self_play=0, pool=1, heuristic=0)
    np.testing.assert_allclose(only_pool.weights(0.3, False), [1, 0, 0, 0, 0])


def test_a_league_splits_the_tables_not_in_self_play_by_weight_times_loss_rate():
    base = dict(self_play=0.4, pool=0.2, heuristic=0.2, random=0.1, search=0.1)
    losses = np.array([0.5, 0.2, 0.8, 0.1, 0.9])
    plain = OpponentsConfig(**base)
    np.testing.assert_allclose(plain.weights(0, True, losses), [0.4, 0.2, 0.2, 0.1, 0.1])
    league = OpponentsConfig(**base, prioritize=2)
    tilted = np.array([0.2, 0.2, 0.1, 0.1]) * losses[1:] ** 2
    want = [0.4, *(0.6 * tilted / tilted.sum())]
    np.testing.assert_allclose(league.weights(0, True, losses), want)
    # self-play keeps its share, the pool none before its first snapshot
    w = league.weights(0, False, losses)
    assert w[0] == pytest.approx(0.6) and w[1] == 0
    # equal loss rates (the start: 0.5 each) leave the weights as they are
    np.testing.assert_allclose(league.weights(0, True, np.full(5, 0.5)), plain.weights(0, True))
    # kinds never lost to keep their weights rather than leave the others nothing to draw
    np.testing.assert_allclose(league.weights(0, True, np.zeros(5)), plain.weights(0, True))
    for key, value in (("prioritize", -1), ("prioritize_decay", 1.0), ("search", -0.5),
                       ("search_agent", "")):
        with pytest.raises(ValueError, match=f"opponents.{key}"):
            OpponentsConfig(**{key: value})


@pytest.mark.parametrize("kind, value", [
    ("heuristic", -0.1), ("pool", [0.1, 0.2, 0.3]), ("random", "lots"), ("self_play", [-1, 1]),
    ("pool", []),
])
def test_a_bad_weight_names_its_option(kind, value):
    with pytest.raises(ValueError, match=f"opponents.{kind}"):
        OpponentsConfig(**{kind: value})


def test_all_zero_weights_and_bad_pool_settings_are_refused():
    with pytest.raises(ValueError, match="every weight is 0"):
        OpponentsConfig(self_play=0, pool=0, heuristic=0, random=0)
    with pytest.raises(ValueError, match="snapshot_every"):
        OpponentsConfig(snapshot_every=0)
    with pytest.raises(ValueError, match="pool_size"):
        OpponentsConfig(pool_size=0)


@pytest.mark.parametrize("key, value", [("tables", 0), ("epochs", 0), ("minibatch", -1),
                                        ("lr", 0.0), ("gamma", 1.5), ("gae_lambda", -0.1)])
def test_bad_ppo_settings_name_their_option(key, value):
    with pytest.raises(ValueError, match=f"algorithm.{key}"):
        PPOConfig(**{key: value})


def test_an_unknown_reward_is_refused():
    with pytest.raises(ValueError, match="unknown reward 'money'"):
        PPOConfig(reward="money")


# ---------------------------------------------------------------------- advantages
def hand_built_rollout() -> Rollout:
    """Three seat trajectories over steps 0, 2, 3, 5 (steps 1 and 4 had no learner move):
    A = samples 0 -> 2 -> 5, B = 1 -> 4 (interleaved with A), C = 3 alone."""
    n = 6
    return Rollout(obs=np.zeros((n, 1), np.float32), critic_obs=None,
                   masks=np.ones((n, 2), bool), actions=np.zeros(n, np.int64),
                   logp=np.zeros(n, np.float32),
                   values=np.array([0.5, -0.2, 0.1, 0.3, 0.4, -0.6], np.float32),
                   rewards=np.array([0, 0, 0, -1.0, 2.0, 1.0], np.float32),
                   nxt=np.array([2, 4, 5, -1, -1, -1]), step=np.array([0, 0, 2, 2, 3, 5]),
                   hands=1)


def advantages(ro: Rollout, gamma: float, lam: float):
    return Trainer.advantages(SimpleNamespace(cfg=PPOConfig(gamma=gamma, gae_lambda=lam)), ro)


def test_gae_matches_a_hand_computation():
    adv, ret = advantages(hand_built_rollout(), gamma=0.9, lam=0.8)
    # A: delta5 = 1 + 0.6 = 1.6; delta2 = 0.9 * -0.6 - 0.1 = -0.64; delta0 = 0.9 * 0.1 - 0.5
    #    A5 = 1.6; A2 = -0.64 + 0.72 * 1.6 = 0.512; A0 = -0.41 + 0.72 * 0.512 = -0.04136
    # B: A4 = 2 - 0.4 = 1.6; A1 = (0.9 * 0.4 + 0.2) + 0.72 * 1.6 = 1.712
    # C: A3 = -1 - 0.3 = -1.3
    expected = [-0.04136, 1.712, 0.512, -1.3, 1.6, 1.6]
    np.testing.assert_allclose(adv, expected, atol=1e-5)
    np.testing.assert_allclose(ret, np.array(expected) + hand_built_rollout().values,
                               atol=1e-5)


def test_gae_with_lambda_one_is_the_final_reward_minus_the_value():
    ro = hand_built_rollout()
    adv, ret = advantages(ro, gamma=1.0, lam=1.0)
    final = np.array([1.0, 2.0, 1.0, -1.0, 2.0, 1.0])  # each sample's trajectory's reward
    np.testing.assert_allclose(adv, final - ro.values, atol=1e-6)
    np.testing.assert_allclose(ret, final, atol=1e-6)


def test_gae_with_lambda_zero_is_the_one_step_error():
    ro = hand_built_rollout()
    adv, _ = advantages(ro, gamma=1.0, lam=0.0)
    v = ro.values
    np.testing.assert_allclose(adv, [v[2] - v[0], v[4] - v[1], v[5] - v[2], -1 - v[3],
                                     2 - v[4], 1 - v[5]], atol=1e-6)


def test_gae_of_an_empty_rollout_is_empty():
    empty = Rollout(np.zeros((0, 1), np.float32), None, np.zeros((0, 2), bool),
                    np.zeros(0, np.int64), np.zeros(0, np.float32), np.zeros(0, np.float32),
                    np.zeros(0, np.float32), np.zeros(0, np.int64), np.zeros(0, np.int64))
    adv, ret = advantages(empty, 0.9, 0.9)
    assert adv.shape == ret.shape == (0,)


# ---------------------------------------------------------------------- rollouts
@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_self_play_rollout_records_every_decision_of_both_teams(ruleset):
    trainer = make_trainer(ruleset, SELF_PLAY, seed=3)
    ro, log, st = traced_rollout(trainer)
    for entry in log:
        assert np.array_equal(entry["learner"], entry["active"])  # both teams learn
    tables, seats = sample_origins(ro, log)
    n_decisions = sum(int(e["active"].sum()) for e in log)
    assert ro.actions.size == n_decisions == tables.size
    S = trainer.game.n_seats
    assert set(seats.tolist()) == set(range(S))
    for t in range(trainer.cfg.tables):
        assert {s % 2 for s in seats[tables == t]} == {0, 1}
    check_samples(trainer, ro, log, st, tables, seats)


def test_against_the_heuristic_only_one_team_per_table_learns():
    trainer = make_trainer("standard", HEURISTIC, seed=4)
    ro, log, st = traced_rollout(trainer)
    tables, seats = sample_origins(ro, log)
    team = np.full(trainer.cfg.tables, -1)
    for t in range(trainer.cfg.tables):
        teams = {s % 2 for s in seats[tables == t]}
        assert len(teams) == 1, f"table {t}: learner seats of both teams"
        team[t] = teams.pop()
    assert set(team.tolist()) == {0, 1}  # the learner's team is drawn per table
    for entry in log:  # the other team's decisions all went to the opponent
        act = np.flatnonzero(entry["active"])
        assert np.array_equal(entry["learner"][act], entry["seats"][act] % 2 == team[act])
    n_learner = sum(int(e["learner"].sum()) for e in log)
    assert ro.actions.size == n_learner < sum(int(e["active"].sum()) for e in log)
    check_samples(trainer, ro, log, st, tables, seats)
    assert ro.stats["opponents/heuristic"] == 1.0


def check_samples(trainer, ro, log, st, tables, seats):
    n = ro.actions.size
    B = trainer.cfg.tables
    assert ro.obs.shape == (n, trainer.encoder.size) and ro.obs.dtype == np.float32
    assert ro.masks.shape == (n, trainer.game.n_actions) and ro.hands == B
    assert np.all(np.diff(ro.step) >= 0)
    # every sample's mask holds its action, and that action is the one the table played
    assert ro.masks[np.arange(n), ro.actions].all()
    played = np.concatenate([e["actions"][np.flatnonzero(e["learner"])] for e in log])
    masks = np.concatenate([e["masks"][np.flatnonzero(e["learner"])] for e in log])
    assert np.array_equal(ro.actions, played) and np.array_equal(ro.masks, masks)
    assert np.isfinite(ro.logp).all() and (ro.logp <= 0).all()
    # each seat's samples form one chain, in order; its last decision carries the reward
    r = team_rewards(st, np.arange(B), "marks")
    for t in range(B):
        for s in np.unique(seats[tables == t]):
            idx = np.flatnonzero((tables == t) & (seats == s))
            assert np.array_equal(ro.nxt[idx[:-1]], idx[1:]) and ro.nxt[idx[-1]] == -1
            assert ro.rewards[idx[-1]] == r[t, s % 2]
            assert (ro.rewards[idx[:-1]] == 0).all()
    assert (r != 0).any()  # the hands were not all thrown in


def test_rollout_values_and_logps_are_the_policys():
    trainer = make_trainer(opponents=dict(self_play=0.5, heuristic=0.5, pool=0), seed=5)
    ro = trainer.rollout()
    play = trainer.policy.is_play(ro.masks)
    with torch.no_grad():
        for net, rows in ((trainer.policy.play, play), (trainer.policy.bid, ~play)):
            logits, v = net(torch.from_numpy(ro.obs[rows]), torch.from_numpy(ro.masks[rows]))
            lp = torch.log_softmax(logits, -1).gather(
                1, torch.from_numpy(ro.actions[rows])[:, None]).squeeze(1)
            np.testing.assert_allclose(lp.numpy(), ro.logp[rows], atol=1e-5)
            np.testing.assert_allclose(v.numpy(), ro.values[rows], atol=1e-5)


def reference_gae(ro: Rollout, gamma: float, lam: float) -> np.ndarray:
    """GAE by walking each seat's chain from its end (a successor always comes later)."""
    has = ro.nxt >= 0
    assert (ro.nxt[has] > np.flatnonzero(has)).all()
    adv = np.zeros(ro.actions.size)
    for i in range(ro.actions.size - 1, -1, -1):
        j = ro.nxt[i]
        nv, na = (ro.values[j], adv[j]) if j >= 0 else (0.0, 0.0)
        adv[i] = ro.rewards[i] + gamma * nv - ro.values[i] + gamma * lam * na
    return adv


def test_gae_on_a_real_rollout_follows_each_seat_chain():
    trainer = make_trainer(opponents=dict(self_play=0.5, heuristic=0.5, pool=0), seed=6,
                           gamma=0.97, gae_lambda=0.9)
    ro = trainer.rollout()
    adv, ret = trainer.advantages(ro)
    expect = reference_gae(ro, 0.97, 0.9)
    np.testing.assert_allclose(adv, expect, atol=1e-4)
    np.testing.assert_allclose(ret, expect + ro.values, atol=1e-4)


def test_rollouts_use_the_next_deals_and_are_reproducible():
    a, b = make_trainer(seed=8), make_trainer(seed=8)
    ra, rb = a.rollout(), b.rollout()
    assert np.array_equal(ra.actions, rb.actions) and np.array_equal(ra.obs, rb.obs)
    a.update += 1
    assert not np.array_equal(a.rollout().obs[:32], ra.obs[:32])  # update 1: other deals


def test_the_pool_fills_with_snapshots_and_then_plays():
    trainer = make_trainer(opponents=dict(self_play=0, pool=1, heuristic=0, snapshot_every=1,
                                          pool_size=2), seed=9)
    ro, log, _ = traced_rollout(trainer)
    assert ro.stats["opponents/self_play"] == 1.0 and ro.stats["opponents/pool"] == 0.0
    assert all(np.array_equal(e["learner"], e["active"]) for e in log)  # no pool yet
    for _ in range(3):
        trainer.train_update()
    assert trainer.update == 3 and len(trainer.pool) == 2  # the newest pool_size kept
    now = trainer.policy.state_dict()
    assert all(torch.equal(trainer.pool[-1][k], v) for k, v in now.items())
    assert not all(torch.equal(trainer.pool[0][k], v) for k, v in now.items())
    ro, log, _ = traced_rollout(trainer)
    assert ro.stats["opponents/pool"] == 1.0
    assert sum(int(e["opponent"].sum()) for e in log) > 0


# ---------------------------------------------------------------------- learning
def policy_outputs(trainer: Trainer, ro: Rollout) -> tuple[np.ndarray, np.ndarray]:
    play = trainer.policy.is_play(ro.masks)
    logp = np.zeros(ro.actions.size, np.float32)
    values = np.zeros(ro.actions.size, np.float32)
    with torch.no_grad():
        for net, rows in ((trainer.policy.play, play), (trainer.policy.bid, ~play)):
            logits, v = net(torch.from_numpy(ro.obs[rows]), torch.from_numpy(ro.masks[rows]))
            logp[rows] = torch.log_softmax(logits, -1).gather(
                1, torch.from_numpy(ro.actions[rows])[:, None]).squeeze(1).numpy()
            values[rows] = v.numpy()
    return logp, values


def test_an_update_moves_the_policy_towards_the_advantages_and_fits_the_values():
    trainer = make_trainer(opponents=dict(self_play=0.5, heuristic=0.5, pool=0), seed=10,
                           tables=64, epochs=4, lr=1e-3, ent_coef=0.0)
    ro = trainer.rollout()
    adv = reference_gae(ro, trainer.cfg.gamma, trainer.cfg.gae_lambda)
    ret = adv + ro.values
    logp0, v0 = policy_outputs(trainer, ro)
    logs = trainer.learn(ro)
    logp1, v1 = policy_outputs(trainer, ro)
    assert all(math.isfinite(v) for v in logs.values())
    assert logs["losses/approx_kl"] > 0
    norm = (adv - adv.mean()) / adv.std()
    assert float(np.sum(norm * (logp1 - logp0))) > 0  # likelier where the advantage is high
    assert np.mean((v1 - ret) ** 2) < np.mean((v0 - ret) ** 2)


def test_learn_takes_epochs_times_minibatches_steps_unless_kl_stops_it():
    trainer = make_trainer(seed=11, epochs=3, minibatch=100)
    ro = trainer.rollout()
    trainer.learn(ro)
    steps = {int(s["step"]) for s in trainer.optimizer.state.values()}
    assert steps == {3 * math.ceil(ro.actions.size / 100)}
    early = make_trainer(seed=11, epochs=3, minibatch=100, target_kl=1e-12)
    early.learn(early.rollout())
    steps = {int(s["step"]) for s in early.optimizer.state.values()}
    assert max(steps) <= 2


@pytest.mark.parametrize("nets, fixed", [("bid", "play"), ("play", "bid")])
def test_nets_trains_the_named_net_alone_on_its_own_decisions(nets, fixed):
    trainer = make_trainer(opponents=dict(self_play=0.5, heuristic=0.5, pool=0), seed=12,
                           epochs=2, minibatch=50, nets=nets)
    before = {k: v.clone() for k, v in trainer.policy.state_dict().items()}
    ro = trainer.rollout()
    trainer.learn(ro)
    after = trainer.policy.state_dict()
    for k, v in before.items():
        same = torch.equal(v, after[k])
        assert same == k.startswith(fixed + "."), k
    own = trainer.policy.is_play(ro.masks) == (nets == "play")
    steps = {int(s["step"]) for s in trainer.optimizer.state.values()}
    assert steps == {2 * math.ceil(int(own.sum()) / 50)}  # minibatches of its rows alone
    assert "losses/entropy_" + fixed not in trainer.learn(ro)


def test_the_bid_net_alone_is_not_trained_with_the_solver_baseline():
    with pytest.raises(ValueError, match="algorithm.baseline.*nets is bid"):
        PPOConfig(baseline="solver", nets="bid")
    with pytest.raises(ValueError, match="algorithm.nets"):
        PPOConfig(nets="value")


def test_train_update_counts_samples_hands_and_updates():
    trainer = make_trainer(seed=12)
    logs = trainer.train_update()
    assert trainer.update == 1 and trainer.hands == 32
    assert trainer.samples == logs["perf/samples"] > 32 * 4
    for key in ("losses/pg_loss", "losses/v_loss", "losses/entropy", "losses/approx_kl",
                "losses/clipfrac", "losses/explained_variance",
                "perf/samples_per_s", "opponents/self_play"):
        assert math.isfinite(logs[key]), key


def test_the_learner_return_is_its_teams_marks_against_the_other_opponents():
    only_self = make_trainer(seed=12, opponents=SELF_PLAY)
    assert math.isnan(only_self.rollout().stats["rollout/learner_return"])
    trainer = make_trainer(seed=12, opponents=HEURISTIC)
    ro = trainer.rollout()
    # every learner seat's last decision of a hand holds its team's reward: two per table
    per_table = ro.rewards.sum() / 2 / ro.hands
    assert ro.stats["rollout/learner_return"] == pytest.approx(per_table)
    assert ro.stats["rollout/return_vs_heuristic"] == ro.stats["rollout/learner_return"]


@pytest.mark.parametrize("opponents", [
    dict(self_play=0.4, pool=0.3, heuristic=0.3, snapshot_every=1),
    dict(self_play=0.3, pool=0.2, heuristic=0.2, random=0.3, snapshot_every=1),
    dict(self_play=0.2, pool=0.2, heuristic=0.3, random=0.3, snapshot_every=1, prioritize=3,
         prioritize_decay=0.5),
], ids=["pool-heuristic", "with-random", "league"])
def test_a_saved_trainer_continues_exactly(tmp_path, opponents):
    a = make_trainer(opponents=opponents, seed=13)
    a.train_update()
    path = save_checkpoint(tmp_path / "ckpt_000001.pt", a.state_dict())
    b = make_trainer(opponents=opponents, seed=13)
    b.load_state_dict(load_checkpoint(path, require=("model", "optimizer", "rng", "step")))
    for _ in range(2):
        a.train_update()
        b.train_update()
    assert b.update == a.update == 3 and b.samples == a.samples
    assert np.array_equal(a.losses, b.losses)
    sa, sb = a.policy.state_dict(), b.policy.state_dict()
    for key in sa:
        assert torch.equal(sa[key], sb[key]), key


def test_the_search_opponent_plays_as_its_agent_and_its_hands_are_scored():
    # with the heuristic as the search agent, the search kind's tables play as the heuristic's
    as_search = make_trainer(seed=21, opponents=dict(self_play=0, pool=0, heuristic=0,
                                                     search=1, search_agent="heuristic"))
    as_heuristic = make_trainer(seed=21, opponents=HEURISTIC)
    a, b = as_search.rollout(), as_heuristic.rollout()
    for key in ("obs", "actions", "rewards", "logp"):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert a.stats["rollout/return_vs_search"] == b.stats["rollout/return_vs_heuristic"]
    # the league's loss rate is the share of hands lost (half a draw), folded in from 0.5
    mine = a.tables["mine"]
    lost = np.mean((mine < 0) + 0.5 * (mine == 0))
    d = as_search.opp.prioritize_decay
    assert as_search.losses[OPPONENT_KINDS.index("search")] == pytest.approx(
        d * 0.5 + (1 - d) * lost)
    assert a.stats["league/loss_rate_search"] == pytest.approx(d * 0.5 + (1 - d) * lost)
    assert as_search.losses[OPPONENT_KINDS.index("random")] == 0.5  # not met: unchanged


def test_pimc_as_the_search_opponent_plays_whole_hands():
    trainer = make_trainer(seed=22, tables=8, opponents=dict(
        self_play=0, pool=0, heuristic=0, search=1,
        search_agent={"name": "pimc", "n_worlds": 2}))
    ro, log, st = traced_rollout(trainer)
    assert ro.hands == 8 and (st.phase >= HAND_OVER).all()
    assert sum(int(e["opponent"].sum()) for e in log) > 0
    assert "rollout/return_vs_search" in ro.stats


def test_a_perfect_information_critic_trains():
    trainer = make_trainer(seed=14, model=ModelConfig(hidden=16, bid_hidden=16,
                                                      critic="perfect"))
    ro = trainer.rollout()
    assert ro.critic_obs is not None and ro.critic_obs.shape[0] == ro.actions.size
    assert ro.critic_obs.shape[1] > ro.obs.shape[1]
    logs = trainer.learn(ro)
    assert math.isfinite(logs["losses/v_loss"])


# ---------------------------------------------------------------------- the solver baseline
def _perfect_marks(game, st, t):
    """The marks reward of each team at table ``t`` when every seat plays as the exact solver
    says from here (each seat picking its side's best value), stepped to the hand's end."""
    from agents.search.solver import _solver

    one = st.take([t])
    while one.phase[0] < HAND_OVER:
        seat, values = _solver().position(game, one, 0)  # {tile id: value}
        ours = (seat & 1) == (int(one.bidder[0]) & 1)
        # nello values are the bidder's tricks: its side wants fewest
        want_most = ours != (int(one.contract[0]) == NELLO)
        pick = (max if want_most else min)(values, key=values.get)
        game.step(one, np.array([game.actions.play0 + pick]))
    return team_rewards(one, np.arange(1), "marks")[0]


def test_the_solver_baseline_is_the_marks_of_perfect_play_from_the_true_deal():
    trainer = make_trainer(seed=3, baseline="solver", tables=8)
    game = trainer.game
    calls = []
    exact = trainer.worker.exact_baseline

    def spy(st, rows, masks):  # check it where the rollout asks for it
        out = exact(st, rows, masks)
        if len(calls) < 6:
            for i, r in enumerate(rows):
                if np.isfinite(out[i]):
                    mover = int(st.to_move[r]) & 1
                    assert out[i] == _perfect_marks(game, st, int(r))[mover]
                    calls.append(out[i])
        return out

    trainer.worker.exact_baseline = spy
    ro = trainer.rollout()
    play = trainer.policy.is_play(ro.masks)
    assert len(calls) >= 6 and set(np.abs(calls)) <= set(range(1, 8))  # a bid is 1..7 marks
    assert np.isfinite(ro.baseline[play]).all() and np.isnan(ro.baseline[~play]).all()
    # play decisions' advantages: the return (the seat's team reward at the hand's end)
    # minus the baseline; bidding decisions keep the critic's GAE
    adv, ret = trainer.advantages(ro)
    mc = trainer.monte_carlo(ro)
    last = ro.nxt < 0
    for i in range(ro.actions.size):  # follow the seat's chain to its last decision
        j = i
        while ro.nxt[j] >= 0:
            j = ro.nxt[j]
        assert mc[i] == ro.rewards[j] and last[j]
    np.testing.assert_allclose(adv[play], mc[play] - ro.baseline[play])
    expect = reference_gae(ro, 1.0, 0.95)
    np.testing.assert_allclose(adv[~play], expect[~play], atol=1e-4)
    np.testing.assert_allclose(ret, expect + ro.values, atol=1e-4)


@pytest.mark.parametrize("ppo, says", [
    ({"reward": "points"}, "algorithm.baseline must be critic unless algorithm.reward is marks"),
    ({"gamma": 0.9}, "algorithm.baseline must be critic unless algorithm.reward is marks")])
def test_the_solver_baseline_needs_the_undiscounted_marks_reward(ppo, says):
    from texas42_env.rules import ConfigError

    with pytest.raises(ConfigError, match=re.escape(says)):
        PPOConfig(baseline="solver", **ppo)


def test_the_solver_baseline_is_refused_in_the_six_player_game():
    from texas42_env.rules import ConfigError

    with pytest.raises(ConfigError, match="critic in the six-player game"):
        make_trainer("six-player", baseline="solver")


def test_averaged_weights_follow_each_update_and_are_what_agents_act_with(tmp_path):
    from agents.baselines.neural import NeuralAgent

    trainer = make_trainer(seed=4, ema=0.5, tables=8)
    assert trainer.acting_policy() is trainer.policy  # nothing averaged before an update
    trainer.train_update()
    first = {k: v.clone() for k, v in trainer.policy.state_dict().items()}
    assert all(torch.equal(trainer.ema[k], v) for k, v in first.items())  # it starts there
    trainer.train_update()
    now = trainer.policy.state_dict()
    key = next(k for k, v in now.items() if v.is_floating_point() and not torch.equal(v, first[k]))
    torch.testing.assert_close(trainer.ema[key], 0.5 * first[key] + 0.5 * now[key])
    acting = trainer.acting_policy()
    assert acting is not trainer.policy and torch.equal(acting.state_dict()[key], trainer.ema[key])
    # a checkpoint keeps both: the training weights resume, agents act with the average
    path = tmp_path / "ck.pt"
    save_checkpoint(path, trainer.state_dict())
    agent = NeuralAgent(path=str(path))
    assert torch.equal(agent.policy.state_dict()[key], trainer.ema[key])
    again = make_trainer(seed=4, ema=0.5, tables=8)
    again.load_state_dict(load_checkpoint(path))
    assert torch.equal(again.policy.state_dict()[key], now[key])
    assert torch.equal(again.ema[key], trainer.ema[key])
    # without ema nothing is averaged or saved
    plain = make_trainer(seed=4, tables=8)
    plain.train_update()
    assert plain.ema is None and "ema_state_dict" not in plain.state_dict()["model"]
