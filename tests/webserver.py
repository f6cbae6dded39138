"""Servers for the web tests: the app in a thread (``running``) and ``texas42 serve`` in its
own process (``serve_process``), both on 127.0.0.1 at a free port, stopped on the way out."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
# Debian's Chromium in a container: no sandbox, no GPU, and no calls home (the machine's
# network is closed: they would only be refused)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run",
                 "--disable-quic"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(url: str, timeout: float, proc: subprocess.Popen | None = None) -> None:
    """Wait until ``url`` answers (``RuntimeError`` when the process died or time ran out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}: "
                               f"{proc.stdout.read() if proc.stdout else ''}")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


@contextlib.contextmanager
def running(app):
    """Serve ``app`` with uvicorn in a thread; yields its base URL."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base + "/api/info", 30)
        yield base
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def serve_process(*args: str):
    """``texas42 serve ARGS`` in its own process at a free port; yields its base URL."""
    port = free_port()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "agents.cli", "serve", "--port", str(port),
                             "--log-level", "warning", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base + "/api/info", 90, proc)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
