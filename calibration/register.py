"""Board registration from one photo of the empty table.

Finds every tile of a profile in the photo, tells which tile it is and how it is turned, and
estimates the camera (pose, and — without ``camera.json`` — focal length and lens distortion)
together with the exact placement of every tile in the table frame (mm, x right, y down).

How:

1. **Find and identify tiles by their pictures.**  SIFT features of each tile's top-down picture
   (from the profile) are matched to the photo's; a RANSAC homography per tile says which tile is
   where and how it is turned (a tile matched under the wrong turn has no consistent homography).
   Tiles of a ``fixed`` arrangement (one PitRush board, the three Galaktico sectors) are matched
   as one composite picture.
2. **Table frame and first placements** from the homographies: the table frame is aligned with
   the best-matched tile (x right, y down, roughly along the image axes).
3. **Bundle adjustment** (``scipy.optimize.least_squares``, Huber loss) of the camera (focal
   length with a weak prior, k1, k2, p1, p2, pose) and every tile's placement (turn and shift, the
   reference tile fixed as gauge) to the matched points, all over the image: the straight printed
   lines and edges of the boards pin the lens distortion.
4. **Dense refinement**: around a grid of textured points on every tile the tile picture is warped
   into the photo through the current model and aligned by normalised cross-correlation at full
   resolution; the bundle adjustment runs again on these sub-pixel correspondences.
5. **Quality figures**: reprojection RMS (px), a board-edge check (mm, measured on the photo's
   edges independently of the pictures), identification scores; the calibration is refused when they
   are out of bounds.
"""

from __future__ import annotations

import hashlib
import io
import math
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np
import shapely
from scipy.optimize import least_squares

from tableref.config import RegistrationConfig
from tableref.errors import BoardNotFound, InputError
from tableref.files import cache_dir, write_bytes

from .camera import CameraModel, Intrinsics, Pose
from .model import Calibration, CalibrationFile, Layout, Quality, TilePlacement, build_calibration, rot2
from .profile import BoardProfile, Tile

# ------------------------------------------------------------------------------------ templates

@dataclass
class Template:
    """A picture to find: one tile (free arrangements) or the whole nominal arrangement (fixed)."""

    name: str
    tiles: list[str]                      # tiles it covers
    frame_to_tile: dict[str, np.ndarray]  # 3x3 affine: template frame mm -> tile mm (identity for a single tile)
    gray: np.ndarray                      # picture, grey uint8
    color: np.ndarray                     # picture, BGR uint8
    ppm: float                            # template px per mm
    outline_mm: np.ndarray                # (K,2) outline of the covered boards in template mm (for overlap tests)
    kp_mm: np.ndarray = field(default=None)   # (N,2) keypoints in template mm
    desc: np.ndarray = field(default=None)    # (N,128) float32 SIFT descriptors
    kp_ppm: np.ndarray = field(default=None)  # (N,) px per mm of the picture's size each came from


_SIFT_PARAMS = {"contrastThreshold": 0.02, "edgeThreshold": 12}  # also part of the template cache's key


def _sift(nfeatures: int):
    return cv2.SIFT_create(nfeatures=nfeatures, **_SIFT_PARAMS)


_CLAHE = cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8))


def normalise_contrast(gray: np.ndarray) -> np.ndarray:
    """Local contrast equalisation: evens out glare, shadows and the lamp's fall-off before matching."""
    return _CLAHE.apply(gray)


def _features(gray: np.ndarray, nfeatures: int, mask: np.ndarray | None = None):
    kps, desc = _sift(nfeatures).detectAndCompute(normalise_contrast(gray), mask)
    if desc is None or not kps:
        return np.zeros((0, 2), np.float32), np.zeros((0, 128), np.float32)
    pts = np.array([k.pt for k in kps], dtype=np.float32)
    return pts, desc.astype(np.float32)


def _tile_picture(profile: BoardProfile, tile: Tile) -> tuple[np.ndarray, float]:
    img, ppm = profile.load_tile_image(tile)
    if img is None:
        raise InputError(f"profile tile '{tile.id}' has no picture ('image')",
                         "add one with 'tableref profile learn', or give the tile a picture")
    return img, ppm


@lru_cache(maxsize=8)
def _templates_cached(profile_key: str, nfeatures: int, _profile_holder: tuple) -> list[Template]:
    profile: BoardProfile = _profile_holder[0]
    return _build_templates(profile, nfeatures)


def build_templates(profile: BoardProfile, nfeatures: int) -> list[Template]:
    key = f"{profile.path}:{id(profile.data)}"
    return _templates_cached(key, nfeatures, (profile,))


def _nominal_placements(profile: BoardProfile) -> list[TilePlacement]:
    """The profile's nominal arrangement as tile placements (table mm)."""
    return [TilePlacement(tile=p.tile, rotation_deg=p.rotation_deg, offset_mm=(p.x, p.y))
            for p in profile.data.arrangement.nominal]


def _build_templates(profile: BoardProfile, nfeatures: int) -> list[Template]:
    arr = profile.data.arrangement
    out: list[Template] = []
    if arr.kind == "free" or len(profile.tiles) == 1 and not arr.nominal:
        for tile in profile.tiles:
            img, ppm = _tile_picture(profile, tile)
            out.append(_make_template(tile.id, [tile.id], {tile.id: np.eye(3)}, img, ppm,
                                      np.asarray(tile.outline_polygon().exterior.coords)[:-1], nfeatures, tile))
        return out
    # fixed arrangement: compose the nominal layout into one picture
    placements = _nominal_placements(profile)
    lay = Layout(profile, placements)
    x0, y0, x1, y1 = lay.support.bounds
    pics = {t.id: _tile_picture(profile, t) for t in profile.tiles}
    ppm = min(p[1] for p in pics.values())
    W, H = int(math.ceil((x1 - x0) * ppm)), int(math.ceil((y1 - y0) * ppm))
    canvas = np.full((H, W, 3), 128, np.uint8)
    frame_to_tile = {}
    for pl in placements:
        tile = profile.tile(pl.tile)
        img, tppm = pics[tile.id]
        # template px -> tile px:  tile_mm = R^T (frame_mm + (x0,y0) - offset)
        M = np.eye(3)
        M[:2, :2] = rot2(pl.rotation_deg).T
        M[:2, 2] = -rot2(pl.rotation_deg).T @ np.asarray(pl.offset_mm)
        shift = np.eye(3)
        shift[:2, 2] = [x0, y0]
        frame_to_tile[tile.id] = M @ shift  # template mm -> tile mm
        S_t = np.diag([tppm, tppm, 1.0])
        S_f = np.diag([1 / ppm, 1 / ppm, 1.0])
        A = S_t @ frame_to_tile[tile.id] @ S_f  # template px -> tile px (pixel centres handled below)
        warped = cv2.warpAffine(img, A[:2], (W, H), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0))
        mask = np.zeros((H, W), np.uint8)
        outline = np.asarray(tile.outline_polygon().exterior.coords)[:-1]
        ring = (pl.to_table(outline) - [x0, y0]) * ppm
        cv2.fillPoly(mask, [np.round(ring * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
        canvas[mask > 0] = warped[mask > 0]
    support = np.asarray(lay.support.convex_hull.exterior.coords)[:-1] - [x0, y0]
    out.append(_make_template("arrangement", [p.tile for p in placements], frame_to_tile, canvas, ppm, support,
                              nfeatures, None))
    return out


TEMPLATE_SCALES_PX_PER_MM = (1.0, 1.6, 2.6)  # pictures are matched at several sizes: photos range ~1-6 px/mm


def _make_template(name, tiles, frame_to_tile, img, ppm, outline_mm, nfeatures, tile: Tile | None) -> Template:
    """A template and its features.  The features depend only on the picture, its outline and the
    feature settings: they are kept on disk under a hash of those (a profile's nine pictures
    take a second to describe; every calibration of the same boards reuses them)."""
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    t = Template(name, tiles, frame_to_tile, gray, img, ppm, np.asarray(outline_mm, dtype=np.float64))
    h = hashlib.sha256()
    for part in (gray.tobytes(), np.asarray(gray.shape), np.asarray(outline_mm, np.float64), np.asarray([ppm, nfeatures]),
                 np.asarray(TEMPLATE_SCALES_PX_PER_MM)):
        h.update(np.ascontiguousarray(part).tobytes() if isinstance(part, np.ndarray) else part)
    h.update(f"{cv2.__version__}/{sorted(_SIFT_PARAMS.items())}/v1".encode())
    path = cache_dir("templates") / f"{h.hexdigest()[:32]}.npz"
    try:
        with np.load(path) as z:
            t.kp_mm, t.desc, t.kp_ppm = z["kp_mm"], z["desc"], z["kp_ppm"]
        return t
    except (OSError, KeyError, ValueError):
        pass
    _describe(t, gray, ppm, outline_mm, nfeatures)
    buf = io.BytesIO()
    np.savez(buf, kp_mm=t.kp_mm, desc=t.desc, kp_ppm=t.kp_ppm)
    try:  # a cache that cannot be written is only slower
        write_bytes(path, buf.getvalue())
    except OSError:
        pass
    return t


def _describe(t: Template, gray: np.ndarray, ppm: float, outline_mm, nfeatures: int) -> None:
    """SIFT features of the picture at each size of TEMPLATE_SCALES_PX_PER_MM it is big enough for."""
    kps, descs, ppms = [], [], []
    for s in TEMPLATE_SCALES_PX_PER_MM:
        f = min(1.0, s / ppm)
        g = cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else gray
        sp = ppm * g.shape[1] / gray.shape[1]
        mask = np.zeros(g.shape, np.uint8)
        ring = np.asarray(outline_mm) * sp
        cv2.fillPoly(mask, [np.round(ring * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
        mask = cv2.erode(mask, np.ones((3, 3), np.uint8))
        pts, desc = _features(g, nfeatures // len(TEMPLATE_SCALES_PX_PER_MM), mask)
        kps.append((pts.astype(np.float64) + 0.5) / sp)
        descs.append(desc)
        ppms.append(np.full(len(pts), sp))
        if f >= 1:
            break
    t.kp_mm = np.concatenate(kps)
    t.desc = np.concatenate(descs)
    t.kp_ppm = np.concatenate(ppms)


def largest_ppm(profile: BoardProfile, photo_size: tuple[int, int]) -> float:
    """The most px per mm the boards can show in a photo of ``photo_size`` (w, h px): all of them
    are in view, so their arrangement's extent fits in the photo (for a free arrangement without a
    grid, one tile's), with a quarter more for the perspective of a tilted camera."""
    arr = profile.data.arrangement
    tiles = profile.tiles
    ext = max(((min(t.size_mm), max(t.size_mm)) for t in tiles), key=lambda e: e[0])
    if arr.kind == "free" and arr.grid is not None:
        side = min(min(t.size_mm) for t in tiles)
        ext = tuple(sorted((arr.grid[0] * side, arr.grid[1] * side)))
    elif arr.kind == "fixed" and arr.nominal:
        x0, y0, x1, y1 = Layout(profile, _nominal_placements(profile)).support.bounds
        ext = tuple(sorted((x1 - x0, y1 - y0)))
    short_px, long_px = sorted(photo_size)
    return 1.25 * min(short_px / max(ext[0], 1e-6), long_px / max(ext[1], 1e-6))


# ------------------------------------------------------------------------------------- matching

@dataclass
class TileMatch:
    template: Template
    H: np.ndarray            # template mm -> work px
    src_mm: np.ndarray       # inlier points, template mm
    dst_px: np.ndarray       # inlier points, work px
    candidates: int

    @property
    def inliers(self) -> int:
        return len(self.src_mm)

    @property
    def score(self) -> float:
        return self.inliers / max(self.candidates, 1)


def _project_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return p[:, :2] / p[:, 2:3]


def _quad_ok(H: np.ndarray, outline_mm: np.ndarray, work_shape) -> bool:
    q = _project_h(H, outline_mm).astype(np.float32)
    if not np.all(np.isfinite(q)):
        return False
    area = cv2.contourArea(q)
    if area < 0.002 * work_shape[0] * work_shape[1]:
        return False
    hull = cv2.convexHull(q)
    return cv2.contourArea(hull) <= area * 1.08  # nearly convex: a plausible view of a flat board


def _hull_area(pts: np.ndarray) -> float:
    """The area of points' convex hull (their units squared); 0 for fewer than three."""
    return cv2.contourArea(cv2.convexHull(pts.astype(np.float32))) if len(pts) >= 3 else 0.0


def _fit_tile_homography(src: np.ndarray, dst: np.ndarray, cfg: RegistrationConfig):
    """Robust tile -> photo homography: a similarity first (4 degrees of freedom: hard to fool with
    repeated icons), then a homography on its inliers."""
    A, inl = cv2.estimateAffinePartial2D(src, dst, method=cv2.RANSAC, ransacReprojThreshold=2.5 * cfg.ransac_px,
                                         maxIters=4000, confidence=0.999)
    if A is None or inl is None:
        return None, None
    inl = inl.ravel().astype(bool)
    if inl.sum() < 8:
        return None, None
    H, inl2 = cv2.findHomography(src[inl], dst[inl], cv2.RANSAC, cfg.ransac_px)
    if H is None:
        return None, None
    # final inliers among all candidates under the homography
    err = np.linalg.norm(_project_h(H, src) - dst, axis=1)
    return H, err < cfg.ransac_px


def match_templates(gray_work: np.ndarray, templates: list[Template], cfg: RegistrationConfig,
                    max_ppm: float = np.inf) -> tuple[list[TileMatch], dict[str, int]]:
    """Find each template in the (working-resolution) photo.  Returns matches and, for the ones not
    found, the number of consistent features seen (for the error message).  ``max_ppm``: the
    templates' features from pictures sized above this many px per mm are left out (the boards
    cannot look that big in this photo)."""
    cv2.setRNGSeed(0x7AB1E)  # FLANN's randomised trees and RANSAC: the same photo, the same answer
    pts, desc = _features(gray_work, cfg.photo_features)
    if len(pts) < cfg.min_inliers:
        return [], {t.name: 0 for t in templates}
    # approximate nearest neighbours (FLANN kd-trees); arrays in and out, no match objects
    index = cv2.flann_Index(desc, {"algorithm": 1, "trees": cfg.flann_trees})
    taken = np.zeros(len(pts), bool)
    results: list[TileMatch] = []
    missing: dict[str, int] = {}
    pending = list(templates)
    ratio2 = cfg.ratio_test ** 2  # FLANN's distances are squared
    knn_of: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for _round in range(2):
        found_now = []
        # the second round looks for the tiles still missing in what is left of the photo: with the
        # found tiles' regions masked, fewer consistent features are needed
        need = cfg.min_inliers if _round == 0 else max(6, (2 * cfg.min_inliers) // 3)
        min_spread = 0.04 if _round == 0 else 0.02
        # ... but a tile found then must look about as big as the tiles already found
        found_areas = [cv2.contourArea(_project_h(m.H, m.template.outline_mm).astype(np.float32)) /
                       max(cv2.contourArea(m.template.outline_mm.astype(np.float32)), 1e-9) for m in results]
        area_ref = float(np.median(found_areas)) if found_areas else None
        for t in pending:
            if len(t.desc) < need:
                missing[t.name] = 0
                continue
            use = np.flatnonzero(t.kp_ppm <= max_ppm) if np.isfinite(max_ppm) else np.arange(len(t.desc))
            if len(use) < need:
                use = np.arange(len(t.desc))
            if t.name not in knn_of:
                knn_of[t.name] = index.knnSearch(t.desc[use], 2, params={"checks": cfg.flann_checks})
            nn, dd = knn_of[t.name]
            # Lowe's ratio test, then one template feature per photo feature (the closest)
            q = np.flatnonzero((dd[:, 0] < ratio2 * dd[:, 1]) & (nn[:, 1] >= 0) & ~taken[nn[:, 0]])
            q = q[np.argsort(dd[q, 0], kind="stable")]
            photo_idx, first = np.unique(nn[q, 0], return_index=True)
            if len(photo_idx) < need:
                missing[t.name] = len(photo_idx)
                continue
            src = t.kp_mm[use[q[first]]].astype(np.float64)
            dst = pts[photo_idx].astype(np.float64)
            H, inl = _fit_tile_homography(src, dst, cfg)
            if H is None:
                missing[t.name] = 0
                continue
            n_in = int(inl.sum())
            spread = _hull_area(src[inl])
            tile_area = cv2.contourArea(t.outline_mm.astype(np.float32))
            if n_in >= need and spread < min_spread * tile_area:
                # consistent features bunched on one patch of print (a board's name; its repeated pits
                # and plain lines fail the ratio test against the whole photo): the patch's pose
                # guides the search for the rest, each of the template's features matched among the
                # photo's features near where that pose puts it
                guided = _guided(t, src[inl], dst[inl], pts, desc, taken, cfg)
                if guided is not None:
                    H, src, dst, inl = guided
                    n_in = int(inl.sum())
                    spread = _hull_area(src[inl])
            px_per_mm2 = cv2.contourArea(_project_h(H, t.outline_mm).astype(np.float32)) / max(tile_area, 1e-9)
            if (n_in < need or spread < min_spread * tile_area
                    or not _quad_ok(H, t.outline_mm, gray_work.shape)
                    or (_round > 0 and area_ref is not None and not 0.6 < px_per_mm2 / area_ref < 1.6)):
                missing[t.name] = n_in
                continue
            found_now.append(TileMatch(t, H, src[inl], dst[inl], len(src)))
            missing.pop(t.name, None)
        # resolve overlaps: the better match keeps the region
        found_now.sort(key=lambda m: -m.inliers)
        kept = []
        for m in found_now:
            quad = _project_h(m.H, m.template.outline_mm).astype(np.float32)
            clash = False
            for k in kept + results:
                other = _project_h(k.H, k.template.outline_mm).astype(np.float32)
                inter, _ = cv2.intersectConvexConvex(cv2.convexHull(quad), cv2.convexHull(other))
                if inter > 0.2 * min(cv2.contourArea(quad), cv2.contourArea(other)):
                    clash = True
                    break
            if clash:
                missing[m.template.name] = m.inliers
                continue
            kept.append(m)
        results.extend(kept)
        # mask the photo features inside found tiles and retry the missing ones once
        for m in kept:
            quad = _project_h(m.H, m.template.outline_mm).astype(np.float32)
            inside = shapely.intersects_xy(shapely.Polygon(quad), pts[:, 0], pts[:, 1])
            taken |= inside
        pending = [t for t in templates if t.name in missing]
        if not pending or not kept:
            break
    return results, {k: v for k, v in missing.items() if k not in {m.template.name for m in results}}


def _guided(t: Template, src: np.ndarray, dst: np.ndarray, pts: np.ndarray, desc: np.ndarray,
            taken: np.ndarray, cfg: RegistrationConfig):
    """Guided matching of template ``t``, whose consistent features (``src`` template mm, ``dst``
    work px) bunch on a small patch: a similarity fitted to them puts every template feature
    somewhere in the photo; there it is matched to the nearest-looking photo feature (``pts``,
    ``desc``; ``taken`` ones excluded) within a search radius, the ratio test run among those
    only; a homography is fitted to all of them (RANSAC), and the search is run again around its
    prediction, closer.  Returns (H, src, dst, inliers) or None."""
    from scipy.spatial import cKDTree
    A, _ = cv2.estimateAffinePartial2D(src, dst)
    if A is None:
        return None
    H = np.vstack([A, [0.0, 0.0, 1.0]])
    free = np.flatnonzero(~taken)
    tree = cKDTree(pts[free])
    size_px = math.sqrt(cv2.contourArea(_project_h(H, t.outline_mm).astype(np.float32)))
    ratio2 = cfg.ratio_test ** 2
    out = None
    # (the similarity extrapolates a patch's pose over the board: a wide search; the homography
    # fitted then, a close one)
    for radius in (max(0.08 * size_px, 4 * cfg.ransac_px), 2 * cfg.ransac_px):
        at = _project_h(H, t.kp_mm)
        near = tree.query_ball_point(at, radius)
        s_i, d_i = [], []
        for i, cand in enumerate(near):
            if not cand:
                continue
            cand = free[np.asarray(cand)]
            d2 = ((desc[cand] - t.desc[i]) ** 2).sum(axis=1)
            order = np.argsort(d2)
            if len(order) > 1 and d2[order[0]] >= ratio2 * d2[order[1]]:
                continue
            s_i.append(i)
            d_i.append(cand[order[0]])
        if len(s_i) < cfg.min_inliers:
            return out
        # one template feature per photo feature (the first)
        d_i, first = np.unique(np.asarray(d_i), return_index=True)
        s_i = np.asarray(s_i)[first]
        g_src = t.kp_mm[s_i].astype(np.float64)
        g_dst = pts[d_i].astype(np.float64)
        H2, inl = cv2.findHomography(g_src, g_dst, cv2.RANSAC, cfg.ransac_px)
        if H2 is None:
            return out
        H = H2
        inl = inl.ravel().astype(bool)
        out = (H, g_src, g_dst, inl)
    return out


# -------------------------------------------------------------------------------- camera model

def _rigid_fit(src: np.ndarray, dst: np.ndarray) -> tuple[float, np.ndarray]:
    """Rotation (deg) and translation of the best rigid map src -> dst (2-D, least squares)."""
    cs, cd = src.mean(axis=0), dst.mean(axis=0)
    A = (src - cs).T @ (dst - cd)
    U, _, Vt = np.linalg.svd(A)
    R = (U @ Vt).T
    if np.linalg.det(R) < 0:
        Vt[-1] *= -1
        R = (U @ Vt).T
    ang = math.degrees(math.atan2(R[1, 0], R[0, 0]))
    return ang, cd - R @ cs


def focal_from_homography(H: np.ndarray, pp: tuple[float, float]) -> float | None:
    """Focal length (px) of a plane -> image homography with known principal point and square
    pixels (Zhang's two constraints, least squares); None when the view is too frontal to tell."""
    T = np.array([[1, 0, -pp[0]], [0, 1, -pp[1]], [0, 0, 1.0]])
    Hn = T @ H
    h1, h2 = Hn[:, 0], Hn[:, 1]
    # unknown w = 1/f^2 ; omega = diag(w, w, 1)
    a1 = h1[0] * h2[0] + h1[1] * h2[1]
    b1 = h1[2] * h2[2]
    a2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2
    b2 = h1[2] ** 2 - h2[2] ** 2
    A = np.array([a1, a2])
    b = -np.array([b1, b2])
    den = float(A @ A)
    if den <= 0:
        return None
    w = float(A @ b) / den
    if w <= 0:
        return None
    f = 1.0 / math.sqrt(w)
    # conditioning: how much the constraints depend on w relative to their size
    if abs(b1) + abs(b2) < 1e-12 * (abs(a1) + abs(a2)):
        return None
    return f


@dataclass
class Problem:
    """Observations for the bundle adjustment (full-resolution image px).

    Points: a tile-local point (mm) seen at an image point.  Edges: a point of a board's outline,
    or of a straight line of its print (mm), seen on an image edge or line whose normal is
    ``edge_n``: only the distance across it counts.
    """

    tile_of: np.ndarray   # (N,) index into tiles
    local_mm: np.ndarray  # (N,2) point in its tile's frame
    image_px: np.ndarray  # (N,2)
    weight: np.ndarray    # (N,)
    edge_tile_of: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    edge_local_mm: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    edge_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    edge_n: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    edge_weight: np.ndarray | float = 1.0  # (M,) or one weight for all
    tile_scores: dict[str, float] = field(default_factory=dict)  # median picture correlation per tile
    part_scores: dict[str, float] = field(default_factory=dict)  # ... in the tile's weakest part

    def __post_init__(self):
        self.edge_weight = np.broadcast_to(np.asarray(self.edge_weight, dtype=np.float64),
                                           (len(self.edge_px),)).copy()

    @property
    def size(self) -> int:
        """How many observations (points and edge points)."""
        return len(self.image_px) + len(self.edge_px)

    def thinned(self, per_tile: int, n_tiles: int) -> "Problem":
        """At most ``per_tile`` points and edge points per tile, spread evenly (a photo of 12 MP
        gives thousands; a few hundred per tile pin the fit as well and keep the solver fast)."""
        def pick(tile_of: np.ndarray) -> np.ndarray:
            keep = []
            for t in range(n_tiles):
                idx = np.flatnonzero(tile_of == t)
                if len(idx) > per_tile:
                    idx = idx[np.linspace(0, len(idx) - 1, per_tile).astype(int)]
                keep.append(idx)
            return np.concatenate(keep) if keep else np.zeros(0, int)

        k = pick(self.tile_of)
        e = pick(self.edge_tile_of)
        return Problem(self.tile_of[k], self.local_mm[k], self.image_px[k], self.weight[k], self.edge_tile_of[e],
                       self.edge_local_mm[e], self.edge_px[e], self.edge_n[e], self.edge_weight[e], self.tile_scores)

    def with_edges(self, edges: "Problem") -> "Problem":
        """These observations and the edge observations of ``edges`` (added to this one's own)."""
        return Problem(self.tile_of, self.local_mm, self.image_px, self.weight,
                       np.concatenate([self.edge_tile_of, edges.edge_tile_of]).astype(int),
                       np.concatenate([self.edge_local_mm, edges.edge_local_mm]),
                       np.concatenate([self.edge_px, edges.edge_px]), np.concatenate([self.edge_n, edges.edge_n]),
                       np.concatenate([self.edge_weight, edges.edge_weight]), self.tile_scores)

    @staticmethod
    def empty() -> "Problem":
        return Problem(np.zeros(0, int), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0))


class CameraSolver:
    """Jointly fits camera intrinsics/pose and tile placements to correspondences."""

    N_INTR = 6  # free intrinsics: f, k1, k2, p1, p2, aspect
    # parts of one board (a fixed arrangement) move a millimetre or so against each other, not more:
    # sigma of a part's rotation (deg) and offset (mm) from its nominal place
    NOMINAL_SIGMA = np.array([0.3, 1.0, 1.0])
    PRIOR_WEIGHT = 3.0  # of the weak priors on the free intrinsics
    focal_told: float | None = None  # after solve(): how much of the focal length the photo told (None: given)

    def __init__(self, image_size, tiles: list[str], ref: int, intrinsics: Intrinsics | None, cfg: RegistrationConfig,
                 nominal: list[TilePlacement] | None = None):
        self.size = image_size
        self.tiles = tiles
        # a fixed arrangement (one board in parts): each part stays near its nominal place
        self.nominal = nominal
        self.ref = ref
        self.fixed_intr = intrinsics
        self.cfg = cfg
        w, h = image_size
        self.pp = ((w - 1) / 2, (h - 1) / 2)
        self.f_prior = (w / 2) / math.tan(math.radians(cfg.prior_hfov_deg) / 2)

    def _unpack(self, x: np.ndarray, placements0: list[TilePlacement]):
        i = 0
        if self.fixed_intr is None:
            # focal length, distortion (k1, k2, p1, p2) and the pixels' aspect (fy / fx: real
            # cameras calibrate a few tenths of a percent off 1, which moves a 12 MP photo's rims
            # by pixels)
            f = x[0]
            dist = np.array([x[1], x[2], x[3], x[4], 0.0])
            K = np.array([[f, 0, self.pp[0]], [0, f * x[5], self.pp[1]], [0, 0, 1.0]])
            i = self.N_INTR
        else:
            K, dist = self.fixed_intr.K, self.fixed_intr.dist
        rvec, tvec = x[i:i + 3], x[i + 3:i + 6]
        i += 6
        placements = []
        k = 0
        for t, p0 in enumerate(placements0):
            if t == self.ref:
                placements.append(p0)
                continue
            d = x[i + 3 * k:i + 3 * k + 3]
            k += 1
            placements.append(TilePlacement(tile=p0.tile, rotation_deg=p0.rotation_deg + d[0],
                                            offset_mm=(p0.offset_mm[0] + d[1], p0.offset_mm[1] + d[2])))
        return K, dist, rvec, tvec, placements

    @staticmethod
    def _table_points(tile_of: np.ndarray, local_mm: np.ndarray, placements: list[TilePlacement]) -> np.ndarray:
        ang = np.radians([p.rotation_deg for p in placements])[tile_of]
        off = np.array([p.offset_mm for p in placements]).reshape(-1, 2)[tile_of]
        c, s = np.cos(ang), np.sin(ang)
        x, y = local_mm[:, 0], local_mm[:, 1]
        return np.column_stack([c * x - s * y, s * x + c * y]) + off

    def residuals(self, x, prob: Problem, placements0):
        K, dist, rvec, tvec, placements = self._unpack(x, placements0)
        n, m = len(prob.local_mm), len(prob.edge_local_mm)
        pts = self._table_points(np.concatenate([prob.tile_of, prob.edge_tile_of]).astype(int),
                                 np.concatenate([prob.local_mm, prob.edge_local_mm]), placements)
        obj = np.column_stack([pts, np.zeros(len(pts))])
        proj, _ = cv2.projectPoints(obj, rvec, tvec, K, dist)
        proj = proj.reshape(-1, 2)
        res = [((proj[:n] - prob.image_px) * prob.weight[:, None]).ravel()]
        if m:
            res.append(np.einsum("ij,ij->i", proj[n:] - prob.edge_px, prob.edge_n) * prob.edge_weight)
        if self.nominal is not None:
            devs = [(pl.rotation_deg - nom.rotation_deg, pl.offset_mm[0] - nom.offset_mm[0],
                     pl.offset_mm[1] - nom.offset_mm[1]) for pl, nom in zip(placements, self.nominal)]
            res.append((np.array(devs) / self.NOMINAL_SIGMA).ravel() * self._nominal_weight(n + m, len(placements)))
        if self.fixed_intr is None:
            idx, centre, sigma = self._intrinsic_priors()
            res.append(self.PRIOR_WEIGHT * (x[idx] - centre) / sigma)
        return np.concatenate(res)

    @staticmethod
    def _nominal_weight(n_obs: int, n_tiles: int) -> float:
        return 0.5 * np.sqrt(n_obs) / max(1, n_tiles)

    def _intrinsic_priors(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The weak priors on the free intrinsics, which only matter where the observations cannot
        tell: which parameters, their centres and sigmas (the focal length; k1 and k2, the lens is
        usually mild; the pixels' aspect, square)."""
        return (np.array([0, 1, 2, 5]), np.array([self.f_prior, 0.0, 0.0, 1.0]),
                np.array([self.cfg.prior_f_sigma * self.f_prior, 0.3, 0.3, self.cfg.prior_aspect_sigma]))

    def jacobian(self, x, prob: Problem, placements0):
        """The residuals' derivatives, analytic (the solver needs one per step: numerical
        differences cost a projection of every point per parameter, 35 for nine tiles).

        Image points move with the camera through ``cv2.projectPoints``' own Jacobian; with a tile's
        placement through the table point, whose image moves as the camera-frame point does: d px /
        d table = (d px / d tvec) R[:, :2]."""
        K, dist, rvec, tvec, placements = self._unpack(x, placements0)
        n, m = len(prob.local_mm), len(prob.edge_local_mm)
        tile_of = np.concatenate([prob.tile_of, prob.edge_tile_of]).astype(int)
        local = np.concatenate([prob.local_mm, prob.edge_local_mm])
        pts = self._table_points(tile_of, local, placements)
        obj = np.column_stack([pts, np.zeros(len(pts))])
        _, J = cv2.projectPoints(obj, rvec, tvec, K, dist)
        J = J.reshape(-1, 2, J.shape[1])                       # (N, 2 [u, v], params)
        free = self.fixed_intr is None
        i0 = self.N_INTR if free else 0
        cols = []
        if free:
            # fx = f, fy = f * aspect
            cols += [J[:, :, 6] + x[5] * J[:, :, 7], J[:, :, 10], J[:, :, 11], J[:, :, 12], J[:, :, 13],
                     x[0] * J[:, :, 7]]
        cols += [J[:, :, j] for j in range(6)]
        D = np.stack(cols, axis=2)                             # (N, 2, global params)
        R, _ = cv2.Rodrigues(rvec)
        d_table = J[:, :, 3:6] @ R[:, :2]                      # (N, 2, 2): d px / d table mm
        n_tiles = len(placements0)
        others = [t for t in range(n_tiles) if t != self.ref]
        col_of = {t: k for k, t in enumerate(others)}
        ang = np.radians([p.rotation_deg for p in placements])[tile_of]
        c, s = np.cos(ang), np.sin(ang)
        lx, ly = local[:, 0], local[:, 1]
        d_rot = np.column_stack([-s * lx - c * ly, c * lx - s * ly]) * (math.pi / 180.0)
        n_par = len(x)
        Jp = np.zeros((len(pts), 2, n_par))
        Jp[:, :, :D.shape[2]] = D
        rows = np.flatnonzero(tile_of != self.ref)
        k = np.array([col_of.get(t, 0) for t in tile_of[rows]], int)
        base = i0 + 6 + 3 * k
        Jp[rows, :, base] = np.einsum("nij,nj->ni", d_table[rows], d_rot[rows])
        Jp[rows, :, base + 1] = d_table[rows, :, 0]
        Jp[rows, :, base + 2] = d_table[rows, :, 1]
        out = [(Jp[:n] * prob.weight[:, None, None]).reshape(2 * n, n_par)]
        if m:
            out.append(np.einsum("ni,nip->np", prob.edge_n, Jp[n:]) * prob.edge_weight[:, None])
        if self.nominal is not None:
            w = self._nominal_weight(n + m, len(placements)) / self.NOMINAL_SIGMA
            P = np.zeros((3 * n_tiles, n_par))
            for t in others:
                j = i0 + 6 + 3 * col_of[t]
                P[3 * t:3 * t + 3, j:j + 3] = np.diag(w)
            out.append(P)
        if free:
            idx, _, sigma = self._intrinsic_priors()
            P = np.zeros((len(idx), n_par))
            P[np.arange(len(idx)), idx] = self.PRIOR_WEIGHT / sigma
            out.append(P)
        return np.concatenate(out)

    def solve(self, prob: Problem, placements0: list[TilePlacement], K0: np.ndarray, dist0: np.ndarray,
              rvec0: np.ndarray, tvec0: np.ndarray, free_distortion: bool = True, close: bool = False):
        """Fit from the given start; robustly in two passes (Huber scale 4x, then 1x the configured
        px) unless ``close``: the start is already within a pixel or two, one pass does."""
        prob = prob.thinned(max(self.cfg.max_points // max(len(placements0), 1), 40), len(placements0))
        x0 = []
        if self.fixed_intr is None:
            x0 += [K0[0, 0], dist0[0], dist0[1], dist0[2], dist0[3], K0[1, 1] / K0[0, 0]]
        x0 += list(rvec0) + list(tvec0)
        x0 += [0.0] * (3 * (len(placements0) - 1))
        x0 = np.array(x0, dtype=np.float64)
        lb = np.full(len(x0), -np.inf)
        ub = np.full(len(x0), np.inf)
        if self.fixed_intr is None:
            lb[0], ub[0] = 0.2 * self.f_prior, 5.0 * self.f_prior
            if not free_distortion:  # too little seen to tell the lens: keep the focal length too
                lb[0], ub[0] = x0[0] * (1 - 1e-9), x0[0] * (1 + 1e-9)
            # the pixels' aspect is a fine correction: only freed for the last, close fit (earlier
            # it would soak up a coarse fit's errors)
            lim = [0.6, 0.6, 0.02, 0.02, 0.02 if close else 1e-9] if free_distortion else [1e-9] * 5
            for j in range(5):
                lb[1 + j], ub[1 + j] = x0[1 + j] - lim[j], x0[1 + j] + lim[j]
        scale = []
        if self.fixed_intr is None:
            scale += [0.02 * x0[0], 0.02, 0.02, 0.0005, 0.0005, 0.001]
        scale += [0.002] * 3 + [1.0] * 3 + [0.1, 0.3, 0.3] * (len(placements0) - 1)
        x = x0
        for f_scale in ((self.cfg.robust_px,) if close else (4.0 * self.cfg.robust_px, self.cfg.robust_px)):
            sol = least_squares(self.residuals, x, jac=self.jacobian, args=(prob, placements0), loss="huber",
                                f_scale=f_scale,
                                bounds=(lb, ub), x_scale=np.array(scale), max_nfev=100, xtol=1e-6, ftol=1e-6)
            x = sol.x
        if self.fixed_intr is None:
            # (a focal length held by its bounds was not fitted: none of it was told)
            self.focal_told = self._focal_told(sol) if free_distortion else 0.0
        K, dist, rvec, tvec, placements = self._unpack(sol.x, placements0)
        return K, dist, rvec, tvec, placements, sol

    def _focal_told(self, sol) -> float:
        """How much of the focal length the photo told, 0..1: one minus its variance after the fit
        (the other parameters free, from the Gauss-Newton information at the solution) over the
        variance its prior alone leaves.  Near 0 where the boards are seen head-on: a plane seen
        square-on shows no perspective, and a longer lens further away gives the same picture."""
        J = np.asarray(sol.jac, dtype=np.float64)
        A = J.T @ J
        d = np.sqrt(np.maximum(np.diag(A), 1e-300))
        try:
            cov = np.linalg.inv(A / np.outer(d, d)) / np.outer(d, d)
        except np.linalg.LinAlgError:
            return 0.0
        _, _, sigma = self._intrinsic_priors()
        prior_var = (sigma[0] / self.PRIOR_WEIGHT) ** 2
        return float(np.clip(1.0 - cov[0, 0] / prior_var, 0.0, 1.0))


# --------------------------------------------------------------------------------- the pipeline

@dataclass
class Registration:
    calibration: CalibrationFile
    camera: CameraModel
    placements: list[TilePlacement]
    matches: dict[str, int]
    residual_px: float
    timings: dict[str, float]


def check_photo(gray: np.ndarray, cfg: RegistrationConfig) -> None:
    """Refuse photos that are too dark or too blurred to register, with the figure that failed."""
    mean = float(gray.mean())
    if mean < cfg.min_brightness:
        raise BoardNotFound(f"the photo is too dark (mean brightness {mean:.0f}/255)",
                            "add light or lengthen the exposure and take it again")
    small = cv2.resize(gray, (640, int(640 * gray.shape[0] / gray.shape[1])), interpolation=cv2.INTER_AREA)
    lap = cv2.Laplacian(small, cv2.CV_32F)
    sharp = float(np.sqrt(np.mean(lap ** 2)))
    if sharp < cfg.min_sharpness:
        raise BoardNotFound(f"the photo is too blurred (sharpness {sharp:.1f} < {cfg.min_sharpness})",
                            "focus the camera and hold it still, then take it again")


def register(image: np.ndarray, profile: BoardProfile, intrinsics: Intrinsics | None = None,
             cfg: RegistrationConfig | None = None, source_image: str | None = None,
             profile_ref: str | None = None) -> Registration:
    """Register the boards of ``profile`` in a photo of the empty table (BGR).

    A board whose print shows few features (a plain play mat under glare, far from the camera) may
    match on fewer than ``min_inliers`` consistent ones.  Then the boards are looked for once more
    needing only ``weak_min_inliers``, and what that finds is taken only where its fit passes every
    quality bound of the calibration (its picture correlating with the photo all over the board,
    see :meth:`calibration.model.Calibration.problems`); else the first failure is what is
    reported."""
    cfg = cfg or RegistrationConfig()
    try:
        return _register(image, profile, intrinsics, cfg, source_image, profile_ref)
    except BoardNotFound as e:
        weak = e.consistent
        if not weak or cfg.weak_min_inliers >= cfg.min_inliers or min(weak.values()) < cfg.weak_min_inliers:
            raise
        try:
            reg = _register(image, profile, intrinsics, replace(cfg, min_inliers=cfg.weak_min_inliers),
                            source_image, profile_ref)
        except BoardNotFound:
            raise e from None
        if Calibration(reg.calibration).problems():
            raise e from None
        reg.calibration.quality.notes.append(
            FEW_FEATURES_NOTE + " of the print (" + ", ".join(f"{k}: {v}" for k, v in sorted(weak.items()))
            + f", fewer than {cfg.min_inliers}); its fit to the picture all over the board confirmed it")
        return reg


def _register(image: np.ndarray, profile: BoardProfile, intrinsics: Intrinsics | None, cfg: RegistrationConfig,
              source_image: str | None, profile_ref: str | None) -> Registration:
    t0 = time.perf_counter()
    timings = {}
    h, w = image.shape[:2]
    if intrinsics is not None and tuple(intrinsics.image_size) != (w, h):
        raise InputError(f"the camera file is for {intrinsics.image_size[0]}x{intrinsics.image_size[1]} images, "
                         f"the photo is {w}x{h}", "calibrate the camera at the resolution you photograph with")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    check_photo(gray, cfg)
    # features are matched on a smaller copy: small enough to be quick, big enough that the boards'
    # print keeps its detail (they may show at most largest_ppm px per mm in this photo)
    scale = min(1.0, max(cfg.work_long_side_px / max(w, h), cfg.work_ppm / largest_ppm(profile, (w, h))))
    work = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else gray
    templates = build_templates(profile, cfg.tile_features)
    timings["templates"] = time.perf_counter() - t0
    # template pictures sized for boards bigger than they can look here are left out (but the next
    # size up from that bound is kept: a picture matches over a range of sizes around its own)
    limit = largest_ppm(profile, (work.shape[1], work.shape[0]))
    levels = [v for v in TEMPLATE_SCALES_PX_PER_MM if v >= limit / 1.02]
    matches, missing = match_templates(work, templates, cfg, levels[0] * 1.02 if levels else np.inf)
    timings["match"] = time.perf_counter() - t0
    # a free grid (Pitch Fleet's 3x3) with a few tiles not matched (glare, a plain print, a webcam's
    # ~1 px per mm), many more found: they lie in the empty cells of the grid the others make; their
    # pictures tell which is which, and how turned
    arr = profile.data.arrangement
    complete_later = (bool(missing) and arr.kind == "free" and arr.grid is not None and len(matches) >= 4
                      and len(missing) <= min(cfg.grid_fill_max, len(matches) // cfg.grid_fill_per_found)
                      and all(t in profile.tile_by_id for t in missing))
    if missing and not complete_later:
        found = [m.template.name for m in matches]
        what = ", ".join(f"'{k}' ({v} consistent features, need {cfg.min_inliers})" for k, v in sorted(missing.items()))
        reason = (f"{len(missing)} of {len(templates)} {'tiles' if len(templates) > 1 else 'boards'} of "
                  f"'{profile.data.name}' not found: {what}")
        hint = ("is this the right profile, and are all the boards in view and lit?" if found else
                "no board of this profile is in the photo: check the profile and that the boards are in view")
        raise BoardNotFound(reason, hint, overlay=_overlay_matches(image, matches, scale), consistent=dict(missing))

    # ---- table frame and first placements
    ref_i = int(np.argmax([m.inliers for m in matches]))
    ref = matches[ref_i]
    # the direction of the reference template's x axis in the image
    c = ref.template.outline_mm.mean(axis=0)
    p0, p1 = _project_h(ref.H, np.array([c, c + [10.0, 0.0]]))
    phi = math.degrees(math.atan2(p1[1] - p0[1], p1[0] - p0[0]))
    snap = 90.0 if profile.data.arrangement.kind == "free" else None
    ref_rot = 90.0 * round(phi / 90.0) if snap else phi
    # template frame -> table frame (reference): rotation ref_rot, offset chosen below
    placements_tmp: list[tuple[str, float, np.ndarray]] = []  # tile, rotation, offset
    R_ref = rot2(ref_rot)
    H_ref_inv = np.linalg.inv(ref.H)
    for m in matches:
        # points of this template in the reference template frame (through the image)
        src = m.src_mm if m.inliers >= 4 else m.template.outline_mm
        dst_img = _project_h(m.H, src)
        in_ref = _project_h(H_ref_inv, dst_img)
        ang, off = _rigid_fit(src, in_ref)
        for tid in m.template.tiles:
            F = m.template.frame_to_tile[tid]          # template mm -> tile mm
            Finv = np.linalg.inv(F)                    # tile mm -> template mm
            rot_tile = math.degrees(math.atan2(Finv[1, 0], Finv[0, 0]))
            # tile -> template (Finv) -> ref template (ang, off) -> table (R_ref)
            A = np.eye(3)
            A[:2, :2] = rot2(ang)
            A[:2, 2] = off
            Rt = np.eye(3)
            Rt[:2, :2] = R_ref
            M = Rt @ A @ Finv
            placements_tmp.append((tid, ref_rot + ang + rot_tile, M[:2, 2].copy()))
    order = {t.id: i for i, t in enumerate(profile.tiles)}
    placements_tmp.sort(key=lambda p: order[p[0]])
    placements = [TilePlacement(tile=t, rotation_deg=_wrap(r), offset_mm=tuple(o)) for t, r, o in placements_tmp]
    # move the origin to the top-left of the boards
    x0, y0, _, _ = Layout(profile, placements).support.bounds
    placements = [TilePlacement(tile=p.tile, rotation_deg=p.rotation_deg,
                                offset_mm=(p.offset_mm[0] - x0, p.offset_mm[1] - y0)) for p in placements]
    tile_ids = [p.tile for p in placements]
    ref_tile = ref.template.tiles[0]
    ref_idx = tile_ids.index(ref_tile)

    # ---- correspondences (full-resolution px) per tile
    prob = _problem_from_matches(matches, tile_ids, scale)
    # ---- initial camera
    table_pts = np.concatenate([placements[t].to_table(prob.local_mm[prob.tile_of == t]) for t in range(len(placements))])
    img_pts = np.concatenate([prob.image_px[prob.tile_of == t] for t in range(len(placements))])
    Hg, _ = cv2.findHomography(table_pts, img_pts, cv2.USAC_MAGSAC, 3.0 / scale)
    if intrinsics is not None:
        K0, d0 = intrinsics.K, intrinsics.dist
    else:
        pp = ((w - 1) / 2, (h - 1) / 2)
        f0 = focal_from_homography(Hg, pp)
        f_prior = (w / 2) / math.tan(math.radians(cfg.prior_hfov_deg) / 2)
        if f0 is None or not (0.25 * f_prior < f0 < 4 * f_prior):
            f0 = f_prior
        K0 = np.array([[f0, 0, pp[0]], [0, f0, pp[1]], [0, 0, 1.0]])
        d0 = np.zeros(5)
    obj = np.column_stack([table_pts, np.zeros(len(table_pts))])
    ok, rvec0, tvec0 = cv2.solvePnP(obj, img_pts, K0, d0, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise BoardNotFound("the boards were found but no camera pose fits them", overlay=_overlay_matches(image, matches, scale))
    rvec0, tvec0 = rvec0.ravel(), tvec0.ravel()
    if complete_later:
        # the placements from the tiles' homographies can be ~10% off in scale under a steep view,
        # and so the grid's empty cells: the found tiles are first fitted on their own (their known
        # size sets the scale), then their grid tells where the missing ones lie; with the lens's
        # distortion where the found tiles cover the boards (a strong barrel bends a corner cell's
        # tiles, and their grid, 15 mm off where the missing tile lies: table 9410)
        pre = CameraSolver((w, h), tile_ids, ref_idx, intrinsics, cfg)
        K0, d0, rvec0, tvec0, placements, _ = pre.solve(prob, placements, K0, d0, rvec0, tvec0,
                                                        free_distortion=_covers(prob, matches, scale))
        cam0 = CameraModel(Intrinsics((w, h), K0, d0), Pose(rvec0, tvec0))
        extra = _complete_grid(gray, profile, placements, cam0, sorted(missing))
        if extra is None:
            what = ", ".join(f"'{k}'" for k in sorted(missing))
            raise BoardNotFound(f"{what} of '{profile.data.name}' not found, not even in the grid's empty cells",
                                "are all the boards in view and lit?", overlay=_overlay_matches(image, matches, scale))
        for pl in extra:
            placements.append(pl)
            tile_ids.append(pl.tile)
            # points of the placed tile, through the first camera, hold it in place until the
            # picture patches give real correspondences
            tile = profile.tile(pl.tile)
            gx, gy = np.meshgrid(np.linspace(15, tile.size_mm[0] - 15, 6), np.linspace(15, tile.size_mm[1] - 15, 6))
            loc = np.column_stack([gx.ravel(), gy.ravel()])
            px = cam0.project_plane(pl.to_table(loc))
            prob = Problem(np.concatenate([prob.tile_of, np.full(len(loc), len(tile_ids) - 1)]),
                           np.concatenate([prob.local_mm, loc]), np.concatenate([prob.image_px, px]),
                           np.concatenate([prob.weight, np.full(len(loc), 0.3)]))
    fixed = profile.data.arrangement.kind == "fixed" and len(placements) > 1
    solver = CameraSolver((w, h), tile_ids, ref_idx, intrinsics, cfg, nominal=list(placements) if fixed else None)
    covered = _covers(prob, matches, scale)
    K, dist, rvec, tvec, placements, _ = solver.solve(prob, placements, K0, d0, rvec0, tvec0,
                                                      free_distortion=covered)
    timings["solve"] = time.perf_counter() - t0

    # ---- the boards' outer edges, then dense picture patches
    edges = EdgeImage(gray)
    fit = _fit_closely(gray, edges, profile, solver, cfg, prob, (K, dist, rvec, tvec, placements), wide=not covered)
    K, dist, rvec, tvec, placements = fit.K, fit.dist, fit.rvec, fit.tvec, fit.placements
    prob, prob2, eobs = fit.prob, fit.prob2, fit.eobs
    cam = CameraModel(Intrinsics((w, h), K, dist), Pose(rvec, tvec))
    timings["refine"] = time.perf_counter() - t0

    # ---- a board that looks the same turned (a hexagon): its print decides which way round it lies
    turned = [_best_turn(gray, profile, pl, cam) for pl in placements]
    if any(t is not pl for t, pl in zip(turned, placements)):
        placements = turned
        prob = dense_correspondences(gray, profile, placements, cam, cfg)
        prob2 = prob
        K, dist, rvec, tvec, placements, _ = solver.solve(prob.with_edges(eobs), placements, K, dist, rvec, tvec)
        cam = CameraModel(Intrinsics((w, h), K, dist), Pose(rvec, tvec))

    # ---- residuals and frame checks
    res = _reproj(cam, prob, placements)
    rms = float(np.sqrt(np.median(np.sum(res ** 2, axis=1)) / 0.4549)) if len(res) else float("nan")
    lay = Layout(profile, placements)
    for pl in placements:
        corners = cam.project_plane(lay.tile_corners(pl))
        m = cfg.frame_margin_px
        if (corners[:, 0].min() < m or corners[:, 1].min() < m or corners[:, 0].max() > w - 1 - m
                or corners[:, 1].max() > h - 1 - m):
            raise BoardNotFound(f"tile '{pl.tile}' is partly out of the frame",
                                "move or zoom the camera so every board is fully in view",
                                overlay=draw_overlay(image, cam, lay))
    edge_mm = edge_check_mm(gray, cam, lay, edges=edges)
    # identification score: how well each tile's picture correlates with the photo where the model
    # puts it (median over textured patches; a wrong tile or turn scores near 0)
    scores = {pl.tile: prob2.tile_scores.get(pl.tile, 0.0) for pl in placements}
    part_scores = [prob2.part_scores.get(pl.tile, 0.0) for pl in placements]
    mmpp = float(cam.mm_per_px_at(np.asarray(lay.support.centroid.coords))[0])
    quality = Quality(reprojection_rms_px=round(rms, 4), corner_rms_mm=round(edge_mm, 4) if edge_mm is not None else None,
                      worst_tile_score=round(min(scores.values()), 4),
                      median_tile_score=round(float(np.median(list(scores.values()))), 4),
                      worst_part_score=round(min(part_scores), 4), mm_per_px=round(mmpp, 4),
                      distortion_from="camera" if intrinsics is not None else "edges",
                      focal_told=None if solver.focal_told is None else round(solver.focal_told, 3),
                      notes=[f"{len(prob.image_px)} points and {len(prob.edge_px)} lines of the print matched",
                             f"focal length {K[0, 0]:.1f} px",
                             *_focal_notes(solver.focal_told, cam, lay, profile, cfg)])
    appearance = {"wb_gains": board_white_balance(image, profile, placements, cam)}
    calib = build_calibration(profile, placements, cam, quality, profile_ref=profile_ref, source_image=source_image,
                              appearance=appearance)
    timings["total"] = time.perf_counter() - t0
    return Registration(calib, cam, placements, {m.template.name: m.inliers for m in matches}, rms, timings)


FOCAL_NOTE = "the photo told only"  # how the note of a focal length the photo did not tell begins
FEW_FEATURES_NOTE = "found on few features"  # ... and that of a board found on the second look


def _focal_notes(told: float | None, cam: CameraModel, lay: Layout, profile: BoardProfile,
                 cfg: RegistrationConfig) -> list[str]:
    """A warning when the photo told little of the focal length (``told`` below
    ``cfg.min_focal_told``): the camera's height above the table, and so every piece's parallax,
    is then the default lens's guess.  Says by how much the tallest piece's footprint may be off
    at the boards' corners (where the view is most oblique) if the lens is a prior's sigma off."""
    if told is None or told >= cfg.min_focal_told or not profile.data.pieces:
        return []
    tall = max(p.height_mm for p in profile.data.pieces)
    corners = np.asarray(lay.support.convex_hull.exterior.coords)[:-1]
    off = float(np.max(cam.parallax_mm(corners, tall))) * cfg.prior_f_sigma
    return [f"{FOCAL_NOTE} {told:.0%} of the focal length: the boards are seen nearly head-on, which shows "
            f"no perspective, so the camera's height (and every piece's parallax) rests on the default "
            f"{cfg.prior_hfov_deg:.0f}-degree lens and may be off by {cfg.prior_f_sigma:.0%} or more, {off:.1f} mm for a piece "
            f"{tall:g} mm tall at the boards' corners. Tilt the camera a little, or calibrate it once "
            "('tableref calibrate camera') and pass --camera"]


@dataclass
class _CloseFit:
    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    placements: list[TilePlacement]
    prob: Problem       # the observations of the last fit
    prob2: Problem      # the last dense correspondences (their tile and part scores)
    eobs: Problem       # the last edge observations


def _fit_closely(gray: np.ndarray, edges: "EdgeImage", profile: BoardProfile, solver: CameraSolver,
                 cfg: RegistrationConfig, prob: Problem, start, wide: bool) -> _CloseFit:
    """From a first fit (``start``: K, dist, rvec, tvec, placements, image px) to the close one: the
    boards' edges and dense picture patches, until the boards stop moving.  ``wide``: the first fit
    may be far off (the features did not cover the boards; it is most wrong at the rims), so two
    ways on are tried first, and the one whose boards' print agrees best with the photo is kept:
    patches of the pictures searched wide around the fit (they spread over the boards, if the print
    has texture), or the boards' edges searched wide (three widths; they hold the rims, if the table
    around does not look like an edge)."""
    h, w = gray.shape[:2]
    if not wide:
        plans = [(False, ((5.0, True),))]
    else:
        widths = [max(12.0, frac * max(w, h)) for frac in (0.012, 0.03, 0.06)]
        plans = [(True, ((5.0, True),))] + [(False, ((wd, False), (wd / 3, False), (5.0, True))) for wd in widths]
    best = None
    for patches, steps in plans:
        K, dist, rvec, tvec, placements = start
        cam = CameraModel(Intrinsics((w, h), K, dist), Pose(rvec, tvec))
        plan_prob = prob
        if patches:
            wide_prob = dense_correspondences(gray, profile, placements, cam, cfg, 24.0, 4 * cfg.refine_search_px)
            if wide_prob.size < 30:
                continue
            plan_prob = wide_prob
            K, dist, rvec, tvec, placements, _ = solver.solve(wide_prob, placements, K, dist, rvec, tvec,
                                                              free_distortion=False)
            cam = CameraModel(Intrinsics((w, h), K, dist), Pose(rvec, tvec))
        for search, nearest in steps:
            eobs = edge_observations(edges, cam, Layout(profile, placements), search, nearest)
            if len(eobs.edge_px) >= 8:
                K, dist, rvec, tvec, placements, _ = solver.solve(plan_prob.with_edges(eobs), placements, K, dist,
                                                                  rvec, tvec)
                cam = CameraModel(Intrinsics((w, h), K, dist), Pose(rvec, tvec))
        if len(plans) == 1:
            best = (0.0, K, dist, rvec, tvec, placements, plan_prob)
            break
        score = float(np.mean([_tile_fit_score(gray, profile, pl, cam) for pl in placements]))
        if best is None or score > best[0]:
            best = (score, K, dist, rvec, tvec, placements, plan_prob)
    if best is None:
        best = (0.0, *start, prob)
    _, K, dist, rvec, tvec, placements, prob = best
    cam = CameraModel(Intrinsics((w, h), K, dist), Pose(rvec, tvec))
    # picture patches, coarse to fine: a sparse set searched wide (the features were found on a
    # small copy of the photo, and edges alone pin the lens weakly), then a dense set searched
    # close, matched again where the fit has moved them, until the boards stop moving
    passes = [(2.0 * 12.0, 3 * cfg.refine_search_px)] + [(12.0, cfg.refine_search_px)] * cfg.refine_max_passes
    corners_px = None
    prob2 = prob
    for i, (spacing, search) in enumerate(passes):
        eobs = edge_observations(edges, cam, Layout(profile, placements), 4.0, True)
        prob2 = dense_correspondences(gray, profile, placements, cam, cfg, spacing, search)
        if prob2.size >= 30:
            prob = prob2
        K, dist, rvec, tvec, placements, _ = solver.solve(prob.with_edges(eobs), placements, K, dist, rvec, tvec,
                                                          close=i > 0)
        cam = CameraModel(Intrinsics((w, h), K, dist), Pose(rvec, tvec))
        lay = Layout(profile, placements)
        now = cam.project_plane(np.concatenate([lay.tile_corners(pl) for pl in placements]))
        if i > 0 and np.abs(now - corners_px).max() < cfg.refine_settled_px:
            break
        corners_px = now
    return _CloseFit(K, dist, rvec, tvec, placements, prob, prob2, eobs)


def _covers(prob: "Problem", matches: list[TileMatch], scale: float) -> bool:
    """Whether a problem's observations cover the boards the matches found (half their area in the
    photo): lens distortion is only freed then (matches may cluster)."""
    hull = cv2.contourArea(cv2.convexHull(prob.image_px.astype(np.float32)))
    boards_px = cv2.contourArea(cv2.convexHull(np.concatenate(
        [_project_h(m.H, m.template.outline_mm) / scale for m in matches]).astype(np.float32)))
    return hull > 0.5 * boards_px


def _wrap(a: float) -> float:
    return (a + 180.0) % 360.0 - 180.0


def _problem_from_matches(matches: list[TileMatch], tile_ids: list[str], scale: float) -> Problem:
    tile_of, local, img = [], [], []
    for m in matches:
        px = (m.dst_px + 0.5) / scale - 0.5
        for tid in m.template.tiles:
            F = m.template.frame_to_tile[tid]
            loc = _project_h(F, m.src_mm)
            if len(m.template.tiles) > 1:
                # keep only the points that fall on this tile
                keep = _inside_tile(tid, loc, m)
                loc, p = loc[keep], px[keep]
            else:
                p = px
            tile_of.append(np.full(len(loc), tile_ids.index(tid)))
            local.append(loc)
            img.append(p)
    tile_of = np.concatenate(tile_of)
    return Problem(tile_of, np.concatenate(local), np.concatenate(img), np.ones(len(tile_of)))


_TILE_SHAPES: dict[str, np.ndarray] = {}


def _inside_tile(tid: str, loc: np.ndarray, m: TileMatch) -> np.ndarray:
    shape = _TILE_SHAPES.get(tid)
    if shape is None:
        return np.ones(len(loc), bool)
    return np.array([cv2.pointPolygonTest(shape.astype(np.float32), (float(x), float(y)), False) >= 0 for x, y in loc])


def _reproj(cam: CameraModel, prob: Problem, placements: list[TilePlacement]) -> np.ndarray:
    pts = CameraSolver._table_points(prob.tile_of, prob.local_mm, placements)
    return cam.project_plane(pts) - prob.image_px


def outline_symmetry(tile: Tile) -> int:
    """How many turns about its centre map the tile's outline onto itself (1 = none)."""
    ring = np.asarray(tile.outline_polygon().exterior.coords)[:-1]
    c = ring.mean(axis=0)
    for n in (12, 8, 6, 4, 3, 2):
        a = np.radians(360.0 / n)
        R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
        turned = (ring - c) @ R.T + c
        d = np.linalg.norm(turned[:, None, :] - ring[None, :, :], axis=2).min(axis=1)
        if np.all(d < 0.5):
            return n
    return 1


def _tile_grid(tile: Tile, ppm: float) -> tuple[np.ndarray, tuple[int, int], np.ndarray]:
    """A grid of tile points (tile mm, ``ppm`` per mm) over the tile 4 mm inside its outline: the
    points, the grid's shape, and which points lie inside."""
    inner = tile.outline_polygon().buffer(-4.0)
    x0, y0, x1, y1 = inner.bounds
    gx, gy = np.meshgrid(np.arange(x0, x1, 1.0 / ppm), np.arange(y0, y1, 1.0 / ppm))
    loc = np.column_stack([gx.ravel(), gy.ravel()])
    return loc, gx.shape, shapely.contains_xy(inner, loc[:, 0], loc[:, 1])


def _highpass(img2d: np.ndarray, ppm: float) -> np.ndarray:
    """The print's detail, not the light's gradient or glare (which no turn of the picture has)."""
    f = img2d.astype(np.float32)
    return f - cv2.GaussianBlur(f, (0, 0), 4.0 * ppm)


def _picture_samples(profile: BoardProfile, tile: Tile, loc: np.ndarray, shape, inside: np.ndarray,
                     turns_deg: list[float], ppm: float) -> list[np.ndarray]:
    """The tile's picture sampled at the grid points, as it would look turned by each of
    ``turns_deg`` about the tile's centre (made once per profile: read-only)."""
    key = ("picture samples", tile.id, tuple(turns_deg), ppm, len(loc))
    if key not in profile.derived:
        profile.derived[key] = _picture_samples_now(profile, tile, loc, shape, inside, turns_deg, ppm)
    return profile.derived[key]


def _picture_samples_now(profile: BoardProfile, tile: Tile, loc: np.ndarray, shape, inside: np.ndarray,
                         turns_deg: list[float], ppm: float) -> list[np.ndarray]:
    pic, pic_ppm = _tile_picture(profile, tile)
    c = np.asarray(tile.outline_polygon().centroid.coords[0])
    pg = cv2.GaussianBlur(cv2.cvtColor(pic, cv2.COLOR_BGR2GRAY), (0, 0), max(0.5, pic_ppm / ppm / 2))
    refs = []
    for turn in turns_deg:
        # if the tile lies turned by `turn` about c, the picture point seen at tile point p is R(-turn)(p - c) + c
        src = (loc - c) @ rot2(-turn).T + c
        tp = (src * pic_ppm - 0.5).astype(np.float32)
        ref = _highpass(cv2.remap(pg, tp[:, 0].reshape(shape), tp[:, 1].reshape(shape), cv2.INTER_LINEAR),
                        ppm).ravel()[inside]
        ref.flags.writeable = False
        refs.append(ref)
    return refs


def _tile_samples(gray: np.ndarray, profile: BoardProfile, pl: TilePlacement, cam: CameraModel,
                  turns_deg: list[float], ppm: float = 1.0) -> tuple[np.ndarray, list[np.ndarray]]:
    """The photo where the placement puts a tile, and the tile's picture as it would look turned by
    each of ``turns_deg`` about its centre; both sampled on a coarse grid of the tile (inside it)."""
    tile = profile.tile(pl.tile)
    loc, shape, inside = _tile_grid(tile, ppm)
    c = np.asarray(tile.outline_polygon().centroid.coords[0])
    px = cam.project_plane(pl.to_table(loc)).astype(np.float32)
    mmpp = float(cam.mm_per_px_at(pl.to_table(c[None]))[0])
    sigma = max(0.5, 0.5 / (ppm * mmpp))
    g, px = _blurred_crop(gray, px, sigma)
    photo = _highpass(cv2.remap(g, px[:, 0].reshape(shape), px[:, 1].reshape(shape), cv2.INTER_LINEAR), ppm)
    return photo.ravel()[inside], _picture_samples(profile, tile, loc, shape, inside, turns_deg, ppm)


def _blurred_crop(gray: np.ndarray, px: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """The photo blurred by ``sigma`` only around the image points ``px`` (a tile is a ninth of a
    12 MP photo: blurring all of it for every tile cost a quarter of a second), and the points
    shifted into the crop."""
    h, w = gray.shape[:2]
    pad = int(math.ceil(4 * sigma)) + 2
    x0 = max(0, math.floor(float(px[:, 0].min())) - pad)
    y0 = max(0, math.floor(float(px[:, 1].min())) - pad)
    x1 = min(w, math.ceil(float(px[:, 0].max())) + pad + 1)
    y1 = min(h, math.ceil(float(px[:, 1].max())) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return cv2.GaussianBlur(gray, (0, 0), sigma), px
    crop, px = gray[y0:y1, x0:x1], px - np.array([x0, y0], np.float32)
    # a wide blur on a 12 MP photo: first average f x f pixels (a box of variance (f^2 - 1) / 12),
    # then blur the small copy by what is left of sigma
    f = int(sigma / 1.5)
    if f >= 2 and min(crop.shape[:2]) >= 8 * f:
        small = cv2.resize(crop, (-(-crop.shape[1] // f), -(-crop.shape[0] // f)), interpolation=cv2.INTER_AREA)
        sxy = np.array([crop.shape[1] / small.shape[1], crop.shape[0] / small.shape[0]], np.float32)
        rest = math.sqrt(max(sigma * sigma - (f * f - 1) / 12.0, 0.25)) / f
        return cv2.GaussianBlur(small, (0, 0), rest), ((px + 0.5) / sxy - 0.5).astype(np.float32)
    return cv2.GaussianBlur(crop, (0, 0), sigma), px.astype(np.float32)


def _complete_grid(gray: np.ndarray, profile: BoardProfile, placements: list[TilePlacement], cam: CameraModel,
                   missing: list[str]) -> list[TilePlacement] | None:
    """Place the missing tiles of a free grid in its empty cells: the cells come from the found
    tiles' centres and spacing; which tile goes where, and how turned, from their pictures."""
    cols, rows = profile.data.arrangement.grid
    size = np.array(max((profile.tile(t).size_mm for t in profile.tile_by_id), key=lambda v: v[0] * v[1]))
    centres = np.array([pl.to_table(size[None] / 2)[0] for pl in placements])
    # the table frame is aligned with the tiles: cells step along x and y
    d = np.abs(centres[:, None, :] - centres[None, :, :])
    steps = d[(d > 0.5 * size.min()) & (d < 1.6 * size.max())]
    if len(steps) == 0:
        return None
    pitch = float(np.median(steps[steps > 0.8 * size.min()]))
    origin = centres[0]
    cell_of = [(int(round((c[0] - origin[0]) / pitch)), int(round((c[1] - origin[1]) / pitch))) for c in centres]
    cells = set(cell_of)
    centre_at = dict(zip(cell_of, centres))

    def cell_centre(cell) -> np.ndarray:
        """Where a cell's tile would lie: a pitch on from the found tiles beside it (hand-placed
        tiles wander off a global grid by more than from their neighbours)."""
        near = [centre_at[n] + (np.array(cell) - n) * pitch for n in ((cell[0] + dx, cell[1] + dy) for dx, dy in
                ((-1, 0), (1, 0), (0, -1), (0, 1))) if n in centre_at]
        return np.mean(near, axis=0) if near else origin + np.array(cell) * pitch
    xs, ys = sorted({c[0] for c in cells}), sorted({c[1] for c in cells})
    base_rot = float(np.median([((pl.rotation_deg + 45) % 90) - 45 for pl in placements]))
    best_plan, best_score = None, -np.inf
    for wx in range(max(xs) - cols + 1, min(xs) + 1):
        for wy in range(max(ys) - rows + 1, min(ys) + 1):
            empty = [(i, j) for i in range(wx, wx + cols) for j in range(wy, wy + rows) if (i, j) not in cells]
            if len(empty) != len(missing):
                continue
            # every tile at every empty cell: its best turn, slid to where its picture fits best
            # (hand-placed tiles sit a few mm off the grid); then the best assignment
            fits = {}
            for t in missing:
                for cell in empty:
                    p0 = cell_centre(cell)
                    # each turn slid to its best place first: off the grid by a few mm, every turn
                    # scores alike at the cell's centre
                    fits[(t, cell)] = max((_slide(gray, profile, cam, t, p0, base_rot + 90 * k) for k in range(4)),
                                          key=lambda f: f[0])
            from itertools import permutations

            for perm in permutations(empty):
                total = sum(fits[(t, c)][0] for t, c in zip(missing, perm))
                if total > best_score:
                    best_score, best_plan = total, [fits[(t, c)][1] for t, c in zip(missing, perm)]
    if best_plan is None or best_score / len(missing) < 0.1:
        return None
    return best_plan


def _slide(gray, profile, cam, tile_id: str, p0: np.ndarray, rot: float) -> tuple[float, TilePlacement]:
    """Shift and turn a tile a little (a hand-placed tile is a few mm and degrees off the grid)
    to where its picture fits the photo best: a coarse-to-fine search."""
    score = _TileScorer(gray, profile, cam, _at(profile, tile_id, p0, rot))
    best = (score(_at(profile, tile_id, p0, rot)), np.asarray(p0, float), rot)
    for step, turn in ((4.0, 2.0), (1.5, 0.8), (0.6, 0.3)):
        centre, r0 = best[1], best[2]
        for dr in (-1, 0, 1):
            for dx in (-2, -1, 0, 1, 2):
                for dy in (-2, -1, 0, 1, 2):
                    p, r = centre + np.array([dx, dy]) * step, r0 + dr * turn
                    sc = score(_at(profile, tile_id, p, r))
                    if sc > best[0]:
                        best = (sc, p, r)
    return best[0], _at(profile, tile_id, best[1], best[2])


class _TileScorer:
    """:func:`_tile_fit_score` for many placements of one tile near one place: the blurred photo
    and the tile's sampled picture are made once, each placement only samples the photo again."""

    def __init__(self, gray: np.ndarray, profile: BoardProfile, cam: CameraModel, near: TilePlacement):
        self.tile = profile.tile(near.tile)
        self.loc, self.shape, self.inside = _tile_grid(self.tile, 1.0)
        self.ref = _picture_samples(profile, self.tile, self.loc, self.shape, self.inside, [0.0], 1.0)[0]
        c = np.asarray(self.tile.outline_polygon().centroid.coords[0])
        mmpp = float(cam.mm_per_px_at(near.to_table(c[None]))[0])
        self.g = cv2.GaussianBlur(gray, (0, 0), max(0.5, 0.5 / mmpp))
        # the camera's table -> image map on a 1 mm grid around the tile (the slide moves it by
        # 20 mm at most): each placement then costs a lookup, not a projection with distortion
        corners = near.to_table(np.asarray(self.tile.outline_polygon().exterior.coords))
        self.t0 = corners.min(axis=0) - 25.0
        t1 = corners.max(axis=0) + 25.0
        tx, ty = np.meshgrid(np.arange(self.t0[0], t1[0]), np.arange(self.t0[1], t1[1]))
        p = cam.project_plane(np.column_stack([tx.ravel(), ty.ravel()])).astype(np.float32)
        self.map_x, self.map_y = p[:, 0].reshape(tx.shape), p[:, 1].reshape(tx.shape)

    def __call__(self, pl: TilePlacement) -> float:
        u = (pl.to_table(self.loc) - self.t0).astype(np.float32)
        ux, uy = u[:, 0].reshape(self.shape), u[:, 1].reshape(self.shape)
        px = cv2.remap(self.map_x, ux, uy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=-1e4)
        py = cv2.remap(self.map_y, ux, uy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=-1e4)
        photo = _highpass(cv2.remap(self.g, px, py, cv2.INTER_LINEAR), 1.0).ravel()[self.inside]
        return _ncc(photo, self.ref)


def _at(profile: BoardProfile, tile_id: str, centre: np.ndarray, rotation_deg: float) -> TilePlacement:
    """A placement that puts the tile's centre at ``centre`` (table mm), turned by ``rotation_deg``."""
    half = np.array(profile.tile(tile_id).size_mm) / 2
    off = np.asarray(centre) - rot2(rotation_deg) @ half
    return TilePlacement(tile=tile_id, rotation_deg=_wrap(rotation_deg), offset_mm=(float(off[0]), float(off[1])))


def _tile_fit_score(gray: np.ndarray, profile: BoardProfile, pl: TilePlacement, cam: CameraModel) -> float:
    """How well a tile's print (detail, not light) matches the photo where the model puts it."""
    photo, refs = _tile_samples(gray, profile, pl, cam, [0.0], ppm=1.0)
    return _ncc(photo, refs[0])


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-9))


def _best_turn(gray: np.ndarray, profile: BoardProfile, pl: TilePlacement, cam: CameraModel) -> TilePlacement:
    """For a tile whose outline looks the same turned (a hexagon), the turn its print matches best.

    The symmetric part of the print (pits, lines) matches every turn alike, so each turned picture
    is compared with the photo after removing the mean of all turns: only the print that is not
    symmetric (wood grain, a logo) decides, and only by a clear margin."""
    tile = profile.tile(pl.tile)
    n = outline_symmetry(tile)
    if n == 1:
        return pl
    # sampled every 2 mm: a turn moves the print by centimetres
    photo, refs = _tile_samples(gray, profile, pl, cam, [k * 360.0 / n for k in range(n)], ppm=0.5)
    sym = np.mean(refs, axis=0)
    scores = [_ncc(photo, r - sym) for r in refs]
    k = int(np.argmax(scores))
    if k == 0 or scores[k] < max(0.1, scores[0] + 0.05):
        return pl
    # the tile lies turned by k steps: compose the placement with that turn about the tile's centre
    c = np.asarray(tile.outline_polygon().centroid.coords[0])
    turn = k * 360.0 / n
    # p_table = R(rot) (R(turn)(p - c) + c) + off  =  R(rot + turn) p + (R(rot)(c - R(turn) c) + off)
    off = rot2(pl.rotation_deg) @ (c - rot2(turn) @ c) + np.asarray(pl.offset_mm)
    return TilePlacement(tile=pl.tile, rotation_deg=_wrap(pl.rotation_deg + turn), offset_mm=(float(off[0]), float(off[1])))


def board_white_balance(image: np.ndarray, profile: BoardProfile, placements: list[TilePlacement],
                        cam: CameraModel, spacing_mm: float = 4.0) -> list[float]:
    """Per-channel gains mapping the photo's colours onto the boards' pictures (the board's print is
    the colour reference the referee uses to name piece colours under any light)."""
    from vision.colors import white_balance_gains

    photo, pic = [], []
    for pl in placements:
        tile = profile.tile(pl.tile)
        img, ppm = _tile_picture(profile, tile)
        inner = tile.outline_polygon().buffer(-5.0)
        x0, y0, x1, y1 = inner.bounds
        gx, gy = np.meshgrid(np.arange(x0, x1, spacing_mm), np.arange(y0, y1, spacing_mm))
        loc = np.column_stack([gx.ravel(), gy.ravel()])
        from shapely import contains_xy

        loc = loc[contains_xy(inner, loc[:, 0], loc[:, 1])]
        px = cam.project_plane(pl.to_table(loc)).astype(np.float32)
        tp = (loc * ppm - 0.5).astype(np.float32)
        a = cv2.remap(image, px[:, 0].reshape(1, -1), px[:, 1].reshape(1, -1), cv2.INTER_LINEAR).reshape(-1, 3)
        b = cv2.remap(img, tp[:, 0].reshape(1, -1), tp[:, 1].reshape(1, -1), cv2.INTER_LINEAR).reshape(-1, 3)
        photo.append(a)
        pic.append(b)
    return white_balance_gains(np.concatenate(photo), np.concatenate(pic))


# ----------------------------------------------------------------------------- dense refinement

def dense_correspondences(gray: np.ndarray, profile: BoardProfile, placements: list[TilePlacement],
                          cam: CameraModel, cfg: RegistrationConfig, spacing_mm: float = 12.0,
                          search_px: int | None = None) -> Problem:
    """Sub-pixel correspondences: patches of each tile's picture, warped into the photo through the
    current model, aligned by normalised cross-correlation within ``search_px`` (image px) of their
    predicted place."""
    half = cfg.refine_patch_px
    search = cfg.refine_search_px if search_px is None else search_px
    h, w = gray.shape
    ncc_of: dict[int, np.ndarray] = {}   # per tile: (correlation, tile mm x, y) of each textured patch
    points, lines = [], []   # per tile: (tile, tile mm, photo px, weight, normal) arrays
    size = 2 * half + 1
    jj, ii = np.meshgrid(np.arange(size, dtype=np.float64), np.arange(size, dtype=np.float64))
    # no more patches than the bundle adjustment keeps per tile (it thins what it gets evenly)
    budget = cfg.refine_patch_budget * cfg.max_points / max(len(placements), 1)
    for t, pl in enumerate(placements):
        tile = profile.tile(pl.tile)
        pic_g, ppm = _grey_picture(profile, tile)
        outline = tile.outline_polygon()
        inner = outline.buffer(-6.0)
        if inner.is_empty:
            continue
        step = max(spacing_mm, math.sqrt(inner.area / budget))
        x0, y0, x1, y1 = inner.bounds
        gx, gy = np.meshgrid(np.arange(x0 + step / 2, x1, step), np.arange(y0 + step / 2, y1, step))
        grid = np.column_stack([gx.ravel(), gy.ravel()])
        grid = grid[shapely.contains_xy(inner, grid[:, 0], grid[:, 1])]
        if len(grid) == 0:
            continue
        # each point and two more 2 mm along x and y, projected at once: the local affine map
        # photo px -> tile px around each point
        d = 2.0
        loc3s = grid[:, None, :] + np.array([[0.0, 0.0], [d, 0.0], [0.0, d]])
        img3s = cam.project_plane(pl.to_table(loc3s.reshape(-1, 2))).reshape(-1, 3, 2)
        u, v = img3s[:, 0, 0], img3s[:, 0, 1]
        m = half + search + 2
        ok = (u >= m) & (u < w - m) & (v >= m) & (v < h - m)
        # pits are holes, not print: how their rims and walls look depends on the light and the
        # view, so patches that reach into one are left out (the patch's half-diagonal, in mm)
        if tile.pits:
            reach = half * math.sqrt(2) * d / np.linalg.norm(img3s[:, 1] - img3s[:, 0], axis=1)
            for pit in tile.pits:
                ok &= np.linalg.norm(loc3s[:, 0] - np.asarray(pit.center), axis=1) > pit.radius + reach
        loc3s, img3s = loc3s[ok], img3s[ok]
        if len(loc3s) == 0:
            continue
        # A: photo px -> tile px through the three points; M: patch px -> tile px, the patch's
        # top-left pixel at photo (uu0, vv0)
        S = np.concatenate([img3s, np.ones((len(img3s), 3, 1))], axis=2)
        A = np.linalg.solve(S, loc3s * ppm - 0.5).transpose(0, 2, 1)          # (N, 2, 3)
        uu0 = np.round(img3s[:, 0, 0]).astype(int) - half
        vv0 = np.round(img3s[:, 0, 1]).astype(int) - half
        M = A.copy()
        M[:, :, 2] += A[:, :, 0] * uu0[:, None] + A[:, :, 1] * vv0[:, None]
        # every template at once: the tile picture resampled on the photo's pixel grid
        mx = M[:, 0, 0, None, None] * jj + M[:, 0, 1, None, None] * ii + M[:, 0, 2, None, None]
        my = M[:, 1, 0, None, None] * jj + M[:, 1, 1, None, None] * ii + M[:, 1, 2, None, None]
        # (one row per patch: remap's maps must stay under 32767 rows)
        patches = cv2.remap(pic_g, mx.reshape(len(M), -1).astype(np.float32), my.reshape(len(M), -1).astype(np.float32),
                            cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT).reshape(-1, size, size)
        textured = np.flatnonzero(patches.reshape(len(patches), -1).std(axis=1) >= 6.0)
        normal, is_line = _line_patches(patches[textured], cfg.refine_line_ratio)
        if len(textured) == 0:
            continue
        # each patch correlated over its search window; the windows' correlations (n, S, S)
        res = np.stack([cv2.matchTemplate(gray[vv0[k] - search:vv0[k] + size + search,
                                               uu0[k] - search:uu0[k] + size + search].astype(np.float32),
                                          patches[k], cv2.TM_CCOEFF_NORMED) for k in textured])
        S = res.shape[1]
        flat = res.reshape(len(res), -1)
        at = flat.argmax(axis=1)
        best = flat[np.arange(len(res)), at]
        ly, lx = at // S, at % S
        ncc_of[t] = np.column_stack([best, loc3s[textured, 0]])
        ok = (best >= 0.6) & (lx > 0) & (lx < S - 1) & (ly > 0) & (ly < S - 1)
        res, best, lx, ly, nrm, line, ks = res[ok], best[ok], lx[ok], ly[ok], normal[ok], is_line[ok], textured[ok]
        n_ok = np.arange(len(res))
        # a corner: the peak by parabolas along x and y; a line: the correlation is a ridge along
        # it, whose crest is found across it
        cx = lx + _parabolas(res[n_ok, ly, lx - 1], best, res[n_ok, ly, lx + 1])
        cy = ly + _parabolas(res[n_ok, ly - 1, lx], best, res[n_ok, ly + 1, lx])
        off = _parabolas(_bilinears(res, lx - nrm[:, 0], ly - nrm[:, 1]), best,
                         _bilinears(res, lx + nrm[:, 0], ly + nrm[:, 1]))
        cx = np.where(line, lx + off * nrm[:, 0], cx)
        cy = np.where(line, ly + off * nrm[:, 1], cy)
        # the patch's centre pixel (half, half) sits at photo (uu0 + half + dx, vv0 + half + dy);
        # the tile point there is the one the affine maps there
        px = np.column_stack([uu0[ks] + half + cx - search, vv0[ks] + half + cy - search])
        pc = M[ks] @ np.array([half, half, 1.0])
        obs = (np.full(len(ks), t), (pc + 0.5) / ppm, px, np.minimum(1.0, (best - 0.5) * 2.5), nrm)
        points.append(tuple(o[~line] for o in obs))
        lines.append(tuple(o[line] for o in obs))
    scores = {placements[t].tile: float(np.median(v[:, 0])) for t, v in ncc_of.items()}
    part_scores = {placements[t].tile: _weakest_part_score(v, profile.tile(placements[t].tile).size_mm,
                                                           cfg.score_cell_mm) for t, v in ncc_of.items()}

    def cols(obs, j, empty):
        return np.concatenate([o[j] for o in obs]) if obs else empty

    prob = Problem(cols(points, 0, np.zeros(0, int)), cols(points, 1, np.zeros((0, 2))),
                   cols(points, 2, np.zeros((0, 2))), cols(points, 3, np.zeros(0)),
                   cols(lines, 0, np.zeros(0, int)), cols(lines, 1, np.zeros((0, 2))), cols(lines, 2, np.zeros((0, 2))),
                   cols(lines, 4, np.zeros((0, 2))), cols(lines, 3, np.zeros(0)))
    prob.tile_scores = scores
    prob.part_scores = part_scores
    return prob


def _weakest_part_score(ncc_xy: np.ndarray, size_mm, cell_mm: float) -> float:
    """How well a tile's print matches the photo where the model puts it, in its weakest part: the
    median patch correlation over each cell of ``cell_mm``, the lowest of them.  A fit that holds
    one end of a big board and misses the other scores low there, however well the rest matches.
    Cells with clearly fewer textured patches than most (a hexagon's tips, the print between
    pits) do not count on their own."""
    ncc, x, y = ncc_xy[:, 0], ncc_xy[:, 1], ncc_xy[:, 2]
    nx, ny = max(1, int(round(size_mm[0] / cell_mm))), max(1, int(round(size_mm[1] / cell_mm)))
    cell = (np.clip((x / size_mm[0] * nx).astype(int), 0, nx - 1) * ny
            + np.clip((y / size_mm[1] * ny).astype(int), 0, ny - 1))
    cells, counts = np.unique(cell, return_counts=True)
    enough = max(6.0, 0.6 * float(np.median(counts)))
    parts = [float(np.median(ncc[cell == c])) for c, k in zip(cells, counts) if k >= enough]
    return min([float(np.median(ncc)), *parts])


def _line_patches(patches: np.ndarray, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """For (n, s, s) patches: the unit direction (x, y) across which each varies most, and whether
    it is a line (varies ``ratio`` times less along the line than across: the structure tensor's
    eigenvalues)."""
    if len(patches) == 0:
        return np.zeros((0, 2)), np.zeros(0, bool)
    gy, gx = np.gradient(patches.astype(np.float64), axis=(1, 2))
    a, b, c = (gx * gx).sum(axis=(1, 2)), (gx * gy).sum(axis=(1, 2)), (gy * gy).sum(axis=(1, 2))
    root = np.sqrt(((a - c) / 2) ** 2 + b * b)
    big, small = (a + c) / 2 + root, (a + c) / 2 - root
    theta = 0.5 * np.arctan2(2 * b, a - c)
    return np.column_stack([np.cos(theta), np.sin(theta)]), small < ratio * np.maximum(big, 1e-12)


def _bilinears(imgs: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Each of the images ``imgs`` (n, h, w) at its own fractional pixel (x, y) inside it."""
    h, w = imgs.shape[1:]
    x0 = np.minimum(np.floor(x).astype(int), w - 2).clip(0)
    y0 = np.minimum(np.floor(y).astype(int), h - 2).clip(0)
    fx, fy = x - x0, y - y0
    n = np.arange(len(imgs))
    return ((imgs[n, y0, x0] * (1 - fx) + imgs[n, y0, x0 + 1] * fx) * (1 - fy)
            + (imgs[n, y0 + 1, x0] * (1 - fx) + imgs[n, y0 + 1, x0 + 1] * fx) * fy)


def _parabolas(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Sub-pixel offsets (-0.5..0.5) of the peaks of parabolas through triples (a, b, c) at -1, 0, 1."""
    den = a - 2 * b + c
    return np.where(np.abs(den) < 1e-9, 0.0, np.clip(0.5 * (a - c) / np.where(den == 0, 1.0, den), -0.5, 0.5))


# ------------------------------------------------------------------------------- edges, overlay

class EdgeImage:
    """The photo, lightly blurred, for locating board edges across their predicted place (image px).

    Gradients are taken only where an edge is looked for, along the line searched: a Sobel
    derivative turned to the line's direction (for a line along x or y it is the 3x3 Sobel itself);
    two full-frame Sobels of a 12 MP photo cost a fifth of a second for the few thousand pixels
    ever looked at."""

    _W = np.array([1.0, 2.0, 1.0])  # Sobel's smoothing across the derivative

    def __init__(self, gray: np.ndarray):
        self.g = cv2.GaussianBlur(gray, (0, 0), 1.0).astype(np.float32)
        self.h, self.w = gray.shape

    def profiles(self, xs: np.ndarray, ys: np.ndarray, dns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Along n lines of image points (xs, ys: (n, L)), each running along its unit direction
        ``dns[k]``: the gradient magnitude along that direction and the grey level, both (n, L)."""
        n, L = xs.shape
        if n == 0:
            return np.zeros((0, L)), np.zeros((0, L))
        tx, ty = -dns[:, 1:], dns[:, :1]
        rows_x, rows_y = [xs], [ys]
        for a in (-1.0, 0.0, 1.0):
            for b in (1.0, -1.0):
                rows_x.append(xs + b * dns[:, :1] + a * tx)
                rows_y.append(ys + b * dns[:, 1:] + a * ty)
        mx = np.stack(rows_x, axis=1).reshape(-1, L).astype(np.float32)
        my = np.stack(rows_y, axis=1).reshape(-1, L).astype(np.float32)
        # (remap's maps must stay under 32767 rows)
        smp = np.concatenate([cv2.remap(self.g, mx[k:k + 28000], my[k:k + 28000], cv2.INTER_LINEAR)
                              for k in range(0, len(mx), 28000)]).reshape(n, 7, L).astype(np.float64)
        return np.abs(np.einsum("k,nkl->nl", self._W, smp[:, 1::2] - smp[:, 2::2])), smp[:, 0]

    def find_many(self, us: np.ndarray, vs: np.ndarray, dns: np.ndarray, search_px: float,
                  nearest: bool = True, inside: np.ndarray | None = None, min_ncc: float = 0.6) -> np.ndarray:
        """For each image point (us, vs) and unit normal ``dns`` (pointing off the board): the offset
        (px, along the normal) of the board edge near it, NaN where none is found.

        The board's edge is a *step* between the board and the table: what lies a few pixels
        inside differs from what lies a few pixels outside.  A printed line near the edge is a
        ridge (the same on both sides) and is passed over.  Of the strong steps, the one nearest
        the point is taken (``nearest``), or the strongest.

        ``inside`` (n, J): where the board's own picture shows what lies just inside its edge (grey
        levels 0.5, 1.5, ... px inward; NaN rows where it is plain), the edge is where the photo
        inside it correlates best with that (``min_ncc`` at least): a rounded-over rim or a
        border printed along the edge is then told from the edge itself, whatever the table
        looks like."""
        n = len(us)
        out = np.full(n, np.nan)
        if n == 0:
            return out
        J = 0 if inside is None else inside.shape[1]
        pad = max(8, J)
        offs = np.arange(-search_px - pad, search_px + pad + 1, dtype=np.float64)
        L = len(offs)
        xs = us[:, None] + offs * dns[:, :1]
        ys = vs[:, None] + offs * dns[:, 1:]
        valid = ((xs.min(axis=1) >= 2) & (ys.min(axis=1) >= 2) & (xs.max(axis=1) <= self.w - 3)
                 & (ys.max(axis=1) <= self.h - 3))
        mag, grey = self.profiles(xs, ys, dns)
        lo, hi = pad, L - pad
        i = np.arange(lo, hi)
        # the step at i: mean grey of [i-7, i-2) against [i+3, i+8), from cumulative sums
        c = np.concatenate([np.zeros((n, 1)), np.cumsum(grey, axis=1)], axis=1)
        step = np.abs((c[:, i - 2] - c[:, i - 7]) - (c[:, i + 8] - c[:, i + 3])) / 5.0
        m = mag[:, lo:hi]
        peak = (m >= mag[:, lo - 1:hi - 1]) & (m >= mag[:, lo + 1:hi + 1])
        steps = peak & (step >= 6.0)
        strong = np.where(steps, m, -np.inf).max(axis=1)
        cand = steps & (m >= np.maximum(8.0, 0.5 * strong)[:, None])
        if nearest:
            j = np.argmin(np.where(cand, np.abs(offs[lo:hi]), np.inf), axis=1)
        else:
            j = np.argmax(np.where(cand, m, -np.inf), axis=1)
        ok = valid & cand.any(axis=1)
        r = np.arange(n)
        jj = j + lo
        out[ok] = (offs[jj] + _parabolas(mag[r, jj - 1], mag[r, jj], mag[r, jj + 1]))[ok]
        if inside is not None:
            pic = np.isfinite(inside).all(axis=1)
            if pic.any():
                by_pic = self._by_picture(grey[pic], mag[pic], inside[pic], offs, lo, hi, min_ncc, valid[pic])
                # where the picture's print is not recognised, the step found is kept
                out[pic] = np.where(np.isnan(by_pic), out[pic], by_pic)
        return out

    @staticmethod
    def _by_picture(grey: np.ndarray, mag: np.ndarray, inside: np.ndarray, offs: np.ndarray, lo: int, hi: int,
                    min_ncc: float, valid: np.ndarray, step_weight: float = 0.3) -> np.ndarray:
        """The edge offsets where the photo just inside best matches the picture's ``inside``
        profiles (normalised cross-correlation, at least ``min_ncc``, else NaN) and the photo
        steps: the score adds ``step_weight`` times the gradient there, relative to the strongest
        in the search.  The correlation alone cannot tell a sharp rim from a soft ramp into a
        board's shadow; the gradient alone cannot see an edge between a rim and a table of the
        same grey."""
        n, J = inside.shape
        # the photo inward from each candidate i: grey[i], grey[i-1], ... grey[i-J+1]; the edge
        # itself lies half a pixel outward of grey[i].  The first pixel inside is left out of the
        # comparison: blurred with the table, which the picture does not show.
        win = np.lib.stride_tricks.sliding_window_view(grey, J, axis=1)[:, lo - J + 1:hi - J + 1, ::-1][:, :, 1:]
        a = win - win.mean(axis=2, keepdims=True)
        b = inside[:, 1:] - inside[:, 1:].mean(axis=1, keepdims=True)
        ncc = np.einsum("nij,nj->ni", a, b) / np.maximum(
            np.sqrt((a * a).sum(axis=2) * (b * b).sum(axis=1)[:, None]), 1e-9)
        g = 0.5 * (mag[:, lo:hi] + mag[:, lo + 1:hi + 1])        # the gradient half a pixel out
        score = ncc + step_weight * g / np.maximum(g.max(axis=1, keepdims=True), 1e-9)
        j = np.argmax(score, axis=1)
        r = np.arange(n)
        inner = (j > 0) & (j < score.shape[1] - 1)
        jm, jp = np.clip(j - 1, 0, score.shape[1] - 1), np.clip(j + 1, 0, score.shape[1] - 1)
        sub = np.where(inner, _parabolas(score[r, jm], score[r, j], score[r, jp]), 0.0)
        return np.where(valid & inner & (ncc[r, j] >= min_ncc), offs[lo + j] + 0.5 + sub, np.nan)


def edge_observations(edges: EdgeImage, cam: CameraModel, lay: Layout, search_px: float, nearest: bool = True,
                      spacing_mm: float = 8.0) -> Problem:
    """Points of every board edge that borders the table, located on the photo across the edge."""
    support = lay.support
    shapely.prepare(support)
    tiles, local, qs, ns, inward = [], [], [], [], []
    for t, pl in enumerate(lay.placements):
        tile = lay.profile.tile(pl.tile)
        ring = np.asarray(tile.outline_polygon().exterior.coords)[:-1]
        k = len(ring)
        for i in range(k):
            a, b = ring[i], ring[(i + 1) % k]
            L = float(np.linalg.norm(b - a))
            if L < 30:
                continue
            # along the whole side, to within a few mm of its corners: the lens bends most there,
            # and nothing else is seen so far out
            ts = np.linspace(3.0, L - 3.0, max(2, int(round((L - 6.0) / spacing_mm)) + 1)) / L
            pts_loc = a + (b - a) * ts[:, None]
            tab = pl.to_table(pts_loc)
            ta, tb = pl.to_table(np.array([a, b]))
            nrm = np.array([(tb - ta)[1], -(tb - ta)[0]]) / L
            if support.contains(_pt(tab[len(tab) // 2] + nrm * 3.0)):
                nrm = -nrm  # point outward
            outside = ~shapely.contains_xy(support, *(tab + nrm * 3.0).T)
            if not outside.any():
                continue
            n_in = -(rot2(-pl.rotation_deg) @ nrm)   # the side's inward normal in the tile's frame
            tiles.append(np.full(int(outside.sum()), t))
            local.append(pts_loc[outside])
            qs.append(tab[outside])
            ns.append(np.broadcast_to(nrm, (int(outside.sum()), 2)))
            inward.append(np.broadcast_to(n_in, (int(outside.sum()), 2)))
    prob = Problem.empty()
    if not tiles:
        return prob
    tab = np.concatenate(qs)
    px = cam.project_plane(np.concatenate([tab, tab + np.concatenate(ns)])).reshape(2, -1, 2)
    dn = px[1] - px[0]
    px_per_mm = np.linalg.norm(dn, axis=1)
    dn /= px_per_mm[:, None]
    inside = _inside_profiles(lay, np.concatenate(tiles), np.concatenate(local), np.concatenate(inward), px_per_mm,
                              search_px)
    off = edges.find_many(px[0][:, 0], px[0][:, 1], dn, search_px, nearest, inside)
    found = ~np.isnan(off)
    if not found.any():
        return prob
    e = Problem.empty()
    return Problem(e.tile_of, e.local_mm, e.image_px, e.weight, np.concatenate(tiles)[found],
                   np.concatenate(local)[found], px[0][found] + off[found, None] * dn[found], dn[found])


def _grey_picture(profile: BoardProfile, tile: Tile, ppm_want: float = np.inf) -> tuple[np.ndarray, float]:
    """The tile's picture in grey (float32) and its px per mm, reduced by powers of two to no more
    than twice ``ppm_want`` px per mm (sampled at ``ppm_want`` it then averages what a photo pixel
    would); made once per profile, read-only."""
    img, ppm = _tile_picture(profile, tile)
    k = int(max(0, np.floor(np.log2(max(ppm / (2.0 * ppm_want), 1.0)))))
    key = ("grey picture", tile.id, k)
    if key not in profile.derived:
        g = cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_BGR2GRAY)
        for _ in range(k):
            g = cv2.pyrDown(g)
        g = g.astype(np.float32)
        g.flags.writeable = False
        profile.derived[key] = (g, ppm * g.shape[1] / img.shape[1])
    return profile.derived[key]


def _inside_profiles(lay: Layout, tile_of: np.ndarray, local_mm: np.ndarray, inward: np.ndarray,
                     px_per_mm: np.ndarray, search_px: float, reach_mm: float = 5.0,
                     min_std: float = 6.0) -> np.ndarray:
    """What each tile's picture shows just inside its edge at the points ``local_mm`` (tile mm),
    going ``inward``: grey levels at 0.5, 1.5, ... photo px (``px_per_mm`` there), over
    ``reach_mm`` (and at least the search width).  NaN rows where the picture is plain there (a
    step of less than ``min_std`` grey levels): the edge is then found as a step in the photo."""
    J = int(np.clip(np.ceil(max(reach_mm * np.median(px_per_mm), search_px + 2)), 6, 40))
    out = np.full((len(local_mm), J), np.nan)
    steps = (np.arange(J) + 0.5)[None, :, None] + np.array([-0.25, 0.25])[None, None, :]  # 2 samples / px
    for t in np.unique(tile_of):
        rows = np.flatnonzero(tile_of == t)
        tile = lay.profile.tile(lay.placements[t].tile)
        if lay.profile.tile_image_path(tile) is None:
            continue
        pic, ppm = _grey_picture(lay.profile, tile, 2.0 * float(np.median(px_per_mm[rows])))
        d_mm = steps / px_per_mm[rows, None, None]                               # (r, J, 2)
        pts = local_mm[rows, None, None, :] + d_mm[..., None] * inward[rows, None, None, :]
        mx = (pts[..., 0] * ppm - 0.5).reshape(len(rows), -1).astype(np.float32)
        my = (pts[..., 1] * ppm - 0.5).reshape(len(rows), -1).astype(np.float32)
        g = cv2.remap(pic, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        prof = g.reshape(len(rows), J, 2).mean(axis=2)
        # as the photo shows it: blurred (the photo's edge search blurs by 1 px, the lens by about as
        # much; sigma 1.2 px)
        prof = cv2.GaussianBlur(prof.astype(np.float32), (9, 1), 1.2,
                                borderType=cv2.BORDER_REPLICATE).astype(np.float64)
        textured = (prof.max(axis=1) - prof.min(axis=1)) >= min_std
        out[rows[textured]] = prof[textured]
    return out


def edge_check_mm(gray: np.ndarray, cam: CameraModel, lay: Layout, search_px: float = 6.0,
                  edges: EdgeImage | None = None) -> float | None:
    """RMS distance (mm) between the boards' outer edges as the model places them and the edges
    found across them on the photo (independent of the picture patches the fit used: the same
    search as the fit's edge observations, from the final model).  ``edges``: the photo's
    gradients if already computed."""
    edges = edges or EdgeImage(gray)
    obs = edge_observations(edges, cam, lay, search_px, nearest=True)
    if len(obs.edge_px) < 8:
        return None
    want = CameraSolver._table_points(obs.edge_tile_of, obs.edge_local_mm, lay.placements)
    err = np.linalg.norm(cam.backproject(obs.edge_px) - want, axis=1)
    # the board edge is a step of ~1 px blur: the residual is its median-centred spread
    return float(np.sqrt(np.median(err ** 2)))


def _pt(p):
    from shapely.geometry import Point

    return Point(float(p[0]), float(p[1]))


def _overlay_matches(image: np.ndarray, matches: list[TileMatch], scale: float) -> np.ndarray:
    out = image.copy()
    for m in matches:
        q = (_project_h(m.H, m.template.outline_mm) + 0.5) / scale - 0.5
        cv2.polylines(out, [np.round(q * 16).astype(np.int32)], True, (0, 255, 0), 3, cv2.LINE_AA, 4)
        c = q.mean(axis=0)
        cv2.putText(out, m.template.name, (int(c[0]), int(c[1])), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (0, 255, 0), 2, cv2.LINE_AA)
    return out


ZONE_COLORS = {"planet": (255, 200, 0), "satellite": (0, 220, 255), "charging_satellite": (0, 255, 120),
               "asteroid_belt": (80, 80, 255)}


def draw_overlay(image: np.ndarray, cam: CameraModel, lay: Layout, calib: CalibrationFile | None = None) -> np.ndarray:
    """The photo with every tile outline, id, zone, pit, seat and grid space the calibration found."""
    out = image.copy()
    th = max(1, round(image.shape[1] / 900))

    def poly(pts_mm, color, thick=th, closed=True, height=0.0):
        pts = np.asarray(pts_mm, dtype=np.float64)
        if closed:
            pts = np.vstack([pts, pts[:1]])
        dense = np.concatenate([pts[i] + (pts[i + 1] - pts[i]) * np.linspace(0, 1, 8, endpoint=False)[:, None]
                                for i in range(len(pts) - 1)] + [pts[-1:]])
        px = cam.project_plane(dense, height)
        cv2.polylines(out, [np.round(px * 16).astype(np.int32)], False, color, thick, cv2.LINE_AA, 4)

    for pl in lay.placements:
        poly(lay.tile_corners(pl), (0, 255, 0), th + 1)
    for z in lay.zones():
        poly(z.polygon, ZONE_COLORS.get(z.kind, (255, 0, 255)))
        for hole in z.holes:
            poly(hole, ZONE_COLORS.get(z.kind, (255, 0, 255)))
    for p in lay.pits():
        a = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        poly(np.column_stack([p.center[0] + p.radius * np.cos(a), p.center[1] + p.radius * np.sin(a)]), (0, 200, 255))
    for s in lay.seats():
        poly(s.shooting_line, (255, 0, 255), th + 1, closed=False)
    for sp in lay.spaces():
        poly(sp.polygon, (200, 200, 200), 1)
    font = cv2.FONT_HERSHEY_SIMPLEX
    fs = image.shape[1] / 1600
    for pl in lay.placements:
        c = cam.project_plane(lay.tile_corners(pl).mean(axis=0, keepdims=True))[0]
        label = f"{pl.tile} {pl.rotation_deg:+.1f}deg"
        cv2.putText(out, label, (int(c[0]) - 60, int(c[1])), font, fs, (0, 0, 0), 4 * th, cv2.LINE_AA)
        cv2.putText(out, label, (int(c[0]) - 60, int(c[1])), font, fs, (0, 255, 0), th, cv2.LINE_AA)
    if calib is not None:
        q = calib.quality
        txt = (f"fit {q.reprojection_rms_px:.2f}px  edges {q.corner_rms_mm if q.corner_rms_mm is not None else float('nan'):.2f}mm"
               f"  {q.mm_per_px:.2f}mm/px")
        cv2.putText(out, txt, (20, int(40 * fs)), font, fs, (0, 0, 0), 4 * th, cv2.LINE_AA)
        cv2.putText(out, txt, (20, int(40 * fs)), font, fs, (255, 255, 255), th, cv2.LINE_AA)
    return out
