"""Board registration on the bundled photos of empty tables, and its refusals.

Accuracy over many scenes is measured by ``tableref bench calibration``; these tests check that
registration works at all on every game and that it says clearly when it cannot.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.evaluate import compare
from calibration.model import Calibration
from calibration.profile import BoardProfile
from calibration.register import register
from simulator.scene import SceneFile
from tableref.errors import BoardNotFound
from tableref.files import load_model, read_image

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "scenes"


def _load(game: str):
    scene = load_model(FIX / game / "empty.json", SceneFile)
    return scene, read_image(FIX / game / "empty.jpg"), BoardProfile.builtin(game)


@pytest.mark.parametrize("game", ["pitchfleet", "pitrush", "galaktico", "asfccg"])
def test_registers_every_game(game):
    scene, img, prof = _load(game)
    reg = register(img, prof)
    err = compare(reg.calibration, prof, scene.camera(), scene.placements)
    assert err.identity_ok and err.rotation_ok
    assert np.median(err.corner_mm) < 1.0, err.corner_mm
    assert err.corner_mm.max() < 2.5, err.corner_mm
    if len(err.zone_iou):
        assert np.median(err.zone_iou) > 0.97
    if len(err.pit_mm):
        assert err.pit_mm.max() < 1.0
    # the calibration passes its own quality bounds
    assert Calibration(reg.calibration).problems() == []


def test_wrong_board_is_refused_with_an_overlay():
    _, img, _ = _load("galaktico")
    with pytest.raises(BoardNotFound) as e:
        register(img, BoardProfile.builtin("pitchfleet"))
    assert "not found" in str(e.value)
    assert e.value.overlay is not None and e.value.overlay.shape == img.shape


def test_no_board_is_refused():
    _, img, _ = _load("pitchfleet")
    table = cv2.GaussianBlur(img[:200, :300], (0, 0), 0.8)  # a corner of the photo: only table
    table = cv2.resize(table, (960, 640))
    with pytest.raises(BoardNotFound, match="no board of this profile|not found"):
        register(table, BoardProfile.builtin("pitchfleet"))


def test_dark_photo_is_refused():
    _, img, prof = _load("pitrush")
    with pytest.raises(BoardNotFound, match="too dark"):
        register((img * 0.05).astype(np.uint8), prof)


def test_blurred_photo_is_refused():
    _, img, prof = _load("pitrush")
    with pytest.raises(BoardNotFound, match="too blurred"):
        register(cv2.GaussianBlur(img, (0, 0), 12), prof)


def test_board_partly_out_of_frame_is_refused():
    scene, img, prof = _load("pitchfleet")
    cam = scene.camera()
    # crop the photo through the middle of the left column of tiles
    left = min(cam.project_plane(np.array([[p.offset_mm[0] + 100.0, p.offset_mm[1]]]))[0][0] for p in scene.placements)
    x0 = int(max(left, 0)) + 40
    with pytest.raises(BoardNotFound, match="out of the frame|not found"):
        register(np.ascontiguousarray(img[:, x0:]), prof)
