"""Ratings from match results: Bradley-Terry on the Elo scale, bootstrap intervals, OpenSkill.

The caller turns each duplicate deal pair (or each game) into one row ``(a, b, score_a)``: the
score of player ``a`` against player ``b`` in [0, 1] (1 = ``a`` did better, 0.5 = tie, 0 = worse;
fractions are allowed, e.g. a share of marks). From those rows:

- ``bradley_terry(games)``: maximum-likelihood Bradley-Terry strengths, a score counting as a
  fractional win, reported on the Elo scale (400 log10 odds) with one player anchored;
- ``bootstrap_ratings(games, groups)``: the same ratings with percentile intervals, resampling
  groups (deal pairs) with replacement within each pairing, all resamples fitted at once;
- ``bootstrap_mean_ci(values)``: the percentile interval of a plain mean (marks per hand
  difference, made rates, win rates per deal pair);
- ``openskill_ratings(team_games)``: OpenSkill ratings of agents in mixed partnerships;
- ``elo_expected(r_a, r_b)``: the expected score of ``a`` under the Elo model.

The fit. With strengths theta (natural-log odds), P(a beats b) = sigmoid(theta_a - theta_b) and
the log-likelihood of a row is s log p + (1 - s) log(1 - p). It depends on the rows only through,
per pairing, the total score and the number of rows, which is all the fit (and each bootstrap
resample) needs. A tiny ridge prior, ``ridge / 2 * sum(theta**2)`` (a Gaussian prior of standard
deviation ``1 / sqrt(ridge)`` nats, 10 nats = about 1737 Elo at the default), keeps the rating of
a player who won (or lost) every game finite and fixes the free additive constant (the prior
puts the mean strength at 0); with a few hundred rows per pairing its pull on the ratings is far
below an Elo point. The objective is then strictly convex, and a damped Newton iteration
(backtracking line search) converges from zero for any data, for one fit or a batch of them.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Sequence
from typing import Any, NamedTuple

import numpy as np
import openskill.models as models

from agents.arena.stats import bootstrap

ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of natural-log odds
DEFAULT_RIDGE = 1e-2  # prior precision on natural-log strengths (sd 10 nats, ~1737 Elo)
_MAX_BOOT_CHUNK = 2_000_000  # resampled group indices held at once by bootstrap_ratings
_NEWTON_MAX_ITER = 200
_NEWTON_TOL = 1e-9  # on the largest Newton step, in nats (2e-7 Elo)


class DisconnectedGraphError(ValueError):
    """The players split into groups that never met, so ratings across groups mean nothing."""

    def __init__(self, components: list[list[str]]):
        self.components = components
        listed = " | ".join("{" + ", ".join(c) + "}" for c in components)
        super().__init__(
            f"comparison graph is disconnected into {len(components)} components: {listed}; "
            "ratings across components are not comparable (add games between them or rate "
            "each component on its own)"
        )


class RatingInterval(NamedTuple):
    """A rating and its bootstrap percentile interval (Elo)."""

    rating: float
    lo: float
    hi: float


class MeanInterval(NamedTuple):
    """A mean and its bootstrap percentile interval."""

    mean: float
    lo: float
    hi: float


class SkillRating(NamedTuple):
    """An OpenSkill rating: mean, uncertainty and the conservative ordinal (mu - 3 sigma)."""

    mu: float
    sigma: float
    ordinal: float


class _Pairings(NamedTuple):
    """Rows reduced to pairings: players sorted, each pairing oriented i < j."""

    players: list[str]
    i: np.ndarray  # (K,) index of the first player of each pairing
    j: np.ndarray  # (K,) index of the second
    pairing: np.ndarray  # (n,) pairing of each row
    score: np.ndarray  # (n,) score of the pairing's first player in each row


def elo_expected(r_a: Any, r_b: Any) -> Any:
    """The expected score of a player rated ``r_a`` against one rated ``r_b`` (arrays broadcast)."""
    return 1.0 / (1.0 + 10.0 ** ((np.asarray(r_b, dtype=float) - r_a) / 400.0))


def bradley_terry(
    games: Sequence[tuple[str, str, float]],
    anchor: str | None = "random",
    anchor_rating: float = 0.0,
    *,
    ridge: float = DEFAULT_RIDGE,
) -> dict[str, float]:
    """Maximum-likelihood Bradley-Terry ratings on the Elo scale.

    ``games`` are rows ``(a, b, score_a)`` with ``score_a`` in [0, 1] (a tie is 0.5, a fraction a
    partial win). ``anchor`` is put at ``anchor_rating``; if it is None, or absent from the games
    (a warning says so), the mean rating is put at ``anchor_rating`` instead. ``ridge`` is the
    prior precision described in the module docstring. Raises ``DisconnectedGraphError`` (a
    ``ValueError``) when some players never met the others, directly or through third players.
    """
    pairs = _pairings(games)
    wins, counts = _pairing_totals(pairs, np.arange(len(pairs.score)))
    theta = _fit(pairs, wins[None], counts[None], ridge)[0]
    elo = _anchor(pairs.players, theta[None] * ELO_PER_NAT, anchor, anchor_rating)[0]
    return {name: float(r) for name, r in zip(pairs.players, elo)}


def bootstrap_ratings(
    games: Sequence[tuple[str, str, float]],
    groups: Sequence[Hashable] | None = None,
    n_boot: int = 1000,
    rng: np.random.Generator | int | None = 0,
    anchor: str | None = "random",
    anchor_rating: float = 0.0,
    *,
    level: float = 0.95,
    ridge: float = DEFAULT_RIDGE,
) -> dict[str, RatingInterval]:
    """Bradley-Terry ratings with percentile bootstrap intervals, ``{name: (rating, lo, hi)}``.

    ``groups[k]`` is the resampling unit of row ``k`` (its deal-pair id; None: each row is its
    own unit). Units are resampled with replacement within each pairing, so every resample keeps
    each match's number of deal pairs and the comparison graph stays connected; the rows of one
    unit stay together. The rating is the fit to all the data; ``lo`` and ``hi`` are the
    ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled fits, each anchored
    like ``bradley_terry`` (so the anchor's interval is a point). ``rng`` is a Generator or a seed.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    pairs = _pairings(games)
    n = len(pairs.score)
    if groups is None:
        unit = np.arange(n)
    else:
        if len(groups) != n:
            raise ValueError(f"groups has {len(groups)} entries but games has {n} rows")
        unit = _codes(list(zip(pairs.pairing.tolist(), groups)))
    # Reduce rows to units: one score total and one row count per (pairing, group), sorted by
    # pairing so each pairing's units are one contiguous block.
    n_units = int(unit.max()) + 1
    unit_pairing = np.empty(n_units, dtype=np.int64)
    unit_pairing[unit] = pairs.pairing
    order = np.argsort(unit_pairing, kind="stable")
    rank = np.empty(n_units, dtype=np.int64)
    rank[order] = np.arange(n_units)
    unit_score = np.bincount(rank[unit], weights=pairs.score, minlength=n_units)
    unit_rows = np.bincount(rank[unit], minlength=n_units).astype(float)
    unit_pairing = unit_pairing[order]
    block_size = np.bincount(unit_pairing, minlength=len(pairs.i))
    block_start = np.concatenate([[0], np.cumsum(block_size)[:-1]])

    rng = np.random.default_rng(rng)
    start_of_unit = np.repeat(block_start, block_size)  # (U,) each slot draws from its block
    size_of_unit = np.repeat(block_size, block_size).astype(float)
    wins = np.empty((n_boot, len(pairs.i)))
    counts = np.empty((n_boot, len(pairs.i)))
    chunk = max(1, _MAX_BOOT_CHUNK // n_units)
    for lo in range(0, n_boot, chunk):
        hi = min(n_boot, lo + chunk)
        draw = start_of_unit + (rng.random((hi - lo, n_units)) * size_of_unit).astype(np.int64)
        wins[lo:hi] = np.add.reduceat(unit_score[draw], block_start, axis=1)
        counts[lo:hi] = np.add.reduceat(unit_rows[draw], block_start, axis=1)

    full_wins, full_counts = _pairing_totals(pairs, np.arange(n))
    theta = _fit(pairs, np.vstack([full_wins, wins]), np.vstack([full_counts, counts]), ridge)
    elo = _anchor(pairs.players, theta * ELO_PER_NAT, anchor, anchor_rating)
    q = np.quantile(elo[1:], [(1.0 - level) / 2.0, (1.0 + level) / 2.0], axis=0)
    return {
        name: RatingInterval(float(elo[0, p]), float(q[0, p]), float(q[1, p]))
        for p, name in enumerate(pairs.players)
    }


def bootstrap_mean_ci(
    values: Sequence[float] | np.ndarray,
    n_boot: int = 1000,
    rng: np.random.Generator | int | None = 0,
    *,
    level: float = 0.95,
) -> MeanInterval:
    """The mean of ``values`` with its percentile bootstrap interval, ``(mean, lo, hi)``."""
    x = np.asarray(values, dtype=float).ravel()
    if x.size == 0:
        raise ValueError("bootstrap_mean_ci needs at least one value")
    if not np.all(np.isfinite(x)):
        raise ValueError("bootstrap_mean_ci got a NaN or infinite value")
    if n_boot < 1:
        raise ValueError(f"n_boot must be at least 1, got {n_boot}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if np.all(x == x[0]):  # every resample is the same: a point, exactly
        return MeanInterval(float(x[0]), float(x[0]), float(x[0]))
    _, lo, hi = bootstrap(lambda s: x[s].mean(-1), x.size, n_boot, rng,
                          ((1.0 - level) / 2.0, (1.0 + level) / 2.0), block=_MAX_BOOT_CHUNK // x.size)
    # Summation order can move a resampled mean by the last bit; keep the estimate inside.
    return MeanInterval(float(x.mean()), min(lo, float(x.mean())), max(hi, float(x.mean())))


def openskill_ratings(
    team_games: Sequence[tuple[tuple[str, str], tuple[str, str], float]],
    model: Any = "PlackettLuce",
) -> dict[str, SkillRating]:
    """OpenSkill ratings of agents from partnership games, processed in order.

    Each row is ``((a1, a2), (b1, b2), score_a)``: the two teams and the score of team a in
    [0, 1]; above 0.5 is a win for a, below a loss, exactly 0.5 a tie (OpenSkill rates rank
    orders, so the size of a win is not used). ``model`` is an OpenSkill model instance or the
    name of a class in ``openskill.models`` (PlackettLuce by default). An agent may fill both
    seats of a team or play on both sides (mixed partnerships): each seat is rated as a separate
    copy of the agent's current rating, and the agent's new rating is the mean of its copies'
    updates, so a team of two copies moves as much as a team of two agents, and a mirrored
    game moves neither agent much. Returns ``{name: (mu, sigma, ordinal)}``.
    """
    if isinstance(model, str):
        cls = getattr(models, model, None)
        if cls is None:
            raise ValueError(f"openskill.models has no model named {model!r}")
        model = cls()
    ratings: dict[str, tuple[float, float]] = {}
    for row, game in enumerate(team_games):
        try:
            team_a, team_b, score = game
            seats = [str(x) for x in team_a] + [str(x) for x in team_b]
            score = float(score)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"team game {row}: expected ((a1, a2), (b1, b2), score_a), got {game!r}"
            ) from exc
        if len(team_a) != 2 or len(team_b) != 2:
            raise ValueError(f"team game {row}: each team must have two agents, got {game!r}")
        if not 0.0 <= score <= 1.0:
            raise ValueError(f"team game {row}: score_a must be in [0, 1], got {score}")
        for name in seats:
            if name not in ratings:
                default = model.rating()
                ratings[name] = (default.mu, default.sigma)
        copies = [model.rating(mu=ratings[s][0], sigma=ratings[s][1], name=s) for s in seats]
        ranks = [0, 0] if score == 0.5 else ([0, 1] if score > 0.5 else [1, 0])
        new_a, new_b = model.rate([copies[:2], copies[2:]], ranks=ranks)
        updates: dict[str, list[tuple[float, float]]] = {}
        for name, new in zip(seats, list(new_a) + list(new_b)):
            updates.setdefault(name, []).append((new.mu, new.sigma))
        for name, ups in updates.items():
            ratings[name] = (
                float(np.mean([u[0] for u in ups])),
                float(np.mean([u[1] for u in ups])),
            )
    return {
        name: SkillRating(mu, sigma, float(model.rating(mu=mu, sigma=sigma).ordinal()))
        for name, (mu, sigma) in sorted(ratings.items())
    }


def _codes(keys: list[Any]) -> np.ndarray:
    """Dense integer codes of hashable keys, in order of first appearance."""
    index: dict[Any, int] = {}
    return np.fromiter((index.setdefault(k, len(index)) for k in keys), np.int64, len(keys))


def _pairings(games: Sequence[tuple[str, str, float]]) -> _Pairings:
    """Check the rows and reduce them to oriented pairings; raise if the graph is disconnected."""
    if len(games) == 0:
        raise ValueError("no games to rate")
    a_names, b_names, scores = [], [], []
    for row, game in enumerate(games):
        try:
            a, b, s = game
            s = float(s)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"game {row}: expected (a, b, score_a), got {game!r}") from exc
        if not isinstance(a, str) or not isinstance(b, str):
            raise ValueError(f"game {row}: player names must be strings, got {game!r}")
        if a == b:
            raise ValueError(f"game {row}: {a!r} cannot play itself")
        if not 0.0 <= s <= 1.0:  # also rejects NaN
            raise ValueError(f"game {row}: score_a must be in [0, 1], got {s} in {game!r}")
        a_names.append(a)
        b_names.append(b)
        scores.append(s)
    players = sorted(set(a_names) | set(b_names))
    index = {name: k for k, name in enumerate(players)}
    a_idx = np.fromiter((index[x] for x in a_names), np.int64, len(a_names))
    b_idx = np.fromiter((index[x] for x in b_names), np.int64, len(b_names))
    score = np.asarray(scores, dtype=float)
    swap = a_idx > b_idx
    lo, hi = np.where(swap, b_idx, a_idx), np.where(swap, a_idx, b_idx)
    score = np.where(swap, 1.0 - score, score)
    key = lo * len(players) + hi
    uniq, pairing = np.unique(key, return_inverse=True)
    pairs = _Pairings(players, uniq // len(players), uniq % len(players), pairing, score)
    _check_connected(pairs)
    return pairs


def _check_connected(pairs: _Pairings) -> None:
    parent = list(range(len(pairs.players)))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in zip(pairs.i.tolist(), pairs.j.tolist()):
        parent[root(i)] = root(j)
    components: dict[int, list[str]] = {}
    for k, name in enumerate(pairs.players):
        components.setdefault(root(k), []).append(name)
    if len(components) > 1:
        raise DisconnectedGraphError(sorted(components.values()))


def _pairing_totals(pairs: _Pairings, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Total score of the first player and number of rows, per pairing, over ``rows``."""
    k = len(pairs.i)
    wins = np.bincount(pairs.pairing[rows], weights=pairs.score[rows], minlength=k)
    counts = np.bincount(pairs.pairing[rows], minlength=k).astype(float)
    return wins, counts


def _fit(pairs: _Pairings, wins: np.ndarray, counts: np.ndarray, ridge: float) -> np.ndarray:
    """Penalized Bradley-Terry strengths (nats) for a batch of data sets: (B, K) -> (B, P)."""
    if not ridge > 0.0:
        raise ValueError(f"ridge must be positive (it keeps unbeaten players finite), got {ridge}")
    n_players = len(pairs.players)
    incidence = np.zeros((len(pairs.i), n_players))
    incidence[np.arange(len(pairs.i)), pairs.i] = 1.0
    incidence[np.arange(len(pairs.i)), pairs.j] = -1.0
    losses = counts - wins
    eye = np.eye(n_players)

    def objective(theta: np.ndarray) -> np.ndarray:
        d = theta @ incidence.T
        nll = wins * np.logaddexp(0.0, -d) + losses * np.logaddexp(0.0, d)
        return nll.sum(axis=1) + 0.5 * ridge * (theta**2).sum(axis=1)

    theta = np.zeros((wins.shape[0], n_players))
    value = objective(theta)
    for _ in range(_NEWTON_MAX_ITER):
        d = theta @ incidence.T
        p, q = np.exp(-np.logaddexp(0.0, -d)), np.exp(-np.logaddexp(0.0, d))  # p, 1 - p
        grad = (counts * p - wins) @ incidence + ridge * theta
        hess = np.einsum("bk,ki,kj->bij", counts * p * q, incidence, incidence) + ridge * eye
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        decrement = (grad * step).sum(axis=1)
        # Near the optimum the gain is below what the objective resolves; there the plain
        # Newton step is taken. Elsewhere, backtracking (Armijo) line search, per data set.
        resolved = decrement > 1e-12 * (1.0 + np.abs(value))
        t = np.ones(len(theta))
        candidate = theta - step
        new_value = objective(candidate)
        for _ in range(60):
            bad = resolved & (new_value > value - 1e-4 * t * decrement)
            if not bad.any():
                break
            t = np.where(bad, 0.5 * t, t)
            candidate = np.where(bad[:, None], theta - t[:, None] * step, candidate)
            new_value = np.where(bad, objective(candidate), new_value)
        theta, value = candidate, new_value
        if np.max(np.abs(step)) < _NEWTON_TOL:
            return theta
    raise RuntimeError(
        f"Bradley-Terry fit did not converge in {_NEWTON_MAX_ITER} Newton steps "
        f"(largest last step {np.max(np.abs(step)):.3g} nats)"
    )


def _anchor(
    players: list[str], elo: np.ndarray, anchor: str | None, anchor_rating: float
) -> np.ndarray:
    """Shift each row of ``elo`` (B, P) so the anchor (else the mean) sits at anchor_rating."""
    if anchor is not None and anchor in players:
        return elo - elo[:, [players.index(anchor)]] + anchor_rating
    if anchor is not None:
        warnings.warn(
            f"anchor {anchor!r} is not among the rated players {players}; "
            f"the mean rating is put at {anchor_rating} instead",
            stacklevel=3,
        )
    return elo - elo.mean(axis=1, keepdims=True) + anchor_rating
