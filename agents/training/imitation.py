"""Warm start by behaviour cloning: the policy learns to copy an agent before PPO begins.

An agent (the heuristic by default) plays ``hands`` deals against itself at every seat; each
decision is a sample (observation, mask, the agent's action) and each seat's team reward at
the hand's end its return. The bidding and play nets learn the actions by cross-entropy and
the value heads the returns by squared error, streaming: deals come in chunks, each chunk is
learned for ``epochs`` passes and dropped, so memory stays small whatever ``hands`` is. The
deals are games of their own (ids from 2**40 up), never the training deals.

A warm start is resumable chunk by chunk: after each chunk ``warm_start`` hands ``save`` its
progress (hands done, the cloning optimizer, the shuffling generator, the agent's random
generators), and given that progress back it goes on with the next chunk exactly as if it
had never stopped. The demonstrations themselves are not kept: a chunk of 2048 hands is
about 55,000 samples with 2.8 KB of observation each (some 150 MB), its progress about 5 MB
with the weights.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from texas42_env.core import HAND_OVER, NO_ACTION
from texas42_env.rewards import team_rewards

from agents.base import Agent, make_agent
from agents.driver import act_rows

CHUNK = 2048  # hands per chunk
FIRST_GAME = 1 << 40


def demonstrations(trainer, agent, first: int, n: int) -> dict[str, np.ndarray]:
    """``n`` hands of ``agent`` at every seat: obs, masks, actions, returns (, critic_obs)."""
    game, enc = trainer.game, trainer.encoder
    st = game.reset(n, seed=trainer.seed, game_ids=FIRST_GAME + first + np.arange(n))
    obs, cobs, masks, actions, tables, seats_of = [], [], [], [], [], []
    while True:
        active = np.flatnonzero(st.phase < HAND_OVER)
        if active.size == 0:
            break
        seats = st.to_move[active]
        o = enc.encode(st, seats, idx=active)
        m = st.legal[active]
        a = act_rows(game, st, agent, active, enc, seats, observations=o)
        obs.append(o)
        if trainer.critic_encoder is not None:
            cobs.append(trainer.critic_encoder.encode(st, seats, idx=active))
        masks.append(m)
        actions.append(a)
        tables.append(active)
        seats_of.append(seats)
        full = np.full(n, NO_ACTION, np.int64)
        full[active] = a
        game.step(st, full)
    r = team_rewards(st, np.arange(n), trainer.cfg.reward)  # [n, 2]
    t, s = np.concatenate(tables), np.concatenate(seats_of)
    out = {"obs": np.concatenate(obs), "masks": np.concatenate(masks),
           "actions": np.concatenate(actions).astype(np.int64),
           "returns": r[t, s % 2].astype(np.float32)}
    if cobs:
        out["critic_obs"] = np.concatenate(cobs)
    return out


def agent_generators(agent: Agent, path: str = "") -> dict[str, np.random.Generator]:
    """The numpy generators an agent (and the agents it holds) draws from, by attribute
    path (``"rng"``, ``"explore_rng"``, ``"fallback.rng"``): what a resumed warm start
    restores so the agent goes on drawing where it stopped."""
    out: dict[str, np.random.Generator] = {}
    for name, value in vars(agent).items():
        if isinstance(value, np.random.Generator):
            out[path + name] = value
        elif isinstance(value, Agent) and value is not agent:
            out.update(agent_generators(value, f"{path}{name}."))
    return out


def progress_fault(progress: dict[str, Any], cfg) -> str | None:
    """Why a saved warm start's progress cannot go on under ``cfg`` (None: it can)."""
    if progress.get("chunk") != CHUNK or progress.get("hands") != cfg.hands:
        return (f"the saved warm start ran {progress.get('hands')} hands in chunks of "
                f"{progress.get('chunk')}; this one runs {cfg.hands} in chunks of {CHUNK}")
    return None


def warm_start(trainer, cfg, progress: bool = True, resume: dict[str, Any] | None = None,
               save: Callable[[dict[str, Any]], None] | None = None,
               stop: Callable[[], bool] = lambda: False) -> dict[str, float]:
    """Clone ``cfg.agent`` into ``trainer.policy``; returns the last chunk's losses.

    ``save(progress)`` is called after every chunk with what ``resume=`` takes to go on
    from there; ``stop()`` true after a chunk ends the warm start early (after its save)
    with ``KeyboardInterrupt``."""

    agent = make_agent(cfg.agent).setup(trainer.game)
    policy = trainer.policy
    opt = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    gen = torch.Generator().manual_seed(trainer.seed + 1)
    logs: dict[str, float] = {}
    done = 0
    if resume is not None:
        if progress_fault(resume, cfg):
            raise ValueError(progress_fault(resume, cfg))
        opt.load_state_dict(resume["optimizer"])
        gen.set_state(resume["generator"])
        generators = agent_generators(agent)
        for name, state in resume["agent_generators"].items():
            generators[name].bit_generator.state = state
        done, logs = resume["done"], dict(resume["logs"])
    bar = tqdm(total=cfg.hands, initial=done, disable=not progress, desc="warm start",
               unit="hand", dynamic_ncols=True)
    policy.train()
    for first in range(done, cfg.hands, CHUNK):
        n = min(CHUNK, cfg.hands - first)
        d = demonstrations(trainer, agent, first, n)
        logs = _clone(policy, opt, gen, d, cfg)
        bar.update(n)
        bar.set_postfix(acc=f"{logs['accuracy']:.3f}", ce=f"{logs['cross_entropy']:.3f}")
        if save is not None:
            save({"done": first + n, "hands": cfg.hands, "chunk": CHUNK,
                  "optimizer": opt.state_dict(), "generator": gen.get_state(),
                  "agent_generators": {name: _plain(g.bit_generator.state)
                                       for name, g in agent_generators(agent).items()},
                  "logs": logs})
        if first + n < cfg.hands and stop():
            bar.close()
            raise KeyboardInterrupt
    bar.close()
    return logs


def _clone(policy, opt, gen, d: dict[str, np.ndarray], cfg) -> dict[str, float]:
    """``cfg.epochs`` passes of one chunk of demonstrations; its mean losses and accuracy."""
    obs, masks = torch.from_numpy(d["obs"]), torch.from_numpy(d["masks"])
    cobs = torch.from_numpy(d["critic_obs"]) if "critic_obs" in d else None
    actions, returns = torch.from_numpy(d["actions"]), torch.from_numpy(d["returns"])
    is_play = torch.from_numpy(policy.is_play(d["masks"]))
    sums = {"ce": 0.0, "v": 0.0, "acc": 0.0}
    count = 0
    for _ in range(cfg.epochs):
        perm = torch.randperm(actions.numel(), generator=gen)
        for lo in range(0, actions.numel(), cfg.minibatch):
            mb = perm[lo:lo + cfg.minibatch]
            loss = torch.zeros(())
            for net, sel in ((policy.play, is_play[mb]), (policy.bid, ~is_play[mb])):
                rows = mb[sel]
                if rows.numel() == 0:
                    continue
                logits, v = net(obs[rows], masks[rows],
                                cobs[rows] if cobs is not None else None)
                ce = nn.functional.cross_entropy(logits, actions[rows], reduction="sum")
                vl = 0.5 * ((v - returns[rows]) ** 2).sum()
                loss = loss + (ce + vl) / mb.numel()
                sums["ce"] += float(ce.detach())
                sums["v"] += float(vl.detach())
                sums["acc"] += float((logits.argmax(-1) == actions[rows]).sum())
            count += mb.numel()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            opt.step()
    return {"cross_entropy": sums["ce"] / count, "value_loss": sums["v"] / count,
            "accuracy": sums["acc"] / count}


def _plain(x):
    """A generator state as plain dicts and ints (a checkpoint loads it with
    ``weights_only``)."""
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    return int(x) if isinstance(x, np.integer) else x


__all__ = ["CHUNK", "agent_generators", "demonstrations", "progress_fault", "warm_start"]
