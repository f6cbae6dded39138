"""``agents.ui.web.watch`` called directly: ``RecordsDir`` lists and opens only record files
inside its folder (none under a dot-name) and refuses with ``WebError`` a path that leaves
it or cannot be read; a file's index lists its hands from the records' own fields, up to
the first line that is not a record; ``replay_frames`` gives a frame before the first
action and one after each step of the replay (an exchange as its takes and discards),
ending where ``records.replay`` ends (its points and marks, or its error), and with
``analyse`` the solver's verdict on the plays it judges. Records: the spec's worked
examples and hands of real heuristic games of both rulesets."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from texas42_env.core import HAND_OVER, Game
from texas42_env.observation import make_encoder
from texas42_env.records import (parse_record, records_from_batch, replay, replay_steps,
                                 start_state)
from texas42_env.rules import RulesConfig

from agents import make_agent
from agents.driver import act_rows
from agents.ui.web import watch
from agents.ui.web.games import WebError
from agents.ui.web.watch import (RecordsDir, hand_of, index, parse_records, records_of,
                                 replay_frames)

from helpers import DATA

TABLES = 6


def played_records(ruleset: str, seed: int) -> list[dict]:
    """The records of one hand at each of ``TABLES`` tables, heuristic play to the end."""
    game = Game(RulesConfig.make(ruleset))
    agent = make_agent("heuristic").setup(game)
    enc = make_encoder(game)
    st = game.reset(TABLES, seed=seed)
    while (st.phase < HAND_OVER).any():
        rows = np.flatnonzero(st.phase < HAND_OVER)
        a = act_rows(game, st, agent, rows, enc)
        sub = st.take(rows)
        game.step(sub, a)
        st.put(rows, sub)
    agents = [f"heuristic#{s}" for s in range(game.n_seats)]
    return records_from_batch(game, st, agents=agents, match=f"{ruleset} heuristic")


@pytest.fixture(scope="module")
def games():
    return {"standard": played_records("standard", 3),
            "six-player": played_records("six-player", 3)}


@pytest.fixture(scope="module")
def spec():
    return [json.loads(line) for line in (DATA / "spec_examples.jsonl").read_text().splitlines()
            if line.strip()]


def jsonl(records, blank_after_first=False) -> str:
    lines = [json.dumps(r) for r in records]
    if blank_after_first:
        lines.insert(1, "")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def served(tmp_path_factory, games, spec):
    """A records folder with record files, and beside them what it must not serve."""
    top = tmp_path_factory.mktemp("served")
    d = top / "records"
    d.mkdir()
    (d / "standard.jsonl").write_text(jsonl(games["standard"], blank_after_first=True))
    (d / "six.jsonl").write_text(jsonl(games["six-player"]))
    (d / "one.json").write_text(json.dumps(games["standard"][0], indent=2))
    (d / "spec").mkdir()
    (d / "spec" / "examples.jsonl").write_text(jsonl(e["record"] for e in spec))
    (d / "notes.txt").write_text("not records\n")
    (d / ".hidden.jsonl").write_text(jsonl(games["standard"]))
    (d / ".dot").mkdir()
    (d / ".dot" / "inside.jsonl").write_text(jsonl(games["standard"]))
    (d / "dir.jsonl").mkdir()
    (top / "outside.jsonl").write_text(jsonl(games["standard"]))
    os.symlink(top / "outside.jsonl", d / "link-out.jsonl")
    os.symlink("standard.jsonl", d / "link-in.jsonl")
    os.symlink("loop.jsonl", d / "loop.jsonl")  # a link to itself
    return d


def refusal(folder: RecordsDir, rel: str) -> WebError:
    with pytest.raises(WebError) as e:
        folder.path(rel)
    with pytest.raises(WebError) as again:
        folder.read(rel)
    assert (again.value.status, again.value.message) == (e.value.status, e.value.message)
    return e.value


# ----------------------------------------------------------------------------- the folder
def test_the_folder_lists_its_record_files_only(served):
    files, cut = RecordsDir(served).files()
    assert not cut
    assert [f["path"] for f in files] == ["link-in.jsonl", "one.json", "six.jsonl",
                                          "standard.jsonl", "spec/examples.jsonl"]
    sizes = {f["path"]: f["size"] for f in files}
    assert sizes["spec/examples.jsonl"] == (served / "spec" / "examples.jsonl").stat().st_size
    assert sizes["link-in.jsonl"] == sizes["standard.jsonl"]


def test_the_list_is_cut_at_its_limit(served, monkeypatch):
    monkeypatch.setattr(watch, "MAX_LISTED", 2)
    files, cut = RecordsDir(served).files()
    assert cut and [f["path"] for f in files] == ["link-in.jsonl", "one.json"]


def test_a_record_file_inside_the_folder_is_read_whole(served):
    folder = RecordsDir(served)
    for rel in ("standard.jsonl", "spec/examples.jsonl", "one.json", "link-in.jsonl"):
        assert folder.path(rel).is_relative_to(served)
    assert folder.read("spec/examples.jsonl") == (served / "spec" / "examples.jsonl").read_text()
    assert folder.read("link-in.jsonl") == (served / "standard.jsonl").read_text()


def test_a_byte_order_mark_is_dropped(tmp_path, games):
    text = jsonl(games["standard"][:2])
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert RecordsDir(tmp_path).read("bom.jsonl") == text


@pytest.mark.parametrize("rel, words", [
    ("../outside.jsonl", "outside the records folder"),
    ("spec/../../outside.jsonl", "outside the records folder"),
    ("spec/../standard.jsonl", "outside the records folder"),  # no dot segments at all
    ("spec\\..\\..\\outside.jsonl", "outside the records folder"),
    ("standard.jsonl\x00.jsonl", "outside the records folder"),
    ("", "outside the records folder"),
    (".hidden.jsonl", "dot-name"),
    (".dot/inside.jsonl", "dot-name"),
    ("notes.txt", "not a records file"),
    ("spec", "not a records file"),
    ("link-out.jsonl", "leads outside the records folder"),
    ("loop.jsonl", "cannot be read"),
    ("a" * 300 + ".jsonl", "cannot be read"),
])
def test_a_path_that_leaves_the_folder_or_cannot_be_read_is_refused(served, rel, words):
    e = refusal(RecordsDir(served), rel)
    assert e.status == 400 and words in e.message, e.message


def test_an_absolute_path_is_refused_even_to_a_file_inside(served):
    e = refusal(RecordsDir(served), str(served / "standard.jsonl"))
    assert e.status == 400 and "outside the records folder" in e.message


def test_a_missing_file_is_404_and_a_file_over_the_limit_413(served, monkeypatch):
    folder = RecordsDir(served)
    for rel in ("none.jsonl", "spec/none.json", "dir.jsonl"):
        assert refusal(folder, rel).status == 404
    monkeypatch.setattr(watch, "MAX_FILE", (served / "six.jsonl").stat().st_size - 1)
    assert refusal(folder, "six.jsonl").status == 413
    assert folder.read("one.json")  # smaller: still read


def test_a_records_folder_must_be_a_folder(served):
    for bad in (served / "none", served / "six.jsonl"):
        with pytest.raises(ValueError, match="not a folder"):
            RecordsDir(bad)


# ----------------------------------------------------------------------------- the index
def high_bid(raw: dict):
    return next((b for b in reversed(raw.get("bids") or []) if b != "pass"), None)


def test_the_index_lists_a_files_hands_from_the_records_own_fields(served, games):
    folder = RecordsDir(served)
    for rel, records, lines in (("standard.jsonl", games["standard"], [1, 3, 4, 5, 6, 7]),
                                ("six.jsonl", games["six-player"], [1, 2, 3, 4, 5, 6])):
        got = index(parse_records(folder.read(rel)))
        assert got["count"] == len(records) == TABLES and got["error"] is None
        assert [h["line"] for h in got["hands"]] == lines  # the blank line counted
        for n, (hand, raw) in enumerate(zip(got["hands"], records)):
            assert hand == {"n": n, "line": lines[n], "ruleset": raw["ruleset"],
                            "dealer": raw["dealer"], "bid": high_bid(raw),
                            "contract": raw.get("contract"), "plays": len(raw["plays"]),
                            "agents": raw["agents"], "game": raw["game"], "hand": raw["hand"],
                            "match": raw["match"]}
            assert hand["bid"] == replay(parse_record(raw))["bid"]


def test_the_index_of_the_worked_records_lists_the_illegal_ones_as_written(served, spec):
    got = index(parse_records(RecordsDir(served).read("spec/examples.jsonl")))
    assert got["count"] == len(spec) == 12 and got["error"] is None
    for hand, ex in zip(got["hands"], spec):
        raw = ex["record"]
        assert hand["line"] == hand["n"] + 1 and hand["agents"] is None
        assert (hand["ruleset"], hand["dealer"], hand["bid"], hand["contract"], hand["plays"]) \
            == (raw["ruleset"], raw["dealer"], high_bid(raw), raw.get("contract"),
                len(raw["plays"]))
        assert not {"game", "hand", "match"} & set(hand)
    opening = next(h for h, ex in zip(got["hands"], spec) if "at most 2m" in ex["title"])
    assert opening["bid"] == "3m"  # nothing replayed: the illegal bid is the record's


def test_a_single_json_record_is_one_hand(served, games):
    got = index(parse_records(RecordsDir(served).read("one.json")))
    assert got["count"] == 1 and got["hands"][0]["line"] == 1
    assert got["hands"][0]["plays"] == len(games["standard"][0]["plays"])


def test_the_index_stops_at_the_first_line_that_is_not_a_record(games):
    good = [json.dumps(r) for r in games["standard"][:3]]
    text = "\n".join([good[0], "{not json", good[1]])
    got = index(parse_records(text))
    assert got["count"] == 1 and got["error"]["line"] == 2
    assert got["error"]["field"] == "record" and "not JSON" in got["error"]["message"]
    bad = dict(games["standard"][1], dealer=9)
    got = index(parse_records("\n".join([good[0], good[2], json.dumps(bad), good[1]])))
    assert got["count"] == 2 and got["error"]["line"] == 3 and got["error"]["field"] == "dealer"


def test_the_index_gives_pages_of_hands(served, games):
    parsed = parse_records(RecordsDir(served).read("six.jsonl"))
    page = index(parsed, offset=2, limit=3)
    assert page["count"] == TABLES and page["offset"] == 2
    assert [h["n"] for h in page["hands"]] == [2, 3, 4]
    assert [h["dealer"] for h in page["hands"]] == [r["dealer"] for r in games["six-player"][2:5]]
    assert index(parsed, offset=TABLES)["hands"] == []


def test_agents_are_named_only_when_the_record_names_every_seat(games):
    base = games["standard"][0]
    for agents, named in ((["a", "b", "c"], None), ("abcd", None), ([1, 2, 3, None],
                                                                     ["1", "2", "3", "None"]),
                          (["x" * 500, "b", "c", "d"], ["x" * 200, "b", "c", "d"])):
        hand = index(records_of([dict(base, agents=agents)]))["hands"][0]
        assert hand["agents"] == named


def test_a_hand_outside_the_file_is_404(games):
    parsed = records_of(games["standard"])
    assert [line for line, _ in parsed["records"]] == list(range(1, TABLES + 1))
    assert hand_of(parsed, 2).raw == games["standard"][2]
    for n in (-1, TABLES):
        with pytest.raises(WebError) as e:
            hand_of(parsed, n)
        assert e.value.status == 404 and f"0..{TABLES - 1}" in e.value.message
    with pytest.raises(WebError) as e:
        hand_of(records_of([]), 0)
    assert e.value.status == 404 and "no hands" in e.value.message


# ----------------------------------------------------------------------------- replays
def steps_of(record) -> list[str]:
    """The names of the ids the one replay steps, in order."""
    game, st = start_state(record)
    names = []

    def step(s, a):
        names.append(game.actions.name(a))
        game.step(s, np.array([a]))

    replay_steps(record, step, (game, st))
    return names


def count_from_fields(raw: dict) -> int:
    """The steps of a legal record, counted from its fields: each bid, the contract, each
    take and discard of the exchange (and a keep if it took fewer than both), each play."""
    n = len(raw["bids"]) + ("contract" in raw) + len(raw["plays"])
    if "exchange" in raw:
        takes = len(raw["exchange"]["take"])
        n += 2 * takes + (takes < 2)
    return n


def test_a_replay_has_a_frame_before_the_first_action_and_one_after_each_step(games):
    takes = set()
    for raw in games["standard"] + games["six-player"]:
        record = parse_record(raw)
        frames = replay_frames(record)["frames"]
        assert frames[0]["step"] is None and frames[0]["view"]["phase"] == "bid"
        assert frames[0]["view"]["tricks"] == [] and frames[0]["view"]["bids"] == []
        steps = steps_of(record)
        assert len(frames) == 1 + len(steps) == 1 + count_from_fields(raw)
        assert [f["step"]["action"] for f in frames[1:]] == steps
        if "exchange" in raw:
            takes.add(len(raw["exchange"]["take"]))
            ex = [f["step"]["action"] for f in frames[1:] if f["step"]["phase"] == "exchange"]
            assert sorted(ex) == sorted([f"take {t}" for t in raw["exchange"]["take"]]
                                        + [f"discard {t}" for t in raw["exchange"]["discard"]]
                                        + ["keep"] * (len(raw["exchange"]["take"]) < 2))
    assert {2} < takes  # exchanges of both tiles and of fewer, with a keep


def test_each_step_is_the_seat_to_move_in_the_frame_before(games):
    for raw in games["standard"] + games["six-player"]:
        frames = replay_frames(parse_record(raw))["frames"]
        for before, after in zip(frames, frames[1:]):
            step = after["step"]
            assert step["seat"] == before["view"]["to_move"]
            assert step["phase"] == before["view"]["phase"]
            assert all(isinstance(x, str) for x in step["lines"])
            # told as it is made, but an exchange once it is done
            assert step["lines"] or (step["phase"] == "exchange"
                                     and after["view"]["phase"] == "exchange")
        assert frames[-1]["view"]["phase"] == "hand_over"


def test_every_frame_shows_every_hand_and_the_records_own_seed_game_and_hand(games, spec):
    for raw in games["standard"] + games["six-player"]:
        replayed = replay_frames(parse_record(raw))
        assert replayed["agents"] == raw["agents"] and replayed["ruleset"] == raw["ruleset"]
        for f in replayed["frames"]:
            view = f["view"]
            assert all(s["tiles"] is not None and "dealt" in s for s in view["seats"])
            assert [s["agent"] for s in view["seats"]] == raw["agents"]
            assert (view["seed"], view["game"], view["hand"]) == \
                (raw["seed"], raw["game"], raw["hand"])
            if raw["ruleset"] == "six-player":
                assert sorted(view["cat"]["dealt"]) == sorted(raw["cat"])
    for ex in spec:  # no seed, game or hand of its own: none told, not the replay's
        view = replay_frames(parse_record(ex["record"]))["frames"][-1]["view"]
        assert (view["seed"], view["game"], view["hand"]) == (None, None, None)


def test_the_last_frame_is_where_the_replay_ends(games, spec):
    records = games["standard"] + games["six-player"] + [e["record"] for e in spec]
    for raw in records:
        record = parse_record(raw)
        want = replay(record)
        if not want["ok"]:
            continue
        last = replay_frames(record)["frames"][-1]["view"]
        for key in ("points", "made", "bidder", "bid", "contract"):
            assert last[key] == want[key], key
        assert last["hand_score"] == want["score"]
        if record.rules.scoring == "marks":
            assert last["hand_score"] == want["marks"]
        else:  # points scoring: the team that scored takes the hand's mark
            assert want["marks"] == [int(x > 0) for x in last["hand_score"]]
        assert [[p["tile"] for p in t["plays"]] for t in last["tricks"]] == \
            [t["plays"] for t in want["tricks"]]
        assert last["to_move"] == want.get("to_move")


def test_an_illegal_record_gives_the_frames_up_to_its_error_and_the_error(spec):
    illegal = [e for e in spec if not e["replay"]["ok"]]
    assert len(illegal) == 3
    for ex in illegal:
        replayed = replay_frames(parse_record(ex["record"]))
        error = ex["replay"]["error"]
        assert replayed["error"] == error
        frames = replayed["frames"]
        assert len(frames) == 1 + error["index"]  # no exchange before: one frame an action
        last = frames[-1]["view"]
        if error["phase"] == "over":
            assert last["phase"] == "hand_over" and last["to_move"] is None
        else:
            assert last["phase"] == error["phase"] and last["to_move"] == error["seat"]


def six_with_exchange(games) -> dict:
    return next(r for r in games["six-player"]
                if r["exchange"]["take"] and len(r["plays"]) > 6)


def test_an_illegal_play_after_an_exchange_counts_the_exchanges_steps(games):
    raw = six_with_exchange(games)
    takes = len(raw["exchange"]["take"])
    ex_steps = 2 * takes + (takes < 2)
    for name in sorted({t for h in raw["hands"] for t in h}):
        bad = dict(raw, plays=raw["plays"][:3] + [name] + raw["plays"][4:])
        want = replay(parse_record(bad))
        if not want["ok"]:
            break
    else:
        raise AssertionError("no illegal fourth play found")
    replayed = replay_frames(parse_record(bad))
    assert replayed["error"] == want["error"]
    assert want["error"]["index"] == len(raw["bids"]) + 1 + 1 + 3  # the exchange one action
    frames = replayed["frames"]
    assert len(frames) == 1 + len(raw["bids"]) + 1 + ex_steps + 3  # its steps a frame each
    assert sum(len(t["plays"]) for t in frames[-1]["view"]["tricks"]) == 3


def test_an_exchange_that_cannot_be_made_gives_no_frame_of_it(games):
    raw = six_with_exchange(games)
    absent = next(t for t in ("6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0", "6-5")
                  if t not in raw["cat"])
    bad = dict(raw, exchange={"take": [absent], "discard": [raw["exchange"]["discard"][0]]})
    replayed = replay_frames(parse_record(bad))
    error = replayed["error"]
    assert error == replay(parse_record(bad))["error"]
    assert error["index"] == len(raw["bids"]) + 1 and error["phase"] == "exchange"
    frames = replayed["frames"]
    assert len(frames) == 1 + len(raw["bids"]) + 1
    assert frames[-1]["view"]["phase"] == "exchange"
    assert frames[-1]["view"]["exchange"]["swapped"] == 0


# ----------------------------------------------------------------------------- verdicts
def test_analyse_judges_the_plays_and_adds_up_each_teams_losses(games, spec):
    records = games["standard"] + [e["record"] for e in spec
                                   if e["replay"]["ok"] and e["record"]["ruleset"] == "standard"]
    mistakes = 0
    for raw in records:
        record = parse_record(raw)
        plain, judged = replay_frames(record), replay_frames(record, analyse=True)
        assert "analysis" not in plain
        assert not any("verdict" in f["step"] for f in plain["frames"][1:])
        assert [f["view"] for f in judged["frames"]] == [f["view"] for f in plain["frames"]]
        lost, wrong = [0, 0], [0, 0]
        for before, f in zip(judged["frames"], judged["frames"][1:]):
            step = f["step"]
            assert ("verdict" in step) == (step["phase"] == "play")
            if "verdict" not in step:
                continue
            v, action = step["verdict"], step["action"]
            held = before["view"]["seats"][step["seat"]]["tiles"]
            assert set(v["values"]) <= set(held) and set(v["best"]) <= set(held)
            if v["values"]:
                assert action in v["values"]
                assert v["best"] == [t for t, x in v["values"].items()
                                     if x == v["values"][v["best"][0]]]
                assert v["loss"] == abs(v["values"][v["best"][0]] - v["values"][action])
            else:  # the only play: nothing to judge
                assert v["best"] == [action] and v["loss"] == 0
            assert v["mistake"] == (v["loss"] > 0) == (action not in v["best"])
            lost[step["seat"] % 2] += v["loss"]
            wrong[step["seat"] % 2] += v["mistake"]
        analysis = judged["analysis"]
        assert [t["lost"] for t in analysis["teams"]] == lost
        assert [t["mistakes"] for t in analysis["teams"]] == wrong
        contract = judged["frames"][-1]["view"]["contract"]
        assert analysis["unit"] == ("tricks" if contract in ("nello", "sevens") else "points")
        assert analysis["note"] == (None if contract else "no contract was played")
        mistakes += sum(wrong)
    assert mistakes > 0  # the heuristic gives something away somewhere


def test_six_player_plays_are_judged_in_the_last_six_tricks_only(games):
    raw = max(games["six-player"], key=lambda r: len(r["plays"]))
    assert len(raw["plays"]) > 6 * 5
    judged = replay_frames(parse_record(raw), analyse=True)
    assert judged["analysis"]["note"] == "the last 6 tricks' plays are judged"
    n_tricks = RulesConfig.make("six-player").n_tricks
    plays = [(before["view"], f["step"]) for before, f in zip(judged["frames"],
                                                             judged["frames"][1:])
             if f["step"]["phase"] == "play"]
    for view, step in plays:
        trick = sum(t["winner"] is not None for t in view["tricks"])
        assert ("verdict" in step) == (n_tricks - trick <= 6)
    assert any("verdict" in s for _, s in plays) and not all("verdict" in s for _, s in plays)
