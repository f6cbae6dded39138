"""``texas42 demo``: a game of random legal play, shown hand by hand."""

from __future__ import annotations

import json

import numpy as np

from texas42_env.core import GAME_OVER, HAND_OVER, Game
from texas42_env.narrator import describe_hand
from texas42_env.records import record_from_state
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal


def demo(hands: int = 3, seed: int = 0, out: str | None = None,
         rules: RulesConfig | None = None) -> list[dict]:
    """Play up to ``hands`` hands of one game with random legal actions; print each hand,
    return (and optionally write) their records."""
    game = Game(rules)
    rng = np.random.default_rng(seed)
    st = game.reset(1, seed=seed)
    records = []
    for _ in range(hands):
        while st.phase[0] < HAND_OVER:
            game.step(st, uniform_legal(game.legal_mask(st), rng))
        print(describe_hand(game, st), end="\n\n")
        records.append(record_from_state(game, st, 0))
        if st.phase[0] == GAME_OVER:
            print(f"Game over: team {int(st.winner[0])} wins "
                  f"{int(st.score[0, 0])}-{int(st.score[0, 1])}")
            break
        game.next_hand(st)
    if out:
        with open(out, "w", encoding="utf-8") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        print(f"wrote {len(records)} records to {out} (check them with: texas42 replay {out})")
    return records
