"""The exact solver in the six-player game (agents.search.six): against plain minimax through
the core's own ``step`` on endgames, and PIMC searching six-player hands."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import Context
from agents.baselines.pimc import PimcAgent
from agents.search.six import hand_word
from agents.search.solver import solve_position, solve_record, solve_value
from helpers import brute_values, stepped
from texas42_env import tiles as T
from texas42_env.core import PLAYING, Game
from texas42_env.records import record_from_state
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal

SIX = Game(RulesConfig.make("six-player"))
SIX_OUT = Game(RulesConfig.make("six-player", play_out=True))


def positions(n: int, seed: int, plays_left: tuple[int, int]) -> list:
    """``n`` one-table six-player states: random legal bids, exchanges and plays, stopped
    with ``plays_left`` (lowest, highest) plays to go."""
    rng = np.random.default_rng(seed)
    out = []
    g = 0
    while len(out) < n:
        st = SIX_OUT.reset(1, seed=seed, game_ids=[g])
        g += 1
        while st.phase[0] < PLAYING:
            SIX_OUT.step(st, uniform_legal(st.legal, rng))
        stop = 54 - int(rng.integers(plays_left[0], plays_left[1] + 1))
        while st.phase[0] == PLAYING and int(st.n_plays[0]) < stop:
            SIX_OUT.step(st, uniform_legal(st.legal, rng))
        if st.phase[0] == PLAYING:
            out.append(st)
    return out


def check(states) -> None:
    for i, st in enumerate(states):
        want = brute_values(SIX_OUT, st)
        got = solve_position(SIX, st, 0)  # every trick played, whatever the table's play_out
        assert got["to_move"] == int(st.to_move[0])
        assert got["values"] == want, (i, got, want)
        team = int(st.bidder[0]) & 1
        side = max if int(st.to_move[0]) & 1 == team else min
        assert solve_value(SIX_OUT, st, 0) == side(want.values())


def test_six_player_solver_agrees_with_brute_force_on_endgames_of_up_to_two_tricks():
    check(positions(120, seed=1, plays_left=(1, 12)))


def test_six_player_solver_agrees_with_brute_force_on_three_trick_endgames():
    check(positions(6, seed=2, plays_left=(13, 18)))


def test_both_copies_in_one_trick_first_played_ranks_higher():
    """Endgames where both copies of a tile are still out: the brute force through the core
    (first played ranks higher) and the solver agree; some of them have both copies in one
    hand, some split between hands."""
    found = []
    for st in positions(300, seed=3, plays_left=(6, 12)):
        words = [hand_word(int(h)) for h in st.hands[0]]
        types = [w & ((1 << 28) - 1) for w in words]
        split = any(types[a] & types[b] for a in range(6) for b in range(a + 1, 6))
        if split or any(w >> 28 for w in words):
            found.append(st)
    assert len(found) >= 20
    check(found[:40])


def test_a_copy_of_a_movers_tile_in_another_hand_keeps_its_plays_apart():
    """Two tiles of the mover that no other tile tells apart are still different plays when
    another hand holds a copy of one of them (first played ranks higher): endgames where
    another hand holds a copy of a legal play of the mover (seed 25 holds one where keeping
    the higher of two adjacent trumps wins the last trick against the other copy of the
    lower)."""
    found = []
    for st in positions(300, seed=25, plays_left=(6, 12)):
        seat = int(st.to_move[0])
        words = [hand_word(int(h)) for h in st.hands[0]]
        others = 0
        for q in range(6):
            if q != seat:
                others |= words[q]
        legal = sum(1 << (int(a) - SIX.actions.play0) for a in np.flatnonzero(st.legal[0]))
        if bin(legal).count("1") >= 2 and legal & others & ((1 << 28) - 1):
            found.append(st)
    assert len(found) >= 40
    check(found)


def test_five_trick_values_are_the_values_of_the_positions_after_each_play():
    """Where brute force is out of reach (5 tricks left, PIMC's exact phase): each play's
    value equals a fresh solve of the position after it, through the core."""
    for st in positions(8, seed=10, plays_left=(28, 30)):
        got = solve_position(SIX, st, 0)["values"]
        for a in np.flatnonzero(st.legal[0]):
            name = T.TILE_NAMES[int(a) - SIX.actions.play0]
            after = stepped(SIX_OUT, st, int(a))
            assert solve_value(SIX_OUT, after, 0) == got[name], name


def test_hand_word_counts_copies():
    assert hand_word(1 << 3) == hand_word(1 << 31) == 1 << 3
    assert hand_word((1 << 3) | (1 << 31)) == (1 << 3) | (1 << 31)


def test_values_with_five_tricks_left_are_final_points_and_records_solve_alike():
    st = positions(1, seed=4, plays_left=(30, 30))[0]  # five tricks to play
    got = solve_position(SIX, st, 0)
    team = int(st.bidder[0]) & 1
    assert all(int(st.points[0, team]) <= v <= 88 for v in got["values"].values())
    rec = record_from_state(SIX_OUT, st, 0)
    assert solve_record(rec) == got


def _decision(agent, game, st):
    ctx = Context(game, st, np.array([0]), np.array([int(st.to_move[0])]))
    return agent._play(ctx, 0, int(st.to_move[0]), st.legal[0])


def test_pimc_plays_six_player_legally_rolling_out_early_and_solving_late():
    agent = PimcAgent(n_worlds=4, seed=1, exact_tricks=3).setup(SIX)
    for st in positions(6, seed=5, plays_left=(2, 18)) + positions(3, seed=6, plays_left=(30, 40)):
        assert st.legal[0, _decision(agent, SIX, st)]


def test_pimc_rolled_values_are_heuristic_play_then_exact_search():
    """``_rolled_values`` of one world equals, play by play, the heuristic playing every seat
    to ``exact_tricks`` tricks left and the solver's value from there."""
    from agents.driver import play_out
    from texas42_env.observation import make_encoder

    agent = PimcAgent(n_worlds=1, exact_tricks=5).setup(SIX)
    st = positions(1, seed=8, plays_left=(40, 40))[0]  # trick 3 in progress
    legal = np.flatnonzero(st.legal[0, SIX.actions.play0:])
    got = agent._rolled_values(SIX, st, legal)[0]  # [worlds, plays]: its one world
    team = int(st.bidder[0]) & 1
    for j, tile in enumerate(legal):
        one = stepped(SIX_OUT, st, SIX.actions.play0 + int(tile))
        play_out(SIX_OUT, one, agent.fallback, make_encoder(SIX_OUT), until_trick=4)
        assert int(one.trick_no[0]) == 4 and int(one.n_in_trick[0]) == 0
        assert got[j] == solve_value(SIX_OUT, one, 0)
        assert got[j] >= int(one.points[0, team])


def test_pimc_refuses_a_bad_exact_tricks():
    with pytest.raises(ValueError, match="exact_tricks"):
        PimcAgent(exact_tricks=-1)
