"""PIMC plays only legal moves and searches with the seat's knowledge."""

import re

import numpy as np
import pytest

from agents.arena.duplicate import play_duplicate
from agents.baselines.pimc import PimcAgent
from agents.driver import act_rows, play_out
from texas42_env.actions import NO_ACTION
from texas42_env.core import HAND_OVER, PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal


@pytest.mark.parametrize("bidding", ["simulate", "heuristic"])
def test_pimc_plays_legal_whole_hands(bidding):
    recs = []
    agent = PimcAgent(n_worlds=4, bid_worlds=2, bidding=bidding, seed=1)
    stats = play_duplicate(RulesConfig.make(), agent, "random", deals=3, seed=5,
                           on_records=recs.extend)
    assert stats.hands.sum() == 6 and len(recs) == 6


def test_pimc_needs_its_context_and_a_known_bidding_mode():
    with pytest.raises(ValueError, match="bidding"):
        PimcAgent(bidding="guess")
    from texas42_env.core import Game

    agent = PimcAgent().setup(Game())
    with pytest.raises(ValueError, match="context"):
        agent.act(np.zeros((1, 10), np.float32), np.ones((1, 64), bool))


def test_a_bad_bid_evaluation_is_named():
    with pytest.raises(ValueError, match="bid_eval"):
        PimcAgent(bid_eval="guess")


def test_played_out_hand_values_take_every_point_of_the_hand():
    """bid_eval="playout": each sampled world is played to the last trick by the heuristic;
    the declaring team's points and the others' make up all 42."""
    from texas42_env.core import Game
    from texas42_env.rules import DOUBLES
    from texas42_env.worlds import worlds_from_state

    game = Game()
    st = game.reset(1, seed=3)
    agent = PimcAgent(bid_worlds=8, bid_eval="playout", seed=2).setup(game)
    seat = int(st.to_move[0])
    worlds = worlds_from_state(game, st, 0, seat, 8, np.random.default_rng(0)).states(game)
    pts = agent._play_out(game, worlds, seat, DOUBLES)
    assert pts.shape == (8,) and ((pts >= 0) & (pts <= 42)).all()
    assert (worlds.points.sum(1) == 42).all()
    assert (worlds.hands[:, seat] == 0).all()  # every tile played
    assert (worlds.dealt[:, seat] == st.hands[0, seat]).all()  # the seat's own hand kept


@pytest.mark.parametrize("bid_eval", ["solve", "playout"])
def test_simulation_bids_are_legal_and_declared_contracts_allowed(bid_eval):
    recs = []
    agent = PimcAgent(n_worlds=2, bid_worlds=4, bid_eval=bid_eval, seed=3)
    play_duplicate(RulesConfig.make(), agent, "heuristic", deals=4, seed=9,
                   on_records=recs.extend)
    assert len(recs) == 8


@pytest.mark.parametrize("options, says", [({"n_worlds": 0}, "n_worlds must be positive, got 0"),
                                           ({"n_worlds": "abc"}, "n_worlds must be a positive whole number, got 'abc'"),
                                           ({"make_prob": 1.5}, "make_prob must be"),
                                           ({"seed": -1}, "seed must be >= 0, got -1")])
def test_bad_pimc_settings_are_refused_when_built(options, says):
    from agents import make_agent

    with pytest.raises(ValueError, match=re.escape(says)):
        make_agent("pimc", **options)


@pytest.mark.parametrize("name", ["random", "passive"])
def test_a_negative_seed_is_refused_by_name(name):
    from agents import make_agent

    with pytest.raises(ValueError, match=re.escape("seed must be >= 0, got -1")):
        make_agent(name, seed=-1)


def _declared(rules: RulesConfig, contract: str, n: int, seed: int):
    """``n`` tables of ``rules`` at the opening lead of ``contract``: the first bidder opens
    1m, the others pass, it declares."""
    game = Game(rules)
    st = game.reset(n, seed=seed)
    for i in range(4):
        game.step(st, np.full(n, game.actions.id("1m" if i == 0 else "pass")))
    game.step(st, np.full(n, game.actions.id(contract)))
    return game, st


class _RankSolver:
    """A stand-in for the solver: each legal play's value is its place among the legal plays
    by tile id (0 for the lowest), so the side that wants most picks the highest tile id and
    the side that wants fewest the lowest."""

    def position(self, game, worlds, k):
        legal = np.flatnonzero(worlds.legal[k, game.actions.play0:])
        return int(worlds.to_move[k]), {int(t): i for i, t in enumerate(legal)}


@pytest.mark.parametrize("contract, rules", [("nello", {}), ("sevens", {"sevens": True}),
                                             ("5s", {})])
def test_pimc_searches_every_contract_for_its_sides_objective(monkeypatch, contract, rules):
    """Nello values are the bidder's tricks (the bidder wants fewest, the opponents most);
    sevens and suit values are the bidding team's (it wants most, the others fewest)."""
    monkeypatch.setattr("agents.search.solver._solver", lambda: _RankSolver())
    game, st = _declared(RulesConfig.make(**rules), contract, 64, seed=4)
    agent = PimcAgent(n_worlds=2, seed=1).setup(game)
    enc = make_encoder(game)
    rng = np.random.default_rng(0)
    seen = set()
    p0 = game.actions.play0
    for _ in range(6):  # a few plays in, each side to move with a choice somewhere
        rows = np.flatnonzero(st.legal[:, p0:].sum(1) >= 2)
        got = act_rows(game, st, agent, rows, enc)
        for r, a in zip(rows, got):
            legal = np.flatnonzero(st.legal[r, p0:])
            seat, bidder = int(st.to_move[r]), int(st.bidder[r])
            most = seat != bidder if contract == "nello" else (seat & 1) == (bidder & 1)
            assert a - p0 == (legal.max() if most else legal.min()), (contract, seat, bidder)
            seen.add(most)
        pick = np.array([p0 + rng.choice(np.flatnonzero(x[p0:])) if x[p0:].any() else 0
                         for x in st.legal])
        game.step(st, np.where(st.phase == PLAYING, pick, NO_ACTION))
    assert seen == {True, False}


class _NelloSolver:
    """A stand-in for the solver in nello: the lowest legal tile takes the bidder no trick in
    world 0 and 3 in world 1; the next lowest 1 trick in both; the rest 5."""

    def position(self, game, worlds, k):
        legal = np.flatnonzero(worlds.legal[k, game.actions.play0:])
        values = {int(t): 5 for t in legal}
        values[int(legal[0])] = 0 if k == 0 else 3
        values[int(legal[1])] = 1
        return int(worlds.to_move[k]), values


def test_pimc_nello_bidder_plays_for_no_trick_in_most_worlds_not_fewest_tricks(monkeypatch):
    """Fewest tricks on average (1 and 1) would set the nello in every world; the play that
    takes no trick in one world (0, then 3) keeps it alive there: the bidder takes it, an
    opponent one that sets it everywhere with the most tricks (the rest)."""
    monkeypatch.setattr("agents.search.solver._solver", lambda: _NelloSolver())
    game, st = _declared(RulesConfig.make(), "nello", 64, seed=4)
    agent = PimcAgent(n_worlds=2, seed=1).setup(game)
    p0 = game.actions.play0
    rows = np.flatnonzero(st.legal[:, p0:].sum(1) >= 3)
    got = act_rows(game, st, agent, rows, make_encoder(game))
    checked = 0
    for r, a in zip(rows, got):
        legal = np.flatnonzero(st.legal[r, p0:])
        bidder = int(st.to_move[r]) == int(st.bidder[r])
        if bidder:
            assert a - p0 == legal[0]
        else:
            assert a - p0 in legal[2:]
        checked += 1
    assert checked > 0


@pytest.mark.parametrize("contract, rules", [
    ("nello", {"nello_doubles": "low"}), ("nello", {"nello_doubles": "own_suit"}),
    ("sevens", {"sevens": True, "sevens_tie": "bidder"})])
def test_pimc_plays_legal_whole_nello_and_sevens_hands_with_the_solver(contract, rules):
    game, st = _declared(RulesConfig.make(**rules), contract, 2, seed=6)
    play_out(game, st, PimcAgent(n_worlds=3, seed=2).setup(game))  # an illegal play raises
    assert (st.phase >= HAND_OVER).all() and (st.made >= 0).all()


class _MakeSolver:
    """A stand-in for the solver after a 1m bid (the bidding team needs all 42): the lowest
    legal tile takes 42 in world 0 and 0 in world 1 (made in half the worlds, 21 on
    average), every other tile 41 in both (never made, 41 on average)."""

    def position(self, game, worlds, k):
        legal = np.flatnonzero(worlds.legal[k, game.actions.play0:])
        values = {int(t): 41 for t in legal}
        values[int(legal[0])] = 42 if k == 0 else 0
        return int(worlds.to_move[k]), values


@pytest.mark.parametrize("objective", ["points", "make"])
def test_pimc_plays_for_the_bid_or_for_points_by_its_objective(monkeypatch, objective):
    """Points: the bidding team takes the sure 41, the others leave it 21 on average. Make:
    the bidding team takes the half chance of all 42, the others the sure set (41)."""
    monkeypatch.setattr("agents.search.solver._solver", lambda: _MakeSolver())
    game, st = _declared(RulesConfig.make(), "5s", 64, seed=4)
    agent = PimcAgent(n_worlds=2, objective=objective, seed=1).setup(game)
    p0 = game.actions.play0
    sides = set()
    for _ in range(2):  # the declarer's lead (the bidding team), then the next seat's play
        rows = np.flatnonzero(st.legal[:, p0:].sum(1) >= 2)
        got = act_rows(game, st, agent, rows, make_encoder(game))
        for r, a in zip(rows, got):
            legal = np.flatnonzero(st.legal[r, p0:])
            bidders = (int(st.to_move[r]) & 1) == (int(st.bidder[r]) & 1)
            low = (objective == "make") == bidders
            assert (a - p0 == legal[0]) == low, (objective, bidders)
            sides.add(bidders)
        game.step(st, uniform_legal(st.legal, np.random.default_rng(0)))
    assert sides == {True, False}
    with pytest.raises(ValueError, match="objective: 'marks'; allowed: points, make"):
        PimcAgent(objective="marks")


def _net_tables(n: int, seed: int):
    """One-table states of the standard game after the heuristic's auction, a few uniform
    plays on (a table's count of them: its number mod 9), at a play decision with a choice."""
    from agents import make_agent

    game = Game(RulesConfig.make())
    heuristic = make_agent("heuristic").setup(game)
    enc = make_encoder(game)
    rng = np.random.default_rng(seed)
    st = game.reset(n, seed=seed)
    out = []
    for t in range(n):
        one = st.take([t])
        while one.phase[0] < PLAYING:
            game.step(one, act_rows(game, one, heuristic, np.array([0]), enc))
        for _ in range(t % 9):
            if one.phase[0] == PLAYING:
                game.step(one, uniform_legal(one.legal, rng))
        if one.phase[0] == PLAYING and one.legal[0, game.actions.play0:].sum() >= 2:
            out.append(one)
    return game, out


def test_a_net_prior_decides_where_its_weight_outweighs_the_worlds():
    """prior_weight 0 plays as PIMC without one; at the largest weight PIMC plays the net's
    likeliest tile wherever the net prefers it by more than the worlds can separate."""
    from agents import make_agent
    from agents.shipped import weights

    net = {"name": "neural", "path": weights("learned-standard.pt")}
    game, tables = _net_tables(40, seed=3)
    assert len(tables) >= 12
    enc = make_encoder(game)
    policy = make_agent(net).setup(game).policy
    agents = [PimcAgent(n_worlds=4, objective="make", seed=2, **extra).setup(game)
              for extra in ({}, {"prior": net, "prior_weight": 0},
                            {"prior": net, "prior_weight": 1000})]
    plain, zero, heavy, best, clear = [], [], [], [], []
    one = np.array([0])
    for st in tables:
        for agent, got in zip(agents, (plain, zero, heavy)):
            got.append(int(act_rows(game, st, agent, one, enc)[0]))
        lp = policy.log_probs(enc.encode(st, st.to_move[one], idx=one), st.legal[one])[0]
        top2 = np.sort(lp)[-2:]
        best.append(int(lp.argmax()))
        clear.append(top2[1] - top2[0] > 0.02)  # 1000 x 1000 x 0.02 > any worlds' score
    clear = np.array(clear)
    assert plain == zero
    assert clear.sum() >= 8
    assert np.array_equal(np.array(heavy)[clear], np.array(best)[clear])
    assert heavy != plain  # the check has teeth: the prior changed the play


@pytest.mark.parametrize("options, says", [
    ({"prior": "heuristic"}, "pimc prior: 'heuristic' has no policy to weigh the moves by"),
    ({"prior": "nobody"}, "pimc prior: unknown agent 'nobody'"),
    ({"prior_weight": -1}, "prior_weight must be")])
def test_bad_prior_settings_are_refused_when_built(options, says):
    from agents import make_agent

    with pytest.raises(ValueError, match=re.escape(says)):
        make_agent("pimc", **options)
