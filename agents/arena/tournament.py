"""Tournaments: round robin or gauntlet of duplicate matches, resumable, rated.

``run_tournament(config, run_dir)`` plays every match not yet in ``run_dir/results.jsonl``
(each finished match is appended there at once, so an interrupt loses nothing finished),
in parallel over ``workers`` processes, then writes ``ratings.csv``, ``report.md``,
``ratings.png`` and keeps the game records of every hand under ``records/``.

``backend`` says where the matches run: ``local`` (``workers`` processes on this machine)
or ``ray`` (``workers`` tasks at once on a Ray cluster, ``ray.address``: empty starts a
local Ray, ``auto`` or ``ray://HOST:PORT`` joins one). A task is a match, or a block of
``block`` deal pairs of it; only this process (the driver) writes files, in task order, so
the results are the same on either backend whatever the number of workers. A match of
several blocks keeps each finished block in ``blocks.jsonl`` (and its records under
``records/A__vs__B.blocks/``) until the match is whole, so a killed driver loses no block.

``ruleset`` picks the game (``standard`` or ``six-player``; ``rules`` holds that ruleset's
rules.md options). In six-player a partnership is three agents, ``{partners: [a, b, c]}``,
one a seat of the team by role (seats 0/2/4 or 1/3/5 in that order): as many partners as a
team has seats, so a list never means a different mix under another ruleset.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from texas42_env.config import RULES, Rule, build, check_rules, one_of, setting, validate, whole
from texas42_env.core import Game
from texas42_env.rules import RULESETS, ConfigError, RulesConfig

from agents.arena.duplicate import (MODES, PairStats, pair_scores, play_duplicate,
                                    ruleset_fault, summarize)
from agents.arena.ratings import bootstrap_ratings, openskill_ratings
from agents.base import REGISTRY, make_agent, spec_name
from agents.nets.checkpoint import CheckpointError, latest_checkpoint
from agents.runs import append_line, atomic_write, read_lines, report_resume
from agents.scale.backend import KINDS, Backend, BackendError, RayConfig


class TournamentError(ConfigError):
    """A bad tournament config or a run folder that cannot be resumed."""


AGENTS = Rule("mapping", test=lambda a: len(a) >= 2,
              says="a mapping of at least two agents (NAME: SPEC or {partners: [A, B]}; "
                   "six-player {partners: [A, B, C]})")
TEAM_SEATS = {"standard": 2, "six-player": 3}  # partners a side takes: one a seat of its team


def team(ruleset: str, *names: str) -> list[str]:
    """Partners for a team of ``ruleset``: ``names`` in role order, the last one filling the
    seats left (``team("six-player", "heuristic", "random")``: heuristic, random, random).
    configs/tournament.yaml writes it ``${team:${ruleset},heuristic,random}`` so its default
    lineup plays either game."""
    names = [str(n).strip() for n in names]
    seats = TEAM_SEATS.get(ruleset, len(names))  # an unknown ruleset is refused by check()
    return names[:seats] + names[-1:] * (seats - len(names)) if names else []


@dataclass
class TournamentConfig:
    agents: dict[str, Any] = setting(rule=AGENTS)  # name -> agent spec, or {"partners": [...]}
    ruleset: str = setting("standard", one_of(*RULESETS))  # the game; rules: its options
    mode: str = setting("hands", one_of(*MODES))
    deals: int = setting(1000, whole(1))
    seed: int = setting(0, whole(0))
    workers: int = setting(2, whole(1))
    backend: str = setting("local", one_of(*KINDS))  # local processes, or Ray
    ray: RayConfig = setting(default_factory=RayConfig)  # where Ray runs (backend: ray)
    block: int | None = setting(None, whole(1, optional=True))  # deal pairs a task (null: a match)
    format: str = setting("round_robin", one_of("round_robin", "gauntlet"))
    gauntlet: str | None = None  # the agent that meets the pool in a gauntlet
    anchor: str | None = "auto"  # the agent rated 0: auto is random where it plays, else the
    # first agent listed (null: ratings centred on their mean)
    n_boot: int = setting(1000, whole(1))
    chunk: int = setting(2048, whole(1))
    records: bool = True
    rules: dict[str, Any] = setting(rule=RULES, default_factory=dict)
    progress: bool = True

    @classmethod
    def from_dict(cls, d: dict) -> "TournamentConfig":
        """From a config's mapping: unknown and missing keys are named first."""
        d = dict(d)
        if "ray" in d and not isinstance(d["ray"], RayConfig):
            d["ray"] = build(RayConfig, d["ray"] if d["ray"] is not None else {}, "ray.",
                             error=TournamentError)
        return build(cls, d, error=TournamentError)

    def check(self) -> None:
        """Every value, the rules, every agent built and set up for the game once (so a bad
        spec, a missing checkpoint or an agent that does not play the ruleset is named,
        ``agents.NAME: ...``, before anything is played)."""
        validate(self, error=TournamentError)
        if not isinstance(self.ray, RayConfig):
            raise TournamentError(key="ray", value=self.ray, allowed="a mapping of address")
        validate(self.ray, "ray.", error=TournamentError)
        if isinstance(self.rules, dict) and "ruleset" in self.rules:
            raise TournamentError.at("rules.ruleset", "the ruleset is the top-level key "
                                     "ruleset (e.g. ruleset=six-player), not a rules option",
                                     value=self.rules["ruleset"], allowed=RULESETS)
        rules = check_rules(self.rules, self.ruleset, error=TournamentError)
        game = Game(rules)
        n_partners = TEAM_SEATS[self.ruleset]
        for name, spec in self.agents.items():
            key = f"agents.{name}"
            if isinstance(spec, dict) and "partners" in spec:
                partners = spec["partners"]
                others = [n for n in self.agents if n != name]
                if not (isinstance(partners, (list, tuple)) and len(partners) == n_partners
                        and all(p in others for p in partners)):
                    raise TournamentError(key=f"{key}.partners", value=partners,
                                          allowed=f"{_count(n_partners)} names of other agents "
                                                  f"of this tournament, one a seat of the team "
                                                  f"in {self.ruleset} "
                                                  f"({', '.join(map(str, others))})")
                continue
            try:
                agent = make_agent(spec)  # fails early, naming the agent, if it cannot be built
            except (ValueError, TypeError, OSError) as e:
                known = isinstance(spec_name(spec), str) and spec_name(spec) in REGISTRY
                raise TournamentError.at(key, e, value=spec, allowed=(
                    "a spec the agent can be built from" if known else tuple(sorted(REGISTRY))
                )) from None
            if (why := ruleset_fault(agent, self.ruleset)) is not None:
                raise TournamentError.at(key, why, value=spec,
                                         allowed=f"an agent that plays {self.ruleset}")
            try:
                agent.setup(game)  # e.g. a policy trained for the other ruleset
            except ValueError as e:
                raise TournamentError.at(key, e, value=spec,
                                         allowed="an agent that can play these rules") from None
        if self.anchor == "auto" and isinstance(self.agents, dict) and self.agents:
            self.anchor = "random" if "random" in self.agents else next(iter(self.agents))
        if self.anchor is not None and self.anchor not in self.agents:
            raise TournamentError(key="anchor", value=self.anchor,
                                  allowed=f"the agent rated 0: one of "
                                          f"{', '.join(map(str, self.agents))}, auto "
                                          f"(random, else the first listed) or null (ratings "
                                          f"centred on their mean)")
        if self.format == "gauntlet" and self.gauntlet not in self.agents:
            raise TournamentError(key="gauntlet", value=self.gauntlet,
                                  allowed=f"with format=gauntlet, the agent that meets the "
                                          f"others (one of {', '.join(map(str, self.agents))})")

    def rules_config(self) -> RulesConfig:
        """The rules every match is played by: ``ruleset`` with the ``rules`` options."""
        return RulesConfig.from_options(self.ruleset, self.rules)

    def matches(self) -> list[tuple[str, str]]:
        names = list(self.agents)
        if self.format == "gauntlet":
            return [(self.gauntlet, b) for b in names if b != self.gauntlet]
        return list(combinations(names, 2))


def match_key(cfg: TournamentConfig, a: str, b: str) -> dict:
    """What a match's result depends on. An agent read from a file (``path``: a checkpoint, a
    run folder, a link such as ``runs/train/latest.pt``) is keyed by the file it resolves to
    now, so a rerun never reuses a match another checkpoint played. The ruleset is in the key
    only when it is not standard, so the results of runs before it was a key still resume."""
    key = {"a": a, "b": b, "mode": cfg.mode, "deals": cfg.deals, "seed": cfg.seed,
           "a_spec": cfg.agents[a], "b_spec": cfg.agents[b], "rules": cfg.rules}
    if cfg.ruleset != "standard":
        key["ruleset"] = cfg.ruleset
    for side, name in (("a", a), ("b", b)):
        files = _files_of(cfg, name, keyed=True)
        if files:
            key[f"{side}_files"] = files
    return key


def _files_of(cfg: TournamentConfig, name: str, keyed: bool = False) -> list[str]:
    """The files agent ``name`` (or its partners) is read from, resolved: [] for none.
    ``keyed``: as a match key names them, relative to the working folder where they lie
    under it (so a results file names no machine's folders)."""
    spec = cfg.agents[name]
    if isinstance(spec, dict) and "partners" in spec:
        return [f for p in spec["partners"] for f in _files_of(cfg, p, keyed)]
    path = spec.get("path") if isinstance(spec, dict) else None
    if not isinstance(path, str) or not path:
        return []
    try:
        real = os.path.realpath(latest_checkpoint(path))
    except CheckpointError:  # not a checkpoint (a bid net file, say): the file itself
        real = os.path.realpath(path)
    here = os.path.realpath(os.getcwd())
    if keyed and os.path.commonpath([real, here]) == here:
        return [os.path.relpath(real, here)]
    return [real]


def _count(n: int) -> str:
    return {2: "two", 3: "three"}.get(n, str(n))


def _key_id(key: dict) -> str:
    return json.dumps(key, sort_keys=True)


def _result_fault(row: Any) -> str | None:
    """What is wrong with a results.jsonl row (None: a match result)."""
    if not isinstance(row, dict) or "key" not in row or "stats" not in row:
        return "not a match result (it needs 'key' and 'stats')"
    key, stats = row["key"], row["stats"]
    if not isinstance(key, dict) or not all(isinstance(key.get(k), str) for k in ("a", "b")):
        return "field 'key': a mapping naming the agents 'a' and 'b'"
    if not isinstance(stats, dict):
        return "field 'stats': a mapping of per-pair figures"
    n = key.get("deals")
    for f in PairStats.FIELDS:
        v = stats.get(f)
        if not (isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool)
                                            for x in v)):
            return f"field 'stats.{f}': a list of whole numbers"
        if isinstance(n, int) and len(v) != n:
            return f"field 'stats.{f}': {len(v)} values for {n} deal pairs"
    return None


def read_results(path: Path) -> list[dict]:
    """Finished matches (or blocks), by the log's torn-line rule (``agents.runs``): a torn
    last line is reported on stderr and dropped (its match is played again); a damaged line
    is an error naming it."""
    return read_lines(path, _result_fault, what="a match result", job="tournament",
                      error=TournamentError)


def _agent(cfg: TournamentConfig, name: str):
    agent = make_agent(cfg.agents[name])
    agent.name = name  # records and errors use the tournament's names
    return agent


def _side(cfg: TournamentConfig, name: str):
    """A side: the agent, or its partners (one a seat of the team)."""
    spec = cfg.agents[name]
    if isinstance(spec, dict) and "partners" in spec:
        return [_agent(cfg, p) for p in spec["partners"]]
    return _agent(cfg, name)


def _play_block(job: tuple) -> dict:
    """One task (in a worker): deal pairs ``first .. first + n - 1`` of match a vs b, their
    per-pair figures and (with ``records``) the game records as JSON lines."""
    cfg, a, b, first, n = job
    lines: list[str] = []

    def sink(recs):
        lines.extend(json.dumps({**r, "match": f"{a} vs {b}"}) + "\n" for r in recs)

    stats = play_duplicate(cfg.rules_config(), _side(cfg, a), _side(cfg, b), n,
                           mode=cfg.mode, seed=cfg.seed, first_deal=first, chunk=cfg.chunk,
                           on_records=sink if cfg.records else None)
    return {"stats": stats.to_dict(), "records": lines}


def _blocks(cfg: TournamentConfig) -> list[tuple[int, int]]:
    """(first deal, deal pairs) of each task of a match."""
    size = cfg.block or cfg.deals
    return [(lo, min(size, cfg.deals - lo)) for lo in range(0, cfg.deals, size)]


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped the matches: what is kept and how to go on, in one line (``str``)."""


def backend_of(cfg: TournamentConfig) -> Backend:
    """The backend the config names (``TournamentError`` when it cannot run)."""
    try:
        return Backend(cfg.backend, cfg.workers, cfg.ray.address)
    except BackendError as e:
        raise TournamentError(str(e), key="backend", value=cfg.backend) from None


def run_tournament(cfg: TournamentConfig, run_dir: str | Path) -> dict:
    """Play what is missing, then rate and report. Returns the ratings."""
    cfg.check()
    if cfg.backend != "local":
        backend_of(cfg)  # Ray missing or out of reach: said before any folder is made
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    results_path = run_dir / "results.jsonl"
    done = {_key_id(r["key"]): r for r in read_results(results_path)}
    todo = [(a, b) for a, b in cfg.matches() if _key_id(match_key(cfg, a, b)) not in done]
    skipped = len(cfg.matches()) - len(todo)
    if skipped:
        report_resume("tournament", run_dir, f"{skipped} of {len(cfg.matches())} matches "
                      f"already played ({results_path.name})", f"{len(todo)} to play")
    if todo:
        _play_all(cfg, todo, run_dir, results_path, done)
    rows = [done[_key_id(match_key(cfg, a, b))] for a, b in cfg.matches()]
    return write_outputs(cfg, rows, run_dir)


def _resolved(cfg: TournamentConfig) -> TournamentConfig:
    """``cfg`` with every agent read from a file given the file its path resolves to now
    (the one the match keys name), so every worker loads that very checkpoint."""
    agents = {}
    for name, spec in cfg.agents.items():
        files = _files_of(cfg, name) if isinstance(spec, dict) and "path" in spec else []
        agents[name] = {**spec, "path": files[0]} if files else spec
    return replace(cfg, agents=agents)


def _play_all(cfg, todo, run_dir, results_path, done) -> None:
    """Play the blocks not kept, then finish the matches in ``todo`` order: a match is
    finished (its records joined, its results row fsynced, then its block files removed)
    once every block of it is kept."""
    blocks = _blocks(cfg)
    many = len(blocks) > 1
    blocks_path = run_dir / "blocks.jsonl"
    records_dir = run_dir / "records"
    matches = {(a, b): match_key(cfg, a, b) for a, b in todo}
    ids = {_key_id(k): (a, b) for (a, b), k in matches.items()}
    sizes = dict(blocks)

    def block_file(a: str, b: str, lo: int) -> Path:
        return records_dir / f"{a}__vs__{b}.blocks" / f"{lo:09d}.jsonl"

    kept: dict[tuple[str, int], dict] = {}  # finished blocks of the matches to play
    if many:
        for row in read_results(blocks_path):
            k = row["key"]
            match, lo = k.get("match"), k.get("first")
            if not (isinstance(match, dict) and _key_id(match) in ids):
                continue  # another config's block
            a, b = ids[_key_id(match)]
            if sizes.get(lo) != k.get("deals") or \
                    (cfg.records and not block_file(a, b, lo).exists()):
                continue  # another block size, or its records are not there: played again
            kept[(_key_id(match), lo)] = row
    work = _resolved(cfg)
    tasks = [(work, a, b, lo, n) for a, b in todo for lo, n in blocks
             if (_key_id(matches[(a, b)]), lo) not in kept]
    bar = tqdm(total=len(todo) * cfg.deals, unit="pairs", desc="tournament",
               disable=not cfg.progress)
    bar.update(sum(r["key"]["deals"] for r in kept.values()))
    backend = backend_of(cfg)
    order = list(todo)

    def finish(a: str, b: str) -> None:
        key = matches[(a, b)]
        parts = [kept[(_key_id(key), lo)] for lo, _ in blocks]
        name = f"{a}__vs__{b}"
        rel = None
        if cfg.records:
            records_dir.mkdir(parents=True, exist_ok=True)
            lines = parts[0]["records"] if not many else [
                line for lo, _ in blocks
                for line in block_file(a, b, lo).read_text(
                    encoding="utf-8").splitlines(keepends=True)]
            atomic_write(records_dir / f"{name}.jsonl", "".join(lines))
            rel = f"records/{name}.jsonl"
        stats = PairStats.concat([PairStats.from_dict(p["stats"]) for p in parts])
        row = {"key": key, "stats": stats.to_dict(), "records": rel}
        append_line(results_path, row)  # the match is on disk before its blocks go
        done[_key_id(key)] = row
        if cfg.records and many:
            folder = records_dir / f"{name}.blocks"
            for f in folder.glob("*.jsonl"):
                f.unlink()
            folder.rmdir()
        bar.set_postfix_str(f"{a} vs {b}")

    def advance() -> None:
        """Finish, in order, the matches whose every block is kept."""
        while order and all((_key_id(matches[order[0]]), lo) in kept for lo, _ in blocks):
            finish(*order.pop(0))

    def on_result(i: int, res: dict) -> None:
        _, a, b, lo, n = tasks[i]
        bar.update(n)
        key = matches[(a, b)]
        row = {"key": {"match": key, "first": lo, "deals": n, "a": a, "b": b},
               "stats": res["stats"]}
        if many:
            if cfg.records:
                block_file(a, b, lo).parent.mkdir(parents=True, exist_ok=True)
                atomic_write(block_file(a, b, lo), "".join(res["records"]))
            append_line(blocks_path, row)
        else:
            row["records"] = res["records"]
        kept[(_key_id(key), lo)] = row
        advance()

    if kept:
        report_resume("tournament", run_dir, f"{len(kept)} finished blocks of "
                      f"{len({m for m, _ in kept})} unfinished matches ({blocks_path.name})",
                      f"{len(tasks)} blocks to play")
    advance()
    try:
        backend.run(_play_block, tasks, on_result)
    except KeyboardInterrupt:
        bar.close()
        unfinished = {_key_id(matches[m]) for m in order}
        held = sum(1 for m, _ in kept if m in unfinished)
        raise TournamentInterrupted(
            f"tournament: stopped (Ctrl-C): {len(done)} finished matches in "
            f"{results_path}" + (f" and {held} finished blocks of unfinished ones in "
                                 f"{blocks_path.name}" if many else "")
            + "; the blocks in progress are lost; run the same command to resume") from None
    advance()
    bar.close()


# ---------------------------------------------------------------------- outputs
def write_outputs(cfg: TournamentConfig, rows: list[dict], run_dir: Path) -> dict:
    rng = np.random.default_rng(cfg.seed)
    games, groups, summaries, team_games = [], [], {}, []
    for m, row in enumerate(rows):
        k = row["key"]
        stats = PairStats.from_dict(row["stats"])
        scores = pair_scores(stats, k["mode"])
        games += [(k["a"], k["b"], float(s)) for s in scores]
        groups += [m * 1_000_000 + i for i in range(len(scores))]
        summaries[(k["a"], k["b"])] = summarize(stats, k["mode"], n_boot=cfg.n_boot, seed=cfg.seed)
        ta, tb = _team(cfg, k["a"]), _team(cfg, k["b"])
        team_games += [(ta, tb, float(s)) for s in scores]
    anchor = cfg.anchor if cfg.anchor in cfg.agents else None
    ratings = bootstrap_ratings(games, groups, n_boot=cfg.n_boot, rng=rng, anchor=anchor)
    # OpenSkill (agents.arena.ratings) rates teams of two: the standard game's partnerships
    mixed = cfg.ruleset == "standard" and any(isinstance(s, dict) and "partners" in s
                                              for s in cfg.agents.values())
    skill = openskill_ratings(team_games) if mixed else {}
    _write_csv(run_dir / "ratings.csv", ratings, skill)
    _write_report(run_dir / "report.md", cfg, ratings, summaries, skill)
    _plot(run_dir / "ratings.png", ratings, cfg)
    return {"ratings": ratings, "summaries": summaries, "openskill": skill}


def _team(cfg, name):
    spec = cfg.agents[name]
    if isinstance(spec, dict) and "partners" in spec:
        return tuple(spec["partners"])
    return (name, name)


def _write_csv(path: Path, ratings: dict, skill: dict) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["agent", "elo", "elo_low", "elo_high", "openskill_mu", "openskill_sigma"])
        for name, (r, lo, hi) in sorted(ratings.items(), key=lambda kv: -kv[1][0]):
            mu, sigma = (skill[name][0], skill[name][1]) if name in skill else ("", "")
            w.writerow([name, f"{r:.1f}", f"{lo:.1f}", f"{hi:.1f}", mu, sigma])


def _fmt(ci, signed: bool = True) -> str:
    if len(ci) == 1:
        return f"{ci[0]:.3f}"
    est, lo, hi = ci
    if not np.isfinite(est):
        return "n/a"
    f = "+.3f" if signed else ".3f"
    return f"{est:{f}} [{lo:{f}}, {hi:{f}}]"


def _write_report(path: Path, cfg, ratings, summaries, skill) -> None:
    names = sorted(ratings, key=lambda n: -ratings[n][0])
    lines = ["# Tournament report", "",
             f"{cfg.format.replace('_', ' ')}, mode `{cfg.mode}`, {cfg.deals} deal pairs a match "
             f"(every deal played twice, seats swapped), seed {cfg.seed}, "
             + (f"ruleset {cfg.ruleset}, " if cfg.ruleset != "standard" else "")
             + f"rules {cfg.rules or f'{cfg.ruleset} defaults'}.", "",
             "## Ratings", "",
             f"Bradley-Terry maximum likelihood on the Elo scale, "
             f"{f'`{cfg.anchor}` at 0' if cfg.anchor is not None else 'centred on the mean'}; 95% "
             f"bootstrap intervals over deal pairs ({cfg.n_boot} resamples). A deal pair "
             f"counts as a win for the side that took more marks over its two hands"
             + (" (games mode: games won)" if cfg.mode == "games" else "") + ".", "",
             "| agent | Elo | 95% CI |" + (" OpenSkill mu | sigma |" if skill else ""),
             "|---|---|---|" + ("---|---|" if skill else "")]
    for n in names:
        r, lo, hi = ratings[n]
        row = f"| {n} | {r:.0f} | [{lo:.0f}, {hi:.0f}] |"
        if skill:
            row += f" {skill[n][0]:.2f} | {skill[n][1]:.2f} |" if n in skill else " | |"
        lines.append(row)
    lines += ["", "## Head to head: marks per hand, row minus column (95% CI)", "",
              "| | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            if (a, b) in summaries:
                cells.append(_fmt(summaries[(a, b)]["marks_per_hand"]))
            elif (b, a) in summaries:
                est, lo, hi = summaries[(b, a)]["marks_per_hand"]
                cells.append(_fmt([-est, -hi, -lo]))
            else:
                cells.append("")
        lines.append(f"| **{a}** | " + " | ".join(cells) + " |")
    lines += ["", "## Matches", "",
              "| A | B | pairs | hands | marks/hand (A-B) | A made | B made | A bids | B bids |"
              + (" A wins |" if cfg.mode == "games" else ""),
              "|---|---|---|---|---|---|---|---|---|" + ("---|" if cfg.mode == "games" else "")]
    for (a, b), s in summaries.items():
        row = (f"| {a} | {b} | {s['pairs']} | {s['hands']} | {_fmt(s['marks_per_hand'])} | "
               f"{_fmt(s['a_made_rate'], False)} | {_fmt(s['b_made_rate'], False)} | "
               f"{s['a_bid_rate'][0]:.2f} | {s['b_bid_rate'][0]:.2f} |")
        if cfg.mode == "games":
            row += f" {_fmt(s['a_win_rate'], False)} |"
        lines.append(row)
    lines += ["", "Made rates are makes per hand the side won the bid; bids are the share of "
              "hands it won the bid.", ""]
    if skill:
        lines += ["OpenSkill and Bradley-Terry can order agents differently: Bradley-Terry fits "
                  "every deal pair at once, each agent on its own, while OpenSkill rates "
                  "partnerships, updates game by game in the order played, ignores the margin "
                  "of a win and splits a team's result between its two partners, so an agent "
                  "carried by a strong partner can rank higher there.", ""]
    elif cfg.ruleset != "standard" and any(isinstance(spec, dict) and "partners" in spec
                                           for spec in cfg.agents.values()):
        lines += ["No OpenSkill ratings: they rate partnerships of two (the standard game's "
                  "teams); in six-player Bradley-Terry rates every agent, partnerships "
                  "included.", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def _plot(path: Path, ratings: dict, cfg: TournamentConfig) -> None:
    import matplotlib  # matplotlib: only to draw the plot

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # (after choosing the Agg backend)

    names = sorted(ratings, key=lambda n: ratings[n][0])
    r = np.array([ratings[n][0] for n in names])
    lo = np.array([ratings[n][1] for n in names])
    hi = np.array([ratings[n][2] for n in names])
    fig, ax = plt.subplots(figsize=(6, 0.5 * len(names) + 1.5))
    ax.errorbar(r, np.arange(len(names)), xerr=[r - lo, hi - r], fmt="o", capsize=4)
    ax.set_yticks(np.arange(len(names)), names)
    ax.axvline(0, color="grey", lw=0.8, ls="--")
    zero = f"{cfg.anchor} = 0" if cfg.anchor is not None else "mean = 0"
    ax.set_xlabel(f"Elo ({zero}), 95% bootstrap CI over deal pairs")
    ax.set_title(f"Ratings: {cfg.format.replace('_', ' ')}, mode {cfg.mode}, "
                 f"{cfg.deals} deal pairs a match")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
