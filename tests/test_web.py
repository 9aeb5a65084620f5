"""The web UI (`tableref serve`): calibration editor, match log, live view; and the match log itself.

The calibration is made once from the bundled photo of the empty Pitch Fleet table; every test that
edits it works on its own copy.  The browser test drives Debian's chromium through Playwright and is
skipped (with the reason) where either is missing.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import socket
import sqlite3
import threading
import time
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest

fastapi = pytest.importorskip("fastapi", reason="the web UI needs the 'web' extra (FastAPI)")

with warnings.catch_warnings():  # starlette's notice about httpx, not ours
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from calibration.api import calibrate_board_files
from calibration.model import Calibration
from referee.log import SCHEMA_VERSION, MatchLog, UnknownMatch
from referee.web import LiveState, create_app
from referee.web.editor import fit_rigid
from rules.base import Event
from tableref.errors import InputError

ROOT = Path(__file__).resolve().parent.parent
EMPTY = ROOT / "fixtures" / "scenes" / "pitchfleet" / "empty.jpg"
ARENA = ROOT / "fixtures" / "games" / "pitrush-arena"
CHROMIUM = Path("/usr/bin/chromium")



@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """A calibration of the bundled empty Pitch Fleet table (with its reference photo beside it)."""
    d = tmp_path_factory.mktemp("calibration")
    calibrate_board_files(EMPTY, "pitchfleet", None, d / "calibration.json", None)
    return d / "calibration.json"


@pytest.fixture
def cal_path(made, tmp_path) -> Path:
    """A private copy of the calibration for a test that edits it."""
    for f in made.parent.iterdir():
        if f.name.startswith("calibration."):
            shutil.copy2(f, tmp_path / f.name)
    return tmp_path / "calibration.json"


def client(cal: Path | None = None, log: Path | None = None, live: LiveState | None = None) -> TestClient:
    return TestClient(create_app(cal, log, live))


def ring_of(cal: Calibration, tile: str) -> np.ndarray:
    """The tile's own corners (tile mm), as the editor orders them."""
    from calibration.model import Layout
    from vision.api import profile_of

    pl = next(p for p in cal.data.placements if p.tile == tile)
    return pl.to_tile(Layout(profile_of(cal), cal.data.placements).tile_corners(pl))


# ------------------------------------------------------------------------------- the editor

def test_editor_pages_and_overlay_load(cal_path):
    c = client(cal_path)
    assert "Calibration editor" in c.get("/").text
    page = c.get("/calibration")
    assert page.status_code == 200 and "/static/editor.js" in page.text and "<svg" in page.text
    for name in ("editor.js", "style.css", "live.js"):
        assert c.get(f"/static/{name}").status_code == 200
    assert c.get("/static/app.py").status_code == 404  # only the page assets are served
    st = c.get("/calibration/state.json").json()
    assert st["image_size"] == [1920, 1080] and len(st["tiles"]) == 9
    assert all(len(t["corners_px"]) == 4 for t in st["tiles"])
    assert {"planet", "satellite", "charging_satellite", "asteroid_belt"} <= set(st["zone_kinds"])
    assert st["zones"] and st["problems"] == []
    png = c.get("/calibration/overlay.png")
    assert png.status_code == 200 and png.headers["content-type"] == "image/png"
    img = cv2.imdecode(np.frombuffer(png.content, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape == (1080, 1920, 3)
    photo = cv2.imdecode(np.frombuffer(c.get("/calibration/photo").content, np.uint8), cv2.IMREAD_COLOR)
    assert photo.shape == img.shape and np.abs(img.astype(int) - photo).sum() > 0  # something was drawn


def test_fit_rigid_recovers_a_motion():
    rng = np.random.default_rng(1)
    src = rng.uniform(0, 200, (6, 2))
    a = math.radians(33.0)
    dst = src @ np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]]).T + [12.5, -40.0]
    deg, t, rms = fit_rigid(src, dst)
    assert deg == pytest.approx(33.0) and t == pytest.approx([12.5, -40.0]) and rms < 1e-9


def test_moving_a_tile_refits_its_placement_only(cal_path):
    before = Calibration.load(cal_path)
    raw = cal_path.read_bytes()
    c = client(cal_path)
    st = c.get("/calibration/state.json").json()
    tile = st["tiles"][0]
    tid = tile["id"]
    moved = np.asarray(tile["corners_px"]) + [20.0, 0.0]
    r = c.post("/calibration/save", json={"tiles": {tid: moved.tolist()}, "revision": st["revision"]})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["problems"] == [] and out["saved"] == str(cal_path)

    after = Calibration.load(cal_path)  # a valid calibration file
    assert after.problems() == []
    assert Path(str(cal_path) + ".bak").read_bytes() == raw  # the previous file is kept

    # the corners go through the camera onto the board; the rigid tile is fitted to them
    cam = before.camera
    target = cam.backproject(moved)
    ring = ring_of(before, tid)
    deg, t, rms = fit_rigid(ring, target)
    new = next(p for p in after.data.placements if p.tile == tid)
    old = next(p for p in before.data.placements if p.tile == tid)
    assert new.offset_mm == pytest.approx(tuple(t), abs=1e-6)
    assert (new.rotation_deg - deg + 180.0) % 360.0 - 180.0 == pytest.approx(0.0, abs=1e-6)
    assert out["residual_mm"] == pytest.approx(rms) and rms < 2.0
    # least squares puts the tile's corner centroid on the back-projected corners' centroid
    assert new.to_table(ring).mean(axis=0) == pytest.approx(target.mean(axis=0), abs=1e-6)
    shift = np.subtract(new.offset_mm, old.offset_mm)
    mm_per_px = float(np.mean(cam.mm_per_px_at(old.to_table(ring))))
    assert 0.5 * 20 * mm_per_px < np.linalg.norm(shift) < 1.5 * 20 * mm_per_px
    assert abs(new.rotation_deg - old.rotation_deg) < 2.0
    # its zones moved with it; every other tile and the camera are untouched
    for p_old, p_new in zip(before.data.placements, after.data.placements):
        if p_old.tile != tid:
            assert p_new == p_old
    assert after.data.intrinsics == before.data.intrinsics and after.data.pose == before.data.pose
    for z_old, z_new in zip(before.data.zones, after.data.zones):
        assert z_new.id == z_old.id and z_new.kind == z_old.kind
        if z_old.id.startswith(tid + "/"):
            assert np.asarray(z_new.polygon) == pytest.approx(new.to_table(old.to_tile(z_old.polygon)), abs=1e-3)
        else:
            assert z_new.polygon == z_old.polygon
    assert after.data.quality.reprojection_rms_px == before.data.quality.reprojection_rms_px
    assert "edited by hand" in after.data.quality.notes[-1] and tid in after.data.quality.notes[-1]
    # the page sees the new revision
    st2 = c.get("/calibration/state.json").json()
    assert st2["revision"] == out["revision"] != st["revision"]
    assert np.asarray(next(t for t in st2["tiles"] if t["id"] == tid)["corners_px"]) == pytest.approx(moved, abs=3.0)


def test_relabelled_zone_is_saved_and_survives_a_later_move(cal_path):
    c = client(cal_path)
    st = c.get("/calibration/state.json").json()
    zone = next(z for z in st["zones"] if z["kind"] == "satellite")
    r = c.post("/calibration/save", json={"zones": {zone["id"]: "charging_satellite"}})
    assert r.status_code == 200, r.text
    assert r.json()["zones"] == {zone["id"]: {"from": "satellite", "to": "charging_satellite"}}
    saved = Calibration.load(cal_path)
    assert next(z for z in saved.data.zones if z.id == zone["id"]).kind == "charging_satellite"
    assert saved.data.placements == Calibration.load(str(cal_path) + ".bak").data.placements
    # moving a tile rebuilds the zones from the profile: the hand-set kind is kept
    st = c.get("/calibration/state.json").json()
    tile = next(t for t in st["tiles"] if t["id"] == zone["tile"])
    moved = (np.asarray(tile["corners_px"]) + [0.0, -6.0]).tolist()
    assert c.post("/calibration/save", json={"tiles": {tile["id"]: moved}}).status_code == 200
    again = Calibration.load(cal_path)
    assert next(z for z in again.data.zones if z.id == zone["id"]).kind == "charging_satellite"
    assert next(z for z in c.get("/calibration/state.json").json()["zones"]
                if z["id"] == zone["id"])["profile_kind"] == "satellite"


@pytest.mark.parametrize("body, status, words", [
    ({"tiles": {"nonesuch": [[1, 1]] * 4}}, 422, "unknown tile"),
    ({"tiles": {"TILE": [[900, 500]] * 3}}, 422, "3 corner(s) given"),
    ({"tiles": {"TILE": [[-40, 500], [900, 500], [900, 600], [800, 600]]}}, 422, "outside the 1920x1080 image"),
    ({"tiles": {"TILE": [[2500, 500], [900, 500], [900, 600], [800, 600]]}}, 422, "outside"),
    ({"zones": {"mercury/nonesuch": "planet"}}, 422, "unknown zone id"),
    ({"zones": {"mercury/planet": "dragon"}}, 422, "unknown zone kind"),
    ({"tiles": {"TILE": "corners"}}, 422, "valid list"),
    ({"tiles": {}, "colour": "red"}, 422, "Extra inputs"),
    ({"zones": {"mercury/planet": "satellite"}, "revision": "0000"}, 409, "changed on disk"),
    ('{"tiles": {"TILE": [[NaN, 1], [1, 2], [3, 4], [5, 6]]}}', 422, "finite number"),
    ('{"tiles": {"TILE": [[1e999, 1], [1, 2], [3, 4], [5, 6]]}}', 422, "finite number"),
    ("{not json", 422, "not valid JSON"),
])
def test_bad_edits_are_refused_and_write_nothing(cal_path, body, status, words):
    c = client(cal_path)
    tid = c.get("/calibration/state.json").json()["tiles"][0]["id"]
    raw = cal_path.read_bytes()
    if isinstance(body, str):
        r = c.post("/calibration/save", content=body.replace("TILE", tid), headers={"content-type": "application/json"})
    else:
        body = json.loads(json.dumps(body).replace("TILE", tid))
        r = c.post("/calibration/save", json=body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert cal_path.read_bytes() == raw and not Path(str(cal_path) + ".bak").exists()


def test_unmoved_corners_change_nothing(cal_path):
    c = client(cal_path)
    st = c.get("/calibration/state.json").json()
    t = st["tiles"][3]
    r = c.post("/calibration/save", json={"tiles": {t["id"]: t["corners_px"]}}).json()
    assert r["saved"] is None and r["residual_mm"] is None and not r["changed"]
    assert not Path(str(cal_path) + ".bak").exists()
    pv = c.post("/calibration/preview", json={"tiles": {t["id"]: (np.asarray(t["corners_px"]) + 3).tolist()}}).json()
    assert t["id"] in pv["tiles"] and not Path(str(cal_path) + ".bak").exists()  # preview writes nothing


def test_app_without_calibration_or_log_says_so():
    c = client()
    assert "No calibration given" in c.get("/").text
    assert c.get("/calibration").status_code == 404
    r = c.post("/calibration/save", json={})
    assert r.status_code == 404 and "--calibration" in r.json()["error"]
    assert c.get("/matches").status_code == 404 and "--log" in c.get("/matches").text


def test_missing_or_broken_calibration_is_refused(tmp_path, cal_path):
    with pytest.raises(InputError, match="no such calibration"):
        create_app(tmp_path / "nope.json", None)
    (cal_path.parent / "calibration.reference.jpg").unlink()
    with pytest.raises(InputError, match="photo of the empty table is missing"):
        create_app(cal_path, None)


def test_serve_refuses_bad_input_in_one_line(tmp_path):
    from click.testing import CliRunner

    from referee.cli import main

    for args, words in ((["--calibration", str(tmp_path / "nope.json")], "no such calibration"),
                        (["--port", "70000"], "not a port"), (["--port", "http"], "not a port")):
        r = CliRunner().invoke(main, ["serve", *args])
        assert r.exit_code == 2, r.output
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("tableref: error: ") and words in lines[0], r.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        r = CliRunner().invoke(main, ["serve", "--port", str(busy.getsockname()[1])])
        assert r.exit_code == 2 and "cannot listen" in r.stderr


# ---------------------------------------------------------------------------- the match log

def test_replay_is_logged_and_shown(tmp_path):
    from referee.replay import replay

    db = tmp_path / "matches.sqlite"
    with MatchLog(db) as log:
        res = replay(ARENA, None, log=log)
        mid = log.last_started
    with MatchLog(db) as log:  # reopened: everything was committed
        (m,) = log.matches()
        assert m.id == mid and m.game == "pitrush" and m.players == res.players
        assert m.finished is not None and m.scores == res.scores == res.expected["scores"]
        got = log.events(mid)
        assert [(e.kind, e.text, e.player, e.points) for e in got] == \
            [(e.kind, e.text, e.player, e.points) for e in res.events]
        assert [e.seq for e in got] == list(range(1, len(got) + 1))
        assert all(e.frame and e.frame.startswith("frames/") for e in got)
        sb = log.scoreboard(mid)
        assert sb["final"] and sb["scores"] == res.scores and sb["winners"] == res.winners
    c = client(None, db)
    page = c.get("/matches")
    assert page.status_code == 200 and f"/matches/{mid}" in page.text
    detail = c.get(f"/matches/{mid}")
    assert detail.status_code == 200
    board = detail.text.split('id=scoreboard>', 1)[1].split("</table>", 1)[0]
    for name, score in zip(res.players, res.scores):
        assert name in board and f"<td class=num>{score}</td>" in board
    assert res.events[0].text.split(" (")[0] in detail.text
    api = c.get(f"/api/matches/{mid}").json()
    assert api["scoreboard"]["scores"] == res.scores and len(api["events"]) == len(res.events)
    assert c.get("/matches/999").status_code == 404
    assert c.get("/api/matches/999").status_code == 404


@dataclasses.dataclass
class _Verdict:
    zone: str


def test_match_log_stores_any_event_data(tmp_path):
    db = tmp_path / "m.sqlite"
    with MatchLog(db) as log:
        a = log.start("pitchfleet", ["Ann", "Bo"], {"table": 3})
        log.add(a, [Event("vp", "Ann lands on mars: +2", 0, 2, {"verdict": _Verdict("mars/planet"), "margin": math.nan,
                                                                  "zones": ("a", "b"), "n": np.int64(3)}),
                    Event("note", "a person confirmed it")], frame="0001.jpg")
        assert log.scoreboard(a)["scores"] == [2, 0] and log.scoreboard(a)["source"] == "event points"
        log.add(a, [Event("vp", "Bo: +1", 1, 1)], scores=[2, 5])
        assert log.scoreboard(a)["scores"] == [2, 5] and not log.scoreboard(a)["final"]
        log.finish(a, {"Ann": 4, "Bo": 5})
        with pytest.raises(InputError, match="finished"):
            log.add(a, [Event("x", "late")])
        with pytest.raises(UnknownMatch):
            log.events(42)
        with pytest.raises(InputError, match="2 scores"):
            log.finish(log.start("pitrush", ["A", "B", "C"], {}), [1, 2])
        e = log.events(a)[0]
        assert e.data == {"verdict": "_Verdict(zone='mars/planet')", "margin": "nan", "zones": ["a", "b"], "n": 3}
        assert e.event() == Event("vp", "Ann lands on mars: +2", 0, 2, e.data) and e.frame == "0001.jpg"
        assert log.scoreboard(a)["winners"] == ["Bo"]
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(InputError, match="newer"):
        MatchLog(db)
    (tmp_path / "notes.txt").write_text("not a database " * 50)
    with pytest.raises(InputError, match="not a match log"):
        MatchLog(tmp_path / "notes.txt")
    with pytest.raises(InputError, match="does not exist"):
        MatchLog(tmp_path / "no" / "such" / "m.sqlite")


def test_replay_cli_writes_the_log(tmp_path, monkeypatch):
    """`tableref replay --log` hands a MatchLog to the replay and says which match it wrote."""
    from click.testing import CliRunner

    import referee.replay as rp
    from referee.cli import main

    def fake(folder, out_dir=None, on_frame=None, log=None):
        assert log is not None
        mid = log.start("pitrush", ["Ann", "Bo"], {"source": "replay"})
        log.add(mid, [Event("pit_score", "Ann in p1: +3", 0, 3)])
        log.finish(mid, [3, 0])
        return rp.ReplayResult("pitrush", None, ["Ann", "Bo"], [Event("pit_score", "Ann in p1: +3", 0, 3)], [3, 0],
                               ["Ann"], 1, 0.1)

    monkeypatch.setattr(rp, "replay", fake)
    db = tmp_path / "m.sqlite"
    r = CliRunner().invoke(main, ["replay", str(ARENA), "--out", str(tmp_path / "out"), "--log", str(db)])
    assert r.exit_code == 0, r.output
    assert f"logged as match 1 in {db}" in r.stdout
    with MatchLog(db) as log:
        assert log.scoreboard(1)["scores"] == [3, 0]


# ---------------------------------------------------------------------------------- live view

def test_live_state_is_served():
    live = LiveState()
    c = client(live=live)
    assert c.get("/live").status_code == 200 and "/static/live.js" in c.get("/live").text
    assert c.get("/live/state.json").json()["seq"] == 0
    assert c.get("/live/frame.jpg").status_code == 404
    img = np.full((120, 160, 3), (0, 128, 255), np.uint8)
    live.update(img, {"pieces": [{"kind": "disc"}]}, [Event("pit_score", "Ann in p1: +3", 0, 3), "a note"],
                {"Ann": 3, "Bo": 0})
    img[:] = 0  # the state keeps its own copy
    s = c.get("/live/state.json").json()
    assert s["seq"] == 1 and s["has_frame"] and s["new_events"] == 2
    assert [e["text"] for e in s["events"]] == ["Ann in p1: +3", "a note"]
    assert s["scoreboard"] == [{"player": "Ann", "score": 3}, {"player": "Bo", "score": 0}]
    assert s["judgement"] == {"pieces": [{"kind": "disc"}]}
    jpg = cv2.imdecode(np.frombuffer(c.get("/live/frame.jpg").content, np.uint8), cv2.IMREAD_COLOR)
    assert jpg.shape == (120, 160, 3) and abs(int(jpg[60, 80, 2]) - 255) < 8

    def writer(k):
        for i in range(50):
            live.update(np.full((8, 8, 3), i, np.uint8), None, [f"{k}:{i}"], [("Ann", i), ("Bo", k)])

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for _ in range(20):
        assert c.get("/live/state.json").status_code == 200
        live.frame_jpeg()
    for t in threads:
        t.join()
    assert live.snapshot()["seq"] == 201 and len(live.snapshot(max_events=500)["events"]) == 200


# ------------------------------------------------------------------------------- the browser

def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright)"
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is missing (apt-get install chromium)"
    return None


class _Server:
    """uvicorn serving an app on a free port of 127.0.0.1, in a thread."""

    def __init__(self, app):
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        t0 = time.time()
        while not self.server.started:
            if time.time() - t0 > 20:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def test_browser_drags_a_corner_and_saves(cal_path):
    why = _browser_missing()
    if why:
        pytest.skip(f"browser test skipped: {why}")
    from playwright.sync_api import sync_playwright

    before = Calibration.load(cal_path)
    tid = before.data.placements[1].tile
    errors: list[str] = []
    with _Server(create_app(cal_path, None)) as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{url}/calibration")
            page.wait_for_function("document.querySelector('#status').textContent.startsWith('loaded') && "
                                   "document.querySelector('#bg').complete && "
                                   "document.querySelector('#bg').naturalWidth === 1920", timeout=30000)
            page.click(f"#tiles tr[data-tile='{tid}'] td")  # bring the tile's handles to the front
            box = page.locator(f"circle.handle[data-tile='{tid}'][data-index='0']").bounding_box()
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.move(x + 15, y + 5, steps=6)
            page.mouse.up()
            page.wait_for_function(f"document.querySelector(\"#tiles tr[data-tile='{tid}'] .fit-cell\")"
                                   ".textContent.includes('mm')", timeout=10000)
            page.select_option("select[data-zone='mercury/planet']", "asteroid_belt")
            page.click("#save")
            page.wait_for_function("document.querySelector('#status').textContent.startsWith('saved')", timeout=20000)
            status = page.inner_text("#status")
        finally:
            browser.close()
    assert not errors, errors
    after = Calibration.load(cal_path)
    assert Path(str(cal_path) + ".bak").exists() and after.problems() == [], status
    for p_old, p_new in zip(before.data.placements, after.data.placements):
        if p_old.tile == tid:
            assert np.linalg.norm(np.subtract(p_new.offset_mm, p_old.offset_mm)) > 0.5
        else:
            assert p_new == p_old
    assert next(z for z in after.data.zones if z.id == "mercury/planet").kind == "asteroid_belt"
