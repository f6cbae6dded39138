"""The exact solver (agents/search/solver.py): against a plain brute-force minimax through the core,
on a hand-worked endgame, and its record interface."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.bench import bench_solver, opening_positions

from agents.search.solver import solve_position, solve_records, solve_value
from helpers import SPEC_HANDS, brute_values, record
from texas42_env import tiles as T
from texas42_env.core import PLAYING, Game
from texas42_env.records import record_from_state
from texas42_env.rules import FOLLOW_ME, RulesConfig
from texas42_env.sampling import uniform_legal

STANDARD = Game()
PLAY_OUT = Game(RulesConfig.make(play_out=True))
OWN_SUIT = Game(RulesConfig.make(play_out=True, follow_me_doubles="own_suit"))
SIX = Game(RulesConfig.make("six-player"))


# ----------------------------------------------------------------------------- positions
def random_positions(game: Game, n: int, seed: int, plays_left: tuple[int, int]):
    """``n`` one-table states of ``game`` from random deals, bids and play, each with a
    contract drawn from the suits, doubles and follow-me and stopped with ``plays_left``
    (lowest, highest) plays to go."""
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < n:
        st = game.reset(1, seed=seed, game_ids=[g])
        g += 1
        for _ in range(game.n_seats):
            game.step(st, uniform_legal(st.legal, rng))
        c = int(rng.integers(0, FOLLOW_ME + 1))
        game.step(st, np.array([game.actions.contract0 + c]))
        stop = 28 - int(rng.integers(plays_left[0], plays_left[1] + 1))
        while st.phase[0] == PLAYING and int(st.n_plays[0]) < stop:
            game.step(st, uniform_legal(st.legal, rng))
        if st.phase[0] == PLAYING:
            out.append(st)
    return out


def check_against_brute(game: Game, states) -> None:
    for i, st in enumerate(states):
        want = brute_values(game, st)
        got = solve_position(game, st, 0)
        assert got["to_move"] == int(st.to_move[0])
        hands = [[T.TILE_NAMES[t] for t in T.tiles_of(int(x))] for x in st.hands[0]]
        assert got["values"] == want, (i, int(st.contract[0]), hands, got, want)
        # the solver plays every hand out whatever the table's play_out option
        assert solve_position(STANDARD, st, 0)["values"] == want


# ----------------------------------------------------------------------------- the tests
def test_solver_agrees_with_brute_force_on_endgames_of_up_to_three_tricks():
    check_against_brute(PLAY_OUT, random_positions(PLAY_OUT, 200, seed=1, plays_left=(1, 12)))


def test_solver_agrees_with_brute_force_with_doubles_as_their_own_suit_in_follow_me():
    check_against_brute(OWN_SUIT, random_positions(OWN_SUIT, 40, seed=2, plays_left=(1, 12)))


@pytest.mark.slow
def test_solver_agrees_with_brute_force_on_many_endgames_of_up_to_four_tricks():
    check_against_brute(PLAY_OUT, random_positions(PLAY_OUT, 1500, seed=3, plays_left=(1, 12)))
    check_against_brute(PLAY_OUT, random_positions(PLAY_OUT, 20, seed=4, plays_left=(13, 16)))


def test_best_value_is_solve_value_and_values_are_points_of_the_hand():
    states = random_positions(PLAY_OUT, 24, seed=5, plays_left=(13, 28))
    for st in states:
        team = int(st.bidder[0]) & 1
        have = int(st.points[0, team])
        left = 42 - int(st.points[0].sum())
        got = solve_position(STANDARD, st, 0)
        values = list(got["values"].values())
        assert got["values"]
        assert all(isinstance(v, int) and 0 <= v <= 42 for v in values)
        assert all(have <= v <= have + left for v in values)
        best = max(values) if got["to_move"] & 1 == team else min(values)
        assert solve_value(STANDARD, st, 0) == best
        p0 = STANDARD.actions.play0
        legal = sorted(T.TILE_NAMES[a - p0] for a in np.flatnonzero(st.legal[0]))
        assert list(got["values"]) == legal  # every legal play, in name order


# A hand-worked endgame (rules.md notation). Sixes are trumps; seat 2 (bidding team 0, 13 points
# so far) leads the sixth trick. Left: seat 0 5-0 6-4, seat 1 0-0 3-3, seat 2 4-0 5-5,
# seat 3 3-0 6-0; trumps 6-4 > 6-0; 27 points to come (5-0, 6-4, 5-5 and two tricks).
# - 4-0 (calls fours; nobody else holds one): if seat 3 trumps with 6-0, seat 0 overtrumps
#   with 6-4 (11), then leads 5-0 and seat 2's 5-5 must follow and wins (16); if seat 3 throws
#   3-0, seat 0 feeds 5-0 (6), then 5-5 is led, seat 3 trumps, seat 0 overtrumps (21).
#   Either way team 0 takes all 27: 40.
# - 5-5 (calls fives): seat 3, void, trumps with 6-0; seat 0 must follow with 5-0: team 1 takes
#   16. Seat 3 leads 3-0; seat 0 trumps it with 6-4 (11): 13 + 11 = 24.
# After 5-5 is led, seat 3 (the other team) chooses: 6-0 gives 24, 3-0 lets team 0 take all, 40.
WORKED = record(
    hands=[["6-4", "6-1", "5-0", "4-3", "4-2", "2-2", "1-1"],
           ["6-2", "5-4", "5-2", "3-3", "3-2", "2-1", "0-0"],
           ["6-5", "5-5", "5-3", "4-4", "4-1", "4-0", "2-0"],
           ["6-6", "6-3", "6-0", "5-1", "3-1", "3-0", "1-0"]],
    bids=["39", "pass", "40", "pass"], contract="6s",
    plays=["4-4", "5-1", "4-2", "5-4", "2-0", "6-3", "2-2", "5-2", "1-0", "1-1", "2-1", "4-1",
           "6-1", "6-2", "6-5", "6-6", "3-1", "4-3", "3-2", "5-3"])


def solve_one(rec: dict) -> dict:
    (out,) = list(solve_records([json.dumps(rec)]))
    return out


def test_last_two_tricks_rest_on_unique_positive_ranks():
    """The solver counts the last two tricks by comparing the sides' highest ranks: in every
    suit a trick can call for, the tiles ranking above 0 rank apart, and a led tile ranks
    above 0 in the suit it calls for."""
    from agents.search.layout import LED, RANK
    from agents.search.solver import Solver
    from texas42_env.rules import N_LED

    solver = Solver(tt_bits=1)
    for game in (STANDARD, OWN_SUIT):
        for c in range(FOLLOW_ME + 1):
            tab = solver.contract_table(game, c)
            for s in range(N_LED):
                ranks = tab[RANK + s]
                above = ranks[ranks > 0]
                assert len(set(above.tolist())) == len(above), (c, s)
            assert all(tab[RANK + tab[LED, t], t] > 0 for t in range(T.N_TILES)), c


def test_hand_worked_endgame():
    assert solve_one(WORKED) == {"to_move": 2, "values": {"4-0": 40, "5-5": 24}}
    after = dict(WORKED, plays=WORKED["plays"] + ["5-5"])
    assert solve_one(after) == {"to_move": 3, "values": {"3-0": 40, "6-0": 24}}


def test_solving_a_record_equals_solving_its_state():
    game = STANDARD
    states = random_positions(game, 12, seed=6, plays_left=(1, 28))
    lines = [json.dumps(record_from_state(game, st, 0)) for st in states]
    lines.insert(3, "")  # blank lines are skipped
    got = list(solve_records(line.encode() if i % 2 else line for i, line in enumerate(lines)))
    assert got == [solve_position(game, st, 0) for st in states]
    assert all(list(g["values"]) == sorted(g["values"]) for g in got)


@pytest.mark.parametrize("rec, words", [
    (record_from_state(SIX, SIX.reset(1), 0), "not in the play phase (phase bid)"),
    (record(bids=["30", "pass"]), "not in the play phase (phase bid)"),
    (record(bids=["30", "pass", "pass", "pass"]), "not in the play phase (phase declare)"),
    (record(bids=["30", "pass", "pass", "pass"], contract="6s",
            plays=["6-6", "5-5", "4-1", "2-1", "6-4", "5-0", "3-2", "1-0"]),
     "not in the play phase (phase over)"),
    (record(bids=["30", "pass", "pass", "pass"], contract="6s", plays=["5-5"]), "not legal"),
    (dict(record(), hands=SPEC_HANDS[:3]), "field 'hands'"),
])
def test_records_the_solver_cannot_solve_give_one_error_line(rec, words):
    out = solve_one(rec)
    assert list(out) == ["error"] and words in out["error"] and out["error"].startswith("line 1: ")


def test_a_bad_line_is_an_error_line_and_the_next_is_solved():
    lines = ["{not json", "[1, 2]", b"\xff\xfe", json.dumps(WORKED)]
    out = list(solve_records(lines))
    assert [list(o) for o in out[:3]] == [["error"]] * 3
    assert out[0]["error"].startswith("line 1: not JSON")
    assert out[1]["error"].startswith("line 2: ")
    assert out[2]["error"].startswith("line 3: not UTF-8")
    assert out[3]["values"] == {"4-0": 40, "5-5": 24}


def test_solve_position_refuses_positions_out_of_play():
    from texas42_env.worlds import replayed

    six = Game(RulesConfig.make("six-player"))
    with pytest.raises(ValueError, match="play phase"):
        solve_position(six, six.reset(1), 0)
    game, st = replayed(record(bids=["30"]))
    with pytest.raises(ValueError, match="play phase"):
        solve_position(game, st, 0)
    with pytest.raises(ValueError, match="table"):
        solve_position(game, st, 1)


def test_bench_solver_reports_times():
    out = bench_solver(n=2, seed=0)
    assert out["median_ms"] > 0 and out["p99_ms"] >= out["median_ms"] and out["compile_s"] > 0
    game, st = opening_positions(3, seed=9)
    assert (st.phase == PLAYING).all() and (st.contract <= FOLLOW_ME).all()
