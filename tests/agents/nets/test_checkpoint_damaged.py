"""Damaged checkpoints never load silently: bytes flipped inside a real checkpoint's tensors,
NaN weights and renamed files are refused by ``load_checkpoint``, ``texas42 match`` and
``scripts/train.py resume=`` with one line naming the file."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import torch

from agents.nets.checkpoint import CheckpointError, checksum, load_checkpoint, save_checkpoint
from agents.training.ppo_run import TrainConfig, run_training

from helpers import ROOT

RESUME_NEEDS = ("model", "optimizer", "rng", "step", "train_config")  # what resume requires


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A tiny training run's folder: checkpoints after updates 1 and 2."""
    before = torch.get_num_threads()
    folder = tmp_path_factory.mktemp("damaged") / "run"
    run_training(TrainConfig.from_dict(dict(
        seed=1, updates=2, algorithm=dict(tables=8, minibatch=64, epochs=1),
        model=dict(hidden=16, bid_hidden=16), eval=dict(every=0, against=[]),
        warm_start=dict(hands=0), checkpoint_every=1, threads=1, progress=False)), folder)
    torch.set_num_threads(before)
    return folder


def copy_run(run: Path, to: Path) -> Path:
    shutil.copytree(run / "checkpoints", to / "checkpoints")
    return to


def tensor_entries(path: Path) -> dict[str, tuple[int, int]]:
    """Each tensor storage of a torch zip (``archive/data/N``): (offset of its bytes, size)."""
    found = {}
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for info in z.infolist():
            if "/data/" in info.filename and info.compress_type == zipfile.ZIP_STORED:
                f.seek(info.header_offset)
                name_len, extra_len = struct.unpack("<HH", f.read(30)[26:30])
                found[info.filename] = (info.header_offset + 30 + name_len + extra_len,
                                        info.file_size)
    return found


def damage(path: Path, n: int = 4096, entry: str | None = None, fill: int | None = None) -> str:
    """Flip (or, with ``fill``, overwrite) ``n`` bytes inside a tensor's storage, in place,
    the zip's structure left whole; returns the entry. Default: the largest tensor."""
    entries = tensor_entries(path)
    entry = entry or max(entries, key=lambda e: entries[e][1])
    start, size = entries[entry]
    n = min(n, size)
    with open(path, "r+b") as f:
        f.seek(start)
        chunk = f.read(n)
        f.seek(start)
        f.write(bytes([fill] * n) if fill is not None else bytes(b ^ 0xFF for b in chunk))
    return entry


def test_flipped_tensor_bytes_load_in_torch_but_are_refused_as_damaged(run, tmp_path):
    copy_run(run, tmp_path)
    ck = tmp_path / "checkpoints"
    path = ck / "ckpt_000002.pt"
    original = torch.load(path, weights_only=True)
    damage(path)
    flipped = torch.load(path, weights_only=True)  # torch itself notices nothing
    assert any(not torch.equal(a, b) for a, b in zip(original["model"]["state_dict"].values(),
                                                      flipped["model"]["state_dict"].values()))
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path, require=RESUME_NEEDS)
    assert str(e.value) == (f"{path}: damaged checkpoint (checksum mismatch); the previous "
                            f"checkpoint {ck / 'ckpt_000001.pt'} loads (use it instead)")
    assert load_checkpoint(ck / "ckpt_000001.pt", require=RESUME_NEEDS)  # the hint holds


def test_one_flipped_byte_in_any_tensor_is_caught(run, tmp_path):
    source = run / "checkpoints" / "ckpt_000002.pt"
    entries = tensor_entries(source)
    assert len(entries) > 10  # weights, the pool, optimizer moments, generator states
    for entry in entries:
        path = tmp_path / "net.pt"
        shutil.copy(source, path)
        damage(path, n=1, entry=entry)
        with pytest.raises(CheckpointError, match=r"damaged checkpoint \(checksum mismatch\)$"):
            load_checkpoint(path)


def test_a_damaged_checkpoint_from_before_the_checksum_is_caught_by_its_nan_weights(tmp_path):
    path = tmp_path / "old.pt"
    weights = {"trunk.weight": torch.randn(64, 32), "trunk.bias": torch.randn(64)}
    torch.save({"format": "texas42-checkpoint", "version": 1, "model": weights}, path)
    assert load_checkpoint(path)  # a file written before the checksum loads
    damage(path, n=4096, fill=0xFF)  # 0xFFFFFFFF is a float32 NaN
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path)
    assert str(e.value) == (f"{path}: weights hold NaN or infinite values "
                            f"(tensor model.trunk.weight)")
    assert torch.isnan(torch.load(path, weights_only=True)["model"]["trunk.weight"]).any()


def test_a_trained_policy_with_a_nan_weight_is_refused_naming_the_tensor(run, tmp_path):
    data = load_checkpoint(run / "checkpoints" / "ckpt_000001.pt")
    name = next(k for k, v in data["model"]["state_dict"].items() if v.is_floating_point())
    data["model"]["state_dict"][name].view(-1)[3] = float("nan")
    path = save_checkpoint(tmp_path / "ckpt_000001.pt", data)
    with pytest.raises(CheckpointError) as e:
        load_checkpoint(path)
    assert str(e.value) == (f"{path}: weights hold NaN or infinite values "
                            f"(tensor model.state_dict.{name})")


def test_match_refuses_a_damaged_neural_checkpoint(run, tmp_path):
    copy_run(run, tmp_path)
    ck = tmp_path / "checkpoints"
    path = ck / "ckpt_000002.pt"
    damage(path)
    p = subprocess.run([sys.executable, "-m", "agents.cli", "match", f"neural:path={path}",
                        "random", "--deals", "2"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 2
    assert p.stderr.strip().splitlines() == [
        f"texas42 match: {path}: damaged checkpoint (checksum mismatch); the previous "
        f"checkpoint {ck / 'ckpt_000001.pt'} loads (use it instead)"]
    assert p.stdout == ""


def test_resume_from_a_damaged_run_stops_with_one_line_and_changes_nothing(run, tmp_path):
    folder = copy_run(run, tmp_path / "run")
    ck = folder / "checkpoints"
    damage(ck / "ckpt_000002.pt")
    before = {p.name: p.read_bytes() for p in ck.iterdir()}
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "train.py"), f"resume={folder}",
                        "threads=1", "progress=false", f"hydra.run.dir={tmp_path / 'hydra'}"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == [
        f"train: {ck / 'ckpt_000002.pt'}: damaged checkpoint (checksum mismatch); the previous "
        f"checkpoint {ck / 'ckpt_000001.pt'} loads (use it instead)"]
    assert "Traceback" not in p.stdout + p.stderr
    assert {p.name: p.read_bytes() for p in ck.iterdir()} == before  # nothing renamed or lost
    assert sorted(x.name for x in folder.iterdir()) == ["checkpoints"]


def test_resume_refuses_a_checkpoint_whose_name_and_update_disagree(run, tmp_path):
    folder = copy_run(run, tmp_path / "run")
    ck = folder / "checkpoints"
    shutil.copy(ck / "ckpt_000001.pt", ck / "ckpt_000100.pt")  # update 1 under a later name
    with pytest.raises(CheckpointError) as e:
        run_training(TrainConfig.from_dict(dict(resume=str(folder), threads=1,
                                                progress=False)), tmp_path / "unused")
    assert str(e.value).startswith(f"{ck / 'ckpt_000100.pt'}: named for update 100 but holds "
                                   f"update 1")
    assert str(e.value).endswith(f"; the previous checkpoint {ck / 'ckpt_000002.pt'} loads "
                                 f"(use it instead)")
    assert sorted(p.name for p in ck.iterdir()) == ["ckpt_000001.pt", "ckpt_000002.pt",
                                                    "ckpt_000100.pt"]


@pytest.mark.parametrize("net", sorted((ROOT / "experiments/bidding/nets").glob("*.pt")),
                         ids=lambda p: p.stem)
def test_the_committed_bid_nets_carry_their_checksum(net):
    raw = torch.load(net, map_location="cpu", weights_only=True)
    stored = raw.pop("checksum")
    assert stored == checksum(raw)
    assert load_checkpoint(net, require=("model", "net"))["kind"] == "bidnet"
