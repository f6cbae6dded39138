"""One flat discrete action space per ruleset, with ids <-> the notation of rules.md.

Standard (64 actions, so a table's legal set fits one 64-bit word)::

    0          pass
    1..12      30..41          points bids
    13..22     1m..10m         mark bids (10m is more than any bidding can reach)
    23, 24     plunge, splash
    25..35     0s..6s, doubles, follow-me, nello, sevens   contracts
    36..63     the 28 tiles by tile id (see ``tiles``)     plays

Six-player (257 actions)::

    0          pass
    1..162     bids: 1 + 9 * level + trump, levels 60, 62, ..., 88, 176, 264, 352 and
               trumps 0s..6s, doubles, follow-me (``60:0s`` is 1, ``352:follow-me`` is 162)
    163..171   0s..6s, doubles, follow-me                  contracts
    172..199   take T     the exchange: take tile T from the cat ...
    200..227   discard T  ... and put tile T of the hand as dealt in its place;
    228        keep       end the exchange (it also ends after two swaps)
    229..256   the 28 tiles by tile id                     plays
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from . import tiles as T
from .rules import CONTRACT_NAMES, RulesConfig

# action kinds
BID, DECLARE, EXCHANGE, PLAY = 0, 1, 2, 3
NO_ACTION = -1  # for a table with nothing to do (its hand or game is over)

PASS = 0
# standard
MAX_MARKS = 10
POINTS0 = 1  # action of the 30 bid
MARKS0 = 13  # action of the 1m bid
PLUNGE, SPLASH = 23, 24
# six-player
SIX_LEVELS = tuple(range(60, 89, 2)) + (176, 264, 352)
SIX_TRUMPS = 9  # 0s..6s, doubles, follow-me


class ActionSpace:
    """Names, kinds and lookup arrays of one ruleset's actions."""

    def __init__(self, ruleset: str):
        self.ruleset = ruleset
        if ruleset == "standard":
            names = ["pass"] + [str(p) for p in range(30, 42)]
            names += [f"{m}m" for m in range(1, MAX_MARKS + 1)] + ["plunge", "splash"]
            n_contracts = len(CONTRACT_NAMES)
        elif ruleset == "six-player":
            names = ["pass"] + [f"{lv}:{CONTRACT_NAMES[c]}" for lv in SIX_LEVELS
                                for c in range(SIX_TRUMPS)]
            n_contracts = SIX_TRUMPS
        else:
            raise ValueError(f"unknown ruleset {ruleset!r}")
        self.contract0 = len(names)
        names += list(CONTRACT_NAMES[:n_contracts])
        self.n_contracts = n_contracts
        if ruleset == "six-player":
            self.take0 = len(names)
            names += [f"take {t}" for t in T.TILE_NAMES]
            self.discard0 = len(names)
            names += [f"discard {t}" for t in T.TILE_NAMES]
            self.keep = len(names)
            names.append("keep")
        else:
            self.take0 = self.discard0 = self.keep = -1
        self.play0 = len(names)
        names += list(T.TILE_NAMES)
        self.names: tuple[str, ...] = tuple(names)
        self.n = len(names)
        kind = np.full(self.n, BID, dtype=np.int8)
        kind[self.contract0:self.contract0 + n_contracts] = DECLARE
        kind[self.contract0 + n_contracts:self.play0] = EXCHANGE
        kind[self.play0:] = PLAY
        self.kind = kind
        self._ids = {n: i for i, n in enumerate(names)}
        for t, n in enumerate(T.TILE_NAMES):
            self._ids[n[::-1]] = self.play0 + t

    def id(self, name: str) -> int | None:
        """The id of an action written in the notation, or None if it is not one."""
        return self._ids.get(name) if isinstance(name, str) else None

    def name(self, action: int) -> str:
        return self.names[int(action)]


@lru_cache(maxsize=None)
def action_space(ruleset: str) -> ActionSpace:
    return ActionSpace(ruleset)


def action_space_for(rules: RulesConfig) -> ActionSpace:
    return action_space(rules.ruleset)
