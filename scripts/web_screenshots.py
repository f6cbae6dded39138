"""Screenshots of the web app for docs/, taken in Debian's Chromium driven by Playwright:
``texas42 serve`` is started on 127.0.0.1, a game against the champion is played by clicking
(the person passes when it may and plays its first legal tile) and the table is shot in the
middle of a hand; the hands played are then opened in the viewer and shot at a mistake the
solver marks. ``--game`` plays the whole game to its end by clicking first and prints how
it went. ``--url`` uses a server already running (``texas42 serve``) instead of starting one.

    python scripts/web_screenshots.py [--out docs] [--seed 1] [--game] [--url URL]

Needs the dev extra (playwright) and Chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.error import URLError
from urllib.request import urlopen

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str) -> dict:
    with urlopen(url, timeout=60) as r:
        return json.load(r)


def settle(page) -> None:
    page.wait_for_selector("body[data-busy='0']")


def state_of(base: str, page) -> dict:
    gid = re.search(r"game=([\w-]+)", page.url).group(1)
    return get(f"{base}/api/games/{gid}")


def choose(page, state: dict) -> None:
    """The person's choice: pass when it may, else the first legal thing."""
    if state["phase"] == "hand_over":
        page.click("[data-action='next']")
    elif page.locator(".seat.bottom .domino.legal").count():
        page.locator(".seat.bottom .domino.legal").first.click()
    elif page.locator("#actions button[data-action='pass']:not([disabled])").count():
        page.click("#actions button[data-action='pass']")
    else:
        page.locator("#actions button:not([disabled])").first.click()
    settle(page)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs"), help="where the PNGs go")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game", action="store_true", help="play the whole game to its end")
    ap.add_argument("--url", default=None, help="a server already running, e.g. "
                    "http://127.0.0.1:8042 (default: start one at a free port)")
    args = ap.parse_args()
    out = Path(args.out)
    port = free_port()
    base = args.url.rstrip("/") if args.url else f"http://127.0.0.1:{port}"
    server = None if args.url else subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "serve", "--port", str(port),
         "--log-level", "warning"], cwd=ROOT)
    try:
        for _ in range(300):
            try:
                get(base + "/api/info")
                break
            except (URLError, ConnectionError):
                time.sleep(0.2)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1320, "height": 860})
            page.goto(f"{base}/?delay=0")
            page.fill("#seed", str(args.seed))
            page.click("#start")
            page.wait_for_selector("#game:not([hidden])")
            settle(page)
            started, clicks = time.monotonic(), 0
            shot = False
            while True:
                state = state_of(base, page)
                if not shot and state["phase"] == "play" and len(state["tricks"]) >= 3 and \
                        state["tricks"][-1]["winner"] is None and state["to_move"] == 0:
                    page.screenshot(path=str(out / "web-play.png"))
                    shot = True
                if state["phase"] == "game_over" or (
                        not args.game and shot and state["phase"] == "hand_over"):
                    break
                choose(page, state)
                clicks += 1
            print(f"hands {state['hands_done']}, score us {state['score'][0]} them "
                  f"{state['score'][1]} ({state['phase']}), {clicks} clicks, "
                  f"{time.monotonic() - started:.0f} s")
            gid = re.search(r"game=([\w-]+)", page.url).group(1)
            page.goto(f"{base}/watch#game={gid}")
            page.wait_for_selector("#position:has-text('step 0/')")
            # the first hand with a mistake marked, shown at that play
            for row in range(page.locator(".hand-row").count()):
                page.click(f".hand-row[data-hand='{row}']")
                page.wait_for_selector(f"#position:has-text('hand {row + 1}/')")
                for _ in range(60):
                    if "MISTAKE" in page.inner_text("#step") or page.locator("#next").is_disabled():
                        break
                    page.click("#next")
                if "MISTAKE" in page.inner_text("#step"):
                    break
            page.screenshot(path=str(out / "web-watch.png"), full_page=True)
            browser.close()
    finally:
        if server is not None:
            server.terminate()
            server.wait(15)
    print(f"wrote {out / 'web-play.png'} and {out / 'web-watch.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
