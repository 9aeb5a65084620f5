"""Learning a new board: photos of single tiles -> a draft ``tableref-profile/1``.

``tableref profile learn --game G --size-mm WxH PHOTO... -o draft.json`` takes one photo per tile
(the tile lying on a table, photographed roughly from above) and drafts a profile a person then
confirms or edits:

1. **Find the tile** (:func:`find_tile`).  The tile is the large region in the middle of the photo
   that differs from the table around the photo's border: GrabCut on a reduced copy, seeded with
   the border as table, gives a mask; its convex hull is cut down to the corners of the game's board
   shape (4 for a square, a rectangle or Galaktico's rhombus, 6 for PitRush's hexagon) and
   straightened against the mask's contour.  Every side is then re-measured on the full-resolution
   photo: the straight line with the most edge support near the mask's side (an exhaustive search
   over lines in a band), moved out to a clear parallel line just outside it if there is one (a
   board's edge is the outermost of close parallel lines: a rim's crease or a printed border line
   runs just inside it), then sub-pixel edge points along 24-140 normals and a robust line fit; the
   corners are where neighbouring lines meet.  When the result does not fit the board's shape, is
   too skewed, has a weak or crooked side, or disagrees with the mask (table that looks like the
   tile pulled the mask off), each doubtful side is predicted from the others through the board's
   shape (a similarity from three sides, a homography from four or more) and measured again; the
   most consistent outline wins.
2. **Rectify** (:func:`rectify`): the homography from the photo's corners to the board shape (the
   game's outline scaled to ``--size-mm``) gives a top-down picture at ``px_per_mm`` (default 4) in
   the tile's own frame, pixel ``(u, v)`` covering tile mm ``((u + 0.5) / s, (v + 0.5) / s)`` like
   the simulator's art.  Of the turns that fit the shape the one closest to upright in the photo is
   taken (the tile's top is the side at the top of the photo).  Lens distortion is removed first
   only when a ``camera.json`` is given.  Features are measured on a second rectification at the
   photo's own resolution (4-6 px/mm).
3. **Features** in tile mm, from the rectified picture:

   * Pitch Fleet (:func:`find_dot_loops`, :func:`loops_to_regions`, :func:`guess_kinds`): small
     bright dots (maxima of a difference of Gaussians), linked to their neighbours at the dot pitch
     (the commonest neighbour distance) into chains, chains closed across missed dots into loops;
     loops nested in loops are holes (zones never overlap); the zone polygon is the loop of dot
     centres offset outward by the measured dot radius (the polygon is the outer edge of the line).
     Kinds are guessed from the inside, white-balanced on the dots: a zone with a hole or not round
     is an asteroid belt (more confident when full of grey rocky texture); the largest remaining
     round zone is the planet; smaller round zones are satellites (counting the alike yellow star
     icons) or charging satellites (one large yellow glyph).
   * PitRush (:func:`find_pits`, :func:`find_painted_lines`): pits are dark round holes (scale-space
     blob detection on a 1 px/mm copy), their centre from a circle fitted with RANSAC and
     ``skimage.measure.CircleModel`` to the hole's outer edge along rays, their radius where the
     climb out of the darkness starts; seats are long straight dark painted lines near the board's
     sides and parallel to them (black-hat, Hough, collinear pieces merged), each with the shooting
     area between it and the side.
   * Galaktico (:func:`find_grid`): the thin light grid lines (top-hat ridges); their two directions
     come from a Hough transform, refined by the sharpness of the projection profile; each family's
     spacing from the profile's autocorrelation and a least-squares comb through its peaks; lines
     hidden under the border band are added where the lattice meets the tile's edge.

4. The draft (:func:`learn_profile`) is a validated :class:`~calibration.profile.ProfileFile` with
   ``nominal: false``; every zone carries ``attributes: {"guessed": true, "confidence": ...}``; the
   pieces, thickness and arrangement are the game's nominal ones.  :func:`learn_files` writes the
   rectified pictures (``<tile id>.jpg``) beside the draft, then the draft, and nothing at all when
   any photo is refused.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from shapely.geometry import LineString, Point, Polygon

from tableref.errors import BoardNotFound, InputError

from .camera import Intrinsics
from .profile import Arrangement, Grid, NominalPlacement, Pit, ProfileFile, Seat, Tile, Zone

LEARN_GAMES = ("pitchfleet", "pitrush", "galaktico", "asfccg")
DEFAULT_PX_PER_MM = 4.0
NEUTRAL = (128, 128, 128)  # outside a non-rectangular outline, like the simulator's art
MAX_RECTIFIED_PX = 60_000_000
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


# ----------------------------------------------------------------------------------- arguments

def parse_size_mm(text: str) -> tuple[float, float]:
    """``"200x200"`` -> (200.0, 200.0); anything else is an InputError."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*[xX×]\s*([0-9]*\.?[0-9]+)\s*", str(text))
    if not m:
        raise InputError(f"--size-mm '{text}' is not WxH in millimetres", "e.g. --size-mm 200x200")
    w, h = float(m.group(1)), float(m.group(2))
    if not (10.0 <= w <= 3000.0 and 10.0 <= h <= 3000.0):
        raise InputError(f"--size-mm '{text}': each side must be between 10 and 3000 mm", "e.g. --size-mm 200x200")
    return w, h


def board_shape(game: str, size_mm: tuple[float, float]) -> np.ndarray:
    """Outline (K,2) in tile mm of a ``game`` board of bounding size ``size_mm``, clockwise on screen.

    The shape is the game's nominal one (square / rectangle, Galaktico's 60-degree rhombus, PitRush's
    hexagon) stretched to the given width and height.
    """
    from .nominal import BUILDERS

    W, H = size_mm
    outline = None
    if game in BUILDERS:
        t0 = BUILDERS[game]().tiles[0]
        if t0.outline is not None:
            o = np.asarray(t0.outline, dtype=np.float64)
            outline = o * np.array([W / t0.size_mm[0], H / t0.size_mm[1]])
    if outline is None:
        outline = np.array([[0.0, 0.0], [W, 0.0], [W, H], [0.0, H]])
    if _signed_area(outline) < 0:  # make it clockwise on screen (positive area with y down)
        outline = outline[::-1]
    return outline


def _signed_area(p: np.ndarray) -> float:
    x, y = p[:, 0], p[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


# ------------------------------------------------------------------------------- finding the tile

@dataclass
class FoundTile:
    """A tile found in a photo: its corners (photo px, after lens correction if any) and the homography."""

    corners_px: np.ndarray          # (K,2) in the (undistorted) photo, matching ``outline_mm`` vertex by vertex
    outline_mm: np.ndarray          # (K,2) the board shape in tile mm
    H_mm_from_px: np.ndarray        # 3x3 photo px -> tile mm
    edge_rms_px: float              # how straight the sides were (RMS of edge points about their lines)
    photo_px_per_mm: float          # the photo's resolution on the tile (geometric mean)
    mask_iou: float                 # agreement of the polygon with the tile/table segmentation
    notes: list[str] = field(default_factory=list)


def _segment(image: np.ndarray, work_max: int = 400) -> tuple[np.ndarray, float]:
    """Foreground mask (work resolution, uint8 0/255) of the tile against the table, and the scale."""
    h, w = image.shape[:2]
    s = min(1.0, work_max / max(h, w))
    sm = cv2.resize(image, None, fx=s, fy=s, interpolation=cv2.INTER_AREA) if s < 1 else image.copy()
    sm = cv2.GaussianBlur(sm, (3, 3), 0)
    hh, ww = sm.shape[:2]
    if float(sm.reshape(-1, 3).std(axis=0).max()) < 2.0:  # a blank picture: nothing stands out
        return np.zeros((hh, ww), np.uint8), s
    # a little fixed dither: GrabCut's colour models degenerate (and its k-means can stall) on flat colours
    dither = np.random.default_rng(0).integers(-1, 2, sm.shape, dtype=np.int16)
    sm = np.clip(sm.astype(np.int16) + dither, 0, 255).astype(np.uint8)
    mask = np.full((hh, ww), cv2.GC_PR_BGD, np.uint8)
    b = max(3, round(0.025 * max(hh, ww)))
    mask[b:-b, b:-b] = cv2.GC_PR_FGD
    mask[:b] = cv2.GC_BGD
    mask[-b:] = cv2.GC_BGD
    mask[:, :b] = cv2.GC_BGD
    mask[:, -b:] = cv2.GC_BGD
    bgd, fgd = np.zeros((1, 65)), np.zeros((1, 65))
    try:
        cv2.grabCut(sm, mask, None, bgd, fgd, 4, cv2.GC_INIT_WITH_MASK)
    except cv2.error:
        return np.zeros((hh, ww), np.uint8), s
    fg = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD)).astype(np.uint8) * 255
    k = max(3, round(0.006 * max(hh, ww)) | 1)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    if n <= 1:
        return np.zeros((hh, ww), np.uint8), s
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    fg = np.where(lab == big, 255, 0).astype(np.uint8)
    # fill holes (the tile's own bright or table-coloured print)
    cnts, _ = cv2.findContours(fg, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    filled = np.zeros_like(fg)
    cv2.drawContours(filled, cnts, -1, 255, thickness=cv2.FILLED)
    return filled, s


def _reduce_polygon(hull: np.ndarray, k: int) -> np.ndarray:
    """Cut a convex polygon down to ``k`` vertices, each time dropping the vertex whose triangle is
    smallest (Visvalingam); returns (k,2)."""
    pts = [np.asarray(p, dtype=np.float64) for p in hull]
    while len(pts) > k:
        n = len(pts)
        areas = []
        for i in range(n):
            a, b, c = pts[i - 1], pts[i], pts[(i + 1) % n]
            areas.append(abs((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])))
        del pts[int(np.argmin(areas))]
    return np.array(pts)


def _fit_polygon_to_contour(contour: np.ndarray, poly: np.ndarray, tol: float = 1.5) -> np.ndarray:
    """Straighten a rough polygon against the mask contour it came from: for each side the longest
    straight run of contour near it (RANSAC line), corners where neighbouring lines meet.  A notch
    bitten out of the mask (tile print that looks like the table) leaves the sides' straight runs
    elsewhere, so their intersections still find the corner."""
    k = len(poly)
    rng = np.random.default_rng(0)
    for _ in range(2):
        lines = []
        for i in range(k):
            a, b = poly[i], poly[(i + 1) % k]
            L = float(np.linalg.norm(b - a))
            e = (b - a) / max(L, 1e-9)
            nrm = np.array([-e[1], e[0]])
            rel = contour - a
            t = rel @ e
            dist = np.abs(rel @ nrm)
            sel = contour[(t > 0.05 * L) & (t < 0.95 * L) & (dist < tol + 0.12 * L)]
            if len(sel) < 5:
                return poly
            best = None
            for _trial in range(60):
                i1, i2 = rng.choice(len(sel), 2, replace=False)
                d = sel[i2] - sel[i1]
                nd = float(np.linalg.norm(d))
                if nd < 0.2 * L or abs(float(d @ e)) < 0.9 * nd:  # roughly along the side
                    continue
                n2 = np.array([-d[1], d[0]]) / nd
                inl = np.abs((sel - sel[i1]) @ n2) < tol
                if best is None or inl.sum() > best.sum():
                    best = inl
            use = sel[best] if best is not None and best.sum() >= 5 else sel
            vx, vy, x0, y0 = cv2.fitLine(use.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
            lines.append((np.array([x0, y0], float), np.array([vx, vy], float)))
        new = _corners_from_lines(lines)
        if new is None or not _is_convex(new) or _signed_area(new) * _signed_area(poly) <= 0:
            return poly
        poly = new
    return poly


def _line_intersection(l1, l2) -> np.ndarray | None:
    """Lines as (point, unit direction); their intersection or None when parallel."""
    (p, d), (q, e) = l1, l2
    den = d[0] * e[1] - d[1] * e[0]
    if abs(den) < 1e-9:
        return None
    t = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den
    return p + t * d


def _edge_profiles(gray3: np.ndarray, a: np.ndarray, b: np.ndarray, n: np.ndarray, band: int, m: int,
                   t0: float = 0.08, t1: float = 0.92) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Edge strength (m, 2*band+1) along ``m`` normals of side a->b, offsets -band..band px along ``n``."""
    t = np.linspace(t0, t1, m)
    base = a[None, :] + t[:, None] * (b - a)[None, :]
    off = np.arange(-band - 2, band + 3, dtype=np.float64)
    X = (base[:, 0, None] + off[None, :] * n[0]).astype(np.float32)
    Y = (base[:, 1, None] + off[None, :] * n[1]).astype(np.float32)
    prof = cv2.remap(gray3, X, Y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    if prof.ndim == 2:
        prof = prof[..., None]
    d = (prof[:, 4:] - prof[:, :-4]) / 4.0 + (prof[:, 3:-1] - prof[:, 1:-3]) / 2.0  # smoothed derivative
    g = np.sqrt((d ** 2).sum(axis=2))
    return g, base, off[2:-2]


def _refine_side(img: np.ndarray, a: np.ndarray, b: np.ndarray, outward: np.ndarray, band: int,
                 prior: tuple[float, float] | None = None, outermost: bool = False) -> tuple | None:
    """Re-measure one side of the tile near the segment a->b: the straight edge with the most support
    within ``band`` px, then sub-pixel edge points and a robust line.

    ``prior = (offset, sigma)`` (px along ``outward``) favours lines near where the segmentation put
    the side: the tile's own print often has stronger straight lines just inside its edge (a border
    band, a rim's crease) than the edge itself.  Returns (point, direction, rms px, median strength,
    fraction of edge points kept)."""
    L = float(np.linalg.norm(b - a))
    if L < 8:
        return None
    m = int(np.clip(L / 5, 24, 140))
    g, base, off = _edge_profiles(img, a, b, outward, band, m)
    nb = len(off)
    # every straight line across the band: offset ia at the first sample, ib at the last
    ia, ib = np.meshgrid(np.arange(nb), np.arange(nb), indexing="ij")
    frac = np.linspace(0, 1, m)
    idx = np.rint(ia[..., None] + (ib - ia)[..., None] * frac[None, None, :]).astype(np.int64)
    raw = g[np.arange(m)[None, None, :], idx].sum(axis=2)
    score = raw
    if prior is not None:
        mid = (off[ia] + off[ib]) / 2
        score = raw * np.exp(-0.5 * ((mid - prior[0]) / prior[1]) ** 2)
    ja, jb = np.unravel_index(int(np.argmax(score)), score.shape)
    if outermost:
        # a board's edge is the outermost of close parallel lines (a rim's crease, a printed border line
        # run just inside it): take a clear parallel line a little further out instead
        best = raw[ja, jb]
        shifts = [d for d in range(-nb, nb) if 0 <= ja + d < nb and 0 <= jb + d < nb]
        bg = float(np.median([raw[ja + d, jb + d] for d in shifts]))
        reach = max(4, round(0.02 * L))
        par = [(d, raw[ja + d, jb + d]) for d in range(1, reach + 1) if ja + d < nb and jb + d < nb]
        pick = 0
        for i, (d, v) in enumerate(par):
            left = par[i - 1][1] if i > 0 else best
            right = par[i + 1][1] if i + 1 < len(par) else -np.inf
            if d >= 3 and v - bg >= 0.3 * (best - bg) and v >= left and v >= right:
                pick = d
        ja, jb = ja + pick, jb + pick
    # sub-pixel edge points near that line
    pts = []
    for i in range(m):
        c = int(np.rint(ja + (jb - ja) * frac[i]))
        lo, hi = max(1, c - 2), min(nb - 2, c + 2)
        if hi < lo:
            continue
        j = lo + int(np.argmax(g[i, lo:hi + 1]))
        y0, y1, y2 = g[i, j - 1], g[i, j], g[i, j + 1]
        den = y0 - 2 * y1 + y2
        dj = 0.5 * (y0 - y2) / den if den < -1e-9 else 0.0
        o = off[0] + j + float(np.clip(dj, -0.5, 0.5))
        pts.append((base[i] + o * outward, y1))
    if len(pts) < 8:
        return None
    P = np.array([p for p, _ in pts], dtype=np.float32)
    strength = np.array([s for _, s in pts])
    vx, vy, x0, y0 = cv2.fitLine(P, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    d = np.array([vx, vy], dtype=np.float64)
    p = np.array([x0, y0], dtype=np.float64)
    res = (P - p) @ np.array([-d[1], d[0]])
    keep = np.abs(res) < max(1.5, 2.5 * np.median(np.abs(res)) * 1.4826)
    if keep.sum() >= 8:
        vx, vy, x0, y0 = cv2.fitLine(P[keep], cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        d = np.array([vx, vy], dtype=np.float64)
        p = np.array([x0, y0], dtype=np.float64)
        res = (P[keep] - p) @ np.array([-d[1], d[0]])
    if np.dot(d, b - a) < 0:
        d = -d
    rms = float(np.sqrt(np.mean(res ** 2)))
    return p, d, rms, float(np.median(strength)), float(keep.mean())


def _polygon_lines(img: np.ndarray, poly: np.ndarray, band: int,
                   prior: tuple[float, float] | None = None, outermost: bool = False) -> list[tuple | None]:
    c = poly.mean(axis=0)
    out = []
    k = len(poly)
    for i in range(k):
        a, b = poly[i], poly[(i + 1) % k]
        e = (b - a) / (np.linalg.norm(b - a) + 1e-12)
        n = np.array([e[1], -e[0]])
        if np.dot(n, (a + b) / 2 - c) < 0:
            n = -n
        out.append(_refine_side(img, a, b, n, band, prior, outermost))
    return out


def _corners_from_lines(lines: list[tuple]) -> np.ndarray | None:
    k = len(lines)
    out = []
    for i in range(k):
        q = _line_intersection(lines[i - 1][:2], lines[i][:2])
        if q is None:
            return None
        out.append(q)
    return np.array(out)  # corner i = intersection of side i-1 and side i (= vertex i of the polygon)


def _choose_turn(corners: np.ndarray, outline_mm: np.ndarray) -> tuple[np.ndarray, np.ndarray, float, float]:
    """Match photo corners to the board shape's vertices: of the cyclic shifts that fit the shape
    (homography residual, anisotropy near the tile centre) the one closest to upright.
    Returns (corners reordered to the outline's vertices, H photo px -> tile mm, residual mm, anisotropy)."""
    k = len(outline_mm)
    cands = []
    ctr = outline_mm.mean(axis=0)
    for sft in range(k):
        P = np.roll(corners, -sft, axis=0)
        if k == 4:
            H = cv2.getPerspectiveTransform(P.astype(np.float32), outline_mm.astype(np.float32))
        else:
            H, _ = cv2.findHomography(P, outline_mm, 0)
        if H is None:
            continue
        Hi = np.linalg.inv(H)
        fwd = cv2.perspectiveTransform(P[None].astype(np.float64), H)[0]
        resid = float(np.sqrt(np.mean(np.sum((fwd - outline_mm) ** 2, axis=1))))
        # local linear map tile mm -> px at the centre
        e = 1.0
        c0 = cv2.perspectiveTransform(np.array([[ctr, ctr + [e, 0], ctr + [0, e]]], np.float64), Hi)[0]
        J = np.column_stack([c0[1] - c0[0], c0[2] - c0[0]]) / e
        sv = np.linalg.svd(J, compute_uv=False)
        aniso = float(np.log(sv[0] / max(sv[1], 1e-12)))
        ang = math.degrees(math.atan2(J[1, 0], J[0, 0]))
        cands.append((sft, H, resid, aniso, ang))
    if not cands:
        raise BoardNotFound("the tile's corners do not form its shape")
    r0 = min(c[2] for c in cands)
    a0 = min(c[3] for c in cands)
    ok = [c for c in cands if c[2] <= 1.5 * r0 + 0.5 and c[3] <= a0 + 0.08]
    best = min(ok, key=lambda c: abs(c[4]))
    return np.roll(corners, -best[0], axis=0), best[1], best[2], best[3]


def _fit_from_lines(outline_mm: np.ndarray, lines: list[tuple], sides: Sequence[int], shift: int) -> np.ndarray | None:
    """Transform tile mm -> photo px that puts the outline's sides on measured lines.

    Side ``i`` of the photo polygon (``lines[i]``) is side ``(i + shift) % K`` of the outline.  With
    three lines a similarity (the tile seen nearly from above), with four or more a homography.
    """
    k = len(outline_mm)
    size = float(np.sqrt(abs(_signed_area(outline_mm))))
    c = outline_mm.mean(axis=0)
    rows = []
    img_c = np.mean([lines[i][0] for i in sides], axis=0)
    scale_img = max(1.0, float(np.mean([np.linalg.norm(lines[i][0] - img_c) for i in sides])))
    for i in sides:
        p, d = lines[i][0], lines[i][1]
        nrm = np.array([-d[1], d[0]])
        lvec = np.array([nrm[0], nrm[1], -float(nrm @ ((p - img_c) / scale_img))])  # normalised image frame
        j = (i + shift) % k
        a, b = (outline_mm[j] - c) / size, (outline_mm[(j + 1) % k] - c) / size
        for q in (a, (a + b) / 2, b):
            rows.append(np.outer(lvec, [q[0], q[1], 1.0]).ravel())
    A = np.array(rows)
    if len(sides) >= 4:
        vt = np.linalg.svd(A)[2]
        Hn = vt[-1].reshape(3, 3)
    elif len(sides) == 3:
        # a similarity (turn, scale, shift: the tile seen nearly from above), since three sides of a
        # rectangle leave an affine map's stretch along the parallel pair open.  H = [[a, -b, tx],
        # [b, a, ty], [0, 0, 1]] is linear in (a, b, tx, ty).
        M = np.column_stack([A[:, 0] + A[:, 4], -A[:, 1] + A[:, 3], A[:, 2], A[:, 5]])
        y = -A[:, 8]
        (sa, sb, tx, ty), *_ = np.linalg.lstsq(M, y, rcond=None)
        Hn = np.array([[sa, -sb, tx], [sb, sa, ty], [0.0, 0.0, 1.0]])
    else:
        return None
    if abs(np.linalg.det(Hn)) < 1e-12:
        return None
    Ti = np.array([[1 / size, 0, -c[0] / size], [0, 1 / size, -c[1] / size], [0, 0, 1.0]])
    Ui = np.array([[scale_img, 0, img_c[0]], [0, scale_img, img_c[1]], [0, 0, 1.0]])
    H = Ui @ Hn @ Ti
    return H / H[2, 2] if abs(H[2, 2]) > 1e-12 else None


def _predict_outline(outline_mm: np.ndarray, lines: list[tuple], keep: Sequence[int]) -> np.ndarray | None:
    """Where the outline lies in the photo according to the sides ``keep`` only (best turn)."""
    k = len(outline_mm)
    best = None
    for shift in range(k):
        H = _fit_from_lines(outline_mm, lines, keep, shift)
        if H is None:
            continue
        pred = _project(H, np.roll(outline_mm, -shift, axis=0))
        if not np.all(np.isfinite(pred)) or _signed_area(pred) <= 0 or not _is_convex(pred):
            continue
        # how far the kept sides' predicted corners lie from their measured lines (px)
        err = []
        for i in keep:
            p, d = lines[i][0], lines[i][1]
            nrm = np.array([-d[1], d[0]])
            err += [abs(float((pred[i] - p) @ nrm)), abs(float((pred[(i + 1) % k] - p) @ nrm))]
        ctr = outline_mm.mean(axis=0)
        c0 = _project(H, np.array([ctr, ctr + [1.0, 0], ctr + [0, 1.0]]))
        sv = np.linalg.svd(np.column_stack([c0[1] - c0[0], c0[2] - c0[0]]), compute_uv=False)
        score = float(np.sqrt(np.mean(np.square(err)))) + 20 * float(np.log(sv[0] / max(sv[1], 1e-12)))
        if best is None or score < best[0]:
            best = (score, pred)
    return None if best is None else best[1]


def _project(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return cv2.perspectiveTransform(np.asarray(pts, np.float64)[None], H)[0]


@dataclass
class _Outline:
    poly: np.ndarray
    lines: list
    corners: np.ndarray | None = None
    H: np.ndarray | None = None
    resid_mm: float = float("inf")
    aniso: float = float("inf")
    rms: float = float("inf")
    iou: float = 0.0
    weak: float = 0.0      # the weakest side's edge strength over the median side's

    def badness(self, size_mm: float) -> float:
        return (self.resid_mm / (0.002 * size_mm) + max(0.0, self.aniso - 0.1) * 5 + self.rms * 0.2
                + (1 - self.iou) * 5 + 2 * max(0.0, 0.3 - self.weak))


def _measure(img: np.ndarray, poly: np.ndarray, bands: Sequence[int],
             prior: tuple[float, float] | None = None, outermost: bool = True) -> tuple[np.ndarray, list] | None:
    """Sides measured around ``poly`` with each band in turn (the first with ``prior``), and their corners."""
    lines = None
    for it, band in enumerate(bands):
        lines = _polygon_lines(img, poly, band, prior if it == 0 else None, outermost=outermost and it == 0)
        if any(ln is None for ln in lines):
            return None
        new = _corners_from_lines(lines)
        if new is None or _signed_area(new) <= 0 or not _is_convex(new):
            return None
        poly = new
    return poly, lines


def _assess(o: _Outline, outline_mm: np.ndarray, mask: np.ndarray, s: float) -> _Outline:
    try:
        o.corners, o.H, o.resid_mm, o.aniso = _choose_turn(o.poly, outline_mm)
    except BoardNotFound:
        return o
    o.rms = float(np.sqrt(np.mean([ln[2] ** 2 for ln in o.lines])))
    strength = [ln[3] for ln in o.lines]
    o.weak = float(min(strength) / max(float(np.median(strength)), 1e-9))
    pm = np.zeros_like(mask)
    cv2.fillPoly(pm, [np.rint((o.poly + 0.5) * s - 0.5).astype(np.int32)], 255)
    o.iou = np.count_nonzero(pm & mask) / max(np.count_nonzero(pm | mask), 1)
    return o


def find_tile(image: np.ndarray, outline_mm: np.ndarray, what: str = "the photo") -> FoundTile:
    """Find the one tile lying on the table in ``image`` (BGR, lens already corrected if known)."""
    h, w = image.shape[:2]
    if min(h, w) < 64:
        raise InputError(f"{what} is too small ({w}x{h} px)", "use a photo of at least 640x480 px")
    mask, s = _segment(image)
    frac = float(np.count_nonzero(mask)) / mask.size
    if frac < 0.03:
        raise BoardNotFound(f"no tile in {what}: nothing on the table stands out from it",
                            "photograph one tile filling most of the picture, on a plain table")
    edge_px = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    if frac > 0.97 or np.count_nonzero(edge_px) > 0.08 * edge_px.size:
        raise BoardNotFound(f"no whole tile in {what}: it runs out of the picture (or the table is not seen "
                            "around it)", "step back so the table shows all around the tile")
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cnt = max(cnts, key=cv2.contourArea)
    hull = cv2.convexHull(cnt)[:, 0, :].astype(np.float64)
    k = len(outline_mm)
    if len(hull) < k:
        raise BoardNotFound(f"no tile in {what}: the region found has no {k} corners")
    poly = _reduce_polygon(hull, k)
    if _signed_area(poly) < 0:
        poly = poly[::-1]
    poly = _fit_polygon_to_contour(cnt[:, 0, :].astype(np.float64), poly)
    poly = (poly + 0.5) / s - 0.5
    img = image.astype(np.float32)
    side = float(np.mean(np.linalg.norm(poly - np.roll(poly, -1, axis=0), axis=1)))
    size_mm = float(np.sqrt(abs(_signed_area(outline_mm))))
    band0 = int(max(6, round(0.04 * side)))
    # the hull runs through the centres of the mask's outermost pixels: the edge is half a pixel out
    mask_prior = (0.5 / s, 1.5 / s)
    got = _measure(img, poly, (band0, 4), mask_prior)
    best = _assess(_Outline(*got), outline_mm, mask, s) if got else None

    def good(o: _Outline | None) -> bool:
        if o is None or o.H is None:
            return False
        rms = [ln[2] for ln in o.lines]
        return (o.resid_mm < max(0.3, 0.001 * size_mm) and o.aniso < 0.2 and o.iou > 0.9 and o.weak >= 0.45
                and max(rms) < max(1.2, 3 * float(np.median(rms))))

    if not good(best):
        # a side was pulled off by table that looks like the tile (or a shadow): predict the doubtful
        # sides from the others through the board's shape and measure them again
        base = best or _Outline(poly, _polygon_lines(img, poly, band0, mask_prior))
        if base.lines and all(ln is not None for ln in base.lines):
            # doubtful sides first: crooked (high RMS) or weak edges
            order = list(np.argsort([-(ln[2] + 1.0 / max(ln[3], 1e-6)) for ln in base.lines]))
            drops = [[i] for i in range(k)] + ([sorted(order[:2])] if k > 4 else [])
            if k > 5:
                drops += [[i, (i + 1) % k] for i in range(k)]
            for drop in drops:
                keep = [i for i in range(k) if i not in drop]
                if len(keep) < 3:
                    continue
                pred = _predict_outline(outline_mm, base.lines, keep)
                if pred is None:
                    continue
                got = _measure(img, pred, (int(max(6, round((0.03 if len(keep) == 3 else 0.015) * side))), 4),
                               outermost=True)
                if got is None:
                    continue
                cand = _assess(_Outline(*got), outline_mm, mask, s)
                if cand.H is not None and (best is None or best.H is None
                                           or cand.badness(size_mm) < best.badness(size_mm)):
                    best = cand
                    if good(best):
                        break
    if best is None or best.H is None:
        raise BoardNotFound(f"no tile in {what}: the edges found do not close into a tile outline",
                            "photograph the tile on a plain table that contrasts with it")
    poly = best.poly
    if not Polygon(poly).is_valid or not _is_convex(poly):
        raise BoardNotFound(f"no tile in {what}: the edges found do not form a convex outline")
    if poly[:, 0].min() < 1 or poly[:, 1].min() < 1 or poly[:, 0].max() > w - 2 or poly[:, 1].max() > h - 2:
        raise BoardNotFound(f"no whole tile in {what}: a corner lies outside the picture",
                            "step back so the table shows all around the tile")
    if best.iou < 0.8:
        raise BoardNotFound(f"no clear tile outline in {what} (the outline found covers {best.iou:.0%} of the "
                            "region that stands out)", "photograph the tile on a plain table that contrasts with it")
    if best.resid_mm > 0.02 * size_mm:
        raise BoardNotFound(f"the outline found in {what} is not the board's shape (off by {best.resid_mm:.0f} mm)",
                            "check --game and --size-mm, and photograph the tile from above")
    if best.aniso > 0.4:
        raise BoardNotFound(f"the outline found in {what} is too skewed for a {np.ptp(outline_mm[:, 0]):.0f}x"
                            f"{np.ptp(outline_mm[:, 1]):.0f} mm board seen from above",
                            "check --size-mm, and photograph the tile from above")
    notes: list[str] = []
    ppm = math.sqrt(abs(_signed_area(best.corners)) / abs(_signed_area(outline_mm)))
    if best.rms > 1.5:
        notes.append(f"the tile's sides are not straight in the photo (edge RMS {best.rms:.1f} px): lens distortion? "
                     "give --camera camera.json")
    if k >= 5 and best.resid_mm > max(0.5, 0.001 * size_mm):
        notes.append(f"the sides found disagree with the board's shape by {best.resid_mm:.1f} mm (a rim or border "
                     "taken for the edge? a table much like the board?): check the outline in the picture")
    return FoundTile(best.corners, outline_mm, best.H, best.rms, ppm, best.iou, notes)


def _is_rectangle(outline_mm: np.ndarray, size_mm: tuple[float, float]) -> bool:
    """True if the outline is the whole ``size_mm`` rectangle (then the profile needs no ``outline``)."""
    return len(outline_mm) == 4 and abs(abs(_signed_area(outline_mm)) - size_mm[0] * size_mm[1]) < 1e-6 * (
        size_mm[0] * size_mm[1])


def _is_convex(p: np.ndarray) -> bool:
    d = np.roll(p, -1, axis=0) - p
    cr = d[:, 0] * np.roll(d[:, 1], -1) - d[:, 1] * np.roll(d[:, 0], -1)
    return bool(np.all(cr > 0) or np.all(cr < 0))


def rectify(image: np.ndarray, found: FoundTile, size_mm: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The tile top-down at ``px_per_mm``: pixel (u, v) covers tile mm ((u + 0.5) / s, (v + 0.5) / s);
    outside a non-rectangular outline the picture is neutral grey."""
    s = float(px_per_mm)
    W, H = size_mm
    w, h = round(W * s), round(H * s)
    S = np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1.0]])
    M = S @ found.H_mm_from_px
    src = image
    ratio = found.photo_px_per_mm / s
    if ratio > 1.3:  # the photo is finer than the picture: low-pass before sampling
        sig = 0.45 * ratio
        src = cv2.GaussianBlur(image, (0, 0), sig)
    out = cv2.warpPerspective(src, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    outline_px = found.outline_mm * s - 0.5
    if not _is_rectangle(found.outline_mm, size_mm):
        inside = np.zeros((h, w), np.uint8)
        cv2.fillPoly(inside, [np.rint(outline_px * 16).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=4)
        a = (inside.astype(np.float32) / 255)[..., None]
        out = (out.astype(np.float32) * a + np.float32(NEUTRAL) * (1 - a)).round().astype(np.uint8)
    return out


# --------------------------------------------------------------------------- Pitch Fleet: dotted loops

@dataclass
class DotLoops:
    """Closed dotted lines found on a tile (tile mm)."""

    loops: list[np.ndarray]          # each (N,2): dot centres in order around the loop
    dot_radius_mm: float
    pitch_mm: float
    dots: int                        # dots found in total (on loops or not)
    open_chains: int                 # chains that could not be closed
    white_bgr: tuple[float, float, float] | None = None  # the dots' colour in the picture (printed white)


def detect_dots(gray: np.ndarray, ppm: float, dot_mm: float = 1.2) -> tuple[np.ndarray, np.ndarray]:
    """Small bright round dots: maxima of a difference of Gaussians tuned to ``dot_mm``.

    Returns centres (N,2) in picture px (sub-pixel) and their responses (N,)."""
    r = 0.5 * dot_mm * ppm
    s1 = max(0.8, r / math.sqrt(2))
    g = gray.astype(np.float32)
    dog = cv2.GaussianBlur(g, (0, 0), s1) - cv2.GaussianBlur(g, (0, 0), 1.6 * s1)
    k = max(3, round(2 * r) | 1)
    mx = cv2.dilate(dog, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    # a dot is brighter than its surroundings by a clear margin
    thr = max(6.0, 0.25 * float(np.percentile(dog[dog > 0], 99.7)) if np.any(dog > 0) else 6.0)
    ys, xs = np.nonzero((dog >= mx) & (dog > thr))
    keep = (xs > 1) & (ys > 1) & (xs < gray.shape[1] - 2) & (ys < gray.shape[0] - 2)
    xs, ys = xs[keep], ys[keep]
    if len(xs) == 0:
        return np.zeros((0, 2)), np.zeros(0)
    c = dog[ys, xs]
    l, rr = dog[ys, xs - 1], dog[ys, xs + 1]
    u, d = dog[ys - 1, xs], dog[ys + 1, xs]
    dx = np.where(l - 2 * c + rr < 0, 0.5 * (l - rr) / (l - 2 * c + rr - 1e-9), 0.0)
    dy = np.where(u - 2 * c + d < 0, 0.5 * (u - d) / (u - 2 * c + d - 1e-9), 0.0)
    pts = np.column_stack([xs + np.clip(dx, -0.5, 0.5), ys + np.clip(dy, -0.5, 0.5)])
    return pts, c


def _link_dots(pts: np.ndarray, pitch: float, max_turn_deg: float = 125.0) -> list[list[int]]:
    """Neighbour pairs at the dot pitch -> chains; each node keeps at most two links, on opposite-ish sides."""
    from scipy.spatial import cKDTree

    n = len(pts)
    tree = cKDTree(pts)
    cand: list[list[tuple[float, int]]] = [[] for _ in range(n)]
    for i, j in tree.query_pairs(1.45 * pitch):
        d = float(np.linalg.norm(pts[i] - pts[j]))
        if d >= 0.6 * pitch:
            cand[i].append((d, j))
            cand[j].append((d, i))
    min_angle = math.radians(180.0 - max_turn_deg)
    choice: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        c = sorted(cand[i])
        if not c:
            continue
        best, best_cost = [c[0][1]], abs(c[0][0] - pitch)
        for a in range(len(c)):
            for b in range(a + 1, len(c)):
                va, vb = pts[c[a][1]] - pts[i], pts[c[b][1]] - pts[i]
                cosang = float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb) + 1e-12))
                ang = math.acos(max(-1.0, min(1.0, cosang)))
                if ang < min_angle:
                    continue
                cost = abs(c[a][0] - pitch) + abs(c[b][0] - pitch) + 0.3 * pitch * (1 + cosang)
                if len(best) < 2 or cost < best_cost:
                    best, best_cost = [c[a][1], c[b][1]], cost
        choice[i] = set(best)
    adj: list[set[int]] = [set() for _ in range(n)]
    for i in range(n):
        for j in choice[i]:
            if i in choice[j]:
                adj[i].add(j)
                adj[j].add(i)
    return [sorted(a) for a in adj]


def _walk(adj: list[list[int]], start: int, seen: set[int]) -> tuple[list[int], bool]:
    """The chain through ``start`` in order, and whether it closes on itself."""
    seen.add(start)
    order = [start]
    closed = False
    for direction in range(2):
        prev, cur = None, start
        while True:
            nxt = [j for j in adj[cur] if j != prev]
            if direction == 1 and prev is None:
                nxt = nxt[1:] if len(nxt) > 1 else []
            elif prev is None:
                nxt = nxt[:1]
            if not nxt:
                break
            j = nxt[0]
            if j == start:
                closed = True
                break
            if j in seen:
                break
            seen.add(j)
            if direction == 0:
                order.append(j)
            else:
                order.insert(0, j)
            prev, cur = cur, j
        if closed:
            break
    return order, closed


def find_dot_loops(picture: np.ndarray, ppm: float, dot_mm: float = 1.2) -> DotLoops:
    """Closed dotted lines in a rectified tile picture (BGR, ``ppm`` px per mm) -> loops in tile mm."""
    gray = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    pts, _ = detect_dots(gray, ppm, dot_mm)
    if len(pts) < 8:
        return DotLoops([], dot_mm / 2, 0.0, len(pts), 0)
    from scipy.spatial import cKDTree

    tree = cKDTree(pts)
    d, _ = tree.query(pts, k=3)
    nn = d[:, 1]
    # the dot pitch: the commonest nearest-neighbour distance among dots with a second neighbour as near
    regular = nn[(d[:, 2] < 1.3 * d[:, 1]) & (nn > 1.5 * 0.5 * dot_mm * ppm)]
    if len(regular) < 8:
        return DotLoops([], dot_mm / 2, 0.0, len(pts), 0)
    hist, edges = np.histogram(regular, bins=np.arange(0, regular.max() + 1.0, 0.5))
    pk = int(np.argmax(np.convolve(hist, [1, 2, 1], mode="same")))
    near = regular[np.abs(regular - 0.5 * (edges[pk] + edges[pk + 1])) < 0.25 * edges[pk + 1] + 1]
    pitch = float(np.median(near)) if len(near) else float(np.median(regular))
    adj = _link_dots(pts, pitch)
    seen: set[int] = set()
    chains, loops = [], []
    for i in range(len(pts)):
        if i in seen or not adj[i]:
            continue
        order, closed = _walk(adj, i, seen)
        (loops if closed else chains).append(order)
    # close chains broken by a missed dot: join ends that face each other across a gap
    chains = [c for c in chains if len(c) >= 3]
    # (stars and rocks make short chance chains; a broken dotted line is long)
    changed = True
    while changed and chains:
        changed = False
        ends = []
        for ci, c in enumerate(chains):
            for end in (0, 1):
                a, b = (c[0], c[1]) if end == 0 else (c[-1], c[-2])
                v = pts[a] - pts[b]
                ends.append((ci, end, a, v / (np.linalg.norm(v) + 1e-12)))
        best = None
        for x in range(len(ends)):
            for y in range(x + 1, len(ends)):
                ci, ei, a, va = ends[x]
                cj, ej, b, vb = ends[y]
                gap = pts[b] - pts[a]
                dist = float(np.linalg.norm(gap))
                if not (0.6 * pitch < dist < 3.6 * pitch):
                    continue
                u = gap / dist
                if float(u @ va) < 0.6 or float(-u @ vb) < 0.6:
                    continue
                if ci == cj and len(chains[ci]) < 8:
                    continue
                cost = dist / pitch - float(u @ va) - float(-u @ vb)
                if best is None or cost < best[0]:
                    best = (cost, ci, ei, cj, ej)
        if best is not None:
            _, ci, ei, cj, ej = best
            if ci == cj:
                loops.append(chains[ci])
                del chains[ci]
            else:
                a = chains[ci] if ei == 1 else chains[ci][::-1]
                b = chains[cj] if ej == 0 else chains[cj][::-1]
                merged = a + b
                chains = [c for k2, c in enumerate(chains) if k2 not in (ci, cj)] + [merged]
            changed = True
    out, on_loops = [], []
    for lp in loops:
        if len(lp) < 8:
            continue
        poly = pts[lp]
        P = Polygon(poly)
        if not P.is_valid or P.area < (4 * pitch) ** 2:
            continue
        out.append((poly + 0.5) / ppm)
        on_loops += lp
    r_mm = _dot_radius(gray, pts[on_loops], ppm, dot_mm) if on_loops else dot_mm / 2
    white = None
    if on_loops:
        c = np.rint(pts[on_loops]).astype(int)
        white = tuple(float(v) for v in np.median(picture[c[:, 1], c[:, 0]].astype(np.float64), axis=0))
    return DotLoops(out, r_mm, pitch / ppm, len(pts), sum(1 for c in chains if len(c) >= 12), white)


def _dot_radius(gray: np.ndarray, centres: np.ndarray, ppm: float, dot_mm: float) -> float:
    """Radius (mm) of the dots: where the mean radial profile of many dots falls half way to the background."""
    r_px = 0.5 * dot_mm * ppm
    half = math.ceil(3 * r_px) + 2
    size = 2 * half + 1
    acc = np.zeros((size, size), np.float64)
    g = gray.astype(np.float32)
    n = 0
    for (x, y) in centres[:: max(1, len(centres) // 400)]:
        patch = cv2.getRectSubPix(g, (size, size), (float(x), float(y)))
        acc += patch
        n += 1
    if n == 0:
        return dot_mm / 2
    acc /= n
    yy, xx = np.mgrid[-half:half + 1, -half:half + 1]
    rr = np.hypot(xx, yy)
    edges = np.arange(0, half + 1, 0.5)
    prof = np.array([acc[(rr >= a) & (rr < a + 0.5)].mean() if np.any((rr >= a) & (rr < a + 0.5)) else np.nan
                     for a in edges])
    centre_v = float(acc[half, half])
    bg = float(np.nanmedian(prof[edges > 2.2 * r_px])) if np.any(edges > 2.2 * r_px) else float(prof[-1])
    mid = 0.5 * (centre_v + bg)
    for i in range(1, len(prof)):
        if prof[i] <= mid < prof[i - 1] or prof[i] >= mid > prof[i - 1]:
            t = (mid - prof[i - 1]) / (prof[i] - prof[i - 1])
            r = (edges[i - 1] + t * 0.5) + 0.25  # bin centres
            return float(np.clip(r / ppm, 0.25 * dot_mm, 1.0 * dot_mm))
    return dot_mm / 2


def loops_to_regions(loops: list[np.ndarray]) -> list[tuple[np.ndarray, list[np.ndarray]]]:
    """Nest loops: a loop directly inside a zone's loop is a hole of it (zones never overlap), a loop
    inside a hole is a zone again.  Returns (exterior loop, hole loops) per zone."""
    polys = [Polygon(lp) for lp in loops]
    order = sorted(range(len(loops)), key=lambda i: -polys[i].area)
    parent: dict[int, int | None] = {}
    depth: dict[int, int] = {}
    for idx, i in enumerate(order):
        par = None
        for j in reversed(order[:idx]):  # smallest containing loop first
            if (polys[j].contains(polys[i].representative_point()) and polys[j].area > polys[i].area
                    and polys[j].buffer(1e-6).contains(polys[i])):
                par = j
                break
        parent[i] = par
        depth[i] = 0 if par is None else depth[par] + 1
    out = []
    for i in order:
        if depth[i] % 2 == 0:
            holes = [loops[j] for j in order if parent.get(j) == i]
            out.append((loops[i], holes))
    return out


def _zone_polygon(ext: np.ndarray, holes: list[np.ndarray], r_mm: float) -> Polygon:
    """The loop of dot centres offset outward by half a dot (holes shrink by as much)."""
    g = Polygon(ext, holes).buffer(r_mm, quad_segs=8, join_style="round")
    if g.geom_type != "Polygon":
        g = max(getattr(g, "geoms", [g]), key=lambda q: q.area)
    return g.simplify(0.03, preserve_topology=True)


def _ring(coords) -> list[tuple[float, float]]:
    pts = [(round(float(x), 3), round(float(y), 3)) for x, y in list(coords)[:-1]]
    return pts


@dataclass
class ZoneLook:
    """What a dotted zone looks like inside (for guessing its kind)."""

    area_mm2: float
    roundness: float      # 4 pi A / P^2 of the outer loop: 1 for a circle
    has_hole: bool
    rock: float           # share of the inside covered by grey, rough texture
    stars: int            # star icons (small yellow blobs)
    glyph: bool           # one large yellow glyph (a lightning bolt)
    yellow_mm2: float


def white_balanced(picture: np.ndarray, white_bgr: Sequence[float] | None) -> np.ndarray:
    """The picture with ``white_bgr`` (the colour of something printed white) made neutral and bright."""
    if white_bgr is None:
        return picture
    wb = np.asarray(white_bgr, np.float32)
    if np.any(wb < 30):
        return picture
    gain = np.float32(235.0) / wb
    return np.clip(picture.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def look_inside(picture: np.ndarray, ppm: float, zone: Polygon, dot_r_mm: float) -> ZoneLook:
    """Measure a zone's inside in the rectified picture (best white-balanced on the dots)."""
    inner = zone.buffer(-(2 * dot_r_mm + 0.8))
    ext = Polygon(zone.exterior)
    roundness = 4 * math.pi * ext.area / max(ext.length ** 2, 1e-9)
    h, w = picture.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    if not inner.is_empty:
        geoms = getattr(inner, "geoms", [inner])
        for g in geoms:
            cv2.fillPoly(mask, [np.rint(np.asarray(g.exterior.coords) * ppm - 0.5).astype(np.int32)], 255)
            for hole in g.interiors:
                cv2.fillPoly(mask, [np.rint(np.asarray(hole.coords) * ppm - 0.5).astype(np.int32)], 0)
    n_in = int(np.count_nonzero(mask))
    if n_in < 20:
        return ZoneLook(zone.area, roundness, len(zone.interiors) > 0, 0.0, 0, False, 0.0)
    hsv = cv2.cvtColor(picture, cv2.COLOR_BGR2HSV)
    gray = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # rock: grey (unsaturated), mid-bright, with strong fine detail (rocks' lit and shadowed sides)
    fine = np.abs(gray - cv2.GaussianBlur(gray, (0, 0), 0.8 * ppm))
    detail = cv2.GaussianBlur(fine, (0, 0), 0.6 * ppm)
    sat, val = hsv[..., 1].astype(np.float32), hsv[..., 2].astype(np.float32)
    rocky = (detail > 9) & (sat < 90) & (val > 45)
    rock = float(np.count_nonzero(rocky & (mask > 0))) / n_in
    # yellow / orange print: star icons and lightning glyphs
    hue = hsv[..., 0]
    yellow = ((hue >= 8) & (hue <= 36) & (sat > 90) & (val > 120) & (mask > 0)).astype(np.uint8)
    yellow = cv2.morphologyEx(yellow, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
    # a glyph's pale core is not saturated: close small gaps (less than a gap between two stars)
    kc = max(3, round(0.4 * ppm) | 1)
    yellow = cv2.morphologyEx(yellow, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc)))
    st = cv2.connectedComponentsWithStats(yellow, connectivity=8)[2]
    areas = st[1:, cv2.CC_STAT_AREA] / ppm ** 2
    stars, glyph = 0, False
    icons = []
    for a, (x, y, bw, bh) in zip(areas, st[1:, :4]):
        ext_mm = max(bw, bh) / ppm
        if 2.0 <= a <= 45.0 and ext_mm <= 9.0:
            icons.append((float(a), bw / ppm, bh / ppm, (y + bh / 2) / ppm))
        elif a > 45.0 or ext_mm > 9.0:
            glyph = True
    # star icons are copies of one picture: count the largest group of alike blobs
    for a, bw, bh, cy in icons:
        alike = sum(1 for a2, bw2, bh2, cy2 in icons
                    if abs(a2 - a) <= 0.35 * a and abs(bw2 - bw) <= 0.3 * bw + 0.3 and abs(bh2 - bh) <= 0.3 * bh + 0.3
                    and abs(cy2 - cy) <= max(bh, 2.0))
        stars = max(stars, alike)
    return ZoneLook(float(zone.area), float(roundness), len(zone.interiors) > 0, rock, stars, glyph,
                    float(areas.sum()))


# ------------------------------------------------------------------------------------- PitRush: pits

@dataclass
class FoundPit:
    center_mm: tuple[float, float]
    radius_mm: float
    rms_mm: float           # circle fit residual
    coverage: float         # share of rays that found the rim
    contrast: float         # wood minus hole, grey levels


def _dark_blob_candidates(gray1: np.ndarray, r_min: float, r_max: float) -> list[tuple[float, float, float, float]]:
    """Dark round blobs in a 1 px/mm grey picture: scale-space maxima of the normalised Laplacian.
    Returns (x, y, r, response) in px of that picture."""
    g = gray1.astype(np.float32)
    radii = []
    r = r_min
    while r <= r_max:
        radii.append(r)
        r *= 1.2
    if not radii:
        return []
    stack = []
    for r in radii:
        sg = r / math.sqrt(2)
        lap = cv2.Laplacian(cv2.GaussianBlur(g, (0, 0), sg), cv2.CV_32F, ksize=3) * np.float32(sg * sg)
        stack.append(lap)  # dark blob -> positive
    S = np.stack(stack)
    out = []
    for i, r in enumerate(radii):
        lo, hi = max(0, i - 1), min(len(radii), i + 2)
        k = max(3, round(r) | 1)
        sp = cv2.dilate(S[i], cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        nb = S[lo:hi].max(axis=0)
        ys, xs = np.nonzero((S[i] >= sp) & (S[i] >= nb) & (S[i] > 12.0))
        for x, y in zip(xs, ys):
            out.append((float(x), float(y), float(r), float(S[i][y, x])))
    out.sort(key=lambda c: -c[3])
    kept: list[tuple[float, float, float, float]] = []
    for c in out[:3000]:
        if all(math.hypot(c[0] - q[0], c[1] - q[1]) > 0.8 * max(c[2], q[2]) for q in kept):
            kept.append(c)
    return kept


def _fit_pit(gray: np.ndarray, ppm: float, cx: float, cy: float, r0: float, n_rays: int = 96) -> FoundPit | None:
    """The rim of a dark hole near (cx, cy, r0) (picture px).

    Along rays from the centre: the *outer* edge (where the profile last climbs to the board's
    brightness) is found all round, so a circle fitted to it (RANSAC, ``skimage.measure.CircleModel``)
    gives the centre.  A chamfer round the hole (shaded differently on each side) makes that outer
    edge a few mm wider than the hole, so the radius is where the climb out of the darkness starts,
    the median over all rays."""
    from skimage.measure import CircleModel, ransac

    step = 0.25
    for _ in range(2):
        ang = np.linspace(0, 2 * np.pi, n_rays, endpoint=False)
        rr = np.arange(0.25 * r0, 1.9 * r0, step)
        ray_c = (cx, cy)
        X = (cx + np.cos(ang)[:, None] * rr[None, :]).astype(np.float32)
        Y = (cy + np.sin(ang)[:, None] * rr[None, :]).astype(np.float32)
        prof = cv2.remap(gray, X, Y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        i_in = float(np.median(prof[:, rr < 0.6 * r0]))
        i_out = np.percentile(prof[:, (rr > 1.35 * r0) & (rr < 1.85 * r0)], 70, axis=1)
        contrast = float(np.median(i_out) - i_in)
        if contrast < 12:
            return None
        d = np.zeros_like(prof)
        d[:, 1:-1] = (prof[:, 2:] - prof[:, :-2]) / 2
        start = int(np.searchsorted(rr, 0.55 * r0))
        stop = int(np.searchsorted(rr, 1.4 * r0))
        outer, inner = [], []
        for k in range(n_rays):
            if i_out[k] - i_in < 0.4 * contrast:
                continue
            row = prof[k]
            # outer edge: last crossing of 3/4 of the way up, coming in from the board
            lvl = i_in + 0.75 * (i_out[k] - i_in)
            below = np.nonzero(row[start:stop] < lvl)[0]
            if len(below) == 0:
                continue
            j = start + int(below[-1])
            if j + 1 >= len(row):
                continue
            t = (lvl - row[j]) / max(row[j + 1] - row[j], 1e-6)
            outer.append((k, rr[j] + float(np.clip(t, 0, 1)) * step))
            # inner edge: where the climb out of the hole starts (its slope first reaches 35 % of the
            # ray's steepest): the hole's rim, also when a chamfer's step follows close behind
            drow = d[k]
            dmax = float(drow[start:j + 2].max())
            if dmax <= 0:
                continue
            idx = np.nonzero(drow[start:j + 2] > 0.35 * dmax)[0]
            if len(idx) == 0:
                continue
            i = start + int(idx[0])
            t = (0.35 * dmax - drow[i - 1]) / max(float(drow[i] - drow[i - 1]), 1e-6)
            inner.append((k, rr[i - 1] + float(np.clip(t, 0, 1)) * step))
        if len(outer) < 0.5 * n_rays:
            return None
        ko = np.array([k for k, _ in outer])
        ro = np.array([r for _, r in outer])
        P = np.column_stack([cx + ro * np.cos(ang[ko]), cy + ro * np.sin(ang[ko])])
        model, inl = ransac(P, CircleModel, min_samples=3, residual_threshold=max(1.0, 0.4 * ppm),
                            max_trials=60, stop_probability=0.999, rng=0)
        if not model or inl is None or inl.sum() < 0.5 * n_rays:
            return None
        m2 = CircleModel.from_estimate(P[inl])
        if m2:
            model = m2
        res = np.abs(model.residuals(P[inl]))
        n_used = int(inl.sum())
        (cx, cy), r_out = (float(model.center[0]), float(model.center[1])), float(model.radius)
        if not (0.5 * r0 < r_out < 1.6 * r0):
            return None
        r0 = r_out
    # the rim: the median distance of the climbs' starts from the centre
    r_hole = r_out
    if len(inner) >= 0.5 * n_rays:
        ki = np.array([k for k, _ in inner])
        ri = np.array([r for _, r in inner])
        q = np.asarray(ray_c) + ri[:, None] * np.column_stack([np.cos(ang[ki]), np.sin(ang[ki])])
        r_hole = float(np.median(np.hypot(q[:, 0] - cx, q[:, 1] - cy)))
    rms = float(np.sqrt(np.mean(res ** 2)))
    return FoundPit(((cx + 0.5) / ppm, (cy + 0.5) / ppm), r_hole / ppm, rms / ppm, n_used / n_rays, contrast)


def find_pits(picture: np.ndarray, ppm: float, outline_mm: np.ndarray, r_range_mm=(4.0, 60.0)) -> list[FoundPit]:
    """Round holes in a rectified board picture, tile mm."""
    gray = cv2.GaussianBlur(cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 0.6)
    f = 1.0 / ppm
    small = cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    inside = Polygon(outline_mm)
    cands = _dark_blob_candidates(small, r_range_mm[0], min(r_range_mm[1], 0.25 * min(np.ptp(outline_mm, axis=0))))
    # quick darkness check on the reduced picture: a hole is much darker than the ring around it
    ang = np.linspace(0, 2 * np.pi, 16, endpoint=False)

    def darkness(x: float, y: float, r: float) -> float:
        ins = [(x + 0.5 * r * math.cos(a), y + 0.5 * r * math.sin(a)) for a in ang] + [(x, y)]
        out = [(x + 1.5 * r * math.cos(a), y + 1.5 * r * math.sin(a)) for a in ang]
        v = cv2.remap(small, np.float32([[q[0] for q in ins + out]]), np.float32([[q[1] for q in ins + out]]),
                      cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)[0]
        # dark all over inside, bright all round outside (not a painted line, not the edge of a bigger hole)
        return float(np.percentile(v[len(ins):], 20) - np.percentile(v[:len(ins)], 80))

    scored = [(darkness(x, y, r), x, y, r) for x, y, r, _ in cands[:600]]
    top = max((d for d, *_ in scored), default=0.0)
    pits: list[FoundPit] = []
    for dk, x, y, r in sorted(scored, key=lambda c: -c[0]):
        if dk < max(12.0, 0.35 * top):
            break
        if not inside.buffer(-r * 0.5).contains(Point((x + 0.5), (y + 0.5))):
            continue
        p = _fit_pit(gray, ppm, (x + 0.5) * ppm - 0.5, (y + 0.5) * ppm - 0.5, r * ppm)
        if p is None or p.rms_mm > 0.06 * p.radius_mm + 0.25 or p.coverage < 0.55:
            continue
        if not (max(r_range_mm[0], 0.6 * r) <= p.radius_mm <= 1.6 * r):
            continue
        if not inside.buffer(-0.5).contains(Point(p.center_mm).buffer(p.radius_mm)):
            continue
        if any(math.dist(p.center_mm, q.center_mm) < 0.8 * (p.radius_mm + q.radius_mm) for q in pits):
            continue
        pits.append(p)
    if pits:
        # real holes are much darker than the board's grain and knots
        top = max(p.contrast for p in pits)
        pits = [p for p in pits if p.contrast >= 0.4 * top]
    if len(pits) >= 3:
        # holes of one board share a size: drop blobs far from the common radius
        med = float(np.median([p.radius_mm for p in pits]))
        pits = [p for p in pits if 0.7 * med <= p.radius_mm <= 1.4 * med]
    return pits


# ------------------------------------------------------------------------------ PitRush: shooting lines

@dataclass
class FoundLine:
    a: tuple[float, float]     # ends, tile mm
    b: tuple[float, float]
    width_mm: float
    edge_distance_mm: float    # from the nearest side of the board, mm


def find_painted_lines(picture: np.ndarray, ppm: float, outline_mm: np.ndarray, min_len_frac: float = 0.12,
                       near_edge_frac: float = 0.22, exclude: Sequence[tuple[tuple[float, float], float]] = ()
                       ) -> list[FoundLine]:
    """Long straight dark painted lines near the board's sides and roughly parallel to them (tile mm)."""
    size = float(min(np.ptp(outline_mm, axis=0)))
    f = 1.0 / ppm * 2  # work at 2 px/mm
    gray = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA).astype(np.float32)
    s = 2.0
    k = round(8 * s) | 1
    bh = cv2.morphologyEx(small, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    inside = np.zeros(small.shape, np.uint8)
    # (not the board's rim: its crease and the edge itself run just inside the outline)
    cv2.fillPoly(inside, [np.rint(np.asarray(Polygon(outline_mm).buffer(-6.0, join_style="mitre").exterior.coords)
                                  * s).astype(np.int32)], 255)
    for (c, r) in exclude:  # pits: their rims are dark too
        cv2.circle(inside, (round(c[0] * s), round(c[1] * s)), round((r + 3.0) * s), 0, -1)
    vals = bh[inside > 0]
    if vals.size == 0:
        return []
    thr = max(20.0, float(np.percentile(vals, 99.0)) * 0.5)
    binary = ((bh > thr) & (inside > 0)).astype(np.uint8) * 255
    segs = cv2.HoughLinesP(binary, 1, math.pi / 360, threshold=int(0.05 * size * s),
                           minLineLength=int(min_len_frac * size * s * 0.5), maxLineGap=int(4 * s))
    if segs is None:
        return []
    segs = np.asarray(segs).reshape(-1, 4).astype(np.float64) / s
    # merge collinear pieces
    groups: list[list[np.ndarray]] = []
    for sg in sorted(segs, key=lambda q: -math.hypot(q[2] - q[0], q[3] - q[1])):
        p0, p1 = sg[:2], sg[2:]
        d = (p1 - p0) / (np.linalg.norm(p1 - p0) + 1e-12)
        placed = False
        for g in groups:
            q0, q1 = g[0][:2], g[0][2:]
            e = (q1 - q0) / (np.linalg.norm(q1 - q0) + 1e-12)
            if abs(float(d @ e)) < math.cos(math.radians(3)):
                continue
            nrm = np.array([-e[1], e[0]])
            if abs(float((p0 - q0) @ nrm)) > 3.0 or abs(float((p1 - q0) @ nrm)) > 3.0:
                continue
            g.append(sg)
            placed = True
            break
        if not placed:
            groups.append([sg])
    ring = LineString(np.vstack([outline_mm, outline_mm[:1]]))
    out = []
    ys, xs = np.nonzero(binary)
    pix = np.column_stack([xs, ys]).astype(np.float64) / s
    for g in groups:
        ends = np.vstack([np.array(q).reshape(2, 2) for q in g])
        c = ends.mean(axis=0)
        _, _, vt = np.linalg.svd(ends - c)
        e = vt[0]
        nrm = np.array([-e[1], e[0]])
        # the painted pixels along this line: centre line and extent
        rel = pix - c
        t, o = rel @ e, rel @ nrm
        proj = (ends - c) @ e
        tmin, tmax = float(proj.min()), float(proj.max())
        sel = (np.abs(o) < 4.0) & (t > tmin - 6) & (t < tmax + 6)
        if sel.sum() < 10:
            continue
        P = pix[sel]
        vx, vy, x0, y0 = cv2.fitLine(P.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        e = np.array([vx, vy], float)
        c = np.array([x0, y0], float)
        tt = (P - c) @ e
        oo = (P - c) @ np.array([-e[1], e[0]])
        t0, t1 = np.percentile(tt, 0.5), np.percentile(tt, 99.5)
        length = t1 - t0
        if length < min_len_frac * size:
            continue
        a, b = c + t0 * e, c + t1 * e
        mid = (a + b) / 2
        dist = float(ring.distance(Point(mid)))
        if dist > near_edge_frac * size:
            continue
        # parallel to the nearest side?
        near = ring.interpolate(ring.project(Point(mid)))
        side_dir = None
        for i in range(len(outline_mm)):
            p, q = outline_mm[i], outline_mm[(i + 1) % len(outline_mm)]
            if LineString([p, q]).distance(near) < 1e-6:
                side_dir = (q - p) / np.linalg.norm(q - p)
        if side_dir is not None and abs(float(side_dir @ e)) < math.cos(math.radians(12)):
            continue
        width = float(np.clip(2 * np.sqrt(3) * np.std(oo), 0.5, 10.0)) + 0.5 / s
        out.append(FoundLine((float(a[0]), float(a[1])), (float(b[0]), float(b[1])), width, dist))
    return _merge_collinear(out)


def _merge_collinear(lines: list[FoundLine], max_gap_mm: float = 15.0) -> list[FoundLine]:
    """Pieces of one painted line (split where the paint is worn or the Hough pieces disagree) -> one line."""
    lines = list(lines)
    merged = True
    while merged:
        merged = False
        for i in range(len(lines)):
            for j in range(i + 1, len(lines)):
                p, q = lines[i], lines[j]
                a, b = np.asarray(p.a), np.asarray(p.b)
                e = (b - a) / (np.linalg.norm(b - a) + 1e-12)
                nrm = np.array([-e[1], e[0]])
                c, d = np.asarray(q.a), np.asarray(q.b)
                f = (d - c) / (np.linalg.norm(d - c) + 1e-12)
                if abs(float(e @ f)) < math.cos(math.radians(3)):
                    continue
                if max(abs(float((c - a) @ nrm)), abs(float((d - a) @ nrm))) > max(2.0, p.width_mm):
                    continue
                t = sorted([0.0, float((b - a) @ e), float((c - a) @ e), float((d - a) @ e)])
                lp, lq = float(np.linalg.norm(b - a)), float(np.linalg.norm(d - c))
                if t[-1] - t[0] > lp + lq + max_gap_mm:
                    continue
                ends = [a + t[0] * e, a + t[-1] * e]
                w = (p.width_mm * lp + q.width_mm * lq) / (lp + lq)
                lines[i] = FoundLine(tuple(map(float, ends[0])), tuple(map(float, ends[1])), w,
                                     min(p.edge_distance_mm, q.edge_distance_mm))
                del lines[j]
                merged = True
                break
            if merged:
                break
    return lines


def seat_area(line: FoundLine, outline_mm: np.ndarray, flare_deg: float = 30.0) -> list[tuple[float, float]] | None:
    """The shooting area behind a line: from the line to the board's nearest side, widening by
    ``flare_deg`` on each end (PitRush's seats); ``None`` if it would not be a simple polygon."""
    a, b = np.asarray(line.a), np.asarray(line.b)
    ring = LineString(np.vstack([outline_mm, outline_mm[:1]]))
    mid = (a + b) / 2
    near = np.asarray(ring.interpolate(ring.project(Point(mid))).coords[0])
    n = near - mid
    d = float(np.linalg.norm(n))
    if d < 1.0:
        return None
    n /= d
    e = (b - a) / np.linalg.norm(b - a)
    fl = d * math.tan(math.radians(flare_deg))
    ea = a + n * float((near - a) @ n) - e * fl
    eb = b + n * float((near - b) @ n) + e * fl
    poly = Polygon([tuple(a), tuple(b), tuple(eb), tuple(ea)]).intersection(Polygon(outline_mm))
    if poly.is_empty or poly.geom_type != "Polygon" or poly.area < 1.0:
        return None
    return _ring(poly.exterior.coords)


# ---------------------------------------------------------------------------------- Galaktico: grid

@dataclass
class LineFamily:
    normal_deg: float          # direction of the lines' normal, degrees in [0, 180)
    positions_mm: list[float]  # signed distances of the lines along the normal (from the tile origin)
    spacing_mm: float
    strength: list[float]


def _ridge(gray: np.ndarray, ppm: float, width_mm: float = 0.8) -> np.ndarray:
    """Thin bright lines: white top-hat, kept where the structure is line-like (not a blob)."""
    k = max(3, round(3.0 * width_mm * ppm) | 1)
    th = cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return cv2.GaussianBlur(th.astype(np.float32), (0, 0), 0.5)


def _profile(pts: tuple[np.ndarray, np.ndarray, np.ndarray], theta: float, bin_mm: float = 0.25):
    """Ridge strength of the points ``(x mm, y mm, weight)`` summed along lines of normal angle
    ``theta`` (rad): (bin centres mm, profile)."""
    xm, ym, w = pts
    rho = xm * math.cos(theta) + ym * math.sin(theta)
    lo, hi = float(rho.min()), float(rho.max())
    nb = math.ceil((hi - lo) / bin_mm) + 1
    prof = np.bincount(((rho - lo) / bin_mm).astype(np.int64), weights=w, minlength=nb)
    return lo + (np.arange(nb) + 0.5) * bin_mm, prof


def _line_family(pts: tuple[np.ndarray, np.ndarray, np.ndarray], theta0: float) -> LineFamily | None:
    """Refine a family of parallel lines near normal angle ``theta0``: angle, spacing and positions."""
    best = None
    for dth in np.radians(np.arange(-1.5, 1.51, 0.1)):
        pos, prof = _profile(pts, theta0 + dth, 0.5)
        p = prof - np.median(prof)
        sharp = float(np.sum(np.clip(p, 0, None) ** 2))
        if best is None or sharp > best[0]:
            best = (sharp, theta0 + dth)
    theta = best[1]
    for dth in np.radians(np.arange(-0.1, 0.101, 0.02)):
        pos, prof = _profile(pts, theta + dth, 0.5)
        p = prof - np.median(prof)
        sharp = float(np.sum(np.clip(p, 0, None) ** 2))
        if sharp > best[0]:
            best = (sharp, theta + dth)
    theta = best[1]
    pos, prof = _profile(pts, theta, 0.25)
    p = prof - np.median(prof)
    p = np.clip(p, 0, None)
    # the period: autocorrelation peak
    n = len(p)
    ac = np.correlate(p, p, mode="full")[n - 1:]
    min_lag = round(4.0 / 0.25)
    if n <= min_lag + 3:
        return None
    lag = min_lag + int(np.argmax(ac[min_lag: n // 2 + 1])) if n // 2 + 1 > min_lag else None
    if lag is None:
        return None
    # refine the lag (parabola)
    if 0 < lag < len(ac) - 1:
        y0, y1, y2 = ac[lag - 1], ac[lag], ac[lag + 1]
        den = y0 - 2 * y1 + y2
        lag_f = lag + (0.5 * (y0 - y2) / den if den < 0 else 0.0)
    else:
        lag_f = float(lag)
    spacing = lag_f * 0.25
    # peaks: local maxima above a share of the strongest
    thr = 0.25 * float(p.max())
    pk = [i for i in range(1, n - 1) if p[i] >= p[i - 1] and p[i] > p[i + 1] and p[i] > thr]
    if len(pk) < 2:
        return None
    # the comb: phase from the strongest peaks, then every peak within 6% of the spacing of the comb
    strongest = max(pk, key=lambda i: p[i])
    phase = pos[strongest]
    found = {}
    for i in pk:
        y0, y1, y2 = p[i - 1], p[i], p[i + 1]
        den = y0 - 2 * y1 + y2
        x = pos[i] + (0.5 * (y0 - y2) / den * 0.25 if den < 0 else 0.0)
        k = round((x - phase) / spacing)
        if abs(x - (phase + k * spacing)) <= 0.06 * spacing and (k not in found or p[i] > found[k][1]):
            found[k] = (x, float(p[i]))
    if len(found) < 2:
        return None
    ks = np.array(sorted(found))
    xs = np.array([found[k][0] for k in ks])
    if len(ks) >= 2:
        A = np.column_stack([np.ones(len(ks)), ks])
        (x0, sp), *_ = np.linalg.lstsq(A, xs, rcond=None)
    else:
        x0, sp = xs[0], spacing
    positions = [float(x0 + k * sp) for k in range(int(ks.min()), int(ks.max()) + 1)]
    strength = [found.get(k, (0, 0.0))[1] for k in range(int(ks.min()), int(ks.max()) + 1)]
    return LineFamily(math.degrees(theta) % 180.0, positions, float(sp), strength)


def find_grid(picture: np.ndarray, ppm: float, outline_mm: np.ndarray, grid_id: str = "grid") -> tuple[Grid, dict] | None:
    """The lattice of thin light lines on a board: two families of parallel lines -> a :class:`Grid`."""
    gray = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    ridge = _ridge(gray, ppm)
    h, w = gray.shape
    mask = np.zeros((h, w), np.uint8)
    inner = Polygon(outline_mm).buffer(-4.0, join_style="mitre")
    if inner.is_empty:
        return None
    cv2.fillPoly(mask, [np.rint(np.asarray(inner.exterior.coords) * ppm - 0.5).astype(np.int32)], 255)
    vals = ridge[mask > 0]
    thr = float(np.percentile(vals, 90))
    binary = ((ridge > max(thr, 8.0)) & (mask > 0)).astype(np.uint8) * 255
    size = float(np.sqrt(Polygon(outline_mm).area))
    lines = cv2.HoughLines(binary, 1, math.pi / 360, threshold=int(0.25 * size * ppm))
    if lines is None:
        return None
    lines = np.asarray(lines).reshape(-1, lines.shape[-1])
    # dominant normal angles (votes, if given, else rank)
    angs = np.degrees(lines[:, 1]) % 180.0
    weights = lines[:, 2] if lines.shape[1] > 2 else np.linspace(1.0, 0.5, len(lines))
    hist = np.zeros(360)
    for a, wt in zip(angs, weights):
        hist[int(a * 2) % 360] += wt
    hist = np.convolve(np.concatenate([hist[-4:], hist, hist[:4]]), np.ones(5), mode="same")[4:-4]
    a1 = int(np.argmax(hist))
    h2 = hist.copy()
    for d in range(-30, 31):
        h2[(a1 + d) % 360] = 0
    a2 = int(np.argmax(h2))
    if h2[a2] < 0.2 * hist[a1]:
        return None
    ys, xs = np.nonzero(binary)
    pts = ((xs + 0.5) / ppm, (ys + 0.5) / ppm, ridge[ys, xs].astype(np.float64))
    fams = []
    for a in (a1, a2):
        fam = _line_family(pts, math.radians(a / 2.0))
        if fam is None or len(fam.positions_mm) < 2:
            return None
        fams.append(fam)
    # extend each family to lattice lines hidden under the board's border (within 15% of a side)
    for fam in fams:
        th = math.radians(fam.normal_deg)
        rho = outline_mm[:, 0] * math.cos(th) + outline_mm[:, 1] * math.sin(th)
        lo, hi = float(rho.min()), float(rho.max())
        while fam.positions_mm[0] - fam.spacing_mm >= lo - 0.15 * fam.spacing_mm:
            fam.positions_mm.insert(0, fam.positions_mm[0] - fam.spacing_mm)
            fam.strength.insert(0, 0.0)
        while fam.positions_mm[-1] + fam.spacing_mm <= hi + 0.15 * fam.spacing_mm:
            fam.positions_mm.append(fam.positions_mm[-1] + fam.spacing_mm)
            fam.strength.append(0.0)
    # u runs along the family of lines closest to horizontal (their normal is closest to vertical)
    def line_dir(f):
        th = math.radians(f.normal_deg)
        return np.array([-math.sin(th), math.cos(th)])
    fa, fb = sorted(fams, key=lambda f: abs(line_dir(f)[0]), reverse=True)  # fa: rows (along u), fb: columns
    du, dv = line_dir(fa), line_dir(fb)
    if du[0] < 0:
        du = -du
    if dv[1] < 0:
        dv = -dv
    na = np.array([math.cos(math.radians(fa.normal_deg)), math.sin(math.radians(fa.normal_deg))])
    nb = np.array([math.cos(math.radians(fb.normal_deg)), math.sin(math.radians(fb.normal_deg))])
    sa = 1.0 if na @ dv > 0 else -1.0   # row lines ordered along +v
    sb = 1.0 if nb @ du > 0 else -1.0   # column lines ordered along +u
    rows_rho = sorted(fa.positions_mm, key=lambda r: sa * r)
    cols_rho = sorted(fb.positions_mm, key=lambda r: sb * r)
    u = du * fb.spacing_mm / abs(float(du @ nb))
    v = dv * fa.spacing_mm / abs(float(dv @ na))
    # origin: where the first row line meets the first column line
    A = np.array([na, nb])
    origin = np.linalg.solve(A, np.array([rows_rho[0], cols_rho[0]]))
    def r(x: float, nd: int) -> float:
        return round(float(x), nd) + 0.0  # (no "-0.0" in the file)

    g = Grid(id=grid_id, origin=(r(origin[0], 3), r(origin[1], 3)), u=(r(u[0], 4), r(u[1], 4)),
             v=(r(v[0], 4), r(v[1], 4)), rows=len(rows_rho) - 1, cols=len(cols_rho) - 1)
    info = {"row_spacing_mm": fa.spacing_mm, "col_spacing_mm": fb.spacing_mm,
            "lines_seen": int(sum(1 for x in fa.strength + fb.strength if x > 0)),
            "lines": len(rows_rho) + len(cols_rho)}
    return g, info


# ------------------------------------------------------------------------------------- guessing kinds

@dataclass
class KindGuess:
    kind: str
    confidence: float
    why: str
    stars: int | None = None


def guess_kinds(looks: Sequence[ZoneLook]) -> list[KindGuess]:
    """Pitch Fleet kinds from what the zones look like (a person confirms them)."""
    out: list[KindGuess | None] = [None] * len(looks)
    rocks = [lk.rock for lk in looks]
    rock_ref = float(np.median(rocks)) if rocks else 0.0
    for i, lk in enumerate(looks):
        rocky = lk.rock > rock_ref * 1.3 and lk.rock > 0.15
        if lk.has_hole:
            out[i] = KindGuess("asteroid_belt", 0.9 if rocky else 0.75, "a ring (a zone with a hole)")
        elif lk.roundness < 0.9:
            out[i] = KindGuess("asteroid_belt", 0.85 if rocky else 0.6,
                               "not round" + (", rocky inside" if rocky else ""))
    round_ids = [i for i in range(len(looks)) if out[i] is None]
    if round_ids:
        by_area = sorted(round_ids, key=lambda i: -looks[i].area_mm2)
        big = by_area[0]
        second = looks[by_area[1]].area_mm2 if len(by_area) > 1 else 0.0
        ratio = looks[big].area_mm2 / max(second, 1e-9)
        if len(by_area) == 1 or ratio >= 1.8:
            out[big] = KindGuess("planet", float(min(0.95, 0.55 + 0.1 * ratio)), "the largest round zone")
        else:
            out[big] = KindGuess("planet", 0.45, "the largest round zone, but not by much")
        for i in by_area[1:]:
            lk = looks[i]
            if lk.glyph:
                out[i] = KindGuess("charging_satellite", 0.85 if lk.stars == 0 else 0.6, "a lightning glyph inside")
            elif lk.stars > 0:
                out[i] = KindGuess("satellite", 0.85, f"{lk.stars} star icon(s) inside", stars=lk.stars)
            else:
                out[i] = KindGuess("satellite", 0.4, "a small round zone; no star icons or glyph seen")
    return [g for g in out if g is not None]


# ------------------------------------------------------------------------------------- one tile

@dataclass
class LearnedTile:
    tile: Tile
    picture: np.ndarray        # top-down at the output scale
    found: FoundTile
    summary: list[str]         # what was found, one line each, for the person at the table
    photo: str = ""


def _nominal_tile(game: str) -> Tile | None:
    from .nominal import BUILDERS

    return BUILDERS[game]().tiles[0] if game in BUILDERS else None


def undistort(image: np.ndarray, intr: Intrinsics, what: str) -> np.ndarray:
    """The photo as a pinhole camera would have taken it (same camera matrix)."""
    h, w = image.shape[:2]
    iw, ih = intr.image_size
    if (iw, ih) != (w, h):
        if abs(iw / ih - w / h) > 0.01:
            raise InputError(f"{what} is {w}x{h} px but the camera was calibrated at {iw}x{ih}",
                             "use photos from the calibrated camera at its resolution")
        intr = intr.scaled(w / iw)
    m1, m2 = cv2.initUndistortRectifyMap(intr.K, intr.dist, None, intr.K, (w, h), cv2.CV_32FC1)
    return cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def learn_tile(image: np.ndarray, tile_id: str, game: str, size_mm: tuple[float, float], *,
               thickness_mm: float | None = None, px_per_mm: float = DEFAULT_PX_PER_MM,
               intrinsics: Intrinsics | None = None, what: str = "the photo") -> LearnedTile:
    """Find, rectify and read one tile from its photo."""
    if game not in LEARN_GAMES:
        raise InputError(f"cannot learn boards of game '{game}'", f"one of {', '.join(LEARN_GAMES)}")
    if intrinsics is not None:
        image = undistort(image, intrinsics, what)
    outline = board_shape(game, size_mm)
    found = find_tile(image, outline, what)
    nominal = _nominal_tile(game)
    thickness = float(thickness_mm if thickness_mm is not None else (nominal.thickness_mm if nominal else 2.0))
    picture = rectify(image, found, size_mm, px_per_mm)
    a_ppm = float(np.clip(found.photo_px_per_mm, 4.0, 6.0))
    analysis = picture if abs(a_ppm - px_per_mm) < 1e-6 else rectify(image, found, size_mm, a_ppm)
    summary = [(f"tile outline found (sides straight to {found.edge_rms_px:.2f} px RMS; the photo has "
                f"{found.photo_px_per_mm:.1f} px/mm on the tile)"), *found.notes]
    zones: list[Zone] = []
    pits: list[Pit] = []
    seats: list[Seat] = []
    grids: list[Grid] = []
    rect_outline = not _is_rectangle(outline, size_mm)
    if game == "pitchfleet":
        zones, lines = _learn_zones(analysis, a_ppm)
        summary += lines
    elif game == "pitrush":
        from .nominal import PR_PIT_DEPTH

        found_pits = find_pits(analysis, a_ppm, outline)
        depth = PR_PIT_DEPTH  # not seen from above: the nominal board's
        found_pits.sort(key=lambda p: (p.center_mm[1], p.center_mm[0]))
        pits = _pits_in_rows(found_pits, depth)
        if pits:
            radii = [p.radius for p in pits]
            summary.append(f"{len(pits)} pit(s), radius {min(radii):.1f}-{max(radii):.1f} mm (depth not seen from "
                           f"above: {depth:g} mm assumed)")
        else:
            summary.append("no pits found")
        lines = find_painted_lines(analysis, a_ppm, outline,
                                   exclude=[(p.center, p.radius) for p in pits])
        ctr = Polygon(outline).centroid
        lines.sort(key=lambda ln: math.degrees(math.atan2((ln.a[1] + ln.b[1]) / 2 - ctr.y,
                                                          (ln.a[0] + ln.b[0]) / 2 - ctr.x)) % 360.0)
        for i, ln in enumerate(lines, 1):
            seats.append(Seat(id=f"seat{i}", shooting_line=((round(ln.a[0], 3), round(ln.a[1], 3)),
                                                             (round(ln.b[0], 3), round(ln.b[1], 3))),
                              shooting_area=seat_area(ln, outline)))
        summary.append(f"{len(seats)} seat(s) from straight painted lines near the edges" if seats
                       else "no shooting lines found")
    elif game == "galaktico":
        got = find_grid(analysis, a_ppm, outline, grid_id=tile_id)
        if got is None:
            summary.append("no grid found")
        else:
            g, info = got
            grids.append(g)
            summary.append(f"grid {g.rows}x{g.cols} spaces, u=({g.u[0]:.2f}, {g.u[1]:.2f}) mm, "
                           f"v=({g.v[0]:.2f}, {g.v[1]:.2f}) mm ({info['lines_seen']} of {info['lines']} lines seen)")
    else:
        summary.append(f"only the picture: features of {game} boards are not learned")
    tile = Tile(id=tile_id, name=tile_id, size_mm=(float(size_mm[0]), float(size_mm[1])), thickness_mm=thickness,
                outline=[(round(float(x), 3), round(float(y), 3)) for x, y in outline] if rect_outline else None,
                image=f"{tile_id}.jpg", symmetric=bool(nominal.symmetric) if nominal else False,
                zones=zones, pits=pits, seats=seats, grids=grids)
    return LearnedTile(tile, picture, found, summary)


def _pits_in_rows(found: list[FoundPit], depth: float) -> list[Pit]:
    """Pits numbered row by row (top to bottom, left to right), like the nominal board."""
    if not found:
        return []
    r = float(np.median([p.radius_mm for p in found]))
    rows: list[list[FoundPit]] = []
    for p in sorted(found, key=lambda q: q.center_mm[1]):
        if rows and abs(p.center_mm[1] - np.mean([q.center_mm[1] for q in rows[-1]])) < 0.6 * r:
            rows[-1].append(p)
        else:
            rows.append([p])
    ordered = [p for row in rows for p in sorted(row, key=lambda q: q.center_mm[0])]
    return [Pit(id=f"p{i}", center=(round(p.center_mm[0], 3), round(p.center_mm[1], 3)), radius=round(p.radius_mm, 3),
                depth_mm=depth) for i, p in enumerate(ordered, 1)]


def _learn_zones(picture: np.ndarray, ppm: float) -> tuple[list[Zone], list[str]]:
    dl = find_dot_loops(picture, ppm)
    if not dl.loops:
        return [], ["no closed dotted lines found"]
    wb = white_balanced(picture, dl.white_bgr)
    regions = loops_to_regions(dl.loops)
    polys = [_zone_polygon(ext, holes, dl.dot_radius_mm) for ext, holes in regions]
    looks = [look_inside(wb, ppm, g, dl.dot_radius_mm) for g in polys]
    guesses = guess_kinds(looks)
    prefix = {"planet": "planet", "satellite": "satellite", "charging_satellite": "charging",
              "asteroid_belt": "belt"}
    order = {"planet": 0, "satellite": 1, "charging_satellite": 2, "asteroid_belt": 3}
    items = sorted(zip(polys, guesses, regions, looks),
                   key=lambda t: (order[t[1].kind], round(t[0].centroid.y / 20.0), t[0].centroid.x))
    counts: dict[str, int] = {}
    zones = []
    lines = [f"{len(polys)} dotted zone(s) (dots {2 * dl.dot_radius_mm:.2f} mm at {dl.pitch_mm:.2f} mm pitch)"]
    for g, guess, (ext, holes), lk in items:
        counts[guess.kind] = counts.get(guess.kind, 0) + 1
        zid = prefix[guess.kind] if guess.kind == "planet" and counts["planet"] == 1 else \
            f"{prefix[guess.kind]}{counts[guess.kind]}"
        attrs = {"guessed": True, "confidence": round(guess.confidence, 2), "why": guess.why,
                 "dots": int(len(ext) + sum(len(h) for h in holes))}
        zones.append(Zone(id=zid, kind=guess.kind, polygon=_ring(g.exterior.coords),
                          holes=[_ring(r.coords) for r in g.interiors], stars=guess.stars, attributes=attrs))
        c = g.centroid
        stars = "" if not guess.stars else f" ({guess.stars} star{'s' if guess.stars > 1 else ''})"
        lines.append(f"  {zid}: {guess.kind}{stars} at "
                     f"({c.x:.0f}, {c.y:.0f}) mm, {g.area:.0f} mm2 - {guess.why} (confidence {guess.confidence:.2f})")
    if dl.open_chains:
        lines.append(f"  ({dl.open_chains} dotted line(s) did not close into a zone: check the picture)")
    return zones, lines


# ------------------------------------------------------------------------------------ the profile

def _tile_ids(photos: Sequence[Path], ids: Sequence[str] | None) -> list[str]:
    if ids is not None:
        if len(ids) != len(photos):
            raise InputError(f"--ids names {len(ids)} tile(s) but {len(photos)} photo(s) were given",
                             "give one id per photo, in the same order")
        out = [str(i).strip() for i in ids]
    else:
        out = [Path(p).stem for p in photos]
    for i in out:
        if not _ID_RE.match(i):
            raise InputError(f"tile id '{i}' is not usable (letters, digits, '.', '_' and '-' only)",
                             "rename the photo or give --ids")
    dup = sorted({i for i in out if out.count(i) > 1})
    if dup:
        raise InputError(f"two photos give the same tile id {dup}", "one photo per tile; give --ids to name them")
    return out


def learn_profile(photos: Sequence[str | Path], game: str, size_mm: tuple[float, float], *,
                  ids: Sequence[str] | None = None, thickness_mm: float | None = None,
                  px_per_mm: float = DEFAULT_PX_PER_MM, camera: str | Path | None = None
                  ) -> tuple[ProfileFile, list[LearnedTile]]:
    """A draft profile from one photo per tile (nothing is written)."""
    from tableref.files import load_model, read_image

    from .camera import CameraFile
    from .nominal import BUILDERS

    if game not in LEARN_GAMES:
        raise InputError(f"cannot learn boards of game '{game}'", f"one of {', '.join(LEARN_GAMES)}")
    if not photos:
        raise InputError("no photos given", "give one photo per tile")
    if not (0.5 <= float(px_per_mm) <= 20.0):
        raise InputError(f"--px-per-mm {px_per_mm:g} is out of range", "between 0.5 and 20 (default 4)")
    if thickness_mm is not None and not (0.1 <= float(thickness_mm) <= 100.0):
        raise InputError(f"--thickness-mm {thickness_mm:g} is out of range", "between 0.1 and 100 mm")
    if size_mm[0] * size_mm[1] * px_per_mm ** 2 > MAX_RECTIFIED_PX:
        raise InputError(f"a {size_mm[0]:g}x{size_mm[1]:g} mm picture at {px_per_mm:g} px/mm is too large",
                         "lower --px-per-mm")
    paths = [Path(p) for p in photos]
    tile_ids = _tile_ids(paths, ids)
    intr = None
    if camera is not None:
        intr = load_model(Path(camera), CameraFile, "camera file").intrinsics.to_intrinsics()
    images = [read_image(p) for p in paths]  # every photo is readable before any work starts
    learned = []
    for p, img, tid in zip(paths, images, tile_ids):
        lt = learn_tile(img, tid, game, size_mm, thickness_mm=thickness_mm, px_per_mm=px_per_mm,
                        intrinsics=intr, what=str(p))
        lt.photo = str(p)
        learned.append(lt)
    nominal = BUILDERS[game]()
    arr = nominal.arrangement
    known = {t.tile.id for t in learned}
    placements = [pl for pl in arr.nominal if pl.tile in known]
    if arr.kind == "fixed" and len(learned) == 1 and not placements:
        placements = [NominalPlacement(tile=learned[0].tile.id, x=0.0, y=0.0)]
    arrangement = Arrangement(kind=arr.kind, grid=arr.grid if arr.kind == "free" and len(learned) == len(nominal.tiles)
                              else None, gap_mm=arr.gap_mm, nominal=placements)
    findings = "; ".join(f"{lt.tile.id}: " + _short_summary(lt.tile) for lt in learned)
    notes = (f"DRAFT learned by 'tableref profile learn' from {len(learned)} photo(s) - confirm or edit before use. "
             "Every zone, pit, seat and grid is measured from the photos and its kind is a guess "
             "(zones carry attributes.guessed and .confidence). The pieces, tile thickness and arrangement are "
             f"the nominal {game} ones. Found: {findings}.")
    profile = ProfileFile(game=game, name=f"{nominal.name.split(' (')[0]} (learned draft)", nominal=False,
                          notes=notes, tiles=[lt.tile for lt in learned], pieces=nominal.pieces,
                          arrangement=arrangement)
    return profile, learned


def _short_summary(tile: Tile) -> str:
    parts = []
    if tile.zones:
        kinds: dict[str, int] = {}
        for z in tile.zones:
            kinds[z.kind] = kinds.get(z.kind, 0) + 1
        parts.append(", ".join(f"{n} {k}" for k, n in kinds.items()))
    if tile.pits:
        parts.append(f"{len(tile.pits)} pits")
    if tile.seats:
        parts.append(f"{len(tile.seats)} seats")
    for g in tile.grids:
        parts.append(f"grid {g.rows}x{g.cols}")
    return ", ".join(parts) or "picture only"


def learn_files(photos: Sequence[str | Path], out: str | Path, game: str, size_mm: tuple[float, float], *,
                ids: Sequence[str] | None = None, thickness_mm: float | None = None,
                px_per_mm: float = DEFAULT_PX_PER_MM, camera: str | Path | None = None) -> list[LearnedTile]:
    """Learn a draft profile and write it with its tile pictures (``<id>.jpg`` beside it).

    Everything is measured first; nothing is written when any photo is refused."""
    from tableref.files import write_image, write_json

    out = Path(out)
    if out.exists() and out.is_dir():
        raise InputError(f"{out} is a folder", "give the draft's file name, e.g. -o draft.json")
    if out.suffix.lower() != ".json":
        raise InputError(f"{out}: the draft profile must be a .json file", "e.g. -o draft.json")
    profile, learned = learn_profile(photos, game, size_mm, ids=ids, thickness_mm=thickness_mm,
                                     px_per_mm=px_per_mm, camera=camera)
    inputs = {Path(p).resolve() for p in photos}
    for lt in learned:
        target = (out.parent / lt.tile.image).resolve()
        if target in inputs:
            raise InputError(f"writing the picture {target.name} beside {out.name} would overwrite the photo "
                             f"{target}", "write the draft to another folder (e.g. -o draft/profile.json)")
    for lt in learned:
        write_image(out.parent / lt.tile.image, lt.picture, jpeg_quality=92)
    write_json(out, profile)
    return learned
