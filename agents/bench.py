"""``texas42 bench``: every benchmark of the toolkit in one place: the core, the
environments, world sampling, the exact solver, PIMC decisions, bid decisions and PPO
training throughput.

The core and env figures are random legal play of whole hands, bidding included, in one process. Each
measurement runs ``ROUNDS`` timed rounds after a warm-up and reports the median round (robust
to the machine's noise, as timeit's advice goes).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import tempfile
import time
from typing import Callable, Sequence

import numpy as np

from texas42_env.core import BIDDING, DECLARING, HAND_OVER, NO_ACTION, PLAYING, Game, State
from texas42_env.env import Texas42Env
from texas42_env.observation import make_encoder
from texas42_env.records import game_for, record_from_state
from texas42_env.rules import FOLLOW_ME, NELLO, SEVENS, RulesConfig, preset
from texas42_env.sampling import uniform_legal
from texas42_env.vector_env import Texas42VectorEnv
from texas42_env.worlds import replayed, sample_worlds

from agents.arena.tournament import TournamentConfig, run_tournament
from agents.base import Context, make_agent
from agents.baselines.heuristic import HeuristicAgent
from agents.baselines.pimc import PimcAgent
from agents.bidding.bidders import SimBidder
from agents.bidding.bidnet import LearnedBidder, untrained_checkpoint
from agents.driver import act_rows
from agents.nets.device import resolve_precision
from agents.scale.backend import Backend

BATCHES = (1, 64, 1024, 4096, 8192)
ENV_BATCHES = (1, 4096)
ROUNDS = 5


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _measure(run: Callable[[int], tuple[int, int]], seconds: float) -> tuple[float, float]:
    """Median (decisions/s, hands/s) over ROUNDS rounds of ``run(steps)``."""
    run(4)  # warm up
    steps = 4
    while True:
        t0 = time.perf_counter()
        run(steps)
        took = time.perf_counter() - t0
        if took >= seconds / ROUNDS / 4 or steps >= 1 << 22:
            break
        steps *= 2
    steps = max(1, int(steps * (seconds / ROUNDS) / max(took, 1e-9)))
    rates = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        d, h = run(steps)
        dt = time.perf_counter() - t0
        rates.append((d / dt, h / dt))
    return float(np.median([r[0] for r in rates])), float(np.median([r[1] for r in rates]))


def _row(kind: str, ruleset: str, batch: int, rates: tuple[float, float]) -> dict:
    return {"kind": kind, "ruleset": ruleset, "batch": batch, "decisions_per_s": rates[0],
            "hands_per_s": rates[1], "cores": cores()}


def bench_core(ruleset: str = "standard", batch: int = 4096, seconds: float = 1.0,
               seed: int = 0) -> dict:
    """The core alone: every table whose hand ends is dealt a new game at once, so every
    step is ``batch`` decisions."""
    game = Game(preset(ruleset))
    rng = np.random.default_rng(seed)
    st = game.reset(batch, seed=seed)
    next_game = [batch]

    def run(steps: int) -> tuple[int, int]:
        hands = 0
        for _ in range(steps):
            game.step(st, uniform_legal(game.legal_mask(st), rng))
            over = np.flatnonzero(st.phase >= HAND_OVER)
            if over.size:
                hands += over.size
                game.new_games(st, over, np.arange(next_game[0], next_game[0] + over.size))
                next_game[0] += over.size
        return steps * batch, hands

    return _row("core", ruleset, batch, _measure(run, seconds))


def bench_env(ruleset: str = "standard", batch: int = 4096, seconds: float = 1.0,
              seed: int = 0) -> dict:
    """The environments with observations and masks: ``Texas42Env`` at batch 1 (a step per
    decision, reset at each hand's end), ``Texas42VectorEnv`` above it."""
    rng = np.random.default_rng(seed)
    if batch == 1:

        env = Texas42Env(ruleset=ruleset)
        state = list(env.reset(seed=seed))

        def run(steps: int) -> tuple[int, int]:
            hands = 0
            for _ in range(steps):
                legal = np.flatnonzero(state[0]["action_mask"])
                obs, _, done, _, info = env.step(legal[rng.integers(legal.size)])
                if done:
                    hands += 1
                    obs, info = env.reset()
                state[0] = obs
            return steps, hands
    else:

        venv = Texas42VectorEnv(batch, ruleset=ruleset, seed=seed)  # copy=True, the default
        state = [venv.reset()[0]]

        def run(steps: int) -> tuple[int, int]:
            hands = 0
            for _ in range(steps):
                obs, _, done, _, _ = venv.step(
                    uniform_legal(state[0]["action_mask"].view(bool), rng))
                hands += int(done.sum())
                state[0] = obs
            return steps * batch, hands

    return _row("env", ruleset, batch, _measure(run, seconds))


def _bench_position(seed: int = 0) -> dict:
    """A standard record stopped at the start of the fourth trick (random legal play)."""
    game = game_for(RulesConfig.make())
    rng = np.random.default_rng(seed)
    for g in range(1000):
        st = game.reset(1, seed=seed, game_ids=[g])
        while st.phase[0] < HAND_OVER and not (st.phase[0] == PLAYING and st.trick_no[0] == 3):
            game.step(st, uniform_legal(st.legal, rng))
        if st.phase[0] == PLAYING:
            return record_from_state(game, st, 0)
    raise RuntimeError("no hand lasted three tricks")


def bench_worlds(seconds: float = 1.0, n: int = 1000, seed: int = 0) -> dict:
    """Worlds per second of ``sample_worlds`` (parsing and replaying the record included) for a
    standard position after three tricks, ``n`` worlds a call; the median of 5 rounds."""
    rec = _bench_position(seed)
    game, st = replayed(rec)
    seat = int(st.to_move[0])
    rng = np.random.default_rng(seed)
    sample_worlds(rec, seat, n, rng)  # warm up
    rates = []
    for _ in range(5):
        t0 = time.perf_counter()
        calls = 0
        while True:
            sample_worlds(rec, seat, n, rng)
            calls += 1
            dt = time.perf_counter() - t0
            if dt >= seconds / 5:
                break
        rates.append(calls * n / dt)
    return {"kind": "worlds", "ruleset": "standard", "batch": n,
            "worlds_per_s": float(np.median(rates))}


def opening_positions(n: int, seed: int = 0, game: Game | None = None) -> tuple[Game, State]:
    """``n`` tables at the opening lead: seeded deals, random legal bids, a contract drawn
    uniformly from the seven suits, doubles and follow-me."""

    game = game or Game()
    if game.rules.all_pass != "force_dealer":
        raise ValueError("opening_positions needs all_pass 'force_dealer' (no thrown-in hands)")
    rng = np.random.default_rng(seed)
    st = game.reset(n, seed=seed)
    for _ in range(game.n_seats):  # every table bids in step, once each
        game.step(st, uniform_legal(st.legal, rng))
    assert (st.phase == DECLARING).all()
    contracts = rng.integers(0, FOLLOW_ME + 1, size=n)  # 0s..6s, doubles, follow-me
    game.step(st, game.actions.contract0 + contracts)
    return game, st


def six_positions(n: int, seed: int = 0, tricks_left: int = 9) -> tuple[Game, State]:
    """``n`` six-player tables (all tricks played) at the start of a trick with
    ``tricks_left`` tricks to play: seeded deals that the heuristic bids, declares and
    exchanges, then random legal plays."""
    game = Game(preset("six-player", play_out=True))
    enc = make_encoder(game)
    heur = HeuristicAgent().setup(game)
    rng = np.random.default_rng(seed)
    size = max(64, 2 * n)
    st = game.reset(size, seed=seed)
    stop = (game.n_tricks - tricks_left) * game.n_seats
    got = _stopped(game, st, heur, enc, rng, np.full(size, stop), stop)[:n]
    if len(got) < n:
        raise ValueError(f"only {len(got)} of {size} six-player deals reached the play")
    return game, _stack(got)


def _stack(states: list[State]) -> State:
    """One state holding the one-table states ``states`` in order."""
    out = states[0].take(np.zeros(len(states), np.int64))
    for f in State.STORED:
        arr = getattr(out, f)
        for i, one in enumerate(states):
            if f == "scalars":
                arr[:, i] = getattr(one, f)[:, 0]
            else:
                arr[i] = getattr(one, f)[0]
    return out


def _stopped(game: Game, st: State, heur, enc, rng, stop: np.ndarray, last: int
             ) -> list[State]:
    """Copies (one-table states) of the tables of ``st`` as they reach ``stop[b]`` plays:
    the heuristic bids, declares and exchanges, random legal plays follow, until no table in
    play has ``last`` plays or fewer (nello and sevens hands left out)."""
    out = []
    taken = np.zeros(st.batch_size, bool)
    while True:
        playing = st.phase == PLAYING
        at = playing & (st.n_plays == stop) & ~taken
        taken |= at
        at &= ~np.isin(st.contract, (NELLO, SEVENS))
        out += [st.take([b]) for b in np.flatnonzero(at)]
        bidding = np.flatnonzero(st.phase < PLAYING)
        if not playing.any() and bidding.size == 0:
            break
        a = np.full(st.batch_size, NO_ACTION, np.int64)
        if bidding.size:
            a[bidding] = act_rows(game, st, heur, bidding, enc)
        if playing.any():
            a = np.where(playing, uniform_legal(st.legal, rng), a)
        game.step(st, a)
        if bidding.size == 0 and not ((st.phase == PLAYING) & (st.n_plays <= last)).any():
            break
    return out


def bench_solver(n: int = 200, seed: int = 0, ruleset: str = "standard",
                 tricks_left: int | None = None) -> dict:
    """Milliseconds per solve of ``n`` random full hands from the opening lead (deals and
    contracts of ``opening_positions``), one thread, after compiling: ``solve_position``
    (every lead valued) and ``solve_value`` (the position's value alone). ``compile_s``: the
    first call (a compile, or a load from numba's cache). Six-player: positions of
    ``six_positions`` with ``tricks_left`` tricks to play (default 5, where PIMC's exact
    search starts)."""
    from agents.search.solver import _solver, solve_position, solve_value  # numba: compiled here

    t0 = time.perf_counter()
    if ruleset == "six-player":
        tricks_left = tricks_left or 5
        warm_game, warm = six_positions(1, seed=seed + 1, tricks_left=tricks_left)
    else:
        tricks_left = 7
        warm_game, warm = opening_positions(1, seed=seed + 1)
    solve_position(warm_game, warm, 0)
    solve_value(warm_game, warm, 0)
    compile_s = time.perf_counter() - t0
    if ruleset == "six-player":
        game, st = six_positions(n, seed=seed, tricks_left=tricks_left)
    else:
        game, st = opening_positions(n, seed=seed)
    solver = _solver()
    ms, value_ms, nodes = [], [], []
    for b in range(n):
        t = time.perf_counter()
        solve_position(game, st, b)
        ms.append((time.perf_counter() - t) * 1e3)
        nodes.append(solver.nodes)
        t = time.perf_counter()
        solve_value(game, st, b)
        value_ms.append((time.perf_counter() - t) * 1e3)
    ms_a, value_a = np.array(ms), np.array(value_ms)
    return {"kind": "solver", "ruleset": ruleset, "tricks_left": tricks_left, "n": n,
            "seed": seed, "median_ms": float(np.median(ms_a)),
            "p99_ms": float(np.percentile(ms_a, 99)),
            "max_ms": float(ms_a.max()), "mean_ms": float(ms_a.mean()),
            "median_nodes": float(np.median(nodes)),
            "value_median_ms": float(np.median(value_a)),
            "value_p99_ms": float(np.percentile(value_a, 99)),
            "compile_s": compile_s}


def pimc_positions(n: int, seed: int = 0, ruleset: str = "standard"):
    """``n`` play-phase positions for timing: the heuristic bids and declares (and exchanges,
    six-player), then random plays carry table i on to a number of plays drawn from 0 to
    four short of the hand's plays (24 in the standard game, 50 six-player; suit, doubles
    and follow-me contracts only). Each is a one-table state."""
    game = Game(preset(ruleset))
    enc = make_encoder(game)
    last = game.n_seats * game.n_tricks - 4
    heur = HeuristicAgent().setup(game)
    rng = np.random.default_rng(seed)
    out = []
    game_id = 0
    while len(out) < n:
        st = game.reset(64, seed=seed, game_ids=np.arange(game_id, game_id + 64))
        game_id += 64
        out += [(one, 0) for one in _stopped(game, st, heur, enc, rng,
                                             rng.integers(0, last + 1, size=64), last)]
    order = rng.permutation(len(out))[:n]
    return game, [out[i] for i in order]


def bench_pimc(n: int = 32, n_worlds: int = 16, seed: int = 0,
               ruleset: str = "standard") -> dict:
    """Milliseconds per PIMC play decision (``n_worlds`` worlds sampled and solved; early
    six-player decisions roll out to PIMC's exact search) over ``n`` positions of
    ``pimc_positions``, after a warm-up decision."""
    game, positions = pimc_positions(n + 1, seed, ruleset)
    agent = PimcAgent(n_worlds=n_worlds, seed=seed).setup(game)
    ms = []
    for k, (st, b) in enumerate(positions):
        ctx = Context(game, st, np.array([b]), np.array([int(st.to_move[b])]))
        t0 = time.perf_counter()
        agent._play(ctx, b, int(st.to_move[b]), st.legal[b])
        if k:  # the first decision compiles
            ms.append((time.perf_counter() - t0) * 1e3)
    a = np.array(ms)
    return {"kind": "pimc", "ruleset": ruleset, "n": n, "worlds": n_worlds, "seed": seed,
            "median_ms": float(np.median(a)), "p90_ms": float(np.percentile(a, 90)),
            "p99_ms": float(np.percentile(a, 99)), "max_ms": float(a.max()),
            "mean_ms": float(a.mean())}


def _positions(game, enc, st, heuristic) -> list[tuple]:
    """Every bidding step of the tables of ``st`` as the heuristic bids them: (state copy,
    tables to bid, their seats, their observations)."""

    out = []
    while (st.phase == BIDDING).any():
        rows = np.flatnonzero(st.phase == BIDDING)
        seats = st.to_move[rows]
        obs = enc.encode(st, seats, idx=rows)
        out.append((st.copy(), rows, seats, obs))
        a = np.full(st.batch_size, -1, np.int64)
        a[rows] = act_rows(game, st, heuristic, rows, enc, seats, observations=obs)
        game.step(st, a)
    return out


def _time(game, agent, positions) -> list[float]:
    """Seconds of ``agent.act`` at each position (its cache emptied first), after one
    untimed call."""

    out = []
    for k, (st, rows, seats, obs) in enumerate([positions[0]] + positions):
        if hasattr(agent, "_cache"):
            agent._cache.clear()
        t0 = time.perf_counter()
        agent.act(obs, st.legal[rows], Context(game, st, rows, seats))
        if k:
            out.append(time.perf_counter() - t0)
    return out


def bench_bidding(n: int = 16, seed: int = 0, bidnet: str | None = None) -> dict:
    """Milliseconds per bid decision of the simulation bidder (default settings, each
    decision on an empty cache) and the learned bidder (``bidnet``: a checkpoint; without
    one a freshly initialised net of the default size, which times the same), over every
    bidding decision of ``n`` auctions the heuristic bids (so later seats face real bids),
    one table at a time; ``act`` as the arena calls it, the observation already encoded
    (the environment's work). Then the throughput: the same auctions played at once, each
    bidder's ``act`` on every table to bid (decisions per second). Each bidder is timed
    over all positions in turn, in one run."""
    game = Game()
    enc = make_encoder(game)
    learned = LearnedBidder(path=bidnet) if bidnet else \
        LearnedBidder(checkpoint=untrained_checkpoint(seed))
    agents = {"sim": SimBidder(seed=seed).setup(game), "learned": learned.setup(game)}
    heuristic = HeuristicAgent().setup(game)
    single = [p for t in range(n)
              for p in _positions(game, enc, game.reset(1, seed=seed, game_ids=[t]), heuristic)]
    batched = _positions(game, enc, game.reset(n, seed=seed, game_ids=np.arange(n)), heuristic)
    out = {"kind": "bidding", "n": n, "decisions": len(single), "seed": seed,
           "bidnet": bidnet or "untrained"}
    for name, agent in agents.items():
        v = np.array(_time(game, agent, single)) * 1e3
        out[f"{name}_median_ms"] = float(np.median(v))
        out[f"{name}_mean_ms"] = float(v.mean())
        out[f"{name}_p90_ms"] = float(np.percentile(v, 90))
        out[f"{name}_decisions_per_s"] = len(single) / sum(_time(game, agent, batched))
    out["speedup"] = out["sim_median_ms"] / out["learned_median_ms"]
    out["throughput_ratio"] = out["learned_decisions_per_s"] / out["sim_decisions_per_s"]
    return out


def bench_train(updates: int = 5, tables: int = 1024, seed: int = 0, threads: int | str = 1,
                model=None, ready: Callable[[], object] | None = None, workers: int = 1,
                precision: str = "fp32", staleness: int = 0) -> dict:
    """Samples per second end to end (rollouts and learning) with the default configs, over
    ``updates`` updates after one warm-up update (which starts any actor processes).

    ``workers``: 1 is one process (the trainer plays its own rollouts, ``actors: 0``), with
    ``threads`` torch threads (1: the training default, ``threads: auto``); N > 1 is N local
    actor processes (``actors: N``) and a learner with N torch threads: with synchronous
    actors the learner runs while they wait, so it takes the cores they leave (``threads``
    is then ignored). The row splits the time: the rollout's wall time and the learner's,
    and within the rollout the workers' seconds in core stepping, observation encoding and
    net inference (summed over the actors: with N actors up to N times the rollout's wall
    time). ``ready``: called after the warm-up, before the timing (``bench_train_pair``).
    ``precision``: the learner's (``fp32``, training's default; ``bf16``; ``auto``: bf16
    where the CPU computes it natively). ``staleness``: ``algorithm.staleness`` (1: the
    actors play the next update while the learner trains; the run has one update more than
    timed, so the last timed one overlaps too)."""
    import torch  # torch: only for this benchmark

    from agents.nets.policy import ModelConfig  # torch, as above
    from agents.training.ppo import OpponentsConfig, PPOConfig, Trainer, use_threads  # torch

    actors = 0 if workers == 1 else workers
    use_threads(threads if workers == 1 else workers)
    precision = resolve_precision(precision, torch.device("cpu"))
    trainer = Trainer(RulesConfig.make(), model or ModelConfig(),
                      PPOConfig(tables=tables, staleness=staleness),
                      OpponentsConfig(), seed=seed, updates=updates + 2, actors=actors,
                      backend=Backend("local", actors) if actors else None,
                      precision=precision)
    try:
        trainer.train_update()
        if ready is not None:
            ready()
        t0 = time.perf_counter()
        s0 = trainer.samples
        spent = dict.fromkeys(("rollout_s", "learn_s", "core_s", "encode_s", "inference_s"), 0.0)
        for _ in range(updates):
            logs = trainer.train_update()
            for k in spent:
                spent[k] += logs[f"perf/{k}"]
        dt = time.perf_counter() - t0
    finally:
        trainer.close()
    n = trainer.samples - s0
    return {"kind": "train", "workers": workers, "actors": actors, "tables": tables,
            "updates": updates, "samples": n, "seconds": dt, "samples_per_s": n / dt,
            "rollout_share": spent["rollout_s"] / dt, "learn_share": spent["learn_s"] / dt,
            "split_s": spent, "threads": torch.get_num_threads(), "precision": precision,
            "staleness": staleness,
            "cores": cores()}


def _train_process(index: int, start, results, kwargs: dict) -> None:
    """One process of ``bench_train_pair``: its ``bench_train`` row, timed from ``start``
    (a barrier both processes reach after their warm-up) into ``results``."""
    results.put((index, bench_train(**kwargs, threads=1, ready=start.wait)))


def bench_train_pair(updates: int = 5, tables: int = 1024, seed: int = 0, model=None,
                     timeout: float = 900.0, precision: str = "fp32") -> dict:
    """Two training processes at once (spawned, one torch thread each, the same work), timed
    over the same stretch (both start after their warm-up): each one's samples per second
    and their sum. What two runs sharing the machine get."""
    ctx = mp.get_context("spawn")
    start, results = ctx.Barrier(2, timeout=timeout), ctx.Queue()
    kwargs = dict(updates=updates, tables=tables, seed=seed, model=model, precision=precision)
    procs = [ctx.Process(target=_train_process, args=(i, start, results, kwargs), daemon=True)
             for i in range(2)]
    for proc in procs:
        proc.start()
    rows: dict[int, dict] = {}
    deadline = time.monotonic() + timeout
    try:
        while len(rows) < 2:
            try:
                i, row = results.get(timeout=1.0)
                rows[i] = row
            except queue.Empty:
                failed = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
                if failed:
                    raise RuntimeError(f"bench train: a training process ended with status "
                                       f"{failed[0]}") from None
                if time.monotonic() > deadline:
                    raise RuntimeError(f"bench train: the two training processes took over "
                                       f"{timeout:.0f} s") from None
    finally:
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.terminate()
    rates = [rows[i]["samples_per_s"] for i in range(2)]
    return {"processes": 2, "threads": [rows[i]["threads"] for i in range(2)],
            "samples_per_s": rates, "total_samples_per_s": sum(rates)}


def bench_tournament(deals: int = 100, seed: int = 0, n_worlds: int = 16) -> dict:
    """Matches per second of one PIMC tournament (a gauntlet: ``pimc`` against four
    opponents, ``deals`` deal pairs a match in 5 blocks: 20 tasks, so two workers share
    them evenly, no records) on the local backend with 1 worker (this process) and 2 worker
    processes and on Ray (a local Ray started here first, not timed) with 1 and 2 workers,
    in one run; each timing includes starting its worker processes."""
    pimc = {"name": "pimc", "n_worlds": n_worlds, "bidding": "heuristic"}
    agents = {"pimc": pimc, "heuristic": {"name": "heuristic"}, "passive": {"name": "passive"},
              "random": {"name": "random"}, "heuristic2": {"name": "heuristic"}}
    Backend("ray", 2)  # start Ray now: its start is not part of any timing
    rows = []
    for kind, workers in (("local", 1), ("local", 2), ("ray", 1), ("ray", 2)):
        cfg = TournamentConfig.from_dict(dict(
            agents=agents, format="gauntlet", gauntlet="pimc", anchor="random", deals=deals,
            seed=seed, workers=workers, backend=kind, records=False, progress=False,
            n_boot=10, block=max(1, deals // 5)))
        with tempfile.TemporaryDirectory() as run:
            t0 = time.perf_counter()
            run_tournament(cfg, run)
            took = time.perf_counter() - t0
        rows.append({"backend": kind, "workers": workers, "seconds": took,
                     "matches_per_s": len(cfg.matches()) / took})
    rate = {(r["backend"], r["workers"]): r["matches_per_s"] for r in rows}
    return {"kind": "tournament", "deals": deals, "matches": 4, "n_worlds": n_worlds,
            "seed": seed, "rows": rows,
            "ray_2_vs_1": rate[("ray", 2)] / rate[("ray", 1)],
            "ray_vs_local_1": rate[("ray", 1)] / rate[("local", 1)],
            "ray_vs_local_2": rate[("ray", 2)] / rate[("local", 2)]}


def bench_shipped(seed: int = 0, ruleset: str = "standard", hands: int = 16,
                  batch: int = 512) -> dict:
    """Milliseconds a decision of the shipped agents over whole hands at every seat (bidding
    and play): ``champion`` one table at a time (``hands`` hands), ``learned`` batched
    (``batch`` tables at once, as the arena calls it; one batch), after a warm-up hand."""
    game = Game(RulesConfig.make(ruleset))
    enc = make_encoder(game)
    rows = []
    for name, tables, n in (("champion", 1, hands), ("learned", batch, 1)):
        agent = make_agent(name, seed=seed).setup(game)
        took, decisions = 0.0, 0
        for h in range(n + 1):  # hand 0 warms up (compiles, caches)
            st = game.reset(tables, seed=seed, game_ids=h * tables + np.arange(tables))
            while (st.phase < HAND_OVER).any():
                rows_ = np.flatnonzero(st.phase < HAND_OVER)
                t0 = time.perf_counter()
                a = act_rows(game, st, agent, rows_, enc)
                if h:
                    took += time.perf_counter() - t0
                    decisions += rows_.size
                full = np.full(tables, NO_ACTION, np.int64)
                full[rows_] = a
                game.step(st, full)
        rows.append({"agent": name, "tables": tables, "hands": n * tables,
                     "decisions": decisions, "mean_ms": took / decisions * 1e3})
    return {"kind": "shipped", "ruleset": ruleset, "seed": seed, "rows": rows}


AGENT_KINDS = ("solver", "pimc", "bidding", "train", "tournament", "shipped")


def bench_agent(kind: str, seed: int = 0, solver_n: int = 200, pimc_n: int = 32,
                bidnet: str | None = None, ruleset: str = "standard",
                precision: str = "fp32") -> dict:
    """The agents' benchmarks: the exact solver, PIMC decisions, bid decisions, PPO
    training throughput (one process alone, then two at once, in one run: the two-process
    figures under the train row's ``two_processes``)."""
    if kind == "solver":
        return bench_solver(solver_n, seed=seed, ruleset=ruleset)
    if kind == "pimc":
        return bench_pimc(pimc_n, seed=seed, ruleset=ruleset)
    if kind == "bidding":
        return bench_bidding(seed=seed, bidnet=bidnet)
    if kind == "tournament":
        return bench_tournament(seed=seed)
    if kind == "shipped":
        return bench_shipped(seed=seed, ruleset=ruleset)
    row = bench_train(seed=seed, precision=precision)
    pair = bench_train_pair(seed=seed, precision=precision)
    row["two_processes"] = {**pair, "vs_alone": pair["total_samples_per_s"] / row["samples_per_s"]}
    return row


def bench_train_workers(workers: Sequence[int], seed: int = 0, updates: int = 5,
                        tables: int = 1024, precision: str = "fp32",
                        staleness: int = 0) -> list[dict]:
    """``bench_train`` at each of ``workers`` in turn, in one run; every row after the first
    carries ``vs_first``, its samples per second over the first row's."""
    rows = [bench_train(updates=updates, tables=tables, seed=seed, workers=w,
                        precision=precision, staleness=staleness) for w in workers]
    for row in rows[1:]:
        row["vs_first"] = row["samples_per_s"] / rows[0]["samples_per_s"]
    return rows


def train_workers_row(row: dict) -> str:
    """A ``bench_train_workers`` row in words, with where its time went."""
    sp = row["split_s"]
    who = ("one process" if row["actors"] == 0 else
           f"{row['actors']} actor processes + the learner")
    text = (f" train: {row['workers']} worker{'s' * (row['workers'] > 1)} ({who}, learner "
            f"{row['threads']} thread{'s' * (row['threads'] > 1)}, {row['precision']}"
            f"{', staleness 1' if row.get('staleness') else ''}): "
            f"{row['samples_per_s']:,.0f} samples/s")
    if "vs_first" in row:
        text += f" (x{row['vs_first']:.2f} the first row)"
    wall = row["seconds"]
    text += (f"\n        wall {wall:.1f} s: rollout {row['rollout_share']:.0%}, learning "
             f"{row['learn_share']:.0%}; in the rollout's workers: core stepping "
             f"{sp['core_s']:.1f} s, observation encoding {sp['encode_s']:.1f} s, net "
             f"inference {sp['inference_s']:.1f} s")
    return text


def agent_row(row: dict) -> str:
    if row["kind"] == "solver":
        where = ("from the opening lead" if row.get("ruleset", "standard") == "standard" else
                 f"with {row['tricks_left']} tricks left")
        return (f"solver: solve_position {where}, {row['n']} deals: median "
                f"{row['median_ms']:.1f} ms, p99 {row['p99_ms']:.1f} ms (value alone: median "
                f"{row['value_median_ms']:.1f} ms)")
    if row["kind"] == "pimc":
        return (f"  pimc: play decision, {row['worlds']} worlds, {row['n']} positions: median "
                f"{row['median_ms']:.1f} ms, mean {row['mean_ms']:.1f} ms, p90 "
                f"{row['p90_ms']:.1f} ms, max {row['max_ms']:.1f} ms")
    if row["kind"] == "bidding":
        return (f"bidding: {row['decisions']} bid decisions of {row['n']} auctions: simulation "
                f"bidder median {row['sim_median_ms']:.1f} ms (mean {row['sim_mean_ms']:.1f}), "
                f"learned bidder ({row['bidnet']}) {row['learned_median_ms'] * 1e3:.0f} us "
                f"(mean {row['learned_mean_ms'] * 1e3:.0f}): x{row['speedup']:,.0f} (medians); "
                f"batched: {row['sim_decisions_per_s']:,.1f} vs "
                f"{row['learned_decisions_per_s']:,.0f} decisions/s: "
                f"x{row['throughput_ratio']:,.0f}")
    if row["kind"] == "shipped":
        return "\n".join(
            f"shipped: {r['agent']}, {r['tables']} table{'s' * (r['tables'] > 1)} at once, "
            f"{r['hands']} hands at every seat: {r['mean_ms']:.3f} ms a decision "
            f"({r['decisions']} decisions)" for r in row["rows"])
    if row["kind"] == "tournament":
        lines = [f"tournament: PIMC gauntlet, {row['matches']} matches of {row['deals']} deal "
                 f"pairs in 5 blocks each, {row['n_worlds']} worlds:"]
        lines += [f"  {r['backend']:>5}, {r['workers']} worker{'s' * (r['workers'] > 1)}: "
                  f"{r['matches_per_s']:.3f} matches/s ({r['seconds']:.1f} s)" for r in row["rows"]]
        lines.append(f"  ray 2 workers / 1: x{row['ray_2_vs_1']:.2f}; ray / local: "
                     f"x{row['ray_vs_local_1']:.2f} (1 worker), x{row['ray_vs_local_2']:.2f} "
                     f"(2 workers)")
        return "\n".join(lines)
    text = (f" train: PPO rollout + learning, {row['tables']} hands an update: "
            f"{row['samples_per_s']:,.0f} samples/s ({row['threads']} torch "
            f"thread{'s' if row['threads'] != 1 else ''})")
    pair = row.get("two_processes")
    if pair:
        text += ("\n train: two processes at once, one thread each: "
                 + " + ".join(f"{r:,.0f}" for r in pair["samples_per_s"])
                 + f" = {pair['total_samples_per_s']:,.0f} samples/s "
                 f"(x{pair['vs_alone']:.2f} one alone)")
    return text
