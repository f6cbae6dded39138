"""Game records (one hand as one JSON object) and their replay through the core.

The format is ``../shared/spec/game-record.md``: ``parse_record`` checks a record's fields and
raises ``RecordError`` naming the field; ``replay`` steps a parsed record through the core and
returns exactly what ``texas42 replay`` prints for it; ``record_from_state`` writes the record of
a table's hand from batched play.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from . import tiles as T
from .core import HAND_OVER, PHASE_NAMES, Game, State
from .rules import CONTRACT_NAMES, RULESETS, ConfigError, RulesConfig

FORMAT = "texas42-record/1"


class RecordError(ValueError):
    """A record that is not a record: names the field (and the line, when read from a file)."""

    def __init__(self, field: str, message: str, line: int | None = None):
        self.field, self.message, self.line = field, message, line
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}field {field!r}: {message}")


@dataclass
class Record:
    rules: RulesConfig
    dealer: int
    hands: list[list[int]]  # tile ids per seat, as dealt
    actions: list[Any] = field(default_factory=list)  # bids, contract, plays, as given
    raw: dict = field(default_factory=dict)


@lru_cache(maxsize=64)
def game_for(rules: RulesConfig) -> Game:
    """A ``Game`` for ``rules``, built once (its lookup tables take a moment)."""
    return Game(rules)


def _list_of_str(obj: dict, name: str) -> list[str]:
    value = obj.get(name, [])
    if value is None:
        value = []
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise RecordError(name, "must be a list of strings")
    return value


def parse_record(obj: Any) -> Record:
    """Check a decoded JSON value is a record; ``RecordError`` names the first bad field."""
    if not isinstance(obj, dict):
        raise RecordError("record", f"not a JSON object ({type(obj).__name__})")
    fmt = obj.get("format", FORMAT)
    if fmt != FORMAT:
        raise RecordError("format", f"unknown format {fmt!r}; expected {FORMAT!r}")
    ruleset = obj.get("ruleset", "standard")
    if ruleset not in RULESETS:
        raise RecordError("ruleset", f"unknown ruleset {ruleset!r}; allowed: {', '.join(RULESETS)}")
    options = obj.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError("options", "must be an object of option names and values")
    try:
        rules = RulesConfig.from_options(ruleset, options)
    except ConfigError as e:
        raise RecordError("options", str(e)) from None
    if ruleset != "standard":
        raise RecordError("ruleset", f"ruleset {ruleset!r} is not supported by this version yet")
    S, H = rules.n_seats, rules.hand_size
    dealer = obj.get("dealer")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < S:
        raise RecordError("dealer", f"must be a seat 0..{S - 1}, got {dealer!r}")
    hands = obj.get("hands")
    if not isinstance(hands, list) or len(hands) != S:
        raise RecordError("hands", f"must be a list of {S} hands")
    ids: list[list[int]] = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list) or len(hand) != H:
            raise RecordError("hands", f"seat {seat}: must be a list of {H} tiles")
        try:
            ids.append([T.parse_tile(x) for x in hand])
        except ValueError as e:
            raise RecordError("hands", f"seat {seat}: {e}") from None
    counts = np.bincount([t for h in ids for t in h], minlength=T.N_TILES)
    if (counts != rules.copies).any():
        bad = [T.TILE_NAMES[t] for t in np.flatnonzero(counts != rules.copies)]
        raise RecordError("hands", f"not the tiles of the ruleset (each tile {rules.copies}x): "
                                   f"wrong count of {', '.join(bad)}")
    bids = _list_of_str(obj, "bids")
    contract = obj.get("contract")
    if contract is not None and not isinstance(contract, str):
        raise RecordError("contract", "must be a string or absent")
    plays = _list_of_str(obj, "plays")
    actions: list[Any] = list(bids) + ([contract] if contract is not None else []) + list(plays)
    return Record(rules=rules, dealer=dealer, hands=ids, actions=actions, raw=obj)


def _action_text(text: str) -> str:
    """An action as given, tiles written high end first."""
    try:
        return T.tile_name(T.parse_tile(text))
    except ValueError:
        return text


def start_state(record: Record) -> tuple[Game, State]:
    """A one-table state at the start of the record's hand."""
    game = game_for(record.rules)
    st = State(1, game, 0)
    masks = np.array([[T.mask_of(h) for h in record.hands]], dtype=np.uint64)
    game.set_hands(st, [0], masks, record.dealer)
    return game, st


def replay(record: Record) -> dict:
    """What ``texas42 replay`` prints for a parsed record (as a dict)."""
    game, st = start_state(record)
    space = game.actions
    for i, text in enumerate(record.actions):
        a = space.id(text)
        legal = a is not None and bool(st.legal[0, a])
        if not legal:
            if st.phase[0] >= HAND_OVER:
                phase, seat, reason = "over", None, "hand is over"
            elif a is None:
                phase, seat = PHASE_NAMES[int(st.phase[0])], int(st.to_move[0])
                reason = f"not an action in the notation of rules.md: {text!r}"
            else:
                phase, seat, reason = game.explain(st, 0, a)
            return {"ok": False, "error": {"index": i, "phase": phase, "seat": seat,
                                           "action": _action_text(text), "reason": reason}}
        game.step(st, np.array([a]))
    return summary(game, st, 0)


def summary(game: Game, st: State, b: int) -> dict:
    """The replay object of table ``b``'s hand as it stands."""
    phase = int(st.phase[b])
    bidding_over = phase != 0 and int(st.bidder[b]) >= 0
    contract = int(st.contract[b])
    made = int(st.made[b])
    out = {
        "ok": True,
        "complete": phase >= HAND_OVER,
        "bidder": int(st.bidder[b]) if bidding_over else None,
        "bid": game.actions.name(int(st.high_action[b])) if bidding_over else None,
        "declarer": int(st.declarer[b]) if bidding_over else None,
        "contract": CONTRACT_NAMES[contract] if contract >= 0 else None,
        "tricks": tricks_of(game, st, b),
        "points": st.points[b].tolist(),
        "made": None if made < 0 else bool(made),
        "marks": st.hand_marks[b].tolist(),
        "score": st.hand_score[b].tolist(),
    }
    if phase < HAND_OVER:
        out["to_move"] = int(st.to_move[b])
        out["phase"] = PHASE_NAMES[phase]
        out["legal"] = sorted(game.actions.name(a) for a in np.flatnonzero(st.legal[b]))
    return out


def tricks_of(game: Game, st: State, b: int) -> list[dict]:
    names = T.TILE_NAMES
    size = int(st.trick_size[b])
    plays = st.plays[b]
    out = []
    for k in range(int(st.trick_no[b])):
        out.append({"leader": int(st.trick_leaders[b, k]),
                    "plays": [names[t] for t in plays[k * size:(k + 1) * size]],
                    "winner": int(st.trick_winners[b, k]),
                    "points": int(st.trick_points[b, k])})
    n = int(st.n_in_trick[b])
    if n:
        out.append({"leader": int(st.leader[b]),
                    "plays": [names[t] for t in plays[int(st.n_plays[b]) - n:int(st.n_plays[b])]]})
    return out


def record_from_state(game: Game, st: State, b: int, **extra: Any) -> dict:
    """The game record of table ``b``'s current hand (complete or not). ``extra`` fields
    (agent names, seeds) are added as the format allows."""
    rules = game.rules
    rec: dict[str, Any] = {"format": FORMAT, "ruleset": rules.ruleset}
    opts = rules.options()
    if opts:
        rec["options"] = opts
    rec["dealer"] = int(st.dealer[b])
    rec["hands"] = [[T.TILE_NAMES[t] for t in sorted(game.hand_tiles(st, b, s, dealt=True),
                                                      reverse=True)]
                    for s in range(game.n_seats)]
    nb = int(st.n_bids[b])
    rec["bids"] = [game.actions.name(a) for a in st.bids[b, :nb]]
    if int(st.contract[b]) >= 0:
        rec["contract"] = CONTRACT_NAMES[int(st.contract[b])]
    rec["plays"] = [T.TILE_NAMES[t] for t in st.plays[b, : int(st.n_plays[b])]]
    rec.update({"seed": st.seed, "game": int(st.game_id[b]), "hand": int(st.hand_no[b])})
    rec.update(extra)
    return rec


def records_from_batch(game: Game, st: State, idx=None, **extra: Any) -> list[dict]:
    """Records of the hands at tables ``idx`` (default: every table whose hand is over);
    call it before ``next_hand`` deals over them."""
    if idx is None:
        idx = np.flatnonzero(st.phase >= HAND_OVER)
    return [record_from_state(game, st, int(b), **extra) for b in np.atleast_1d(idx)]


def write_records(path, records, append: bool = True) -> None:
    """Write records as JSON Lines (appending by default)."""
    import json

    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
