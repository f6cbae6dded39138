"""The web app's JSON API over real HTTP (uvicorn in a thread, httpx as the client): games
played to the end, what the person's seat may see, every refusal (bad JSON, unknown ids,
oversized bodies, paths outside the records folder, illegal actions) a 4xx that changes
nothing, the cap and expiry, the records folder, uploads and the viewer's replays."""

from __future__ import annotations

import json
import os
import re
import time

import httpx
import numpy as np
import pytest

from texas42_env.records import parse_record, read_records, replay
from agents.ui.show import show_record
from agents.ui.web.app import MAX_BODY, create_app
from agents.ui.web.games import agent_spec, WebError
from webserver import running

BOTS = {"1": "heuristic", "2": "heuristic", "3": "heuristic"}
TILE = re.compile(r"\b[0-6]-[0-6]\b")


@pytest.fixture(scope="module")
def records_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("records")
    (d / "sub").mkdir()
    (d / "notes.txt").write_text("not records\n")
    (d / ".hidden.jsonl").write_text("")
    return d


@pytest.fixture(scope="module")
def base(records_dir):
    with running(create_app(records=records_dir, max_games=64)) as url:
        yield url


@pytest.fixture(scope="module")
def client(base):
    with httpx.Client(base_url=base, timeout=120) as c:
        yield c


def new_game(client, **body):
    """A game with the heuristic at every other seat unless ``agents`` are given."""
    n = 6 if body.get("ruleset") == "six-player" else 4
    me = body.get("human_seat", 0)
    bots = {str(s): "heuristic" for s in range(n) if s != me}
    r = client.post("/api/games", json={"agents": bots, "seed": 3, **body})
    assert r.status_code == 201, r.text
    return r.json()["id"], r.json()["state"]


def act(client, gid, action):
    return client.post(f"/api/games/{gid}/actions", json={"action": action})


def visible_tiles(state) -> set[str]:
    """The tiles the person may know of: their own, the ones played, their own exchange."""
    me = state["human_seat"]
    seen = set(state["seats"][me]["tiles"] or [])
    seen |= {p["tile"] for t in state["tricks"] for p in t["plays"]}
    x = state.get("exchange") or {}
    seen |= set(x.get("take", [])) | set(x.get("discard", [])) | \
        ({x["pending"]} if x.get("pending") else set())
    seen |= set((state.get("cat") or {}).get("left", []))
    return seen


def play_out(client, gid, state, rng, hands=None, check=None):
    """Play the person's seat by random legal choices until the game ends (or ``hands``
    hands are over); ``check(state)`` on every state seen. Returns the last state."""
    done = 0
    while True:
        if check:
            check(state)
        if state["phase"] == "game_over":
            return state
        if state["phase"] == "hand_over":
            done += 1
            if hands is not None and done >= hands:
                return state
        choice = state["legal"][rng.integers(len(state["legal"]))]
        r = act(client, gid, choice)
        assert r.status_code == 200, r.text
        state = r.json()


def no_hidden_tiles(state):
    """Before the hand is over, no tile of another seat appears anywhere in the JSON."""
    if state["phase"] in ("hand_over", "game_over"):
        return
    me = state["human_seat"]
    for s in state["seats"]:
        if s["seat"] != me:
            assert s["tiles"] is None and "dealt" not in s
    assert set(TILE.findall(json.dumps(state))) <= visible_tiles(state)


# ----------------------------------------------------------------------------- games
def test_a_new_game_plays_the_agents_up_to_the_persons_turn(client):
    gid, state = new_game(client, human_seat=2)
    assert state["human_seat"] == 2 and state["to_move"] == 2 and state["phase"] == "bid"
    assert state["legal"] and all(isinstance(a, str) for a in state["legal"])
    assert [s["agent"] for s in state["seats"]] == ["heuristic", "heuristic", "person",
                                                    "heuristic"]
    assert len(state["seats"][2]["tiles"]) == 7
    # the seats before the person's have bid already, in turn from the dealer's left
    first = (state["dealer"] + 1) % 4
    assert [b["seat"] for b in state["bids"]] == [(first + i) % 4 for i in range((2 - first) % 4)]
    assert client.get(f"/api/games/{gid}").json() == state


def test_every_field_is_optional_and_the_champion_is_the_default(client):
    r = client.post("/api/games")
    assert r.status_code == 201, r.text
    state = r.json()["state"]
    assert state["ruleset"] == "standard" and state["human_seat"] == 0
    assert {s["agent"] for s in state["seats"][1:]} == {"champion"}


def test_a_whole_game_to_the_end_over_the_api(client):
    gid, state = new_game(client, rules={"target": 2}, seed=11)
    rng = np.random.default_rng(0)
    final = play_out(client, gid, state, rng, check=no_hidden_tiles)
    assert final["phase"] == "game_over" and final["legal"] == []
    assert max(final["score"]) >= 2 and final["winner"] == int(np.argmax(final["score"]))
    records = client.get(f"/api/games/{gid}/records").json()["records"]
    assert len(records) == final["hands_done"] >= 1
    total = np.zeros(2, int)
    for rec in records:  # each finished hand is a record the judge accepts
        result = replay(parse_record(rec))
        assert result["ok"] and result["complete"]
        total += result["score"]
    assert total.tolist() == final["score"]
    r = act(client, gid, "next")
    assert r.status_code == 400 and "over" in r.json()["error"]


def test_the_six_player_game_with_the_exchange(client):
    # the person bids the highest bid each time, so wins the bidding and exchanges
    gid, state = new_game(client, ruleset="six-player", seed=4)
    assert state["n_seats"] == 6 and state["cat"] == {"size": 2}
    seen_exchange = False
    while state["phase"] not in ("hand_over", "game_over"):
        no_hidden_tiles(state)
        legal = state["legal"]
        if state["phase"] == "bid":
            choice = legal[-1]
        elif state["phase"] == "exchange":
            seen_exchange = True
            assert len(state["cat"]["left"]) <= 2
            choice = next((a for a in legal if a.startswith("take")), None) or \
                next((a for a in legal if a.startswith("discard")), "keep")
        else:
            choice = legal[0]
        r = act(client, gid, choice)
        assert r.status_code == 200, r.text
        state = r.json()
    assert seen_exchange and state["exchange"]["done"]
    assert state["cat"]["dealt"] and all(len(s["dealt"]) == 9 for s in state["seats"])


def test_the_person_never_sees_hidden_tiles_in_either_ruleset(client):
    for ruleset, seat in (("standard", 1), ("six-player", 3)):
        for seed in range(3):
            gid, state = new_game(client, ruleset=ruleset, human_seat=seat, seed=seed)
            play_out(client, gid, state, np.random.default_rng(seed), hands=2,
                     check=no_hidden_tiles)


def test_a_hand_over_shows_every_hand_as_dealt_and_next_deals_the_next(client):
    gid, state = new_game(client, seed=5)
    state = play_out(client, gid, state, np.random.default_rng(1), hands=1)
    assert state["phase"] == "hand_over" and state["legal"] == ["next"]
    assert all(len(s["dealt"]) == 7 for s in state["seats"]) and state["result"]
    record = client.get(f"/api/games/{gid}/records").json()["records"][0]
    assert [sorted(h) for h in record["hands"]] == [sorted(s["dealt"]) for s in state["seats"]]
    r = act(client, gid, "6-6")
    assert r.status_code == 400 and "next" in r.json()["error"]
    state2 = act(client, gid, "next").json()
    assert state2["hand"] == 1 and state2["phase"] == "bid" and state2["hands_done"] == 1


def test_an_illegal_action_is_refused_with_the_cores_reason_and_changes_nothing(client):
    gid, state = new_game(client)
    before = client.get(f"/api/games/{gid}").json()
    for action, words in (("6-6", "a bid is due, not a play"), ("zz", "not an action"),
                          ("5s", "a bid is due")):
        r = act(client, gid, action)
        assert r.status_code == 400 and words in r.json()["error"], r.text
    # a bid below the high bid (someone has bid 30 or more, or the person bids first)
    r = act(client, gid, "next")
    assert r.status_code == 400 and "once this one is over" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == before
    # in the play: a tile the person does not hold
    state = before
    while state["phase"] != "play":
        state = act(client, gid, "pass" if "pass" in state["legal"] else state["legal"][0]).json()
        if state["phase"] == "hand_over":
            state = act(client, gid, "next").json()
    mine = set(state["seats"][0]["tiles"])
    other = next(t for t in ("6-6", "5-5", "4-4", "3-3", "2-2", "1-1", "0-0", "6-5")
                 if t not in mine)
    r = act(client, gid, other)
    assert r.status_code == 400 and "not in" in r.json()["error"], r.text
    assert client.get(f"/api/games/{gid}").json() == state


def test_bad_bodies_get_a_4xx_with_a_clear_message(client):
    gid, _ = new_game(client)
    cases = [
        (b"{bad", {"content-type": "application/json"}, 400, "not JSON"),
        (b"[1, 2]", {"content-type": "application/json"}, 422, "JSON object"),
        (b'{"action": 30}', {"content-type": "application/json"}, 422, "'action'"),
        (b'{"action": "30", "x": 1}', {"content-type": "application/json"}, 422, "'x'"),
        (b"{}", {"content-type": "application/json"}, 422, "'action'"),
        (b"30", {}, 422, "JSON object"),
    ]
    for body, headers, status, words in cases:
        r = client.post(f"/api/games/{gid}/actions", content=body, headers=headers)
        assert r.status_code == status and words in r.json()["error"], (body, r.text)
    for body, words in (({"seed": "5"}, "'seed'"), ({"seed": -1}, "seed"),
                        ({"human_seat": 4}, "human_seat"), ({"human_seat": True}, "human_seat"),
                        ({"ruleset": "eight"}, "ruleset"),
                        ({"rules": {"target": 0}}, "target"), ({"rules": {"bogus": 1}}, "bogus"),
                        ({"agents": {"0": "heuristic"}}, "not the human"),
                        ({"agents": {"9": "heuristic"}}, "0..3"),
                        ({"agents": {"1": "nobody"}}, "unknown agent"),
                        ({"agents": {"1": 5}}, "'agents.1'"),
                        ({"agents": {"1": "neural:path=/etc/passwd"}}, "no files"),
                        ({"agents": {"1": "pimc:bid=../x"}}, "no files"),
                        ({"agents": {"1": '{"name": "random"}'}}, "JSON agent specs"),
                        ({"ruleset": "six-player", "agents": {"1": "simbid"}}, "standard ruleset only")):
        r = client.post("/api/games", json=body)
        assert 400 <= r.status_code < 500 and words in r.json()["error"], (body, r.text)


def test_unknown_ids_are_404(client):
    for method, path in (("GET", "/api/games/nope"), ("POST", "/api/games/nope/actions"),
                         ("GET", "/api/games/nope/records"), ("GET", "/api/uploads/nope"),
                         ("GET", "/api/no/such/thing")):
        r = client.request(method, path, json={"action": "pass"} if method == "POST" else None)
        assert r.status_code == 404 and r.json()["error"], (path, r.text)
    assert "no game 'nope'" in client.get("/api/games/nope").json()["error"]


def test_oversized_bodies_are_413_before_the_app_reads_them(client):
    gid, _ = new_game(client)
    big = b'{"action": "' + b"x" * MAX_BODY + b'"}'
    r = client.post(f"/api/games/{gid}/actions", content=big,
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "over" in r.json()["error"]

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(MAX_BODY // 1024 + 2):
            yield b" " * 1024
    r = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_games_have_a_cap_and_expire(records_dir):
    with running(create_app(max_games=2, ttl=1.0)) as url, httpx.Client(base_url=url,
                                                                          timeout=60) as c:
        ids = [new_game(c)[0] for _ in range(2)]
        r = c.post("/api/games", json={"agents": BOTS})
        assert r.status_code == 429 and "too many games" in r.json()["error"]
        time.sleep(1.3)
        assert c.get(f"/api/games/{ids[0]}").status_code == 404
        new_game(c)  # room again


def test_records_download_as_json_lines(client):
    gid, state = new_game(client, seed=8)
    assert client.get(f"/api/games/{gid}/records").json() == {"records": []}
    play_out(client, gid, state, np.random.default_rng(2), hands=1)
    r = client.get(f"/api/games/{gid}/records", params={"format": "jsonl"})
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    records = [rec for _, rec in read_records(r.text)]
    assert len(records) == 1 and replay(records[0])["complete"]
    assert client.get(f"/api/games/{gid}/records", params={"format": "xml"}).status_code == 422


def test_agent_specs_admit_plain_options_only():
    assert agent_spec("pimc:n_worlds=8", 1) == {"name": "pimc", "n_worlds": 8}
    assert agent_spec("compose:bid=heuristic,play=random", 1)["play"] == "random"
    for bad in ("neural:path=x", "bidnet:weights_path=y", "compose:bid=neural:path=z",
                "pimc:n_worlds=[1]", "", "x" * 300, None):
        with pytest.raises(WebError):
            agent_spec(bad, 1)


# ----------------------------------------------------------------------------- records
def write_match(path, deals=3, seed=0):
    from agents.cli import main
    assert main(["match", "random", "heuristic", "--deals", str(deals), "--seed", str(seed),
                 "--records", str(path), "--quiet"]) == 0


def test_the_records_folder_lists_record_files_only(client, records_dir):
    write_match(records_dir / "sub" / "m.jsonl")
    (records_dir / "one.json").write_text(json.dumps(next(iter(
        json.loads(line) for line in (records_dir / "sub" / "m.jsonl").read_text().splitlines()))))
    outside = records_dir.parent / "outside.jsonl"
    outside.write_text((records_dir / "sub" / "m.jsonl").read_text())
    os.symlink(outside, records_dir / "link.jsonl")
    files = client.get("/api/records").json()
    assert files["enabled"] and [f["path"] for f in files["files"]] == ["one.json", "sub/m.jsonl"]


def test_a_records_file_is_indexed_and_replayed_with_the_solvers_verdicts(client, records_dir):
    path = records_dir / "sub" / "m.jsonl"
    if not path.exists():
        write_match(path)
    text = path.read_text()
    records = [rec for _, rec in read_records(text)]
    index = client.get("/api/records/sub/m.jsonl").json()
    assert index["count"] == len(records) == 6 and index["error"] is None
    assert [h["agents"] for h in index["hands"]] == [r.raw["agents"] for r in records]
    for n, record in enumerate(records[:3]):
        r = client.get("/api/records/sub/m.jsonl", params={"hand": n, "analyse": True}).json()
        frames = r["frames"]
        assert frames[0]["step"] is None
        assert all(s["tiles"] for s in frames[0]["view"]["seats"])  # every hand shown
        result = replay(record)
        last = frames[-1]["view"]
        assert last["points"] == result["points"] and last["made"] == result["made"]
        assert [f["step"]["action"] for f in frames[1:]] == \
            [a for a in record.raw["bids"] + [record.raw.get("contract")] + record.raw["plays"]
             if a is not None]
        # the totals are show --analyse's
        line = next(x for x in show_record(record, analyse=True) if x.startswith("analysis"))
        told = [tuple(map(int, m)) for m in re.findall(r"team \d (\d+) \((\d+) mistake", line)]
        assert [(t["lost"], t["mistakes"]) for t in r["analysis"]["teams"]] == told
        losses = [f["step"]["verdict"]["loss"] for f in frames[1:] if "verdict" in f["step"]]
        assert sum(losses) == sum(t[0] for t in told)
    r = client.get("/api/records/sub/m.jsonl", params={"hand": 6})
    assert r.status_code == 404 and "0..5" in r.json()["error"]


def test_paths_outside_the_records_folder_are_refused(client, records_dir):
    (records_dir.parent / "secret.jsonl").write_text("{}\n")
    # dot segments are resolved by the client before they leave (the server never sees
    # them); encoded, they reach the server, which refuses them
    for path in ("../secret.jsonl", "sub/../../secret.jsonl"):
        r = client.get(f"/api/records/{path}")
        assert r.status_code in (400, 404) and "secret" not in r.text
    for path, status in (("%2E%2E/secret.jsonl", 400), ("sub/%2E%2E/%2E%2E/secret.jsonl", 400),
                         ("%2Fetc%2Fpasswd", 400), ("sub%5C..%5Csecret.jsonl", 400),
                         ("link.jsonl", 400), ("notes.txt", 400), ("sub/none.jsonl", 404)):
        r = client.get(f"/api/records/{path}")
        assert r.status_code == status and r.json()["error"], (path, r.text)
    with running(create_app()) as url:
        r = httpx.get(url + "/api/records/x.jsonl")
        assert r.status_code == 404 and "--records" in r.json()["error"]
        assert httpx.get(url + "/api/records").json()["enabled"] is False


def test_uploads_are_indexed_and_bad_ones_refused(client, records_dir):
    path = records_dir / "sub" / "m.jsonl"
    if not path.exists():
        write_match(path)
    lines = path.read_text().splitlines()
    r = client.post("/api/uploads", content="\n".join(lines[:2] + ["{not json"] + lines[2:]))
    assert r.status_code == 201
    up = r.json()
    assert up["count"] == 2 and up["error"]["line"] == 3 and "not JSON" in up["error"]["message"]
    frames = client.get(f"/api/uploads/{up['id']}", params={"hand": 1}).json()["frames"]
    assert len(frames) > 1 and "analysis" not in client.get(
        f"/api/uploads/{up['id']}", params={"hand": 1}).json()
    for body, status, words in ((b"\xff\xfe", 400, "UTF-8"), (b"", 400, "no records"),
                                (b'{"format": 1}\n', 201, None)):
        r = client.post("/api/uploads", content=body)
        assert r.status_code == status, r.text
        if words:
            assert words in r.json()["error"]
    r = client.post("/api/uploads", content=b" " * (9 * 2**20))
    assert r.status_code == 413


# ----------------------------------------------------------------------------- docs, command
def test_the_readme_documents_every_api_route():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    documented = set(re.findall(r"(?:GET|POST) (/api/[\w/{}]+)", readme))
    routes = {r.path.replace("{path:path}", "{path}").replace("game_id", "id")
              .replace("upload_id", "id")
              for r in create_app().routes if r.path.startswith("/api")}
    assert documented == routes


def test_serve_refuses_bad_options_in_one_line(capsys, tmp_path):
    from agents.cli import main

    def code(argv) -> int:
        try:
            return main(["serve", *argv])
        except SystemExit as e:  # argparse's refusals
            return e.code

    for argv, words in ((["--records", str(tmp_path / "none")], "is not a folder"),
                        (["--port", "0"], "must be a port 1..65535"),
                        (["--max-games", "0"], "at least 1")):
        assert code(argv) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1, err
