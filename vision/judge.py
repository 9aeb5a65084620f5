"""Geometric judgement of detected pieces against a calibration (table mm, shapely).

Vectorised predicates over prepared geometries (``shapely.contains_xy``, ``STRtree.query`` with a
predicate), no Python loop over points.  Every verdict carries its margin: how far (mm) the piece
is from that verdict flipping; the piece's margin is the smallest of them, and a piece whose
margin is below the configured review margin is flagged for a person to confirm — or below how
far its parallax may be off, where the calibration photo did not tell the lens (see
:func:`parallax_doubt_mm`) — and so is one running out of the photo (:func:`out_of_photo`).
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Polygon

from calibration.model import Calibration
from tableref.config import RegistrationConfig, VisionConfig

from .detections import Detections
from .judgement import Judgement


def _touch_depth(fp: Polygon, zone: Polygon) -> float:
    """Depth of the deepest footprint point inside the zone (a lower bound of the shift that would
    stop the footprint touching it)."""
    inter = fp.intersection(zone)
    if inter.is_empty:
        return 0.0
    pts = shapely.get_coordinates(shapely.segmentize(inter, 1.0))
    c = np.asarray(inter.centroid.coords)
    pts = np.vstack([pts, c])
    # points of the intersection's outline, densified, plus a 2 mm grid inside it
    x0, y0, x1, y1 = inter.bounds
    gx, gy = np.meshgrid(np.arange(x0, x1, 2.0), np.arange(y0, y1, 2.0))
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    if len(grid):
        grid = grid[shapely.contains_xy(inter, grid[:, 0], grid[:, 1])]
        pts = np.vstack([pts, grid])
    d = shapely.distance(zone.boundary, shapely.points(pts))
    return float(np.max(d))


def parallax_doubt_mm(det: Detections, cal: Calibration) -> np.ndarray:
    """How far (table mm) each piece may be off because the calibration photo told too little of
    the focal length (``quality.focal_told``, 1: all of it; None: the lens came from camera.json):
    the camera's height, and so the parallax that places a tall piece from its top, is then the
    default lens's guess, up to ``prior_f_sigma`` off.  The parallax of the piece's top at its
    place, times that part of the prior's doubt the photo left.  Zero where the photo told it."""
    told = cal.data.quality.focal_told
    n = len(det)
    if told is None or told >= 1.0 or n == 0:
        return np.zeros(n)
    rel = RegistrationConfig().prior_f_sigma * (1.0 - told)
    return rel * cal.camera.parallax_mm(det.center_mm, det.height_mm, det.base_mm)


def by_photo_edge(pts: np.ndarray, size: tuple[int, int], margin: float) -> np.ndarray:
    """Which points (image px, (n, 2)) lie within ``margin`` px of the edge of a photo of ``size``
    (width, height), or beyond it (``margin`` 0: only those beyond it)."""
    w, h = size
    return (pts[:, 0] < margin) | (pts[:, 0] > w - 1 - margin) | (pts[:, 1] < margin) | (pts[:, 1] > h - 1 - margin)


def out_of_photo(det: Detections, cal: Calibration) -> np.ndarray:
    """Whether each piece's footprint runs out of the photo (a corner of it, projected at its base,
    beyond the photo's edge): posed on the part in view, which may not tell where the rest lies (a
    card of which a corner shows was posed 20 mm off)."""
    n = len(det)
    if n == 0:
        return np.zeros(0, bool)
    fps = [np.asarray(f, float).reshape(-1, 2) for f in det.footprint_mm]
    lens = [len(f) for f in fps]
    px = cal.camera.project_plane(np.concatenate(fps), np.repeat(np.asarray(det.base_mm, float), lens))
    return np.logical_or.reduceat(by_photo_edge(px, cal.camera.image_size, 0.0), np.cumsum([0] + lens[:-1]))


def judge(det: Detections, cal: Calibration, states: list[str] | None = None, pits: list[str | None] | None = None,
          pit_margins: list[float] | None = None, cfg: VisionConfig | None = None,
          confidences: np.ndarray | None = None, notes: list[str] | None = None,
          seen_mm: list[float] | None = None) -> Judgement:
    """Judge detections: outbound, zones touched, pit state, grid space, margins and review flags.

    ``states``/``pits`` come from the detector where the elevation told it (in a pit, stacked,
    on another piece, on the table); otherwise the state follows from the geometry here.
    ``notes``: what the detector says of a piece's reading, added to its reason ("" for none).
    ``seen_mm``: the width of the widest part of each piece that no other one covers (inf: seen
    whole).  A piece is seen at all from ``cfg.min_seen_mm``, so its being there is that close to
    flipping: its margin is at most the difference.
    """
    cfg = cfg or VisionConfig()
    n = len(det)
    if n == 0:
        return Judgement.empty()
    support = cal.support
    cx, cy = det.center_mm[:, 0], det.center_mm[:, 1]
    over = shapely.contains_xy(support, cx, cy)
    centres = shapely.points(det.center_mm)
    edge_dist = shapely.distance(support.boundary, centres)
    states = list(states) if states is not None else ["surface"] * n
    pits = list(pits) if pits is not None else [None] * n
    pit_margins = list(pit_margins) if pit_margins is not None else [np.inf] * n
    outbound = np.zeros(n, bool)
    zones_out: list[tuple[str, ...]] = [()] * n
    spaces: list[str | None] = [None] * n
    margins = np.full(n, np.inf)
    reasons = [""] * n
    footprints = [Polygon(fp) for fp in det.footprint_mm]
    fp_arr = np.array(footprints, dtype=object)

    # zones: candidate pairs from the tree (intersects, or within 40 mm for margins)
    touch_pairs = cal.zone_tree.query(fp_arr, predicate="intersects") if len(cal.zone_geoms) else np.zeros((2, 0), int)
    near_pairs = cal.zone_tree.query(fp_arr, predicate="dwithin", distance=40.0) if len(cal.zone_geoms) else np.zeros((2, 0), int)
    touched = [set() for _ in range(n)]
    for i, z in touch_pairs.T:
        touched[i].add(int(z))
    zone_ids = [z.id for z in cal.data.zones]

    # grid spaces of centres
    sp_pairs = cal.space_tree.query(centres, predicate="within") if len(cal.space_geoms) else np.zeros((2, 0), int)
    space_of = {int(i): int(s) for i, s in sp_pairs.T}

    for i in range(n):
        kind = det.kind[i]
        state = states[i]
        why = []
        if state == "on_piece":
            outbound[i] = True
            why.append("rests on another piece (counts as outbound)")
            margins[i] = min(margins[i], pit_margins[i])
        elif kind == "card":
            outbound[i] = not over[i]
            margins[i] = edge_dist[i]
        elif state in ("in_pit", "stacked", "hanging"):
            margins[i] = min(margins[i], pit_margins[i])
            why.append(f"{state.replace('_', ' ')} {pits[i]} (margin {pit_margins[i]:.1f} mm)")
        else:
            outbound[i] = not over[i]
            margins[i] = min(margins[i], edge_dist[i])
            if outbound[i]:
                states[i] = "off_board"
                why.append(f"centre {edge_dist[i]:.1f} mm off the boards: touches the table")
            else:
                why.append(f"centre {edge_dist[i]:.1f} mm inside the boards' edge")
                if np.isfinite(pit_margins[i]):
                    # (a PitRush disc on the surface: as close to hanging on the nearest pit's edge;
                    # elsewhere, what the detector's reading of where it rests hangs on, its note says)
                    margins[i] = min(margins[i], pit_margins[i])
                    if len(cal.data.pits):
                        why.append(f"{pit_margins[i]:.1f} mm from a pit's edge")
        if not outbound[i] and state not in ("on_piece",):
            names = []
            for z in sorted(touched[i]):
                d = _touch_depth(footprints[i], cal.zone_geoms[z])
                margins[i] = min(margins[i], d)
                names.append(zone_ids[z])
                why.append(f"touches {zone_ids[z]} by {d:.1f} mm")
            zones_out[i] = tuple(names)
        if i in space_of:
            s = space_of[i]
            spaces[i] = cal.data.spaces[s].id
            d = float(shapely.distance(cal.space_geoms[s].boundary, centres[i]))
            margins[i] = min(margins[i], d)
            why.append(f"on {spaces[i]} ({d:.1f} mm from its edge)")
        if seen_mm is not None and np.isfinite(seen_mm[i]):
            d = float(seen_mm[i]) - cfg.min_seen_mm
            margins[i] = min(margins[i], d)
            why.append(f"{seen_mm[i]:.1f} mm of it shows past the others ({d:.1f} mm over the "
                       f"{cfg.min_seen_mm:.1f} mm a piece must show to be seen)")
        if notes is not None and notes[i]:
            why.append(notes[i])
        reasons[i] = "; ".join(why)
    # nearest untouched zones bound the margin too
    for i, z in near_pairs.T:
        if int(z) in touched[i] or outbound[i]:
            continue
        margins[i] = min(margins[i], float(shapely.distance(footprints[i], cal.zone_geoms[int(z)])))
    conf = det.confidence if confidences is None else confidences
    unsure = parallax_doubt_mm(det, cal)
    cut = out_of_photo(det, cal)
    review = (margins < np.maximum(cfg.review_margin_mm, unsure)) | (conf < cfg.color_confidence_min) | cut
    for i in range(n):
        if not review[i]:
            continue
        if cut[i]:
            reasons[i] += " — REVIEW: it runs out of the photo (posed on the part in view)"
        if margins[i] < cfg.review_margin_mm:
            reasons[i] += f" — REVIEW: margin {margins[i]:.1f} mm"
        elif margins[i] < unsure[i]:
            reasons[i] += (f" — REVIEW: margin {margins[i]:.1f} mm, within the {unsure[i]:.1f} mm its parallax may be "
                           "off (the calibration photo did not tell the lens)")
        elif conf[i] < cfg.color_confidence_min or not cut[i]:
            reasons[i] += " — REVIEW: unsure of the piece"
    margins = np.where(np.isfinite(margins), margins, 999.0)
    return Judgement(det, outbound, zones_out, pits, states, spaces, margins, conf, review, reasons)
