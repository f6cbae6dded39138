"""Small builders shared by the tests."""

from __future__ import annotations

import numpy as np

from texas42_env import tiles as T
from texas42_env.state import PLAYING

# the deal of the spec's worked examples
SPEC_HANDS = [
    ["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
    ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
    ["4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"],
    ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"],
]


def record(bids=(), contract=None, plays=(), dealer=3, hands=SPEC_HANDS, **options):
    rec = {"format": "texas42-record/1", "ruleset": "standard", "dealer": dealer,
           "hands": [list(h) for h in hands], "bids": list(bids), "plays": list(plays)}
    if contract is not None:
        rec["contract"] = contract
    if options:
        rec["options"] = options
    return rec


def masks(hands) -> np.ndarray:
    return np.array([[T.mask_of(T.parse_tile(x) for x in h) for h in hands]], dtype=np.uint64)


def snapshot(state) -> dict:
    return {f: getattr(state, f).copy() for f in state.STORED}


def same_state(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[f], b[f]) for f in a)


def fixed_bidder(curves, **kw):
    """A ``ValueBidder`` whose estimates are ``curves`` ([contracts, 13]) for every hand."""
    from agents.bidding.bidders import ValueBidder

    class FixedBidder(ValueBidder):
        def estimates(self, hands, where=None):
            return np.broadcast_to(self.curves, (len(hands),) + self.curves.shape)

    agent = FixedBidder(**kw)
    agent.curves = np.asarray(curves, float)
    return agent


def tiny_training(**over) -> dict:
    """A training config of a few seconds: 32 deals an update, small nets, a short warm
    start (2 updates unless ``over`` says otherwise)."""
    d = dict(seed=1, updates=2, algorithm=dict(tables=32, minibatch=128, epochs=2),
             model=dict(hidden=32, bid_hidden=32),
             opponents=dict(self_play=0.5, pool=0.3, heuristic=0.2, snapshot_every=1),
             eval=dict(every=2, pairs=10), warm_start=dict(hands=64, epochs=1, minibatch=256),
             checkpoint_every=1, keep_checkpoints=3, progress=False)
    d.update(over)
    return d


def stepped(game, st, action: int):
    """A copy of one-table state ``st`` after ``action``."""
    nxt = st.copy()
    game.step(nxt, np.array([action]))
    return nxt


def brute_values(game, st, b: int = 0) -> dict[str, int]:
    """Every legal play's value by plain minimax through the core's own ``step`` (no pruning,
    no table): the bidding team's points once every trick is played. ``game`` must play out."""
    assert game.rules.play_out
    one = st.take([b])
    return {T.TILE_NAMES[a - game.actions.play0]: _brute_points(game, stepped(game, one, a))
            for a in np.flatnonzero(one.legal[0])}


def _brute_points(game, st) -> int:
    team = int(st.bidder[0]) & 1
    if st.phase[0] != PLAYING:
        return int(st.points[0, team])
    vals = [_brute_points(game, stepped(game, st, a)) for a in np.flatnonzero(st.legal[0])]
    return max(vals) if int(st.to_move[0]) & 1 == team else min(vals)
