"""The PettingZoo AEC environment ``texas42_env.pettingzoo_env`` (``texas42_v0``).

PettingZoo's own ``api_test`` and ``seed_test`` for both rulesets; the action mask against the
core's legality, explained action by action; observations as each seat's own view; whole hands
and games through the AEC loop (``agent_iter`` / ``last`` / ``step``) with zero-sum team rewards;
illegal actions; records; rendering.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from pettingzoo import AECEnv
from pettingzoo.test import api_test, seed_test


from helpers import DATA, record, same_state, snapshot  # noqa: E402

from texas42_env import pettingzoo_env  # noqa: E402
from texas42_env.core import GAME_OVER, IllegalActionError  # noqa: E402
from texas42_env.env import Texas42Env  # noqa: E402
from texas42_env.records import RecordError  # noqa: E402

RULESETS = ("standard", "six-player")


def masked_sample(env, agent, obs) -> int:
    return int(env.action_space(agent).sample(obs["action_mask"]))


def run_aec(env, seed=None, options=None, on_step=None):
    """The AEC loop with masked random actions; returns each agent's total reward (the sum of
    what ``last()`` reported to it) and the number of actions taken."""
    env.reset(seed=seed, options=options)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(1000 * (seed or 0) + i)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    actions = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated or truncated:
            action = None
        else:
            action = masked_sample(env, agent, obs)
            actions += 1
        if on_step:
            on_step(env, agent, obs, action)
        env.step(action)
    return totals, actions


# ----------------------------------------------------------------------------- PettingZoo tests
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("kwargs", [{}, {"episode": "game", "reward": "points",
                                         "rules": {"target": 100}}])
def test_pettingzoo_api_test(ruleset, kwargs):
    if ruleset == "six-player" and kwargs:
        kwargs = dict(kwargs, rules={"target": 200})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "observation is not a NumPy array": it is a dict
        api_test(pettingzoo_env.env(ruleset=ruleset, **kwargs), num_cycles=200)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_pettingzoo_seed_test(ruleset):
    seed_test(lambda: pettingzoo_env.env(ruleset=ruleset), num_cycles=200)
    seed_test(lambda: pettingzoo_env.env(ruleset=ruleset, episode="game"), num_cycles=300)


def test_env_is_wrapped_as_the_classic_envs_and_raw_env_is_an_aec_env():
    e = pettingzoo_env.env()
    assert type(e).__name__ == "OrderEnforcingWrapper"
    assert isinstance(e.unwrapped, pettingzoo_env.raw_env)
    assert isinstance(pettingzoo_env.raw_env(), AECEnv)
    meta = pettingzoo_env.raw_env.metadata
    assert meta["name"] == "texas42_v0" and meta["is_parallelizable"] is False
    assert set(meta["render_modes"]) == {"ansi", "human"}
    with pytest.raises(Exception):  # order enforcing: step before reset
        e.step(0)


@pytest.mark.parametrize("ruleset,seats", [("standard", 4), ("six-player", 6)])
def test_agents_and_spaces(ruleset, seats):
    env = pettingzoo_env.env(ruleset=ruleset)
    env.reset(seed=0)
    raw = env.unwrapped
    assert env.possible_agents == [f"seat_{s}" for s in range(seats)] == env.agents
    for agent in env.agents:
        space = env.observation_space(agent)
        assert space["observation"].dtype == np.float32
        assert space["observation"].shape == (raw.encoder.size,)
        assert space["action_mask"].dtype == np.int8
        assert space["action_mask"].shape == (raw.game.n_actions,)
        assert env.action_space(agent).n == raw.game.n_actions
        assert env.observation_space(agent) is env.observation_space(agent)


# ----------------------------------------------------------------------------- masks and views
@pytest.mark.parametrize("ruleset", RULESETS)
def test_action_mask_is_the_legality_of_each_action_and_views_are_each_seats_own(ruleset):
    env = pettingzoo_env.env(ruleset=ruleset)
    raw = env.unwrapped
    game = raw.game
    checked = 0

    def on_step(env, agent, obs, action):
        nonlocal checked
        st = raw.table
        if action is None:
            return
        seat = int(agent.split("_")[1])
        assert seat == int(st.to_move[0])
        if checked % 3 == 0:  # every action explained by the core's slow, rule-by-rule reason
            legal = [game.reason(st, 0, a) is None for a in range(game.n_actions)]
            assert obs["action_mask"].astype(bool).tolist() == legal
        assert np.array_equal(obs["action_mask"].astype(bool), st.legal[0])
        for other in env.agents:
            o = env.observe(other)
            s = int(other.split("_")[1])
            assert np.array_equal(o["observation"], raw.encoder.encode(st, [s])[0])
            if s != seat:
                assert not o["action_mask"].any()  # only the seat to move has actions
        checked += 1

    for seed in range(12 if ruleset == "standard" else 5):
        run_aec(env, seed=seed, on_step=on_step)
    assert checked > 100


def test_same_seed_deals_the_same_hand_as_texas42env():
    for ruleset in RULESETS:
        pz, gym_env = pettingzoo_env.raw_env(ruleset=ruleset), Texas42Env(ruleset=ruleset)
        for seed in (0, 5):
            pz.reset(seed=seed)
            obs, info = gym_env.reset(seed=seed)
            assert np.array_equal(pz.table.dealt, gym_env.state.dealt)
            assert pz.agent_selection == f"seat_{info['to_move']}"
            o = pz.observe(pz.agent_selection)
            assert np.array_equal(o["observation"], obs["observation"])
            assert np.array_equal(o["action_mask"], obs["action_mask"])


# ----------------------------------------------------------------------------- whole hands/games
@pytest.mark.parametrize("ruleset", RULESETS)
def test_random_hands_through_the_aec_loop_end_with_the_cores_zero_sum_team_rewards(ruleset):
    env = pettingzoo_env.env(ruleset=ruleset, reward="marks")
    raw = env.unwrapped
    for seed in range(20):
        totals, actions = run_aec(env, seed=seed)
        st = raw.table
        assert st.phase[0] >= 4 and env.agents == []
        marks = st.hand_marks[0]
        want = marks[0] - marks[1]
        assert [totals[a] for a in env.possible_agents] == [want, -want] * (raw.game.n_seats // 2)
        assert actions >= raw.game.n_seats


@pytest.mark.parametrize("ruleset", RULESETS)
def test_a_full_random_game_through_the_aec_loop(ruleset):
    """episode="game": hands follow one another until a team reaches the target; the marks
    each agent was given add up to its team's lead in the score, zero-sum, partners equal."""
    for seed in range(3):
        env = pettingzoo_env.env(ruleset=ruleset, episode="game",
                                 rules={"scoring": "marks", "target": 4})
        raw = env.unwrapped
        hands = set()
        totals, actions = run_aec(env, seed=seed,
                                  on_step=lambda e, a, o, x: hands.add(int(raw.table.hand_no[0])))
        st = raw.table
        assert st.phase[0] == GAME_OVER and len(hands) >= 1
        lead = float(st.score[0, 0] - st.score[0, 1])
        values = [totals[a] for a in env.possible_agents]
        assert values == [lead, -lead] * (raw.game.n_seats // 2)
        assert sum(values) == 0 and abs(lead) >= 1

        # the game reward: +1 to each seat of the winning team, -1 to the others
        env2 = pettingzoo_env.env(ruleset=ruleset, episode="game", reward="game",
                                  rules={"scoring": "marks", "target": 4})
        totals2, _ = run_aec(env2, seed=seed)
        w = int(env2.unwrapped.table.winner[0])
        assert [totals2[a] for a in env2.possible_agents] == \
            [1.0 if s % 2 == w else -1.0 for s in range(raw.game.n_seats)]


def test_hand_end_infos_and_terminations():
    env = pettingzoo_env.env()
    env.reset(seed=3)
    while not any(env.terminations.values()):
        agent = env.agent_selection
        obs, *_ = env.last()
        env.step(masked_sample(env, agent, obs))
    st = env.unwrapped.table
    assert all(env.terminations.values()) and not any(env.truncations.values())
    for agent in env.agents:
        info = env.infos[agent]
        assert info["hand_over"] and info["made"] == int(st.made[0])
        assert info["marks"] == st.hand_marks[0].tolist()
        assert not env.observe(agent)["action_mask"].any()


# ----------------------------------------------------------------------------- illegal actions
FOLLOW_REC = record(bids=["30", "pass", "pass", "pass"], contract="4s", plays=["6-4"], dealer=3)


def test_illegal_action_loses_for_the_offenders_team_zero_sum():
    env = pettingzoo_env.env(illegal_reward=-2.0)
    env.reset(options={"record": FOLLOW_REC})
    assert env.agent_selection == "seat_1"
    env.step(env.unwrapped.game.actions.id("5-5"))  # 4s led as trump: seat 1 must follow
    assert all(env.terminations.values())
    assert env.rewards == {"seat_0": 2.0, "seat_1": -2.0, "seat_2": 2.0, "seat_3": -2.0}
    ill = env.infos["seat_0"]["illegal_action"]
    assert ill["seat"] == 1 and ill["reason"] == "must follow trumps" and ill["phase"] == "play"
    totals = {}
    for agent in env.agent_iter():
        _, reward, terminated, _, _ = env.last()
        assert terminated
        totals[agent] = reward
        env.step(None)
    assert totals == {"seat_0": 2.0, "seat_1": -2.0, "seat_2": 2.0, "seat_3": -2.0}


def test_illegal_action_raise_leaves_the_state_unchanged():
    env = pettingzoo_env.env(illegal_action="raise")
    env.reset(options={"record": FOLLOW_REC})
    before = snapshot(env.unwrapped.table)
    env.unwrapped._cumulative_rewards["seat_1"] = 1.0  # as if a hand had just paid it
    last = env.last()
    with pytest.raises(IllegalActionError, match="must follow trumps"):
        env.step(env.unwrapped.game.actions.id("5-5"))
    assert same_state(before, snapshot(env.unwrapped.table))
    after = env.last()  # the AEC bookkeeping too
    assert after[1:] == last[1:] and np.array_equal(after[0]["observation"], last[0]["observation"])
    assert env.agent_selection == "seat_1" and not any(env.terminations.values())
    env.step(env.unwrapped.game.actions.id("5-4"))
    assert env.agent_selection == "seat_2"


def test_out_of_bounds_actions_are_asserted_by_the_wrapper():
    env = pettingzoo_env.env()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(10_000)


# ----------------------------------------------------------------------------- records, render
def test_reset_from_a_partial_record_and_rejections():
    ex = [json.loads(line) for line in (DATA /
                                        "spec_examples.jsonl").read_text().splitlines()]
    partial = next(e for e in ex if e["title"].startswith("bidding under way"))
    env = pettingzoo_env.env()
    env.reset(options={"record": partial["record"]})
    assert env.agent_selection == f"seat_{partial['replay']['to_move']}"
    obs, *_ = env.last()
    game = env.unwrapped.game
    assert sorted(game.actions.name(a) for a in np.flatnonzero(obs["action_mask"])) == \
        partial["replay"]["legal"]
    complete = next(e for e in ex if e["replay"]["ok"] and e["replay"]["complete"]
                    and "options" not in e["record"])
    with pytest.raises(RecordError, match="hand is over"):
        env.reset(options={"record": complete["record"]})
    with pytest.raises(RecordError, match="bid must exceed 31"):
        env.reset(options={"record": record(bids=["31", "30"])})


def test_render_ansi_and_human(capsys):
    env = pettingzoo_env.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "seat 3" in text
    human = pettingzoo_env.env(render_mode="human")
    human.reset(seed=0)
    obs, *_ = human.last()
    human.step(masked_sample(human, human.agent_selection, obs))
    assert "dealer seat" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        pettingzoo_env.raw_env(render_mode="rgb_array")


def test_render_during_the_bidding_does_not_call_the_hand_thrown_in():
    env = pettingzoo_env.env(render_mode="ansi")
    env.reset(seed=0)
    assert "thrown in" not in env.render()


def test_the_raw_env_keeps_pettingzoos_state_method():
    from pettingzoo import AECEnv

    from texas42_env.pettingzoo_env import raw_env

    assert raw_env.state is AECEnv.state  # the core state is ``table``, not ``state``
