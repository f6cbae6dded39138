"""Results do not depend on the batch layout: every agent that draws at random keys
its draws by the decision (``texas42_env.sampling``: the agent's seed, the state's seed, the
game, the hand, the seat, the decision), so a seed and the deals fix a match whatever its
chunk size. Also: the keyed helpers themselves, the plain generator kept where there is no
context (``act_one``) and for the trainer, and the policy's guard that a masked choice is
legal whatever the logits (NaN and infinities included)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.arena.duplicate import play_duplicate
from agents.base import Context
from agents.cli import main
from agents.driver import act_rows
from agents.nets.checkpoint import save_checkpoint
from agents.nets.policy import NEG, ModelConfig, Policy, inverse_cdf, safe_logits
from texas42_env.core import BIDDING, DECLARING, EXCHANGING, HAND_OVER, PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import RulesConfig
from texas42_env.sampling import (decision_keys, hash_key, keyed_generator, keyed_random,
                                  keyed_uniform_legal, uniform_legal)

pytestmark = pytest.mark.usefixtures("torch_one_thread")

TINY = ModelConfig(hidden=16, layers=1, bid_hidden=16, bid_layers=1)
CHUNKS = (64, 17, 5, 1)


def fresh_checkpoint(folder) -> str:
    """A fresh, untrained policy for the standard game, saved as training saves one."""
    game = Game(RulesConfig.make())
    size = make_encoder(game).size
    torch.manual_seed(0)
    policy = Policy(size, game.n_actions, game.actions.play0, TINY)
    path = folder / "checkpoints" / "ckpt_000000.pt"
    save_checkpoint(path, {"model": {"obs_size": size, "n_actions": game.n_actions,
                                     "play0": game.actions.play0, "config": TINY.to_dict(),
                                     "critic_size": 0, "state_dict": policy.state_dict()},
                           "rules": {"ruleset": "standard", "options": {}}})
    return str(folder)


# name -> (spec builder from a work folder, deals, mode): the randomised agents, tiny settings
RANDOMISED = {
    "random": (lambda tmp: {"name": "random", "seed": 4}, 40, "games"),
    "passive": (lambda tmp: {"name": "passive", "seed": 4}, 40, "hands"),
    "neural-sampling": (lambda tmp: {"name": "neural", "path": fresh_checkpoint(tmp),
                                     "greedy": False, "seed": 4}, 40, "hands"),
    "pimc": (lambda tmp: {"name": "pimc", "n_worlds": 2, "bid_worlds": 2, "contracts": 1,
                          "seed": 4}, 10, "hands"),
    "simbid": (lambda tmp: {"name": "simbid", "worlds": 2, "candidates": 2, "seed": 4}, 12,
               "hands"),
    "bidnet-exploring": (lambda tmp: {"name": "bidnet", "explore": 0.3, "seed": 4,
                                      "path": "experiments/bidding/nets/supervised.pt"}, 12,
                         "hands"),
}


# ---------------------------------------------------------------------- matches by chunk
@pytest.mark.parametrize("name", RANDOMISED)
def test_a_match_is_the_same_whatever_its_chunk_size(name, tmp_path):
    build, deals, mode = RANDOMISED[name]
    spec = build(tmp_path)
    results = {}
    for chunk in CHUNKS:
        records: list = []
        stats = play_duplicate(RulesConfig.make(), "heuristic", make_agent(dict(spec)), deals,
                               mode=mode, seed=5, chunk=chunk, on_records=records.extend)
        results[chunk] = (stats.to_dict(), sorted(json.dumps(r, sort_keys=True)
                                                  for r in records))
    first = results[CHUNKS[0]]
    assert sum(first[0]["hands"]) >= 2 * deals
    for chunk in CHUNKS[1:]:
        assert results[chunk][0] == first[0], f"{name}: chunk {chunk} moved the figures"
        assert results[chunk][1] == first[1], f"{name}: chunk {chunk} moved the records"


def test_texas42_match_prints_the_same_for_every_chunk(capsys):
    outs = set()
    for chunk in (1024, 250, 100, 7):
        code = main(["match", "heuristic", "random", "--deals", "300", "--seed", "3",
                     "--chunk", str(chunk), "--quiet"])
        out, _ = capsys.readouterr()
        assert code == 0 and "marks per hand" in out
        outs.add(out)
    assert len(outs) == 1, outs


def test_the_same_seed_and_deals_with_another_agent_seed_play_otherwise():
    rules = RulesConfig.make()
    a = play_duplicate(rules, "heuristic", make_agent("random", seed=1), 40, seed=5)
    b = play_duplicate(rules, "heuristic", make_agent("random", seed=2), 40, seed=5)
    c = play_duplicate(rules, "heuristic", make_agent("random", seed=1), 40, seed=6)
    assert a.to_dict() != b.to_dict() and a.to_dict() != c.to_dict()


# ---------------------------------------------------------------------- the keyed helpers
def test_decision_keys_name_the_decision_not_the_row():
    game = Game(RulesConfig.make())
    st = game.reset(8, seed=3)
    seats = st.to_move.copy()
    keys = decision_keys(st, np.arange(8), seats, (7, 1))
    assert len(set(keys.tolist())) == 8  # eight games: eight keys
    back = decision_keys(st, np.arange(8)[::-1], seats[::-1], (7, 1))
    assert np.array_equal(back, keys[::-1])  # a row's key does not depend on its position
    assert not np.array_equal(decision_keys(st, np.arange(8), seats, (8, 1)), keys)  # salt
    assert not np.array_equal(decision_keys(st, np.arange(8), (seats + 1) % 4, (7, 1)), keys)
    other = game.reset(8, seed=4)  # another deal seed, the same game ids
    assert not np.array_equal(decision_keys(other, np.arange(8), other.to_move, (7, 1)), keys)



@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_every_decision_of_a_hand_has_a_key_of_its_own(ruleset):
    play_out = Game(RulesConfig.make(ruleset, play_out=True))
    st = play_out.reset(8, seed=3)
    seen, asked = {}, 0
    while (st.phase < HAND_OVER).any():  # every decision of a hand: a key of its own
        rows = np.flatnonzero(st.phase < HAND_OVER)
        asked += rows.size
        for t, k in zip(rows.tolist(), decision_keys(st, rows, st.to_move[rows], 0).tolist()):
            assert k not in seen, f"table {t}: a decision repeats key of {seen[k]}"
            seen[k] = (t, int(st.phase[t]))
        a = np.full(8, -1, np.int64)
        a[rows] = keyed_uniform_legal(st.legal[rows], np.arange(rows.size, dtype=np.uint64))
        play_out.step(st, a)
    full = play_out.n_seats * play_out.n_tricks
    assert len(seen) == asked and (st.n_plays == full).sum() >= 4  # hands played to the end
    if ruleset == "six-player":
        assert {p for _, p in seen.values()} >= {BIDDING, DECLARING, EXCHANGING, PLAYING}


def test_keyed_random_is_fixed_by_the_key_and_spread_over_zero_one():
    keys = hash_key(np.arange(20000), 9)
    u = keyed_random(keys)
    assert u.shape == (20000,) and u.min() >= 0.0 and u.max() < 1.0
    assert np.array_equal(keyed_random(keys[::-1]), u[::-1])
    hist = np.histogram(u, bins=10, range=(0, 1))[0]
    assert (abs(hist - 2000) < 150).all(), hist
    many = keyed_random(keys[:5], 3)
    assert many.shape == (5, 3) and np.array_equal(many[:, 0], u[:5])
    assert np.array_equal(keyed_random(keys[:5], 1)[:, 0], u[:5])
    assert hash_key(-1) == hash_key(2**64 - 1)  # ints mod 2**64
    assert hash_key((1, 2), 3) == hash_key(1, 2, 3) != hash_key(1, 3, 2)
    g1, g2 = keyed_generator(keys[0]), keyed_generator(keys[0])
    assert g1.random() == g2.random()


def test_keyed_uniform_legal_is_legal_uniform_and_row_by_row():
    rng = np.random.default_rng(0)
    masks = rng.random((3000, 200)) < 0.05
    masks[:, 130] = True  # every row has a legal action past the second 64-bit word
    masks[7] = False  # no legal action
    keys = hash_key(np.arange(3000), 1)
    a = keyed_uniform_legal(masks, keys)
    assert a[7] == -1
    ok = np.delete(np.arange(3000), 7)
    assert masks[ok, a[ok]].all()
    alone = [int(keyed_uniform_legal(masks[i:i + 1], keys[i:i + 1])[0]) for i in range(50)]
    assert alone == a[:50].tolist()
    # one mask, many keys: every legal action about equally often
    one = np.zeros((40000, 70), bool)
    one[:, [0, 5, 63, 64, 69]] = True
    got = keyed_uniform_legal(one, hash_key(np.arange(40000), 2))
    counts = np.bincount(got, minlength=70)[[0, 5, 63, 64, 69]]
    assert counts.sum() == 40000 and (abs(counts - 8000) < 400).all(), counts


def test_uniform_legal_still_draws_as_the_trainer_expects():
    """The generator path (training's random opponents) is unchanged: the k-th legal action
    of each row for k = floor(u * n), u one draw per row after packing."""
    rng = np.random.default_rng(1)
    masks = rng.random((500, 140)) < 0.1
    masks[:, 3] = True
    got = uniform_legal(masks, np.random.default_rng(9))
    u = np.random.default_rng(9).random(500)
    want = [np.flatnonzero(m)[int(x * m.sum())] for m, x in zip(masks, u)]
    assert got.tolist() == want
    one = np.random.default_rng(9)
    assert uniform_legal(masks[:1], one)[0] == np.flatnonzero(masks[0])[
        np.random.default_rng(9).integers(masks[0].sum())]


# ---------------------------------------------------------------------- with and without a context
class NoEncoding:
    """An encoder that refuses to encode: an agent that does not read observations must not
    make the driver build them."""

    def encode(self, *args, **kwargs):
        raise AssertionError("the observations were built for an agent that does not read them")


@pytest.mark.parametrize("name", ["random", "passive"])
def test_the_driver_keys_the_yardsticks_without_building_observations(name):
    game = Game(RulesConfig.make())
    st = game.reset(30, seed=2)
    agent = make_agent(name, seed=5).setup(game)
    rows = np.arange(30)
    got = act_rows(game, st, agent, rows, NoEncoding())
    assert st.legal[rows, got].all()
    keyed = keyed_uniform_legal(st.legal, decision_keys(st, rows, st.to_move, (5, 1)))
    if name == "random":
        assert np.array_equal(got, keyed)
    else:  # passive passes where it may
        assert (got[st.legal[:, 0]] == 0).all()
    parts = np.concatenate([act_rows(game, st, agent, rows[i::3], NoEncoding())
                            for i in range(3)])
    assert np.array_equal(parts, np.concatenate([got[i::3] for i in range(3)]))


def test_without_a_context_the_yardstick_uses_its_own_seeded_generator():
    game = Game(RulesConfig.make())
    st = game.reset(20, seed=2)
    assert (st.phase == BIDDING).all()
    agent = make_agent("random", seed=5).setup(game)
    got = [agent.act_one(None, st.legal[t]) for t in range(20)]
    rng = np.random.default_rng(5)
    want = [int(uniform_legal(st.legal[t:t + 1], rng)[0]) for t in range(20)]
    assert got == want
    ctx = Context(game, st, np.arange(20), st.to_move.copy())
    assert agent.act(None, st.legal, ctx).tolist() == keyed_uniform_legal(
        st.legal, decision_keys(st, np.arange(20), st.to_move, (5, 1))).tolist()


# ---------------------------------------------------------------------- the policy's guard
def tiny_policy(game: Game, seed: int = 0) -> Policy:
    torch.manual_seed(seed)
    return Policy(make_encoder(game).size, game.n_actions, game.actions.play0, TINY)


def bidding_inputs(game: Game, n: int = 16):
    st = game.reset(n, seed=1)
    return make_encoder(game).encode(st, st.to_move), st.legal.copy()


def set_bid_bias(policy: Policy, values) -> None:
    """Every bid net logit forced to ``values`` (the weights zeroed, the bias set)."""
    with torch.no_grad():
        policy.bid.logits.weight.zero_()
        policy.bid.logits.bias.copy_(torch.as_tensor(values, dtype=torch.float32))


MODES = {"greedy": dict(greedy=True), "generator": dict(generator=torch.Generator()),
         "keyed": dict(uniforms=np.linspace(0, 0.999, 16))}


@pytest.mark.parametrize("mode", MODES)
def test_all_nan_logits_still_choose_the_first_legal_action(mode):
    game = Game(RulesConfig.make())
    policy = tiny_policy(game)
    obs, masks = bidding_inputs(game)
    set_bid_bias(policy, torch.full((game.n_actions,), float("nan")))
    kw = dict(MODES[mode])
    if "generator" in kw:
        kw["generator"] = torch.Generator().manual_seed(0)
    actions, logp, _ = policy.act(obs, masks, **kw)
    assert actions.tolist() == np.argmax(masks, axis=1).tolist()
    assert (logp == 0).all()  # all the probability on that one action
    nan_obs = np.full_like(obs, np.nan)  # a NaN observation: every logit NaN
    actions, _, _ = policy.act(nan_obs, masks, **kw)
    assert actions.tolist() == np.argmax(masks, axis=1).tolist()


@pytest.mark.parametrize("mode", MODES)
def test_infinite_and_huge_logits_never_pick_an_illegal_action(mode):
    game = Game(RulesConfig.make())
    policy = tiny_policy(game)
    obs, masks = bidding_inputs(game)
    legal = np.flatnonzero(masks.any(0))
    kw = dict(MODES[mode])
    if "generator" in kw:
        kw["generator"] = torch.Generator().manual_seed(0)
    # +inf on two actions, one of them illegal everywhere: the legal +inf one is taken
    never = int(np.flatnonzero(~masks.any(0))[0])
    bias = torch.zeros(game.n_actions)
    bias[[int(legal[1]), never]] = float("inf")
    set_bid_bias(policy, bias)
    actions, _, _ = policy.act(obs, masks, **kw)
    has = masks[:, legal[1]]
    assert has.sum() >= 8
    assert (actions[has] == legal[1]).all() and masks[np.arange(16), actions].all()
    # every logit far below the illegal ones' NEG: still only legal actions
    set_bid_bias(policy, torch.full((game.n_actions,), 1e3 * NEG))
    actions, _, _ = policy.act(obs, masks, **kw)
    assert masks[np.arange(16), actions].all()
    # -inf on the first legal action, NaN on the second: another legal, finite one
    bias = torch.zeros(game.n_actions)
    bias[int(legal[0])], bias[int(legal[1])] = -float("inf"), float("nan")
    set_bid_bias(policy, bias)
    actions, _, _ = policy.act(obs, masks, **kw)
    assert masks[np.arange(16), actions].all()
    assert not np.isin(actions[has & masks[:, legal[0]]], legal[:2]).any()


def test_safe_logits_leaves_finite_rows_untouched():
    logits = torch.tensor([[0.5, NEG, -2.0], [float("nan"), 1.0, NEG]])
    mask = torch.tensor([[True, False, True], [True, True, False]])
    out = safe_logits(logits, mask)
    assert torch.equal(out[0], logits[0])
    assert out[1].tolist() == [-float("inf"), 1.0, -float("inf")]
    fine = logits[:1]
    assert safe_logits(fine, mask[:1]) is fine  # nothing to guard: the very tensor back


def test_keyed_sampling_follows_the_policys_probabilities():
    game = Game(RulesConfig.make())
    policy = tiny_policy(game)
    obs, masks = bidding_inputs(game, 1)
    bias = torch.zeros(game.n_actions)
    legal = np.flatnonzero(masks[0])
    bias[legal] = torch.linspace(0.0, 2.0, legal.size)
    set_bid_bias(policy, bias)
    n = 20000
    u = keyed_random(hash_key(np.arange(n), 3))
    actions, _, _ = policy.act(np.repeat(obs, n, 0), np.repeat(masks, n, 0), uniforms=u)
    p = torch.softmax(bias[legal], 0).numpy()
    freq = np.bincount(actions, minlength=game.n_actions)[legal] / n
    assert np.abs(freq - p).max() < 0.015, (freq, p)
    assert np.isin(actions, legal).all()


def test_inverse_cdf_stays_on_actions_with_probability():
    probs = np.array([[0.0, 0.5, 0.0, 0.5, 0.0], [0.2, 0.0, 0.0, 0.0, 0.8],
                      [np.nan, np.nan, 0.0, 0.0, 0.0]])
    masks = np.array([[1, 1, 1, 1, 0], [1, 0, 0, 1, 1], [0, 1, 1, 0, 0]], bool)
    assert inverse_cdf(probs, masks, np.array([0.0, 0.0, 0.5])).tolist() == [1, 0, 1]
    top = np.nextafter(1.0, 0.0)  # the largest uniform below 1
    assert inverse_cdf(probs, masks, np.array([top, top, top])).tolist() == [3, 4, 1]
    assert inverse_cdf(probs, masks, np.array([0.49, 0.21, 0.0])).tolist() == [1, 4, 1]


def test_the_trainers_generator_path_samples_as_before():
    """With a generator (the trainer's rollouts), ``act`` draws ``torch.multinomial`` on the
    masked softmax exactly as before keyed draws (the guard changes no finite row)."""
    game = Game(RulesConfig.make())
    policy = tiny_policy(game, seed=2)
    obs, masks = bidding_inputs(game, 64)
    actions, logp, _ = policy.act(obs, masks, torch.Generator().manual_seed(11))
    with torch.no_grad():
        logits, _ = policy.bid(torch.from_numpy(obs), torch.from_numpy(masks))
        lp = torch.log_softmax(logits, -1)
        want = torch.multinomial(lp.exp(), 1, generator=torch.Generator().manual_seed(11))
    assert actions.tolist() == want.squeeze(-1).tolist()
    assert np.array_equal(logp, lp.gather(1, want).squeeze(-1).numpy())
