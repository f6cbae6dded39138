"""Hand values by simulation: a hand's seat declares each contract and leads in sampled
deals of the other tiles, which are played out by a play agent at every seat, each seeing
only its own view (``evaluate="playout"``, the heuristic by default; all tricks played), or
solved exactly with both sides seeing everything (``evaluate="solve"``: double dummy, which
overrates the declarer). ``HandValuer`` does this for many hands at once (one vectorized
play-out for all of them); ``make_curves`` turns the points into the chance of making each
need 30..42; ``auction_worlds`` draws deals that fit the bids made so far.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import MARKS0, NO_ACTION, PASS, PLUNGE, SPLASH
from texas42_env.core import BIDDING, DECLARING, Game, State
from texas42_env.observation import make_encoder
from texas42_env.rules import DOUBLES, FOLLOW_ME, NELLO, RulesConfig

from agents.base import Agent, make_agent
from agents.bidding.rule import bids_before
from agents.driver import act_rows, play_out

CONTRACTS = tuple(range(7)) + (DOUBLES, FOLLOW_ME)  # 0s..6s, doubles, follow-me
NEEDS = np.arange(30, 43)  # the points a bid needs: 30..41 and 42 (all, for marks bids)
EVALUATIONS = ("playout", "solve")


# ---------------------------------------------------------------------- hand values
def deal_around(hands: np.ndarray, seat: int, n_worlds: int,
                rng: np.random.Generator) -> np.ndarray:
    """``n_worlds`` uniform deals of the other 21 tiles around each hand: uint64
    [n, n_worlds, 4] with ``hands`` at ``seat``."""
    hands = np.asarray(hands, np.uint64)
    n = hands.size
    bits = (hands[:, None] >> np.arange(T.N_TILES, dtype=np.uint64)) & np.uint64(1)
    others = np.argsort(bits, axis=1, kind="stable")[:, :T.N_TILES - 7]  # [n, 21] tile ids
    order = np.argsort(rng.random((n, n_worlds, T.N_TILES - 7)), axis=2)
    tiles = np.take_along_axis(np.broadcast_to(others[:, None, :], order.shape), order, 2)
    one = np.uint64(1) << tiles.astype(np.uint64)
    parts = one.reshape(n, n_worlds, 3, 7).sum(axis=3, dtype=np.uint64)
    dealt = np.empty((n, n_worlds, 4), np.uint64)
    dealt[:, :, seat] = hands[:, None]
    rest = [x for x in range(4) if x != seat]
    dealt[:, :, rest] = parts
    return dealt


class HandValuer:
    """Points a hand's team takes under each contract of ``contracts`` in ``worlds`` sampled
    deals, its seat declaring and leading (see the module's docstring).

    ``evaluate``: ``"playout"`` (``play`` agent at every seat, all tricks played) or
    ``"solve"`` (exact, double dummy). ``batch``: tables played out at once.
    """

    def __init__(self, rules=None, evaluate: str = "playout", play: str | Agent = "heuristic",
                 worlds: int = 16, contracts=CONTRACTS, batch: int = 8192):
        if evaluate not in EVALUATIONS:
            raise ValueError(f"evaluate: {evaluate!r}; allowed: {', '.join(EVALUATIONS)}")
        if isinstance(worlds, bool) or not isinstance(worlds, (int, np.integer)) or worlds < 1:
            raise ValueError(f"worlds must be a positive integer, got {worlds!r}")
        rules = rules or RulesConfig.make()
        if rules.ruleset != "standard":
            raise ValueError("hand values are simulated for the standard ruleset only")
        bad = [c for c in contracts if c not in CONTRACTS]
        if bad or not contracts:
            raise ValueError(f"contracts must be among {CONTRACTS} (suits, doubles, "
                             f"follow-me), got {tuple(contracts)}")
        self.evaluate, self.worlds = evaluate, int(worlds)
        self.contracts = tuple(int(c) for c in contracts)
        self.batch = max(int(batch), len(self.contracts) * self.worlds)
        self.game = Game(replace(rules, play_out=True))  # all tricks: the points are the value
        self.encoder = make_encoder(self.game)
        self.player = (play if isinstance(play, Agent) else make_agent(play)).setup(self.game) \
            if evaluate == "playout" else None

    def values(self, hands: np.ndarray, rng: np.random.Generator, seat: int = 0,
               contracts: np.ndarray | None = None, worlds: np.ndarray | None = None
               ) -> np.ndarray:
        """uint8 [n, k, worlds]: the points ``hands`` (uint64 [n]) take under ``contracts``
        (int [n, k], each hand its own; default: ``self.contracts`` for every hand), in
        ``worlds`` (uint64 [n, worlds, 4] deals; default: sampled by ``deal_around``)."""
        hands = np.atleast_1d(np.asarray(hands, np.uint64))
        if contracts is None:
            contracts = np.broadcast_to(np.array(self.contracts), (hands.size, len(self.contracts)))
        contracts = np.asarray(contracts, np.int64)
        C, W = contracts.shape[1], self.worlds
        out = np.zeros((hands.size, C, W), np.uint8)
        per = max(1, self.batch // (C * W))
        for lo in range(0, hands.size, per):
            h = hands[lo:lo + per]
            dealt = deal_around(h, seat, W, rng) if worlds is None else \
                np.asarray(worlds[lo:lo + per], np.uint64)  # [m, W, 4]
            m = h.size
            st = self.game.reset(m * C * W, seed=0)
            st.dealt[:] = np.repeat(dealt[:, None], C, axis=1).reshape(-1, 4)
            self.game.open_play(st, seat, np.repeat(contracts[lo:lo + m], W, axis=1).ravel())
            if self.evaluate == "playout":
                play_out(self.game, st, self.player, self.encoder)
                pts = st.points[:, seat % 2]
            else:

                from agents.search.solver import solve_value  # numba: compiled when first used

                pts = np.array([solve_value(self.game, st, k) for k in range(st.batch_size)])
            out[lo:lo + m] = pts.reshape(m, C, W)
        return out


SPECIALS = ("nello", "plunge", "splash")


class SpecialValuer:
    """The chance a hand makes nello, plunge or splash, by simulation like the other
    contracts' values: in each of its worlds (deals around the hand, which sits at seat 0)
    seat 0 bids the contract and the others pass; it declares nello itself, and after a
    plunge or splash its partner names trump as the heuristic would; then ``play`` plays
    every seat, each seeing only its own view, until the hand is decided. A nello is made
    when the bidder takes no trick, a plunge or splash when its team takes all seven.
    ``play``: an agent or spec (a fresh agent, set up for this valuer's own game).
    The bid a nello is simulated at is the least marks bid that allows it, at most the
    largest opening (the outcome does not depend on the level); a kind the rules do not
    allow, or the hand may not bid (a plunge without the doubles), counts as never made.
    """

    def __init__(self, rules=None, play: str | Agent = "heuristic", batch: int = 8192):
        rules = rules or RulesConfig.make()
        if rules.ruleset != "standard":
            raise ValueError("special contracts are simulated for the standard ruleset only")
        self.nello = rules.nello
        # a nello's outcome does not depend on its bid: one that needs more marks than may
        # open is simulated at the most that may
        rules = replace(rules, nello_min_marks=min(rules.nello_min_marks,
                                                   rules.max_opening_marks))
        self.game = Game(rules)
        self.encoder = make_encoder(self.game)
        self.player = (play if isinstance(play, Agent) else make_agent(play)).setup(self.game)
        self.namer = make_agent("heuristic").setup(self.game)  # a plunger's partner names trump
        self.batch = int(batch)
        self.bids = {"nello": MARKS0 + max(rules.nello_min_marks, 1) - 1, "plunge": PLUNGE,
                     "splash": SPLASH}

    def chances(self, kinds, worlds: np.ndarray) -> np.ndarray:
        """float [n]: row i's share of its worlds (uint64 [n, W, 4], the hand at seat 0)
        where the hand makes ``kinds[i]`` (one of ``SPECIALS``)."""
        worlds = np.asarray(worlds, np.uint64)
        n, W = worlds.shape[:2]
        kinds = list(kinds)
        bad = sorted({k for k in kinds if k not in SPECIALS})
        if bad or len(kinds) != n:
            raise ValueError(f"kinds: one of {SPECIALS} per row ({n}), got {kinds!r}")
        out = np.zeros(n)
        per = max(1, self.batch // W)
        for lo in range(0, n, per):
            w = worlds[lo:lo + per]
            bid = np.repeat([self.bids[k] for k in kinds[lo:lo + per]], W)
            out[lo:lo + len(w)] = self._made(w.reshape(-1, 4), bid).reshape(len(w), W).mean(1)
        return out

    def _made(self, dealt: np.ndarray, bid: np.ndarray) -> np.ndarray:
        g, N = self.game, len(dealt)
        st = g.reset(N, seed=0)
        g.set_hands(st, np.arange(N), dealt, np.full(N, 3))  # seat 0 is not the dealer
        ok = np.ones(N, bool)  # seat 0 bid it and won it
        while (st.phase == BIDDING).any():  # seat 0 bids; the others pass
            a = np.where(st.to_move == 0, bid, PASS)
            legal = st.legal[np.arange(N), a]
            ok &= legal | (st.to_move != 0) | (st.phase != BIDDING)
            # where seat 0 could not bid it, every seat takes its least bid (no redeal)
            least = np.argmax(st.legal[:, PASS + 1:], axis=1) + PASS + 1
            a = np.where(ok, a, np.where(st.legal[np.arange(N), least], least, PASS))
            g.step(st, np.where(st.phase == BIDDING, a, NO_ACTION))
        declaring = np.flatnonzero(st.phase == DECLARING)  # (all of them)
        nello = (bid != PLUNGE) & (bid != SPLASH)
        if not self.nello:
            ok &= ~nello  # nello is not allowed: never made
        nello &= ok
        named = act_rows(g, st, self.namer, declaring, self.encoder)
        a = np.full(N, NO_ACTION, np.int64)
        a[declaring] = np.where(nello[declaring], g.actions.contract0 + NELLO, named)
        g.step(st, a)
        play_out(g, st, self.player, self.encoder)
        return ok & (st.bidder == 0) & (st.made == 1)


def auction_worlds(game: Game, st: State, t: int, seat: int, n_worlds: int, candidates: int,
                   model: Agent, encoder, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """``n_worlds`` deals around ``seat``'s hand at table ``t`` that fit the bids before its
    own, as far as ``model`` (the heuristic) would have made them: ``candidates`` deals are
    drawn uniformly, the auction so far is replayed in each with ``model`` bidding for the
    other seats, and the deals where it bids every bid as it was bid come first (the rest,
    in random order, fill up when too few fit). Returns (uint64 [n_worlds, 4], how many fit).
    A seat about to make the first bid has nothing to fit: uniform deals."""
    hand = np.array([st.hands[t, seat]], np.uint64)
    k = bids_before(st, t, seat)
    if k == 0:
        return deal_around(hand, seat, n_worlds, rng)[0], n_worlds
    dealt = deal_around(hand, seat, candidates, rng)[0]  # [M, 4]
    M = len(dealt)
    sim = game.reset(M, seed=0)
    game.set_hands(sim, np.arange(M), dealt, np.full(M, int(st.dealer[t])))
    fits = np.ones(M, bool)
    for j in range(k):
        seats = sim.to_move.copy()
        guess = act_rows(game, sim, model, np.arange(M), encoder, seats)
        bid = int(st.bids[t, j])
        ok = sim.legal[:, bid]
        fits &= ok & (guess == bid)
        game.step(sim, np.where(ok, bid, guess))
    order = np.lexsort((rng.random(M), ~fits))  # fitting deals first, each group shuffled
    return dealt[order[:n_worlds]], int(min(fits.sum(), n_worlds))


def longest_suits(hands: np.ndarray, k: int) -> np.ndarray:
    """int [n, k + 2]: each hand's ``k`` longest suits (ties to the lower suit), doubles and
    follow-me: the contracts worth valuing."""
    hands = np.atleast_1d(np.asarray(hands, np.uint64))
    suit_masks = np.array([T.mask_of(T.suit_tiles(c)) for c in range(7)], np.uint64)
    held = (hands[:, None] & suit_masks[None, :])
    counts = np.array([[bin(int(x)).count("1") for x in row] for row in held])
    top = np.argsort(-counts, axis=1, kind="stable")[:, :k]
    extra = np.broadcast_to(np.array([DOUBLES, FOLLOW_ME]), (hands.size, 2))
    return np.concatenate([top, extra], axis=1)


def make_curves(points: np.ndarray) -> np.ndarray:
    """float [..., contracts, 13]: the share of worlds (last axis of ``points``) taking at
    least each need of ``NEEDS``."""
    p = np.asarray(points)
    return (p[..., None] >= NEEDS).mean(axis=-2)


# ---------------------------------------------------------------------- the bid rule
