"""Game records (one hand as one JSON object) and their replay through the core.

The format is ``docs/records.md``: ``parse_record`` checks a record's fields and
raises ``RecordError`` naming the field; ``replay`` steps a parsed record through the core and
returns exactly what ``texas42 replay`` prints for it; ``record_from_state`` writes the record of
a table's hand from batched play. ``json_lines`` is the one JSON Lines reader (every verb that
reads records goes through it) and ``read_records`` the records of a file's text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from . import tiles as T
from .actions import BID, DECLARE, PLAY
from .core import EXCHANGING, HAND_OVER, PHASE_NAMES, Game, State
from .rules import CONTRACT_NAMES, RULESETS, ConfigError, RulesConfig

FORMAT = "texas42-record/1"
KIND_WORDS = {BID: "bid", DECLARE: "contract", PLAY: "play"}


SHOWN = 60  # the most characters of a value an error message quotes
MESSAGE = 500  # the longest error message kept whole


def _cut_literal(text: str, length: int) -> str:
    """A quoted literal (a repr) cut to ``SHOWN`` characters, with an ellipsis and the
    original ``length``."""
    head = text[:SHOWN + 1]
    if (len(head) - len(head.rstrip("\\"))) % 2:  # no escape cut in half
        head = head[:-1]
    return f"{head}…{text[0]} ({length} characters)"


def shown(value: Any) -> str:
    """``repr(value)`` as an error message quotes it: a value longer than ``SHOWN``
    characters is cut, so a bad 50 MB field gives a short line."""
    text = repr(value)
    if len(text) <= SHOWN + 3:
        return text
    if isinstance(value, str):
        return _cut_literal(text, len(value))
    return f"{text[:SHOWN]}… ({len(text)} characters)"


def _values_shown(message: str, values: Iterable[Any]) -> str:
    """``message`` (of another module) with each long value it quotes whole, of ``values``,
    cut as ``shown`` cuts it (a long list or number, which no quotes mark out)."""
    for value in values:
        text = repr(value)
        if len(text) > SHOWN + 3 and text in message:
            message = message.replace(text, shown(value))
    return message


_QUOTED = re.compile(r"(?<!\w)'(?:[^'\\\n]|\\.)*'(?!\w)"  # a repr'd string, not an apostrophe
                     r'|(?<!\w)"(?:[^"\\\n]|\\.)*"(?!\w)')


def short_message(message: str) -> str:
    """An error message with every long quoted value cut (as ``shown`` cuts it), and the
    middle of a message still over ``MESSAGE`` characters cut: messages of other modules
    (tiles, rules options, the replay) quote values whole."""
    message = _QUOTED.sub(lambda m: m[0] if len(m[0]) <= SHOWN + 3
                          else _cut_literal(m[0], len(m[0]) - 2), message)
    if len(message) > MESSAGE:
        message = (f"{message[:300]} … [{len(message) - 400} characters cut] … "
                   f"{message[-100:]}")
    return message


class RecordError(ValueError):
    """A record that is not a record: names the field (and the line, when read from a file).
    The message's values are cut short (``short_message``): every verb prints short lines."""

    def __init__(self, field: str, message: str, line: int | None = None):
        message = short_message(message)
        self.field, self.message, self.line = field, message, line
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}field {field!r}: {message}")


def json_lines(lines: Iterable[str | bytes]) -> Iterator[tuple[int, Any, RecordError | None]]:
    """The one JSON Lines reader: ``(line number, value, None)`` for each non-blank line, or
    ``(line number, None, RecordError)`` for a line that is not UTF-8 or not JSON (the reader
    goes on: the caller stops or skips). An integer too long for Python's ``int()`` stays a
    string: only a field that needs a number will object to it."""
    for lineno, raw in enumerate(lines, start=1):
        try:
            line = raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw
        except UnicodeDecodeError as e:
            yield lineno, None, RecordError(
                "record", f"not UTF-8 text ({e.reason} at byte {e.start})", lineno)
            continue
        if not line.strip():
            continue
        line = line.rstrip("\r\n")  # a column counted within the line, however it was read
        try:
            value = json.loads(line, parse_int=lambda x: int(x) if len(x) < 4000 else x)
        except json.JSONDecodeError as e:
            yield lineno, None, RecordError(
                "record", f"not JSON ({e.msg} at column {e.colno})", lineno)
            continue
        except (ValueError, RecursionError) as e:  # huge numbers, deep nesting
            yield lineno, None, RecordError("record", f"not JSON this reader accepts ({e})",
                                            lineno)
            continue
        yield lineno, value, None


def read_records(text: str) -> Iterator[tuple[int, Record]]:
    """The records in a file's text, with the line each starts on: one JSON record (it may
    span lines) or JSON Lines (blank lines skipped). ``RecordError`` with the line for a line
    that is not a record, raised when the reader gets there."""
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):
        whole = None
    items = [(1, whole, None)] if isinstance(whole, dict) else json_lines(text.splitlines())
    for lineno, obj, error in items:
        if error is not None:
            raise error
        try:
            yield lineno, parse_record(obj)
        except RecordError as e:
            raise RecordError(e.field, e.message, lineno) from None


@dataclass
class Record:
    rules: RulesConfig
    dealer: int
    hands: list[list[int]]  # tile ids per seat, as dealt
    actions: list[Any] = field(default_factory=list)  # bids, contract, exchange, plays
    fields: list[str] = field(default_factory=list)  # the field each action came from
    cat: list[int] = field(default_factory=list)  # six-player: the cat as dealt
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
    fmt = obj.get("format") or FORMAT
    if fmt != FORMAT:
        raise RecordError("format", f"unknown format {shown(fmt)}; expected {FORMAT!r}")
    ruleset = obj.get("ruleset")
    ruleset = "standard" if ruleset is None else ruleset
    if ruleset not in RULESETS:
        raise RecordError("ruleset", f"unknown ruleset {shown(ruleset)}; "
                                     f"allowed: {', '.join(RULESETS)}")
    options = obj.get("options", {})
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise RecordError("options", "must be an object of option names and values")
    try:
        rules = RulesConfig.from_options(ruleset, options)
    except ConfigError as e:
        raise RecordError("options", _values_shown(str(e), options.values())) from None
    S, H = rules.n_seats, rules.hand_size
    dealer = obj.get("dealer")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < S:
        raise RecordError("dealer", f"must be a seat 0..{S - 1}, got {shown(dealer)}")
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
            raise RecordError("hands", f"seat {seat}: {_values_shown(str(e), hand)}") from None
    counts = np.bincount([t for h in ids for t in h], minlength=T.N_TILES)
    cat: list[int] = []
    if rules.copies == 1:
        if (counts != 1).any():
            bad = [T.TILE_NAMES[t] for t in np.flatnonzero(counts != 1)]
            raise RecordError("hands", f"not the 28 tiles of a set: wrong count of {', '.join(bad)}")
    else:
        if (counts > 2).any():
            bad = [T.TILE_NAMES[t] for t in np.flatnonzero(counts > 2)]
            raise RecordError("hands", f"more than two of {', '.join(bad)}")
        left = [t for t in range(T.N_TILES) for _ in range(2 - counts[t])]
        if "cat" in obj and obj["cat"] is not None:
            given = obj["cat"]
            if not isinstance(given, list) or len(given) != 2:
                raise RecordError("cat", "must be a list of 2 tiles")
            try:
                cat = [T.parse_tile(x) for x in given]
            except ValueError as e:
                raise RecordError("cat", _values_shown(str(e), given)) from None
            if sorted(cat) != left:
                raise RecordError("cat", "must be the two tiles the hands leave out: "
                                         + ", ".join(T.TILE_NAMES[t] for t in left))
        else:
            cat = left
    bids = _list_of_str(obj, "bids")
    contract = obj.get("contract")
    if contract is not None and not isinstance(contract, str):
        raise RecordError("contract", "must be a string or absent")
    plays = _list_of_str(obj, "plays")
    exchange = []
    if rules.copies == 2 and obj.get("exchange") is not None:
        ex = obj["exchange"]
        if not isinstance(ex, dict) or set(ex) - {"take", "discard"} or not all(
                isinstance(ex.get(k, []), list) and all(isinstance(x, str) for x in ex.get(k, []))
                for k in ("take", "discard")):
            raise RecordError("exchange", 'must be {"take": [tiles], "discard": [tiles]}')
        exchange = [{"take": list(ex.get("take", [])), "discard": list(ex.get("discard", []))}]
    contracts = [contract] if contract is not None else []
    actions: list[Any] = list(bids) + contracts + exchange + list(plays)
    fields = (["bids"] * len(bids) + ["contract"] * len(contracts)
              + ["exchange"] * len(exchange) + ["plays"] * len(plays))
    return Record(rules=rules, dealer=dealer, hands=ids, actions=actions, fields=fields,
                  cat=cat, raw=obj)


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
    masks, cat = instance_masks(record.hands, record.cat)
    game.set_hands(st, [0], masks[None, :], record.dealer, cat)
    return game, st


def instance_masks(hands: list[list[int]], cat: list[int] = ()) -> tuple[np.ndarray, int]:
    """Bitmasks of hands (and the cat) given as tile ids: the first of two copies of a tile
    (in seat order, the cat last) is instance ``t``, the second ``t + 28``."""
    seen = [0] * T.N_TILES
    out = []
    for h in list(hands) + [list(cat)]:
        m = 0
        for t in h:
            m |= 1 << (t + 28 * seen[t])
            seen[t] += 1
        out.append(m)
    return np.array(out[:-1], dtype=np.uint64), out[-1]


@dataclass
class ReplayError:
    """Where a replay stopped: action ``index`` (``raw`` as the record wrote it, from field
    ``where``) could not be played by ``seat`` in ``phase``: ``reason``. ``kind`` says why:
    ``notation`` (not an action of rules.md), ``misplaced`` (an action of another field),
    ``exchange`` (an exchange that cannot be made), ``illegal`` (refused by the core)."""

    index: int
    phase: str
    seat: int | None
    action: Any
    reason: str
    kind: str
    raw: Any
    where: str

    def public(self) -> dict:
        """The error as ``texas42 replay`` prints it."""
        return {"index": self.index, "phase": self.phase, "seat": self.seat,
                "action": self.action, "reason": self.reason}


def replay_steps(record: Record, step: Callable[[State, int], Any] | None = None,
                 start: tuple[Game, State] | None = None
                 ) -> tuple[Game, State, ReplayError | None]:
    """The one replay: a one-table state (``start``: the record's ``start_state``, given
    when the caller holds it) stepped through the record's actions up to the first that
    cannot be played (``None``: all of them were). Each action id (an exchange as its takes
    and discards) is checked legal and then stepped by ``step(state, id)``, which must step
    the state by it (a narrator telling it, a judge weighing it first); by default the core
    steps it."""
    game, st = start if start is not None else start_state(record)
    if step is None:
        def step(s: State, a: int) -> None:
            game.step(s, np.array([a]))
    space = game.actions
    field_kind = {"bids": BID, "contract": DECLARE, "plays": PLAY}
    for i, (text, where) in enumerate(zip(record.actions, record.fields)):
        if isinstance(text, dict):
            error = _apply_exchange(game, st, text, step)
            if error:
                phase, seat, reason = error
                action = {k: [_action_text(x) for x in v] for k, v in text.items()}
                return game, st, ReplayError(i, phase, seat, action, reason, "exchange", text,
                                             where)
            continue
        a = space.id(text)
        misplaced = a is not None and space.kind[a] != field_kind[where]
        legal = a is not None and not misplaced and bool(st.legal[0, a])
        if not legal:
            kind = "notation" if a is None else "misplaced" if misplaced else "illegal"
            if st.phase[0] >= HAND_OVER:
                phase, seat, reason = "over", None, "hand is over"
            elif a is None or misplaced:
                phase, seat = PHASE_NAMES[int(st.phase[0])], int(st.to_move[0])
                reason = f"not an action in the notation of rules.md: {shown(text)}" if a is None \
                    else f"{shown(text)} is not a {KIND_WORDS[field_kind[where]]}, in {where!r}"
            else:
                phase, seat, reason = game.explain(st, 0, a)
            return game, st, ReplayError(i, phase, seat, _action_text(text), reason, kind,
                                         text, where)
        step(st, a)
    return game, st, None


def position_from_record(record: dict | Record, rules: RulesConfig) -> State:
    """A one-table state at the position a (partial) record reaches, for an environment
    playing ``rules``; ``RecordError`` if the rules differ, an action is illegal or the hand
    is already over."""
    parsed = record if isinstance(record, Record) else parse_record(record)
    if parsed.rules != rules:
        raise RecordError("options", f"the record's rules ({parsed.rules.ruleset}, "
                          f"{parsed.rules.options()}) are not this env's "
                          f"({rules.ruleset}, {rules.options()})")
    _, st, e = replay_steps(parsed)
    if e is not None:
        raise RecordError("record", f"action {e.index} ({shown(e.action)}) is illegal: "
                                    f"{e.reason}")
    if st.phase[0] >= HAND_OVER:
        raise RecordError("record", "the hand is over: there is nothing left to play")
    return st


def replay(record: Record) -> dict:
    """What ``texas42 replay`` prints for a parsed record (as a dict)."""
    game, st, error = replay_steps(record)
    if error is not None:
        return {"ok": False, "error": error.public()}
    return summary(game, st, 0)


def exchange_actions(game: Game, st: State, b: int, exchange: dict) -> list[int] | str:
    """The exchange's actions (take, discard, ..., keep), or why it cannot be one."""
    sp = game.actions
    try:
        take = [T.parse_tile(x) for x in exchange["take"]]
        discard = [T.parse_tile(x) for x in exchange["discard"]]
    except ValueError as e:
        return str(e)
    if len(take) != len(discard):
        return "as many tiles must be discarded as taken"
    if len(take) > 2:
        return "at most the two tiles of the cat can be taken"
    take.sort(key=lambda t: (-int(T.COUNT[t]), t))  # count tiles first: they must be taken
    actions = []
    for t, d in zip(take, discard):
        actions += [sp.take0 + t, sp.discard0 + d]
    if len(take) < 2:
        actions.append(sp.keep)
    return actions


def _apply_exchange(game: Game, st: State, exchange: dict, step: Callable[[State, int], Any]):
    """Step a record's exchange by ``step``, action by action, once all of it is known to be
    legal (a copy tried first: one that cannot be made leaves ``st`` as it was): None, or
    (phase, seat, reason)."""
    phase = int(st.phase[0])
    if phase != EXCHANGING:
        if phase >= HAND_OVER:
            return "over", None, "hand is over"
        return game.explain(st, 0, game.actions.keep)  # "... is due, not an exchange"
    seat = int(st.to_move[0])
    actions = exchange_actions(game, st, 0, exchange)
    if isinstance(actions, str):
        return "exchange", seat, actions
    trial = st.copy()
    for a in actions:
        if not trial.legal[0, a]:
            return "exchange", seat, game.reason(trial, 0, a)
        game.step(trial, np.array([a]))
    for a in actions:
        step(st, a)
    return None


def legal_exchanges(game: Game, st: State, b: int) -> list[dict]:
    """Every distinct legal exchange at table ``b`` (in the exchange phase), found by
    walking the core's take/discard/keep actions."""
    found: set[tuple[tuple[str, ...], tuple[str, ...]]] = set()

    def walk(s: State) -> None:
        if int(s.phase[0]) != EXCHANGING:
            n = int(s.n_swaps[0])
            found.add((tuple(sorted(T.TILE_NAMES[t] for t in s.ex_take[0, :n])),
                       tuple(sorted(T.TILE_NAMES[t] for t in s.ex_discard[0, :n]))))
            return
        for a in np.flatnonzero(s.legal[0]):
            nxt = s.copy()
            game.step(nxt, np.array([a]))
            walk(nxt)

    walk(st.take([b]))
    return [{"take": list(t), "discard": list(d)} for t, d in sorted(found)]


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
        if phase == EXCHANGING:
            out["legal"] = legal_exchanges(game, st, b)
        else:
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
    if rules.copies == 2:
        rec["cat"] = [T.TILE_NAMES[t % T.N_TILES] for t in T.tiles_of(int(st.dealt_cat[b]))]
    nb = int(st.n_bids[b])
    rec["bids"] = [game.actions.name(a) for a in st.bids[b, :nb]]
    if int(st.contract[b]) >= 0:
        rec["contract"] = CONTRACT_NAMES[int(st.contract[b])]
    if rules.copies == 2 and int(st.phase[b]) > EXCHANGING and int(st.contract[b]) >= 0:
        n = int(st.n_swaps[b])
        rec["exchange"] = {"take": [T.TILE_NAMES[t] for t in st.ex_take[b, :n]],
                           "discard": [T.TILE_NAMES[t] for t in st.ex_discard[b, :n]]}
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
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
