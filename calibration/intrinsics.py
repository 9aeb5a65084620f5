"""Camera intrinsics from photos of a chessboard or a ChArUco board (``tableref calibrate camera``).

Pipeline
--------
1. **Detect** the target in every view (:func:`detect_views`).

   * Chessboard (``cols x rows`` *inner* corners): ``cv2.findChessboardCornersSB``; when it fails,
     the classic ``cv2.findChessboardCorners``.  Either way the corners are then refined with
     ``cv2.cornerSubPix`` in a window sized to the board in that view: half-width
     ``w = 0.3 x`` the smallest distance between neighbouring corners, clamped to 2..11 px.  At
     ``w < s / (2 sqrt 2)`` the window never reaches a neighbouring corner, even diagonally; a fixed
     11 px half-window (OpenCV's sample) straddles neighbours on small or steeply tilted boards and
     biases those corners by up to a pixel.
   * ChArUco (``x x y`` squares): ``cv2.aruco.CharucoDetector.detectBoard`` and
     ``board.matchImagePoints`` for the object/image pairs.  Partial views are fine.

   A view needs at least :data:`MIN_POINTS` corners that do not lie on one line; otherwise it is
   named with the reason and not used.

2. **Calibrate** with ``cv2.calibrateCamera`` (5 coefficients k1, k2, p1, p2, k3).

   * ``fix_aspect`` -> ``CALIB_FIX_ASPECT_RATIO`` with fx/fy = 1 (square pixels);
   * ``tangential=False`` -> ``CALIB_ZERO_TANGENT_DIST``;
   * ``k3``: ``True`` estimates it, ``False`` fixes it at 0, ``None`` (default) estimates it only when
     the calibration uses at least :data:`K3_MIN_VIEWS` views.  k3 is strongly correlated with k1
     and k2 and only constrained by corners near the image edges; with few views it overfits and
     the model misbehaves away from the observed corners.

3. **Drop bad views**, one at a time, after each calibration (with more than :data:`MIN_VIEWS`
   views; two views cannot judge a third).  The candidate is the view whose removal lowers the RMS
   of the others the most.  It is judged against the lens calibrated from the *other* views (its
   pose fitted alone), so that a grossly wrong view cannot hide by dragging the lens towards itself
   -- a wrong view included in the fit inflates every view's error, and the median with it.  With
   ``m`` the median per-view RMS of the other views in that calibration, the candidate is dropped
   when its RMS exceeds ``max(3 x m, m + 1 px)`` (:data:`OUTLIER_FACTOR`,
   :data:`OUTLIER_MARGIN_PX`); then the camera is calibrated again without it, and the search
   repeats.  The factor catches views several times worse than typical; the 1 px margin keeps good
   sets (median 0.1-0.3 px) from losing views over a fraction of a pixel.  The rule is fixed, not
   tuned to any data set.  A dropped view keeps, as its ``rms_px``, the error it was judged by.

4. Fewer than :data:`MIN_VIEWS` usable views -> :class:`NotEnoughViews` (nothing is written).

Per-view RMS is ``sqrt(mean |projected - detected|^2)`` over the view's corners, in pixels; the
overall RMS is the same over all corners of the views used (OpenCV's ``calibrateCamera`` RMS).
In ``camera.json`` a view whose pattern was not found has ``rms_px = null`` (there is no residual),
``used = false`` and the reason.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from tableref.errors import CalibrationRejected, InputError

from .camera import CameraFile, Intrinsics, IntrinsicsPart, ViewResidual

MIN_VIEWS = 3
"""Fewest usable views a calibration accepts."""
MIN_POINTS = 6
"""Fewest corners (not all on one line) a view needs to take part."""
K3_MIN_VIEWS = 10
"""With ``k3=None``, k3 is estimated only when at least this many views are used."""
OUTLIER_FACTOR = 3.0
OUTLIER_MARGIN_PX = 1.0
"""``rms_px`` written for a view without a residual (pattern not found)."""

_SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 40, 0.001)
_CALIB_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 100, 1e-10)
_SB_FLAGS = cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_EXHAUSTIVE | cv2.CALIB_CB_ACCURACY
_CLASSIC_FLAGS = cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK


class NotEnoughViews(InputError):
    """Fewer than :data:`MIN_VIEWS` views are usable; ``views`` says what happened to each."""

    def __init__(self, message: str, hint: str | None = None, views: list[ViewResult] | None = None):
        self.views = views or []
        super().__init__(message, hint)


# ------------------------------------------------------------------------------------------ target

_SPEC = re.compile(r"^\s*(\d+)\s*[xX*]\s*(\d+)\s*$")


def _parse_spec(spec: str | tuple[int, int], option: str, what: str, minimum: int) -> tuple[int, int]:
    if isinstance(spec, str):
        m = _SPEC.match(spec)
        if not m:
            raise InputError(f"{option} '{spec}' is not COLSxROWS ({what})", f"e.g. {option} 9x6")
        a, b = int(m.group(1)), int(m.group(2))
    else:
        a, b = (int(v) for v in spec)
    if a < minimum or b < minimum:
        raise InputError(f"{option} '{a}x{b}': need at least {minimum} {what} each way", f"e.g. {option} 9x6")
    return a, b


def _check_length(value: float, option: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{option} must be a positive length in mm, got {value:g}")
    return value


def aruco_dictionary(name: str) -> int:
    """The OpenCV id of a predefined ArUco dictionary named like ``DICT_6X6_250``."""
    key = name.strip().upper()
    if not key.startswith("DICT_"):
        key = "DICT_" + key
    value = getattr(cv2.aruco, key, None)
    if not isinstance(value, int):
        known = sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_") and n == n.upper())
        raise InputError(f"--dict '{name}' is not a predefined ArUco dictionary",
                         f"use one of {', '.join(known[:6])}, ... (e.g. DICT_6X6_250)")
    return value


@dataclass(frozen=True)
class Target:
    """The calibration target.

    ``size`` is ``(cols, rows)`` of *inner corners* for a chessboard and ``(x, y)`` of *squares* for a
    ChArUco board (OpenCV's conventions).  Lengths in mm.
    """

    kind: Literal["chessboard", "charuco"]
    size: tuple[int, int]
    square_mm: float
    marker_mm: float | None = None
    dictionary: str | None = None

    @classmethod
    def chessboard(cls, spec: str | tuple[int, int], square_mm: float) -> Target:
        size = _parse_spec(spec, "--chessboard", "inner corners", 3)
        return cls("chessboard", size, _check_length(square_mm, "--square-mm"))

    @classmethod
    def charuco(cls, spec: str | tuple[int, int], square_mm: float, marker_mm: float,
                dictionary: str = "DICT_6X6_250") -> Target:
        size = _parse_spec(spec, "--charuco", "squares", 3)
        square = _check_length(square_mm, "--square-mm")
        marker = _check_length(marker_mm, "--marker-mm")
        if marker >= square:
            raise InputError(f"--marker-mm {marker:g} must be smaller than --square-mm {square:g}")
        aruco_dictionary(dictionary)
        key = dictionary.strip().upper()
        key = key if key.startswith("DICT_") else "DICT_" + key
        n_markers = (size[0] * size[1]) // 2
        dict_size = int(key.rsplit("_", 1)[-1]) if key.rsplit("_", 1)[-1].isdigit() else None
        if dict_size is not None and n_markers > dict_size:
            raise InputError(f"a {size[0]}x{size[1]} ChArUco board needs {n_markers} markers but {key} has only "
                             f"{dict_size}", "check --charuco and --dict")
        return cls("charuco", size, square, marker, key)

    def describe(self) -> str:
        c, r = self.size
        if self.kind == "chessboard":
            return f"chessboard {c}x{r} inner corners, {self.square_mm:g} mm squares"
        return (f"ChArUco {c}x{r} squares, {self.square_mm:g} mm squares, {self.marker_mm:g} mm markers, "
                f"{self.dictionary}")

    def chessboard_points(self) -> np.ndarray:
        """Object points (cols*rows, 3) in mm of the inner corners, row by row (OpenCV's order)."""
        c, r = self.size
        obj = np.zeros((c * r, 3), np.float32)
        obj[:, :2] = np.mgrid[0:c, 0:r].T.reshape(-1, 2) * self.square_mm
        return obj

    def charuco_board(self) -> cv2.aruco.CharucoBoard:
        d = cv2.aruco.getPredefinedDictionary(aruco_dictionary(self.dictionary or "DICT_6X6_250"))
        return cv2.aruco.CharucoBoard(self.size, float(self.square_mm), float(self.marker_mm), d)


# --------------------------------------------------------------------------------------- detection

@dataclass
class ViewDetection:
    """The target found in one view (``object_mm``/``image_px`` paired row by row), or why not."""

    name: str
    object_mm: np.ndarray | None = None  # (N, 3) float32
    image_px: np.ndarray | None = None  # (N, 2) float32
    method: str | None = None
    reason: str | None = None

    @property
    def found(self) -> bool:
        return self.object_mm is not None

    @property
    def n_points(self) -> int:
        return 0 if self.object_mm is None else int(self.object_mm.shape[0])


def _gray(img: np.ndarray) -> np.ndarray:
    if img.ndim == 2:
        return img
    if img.ndim == 3 and img.shape[2] == 1:
        return img[:, :, 0]
    if img.ndim == 3 and img.shape[2] == 3:
        return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    if img.ndim == 3 and img.shape[2] == 4:
        return cv2.cvtColor(img, cv2.COLOR_BGRA2GRAY)
    raise InputError(f"expected a grey or BGR image, got an array of shape {img.shape}")


def subpix_half_window(corners: np.ndarray, size: tuple[int, int]) -> int:
    """cornerSubPix half-window for a chessboard grid: 0.3 x the smallest corner spacing, 2..11 px."""
    c, r = size
    g = corners.reshape(r, c, 2).astype(np.float64)
    spacing = min(np.linalg.norm(np.diff(g, axis=1), axis=2).min(), np.linalg.norm(np.diff(g, axis=0), axis=2).min())
    return int(np.clip(np.floor(0.3 * spacing), 2, 11))


def _detect_chessboard(gray: np.ndarray, target: Target, name: str) -> ViewDetection:
    size = target.size
    ok, corners = cv2.findChessboardCornersSB(gray, size, _SB_FLAGS)
    method = "SB"
    if not ok or corners is None:
        ok, corners = cv2.findChessboardCorners(gray, size, _CLASSIC_FLAGS)
        method = "classic"
    if not ok or corners is None:
        c, r = size
        return ViewDetection(name, reason=f"no chessboard of {c}x{r} inner corners in the image")
    corners = np.asarray(corners, np.float32).reshape(-1, 1, 2)
    w = subpix_half_window(corners, size)
    refined = cv2.cornerSubPix(gray, corners.copy(), (w, w), (-1, -1), _SUBPIX_CRITERIA)
    return ViewDetection(name, target.chessboard_points(), np.asarray(refined, np.float32).reshape(-1, 2),
                         f"{method}+subpix{w}")


def _detect_charuco(gray: np.ndarray, target: Target, name: str,
                    detector: cv2.aruco.CharucoDetector, board: cv2.aruco.CharucoBoard) -> ViewDetection:
    ch_corners, ch_ids, _m_corners, m_ids = detector.detectBoard(gray)
    n_markers = 0 if m_ids is None else int(np.asarray(m_ids).size)
    n_corners = 0 if ch_ids is None else int(np.asarray(ch_ids).size)
    if n_markers == 0:
        return ViewDetection(name, reason=f"no {target.dictionary} markers found")
    if n_corners < MIN_POINTS:
        return ViewDetection(name, reason=f"only {n_corners} ChArUco corners found ({n_markers} markers), "
                                          f"need {MIN_POINTS}")
    obj, img = board.matchImagePoints(ch_corners, ch_ids)
    obj = np.asarray(obj, np.float32).reshape(-1, 3)
    img = np.asarray(img, np.float32).reshape(-1, 2)
    return ViewDetection(name, obj, img, "ChArUco")


def _collinear(obj: np.ndarray, square_mm: float) -> bool:
    xy = obj[:, :2].astype(np.float64)
    s = np.linalg.svd(xy - xy.mean(axis=0), compute_uv=False)
    return s.size < 2 or s[1] < 1e-3 * square_mm


def detect_views(images: Sequence[np.ndarray], names: Sequence[str], target: Target) -> list[ViewDetection]:
    """Find the target in each image (grey or BGR uint8); views are searched in parallel threads."""
    board = detector = None
    if target.kind == "charuco":
        board = target.charuco_board()
        detector = cv2.aruco.CharucoDetector(board)

    def one(item: tuple[np.ndarray, str]) -> ViewDetection:
        img, name = item
        gray = _gray(np.asarray(img))
        if target.kind == "chessboard":
            det = _detect_chessboard(gray, target, name)
        else:
            det = _detect_charuco(gray, target, name, detector, board)
        if det.found and det.n_points < MIN_POINTS:
            return ViewDetection(name, reason=f"only {det.n_points} corners found, need {MIN_POINTS}")
        if det.found and _collinear(det.object_mm, target.square_mm):
            return ViewDetection(name, reason=f"the {det.n_points} corners found lie on one line")
        return det

    items = list(zip(images, names))
    workers = min(len(items), os.cpu_count() or 1, 8)
    if workers <= 1 or target.kind == "charuco":  # one CharucoDetector object is not shared across threads
        return [one(it) for it in items]
    with ThreadPoolExecutor(max_workers=workers) as pool:  # OpenCV releases the GIL
        return list(pool.map(one, items))


# ------------------------------------------------------------------------------------- calibration

@dataclass
class ViewResult:
    """What became of one view: its residual, whether it was used, and why not."""

    name: str
    found: bool
    n_points: int
    rms_px: float | None  # final residual if used; the residual it was dropped with; None if not found
    used: bool
    reason: str | None = None
    method: str | None = None

    def to_part(self) -> ViewResidual:
        rms = None if self.rms_px is None else round(float(self.rms_px), 6)
        return ViewResidual(name=self.name, rms_px=rms, used=self.used, reason=self.reason)


@dataclass
class IntrinsicsResult:
    intrinsics: Intrinsics
    rms_px: float
    views: list[ViewResult]
    target: Target
    flags: int
    k3_estimated: bool
    std: dict[str, float] = field(default_factory=dict)  # standard deviations of fx, fy, cx, cy, k1, ...
    first_rms_px: float = 0.0  # overall RMS of the first calibration (all usable views)
    notes: list[str] = field(default_factory=list)  # warnings for the report

    @property
    def used(self) -> list[ViewResult]:
        return [v for v in self.views if v.used]

    @property
    def dropped(self) -> list[ViewResult]:
        return [v for v in self.views if v.found and not v.used]

    @property
    def not_found(self) -> list[ViewResult]:
        return [v for v in self.views if not v.found]

    def view(self, name: str) -> ViewResult:
        for v in self.views:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def flag_names(self) -> list[str]:
        names = [n for n in ("CALIB_FIX_ASPECT_RATIO", "CALIB_ZERO_TANGENT_DIST", "CALIB_FIX_K3")
                 if self.flags & getattr(cv2, n)]
        return names

    def to_file(self) -> CameraFile:
        return CameraFile(intrinsics=IntrinsicsPart.of(self.intrinsics), rms_px=round(float(self.rms_px), 6),
                          views=[v.to_part() for v in self.views], target=self.target.describe())


_STD_NAMES = ("fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2", "k3")


def _calibrate_once(dets: list[ViewDetection], image_size: tuple[int, int], flags: int):
    obj = [d.object_mm.astype(np.float32).reshape(-1, 1, 3) for d in dets]
    img = [d.image_px.astype(np.float32).reshape(-1, 1, 2) for d in dets]
    K0, d0 = np.eye(3), np.zeros(5)  # only K0's fx/fy ratio (1) matters, for CALIB_FIX_ASPECT_RATIO
    try:
        rms, K, dist, rvecs, tvecs, std_int, _std_ext, _per_view = cv2.calibrateCameraExtended(
            obj, img, image_size, K0, d0, flags=flags, criteria=_CALIB_CRITERIA)
    except cv2.error as e:
        msg = str(e).strip().splitlines()[-1] if str(e).strip() else "unknown error"
        raise CalibrationRejected(f"OpenCV could not calibrate from these views ({msg.strip()[:120]})",
                                  "take photos with the board at varied angles and distances") from None
    K = np.asarray(K, np.float64)
    dist = np.asarray(dist, np.float64).ravel()[:5]
    if not (np.all(np.isfinite(K)) and np.all(np.isfinite(dist)) and K[0, 0] > 0 and K[1, 1] > 0):
        raise CalibrationRejected("the calibration diverged (non-finite or negative focal length)",
                                  "take photos with the board tilted at varied angles")
    per_view = []
    for d, rv, tv in zip(dets, rvecs, tvecs):
        proj, _ = cv2.projectPoints(d.object_mm.astype(np.float64), rv, tv, K, dist)
        err = proj.reshape(-1, 2) - d.image_px.astype(np.float64)
        per_view.append(float(np.sqrt(np.mean(np.sum(err ** 2, axis=1)))))
    std = {n: float(v) for n, v in zip(_STD_NAMES, np.asarray(std_int).ravel())}
    return float(rms), K, dist, per_view, std


def _summary_of(views: list[ViewResult], limit: int = 4) -> str:
    bad = [f"{v.name} ({v.reason})" for v in views if not v.used]
    if len(bad) > limit:
        bad = bad[:limit] + [f"{len(bad) - limit} more"]
    return "; ".join(bad)


def _predict_rms(det: ViewDetection, K: np.ndarray, dist: np.ndarray) -> float:
    """RMS of a view against a given lens: its pose fitted alone (IPPE, then Levenberg-Marquardt)."""
    obj = det.object_mm.astype(np.float64).reshape(-1, 1, 3)
    img = det.image_px.astype(np.float64).reshape(-1, 1, 2)
    ok, rv, tv = cv2.solvePnP(obj, img, K, dist, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        ok, rv, tv = cv2.solvePnP(obj, img, K, dist, flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        return float("inf")
    rv, tv = cv2.solvePnPRefineLM(obj, img, K, dist, rv, tv)
    proj, _ = cv2.projectPoints(obj, rv, tv, K, dist)
    err = proj.reshape(-1, 2) - img.reshape(-1, 2)
    return float(np.sqrt(np.mean(np.sum(err ** 2, axis=1))))


def calibrate_detections(detections: Sequence[ViewDetection], image_size: tuple[int, int], target: Target, *,
                         fix_aspect: bool = False, tangential: bool = True, k3: bool | None = None,
                         drop_outliers: bool = True) -> IntrinsicsResult:
    """Calibrate from detections (see the module doc for the flags, the k3 rule and the outlier rule)."""
    views = [ViewResult(d.name, d.found, d.n_points, None, d.found, None if d.found else f"not found: {d.reason}",
                        d.method) for d in detections]
    used = [i for i, d in enumerate(detections) if d.found]

    def refuse() -> None:
        n = len(used)
        detail = _summary_of(views)
        raise NotEnoughViews(
            f"only {n} of {len(views)} views usable, need at least {MIN_VIEWS}" + (f": {detail}" if detail else ""),
            f"take more photos of the {'chessboard' if target.kind == 'chessboard' else 'ChArUco board'} "
            "(whole board in view, varied angles)", views)

    if len(used) < MIN_VIEWS:
        refuse()
    base = cv2.CALIB_FIX_ASPECT_RATIO if fix_aspect else 0
    if not tangential:
        base |= cv2.CALIB_ZERO_TANGENT_DIST
    first_rms = None
    while True:
        estimate_k3 = k3 if k3 is not None else len(used) >= K3_MIN_VIEWS
        flags = base | (0 if estimate_k3 else cv2.CALIB_FIX_K3)
        rms, K, dist, per_view, std = _calibrate_once([detections[i] for i in used], image_size, flags)
        first_rms = rms if first_rms is None else first_rms
        for i, r in zip(used, per_view):
            views[i].rms_px = r
        if not drop_outliers or len(used) <= MIN_VIEWS:
            break
        found = _worst_view(detections, used, image_size, flags)
        if found is None:
            break
        worst, r, med, limit = found
        v = views[worst]
        v.used = False
        v.rms_px = r
        v.reason = (f"dropped: RMS {r:.2f} px with the other views' lens > limit {limit:.2f} px = "
                    f"max({OUTLIER_FACTOR:g} x median {med:.2f}, median + {OUTLIER_MARGIN_PX:g} px)")
        used.remove(worst)  # screening needs > MIN_VIEWS views, so at least MIN_VIEWS remain
    notes = []
    if drop_outliers and len(used) <= MIN_VIEWS:
        notes.append(f"only {len(used)} views used: too few to screen them for bad ones; take more photos")
    intr = Intrinsics(image_size, K, dist)
    return IntrinsicsResult(intr, rms, views, target, flags, bool(estimate_k3), std, first_rms, notes)


def _worst_view(detections: Sequence[ViewDetection], used: list[int], image_size: tuple[int, int],
                flags: int) -> tuple[int, float, float, float] | None:
    """The view to drop, with its RMS, the median of the others and the limit; None if none is bad.

    The candidate is the view whose removal lowers the others' RMS the most.  It is judged against
    the calibration of the *other* views (so that it cannot hide by dragging the lens towards
    itself): its RMS there (pose fitted alone) against the median RMS of the others.
    """
    best = None
    for i in used:
        others = [j for j in used if j != i]
        try:
            rms, K, dist, per_view, _ = _calibrate_once([detections[j] for j in others], image_size, flags)
        except CalibrationRejected:
            continue
        if best is None or rms < best[0]:
            best = (rms, i, K, dist, per_view)
    if best is None:
        return None
    _, i, K, dist, per_view = best
    r = _predict_rms(detections[i], K, dist)
    med = float(np.median(per_view))
    limit = max(OUTLIER_FACTOR * med, med + OUTLIER_MARGIN_PX)
    return (i, r, med, limit) if r > limit else None


def calibrate_intrinsics(images: Sequence[np.ndarray], names: Sequence[str], target: Target, *,
                         fix_aspect: bool = False, tangential: bool = True, k3: bool | None = None,
                         drop_outliers: bool = True) -> IntrinsicsResult:
    """Camera intrinsics from photos of ``target`` (grey or BGR uint8 arrays, all the same size).

    ``names`` label the views in the result.  Raises :class:`NotEnoughViews` when fewer than
    :data:`MIN_VIEWS` views remain usable, :class:`~tableref.errors.InputError` for inconsistent input
    and :class:`~tableref.errors.CalibrationRejected` when OpenCV cannot solve.
    """
    images = list(images)
    names = [str(n) for n in names]
    if len(images) != len(names):
        raise InputError(f"{len(images)} images but {len(names)} names")
    if not images:
        raise InputError("no images given", f"give at least {MIN_VIEWS} photos of the calibration target")
    sizes = []
    for img, name in zip(images, names):
        a = np.asarray(img)
        if a.dtype != np.uint8 or a.ndim not in (2, 3) or a.size == 0:
            raise InputError(f"{name}: expected an 8-bit grey or colour image, got {a.dtype} array of shape {a.shape}")
        sizes.append((int(a.shape[1]), int(a.shape[0])))
    for size, name in zip(sizes, names):
        if size != sizes[0]:
            raise InputError(f"{name} is {size[0]}x{size[1]} px but {names[0]} is {sizes[0][0]}x{sizes[0][1]} px",
                             "all views must come from the same camera at the same resolution")
    detections = detect_views(images, names, target)
    return calibrate_detections(detections, sizes[0], target, fix_aspect=fix_aspect, tangential=tangential, k3=k3,
                                drop_outliers=drop_outliers)


# ------------------------------------------------------------------------------------ files, report

def view_names(paths: Sequence[Path]) -> list[str]:
    """File names, or the paths as given when two files share a name."""
    names = [p.name for p in paths]
    return names if len(set(names)) == len(names) else [str(p) for p in paths]


def calibrate_camera_files(paths: Sequence[Path], target: Target, out: Path | None, **options) -> IntrinsicsResult:
    """Read the images, calibrate, and write ``camera.json`` atomically (nothing on refusal)."""
    from tableref.files import read_image, write_json

    if not paths:
        raise InputError("no images given", f"give at least {MIN_VIEWS} photos of the calibration target")
    images = [read_image(p, grayscale=True) for p in paths]
    result = calibrate_intrinsics(images, view_names(paths), target, **options)
    if out is not None:
        write_json(out, result.to_file())
    return result


def views_table(views: Sequence[ViewResult], title: str = "Views"):
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    t.add_column("view", no_wrap=True)
    t.add_column("found by", no_wrap=True)
    t.add_column("corners", justify="right")
    t.add_column("RMS px", justify="right")
    t.add_column("status", no_wrap=True)
    t.add_column("reason", min_width=24)
    for v in views:
        status = ("used" if v.rms_px is not None else "usable") if v.used else ("dropped" if v.found else "not found")
        style = None if v.used else ("yellow" if v.found else "red")
        t.add_row(v.name, v.method or "-", str(v.n_points) if v.found else "-",
                  "-" if v.rms_px is None else f"{v.rms_px:.3f}", status, v.reason or "", style=style)
    return t


def result_renderables(result: IntrinsicsResult) -> list:
    """Rich renderables: the per-view table, then the lens and the overall figures."""
    from rich.table import Table

    intr = result.intrinsics
    s = result.std
    t = Table(title="Camera", title_justify="left", show_header=False)
    t.add_column("what")
    t.add_column("value")

    def pm(value: float, key: str, fmt: str = ".2f") -> str:
        return f"{value:{fmt}} ± {s[key]:{fmt}}" if key in s and s[key] > 0 else f"{value:{fmt}}"

    cx, cy = intr.principal_point
    t.add_row("target", result.target.describe())
    t.add_row("image size", f"{intr.image_size[0]} x {intr.image_size[1]} px")
    if result.flags & cv2.CALIB_FIX_ASPECT_RATIO:
        t.add_row("fx = fy", f"{pm(intr.fy, 'fy')} px")
    else:
        t.add_row("fx, fy", f"{pm(intr.fx, 'fx')}, {pm(intr.fy, 'fy')} px")
    t.add_row("cx, cy", f"{pm(cx, 'cx')}, {pm(cy, 'cy')} px")
    t.add_row("k1, k2, p1, p2, k3", ", ".join(f"{v:.5g}" for v in intr.dist))
    t.add_row("flags", ", ".join(result.flag_names) or "none")
    t.add_row("k3", "estimated" if result.k3_estimated else "fixed at 0")
    t.add_row("views used", f"{len(result.used)} of {len(result.views)} ({len(result.dropped)} dropped, "
                            f"{len(result.not_found)} not found)")
    if result.dropped:
        t.add_row("RMS before dropping", f"{result.first_rms_px:.3f} px")
    t.add_row("RMS reprojection error", f"{result.rms_px:.3f} px")
    return [views_table(result.views), t] + [f"[yellow]note:[/yellow] {n}" for n in result.notes]
