"""The camera model: intrinsics (pixels), pose (table frame -> camera), projection both ways.

Frames
------
* **image pixels** ``px``: x right, y down, origin at the centre of the top-left pixel, distorted
  (what the sensor delivers).
* **table frame** in millimetres ``mm``: on the board plane, x right, y down.  In 3-D the third axis
  ``z`` points *into* the table (so the frame is right-handed, like OpenCV's camera frame);
  a point ``h`` mm above the board plane has ``z = -h``.  The table top beside a board lies at
  ``z = +thickness``.

``Pose`` maps table points into the camera frame: ``X_cam = R @ X_table + t``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import cv2
import numpy as np
import pydantic

from tableref.files import FileModel, Part

_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 60, 1e-12)


def _as_pts(a: np.ndarray, dim: int) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.shape[-1] != dim:
        raise ValueError(f"expected points with {dim} coordinates, got shape {a.shape}")
    return a.reshape(-1, dim)


@dataclass(frozen=True, eq=False)
class Intrinsics:
    """Pinhole intrinsics plus OpenCV lens distortion (k1, k2, p1, p2[, k3, ...]), in image pixels."""

    image_size: tuple[int, int]  # (width, height) in px
    K: np.ndarray  # 3x3 camera matrix
    dist: np.ndarray = field(default_factory=lambda: np.zeros(5))

    def __post_init__(self) -> None:
        K = np.asarray(self.K, dtype=np.float64).reshape(3, 3)
        d = np.asarray(self.dist, dtype=np.float64).ravel()
        if d.size not in (4, 5, 8, 12, 14):
            raise ValueError(f"distortion needs 4, 5, 8, 12 or 14 coefficients, got {d.size}")
        if K[0, 0] <= 0 or K[1, 1] <= 0:
            raise ValueError("focal lengths must be positive")
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "dist", d)
        object.__setattr__(self, "image_size", (int(self.image_size[0]), int(self.image_size[1])))

    @property
    def fx(self) -> float:
        return float(self.K[0, 0])

    @property
    def fy(self) -> float:
        return float(self.K[1, 1])

    @property
    def principal_point(self) -> tuple[float, float]:
        return float(self.K[0, 2]), float(self.K[1, 2])

    @classmethod
    def from_fov(cls, image_size: tuple[int, int], hfov_deg: float, dist=None) -> "Intrinsics":
        w, h = image_size
        f = (w / 2) / np.tan(np.radians(hfov_deg) / 2)
        K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
        return cls(image_size, K, np.zeros(5) if dist is None else dist)

    def scaled(self, factor: float) -> "Intrinsics":
        """The same lens for an image resized by ``factor`` (pixel centres kept consistent)."""
        K = self.K.copy()
        K[0, 0] *= factor
        K[1, 1] *= factor
        K[0, 2] = (K[0, 2] + 0.5) * factor - 0.5
        K[1, 2] = (K[1, 2] + 0.5) * factor - 0.5
        w, h = self.image_size
        return Intrinsics((round(w * factor), round(h * factor)), K, self.dist.copy())

    def normalized_from_px(self, px: np.ndarray) -> np.ndarray:
        """Undistorted normalised coordinates (x/z, y/z) of distorted image pixels (N,2)."""
        px = _as_pts(px, 2)
        if px.shape[0] == 0:
            return px.copy()
        out = cv2.undistortPoints(px.reshape(-1, 1, 2), self.K, self.dist, criteria=_UNDISTORT_CRITERIA)
        return out.reshape(-1, 2)

    def px_from_normalized(self, xy: np.ndarray) -> np.ndarray:
        """Distorted pixels of undistorted normalised coordinates (N,2)."""
        xy = _as_pts(xy, 2)
        pts = np.concatenate([xy, np.ones((xy.shape[0], 1))], axis=1)
        return self.project_camera_points(pts)

    def project_camera_points(self, pts_cam: np.ndarray) -> np.ndarray:
        """Distorted pixels of 3-D points given in the camera frame (N,3)."""
        pts_cam = _as_pts(pts_cam, 3)
        if pts_cam.shape[0] == 0:
            return np.zeros((0, 2))
        out, _ = cv2.projectPoints(pts_cam, np.zeros(3), np.zeros(3), self.K, self.dist)
        return out.reshape(-1, 2)

    def undistort_px(self, px: np.ndarray) -> np.ndarray:
        """Ideal (undistorted) pixel positions of distorted pixels, same K."""
        xy = self.normalized_from_px(px)
        return xy @ self.K[:2, :2].T + self.K[:2, 2]


@dataclass(frozen=True, eq=False)
class Pose:
    """Rigid transform table frame (mm) -> camera frame (mm): ``X_cam = R @ X_table + t``."""

    rvec: np.ndarray
    tvec: np.ndarray

    def __post_init__(self) -> None:
        object.__setattr__(self, "rvec", np.asarray(self.rvec, dtype=np.float64).reshape(3))
        object.__setattr__(self, "tvec", np.asarray(self.tvec, dtype=np.float64).reshape(3))

    @property
    def R(self) -> np.ndarray:
        return cv2.Rodrigues(self.rvec)[0]

    @property
    def camera_center_mm(self) -> np.ndarray:
        """Camera centre in the table frame (z negative: above the board)."""
        return -self.R.T @ self.tvec

    @property
    def height_above_board_mm(self) -> float:
        return float(-self.camera_center_mm[2])

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and the board normal."""
        axis_table = self.R.T @ np.array([0.0, 0.0, 1.0])
        return float(np.degrees(np.arccos(np.clip(axis_table[2], -1, 1))))

    @classmethod
    def from_matrix(cls, R: np.ndarray, t: np.ndarray) -> "Pose":
        return cls(cv2.Rodrigues(np.asarray(R, dtype=np.float64))[0], t)

    @classmethod
    def look_at(cls, eye_mm, target_mm, up_hint=(0.0, -1.0, 0.0)) -> "Pose":
        """A camera at ``eye_mm`` (table frame, z<0 above the board) looking at ``target_mm``.

        The image's "up" follows ``up_hint`` (default: table -y, so image rows run along table +y).
        """
        eye = np.asarray(eye_mm, dtype=np.float64)
        tgt = np.asarray(target_mm, dtype=np.float64)
        z = tgt - eye
        z /= np.linalg.norm(z)
        up = np.asarray(up_hint, dtype=np.float64)
        x = np.cross(-up, z)  # image x (right)
        if np.linalg.norm(x) < 1e-9:
            x = np.cross(np.array([0.0, 1.0, 0.0]), z)
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        R = np.stack([x, y, z])  # rows: camera axes in table coordinates
        t = -R @ eye
        return cls.from_matrix(R, t)


@dataclass(frozen=True, eq=False)
class CameraModel:
    """A calibrated camera: intrinsics plus its pose over the table."""

    intrinsics: Intrinsics
    pose: Pose

    @property
    def image_size(self) -> tuple[int, int]:
        return self.intrinsics.image_size

    def to_camera(self, pts_mm: np.ndarray) -> np.ndarray:
        pts = _as_pts(pts_mm, 3)
        return pts @ self.pose.R.T + self.pose.tvec

    def project(self, pts_mm: np.ndarray) -> np.ndarray:
        """Image pixels (N,2) of table-frame 3-D points (N,3) in mm."""
        pts = _as_pts(pts_mm, 3)
        if pts.shape[0] == 0:
            return np.zeros((0, 2))
        out, _ = cv2.projectPoints(pts, self.pose.rvec, self.pose.tvec, self.intrinsics.K, self.intrinsics.dist)
        return out.reshape(-1, 2)

    def project_plane(self, xy_mm: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Image pixels of points ``xy_mm`` (N,2) lying ``height_mm`` above the board plane."""
        xy = _as_pts(xy_mm, 2)
        z = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (xy.shape[0],))
        return self.project(np.column_stack([xy, z]))

    def rays_mm(self, px: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Camera centre (3,) and unit ray directions (N,3) in the table frame for image pixels."""
        n = self.intrinsics.normalized_from_px(px)
        d_cam = np.column_stack([n, np.ones(n.shape[0])])
        d = d_cam @ self.pose.R  # R^T applied to row vectors
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        return self.pose.camera_center_mm, d

    def backproject(self, px: np.ndarray, height_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Table-frame mm (N,2) where the rays of pixels ``px`` meet the plane ``height_mm`` above the board."""
        c, d = self.rays_mm(px)
        z_plane = -np.broadcast_to(np.asarray(height_mm, dtype=np.float64), (d.shape[0],))
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (z_plane - c[2]) / d[:, 2]
        return c[:2] + s[:, None] * d[:, :2]

    def parallax_mm(self, xy_mm: np.ndarray, height_mm: float | np.ndarray,
                    base_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """How far (mm, (N,)) the top of something ``height_mm`` tall standing at ``xy_mm`` on the
        plane ``base_mm`` seems to stand from its foot: its image taken back to that plane."""
        xy = _as_pts(xy_mm, 2)
        base = np.asarray(base_mm, dtype=np.float64)
        return np.linalg.norm(self.backproject(self.project_plane(xy, base + height_mm), base) - xy, axis=1)

    def mm_per_px_at(self, xy_mm: np.ndarray, height_mm: float = 0.0) -> np.ndarray:
        """Local scale on the plane: mm covered by one pixel near each table point (N,)."""
        xy = _as_pts(xy_mm, 2)
        p0 = self.project_plane(xy, height_mm)
        p1 = self.project_plane(xy + [1.0, 0.0], height_mm)
        p2 = self.project_plane(xy + [0.0, 1.0], height_mm)
        j = np.sqrt(np.abs((p1 - p0)[:, 0] * (p2 - p0)[:, 1] - (p1 - p0)[:, 1] * (p2 - p0)[:, 0]))
        return 1.0 / np.maximum(j, 1e-12)

    def plane_homography(self, height_mm: float = 0.0) -> np.ndarray:
        """3x3 homography table mm (on the plane ``height_mm`` above board) -> *undistorted* pixels."""
        R, t = self.pose.R, self.pose.tvec
        z = -height_mm
        H = self.intrinsics.K @ np.column_stack([R[:, 0], R[:, 1], R[:, 2] * z + t])
        return H / H[2, 2]


# ------------------------------------------------------------------------------------------ files

class IntrinsicsPart(Part):
    """Intrinsics as stored in JSON files (image pixels)."""

    image_size: tuple[pydantic.PositiveInt, pydantic.PositiveInt] = pydantic.Field(
        description="(width, height) of the images, px")
    camera_matrix: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
    dist_coeffs: list[float] = pydantic.Field(description="OpenCV order: k1, k2, p1, p2[, k3, ...]")

    @pydantic.field_validator("dist_coeffs")
    @classmethod
    def _dist_len(cls, v: list[float]) -> list[float]:
        if len(v) not in (4, 5, 8, 12, 14):
            raise ValueError(f"expected 4, 5, 8, 12 or 14 coefficients, got {len(v)}")
        return v

    def to_intrinsics(self) -> Intrinsics:
        return Intrinsics(self.image_size, np.array(self.camera_matrix), np.array(self.dist_coeffs))

    @classmethod
    def of(cls, intr: Intrinsics) -> "IntrinsicsPart":
        return cls(image_size=intr.image_size, camera_matrix=tuple(map(tuple, intr.K.tolist())),
                   dist_coeffs=intr.dist.tolist())


class PosePart(Part):
    """Pose as stored in JSON: Rodrigues vector and translation, table frame (mm) -> camera."""

    rvec: tuple[float, float, float]
    tvec_mm: tuple[float, float, float]

    def to_pose(self) -> Pose:
        return Pose(np.array(self.rvec), np.array(self.tvec_mm))

    @classmethod
    def of(cls, pose: Pose) -> "PosePart":
        return cls(rvec=tuple(pose.rvec.tolist()), tvec_mm=tuple(pose.tvec.tolist()))


class ViewResidual(Part):
    name: str
    rms_px: float | None = pydantic.Field(None, description="None when the pattern was not found in the view")
    used: bool = True
    reason: str | None = None


class CameraFile(FileModel):
    """``camera.json``: camera intrinsics from ``tableref calibrate camera``."""

    format: Literal["tableref-camera/1"] = "tableref-camera/1"
    intrinsics: IntrinsicsPart
    rms_px: float = pydantic.Field(ge=0, description="overall RMS reprojection error of the used views, px")
    views: list[ViewResidual] = []
    target: str | None = pydantic.Field(None, description="e.g. 'chessboard 9x6, 25 mm'")
