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


def piece_prisms(spec: PieceSpec, upright: bool = False) -> list[Prism]:
    """The prisms that make up a piece: the profile's layers (a beam may also stand on its end)."""
    if spec.kind == "beam" and upright:
        fp = spec.footprint()
        w = float(np.ptp(fp[:, 1]))
        sq = np.array([[-w / 2, -w / 2], [w / 2, -w / 2], [w / 2, w / 2], [-w / 2, w / 2]])
        return [Prism(sq, 0.0, float(np.ptp(fp[:, 0])))]
    slices = spec.slices(40)
    out = []
    for i, (poly, h0, h1) in enumerate(slices):
        top = i == len(slices) - 1
        # lower layers of a stack show only a rim of their top: plain, slightly darker
        out.append(Prism(poly, h0, h1, textured_top=top or len(slices) == 1, shade=1.0 if top else 0.85))
    return out


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
