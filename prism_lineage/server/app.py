"""The explorer's web application (Starlette): the JSON API and the pages.

Addresses (docs/explorer.md):

* ``/explorer?asset=<full name>&direction=upstream|downstream|both&depth=N`` — the explorer;
* ``/assets/<full name>`` — an asset's record (Overview with the one hop, Lineage tab);
* ``/changes?base=<git revision>[&state=proposed]`` — a change set's page for review;
* ``/api/v1/lineage?asset=…&direction=…&depth=…``, ``/api/v1/impact?asset=…``,
  ``/api/v1/assets?q=…`` — the CLI's ``-o json`` answers, byte for byte (``answers.py``);
  ``/api/v1/review?base=…&state=…`` — ``prism-lineage review -o json``; ``/api/v1/status`` —
  which sync the answers are as of and whether one is running;
* ``POST /api/v1/lineage`` — one OpenLineage event recorded as observed edges (``lineage.write``).

Every answer is read per request for the request's credential (``auth.py``): the page holds
nothing the credential may not see, because nothing else is ever sent to it.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from . import answers
from .answers import Located, Reply
from .auth import SESSION_COOKIE, Authority, LoginRequired

HERE = Path(__file__).resolve().parent
MAX_EVENT_BYTES = 2 * 1024 * 1024  # openlineage.events.MAX_EVENT_BYTES: one event, as `observe` takes it
TEMPLATES = Jinja2Templates(directory=str(HERE / "templates"))
# The pages load scripts and styles from this server only; no inline script runs.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",  # every answer is one credential's
}


class Explorer:
    """What one server serves: an environment of an index, and how it decides credentials."""

    def __init__(self, where: Located, authority: Authority, watcher=None, observations=None):
        self.where = where
        self.authority = authority
        self.watcher = watcher
        self.observations = observations or answers.Observations()

    def relocate(self) -> None:
        """After a sync: the project may have been synced for the first time."""
        if self.where.project_dir is not None:
            self.where = answers.locate(self.where.index, self.where.project_dir, self.where.environment)

    def status(self) -> dict:
        from ..control.store import StoreError, read_meta

        as_of = None
        store = self.where.store
        if store is not None:
            try:
                meta = read_meta(store)
                epoch = meta.get("epoch")
                as_of = {"epoch": int(epoch) if epoch else None, "revision": meta.get("revision"),
                         "synced_at": meta.get("synced_at")}
            except (StoreError, OSError, Exception):  # noqa: BLE001 - being replaced: say nothing yet
                as_of = None
        sync = self.watcher.state.to_dict() if self.watcher is not None else {"watching": False, "syncing": False}
        return {"project": self.where.project, "environment": self.where.environment,
                "synced": store is not None, "as_of": as_of, **sync}


def create_app(explorer: Explorer) -> Starlette:
    def credential_or_none(request: Request):
        return explorer.authority.credential(request.headers, request.cookies)

    def api(handler):
        def endpoint(request: Request) -> Response:
            try:
                credential = credential_or_none(request)
            except LoginRequired as error:
                body = answers.refusal_json("login_required", str(error))
                return _json(Reply(401, body), {"WWW-Authenticate": 'Bearer realm="prism-lineage"'})
            return _json(handler(request, credential))

        return endpoint

    def api_lineage(request: Request, credential):
        q = request.query_params
        return answers.lineage(explorer.where, credential, q.get("asset"), q.get("direction"), q.get("depth"))

    def api_impact(request: Request, credential):
        return answers.impact(explorer.where, credential, request.query_params.get("asset"))

    def api_assets(request: Request, credential):
        return answers.assets(explorer.where, credential, request.query_params.get("q"))

    def api_review(request: Request, credential):
        q = request.query_params
        return answers.review(explorer.where, credential, q.get("base"), q.get("state"))

    def api_status(request: Request, credential):
        return Reply(200, json.dumps(explorer.status(), indent=2) + "\n")

    async def api_observe(request: Request) -> Response:
        try:
            credential = credential_or_none(request)
        except LoginRequired as error:
            body = answers.refusal_json("login_required", str(error))
            return _json(Reply(401, body), {"WWW-Authenticate": 'Bearer realm="prism-lineage"'})
        limit = MAX_EVENT_BYTES + 1  # read no more than it takes to know a body is too large
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) >= limit:
                break
        from starlette.concurrency import run_in_threadpool

        return _json(await run_in_threadpool(explorer.observations.post, explorer.where, credential, bytes(body)))

    def page(template: str, title: str):
        def endpoint(request: Request) -> Response:
            try:
                credential = credential_or_none(request)
            except LoginRequired:
                target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                return RedirectResponse(f"/login?next={quote(target, safe='')}", status_code=303)
            return _page(request, template, title, credential)

        return endpoint

    def _page(request: Request, template: str, title: str, credential, status: int = 200, **extra) -> Response:
        context = {"title": title, "project": explorer.where.project, "environment": explorer.where.environment,
                   "credential": explorer.authority.describe(credential), "login": explorer.authority.needs_login,
                   "page": template.removesuffix(".html"), **extra}
        response = TEMPLATES.TemplateResponse(request, template, context, status_code=status)
        response.headers.update(SECURITY_HEADERS)
        return response

    def asset_page(request: Request) -> Response:
        try:
            credential = credential_or_none(request)
        except LoginRequired:
            return RedirectResponse(f"/login?next={quote(request.url.path, safe='')}", status_code=303)
        name = request.path_params["name"]
        # The one hop (depth 1, both directions): the record's Overview is drawn from it; a name
        # hidden from the credential is refused exactly as one that does not exist.
        reply = answers.lineage(explorer.where, credential, name, "both", 1)
        refusal = json.loads(reply.body)["error"]["message"] if reply.refused else None
        return _page(request, "asset.html", name, credential, status=reply.status if reply.refused else 200,
                     asset=name, refusal=refusal, one_hop=None if reply.refused else _embedded(reply.body))

    async def login(request: Request) -> Response:
        authority = explorer.authority
        next_page = _safe_next(request.query_params.get("next"))
        if not authority.needs_login:
            return RedirectResponse(next_page, status_code=303)
        message = None
        if request.method == "POST":
            body = bytearray()
            async for chunk in request.stream():
                body += chunk
                if len(body) > 16_384:  # a name and a secret: anything larger is not a login
                    return Response("login form too large\n", status_code=413, media_type="text/plain")
            form = parse_qs(bytes(body).decode("utf-8", errors="replace"), keep_blank_values=True)
            name = (form.get("name") or [""])[0]
            secret = (form.get("secret") or [""])[0]
            next_page = _safe_next((form.get("next") or [next_page])[0])
            session = authority.open_session(name, secret)
            if session is not None:
                response = RedirectResponse(next_page, status_code=303)
                response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict", path="/")
                return response
            message = "That name and secret do not match a credential of this server."
        context = {"title": "Log in", "project": explorer.where.project, "environment": explorer.where.environment,
                   "credential": None, "login": True, "page": "login", "next": next_page, "message": message}
        response = TEMPLATES.TemplateResponse(request, "login.html", context, status_code=401 if message else 200)
        response.headers.update(SECURITY_HEADERS)
        return response

    async def logout(request: Request) -> Response:
        explorer.authority.close_session(request.cookies.get(SESSION_COOKIE))
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    def home(request: Request) -> Response:
        return RedirectResponse("/explorer", status_code=303)

    routes = [
        Route("/", home),
        Route("/explorer", page("explorer.html", "Lineage")),
        Route("/assets/{name:path}", asset_page),
        Route("/changes", page("changes.html", "Change set")),
        Route("/login", login, methods=["GET", "POST"]),
        Route("/logout", logout, methods=["POST"]),
        Route("/api/v1/lineage", api(api_lineage), methods=["GET", "HEAD"]),
        Route("/api/v1/lineage", api_observe, methods=["POST"]),
        Route("/api/v1/impact", api(api_impact)),
        Route("/api/v1/assets", api(api_assets)),
        Route("/api/v1/review", api(api_review)),
        Route("/api/v1/status", api(api_status)),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.explorer = explorer
    return app


def _json(reply: Reply, headers: dict | None = None) -> Response:
    response = Response(reply.body, status_code=reply.status, media_type="application/json")
    response.headers.update(SECURITY_HEADERS)
    if headers:
        response.headers.update(headers)
    return response


def _embedded(body: str) -> str:
    """An answer's JSON to hold in a ``<script type="application/json">``: ``<`` escaped so the
    text can never close the element (JSON reads ``\\u003c`` as ``<``)."""
    return body.replace("<", "\\u003c")


def _safe_next(target: str | None) -> str:
    """Only a path of this server (never another site) after logging in."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/explorer"
    return target
