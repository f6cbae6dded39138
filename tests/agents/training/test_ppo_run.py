"""Training runs (agents/training/ppo_run.py, scripts/train.py): run folders, resume, config errors."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.nets.checkpoint import checkpoints_in, load_checkpoint
from agents.baselines.neural import NeuralAgent
from agents.training.ppo import PPOConfig
from agents.training.ppo_run import TrainConfig, TrainingInterrupted, run_training
from texas42_env.core import HAND_OVER, Game
from texas42_env.actions import NO_ACTION
from texas42_env.observation import make_encoder
from texas42_env.rules import ConfigError, RulesConfig
from helpers import ROOT, tiny_training



pytestmark = pytest.mark.usefixtures("restore_torch_threads")


def tiny(**over) -> dict:
    """A run of a few seconds (``helpers.tiny_training``)."""
    return tiny_training(**{**dict(updates=4, threads=1), **over})


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One uninterrupted tiny run: (its folder, its config, what run_training returned)."""
    before = torch.get_num_threads()
    folder = tmp_path_factory.mktemp("train") / "run"
    config = TrainConfig.from_dict(tiny())
    out = run_training(config, folder)
    torch.set_num_threads(before)
    return folder, config, out


def test_a_run_writes_checkpoints_events_evaluations_and_its_config(run):
    folder, config, out = run
    ck = folder / "checkpoints"
    # every update checkpointed, the newest keep_checkpoints kept
    assert [p.name for p in checkpoints_in(ck)] == ["ckpt_000002.pt", "ckpt_000003.pt",
                                                    "ckpt_000004.pt"]
    assert sorted(p.name for p in ck.iterdir()) == ["ckpt_000002.pt", "ckpt_000003.pt",
                                                    "ckpt_000004.pt"]
    assert out["checkpoint"] == str(ck / "ckpt_000004.pt") and out["update"] == 4
    data = load_checkpoint(ck / "ckpt_000004.pt",
                           require=("model", "optimizer", "rng", "step", "train_config"))
    assert data["step"]["update"] == 4 and data["step"]["hands"] == 4 * 32
    assert data["step"]["samples"] == out["samples"] > 4 * 32
    assert data["train_config"] == asdict(config)
    assert data["rules"]["ruleset"] == "standard"
    assert json.loads((folder / "config.json").read_text()) == asdict(config)
    lines = (folder / "eval.jsonl").read_text().splitlines()
    evals = [json.loads(line) for line in lines]
    assert [e["update"] for e in evals] == [2, 4]
    for e in evals:
        for name in ("random", "heuristic"):
            m, lo, hi = e[name]["marks_per_hand"]
            assert lo <= m <= hi and e[name]["pairs"] == 10
    assert out["eval"]["random"]["marks_per_hand"] == evals[-1]["random"]["marks_per_hand"]


def test_a_run_writes_per_update_metrics_curves_and_a_latest_link(run):
    folder, _, out = run
    metrics = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    assert [m["update"] for m in metrics] == [1, 2, 3, 4]
    assert metrics[-1]["samples"] == out["samples"]
    assert all("losses/pg_loss" in m and "perf/samples_per_s" in m for m in metrics)
    png = folder / "curves.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    latest = folder.parent / "latest.pt"  # a relative link to the newest checkpoint
    assert latest.is_symlink() and not Path(os.readlink(latest)).is_absolute()
    assert latest.resolve() == (folder / "checkpoints" / "ckpt_000004.pt").resolve()


def test_each_config_links_its_own_latest_and_a_resume_through_it_goes_on_in_the_run(
        tmp_path, capsys):
    runs = tmp_path / "runs" / "train"
    run_training(TrainConfig.from_dict(tiny(updates=2)), runs / "a")
    said = capsys.readouterr().out
    assert f"train: run folder {runs / 'a'} (resume={runs / 'a'} continues it); " \
        f"{runs / 'latest.pt'} will link to its newest checkpoint" in said.splitlines()[0]
    run_training(TrainConfig.from_dict(tiny(updates=2, latest="latest_other.pt")), runs / "b")
    run_training(TrainConfig.from_dict(tiny(updates=2, latest=None)), runs / "c")
    assert (runs / "latest.pt").resolve() == (runs / "a/checkpoints/ckpt_000002.pt").resolve()
    assert (runs / "latest_other.pt").resolve() == \
        (runs / "b/checkpoints/ckpt_000002.pt").resolve()
    assert sorted(p.name for p in runs.iterdir()) == ["a", "b", "c", "latest.pt",
                                                      "latest_other.pt"]
    moved = tmp_path / "moved"  # relative links: the runs folder may move
    runs.rename(moved)
    out = run_training(TrainConfig.from_dict(tiny(updates=3, resume=str(moved / "latest.pt"))),
                       tmp_path / "unused")
    assert out["checkpoint"] == str(moved / "a" / "checkpoints" / "ckpt_000003.pt")
    assert (moved / "latest.pt").resolve() == Path(out["checkpoint"]).resolve()
    with pytest.raises(ConfigError, match="latest must be a file name"):
        TrainConfig.from_dict(tiny(latest="sub/latest.pt"))


def test_resume_drops_the_lines_and_sets_aside_the_checkpoints_after_its_checkpoint(
        run, tmp_path):
    folder, _, _ = run
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)  # logs and checkpoints run to update 4; resume from 2
    with open(copy / "metrics.jsonl", "a") as f:  # and a line torn by a kill
        f.write('{"update": 5, "samp')
    config = TrainConfig.from_dict(dict(resume=str(copy / "checkpoints" / "ckpt_000002.pt"),
                                        updates=4, threads=1, progress=False))
    run_training(config, tmp_path / "not-used")
    metrics = [json.loads(line) for line in (copy / "metrics.jsonl").read_text().splitlines()]
    assert [m["update"] for m in metrics] == [1, 2, 3, 4]
    evals = [json.loads(line) for line in (copy / "eval.jsonl").read_text().splitlines()]
    assert [e["update"] for e in evals] == [2, 4]
    aside = sorted(p.name.split(".superseded")[0] for p in (copy / "checkpoints").iterdir()
                   if ".superseded-" in p.name)
    assert aside == ["ckpt_000003.pt", "ckpt_000004.pt"]  # kept, but never resumed from
    a = load_checkpoint(folder / "checkpoints" / "ckpt_000004.pt")
    b = load_checkpoint(copy / "checkpoints" / "ckpt_000004.pt")
    for key, value in a["model"]["state_dict"].items():
        assert torch.equal(value, b["model"]["state_dict"][key]), key


def test_ctrl_c_stops_after_the_update_in_progress_and_saves_a_whole_checkpoint(
        run, tmp_path, monkeypatch):
    import os
    import signal

    from agents.training.ppo import Trainer

    folder, config, _ = run
    real = Trainer.train_update

    def update_then_interrupt(self):
        if self.update == 1:  # Ctrl-C arrives in the middle of the second update
            os.kill(os.getpid(), signal.SIGINT)
        return real(self)

    monkeypatch.setattr(Trainer, "train_update", update_then_interrupt)
    with pytest.raises(TrainingInterrupted) as stopped:
        run_training(TrainConfig.from_dict(tiny(checkpoint_every=10)), tmp_path / "cut")
    saved = tmp_path / "cut" / "checkpoints" / "ckpt_000002.pt"
    assert str(stopped.value) == (f"interrupted: saved {saved} (update 2); continue with "
                                  f"resume={tmp_path / 'cut'}")
    assert stopped.value.checkpoint == saved
    names = [p.name for p in checkpoints_in(tmp_path / "cut" / "checkpoints")]
    assert names == ["ckpt_000000.pt", "ckpt_000002.pt"]  # after the warm start; on Ctrl-C
    a = load_checkpoint(folder / "checkpoints" / "ckpt_000002.pt")
    b = load_checkpoint(tmp_path / "cut" / "checkpoints" / "ckpt_000002.pt")
    for key, value in a["model"]["state_dict"].items():
        assert torch.equal(value, b["model"]["state_dict"][key]), key
    assert torch.equal(a["rng"]["torch"], b["rng"]["torch"])
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.parametrize("over, named", [
    (dict(checkpoint_every=0), "checkpoint_every"),
    (dict(eval=dict(against=["heurstic"])), "heurstic"),
    (dict(eval=dict(against=["pimc"])), "searches"),
    (dict(algorithm=dict(reward="game")), "reward"),
    (dict(algorithm=dict(tables="many")), "algorithm"),
    (dict(opponents=dict(search=0.1, search_agent="nosuch")), "nosuch"),
    (dict(opponents=dict(search=0.1, search_agent={"name": "pimc", "n_worlds": 0})),
     "opponents.search_agent"),
    (dict(opponents=dict(prioritize=-1)), "opponents.prioritize"),
])
def test_bad_training_settings_are_named_before_training(over, named):
    with pytest.raises(ConfigError, match=named):
        TrainConfig.from_dict(tiny(**over)).parts()


def test_a_run_logs_tensorboard_scalars(run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folder, _, _ = run
    events = list((folder / "tb").glob("events.out.tfevents.*"))
    assert len(events) == 1 and events[0].stat().st_size > 0
    acc = EventAccumulator(str(folder / "tb"))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in ("losses/pg_loss", "losses/v_loss", "losses/approx_kl", "losses/entropy",
                "losses/clipfrac", "losses/explained_variance", "rollout/learner_return",
                "perf/samples_per_s", "eval/random/marks_per_hand",
                "eval/heuristic/marks_per_hand", "warm_start/accuracy"):
        assert tag in tags, tag
    assert [e.step for e in acc.Scalars("losses/pg_loss")] == [1, 2, 3, 4]
    assert [e.step for e in acc.Scalars("eval/random/marks_per_hand")] == [2, 4]


def test_the_evaluation_log_is_strict_json(run):
    folder, _, _ = run

    def refuse(name):
        raise ValueError(f"{name} is not JSON")

    for line in (folder / "eval.jsonl").read_text().splitlines():
        json.loads(line, parse_constant=refuse)  # NaN / Infinity are not JSON


def test_resume_from_an_intermediate_checkpoint_continues_exactly(run, tmp_path, capsys):
    folder, _, _ = run
    copy = tmp_path / "copy"
    (copy / "checkpoints").mkdir(parents=True)
    shutil.copy(folder / "checkpoints" / "ckpt_000002.pt", copy / "checkpoints")
    config = TrainConfig.from_dict(dict(resume=str(copy), updates=4, seed=99, threads=1,
                                        eval=dict(every=2, pairs=10), progress=False))
    out = run_training(config, tmp_path / "not-used")
    assert re.search(r"ignored: .*\bseed\b", capsys.readouterr().out)
    assert not (tmp_path / "not-used").exists()
    assert out["checkpoint"] == str(copy / "checkpoints" / "ckpt_000004.pt")
    a = load_checkpoint(folder / "checkpoints" / "ckpt_000004.pt")
    b = load_checkpoint(copy / "checkpoints" / "ckpt_000004.pt")
    assert a["step"] == b["step"] and a["train_config"]["seed"] == b["train_config"]["seed"] == 1
    for key, value in a["model"]["state_dict"].items():
        assert torch.equal(value, b["model"]["state_dict"][key]), key
    assert len(a["pool"]) == len(b["pool"])
    for pa, pb in zip(a["pool"], b["pool"]):
        assert all(torch.equal(pa[k], pb[k]) for k in pa)
    for sa, sb in zip(a["optimizer"]["state"].values(), b["optimizer"]["state"].values()):
        assert torch.equal(sa["exp_avg"], sb["exp_avg"])
    # the evaluation after the last update sees the same policy
    last = json.loads((folder / "eval.jsonl").read_text().splitlines()[-1])
    again = json.loads((copy / "eval.jsonl").read_text().splitlines()[-1])
    assert last["random"]["marks_per_hand"] == again["random"]["marks_per_hand"]
    assert list((copy / "tb").glob("events.out.tfevents.*"))


def test_a_folder_with_checkpoints_is_not_overwritten_without_resume(run, tmp_path):
    folder, _, _ = run
    (tmp_path / "checkpoints").mkdir()
    old = shutil.copy(folder / "checkpoints" / "ckpt_000004.pt", tmp_path / "checkpoints")
    before = Path(old).read_bytes()
    with pytest.raises(ConfigError, match="already holds checkpoints") as e:
        run_training(TrainConfig.from_dict(tiny(updates=1)), tmp_path)
    assert f"resume={tmp_path}" in str(e.value)
    assert Path(old).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoints"]


def test_unknown_options_are_named():
    with pytest.raises(ConfigError, match="unknown training option.*batch, lrate"):
        TrainConfig.from_dict({"updates": 1, "lrate": 0.1, "batch": 3})
    for group, key in (("algorithm", "tablez"), ("model", "width"), ("opponents", "selfplay"),
                       ("eval", "games"), ("warm_start", "deals")):
        with pytest.raises(ConfigError, match=f"{group}.*{key}"):
            TrainConfig.from_dict(tiny(**{group: {key: 1}})).parts()


def test_bad_values_are_config_errors_that_name_the_option(tmp_path):
    for over, name in ((dict(algorithm=dict(tables=0)), "algorithm.tables"),
                       (dict(model=dict(critic="oracle")), "model.critic"),
                       (dict(opponents=dict(pool=-1)), "opponents.pool")):
        with pytest.raises(ConfigError, match=name):
            run_training(TrainConfig.from_dict(tiny(**over)), tmp_path / "bad")
    assert not (tmp_path / "bad").exists()


def test_six_player_trains_against_the_heuristic_and_is_rated_in_the_arena(tmp_path):
    config = TrainConfig.from_dict(tiny(
        ruleset="six-player", updates=2, eval=dict(every=2, pairs=6, against=["heuristic"]),
        warm_start=dict(hands=32, epochs=1, minibatch=256),
        opponents=dict(self_play=0.4, pool=0.3, heuristic=0.3, snapshot_every=1)))
    out = run_training(config, tmp_path / "six")
    assert out["update"] == 2
    rows = [json.loads(x) for x in (tmp_path / "six" / "eval.jsonl").read_text().splitlines()]
    assert rows and rows[-1]["heuristic"]["pairs"] == 6
    assert len(rows[-1]["heuristic"]["marks_per_hand"]) == 3


def test_six_player_self_play_trains(tmp_path):
    config = TrainConfig.from_dict(tiny(
        ruleset="six-player", updates=2, eval=dict(against=[]), warm_start=dict(hands=0),
        opponents=dict(self_play=0.7, pool=0.3, heuristic=0, snapshot_every=1)))
    out = run_training(config, tmp_path / "six")
    assert out["update"] == 2 and out["eval"] == {}
    data = load_checkpoint(out["checkpoint"])
    assert data["rules"]["ruleset"] == "six-player"
    game = Game(RulesConfig.make("six-player"))
    assert data["model"]["n_actions"] == game.n_actions
    agent = NeuralAgent(path=str(tmp_path / "six")).setup(game)
    enc = make_encoder(game)
    st = game.reset(8, seed=3)
    while (st.phase < HAND_OVER).any():  # the trained agent plays whole hands legally
        rows = np.flatnonzero(st.phase < HAND_OVER)
        actions = np.full(8, NO_ACTION, np.int64)
        actions[rows] = agent.act(enc.encode(st, st.to_move[rows], idx=rows), st.legal[rows])
        game.step(st, actions)


# ---------------------------------------------------------------------- Hydra
def compose(*overrides, name="train"):
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base=None):
        cfg = hydra_compose(config_name=name, overrides=list(overrides))
    return OmegaConf.to_container(cfg, resolve=True)


def test_the_default_config_is_a_valid_training_config():
    config = TrainConfig.from_dict(compose())
    rules, model, ppo, opp, ev, warm = config.parts()
    assert rules.ruleset == "standard" and ppo.tables == PPOConfig().tables
    assert ev.against == ["random", "heuristic"] and warm.hands == 0


def test_the_long_config_warm_starts_and_meets_the_heuristic_most():
    config = TrainConfig.from_dict(compose(name="long"))
    rules, model, ppo, opp, ev, warm = config.parts()
    assert warm.hands > 0 and warm.agent == "heuristic"
    assert opp.weights(0.5, True).argmax() == 2  # the heuristic is the likeliest opponent


def test_the_league_config_meets_pimc_and_prioritizes_its_opponents():
    config = TrainConfig.from_dict(compose(name="league"))
    rules, model, ppo, opp, ev, warm = config.parts()
    assert opp.prioritize > 0 and opp.search > 0 and opp.search_agent["name"] == "pimc"
    assert ppo.baseline == "solver" and Path(ROOT / config.init).is_file()
    w = opp.weights(0.5, True, np.array([0.5, 0.5, 0.5, 0.5, 0.9]))
    assert w[4] > opp.weights(0.5, True)[4]  # more PIMC where the learner loses more to it


def test_the_six_player_env_group_gives_a_valid_config():
    plain = compose("env=six-player")
    assert plain["ruleset"] == "six-player"
    assert plain["opponents"]["heuristic"] == 0 and plain["eval"]["against"] == []
    rules, *_ = TrainConfig.from_dict(plain).parts()
    assert rules.ruleset == "six-player"


def train_script(*overrides, cwd):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "train.py"), *overrides],
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_train_script_runs_a_tiny_config(tmp_path):
    run_dir = tmp_path / "run"
    p = train_script("updates=2", "algorithm.tables=32", "algorithm.minibatch=128",
                     "algorithm.epochs=1", "model.hidden=32", "model.bid_hidden=32",
                     "eval.every=0", "eval.pairs=10", "eval.against=[random]", "threads=1",
                     "progress=false", f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "2 updates" in p.stdout
    assert [c.name for c in checkpoints_in(run_dir / "checkpoints")] == ["ckpt_000002.pt"]
    saved = json.loads((run_dir / "config.json").read_text())
    assert saved["updates"] == 2 and saved["algorithm"]["tables"] == 32
    assert len((run_dir / "eval.jsonl").read_text().splitlines()) == 1
    assert list((run_dir / "tb").glob("events.out.tfevents.*"))
    assert not list(run_dir.rglob("*.log"))  # no train.log: nothing logs to it


def test_a_refused_start_of_the_script_leaves_no_folder(tmp_path):
    for bad in ("algorithm.tables=0", f"resume={tmp_path / 'nowhere'}"):
        p = train_script(bad, "threads=1", f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
        assert p.returncode == 1 and len(p.stderr.strip().splitlines()) == 1, p.stderr
        assert not (tmp_path / "run").exists(), bad


def test_the_train_script_reports_a_bad_option_without_a_traceback(tmp_path):
    p = train_script("algorithm.tables=0", "threads=1", f"hydra.run.dir={tmp_path / 'run'}",
                     cwd=tmp_path)
    assert p.returncode != 0
    assert "algorithm.tables must be positive, got 0" in p.stderr
    assert "Traceback" not in p.stderr + p.stdout
    assert not checkpoints_in(tmp_path / "run" / "checkpoints")


def test_the_ppo_bidder_config_warm_starts_from_the_committed_bid_net():
    config = TrainConfig.from_dict(compose(name="ppo_bidder"))
    rules, model, ppo, opp, ev, warm = config.parts()
    assert warm.hands > 0 and warm.agent.startswith("bidnet:path=")
    assert (ROOT / warm.agent.split("=", 1)[1]).is_file()
    with pytest.raises(ConfigError, match="warm_start.agent: unknown agent 'bidnot'"):
        TrainConfig.from_dict(compose('warm_start.agent="bidnot:path=x"', name="ppo_bidder")).parts()
