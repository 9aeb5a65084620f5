"""Camera intrinsics calibration (``calibration.intrinsics`` and ``tableref calibrate camera``).

Synthetic views are rendered here: a known board projected through a known camera with lens
distortion at several poses, squares filled at 4x supersampling then area-downsampled, plus noise.
The real photos in /work/shared/realdata (OpenCV's sample data) are outside the repository; those
tests skip when the folder is absent (a clean clone in CI).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from calibration.camera import CameraFile
from calibration.intrinsics import (
    K3_MIN_VIEWS,
    NotEnoughViews,
    Target,
    ViewDetection,
    calibrate_detections,
    calibrate_intrinsics,
    detect_views,
)
from referee.cli import main
from tableref.errors import InputError
from tableref.files import load_model

REALDATA = Path("/work/shared/realdata")
CHESS_DIR = REALDATA / "opencv-chessboard"
CHARUCO_PHOTO = REALDATA / "opencv-charuco" / "choriginal.jpg"

# OpenCV's published result for the 13 left views (reference_left_intrinsics.yml), CALIB_FIX_ASPECT_RATIO.
REF_F = 535.91573396163199
REF_CX, REF_CY = 342.28315473308373, 235.57082909788173
REF_RMS = 0.39259098975581364
REF_LEFT02_RMS = 1.18204820


# ------------------------------------------------------------------------------------ rendering

def look_at(eye, target, up=(0.0, -1.0, 0.0)):
    """rvec, tvec of a camera at ``eye`` looking at ``target`` (board frame, z into the board)."""
    eye, target = np.asarray(eye, float), np.asarray(target, float)
    z = target - eye
    z /= np.linalg.norm(z)
    x = np.cross(-np.asarray(up, float), z)
    x /= np.linalg.norm(x)
    R = np.stack([x, np.cross(z, x), z])
    return cv2.Rodrigues(R)[0].ravel(), -R @ eye


def board_poses(n, centre, distance, tilts_deg, spread_mm, seed_roll=0.3):
    """``n`` views around the board: varied azimuth and tilt, aimed off-centre so boards reach the edges."""
    poses = []
    for k in range(n):
        ang = 2 * np.pi * k / n
        tilt = np.radians(tilts_deg[k % len(tilts_deg)])
        d = distance[k % len(distance)]
        eye = np.asarray(centre) + d * np.array([np.sin(tilt) * np.cos(ang), np.sin(tilt) * np.sin(ang), -np.cos(tilt)])
        aim = np.asarray(centre) + np.array([spread_mm[0] * np.cos(ang + 0.6), spread_mm[1] * np.sin(ang + 0.6), 0.0])
        poses.append(look_at(eye, aim, (seed_roll * np.sin(3 * ang), -1.0, 0.0)))
    return poses


SS = 4  # supersampling of the chessboard renderer


def render_chessboard(size, K, dist, rvec, tvec, cols=9, rows=6, cell_mm=(25.0, 25.0), rng=None, noise=2.0,
                      blur=0.7):
    """A grey photo of a printed chessboard (cols x rows inner corners) on a darker table.

    Every polygon edge is subdivided (16 segments) before projection so that the lens curves it;
    polygons are filled at 4x supersampling with 1/16 px vertex precision and area-downsampled.
    """
    w, h = size
    sx, sy = cell_mm
    canvas = np.full((h * SS, w * SS), 90, np.uint8)
    t = np.linspace(0.0, 1.0, 16, endpoint=False)

    def poly(x0, y0, x1, y1):
        edges = [np.column_stack([x0 + (x1 - x0) * t, np.full_like(t, y0)]),
                 np.column_stack([np.full_like(t, x1), y0 + (y1 - y0) * t]),
                 np.column_stack([x1 - (x1 - x0) * t, np.full_like(t, y1)]),
                 np.column_stack([np.full_like(t, x0), y1 - (y1 - y0) * t])]
        pts = np.concatenate(edges)
        px, _ = cv2.projectPoints(np.column_stack([pts, np.zeros(len(pts))]), rvec, tvec, K, dist)
        # image pixel centre x sits at canvas coordinate SS*(x + 0.5) - 0.5; 4 fractional bits
        return np.round(((px.reshape(-1, 2) + 0.5) * SS - 0.5) * 16).astype(np.int32)

    cv2.fillPoly(canvas, [poly(-2 * sx, -2 * sy, (cols + 1) * sx, (rows + 1) * sy)], 235, shift=4)  # the paper
    for j in range(-1, rows):
        for i in range(-1, cols):
            if (i + j) % 2 == 0:
                cv2.fillPoly(canvas, [poly(i * sx, j * sy, (i + 1) * sx, (j + 1) * sy)], 25, shift=4)
    img = cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    if blur:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    if rng is not None and noise:
        img += rng.normal(0.0, noise, img.shape)
    return np.clip(np.round(img), 0, 255).astype(np.uint8)


def render_charuco(size, K, dist, poses, target: Target, rng, ppm=6, margin_mm=20.0, noise=2.0):
    """Grey photos of a ChArUco board by inverse mapping: each pixel's ray meets the board plane.

    Rendered at 2x and area-downsampled; the per-pixel undistortion is exact at 1x and interpolated.
    """
    w, h = size
    board = target.charuco_board()
    bw, bh = round(target.size[0] * target.square_mm * ppm), round(target.size[1] * target.square_mm * ppm)
    m = round(margin_mm * ppm)
    paper = np.full((bh + 2 * m, bw + 2 * m), 255, np.uint8)
    paper[m:m + bh, m:m + bw] = board.generateImage((bw, bh), marginSize=0, borderBits=1)
    paper = paper.astype(np.float32) * 0.8 + 25
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    nrm = cv2.undistortPoints(np.stack([xs, ys], -1).reshape(-1, 1, 2), K, dist,
                              criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-12)).reshape(h, w, 2)
    nrm = cv2.resize(nrm, (2 * w, 2 * h), interpolation=cv2.INTER_LINEAR)  # pixel centres consistent
    rays = np.concatenate([nrm, np.ones((2 * h, 2 * w, 1))], axis=-1)
    out = []
    for rvec, tvec in poses:
        R = cv2.Rodrigues(np.asarray(rvec, float))[0]
        Hinv = np.linalg.inv(np.column_stack([R[:, 0], R[:, 1], tvec]))
        b = rays @ Hinv.T
        mapx = ((b[..., 0] / b[..., 2] + margin_mm) * ppm - 0.5).astype(np.float32)
        mapy = ((b[..., 1] / b[..., 2] + margin_mm) * ppm - 0.5).astype(np.float32)
        big = cv2.remap(paper, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=90)
        img = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA) + rng.normal(0.0, noise, (h, w))
        out.append(np.clip(np.round(img), 0, 255).astype(np.uint8))
    return out


# ------------------------------------------------------------------------------ synthetic truth

SIZE = (640, 480)
K_TRUE = np.array([[560.0, 0.0, 330.5], [0.0, 555.0, 236.0], [0.0, 0.0, 1.0]])
DIST_TRUE = np.array([-0.28, 0.09, 0.0008, -0.0005, 0.0])
CHESS = Target.chessboard("9x6", 25)
N_SYN = 10  # views rendered; the main test uses 9 (< K3_MIN_VIEWS, so k3 stays fixed at its true 0)


@pytest.fixture(scope="module")
def syn_views():
    rng = np.random.default_rng(7)
    poses = board_poses(N_SYN, (100.0, 62.5, 0.0), (330.0, 370.0), (25.0, 30.0, 35.0), (60.0, 60.0))
    images = [render_chessboard(SIZE, K_TRUE, DIST_TRUE, rv, tv, rng=rng) for rv, tv in poses]
    names = [f"syn{k:02d}.png" for k in range(N_SYN)]
    # a view of a different board (25 x 30 mm cells, same corner count): found, but inconsistent
    rv, tv = look_at((100 + 175, 62.5 + 60, -300), (120, 72.5, 0), (0.2, -1, 0))
    other = render_chessboard(SIZE, K_TRUE, DIST_TRUE, rv, tv, cell_mm=(25.0, 30.0), rng=rng)
    return images, names, other


@pytest.fixture(scope="module")
def syn_detections(syn_views):
    images, names, _ = syn_views
    return detect_views(images, names, CHESS)


def assert_truth(intr, f_rel=0.003, c_px=1.5, k1_abs=0.01):
    assert intr.image_size == SIZE
    assert intr.fx == pytest.approx(K_TRUE[0, 0], rel=f_rel)
    assert intr.fy == pytest.approx(K_TRUE[1, 1], rel=f_rel)
    cx, cy = intr.principal_point
    assert abs(cx - K_TRUE[0, 2]) < c_px and abs(cy - K_TRUE[1, 2]) < c_px, (cx, cy)
    assert intr.dist[0] == pytest.approx(DIST_TRUE[0], abs=k1_abs)


def test_synthetic_chessboard_recovers_the_camera(syn_views):
    images, names, _ = syn_views
    res = calibrate_intrinsics(images[:9], names[:9], CHESS)
    assert all(v.found and v.used and v.n_points == 54 for v in res.views)
    assert_truth(res.intrinsics)
    d = res.intrinsics.dist
    assert d[1] == pytest.approx(DIST_TRUE[1], abs=0.03)
    assert d[2] == pytest.approx(DIST_TRUE[2], abs=5e-4) and d[3] == pytest.approx(DIST_TRUE[3], abs=5e-4)
    assert not res.k3_estimated and d[4] == 0.0  # 9 views < K3_MIN_VIEWS
    assert res.rms_px < 0.2
    assert max(v.rms_px for v in res.views) < 0.3


def test_view_of_a_different_board_is_named_and_dropped(syn_views):
    images, names, other = syn_views
    res = calibrate_intrinsics(images[:9] + [other], names[:9] + ["other-board.png"], CHESS)
    bad = res.view("other-board.png")
    assert bad.found and not bad.used
    assert bad.reason.startswith("dropped: RMS") and "median" in bad.reason
    assert [v.name for v in res.dropped] == ["other-board.png"]
    assert res.first_rms_px > 3 * res.rms_px  # the bad view had dragged the first solution
    assert_truth(res.intrinsics)  # and the redone calibration is clean again


def test_view_with_shuffled_corners_is_named_and_dropped(syn_detections):
    dets = list(syn_detections[:8])
    d = dets[3]
    perm = np.random.default_rng(1).permutation(d.n_points)
    dets[3] = ViewDetection("shuffled.png", d.object_mm, d.image_px[perm], d.method)
    res = calibrate_detections(dets, SIZE, CHESS)
    assert [v.name for v in res.dropped] == ["shuffled.png"]
    assert res.view("shuffled.png").rms_px > 10
    assert_truth(res.intrinsics)


def test_view_without_the_pattern_is_named_and_file_records_it(syn_views, tmp_path):
    images, names, _ = syn_views
    blank = np.full(SIZE[::-1], 128, np.uint8)
    res = calibrate_intrinsics(images[:5] + [blank], names[:5] + ["blank.png"], CHESS)
    v = res.view("blank.png")
    assert not v.found and not v.used and v.rms_px is None
    assert v.reason == "not found: no chessboard of 9x6 inner corners in the image"
    f = res.to_file()
    assert f.target == "chessboard 9x6 inner corners, 25 mm squares"
    rec = {r.name: r for r in f.views}
    assert rec["blank.png"].used is False and rec["blank.png"].rms_px is None and "not found" in rec["blank.png"].reason
    assert rec[names[0]].used and rec[names[0]].rms_px == pytest.approx(res.views[0].rms_px, abs=1e-6)


def test_k3_rule_and_flags(syn_detections):
    dets = list(syn_detections)
    assert len(dets) == K3_MIN_VIEWS
    assert calibrate_detections(dets, SIZE, CHESS).k3_estimated
    r9 = calibrate_detections(dets[:9], SIZE, CHESS)
    assert not r9.k3_estimated and "CALIB_FIX_K3" in r9.flag_names
    assert calibrate_detections(dets[:9], SIZE, CHESS, k3=True).k3_estimated
    assert not calibrate_detections(dets, SIZE, CHESS, k3=False).k3_estimated
    r = calibrate_detections(dets[:9], SIZE, CHESS, fix_aspect=True, tangential=False)
    assert r.intrinsics.fx == r.intrinsics.fy
    assert r.intrinsics.dist[2] == 0.0 and r.intrinsics.dist[3] == 0.0
    assert set(r.flag_names) == {"CALIB_FIX_ASPECT_RATIO", "CALIB_ZERO_TANGENT_DIST", "CALIB_FIX_K3"}
    assert r.intrinsics.fx == pytest.approx(np.sqrt(K_TRUE[0, 0] * K_TRUE[1, 1]), rel=0.01)


def test_fewer_than_three_usable_views_is_refused(syn_views, syn_detections):
    images, names, _ = syn_views
    blank = np.zeros(SIZE[::-1], np.uint8)
    with pytest.raises(NotEnoughViews) as e:
        calibrate_intrinsics(images[:2] + [blank], names[:2] + ["blank.png"], CHESS)
    assert "only 2 of 3 views usable, need at least 3" in str(e.value)
    assert "blank.png" in str(e.value) and "\n" not in str(e.value)
    assert [v.name for v in e.value.views] == names[:2] + ["blank.png"]
    # four views, one bad: it is dropped and the three left are used, with a note that they were not screened
    d = syn_detections[2]
    bad = ViewDetection("rolled.png", d.object_mm, np.roll(d.image_px, 5, axis=0), d.method)
    res = calibrate_detections(list(syn_detections[:3]) + [bad], SIZE, CHESS)
    assert [v.name for v in res.dropped] == ["rolled.png"] and len(res.used) == 3
    assert res.notes and "too few to screen" in res.notes[0]


def test_input_checks():
    with pytest.raises(InputError, match="not COLSxROWS"):
        Target.chessboard("nine by six", 25)
    with pytest.raises(InputError, match="at least 3"):
        Target.chessboard("9x2", 25)
    with pytest.raises(InputError, match="positive"):
        Target.chessboard("9x6", 0)
    with pytest.raises(InputError, match="not a predefined ArUco dictionary"):
        Target.charuco("5x7", 40, 20, "DICT_7X7_9999")
    with pytest.raises(InputError, match="smaller than --square-mm"):
        Target.charuco("5x7", 40, 45)
    assert Target.charuco("5x7", 40, 20, "dict_6x6_250").dictionary == "DICT_6X6_250"
    a, b = np.zeros((480, 640), np.uint8), np.zeros((600, 800), np.uint8)
    with pytest.raises(InputError, match="b.png is 800x600 px but a.png is 640x480 px"):
        calibrate_intrinsics([a, a, b], ["a.png", "a2.png", "b.png"], CHESS)
    with pytest.raises(InputError, match="no images"):
        calibrate_intrinsics([], [], CHESS)


# ---------------------------------------------------------------------------------- ChArUco

CHARUCO = Target.charuco("5x7", 40, 20, "DICT_6X6_250")


def test_synthetic_charuco_recovers_the_camera():
    size = (800, 600)
    K = np.array([[700.0, 0.0, 405.0], [0.0, 700.0, 296.0], [0.0, 0.0, 1.0]])
    dist = np.array([-0.2, 0.05, 0.0, 0.0, 0.0])
    poses = board_poses(6, (100.0, 140.0, 0.0), (480.0,), (35.0, 45.0), (30.0, 40.0))
    images = render_charuco(size, K, dist, poses, CHARUCO, np.random.default_rng(3))
    res = calibrate_intrinsics(images, [f"ch{k}.png" for k in range(6)], CHARUCO)
    assert all(v.used and v.n_points == 24 and v.method == "ChArUco" for v in res.views)
    intr = res.intrinsics
    assert intr.fx == pytest.approx(700.0, rel=0.005) and intr.fy == pytest.approx(700.0, rel=0.005)
    assert abs(intr.principal_point[0] - 405.0) < 3 and abs(intr.principal_point[1] - 296.0) < 3
    assert intr.dist[0] == pytest.approx(-0.2, abs=0.02)
    assert res.rms_px < 0.2


@pytest.fixture(scope="module")
def charuco_photo():
    if not CHARUCO_PHOTO.exists():
        pytest.skip(f"real ChArUco photo not available ({CHARUCO_PHOTO})")
    return cv2.imread(str(CHARUCO_PHOTO))


def test_real_charuco_photo_finds_24_corners_and_one_view_is_refused(charuco_photo, tmp_path):
    (det,) = detect_views([charuco_photo], ["choriginal.jpg"], CHARUCO)
    assert det.found and det.n_points == 24 and det.method == "ChArUco"
    assert det.object_mm[:, 0].min() == det.object_mm[:, 1].min() == 40.0  # inner corners of 5x7 squares of 40
    assert det.object_mm[:, 0].max() == 160.0 and det.object_mm[:, 1].max() == 240.0
    assert np.all((det.image_px >= 0) & (det.image_px < [640, 480]))
    # one view cannot calibrate a camera: refused, the view listed as found with its 24 corners
    with pytest.raises(NotEnoughViews) as e:
        calibrate_intrinsics([charuco_photo], ["choriginal.jpg"], CHARUCO)
    assert "only 1 of 1 views usable" in str(e.value)
    assert e.value.views[0].found and e.value.views[0].n_points == 24
    out = tmp_path / "camera.json"
    r = CliRunner().invoke(main, ["calibrate", "camera", "--charuco", "5x7", "--square-mm", "40", "--marker-mm", "20",
                                  "--dict", "DICT_6X6_250", str(CHARUCO_PHOTO), "-o", str(out)])
    assert r.exit_code == 2 and not out.exists()
    assert "choriginal.jpg" in r.stdout and "tableref: error: only 1 of 1 views usable" in r.stderr


# ------------------------------------------------------------------------- real chessboard set

@pytest.fixture(scope="module")
def real_chessboard():
    if not CHESS_DIR.is_dir():
        pytest.skip(f"real chessboard photos not available ({CHESS_DIR})")
    paths = sorted(CHESS_DIR.glob("left*.jpg"))
    return paths, [cv2.imread(str(p), cv2.IMREAD_GRAYSCALE) for p in paths]


def test_real_chessboard_matches_opencv_reference(real_chessboard, tmp_path):
    paths, _ = real_chessboard
    assert len(paths) == 13
    out = tmp_path / "camera.json"
    r = CliRunner().invoke(main, ["calibrate", "camera", "--chessboard", "9x6", "--square-mm", "25", "--fix-aspect",
                                  *map(str, paths), "-o", str(out)])
    assert r.exit_code == 0, r.output
    cam = load_model(out, CameraFile)
    K = np.array(cam.intrinsics.camera_matrix)
    assert cam.intrinsics.image_size == (640, 480)
    assert K[0, 0] == K[1, 1] == pytest.approx(REF_F, rel=0.02)
    assert K[0, 2] == pytest.approx(REF_CX, rel=0.02) and K[1, 2] == pytest.approx(REF_CY, rel=0.02)
    assert len(cam.views) == 13 and all(v.used for v in cam.views)  # nothing dropped
    # Our corners are tighter than the reference's (window sized to the squares, see the module doc),
    # so the RMS is below OpenCV's 0.393 px rather than equal to it.
    assert 0.1 < cam.rms_px <= REF_RMS
    assert "left02.jpg" in r.stdout and "RMS reprojection error" in r.stdout


def test_real_chessboard_reproduces_reference_with_the_samples_corners(real_chessboard):
    """Same corners as OpenCV's calibration sample (classic detector, 11x11 cornerSubPix) -> same figures."""
    paths, images = real_chessboard
    dets = []
    for p, g in zip(paths, images):
        ok, c = cv2.findChessboardCorners(g, (9, 6), cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
                                          | cv2.CALIB_CB_FAST_CHECK)
        assert ok, p.name
        c = cv2.cornerSubPix(g, c, (11, 11), (-1, -1), (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.1))
        dets.append(ViewDetection(p.name, CHESS.chessboard_points(), c.reshape(-1, 2), "sample"))
    res = calibrate_detections(dets, (640, 480), CHESS, fix_aspect=True, drop_outliers=False)
    intr = res.intrinsics
    assert intr.fx == intr.fy == pytest.approx(REF_F, rel=0.02)
    assert res.rms_px == pytest.approx(REF_RMS, rel=0.02)
    assert res.view("left02.jpg").rms_px == pytest.approx(REF_LEFT02_RMS, rel=0.05)
    assert max(res.views, key=lambda v: v.rms_px).name == "left02.jpg"


# ------------------------------------------------------------------------------------- the CLI

@pytest.fixture()
def syn_files(syn_views, tmp_path):
    images, names, other = syn_views
    paths = []
    for img, name in zip(images[:6], names[:6]):
        paths.append(tmp_path / name)
        cv2.imwrite(str(paths[-1]), img)
    cv2.imwrite(str(tmp_path / "other-board.png"), other)
    return paths, tmp_path / "other-board.png"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, timeout=120,
                          check=False)


def test_cli_writes_camera_json_and_names_the_dropped_view(syn_files, tmp_path):
    paths, other = syn_files
    out = tmp_path / "out" / "camera.json"
    r = run("calibrate", "camera", "--chessboard", "9x6", "--square-mm", "25", *map(str, paths), str(other),
            "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "other-board.png" in r.stdout and "dropped" in r.stdout and f"wrote {out}" in r.stdout
    data = json.loads(out.read_text())
    assert data["format"] == "tableref-camera/1"
    cam = load_model(out, CameraFile)
    assert cam.target == "chessboard 9x6 inner corners, 25 mm squares"
    assert [v.name for v in cam.views if not v.used] == ["other-board.png"]
    assert cam.views[-1].reason.startswith("dropped: RMS")
    K = np.array(cam.intrinsics.camera_matrix)
    assert K[0, 0] == pytest.approx(K_TRUE[0, 0], rel=0.005) and K[1, 1] == pytest.approx(K_TRUE[1, 1], rel=0.005)
    assert len(cam.intrinsics.dist_coeffs) == 5 and cam.rms_px < 0.2


def assert_one_line_error(code: int, stderr: str, *fragments: str) -> None:
    assert code == 2, (code, stderr)
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("tableref: error: "), stderr
    assert "Traceback" not in stderr
    for f in fragments:
        assert f in lines[0], lines[0]


@pytest.mark.parametrize("case", ["missing", "corrupt", "sizes", "spec", "dict", "no-target", "too-few", "no-images"])
def test_cli_bad_input_is_one_line_and_writes_nothing(case, syn_files, tmp_path):
    paths, _ = syn_files
    imgs = [str(p) for p in paths[:4]]
    chess = ["--chessboard", "9x6", "--square-mm", "25"]
    if case == "missing":
        args, frag = chess + imgs + [str(tmp_path / "nope.jpg")], ["nope.jpg", "no such image"]
    elif case == "corrupt":
        bad = tmp_path / "cut.jpg"
        bad.write_bytes(cv2.imencode(".jpg", cv2.imread(imgs[0]))[1].tobytes()[:3000])
        args, frag = chess + imgs + [str(bad)], ["cut.jpg", "cut short"]
    elif case == "sizes":
        big = tmp_path / "big.png"
        cv2.imwrite(str(big), cv2.resize(cv2.imread(imgs[0]), (800, 600)))
        args, frag = chess + imgs + [str(big)], ["big.png is 800x600 px", "same resolution"]
    elif case == "spec":
        args, frag = ["--chessboard", "9-6", "--square-mm", "25"] + imgs, ["--chessboard '9-6'", "COLSxROWS"]
    elif case == "dict":
        args, frag = ["--charuco", "5x7", "--square-mm", "40", "--marker-mm", "20", "--dict", "DICT_NOPE"] + imgs, \
            ["DICT_NOPE", "not a predefined ArUco dictionary"]
    elif case == "no-target":
        args, frag = ["--square-mm", "25"] + imgs, ["--chessboard", "--charuco"]
    elif case == "too-few":
        args, frag = chess + imgs[:2], ["only 2 of 2 views usable, need at least 3"]
    else:
        args, frag = chess, ["no images given"]
    out = tmp_path / "res" / "camera.json"
    r = CliRunner().invoke(main, ["calibrate", "camera", *args, "-o", str(out)])
    assert_one_line_error(r.exit_code, r.stderr, *frag)
    assert not out.parent.exists()


def test_cli_bad_input_from_the_real_entry_point(syn_files, tmp_path):
    paths, _ = syn_files
    out = tmp_path / "res" / "camera.json"
    r = run("calibrate", "camera", "--chessboard", "9x6", "--square-mm", "25", str(paths[0]), str(tmp_path / "no.jpg"),
            "-o", str(out))
    assert_one_line_error(r.returncode, r.stderr, "no.jpg", "no such image")
    assert not out.parent.exists()
