"""Run folders: how every long job (training, expert iteration, datasets, tournaments) keeps
what it has finished, so a killed run loses nothing finished and resumes where it stopped.

One mechanism each:

- **Atomic writes** (``atomic_write``, ``write_json``, ``write_npz``): the file is written to
  a temporary file beside it (``.NAME.PID.tmp``, which no job's glob matches), flushed to
  disk, renamed over its name, and the folder flushed so the rename lasts too. An error
  leaves the old file (or none) and no temporary file; a kill leaves at most the hidden
  temporary file.
- **Append-only logs** (JSON Lines: ``append_line``, ``read_lines``, ``truncate_lines``),
  with the one torn-line rule: a line is complete when it ends with its newline. A last line
  without one is a write cut short (``append_line`` leaves nothing else): readers drop it,
  and the next ``append_line`` cuts it off first, so the next line starts clean. A complete
  line that is not JSON, or that the reader's check refuses, is damage, never dropped:
  ``RunError`` naming the file and the line.
- **The folder** (``open_run``, ``new_run``, ``report_resume``): a run whose settings are in
  its ``config.json`` resumes in the same folder with the same settings, and a folder of
  other settings is refused; a job that resumes by another key (training's ``resume=``)
  refuses a new run where one is, naming that key; the one resume message says what is kept
  and where the run goes on.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from texas42_env.records import json_lines

CONFIG = "config.json"  # a run's settings, in its folder


class RunError(ValueError):
    """A run folder or log that cannot be used; the message names the file (and line)."""


# ----------------------------------------------------------------------------- atomic writes
def atomic_write(path: str | os.PathLike,
                 content: bytes | str | Callable[[BinaryIO], Any]) -> Path:
    """Write ``content`` (bytes, text as UTF-8, or a function writing to the open binary
    file) to ``path`` whole or not at all; an error is raised as it came, the old file
    untouched and no temporary file left."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            if callable(content):
                content(f)
            else:
                f.write(content.encode("utf-8") if isinstance(content, str) else content)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise
    _sync_folder(path.parent)
    return path


def write_json(path: str | os.PathLike, value: Any, indent: int | None = 2) -> Path:
    """``value`` as JSON (then a newline), written atomically."""
    return atomic_write(path, json.dumps(value, indent=indent) + "\n")


def write_npz(path: str | os.PathLike, arrays: Mapping[str, np.ndarray]) -> Path:
    """``arrays`` saved by ``np.savez`` (a chunk), written atomically."""
    return atomic_write(path, lambda f: np.savez(f, **arrays))


def read_json(path: str | os.PathLike, error: Callable[[str], Exception] = RunError) -> Any:
    """The JSON value in ``path``; ``error`` naming the file when it is not JSON."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise error(f"{path}: not valid JSON ({e})") from None


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries (a rename) to disk, where the system allows it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- logs
def append_line(path: str | os.PathLike, value: Any) -> None:
    """Append ``value`` as one JSON line, flushed to disk before returning; a torn last line
    (see the module) is cut off first."""
    line = (json.dumps(value) + "\n").encode("utf-8")
    with open(path, "a+b") as f:
        end = f.seek(0, os.SEEK_END)
        if end:
            f.seek(end - 1)
            if f.read(1) != b"\n":
                f.truncate(_complete_end(f, end))
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def read_lines(path: str | os.PathLike, check: Callable[[Any], str | None] | None = None, *,
               what: str = "a log line", job: str | None = None,
               error: Callable[[str], Exception] = RunError) -> list:
    """The values of the log at ``path`` ([] when there is none), by the torn-line rule:
    a torn last line is dropped (said on stderr, after ``job:``, when ``job`` is given; None
    for a reader beside a live run); a complete line that is not JSON, or for which
    ``check(value)`` says what is wrong, raises ``error`` naming the file, the line and
    ``what`` it should be."""
    entries, torn = _entries(path, check, what, error)
    if torn is not None and job is not None:
        print(f"{job}: {path}: line {torn} is incomplete (a write cut short): dropped, its "
              f"work is done again", file=sys.stderr, flush=True)
    return [value for _, _, value in entries]


def truncate_lines(path: str | os.PathLike, keep: Callable[[Any], bool], *,
                   error: Callable[[str], Exception] = RunError) -> list:
    """Keep the lines of the log at ``path`` whose value ``keep`` accepts (a resumed run
    drops what came after its checkpoint), rewritten atomically as they were; a torn last
    line goes too. Returns the values kept."""
    entries, torn = _entries(path, None, "a log line", error)
    kept = [(raw, value) for _, raw, value in entries if keep(value)]
    if torn is not None or len(kept) < len(entries):
        atomic_write(path, b"".join(raw + b"\n" for raw, _ in kept))
    return [value for _, value in kept]


def _entries(path, check, what, error) -> tuple[list[tuple[int, bytes, Any]], int | None]:
    """(line number, raw bytes, value) of each complete line, and the number of a torn last
    line (None: there is none)."""
    path = Path(path)
    if not path.is_file():
        return [], None
    lines = path.read_bytes().split(b"\n")
    tail = lines.pop()  # b"" when the last line has its newline
    torn = len(lines) + 1 if tail else None
    out = []
    for n, value, fault in json_lines(lines):
        why = fault.message if fault is not None else check(value) if check else None
        if why is not None:
            raise error(f"{path}: line {n} is not {what} ({why}); fix or remove it to resume")
        out.append((n, lines[n - 1], value))
    return out, torn


def _complete_end(f: BinaryIO, end: int) -> int:
    """Where the complete lines of the log open in ``f`` (``end`` bytes) end: just after its
    last newline, 0 without one."""
    pos = end
    while pos > 0:
        start = max(0, pos - 65536)
        f.seek(start)
        at = f.read(pos - start).rfind(b"\n")
        if at >= 0:
            return start + at + 1
        pos = start
    return 0


# ----------------------------------------------------------------------------- the folder
def open_run(folder: str | os.PathLike, settings: Mapping[str, Any], *, what: str,
             header: Mapping[str, Any] | None = None, added: Mapping[str, Any] | None = None,
             read: Callable[[Path], Any] | None = None,
             error: Callable[[str], Exception] = RunError) -> bool:
    """Make ``folder`` for a new run of ``settings`` (its ``config.json``: ``header``, then
    the settings, written atomically) or find the run it holds: True when that run has the
    same settings (it resumes), ``error`` naming each that differs when not. ``what``: the
    run in words ("a dataset"); ``added``: the value a setting added since a folder was made
    held there; ``read``: the reader of ``config.json`` (checking it is the job's own)."""
    folder = Path(folder)
    path = folder / CONFIG
    now = json.loads(json.dumps(dict(settings)))  # as config.json holds them: lists, not tuples
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_json(path, {**(header or {}), **settings})
        return False
    old = read(path) if read is not None else read_json(path, error)
    if not isinstance(old, dict):
        raise error(f"{path}: not the settings of {what}")
    differ = [k for k in now if old.get(k, (added or {}).get(k)) != now[k]]
    if differ:
        raise error(f"{folder} holds {what} made with other settings ("
                    + ", ".join(f"{k}: {old.get(k)!r} there, {now[k]!r} now" for k in differ)
                    + "); use another folder, or its own settings to resume it")
    return True


def new_run(folder: str | os.PathLike, *, holds: str | None, resume_with: str,
            error: Callable[[str], Exception] = RunError) -> Path:
    """Make ``folder`` for a new run, refused when it already holds one: ``holds`` says what
    shows it ("checkpoints"; None: nothing there does), ``resume_with`` how to continue it."""
    folder = Path(folder)
    if holds:
        raise error(f"{folder} already holds {holds}: continue it with {resume_with}, or "
                    f"choose another folder")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def report_resume(job: str, folder: str | os.PathLike, kept: str, goes_on: str) -> str:
    """Say on stderr, in the one format, that ``job`` resumes ``folder``: what it keeps
    and where it goes on. Returns the line."""
    line = f"{job}: resuming {folder}: kept {kept}; {goes_on}"
    print(line, file=sys.stderr, flush=True)
    return line


__all__ = ["CONFIG", "RunError", "append_line", "atomic_write", "new_run", "open_run",
           "read_json", "read_lines", "report_resume", "truncate_lines", "write_json",
           "write_npz"]
