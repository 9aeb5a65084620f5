"""Entry points of the vision stage for the CLI and the referee."""

from __future__ import annotations

from pathlib import Path

from calibration.model import Calibration
from calibration.profile import BoardProfile, builtin_profile_path
from tableref.config import VisionConfig
from tableref.errors import InputError
from tableref.files import read_image

from .detect import Detector, FrameResult


def profile_of(cal: Calibration) -> BoardProfile:
    """The profile a calibration was made with (built-in, or a path relative to the calibration)."""
    ref = cal.data.profile or f"builtin:{cal.data.game}"
    if ref.startswith("builtin:"):
        return BoardProfile.load(builtin_profile_path(ref.split(":", 1)[1]))
    p = Path(ref)
    if not p.is_absolute() and cal.path:
        p = Path(cal.path).parent / p
    if not p.exists():
        raise InputError(f"{cal.path}: the profile it was made with, {ref}, is missing",
                         "put it back, or calibrate again")
    return BoardProfile.load(p)


def load_detector(calibration_path: str | Path, cfg: VisionConfig | None = None) -> Detector:
    """A detector for a saved calibration: checks its quality, loads its profile and reference photo."""
    cal = Calibration.load(calibration_path).check()
    if not cal.data.reference_image:
        raise InputError(f"{calibration_path}: has no photo of the empty table",
                         "calibrate again with 'tableref calibrate board' (it keeps one)")
    ref_path = Path(calibration_path).parent / cal.data.reference_image
    reference = read_image(ref_path)
    w, h = cal.data.intrinsics.image_size
    if reference.shape[1] != w or reference.shape[0] != h:
        raise InputError(f"{ref_path}: is {reference.shape[1]}x{reference.shape[0]}, the calibration is for {w}x{h}")
    return Detector(cal, profile_of(cal), reference, cfg)


def detect_file(image_path: str | Path, detector: Detector) -> FrameResult:
    img = read_image(image_path)
    w, h = detector.cal.data.intrinsics.image_size
    if img.shape[1] != w or img.shape[0] != h:
        raise InputError(f"{image_path}: is {img.shape[1]}x{img.shape[0]}, the calibration is for {w}x{h}",
                         "photograph with the camera and resolution you calibrated")
    return detector.detect(img)
