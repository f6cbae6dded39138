"""``compose``: one agent's bidding with another's play, and JSON agent specs."""

from __future__ import annotations

import pytest

from agents.arena.duplicate import play_duplicate
from agents.arena.tournament import TournamentConfig
from agents.base import make_agent, parse_spec, spec_name
from agents.cli import main
from texas42_env.rules import RulesConfig

RULES = RulesConfig.make()


def test_composing_an_agent_with_itself_plays_as_it_does():
    stats = play_duplicate(RULES, {"name": "compose", "bid": "heuristic", "play": "heuristic"},
                           "heuristic", deals=60, seed=2)
    assert (stats.a_marks == stats.b_marks).all() and (stats.a_bids == stats.b_bids).all()


def test_each_part_acts_in_its_own_phase():
    """Passive's bidding (it bids only when forced) with the heuristic's play: the side bids
    as passive does, and its play differs from passive's."""
    quiet = play_duplicate(RULES, parse_spec("compose:bid=passive,play=heuristic"), "heuristic",
                           80, seed=3)
    passive = play_duplicate(RULES, "passive", "heuristic", 80, seed=3)
    assert (quiet.a_bids == passive.a_bids).all()
    assert (quiet.a_marks != passive.a_marks).any()


def test_json_specs_parse_and_bad_ones_say_why():
    spec = parse_spec('{"name": "compose", "bid": "heuristic", "play": {"name": "pimc", '
                      '"n_worlds": 2}}')
    assert spec["play"] == {"name": "pimc", "n_worlds": 2}
    assert spec_name('{"name": "compose"}') == "compose"
    agent = make_agent(spec)
    assert agent.player.n_worlds == 2 and agent.needs_state
    with pytest.raises(ValueError, match="not a JSON object"):
        parse_spec('{"name": ')
    with pytest.raises(ValueError, match='needs a "name"'):
        parse_spec('{"bid": "heuristic"}')
    with pytest.raises(ValueError, match="compose play: unknown agent 'nope'"):
        make_agent({"name": "compose", "play": "nope"})


def test_compose_plays_the_rulesets_both_parts_play():
    assert make_agent("compose").rulesets == ("standard", "six-player")
    assert make_agent({"name": "compose", "bid": "simbid"}).rulesets == ("standard",)


def test_match_and_tournament_take_compose_specs(capsys):
    assert main(["match", '{"name": "compose", "play": "random"}', "heuristic", "--deals", "4",
                 "--quiet"]) == 0
    assert "vs heuristic" in capsys.readouterr().out
    TournamentConfig.from_dict({"agents": {
        "a": {"name": "compose", "bid": "heuristic", "play": {"name": "pimc", "n_worlds": 2}},
        "b": "heuristic"}, "anchor": "b"}).check()
