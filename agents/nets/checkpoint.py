"""Training checkpoints: written atomically, read with errors that say what is wrong.

A checkpoint is one ``torch.save`` file holding plain data only (tensors, numbers, strings,
lists, dicts), so it loads with ``weights_only=True``: no code runs when a file is read. It is
written atomically (``agents.runs.atomic_write``: a temporary file beside it, flushed to disk,
renamed over the final name), so a crash mid-write never leaves a torn checkpoint under a
real name and the earlier checkpoints are untouched; a write that fails (a full disk) says
why and leaves nothing.

Every checkpoint carries a SHA-256 ``checksum`` of its contents (the tensors' bytes and every
other value, dict keys in sorted order), checked on load: torch does not check its zip's
CRCs, so flipped bytes inside a tensor would otherwise load as wrong weights. Files written
before the checksum (none stored) still load. A load also refuses NaN or infinite weights and
a ``ckpt_<update>.pt`` whose stored update is another (resume goes by the name).
"""

from __future__ import annotations

import errno as errnos
import hashlib
import os
import re
import zipfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.runs import atomic_write

FORMAT = "texas42-checkpoint"
VERSION = 1
CHECKSUM = "checksum"  # the key of the stored checksum, "sha256:<hex>"
_NAME = re.compile(r"^ckpt_(\d+)\.pt$")
_ROUND = re.compile(r"^round_(\d+)\.pt$")


class CheckpointError(ValueError):
    """A checkpoint that cannot be read or written; the message names the file and the
    fault."""


class _Fault(Exception):
    """Why a file does not load; ``hint``: whether an earlier checkpoint is worth naming."""

    def __init__(self, message: str, hint: bool = True):
        super().__init__(message)
        self.hint = hint


def save_checkpoint(path: str | os.PathLike, payload: dict[str, Any]) -> Path:
    """Write ``payload`` (plus the format tag and its checksum) to ``path`` atomically;
    ``CheckpointError`` naming the OS's reason if the file cannot be written (nothing left
    behind, earlier files untouched). A stale checksum in ``payload`` is replaced."""
    import torch  # torch: only when a checkpoint is written or read

    path = Path(path)
    data = {"format": FORMAT, "version": VERSION,
            **{k: v for k, v in payload.items() if k != CHECKSUM}}
    try:  # before any file is opened: a value that is not plain data leaves nothing
        data[CHECKSUM] = checksum(data)
    except TypeError as e:
        raise TypeError(f"{path}: {e}") from None
    sink = None

    def write(f) -> None:
        nonlocal sink
        sink = _Sink(f)
        torch.save(data, sink)

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, write)
    except BaseException as e:
        # torch reports a failed write as "unexpected pos A vs B": the OS's reason is kept
        cause = sink.error if sink is not None and sink.error else e
        if not isinstance(e, Exception) or not isinstance(cause, OSError):
            raise  # Ctrl-C, or a payload torch cannot save: as it came
        raise CheckpointError(f"{path}: checkpoint not written ({_os_reason(cause)}); "
                              f"nothing already saved was changed") from None
    return path


def load_checkpoint(path: str | os.PathLike, require: tuple[str, ...] = ("model",)) -> dict:
    """Read a checkpoint (without its checksum); ``CheckpointError`` if it is missing, torn,
    damaged (checksum mismatch), not ours, lacks a key in ``require``, holds NaN or infinite
    weights or its name's update is not the one it holds. Where the file sits among others,
    the error names the newest earlier one that loads."""
    path = Path(path)
    try:
        return _verified(path, require)
    except _Fault as fault:
        raise CheckpointError(f"{fault}{_earlier(path, require) if fault.hint else ''}") \
            from None


def checksum(data: Mapping) -> str:
    """``sha256:<hex>`` of ``data``'s values in a canonical order (the tensors' dtype, shape
    and bytes; dict keys sorted), the same for a loaded copy as for the saved original;
    ``TypeError`` naming a value that is not plain data."""
    h = hashlib.sha256()
    _feed(h.update, data, "")
    return f"sha256:{h.hexdigest()}"


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
    ``checkpoints/``): a training run's ``ckpt_<update>.pt``, else an expert-iteration run's
    ``round_<round>.pt``."""
    where = Path(where)
    if where.is_file():
        return where
    if not where.is_dir():
        raise CheckpointError(f"{where}: no such file or folder")
    for folder in (where, where / "checkpoints"):
        found = checkpoints_in(folder) or _rounds_in(folder)
        if found:
            return found[-1]
    raise CheckpointError(f"{where}: no checkpoint (ckpt_<update>.pt, or an expert "
                          f"iteration's round_<round>.pt) there")


def _rounds_in(folder: Path) -> list[Path]:
    """An expert-iteration run's round checkpoints ``round_<round>.pt``, oldest first."""
    found = [(int(m.group(1)), p) for p in folder.glob("round_*.pt")
             if (m := _ROUND.match(p.name))]
    return [p for _, p in sorted(found)]


def _verified(path: Path, require: tuple[str, ...]) -> dict:
    """The checkpoint at ``path``, every check passed; ``_Fault`` saying which failed."""
    import torch  # torch: only when a checkpoint is written or read

    if not path.is_file():
        raise _Fault(f"{path}: no such checkpoint file", hint=False)
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torn, truncated, or not a torch file at all
        raise _Fault(f"{path}: {_unreadable(path, e)}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _Fault(f"{path}: not a texas42 checkpoint (no '{FORMAT}' tag)")
    if data.get("version") != VERSION:
        raise _Fault(f"{path}: checkpoint version {data.get('version')!r}; this texas42 "
                     f"reads version {VERSION}", hint=False)
    if CHECKSUM in data:  # files from before the checksum have none
        stored = data.pop(CHECKSUM)
        try:
            ok = stored == checksum(data)
        except TypeError:  # damage that made a value of a kind never saved
            ok = False
        if not ok:
            raise _Fault(f"{path}: damaged checkpoint (checksum mismatch)")
    for name, t in _tensors(data, ""):
        if (t.is_floating_point() or t.is_complex()) and not _finite(t):
            raise _Fault(f"{path}: weights hold NaN or infinite values (tensor {name})")
    for key in require:
        if key not in data:
            raise _Fault(f"{path}: checkpoint lacks {key!r}")
    step = data.get("step")
    if _NAME.match(path.name) and isinstance(step, dict) and isinstance(step.get("update"), int):
        named, held = checkpoint_update(path), step["update"]
        if named != held:  # resume and keep_checkpoints go by the name
            raise _Fault(f"{path}: named for update {named} but holds update {held} "
                         f"(renamed or copied over?)")
    return data


def _unreadable(path: Path, error: Exception) -> str:
    """Why torch.load refused ``path``, in words: our checkpoints are torch's zip archives of
    tensors and plain data, so anything else is not one (torch's own advice, to load it
    with ``weights_only=False``, is not passed on: that runs whatever the file holds)."""
    if not zipfile.is_zipfile(path):
        return "not a readable checkpoint (not a PyTorch file: torn, or some other file)"
    if "weights_only" in str(error) or "Weights only" in str(error):
        return ("not a readable checkpoint (it holds Python objects, not only tensors and "
                "plain data; not loaded, since loading it would run its code)")
    first = str(error).splitlines()[0] if str(error) else ""
    return f"not a readable checkpoint (torn or damaged: {type(error).__name__}: {first})"


def _earlier(path: Path, require: tuple[str, ...]) -> str:
    """'; the previous checkpoint X loads' where one does (every check passed)."""
    mine = checkpoint_update(path) if _NAME.match(path.name) else None
    for p in reversed(checkpoints_in(path.parent)):
        if p == path or (mine is not None and checkpoint_update(p) > mine):
            continue
        try:
            _verified(p, require)
        except Exception:
            continue
        return f"; the previous checkpoint {p} loads (use it instead)"
    return ""


def _finite(t) -> bool:
    """No NaN or infinity in ``t``: a finite sum proves it (one pass, no mask); an infinite
    one may be an overflow, so then every element is checked."""
    import torch  # torch: only when a checkpoint is written or read

    return bool(torch.isfinite(t.sum())) or bool(torch.isfinite(t).all())


def _tensors(x: Any, where: str) -> Iterator[tuple[str, Any]]:
    """Every tensor inside ``x`` with its dotted name (``model.state_dict.trunk.0.weight``)."""
    import torch  # torch: only when a checkpoint is written or read

    if isinstance(x, torch.Tensor):
        yield where, x
    elif isinstance(x, Mapping):
        for k, v in x.items():
            yield from _tensors(v, f"{where}.{k}" if where else str(k))
    elif isinstance(x, (list, tuple)):
        for i, v in enumerate(x):
            yield from _tensors(v, f"{where}.{i}" if where else str(i))


def _feed(write: Callable[[bytes], Any], x: Any, where: str) -> None:
    """Write ``x``'s canonical bytes: a type tag, then a self-delimiting body, so that
    different data never write the same bytes; dict keys sorted by their own bytes."""
    import torch  # torch: only when a checkpoint is written or read

    if isinstance(x, torch.Tensor):
        t = x.detach()
        t = (t.to_dense() if t.layout != torch.strided else t).cpu().contiguous().reshape(-1)
        write(f"T{t.dtype}{tuple(x.shape)}:".encode())
        write(t.view(torch.uint8).numpy().data)  # the bytes in place: no copy
    elif x is None:
        write(b"N")
    elif isinstance(x, bool):
        write(b"B1" if x else b"B0")
    elif isinstance(x, int):
        write(f"I{x};".encode())
    elif isinstance(x, float):
        write(f"F{x.hex()};".encode())
    elif isinstance(x, complex):
        write(f"C{x.real.hex()},{x.imag.hex()};".encode())
    elif isinstance(x, str):
        body = x.encode("utf-8", "surrogatepass")
        write(f"S{len(body)}:".encode() + body)
    elif isinstance(x, (bytes, bytearray)):
        write(f"Y{len(x)}:".encode() + bytes(x))
    elif isinstance(x, Mapping):
        items = []
        for k, v in x.items():
            key: list[bytes] = []
            _feed(key.append, k, f"{where} key {k!r}")
            items.append((b"".join(key), k, v))
        write(f"D{len(items)}:".encode())
        for key_bytes, k, v in sorted(items, key=lambda item: item[0]):
            write(key_bytes)
            _feed(write, v, f"{where}.{k}" if where else str(k))
    elif isinstance(x, (list, tuple)):
        write(f"{'L' if isinstance(x, list) else 'U'}{len(x)}:".encode())
        for i, v in enumerate(x):
            _feed(write, v, f"{where}.{i}" if where else str(i))
    elif isinstance(x, (set, frozenset)):
        parts = []
        for v in x:
            part: list[bytes] = []
            _feed(part.append, v, f"{where} element")
            parts.append(b"".join(part))
        write(f"E{len(parts)}:".encode() + b"".join(sorted(parts)))
    elif isinstance(x, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        text = f"{type(x).__name__}:{x}".encode()
        write(f"O{len(text)}:".encode() + text)
    elif isinstance(x, (np.ndarray, np.generic)):
        a = np.ascontiguousarray(x)
        if a.dtype.hasobject:
            raise TypeError(f"checkpoint value {where or 'payload'}: a NumPy array of "
                            f"objects, not plain data")
        write(f"A{a.dtype.str}{a.shape}:".encode() + a.tobytes())
    else:
        raise TypeError(f"checkpoint value {where or 'payload'}: a {type(x).__name__}, not "
                        f"plain data (tensors, numbers, strings, lists, dicts)")


class _Sink:
    """The file ``torch.save`` writes through, keeping the first OS error: torch replaces
    it with "unexpected pos A vs B", which does not say the disk is full."""

    def __init__(self, f):
        self.f = f
        self.error: OSError | None = None

    def write(self, b) -> int:
        try:
            return self.f.write(b)
        except OSError as e:
            self.error = self.error or e
            raise

    def flush(self) -> None:
        try:
            self.f.flush()
        except OSError as e:
            self.error = self.error or e
            raise


def _os_reason(e: OSError) -> str:
    """The OS's words for ``e``: 'No space left on device (ENOSPC)'."""
    words = e.strerror or (os.strerror(e.errno) if e.errno else str(e))
    name = errnos.errorcode.get(e.errno or -1)
    return f"{words} ({name})" if name else words


__all__ = ["CHECKSUM", "CheckpointError", "checkpoint_update", "checkpoints_in", "checksum",
           "latest_checkpoint", "load_checkpoint", "save_checkpoint"]
