"""Hand-worked scenarios of the six-player game ("Texas 88", ruleset ``six-player``), one rule
each. Every expected value was worked out by hand from ``shared/spec/rules.md`` ("The six-player
game") and ``shared/spec/game-record.md`` (records with ``cat`` and ``exchange``, the replay
output), never copied from the code's output.

Most tests replay a one-hand record; the ones about whole games and dealing drive
``texas42_env.core.Game`` directly.

The deal most records use (``EX``: the spec's worked six-player examples), dealer 5, so the
bidding goes 0, 1, 2, 3, 4, 5 (teams: 0, 2, 4 against 1, 3, 5)::

    seat 0: 6-6 6-6 5-5 6-4 3-2 2-1 1-0 0-0 4-4   counts 5-5 6-4 3-2; every number held
    seat 1: 6-5 6-5 5-4 5-4 4-2 4-2 2-2 2-0 1-1   no 3; doubles 2-2 1-1; no count tile
    seat 2: 6-3 6-3 6-2 6-2 6-1 6-1 6-0 6-0 5-3   no 4, no double
    seat 3: 6-4 5-5 5-3 5-2 5-2 5-1 5-1 5-0 4-4
    seat 4: 4-3 4-3 4-1 4-1 4-0 4-0 3-3 3-3 3-2   no 5, no 6
    seat 5: 3-1 3-0 3-0 2-2 2-1 2-0 1-1 1-0 0-0   no 4, 5, 6
    cat:    5-0 3-1

With sixes trump and seat 0's exchange take 5-0 / discard 1-0, two tricks worked by hand:

    T1 (seat 0 leads 5-5, calls 5s): 5-5 5-4 5-3 5-5 4-0 0-0 -> seat 0 (first of the two
       5-5s), 2 + 10 + 10 = 22 points to team 0
    T2 (seat 0 leads 6-4, trump):    6-4 6-5 6-0 6-4 4-3 1-0 -> seat 1 (6-5 is the best
       trump), 2 + 10 + 10 = 22 points to team 1

Record action indexes count the bids (0..5), the contract (6), the exchange (7), then plays.
"""

from __future__ import annotations

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.core import BIDDING, EXCHANGING, GAME_OVER, HAND_OVER, PLAYING, Game
from texas42_env.records import (RecordError, instance_masks, parse_record, record_from_state,
                                 replay)
from texas42_env.rules import DEFAULTS, ConfigError, RulesConfig, preset

# ---------------------------------------------------------------------------------- deals
EX = (
    ("6-6", "6-6", "5-5", "6-4", "3-2", "2-1", "1-0", "0-0", "4-4"),
    ("6-5", "6-5", "5-4", "5-4", "4-2", "4-2", "2-2", "2-0", "1-1"),
    ("6-3", "6-3", "6-2", "6-2", "6-1", "6-1", "6-0", "6-0", "5-3"),
    ("6-4", "5-5", "5-3", "5-2", "5-2", "5-1", "5-1", "5-0", "4-4"),
    ("4-3", "4-3", "4-1", "4-1", "4-0", "4-0", "3-3", "3-3", "3-2"),
    ("3-1", "3-0", "3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"),
)
EX_CAT = ("5-0", "3-1")
PASS5 = ["pass"] * 5
T1 = ["5-5", "5-4", "5-3", "5-5", "4-0", "0-0"]
T2 = ["6-4", "6-5", "6-0", "6-4", "4-3", "1-0"]
TAKE_50 = {"take": ["5-0"], "discard": ["1-0"]}
KEEP = {"take": [], "discard": []}
LEVELS = list(range(60, 89, 2)) + [176, 264, 352]
TRUMPS = [f"{s}s" for s in range(7)] + ["doubles", "follow-me"]

# A count-heavy winner: seat 0 holds eight count tiles and one non-count tile (0-0), the cat
# holds both 5-5s, so only one 5-5 can be taken and 10 points stay in the cat.
CC = (
    ("5-0", "5-0", "4-1", "4-1", "3-2", "3-2", "6-4", "6-4", "0-0"),
    ("2-2", "4-0", "4-2", "4-3", "5-1", "5-4", "6-2", "6-5", "6-6"),
    ("1-0", "2-1", "2-1", "3-3", "4-0", "6-0", "6-1", "6-2", "6-3"),
    ("2-0", "3-0", "3-1", "4-3", "4-4", "4-4", "5-1", "5-2", "6-0"),
    ("0-0", "1-1", "2-2", "4-2", "5-2", "5-3", "6-1", "6-3", "6-6"),
    ("1-0", "1-1", "2-0", "3-0", "3-1", "3-3", "5-3", "5-4", "6-5"),
)
CC_CAT = ("5-5", "5-5")
# A full hand of the CC deal under 60:6s (every play legal; checked trick by trick: team 0 =
# seats 0, 2, 4 takes tricks 1, 2, 5, 6, 7, 8 = 7+12+7+7+12+7 = 52, team 1 takes tricks 3, 4,
# 9 = 12+7+7 = 26; 52 + 26 = 78 = 88 - the 10 of the 5-5 left in the cat).
CC_PLAYS = [
    "3-2", "4-3", "3-3", "4-3", "5-3", "3-0",
    "6-2", "6-0", "6-6", "6-5", "6-4", "6-2",
    "6-3", "1-0", "6-4", "6-5", "6-0", "2-0",
    "2-2", "2-1", "5-2", "5-2", "2-0", "3-2",
    "5-4", "1-0", "5-1", "6-1", "5-4", "5-0",
    "0-0", "5-3", "5-0", "4-0", "4-0", "3-0",
    "2-2", "3-3", "5-5", "4-2", "2-1", "3-1",
    "1-1", "1-1", "4-1", "5-1", "6-1", "4-4",
    "6-3", "4-4", "4-2", "3-1", "4-1", "6-6",
]


# A sweep: seat 0 holds nine sixes, seats 2 and 4 the five other sixes, seats 1, 3, 5 none; the
# cat (1-1 0-0) has no count, so seat 0 keeps. Under sixes seat 0 leads its trumps from the top
# and wins every trick (partners must follow with their lower trumps while they have them).
SW = (
    ("6-6", "6-6", "6-5", "6-5", "6-4", "6-4", "6-3", "6-3", "6-2"),
    ("5-5", "5-5", "5-4", "5-4", "5-3", "5-3", "5-2", "5-2", "5-1"),
    ("6-2", "6-1", "6-0", "3-1", "3-0", "3-0", "2-2", "2-2", "2-1"),
    ("5-1", "5-0", "5-0", "4-4", "4-4", "4-3", "4-3", "4-2", "4-2"),
    ("6-1", "6-0", "2-1", "2-0", "2-0", "1-0", "1-0", "1-1", "0-0"),
    ("4-1", "4-1", "4-0", "4-0", "3-3", "3-3", "3-2", "3-2", "3-1"),
)
SW_CAT = ("1-1", "0-0")
SW_TRICKS = [  # (plays from seat 0, points) -- every trick to seat 0
    (["6-6", "5-5", "6-2", "5-0", "6-1", "4-1"], 22),  # 2 + 5-5 + 5-0 + 4-1
    (["6-6", "5-5", "6-1", "5-0", "6-0", "4-1"], 22),  # the second 6-6 wins too
    (["6-5", "5-4", "6-0", "4-4", "2-1", "3-2"], 7),
    (["6-5", "5-4", "3-1", "4-4", "2-0", "3-2"], 7),
    (["6-4", "5-3", "3-0", "4-3", "2-0", "4-0"], 12),
    (["6-4", "5-3", "3-0", "4-3", "1-0", "4-0"], 12),
    (["6-3", "5-2", "2-2", "4-2", "1-0", "3-3"], 2),
    (["6-3", "5-2", "2-2", "4-2", "1-1", "3-3"], 2),
    (["6-2", "5-1", "2-1", "5-1", "0-0", "3-1"], 2),
]  # 22 + 22 + 7 + 7 + 12 + 12 + 2 + 2 + 2 = 88


def sweep_record(bid, n_tricks, **options):
    plays = [t for p, _ in SW_TRICKS[:n_tricks] for t in p]
    return record(bids=[bid] + PASS5, contract="6s", exchange=KEEP, plays=plays, hands=SW,
                  cat=SW_CAT, **options)


def swap_in(hands, seat, old, new):
    """``hands`` with one ``old`` of ``seat`` replaced by ``new``."""
    out = [list(h) for h in hands]
    out[seat][out[seat].index(old)] = new
    return out


def record(bids=(), contract=None, exchange=None, plays=(), dealer=5, hands=EX, cat=EX_CAT,
           **options):
    rec = {"format": "texas42-record/1", "ruleset": "six-player", "dealer": dealer,
           "hands": [list(h) for h in hands], "bids": list(bids), "plays": list(plays)}
    if cat is not None:
        rec["cat"] = list(cat)
    if contract is not None:
        rec["contract"] = contract
    if exchange is not None:
        rec["exchange"] = exchange
    if options:
        rec["options"] = options
    return rec


def run(rec) -> dict:
    return replay(parse_record(rec))


def error(rec) -> dict:
    out = run(rec)
    assert out["ok"] is False, out
    assert out["error"]["reason"]
    return out["error"]


def exchanges(out) -> list:
    """The legal exchanges of a replay result, in one order."""
    return sorted((sorted(x["take"]), sorted(x["discard"])) for x in out["legal"])


def bids_of(trumps, above=0):
    return {f"{lv}:{t}" for lv in LEVELS if lv > above for t in trumps}


# ---------------------------------------------------------------------------------- bidding
def test_six_bid_needs_a_tile_of_its_trump():
    # seat 1 holds no 3: it may not bid threes (at any level); it may bid the other suits
    out = run(record(bids=["60:6s"]))
    assert out["to_move"] == 1 and out["phase"] == "bid"
    assert set(out["legal"]) == {"pass"} | bids_of([t for t in TRUMPS if t != "3s"], above=60)
    err = error(record(bids=["60:6s", "62:3s"]))
    assert (err["index"], err["phase"], err["seat"], err["action"]) == (1, "bid", 1, "62:3s")
    # seat 4 holds no 5 and no 6
    out = run(record(bids=["pass"] * 4))
    assert out["to_move"] == 4
    assert set(out["legal"]) == {"pass"} | bids_of(["0s", "1s", "2s", "3s", "4s", "doubles",
                                                    "follow-me"])


def test_six_doubles_bid_needs_a_double_and_follow_me_needs_nothing():
    # seat 2 holds no double (and no 4): no doubles bid, follow-me always
    out = run(record(bids=["pass", "pass"]))
    assert out["to_move"] == 2
    assert not any(b.endswith(":doubles") or b.endswith(":4s") for b in out["legal"])
    assert "60:follow-me" in out["legal"] and "352:follow-me" in out["legal"]
    err = error(record(bids=["pass", "pass", "60:doubles"]))
    assert (err["index"], err["phase"], err["seat"]) == (2, "bid", 2)
    assert run(record(bids=["pass", "pass", "60:follow-me"]))["to_move"] == 3


def test_six_bid_must_be_higher_in_points_whatever_the_trump():
    err = error(record(bids=["62:6s", "62:5s"]))
    assert (err["index"], err["seat"], err["action"]) == (1, 1, "62:5s")
    err = error(record(bids=["62:6s", "60:5s"]))
    assert err["index"] == 1
    assert run(record(bids=["62:6s", "64:5s"]))["to_move"] == 2
    # 88 then the multiples of 88: 176 is next above 88, and nothing is above 352
    assert "176:6s" in run(record(bids=["88:6s"]))["legal"]
    assert not any(b.startswith("90:") for b in run(record(bids=["88:6s"]))["legal"])
    assert run(record(bids=["352:follow-me"]))["legal"] == ["pass"]


def test_six_bidding_goes_round_once_from_dealers_left():
    # dealer 2: seats 3, 4, 5, 0, 1, 2 bid; the highest bid wins
    out = run(record(bids=["60:3s", "pass", "64:0s", "66:6s", "pass", "pass"], dealer=2))
    assert (out["bidder"], out["bid"], out["declarer"]) == (0, "66:6s", 0)
    assert (out["phase"], out["to_move"], out["legal"]) == ("declare", 0, ["6s"])


def test_six_forced_dealer_must_bid_60():
    out = run(record(bids=PASS5))
    assert out["to_move"] == 5 and "pass" not in out["legal"]
    # seat 5 holds 0s, 1s, 2s, 3s and doubles, no 4, 5 or 6
    assert set(out["legal"]) == bids_of(["0s", "1s", "2s", "3s", "doubles", "follow-me"])
    err = error(record(bids=PASS5 + ["pass"]))
    assert (err["index"], err["phase"], err["seat"], err["action"]) == (5, "bid", 5, "pass")
    out = run(record(bids=PASS5 + ["60:1s"]))
    assert (out["bidder"], out["bid"], out["phase"]) == (5, "60:1s", "declare")


def test_six_redeal_throws_the_hand_in_and_the_deal_passes_left():
    out = run(record(bids=PASS5 + ["pass"], all_pass="redeal"))
    assert out == {"ok": True, "complete": True, "bidder": None, "bid": None, "declarer": None,
                   "contract": None, "tricks": [], "points": [0, 0], "made": None,
                   "marks": [0, 0], "score": [0, 0]}
    game = Game(RulesConfig.make("six-player", all_pass="redeal"))
    st = game.reset(2, seed=11)
    dealers = st.dealer.copy()
    for _ in range(6):
        game.step(st, np.zeros(2, np.int64))
    assert (st.phase == HAND_OVER).all() and (st.score == 0).all()
    game.next_hand(st)
    assert st.dealer.tolist() == ((dealers + 1) % 6).tolist()
    assert st.to_move.tolist() == ((dealers + 2) % 6).tolist()
    assert (st.phase == BIDDING).all() and st.hand_no.tolist() == [1, 1]


# ---------------------------------------------------------------------------------- contract
def test_six_contract_must_be_the_winning_bids():
    out = run(record(bids=["60:6s"] + PASS5))
    assert (out["phase"], out["to_move"], out["legal"]) == ("declare", 0, ["6s"])
    err = error(record(bids=["60:6s"] + PASS5, contract="5s"))
    assert (err["index"], err["phase"], err["seat"], err["action"]) == (6, "declare", 0, "5s")
    err = error(record(bids=["pass", "70:doubles"] + ["pass"] * 4, contract="follow-me"))
    assert (err["index"], err["phase"], err["seat"]) == (6, "declare", 1)
    for c in ("nello", "sevens"):
        assert error(record(bids=["60:6s"] + PASS5, contract=c))["index"] == 6
    out = run(record(bids=["pass", "70:doubles"] + ["pass"] * 4, contract="doubles"))
    assert (out["contract"], out["phase"], out["to_move"]) == ("doubles", "exchange", 1)


# ---------------------------------------------------------------------------------- exchange
def test_six_count_in_cat_must_be_taken():
    bids = ["60:6s"] + PASS5
    # the spec's example: 5-0 (count) must be taken, 3-1 may be; discards: 6-6 (x2), 4-4, 2-1,
    # 1-0, 0-0, the non-count tiles of the hand: 5 singles + 10 pairs + 6-6 6-6 = 16
    out = run(record(bids=bids, contract="6s"))
    assert out["phase"] == "exchange" and out["to_move"] == 0
    ex = exchanges(out)
    assert len(ex) == 16 and all("5-0" in t for t, _ in ex)
    assert (["5-0"], ["6-6"]) in ex and (["3-1", "5-0"], ["6-6", "6-6"]) in ex
    for bad in (KEEP, {"take": ["3-1"], "discard": ["0-0"]}):
        err = error(record(bids=bids, contract="6s", exchange=bad))
        assert (err["index"], err["phase"], err["seat"], err["action"]) == (7, "exchange", 0, bad)


def test_six_both_copies_in_the_cat_must_both_be_taken():
    hands = swap_in(EX, 3, "5-0", "3-1")  # the cat is now 5-0 5-0
    bids = ["60:6s"] + PASS5
    out = run(record(bids=bids, contract="6s", hands=hands, cat=["5-0", "5-0"]))
    ex = exchanges(out)
    assert len(ex) == 11 and all(t == ["5-0", "5-0"] for t, _ in ex)
    err = error(record(bids=bids, contract="6s", hands=hands, cat=["5-0", "5-0"],
                       exchange=TAKE_50))
    assert (err["index"], err["phase"]) == (7, "exchange")


def test_six_keep_is_legal_without_count_in_the_cat_and_twin_may_be_discarded():
    # seat 5 gets 5-0 and the cat holds 1-0 3-1 (no count): seat 0 may keep, take one (2 ways)
    # with one of its 5 non-count kinds, or take both with 11 pairs: 1 + 10 + 11 = 22.
    # Taking 1-0 and discarding the 1-0 seat 0 was dealt is an exchange of its own.
    hands = swap_in(EX, 5, "1-0", "5-0")
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", hands=hands, cat=["1-0", "3-1"]))
    ex = exchanges(out)
    assert len(ex) == 22 and ([], []) in ex and (["1-0"], ["1-0"]) in ex
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", hands=hands, cat=["1-0", "3-1"],
                     exchange=KEEP))
    assert (out["phase"], out["to_move"]) == ("play", 0)
    assert out["legal"] == sorted(set(EX[0]))


def test_six_discard_may_not_be_count():
    bids = ["60:6s"] + PASS5
    for bad in ({"take": ["5-0"], "discard": ["3-2"]}, {"take": ["5-0"], "discard": ["5-5"]},
                {"take": ["3-1", "5-0"], "discard": ["6-4", "0-0"]}):
        err = error(record(bids=bids, contract="6s", exchange=bad))
        assert (err["index"], err["phase"], err["seat"], err["action"]) == (7, "exchange", 0, bad)


def test_six_discards_come_from_the_hand_as_dealt():
    bids = ["60:6s"] + PASS5
    # 3-1 was taken from the cat, not dealt to seat 0; 2-2 is not seat 0's at all
    for bad in ({"take": ["3-1", "5-0"], "discard": ["3-1", "0-0"]},
                {"take": ["5-0"], "discard": ["2-2"]},
                {"take": ["3-1", "5-0"], "discard": ["2-1", "2-1"]}):  # seat 0 holds one 2-1
        err = error(record(bids=bids, contract="6s", exchange=bad))
        assert (err["index"], err["phase"]) == (7, "exchange"), bad


def test_six_as_many_discarded_as_taken_from_the_cat():
    bids = ["60:6s"] + PASS5
    for bad in ({"take": ["5-0"], "discard": []}, {"take": ["5-0"], "discard": ["0-0", "1-0"]},
                {"take": ["5-0", "6-6"], "discard": ["0-0", "1-0"]},  # 6-6 is not in the cat
                {"take": ["5-0", "3-1", "5-0"], "discard": ["0-0", "1-0", "2-1"]},
                {"take": ["5-0", "7-7"], "discard": ["0-0", "1-0"]}):  # not a tile: illegal
        err = error(record(bids=bids, contract="6s", exchange=bad))
        assert (err["index"], err["phase"], err["seat"]) == (7, "exchange", 0), bad


def test_six_exchange_changes_the_hand_and_the_winner_leads():
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50))
    assert (out["phase"], out["to_move"], out["tricks"]) == ("play", 0, [])
    # seat 0's tiles: its hand as dealt, less 1-0, plus 5-0
    assert out["legal"] == ["0-0", "2-1", "3-2", "4-4", "5-0", "5-5", "6-4", "6-6"]
    err = error(record(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50, plays=["1-0"]))
    assert (err["index"], err["phase"], err["seat"], err["action"]) == (8, "play", 0, "1-0")
    # a winner who is not the first bidder: seat 1 takes 5-0 for 1-1 and leads
    out = run(record(bids=["pass", "60:5s"] + ["pass"] * 4, contract="5s",
                     exchange={"take": ["5-0"], "discard": ["1-1"]}))
    assert (out["bidder"], out["declarer"], out["to_move"]) == (1, 1, 1)
    assert out["legal"] == ["2-0", "2-2", "4-2", "5-0", "5-4", "6-5"]


def test_six_count_left_in_cat_when_hand_has_too_few_non_count_tiles():
    # one non-count tile (0-0): one 5-5 is taken, the other stays in the cat
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", hands=CC, cat=CC_CAT))
    assert out["legal"] == [{"take": ["5-5"], "discard": ["0-0"]}]
    # nine count tiles: nothing can be discarded, so the hand is kept
    hands9 = swap_in(CC, 0, "0-0", "5-5")
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", hands=hands9, cat=["5-5", "0-0"]))
    assert out["legal"] == [KEEP]
    err = error(record(bids=["60:6s"] + PASS5, contract="6s", hands=hands9,
                       cat=["5-5", "0-0"], exchange={"take": ["0-0"], "discard": ["5-0"]}))
    assert (err["index"], err["phase"]) == (7, "exchange")


def test_six_cat_scores_nothing_and_unreachable_points_bid_is_set_after_last_trick():
    # 10 points stay in the cat: the hand holds 78. Team 0 ends with 52 < 60, team 1 with 26,
    # never more than 88 - 60 = 28: the bid is decided only by the end of the hand, and a points
    # bid is made only with at least the bid's points -> set; team 1 scores the bid's 60.
    for play_out in (False, True):
        opts = {"play_out": True} if play_out else {}
        out = run(record(bids=["60:6s"] + PASS5, contract="6s", hands=CC, cat=CC_CAT,
                         exchange={"take": ["5-5"], "discard": ["0-0"]}, plays=CC_PLAYS, **opts))
        assert out["ok"] and out["complete"]
        assert len(out["tricks"]) == 9 and all(len(t["plays"]) == 6 for t in out["tricks"])
        assert out["points"] == [52, 26] and sum(out["points"]) == 78
        assert (out["made"], out["marks"], out["score"]) == (False, [0, 1], [0, 60]), out


# ---------------------------------------------------------------------------------- play
def test_six_identical_tiles_first_played_wins():
    # T1: seat 0's 5-5 and seat 3's 5-5 (the other team) are the best of 5s: seat 0 played first
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50, plays=T1))
    assert out["tricks"] == [{"leader": 0, "plays": T1, "winner": 0, "points": 22}]
    assert out["points"] == [22, 0] and out["to_move"] == 0
    # the same tiles in the other order: seat 3 leads 5-5 first and wins against seat 0's copy
    # (dealer 2: seat 3 bids 60:5s, and leads 5-5 after taking 5-0 for 4-4)
    plays = ["5-5", "3-2", "3-1", "5-5", "5-4", "5-3"]
    out = run(record(bids=["60:5s"] + PASS5, dealer=2, contract="5s",
                     exchange={"take": ["5-0"], "discard": ["4-4"]}, plays=plays))
    # 5s trump: seat 4 has no 5 (3-2), seat 5 none (3-1), seat 0 5-5, seat 1 5-4, seat 2 5-3
    assert out["tricks"] == [{"leader": 3, "plays": plays, "winner": 3, "points": 27}]
    assert out["points"] == [0, 27]


def test_six_must_follow_the_led_suit_and_led_tile_calls_its_higher_end():
    # seat 0 leads 2-1 under sixes: it calls 2s (not 1s); seat 1 must play a 2 that is not a trump
    base = dict(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50)
    out = run(record(plays=["2-1"], **base))
    assert (out["to_move"], out["legal"]) == (1, ["2-0", "2-2", "4-2"])
    err = error(record(plays=["2-1", "1-1"], **base))
    assert (err["index"], err["phase"], err["seat"], err["action"]) == (9, "play", 1, "1-1")


def test_six_trump_tile_is_not_of_its_other_suit():
    # 6-2 is a trump under sixes, so seat 2 (whose only 2 is 6-2) cannot follow 2s: any tile
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50,
                     plays=["2-1", "2-2"]))
    assert (out["to_move"], out["legal"]) == (2, ["5-3", "6-0", "6-1", "6-2", "6-3"])
    # and a trump led calls for trumps: seat 1 must play 6-5 on 6-4
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50, plays=T1 + ["6-4"]))
    assert (out["to_move"], out["legal"]) == (1, ["6-5"])


def test_six_trump_beats_the_led_suit_and_best_trump_wins():
    out = run(record(bids=["88:6s"] + PASS5, contract="6s", exchange=TAKE_50, plays=T1 + T2))
    assert out["tricks"][1] == {"leader": 0, "plays": T2, "winner": 1, "points": 22}


def test_six_doubles_contract_doubles_are_trumps():
    # seat 0 bids doubles and leads 6-6: seat 1 must play a double, seat 2 (none) anything
    base = dict(bids=["60:doubles"] + PASS5, contract="doubles", exchange=TAKE_50)
    out = run(record(plays=["6-6"], **base))
    assert out["legal"] == ["1-1", "2-2"]
    out = run(record(plays=["6-6", "2-2"], **base))
    assert out["legal"] == ["5-3", "6-0", "6-1", "6-2", "6-3"]


@pytest.mark.parametrize("fmd, seat1, seat2", [
    ("high", ["6-5"], ["6-0", "6-1", "6-2", "6-3"]),
    ("own_suit", ["1-1", "2-2"], ["5-3", "6-0", "6-1", "6-2", "6-3"]),
])
def test_six_follow_me_doubles_option(fmd, seat1, seat2):
    # follow-me: 6-6 led calls 6s (high) or doubles (own_suit)
    opts = {} if fmd == "high" else {"follow_me_doubles": fmd}
    base = dict(bids=["60:follow-me"] + PASS5, contract="follow-me", exchange=TAKE_50, **opts)
    assert run(record(plays=["6-6"], **base))["legal"] == seat1
    assert run(record(plays=["6-6", seat1[0]], **base))["legal"] == seat2


def test_six_teams_alternate_seats_0_2_4_against_1_3_5():
    # dealer 3: seat 4 bids 60:3s, takes 5-0 for 4-0, leads 3-3 (the top trump): everyone with
    # a three must follow; seat 4 (team 0) wins 2 + 5 (3-2) = 7 for team 0
    plays = ["3-3", "3-1", "3-2", "1-1", "6-3", "5-3"]
    out = run(record(bids=["60:3s"] + PASS5, dealer=3, contract="3s",
                     exchange={"take": ["5-0"], "discard": ["4-0"]}, plays=plays))
    assert (out["bidder"], out["declarer"]) == (4, 4)
    assert out["tricks"] == [{"leader": 4, "plays": plays, "winner": 4, "points": 7}]
    assert out["points"] == [7, 0]
    # T2 is won by seat 1: its 22 points go to team 1 (seats 1, 3, 5)
    out = run(record(bids=["66:6s"] + PASS5, contract="6s", exchange=TAKE_50, plays=T1 + T2))
    assert out["points"] == [22, 22] and out["tricks"][1]["winner"] == 1


# ---------------------------------------------------------------------------------- results
def test_six_points_bid_set_when_other_team_passes_88_minus_bid():
    base = dict(contract="6s", exchange=TAKE_50, plays=T1 + T2)
    # 66: team 1 has 22, not more than 88 - 66 = 22: undecided, the hand goes on
    out = run(record(bids=["66:6s"] + PASS5, **base))
    assert (out["complete"], out["made"], out["score"], out["to_move"]) == (False, None, [0, 0], 1)
    # 68: 22 > 20: set; team 1 scores the bid's 68 (default scoring: points), the hand ends
    out = run(record(bids=["68:6s"] + PASS5, **base))
    assert (out["complete"], out["made"], out["marks"], out["score"]) == (True, False, [0, 1],
                                                                          [0, 68])
    assert "to_move" not in out
    err = error(record(bids=["68:6s"] + PASS5, contract="6s", exchange=TAKE_50,
                       plays=T1 + T2 + ["6-5"]))
    assert (err["index"], err["phase"], err["seat"]) == (20, "over", None)


def test_six_play_out_plays_on_with_the_result_fixed():
    out = run(record(bids=["68:6s"] + PASS5, contract="6s", exchange=TAKE_50, plays=T1 + T2,
                     play_out=True))
    assert (out["complete"], out["made"], out["score"]) == (False, False, [0, 68])
    assert (out["phase"], out["to_move"]) == ("play", 1)


def test_six_176_needs_every_trick():
    base = dict(contract="6s", exchange=TAKE_50)
    out = run(record(bids=["176:6s"] + PASS5, plays=T1, **base))
    assert (out["points"], out["made"], out["complete"]) == ([22, 0], None, False)
    out = run(record(bids=["176:6s"] + PASS5, plays=T1 + T2, **base))
    assert (out["complete"], out["made"], out["marks"], out["score"]) == (True, False, [0, 2],
                                                                          [0, 176])
    # 88 is a points bid, but 88 points means every trick: set by the first trick lost
    out = run(record(bids=["88:6s"] + PASS5, plays=T1 + T2, **base))
    assert (out["complete"], out["made"], out["marks"], out["score"]) == (True, False, [0, 1],
                                                                          [0, 88])



def test_six_176_made_after_the_last_trick_when_every_trick_is_taken():
    out = run(sweep_record("176:6s", 8))
    assert (out["complete"], out["made"], out["points"]) == (False, None, [86, 0])
    out = run(sweep_record("176:6s", 9))
    assert [t["winner"] for t in out["tricks"]] == [0] * 9
    assert [t["points"] for t in out["tricks"]] == [p for _, p in SW_TRICKS]
    assert (out["complete"], out["made"], out["points"]) == (True, True, [88, 0])
    assert (out["marks"], out["score"]) == ([2, 0], [176, 0])
    out = run(sweep_record("264:6s", 9, scoring="marks"))
    assert (out["made"], out["marks"], out["score"]) == (True, [3, 0], [3, 0])


def test_six_points_bid_made_once_the_bidding_team_reaches_it():
    # running totals of team 0: 22, 44, 51, 58, 70, ...
    out = run(sweep_record("60:6s", 5))
    assert (out["complete"], out["made"], out["points"], out["score"]) == (True, True, [70, 0],
                                                                           [60, 0])
    assert run(sweep_record("60:6s", 4))["made"] is None
    assert run(sweep_record("70:6s", 5))["made"] is True
    out = run(sweep_record("72:6s", 5))
    assert (out["complete"], out["made"], out["to_move"]) == (False, None, 0)
    # 88 is reached only with the last trick
    assert run(sweep_record("88:6s", 8))["made"] is None
    out = run(sweep_record("88:6s", 9))
    assert (out["made"], out["marks"], out["score"]) == (True, [1, 0], [88, 0])
    # play_out: the made hand goes on to the ninth trick, the result fixed at the fifth
    out = run(sweep_record("60:6s", 5, play_out=True))
    assert (out["complete"], out["made"], out["score"], out["to_move"]) == (False, True, [60, 0], 0)
    out = run(sweep_record("60:6s", 9, play_out=True))
    assert (out["complete"], out["made"], out["points"], out["score"]) == (True, True, [88, 0],
                                                                           [60, 0])
    err = error(sweep_record("60:6s", 6))
    assert (err["index"], err["phase"], err["seat"]) == (8 + 30, "over", None)


@pytest.mark.parametrize("bid, marks", [("68:6s", 1), ("88:6s", 1), ("176:6s", 2),
                                        ("264:6s", 3), ("352:6s", 4)])
def test_six_marks_scoring_k_marks_for_k_times_88(bid, marks):
    base = dict(contract="6s", exchange=TAKE_50, plays=T1 + T2)
    out = run(record(bids=[bid] + PASS5, scoring="marks", **base))
    assert (out["made"], out["marks"], out["score"]) == (False, [0, marks], [0, marks])
    out = run(record(bids=[bid] + PASS5, **base))  # points: the bid's value
    assert (out["marks"], out["score"]) == ([0, marks], [0, int(bid.split(":")[0])])


# ---------------------------------------------------------------------------------- games
def _play_set_hand(game, st, bid):
    """Deal EX at table 0 (dealer 5, score kept), bid ``bid``, and lose T2: set."""
    masks, cat = instance_masks([[T.parse_tile(x) for x in h] for h in EX],
                                [T.parse_tile(x) for x in EX_CAT])
    game.set_hands(st, [0], masks[None, :], 5, cat)
    for name in [bid] + PASS5 + ["6s", "take 5-0", "discard 1-0", "keep"] + T1 + T2:
        a = game.actions.names.index(name)
        assert st.legal[0, a], name
        game.step(st, np.array([a]))


def test_six_points_scoring_to_500():
    game = Game(preset("six-player"))
    assert game.rules.scoring == "points" and game.target == 500
    st = game.reset(1, seed=3)
    _play_set_hand(game, st, "264:6s")
    assert st.score[0].tolist() == [0, 264] and st.phase[0] == HAND_OVER
    _play_set_hand(game, st, "176:6s")
    assert st.score[0].tolist() == [0, 440] and st.phase[0] == HAND_OVER
    _play_set_hand(game, st, "68:6s")
    assert st.score[0].tolist() == [0, 508]
    assert st.phase[0] == GAME_OVER and st.winner[0] == 1


def test_six_marks_scoring_to_7():
    game = Game(RulesConfig.make("six-player", scoring="marks"))
    assert game.target == 7
    st = game.reset(1, seed=3)
    _play_set_hand(game, st, "352:6s")
    assert st.score[0].tolist() == [0, 4] and st.phase[0] == HAND_OVER
    _play_set_hand(game, st, "176:6s")
    assert st.score[0].tolist() == [0, 6] and st.phase[0] == HAND_OVER
    _play_set_hand(game, st, "68:6s")  # a points bid: one mark
    assert st.score[0].tolist() == [0, 7] and st.phase[0] == GAME_OVER and st.winner[0] == 1


def test_six_target_option():
    for target, over in ((176, True), (177, False)):
        game = Game(RulesConfig.make("six-player", target=target))
        st = game.reset(1, seed=0)
        _play_set_hand(game, st, "176:6s")
        assert (st.phase[0] == GAME_OVER) == over


def test_six_deal_six_hands_of_nine_and_a_cat_of_two():
    game = Game(preset("six-player"))
    st = game.reset(3, seed=5)
    assert st.dealt.shape == (3, 6) and game.n_actions == 257
    for b in range(3):
        hands = [int(x) for x in st.dealt[b]]
        cat = int(st.dealt_cat[b])
        assert [h.bit_count() for h in hands] == [9] * 6 and cat.bit_count() == 2
        union = cat
        for h in hands:
            assert union & h == 0
            union |= h
        assert union == (1 << 56) - 1
        tiles = [t % 28 for h in hands + [cat] for t in T.tiles_of(h)]
        assert sorted(tiles) == sorted(list(range(28)) * 2)
    assert (st.to_move == (st.dealer + 1) % 6).all() and (st.phase == BIDDING).all()


def test_six_winner_and_exchange_phase_in_the_core():
    game = Game(preset("six-player"))
    st = game.reset(1, seed=0)
    masks, cat = instance_masks([[T.parse_tile(x) for x in h] for h in EX],
                                [T.parse_tile(x) for x in EX_CAT])
    game.set_hands(st, [0], masks[None, :], 5, cat)
    ids = game.actions.names.index
    for name in ["60:6s"] + PASS5 + ["6s"]:
        game.step(st, np.array([ids(name)]))
    assert st.phase[0] == EXCHANGING and st.to_move[0] == 0
    assert not st.legal[0, ids("keep")] and game.reason(st, 0, ids("keep"))
    game.step(st, np.array([ids("take 5-0")]))
    assert st.legal[0, ids("discard 1-0")] and not st.legal[0, ids("discard 3-2")]
    assert game.reason(st, 0, ids("discard 3-2"))
    game.step(st, np.array([ids("discard 1-0")]))
    game.step(st, np.array([ids("keep")]))
    assert st.phase[0] == PLAYING and st.to_move[0] == 0
    rec = record_from_state(game, st, 0)
    assert rec["exchange"] == TAKE_50 and sorted(rec["cat"]) == sorted(EX_CAT)


# ---------------------------------------------------------------------------------- records
def test_six_record_without_cat_uses_the_tiles_the_hands_leave_out():
    with_cat = run(record(bids=["60:6s"] + PASS5, contract="6s"))
    without = run(record(bids=["60:6s"] + PASS5, contract="6s", cat=None))
    assert exchanges(with_cat) == exchanges(without) and len(exchanges(without)) == 16
    out = run(record(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50, plays=T1, cat=None))
    assert out["points"] == [22, 0]


@pytest.mark.parametrize("field, change", [
    ("cat", {"cat": ["5-0"]}),
    ("cat", {"cat": ["5-0", "3-1", "1-1"]}),
    ("cat", {"cat": ["5-0", "7-7"]}),
    ("cat", {"cat": ["5-0", "3-0"]}),  # not the two tiles the hands leave out
    ("cat", {"cat": "5-0 3-1"}),
    ("exchange", {"exchange": ["5-0", "1-0"]}),
    ("exchange", {"exchange": {"take": "5-0", "discard": "1-0"}}),
    ("exchange", {"exchange": {"take": ["5-0"], "discard": ["1-0"], "keep": True}}),
    ("exchange", {"exchange": {"take": [5], "discard": [1]}}),
    ("hands", {"hands": [list(h) for h in EX[:5]]}),
    ("hands", {"hands": [list(EX[0][:8])] + [list(h) for h in EX[1:]]}),
    ("hands", {"hands": [list(EX[0][:8]) + ["6-6"]] + [list(h) for h in EX[1:]]}),  # 3 x 6-6
    ("dealer", {"dealer": 6}),
    ("options", {"options": {"nello": True}}),
    ("options", {"options": {"target": 0}}),
    ("options", {"options": {"follow_me_doubles": "low"}}),
])
def test_six_malformed_record_is_a_record_error_naming_the_field(field, change):
    rec = record(bids=["60:6s"] + PASS5, contract="6s", exchange=TAKE_50)
    rec.update(change)
    with pytest.raises(RecordError) as e:
        parse_record(rec)
    assert e.value.field == field


def test_six_illegal_actions_report_index_phase_and_seat():
    # an exchange while the bidding is on; a play while the exchange is due; a standard bid
    err = error(record(bids=["60:6s", "pass"], exchange=TAKE_50))
    assert (err["index"], err["phase"], err["seat"]) == (2, "bid", 2)
    err = error(record(bids=["60:6s"] + PASS5, exchange=TAKE_50))
    assert (err["index"], err["phase"], err["seat"]) == (6, "declare", 0)
    err = error(record(bids=["60:6s"] + PASS5, contract="6s", plays=["6-6"]))
    assert (err["index"], err["phase"], err["seat"], err["action"]) == (7, "exchange", 0, "6-6")
    err = error(record(bids=["30"]))
    assert (err["index"], err["phase"], err["seat"]) == (0, "bid", 0)
    err = error(record(bids=["60:7s"]))
    assert (err["index"], err["phase"]) == (0, "bid")


@pytest.mark.parametrize("name", sorted(set(DEFAULTS["standard"]) - set(DEFAULTS["six-player"])))
def test_six_unknown_option_is_config_error(name):
    value = DEFAULTS["standard"][name]
    with pytest.raises(ConfigError):
        RulesConfig.make("six-player", **{name: value})
    rec = record()
    rec["options"] = {name: value}
    with pytest.raises(RecordError) as e:
        parse_record(rec)
    assert e.value.field == "options"


def test_six_unknown_option_nello_is_config_error():
    with pytest.raises(ConfigError):
        RulesConfig.make("six-player", nello=True)
    with pytest.raises(ConfigError):
        preset("six-player", sevens=False)
    with pytest.raises(ConfigError):
        RulesConfig.make("six-player", first_bidder="holder_of_1_0")
    # the six-player options themselves are accepted, with every value
    r = RulesConfig.make("six-player", all_pass="redeal", play_out=True, scoring="marks",
                         target=3, follow_me_doubles="own_suit")
    assert (r.all_pass, r.play_out, r.scoring, r.target, r.follow_me_doubles) == (
        "redeal", True, "marks", 3, "own_suit")
