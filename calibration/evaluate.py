"""Compare a calibration with a simulated scene's ground truth (for tests and ``tableref bench calibration``).

The estimated table frame is the calibration's own choice, so every figure is taken through the
image: a true point is projected by the true camera, back-projected by the estimated one, and
compared in the estimated table frame (mm).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from shapely.geometry import Polygon

from .camera import CameraModel
from .model import CalibrationFile, Layout, TilePlacement
from .profile import BoardProfile


@dataclass
class CalibrationErrors:
    identity_ok: bool              # every tile found under its own id
    rotation_ok: bool              # and turned the right way (relative to the others)
    corner_mm: np.ndarray          # error of every tile corner
    zone_iou: np.ndarray           # IoU of every zone polygon
    pit_mm: np.ndarray             # error of every pit centre
    focal_rel: float               # relative focal-length error


def _to_est(pts_mm: np.ndarray, true_cam: CameraModel, est_cam: CameraModel) -> np.ndarray:
    return est_cam.backproject(true_cam.project_plane(np.asarray(pts_mm, dtype=np.float64)))


def compare(calib: CalibrationFile, profile: BoardProfile, true_cam: CameraModel,
            true_placements: list[TilePlacement]) -> CalibrationErrors:
    est_cam = CameraModel(calib.intrinsics.to_intrinsics(), calib.pose.to_pose())
    true_lay = Layout(profile, true_placements)
    est_lay = Layout(profile, calib.placements)
    tp = {p.tile: p for p in true_placements}
    ep = {p.tile: p for p in calib.placements}
    identity_ok = set(tp) == set(ep)
    corners, rot_ok = [], identity_ok
    # the table frames differ by one rotation: measure it on the best-matched tile, then compare all
    if identity_ok:
        deltas = []
        for tid in tp:
            # direction of the tile's x axis seen through both cameras, in the estimated frame
            a = _to_est(true_lay.tile_corners(tp[tid])[:2], true_cam, est_cam)
            b = est_lay.tile_corners(ep[tid])[:2]
            da, db = a[1] - a[0], b[1] - b[0]
            deltas.append(np.degrees(np.arctan2(da[1], da[0]) - np.arctan2(db[1], db[0])))
        deltas = (np.array(deltas) + 180) % 360 - 180
        tile = {t.id: t for t in profile.tiles}
        rot_ok = bool(np.all(np.abs(deltas) < 5.0)) or all(tile[t].symmetric for t in tp)
        for tid in tp:
            got = est_lay.tile_corners(ep[tid])
            want = _to_est(true_lay.tile_corners(tp[tid]), true_cam, est_cam)
            if tile[tid].symmetric:  # any turn that maps the outline onto itself is right
                errs = [np.linalg.norm(np.roll(got, k, axis=0) - want, axis=1) for k in range(len(got))]
                corners.extend(min(errs, key=lambda e: e.max()))
            else:
                corners.extend(np.linalg.norm(got - want, axis=1))
    ious = []
    if identity_ok:
        ez = {z.id: z for z in est_lay.zones()}
        for z in true_lay.zones():
            a = Polygon(_to_est(z.polygon, true_cam, est_cam), [_to_est(h, true_cam, est_cam) for h in z.holes])
            b = Polygon(ez[z.id].polygon, ez[z.id].holes)
            ious.append(a.intersection(b).area / a.union(b).area)
    pits = []
    if identity_ok:
        epits = {p.id: p for p in est_lay.pits()}
        for p in true_lay.pits():
            got = np.array(epits[p.id].center)
            want = _to_est(np.array([p.center]), true_cam, est_cam)[0]
            if tile_symmetric(profile, p.id):
                # a symmetric board may be matched turned: compare with the nearest pit of the same size
                got = min((np.array(q.center) for q in est_lay.pits()), key=lambda c: np.linalg.norm(c - want))
            pits.append(np.linalg.norm(got - want))
    return CalibrationErrors(identity_ok, rot_ok, np.array(corners), np.array(ious), np.array(pits),
                             abs(est_cam.intrinsics.fx / true_cam.intrinsics.fx - 1.0))


def tile_symmetric(profile: BoardProfile, item_id: str) -> bool:
    tid = item_id.split("/", 1)[0]
    return profile.tile(tid).symmetric
