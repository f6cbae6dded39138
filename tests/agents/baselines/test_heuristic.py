"""The rule-based HeuristicAgent: always legal, far stronger than random and passive play, and
the hand-worked 42 decisions its rules of thumb promise.

The hand-worked deal (dealer 3, so seat 0 bids first)::

    seat 0: 6-6 6-5 6-4 6-2 4-4 3-1 2-0   four sixes with the double, an off double
    seat 1: 6-3 6-1 5-4 5-3 3-3 2-2 1-0   two small sixes
    seat 2: 5-5 5-0 4-3 4-2 2-1 1-1 0-0   no six; 15 in count
    seat 3: 6-0 5-2 5-1 4-1 4-0 3-2 3-0   a weak hand

Worked by hand, bidding backwards for seat 0 with sixes trump: the double and 6-5 draw the
three sixes out (6-3, 6-1, 6-0), 4-4 walks, 3-1 and 2-0 are offs: 42 - 2 x 3.6 - 5 x 0.3 =
33.3, three under it 30: a 30 bid. Seat 3 holds no trump worth a bid and passes.
"""

from __future__ import annotations


import numpy as np
import pytest

from agents import make_agent
from agents.arena.duplicate import play_duplicate, summarize
from agents.baselines.simple import RandomAgent
from agents.baselines.heuristic import HeuristicAgent
from texas42_env import tiles as T
from texas42_env.core import HAND_OVER, PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import RulesConfig, preset

DEAL = (
    ("6-6", "6-5", "6-4", "6-2", "4-4", "3-1", "2-0"),
    ("6-3", "6-1", "5-4", "5-3", "3-3", "2-2", "1-0"),
    ("5-5", "5-0", "4-3", "4-2", "2-1", "1-1", "0-0"),
    ("6-0", "5-2", "5-1", "4-1", "4-0", "3-2", "3-0"),
)

RULE_VARIANTS = [
    RulesConfig.make(),
    preset("all-specials"),  # splash and sevens on
    preset("no-specials"),
    RulesConfig.make(nello_doubles="low", follow_me_doubles="own_suit"),
    RulesConfig.make(nello_doubles="own_suit", sevens=True, sevens_tie="bidder"),
    RulesConfig.make(all_pass="redeal", first_bidder="holder_of_1_0", max_opening_marks=7),
    RulesConfig.make(plunge_min_doubles=3, plunge_marks=2, nello_min_marks=0,
                     sevens=True, sevens_min_marks=0, scoring="points", play_out=True),
]


def _table(hands=DEAL, dealer=3, actions=(), rules=None):
    """A one-table game dealt ``hands``, after the named ``actions``; with its encoder."""
    game = Game(rules or RulesConfig.make())
    st = game.reset(1, seed=0)
    masks = np.array([[T.mask_of(T.parse_tile(x) for x in h) for h in hands]], np.uint64)
    game.set_hands(st, [0], masks, dealer)
    for name in actions:
        game.step(st, np.array([game.actions.id(name)]))
    return game, st


def _decide(game, st, agent=None):
    """The agent's action, by name, for the seat to move at the one table."""
    agent = agent or HeuristicAgent()
    agent.setup(game)
    obs = make_encoder(game).encode(st, st.to_move)
    a = agent.act_one(obs[0], st.legal[0])
    assert st.legal[0, a], f"illegal {game.actions.name(a)}"
    return game.actions.name(a)


# ------------------------------------------------------------------ legality


def test_registered_by_name_and_plays_both_rulesets():
    agent = make_agent("heuristic")
    assert isinstance(agent, HeuristicAgent) and agent.name == "heuristic"
    assert agent.rulesets == ("standard", "six-player")
    agent.setup(Game(preset("six-player")))  # the six-player rules of thumb (heuristic_six)


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=lambda r: str(r.options()) or "standard")
def test_only_legal_actions_in_random_positions(rules):
    """Tables driven by random play (random bids: plunges, nello, sevens, mark ladders);
    at every step the heuristic is asked for every table's seat to move."""
    game = Game(rules)
    enc = make_encoder(game)
    agent = HeuristicAgent().setup(game)
    driver = RandomAgent(seed=5).setup(game)
    st = game.reset(256, seed=11)
    asked = 0
    contracts = set()
    for _ in range(3):  # three hands at each table
        while (st.phase < HAND_OVER).any():
            idx = np.flatnonzero(st.phase < HAND_OVER)
            obs = enc.encode(st, st.to_move[idx], idx=idx)
            mine = agent.act(obs, st.legal[idx])
            assert st.legal[idx, mine].all(), "an illegal heuristic action"
            asked += len(idx)
            contracts.update(st.contract[idx[st.phase[idx] == PLAYING]].tolist())
            actions = np.full(st.batch_size, -1, np.int64)
            actions[idx] = driver.act(None, st.legal[idx])
            game.step(st, actions)
        over = np.flatnonzero(st.phase == HAND_OVER)
        game.next_hand(st, over)
    assert asked > 5000
    expected = {c for c in range(11) if rules.contract_allowed(c)}
    assert contracts == expected  # every contract the rules allow was played through
    assert agent.fallbacks == 0  # no rule ever proposed an illegal action


@pytest.mark.parametrize("rules", RULE_VARIANTS[:3], ids=["standard", "all-specials",
                                                          "no-specials"])
def test_only_legal_actions_in_duplicate_matches(rules):
    heuristic = HeuristicAgent()
    # play_duplicate raises on any illegal action
    play_duplicate(rules, heuristic, "random", deals=200, seed=2)
    play_duplicate(rules, heuristic, HeuristicAgent(), deals=200, seed=3)
    assert heuristic.fallbacks == 0


def test_a_batch_of_one_and_a_batch_of_many_agree():
    game = Game(RulesConfig.make())
    enc = make_encoder(game)
    st = game.reset(64, seed=4)
    driver = RandomAgent(seed=1).setup(game)
    for _ in range(14):  # into the play
        game.step(st, np.where(st.phase < HAND_OVER, driver.act(None, st.legal), -1))
    idx = np.flatnonzero(st.phase < HAND_OVER)
    obs = enc.encode(st, st.to_move[idx], idx=idx)
    agent = HeuristicAgent().setup(game)
    batch = agent.act(obs, st.legal[idx])
    one = [agent.act_one(obs[i], st.legal[idx[i]]) for i in range(len(idx))]
    assert batch.tolist() == one


def test_decides_a_large_mixed_batch_legally():
    """A big batch of bidding, declaring and play rows at once (speed is measured by
    benchmarks, not here)."""
    game = Game(RulesConfig.make())
    enc = make_encoder(game)
    st = game.reset(2048, seed=6)
    driver = RandomAgent(seed=2).setup(game)
    for _ in range(12):  # a mix of bidding, declaring and play
        game.step(st, np.where(st.phase < HAND_OVER, driver.act(None, st.legal), -1))
    fresh = np.arange(0, 2048, 3)  # new deals there: bidding rows beside the play rows
    game.new_games(st, fresh, fresh + 10_000)
    idx = np.flatnonzero(st.phase < HAND_OVER)
    obs, masks = enc.encode(st, st.to_move[idx], idx=idx), st.legal[idx]
    agent = HeuristicAgent().setup(game)
    actions = agent.act(obs, masks)
    assert masks[np.arange(len(idx)), actions].all()
    assert len(set(st.phase[idx].tolist())) > 1  # really a mix of phases


# ------------------------------------------------------------------ strength


def test_beats_random_by_a_wide_margin():
    s = summarize(play_duplicate(RulesConfig.make(), "heuristic", "random", deals=300, seed=1),
                  n_boot=300)
    est, lo, hi = s["marks_per_hand"]
    assert lo > 0.8, s  # about +1.2 marks a hand over 2000 deal pairs


def test_beats_passive_by_a_clear_margin():
    s = summarize(play_duplicate(RulesConfig.make(), "heuristic", "passive", deals=300, seed=1),
                  n_boot=300)
    est, lo, hi = s["marks_per_hand"]
    assert lo > 0.4, s  # about +0.7 marks a hand over 2000 deal pairs
    assert s["a_made_rate"][0] > 0.7


# ------------------------------------------------------------------ hand-worked decisions


def test_bids_a_strong_hand():
    game, st = _table()
    assert _decide(game, st) == "30"


def test_passes_a_weak_hand():
    hands = (DEAL[3], DEAL[1], DEAL[2], DEAL[0])  # the weak hand bids first
    game, st = _table(hands)
    assert _decide(game, st) == "pass"


def test_a_forced_dealer_bids_30():
    hands = (DEAL[1], DEAL[2], DEAL[0], DEAL[3])  # dealer 3 holds the weak hand
    game, st = _table(hands, actions=("pass", "pass", "pass"))
    assert not st.legal[0, 0]
    assert _decide(game, st) == "30"


def test_does_not_overcall_its_partner_with_an_ordinary_hand():
    hands = (DEAL[1], DEAL[3], DEAL[0], DEAL[2])  # seat 2 holds the strong hand
    game, st = _table(hands, actions=("30", "pass"))  # seat 0 (partner of 2) bid 30
    assert _decide(game, st) == "pass"


def test_bids_two_marks_with_a_lay_down():
    # every six but 6-0 with the double (6-0 falls to the second lead) and the 5-5
    lay = ("6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "5-5")
    rest = [t for t in T.TILE_NAMES if t not in lay]
    hands = (lay, tuple(rest[0:7]), tuple(rest[7:14]), tuple(rest[14:21]))
    game, st = _table(hands)
    assert _decide(game, st) == "2m"


def test_declares_its_longest_trump_suit():
    hands = (("5-5", "5-4", "5-3", "5-1", "5-0", "6-6", "2-1"),
             ("6-5", "6-4", "6-3", "6-2", "6-1", "6-0", "4-4"),
             ("5-2", "4-3", "4-2", "4-1", "4-0", "3-3", "3-2"),
             ("3-1", "3-0", "2-2", "2-0", "1-1", "1-0", "0-0"))
    game, st = _table(hands, actions=("30", "pass", "pass", "pass"))
    assert _decide(game, st) == "5s"


def test_pulls_trumps_with_the_double():
    game, st = _table(actions=("30", "pass", "pass", "pass", "6s"))
    assert _decide(game, st) == "6-6"


def test_feeds_count_to_a_winning_partner():
    # the partner's 6-6 (the top trump) will take the trick; seat 2 has no six
    game, st = _table(actions=("30", "pass", "pass", "pass", "6s", "6-6", "6-1"))
    assert int(st.to_move[0]) == 2
    assert _decide(game, st) == "5-5"


def test_protects_count_when_the_opponents_take_the_trick():
    # trick 1: seat 0's 6-2 draws 6-1 and 6-0 (seat 2 throws 0-0); trick 2: 6-6 leads
    game, st = _table(actions=("30", "pass", "pass", "pass", "6s", "6-2", "6-1", "0-0", "6-0",
                               "6-6", "6-3", "4-3"))
    # trick 2: seat 0 led 6-6 and seat 1 followed 6-3, seat 2 threw 4-3; seat 3 has no six
    assert int(st.to_move[0]) == 3
    assert _decide(game, st) in ("4-0", "3-0", "5-2", "5-1")  # never 4-1, 3-2 (count)


# seat 1 is void in fives and fours and holds two small trumps (sixes)
RUFF_DEAL = (
    ("6-6", "6-5", "5-5", "4-4", "5-3", "3-3", "2-2"),
    ("6-1", "6-0", "3-1", "2-1", "1-1", "1-0", "0-0"),
    ("6-4", "5-4", "5-2", "4-3", "4-2", "3-2", "2-0"),
    ("6-3", "6-2", "5-1", "5-0", "4-1", "4-0", "3-0"),
)


def test_trumps_in_with_its_lowest_trump_when_void_and_the_trick_has_count():
    game, st = _table(RUFF_DEAL, actions=("30", "pass", "pass", "pass", "6s", "5-5"))
    assert _decide(game, st) == "6-0"


def test_keeps_its_trumps_when_void_and_the_trick_has_no_count():
    game, st = _table(RUFF_DEAL, actions=("30", "pass", "pass", "pass", "6s", "4-4"))
    assert _decide(game, st) in ("3-1", "2-1", "1-1", "1-0", "0-0")


# nello: seat 0 holds the low hand; its partner (seat 2) sits out with the sixes
NELLO_DEAL = (
    ("1-0", "2-0", "3-0", "4-0", "2-1", "3-1", "3-2"),
    ("4-4", "4-3", "1-1", "6-1", "5-1", "0-0", "2-2"),
    ("6-6", "6-5", "6-4", "6-3", "6-2", "6-0", "5-5"),
    ("4-2", "4-1", "5-4", "5-3", "5-2", "5-0", "3-3"),
)


def test_bids_and_declares_nello_with_a_very_low_hand():
    game, st = _table(NELLO_DEAL)
    assert _decide(game, st) == "1m"
    game, st = _table(NELLO_DEAL, actions=("1m", "pass", "pass", "pass"))
    assert _decide(game, st) == "nello"


def test_nello_bidder_leads_its_safest_tile_and_ducks_with_its_highest_loser():
    game, st = _table(NELLO_DEAL, actions=("1m", "pass", "pass", "pass", "nello"))
    # 4-0 has six fours out above it (more than any other lead)
    assert _decide(game, st) == "4-0"
    # seat 1 takes it with 4-4 and leads the top ace; seat 3 follows 4-1
    game, st = _table(NELLO_DEAL, actions=("1m", "pass", "pass", "pass", "nello",
                                           "4-0", "4-4", "4-2", "1-1", "4-1"))
    assert int(st.to_move[0]) == 0
    assert _decide(game, st) == "3-1"  # the highest ace under 1-1
