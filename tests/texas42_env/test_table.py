"""``texas42_env.table`` on its own: the chores shared by the single-table envs
(``check_choice``, ``make_rules``, ``table_spaces``, ``Outcome``, ``SingleTable``).

Held to: option errors name the option and list the allowed values; the rules come from a
ruleset and options or a ready ``RulesConfig``; the spaces fit the encoder and the action
space; dealing is reproducible from the generator (the same two draws the envs make) or
starts at a record's position; a legal action is played, an illegal one is refused with the
core's reason and ends the episode against the offender's team (or raises, per the option)
leaving the state as it was; rewards come when a hand ends, zero-sum and shared by
partners; ``episode="game"`` deals the next hand, passing the deal left, until the game ends.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from gymnasium.utils import seeding

from texas42_env.core import BIDDING, GAME_OVER, HAND_OVER, IllegalActionError
from texas42_env.env import Texas42Env
from texas42_env.narrator import describe_hand
from texas42_env.observation import make_encoder
from texas42_env.records import RecordError
from texas42_env.rules import ConfigError, RulesConfig
from texas42_env.table import EPISODES, ILLEGAL, Outcome, SingleTable, check_choice, \
    make_rules, table_spaces

from helpers import record, same_state, snapshot

MADE_30 = ["30", "pass", "pass", "pass"]  # seat 0 bids 30 on the spec's deal, dealer 3
TWO_TRICKS = ["6-6", "5-5", "4-1", "2-1", "6-4", "5-0", "3-2", "1-0"]  # and makes it: 37-0


class Table(SingleTable):
    """The smallest env over ``SingleTable``: the table, as the Gymnasium env keeps it."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, ruleset="standard", rules=None, reward="marks", episode="hand",
                 illegal_action="lose", illegal_reward=-1.0, observation="imperfect",
                 render_mode=None):
        self._configure(ruleset, rules, reward, episode, illegal_action, illegal_reward,
                        observation, render_mode)
        self.state = None


def _at(table: Table, plays=TWO_TRICKS[:-1], **options):
    """``table``'s state at the spec's 30 in 6s with ``plays`` made (default: all but the
    last play of the hand)."""
    rec = record(bids=MADE_30, contract="6s", plays=list(plays), **options)
    table.state = table._deal(np.random.default_rng(0), {"record": rec})
    return table.state


def _id(table: Table, name: str) -> int:
    return table.game.actions.id(name)


# ----------------------------------------------------------------------------- options
def test_check_choice_names_the_option_and_the_allowed_values():
    check_choice("episode", "game", EPISODES)  # an allowed value passes
    with pytest.raises(ValueError) as err:
        check_choice("episode", "match", EPISODES)
    assert str(err.value) == "unknown episode 'match'; allowed: hand, game"
    with pytest.raises(ValueError, match=r"^unknown level 3; allowed: 1, 2$"):
        check_choice("level", 3, (1, 2))


@pytest.mark.parametrize("kwargs,words", [
    ({"episode": "match"}, "unknown episode 'match'; allowed: hand, game"),
    ({"illegal_action": "ignore"}, "unknown illegal_action 'ignore'; allowed: lose, raise"),
    ({"render_mode": "human"}, "unknown render_mode 'human'; allowed: ansi"),
    ({"reward": "tricks"}, "unknown reward 'tricks'; allowed: marks, points, game"),
    ({"observation": "oracle"}, "unknown observation encoder 'oracle'; allowed: "),
])
def test_a_bad_option_of_the_table_is_named_with_what_is_allowed(kwargs, words):
    with pytest.raises(ValueError) as err:
        Table(**kwargs)
    assert str(err.value).startswith(words)


def test_the_options_are_kept_once_checked():
    t = Table(ruleset="six-player", reward="points", episode="game", illegal_action="raise",
              illegal_reward=-3, observation="perfect", render_mode="ansi")
    assert (t.reward, t.episode, t.illegal_action, t.render_mode) == ("points", "game", "raise",
                                                                      "ansi")
    assert t.illegal_reward == -3.0 and isinstance(t.illegal_reward, float)
    assert t.game.rules.ruleset == "six-player" and t.n_seats == 6
    assert t.encoder.size == make_encoder(t.game, "perfect").size
    assert set(ILLEGAL) == {"lose", "raise"} and set(EPISODES) == {"hand", "game"}


def test_make_rules_takes_a_ruleset_and_options_or_a_ready_config():
    ready = RulesConfig.make(sevens=True)
    assert make_rules("six-player", ready) is ready  # the config wins over the name
    assert make_rules() == RulesConfig.make()
    assert make_rules("six-player") == RulesConfig.make("six-player")
    assert make_rules("standard", {"nello": False, "play_out": True}) == \
        RulesConfig.make(nello=False, play_out=True)
    with pytest.raises(ConfigError, match="option 'plunge_marks': bad value 0"):
        make_rules("standard", {"plunge_marks": 0})
    with pytest.raises(ConfigError, match="unknown option 'nello' for ruleset 'six-player'"):
        make_rules("six-player", {"nello": True})
    with pytest.raises(ConfigError, match="unknown ruleset 'eight-player'"):
        make_rules("eight-player")


@pytest.mark.parametrize("ruleset,n_actions", [("standard", 64), ("six-player", 257)])
def test_the_spaces_fit_the_encoder_and_the_actions(ruleset, n_actions):
    t = Table(ruleset=ruleset)
    obs_space, act_space = table_spaces(t.game, t.encoder)
    assert isinstance(obs_space, spaces.Dict) and set(obs_space) == {"observation",
                                                                     "action_mask"}
    assert obs_space["observation"].shape == (t.encoder.size,)
    assert obs_space["observation"].dtype == np.float32
    assert obs_space["action_mask"].shape == (n_actions,)
    assert obs_space["action_mask"].dtype == np.int8
    assert isinstance(act_space, spaces.Discrete) and act_space.n == n_actions
    st = t._deal(np.random.default_rng(1), {})
    obs = {"observation": t.encoder.encode(st, [int(st.to_move[0])])[0],
           "action_mask": st.legal[0].astype(np.int8)}
    assert obs_space.contains(obs)


def test_an_outcome_holds_no_result_until_told_and_its_own_extra():
    a = Outcome(2, np.zeros(4, np.float32))
    assert (a.terminated, a.illegal, a.hand_over, a.extra) == (False, None, False, {})
    b = Outcome(1, np.zeros(4, np.float32))
    a.extra["x"] = 1
    assert b.extra == {}


# ----------------------------------------------------------------------------- dealing
@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_dealing_is_reproducible_from_the_generator(ruleset):
    t = Table(ruleset=ruleset)
    a = t._deal(np.random.default_rng(42), {})
    b = t._deal(np.random.default_rng(42), {})
    assert same_state(snapshot(a), snapshot(b))
    assert a.batch_size == 1 and int(a.phase[0]) == BIDDING
    # the deal is the core's for the two numbers drawn: the game's id, then the deal's seed
    rng = np.random.default_rng(42)
    game_id, deal_seed = int(rng.integers(0, 2**62)), int(rng.integers(0, 2**62))
    want = t.game.reset(1, seed=deal_seed, game_ids=[game_id])
    assert same_state(snapshot(a), snapshot(want))
    assert int(a.game_id[0]) == game_id and a.seed == deal_seed
    # another seed, another deal; the generator goes on to other deals
    others = [t._deal(np.random.default_rng(s), {}).dealt[0].tolist() for s in range(43, 48)]
    rng = np.random.default_rng(42)
    going_on = [t._deal(rng, {}).dealt[0].tolist() for _ in range(5)]
    assert len({tuple(x) for x in others + going_on}) == 10


def test_the_gymnasium_env_deals_what_the_table_deals_for_its_seed():
    t = Table()
    env = Texas42Env()
    env.reset(seed=7)
    mine = t._deal(seeding.np_random(7)[0], {})
    assert np.array_equal(env.state.dealt, mine.dealt)
    assert np.array_equal(env.state.dealer, mine.dealer)


def test_dealing_from_a_record_starts_at_its_position():
    t = Table()
    st = _at(t, plays=TWO_TRICKS[:3])
    assert int(st.to_move[0]) == 3 and int(st.n_in_trick[0]) == 3
    assert t.game.reason(st, 0, _id(t, "2-1")) is None
    with pytest.raises(RecordError, match="rules"):
        Table(rules={"nello": False})._deal(np.random.default_rng(0),
                                            {"record": record(bids=["30"])})
    with pytest.raises(RecordError, match="the hand is over"):
        _at(t, plays=TWO_TRICKS)


# ----------------------------------------------------------------------------- playing
def test_a_legal_action_is_played_with_no_reward_until_the_hand_ends():
    t = Table()
    st = _at(t, plays=[])
    out = t._play(st, _id(t, "6-6"))
    assert out.seat == 0 and not out.terminated and not out.hand_over
    assert out.illegal is None and out.extra == {}
    assert np.array_equal(out.rewards, np.zeros(4)) and out.rewards.dtype == np.float32
    assert int(st.n_plays[0]) == 1 and int(st.to_move[0]) == 1
    out = t._play(st, np.int64(_id(t, "5-5")))  # a NumPy integer is an action too
    assert out.seat == 1 and int(st.n_plays[0]) == 2


@pytest.mark.parametrize("illegal_reward", [-1.0, -2.5, 3.0])
def test_an_illegal_action_ends_the_episode_against_the_offenders_team(illegal_reward):
    t = Table(illegal_reward=illegal_reward)
    st = _at(t, plays=TWO_TRICKS[:1])  # seat 1 to play
    before = snapshot(st)
    bad = _id(t, "6-5")
    out = t._play(st, bad)
    assert out.terminated and not out.hand_over and out.seat == 1
    assert out.illegal == {"seat": 1, "action": bad, "phase": "play",
                           "reason": t.game.reason(st, 0, bad)}
    assert out.illegal["reason"] == "not in hand"
    assert out.rewards.tolist() == [-illegal_reward, illegal_reward, -illegal_reward,
                                    illegal_reward]
    assert same_state(before, snapshot(st))


@pytest.mark.parametrize("bad,reason", [(99, "not an action id (0..63)"),
                                        (-1, "not an action id (0..63)"),
                                        (0, "a play is due, not a bid")])
def test_an_illegal_action_is_refused_with_the_cores_reason(bad, reason):
    t = Table()
    st = _at(t, plays=TWO_TRICKS[:2])  # seat 2 to play
    out = t._play(st, bad)
    assert out.illegal == {"seat": 2, "action": bad, "phase": "play", "reason": reason}
    assert out.rewards.tolist() == [-1.0, 1.0, -1.0, 1.0]  # seat 2's team, the offender's, -1


def test_illegal_action_raise_raises_the_cores_error_and_changes_nothing():
    t = Table(illegal_action="raise")
    st = _at(t, plays=TWO_TRICKS[:1])
    before = snapshot(st)
    with pytest.raises(IllegalActionError) as err:
        t._play(st, _id(t, "6-5"))
    assert (err.value.seat, err.value.reason, err.value.phase) == (1, "not in hand", "play")
    assert same_state(before, snapshot(st))
    with pytest.raises(IllegalActionError, match="not an action id"):
        t._play(st, 64)
    assert same_state(before, snapshot(st))


@pytest.mark.parametrize("reward,want", [("marks", [1, -1, 1, -1]),
                                         ("points", [37, -37, 37, -37]),
                                         ("game", [0, 0, 0, 0])])
def test_rewards_come_when_a_hand_ends_zero_sum_and_shared_by_partners(reward, want):
    t = Table(reward=reward)
    st = _at(t)
    out = t._play(st, _id(t, "1-0"))
    assert out.hand_over and out.terminated and out.illegal is None and out.seat == 3
    assert out.rewards.tolist() == want and out.rewards.dtype == np.float32
    assert out.extra == {"hand_over": True, "made": 1, "points": [37, 0], "marks": [1, 0],
                         "score": [1, 0]}
    assert int(st.phase[0]) == HAND_OVER  # episode "hand": no next hand is dealt
    assert "  points 37-0: bid made; this hand scores 1-0, game 1-0" in t.render_text()
    assert t.render_text() == describe_hand(t.game, st, 0)


def test_a_hand_that_ends_the_game_gives_the_game_reward_to_the_winners():
    t = Table(reward="game", rules={"target": 1})
    st = _at(t, target=1)
    out = t._play(st, _id(t, "1-0"))
    assert int(st.phase[0]) == GAME_OVER and out.terminated
    assert out.rewards.tolist() == [1, -1, 1, -1]


def test_episode_game_deals_the_next_hand_passing_the_deal_left():
    t = Table(episode="game")
    st = t._deal(np.random.default_rng(5), {})
    game_id, dealer0 = int(st.game_id[0]), int(st.dealer[0])
    rng = np.random.default_rng(6)
    hands = 0
    score = np.zeros(2, np.int64)
    while True:
        legal = np.flatnonzero(st.legal[0])
        out = t._play(st, int(rng.choice(legal)))
        assert out.illegal is None
        if not out.hand_over:
            assert not out.terminated and not out.rewards.any()
            continue
        hands += 1
        marks = np.array(out.extra["marks"])
        score += marks
        assert out.extra["score"] == score.tolist()
        assert out.rewards.tolist() == [float(marks[s % 2] - marks[1 - s % 2]) for s in range(4)]
        if out.terminated:
            break
        # the next hand is dealt in the same step: hand n of the same game, dealer moved left
        assert int(st.phase[0]) == BIDDING and int(st.hand_no[0]) == hands
        assert int(st.game_id[0]) == game_id
        assert int(st.dealer[0]) == (dealer0 + hands) % 4
        assert np.array_equal(st.dealt, t.game.deal(st.seed, [game_id], [hands])[0])
        assert st.score[0].tolist() == score.tolist()
    assert int(st.phase[0]) == GAME_OVER and score.max() >= 7
    assert int(st.winner[0]) == int(np.argmax(score)) and hands > 1


def test_episode_game_in_the_six_player_game_goes_on_past_a_hand():
    t = Table(ruleset="six-player", episode="game", reward="points")
    st = t._deal(np.random.default_rng(8), {})
    rng = np.random.default_rng(8)
    while True:
        out = t._play(st, int(rng.choice(np.flatnonzero(st.legal[0]))))
        if out.hand_over:
            break
    assert not out.terminated  # no bid is worth the 500 points of the game
    assert out.rewards.shape == (6,)
    assert (out.rewards[0::2] == out.rewards[0]).all()
    assert (out.rewards[0::2] == -out.rewards[1::2]).all()
    assert out.rewards[0] == out.extra["points"][0] - out.extra["points"][1]
    assert int(st.phase[0]) == BIDDING and int(st.hand_no[0]) == 1
    assert int(st.points[0].sum()) == 0 and st.score[0].tolist() == out.extra["score"]
