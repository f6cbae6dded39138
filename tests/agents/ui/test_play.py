"""texas42 play: the terminal game driven by scripted input."""

import io
import json
import subprocess
import sys

import numpy as np
import pytest

from agents.base import Agent
from agents.ui.play import TerminalGame, make_bot, seat_bots
from agents.cli import main
from texas42_env.core import GAME_OVER, Game
from texas42_env.records import parse_record, replay
from texas42_env.rules import RulesConfig

from helpers import SPEC_HANDS, masks

SIX = RulesConfig.make("six-player")


class Scripted(Agent):
    """Plays the actions it is given, in turn, then the first legal action."""

    needs_observation = False

    def __init__(self, script=()):
        self.script = list(script)

    def act(self, observations, masks, context=None):
        if self.script:
            return np.array([self.game.actions.id(self.script.pop(0))])
        return np.argmax(masks, axis=1)


def table(lines, rules=None, bots=None, seat=0, **kw):
    """A TerminalGame reading ``lines`` (a list of answers), writing to a StringIO."""
    rules = rules or RulesConfig.make()
    n = rules.n_seats
    bots = bots or {s: "heuristic" if n == 4 else "random" for s in range(n) if s != seat}
    out = io.StringIO()
    tg = TerminalGame(rules, bots, seat=seat, input=io.StringIO("".join(x + "\n" for x in lines)),
                      output=out, **kw)
    return tg, out


def assert_replays(records):
    for rec in records:
        result = replay(parse_record(json.loads(json.dumps(rec))))
        assert result["ok"], result


def spec_deal(tg, hands, dealer=3):
    """Deal ``hands`` (seat 0 first) at the table's one table."""
    tg.game.set_hands(tg.st, [0], masks(hands)[0], dealer)


# the person at seat 0 holds the fives; seat 1 holds every six
FIVES_FIRST = [SPEC_HANDS[1], SPEC_HANDS[0], SPEC_HANDS[2], SPEC_HANDS[3]]


def test_illegal_and_unknown_input_is_refused_with_the_reason_and_asked_again():
    bots = {1: Scripted(["30", "5s", "6-5"]), 2: Scripted(), 3: Scripted()}
    answers = ["29", "thirty", "6-6", "pass", "4-4", "6-6", "5-0"] + ["1"] * 10
    tg, out = table(answers, bots=bots)
    spec_deal(tg, FIVES_FIRST)
    records = tg.run(hands=1)
    text = out.getvalue()
    assert "'29' is not a choice" in text and "'thirty' is not a choice" in text
    assert "6-6 is not allowed: a bid is due, not a play" in text
    assert "4-4 is not allowed: must follow trumps" in text
    assert "6-6 is not allowed: not in hand" in text
    rec = records[0]
    assert rec["bids"] == ["pass", "30", "pass", "pass"] and rec["contract"] == "5s"
    assert rec["plays"][0] == "6-5" and rec["plays"][3] == "5-0"  # asked until legal
    assert_replays(records)


def test_a_whole_hand_completes_and_its_record_replays_like_texas42_replay(tmp_path):
    out_file = tmp_path / "game.jsonl"
    tg, out = table(["1"] * 60, seed=4)
    records = tg.run(hands=1, out=str(out_file))
    text = out.getvalue()
    assert len(records) == 1 and "result:" in text and "score: us" in text
    assert "stopped after 1 hand" in text
    lines = out_file.read_text().splitlines()
    assert [json.loads(x) for x in lines] == records
    result = replay(parse_record(records[0]))
    assert result["ok"] and result["complete"]
    assert records[0]["agents"][0] == "person" and records[0]["agents"][1] == "heuristic"
    assert text.count("-> won by") == len(result["tricks"])  # each trick told with its winner


def test_a_game_is_played_to_the_target_with_the_score_between_hands():
    tg, out = table(["1"] * 400, rules=RulesConfig.make(target=2), seed=1)
    records = tg.run()
    text = out.getvalue()
    assert int(tg.st.phase[0]) == GAME_OVER and "game over:" in text
    assert text.count("score: us") >= len(records) + 1
    assert max(tg.st.score[0]) >= 2
    assert_replays(records)


def test_end_of_input_ends_cleanly_and_saves_the_hand_so_far(tmp_path):
    out_file = tmp_path / "partial.jsonl"
    tg, out = table(["1", "1"], seed=2)
    records = tg.run(out=str(out_file))
    text = out.getvalue()
    assert "(end of input)" in text and "game ended" in text
    assert len(records) == 1 and json.loads(out_file.read_text()) == records[0]
    result = replay(parse_record(records[0]))
    assert result["ok"] and not result["complete"]


def test_q_quits():
    tg, out = table(["q", "1"], seed=2)
    records = tg.run()
    assert "game ended" in out.getvalue()
    assert all(not replay(parse_record(r))["complete"] for r in records)


def test_reveal_shows_every_hand_after_each_hand():
    tg, out = table(["1"] * 60, seed=4, reveal=True)
    records = tg.run(hands=1)
    text = out.getvalue()
    assert "hands as dealt:" in text
    for s, hand in enumerate(records[0]["hands"]):
        assert f"{tg.who(s)}: {' '.join(hand)}" in text
    tg, out = table(["1"] * 60, seed=4)
    tg.run(hands=1)
    assert "hands as dealt:" not in out.getvalue()


def test_six_player_with_random_bots(tmp_path):
    tg, out = table(["1"] * 200, rules=SIX, seed=3, reveal=True)
    records = tg.run(hands=2, out=str(tmp_path / "six.jsonl"))
    text = out.getvalue()
    assert len(records) == 2 and "the cat:" in text and "seat 5 (opponent)" in text
    assert all(r["ruleset"] == "six-player" for r in records)
    assert_replays(records)


def test_six_player_with_heuristic_and_pimc_bots_shows_the_exchange(tmp_path):
    pimc = {"name": "pimc", "n_worlds": 2}
    bots = {s: (pimc if s % 2 else "heuristic") for s in range(1, 6)}
    tg, out = table(["1"] * 200, rules=SIX, bots=bots, seed=5, reveal=True)
    records = tg.run(hands=1)
    text = out.getvalue()
    assert "exchange by seat" in text and "seat 1 (opponent): pimc:n_worlds=2" in text
    assert records[0]["agents"][1].startswith("pimc")
    assert_replays(records)


def test_six_player_person_forced_to_bid_declares_and_exchanges():
    seat = int(Game(SIX).first_dealer(7, [0])[0])  # the dealer: forced to bid
    bots = {s: "passive" for s in range(6) if s != seat}
    tg, out = table(["1"] * 200, rules=SIX, bots=bots, seat=seat, seed=7)
    records = tg.run(hands=1)
    text = out.getvalue()
    assert "name the contract:" in text and "exchange with the cat" in text
    rec = records[0]
    assert rec["agents"][seat] == "person" and "exchange" in rec
    assert replay(parse_record(rec))["ok"]


def test_answers_in_other_spellings():
    tg, _ = table([])
    sp = tg.game.actions
    assert tg.parse("4 6", []) == sp.id("6-4") == tg.parse("6/4", [])
    assert tg.parse("42", []) == sp.id("1m") and tg.parse("84", []) == sp.id("2m")
    assert tg.parse("Follow Me", []) == sp.id("follow-me")
    assert tg.parse("2", [5, 7]) == 7 and tg.parse("3", [5, 7]) is None
    six, _ = table([], rules=SIX)
    assert six.parse("take 0-5", []) == six.game.actions.id("take 5-0")
    assert six.parse("62 5s", []) == six.game.actions.id("62:5s")


def test_standard_only_agents_are_refused_in_the_six_player_game():
    with pytest.raises(ValueError, match="seat 1: agent 'simbid' plays the standard "
                                         "ruleset only.*heuristic.*random"):
        make_bot("simbid", Game(SIX), 1)
    specs = seat_bots(SIX, 0)
    assert sorted(specs) == [1, 2, 3, 4, 5] and set(specs.values()) == {"champion"}
    specs = seat_bots(RulesConfig.make(), 1, partner="pimc", opponents="random",
                      per_seat={2: "passive"})
    assert specs == {3: "pimc", 0: "random", 2: "passive"}
    with pytest.raises(ValueError, match="not yours"):
        seat_bots(RulesConfig.make(), 1, per_seat={1: "random"})


def test_play_command_refuses_bad_options(capsys):
    assert main(["play", "--ruleset", "six-player", "--opponents", "simbid"]) == 2
    assert "plays the standard ruleset only" in capsys.readouterr().err
    assert main(["play", "--bot", "one=random"]) == 2
    assert "SEAT=AGENT" in capsys.readouterr().err
    assert main(["play", "--rules", '{"trumps": 5}']) == 2
    assert "trumps" in capsys.readouterr().err


def test_play_command_reads_standard_input_and_writes_records_that_replay(tmp_path):
    out_file = tmp_path / "game.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "agents.cli", "play", "--hands", "1", "--seed", "5",
         "--partner", "random", "--opponents", "passive", "--bot", "3=random:seed=9",
         "--reveal", "--out", str(out_file)],
        input="\n".join(["?", "1"] + ["1"] * 60) + "\n", capture_output=True, text=True,
        timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "seat 3 (right): random:seed=9" in proc.stdout and "hands as dealt:" in proc.stdout
    assert "? shows this again" in proc.stdout
    rec = json.loads(out_file.read_text())
    assert rec["agents"] == ["person", "passive", "random", "random:seed=9"]
    assert replay(parse_record(rec))["complete"]


def test_records_are_appended_to_an_existing_file(tmp_path):
    out_file = tmp_path / "games.jsonl"
    out_file.write_text('{"earlier": "game"}\n')
    tg, _ = table(["1"] * 60, seed=4)
    records = tg.run(hands=1, out=str(out_file))
    lines = out_file.read_text().splitlines()
    assert lines[0] == '{"earlier": "game"}' and len(lines) == 1 + len(records) == 2
