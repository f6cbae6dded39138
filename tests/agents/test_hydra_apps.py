"""The Hydra apps of scripts/ leave no trace of a refused start: no run folder, no log file."""

import subprocess
import sys

import pytest

from helpers import ROOT



@pytest.mark.parametrize("script, bad", [("tournament.py", "deals=abc"),
                                         ("bid_data.py", "worlds=abc"),
                                         ("train_bidnet.py", "epochs=abc"),
                                         ("train.py", "seed=-1")])
def test_a_refused_start_leaves_no_run_folder(tmp_path, script, bad):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / script), bad],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 1
    assert bad.split("=")[0] in out.stderr and "Traceback" not in out.stderr
    left = [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()]
    assert left == []
    assert [p for p in (tmp_path / "runs").glob("*/*")] == []


def test_a_tournament_run_folder_holds_its_outputs_and_no_log(tmp_path):
    run = tmp_path / "t"
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "tournament.py"),
                          "agents={a: {name: random}, b: {name: passive}}", "anchor=a",
                          "deals=2", "workers=1", "progress=false", f"hydra.run.dir={run}"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names = {p.name for p in run.iterdir()}
    assert {"results.jsonl", "ratings.csv", "report.md", "ratings.png", ".hydra"} <= names
    assert not list(run.glob("*.log"))


def test_a_renamed_config_says_its_new_name(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "train.py"),
                          "--config-name", "bidder"], capture_output=True, text=True,
                         cwd=tmp_path)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        "train: the config 'bidder' is now 'ppo_bidder': --config-name ppo_bidder"]
    assert not (tmp_path / "runs").exists()
