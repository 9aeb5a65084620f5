"""What changed on the table: the current frame against the photo of the empty table (image px).

The calibration keeps the photo of the empty table it was made from.  A piece changes the
picture where it lies; a shadow darkens the board but keeps its colour balance (every channel falls
by a similar ratio) and is not counted.  The frame is first matched to the reference photometrically
(per-channel gain, fitted robustly), so a change of exposure or lamp brightness does not light up
the whole board.  The noise level is measured on each frame (median absolute deviation of the
difference), so the threshold follows the camera, not a constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np


@dataclass
class Blob:
    """A connected region of change, in full-resolution image px."""

    bbox: tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)
    area_px: float
    touches_border: bool
    shadow_like: bool = False        # a neutral darkening, but textured unlike the board: a piece the
                                     # colour of a shadow (see Background.changes)
    plain: bool = False              # shadow-like where no piece's shadow can be, piece-sized, but with
                                     # no texture of its own: a piece as plain and dark as a shadow (a
                                     # black disc), or the shadow of a piece that did not show
    by_piece: bool = False           # shadow-like, textured, next to a clear change and no wider than a
                                     # shadow: a piece the colour of a shadow beside another piece, in
                                     # one region with that piece's shadow


@dataclass
class ChangeMap:
    score: np.ndarray        # (h, w) float32 change score at working scale, computed only around candidate
                             # changes (0 elsewhere and where like the reference)
    mask: np.ndarray         # (h, w) uint8 foreground at working scale
    gains: np.ndarray        # (3,) per-channel gain frame ~ gains * reference
    threshold: float
    scale: float             # working scale / full resolution
    blobs: list[Blob]
    small: np.ndarray | None = None  # the frame at working scale, blurred a little (float32)
    raw: np.ndarray | None = None    # the frame at working scale, not blurred (uint8; None for another type)
    changed: np.ndarray | None = None  # (h, w) bool: the largest channel difference from the
                                       # reference over the threshold (shadows and all)
    # every region of ``mask`` (small ones too), in the order its components are numbered: x, y,
    # width, height, area (working-scale px) and its first 2x2 block in raster order (row * w + col)
    regions: np.ndarray | None = None
    pieces: np.ndarray | None = None   # ``mask`` without the regions too small to be a piece (uint8)
    # worked out from an earlier frame's map (see Background.changes' ``since``): that map's
    # ``small`` and the boxes (working-scale px, x0, y0, x1, y1) outside which ``small`` is the same
    small_from: tuple[np.ndarray, list[tuple[int, int, int, int]]] | None = None

    def small_unchanged(self, small: np.ndarray | None, box: tuple[int, int, int, int]) -> bool:
        """Whether ``small`` (a frame at this map's scale) is known to be this map's ``small`` to
        the bit within ``box`` (working-scale px, x0, y0, x1, y1): it is the same array, or the one
        this map was worked out from and the box meets none of the boxes worked out again."""
        if small is None:
            return False
        if small is self.small:
            return True
        if self.small_from is None or self.small_from[0] is not small:
            return False
        return not _meets_any(box, self.small_from[1])


def _meets_any(box: tuple[int, int, int, int], boxes) -> bool:
    """Whether a box (x0, y0, x1, y1, ends excluded) shares a pixel with any of ``boxes``."""
    x0, y0, x1, y1 = box
    return any(x0 < b[2] and b[0] < x1 and y0 < b[3] and b[1] < y1 for b in boxes)


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` (8-connected) by Grana's block-based algorithm (BBDT):
    the same labels, numbered in the same raster order, 3x faster than the default on one core
    (which, like Spaghetti with 32-bit labels, scans pixel by pixel there)."""
    return cv2.connectedComponentsWithStatsWithAlgorithm(mask, 8, cv2.CV_32S, cv2.CCL_BBDT)


def channel_max(img: np.ndarray) -> np.ndarray:
    """The largest of an (h, w, 3) array's channels, (h, w).  A 1x3 dilation over the interleaved
    row, read at each pixel's middle channel: twice as fast as maxima of the strided channel views."""
    h, w = img.shape[:2]
    return cv2.dilate(img.reshape(h, w * 3), np.ones((1, 3), np.uint8))[:, 1::3]


@lru_cache(maxsize=64)
def _disc(r: float) -> np.ndarray:
    """The pixels closer than ``r`` to the middle one, as a uint8 0/1 kernel (shared: not to be
    written to)."""
    k = int(np.ceil(r))
    i, j = np.mgrid[-k:k + 1, -k:k + 1]
    return (i * i + j * j < r * r).astype(np.uint8)


@lru_cache(maxsize=8)
def _gaussian_kernel(sigma: float) -> np.ndarray:
    """The 1-D kernel cv2.GaussianBlur uses on float images for ``sigma`` (its size: 8 sigma + 1,
    odd)."""
    return cv2.getGaussianKernel(int(round(sigma * 8 + 1)) | 1, sigma, cv2.CV_32F)


@lru_cache(maxsize=16)
def smoothing_disc(sigma_px: float) -> np.ndarray:
    """The elliptic kernel as wide as a Gaussian smoothing by ``sigma_px`` reaches (2 ceil(2 sigma)
    + 1 px across): to keep away from, or close over, what the smoothing blurs (shared: not to be
    written to)."""
    k = 2 * int(np.ceil(2 * sigma_px)) + 1
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))


def _disc_pixels(r: float) -> int:
    """Pixels closer than ``r`` to a pixel (itself included): a region with fewer has no pixel
    ``r`` from its outside (no core for the wide-darkening test; the distance transforms skipped)."""
    return int(np.count_nonzero(_disc(r)))


def _opening(mask: np.ndarray, r: float) -> np.ndarray | None:
    """The opening of a 0/1 uint8 mask by a disc of radius ``r`` (px): the pixels of the mask within
    ``r`` of a centre at which the whole disc (every pixel closer than ``r``) lies in the mask, as a
    bool array; None when the disc fits nowhere.  (Pixels outside the image count as in the mask.)
    A small disc by erosion and dilation with it; a big one by two distance transforms, whose cost
    does not grow with the disc.  Both give the same pixels."""
    if r <= 8:
        disc = _disc(r)
        core = cv2.erode(mask, disc, borderType=cv2.BORDER_CONSTANT, borderValue=1)
        if not core.any():
            return None
        return cv2.dilate(core, disc, borderType=cv2.BORDER_CONSTANT, borderValue=0) > 0
    core = cv2.distanceTransform(mask, cv2.DIST_L2, cv2.DIST_MASK_PRECISE) >= r
    if not core.any():
        return None
    return cv2.distanceTransform((~core).view(np.uint8), cv2.DIST_L2, cv2.DIST_MASK_PRECISE) < r


def median(x: np.ndarray, axis: int | None = None) -> np.ndarray | np.floating:
    """``np.median`` of an array without NaNs, whole or along ``axis``, the same value.  numpy
    partitions about the two middle elements of an even count far slower (~8x) than about one:
    this partitions about the upper middle and takes the lower as the largest below it."""
    x = np.asarray(x)
    if axis is None:
        x, axis = x.ravel(), 0
    n = x.shape[axis]
    k = n // 2
    p = np.partition(x, k, axis=axis)
    upper = np.take(p, k, axis=axis)
    if n % 2:
        return upper
    lower = np.max(np.take(p, np.arange(k), axis=axis), axis=axis)
    return (lower + upper) / 2


def fill_holes(mask: np.ndarray) -> np.ndarray:
    """A uint8 0/1 mask with every region that the border cannot reach set (``mask``: uint8, set
    where non-zero, but never 2)."""
    outside = cv2.copyMakeBorder(mask, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    cv2.floodFill(outside, None, (0, 0), 2)
    return (outside[1:-1, 1:-1] != 2).view(np.uint8)


def _first_blocks(lab: np.ndarray, stats: np.ndarray, at: tuple[int, int] = (0, 0),
                  width: int | None = None) -> np.ndarray:
    """For each component but the background (``lab``, ``stats``: :func:`components` of a mask, or
    of a window of one whose corner lies at ``at`` in it, ``width`` px wide): its first 2x2 block of
    the whole mask in raster order (block row * ``width`` + block column; the blocks from the whole
    mask's corner).  Components are numbered in this order (Grana's algorithm labels by blocks)."""
    n = len(stats) - 1
    if n <= 0:
        return np.zeros(0, np.int64)
    x0, y0 = at
    width = lab.shape[1] if width is None else width
    h = lab.shape[0]
    ids = np.arange(1, n + 1)
    # the block row of each component's top row, and the two rows of it (window rows; those
    # outside the window read a padding row, where no component is)
    by = (stats[1:, cv2.CC_STAT_TOP] + y0) // 2
    rows = np.stack([2 * by - y0, 2 * by + 1 - y0], axis=1)
    pad = np.vstack([lab, np.zeros((1, lab.shape[1]), lab.dtype)])
    rows = np.where((rows >= 0) & (rows < h), rows, h)  # (the padding row: no component)
    hit = (pad[rows[:, 0]] == ids[:, None]) | (pad[rows[:, 1]] == ids[:, None])
    bx = (np.argmax(hit, axis=1) + x0) // 2
    return by.astype(np.int64) * width + bx


def _merged(boxes: list[tuple[int, int, int, int]], gap: int) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) less than ``gap`` px apart merged into their bounding boxes, until none
    are."""
    boxes = list(boxes)
    merged = True
    while merged:
        merged = False
        out: list[tuple[int, int, int, int]] = []
        for b in boxes:
            for k, o in enumerate(out):
                if b[0] < o[2] + gap and o[0] < b[2] + gap and b[1] < o[3] + gap and o[1] < b[3] + gap:
                    out[k] = (min(b[0], o[0]), min(b[1], o[1]), max(b[2], o[2]), max(b[3], o[3]))
                    merged = True
                    break
            else:
                out.append(b)
        boxes = out
    return boxes


class Background:
    """The empty-table reference and the change detector."""

    BLUR_PX = 0.8  # every picture compared is blurred this much first (noise, JPEG blocks)

    def __init__(self, reference_bgr: np.ndarray, scale: float = 0.5, board_mask: np.ndarray | None = None,
                 shadow_px: float = 0.0, smooth_px: float = 0.0, textured_frac: float = 0.0,
                 texture_contrast: float = 3.0, plain_max_px: float = 0.0, plain_min_r_px: float = 0.0,
                 by_pieces: bool = False):
        """``shadow_px``: the widest a piece's shadow can be (image px; 0: any width).  ``smooth_px``:
        a shadow darkens the board by much the same ratio over this distance (image px), and a
        shadow-like region of its own (apart from the other changes) of which ``textured_frac`` is
        not explained so is a piece (0: not looked for) — at working scale, or at full resolution
        where also ``texture_contrast`` times as much of it as of the board around it is.  One
        without such texture is reported as ``plain`` when its area is at most ``plain_max_px``
        (image px; 0: never).  One next to other changes is looked at so only where a disc of radius
        ``plain_min_r_px`` (image px; 0: never) fits in it: wider than a piece's shadow can be; or,
        with ``by_pieces`` (where pieces stand one per place), where it is textured: a piece the
        colour of a shadow beside another, reported ``by_piece``."""
        self.full = reference_bgr
        self.scale = scale
        self.shadow_px = shadow_px
        self.smooth_px = smooth_px
        self.textured_frac = textured_frac
        self.texture_contrast = texture_contrast
        self.plain_max_px = plain_max_px
        self.plain_min_r_px = plain_min_r_px
        self.by_pieces = by_pieces
        h, w = reference_bgr.shape[:2]
        self.size_small = (max(1, round(w * scale)), max(1, round(h * scale)))
        self.small = self._prep(reference_bgr)
        self.board_mask = board_mask  # full-res uint8 mask of the boards (for the gain fit), optional
        if board_mask is not None:
            self.board_small = cv2.resize(board_mask, self.size_small, interpolation=cv2.INTER_NEAREST) > 0
        else:
            self.board_small = None

    def _prep(self, img: np.ndarray) -> np.ndarray:
        """The working-scale copy, blurred by ``BLUR_PX``, float32."""
        return self._blur(self._shrink(img))

    def _shrink(self, img: np.ndarray) -> np.ndarray:
        """The working-scale copy, not blurred (of the image's type)."""
        return cv2.resize(img, self.size_small, interpolation=cv2.INTER_AREA) if self.scale != 1 else img

    def _blur(self, small: np.ndarray) -> np.ndarray:
        """A working-scale copy blurred by ``BLUR_PX``, float32.  An 8-bit image is filtered into
        float directly: the values of blurring its float copy (to float rounding, ~3e-5; at the
        working size of a 1080p frame, to the bit), without the copy."""
        if small.dtype != np.uint8 or not small.flags.c_contiguous:
            return cv2.GaussianBlur(small.astype(np.float32), (0, 0), self.BLUR_PX)
        k = _gaussian_kernel(self.BLUR_PX)
        return cv2.sepFilter2D(small, cv2.CV_32F, k, k)

    @staticmethod
    def fit_gains(frame: np.ndarray, ref: np.ndarray, sel: np.ndarray | None = None) -> np.ndarray:
        """Per-channel gain g so that frame ~ g * ref on unchanged pixels (robust: median ratio of
        mid-tone pixels, then again on the pixels that agree)."""
        f = frame[::8, ::8].reshape(-1, 3)
        r = ref[::8, ::8].reshape(-1, 3)
        ok = np.all((r > 15) & (r < 240) & (f > 5) & (f < 250), axis=1)
        if sel is not None:
            ok &= sel[::8, ::8].reshape(-1)
        if ok.sum() < 100:
            return np.ones(3, np.float32)
        ratio = f[ok] / r[ok]
        g = median(ratio, axis=0)
        agree = np.all(np.abs(ratio / g - 1) < 0.08, axis=1)
        if agree.sum() > 100:
            g = median(ratio[agree], axis=0)
        return g.astype(np.float32)

    @staticmethod
    def score(frame: np.ndarray, ref: np.ndarray, gains: np.ndarray, wide_px: int = 0) -> np.ndarray:
        """Change score per pixel: the largest channel difference, with shadows (a similar fall in
        every channel, keeping the colour balance) scored down — but for darkenings in which a disc
        ``wide_px`` across fits (wider than the pieces' shadows can be; 0: no limit)."""
        return Background.scores(frame, ref, gains, wide_px)[0]

    @staticmethod
    def scores(frame: np.ndarray, ref: np.ndarray, gains: np.ndarray,
               wide_px: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The change score (see :meth:`score`) and the score with every shadow scored down, however
        wide (the same array when no darkening is that wide).  (Works on contiguous channel planes:
        reductions across the channel axis of an HxWx3 array are slow.)"""
        f = cv2.split(frame.astype(np.float32, copy=False))
        r = [ch * np.float32(g) for ch, g in zip(cv2.split(ref.astype(np.float32, copy=False)), gains)]
        d = cv2.max(cv2.max(cv2.absdiff(f[0], r[0]), cv2.absdiff(f[1], r[1])), cv2.absdiff(f[2], r[2]))
        ratio = [cv2.divide(fc + 6.0, rc + 6.0) for fc, rc in zip(f, r)]
        rmean = (ratio[0] + ratio[1] + ratio[2]) * np.float32(1 / 3)
        rspread = cv2.max(cv2.max(ratio[0], ratio[1]), ratio[2]) - cv2.min(cv2.min(ratio[0], ratio[1]), ratio[2])
        shadow = (rmean > 0.25) & (rmean < 0.97) & (rspread < 0.12 * rmean + 0.04)
        # a shadow's remaining difference is the part not explained by a uniform darkening
        resid = cv2.max(cv2.max(cv2.absdiff(f[0], r[0] * rmean), cv2.absdiff(f[1], r[1] * rmean)),
                        cv2.absdiff(f[2], r[2] * rmean))
        plain = np.where(shadow, resid, d).astype(np.float32, copy=False)
        if wide_px >= 3 and min(shadow.shape) >= wide_px and np.count_nonzero(shadow) >= _disc_pixels(wide_px / 2):
            wide = _opening(shadow.view(np.uint8), wide_px / 2)
            if wide is not None:
                return np.where(wide, d, plain).astype(np.float32, copy=False), plain
        return plain, plain

    def changes(self, frame_bgr: np.ndarray, min_area_px: float = 30.0, k_sigma: float = 6.0,
                min_threshold: float = 16.0, close_px: int = 3, since: ChangeMap | None = None,
                light_tol: float = 0.02, since_max_frac: float = 0.3) -> ChangeMap:
        """Regions of change (full-resolution boxes).  A region's area is what its outline encloses
        once gaps up to ``close_px`` (working-scale px) are closed: a piece much like the board behind
        it (a dark card back on a dark mat) may change the picture only along its edges, in pieces.

        ``since``: this background's map of an earlier frame of the same table (the last settled
        one).  Where the frame does not differ from that one by the threshold, its map stands, and
        the map is worked out again only around what changed (with its gains and threshold): after a
        shot, where the shot moved pieces.  Not so where the light changed since (any channel by
        ``light_tol`` over the picture) or more than ``since_max_frac`` of it changed."""
        raw = self._shrink(frame_bgr)
        got = self._since(raw, since, light_tol, since_max_frac) if since is not None else None
        if got is not None:
            small, s, cand, dirty, redone = got
            gains, thr = since.gains, since.threshold
            kept = self._regions_since(frame_bgr, small, raw, s, cand, thr, min_area_px, close_px, since, dirty)
            if kept is not None:
                kept.small_from = (since.small, redone)
                return kept
        else:
            small = self._blur(raw)
            gains = self.fit_gains(small, self.small, self.board_small)
            # a cheap first pass over the whole picture: the largest channel difference (an upper
            # bound of the score but for shadows, whose score is lower still); the full score, with
            # its shadow test, only where that pass sees something
            # (the gains as a colour transform: a diagonal matrix, 3x faster than a per-channel multiply)
            r_g = cv2.transform(self.small, np.diag(gains).astype(np.float32))
            dmax = channel_max(cv2.absdiff(small, r_g))
            sample = dmax[::3, ::3]  # the noise level from a ninth of the pixels is as good
            mad = float(median(np.abs(sample - median(sample))))
            thr = max(min_threshold, k_sigma * 1.4826 * mad)
            s = np.zeros(dmax.shape, np.float32)
            cand = dmax > thr
            for x0, y0, x1, y1 in self._candidate_boxes(cand):
                s[y0:y1, x0:x1] = self.score(small[y0:y1, x0:x1], self.small[y0:y1, x0:x1], gains,
                                             self._wide_px(self.scale))
        return self._regions(frame_bgr, small, raw, s, cand, gains, thr, min_area_px, close_px)

    @staticmethod
    def _candidate_boxes(cand: np.ndarray) -> list[tuple[int, int, int, int]]:
        """The boxes (working-scale px) where the full change score is worked out: those of the
        candidate changes (``cand``, bool), found on a copy 4x smaller (a pixel there is set if any
        of its 16 is), grown by 2 px."""
        if not cand.any():
            return []
        hh, ww = cand.shape
        q = cv2.resize(cand.view(np.uint8) * np.uint8(255), (-(-ww // 4), -(-hh // 4)),
                       interpolation=cv2.INTER_AREA) > 0
        n0, _, st0, _ = components(q.view(np.uint8))
        return [(max(0, 4 * st0[i, 0] - 2), max(0, 4 * st0[i, 1] - 2),
                 min(ww, 4 * (st0[i, 0] + st0[i, 2]) + 2), min(hh, 4 * (st0[i, 1] + st0[i, 3]) + 2))
                for i in range(1, n0)]

    def _since(self, raw: np.ndarray, since: ChangeMap, light_tol: float, max_frac: float):
        """The blurred working-scale frame, change score and candidate changes (see :meth:`changes`)
        from ``since``'s, worked out again only around where ``raw`` (the working-scale frame, not
        blurred) differs from its frame by the threshold, the boxes where the score was (working-scale
        px) and those where the blurred frame was; None where they cannot be (see :meth:`changes`).
        Around: as far as a changed pixel reaches into the blurred frame and into the wide-darkening
        test of the score."""
        if since.raw is None or since.changed is None or raw.dtype != np.uint8 or raw.shape != since.raw.shape \
                or since.scale != self.scale or not raw.flags.c_contiguous:
            return None
        # (from every 16th pixel each way: ~2000 of a 1080p frame's board, the median ratio as sure)
        sel = self.board_small[::2, ::2] if self.board_small is not None else None
        g = self.fit_gains(raw[::2, ::2], since.raw[::2, ::2], sel)
        if float(np.max(np.abs(g - 1.0))) > light_tol:
            return None  # (the light changed: the gains and the noise level are fitted anew)
        thr, gains = since.threshold, since.gains
        # (8-bit: a channel differs by more than the threshold where not all lie within its whole
        # part; in one pass)
        t = float(np.floor(thr))
        moved = cv2.compare(cv2.inRange(cv2.absdiff(raw, since.raw), (0.0, 0.0, 0.0), (t, t, t)), 0, cv2.CMP_EQ)
        # (specks of noise: a 2 px opening, as the map's own)
        moved = cv2.morphologyEx(moved, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        small, s, cand = since.small, since.score, since.changed
        if not moved.any():
            return small, s, cand, [], []
        k = _gaussian_kernel(self.BLUR_PX)
        kr = len(k) // 2
        reach = kr + self._wide_px(self.scale) + 2
        hh, ww = moved.shape
        boxes = []
        for x0, y0, x1, y1 in self._candidate_boxes(moved > 0):
            boxes.append((max(0, x0 - reach), max(0, y0 - reach), min(ww, x1 + reach), min(hh, y1 + reach)))
        if sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in boxes) > max_frac * hh * ww:
            return None
        small, s, cand = small.copy(), s.copy(), cand.copy()
        diag = np.diag(gains).astype(np.float32)
        for x0, y0, x1, y1 in boxes:
            # the blur of the frame there, from the frame around it (as far as the kernel reaches):
            # the values blurring the whole frame gives
            e0, f0, e1, f1 = max(0, x0 - kr), max(0, y0 - kr), min(ww, x1 + kr), min(hh, y1 + kr)
            b = cv2.sepFilter2D(np.ascontiguousarray(raw[f0:f1, e0:e1]), cv2.CV_32F, k, k)
            small[y0:y1, x0:x1] = b[y0 - f0:y1 - f0, x0 - e0:x1 - e0]
            r_g = cv2.transform(self.small[y0:y1, x0:x1], diag)
            cand[y0:y1, x0:x1] = channel_max(cv2.absdiff(small[y0:y1, x0:x1], r_g)) > thr
            s[y0:y1, x0:x1] = 0.0
        dirty = list(boxes)
        for x0, y0, x1, y1 in self._candidate_boxes(cand):
            if _meets_any((x0, y0, x1, y1), boxes):
                s[y0:y1, x0:x1] = self.score(small[y0:y1, x0:x1], self.small[y0:y1, x0:x1], gains,
                                             self._wide_px(self.scale))
                dirty.append((x0, y0, x1, y1))
        return small, s, cand, dirty, boxes

    def _regions(self, frame_bgr: np.ndarray, small: np.ndarray, raw: np.ndarray, s: np.ndarray,
                 cand: np.ndarray, gains: np.ndarray, thr: float, min_area_px: float,
                 close_px: int) -> ChangeMap:
        """The map's regions of change from its score ``s`` and candidate changes ``cand`` (see
        :meth:`changes`)."""
        mask = fill_holes(self._closed(s, thr, close_px))
        _, lab, stats, _ = components(mask)
        pieces = mask.copy() if self.textured_frac > 0 else None  # the regions kept, as a mask
        self._small_gone(pieces, lab, stats, min_area_px)
        regions = np.column_stack([stats[1:, :5], _first_blocks(lab, stats)]).reshape(-1, 6)
        return self._map(frame_bgr, small, raw, s, cand, gains, thr, min_area_px, mask, regions, pieces)

    @staticmethod
    def _closed(s: np.ndarray, thr: float, close_px: int) -> np.ndarray:
        """Where the score ``s`` passes the threshold, specks opened away (2 px) and gaps up to
        ``close_px`` closed (uint8 0/1): the mask before its holes are filled."""
        mask = cv2.morphologyEx((s > thr).view(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        close = np.ones((3, 3), np.uint8) if close_px <= 3 else cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (close_px, close_px))
        return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)

    def _small_gone(self, pieces: np.ndarray | None, lab: np.ndarray, stats: np.ndarray, min_area_px: float) -> None:
        """``pieces`` (a mask's copy; None: not kept) without its regions too small to be a piece
        (``lab``, ``stats``: its components)."""
        if pieces is None:
            return
        inv = 1.0 / self.scale
        for i in np.flatnonzero(stats[:, cv2.CC_STAT_AREA] * inv * inv < min_area_px):
            if i:
                x, y, bw, bh = stats[i, :4]
                pieces[y:y + bh, x:x + bw][lab[y:y + bh, x:x + bw] == i] = 0

    def _map(self, frame_bgr, small, raw, s, cand, gains, thr, min_area_px, mask, regions, pieces) -> ChangeMap:
        """The change map of a frame from its mask's regions (see :attr:`ChangeMap.regions`): those
        big enough to be a piece, in order, then the shadow-like ones (see :meth:`_shadow_like`)."""
        inv = 1.0 / self.scale
        blobs = [self._blob(r, mask.shape) for r in regions if r[4] * inv * inv >= min_area_px]
        if pieces is not None:
            blobs += self._shadow_like(small, gains, cand, pieces, thr, min_area_px, frame_bgr)
        # (the working-scale frame kept for the next one is a copy where it is the frame itself: a
        # camera may fill the same buffer again)
        keep = None if raw.dtype != np.uint8 else raw.copy() if raw is frame_bgr else raw
        return ChangeMap(s, mask, gains, thr, self.scale, blobs, small, keep, cand, regions, pieces)

    def _regions_since(self, frame_bgr: np.ndarray, small: np.ndarray, raw: np.ndarray, s: np.ndarray,
                       cand: np.ndarray, thr: float, min_area_px: float, close_px: int, since: ChangeMap,
                       dirty: list[tuple[int, int, int, int]], max_frac: float = 0.5) -> ChangeMap | None:
        """:meth:`_regions` from ``since``'s, worked out again only in windows around the boxes where
        the score changed (``dirty``, working-scale px; see :meth:`_since`): the same map.  A window
        reaches as far as a changed score reaches into the mask (its opening and closing), and then
        over every region of ``since`` that reaches into it, and one px more: its edge then runs
        over no region, old or new, so a region's outline, its holes and its components within
        it are those of the whole mask, and every region outside the windows is ``since``'s.
        None where the windows would cover more than ``max_frac`` of the map, or ``since`` kept no
        regions."""
        if since.regions is None or since.mask is None or (self.textured_frac > 0 and since.pieces is None):
            return None
        hh, ww = s.shape
        rc = 1 if close_px <= 3 else close_px // 2  # (how far the closing's element reaches)
        g = 3 + 2 * rc  # (how far a pixel's score reaches into the mask: the opening 2 px, the closing 2 rc)
        old = since.regions
        ox0, oy0 = old[:, 0], old[:, 1]
        ox1, oy1 = ox0 + old[:, 2], oy0 + old[:, 3]
        wins = [(max(0, x0 - g), max(0, y0 - g), min(ww, x1 + g), min(hh, y1 + g)) for x0, y0, x1, y1 in dirty]
        while True:
            # windows within 2 px of one another are one (their edges are to run clear of both)
            wins = _merged(wins, 2)
            grown = []
            for x0, y0, x1, y1 in wins:
                hit = (ox0 <= x1) & (ox1 >= x0) & (oy0 <= y1) & (oy1 >= y0)  # (within 1 px of it)
                if hit.any():
                    x0, y0 = min(x0, int(ox0[hit].min())), min(y0, int(oy0[hit].min()))
                    x1, y1 = max(x1, int(ox1[hit].max())), max(y1, int(oy1[hit].max()))
                grown.append((x0, y0, x1, y1))
            if grown == wins:
                break
            wins = grown
        if sum((x1 - x0 + 2) * (y1 - y0 + 2) for x0, y0, x1, y1 in wins) > max_frac * hh * ww:
            return None
        if not wins:
            return self._map(frame_bgr, small, raw, s, cand, since.gains, thr, min_area_px, since.mask, old,
                             since.pieces)
        mask = since.mask.copy()
        pieces = since.pieces.copy() if since.pieces is not None else None
        keep = np.ones(len(old), bool)
        new = [old[:0]]
        m = 4 + 2 * rc  # (as far as the opening and the closing reach, and a margin)
        for x0, y0, x1, y1 in wins:
            # the window with its edge (1 px, clear of every region)
            x0, y0, x1, y1 = max(0, x0 - 1), max(0, y0 - 1), min(ww, x1 + 1), min(hh, y1 + 1)
            keep &= ~((ox0 < x1) & (ox1 > x0) & (oy0 < y1) & (oy1 > y0))
            e0, f0, e1, f1 = max(0, x0 - m), max(0, y0 - m), min(ww, x1 + m), min(hh, y1 + m)
            sub = self._closed(s[f0:f1, e0:e1], thr, close_px)
            part = fill_holes(np.ascontiguousarray(sub[y0 - f0:y1 - f0, x0 - e0:x1 - e0]))
            _, lab, stats, _ = components(part)
            mask[y0:y1, x0:x1] = part
            if pieces is not None:
                got = part.copy()
                self._small_gone(got, lab, stats, min_area_px)
                pieces[y0:y1, x0:x1] = got
            first = _first_blocks(lab, stats, (x0, y0), ww)
            stats = stats[1:, :5].copy()
            stats[:, 0] += x0
            stats[:, 1] += y0
            new.append(np.column_stack([stats, first]).reshape(-1, 6))
        regions = np.concatenate([old[keep]] + new)
        regions = regions[np.argsort(regions[:, 5], kind="stable")]
        return self._map(frame_bgr, small, raw, s, cand, since.gains, thr, min_area_px, mask, regions, pieces)

    def _shadow_like(self, small, gains, cand, pieces, thr: float, min_area_px: float,
                     frame_bgr: np.ndarray | None = None) -> list[Blob]:
        """Regions that changed (``cand``: the largest channel difference over ``thr``) outside
        ``pieces`` — like a shadow, every
        channel by a similar ratio, or in specks too small to be a piece — and touch no region of
        ``pieces`` (a shadow lies by the piece that casts it) or are wider than a shadow can be (see
        ``plain_min_r_px``), but whose picture is not the board's scaled by a smooth ratio over
        ``textured_frac`` of their pixels: a piece the colour of a shadow (a grey rock on a grey
        board), whose own texture replaces the board's print.  A fine texture that the working scale
        blurs away is looked for at full resolution (``frame_bgr``).  Such regions without texture,
        up to ``plain_max_px``, come back ``plain``."""
        # (with the regions of clear change too small to be a piece: a grey rock's lighter facets
        # may differ in colour too, in specks)
        shade = (cand & (pieces == 0)).view(np.uint8)
        near = cv2.dilate(pieces, np.ones((5, 5), np.uint8)) > 0
        if np.count_nonzero(shade & ~near) * (1.0 / self.scale) ** 2 < min_area_px:
            return []  # all of it by the pieces: their shadows
        shade = cv2.morphologyEx(shade, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        shade = fill_holes(cv2.morphologyEx(shade, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)))
        n, lab, stats, _ = components(shade)
        inv = 1.0 / self.scale
        tiny = stats[:, cv2.CC_STAT_AREA] * inv * inv < min_area_px
        tiny[0] = False
        regions = [(lab, stats, [i for i in range(1, n) if not tiny[i]])]
        # a grey rock's outline ring (its dark edge, its soft shadow) broken into arcs, each too
        # small to be a piece, where its inside is much like the board: the arcs close to one
        # another taken together, apart from the pieces (by a piece, such specks are its shadow's)
        # and from the regions above (no piece is looked for twice).  (Most frames have no such
        # arcs: the specks of change by the pieces are their shadows'; nothing to join then)
        arc = tiny.copy()
        arc[np.unique(lab[near])] = False
        if arc.any():
            big = ~tiny
            big[0] = False
            on_big = big[lab]
            joined = fill_holes(cv2.morphologyEx((arc[lab] | on_big).view(np.uint8), cv2.MORPH_CLOSE, _disc(2.5)))
            n2, lab2, stats2, _ = components(joined)
            apart = np.ones(n2, bool)
            apart[lab2[on_big]] = False
            regions.append((lab2, stats2, [i for i in range(1, n2) if apart[i] and
                                           stats2[i, cv2.CC_STAT_AREA] * inv * inv >= min_area_px]))
        out = []
        for lab, stats, ids in regions:
            out += self._shade_blobs(small, gains, near, lab, stats, ids, shade.shape, thr, frame_bgr)
        return out

    def _shade_blobs(self, small, gains, near, lab, stats, ids, shape, thr, frame_bgr) -> list[Blob]:
        """The regions ``ids`` of a labelling of shadow-like change (``lab``, ``stats``) that are
        pieces (see :meth:`_shadow_like`)."""
        inv = 1.0 / self.scale
        out = []
        for i in ids:
            x, y, bw, bh, area = stats[i]
            comp = lab[y:y + bh, x:x + bw] == i
            by_piece = near[y:y + bh, x:x + bw][comp].any() and not (
                self.plain_min_r_px > 0 and cv2.distanceTransform(
                    np.pad(comp.view(np.uint8), 1), cv2.DIST_L2, 3).max() * inv >= self.plain_min_r_px)
            if by_piece and not self.by_pieces:
                continue  # by a piece, and no wider than its shadow can be: its shadow
            sigma = max(0.5, self.smooth_px * self.scale)
            e = self.texture_residual(small[y:y + bh, x:x + bw], self.small[y:y + bh, x:x + bw], gains, sigma)
            # away from its edge, where a crisp shadow's ratio steps faster than the smoothing follows
            inner = cv2.erode(comp.astype(np.uint8), smoothing_disc(sigma)) > 0
            textured = np.mean(e[inner if inner.any() else comp] > thr) >= self.textured_frac
            if by_piece:
                # by a piece, and no wider than its shadow can be: its shadow, unless textured
                if textured:
                    out.append(self._blob(stats[i], shape, shadow_like=True, by_piece=True))
                continue
            if not textured and (
                    frame_bgr is None or not self._textured_full(frame_bgr, comp, (x, y), gains, thr)):
                # no texture of its own: a shadow, or a piece as plain as one (a black disc) where
                # no shadow of a piece on the board can be
                if area * inv * inv <= self.plain_max_px:
                    out.append(self._blob(stats[i], shape, shadow_like=True, plain=True))
                continue
            out.append(self._blob(stats[i], shape, shadow_like=True))
        return out

    def _textured_full(self, frame_bgr: np.ndarray, comp: np.ndarray, at: tuple[int, int], gains: np.ndarray,
                       thr: float) -> bool:
        """Whether a shadow-like region (``comp``, bool, at working scale, its corner at ``at``) has a
        texture of its own at full resolution: the reference scaled by a smooth ratio leaves more than
        ``thr`` on ``textured_frac`` of it (away from its edge), and on ``texture_contrast`` times the
        share of a band of board around it (the noise and JPEG of this photo there)."""
        inv = 1.0 / self.scale
        sigma = max(0.5, self.smooth_px)  # full-resolution px, as at working scale
        disc = smoothing_disc(sigma)
        k = disc.shape[0]
        h, w = frame_bgr.shape[:2]
        x0, y0 = int(at[0] * inv), int(at[1] * inv)
        x1, y1 = min(w, int(np.ceil((at[0] + comp.shape[1]) * inv))), min(h, int(np.ceil((at[1] + comp.shape[0]) * inv)))
        bx0, by0, bx1, by1 = max(0, x0 - 2 * k), max(0, y0 - 2 * k), min(w, x1 + 2 * k), min(h, y1 + 2 * k)
        region = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        region[y0 - by0:y1 - by0, x0 - bx0:x1 - bx0] = cv2.resize(comp.view(np.uint8), (x1 - x0, y1 - y0),
                                                                    interpolation=cv2.INTER_NEAREST)
        f, r = self._crops(frame_bgr, (bx0, by0, bx1, by1))
        tex = self.texture_residual(f, r, gains, sigma)
        inner = cv2.erode(region, disc) > 0
        near = cv2.dilate(region, disc)
        band = (cv2.dilate(near, disc) > 0) & (near == 0)
        if not inner.any() or not band.any():
            return False
        own = float(np.mean(tex[inner] > thr))
        return own >= self.textured_frac and own >= self.texture_contrast * float(np.mean(tex[band] > thr))

    def _blob(self, stat: np.ndarray, shape: tuple[int, int], shadow_like: bool = False, plain: bool = False,
              by_piece: bool = False) -> Blob:
        """A region of change from its connected-component stats at working scale."""
        x, y, bw, bh, area = (int(v) for v in stat[:5])
        h, w = shape
        inv = 1.0 / self.scale
        return Blob((int(x * inv), int(y * inv), int(np.ceil((x + bw) * inv)), int(np.ceil((y + bh) * inv))),
                    float(area * inv * inv), x == 0 or y == 0 or x + bw >= w or y + bh >= h,
                    shadow_like, plain, by_piece)

    @staticmethod
    def texture_residual(frame: np.ndarray, ref: np.ndarray, gains: np.ndarray, sigma_px: float) -> np.ndarray:
        """What the reference scaled by a smooth ratio (the mean channel ratio, blurred by
        ``sigma_px``) leaves of the frame, largest channel: a shadow leaves noise, a piece its own
        texture and the board print it hides."""
        f = cv2.split(frame.astype(np.float32, copy=False))
        r = [ch * np.float32(g) for ch, g in zip(cv2.split(ref.astype(np.float32, copy=False)), gains)]
        rmean = sum(cv2.divide(fc + 6.0, rc + 6.0) for fc, rc in zip(f, r)) * np.float32(1 / 3)
        k = cv2.GaussianBlur(rmean, (0, 0), sigma_px)
        return cv2.max(cv2.max(cv2.absdiff(f[0], r[0] * k), cv2.absdiff(f[1], r[1] * k)), cv2.absdiff(f[2], r[2] * k))

    def crop_change(self, frame_bgr: np.ndarray, bbox: tuple[int, int, int, int],
                    gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Inside a box, at full resolution: the largest channel difference (shadows and all) and the
        change score with every shadow scored down."""
        return self._change(*self._crops(frame_bgr, bbox), gains)

    def crop_texture(self, frame_bgr: np.ndarray, bbox: tuple[int, int, int, int],
                     gains: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`crop_change` and the texture residual (see :meth:`texture_residual`)."""
        f, r = self._crops(frame_bgr, bbox)
        return *self._change(f, r, gains), self.texture_residual(f, r, gains, max(0.5, self.smooth_px))

    def _change(self, f: np.ndarray, r: np.ndarray, gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return channel_max(cv2.absdiff(f, r * gains.reshape(1, 1, 3))), self.scores(f, r, gains)[1]

    def crop_score(self, frame_bgr: np.ndarray, bbox: tuple[int, int, int, int],
                   gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The change scores at full resolution inside a box (see :meth:`scores`)."""
        f, r = self._crops(frame_bgr, bbox)
        return self.scores(f, r, gains, self._wide_px(1.0))

    def _crops(self, frame_bgr: np.ndarray, bbox: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """The frame and the reference inside a box at full resolution, float32, blurred as the
        working-scale copies are (``BLUR_PX``)."""
        x0, y0, x1, y1 = bbox
        f = cv2.GaussianBlur(frame_bgr[y0:y1, x0:x1].astype(np.float32), (0, 0), self.BLUR_PX)
        r = cv2.GaussianBlur(self.full[y0:y1, x0:x1].astype(np.float32), (0, 0), self.BLUR_PX)
        return f, r

    def _wide_px(self, scale: float) -> int:
        """The least width (px at a scale) of a darkening that is not a shadow; 0: none."""
        return 0 if self.shadow_px <= 0 else int(np.ceil(self.shadow_px * scale)) + 1
