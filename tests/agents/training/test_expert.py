"""Expert iteration (``agents.training.expert``): labels are the teacher's own move values,
chunks do not depend on the workers, a run resumes to the files of an unbroken one, training
fits the targets, and bad settings are named."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from texas42_env.actions import NO_ACTION
from texas42_env.core import HAND_OVER, PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import NELLO, RulesConfig

from agents import make_agent
from agents.baselines.neural import NeuralAgent, policy_from_checkpoint
from agents.driver import act_rows
from agents.nets.checkpoint import load_checkpoint, save_checkpoint
from agents.nets.policy import ModelConfig, Policy
from agents.search.solver import _solver
from agents.baselines.pimc import bid_made
from agents.driver import play_out
from agents.arena.duplicate import play_duplicate, summarize
from agents.training.expert import (INIT_ROUND, ROLLOUT, TRUE_DEAL, ExpertConfig, ExpertError,
                                    RolloutTeacher, TrueDealTeacher, _centred_error,
                                    chunk_path, eval_rounds, judge, label_games, load_labels,
                                    make_teacher, play_log_probs, run_expert, solver_measure,
                                    targets, train_round)
from agents.runs import read_lines

from helpers import ROOT

SMALL = {"teacher": {"name": "pimc", "n_worlds": 2}, "hands": 8, "chunk_hands": 4,
         "holdout": 2, "epochs": 2, "minibatch": 64, "workers": 1, "progress": False}


def _timeless(m: dict) -> dict:
    """A round's metrics but for the seconds it took."""
    return {k: v for k, v in m.items() if k != "seconds"}


def _init(tmp_path, ruleset="standard"):
    game = Game(RulesConfig.make(ruleset))
    enc = make_encoder(game)
    torch.manual_seed(0)
    cfg = ModelConfig(hidden=32, layers=1, bid_hidden=16, bid_layers=1)
    policy = Policy(enc.size, game.n_actions, game.actions.play0, cfg)
    path = tmp_path / "init.pt"
    save_checkpoint(path, {"model": {"obs_size": enc.size, "n_actions": game.n_actions,
                                     "play0": game.actions.play0, "config": cfg.to_dict(),
                                     "critic_size": 0, "state_dict": policy.state_dict()},
                           "rules": {"ruleset": ruleset, "options": {}}})
    return game, policy, str(path)


def test_labels_are_the_teachers_move_values_and_its_choice_is_their_best(tmp_path):
    game, policy, _ = _init(tmp_path)
    teacher = make_agent("pimc", n_worlds=3, seed=2).setup(game)
    player = NeuralAgent(policy=policy, greedy=False).setup(game)
    d = label_games(game, make_agent("heuristic").setup(game), player, teacher, 0,
                    np.arange(6))
    n = len(d["reward"])
    assert n > 30 and d["obs"].shape == (n, (make_encoder(game).size + 7) // 8)
    assert (d["weight"].sum(1) == 3).all()
    legal = d["legal"]
    n_legal = (legal >= 0).sum(1)
    assert (n_legal >= 2).all()
    for i in range(n):  # padding holds nothing; the values are points of 42
        assert (d["utility"][i][:, n_legal[i]:] == 0).all()
        assert d["utility"][i].min() >= 0 and d["utility"][i].max() <= 42
    assert set(np.unique(d["reward"])) <= set(range(-4, 5))
    # the positions again, from the same games: the teacher picks a move of best value
    mask, p, values = targets(d, game.actions.play0, game.n_actions, 2.0)
    assert torch.allclose(p.sum(1), torch.ones(n))
    assert ((p > 0) == mask).all()
    best = values.masked_fill(~mask, -1e9).argmax(1)
    assert (p.argmax(1) == best).all()  # the softmax keeps the order of the values


def test_pimc_picks_a_move_its_labels_value_most(tmp_path):
    """``mover_utility`` agrees with PIMC's own scoring: on suit hands the move PIMC plays
    has the highest world-averaged utility among the legal moves."""
    from agents.baselines.pimc import mover_utility
    from agents.driver import act_rows

    game = Game(RulesConfig.make())
    st = game.reset(24, seed=7)
    h = make_agent("heuristic").setup(game)
    pimc = make_agent("pimc", n_worlds=3, seed=5).setup(game)
    enc = make_encoder(game)
    while (st.phase < PLAYING).any():  # bidding and declaring, heuristic at every seat
        rows = np.flatnonzero(st.phase < PLAYING)
        a = np.full(24, NO_ACTION)
        a[rows] = act_rows(game, st, h, rows, enc)
        game.step(st, a)
    checked = 0
    for t in np.flatnonzero(st.phase == PLAYING):
        if int(st.contract[t]) == NELLO or st.legal[t, game.actions.play0:].sum() < 2:
            continue
        s = int(st.to_move[t])
        legal, values, mult = pimc.move_values(game, st, int(t), s, st.legal[t])
        u = mult @ mover_utility(values, int(st.contract[t]), s, int(st.bidder[t]), 7)
        a = int(act_rows(game, st, pimc, np.array([t]), enc)[0]) - game.actions.play0
        assert u[list(legal).index(a)] == u.max()
        checked += 1
    assert checked >= 10


def test_a_run_resumes_to_the_files_of_an_unbroken_run_on_any_number_of_workers(tmp_path):
    _, _, init = _init(tmp_path)
    straight = run_expert(ExpertConfig(init=init, rounds=2, **SMALL), tmp_path / "a")
    run_expert(ExpertConfig(init=init, rounds=1, **{**SMALL, "workers": 2}), tmp_path / "b")
    again = run_expert(ExpertConfig(init=init, rounds=2, **SMALL), tmp_path / "b")
    assert [m["holdout_after"] for m in straight["rounds"]] == \
        [m["holdout_after"] for m in again["rounds"]]
    for r in range(2):
        for k in range(2):
            name = f"labels/round_{r}/chunk_{k:05d}.npz"
            with np.load(tmp_path / "a" / name) as x, np.load(tmp_path / "b" / name) as y:
                assert x.files == y.files
                for f in x.files:
                    np.testing.assert_array_equal(x[f], y[f])
        a = load_checkpoint(tmp_path / "a" / f"checkpoints/round_{r}.pt")["model"]["state_dict"]
        b = load_checkpoint(tmp_path / "b" / f"checkpoints/round_{r}.pt")["model"]["state_dict"]
        assert all(torch.equal(a[k], b[k]) for k in a)
    # the last round's checkpoint plays as a neural agent
    agent = make_agent("neural", path=straight["checkpoint"])
    assert agent.setup(Game()).policy is not None
    for where in (tmp_path / "a", tmp_path / "a" / "checkpoints"):  # by folder: the last round
        assert make_agent("neural", path=str(where)).path == Path(straight["checkpoint"])
    # the student's bidding net is the init's: only play is trained
    init_sd = load_checkpoint(init)["model"]["state_dict"]
    assert all(torch.equal(init_sd[k], a[k]) for k in a if k.startswith("bid."))
    assert not all(torch.equal(init_sd[k], a[k]) for k in a if k.startswith("play."))


def test_a_torn_metrics_line_is_dropped_and_its_round_trained_again_to_the_same_weights(
        tmp_path, capsys):
    _, _, init = _init(tmp_path)
    config = ExpertConfig(init=init, rounds=1, **SMALL)
    run_expert(config, tmp_path / "r")
    metrics = tmp_path / "r" / "metrics.jsonl"
    line = metrics.read_bytes()
    ck = tmp_path / "r" / "checkpoints" / "round_0.pt"
    before = load_checkpoint(ck)["model"]["state_dict"]
    metrics.write_bytes(line[:len(line) // 2])  # killed while writing round 0's line
    capsys.readouterr()
    run_expert(config, tmp_path / "r")
    err = capsys.readouterr().err
    assert f"expert: {metrics}: line 1 is incomplete (a write cut short): dropped" in err
    assert f"expert: resuming {tmp_path / 'r'}: kept 0 of 1 rounds and 2 of 2 label chunks " \
        "of round 0; round 0 next" in err
    # the torn line cut off, the round's line again (but for the seconds it took)
    assert metrics.read_bytes().count(b"\n") == 1
    assert _timeless(json.loads(metrics.read_bytes())) == _timeless(json.loads(line))
    after = load_checkpoint(ck)["model"]["state_dict"]
    assert all(torch.equal(before[k], after[k]) for k in before)
    metrics.write_text('{"round": 0}\nnot json\n')  # damage is refused, never dropped
    with pytest.raises(ExpertError, match="line 2 is not a round's metrics"):
        run_expert(config, tmp_path / "r")


def test_device_cpu_trains_to_the_weights_of_the_default_and_may_change_on_resume(tmp_path):
    """auto is the CPU on a machine without a GPU: the same weights; the device is not part
    of the run's identity (config.json), so a run made on one resumes on another."""
    _, _, init = _init(tmp_path)
    auto = run_expert(ExpertConfig(init=init, rounds=1, **SMALL), tmp_path / "auto")
    cpu = run_expert(ExpertConfig(init=init, rounds=1, device="cpu", **SMALL), tmp_path / "cpu")
    assert list(map(_timeless, auto["rounds"])) == list(map(_timeless, cpu["rounds"]))
    assert (tmp_path / "auto" / "config.json").read_text() == \
        (tmp_path / "cpu" / "config.json").read_text()
    a = load_checkpoint(auto["checkpoint"])["model"]["state_dict"]
    b = load_checkpoint(cpu["checkpoint"])["model"]["state_dict"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert all(v.device.type == "cpu" for v in b.values())
    again = run_expert(ExpertConfig(init=init, rounds=1, device="cpu", **SMALL),
                       tmp_path / "auto")  # resumed: nothing left to do
    assert again["rounds"] == auto["rounds"]


def test_a_device_torch_cannot_use_is_one_line_and_a_non_zero_exit(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: device=cuda is allowed here")  # said, not silent
    _, _, init = _init(tmp_path)
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "expert.py"), f"init={init}",
                          f"out={tmp_path / 'run'}", "device=cuda"], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "expert: device: cuda asked, but torch sees no CUDA GPU here (this install can use: "
        "cpu); use device=cpu or auto"]
    assert not (tmp_path / "run").exists()  # nothing made before the refusal


def test_training_fits_the_targets(tmp_path):
    game, policy, init = _init(tmp_path)
    run_expert(ExpertConfig(init=init, rounds=1, **SMALL), tmp_path / "r")
    data = load_labels(tmp_path / "r", 1, 2, 2, held=False)
    cfg = ExpertConfig(init=init, **{**SMALL, "epochs": 30, "lr": 3e-3})
    args = (cfg, game.actions.play0, game.n_actions, make_encoder(game).size)
    before = judge(policy, data, *args)
    train_round(policy, data, *args, torch.Generator().manual_seed(0))
    after = judge(policy, data, *args)
    assert after["cross_entropy"] < before["cross_entropy"] - 0.1
    assert after["regret"] <= before["regret"]


def test_a_played_move_of_best_value_has_no_regret(tmp_path):
    game, policy, _ = _init(tmp_path)
    p0, A = game.actions.play0, game.n_actions
    d = {"legal": np.array([[3, 5, -1, -1, -1, -1, -1, -1, -1]], np.int8),
         "utility": np.zeros((1, 2, 9), np.float16), "weight": np.ones((1, 2), np.float32),
         "obs": np.zeros((1, (make_encoder(game).size + 7) // 8), np.uint8),
         "reward": np.zeros(1, np.float32)}
    d["utility"][0, :, 0] = [10, 20]  # tile 3: 15 on average
    d["utility"][0, :, 1] = [12, 12]  # tile 5: 12
    mask, p, values = targets(d, p0, A, 3.0)
    assert mask[0].sum() == 2 and values[0, p0 + 3] == 15 and values[0, p0 + 5] == 12
    assert float(p[0, p0 + 3]) == pytest.approx(1 / (1 + np.exp(-1)))
    with torch.no_grad():  # make the net prefer tile 5, then tile 3
        policy.play.logits.bias.zero_()
        policy.play.logits.bias[p0 + 5] = 50.0
    cfg = ExpertConfig(init="x", **SMALL)
    assert judge(policy, d, cfg, p0, A, make_encoder(game).size)["regret"] == pytest.approx(3)
    with torch.no_grad():
        policy.play.logits.bias[p0 + 3] = 100.0
    got = judge(policy, d, cfg, p0, A, make_encoder(game).size)
    assert got["regret"] == 0 and got["agreement"] == 1


def test_a_run_without_init_says_init_is_required(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "expert.py"),
                          f"out={tmp_path / 'run'}"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "expert: init is required (the config leaves it ???); give it as init=..."]
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("over, says", [
    ({"hands": 10}, "hands must be a multiple of chunk_hands (4), got 10"),
    ({"teacher": "heuristic"}, "teacher: the teacher must be true_deal, rollout or a search agent"),
    ({"target": "logits"},
     "target: unknown target 'logits'; allowed: softmax, values, improve"),
    ({"bidding": "nobody"}, "bidding: unknown agent 'nobody'"),
    ({"tau": 0}, "tau must be"),
    ({"holdout": 3}, "holdout must be at most the chunks a round (2"),
    ({"init": ""}, "init must be a policy checkpoint or run folder"),
    ({"device": "gpu"}, "device must be auto, cpu, cuda, cuda:N or mps, got 'gpu'")])
def test_bad_settings_are_named(over, says):
    with pytest.raises(ExpertError, match=re.escape(says)):
        ExpertConfig.from_dict({"init": "somewhere", **SMALL, **over})


def test_a_folder_of_other_settings_and_a_missing_init_are_refused(tmp_path):
    _, _, init = _init(tmp_path)
    run_expert(ExpertConfig(init=init, rounds=1, **SMALL), tmp_path / "r")
    with pytest.raises(ExpertError, match=re.escape("tau: 2.0 there, 3.0 now")):
        run_expert(ExpertConfig(init=init, rounds=1, **{**SMALL, "tau": 3.0}), tmp_path / "r")
    with pytest.raises(ExpertError, match="init: "):
        run_expert(ExpertConfig(init=str(tmp_path / "none"), rounds=1, **SMALL),
                   tmp_path / "s")
    _, _, six = _init(tmp_path / "six" if (tmp_path / "six").mkdir() is None else tmp_path,
                      "six-player")
    with pytest.raises(ExpertError, match="trained for another game"):
        run_expert(ExpertConfig(init=six, rounds=1, **SMALL), tmp_path / "t")


def test_the_make_objective_values_the_hand_going_the_movers_way(tmp_path):
    """Two worlds, need 30 for the mover's team: tile 3 takes 29 and 41 (36 on average,
    made once), tile 5 takes 30 in both (made twice): points prefer tile 3, make tile 5."""
    game, _, _ = _init(tmp_path)
    p0, A = game.actions.play0, game.n_actions
    d = {"legal": np.array([[3, 5, -1, -1, -1, -1, -1, -1, -1]], np.int8),
         "utility": np.zeros((1, 2, 9), np.float16), "weight": np.ones((1, 2), np.float32),
         "good_at": np.array([30], np.int16), "total": np.array([42], np.int16)}
    d["utility"][0, :, 0] = [29, 41]
    d["utility"][0, :, 1] = [30, 30]
    _, p_points, v_points = targets(d, p0, A, 2.0, "points")
    _, p_make, v_make = targets(d, p0, A, 2.0, "make")
    assert v_points[0, p0 + 3] > v_points[0, p0 + 5]
    assert v_make[0, p0 + 5] == pytest.approx(42 + 0.30)
    assert v_make[0, p0 + 3] == pytest.approx(21 + 0.35)
    assert p_make[0, p0 + 5] > 0.99
    del d["good_at"]
    with pytest.raises(ExpertError, match="labels without good_at"):
        targets(d, p0, A, 2.0, "make")


def test_good_at_is_where_the_bid_is_made_or_set():
    from agents.baselines.pimc import good_at

    assert good_at(5, 30, True) == 30 and good_at(5, 30, False) == 13  # 42 - 29 = 13: set
    assert good_at(5, -1, True) == 42 and good_at(5, -1, False) == 1  # a marks bid
    assert good_at(NELLO, -1, True) == 42 and good_at(NELLO, -1, False) == 1
    assert good_at(5, 60, False, total=88) == 29


def test_a_teacher_with_a_bid_model_labels_every_position_on_one_width(tmp_path):
    """Its resampled worlds are fewer where one is drawn twice: every row still has a place
    for each world the teacher may search, the weights summing to its worlds."""
    game, policy, _ = _init(tmp_path)
    teacher = make_agent("pimc", n_worlds=4, bid_model="heuristic", seed=2).setup(game)
    player = NeuralAgent(policy=policy, greedy=False).setup(game)
    d = label_games(game, make_agent("heuristic").setup(game), player, teacher, 0,
                    np.arange(4))
    assert d["utility"].shape[1:] == (4, 9) and (d["weight"].sum(1) == 4).all()
    assert (d["weight"] == 0).any()  # some decision drew a world twice


def test_the_true_deal_teacher_gives_the_solvers_values_of_the_game_itself(tmp_path):
    game, policy, _ = _init(tmp_path)
    teacher = make_teacher(TRUE_DEAL, game)
    assert isinstance(teacher, TrueDealTeacher)
    player = NeuralAgent(policy=policy, greedy=False).setup(game)
    d = label_games(game, make_agent("heuristic").setup(game), player, teacher, 0,
                    np.arange(4))
    n = len(d["reward"])
    assert n > 20 and d["utility"].shape[1] == 1 and (d["weight"] == 1).all()
    # the first decision with a choice of game 0, found again: its values are the solver's
    st = game.reset(1, seed=0, game_ids=np.arange(1))
    bidder, enc = make_agent("heuristic").setup(game), make_encoder(game)
    while not (st.phase[0] == PLAYING and st.legal[0, game.actions.play0:].sum() >= 2):
        seat = st.to_move[:1]
        agent = player if st.phase[0] == PLAYING else bidder
        game.step(st, act_rows(game, st, agent, np.arange(1), enc, seat))
    legal, values, mult = teacher.move_values(game, st, 0, int(st.to_move[0]), st.legal[0])
    moves = _solver().position(game, st, 0)[1]
    assert values.shape == (1, legal.size) and list(values[0]) == [moves[t] for t in legal]
    assert list(mult) == [1.0]
    ExpertConfig.from_dict({"init": "somewhere", **SMALL, "teacher": "true_deal"})


def test_the_values_target_is_blind_to_a_shift_and_training_fits_it(tmp_path):
    values = torch.tensor([[3.0, 7.0, 0.0, 0.0]])
    mask = torch.tensor([[True, True, False, False]])
    shifted = torch.tensor([[13.0, 17.0, 99.0, -5.0]])  # the same, +10, illegal ones ignored
    assert float(_centred_error(shifted, values, mask)) == 0
    assert float(_centred_error(torch.tensor([[5.0, 5.0, 0.0, 0.0]]), values, mask)) == 4
    game, policy, init = _init(tmp_path)
    small = {**SMALL, "teacher": "true_deal", "objective": "make", "target": "values"}
    out = run_expert(ExpertConfig(init=init, rounds=1, **small), tmp_path / "r")
    assert out["rounds"][0]["train"]["values_error"] > 0
    data = load_labels(tmp_path / "r", 1, 2, 2, held=False)
    cfg = ExpertConfig(init=init, **{**small, "epochs": 40, "lr": 3e-3})
    args = (cfg, game.actions.play0, game.n_actions, make_encoder(game).size)
    before = judge(policy, data, *args)
    logs = train_round(policy, data, *args, torch.Generator().manual_seed(0))
    after = judge(policy, data, *args)
    assert after["regret"] < before["regret"] and after["agreement"] > before["agreement"]
    assert logs["values_error"] < out["rounds"][0]["train"]["values_error"]


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_the_solver_measure_of_a_finished_hand_reads_as_its_outcome(ruleset):
    """``solver_measure`` read by ``bid_made`` says what the core decided, on every contract
    the random bidders reach (nello and sevens among them where the rules allow)."""
    game = Game(RulesConfig.make(ruleset))
    st = game.reset(600, seed=3)
    agent = make_agent("random", seed=1).setup(game)
    enc = make_encoder(game)
    while (st.phase < HAND_OVER).any():  # every hand bid and played out
        rows = np.flatnonzero(st.phase < HAND_OVER)
        a = np.full(st.batch_size, NO_ACTION, np.int64)
        a[rows] = act_rows(game, st, agent, rows, enc)
        game.step(st, a)
    v = solver_measure(game, st)
    made = np.array([bool(bid_made(v[b], int(st.contract[b]), int(st.need[b]), game))
                     for b in range(st.batch_size)])
    assert (made == (st.made == 1)).all()
    assert len(set(st.contract.tolist())) >= 3


def test_the_rollout_teacher_values_each_tile_by_the_students_own_play_out(tmp_path):
    """At every decision of a greedy student's games, the value of the tile it plays is
    what its own play makes of the hand; every tile's value is the play-out after it."""
    game, policy, _ = _init(tmp_path)
    greedy = NeuralAgent(policy=policy, greedy=True).setup(game)
    teacher = make_teacher(ROLLOUT, game, greedy)
    assert isinstance(teacher, RolloutTeacher)
    enc, p0 = make_encoder(game), game.actions.play0
    st = game.reset(40, seed=5)
    bidder = make_agent("heuristic").setup(game)
    checked = 0
    while (st.phase < HAND_OVER).any():
        rows = np.flatnonzero(st.phase < HAND_OVER)
        playing = st.phase[rows] == PLAYING
        a = np.full(st.batch_size, NO_ACTION, np.int64)
        if (~playing).any():
            a[rows[~playing]] = act_rows(game, st, bidder, rows[~playing], enc)
        play = rows[playing]
        if play.size:
            a[play] = act_rows(game, st, greedy, play, enc)
            got = teacher.move_values_rows(game, st, play)
            own = st.take(play)  # the student's own game from here on
            game.step(own, a[play])
            play_out(game, own, greedy, enc)
            mine = solver_measure(game, own)
            for i, t in enumerate(play.tolist()):
                legal, values, mult = got[i]
                assert list(legal) == list(np.flatnonzero(st.legal[t, p0:]))
                assert values.shape == (1, legal.size) and list(mult) == [1.0]
                assert values[0, list(legal).index(a[t] - p0)] == mine[i]
                checked += 1
            k = int(np.argmax([x[0].size for x in got]))  # a tile other than its own
            t = int(play[k])
            other = [x for x in got[k][0] if x != a[t] - p0]
            if other:
                one = st.take([t])
                game.step(one, np.array([p0 + other[0]]))
                play_out(game, one, greedy, enc)
                j = list(got[k][0]).index(other[0])
                assert got[k][1][0, j] == solver_measure(game, one)[0]
        game.step(st, a)
    assert checked > 500
    with pytest.raises(ValueError, match="plays out with the student"):
        RolloutTeacher().move_values_rows(game, game.reset(1, seed=0), np.arange(0))


def test_the_improve_target_is_the_prior_tilted_by_the_values_and_a_run_trains_on_it(tmp_path):
    game, policy, init = _init(tmp_path)
    p0, A = game.actions.play0, game.n_actions
    d = {"legal": np.array([[3, 5, 6, -1, -1, -1, -1, -1, -1]], np.int8),
         "utility": np.zeros((1, 1, 9), np.float16), "weight": np.ones((1, 1), np.float32),
         "reward": np.zeros(1, np.float32)}
    d["utility"][0, 0, :3] = [10, 20, 10]
    prior = np.zeros((1, A), np.float32)
    prior[0, p0 + np.array([3, 5, 6])] = np.log([0.5, 0.25, 0.25])
    _, p, _ = targets({**d, "prior": prior}, p0, A, 10.0)
    want = np.array([0.5, 0.25 * np.e, 0.25])
    assert np.allclose(p[0, p0 + np.array([3, 5, 6])].numpy(), want / want.sum(), atol=1e-6)
    assert float(p[0].sum()) == pytest.approx(1)
    small = {**SMALL, "teacher": "rollout", "objective": "make", "target": "improve"}
    out = run_expert(ExpertConfig(init=init, rounds=1, **small), tmp_path / "r")
    data = load_labels(tmp_path / "r", 1, 2, 2, held=False)
    enc = make_encoder(game)
    lp = play_log_probs(policy, data, p0, A, enc.size)
    legal = data["legal"].astype(np.int64)
    rr, cc = np.nonzero(legal >= 0)
    mask = np.zeros(lp.shape, bool)
    mask[rr, p0 + legal[rr, cc]] = True
    assert (lp[~mask] == 0).all() and (lp[mask] < 0).all()
    assert np.allclose(np.where(mask, np.exp(lp), 0).sum(1), 1, atol=1e-5)
    assert out["rounds"][0]["train"]["cross_entropy"] > 0
    trained = policy_from_checkpoint(load_checkpoint(out["checkpoint"]))
    assert not torch.equal(trained.play.logits.weight, policy.play.logits.weight)


def test_a_window_trains_each_round_on_the_newest_rounds_only(tmp_path):
    game, policy, init = _init(tmp_path)
    every = run_expert(ExpertConfig(init=init, rounds=2, **SMALL), tmp_path / "all")
    one = run_expert(ExpertConfig(init=init, rounds=2, window=1, **SMALL), tmp_path / "one")
    chunks = SMALL["hands"] // SMALL["chunk_hands"]
    newest = load_labels(tmp_path / "one", 2, chunks, SMALL["holdout"], held=False, first=1)
    assert one["rounds"][0]["positions"] == every["rounds"][0]["positions"]
    assert one["rounds"][1]["positions"] == len(newest["reward"])
    assert every["rounds"][1]["positions"] > one["rounds"][1]["positions"]
    with pytest.raises(ExpertError, match="window"):
        ExpertConfig.from_dict({"init": "x", **SMALL, "window": -1})


EVAL = {"against": {"heuristic": "heuristic"}, "pairs": 6, "seed": 7}


def test_evaluations_are_the_duplicate_matches_of_each_rounds_play_behind_the_same_bidding(
        tmp_path):
    _, _, init = _init(tmp_path)
    run = tmp_path / "r"
    out = run_expert(ExpertConfig.from_dict({"init": init, "rounds": 2, **SMALL,
                                             "eval": EVAL}), run)
    evals = read_lines(run / "eval.jsonl")
    assert [e["round"] for e in evals] == [INIT_ROUND, 0, 1]
    game = Game()
    for e, play in zip(evals, [init] + [str(run / f"checkpoints/round_{r}.pt") for r in (0, 1)]):
        student = make_agent({"name": "compose", "bid": "heuristic",
                              "play": {"name": "neural", "path": play}})
        stats = play_duplicate(game.rules, student, make_agent(
            {"name": "compose", "bid": "heuristic", "play": "heuristic"}), 6, seed=7)
        assert e["heuristic"]["marks_per_hand"] == pytest.approx(
            summarize(stats, seed=7)["marks_per_hand"], abs=5e-5)  # kept to 4 places
        assert e["heuristic"]["pairs"] == 6
    # each point: the positions labelled so far (held out too) and the run's seconds
    made = [m["made"] for m in out["rounds"]]
    assert made[0] == out["rounds"][0]["positions"] + out["rounds"][0]["held_positions"]
    assert [e["positions"] for e in evals] == [0, made[0], made[0] + made[1]]
    assert 0 == evals[0]["seconds"] < evals[1]["seconds"] < evals[2]["seconds"]
    assert (run / "curves.png").stat().st_size > 0


def test_evaluations_may_be_added_on_a_rerun_and_change_nothing_the_rounds_made(tmp_path):
    _, _, init = _init(tmp_path)
    plain = {"init": init, "rounds": 2, **SMALL}
    run_expert(ExpertConfig.from_dict(plain), tmp_path / "a")
    weights = load_checkpoint(tmp_path / "a/checkpoints/round_1.pt")["model"]["state_dict"]
    assert not (tmp_path / "a/eval.jsonl").exists()
    run_expert(ExpertConfig.from_dict({**plain, "eval": {**EVAL, "every": 2}}), tmp_path / "a")
    assert [e["round"] for e in read_lines(tmp_path / "a/eval.jsonl")] == [INIT_ROUND, 1]
    again = load_checkpoint(tmp_path / "a/checkpoints/round_1.pt")["model"]["state_dict"]
    assert all(torch.equal(weights[k], again[k]) for k in weights)
    lines = (tmp_path / "a/eval.jsonl").read_text()
    run_expert(ExpertConfig.from_dict({**plain, "eval": {**EVAL, "every": 2}}), tmp_path / "a")
    assert (tmp_path / "a/eval.jsonl").read_text() == lines  # evaluated once
    # another opponent, or other pairs: the rounds are measured again, the last line counts
    more = {**EVAL, "every": 2, "against": {**EVAL["against"], "random": "random"}}
    run_expert(ExpertConfig.from_dict({**plain, "eval": more}), tmp_path / "a")
    evals = read_lines(tmp_path / "a/eval.jsonl")
    assert [e["round"] for e in evals] == [INIT_ROUND, 1, INIT_ROUND, 1]
    assert evals[2]["heuristic"] == evals[0]["heuristic"]  # the same match, kept
    assert evals[2]["random"]["pairs"] == 6 and "random" not in evals[0]
    run_expert(ExpertConfig.from_dict({**plain, "eval": {**more, "pairs": 4}}), tmp_path / "a")
    assert [e["heuristic"]["pairs"] for e in read_lines(tmp_path / "a/eval.jsonl")] == \
        [6, 6, 6, 6, 4, 4]


def test_the_rounds_evaluated_are_the_init_every_nth_and_the_last():
    assert eval_rounds(5, 1) == [INIT_ROUND, 0, 1, 2, 3, 4]
    assert eval_rounds(5, 2) == [INIT_ROUND, 1, 3, 4]
    assert eval_rounds(2, 9) == [INIT_ROUND, 1]


@pytest.mark.parametrize("evaluation, says", [
    ({"against": {"x": "nobody"}}, "eval.against.x: unknown agent 'nobody'"),
    ({"against": {"student": "heuristic"}}, "eval.against must be a mapping of names (not "
                                            "'student')"),
    ({"against": ["heuristic"]}, "eval.against must be a mapping"),
    ({"pairs": 0}, "eval.pairs must be"),
    ({"every": 0}, "eval.every must be"),
    ({"rounds": 2}, "unknown key 'eval.rounds'")])
def test_bad_evaluation_settings_are_named(evaluation, says):
    with pytest.raises(ExpertError, match=re.escape(says)):
        ExpertConfig.from_dict({"init": "somewhere", **SMALL, "eval": evaluation})


def test_a_ranking_head_starts_from_the_inits_play_and_its_rounds_load_by_path(tmp_path):
    game, policy, init = _init(tmp_path)
    small = {**SMALL, "teacher": "rollout", "objective": "make", "target": "improve"}
    plain = run_expert(ExpertConfig(init=init, rounds=1, **small), tmp_path / "plain")
    ranked = run_expert(ExpertConfig(init=init, rounds=1, ranking=8, **small),
                        tmp_path / "ranked")
    # round 0's labels are the init's own play either way: the head starts at zero
    for k in range(SMALL["hands"] // SMALL["chunk_hands"]):
        a = np.load(chunk_path(tmp_path / "plain", 0, k))
        b = np.load(chunk_path(tmp_path / "ranked", 0, k))
        assert a.files == b.files and all(np.array_equal(a[f], b[f]) for f in a.files)
    data = load_checkpoint(ranked["checkpoint"])
    assert data["model"]["config"]["ranking"] == 8
    trained = policy_from_checkpoint(data)
    assert trained.config.ranking == 8 and trained.play.rank_out.weight.abs().sum() > 0
    assert policy_from_checkpoint(load_checkpoint(plain["checkpoint"])).config.ranking == 0
    agent = make_agent(f"neural:path={ranked['checkpoint']}").setup(game)
    obs, masks = _play_rows(game)
    assert masks[np.arange(len(masks)), agent.act(obs, masks)].all()
    # a rerun with another head size on a ranked init is refused, naming the key
    with pytest.raises(ExpertError, match="ranking.*8 units already"):
        run_expert(ExpertConfig(init=ranked["checkpoint"], rounds=1, ranking=4, **small),
                   tmp_path / "other")


def _play_rows(game: Game):
    """Observations and masks of the first play decisions of random hands."""
    enc = make_encoder(game)
    st = game.reset(8, seed=2)
    rng = np.random.default_rng(0)
    while not (st.phase == PLAYING).any():
        game.step(st, np.array([rng.choice(np.flatnonzero(r)) if r.any() else NO_ACTION
                                for r in st.legal]))
    rows = np.flatnonzero(st.phase == PLAYING)
    return enc.encode(st, st.to_move[rows], rows), st.legal[rows].copy()
