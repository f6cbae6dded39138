"""``texas42_env.counting.ClassDP`` on its own: the counting programme of world sampling.

Held to: its count (float and ``exact``) equals a brute-force enumeration of every way to
deal the tile instances on small problems (classes, allowed pseudo-seats, caps, and
"at least r of these" quotas), and the closed forms on problems of the real size; its
samples are valid splits (each class dealt whole, each pseudo-seat filled to its cap, no
instance where it may not go, every quota met) and close to uniform over the deals (a
chi-square check with a fixed seed and a generous bound).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from texas42_env.counting import ClassDP


def _deals(sizes, allowed, caps, inq=None, qseats=(), need=()):
    """Every deal of the labelled instances, as its split (tuple of per-class counts per
    seat), by enumeration: Counter split -> number of deals."""
    inst = [c for c, n in enumerate(sizes) for _ in range(n)]
    P = len(caps)
    out: Counter = Counter()
    for seats in itertools.product(range(P), repeat=len(inst)):
        if any(not allowed[c] >> p & 1 for c, p in zip(inst, seats)):
            continue
        if [seats.count(p) for p in range(P)] != list(caps):
            continue
        if any(sum(1 for c, p in zip(inst, seats) if inq[c][q] and qseats[q] >> p & 1) < need[q]
               for q in range(len(need))):
            continue
        split = [[0] * P for _ in sizes]
        for c, p in zip(inst, seats):
            split[c][p] += 1
        out[tuple(map(tuple, split))] += 1
    return out


# (sizes, allowed, caps, inq, qseats, need): small problems, every kind of constraint
PROBLEMS = {
    "one class": ([4], [0b11], [3, 1], None, (), ()),
    "free classes": ([2, 3], [0b111, 0b111], [1, 2, 2], None, (), ()),
    "allowed seats": ([2, 3, 2], [0b011, 0b111, 0b110], [2, 2, 3], None, (), ()),
    "one seat each": ([1, 1, 1, 1, 1], [0b001, 0b011, 0b111, 0b110, 0b100], [2, 2, 1],
                      None, (), ()),
    "a cat": ([2, 2, 2], [0b0111, 0b1111, 0b1011], [2, 2, 1, 1], None, (), ()),
    "forced": ([2, 2], [0b01, 0b01], [4, 0], None, (), ()),
    "impossible": ([2, 2], [0b01, 0b10], [3, 1], None, (), ()),
    "a quota": ([2, 2, 2], [0b111, 0b111, 0b011], [2, 2, 2], [[1], [0], [1]], [0b001], [2]),
    "two quotas": ([2, 1, 2, 2], [0b111, 0b111, 0b110, 0b111], [3, 2, 2],
                   [[1, 0], [1, 1], [0, 1], [0, 0]], [0b001, 0b110], [2, 2]),
    "a quota over seats": ([3, 2, 2], [0b1111, 0b0111, 0b1110], [2, 2, 2, 1],
                           [[1], [1], [0]], [0b0101], [3]),
    "a quota no deal meets": ([2, 2], [0b11, 0b11], [2, 2], [[1], [0]], [0b01], [3]),
}


@pytest.mark.parametrize("name", list(PROBLEMS))
def test_the_count_is_the_number_of_deals_by_enumeration(name):
    sizes, allowed, caps, inq, qseats, need = PROBLEMS[name]
    want = sum(_deals(sizes, allowed, caps, inq, qseats, need).values())
    dp = ClassDP(sizes, allowed, caps, inq, qseats, need)
    exact = ClassDP(sizes, allowed, caps, inq, qseats, need, exact=True)
    assert isinstance(exact.total, int) and exact.total == want
    assert dp.total == pytest.approx(want, rel=1e-12)


def test_the_count_agrees_with_enumeration_on_random_small_problems():
    rng = np.random.default_rng(7)
    checked = 0
    while checked < 150:
        P, K = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        sizes = rng.integers(1, 4, size=K).tolist()
        N = sum(sizes)
        if N > 7:
            continue
        cuts = np.sort(rng.integers(0, N + 1, size=P - 1))
        caps = np.diff(np.concatenate([[0], cuts, [N]])).tolist()
        allowed = [int(rng.integers(1, 1 << P)) for _ in range(K)]
        Q = int(rng.integers(0, 3))
        inq = (rng.random((K, Q)) < 0.6).tolist() if Q else None
        qseats = [int(rng.integers(1, 1 << P)) for _ in range(Q)]
        need = rng.integers(0, 4, size=Q).tolist()
        args = (sizes, allowed, caps, inq, qseats, need)
        want = sum(_deals(*args).values())
        assert ClassDP(*args, exact=True).total == want, args
        assert ClassDP(*args).total == pytest.approx(want, rel=1e-12), args
        checked += 1


def test_the_count_of_real_sized_deals_is_the_closed_form():
    # 21 unseen tiles to three seats of 7: a multinomial
    assert ClassDP([21], [0b111], [7, 7, 7], exact=True).total == \
        math.factorial(21) // math.factorial(7) ** 3
    # six-player: 20 instances that may not go to the cat (pseudo-seat 6), 36 that may;
    # six hands of nine and a cat of two: choose the cat from the 36, then deal the rest
    want = math.comb(36, 2) * math.factorial(54) // math.factorial(9) ** 6
    exact = ClassDP([20, 36], [0b0111111, 0b1111111], [9] * 6 + [2], exact=True)
    assert exact.total == want  # past 2**53: only the exact count is exact
    assert ClassDP([20, 36], [0b0111111, 0b1111111], [9] * 6 + [2]).total == \
        pytest.approx(want, rel=1e-9)
    # seats that show a void: class 0 (7 tiles of a suit) only to seats 1 and 2
    want = sum(math.comb(7, k) * math.comb(14, 7 - k) * math.comb(7 + k, 7)
               for k in range(8))  # k of the suit to seat 1, the rest of seat 1 from 14
    assert ClassDP([7, 14], [0b110, 0b111], [7, 7, 7], exact=True).total == want


def test_an_empty_problem_counts_one_deal_and_samples_empty_splits():
    dp = ClassDP([], [], [0, 0])
    assert dp.total == 1
    assert dp.sample(3, np.random.default_rng(0)).shape == (3, 0, 2)


def _assert_valid(ks, sizes, allowed, caps, inq, qseats, need):
    n, K, P = ks.shape
    assert (K, P) == (len(sizes), len(caps))
    assert (ks >= 0).all()
    assert (ks.sum(axis=2) == np.asarray(sizes)[None, :]).all(), "a class not dealt whole"
    assert (ks.sum(axis=1) == np.asarray(caps)[None, :]).all(), "a seat not filled to its cap"
    allow = np.array([[a >> p & 1 for p in range(P)] for a in allowed], bool)
    assert (ks[:, ~allow] == 0).all(), "an instance where it may not go"
    for q in range(len(need)):
        seats = np.array([qseats[q] >> p & 1 for p in range(P)], bool)
        member = np.array([inq[c][q] for c in range(K)], bool)
        assert (ks[:, member][:, :, seats].sum(axis=(1, 2)) >= need[q]).all(), "a quota unmet"


def _chi_square(ks, deals: Counter) -> tuple[float, int]:
    total = sum(deals.values())
    seen = Counter(tuple(map(tuple, k)) for k in ks.tolist())
    assert set(seen) <= set(deals), "a split no deal has"
    n = len(ks)
    chi2 = sum((seen[s] - n * w / total) ** 2 / (n * w / total) for s, w in deals.items())
    return chi2, len(deals) - 1


@pytest.mark.parametrize("name", ["free classes", "allowed seats", "a cat", "a quota",
                                  "two quotas", "a quota over seats"])
@pytest.mark.parametrize("exact", [False, True])
def test_samples_are_valid_and_uniform_over_the_deals(name, exact):
    """A split is drawn as often as the deals that have it: chi-square over the splits, far
    below a bound that a wrong weighting (a uniform pick among splits, say) breaks."""
    sizes, allowed, caps, inq, qseats, need = PROBLEMS[name]
    deals = _deals(sizes, allowed, caps, inq, qseats, need)
    assert len(deals) > 2  # something to tell apart
    dp = ClassDP(sizes, allowed, caps, inq, qseats, need, exact=exact)
    ks = dp.sample(20_000, np.random.default_rng(11))
    assert ks.shape == (20_000, len(sizes), len(caps)) and ks.dtype == np.int64
    _assert_valid(ks, sizes, allowed, caps, inq, qseats, need)
    chi2, df = _chi_square(ks, deals)
    assert chi2 < df + 8 * math.sqrt(2 * df) + 10, (chi2, df)
    # every split shows up: none is left out by the sampler
    assert {tuple(map(tuple, k)) for k in ks.tolist()} == set(deals)


def test_the_chi_square_check_tells_a_skewed_sampler_apart():
    """The check above would fail a sampler that picks among splits uniformly."""
    sizes, allowed, caps, inq, qseats, need = PROBLEMS["a quota"]
    deals = _deals(sizes, allowed, caps, inq, qseats, need)
    splits = list(deals)
    rng = np.random.default_rng(11)
    skewed = np.array([splits[i] for i in rng.integers(0, len(splits), size=20_000)])
    chi2, df = _chi_square(skewed, deals)
    assert chi2 > df + 8 * math.sqrt(2 * df) + 10


def test_samples_are_reproducible_from_the_generator_and_differ_across_seeds():
    sizes, allowed, caps, inq, qseats, need = PROBLEMS["two quotas"]
    dp = ClassDP(sizes, allowed, caps, inq, qseats, need)
    a = dp.sample(500, np.random.default_rng(3))
    again = ClassDP(sizes, allowed, caps, inq, qseats, need).sample(500, np.random.default_rng(3))
    assert np.array_equal(a, again)
    assert not np.array_equal(a, dp.sample(500, np.random.default_rng(4)))


def test_a_forced_deal_is_always_drawn():
    sizes, allowed, caps, inq, qseats, need = PROBLEMS["forced"]
    ks = ClassDP(sizes, allowed, caps).sample(50, np.random.default_rng(0))
    assert (ks == np.array([[2, 0], [2, 0]])).all()
    ks = ClassDP([4], [0b11], [3, 1]).sample(50, np.random.default_rng(0))
    assert (ks == np.array([[3, 1]])).all()


def test_real_sized_samples_are_valid_and_spread_each_class_as_a_hypergeometric():
    """Seven tiles of a suit only to seats 1 and 2 of three seats of seven: seat 1's share
    of them follows the counts of the closed form."""
    sizes, allowed, caps = [7, 14], [0b110, 0b111], [7, 7, 7]
    dp = ClassDP(sizes, allowed, caps)
    ks = dp.sample(20_000, np.random.default_rng(5))
    _assert_valid(ks, sizes, allowed, caps, None, (), ())
    weights = np.array([math.comb(7, k) * math.comb(14, 7 - k) * math.comb(7 + k, 7)
                        for k in range(8)], float)
    expected = 20_000 * weights / weights.sum()
    seen = np.bincount(ks[:, 0, 1], minlength=8)
    keep = expected > 5
    chi2 = ((seen[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    df = int(keep.sum()) - 1
    assert chi2 < df + 8 * math.sqrt(2 * df) + 10, (chi2, df)
