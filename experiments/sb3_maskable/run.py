"""Training on the toolkit's env with an outside library: Stable-Baselines3-contrib's MaskablePPO.

`pip install -e '.[sb3]'`, then
`python experiments/sb3_maskable/run.py [--steps 200000] [--opponent random] [--seed 0]
[--pairs 2000] [--eval-seed 1] [--out runs/sb3/NAME]`

One file, nothing of the toolkit's own trainer: ``Texas42-v0`` (the Gymnasium env, one table
turn by turn) wrapped so that one policy holds a team (seats 0 and 2, bidding and play) and a
fixed agent of the toolkit (``--opponent``: any agent spec, ``random`` or ``heuristic``)
holds the other; the reward is the team's marks of the hand (zero-sum); the action mask goes
to MaskablePPO through ``action_masks()``. The trained policy is then measured in the
toolkit's duplicate arena (every deal played twice, seats swapped, 95% CIs over deal pairs)
against ``random`` and the heuristic, on deals of ``--eval-seed`` it never trained on.

Writes ``OUT/model.zip`` (SB3's own file; a rerun with a larger ``--steps`` goes on from it),
``OUT/progress.jsonl`` (mean episode reward every ``--log-every`` steps) and
``OUT/results.json`` (the arena figures).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium as gym
import numpy as np

import texas42_env  # noqa: F401  (registers Texas42-v0)
from agents.arena.duplicate import play_duplicate, summarize
from agents.base import Agent, make_agent, parse_spec
from agents.driver import act_rows

LEARNER_TEAM = 0  # seats 0 and 2


class TeamAgainstFixed(gym.Env):
    """``Texas42-v0`` as a single-agent env: the learner acts for the seats of team 0, the
    fixed ``opponent`` (a toolkit agent) for the others, in turn, inside ``step``. An
    observation is the learner's seat's (float32, the env's ``observation``); the reward of
    a step is team 0's (the hand's marks, mine minus theirs, at its end)."""

    def __init__(self, opponent="random", seed: int = 0):
        self.inner = gym.make("Texas42-v0").unwrapped
        self.observation_space = self.inner.observation_space["observation"]
        self.action_space = self.inner.action_space
        game = self.inner.game
        self.opponent = make_agent(parse_spec(opponent) if isinstance(opponent, str)
                                   else opponent, seed=seed).setup(game)
        self._obs = self._mask = None

    def _learner_to_move(self, info) -> bool:
        return info["to_move"] % 2 == LEARNER_TEAM

    def _until_learner(self, obs, info, reward: float):
        """Let the opponent play until a learner seat is to move or the hand ends."""
        done = False
        while not done and not self._learner_to_move(info):
            inner = self.inner
            a = int(act_rows(inner.game, inner.state, self.opponent, np.array([0]),
                             inner.encoder)[0])
            obs, _, done, _, info = inner.step(a)
            reward += float(info["rewards"][LEARNER_TEAM])
        self._obs, self._mask = obs["observation"], obs["action_mask"].astype(bool)
        return done, info, reward

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs, info = self.inner.reset(seed=seed)
        done, info, _ = self._until_learner(obs, info, 0.0)
        if done:  # (a hand never ends before its first play: not reached)
            return self.reset()
        return self._obs, info

    def step(self, action):
        obs, _, done, _, info = self.inner.step(int(action))
        reward = float(info["rewards"][LEARNER_TEAM])
        if not done:
            done, info, reward = self._until_learner(obs, info, reward)
        return self._obs, reward, done, False, info

    def action_masks(self) -> np.ndarray:
        return self._mask


class MaskablePolicyAgent(Agent):
    """A trained MaskablePPO model as a toolkit agent (its likeliest legal action), so that
    it plays in the duplicate arena, tournaments and the terminal game."""

    name = "sb3_maskable"
    rulesets = ("standard",)

    def __init__(self, model):
        self.model = model

    def act(self, observations, masks, context=None):
        actions, _ = self.model.predict(np.asarray(observations, np.float32),
                                        action_masks=np.asarray(masks, bool),
                                        deterministic=True)
        return np.asarray(actions, np.int64)


def train(out: Path, steps: int, opponent: str, seed: int, log_every: int):
    from sb3_contrib import MaskablePPO  # the sb3 extra
    from stable_baselines3.common.callbacks import BaseCallback

    class Log(BaseCallback):
        def __init__(self):
            super().__init__()
            self.rewards, self.t0 = [], time.perf_counter()

        def _on_step(self) -> bool:
            for info, done, r in zip(self.locals["infos"], self.locals["dones"],
                                     self.locals["rewards"]):
                self.episode = getattr(self, "episode", 0.0) + float(r)
                if done:
                    self.rewards.append(self.episode)
                    self.episode = 0.0
            if self.num_timesteps % log_every == 0 and self.rewards:
                line = {"steps": int(self.num_timesteps),
                        "mean_hand_marks": float(np.mean(self.rewards)),
                        "hands": len(self.rewards),
                        "seconds": round(time.perf_counter() - self.t0, 1)}
                with open(out / "progress.jsonl", "a") as f:
                    f.write(json.dumps(line) + "\n")
                print(f"sb3: {line['steps']} steps, {line['hands']} hands, mean marks "
                      f"{line['mean_hand_marks']:+.3f} a hand ({line['seconds']:.0f} s)",
                      flush=True)
                self.rewards = []
            return True

    env = TeamAgainstFixed(opponent, seed=seed)
    path = out / "model.zip"
    if path.exists():
        model = MaskablePPO.load(path, env=env)
        print(f"sb3: resuming {path} at {model.num_timesteps} steps", flush=True)
    else:
        model = MaskablePPO("MlpPolicy", env, seed=seed, n_steps=2048, batch_size=256,
                            learning_rate=3e-4, gamma=1.0, verbose=0)
    left = steps - model.num_timesteps
    if left > 0:
        model.learn(left, callback=Log(), reset_num_timesteps=False)
        model.save(path)
    return model


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200_000, help="learner decisions in all")
    ap.add_argument("--opponent", default="random", help="the fixed team: an agent spec")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pairs", type=int, default=2000, help="deal pairs a match")
    ap.add_argument("--eval-seed", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=10_000)
    ap.add_argument("--out", default="runs/sb3/maskable")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    model = train(out, args.steps, args.opponent, args.seed, args.log_every)
    train_s = time.perf_counter() - t0
    env = TeamAgainstFixed(args.opponent)
    rules = env.inner.game.rules
    results = {"steps": int(model.num_timesteps), "opponent": args.opponent,
               "seed": args.seed, "train_seconds": round(train_s, 1), "matches": {}}
    for other in ("random", "heuristic"):
        stats = play_duplicate(rules, MaskablePolicyAgent(model), other, args.pairs,
                               seed=args.eval_seed)
        s = summarize(stats)
        m = s["marks_per_hand"]
        results["matches"][f"sb3 - {other}"] = {"pairs": args.pairs, "marks_per_hand": m,
                                                "seed": args.eval_seed}
        print(f"sb3 - {other}: {m[0]:+.3f} [{m[1]:+.3f}, {m[2]:+.3f}] marks a hand "
              f"({args.pairs} deal pairs, seed {args.eval_seed})", flush=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n")
    return results


if __name__ == "__main__":
    main()
