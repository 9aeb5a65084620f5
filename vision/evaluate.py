"""Compare a judgement with a simulated scene's ground truth (``tableref bench accuracy``).

Detected pieces are matched to true pieces one-to-one (Hungarian, by centre distance, gated);
unmatched true pieces are misses, unmatched detections false pieces.  Centres are compared through
the image (the estimated table frame may differ from the simulator's by the calibration's gauge):
the true centre is projected by the true camera and back-projected by the estimated one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.camera import CameraModel
from calibration.model import union

from .judgement import Judgement

VERDICTS = ("outbound", "zones", "state", "pit", "space", "kind", "color")


@dataclass
class SceneScore:
    n_true: int
    missed: int
    false: int
    center_err_mm: list[float] = field(default_factory=list)
    # per verdict: list of (truth, detected, margin_mm)
    verdicts: dict[str, list[tuple[str, str, float]]] = field(default_factory=dict)
    missed_hidden: int = 0   # of the missed, those a piece lying on them covers (almost) whole
    missed_ids: list[int] = field(default_factory=list)
    missed_unseen: int = 0   # of the missed, those more than half outside the photo
    matched: list[tuple[int, int]] = field(default_factory=list)  # (true piece, detection) pairs,
                                                                   # in the order of center_err_mm


def covered_fraction(truth_pieces) -> np.ndarray:
    """For each true piece, the fraction of its footprint that pieces resting higher cover (seen
    from above: a disc in a pit under a stacked disc is hidden from a camera overhead)."""
    from shapely.geometry import Polygon

    polys = [Polygon(p.footprint_mm).buffer(0) for p in truth_pieces]
    out = np.zeros(len(truth_pieces))
    for i, p in enumerate(truth_pieces):
        above = [polys[k] for k, q in enumerate(truth_pieces) if k != i and q.base_mm > p.base_mm + 1e-6]
        if above and polys[i].area > 0:
            out[i] = union(above).intersection(polys[i]).area / polys[i].area
    return out


def outside_fraction(truth_pieces, cam: CameraModel) -> np.ndarray:
    """For each true piece, the fraction of its footprint (seen at its base) outside the photo."""
    from shapely.geometry import Polygon, box

    w, h = cam.image_size
    frame = box(0, 0, w, h)
    out = np.zeros(len(truth_pieces))
    for i, p in enumerate(truth_pieces):
        poly = Polygon(cam.project_plane(np.asarray(p.footprint_mm, float), p.base_mm)).buffer(0)
        if poly.area > 0:
            out[i] = 1.0 - poly.intersection(frame).area / poly.area
    return out


def _state_of(p) -> str:
    return p.state


def score_scene(j: Judgement, truth_pieces, true_cam: CameraModel, est_cam: CameraModel, game: str,
                gate_mm: float = 15.0, identity_mm: float = 5.0) -> SceneScore:
    n_t, n_d = len(truth_pieces), len(j)
    s = SceneScore(n_t, 0, 0, verdicts={v: [] for v in VERDICTS})
    if n_t == 0 or n_d == 0:
        s.missed, s.false = n_t, n_d
        s.missed_ids = list(range(n_t))
        if n_t:
            s.missed_hidden = int(sum(covered_fraction(truth_pieces) > 0.9))
            s.missed_unseen = int(sum(outside_fraction(truth_pieces, true_cam) > 0.5))
        return s
    true_c = np.array([p.center_mm for p in truth_pieces])
    true_base = np.array([p.base_mm for p in truth_pieces])
    # true centres in the estimated table frame, at each piece's base height
    in_est = np.array([est_cam.backproject(true_cam.project_plane(true_c[i:i + 1], true_base[i]), true_base[i])[0]
                       for i in range(n_t)])
    det_c = j.detections.center_mm
    cost = np.linalg.norm(in_est[:, None, :] - det_c[None, :, :], axis=2)
    # a detection is matched to the piece it shows: of a disc and the one it hides beneath it (their
    # centres a few mm apart), the one in view, so that the hidden one is the one missed and the
    # verdicts are those of the piece seen (a covered piece's distance counts gate_mm more per
    # footprint covered; the gate itself is on the distance)
    cov = covered_fraction(truth_pieces)
    # ... and, of two pieces lying on one another (their centres a few mm apart), to the one of its
    # kind and colour: a detection of another kind or colour than a piece is matched to it rather
    # than to one like it only where that is ``identity_mm`` nearer (a red ship on a blue one, both
    # posed 5 mm off, is not scored as each other's).  One of the wrong colour with no piece like
    # it near is still matched to the piece it stands on, and counted wrong; the gate stays on the
    # distance
    other = np.array([[p.kind != k or p.color != c for k, c in zip(j.detections.kind, j.detections.color)]
                      for p in truth_pieces], bool)
    weighed = cost + gate_mm * cov[:, None] + identity_mm * other
    rows, cols = linear_sum_assignment(np.where(cost < gate_mm, weighed, 1e6))
    matched = [(r, c) for r, c in zip(rows, cols) if cost[r, c] < gate_mm]
    s.missed = n_t - len(matched)
    s.false = n_d - len(matched)
    found = {r for r, _ in matched}
    s.missed_ids = [i for i in range(n_t) if i not in found]
    if s.missed_ids:
        s.missed_hidden = int(sum(cov[i] > 0.9 for i in s.missed_ids))
        out = outside_fraction([truth_pieces[i] for i in s.missed_ids], true_cam)
        s.missed_unseen = int(sum(out > 0.5))
    s.matched = matched
    for r, c in matched:
        p = truth_pieces[r]
        s.center_err_mm.append(float(cost[r, c]))
        m = float(p.margin_mm)
        v = s.verdicts
        v["outbound"].append((str(p.outbound), str(bool(j.outbound[c])), m))
        v["kind"].append((p.kind, str(j.detections.kind[c]), m))
        v["color"].append((p.color, str(j.detections.color[c]), m))
        if game in ("pitchfleet", "asfccg"):
            v["zones"].append((",".join(sorted(p.zones)) or "-", ",".join(sorted(j.zones[c])) or "-", m))
        if game in ("pitrush", "asfccg"):
            v["state"].append((_state_of(p), str(j.state[c]), m))
        if game == "pitrush":
            tp = p.pit.split("/")[-1] if p.pit else "-"
            dp = j.pit[c].split("/")[-1] if j.pit[c] else "-"
            v["pit"].append((tp, dp, m))
        if game == "galaktico":
            v["space"].append((p.space or "-", j.space[c] or "-", m))
    return s
