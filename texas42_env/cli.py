"""The ``texas42`` command: ``replay``, ``bench`` and ``demo``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence


def _cmd_replay(args: argparse.Namespace) -> int:
    from .records import RecordError, parse_record, replay

    try:
        stream = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
    except OSError as e:
        print(f"texas42 replay: cannot read {args.file}: {e.strerror}", file=sys.stderr)
        return 2
    name = "<stdin>" if args.file == "-" else args.file
    with stream:
        try:
            for lineno, line in enumerate(stream, start=1):
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    print(f"texas42 replay: {name}: line {lineno}: field 'record': not JSON "
                          f"({e.msg} at column {e.colno})", file=sys.stderr)
                    return 2
                try:
                    result = replay(parse_record(obj))
                except RecordError as e:
                    print(f"texas42 replay: {name}: line {lineno}: field {e.field!r}: {e.message}",
                          file=sys.stderr)
                    return 2
                print(json.dumps(result), flush=True)
        except UnicodeDecodeError as e:
            print(f"texas42 replay: {name}: not UTF-8 text: {e}", file=sys.stderr)
            return 2
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import BATCHES, bench_core, cores

    batches = [int(b) for b in args.batches.split(",")] if args.batches else list(BATCHES)
    rows = []
    if not args.json:
        print(f"texas42 bench: core, ruleset {args.ruleset}, random legal play of whole hands "
              f"with bidding, one process, {cores()} cores on this machine")
        print(f"{'batch':>7} {'decisions/s':>14} {'hands/s':>12}")
    for b in batches:
        row = bench_core(args.ruleset, b, seconds=args.seconds, seed=args.seed)
        rows.append(row)
        if not args.json:
            print(f"{b:>7} {row['decisions_per_s']:>14,.0f} {row['hands_per_s']:>12,.0f}",
                  flush=True)
    if args.json:
        print(json.dumps(rows))
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
    p.add_argument("--batches", default="", help="comma-separated batch sizes "
                   "(default 1,64,1024,4096,8192)")
    p.add_argument("--seconds", type=float, default=1.0, help="time per batch size")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    p.set_defaults(func=_cmd_bench)

    p = sub.add_parser("demo", help="play a few random hands and show them")
    p.add_argument("--hands", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None, help="also write the game records to this file")
    p.set_defaults(func=_cmd_demo)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
