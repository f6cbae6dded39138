"""The bidding lab: auction inference (``auction_worlds``, ``SimBidder(infer=...)``), the
auction context of the learned bidder and its self-play fine-tuning, the value bidder's
special bids and exploration, the score-aware bid rule, and the evaluation tools
(agents/arena/bidder_matches.py, experiments/bidding/run.py, scripts/train_bidnet.py finetune mode)."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from agents import make_agent
from agents.base import Context
from agents.bidding.values import CONTRACTS, auction_worlds, deal_around
from agents.bidding.rule import BidRule, bid_need
from agents.bidding.bidders import SimBidder
from agents.bidding.rule import win_table
from agents.baselines.heuristic import HeuristicAgent
from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS, PLUNGE, POINTS0
from texas42_env.core import BIDDING, DECLARING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import NELLO, RulesConfig

from helpers import ROOT, fixed_bidder

ALL = (1 << T.N_TILES) - 1
PNG = b"\x89PNG\r\n\x1a\n"
NELLO_TILES = ["1-0", "2-0", "2-1", "3-0", "4-1", "4-3", "5-4"]  # every tile well beaten
SIX_DOUBLES = ["6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "6-5"]
LOWEST = ["1-0", "2-0", "3-0", "2-1", "3-1", "4-0", "3-2"]  # a nello made in every world


def popcount(x) -> int:
    return bin(int(x)).count("1")


def check_world(world, seat: int, hand: int) -> None:
    """A deal: the seat's own hand, four hands of seven that together hold all 28 tiles."""
    w = [int(x) for x in world]
    assert w[seat] == int(hand)
    assert [popcount(x) for x in w] == [7, 7, 7, 7]
    assert w[0] | w[1] | w[2] | w[3] == ALL


def deal_with(tiles, seat: int) -> np.ndarray:
    """uint64 [4]: ``tiles`` at ``seat``, the other 21 tiles dealt in order to the others."""
    hand = T.mask_of(T.parse_tile(x) for x in tiles)
    rest = [t for t in range(T.N_TILES) if not hand >> t & 1]
    hands = [0] * 4
    hands[seat] = hand
    for i, o in enumerate(x for x in range(4) if x != seat):
        hands[o] = T.mask_of(rest[7 * i:7 * i + 7])
    return np.array(hands, np.uint64)


def table(game: Game, dealt: np.ndarray, first: int, *bids):
    """A one-table state with ``dealt`` hands, ``first`` the first to bid, after ``bids``."""
    st = game.reset(1, seed=0)
    game.set_hands(st, [0], dealt[None], dealer=(first - 1) % 4)
    assert int(st.to_move[0]) == first
    for a in bids:
        assert st.legal[0, a], a
        game.step(st, np.array([a]))
    return st


def where_of(st, t: int = 0):
    return st, np.array([t]), np.array([int(st.to_move[t])])


def act_at(agent, game, st, t: int = 0) -> int:
    rows = np.array([t])
    seats = st.to_move[rows]
    obs = make_encoder(game).encode(st, seats, idx=rows)
    return int(agent.act(obs, st.legal[rows], Context(game, st, rows, seats))[0])


def heuristic_bids_as_given(game, enc, heur, world, dealer: int, bids) -> bool:
    """Replay ``bids`` in the deal ``world``: does the heuristic make each one?"""
    sim = game.reset(1, seed=0)
    game.set_hands(sim, [0], np.asarray(world, np.uint64)[None], dealer)
    for b in bids:
        a = int(heur.act(enc.encode(sim, sim.to_move), sim.legal)[0])
        if a != int(b):
            return False
        game.step(sim, np.array([b]))
    return True


def fresh_checkpoint(hidden: int = 16, seed: int = 0, context: bool = False) -> dict:
    """A freshly initialised bid net's checkpoint, as ``bench_bidding`` builds one."""
    import torch

    from agents.bidding.bidnet import BidNetConfig, _torch_net

    torch.manual_seed(seed)
    cfg = BidNetConfig(hidden=hidden)
    return {"format": "texas42-checkpoint", "kind": "bidnet", "net": vars(cfg),
            "model": _torch_net(cfg).state_dict(), "context": context}




def zero_curves():
    return np.zeros((len(CONTRACTS), 13))


@pytest.fixture(scope="module")
def tiny_net(tmp_path_factory):
    """A tiny bid net trained for one epoch on a tiny hand-value dataset (has a "train"
    config naming the dataset, as the script's checkpoints do)."""
    import torch

    from agents.training.bidnet_training import TrainBidConfig, train_bidnet
    from agents.bidding.dataset import DataConfig, generate

    root = tmp_path_factory.mktemp("lab")
    generate(DataConfig(hands=8, chunk=4, worlds=2), root / "data")
    before = torch.get_num_threads()
    path = root / "bidnet.pt"
    train_bidnet(TrainBidConfig(data=str(root / "data"), epochs=1, hidden=16, threads=1), path)
    torch.set_num_threads(before)
    return path


# ---------------------------------------------------------------------- auction_worlds
def test_auction_worlds_before_any_bid_are_uniform_deals():
    game = Game()
    enc, heur = make_encoder(game), HeuristicAgent().setup(game)
    st = game.reset(3, seed=4)
    for t in range(3):
        s = int(st.to_move[t])
        hand = np.array([st.hands[t, s]], np.uint64)
        worlds, fit = auction_worlds(game, st, t, s, 12, 48, heur, enc, np.random.default_rng(t))
        assert fit == 12 and worlds.shape == (12, 4)
        assert np.array_equal(worlds, deal_around(hand, s, 12, np.random.default_rng(t))[0])
        for w in worlds:
            check_world(w, s, hand[0])


def test_auction_worlds_that_fit_replay_the_heuristics_bids():
    game = Game()
    enc, heur = make_encoder(game), HeuristicAgent().setup(game)
    st = game.reset(40, seed=3)
    for _ in range(2):  # two bids by the heuristic at real tables
        game.step(st, heur.act(enc.encode(st, st.to_move), st.legal))
    bid_tables = [t for t in range(40) if (st.bids[t, :2] > 0).any()][:3]
    assert bid_tables  # some table saw a real bid, not only passes
    tables = bid_tables + [t for t in range(40) if t not in bid_tables][:2]
    total_fit = 0
    for t in tables:
        s = int(st.to_move[t])
        hand = int(st.hands[t, s])
        worlds, fit = auction_worlds(game, st, t, s, 8, 64, heur, enc,
                                     np.random.default_rng(100 + t))
        assert worlds.shape == (8, 4) and 0 <= fit <= 8
        total_fit += fit
        for i, w in enumerate(worlds):
            check_world(w, s, hand)
            fits = heuristic_bids_as_given(game, enc, heur, w, int(st.dealer[t]), st.bids[t, :2])
            # the fitting worlds come first; the fill-up after them does not fit
            assert fits == (i < fit), (t, i, fit)
    assert total_fit > 0


def test_auction_worlds_at_declaring_are_those_of_the_declarers_own_bid():
    game = Game()
    enc, heur = make_encoder(game), HeuristicAgent().setup(game)
    dealt = Game().reset(1, seed=0).dealt[0]
    first = 1
    # partner of the declarer opens 30, an opponent passes, the declarer bids 32, pass
    st = table(game, dealt, first, POINTS0, PASS)
    s = int(st.to_move[0])
    at_bid = auction_worlds(game, st, 0, s, 6, 24, heur, enc, np.random.default_rng(9))
    for a in (POINTS0 + 2, PASS):
        game.step(st, np.array([a]))
    assert int(st.phase[0]) == DECLARING and int(st.to_move[0]) == s
    at_declare = auction_worlds(game, st, 0, s, 6, 24, heur, enc, np.random.default_rng(9))
    assert np.array_equal(at_bid[0], at_declare[0]) and at_bid[1] == at_declare[1]


def test_auction_worlds_fill_up_when_no_deal_fits_a_bid_the_heuristic_never_makes():
    """The heuristic opens with the least points bid (30) or with marks, never with 35: no
    deal fits an opening 35, yet n worlds come back."""
    game = Game()
    enc, heur = make_encoder(game), HeuristicAgent().setup(game)
    dealt = Game().reset(1, seed=2).dealt[0]
    st = table(game, dealt, 0, POINTS0 + 5)  # seat 0 opens 35
    s = int(st.to_move[0])
    worlds, fit = auction_worlds(game, st, 0, s, 10, 40, heur, enc, np.random.default_rng(0))
    assert fit == 0
    assert worlds.shape == (10, 4)
    for w in worlds:
        check_world(w, s, st.hands[0, s])
        assert not heuristic_bids_as_given(game, enc, heur, w, int(st.dealer[0]), [POINTS0 + 5])
    assert len({tuple(w) for w in worlds.tolist()}) == 10  # still distinct deals


# ---------------------------------------------------------------------- SimBidder infer
def opening_and_facing_a_bid(game):
    """The same hand at seat 2 (a) opening and (b) after its right-hand opponent opened 30."""
    dealt = Game().reset(1, seed=5).dealt[0]
    opening = table(game, dealt, 2)
    facing = table(game, dealt, 1, POINTS0)
    assert int(opening.to_move[0]) == int(facing.to_move[0]) == 2
    return opening, facing, int(dealt[2])


def test_simbid_without_inference_values_the_hand_alone():
    game = Game()
    opening, facing, hand = opening_and_facing_a_bid(game)
    agent = SimBidder(worlds=2, suits=1, infer=False).setup(game)
    e1 = agent.estimates(opening.hands[[0], [2]], where_of(opening))
    e2 = agent.estimates(facing.hands[[0], [2]], where_of(facing))
    assert list(agent._cache) == [(hand,)]
    assert np.array_equal(e1, e2)
    assert agent._key(hand, where_of(facing), 0) == (hand,)
    assert agent.fitted == []


def test_simbid_with_inference_keys_the_auction_and_records_the_fit():
    game = Game()
    opening, facing, hand = opening_and_facing_a_bid(game)
    agent = SimBidder(worlds=2, suits=1, infer=True, candidates=4).setup(game)
    assert agent._key(hand, where_of(opening), 0) == (hand,)  # nothing to infer yet
    key = agent._key(hand, where_of(facing), 0)
    assert key == (hand, 2, int(facing.dealer[0]), (POINTS0,))
    e1 = agent.estimates(opening.hands[[0], [2]], where_of(opening))
    assert agent.fitted == []  # the opening estimate draws uniform deals
    e2 = agent.estimates(facing.hands[[0], [2]], where_of(facing))
    assert set(agent._cache) == {(hand,), key}
    assert len(agent.fitted) == 1 and 0 <= agent.fitted[0] <= 2
    for e in (e1, e2):  # shares of 2 worlds that fall with the need
        assert np.allclose(e * 2, np.round(e * 2)) and (np.diff(e, axis=-1) <= 0).all()
    # through act, too: another auction, another inferred estimate
    other = table(game, Game().reset(1, seed=5).dealt[0], 1, PASS)
    act_at(agent, game, other)
    assert len(agent.fitted) == 2 and len(agent._cache) == 3


# ---------------------------------------------------------------------- auction_context
def test_auction_context_of_hand_made_auctions():
    from agents.bidding.bidnet import N_CONTEXT, auction_context

    game = Game()
    dealt = Game().reset(1, seed=0).dealt[0]
    st = table(game, dealt, 3)
    ctx = auction_context(st, [0], [3])
    assert ctx.shape == (1, N_CONTEXT) and ctx.dtype == np.float32
    assert ctx[0].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]  # first to bid, nothing said
    # third to bid: the partner (first) passed, an opponent bid 32
    st = table(game, dealt, 0, PASS, POINTS0 + 2)
    assert np.allclose(auction_context(st, [0], [2])[0], [3 / 13, 1, 0, 0, 0, 0, 1, 0])
    # last to bid: an opponent bid 32, the partner passed, the other opponent passed
    st = table(game, dealt, 0, POINTS0 + 2, PASS, PASS)
    assert np.allclose(auction_context(st, [0], [3])[0], [3 / 13, 1, 0, 0, 0, 0, 0, 1])
    # opponents 31 and 1m (their highest counts, a marks bid as 42), the partner 34
    st = table(game, dealt, 0, POINTS0 + 1, POINTS0 + 4, MARKS0)
    assert np.allclose(auction_context(st, [0], [3])[0], [1, 1, 5 / 13, 1, 0, 0, 0, 1])


def test_auction_context_at_declaring_is_that_of_the_declarers_own_bid():
    from agents.bidding.bidnet import auction_context

    game = Game()
    dealt = Game().reset(1, seed=0).dealt[0]
    st = table(game, dealt, 1, POINTS0, PASS)  # seat 1 opens 30, seat 2 passes
    before = auction_context(st, [0], [3])
    assert np.allclose(before[0], [0, 0, 1 / 13, 1, 0, 0, 1, 0])
    for a in (POINTS0 + 2, PASS):  # seat 3 bids 32 and wins it
        game.step(st, np.array([a]))
    assert int(st.phase[0]) == DECLARING and int(st.to_move[0]) == 3
    assert np.array_equal(auction_context(st, [0], [3]), before)
    # the first bidder's own context stays "first, nothing said" after the auction
    assert auction_context(st, [0], [1])[0].tolist() == [0, 0, 0, 0, 1, 0, 0, 0]


# ---------------------------------------------------------------------- features, NumPy net
def test_features_put_the_context_in_the_last_columns_of_every_contract():
    from agents.bidding.bidnet import N_CONTEXT, N_FEATURES, N_HAND, features

    assert N_FEATURES == N_HAND + N_CONTEXT
    hands = Game().reset(2, seed=1).dealt.reshape(-1)
    ctx = np.random.default_rng(0).random((len(hands), N_CONTEXT)).astype(np.float32)
    f = features(hands, ctx)
    plain = features(hands)
    assert f.shape == (len(hands), len(CONTRACTS), N_FEATURES)
    for c in range(len(CONTRACTS)):
        assert np.array_equal(f[:, c, N_HAND:], ctx)
    assert np.array_equal(f[:, :, :N_HAND], plain[:, :, :N_HAND])
    assert (plain[:, :, N_HAND:] == 0).all()


def test_a_net_that_reads_the_auction_uses_the_context_and_matches_torch(torch_one_thread):
    import torch

    from agents.bidding.bidnet import N_CONTEXT, BidNetConfig, NumpyBidNet, _torch_net, features

    ck = fresh_checkpoint(context=True)
    net = NumpyBidNet("fresh", checkpoint=ck)
    assert net.uses_context
    tnet = _torch_net(BidNetConfig(**ck["net"]))
    tnet.load_state_dict(ck["model"])
    tnet.eval()
    hands = Game().reset(2, seed=7).dealt.reshape(-1)
    rng = np.random.default_rng(1)
    for n in (1, len(hands)):  # one decision (the row-sum path) and a batch
        h = hands[:n]
        ctx = rng.random((n, N_CONTEXT)).astype(np.float32)
        p, pts = net(h, ctx)
        with torch.no_grad():
            logits, mean = tnet(torch.from_numpy(features(h, ctx)))
        assert np.allclose(p, torch.sigmoid(logits).numpy(), atol=1e-5)
        assert np.allclose(pts, mean.numpy() * 42, atol=1e-4)
        assert not np.allclose(p, net(h, np.zeros_like(ctx))[0], atol=1e-6)
    # zeros are no context
    assert np.allclose(net(hands, np.zeros((len(hands), N_CONTEXT)))[0], net(hands)[0],
                       atol=1e-6)


def test_a_net_trained_without_the_auction_ignores_the_context():
    from agents.bidding.bidnet import N_CONTEXT, NumpyBidNet

    net = NumpyBidNet("fresh", checkpoint=fresh_checkpoint(context=False))
    assert not net.uses_context
    hands = Game().reset(2, seed=7).dealt.reshape(-1)
    ctx = np.random.default_rng(1).random((len(hands), N_CONTEXT)).astype(np.float32)
    assert np.array_equal(net(hands, ctx)[0], net(hands)[0])
    assert np.array_equal(net(hands[:1], ctx[:1])[0], net(hands[:1])[0])


# ---------------------------------------------------------------------- self-play outcomes
def locate(hands: np.ndarray, seed: int, first_game: int, n: int) -> list[tuple[int, int]]:
    """(table, seat) of each dealt hand among games first_game.. (hand 0 of each)."""
    dealt = Game().reset(n, seed=seed, game_ids=np.arange(first_game, first_game + n)).dealt
    where = {int(h): (t, s) for t, row in enumerate(dealt) for s, h in enumerate(row)}
    return [where[int(h)] for h in hands]


@pytest.mark.parametrize("opponents", ["self", "heuristic"])
def test_self_play_outcomes_are_consistent_and_deterministic(opponents):
    from agents.bidding.bidnet import N_CONTEXT
    from agents.training.bidnet_training import self_play_outcomes

    ck = fresh_checkpoint()
    res = self_play_outcomes(ck, 24, seed=3, first_game=10, opponents=opponents)
    n = len(res["hands"])
    assert 0 < n <= 24
    assert {k: len(v) for k, v in res.items()} == dict.fromkeys(res, n)
    assert res["context"].shape == (n, N_CONTEXT)
    assert set(res["contract"].tolist()) <= set(range(9))
    assert ((res["need"] >= 0) & (res["need"] <= 12)).all()
    assert set(res["made"].tolist()) <= {0.0, 1.0}
    ok = np.isfinite(res["predicted"])
    assert ok.any() and ((res["predicted"][ok] >= 0) & (res["predicted"][ok] <= 1)).all()
    seats = locate(res["hands"], 3, 10, 24)
    assert len(set(seats)) == n  # at most one contract per table, each a real hand
    assert len({t for t, _ in seats}) == n
    if opponents == "heuristic":  # only the learned team's contracts: table t's team t % 2
        assert all(s % 2 == t % 2 for t, s in seats)
    again = self_play_outcomes(ck, 24, seed=3, first_game=10, opponents=opponents)
    for k in res:
        assert np.array_equal(res[k], again[k], equal_nan=True), k
    other = self_play_outcomes(ck, 24, seed=3, first_game=50, opponents=opponents)
    assert not np.array_equal(res["hands"][:5], other["hands"][:5])


def test_with_every_seat_learned_both_teams_contracts_count():
    from agents.training.bidnet_training import self_play_outcomes

    res = self_play_outcomes(fresh_checkpoint(), 24, seed=3, first_game=10)
    seats = locate(res["hands"], 3, 10, 24)
    assert {(s % 2 == t % 2) for t, s in seats} == {True, False}


@pytest.mark.parametrize("opponents", ["self", "heuristic"])
def test_self_play_outcomes_price_the_play_given(opponents):
    """The net's seats play the cards as ``play``: the auctions (hands, contracts, needs,
    predictions) are the heuristic-play run's, the makes those of that play."""
    from agents.training.bidnet_training import self_play_outcomes

    ck = fresh_checkpoint()
    base = self_play_outcomes(ck, 48, seed=3, first_game=10, opponents=opponents)
    rand = self_play_outcomes(ck, 48, seed=3, first_game=10, opponents=opponents,
                              play={"name": "random", "seed": 0})
    for k in ("hands", "context", "contract", "need", "predicted"):
        assert np.array_equal(base[k], rand[k], equal_nan=True), k
    assert rand["made"].sum() < base["made"].sum()  # random card play makes fewer bids


def test_finetuning_refuses_an_unknown_play_agent():
    from agents.training.bidnet_training import FinetuneConfig
    from texas42_env.rules import ConfigError

    with pytest.raises(ConfigError, match="finetune.play"):
        FinetuneConfig(play="nosuchagent:n=1")
    assert FinetuneConfig(play="pimc:n_worlds=8").play == "pimc:n_worlds=8"


# ---------------------------------------------------------------------- fine-tuning
def test_finetuning_writes_a_net_that_reads_the_auction(tiny_net, tmp_path, torch_one_thread):
    from agents.bidding.bidnet import N_HAND, LearnedBidder, NumpyBidNet, auction_context
    from agents.training.bidnet_training import FinetuneConfig, finetune_bidnet, self_play_outcomes
    from agents.nets.checkpoint import load_checkpoint

    out = tmp_path / "ft.pt"
    seen = []
    cfg = FinetuneConfig(rounds=1, hands=64, epochs=1, anchor=0, threads=1)
    res = finetune_bidnet(tiny_net, cfg, out, lambda r, f: seen.append((r, f)))
    assert out.is_file()
    (fig,) = res["history"]
    assert seen == [(1, fig)]
    assert fig["round"] == 0 and set(fig) >= {"contracts", "made_rate", "predicted", "loss"}
    assert math.isfinite(fig["loss"])
    ck = load_checkpoint(out, require=("model", "net"))
    assert ck["context"] is True and ck["kind"] == "bidnet"
    assert ck["finetune"]["start"] == str(tiny_net) and ck["finetune"]["hands"] == 64
    assert ck["finetune_history"] == res["history"]
    net = NumpyBidNet(out)
    assert net.uses_context
    # the auction inputs started at zero and learned something
    assert (ck["model"]["trunk.0.weight"][:, N_HAND:] != 0).any()
    # round 0 played as the starting net bids: the same contracts, makes and predictions
    start = load_checkpoint(tiny_net, require=("model", "net"))
    before = self_play_outcomes(start, 64, cfg.seed + 1, 0, explore=cfg.explore)  # its own deals
    assert fig["contracts"] == len(before["made"])
    assert fig["made_rate"] == pytest.approx(float(before["made"].mean()))
    assert fig["predicted"] == pytest.approx(float(np.nanmean(before["predicted"])))
    # the fine-tuned bidder reads the auction when it bids
    game = Game()
    st = table(game, Game().reset(1, seed=0).dealt[0], 0, POINTS0, PASS)
    where = where_of(st)
    bidder = LearnedBidder(path=str(out)).setup(game)
    hands = st.hands[[0], [2]]
    assert np.array_equal(bidder.estimates(hands, where), net(hands, auction_context(*where))[0])


def test_zeroed_auction_weights_leave_the_starting_nets_chances(tiny_net):
    from agents.bidding.bidnet import N_CONTEXT, N_HAND, NumpyBidNet
    from agents.nets.checkpoint import load_checkpoint

    ck = load_checkpoint(tiny_net, require=("model", "net"))
    start = NumpyBidNet(tiny_net)
    assert not start.uses_context
    model = {k: v.clone() for k, v in ck["model"].items()}
    model["trunk.0.weight"][:, N_HAND:] = 0.0
    zeroed = NumpyBidNet("zeroed", checkpoint={**ck, "model": model, "context": True})
    assert zeroed.uses_context
    hands = Game().reset(2, seed=3).dealt.reshape(-1)
    rng = np.random.default_rng(0)
    for ctx in (np.zeros((8, N_CONTEXT)), rng.random((8, N_CONTEXT)), np.ones((8, N_CONTEXT))):
        assert np.allclose(zeroed(hands, ctx)[0], start(hands)[0], atol=1e-6)
    # while the original weights with the flag on would read the context
    reading = NumpyBidNet("reading", checkpoint={**ck, "context": True})
    assert not np.allclose(reading(hands, np.ones((8, N_CONTEXT)))[0], start(hands)[0])


def test_finetuning_with_the_dataset_anchor(tiny_net, tmp_path, torch_one_thread):
    from agents.training.bidnet_training import FinetuneConfig, finetune_bidnet

    kw = dict(rounds=1, hands=32, epochs=1, threads=1)
    free = finetune_bidnet(tiny_net, FinetuneConfig(anchor=0, **kw), tmp_path / "a.pt")
    held = finetune_bidnet(tiny_net, FinetuneConfig(anchor=0.5, **kw), tmp_path / "b.pt")
    assert (tmp_path / "b.pt").is_file()
    f, h = free["history"][0], held["history"][0]
    assert f["made_rate"] == h["made_rate"]  # round 0: the same self-play hands
    assert h["loss"] > f["loss"]  # plus the dataset's hand-value loss


@pytest.mark.parametrize("opts", [{"rounds": 0}, {"hands": True}, {"epochs": 1.5},
                                  {"batch": -4}, {"opponents": "random"}, {"explore": 1.5},
                                  {"explore": -0.1}])
def test_bad_finetune_configs_are_refused(opts):
    from agents.training.bidnet_training import FinetuneConfig

    with pytest.raises(ValueError, match=next(iter(opts))):
        FinetuneConfig(**opts)


def test_a_negative_anchor_is_refused():
    """The anchor is a loss weight: a negative one is meaningless (it silently acts as 0)."""
    from agents.training.bidnet_training import FinetuneConfig

    with pytest.raises(ValueError, match="anchor"):
        FinetuneConfig(anchor=-0.5)


def test_finetuning_refuses_checkpoints_that_are_no_bid_nets(tmp_path):
    import torch

    from agents.training.bidnet_training import FinetuneConfig, finetune_bidnet
    from agents.nets.checkpoint import CheckpointError, save_checkpoint

    other = tmp_path / "policy.pt"
    save_checkpoint(other, {"kind": "policy", "model": {"w": torch.zeros(2)},
                            "net": {"hidden": 16, "layers": 2}})
    cfg = FinetuneConfig(rounds=1, hands=8, epochs=1, anchor=0, threads=1)
    with pytest.raises(CheckpointError, match="not a bid-net"):
        finetune_bidnet(other, cfg, tmp_path / "out.pt")
    with pytest.raises(CheckpointError, match="missing.pt"):
        finetune_bidnet(tmp_path / "missing.pt", cfg, tmp_path / "out.pt")
    assert not (tmp_path / "out.pt").exists()


def test_finetuning_without_an_anchor_needs_no_training_config(tmp_path, torch_one_thread):
    """A freshly initialised net's checkpoint (as bench_bidding builds one: no "train"
    config) has no dataset; with anchor=0 none is needed."""
    from agents.training.bidnet_training import FinetuneConfig, finetune_bidnet
    from agents.bidding.bidnet import NumpyBidNet
    from agents.nets.checkpoint import save_checkpoint

    ck = fresh_checkpoint()
    start = tmp_path / "fresh.pt"
    save_checkpoint(start, {k: v for k, v in ck.items() if k not in ("format", "context")})
    finetune_bidnet(start, FinetuneConfig(rounds=1, hands=16, epochs=1, anchor=0, threads=1),
                    tmp_path / "ft.pt")
    assert NumpyBidNet(tmp_path / "ft.pt").uses_context


# ---------------------------------------------------------------------- special bids
def special(agent, game, st, curves=None):
    s = int(st.to_move[0])
    return agent._special(game, st, 0, s, st.legal[0], zero_curves() if curves is None
                          else curves)


def test_six_doubles_plunge_but_not_over_the_partner():
    """The rules of thumb (``special_worlds=0``)."""
    game = Game()
    agent = fixed_bidder(zero_curves(), special_worlds=0).setup(game)
    dealt = deal_with(SIX_DOUBLES, 2)
    st = table(game, dealt, 2)  # opening
    assert st.legal[0, PLUNGE] and special(agent, game, st) == PLUNGE
    assert act_at(agent, game, st) == PLUNGE
    st = table(game, dealt, 1, POINTS0)  # over an opponent's 30
    assert st.legal[0, PLUNGE] and special(agent, game, st) == PLUNGE
    st = table(game, dealt, 0, POINTS0, PASS)  # the partner holds the bid at 30
    assert st.legal[0, PLUNGE] and st.legal[0, PASS]
    assert special(agent, game, st) is None
    assert act_at(agent, game, st) == PASS  # zero chances: the rule passes too


def test_a_nello_hand_with_no_chances_bids_the_least_marks_when_nello_is_on():
    tiles = NELLO_TILES
    probe = HeuristicAgent().setup(Game())
    assert probe._nello_hand(T.mask_of(T.parse_tile(x) for x in tiles))
    dealt = deal_with(tiles, 2)
    game = Game()
    agent = fixed_bidder(zero_curves(), special_worlds=0).setup(game)  # the rules of thumb
    st = table(game, dealt, 2)
    assert special(agent, game, st) == MARKS0  # 1m
    assert act_at(agent, game, st) == MARKS0
    # a hand some trump makes at 30 half the time is no nello
    c = zero_curves()
    c[3, :] = 0.5
    assert special(agent, game, st, c) is None
    # not over the partner
    st = table(game, dealt, 0, POINTS0, PASS)
    assert special(agent, game, st) is None
    # with nello off the rule decides: zero chances pass
    off = Game(RulesConfig.make(nello=False))
    agent = fixed_bidder(zero_curves(), special_worlds=0).setup(off)
    st = table(off, dealt, 2)
    assert special(agent, off, st) is None
    assert act_at(agent, off, st) == PASS


# ---------------------------------------------------------------------- exploration
def test_exploring_value_bidder_bids_the_least_points_where_the_rule_passes():
    game = Game()
    # pass is worth everything: the rule passes wherever it may
    rule = dict(q_open=1.0, q_partner=1.0, q_opp=0.0, game_weight=0)
    c = zero_curves()
    c[2, :] = np.linspace(0.4, 0.1, 13)
    calm = fixed_bidder(c, **rule).setup(game)
    bold = fixed_bidder(c, explore=1.0, **rule).setup(game)
    st = game.reset(12, seed=6)
    enc = make_encoder(game)
    points_decisions = 0
    for _ in range(4):  # the whole auction, the explorer at every seat
        rows = np.flatnonzero(st.phase == BIDDING)
        seats = st.to_move[rows]
        obs = enc.encode(st, seats, idx=rows)
        ctx = Context(game, st, rows, seats)
        quiet = calm.act(obs, st.legal[rows], ctx)
        a = bold.act(obs, st.legal[rows], ctx)
        for k, t in enumerate(rows.tolist()):
            legal = st.legal[t]
            points = np.flatnonzero(legal[POINTS0:MARKS0])
            if points.size and a[k] < MARKS0:
                points_decisions += 1
                assert quiet[k] == PASS  # the rule would pass ...
                assert a[k] == POINTS0 + points[0]  # ... the explorer bids the least
                key = (int(st.game_id[t]), int(st.hand_no[t]), int(seats[k]))
                assert bold.predictions[key] == (a[k], pytest.approx(c[2, bid_need(a[k]) - 30]))
            if points.size:
                assert a[k] != PASS
        step = np.full(st.batch_size, -1, np.int64)
        step[rows] = a
        game.step(st, step)
    assert points_decisions >= 40  # 12 tables, 4 seats, a few specials aside
    assert calm.predictions == {}  # passes and special bids are not logged


def test_exploring_learned_bidder_never_passes_a_points_bid_and_logs_it():
    from agents.bidding.bidnet import LearnedBidder, NumpyBidNet

    game = Game()
    ck = fresh_checkpoint()
    agent = LearnedBidder(checkpoint=ck, explore=1.0, q_open=1.0, q_partner=1.0, q_opp=0.0,
                          game_weight=0).setup(game)
    net = NumpyBidNet("fresh", checkpoint=ck)
    st = game.reset(8, seed=2)
    for t in range(8):
        s = int(st.to_move[t])
        a = act_at(agent, game, st, t)
        assert a != PASS
        if a < MARKS0:
            assert a == POINTS0
            p = net(st.hands[[t], [s]])[0][0, :, 0].max()
            assert agent.predictions[(int(st.game_id[t]), 0, s)] == (a, pytest.approx(p))
    assert len(agent.predictions) >= 6


@pytest.mark.parametrize("explore", [-0.1, 1.01, 2, float("nan")])
def test_exploration_outside_zero_one_is_refused(explore):
    from agents.bidding.bidnet import LearnedBidder

    with pytest.raises(ValueError, match="explore"):
        fixed_bidder(zero_curves(), explore=explore)
    with pytest.raises(ValueError, match="explore"):
        LearnedBidder(checkpoint=fresh_checkpoint(), explore=explore)


# ---------------------------------------------------------------------- game_weight
@pytest.mark.parametrize("weight", [-1, -0.01, True, False, "1", None, float("nan")])
def test_bad_game_weights_are_refused(weight):
    with pytest.raises(ValueError, match="game_weight"):
        BidRule(game_weight=weight)
    with pytest.raises(ValueError, match="game_weight"):
        fixed_bidder(zero_curves(), game_weight=weight)
    with pytest.raises(ValueError, match="game_weight"):
        make_agent("simbid", game_weight=weight)


def one_contract(p_points, p_all):
    c = zero_curves()
    c[4, :12], c[4, 12] = p_points, p_all
    return c


def test_without_game_weight_the_rule_is_the_marks_difference_at_any_score():
    """Over an opponent's 30 (q_opp 0.7): pass is worth 0.3 - 0.7 = -0.4, 31 made with
    chance p is worth 2p - 1: bid 31 at p = 0.35 (-0.3), pass at p = 0.25 (-0.5)."""
    game = Game()
    dealt = Game().reset(1, seed=0).dealt[0]
    rule = BidRule(game_weight=0)
    for score in ((0, 0), (6, 0), (0, 6), (5, 6), (3, 4)):
        st = table(game, dealt, 0, POINTS0)
        s = int(st.to_move[0])
        st.score[0, s & 1], st.score[0, (s & 1) ^ 1] = score
        up, down = rule._outcomes(game, st.score[0], s & 1)
        assert (up[1], down[1], up[2], down[4]) == (1, -1, 2, -4)
        assert rule.choose(one_contract(0.35, 0), st.legal[0], st, 0, s, game) == \
            (POINTS0 + 1, pytest.approx(0.35))
        assert rule.choose(one_contract(0.25, 0), st.legal[0], st, 0, s, game)[0] == PASS


def test_a_positive_game_weight_bids_marks_when_the_opponents_need_one_mark():
    """Us 5, them 6 marks (target 7), opening: needs 30..41 make 60%, all 42 45%.
    Marks difference: pass 0, 30 0.2, 2m -0.2: bid 30. With game_weight 1 an outcome gains
    7 W[us, them]: a failed 30 loses the game as surely as a failed 2m, a made 2m wins it:
    30 = 0.6 (1 + 7 W[6, 6]) + 0.4 (-1 + 7 W[5, 7]) = 2.3,
    2m = 0.45 (2 + 7 W[7, 6]) + 0.55 (-2 + 7 W[5, 8]) = 2.95, pass = 1.75: bid 2m."""
    game = Game()
    st = table(game, Game().reset(1, seed=0).dealt[0], 0)
    s = int(st.to_move[0])
    st.score[0, s & 1], st.score[0, (s & 1) ^ 1] = 5, 6
    w = win_table(7)
    v30 = 0.6 * (1 + 7 * w[6, 6]) + 0.4 * (-1 + 7 * w[5, 7])
    v2m = 0.45 * (2 + 7 * w[7, 6]) + 0.55 * (-2 + 7 * w[5, 8])
    vpass = 0.5 * (1 + 7 * w[6, 6]) + 0.5 * (-1 + 7 * w[5, 7])
    assert (v30, v2m, vpass) == (pytest.approx(2.3), pytest.approx(2.95), pytest.approx(1.75))
    c = one_contract(0.6, 0.45)
    assert BidRule(game_weight=0).choose(c, st.legal[0], st, 0, s, game)[0] == POINTS0
    assert BidRule(game_weight=1.0).choose(c, st.legal[0], st, 0, s, game) == \
        (MARKS0 + 1, pytest.approx(0.45))
    # at 0-0 the same weight keeps the 30
    st.score[0] = 0
    assert BidRule(game_weight=1.0).choose(c, st.legal[0], st, 0, s, game)[0] == POINTS0


# ---------------------------------------------------------------------- calibration
def test_calibration_by_hand():
    from agents.arena.bidder_matches import calibration

    c = calibration([0.05, 0.15, 0.95, 0.95], [0, 1, 1, 0], bins=10)
    # |0.05 - 0| / 4 + |0.15 - 1| / 4 + 2 |0.95 - 0.5| / 4
    assert c["ece"] == pytest.approx(0.45)
    assert c["n"] == 4
    assert c["brier"] == pytest.approx((0.05 ** 2 + 0.85 ** 2 + 0.05 ** 2 + 0.95 ** 2) / 4)
    assert [r["n"] for r in c["bins"]] == [1, 1, 2]
    assert [r["bin"] for r in c["bins"]] == [[0.0, 0.1], [0.1, 0.2], [0.9, 1.0]]
    assert [r["predicted"] for r in c["bins"]] == pytest.approx([0.05, 0.15, 0.95])
    assert [r["made"] for r in c["bins"]] == pytest.approx([0.0, 1.0, 0.5])
    # the edges: 1.0 falls in the last bin, 0 in the first; fewer bins
    c = calibration([0.0, 1.0, 0.5], [0, 1, 1], bins=2)
    assert [(r["bin"], r["n"]) for r in c["bins"]] == [([0.0, 0.5], 1), ([0.5, 1.0], 2)]
    assert c["ece"] == pytest.approx(1 / 3 * 0 + 2 / 3 * abs(0.75 - 1.0))


@pytest.mark.parametrize("predicted, made", [([0.5, 0.5], [1]), ([], []), ([0.5, -0.1], [1, 0]),
                                             ([1.2], [1])])
def test_calibration_refuses_bad_input(predicted, made):
    from agents.arena.bidder_matches import calibration

    with pytest.raises(ValueError):
        calibration(predicted, made)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_calibration_refuses_a_nan_prediction():
    """NaN is no chance in [0, 1]; accepted, it is counted in n but lands in no bin."""
    from agents.arena.bidder_matches import calibration

    with pytest.raises(ValueError):
        calibration([0.5, float("nan")], [1, 0])


def test_reliability_plot_writes_a_png(tmp_path):
    from agents.arena.bidder_matches import calibration, reliability_plot

    path = tmp_path / "rel.png"
    reliability_plot({"a": calibration([0.1, 0.6, 0.9], [0, 1, 1]),
                      "b": calibration([0.3, 0.35], [1, 0])}, path)
    data = path.read_bytes()
    assert data[:8] == PNG and len(data) > 1000


# ---------------------------------------------------------------------- compare, bench
def test_compare_in_hands_mode_gives_marks_per_hand_and_calibration_pairs():
    from agents.arena.bidder_matches import compare

    r = compare({"name": "simbid", "worlds": 2}, "heuristic", deals=2, mode="hands", workers=1)
    s = r["summary"]
    est, lo, hi = s["marks_per_hand"]
    assert lo <= est <= hi
    assert "marks_per_game" not in s
    assert (r["mode"], r["deals"]) == ("hands", 2)
    assert len(r["predicted"]) == len(r["made"]) > 0
    p = np.array(r["predicted"])
    assert ((p >= 0) & (p <= 1)).all()
    assert np.allclose(p * 2, np.round(p * 2))  # shares of 2 worlds
    assert set(r["made"]) <= {0, 1}


def test_compare_in_games_mode_gives_marks_per_game():
    from agents.arena.bidder_matches import compare

    r = compare({"name": "simbid", "worlds": 2, "suits": 1}, deals=1, mode="games", workers=1)
    s = r["summary"]
    assert len(s["marks_per_game"]) == 3 and s["marks_per_game"][1] <= s["marks_per_game"][2]
    assert s["a_win_rate"][0] in (0.0, 0.5, 1.0)  # one deal pair: two games
    # a whole game: the bidder wins contracts by its rule, each paired with its outcome
    p = np.array(r["predicted"])
    assert p.size > 0 and ((p >= 0) & (p <= 1)).all() and len(r["made"]) == p.size


def test_bench_bidding_times_both_bidders():
    from agents.bench import bench_bidding

    row = bench_bidding(n=2)
    assert row["kind"] == "bidding" and row["n"] == 2 and row["bidnet"] == "untrained"
    assert row["decisions"] == 8  # each of the four seats bids once in each auction
    for name in ("sim", "learned"):
        assert row[f"{name}_median_ms"] > 0 and row[f"{name}_decisions_per_s"] > 0
    assert row["speedup"] == pytest.approx(row["sim_median_ms"] / row["learned_median_ms"])
    assert row["throughput_ratio"] == pytest.approx(row["learned_decisions_per_s"]
                                                    / row["sim_decisions_per_s"])


# ---------------------------------------------------------------------- the experiment
def load_run():
    spec = importlib.util.spec_from_file_location("bidding_lab_run",
                                                  ROOT / "experiments" / "bidding" / "run.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_experiment_writes_results_report_and_plot_and_keeps_other_parts(tiny_net,
                                                                             tmp_path):
    run = load_run()
    out = tmp_path / "lab"
    common = ["--bidnet", str(tiny_net), "--sim", "simbid:worlds=2", "--workers", "1",
              "--out", str(out)]
    assert run.main([*common, "--games-sim", "1", "--games-learned", "2",
                     "--only", "sim,learned"]) == 0
    results = json.loads((out / "results.json").read_text())
    assert set(results) == {"sim", "learned"}
    for key, spec, deals in (("sim", "simbid:worlds=2", 1),
                             ("learned", f"bidnet:path={tiny_net}", 2)):
        r = results[key]
        assert r["spec"] == spec and r["deals"] == deals and r["mode"] == "games"
        assert set(r["summary"]) >= {"marks_per_game", "marks_per_hand", "a_win_rate"}
        assert set(r["calibration"]) >= {"ece", "n", "bins", "brier"}
        assert "predicted" not in r and "made" not in r
    report = (out / "report.md").read_text()
    assert "| sim (`simbid:worlds=2`) | 1 |" in report
    assert f"| learned (`bidnet:path={tiny_net}`) | 2 |" in report
    assert (out / "reliability.png").read_bytes()[:8] == PNG
    # one part again: the other stays
    assert run.main([*common, "--games-learned", "1", "--only", "learned"]) == 0
    again = json.loads((out / "results.json").read_text())
    assert again["sim"] == results["sim"]
    assert again["learned"]["deals"] == 1
    assert "| sim (`simbid:worlds=2`) | 1 |" in (out / "report.md").read_text()


# ---------------------------------------------------------------------- the script
def train_script(*overrides, cwd):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "train_bidnet.py"),
                           *overrides], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_script_finetunes_a_net(tiny_net, tmp_path):
    from agents.bidding.bidnet import NumpyBidNet

    run = tmp_path / "ft"
    p = train_script(f"finetune.from={tiny_net}", "finetune.rounds=1", "finetune.hands=32",
                     "finetune.anchor=0", "threads=1", "progress=false",
                     f"hydra.run.dir={run}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (run / "bidnet.pt").is_file() and (run / "metrics.json").is_file()
    metrics = json.loads((run / "metrics.json").read_text())
    assert [f["round"] for f in metrics["history"]] == [0]
    assert "round 0:" in p.stdout
    assert NumpyBidNet(run / "bidnet.pt").uses_context

    missing = tmp_path / "no_such_net.pt"
    p = train_script(f"finetune.from={missing}", "progress=false",
                     f"hydra.run.dir={tmp_path / 'bad'}", cwd=tmp_path)
    assert p.returncode != 0
    assert "no_such_net.pt" in p.stderr
    assert "Traceback" not in p.stderr
    assert not (tmp_path / "bad" / "bidnet.pt").exists()


def test_passing_is_worth_the_stake_of_the_high_bid():
    """Over an opponent's 2m (q_opp 0.7, marks only): pass is worth 0.3 * 2 - 0.7 * 2 =
    -0.8; 3m with a 0.4 chance of all 42 is worth 0.4 * 3 - 0.6 * 3 = -0.6: bid 3m. (Valued
    as a one-mark hand, pass would be worth -0.4 and win.)"""
    game = Game()
    dealt = Game().reset(1, seed=0).dealt[0]
    st = table(game, dealt, 0, MARKS0 + 1)
    s = int(st.to_move[0])
    assert (int(st.high_bidder[0]) & 1) != (s & 1)
    c = one_contract(0.4, 0.4)
    assert BidRule(game_weight=0).choose(c, st.legal[0], st, 0, s, game)[0] == MARKS0 + 2
    assert BidRule(game_weight=0).choose(one_contract(0.3, 0.3), st.legal[0], st, 0, s,
                                         game)[0] == PASS


@pytest.mark.parametrize("special_worlds", [0, 16])  # by the rules of thumb, by simulation
def test_a_seat_that_bid_for_nello_declares_nello(special_worlds):
    dealt = deal_with(NELLO_TILES if special_worlds == 0 else LOWEST, 2)
    game = Game()
    agent = fixed_bidder(zero_curves(), special_worlds=special_worlds).setup(game)
    st = table(game, dealt, 2)
    a = act_at(agent, game, st)
    assert a == MARKS0 if special_worlds == 0 else a in (MARKS0, MARKS0 + 1)  # for nello
    game.step(st, np.array([a]))
    for _ in range(3):  # the others pass
        game.step(st, np.array([PASS]))
    assert int(st.phase[0]) == DECLARING and int(st.to_move[0]) == 2
    assert act_at(agent, game, st) == game.actions.contract0 + NELLO


def test_inference_is_refused_where_the_first_bidder_is_not_left_of_the_dealer():
    game = Game(RulesConfig.make(first_bidder="holder_of_1_0"))
    with pytest.raises(ValueError, match="infer=false"):
        make_agent("simbid", worlds=2).setup(game)
    make_agent("simbid", worlds=2, infer=False).setup(game)  # hand values alone: fine
