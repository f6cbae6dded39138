"""Worlds that fit the auction: weigh sampled deals by how likely the bidding was in each.

The world sampler (``texas42_env.worlds``) draws deals uniformly over those that agree with
what a seat knows for certain (its hand, the plays, voids, plunge and splash facts...). Bids
say more than that, but only in likelihood: a seat that bid 34 probably holds trumps, a seat
that passed probably does not. ``AuctionFit`` weighs each world by how well a bid model (an
agent: our heuristic, or any bidder) explains every bid, pass and declaration the other seats
made in it: each world's hidden hands are dealt again, the auction is replayed action by
action, and at each decision of a seat the observer cannot see, the model is asked what it
would have done with that world's hand; a world's weight is the product over those decisions
of 1 where the model agrees and ``floor`` where it does not (a deterministic model's
likelihood, with a floor so that a model's mistake never rules a world out).

``resample`` then turns ``oversample`` times more candidate worlds than the search solves into
the search's worlds: ``n`` draws with replacement in proportion to the weights, solved once
each and counted by multiplicity. ``effective`` is Kish's effective number of the candidates
((sum w)^2 / sum w^2), the figure to report: near the candidate count when the auction says
little, small when few worlds fit it.
"""

from __future__ import annotations

import numpy as np

from texas42_env.core import BIDDING, DECLARING, Game
from texas42_env.observation import make_encoder
from texas42_env.worlds import Worlds

from agents.base import Agent
from agents.driver import act_rows


def auction_actions(game: Game, base) -> list[int]:
    """The bids (in order) and the declaration (when made) at table 0 of ``base``."""
    actions = base.bids[0, :int(base.n_bids[0])].tolist()
    if int(base.contract[0]) >= 0:
        actions.append(game.actions.contract0 + int(base.contract[0]))
    return actions


class AuctionFit:
    """Weights of worlds under ``model``'s bidding (see the module's docstring)."""

    def __init__(self, game: Game, model: Agent, floor: float = 0.05):
        if not 0 < floor <= 1:
            raise ValueError(f"floor: {floor!r}; allowed: a number in (0, 1]")
        self.game, self.model, self.floor = game, model, float(floor)
        self.encoder = make_encoder(game)

    def weights(self, worlds: Worlds) -> np.ndarray:
        """One weight a world: the product, over the auction's decisions by seats other than
        the observer, of 1 where the model, holding that world's hand as dealt, acts as the
        seat did, else ``floor``."""
        game, base, n = self.game, worlds.base, len(worlds)
        st = base.take(np.zeros(n, np.int64))
        rows = np.arange(n)
        game.set_hands(st, rows, worlds.dealt, int(base.dealer[0]),
                       worlds.dealt_cat if game.six else None)
        w = np.ones(n)
        for a in auction_actions(game, base):
            if not np.isin(st.phase, (BIDDING, DECLARING)).all():
                break  # (cannot happen for a consistent world: every world bids alike)
            seat = int(st.to_move[0])
            if seat != worlds.seat:
                said = act_rows(game, st, self.model, rows, self.encoder)
                w *= np.where(said == a, 1.0, self.floor)
            game.step(st, np.full(n, a, np.int64))
        return w

    @staticmethod
    def effective(w: np.ndarray) -> float:
        """Kish's effective number of worlds: (sum w)^2 / sum w^2."""
        return float(w.sum() ** 2 / (w * w).sum())

    @staticmethod
    def resample(w: np.ndarray, n: int, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray]:
        """``n`` draws with replacement in proportion to ``w``: the distinct worlds drawn
        (in index order) and how often each was drawn."""
        pick = rng.choice(len(w), size=n, p=w / w.sum())
        return np.unique(pick, return_counts=True)


__all__ = ["AuctionFit", "auction_actions"]
