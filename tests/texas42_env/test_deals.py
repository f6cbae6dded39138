"""``texas42_env.deals`` on its own: ``deal_hands`` and ``first_dealer``.

Held to: every deal is a partition of the tile instances (standard: 28 tiles, four hands of
seven, no cat; six-player: two sets, six hands of nine and a cat of two, each instance
exactly once); a deal is fixed by ``(seed, game, hand)`` whatever the batch, the row's
position in it or the size of the sort blocks; other seeds, games or hands deal otherwise;
deals and first dealers are roughly uniform; ``Game`` deals through these functions with
its ruleset's numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from texas42_env.core import Game
from texas42_env.deals import deal_hands, first_dealer
from texas42_env.rules import RulesConfig

STANDARD = dict(n_seats=4, hand_size=7, n_instances=28)
SIX = dict(n_seats=6, hand_size=9, n_instances=56)


def _bits(masks: np.ndarray, n: int) -> np.ndarray:
    """Bool [..., n]: the bits of uint64 ``masks``."""
    return ((masks[..., None] >> np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(bool)


def _assert_partition(hands, cat, n_seats, hand_size, n_instances):
    rows = len(hands)
    assert hands.shape == (rows, n_seats) and hands.dtype == np.uint64
    assert cat.shape == (rows,) and cat.dtype == np.uint64
    assert (np.bitwise_count(hands) == hand_size).all()
    assert (np.bitwise_count(cat) == n_instances - n_seats * hand_size).all()
    held = _bits(np.concatenate([hands, cat[:, None]], axis=1), 64).sum(axis=1)  # [rows, 64]
    assert (held[:, :n_instances] == 1).all(), "an instance dealt twice or not at all"
    assert (held[:, n_instances:] == 0).all(), "a bit beyond the instances was dealt"


@pytest.mark.parametrize("seed", [0, 5, 2**40 + 3, 2**64 - 1])
def test_every_standard_deal_is_four_hands_of_seven_of_the_28_tiles(seed):
    n = 3000
    hands, cat = deal_hands(seed, np.arange(n), np.arange(n) % 7, **STANDARD)
    _assert_partition(hands, cat, **STANDARD)
    assert (cat == 0).all()


@pytest.mark.parametrize("seed", [0, 9, 2**63 + 1])
def test_every_six_player_deal_is_six_hands_of_nine_and_a_cat_of_two_of_two_sets(seed):
    n = 3000
    hands, cat = deal_hands(seed, np.arange(n), np.arange(n) % 4, **SIX)
    _assert_partition(hands, cat, **SIX)
    # by tile type (bit t and bit t + 28 are the two copies): every type twice in all
    types = _bits(np.concatenate([hands, cat[:, None]], axis=1), 56).sum(axis=1)
    assert ((types[:, :28] + types[:, 28:]) == 2).all()
    # both copies of a tile do land in one hand now and then (the copies are dealt apart)
    both = _bits(hands, 56)
    assert (both[..., :28] & both[..., 28:]).any()


def test_the_game_deals_through_deal_hands_with_its_rulesets_numbers():
    games = np.array([0, 3, 17, 40])
    hand_nos = np.array([0, 1, 2, 9])
    for ruleset, numbers in (("standard", STANDARD), ("six-player", SIX)):
        game = Game(RulesConfig.make(ruleset))
        hands, cat = game.deal(21, games, hand_nos)
        want_hands, want_cat = deal_hands(21, games, hand_nos, **numbers)
        assert np.array_equal(hands, want_hands) and np.array_equal(cat, want_cat)
        assert np.array_equal(game.first_dealer(21, games),
                              first_dealer(21, games, numbers["n_seats"]))
        st = game.reset(4, seed=21, game_ids=games)
        assert np.array_equal(st.dealt, deal_hands(21, games, 0, **numbers)[0])
        assert np.array_equal(st.dealt_cat, deal_hands(21, games, 0, **numbers)[1])


@pytest.mark.parametrize("numbers", [STANDARD, SIX], ids=["standard", "six-player"])
def test_a_deal_is_fixed_by_seed_game_and_hand_whatever_the_batch(numbers):
    rng = np.random.default_rng(3)
    games = rng.integers(0, 2**40, size=50)
    hand_nos = rng.integers(0, 30, size=50)
    hands, cat = deal_hands(77, games, hand_nos, **numbers)
    # one row at a time, as plain ints
    for g, h, want, want_cat in zip(games[:10], hand_nos[:10], hands, cat):
        one, one_cat = deal_hands(77, int(g), int(h), **numbers)
        assert one.shape == (1, numbers["n_seats"])
        assert np.array_equal(one[0], want) and one_cat[0] == want_cat
    # shuffled, and mixed in among other rows
    perm = rng.permutation(50)
    shuffled, shuffled_cat = deal_hands(77, games[perm], hand_nos[perm], **numbers)
    assert np.array_equal(shuffled, hands[perm]) and np.array_equal(shuffled_cat, cat[perm])
    mixed_games = np.concatenate([rng.integers(0, 99, size=13), games[:5]])
    mixed_hands = np.concatenate([rng.integers(0, 9, size=13), hand_nos[:5]])
    mixed, _ = deal_hands(77, mixed_games, mixed_hands, **numbers)
    assert np.array_equal(mixed[13:], hands[:5])


def test_one_hand_number_is_broadcast_over_the_games():
    games = np.arange(20)
    one, _ = deal_hands(4, games, 6, **STANDARD)
    each, _ = deal_hands(4, games, np.full(20, 6), **STANDARD)
    assert np.array_equal(one, each)


def test_rows_past_a_sort_block_deal_as_they_do_alone():
    """The rows are sorted in blocks of 65536: a row in the second block, at any place in
    it, deals what it deals alone."""
    n = (1 << 16) + 40
    games = np.arange(n) * 7 + 1
    hands, cat = deal_hands(8, games, 2, **STANDARD)
    _assert_partition(hands[-200:], cat[-200:], **STANDARD)
    for row in (0, (1 << 16) - 1, 1 << 16, (1 << 16) + 1, n - 1):
        alone, _ = deal_hands(8, games[row], 2, **STANDARD)
        assert np.array_equal(alone[0], hands[row]), row


def test_other_seeds_games_and_hands_deal_other_hands():
    n = 2000
    games = np.arange(n)
    base, _ = deal_hands(1, games, 0, **STANDARD)
    for other in (deal_hands(2, games, 0, **STANDARD)[0],  # another seed
                  deal_hands(1, games + n, 0, **STANDARD)[0],  # other games
                  deal_hands(1, games, 1, **STANDARD)[0]):  # the next hand of each game
        assert (other != base).any(axis=1).all()
    # and within one call no two (game, hand) pairs repeat a deal
    grid_g, grid_h = np.meshgrid(np.arange(100), np.arange(20))
    many, _ = deal_hands(1, grid_g.ravel(), grid_h.ravel(), **STANDARD)
    assert len({tuple(h) for h in many.tolist()}) == 2000


def test_a_seed_is_taken_modulo_two_to_the_64():
    games = np.arange(30)
    neg, _ = deal_hands(-1, games, 0, **STANDARD)
    wrapped, _ = deal_hands(2**64 - 1, games, 0, **STANDARD)
    assert np.array_equal(neg, wrapped)
    assert np.array_equal(first_dealer(-1, games, 4), first_dealer(2**64 - 1, games, 4))


def test_every_tile_lands_with_every_seat_about_equally_often():
    n = 24_000
    hands, cat = deal_hands(12, np.arange(n), 0, **SIX)
    held = _bits(np.concatenate([hands, cat[:, None]], axis=1), 56).sum(axis=0)  # [7, 56]
    freq = held / n
    assert np.abs(freq[:6] - 9 / 56).max() < 0.02
    assert np.abs(freq[6] - 2 / 56).max() < 0.01
    # which seat gets the first instance (tile 0-0) is no function of the hand's position
    hands_std, _ = deal_hands(12, np.arange(n), 0, **STANDARD)
    seat_of_00 = np.argmax(_bits(hands_std, 28)[:, :, 0], axis=1)
    counts = np.bincount(seat_of_00, minlength=4)
    chi2 = ((counts - n / 4) ** 2 / (n / 4)).sum()
    assert chi2 < 25  # 3 degrees of freedom: 25 is far out in the tail


@pytest.mark.parametrize("n_seats", [4, 6])
def test_first_dealer_is_a_seat_reproducible_and_roughly_uniform(n_seats):
    n = 30_000
    games = np.arange(n)
    d = first_dealer(5, games, n_seats)
    assert d.shape == (n,) and d.dtype == np.int64
    assert d.min() >= 0 and d.max() < n_seats
    assert np.array_equal(d, first_dealer(5, games, n_seats))
    perm = np.random.default_rng(0).permutation(n)
    assert np.array_equal(first_dealer(5, games[perm], n_seats), d[perm])
    assert first_dealer(5, 123, n_seats)[0] == d[123]
    counts = np.bincount(d, minlength=n_seats)
    chi2 = ((counts - n / n_seats) ** 2 / (n / n_seats)).sum()
    assert chi2 < 30  # 3 or 5 degrees of freedom: 30 is far out in the tail
    # another seed picks other dealers for most games (a quarter or a sixth agree by chance)
    other = first_dealer(6, games, n_seats)
    assert abs((other == d).mean() - 1 / n_seats) < 0.02


def test_first_dealer_does_not_follow_the_deal():
    """The dealer and the deal come from separate keys: the seat holding 0-0 is no
    predictor of the dealer."""
    n = 20_000
    games = np.arange(n)
    hands, _ = deal_hands(3, games, 0, **STANDARD)
    holder = np.argmax(_bits(hands, 28)[:, :, 0], axis=1)
    d = first_dealer(3, games, 4)
    assert abs((holder == d).mean() - 0.25) < 0.02
