"""The exact solver on nello and sevens (agents/search/solver.py): against a plain brute-force
minimax through the core's own ``step`` on endgames of every ``nello_doubles`` and
``sevens_tie`` rule, and the values' meaning (tricks, not points)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.search.solver import solve_position, solve_records, solve_value
from helpers import record, stepped
from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS
from texas42_env.core import PLAYING, Game
from texas42_env.records import record_from_state
from texas42_env.rules import NELLO, SEVENS, RulesConfig
from texas42_env.sampling import uniform_legal

NELLO_GAMES = {d: Game(RulesConfig.make(play_out=True, nello_doubles=d))
               for d in ("high", "low", "own_suit")}
SEVENS_GAMES = {(tie, out): Game(RulesConfig.make(sevens=True, sevens_tie=tie, play_out=out))
                for tie in ("first", "bidder") for out in (False, True)}


# ----------------------------------------------------------------------------- brute force
def _brute(game: Game, st, seen: dict | None = None) -> int:
    """The contract's value by plain minimax through the core (no pruning): nello, the
    tricks the bidder takes (every trick played: ``game`` plays out; the bidder minimising);
    sevens, the tricks the bidding team takes before the core ends the hand (it maximising).
    ``seen``: values of positions met before, keyed by everything the rest of the hand
    depends on (the hands, the trick so far, the tricks taken), for deeper endgames."""
    bidder = int(st.bidder[0])
    if st.phase[0] != PLAYING:
        return int(st.tricks_won[0, bidder & 1])
    key = None
    if seen is not None:
        key = (tuple(int(x) for x in st.hands[0]), int(st.to_move[0]), int(st.n_in_trick[0]),
               int(st.led[0]), int(st.best_rank[0]), int(st.best_seat[0]),
               int(st.tricks_won[0, bidder & 1]))
        if key in seen:
            return seen[key]
    vals = [_brute(game, stepped(game, st, a), seen) for a in np.flatnonzero(st.legal[0])]
    seat = int(st.to_move[0])
    if int(st.contract[0]) == NELLO:
        v = min(vals) if seat == bidder else max(vals)
    else:
        v = max(vals) if seat & 1 == bidder & 1 else min(vals)
    if key is not None:
        seen[key] = v
    return v


def brute_values(game: Game, st, memo: bool = False) -> dict[str, int]:
    seen = {} if memo else None
    return {T.TILE_NAMES[a - game.actions.play0]: _brute(game, stepped(game, st, a), seen)
            for a in np.flatnonzero(st.legal[0])}


def contract_positions(game: Game, contract: int, n: int, seed: int,
                       plays_left: tuple[int, int]):
    """``n`` one-table states of ``game`` from random deals: a random seat opens 1m, the
    others pass, it declares ``contract``, and random legal play stops with ``plays_left``
    (lowest, highest) plays of the hand's tricks to go."""
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < n:
        st = game.reset(1, seed=seed, game_ids=[g])
        g += 1
        opener = int(rng.integers(0, 4))
        for _ in range(4):
            seat = int(st.to_move[0])
            game.step(st, np.array([MARKS0 if seat == opener else PASS]))
        a = game.actions.contract0 + contract
        assert st.legal[0, a], (contract, g)
        game.step(st, np.array([a]))
        total = int(st.trick_size[0]) * game.n_tricks
        stop = total - int(rng.integers(plays_left[0], plays_left[1] + 1))
        while st.phase[0] == PLAYING and int(st.n_plays[0]) < stop:
            game.step(st, uniform_legal(st.legal, rng))
        if st.phase[0] == PLAYING:
            out.append(st)
    return out


def mover_best(st, seat: int, values: list[int]) -> int:
    """The best of ``values`` for ``seat``: in nello the bidder wants fewest tricks, the
    opponents most; in sevens the bidding team most, the others fewest."""
    bidder = int(st.bidder[0])
    if int(st.contract[0]) == NELLO:
        return min(values) if seat == bidder else max(values)
    return max(values) if seat & 1 == bidder & 1 else min(values)


def check_against_brute(game: Game, states, also: Game, memo: bool = False) -> None:
    for i, st in enumerate(states):
        want = brute_values(game, st, memo)
        got = solve_position(game, st, 0)
        hands = [[T.TILE_NAMES[t] for t in T.tiles_of(int(x))] for x in st.hands[0]]
        assert got["to_move"] == int(st.to_move[0])
        assert got["values"] == want, (i, hands, int(st.bidder[0]), got, want)
        best = mover_best(st, got["to_move"], list(want.values()))
        assert solve_value(game, st, 0) == best, (i, hands)
        # the same tables under the other play_out setting: the same values
        assert solve_position(also, st, 0)["values"] == want


# ----------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("doubles", ["high", "low", "own_suit"])
def test_nello_agrees_with_brute_force_on_endgames_of_up_to_three_tricks(doubles):
    game = NELLO_GAMES[doubles]
    other = Game(RulesConfig.make(nello_doubles=doubles))  # play_out off
    check_against_brute(game, contract_positions(game, NELLO, 60, seed=11, plays_left=(1, 9)),
                        other)


@pytest.mark.parametrize("doubles", ["high", "low", "own_suit"])
def test_nello_agrees_with_brute_force_on_endgames_of_four_tricks(doubles):
    game = NELLO_GAMES[doubles]
    other = Game(RulesConfig.make(nello_doubles=doubles))
    check_against_brute(game, contract_positions(game, NELLO, 15, seed=12, plays_left=(10, 12)),
                        other)


@pytest.mark.parametrize("doubles", ["high", "low", "own_suit"])
def test_nello_agrees_with_brute_force_on_endgames_of_five_tricks(doubles):
    """Deep enough to need the search's bounds at trick starts (an empty null window once
    gave wrong values from five tricks out); brute force keeps the positions it met."""
    game = NELLO_GAMES[doubles]
    other = Game(RulesConfig.make(nello_doubles=doubles))
    check_against_brute(game, contract_positions(game, NELLO, 8, seed=18, plays_left=(13, 15)),
                        other, memo=True)


@pytest.mark.parametrize("tie", ["first", "bidder"])
def test_sevens_agrees_with_brute_force_on_endgames_of_up_to_three_tricks(tie):
    for out in (False, True):
        game = SEVENS_GAMES[(tie, out)]
        states = contract_positions(game, SEVENS, 60, seed=13, plays_left=(1, 12))
        check_against_brute(game, states, SEVENS_GAMES[(tie, not out)])


def test_sevens_agrees_with_brute_force_from_the_opening_lead():
    """Sevens plays are forced up to tiles of one closeness class, so brute force reaches the
    opening lead."""
    for (tie, out), game in SEVENS_GAMES.items():
        states = contract_positions(game, SEVENS, 4, seed=14, plays_left=(28, 28))
        check_against_brute(game, states, SEVENS_GAMES[(tie, not out)])


def _solve_one(rec: dict) -> dict:
    (out,) = list(solve_records([json.dumps(rec)]))
    return out


def test_values_are_tricks_and_solve_value_is_the_movers_best_from_the_opening_lead():
    for game, contract in ((NELLO_GAMES["high"], NELLO), (SEVENS_GAMES[("first", False)],
                                                          SEVENS)):
        for st in contract_positions(game, contract, 6, seed=15, plays_left=(21, 28)):
            bidder = int(st.bidder[0])
            have = int(st.tricks_won[0, bidder & 1])
            got = solve_position(game, st, 0)
            values = list(got["values"].values())
            assert values and all(isinstance(v, int) and have <= v <= 7 for v in values)
            best = mover_best(st, got["to_move"], values)
            assert solve_value(game, st, 0) == best


def test_records_of_nello_and_sevens_are_solved():
    nello = record(bids=["1m", "pass", "pass", "pass"], contract="nello", plays=["6-6"])
    out = _solve_one(nello)
    # seat 0 (the bidder) led 6-6; seat 2 sits out, seat 1 follows sixes? it holds none
    assert out["to_move"] == 1 and set(out["values"]) == {
        "5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"}
    assert all(0 <= v <= 7 for v in out["values"].values())
    sevens = record(bids=["1m", "pass", "pass", "pass"], contract="sevens", sevens=True)
    out = _solve_one(sevens)
    assert out["to_move"] == 0 and list(out["values"]) == ["6-1"]
    game = NELLO_GAMES["high"]
    states = contract_positions(game, NELLO, 4, seed=16, plays_left=(1, 21))
    lines = [json.dumps(record_from_state(game, st, 0)) for st in states]
    assert list(solve_records(lines)) == [solve_position(game, st, 0) for st in states]


def test_nello_values_from_the_opening_lead_agree_with_the_values_one_play_later():
    """Each play's value is the value of the position it leads to (full hands: too deep for
    brute force), under every ``nello_doubles`` rule."""
    for doubles, game in NELLO_GAMES.items():
        for st in contract_positions(game, NELLO, 3, seed=17, plays_left=(19, 21)):
            got = solve_position(game, st, 0)["values"]
            for a in np.flatnonzero(st.legal[0]):
                after = stepped(game, st, a)
                tile = T.TILE_NAMES[a - game.actions.play0]
                assert after.phase[0] == PLAYING and solve_value(game, after, 0) == got[tile], \
                    (doubles, tile)
