"""Duplicate matches, tournaments and ratings in the six-player game (Texas 88): each side
holds seats 0/2/4, then 1/3/5 of the same deals; the standard game's figures do not move."""

import json

import numpy as np
import pytest

from agents import make_agent
from agents.arena.duplicate import pair_scores, play_duplicate, summarize
from agents.arena.tournament import (TournamentConfig, TournamentError, match_key, read_results,
                                     run_tournament)
from agents.base import REGISTRY
from agents.baselines.simple import RandomAgent
from agents.cli import main
from texas42_env.core import GAME_OVER
from texas42_env.records import parse_record, replay
from texas42_env.rules import RulesConfig

from helpers import DATA

SIX = RulesConfig.make("six-player")
GOLDEN = json.loads((DATA / "golden_matches.json").read_text())


class StandardOnly(RandomAgent):
    """A random player that says it plays the standard game only, so the refusals are
    tested whatever agents learn six-player later."""

    name = "standard_only"
    rulesets = ("standard",)


@pytest.fixture
def standard_only(monkeypatch):
    monkeypatch.setitem(REGISTRY, "standard_only", StandardOnly)


class WrongSizes(RandomAgent):
    """Says it plays both rulesets but refuses the game when set up, as a policy trained
    for the other ruleset does."""

    name = "wrong_sizes"

    def setup(self, game):
        raise ValueError(f"policy.pt was trained for observations of 10 and 20 actions; this "
                         f"game ({game.rules.ruleset}) has 30 and 40")


@pytest.fixture
def wrong_sizes(monkeypatch):
    monkeypatch.setitem(REGISTRY, "wrong_sizes", WrongSizes)


def _named(name, seed=0):
    agent = make_agent("random", seed=seed)
    agent.name = name
    return agent


def test_orientations_play_the_same_deals_with_the_teams_swapped():
    side_a = [_named("a0", 1), _named("a2", 2), _named("a4", 3)]  # partners by role
    side_b = [_named("b0", 4), _named("b2", 5), _named("b4", 6)]
    recs = []
    play_duplicate(SIX, side_a, side_b, deals=12, seed=5, on_records=recs.extend)
    assert len(recs) == 24
    by_deal = {}
    for r in recs:
        by_deal.setdefault(r["game"], {})[r["orientation"]] = r
    assert sorted(by_deal) == list(range(12))
    for o in by_deal.values():
        assert o[0]["ruleset"] == o[1]["ruleset"] == "six-player"
        assert o[0]["hands"] == o[1]["hands"] and o[0]["dealer"] == o[1]["dealer"]
        assert o[0]["cat"] == o[1]["cat"]
        assert o[0]["agents"] == ["a0", "b0", "a2", "b2", "a4", "b4"]
        assert o[1]["agents"] == ["b0", "a0", "b2", "a2", "b4", "a4"]


def test_one_agent_fills_its_teams_three_seats_and_the_records_replay():
    recs = []
    play_duplicate(SIX, "passive", "random", deals=6, seed=2, on_records=recs.extend)
    zero = [r for r in recs if r["orientation"] == 0]
    assert zero and all(r["agents"] == ["passive", "random"] * 3 for r in zero)
    for r in recs:
        result = replay(parse_record(r))
        assert result["ok"] and result["complete"]


def test_a_side_against_itself_is_even():
    stats = play_duplicate(SIX, make_agent("random", seed=1), make_agent("random", seed=2),
                           deals=400, seed=1)
    est, lo, hi = summarize(stats, n_boot=200)["marks_per_hand"]
    assert lo <= 0 <= hi and stats.hands.sum() == 800
    same = play_duplicate(SIX, "random", "random", deals=100, seed=1)  # the very same plays
    assert np.array_equal(same.a_marks, same.b_marks) and same.a_marks.sum() > 0
    assert summarize(same, n_boot=50)["marks_per_hand"] == [0.0, 0.0, 0.0]


def test_passive_beats_random_with_a_ci_above_zero():
    # random outbids everyone (it rarely passes) and is set; passive never bids
    stats = play_duplicate(SIX, "passive", "random", deals=300, seed=2)
    s = summarize(stats, n_boot=200)
    est, lo, hi = s["marks_per_hand"]
    assert lo > 1.0
    assert pair_scores(stats).mean() > 0.8
    assert s["b_bid_rate"][0] > 0.9


def test_games_mode_counts_the_games_each_side_wins():
    won = np.zeros(20, np.int64)

    def count(state, tables, orientations):
        over = state.phase[tables] == GAME_OVER
        pairs = state.game_id[tables][over]
        np.add.at(won, pairs, state.winner[tables][over] == orientations[over])

    stats = play_duplicate(SIX, "passive", "random", deals=20, mode="games", seed=4,
                           on_hands=count)
    assert np.array_equal(stats.a_wins, won)
    assert stats.a_wins.max() <= 2 and stats.a_wins.sum() > 30
    assert (stats.hands >= 2).all()  # two games a pair, each of one hand or more
    s = summarize(stats, "games", n_boot=100)
    assert 0.75 < s["a_win_rate"][0] <= 1 and s["marks_per_game"][1] > 0


def test_a_side_of_two_partners_is_refused_in_six_player():
    with pytest.raises(ValueError, match="a side is one agent or 3 partners .*got 2"):
        play_duplicate(SIX, ["random", "passive"], "random", deals=2)


def test_an_agent_that_does_not_play_six_player_is_refused_before_any_hand(standard_only):
    recs = []
    with pytest.raises(ValueError, match="agent 'standard_only' plays the standard ruleset "
                                         "only, not six-player"):
        play_duplicate(SIX, "random", "standard_only", deals=2, on_records=recs.extend)
    assert recs == []


# ---------------------------------------------------------------------- tournaments
def _cfg(**kw):
    base = dict(ruleset="six-player",
                agents={"random": {"name": "random"}, "passive": {"name": "passive"},
                        "mixed": {"partners": ["passive", "random", "random"]}},
                deals=30, workers=1, n_boot=50, progress=False)
    base.update(kw)
    return TournamentConfig(**base)


def test_a_six_player_tournament_writes_ratings_report_and_records_replay_accepts(
        tmp_path, capsys):
    out = run_tournament(_cfg(), tmp_path)
    ratings = out["ratings"]
    assert set(ratings) == {"random", "passive", "mixed"} and ratings["random"][0] == 0
    assert ratings["passive"][1] > 0  # its CI's low end above random's 0
    assert out["openskill"] == {}  # OpenSkill rates teams of two; said in the report
    for name in ("results.jsonl", "ratings.csv", "report.md", "ratings.png"):
        assert (tmp_path / name).stat().st_size > 0
    report = (tmp_path / "report.md").read_text()
    assert "ruleset six-player, rules six-player defaults" in report
    assert "No OpenSkill ratings" in report
    rows = read_results(tmp_path / "results.jsonl")
    assert len(rows) == 3 and all(r["key"]["ruleset"] == "six-player" for r in rows)
    mixed = next(r for r in rows if "mixed" in (r["key"]["a"], r["key"]["b"]))
    path = tmp_path / mixed["records"]
    lines = path.read_text().splitlines()
    assert len(lines) == 60
    for line in lines:
        rec = json.loads(line)
        even = (mixed["key"]["a"] == "mixed") == (rec["orientation"] == 0)  # mixed holds 0/2/4
        assert rec["agents"][0 if even else 1::2] == ["passive", "random", "random"]
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    results = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(results) == 60 and all(r["ok"] and r["complete"] for r in results)


def test_the_ruleset_keys_six_player_matches_and_leaves_standard_keys_as_they_were(tmp_path):
    standard = _cfg(ruleset="standard", agents={"random": {"name": "random"},
                                                "passive": {"name": "passive"}}, deals=8)
    six = _cfg(agents=standard.agents, deals=8)
    assert "ruleset" not in match_key(standard, "random", "passive")
    assert match_key(six, "random", "passive")["ruleset"] == "six-player"
    run_tournament(standard, tmp_path)
    run_tournament(six, tmp_path)  # not taken for the standard match already in the folder
    rows = read_results(tmp_path / "results.jsonl")
    assert [r["key"].get("ruleset", "standard") for r in rows] == ["standard", "six-player"]
    assert rows[0]["stats"] != rows[1]["stats"]


def test_an_agent_that_does_not_play_six_player_is_refused_up_front(tmp_path, standard_only):
    cfg = _cfg(agents={"random": {"name": "random"}, "bot": {"name": "standard_only"}})
    with pytest.raises(TournamentError) as e:
        run_tournament(cfg, tmp_path)
    assert str(e.value) == ("agents.bot: agent 'standard_only' plays the standard ruleset "
                            "only, not six-player")
    assert e.value.key == "agents.bot" and not (tmp_path / "results.jsonl").exists()


def test_an_agent_that_cannot_be_set_up_for_the_game_is_refused_up_front(tmp_path,
                                                                          wrong_sizes):
    cfg = _cfg(agents={"random": {"name": "random"}, "bot": {"name": "wrong_sizes"}})
    with pytest.raises(TournamentError) as e:
        run_tournament(cfg, tmp_path)
    assert str(e.value) == ("agents.bot: policy.pt was trained for observations of 10 and 20 "
                            "actions; this game (six-player) has 30 and 40")
    assert not (tmp_path / "results.jsonl").exists()


@pytest.mark.parametrize("change, says", [
    ({"agents": {"random": {"name": "random"}, "passive": {"name": "passive"},
                 "mixed": {"partners": ["passive", "random"]}}},
     "agents.mixed.partners must be three names of other agents of this tournament, one a "
     "seat of the team in six-player"),
    ({"ruleset": "eight-player"}, "ruleset: unknown ruleset 'eight-player'; allowed: standard, "
                                  "six-player"),
    ({"rules": {"nello": False}}, "rules: unknown option 'nello' for ruleset 'six-player'"),
    ({"rules": {"ruleset": "six-player"}}, "rules.ruleset: the ruleset is the top-level key "
                                           "ruleset"),
])
def test_bad_six_player_configs_name_the_key(tmp_path, change, says):
    with pytest.raises(TournamentError) as e:
        run_tournament(_cfg(**change), tmp_path)
    assert str(e.value).startswith(says)
    assert not (tmp_path / "results.jsonl").exists()


def test_three_partners_are_refused_in_the_standard_game(tmp_path):
    with pytest.raises(TournamentError, match="agents.mixed.partners must be two names"):
        run_tournament(_cfg(ruleset="standard"), tmp_path)


# ---------------------------------------------------------------------- texas42 match
def _match_json(capsys, *args):
    code = main(["match", "passive", "random", "--deals", "100", "--quiet", "--json", *args])
    out = capsys.readouterr().out.splitlines()
    return code, out[0], json.loads(out[-1])


def test_match_takes_the_ruleset_and_its_json_has_the_standard_games_fields(tmp_path, capsys):
    code, head, six = _match_json(capsys, "--ruleset", "six-player", "--mode", "games",
                                  "--records", str(tmp_path / "six.jsonl"))
    assert code == 0 and head.endswith("ruleset six-player")
    std_code, std_head, standard = _match_json(capsys, "--mode", "games")
    assert std_code == 0 and "ruleset" not in std_head
    assert list(six) == list(standard)
    assert six["pairs"] == 100 and six["marks_per_hand"][1] > 0
    lines = (tmp_path / "six.jsonl").read_text().splitlines()
    assert len(lines) == six["hands"]
    assert all(json.loads(x)["ruleset"] == "six-player" for x in lines)
    assert main(["replay", str(tmp_path / "six.jsonl")]) == 0


def test_match_refuses_an_agent_that_does_not_play_the_ruleset(tmp_path, capsys,
                                                                 standard_only):
    records = tmp_path / "out.jsonl"
    code = main(["match", "random", "standard_only", "--ruleset", "six-player", "--quiet",
                 "--records", str(records)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not records.exists()
    assert err.count("\n") == 1
    assert err.startswith("texas42 match: argument --ruleset: side B: agent 'standard_only' "
                          "plays the standard ruleset only, not six-player; agents for "
                          "six-player: ")
    assert "random" in err and "standard_only" not in err.split("agents for")[1]


def test_match_refuses_an_agent_that_cannot_be_set_up_before_the_progress_bar(capsys,
                                                                              wrong_sizes):
    code = main(["match", "wrong_sizes", "random", "--ruleset", "six-player", "--deals", "2"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err == ("texas42 match: side A: policy.pt was trained for observations of 10 and 20 "
                   "actions; this game (six-player) has 30 and 40\n")


# ---------------------------------------------------------------------- the standard game
@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: f"{c['a']}-{c['b']}-{c['mode']}")
def test_the_standard_golden_matches_are_unchanged_with_sides_given_as_partners(case):
    rules = RulesConfig.from_options("standard", case["rules"])
    a, b = make_agent(case["a"]), make_agent(case["b"])
    stats = play_duplicate(rules, [a, a], [b], case["deals"], mode=case["mode"],
                           seed=case["seed"])
    assert stats.to_dict() == case["stats"]
