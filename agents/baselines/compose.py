"""``compose``: bid (and declare, and exchange) as one agent, play the tiles as another.

``compose:bid=heuristic,play=pimc`` (or ``{"name": "compose", "bid": "heuristic", "play":
{"name": "pimc", "n_worlds": 32}}``) compares card play under identical bidding, or bidders
under identical play, in any duplicate match: two composes with the same ``bid`` bid alike.
Each part is an agent spec of its own (a name, ``NAME:KEY=VALUE`` or a dict) and sees only
the rows of its phase: the play rows (the legal actions are tiles) go to ``play``, the rest
to ``bid``. It plays the rulesets both parts play.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, Context, make_agent, register


def _part(spec: Any, role: str) -> Agent:
    if isinstance(spec, Agent):
        return spec
    try:
        return make_agent(spec)
    except (ValueError, TypeError) as e:
        raise ValueError(f"compose {role}: {e}") from None


@register("compose")
class ComposeAgent(Agent):
    def __init__(self, bid: Any = "heuristic", play: Any = "heuristic"):
        self.bidder = _part(bid, "bid")
        self.player = _part(play, "play")
        parts = (self.bidder, self.player)
        self.needs_state = any(p.needs_state for p in parts)
        self.needs_observation = any(p.needs_observation for p in parts)
        self.rulesets = tuple(r for r in self.bidder.rulesets if r in self.player.rulesets)

    def setup(self, game):
        super().setup(game)
        self.bidder.setup(game)
        self.player.setup(game)
        return self

    def act(self, observations, masks, context: Context | None = None) -> np.ndarray:
        masks = np.asarray(masks, bool)
        playing = masks[:, self.game.actions.play0:].any(axis=1)
        out = np.zeros(len(masks), np.int64)
        for agent, rows in ((self.player, np.flatnonzero(playing)),
                            (self.bidder, np.flatnonzero(~playing))):
            if rows.size == 0:
                continue
            obs = None if observations is None else observations[rows]
            ctx = None if context is None else Context(context.game, context.state,
                                                       context.tables[rows],
                                                       context.seats[rows])
            out[rows] = agent.act(obs, masks[rows], ctx)
        return out


__all__ = ["ComposeAgent"]
