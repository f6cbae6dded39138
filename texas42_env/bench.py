"""``texas42 bench``: how fast the core plays random legal hands, bidding included."""

from __future__ import annotations

import os
import time

import numpy as np

from .core import HAND_OVER, Game
from .rules import preset
from .sampling import uniform_legal

BATCHES = (1, 64, 1024, 4096, 8192)
ROUNDS = 5


def bench_core(ruleset: str = "standard", batch: int = 4096, seconds: float = 1.0,
               seed: int = 0) -> dict:
    """Random legal play of whole hands at ``batch`` tables for about ``seconds``.

    Every table whose hand ends is dealt a new one at once, so every step is ``batch``
    decisions. The rates are the median of ``ROUNDS`` timed rounds. Returns ``{"kind": "core", "ruleset", "batch", "decisions_per_s",
    "hands_per_s", "cores"}``.
    """
    game = Game(preset(ruleset))
    rng = np.random.default_rng(seed)
    st = game.reset(batch, seed=seed)
    next_game = batch

    def run(steps: int) -> tuple[int, int]:
        nonlocal next_game
        decisions = hands = 0
        for _ in range(steps):
            game.step(st, uniform_legal(game.legal_mask(st), rng))
            decisions += batch
            over = np.flatnonzero(st.phase >= HAND_OVER)
            if over.size:
                hands += over.size
                game.new_games(st, over, np.arange(next_game, next_game + over.size))
                next_game += over.size
        return decisions, hands

    run(20)  # warm up
    # rounds of about seconds / ROUNDS each; the median round is reported (robust to the
    # machine's noise, as timeit's advice goes)
    steps = 4
    while True:
        t0 = time.perf_counter()
        run(steps)
        if time.perf_counter() - t0 >= seconds / ROUNDS / 4 or steps >= 1 << 20:
            break
        steps *= 2
    steps = max(1, int(steps * (seconds / ROUNDS) / max(time.perf_counter() - t0, 1e-9)))
    rates = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        d, h = run(steps)
        dt = time.perf_counter() - t0
        rates.append((d / dt, h / dt))
    decisions_per_s = float(np.median([r[0] for r in rates]))
    hands_per_s = float(np.median([r[1] for r in rates]))
    return {"kind": "core", "ruleset": ruleset, "batch": batch,
            "decisions_per_s": decisions_per_s, "hands_per_s": hands_per_s, "cores": cores()}


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
