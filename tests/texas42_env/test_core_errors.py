"""Bad input fails loudly at the boundary and changes nothing."""

import numpy as np
import pytest

from texas42_env.actions import NO_ACTION
from texas42_env.core import Game, IllegalActionError, State
from texas42_env.rules import OPTION_SPECS, ConfigError, RulesConfig, preset

from helpers import SPEC_HANDS, masks, same_state, snapshot


def _spec_table(game, batch=4):
    """A batch where every table holds the spec's deal, dealer 3: seat 0 bids first."""
    st = State(batch, game, 0)
    game.set_hands(st, np.arange(batch), np.repeat(masks(SPEC_HANDS), batch, axis=0), 3)
    return st


def test_illegal_action_names_table_seat_action_and_reason_and_changes_nothing():
    game = Game()
    st = _spec_table(game)
    space = game.actions
    before = snapshot(st)
    acts = np.array([space.id("30"), space.id("pass"), space.id("6-6"), space.id("31")])
    with pytest.raises(IllegalActionError) as err:
        game.step(st, acts)
    e = err.value
    assert (e.table, e.seat, e.action, e.phase) == (2, 0, "6-6", "bid")
    assert "bid is due" in e.reason
    assert "table 2" in str(e) and "seat 0" in str(e) and "6-6" in str(e)
    assert same_state(before, snapshot(st))


def test_illegal_bid_reason_names_the_high_bid():
    game = Game()
    st = _spec_table(game, 1)
    game.step(st, np.array([game.actions.id("31")]))
    before = snapshot(st)
    with pytest.raises(IllegalActionError) as err:
        game.step(st, np.array([game.actions.id("30")]))
    assert err.value.reason == "bid must exceed 31" and err.value.seat == 1
    assert same_state(before, snapshot(st))


def test_play_of_a_tile_not_in_hand_is_refused():
    game = Game()
    st = _spec_table(game, 2)
    ids = game.actions.id
    for a in ("30", "pass", "pass", "pass", "6s"):
        game.step(st, np.array([ids(a)] * 2))
    before = snapshot(st)
    with pytest.raises(IllegalActionError) as err:
        game.step(st, np.array([ids("6-6"), ids("5-5")]))
    assert (err.value.table, err.value.seat, err.value.reason) == (1, 0, "not in hand")
    assert same_state(before, snapshot(st))


@pytest.mark.parametrize("bad", [64, 1000, -2])
def test_action_ids_out_of_range_are_illegal(bad):
    game = Game()
    st = _spec_table(game, 3)
    before = snapshot(st)
    with pytest.raises(IllegalActionError) as err:
        game.step(st, np.array([0, bad, 0]))
    assert err.value.table == 1 and "not an action id" in err.value.reason
    assert same_state(before, snapshot(st))


def test_no_action_is_only_for_tables_whose_hand_is_over():
    game = Game()
    st = _spec_table(game, 2)
    with pytest.raises(IllegalActionError):
        game.step(st, np.array([NO_ACTION, 0]))
    # a thrown-in hand (redeal) is over: NO_ACTION is accepted there, and any other action is not
    game = Game(RulesConfig.make(all_pass="redeal"))
    st = _spec_table(game, 2)
    for _ in range(4):
        game.step(st, np.array([0, 0]))
    game.step(st, np.array([NO_ACTION, NO_ACTION]))
    with pytest.raises(IllegalActionError) as err:
        game.step(st, np.array([NO_ACTION, 0]))
    assert err.value.reason == "hand is over" and err.value.seat is None


def test_step_needs_one_integer_action_per_table():
    game = Game()
    st = _spec_table(game, 3)
    with pytest.raises(ValueError, match="one action per table"):
        game.step(st, np.array([0, 0]))
    with pytest.raises(IllegalActionError, match="integer"):
        game.step(st, np.array([0.0, 0.0, 0.0]))


def test_next_hand_refuses_a_table_still_playing():
    game = Game()
    st = game.reset(2, seed=1)
    with pytest.raises(ValueError, match="table 0"):
        game.next_hand(st, [0])


@pytest.mark.parametrize("name,value", [
    ("max_opening_marks", 0), ("max_opening_marks", "2"), ("max_opening_marks", True),
    ("all_pass", "shuffle"), ("first_bidder", "dealer"), ("plunge", 1), ("plunge", "yes"),
    ("plunge_min_doubles", 8), ("plunge_marks", 0), ("splash", None), ("nello", "on"),
    ("nello_min_marks", -1), ("nello_doubles", "middle"), ("sevens", 0),
    ("sevens_min_marks", 2.5), ("sevens_tie", "last"), ("follow_me_doubles", "low"),
    ("play_out", "false"), ("scoring", "games"), ("target", 0), ("target", "7"),
])
def test_bad_option_value_raises_config_error_naming_it_and_the_allowed(name, value):
    with pytest.raises(ConfigError) as err:
        RulesConfig.make(**{name: value})
    msg = str(err.value)
    assert repr(name) in msg and repr(value) in msg and "allowed" in msg


def test_every_option_of_the_spec_has_a_checked_spec():
    assert set(OPTION_SPECS) == {f for f in RulesConfig.__dataclass_fields__ if f != "ruleset"}


def test_unknown_option_and_ruleset_and_preset_are_config_errors():
    with pytest.raises(ConfigError, match="unknown option 'trumps'.*allowed: all_pass"):
        RulesConfig.make(trumps="5s")
    with pytest.raises(ConfigError, match="unknown ruleset 'eight-player'"):
        RulesConfig.make("eight-player")
    with pytest.raises(ConfigError, match="unknown preset 'fast'"):
        preset("fast")
    with pytest.raises(ConfigError, match="unknown option 'nello' for ruleset 'six-player'"):
        RulesConfig.make("six-player", nello=False)


def test_presets_hold_their_options():
    assert preset("standard") == RulesConfig.make()
    assert preset("all-specials").sevens and preset("all-specials").splash
    assert preset("standard-points").resolved_target == 250
    assert preset("play-out", nello=False).options() == {"play_out": True, "nello": False}
