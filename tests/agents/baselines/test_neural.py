"""Trained policies as agents (agents/baselines/neural.py) and the behaviour-cloning warm start
(agents/training/imitation.py)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.arena.duplicate import play_duplicate, summarize
from agents.nets.checkpoint import CheckpointError, save_checkpoint
from agents.training.imitation import demonstrations, warm_start
from agents.nets.policy import ModelConfig, Policy
from agents.baselines.neural import NeuralAgent
from agents.training.ppo import OpponentsConfig, PPOConfig, Trainer
from agents.training.ppo_run import WarmStartConfig
from texas42_env.core import HAND_OVER, Game
from texas42_env.actions import NO_ACTION
from texas42_env.observation import make_encoder
from texas42_env.rewards import team_rewards
from texas42_env.rules import RulesConfig

from helpers import ROOT

TINY = ModelConfig(hidden=32, bid_hidden=32)


pytestmark = pytest.mark.usefixtures("torch_one_thread")


def make_trainer(model=TINY, seed=0) -> Trainer:
    return Trainer(RulesConfig.make(), model, PPOConfig(tables=32, minibatch=128, epochs=1),
                   OpponentsConfig(self_play=1, pool=0, heuristic=0), seed=seed, updates=2)


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    """A run folder with two checkpoints of different weights: (folder, weights by update)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("neural") / "run"
    trainer = make_trainer(seed=2)
    weights = {}
    for update in (1, 2):
        trainer.train_update()
        save_checkpoint(folder / "checkpoints" / f"ckpt_{update:06d}.pt", trainer.state_dict())
        weights[update] = {k: v.clone() for k, v in trainer.policy.state_dict().items()}
    torch.set_num_threads(before)
    return folder, weights


def same_weights(policy: Policy, weights: dict) -> bool:
    return all(torch.equal(v, weights[k]) for k, v in policy.state_dict().items())


def test_an_agent_loads_the_newest_checkpoint_of_a_run_folder(run_folder):
    folder, weights = run_folder
    assert not same_weights(NeuralAgent(path=folder / "checkpoints" / "ckpt_000001.pt").policy,
                            weights[2])
    for where in (folder, folder / "checkpoints", str(folder)):
        agent = NeuralAgent(path=where)
        assert agent.path == folder / "checkpoints" / "ckpt_000002.pt"
        assert same_weights(agent.policy, weights[2])
        assert agent.ruleset == "standard" and not agent.policy.training


def test_an_agent_loads_a_given_checkpoint_file(run_folder):
    folder, weights = run_folder
    agent = NeuralAgent(path=folder / "checkpoints" / "ckpt_000001.pt")
    assert same_weights(agent.policy, weights[1])


def test_a_neural_agent_plays_legal_duplicate_hands_against_random(run_folder):
    folder, _ = run_folder
    rules = RulesConfig.make()
    for greedy in (True, False):
        agent = NeuralAgent(path=folder, greedy=greedy, seed=4)
        stats = play_duplicate(rules, agent, "random", 20, seed=5)  # illegal: ValueError
        s = summarize(stats, n_boot=10)
        assert s["pairs"] == 20 and s["hands"] == 40
    greedy = [play_duplicate(rules, NeuralAgent(path=folder), "random", 10, seed=6).to_dict()
              for _ in range(2)]
    assert greedy[0] == greedy[1]  # greedy play is deterministic


def test_make_agent_builds_a_neural_agent_from_a_spec(run_folder):
    folder, weights = run_folder
    agent = make_agent({"name": "neural", "path": str(folder)})
    assert isinstance(agent, NeuralAgent) and agent.name.startswith("neural(")
    assert same_weights(agent.policy, weights[2])
    stats = play_duplicate(RulesConfig.make(), {"name": "neural", "path": str(folder)},
                           "random", 10, seed=7)
    assert stats.hands.sum() == 20


def test_sampling_agents_with_the_same_seed_agree(run_folder):
    folder, _ = run_folder
    game = Game(RulesConfig.make())
    st = game.reset(64, seed=8)
    obs = make_encoder(game).encode(st, st.to_move)
    a = NeuralAgent(path=folder, greedy=False, seed=1).setup(game)
    b = NeuralAgent(path=folder, greedy=False, seed=1).setup(game)
    x, y = a.act(obs, st.legal), b.act(obs, st.legal)
    assert np.array_equal(x, y) and st.legal[np.arange(64), x].all()


def six_player_checkpoint(path):
    game = Game(RulesConfig.make("six-player"))
    size = make_encoder(game).size
    policy = Policy(size, game.n_actions, game.actions.play0, TINY)
    save_checkpoint(path, {"model": {"obs_size": size, "n_actions": game.n_actions,
                                     "play0": game.actions.play0, "config": TINY.to_dict(),
                                     "critic_size": 0, "state_dict": policy.state_dict()},
                           "rules": {"ruleset": "six-player", "options": {}}})
    return game, size


def test_a_six_player_checkpoint_in_a_standard_game_names_the_sizes(tmp_path):
    path = tmp_path / "ckpt_000001.pt"
    six, six_size = six_player_checkpoint(path)
    standard = Game(RulesConfig.make())
    std_size = make_encoder(standard).size
    agent = NeuralAgent(path=path)
    assert agent.ruleset == "six-player"
    with pytest.raises(ValueError) as e:
        agent.setup(standard)
    msg = str(e.value)
    assert str(path) in msg
    for n in (six_size, six.n_actions, std_size, standard.n_actions):
        assert str(n) in msg
    with pytest.raises(ValueError, match="was trained for observations of"):
        play_duplicate(RulesConfig.make(), NeuralAgent(path=path), "random", 2)
    # in its own game it plays whole hands legally
    agent.setup(six)
    enc = make_encoder(six)
    st = six.reset(8, seed=1)
    while (st.phase < HAND_OVER).any():
        rows = np.flatnonzero(st.phase < HAND_OVER)
        actions = np.full(8, NO_ACTION, np.int64)
        actions[rows] = agent.act(enc.encode(st, st.to_move[rows], idx=rows), st.legal[rows])
        six.step(st, actions)


def test_a_standard_checkpoint_in_a_six_player_game_is_refused(run_folder):
    folder, _ = run_folder
    with pytest.raises(ValueError, match="six-player"):
        NeuralAgent(path=folder).setup(Game(RulesConfig.make("six-player")))


def test_an_agent_needs_exactly_one_of_a_path_and_a_policy(run_folder):
    folder, _ = run_folder
    with pytest.raises(ValueError, match="one of them"):
        NeuralAgent()
    with pytest.raises(ValueError, match="one of them"):
        NeuralAgent(path=folder, policy=NeuralAgent(path=folder).policy)


def test_weights_that_do_not_fit_their_sizes_are_a_checkpoint_error(tmp_path, run_folder):
    folder, weights = run_folder
    path = tmp_path / "ckpt_000001.pt"
    game = Game(RulesConfig.make())
    save_checkpoint(path, {"model": {"obs_size": make_encoder(game).size,
                                     "n_actions": game.n_actions,
                                     "play0": game.actions.play0,
                                     "config": ModelConfig(hidden=64).to_dict(),
                                     "state_dict": weights[1]}})
    with pytest.raises(CheckpointError, match="its model does not load") as e:
        NeuralAgent(path=path)
    assert str(path) in str(e.value)
    with pytest.raises(CheckpointError, match="no such file or folder"):
        NeuralAgent(path=tmp_path / "empty")


def test_an_in_memory_policy_plays_as_an_agent():
    trainer = make_trainer(seed=3)
    agent = NeuralAgent(policy=trainer.policy, ruleset="standard")
    stats = play_duplicate(RulesConfig.make(), agent, "heuristic", 10, seed=2)
    assert stats.hands.sum() == 20


# ---------------------------------------------------------------------- warm start
def agreement(policy: Policy, demo: dict) -> float:
    """How often the policy's greedy action is the demonstrator's, where there is a choice."""
    actions, _, _ = policy.act(demo["obs"], demo["masks"], greedy=True)
    choice = demo["masks"].sum(1) > 1
    return float((actions[choice] == demo["actions"][choice]).mean())


def test_behaviour_cloning_copies_the_heuristic():
    trainer = make_trainer(ModelConfig(hidden=64, bid_hidden=64), seed=0)
    untrained = Policy(trainer.encoder.size, trainer.game.n_actions, trainer.game.actions.play0,
                       trainer.model_cfg)
    untrained.load_state_dict(trainer.policy.state_dict())
    heuristic = make_agent("heuristic").setup(trainer.game)
    held_out = demonstrations(trainer, heuristic, first=10**6, n=300)  # deals never trained on
    logs = warm_start(trainer, WarmStartConfig(hands=512, epochs=4, minibatch=256, lr=3e-3),
                      progress=False)
    assert logs["accuracy"] > 0.6 and np.isfinite(logs["cross_entropy"])
    before, after = agreement(untrained, held_out), agreement(trainer.policy, held_out)
    assert after > 0.6 and after > before + 0.3, (before, after)


def test_demonstrations_are_whole_hands_with_team_returns():
    trainer = make_trainer(seed=5)
    heuristic = make_agent("heuristic").setup(trainer.game)
    d = demonstrations(trainer, heuristic, first=0, n=16)
    n = d["actions"].size
    assert d["obs"].shape == (n, trainer.encoder.size) and d["masks"][np.arange(n),
                                                                     d["actions"]].all()
    assert n > 16 * 4 * 2 and "critic_obs" not in d
    # replaying the same deals with the same agent gives each decision's team its reward
    st = trainer.game.reset(16, seed=trainer.seed, game_ids=(1 << 40) + np.arange(16))
    teams = []
    enc = trainer.encoder
    while (st.phase < HAND_OVER).any():
        rows = np.flatnonzero(st.phase < HAND_OVER)
        actions = np.full(16, NO_ACTION, np.int64)
        actions[rows] = heuristic.act(enc.encode(st, st.to_move[rows], idx=rows),
                                      st.legal[rows])
        teams.append(np.stack([rows, st.to_move[rows] % 2], 1))
        trainer.game.step(st, actions)
    teams = np.concatenate(teams)
    r = team_rewards(st, np.arange(16), "marks")
    np.testing.assert_array_equal(d["returns"], r[teams[:, 0], teams[:, 1]])


def test_behaviour_cloning_from_an_agent_that_reads_the_table():
    # the learned bidder needs the tables' context (score, auction): the demonstrations pass it
    from pathlib import Path

    net = ROOT / "experiments/bidding/nets/supervised.pt"
    trainer = make_trainer(seed=3)
    bidder = make_agent({"name": "bidnet", "path": str(net)}).setup(trainer.game)
    d = demonstrations(trainer, bidder, first=0, n=32)
    assert d["masks"][np.arange(d["actions"].size), d["actions"]].all()
    assert bidder.predictions  # it bid by its rule, with the context it was given
    logs = warm_start(trainer, WarmStartConfig(agent=f"bidnet:path={net}", hands=64, epochs=1,
                                               minibatch=256), progress=False)
    assert np.isfinite(logs["cross_entropy"])
