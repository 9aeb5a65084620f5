"""The web UI of ``tableref serve``: calibration editor, match log, live view (FastAPI).

Every page and script is served by the app itself (no CDN, no build step).  Pages:

* ``/`` -- an index;
* ``/calibration`` -- the calibration editor (photo with the overlay, draggable tile corners,
  zone kinds), with ``/calibration/state.json``, ``/calibration/overlay.png``,
  ``/calibration/photo``, ``POST /calibration/preview`` and ``POST /calibration/save``;
* ``/matches``, ``/matches/{id}`` -- the match log (JSON at ``/api/matches[/{id}]``);
* ``/live`` -- the live view, polling ``/live/state.json`` and ``/live/frame.jpg``.
"""

from __future__ import annotations

import contextlib
import html
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response

from tableref import __version__
from tableref.errors import TablerefError

from .editor import CalibrationEdit, CalibrationEditor, EditError
from .live import LiveState

_STATIC = {"editor.js": "text/javascript", "live.js": "text/javascript", "style.css": "text/css"}
_NO_STORE = {"Cache-Control": "no-store"}


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _e(v: Any) -> str:
    return html.escape("" if v is None else str(v))


def _page(title: str, body: str, status: int = 200) -> HTMLResponse:
    doc = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{_e(title)} - tableref</title><link rel="stylesheet" href="/static/style.css"></head>
<body><nav><a href="/"><b>tableref</b></a> <a href="/calibration">calibration</a> <a href="/matches">matches</a>
<a href="/live">live</a></nav>
<main>{body}</main></body></html>"""
    return HTMLResponse(doc, status_code=status)


def _when(t: float | None) -> str:
    return "" if t is None else datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def _error(status: int, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": message, **extra}, status_code=status)


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        if err.get("type") == "json_invalid":
            parts.append("the body is not valid JSON")
            continue
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{loc or 'body'}: {err.get('msg', 'invalid')}")
    return "bad edit: " + "; ".join(parts)


def create_app(calibration: str | Path | None = None, log: str | Path | None = None,
               live: LiveState | None = None) -> FastAPI:
    """The web UI for a calibration file and a match log (either may be None).

    Raises a :class:`~tableref.errors.TablerefError` now when the calibration (or its photo of the
    empty table) is missing or invalid, or the log is not a match log.  ``live`` is the state the
    live loop updates (a new one if not given; it is ``app.state.live`` either way).
    """
    editor = CalibrationEditor(calibration) if calibration is not None else None
    match_log = None
    if log is not None:
        from referee.log import MatchLog

        match_log = MatchLog(log)
    live = live if live is not None else LiveState()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        if match_log is not None:
            match_log.close()

    app = FastAPI(title="tableref", version=__version__, docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)
    app.state.editor = editor
    app.state.log = match_log
    app.state.live = live

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError):
        detail = [{"loc": [str(p) for p in e.get("loc", ())], "msg": str(e.get("msg", "")), "type": str(e.get("type", ""))}
                  for e in exc.errors()]
        return _error(422, _validation_message(exc), detail=detail)

    @app.exception_handler(EditError)
    async def _bad_edit(request: Request, exc: EditError):
        return _error(exc.status, str(exc))

    @app.exception_handler(TablerefError)
    async def _refused(request: Request, exc: TablerefError):
        from referee.log import UnknownMatch

        return _error(404 if isinstance(exc, UnknownMatch) else 500, str(exc))

    # ------------------------------------------------------------------------------- pages

    @app.get("/", response_class=HTMLResponse)
    def index():
        parts = ["<h1>tableref</h1>"]
        if editor is not None:
            st = editor.state()
            probs = "".join(f"<li class=bad>{_e(p)}</li>" for p in st["problems"]) or "<li>quality within bounds</li>"
            parts.append(f"<h2><a href='/calibration'>Calibration editor</a></h2><p>{_e(st['path'])}: "
                         f"{len(st['tiles'])} tile(s) of {_e(st['profile_name'])} ({_e(st['game'])}), "
                         f"{len(st['zones'])} zone(s)</p><ul>{probs}</ul>")
        else:
            parts.append("<h2>Calibration editor</h2><p>No calibration given: start with "
                         "<code>tableref serve --calibration calibration.json</code>.</p>")
        if match_log is not None:
            n = len(match_log.matches())
            parts.append(f"<h2><a href='/matches'>Match log</a></h2><p>{_e(match_log.path)}: {n} match(es)</p>")
        else:
            parts.append("<h2>Match log</h2><p>No match log given: start with <code>--log matches.sqlite</code>.</p>")
        parts.append("<h2><a href='/live'>Live view</a></h2><p>The latest settled frame, the last events and the "
                     "scoreboard of the game being refereed.</p>")
        return _page("tableref", "\n".join(parts))

    @app.get("/favicon.ico")
    def favicon():
        return Response(status_code=204)

    @app.get("/static/{name}")
    def static(name: str):
        if name not in _STATIC:
            return _error(404, f"no such file: {name}")
        return Response(_asset(name), media_type=_STATIC[name])

    # -------------------------------------------------------------------------- calibration

    def _need_editor() -> CalibrationEditor:
        if editor is None:
            raise EditError("no calibration given: start with tableref serve --calibration calibration.json", 404)
        return editor

    @app.get("/calibration", response_class=HTMLResponse)
    def calibration_page():
        if editor is None:
            return _page("calibration", "<h1>Calibration editor</h1><p>No calibration given: start with "
                         "<code>tableref serve --calibration calibration.json</code>.</p>", 404)
        return HTMLResponse(_asset("editor.html"))

    @app.get("/calibration/state.json")
    def calibration_state():
        return JSONResponse(_need_editor().state(), headers=_NO_STORE)

    @app.get("/calibration/overlay.png")
    def calibration_overlay():
        return Response(_need_editor().overlay_png(), media_type="image/png", headers=_NO_STORE)

    @app.get("/calibration/photo")
    def calibration_photo():
        ed = _need_editor()
        p = ed.load().photo_path
        kind = "image/png" if p.suffix.lower() == ".png" else "image/jpeg"
        return Response(p.read_bytes(), media_type=kind, headers=_NO_STORE)

    @app.post("/calibration/preview")
    def calibration_preview(edit: CalibrationEdit):
        return _need_editor().preview(edit)

    @app.post("/calibration/save")
    def calibration_save(edit: CalibrationEdit):
        return _need_editor().save(edit)

    # ---------------------------------------------------------------------------- match log

    def _no_log() -> HTMLResponse:
        return _page("matches", "<h1>Match log</h1><p>No match log given: start with "
                     "<code>tableref serve --log matches.sqlite</code>.</p>", 404)

    @app.get("/matches", response_class=HTMLResponse)
    def matches_page():
        if match_log is None:
            return _no_log()
        rows = []
        for m in reversed(match_log.matches()):
            title = m.meta.get("title") or ""
            scores = ", ".join(f"{_e(p)} {s}" for p, s in zip(m.players, m.scores)) if m.scores else ""
            state = "finished" if m.finished is not None else "in play"
            rows.append(f"<tr><td><a href='/matches/{m.id}'>{m.id}</a></td><td>{_e(m.game)}</td><td>{_e(title)}</td>"
                        f"<td>{_e(', '.join(m.players))}</td><td>{_when(m.started)}</td><td>{state}</td>"
                        f"<td>{scores}</td><td class=num>{m.n_events}</td></tr>")
        table = ("<table><tr><th>#</th><th>game</th><th>title</th><th>players</th><th>started</th><th></th>"
                 "<th>scores</th><th>events</th></tr>" + "".join(rows) + "</table>") if rows else "<p>No matches yet.</p>"
        return _page("matches", f"<h1>Match log</h1><p>{_e(match_log.path)}</p>{table}")

    @app.get("/matches/{match_id}", response_class=HTMLResponse)
    def match_page(match_id: int):
        from referee.log import UnknownMatch

        if match_log is None:
            return _no_log()
        try:
            m = match_log.match(match_id)
        except UnknownMatch as e:
            return _page("match", f"<h1>Match {match_id}</h1><p class=bad>{_e(e)}</p>", 404)
        sb = match_log.scoreboard(match_id)
        events = match_log.events(match_id)
        label = "Final scores" if sb["final"] else ("Scores so far" if sb["source"] == "running" else
                                                    "Scores so far (sum of the events' points)")
        board = "".join(f"<tr{' class=winner' if r['winner'] else ''}><td>{_e(r['player'])}"
                        f"{' (winner)' if r['winner'] else ''}</td><td class=num>{r['score']}</td></tr>"
                        for r in sb["rows"])
        ev_rows = []
        for e in events:
            who = m.players[e.player] if e.player is not None and 0 <= e.player < len(m.players) else ""
            pts = f"{e.points:+d}" if e.points else ""
            ev_rows.append(f"<tr class='ev-{_e(e.kind)}'><td class=num>{e.seq}</td><td>{_e(e.frame)}</td>"
                           f"<td>{_e(e.kind)}</td><td>{_e(who)}</td><td class=num>{pts}</td><td>{_e(e.text)}</td></tr>")
        meta = "".join(f"<li>{_e(k)}: {_e(v)}</li>" for k, v in m.meta.items() if v not in (None, ""))
        body = (f"<h1>Match {m.id}: {_e(m.meta.get('title') or m.game)}</h1>"
                f"<p>{_e(m.game)}; started {_when(m.started)}"
                + (f", finished {_when(m.finished)}" if m.finished is not None else ", in play") + "</p>"
                f"<ul>{meta}</ul><h2>{label}</h2><table class=scoreboard id=scoreboard>"
                f"<tr><th>player</th><th>score</th></tr>{board}</table>"
                f"<h2>Events ({len(events)})</h2><table class=events><tr><th>#</th><th>frame</th><th>kind</th>"
                f"<th>player</th><th>points</th><th>what happened</th></tr>{''.join(ev_rows)}</table>"
                f"<p><a href='/api/matches/{m.id}'>as JSON</a></p>")
        return _page(f"match {m.id}", body)

    @app.get("/api/matches")
    def matches_json():
        if match_log is None:
            return _error(404, "no match log given: start with tableref serve --log matches.sqlite")
        return [m.to_json() for m in match_log.matches()]

    @app.get("/api/matches/{match_id}")
    def match_json(match_id: int):
        if match_log is None:
            return _error(404, "no match log given: start with tableref serve --log matches.sqlite")
        m = match_log.match(match_id)
        return {"match": m.to_json(), "scoreboard": match_log.scoreboard(match_id),
                "events": [e.to_json() for e in match_log.events(match_id)]}

    # --------------------------------------------------------------------------------- live

    @app.get("/live", response_class=HTMLResponse)
    def live_page():
        return HTMLResponse(_asset("live.html"))

    @app.get("/live/state.json")
    def live_state():
        return JSONResponse(live.snapshot(), headers=_NO_STORE)

    @app.get("/live/frame.jpg")
    def live_frame():
        got = live.frame_jpeg()
        if got is None:
            return _error(404, "no settled frame yet")
        return Response(got[1], media_type="image/jpeg", headers=_NO_STORE)

    return app
