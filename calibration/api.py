"""Entry points of the calibration stage used by the CLI and the referee."""

from __future__ import annotations

from pathlib import Path

from tableref.errors import BoardNotFound, CalibrationRejected
from tableref.files import load_model, read_image, write_bytes, write_image, write_json

from .camera import CameraFile
from .model import Calibration, Layout
from .profile import BoardProfile, builtin_profile_path
from .register import FEW_FEATURES_NOTE, FOCAL_NOTE, draw_overlay, register


def resolve_profile(arg: str, relative_to: Path | None = None) -> tuple[BoardProfile, str]:
    """A profile from a path or a built-in name; also the reference to store in a calibration
    written into the folder ``relative_to`` (a path relative to that folder, so they move together)."""
    import os

    p = Path(arg)
    if p.suffix.lower() == ".json" or p.exists():
        ref = os.path.relpath(p.resolve(), relative_to.resolve()) if relative_to is not None else str(p)
        return BoardProfile.load(p), ref
    return BoardProfile.load(builtin_profile_path(arg)), f"builtin:{arg}"


def calibrate_board_files(image: Path, profile_arg: str, camera: Path | None, out: Path,
                          overlay: Path | None) -> str:
    """``tableref calibrate board``: register, check, then write calibration (and overlay)."""
    profile, ref = resolve_profile(profile_arg, out.parent)
    intr = load_model(camera, CameraFile, "camera file").intrinsics.to_intrinsics() if camera else None
    photo = read_image(image)
    try:
        reg = register(photo, profile, intr, source_image=image.name, profile_ref=ref)
    except BoardNotFound as e:
        if overlay is not None and e.overlay is not None:
            write_image(overlay, e.overlay)
            e.hint = (e.hint + "; " if e.hint else "") + f"see {overlay} for what was seen"
        raise
    lay = Layout(profile, reg.placements)
    if overlay is not None:
        write_image(overlay, draw_overlay(photo, reg.camera, lay, reg.calibration))
    cal = Calibration(reg.calibration, str(out))
    problems = cal.problems()
    if problems:
        raise CalibrationRejected("calibration refused, nothing written: " + "; ".join(problems),
                                  f"see {overlay} and re-take the photo" if overlay else
                                  "re-take the photo with --overlay to see what was found")
    # keep the photo of the empty table beside the calibration: detection compares frames with it
    ref_name = f"{out.stem}.reference{image.suffix.lower() or '.jpg'}"
    reg.calibration.reference_image = ref_name
    write_bytes(out.parent / ref_name, image.read_bytes())
    write_json(out, reg.calibration)
    q = reg.calibration.quality
    lines = [f"wrote {out}: {len(reg.placements)} tile(s) of '{profile.data.name}'"]
    for pl in reg.placements:
        lines.append(f"  {pl.tile:<12} turned {pl.rotation_deg:+7.2f} deg at ({pl.offset_mm[0]:7.1f}, {pl.offset_mm[1]:7.1f}) mm")
    lines.append(f"  fit {q.reprojection_rms_px:.2f} px, board edges {q.corner_rms_mm if q.corner_rms_mm is not None else float('nan'):.2f} mm, "
                 f"{q.mm_per_px:.2f} mm/px, lens from {q.distortion_from}, {reg.timings['total']:.1f} s")
    lines += [f"  note: {n}" for n in q.notes if n.startswith((FOCAL_NOTE, FEW_FEATURES_NOTE))]
    if overlay is not None:
        lines.append(f"  overlay: {overlay}")
    return "\n".join(lines)
