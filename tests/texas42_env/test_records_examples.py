"""The worked records of the spec replay exactly as the spec says."""

import json

import pytest

from texas42_env.records import parse_record, replay

from helpers import DATA, ROOT

SPEC = ROOT.parent / "shared" / "spec" / "examples.jsonl"
LOCAL = DATA / "spec_examples.jsonl"


def _examples():
    path = SPEC if SPEC.exists() else LOCAL
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


EXAMPLES = _examples()


def _canonical(result):
    """Exchange choices may come in any order; everything else is exact."""
    if result.get("phase") == "exchange":
        result = dict(result, legal=sorted(result["legal"], key=lambda x: (x["take"], x["discard"])))
    return result


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["title"] for e in EXAMPLES])
def test_spec_example_replays_exactly(example):
    got = replay(parse_record(example["record"]))
    want = example["replay"]
    if not want["ok"]:
        assert got["ok"] is False
        got_err = {k: v for k, v in got["error"].items() if k != "reason"}
        want_err = {k: v for k, v in want["error"].items() if k != "reason"}
        assert got_err == want_err
        assert got["error"]["reason"]
    else:
        assert _canonical(got) == _canonical(want)
