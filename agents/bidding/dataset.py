"""The hand-value dataset: simulated points per hand, contract and world, in chunks.

``generate`` deals ``hands / 4`` deals (deal ``i`` is game ``i`` of ``seed``, as everywhere in
the toolkit), and for each of the four hands values every contract of ``CONTRACTS`` in
``worlds`` sampled deals of the other tiles with ``agents.bidding.HandValuer`` (the hand's
seat declaring and leading; played out by ``play`` or solved exactly). A dataset is a
folder::

    config.json         what made it (evaluate, play, worlds, seed, chunk, contracts)
    chunk_00000.npz     hands (uint64 [n] bitmasks), seat (int8 [n]), deal (int64 [n]),
    chunk_00001.npz     points (uint8 [n, contracts, worlds]): the team's points per world
    ...

Chunk ``k`` holds deals ``k * chunk / 4 ..`` and depends only on the config and ``k`` (its
worlds come from ``seed`` and ``k``), so a dataset is resumed by running the same command
again: chunks already there are kept, a torn chunk (a crash mid-write leaves only a
temporary file) is redone, and a folder made with another config is refused. ``hands`` is
not part of the config: a larger value extends the dataset. ``load_dataset`` reads it back
with the chance of making each need (``p_make``) and the expected points.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from texas42_env.config import Rule, build, check, one_of, setting, validate, whole
from texas42_env.core import Game
from texas42_env.rules import ConfigError

from agents.base import REGISTRY, spec_name
from agents.bidding.bidders import CONTRACTS, EVALUATIONS, NEEDS, HandValuer, make_curves
from agents.runs import open_run, read_json, report_resume, write_npz
from agents.scale.backend import (KINDS, WORKER_THREADS, Backend, BackendError, RayConfig,
                                  thread_settings)

FORMAT = "texas42-hand-values"
IDENTITY = ("evaluate", "play", "worlds", "seed", "chunk", "contracts")


class DatasetError(ValueError):
    """A dataset folder that cannot be used or extended; the message says where and why."""


class DataConfigError(DatasetError, ConfigError):
    """A bad value of a ``DataConfig`` (a ``DatasetError`` and a ``ConfigError``)."""


def _contracts(v) -> bool:
    cs = [int(c) for c in v]
    return bool(cs) and all(c in CONTRACTS for c in cs)


@dataclass
class DataConfig:
    """``hands``: total hands (a multiple of ``chunk``); ``chunk``: hands per file (a
    multiple of 4: whole deals); ``workers``: chunks made at once, one thread each, on the
    ``backend`` (``local`` processes, or ``ray``: a task a chunk, ``ray.address`` where;
    see ``agents.scale.backend``). The backend and workers never change a chunk."""

    hands: int = setting(20000, whole(1))
    worlds: int = setting(16, whole(1))
    evaluate: str = setting("playout", one_of(*EVALUATIONS, noun="evaluation"))
    play: str = "heuristic"
    seed: int = setting(0, whole())
    chunk: int = setting(400, whole(1, test=lambda v: v % 4 == 0,
                                    says="a multiple of 4 (whole deals)"))
    workers: int = setting(1, whole(1))
    backend: str = setting("local", one_of(*KINDS))
    ray: RayConfig = setting(default_factory=RayConfig)
    contracts: list[int] = setting(
        rule=Rule(test=_contracts, says=f"a list of contracts among {list(CONTRACTS)}"),
        default_factory=lambda: list(CONTRACTS))

    def __post_init__(self):
        if isinstance(self.ray, dict):
            self.ray = build(RayConfig, self.ray, "ray.", error=DataConfigError)
        validate(self, error=DataConfigError)
        validate(self.ray, "ray.", error=DataConfigError)
        if self.hands % self.chunk:
            raise DataConfigError(key="hands", value=self.hands,
                                  allowed=f"a multiple of chunk ({self.chunk})")
        self.contracts = [int(c) for c in self.contracts]
        # an agent spec: a name or NAME:KEY=VALUE,... (e.g. neural:path=PLAY_NET.pt)
        check("play", spec_name(self.play), one_of(*sorted(REGISTRY), noun="agent"),
              DataConfigError)

    @classmethod
    def from_dict(cls, d: dict) -> "DataConfig":
        return build(cls, d, error=DataConfigError)

    def identity(self) -> dict:
        return {k: asdict(self)[k] for k in IDENTITY}


def one_thread_each():
    """Worker processes started inside run one thread each (``WORKER_THREADS`` in the
    environment they inherit, whatever it held): the workers are the parallelism, and
    threads on top of them wait on each other's cores."""
    return thread_settings(WORKER_THREADS)


def chunk_path(out: Path, k: int) -> Path:
    return Path(out) / f"chunk_{k:05d}.npz"


def make_chunk(config: DataConfig, k: int) -> dict[str, np.ndarray]:
    """The arrays of chunk ``k`` (deterministic in the config and ``k``)."""

    game = Game()
    deals = config.chunk // 4
    st = game.reset(deals, seed=config.seed,
                    game_ids=np.arange(k * deals, (k + 1) * deals))
    valuer = HandValuer(game.rules, config.evaluate, config.play, config.worlds,
                        tuple(config.contracts))
    rng = np.random.default_rng([config.seed, k])
    hands = st.dealt.reshape(-1)  # deal-major: deal d's seats 0..3
    seat = np.tile(np.arange(4, dtype=np.int8), deals)
    points = np.zeros((hands.size, len(config.contracts), config.worlds), np.uint8)
    for s in range(4):  # each hand valued from its own seat (it declares and leads)
        rows = np.flatnonzero(seat == s)
        points[rows] = valuer.values(hands[rows], rng, seat=s)
    return {"hands": hands, "seat": seat, "deal": np.repeat(st.game_id.copy(), 4),
            "points": points}


def _chunk_task(job: tuple[dict, int]) -> dict[str, np.ndarray]:
    """A worker's task: the arrays of chunk ``k`` (the driver writes them)."""
    config, k = job
    return make_chunk(DataConfig(**config), k)


def _read_config(path: Path) -> dict:
    """A dataset folder's config.json, checked to be one."""
    config = read_json(path, DatasetError)
    if not isinstance(config, dict) or config.get("format") != FORMAT:
        raise DatasetError(f"{path}: not a hand-value dataset's config")
    missing = [k for k in IDENTITY if k not in config]
    if missing:
        raise DatasetError(f"{path}: lacks {', '.join(missing)}")
    return config


def generate(config: DataConfig, out: str | os.PathLike,
             progress: Callable[[int, int], None] | None = None) -> dict:
    """Make (or complete) the dataset in ``out``; ``progress(done, total)`` in chunks.
    Returns ``{"chunks": total, "made": newly made, "hands": total hands}``."""
    out = Path(out)
    resumed = open_run(out, config.identity(), what="a dataset", header={"format": FORMAT},
                       read=_read_config, error=DatasetError)
    total = config.hands // config.chunk
    todo = [k for k in range(total) if not chunk_path(out, k).exists()]
    done = total - len(todo)
    if resumed:
        report_resume("dataset", out, f"{done} of {total} chunks", f"{len(todo)} to make")
    if progress:
        progress(done, total)
    try:
        backend = Backend(config.backend, config.workers, config.ray.address)
    except BackendError as e:
        raise DataConfigError(str(e), key="backend", value=config.backend) from None
    plain = {**asdict(config), "ray": asdict(config.ray)}

    def keep(i: int, arrays: dict[str, np.ndarray]) -> None:
        nonlocal done
        write_npz(chunk_path(out, todo[i]), arrays)
        done += 1
        if progress:
            progress(done, total)

    backend.run(_chunk_task, [(plain, k) for k in todo], keep)
    return {"chunks": total, "made": len(todo), "hands": total * config.chunk}


def load_dataset(path: str | os.PathLike, max_hands: int | None = None) -> dict:
    """The dataset in folder ``path``: its config and the chunks' arrays concatenated (in
    chunk order, up to the first missing one), with ``p_make`` (float32 [n, contracts, 13]:
    the share of worlds taking each need of ``NEEDS``) and ``mean_points`` (float32
    [n, contracts])."""
    path = Path(path)
    cfg_path = path / "config.json"
    if not cfg_path.is_file():
        raise DatasetError(f"{path}: no config.json (not a hand-value dataset folder)")
    config = _read_config(cfg_path)
    parts: dict[str, list] = {"hands": [], "seat": [], "deal": [], "points": []}
    k, n = 0, 0
    C, W = len(config["contracts"]), config["worlds"]
    while chunk_path(path, k).exists() and (max_hands is None or n < max_hands):
        p = chunk_path(path, k)
        try:
            with np.load(p) as z:
                arrays = {name: z[name] for name in parts}
        except Exception as e:  # zipfile/pickle/KeyError: a damaged or foreign file
            raise DatasetError(f"{p}: cannot be read ({type(e).__name__}: {e}); delete it "
                               "and run the same command again to remake it") from None
        if arrays["points"].shape[1:] != (C, W) or \
                len({len(a) for a in arrays.values()}) != 1:
            raise DatasetError(f"{p}: arrays do not match config.json ({C} contracts, "
                               f"{W} worlds)")
        for name in parts:
            parts[name].append(arrays[name])
        n += len(arrays["hands"])
        k += 1
    if k == 0:
        raise DatasetError(f"{path}: no chunks yet (run scripts/bid_data.py)")
    beyond = sorted(q.name for q in path.glob("chunk_*.npz") if q.name > chunk_path(path, k).name)
    if beyond and (max_hands is None or n < max_hands):

        warnings.warn(f"{path}: {chunk_path(path, k).name} is missing, so {len(beyond)} later "
                      f"chunk(s) from {beyond[0]} are not read; run the same bid_data command "
                      "again to fill the gap", stacklevel=2)
    data = {name: np.concatenate(v) for name, v in parts.items()}
    if max_hands is not None:
        data = {name: v[:max_hands] for name, v in data.items()}
    data["p_make"] = make_curves(data["points"]).astype(np.float32)
    data["mean_points"] = data["points"].mean(axis=2, dtype=np.float32)
    data["config"] = config
    data["needs"] = NEEDS
    return data


__all__ = ["DataConfig", "DatasetError", "generate", "load_dataset", "make_chunk",
           "one_thread_each"]
