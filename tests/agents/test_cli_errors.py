"""The texas42 command's refusals: one line on stderr naming the option, the value and what is
allowed, exit 2, before any work; exit codes a script can trust; short error lines."""

import json
import random
import subprocess
import sys

import pytest

import agents.cli
from agents.cli import main
from texas42_env.records import RecordError

from helpers import record

MISSING = "no_such_folder/r.jsonl"  # relative to the test's folder, where the command runs

BAD = [
    # (argv, words the one stderr line must hold)
    (["match", "random", "random", "--deals", "0"], ["--deals", "'0'", "at least 1"]),
    (["match", "random", "random", "--deals", "-5"], ["--deals", "'-5'", "at least 1"]),
    (["match", "random", "random", "--chunk", "0"], ["--chunk", "'0'", "at least 1"]),
    (["match", "random", "random", "--chunk", "-1"], ["--chunk", "'-1'", "at least 1"]),
    (["match", "random", "random", "--seed", "-1"], ["--seed", "'-1'", "at least 0"]),
    (["match", "random", "random", "--rules", "[1,2]"],
     ["--rules", "'[1,2]'", "JSON object of rules.md options"]),
    (["match", "random", "random", "--rules", "{bad"],
     ["--rules", "'{bad'", "JSON object", "not JSON"]),
    (["match", "random", "random", "--rules", '{"zz": 1}'],
     ["--rules", "unknown option 'zz'", "allowed: all_pass"]),
    (["match", "random", "random", "--mode", "sets"],
     ["--mode", "'sets'", "'hands', 'games'"]),
    (["match", "random", "random", "--records", MISSING],
     ["--records", "'no_such_folder/r.jsonl'", "folder", "does not exist"]),
    (["match", "random", "random", "--records", "."], ["--records", "'.'", "is a folder"]),
    (["play", "--rules", "[1]"], ["--rules", "'[1]'", "JSON object of rules.md options"]),
    (["play", "--rules", "5"], ["--rules", "'5'", "JSON object of rules.md options"]),
    (["play", "--ruleset", "six-player", "--rules", '{"nello": true}'],
     ["--rules", "unknown option 'nello'", "'six-player'", "allowed: all_pass"]),
    (["play", "--hands", "0"], ["--hands", "'0'", "at least 1"]),
    (["play", "--seed", "-1"], ["--seed", "'-1'", "at least 0"]),
    (["play", "--seat", "abc"], ["--seat", "'abc'", "int"]),
    (["play", "--out", MISSING], ["--out", "'no_such_folder/r.jsonl'", "does not exist"]),
    (["bench", "--batches", "0"], ["--batches", "'0'", "at least 1", "commas"]),
    (["bench", "--batches", "abc"], ["--batches", "'abc'", "at least 1", "commas"]),
    (["bench", "--batches", "1,,8"], ["--batches", "'1,,8'", "at least 1"]),
    (["bench", "--ruleset", "chess"], ["--ruleset", "'chess'", "'standard', 'six-player'"]),
    (["bench", "--seconds", "0"], ["--seconds", "'0'", "above 0"]),
    (["bench", "--seconds", "-1"], ["--seconds", "'-1'", "above 0"]),
    (["bench", "--seconds", "nan"], ["--seconds", "'nan'", "above 0"]),
    (["bench", "--seed", "-1"], ["--seed", "'-1'", "at least 0"]),
    (["bench", "--solver-n", "0", "--kinds", "solver"], ["--solver-n", "'0'", "at least 1"]),
    (["bench", "--kinds", "gpu,core"], ["--kinds", "'gpu'", "allowed: core, env"]),
    (["demo", "--hands", "0"], ["--hands", "'0'", "at least 1"]),
    (["demo", "--seed", "-1"], ["--seed", "'-1'", "at least 0"]),
    (["demo", "--out", MISSING], ["--out", "'no_such_folder/r.jsonl'", "does not exist"]),
    (["frobnicate"], ["command", "'frobnicate'", "'replay', 'bench'"]),
]


def texas42(*argv, cwd, stdin=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "agents.cli", *argv], cwd=cwd, input=stdin,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("argv,words", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_option_is_one_line_and_exit_2_before_any_work(tmp_path, argv, words):
    p = texas42(*argv, cwd=tmp_path, stdin="")
    assert p.returncode == 2
    assert "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1, p.stderr
    verb = "texas42" if argv[0] == "frobnicate" else f"texas42 {argv[0]}"
    assert lines[0].startswith(f"{verb}: ")
    for w in words:
        assert w in lines[0]
    assert p.stdout == ""  # nothing played, measured or shown
    assert list(tmp_path.iterdir()) == []  # and no file or folder made


def test_bench_help_lists_every_kind_and_ruleset(tmp_path):
    p = texas42("bench", "--help", cwd=tmp_path)
    assert p.returncode == 0
    text = " ".join(p.stdout.split())
    for kind in agents.cli.BENCH_KINDS:
        assert kind in text
    assert "bidding" in text and "standard, six-player" in text


def test_solve_help_says_its_exit_codes(tmp_path):
    text = " ".join(texas42("solve", "--help", cwd=tmp_path).stdout.split())
    assert "Exit 0 when every line was solved, 1 when any line was an error" in text


def _deals_played(records: list[dict]) -> set:
    return {(r["game"], r["hand"]) for r in records}


def test_records_are_appended_after_the_summary_and_an_existing_file_is_kept(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text('{"earlier": "match"}\n')
    p = texas42("match", "random", "random", "--deals", "2", "--quiet", "--records",
                "games.jsonl", cwd=tmp_path)
    assert p.returncode == 0 and p.stderr == ""
    assert "marks per hand, A - B" in p.stdout
    lines = path.read_text().splitlines()
    assert lines[0] == '{"earlier": "match"}'
    assert len(lines) == 1 + 4  # two deal pairs, each deal played twice
    assert len(_deals_played([json.loads(x) for x in lines[1:]])) == 2


def test_records_a_missing_folder_refuses_at_once_and_keeps_nothing_half_done(tmp_path):
    p = texas42("match", "random", "random", "--deals", "2", "--records", MISSING, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.splitlines() == [
        "texas42 match: argument --records: cannot write 'no_such_folder/r.jsonl': its folder "
        "'no_such_folder' does not exist"]
    assert p.stdout == "" and not (tmp_path / "no_such_folder").exists()


def test_a_records_write_that_fails_after_the_match_keeps_the_summary(tmp_path, monkeypatch,
                                                                       capsys):
    def full_disk(path, records):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(agents.cli, "write_records", full_disk)
    code = main(["match", "random", "random", "--deals", "2", "--quiet", "--json",
                 "--records", str(tmp_path / "r.jsonl")])
    out, err = capsys.readouterr()
    assert code == 2
    assert "marks per hand, A - B" in out
    assert json.loads(out.splitlines()[-1])["marks_per_hand"]  # the figures, whole
    assert err.splitlines() == [f"texas42 match: cannot write the records to "
                                f"{tmp_path / 'r.jsonl'}: No space left on device (the "
                                f"summary above stands)"]


STOPPED_IN_PLAY = record(bids=["30", "pass", "pass", "pass"], contract="6s",
                         plays=["6-6", "5-5", "4-3", "3-0"])


def test_solve_exits_0_when_every_line_is_solved(tmp_path):
    (tmp_path / "good.jsonl").write_text(json.dumps(STOPPED_IN_PLAY) + "\n\n"
                                         + json.dumps(STOPPED_IN_PLAY) + "\n")
    p = texas42("solve", "good.jsonl", cwd=tmp_path)
    assert p.returncode == 0 and p.stderr == ""
    results = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(results) == 2 and all(r["to_move"] == 0 and r["values"] for r in results)


def test_solve_exits_1_when_some_line_is_an_error_and_still_solves_the_rest(tmp_path):
    (tmp_path / "mixed.jsonl").write_text(json.dumps(STOPPED_IN_PLAY) + "\nnot json\n"
                                          + json.dumps(record(dealer=9)) + "\n")
    p = texas42("solve", "mixed.jsonl", cwd=tmp_path)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    results = [json.loads(x) for x in p.stdout.splitlines()]
    assert results[0]["values"]
    assert results[1] == {"error": "line 2: not JSON (Expecting value at column 1)"}
    assert results[2]["error"].startswith("line 3: field 'dealer': must be a seat 0..3")


def test_solve_exits_1_for_binary_garbage_every_line_an_error(tmp_path):
    (tmp_path / "garbage.bin").write_bytes(random.Random(0).randbytes(3000))
    p = texas42("solve", "garbage.bin", cwd=tmp_path)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    results = [json.loads(x) for x in p.stdout.splitlines()]
    assert len(results) > 5 and all(set(r) == {"error"} for r in results)


def test_solve_of_a_missing_file_exits_2(tmp_path):
    p = texas42("solve", "nope.jsonl", cwd=tmp_path)
    assert p.returncode == 2
    assert p.stderr.splitlines() == ["texas42 solve: cannot read nope.jsonl: No such file or "
                                     "directory"]


def _big(field, value) -> str:
    return json.dumps({**record(), field: value}) + "\n"


BIG = "x" * 1_000_000


@pytest.mark.parametrize("verb", ["replay", "show"])
@pytest.mark.parametrize("line,field", [
    (_big("format", BIG), "format"),
    (_big("dealer", BIG), "dealer"),
    (_big("options", {"target": [7] * 300_000}), "options"),
    (_big("hands", [[BIG] + record()["hands"][0][1:]] + record()["hands"][1:]), "hands"),
], ids=["format", "dealer", "options-list", "hands"])
def test_a_1mb_bad_value_gives_a_short_error_line(tmp_path, verb, line, field):
    (tmp_path / "big.jsonl").write_text(_big("bids", []) + line)
    p = texas42(verb, "big.jsonl", cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and len(lines[0]) < 300, lines[0][:400]
    assert lines[0].startswith(f"texas42 {verb}: big.jsonl: line 2: field {field!r}: ")
    assert lines[0].count(" characters)") == 1  # cut once, with the value's length


def test_solve_error_lines_are_short_too(tmp_path):
    (tmp_path / "big.jsonl").write_text(_big("format", BIG)
                                        + json.dumps(record(bids=[BIG])) + "\n")
    p = texas42("solve", "big.jsonl", cwd=tmp_path)
    assert p.returncode == 1
    errors = [json.loads(x)["error"] for x in p.stdout.splitlines()]
    assert errors[0] == ("line 1: field 'format': unknown format '" + "x" * 60
                         + "…' (1000000 characters); expected 'texas42-record/1'")
    assert errors[1].startswith("line 2: record action 0: 'xxx") and len(errors[1]) < 200
    assert "(1000000 characters)" in errors[1]


def test_only_quoted_values_are_cut_not_prose_between_apostrophes():
    prose = ("the record's rules (standard, {}) are not this env's rules, and so on and on, "
             "which isn't a value")
    assert RecordError("options", prose).message == prose
    cut = RecordError("hands", "not a tile: '" + "y" * 100 + "' (tiles are written like '6-4')")
    assert cut.message == ("not a tile: '" + "y" * 60 + "…' (100 characters) (tiles are "
                           "written like '6-4')")
    assert RecordError("hands", cut.message).message == cut.message  # cut once only
