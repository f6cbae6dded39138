"""Evaluating bidders under identical play: duplicate matches, calibration, speed.

``compare(bidder, baseline, ...)`` plays duplicate deal pairs (games to the target, or single
hands) between a bidder and a baseline that play their cards the same way (both default to
the heuristic's play), split over worker processes, and returns the arena summary (marks per
hand and per game, make rates, win rate, each with a bootstrap 95% CI) together with the
bidder's predicted chance of making each contract it won and whether it was made.
``calibration`` turns those pairs into a reliability table and the expected calibration
error; ``reliability_plot`` draws it. ``bench_bidding`` times a bid decision.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from texas42_env.actions import PLUNGE
from texas42_env.rules import RulesConfig

from agents.arena.duplicate import PairStats, play_duplicate, summarize
from agents.base import make_agent
from agents.bidding.values import CONTRACTS


def _part(bidder: Any, baseline: Any, mode: str, seed: int, first: int, deals: int) -> dict:
    agent = make_agent(bidder)
    pairs = []

    def contracts(st, tables, orientations):
        for t, o in zip(tables.tolist(), orientations.tolist()):
            b = int(st.bidder[t])
            if b < 0 or b % 2 != o:  # side A (the bidder) holds team ``orientation``
                continue
            pred = agent.predictions.get((int(st.game_id[t]), int(st.hand_no[t]), b))
            if pred is None or not np.isfinite(pred[1]):
                continue  # a bid the rule did not make (a special by the rules of thumb)
            if int(st.contract[t]) not in CONTRACTS or int(st.high_action[t]) >= PLUNGE:
                continue  # a nello, plunge or splash: the calibration is the trumps'
            pairs.append((pred[1], int(st.made[t] == 1)))

    stats = play_duplicate(RulesConfig.make(), agent, baseline, deals, mode=mode, seed=seed,
                           first_deal=first, on_hands=contracts)
    return {"stats": stats.to_dict(), "calibration": pairs}


def compare(bidder: Any, baseline: Any = "heuristic", deals: int = 100, mode: str = "games",
            seed: int = 1, workers: int = 1, progress=None) -> dict:
    """Duplicate match of ``bidder`` (an agent spec with a ``predictions`` log: ``simbid``,
    ``bidnet``) against ``baseline`` over ``deals`` pairs; see the module docstring."""
    workers = max(1, min(int(workers), deals))
    bounds = np.linspace(0, deals, workers + 1).astype(int)
    jobs = [(int(lo), int(hi - lo)) for lo, hi in zip(bounds[:-1], bounds[1:]) if hi > lo]
    t0 = time.perf_counter()
    if workers == 1:
        parts = [_part(bidder, baseline, mode, seed, lo, n) for lo, n in jobs]
    else:

        with ProcessPoolExecutor(workers, mp_context=mp.get_context("spawn")) as ex:
            futures = [ex.submit(_part, bidder, baseline, mode, seed, lo, n) for lo, n in jobs]
            parts = [f.result() for f in futures]
    stats = PairStats.concat([PairStats.from_dict(p["stats"]) for p in parts])
    pairs = np.array([x for p in parts for x in p["calibration"]], float).reshape(-1, 2)
    return {"summary": summarize(stats, mode=mode, seed=seed), "mode": mode, "deals": deals,
            "seed": seed, "seconds": time.perf_counter() - t0,
            "predicted": pairs[:, 0].tolist(), "made": pairs[:, 1].astype(int).tolist()}


def calibration(predicted, made, bins: int = 10) -> dict:
    """Reliability table over ``bins`` equal-width bins of the predicted chance, and the
    expected calibration error (bin-size-weighted mean |predicted - made rate|)."""
    p = np.asarray(predicted, float)
    y = np.asarray(made, float)
    if p.shape != y.shape:
        raise ValueError("predicted and made must have the same length")
    if p.size == 0:
        raise ValueError("no predictions to calibrate")
    if not ((p >= 0) & (p <= 1)).all():  # NaN included
        raise ValueError("predicted chances must lie in [0, 1]")
    idx = np.minimum((p * bins).astype(int), bins - 1)
    rows = []
    ece = 0.0
    for b in range(bins):
        sel = idx == b
        if not sel.any():
            continue
        mp_, my = float(p[sel].mean()), float(y[sel].mean())
        rows.append({"bin": [b / bins, (b + 1) / bins], "n": int(sel.sum()),
                     "predicted": mp_, "made": my})
        ece += sel.sum() / p.size * abs(mp_ - my)
    return {"ece": float(ece), "n": int(p.size), "bins": rows,
            "brier": float(((p - y) ** 2).mean())}


def reliability_plot(tables: dict[str, dict], path) -> None:
    """A reliability diagram (predicted chance vs made rate, per bin, one line per bidder)
    with each bidder's ECE in the legend, written to ``path`` (PNG)."""
    import matplotlib  # matplotlib: only to draw the plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after choosing the Agg backend)

    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect")
    for name, tab in tables.items():
        xs = [r["predicted"] for r in tab["bins"]]
        ys = [r["made"] for r in tab["bins"]]
        ns = [r["n"] for r in tab["bins"]]
        ax.plot(xs, ys, marker="o", label=f"{name} (ECE {tab['ece']:.3f}, n={tab['n']})")
        for x, y, n in zip(xs, ys, ns):
            ax.annotate(str(n), (x, y), fontsize=7, textcoords="offset points", xytext=(3, -9))
    ax.set_xlabel("predicted chance of making the contract won")
    ax.set_ylabel("share made")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_title("Bidder calibration (numbers: contracts per bin)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


__all__ = ["calibration", "compare", "reliability_plot"]
