"""The ``texas42`` command: ``replay``, ``bench``, ``solve``, ``match``, ``demo``, ``play``,
``show`` and ``serve``.

Exit codes a script can trust: 0 done; 1 ``solve`` ran but a line was an error; 2 bad input,
before any work (one line on stderr naming the option, the value and what is allowed, as
argparse does), a record ``replay`` or ``show`` cannot read, or a file that cannot be read or
written.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Callable, Sequence

from tqdm import tqdm

from texas42_env.core import Game
from texas42_env.records import (RecordError, json_lines, parse_record, replay, short_message,
                                  shown, write_records)
from texas42_env.rules import RULESETS, ConfigError, RulesConfig

from agents import bench
from agents.arena.duplicate import play_duplicate, ruleset_fault, summarize
from agents.base import REGISTRY, make_agent, parse_spec
from agents.bidding.bidnet import NumpyBidNet
from agents.ui.demo import demo
from agents.ui.play import TerminalGame, seat_bots
from agents.ui.show import show_text


class _Parser(argparse.ArgumentParser):
    """argparse, its refusals one line (no usage block): ``texas42 VERB: argument --X: ...``."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _whole(low: int):
    """An argparse type: a whole number of at least ``low``."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            raise argparse.ArgumentTypeError(
                f"must be a whole number of at least {low}, got {shown(text)}")
        return value
    return whole


def _port(text: str) -> int:
    """An argparse type: a TCP port, 1..65535."""
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port 1..65535, got {shown(text)}")
    return int(text)


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got "
                                         f"{shown(text)}")
    return value


def _counts(what: str, example: str) -> Callable[[str], list[int]]:
    """An argparse type: ``what`` (e.g. "batch sizes"), whole numbers of at least 1 separated
    by commas."""

    def parse(text: str) -> list[int]:
        try:
            counts = [int(c) for c in text.split(",")]
        except ValueError:
            counts = []
        if not counts or min(counts) < 1:
            raise argparse.ArgumentTypeError(f"must be {what} of at least 1 separated by "
                                             f"commas (e.g. {example}), got {shown(text)}")
        return counts

    return parse


_batches = _counts("batch sizes", "1,4096")
_workers = _counts("worker counts", "1,2")


def _rules(text: str) -> dict:
    """An argparse type: a JSON object of rules.md options (checked by the command)."""
    example = "'{\"target\": 3}'"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise argparse.ArgumentTypeError(
            f"must be a JSON object of rules.md options (e.g. {example}), got {shown(text)}: "
            f"not JSON ({e.msg} at column {e.colno})") from None
    except (ValueError, RecursionError):  # huge numbers, deep nesting
        value = None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            f"must be a JSON object of rules.md options (e.g. {example}), got {shown(text)}")
    return value


def _unwritable(path: str) -> str | None:
    """Why ``path`` cannot be written (appended to, or created), or None; touches nothing."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(path):
        return f"cannot write {path!r}: it is a folder"
    if os.path.exists(path):
        return None if os.access(path, os.W_OK) else f"cannot write {path!r}: not writable"
    if not os.path.isdir(folder):
        return f"cannot write {path!r}: its folder {folder!r} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write {path!r}: its folder {folder!r} is not writable"
    return None


def _no_records(verb: str, name: str) -> int:
    """One line for a records file with nothing in it (exit status 2)."""
    print(f"texas42 {verb}: {name}: no records (the file is empty or holds only blank lines)",
          file=sys.stderr)
    return 2


def _refuse(verb: str, option: str, message: str) -> int:
    """One line for a bad option value found by the command itself (as argparse words it)."""
    print(f"texas42 {verb}: argument {option}: {message}", file=sys.stderr)
    return 2


def _cmd_replay(args: argparse.Namespace) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    except OSError as e:
        print(f"texas42 replay: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2

    def fail(lineno: int, field: str, message: str) -> int:
        print(f"texas42 replay: {name}: line {lineno}: field {field!r}: {message}",
              file=sys.stderr)
        return 2

    seen = 0
    try:
        with stream:
            for lineno, obj, error in json_lines(stream):
                if error is not None:
                    return fail(lineno, error.field, error.message)
                try:
                    result = replay(parse_record(obj))
                except RecordError as e:
                    return fail(lineno, e.field, e.message)
                print(json.dumps(result), flush=True)
                seen += 1
    except BrokenPipeError:  # the reader went away (texas42 replay ... | head)
        sys.stderr.close()
        return 0
    except OSError as e:
        print(f"texas42 replay: {name}: {e}", file=sys.stderr)
        return 2
    return 0 if seen else _no_records("replay", name)


def _cmd_bench(args: argparse.Namespace) -> int:
    kinds = (args.kinds or DEFAULT_KINDS.get(args.ruleset, "core,env")).split(",")
    unknown = set(kinds) - set(BENCH_KINDS)
    if unknown:
        return _refuse("bench", "--kinds", f"unknown kinds {shown(sorted(unknown))}; allowed: "
                       f"{', '.join(BENCH_KINDS)}")
    standard_only = [k for k in kinds if k in ("worlds", "bidding", "train", "tournament")]
    if args.ruleset != "standard" and standard_only:
        return _refuse("bench", "--kinds", f"{', '.join(standard_only)} measure the standard "
                       f"game only; for {args.ruleset}: core, env, solver, pimc, shipped")
    if args.workers and "train" not in kinds:
        return _refuse("bench", "--workers", "counts the actors of kind train: add train to "
                       "--kinds")
    if args.staleness and not args.workers:
        return _refuse("bench", "--staleness", "applies to kind train with --workers: add "
                       "--workers 1,2")
    if "bidding" in kinds and args.bidnet:  # refuse a bad checkpoint before any timing

        try:
            NumpyBidNet(args.bidnet)
        except ValueError as e:
            print(f"texas42 bench: {e}", file=sys.stderr)
            return 2
    plan = []
    for kind in kinds:
        if kind in ("worlds",) + bench.AGENT_KINDS:
            plan.append((kind, None))
            continue
        default = bench.BATCHES if kind == "core" else bench.ENV_BATCHES
        plan += [(kind, b) for b in (args.batches or default)]
    rows = []
    if not args.json:
        print(f"texas42 bench: ruleset {args.ruleset}, one process unless a row says otherwise, "
              f"{bench.cores()} cores on this machine")
        if {"core", "env"} & set(kinds):
            print("random legal play of whole hands with bidding:")
            print(f"{'kind':>6} {'batch':>7} {'decisions/s':>14} {'hands/s':>12}")
    for kind, b in plan:
        if kind == "worlds":

            row = bench.bench_worlds(seconds=args.seconds)
        elif kind == "train" and args.workers:
            for row in bench.bench_train_workers(args.workers, seed=args.seed,
                                                 precision=args.precision,
                                                 staleness=args.staleness):
                rows.append(row)
                if not args.json:
                    print(bench.train_workers_row(row), flush=True)
            continue
        elif kind in bench.AGENT_KINDS:
            row = bench.bench_agent(kind, seed=args.seed, solver_n=args.solver_n,
                                    pimc_n=args.pimc_n, bidnet=args.bidnet,
                                    ruleset=args.ruleset, precision=args.precision)
            rows.append(row)
            if not args.json:
                print(bench.agent_row(row), flush=True)
            continue
        elif kind == "core":
            row = bench.bench_core(args.ruleset, b, seconds=args.seconds, seed=args.seed)
        else:
            row = bench.bench_env(args.ruleset, b, seconds=args.seconds, seed=args.seed)
        rows.append(row)
        if not args.json:
            if kind == "worlds":
                print(f"{kind:>6} {row['batch']:>7} {row['worlds_per_s']:>14,.0f} worlds/s "
                      f"({row['ruleset']}, {row.get('position', 'mid-hand')})", flush=True)
            else:
                print(f"{kind:>6} {b:>7} {row['decisions_per_s']:>14,.0f} "
                      f"{row['hands_per_s']:>12,.0f}", flush=True)
    if args.json:
        print(json.dumps(rows))
    return 0


DEFAULT_KINDS = {"standard": "core,env,worlds"}  # --kinds left out; other rulesets: core,env
BENCH_KINDS = ("core", "env", "worlds", "solver", "pimc", "train", "bidding", "tournament",
               "shipped")


def _cmd_solve(args: argparse.Namespace) -> int:
    from agents.search.solver import solve_records  # numba: compiled when first used

    try:
        stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8",
                                                         errors="replace")
    except OSError as e:
        print(f"texas42 solve: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    errors = seen = 0
    try:
        with stream:
            for result in solve_records(stream):
                if "error" in result:
                    errors += 1
                    result = {"error": short_message(result["error"])}
                print(json.dumps(result), flush=True)
                seen += 1
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    if not seen:
        return _no_records("solve", "<stdin>" if args.file == "-" else args.file)
    return 1 if errors else 0


def _cmd_match(args: argparse.Namespace) -> int:
    if args.records and (why := _unwritable(args.records)):
        return _refuse("match", "--records", why)
    try:
        rules = RulesConfig.from_options(args.ruleset, args.rules)
    except ConfigError as e:
        return _refuse("match", "--rules", short_message(str(e)))
    try:
        sides = [make_agent(a) for a in (args.a, args.b)]
    except (ValueError, ConfigError) as e:  # a checkpoint that does not load is a ValueError
        print(f"texas42 match: {e}", file=sys.stderr)
        return 2
    for side, agent in zip("AB", sides):  # before the progress bar: one line, nothing played
        if (why := ruleset_fault(agent, args.ruleset)) is not None:
            players = sorted(n for n, f in REGISTRY.items() if ruleset_fault(f, args.ruleset)
                             is None)
            return _refuse("match", "--ruleset", f"side {side}: {why}; agents for "
                           f"{args.ruleset}: {', '.join(players)}")
    game = Game(rules)
    for side, agent in zip("AB", sides):
        try:
            agent.setup(game)  # e.g. a policy trained for the other ruleset: refused here
        except ValueError as e:
            print(f"texas42 match: side {side}: {e}", file=sys.stderr)
            return 2
    records: list = []
    with tqdm(total=args.deals, desc="match", unit="pair", disable=args.quiet) as bar:
        try:
            stats = play_duplicate(rules, sides[0], sides[1], args.deals, mode=args.mode,
                                   seed=args.seed, chunk=args.chunk, progress=bar.update,
                                   on_records=records.extend if args.records else None)
        except ValueError as e:
            print(f"texas42 match: {e}", file=sys.stderr)
            return 2
    s = summarize(stats, mode=args.mode, seed=args.seed)
    m, lo, hi = s["marks_per_hand"]
    print(f"{sides[0].name} vs {sides[1].name}: {args.deals} deal pairs ({args.mode}), "
          f"seed {args.seed}" + (f", ruleset {args.ruleset}" if args.ruleset != "standard"
                                 else ""))
    print(f"  marks per hand, A - B: {m:+.3f} [{lo:+.3f}, {hi:+.3f}] (95% CI)")
    print(f"  bids made: A {s['a_made_rate'][0]:.3f}, B {s['b_made_rate'][0]:.3f}; "
          f"hands bid: A {s['a_bid_rate'][0]:.3f}, B {s['b_bid_rate'][0]:.3f}")
    if args.mode == "games":
        w, wlo, whi = s["a_win_rate"]
        print(f"  games won by A: {w:.3f} [{wlo:.3f}, {whi:.3f}]")
        g, glo, ghi = s["marks_per_game"]
        print(f"  marks per game, A - B: {g:+.3f} [{glo:+.3f}, {ghi:+.3f}]")
    if args.json:
        print(json.dumps(s))
    if args.records:  # after the summary: a failure to write loses no figures
        try:
            write_records(args.records, records)
        except OSError as e:
            print(f"texas42 match: cannot write the records to {args.records}: "
                  f"{e.strerror or e} (the summary above stands)", file=sys.stderr)
            return 2
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    if args.out and (why := _unwritable(args.out)):
        return _refuse("demo", "--out", why)
    demo(hands=args.hands, seed=args.seed, out=args.out)
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    if args.out and (why := _unwritable(args.out)):
        return _refuse("play", "--out", why)
    try:
        rules = RulesConfig.from_options(args.ruleset, args.rules)
    except ConfigError as e:
        return _refuse("play", "--rules", short_message(str(e)))
    try:
        per_seat = {}
        for item in args.bot:
            seat, eq, spec = item.partition("=")
            if not eq or not seat.strip().isdigit() or not spec:
                raise ValueError(f"--bot {item!r}: expected SEAT=AGENT (e.g. 1=pimc)")
            per_seat[int(seat)] = spec
        given = {s: parse_spec(x) for s, x in per_seat.items()}
        partner = parse_spec(args.partner) if args.partner else None
        opponents = parse_spec(args.opponents) if args.opponents else None
        specs = seat_bots(rules, args.seat, partner, opponents, given)
        table = TerminalGame(rules, specs, seat=args.seat, seed=args.seed, reveal=args.reveal)
    except (ValueError, ConfigError) as e:  # bad seats, agents, checkpoints that do not load
        print(f"texas42 play: {e}", file=sys.stderr)
        return 2
    try:
        table.run(hands=args.hands, out=args.out)
    except BrokenPipeError:  # the reader went away
        sys.stderr.close()
    except OSError as e:
        print(f"texas42 play: cannot write {args.out}: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0


def _cmd_show(args: argparse.Namespace) -> int:
    name = "<stdin>" if args.file == "-" else args.file
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8", errors="replace") as f:
                text = f.read()
    except OSError as e:
        print(f"texas42 show: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    if not text.strip():
        return _no_records("show", name)
    try:
        for block in show_text(text, analyse=args.analyse):
            print(block, end="\n\n", flush=True)
    except RecordError as e:
        print(f"texas42 show: {name}: line {e.line}: field {e.field!r}: {e.message}",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        sys.stderr.close()
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    if args.records is not None and not os.path.isdir(args.records):
        return _refuse("serve", "--records", f"{args.records!r} is not a folder")
    try:
        import uvicorn  # the web extra: texas42[web]
        from agents.ui.web.server import LOOPBACK, create_app  # FastAPI, the web extra
    except ImportError as e:
        print(f"texas42 serve: the web app needs the web extra ({e.name} is missing): "
              f"pip install 'texas42[web]'", file=sys.stderr)
        return 2
    local = args.host in LOOPBACK
    app = create_app(records=args.records, max_games=args.max_games, ttl=args.expire * 60,
                     allowed_hosts=list(LOOPBACK) if local else None)
    if not local:
        print(f"texas42 serve: listening on {args.host}: anyone who can reach this machine "
              f"can play and read the records folder", file=sys.stderr)
    print(f"texas42 serve: http://{args.host}:{args.port}/ (play), /watch (records), "
          f"/openapi.json (the API's schema); Ctrl-C stops", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="texas42", description="Texas 42 research toolkit",
                     epilog="exit codes: 0 done; 1 solve: a line was an error; 2 bad input "
                     "(one line on stderr), a record that cannot be read, or a file that "
                     "cannot be read or written")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay game records (JSON Lines) and judge them",
                       description="Replay game records and print one JSON result each. "
                       "Exit 0 when every line was a record (an illegal action is a result, "
                       "not a failure), 2 at the first line that is not a record (naming its "
                       "line and field) or when the file cannot be read.")
    p.add_argument("file", help="a file of records, or - for standard input")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("bench", help="measure the speed of the core, the envs, the agents, "
                       "training and tournaments")
    p.add_argument("--ruleset", choices=RULESETS, default="standard",
                   help=f"the rules of kinds core and env: {', '.join(RULESETS)} "
                   "(default standard)")
    p.add_argument("--kinds", default=None,
                   help=f"what to measure, comma-separated, from: {', '.join(BENCH_KINDS)} "
                   "(default core,env,worlds; six-player: core,env)")
    p.add_argument("--batches", type=_batches, default=None, help="comma-separated batch "
                   "sizes, each at least 1 (default: core 1,64,1024,4096,8192; env 1,4096)")
    p.add_argument("--seconds", type=_seconds, default=1.0,
                   help="time per batch size, above 0 (default 1)")
    p.add_argument("--seed", type=_whole(0), default=0, help="0 or more (default 0)")
    p.add_argument("--solver-n", type=_whole(1), default=200, help="deals for kind solver")
    p.add_argument("--pimc-n", type=_whole(1), default=32, help="positions for kind pimc")
    p.add_argument("--bidnet", default=None,
                   help="bid-net checkpoint for kind bidding (default: an untrained net)")
    p.add_argument("--workers", type=_workers, default=None,
                   help="kind train: comma-separated worker counts, each a row (1: one "
                   "process; N: N actor processes and a learner of N threads), timed in one "
                   "run with where the time goes (default: one process, then two training "
                   "processes at once)")
    p.add_argument("--precision", choices=("fp32", "bf16", "auto"), default="fp32",
                   help="kind train: the learner's arithmetic (default fp32, as training; "
                   "auto: bf16 where the CPU computes it natively)")
    p.add_argument("--staleness", type=int, choices=(0, 1), default=0,
                   help="kind train with --workers: algorithm.staleness (default 0: the actors "
                   "wait while the learner trains; 1: they play the next update meanwhile)")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("solve", help="exact values of every move of records stopped in play",
                       description="Exact values of every move of records stopped in the "
                       "play phase, one JSON line per record ({\"error\": ...} for a line "
                       "that cannot be solved). Exit 0 when every line was solved, 1 when any "
                       "line was an error, 2 when the file cannot be read.")
    p.add_argument("file", help="a file of records, or - for standard input")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("match", help="a duplicate match between two agents")
    p.add_argument("a", help="side A: an agent name, or NAME:KEY=VALUE,... "
                   "(e.g. neural:path=runs/train/X, pimc:n_worlds=16)")
    p.add_argument("b", help="side B, the same way")
    p.add_argument("--deals", type=_whole(1), default=1000,
                   help="deal pairs (each played twice), at least 1")
    p.add_argument("--mode", choices=("hands", "games"), default="hands")
    p.add_argument("--ruleset", choices=RULESETS, default="standard",
                   help=f"the game: {', '.join(RULESETS)} (default standard; six-player: each "
                   "side holds seats 0/2/4, then 1/3/5 of the same deals)")
    p.add_argument("--seed", type=_whole(0), default=0, help="0 or more (default 0)")
    p.add_argument("--chunk", type=_whole(1), default=1024,
                   help="deal pairs stepped at once, at least 1")
    p.add_argument("--rules", type=_rules, default="{}",
                   help="rules.md options as a JSON object")
    p.add_argument("--records", default=None, help="append every hand's record to this file "
                   "(its folder must exist; written after the summary is printed)")
    p.add_argument("--json", action="store_true", help="also print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_match)

    p = sub.add_parser("demo", help="play a few random hands and show them")
    p.add_argument("--hands", type=_whole(1), default=3, help="at least 1 (default 3)")
    p.add_argument("--seed", type=_whole(0), default=0, help="0 or more (default 0)")
    p.add_argument("--out", default=None, help="also write the game records to this file")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("play", help="play a game in the terminal against bots")
    p.add_argument("--ruleset", choices=RULESETS, default="standard")
    p.add_argument("--rules", type=_rules, default="{}", help="rules.md options as a JSON "
                   'object, e.g. \'{"target": 3, "nello": false}\'')
    p.add_argument("--seed", type=_whole(0), default=0,
                   help="the deals and the bots' own draws, 0 or more")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--partner", default=None, help="your partner(s): NAME or "
                   "NAME:KEY=VALUE,... (default champion, the shipped agent)")
    p.add_argument("--opponents", default=None, help="the other team, the same way")
    p.add_argument("--bot", action="append", default=[], metavar="SEAT=AGENT",
                   help="the agent at one seat (repeatable; over --partner/--opponents)")
    p.add_argument("--hands", type=_whole(1), default=None,
                   help="stop after this many hands (at least 1)")
    p.add_argument("--reveal", action="store_true", help="show every hand after each hand")
    p.add_argument("--out", default=None,
                   help="append the records (JSON Lines) to this file as each hand ends")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("show", help="tell game records hand by hand, trick by trick")
    p.add_argument("file", help="a record, a file of records (JSON Lines), or - for stdin")
    p.add_argument("--analyse", "--analyze", action="store_true",
                   help="judge each play with the exact solver (points lost to perfect play)")
    p.set_defaults(func=_cmd_show)

    p = sub.add_parser("serve", help="the web app: play and watch in the browser, and its "
                       "JSON API (needs texas42[web])")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on "
                   "(default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_port, default=8042, help="default 8042")
    p.add_argument("--records", default=None, metavar="DIR", help="a folder of records "
                   "files the viewer may open (tournament records/, play --out files)")
    p.add_argument("--max-games", type=_whole(1), default=32,
                   help="games kept in memory at once (default 32)")
    p.add_argument("--expire", type=_whole(1), default=120,
                   help="minutes after its last use a game is forgotten (default 120)")
    p.add_argument("--log-level", choices=("critical", "error", "warning", "info", "debug"),
                   default="info", help="the server's log (default info)")
    p.set_defaults(func=_cmd_serve)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
