"""Every versioned file kind: JSON round trips, and validation errors that name file, field and expectation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.camera import CameraFile, CameraModel, Intrinsics, IntrinsicsPart, Pose
from calibration.model import Calibration, CalibrationFile, Layout, Quality, TilePlacement, build_calibration
from calibration.nominal import BUILDERS
from calibration.profile import BoardProfile, ProfileFile
from simulator.generate import random_scene
from simulator.scene import SceneFile
from tableref.errors import FileFormatError, InputError
from tableref.files import load_model, write_json


def _camera() -> CameraModel:
    intr = Intrinsics.from_fov((1280, 720), 70, [-0.1, 0.01, 0.001, -0.001, 0.0])
    return CameraModel(intr, Pose.look_at([300, 300, -800], [300, 320, 0]))


def _calibration_file() -> CalibrationFile:
    prof = BoardProfile(BUILDERS["pitchfleet"]())
    placements = [TilePlacement(tile=t.id, rotation_deg=90.0 * (i % 4), offset_mm=(204.0 * (i % 3), 204.0 * (i // 3)))
                  for i, t in enumerate(prof.tiles)]
    return build_calibration(prof, placements, _camera(), Quality(reprojection_rms_px=0.4, corner_rms_mm=0.3))


def _examples():
    cam = _camera()
    return {
        "camera": (CameraFile(intrinsics=IntrinsicsPart.of(cam.intrinsics), rms_px=0.39, target="chessboard 9x6"),
                   CameraFile),
        "profile": (BUILDERS["pitrush"](), ProfileFile),
        "calibration": (_calibration_file(), CalibrationFile),
        "scene": (random_scene("pitchfleet", 5), SceneFile),
    }


@pytest.mark.parametrize("kind", ["camera", "profile", "calibration", "scene"])
def test_round_trip(tmp_path, kind):
    model, cls = _examples()[kind]
    path = write_json(tmp_path / f"{kind}.json", model)
    back = load_model(path, cls)
    assert back.model_dump(mode="json") == json.loads(json.dumps(model.model_dump(mode="json")))
    # and the written file is itself stable under a second round trip
    path2 = write_json(tmp_path / f"{kind}2.json", back)
    assert path.read_text() == path2.read_text()


@pytest.mark.parametrize("kind", ["camera", "profile", "calibration", "scene"])
def test_wrong_format_names_the_field(tmp_path, kind):
    model, cls = _examples()[kind]
    data = model.model_dump(mode="json")
    data["format"] = "tableref-something-else/1"
    p = tmp_path / "f.json"
    p.write_text(json.dumps(data))
    with pytest.raises(FileFormatError) as e:
        load_model(p, cls)
    assert e.value.field == "format"
    assert str(p) in str(e.value)
    assert cls.model_fields["format"].default in str(e.value)


@pytest.mark.parametrize("kind,mutate,field,expect", [
    ("camera", lambda d: d["intrinsics"].pop("camera_matrix"), "intrinsics.camera_matrix", "missing"),
    ("camera", lambda d: d["intrinsics"].__setitem__("dist_coeffs", [0.1, 0.2, 0.3]), "intrinsics.dist_coeffs",
     "4, 5, 8, 12 or 14"),
    ("profile", lambda d: d["tiles"][0].__setitem__("size_mm", ["wide", 3]), "tiles[0].size_mm[0]", "number"),
    ("profile", lambda d: d["tiles"][0]["pits"][2].__setitem__("radius", -4), "tiles[0].pits[2].radius",
     "greater than 0"),
    ("profile", lambda d: d.__setitem__("game", "chess"), "game", "pitchfleet"),
    ("profile", lambda d: d["pieces"][0].__setitem__("colour", "red"), "pieces[0].colour", "not a known field"),
    ("calibration", lambda d: d["placements"][1].__setitem__("rotation_deg", "left"), "placements[1].rotation_deg",
     "number"),
    ("calibration", lambda d: d.pop("support"), "support", "missing"),
    ("scene", lambda d: d["pieces"][0].__setitem__("center_mm", [1.0]), "pieces[0].center_mm[1]", "missing"),
    ("scene", lambda d: d["sensor"].__setitem__("jpeg_quality", 400), "sensor.jpeg_quality", "less than or equal"),
])
def test_validation_error_names_file_field_and_expectation(tmp_path, kind, mutate, field, expect):
    model, cls = _examples()[kind]
    data = model.model_dump(mode="json")
    mutate(data)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data))
    with pytest.raises(FileFormatError) as e:
        load_model(p, cls)
    assert e.value.path == str(p)
    assert e.value.field == field
    assert expect in str(e.value)
    assert "\n" not in str(e.value)


def test_profile_semantic_checks(tmp_path):
    data = BUILDERS["pitchfleet"]().model_dump(mode="json")
    data["tiles"][1]["id"] = data["tiles"][0]["id"]
    p = tmp_path / "dup.json"
    p.write_text(json.dumps(data))
    with pytest.raises(FileFormatError, match="duplicate tile id"):
        load_model(p, ProfileFile)
    data = BUILDERS["pitchfleet"]().model_dump(mode="json")
    data["tiles"][0]["zones"][0]["polygon"] = [[0, 0], [10, 10], [0, 10], [10, 0]]  # a bow tie
    p.write_text(json.dumps(data))
    with pytest.raises(FileFormatError, match="simple polygon"):
        load_model(p, ProfileFile)
    data = BUILDERS["pitchfleet"]().model_dump(mode="json")
    data["pieces"][0]["diameter_mm"] = 20.0  # both polygon and diameter
    p.write_text(json.dumps(data))
    with pytest.raises(FileFormatError, match="exactly one of"):
        load_model(p, ProfileFile)


@pytest.mark.parametrize("content,expect", [
    ("", "empty file"),
    ("{\"format\": \"tableref-camera/1\",", "not valid JSON"),
    ("[1, 2, 3]", "expected a JSON object"),
    ("{\"intrinsics\": {}}", "format"),
])
def test_unreadable_json(tmp_path, content, expect):
    p = tmp_path / "camera.json"
    p.write_text(content)
    with pytest.raises(InputError, match=expect):
        load_model(p, CameraFile)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such"):
        load_model(tmp_path / "nope.json", CameraFile)


def test_builtin_profiles_are_valid_and_current():
    """The shipped profiles load, and equal what calibration.nominal builds (regenerate if not)."""
    for game, build in BUILDERS.items():
        prof = BoardProfile.builtin(game)
        assert prof.data.nominal
        assert prof.data.model_dump(mode="json") == json.loads(json.dumps(build().model_dump(mode="json"))), game


def test_calibration_geometry_follows_placements():
    cal = Calibration(_calibration_file())
    # every zone lies inside the support region, and the support covers the cracks between tiles
    for z in cal.data.zones:
        assert cal.support.contains(Polygon_(z.polygon)), z.id
    crack_point = np.array([[202.0, 100.0]])  # between the first two tiles of the row (2 mm gap + 2 mm)
    import shapely

    assert shapely.contains_xy(cal.support, crack_point[:, 0], crack_point[:, 1]).all()
    far = np.array([[-30.0, 100.0]])
    assert not shapely.contains_xy(cal.support, far[:, 0], far[:, 1]).any()


def Polygon_(coords):
    from shapely.geometry import Polygon

    return Polygon(coords)


def test_layout_zone_transform_is_rigid():
    prof = BoardProfile(BUILDERS["pitchfleet"]())
    pl = TilePlacement(tile="mars", rotation_deg=90.0, offset_mm=(500.0, 20.0))
    lay = Layout(prof, [pl])
    planet = next(z for z in lay.zones() if z.id == "mars/planet")
    src = next(z for z in prof.tile("mars").zones if z.id == "planet")
    a = Polygon_(planet.polygon)
    b = Polygon_(src.polygon)
    assert abs(a.area - b.area) < 1e-6
    # tile point (100, 100) turned 90 degrees (x right, y down: +90 maps +x to +y) then shifted
    c = np.asarray(a.centroid.coords[0])
    assert np.allclose(c, [500.0 - 100.0, 20.0 + 100.0], atol=1e-6)
