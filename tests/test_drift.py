"""Drift: a board nudged after calibration is noticed and re-registered; still boards are not."""

from __future__ import annotations

import numpy as np

from calibration.drift import check_drift, reregister
from calibration.model import Calibration, Layout, TilePlacement
from calibration.profile import BoardProfile
from calibration.register import register
from simulator.generate import SceneOptions, random_scene
from simulator.render import render_scene


def test_a_nudged_board_is_found_and_re_registered():
    prof = BoardProfile.builtin("pitchfleet")
    opt = SceneOptions(image_size=(1280, 720), tilt_deg=(5.0, 12.0))
    scene = random_scene("pitchfleet", 321, opt, prof, with_pieces=False)
    cal = Calibration(register(render_scene(scene, prof).image, prof).calibration)
    # someone bumps one board: 3 mm along x and half a degree
    moved = scene.model_copy(deep=True)
    p = moved.placements[4]
    moved.placements[4] = TilePlacement(tile=p.tile, rotation_deg=p.rotation_deg + 0.5,
                                        offset_mm=(p.offset_mm[0] + 3.0, p.offset_mm[1]))
    moved.shot = 5
    frame = render_scene(moved, prof).image
    report = check_drift(frame, cal, prof)
    by_tile = {t.tile: t for t in report.tiles}
    bumped = by_tile[p.tile]
    assert [t.tile for t in report.moved] == [p.tile]
    assert 2.5 < bumped.moved_mm < 5.0
    assert all(t.moved_mm < 1.0 for t in report.tiles if t.tile != p.tile)
    assert any("moved" in s for s in report.sentences())
    # after re-registering, the bumped board's corners are where the frame shows them
    new = Calibration(reregister(cal, prof, report))
    true_lay, new_lay = Layout(prof, moved.placements), Layout(prof, new.data.placements)
    truth = moved.camera().project_plane(true_lay.tile_corners(moved.placements[4]))
    est = new.camera.backproject(truth)
    got = new_lay.tile_corners(next(q for q in new.data.placements if q.tile == p.tile))
    assert np.max(np.linalg.norm(est - got, axis=1)) < 1.0
