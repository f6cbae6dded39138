"""Expert iteration: the play net learns the search's move values on positions of its own play.

Each round the student (the play net of a policy checkpoint, sampling from its own policy)
plays ``hands`` label games at every seat, bidding and declaring left to ``bidding`` (the
heuristic by default); at each of its play decisions with a choice the teacher (a search
agent with ``move_values``: PIMC; or ``true_deal``, the exact solver on the game's own deal)
values every legal tile in each of its worlds, and the
position is kept with those per-world values (as what they are worth to the seat to move,
``agents.baselines.pimc.mover_utility``: points of 42 on every contract) and the hand's
outcome for the mover's team (marks). The play net is then trained on every round's
positions so far: cross-entropy to the softmax of the world-averaged move values at
temperature ``tau`` (``target="softmax"``; ``"values"``: its logits times ``tau`` regressed to
those values, both centred over the legal tiles, so that over many positions they learn the
expected values) (points; with ``objective="make"`` a world is worth the game's points
where the hand goes the mover's way, its team making or setting the bid, and nothing where
not, its points only breaking ties), plus ``value_weight`` times the squared error of its value
head to the outcome. The next round's label games are the trained student's.

Labels come in chunks of ``chunk_hands`` hands, each a pure function of the settings, the
round and the chunk number (deals of their own games, the student's draws keyed by the
decision), made on the backend's workers (``local`` processes or ``ray``) and written by the
driver whole or not at all (``labels/round_R/chunk_K.npz``). A rerun of the same command in the
same folder makes only what is missing: chunks not yet written, rounds not yet trained
(``checkpoints/round_R.pt``, a checkpoint ``neural:path=`` plays). ``metrics.jsonl`` and
TensorBoard (``tb/``) hold each round's losses and, on held-out chunks (every
``holdout``-th), the agreement with the teacher's best move and the regret: points of the
teacher's values lost a decision by the net's choice.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from texas42_env.config import RULES, Rule, build, check_rules, number, one_of, setting, validate, whole
from texas42_env.core import HAND_OVER, NO_ACTION, PLAYING, Game
from texas42_env.observation import make_encoder
from texas42_env.rewards import team_rewards
from texas42_env.rules import NELLO, RULESETS, SEVENS, ConfigError, RulesConfig

from agents.arena.tournament import TournamentConfig, run_tournament
from agents.base import make_agent
from agents.baselines.neural import NeuralAgent, policy_from_checkpoint
from agents.baselines.pimc import good_at, mover_utility
from agents.driver import act_rows, play_out
from agents.nets.checkpoint import CheckpointError, latest_checkpoint, load_checkpoint, save_checkpoint
from agents.nets.device import DEVICE, on_cpu, resolve_device
from agents.nets.policy import with_ranking
from agents.runs import append_line, open_run, read_lines, report_resume, write_npz
from agents.scale.backend import KINDS, Backend, BackendError, RayConfig
from agents.training.ppo import SPEC, is_spec
from agents.training.ppo_run import draw_evaluations

FIRST_GAME = 5 << 40  # label games: their own deals
ROUND_GAMES = 1 << 32  # game ids a round may use
MAX_PLAYS = 9  # the most legal tiles of a decision (a six-player hand holds 9)


# settings newer than some run folders: their values there
ADDED = {"objective": "points", "target": "softmax", "window": 0, "ranking": 0}
TRUE_DEAL = "true_deal"  # the teacher that solves the label game's own deal
ROLLOUT = "rollout"  # the teacher that plays each move out on it with the student


class TrueDealTeacher:
    """The exact solver on the label game's true deal, every hand known: each legal tile's
    value in that one world. A teacher only (it sees every hand), never a player: on the
    positions of the student's own games the true deal is a draw from the real posterior of
    the mover's view (the bidding and the play so far included), so values regressed over
    many of them estimate each move's worth over the worlds the mover may be in (what PIMC
    estimates from its sampled worlds, with the solver's own perfect-information bias)."""

    n_worlds = 1

    def move_values(self, game, st, t: int, s: int, mask: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        from agents.search.solver import _solver  # numba: compiled when first used

        legal = np.flatnonzero(mask[game.actions.play0:])
        moves = _solver().position(game, st, t)[1]  # tile ids
        return legal, np.array([[moves[tile] for tile in legal]], float), np.ones(1)


class RolloutTeacher:
    """Each legal tile played on the label game's true deal and the hand played out from
    there by ``player`` at every seat (the student, greedy): the tiles' values to the policy
    itself (its Q-values) on that deal, common to every tile, so the deal's luck cancels
    between them. A teacher only (it sees every hand), never a player. Unlike the solver's
    values these are what the policy's own play makes of a move, so they hold no
    perfect-information bias: over many positions (the true deal a draw from the mover's
    posterior) they estimate each move's worth to the policy, and the greedy choice on them
    is a policy-improvement step. Values in the solver's measure (``position``'s): the
    bidding team's points (short of the bid where it was set), tricks in sevens, the
    bidder's tricks in nello (0 where made)."""

    n_worlds = 1

    def __init__(self, player=None):
        self.player = player

    def move_values_rows(self, game, st, rows: np.ndarray
                         ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``move_values`` at every table of ``rows`` at once (their play-outs batched)."""
        if self.player is None:
            raise ValueError("the rollout teacher plays out with the student: give it one")
        p0 = game.actions.play0
        legal = [np.flatnonzero(st.legal[t, p0:]) for t in rows.tolist()]
        sizes = np.array([x.size for x in legal])
        sub = st.take(np.repeat(rows, sizes))
        game.step(sub, p0 + np.concatenate(legal))
        play_out(game, sub, self.player)
        v = solver_measure(game, sub)
        ends = np.cumsum(sizes)
        return [(x, v[e - x.size:e][None].astype(float), np.ones(1))
                for x, e in zip(legal, ends)]


def solver_measure(game, st) -> np.ndarray:
    """int64 [n]: each finished hand of ``st`` in the solver's measure (``Solver.position``'s,
    as ``bid_made`` reads it): the bidding team's points, made only from the bid (all the
    game's points on a marks bid), held short of it where the hand was set; sevens, the
    bidding team's tricks; nello, the tricks the bidder took (0 only where made)."""
    n = np.arange(st.batch_size)
    bt = st.bidder & 1
    made = st.made == 1
    c, need = st.contract, st.need
    tricks = st.tricks_won[n, bt]
    pts = st.points[n, bt]
    bar = np.where(need < 0, game.total_points, need)
    pts = np.where(made, np.maximum(pts, bar), np.minimum(pts, bar - 1))
    return np.where(c == NELLO, np.where(made, 0, np.maximum(tricks, 1)),
                    np.where(c == SEVENS, np.where(made, game.n_tricks,
                                                   np.minimum(tricks, game.n_tricks - 1)), pts))


def make_teacher(spec, game, player=None):
    """The teacher of ``spec``: ``true_deal``, ``rollout`` (played out by ``player``), or a
    search agent with ``move_values``."""
    if spec == TRUE_DEAL:
        return TrueDealTeacher()
    if spec == ROLLOUT:
        return RolloutTeacher(player)
    return make_agent(spec).setup(game)


class ExpertError(ConfigError):
    """A bad expert-iteration config or run folder."""


STUDENT = "student"  # the evaluations' name for the round's play net
OPPONENTS = Rule("mapping", test=lambda v: all(isinstance(k, str) and k and k != STUDENT
                                               and is_spec(x) for k, x in v.items()),
                 says=f"a mapping of names (not {STUDENT!r}) to play agents' specs")


@dataclass
class EvalConfig:
    """The ``eval`` key: duplicate matches of the student's play against each of ``against``
    (name -> a play agent's spec), both behind the run's ``bidding``, so that only the play
    differs; ``pairs`` deal pairs of ``seed``'s deals (the same every time) after the first
    round's start (the init) and after every ``every``-th round and the last. Not part of a
    run's identity: set or change it on a rerun to evaluate rounds already trained."""

    against: dict = setting(rule=OPPONENTS, default_factory=dict)
    pairs: int = setting(1000, whole(1))
    seed: int = setting(12345, whole(0))
    every: int = setting(1, whole(1))


@dataclass
class ExpertConfig:
    """See the module's docstring; ``init`` is the checkpoint (or run folder) the student
    starts from (its bidding net is kept as it is)."""

    init: str = setting("", Rule(test=lambda v: isinstance(v, str) and bool(v),
                                 says="a policy checkpoint or run folder"))
    teacher: Any = setting(default_factory=lambda: {"name": "pimc", "n_worlds": 16}, rule=SPEC)
    bidding: Any = setting("heuristic", SPEC)
    ruleset: str = setting("standard", one_of(*RULESETS))
    rules: dict = setting(rule=RULES, default_factory=dict)
    rounds: int = setting(3, whole(1))
    hands: int = setting(2000, whole(1))  # label games a round
    chunk_hands: int = setting(50, whole(1))  # label games a task (and a file)
    holdout: int = setting(20, whole(2))  # every holdout-th chunk is held out
    tau: float = setting(2.0, number(0.01, 1000))  # points
    # what a move is worth in a world: its points, or the hand going the mover's way
    objective: str = setting("points", one_of("points", "make", noun="objective"))
    # what the play net learns: the softmax of the world-averaged values (cross-entropy), or
    # the values themselves (its logits times tau, centred over the legal tiles, regressed
    # to the centred values: averaged over many positions, the expected values)
    # or (improve) the softmax of the round's student's own log-probabilities plus the
    # values over tau (cross-entropy): a step from the policy toward its better moves, the
    # smaller the larger tau (a KL-regularised policy improvement, as MPO's)
    target: str = setting("softmax", one_of("softmax", "values", "improve", noun="target"))
    # the rounds of labels each round trains on: the newest ``window`` (0: every round so far;
    # a teacher whose values are the student's own, rollout, goes stale with its student)
    window: int = setting(0, whole(0))
    value_weight: float = setting(0.5, number(0, 100))
    # units of a move-ranking head added to the init's play net (agents/nets/moves.py; it
    # starts at zero, so round 0's labels are the init's own play; 0: the init's net as is)
    ranking: int = setting(0, whole(0))
    epochs: int = setting(3, whole(1))
    minibatch: int = setting(512, whole(1))
    lr: float = setting(3e-4, number(1e-7, 1))
    seed: int = setting(0, whole(0))
    # the play net's training and judging: auto (a GPU when torch sees one), cpu, cuda,
    # cuda:N, mps; the label games play on the CPU
    device: str = setting("auto", DEVICE)
    backend: str = setting("local", one_of(*KINDS))
    workers: int = setting(2, whole(1))
    ray: RayConfig = setting(default_factory=RayConfig)
    eval: EvalConfig = setting(default_factory=EvalConfig)
    progress: bool = True

    @classmethod
    def from_dict(cls, d: dict) -> "ExpertConfig":
        d = dict(d)
        if isinstance(d.get("ray"), dict):
            d["ray"] = build(RayConfig, d["ray"], "ray.", error=ExpertError)
        if isinstance(d.get("eval"), dict):
            d["eval"] = build(EvalConfig, d["eval"], "eval.", error=ExpertError)
        config = build(cls, d, error=ExpertError)
        config.check()
        return config

    def check(self) -> None:
        validate(self, error=ExpertError)
        validate(self.ray, "ray.", error=ExpertError)
        if not isinstance(self.eval, EvalConfig):
            raise ExpertError(key="eval", value=self.eval,
                              allowed="a mapping of against, pairs, seed and every")
        validate(self.eval, "eval.", error=ExpertError)
        check_rules(self.rules, self.ruleset, error=ExpertError)
        if self.hands % self.chunk_hands:
            raise ExpertError(key="hands", value=self.hands,
                              allowed=f"a multiple of chunk_hands ({self.chunk_hands})")
        if self.hands // self.chunk_hands < self.holdout:
            raise ExpertError(key="holdout", value=self.holdout,
                              allowed=f"at most the chunks a round ({self.hands // self.chunk_hands}"
                                      f": hands / chunk_hands), so that one is held out")
        game = Game(self.game_rules())
        for key in ("teacher", "bidding"):
            try:
                agent = make_teacher(self.teacher, game) if key == "teacher" else \
                    make_agent(self.bidding).setup(game)
            except (ValueError, TypeError) as e:
                raise ExpertError.at(key, str(e), value=getattr(self, key)) from None
            if key == "teacher" and not hasattr(agent, "move_values") and \
                    not hasattr(agent, "move_values_rows"):
                raise ExpertError.at(key, "the teacher must be true_deal, rollout or a search "
                                     "agent that values every move (pimc)", value=self.teacher)
        for name, spec in self.eval.against.items():
            try:
                make_agent(spec).setup(game)
            except (ValueError, TypeError, OSError) as e:
                raise ExpertError.at(f"eval.against.{name}", str(e), value=spec) from None

    def game_rules(self) -> RulesConfig:
        return RulesConfig.from_options(self.ruleset, self.rules)

    def identity(self) -> dict:
        """What the labels and the training depend on (a rerun must not change them; the
        device may change, as in PPO: it only rounds differently)."""
        d = asdict(self)
        for key in ("backend", "workers", "ray", "progress", "rounds", "device", "eval"):
            d.pop(key)
        return d


# ----------------------------------------------------------------------------- labels
def label_games(game: Game, bidder, player, teacher, seed: int, game_ids: np.ndarray
                ) -> dict[str, np.ndarray]:
    """Play ``game_ids`` (one hand each) with ``bidder`` bidding and declaring (and
    exchanging) and ``player`` playing at every seat; every play decision with a choice is
    valued by ``teacher.move_values``. Arrays, one row a position: ``obs`` (uint8 [n, obs]
    bits packed), ``legal`` (int8 [n, MAX_PLAYS]: the legal tiles, -1 beyond), ``utility``
    (float16 [n, worlds, MAX_PLAYS]: each tile's worth in each world to the mover),
    ``weight`` (float32 [n, worlds]: each world's multiplicity), ``reward`` (float32 [n]:
    the mover's team's marks of the hand), ``deal`` (int64), ``seat`` (int8), ``good_at``
    (int16: the utility from which the hand goes the mover's way, ``good_at``) and ``total``
    (int16: the game's points)."""
    n = len(game_ids)
    enc = make_encoder(game)
    st = game.reset(n, seed=seed, game_ids=game_ids)
    p0 = game.actions.play0
    rows: dict[str, list] = {k: [] for k in ("obs", "legal", "utility", "weight", "table",
                                             "seat", "good_at")}
    width = None
    while True:
        active = np.flatnonzero(st.phase < HAND_OVER)
        if active.size == 0:
            break
        seats = st.to_move[active]
        playing = st.phase[active] == PLAYING
        a = np.full(n, NO_ACTION, np.int64)
        for agent, sel in ((player, playing), (bidder, ~playing)):
            if sel.any():
                a[active[sel]] = act_rows(game, st, agent, active[sel], enc, seats[sel])
        choice = active[playing & (st.legal[active, p0:].sum(1) >= 2)]
        if choice.size:
            obs = enc.encode(st, st.to_move[choice], idx=choice)
            rows["obs"].append(np.packbits(obs.astype(np.uint8), axis=1))
            batched = teacher.move_values_rows(game, st, choice) \
                if hasattr(teacher, "move_values_rows") else None
            for i, t in enumerate(choice.tolist()):
                s = int(st.to_move[t])
                legal, values, mult = batched[i] if batched is not None else \
                    teacher.move_values(game, st, t, s, st.legal[t])
                c, bidder = int(st.contract[t]), int(st.bidder[t])
                u = mover_utility(values, c, s, bidder, game.n_tricks, game.total_points)
                rows["good_at"].append(good_at(c, int(st.need[t]), (s & 1) == (bidder & 1),
                                               game.total_points))
                # a row per world the teacher may search (a bid model's resampled worlds
                # are fewer where one is drawn twice: their rows stay empty, weight 0)
                width = width or getattr(teacher, "n_worlds", len(mult))
                util = np.zeros((width, MAX_PLAYS), np.float16)
                w = np.zeros(width, np.float32)
                util[:len(mult), :legal.size] = u
                w[:len(mult)] = mult
                lg = np.full(MAX_PLAYS, -1, np.int8)
                lg[:legal.size] = legal
                rows["legal"].append(lg)
                rows["utility"].append(util)
                rows["weight"].append(w)
                rows["table"].append(t)
                rows["seat"].append(s)
        game.step(st, a)
    rewards = team_rewards(st, np.arange(n), "marks")
    table, seat = np.array(rows["table"], np.int64), np.array(rows["seat"], np.int64)
    if table.size == 0:
        raise ValueError("label games without a single play decision with a choice")
    return {"obs": np.concatenate(rows["obs"]), "legal": np.stack(rows["legal"]),
            "utility": np.stack(rows["utility"]), "weight": np.stack(rows["weight"]),
            "reward": rewards[table, seat % 2].astype(np.float32),
            "deal": np.asarray(game_ids)[table].astype(np.int64), "seat": seat.astype(np.int8),
            "good_at": np.array(rows["good_at"], np.int16), "total": np.full(
                table.size, game.total_points, np.int16)}


def _label_task(job: tuple[dict, dict, int, int]) -> dict[str, np.ndarray]:
    """A worker's task: chunk ``k`` of round ``r`` (the driver writes it)."""
    plain, student, r, k = job
    config = ExpertConfig(**{**plain, "ray": RayConfig(**plain["ray"])})
    game = Game(config.game_rules())
    player = NeuralAgent(policy=policy_from_checkpoint(student), greedy=False,
                         seed=config.seed + r).setup(game)
    bidder = make_agent(config.bidding).setup(game)
    # the rollout teacher plays out with the student itself, greedy
    teacher = make_teacher(config.teacher, game, NeuralAgent(
        policy=player.policy, greedy=True).setup(game))
    n = config.chunk_hands
    ids = FIRST_GAME + r * ROUND_GAMES + k * n + np.arange(n)
    return label_games(game, bidder, player, teacher, config.seed, ids)


def chunk_path(run: Path, r: int, k: int) -> Path:
    return run / "labels" / f"round_{r}" / f"chunk_{k:05d}.npz"


def load_labels(run: Path, rounds: int, chunks: int, holdout: int, held: bool,
                first: int = 0) -> dict[str, np.ndarray]:
    """The positions of rounds ``first..rounds-1``: the held-out chunks (every
    ``holdout``-th) or the others."""
    parts: dict[str, list] = {}
    for r in range(first, rounds):
        for k in range(chunks):
            if (k % holdout == holdout - 1) != held:
                continue
            p = chunk_path(run, r, k)
            try:
                with np.load(p) as z:
                    for name in z.files:
                        parts.setdefault(name, []).append(z[name])
            except Exception as e:  # a damaged or foreign file
                raise ExpertError(f"{p}: cannot be read ({type(e).__name__}: {e}); delete it "
                                  "and run the same command again to remake it") from None
    n = len(parts.get("reward", []))
    # arrays every chunk holds (a folder older than a field has chunks without it)
    return {name: np.concatenate(v) for name, v in parts.items() if len(v) == n}


# ----------------------------------------------------------------------------- training
def targets(data: dict[str, np.ndarray], play0: int, n_actions: int, tau: float,
            objective: str = "points") -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per position: the mask of legal actions, the softmax of the world-averaged move
    values at temperature ``tau`` over them (float32 [n, actions]; with ``data["prior"]``,
    log-probabilities [n, actions], the softmax of those plus the values over ``tau``), and
    those values (float32 [n, actions], 0 where illegal). ``objective="make"``: a world is
    worth the game's points where the hand goes the mover's way (its team makes or sets the
    bid) and 0 where not, its points a hundredth (ties); ``"points"``: its points."""
    legal = data["legal"].astype(np.int64)
    ok = legal >= 0
    w = data["weight"].astype(np.float64)
    u = data["utility"].astype(np.float64)
    if objective == "make":
        if "good_at" not in data:
            raise ExpertError("labels without good_at (made before the make objective): "
                              "use objective points, or make them again in a new folder")
        good = u >= data["good_at"].astype(np.float64)[:, None, None]
        u = good * data["total"].astype(np.float64)[:, None, None] + u / 100
    mean = np.einsum("nw,nwm->nm", w, u) / w.sum(1)[:, None]
    n = len(legal)
    mask = np.zeros((n, n_actions), bool)
    values = np.zeros((n, n_actions), np.float32)
    rr, cc = np.nonzero(ok)
    mask[rr, play0 + legal[rr, cc]] = True
    values[rr, play0 + legal[rr, cc]] = mean[rr, cc]
    logits = values / tau + (data["prior"] if "prior" in data else 0.0)
    logits = np.where(mask, logits, -np.inf)
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    return torch.from_numpy(mask), torch.from_numpy(p.astype(np.float32)), \
        torch.from_numpy(values)


def unpack_obs(packed: np.ndarray, size: int) -> torch.Tensor:
    return torch.from_numpy(np.unpackbits(packed, axis=1, count=size).astype(np.float32))


@torch.no_grad()
def play_log_probs(policy, data: dict, play0: int, n_actions: int, obs_size: int,
                   batch: int = 8192) -> np.ndarray:
    """float32 [n, actions]: the play net's log-probabilities at ``data``'s positions (0
    where illegal): the ``improve`` target's prior."""
    legal = data["legal"].astype(np.int64)
    rr, cc = np.nonzero(legal >= 0)
    mask = np.zeros((len(legal), n_actions), bool)
    mask[rr, play0 + legal[rr, cc]] = True
    device = next(policy.play.parameters()).device
    out = np.zeros(mask.shape, np.float32)
    for lo in range(0, len(mask), batch):
        m = torch.from_numpy(mask[lo:lo + batch]).to(device)
        logits, _ = policy.play(unpack_obs(data["obs"][lo:lo + batch], obs_size).to(device), m)
        out[lo:lo + batch] = torch.log_softmax(logits, -1).masked_fill(~m, 0.0).cpu().numpy()
    return out


def _centred_error(scaled: torch.Tensor, values: torch.Tensor, mask: torch.Tensor
                   ) -> torch.Tensor:
    """Per position, the mean squared error over the legal tiles between ``scaled`` and
    ``values``, each less its mean over them (a softmax does not see a shift)."""
    n = mask.sum(-1, keepdim=True).clamp(min=1)

    def centre(x: torch.Tensor) -> torch.Tensor:
        x = x.masked_fill(~mask, 0.0)
        return (x - x.sum(-1, keepdim=True) / n).masked_fill(~mask, 0.0)

    return ((centre(scaled) - centre(values)) ** 2).sum(-1) / n.squeeze(-1)


def train_round(policy, data: dict, config: ExpertConfig, play0: int, n_actions: int,
                obs_size: int, generator: torch.Generator,
                on_epoch: Callable[[int, dict], None] | None = None) -> dict[str, float]:
    """``config.epochs`` passes over ``data`` for the play net, moved to ``config.device``
    with the positions (the minibatches are drawn on the CPU); the last epoch's mean
    losses."""
    device = resolve_device(config.device)
    net = policy.play.to(device)
    mask, p, values = targets(data, play0, n_actions, config.tau, config.objective)
    obs = unpack_obs(data["obs"], obs_size).to(device)
    mask, p, values = mask.to(device), p.to(device), values.to(device)
    reward = torch.from_numpy(data["reward"]).to(device)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr)
    n = len(reward)
    logs: dict[str, float] = {}
    net.train()
    for epoch in range(config.epochs):
        perm = torch.randperm(n, generator=generator)
        sums = {"cross_entropy": 0.0, "value_loss": 0.0}
        if config.target == "values":
            sums["values_error"] = 0.0  # (tau x logits - values)^2, centred, a legal tile
        for lo in range(0, n, config.minibatch):
            mb = perm[lo:lo + config.minibatch].to(device)
            logits, v = net(obs[mb], mask[mb])
            logq = torch.log_softmax(logits, -1)
            ce = -(p[mb] * logq.masked_fill(~mask[mb], 0.0)).sum(-1)
            vl = 0.5 * (v - reward[mb]) ** 2
            fit = ce if config.target != "values" else \
                _centred_error(logits * config.tau, values[mb], mask[mb])
            loss = (fit + config.value_weight * vl).mean()
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            sums["cross_entropy"] += float(ce.detach().sum())
            sums["value_loss"] += float(vl.detach().sum())
            if config.target == "values":
                sums["values_error"] += float(fit.detach().sum())
        logs = {k: v / n for k, v in sums.items()}
        if on_epoch is not None:
            on_epoch(epoch, logs)
    net.eval()
    return logs


@torch.no_grad()
def judge(policy, data: dict, config: ExpertConfig, play0: int, n_actions: int,
          obs_size: int) -> dict[str, float]:
    """The play net against the teacher on ``data``, on the net's device: cross-entropy to the
    targets, the share of positions where it picks the teacher's best move, and the regret
    (points of the teacher's values lost a decision by its pick)."""
    device = next(policy.play.parameters()).device
    mask, p, values = (x.to(device) for x in targets(data, play0, n_actions, config.tau,
                                                      config.objective))
    logits, _ = policy.play(unpack_obs(data["obs"], obs_size).to(device), mask)
    logq = torch.log_softmax(logits, -1)
    pick = logits.argmax(-1)
    best = values.masked_fill(~mask, -np.inf).max(-1).values
    got = values.gather(1, pick[:, None]).squeeze(1)
    return {"cross_entropy": float(-(p * logq.masked_fill(~mask, 0.0)).sum(-1).mean()),
            "agreement": float((got == best).float().mean()),
            "regret": float((best - got).mean())}


# ----------------------------------------------------------------------------- evaluation
INIT_ROUND = -1  # an evaluation's round before round 0: the init's play


def evaluate_play(config: ExpertConfig, play: str, folder: Path) -> dict[str, dict]:
    """The play net of checkpoint ``play`` against each of ``config.eval.against``, both
    behind ``config.bidding`` (only the play differs), ``eval.pairs`` deal pairs of
    ``eval.seed`` on the run's backend: a gauntlet tournament in ``folder`` (resumable).
    ``{name: {"marks_per_hand": [student - name, low, high], "made_rate": the student's
    makes per bid it won, "opponent_made_rate", "pairs"}}``."""
    ev = config.eval
    agents = {STUDENT: {"name": "compose", "bid": config.bidding,
                        "play": {"name": "neural", "path": str(play)}}}
    for name, spec in ev.against.items():
        agents[name] = {"name": "compose", "bid": config.bidding, "play": spec}
    block = max(1, min(100, -(-ev.pairs // config.workers)))
    cfg = TournamentConfig(agents=agents, ruleset=config.ruleset, rules=config.rules,
                           deals=ev.pairs, seed=ev.seed, workers=config.workers,
                           backend=config.backend, ray=config.ray, block=block, chunk=block,
                           format="gauntlet", gauntlet=STUDENT, anchor=STUDENT,
                           records=False, progress=False)
    summaries = run_tournament(cfg, folder)["summaries"]
    out = {}
    for name in ev.against:
        s = summaries[(STUDENT, name)]
        out[name] = {"marks_per_hand": [round(float(x), 4) for x in s["marks_per_hand"]],
                     "pairs": s["pairs"],
                     **{key: None if np.isnan(s[f"{side}_made_rate"][0]) else
                        round(float(s[f"{side}_made_rate"][0]), 4)
                        for key, side in (("made_rate", "a"), ("opponent_made_rate", "b"))}}
    return out


def _measured(line: dict | None, ev: EvalConfig) -> bool:
    """Whether the evaluation ``line`` holds every opponent of ``ev`` at its pairs and seed."""
    return line is not None and line.get("seed", ev.seed) == ev.seed and all(
        isinstance(line.get(name), dict) and line[name].get("pairs") == ev.pairs
        for name in ev.against)


def eval_rounds(rounds: int, every: int) -> list[int]:
    """The rounds evaluated after: the init's play (``INIT_ROUND``), every ``every``-th
    round and the last."""
    return [INIT_ROUND] + [r for r in range(rounds) if (r + 1) % every == 0 or r == rounds - 1]


def chunk_positions(run: Path, r: int, chunks: int) -> int:
    """The positions labelled in round ``r`` (its chunks, held out or not)."""
    n = 0
    for k in range(chunks):
        with np.load(chunk_path(run, r, k)) as z:
            n += len(z["reward"])
    return n


def plot_evals(run: Path) -> Path | None:
    """``curves.png`` in ``run``: each round's latest evaluation, its marks a hand (95% CI)
    against the positions labelled so far, each point marked with the run's hours by then;
    None before any evaluation."""
    import matplotlib  # matplotlib: only to draw the plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after choosing the Agg backend)

    latest = {e["round"]: e for e in read_lines(run / "eval.jsonl", _round_fault)}
    evals = [latest[r] for r in sorted(latest)]  # each round's latest evaluation
    if not any(isinstance(v, dict) for e in evals for v in e.values()):
        return None
    fig, ax = plt.subplots(figsize=(9, 5))
    names = draw_evaluations(ax, evals, lambda e: e["positions"] / 1e6,
                             lambda e: f"{e['seconds'] / 3600:.1f} h")
    ax.set_xlabel("positions labelled (millions); each point's training hours above it")
    ax.set_ylabel("marks per hand, student's play - opponent's (95% CI)")
    pairs = evals[-1][names[0]]["pairs"]
    ax.set_title(f"expert iteration {run.resolve().name}: play vs play under identical "
                 f"bidding, {pairs} deal pairs a point")
    ax.legend()
    fig.tight_layout()
    path = run / "curves.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


# ----------------------------------------------------------------------------- the run
def _checkpoint_path(run: Path, r: int) -> Path:
    return run / "checkpoints" / f"round_{r}.pt"


def _round_fault(value) -> str | None:
    """What is wrong with a line of ``metrics.jsonl`` or ``eval.jsonl`` (None: a round's)."""
    if not isinstance(value, dict) or not isinstance(value.get("round"), int):
        return "an object without its round"
    return None


def run_expert(config: ExpertConfig, run: str | os.PathLike,
               progress: Callable[[str, int, int], None] | None = None) -> dict:
    """Make (or complete) the run in folder ``run``; ``progress(what, done, total)``.
    Returns ``{"rounds": [each round's metrics], "checkpoint": the last round's}``."""
    from torch.utils.tensorboard import SummaryWriter  # tensorboard: heavy, only here

    device = resolve_device(config.device)  # (one this install cannot use: before any work)
    run = Path(run)
    # a key added since the folder was made holds its default there (ADDED)
    resumed = open_run(run, config.identity(), what="an expert iteration run", added=ADDED,
                       error=ExpertError)
    try:
        init = load_checkpoint(latest_checkpoint(config.init))
    except (CheckpointError, OSError, ValueError) as e:
        raise ExpertError.at("init", str(e), value=config.init) from None
    game = Game(config.game_rules())
    policy = policy_from_checkpoint(init, config.init)
    enc = make_encoder(game)
    if (policy.obs_size, policy.n_actions) != (enc.size, game.n_actions):
        raise ExpertError.at("init", f"the policy was trained for another game "
                             f"({policy.obs_size} observations, {policy.n_actions} actions; "
                             f"{config.ruleset} has {enc.size} and {game.n_actions})",
                             value=config.init)
    if config.ranking:
        try:
            policy = with_ranking(policy, config.ranking, game)
        except ValueError as e:
            raise ExpertError.at("ranking", str(e), value=config.ranking) from None
        model = {k: v for k, v in init["model"].items() if k != "ema_state_dict"}
        init = {**init, "model": {**model, "config": policy.config.to_dict(),
                                  "state_dict": on_cpu(policy.state_dict())}}
    try:
        backend = Backend(config.backend, config.workers, config.ray.address)
    except BackendError as e:
        raise ExpertError(str(e), key="backend", value=config.backend) from None
    plain = {**asdict(config), "ray": asdict(config.ray)}
    chunks = config.hands // config.chunk_hands
    play0, n_actions = game.actions.play0, game.n_actions
    writer = SummaryWriter(str(run / "tb"))
    metrics_path = run / "metrics.jsonl"
    done_rounds = {m["round"]: m for m in read_lines(
        metrics_path, _round_fault, what="a round's metrics", job="expert", error=ExpertError)}
    if resumed:
        trained = 0
        while trained < config.rounds and trained in done_rounds and \
                _checkpoint_path(run, trained).exists():
            trained += 1
        have = sum(chunk_path(run, trained, k).exists() for k in range(chunks))
        report_resume("expert", run, f"{trained} of {config.rounds} rounds"
                      + (f" and {have} of {chunks} label chunks of round {trained}"
                         if have and trained < config.rounds else ""),
                      f"round {trained} next" if trained < config.rounds
                      else "every round is done")
    student = init
    history = []
    evals_path = run / "eval.jsonl"
    # each round's latest evaluation: done where it holds every opponent of eval.against
    # at eval.pairs and eval.seed (a rerun that changes them measures the round again)
    evaluated = {e["round"]: e for e in read_lines(evals_path, _round_fault, what="an evaluation",
                                                   job="expert", error=ExpertError)}
    to_eval = eval_rounds(config.rounds, config.eval.every) if config.eval.against else []
    made_so_far, seconds_so_far = 0, 0.0

    def evaluate(r: int, play: str) -> None:
        if r not in to_eval or _measured(evaluated.get(r), config.eval):
            return
        what = "init evaluation" if r == INIT_ROUND else f"round {r} evaluation"
        if progress:
            progress(what, 0, 1)
        res = evaluate_play(config, play, run / "eval" / (
            "init" if r == INIT_ROUND else f"round_{r}"))
        line = {"round": r, "positions": made_so_far, "seconds": round(seconds_so_far, 1),
                "seed": config.eval.seed, **res}
        append_line(evals_path, line)
        evaluated[r] = line
        for name, v in res.items():
            for k, x in zip(("marks_per_hand", "ci_low", "ci_high"), v["marks_per_hand"]):
                writer.add_scalar(f"eval/{name}/{k}", x, r + 1)
        writer.add_scalar("eval/positions", made_so_far, r + 1)
        writer.add_scalar("eval/hours", seconds_so_far / 3600, r + 1)
        writer.flush()
        plot_evals(run)
        if progress:
            progress(what, 1, 1)

    evaluate(INIT_ROUND, latest_checkpoint(config.init))
    for r in range(config.rounds):
        ck = _checkpoint_path(run, r)
        if ck.exists() and r in done_rounds:
            student = load_checkpoint(ck)
            history.append(done_rounds[r])
            made_so_far += done_rounds[r].get("made") or chunk_positions(run, r, chunks)
            seconds_so_far += done_rounds[r].get("seconds", 0.0)
            evaluate(r, str(ck))
            continue
        started = time.perf_counter()
        todo = [k for k in range(chunks) if not chunk_path(run, r, k).exists()]
        chunk_path(run, r, 0).parent.mkdir(parents=True, exist_ok=True)
        made = [chunks - len(todo)]
        if progress:
            progress(f"round {r} labels", made[0], chunks)

        def keep(i: int, arrays: dict, r=r, todo=todo) -> None:
            write_npz(chunk_path(run, r, todo[i]), arrays)
            made[0] += 1
            if progress:
                progress(f"round {r} labels", made[0], chunks)

        backend.run(_label_task, [(plain, student, r, k) for k in todo], keep)
        policy = policy_from_checkpoint(student)
        policy.play.to(device)  # (the bidding net, never trained here, stays on the CPU)
        first = max(0, r + 1 - config.window) if config.window else 0
        train = load_labels(run, r + 1, chunks, config.holdout, held=False, first=first)
        held = load_labels(run, r + 1, chunks, config.holdout, held=True, first=first)
        if config.target == "improve":  # the step is from the round's student
            for d in (train, held):
                d["prior"] = play_log_probs(policy, d, play0, n_actions, enc.size)
        before = judge(policy, held, config, play0, n_actions, enc.size)
        gen = torch.Generator().manual_seed(config.seed * 1000 + r)

        def on_epoch(epoch: int, logs: dict, r=r) -> None:
            step = r * config.epochs + epoch + 1
            for k, v in logs.items():
                writer.add_scalar(f"train/{k}", v, step)
            if progress:
                progress(f"round {r} training", epoch + 1, config.epochs)

        logs = train_round(policy, train, config, play0, n_actions, enc.size, gen, on_epoch)
        after = judge(policy, held, config, play0, n_actions, enc.size)
        for k, v in after.items():
            writer.add_scalar(f"holdout/{k}", v, r + 1)
        writer.flush()
        payload = {k: init[k] for k in ("rules", "train_config") if k in init}
        model = {k: v for k, v in init["model"].items() if k != "ema_state_dict"}
        # no stale average; CPU copies, so the checkpoint loads on any install
        payload["model"] = {**model, "state_dict": on_cpu(policy.state_dict())}
        payload["expert"] = {"round": r, "config": config.identity(), "init": config.init,
                             "positions": int(len(train["reward"]))}
        save_checkpoint(ck, payload)
        student = load_checkpoint(ck)
        # made: the positions labelled this round; seconds: its labels and training here
        # (a round resumed part-made counts this process's part)
        m = {"round": r, "positions": int(len(train["reward"])),
             "held_positions": int(len(held["reward"])), "train": logs,
             "holdout_before": before, "holdout_after": after,
             "made": chunk_positions(run, r, chunks),
             "seconds": round(time.perf_counter() - started, 1)}
        append_line(metrics_path, m)
        history.append(m)
        made_so_far += m["made"]
        seconds_so_far += m["seconds"]
        evaluate(r, str(ck))
    writer.close()
    return {"rounds": history, "checkpoint": str(_checkpoint_path(run, config.rounds - 1))}


__all__ = ["INIT_ROUND", "ROLLOUT", "STUDENT", "TRUE_DEAL", "EvalConfig", "ExpertConfig",
           "ExpertError", "RolloutTeacher", "TrueDealTeacher", "eval_rounds", "evaluate_play",
           "judge", "label_games", "load_labels", "make_teacher", "play_log_probs", "plot_evals",
           "run_expert", "solver_measure", "targets", "train_round"]
