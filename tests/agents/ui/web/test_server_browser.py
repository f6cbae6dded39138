"""The web app in a real browser: ``texas42 serve`` started on 127.0.0.1, Debian's Chromium
driven headless by Playwright. A whole hand, a whole game against the champion and a
six-player exchange played by clicking; a records file opened from the served folder, an
upload and a game of the play page stepped in the viewer. Chromium comes from Debian's
``chromium`` package (``scripts/setup.sh --dev`` installs it); without it these tests fail,
saying so."""

from __future__ import annotations

import os
import re

import httpx
import pytest

from texas42_env.records import read_records
from webserver import CHROMIUM, CHROMIUM_ARGS, serve_process


@pytest.fixture(scope="module")
def records_dir(tmp_path_factory):
    from agents.cli import main

    d = tmp_path_factory.mktemp("served")
    (d / "matches").mkdir()
    assert main(["match", "random", "heuristic", "--deals", "3", "--seed", "2",
                 "--records", str(d / "matches" / "random-heuristic.jsonl"), "--quiet"]) == 0
    return d


@pytest.fixture(scope="module")
def base(records_dir):
    with serve_process("--records", str(records_dir)) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"the browser tests need Debian's Chromium at {CHROMIUM}: install the "
                    f"chromium package (scripts/setup.sh --dev does, as root or with sudo)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1320, "height": 940}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


def api_state(base, page) -> dict:
    gid = re.search(r"game=([\w-]+)", page.url).group(1)
    return httpx.get(f"{base}/api/games/{gid}").json()


def settle(page) -> None:
    page.wait_for_selector("body[data-busy='0']")


def start_game(page, base, ruleset="standard", agent=None, seed=7, target=None, delay=0):
    page.goto(f"{base}/?delay={delay}")
    page.select_option("#ruleset", ruleset)
    if agent:
        for sel in page.locator("#agents select").all():
            sel.select_option(agent)
    page.fill("#seed", str(seed))
    if target is not None:
        page.click("summary")
        page.fill("[data-option='target']", str(target))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    settle(page)


def click_a_choice(page, state, bid="pass") -> None:
    """Click one of the person's legal choices: a tile in the play and the exchange, else a
    button (``bid`` in the bidding when it is legal)."""
    tiles = page.locator(".seat.bottom .domino.legal")
    if state["phase"] == "exchange" and page.locator(".cat .domino.legal").count():
        page.locator(".cat .domino.legal").first.click()
    elif tiles.count():
        tiles.first.click()
    elif page.locator("#bid-select").count():
        page.select_option("#bid-select", index=page.locator("#bid-select option").count() - 1)
        page.click("#bid-button")
    else:
        wanted = page.locator(f"#actions button[data-action='{bid}']:not([disabled])")
        enabled = page.locator("#actions button:not([disabled])")
        (wanted if wanted.count() else enabled).first.click()
    settle(page)


def test_a_whole_hand_by_clicking(page, base):
    start_game(page, base, agent="heuristic")
    tried_a_dim_tile = False
    for _ in range(80):
        state = api_state(base, page)
        if state["phase"] == "hand_over":
            break
        legal = set(state["legal"])
        if state["phase"] == "play":
            # the legal tiles are the clickable ones, the others dimmed
            shown = {d.get_attribute("data-tile"): "legal" in d.get_attribute("class")
                     for d in page.locator(".seat.bottom .domino").all()}
            assert shown == {t: t in legal for t in state["seats"][0]["tiles"]}
            dim = page.locator(".seat.bottom .domino.dim")
            if dim.count() and not tried_a_dim_tile:
                dim.first.click(force=True)  # nothing happens
                settle(page)
                assert api_state(base, page) == state
                tried_a_dim_tile = True
        elif state["phase"] == "bid":
            enabled = {b.get_attribute("data-action")
                       for b in page.locator("#actions button:not([disabled])").all()}
            assert enabled == legal
        click_a_choice(page, state)
    state = api_state(base, page)
    assert state["phase"] == "hand_over" and tried_a_dim_tile  # (the deal has a follow to make)
    assert "hand is over" in page.inner_text("#prompt")
    # every hand as dealt is shown, face up
    for s in range(4):
        tiles = page.locator(f".seat[data-seat='{s}'] .domino")
        backs = page.locator(f".seat[data-seat='{s}'] .domino.back")
        assert tiles.count() == 7 and backs.count() == 0
        assert sorted(t.get_attribute("data-tile") for t in tiles.all()) == sorted(
            state["seats"][s]["dealt"])
    assert state["result"][0] in page.inner_text("#score")
    # the records download from the page
    with page.expect_download() as download:
        page.click("#download")
    with open(download.value.path(), encoding="utf-8") as f:
        records = [r for _, r in read_records(f.read())]
    assert len(records) == 1 and sorted(records[0].raw["hands"][0]) == sorted(
        state["seats"][0]["dealt"])
    page.click("[data-action='next']")
    settle(page)
    assert "Hand 2" in page.inner_text("#score")


def test_a_whole_game_against_the_champion_by_clicking(page, base):
    start_game(page, base, seed=1, target=2, delay=20)  # the agents' plays drawn in turn
    assert {s["agent"] for s in api_state(base, page)["seats"][1:]} == {"champion"}
    for _ in range(400):
        state = api_state(base, page)
        if state["phase"] == "game_over":
            break
        if state["phase"] == "hand_over":
            page.click("[data-action='next']")
            settle(page)
            continue
        click_a_choice(page, state, bid="30")
    assert state["phase"] == "game_over" and max(state["score"]) >= 2
    words = "your team wins" if state["winner"] == 0 else "the other team wins"
    assert words in page.inner_text("#prompt")


def test_the_six_player_exchange_by_clicking(page, base):
    start_game(page, base, ruleset="six-player", agent="heuristic", seed=3)
    exchanged = False
    for _ in range(120):
        state = api_state(base, page)
        if state["phase"] == "hand_over":
            break
        if state["phase"] == "exchange":
            exchanged = True
            cat = page.locator(".cat .domino")
            assert sorted(d.get_attribute("data-tile") for d in cat.all()) == sorted(
                state["cat"]["left"])
            if not page.locator(".cat .domino.legal").count() and \
                    not page.locator(".seat.bottom .domino.legal").count():
                page.click("[data-action='keep']")
                settle(page)
                continue
        click_a_choice(page, state)
    assert exchanged and state["phase"] == "hand_over"
    assert state["exchange"]["done"] and "Exchange (seat" in page.inner_text("#score")
    assert page.locator(".seat .domino").count() == 54
    shown = sorted(d.get_attribute("data-tile") for d in page.locator(".cat-shown .domino").all())
    assert shown == sorted(state["cat"]["dealt"])  # the cat as dealt, once the hand is over


def test_opening_a_records_file_in_the_viewer(page, base, records_dir):
    page.goto(f"{base}/watch")
    page.select_option("#files", "matches/random-heuristic.jsonl")
    page.wait_for_selector("#viewer:not([hidden])")
    page.wait_for_selector("#position:has-text('step 0')")
    assert page.locator(".hand-row").count() == 6
    # the deal: every hand face up
    assert page.locator(".seat .domino").count() == 28
    assert page.locator(".seat .domino.back").count() == 0
    # the hand of the file with the most plays, opened from the list
    url = f"{base}/api/records/matches/random-heuristic.jsonl"
    hand = max(httpx.get(url).json()["hands"], key=lambda h: h["plays"])["n"]
    page.click(f".hand-row[data-hand='{hand}']")
    page.wait_for_selector(f"#position:has-text('hand {hand + 1}/6 · step 0/')")
    replay = httpx.get(url, params={"hand": hand, "analyse": True}).json()
    n = len(replay["frames"]) - 1
    page.click("#next-trick")
    assert page.locator(".trick-note").inner_text().startswith("trick 1 to seat")
    page.click("#next-trick")
    assert page.locator(".trick-note").inner_text().startswith("trick 2 to seat")
    page.click("#prev-trick")
    assert page.locator(".trick-note").inner_text().startswith("trick 1 to seat")
    page.click("#last")
    assert page.inner_text("#position").endswith(f"step {n}/{n}")
    teams = replay["analysis"]["teams"]
    text = page.inner_text("#analysis")
    for t, team in enumerate(teams):
        assert f"team {t}: {team['lost']} points, {team['mistakes']} mistake" in text
    mistakes = sum(t["mistakes"] for t in teams)
    assert page.locator("#log li.bad").count() == mistakes
    page.click("#first")
    for _ in range(n):
        page.click("#next")
    assert page.inner_text("#position").endswith(f"step {n}/{n}")
    page.click("#prev-hand" if hand else "#next-hand")
    page.wait_for_selector(f"#position:has-text('hand {hand if hand else 2}/6')")


def test_an_upload_and_a_played_game_open_in_the_viewer(page, base, records_dir, tmp_path):
    text = (records_dir / "matches" / "random-heuristic.jsonl").read_text()
    path = tmp_path / "two.jsonl"
    path.write_text("".join(text.splitlines(keepends=True)[:2]))
    page.goto(f"{base}/watch")
    page.set_input_files("#upload", str(path))
    page.wait_for_selector("#position:has-text('hand 1/2')")
    assert page.locator(".hand-row").count() == 2
    # a game of the play page, one hand played over the API
    r = httpx.post(f"{base}/api/games", json={"agents": {str(s): "heuristic" for s in (1, 2, 3)},
                                               "seed": 9}, timeout=60).json()
    state = r["state"]
    while state["phase"] != "hand_over":
        state = httpx.post(f"{base}/api/games/{r['id']}/actions",
                           json={"action": state["legal"][0]}, timeout=60).json()
    page.goto(f"{base}/watch#game={r['id']}")
    page.wait_for_selector("#position:has-text('hand 1/1')")
    assert sorted(state["seats"][0]["dealt"]) == sorted(
        d.get_attribute("data-tile") for d in page.locator(".seat[data-seat='0'] .domino").all())


def test_the_agents_plays_are_shown_one_after_another(page, base):
    page.goto(f"{base}/?delay=300")
    for sel in page.locator("#agents select").all():
        sel.select_option("heuristic")
    page.fill("#seed", "7")
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    settle(page)
    while api_state(base, page)["phase"] != "play":
        click_a_choice(page, api_state(base, page))
    state = api_state(base, page)
    page.locator(".seat.bottom .domino.legal").first.click()
    seen = set()  # plays in the middle while the agents' replies are drawn
    for _ in range(200):
        busy = page.evaluate("document.body.dataset.busy")
        seen.add(page.locator(".middle .played").count())
        if busy == "0":
            break
        page.wait_for_timeout(40)
    after = api_state(base, page)
    new_plays = sum(len(t["plays"]) for t in after["tricks"]) - \
        sum(len(t["plays"]) for t in state["tricks"])
    assert new_plays >= 3 and len(seen) >= 3, (new_plays, seen)


def test_what_is_hidden_stays_hidden_and_new_game_clears_the_table(page, base):
    page.goto(base)
    page.wait_for_selector("#ruleset option", state="attached")
    for hidden in ("#game", "#download", "#watch-link", "#new-game", "#log", "#error"):
        assert not page.is_visible(hidden), hidden
    start_game(page, base, agent="heuristic")
    assert page.is_visible("#new-game") and not page.is_visible("#setup")
    assert page.locator("#actions button").count()  # the bidding's buttons
    page.click("#new-game")
    assert page.is_visible("#setup") and not page.is_visible("#game")
    assert page.locator("#actions button, #table .domino").count() == 0  # the old table gone
    assert not page.is_visible("#error")
    start_game(page, base, agent="heuristic", seed=8)  # a new game plays
    state = api_state(base, page)
    click_a_choice(page, state)
    assert not page.is_visible("#error")
    assert api_state(base, page) != state
    # the viewer: no step buttons, hands or table before a file is chosen
    page.goto(f"{base}/watch")
    page.wait_for_selector("#files option", state="attached")
    for hidden in ("#viewer", "#next", "#first", "#hands-panel"):
        assert not page.is_visible(hidden), hidden
    # the navbar's API link leads to what works offline: the schema
    href = page.get_attribute("nav a:has-text('API')", "href")
    assert httpx.get(base + href).json()["info"]["title"] == "texas42"
