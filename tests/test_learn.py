"""``tableref profile learn``: draft profiles from simulated photos of single tiles.

Each photo is rendered by the simulator from a profile holding only that tile, placed with a
small turn, the camera 500-700 mm above and tilted up to 10 degrees; what is learned is compared
with the nominal tile the photo was made from.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner
from shapely.geometry import Polygon

from calibration.camera import CameraFile, CameraModel, Intrinsics, IntrinsicsPart, Pose, PosePart
from calibration.learn import board_shape, find_tile, learn_profile, parse_size_mm
from calibration.model import TilePlacement, rot2
from calibration.nominal import BUILDERS
from calibration.profile import BoardProfile, ProfileFile
from referee.cli import main
from simulator import art
from simulator.render import render_scene
from simulator.scene import Lighting, SceneFile, Sensor
from tableref.errors import BoardNotFound, InputError
from tableref.files import write_bytes, write_image, write_json

# ------------------------------------------------------------------------------------------ helpers

def single_tile_photo(out_dir: Path, game: str, tile_id: str, *, rot_deg: float, height: float, tilt: float,
                      az: float, size=(1280, 960), k1: float = 0.0, style: str = "walnut", seed: int = 1):
    """Render one tile lying on a table; returns (photo path, scene, nominal tile, camera)."""
    nominal = BUILDERS[game]()
    tile = next(t for t in nominal.tiles if t.id == tile_id).model_copy(update={"image": None})
    prof = ProfileFile(game=game, name=f"only {tile_id}", tiles=[tile], pieces=nominal.pieces)
    ppath = out_dir / f"profile-{tile_id}.json"
    write_json(ppath, prof)
    c = np.array(tile.size_mm) / 2
    pl = TilePlacement(tile=tile_id, rotation_deg=rot_deg, offset_mm=tuple(c - rot2(rot_deg) @ c))
    d = height * math.tan(math.radians(tilt))
    eye = [c[0] + d * math.cos(math.radians(az)), c[1] + d * math.sin(math.radians(az)), -height]
    pose = Pose.look_at(eye, [c[0], c[1], 0.0])
    w, h = size
    corners = pl.to_table(np.asarray(tile.outline_polygon().exterior.coords)[:-1])
    f = 0.8 * w
    for _ in range(5):  # the tile fills 80 % of the frame
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
        cam = CameraModel(Intrinsics((w, h), K, np.array([k1, 0.0, 0.0, 0.0, 0.0])), pose)
        ext = np.ptp(cam.project_plane(corners), axis=0)
        f *= min(0.8 * w / ext[0], 0.8 * h / ext[1])
    scene = SceneFile(game=game, profile=str(ppath), seed=seed, intrinsics=IntrinsicsPart.of(cam.intrinsics),
                      pose=PosePart.of(cam.pose), placements=[pl], table_style=style,
                      lighting=Lighting(lamp_mm=(c[0] + 300, c[1] - 250, -1500.0), gradient=(0.1, -0.05)),
                      sensor=Sensor(noise=2.5, blur_px=0.7, jpeg_quality=88))
    res = render_scene(scene, supersample=1)
    photo = out_dir / f"{tile_id}.jpg"
    write_bytes(photo, res.jpeg)
    return photo, scene, tile, cam


def aligned_correlation(picture: np.ndarray, reference: np.ndarray, ppm: float, outline_mm: np.ndarray) -> float:
    """Normalised correlation of two top-down pictures (detail only: illumination removed), after
    aligning them by phase correlation, over the tile's inside."""
    def detail(img):
        g = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.5 * ppm)
        return g - cv2.GaussianBlur(g, (0, 0), 10 * ppm)

    a, b = detail(picture), detail(reference)
    m = np.zeros(a.shape, np.float32)
    inner = Polygon(outline_mm).buffer(-5.0)
    cv2.fillPoly(m, [np.rint(np.asarray(inner.exterior.coords) * ppm).astype(np.int32)], 1.0)
    (dx, dy), _ = cv2.phaseCorrelate(b * m, a * m, cv2.createHanningWindow(a.shape[::-1], cv2.CV_32F))
    assert abs(dx) < 3 * ppm and abs(dy) < 3 * ppm, (dx, dy)  # already aligned to within a few mm
    a = cv2.warpAffine(a, np.float32([[1, 0, -dx], [0, 1, -dy]]), a.shape[::-1])
    sel = m > 0
    x, y = a[sel] - a[sel].mean(), b[sel] - b[sel].mean()
    return float((x * y).sum() / np.sqrt((x * x).sum() * (y * y).sum()))


def iou(a, b) -> float:
    return a.intersection(b).area / a.union(b).area


# ---------------------------------------------------------------------------------- Pitch Fleet

PF_VIEWS = {
    "mercury": {"rot_deg": -6.0, "height": 560.0, "tilt": 8.0, "az": 200.0, "style": "grey_cloth", "k1": -0.02, "seed": 3},
    "saturn": {"rot_deg": 5.0, "height": 640.0, "tilt": 5.0, "az": 70.0, "style": "walnut", "k1": -0.02, "seed": 4},
    "uranus": {"rot_deg": 3.0, "height": 520.0, "tilt": 10.0, "az": 310.0, "style": "green_felt", "k1": 0.0, "seed": 5},
}


@pytest.mark.parametrize("planet", sorted(PF_VIEWS))
def test_pitchfleet_tile_zones_and_kinds(tmp_path, planet):
    photo, _, tile, _ = single_tile_photo(tmp_path, "pitchfleet", planet, **PF_VIEWS[planet])
    profile, learned = learn_profile([photo], "pitchfleet", tile.size_mm)
    lt = learned[0]
    got = lt.tile
    assert got.id == planet and got.image == f"{planet}.jpg" and profile.nominal is False
    assert "draft" in profile.notes.lower()

    # the rectified picture is the tile as printed
    outline = board_shape("pitchfleet", tile.size_mm)
    corr = aligned_correlation(lt.picture, art.tile_art("pitchfleet", tile, 4.0), 4.0, outline)
    assert corr > 0.8, corr

    # every nominal zone is found (IoU >= 0.9 with its nominal polygon), and nothing else
    assert len(got.zones) == len(tile.zones), [z.id for z in got.zones]
    right = 0
    for z in tile.zones:
        best = max(got.zones, key=lambda g: iou(g.geometry(), z.geometry()))
        score = iou(best.geometry(), z.geometry())
        assert score >= 0.9, (planet, z.id, score)
        assert best.attributes["guessed"] is True and 0 < best.attributes["confidence"] <= 1
        if best.kind == z.kind and (z.kind != "satellite" or best.stars == z.stars):
            right += 1
    assert right >= len(tile.zones) - 1, f"{planet}: {right} of {len(tile.zones)} kinds (and stars) right"
    if planet == "saturn":  # the ring belt keeps its hole
        ring = max(got.zones, key=lambda g: iou(g.geometry(), tile.zones[-1].geometry()))
        assert ring.kind == "asteroid_belt" and len(ring.holes) == 1


# ---------------------------------------------------------------------------------------- PitRush

def test_pitrush_board_pits_and_seats_through_the_camera_file(tmp_path):
    """A strongly distorting lens, corrected with the camera.json of the camera that took the photo."""
    photo, _, tile, cam = single_tile_photo(tmp_path, "pitrush", "board", rot_deg=7.0, height=680.0, tilt=6.0,
                                            az=300.0, size=(2000, 1500), k1=-0.1, style="grey_cloth", seed=5)
    camera = tmp_path / "camera.json"
    write_json(camera, CameraFile(intrinsics=IntrinsicsPart.of(cam.intrinsics), rms_px=0.2))
    _, learned = learn_profile([photo], "pitrush", tile.size_mm, camera=camera)
    got = learned[0].tile
    assert got.outline is not None and len(got.outline) == 6 and got.thickness_mm == tile.thickness_mm

    corr = aligned_correlation(learned[0].picture, art.tile_art("pitrush", tile, 4.0), 4.0,
                               board_shape("pitrush", tile.size_mm))
    assert corr > 0.8, corr

    assert len(got.pits) == 19
    for p in tile.pits:
        q = min(got.pits, key=lambda g: math.dist(g.center, p.center))
        assert math.dist(q.center, p.center) <= 1.0, (p.id, q.center, p.center)
        assert abs(q.radius - p.radius) <= 1.0, (p.id, q.radius)
    # the six painted shooting lines, each near its nominal seat's line
    assert len(got.seats) == 6
    for s in tile.seats:
        mid = np.mean(s.shooting_line, axis=0)
        q = min(got.seats, key=lambda g: np.linalg.norm(np.mean(g.shooting_line, axis=0) - mid))
        assert np.linalg.norm(np.mean(q.shooting_line, axis=0) - mid) < 2.0
        assert q.shooting_area is not None and Polygon(q.shooting_area).intersects(Polygon(s.shooting_area))


# -------------------------------------------------------------------------------------- Galaktico

def test_galaktico_sector_grid(tmp_path):
    photo, _, tile, _ = single_tile_photo(tmp_path, "galaktico", "sector2", rot_deg=-5.0, height=600.0, tilt=9.0,
                                          az=120.0, style="oak", k1=-0.01, seed=6)
    _, learned = learn_profile([photo], "galaktico", tile.size_mm)
    got = learned[0].tile
    corr = aligned_correlation(learned[0].picture, art.tile_art("galaktico", tile, 4.0), 4.0,
                               board_shape("galaktico", tile.size_mm))
    assert corr > 0.8, corr
    assert len(got.grids) == 1
    g, ref = got.grids[0], tile.grids[0]
    assert (g.rows, g.cols) == (ref.rows, ref.cols)
    for mine, theirs in ((g.u, ref.u), (g.v, ref.v)):
        assert abs(np.linalg.norm(mine) / np.linalg.norm(theirs) - 1) < 0.01, (mine, theirs)
        assert np.degrees(np.arccos(np.dot(mine, theirs) / np.linalg.norm(mine) / np.linalg.norm(theirs))) < 1.0
    assert math.dist(g.origin, ref.origin) < 1.5


# ------------------------------------------------------------------------------ CLI and bad input

def synthetic_photo(path: Path, game: str, tile_id: str, turn_deg: float = 4.0, style: str = "walnut") -> None:
    """A quick photo: the tile's art pasted on a table with a small turn and perspective."""
    tile = next(t for t in BUILDERS[game]().tiles if t.id == tile_id)
    s = 3.0
    pic = art.tile_art(game, tile, s)
    W, H = 1000, 800
    img = art.table_texture(W, H, 1.2, style, 7).copy()
    src = np.float32([[0, 0], [pic.shape[1], 0], [pic.shape[1], pic.shape[0]], [0, pic.shape[0]]])
    c = np.array([W / 2, H / 2])
    R = rot2(turn_deg)
    half = np.array([pic.shape[1], pic.shape[0]]) / 2 * 1.05
    dst = np.float32([c + R @ (v * half) for v in ([-1, -1], [1, -1], [1.03, 1], [-1.03, 1])])
    M = cv2.getPerspectiveTransform(src, dst)
    warped = cv2.warpPerspective(pic, M, (W, H))
    mask = cv2.warpPerspective(np.full(pic.shape[:2], 255, np.uint8), M, (W, H))
    img[mask > 127] = warped[mask > 127]
    write_image(path, cv2.GaussianBlur(img, (0, 0), 0.7))


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def one_line_error(r, *fragments: str) -> str:
    stderr = r.stderr
    code = r.returncode if hasattr(r, "returncode") else r.exit_code
    assert code == 2, (code, r.stdout, stderr)
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("tableref: error: "), stderr
    assert "Traceback" not in stderr
    for f in fragments:
        assert f in lines[0], lines[0]
    return lines[0]


def test_cli_learns_a_draft_that_loads(tmp_path):
    photos = tmp_path / "photos"
    photos.mkdir()
    synthetic_photo(photos / "IMG_0001.jpg", "pitchfleet", "earth")
    out = tmp_path / "draft" / "pf.json"
    r = CliRunner().invoke(main, ["profile", "learn", "--game", "pitchfleet", "--size-mm", "200x200", "--ids", "earth",
                                  "--px-per-mm", "3", str(photos / "IMG_0001.jpg"), "-o", str(out)])
    assert r.exit_code == 0, (r.output, r.stderr)
    assert "planet" in r.stdout and "DRAFT" in r.stdout
    prof = BoardProfile.load(out)  # validated by the profile model
    assert prof.data.nominal is False and [t.id for t in prof.tiles] == ["earth"]
    img, ppm = prof.load_tile_image(prof.tile("earth"))
    assert img.shape[:2] == (600, 600) and ppm == pytest.approx(3.0)
    kinds = sorted(z.kind for z in prof.tile("earth").zones)
    assert kinds == sorted(z.kind for z in BUILDERS["pitchfleet"]().tiles[2].zones), kinds


def test_cli_bad_input_is_one_line_and_writes_nothing(tmp_path):
    good = tmp_path / "mercury.jpg"
    synthetic_photo(good, "pitchfleet", "mercury")
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg \xff\xd9")
    table = tmp_path / "table.jpg"
    write_image(table, art.table_texture(900, 700, 1.5, "oak", 3))
    out = tmp_path / "out" / "draft.json"
    cases = [
        (["--size-mm", "200x200", str(tmp_path / "missing.jpg")], ["missing.jpg", "no such image"]),
        (["--size-mm", "200x200", str(corrupt)], ["corrupt.jpg"]),
        (["--size-mm", "200 by 200", str(good)], ["--size-mm", "WxH"]),
        (["--size-mm", "200x0", str(good)], ["--size-mm"]),
        (["--size-mm", "200x200", str(table)], ["board not found", "table.jpg"]),
        (["--size-mm", "200x200", "--ids", "a,b", str(good)], ["--ids"]),
        (["--size-mm", "200x200", "--camera", str(tmp_path / "nocam.json"), str(good)], ["nocam.json"]),
        (["--size-mm", "200x200", str(good), str(table)], ["board not found", "table.jpg"]),  # all or nothing
    ]
    runner = CliRunner()
    for args, fragments in cases:
        r = runner.invoke(main, ["profile", "learn", "--game", "pitchfleet", *args, "-o", str(out)])
        one_line_error(r, *fragments)
        assert not out.parent.exists(), args
    # the tile pictures would overwrite the photo: refused before anything is written
    r = runner.invoke(main, ["profile", "learn", "--game", "pitchfleet", "--size-mm", "200x200", str(good),
                             "-o", str(tmp_path / "draft.json")])
    one_line_error(r, "overwrite")
    assert not (tmp_path / "draft.json").exists() and good.read_bytes()[:2] == b"\xff\xd8"
    # and the real entry point says the same in one line
    one_line_error(run("profile", "learn", "--game", "pitchfleet", "--size-mm", "huge", str(good), "-o", str(out)),
                   "--size-mm")
    assert not out.parent.exists()


def test_size_and_shape_helpers():
    assert parse_size_mm("200x200") == (200.0, 200.0)
    assert parse_size_mm(" 600 x 519.6 ") == (600.0, 519.6)
    for bad in ("200", "x200", "200x", "-5x5", "0x200", "abc"):
        with pytest.raises(InputError):
            parse_size_mm(bad)
    hexagon = board_shape("pitrush", (600.0, 519.615))
    assert len(hexagon) == 6 and np.allclose(np.ptp(hexagon, axis=0), (600.0, 519.615), atol=0.01)
    rhombus = board_shape("galaktico", (360.0, 207.846))
    assert len(rhombus) == 4 and Polygon(rhombus).area == pytest.approx(240 * 207.846, rel=1e-3)
    with pytest.raises(BoardNotFound):
        find_tile(np.full((480, 640, 3), 120, np.uint8), board_shape("pitchfleet", (200.0, 200.0)))
