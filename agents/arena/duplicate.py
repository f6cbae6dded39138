"""Duplicate matches: two sides play the same deals twice, seats swapped, so the luck of the
deal cancels.

A side is one agent (it plays every seat of its team) or its partners, one agent a seat of the
team by role: two in the standard game (the first plays seat 0 or 1, the second its partner's
seat), three in the six-player game (seats 0/2/4 or 1/3/5, in that order). In orientation 0
side A holds the even seats (0 and 2; six-player 0, 2 and 4); in orientation 1 the odd ones
(1 and 3; 1, 3 and 5) of the very same deals. ``mode="hands"``: each deal is one hand (hand 0
of game ``deal``); ``mode="games"``: each deal is a whole game to the target, its hands fixed
by (seed, game, hand).

Each deal pair yields marks, bids and makes per side (and game wins in games mode); the
summary gives the mean marks-per-hand difference, win rate and made rates with bootstrap
95% confidence intervals over deal pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from texas42_env.core import GAME_OVER, HAND_OVER, Game, IllegalActionError, State
from texas42_env.observation import make_encoder
from texas42_env.records import record_from_state
from texas42_env.rules import RulesConfig

from agents.arena.stats import bootstrap
from agents.base import Agent, make_agent
from agents.driver import choose

MODES = ("hands", "games")


@dataclass
class PairStats:
    """Per deal pair (both orientations), side A and side B."""

    a_marks: np.ndarray
    b_marks: np.ndarray
    a_bids: np.ndarray
    a_made: np.ndarray
    b_bids: np.ndarray
    b_made: np.ndarray
    hands: np.ndarray
    a_wins: np.ndarray  # games won by A (games mode; 0 in hands mode)

    FIELDS = ("a_marks", "b_marks", "a_bids", "a_made", "b_bids", "b_made", "hands", "a_wins")

    @classmethod
    def zeros(cls, n: int) -> "PairStats":
        return cls(*(np.zeros(n, np.int64) for _ in cls.FIELDS))

    def to_dict(self) -> dict:
        return {f: getattr(self, f).tolist() for f in self.FIELDS}

    @classmethod
    def from_dict(cls, d: dict) -> "PairStats":
        return cls(*(np.asarray(d[f], np.int64) for f in cls.FIELDS))

    @classmethod
    def concat(cls, parts: Sequence["PairStats"]) -> "PairStats":
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.FIELDS))


def ruleset_fault(agent, ruleset: str) -> str | None:
    """Why ``agent`` (an ``Agent`` or a registry factory) cannot play ``ruleset``, in words
    naming the rulesets it plays, or None when it can."""
    plays = tuple(getattr(agent, "rulesets", (ruleset,)))
    if ruleset in plays:
        return None
    name = getattr(agent, "name", None) or getattr(agent, "__name__", "?")
    rulesets = "ruleset" if len(plays) == 1 else "rulesets"
    return f"agent {name!r} plays the {' and '.join(plays)} {rulesets} only, not {ruleset}"


def _side(spec, team_seats: int) -> list[Agent]:
    """The agent of each seat of a team, by role: one agent in every seat, or its partners."""
    if isinstance(spec, Agent):
        return [spec] * team_seats
    if isinstance(spec, (list, tuple)):
        agents = [s if isinstance(s, Agent) else make_agent(s) for s in spec]
        if len(agents) == 1:
            agents = agents * team_seats
        if len(agents) != team_seats:
            raise ValueError(f"a side is one agent or {team_seats} partners (one a seat of "
                             f"its team), got {len(agents)}")
        return agents
    return [make_agent(spec)] * team_seats


def play_duplicate(rules: RulesConfig, side_a, side_b, deals: int | Sequence[int],
                   mode: str = "hands",
                   seed: int = 0, first_deal: int = 0, chunk: int = 4096,
                   on_records: Callable[[list[dict]], None] | None = None,
                   on_hands: Callable[[State, np.ndarray, np.ndarray], None] | None = None,
                   progress: Callable[[int], None] | None = None) -> PairStats:
    """Play deals ``first_deal .. first_deal + deals - 1`` twice, seats swapped (``deals``
    a sequence: those deal numbers, in that order, e.g. deals chosen for their contract, and
    no ``first_deal``).

    ``side_a``/``side_b``: an agent, a name or spec, or a list of partners (two; six-player
    three), one a seat of the team by role. An agent that does not play ``rules.ruleset`` is
    refused (``ValueError`` naming it and the rulesets it plays) before any hand.
    ``on_records`` receives the game records of every finished hand (with the agents by seat);
    ``on_hands(state, tables, orientations)`` the state itself at the tables whose hand just
    ended (before the next is dealt), for figures a record would have to be replayed for;
    ``progress`` the number of deal pairs finished after each chunk.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; allowed: {', '.join(MODES)}")
    game = Game(rules)
    encoder = make_encoder(game)
    sides = [_side(side_a, game.n_seats // 2), _side(side_b, game.n_seats // 2)]
    for side in sides:
        for agent in side:
            if (why := ruleset_fault(agent, rules.ruleset)) is not None:
                raise ValueError(why)
            agent.setup(game)
    if isinstance(deals, (int, np.integer)) and not isinstance(deals, bool):
        ids = np.arange(first_deal, first_deal + int(deals))
    else:
        ids = np.asarray(deals)
        if isinstance(deals, bool) or ids.ndim != 1 or ids.size == 0 or \
                ids.dtype.kind not in "iu" or (ids < 0).any() or first_deal:
            raise ValueError(f"deals: a count, or a non-empty list of deal numbers 0 or more "
                             f"(without first_deal), got {deals!r}"[:200])
        ids = ids.astype(np.int64)
    parts = []
    for lo in range(0, len(ids), chunk):
        part = ids[lo:lo + chunk]
        parts.append(_play_chunk(game, encoder, sides, part, mode, seed, on_records,
                                 on_hands))
        if progress:
            progress(len(part))
    return PairStats.concat(parts)


def _play_chunk(game, encoder, sides, ids, mode, seed, on_records, on_hands) -> PairStats:
    S = game.n_seats
    n = len(ids)
    st = game.reset(2 * n, seed=seed, game_ids=np.concatenate([ids, ids]))
    orient = np.repeat([0, 1], n)
    pair = np.concatenate([np.arange(n), np.arange(n)])
    team_a = orient  # orientation 0: A is team 0 (even seats); orientation 1: team 1 (odd)
    # controller of (orientation, seat): side (seat % 2 ^ orientation), partner role seat // 2
    agents = []
    ctrl = np.zeros((2, S), np.int64)
    for o in (0, 1):
        for s in range(S):
            agent = sides[(s % 2) ^ o][s // 2]
            if agent not in agents:
                agents.append(agent)
            ctrl[o, s] = agents.index(agent)
    names = {o: {s: sides[(s % 2) ^ o][s // 2].name for s in range(S)} for o in (0, 1)}
    stats = PairStats.zeros(n)
    while True:
        active = st.phase < HAND_OVER
        if not active.any():
            break
        seats = np.where(active, st.to_move, 0)
        who = np.where(active, ctrl[orient, seats], -1)
        actions = choose(game, st, agents, who, encoder, seats)
        try:
            game.step(st, actions)
        except IllegalActionError as e:
            o, s = int(orient[e.table]), int(seats[e.table])
            raise ValueError(f"agent {names[o][s]!r} (seat {s}) played an illegal action: "
                             f"{e}") from e
        ended = np.flatnonzero(active & (st.phase >= HAND_OVER))  # ended by this step
        if ended.size:
            _tally(st, ended, team_a, pair, stats)
            if on_hands is not None:
                on_hands(st, ended, orient[ended])
            if on_records is not None:
                on_records([record_from_state(
                    game, st, int(t), orientation=int(orient[t]),
                    agents=[names[int(orient[t])][s] for s in range(S)]) for t in ended])
            if mode == "games":
                over = ended[st.phase[ended] == GAME_OVER]
                np.add.at(stats.a_wins, pair[over], st.winner[over] == team_a[over])
                more = ended[st.phase[ended] != GAME_OVER]
                if more.size:
                    game.next_hand(st, more)
    return stats


def _tally(st, ended, team_a, pair, stats: PairStats) -> None:
    ta = team_a[ended]
    p = pair[ended]
    marks = st.hand_marks[ended]
    rows = np.arange(len(ended))
    np.add.at(stats.a_marks, p, marks[rows, ta])
    np.add.at(stats.b_marks, p, marks[rows, ta ^ 1])
    np.add.at(stats.hands, p, 1)
    bidder = st.bidder[ended]
    bid = bidder >= 0
    made = st.made[ended] == 1
    a_bid = bid & ((bidder & 1) == ta)
    b_bid = bid & ~a_bid
    np.add.at(stats.a_bids, p, a_bid)
    np.add.at(stats.a_made, p, a_bid & made)
    np.add.at(stats.b_bids, p, b_bid)
    np.add.at(stats.b_made, p, b_bid & made)


def summarize(stats: PairStats, mode: str = "hands", n_boot: int = 1000,
              seed: int = 0) -> dict:
    """Mean marks per hand (A minus B), game win rate of A and made rates, each with a
    bootstrap 95% CI over deal pairs: ``{name: [estimate, low, high]}``. Games mode adds
    ``a_win_rate`` and ``marks_per_game`` (A's marks minus B's, per game)."""
    rng = np.random.default_rng(seed)
    n = len(stats.hands)
    diff = (stats.a_marks - stats.b_marks) / np.maximum(stats.hands, 1)

    def ratio(num, den):
        def value(s):
            d = den[s].sum(-1)
            return np.where(d > 0, num[s].sum(-1) / np.maximum(d, 1), np.nan)
        return value

    out = {
        "pairs": n,
        "hands": int(stats.hands.sum()),
        "marks_per_hand": list(bootstrap(lambda s: diff[s].mean(-1), n, n_boot, rng)),
        "a_made_rate": list(bootstrap(ratio(stats.a_made, stats.a_bids), n, n_boot, rng)),
        "b_made_rate": list(bootstrap(ratio(stats.b_made, stats.b_bids), n, n_boot, rng)),
        "a_bid_rate": [float(stats.a_bids.sum() / max(stats.hands.sum(), 1))],
        "b_bid_rate": [float(stats.b_bids.sum() / max(stats.hands.sum(), 1))],
    }
    if mode == "games":
        out["a_win_rate"] = list(bootstrap(lambda s: stats.a_wins[s].mean(-1) / 2, n, n_boot, rng))
        # each pair is two games: A's marks minus B's per game
        per_game = (stats.a_marks - stats.b_marks) / 2.0
        out["marks_per_game"] = list(bootstrap(lambda s: per_game[s].mean(-1), n, n_boot, rng))
    return out


def pair_scores(stats: PairStats, mode: str = "hands") -> np.ndarray:
    """Side A's score per deal pair in [0, 1], for ratings: games won / 2 in games mode;
    else 1, 0.5 or 0 as A took more, as many or fewer marks than B over the pair."""
    if mode == "games":
        return stats.a_wins / 2.0
    return np.where(stats.a_marks > stats.b_marks, 1.0,
                    np.where(stats.a_marks == stats.b_marks, 0.5, 0.0))
