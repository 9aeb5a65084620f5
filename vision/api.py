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
    return detect_photo(read_image(image_path), image_path, detector)


def detect_photo(img, image_path: str | Path, detector: Detector) -> FrameResult:
    """Detect in a photo read from ``image_path``, refused unless it is the calibration's size."""
    w, h = detector.cal.data.intrinsics.image_size
    if img.shape[1] != w or img.shape[0] != h:
        raise InputError(f"{image_path}: is {img.shape[1]}x{img.shape[0]}, the calibration is for {w}x{h}",
                         "photograph with the camera and resolution you calibrated")
    return detector.detect(img)


def learn_colours_files(photos: list[Path], calibration_path: Path, out: Path | None = None,
                        overlay: Path | None = None) -> list[str]:
    """``tableref calibrate pieces``: learn the pieces' colours from "show the pieces" photos (the
    calibrated table with at least one piece of every colour on the boards) into the calibration's
    ``appearance.colors``.  Returns the report's lines.  Nothing is written when a photo is refused."""
    import numpy as np

    from tableref.files import write_image, write_json

    from .colors import PROTOTYPES_RGB, learn_colours, textbook_lab

    out = Path(out) if out is not None else Path(calibration_path)
    if out.resolve().parent != Path(calibration_path).resolve().parent:
        raise InputError(f"{out}: write the calibration beside {calibration_path}",
                         "its photo of the empty table and its profile are found relative to it")
    if not photos:
        raise InputError("no photos given", "give a photo of the calibrated table with a piece of every colour on it")
    det = load_detector(calibration_path)
    det.cal.data.appearance.pop("colors", None)  # learned from textbook colours, not from an older lesson
    frames = [read_image(p) for p in photos]
    labs, choices = [], []
    for p, img in zip(photos, frames):
        lab, ch = det.piece_colours(img, detect_photo(img, p, det))
        if not len(lab):
            raise InputError(f"{p}: no pieces found on the boards", "lay out at least one piece of every colour on the "
                             "boards, in view and apart, and take the photo again")
        labs.append(lab)
        choices += ch
    learned, counts = learn_colours(np.concatenate(labs), choices)
    data = det.cal.data.model_copy(deep=True)
    data.appearance["colors"] = learned
    data.appearance["colors_from"] = {"photos": [Path(p).name for p in photos], "pieces": counts}
    lines = [f"wrote {out}: the colours of {sum(counts.values())} piece(s) in {len(photos)} photo(s)"]
    every = sorted({n for c in choices for n in c if n in PROTOTYPES_RGB})
    for n in every:
        if n in learned:
            L, a, b = learned[n]
            dE = float(np.linalg.norm(np.asarray(learned[n]) - textbook_lab(n)))
            lines.append(f"  {n:<8} {counts[n]:3d} piece(s)   L {L:5.1f}  a {a:6.1f}  b {b:6.1f}   "
                         f"{dE:5.1f} from the textbook colour")
        else:
            lines.append(f"  {n:<8}   not shown: the textbook colour is kept")
    if overlay is not None:
        from .overlay import draw_judgement

        det.cal.data.appearance["colors"] = learned
        write_image(overlay, draw_judgement(frames[0], det.detect(frames[0]).judgement, det.cal))
        lines.append(f"  overlay: {overlay} (the first photo named with the learned colours: check them)")
    write_json(out, data)
    return lines
