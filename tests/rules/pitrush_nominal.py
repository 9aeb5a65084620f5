"""The nominal PitRush board as plain data, for the rules tests.

A copy of ``calibration.nominal.pitrush_pit_centres`` / ``pitrush_profile`` computed the same way
with plain math (the rules engine must not import calibration); ``test_pitrush_geometry`` checks
that the copy still matches the calibration module when that module is importable.
"""

from __future__ import annotations

import math

from rules.pitrush import BoardGeometry

R = 300.0                       # circumradius of the hexagonal board
H = R * math.sqrt(3) / 2        # apothem
CENTRE = (R, H)
SPACING = 70.0
PIT_RADIUS = 17.0
INSET, HALF_LEN = 40.0, 90.0


def pit_centres() -> list[tuple[float, float]]:
    cx, cy = CENTRE
    pts = []
    for q in range(-2, 3):
        for r in range(-2, 3):
            if abs(q + r) <= 2:
                pts.append((q * SPACING + r * SPACING * 0.5, r * SPACING * math.sqrt(3) / 2))
    pts.sort(key=lambda p: (round(p[1], 3), p[0]))
    return [(round(cx + x, 3), round(cy + y, 3)) for x, y in pts]


def seats() -> dict[str, tuple]:
    cx, cy = CENTRE
    out = {}
    for k in range(6):
        a = math.radians(30 + 60 * k)
        n = (math.cos(a), math.sin(a))
        t = (-n[1], n[0])
        me = (cx + n[0] * H, cy + n[1] * H)
        ml = (me[0] - n[0] * INSET, me[1] - n[1] * INSET)
        p0 = (ml[0] - t[0] * HALF_LEN, ml[1] - t[1] * HALF_LEN)
        p1 = (ml[0] + t[0] * HALF_LEN, ml[1] + t[1] * HALF_LEN)
        w = HALF_LEN + INSET * 0.58
        e0 = (me[0] - t[0] * w, me[1] - t[1] * w)
        e1 = (me[0] + t[0] * w, me[1] + t[1] * w)
        rnd = lambda p: (round(p[0], 3), round(p[1], 3))  # noqa: E731
        out[f"seat{k + 1}"] = ((rnd(p0), rnd(p1)), [rnd(p) for p in (p0, p1, e1, e0)])
    return out


PIT_IDS = [f"p{i + 1}" for i in range(19)]


def geometry(**options) -> BoardGeometry:
    pits = {pid: (c, PIT_RADIUS) for pid, c in zip(PIT_IDS, pit_centres())}
    return BoardGeometry.from_data(pits, seats(), **options)


def lattice_coords() -> dict[str, tuple[int, int]]:
    """Pit id -> axial lattice coordinates (q, r): centre + q*e1 + r*e2 (e1 along x, e2 at 60 degrees)."""
    out = {}
    cx, cy = CENTRE
    for pid, (x, y) in zip(PIT_IDS, pit_centres()):
        r = round((y - cy) / (SPACING * math.sqrt(3) / 2))
        q = round((x - cx - r * SPACING / 2) / SPACING)
        out[pid] = (q, r)
    return out
