"""Where a piece appears in the photo: the image silhouette of its 3-D shape (image px).

A piece is a stack of vertical slices (the profile's layers).  Posed in the table frame — centre
``(x, y)`` mm, heading, underside at ``base_mm`` above the board plane — each slice projects to
the convex hull of its bottom and top outlines; the silhouette is the union of those hulls.  This
is what makes footprints exact away from the centre of the view: the top is displaced by
parallax, the side walls show, and the fit recovers the footprint that rests on the board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.profile import PieceSpec

from .kernels import clip_height, kernel_camera, signed_distance_edges, silhouette_kernel


def main_axis(xy: np.ndarray) -> tuple[float, np.ndarray]:
    """The long axis of a cloud of points (degrees, from x towards y) and the variances along the
    short and the long axis."""
    d = xy - xy.mean(axis=0)
    w, v = np.linalg.eigh(d.T @ d / len(d))
    return float(np.degrees(np.arctan2(v[1, 1], v[0, 1]))), w


@dataclass(frozen=True)
class PieceShape:
    """A kind of piece as the detector sees it."""

    kind: str
    color: str
    height_mm: float
    slices: tuple[tuple[np.ndarray, float, float], ...]  # (polygon local mm, h0, h1)
    footprint: np.ndarray                                # (K,2) local mm, the widest slice
    round: bool                                          # rotation does not matter at all
    round_footprint: bool = False                        # the footprint is a circle (upper layers may not be)
    period_deg: float = 360.0                            # the shape looks the same turned by this much

    @cached_property
    def area_mm2(self) -> float:
        return polygon_area(self.footprint)

    @cached_property
    def radius_mm(self) -> float:
        """How far the footprint reaches from the piece's centre (a disc's radius)."""
        return float(np.max(np.linalg.norm(self.footprint, axis=1)))

    @cached_property
    def axis_deg(self) -> float:
        """The footprint's long axis (degrees, from local x towards y): what an outline's own long
        axis is compared with to guess the heading."""
        return main_axis(self.footprint)[0]

    @cached_property
    def roundish(self) -> bool:
        """About as wide every way: the footprint's long axis's variance within 15% of its short's
        (a rough rock; a ship or a beam is long), so that its outline hardly shows its heading."""
        w = main_axis(self.footprint)[1]
        return bool(w[1] < 1.15 * w[0])

    @cached_property
    def stacked(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every slice's bottom and top outline in one array (local mm), whether each point is on a
        bottom, the slice's h0 and h1 per point, and the slice of each point."""
        local = np.concatenate([np.vstack([p, p]) for p, _, _ in self.slices])
        bottom = np.concatenate([np.repeat([True, False], len(p)) for p, _, _ in self.slices])
        h0 = np.concatenate([np.full(2 * len(p), a) for p, a, _ in self.slices])
        h1 = np.concatenate([np.full(2 * len(p), b) for p, _, b in self.slices])
        which = np.concatenate([np.full(2 * len(p), i) for i, (p, _, _) in enumerate(self.slices)])
        return local, bottom, h0, h1, which

    @classmethod
    def from_spec(cls, spec: PieceSpec, n_circle: int = 20) -> "PieceShape":
        slices = tuple((np.asarray(p, dtype=np.float64), float(h0), float(h1)) for p, h0, h1 in spec.slices(n_circle))
        widest = max(slices, key=lambda s: polygon_area(s[0]))[0]
        is_round = spec.diameter_mm is not None and all(
            abs(np.ptp(s[0][:, 0]) - np.ptp(s[0][:, 1])) < 1e-6 and abs(s[0].mean(axis=0)).max() < 1e-6 for s in slices)
        return cls(spec.kind, spec.color, spec.height_mm, slices, widest, bool(is_round),
                   spec.diameter_mm is not None, _symmetry_period(slices))

    def upright(self) -> "PieceShape":
        """The same piece standing on its end (a magnetic beam): footprint = its cross-section."""
        fp = self.slices[0][0]
        w = float(np.ptp(fp[:, 1]))
        sq = np.array([[-w / 2, -w / 2], [w / 2, -w / 2], [w / 2, w / 2], [-w / 2, w / 2]])
        return PieceShape(self.kind, self.color, float(np.ptp(fp[:, 0])), ((sq, 0.0, float(np.ptp(fp[:, 0]))),), sq,
                          False)


def _symmetry_period(slices) -> float:
    """Smallest turn (deg) that maps every slice onto itself (360 if none smaller)."""
    for n in (12, 8, 6, 5, 4, 3, 2):
        a = np.radians(360.0 / n)
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        if all(_same_polygon(p @ R.T, p) for p, _, _ in slices):
            return 360.0 / n
    return 360.0


def _same_polygon(a: np.ndarray, b: np.ndarray, tol: float = 1e-3) -> bool:
    d = np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)
    return bool(np.all(d.min(axis=1) < tol))


def polygon_area(poly: np.ndarray) -> float:
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def pose_points(local: np.ndarray, x: float, y: float, heading_deg: float, out: np.ndarray | None = None) -> np.ndarray:
    """Local points (mm, (n, 2)) turned by the heading and moved to ``(x, y)``; written into the first
    two columns of ``out`` (n, >= 2) where given (and ``out`` returned)."""
    c, s = np.cos(np.radians(heading_deg)), np.sin(np.radians(heading_deg))
    if out is None:
        return np.column_stack([c * local[:, 0] - s * local[:, 1] + x, s * local[:, 0] + c * local[:, 1] + y])
    out[:, 0] = c * local[:, 0] - s * local[:, 1] + x
    out[:, 1] = s * local[:, 0] + c * local[:, 1] + y
    return out


def footprint_mm(shape: PieceShape, x: float, y: float, heading_deg: float) -> np.ndarray:
    return pose_points(shape.footprint, x, y, heading_deg)


def silhouette_hulls(shape: PieceShape, cam: CameraModel, x: float, y: float, heading_deg: float,
                     base_mm: float, clip_below_mm: float | None = None) -> list[np.ndarray]:
    """Convex image polygons (px) whose union is the piece's silhouette.

    ``clip_below_mm``: hide what lies below that height (a disc sunk in a pit shows only the part
    above the board surface).
    """
    rad = np.radians(heading_deg)
    _, px, verts, starts = silhouette_kernel(*shape.stacked, float(x), float(y), float(np.cos(rad)), float(np.sin(rad)),
                                             float(base_mm), clip_height(clip_below_mm), kernel_camera(cam))
    return [px[v] for v in np.split(verts, starts[1:])] if len(verts) else []


def signed_distance(points: np.ndarray, hulls: list[np.ndarray]) -> np.ndarray:
    """Signed distance (px) of points to the union of convex polygons: negative inside (infinite
    where there are none).  Compiled: see :func:`vision.kernels.signed_distance_edges`."""
    a, b, starts = polygon_edges(hulls)
    if not len(a):
        return np.full(len(points), np.inf)
    return signed_distance_edges(np.ascontiguousarray(points, dtype=np.float64), a, b, starts, False)[0]


def polygon_edges(hulls: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The edges of polygons, one polygon's after another's: each edge's first vertex (E, 2), the
    edge as a vector to the next vertex round its polygon (E, 2), and where each non-empty
    polygon's edges begin (H,)."""
    hulls = [np.asarray(h, dtype=np.float64) for h in hulls if len(h)]
    if not hulls:
        return np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int64)
    a = np.concatenate(hulls)
    b = np.concatenate([np.roll(h, -1, axis=0) for h in hulls]) - a
    return a, b, np.cumsum([0] + [len(h) for h in hulls[:-1]])


@lru_cache(maxsize=64)
def _unit_circle(n: int) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([np.cos(a), np.sin(a)])


def silhouette_mask(hulls: list[np.ndarray], bbox: tuple[int, int, int, int], shift: int = 4) -> np.ndarray:
    """Rasterise the silhouette inside a box (uint8 0/1)."""
    x0, y0, x1, y1 = bbox
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for h in hulls:
        cv2.fillConvexPoly(m, np.round((h - [x0, y0]) * (1 << shift)).astype(np.int32), 1, cv2.LINE_8, shift)
    return m
