"""The simulator's ground truth: what it says about a piece is where that piece is in the photo."""

from __future__ import annotations

import numpy as np
import pytest
import shapely
from shapely.geometry import Polygon

from calibration.camera import CameraModel, Intrinsics, IntrinsicsPart, Pose, PosePart
from calibration.model import Layout, TilePlacement
from calibration.profile import BoardProfile
from simulator.generate import SceneOptions, random_hand, random_scene
from simulator.render import LABEL_BOARD, LABEL_TABLE, render_scene
from simulator.scene import PieceTruth, SceneFile
from simulator.shapes import footprint_of, piece_prisms

SMALL = SceneOptions(image_size=(1280, 720))


@pytest.fixture(scope="module")
def rendered():
    out = {}
    for game, seed in (("pitchfleet", 11), ("pitrush", 12), ("galaktico", 13), ("asfccg", 14)):
        sc = random_scene(game, seed, SMALL)
        out[game] = (sc, render_scene(sc, supersample=2))
    return out


def _inner_points(fp: np.ndarray, inset: float) -> np.ndarray:
    """The centre and points ``inset`` mm inside each corner of a footprint."""
    poly = Polygon(fp)
    c = np.asarray(poly.centroid.coords[0])
    inner = poly.buffer(-inset)
    pts = [c]
    if not inner.is_empty:
        for v in fp[:: max(1, len(fp) // 8)]:
            # nearest point of the shrunk footprint to each corner
            p = shapely.ops.nearest_points(inner, shapely.geometry.Point(v))[0]
            pts.append(np.asarray(p.coords[0]))
    return np.array(pts)


@pytest.mark.parametrize("game", ["pitchfleet", "pitrush", "galaktico", "asfccg"])
def test_footprint_projects_onto_the_piece(rendered, game):
    """Project each piece's footprint (at its base height) into the photo: the centre and points
    near every corner land on that piece's own pixels (the piece hides its own footprint)."""
    scene, res = rendered[game]
    cam = scene.camera()
    h, w = res.label.shape
    assert len(scene.pieces) > 0
    checked = 0
    covered = {p.id for p in scene.pieces if p.rests_on == "piece"}  # the piece underneath is hidden
    lower_of = {}
    for p in scene.pieces:
        if p.rests_on == "piece":
            for q in scene.pieces:
                if q.id != p.id and Polygon(q.footprint_mm).intersects(Polygon(p.footprint_mm)) and q.base_mm < p.base_mm:
                    lower_of[q.id] = p.id
    for p in scene.pieces:
        fp = np.asarray(p.footprint_mm)
        # "near the corners": 2.5 px inside the outline, so pixel rounding cannot step off the piece
        inset = max(1.5, 2.5 * float(cam.mm_per_px_at(np.array([p.center_mm]))[0]))
        pts = _inner_points(fp, inset)
        px = cam.project_plane(pts, height_mm=p.base_mm)
        for (u, v) in px:
            iu, iv = int(round(u)), int(round(v))
            assert 0 <= iu < w and 0 <= iv < h
            lab = res.label[iv, iu]
            if p.id in lower_of:
                assert lab in (p.id, lower_of[p.id])
            else:
                assert lab == p.id, f"{game} piece {p.id} {p.kind} at {p.center_mm}: label {lab} at ({u:.1f},{v:.1f})"
            checked += 1
    assert checked >= 3 * len(scene.pieces)
    _ = covered


def test_piece_pixels_lie_over_the_footprint(rendered):
    """The other way round, through the top: a piece's top-face centre projects onto its pixels, and
    lies away from the footprint centre by the parallax the camera geometry predicts."""
    scene, res = rendered["pitchfleet"]
    cam = scene.camera()
    for p in scene.pieces:
        if p.rests_on == "piece" or p.upright:
            continue
        top = cam.project_plane(np.array([p.center_mm]), height_mm=p.base_mm + p.height_mm * 0.99)[0]
        assert res.label[int(round(top[1])), int(round(top[0]))] == p.id
        base = cam.project_plane(np.array([p.center_mm]), height_mm=p.base_mm)[0]
        c = cam.pose.camera_center_mm
        r = np.linalg.norm(np.asarray(p.center_mm) - c[:2])
        expected_mm = p.height_mm * r / (-c[2] - p.height_mm - p.base_mm)
        mm_per_px = cam.mm_per_px_at(np.array([p.center_mm]))[0]
        assert abs(np.linalg.norm(top - base) * mm_per_px - expected_mm) < 0.35 * expected_mm + 0.3


def _fixed_scene(cam: CameraModel, center_mm, profile: BoardProfile) -> SceneFile:
    spec = profile.piece("disc", "red")
    prisms = piece_prisms(spec)
    fp = footprint_of(prisms, center_mm, 0.0, 0.0)
    return SceneFile(game="pitrush", profile="builtin:pitrush", seed=1, intrinsics=IntrinsicsPart.of(cam.intrinsics),
                     pose=PosePart.of(cam.pose), placements=[TilePlacement(tile="board")],
                     pieces=[PieceTruth(id=0, kind="disc", color="red", center_mm=tuple(center_mm), height_mm=6.0,
                                        footprint_mm=[tuple(v) for v in fp], state="surface")])


@pytest.mark.parametrize("where", ["centre", "corner"])
def test_ground_truth_at_centre_and_corner_of_the_view(where):
    """With strong barrel distortion and a tilted camera, a disc placed at the centre of the view
    and one in a corner both appear exactly where the camera model projects them."""
    profile = BoardProfile.builtin("pitrush")
    lay = Layout(profile, [TilePlacement(tile="board")])
    cx, cy = lay.support.centroid.coords[0]
    intr = Intrinsics.from_fov((800, 600), 72, [-0.2, 0.03, 0.001, -0.001, 0.0])
    cam = CameraModel(intr, Pose.look_at([cx + 120, cy + 60, -450], [cx, cy, 0]))
    if where == "centre":
        center = cam.backproject(np.array([[399.5, 299.5]]))[0]
    else:  # the point of the board nearest the top-left corner of the view, 20 mm in from its edge
        for t in np.linspace(0.0, 0.8, 41):
            center = cam.backproject(np.array([[110.0 + t * 290, 95.0 + t * 205]]))[0]
            if lay.support.buffer(-20.0).contains(shapely.geometry.Point(center)):
                break
        px = cam.project_plane(np.array([center]))[0]
        assert px[0] < 250 and px[1] < 190, "the corner of the view must show the board"
    assert lay.support.contains(shapely.geometry.Point(center))
    sc = _fixed_scene(cam, center, profile)
    res = render_scene(sc, supersample=2)
    mask = res.label == 0
    assert mask.sum() > 50
    fp = np.asarray(sc.pieces[0].footprint_mm)
    base_px = cam.project_plane(fp, 0.0)
    top_px = cam.project_plane(fp, 6.0)
    # every labelled pixel lies in the hull of the base and top outlines (the side wall between)
    hull = Polygon(np.concatenate([base_px, top_px])).convex_hull.buffer(1.0)
    ys, xs = np.nonzero(mask)
    assert shapely.contains_xy(hull, xs, ys).mean() > 0.995
    # and the top outline is filled: its centre and 8 points 1.5 mm inside the rim are the disc's
    inner = cam.project_plane(_inner_points(fp, 1.5), 6.0)
    for u, v in inner:
        assert res.label[int(round(v)), int(round(u))] == 0


def test_same_seed_same_scene_and_image():
    a = random_scene("pitrush", 7, SMALL)
    b = random_scene("pitrush", 7, SMALL)
    assert a.model_dump() == b.model_dump()
    ra = render_scene(a)
    rb = render_scene(b)
    assert np.array_equal(ra.image, rb.image)
    c = random_scene("pitrush", 8, SMALL)
    assert c.model_dump() != a.model_dump()


def test_a_photo_drawn_on_the_empty_tables_render_is_the_whole_render_to_the_bit():
    """The renderer keeps the last table it drew without pieces, and draws the next photo of that
    table on it: the pieces and the hand where they are nearest, the boards and the table again
    only where a shadow may fall.  Every pixel must come out as a whole render draws it (pieces in
    pits and stacked, a hand's shadow, the table beyond the boards), and so must the sensor's noise
    and the JPEG."""
    from simulator import render

    sc = random_scene("pitrush", 21, SMALL)
    sc.hands = [random_hand(Layout(BoardProfile.builtin("pitrush"), sc.placements), np.random.default_rng(3))]
    assert {p.state for p in sc.pieces} >= {"in_pit", "surface"}
    empty = sc.model_copy(deep=True)
    empty.pieces, empty.hands = [], []
    render._BACKGROUND.clear()
    whole = render_scene(sc)
    assert not render._BACKGROUND  # (a photo with pieces is not kept as the table's)
    render_scene(empty)
    assert render._BACKGROUND
    drawn = render_scene(sc)
    assert np.array_equal(drawn.image, whole.image) and np.array_equal(drawn.label, whole.label)
    assert drawn.jpeg == whole.jpeg


def test_labels_cover_boards_and_table(rendered):
    scene, res = rendered["pitchfleet"]
    labels = set(np.unique(res.label).tolist())
    assert LABEL_TABLE in labels
    assert sum(1 for lab in labels if LABEL_BOARD <= lab < LABEL_BOARD + 100) == 9


def test_verdicts_follow_the_geometry(rendered):
    """Ground-truth verdicts are consistent with the placed geometry."""
    for game in ("pitchfleet", "pitrush", "asfccg"):
        scene, _ = rendered[game]
        profile = scene.load_profile()
        lay = Layout(profile, scene.placements)
        for p in scene.pieces:
            inside = lay.support.covers(shapely.geometry.Point(p.center_mm))
            if p.rests_on == "table":
                assert p.outbound and not inside and p.base_mm < 0
            if p.rests_on == "board":
                assert not p.outbound and inside and p.base_mm == 0
            if p.state == "in_pit":
                assert p.pit is not None and p.base_mm < 0
            zones = {z.id: Polygon(z.polygon, z.holes) for z in lay.zones()}
            for zid in p.zones:
                assert Polygon(p.footprint_mm).intersects(zones[zid])
