"""The six-player heuristic (``agents/baselines/heuristic_six.py``, played by ``heuristic`` on
a six-player table): each rule of thumb of its docstring on a hand-built position, legal
actions everywhere, and a duplicate match it wins against random and passive play.

The hand-built deal (dealer 5, so seat 0 bids first; teams 0/2/4 against 1/3/5)::

    seat 0: 6-6 6-6 6-5 6-3 6-2 4-4 2-1 1-0 3-0   both 6-6s: a strong sixes hand
    seat 1: 6-1 6-4 5-4 5-3 3-3 2-2 1-1 4-0 2-0   two sixes, one of them count (6-4)
    seat 2: 5-5 5-0 4-1 3-2 4-3 4-2 3-1 2-0 1-0   no six; 25 in count
    seats 3, 4, 5: the other tiles, in tile order (seat 5: the other seven sixes)
    cat:    5-5 0-0                                the other 5-5 (count) and an off double

Worked from the docstring's rules: seat 0 bids 60:6s (its estimate under sixes, ~71, is its
best); in the exchange it must take 5-5 (count) and puts back 3-0 (the least valuable: a low
off tile of a one-tile suit), then takes 0-0 (an off double beats a low loser) for 2-1; it
leads 6-6 (the boss trump: the twin is its own). Seat 1, following, plays 6-1 under it (the
trick is lost: low, 6-4's count kept); seat 2, void in sixes, feeds 5-5 to its partner's
6-6, which nobody can beat.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.arena.stats import bootstrap
from agents.baselines.heuristic import HeuristicAgent
from agents.baselines.heuristic_six import SixPlayerHeuristic
from agents.driver import choose
from texas42_env import tiles as T
from texas42_env.core import EXCHANGING, HAND_OVER, PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.records import instance_masks
from texas42_env.rules import RulesConfig, preset

SIX = preset("six-player")
SEAT0 = ("6-6", "6-6", "6-5", "6-3", "6-2", "4-4", "2-1", "1-0", "3-0")
SEAT1 = ("6-1", "6-4", "5-4", "5-3", "3-3", "2-2", "1-1", "4-0", "2-0")
SEAT2 = ("5-5", "5-0", "4-1", "3-2", "4-3", "4-2", "3-1", "2-0", "1-0")
CAT = ("5-5", "0-0")
WEAK = ("2-0", "3-1", "4-0", "4-2", "5-1", "5-3", "6-0", "4-3", "5-2")  # no double, no boss


def _deal(given: dict[int, tuple[str, ...]], cat=CAT) -> list[list[int]]:
    """Six hands of tile ids: the ``given`` seats as written, the others filled with the
    remaining tiles in tile order (after the cat is set aside)."""
    left = [t for t in range(T.N_TILES) for _ in range(2)]
    for names in list(given.values()) + [cat]:
        for x in names:
            left.remove(T.parse_tile(x))
    hands = []
    for seat in range(6):
        if seat in given:
            hands.append([T.parse_tile(x) for x in given[seat]])
        else:
            hands.append(left[:9])
            left = left[9:]
    assert not left
    return hands


def _table(given=None, dealer=5, actions=(), cat=CAT):
    """A one-table six-player game dealt ``given`` (default the module's deal), after the
    named ``actions``."""
    game = Game(SIX)
    st = game.reset(1, seed=0)
    given = given or {0: SEAT0, 1: SEAT1, 2: SEAT2}
    hands, cat_mask = instance_masks(_deal(given, cat), [T.parse_tile(x) for x in cat])
    game.set_hands(st, [0], hands[None, :], dealer, np.array([cat_mask], np.uint64))
    for name in actions:
        game.step(st, np.array([game.actions.id(name)]))
    return game, st


def _decide(game, st) -> str:
    """The heuristic's action, by name, for the seat to move at the one table."""
    agent = make_agent("heuristic").setup(game)
    obs = make_encoder(game).encode(st, st.to_move)
    a = agent.act_one(obs[0], st.legal[0])
    assert st.legal[0, a], f"illegal {game.actions.name(a)}"
    assert agent.fallbacks == 0
    return game.actions.name(a)


BID_WON = ["60:6s", "pass", "pass", "pass", "pass", "pass", "6s"]
EXCHANGED = BID_WON + ["take 5-5", "discard 3-0", "take 0-0", "discard 2-1"]


# ------------------------------------------------------------------ the agent


def test_heuristic_plays_both_rulesets_and_hands_six_player_to_its_own_rules():
    agent = make_agent("heuristic")
    assert isinstance(agent, HeuristicAgent)
    assert set(agent.rulesets) == {"standard", "six-player"}
    agent.setup(Game(SIX))
    assert isinstance(agent._six, SixPlayerHeuristic)
    agent.setup(Game(RulesConfig.make()))  # back to the standard game: its own rules again
    assert agent._six is None
    with pytest.raises(ValueError, match="does not play ruleset 'standard'"):
        SixPlayerHeuristic().setup(Game(RulesConfig.make()))


@pytest.mark.parametrize("rules", [SIX, RulesConfig.make("six-player", play_out=True,
                                                         all_pass="redeal",
                                                         follow_me_doubles="own_suit")],
                         ids=["defaults", "play-out-redeal-own-suit"])
def test_only_legal_actions_in_random_positions(rules):
    """Tables driven by random play (random bids of every level and trump, random
    exchanges); at every step the heuristic is asked for every table's seat to move."""
    game = Game(rules)
    enc = make_encoder(game)
    agent = make_agent("heuristic").setup(game)
    driver = make_agent("random", seed=5).setup(game)
    st = game.reset(128, seed=11)
    phases, contracts = set(), set()
    for _ in range(2):
        while (st.phase < HAND_OVER).any():
            idx = np.flatnonzero(st.phase < HAND_OVER)
            mine = agent.act(enc.encode(st, st.to_move[idx], idx=idx), st.legal[idx])
            assert st.legal[idx, mine].all(), "an illegal heuristic action"
            phases.update(st.phase[idx].tolist())
            contracts.update(st.contract[idx[st.phase[idx] == PLAYING]].tolist())
            actions = np.full(st.batch_size, -1, np.int64)
            actions[idx] = driver.act(None, st.legal[idx])
            game.step(st, actions)
        game.next_hand(st, np.flatnonzero(st.phase == HAND_OVER))
    assert EXCHANGING in phases and PLAYING in phases
    assert contracts == set(range(9))  # every trump, doubles and follow-me played through
    assert agent.fallbacks == 0  # no rule ever proposed an illegal action


# ------------------------------------------------------------------ bidding


def test_bids_the_suit_it_holds_at_the_least_level():
    game, st = _table()
    assert _decide(game, st) == "60:6s"


def test_bids_over_the_high_bid_when_the_hand_is_worth_it_and_passes_when_not():
    # dealer 0: seat 1 bids 66:0s, then seat 2 holds the strong hand (~71 under sixes)
    hands = {1: SEAT1, 2: SEAT0, 3: SEAT2}
    game, st = _table(hands, dealer=0, actions=["66:0s"])
    assert _decide(game, st) == "68:6s"
    game, st = _table(hands, dealer=0, actions=["76:0s"])  # 78 is over ~71: pass
    assert _decide(game, st) == "pass"


def test_passes_a_weak_hand():
    game, st = _table({0: WEAK})
    assert _decide(game, st) == "pass"


def test_a_forced_dealer_bids_60_in_its_best_suit():
    # seat 5 (the dealer) holds the weak hand; its best trump is blanks (2-0, 4-0, 6-0)
    game, st = _table({5: WEAK}, actions=["pass"] * 5)
    assert not st.legal[0, 0]  # pass is not allowed
    assert _decide(game, st) == "60:0s"


def test_does_not_overcall_a_partner():
    # dealer 1: seat 2 bids 60:3s, seat 3 passes; seat 4, its partner, holds the strong hand
    game, st = _table({4: SEAT0, 2: SEAT2, 1: SEAT1}, dealer=1, actions=["60:3s", "pass"])
    assert int(st.to_move[0]) == 4
    assert _decide(game, st) == "pass"
    # the same hand over an opponent's 60:3s (dealer 2: seat 3 bids first) bids
    game, st = _table({4: SEAT0, 3: SEAT2, 1: SEAT1}, dealer=2, actions=["60:3s"])
    assert int(st.to_move[0]) == 4
    assert _decide(game, st) == "62:6s"


# ------------------------------------------------------------------ the exchange


def test_takes_the_cats_count_and_discards_a_low_off_suit_tile():
    game, st = _table(actions=BID_WON)
    assert _decide(game, st) == "take 5-5"
    game, st = _table(actions=BID_WON + ["take 5-5"])
    assert _decide(game, st) == "discard 3-0"  # never a trump, the off double or count


def test_takes_an_off_double_for_a_low_loser_then_keeps_when_nothing_is_better():
    game, st = _table(actions=BID_WON + ["take 5-5", "discard 3-0"])
    assert _decide(game, st) == "take 0-0"
    game, st = _table(actions=BID_WON + ["take 5-5", "discard 3-0", "take 0-0"])
    assert _decide(game, st) == "discard 2-1"
    # a cat of two low off tiles: nothing in it beats the hand's worst tile, so keep
    game, st = _table(cat=("2-0", "1-0"), given={0: SEAT0, 1: SEAT1,
                                                 2: ("5-5", "5-0", "4-1", "3-2", "4-3",
                                                     "4-2", "3-1", "5-5", "0-0")},
                      actions=BID_WON)
    assert _decide(game, st) == "keep"


# ------------------------------------------------------------------ play


def test_pulls_trumps_with_the_boss_trump():
    game, st = _table(actions=EXCHANGED)
    assert int(st.phase[0]) == PLAYING and int(st.to_move[0]) == 0
    assert _decide(game, st) == "6-6"


def test_plays_low_on_a_lost_trick_keeping_its_count():
    game, st = _table(actions=EXCHANGED + ["6-6"])
    assert int(st.to_move[0]) == 1  # holds 6-1 and 6-4 (10 count): 6-6 cannot be beaten
    assert _decide(game, st) == "6-1"


def test_feeds_count_to_a_partner_who_is_winning():
    game, st = _table(actions=EXCHANGED + ["6-6", "6-1"])
    assert int(st.to_move[0]) == 2  # void in sixes: free to play its 5-5
    assert _decide(game, st) == "5-5"


def test_the_first_of_two_copies_wins_so_a_partners_twin_is_not_fed():
    """Seat 1 leads a 5-5 and seat 2 (partner of seat 4) plays the other: seat 1's, played
    first, takes the trick, so seat 4 follows with 5-1, not its 5-0 count."""
    hands = {1: ("6-6", "6-5", "6-4", "6-3", "5-5", "6-2", "4-4", "3-3", "2-2"),
             2: ("5-5", "1-0", "2-0", "2-1", "3-0", "3-1", "4-0", "0-0", "1-1"),
             3: ("5-4", "5-3", "4-3", "4-2", "3-2", "2-2", "1-1", "0-0", "4-1"),
             4: ("5-0", "5-1", "4-4", "3-3", "2-0", "1-0", "3-0", "3-1", "4-0")}
    game, st = _table(hands, dealer=0, cat=("2-1", "4-2"),
                      actions=["60:6s"] + ["pass"] * 5 + ["6s", "keep", "5-5", "5-5", "5-3"])
    assert int(st.to_move[0]) == 4
    assert _decide(game, st) == "5-1"
    # seat 1 leads 5-4 instead, seat 2's 5-5 comes first and seat 3's twin second: the
    # partner's stands, and seat 4 feeds it 5-0
    hands[1] = ("6-6", "6-5", "6-4", "6-3", "5-4", "6-2", "4-4", "3-3", "2-2")
    hands[3] = ("5-5", "5-3", "4-3", "4-2", "3-2", "2-2", "1-1", "0-0", "4-1")
    game, st = _table(hands, dealer=0, cat=("2-1", "4-2"),
                      actions=["60:6s"] + ["pass"] * 5 + ["6s", "keep", "5-4", "5-5", "5-5"])
    assert int(st.to_move[0]) == 4
    assert _decide(game, st) == "5-0"


# ------------------------------------------------------------------ strength


def duplicate(side_a: str, side_b: str, deals: int, seed: int) -> np.ndarray:
    """Side A's marks minus side B's per hand for each deal pair: the deals played twice,
    A at seats 0/2/4 and then at 1/3/5 (a small stand-in for the arena's duplicate)."""
    game = Game(SIX)
    enc = make_encoder(game)
    agents = [make_agent(side_a, seed=1).setup(game), make_agent(side_b, seed=2).setup(game)]
    ids = np.arange(deals)
    st = game.reset(2 * deals, seed=seed, game_ids=np.concatenate([ids, ids]))
    team_a = np.repeat([0, 1], deals)
    while (st.phase < HAND_OVER).any():
        active = st.phase < HAND_OVER
        seats = np.where(active, st.to_move, 0)
        who = np.where(active, ((seats & 1) != team_a).astype(np.int64), -1)
        game.step(st, choose(game, st, agents, who, enc, seats))
    rows = np.arange(2 * deals)
    diff = st.hand_marks[rows, team_a] - st.hand_marks[rows, team_a ^ 1]
    return (diff[:deals] + diff[deals:]) / 2


def test_beats_random_in_a_duplicate_match():
    d = duplicate("heuristic", "random", deals=300, seed=3)
    est, lo, hi = bootstrap(lambda s: d[s].mean(-1), len(d), 500, 0)
    assert lo > 0.8, (est, lo, hi)  # about +3 marks a hand over 2,000 deal pairs


def test_beats_passive_in_a_duplicate_match():
    d = duplicate("heuristic", "passive", deals=300, seed=3)
    est, lo, hi = bootstrap(lambda s: d[s].mean(-1), len(d), 500, 0)
    assert lo > 0.5, (est, lo, hi)  # about +0.8 marks a hand over 2,000 deal pairs


def test_the_sides_of_the_duplicate_helper_are_swapped_between_the_seat_sets():
    """The helper is fair: a side against itself scores exactly zero on every pair."""
    assert not duplicate("heuristic", "heuristic", deals=50, seed=3).any()
