"""Fitting piece poses to what changed in the photo (image px in, table mm out).

The outline of a region of change is found with sub-pixel precision (where the change score crosses
the threshold); each piece model is posed — centre (mm), heading, underside height — so that its
projected silhouette (see :mod:`vision.silhouette`) matches that outline, robustly (soft-L1), with a
free inflation term that absorbs blur and the threshold's bias.  Several pieces in one region are
fitted jointly by assigning outline points to the nearest model.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
import shapely

from calibration.camera import CameraModel
from tableref.config import VisionConfig

from .kernels import centroid_pose, clip_height, fit_pose, kernel_camera
from .silhouette import PieceShape, footprint_mm, main_axis, signed_distance, silhouette_hulls


@dataclass
class Fit:
    shape: PieceShape
    x: float
    y: float
    heading: float
    base_mm: float
    inflation_px: float
    rms_px: float
    inlier_frac: float
    n_points: int
    clip_below: float | None = None
    points: np.ndarray | None = None  # the outline (image px) it was fitted to
    upright: bool = False             # a beam standing on its end
    refined: bool = True              # False: posed the quick way (fast_pose), not fitted

    def footprint(self) -> np.ndarray:
        return footprint_mm(self.shape, self.x, self.y, self.heading)

    def _kept(self, name: str, key: tuple, held: tuple, make):
        """``make()``, kept with this fit under ``name`` while ``key`` (the pose and, by identity,
        the objects ``held``, which the entry holds so that their ids are not reused) stays the same."""
        got = self.__dict__.get(name)
        if got is None or got[0] != key:
            got = (key, held, make())
            self.__dict__[name] = got
        return got[2]

    def footprint_polygon(self) -> shapely.Polygon:
        """The footprint as a shapely polygon (table mm), kept with the pose it was made for, as
        :meth:`hulls` are (a frame's suppression and stacking ask for every piece's)."""
        return self._kept("_footprint_polygon", (id(self.shape), self.x, self.y, self.heading), (self.shape,),
                          lambda: shapely.Polygon(self.footprint()))

    def hulls(self, cam: CameraModel) -> list[np.ndarray]:
        """The pose's silhouette (see :func:`silhouette_hulls`; image px).  Kept with the pose it was
        projected for: a frame's pieces are asked for theirs many times over (suppression, stacking,
        colours, judgement), and a piece taken over from the frame before keeps its own.  (The
        arrays are shared: not to be written to.)"""
        key = (id(cam), id(self.shape), self.x, self.y, self.heading, self.base_mm, self.clip_below)
        return list(self._kept("_hulls", key, (cam, self.shape), lambda: silhouette_hulls(
            self.shape, cam, self.x, self.y, self.heading, self.base_mm, self.clip_below)))

    def off_edge_px(self, cam: CameraModel, pts_px: np.ndarray) -> np.ndarray:
        """How far (px) each outline point lies from the edge of this pose's silhouette, grown by its
        inflation."""
        return np.abs(signed_distance(pts_px, self.hulls(cam)) - self.inflation_px)

    def scored_on(self, cam: CameraModel, pts_px: np.ndarray) -> Fit:
        """This pose scored on an outline (image px) as posed: a copy whose fit measures (rms,
        inliers, see :func:`measures`) are taken over those points."""
        rms, inl = measures(self.off_edge_px(cam, pts_px))
        return replace(self, rms_px=rms, inlier_frac=inl)

    @property
    def cost(self) -> float:
        return self.cost_from(0.0)

    def cost_from(self, inflation_px: float) -> float:
        """The pose's fit cost, its inflation counted from ``inflation_px`` (0: :attr:`cost`; a
        photo's own, where its outlines are all grown or shrunk alike)."""
        return (self.rms_px + 0.5 * abs(self.inflation_px - inflation_px)) * (1.5 - self.inlier_frac)


MIN_OUTLINE_POINTS = 12  # an outline (or the part of one that is kept) with fewer says too little to pose on


def measures(r: np.ndarray, robust_px: float = 1.0) -> tuple[float, float]:
    """A pose's fit measures from its outline points' residuals (px): the rms (each residual
    counted up to 5 px) and the share of points within ``2 * robust_px`` of the model's edge."""
    return float(np.sqrt(np.mean(np.minimum(r ** 2, 25.0)))), float(np.mean(np.abs(r) < 2.0 * robust_px))


def ring_normals(ring: np.ndarray, k: int) -> np.ndarray:
    """Unit normals of a closed polyline (N, 2), each across the chord from the k-th point before it
    to the k-th after it: (t_y, -t_x), outward for a contour that runs as OpenCV's do."""
    t = np.roll(ring, -k, axis=0) - np.roll(ring, k, axis=0)
    n = np.column_stack([t[:, 1], -t[:, 0]])
    return n / (np.linalg.norm(n, axis=1, keepdims=True) + 1e-9)


def outline_points(score: np.ndarray, mask: np.ndarray, thr: float, offset: tuple[int, int]) -> list[np.ndarray]:
    """Sub-pixel outer outlines (image px) of the regions of ``mask``.

    Each outline pixel is moved along its normal to where the change score falls fastest (the
    edge of a blurred step, whatever its contrast; a threshold crossing would shift with contrast
    and swallow soft contact shadows), within 3 px of the threshold crossing.
    """
    cnts, _ = cv2.findContours(mask.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out = []
    offs = np.arange(-3.0, 3.01, 0.5)
    for c in cnts:
        c = c.reshape(-1, 2).astype(np.float64)
        if len(c) < MIN_OUTLINE_POINTS:
            continue
        n = ring_normals(c, 3)
        xs = (c[:, 0:1] + offs[None, :] * n[:, 0:1]).astype(np.float32)
        ys = (c[:, 1:2] + offs[None, :] * n[:, 1:2]).astype(np.float32)
        prof = cv2.remap(score, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        # orient outward: the score falls outward
        flip = prof[:, :4].mean(axis=1) < prof[:, -4:].mean(axis=1)
        prof[flip] = prof[flip, ::-1]
        n[flip] *= -1
        # must cross the threshold from inside to outside somewhere along the profile
        ok = (prof[:, 0] >= thr) & (prof[:, -1] < thr)
        slope = -(prof[:, 2:] - prof[:, :-2]) / (offs[2] - offs[0])  # falling outward = positive
        j = np.argmax(slope, axis=1) + 1
        rows = np.arange(len(c))
        a_, b_, c_ = slope[rows, j - 2].clip(min=0), slope[rows, j - 1], slope[rows, np.minimum(j, slope.shape[1] - 1)].clip(min=0)
        den = a_ - 2 * b_ + c_
        sub = np.where(np.abs(den) > 1e-9, 0.5 * (a_ - c_) / np.where(np.abs(den) > 1e-9, den, 1.0), 0.0).clip(-0.5, 0.5)
        pos = offs[j] + sub * (offs[1] - offs[0])
        ok &= b_ > 0
        pts = c + pos[:, None] * n
        pts = pts[ok] + np.asarray(offset, dtype=np.float64)
        if len(pts) >= MIN_OUTLINE_POINTS:
            out.append(pts)
    return out


def split_points(xy: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """k-means of points (k-means++ starts, best of 4): each point's part (N,) and the parts'
    centres (k, 2).  Seeded: OpenCV draws the starts from its global random state, and the same
    photo must give the same reading."""
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.1)
    cv2.setRNGSeed(k)
    _, labels, centres = cv2.kmeans(xy.astype(np.float32), k, None, crit, 4, cv2.KMEANS_PP_CENTERS)
    return labels.ravel(), centres


def split_lengthwise(xy: np.ndarray) -> np.ndarray:
    """Each point's side (0, 1) of a cloud's long axis through its centroid: the split of the
    outline of two long pieces lying side by side, which k-means cuts across instead where their
    union is about as long as wide (two beams side by side) — each part then holds both pieces'
    ends, and the two pieces fitted to them lie across the pair."""
    th, _ = main_axis(xy)
    t = np.radians(th)
    return (((xy - xy.mean(axis=0)) @ np.array([-np.sin(t), np.cos(t)])) > 0).astype(int)


def initial_pose(shape: PieceShape, cam: CameraModel, pts_px: np.ndarray, base_mm: float) -> tuple[float, float, list[float]]:
    """Centre and candidate headings from the outline back-projected at mid-height."""
    mid = base_mm + shape.height_mm / 2
    xy = cam.backproject(pts_px, mid)
    c = xy.mean(axis=0)
    if shape.round:
        return float(c[0]), float(c[1]), [0.0]
    th, _ = main_axis(xy)
    base = th - shape.axis_deg  # the outline's long axis against the model's own
    if shape.roundish:  # its outline hardly shows its heading: try more headings
        return float(c[0]), float(c[1]), [base + k for k in range(0, 360, 45)]
    return float(c[0]), float(c[1]), [base, base + 180.0]


JAC_STEP = 1e-3  # mm and degrees: the model points' image motion, by differences of their projections
_JAC_TURN = (float(np.cos(np.radians(JAC_STEP))), float(np.sin(np.radians(JAC_STEP))))


def fit_one(shape: PieceShape, cam: CameraModel, pts_px: np.ndarray, base_mm: float,
            clip_below: float | None = None, init: tuple[float, float, float] | None = None,
            robust_px: float = 1.0, blur_px: float = VisionConfig.fit_blur_px) -> Fit:
    """Pose one piece model to an outline (image px).

    Unknowns: centre (mm), heading (unless the footprint is round: then the heading only turns
    upper layers and is not fitted), and an inflation of the outline (px) with a prior of
    ``blur_px``: blur and the threshold shift an outline by about a pixel, no more, so a model of
    the wrong size cannot hide behind it.  Each start is solved by the compiled
    :func:`vision.kernels.fit_pose` (robust least squares on the points' signed distances to the
    projected silhouette, with their analytic Jacobian).
    """
    if len(pts_px) > 56:
        pts_px = pts_px[np.linspace(0, len(pts_px) - 1, 56).astype(int)]
    fixed_heading = shape.round
    if init is None:
        x0, y0, headings = initial_pose(shape, cam, pts_px, base_mm)
        if shape.round:
            # turning it changes nothing: one start is enough (two gave the same fit twice)
            headings = [0.0]
        elif shape.round_footprint:
            # a round base: only the upper layers turn; start from two headings within one period
            headings = [0.0, shape.period_deg / 2]
    else:
        x0, y0, h0 = init
        headings = [h0]
    n = len(pts_px)
    prior_w = np.sqrt(n) / 4.0
    if not fixed_heading and shape.period_deg < 360.0:
        # a shape that looks the same turned by its period (a card by 180 degrees): starts one
        # period apart are the same start
        per = shape.period_deg
        distinct = []
        for th in headings:
            if all(abs((th - o + per / 2) % per - per / 2) > 1.0 for o in distinct):
                distinct.append(th)
        headings = distinct
    if len(headings) > 2 and not fixed_heading:
        # many starting headings (a nearly isotropic outline): keep the two that already fit best
        def start_cost(th):
            sd = signed_distance(pts_px, silhouette_hulls(shape, cam, x0, y0, th, base_mm, clip_below))
            return float(np.mean(np.minimum(np.abs(sd - np.median(sd)), 5.0)))
        headings = sorted(headings, key=start_cost)[:2]
    best = None
    pts_c = np.ascontiguousarray(pts_px, dtype=np.float64)
    cam_p = kernel_camera(cam)
    clip = clip_height(clip_below)
    for th0 in headings:
        if fixed_heading:
            p0 = np.array([x0, y0, 0.0])
            scale = np.array([0.5, 0.5, 0.3])
        else:
            p0 = np.array([x0, y0, th0, 0.0])
            scale = np.array([0.5, 0.5, 2.0, 0.3])
        p, fun, nfev = fit_pose(pts_c, *shape.stacked, p0.astype(np.float64), float(th0), fixed_heading,
                                float(base_mm), clip, cam_p, float(prior_w / blur_px), scale,
                                float(robust_px), 20, 1e-4, 1e-4, JAC_STEP, *_JAC_TURN)
        if nfev < 0:
            raise ValueError("Residuals are not finite in the initial point.")
        rms, inl = measures(fun[:-1], robust_px)
        heading = th0 if fixed_heading else float(p[2])
        fit = Fit(shape, float(p[0]), float(p[1]), heading % 360.0, base_mm, float(p[-1]), rms, inl, len(pts_px),
                  clip_below, pts_px)
        if best is None or fit.cost < best.cost:
            best = fit
    return best


def fit_many(shapes: list[PieceShape], cam: CameraModel, pts_px: np.ndarray, bases: list[float],
             clips: list[float | None], inits: list[tuple[float, float, float]] | None = None,
             rounds: int = 3, refused=None, lengthwise: bool = False) -> list[Fit]:
    """Jointly pose several pieces to one outline: points go to the model they are nearest.
    ``inits``: starting poses (x mm, y mm, heading), else the outline is split by k-means, or,
    ``lengthwise`` (two pieces), along its long axis (see :func:`split_lengthwise`).
    ``refused``: a test of the poses (a list of fits -> bool) for a reading the caller will not
    take (pieces on one another where they stand one per place): poses it refuses from their
    first fits, or after two rounds in a row, are returned as they are, not fitted further
    (fitting again seldom parts them)."""
    k = len(shapes)
    if inits is None:
        # split the outline points around k centres (k-means on back-projected points)
        xy = cam.backproject(pts_px, bases[0] + shapes[0].height_mm / 2)
        labels = split_lengthwise(xy) if lengthwise and k == 2 else split_points(xy, k)[0]
        fits = []
        for i in range(k):
            sel = pts_px[labels == i]
            if len(sel) < 8:
                sel = pts_px
            fits.append(fit_one(shapes[i], cam, sel, bases[i], clips[i]))
        if refused is not None and refused(fits):
            return fits
    else:
        # posed where the caller says, not yet fitted: the first round gives each its own points
        fits = [Fit(s, float(ini[0]), float(ini[1]), float(ini[2]), b, 0.0, np.inf, 0.0, 0, c, pts_px)
                for s, b, c, ini in zip(shapes, bases, clips, inits)]
    owner_before = None
    was_refused = False
    for _ in range(rounds):
        d = np.stack([f.off_edge_px(cam, pts_px) for f in fits])
        owner = np.argmin(d, axis=0)
        if owner_before is not None and np.array_equal(owner, owner_before):
            break  # each piece has the points it was fitted to: fitting again gives the same
        owner_before = owner
        new = []
        for i, f in enumerate(fits):
            sel = pts_px[owner == i]
            if len(sel) < 8:
                new.append(f)
                continue
            new.append(fit_one(f.shape, cam, sel, f.base_mm, f.clip_below, init=(f.x, f.y, f.heading)))
        fits = new
        if refused is not None:
            now = refused(fits)
            if now and was_refused:
                break
            was_refused = now
    return fits


def explained(fits: list[Fit], cam: CameraModel, pts_px: np.ndarray) -> list[Fit]:
    """Posed pieces scored on a whole outline (image px), as posed: each outline point goes to the
    piece whose edge it lies nearest, and each piece's fit measures (rms, inliers) are taken over
    its points (copies; a piece no point goes to keeps its own).  Points no piece lies near count
    against the one they are nearest."""
    d = np.stack([signed_distance(pts_px, f.hulls(cam)) - f.inflation_px for f in fits])
    owner = np.argmin(np.abs(d), axis=0)
    out = []
    for i, f in enumerate(fits):
        r = d[i, owner == i]
        if not len(r):
            out.append(f)
            continue
        rms, inl = measures(r)
        out.append(replace(f, rms_px=rms, inlier_frac=inl))
    return out


def fit_layers(shapes: list[PieceShape], cam: CameraModel, pts_px: np.ndarray, bases: list[float],
               clips: list[float | None], blur_px: float = VisionConfig.fit_blur_px) -> list[Fit] | None:
    """Jointly pose several pieces lying on one another to one outline (image px), started one
    after another instead of by k-means: the first on the whole outline (the top piece's outline is
    most of it; the robust loss passes over the rest), each next one on the points the ones before
    do not explain (a lower piece shows in crescents around the top one, about the same centre —
    k-means would split the outline into halves, one piece on each).  None where too few points are
    left for the next piece."""
    fits: list[Fit] = []
    rest = pts_px
    for s, b, c in zip(shapes, bases, clips):
        if fits:
            f = fits[-1]
            rest = rest[f.off_edge_px(cam, rest) > 2.0 * blur_px]
            if len(rest) < 8:
                return None
        fits.append(fit_one(s, cam, rest, b, c))
    return fit_many(shapes, cam, pts_px, bases, clips, inits=[(f.x, f.y, f.heading) for f in fits])


def polygon_centroid(pts: np.ndarray) -> tuple[np.ndarray, float]:
    """Area centroid and area of a closed polygon (px)."""
    x, y = pts[:, 0], pts[:, 1]
    x1, y1 = np.roll(x, -1), np.roll(y, -1)
    cross = x * y1 - x1 * y
    a = cross.sum() / 2
    if abs(a) < 1e-9:
        return pts.mean(axis=0), 0.0
    cx = ((x + x1) * cross).sum() / (6 * a)
    cy = ((y + y1) * cross).sum() / (6 * a)
    return np.array([cx, cy]), abs(a)


def fast_pose(shape: PieceShape, cam: CameraModel, pts_px: np.ndarray, base_mm: float,
              clip_below: float | None = None, iters: int = 3) -> Fit:
    """A quick pose from the outline's centroid: the model is moved until the centroid of its
    silhouette falls on the outline's (parallax, side walls and layers included), the heading from
    the outline's main axis.  Good to a few tenths of a millimetre for a piece seen whole; the full
    fit (:func:`fit_one`) is kept for pieces near a decision boundary or seen in part."""
    oc, _ = polygon_centroid(pts_px)
    x, y, headings = initial_pose(shape, cam, pts_px, base_mm)
    if shape.round or shape.round_footprint:
        headings = [0.0]
    best = None
    h_mid = base_mm + shape.height_mm / 2
    cam_p = kernel_camera(cam)
    for th in headings[:2]:
        rad = np.radians(th)
        cx, cy = centroid_pose(float(oc[0]), float(oc[1]), *shape.stacked, float(x), float(y), float(np.cos(rad)),
                               float(np.sin(rad)), float(base_mm), clip_height(clip_below), cam_p, float(h_mid),
                               iters)
        hulls = silhouette_hulls(shape, cam, cx, cy, th, base_mm, clip_below)
        sd = signed_distance(pts_px, hulls)
        infl = float(np.median(sd))
        r = sd - infl
        rms, inl = measures(r)
        fit = Fit(shape, cx, cy, th % 360.0, base_mm, infl, rms, inl, len(pts_px),
                  clip_below, pts_px)
        if best is None or fit.cost < best.cost:
            best = fit
    return best
