"""Records written from batched play replay to the core's own results."""

import json

import numpy as np

from texas42_env.core import EXCHANGING, HAND_OVER, Game
from texas42_env.records import (parse_record, records_from_batch, replay, replay_steps,
                                 start_state, summary, write_records)
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal


def test_records_from_batch_replay_to_the_core_results(tmp_path):
    game = Game(RulesConfig.make(play_out=True, sevens=True, splash=True))
    st = game.reset(64, seed=2)
    rng = np.random.default_rng(2)
    while (st.phase < HAND_OVER).any():
        game.step(st, uniform_legal(game.legal_mask(st), rng))
    recs = records_from_batch(game, st, agent="random")
    assert len(recs) == 64
    path = tmp_path / "r.jsonl"
    write_records(path, recs[:30])
    write_records(path, recs[30:])
    lines = path.read_text().splitlines()
    assert len(lines) == 64
    for b, line in enumerate(lines):
        rec = json.loads(line)
        assert rec["agent"] == "random" and rec["game"] == b and rec["options"]["play_out"]
        out = replay(parse_record(rec))
        assert out["ok"] and out["complete"]
        assert out["points"] == st.points[b].tolist()
        assert out["score"] == st.hand_score[b].tolist()
        assert out["marks"] == st.hand_marks[b].tolist()
        assert out["made"] == (None if st.made[b] < 0 else bool(st.made[b]))


def test_the_one_replay_steps_every_action_by_the_callers_step():
    """``replay_steps`` hands each action id (an exchange as its takes and discards) to the
    caller's ``step``, which steps the state itself: the ids, stepped again on a fresh start,
    reach what the default replay reaches; an exchange that cannot be made hands none of
    its ids and leaves the state as before it."""
    game = Game(RulesConfig.make("six-player"))
    st = game.reset(16, seed=5)
    rng = np.random.default_rng(5)
    while (st.phase < HAND_OVER).any():
        game.step(st, uniform_legal(game.legal_mask(st), rng))
    for rec in records_from_batch(game, st):
        parsed = parse_record(rec)
        seen = []

        def step(s, a, g=game):
            seen.append(a)
            g.step(s, np.array([a]))

        g, mine, error = replay_steps(parsed, step)
        swaps = len(rec["exchange"]["take"])
        assert error is None and len(seen) == len(parsed.actions) + 2 * swaps - (swaps == 2)
        g2, again = start_state(parsed)
        for a in seen:
            g2.step(again, np.array([a]))
        assert summary(g2, again, 0) == summary(*replay_steps(parsed)[:2], 0) == \
            summary(g, mine, 0)
        broken = dict(rec, exchange={"take": rec["exchange"]["discard"][:1] or ["6-6"],
                                     "discard": ["0-0", "0-0", "0-0"]})
        seen.clear()
        g, st2, error = replay_steps(parse_record(broken), step)
        assert error is not None and error.kind == "exchange"
        assert int(st2.phase[0]) == EXCHANGING and len(seen) == error.index
