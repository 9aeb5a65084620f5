"""Exact verdicts of simulated pieces, from the geometry the simulator itself placed (table mm).

The simulator knows where every piece rests (board, table, pit, another piece); these functions
turn that into the verdicts the referee must reproduce, with the margin to the nearest decision
boundary.  They do not call the vision code: the benchmarks compare the two.
"""

from __future__ import annotations

import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from calibration.model import Layout


def touch_margin(fp: Polygon, zone: Polygon, touching: bool) -> float:
    """How far the footprint may move before its touching ``zone`` flips (mm, a lower bound when touching).

    Not touching: the gap between them.  Touching: the depth of the deepest footprint point inside
    the zone (any shift smaller than that keeps that point inside).
    """
    if not touching:
        return float(shapely.distance(fp, zone))
    inter = fp.intersection(zone)
    if inter.is_empty:
        return 0.0
    lo, hi = 0.0, 60.0
    for _ in range(22):
        mid = (lo + hi) / 2
        inner = zone.buffer(-mid, quad_segs=8)
        if not inner.is_empty and fp.intersects(inner):
            lo = mid
        else:
            hi = mid
    return lo


class TruthJudge:
    """Ground-truth verdicts for one layout (all in table mm)."""

    def __init__(self, layout: Layout):
        self.layout = layout
        self.support = layout.support
        self.zones = [(z.id, Polygon(z.polygon, z.holes)) for z in layout.zones()]
        self.pits = layout.pits()
        self.spaces = [(s.id, Polygon(s.polygon)) for s in layout.spaces()]

    def over_support(self, xy) -> tuple[bool, float]:
        """Is the point over the support region, and its distance to the region's boundary (mm)."""
        p = Point(xy)
        inside = bool(self.support.covers(p))
        return inside, float(self.support.boundary.distance(p))

    def zones_touched(self, fp: Polygon) -> tuple[list[str], float]:
        touched, margin = [], np.inf
        for zid, g in self.zones:
            d = shapely.distance(fp, g)
            if d > 40:
                continue
            t = bool(fp.intersects(g))
            if t:
                touched.append(zid)
            margin = min(margin, touch_margin(fp, g, t))
        return touched, float(margin)

    def space_of(self, xy) -> tuple[str | None, float]:
        p = Point(xy)
        best, margin = None, np.inf
        for sid, g in self.spaces:
            if g.covers(p):
                best = sid
                margin = float(g.exterior.distance(p))
                break
        return best, margin

    def pit_near(self, fp: Polygon) -> list[tuple[str, float]]:
        """(pit id, overlap depth) for pits the footprint overlaps or nearly overlaps (depth < 0: gap)."""
        out = []
        c = np.asarray(fp.centroid.coords[0])
        r_fp = float(np.max(np.linalg.norm(np.asarray(fp.exterior.coords) - c, axis=1)))
        for p in self.pits:
            d = float(np.linalg.norm(c - np.asarray(p.center)))
            out.append((p.id, (r_fp + p.radius) - d))
        return out
