"""Records written from batched play replay to the core's own results."""

import json

import numpy as np

from texas42_env.core import HAND_OVER, Game
from texas42_env.records import parse_record, records_from_batch, replay, write_records
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
