"""Run folders (agents/runs.py): atomic writes, append-only logs with one torn-line rule, a
run folder made or resumed, the resume message."""

from __future__ import annotations

import errno
import json
import os

import numpy as np
import pytest

from agents import runs
from agents.runs import (RunError, append_line, atomic_write, new_run, open_run, read_lines,
                         report_resume, truncate_lines, write_json, write_npz)


# ----------------------------------------------------------------------------- atomic writes
def test_an_atomic_write_replaces_the_file_and_leaves_nothing_beside_it(tmp_path):
    path = tmp_path / "a.txt"
    atomic_write(path, "old\n")
    atomic_write(path, b"new\n")
    assert path.read_text() == "new\n" and os.listdir(tmp_path) == ["a.txt"]


def test_an_atomic_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "chunk.bin"
    atomic_write(path, b"the old contents")

    def half_then_fail(f):
        f.write(b"half of the new")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(OSError, match="No space left"):
        atomic_write(path, half_then_fail)
    assert path.read_bytes() == b"the old contents"
    assert os.listdir(tmp_path) == ["chunk.bin"]


def test_an_atomic_write_fails_whole_when_the_flush_to_disk_fails(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.pt"
    atomic_write(path, b"saved")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(runs.os, "fsync", full)
    with pytest.raises(OSError):
        atomic_write(path, b"lost")
    monkeypatch.undo()
    assert path.read_bytes() == b"saved" and os.listdir(tmp_path) == ["ckpt.pt"]


def test_json_and_npz_writes_read_back(tmp_path):
    write_json(tmp_path / "config.json", {"seed": 3, "contracts": (1, 2)})
    assert (tmp_path / "config.json").read_text() == \
        '{\n  "seed": 3,\n  "contracts": [\n    1,\n    2\n  ]\n}\n'
    write_npz(tmp_path / "chunk_00000.npz", {"points": np.arange(6, dtype=np.uint8)})
    with np.load(tmp_path / "chunk_00000.npz") as z:
        assert z["points"].tolist() == [0, 1, 2, 3, 4, 5]
    assert sorted(os.listdir(tmp_path)) == ["chunk_00000.npz", "config.json"]


# ----------------------------------------------------------------------------- logs
def test_lines_appended_read_back_in_order(tmp_path):
    log = tmp_path / "metrics.jsonl"
    assert read_lines(log) == []  # no log yet
    for u in range(3):
        append_line(log, {"update": u, "loss": 0.5 / (u + 1)})
    assert [r["update"] for r in read_lines(log)] == [0, 1, 2]
    assert log.read_text().count("\n") == 3


def test_a_torn_last_line_is_dropped_and_the_next_append_starts_clean(tmp_path, capsys):
    log = tmp_path / "results.jsonl"
    append_line(log, {"match": 1})
    append_line(log, {"match": 2})
    whole = log.read_bytes()
    with open(log, "ab") as f:  # a crash mid-write: part of a line, no newline
        f.write(b'{"match": 3, "st')
    assert read_lines(log) == [{"match": 1}, {"match": 2}]
    assert capsys.readouterr().err == ""  # a reader beside a live run says nothing
    assert read_lines(log, job="tournament") == [{"match": 1}, {"match": 2}]
    assert capsys.readouterr().err == (f"tournament: {log}: line 3 is incomplete (a write cut "
                                       f"short): dropped, its work is done again\n")
    assert log.read_bytes().startswith(whole)  # reading changes nothing
    append_line(log, {"match": 3})
    assert log.read_bytes() == whole + b'{"match": 3}\n'
    assert read_lines(log) == [{"match": 1}, {"match": 2}, {"match": 3}]


def test_a_whole_value_without_its_newline_is_torn_too(tmp_path):
    log = tmp_path / "eval.jsonl"
    log.write_bytes(b'{"update": 1}\n{"update": 2}')  # the newline never reached the disk
    assert read_lines(log) == [{"update": 1}]
    append_line(log, {"update": 2, "again": True})
    assert log.read_text() == '{"update": 1}\n{"update": 2, "again": true}\n'


def test_a_log_that_is_only_a_torn_line_is_emptied_by_the_next_append(tmp_path):
    log = tmp_path / "blocks.jsonl"
    log.write_bytes(b"\x00\x00\x00")  # a crash can leave zeroes where the line was going
    assert read_lines(log) == []
    append_line(log, {"first": 0})
    assert log.read_text() == '{"first": 0}\n'


def test_a_bad_line_before_the_last_is_an_error_naming_file_and_line(tmp_path):
    log = tmp_path / "metrics.jsonl"
    log.write_text('{"update": 1}\n{oops\n{"update": 3}\n')
    with pytest.raises(RunError, match=f"^{log}: line 2 is not a log line \\(not JSON") as e:
        read_lines(log)
    assert str(e.value).endswith("; fix or remove it to resume")


def test_a_complete_last_line_that_is_not_json_is_damage_not_a_tear(tmp_path):
    log = tmp_path / "metrics.jsonl"
    log.write_text('{"update": 1}\n{"upd\n')
    with pytest.raises(RunError, match="line 2 is not a log line"):
        read_lines(log)


def test_the_readers_check_and_error_name_what_a_line_should_be(tmp_path):
    class MyError(ValueError):
        pass

    log = tmp_path / "results.jsonl"
    log.write_text('{"key": 1}\n[1, 2]\n')
    with pytest.raises(MyError, match="line 2 is not a match result \\(no key\\)"):
        read_lines(log, lambda row: None if isinstance(row, dict) else "no key",
                   what="a match result", error=MyError)


def test_truncating_a_log_keeps_the_lines_as_they_were_and_drops_a_torn_one(tmp_path):
    log = tmp_path / "metrics.jsonl"
    log.write_bytes(b'{"update": 1, "x": 1.50}\n\n{"update": 2}\n{"update": 3}\n{"upd')
    kept = truncate_lines(log, lambda r: r["update"] <= 2)
    assert kept == [{"update": 1, "x": 1.5}, {"update": 2}]
    assert log.read_bytes() == b'{"update": 1, "x": 1.50}\n{"update": 2}\n'
    before = log.stat().st_mtime_ns
    truncate_lines(log, lambda r: True)  # nothing to drop: the file is left alone
    assert log.stat().st_mtime_ns == before
    truncate_lines(tmp_path / "none.jsonl", lambda r: False)  # no log: nothing to do
    assert sorted(os.listdir(tmp_path)) == ["metrics.jsonl"]


# ----------------------------------------------------------------------------- the folder
def test_a_run_folder_is_made_then_resumed_with_the_same_settings(tmp_path):
    run = tmp_path / "data"
    assert open_run(run, {"seed": 1, "contracts": (6, 7)}, what="a dataset",
                    header={"format": "x"}) is False
    assert json.loads((run / "config.json").read_text()) == \
        {"format": "x", "seed": 1, "contracts": [6, 7]}
    assert open_run(run, {"seed": 1, "contracts": (6, 7)}, what="a dataset") is True


def test_a_folder_of_other_settings_is_refused_naming_each_difference(tmp_path):
    run = tmp_path / "run"
    open_run(run, {"seed": 1, "worlds": 4}, what="an expert iteration run")
    before = (run / "config.json").read_bytes()
    with pytest.raises(RunError) as e:
        open_run(run, {"seed": 2, "worlds": 4}, what="an expert iteration run")
    assert str(e.value) == (f"{run} holds an expert iteration run made with other settings "
                            f"(seed: 1 there, 2 now); use another folder, or its own "
                            f"settings to resume it")
    assert (run / "config.json").read_bytes() == before


def test_a_setting_added_since_the_folder_was_made_counts_as_its_default(tmp_path):
    run = tmp_path / "run"
    open_run(run, {"seed": 1}, what="a run")
    assert open_run(run, {"seed": 1, "tau": 2.0}, what="a run", added={"tau": 2.0})
    with pytest.raises(RunError, match="tau: None there, 3.0 now"):
        open_run(run, {"seed": 1, "tau": 3.0}, what="a run", added={"tau": 2.0})


def test_a_config_that_is_not_json_is_named(tmp_path):
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(RunError, match="config.json: not valid JSON"):
        open_run(tmp_path, {"seed": 1}, what="a run")


def test_a_new_run_is_refused_where_one_is_naming_how_to_resume(tmp_path):
    run = tmp_path / "train"
    assert new_run(run, holds=None, resume_with=f"resume={run}") == run and run.is_dir()
    with pytest.raises(RunError) as e:
        new_run(run, holds="checkpoints", resume_with=f"resume={run}")
    assert str(e.value) == (f"{run} already holds checkpoints: continue it with "
                            f"resume={run}, or choose another folder")


def test_the_resume_message_says_what_is_kept_and_where_it_goes_on(tmp_path, capsys):
    line = report_resume("dataset", tmp_path, "3 of 5 chunks", "2 to make")
    assert line == f"dataset: resuming {tmp_path}: kept 3 of 5 chunks; 2 to make"
    assert capsys.readouterr().err == line + "\n"
