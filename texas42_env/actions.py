"""One flat discrete action space per ruleset, with ids <-> the notation of rules.md.

Standard (64 actions, so a table's legal set fits one 64-bit word)::

    0          pass
    1..12      30..41          points bids
    13..22     1m..10m         mark bids (10m is more than any bidding can reach)
    23, 24     plunge, splash
    25..35     0s..6s, doubles, follow-me, nello, sevens   contracts
    36..63     the 28 tiles by tile id (see ``tiles``)     plays
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import tiles as T
from .rules import CONTRACT_NAMES, N_CONTRACTS, RulesConfig

# action kinds
BID, DECLARE, EXCHANGE, PLAY = 0, 1, 2, 3
KIND_NAMES = ("bid", "declare", "exchange", "play")
NO_ACTION = -1  # for a table with nothing to do (its hand or game is over)

MAX_MARKS = 10
PASS = 0
POINTS0 = 1  # action of the 30 bid
MARKS0 = 13  # action of the 1m bid
PLUNGE, SPLASH = 23, 24
CONTRACT0 = 25
PLAY0 = 36


class ActionSpace:
    """Names, kinds and lookup arrays of one ruleset's actions."""

    def __init__(self, ruleset: str):
        if ruleset != "standard":
            raise NotImplementedError(f"the action space of ruleset {ruleset!r} is not built yet")
        self.ruleset = ruleset
        names = ["pass"] + [str(p) for p in range(30, 42)] + [f"{m}m" for m in range(1, MAX_MARKS + 1)]
        names += ["plunge", "splash"] + list(CONTRACT_NAMES) + list(T.TILE_NAMES)
        self.names: tuple[str, ...] = tuple(names)
        self.n = len(names)
        assert self.n == 64 and CONTRACT0 + N_CONTRACTS == PLAY0
        kind = np.full(self.n, BID, dtype=np.int8)
        kind[CONTRACT0:PLAY0] = DECLARE
        kind[PLAY0:] = PLAY
        self.kind = kind
        self.contract0, self.play0 = CONTRACT0, PLAY0
        self._ids = {n: i for i, n in enumerate(names)}
        for t, n in enumerate(T.TILE_NAMES):
            self._ids[n[::-1]] = PLAY0 + t

    def id(self, name: str) -> int | None:
        """The id of an action written in the notation, or None if it is not one."""
        return self._ids.get(name) if isinstance(name, str) else None

    def name(self, action: int) -> str:
        return self.names[int(action)]

    def contract_action(self, contract: int) -> int:
        return CONTRACT0 + contract

    def play_action(self, tile: int) -> int:
        return PLAY0 + tile


@lru_cache(maxsize=None)
def action_space(ruleset: str) -> ActionSpace:
    return ActionSpace(ruleset)


def action_space_for(rules: RulesConfig) -> ActionSpace:
    return action_space(rules.ruleset)
