"""PPO's rollouts, deal block by deal block: what an actor plays for the learner.

An update's ``tables`` deals (games ``update * tables + i`` of the run's seed) are cut into
blocks of ``deal_block`` tables. ``RolloutWorker.play(BlockTask)`` plays one block's hands to
their ends on the core with the observation encoder, as the arena does: at each table one
team is the learner's (drawn at random) and the other an opponent drawn from the schedule
(the current policy itself, ``self_play``: both teams learn; a past snapshot from the pool;
the heuristic; random; a search agent, ``search``). Every decision of a learner seat is a
sample. ``merge`` joins the blocks' samples, in block order, into the update's ``Rollout``.

A block's every draw (its opponents, the learner's team at each table, the sampled actions)
comes from generators keyed by (run seed, update, block), and it plays with the weights the
task names, at one torch thread: so a block's samples are the same whichever process
plays it, in this process (``actors: 0``), in a local worker process or on a Ray actor, and
a run's weights do not depend on how many actors there are or which backend they run on.
The weights reach the workers as ``Shared`` objects (``agents/scale/backend.py``), read once
per process; a block's ``Rollout`` travels back pickled with its observations packed
(``pack_rows``: exact, about a fifteenth of the bytes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from texas42_env.core import HAND_OVER, NO_ACTION, Game
from texas42_env.observation import make_encoder
from texas42_env.rewards import seat_rewards, team_rewards
from texas42_env.rules import RulesConfig
from texas42_env.sampling import uniform_legal

from agents.base import make_agent
from agents.driver import act_rows
from agents.baselines.pimc import bid_made
from agents.nets.policy import ModelConfig, Policy
from agents.scale.backend import Shared, forget

OPPONENT_KINDS = ("self_play", "pool", "heuristic", "random", "search")
ROLLOUT_STREAM = 0x5EED_B10C  # the block generators' own key (no other draw uses it)


@dataclass
class Rollout:
    """The learner's samples of one update (or block), in the order they were made."""

    obs: np.ndarray  # float32 [N, D]
    critic_obs: np.ndarray | None  # float32 [N, D'] with a perfect-information critic
    masks: np.ndarray  # bool [N, A]
    actions: np.ndarray  # int64 [N]
    logp: np.ndarray  # float32 [N]
    values: np.ndarray  # float32 [N]
    rewards: np.ndarray  # float32 [N] (at each seat's last decision of a hand)
    nxt: np.ndarray  # int64 [N]: the same seat's next sample in that hand, -1 at its last
    step: np.ndarray  # int64 [N]: the rollout step (of its block) that made it
    hands: int = 0
    # float32 [N] with the solver baseline: its value at play decisions (NaN elsewhere)
    baseline: np.ndarray | None = None
    stats: dict[str, float] = field(default_factory=dict)
    # per table of the block: the opponent kind, the learner team's reward, whether the
    # contract was made (-1: nobody bid); the steps the block took (``merge``'s stats)
    tables: dict[str, np.ndarray] | None = None
    # where the block's time went, in seconds of its worker: core stepping ("core"),
    # observation encoding ("encode"), the nets' and the heuristic's moves ("inference")
    seconds: dict[str, float] = field(default_factory=dict)


    def __getstate__(self) -> dict:
        # an actor's rollout travels to the learner pickled: its observations packed
        state = dict(self.__dict__)
        for k in PACKED:
            if state[k] is not None:
                state[k] = pack_rows(state[k])
        return state

    def __setstate__(self, state: dict) -> None:
        for k in PACKED:
            if state[k] is not None:
                state[k] = unpack_rows(state[k])
        self.__dict__.update(state)


TIMED = ("core", "encode", "inference")  # the parts of ``Rollout.seconds``
PACKED = ("obs", "critic_obs")  # the ``Rollout`` arrays ``pack_rows`` packs for travel
ONE = np.float32(1).view(np.uint32)


def pack_rows(x: np.ndarray) -> tuple:
    """A float32 [N, D] array as (its shape, a bit for each entry whose bits are not all
    zero, the flat positions and bit patterns of those that are not 1.0): exact, bit for
    bit, and about a tenth of the bytes for observations of mostly zeros and ones (what an
    actor sends the learner: the pipe, not the pickling, is the cost)."""
    bits = np.ascontiguousarray(x, np.float32).reshape(-1).view(np.uint32)
    set_ = bits != 0
    other = np.flatnonzero(set_ & (bits != ONE))
    return x.shape, np.packbits(set_), other.astype(np.int64), bits[other]


def unpack_rows(packed: tuple) -> np.ndarray:
    """The array ``pack_rows`` packed."""
    shape, set_, other, values = packed
    n = int(np.prod(shape))
    bits = np.unpackbits(set_, count=n).view(bool) * ONE  # uint32: 1.0 where set
    bits[other] = values
    return bits.view(np.float32).reshape(shape)


@dataclass(frozen=True)
class RolloutSettings:
    """What every actor of a run is built from (plain values: they travel to workers)."""

    ruleset: str
    rules: dict
    model: ModelConfig
    critic: str  # "shared" or "perfect": the critic's own observations with "perfect"
    reward: str
    baseline: str  # "critic" or "solver"
    seed: int
    tables: int  # an update's tables (the deals' game ids)
    search: Any = None  # the search opponent's agent spec (built when first drawn)


@dataclass(frozen=True)
class BlockTask:
    """One deal block of one update: tables ``first .. first + size - 1``."""

    update: int
    block: int
    first: int
    size: int
    weights: Shared  # the learner's weights (a CPU state dict)
    pool: tuple[Shared, ...]  # the pool's snapshots, oldest first
    schedule: tuple[float, ...]  # the opponent kinds' weights at this update (normalised)


def block_generators(seed: int, update: int, block: int) -> tuple[np.random.Generator,
                                                                   torch.Generator]:
    """The numpy and torch generators of one block, keyed by (seed, update, block)."""
    rng = np.random.default_rng(np.random.SeedSequence([ROLLOUT_STREAM, seed, update, block]))
    return rng, torch.Generator().manual_seed(int(rng.integers(1 << 62)))


class RolloutWorker:
    """An actor: plays ``BlockTask``s (see the module). Holds the game, the encoders, a
    policy a set of weights and the heuristic (built when first drawn)."""

    def __init__(self, settings: RolloutSettings):
        self.settings = s = settings
        self.rules = RulesConfig.from_options(s.ruleset, s.rules)
        self.game = Game(self.rules)
        self.encoder = make_encoder(self.game)
        self.critic_encoder = make_encoder(self.game, "perfect") \
            if s.critic == "perfect" else None
        self._policies: dict[str, Policy] = {}  # by the Shared key of their weights
        self._heuristic = None
        self._search = None
        # the encoders' compiled kernels loaded now, not in the first block an actor plays
        warm = self.game.reset(2, seed=s.seed)  # (two: the batch kernel)
        for encoder in (self.encoder, self.critic_encoder):
            if encoder is not None:
                encoder.encode(warm, warm.to_move)

    def _policy(self, weights: Shared) -> Policy:
        if weights.key not in self._policies:
            c = self.critic_encoder.size if self.critic_encoder else 0
            with torch.random.fork_rng(devices=[]):  # its initial weights are replaced: the
                p = Policy(self.encoder.size, self.game.n_actions,  # process's own draws
                           self.game.actions.play0, self.settings.model, c,  # stay as
                           self.game)  # they were
            p.load_state_dict(weights.get())
            p.eval()
            self._policies[weights.key] = p
        return self._policies[weights.key]

    def play(self, task: BlockTask) -> Rollout:
        """The learner's samples of one block (see the module)."""
        keep = {task.weights.key} | {p.key for p in task.pool}
        for key in [k for k in self._policies if k not in keep]:
            del self._policies[key]
        forget(keep)
        threads = torch.get_num_threads()
        torch.set_num_threads(1)  # a block plays the same at any learner's thread count
        try:
            return self._play(task)
        finally:
            torch.set_num_threads(threads)

    def _play(self, task: BlockTask) -> Rollout:
        game, enc, B = self.game, self.encoder, task.size
        s = self.settings
        S = game.n_seats
        rng, generator = block_generators(s.seed, task.update, task.block)
        policy = self._policy(task.weights)
        ids = task.update * s.tables + task.first + np.arange(B)
        st = game.reset(B, seed=s.seed, game_ids=ids)
        pool = task.pool
        kind = rng.choice(len(OPPONENT_KINDS), size=B, p=np.asarray(task.schedule))
        member = rng.integers(len(pool), size=B) if pool else np.zeros(B, int)
        learner_team = rng.integers(2, size=B)
        both = kind == 0
        pending = np.full((B, S), -1, np.int64)
        chunks: dict[str, list] = {k: [] for k in ("obs", "cobs", "masks", "actions", "logp",
                                                   "values", "step", "baseline")}
        nxt_parts = []
        n = 0
        step = 0
        spent = dict.fromkeys(TIMED, 0.0)
        clock = time.perf_counter
        while True:
            active = st.phase < HAND_OVER
            if not active.any():
                break
            seats = st.to_move
            learn = active & (both | ((seats % 2) == learner_team))
            actions = np.full(B, NO_ACTION, np.int64)
            rows = np.flatnonzero(learn)
            if rows.size:
                t0 = clock()
                obs = enc.encode(st, seats[rows], idx=rows)
                masks = st.legal[rows]
                cobs = self.critic_encoder.encode(st, seats[rows], idx=rows) \
                    if self.critic_encoder else None
                t1 = clock()
                a, lp, v = policy.act(obs, masks, generator, critic_obs=cobs)
                spent["encode"] += t1 - t0
                spent["inference"] += clock() - t1
                if s.baseline == "solver":
                    chunks["baseline"].append(self.exact_baseline(st, rows, masks))
                actions[rows] = a
                idx = n + np.arange(rows.size)
                prev = pending[rows, seats[rows]]
                nxt_parts.append((prev[prev >= 0], idx[prev >= 0]))
                pending[rows, seats[rows]] = idx
                for k, x in (("obs", obs), ("cobs", cobs), ("masks", masks), ("actions", a),
                             ("logp", lp), ("values", v),
                             ("step", np.full(rows.size, step))):
                    if x is not None:
                        chunks[k].append(x)
                n += rows.size
            self._opponents_act(st, active & ~learn, seats, kind, member, actions, pool, rng,
                                generator, spent)
            t0 = clock()
            game.step(st, actions)
            spent["core"] += clock() - t0
            step += 1
        nxt = np.full(n, -1, np.int64)
        for a, b in nxt_parts:
            nxt[a] = b
        # every hand is over: each learner seat's last decision gets its team's reward
        r = team_rewards(st, np.arange(B), s.reward)  # [B, 2]
        rewards = np.zeros(n, np.float32)
        last = pending >= 0
        rewards[pending[last]] = seat_rewards(r, S)[last]
        cat = {k: np.concatenate(v) if v else None for k, v in chunks.items()}
        made = np.where(st.bidder >= 0, st.made, -1).astype(np.int8)
        tables = {"kind": kind, "mine": r[np.arange(B), learner_team].astype(np.float64),
                  "made": made, "steps": np.array([step])}
        return Rollout(cat["obs"], cat["cobs"], cat["masks"], cat["actions"], cat["logp"],
                       cat["values"], rewards, nxt, cat["step"], hands=B,
                       baseline=cat["baseline"], tables=tables, seconds=spent)

    def exact_baseline(self, st, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """float32 [len(rows)]: at play decisions the marks reward of the mover's team if
        every seat plays perfectly from the true deal on (the exact solver), NaN at the
        others."""
        from agents.search.solver import _solver  # numba: compiled when first used

        solver = _solver()
        out = np.full(rows.size, np.nan, np.float32)
        play = masks[:, self.game.actions.play0:].any(1)
        for i in np.flatnonzero(play):
            t = int(rows[i])
            v = solver.value(self.game, st, t)
            made = bid_made(v, int(st.contract[t]), int(st.need[t]), self.game)
            ours = (int(st.to_move[t]) & 1) == (int(st.bidder[t]) & 1)
            out[i] = int(st.bid_marks[t]) * (1 if ours == made else -1)
        return out

    def _opponents_act(self, st, rows_mask, seats, kind, member, actions, pool, rng,
                       generator, spent: dict[str, float]) -> None:
        rows = np.flatnonzero(rows_mask)
        if rows.size == 0:
            return
        k = kind[rows]
        masks = st.legal[rows]
        sel = k == OPPONENT_KINDS.index("random")
        if sel.any():
            actions[rows[sel]] = uniform_legal(masks[sel], rng)
        if sel.all():
            return  # random play reads the masks only
        t0 = time.perf_counter()
        obs = self.encoder.encode(st, seats[rows], idx=rows)
        t1 = time.perf_counter()
        spent["encode"] += t1 - t0
        sel = k == OPPONENT_KINDS.index("heuristic")
        if sel.any():
            if self._heuristic is None:
                self._heuristic = make_agent("heuristic").setup(self.game)
            actions[rows[sel]] = self._heuristic.act(obs[sel], masks[sel])
        sel = k == OPPONENT_KINDS.index("search")
        if sel.any():  # a search reads the table (its draws keyed by the decision)
            if self._search is None:
                self._search = make_agent(self.settings.search).setup(self.game)
            actions[rows[sel]] = act_rows(self.game, st, self._search, rows[sel],
                                          self.encoder, seats[rows[sel]], obs[sel])
        pool_rows = k == OPPONENT_KINDS.index("pool")
        for j in np.unique(member[rows[pool_rows]]):
            sel = pool_rows & (member[rows] == j)
            a, _, _ = self._policy(pool[int(j)]).act(obs[sel], masks[sel], generator)
            actions[rows[sel]] = a
        spent["inference"] += time.perf_counter() - t1


def merge(parts: list[Rollout], schedule: tuple[float, ...]) -> Rollout:
    """The blocks' samples joined in block order (each block's ``nxt`` shifted by the samples
    before it) with the update's statistics."""
    offsets = np.cumsum([0] + [p.actions.size for p in parts])

    def cat(name: str, shift: bool = False):
        got = [getattr(p, name) for p in parts]
        if any(g is None for g in got):
            return None
        if shift:
            got = [np.where(g >= 0, g + off, g) for g, off in zip(got, offsets)]
        return np.concatenate(got)

    tables = {k: np.concatenate([p.tables[k] for p in parts]) for k in parts[0].tables}
    made = tables["made"][tables["made"] >= 0]
    stats = {"rollout/hand_steps": int(tables["steps"].max()),
             "rollout/made_rate": float((made == 1).mean()) if made.size else 0.0}
    # the learner team's reward per hand against the opponents other than itself
    kind, mine = tables["kind"], tables["mine"]
    others = kind != 0
    stats["rollout/learner_return"] = float(mine[others].mean()) if others.any() \
        else float("nan")
    for i, k in enumerate(OPPONENT_KINDS[1:], start=1):
        if (kind == i).any():
            stats[f"rollout/return_vs_{k}"] = float(mine[kind == i].mean())
    for i, k in enumerate(OPPONENT_KINDS):
        stats[f"opponents/{k}"] = float(schedule[i])
    for k in TIMED:  # summed over the blocks' workers
        stats[f"perf/{k}_s"] = float(sum(p.seconds.get(k, 0.0) for p in parts))
    return Rollout(cat("obs"), cat("critic_obs"), cat("masks"), cat("actions"), cat("logp"),
                   cat("values"), cat("rewards"), cat("nxt", shift=True), cat("step"),
                   hands=sum(p.hands for p in parts), baseline=cat("baseline"), stats=stats,
                   tables=tables)


__all__ = ["BlockTask", "OPPONENT_KINDS", "Rollout", "RolloutSettings", "RolloutWorker",
           "block_generators", "merge"]
