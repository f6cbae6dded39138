"""Self-play PPO for the bidding and play nets (``agents.nets``), CleanRL-style.

One update:

1. **Rollout** (``agents/training/rollout.py``): ``tables`` fresh deals (games
   ``update * tables + i`` of the run's seed, so a run is reproducible and resumes exactly),
   in deal blocks, each played to the end of its hand against opponents drawn from the
   schedule (the policy itself, past snapshots from the pool, the heuristic, random), by
   ``actors`` workers of a backend or in this process, with the same samples either way.
   Every decision of a learner seat is a sample.
2. **Advantages**: each seat's decisions form its trajectory; the reward (team marks of the
   hand by default; partners share it) comes at the hand's end; GAE(gamma, lambda) over each
   seat's trajectory.
3. **Learning**: ``epochs`` passes of shuffled minibatches of the clipped PPO loss with
   entropy bonus and value loss, over the bidding net's samples and the play net's together.

``Trainer.state_dict()`` holds everything a run needs to continue exactly (weights,
optimizer, the pool, the generators, counters), on the CPU whatever the learner's device.
"""

from __future__ import annotations

import copy
import os
import sys
import time
import uuid
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from texas42_env.config import Rule, number, one_of, setting, validate, whole
from texas42_env.rewards import REWARDS
from texas42_env.rules import ConfigError, RulesConfig

from agents.nets.device import on_cpu
from agents.nets.policy import ModelConfig, Policy
from agents.scale.backend import Backend, Shared
from agents.training.rollout import (OPPONENT_KINDS, BlockTask, Rollout, RolloutSettings,
                                     RolloutWorker, merge)

# ``threads``: "auto" is one thread a process. On two cores shared with any other CPU job,
# torch's thread pool waits on a busy core at every operation: two training runs at once made
# 1,206 and 724 samples/s with two threads each, the second 17,500 beside the first with one,
# against 24,800 for one run alone with two. One thread also keeps a run's weights
# independent of the machine: at other counts MKL splits sums (weight gradients, orthogonal
# initialisation) by thread and rounds differently, so a run is exactly reproducible only at
# the same count (cores // processes would tie it to the machine).
THREADS = Rule(test=lambda v: v == "auto" or (isinstance(v, int) and not isinstance(v, bool)
                                              and v >= 1),
               says="'auto' (one thread a process) or a positive whole number")


def thread_count(threads: int | str) -> int:
    """The threads a ``threads`` setting means: ``"auto"`` is 1, a number itself."""
    return 1 if threads == "auto" else int(threads)


def use_threads(threads: int | str) -> int:
    """Give this process ``thread_count(threads)`` torch threads, and numba as many (set
    before numba is first imported where it is not yet; numba's pool cannot grow past the
    size it started with); returns the count."""
    n = thread_count(threads)
    numba = sys.modules.get("numba")
    if numba is None:
        os.environ["NUMBA_NUM_THREADS"] = str(n)  # read once, when numba is first imported
    else:  # first: numba's OpenMP layer sets the count torch's OpenMP reads too
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    torch.set_num_threads(n)
    return n


@dataclass(frozen=True)
class PPOConfig:
    """PPO hyperparameters (the ``algorithm`` config group)."""

    tables: int = setting(1024, whole(1))  # deals (hands) per update
    # tables a deal block: the unit an actor plays (its draws keyed by seed, update, block)
    deal_block: int = setting(256, whole(1))
    lr: float = setting(3e-4, number(above=0))
    epochs: int = setting(3, whole(1))
    minibatch: int = setting(4096, whole(1))
    gamma: float = setting(1.0, number(0, 1))
    gae_lambda: float = setting(0.95, number(0, 1))
    clip: float = setting(0.2, number())
    ent_coef: float = setting(0.01, number())
    vf_coef: float = setting(0.5, number())
    max_grad_norm: float = setting(0.5, number())
    # stop the epochs of an update once KL passes it
    target_kl: float | None = setting(None, number(optional=True))
    norm_adv: bool = True
    # an update plays single hands: a game never ends in one, so no "game" reward
    reward: str = setting("marks", one_of(*(r for r in REWARDS if r != "game"), noun="reward",
                                          says="an update plays single hands: 'game' needs "
                                               "whole games"))
    # the baseline of play decisions' advantages: the critic (GAE), or the exact solver's
    # value of the true deal (the marks the mover's team gets if every seat plays perfectly
    # from here: unbiased, as the hidden deal does not depend on the action; the Monte
    # Carlo return minus it; the standard game with the marks reward)
    baseline: str = setting("critic", one_of("critic", "solver", noun="baseline"))
    # averaged weights for acting: after each update ema <- ema * d + weights * (1 - d)
    # (0: none); checkpoints keep both, agents and evaluations act with the average
    ema: float = setting(0.0, number(0, below=1))
    # 0: an update's hands are played with the weights it starts from (the actors wait while
    # the learner trains); 1: with the weights one update older, the actors playing update
    # k+1's hands while the learner trains on update k's (the same weights for a seed
    # whatever the actors, as with 0; other weights than 0's)
    staleness: int = setting(0, whole(0, 1))
    # the nets an update trains: both, bid (the bidding net alone: the play net's decisions
    # are played, not learned, e.g. a bid net priced for a fixed play net) or play
    nets: str = setting("both", one_of("both", "bid", "play", noun="nets"))

    def __post_init__(self):
        validate(self, "algorithm.")
        if self.baseline == "solver" and self.nets == "bid":
            raise ConfigError(key="algorithm.baseline", value=self.baseline,
                              allowed="critic when algorithm.nets is bid (the solver is the "
                                      "baseline of play decisions, which then are not learned)")
        if self.baseline == "solver" and (self.reward != "marks" or self.gamma != 1):
            raise ConfigError(key="algorithm.baseline", value=self.baseline,
                              allowed="critic unless algorithm.reward is marks and "
                                      "algorithm.gamma 1 (the solver baseline values the "
                                      "hand's marks, undiscounted)")


Weight = float | Sequence[float]


def _weight(w) -> bool:
    ends = list(w) if isinstance(w, (list, tuple)) else [w]
    return len(ends) in (1, 2) and all(isinstance(x, (int, float)) and not x < 0 for x in ends)


WEIGHT = Rule(test=_weight, says="a weight >= 0 or [start, end]")


def is_spec(value) -> bool:
    """Whether ``value`` reads as an agent spec (a name, NAME:KEY=VALUE,... or a mapping)."""
    return isinstance(value, (str, dict)) and bool(value)


SPEC = Rule(test=is_spec, says="an agent spec (a name, NAME:KEY=VALUE,... or a mapping)")


@dataclass(frozen=True)
class OpponentsConfig:
    """Who sits across from the learner (the ``opponents`` config group).

    Each weight is a number or ``[start, end]``, interpolated linearly over the run's
    updates; a table's opponent is drawn in proportion. ``pool`` draws a past snapshot
    (taken every ``snapshot_every`` updates, the newest ``pool_size`` kept); until the first
    snapshot exists its weight goes to ``self_play``. ``search`` is the agent
    ``search_agent`` (PIMC by default; slow: a small weight goes far).

    A league (``prioritize`` above 0): the share of the tables not in self-play is split
    among the other opponents in proportion to each one's weight times its loss rate to the
    power ``prioritize`` (prioritized fictitious self-play, as AlphaStar's league): a
    kind's loss rate is the share of hands the learner's team lost to it (half for a
    draw), averaged over updates with decay ``prioritize_decay`` from 0.5, so the learner
    meets more of those it loses to. 0 keeps the weights as they are.
    """

    self_play: Weight = setting(0.5, WEIGHT)
    pool: Weight = setting(0.3, WEIGHT)
    heuristic: Weight = setting(0.2, WEIGHT)
    random: Weight = setting(0.0, WEIGHT)
    search: Weight = setting(0.0, WEIGHT)
    search_agent: Any = setting(default_factory=lambda: {"name": "pimc", "n_worlds": 8},
                                rule=SPEC)
    snapshot_every: int = setting(10, whole(1))
    pool_size: int = setting(10, whole(1))
    prioritize: float = setting(0.0, number(0, 20))
    prioritize_decay: float = setting(0.9, number(0, below=1))

    def __post_init__(self):
        validate(self, "opponents.")
        if sum(max(self._ends(k)) for k in OPPONENT_KINDS) <= 0:
            raise ConfigError("opponents: every weight is 0; allowed: at least one above 0",
                              key="opponents", value={k: getattr(self, k) for k in OPPONENT_KINDS},
                              allowed="at least one weight above 0")

    def _ends(self, kind):
        w = getattr(self, kind)
        return (float(w[0]), float(w[-1])) if isinstance(w, (list, tuple)) else (float(w),) * 2

    def weights(self, progress: float, pool_ready: bool,
                losses: np.ndarray | None = None) -> np.ndarray:
        """The schedule's weights at ``progress`` in [0, 1], normalised; with ``prioritize``,
        the opponents' other than self-play tilted by ``losses`` (per kind, in [0, 1])."""
        w = np.array([a + (b - a) * progress for a, b in map(self._ends, OPPONENT_KINDS)])
        if not pool_ready:
            w[0] += w[1]
            w[1] = 0
        if w.sum() <= 0:
            w[0] = 1
        w = w / w.sum()
        if self.prioritize and losses is not None:
            tilted = w[1:] * np.asarray(losses, np.float64)[1:] ** self.prioritize
            if tilted.sum() > 0:
                w[1:] = w[1:].sum() * tilted / tilted.sum()
        return w


@dataclass
class InFlight:
    """A rollout handed to the actors (``Trainer.start_rollout``): its update, the weights
    and pool it plays with, its tasks, what was shared for it, its parts as they come."""

    update: int
    weights: dict[str, Any]
    pool: list[dict[str, Any]]
    tasks: list[BlockTask]
    shared: list[Shared]
    parts: Any  # an iterator of the blocks' Rollouts, in block order


class Trainer:
    """Holds the policy, the optimizer, the pool and the generators of one training run.

    ``actors``: 0 plays the rollouts in this process; N > 0 on N workers of ``backend``
    (local processes by default, or a Ray backend's actors), each holding a
    ``RolloutWorker``; either way the same blocks with the same weights (see
    ``agents/training/rollout.py``). ``device``: where the learner's nets, optimizer and
    minibatches live (a ``torch.device`` or its name); the rollouts play on CPU copies.
    ``precision``: ``fp32``, or ``bf16`` for the learner's passes under autocast (see
    ``agents/nets/device.py``). With ``algorithm.staleness`` 1 each update hands the next
    one's blocks to the actors (``start_rollout``) before it learns, and collects them at
    the next (``_next_rollout``); ``state_dict`` keeps what they play with.
    ``close()`` stops the actors."""

    def __init__(self, rules: RulesConfig, model: ModelConfig, ppo: PPOConfig,
                 opponents: OpponentsConfig, seed: int = 0, updates: int = 100,
                 actors: int = 0, backend: Backend | None = None, device: Any = "cpu",
                 precision: str = "fp32"):
        self.rules, self.model_cfg, self.cfg, self.opp = rules, model, ppo, opponents
        if ppo.baseline == "solver" and rules.ruleset != "standard":
            raise ConfigError(key="algorithm.baseline", value=ppo.baseline,
                              allowed="critic in the six-player game (its exact solves are "
                                      "too slow early in a hand)")
        self.seed, self.updates = seed, updates
        self.device = torch.device(device)
        if precision not in ("fp32", "bf16"):
            raise ValueError(f"precision: fp32 or bf16, not {precision!r}")
        self.precision = precision
        self.settings = RolloutSettings(rules.ruleset, rules.options(), model, model.critic,
                                        ppo.reward, ppo.baseline, seed, ppo.tables,
                                        opponents.search_agent)
        self.worker = RolloutWorker(self.settings)  # this process's (actors: 0)
        self.game, self.encoder = self.worker.game, self.worker.encoder
        self.critic_encoder = self.worker.critic_encoder
        torch.manual_seed(seed)
        critic_size = self.critic_encoder.size if self.critic_encoder else 0
        self.policy = Policy(self.encoder.size, self.game.n_actions, self.game.actions.play0,
                             model, critic_size, self.game).to(self.device)
        self.optimizer = torch.optim.Adam(self.trained_parameters(), lr=ppo.lr, eps=1e-5,
                                          foreach=True)
        self.generator = torch.Generator().manual_seed(seed)
        self.pool: list[dict[str, torch.Tensor]] = []  # CPU copies, oldest first
        # per opponent kind: the share of hands the learner lost to it, decayed (the league)
        self.losses = np.full(len(OPPONENT_KINDS), 0.5)
        self.ema: dict[str, torch.Tensor] | None = None  # with cfg.ema: the averaged weights
        self.update = 0  # updates done
        self.samples = 0
        self.hands = 0
        self.actors = actors
        self._actors = None
        if actors:
            backend = backend or Backend("local", actors)
            if backend.workers != actors:
                backend = Backend(backend.kind, actors, backend.address, backend.retries)
            self._actors = backend.generators(partial(RolloutWorker, self.settings),
                                              processes=True)
        self._shared_pool: list[Shared] = []  # the pool as the actors read it
        # staleness 1: the next update's rollout under way, and (resumed) the one a
        # checkpoint said was; see _next_rollout
        self._pending: InFlight | None = None
        self._saved_pending: dict[str, Any] | None = None

    # ------------------------------------------------------------------ rollout
    def _share(self, obj) -> Shared:
        if self._actors is not None:
            return self._actors.share(obj)
        return Shared(uuid.uuid4().hex, value=obj)

    def _release(self, shared: Shared) -> None:
        if self._actors is not None:
            self._actors.release(shared)

    def _sync_pool(self) -> None:
        """The pool's snapshots shared with the actors, each once (the pool only grows at
        its end and drops its oldest)."""
        while len(self._shared_pool) > len(self.pool):
            self._release(self._shared_pool.pop(0))
        while len(self._shared_pool) < len(self.pool):
            self._shared_pool.append(self._share(self.pool[len(self._shared_pool)]))

    def block_tasks(self, weights: Shared, update: int | None = None,
                    pool: tuple[Shared, ...] | None = None) -> list[BlockTask]:
        """The deal blocks (``algorithm.deal_block`` tables each) of ``update`` (default:
        the next), played with ``weights`` against ``pool`` (default: the trainer's)."""
        update = self.update if update is None else update
        if pool is None:
            self._sync_pool()
            pool = tuple(self._shared_pool)
        w = self.opp.weights(update / max(1, self.updates), bool(pool), self.losses)
        size = self.cfg.deal_block
        return [BlockTask(update, k, first, min(size, self.cfg.tables - first), weights,
                          pool, tuple(float(x) for x in w))
                for k, first in enumerate(range(0, self.cfg.tables, size))]

    def start_rollout(self, update: int | None = None,
                      weights: dict[str, torch.Tensor] | None = None,
                      pool: list[dict[str, torch.Tensor]] | None = None) -> "InFlight":
        """``update``'s blocks (default: the next) handed to the actors now, played with
        ``weights`` (default: the current ones) against ``pool`` (default: the trainer's);
        ``collect`` gives the rollout (here, without actors, they are played then)."""
        update = self.update if update is None else update
        weights = on_cpu(self.policy.state_dict()) if weights is None else weights
        shared = [self._share(weights)]
        if pool is not None:  # a pool other than the trainer's (a resumed pending rollout)
            shared += [self._share(p) for p in pool]
        tasks = self.block_tasks(shared[0], update, tuple(shared[1:]) if pool is not None
                                 else None)
        if self._actors is not None:
            parts = self._actors.map("play", tasks)
        else:
            parts = (self.worker.play(t) for t in tasks)
        return InFlight(update, weights, list(pool if pool is not None else self.pool), tasks,
                        shared, parts)

    def collect(self, flight: "InFlight") -> Rollout:
        """The rollout ``start_rollout`` began: every block's samples, merged."""
        try:
            parts = list(flight.parts)
        finally:
            for sh in flight.shared:
                self._release(sh)
        ro = merge(parts, flight.tasks[0].schedule)
        self._score(ro)
        return ro

    def _score(self, ro: Rollout) -> None:
        """Fold a rollout's results per opponent kind into ``losses`` (and its stats)."""
        d = self.opp.prioritize_decay
        kind, mine = ro.tables["kind"], ro.tables["mine"]
        for i, k in enumerate(OPPONENT_KINDS[1:], start=1):
            sel = kind == i
            if sel.any():
                lost = float(np.mean((mine[sel] < 0) + 0.5 * (mine[sel] == 0)))
                self.losses[i] = d * self.losses[i] + (1 - d) * lost
            ro.stats[f"league/loss_rate_{k}"] = float(self.losses[i])

    def rollout(self) -> Rollout:
        """The next update's samples, played now with the current weights (by the actors,
        or here) and merged."""
        return self.collect(self.start_rollout())

    def _next_rollout(self) -> Rollout:
        """This update's samples: with ``staleness`` 1 the rollout started during the last
        update (or, first and after a resume, started now from the weights it was to have),
        and the next update's handed to the actors before this one learns."""
        if not self.cfg.staleness:
            return self.rollout()
        flight, self._pending = self._pending, None
        if flight is None or flight.update != self.update:
            saved, self._saved_pending = self._saved_pending, None
            if saved is not None and saved["update"] == self.update:
                flight = self.start_rollout(self.update, saved["weights"], saved["pool"])
            else:
                flight = self.start_rollout()
        ro = self.collect(flight)
        if self.update + 1 < self.updates:
            self._pending = self.start_rollout(self.update + 1)
        return ro

    def exact_baseline(self, st, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The solver baseline of ``RolloutWorker.exact_baseline``."""
        return self.worker.exact_baseline(st, rows, masks)

    def close(self) -> None:
        """Stop the actors (a trainer without them has nothing to stop); a rollout under
        way is dropped, what it plays with kept (``state_dict``)."""
        self._saved_pending, self._pending = self._pending_inputs(), None
        if self._actors is not None:
            self._actors.close()
            self._actors = None

    # ------------------------------------------------------------------ advantages
    def advantages(self, ro: Rollout) -> tuple[np.ndarray, np.ndarray]:
        """GAE over each seat's trajectory: (advantages, returns); with the solver baseline
        a play decision's advantage is its Monte Carlo return minus that baseline."""
        adv = Trainer.gae(ro, ro.values, self.cfg.gamma, self.cfg.gae_lambda)
        returns = adv + ro.values
        if ro.baseline is not None:
            exact = np.isfinite(ro.baseline)
            adv[exact] = (Trainer.monte_carlo(ro) - ro.baseline)[exact]
        return adv, returns

    @staticmethod
    def gae(ro: Rollout, values: np.ndarray, g: float, lam: float) -> np.ndarray:
        """float32 [N]: GAE(``g``, ``lam``) of ``values`` along each seat's chain of
        samples in ``ro``."""
        n = ro.actions.size
        adv = np.zeros(n, np.float32)
        has_next = ro.nxt >= 0
        next_value = np.where(has_next, values[np.maximum(ro.nxt, 0)], 0.0)
        delta = ro.rewards + g * next_value - values
        # a sample's successor is made at a later step (of its block): fill steps from the
        # last back (the samples of every block at each step together)
        order = np.argsort(ro.step, kind="stable")
        bounds = np.searchsorted(ro.step[order], np.arange(ro.step.max() + 2)) if n else [0]
        for s in range(len(bounds) - 2, -1, -1):
            at = order[bounds[s]:bounds[s + 1]]
            if at.size == 0:
                continue
            nx = ro.nxt[at]
            carry = np.where(nx >= 0, adv[np.maximum(nx, 0)], 0.0)
            adv[at] = delta[at] + g * lam * carry
        return adv

    @classmethod
    def monte_carlo(cls, ro: Rollout) -> np.ndarray:
        """float32 [N]: each sample's return, the rewards of its seat from it to the hand's
        end (undiscounted: GAE of zero values with gamma and lambda 1)."""
        return cls.gae(ro, np.zeros(ro.actions.size, np.float32), 1.0, 1.0)

    # ------------------------------------------------------------------ learning
    def trained_parameters(self) -> list[nn.Parameter]:
        """The parameters an update trains: the nets ``algorithm.nets`` names."""
        nets = {"both": self.policy, "bid": self.policy.bid, "play": self.policy.play}
        return list(nets[self.cfg.nets].parameters())

    def learn(self, ro: Rollout) -> dict[str, float]:
        cfg = self.cfg
        adv_np, ret_np = self.advantages(ro)
        dev = self.device  # the update's samples go to the learner's device once
        obs, masks, actions, old_logp, adv, ret, is_play = (
            torch.from_numpy(x).to(dev) for x in (ro.obs, ro.masks, ro.actions, ro.logp, adv_np,
                                                  ret_np, self.policy.is_play(ro.masks)))
        cobs = torch.from_numpy(ro.critic_obs).to(dev) if ro.critic_obs is not None else None
        n = actions.numel()
        bf16 = self.precision == "bf16"
        self.policy.train()
        logs: dict[str, list[float]] = {k: [] for k in
                                        ("pg_loss", "v_loss", "entropy", "approx_kl",
                                         "clipfrac", "entropy_bid", "entropy_play")}
        stop = False
        trained = None  # every decision; else only those of the net trained
        if cfg.nets != "both":
            trained = torch.nonzero(is_play if cfg.nets == "play" else ~is_play).squeeze(1)
            n = trained.numel()
        for _ in range(cfg.epochs):
            perm = torch.randperm(n, generator=self.generator).to(dev)  # drawn on the CPU
            if trained is not None:
                perm = trained[perm]
            for lo in range(0, n, cfg.minibatch):
                mb = perm[lo:lo + cfg.minibatch]
                play = is_play[mb]
                play_rows, bid_rows = mb[play], mb[~play]
                mb = torch.cat([play_rows, bid_rows])  # the order of the outputs below
                parts = []
                for net, rows in ((self.policy.play, play_rows), (self.policy.bid, bid_rows)):
                    if rows.numel() == 0:
                        continue
                    logits, v = net(obs[rows], masks[rows],
                                    cobs[rows] if cobs is not None else None, bf16=bf16)
                    lp = torch.log_softmax(logits, -1)
                    e = -(lp.exp() * lp).sum(-1)
                    parts.append((lp.gather(1, actions[rows, None]).squeeze(1), e, v))
                    logs["entropy_play" if net is self.policy.play else "entropy_bid"].append(
                        float(e.mean().detach()))
                new_logp, ent, value = (torch.cat(x) for x in zip(*parts))
                a = adv[mb]
                if cfg.norm_adv and a.numel() > 1:
                    a = (a - a.mean()) / (a.std() + 1e-8)
                logratio = new_logp - old_logp[mb]
                ratio = logratio.exp()
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip, 1 + cfg.clip)).mean()
                v_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
                entropy = ent.mean()
                loss = pg - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
                self.optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(self.optimizer.param_groups[0]["params"],
                                         cfg.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    kl = float(((ratio - 1) - logratio).mean())
                    logs["approx_kl"].append(kl)
                    logs["clipfrac"].append(float(((ratio - 1).abs() > cfg.clip).float().mean()))
                logs["pg_loss"].append(float(pg.detach()))
                logs["v_loss"].append(float(v_loss.detach()))
                logs["entropy"].append(float(entropy.detach()))
                if cfg.target_kl is not None and kl > cfg.target_kl:
                    stop = True
                    break
            if stop:
                break
        var = float(np.var(ret_np))
        out = {f"losses/{k}": float(np.mean(v)) for k, v in logs.items() if v}
        out["losses/explained_variance"] = float(1 - np.var(ret_np - ro.values) / var) \
            if var > 0 else 0.0
        return out

    def train_update(self) -> dict[str, float]:
        """One rollout and one learning phase; returns the figures to log."""
        t0 = time.perf_counter()
        ro = self._next_rollout()
        t1 = time.perf_counter()
        logs = self.learn(ro)
        t2 = time.perf_counter()
        self.update += 1
        self._average()
        self.samples += ro.actions.size
        self.hands += ro.hands
        if self.update % self.opp.snapshot_every == 0:
            self.pool.append(on_cpu(self.policy.state_dict()))
            del self.pool[:-self.opp.pool_size]
        logs.update(ro.stats)
        logs["perf/samples"] = ro.actions.size
        logs["perf/samples_per_s"] = ro.actions.size / (t2 - t0)
        logs["perf/rollout_s"] = t1 - t0
        logs["perf/learn_s"] = t2 - t1
        return logs

    def _average(self) -> None:
        """Fold the weights into the average (``cfg.ema``; the first update starts it)."""
        if not self.cfg.ema:
            return
        now = self.policy.state_dict()
        if self.ema is None:
            self.ema = {k: v.detach().clone() for k, v in now.items()}
            return
        with torch.no_grad():
            for k, v in now.items():
                if v.is_floating_point():
                    self.ema[k].mul_(self.cfg.ema).add_(v, alpha=1.0 - self.cfg.ema)
                else:
                    self.ema[k].copy_(v)

    def acting_policy(self) -> Policy:
        """The policy to act with: the averaged weights (``cfg.ema``), else the policy."""
        if self.ema is None and self.device.type == "cpu":
            return self.policy
        policy = copy.deepcopy(self.policy).to("cpu")  # agents act on the CPU
        if self.ema is not None:
            policy.load_state_dict(self.ema)
        return policy

    # ------------------------------------------------------------------ state
    def model_dict(self) -> dict[str, Any]:
        out = {"obs_size": self.encoder.size, "n_actions": self.game.n_actions,
               "play0": self.game.actions.play0, "config": self.model_cfg.to_dict(),
               "critic_size": self.policy.bid.critic_size,
               "state_dict": on_cpu(self.policy.state_dict())}
        if self.ema is not None:  # what agents act with (the training weights stay above)
            out["ema_state_dict"] = on_cpu(self.ema)
        return out

    def state_dict(self) -> dict[str, Any]:
        return {"model": self.model_dict(), "optimizer": on_cpu(self.optimizer.state_dict()),
                "pool": self.pool, "losses": self.losses.tolist(),
                "rng": {"torch": self.generator.get_state(),
                        "torch_global": torch.get_rng_state()},
                "step": {"update": self.update, "samples": self.samples, "hands": self.hands},
                "rules": {"ruleset": self.rules.ruleset, "options": self.rules.options()},
                "ppo": asdict(self.cfg), "opponents": asdict(self.opp),
                "precision": self.precision,
                "pending": self._pending_inputs()}

    def _pending_inputs(self) -> dict[str, Any] | None:
        """Staleness 1: what the next update's rollout, under way, plays with."""
        if self._pending is not None:
            return {"update": self._pending.update, "weights": self._pending.weights,
                    "pool": self._pending.pool}
        return self._saved_pending

    def load_state_dict(self, data: dict[str, Any]) -> None:
        self.policy.load_state_dict(data["model"]["state_dict"])
        ema = data["model"].get("ema_state_dict")
        self.ema = None if ema is None else {k: v.detach().to(self.device, copy=True)
                                             for k, v in ema.items()}
        self.optimizer.load_state_dict(data["optimizer"])  # (onto the parameters' device)
        self.pool = [on_cpu(p) for p in data["pool"]]
        self.losses = np.array(data.get("losses", [0.5] * len(OPPONENT_KINDS)), np.float64)
        self.generator.set_state(data["rng"]["torch"])
        torch.set_rng_state(data["rng"]["torch_global"])
        self.update = int(data["step"]["update"])
        self.samples = int(data["step"]["samples"])
        self.hands = int(data["step"]["hands"])
        self._pending = None
        pending = data.get("pending")
        self._saved_pending = None if pending is None else \
            {"update": int(pending["update"]), "weights": on_cpu(pending["weights"]),
             "pool": [on_cpu(p) for p in pending["pool"]]}


__all__ = ["OPPONENT_KINDS", "SPEC", "THREADS", "OpponentsConfig", "PPOConfig", "Rollout",
           "Trainer", "is_spec", "thread_count", "use_threads"]
