"""The bidding and play nets (agents/nets/policy.py): masks, greedy and sampled actions, the split."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nets.policy import NEG, ModelConfig, Policy, with_ranking
from texas42_env.actions import PLAY
from texas42_env.core import HAND_OVER, PLAYING, Game
from texas42_env.actions import NO_ACTION
from texas42_env.observation import make_encoder
from texas42_env.rules import RulesConfig

TINY = ModelConfig(hidden=32, layers=2, bid_hidden=32, bid_layers=1)


pytestmark = pytest.mark.usefixtures("torch_one_thread")


def make_policy(game: Game, config: ModelConfig = TINY, seed: int = 0,
                critic_size: int = 0) -> Policy:
    torch.manual_seed(seed)
    return Policy(make_encoder(game).size, game.n_actions, game.actions.play0, config,
                  critic_size)


def sharpen(policy: Policy, seed: int = 0) -> None:
    """Large random output layers, so the unmasked argmax is often an illegal action."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for net in (policy.bid, policy.play):
            net.logits.weight.copy_(torch.randn(net.logits.weight.shape, generator=g))
            net.logits.bias.copy_(3 * torch.randn(net.logits.bias.shape, generator=g))


def random_masks(rng: np.random.Generator, n: int, n_actions: int, play0: int) -> np.ndarray:
    """Bidding rows (legal actions below play0), play rows (at or above) and a few rows
    with legal actions anywhere; every row has at least one legal action."""
    masks = rng.random((n, n_actions)) < rng.uniform(0.02, 0.5, size=(n, 1))
    kind = rng.integers(3, size=n)
    masks[kind == 0, play0:] = False
    masks[kind == 1, :play0] = False
    empty = ~masks.any(1)
    lo = np.where(kind == 1, play0, 0)
    hi = np.where(kind == 0, play0, n_actions)
    masks[np.flatnonzero(empty), rng.integers(lo, hi)[empty]] = True
    return masks


def collect_decisions(game: Game, tables: int, seed: int, policy: Policy | None = None,
                      rng_seed: int = 0):
    """Play ``tables`` hands to the end (the policy samples, or uniform random actions);
    returns every decision's observation, mask, phase and the action taken."""
    enc = make_encoder(game)
    st = game.reset(tables, seed=seed)
    rng = np.random.default_rng(rng_seed)
    gen = torch.Generator().manual_seed(rng_seed)
    obs, masks, phases, taken = [], [], [], []
    while True:
        rows = np.flatnonzero(st.phase < HAND_OVER)
        if rows.size == 0:
            break
        o = enc.encode(st, st.to_move[rows], idx=rows)
        m = st.legal[rows].copy()
        if policy is not None:
            a, _, _ = policy.act(o, m, gen)
        else:
            a = np.array([rng.choice(np.flatnonzero(row)) for row in m])
        obs.append(o)
        masks.append(m)
        phases.append(st.phase[rows].copy())
        taken.append(a)
        actions = np.full(tables, NO_ACTION, np.int64)
        actions[rows] = a
        game.step(st, actions)  # raises IllegalActionError on an illegal action
    return (np.concatenate(obs), np.concatenate(masks), np.concatenate(phases),
            np.concatenate(taken))


def test_model_config_rejects_bad_sizes_and_critics():
    with pytest.raises(ValueError, match="model.critic"):
        ModelConfig(critic="oracle")
    with pytest.raises(ValueError, match="model.hidden"):
        ModelConfig(hidden=0)
    with pytest.raises(ValueError, match="model.bid_layers"):
        ModelConfig(bid_layers=0)
    assert ModelConfig(hidden=8).to_dict()["hidden"] == 8


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_act_never_picks_an_illegal_action_on_random_masks(ruleset):
    game = Game(RulesConfig.make(ruleset))
    policy = make_policy(game)
    sharpen(policy)
    rng = np.random.default_rng(7)
    gen = torch.Generator().manual_seed(7)
    size = make_encoder(game).size
    for _ in range(5):
        masks = random_masks(rng, 400, game.n_actions, game.actions.play0)
        obs = rng.normal(size=(400, size)).astype(np.float32)
        for greedy in (False, True):
            actions, logp, _ = policy.act(obs, masks, gen, greedy=greedy)
            assert actions.shape == (400,)
            assert masks[np.arange(400), actions].all()
            assert np.isfinite(logp).all() and (logp <= 1e-6).all()


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_a_sampling_policy_plays_whole_hands_legally(ruleset):
    game = Game(RulesConfig.make(ruleset))
    policy = make_policy(game, seed=3)
    sharpen(policy, seed=3)
    obs, masks, phases, taken = collect_decisions(game, 48, seed=11, policy=policy)
    assert masks[np.arange(len(taken)), taken].all()
    assert (phases == PLAYING).sum() > 0 and (phases != PLAYING).sum() > 0


def test_greedy_picks_the_likeliest_legal_action():
    game = Game(RulesConfig.make())
    policy = make_policy(game)
    sharpen(policy)
    obs, masks, _, _ = collect_decisions(game, 32, seed=5)
    actions, logp, _ = policy.act(obs, masks, greedy=True)
    play = masks[:, game.actions.play0:].any(1)
    raw = np.zeros(masks.shape, np.float32)
    with torch.no_grad():
        for net, rows in ((policy.play, play), (policy.bid, ~play)):
            raw[rows] = net.logits(net.trunk(torch.from_numpy(obs[rows]))).numpy()
    legal_best = np.where(masks, raw, -np.inf).argmax(1)
    assert np.array_equal(actions, legal_best)
    # the check has teeth: the unmasked argmax is illegal at many decisions
    assert (~masks[np.arange(len(masks)), raw.argmax(1)]).mean() > 0.3
    # and its log-probability is the largest of the row
    lp = torch.log_softmax(torch.from_numpy(np.where(masks, raw, -np.inf)), -1).numpy()
    np.testing.assert_allclose(logp, lp[np.arange(len(lp)), actions], atol=1e-4)
    np.testing.assert_allclose(logp, lp.max(1), atol=1e-4)


def test_illegal_actions_have_zero_probability():
    game = Game(RulesConfig.make())
    policy = make_policy(game)
    sharpen(policy)
    obs, masks, _, _ = collect_decisions(game, 32, seed=6)
    for net in (policy.bid, policy.play):
        with torch.no_grad():
            logits, _ = net(torch.from_numpy(obs), torch.from_numpy(masks))
        lp = torch.log_softmax(logits, -1)
        p = lp.exp()
        m = torch.from_numpy(masks)
        assert (logits[~m] == NEG).all()
        assert (lp[~m] < -1e8).all()
        assert (p[~m] == 0).all()
        torch.testing.assert_close(p.sum(-1), torch.ones(len(masks)))


def test_sampling_follows_the_masked_probabilities():
    game = Game(RulesConfig.make())
    policy = make_policy(game)
    sharpen(policy)
    size = make_encoder(game).size
    obs = np.repeat(np.random.default_rng(1).normal(size=(1, size)).astype(np.float32), 4000, 0)
    mask = np.zeros(game.n_actions, bool)
    mask[[game.actions.play0 + 2, game.actions.play0 + 9, game.actions.play0 + 20]] = True
    masks = np.repeat(mask[None], 4000, 0)
    gen = torch.Generator().manual_seed(0)
    actions, logp, _ = policy.act(obs, masks, gen)
    with torch.no_grad():
        logits, _ = policy.play(torch.from_numpy(obs[:1]), torch.from_numpy(masks[:1]))
    p = torch.softmax(logits, -1)[0].numpy()
    freq = np.bincount(actions, minlength=game.n_actions) / len(actions)
    assert set(np.flatnonzero(freq)) <= set(np.flatnonzero(mask))
    np.testing.assert_allclose(freq[mask], p[mask], atol=0.03)
    np.testing.assert_allclose(np.exp(logp), p[actions], rtol=1e-4)


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_play_decisions_go_to_the_play_net_and_the_rest_to_the_bidding_net(ruleset):
    game = Game(RulesConfig.make(ruleset))
    play0 = game.actions.play0
    assert (game.actions.kind[play0:] == PLAY).all() and (game.actions.kind[:play0] != PLAY).all()
    policy = make_policy(game)
    obs, masks, phases, _ = collect_decisions(game, 24, seed=2)
    is_play = np.asarray(policy.is_play(masks))
    assert np.array_equal(is_play, phases == PLAYING)
    # a play decision's legal actions are tiles only, any other decision's none
    assert not masks[is_play, :play0].any() and not masks[~is_play, play0:].any()
    seen = {}
    hooks = [net.register_forward_hook(lambda mod, args, out, name=name:
                                       seen.setdefault(name, []).append(args[0].clone()))
             for name, net in (("play", policy.play), ("bid", policy.bid))]
    try:
        policy.act(obs, masks)
    finally:
        for h in hooks:
            h.remove()
    assert len(seen["play"]) == 1 and len(seen["bid"]) == 1
    torch.testing.assert_close(seen["play"][0], torch.from_numpy(obs[is_play]))
    torch.testing.assert_close(seen["bid"][0], torch.from_numpy(obs[~is_play]))


def test_a_batch_of_only_bids_never_calls_the_play_net():
    game = Game(RulesConfig.make())
    policy = make_policy(game)
    calls = []
    h = policy.play.register_forward_hook(lambda *a: calls.append(1))
    masks = np.zeros((3, game.n_actions), bool)
    masks[:, :5] = True
    obs = np.zeros((3, make_encoder(game).size), np.float32)
    actions, _, _ = policy.act(obs, masks)
    h.remove()
    assert not calls and (actions < 5).all()


def test_perfect_critic_reads_its_own_view_and_leaves_the_policy_alone():
    game = Game(RulesConfig.make())
    critic_size = make_encoder(game, "perfect").size
    policy = make_policy(game, ModelConfig(hidden=16, bid_hidden=16, critic="perfect"),
                         critic_size=critic_size)
    assert policy.play.critic_size == critic_size and not hasattr(policy.play, "value_head")
    obs, masks, _, _ = collect_decisions(game, 8, seed=4)
    rng = np.random.default_rng(0)
    c1 = rng.normal(size=(len(obs), critic_size)).astype(np.float32)
    c2 = rng.normal(size=(len(obs), critic_size)).astype(np.float32)
    a1, lp1, v1 = policy.act(obs, masks, greedy=True, critic_obs=c1)
    a2, lp2, v2 = policy.act(obs, masks, greedy=True, critic_obs=c2)
    assert np.array_equal(a1, a2) and np.array_equal(lp1, lp2)
    assert not np.allclose(v1, v2)
    # without the perfect view, the values are zeros (agents acting in a match never have it)
    _, _, v0 = policy.act(obs, masks, greedy=True)
    assert (v0 == 0).all()


def test_log_probs_are_the_distribution_act_draws_from():
    game = Game(RulesConfig.make())
    policy = make_policy(game)
    sharpen(policy)
    obs, masks, _, _ = collect_decisions(game, 32, seed=7)
    lp = policy.log_probs(obs, masks)
    assert (lp[~masks] == -np.inf).all()
    np.testing.assert_allclose(np.exp(lp).sum(1), 1, atol=1e-5)
    actions, logp, _ = policy.act(obs, masks, greedy=True)
    assert np.array_equal(actions, lp.argmax(1))
    np.testing.assert_allclose(logp, lp[np.arange(len(lp)), actions], atol=1e-6)


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_a_ranking_head_added_to_a_net_plays_as_it_did_until_trained(ruleset):
    game = Game(RulesConfig.make(ruleset))
    policy = make_policy(game)
    sharpen(policy)
    obs, masks, _, _ = collect_decisions(game, 24, seed=5)
    grown = with_ranking(policy, 16, game)
    assert grown.config.ranking == 16 and policy.config.ranking == 0
    assert np.array_equal(grown.log_probs(obs, masks), policy.log_probs(obs, masks))
    assert with_ranking(grown, 16, game) is grown
    with pytest.raises(ValueError, match="16 units already"):
        with_ranking(grown, 8, game)
    # a trained head moves the play logits only: the bids stay as they were
    with torch.no_grad():
        grown.play.rank_out.weight.normal_(generator=torch.Generator().manual_seed(1))
    after = grown.log_probs(obs, masks)
    play = grown.is_play(masks)
    assert np.array_equal(after[~play], policy.log_probs(obs, masks)[~play])
    assert not np.allclose(after[play], policy.log_probs(obs, masks)[play])
    # and every action it picks is legal
    actions, _, _ = grown.act(obs, masks, greedy=True)
    assert masks[np.arange(len(masks)), actions].all()


def test_a_ranking_head_needs_the_game():
    game = Game(RulesConfig.make())
    with pytest.raises(ValueError, match="needs the game"):
        make_policy(game, ModelConfig(hidden=32, layers=1, bid_hidden=16, bid_layers=1,
                                      ranking=8))
    with pytest.raises(ValueError, match="ranking"):
        ModelConfig(ranking=-1)
