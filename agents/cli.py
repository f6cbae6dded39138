"""The ``texas42`` command: ``replay``, ``bench``, ``solve``, ``match``, ``demo``, ``play``
and ``show``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from tqdm import tqdm

from texas42_env.records import RecordError, json_lines, parse_record, replay, write_records
from texas42_env.rules import ConfigError, RulesConfig

from agents import bench
from agents.arena.duplicate import play_duplicate, summarize
from agents.base import make_agent, parse_spec
from agents.bidding.bidnet import NumpyBidNet
from agents.ui.demo import demo
from agents.ui.play import TerminalGame, seat_bots
from agents.ui.show import show_text


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
    except BrokenPipeError:  # the reader went away (texas42 replay ... | head)
        sys.stderr.close()
        return 0
    except OSError as e:
        print(f"texas42 replay: {name}: {e}", file=sys.stderr)
        return 2
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:

    kinds = args.kinds.split(",")
    unknown = set(kinds) - set(BENCH_KINDS)
    if unknown:
        print(f"texas42 bench: unknown kinds {sorted(unknown)}; allowed: "
              f"{', '.join(BENCH_KINDS)}", file=sys.stderr)
        return 2
    if "bidding" in kinds and args.bidnet:  # refuse a bad checkpoint before any timing

        try:
            NumpyBidNet(args.bidnet)
        except ValueError as e:
            print(f"texas42 bench: {e}", file=sys.stderr)
            return 2
    plan = []
    for kind in kinds:
        if kind in ("worlds", "solver", "pimc", "train", "bidding"):
            plan.append((kind, None))
            continue
        default = bench.BATCHES if kind == "core" else bench.ENV_BATCHES
        batches = [int(b) for b in args.batches.split(",")] if args.batches else default
        plan += [(kind, b) for b in batches]
    rows = []
    if not args.json:
        print(f"texas42 bench: ruleset {args.ruleset}, one process, {bench.cores()} cores on "
              f"this machine")
        if {"core", "env"} & set(kinds):
            print("random legal play of whole hands with bidding:")
            print(f"{'kind':>6} {'batch':>7} {'decisions/s':>14} {'hands/s':>12}")
    for kind, b in plan:
        if kind == "worlds":

            row = bench.bench_worlds(seconds=args.seconds)
        elif kind in ("solver", "pimc", "train", "bidding"):
            row = bench.bench_agent(kind, seed=args.seed, solver_n=args.solver_n,
                                    pimc_n=args.pimc_n, bidnet=args.bidnet)
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


BENCH_KINDS = ("core", "env", "worlds", "solver", "pimc", "train", "bidding")


def _cmd_solve(args: argparse.Namespace) -> int:
    from agents.search.solver import solve_records  # numba: compiled when first used

    try:
        stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8",
                                                         errors="replace")
    except OSError as e:
        print(f"texas42 solve: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        with stream:
            for result in solve_records(stream):
                print(json.dumps(result), flush=True)
    except BrokenPipeError:
        sys.stderr.close()
    return 0


def _cmd_match(args: argparse.Namespace) -> int:

    try:
        rules = RulesConfig.from_options("standard", json.loads(args.rules))
        sides = [make_agent(parse_spec(a)) for a in (args.a, args.b)]
    except (ValueError, ConfigError) as e:  # a checkpoint that does not load is a ValueError
        print(f"texas42 match: {e}", file=sys.stderr)
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
    if args.records:
        write_records(args.records, records)
    m, lo, hi = s["marks_per_hand"]
    print(f"{sides[0].name} vs {sides[1].name}: {args.deals} deal pairs ({args.mode}), "
          f"seed {args.seed}")
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
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:

    demo(hands=args.hands, seed=args.seed, out=args.out)
    return 0


def _cmd_play(args: argparse.Namespace) -> int:

    try:
        if args.hands is not None and args.hands < 1:
            raise ValueError(f"--hands must be at least 1, got {args.hands}")
        rules = RulesConfig.from_options(args.ruleset, json.loads(args.rules))
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
    except (ValueError, ConfigError) as e:  # bad options, JSON, checkpoints that do not load
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="texas42", description="Texas 42 research toolkit")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("replay", help="replay game records (JSON Lines) and judge them")
    p.add_argument("file", help="a file of records, or - for standard input")
    p.set_defaults(func=_cmd_replay)

    p = sub.add_parser("bench", help="measure the core's speed")
    p.add_argument("--ruleset", default="standard")
    p.add_argument("--kinds", default="core,env,worlds",
                   help="what to measure, comma-separated: core, env, worlds, and the "
                   "agents' solver, pimc, train")
    p.add_argument("--batches", default="", help="comma-separated batch sizes "
                   "(default: core 1,64,1024,4096,8192; env 1,4096)")
    p.add_argument("--seconds", type=float, default=1.0, help="time per batch size")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--solver-n", type=int, default=200, help="deals for kind solver")
    p.add_argument("--pimc-n", type=int, default=32, help="positions for kind pimc")
    p.add_argument("--bidnet", default=None,
                   help="bid-net checkpoint for kind bidding (default: an untrained net)")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("solve", help="exact values of every move of records stopped in play")
    p.add_argument("file", help="a file of records, or - for standard input")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("match", help="a duplicate match between two agents")
    p.add_argument("a", help="side A: an agent name, or NAME:KEY=VALUE,... "
                   "(e.g. neural:path=runs/train/X, pimc:n_worlds=16)")
    p.add_argument("b", help="side B, the same way")
    p.add_argument("--deals", type=int, default=1000, help="deal pairs (each played twice)")
    p.add_argument("--mode", choices=("hands", "games"), default="hands")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--chunk", type=int, default=1024, help="deal pairs stepped at once")
    p.add_argument("--rules", default="{}", help="rules.md options as JSON")
    p.add_argument("--records", default=None, help="write every hand's record to this file")
    p.add_argument("--json", action="store_true", help="also print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_match)

    p = sub.add_parser("demo", help="play a few random hands and show them")
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="also write the game records to this file")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("play", help="play a game in the terminal against bots")
    p.add_argument("--ruleset", choices=("standard", "six-player"), default="standard")
    p.add_argument("--rules", default="{}", help="rules.md options as JSON, e.g. "
                   '\'{"target": 3, "nello": false}\'')
    p.add_argument("--seed", type=int, default=0, help="the deals and the bots' own draws")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    p.add_argument("--partner", default=None, help="your partner(s): NAME or "
                   "NAME:KEY=VALUE,... (default heuristic; six-player random)")
    p.add_argument("--opponents", default=None, help="the other team, the same way")
    p.add_argument("--bot", action="append", default=[], metavar="SEAT=AGENT",
                   help="the agent at one seat (repeatable; over --partner/--opponents)")
    p.add_argument("--hands", type=int, default=None, help="stop after this many hands")
    p.add_argument("--reveal", action="store_true", help="show every hand after each hand")
    p.add_argument("--out", default=None,
                   help="append the records (JSON Lines) to this file as each hand ends")
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("show", help="tell game records hand by hand, trick by trick")
    p.add_argument("file", help="a record, a file of records (JSON Lines), or - for stdin")
    p.add_argument("--analyse", "--analyze", action="store_true",
                   help="judge each play with the exact solver (points lost to perfect play)")
    p.set_defaults(func=_cmd_show)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
