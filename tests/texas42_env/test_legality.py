"""``texas42_env.legality`` on its own: the reasons in words (``reason``, ``explain``,
``bid_reason``, ``declare_reason``, ``six_bid_reason``, ``exchange_reason``) and the fast
legal masks built from them.

Held to, above all: over many positions of random games (both rulesets, and options that
open nello, sevens, plunge and splash), for every action id, ``st.legal[b, a]`` is True
exactly where ``game.reason(st, b, a)`` is None. Then hand-picked refusals in every phase
say what rules.md says, in the module's words, and ``explain`` names the phase and seat.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from texas42_env import tiles as T
from texas42_env.actions import MARKS0, PASS, PLUNGE, POINTS0, SPLASH
from texas42_env.core import (BIDDING, DECLARING, EXCHANGING, GAME_OVER, HAND_OVER, PLAYING,
                              Game, IllegalActionError, State)
from texas42_env.records import instance_masks
from texas42_env.rules import CONTRACT_NAMES, NELLO, SEVENS, RulesConfig
from texas42_env.sampling import uniform_legal

from helpers import SPEC_HANDS, masks, same_state, snapshot

SWEEP = {
    "standard": RulesConfig.make(),
    "specials": RulesConfig.make(splash=True, sevens=True, plunge_min_doubles=1,
                                 nello_min_marks=0, sevens_min_marks=0, target=1),
    "house": RulesConfig.make(max_opening_marks=1, plunge_min_doubles=2, plunge_marks=7,
                              splash=True, sevens=True, sevens_min_marks=2, nello_min_marks=2,
                              sevens_tie="bidder", nello_doubles="own_suit",
                              follow_me_doubles="own_suit", all_pass="redeal",
                              first_bidder="holder_of_1_0"),
    "no-specials": RulesConfig.make(plunge=False, nello=False, play_out=True, scoring="points"),
    "six-player": RulesConfig.make("six-player"),
    "six-player-marks": RulesConfig.make("six-player", scoring="marks", play_out=True,
                                         target=1, all_pass="redeal"),
}


def _check_masks_against_reasons(game: Game, st: State, seen: Counter) -> None:
    for b in range(st.batch_size):
        phase = int(st.phase[b])
        seen[("phase", phase)] += 1
        for a in range(game.n_actions):
            r = game.reason(st, b, a)
            assert (r is None) == bool(st.legal[b, a]), (
                f"table {b}, phase {phase}: {game.actions.name(a)!r} legal="
                f"{bool(st.legal[b, a])} but reason={r!r}")
            if r is not None:
                seen[("refused", phase)] += 1


def _sweep(game: Game, batch: int, hands: int, rng, seen: Counter, bids: Counter,
           contracts: Counter) -> None:
    """Random legal play of ``hands`` hands at ``batch`` tables, the masks checked against
    the reasons at every position of the bidding, declaring and exchange, at about half
    the plays, and once every hand is over."""
    for h in range(hands):
        st = game.reset(batch, seed=h, game_ids=np.arange(batch) + 1000 * h)
        while (st.phase < HAND_OVER).any():
            if (st.phase < PLAYING).any() or rng.random() < 0.5:
                _check_masks_against_reasons(game, st, seen)
            game.step(st, uniform_legal(st.legal, rng))
        _check_masks_against_reasons(game, st, seen)
        bids.update(st.bids[st.bids >= 0].tolist())
        contracts.update(st.contract[st.contract >= 0].tolist())


@pytest.mark.parametrize("name", list(SWEEP))
def test_the_legal_masks_are_exactly_the_actions_with_no_reason(name):
    """Batches of tables (the core's batch path) and one table at a time (its one-table
    path: plain-Python bids and plays)."""
    rules = SWEEP[name]
    game = Game(rules)
    six = rules.ruleset == "six-player"
    rng = np.random.default_rng(sum(map(ord, name)))
    seen: Counter = Counter()
    contracts: Counter = Counter()
    bids: Counter = Counter()
    _sweep(game, 16 if six else 64, 3, rng, seen, bids, contracts)
    _sweep(game, 1, 8 if six else 40, rng, seen, bids, contracts)
    # the sweep did reach what it is meant to hold the masks to
    phases = {BIDDING, DECLARING, PLAYING} | ({EXCHANGING} if six else set())
    assert phases <= {p for (k, p) in seen if k == "phase"}
    assert {p for (k, p) in seen if k == "refused"} >= phases
    if name == "specials":
        assert bids[PLUNGE] and bids[SPLASH] and contracts[NELLO] and contracts[SEVENS]
        assert seen[("phase", GAME_OVER)]
    if name == "house":
        assert bids[PLUNGE] and contracts[SEVENS] and seen[("phase", HAND_OVER)]


def _fill_six_hands(first: list[str]) -> dict:
    """A six-player record whose seat 0 holds ``first``; the rest of both sets dealt in
    order to seats 1..5 and the cat."""
    left = Counter({name: 2 for name in T.TILE_NAMES})
    left.subtract(T.tile_name(T.parse_tile(x)) for x in first)
    rest = [name for name in T.TILE_NAMES for _ in range(left[name])]
    hands = [list(first)] + [rest[9 * i:9 * i + 9] for i in range(5)]
    return {"format": "texas42-record/1", "ruleset": "six-player", "dealer": 5,
            "hands": hands, "cat": rest[45:], "bids": [], "plays": []}


SIX_HANDS = [["6-6", "6-6", "5-5", "6-4", "3-2", "2-1", "1-0", "0-0", "4-4"],
             ["6-5", "6-5", "5-4", "5-4", "4-2", "4-2", "2-2", "2-0", "1-1"],
             ["6-3", "6-3", "6-2", "6-2", "6-1", "6-1", "6-0", "6-0", "5-3"],
             ["6-4", "5-5", "5-3", "5-2", "5-2", "5-1", "5-1", "5-0", "4-4"],
             ["4-3", "4-3", "4-1", "4-1", "4-0", "4-0", "3-3", "3-3", "3-2"],
             ["3-1", "3-0", "3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"]]
SIX_CAT = ["5-0", "3-1"]


def _position(actions=(), hands=SPEC_HANDS, dealer=3, cat=(), ruleset="standard", **options):
    """A one-table game and state after ``actions`` (names of rules.md) from ``hands``."""
    game = Game(RulesConfig.make(ruleset, **options))
    st = State(1, game, 0)
    ids = [[T.parse_tile(x) for x in h] for h in hands]
    if ruleset == "standard":
        game.set_hands(st, [0], masks(hands), dealer)
    else:
        hand_masks, cat_mask = instance_masks(ids, [T.parse_tile(x) for x in cat])
        game.set_hands(st, [0], hand_masks[None, :], dealer, cat_mask)
    for a in actions:
        game.step(st, np.array([game.actions.id(a)]))
    return game, st


def _why(game, st, name):
    a = game.actions.id(name)
    assert a is not None, name
    assert not st.legal[0, a], f"{name} is legal"
    return game.reason(st, 0, a)


# ----------------------------------------------------------------------------- bidding
def test_refused_bids_say_the_rule_they_break():
    game, st = _position()  # dealer 3: seat 0 (one double) bids first
    assert _why(game, st, "3m") == "the first mark bid may be at most 2m"
    assert _why(game, st, "plunge") == "plunge needs at least 4 doubles"
    assert _why(game, st, "splash") == "splash is not allowed under these rules"
    game, st = _position(["1m"])
    assert _why(game, st, "41") == "bid must exceed 1m"
    assert _why(game, st, "1m") == "bid must exceed 1m"
    assert _why(game, st, "3m") == "a mark bid may only raise the high bid by one mark (to 2m)"
    game, st = _position(["30", "35"])
    assert _why(game, st, "35") == "bid must exceed 35"
    assert game.reason(st, 0, game.actions.id("1m")) is None


def test_the_dealer_may_not_pass_when_all_have_passed_unless_the_hand_is_thrown_in():
    game, st = _position(["pass", "pass", "pass"])
    assert int(st.to_move[0]) == 3
    assert _why(game, st, "pass") == "the last bidder must bid when all have passed"
    game, st = _position(["pass", "pass", "pass"], all_pass="redeal")
    assert game.reason(st, 0, PASS) is None and st.legal[0, PASS]


def test_a_splash_may_not_pass_3m_and_a_plunge_overcalls_by_a_mark():
    # seat 3 holds three doubles (2-2, 1-1, 0-0): it may splash over 1m, not over 4m
    game, st = _position(["1m", "pass", "pass"], splash=True)
    assert game.reason(st, 0, SPLASH) is None
    game, st = _position(["2m", "3m", "4m"], splash=True)
    assert _why(game, st, "splash") == "a splash may not pass 3m"
    # a plunge: three doubles are enough where the rules say so
    game, st = _position(["2m", "3m", "4m"], plunge_min_doubles=3)
    assert game.reason(st, 0, PLUNGE) is None
    assert game.special_level(PLUNGE, int(st.high_level[0])) == 12 + 5


def test_bid_reason_and_level_names_as_plain_functions():
    game = Game(RulesConfig.make(max_opening_marks=3, splash=True))
    assert [game.level_name(lv) for lv in (1, 12, 13, 22)] == ["30", "41", "1m", "10m"]
    assert game.bid_reason(POINTS0 + 5, 0, False, 0) is None  # an opening 35
    assert game.bid_reason(MARKS0 + 2, 0, False, 0) is None  # an opening 3m, by these rules
    assert game.bid_reason(MARKS0 + 3, 0, False, 0) == "the first mark bid may be at most 3m"
    assert game.bid_reason(MARKS0, 5, False, 0) is None  # 1m over 34
    assert game.bid_reason(POINTS0 + 3, 5, False, 0) == "bid must exceed 34"
    assert game.bid_reason(POINTS0, MARKS0, False, 0) == "bid must exceed 1m"
    assert game.bid_reason(PASS, 0, False, 0) is None
    assert game.bid_reason(PASS, 0, True, 0) == "the last bidder must bid when all have passed"
    assert game.bid_reason(PLUNGE, 0, False, 3) == "plunge needs at least 4 doubles"
    assert game.bid_reason(PLUNGE, 0, False, 4) is None
    assert game.bid_reason(SPLASH, 0, False, 2) == "splash needs at least 3 doubles"
    assert game.bid_reason(SPLASH, MARKS0 + 1, False, 3) is None  # over 2m: at 3m
    assert game.bid_reason(SPLASH, MARKS0 + 2, False, 3) == "a splash may not pass 3m"
    assert game.special_level(PLUNGE, 0) == 12 + 4
    assert game.special_level(PLUNGE, MARKS0 + 5) == 12 + 7  # over 6m: one mark more
    assert game.special_level(SPLASH, 3) == 12 + 2


# ----------------------------------------------------------------------------- declaring
def test_refused_contracts_say_what_they_need():
    game, st = _position(["30", "pass", "pass", "pass"])
    assert _why(game, st, "nello") == "nello needs a bid of at least 1m"
    assert _why(game, st, "sevens") == "sevens is not allowed under these rules"
    assert game.reason(st, 0, game.actions.id("6s")) is None
    game, st = _position(["1m", "pass", "pass", "pass"], sevens=True, sevens_min_marks=2)
    assert _why(game, st, "sevens") == "sevens needs a bid of at least 2m"
    assert game.reason(st, 0, game.actions.id("nello")) is None
    game, st = _position(["1m", "pass", "pass", "pass"], nello=False)
    assert _why(game, st, "nello") == "nello is not allowed under these rules"


def test_nello_may_not_follow_a_plunge_but_sevens_may_whatever_its_least_bid():
    game, st = _position(["pass", "pass", "pass", "plunge"], plunge_min_doubles=3, sevens=True,
                         sevens_min_marks=7)
    assert int(st.phase[0]) == DECLARING and int(st.to_move[0]) == 1  # the partner names it
    assert _why(game, st, "nello") == "nello may not be named after a plunge or splash"
    assert game.reason(st, 0, game.actions.id("sevens")) is None
    assert game.declare_reason(NELLO, 4, True) == "nello may not be named after a plunge or splash"
    assert game.declare_reason(NELLO, 4, False) is None
    assert game.declare_reason(SEVENS, 6, False) == "sevens needs a bid of at least 7m"
    assert game.declare_reason(SEVENS, 2, True) is None


# ----------------------------------------------------------------------------- playing
def test_refused_plays_say_what_must_be_played():
    game, st = _position(["pass", "1m", "pass", "pass", "5s", "5-4", "3-1", "0-0"])
    assert int(st.to_move[0]) == 0  # seat 0 holds 6-5, a trump
    assert _why(game, st, "6-6") == "must follow trumps"
    assert _why(game, st, "5-5") == "not in hand"
    assert game.reason(st, 0, game.actions.id("6-5")) is None
    # seat 1 bids and names 0s, then leads 5-5: a 5, not a trump; seat 0 holds 6-5
    game, st = _position(["pass", "30", "pass", "pass", "0s", "5-5", "4-3", "3-0"])
    assert int(st.to_move[0]) == 0
    assert _why(game, st, "6-6") == "must follow 5s"
    assert _why(game, st, "6-0") == "must follow 5s"  # a trump may not be played either
    assert game.reason(st, 0, game.actions.id("6-5")) is None
    game, st = _position(["1m", "pass", "pass", "pass", "sevens"], sevens=True)
    assert _why(game, st, "6-6") == "must play a tile closest to 7 (one 0 away)"  # 6-1 is 7
    assert game.reason(st, 0, game.actions.id("6-1")) is None


def test_an_action_of_another_phase_is_refused_naming_what_is_due():
    game, st = _position()
    assert _why(game, st, "6-6") == "a bid is due, not a play"
    assert _why(game, st, "6s") == "a bid is due, not a contract"
    game, st = _position(["30", "pass", "pass", "pass"])
    assert _why(game, st, "31") == "a contract is due, not a bid"
    game, st = _position(["30", "pass", "pass", "pass", "6s"])
    assert _why(game, st, "5s") == "a play is due, not a contract"
    assert _why(game, st, "pass") == "a play is due, not a bid"


def test_out_of_range_ids_and_non_ids_are_not_action_ids():
    game, st = _position()
    for bad in (-1, 64, 10**6, "30", 3.0, None):
        assert game.reason(st, 0, bad) == "not an action id (0..63)", bad
    assert game.reason(st, 0, np.int16(5)) is None  # a NumPy integer is an id


def test_after_the_hand_and_the_game_every_action_is_refused():
    plays = ["6-6", "5-5", "4-1", "2-1", "6-4", "5-0", "3-2", "1-0"]
    game, st = _position(["30", "pass", "pass", "pass", "6s"] + plays)
    assert int(st.phase[0]) == HAND_OVER
    assert {game.reason(st, 0, a) for a in range(game.n_actions)} == {"hand is over"}
    assert game.explain(st, 0, 36) == ("over", None, "hand is over")
    game, st = _position(["30", "pass", "pass", "pass", "6s"] + plays, target=1)
    assert int(st.phase[0]) == GAME_OVER
    assert {game.reason(st, 0, a) for a in (0, 30, 63, 99)} == {"game is over"}


def test_explain_names_the_phase_and_the_seat_and_the_core_raises_with_it():
    game, st = _position(["30"])
    assert game.explain(st, 0, game.actions.id("30")) == ("bid", 1, "bid must exceed 30")
    before = snapshot(st)
    with pytest.raises(IllegalActionError) as err:
        game.step(st, np.array([game.actions.id("30")]))
    e = err.value
    assert (e.phase, e.seat, e.action, e.reason) == ("bid", 1, "30", "bid must exceed 30")
    assert same_state(before, snapshot(st))


# ----------------------------------------------------------------------------- six-player
def test_six_player_bids_need_a_higher_level_and_a_tile_of_the_trump():
    game, st = _position(["60:6s"], hands=SIX_HANDS, dealer=5, cat=SIX_CAT,
                         ruleset="six-player")
    assert _why(game, st, "60:5s") == "bid must exceed 60"
    assert game.reason(st, 0, game.actions.id("62:5s")) is None
    game, st = _position(["60:6s", "pass"], hands=SIX_HANDS, dealer=5, cat=SIX_CAT,
                         ruleset="six-player")
    assert int(st.to_move[0]) == 2  # 6-3 6-2 6-1 6-0 and 5-3: no double and no 4
    assert _why(game, st, "62:doubles") == "must hold a double to bid doubles"
    assert _why(game, st, "62:4s") == "must hold a tile of 4s to bid it"
    assert game.reason(st, 0, game.actions.id("62:3s")) is None
    assert game.reason(st, 0, game.actions.id("62:follow-me")) is None
    assert game.level_name(1) == "60" and game.level_name(16) == "176"
    held = T.mask_of(T.parse_tile(x) for x in SIX_HANDS[2])
    assert game.six_bid_reason(game.actions.id("88:0s"), 14, False, held) is None
    no_0s = held & ~T.mask_of(T.suit_tiles(0))
    assert game.six_bid_reason(game.actions.id("88:0s"), 14, False, no_0s) == \
        "must hold a tile of 0s to bid it"
    assert game.six_bid_reason(PASS, 0, True, held) == \
        "the last bidder must bid when all have passed"
    game, st = _position(["pass"] * 5, hands=SIX_HANDS, dealer=5, cat=SIX_CAT,
                         ruleset="six-player")
    assert _why(game, st, "pass") == "the last bidder must bid when all have passed"


def test_six_player_contract_must_be_the_winning_bids():
    game, st = _position(["60:6s"] + ["pass"] * 5, hands=SIX_HANDS, dealer=5, cat=SIX_CAT,
                         ruleset="six-player")
    assert int(st.phase[0]) == DECLARING
    assert _why(game, st, "5s") == "the contract must be the winning bid's (6s)"
    assert _why(game, st, "follow-me") == "the contract must be the winning bid's (6s)"
    assert game.reason(st, 0, game.actions.id("6s")) is None


def test_six_player_exchange_refusals():
    six = dict(hands=SIX_HANDS, dealer=5, cat=SIX_CAT, ruleset="six-player")
    game, st = _position(["60:6s"] + ["pass"] * 5 + ["6s"], **six)
    assert int(st.phase[0]) == EXCHANGING and int(st.to_move[0]) == 0
    assert _why(game, st, "keep") == "a count tile in the cat must be taken"  # 5-0
    assert _why(game, st, "discard 0-0") == "take a tile from the cat before discarding"
    assert _why(game, st, "take 6-6") == "not in the cat"
    assert game.exchange_reason(st, 0, game.actions.id("take 3-1")) is None
    game.step(st, np.array([game.actions.id("take 3-1")]))
    assert _why(game, st, "keep") == "a discard is due for the tile taken"
    assert _why(game, st, "take 5-0") == "a discard is due for the tile taken"
    assert _why(game, st, "discard 5-5") == "discards must be non-count tiles"
    assert _why(game, st, "discard 3-1") == "discards come from the hand as dealt"
    assert _why(game, st, "discard 6-3") == "not in the hand as dealt"
    assert game.reason(st, 0, game.actions.id("discard 4-4")) is None
    game.step(st, np.array([game.actions.id("discard 4-4")]))
    # one swap made: with the count tile 5-0 still in the cat, only the hand's non-count
    # tiles but one remain to give for it, and keeping is refused
    assert _why(game, st, "keep") == "a count tile in the cat must be taken"
    assert game.reason(st, 0, game.actions.id("take 5-0")) is None


def test_six_player_a_hand_of_count_tiles_can_take_nothing_from_the_cat():
    count = ["5-0", "5-0", "4-1", "4-1", "3-2", "3-2", "6-4", "6-4", "5-5"]
    rec = _fill_six_hands(count)
    game, st = _position(["60:6s"] + ["pass"] * 5 + ["6s"], hands=rec["hands"], dealer=5,
                         cat=rec["cat"], ruleset="six-player")
    assert int(st.phase[0]) == EXCHANGING
    cat = rec["cat"][0]
    assert _why(game, st, f"take {cat}") == \
        "no tile of the hand as dealt is left to discard (count tiles may not be)"
    assert game.reason(st, 0, game.actions.id("keep")) is None


def test_contract_names_in_reasons_are_the_rules_names():
    game, st = _position(["30", "pass", "pass", "pass"], nello=False)
    words = {CONTRACT_NAMES[c]: game.reason(st, 0, game.actions.contract0 + c)
             for c in range(len(CONTRACT_NAMES))}
    assert words["nello"] == "nello is not allowed under these rules"
    assert words["sevens"] == "sevens is not allowed under these rules"
    assert all(words[c] is None for c in CONTRACT_NAMES[:9])
