"""Regret by decision (``agents.arena.regret``): held-out positions are play decisions with a
choice, an agent's picks are legal tiles there, and a mean comes with its interval."""

import numpy as np
import pytest

from texas42_env.core import PLAYING, Game

from agents.arena.regret import mean_ci, picks, positions


def test_positions_are_decisions_with_a_choice_and_picks_are_legal_there():
    game = Game()
    states = positions(game, 10, seed=4)
    assert len(states) == 10
    p0 = game.actions.play0
    for st in states:
        assert st.batch_size == 1 and st.phase[0] == PLAYING
        assert st.legal[0, p0:].sum() >= 2
    tiles = picks(game, states, "heuristic")
    assert all(st.legal[0, p0 + t] for st, t in zip(states, tiles))
    again = positions(game, 10, seed=4)  # the same seed, the same positions
    assert all((a.hands == b.hands).all() and (a.plays == b.plays).all()
               for a, b in zip(states, again))
    other = positions(game, 10, seed=5)
    assert any((a.hands != b.hands).any() for a, b in zip(states, other))


def test_mean_ci_is_the_mean_and_its_normal_interval():
    m, lo, hi = mean_ci(np.array([1.0, 2.0, 3.0]))
    assert m == 2 and hi - m == pytest.approx(m - lo) == pytest.approx(1.96 / np.sqrt(3))
    assert mean_ci(np.array([4.0])) == [4.0, 4.0, 4.0]
    assert all(np.isnan(mean_ci(np.array([]))))
