"""The bid rule: each legal bid is worth ``p * U(+m for us) + (1 - p) * U(+m for them)``,
where ``p`` is the best chance over the contracts of taking the bid's points (42 for marks
bids), ``m`` its marks and ``U`` the marks difference plus ``game_weight * target`` times
the chance of winning the game from the score that results (``agents.bidding`` says more).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from texas42_env.actions import MARKS0, MAX_MARKS, PASS, PLUNGE, POINTS0, SPLASH
from texas42_env.core import BIDDING, Game, State


@lru_cache(maxsize=None)
def win_table(target: int) -> np.ndarray:
    """W[a, b]: the chance of winning a game to ``target`` marks from ``a`` marks against
    ``b`` when each later hand's mark is a coin flip; indices run past the target by more
    than the largest bid (scores at or past the target are won or lost)."""
    size = 2 * target + MAX_MARKS + 8  # room for any score plus any bid
    w = np.zeros((size, size))
    for a in range(size - 1, -1, -1):
        for b in range(size - 1, -1, -1):
            if a >= target:
                w[a, b] = 1.0
            elif b >= target:
                w[a, b] = 0.0
            else:
                w[a, b] = 0.5 * w[a + 1, b] + 0.5 * w[a, b + 1]
    w.setflags(write=False)
    return w


def _outcome_value(target, scoring, game_weight, us, them, du, dt) -> float:
    """An outcome's worth: its marks difference plus ``game_weight * target`` times the
    chance of winning the game from the score it leaves (marks scoring only)."""
    value = float(du - dt)
    if game_weight > 0 and scoring == "marks":
        us, them = min(us, target), min(them, target)
        value += game_weight * target * win_table(target)[us + du, them + dt]
    return value


@lru_cache(maxsize=4096)
def _outcomes(target, scoring, game_weight, us, them) -> tuple[list[float], list[float]]:
    """([U(m, 0)], [U(0, m)]) for m = 0..MAX_MARKS at one score: the lotteries' prizes."""
    marks = range(MAX_MARKS + 1)
    return ([_outcome_value(target, scoring, game_weight, us, them, m, 0) for m in marks],
            [_outcome_value(target, scoring, game_weight, us, them, 0, m) for m in marks])


def high_marks(st: State, t: int) -> int:
    """The marks the high bid at table ``t`` is worth during the auction (standard: 1 for
    points, m for an m-mark bid, a plunge's or splash's value); ``bid_marks`` of the state
    is only set once the bidding ends."""
    return min(max(int(st.high_level[t]) - 12, 1), MAX_MARKS)


def bids_before(st: State, t: int, seat: int) -> int:
    """How many bids came before ``seat``'s own at table ``t``: all so far while it is to
    bid, else its place in the bidding order."""
    if int(st.phase[t]) == BIDDING:
        return int(st.n_bids[t])
    return (seat - int(st.first_bidder[t])) % st.n_seats


def bid_marks(action: int, points: int = 1) -> int:
    """Marks a standard bid action is worth: ``points`` (1) for a points bid, m for an
    m-mark bid (``points=0``: the marks the rules count a bid as, e.g. for nello's least)."""
    return action - MARKS0 + 1 if action >= MARKS0 else points


def bid_need(action: int) -> int:
    """Points a standard bid needs: 30..41, or 42 for a marks bid."""
    return 42 if action >= MARKS0 else 29 + action


@dataclass(frozen=True)
class BidRule:
    """Pick the bid (or pass) with the best expected game value; see the module docstring.

    ``q_open``/``q_partner``/``q_opp``: the chance our team takes the hand's marks when the
    seat passes with no bid yet / the partner holding the bid / an opponent holding it (the
    opponents' make rate). ``game_weight``: how much the chance of winning the game (marks
    scoring) counts beside the marks difference: an outcome is worth its marks difference
    plus ``game_weight * target`` times that chance (0: the score does not matter).
    """

    q_open: float = 0.5
    q_partner: float = 0.7
    q_opp: float = 0.7
    game_weight: float = 1.0  # marks + the game: as many marks a game as 0, more games won

    def __post_init__(self):
        if isinstance(self.game_weight, bool) or not isinstance(self.game_weight, (int, float)) \
                or not self.game_weight >= 0:
            raise ValueError(f"game_weight must be a number >= 0, got {self.game_weight!r}")
        for f in ("q_open", "q_partner", "q_opp"):
            v = getattr(self, f)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise ValueError(f"{f} must be a probability in [0, 1], got {v!r}")

    def _outcomes(self, game, score, team) -> tuple[list[float], list[float]]:
        """([U(m, 0)], [U(0, m)]) for m = 0..MAX_MARKS."""
        return _outcomes(game.target, game.rules.scoring, self.game_weight,
                         int(score[team]), int(score[team ^ 1]))

    def choose(self, curves: np.ndarray, mask: np.ndarray, st: State, t: int, s: int,
               game: Game, specials: dict[str, float] | None = None) -> tuple[int, float]:
        """(bid action, predicted chance of making it; nan for a pass) at table ``t``, seat
        ``s``; ``curves``: [contracts, 13] chances of taking each need; ``mask``: the legal
        actions (bools, an array or a list). ``specials``: the chances of the special
        contracts where they were valued (``"nello"``, ``"plunge"``, ``"splash"``): a bid
        that allows nello is worth its better chance of the trump contracts' and nello's,
        and a plunge or splash is weighed like any bid, at its marks."""
        best = curves.max(axis=0).tolist()  # the best contract's chance per need
        specials = specials or {}
        nello = specials.get("nello")
        nello_from = game.rules.nello_min_marks  # (a points bid counts as 0 marks)

        def chance(p: float, marks: int) -> float:
            return max(p, nello) if nello is not None and marks >= nello_from else p
        team = s & 1
        up, down = self._outcomes(game, st.score[t], team)
        legal = mask.tolist() if isinstance(mask, np.ndarray) else mask
        choices = []  # (value, action, chance), pass first, then bids upwards
        if legal[PASS]:
            hb = int(st.high_bidder[t])
            if hb < 0:
                m, q = 1, self.q_open
            else:
                m = high_marks(st, t)
                q = self.q_partner if (hb & 1) == team else 1.0 - self.q_opp
            choices.append((q * up[m] + (1.0 - q) * down[m], PASS, np.nan))
        a = next((a for a in range(POINTS0, MARKS0) if legal[a]), None)
        if a is not None:  # every points bid is one mark: the least has the best chance
            p = chance(best[bid_need(a) - 30], 0)
            choices.append((p * up[1] + (1.0 - p) * down[1], a, p))
        for a in range(MARKS0, PLUNGE):
            if legal[a]:
                m = a - MARKS0 + 1
                p = chance(best[-1], m)
                choices.append((p * up[m] + (1.0 - p) * down[m], a, p))
        held = max(int(st.high_level[t]) - 12, 0)  # the high bid's marks (points: 0)
        for a, kind, least in ((PLUNGE, "plunge", game.rules.plunge_marks),
                               (SPLASH, "splash", 2)):
            if legal[a] and kind in specials:
                m, p = min(max(least, held + 1), MAX_MARKS), specials[kind]
                choices.append((p * up[m] + (1.0 - p) * down[m], a, p))
        if not choices:  # only plunge/splash left: the least of them
            return legal.index(True), np.nan
        # the best value; ties to the earliest (pass, then the least bid)
        top = max(c[0] for c in choices)
        v, a, p = next(c for c in choices if c[0] == top)
        return int(a), float(p)


# ---------------------------------------------------------------------- the agents
