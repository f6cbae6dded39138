"""docs/rules.md and docs/records.md say what the code does: every rules option with its
default and allowed values, the presets and the tables of rules.md; the replay's outputs,
reasons and error lines of records.md, its worked example replayed."""

import dataclasses
import json
from pathlib import Path

import pytest

from agents.cli import main
from texas42_env import tiles as T
from texas42_env.actions import BID, DECLARE, action_space
from texas42_env.records import parse_record, replay
from texas42_env.rules import (CONTRACT_NAMES, DEFAULT_TARGET, DEFAULTS, OPTION_SPECS, PRESETS,
                               RULESETS, ConfigError, RulesConfig, preset)

from helpers import ROOT, record

RULES_DOC = (ROOT / "docs" / "rules.md").read_text()
RECORDS_DOC = (ROOT / "docs" / "records.md").read_text()
EXAMPLES = {e["title"]: e for e in (
    json.loads(line) for line in (ROOT / "tests" / "data" / "spec_examples.jsonl")
    .read_text().splitlines() if line.strip())}


# ----------------------------------------------------------------------------- reading the docs
def _after(text: str, marker: str) -> str:
    """The text after the first line that starts with ``marker`` (a heading or a sentence)."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith(marker)]
    assert starts, f"the docs have no line starting {marker!r}"
    return "\n".join(lines[starts[0] + 1:])


def _table(text: str, marker: str) -> list[list[str]]:
    """The rows (cells stripped, header and rule left out) of the first table after ``marker``."""
    rows, started = [], False
    for line in _after(text, marker).splitlines():
        if line.startswith("|"):
            started = True
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif started:
            break
    assert len(rows) > 2, f"no table after {marker!r}"
    return rows[2:]


def _block(text: str, marker: str, lang: str) -> str:
    """The body of the first ```lang code block after ``marker``."""
    return _after(text, marker).split(f"```{lang}\n", 1)[1].split("```", 1)[0]


def _value(v) -> str:
    """An option value as the docs write it: JSON spelling in backticks, strings bare."""
    return f"`{v if isinstance(v, str) else json.dumps(v)}`"


def _allowed(name: str) -> str:
    spec = OPTION_SPECS[name]
    if spec.int_range is not None:
        return f"`{spec.int_range[0]}`..`{spec.int_range[1]}`"
    return ", ".join(_value(c) for c in spec.choices)


# ----------------------------------------------------------------------------- rules.md
def test_every_rules_option_is_in_rules_md_with_its_default_and_allowed_values():
    rows = _table(RULES_DOC, "The options of the `standard` ruleset")
    documented = {row[0]: (row[1], row[2]) for row in rows}
    options = [f for f in dataclasses.fields(RulesConfig) if f.name != "ruleset"]
    in_code = {f"`{f.name}`": (_value(f.default), _allowed(f.name)) for f in options}
    assert documented == in_code
    assert len(rows) == len(documented)  # no option twice
    assert all(row[3] for row in rows)  # each says what it means
    assert {f.name: f.default for f in options} == DEFAULTS["standard"]


def test_six_player_options_and_their_defaults_are_in_rules_md():
    rows = _table(RULES_DOC, "The `six-player` ruleset takes only these options")
    assert {row[0]: row[1] for row in rows} == {
        f"`{name}`": _value(default) for name, default in DEFAULTS["six-player"].items()}
    assert len(rows) == len(DEFAULTS["six-player"])


def test_default_targets_in_rules_md_are_the_codes():
    rows = _table(RULES_DOC, "The score that wins the game when `target` is `null`")
    assert {(row[0], row[1]): row[2] for row in rows} == {
        (f"`{ruleset}`", f"`{scoring}`"): str(target)
        for (ruleset, scoring), target in DEFAULT_TARGET.items()}
    assert len(rows) == len(DEFAULT_TARGET)
    for row in rows:
        rules = RulesConfig.make(row[0].strip("`"), scoring=row[1].strip("`"))
        assert str(rules.resolved_target) == row[2]


def test_presets_in_rules_md_are_the_codes():
    rows = _table(RULES_DOC, "The presets")
    want = {}
    for name, options in PRESETS.items():
        rest = {k: v for k, v in options.items() if k != "ruleset"}
        said = ", ".join(f"`{k}: {_value(v).strip('`')}`" for k, v in rest.items())
        want[f"`{name}`"] = (f"`{options.get('ruleset', 'standard')}`", said or "the defaults")
    assert {row[0]: (row[1], row[2]) for row in rows} == want
    for row in rows:
        assert preset(row[0].strip("`")).ruleset == row[1].strip("`")


def test_bad_rules_messages_in_rules_md_are_the_codes():
    said = _block(RULES_DOC, "A bad choice raises `ConfigError`", "text").splitlines()
    attempts = [lambda: RulesConfig.make("eight-player"),
                lambda: RulesConfig.make("six-player", nello=True),
                lambda: RulesConfig.make(nello_doubles="middle"),
                lambda: RulesConfig.make(target=0),
                lambda: preset("casual")]
    got = []
    for attempt in attempts:
        with pytest.raises(ConfigError) as refused:
            attempt()
        got.append(str(refused.value))
    assert said == got


def test_rulesets_table_in_rules_md_is_the_codes():
    rows = _table(RULES_DOC, "## Rulesets")
    assert [row[0] for row in rows] == [f"`{r}`" for r in RULESETS]
    for row in rows:
        r = RulesConfig.make(row[0].strip("`"))
        assert row[1:] == [str(x) for x in (
            r.n_seats, T.N_TILES * r.copies, r.hand_size, r.n_tricks, r.points_per_trick,
            r.total_points, action_space(r.ruleset).n)]


def test_contracts_and_count_tiles_in_rules_md_are_the_codes():
    contracts = _table(RULES_DOC, "The declarer names the contract")
    assert [row[0] for row in contracts] == [f"`{c}`" for c in CONTRACT_NAMES]
    counts = _table(RULES_DOC, "- The count tiles")
    assert {row[0]: int(row[1]) for row in counts} == {
        f"`{T.TILE_NAMES[t]}`": int(T.COUNT[t]) for t in range(T.N_TILES) if T.COUNT[t]}


def test_actions_table_in_rules_md_names_each_kinds_first_and_last_action():
    rows = _table(RULES_DOC, "## Actions and their notation")
    assert [row[0] for row in rows] == [f"`{r}`" for r in RULESETS]
    for row in rows:
        space = action_space(row[0].strip("`"))
        for cell, kind in ((row[1], BID), (row[2], DECLARE)):
            names = [n for n, k in zip(space.names, space.kind) if k == kind]
            said = [x for part in cell.split(", ") for x in part.strip("`").split("`..`")]
            assert said[0] == names[0] and said[-1] == names[-1]
            assert set(said) <= set(names)


# ----------------------------------------------------------------------------- records.md
def _print_replay(tmp_path, capsys, records) -> tuple[int, str, str]:
    path = tmp_path / "hand.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, out, err


def test_worked_example_of_records_md_replays_to_what_it_shows(tmp_path, capsys):
    example = EXAMPLES["a points bid made after two tricks ends the hand (play_out off)"]
    shown = json.loads(_block(RECORDS_DOC, "## Worked example", "json"))
    assert shown == example["record"]
    code, out, err = _print_replay(tmp_path, capsys, [shown])
    assert (code, err) == (0, "")
    assert out == _block(RECORDS_DOC, "## Worked example", "text")
    assert json.loads(out) == example["replay"]


@pytest.mark.parametrize("marker,title", [
    ("### What it prints for a record whose actions are all legal",
     "bidding under way: partial record, legal bids for seat 2"),
    ("### What it prints for a record with an illegal action",
     "illegal: failing to follow suit (5s led as trump; seat 0 holds 6-5)")])
def test_printed_results_of_records_md_are_what_replay_prints(tmp_path, capsys, marker, title):
    code, out, err = _print_replay(tmp_path, capsys, [EXAMPLES[title]["record"]])
    assert (code, err) == (0, "")
    assert out == _block(RECORDS_DOC, marker, "text")


def test_exit_2_lines_of_records_md_are_what_replay_writes(tmp_path, capsys, monkeypatch):
    said = _block(RECORDS_DOC, "It exits 2 when the file cannot be read", "text").splitlines()
    monkeypatch.chdir(tmp_path)
    assert main(["replay", "nope.jsonl"]) == 2
    out, err = capsys.readouterr()
    assert (out, err) == ("", said[0] + "\n")
    Path("games.jsonl").write_text("\n".join(json.dumps(r) for r in (
        record(), record(bids=["30"]), record(dealer=4), record())) + "\n")
    assert main(["replay", "games.jsonl"]) == 2
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 2 and err == said[1] + "\n"


# A record that draws each reason of records.md's table.
SIX = EXAMPLES["six-player: the contract is the winning bid's; then the exchange, with its "
               "legal choices"]["record"]
PLUNGER = [["6-6", "5-5", "4-4", "3-3", "6-2", "6-1", "6-0"],
           ["6-5", "5-4", "5-3", "5-2", "5-1", "5-0", "6-3"],
           ["4-3", "4-2", "4-1", "4-0", "6-4", "3-2", "3-1"],
           ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"]]
COUNT_HAND = ["5-0", "5-0", "4-1", "4-1", "3-2", "3-2", "6-4", "6-4", "5-5"]


def _six(bids=("60:6s",) + ("pass",) * 5, contract="6s", exchange=None, plays=(), hands=None,
         cat=None):
    rec = {k: v for k, v in SIX.items() if k != "contract"}
    rec.update(bids=list(bids), plays=list(plays))
    if contract is not None:
        rec["contract"] = contract
    if exchange is not None:
        rec["exchange"] = exchange
    if hands is not None:
        rec.update(hands=hands, cat=cat)
    return rec


def _count_heavy_deal():
    """A six-player deal where seat 0 holds nine count tiles and the cat a tenth."""
    rest = [n for n in T.TILE_NAMES for _ in range(2)]
    for name in COUNT_HAND + ["5-5", "0-0"]:
        rest.remove(name)
    return [COUNT_HAND] + [rest[9 * k:9 * k + 9] for k in range(5)], ["5-5", "0-0"]


COUNT_HANDS, COUNT_CAT = _count_heavy_deal()


STANDARD = ["30", "pass", "pass", "pass"]
REASONS = {
    "not an action in the notation of rules.md: 'thirty'": record(bids=["thirty"]),
    "'6-6' is not a bid, in 'bids'": record(bids=["6-6"]),
    "a contract is due, not a play": record(bids=STANDARD, plays=["6-6"]),
    "hand is over": EXAMPLES["illegal: an action after the hand is over"]["record"],
    "the last bidder must bid when all have passed": record(bids=["pass"] * 4),
    "bid must exceed 31": record(bids=["30", "31", "30"]),
    "the first mark bid may be at most 2m": record(bids=["30", "3m"]),
    "a mark bid may only raise the high bid by one mark (to 4m)":
        record(bids=["2m", "3m", "pass", "5m"]),
    "plunge is not allowed under these rules": record(hands=PLUNGER, bids=["plunge"],
                                                      plunge=False),
    "plunge needs at least 4 doubles": record(bids=["plunge"]),
    "a splash may not pass 3m": record(bids=["2m", "3m", "pass", "splash"], splash=True),
    "nello needs a bid of at least 1m": record(bids=STANDARD, contract="nello"),
    "nello may not be named after a plunge or splash":
        record(hands=PLUNGER, bids=["plunge", "pass", "pass", "pass"], contract="nello"),
    "sevens is not allowed under these rules": record(bids=STANDARD, contract="sevens"),
    "not in hand": record(bids=STANDARD, contract="6s", plays=["5-5"]),
    "must follow trumps":
        EXAMPLES["illegal: failing to follow suit (5s led as trump; seat 0 holds 6-5)"]["record"],
    "must play a tile closest to 7 (one 1 away)": dict(
        EXAMPLES["sevens with the default tie rule: first played of the closest wins"]["record"],
        plays=["6-6"]),
    "bid must exceed 60": _six(bids=["60:6s", "60:0s"], contract=None),
    "must hold a tile of 3s to bid it": _six(bids=["60:6s", "62:3s"], contract=None),
    "must hold a double to bid doubles": _six(bids=["60:6s", "pass", "62:doubles"],
                                              contract=None),
    "the contract must be the winning bid's (6s)": _six(contract="5s"),
    "a count tile in the cat must be taken": _six(exchange={"take": [], "discard": []}),
    "not in the cat": _six(exchange={"take": ["6-6"], "discard": ["0-0"]}),
    "discards must be non-count tiles": _six(exchange={"take": ["5-0"], "discard": ["3-2"]}),
    "not in the hand as dealt": _six(exchange={"take": ["5-0"], "discard": ["4-3"]}),
    "discards come from the hand as dealt":
        _six(exchange={"take": ["5-0", "3-1"], "discard": ["0-0", "3-1"]}),
    "no tile of the hand as dealt is left to discard (count tiles may not be)":
        _six(bids=["60:5s"] + ["pass"] * 5, contract="5s",
             exchange={"take": ["0-0"], "discard": ["5-0"]}, hands=COUNT_HANDS, cat=COUNT_CAT),
    "as many tiles must be discarded as taken": _six(exchange={"take": ["5-0"], "discard": []}),
    "at most the two tiles of the cat can be taken":
        _six(exchange={"take": ["5-0", "3-1", "6-6"], "discard": ["0-0", "1-0", "2-1"]}),
    "not a tile: 'x' (tiles are written like '6-4', ends 0..6)":
        _six(exchange={"take": ["x"], "discard": ["0-0"]}),
}


def test_reasons_table_of_records_md_lists_the_reasons_drawn_here():
    rows = _table(RECORDS_DOC, "The reasons, each with an example of its wording")
    assert [row[0] for row in rows] == [f"`{reason}`" for reason in REASONS]


@pytest.mark.parametrize("reason", list(REASONS))
def test_each_reason_of_records_md_is_what_replay_says(reason):
    result = replay(parse_record(REASONS[reason]))
    assert result["ok"] is False
    assert result["error"]["reason"] == reason


def test_legal_exchanges_come_each_once_in_the_order_records_md_gives():
    assert "each distinct exchange once, ordered by their `take` then their `discard` list" \
        in RECORDS_DOC
    legal = replay(parse_record(_six()))["legal"]
    keys = [(x["take"], x["discard"]) for x in legal]
    assert keys == sorted(keys) and len(set(map(str, keys))) == len(keys) == 16
    assert {"take": ["5-0"], "discard": ["0-0"]} in legal
