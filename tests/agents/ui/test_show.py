"""texas42 show: records told hand by hand, and the solver's verdict on each play."""

import io
import json
import re

import numpy as np
import pytest

from agents.ui.show import analyse_play, read_records, show_record, show_text
from agents.search.solver import solve_position
from agents.cli import main
from texas42_env.core import HAND_OVER, PLAYING, Game
from texas42_env.records import RecordError, parse_record, record_from_state, replay
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal
from texas42_env.worlds import replayed

from helpers import DATA, record

EXAMPLES = DATA / "spec_examples.jsonl"


def random_record(rules: RulesConfig, seed: int) -> dict:
    """A whole hand of random legal play."""
    game = Game(rules)
    st = game.reset(1, seed=seed)
    rng = np.random.default_rng(seed)
    while st.phase[0] < HAND_OVER:
        game.step(st, uniform_legal(game.legal_mask(st), rng))
    return record_from_state(game, st, 0)


def seats_and_actions(rec: dict) -> tuple[list[str], list[str]]:
    """``seat S: BID`` of every bid and ``seat S: TILE`` of every play, in order."""
    _, st = replayed(rec)
    n = st.n_seats
    bids = [f"seat {(int(st.first_bidder[0]) + i) % n}: {b}" for i, b in enumerate(rec["bids"])]
    plays = [f"seat {int(s)}: {t}" for s, t in zip(st.play_seats[0], rec["plays"])]
    return bids, plays


def assert_in_order(lines: list[str], wanted: list[str]) -> None:
    i = 0
    for w in wanted:
        while i < len(lines) and lines[i].strip().split("   ")[0] != w:
            i += 1
        assert i < len(lines), f"{w!r} not found in order"
        i += 1


@pytest.mark.parametrize("ruleset,seed", [("standard", 1), ("standard", 2), ("six-player", 3)])
def test_show_tells_every_play_with_its_seat_bids_contract_and_result(ruleset, seed):
    rec = random_record(RulesConfig.make(ruleset), seed)
    lines = show_record(parse_record(rec))
    result = replay(parse_record(rec))
    bids, plays = seats_and_actions(rec)
    assert_in_order(lines, bids)
    assert_in_order(lines, plays)
    assert sum(x.startswith("  -> won by") for x in lines) == len(result["tricks"])
    for s, hand in enumerate(rec["hands"]):
        assert f"  seat {s}: {' '.join(hand)}" in lines
    if result["contract"]:
        assert any(x.startswith(f"contract: {result['contract']}") for x in lines)
        assert any(x.startswith("result: ") and ("made" if result["made"] else "set") in x
                   for x in lines)
    else:
        assert "everyone passed: the hand is thrown in (no score)" in lines
    if ruleset == "six-player":
        assert any(x.startswith("  cat: ") for x in lines)


def test_show_tells_the_spec_examples_illegal_actions_and_partial_records():
    examples = [json.loads(x) for x in EXAMPLES.read_text().splitlines() if x.strip()]
    for ex in examples:
        text = "\n".join(show_record(parse_record(ex["record"])))
        if not ex["replay"]["ok"]:
            e = ex["replay"]["error"]
            assert f"illegal action {e['index']}" in text
        elif not ex["replay"]["complete"]:
            assert f"the record stops here: seat {ex['replay']['to_move']} is to" in text
        for trick in ex["replay"].get("tricks", []):
            for tile in trick["plays"]:
                assert f": {tile}" in text


def blunder_record():
    """A hand played perfectly (by the solver) but for one play, the first that can lose
    points: (the record, that play's index, the points it loses)."""
    game = Game()
    st = game.reset(1, seed=11)
    for bid in ("30", "pass", "pass", "pass"):
        game.step(st, np.array([game.actions.id(bid)]))
    game.step(st, np.array([game.actions.id("follow-me")]))
    blunder = None
    while int(st.phase[0]) == PLAYING:
        values = solve_position(game, st, 0)["values"]
        sign = 1 if int(st.to_move[0]) & 1 == int(st.bidder[0]) & 1 else -1
        ranked = sorted(values, key=lambda t: -sign * values[t])
        pick = ranked[0]
        if blunder is None and int(st.n_plays[0]) >= 2 and \
                values[ranked[0]] != values[ranked[-1]]:
            pick = ranked[-1]
            blunder = (int(st.n_plays[0]), sign * (values[ranked[0]] - values[pick]))
        game.step(st, np.array([game.actions.id(pick)]))
    assert blunder is not None
    return record_from_state(game, st, 0), *blunder


def _one_mistake(rec, index: int, loss: int) -> str:
    """``show --analyse`` of ``rec`` marks play ``index`` alone, lost ``loss``; returns the
    analysis line."""
    lines = show_record(parse_record(rec), analyse=True)
    found = [int(m.group(1)) for x in lines if (m := re.search(r"lost (\d+)", x))]
    assert len(found) == len(rec["plays"])
    assert found[index] == loss and "MISTAKE" in [x for x in lines if "lost" in x][index]
    assert [v for i, v in enumerate(found) if i != index] == [0] * (len(found) - 1)
    return [x for x in lines if x.startswith("analysis")][0]


def test_analyse_reports_the_points_a_blunder_loses_and_zero_for_best_plays():
    rec, index, loss = blunder_record()
    assert loss > 0
    team = _one_mistake(rec, index, loss)
    assert f"{loss} (1 mistake)" in team and "0 (0 mistakes)" in team


def test_analyse_play_judges_from_the_movers_side():
    rec, index, loss = blunder_record()
    game, st = replayed({**rec, "plays": rec["plays"][:index]})
    v = analyse_play(game, st, game.actions.id(rec["plays"][index]))
    assert v.loss == loss and v.tile == rec["plays"][index] and v.tile not in v.best
    best = analyse_play(game, st, game.actions.id(v.best[0]))
    assert best.loss == 0


def test_analyse_judges_six_player_plays_in_the_last_six_tricks_only():
    six = random_record(RulesConfig.make("six-player", play_out=True), 3)
    assert len(six["plays"]) == 54
    lines = show_record(parse_record(six), analyse=True)
    judged = [line for line in lines if "   lost " in line]
    assert len(judged) == 6 * 6  # every play of tricks 4..9, none before
    assert lines[-1].startswith("analysis, points given away against perfect play in the last "
                                "6 tricks: team 0 ")
    early = show_record(parse_record({**six, "plays": six["plays"][:12]}), analyse=True)
    assert early[-1] == ("analysis: none (six-player plays are judged in the last 6 tricks "
                         "only: an exact solve from the first trick takes seconds to minutes)")
    assert not any("   lost " in line for line in early)


def nello_blunder_record(seed: int = 11):
    """A nello hand (1m by the first bidder) played perfectly by the solver's values (the
    bidder fewest tricks, the opponents most) but for the first play that gives a trick
    away: (the record, that play's index, the tricks it gives away, the mover's seat)."""
    game = Game()
    st = game.reset(1, seed=seed)
    for i in range(4):
        game.step(st, np.array([game.actions.id("1m" if i == 0 else "pass")]))
    game.step(st, np.array([game.actions.id("nello")]))
    blunder = None
    while int(st.phase[0]) == PLAYING:
        values = solve_position(game, st, 0)["values"]
        seat = int(st.to_move[0])
        sign = -1 if seat == int(st.bidder[0]) else 1
        ranked = sorted(values, key=lambda t: -sign * values[t])
        pick = ranked[0]
        if blunder is None and values[ranked[0]] != values[ranked[-1]]:
            pick = ranked[-1]
            blunder = (int(st.n_plays[0]), sign * (values[ranked[0]] - values[pick]), seat)
        game.step(st, np.array([game.actions.id(pick)]))
    return record_from_state(game, st, 0), blunder


def test_analyse_judges_nello_plays_in_tricks_from_the_movers_side():
    for seed in range(11, 40):
        rec, blunder = nello_blunder_record(seed)
        if blunder is not None:
            break
    assert blunder is not None
    index, loss, seat = blunder
    assert loss > 0
    team = _one_mistake(rec, index, loss)
    assert team.startswith("analysis, tricks given away against perfect play: ")
    assert f"team {seat & 1} {loss} (1 mistake)" in team
    assert f"team {1 - (seat & 1)} 0 (0 mistakes)" in team
    game, st = replayed({**rec, "plays": rec["plays"][:index]})
    v = analyse_play(game, st, game.actions.id(rec["plays"][index]))
    assert v.loss == loss and v.tile not in v.best
    assert analyse_play(game, st, game.actions.id(v.best[0])).loss == 0


def test_analyse_covers_sevens_where_every_legal_play_is_as_good():
    rules = RulesConfig.make(sevens=True)
    game = Game(rules)
    st = game.reset(1, seed=5)
    for i in range(4):
        game.step(st, np.array([game.actions.id("1m" if i == 0 else "pass")]))
    game.step(st, np.array([game.actions.id("sevens")]))
    rng = np.random.default_rng(5)
    while int(st.phase[0]) == PLAYING:
        game.step(st, uniform_legal(game.legal_mask(st), rng))
    rec = record_from_state(game, st, 0)
    lines = show_record(parse_record(rec), analyse=True)
    found = [int(m.group(1)) for x in lines if (m := re.search(r"lost (\d+)", x))]
    assert len(found) == len(rec["plays"]) and set(found) == {0}
    team = [x for x in lines if x.startswith("analysis")][0]
    assert team == ("analysis, tricks given away against perfect play: "
                    "team 0 0 (0 mistakes); team 1 0 (0 mistakes)")


def test_a_record_over_several_lines_is_one_record():
    rec = record(bids=["30", "pass"])
    assert [n for n, _ in read_records(json.dumps(rec, indent=2))] == [1]
    text = json.dumps(rec) + "\n\n" + json.dumps(rec) + "\n"
    assert [n for n, _ in read_records(text)] == [1, 3]


def test_malformed_records_name_the_line_and_field_and_exit_2(tmp_path, capsys):
    good = json.dumps(record(bids=["30", "pass"]))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join([good, json.dumps(record(dealer=9)), good]) + "\n")
    assert main(["show", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out.count("=== record") == 1
    assert "line 2: field 'dealer'" in err
    path.write_text(good + "\n{not json\n")
    assert main(["show", str(path)]) == 2
    assert "line 2: field 'record': not JSON" in capsys.readouterr().err
    with pytest.raises(RecordError) as e:
        list(show_text(good + "\n[1]\n"))
    assert e.value.line == 2 and e.value.field == "record"
    assert main(["show", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_show_command_reads_standard_input_and_analyses(monkeypatch, capsys):
    rec, index, loss = blunder_record()
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(rec) + "\n"))
    assert main(["show", "-", "--analyse"]) == 0
    out = capsys.readouterr().out
    assert f"lost {loss}  MISTAKE" in out and "=== record 1 (line 1) ===" in out
