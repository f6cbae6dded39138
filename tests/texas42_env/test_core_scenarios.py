"""Hand-worked scenarios of the standard (four-player) rules, one rule per test.

Every expected value below was worked out by hand from ``shared/spec/rules.md`` (the reference)
and ``shared/spec/game-record.md`` (the replay output), never copied from the code's output.

Most tests build a one-hand game record and replay it; the ones about whole games, dealing and
the game's seed drive ``texas42_env.core.Game`` directly.

The deal most records use (``BASE``), one suit-ish block per seat::

    seat 0: 6-6 6-5 6-4 6-3 6-2 6-1 6-0      (every six; 1 double)
    seat 1: 5-5 5-4 5-3 5-2 5-1 5-0 4-4      (2 doubles)
    seat 2: 4-3 4-2 4-1 4-0 3-3 3-2 3-1      (1 double)
    seat 3: 3-0 2-2 2-1 2-0 1-1 1-0 0-0      (3 doubles; holds 1-0)

Bidding starts left of the dealer: dealer 3 -> seats 0,1,2,3; dealer 0 -> 1,2,3,0;
dealer 1 -> 2,3,0,1; dealer 2 -> 3,0,1,2. Record action indexes count bids, then the
contract, then the plays.
"""

from __future__ import annotations

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.core import BIDDING, GAME_OVER, HAND_OVER, PLAYING, Game
from texas42_env.records import parse_record, replay
from texas42_env.rules import RulesConfig

# ---------------------------------------------------------------------------------- helpers

BASE = (
    ("6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"),
    ("5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"),
    ("4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"),
    ("3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"),
)
ALL_SIXES = sorted(BASE[0])
PASS3 = ["pass", "pass", "pass"]
ALL_TRUMP_SUITS = ["0s", "1s", "2s", "3s", "4s", "5s", "6s"]


def swap(hands, a, b):
    """The deal ``hands`` with tiles ``a`` and ``b`` exchanged between their holders."""
    out = [list(h) for h in hands]
    for h in out:
        for i, t in enumerate(h):
            if t == a:
                h[i] = b
            elif t == b:
                h[i] = a
    return out


# seat 3 holds four doubles (3-3 2-2 1-1 0-0): it may plunge; seat 2 holds 3-0 instead of 3-3
PLUNGE_HANDS = swap(BASE, "3-3", "3-0")
# as PLUNGE_HANDS, and seat 1 holds all seven fives (6-5 for 4-4; seat 0 gets 4-4)
PLUNGE_RUN_HANDS = swap(PLUNGE_HANDS, "6-5", "4-4")
# sevens: seat 0 has no tile of 7 pips (closest 6-2, 6-0 at 1); seat 1 holds 6-1 and 5-2
SEVENS_TIE_HANDS = swap(BASE, "6-1", "5-5")
# sevens: as above, and seat 1 holds all three 7-pip tiles (4-3 for 4-4; seat 2 gets 4-4)
SEVENS_ONE_HANDS = swap(SEVENS_TIE_HANDS, "4-4", "4-3")


def record(bids=(), contract=None, plays=(), hands=BASE, dealer=3, **options):
    rec = {"format": "texas42-record/1", "ruleset": "standard", "dealer": dealer,
           "hands": [list(h) for h in hands], "bids": list(bids), "plays": list(plays)}
    if contract is not None:
        rec["contract"] = contract
    if options:
        rec["options"] = options
    return rec


def run(bids=(), contract=None, plays=(), hands=BASE, dealer=3, **options):
    """Replay a record built from the arguments; asserts it was read without an illegal action."""
    out = replay(parse_record(record(bids, contract, plays, hands, dealer, **options)))
    assert out["ok"] is True, out
    return out


def error(bids=(), contract=None, plays=(), hands=BASE, dealer=3, **options):
    """(index, phase, seat, action) of the record's illegal action; asserts there is one."""
    out = replay(parse_record(record(bids, contract, plays, hands, dealer, **options)))
    assert out["ok"] is False, out
    e = out["error"]
    assert isinstance(e["reason"], str) and e["reason"]
    return e["index"], e["phase"], e["seat"], e["action"]


def tricks_of(*columns):
    """Plays of whole tricks from per-seat columns in playing order: tricks_of(a, b, c, d)
    interleaves a[0], b[0], c[0], d[0], a[1], ..."""
    return [t for trick in zip(*columns) for t in trick]


# ---------------------------------------------------------------------------------- bidding

def test_bid_must_exceed_current_high_bid():
    assert error(["31", "31"]) == (1, "bid", 1, "31")
    assert error(["31", "30"]) == (1, "bid", 1, "30")
    out = run(["31"])
    assert out["to_move"] == 1
    assert "31" not in out["legal"] and "32" in out["legal"]


def test_highest_bid_wins_the_bidding():
    out = run(["30", "pass", "35", "pass"])
    assert (out["bidder"], out["bid"], out["declarer"]) == (2, "35", 2)
    assert out["phase"] == "declare" and out["to_move"] == 2


def test_any_mark_bid_beats_any_points_bid():
    out = run(["41", "1m", "pass", "pass"])
    assert (out["bidder"], out["bid"], out["declarer"]) == (1, "1m", 1)
    assert out["phase"] == "declare"


def test_max_opening_marks_option_raises_the_first_mark_bid():
    # default: the first mark bid is at most 2m
    assert error(["3m"]) == (0, "bid", 0, "3m")
    # max_opening_marks 3: 3m may open, 4m may not; over 3m only 4m (seat 1: 2 doubles, no plunge)
    assert error(["4m"], max_opening_marks=3) == (0, "bid", 0, "4m")
    out = run(["3m"], max_opening_marks=3)
    assert out["to_move"] == 1 and out["legal"] == ["4m", "pass"]


def test_mark_bid_may_only_raise_high_mark_bid_by_one():
    out = run(["1m"])
    assert out["legal"] == ["2m", "pass"]
    assert error(["1m", "3m"]) == (1, "bid", 1, "3m")


def test_there_is_no_largest_mark_bid():
    out = run(["7m", "8m", "9m", "10m"], max_opening_marks=7)
    assert (out["bidder"], out["bid"]) == (3, "10m")


def test_forced_dealer_may_not_pass():
    out = run(PASS3)
    assert out["to_move"] == 3  # the dealer bids last
    assert "pass" not in out["legal"] and "30" in out["legal"]
    assert error(PASS3 + ["pass"]) == (3, "bid", 3, "pass")


def test_forced_dealer_may_bid_plunge():
    out = run(PASS3 + ["plunge"], hands=PLUNGE_HANDS)
    assert (out["bidder"], out["bid"], out["declarer"]) == (3, "plunge", 1)


def test_forced_dealer_may_bid_splash():
    out = run(PASS3 + ["splash"], splash=True)  # seat 3 holds 3 doubles
    assert (out["bidder"], out["bid"], out["declarer"]) == (3, "splash", 1)


def test_redeal_all_pass_throws_the_hand_in():
    out = run(["pass"] * 4, dealer=1, all_pass="redeal")
    assert out == {"ok": True, "complete": True, "bidder": None, "bid": None, "declarer": None,
                   "contract": None, "tricks": [], "points": [0, 0], "made": None,
                   "marks": [0, 0], "score": [0, 0]}


def test_bidding_starts_left_of_dealer_and_dealer_bids_last():
    out = run([], dealer=1)
    assert out["phase"] == "bid" and out["to_move"] == 2
    out = run(PASS3, dealer=1)
    assert out["to_move"] == 1 and "pass" not in out["legal"]
    out = run(["pass", "pass", "30", "pass"], dealer=1)
    assert out["bidder"] == 0  # bids came from seats 2, 3, 0, 1


def test_holder_of_1_0_bids_first():
    # seat 3 holds 1-0; dealer 0 would otherwise make seat 1 bid first
    out = run([], dealer=0, first_bidder="holder_of_1_0")
    assert out["to_move"] == 3
    out = run(["30", "pass", "pass", "pass"], dealer=0, first_bidder="holder_of_1_0")
    assert (out["bidder"], out["declarer"]) == (3, 3)


def test_holder_of_1_0_right_hand_neighbour_is_forced():
    out = run(PASS3, dealer=0, first_bidder="holder_of_1_0")  # seats 3, 0, 1 passed
    assert out["to_move"] == 2 and "pass" not in out["legal"]
    assert error(["pass"] * 4, dealer=0, first_bidder="holder_of_1_0") == (3, "bid", 2, "pass")


def test_string_outside_the_notation_is_an_illegal_action():
    assert error(["thirty"]) == (0, "bid", 0, "thirty")


# ---------------------------------------------------------------------------------- plunge

def test_plunge_needs_plunge_min_doubles():
    # dealer 2: seat 3 bids first and holds only 3 doubles
    assert error(["plunge"], dealer=2) == (0, "bid", 3, "plunge")


def test_plunge_min_doubles_option():
    out = run(["plunge"], dealer=2, plunge_min_doubles=3)
    assert out["to_move"] == 0 and out["legal"] == ["5m", "pass"]


def test_plunge_option_off_refuses_plunge():
    assert error(["plunge"], hands=PLUNGE_HANDS, dealer=2, plunge=False) == (0, "bid", 3, "plunge")


# The plunge hands below: seat 1 (the plunger's partner) names 5s and leads 5-0; seat 2 has no
# five (plays 3-1), seat 3 none (0-0), seat 0 must trump with its only five, 6-5, which outranks
# 5-0: team 0 takes the first trick and the plunge is set. Trick: 1 + 5 (5-0) = 6 points.
PLUNGE_SET_PLAYS = ["5-0", "3-1", "0-0", "6-5"]


def test_plunge_is_worth_plunge_marks_over_a_points_bid():
    out = run(["30", "pass", "pass", "plunge"], "5s", PLUNGE_SET_PLAYS, hands=PLUNGE_HANDS)
    assert (out["bidder"], out["declarer"], out["bid"]) == (3, 1, "plunge")
    assert out["tricks"][0]["winner"] == 0 and out["points"] == [6, 0]
    assert out["made"] is False and out["complete"] is True
    assert out["marks"] == [4, 0] and out["score"] == [4, 0]


def test_plunge_is_one_mark_over_a_higher_mark_bid():
    out = run(["2m", "3m", "4m", "plunge"], "5s", PLUNGE_SET_PLAYS, hands=PLUNGE_HANDS)
    assert out["bid"] == "plunge" and out["made"] is False
    assert out["marks"] == [5, 0]  # max(4m, 4m + 1m)


def test_plunge_marks_option_sets_least_plunge_value():
    out = run(["plunge"], hands=PLUNGE_HANDS, dealer=2, plunge_marks=5)
    assert out["to_move"] == 0 and out["legal"] == ["6m", "pass"]


def test_mark_bids_after_plunge_go_one_mark_at_a_time():
    out = run(["plunge"], hands=PLUNGE_HANDS, dealer=2)
    assert out["to_move"] == 0 and out["legal"] == ["5m", "pass"]
    assert error(["plunge", "6m"], hands=PLUNGE_HANDS, dealer=2) == (1, "bid", 0, "6m")


def test_plunge_partner_declares_and_leads():
    out = run(["30", "pass", "pass", "plunge"], hands=PLUNGE_HANDS)
    assert out["phase"] == "declare" and out["to_move"] == 1
    out = run(["30", "pass", "pass", "plunge"], "5s", hands=PLUNGE_HANDS)
    assert out["phase"] == "play" and out["to_move"] == 1 and out["declarer"] == 1


def test_plunge_may_not_be_declared_nello():
    out = run(["30", "pass", "pass", "plunge"], hands=PLUNGE_HANDS)
    assert out["legal"] == ALL_TRUMP_SUITS + ["doubles", "follow-me"]
    assert error(["30", "pass", "pass", "plunge"], "nello", hands=PLUNGE_HANDS) == \
        (4, "declare", 1, "nello")


def test_sevens_may_be_named_after_plunge():
    out = run(["30", "pass", "pass", "plunge"], hands=PLUNGE_HANDS, sevens=True)
    assert out["legal"] == ALL_TRUMP_SUITS + ["doubles", "follow-me", "sevens"]


def test_plunge_made_only_by_taking_all_seven_tricks():
    # seat 1 holds every five and leads them all as trumps; nobody else can follow
    s1 = ["5-5", "6-5", "5-4", "5-3", "5-2", "5-1", "5-0"]
    s2 = ["4-3", "4-2", "4-1", "4-0", "3-0", "3-2", "3-1"]
    s3 = ["3-3", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"]
    s0 = ["6-6", "6-4", "6-3", "6-2", "6-1", "6-0", "4-4"]
    plays = tricks_of(s1, s2, s3, s0)
    bids = ["30", "pass", "pass", "plunge"]
    six = run(bids, "5s", plays[:24], hands=PLUNGE_RUN_HANDS)
    assert [t["winner"] for t in six["tricks"]] == [1] * 6
    assert six["made"] is None and six["complete"] is False and six["marks"] == [0, 0]
    out = run(bids, "5s", plays, hands=PLUNGE_RUN_HANDS)
    assert out["made"] is True and out["complete"] is True
    assert out["points"] == [0, 42] and out["marks"] == [0, 4]


# ---------------------------------------------------------------------------------- splash

def test_splash_is_off_by_default():
    assert error(["splash"], dealer=2) == (0, "bid", 3, "splash")


def test_splash_needs_three_doubles():
    # dealer 0: seat 1 bids first with two doubles (5-5, 4-4); seat 3 (three doubles) may
    assert error(["splash"], dealer=0, splash=True) == (0, "bid", 1, "splash")
    out = run(["pass", "pass", "splash"], dealer=0, splash=True)
    assert out["to_move"] == 0 and out["legal"] == ["3m", "pass"]


def test_splash_is_worth_two_marks_over_a_points_bid():
    # dealer 1: seat 2 bids 30, seat 3 splashes; seat 0 may then only bid 3m
    out = run(["30", "splash"], dealer=1, splash=True)
    assert out["to_move"] == 0 and out["legal"] == ["3m", "pass"]


def test_splash_is_one_mark_over_a_mark_bid_and_partner_declares():
    # seat 1 names 5s and leads 5-0; seat 0 trumps it with 6-5: set at 3 marks
    out = run(["2m", "pass", "pass", "splash"], "5s", ["5-0", "3-1", "0-0", "6-5"], splash=True)
    assert (out["bidder"], out["declarer"], out["bid"]) == (3, 1, "splash")
    assert out["tricks"][0] == {"leader": 1, "plays": ["5-0", "3-1", "0-0", "6-5"],
                                "winner": 0, "points": 6}
    assert out["made"] is False and out["marks"] == [3, 0]


def test_splash_may_not_pass_three_marks():
    out = run(["2m", "3m", "pass"], splash=True)
    assert out["to_move"] == 3 and out["legal"] == ["4m", "pass"]
    assert error(["2m", "3m", "pass", "splash"], splash=True) == (3, "bid", 3, "splash")


# ---------------------------------------------------------------------------------- nello
# Nello records: dealer 2, seat 3 bids 1m and names nello; seat 1 (its partner) sits out.

NELLO_BIDS = ["1m", "pass", "pass", "pass"]


def test_nello_needs_nello_min_marks():
    out = run(["30", "pass", "pass", "pass"])
    assert "nello" not in out["legal"] and "6s" in out["legal"]
    assert error(["30", "pass", "pass", "pass"], "nello") == (4, "declare", 0, "nello")


def test_nello_min_marks_option_two_refuses_a_one_mark_bid():
    assert error(["1m", "pass", "pass", "pass"], "nello", nello_min_marks=2) == \
        (4, "declare", 0, "nello")
    out = run(["2m", "pass", "pass", "pass"], "nello", nello_min_marks=2)
    assert out["contract"] == "nello" and out["phase"] == "play"


def test_nello_min_marks_zero_allows_a_points_bid():
    out = run(["30", "pass", "pass", "pass"], "nello", nello_min_marks=0)
    assert out["contract"] == "nello" and out["phase"] == "play" and out["to_move"] == 0


def test_nello_option_off_refuses_nello():
    assert error(["1m", "pass", "pass", "pass"], "nello", nello=False) == \
        (4, "declare", 0, "nello")


def test_nello_bidder_leads():
    out = run(NELLO_BIDS, "nello", dealer=2)
    assert (out["bidder"], out["declarer"]) == (3, 3)
    assert out["phase"] == "play" and out["to_move"] == 3


def test_nello_partner_sits_out_tricks_of_three():
    # seat 3 leads 2-1 (2s); seat 0 follows 6-2; seat 1 is skipped; seat 2 follows with a two
    out = run(NELLO_BIDS, "nello", ["2-1", "6-2"], dealer=2)
    assert out["to_move"] == 2 and out["legal"] == ["3-2", "4-2"]
    out = run(NELLO_BIDS, "nello", ["2-1", "6-2", "4-2"], dealer=2)
    assert out["tricks"] == [{"leader": 3, "plays": ["2-1", "6-2", "4-2"], "winner": 0,
                              "points": 1}]
    assert out["to_move"] == 0 and out["made"] is None


def test_nello_set_by_first_trick_bidder_takes():
    # 2-2 led calls 2s and (doubles high) beats 6-2 and 4-2: the bidder takes the trick
    out = run(NELLO_BIDS, "nello", ["2-2", "6-2", "4-2"], dealer=2)
    assert out["tricks"][0]["winner"] == 3
    assert out["made"] is False and out["complete"] is True
    assert out["marks"] == [1, 0] and out["score"] == [1, 0]


def test_nello_made_after_last_trick_with_partner_tiles_unplayed():
    # seat 3 leads 1-0; seat 0 must follow 6-1, seat 2 follows 4-1; 6-1 wins. Seat 0 then
    # leads its sixes, which nobody can follow: seat 3 never takes a trick.
    plays = ["1-0", "6-1", "4-1"] + tricks_of(
        ["6-6", "6-5", "6-4", "6-3", "6-2", "6-0"],
        ["4-3", "4-2", "4-0", "3-3", "3-2", "3-1"],
        ["3-0", "2-2", "2-1", "2-0", "1-1", "0-0"])
    six = run(NELLO_BIDS, "nello", plays[:18], dealer=2)
    assert six["made"] is None and six["complete"] is False
    out = run(NELLO_BIDS, "nello", plays, dealer=2)
    assert [t["winner"] for t in out["tricks"]] == [0] * 7
    assert all(len(t["plays"]) == 3 for t in out["tricks"])
    # 7 tricks + 4-1, 6-4, 3-2; seat 1's 5-5 and 5-0 are never played
    assert out["points"] == [27, 0]
    assert out["made"] is True and out["marks"] == [0, 1] and out["score"] == [0, 1]


def test_nello_low_doubles_rank_lowest():
    out = run(NELLO_BIDS, "nello", ["2-2", "6-2", "4-2"], dealer=2, nello_doubles="low")
    assert out["tricks"][0]["winner"] == 0  # 6-2 highest two; 2-2 lowest
    assert out["made"] is None and out["complete"] is False and out["to_move"] == 0


def test_nello_own_suit_led_double_calls_doubles():
    high = run(NELLO_BIDS, "nello", ["2-2"], dealer=2)
    assert high["legal"] == ["6-2"]  # as usual, 2-2 calls 2s
    out = run(NELLO_BIDS, "nello", ["2-2"], dealer=2, nello_doubles="own_suit")
    assert out["to_move"] == 0 and out["legal"] == ["6-6"]
    out = run(NELLO_BIDS, "nello", ["2-2", "6-6"], dealer=2, nello_doubles="own_suit")
    assert out["to_move"] == 2 and out["legal"] == ["3-3"]
    out = run(NELLO_BIDS, "nello", ["2-2", "6-6", "3-3"], dealer=2, nello_doubles="own_suit")
    assert out["tricks"][0]["winner"] == 0  # 6-6 is the highest double


def test_nello_own_suit_double_does_not_follow_its_number():
    # 3-0 led calls 3s; seat 0 follows 6-3; seat 2 holds 4-3 3-3 3-2 3-1
    high = run(NELLO_BIDS, "nello", ["3-0", "6-3"], dealer=2)
    assert high["legal"] == ["3-1", "3-2", "3-3", "4-3"]
    out = run(NELLO_BIDS, "nello", ["3-0", "6-3"], dealer=2, nello_doubles="own_suit")
    assert out["legal"] == ["3-1", "3-2", "4-3"]


# ---------------------------------------------------------------------------------- sevens
# Sevens records: dealer 3, seat 0 bids 1m and names sevens.

SEVENS_BIDS = ["1m", "pass", "pass", "pass"]


def test_sevens_is_off_by_default():
    assert error(SEVENS_BIDS, "sevens") == (4, "declare", 0, "sevens")


def test_sevens_needs_sevens_min_marks():
    assert error(["30", "pass", "pass", "pass"], "sevens", sevens=True) == \
        (4, "declare", 0, "sevens")


def test_sevens_min_marks_zero_allows_a_points_bid():
    out = run(["30", "pass", "pass", "pass"], "sevens", sevens=True, sevens_min_marks=0)
    assert out["contract"] == "sevens" and out["to_move"] == 0 and out["legal"] == ["6-1"]


def test_sevens_must_play_a_tile_closest_to_seven():
    # pip distances to 7 -- seat 0: 6-1 is 0; seat 1: 5-2 is 0; seat 2: 4-3 is 0;
    # seat 3: 2-2 is 3, everything else farther
    assert run(SEVENS_BIDS, "sevens", sevens=True)["legal"] == ["6-1"]
    assert run(SEVENS_BIDS, "sevens", ["6-1"], sevens=True)["legal"] == ["5-2"]
    assert run(SEVENS_BIDS, "sevens", ["6-1", "5-2"], sevens=True)["legal"] == ["4-3"]
    assert run(SEVENS_BIDS, "sevens", ["6-1", "5-2", "4-3"], sevens=True)["legal"] == ["2-2"]
    assert error(SEVENS_BIDS, "sevens", ["6-0"], sevens=True) == (5, "play", 0, "6-0")
    # among equally close tiles the player chooses (seat 0: 6-2 and 6-0 are both 1 away)
    assert run(SEVENS_BIDS, "sevens", hands=SEVENS_TIE_HANDS, sevens=True)["legal"] == \
        ["6-0", "6-2"]


def test_sevens_closest_tile_wins_the_trick():
    # 6-0 (1 away), 5-2 (0), 4-2 (1), 2-2 (3): 5-2 wins; the bidding team lost a trick
    out = run(SEVENS_BIDS, "sevens", ["6-0", "5-2", "4-2", "2-2"], hands=SEVENS_ONE_HANDS,
              sevens=True)
    assert out["tricks"] == [{"leader": 0, "plays": ["6-0", "5-2", "4-2", "2-2"], "winner": 1,
                              "points": 1}]
    assert out["made"] is False and out["complete"] is True and out["marks"] == [0, 1]


def test_sevens_tie_first_played_wins_by_default():
    # 6-2 (1 away), then 5-2 and 4-3 both 0 away: the first played of them (seat 1) wins
    out = run(SEVENS_BIDS, "sevens", ["6-2", "5-2", "4-3", "2-2"], hands=SEVENS_TIE_HANDS,
              sevens=True)
    assert out["tricks"][0]["winner"] == 1
    assert out["made"] is False and out["marks"] == [0, 1]


def test_sevens_tie_bidder_goes_to_bidding_team():
    out = run(SEVENS_BIDS, "sevens", ["6-2", "5-2", "4-3", "2-2"], hands=SEVENS_TIE_HANDS,
              sevens=True, sevens_tie="bidder")
    assert out["tricks"][0]["winner"] == 2  # 4-3, the bidding team's tile among the closest
    assert out["made"] is None and out["complete"] is False and out["to_move"] == 2


def test_sevens_ends_at_first_lost_trick_even_with_play_out():
    plays = ["6-0", "5-2", "4-2", "2-2"]
    out = run(SEVENS_BIDS, "sevens", plays, hands=SEVENS_ONE_HANDS, sevens=True, play_out=True)
    assert out["complete"] is True and out["made"] is False and out["marks"] == [0, 1]
    assert error(SEVENS_BIDS, "sevens", plays + ["6-1"], hands=SEVENS_ONE_HANDS, sevens=True,
                 play_out=True) == (9, "over", None, "6-1")


def test_sevens_made_when_bidding_team_takes_every_trick():
    hands = [["6-1", "5-2", "4-3", "6-2", "5-3", "4-4", "5-1"],
             ["6-6", "6-5", "6-4", "6-3", "6-0", "5-5", "5-4"],
             ["5-0", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"],
             ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"]]
    # each column is that seat's closest-to-7 tile at each trick; seat 0's tile is the
    # closest (or tied closest and played first) every time
    plays = tricks_of(["6-1", "5-2", "4-3", "6-2", "5-3", "4-4", "5-1"],
                      ["6-0", "6-3", "5-4", "6-4", "5-5", "6-5", "6-6"],
                      ["4-2", "3-3", "5-0", "4-1", "3-2", "4-0", "3-1"],
                      ["2-2", "3-0", "2-1", "2-0", "1-1", "1-0", "0-0"])
    six = run(SEVENS_BIDS, "sevens", plays[:24], hands=hands, sevens=True)
    assert six["made"] is None and six["complete"] is False
    out = run(SEVENS_BIDS, "sevens", plays, hands=hands, sevens=True)
    assert [t["winner"] for t in out["tricks"]] == [0] * 7
    assert out["made"] is True and out["points"] == [42, 0] and out["marks"] == [1, 0]


# ---------------------------------------------------------------------------------- follow-me
# dealer 0: seat 1 bids 30 and names follow-me

FM_BIDS = ["30", "pass", "pass", "pass"]


def test_follow_me_high_doubles_led_double_calls_its_number_and_ranks_highest():
    out = run(FM_BIDS, "follow-me", ["4-4"], dealer=0)
    assert out["legal"] == ["4-0", "4-1", "4-2", "4-3"]
    out = run(FM_BIDS, "follow-me", ["4-4", "4-3", "0-0"], dealer=0)
    assert out["legal"] == ["6-4"]
    out = run(FM_BIDS, "follow-me", ["4-4", "4-3", "0-0", "6-4"], dealer=0)
    assert out["tricks"][0]["winner"] == 1 and out["tricks"][0]["points"] == 11


def test_follow_me_own_suit_led_double_calls_doubles():
    out = run(FM_BIDS, "follow-me", ["4-4"], dealer=0, follow_me_doubles="own_suit")
    assert out["legal"] == ["3-3"]
    out = run(FM_BIDS, "follow-me", ["4-4", "3-3", "0-0", "6-6"], dealer=0,
              follow_me_doubles="own_suit")
    assert out["tricks"][0]["winner"] == 0  # 6-6 > 4-4 > 3-3 > 0-0


def test_follow_me_own_suit_double_does_not_follow_its_number():
    # dealer 1: seat 2 bids and leads 4-3 (4s); seat 3 has no four; seat 0 follows 6-4;
    # seat 1 holds 5-4 and 4-4
    bids = ["30", "pass", "pass", "pass"]
    high = run(bids, "follow-me", ["4-3", "2-1", "6-4"], dealer=1)
    assert high["to_move"] == 1 and high["legal"] == ["4-4", "5-4"]
    out = run(bids, "follow-me", ["4-3", "2-1", "6-4"], dealer=1, follow_me_doubles="own_suit")
    assert out["legal"] == ["5-4"]


def test_follow_me_own_suit_double_never_wins_a_number_suit():
    # seat 1 holds 4-4 as its only four (6-3 for 5-4). Dealer 1: seat 2 names follow-me and
    # leads 4-0 (4s); seat 3 has no four; seat 0 follows 5-4. With high doubles seat 1 must
    # follow with 4-4 and it wins; as a suit of their own, 4-4 is free to go but cannot win.
    hands = swap(BASE, "5-4", "6-3")
    bids, plays = ["30", "pass", "pass", "pass"], ["4-0", "2-1", "5-4", "4-4"]
    high = run(bids, "follow-me", plays[:3], hands=hands, dealer=1)
    assert high["legal"] == ["4-4"]
    high = run(bids, "follow-me", plays, hands=hands, dealer=1)
    assert high["tricks"][0]["winner"] == 1
    own = run(bids, "follow-me", plays[:3], hands=hands, dealer=1, follow_me_doubles="own_suit")
    assert len(own["legal"]) == 7
    own = run(bids, "follow-me", plays, hands=hands, dealer=1, follow_me_doubles="own_suit")
    assert own["tricks"][0]["winner"] == 0


def test_doubles_options_leave_other_contracts_alone():
    # 4-4 led calls 4s under a trump contract whatever follow_me_doubles says, and in
    # follow-me whatever nello_doubles says
    for contract, opts in (("6s", {"follow_me_doubles": "own_suit"}),
                           ("follow-me", {"nello_doubles": "own_suit"}),
                           ("follow-me", {"nello_doubles": "low"})):
        out = run(FM_BIDS, contract, ["4-4"], dealer=0, **opts)
        assert out["legal"] == ["4-0", "4-1", "4-2", "4-3"], (contract, opts)
    out = run(FM_BIDS, "follow-me", ["4-4", "4-3", "0-0", "6-4"], dealer=0, nello_doubles="low")
    assert out["tricks"][0]["winner"] == 1


# ---------------------------------------------------------------------------------- trumps, following, winning
# dealer 0: seat 1 bids 30 and names the contract (unless said otherwise)

def test_led_double_calls_its_own_suit():
    out = run(FM_BIDS, "6s", ["4-4"], dealer=0)
    assert out["to_move"] == 2 and out["legal"] == ["4-0", "4-1", "4-2", "4-3"]


def test_non_trump_tile_led_calls_its_higher_end():
    # 1s trump; 5-3 led calls 5s, not 3s: seat 2 (threes but no five) may play anything
    out = run(FM_BIDS, "1s", ["5-3"], dealer=0)
    assert out["legal"] == ["3-1", "3-2", "3-3", "4-0", "4-1", "4-2", "4-3"]


def test_non_trump_tile_follows_by_either_end():
    # 5s led (5-3); seat 0's 6-5 carries a five: it must follow with it
    out = run(FM_BIDS, "1s", ["5-3", "3-3", "2-2"], dealer=0)
    assert out["to_move"] == 0 and out["legal"] == ["6-5"]


def test_highest_tile_of_led_suit_wins():
    # 5-3 led; 3-3 and 2-2 are off-suit; 6-5 outranks 5-3 in fives
    out = run(FM_BIDS, "1s", ["5-3", "3-3", "2-2", "6-5"], dealer=0)
    assert out["tricks"][0]["winner"] == 0 and out["tricks"][0]["points"] == 1


def test_off_suit_tiles_never_win_a_trick():
    # dealer 3: seat 0 bids 30, names 1s, leads 6-2 (6s); nobody else holds a six
    out = run(["30", "pass", "pass", "pass"], "1s", ["6-2", "5-5", "4-3", "2-2"])
    assert out["tricks"][0]["winner"] == 0 and out["tricks"][0]["points"] == 11


def test_trump_tile_belongs_only_to_the_trump_suit():
    # 6s trump; 5-5 led calls 5s; seat 0's only five is 6-5, a trump: it may play anything
    out = run(FM_BIDS, "6s", ["5-5", "4-3", "3-0"], dealer=0)
    assert out["to_move"] == 0 and out["legal"] == ALL_SIXES


def test_any_trump_beats_the_led_suit():
    out = run(FM_BIDS, "6s", ["5-5", "4-3", "3-0", "6-0"], dealer=0)
    assert out["tricks"][0]["winner"] == 0 and out["tricks"][0]["points"] == 11


def test_trump_led_calls_for_trumps_whatever_its_higher_end():
    # 4s trump; 5-4 led is a trump: seat 2 must trump, seat 0 must play 6-4 (not 6-5)
    out = run(FM_BIDS, "4s", ["5-4"], dealer=0)
    assert out["legal"] == ["4-0", "4-1", "4-2", "4-3"]
    out = run(FM_BIDS, "4s", ["5-4", "4-3", "0-0"], dealer=0)
    assert out["legal"] == ["6-4"]


def test_must_follow_suit_when_able():
    assert error(FM_BIDS, "6s", ["4-4", "3-3"], dealer=0) == (6, "play", 2, "3-3")


def test_play_must_be_a_tile_in_hand():
    assert error(FM_BIDS, "6s", ["6-6"], dealer=0) == (5, "play", 1, "6-6")
    # the error writes the tile high end first
    assert error(FM_BIDS, "6s", ["4-6"], dealer=0) == (5, "play", 1, "6-4")


def test_play_where_contract_is_due_is_an_error_of_phase_declare():
    assert error(["30", "pass", "pass", "pass"], None, ["6-6"]) == (4, "declare", 0, "6-6")


def test_trump_suit_double_is_the_highest_trump():
    out = run(FM_BIDS, "4s", ["4-4", "4-0", "0-0", "6-4"], dealer=0)
    assert out["tricks"][0]["winner"] == 1 and out["tricks"][0]["points"] == 11


def test_trumps_rank_by_their_other_end():
    out = run(FM_BIDS, "4s", ["5-4", "4-3", "0-0", "6-4"], dealer=0)
    assert out["tricks"][0]["winner"] == 0  # 6-4 > 5-4 > 4-3


def test_trick_winner_leads_next_trick():
    out = run(FM_BIDS, "4s", ["5-4", "4-3", "0-0", "6-4"], dealer=0)
    assert out["phase"] == "play" and out["to_move"] == 0
    assert out["legal"] == ["6-0", "6-1", "6-2", "6-3", "6-5", "6-6"]


def test_doubles_trump_led_double_calls_trumps_ranked_by_pips():
    out = run(FM_BIDS, "doubles", ["4-4"], dealer=0)
    assert out["legal"] == ["3-3"]
    out = run(FM_BIDS, "doubles", ["4-4", "3-3", "0-0", "6-6"], dealer=0)
    assert out["tricks"][0]["winner"] == 0  # 6-6 highest double


def test_doubles_trump_double_does_not_follow_its_number():
    # dealer 1: seat 2 names doubles and leads 4-3 (4s); seat 1 holds 5-4 and 4-4 (a trump)
    bids = ["30", "pass", "pass", "pass"]
    out = run(bids, "doubles", ["4-3", "2-1", "6-4"], dealer=1)
    assert out["to_move"] == 1 and out["legal"] == ["5-4"]
    assert error(bids, "doubles", ["4-3", "2-1", "6-4", "4-4"], dealer=1) == (8, "play", 1, "4-4")


def test_doubles_trump_a_double_beats_the_led_suit():
    # 5-4 led (5s); seat 2 has no five and trumps with 3-3; seat 0 must follow 6-5
    out = run(FM_BIDS, "doubles", ["5-4", "3-3", "2-1", "6-5"], dealer=0)
    assert out["tricks"][0]["winner"] == 2


def test_tiles_may_be_written_either_way_round():
    out = run(["37", "pass", "pass", "pass"], "6s", ["6-6", "5-5", "1-4", "1-2"])
    assert out["tricks"][0]["plays"] == ["6-6", "5-5", "4-1", "2-1"]
    assert out["tricks"][0]["points"] == 16


# ---------------------------------------------------------------------------------- points, made, set
# dealer 3, seat 0 bids and names 6s (it holds every six) unless said otherwise

MADE_PLAYS = ["6-6", "5-5", "4-1", "2-1",   # 1 + 10 + 5 = 16
              "6-4", "5-0", "3-2", "1-0"]   # 1 + 10 + 5 + 5 = 21


def test_points_bid_made_once_bidding_team_reaches_bid():
    one = run(["37", "pass", "pass", "pass"], "6s", MADE_PLAYS[:4])
    assert one["points"] == [16, 0] and one["made"] is None and one["complete"] is False
    out = run(["37", "pass", "pass", "pass"], "6s", MADE_PLAYS)
    assert out["points"] == [37, 0] and out["made"] is True and out["complete"] is True
    assert out["marks"] == [1, 0] and out["score"] == [1, 0]


def test_points_bid_set_when_other_team_passes_42_minus_bid():
    # bid 36 in 5s: set once team 1 holds more than 6.
    # trick 1: 6-0 led (6s), seat 1 trumps with 5-1, 4-1 and 1-0 follow anyhow: 1 + 5 = 6
    # trick 2: seat 1 leads 5-5, seat 0 must trump with 6-5 but 5-5 is higher: 1 + 10 = 11
    plays = ["6-0", "5-1", "4-1", "1-0", "5-5", "4-3", "2-0", "6-5"]
    one = run(["36", "pass", "pass", "pass"], "5s", plays[:4])
    assert one["tricks"][0]["winner"] == 1
    assert one["points"] == [0, 6] and one["made"] is None and one["complete"] is False
    out = run(["36", "pass", "pass", "pass"], "5s", plays)
    assert out["points"] == [0, 17] and out["made"] is False and out["complete"] is True
    assert out["marks"] == [0, 1] and out["score"] == [0, 1]


SIX_TRICK_COLUMNS = (["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
                     ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
                     ["4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"],
                     ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"])


def test_marks_bid_needs_all_seven_tricks():
    plays = tricks_of(*SIX_TRICK_COLUMNS)
    six = run(["2m", "pass", "pass", "pass"], "6s", plays[:24])
    assert six["points"] == [41, 0]  # every point but the last trick's one
    assert six["made"] is None and six["complete"] is False and six["marks"] == [0, 0]
    out = run(["2m", "pass", "pass", "pass"], "6s", plays)
    assert out["made"] is True and out["points"] == [42, 0]
    assert out["marks"] == [2, 0] and out["score"] == [2, 0]


def test_mark_bid_set_by_first_trick_other_team_takes():
    out = run(["2m", "pass", "pass", "pass"], "5s", ["6-0", "5-1", "4-1", "1-0"])
    assert out["tricks"][0]["winner"] == 1
    assert out["made"] is False and out["complete"] is True and out["marks"] == [0, 2]


def test_play_out_plays_every_trick_with_result_fixed_when_decided():
    bids = ["37", "pass", "pass", "pass"]
    two = run(bids, "6s", MADE_PLAYS, play_out=True)
    assert two["made"] is True and two["complete"] is False
    assert two["marks"] == [1, 0] and two["score"] == [1, 0]
    assert two["phase"] == "play" and two["to_move"] == 0
    rest = tricks_of(["6-5", "6-3", "6-2", "6-1", "6-0"], ["5-4", "5-3", "5-2", "5-1", "4-4"],
                     ["4-3", "4-2", "4-0", "3-3", "3-1"], ["3-0", "2-2", "2-0", "1-1", "0-0"])
    out = run(bids, "6s", MADE_PLAYS + rest, play_out=True)
    assert out["complete"] is True and len(out["tricks"]) == 7
    assert out["points"] == [42, 0] and out["made"] is True
    assert out["marks"] == [1, 0] and out["score"] == [1, 0]


# ---------------------------------------------------------------------------------- points scoring

def test_points_scoring_made_points_bid_scores_its_points():
    out = run(["37", "pass", "pass", "pass"], "6s", MADE_PLAYS, scoring="points")
    assert out["made"] is True and out["marks"] == [1, 0] and out["score"] == [37, 0]


def test_points_scoring_set_points_bid_scores_bid_to_other_team():
    plays = ["6-0", "5-1", "4-1", "1-0", "5-5", "4-3", "2-0", "6-5"]
    out = run(["36", "pass", "pass", "pass"], "5s", plays, scoring="points")
    assert out["made"] is False and out["score"] == [0, 36]


def test_points_scoring_mark_bid_is_worth_42_per_mark():
    out = run(["2m", "pass", "pass", "pass"], "5s", ["6-0", "5-1", "4-1", "1-0"],
              scoring="points")
    assert out["made"] is False and out["marks"] == [0, 2] and out["score"] == [0, 84]


def test_points_scoring_plunge_is_worth_42_per_mark():
    out = run(["30", "pass", "pass", "plunge"], "5s", PLUNGE_SET_PLAYS, hands=PLUNGE_HANDS,
              scoring="points")
    assert out["made"] is False and out["marks"] == [4, 0] and out["score"] == [168, 0]


def test_points_scoring_nello_is_worth_42_per_mark():
    out = run(NELLO_BIDS, "nello", ["2-2", "6-2", "4-2"], dealer=2, scoring="points")
    assert out["made"] is False and out["score"] == [42, 0]


# ---------------------------------------------------------------------------------- whole games

def _ids(hands):
    return np.array([[T.mask_of(T.parse_tile(t) for t in h) for h in hands]], dtype=np.uint64)


def _act(game, st, name):
    game.step(st, np.array([game.actions.id(name)]))


def _first_legal(game, st):
    game.step(st, np.array([int(np.flatnonzero(st.legal[0])[0])]))


def _team0_bids_2m_and_makes_it(game, st):
    """Replace the table's deal by BASE (seat 0 holds every six, same dealer); seat 0 bids 2m,
    the others pass; seat 0 names 6s and takes every trick whatever anyone plays."""
    game.set_hands(st, [0], _ids(BASE), int(st.dealer[0]))
    while st.phase[0] == BIDDING:
        _act(game, st, "2m" if st.to_move[0] == 0 else "pass")
    _act(game, st, "6s")
    while st.phase[0] == PLAYING:
        _first_legal(game, st)


def _play_game_of_2m_hands(rules, n_hands):
    game = Game(rules)
    st = game.reset(1, seed=11)
    history = []
    for hand in range(n_hands):
        if hand:
            game.next_hand(st)
        _team0_bids_2m_and_makes_it(game, st)
        history.append((int(st.phase[0]), st.score[0].tolist(), int(st.winner[0])))
    return game, st, history


def test_game_ends_when_team_reaches_target_in_marks():
    game, st, history = _play_game_of_2m_hands(RulesConfig.make(), 4)
    # 2 marks a hand: 2, 4, 6 (< 7: the game goes on), then 8
    assert history[:3] == [(HAND_OVER, [2, 0], -1), (HAND_OVER, [4, 0], -1),
                           (HAND_OVER, [6, 0], -1)]
    assert history[3] == (GAME_OVER, [8, 0], 0)
    with pytest.raises(ValueError):
        game.next_hand(st, [0])


def test_game_ends_at_target_points_in_points_scoring():
    game, st, history = _play_game_of_2m_hands(RulesConfig.make(scoring="points"), 3)
    # 84 points a hand: 84, 168 (< 250), 252
    assert history == [(HAND_OVER, [84, 0], -1), (HAND_OVER, [168, 0], -1),
                       (GAME_OVER, [252, 0], 0)]


def test_target_option_is_reached_by_an_equal_score():
    game, st, history = _play_game_of_2m_hands(RulesConfig.make(target=6), 3)
    assert history == [(HAND_OVER, [2, 0], -1), (HAND_OVER, [4, 0], -1),
                       (GAME_OVER, [6, 0], 0)]


def test_deal_passes_left_after_each_hand():
    game = Game(RulesConfig.make())
    st = game.reset(1, seed=5)
    d = int(st.dealer[0])
    assert int(st.to_move[0]) == (d + 1) % 4
    for hand in range(1, 6):
        while st.phase[0] < HAND_OVER:  # lowest legal action: everyone passes, dealer bids 30
            _first_legal(game, st)
        assert st.phase[0] == HAND_OVER
        game.next_hand(st)
        assert int(st.hand_no[0]) == hand
        assert int(st.dealer[0]) == (d + hand) % 4
        assert int(st.to_move[0]) == (d + hand + 1) % 4 and st.phase[0] == BIDDING


def test_thrown_in_hand_under_redeal_scores_nothing_and_next_dealer_deals():
    game = Game(RulesConfig.make(all_pass="redeal"))
    st = game.reset(1, seed=8)
    d = int(st.dealer[0])
    for _ in range(4):
        _act(game, st, "pass")
    assert st.phase[0] == HAND_OVER and st.score[0].tolist() == [0, 0]
    assert int(st.made[0]) == -1 and int(st.bidder[0]) == -1
    game.next_hand(st)
    assert int(st.dealer[0]) == (d + 1) % 4 and int(st.to_move[0]) == (d + 2) % 4
    assert st.phase[0] == BIDDING and st.score[0].tolist() == [0, 0]


def test_deal_gives_each_seat_seven_of_the_28_tiles():
    game = Game(RulesConfig.make())
    st = game.reset(16, seed=3)
    for b in range(16):
        hands = [game.hand_tiles(st, b, s) for s in range(4)]
        assert [len(h) for h in hands] == [7, 7, 7, 7]
        assert sorted(t for h in hands for t in h) == list(range(28))


def test_deals_reproducible_by_seed_game_and_hand_whatever_the_batch_size():
    game = Game(RulesConfig.make(all_pass="redeal"))
    one = game.reset(1, seed=42, game_ids=[7])
    many = game.reset(5, seed=42, game_ids=[3, 9, 7, 0, 1])
    assert (one.dealt[0] == many.dealt[2]).all()
    assert one.dealer[0] == many.dealer[2]
    hand0 = one.dealt[0].copy()
    for _ in range(4):  # throw every hand in
        game.step(one, np.zeros(1, np.int64))
        game.step(many, np.zeros(5, np.int64))
    game.next_hand(one)
    game.next_hand(many)
    assert (one.dealt[0] == many.dealt[2]).all()
    assert not (one.dealt[0] == hand0).all()  # a new hand is a new deal
    again = game.reset(3, seed=42, game_ids=[7, 7, 8])
    assert (again.dealt[0] == hand0).all() and (again.dealt[1] == hand0).all()
    assert not (again.dealt[2] == hand0).all()
    other_seed = game.reset(1, seed=43, game_ids=[7])
    assert not (other_seed.dealt[0] == hand0).all()


def test_holder_of_1_0_bids_first_in_every_dealt_hand():
    game = Game(RulesConfig.make(first_bidder="holder_of_1_0", all_pass="redeal"))
    st = game.reset(8, seed=21)
    one_zero = T.parse_tile("1-0")
    for hand in range(3):
        if hand:
            for _ in range(4):
                game.step(st, np.zeros(8, np.int64))
            game.next_hand(st)
        for b in range(8):
            holder = [s for s in range(4) if one_zero in game.hand_tiles(st, b, s)]
            assert int(st.to_move[b]) == holder[0]
