"""Materials: wood, laminate, cloth and neoprene (tables, the PitRush board, the ASF mat).

All functions return float32 BGR pictures (0..255) of a ``w_mm`` x ``h_mm`` rectangle at ``s`` px/mm;
features are defined in mm (see :mod:`simulator.art_common`).
"""

from __future__ import annotations


import cv2
import numpy as np

from .art_common import bgr, fbm, lattice_noise, rng_for, smoothstep

# light and dark tone of the wood, growth-ring spacing (mm), ring contrast, pores, fibre strength
WOODS = {
    "oak": dict(light=bgr(204, 162, 110), dark=bgr(146, 102, 60), spacing=4.6, contrast=0.55, pores=0.55,
                fibre=0.22, figure=0.35),
    "walnut": dict(light=bgr(124, 82, 54), dark=bgr(66, 40, 26), spacing=5.0, contrast=0.7, pores=0.3,
                   fibre=0.25, figure=0.5),
    "birch": dict(light=bgr(226, 192, 142), dark=bgr(196, 152, 100), spacing=3.2, contrast=0.42, pores=0.08,
                  fibre=0.16, figure=0.25),
}


def _resize(img: np.ndarray, w: int, h: int) -> np.ndarray:
    if img.shape[1] == w and img.shape[0] == h:
        return img
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_CUBIC)


def wood(w_mm: float, h_mm: float, s: float, rng: np.random.Generator, kind: str = "oak",
         work_ppm: float = 3.0, tone: float = 0.0) -> np.ndarray:
    """Flat-sawn wood (uint8 BGR) with the grain along x: warped growth rings, fibres, pores, colour drift.

    The figure, fibres and pores are computed at ``work_ppm`` px/mm at most and resized; finer fibre
    streaks are added when drawing at a higher resolution.  ``tone`` shifts the board's overall shade
    (-1 lighter .. +1 darker).
    """
    p = WOODS[kind]
    w, h = max(1, int(round(w_mm * s))), max(1, int(round(h_mm * s)))
    ws = min(s, work_ppm)
    ww, wh = max(2, int(round(w_mm * ws))), max(2, int(round(h_mm * ws)))
    Y = ((np.arange(wh, dtype=np.float32) + 0.5) / np.float32(ws))[:, None]
    # the growth rings: y bent by slow, x-elongated noise; a cathedral-like figure from a bigger bend
    warp = fbm(wh, ww, w_mm, h_mm, 90.0, rng, octaves=4, aspect=6.0) * np.float32(2.5 + 3.0 * p["figure"])
    warp += fbm(wh, ww, w_mm, h_mm, 10.0, rng, octaves=3, aspect=8.0) * np.float32(0.35)
    bend = lattice_noise(wh, ww, w_mm, h_mm, 260.0, 420.0, rng) * np.float32(30.0 * p["figure"])
    G = Y + warp + bend
    sp = p["spacing"] * float(rng.uniform(0.85, 1.2))
    # irregular ring widths: the phase drifts across the board and along the rings
    phase = G / np.float32(sp) + fbm(wh, ww, w_mm, h_mm, 45.0, rng, octaves=4, aspect=5.0) * np.float32(1.3)
    t = phase - np.floor(phase)
    edge0 = 0.42 + 0.18 * smoothstep(-1.5, 1.5, lattice_noise(wh, ww, w_mm, h_mm, 50.0, 8.0, rng))
    late = smoothstep(edge0, edge0 + 0.3, t) * (1 - smoothstep(0.88, 1.0, t))  # latewood, sharp at its end
    fine = G / np.float32(sp * 0.31) + fbm(wh, ww, w_mm, h_mm, 25.0, rng, octaves=3, aspect=6.0) * np.float32(1.5)
    fine = 0.5 + 0.5 * np.sin(fine * np.float32(2 * np.pi))
    width_var = 0.45 + 0.55 * smoothstep(-1.2, 1.2, lattice_noise(wh, ww, w_mm, h_mm, 80.0, 14.0, rng))
    drift = fbm(wh, ww, w_mm, h_mm, 120.0, rng, octaves=3, aspect=3.0)
    f = np.clip(p["contrast"] * late * width_var + 0.08 * fine + 0.12 * drift + 0.2 + 0.15 * tone, 0, 1)
    # fibres and pores (at the working resolution; finer detail is added below when drawing larger)
    fib = fbm(wh, ww, w_mm, h_mm, 0.9, rng, octaves=3, aspect=18.0, gain=0.6, min_cell_mm=0.6 / ws)
    f += np.float32(p["fibre"] * 0.45) * fib
    if p["pores"] > 0:
        pores = lattice_noise(wh, ww, w_mm, h_mm, 1.6, 0.28, rng)
        f += np.float32(p["pores"] * 0.35) * smoothstep(1.3, 2.4, pores)
    f = _resize(f.astype(np.float32), w, h)
    fine_rng = rng_for(int(rng.integers(1 << 62)))  # drawn always: the design must not depend on s
    if s > ws * 1.3:
        f += np.float32(p["fibre"] * 0.25) * lattice_noise(h, w, w_mm, h_mm, 5.0, 0.25, fine_rng)
    # colour: light..dark along f, through a lookup table (fast at any size); uint8 BGR
    f8 = np.clip(f * np.float32(255 / 1.15) + np.float32(0.5), 0, 255).astype(np.uint8)
    levels = np.arange(256, dtype=np.float32)[:, None] * np.float32(1.15 / 255)
    lut = np.clip(p["light"][None, :] + (p["dark"] - p["light"])[None, :] * levels + 0.5, 0, 255)
    return cv2.LUT(cv2.merge([f8, f8, f8]), lut.astype(np.uint8).reshape(256, 1, 3))


def planks(w_mm: float, h_mm: float, s: float, rng: np.random.Generator, kind: str = "oak",
           width_mm: float = 150.0) -> np.ndarray:
    """A plank floor / table top: boards ~``width_mm`` wide along x, staggered butt joints, seams."""
    w, h = max(1, int(round(w_mm * s))), max(1, int(round(h_mm * s)))
    out = np.zeros((h, w, 3), np.float32)
    y = -float(rng.uniform(0, width_mm))
    edges = []
    while y < h_mm:
        bw = width_mm * float(rng.uniform(0.93, 1.07))
        y0, y1 = y, y + bw
        x = -float(rng.uniform(0, 1400))
        while x < w_mm:
            L = float(rng.uniform(900, 2200))
            x0, x1 = x, x + L
            u0, u1 = max(0, int(round(x0 * s))), min(w, int(round(x1 * s)))
            v0, v1 = max(0, int(round(y0 * s))), min(h, int(round(y1 * s)))
            if u1 > u0 and v1 > v0:
                sub = rng_for(int(rng.integers(1 << 62)))
                piece = wood((u1 - u0) / s, (v1 - v0) / s, s, sub, kind,
                             tone=float(sub.uniform(-0.6, 0.6))).astype(np.float32)
                tint = np.float32(1.0 + float(sub.uniform(-0.06, 0.06)))
                out[v0:v1, u0:u1] = piece[: v1 - v0, : u1 - u0] * tint
                if x0 > 0:
                    edges.append(("v", x0, y0, y1))
            x = x1
        if y1 < h_mm:
            edges.append(("h", y1, 0.0, w_mm))
        y = y1
    # seams: a thin dark gap with a soft shadow beside it
    seam = np.ones((h, w), np.float32)
    for kind_, a, b0, b1 in edges:
        if kind_ == "h":
            v = a * s - 0.5
            vs = np.arange(max(0, int(v - 4 * s)), min(h, int(v + 4 * s) + 1))
            d = np.abs(vs - v) / s
            prof = 1 - 0.62 * smoothstep(0.6, 0.15, d) - 0.08 * smoothstep(2.0, 0.3, d)
            seam[vs, :] = np.minimum(seam[vs, :], prof[:, None].astype(np.float32))
        else:
            u = a * s - 0.5
            us = np.arange(max(0, int(u - 3 * s)), min(w, int(u + 3 * s) + 1))
            d = np.abs(us - u) / s
            prof = 1 - 0.5 * smoothstep(0.5, 0.1, d)
            v0, v1 = max(0, int(b0 * s)), min(h, int(b1 * s))
            seam[v0:v1, us] = np.minimum(seam[v0:v1, us], prof[None, :].astype(np.float32))
    out *= seam[..., None]
    # varnish: a faint large-scale sheen
    sheen = fbm(h, w, w_mm, h_mm, 400.0, rng, octaves=2)
    out *= (1 + 0.035 * sheen)[..., None]
    return out


def laminate(w_mm: float, h_mm: float, s: float, rng: np.random.Generator) -> np.ndarray:
    """White laminate: near white with faint mottling and a fine stipple."""
    w, h = max(1, int(round(w_mm * s))), max(1, int(round(h_mm * s)))
    base = bgr(234, 234, 229)
    mott = fbm(h, w, w_mm, h_mm, 60.0, rng, octaves=4)
    stip = fbm(h, w, w_mm, h_mm, 1.2, rng, octaves=2)
    lum = 1 + 0.012 * mott + 0.008 * stip
    img = base[None, None, :] * lum[..., None]
    # sparse tiny specks typical of a printed laminate pattern
    spk = lattice_noise(h, w, w_mm, h_mm, 0.8, 0.8, rng)
    img *= (1 - 0.05 * smoothstep(2.2, 3.0, spk))[..., None]
    return img


def cloth(w_mm: float, h_mm: float, s: float, rng: np.random.Generator, color, weave: float = 1.0,
          fuzz: float = 1.0) -> np.ndarray:
    """Woven cloth or felt: fine weave of warp and weft threads, fibre fuzz and mottling."""
    w, h = max(1, int(round(w_mm * s))), max(1, int(round(h_mm * s)))
    col = np.asarray(color, np.float32)
    warp = lattice_noise(h, w, w_mm, h_mm, 3.5, 0.45, rng)
    weft = lattice_noise(h, w, w_mm, h_mm, 0.45, 3.5, rng)
    fibres = lattice_noise(h, w, w_mm, h_mm, 0.35, 0.35, rng)
    mott = fbm(h, w, w_mm, h_mm, 80.0, rng, octaves=4)
    pile = fbm(h, w, w_mm, h_mm, 6.0, rng, octaves=3)
    lum = (1 + 0.045 * weave * (warp + weft) * 0.7 + 0.05 * fuzz * fibres + 0.03 * mott + 0.025 * pile * fuzz)
    return col[None, None, :] * lum[..., None]


def neoprene(w_mm: float, h_mm: float, s: float, rng: np.random.Generator, color=None) -> np.ndarray:
    """A play mat's fabric top: very fine knit noise, a little mottling."""
    w, h = max(1, int(round(w_mm * s))), max(1, int(round(h_mm * s)))
    col = bgr(30, 32, 38) if color is None else np.asarray(color, np.float32)
    knit = lattice_noise(h, w, w_mm, h_mm, 0.5, 0.35, rng)
    mott = fbm(h, w, w_mm, h_mm, 90.0, rng, octaves=3)
    lum = 1 + 0.07 * knit + 0.04 * mott
    return col[None, None, :] * lum[..., None]


def table(width_px: int, height_px: int, s: float, style: str, seed: int = 0) -> np.ndarray:
    """Float32 BGR table top of exactly (height_px, width_px)."""
    w_mm, h_mm = width_px / s, height_px / s
    rng = rng_for("table", style, seed)
    if style in ("oak", "walnut"):
        img = planks(w_mm, h_mm, s, rng, style, 150.0)
    elif style == "white":
        img = laminate(w_mm, h_mm, s, rng)
    elif style == "green_felt":
        img = cloth(w_mm, h_mm, s, rng, bgr(34, 104, 58), weave=0.4, fuzz=1.6)
    elif style == "grey_cloth":
        img = cloth(w_mm, h_mm, s, rng, bgr(118, 119, 116), weave=1.4, fuzz=0.8)
    else:
        raise ValueError(f"unknown table style '{style}' (oak, walnut, white, green_felt, grey_cloth)")
    if img.shape[:2] != (height_px, width_px):
        img = cv2.resize(img, (width_px, height_px), interpolation=cv2.INTER_LINEAR)
    return img


__all__ = ["WOODS", "wood", "planks", "laminate", "cloth", "neoprene", "table"]
