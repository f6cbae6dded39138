"""The stepping driver's ``play_out`` with ``until_trick`` on tables at different points of
their hands (some stop while others play on), and ``State.put``."""

from __future__ import annotations

import numpy as np
import pytest

from texas42_env.actions import NO_ACTION
from texas42_env.core import PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal

from agents import make_agent
from agents.driver import act_rows, play_out


def _spread(game, n, seed):
    """``n`` tables of heuristic auctions, then table t played t random plays further."""
    st = game.reset(n, seed=seed)
    h = make_agent("heuristic").setup(game)
    enc = make_encoder(game)
    rng = np.random.default_rng(seed)
    tables = [st.take([t]) for t in range(n)]
    for t, one in enumerate(tables):  # one at a time: a table at its first play cannot wait
        while one.phase[0] < PLAYING:
            game.step(one, act_rows(game, one, h, np.array([0]), enc))
        for _ in range(3 * t):
            if one.phase[0] == PLAYING:
                game.step(one, uniform_legal(one.legal, rng))
    out = tables[0]
    out = out.take(np.zeros(n, np.int64))
    for t, one in enumerate(tables):
        out.put([t], one)
    return out


@pytest.mark.parametrize("ruleset", ["standard", "six-player"])
def test_play_out_until_a_trick_stops_each_table_there_whatever_the_others_do(ruleset):
    game = Game(RulesConfig.make(ruleset))
    st = _spread(game, 8, seed=4)
    assert len(set(st.n_plays[st.phase == PLAYING].tolist())) > 2  # tables far apart
    alone = [st.take([t]) for t in range(8)]
    agent = make_agent("heuristic").setup(game)
    until = 3
    play_out(game, st, agent, until_trick=until)
    for t, one in enumerate(alone):
        play_out(game, one, agent, until_trick=until)
        assert st.n_plays[t] == one.n_plays[0] and (st.plays[t] == one.plays[0]).all()
        if one.phase[0] == PLAYING:
            assert one.trick_no[0] >= until and one.n_in_trick[0] == 0


def test_put_writes_back_what_take_copied_out():
    game = Game()
    st = game.reset(5, seed=1)
    part = st.take([1, 3])
    game.step(part, uniform_legal(part.legal, np.random.default_rng(0)))
    before = st.copy()
    st.put([1, 3], part)
    for f in st.STORED:
        got, was, new = getattr(st, f), getattr(before, f), getattr(part, f)
        rows = (slice(None), [1, 3]) if f == "scalars" else ([1, 3],)
        keep = (slice(None), [0, 2, 4]) if f == "scalars" else ([0, 2, 4],)
        assert (got[rows] == new).all() and (got[keep] == was[keep]).all()
    with pytest.raises(ValueError, match="put: 2 tables for 3 places"):
        st.put([0, 1, 2], part)
