"""Checkpoint files (agents/nets/checkpoint.py): atomic saves, checksums, loads that say what
is wrong."""

from __future__ import annotations

import errno
import os
from collections import OrderedDict

import pytest
import torch

from agents import runs
from agents.nets import checkpoint
from agents.nets.checkpoint import (CheckpointError, checkpoints_in, checksum,
                                    latest_checkpoint, load_checkpoint, save_checkpoint)


def payload(k: float = 1.0, update: int | None = None) -> dict:
    """A small payload like training's; ``update``: its ``step.update`` (omitted if None)."""
    step = {"samples": 10} if update is None else {"update": update, "samples": 10}
    return {"model": {"w": torch.full((3, 2), k), "b": torch.arange(4)},
            "step": step,
            "rules": {"ruleset": "standard", "options": {"nello": True}},
            "pool": [{"w": torch.zeros(2)}], "note": None}


def save_at(folder, update: int, width: int = 6):
    """A checkpoint named ``ckpt_<update>.pt`` that holds that update (weights = update)."""
    return save_checkpoint(folder / f"ckpt_{update:0{width}d}.pt",
                           payload(float(update), update=update))


def truncate(path, keep: float = 0.5) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:int(len(data) * keep)])


def test_a_saved_checkpoint_loads_back_equal(tmp_path):
    path = save_checkpoint(tmp_path / "run" / "ckpt_000002.pt", payload(2.0, update=2))
    assert path == tmp_path / "run" / "ckpt_000002.pt"
    data = load_checkpoint(path)
    assert data["format"] == "texas42-checkpoint" and data["version"] == 1
    assert torch.equal(data["model"]["w"], torch.full((3, 2), 2.0))
    assert torch.equal(data["model"]["b"], torch.arange(4))
    assert data["step"] == {"update": 2, "samples": 10}
    assert data["rules"] == {"ruleset": "standard", "options": {"nello": True}}
    assert torch.equal(data["pool"][0]["w"], torch.zeros(2)) and data["note"] is None
    assert "checksum" not in data  # a property of the file, not of the payload


def test_every_saved_checkpoint_stores_the_checksum_of_what_it_holds(tmp_path):
    path = save_checkpoint(tmp_path / "ckpt_000001.pt", payload(update=1))
    raw = torch.load(path, weights_only=True)
    stored = raw.pop("checksum")
    assert stored.startswith("sha256:") and len(stored) == len("sha256:") + 64
    assert stored == checksum(raw) == checksum(load_checkpoint(path))


def test_the_checksum_ignores_dict_order_but_sees_every_value():
    a = {"model": OrderedDict([("w", torch.ones(2)), ("b", torch.zeros(3))]), "n": 1}
    b = {"n": 1, "model": {"b": torch.zeros(3), "w": torch.ones(2)}}
    assert checksum(a) == checksum(b)
    base = checksum(a)
    for changed in ({"model": {"w": torch.tensor([1.0, 1.5]), "b": torch.zeros(3)}, "n": 1},
                    {"model": {"w": torch.ones(2, dtype=torch.float64), "b": torch.zeros(3)},
                     "n": 1},
                    {"model": {"w": torch.ones(1, 2), "b": torch.zeros(3)}, "n": 1},
                    {"model": {"w": torch.ones(2), "b": torch.zeros(3)}, "n": 1.0},
                    {"model": {"w": torch.ones(2), "b": torch.zeros(3)}, "n": True},
                    {"model": {"w": torch.ones(2), "c": torch.zeros(3)}, "n": 1}):
        assert checksum(changed) != base
    assert checksum({"x": [1, 2]}) != checksum({"x": (1, 2)})
    assert checksum({"x": ["ab", "c"]}) != checksum({"x": ["a", "bc"]})
    # a view hashes as its values, whatever the storage around it
    assert checksum({"w": torch.arange(10)[::2]}) == checksum({"w": torch.arange(0, 10, 2)})


def test_a_checkpoint_from_before_the_checksum_still_loads(tmp_path):
    path = tmp_path / "ckpt_000003.pt"
    torch.save({"format": "texas42-checkpoint", "version": 1, **payload(3.0, update=3)}, path)
    data = load_checkpoint(path)
    assert torch.equal(data["model"]["w"], torch.full((3, 2), 3.0))
    assert data["step"]["update"] == 3


def test_a_value_changed_behind_the_checksum_is_a_damaged_checkpoint(tmp_path):
    ok = save_at(tmp_path, 1)
    path = save_at(tmp_path, 2)
    raw = torch.load(path, weights_only=True)
    raw["model"]["w"][0, 0] = 2.5  # still a plausible weight: only the checksum can tell
    torch.save(raw, path)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path)
    assert str(e.value) == (f"{path}: damaged checkpoint (checksum mismatch); "
                            f"the previous checkpoint {ok} loads (use it instead)")


def test_resaving_a_loaded_checkpoint_writes_a_fresh_checksum(tmp_path):
    path = save_checkpoint(tmp_path / "net.pt", payload(update=1))
    data = load_checkpoint(path)
    data["note"] = "fine-tuned"
    data["checksum"] = "sha256:" + "0" * 64  # a stale one a caller kept: replaced
    save_checkpoint(path, data)
    assert load_checkpoint(path)["note"] == "fine-tuned"


def test_nan_or_infinite_weights_are_refused_with_the_tensor_named(tmp_path):
    ok = save_at(tmp_path, 1)
    for bad, name in ((float("nan"), "model.w"), (float("inf"), "pool.0.w")):
        p = payload(2.0, update=2)
        if name == "model.w":
            p["model"]["w"][1, 1] = bad
        else:
            p["pool"][0]["w"][0] = -bad
        path = save_checkpoint(tmp_path / "ckpt_000002.pt", p)
        with pytest.raises(CheckpointError) as e:
            load_checkpoint(path)
        assert str(e.value) == (f"{path}: weights hold NaN or infinite values (tensor {name}); "
                                f"the previous checkpoint {ok} loads (use it instead)")


def test_large_finite_weights_whose_sum_overflows_are_not_refused(tmp_path):
    big = torch.full((4,), 60000.0, dtype=torch.float16)  # the sum is inf in float16
    path = save_checkpoint(tmp_path / "net.pt", {"model": {"w": big}})
    assert torch.equal(load_checkpoint(path)["model"]["w"], big)


def test_a_file_whose_name_and_update_disagree_is_refused_naming_both(tmp_path):
    ok = save_at(tmp_path, 40)
    path = save_checkpoint(tmp_path / "ckpt_000100.pt", payload(50.0, update=50))
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}: named for update 100 but holds update 50")
    assert msg.endswith(f"; the previous checkpoint {ok} loads (use it instead)")
    # a name without an update, or a payload without one, is not compared
    assert load_checkpoint(save_checkpoint(tmp_path / "best.pt", payload(update=7)))
    assert load_checkpoint(save_checkpoint(tmp_path / "ckpt_000009.pt", payload()))


def test_save_leaves_no_temporary_file_and_earlier_checkpoints_untouched(tmp_path):
    first = save_at(tmp_path, 1)
    before = first.read_bytes()
    stat = first.stat()
    second = save_at(tmp_path, 2)
    assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt", "ckpt_000002.pt"]
    assert first.read_bytes() == before and first.stat().st_mtime_ns == stat.st_mtime_ns
    assert torch.equal(load_checkpoint(first)["model"]["w"], torch.full((3, 2), 1.0))
    # saving again under an existing name replaces it whole
    save_checkpoint(second, payload(5.0, update=2))
    assert torch.equal(load_checkpoint(second)["model"]["w"], torch.full((3, 2), 5.0))
    assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt", "ckpt_000002.pt"]


def test_a_failed_save_leaves_earlier_checkpoints_and_no_litter(tmp_path):
    first = save_at(tmp_path, 1)
    before = first.read_bytes()
    with pytest.raises(TypeError) as e:
        save_checkpoint(tmp_path / "ckpt_000002.pt", {"model": lambda: 0})  # not plain data
    assert str(e.value) == (f"{tmp_path / 'ckpt_000002.pt'}: checkpoint value model: a "
                            f"function, not plain data (tensors, numbers, strings, lists, dicts)")
    assert first.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt"]  # no half-written temp file


class FullDisk:
    """A file that takes ``room`` bytes, then fails as a full disk does."""

    def __init__(self, f, room: int):
        self.f, self.room = f, room

    def write(self, b) -> int:
        n = memoryview(b).nbytes
        if n > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room -= n
        return self.f.write(b)

    def __getattr__(self, name):
        return getattr(self.f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.f.close()


def test_a_full_disk_mid_write_says_so_and_leaves_nothing(tmp_path, monkeypatch):
    first = save_at(tmp_path, 1)
    before = first.read_bytes()
    size = first.stat().st_size
    real_open, real_save = open, torch.save
    torch_said = []

    def save_and_note(obj, f, *args, **kwargs):  # what torch itself reports
        try:
            return real_save(obj, f, *args, **kwargs)
        except Exception as e:
            torch_said.append(str(e))
            raise

    monkeypatch.setattr(torch, "save", save_and_note)
    target = tmp_path / "ckpt_000002.pt"
    for room in range(0, size, 97):  # the disk fills at many points of the file
        monkeypatch.setattr(runs, "open",  # the atomic write opens the file
                            lambda p, mode="r": FullDisk(real_open(p, mode), room), raising=False)
        with pytest.raises(CheckpointError) as e:
            save_at(tmp_path, 2)
        assert str(e.value) == (f"{target}: checkpoint not written (No space left on device "
                                f"(ENOSPC)); nothing already saved was changed"), room
        assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt"], room
        assert first.read_bytes() == before
    # torch alone mostly says this, which does not say the disk is full
    assert any("unexpected pos" in said for said in torch_said)
    # over an existing file of the same name: the old one stays whole
    with pytest.raises(CheckpointError, match="No space left on device"):
        save_checkpoint(first, payload(9.0, update=1))
    assert first.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt"]


def test_a_full_disk_at_the_flush_to_disk_says_so_and_leaves_nothing(tmp_path, monkeypatch):
    first = save_at(tmp_path, 1)
    before = first.read_bytes()

    def fsync_full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(checkpoint.os, "fsync", fsync_full)
    with pytest.raises(CheckpointError) as e:
        save_at(tmp_path, 2)
    assert str(e.value).startswith(f"{tmp_path / 'ckpt_000002.pt'}: checkpoint not written "
                                   f"(No space left on device")
    assert sorted(os.listdir(tmp_path)) == ["ckpt_000001.pt"] and first.read_bytes() == before


def test_a_truncated_checkpoint_names_itself_and_the_previous_one_that_loads(tmp_path):
    ok = save_at(tmp_path, 10)
    also_torn = save_at(tmp_path, 20)
    nan = save_checkpoint(tmp_path / "ckpt_000025.pt",
                          {**payload(update=25), "model": {"w": torch.tensor([float("nan")])}})
    torn = save_at(tmp_path, 30)
    save_at(tmp_path, 40)  # later: never suggested
    truncate(torn)
    truncate(also_torn, 0.9)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(torn)
    msg = str(e.value)
    assert msg.startswith(str(torn)) and "not a readable checkpoint" in msg
    assert msg.endswith(f"; the previous checkpoint {ok} loads (use it instead)")
    assert "ckpt_000040" not in msg and "ckpt_000020" not in msg and str(nan) not in msg


def test_the_previous_checkpoint_is_found_by_number_not_by_spelling(tmp_path):
    ok = save_at(tmp_path, 9, width=1)
    torn = save_at(tmp_path, 10, width=1)
    assert checkpoints_in(tmp_path) == [ok, torn]
    truncate(torn)
    with pytest.raises(CheckpointError, match="previous checkpoint .*ckpt_9.pt loads"):
        load_checkpoint(torn)


def test_a_torn_checkpoint_alone_says_so_without_a_suggestion(tmp_path):
    torn = save_at(tmp_path, 1)
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
    assert str(e.value) == (f"{path}: not a readable checkpoint (not a PyTorch file: torn, "
                            f"or some other file)")
    text = tmp_path / "README.md"
    text.write_text("# not weights\n")
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(text)
    assert str(e.value) == (f"{text}: not a readable checkpoint (not a PyTorch file: torn, "
                            f"or some other file)")


def test_a_file_that_would_run_code_is_not_loaded(tmp_path):
    path = tmp_path / "ckpt_000001.pt"
    torch.save({"format": "texas42-checkpoint", "version": 1, "model": Exception("x")}, path)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path)
    assert str(e.value) == (f"{path}: not a readable checkpoint (it holds Python objects, not "
                            f"only tensors and plain data; not loaded, since loading it would "
                            f"run its code)")  # and no advice to load it with weights_only=False


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
        save_at(ck, n, width=1)
    (ck / "ckpt_latest.pt").write_bytes(b"not a numbered checkpoint")
    (ck / "notes.txt").write_text("x")
    assert [p.name for p in checkpoints_in(ck)] == ["ckpt_2.pt", "ckpt_9.pt", "ckpt_10.pt"]
    assert latest_checkpoint(ck) == ck / "ckpt_10.pt"
    assert latest_checkpoint(tmp_path) == ck / "ckpt_10.pt"
    assert latest_checkpoint(ck / "ckpt_2.pt") == ck / "ckpt_2.pt"
    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="empty: no checkpoint"):
        latest_checkpoint(tmp_path / "empty")
    with pytest.raises(CheckpointError, match="nope: no such file or folder"):
        latest_checkpoint(tmp_path / "nope")


def test_an_expert_runs_rounds_are_found_by_folder_the_last_round_first(tmp_path):
    ck = tmp_path / "checkpoints"
    ck.mkdir()
    for name in ("round_0.pt", "round_10.pt", "round_2.pt", "round_x.pt"):
        (ck / name).write_bytes(b"")
    assert latest_checkpoint(tmp_path) == ck / "round_10.pt"
    assert latest_checkpoint(ck) == ck / "round_10.pt"
    (ck / "ckpt_3.pt").write_bytes(b"")  # a training run's checkpoints come first
    assert latest_checkpoint(ck) == ck / "ckpt_3.pt"
