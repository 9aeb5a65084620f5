"""Draw what the referee saw: every piece's footprint on the photo, its verdict and margin."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.model import Calibration

from .judgement import Judgement

COLORS_BGR = {"red": (40, 40, 230), "blue": (230, 120, 30), "yellow": (0, 220, 255), "green": (60, 200, 60),
              "white": (255, 255, 255), "black": (60, 60, 60), "silver": (200, 200, 200), "grey": (150, 150, 150)}


def draw_judgement(image: np.ndarray, j: Judgement, cal: Calibration, zones: bool = True) -> np.ndarray:
    out = image.copy()
    cam = cal.camera
    th = max(1, round(image.shape[1] / 1000))
    fs = image.shape[1] / 2400
    if zones:
        for z in cal.data.zones:
            pts = np.asarray(z.polygon)
            px = cam.project_plane(np.vstack([pts, pts[:1]]))
            cv2.polylines(out, [np.round(px * 8).astype(np.int32)], False, (120, 120, 120), 1, cv2.LINE_AA, 3)
    for i in range(len(j)):
        d = j.detections
        fp = d.footprint_mm[i]
        px = cam.project_plane(np.vstack([fp, fp[:1]]), float(d.base_mm[i]))
        col = (0, 0, 255) if j.review[i] else ((0, 140, 255) if j.outbound[i] else (0, 255, 0))
        cv2.polylines(out, [np.round(px * 8).astype(np.int32)], False, col, th + 1, cv2.LINE_AA, 3)
        c = d.center_px[i]
        cv2.drawMarker(out, (int(c[0]), int(c[1])), col, cv2.MARKER_CROSS, 8 * th, th)
        label = f"{d.kind[i].split(':')[-1]} {d.color[i]}"
        verdict = "OUT" if j.outbound[i] else (j.state[i] if j.state[i] != "surface" else "")
        where = ",".join(z.split("/")[-1] for z in j.zones[i]) or (j.pit[i] or "") or (j.space[i] or "")
        text = f"{label} {verdict} {where} {j.margin_mm[i]:.1f}mm".replace("  ", " ")
        org = (int(c[0]) + 6 * th, int(c[1]) - 6 * th)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), 3 * th, cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, fs, col, th, cv2.LINE_AA)
    return out
