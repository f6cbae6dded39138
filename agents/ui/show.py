"""``texas42 show``: records told hand by hand, trick by trick (``texas42_env.narrator``),
with the solver's verdict on each play under ``--analyse``. ``analyse_play`` is the solver's
verdict on one play: what it gives away against perfect play, from the mover's side: points,
or tricks in nello (the bidder wants fewest) and sevens (the bidding team wants every one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from texas42_env import tiles as T
from texas42_env.core import HAND_OVER, PHASE_NAMES, PLAYING, Game, State
from texas42_env.narrator import Narrator, tiles_text
from texas42_env.records import Record, read_records, replay_steps, start_state
from texas42_env.rules import NELLO, SEVENS


# ----------------------------------------------------------------------------- analysis
@dataclass
class Verdict:
    """The solver's judgement of one play: ``values`` are the solver's values after each
    legal play (perfect play after it: the bidding team's final points; nello, the bidder's
    tricks; sevens, the bidding team's tricks), ``loss`` what the play gives away against the
    best one, from the mover's side (0 for a best play)."""

    seat: int
    tile: str
    loss: int
    best: list[str]
    values: dict[str, int]


SIX_ANALYSED_TRICKS = 6  # six-player: the plays of the last 6 tricks are judged


def analysable(game: Game, st: State) -> str | None:
    """Why the solver does not judge the play at table 0 now (None when it does): in the
    six-player game only the last ``SIX_ANALYSED_TRICKS`` tricks' plays, as a solve from
    the first trick takes seconds to minutes (agents.search.solver)."""
    if game.six and game.n_tricks - int(st.trick_no[0]) > SIX_ANALYSED_TRICKS:
        return (f"six-player plays are judged in the last {SIX_ANALYSED_TRICKS} tricks only: "
                f"an exact solve from the first trick takes seconds to minutes")
    return None


def loss_unit(st: State) -> str:
    """What table 0's verdicts count: tricks in nello and sevens, else points."""
    return "tricks" if int(st.contract[0]) in (NELLO, SEVENS) else "points"


def analyse_play(game: Game, st: State, action: int) -> Verdict:
    """The verdict on playing ``action`` at table 0 of ``st`` (play phase); the state is not
    changed."""
    tile = T.TILE_NAMES[action - game.actions.play0]
    seat = int(st.to_move[0])
    legal = [T.TILE_NAMES[a - game.actions.play0] for a in np.flatnonzero(st.legal[0])]
    if len(legal) == 1:  # nothing to judge: no search
        return Verdict(seat, tile, 0, legal, {})

    from agents.search.solver import solve_position  # numba: compiled when first needed

    values = solve_position(game, st, 0)["values"]
    bidder = int(st.bidder[0])
    if int(st.contract[0]) == NELLO:  # the bidder wants fewest tricks, the opponents most
        sign = -1 if seat == bidder else 1
    else:  # the bidding team wants most points (sevens: tricks), the others fewest
        sign = 1 if (seat & 1) == (bidder & 1) else -1
    best_value = max(sign * v for v in values.values())
    best = [t for t, v in values.items() if sign * v == best_value]
    return Verdict(seat, tile, best_value - sign * values[tile], best, values)


class Losses:
    """What each team gave away against perfect play over a hand (``loss_unit``): the sum
    of its plays' losses and its mistakes (plays that lost something)."""

    def __init__(self):
        self.lost, self.mistakes = [0, 0], [0, 0]

    def judge(self, game: Game, st: State, action: int) -> Verdict | None:
        """The verdict on ``action`` at table 0 (counted to its team), or None where the
        solver does not judge it (not a play; six-player, before the last tricks)."""
        if int(st.phase[0]) != PLAYING or analysable(game, st) is not None:
            return None
        v = analyse_play(game, st, action)
        self.lost[v.seat & 1] += v.loss
        self.mistakes[v.seat & 1] += v.loss > 0
        return v


def verdict_note(v: Verdict) -> str:
    if v.loss > 0:
        return f"   lost {v.loss}  MISTAKE (best: {' '.join(v.best)})"
    return "   lost 0" + ("  (only play)" if len(v.best) == 1 and not v.values else "")


# ----------------------------------------------------------------------------- records
def record_agents(record: Record) -> list | None:
    """The record's ``agents`` field when it names every seat, else None."""
    agents = record.raw.get("agents")
    return agents if isinstance(agents, list) and len(agents) == record.rules.n_seats else None


def show_record(record: Record, analyse: bool = False) -> list[str]:
    """A record told hand by hand, trick by trick; with ``analyse``, each play's verdict and
    what each team gave away (points; nello and sevens, tricks)."""
    game, st = start_state(record)
    raw = record.raw
    narrator = Narrator(game)
    about = [record.rules.ruleset + " rules"]
    if record.rules.options():
        about.append(f"options {json.dumps(record.rules.options())}")
    for key in ("game", "hand", "seed"):
        if isinstance(raw.get(key), int):
            about.append(f"{key} {raw[key]}")
    agents = record_agents(record)
    lines = [", ".join(about), f"dealer: seat {record.dealer}", "hands as dealt:"]
    for s, hand in enumerate(record.hands):
        who = f" ({agents[s]})" if agents else ""
        lines.append(f"  seat {s}{who}: {tiles_text(game, hand)}")
    if record.rules.copies == 2:
        lines.append(f"  cat: {tiles_text(game, record.cat)}")
    losses = Losses()

    def tell(st: State, a: int) -> None:  # the replay's step: judged, then told
        v = losses.judge(game, st, a) if analyse else None
        lines.extend(narrator.step(st, a, verdict_note(v) if v else ""))

    _, _, error = replay_steps(record, tell, (game, st))
    if error is not None:
        e = error.public()
        who = "" if e["seat"] is None else f" by seat {e['seat']}"
        lines.append(f"illegal action {e['index']}{who} (phase {e['phase']}): "
                     f"{json.dumps(e['action'])}: {e['reason']}; the record stops here")
    elif int(st.phase[0]) < HAND_OVER:
        lines.append(f"the record stops here: seat {int(st.to_move[0])} is to "
                     f"{PHASE_NAMES[int(st.phase[0])]}")
    if analyse and int(st.contract[0]) >= 0:
        why = analysable(game, st)
        if why:
            lines.append(f"analysis: none ({why})")
        else:
            part = f" in the last {SIX_ANALYSED_TRICKS} tricks" if game.six else ""
            lines.append(f"analysis, {loss_unit(st)} given away against perfect play{part}: "
                         + "; ".join(
                f"team {t} {losses.lost[t]} ({losses.mistakes[t]} "
                f"mistake{'s' * (losses.mistakes[t] != 1)})" for t in (0, 1)))
    return lines


def show_text(text: str, analyse: bool = False) -> Iterator[str]:
    """The account of each record in a file's text, record by record (``RecordError`` with
    the line when one is not a record, after the records before it)."""
    for n, (lineno, record) in enumerate(read_records(text), start=1):
        yield f"=== record {n} (line {lineno}) ===\n" + "\n".join(show_record(record, analyse))
