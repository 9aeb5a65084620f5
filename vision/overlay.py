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
    fs = image.shape[1] / 3000
    if zones:
        for z in cal.data.zones:
            pts = np.asarray(z.polygon)
            px = cam.project_plane(np.vstack([pts, pts[:1]]))
            cv2.polylines(out, [np.round(px * 8).astype(np.int32)], False, (120, 120, 120), 1, cv2.LINE_AA, 3)
    font = cv2.FONT_HERSHEY_SIMPLEX
    d = j.detections
    outlines = [cam.project_plane(np.vstack([d.footprint_mm[i], d.footprint_mm[i][:1]]), float(d.base_mm[i]))
                for i in range(len(j))]
    # labels keep off the pieces and off each other
    placed: list[tuple[int, int, int, int]] = [(*np.floor(o.min(axis=0)).astype(int), *np.ceil(o.max(axis=0)).astype(int))
                                               for o in outlines]
    for i in range(len(j)):
        px = outlines[i]
        col = (0, 0, 255) if j.review[i] else ((0, 140, 255) if j.outbound[i] else (0, 255, 0))
        cv2.polylines(out, [np.round(px * 8).astype(np.int32)], False, col, th + 1, cv2.LINE_AA, 3)
        c = d.center_px[i]
        cv2.drawMarker(out, (int(c[0]), int(c[1])), col, cv2.MARKER_CROSS, 8 * th, th)
        kind = d.kind[i].split(":")[-1]
        verdict = "OUT" if j.outbound[i] else (j.state[i] if j.state[i] != "surface" else "")
        where = ",".join(z.split("/")[-1] for z in j.zones[i]) or (j.pit[i] or "").split("/")[-1] or (j.space[i] or "")
        margin = f"{j.margin_mm[i]:.1f}mm" if np.isfinite(j.margin_mm[i]) and j.margin_mm[i] < 50 else ""
        text = " ".join(t for t in (d.color[i], kind, verdict, where, margin) if t)
        (tw, tht), base = cv2.getTextSize(text, font, fs, th)
        org = _label_place(c, px, tw, tht + base, out.shape, placed, th)
        x, y = org
        placed.append((x, y - tht, x + tw, y + base))
        box = out[max(0, y - tht - 2):y + base + 2, max(0, x - 2):x + tw + 2]
        box[:] = (box * 0.45).astype(out.dtype)  # a dark band behind the text: legible on any print
        cv2.putText(out, text, org, font, fs, col, th, cv2.LINE_AA)
    _legend(out, fs, th)
    return out


def _label_place(c, outline_px: np.ndarray, w: int, h: int, shape, placed, th: int) -> tuple[int, int]:
    """Where a piece's label goes (its text's bottom-left, px): beside the piece on the first side
    where it overlaps no label already drawn and stays in the picture, else where it overlaps least."""
    x0, y0 = outline_px.min(axis=0)
    x1, y1 = outline_px.max(axis=0)
    g = 3 * th
    cands = [(x1 + g, c[1] + h / 2), (x0 - g - w, c[1] + h / 2), (c[0] - w / 2, y0 - g), (c[0] - w / 2, y1 + g + h),
             (x1 + g, y0), (x1 + g, y1 + h), (x0 - g - w, y0), (x0 - g - w, y1 + h)]
    best, best_overlap = None, np.inf
    for cx, cy in cands:
        x, y = int(np.clip(cx, 0, max(0, shape[1] - w))), int(np.clip(cy, h, shape[0] - 1))
        r = (x, y - h, x + w, y)
        overlap = sum(max(0, min(r[2], q[2]) - max(r[0], q[0])) * max(0, min(r[3], q[3]) - max(r[1], q[1]))
                      for q in placed)
        if overlap == 0:
            return x, y
        if overlap < best_overlap:
            best, best_overlap = (x, y), overlap
    return best


def _legend(out: np.ndarray, fs: float, th: int) -> None:
    """The colours' meaning, in the bottom-left corner (the top is where replays caption events)."""
    items = [((0, 255, 0), "on the boards"), ((0, 140, 255), "outbound / off the board"), ((0, 0, 255), "to confirm")]
    (_, tht), base = cv2.getTextSize("Mg", cv2.FONT_HERSHEY_SIMPLEX, fs, th)
    step = int((tht + base) * 1.8)
    y = out.shape[0] - base - 8 - step * (len(items) - 1)
    for col, text in items:
        (tw, tht), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, fs, th)
        out[y - tht - 4:y + base + 4, 6:tw + 40 * th] = (out[y - tht - 4:y + base + 4, 6:tw + 40 * th] * 0.4).astype(out.dtype)
        cv2.rectangle(out, (10, y - tht), (10 + tht, y), col, -1)
        cv2.putText(out, text, (16 + tht, y), cv2.FONT_HERSHEY_SIMPLEX, fs, col, th, cv2.LINE_AA)
        y += step
