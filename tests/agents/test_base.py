"""Conformance of every registered agent to the ``Agent`` interface (``agents/base.py``).

One suite for all agents, as an environment library runs one API test over every
environment: each test is parametrised over ``sorted(agents.REGISTRY)`` and over the rulesets
the agent plays (its ``rulesets``), so a newly registered agent is tested with no change here
as long as it can be built. ``BUILD`` says how to build the agents that need options or a file
(small search settings, each committed bid net, a fresh untrained checkpoint saved as training
saves one); an agent missing from ``BUILD`` is built with no arguments, and its tests fail,
naming ``BUILD``, where that does not work.

The properties, each a test function:

1. ``test_only_legal_actions_in_every_phase``: whole hands at two sets of tables (two deal
   seeds, the second with ``play_out``), every seat the agent under test, asked at every
   decision as the arena asks (observations where ``needs_observation``, and a ``Context``,
   which the driver gives every agent). Each answer is an integer NumPy array of one action
   per row, legal under its row's mask, and the call leaves its inputs (observations, masks,
   the state) as they were. Most tables follow a script in the auction (which bid, which
   contract) so that every contract of the ruleset (nello and sevens on), plunge, splash and
   six-player mark bids are reached and then played by the agent; the agent is still asked
   at every scripted decision and its answer checked, only not applied. Every phase (bid,
   declare, play; the exchange in six-player) and every contract must have been put to the
   agent.
2. ``test_same_seed_same_actions``: two agents built the same way give the same actions over
   the same hands.
3. ``test_a_batch_equals_its_rows_one_at_a_time``: for the agents that are deterministic
   given their inputs, the actions for a batch of positions equal those for each position
   asked alone (rows in reverse order, by a second agent built the same way), over whole
   hands. Agents that draw at random key their draws by the decision, so this
   holds for them too; an agent whose answers draw on a generator consumed row by row would
   be left out, with its reason, in ``BATCH_DEPENDENT`` (empty now;
   ``test_the_exclusions_name_registered_agents`` keeps that list, ``BUILD`` and
   ``RULESETS_OF`` to registered names), and
   ``test_a_batch_dependent_agent_fails_the_batch_check`` shows the check catches one.
4. ``test_hidden_tiles_do_not_change_the_actions``: a seat acts only on what it may know. Two
   deals differ only in tiles swapped between two hands (one tile each way, or the whole
   hands); the same public history is played in both (the swapped seats pass in the auction
   where they may and otherwise take actions legal in both deals; a table whose deals allow
   no common action leaves the check), and at every decision of the other seats, in the
   auction and in the play, two agents built the same way, one per deal, agree. It is run for
   every agent: a search agent's ``Context`` holds the whole state, but such an agent "may use
   only what that seat may know".
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from agents import REGISTRY, make_agent
from agents.base import Agent, Context
from texas42_env import tiles as T
from texas42_env.actions import MARKS0, NO_ACTION, PASS, PLUNGE, POINTS0, SIX_LEVELS, \
    SIX_TRUMPS, SPLASH
from texas42_env.core import (BIDDING, DECLARING, EXCHANGING, HAND_OVER, PHASE_NAMES, PLAYING,
                              Game)
from texas42_env.observation import make_encoder
from texas42_env.rules import CONTRACT_NAMES, DOUBLES, FOLLOW_ME, NELLO, SEVENS, RulesConfig
from texas42_env.sampling import uniform_legal

from helpers import ROOT

NETS_DIR = ROOT / "experiments" / "bidding" / "nets"
NETS = sorted(NETS_DIR.glob("*.pt"))  # the committed bid nets
RULESETS = ("standard", "six-player")


# ---------------------------------------------------------------------- building the agents
def _neural(tmp: Path, ruleset: str, greedy: bool = True):
    """A fresh, untrained policy saved the way training saves one (``Trainer.state_dict``
    through ``save_checkpoint``), loaded from its run folder; ``greedy=False``: sampling."""
    import torch

    run = tmp / f"neural-{ruleset}"
    path = run / "checkpoints" / "ckpt_000000.pt"
    if not path.exists():
        from agents.nets import checkpoint, policy as nets
        from agents.training import ppo
        before = torch.get_rng_state()  # the trainer seeds torch's global generator
        trainer = ppo.Trainer(RulesConfig.make(ruleset),
                              nets.ModelConfig(hidden=32, layers=1, bid_hidden=32, bid_layers=1),
                              ppo.PPOConfig(tables=8, minibatch=8, epochs=1),
                              ppo.OpponentsConfig(self_play=1, pool=0, heuristic=0),
                              seed=0, updates=1)
        checkpoint.save_checkpoint(path, trainer.state_dict())
        torch.set_rng_state(before)
    return make_agent("neural", path=str(run)) if greedy else \
        make_agent("neural", path=str(run), greedy=False, seed=3)


def _bidnet(net: Path):
    return lambda tmp, ruleset: make_agent("bidnet", path=str(net))


def _no_nets(tmp, ruleset):
    pytest.fail(f"no committed bid nets under {NETS_DIR}: bidnet is built from them")


# name -> {variant: build(workdir, ruleset) -> a fresh agent}; ``workdir`` is a temporary
# folder for files an agent needs. Agents not named here are built with no arguments. The
# search agents get small settings (few worlds) to stay fast.
BUILD: dict[str, dict[str, Callable]] = {
    "random": {"seed3": lambda tmp, ruleset: make_agent("random", seed=3)},
    "passive": {"seed3": lambda tmp, ruleset: make_agent("passive", seed=3)},
    "heuristic": {"default": lambda tmp, ruleset: make_agent("heuristic")},
    "pimc": {"2worlds": lambda tmp, ruleset: make_agent("pimc", n_worlds=2, bid_worlds=1,
                                                         contracts=1, seed=1),
             "2worlds-fit": lambda tmp, ruleset: make_agent("pimc", n_worlds=2, bid_worlds=1,
                                                             contracts=1, bid_model="heuristic",
                                                             seed=1)},
    "simbid": {"2worlds": lambda tmp, ruleset: make_agent("simbid", worlds=2, candidates=2,
                                                           seed=1)},
    "bidnet": {net.stem: _bidnet(net) for net in NETS} or {"missing": _no_nets},
    "neural": {"untrained": _neural,
               "untrained-sampling": lambda tmp, ruleset: _neural(tmp, ruleset, greedy=False)},
}

# Rulesets of agents registered as factories (their class, which says it, is not at hand
# before one is built); checked against the built agent's ``rulesets``.
RULESETS_OF = {"neural": RULESETS}

# Agents whose action for a row depends on the other rows of the call or on earlier calls,
# so a batch need not equal its rows asked one at a time (property 3 is not run for them).
# None now: random, passive, pimc and simbid key their draws by the decision.
BATCH_DEPENDENT: dict[str, str] = {}


def _variants(name: str) -> dict[str, Callable | None]:
    return BUILD.get(name, {"no-arguments": None})


def _rulesets(name: str) -> tuple[str, ...]:
    target = REGISTRY[name]
    if name in RULESETS_OF:
        return tuple(RULESETS_OF[name])
    if inspect.isclass(target):
        return tuple(target.rulesets)
    return RULESETS  # a factory not in RULESETS_OF: every ruleset, checked once built


def _params(exclude=()) -> list:
    return [pytest.param(name, variant, ruleset, id=f"{name}[{variant}]-{ruleset}")
            for name in sorted(REGISTRY) if name not in exclude
            for variant in _variants(name) for ruleset in _rulesets(name)]


AGENT_PARAMS = _params()
ARGS = "name,variant,ruleset"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """Files the agents are built from (a checkpoint), made once for the module."""
    return tmp_path_factory.mktemp("conformance")


def build(name: str, variant: str, ruleset: str, workdir: Path, game: Game):
    """A fresh agent, set up for ``game``; fails (not skips) when the suite cannot build it."""
    builder = _variants(name)[variant]
    if builder is None:
        try:
            agent = make_agent(name)
        except Exception as e:
            pytest.fail(f"agent {name!r} is registered but cannot be built with no arguments "
                        f"({type(e).__name__}: {e}); add an entry for it to BUILD in "
                        f"tests/agents/test_base.py saying how to build it (small settings, "
                        f"or the file it needs made in workdir)", pytrace=False)
    else:
        agent = builder(workdir, ruleset)
    if ruleset not in agent.rulesets:
        pytest.fail(f"agent {name!r} plays {agent.rulesets}, but the suite thought it plays "
                    f"{ruleset!r}: say its rulesets in RULESETS_OF in tests/agents/test_base.py",
                    pytrace=False)
    return agent.setup(game)


# ---------------------------------------------------------------------- rules and deals
RULES = {  # every contract and special bid the ruleset has
    "standard": dict(nello=True, sevens=True, plunge=True, splash=True),
    "six-player": {},
}

# the scripted tables: (bid, contract); the contract None is the declarer's (the agent's) own
STANDARD_SCRIPTS = [(POINTS0, c) for c in range(7)] + [
    (POINTS0 + 4, DOUBLES), (POINTS0 + 2, FOLLOW_ME), (MARKS0, NELLO), (MARKS0 + 1, SEVENS),
    (PLUNGE, None), (SPLASH, None)]
SIX_SCRIPTS = [(1 + c, c) for c in range(SIX_TRUMPS)] + [
    (1 + SIX_TRUMPS * (len(SIX_LEVELS) - 3) + FOLLOW_ME, FOLLOW_ME),  # 176: a marks bid
    (1 + SIX_TRUMPS * (len(SIX_LEVELS) - 1) + DOUBLES, DOUBLES)]  # 352
SCRIPTS = {"standard": STANDARD_SCRIPTS, "six-player": SIX_SCRIPTS}


def _doubles(hands: np.ndarray) -> np.ndarray:
    """Doubles held per hand (either copy), for uint64 hands of any shape."""
    types = (hands | (hands >> np.uint64(28))) & np.uint64((1 << 28) - 1)
    return np.bitwise_count(types & np.uint64(T.DOUBLES_MASK)).astype(np.int64)


def deals(game: Game, seed: int, scripts, free: int = 2):
    """A new hand at ``len(scripts) + free`` tables: the scripted ones first (a plunge or
    splash where some seat holds the doubles for it), then ``free`` ones. (state, scripts)"""
    n_tables = len(scripts) + free
    ids = np.arange(n_tables) + 1000 * seed
    rich = max(game.rules.plunge_min_doubles, 3)
    for i, (bid, _) in enumerate(scripts):
        if bid in (PLUNGE, SPLASH) and not game.six:
            tries = int(ids[i]) + 100 * np.arange(1, 200)
            fit = np.flatnonzero(_doubles(game.deal(seed, tries, 0)[0]).max(axis=1) >= rich)
            assert fit.size, f"no deal with {rich} doubles in a hand for the {bid} script"
            ids[i] = tries[fit[0]]
    return game.reset(n_tables, seed=seed, game_ids=ids), list(scripts)


def script_actions(game: Game, st, tables: np.ndarray, actions: np.ndarray, scripts,
                   bid_done: np.ndarray) -> np.ndarray:
    """The actions applied: the agent's, but a scripted table bids as its script says (the
    first seat that may make the bid makes it, the others pass) and declares its contract."""
    out = actions.copy()
    c0 = game.actions.contract0
    for k, t in enumerate(tables.tolist()):
        if t >= len(scripts):
            continue
        bid, contract = scripts[t]
        mask = st.legal[t]
        if st.phase[t] == BIDDING:
            if not bid_done[t] and mask[bid]:
                out[k], bid_done[t] = bid, True
            elif mask[PASS]:
                out[k] = PASS
        elif st.phase[t] == DECLARING and contract is not None and mask[c0 + contract]:
            out[k] = c0 + contract
    return out


def _stored(st) -> dict:
    return {f: getattr(st, f).copy() for f in st.STORED}


def ask(agent, game, enc, st, tables):
    """The agent's actions at ``tables`` of ``st``, asked as the arena asks (the driver gives
    every agent a ``Context``): (observations, masks, context, actions)."""
    seats = st.to_move[tables]
    obs = enc.encode(st, seats, idx=tables) if agent.needs_observation else None
    masks = st.legal[tables]
    context = Context(game, st, tables, seats)
    return obs, masks, context, agent.act(obs, masks, context)


def check_actions(game, actions, masks, where: str) -> np.ndarray:
    assert isinstance(actions, np.ndarray), f"{where}: act returned {type(actions).__name__}, " \
        "not a NumPy array"
    assert actions.shape == (len(masks),), \
        f"{where}: act returned shape {actions.shape} for {len(masks)} rows"
    assert actions.dtype.kind in "iu", f"{where}: act returned dtype {actions.dtype}"
    inrange = (actions >= 0) & (actions < game.n_actions)
    legal = inrange & masks[np.arange(len(masks)), np.where(inrange, actions, 0)]
    if not legal.all():
        i = int(np.flatnonzero(~legal)[0])
        a = int(actions[i])
        name = game.actions.name(a) if 0 <= a < game.n_actions else a
        allowed = [game.actions.name(x) for x in np.flatnonzero(masks[i])]
        pytest.fail(f"{where}: row {i}: illegal action {name!r}; legal: {allowed}")
    return actions


def play_hands(game, agent, st, scripts=(), hook=None, check_inputs=False):
    """Play every table's hand out, asking ``agent`` at every decision of every table.
    Returns the log: (tables, phases, contracts, high bids, actions) per call; ``hook(obs, masks,
    context, actions)`` sees each call."""
    enc = make_encoder(game)
    bid_done = np.zeros(st.batch_size, bool)
    log = []
    while True:
        tables = np.flatnonzero(st.phase < HAND_OVER)
        if tables.size == 0:
            return log
        before = _stored(st) if check_inputs else None
        obs, masks, context, actions = ask(agent, game, enc, st, tables)
        where = f"{agent.name} ({game.rules.ruleset})"
        if check_inputs:
            after = _stored(st)
            changed = [f for f in before if not np.array_equal(before[f], after[f])]
            assert not changed, f"{where}: act changed the state's {changed}"
            assert np.array_equal(masks, st.legal[tables]), f"{where}: act changed its masks"
            if obs is not None:
                assert np.array_equal(obs, enc.encode(st, st.to_move[tables], idx=tables)), \
                    f"{where}: act changed its observations"
        check_actions(game, actions, st.legal[tables], where)
        phases = st.phase[tables].copy()
        if hook is not None:
            hook(obs, masks, context, actions)
        log.append((tables, phases, st.contract[tables].copy(), st.high_action[tables].copy(),
                    actions.copy()))
        applied = script_actions(game, st, tables, actions, scripts, bid_done) \
            if len(scripts) else actions
        full = np.full(st.batch_size, NO_ACTION, np.int64)
        full[tables] = applied
        game.step(st, full)  # IllegalActionError on an illegal action


def rules_for(ruleset: str, **extra) -> RulesConfig:
    return RulesConfig.make(ruleset, **RULES[ruleset], **extra)


# ---------------------------------------------------------------------- 1. legal actions
@pytest.mark.parametrize(ARGS, AGENT_PARAMS)
def test_only_legal_actions_in_every_phase(name, variant, ruleset, workdir):
    phases, contracts, special = set(), set(), set()
    for seed, extra in ((0, {}), (1, {"play_out": True})):  # half the scripts each
        game = Game(rules_for(ruleset, **extra))
        agent = build(name, variant, ruleset, workdir, game)
        st, scripts = deals(game, seed, SCRIPTS[ruleset][seed::2])
        log = play_hands(game, agent, st, scripts, check_inputs=True)
        bids = [bid for bid, _ in scripts]
        made = st.high_action[:len(scripts)].tolist()
        assert made == bids, f"the scripts' bids {bids} were not all made: {made}"
        for tables, ph, con, high, _ in log:
            phases.update(ph.tolist())
            contracts.update(con[ph == PLAYING].tolist())
            special.update(high[ph == DECLARING].tolist())
        assert (st.phase >= HAND_OVER).all()
    want = {BIDDING, DECLARING, PLAYING} | ({EXCHANGING} if ruleset == "six-player" else set())
    assert phases >= want, f"phases never put to the agent: " \
        f"{[PHASE_NAMES[p] for p in want - phases]}"
    allowed = {c for c in range(game.actions.n_contracts) if game.rules.contract_allowed(c)}
    assert contracts >= allowed, f"contracts never played: " \
        f"{[CONTRACT_NAMES[c] for c in allowed - contracts]}"
    if ruleset == "standard":
        assert special >= {PLUNGE, SPLASH}, "never asked to declare after a plunge and a splash"


# ---------------------------------------------------------------------- 2. determinism
@pytest.mark.parametrize(ARGS, AGENT_PARAMS)
def test_same_seed_same_actions(name, variant, ruleset, workdir):
    game = Game(rules_for(ruleset))
    logs = []
    for _ in range(2):
        agent = build(name, variant, ruleset, workdir, game)
        st, scripts = deals(game, 2, SCRIPTS[ruleset][::2])
        logs.append(play_hands(game, agent, st, scripts))
    assert len(logs[0]) == len(logs[1]), "the hands took different numbers of calls"
    for k, (a, b) in enumerate(zip(*logs)):
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[-1], b[-1]), \
            f"call {k}: the two agents differ at tables {a[0][a[-1] != b[-1]]}"


# ---------------------------------------------------------------------- 3. batch = rows
@pytest.mark.parametrize(ARGS, _params(exclude=BATCH_DEPENDENT))
def test_a_batch_equals_its_rows_one_at_a_time(name, variant, ruleset, workdir):
    game = Game(rules_for(ruleset))
    agent = build(name, variant, ruleset, workdir, game)
    alone = build(name, variant, ruleset, workdir, game)
    check_batch_equals_rows(game, agent, alone)


def check_batch_equals_rows(game, agent, alone) -> None:
    """Property 3 for two agents built the same way: ``agent`` plays whole hands in a batch,
    ``alone`` answers each of its calls' rows one at a time, in reverse order."""
    calls = []
    kinds = game.actions.kind

    def phase_of(mask):
        return ("bid", "declare", "exchange", "play")[int(kinds[np.flatnonzero(mask)[0]])]

    def one_at_a_time(obs, masks, context, actions):
        n = len(masks)
        for i in reversed(range(n)):
            ctx = None if context is None else \
                Context(context.game, context.state, context.tables[i:i + 1],
                        context.seats[i:i + 1])
            got = alone.act(None if obs is None else obs[i:i + 1], masks[i:i + 1], ctx)
            assert np.asarray(got).shape == (1,), f"one row asked, {np.shape(got)} answered"
            assert int(got[0]) == int(actions[i]), \
                f"row {i} of {n} ({phase_of(masks[i])}): alone " \
                f"{game.actions.name(int(got[0]))!r}, in the batch " \
                f"{game.actions.name(int(actions[i]))!r}"
        calls.append(n)

    st, scripts = deals(game, 3, SCRIPTS[game.rules.ruleset][1::2])
    play_hands(game, agent, st, scripts, hook=one_at_a_time)
    assert max(calls) > 1


class OneGenerator(Agent):
    """Batch dependent on purpose: uniformly random legal actions, one draw per row from one
    shared generator (as ``random`` drew before its draws were keyed), whatever the context."""

    needs_observation = False

    def __init__(self, seed: int = 3):
        self.rng = np.random.default_rng(seed)

    def act(self, observations, masks, context=None):
        return uniform_legal(masks, self.rng)


def test_a_batch_dependent_agent_fails_the_batch_check():
    game = Game(rules_for("standard"))
    agent, alone = OneGenerator().setup(game), OneGenerator().setup(game)
    with pytest.raises(AssertionError, match=r"alone '.*', in the batch '.*'"):
        check_batch_equals_rows(game, agent, alone)


def test_the_exclusions_name_registered_agents():
    for table, what in ((BATCH_DEPENDENT, "BATCH_DEPENDENT"), (BUILD, "BUILD"),
                        (RULESETS_OF, "RULESETS_OF")):
        stale = sorted(set(table) - set(REGISTRY))
        assert not stale, f"{what} in tests/agents/test_base.py names agents no longer " \
            f"registered: {stale}"
    assert all(reason.strip() for reason in BATCH_DEPENDENT.values())


# ---------------------------------------------------------------------- 4. hidden tiles
def _swapped(game: Game, hands: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """Hands with tiles swapped between two seats at each table (one tile each way at even
    tables, the whole hands at odd ones): (hands, the two seats)."""
    S = game.n_seats
    out = hands.copy()
    pairs = np.zeros((len(hands), 2), np.int64)
    for t in range(len(hands)):
        a = t % S
        b = (a + 1 + (t // S) % (S - 1)) % S
        pairs[t] = a, b
        ha, hb = int(out[t, a]), int(out[t, b])
        ta = [i for i in range(64) if ha >> i & 1]
        tb = [i for i in range(64) if hb >> i & 1]
        # the whole hands change the auction's inputs most; one tile each way keeps most
        # plays legal in both deals, so the check runs deep into the play
        k = len(ta) if t % 2 else 1
        for x in rng.choice(ta, k, replace=False):
            ha, hb = ha ^ (1 << int(x)), hb | (1 << int(x))
        for y in rng.choice(tb, k, replace=False):
            hb, ha = hb ^ (1 << int(y)), ha | (1 << int(y))
        out[t, a], out[t, b] = ha, hb
    return out, pairs


@pytest.mark.parametrize(ARGS, AGENT_PARAMS)
def test_hidden_tiles_do_not_change_the_actions(name, variant, ruleset, workdir):
    game = Game(rules_for(ruleset, play_out=True))
    enc = make_encoder(game)
    rng = np.random.default_rng(4)
    B = 16
    one = game.reset(B, seed=4)
    hands, pairs = _swapped(game, one.dealt, rng)
    assert not np.array_equal(hands, one.dealt)
    two = game.reset(B, seed=4)
    game.set_hands(two, np.arange(B), hands, one.dealer.copy(), one.dealt_cat.copy())
    worlds = [one, two]
    agents_ = [build(name, variant, ruleset, workdir, game) for _ in worlds]
    together = np.ones(B, bool)  # the two deals still share their public history
    checked = {BIDDING: 0, DECLARING: 0, EXCHANGING: 0, PLAYING: 0}
    while (one.phase < HAND_OVER).any() or (two.phase < HAND_OVER).any():
        acts = [np.full(B, NO_ACTION, np.int64) for _ in worlds]
        live = together & (one.phase < HAND_OVER)
        assert np.array_equal(one.phase[live], two.phase[live])
        assert np.array_equal(one.to_move[live], two.to_move[live])
        seat = one.to_move
        sees = live & (seat != pairs[:, 0]) & (seat != pairs[:, 1])
        rows = np.flatnonzero(sees)
        if rows.size:
            got = []
            for st, agent in zip(worlds, agents_):
                obs, masks, _, actions = ask(agent, game, enc, st, rows)
                got.append((obs, masks, check_actions(game, actions, masks, agent.name)))
            assert np.array_equal(got[0][1], got[1][1]), "the seat's legal masks differ"
            same_obs = got[0][0] is None or np.array_equal(got[0][0], got[1][0])
            differ = np.flatnonzero(got[0][2] != got[1][2])
            assert differ.size == 0, \
                f"{agent.name}: tiles the seat cannot see changed its action at tables " \
                f"{rows[differ].tolist()} (phase {PHASE_NAMES[one.phase[rows[differ[0]]]]}; " \
                f"{'same' if same_obs else 'different'} observations)"
            for a in acts:
                a[rows] = got[0][2]
            for p in one.phase[rows].tolist():
                checked[p] += 1
        # the swapped seats: pass where they may (the seats checked then bid and declare),
        # else an action legal in both deals (none: the deals part ways)
        for t in np.flatnonzero(live & ~sees):
            both = np.flatnonzero(one.legal[t] & two.legal[t])
            if one.phase[t] == BIDDING and one.legal[t, PASS] and two.legal[t, PASS]:
                acts[0][t] = acts[1][t] = PASS
            elif both.size:
                acts[0][t] = acts[1][t] = both[rng.integers(both.size)]
            else:
                together[t] = False
        for st, a in zip(worlds, acts):
            for t in np.flatnonzero(~together & (st.phase < HAND_OVER)):
                a[t] = rng.choice(np.flatnonzero(st.legal[t]))
            game.step(st, a)
    assert checked[BIDDING] >= B and checked[PLAYING] >= 2 * B, checked
