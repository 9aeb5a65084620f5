"""Shared helpers of the simulator's art (see :mod:`simulator.art`).

Conventions: a :class:`Canvas` is a BGR uint8 picture of a ``w_mm`` x ``h_mm`` rectangle at ``s`` px/mm;
pixel ``(u, v)`` covers mm ``((u + 0.5) / s, (v + 0.5) / s)``, so the continuous pixel coordinate of the
mm point ``(x, y)`` is ``(x * s - 0.5, y * s - 0.5)`` (OpenCV's drawing functions put integer coordinates
at pixel centres).  Every design decision (positions, sizes, colours, noise lattices) is made in mm from
seeded generators, so a picture looks the same at any resolution; only per-pixel print grain is drawn per
pixel, from its own generator.
"""

from __future__ import annotations

import functools
import hashlib
import math
from typing import Iterable, Sequence

import cv2
import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Polygon
from shapely.geometry.base import BaseGeometry

SHIFT = 4
ONE = 1 << SHIFT
AA = cv2.LINE_AA
NEUTRAL_BGR = (128, 128, 128)


# ------------------------------------------------------------------------------------ randomness


def rng_for(*parts: object) -> np.random.Generator:
    """A generator seeded by a stable hash of ``parts`` (Python's ``hash`` is salted per process)."""
    key = "\x1f".join(str(p) for p in parts).encode()
    return np.random.default_rng(int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little"))


def bgr(r: float, g: float, b: float) -> np.ndarray:
    """An RGB triple (as designers think) as a float32 BGR vector."""
    return np.array([b, g, r], np.float32)


def mix(a, b, t) -> np.ndarray:
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    return a + (b - a) * np.asarray(t, np.float32)


def smoothstep(e0: float, e1: float, x) -> np.ndarray:
    t = np.asarray(x, np.float32) - np.float32(e0)
    t *= np.float32(1.0 / (e1 - e0))
    np.clip(t, 0.0, 1.0, out=t)
    return t * t * (np.float32(3.0) - np.float32(2.0) * t)


# ----------------------------------------------------------------------------------------- noise


def lattice_noise(h: int, w: int, w_mm: float, h_mm: float, cell_x: float, cell_y: float,
                  rng: np.random.Generator) -> np.ndarray:
    """Smooth value noise (float32, roughly N(0, 1)) on an ``h`` x ``w`` picture of ``w_mm`` x ``h_mm``.

    A random lattice with cells of about ``cell_x`` x ``cell_y`` mm covering the rectangle exactly is
    resized to the picture: the lattice (and so the look) does not depend on the resolution.
    """
    gw = max(2, int(math.ceil(w_mm / cell_x)))
    gh = max(2, int(math.ceil(h_mm / cell_y)))
    g = rng.standard_normal((gh, gw), dtype=np.float32)
    # per axis: cubic when the lattice is coarser than the pixels, area averaging (as a camera) when finer
    if gw != w:
        g = cv2.resize(g, (w, gh), interpolation=cv2.INTER_AREA if gw > w else cv2.INTER_CUBIC)
    if gh != h:
        g = cv2.resize(g, (w, h), interpolation=cv2.INTER_AREA if gh > h else cv2.INTER_CUBIC)
    return g


def fbm(h: int, w: int, w_mm: float, h_mm: float, cell_mm: float, rng: np.random.Generator,
        octaves: int = 4, gain: float = 0.5, aspect: float = 1.0, min_cell_mm: float = 0.0) -> np.ndarray:
    """Fractal sum of :func:`lattice_noise`, normalised to unit standard deviation.

    ``aspect`` > 1 stretches the features along x.  Octaves are always drawn from ``rng`` (so the
    generator's state afterwards does not depend on the resolution) but octaves finer than
    ``min_cell_mm`` are skipped.
    """
    out = np.zeros((h, w), np.float32)
    # octaves with cells of >= 16 px are summed at a quarter of the resolution and resized once
    hc, wc = max(2, -(-h // 4)), max(2, -(-w // 4))
    coarse = np.zeros((hc, wc), np.float32) if (h > 64 and w > 64) else None
    px_x, px_y = w / w_mm, h / h_mm
    amp, total, cell = 1.0, 0.0, float(cell_mm)
    for _ in range(octaves):
        sub = rng_for(int(rng.integers(1 << 62)))
        if cell >= min_cell_mm:
            if coarse is not None and cell * aspect * px_x >= 16 and cell * px_y >= 16:
                coarse += np.float32(amp) * lattice_noise(hc, wc, w_mm, h_mm, cell * aspect, cell, sub)
            else:
                out += np.float32(amp) * lattice_noise(h, w, w_mm, h_mm, cell * aspect, cell, sub)
            total += amp * amp
        amp *= gain
        cell *= 0.5
    if coarse is not None and coarse.any():
        out += cv2.resize(coarse, (w, h), interpolation=cv2.INTER_CUBIC)
    return out / np.float32(math.sqrt(total) if total > 0 else 1.0)


@functools.lru_cache(maxsize=64)
def _normal_lut(sigma_x100: int) -> np.ndarray:
    """uint8 LUT: a uniform byte -> 128 + a normal deviate of sd ``sigma`` (clamped at 3.5 sd)."""
    from statistics import NormalDist

    nd = NormalDist()
    z = np.array([nd.inv_cdf((i + 0.5) / 256) for i in range(256)])
    return np.clip(np.round(128 + np.clip(z, -3.5, 3.5) * sigma_x100 / 100), 0, 255).astype(np.uint8)


def add_grain(img: np.ndarray, rng: np.random.Generator, sigma: float = 3.0, chroma: float = 0.35,
              blur_px: float = 0.0) -> np.ndarray:
    """Add print/sensor-like grain to a uint8 BGR picture, in place: a luminance part of sd ``sigma``
    shared by the channels plus independent per-channel (colour) noise of sd ``sigma * chroma``."""
    h, w = img.shape[:2]
    lum = np.frombuffer(rng.bytes(h * w), np.uint8).reshape(h, w)
    lum = cv2.LUT(lum, _normal_lut(int(round(sigma * 100))))
    if blur_px > 0:
        lum = cv2.GaussianBlur(lum, (0, 0), blur_px)
    out = img.astype(np.int16)
    out += lum[..., None]
    if chroma > 0:
        col = np.frombuffer(rng.bytes(h * w * 3), np.uint8).reshape(h, w, 3)
        col = cv2.LUT(col, _normal_lut(int(round(sigma * chroma * 100))))
        out += col
        out -= 256
    else:
        out -= 128
    np.clip(out, 0, 255, out=out)
    img[...] = out
    return img


def to_u8(f: np.ndarray) -> np.ndarray:
    return np.clip(f + 0.5, 0, 255).astype(np.uint8)


# ---------------------------------------------------------------------------------------- canvas


def rings_of(geom: BaseGeometry) -> list[np.ndarray]:
    """All rings (exteriors and holes) of a polygonal geometry, as (K, 2) arrays."""
    out = []
    if geom.is_empty:
        return out
    polys = geom.geoms if isinstance(geom, MultiPolygon) else [geom]
    for p in polys:
        if not isinstance(p, Polygon) or p.is_empty:
            continue
        out.append(np.asarray(p.exterior.coords)[:-1])
        out.extend(np.asarray(r.coords)[:-1] for r in p.interiors)
    return out


class Canvas:
    """A BGR uint8 picture of a mm rectangle, with anti-aliased sub-pixel drawing in mm."""

    def __init__(self, w_mm: float, h_mm: float, s: float, img: np.ndarray | None = None):
        self.w_mm, self.h_mm, self.s = float(w_mm), float(h_mm), float(s)
        self.w = max(1, int(round(self.w_mm * self.s)))
        self.h = max(1, int(round(self.h_mm * self.s)))
        self.img = np.zeros((self.h, self.w, 3), np.uint8) if img is None else img

    # -- coordinates
    def fixed(self, pts) -> np.ndarray:
        """mm points -> OpenCV fixed-point pixel coordinates (``SHIFT`` fractional bits)."""
        a = np.asarray(pts, np.float64) * self.s - 0.5
        return np.round(a * ONE).astype(np.int32)

    def box(self, x0: float, y0: float, x1: float, y1: float, pad_px: int = 2) -> tuple[int, int, int, int] | None:
        """Pixel box (u0, v0, u1, v1), clipped, covering the mm box; None if empty."""
        u0 = max(0, int(math.floor(x0 * self.s)) - pad_px)
        v0 = max(0, int(math.floor(y0 * self.s)) - pad_px)
        u1 = min(self.w, int(math.ceil(x1 * self.s)) + pad_px)
        v1 = min(self.h, int(math.ceil(y1 * self.s)) + pad_px)
        if u1 <= u0 or v1 <= v0:
            return None
        return u0, v0, u1, v1

    def centres(self, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """mm coordinates of the pixel centres of a box: (X (1, w), Y (h, 1)) float32, broadcastable."""
        u0, v0, u1, v1 = box
        xs = ((np.arange(u0, u1, dtype=np.float32) + 0.5) / np.float32(self.s))[None, :]
        ys = ((np.arange(v0, v1, dtype=np.float32) + 0.5) / np.float32(self.s))[:, None]
        return xs, ys

    # -- compositing
    def blend(self, box: tuple[int, int, int, int], alpha: np.ndarray, color) -> None:
        """img[box] = img * (1 - alpha) + color * alpha; ``color`` a BGR triple or an (h, w, 3) array.

        ``alpha`` is float (0..1) or uint8 (0..255).  Sparse masks (thin lines, rims, corners) only
        touch their non-zero pixels.
        """
        u0, v0, u1, v1 = box
        roi = self.img[v0:v1, u0:u1]
        a = np.asarray(alpha)
        scale = np.float32(1 / 255) if a.dtype == np.uint8 else np.float32(1)
        c = np.asarray(color, np.float32)
        if a.ndim == 2 and a.size > 4096:
            flat = a.reshape(-1)
            nz = np.flatnonzero(flat)
            if nz.size < 0.4 * flat.size:
                ys, xs = np.divmod(nz, a.shape[1])
                av = flat[nz].astype(np.float32) * scale
                cc = c if c.ndim == 1 else c[ys, xs]
                px = roi[ys, xs].astype(np.float32)
                px += (cc - px) * av[:, None]
                roi[ys, xs] = to_u8(px)
                return
        a = a.astype(np.float32) * scale if a.dtype == np.uint8 else a.astype(np.float32, copy=False)
        if a.ndim == 2:
            a = a[..., None]
        f = roi.astype(np.float32)
        f += (c - f) * a
        roi[...] = to_u8(f)

    def multiply(self, geom_or_rings, factor, alpha: float = 1.0) -> None:
        """Darken/tint the picture inside a geometry: img *= factor (scalar or BGR), anti-aliased."""
        box, m = self.mask_u8(geom_or_rings)
        if box is None:
            return
        u0, v0, u1, v1 = box
        roi = self.img[v0:v1, u0:u1]
        nz = np.flatnonzero(m.reshape(-1))
        if nz.size == 0:
            return
        ys, xs = np.divmod(nz, m.shape[1])
        a = m.reshape(-1)[nz].astype(np.float32) * np.float32(alpha / 255)
        f = np.asarray(factor, np.float32).reshape(-1)
        px = roi[ys, xs].astype(np.float32)
        px *= 1 + (f[None, :] - 1) * a[:, None]
        roi[ys, xs] = to_u8(px)

    def mask_u8(self, geom_or_rings, box=None) -> tuple[tuple[int, int, int, int] | None, np.ndarray | None]:
        """Anti-aliased coverage (uint8 0..255) of a polygonal geometry (or mm rings) in its box."""
        if isinstance(geom_or_rings, BaseGeometry):
            rings = rings_of(geom_or_rings)
        elif isinstance(geom_or_rings, np.ndarray) and geom_or_rings.ndim == 2:
            rings = [np.asarray(geom_or_rings, np.float64)]
        else:
            rings = [np.asarray(r, np.float64) for r in geom_or_rings]
        rings = [r for r in rings if len(r) >= 3]
        if not rings:
            return None, None
        if box is None:
            allp = np.concatenate(rings)
            box = self.box(allp[:, 0].min(), allp[:, 1].min(), allp[:, 0].max(), allp[:, 1].max())
            if box is None:
                return None, None
        return box, self._coverage(self._shrink(geom_or_rings, rings), rings, box)

    SS = 4  # supersampling factor of polygon fills

    def _shrink(self, geom_or_rings, rings: list[np.ndarray]) -> list[np.ndarray]:
        """The rings moved inwards by half a sub-pixel: OpenCV's plain fill takes every sub-pixel whose
        centre is within half a sub-pixel of the shape (spans are inclusive at both ends)."""
        d = 0.5 / (self.SS * self.s)
        try:
            if isinstance(geom_or_rings, BaseGeometry):
                g = geom_or_rings
            else:
                g = Polygon(rings[0])
                for r in rings[1:]:
                    g = g.symmetric_difference(Polygon(r))
            if not g.is_valid:
                return rings
            out = rings_of(g.buffer(-d, join_style="mitre", mitre_limit=5.0))
            return [r for r in out if len(r) >= 3]
        except (shapely.errors.GEOSException, ValueError):  # pragma: no cover - degenerate input
            return rings

    def _coverage(self, rings: list[np.ndarray], outline: list[np.ndarray],
                  box: tuple[int, int, int, int]) -> np.ndarray:
        """Exact-ish pixel coverage by 4x4 supersampling (OpenCV's LINE_AA fill widens shapes by ~0.7 px
        per side, which would make thin lines thicker at low resolutions).  Large boxes are done tile by
        tile: only tiles crossed by an edge are supersampled, the others take the plain fill."""
        u0, v0, u1, v1 = box
        h, w = v1 - v0, u1 - u0
        if not rings:
            return np.zeros((h, w), np.uint8)
        if h * w <= 256 * 256:
            return self._supersample(rings, u0, v0, u1, v1)
        off = np.array([u0, v0], np.int32) * ONE
        pts = [self.fixed(r) - off for r in outline]
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, pts, 255, cv2.LINE_8, SHIFT)
        edges = np.zeros((h, w), np.uint8)
        cv2.polylines(edges, pts, True, 255, 3, cv2.LINE_8, SHIFT)
        T = 256
        for ty in range(0, h, T):
            for tx in range(0, w, T):
                if edges[ty:ty + T, tx:tx + T].any():
                    m[ty:ty + T, tx:tx + T] = self._supersample(rings, u0 + tx, v0 + ty, min(u1, u0 + tx + T),
                                                                min(v1, v0 + ty + T))
        return m

    def _supersample(self, rings: list[np.ndarray], u0: int, v0: int, u1: int, v1: int) -> np.ndarray:
        k = self.SS
        big = np.zeros(((v1 - v0) * k, (u1 - u0) * k), np.uint8)
        # sub-pixel j of the k x k grid has its centre at mm (j + 0.5) / (k s): continuous sub-pixel
        # coordinate x * k * s - 0.5; a non-AA fill takes the sub-pixels whose centres are inside
        pts = [np.round((np.asarray(r, np.float64) * (k * self.s) - 0.5 - np.array([u0, v0]) * k) * ONE)
               .astype(np.int32) for r in rings]
        cv2.fillPoly(big, pts, 255, cv2.LINE_8, SHIFT)
        return cv2.resize(big, (u1 - u0, v1 - v0), interpolation=cv2.INTER_AREA)

    def mask(self, geom_or_rings, box=None) -> tuple[tuple[int, int, int, int] | None, np.ndarray | None]:
        """Anti-aliased coverage (float32 0..1) of a polygonal geometry (or list of mm rings) in its box."""
        box, m = self.mask_u8(geom_or_rings, box)
        if box is None:
            return None, None
        return box, m.astype(np.float32) * np.float32(1 / 255)

    def fill(self, geom_or_rings, color, alpha: float = 1.0) -> None:
        box, m = self.mask_u8(geom_or_rings)
        if box is None:
            return
        if alpha >= 1.0:
            self.blend(box, m, color)
        else:
            self.blend(box, (m.astype(np.float32) * np.float32(alpha / 255)), color)

    def fill_fast(self, rings: Sequence[np.ndarray], color) -> None:
        """Opaque anti-aliased polygon drawn straight onto the picture (many small shapes)."""
        cv2.fillPoly(self.img, [self.fixed(r) for r in rings], tuple(float(c) for c in color), AA, SHIFT)

    def circle_fast(self, cx: float, cy: float, r: float, color, thickness_mm: float = -1) -> None:
        """Opaque anti-aliased circle drawn straight onto the picture (many small shapes)."""
        c = self.fixed([(cx, cy)])[0]
        t = -1 if thickness_mm < 0 else max(1, int(round(thickness_mm * self.s)))
        cv2.circle(self.img, (int(c[0]), int(c[1])), max(1, int(round(r * self.s * ONE))),
                   tuple(float(v) for v in color), t, AA, SHIFT)

    def stroke(self, pts, width_mm: float, color, alpha: float = 1.0, closed: bool = False,
               cap: str = "flat") -> None:
        """A line of exact width (mm) along mm points, as a filled polygon."""
        p = np.asarray(pts, np.float64)
        if closed:
            p = np.vstack([p, p[:1]])
        g = LineString(p).buffer(width_mm / 2, cap_style=cap, join_style="mitre", mitre_limit=3.0)
        self.fill(g, color, alpha)

    def disc(self, cx: float, cy: float, r: float, color, alpha: float = 1.0, soft_mm: float = 0.0) -> None:
        """A filled circle with analytic anti-aliasing; ``soft_mm`` > 0 gives a blurred edge."""
        pad = soft_mm * 2 + 1 / self.s
        box = self.box(cx - r - pad, cy - r - pad, cx + r + pad, cy + r + pad)
        if box is None:
            return
        X, Y = self.centres(box)
        d = np.sqrt((X - cx) ** 2 + (Y - cy) ** 2)
        if soft_mm > 0:
            a = smoothstep(r + soft_mm, r - soft_mm, d)
        else:
            a = np.clip((r - d) * self.s + 0.5, 0, 1)
        self.blend(box, a * np.float32(alpha), color)

    def glow(self, cx: float, cy: float, r: float, color, strength: float = 1.0, falloff: float = 2.0) -> None:
        """Additive-looking radial glow (screen blend) of radius ``r`` mm."""
        box = self.box(cx - r, cy - r, cx + r, cy + r)
        if box is None:
            return
        X, Y = self.centres(box)
        d = np.sqrt((X - cx) ** 2 + (Y - cy) ** 2) / np.float32(r)
        a = np.clip(1 - d, 0, 1) ** falloff * np.float32(strength)
        u0, v0, u1, v1 = box
        roi = self.img[v0:v1, u0:u1].astype(np.float32)
        c = np.asarray(color, np.float32)
        roi = 255 - (255 - roi) * (1 - a[..., None] * c / 255)
        self.img[v0:v1, u0:u1] = to_u8(roi)

    # -- dotted lines
    def dotted_outline(self, geom: BaseGeometry, color, dot_mm: float = 1.2, pitch_mm: float = 2.5,
                       corner_deg: float = 25.0) -> np.ndarray:
        """Dots of diameter ``dot_mm`` whose outer edge runs exactly on the boundary of ``geom``.

        The dots lie inside the geometry (for holes: outside the hole, i.e. still inside the geometry).
        Corners sharper than ``corner_deg`` get a dot.  Returns the dot centres (N, 2) in mm.
        """
        r = dot_mm / 2
        centre_line = geom.buffer(-r, quad_segs=32)
        centres = []
        for ring in rings_of(centre_line):
            centres.append(dot_positions(ring, pitch_mm, corner_deg))
        if not centres:
            return np.zeros((0, 2))
        c = np.concatenate(centres)
        self.stamp_discs(c, r, color)
        return c

    def stamp_discs(self, centres_mm: np.ndarray, r_mm: float, color, alpha: float = 1.0) -> None:
        """Many equal discs with exact analytic anti-aliasing (coverage of each pixel centre)."""
        if len(centres_mm) == 0:
            return
        s = self.s
        rp = r_mm * s
        k = int(math.ceil(rp + 1.5))
        cp = np.asarray(centres_mm, np.float64) * s - 0.5  # continuous px, centres at integers
        base = np.floor(cp).astype(np.int64)
        off = np.arange(-k, k + 2)
        oy, ox = np.meshgrid(off, off, indexing="ij")
        xx = base[:, 0, None, None] + ox[None]
        yy = base[:, 1, None, None] + oy[None]
        d = np.sqrt((xx - cp[:, 0, None, None]) ** 2 + (yy - cp[:, 1, None, None]) ** 2)
        cov = np.clip(rp - d + 0.5, 0, 1).astype(np.float32)
        ok = (xx >= 0) & (xx < self.w) & (yy >= 0) & (yy < self.h) & (cov > 0)
        u0, v0 = int(xx[ok].min()) if ok.any() else 0, int(yy[ok].min()) if ok.any() else 0
        if not ok.any():
            return
        u1, v1 = int(xx[ok].max()) + 1, int(yy[ok].max()) + 1
        a = np.zeros((v1 - v0, u1 - u0), np.float32)
        np.maximum.at(a, (yy[ok] - v0, xx[ok] - u0), cov[ok])
        self.blend((u0, v0, u1, v1), a * np.float32(alpha), color)

    # -- text
    def text(self, text: str, x_mm: float, y_mm: float, size_mm: float, color, weight: int = 600,
             anchor: str = "center", rotate180: bool = False, alpha: float = 1.0,
             shadow=None, shadow_mm: float = 0.0, spacing: float = 0.0) -> None:
        """Text of em size ``size_mm``; (x, y) is the anchor point: centre of the cap-height box
        (``anchor='center'``) or its left end (``'left'``)."""
        size_px = size_mm * self.s
        if size_px < 2:
            return
        m = text_mask(text, max(2, int(round(size_px))), weight, spacing)
        if rotate180:
            m = m[::-1, ::-1]
        mh, mw = m.shape
        cx, cy = x_mm * self.s, y_mm * self.s
        if anchor == "center":
            u0, v0 = int(round(cx - mw / 2)), int(round(cy - mh / 2))
        else:
            u0 = int(round(cx)) if not rotate180 else int(round(cx - mw))
            v0 = int(round(cy - mh / 2))
        a = m.astype(np.float32) / 255
        if shadow is not None and shadow_mm > 0:
            sp = max(1.0, shadow_mm * self.s)
            pad = int(math.ceil(sp * 3))
            sa = cv2.GaussianBlur(np.pad(a, pad), (0, 0), sp)
            self._paste(sa * np.float32(min(1.0, alpha * 1.6)), u0 - pad, v0 - pad, shadow)
        self._paste(a * np.float32(alpha), u0, v0, color)

    def _paste(self, a: np.ndarray, u0: int, v0: int, color) -> None:
        h, w = a.shape
        cu0, cv0 = max(0, u0), max(0, v0)
        cu1, cv1 = min(self.w, u0 + w), min(self.h, v0 + h)
        if cu1 <= cu0 or cv1 <= cv0:
            return
        self.blend((cu0, cv0, cu1, cv1), a[cv0 - v0:cv1 - v0, cu0 - u0:cu1 - u0], color)


def dot_positions(ring: np.ndarray, pitch: float, corner_deg: float) -> np.ndarray:
    """Evenly spaced points along a closed ring (K, 2), with a point at every sharp corner."""
    p = np.asarray(ring, np.float64)
    n = len(p)
    if n < 3:
        return np.zeros((0, 2))
    d_in = p - np.roll(p, 1, axis=0)
    d_out = np.roll(p, -1, axis=0) - p
    a_in = np.arctan2(d_in[:, 1], d_in[:, 0])
    a_out = np.arctan2(d_out[:, 1], d_out[:, 0])
    turn = np.abs((a_out - a_in + np.pi) % (2 * np.pi) - np.pi)
    corners = np.flatnonzero(turn > math.radians(corner_deg))
    if len(corners) == 0:
        corners = np.array([0])
        single = True
    else:
        single = False
    out = []
    for i, c0 in enumerate(corners):
        c1 = corners[(i + 1) % len(corners)]
        idx = np.arange(c0, c0 + ((c1 - c0) % n or n) + 1) % n
        seg = p[idx]
        seglen = np.hypot(*np.diff(seg, axis=0).T)
        cum = np.concatenate([[0.0], np.cumsum(seglen)])
        L = cum[-1]
        if L <= 1e-9:
            continue
        k = max(3 if single else 1, int(round(L / pitch)))
        t = np.arange(k) * (L / k)  # excludes the end corner (it starts the next piece)
        out.append(np.column_stack([np.interp(t, cum, seg[:, 0]), np.interp(t, cum, seg[:, 1])]))
    return np.concatenate(out) if out else np.zeros((0, 2))


@functools.lru_cache(maxsize=512)
def text_mask(text: str, size_px: int, weight: int = 600, spacing: float = 0.0) -> np.ndarray:
    """Coverage mask (uint8) of a text line: width = advance, height = cap height box (+ descent room)."""
    asc, desc = int(math.ceil(size_px * 1.0)), int(math.ceil(size_px * 0.3))
    pad = int(math.ceil(size_px * 0.1)) + 1
    chars = [text] if spacing <= 0 else list(text)
    width = int(size_px * (0.75 + spacing) * len(text)) + 4 * pad
    m = np.zeros((asc + desc + 2 * pad, width), np.uint8)
    x = pad
    if hasattr(cv2, "FontFace"):
        ff = _font()
        for ch in chars:
            (x, _), m = cv2.putText(m, ch, (x, pad + asc), 255, ff, size_px, weight)
            x += int(round(spacing * size_px))
    else:  # pragma: no cover - OpenCV < 5
        scale = cv2.getFontScaleFromHeight(cv2.FONT_HERSHEY_DUPLEX, int(size_px * 0.72), 1)
        th = max(1, int(round(size_px * weight / 6000)))
        for ch in chars:
            (tw, _), _ = cv2.getTextSize(ch, cv2.FONT_HERSHEY_DUPLEX, scale, th)
            cv2.putText(m, ch, (x, pad + asc), cv2.FONT_HERSHEY_DUPLEX, scale, 255, th, AA)
            x += tw + int(round(spacing * size_px))
    cols = np.flatnonzero(m.max(axis=0))
    rows_top = pad + asc - int(round(size_px * 0.74))  # cap height of the built-in sans font
    rows_bot = pad + asc + 1
    if len(cols) == 0:
        return np.zeros((1, 1), np.uint8)
    # keep descenders but centre on the cap box: crop symmetric rows around the cap box
    half = max(rows_bot - (rows_top + rows_bot) // 2, (pad + asc + desc) - (rows_top + rows_bot) // 2)
    mid = (rows_top + rows_bot) // 2
    r0, r1 = max(0, mid - half), min(m.shape[0], mid + half + 1)
    return np.ascontiguousarray(m[r0:r1, cols[0]:cols[-1] + 1])


@functools.lru_cache(maxsize=1)
def _font():
    return cv2.FontFace("sans")


@functools.lru_cache(maxsize=256)
def text_width_mm(text: str, size_mm: float, weight: int = 600, spacing: float = 0.0) -> float:
    """Width in mm of a text line at em size ``size_mm`` (measured at a fixed reference resolution)."""
    ref = 200
    return text_mask(text, ref, weight, spacing).shape[1] * size_mm / ref


# ------------------------------------------------------------------------------------ shapes


def star_polygon(cx: float, cy: float, r_out: float, r_in: float | None = None, points: int = 5,
                 phase_deg: float = -90.0) -> np.ndarray:
    r_in = r_out * 0.45 if r_in is None else r_in
    a = np.radians(phase_deg) + np.arange(2 * points) * np.pi / points
    rr = np.where(np.arange(2 * points) % 2 == 0, r_out, r_in)
    return np.column_stack([cx + rr * np.cos(a), cy + rr * np.sin(a)])


def blob_polygon(cx: float, cy: float, r: float, rng: np.random.Generator, n: int = 9,
                 rough: float = 0.3, angle: float | None = None, stretch: float = 1.0) -> np.ndarray:
    """An irregular rock-like polygon."""
    a = np.sort(rng.uniform(0, 2 * np.pi, n))
    a += np.linspace(0, 2 * np.pi, n, endpoint=False) - a  # keep roughly even, jitter below
    a += rng.uniform(-0.25, 0.25, n) * (2 * np.pi / n)
    rr = r * (1 - rough + rough * rng.uniform(0, 1, n) * 1.4)
    x = rr * np.cos(a) * stretch
    y = rr * np.sin(a)
    th = rng.uniform(0, np.pi) if angle is None else angle
    c, s_ = math.cos(th), math.sin(th)
    return np.column_stack([cx + c * x - s_ * y, cy + s_ * x + c * y])


def regular_polygon(cx: float, cy: float, r: float, n: int, phase_deg: float = 0.0) -> np.ndarray:
    a = np.radians(phase_deg) + np.arange(n) * 2 * np.pi / n
    return np.column_stack([cx + r * np.cos(a), cy + r * np.sin(a)])


def points_in(geom: BaseGeometry, n: int, rng: np.random.Generator) -> np.ndarray:
    """Up to ``n`` uniform random points inside ``geom`` (rejection sampling)."""
    if geom.is_empty or n <= 0:
        return np.zeros((0, 2))
    x0, y0, x1, y1 = geom.bounds
    frac = max(geom.area / max((x1 - x0) * (y1 - y0), 1e-9), 0.02)
    m = int(n / frac * 1.3) + 16
    pts = np.column_stack([rng.uniform(x0, x1, m), rng.uniform(y0, y1, m)])
    ok = shapely.contains_xy(geom, pts[:, 0], pts[:, 1])
    return pts[ok][:n]


def iter_polys(geom: BaseGeometry) -> Iterable[Polygon]:
    if isinstance(geom, Polygon):
        yield geom
    elif hasattr(geom, "geoms"):
        for g in geom.geoms:
            yield from iter_polys(g)
