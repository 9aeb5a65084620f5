"""Motion and settling: from a stream of frames, tell when a shot has ended.

:class:`SettleDetector` looks at each frame once, on a small grey copy (at most ``max_width`` px
wide, downscaled with ``INTER_AREA``, then blurred), and answers per frame with a
:class:`MotionState`:

* **motion** — the absolute difference to the previous frame, thresholded at
  ``max(cfg.motion_threshold, noise_k * sigma)``, where ``sigma`` is a robust estimate of the
  frame-to-frame noise (the median of ``|difference|`` over the whole frame — most of a frame does
  not move — divided by 0.6745, smoothed over time).  A noisy camera raises the threshold; a clean
  one (or the simulator, whose frames of one scene are bit-identical) keeps the configured
  grey-level change.  Something moved when the changed pixels cover at least
  ``cfg.motion_min_area_frac`` of the frame.
* **hand** — a large region of change that touches the image border (an arm reaches in from the
  edge of the view) or any region of change above a larger fraction of the frame.  It is looked for
  in the frame-to-frame change (a moving hand) *and* in the change against the last settled view
  of the table (a hand held still over the board, which frame differences cannot see).  That
  reference is the ``reference`` given (the empty table), else the first frame; it is replaced by
  the current view whenever a shot ends and refreshed while the table stays quiet (slow light
  drift).  A change over most of the frame is a change of light, not a hand: the view is adopted as
  the new reference once it has been quiet for the settle time.
* **settling** — a shot starts when something moves or a hand appears and ends when, after that,
  nothing has moved and no hand has been seen for ``cfg.settle_seconds`` (timestamps of the frames,
  not the wall clock).  ``just_settled`` is True on exactly that frame: that is when to judge.

Phases: ``still`` (nothing has happened since the stream began), ``moving`` (something moved in
this frame, or a hand is over the board), ``settling`` (quiet, but not for long enough yet),
``settled`` (the shot has ended; stays so until something moves again).

Frames: image pixels (``bbox`` is in the pixels of the frames given to :meth:`update`).

:func:`motion_benchmark` measures the frames per second of the whole check on one core
(``tableref bench speed``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from tableref.config import VisionConfig

PHASES = ("still", "moving", "settling", "settled")

_MAD_TO_SIGMA = 1.0 / 0.6745  # median |N(0, s)| = 0.6745 s
_EPS_T = 1e-6                  # timestamps are index / fps: 0.8 s may come out as 0.7999999


@dataclass(frozen=True)
class MotionState:
    """What one frame says about motion.  ``bbox`` (x, y, w, h, frame px) bounds this frame's change."""

    phase: str                # still | moving | settling | settled
    settled_for: float        # seconds since the last motion or hand (since the first frame if none)
    moved_px: float           # fraction of the frame that changed since the previous frame
    hand: bool                # a hand (a large region from the border) is over the view
    bbox: tuple[int, int, int, int] | None
    just_settled: bool        # True on exactly the frame where a shot ends
    t: float = 0.0            # the frame's timestamp (s)
    threshold: float = 0.0    # grey-level change that counted as motion in this frame
    noise: float = 0.0        # estimated frame-to-frame noise (sigma of the difference, grey levels)


@dataclass
class _Regions:
    moved_px: float
    bbox: tuple[int, int, int, int] | None
    hand: bool


class SettleDetector:
    """Decides, frame by frame, whether the table is moving, settling or settled.

    ``cfg`` supplies ``settle_seconds``, ``motion_threshold`` (the smallest grey-level change that
    counts) and ``motion_min_area_frac``.  The other parameters are image-processing scales, not
    fitted to any stream: ``max_width`` of the working copy; ``noise_k`` the threshold in noise
    sigmas; ``hand_border_frac`` the area (of the frame) of a region from the border that is a
    hand, ``hand_area_frac`` of a region anywhere; ``light_frac`` the changed area beyond which the
    change against the reference is light, not a hand; ``hand_timeout_s`` how long a still
    "hand" seen only against the reference may block settling before it is taken as part of the
    scene (a cup at the edge of the view, a sleeve) — a hand aiming a flick is rarely that still;
    ``speck_px`` fewer changed pixels (of the working copy) than this are no change at all.
    """

    def __init__(self, cfg: VisionConfig | None = None, reference: np.ndarray | None = None, *,
                 max_width: int = 320, noise_k: float = 5.0, hand_border_frac: float = 0.01,
                 hand_area_frac: float = 0.06, light_frac: float = 0.5, hand_timeout_s: float = 10.0,
                 speck_px: int = 4):
        self.cfg = cfg or VisionConfig()
        self.max_width = int(max_width)
        self.noise_k = float(noise_k)
        self.hand_border_frac = float(hand_border_frac)
        self.hand_area_frac = float(hand_area_frac)
        self.light_frac = float(light_frac)
        self.hand_timeout_s = float(hand_timeout_s)
        self.speck_px = int(speck_px)
        self._ref_input = reference
        self.reset()

    # ------------------------------------------------------------------------------ state
    def reset(self) -> None:
        """Forget the stream (keeps the reference given to the constructor)."""
        self._prev: np.ndarray | None = None
        self._ref: np.ndarray | None = None
        self._ref_t = -np.inf
        self._scale = 1.0
        self._shape: tuple[int, int] | None = None
        self._in_shape: tuple[int, ...] | None = None
        self._sigma: float | None = None
        self._t0: float | None = None
        self._t_last: float | None = None
        self._t_active: float | None = None   # last frame with motion or a hand
        self._in_shot = False                 # something happened and has not settled yet
        self._settled_once = False
        self._ref_hand_since: float | None = None
        self.state: MotionState | None = None

    @property
    def reference(self) -> np.ndarray | None:
        """The small grey view of the table at rest that a still hand is looked for against."""
        return self._ref

    # ------------------------------------------------------------------------------ frames
    def _small(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        if self._shape is None:
            self._scale = min(1.0, self.max_width / float(w))
            self._shape = (max(1, round(w * self._scale)), max(1, round(h * self._scale)))
        img = frame
        if img.ndim == 3:  # grey first: the resize then moves a third of the data
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY if img.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
        if (w, h) != self._shape:
            img = cv2.resize(img, self._shape, interpolation=cv2.INTER_AREA)
        return cv2.GaussianBlur(img, (5, 5), 0)

    @staticmethod
    def _median_abs(diff: np.ndarray) -> float:
        """Median of a uint8 |difference| image from its histogram, interpolated within the bin (on
        every other pixel of every other row: the blur has made neighbours alike anyway)."""
        hist = cv2.calcHist([np.ascontiguousarray(diff[::2, ::2])], [0], None, [256], [0, 256]).ravel()
        cdf = np.cumsum(hist)
        half = 0.5 * cdf[-1]
        k = int(np.searchsorted(cdf, half))
        below = cdf[k - 1] if k else 0.0
        lo, width = (0.0, 0.5) if k == 0 else (k - 0.5, 1.0)
        return lo + width * (half - below) / max(hist[k], 1.0)

    def _regions(self, mask: np.ndarray, count: int) -> _Regions:
        """Changed fraction, bounding box (frame px) and the hand test of a binary change mask.

        Regions are the outer contours of the mask (much cheaper than labelling every pixel); a
        region's pixel area is its polygon area plus half its perimeter.  The hand test runs only
        when enough changed for a hand to be possible."""
        n_px = mask.size
        h, w = mask.shape
        total = count / n_px
        if count < self.speck_px:
            return _Regions(0.0, None, False)
        x, y, bw, bh = cv2.boundingRect(mask)
        s = 1.0 / self._scale
        bbox = (int(np.floor(x * s)), int(np.floor(y * s)), int(np.ceil(bw * s)), int(np.ceil(bh * s)))
        hand = False
        if count >= self.hand_border_frac * n_px:
            contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for c in contours:
                cx, cy, cw, ch = cv2.boundingRect(c)
                if cw * ch < self.hand_border_frac * n_px:
                    continue
                area = cv2.contourArea(c) + 0.5 * cv2.arcLength(c, True)
                border = cx <= 0 or cy <= 0 or cx + cw >= w or cy + ch >= h
                if (border and area >= self.hand_border_frac * n_px) or area >= self.hand_area_frac * n_px:
                    hand = True
                    break
        return _Regions(total, bbox, hand)

    def _adopt(self, small: np.ndarray, t: float) -> None:
        self._ref = small
        self._ref_t = t
        self._ref_hand_since = None

    # ------------------------------------------------------------------------------ update
    def update(self, frame_bgr: np.ndarray, t: float) -> MotionState:
        """Feed the next frame (BGR or grey uint8) and its timestamp in seconds."""
        cfg = self.cfg
        t = float(t)
        if self._in_shape is not None and frame_bgr.shape[:2] != self._in_shape:
            self.reset()  # another camera or resolution: start over
        self._in_shape = frame_bgr.shape[:2]
        small = self._small(frame_bgr)
        n_px = small.size
        if self._t0 is None or (self._t_last is not None and t < self._t_last):
            # first frame, or the clock went backwards (a new recording): start over, keep the view
            self._t0 = t
            self._t_active = None
            self._in_shot = False
        self._t_last = t
        if self._ref is None:
            ref = self._ref_input
            if ref is not None:
                r = ref if ref.shape[:2] == frame_bgr.shape[:2] else cv2.resize(
                    ref, (frame_bgr.shape[1], frame_bgr.shape[0]), interpolation=cv2.INTER_AREA)
                self._ref = self._small(r)
                self._ref_t = t
            else:
                self._adopt(small, t)

        # -- frame to frame
        thr = float(cfg.motion_threshold)
        motion = _Regions(0.0, None, False)
        if self._prev is not None:
            diff = cv2.absdiff(small, self._prev)
            sig = self._median_abs(diff) * _MAD_TO_SIGMA
            if self._sigma is None:
                self._sigma = sig
            else:
                # most of the frame is still; a frame with a big change says little about the noise
                self._sigma += (0.1 if sig <= 2.0 * self._sigma + 0.5 else 0.02) * (sig - self._sigma)
            thr = max(thr, self.noise_k * self._sigma)
            _, mask = cv2.threshold(diff, thr, 255, cv2.THRESH_BINARY)
            motion = self._regions(mask, cv2.countNonZero(mask))
        self._prev = small
        moved = motion.moved_px >= cfg.motion_min_area_frac

        # -- against the table at rest: a hand held still
        ref_hand = False
        light = False
        if self._ref is not None:
            m_ref, m_cur = cv2.mean(self._ref)[0], cv2.mean(small)[0]
            cur = small if abs(m_cur - m_ref) < 1.0 else cv2.convertScaleAbs(small, alpha=m_ref / max(m_cur, 1.0))
            rdiff = cv2.absdiff(cur, self._ref)
            _, rmask = cv2.threshold(rdiff, thr, 255, cv2.THRESH_BINARY)
            rcount = cv2.countNonZero(rmask)
            if rcount >= self.light_frac * n_px:
                light = True
            elif rcount >= self.hand_border_frac * n_px:
                ref_hand = self._regions(rmask, rcount).hand
        if ref_hand and not (moved or motion.hand):
            if self._ref_hand_since is None:
                self._ref_hand_since = t
            elif t - self._ref_hand_since >= self.hand_timeout_s:
                self._adopt(small, t)  # a still thing at the edge of the view: part of the scene now
                ref_hand = False
        else:
            self._ref_hand_since = None
        hand = motion.hand or ref_hand

        # -- phase
        if moved or hand:
            self._t_active = t
            self._in_shot = True
        quiet = t - (self._t_active if self._t_active is not None else self._t0)
        just = False
        if self._in_shot:
            if moved or hand:
                phase = "moving"
            elif quiet + _EPS_T >= cfg.settle_seconds:
                phase, just = "settled", True
                self._in_shot = False
                self._settled_once = True
                self._adopt(small, t)
            else:
                phase = "settling"
        else:
            phase = "settled" if self._settled_once else "still"
            if quiet + _EPS_T >= cfg.settle_seconds and (light or t - self._ref_t >= cfg.settle_seconds):
                self._adopt(small, t)  # quiet table: follow slow changes of light
        self.state = MotionState(phase=phase, settled_for=max(0.0, quiet), moved_px=motion.moved_px, hand=hand,
                                 bbox=motion.bbox if moved else None, just_settled=just, t=t, threshold=thr,
                                 noise=float(self._sigma or 0.0))
        return self.state


# ---------------------------------------------------------------------------------- benchmark

def _bench_frames(size: tuple[int, int], count: int = 48, seed: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    """Synthetic 8-bit BGR frames: a textured table, sensor noise, a dark blob crossing it."""
    w, h = size
    rng = np.random.default_rng(seed)
    base = cv2.GaussianBlur(rng.integers(90, 170, (h // 8 + 1, w // 8 + 1, 3), dtype=np.uint8).astype(np.float32),
                            (0, 0), 1.5)
    base = cv2.resize(base, (w, h), interpolation=cv2.INTER_LINEAR)
    frames = []
    r = max(4, min(w, h) // 30)
    for i in range(count):
        img = base + np.float32(3.0) * rng.standard_normal(base.shape, dtype=np.float32)
        x = int(r + (w - 2 * r) * i / max(count - 1, 1))
        y = int(h / 2 + h / 4 * np.sin(i / 5.0))
        cv2.circle(img, (x, y), r, (30.0, 40.0, 200.0), -1, lineType=cv2.LINE_AA)
        frames.append(np.clip(img, 0, 255).astype(np.uint8))
    return frames, base.astype(np.uint8)


def motion_benchmark(n: int = 600, size: tuple[int, int] = (640, 480)) -> float:
    """Frames per second of :meth:`SettleDetector.update` on one core, on ``n`` synthetic frames of
    ``size`` (w, h) with sensor noise and a moving blob (frames made beforehand, not timed; no sleeps)."""
    frames, _ = _bench_frames(tuple(size), count=min(48, max(n, 2)))
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        det = SettleDetector(VisionConfig())
        for i in range(min(5, n)):  # warm-up
            det.update(frames[i % len(frames)], i / 30.0)
        det.reset()
        t0 = time.perf_counter()
        for i in range(n):
            det.update(frames[i % len(frames)], i / 30.0)
        dt = time.perf_counter() - t0
    finally:
        cv2.setNumThreads(threads)
    return n / dt if dt > 0 else float("inf")
