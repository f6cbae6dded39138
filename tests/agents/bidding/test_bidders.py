"""Bidding from hand values (agents/bidding/), the hand-value dataset
(agents/bidding/dataset.py), the learned bidder (agents/bidding/bidnet.py), their scripts and the arena's
games-mode summary."""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.arena.duplicate import PairStats, play_duplicate, summarize
from agents.bidding.values import CONTRACTS, NEEDS, HandValuer, deal_around, longest_suits, make_curves
from agents.bidding.rule import BidRule, bid_need
from agents.bidding.rule import bid_marks, win_table
from agents.driver import play_out
from agents.bidding.dataset import DataConfig, DatasetError, generate, load_dataset, make_chunk
from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS, PLUNGE, POINTS0, SPLASH
from texas42_env.core import BIDDING, DECLARING, HAND_OVER, PLAYING, Game
from texas42_env.rules import DOUBLES, FOLLOW_ME, RulesConfig

from helpers import ROOT, fixed_bidder

RULES = RulesConfig.make()
ALL = np.uint64((1 << T.N_TILES) - 1)
SIXES = np.uint64(T.mask_of(T.suit_tiles(6)))  # 6-6, 6-5, ..., 6-0: every trump of 6s
DOUBLES_HAND = np.uint64(T.DOUBLES_MASK)  # all seven doubles


def popcount(x) -> int:
    return bin(int(x)).count("1")


def dealt_hands(n_deals: int, seed: int = 0) -> np.ndarray:
    """uint64 [4 * n_deals]: real 7-tile hands."""
    return Game().reset(n_deals, seed=seed).dealt.reshape(-1)


# ---------------------------------------------------------------------- deal_around
def test_every_world_deals_all_28_tiles_in_four_hands_of_seven_around_the_hand():
    hands = dealt_hands(2)[[0, 5, 6]]
    for seat in range(4):
        worlds = deal_around(hands, seat, 50, np.random.default_rng(seat))
        assert worlds.shape == (3, 50, 4) and worlds.dtype == np.uint64
        assert (worlds[:, :, seat] == hands[:, None]).all()
        for w in worlds.reshape(-1, 4):
            assert [popcount(h) for h in w] == [7, 7, 7, 7]
            assert int(np.bitwise_or.reduce(w)) == int(ALL)
            assert sum(popcount(h) for h in w) == 28  # so the hands are disjoint


def test_deal_around_is_deterministic_in_the_rng_and_varies_with_it():
    hands = dealt_hands(1)
    a = deal_around(hands, 1, 20, np.random.default_rng(5))
    b = deal_around(hands, 1, 20, np.random.default_rng(5))
    c = deal_around(hands, 1, 20, np.random.default_rng(6))
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    # the worlds differ from one another too
    assert len({tuple(w) for w in a[0].tolist()}) > 15


def test_deal_around_is_roughly_uniform_over_the_other_seats():
    n = 3000
    worlds = deal_around(np.array([SIXES]), 0, n, np.random.default_rng(1))[0]  # [n, 4]
    for tile in (T.parse_tile("5-5"), T.parse_tile("0-0"), T.parse_tile("3-2")):
        held = (worlds >> np.uint64(tile)) & np.uint64(1)
        share = held.sum(axis=0) / n
        assert share[0] == 0  # the seat's own hand never changes
        assert np.all(np.abs(share[1:] - 1 / 3) < 0.05), share
    # two given tiles land together (same seat) about 6/20 of the time
    a, b = np.uint64(T.parse_tile("5-5")), np.uint64(T.parse_tile("4-4"))
    together = (((worlds >> a) & (worlds >> b) & np.uint64(1)).sum(axis=1) > 0).mean()
    assert abs(together - 6 / 20) < 0.05


# ---------------------------------------------------------------------- HandValuer
def test_played_out_values_have_the_right_shape_and_range():
    hands = dealt_hands(2)
    valuer = HandValuer(worlds=3)
    v = valuer.values(hands, np.random.default_rng(0))
    assert v.shape == (8, len(CONTRACTS), 3) and v.dtype == np.uint8
    assert v.max() <= 42
    assert len(np.unique(v)) > 5  # the values vary with the hand, contract and world
    # own contracts per hand: [n, k]
    which = longest_suits(hands, 2)
    v2 = valuer.values(hands, np.random.default_rng(0), contracts=which)
    assert v2.shape == (8, 4, 3)


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_all_seven_trumps_take_all_42_points_from_any_seat(seat):
    """The declarer holding every trump leads, and whatever it leads is a trump no one else
    holds: it takes every trick in every world (the same for all seven doubles under
    doubles). All six 6s under follow-me too: no one else can follow a 6 led."""
    valuer = HandValuer(worlds=4, contracts=(6, DOUBLES, FOLLOW_ME))
    v = valuer.values(np.array([SIXES, DOUBLES_HAND]), np.random.default_rng(seat), seat=seat)
    assert (v[0, 0] == 42).all()  # all 6s, 6s trumps
    assert (v[1, 1] == 42).all()  # all doubles, doubles trumps
    assert (v[0, 2] == 42).all()  # all 6s, follow-me


def test_a_hand_without_a_single_trump_does_not_take_all_42_under_that_contract():
    # the seven tiles of suit 6 held elsewhere: a 0s contract with no 0s at all, no doubles
    hand = np.uint64(T.mask_of(T.parse_tile(x) for x in
                               ["5-4", "5-3", "5-2", "5-1", "4-3", "4-2", "4-1"]))
    v = HandValuer(worlds=6, contracts=(0,)).values(np.array([hand]), np.random.default_rng(0))
    assert (v < 42).all()


@pytest.mark.parametrize("seat", [0, 1])
def test_played_out_values_are_the_declaring_teams_points_of_a_whole_hand(seat):
    """Rebuild the tables the valuer plays (same rng), play them out and check the state:
    every tile played, both teams' points sum to 42, the valuer reports the declaring
    team's share."""
    from agents.baselines.heuristic import HeuristicAgent

    hands = dealt_hands(1, seed=4)
    contract = 3
    valuer = HandValuer(worlds=5, contracts=(contract,))
    v = valuer.values(hands, np.random.default_rng(11), seat=seat)  # [4, 1, 5]

    game = Game(RulesConfig.make(play_out=True))
    dealt = deal_around(hands, seat, 5, np.random.default_rng(11)).reshape(-1, 4)
    st = game.reset(len(dealt))
    st.dealt[:] = dealt
    game.open_play(st, seat, contract)
    assert (st.phase == PLAYING).all() and (st.to_move == seat).all()
    play_out(game, st, HeuristicAgent().setup(game))
    assert (st.phase >= HAND_OVER).all()
    assert (st.hands == 0).all()
    assert (st.points.sum(axis=1) == 42).all()
    assert np.array_equal(st.points[:, seat % 2].reshape(4, 5), v[:, 0, :])


def bid_and_declare(game: Game, dealt: np.ndarray, seat: int, contract: int):
    """A table where ``seat`` bid 30 over three passes and declared ``contract``: the
    position ``Game.open_play`` builds, reached by the rules."""
    st = game.reset(1)
    game.set_hands(st, [0], dealt[None], dealer=(seat - 1) % 4)  # seat bids first
    assert int(st.to_move[0]) == seat
    for a in (POINTS0, PASS, PASS, PASS):
        game.step(st, np.array([a]))
    assert int(st.phase[0]) == DECLARING
    game.step(st, np.array([game.actions.contract0 + contract]))
    assert int(st.phase[0]) == PLAYING and int(st.to_move[0]) == seat
    return st


def test_solved_values_match_the_solver_on_positions_reached_by_bidding():
    from agents.search.solver import solve_value

    hands = dealt_hands(1, seed=2)[[1, 2]]
    seat, contracts, W = 1, (2, FOLLOW_ME), 2
    valuer = HandValuer(evaluate="solve", worlds=W, contracts=contracts)
    v = valuer.values(hands, np.random.default_rng(3), seat=seat)
    assert v.shape == (2, 2, W) and v.max() <= 42
    dealt = deal_around(hands, seat, W, np.random.default_rng(3))
    game = Game(replace(RULES, play_out=True))
    for i in range(2):
        for k, c in enumerate(contracts):
            for w in range(W):
                st = bid_and_declare(game, dealt[i, w], seat, c)
                assert solve_value(game, st, 0) == v[i, k, w], (i, c, w)


def test_a_laydown_solves_to_42():
    v = HandValuer(evaluate="solve", worlds=2, contracts=(6, DOUBLES)).values(
        np.array([SIXES, DOUBLES_HAND]), np.random.default_rng(0), seat=2)
    assert (v[0, 0] == 42).all() and (v[1, 1] == 42).all()


def test_hand_valuer_refuses_bad_options():
    with pytest.raises(ValueError, match="evaluate"):
        HandValuer(evaluate="x")
    for w in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="worlds"):
            HandValuer(worlds=w)
    with pytest.raises(ValueError, match="contracts"):
        HandValuer(contracts=(9,))  # nello
    with pytest.raises(ValueError, match="contracts"):
        HandValuer(contracts=())
    with pytest.raises(ValueError, match="standard"):
        HandValuer(rules=RulesConfig.make("six-player"))


def test_longest_suits_ranks_suits_by_length_ties_to_the_lower():
    # all 6s: suit 6 holds 7, every other suit one (its 6-x)
    assert longest_suits(np.array([SIXES]), 3).tolist() == [[6, 0, 1, DOUBLES, FOLLOW_ME]]
    hand = np.uint64(T.mask_of(T.parse_tile(x) for x in
                               ["4-4", "4-2", "4-1", "3-2", "2-2", "1-0", "5-3"]))
    # counts: 0:1, 1:2, 2:3, 3:2, 4:3, 5:1, 6:0
    assert longest_suits(np.array([hand]), 4).tolist() == [[2, 4, 1, 3, DOUBLES, FOLLOW_ME]]


# ---------------------------------------------------------------------- curves, win table
def test_make_curves_by_hand():
    pts = np.array([[30, 29, 42, 35], [0, 0, 41, 41]])  # [contracts, worlds]
    c = make_curves(pts)
    assert c.shape == (2, 13)
    expect0 = [0.75] + [0.5] * 5 + [0.25] * 7  # needs 30 | 31..35 | 36..42
    expect1 = [0.5] * 12 + [0.0]  # 41 makes every points bid, never all 42
    assert np.allclose(c[0], expect0) and np.allclose(c[1], expect1)


def test_make_curves_is_a_share_that_falls_with_the_need():
    pts = np.random.default_rng(0).integers(0, 43, size=(5, 9, 16))
    c = make_curves(pts)
    assert c.shape == (5, 9, 13)
    assert ((c >= 0) & (c <= 1)).all()
    assert (np.diff(c, axis=-1) <= 0).all()
    assert np.allclose(c[..., 0], (pts >= 30).mean(-1))
    assert np.allclose(c[..., -1], (pts == 42).mean(-1))
    assert np.allclose(c * 16, np.round(c * 16))  # shares of 16 worlds


def exact_win(a: int, b: int, target: int) -> float:
    """The chance of ``target - a`` heads before ``target - b`` tails with a fair coin."""
    if a >= target:
        return 1.0
    if b >= target:
        return 0.0
    na, nb = target - a, target - b
    return sum(math.comb(na - 1 + k, k) * 0.5 ** (na + k) for k in range(nb))


def test_win_table_boundaries_symmetry_and_values():
    target = 7
    w = win_table(target)
    assert w.shape[0] == w.shape[1] >= 2 * target
    assert w[0, 0] == 0.5 and w[6, 6] == 0.5
    assert w[6, 5] == 0.75 and w[5, 6] == 0.25
    assert w[6, 0] == pytest.approx(1 - 0.5 ** 7) and w[0, 6] == pytest.approx(0.5 ** 7)
    for a in range(target):
        assert (w[a, target:] == 0).all()  # lost: the others reached the target
        assert (w[target:, a] == 1).all()  # won
    for a in range(target):
        for b in range(target):
            assert w[a, b] + w[b, a] == pytest.approx(1.0)
            assert w[a, b] == pytest.approx(exact_win(a, b, target))
    core = w[:target + 1, :target + 1]
    assert (np.diff(core, axis=0) >= 0).all()  # more marks for us: no worse
    assert (np.diff(core, axis=1) <= 0).all()  # more for them: no better
    assert win_table(3)[1, 2] == pytest.approx(exact_win(1, 2, 3))
    with pytest.raises(ValueError):
        w[0, 0] = 1.0  # the cached table is read-only


def test_bid_marks_and_needs():
    assert [bid_need(a) for a in (POINTS0, POINTS0 + 1, MARKS0 - 1)] == [30, 31, 41]
    assert bid_need(MARKS0) == 42 and bid_need(MARKS0 + 3) == 42
    assert [bid_marks(a) for a in (POINTS0, MARKS0 - 1, MARKS0, MARKS0 + 1, MARKS0 + 4)] == \
        [1, 1, 1, 2, 5]


# ---------------------------------------------------------------------- the bid rule
def curves_of(p_points: float, p_all: float) -> np.ndarray:
    """[contracts, 13]: one contract with chance ``p_points`` for needs 30..41 and ``p_all``
    for 42; every other contract never makes."""
    c = np.zeros((len(CONTRACTS), 13))
    c[4, :12] = p_points
    c[4, 12] = p_all
    return c


def auction(*bids):
    """(game, state) of table 0 after ``bids`` (actions), and the seat to move."""
    game = Game()
    st = game.reset(1, seed=0)
    for a in bids:
        assert st.legal[0, a]
        game.step(st, np.array([a]))
    assert int(st.phase[0]) == BIDDING
    return game, st, int(st.to_move[0])


def choose(rule, curves, game, st, s):
    return rule.choose(curves, st.legal[0], st, 0, s, game)


def test_certain_hands_bid_and_hopeless_ones_pass_with_no_bid_yet():
    game, st, s = auction()
    rule = BidRule()
    a, p = choose(rule, curves_of(1.0, 1.0), game, st, s)
    assert a == MARKS0 + 1 and p == 1.0  # 2m: the most a first mark bid may be
    a, p = choose(rule, curves_of(1.0, 0.0), game, st, s)
    assert a == POINTS0 and p == 1.0  # the least points bid; no marks without 42
    a, p = choose(rule, curves_of(0.0, 0.0), game, st, s)
    assert a == PASS and math.isnan(p)
    a, p = choose(BidRule(game_weight=0), curves_of(0.8, 0.1), game, st, s)
    assert a == POINTS0 and p == pytest.approx(0.8)


def test_the_bid_needed_is_the_points_it_must_take():
    # sure of 34, never of 35: with no bid yet 30 is the best points bid; over a 34 bid the
    # next (35) fails, so pass
    c = np.zeros((len(CONTRACTS), 13))
    c[2, :5] = 1.0  # needs 30..34
    game, st, s = auction()
    assert choose(BidRule(), c, game, st, s)[0] == POINTS0
    game, st, s = auction(POINTS0 + 4)  # an opponent bid 34
    assert choose(BidRule(), c, game, st, s)[0] == PASS
    # the best contract counts per need: 35 makes under another contract
    c[5, 5] = 1.0
    a, p = choose(BidRule(), c, game, st, s)
    assert a == POINTS0 + 5 and p == 1.0


def test_over_the_partner_and_over_an_opponent():
    # first bidder bids 30, the next (an opponent of the bidder) passes: the partner moves
    game, st, s = auction(POINTS0, PASS)
    assert (int(st.high_bidder[0]) & 1) == (s & 1)
    rule = BidRule()
    assert choose(rule, curves_of(0.0, 0.0), game, st, s)[0] == PASS
    assert choose(rule, curves_of(1.0, 0.0), game, st, s)[0] == POINTS0 + 1  # 31
    assert choose(rule, curves_of(1.0, 1.0), game, st, s)[0] == MARKS0 + 1
    # pass is worth q_partner: a 0.6 hand does better passing to a 0.65 partner ...
    assert choose(BidRule(q_partner=0.65, q_opp=0.6, game_weight=0), curves_of(0.6, 0.0), game, st, s)[0] == PASS
    # ... and bids over an opponent making 60% (pass worth 0.4 for us)
    game, st, s = auction(POINTS0)
    assert (int(st.high_bidder[0]) & 1) != (s & 1)
    assert choose(BidRule(q_partner=0.65, q_opp=0.6, game_weight=0), curves_of(0.6, 0.0), game, st, s)[0] == POINTS0 + 1
    assert choose(BidRule(q_partner=0.65, q_opp=0.6, game_weight=0), curves_of(0.35, 0.0), game, st, s)[0] == PASS
    # over 2m only 3m (and pass) is legal
    game, st, s = auction(MARKS0 + 1)
    assert choose(rule, curves_of(1.0, 1.0), game, st, s)[0] == MARKS0 + 2
    assert choose(rule, curves_of(1.0, 0.2), game, st, s)[0] == PASS


def test_the_dealer_forced_to_bid_bids_the_least():
    game, st, s = auction(PASS, PASS, PASS)
    assert not st.legal[0, PASS] and s == int(st.dealer[0])
    for rule in (BidRule(), BidRule(game_weight=0)):
        a, p = choose(rule, curves_of(0.0, 0.0), game, st, s)
        assert a == POINTS0 and p == 0.0
    assert choose(BidRule(), curves_of(1.0, 1.0), game, st, s)[0] == MARKS0 + 1


def test_only_special_bids_left_takes_the_least_of_them():
    mask = np.zeros(64, bool)
    mask[[PLUNGE, SPLASH]] = True
    game, st, s = auction()
    a, p = BidRule().choose(curves_of(1.0, 1.0), mask, st, 0, s, game)
    assert a == PLUNGE and math.isnan(p)


def test_score_awareness_changes_the_bid_when_the_opponents_need_one_mark():
    """Us 0, them 6 marks (to 7). Needs 30..41 make 90%, all 42 60%. By marks difference 30
    is worth 2 * 0.9 - 1 = 0.8, 2m 2 * (2 * 0.6 - 1) = 0.4: bid 30. By the chance of winning
    the game: losing any hand loses the game, so 30 is worth 0.9 W[1, 6] and 2m 0.6 W[2, 6],
    twice as much per make: bid 2m."""
    game, st, s = auction()
    team = s & 1
    st.score[0, team], st.score[0, team ^ 1] = 0, 6
    c = curves_of(0.9, 0.6)
    w = win_table(7)
    v30, v2m = 0.9 * w[1, 6], 0.6 * w[2, 6]
    assert v2m > v30 > 0.4 * w[1, 6]  # 2m over 30 over passing (q_open 0.4)
    assert choose(BidRule(game_weight=1e6), c, game, st, s) == (MARKS0 + 1, pytest.approx(0.6))
    assert choose(BidRule(game_weight=0), c, game, st, s) == (POINTS0, pytest.approx(0.9))
    # the same hand at 0-0: 30 by the winning chance too
    st.score[0] = 0
    v30 = 0.9 * w[1, 0] + 0.1 * w[0, 1]
    v2m = 0.6 * w[2, 0] + 0.4 * w[0, 2]
    assert v30 > v2m
    assert choose(BidRule(game_weight=1e6), c, game, st, s)[0] == POINTS0


def test_score_awareness_takes_the_safe_mark_when_one_mark_wins():
    """Us 6, them 0: one mark wins the game. Needs 30..41 and all 42 both make 90%. By marks
    difference 2m (2 * 0.8 = 1.6) beats 30 (0.8); by the chance of winning 30 is worth
    0.9 + 0.1 W[6, 1] and 2m 0.9 + 0.1 W[6, 2]: the lost 30 costs less, bid 30."""
    game, st, s = auction()
    team = s & 1
    st.score[0, team], st.score[0, team ^ 1] = 6, 0
    w = win_table(7)
    assert 0.9 + 0.1 * w[6, 1] > 0.9 + 0.1 * w[6, 2] > 0.4 + 0.6 * w[6, 1]
    c = curves_of(0.9, 0.9)
    assert choose(BidRule(game_weight=1e6), c, game, st, s)[0] == POINTS0
    assert choose(BidRule(game_weight=0), c, game, st, s)[0] == MARKS0 + 1
    # points scoring has no game score to weigh: the marks difference, whatever game_weight
    pgame = Game(RulesConfig.make(scoring="points"))
    pst = pgame.reset(1, seed=0)
    ps = int(pst.to_move[0])
    pst.score[0, ps & 1], pst.score[0, (ps & 1) ^ 1] = 6, 0
    assert BidRule(game_weight=1e6).choose(c, pst.legal[0], pst, 0, ps, pgame)[0] == MARKS0 + 1


@pytest.mark.parametrize("field", ["q_open", "q_partner", "q_opp"])
@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), "0.5", None])
def test_bad_pass_chances_are_refused(field, value):
    with pytest.raises(ValueError, match=field):
        BidRule(**{field: value})


def test_bad_pass_chances_are_refused_by_the_agents():
    with pytest.raises(ValueError, match="q_opp"):
        make_agent("simbid", q_opp=2.0)


# ---------------------------------------------------------------------- value bidders


def act_at(agent, game, st, table=0):
    from agents.base import Context
    from texas42_env.observation import make_encoder

    seats = st.to_move[[table]]
    obs = make_encoder(game).encode(st, seats, idx=np.array([table]))
    return int(agent.act(obs, st.legal[[table]], Context(game, st, np.array([table]), seats))[0])


def no_specials_deal(game):
    """Seed of a deal where no seat may plunge or splash (fewer than three doubles each)."""
    for seed in range(50):
        st = game.reset(1, seed=seed)
        if all(popcount(int(h) & T.DOUBLES_MASK) < 3 for h in st.dealt[0]):
            return seed
    raise AssertionError("no such deal")


def test_a_value_bidder_bids_logs_its_prediction_and_declares_the_best_contract():
    game = Game()
    seed = no_specials_deal(game)
    c = np.zeros((len(CONTRACTS), 13))
    c[3, :12], c[3, 12] = 0.7, 0.1  # 3s: 70% for 30..41, 10% for all 42
    c[5, :12] = 0.7  # 5s: as likely to take 30 and never all 42: 3s is the better contract
    agent = fixed_bidder(c, game_weight=0).setup(game)
    st = game.reset(1, seed=seed)
    s = int(st.to_move[0])
    a = act_at(agent, game, st)
    # by marks difference: 30 is worth 2 * 0.7 - 1 = 0.4, 2m 2 * (2 * 0.1 - 1) < 0, pass
    # 2 * 0.4 - 1 < 0
    assert a == POINTS0
    assert agent.predictions == {(int(st.game_id[0]), 0, s): (POINTS0, pytest.approx(0.7))}
    game.step(st, np.array([a]))
    for _ in range(3):
        game.step(st, np.array([PASS]))
    assert int(st.phase[0]) == DECLARING and int(st.to_move[0]) == s
    assert act_at(agent, game, st) == game.actions.contract0 + 3
    # a pass is not logged
    agent2 = fixed_bidder(np.zeros((len(CONTRACTS), 13))).setup(game)
    st = game.reset(1, seed=seed)
    assert act_at(agent2, game, st) == PASS and agent2.predictions == {}


def test_a_value_bidder_needs_the_context():
    for agent in (make_agent("simbid", worlds=2), fixed_bidder(curves_of(1, 1))):
        agent.setup(Game())
        with pytest.raises(ValueError, match="context"):
            agent.act(np.zeros((1, 10), np.float32), np.ones((1, 64), bool))


@pytest.mark.parametrize("opts, word", [({"evaluate": "x"}, "evaluate"), ({"suits": 0}, "suits"),
                                        ({"suits": 8}, "suits"), ({"suits": 2.0}, "suits")])
def test_simbid_refuses_bad_options(opts, word):
    with pytest.raises(ValueError, match=word):
        make_agent("simbid", **opts)


def test_simbid_refuses_zero_worlds_when_set_up():
    with pytest.raises(ValueError, match="worlds"):
        make_agent("simbid", worlds=0).setup(Game())


def check_predictions(agent, recs, name):
    """Every logged prediction is a bid the agent's seat made in the records, with a chance
    in [0, 1]; every points bid the agent made was logged."""
    game = Game()
    made = {}
    for r in recs:
        first = (r["dealer"] + 1) % 4
        for i, bid in enumerate(r["bids"]):
            seat = (first + i) % 4
            if r["agents"][seat] == name and bid != "pass":
                made[(r["game"], r["hand"], seat)] = bid
    assert made and agent.predictions
    for key, (a, p) in agent.predictions.items():
        assert made[key] == game.actions.names[a]
        assert 0.0 <= p <= 1.0
    for key, bid in made.items():
        if bid.isdigit():  # a points bid comes from the rule, so it is logged
            assert key in agent.predictions
    return made


@pytest.mark.parametrize("mode, deals", [("hands", 4), ("games", 1)])
def test_simbid_plays_whole_duplicate_matches_legally(mode, deals):
    agent = make_agent("simbid", worlds=4, suits=2, seed=1)
    recs = []
    stats = play_duplicate(RULES, agent, "heuristic", deals=deals, mode=mode, seed=3,
                           on_records=recs.extend)  # an illegal action raises ValueError
    assert len(recs) == stats.hands.sum()
    if mode == "hands":
        assert stats.hands.tolist() == [2] * deals
    else:
        # both games ran to their end: the winner of each reached the 7 marks
        wins = int(stats.a_wins[0])
        assert 0 <= wins <= 2
        assert stats.a_marks[0] >= 7 * wins and stats.b_marks[0] >= 7 * (2 - wins)
    check_predictions(agent, recs, agent.name)
    # with 4 worlds the chances are quarters
    ps = np.array([p for _, p in agent.predictions.values()])
    assert np.allclose(ps * 4, np.round(ps * 4))


def test_simbid_by_solving_plays_legally():
    agent = make_agent("simbid", worlds=2, suits=1, evaluate="solve")
    recs = []
    play_duplicate(RULES, agent, "heuristic", deals=2, seed=5, on_records=recs.extend)
    assert len(recs) == 4
    check_predictions(agent, recs, agent.name)


def test_simbid_estimates_are_shares_for_its_contracts_and_zero_for_the_rest():
    agent = make_agent("simbid", worlds=4, suits=1).setup(Game())
    e = agent.estimates(np.array([SIXES, SIXES, DOUBLES_HAND], np.uint64))
    assert e.shape == (3, len(CONTRACTS), 13)
    assert np.array_equal(e[0], e[1])  # the same hand: the same (cached) estimate
    assert (e[0, 6] == 1).all() and (e[0, FOLLOW_ME] == 1).all()  # laydowns
    assert (e[2, DOUBLES] == 1).all()
    assert (e[0, :6] == 0).all()  # only the longest suit (6s) is valued
    assert (np.diff(e, axis=-1) <= 0).all()


# ---------------------------------------------------------------------- the dataset
TINY = dict(hands=8, chunk=4, worlds=2)


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("hv") / "data"
    res = generate(DataConfig(**TINY), out)
    assert res == {"chunks": 2, "made": 2, "hands": 8}
    return out


def test_a_dataset_loads_with_consistent_shapes_and_chances(dataset):
    d = load_dataset(dataset)
    assert d["hands"].shape == (8,) and d["hands"].dtype == np.uint64
    assert d["points"].shape == (8, len(CONTRACTS), 2)
    assert d["p_make"].shape == (8, len(CONTRACTS), 13)
    assert d["mean_points"].shape == (8, len(CONTRACTS))
    assert d["seat"].tolist() == [0, 1, 2, 3] * 2
    assert d["deal"].tolist() == [0] * 4 + [1] * 4
    # the hands are deals 0 and 1 of seed 0, as everywhere in the toolkit
    assert np.array_equal(d["hands"], Game().reset(2, seed=0).dealt.reshape(-1))
    assert d["points"].max() <= 42
    assert np.array_equal(d["p_make"][..., 0], (d["points"] >= 30).mean(-1))
    assert np.array_equal(d["p_make"][..., 12], (d["points"] == 42).mean(-1))
    assert np.allclose(d["p_make"], make_curves(d["points"]))
    assert np.allclose(d["mean_points"], d["points"].mean(-1))
    assert d["config"]["worlds"] == 2 and d["config"]["contracts"] == list(CONTRACTS)
    assert np.array_equal(d["needs"], NEEDS)
    assert load_dataset(dataset, max_hands=4)["hands"].shape == (4,)


def test_a_chunk_is_what_make_chunk_gives(dataset):
    arrays = make_chunk(DataConfig(**TINY), 1)
    with np.load(dataset / "chunk_00001.npz") as z:
        for name, v in arrays.items():
            assert np.array_equal(z[name], v), name


def files_of(folder):
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir())}


def test_generation_is_deterministic(dataset, tmp_path):
    generate(DataConfig(**TINY), tmp_path / "again")
    assert files_of(tmp_path / "again") == files_of(dataset)


def test_parallel_workers_make_the_same_files(dataset, tmp_path):
    seen = []
    res = generate(DataConfig(**TINY, workers=2), tmp_path / "par",
                   lambda done, total: seen.append((done, total)))
    assert res["made"] == 2 and seen == [(0, 2), (1, 2), (2, 2)]
    assert files_of(tmp_path / "par") == files_of(dataset)  # workers is not a setting


def test_a_missing_chunk_is_remade_and_the_others_kept(dataset, tmp_path):
    import shutil

    out = tmp_path / "d"
    shutil.copytree(dataset, out)
    before = files_of(out)
    keep = (out / "chunk_00000.npz").stat().st_mtime_ns
    (out / "chunk_00001.npz").unlink()
    # a crash mid-write leaves only a temporary file: not a chunk
    (out / ".chunk_00001.tmp.npz").write_bytes(b"torn")
    assert load_dataset(out)["hands"].shape == (4,)  # up to the first missing chunk
    seen = []
    res = generate(DataConfig(**TINY), out, lambda done, total: seen.append((done, total)))
    assert res["made"] == 1 and res["chunks"] == 2
    assert seen == [(1, 2), (2, 2)]  # the chunk already there counts as done
    after = files_of(out)
    after.pop(".chunk_00001.tmp.npz", None)
    assert after == before
    assert (out / "chunk_00000.npz").stat().st_mtime_ns == keep
    # nothing to do the next time
    assert generate(DataConfig(**TINY), out)["made"] == 0
    assert (out / "chunk_00000.npz").stat().st_mtime_ns == keep


def test_more_hands_extend_a_dataset(dataset, tmp_path):
    import shutil

    out = tmp_path / "d"
    shutil.copytree(dataset, out)
    before = files_of(out)
    res = generate(DataConfig(**{**TINY, "hands": 12}), out)
    assert res == {"chunks": 3, "made": 1, "hands": 12}
    after = files_of(out)
    assert {k: after[k] for k in before} == before
    assert load_dataset(out)["deal"].tolist() == [0] * 4 + [1] * 4 + [2] * 4


@pytest.mark.parametrize("change", [{"worlds": 3}, {"seed": 1}, {"evaluate": "solve"},
                                    {"contracts": [6, 7]}])
def test_a_folder_made_with_other_settings_is_refused(dataset, change):
    (name, value), = change.items()
    before = files_of(dataset)
    with pytest.raises(DatasetError, match=name) as e:
        generate(DataConfig(**{**TINY, **change}), dataset)
    assert "use another folder" in str(e.value)
    assert files_of(dataset) == before


def test_a_corrupt_chunk_is_named(dataset, tmp_path):
    import shutil

    out = tmp_path / "d"
    shutil.copytree(dataset, out)
    (out / "chunk_00001.npz").write_bytes(b"\x00garbage\xff" * 10)
    with pytest.raises(DatasetError, match="chunk_00001.npz"):
        load_dataset(out)
    # a chunk of the wrong shape (another dataset's file) is refused too
    np.savez(out / "chunk_00001.npz", hands=np.zeros(4, np.uint64), seat=np.zeros(4, np.int8),
             deal=np.zeros(4), points=np.zeros((4, 9, 5), np.uint8))
    with pytest.raises(DatasetError, match="chunk_00001.npz"):
        load_dataset(out)


def test_a_folder_without_a_dataset_is_refused(tmp_path):
    with pytest.raises(DatasetError, match="config.json"):
        load_dataset(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(DatasetError, match="JSON"):
        load_dataset(tmp_path)
    with pytest.raises(DatasetError, match="JSON"):
        generate(DataConfig(**TINY), tmp_path)
    (tmp_path / "config.json").write_text('{"format": "something else"}')
    with pytest.raises(DatasetError, match="not a hand-value dataset"):
        generate(DataConfig(**TINY), tmp_path)


@pytest.mark.parametrize("opts, word", [
    ({"chunk": 6, "hands": 12}, "multiple of 4"),
    ({"chunk": 8, "hands": 12}, "multiple of chunk"),
    ({"evaluate": "guess"}, "evaluate"),
    ({"worlds": 0}, "worlds"),
    ({"hands": True}, "hands"),
    ({"contracts": [9]}, "contracts"),
    ({"contracts": []}, "contracts"),
    ({"seed": 1.5}, "seed"),
])
def test_bad_dataset_configs_are_refused(opts, word):
    with pytest.raises(DatasetError, match=word):
        DataConfig(**{**TINY, **opts})


def test_unknown_dataset_options_are_named():
    with pytest.raises(DatasetError, match="wrlds"):
        DataConfig.from_dict({"wrlds": 3})
    assert DataConfig.from_dict(dict(TINY)).worlds == 2


# ---------------------------------------------------------------------- the bid net
def test_features_are_affine_in_the_tiles_held():
    from agents.bidding.bidnet import N_FEATURES, features

    rng = np.random.default_rng(0)
    zero = features(np.zeros(1, np.uint64))[0]
    for _ in range(20):
        perm = rng.permutation(28)
        a = np.uint64(T.mask_of(perm[:7]))
        b = np.uint64(T.mask_of(perm[7:14]))
        f = features(np.array([a, b, a | b], np.uint64))
        assert f.shape == (3, len(CONTRACTS), N_FEATURES) and f.dtype == np.float32
        assert np.allclose(f[2] - zero, (f[0] - zero) + (f[1] - zero), atol=1e-6)
    # the contract one-hot and the held tiles
    f = features(np.array([SIXES]))[0]
    assert np.array_equal(f[:, 28:28 + len(CONTRACTS)], np.eye(len(CONTRACTS)))
    assert (f[:, :28].sum(axis=1) == 7).all()
    # all seven trumps held under 6s, none of the 6s is a trump under 0s but 6-0 is
    o = 28 + len(CONTRACTS)
    assert (f[6, o:o + 7] == 1).all()
    assert f[0, o:o + 7].sum() == 1


@pytest.fixture(scope="module")
def bidnet(dataset, tmp_path_factory):
    import torch

    from agents.training.bidnet_training import TrainBidConfig, train_bidnet

    before = torch.get_num_threads()
    path = tmp_path_factory.mktemp("bidnet") / "bidnet.pt"
    seen = []
    result = train_bidnet(TrainBidConfig(data=str(dataset), epochs=3, hidden=16, threads=1,
                                         batch=16), path, lambda e, f: seen.append(e))
    torch.set_num_threads(before)
    return path, result, seen


def test_training_writes_a_checkpoint_with_its_figures(bidnet):
    from agents.nets.checkpoint import load_checkpoint

    path, result, seen = bidnet
    assert path.is_file() and seen == [1, 2, 3]
    assert result["train_hands"] == 4 and result["val_hands"] == 4
    for part in ("val", "constant_predictor"):
        assert set(result[part]) >= {"bce", "brier", "points_mae"}
        assert all(np.isfinite(v) for v in result[part].values())
    ck = load_checkpoint(path, require=("model", "net"))
    assert ck["kind"] == "bidnet" and ck["net"] == {"hidden": 16, "layers": 2}
    assert len(ck["history"]) == 3


def torch_forward(path, hands):
    import torch

    from agents.bidding.bidnet import BidNetConfig, _torch_net, features
    from agents.nets.checkpoint import load_checkpoint

    ck = load_checkpoint(path, require=("model", "net"))
    net = _torch_net(BidNetConfig(**ck["net"]))
    net.load_state_dict(ck["model"])
    net.eval()
    with torch.no_grad():
        logits, mean = net(torch.from_numpy(features(hands)))
    return torch.sigmoid(logits).numpy(), mean.numpy() * 42


def test_the_numpy_net_matches_the_torch_net(bidnet, torch_one_thread):
    from agents.bidding.bidnet import NumpyBidNet

    path = bidnet[0]
    hands = dealt_hands(5, seed=9)
    p, pts = NumpyBidNet(path)(hands)
    tp, tpts = torch_forward(path, hands)
    assert p.shape == (20, len(CONTRACTS), 13) and pts.shape == (20, len(CONTRACTS))
    assert np.allclose(p, tp, atol=1e-5) and np.allclose(pts, tpts, atol=1e-4)
    assert ((p > 0) & (p < 1)).all()
    assert (np.diff(p, axis=-1) <= 0).all()


@pytest.mark.parametrize("layers", [1, 3])
def test_the_numpy_net_matches_at_other_depths(dataset, tmp_path, layers, torch_one_thread):
    from agents.bidding.bidnet import NumpyBidNet
    from agents.training.bidnet_training import TrainBidConfig, train_bidnet

    path = tmp_path / "net.pt"
    train_bidnet(TrainBidConfig(data=str(dataset), epochs=1, hidden=8, layers=layers,
                                threads=1), path)
    hands = dealt_hands(2, seed=1)
    p, pts = NumpyBidNet(path)(hands)
    tp, tpts = torch_forward(path, hands)
    assert np.allclose(p, tp, atol=1e-5) and np.allclose(pts, tpts, atol=1e-4)


def test_the_numpy_net_refuses_other_checkpoints(tmp_path, bidnet):
    import torch

    from agents.bidding.bidnet import NumpyBidNet
    from agents.nets.checkpoint import CheckpointError, load_checkpoint, save_checkpoint

    other = tmp_path / "other.pt"
    save_checkpoint(other, {"kind": "policy", "model": {"w": torch.zeros(2)},
                            "net": {"hidden": 16, "layers": 2}})
    with pytest.raises(CheckpointError, match="not a bid-net checkpoint"):
        NumpyBidNet(other)
    no_net = tmp_path / "no_net.pt"
    save_checkpoint(no_net, {"kind": "bidnet", "model": {}})
    with pytest.raises(CheckpointError, match="net"):
        NumpyBidNet(no_net)
    ck = load_checkpoint(bidnet[0], require=("model", "net"))
    lacking = tmp_path / "lacking.pt"
    save_checkpoint(lacking, {**{k: v for k, v in ck.items() if k not in ("format", "version")},
                              "model": {k: v for k, v in ck["model"].items()
                                        if not k.startswith("head")}})
    with pytest.raises(CheckpointError, match="head"):
        NumpyBidNet(lacking)
    with pytest.raises(CheckpointError):
        NumpyBidNet(tmp_path / "missing.pt")


def test_training_refuses_datasets_it_cannot_use(tmp_path):
    from agents.training.bidnet_training import TrainBidConfig, train_bidnet

    one_deal = tmp_path / "one"
    generate(DataConfig(hands=4, chunk=4, worlds=1), one_deal)
    with pytest.raises(ValueError, match="too few"):
        train_bidnet(TrainBidConfig(data=str(one_deal), epochs=1, threads=1), tmp_path / "a.pt")
    some = tmp_path / "some"
    generate(DataConfig(hands=8, chunk=4, worlds=1, contracts=[6, 7]), some)
    with pytest.raises(ValueError, match="contracts"):
        train_bidnet(TrainBidConfig(data=str(some), epochs=1, threads=1), tmp_path / "b.pt")
    assert not (tmp_path / "a.pt").exists() and not (tmp_path / "b.pt").exists()


def test_the_learned_bidder_needs_a_checkpoint():
    from agents.bidding.bidnet import LearnedBidder

    with pytest.raises(ValueError, match="path"):
        LearnedBidder()
    with pytest.raises(ValueError, match="path"):
        make_agent("bidnet")


@pytest.mark.parametrize("mode, deals", [("hands", 4), ("games", 1)])
def test_the_learned_bidder_plays_duplicate_matches_legally(bidnet, mode, deals):
    from agents.bidding.bidnet import NumpyBidNet

    path = bidnet[0]
    agent = make_agent("bidnet", path=str(path))
    recs = []
    stats = play_duplicate(RULES, agent, "heuristic", deals=deals, mode=mode, seed=2,
                           on_records=recs.extend)
    assert len(recs) == stats.hands.sum() and (stats.hands >= 2).all()
    # the bidder's estimates are the net's chances
    hands = dealt_hands(1)
    assert np.array_equal(agent.estimates(hands), NumpyBidNet(path)(hands)[0])
    check_predictions(agent, recs, agent.name)


# ---------------------------------------------------------------------- the scripts
def script(name, *overrides, cwd):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *overrides],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_scripts_make_a_dataset_and_train_on_it(tmp_path):
    data, run = tmp_path / "data", tmp_path / "run"
    p = script("bid_data.py", f"out={data}", "hands=8", "chunk=4", "worlds=2", "progress=false",
               cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "8 hands in 2 chunks (2 made now)" in p.stdout
    assert (data / "config.json").is_file()
    assert sorted(x.name for x in data.glob("chunk_*.npz")) == ["chunk_00000.npz",
                                                                "chunk_00001.npz"]
    assert load_dataset(data)["points"].shape == (8, len(CONTRACTS), 2)

    p = script("train_bidnet.py", f"data={data}", "epochs=1", "hidden=16", "threads=1",
               f"hydra.run.dir={run}", "progress=false", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (run / "bidnet.pt").is_file() and (run / "metrics.json").is_file()
    assert "held-out 4 hands" in p.stdout
    from agents.bidding.bidnet import NumpyBidNet

    assert NumpyBidNet(run / "bidnet.pt")(dealt_hands(1))[0].shape == (4, len(CONTRACTS), 13)

    before = files_of(data)
    p = script("bid_data.py", f"out={data}", "hands=8", "chunk=4", "worlds=3", "progress=false",
               cwd=tmp_path)
    assert p.returncode != 0
    assert "worlds" in p.stderr and "another folder" in p.stderr
    assert "Traceback" not in p.stderr
    assert {k: v for k, v in files_of(data).items() if k.endswith((".npz", ".json"))} == \
        {k: v for k, v in before.items() if k.endswith((".npz", ".json"))}

    p = script("bid_data.py", f"out={tmp_path / 'x'}", "hands=8", "chunk=3", "progress=false",
               cwd=tmp_path)
    assert p.returncode != 0 and "chunk" in p.stderr and "Traceback" not in p.stderr


def test_bidnet_training_on_device_cpu_gives_the_weights_of_the_default(
        dataset, tmp_path, restore_torch_threads):
    """auto is the CPU on a machine without a GPU: the supervised net and its self-play
    fine-tuning come out the same with device=cpu, their checkpoints of CPU tensors."""
    import torch

    from agents.nets.checkpoint import load_checkpoint
    from agents.training.bidnet_training import (FinetuneConfig, TrainBidConfig, finetune_bidnet,
                                        train_bidnet)

    def same(a, b):
        a, b = load_checkpoint(a)["model"], load_checkpoint(b)["model"]
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
        assert all(v.device.type == "cpu" for v in b.values())

    kw = dict(data=str(dataset), epochs=2, hidden=8, threads=1, batch=16)
    auto = train_bidnet(TrainBidConfig(**kw), tmp_path / "auto.pt")
    cpu = train_bidnet(TrainBidConfig(**kw, device="cpu"), tmp_path / "cpu.pt")
    assert auto["val"] == cpu["val"]
    same(tmp_path / "auto.pt", tmp_path / "cpu.pt")
    ft = dict(rounds=1, hands=32, epochs=1, batch=64, anchor=0.5, threads=1)
    finetune_bidnet(tmp_path / "auto.pt", FinetuneConfig(**ft), tmp_path / "ft_auto.pt")
    finetune_bidnet(tmp_path / "auto.pt", FinetuneConfig(**ft, device="cpu"),
                    tmp_path / "ft_cpu.pt")
    same(tmp_path / "ft_auto.pt", tmp_path / "ft_cpu.pt")


def test_a_device_torch_cannot_use_stops_train_bidnet_in_one_line(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU: device=cuda is allowed here")  # said, not silent
    p = script("train_bidnet.py", f"data={tmp_path / 'data'}", "device=cuda",
               f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == [
        "train_bidnet: device: cuda asked, but torch sees no CUDA GPU here (this install can "
        "use: cpu); use device=cpu or auto"]
    assert not (tmp_path / "run").exists()
    p = script("train_bidnet.py", "finetune.device=cpu", f"hydra.run.dir={tmp_path / 'run'}",
               cwd=tmp_path)  # the run's own key, as seed and threads
    assert p.returncode == 1 and "finetune.device" in p.stderr and "Traceback" not in p.stderr


# ---------------------------------------------------------------------- arena summary
def test_games_mode_summary_gives_marks_per_game():
    a = np.array([7, 3, 10, 8])
    b = np.array([2, 8, 4, 7])
    n = len(a)
    stats = PairStats(a_marks=a, b_marks=b, a_bids=np.full(n, 5), a_made=np.full(n, 3),
                      b_bids=np.full(n, 4), b_made=np.full(n, 2), hands=np.array([6, 9, 7, 8]),
                      a_wins=np.array([2, 0, 1, 1]))
    s = summarize(stats, "games", n_boot=200)
    est, lo, hi = s["marks_per_game"]
    assert est == pytest.approx(((a - b) / 2).mean()) == pytest.approx(0.875)
    assert lo <= est <= hi and lo >= ((a - b) / 2).min() and hi <= ((a - b) / 2).max()
    assert s["a_win_rate"][0] == pytest.approx(0.5)
    assert "marks_per_game" not in summarize(stats, "hands", n_boot=10)
    one = PairStats(*(getattr(stats, f)[:1] for f in PairStats.FIELDS))
    assert summarize(one, "games")["marks_per_game"] == [2.5, 2.5, 2.5]


def test_an_unknown_play_agent_is_refused_before_the_folder_is_claimed(tmp_path):
    with pytest.raises(DatasetError, match="play"):
        generate(DataConfig(hands=4, chunk=4, worlds=1, play="heurstic"), tmp_path / "d")
    assert not (tmp_path / "d" / "config.json").exists()
    with pytest.raises(DatasetError, match="play"):
        generate(DataConfig(hands=4, chunk=4, worlds=1, play="heurstic:seed=1"), tmp_path / "d")


def test_the_play_out_agent_is_any_spec():
    """``play`` takes options (``NAME:KEY=VALUE``): the same values as the agent given
    whole, and other values than another play's."""
    hands = Game().reset(2, seed=5).dealt.reshape(-1)

    def values(play):
        return HandValuer(worlds=3, contracts=(0, 5), play=play).values(
            hands, np.random.default_rng(2))

    spec = values("random:seed=4")
    assert np.array_equal(spec, values({"name": "random", "seed": 4}))
    assert not np.array_equal(spec, values("random:seed=5"))
    assert DataConfig(hands=4, chunk=4, play="neural:path=x.pt").play == "neural:path=x.pt"
