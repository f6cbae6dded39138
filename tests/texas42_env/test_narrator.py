"""``texas42_env.narrator`` on its own: ``Narrator``, ``describe_hand``, ``tiles_text``,
``sort_tiles`` and ``seat_name``.

Held to: a hand stepped from the spec's worked records (``tests/data/spec_examples.jsonl``,
through ``records.replay_steps`` with the narrator as its step) is told line by line, with
the bidding header, every bid, the bid's winner, the contract, the seat sitting out,
trick headers, each trick's winner and points, the exchange and the result; the names of
seats and teams are the caller's; an illegal action raises the core's
``IllegalActionError`` and leaves the state as it was; ``describe_hand`` tells the same hand
after the fact; tiles are sorted trumps first (best first), then high end first.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.core import EXCHANGING, HAND_OVER, Game, IllegalActionError
from texas42_env.narrator import Narrator, describe_hand, seat_name, sort_tiles, tiles_text
from texas42_env.records import parse_record, replay_steps, start_state
from texas42_env.rules import DOUBLES, FOLLOW_ME, NELLO, SEVENS, RulesConfig
from texas42_env.sampling import uniform_legal

from helpers import DATA, same_state, snapshot

EXAMPLES = {json.loads(line)["title"]: json.loads(line)["record"]
            for line in (DATA / "spec_examples.jsonl").read_text().splitlines() if line.strip()}


def _example(start: str) -> dict:
    (title,) = [t for t in EXAMPLES if t.startswith(start)]
    return EXAMPLES[title]


def _narrate(rec: dict, **kw):
    """The narrator's lines for a record stepped by ``replay_steps``; the state at the end."""
    parsed = parse_record(rec)
    game, st = start_state(parsed)
    narrator = Narrator(game, **kw)
    lines: list[str] = []
    game, st, error = replay_steps(parsed, lambda s, a: lines.extend(narrator.step(s, a)),
                                   start=(game, st))
    return lines, game, st, error


# ----------------------------------------------------------------------------- Narrator
def test_a_points_bid_made_in_two_tricks_is_told_line_by_line():
    lines, game, st, error = _narrate(_example("a points bid made after two tricks"))
    assert error is None and int(st.phase[0]) == HAND_OVER
    assert lines == [
        "bidding:",
        "  seat 0: 30",
        "  seat 1: pass",
        "  seat 2: pass",
        "  seat 3: pass",
        "the bid goes to seat 0 at 30",
        "contract: 6s, named by seat 0",
        "trick 1:",
        "  seat 0: 6-6",
        "  seat 1: 5-5",
        "  seat 2: 4-1",
        "  seat 3: 2-1",
        "  -> won by seat 0: 16 points (so far team 0 16, team 1 0)",
        "trick 2:",
        "  seat 0: 6-4",
        "  seat 1: 5-0",
        "  seat 2: 3-2",
        "  seat 3: 1-0",
        "  -> won by seat 0: 21 points (so far team 0 37, team 1 0)",
        "result: seat 0 bid 30 in 6s, team 0 to take 30 points: made after 2 tricks; "
        "points team 0 37, team 1 0",
        "this hand scores team 0 +1, team 1 +0 marks",
    ]


def test_a_set_mark_bid_names_the_trick_and_one_point():
    lines, *_ = _narrate(_example("a mark bid is set"))
    assert "the bid goes to seat 1 at 1m" in lines
    assert lines[-3] == "  -> won by seat 0: 1 point (so far team 0 1, team 1 0)"
    assert lines[-2] == ("result: seat 1 bid 1m in 5s, team 1 to take every trick: set after "
                         "1 trick; points team 0 1, team 1 0")
    assert lines[-1] == "this hand scores team 0 +1, team 1 +0 marks"


def test_nello_says_who_sits_out_and_tells_tricks_of_three():
    lines, game, st, _ = _narrate(_example("nello"))
    assert lines[:6] == ["bidding:", "  seat 3: 1m", "  seat 0: pass", "  seat 1: pass",
                         "  seat 2: pass", "the bid goes to seat 3 at 1m"]
    assert lines[6:8] == ["contract: nello, named by seat 3",
                          "sitting out this hand (nello): seat 1"]
    headers = [i for i, line in enumerate(lines) if line.startswith("trick ")]
    assert [lines[i] for i in headers] == [f"trick {k}:" for k in range(1, 8)]
    assert all(lines[i + 4].startswith("  -> won by") for i in headers)  # three plays each
    assert not any(line.startswith("  seat 1:") for line in lines[8:])
    assert lines[-2].startswith("result: seat 3 bid 1m in nello, team 1 to take no trick: made;")
    assert lines[-1] == "this hand scores team 0 +0, team 1 +1 marks"


def test_a_hand_thrown_in_is_told_without_a_bid_winner():
    lines, *_ = _narrate(_example("everyone passes under redeal"))
    assert lines == ["bidding:", "  seat 0: pass", "  seat 1: pass", "  seat 2: pass",
                     "  seat 3: pass", "everyone passed: the hand is thrown in (no score)"]


def test_a_partial_hand_is_told_as_far_as_it_goes():
    lines, _, st, error = _narrate(_example("bidding under way"))
    assert error is None and lines == ["bidding:", "  seat 0: 30", "  seat 1: pass"]
    lines, _, st, error = _narrate(_example("illegal: failing to follow suit"))
    assert error is not None and error.reason == "must follow trumps"
    assert lines[-4:] == ["trick 1:", "  seat 1: 5-4", "  seat 2: 3-1", "  seat 3: 0-0"]
    assert not any(line.startswith("result") for line in lines)


def test_six_player_tells_the_exchange_and_the_trick_of_six():
    lines, game, st, error = _narrate(_example("six-player: identical tiles"))
    assert error is None
    i = lines.index("contract: 6s, named by seat 0")
    assert lines[i + 1] == "exchange by seat 0: took 5-0 from the cat, discarded 1-0"
    assert lines[i + 2] == "trick 1:"
    assert lines[i + 3:i + 9] == ["  seat 0: 5-5", "  seat 1: 5-4", "  seat 2: 5-3",
                                  "  seat 3: 5-5", "  seat 4: 4-0", "  seat 5: 0-0"]
    assert lines[i + 9] == "  -> won by seat 0: 22 points (so far team 0 22, team 1 0)"
    # a seat whose exchange the viewer does not see: only how many tiles
    lines, *_ = _narrate(_example("six-player: identical tiles"), hidden=[0])
    assert "exchange by seat 0: 1 tile swapped with the cat" in lines
    assert not any("5-0 from the cat" in line for line in lines)


def _six_record(exchange: dict) -> dict:
    """The six-player worked deal with seat 5's 3-0 and the cat's 5-0 swapped (no count
    in the cat: the declarer may keep its hand)."""
    rec = json.loads(json.dumps(_example("six-player: identical tiles")))
    rec["hands"][5][1] = "5-0"
    rec["cat"] = ["3-0", "3-1"]
    rec["exchange"] = exchange
    rec["plays"] = []
    return rec


def test_six_player_exchanges_of_none_and_of_two_tiles():
    lines, *_ = _narrate(_six_record({"take": [], "discard": []}))
    assert lines[-1] == "exchange by seat 0: none (the hand is kept)"
    lines, *_ = _narrate(_six_record({"take": [], "discard": []}), hidden=[0])
    assert lines[-1] == "exchange by seat 0: 0 tiles swapped with the cat"
    lines, _, st, error = _narrate(_six_record({"take": ["3-0", "3-1"],
                                                "discard": ["1-0", "0-0"]}))
    assert error is None and int(st.phase[0]) != EXCHANGING
    assert lines[-1] == "exchange by seat 0: took 3-0 3-1 from the cat, discarded 1-0 0-0"
    lines, *_ = _narrate(_six_record({"take": ["3-0", "3-1"], "discard": ["1-0", "0-0"]}),
                         hidden=[2])  # another seat is hidden: seat 0's tiles are told
    assert lines[-1].startswith("exchange by seat 0: took")


def test_seat_and_team_names_notes_and_the_team_named_first_are_the_callers():
    rec = _example("a points bid made after two tricks")
    names = {0: "you", 1: "West", 2: "partner", 3: "East"}
    parsed = parse_record(rec)
    game, st = start_state(parsed)
    narrator = Narrator(game, who=names.__getitem__, teams=("us", "them"), first=1)
    lines = []
    for k, a in enumerate(game.actions.id(x) for x in parsed.actions):
        lines += narrator.step(st, a, note=" (!)" if k == 0 else "")
    assert lines[1] == "  you: 30 (!)" and lines[2] == "  West: pass"
    assert "the bid goes to you at 30" in lines
    assert "contract: 6s, named by you" in lines
    assert "  -> won by you: 16 points (so far them 0, us 16)" in lines
    assert lines[-2] == ("result: you bid 30 in 6s, us to take 30 points: made after 2 tricks; "
                         "points them 0, us 37")
    assert lines[-1] == "this hand scores them +0, us +1 marks"
    assert narrator.tally([3, 4]) == "them 4, us 3"


def test_points_scoring_tells_the_score_in_points():
    rec = dict(_example("a points bid made after two tricks"), options={"scoring": "points"})
    lines, game, st, _ = _narrate(rec)
    assert lines[-1] == "this hand scores team 0 +30, team 1 +0 points"


def test_an_illegal_action_raises_the_cores_error_and_leaves_the_state_as_it_was():
    parsed = parse_record(_example("a points bid made after two tricks"))
    game, st = start_state(parsed)
    narrator = Narrator(game)
    assert narrator.step(st, game.actions.id("30")) == ["bidding:", "  seat 0: 30"]
    before = snapshot(st)
    for bad in ("30", "3m", "6-6", "6s"):
        with pytest.raises(IllegalActionError) as err:
            narrator.step(st, game.actions.id(bad))
        assert err.value.seat == 1 and err.value.reason == game.reason(st, 0,
                                                                     game.actions.id(bad))
        assert same_state(before, snapshot(st))
    assert narrator.step(st, game.actions.id("31")) == ["  seat 1: 31"]


def test_every_random_hand_is_told_whole_in_both_rulesets():
    """Random legal hands: one line per action (and a header per trick), a winner line per
    trick, the result once, at the end."""
    for ruleset, opts in (("standard", {"sevens": True, "splash": True}),
                          ("six-player", {})):
        game = Game(RulesConfig.make(ruleset, **opts))
        rng = np.random.default_rng(2)
        for g in range(12):
            st = game.reset(1, seed=4, game_ids=[g])
            narrator = Narrator(game)
            lines = []
            n_bids = 0
            while int(st.phase[0]) < HAND_OVER:
                a = int(uniform_legal(st.legal, rng)[0])
                n_bids += game.actions.kind[a] == 0
                lines += narrator.step(st, a)
            tricks = int(st.trick_no[0])
            assert lines[0] == "bidding:"
            assert sum(line.startswith("trick ") for line in lines) == tricks + (
                int(st.n_in_trick[0]) > 0)
            assert sum(line.startswith("  -> won by") for line in lines) == tricks
            assert sum(line.startswith("  seat ") for line in lines) == \
                n_bids + int(st.n_plays[0])
            if int(st.bidder[0]) >= 0:
                assert lines[-2].startswith(f"result: seat {int(st.bidder[0])} bid ")
                assert ("made" if int(st.made[0]) == 1 else "set") in lines[-2]
                assert lines[-1].endswith("marks" if ruleset == "standard" else "points")
                assert sum(line.startswith("exchange by") for line in lines) == \
                    (ruleset == "six-player")
            else:
                assert lines[-1] == "everyone passed: the hand is thrown in (no score)"


# ----------------------------------------------------------------------------- describe_hand
def test_describe_hand_tells_the_deal_the_bids_the_tricks_and_the_score():
    _, game, st, _ = _narrate(_example("a points bid made after two tricks"))
    lines = describe_hand(game, st).splitlines()
    assert lines[0].endswith("dealer seat 3")
    assert lines[1:5] == ["  seat 0: 6-6 6-5 6-4 6-3 6-2 6-1 6-0",
                          "  seat 1: 5-5 5-4 5-3 5-2 5-1 5-0 4-4",
                          "  seat 2: 4-3 4-2 4-1 4-0 3-3 3-2 3-1",
                          "  seat 3: 3-0 2-2 2-1 2-0 1-1 1-0 0-0"]
    assert lines[5:] == [
        "  bids: seat 0 30, seat 1 pass, seat 2 pass, seat 3 pass",
        "  seat 0 won the bid at 30; seat 0 named 6s",
        "  trick 1: 0:6-6, 1:5-5, 2:4-1, 3:2-1 -> seat 0 (16 pts)",
        "  trick 2: 0:6-4, 1:5-0, 2:3-2, 3:1-0 -> seat 0 (21 pts)",
        "  points 37-0: bid made; this hand scores 1-0, game 1-0",
    ]


def test_describe_hand_names_the_game_and_hand_and_leaves_out_the_seat_sitting_out():
    game = Game()
    st = game.reset(3, seed=9, game_ids=[5, 6, 7])
    text = describe_hand(game, st, 2)
    assert text.splitlines()[0] == f"Hand 1 of game 7, dealer seat {int(st.dealer[2])}"
    assert "  the bidding goes on" in text
    _, game, st, _ = _narrate(_example("nello"))
    lines = describe_hand(game, st).splitlines()
    assert lines[6] == "  seat 3 won the bid at 1m; seat 3 named nello"
    assert lines[7] == "  trick 1: 3:3-0, 0:6-3, 2:3-3 -> seat 2 (1 pts)"
    assert lines[-1] == "  points 27-0: bid made; this hand scores 0-1, game 0-1"
    _, game, st, _ = _narrate(_example("everyone passes under redeal"))
    assert describe_hand(game, st).splitlines()[-1] == "  everyone passed: the hand is thrown in"
    _, game, st, _ = _narrate(_example("illegal: failing to follow suit"))
    lines = describe_hand(game, st).splitlines()
    assert lines[-2] == "  trick 1: 1:5-4, 2:3-1, 3:0-0"
    assert lines[-1] == "  points 0-0: bid undecided; this hand scores 0-0, game 0-0"


# ----------------------------------------------------------------------------- tiles
def _ids(text: str) -> list[int]:
    return [T.parse_tile(x) for x in text.split()]


def test_tiles_sort_high_end_first_without_a_contract():
    game = Game()
    tiles = _ids("0-0 5-1 6-4 1-0 5-5 6-6 3-2")
    assert tiles_text(game, tiles) == "6-6 6-4 5-5 5-1 3-2 1-0 0-0"
    assert sort_tiles(game, tiles) == _ids("6-6 6-4 5-5 5-1 3-2 1-0 0-0")
    assert sort_tiles(game, np.array(tiles)) == sort_tiles(game, tiles)  # ids as an array
    assert all(isinstance(t, int) for t in sort_tiles(game, np.array(tiles)))
    assert tiles_text(game, []) == ""


def test_tiles_sort_trumps_first_best_first_under_a_contract():
    game = Game()
    tiles = _ids("0-0 5-1 6-4 1-0 5-5 6-6 3-2 6-5")
    assert tiles_text(game, tiles, 5) == "5-5 6-5 5-1 6-6 6-4 3-2 1-0 0-0"
    assert tiles_text(game, tiles, 0) == "0-0 1-0 6-6 6-5 6-4 5-5 5-1 3-2"
    assert tiles_text(game, tiles, DOUBLES) == "6-6 5-5 0-0 6-5 6-4 5-1 3-2 1-0"
    no_trumps = "6-6 6-5 6-4 5-5 5-1 3-2 1-0 0-0"
    for contract in (FOLLOW_ME, NELLO, SEVENS):
        assert tiles_text(game, tiles, contract) == no_trumps


def test_seat_name_is_the_seat_number_in_words():
    assert [seat_name(s) for s in (0, 3, 5)] == ["seat 0", "seat 3", "seat 5"]
