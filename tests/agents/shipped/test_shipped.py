"""The shipped agents (``agents.shipped``): ``champion`` and ``learned`` load by name from the
weights inside the package, play whole hands of both rulesets, carry their provenance, stay
under 20 MB, say what is missing when a file is, and are ``texas42 play``'s default bots."""

from __future__ import annotations

import re

import pytest

from texas42_env.core import Game
from texas42_env.rules import RULESETS, RulesConfig

from agents import make_agent
from agents.arena.duplicate import play_duplicate
from agents.nets.checkpoint import load_checkpoint
from agents.shipped import LINEUP, WEIGHTS
from agents.ui.play import default_bot, seat_bots


@pytest.mark.parametrize("ruleset", RULESETS)
@pytest.mark.parametrize("name", ["champion", "learned"])
def test_shipped_agents_load_by_name_and_play_whole_hands(name, ruleset):
    rules = RulesConfig.make(ruleset)
    records = []
    stats = play_duplicate(rules, name, "heuristic", deals=2, seed=3, on_records=records.extend)
    assert len(records) == 4 and stats.a_marks.size == 2
    assert all(r["agents"].count(name) == rules.n_seats // 2 for r in records)


def test_every_weights_file_of_the_lineup_is_shipped_small_and_says_where_it_came_from():
    """Each file a shipped agent or a shipped config (configs/*.yaml: the expert net that
    finetune.yaml starts from) names is there, and none else."""
    names = set()
    for kind, by_ruleset in LINEUP.items():
        for ruleset, spec_of in by_ruleset.items():
            text = repr(spec_of(0))
            names |= set(re.findall(r"[\w-]+\.pt", text))
    configs = WEIGHTS.parents[2] / "configs"
    for path in configs.glob("*.yaml"):
        names |= set(re.findall(r"shipped/weights/([\w-]+\.pt)", path.read_text()))
    assert names == {p.name for p in WEIGHTS.glob("*.pt")}
    for name in names:
        path = WEIGHTS / name
        assert path.stat().st_size < 20e6, name
        prov = load_checkpoint(path)["provenance"]
        assert prov["note"] and re.fullmatch(r"[0-9a-f]{40}", prov["commit"]), name


def test_a_missing_weights_file_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr("agents.shipped.WEIGHTS", tmp_path)
    with pytest.raises(ValueError, match=re.escape("shipped weights learned-six-player.pt are "
                                                   "missing from this install")):
        make_agent("learned").setup(Game(RulesConfig.make("six-player")))


def test_an_agent_not_set_up_and_a_bad_seed_are_refused():
    import numpy as np

    with pytest.raises(ValueError, match="set it up for a game first"):
        make_agent("champion").act(None, np.ones((1, 10), bool))
    with pytest.raises(ValueError, match="seed must be >= 0"):
        make_agent("learned", seed=-2)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_the_terminal_games_bots_are_the_champion_by_default(ruleset):
    assert default_bot(ruleset) == "champion"
    specs = seat_bots(RulesConfig.make(ruleset), seat=0)
    assert set(specs.values()) == {"champion"}
