"""``texas42 demo``: a game of random legal play, shown hand by hand."""

from __future__ import annotations

import json

import numpy as np

from .core import GAME_OVER, HAND_OVER, Game
from .records import record_from_state, summary
from .rules import RulesConfig
from .sampling import uniform_legal


def describe_hand(game: Game, st, b: int = 0) -> str:
    """A readable account of table ``b``'s hand, trick by trick."""
    names = game.actions.names
    lines = [f"Hand {int(st.hand_no[b]) + 1} of game {int(st.game_id[b])}, "
             f"dealer seat {int(st.dealer[b])}"]
    for s in range(game.n_seats):
        tiles = sorted(game.hand_tiles(st, b, s, dealt=True), reverse=True)
        lines.append(f"  seat {s}: " + " ".join(names[game.actions.play0 + t] for t in tiles))
    first, nb = int(st.first_bidder[b]), int(st.n_bids[b])
    bids = ", ".join(f"seat {(first + i) % game.n_seats} {names[a]}"
                     for i, a in enumerate(st.bids[b, :nb]))
    lines.append(f"  bids: {bids}")
    s = summary(game, st, b)
    if s["bidder"] is None:
        lines.append("  everyone passed: the hand is thrown in" if s["complete"]
                     else "  the bidding goes on")
        return "\n".join(lines)
    lines.append(f"  seat {s['bidder']} won the bid at {s['bid']}; seat {s['declarer']} "
                 f"named {s['contract']}")
    for k, trick in enumerate(s["tricks"], start=1):
        seats = [(trick["leader"] + i) % game.n_seats for i in range(game.n_seats)]
        seats = [x for x in seats if x != int(st.sit_out[b])]
        plays = ", ".join(f"{x}:{t}" for x, t in zip(seats, trick["plays"]))
        won = f" -> seat {trick['winner']} ({trick['points']} pts)" if "winner" in trick else ""
        lines.append(f"  trick {k}: {plays}{won}")
    result = {True: "made", False: "set", None: "undecided"}[s["made"]]
    lines.append(f"  points {s['points'][0]}-{s['points'][1]}: bid {result}; "
                 f"this hand scores {s['score'][0]}-{s['score'][1]}, "
                 f"game {int(st.score[b, 0])}-{int(st.score[b, 1])}")
    return "\n".join(lines)


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
