"""3-D shapes of the pieces as stacks of prisms, and their placement in the table frame.

A piece's local frame: x along its heading, y to its right (seen from above), h up from its
underside, mm.  :func:`piece_to_table` maps local points to the table frame (mm, z into the table,
so a point h above a piece resting on the board has z = -h).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.profile import PieceSpec


@dataclass(frozen=True)
class Prism:
    """A vertical prism of the piece: ``polygon`` (K,2) local mm from height ``h0`` to ``h1``."""

    polygon: np.ndarray
    h0: float
    h1: float
    textured_top: bool = True
    shade: float = 1.0  # colour multiplier of this layer


def _scaled(poly: np.ndarray, s: float, dx: float = 0.0) -> np.ndarray:
    return poly * s + np.array([dx, 0.0])


def _circle(r: float, n: int = 48) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


def piece_prisms(spec: PieceSpec, upright: bool = False) -> list[Prism]:
    """The prisms that make up a piece of this kind."""
    fp = spec.footprint()
    h = spec.height_mm
    kind = spec.kind
    if spec.diameter_mm is not None:
        fp = _circle(spec.diameter_mm / 2, 40)
    if kind == "starship":
        cockpit = _scaled(fp, 0.42, 3.0)
        return [Prism(fp, 0.0, h * 0.7), Prism(cockpit, h * 0.7, h, shade=1.15)]
    if kind == "beam":
        if upright:
            w = float(np.ptp(fp[:, 1]))
            sq = np.array([[-w / 2, -w / 2], [w / 2, -w / 2], [w / 2, w / 2], [-w / 2, w / 2]])
            return [Prism(sq, 0.0, float(np.ptp(fp[:, 0])))]
        return [Prism(fp, 0.0, h)]
    if kind.startswith("figure:"):
        r = float(np.max(np.linalg.norm(fp, axis=1)))
        base = _circle(r, 40)
        body = fp * 0.78
        top = fp * 0.45
        return [Prism(base, 0.0, 2.5, textured_top=False, shade=0.8), Prism(body, 2.5, h * 0.8),
                Prism(top, h * 0.8, h, shade=1.1)]
    if kind == "meteor":
        return [Prism(fp, 0.0, h * 0.55, textured_top=False, shade=0.9), Prism(fp * 0.72, h * 0.55, h)]
    return [Prism(fp, 0.0, h)]


def tilt_matrix(tilt_deg: float, axis_deg: float) -> np.ndarray:
    """Rotation by ``tilt_deg`` about a horizontal axis at angle ``axis_deg`` in the table plane."""
    if tilt_deg == 0.0:
        return np.eye(3)
    a = np.radians(axis_deg)
    k = np.array([np.cos(a), np.sin(a), 0.0])
    t = np.radians(tilt_deg)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * (K @ K)


def piece_to_table(local: np.ndarray, center_mm, heading_deg: float, base_mm: float,
                   tilt_deg: float = 0.0, tilt_axis_deg: float = 0.0) -> np.ndarray:
    """Table-frame points (N,3) of local piece points (N,3: x, y, h)."""
    local = np.asarray(local, dtype=np.float64).reshape(-1, 3)
    c, s = np.cos(np.radians(heading_deg)), np.sin(np.radians(heading_deg))
    x = c * local[:, 0] - s * local[:, 1]
    y = s * local[:, 0] + c * local[:, 1]
    v = np.column_stack([x, y, -local[:, 2]])
    v = v @ tilt_matrix(tilt_deg, tilt_axis_deg).T
    return v + np.array([center_mm[0], center_mm[1], -base_mm])


def table_to_piece(pts: np.ndarray, center_mm, heading_deg: float, base_mm: float,
                   tilt_deg: float = 0.0, tilt_axis_deg: float = 0.0) -> np.ndarray:
    """Inverse of :func:`piece_to_table` (N,3 -> N,3 local x, y, h)."""
    v = np.asarray(pts, dtype=np.float64).reshape(-1, 3) - np.array([center_mm[0], center_mm[1], -base_mm])
    v = v @ tilt_matrix(tilt_deg, tilt_axis_deg)  # inverse rotation (orthonormal)
    c, s = np.cos(np.radians(heading_deg)), np.sin(np.radians(heading_deg))
    x = c * v[:, 0] + s * v[:, 1]
    y = -s * v[:, 0] + c * v[:, 1]
    return np.column_stack([x, y, -v[:, 2]])


def solid_vertices(prisms: list[Prism]) -> np.ndarray:
    """All prism corners in the local frame (N,3)."""
    out = []
    for p in prisms:
        for hh in (p.h0, p.h1):
            out.append(np.column_stack([p.polygon, np.full(len(p.polygon), hh)]))
    return np.concatenate(out)


def footprint_of(prisms: list[Prism], center_mm, heading_deg, base_mm, tilt_deg=0.0, tilt_axis_deg=0.0) -> np.ndarray:
    """Vertical projection of the solid onto the board plane: convex hull (K,2), table mm.

    For an untilted single prism this is exactly its bottom polygon.
    """
    import cv2

    pts = piece_to_table(solid_vertices(prisms), center_mm, heading_deg, base_mm, tilt_deg, tilt_axis_deg)[:, :2]
    if tilt_deg == 0.0:
        # the widest layer's polygon is the projection (layers are nested, not necessarily convex)
        big = max(prisms, key=lambda p: _area(p.polygon))
        loc = np.column_stack([big.polygon, np.zeros(len(big.polygon))])
        return piece_to_table(loc, center_mm, heading_deg, base_mm)[:, :2]
    hull = cv2.convexHull(pts.astype(np.float64).reshape(-1, 1, 2)).reshape(-1, 2)
    return hull


def _area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
