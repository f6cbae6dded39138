"""Running the Hydra apps of ``scripts/``: what Hydra refuses before the app's function runs
(``nope=1``: a key the config does not have; ``model=huge``: an option a group does not have;
an override that does not parse) ends the script with one line on stderr, like the
``ConfigError`` the function itself turns into ``SystemExit`` (``hydra_error``: Hydra's and
OmegaConf's refusals as ``ConfigError``, told apart by their class names).
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from texas42_env.rules import ConfigError

# configs of configs/ that were renamed: the old name, the new
RENAMED_CONFIGS = {"bidder": "ppo_bidder"}


def one_line(prog: str, error: BaseException) -> str:
    """``PROG: MESSAGE`` on one line (what a script prints as it stops)."""
    return f"{prog}: " + " ".join(str(error).split())


def _kind_of(exc: Any, *names: str) -> bool:
    """``exc`` is an instance of a class named one of ``names`` (Hydra's and OmegaConf's
    errors are told by name, whichever of their modules raised them)."""
    return any(c.__name__ in names for c in type(exc).__mro__)


def _from_omegaconf(exc: Any) -> bool:
    return any(c.__module__.startswith("omegaconf.") for c in type(exc).__mro__)


def hydra_error(exc: BaseException) -> ConfigError | None:
    """What Hydra or OmegaConf refused (or the ``ConfigError`` ``exc``), as a ``ConfigError``;
    None: not a refusal of the config."""
    if isinstance(exc, ConfigError):
        return exc
    omega = exc if _from_omegaconf(exc) else exc.__cause__
    if omega is not None and not _from_omegaconf(omega):
        omega = None
    full_key = getattr(omega, "full_key", None)
    if _kind_of(omega, "ConfigAttributeError", "ConfigKeyError") and full_key \
            and "not in struct" in str(omega):  # a key the config does not have
        parent = getattr(omega, "parent_node", None)
        names = [] if parent is None else [str(k) for k in parent.keys()]
        if "." not in full_key:
            names = [n for n in names if n != "hydra"]
        return ConfigError.unknown_key(full_key, sorted(names))
    options, missing = getattr(exc, "options", None), getattr(exc, "missing_cfg_file", None)
    if _kind_of(exc, "MissingConfigException") and options and missing and "/" in missing:
        group, name = missing.rsplit("/", 1)  # an option a config group does not have
        return ConfigError.unknown(group.replace("/", "."), name, sorted(options),
                                   noun="option")
    if _kind_of(omega, "MissingMandatoryValue") and full_key:  # a ??? left unset
        return ConfigError(f"{full_key} is required (the config leaves it ???); give it as "
                           f"{full_key}=...", key=full_key)
    if omega is not None:  # a value OmegaConf cannot take or an interpolation it cannot resolve
        first = str(omega).splitlines()[0] if str(omega) else type(omega).__name__
        return ConfigError(f"{full_key}: {first}" if full_key else first, key=full_key)
    if _kind_of(exc, "MissingConfigException") and missing in RENAMED_CONFIGS:
        new = RENAMED_CONFIGS[missing]
        return ConfigError(f"the config {missing!r} is now {new!r}: --config-name {new}")
    if _kind_of(exc, "CompactHydraException"):  # an override that does not parse, ...
        text = str(exc).split("Config search path")[0]
        return ConfigError("; ".join(line.strip() for line in text.splitlines() if line.strip()))
    return None


def _opened(arg: str, open_keys: Iterable[str]) -> list[str]:
    """The overrides ``KEY=VALUE`` of an open mapping (``rules``, the tournament's ``agents``:
    their keys are checked by the app, not by Hydra's struct mode) stands for: a whole mapping
    (``agents={a: ..., b: ...}``) replaces the config's (``~KEY`` then ``+KEY=VALUE``), one
    entry (``rules.nello=false``) is set or added (``++KEY=VALUE``)."""
    if arg.startswith(("-", "+", "~")) or "=" not in arg:
        return [arg]
    key, value = arg.split("=", 1)
    if value.strip() in ("", "{}"):
        return [arg]
    if key in open_keys and value.lstrip().startswith("{"):
        return [f"~{key}", f"+{arg}"]
    if any(key == k or key.startswith(k + ".") for k in open_keys):
        return ["++" + arg]
    return [arg]


def _before_the_app(exc: BaseException, main: Callable[[], Any]) -> bool:
    """``exc`` was raised by Hydra itself (making the run folder, writing its record of the
    command), not inside the app's own function: no frame of its traceback runs that
    function's code."""
    code = getattr(getattr(main, "__wrapped__", None), "__code__", None)
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return False
        tb = tb.tb_next
    return code is not None


def run_app(main: Callable[[], Any], prog: str, open_keys: Iterable[str] = ()) -> Any:
    """Run the ``@hydra.main`` function ``main``; a config Hydra refuses ends the program with
    ``PROG: MESSAGE`` (one line, exit status 1) instead of Hydra's report. ``open_keys``:
    mappings whose keys the script checks itself (``rules={nello: false}`` and
    ``rules.target=0`` then reach the rules checker). A run folder Hydra cannot make or write
    (``hydra.run.dir=README.md``) is one line too. ``HYDRA_FULL_ERROR=1`` still shows
    Hydra's full trace."""
    open_keys = tuple(open_keys)
    sys.argv[1:] = [x for a in sys.argv[1:] for x in _opened(a, open_keys)]
    full = os.environ.get("HYDRA_FULL_ERROR")
    os.environ["HYDRA_FULL_ERROR"] = "1"  # Hydra raises what it refuses instead of printing it
    try:
        return main()
    except Exception as e:
        err = hydra_error(e) if full != "1" else None
        if err is None and full != "1" and isinstance(e, OSError) and _before_the_app(e, main):
            err = ConfigError(f"the run folder (hydra.run.dir) cannot be made or written: "
                              f"{e.filename}: {e.strerror}", key="hydra.run.dir")
        if err is None:
            raise
        raise SystemExit(one_line(prog, err)) from None
    finally:
        if full is None:
            os.environ.pop("HYDRA_FULL_ERROR", None)
        else:
            os.environ["HYDRA_FULL_ERROR"] = full


HYDRA_FILES = {".hydra/config.yaml", ".hydra/hydra.yaml", ".hydra/overrides.yaml"}


def drop_if_unused(folder: Path) -> None:
    """Remove the run folder Hydra made for this command if it holds nothing but Hydra's own
    record of the command (a resumed run goes on in its own folder; a refused start wrote
    nothing); a folder with anything else in it is left as it is."""
    folder = Path(folder)
    if not folder.is_dir():
        return
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}
    dirs = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_dir()}
    if not files <= HYDRA_FILES or not dirs <= {".hydra"}:
        return
    for name in files:
        (folder / name).unlink()
    for empty in (folder / ".hydra", folder):
        if empty.is_dir():
            empty.rmdir()


@contextmanager
def tidy_run(folder: Path) -> Iterator[Path]:
    """Run an app's work in ``folder`` (Hydra's run folder), removing it afterwards if the
    work left nothing in it (``drop_if_unused``), whether it ended well or not."""
    try:
        yield Path(folder)
    finally:
        drop_if_unused(Path(folder))


__all__ = ["RENAMED_CONFIGS", "drop_if_unused", "hydra_error", "one_line", "run_app", "tidy_run"]
