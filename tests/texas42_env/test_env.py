"""The Gymnasium environments: ``Texas42Env`` (one table, turn by turn) and
``Texas42VectorEnv`` (B tables at once).

Texas42Env: gymnasium's ``check_env`` for both registered ids; random legal play over many
episodes (masks, who moves, zero-sum rewards shared by partners); each reward mode against the
core's own results; illegal actions (``lose`` and ``raise``); starting from a game record;
seeding. Texas42VectorEnv: shapes, auto-reset, reward layouts, whole-game episodes, and step for
step agreement with the same tables played one at a time through ``Texas42Env``.
"""

from __future__ import annotations

import json
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env


from helpers import DATA, record, same_state, snapshot  # noqa: E402

import texas42_env  # noqa: E402,F401  (registers Texas42-v0 / Texas88-v0)
from texas42_env import tiles as T  # noqa: E402
from texas42_env.core import BIDDING, GAME_OVER, HAND_OVER, IllegalActionError  # noqa: E402
from texas42_env.env import Texas42Env  # noqa: E402
from texas42_env.records import (RecordError, legal_exchanges, parse_record,  # noqa: E402
                                 record_from_state, replay)
from texas42_env.sampling import uniform_legal  # noqa: E402
from texas42_env.vector_env import Texas42VectorEnv  # noqa: E402

EXAMPLES = DATA / "spec_examples.jsonl"
RULESETS = ("standard", "six-player")


def random_action(obs: dict, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def play_episode(env: Texas42Env, rng: np.random.Generator, seed=None, check=None):
    """One episode of uniformly random legal actions; returns the last step's result.
    ``check(obs, info, reward, terminated)`` is called after reset and after every step."""
    obs, info = env.reset(seed=seed)
    if check:
        check(obs, info, None, False)
    while True:
        out = env.step(random_action(obs, rng))
        obs, reward, terminated, truncated, info = out
        assert not truncated
        if check:
            check(obs, info, reward, terminated)
        if terminated:
            return out


# ----------------------------------------------------------------------------- check_env
@pytest.mark.parametrize("env_id", ["Texas42-v0", "Texas88-v0"])
def test_registered_envs_pass_gymnasiums_check_env(env_id, capsys):
    env = gymnasium.make(env_id)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*render fps.*")
        check_env(env.unwrapped)
    assert isinstance(env.unwrapped, Texas42Env)
    assert env.unwrapped.game.rules.ruleset == ("standard" if env_id == "Texas42-v0"
                                                else "six-player")
    env.close()


# ----------------------------------------------------------------------------- random play
@pytest.mark.parametrize("ruleset,episodes", [("standard", 150), ("six-player", 50)])
def test_random_legal_play_masks_views_and_zero_sum_rewards(ruleset, episodes):
    env = Texas42Env(ruleset=ruleset)
    S = env.n_seats
    rng = np.random.default_rng(0)
    steps = 0

    def check(obs, info, reward, terminated):
        nonlocal steps
        st = env.state
        assert env.observation_space.contains(obs)
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        assert obs["action_mask"].dtype == np.int8
        assert np.array_equal(obs["action_mask"].astype(bool), st.legal[0])
        assert np.array_equal(env.action_masks(), st.legal[0])
        if terminated:
            assert info["to_move"] == -1 and not obs["action_mask"].any()
            assert info["phase"] == "over"
        else:  # obs is the view of the seat to move
            assert info["to_move"] == int(st.to_move[0]) >= 0 and obs["action_mask"].any()
            assert np.array_equal(obs["observation"], env.encoder.encode(st, [info["to_move"]])[0])
        if reward is not None:
            steps += 1
            r = info["rewards"]
            assert r.shape == (S,)
            assert r[::2].tolist() == [r[0]] * len(r[::2])  # partners share
            assert r[1::2].tolist() == [r[1]] * len(r[1::2])
            assert r[0] == -r[1]  # zero-sum between the teams
            if not terminated:
                assert not r.any() and reward == 0

    for _ in range(episodes):
        play_episode(env, rng, check=check)
    assert steps > episodes * 10


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("mode", ["marks", "points"])
def test_hand_rewards_are_the_cores_marks_and_points(ruleset, mode):
    env = Texas42Env(ruleset=ruleset, reward=mode,
                     rules={"play_out": True} if mode == "points" else None)
    rng = np.random.default_rng(1)
    nonzero = 0
    for ep in range(40):
        seat_before = []

        def check(obs, info, reward, terminated):
            if reward is None or not terminated:
                seat_before.append(info["to_move"])
                return
            st = env.state
            value = st.hand_marks[0] if mode == "marks" else st.points[0]
            if mode == "points" and st.bidder[0] >= 0:  # played out: every point is taken
                g = env.game  # but the sitting-out partner's count and the cat's
                left = sum(int(T.COUNT[t]) for s in range(g.n_seats)
                           for t in g.hand_tiles(st, 0, s)) + sum(
                    int(T.COUNT[t % 28]) for t in T.tiles_of(int(st.cat[0])))
                assert value.sum() == g.total_points - left
            want = [float(value[s % 2] - value[1 - s % 2]) for s in range(env.n_seats)]
            assert info["rewards"].tolist() == want
            assert reward == want[seat_before[-1]]  # the reward of the seat that just acted

        play_episode(env, rng, check=check)
        nonzero += bool(env.state.hand_marks[0].any() if mode == "marks" else True)
    assert nonzero > 20


def test_points_reward_of_a_hand_worked_record():
    """30 bid, 5s trump: the hand ends when seat 0's team has 31 (replay says [31, 11])."""
    ex = [json.loads(line) for line in EXAMPLES.read_text().splitlines()]
    made = next(e for e in ex if e["title"].startswith("a points bid made"))
    rec = dict(made["record"])
    last = rec["plays"][-1]
    rec["plays"] = rec["plays"][:-1]
    for mode, want in (("points", made["replay"]["points"]), ("marks", made["replay"]["marks"])):
        env = Texas42Env(reward=mode)
        obs, info = env.reset(options={"record": rec})
        _, reward, terminated, _, info = env.step(env.game.actions.id(last))
        assert terminated
        diff = want[0] - want[1]
        assert info["rewards"].tolist() == [diff, -diff, diff, -diff]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_game_episodes_marks_sum_to_the_score_and_game_reward_goes_to_the_winner(ruleset):
    rng = np.random.default_rng(2)
    rules = {"scoring": "marks", "target": 3}
    for ep in range(6):
        env = Texas42Env(ruleset=ruleset, reward="marks", episode="game", rules=rules)
        totals = np.zeros(env.n_seats)
        hands = 0
        obs, info = env.reset(seed=ep)
        last_hand = int(env.state.hand_no[0])
        while True:
            obs, reward, terminated, _, info = env.step(random_action(obs, rng))
            totals += info["rewards"]
            if int(env.state.hand_no[0]) != last_hand:  # the next hand was dealt in this step
                hands += 1
                last_hand = int(env.state.hand_no[0])
                assert not terminated and info["phase"] == "bid"
            if terminated:
                break
        st = env.state
        assert st.phase[0] == GAME_OVER
        diff = st.score[0, 0] - st.score[0, 1]
        assert totals.tolist() == [diff, -diff] * (env.n_seats // 2)

        # a game with the game reward: +1 / -1 at its end, 0 at every other step
        env2 = Texas42Env(ruleset=ruleset, reward="game", episode="game", rules=rules)
        rng2 = np.random.default_rng(100 + ep)
        obs, info = env2.reset(seed=ep)
        while True:
            obs, reward, terminated, _, info = env2.step(random_action(obs, rng2))
            if terminated:
                break
            assert not info["rewards"].any()
        w = int(env2.state.winner[0])
        want = [1.0 if s % 2 == w else -1.0 for s in range(env2.n_seats)]
        assert info["rewards"].tolist() == want


# ----------------------------------------------------------------------------- illegal actions
FOLLOW_REC = record(bids=["30", "pass", "pass", "pass"], contract="4s", plays=["6-4"], dealer=3)


@pytest.mark.parametrize("illegal_reward", [-1.0, -5.0])
def test_illegal_action_lose_ends_the_episode_against_the_offenders_team(illegal_reward):
    env = Texas42Env(illegal_reward=illegal_reward)
    obs, info = env.reset(options={"record": FOLLOW_REC})
    assert info["to_move"] == 1 and info["phase"] == "play"
    sp = env.game.actions
    obs, reward, terminated, truncated, info = env.step(sp.id("5-5"))  # 4s led as trump
    assert terminated and not truncated
    assert reward == illegal_reward
    assert info["rewards"].tolist() == [-illegal_reward, illegal_reward] * 2
    ill = info["illegal_action"]
    assert ill["seat"] == 1 and ill["phase"] == "play" and ill["action"] == sp.id("5-5")
    assert ill["reason"] == "must follow trumps"
    with pytest.raises(RuntimeError, match="reset"):
        env.step(sp.id("5-4"))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_illegal_action_lose_names_the_reason_in_every_phase(ruleset):
    env = Texas42Env(ruleset=ruleset)
    rng = np.random.default_rng(3)
    seen = set()
    for ep in range(30):
        obs, info = env.reset(seed=ep)
        for _ in range(int(rng.integers(0, 40))):
            obs, _, terminated, _, info = env.step(random_action(obs, rng))
            if terminated:
                obs, info = env.reset(seed=1000 + ep)
        seat, phase = info["to_move"], info["phase"]
        bad = np.flatnonzero(obs["action_mask"] == 0)
        a = int(rng.choice(np.append(bad, [env.game.n_actions, -3])))
        want = env.game.reason(env.state, 0, a)
        _, reward, terminated, _, info = env.step(a)
        assert terminated and reward == -1.0
        r = info["rewards"]
        assert r[seat] == -1 and r[(seat + 1) % env.n_seats] == 1 and r.sum() == 0
        assert info["illegal_action"] == {"seat": seat, "action": a, "phase": phase,
                                          "reason": want}
        assert want
        seen.add(phase)
    assert {"bid", "play"} <= seen


def test_illegal_action_raise_raises_and_leaves_the_state_unchanged():
    env = Texas42Env(illegal_action="raise")
    obs, info = env.reset(options={"record": FOLLOW_REC})
    before = snapshot(env.state)
    sp = env.game.actions
    with pytest.raises(IllegalActionError) as e:
        env.step(sp.id("5-5"))
    assert e.value.seat == 1 and e.value.reason == "must follow trumps"
    assert e.value.action == "5-5" and e.value.phase == "play"
    assert same_state(before, snapshot(env.state))
    with pytest.raises(IllegalActionError, match="not an action id"):
        env.step(999)
    assert same_state(before, snapshot(env.state))
    obs, reward, terminated, _, info = env.step(sp.id("5-4"))  # the env goes on
    assert not terminated and info["to_move"] == 2


def test_bad_constructor_arguments_are_named():
    for kwargs, word in (({"episode": "match"}, "episode"), ({"illegal_action": "ignore"},
                          "illegal_action"), ({"reward": "tricks"}, "reward"),
                         ({"render_mode": "rgb_array"}, "render_mode"),
                         ({"observation": "oracle"}, "observation")):
        with pytest.raises(ValueError, match=word):
            Texas42Env(**kwargs)


# ----------------------------------------------------------------------------- records
def _examples():
    return [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]


def _env_for(rec: dict, **kwargs) -> Texas42Env:
    return Texas42Env(ruleset=rec.get("ruleset", "standard"), rules=rec.get("options"), **kwargs)


def test_reset_from_partial_records_gives_replays_legal_actions():
    partial = [e for e in _examples() if e["replay"]["ok"] and not e["replay"]["complete"]]
    assert len(partial) >= 3
    for e in partial:
        rec, want = e["record"], e["replay"]
        env = _env_for(rec)
        obs, info = env.reset(options={"record": rec})
        assert info["to_move"] == want["to_move"] and info["phase"] == want["phase"], e["title"]
        if want["phase"] == "exchange":
            got = legal_exchanges(env.game, env.state, 0)
            key = sorted(json.dumps(x, sort_keys=True) for x in got)
            assert key == sorted(json.dumps(x, sort_keys=True) for x in want["legal"])
        else:
            names = sorted(env.game.actions.name(a) for a in np.flatnonzero(obs["action_mask"]))
            assert names == want["legal"], e["title"]
        assert np.array_equal(obs["observation"],
                              env.encoder.encode(env.state, [want["to_move"]])[0])


@pytest.mark.parametrize("ruleset", RULESETS)
def test_reset_from_records_cut_from_random_play(ruleset):
    """A record written mid-hand and read back gives the same legal actions as replay, and the
    very observation the table had (first hands of games: the game score is 0 in both)."""
    env = Texas42Env(ruleset=ruleset)
    game = env.game
    rng = np.random.default_rng(4)
    st = game.reset(64, seed=9)
    for k in range(int(game.n_tricks * game.n_seats * 0.6)):
        if k % 5 == 2:
            for b in np.flatnonzero(st.phase < HAND_OVER)[:6]:
                if st.phase[b] == 2 and (st.n_swaps[b] or st.ex_pending[b] >= 0):
                    continue  # half an exchange is not a record
                rec = json.loads(json.dumps(record_from_state(game, st, int(b))))
                obs, info = env.reset(options={"record": rec})
                want = replay(parse_record(rec))
                assert info["to_move"] == want["to_move"] == int(st.to_move[b])
                if want["phase"] != "exchange":
                    names = sorted(game.actions.name(a) for a in np.flatnonzero(obs["action_mask"]))
                    assert names == want["legal"]
                assert np.array_equal(obs["action_mask"].astype(bool), st.legal[b])
                assert np.array_equal(obs["observation"],
                                      env.encoder.encode(st, [int(st.to_move[b])], [b])[0])
        game.step(st, uniform_legal(st.legal, rng))


def test_reset_rejects_complete_illegal_mismatched_and_malformed_records():
    ex = {e["title"]: e for e in _examples()}
    complete = next(e for e in ex.values() if e["replay"]["ok"] and e["replay"]["complete"]
                    and "options" not in e["record"])
    env = Texas42Env()
    with pytest.raises(RecordError, match="hand is over"):
        env.reset(options={"record": complete["record"]})
    illegal = next(e for e in ex.values() if not e["replay"]["ok"]
                   and e["replay"]["error"]["phase"] == "play")
    err = illegal["replay"]["error"]
    with pytest.raises(RecordError, match=rf"action {err['index']} .*must follow") as e:
        env.reset(options={"record": illegal["record"]})
    assert e.value.field == "record"
    with pytest.raises(RecordError, match="bid must exceed 31"):
        env.reset(options={"record": record(bids=["31", "30"])})
    with pytest.raises(RecordError, match="options"):  # the env's rules are not the record's
        env.reset(options={"record": record(bids=["30"], all_pass="redeal")})
    with pytest.raises(RecordError, match="dealer"):
        env.reset(options={"record": record(dealer=4)})
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"deal": 3})
    six = Texas42Env(ruleset="six-player")
    with pytest.raises(RecordError, match="options"):
        six.reset(options={"record": record(bids=["30"])})


# ----------------------------------------------------------------------------- seeding
@pytest.mark.parametrize("ruleset", RULESETS)
def test_seeded_resets_are_reproducible(ruleset):
    def trajectory(env, seed):
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        out = [obs["observation"].copy()]
        dealt = env.state.dealt.copy()
        for _ in range(15):
            obs, r, term, _, info = env.step(random_action(obs, rng))
            out.append(obs["observation"].copy())
            if term:
                break
        return dealt, out

    a, b = Texas42Env(ruleset=ruleset), Texas42Env(ruleset=ruleset)
    d1, t1 = trajectory(a, 11)
    d2, t2 = trajectory(b, 11)
    d3, t3 = trajectory(a, 11)  # the same env reset again with the seed
    assert np.array_equal(d1, d2) and np.array_equal(d1, d3)
    assert all(np.array_equal(x, y) and np.array_equal(x, z) for x, y, z in zip(t1, t2, t3))
    d4, _ = trajectory(a, 12)
    assert not np.array_equal(d1, d4)
    # without a seed the next reset deals a new hand
    a.reset(seed=11)
    a.reset()
    assert not np.array_equal(a.state.dealt, d1)


def test_render_modes():
    env = Texas42Env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "seat 0" in text and "dealer seat" in text


# ----------------------------------------------------------------------------- vector env
@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("layout", ["team", "seat"])
def test_vector_env_shapes_and_layouts(ruleset, layout):
    B = 8
    vec = Texas42VectorEnv(B, ruleset=ruleset, reward_layout=layout, seed=3)
    S, A, N = vec.game.n_seats, vec.game.n_actions, vec.encoder.size
    obs, info = vec.reset()
    assert obs["observation"].shape == (B, N) and obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (B, A) and obs["action_mask"].dtype == np.int8
    assert info["to_move"].shape == (B,)
    assert vec.single_observation_space["observation"].shape == (N,)
    assert vec.single_action_space.n == A
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        acts = uniform_legal(obs["action_mask"].astype(bool), rng)
        obs, rew, term, trunc, info = vec.step(acts)
        assert rew.shape == (B, 2 if layout == "team" else S) and rew.dtype == np.float32
        assert term.shape == trunc.shape == (B,) and term.dtype == bool and not trunc.any()
        assert np.array_equal(term, info["hand_over"])
        assert not rew[~term].any()
        if layout == "team":
            assert (rew[:, 0] == -rew[:, 1]).all()
        else:
            assert (rew == rew[:, np.arange(S) % 2]).all() and (rew[:, 0] == -rew[:, 1]).all()
        for b in range(B):
            assert vec.single_observation_space.contains(
                {"observation": obs["observation"][b], "action_mask": obs["action_mask"][b]})
        assert obs["action_mask"].any(axis=1).all()  # every table has a seat to move
        ended += term.sum()
    assert ended > 0


def test_vector_env_seat_rewards_spread_the_team_rewards():
    outs = {}
    for layout in ("team", "seat"):
        vec = Texas42VectorEnv(16, reward_layout=layout, seed=8)
        obs, _ = vec.reset()
        rng = np.random.default_rng(5)
        total = 0
        for _ in range(60):
            obs, rew, term, _, _ = vec.step(uniform_legal(obs["action_mask"].astype(bool), rng))
            total = total + rew
        outs[layout] = total
    assert np.abs(outs["team"]).sum() > 0
    assert np.array_equal(outs["seat"], outs["team"][:, [0, 1, 0, 1]])


def test_vector_env_auto_reset_deals_the_next_hand_in_the_same_step():
    B = 16
    vec = Texas42VectorEnv(B, seed=1)
    obs, info = vec.reset()
    rng = np.random.default_rng(6)
    seen = 0
    for _ in range(200):
        before = vec.state.copy()
        obs, rew, term, _, info = vec.step(uniform_legal(obs["action_mask"].astype(bool), rng))
        st = vec.state
        for b in np.flatnonzero(term):
            seen += 1
            assert info["hand_over"][b]
            marks = info["hand_marks"][b]
            assert rew[b].tolist() == [marks[0] - marks[1], marks[1] - marks[0]]
            assert info["made"][b] in (0, 1)  # force_dealer: never thrown in
            assert st.phase[b] == BIDDING and st.n_bids[b] == 0 and st.n_plays[b] == 0
            if info["game_over"][b]:
                assert st.hand_no[b] == 0 and not st.score[b].any()
                assert st.game_id[b] >= B  # a new game
            else:
                assert st.hand_no[b] == before.hand_no[b] + 1
                assert st.dealer[b] == (before.dealer[b] + 1) % 4
            assert info["to_move"][b] == st.to_move[b] == (st.dealer[b] + 1) % 4
            assert np.array_equal(obs["observation"][b],
                                  vec.encoder.encode(st, [st.to_move[b]], [b])[0])
        assert np.array_equal(info["to_move"], st.to_move)
    assert seen > 20


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("episode,reward,layout", [("hand", "marks", "team"),
                                                   ("hand", "points", "seat"),
                                                   ("game", "marks", "seat"),
                                                   ("game", "game", "team")])
def test_vector_env_equals_its_tables_played_one_at_a_time(ruleset, episode, reward, layout):
    """Each table of the vector env, stepped with the same actions through a ``Texas42Env``
    holding a copy of its state, gives the same observations, rewards and terminations; where
    the single env stops (end of its episode) the vector env's own next deal is checked and
    the single env takes the vector table's state again."""
    B = 6
    rules = {"target": 2, "scoring": "marks"}
    vec = Texas42VectorEnv(B, ruleset=ruleset, rules=rules, reward=reward, episode=episode,
                           reward_layout=layout, seed=21)
    obs, info = vec.reset()
    singles = [Texas42Env(ruleset=ruleset, rules=rules, reward=reward, episode=episode)
               for _ in range(B)]

    def sync(b):
        singles[b].state = vec.state.take([b])
        singles[b]._done = False

    for b in range(B):
        sync(b)
    rng = np.random.default_rng(7)
    counts = {"hands": 0, "games": 0}
    for _ in range(300 if ruleset == "standard" else 200):
        acts = uniform_legal(obs["action_mask"].astype(bool), rng)
        obs, rew, term, _, info = vec.step(acts)
        for b in range(B):
            one = singles[b]
            o, r, t, _, inf = one.step(int(acts[b]))
            seat_r = inf["rewards"]
            want = seat_r if layout == "seat" else seat_r[:2]
            assert np.array_equal(rew[b], want), (b, rew[b], want)
            assert term[b] == t
            counts["hands"] += bool(info["hand_over"][b])
            if info["hand_over"][b] and (t or episode == "hand"):
                # the single env stopped here: what it would deal next is the vector's table
                if info["game_over"][b]:
                    counts["games"] += 1
                    assert vec.state.hand_no[b] == 0 and not vec.state.score[b].any()
                else:
                    assert np.array_equal(info["hand_marks"][b], one.state.hand_marks[0])
                    assert np.array_equal(info["points"][b], one.state.points[0])
                    nxt = one.state.copy()
                    one.game.next_hand(nxt)
                    for f in nxt.STORED:
                        assert np.array_equal(getattr(nxt, f)[..., 0] if f == "scalars"
                                              else getattr(nxt, f)[0],
                                              getattr(vec.state, f)[:, b] if f == "scalars"
                                              else getattr(vec.state, f)[b]), f
                sync(b)
                o = {"observation": vec.encoder.encode(one.state, [int(one.state.to_move[0])])[0],
                     "action_mask": one.state.legal[0].astype(np.int8)}
                inf = {"to_move": int(one.state.to_move[0])}
            assert np.array_equal(o["observation"], obs["observation"][b])
            assert np.array_equal(o["action_mask"], obs["action_mask"][b])
            assert inf["to_move"] == info["to_move"][b]
    assert counts["hands"] > B
    if episode == "game":
        assert counts["games"] > 0


def test_vector_env_rejects_bad_arguments_and_step_before_reset():
    with pytest.raises(ValueError, match="episode"):
        Texas42VectorEnv(2, episode="match")
    with pytest.raises(ValueError, match="reward_layout"):
        Texas42VectorEnv(2, reward_layout="agent")
    with pytest.raises(ValueError, match="reward"):
        Texas42VectorEnv(2, reward="tricks")
    with pytest.raises(RuntimeError, match="reset"):
        Texas42VectorEnv(2).step(np.zeros(2, np.int64))


def test_step_returns_python_bools_and_floats_in_both_episode_modes():
    import gymnasium as gym

    for episode in ("hand", "game"):
        env = gym.make("Texas42-v0", episode=episode).unwrapped
        obs, info = env.reset(seed=5)
        rng = np.random.default_rng(5)
        for _ in range(400):
            legal = np.flatnonzero(obs["action_mask"])
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
            assert type(terminated) is bool and type(truncated) is bool
            assert type(reward) is float
            if terminated:
                break
