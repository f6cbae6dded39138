"""Training checkpoints: written atomically, read with errors that say what is wrong.

A checkpoint is one ``torch.save`` file holding plain data only (tensors, numbers, strings,
lists, dicts), so it loads with ``weights_only=True``: no code runs when a file is read. It is
written to a temporary file in the same folder, flushed to disk, then renamed over the final
name, so a crash mid-write never leaves a torn checkpoint under a real name and the earlier
checkpoints are untouched.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

FORMAT = "texas42-checkpoint"
VERSION = 1
_NAME = re.compile(r"^ckpt_(\d+)\.pt$")


class CheckpointError(ValueError):
    """A checkpoint file that cannot be used; the message names the file and the fault."""


def save_checkpoint(path: str | os.PathLike, payload: dict[str, Any]) -> Path:
    """Write ``payload`` (plus the format tag) to ``path`` atomically."""
    import torch  # torch: only when a checkpoint is written or read

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    data = {"format": FORMAT, "version": VERSION, **payload}
    try:
        with open(tmp, "wb") as f:
            torch.save(data, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass
    return path


def load_checkpoint(path: str | os.PathLike, require: tuple[str, ...] = ("model",)) -> dict:
    """Read a checkpoint; ``CheckpointError`` if it is missing, torn, not ours or lacks a
    key in ``require``. Where the file sits among others, the error names the newest earlier
    one that still loads."""
    import torch  # torch: only when a checkpoint is written or read

    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such checkpoint file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torn, truncated, or not a torch file at all
        raise CheckpointError(f"{path}: not a readable checkpoint ({type(e).__name__}: "
                              f"{str(e).splitlines()[0] if str(e) else ''}){_earlier(path)}") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a texas42 checkpoint (no '{FORMAT}' tag)"
                              f"{_earlier(path)}")
    if data.get("version") != VERSION:
        raise CheckpointError(f"{path}: checkpoint version {data.get('version')!r}; this "
                              f"texas42 reads version {VERSION}")
    for key in require:
        if key not in data:
            raise CheckpointError(f"{path}: checkpoint lacks {key!r}{_earlier(path)}")
    return data


def checkpoint_update(path: str | os.PathLike) -> int:
    """The update number in a checkpoint's name ``ckpt_<update>.pt``."""
    m = _NAME.match(Path(path).name)
    if not m:
        raise CheckpointError(f"{path}: not named ckpt_<update>.pt")
    return int(m.group(1))


def checkpoints_in(folder: str | os.PathLike) -> list[Path]:
    """The checkpoints ``ckpt_<update>.pt`` of a run folder, oldest first."""
    folder = Path(folder)
    found = [(checkpoint_update(p), p) for p in folder.glob("ckpt_*.pt") if _NAME.match(p.name)]
    return [p for _, p in sorted(found)]


def latest_checkpoint(where: str | os.PathLike) -> Path:
    """``where`` itself if it is a file, else the newest checkpoint in the folder (or in its
    ``checkpoints/``)."""
    where = Path(where)
    if where.is_file():
        return where
    for folder in (where, where / "checkpoints"):
        found = checkpoints_in(folder)
        if found:
            return found[-1]
    raise CheckpointError(f"{where}: no checkpoint (ckpt_<update>.pt) there")


def _earlier(path: Path) -> str:
    """'; the previous checkpoint X loads' where one does."""
    import torch  # torch: only when a checkpoint is written or read

    mine = checkpoint_update(path) if _NAME.match(path.name) else None
    for p in reversed(checkpoints_in(path.parent)):
        if p == path or (mine is not None and checkpoint_update(p) > mine):
            continue
        try:
            data = torch.load(p, map_location="cpu", weights_only=True)
            if isinstance(data, dict) and data.get("format") == FORMAT:
                return f"; the previous checkpoint {p} loads (resume from it)"
        except Exception:
            continue
    return ""


__all__ = ["CheckpointError", "checkpoint_update", "checkpoints_in", "latest_checkpoint", "load_checkpoint",
           "save_checkpoint"]
