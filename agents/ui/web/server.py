"""The web app: the play page, the records viewer and the JSON API under ``/api`` they use.

``create_app`` builds the ASGI app (FastAPI); ``texas42 serve`` runs it with uvicorn on
127.0.0.1 by default. Every refusal is a 4xx with ``{"error": "..."}`` saying what was wrong:
a body that is not JSON (400) or does not fit the schema (422), an unknown game (404), an
illegal action (400, the core's reason; nothing changes), a path outside the records folder
(400), a body over its limit (413), too many games open (429). Bound to a loopback address,
the app answers only requests addressed to it by a loopback name (``allowed_hosts``: a web
page elsewhere cannot reach it by rebinding its own name to 127.0.0.1). The API's schema is
served at ``/openapi.json`` (the pages' API link; FastAPI's page at ``/docs`` loads its scripts
from a CDN, so it is blank offline).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from fastapi import Body, Depends, FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from texas42_env.actions import action_space
from texas42_env.rules import DEFAULTS, OPTION_SPECS, RULESETS, RulesConfig

from agents.ui.play import default_bot
from agents.ui.web.games import Store, WebError, WebGame, agents_for
from agents.ui.web.watch import (RecordsDir, hand_of, index, parse_records, records_of,
                                 replay_frames)

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY = 64 * 2**10     # bytes: any request body but an upload
MAX_UPLOAD = 8 * 2**20    # bytes: an uploaded records file
LOOPBACK = ("127.0.0.1", "localhost", "::1")
UPLOAD_TYPES = ("application/x-ndjson", "application/jsonl", "application/json", "text/plain")


class NewGame(BaseModel):
    """``POST /api/games``: every field optional."""

    model_config = ConfigDict(extra="forbid", strict=True)
    ruleset: str = Field("standard", description="standard or six-player")
    rules: dict[str, Any] = Field(default_factory=dict,
                                  description="options of docs/rules.md, e.g. {\"target\": 3}")
    human_seat: int = Field(0, description="the person's seat")
    agents: dict[str, str] = Field(default_factory=dict, description=(
        "seat -> agent name (GET /api/info lists them), e.g. {\"1\": \"pimc\"}; every seat "
        "not named plays the shipped champion"))
    seed: int | None = Field(None, description="fixes the deals and the agents' draws")


class Action(BaseModel):
    """``POST /api/games/{id}/actions``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    action: str = Field(description="an action in the notation of rules.md (30, 1m, pass, "
                        "5s, 6-4, take 5-0, keep), or next once a hand is over")


class BodyLimit:
    """ASGI middleware: a request body over its limit is answered 413 before the app sees
    it (uploads may be larger than the rest)."""

    def __init__(self, app, limit: int = MAX_BODY, upload_limit: int = MAX_UPLOAD):
        self.app, self.limit, self.upload_limit = app, limit, upload_limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = self.upload_limit if scope["path"].startswith("/api/uploads") else self.limit
        declared = dict(scope.get("headers") or []).get(b"content-length")
        too_big = JSONResponse({"error": f"the request body is over {limit} bytes"}, 413)
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return await too_big(scope, receive, send)
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
            if size > limit:
                return await too_big(scope, receive, send)
        body, given = b"".join(chunks), False

        async def replay():
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


def name_of(host: str) -> str:
    """A Host header's name, its port aside: ``[::1]:8042`` -> ``::1``."""
    if host.startswith("["):
        return host[1:host.find("]")]
    if host.count(":") == 1:  # name:port (a bare IPv6 address has more colons)
        return host.partition(":")[0]
    return host


class HostCheck:
    """ASGI middleware: a request addressed to a host name not in ``allowed`` (the Host
    header, its port aside) is answered 400 before the app sees it."""

    def __init__(self, app, allowed: list[str]):
        self.app, self.allowed = app, {h.lower() for h in allowed}

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
            if name_of(host).lower() not in self.allowed:
                refused = _error(400, f"this server answers requests for "
                                      f"{', '.join(sorted(self.allowed))} only, not "
                                      f"{host[:60]!r}")
                return await refused(scope, receive, send)
        return await self.app(scope, receive, send)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _validation_message(exc: RequestValidationError) -> tuple[int, str]:
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return 400, f"the body is not JSON: {first.get('ctx', {}).get('error', 'malformed')}"
    where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
    if not where and first.get("type") in ("model_attributes_type", "dict_type"):
        return 422, ("the body must be a JSON object, sent with Content-Type: "
                     "application/json")
    return 422, (f"field {where!r}: {first.get('msg', 'invalid')}" if where
                 else f"the body: {first.get('msg', 'invalid')}")


def action_groups(ruleset: str) -> dict[str, list[str]]:
    """The names of a ruleset's bids and contracts, in the action space's order."""
    sp = action_space(ruleset)
    return {"bids": list(sp.names[:sp.contract0]),
            "contracts": list(sp.names[sp.contract0:sp.contract0 + sp.n_contracts])}


def pick(hand: int | None = Query(None, ge=0, description="a hand to replay, from 0"),
         analyse: bool = Query(False, description="with the solver's verdict on each play"),
         offset: int = Query(0, ge=0), limit: int = Query(500, ge=1, le=5000)):
    """The query of the viewer's endpoints, as what to answer from a file's records: the
    page of its hands (``offset``, ``limit``) without ``hand``, else that hand replayed
    frame by frame."""
    def answer(parsed: dict) -> dict:
        if hand is None:
            return index(parsed, offset, limit)
        return replay_frames(hand_of(parsed, hand), analyse)
    return answer


def create_app(records: str | os.PathLike | None = None, max_games: int = 32,
               ttl: float = 2 * 3600, max_uploads: int = 8,
               allowed_hosts: list[str] | None = None) -> FastAPI:
    """The app; ``records`` the folder the viewer may open files from (None: uploads only),
    ``max_games`` games kept at once (a finished one makes room), each forgotten ``ttl``
    seconds after its last use, ``max_uploads`` uploads (the oldest makes room);
    ``allowed_hosts`` the host names requests may be addressed to (None: any)."""
    folder = RecordsDir(records) if records is not None else None
    games: Store[WebGame] = Store(max_games, ttl, "game", spent=lambda g: g.over)
    uploads: Store[dict] = Store(max_uploads, ttl, "upload", lru=True)
    app = FastAPI(title="texas42", summary="Play Texas 42 against the toolkit's agents and "
                  "watch records, in the browser or over this JSON API.", version="1")
    app.add_middleware(BodyLimit)
    if allowed_hosts is not None:
        app.add_middleware(HostCheck, allowed=allowed_hosts)
    app.state.games, app.state.uploads = games, uploads

    @app.exception_handler(WebError)
    async def web_error(request: Request, exc: WebError):
        return _error(exc.status, exc.message)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException):
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        return _error(*_validation_message(exc))

    # ------------------------------------------------------------------ pages
    @app.get("/", include_in_schema=False)
    def play_page():
        return FileResponse(STATIC / "index.html")

    @app.get("/watch", include_in_schema=False)
    def watch_page():
        return FileResponse(STATIC / "watch.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # ------------------------------------------------------------------ what there is
    @app.get("/api/info")
    def info() -> dict:
        """The rulesets, each one's rules options (defaults and allowed values), the agents
        a seat may hold and the default one, and whether a records folder is served."""
        return {"rulesets": {r: {"options": {
            name: {"default": default, "doc": OPTION_SPECS[name].doc,
                   "choices": list(OPTION_SPECS[name].choices) or None,
                   "range": OPTION_SPECS[name].int_range}
            for name, default in DEFAULTS[r].items()},
            "agents": agents_for(r), "default_agent": default_bot(r),
            "seats": RulesConfig.make(r).n_seats, **action_groups(r)} for r in RULESETS},
            "records": folder is not None}

    # ------------------------------------------------------------------ games
    @app.post("/api/games", status_code=201)
    def new_game(spec: NewGame | None = Body(None)) -> dict:
        """A new game: the agents play up to the person's first turn."""
        spec = spec or NewGame()
        key = games.reserve()  # a place, before the agents are built and play
        try:
            game = WebGame.create(spec.ruleset, spec.rules, spec.human_seat, spec.agents,
                                  spec.seed)
        except BaseException:
            games.drop(key)
            raise
        games.fill(key, game)
        with game.lock:
            return {"id": key, "state": game.state()}

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str) -> dict:
        """The game as the person's seat may see it."""
        game = games.get(game_id)
        with game.lock:
            return game.state()

    @app.post("/api/games/{game_id}/actions")
    def act(game_id: str, action: Action) -> dict:
        """The person's action and the agents' replies; 400 with the reason when it is not
        allowed (nothing changes)."""
        game = games.get(game_id)
        with game.lock:
            game.act(action.action)
            return game.state()

    @app.delete("/api/games/{game_id}", status_code=204)
    def end_game(game_id: str) -> Response:
        """Forget a game."""
        games.get(game_id)
        games.drop(game_id)
        return Response(status_code=204)

    @app.get("/api/games/{game_id}/records")
    def game_records(game_id: str, format: str = Query("json", pattern="^(json|jsonl)$")):
        """The records of the finished hands (the hand in progress is not given: it would
        show the other seats' tiles; nor the seed before the game is over: it fixes the
        deals to come); ``format=jsonl`` as a file to download."""
        game = games.get(game_id)
        with game.lock:
            records = game.public_records()
        if format == "json":
            return {"records": records}
        text = "".join(json.dumps(r) + "\n" for r in records)
        return Response(text, media_type="application/x-ndjson", headers={
            "Content-Disposition": f'attachment; filename="texas42-{game_id}.jsonl"'})

    # ------------------------------------------------------------------ records
    @app.get("/api/games/{game_id}/hands")
    def game_hands(game_id: str, answer=Depends(pick)) -> dict:
        """The game's finished hands for the viewer, or one replayed (as
        ``/api/records/{path}``)."""
        game = games.get(game_id)
        with game.lock:
            records = game.public_records()
        return answer(records_of(records))

    @lru_cache(maxsize=2)
    def parsed_file(rel: str, stamp: tuple) -> dict:
        return parse_records(folder.read(rel))

    def open_file(rel: str) -> dict:
        if folder is None:
            raise WebError("no records folder is served (texas42 serve --records DIR); "
                           "upload a file instead", status=404)
        stat = folder.path(rel).stat()
        return parsed_file(rel, (stat.st_mtime_ns, stat.st_size))

    @app.get("/api/records")
    def list_records() -> dict:
        """The record files of the served folder."""
        if folder is None:
            return {"enabled": False, "files": [], "truncated": False}
        files, cut = folder.files()
        return {"enabled": True, "files": files, "truncated": cut}

    @app.get("/api/records/{path:path}")
    def read_file(path: str, answer=Depends(pick)) -> dict:
        """A file's hands (without ``hand``), or hand ``hand`` replayed frame by frame
        (with the solver's verdicts under ``analyse``)."""
        return answer(open_file(path))

    @app.post("/api/uploads", status_code=201)
    async def upload(request: Request) -> dict:
        """A records file's text (the body, JSON Lines or one JSON record) kept for the
        viewer; its index."""
        kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
        if kind not in UPLOAD_TYPES:
            raise WebError(f"an upload is sent as {' or '.join(UPLOAD_TYPES)}, not "
                           f"{kind[:60] or 'no content type'}", status=415)
        body = await request.body()
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise WebError(f"the upload is not UTF-8 text (byte {e.start})") from None
        parsed = await run_in_threadpool(parse_records, text)
        if not parsed["records"] and parsed["error"] is None:
            raise WebError("the upload holds no records")
        key = uploads.add(parsed)
        return {"id": key, **index(parsed)}

    @app.get("/api/uploads/{upload_id}")
    def read_upload(upload_id: str, answer=Depends(pick)) -> dict:
        """An uploaded file's hands, or one hand replayed (as ``/api/records/{path}``)."""
        return answer(uploads.get(upload_id))

    return app
