"""Nello, plunge and splash valued by simulation (``SpecialValuer``) and bid by the value
bidders' rule like any other bid (``special_worlds``), against a one-world-at-a-time replay
written here."""

from __future__ import annotations

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS, PLUNGE, SPLASH
from texas42_env.core import BIDDING, DECLARING, HAND_OVER, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import NELLO, RulesConfig

from agents.base import Context
from agents.baselines.heuristic import HeuristicAgent
from agents.bidding.rule import BidRule
from agents.bidding.values import SpecialValuer, deal_around

from helpers import fixed_bidder

LOWEST = ["1-0", "2-0", "3-0", "2-1", "3-1", "4-0", "3-2"]
SIX_DOUBLES = ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "6-5"]


def hand_of(tiles) -> int:
    return T.mask_of(T.parse_tile(x) for x in tiles)


def replay_made(rules: RulesConfig, world, kind: str) -> bool:
    """One world, one table, every step by hand: seat 0 bids ``kind`` (if it may), the
    others pass, nello declared by it or trump named by its partner as the heuristic would,
    the heuristic at every seat."""
    game = Game(rules)
    enc = make_encoder(game)
    heur = HeuristicAgent().setup(game)
    st = game.reset(1, seed=0)
    game.set_hands(st, [0], np.asarray(world, np.uint64)[None], dealer=3)
    bid = {"nello": MARKS0 + max(rules.nello_min_marks, 1) - 1, "plunge": PLUNGE,
           "splash": SPLASH}[kind]

    def heuristic_action() -> int:
        rows = np.array([0])
        seats = st.to_move[rows]
        return int(heur.act(enc.encode(st, seats, idx=rows), st.legal[rows],
                            Context(game, st, rows, seats))[0])

    while int(st.phase[0]) == BIDDING:
        if int(st.to_move[0]) == 0:
            if not st.legal[0, bid]:
                return False
            game.step(st, np.array([bid]))
        else:
            game.step(st, np.array([PASS]))
    assert int(st.phase[0]) == DECLARING
    a = game.actions.contract0 + NELLO if kind == "nello" else heuristic_action()
    game.step(st, np.array([a]))
    while int(st.phase[0]) < HAND_OVER:
        game.step(st, np.array([heuristic_action()]))
    return int(st.made[0]) == 1


@pytest.mark.parametrize("rules", [RulesConfig.make(), RulesConfig.make(splash=True),
                                   RulesConfig.make(nello_min_marks=2, nello_doubles="low")])
def test_each_world_is_made_as_a_replay_of_it_says(rules):
    game = Game(rules)
    st = game.reset(6, seed=11)
    hands = list(st.dealt[:, 0]) + [hand_of(LOWEST), hand_of(SIX_DOUBLES)]
    worlds = deal_around(np.array(hands, np.uint64), 0, 5, np.random.default_rng(3))
    kinds = ["nello", "plunge", "splash"]
    sv = SpecialValuer(rules)
    for kind in kinds:
        # one world a row: each chance is that world's made (0 or 1)
        rows = worlds.reshape(-1, 1, 4)
        got = sv.chances([kind] * len(rows), rows)
        want = [replay_made(rules, w[0], kind) for w in rows]
        assert got.tolist() == [float(x) for x in want], kind
    # many worlds a row: the share of them
    got = sv.chances(["nello"] * len(hands), worlds)
    want = [np.mean([replay_made(rules, w, "nello") for w in row]) for row in worlds]
    assert np.allclose(got, want)


def test_extreme_hands():
    sv = SpecialValuer()
    worlds = deal_around(np.array([hand_of(LOWEST), hand_of(SIX_DOUBLES)], np.uint64), 0, 24,
                         np.random.default_rng(0))
    nello = sv.chances(["nello", "nello"], worlds)
    plunge = sv.chances(["plunge", "plunge"], worlds)
    assert nello[0] == 1.0 and nello[1] == 0.0  # no tile of the lowest hand can win a trick
    assert plunge[0] == 0.0  # no doubles: no plunge
    assert plunge[1] > 0.9
    assert sv.chances(["splash"], worlds[1:]).tolist() == [0.0]  # splash is off by default
    with pytest.raises(ValueError, match="kinds"):
        sv.chances(["sevens"], worlds[:1])
    with pytest.raises(ValueError, match="standard"):
        SpecialValuer(RulesConfig.make(ruleset="six-player"))


def zero_curves():
    return np.zeros((9, 13))


def test_the_rule_weighs_specials_like_any_bid():
    game = Game()
    st = game.reset(1, seed=0)
    rule = BidRule(game_weight=0)
    legal = st.legal[0].copy()
    s = int(st.to_move[0])
    # zero trump chances: opening passes (q_open 0.5, worth 0) unless a special is better
    assert rule.choose(zero_curves(), legal, st, 0, s, game)[0] == PASS
    assert rule.choose(zero_curves(), legal, st, 0, s, game, {"nello": 0.4})[0] == PASS
    a, p = rule.choose(zero_curves(), legal, st, 0, s, game, {"nello": 0.8})
    assert (a, p) == (MARKS0 + 1, 0.8)  # at nello's chance, the most marks open (2m)
    legal[PLUNGE] = True
    a, p = rule.choose(zero_curves(), legal, st, 0, s, game, {"nello": 0.8, "plunge": 0.9})
    assert (a, p) == (PLUNGE, 0.9)  # 4 marks at 0.9 (worth 3.2) beat 2 at 0.8 (1.2)
    a, _ = rule.choose(zero_curves(), legal, st, 0, s, game, {"nello": 0.8, "plunge": 0.55})
    assert a == MARKS0 + 1  # 4 x 0.1 = 0.4 < 2 x 0.6
    # a nello that needs 3m is no open bid's: its chance counts for none of them
    game3 = Game(RulesConfig.make(nello_min_marks=3))
    st3 = game3.reset(1, seed=0)
    assert rule.choose(zero_curves(), st3.legal[0], st3, 0, int(st3.to_move[0]), game3,
                       {"nello": 0.8})[0] == PASS


def act(agent, game, st):
    rows = np.array([0])
    seats = st.to_move[rows]
    obs = make_encoder(game).encode(st, seats, idx=rows)
    return int(agent.act(obs, st.legal[rows], Context(game, st, rows, seats))[0])


def seat_table(game, tiles, seat=0):
    st = game.reset(1, seed=0)
    hand = hand_of(tiles)
    rest = [t for t in range(T.N_TILES) if not hand >> t & 1]
    dealt = [0] * 4
    dealt[seat] = hand
    for i, o in enumerate(x for x in range(4) if x != seat):
        dealt[o] = T.mask_of(rest[7 * i:7 * i + 7])
    game.set_hands(st, [0], np.array(dealt, np.uint64)[None], dealer=(seat - 1) % 4)
    return st


def test_the_bidder_bids_and_declares_what_simulation_favours():
    game = Game()
    agent = fixed_bidder(zero_curves()).setup(game)
    # the heuristic's rule of thumb calls this a nello hand; simulation says about 1 in 3
    thumb = ["1-0", "2-0", "2-1", "3-0", "4-1", "4-3", "5-4"]
    assert act(fixed_bidder(zero_curves(), special_worlds=0).setup(game), game,
               seat_table(game, thumb)) == MARKS0
    assert act(agent, game, seat_table(game, thumb)) == PASS
    st = seat_table(game, LOWEST)
    a = act(agent, game, st)
    assert a in (MARKS0, MARKS0 + 1)  # a marks bid, for nello
    game.step(st, np.array([a]))
    for _ in range(3):
        game.step(st, np.array([PASS]))
    assert act(agent, game, st) == game.actions.contract0 + NELLO
    # a hand that bid for trumps declares trumps even where the heuristic would say nello
    c = zero_curves()
    c[3, :] = 0.9
    agent = fixed_bidder(c).setup(game)
    st = seat_table(game, LOWEST)
    a = act(agent, game, st)
    assert a != PASS
    game.step(st, np.array([a]))
    for _ in range(3):
        game.step(st, np.array([PASS]))
    assert act(agent, game, st) == game.actions.contract0 + 3
    # six doubles plunge
    assert act(fixed_bidder(zero_curves()).setup(game), game,
               seat_table(game, SIX_DOUBLES)) == PLUNGE


def test_the_specials_do_not_depend_on_the_batch():
    """A hand's worlds are keyed by the hand: one table at a time or all at once, the same
    bids."""
    game = Game()

    def bidder():  # a fresh one each time: no chance cached from another call
        return fixed_bidder(zero_curves(), special_worlds=8, seed=3).setup(game)

    st = game.reset(12, seed=5)
    rows = np.arange(12)
    seats = st.to_move[rows]
    obs = make_encoder(game).encode(st, seats, idx=rows)
    together = bidder().act(obs, st.legal[rows], Context(game, st, rows, seats))
    alone = [int(bidder().act(obs[[i]], st.legal[[i]], Context(game, st, rows[[i]],
                                                                seats[[i]]))[0]) for i in rows]
    assert together.tolist() == alone
    with pytest.raises(ValueError, match="special_worlds"):
        fixed_bidder(zero_curves(), special_worlds=-1)


@pytest.mark.parametrize("over, kinds, says", [
    ({"nello": False}, ["nello"], "nello off: never made"),
    ({"plunge": False}, ["plunge"], "plunge off"),
])
def test_a_contract_the_rules_forbid_is_never_made(over, kinds, says):
    worlds = deal_around(np.array([hand_of(LOWEST), hand_of(SIX_DOUBLES)], np.uint64), 0, 6,
                         np.random.default_rng(0))
    assert SpecialValuer(RulesConfig.make(**over)).chances(kinds * 2, worlds).tolist() == \
        [0.0, 0.0], says


def test_a_nello_that_needs_more_marks_than_open_is_simulated_at_the_most_that_may():
    worlds = deal_around(np.array([hand_of(LOWEST)], np.uint64), 0, 6, np.random.default_rng(0))
    rules = RulesConfig.make(nello_min_marks=3, max_opening_marks=2)
    assert SpecialValuer(rules).chances(["nello"], worlds).tolist() == [1.0]

