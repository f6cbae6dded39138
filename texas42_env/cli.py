"""The ``texas42`` command: ``replay``, ``bench`` and ``demo``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence


def _cmd_replay(args: argparse.Namespace) -> int:
    from .records import RecordError, parse_record, replay

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
            for lineno, raw in enumerate(stream, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    return fail(lineno, "record", f"not UTF-8 text ({e.reason} at byte {e.start})")
                if not line.strip():
                    continue
                try:
                    # an integer too long for Python's int() stays a string: only a field
                    # that needs a number will object to it
                    obj = json.loads(line, parse_int=lambda x: int(x) if len(x) < 4000 else x)
                except json.JSONDecodeError as e:
                    return fail(lineno, "record", f"not JSON ({e.msg} at column {e.colno})")
                except (ValueError, RecursionError) as e:  # huge numbers, deep nesting
                    return fail(lineno, "record", f"not JSON this reader accepts ({e})")
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
    from . import bench

    kinds = args.kinds.split(",")
    unknown = set(kinds) - {"core", "env", "worlds"}
    if unknown:
        print(f"texas42 bench: unknown kinds {sorted(unknown)}; allowed: core, env, worlds",
              file=sys.stderr)
        return 2
    plan = []
    for kind in kinds:
        if kind == "worlds":
            plan.append((kind, None))
            continue
        default = bench.BATCHES if kind == "core" else bench.ENV_BATCHES
        batches = [int(b) for b in args.batches.split(",")] if args.batches else default
        plan += [(kind, b) for b in batches]
    rows = []
    if not args.json:
        print(f"texas42 bench: ruleset {args.ruleset}, random legal play of whole hands with "
              f"bidding, one process, {bench.cores()} cores on this machine")
        print(f"{'kind':>6} {'batch':>7} {'decisions/s':>14} {'hands/s':>12}")
    for kind, b in plan:
        if kind == "worlds":
            from .worlds import bench_worlds

            row = bench_worlds(seconds=args.seconds)
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


def _cmd_solve(args: argparse.Namespace) -> int:
    try:
        from agents.solver import solve_records
    except ImportError as e:
        print(f"texas42 solve: the solver is not installed ({e})", file=sys.stderr)
        return 2
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


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import demo

    demo(hands=args.hands, seed=args.seed, out=args.out)
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
                   help="what to measure: core, env, worlds (comma-separated)")
    p.add_argument("--batches", default="", help="comma-separated batch sizes "
                   "(default: core 1,64,1024,4096,8192; env 1,4096)")
    p.add_argument("--seconds", type=float, default=1.0, help="time per batch size")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("solve", help="exact values of every move of records stopped in play")
    p.add_argument("file", help="a file of records, or - for standard input")
    p.set_defaults(func=_cmd_solve)

    p = sub.add_parser("demo", help="play a few random hands and show them")
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="also write the game records to this file")
    p.set_defaults(func=_cmd_demo)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
