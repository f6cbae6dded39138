"""The texas42 command: replay's output and exit codes, bench's JSON."""

import io
import json
import subprocess
import sys

import pytest

from agents.cli import main

from helpers import record


def _replay(tmp_path, lines, capsys):
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n")
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    return code, [json.loads(x) for x in out.splitlines()], err


def test_replay_prints_one_result_per_record_and_skips_blank_lines(tmp_path, capsys):
    good = json.dumps(record(bids=["30", "pass"]))
    code, out, err = _replay(tmp_path, [good, "", "   ", good], capsys)
    assert code == 0 and len(out) == 2 and err == ""
    assert out[0]["to_move"] == 2 and out[0]["phase"] == "bid"


def test_replay_illegal_action_is_a_result_not_a_failure(tmp_path, capsys):
    bad_play = json.dumps(record(bids=["30", "pass", "pass", "pass"], contract="6s",
                                 plays=["5-5"]))
    code, out, err = _replay(tmp_path, [bad_play], capsys)
    assert code == 0
    assert out[0] == {"ok": False, "error": {"index": 5, "phase": "play", "seat": 0,
                                             "action": "5-5", "reason": "not in hand"}}


def test_replay_writes_tiles_high_end_first_and_refuses_unknown_notation(tmp_path, capsys):
    rec = json.dumps(record(bids=["30", "pass", "pass", "pass"], contract="6s",
                            plays=["4-6"]))
    odd = json.dumps(record(bids=["thirty"]))
    code, out, _ = _replay(tmp_path, [rec, odd], capsys)
    assert code == 0
    assert out[0]["tricks"] == [{"leader": 0, "plays": ["6-4"]}]
    assert out[1]["ok"] is False and out[1]["error"]["action"] == "thirty"
    assert out[1]["error"]["phase"] == "bid" and out[1]["error"]["seat"] == 0


MALFORMED = [
    ("not json", "record"),
    ("[1, 2]", "record"),
    (json.dumps({**record(), "ruleset": "eight-player"}), "ruleset"),
    (json.dumps({**record(), "format": "other/2"}), "format"),
    (json.dumps(record(trumps="5s")), "options"),
    (json.dumps(record(nello_doubles="middle")), "options"),
    (json.dumps({**record(), "options": [1]}), "options"),
    (json.dumps(record(dealer=4)), "dealer"),
    (json.dumps(record(dealer="1")), "dealer"),
    (json.dumps(record(dealer=True)), "dealer"),
    (json.dumps({k: v for k, v in record().items() if k != "dealer"}), "dealer"),
    (json.dumps({**record(), "hands": record()["hands"][:3]}), "hands"),
    (json.dumps({**record(), "hands": [["6-6"] * 7] + record()["hands"][1:]}), "hands"),
    (json.dumps({**record(), "hands": [["7-1"] + record()["hands"][0][1:]]
                 + record()["hands"][1:]}), "hands"),
    (json.dumps({**record(), "hands": [record()["hands"][0][:6]] + record()["hands"][1:]}),
     "hands"),
    (json.dumps({**record(), "bids": "30"}), "bids"),
    (json.dumps({**record(), "bids": [30]}), "bids"),
    (json.dumps({**record(), "contract": 5}), "contract"),
    (json.dumps({**record(), "plays": [["6-6"]]}), "plays"),
]


@pytest.mark.parametrize("line,field", MALFORMED, ids=[f"{f}-{i}" for i, (_, f) in enumerate(MALFORMED)])
def test_replay_exits_2_naming_line_and_field_after_printing_earlier_lines(
        tmp_path, capsys, line, field):
    good = json.dumps(record())
    code, out, err = _replay(tmp_path, [good, "", line, good], capsys)
    assert code == 2
    assert len(out) == 1  # the line before was printed, the one after never read
    assert "line 3" in err and f"field {field!r}" in err


def test_replay_of_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("verb", ["replay", "show", "solve"])
def test_a_records_file_with_no_record_says_so(tmp_path, capsys, verb):
    for text in ("", "\n  \n"):
        path = tmp_path / "empty.jsonl"
        path.write_text(text)
        assert main([verb, str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err == (f"texas42 {verb}: {path}: no records (the file is empty "
                                     f"or holds only blank lines)\n")


def test_a_torn_line_is_worded_alike_by_replay_and_show(tmp_path, capsys):
    path = tmp_path / "torn.jsonl"
    path.write_text(json.dumps(record()) + "\n" + json.dumps(record())[:40] + "\n")
    said = {}
    for verb in ("replay", "show"):
        assert main([verb, str(path)]) == 2
        said[verb] = capsys.readouterr().err.strip().splitlines()[-1]
    assert said["replay"] == (f"texas42 replay: {path}: line 2: field 'record': not JSON "
                              f"(Expecting ':' delimiter at column 41)")
    assert said["show"] == said["replay"].replace("texas42 replay", "texas42 show")


def test_replay_reads_standard_input(monkeypatch, capsys):
    data = (json.dumps(record(bids=["30"])) + "\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["replay", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["to_move"] == 1


def test_replay_ignores_unknown_fields_and_standard_cat(tmp_path, capsys):
    rec = {**record(bids=["pass"]), "agent": "random", "cat": ["x"], "exchange": 3}
    code, out, _ = _replay(tmp_path, [json.dumps(rec)], capsys)
    assert code == 0 and out[0]["ok"]


def test_bench_json_lists_core_rows():
    out = subprocess.run([sys.executable, "-m", "agents.cli", "bench", "--json",
                          "--kinds", "core,env", "--batches", "1,8", "--seconds", "0.05"],
                         capture_output=True, text=True, check=True).stdout
    rows = json.loads(out)
    assert [(r["kind"], r["batch"]) for r in rows] == [("core", 1), ("core", 8), ("env", 1),
                                                       ("env", 8)]
    for r in rows:
        assert r["ruleset"] == "standard" and r["cores"] >= 1
        assert r["decisions_per_s"] > 0 and 0 < r["hands_per_s"] < r["decisions_per_s"]


def test_bench_six_player_by_default_measures_what_that_game_has():
    out = subprocess.run([sys.executable, "-m", "agents.cli", "bench", "--json", "--ruleset",
                          "six-player", "--batches", "1", "--seconds", "0.05"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["kind"], r["ruleset"]) for r in rows] == [("core", "six-player"),
                                                         ("env", "six-player")]


def test_bench_refuses_unknown_kinds(capsys):
    assert main(["bench", "--kinds", "gpu"]) == 2
    assert "unknown kinds" in capsys.readouterr().err


def test_demo_writes_records_that_replay(tmp_path, capsys):
    out = tmp_path / "demo.jsonl"
    assert main(["demo", "--hands", "2", "--seed", "3", "--out", str(out)]) == 0
    shown = capsys.readouterr().out
    assert "Hand 1 of game 0" in shown
    assert main(["replay", str(out)]) == 0
    results = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(results) >= 1 and all(r["ok"] and r["complete"] for r in results)
