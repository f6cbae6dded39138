"""Worlds that fit the auction (``agents.baselines.auction``) and PIMC's use of them.

The weights are checked against a one-world-at-a-time replay of the auction written here
(the model asked at a one-table state, disagreements counted); the true deal fits its own
auction; the observer's own bids never weigh; weighted worlds describe the hidden bidder's
trumps better than uniform ones; PIMC with a bid model (and with honest continuations,
``exact_tricks=0``) plays legal, reproducible hands and reports its effective world count.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.actions import NO_ACTION
from texas42_env.core import BIDDING, DECLARING, HAND_OVER, PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import RulesConfig
from texas42_env.worlds import worlds_from_state

from agents import make_agent
from agents.arena.duplicate import play_duplicate
from agents.baselines.auction import AuctionFit, auction_actions
from agents.baselines.pimc import PimcAgent
from agents.shipped import weights
from agents.driver import act_rows, play_out


def _opened(ruleset: str, n: int, seed: int, bidder="heuristic"):
    """One-table states of ``ruleset`` after ``bidder``'s auction at every seat (and the
    six-player heuristic's exchange), at the first play: ``n`` deals, those thrown in
    dropped."""
    game = Game(RulesConfig.make(ruleset))
    st = game.reset(n, seed=seed)
    agent = make_agent(bidder).setup(game)
    enc = make_encoder(game)
    tables = []
    for t in range(n):  # one table at a time: a table at its first play cannot wait
        one = st.take([t])
        while one.phase[0] < PLAYING:
            game.step(one, act_rows(game, one, agent, np.array([0]), enc))
        tables.append(one)
    return game, [one for one in tables if one.phase[0] == PLAYING], agent


def _disagreements(game, worlds, model) -> list[int]:
    """Each world's count of auction decisions by another seat where ``model`` acts
    otherwise: one world, one table, one decision at a time."""
    enc = make_encoder(game)
    out = []
    for k in range(len(worlds)):
        st = worlds.base.take([0])
        game.set_hands(st, [0], worlds.dealt[k:k + 1], int(worlds.base.dealer[0]),
                       worlds.dealt_cat[k:k + 1] if game.six else None)
        d = 0
        for a in auction_actions(game, worlds.base):
            assert st.phase[0] in (BIDDING, DECLARING)
            if int(st.to_move[0]) != worlds.seat:
                d += int(act_rows(game, st, model, np.array([0]), enc)[0] != a)
            game.step(st, np.array([a]))
        out.append(d)
    return out


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_weights_are_the_floor_to_the_number_of_disagreements(ruleset):
    game, tables, model = _opened(ruleset, 6, seed=3)
    fit = AuctionFit(game, model, floor=0.25)
    seen = set()
    for t, one in enumerate(tables[:4]):
        seat = (int(one.bidder[0]) + 1) % game.n_seats
        worlds = worlds_from_state(game, one, 0, seat, 24, np.random.default_rng(t))
        w = fit.weights(worlds)
        d = np.array(_disagreements(game, worlds, model))
        np.testing.assert_allclose(w, 0.25 ** d)
        seen |= set(d.tolist())
    assert 0 in seen and max(seen) >= 1  # some worlds fit, some do not


def test_the_true_deal_fits_its_own_auction_and_the_observers_bids_never_weigh():
    game, tables, model = _opened("standard", 8, seed=5)
    fit = AuctionFit(game, model, floor=0.1)
    random_fit = AuctionFit(game, make_agent("random", seed=2).setup(game), floor=0.5)
    for st in tables:
        t = 0
        for seat in range(4):
            worlds = worlds_from_state(game, st, 0, seat, 2, np.random.default_rng(0))
            true = dataclasses.replace(worlds, hands=st.hands[t:t + 1].copy(),
                                       dealt=st.dealt[t:t + 1].copy(),
                                       cat=worlds.cat[:1], dealt_cat=worlds.dealt_cat[:1])
            assert fit.weights(true)[0] == 1.0
            # 4 bids and a declaration, the observer's own among them: a random model
            # disagrees at most at the others' decisions
            own = sum(1 for i in range(4) if (int(st.first_bidder[t]) + i) % 4 == seat) + \
                (int(st.declarer[t]) == seat)
            n_others = len(auction_actions(game, true.base)) - own
            assert random_fit.weights(true)[0] >= 0.5 ** n_others - 1e-12


def test_weighted_worlds_know_the_hidden_bidders_trumps_better_than_uniform_ones():
    """The bidder's trump count in the worlds, weighted by the heuristic's bidding, is nearer
    its true count than in uniform worlds (the heuristic bids on trump length)."""
    game, tables, model = _opened("standard", 40, seed=11)
    fit = AuctionFit(game, model, floor=0.05)
    err_uniform, err_fit, n = 0.0, 0.0, 0
    for i, st in enumerate(tables):
        t = 0
        c = int(st.contract[t])
        if c > 6:
            continue  # doubles, follow-me, nello, sevens: no suit of trumps
        bidder = int(st.bidder[t])
        seat = (bidder + 1) % 4
        worlds = worlds_from_state(game, st, 0, seat, 64, np.random.default_rng(i))
        trumps = T.mask_of(T.suit_tiles(c))
        counts = np.array([bin(int(h) & trumps).count("1") for h in worlds.dealt[:, bidder]])
        true = bin(int(st.dealt[t, bidder]) & trumps).count("1")
        w = fit.weights(worlds)
        err_uniform += abs(counts.mean() - true)
        err_fit += abs((w @ counts) / w.sum() - true)
        n += 1
    assert n >= 20
    assert err_fit < 0.8 * err_uniform, (err_fit / n, err_uniform / n)


def test_resample_draws_in_proportion_and_counts_multiplicity():
    w = np.array([1.0, 0.0001, 0.0001, 1.0, 0.0001])
    keep, mult = AuctionFit.resample(w, 400, np.random.default_rng(0))
    assert mult.sum() == 400 and (np.diff(keep) > 0).all()
    share = dict(zip(keep.tolist(), (mult / 400).tolist()))
    assert share.get(0, 0) > 0.4 and share.get(3, 0) > 0.4
    assert AuctionFit.effective(np.ones(10)) == pytest.approx(10)
    assert AuctionFit.effective(np.array([1.0, 0, 0, 0])) == pytest.approx(1)


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_pimc_with_a_bid_model_plays_legal_reproducible_hands(ruleset):
    rules = RulesConfig.make(ruleset)

    def match():
        agent = PimcAgent(n_worlds=3, bid_worlds=2, contracts=1, bid_model="heuristic",
                          bidding="heuristic", seed=4)
        recs = []
        play_duplicate(rules, agent, "heuristic", deals=2, seed=8, on_records=recs.extend)
        return agent, recs

    (a1, r1), (a2, r2) = match(), match()
    assert r1 == r2 and len(r1) == 4
    fs = a1.fit_stats
    assert fs["decisions"] > 0
    assert 1 <= fs["effective"] / fs["decisions"] <= 12  # of 3 x 4 candidates
    assert 1 <= fs["distinct"] / fs["decisions"] <= 3


NET = {"name": "neural", "path": weights("learned-standard.pt")}


@pytest.mark.parametrize("rollout", ["heuristic", NET])
def test_honest_continuations_play_whole_hands_and_value_plays_by_the_rollouts_play_out(
        rollout):
    """``exact_tricks=0``: each play's value in a world is the bidding team's points when
    the ``rollout`` agent (the heuristic, or a net) plays the world out after it, as
    ``play_out`` gives."""
    game, tables, _ = _opened("standard", 4, seed=2)
    st = tables[0]
    agent = PimcAgent(n_worlds=2, exact_tricks=0, rollout=rollout, seed=1).setup(game)
    worlds = worlds_from_state(game, st, 0, int(st.to_move[0]), 2,
                               np.random.default_rng(0)).states(game)
    legal = np.flatnonzero(worlds.legal[0, game.actions.play0:])
    values = agent._rolled_values(game, worlds, legal)
    pgame, enc = agent._playout(game)
    for k in range(2):
        for j, tile in enumerate(legal):
            one = worlds.take([k])
            pgame.step(one, np.array([game.actions.play0 + tile]))
            play_out(pgame, one, make_agent(rollout).setup(pgame), enc)
            assert values[k, j] == one.points[0, int(one.bidder[0]) & 1]
    play_out(game, st, agent)  # an illegal play raises
    assert (st.phase >= HAND_OVER).all()


@pytest.mark.parametrize("options, says", [
    ({"bid_floor": 0}, "bid_floor: 0; allowed: a number in (0, 1]"),
    ({"bid_floor": 1.5}, "bid_floor must be"),
    ({"oversample": 0}, "oversample must be"),
    ({"bid_model": "nobody"}, "pimc bid_model: unknown agent 'nobody'"),
    ({"exact_tricks": -1}, "exact_tricks must be"),
    ({"rollout": "nobody"}, "pimc rollout: unknown agent 'nobody'"),
    ({"rollout": "pimc"}, "pimc rollout: 'pimc' searches; the roll-outs need an agent that "
                          "plays from its observations")])
def test_bad_auction_settings_are_refused_by_name(options, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        make_agent("pimc", **options)
