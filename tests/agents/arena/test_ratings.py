"""Ratings: Bradley-Terry on the Elo scale, bootstrap intervals and OpenSkill partnerships."""

from __future__ import annotations


import numpy as np
import pytest

from agents.arena.ratings import (
    DisconnectedGraphError,
    bootstrap_mean_ci,
    bootstrap_ratings,
    bradley_terry,
    elo_expected,
    openskill_ratings,
)

LADDER = {"random": 0.0, "heuristic": 150.0, "search": 300.0, "weak": -100.0, "policy": 450.0}


def simulate_round_robin(ladder, n_per_pair, rng, ties=0.2, pair_size=1, correlation=0.0):
    """Rows (a, b, score_a) with E[score_a] = elo_expected(r_a, r_b), and each row's group id.

    Scores are 1, 0.5 (with probability up to ``ties``) or 0. Rows come in groups of
    ``pair_size`` (deal pairs); within a group a row repeats the group's first score with
    probability ``correlation``, else draws afresh, which keeps each row's expectation.
    """
    names = list(ladder)
    games, groups = [], []
    for x, a in enumerate(names):
        for b in names[x + 1 :]:
            p = float(elo_expected(ladder[a], ladder[b]))
            tie = min(ties, 2.0 * min(p, 1.0 - p))
            u = rng.random(n_per_pair)
            score = np.where(u < p - tie / 2, 1.0, np.where(u < p + tie / 2, 0.5, 0.0))
            first = np.repeat(score[::pair_size], pair_size)[:n_per_pair]
            keep = rng.random(n_per_pair) < correlation
            score = np.where(keep, first, score)
            games += [(a, b, s) for s in score.tolist()]
            groups += [(a, b, k // pair_size) for k in range(n_per_pair)]
    return games, groups


def test_elo_expected_is_the_logistic_on_400_points():
    assert elo_expected(0.0, 0.0) == pytest.approx(0.5)
    assert elo_expected(400.0, 0.0) == pytest.approx(10.0 / 11.0)
    assert elo_expected(100.0, 250.0) + elo_expected(250.0, 100.0) == pytest.approx(1.0)
    np.testing.assert_allclose(elo_expected(np.array([0.0, 400.0]), 0.0), [0.5, 10.0 / 11.0])


def test_bradley_terry_recovers_a_known_ladder_with_ties():
    games, _ = simulate_round_robin(LADDER, 20_000, np.random.default_rng(1))
    ratings = bradley_terry(games, anchor="random")
    assert ratings["random"] == 0.0
    assert set(ratings) == set(LADDER)
    for name, truth in LADDER.items():
        assert abs(ratings[name] - truth) < 8.0, (name, ratings[name], truth)


def test_bradley_terry_treats_a_reversed_row_as_the_complementary_score():
    games, _ = simulate_round_robin(LADDER, 300, np.random.default_rng(2))
    flipped = [(b, a, 1.0 - s) if k % 2 else (a, b, s) for k, (a, b, s) in enumerate(games)]
    left, right = bradley_terry(games), bradley_terry(flipped)
    for name in LADDER:
        assert left[name] == pytest.approx(right[name], abs=1e-6)


def test_symmetric_results_give_equal_ratings():
    games = []
    for a, b in [("random", "x"), ("x", "y"), ("random", "y")]:
        games += [(a, b, 1.0), (a, b, 0.0), (b, a, 0.5), (a, b, 0.25), (b, a, 0.25)]
    ratings = bradley_terry(games)
    for r in ratings.values():
        assert r == pytest.approx(0.0, abs=1e-7)


def test_a_player_who_always_wins_gets_a_finite_highest_rating():
    games, _ = simulate_round_robin(
        {"random": 0.0, "a": 100.0, "b": 200.0}, 200, np.random.default_rng(3)
    )
    for other in ("random", "a", "b"):
        games += [("champion", other, 1.0)] * 50 + [(other, "champion", 0.0)] * 50
    ratings = bradley_terry(games)
    assert all(np.isfinite(r) for r in ratings.values())
    assert max(ratings, key=ratings.get) == "champion"
    assert ratings["champion"] > ratings["b"] + 400.0
    # A player who never won anything is finite too, and last.
    lost = bradley_terry([("random", "loser", 1.0)] * 30 + [("random", "a", 0.5)] * 30)
    assert np.isfinite(lost["loser"]) and min(lost, key=lost.get) == "loser"


def test_anchor_rating_shifts_and_a_missing_anchor_centers_the_mean_with_a_warning():
    games, _ = simulate_round_robin({"a": 0.0, "b": 100.0, "c": 250.0}, 400, np.random.default_rng(4))
    base = bradley_terry(games, anchor="a")
    shifted = bradley_terry(games, anchor="a", anchor_rating=1500.0)
    assert shifted["a"] == 1500.0
    for name in base:
        assert shifted[name] - base[name] == pytest.approx(1500.0)
    with pytest.warns(UserWarning, match="'random' is not among"):
        centered = bradley_terry(games)  # the default anchor, "random", did not play
    assert np.mean(list(centered.values())) == pytest.approx(0.0, abs=1e-9)
    assert centered["b"] - centered["a"] == pytest.approx(base["b"] - base["a"])
    explicit = bradley_terry(games, anchor=None)  # no warning asked for, none given
    assert explicit == pytest.approx(centered)


def test_disconnected_graph_raises_naming_the_components():
    games = [("a", "b", 1.0), ("b", "a", 0.5), ("c", "d", 0.0), ("d", "e", 1.0)]
    with pytest.raises(ValueError, match=r"\{a, b\} \| \{c, d, e\}") as info:
        bradley_terry(games)
    assert isinstance(info.value, DisconnectedGraphError)
    assert info.value.components == [["a", "b"], ["c", "d", "e"]]
    with pytest.raises(DisconnectedGraphError):
        bootstrap_ratings(games, n_boot=10)


@pytest.mark.parametrize(
    "games, message",
    [
        ([], "no games"),
        ([("a", "b", 1.5)], "in \\[0, 1\\]"),
        ([("a", "b", float("nan"))], "in \\[0, 1\\]"),
        ([("a", "a", 1.0)], "cannot play itself"),
        ([("a", "b")], "expected \\(a, b, score_a\\)"),
        ([("a", 3, 1.0)], "must be strings"),
    ],
)
def test_malformed_games_are_rejected_with_the_row(games, message):
    with pytest.raises(ValueError, match=message):
        bradley_terry(games)


def test_bootstrap_rejects_groups_of_the_wrong_length():
    with pytest.raises(ValueError, match="groups has 1 entries but games has 2 rows"):
        bootstrap_ratings([("a", "b", 1.0), ("a", "b", 0.0)], groups=[0], n_boot=5)


def test_bootstrap_intervals_cover_the_truth_in_most_repeated_simulations():
    ladder = {"random": 0.0, "heuristic": 120.0, "search": 250.0}
    rng = np.random.default_rng(5)
    covered = total = 0
    for _ in range(40):
        games, groups = simulate_round_robin(ladder, 120, rng, pair_size=2, correlation=0.5)
        ratings = bootstrap_ratings(games, groups, n_boot=200, rng=rng)
        assert ratings["random"] == (0.0, 0.0, 0.0)
        for name in ("heuristic", "search"):
            rating, lo, hi = ratings[name]
            assert lo <= rating <= hi
            covered += lo <= ladder[name] <= hi
            total += 1
    assert covered / total >= 0.85, (covered, total)


def test_bootstrap_intervals_shrink_with_more_data():
    rng = np.random.default_rng(6)
    small, _ = simulate_round_robin(LADDER, 200, rng)
    large, _ = simulate_round_robin(LADDER, 3_200, rng)
    narrow = bootstrap_ratings(large, n_boot=200, rng=7)
    wide = bootstrap_ratings(small, n_boot=200, rng=7)
    for name in LADDER:
        if name == "random":
            continue
        # 16 times the data: about a quarter of the width.
        assert narrow[name].hi - narrow[name].lo < 0.4 * (wide[name].hi - wide[name].lo)


def test_bootstrap_resamples_whole_groups():
    games, _ = simulate_round_robin({"random": 0.0, "a": 100.0}, 2_000, np.random.default_rng(8))
    doubled = [g for g in games for _ in range(2)]  # each result twice: one deal pair
    pair_ids = [k // 2 for k in range(len(doubled))]
    width = {}
    for label, rows, groups in [
        ("single", games, None),
        ("grouped", doubled, pair_ids),
        ("ungrouped", doubled, None),
    ]:
        rating, lo, hi = bootstrap_ratings(rows, groups, n_boot=400, rng=9)["a"]
        width[label] = hi - lo
    # Copies in one group add no information; taken as separate rows they would.
    assert width["grouped"] == pytest.approx(width["single"], rel=0.15)
    assert width["ungrouped"] == pytest.approx(width["single"] / np.sqrt(2.0), rel=0.15)


def test_bootstrap_is_reproducible_from_its_seed_and_its_rating_is_the_full_fit():
    games, groups = simulate_round_robin(LADDER, 300, np.random.default_rng(10), pair_size=2)
    first = bootstrap_ratings(games, groups, n_boot=50, rng=11)
    assert first == bootstrap_ratings(games, groups, n_boot=50, rng=np.random.default_rng(11))
    point = bradley_terry(games)
    for name in LADDER:
        assert first[name].rating == pytest.approx(point[name])


def test_bootstrap_of_ten_players_and_fifty_thousand_games_orders_the_ladder():
    ladder = {f"p{k}": 60.0 * k for k in range(10)}
    games, groups = simulate_round_robin(ladder, 1_112, np.random.default_rng(12), pair_size=2)
    assert len(games) > 50_000
    ratings = bootstrap_ratings(games, groups, n_boot=1000, rng=13, anchor="p0")
    assert [name for name in sorted(ratings, key=lambda n: ratings[n].rating)] == list(ladder)


def test_bootstrap_mean_ci_of_constant_values_is_a_point():
    assert bootstrap_mean_ci([0.3] * 57, n_boot=100, rng=0) == (0.3, 0.3, 0.3)
    assert bootstrap_mean_ci([2.0], n_boot=10, rng=0) == (2.0, 2.0, 2.0)


def test_bootstrap_mean_ci_brackets_the_mean_and_covers_it_usually():
    rng = np.random.default_rng(14)
    covered = 0
    for _ in range(40):
        values = rng.normal(1.0, 2.0, size=100)
        mean, lo, hi = bootstrap_mean_ci(values, n_boot=200, rng=rng)
        assert mean == pytest.approx(values.mean())
        assert lo < mean < hi
        covered += lo <= 1.0 <= hi
    assert covered >= 34


def test_bootstrap_mean_ci_rejects_empty_or_nonfinite_values():
    with pytest.raises(ValueError, match="at least one value"):
        bootstrap_mean_ci([])
    with pytest.raises(ValueError, match="NaN or infinite"):
        bootstrap_mean_ci([1.0, float("inf")])


def test_openskill_ranks_a_stronger_team_above_a_weaker_one():
    strength = {"policy": 200.0, "heuristic": 100.0, "random": 0.0}
    names = list(strength)
    rng = np.random.default_rng(15)
    team_games = []
    for _ in range(400):
        a = tuple(rng.choice(names, size=2).tolist())
        b = tuple(rng.choice(names, size=2).tolist())
        p = float(elo_expected(sum(strength[x] for x in a), sum(strength[x] for x in b)))
        u = rng.random()
        team_games.append((a, b, 1.0 if u < p - 0.05 else 0.5 if u < p + 0.05 else 0.0))
    ratings = openskill_ratings(team_games)
    assert sorted(ratings, key=lambda n: ratings[n].mu) == ["random", "heuristic", "policy"]
    for mu, sigma, ordinal in ratings.values():
        assert sigma < 25.0 / 3.0
        assert ordinal == pytest.approx(mu - 3.0 * sigma)


def test_openskill_ties_and_mirrored_partnerships_move_no_one_apart():
    tie = openskill_ratings([(("a", "b"), ("c", "d"), 0.5)])
    assert len({round(r.mu, 9) for r in tie.values()}) == 1
    mirrored = openskill_ratings([(("h", "r"), ("r", "h"), 1.0)])
    assert mirrored["h"].mu == pytest.approx(mirrored["r"].mu)
    assert mirrored["h"].mu == pytest.approx(25.0, abs=1e-6)
    won = openskill_ratings([(("h", "h"), ("r", "r"), 1.0)])
    assert won["h"].mu > 25.0 > won["r"].mu


def test_openskill_rejects_bad_rows_and_unknown_models():
    with pytest.raises(ValueError, match="two agents"):
        openskill_ratings([(("a",), ("b", "c"), 1.0)])
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        openskill_ratings([(("a", "b"), ("c", "d"), 2.0)])
    with pytest.raises(ValueError, match="no model named 'Glicko'"):
        openskill_ratings([(("a", "b"), ("c", "d"), 1.0)], model="Glicko")
