"""The one bootstrap: percentile intervals over resampled units (deal pairs, or values).

``bootstrap(statistic, n)`` resamples ``n`` units with replacement ``n_boot`` times and
evaluates ``statistic`` on blocks of resamples at once (it maps an index array whose last
axis is the units to one value per row); the interval is the percentile interval of the
finite values. The arena's summaries and ``ratings.bootstrap_mean_ci`` both use it.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

MAX_DRAWN = 2_000_000  # resampled indices held at once


def bootstrap(statistic: Callable[[np.ndarray], np.ndarray], n: int, n_boot: int = 1000,
              rng: np.random.Generator | int | None = 0,
              quantiles: tuple[float, float] = (0.025, 0.975),
              block: int = 100) -> tuple[float, float, float]:
    """(estimate on all ``n`` units, low, high): the ``quantiles`` of the resampled values
    (a 95% interval by default); with fewer than two units the interval is the estimate
    itself, and NaNs when no resample gives a finite value."""
    rng = np.random.default_rng(rng)
    est = float(statistic(np.arange(n)))
    if n < 2:
        return est, est, est
    block = max(1, min(block, MAX_DRAWN // n))
    boots = np.concatenate([statistic(rng.integers(0, n, size=(min(block, n_boot - lo), n)))
                            for lo in range(0, n_boot, block)])
    boots = boots[np.isfinite(boots)]
    if boots.size == 0:
        return est, float("nan"), float("nan")
    lo, hi = np.quantile(boots, quantiles)
    return est, float(lo), float(hi)
