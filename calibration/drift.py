"""Drift: has a board moved since calibration?  (Checked on settled frames during play.)

For every tile, patches of its picture are aligned with the current frame where the calibration
puts them (the same sub-pixel correlation the registration uses; patches hidden by pieces or hands
do not correlate and are left out).  The matched points, back-projected onto the board plane, give
the tile's placement now; a tile whose corners moved more than the configured distance (2 mm) is
reported and re-registered with the camera kept fixed.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from tableref.config import RegistrationConfig

from .model import Calibration, CalibrationFile, Layout, TilePlacement, build_calibration
from .profile import BoardProfile
from .register import _rigid_fit, dense_correspondences


@dataclass
class TileDrift:
    tile: str
    moved_mm: float          # largest corner displacement
    patches: int             # patches that still matched
    placement: TilePlacement  # where the tile lies now (the old one when not enough was seen)

    @property
    def seen(self) -> bool:
        return self.patches >= 8


@dataclass
class DriftReport:
    tiles: list[TileDrift]
    threshold_mm: float

    @property
    def moved(self) -> list[TileDrift]:
        return [t for t in self.tiles if t.seen and t.moved_mm > self.threshold_mm]

    @property
    def unseen(self) -> list[TileDrift]:
        return [t for t in self.tiles if not t.seen]

    def sentences(self) -> list[str]:
        out = [f"board '{t.tile}' moved {t.moved_mm:.1f} mm since calibration: re-registered" for t in self.moved]
        out += [f"board '{t.tile}' could not be checked ({t.patches} patches of its print visible)" for t in self.unseen]
        return out


def check_drift(frame_bgr: np.ndarray, cal: Calibration, profile: BoardProfile,
                cfg: RegistrationConfig | None = None) -> DriftReport:
    """Where each tile lies in this frame, compared with the calibration (camera kept fixed)."""
    cfg = cfg or RegistrationConfig()
    gray = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY) if frame_bgr.ndim == 3 else frame_bgr
    cam = cal.camera
    lay = Layout(profile, cal.data.placements)
    out = []
    for pl in cal.data.placements:
        prob = dense_correspondences(gray, profile, [pl], cam, cfg)
        n = len(prob.image_px)
        if n < 8:
            out.append(TileDrift(pl.tile, 0.0, n, pl))
            continue
        seen_mm = cam.backproject(prob.image_px)          # where the picture's points are now (table mm)
        ang, off = _rigid_fit(prob.local_mm, seen_mm)     # tile mm -> table mm, now
        # robust: refit on the points that agree with the first fit
        pred = prob.local_mm @ _rot(ang).T + off
        keep = np.linalg.norm(pred - seen_mm, axis=1) < 1.5
        if keep.sum() >= 8:
            ang, off = _rigid_fit(prob.local_mm[keep], seen_mm[keep])
        now = TilePlacement(tile=pl.tile, rotation_deg=float(ang), offset_mm=(float(off[0]), float(off[1])),
                            match_score=pl.match_score)
        moved = float(np.max(np.linalg.norm(lay.tile_corners(now) - lay.tile_corners(pl), axis=1)))
        out.append(TileDrift(pl.tile, moved, int(keep.sum()), now))
    return DriftReport(out, cfg.drift_mm)


def reregister(cal: Calibration, profile: BoardProfile, report: DriftReport) -> CalibrationFile:
    """The calibration with the moved tiles at their new places (camera unchanged)."""
    moved = {t.tile: t.placement for t in report.moved}
    placements = [moved.get(p.tile, p) for p in cal.data.placements]
    q = cal.data.quality.model_copy(deep=True)
    q.notes = list(q.notes) + [f"re-registered after drift: {', '.join(sorted(moved))}"]
    new = build_calibration(profile, placements, cal.camera, q, profile_ref=cal.data.profile,
                            source_image=cal.data.source_image, appearance=cal.data.appearance)
    new.reference_image = cal.data.reference_image
    return new


def _rot(deg: float) -> np.ndarray:
    a = np.radians(deg)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
