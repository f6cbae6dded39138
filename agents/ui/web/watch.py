"""Records for the viewer: the served folder's record files, an index of a file's hands, and
one hand replayed frame by frame with every hand shown and the solver's verdict on each play.

``RecordsDir`` lists and opens only record files (``.jsonl``, ``.json``) inside its folder,
none under a dot-name: a path that leaves it (``..``, an absolute path, a link out) or
cannot be read is refused with ``WebError``.
Records are read by the one reader (``texas42_env.records.read_records``) and stepped by the
one replay (``texas42_env.records.replay_steps``), as ``texas42 show`` tells them.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from texas42_env.narrator import Narrator
from texas42_env.records import (Record, RecordError, parse_record, read_records, replay_steps,
                                 start_state)
from texas42_env.state import State

from agents.ui.show import SIX_ANALYSED_TRICKS, Losses, analysable, loss_unit, record_agents
from agents.ui.web.games import WebError
from agents.ui.web.view import PHASES, table_view

SUFFIXES = (".jsonl", ".json")
MAX_FILE = 64 * 2**20  # bytes: a records file the viewer opens
MAX_LISTED = 2000      # files listed from the records folder


class RecordsDir:
    """The folder given to ``texas42 serve --records``: its record files and nothing else."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ValueError(f"--records {str(root)!r}: not a folder")

    def files(self) -> tuple[list[dict], bool]:
        """The record files under the folder (relative paths, sizes), and whether the list
        was cut at ``MAX_LISTED``."""
        out: list[dict] = []
        for folder, dirs, names in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                path = Path(folder) / name
                if name.startswith(".") or path.suffix not in SUFFIXES:
                    continue
                try:
                    real = path.resolve()
                    if not real.is_relative_to(self.root) or not real.is_file():
                        continue
                    size = real.stat().st_size
                except (OSError, RuntimeError):  # unreadable, a link loop
                    continue
                if len(out) == MAX_LISTED:
                    return out, True
                out.append({"path": path.relative_to(self.root).as_posix(), "size": size})
        return out, False

    def path(self, rel: str) -> Path:
        """The file ``rel`` names inside the folder; ``WebError`` (400 outside it, under a
        dot-name, not a record file or not readable; 404 missing; 413 too large)."""
        pure = PurePosixPath(rel)
        if not rel or "\x00" in rel or "\\" in rel or pure.is_absolute() or ".." in pure.parts:
            raise WebError(f"path {rel[:80]!r} is outside the records folder: give a path "
                           f"relative to it, as /api/records lists them")
        if any(part.startswith(".") for part in pure.parts):
            raise WebError(f"path {rel[:80]!r}: files under a dot-name are not served")
        if pure.suffix not in SUFFIXES:
            raise WebError(f"path {rel[:80]!r} is not a records file "
                           f"({' or '.join(SUFFIXES)})")
        try:
            path = (self.root / pure).resolve()
            if not path.is_relative_to(self.root):
                raise WebError(f"path {rel[:80]!r} leads outside the records folder")
            if not path.is_file():
                raise WebError(f"no records file {rel[:80]!r} in the records folder",
                               status=404)
            size = path.stat().st_size
        except (OSError, RuntimeError) as e:  # too long a name, a link loop, no access
            raise WebError(f"path {rel[:80]!r} cannot be read: "
                           f"{getattr(e, 'strerror', None) or e}") from None
        if size > MAX_FILE:
            raise WebError(f"{rel[:80]!r} is over {MAX_FILE // 2**20} MB", status=413)
        return path

    def read(self, rel: str) -> str:
        """The text of the file ``rel`` (at most ``MAX_FILE`` bytes; a BOM dropped)."""
        path = self.path(rel)
        try:
            with open(path, "rb") as f:
                data = f.read(MAX_FILE + 1)
        except OSError as e:
            raise WebError(f"path {rel[:80]!r} cannot be read: {e.strerror or e}") from None
        if len(data) > MAX_FILE:
            raise WebError(f"{rel[:80]!r} is over {MAX_FILE // 2**20} MB", status=413)
        return data.decode("utf-8-sig", errors="replace")


def parse_records(text: str) -> dict[str, Any]:
    """The records of a file's text: ``records`` [(line, Record)] up to the first line that
    is not one, and ``error`` (its line and why) or None."""
    records: list[tuple[int, Record]] = []
    error = None
    try:
        for lineno, record in read_records(text):
            records.append((lineno, record))
    except RecordError as e:
        error = {"line": e.line, "field": e.field, "message": e.message}
    return {"records": records, "error": error}


def records_of(records: list[dict]) -> dict[str, Any]:
    """Records the server made itself (a game's finished hands), as ``parse_records``
    gives a file's: line n holds the n-th."""
    return {"records": [(n, parse_record(r)) for n, r in enumerate(records, start=1)],
            "error": None}


def hand_summary(n: int, lineno: int, record: Record) -> dict:
    """One line of a file's index, from the record's own fields (nothing replayed)."""
    raw = record.raw
    of = {f: [a for a, g in zip(record.actions, record.fields) if g == f]
          for f in ("bids", "contract", "plays")}
    high = next((b for b in reversed(of["bids"]) if b != "pass"), None)
    out = {"n": n, "line": lineno, "ruleset": record.rules.ruleset, "dealer": record.dealer,
           "bid": high, "contract": of["contract"][0] if of["contract"] else None,
           "plays": len(of["plays"]), "agents": agent_names(record)}
    for key in ("game", "hand"):
        if isinstance(raw.get(key), int):
            out[key] = raw[key]
    if isinstance(raw.get("match"), str):
        out["match"] = raw["match"][:200]
    return out


def agent_names(record: Record) -> list[str] | None:
    """The record's ``agents`` field when it names each seat (as text), else None."""
    agents = record_agents(record)
    return None if agents is None else [str(a)[:200] for a in agents]


def index(parsed: dict[str, Any], offset: int = 0, limit: int = 500) -> dict:
    """A page of a file's hands (``offset``, at most ``limit``), their count and the
    error that stopped the reading, if one did."""
    records = parsed["records"]
    page = [hand_summary(n, lineno, rec)
            for n, (lineno, rec) in enumerate(records[offset:offset + limit], start=offset)]
    return {"count": len(records), "offset": offset, "hands": page, "error": parsed["error"]}


def hand_of(parsed: dict[str, Any], n: int) -> Record:
    records = parsed["records"]
    if not 0 <= n < len(records):
        raise WebError(f"hand {n} is not in the file: it holds hands 0..{len(records) - 1}"
                       if records else "the file holds no hands", status=404)
    return records[n][1]


def replay_frames(record: Record, analyse: bool = False) -> dict[str, Any]:
    """``record`` as frames: the table before the first action and after each one, every
    hand shown; each step's seat, action and words, and with ``analyse`` the solver's
    verdict on each play it judges (what it gave away against perfect play)."""
    game, st = start_state(record)
    raw = record.raw
    names = agent_names(record)
    narrator = Narrator(game)
    # the record's own seed, game and hand (a replayed state knows none of them)
    known = {k: raw[k] if isinstance(raw.get(k), int) and not isinstance(raw.get(k), bool)
             else None for k in ("seed", "game", "hand")}

    def view() -> dict:
        return {**table_view(game, st, reveal=True, names=names, narrator=narrator), **known}

    frames = [{"step": None, "view": view()}]
    losses = Losses()

    def frame(st: State, a: int) -> None:  # the replay's step: judged, told, then shown
        step: dict[str, Any] = {"seat": int(st.to_move[0]), "phase": PHASES[int(st.phase[0])],
                                "action": game.actions.name(a)}
        v = losses.judge(game, st, a) if analyse else None
        if v is not None:
            step["verdict"] = {"loss": v.loss, "mistake": v.loss > 0, "best": v.best,
                               "values": v.values, "unit": loss_unit(st)}
        step["lines"] = narrator.step(st, a)
        frames.append({"step": step, "view": view()})

    _, _, error = replay_steps(record, frame, (game, st))
    out: dict[str, Any] = {"ruleset": record.rules.ruleset, "options": record.rules.options(),
                           "agents": names, "frames": frames,
                           "error": None if error is None else error.public()}
    if analyse:
        why = analysable(game, st) if int(st.contract[0]) >= 0 else "no contract was played"
        teams = [{"lost": losses.lost[t], "mistakes": losses.mistakes[t]} for t in (0, 1)]
        out["analysis"] = {"teams": teams, "unit": loss_unit(st),
                           "note": why or (f"the last {SIX_ANALYSED_TRICKS} tricks' plays "
                                           f"are judged" if game.six else None)}
    return out
