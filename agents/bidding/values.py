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
from texas42_env.core import Game, State
from texas42_env.observation import make_encoder
from texas42_env.rules import DOUBLES, FOLLOW_ME, RulesConfig

from agents.base import Agent, make_agent, parse_spec
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
        if isinstance(play, str):
            play = parse_spec(play)  # a name, NAME:KEY=VALUE,... or a JSON object
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
