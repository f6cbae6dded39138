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
from agents.ui.web.server import MAX_BODY, create_app
from agents.base import Agent
from agents.ui.web.games import Store, WebError, WebGame, agent_spec, agents_for
from webserver import running

from helpers import ROOT

BOTS = {"1": "heuristic", "2": "heuristic", "3": "heuristic"}
NDJSON = {"content-type": "application/x-ndjson"}
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
    # next before the hand is over
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
                        ({"agents": {"1": "nobody"}}, "is not an agent"),
                        ({"agents": {"1": 5}}, "'agents.1'"),
                        ({"agents": {"1": "neural:path=/etc/passwd"}}, "by name only"),
                        ({"agents": {"1": "pimc:n_worlds=100000000"}}, "by name only"),
                        ({"agents": {"1": '{"name": "random"}'}}, "by name only"),
                        ({"agents": {"1": "neural"}}, "not an agent"),
                        ({"agents": {"²": "random"}}, "a seat is"),
                        ({"agents": {"1" * 5000: "random"}}, "a seat is"),
                        ({"ruleset": "six-player", "agents": {"1": "simbid"}},
                         "not an agent for the six-player")):
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


def test_agents_are_taken_by_name_only():
    assert agent_spec("pimc", 1, "standard") == "pimc"
    assert "neural" not in agents_for("standard") and "bidnet" not in agents_for("standard")
    assert {"champion", "learned", "heuristic", "pimc", "random"} <= set(agents_for("six-player"))
    assert "simbid" not in agents_for("six-player")
    for bad in ("neural:path=x", "neural", "pimc:n_worlds=8", "compose:bid=neural:path=z",
                "", "x" * 300, None, 5):
        with pytest.raises(WebError):
            agent_spec(bad, 1, "standard")


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
    r = client.post("/api/uploads", content="\n".join(lines[:2] + ["{not json"] + lines[2:]),
                    headers=NDJSON)
    assert r.status_code == 201
    up = r.json()
    assert up["count"] == 2 and up["error"]["line"] == 3 and "not JSON" in up["error"]["message"]
    frames = client.get(f"/api/uploads/{up['id']}", params={"hand": 1}).json()["frames"]
    assert len(frames) > 1 and "analysis" not in client.get(
        f"/api/uploads/{up['id']}", params={"hand": 1}).json()
    for body, status, words in ((b"\xff\xfe", 400, "UTF-8"), (b"", 400, "no records"),
                                (b'{"format": 1}\n', 201, None)):
        r = client.post("/api/uploads", content=body, headers=NDJSON)
        assert r.status_code == status, r.text
        if words:
            assert words in r.json()["error"]
    r = client.post("/api/uploads", content=b" " * (9 * 2**20), headers=NDJSON)
    assert r.status_code == 413


# ----------------------------------------------------------------------------- docs, command
def test_the_docs_document_every_api_route():
    page = (ROOT / "docs" / "playing.md").read_text()
    documented = set(re.findall(r"(?:GET|POST|DELETE) (/api/[\w/{}]+)", page))
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


# ----------------------------------------------------------------------------- more safety
def test_the_seed_is_told_only_once_the_game_is_over(client):
    # the seed fixes every deal: with it the person could rebuild the hidden hands
    gid, state = new_game(client, rules={"target": 1}, seed=123456)
    assert state["seed"] is None and "123456" not in json.dumps(state)
    state = play_out(client, gid, state, np.random.default_rng(3), hands=1)
    if state["phase"] != "game_over":
        records = client.get(f"/api/games/{gid}/records").json()["records"]
        assert records and all("seed" not in r for r in records)
        text = client.get(f"/api/games/{gid}/records", params={"format": "jsonl"}).text
        assert "123456" not in text and "123456" not in json.dumps(state)
        state = play_out(client, gid, state, np.random.default_rng(3))
    assert state["phase"] == "game_over" and state["seed"] == 123456
    assert all(r["seed"] == 123456
               for r in client.get(f"/api/games/{gid}/records").json()["records"])
    r = client.post("/api/games", json={"agents": BOTS})  # a seed of the server's
    assert r.status_code == 201 and r.json()["state"]["seed"] is None


class Fails(Agent):
    """Plays the first legal action until told to fail."""

    fail = False

    def act(self, observations, masks, context=None):
        if Fails.fail:
            raise RuntimeError("out of order")
        return masks.argmax(axis=1)


def test_an_agent_failing_in_its_reply_leaves_the_game_as_it_was():
    from texas42_env.rules import RulesConfig

    Fails.fail = False
    game = WebGame(RulesConfig.make(), {1: Fails(), 2: Fails(), 3: Fails()}, seat=0, seed=1)
    Fails.fail = True
    for _ in range(40):  # the person acts until an agent has to reply
        before, st = game.state(), game.st.copy()
        try:
            game.act(game.legal()[0])
        except WebError as e:
            assert e.status == 500 and "out of order" in e.message
            break
    else:
        raise AssertionError("no agent was asked")
    assert game.state() == before
    assert all(np.array_equal(getattr(game.st, f), getattr(st, f)) for f in st.STORED)
    Fails.fail = False
    game.act(game.legal()[0])  # and it goes on
    assert game.state() != before


def test_a_full_store_makes_room_from_finished_or_oldest_things():
    now = [0.0]
    games = Store(2, ttl=100, spent=lambda g: g == "over", clock=lambda: now[0])
    a = games.add("playing")
    now[0] += 1
    b = games.add("over")
    now[0] += 1
    games.add("new")  # the finished one made room
    assert games.get(a) == "playing"
    with pytest.raises(WebError) as e:
        games.get(b)
    assert e.value.status == 404
    with pytest.raises(WebError) as e:
        games.add("one more")
    assert e.value.status == 429
    uploads = Store(2, ttl=100, lru=True, clock=lambda: now[0])
    first = uploads.add(1)
    now[0] += 1
    uploads.add(2)
    now[0] += 1
    uploads.get(first)  # used again: the other is now the oldest
    now[0] += 1
    uploads.add(3)
    assert uploads.get(first) == 1 and len(uploads) == 2


def test_a_place_is_kept_while_a_game_is_built():
    games = Store(1, ttl=100)
    key = games.reserve()
    with pytest.raises(WebError):
        games.reserve()
    with pytest.raises(WebError):  # not ready yet
        games.get(key)
    games.fill(key, "ready")
    assert games.get(key) == "ready"
    assert games.drop(key) and not games.drop(key)


def test_a_game_can_be_forgotten(client):
    gid, _ = new_game(client)
    assert client.delete(f"/api/games/{gid}").status_code == 204
    assert client.get(f"/api/games/{gid}").status_code == 404
    assert client.delete(f"/api/games/{gid}").status_code == 404


def test_requests_for_another_host_name_are_refused():
    with running(create_app(allowed_hosts=["127.0.0.1", "localhost"])) as url:
        assert httpx.get(url + "/api/info").status_code == 200
        r = httpx.get(url + "/api/info", headers={"host": "rebound.example"})
        assert r.status_code == 400 and "not 'rebound.example'" in r.json()["error"]
        for host in ("localhost:8042", "127.0.0.1", "LOCALHOST"):
            assert httpx.get(url + "/api/info", headers={"host": host}).status_code == 200
    with running(create_app(allowed_hosts=["::1"])) as url:
        r = httpx.get(url + "/api/info", headers={"host": "[::1]:8042"})
        assert r.status_code == 200


def test_odd_files_in_the_records_folder_are_refused_not_crashed_on(client, records_dir):
    odd = records_dir / "odd"
    odd.mkdir()
    os.symlink("loop.jsonl", odd / "loop.jsonl")  # a link to itself
    (odd / ".secret.json").write_text("{}")
    nulls = {"format": "texas42-record/1", "ruleset": "standard", "dealer": 0,
             "hands": [["6-6", "6-5", "6-4", "6-3", "6-2", "6-1", "6-0"],
                       ["5-5", "5-4", "5-3", "5-2", "5-1", "5-0", "4-4"],
                       ["4-3", "4-2", "4-1", "4-0", "3-3", "3-2", "3-1"],
                       ["3-0", "2-2", "2-1", "2-0", "1-1", "1-0", "0-0"]],
             "bids": None, "plays": None, "agents": "not a list"}
    (odd / "nulls.jsonl").write_text("\ufeff" + json.dumps(nulls) + "\n", encoding="utf-8")
    try:
        listed = [f["path"] for f in client.get("/api/records").json()["files"]]
        assert "odd/nulls.jsonl" in listed and "odd/loop.jsonl" not in listed
        for path, status in (("odd/loop.jsonl", 400), ("odd/.secret.json", 400),
                             ("odd/" + "a" * 300 + ".jsonl", 400)):
            r = client.get(f"/api/records/{path}")
            assert r.status_code == status and r.json()["error"], (path, r.text)
        index = client.get("/api/records/odd/nulls.jsonl").json()  # a BOM, nulls
        assert index["count"] == 1 and index["hands"][0]["agents"] is None
        assert index["hands"][0]["plays"] == 0
        assert client.get("/api/records/odd/nulls.jsonl", params={"hand": 0}).status_code == 200
    finally:
        for p in odd.iterdir():
            p.unlink()
        odd.rmdir()


def test_uploads_need_a_records_content_type(client, records_dir):
    r = client.post("/api/uploads", content=b"{}", headers={"content-type": "image/png"})
    assert r.status_code == 415 and "x-ndjson" in r.json()["error"]
    r = client.post("/api/uploads", content=b"\xef\xbb\xbf" + (records_dir / "sub" / "m.jsonl")
                    .read_bytes().splitlines(keepends=True)[0],
                    headers=NDJSON)
    assert r.status_code == 201 and r.json()["count"] == 1


def test_the_viewer_reads_a_games_finished_hands(client):
    gid, state = new_game(client, seed=21)
    assert client.get(f"/api/games/{gid}/hands").json()["count"] == 0
    state = play_out(client, gid, state, np.random.default_rng(4), hands=1)
    index = client.get(f"/api/games/{gid}/hands").json()
    assert index["count"] == 1 and index["hands"][0]["agents"][0] == "person"
    replay = client.get(f"/api/games/{gid}/hands", params={"hand": 0, "analyse": True}).json()
    assert replay["frames"][-1]["view"]["points"] == state["points"]
    assert "analysis" in replay
