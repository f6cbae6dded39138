"""``texas42 bench``: how fast the core, the environments and world sampling go.

Every figure is random legal play of whole hands, bidding included, in one process. Each
measurement runs ``ROUNDS`` timed rounds after a warm-up and reports the median round (robust
to the machine's noise, as timeit's advice goes).
"""

from __future__ import annotations

import os
import time
from typing import Callable

import numpy as np

from .core import HAND_OVER, Game
from .rules import preset
from .sampling import uniform_legal

BATCHES = (1, 64, 1024, 4096, 8192)
ENV_BATCHES = (1, 4096)
ROUNDS = 5


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _measure(run: Callable[[int], tuple[int, int]], seconds: float) -> tuple[float, float]:
    """Median (decisions/s, hands/s) over ROUNDS rounds of ``run(steps)``."""
    run(4)  # warm up
    steps = 4
    while True:
        t0 = time.perf_counter()
        run(steps)
        took = time.perf_counter() - t0
        if took >= seconds / ROUNDS / 4 or steps >= 1 << 22:
            break
        steps *= 2
    steps = max(1, int(steps * (seconds / ROUNDS) / max(took, 1e-9)))
    rates = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        d, h = run(steps)
        dt = time.perf_counter() - t0
        rates.append((d / dt, h / dt))
    return float(np.median([r[0] for r in rates])), float(np.median([r[1] for r in rates]))


def _row(kind: str, ruleset: str, batch: int, rates: tuple[float, float]) -> dict:
    return {"kind": kind, "ruleset": ruleset, "batch": batch, "decisions_per_s": rates[0],
            "hands_per_s": rates[1], "cores": cores()}


def bench_core(ruleset: str = "standard", batch: int = 4096, seconds: float = 1.0,
               seed: int = 0) -> dict:
    """The core alone: every table whose hand ends is dealt a new game at once, so every
    step is ``batch`` decisions."""
    game = Game(preset(ruleset))
    rng = np.random.default_rng(seed)
    st = game.reset(batch, seed=seed)
    next_game = [batch]

    def run(steps: int) -> tuple[int, int]:
        hands = 0
        for _ in range(steps):
            game.step(st, uniform_legal(game.legal_mask(st), rng))
            over = np.flatnonzero(st.phase >= HAND_OVER)
            if over.size:
                hands += over.size
                game.new_games(st, over, np.arange(next_game[0], next_game[0] + over.size))
                next_game[0] += over.size
        return steps * batch, hands

    return _row("core", ruleset, batch, _measure(run, seconds))


def bench_env(ruleset: str = "standard", batch: int = 4096, seconds: float = 1.0,
              seed: int = 0) -> dict:
    """The environments with observations and masks: ``Texas42Env`` at batch 1 (a step per
    decision, reset at each hand's end), ``Texas42VectorEnv`` above it."""
    rng = np.random.default_rng(seed)
    if batch == 1:
        from .env import Texas42Env

        env = Texas42Env(ruleset=ruleset)
        state = list(env.reset(seed=seed))

        def run(steps: int) -> tuple[int, int]:
            hands = 0
            for _ in range(steps):
                legal = np.flatnonzero(state[0]["action_mask"])
                obs, _, done, _, info = env.step(legal[rng.integers(legal.size)])
                if done:
                    hands += 1
                    obs, info = env.reset()
                state[0] = obs
            return steps, hands
    else:
        from .vector_env import Texas42VectorEnv

        venv = Texas42VectorEnv(batch, ruleset=ruleset, seed=seed)  # copy=True, the default
        state = [venv.reset()[0]]

        def run(steps: int) -> tuple[int, int]:
            hands = 0
            for _ in range(steps):
                obs, _, done, _, _ = venv.step(
                    uniform_legal(state[0]["action_mask"].view(bool), rng))
                hands += int(done.sum())
                state[0] = obs
            return steps * batch, hands

    return _row("env", ruleset, batch, _measure(run, seconds))
