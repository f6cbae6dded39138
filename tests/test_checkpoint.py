"""Checkpoint files (agents/checkpoint.py): atomic saves, loads that say what is wrong."""

from __future__ import annotations

import os

import pytest
import torch

from agents.nets.checkpoint import (CheckpointError, checkpoints_in, latest_checkpoint,
                               load_checkpoint, save_checkpoint)


def payload(k: float = 1.0) -> dict:
    return {"model": {"w": torch.full((3, 2), k), "b": torch.arange(4)},
            "step": {"update": int(k), "samples": 10},
            "rules": {"ruleset": "standard", "options": {"nello": True}},
            "pool": [{"w": torch.zeros(2)}], "note": None}


def truncate(path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])


def test_a_saved_checkpoint_loads_back_equal(tmp_path):
    path = save_checkpoint(tmp_path / "run" / "ckpt_000001.pt", payload(2.0))
    assert path == tmp_path / "run" / "ckpt_000001.pt"
    data = load_checkpoint(path)
    assert data["format"] == "texas42-checkpoint" and data["version"] == 1
    assert torch.equal(data["model"]["w"], torch.full((3, 2), 2.0))
    assert torch.equal(data["model"]["b"], torch.arange(4))
    assert data["step"] == {"update": 2, "samples": 10}
    assert data["rules"] == {"ruleset": "standard", "options": {"nello": True}}
    assert torch.equal(data["pool"][0]["w"], torch.zeros(2)) and data["note"] is None


def test_save_leaves_no_temporary_file_and_earlier_checkpoints_untouched(tmp_path):
    first = save_checkpoint(tmp_path / "ckpt_000001.pt", payload(1.0))
    before = first.read_bytes()
    stat = first.stat()
    second = save_checkpoint(tmp_path / "ckpt_000002.pt", payload(2.0))
    assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt", "ckpt_000002.pt"]
    assert first.read_bytes() == before and first.stat().st_mtime_ns == stat.st_mtime_ns
    assert torch.equal(load_checkpoint(first)["model"]["w"], torch.full((3, 2), 1.0))
    # saving again under an existing name replaces it whole
    save_checkpoint(second, payload(5.0))
    assert torch.equal(load_checkpoint(second)["model"]["w"], torch.full((3, 2), 5.0))
    assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt", "ckpt_000002.pt"]


def test_a_failed_save_leaves_earlier_checkpoints_and_no_litter(tmp_path):
    first = save_checkpoint(tmp_path / "ckpt_000001.pt", payload(1.0))
    before = first.read_bytes()
    with pytest.raises(Exception):
        save_checkpoint(tmp_path / "ckpt_000002.pt", {"model": lambda: 0})  # not picklable
    assert first.read_bytes() == before
    assert not (tmp_path / "ckpt_000002.pt").exists()
    assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt"]  # no half-written temp file


def test_a_truncated_checkpoint_names_itself_and_the_previous_one_that_loads(tmp_path):
    ok = save_checkpoint(tmp_path / "ckpt_000010.pt", payload(1.0))
    also_torn = save_checkpoint(tmp_path / "ckpt_000020.pt", payload(2.0))
    torn = save_checkpoint(tmp_path / "ckpt_000030.pt", payload(3.0))
    save_checkpoint(tmp_path / "ckpt_000040.pt", payload(4.0))  # later: never suggested
    truncate(torn)
    truncate(also_torn, 0.9)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(torn)
    msg = str(e.value)
    assert msg.startswith(str(torn)) and "not a readable checkpoint" in msg
    assert f"the previous checkpoint {ok} loads" in msg
    assert "ckpt_000040" not in msg and "ckpt_000020" not in msg.replace(str(torn), "")


def test_the_previous_checkpoint_is_found_by_number_not_by_spelling(tmp_path):
    ok = save_checkpoint(tmp_path / "ckpt_9.pt", payload(9.0))
    torn = save_checkpoint(tmp_path / "ckpt_10.pt", payload(10.0))
    assert checkpoints_in(tmp_path) == [ok, torn]
    truncate(torn)
    with pytest.raises(CheckpointError, match="previous checkpoint .*ckpt_9.pt loads"):
        load_checkpoint(torn)


def test_a_torn_checkpoint_alone_says_so_without_a_suggestion(tmp_path):
    torn = save_checkpoint(tmp_path / "ckpt_000001.pt", payload())
    truncate(torn, 0.3)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(torn)
    assert str(torn) in str(e.value) and "previous checkpoint" not in str(e.value)


def test_a_torch_file_that_is_not_a_checkpoint_is_refused(tmp_path):
    path = tmp_path / "weights.pt"
    torch.save({"state_dict": {"w": torch.ones(2)}}, path)
    with pytest.raises(CheckpointError, match="not a texas42 checkpoint") as e:
        load_checkpoint(path)
    assert str(path) in str(e.value)
    torch.save(torch.ones(3), path)
    with pytest.raises(CheckpointError, match="not a texas42 checkpoint"):
        load_checkpoint(path)


def test_random_bytes_are_not_a_readable_checkpoint(tmp_path):
    path = tmp_path / "ckpt_000001.pt"
    path.write_bytes(os.urandom(2000))
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path)
    assert str(e.value).startswith(f"{path}: not a readable checkpoint")
    assert "Traceback" not in str(e.value) and "\n" not in str(e.value)


def test_a_file_that_would_run_code_is_not_loaded(tmp_path):
    path = tmp_path / "ckpt_000001.pt"
    torch.save({"format": "texas42-checkpoint", "version": 1, "model": Exception("x")}, path)
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(path)


def test_a_missing_file_is_named(tmp_path):
    path = tmp_path / "nope" / "ckpt_000001.pt"
    with pytest.raises(CheckpointError, match="no such checkpoint file") as e:
        load_checkpoint(path)
    assert str(path) in str(e.value)


def test_another_version_or_a_missing_key_is_refused(tmp_path):
    path = tmp_path / "ckpt_000001.pt"
    torch.save({"format": "texas42-checkpoint", "version": 99, "model": {}}, path)
    with pytest.raises(CheckpointError, match="version 99"):
        load_checkpoint(path)
    save_checkpoint(path, {"model": {}})
    with pytest.raises(CheckpointError, match="lacks 'optimizer'"):
        load_checkpoint(path, require=("model", "optimizer"))
    assert load_checkpoint(path)["model"] == {}


def test_latest_checkpoint_takes_a_file_a_folder_or_a_run_folder(tmp_path):
    ck = tmp_path / "checkpoints"
    for n in (2, 10, 9):
        save_checkpoint(ck / f"ckpt_{n}.pt", payload(n))
    (ck / "ckpt_latest.pt").write_bytes(b"not a numbered checkpoint")
    (ck / "notes.txt").write_text("x")
    assert [p.name for p in checkpoints_in(ck)] == ["ckpt_2.pt", "ckpt_9.pt", "ckpt_10.pt"]
    assert latest_checkpoint(ck) == ck / "ckpt_10.pt"
    assert latest_checkpoint(tmp_path) == ck / "ckpt_10.pt"
    assert latest_checkpoint(ck / "ckpt_2.pt") == ck / "ckpt_2.pt"
    with pytest.raises(CheckpointError, match="no checkpoint"):
        latest_checkpoint(tmp_path / "empty")
