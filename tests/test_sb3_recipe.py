"""The outside-trainer recipe (experiments/sb3_maskable/run.py): Stable-Baselines3-contrib's
MaskablePPO trains on ``Texas42-v0`` wrapped for one team against a fixed agent, resumes
from its model file, and its policy plays in the duplicate arena."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from helpers import ROOT


def _recipe():
    spec = importlib.util.spec_from_file_location(
        "sb3_maskable_run", ROOT / "experiments" / "sb3_maskable" / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_wrapped_env_gives_the_learner_only_its_team_and_the_hands_marks():
    from stable_baselines3.common.env_checker import check_env

    recipe = _recipe()
    env = recipe.TeamAgainstFixed("heuristic", seed=3)
    check_env(env, warn=True)
    rng = np.random.default_rng(0)
    for episode in range(20):
        obs, info = env.reset(seed=episode)
        total, done = 0.0, False
        while not done:
            assert info["to_move"] % 2 == recipe.LEARNER_TEAM  # the learner's seat moves
            mask = env.action_masks()
            assert obs.shape == env.observation_space.shape and mask.any()
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
            assert not truncated
        st = env.inner.state
        marks = st.hand_marks[0]
        assert total == pytest.approx(float(marks[0] - marks[1]))  # the team's, zero-sum


def test_the_recipe_trains_resumes_and_plays_in_the_arena(tmp_path, capsys, torch_one_thread):
    recipe = _recipe()
    out = tmp_path / "run"
    first = recipe.main(["--steps", "2048", "--pairs", "20", "--log-every", "1024",
                         "--out", str(out)])
    assert (out / "model.zip").exists() and first["steps"] >= 2048
    lines = [json.loads(x) for x in (out / "progress.jsonl").read_text().splitlines()]
    assert lines and all(x["hands"] > 0 for x in lines)
    assert set(first["matches"]) == {"sb3 - random", "sb3 - heuristic"}
    for m in first["matches"].values():
        mean, low, high = m["marks_per_hand"]
        assert m["pairs"] == 20 and low <= mean <= high
    again = recipe.main(["--steps", "4096", "--pairs", "20", "--out", str(out)])
    assert "resuming" in capsys.readouterr().out
    assert again["steps"] >= 4096
    assert json.loads((out / "results.json").read_text()) == again
