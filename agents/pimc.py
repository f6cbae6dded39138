"""PIMC: perfect-information Monte Carlo search over sampled worlds.

For each decision the agent samples ``n_worlds`` complete deals consistent with what its seat
knows (``texas42_env.worlds``: exact, uniform), solves each with the exact solver
(``agents.solver``: every hand visible, perfect play by both sides) and plays the move with
the best average for its team. Bidding and declaring work the same way: in each sampled world
the hand is solved from the opening lead under each candidate contract with this seat as the
declarer; the agent declares the contract with the best average and bids the highest level it
makes in at least ``make_prob`` of the worlds. Nello and sevens are left to the fallback agent
(the solver does not cover them).

Status (issue 6, open): PIMC card play beats the heuristic's, but the simulation bidder
overbids (it values a hand as if it led with every hand visible and ignores the partner), so
``bidding="heuristic"`` is the stronger agent today; see experiments/baselines/report.md.
"""

from __future__ import annotations

import numpy as np

from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS, POINTS0
from texas42_env.core import BIDDING, DECLARING, PLAYING, State
from texas42_env.rules import CONTRACT_NAMES, DOUBLES, FOLLOW_ME, NELLO, SEVENS
from texas42_env.worlds import worlds_from_state

from .base import Agent, register


@register("pimc")
class PimcAgent(Agent):
    needs_state = True
    needs_observation = True  # for the fallback agent
    rulesets = ("standard",)

    def __init__(self, n_worlds: int = 16, bid_worlds: int = 8, make_prob: float = 0.6,
                 contracts: int = 3, bidding: str = "simulate", seed: int = 0):
        if bidding not in ("simulate", "heuristic"):
            raise ValueError(f"bidding: {bidding!r}; allowed: simulate, heuristic")
        self.n_worlds, self.bid_worlds = n_worlds, bid_worlds
        self.make_prob, self.n_contracts = make_prob, contracts
        self.bidding = bidding
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def setup(self, game):
        from .heuristic import HeuristicAgent

        super().setup(game)
        # nello and sevens play (and bidding with bidding="heuristic") go to the heuristic
        self.fallback = HeuristicAgent().setup(game)
        return self

    def act(self, observations, masks, context=None):
        if context is None:
            raise ValueError("PimcAgent needs the table's context (it searches)")
        from .solver import solve_position  # numba: imported when first needed

        self._solve = solve_position
        out = self.fallback.act(observations, masks)
        for i, (t, s) in enumerate(zip(context.tables, context.seats)):
            phase = int(context.state.phase[t])
            if phase == PLAYING and int(context.state.contract[t]) not in (NELLO, SEVENS):
                out[i] = self._play(context, int(t), int(s), masks[i])
            elif phase == BIDDING and self.bidding == "simulate":
                out[i] = self._bid(context, int(t), int(s), masks[i])
            elif phase == DECLARING and self.bidding == "simulate":
                out[i] = self._declare(context, int(t), int(s), masks[i])
        return out

    # ------------------------------------------------------------------ play
    def _play(self, ctx, t, s, mask) -> int:
        game, st = ctx.game, ctx.state
        worlds = worlds_from_state(game, st, t, s, self.n_worlds, self.rng).states(game)
        total = np.zeros(T.N_TILES)
        for k in range(self.n_worlds):
            for name, v in self._solve(game, worlds, k)["values"].items():
                total[T.parse_tile(name)] += v
        p0 = game.actions.play0
        legal = np.flatnonzero(mask[p0:])
        mine = (s & 1) == (int(st.bidder[t]) & 1)
        scores = total[legal] if mine else -total[legal]
        return p0 + int(legal[np.argmax(scores)])

    # ------------------------------------------------------------------ bidding
    def _contract_values(self, ctx, t, s) -> dict[int, np.ndarray]:
        """Points this seat's team takes with perfect play in each sampled world, per
        candidate contract, declaring and leading itself."""
        game, st = ctx.game, ctx.state
        worlds = worlds_from_state(game, st, t, s, self.bid_worlds, self.rng)
        hand = int(st.hands[t, s])
        counts = [bin(hand & T.mask_of(T.suit_tiles(c))).count("1") for c in range(7)]
        suits = sorted(range(7), key=lambda c: -counts[c])[:self.n_contracts]
        candidates = suits + [DOUBLES, FOLLOW_ME]
        values = {}
        for c in candidates:
            base = worlds.states(game)
            values[c] = np.array([self._solve_opening(game, base, k, s, c)
                                  for k in range(self.bid_worlds)])
        return values

    def _solve_opening(self, game, st: State, k: int, seat: int, contract: int) -> int:
        """The value of world k's deal with ``seat`` declaring ``contract`` and leading."""
        one = st.take([k])
        one.phase[0] = PLAYING
        one.bidder[0] = one.declarer[0] = one.leader[0] = one.to_move[0] = seat
        one.contract[0] = contract
        one.need[0] = 30
        one.hands[0] = one.dealt[0]
        game._update_legal(one, np.zeros(1, np.int64))
        from .solver import solve_value

        return solve_value(game, one, 0)

    def _bid(self, ctx, t, s, mask) -> int:
        values = self._contract_values(ctx, t, s)
        self._planned = max(values, key=lambda c: values[c].mean())
        best = values[self._planned]
        legal = np.flatnonzero(mask[:POINTS0 + 12 + 10])  # pass, points and mark bids
        choice = PASS if mask[PASS] else int(legal[0])
        for a in legal:
            if a == PASS:
                continue
            need = 42 if a >= MARKS0 else 29 + a
            if (best >= need).mean() >= self.make_prob:
                choice = int(a)  # the highest level made often enough
        return choice

    def _declare(self, ctx, t, s, mask) -> int:
        values = self._contract_values(ctx, t, s)
        c0 = ctx.game.actions.contract0
        legal = [c for c in values if mask[c0 + c]]
        if not legal:
            return int(np.flatnonzero(mask)[0])
        return c0 + max(legal, key=lambda c: values[c].mean())


__all__ = ["PimcAgent", "CONTRACT_NAMES"]
