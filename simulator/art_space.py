"""Space-art building blocks: nebula backgrounds, star fields, shaded planets and moons, rocks.

Used by the Pitch Fleet tiles, the Galaktico sectors and the card faces (see :mod:`simulator.art`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import shapely
from shapely.geometry.base import BaseGeometry

from .art_common import Canvas, bgr, blob_polygon, fbm, lattice_noise, mix, points_in, rng_for, smoothstep, to_u8

TEX_H, TEX_W = 320, 640  # equirectangular planet textures (fixed: the look does not depend on px/mm)


# ------------------------------------------------------------------------------------ background


def nebula(cv: Canvas, rng: np.random.Generator, c1, c2, base=None, strength: float = 1.0,
           dust: float = 0.5, work_ppm: float = 2.0) -> np.ndarray:
    """A float32 BGR space background: deep blue-black with two coloured nebula clouds and dust lanes.

    The clouds have no detail finer than ~2 mm, so they are computed at ``work_ppm`` px/mm at most and
    resized (fast at any resolution, and the same look at every resolution).
    """
    W, H = cv.w_mm, cv.h_mm
    ws = min(cv.s, work_ppm)
    w, h = max(2, int(round(W * ws))), max(2, int(round(H * ws)))
    base = bgr(5, 7, 18) if base is None else np.asarray(base, np.float32)
    n1 = fbm(h, w, W, H, 90.0, rng, octaves=6, gain=0.55)
    n2 = fbm(h, w, W, H, 60.0, rng, octaves=6, gain=0.55)
    n3 = fbm(h, w, W, H, 16.0, rng, octaves=4, gain=0.6)
    n4 = fbm(h, w, W, H, 40.0, rng, octaves=5, gain=0.6)
    grad = lattice_noise(h, w, W, H, W * 0.9, H * 0.9, rng)  # large-scale brightness gradient
    a1 = smoothstep(-0.4, 2.2, n1 + 0.35 * n3 + 0.3 * grad) * np.float32(0.75 * strength)
    a2 = smoothstep(0.0, 2.4, n2 + 0.3 * n3 - 0.2 * grad) * np.float32(0.6 * strength)
    core = smoothstep(1.2, 2.6, n1 + 0.5 * n3) * np.float32(0.35 * strength)  # bright filaments
    img = np.empty((h, w, 3), np.float32)
    img[...] = base
    img += a1[..., None] * np.asarray(c1, np.float32)
    img += a2[..., None] * np.asarray(c2, np.float32)
    img += core[..., None] * (np.asarray(c1, np.float32) * 0.5 + 40)
    lane = 1 - np.float32(dust) * smoothstep(0.5, 1.6, n4 - 0.4 * n3)
    img *= lane[..., None]
    if (w, h) != (cv.w, cv.h):
        img = cv2.resize(img, (cv.w, cv.h), interpolation=cv2.INTER_CUBIC)
    return img


def star_field(cv: Canvas, rng: np.random.Generator, density: float = 0.035, exclude: BaseGeometry | None = None,
               bright: int = 8, max_r: float = 0.32, glow_scale: float = 1.0, tint_rng: float = 1.0,
               exclude_bright: BaseGeometry | None = None) -> None:
    """Stars: many faint points and a few bright ones with glow and spikes (drawn onto ``cv.img``).

    ``exclude`` (mm geometry) keeps stars away from e.g. dotted lines and text.
    """
    area = cv.w_mm * cv.h_mm
    n = int(area * density)
    x = rng.uniform(0, cv.w_mm, n)
    y = rng.uniform(0, cv.h_mm, n)
    u = rng.uniform(0, 1, n)
    r = 0.09 + (max_r - 0.09) * u ** 4
    lum = 60 + 195 * rng.uniform(0, 1, n) ** 2.2
    temp = rng.uniform(-1, 1, n) * tint_rng
    col = np.column_stack([lum * (1 + 0.18 * np.maximum(temp, 0)), lum * (1 - 0.03 * np.abs(temp)),
                           lum * (1 + 0.22 * np.maximum(-temp, 0))])  # BGR: blue-ish or yellow-ish
    bx = rng.uniform(0, cv.w_mm, bright)
    by = rng.uniform(0, cv.h_mm, bright)
    br = rng.uniform(0.35, 0.6, bright)
    bt = rng.uniform(-1, 1, bright)
    spike = rng.uniform(2.5, 6.0, bright)
    ang = rng.uniform(0, np.pi / 2, bright)
    if exclude is not None and not exclude.is_empty:
        ok = ~shapely.contains_xy(exclude, x, y)
        x, y, r, col = x[ok], y[ok], r[ok], col[ok]
    eb = exclude_bright if exclude_bright is not None else (exclude.buffer(6.0) if exclude is not None else None)
    if eb is not None and not eb.is_empty:
        okb = ~shapely.contains_xy(eb, bx, by)
        bx, by, br, bt, spike, ang = bx[okb], by[okb], br[okb], bt[okb], spike[okb], ang[okb]
    add_points(cv, np.column_stack([x, y]), r, col)
    for i in range(len(bx)):
        c = bgr(255, 235, 200) if bt[i] > 0 else bgr(200, 220, 255)
        cv.glow(bx[i], by[i], 5.0 * glow_scale * br[i] / 0.5, c * 0.55, strength=0.9, falloff=2.5)
        for k in range(2):
            a = ang[i] + k * np.pi / 2
            d = np.array([math.cos(a), math.sin(a)]) * spike[i]
            cv.stroke([(bx[i] - d[0], by[i] - d[1]), (bx[i] + d[0], by[i] + d[1])], 0.18, c, alpha=0.45,
                      cap="round")
        cv.disc(bx[i], by[i], br[i], mix(c, (255, 255, 255), 0.6), soft_mm=0.12)


def add_points(cv: Canvas, centres: np.ndarray, radii: np.ndarray, colors: np.ndarray) -> None:
    """Additive tiny discs (stars, sparks) with analytic coverage; per-point radius and BGR colour."""
    if len(centres) == 0:
        return
    s = cv.s
    rp = np.asarray(radii, np.float64) * s
    k = int(math.ceil(rp.max() + 1.5))
    cp = np.asarray(centres, np.float64) * s - 0.5
    base = np.floor(cp).astype(np.int64)
    off = np.arange(-k, k + 2)
    oy, ox = np.meshgrid(off, off, indexing="ij")
    xx = base[:, 0, None, None] + ox[None]
    yy = base[:, 1, None, None] + oy[None]
    d = np.sqrt((xx - cp[:, 0, None, None]) ** 2 + (yy - cp[:, 1, None, None]) ** 2)
    # coverage of a disc, but never below the energy of a sub-pixel disc (area / pixel area)
    cov = np.clip(rp[:, None, None] - d + 0.5, 0, 1)
    small = rp < 0.7
    if small.any():
        e = np.pi * rp[small] ** 2
        cov[small] = np.clip(1.0 - d[small] / 1.0, 0, 1) * (e / 1.05)[:, None, None] * 3 / np.pi
    ok = (xx >= 0) & (xx < cv.w) & (yy >= 0) & (yy < cv.h) & (cov > 0)
    idx = (yy * cv.w + xx)[ok]
    if idx.size == 0:
        return
    w = cov[ok]
    cols = np.broadcast_to(np.asarray(colors, np.float32)[:, None, None, :], cov.shape + (3,))[ok]
    uniq, inv = np.unique(idx, return_inverse=True)
    flat = cv.img.reshape(-1, 3)
    px = flat[uniq].astype(np.float32)
    for ch in range(3):
        px[:, ch] += np.bincount(inv, weights=w * cols[:, ch], minlength=len(uniq)).astype(np.float32)
    flat[uniq] = to_u8(px)


# -------------------------------------------------------------------------------------- planets


def _tex_noise(rng, cell_deg: float, octaves: int = 4, aspect: float = 1.0, gain: float = 0.5,
               H: int = TEX_H, W: int = TEX_W) -> np.ndarray:
    return fbm(H, W, 360.0, 180.0, cell_deg, rng, octaves=octaves, aspect=aspect, gain=gain)


def _lat(H: int = TEX_H, W: int = TEX_W) -> np.ndarray:
    return np.linspace(90, -90, H, dtype=np.float32)[:, None] * np.ones((1, W), np.float32)


def _lon(H: int = TEX_H, W: int = TEX_W) -> np.ndarray:
    return np.linspace(-180, 180, W, dtype=np.float32)[None, :] * np.ones((H, 1), np.float32)


def _paint(mask: np.ndarray, col) -> tuple[np.ndarray, np.ndarray]:
    return mask[..., None], np.asarray(col, np.float32)


def _over(tex: np.ndarray, a: np.ndarray, col) -> np.ndarray:
    a = a[..., None] if a.ndim == 2 else a
    return tex + (np.asarray(col, np.float32) - tex) * a


def _spot(lat0, lon0, a_deg, b_deg, lat, lon) -> np.ndarray:
    return ((lon - lon0) / a_deg) ** 2 + ((lat - lat0) / b_deg) ** 2


def _craters(tex: np.ndarray, rng, count: int, rmin: float, rmax: float, depth: float = 0.25,
             rim: float = 0.18) -> np.ndarray:
    """Darken crater floors and lighten their rims (computed in a patch around each crater)."""
    th, tw = tex.shape[:2]
    out = tex.copy()
    for _ in range(count):
        cl = rng.uniform(-65, 65)
        co = rng.uniform(-100, 100)
        r = rmin + (rmax - rmin) * rng.uniform(0, 1) ** 2.5
        k = math.cos(math.radians(cl))
        rlat, rlon = r * 1.4, min(r * 1.4 / max(k, 0.2), 180)
        r0 = max(0, int((90 - cl - rlat) / 180 * th))
        r1 = min(th, int((90 - cl + rlat) / 180 * th) + 2)
        c0 = max(0, int((co - rlon + 180) / 360 * tw))
        c1 = min(tw, int((co + rlon + 180) / 360 * tw) + 2)
        lat = (90 - (np.arange(r0, r1, dtype=np.float32) + 0.5) * 180 / th)[:, None]
        lon = ((np.arange(c0, c1, dtype=np.float32) + 0.5) * 360 / tw - 180)[None, :]
        d = np.sqrt(((lon - co) * k) ** 2 + (lat - cl) ** 2) / r
        floor = smoothstep(1.0, 0.7, d) * depth
        ridge = np.exp(-((d - 1.0) / 0.18) ** 2) * rim * (0.6 + 0.4 * np.clip((lat - cl) / r, -1, 1))
        out[r0:r1, c0:c1] *= (1 - floor + ridge)[..., None]
    return out


def planet_texture(kind: str, rng: np.random.Generator, size: tuple[int, int] = (TEX_H, TEX_W)) -> np.ndarray:
    """Equirectangular surface picture (H, W, 3) float32 BGR of a planet or moon."""
    H, W = size
    lat, lon = _lat(H, W), _lon(H, W)
    n = lambda cell, octaves=4, aspect=1.0, gain=0.5: _tex_noise(rng, cell, octaves, aspect, gain, H, W)  # noqa: E731
    k = kind.lower()
    if k == "mercury":
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(120, 110, 98),
                  smoothstep(-1.2, 1.2, n(60, 5)), bgr(168, 152, 132))
        t += n(6, 3)[..., None] * 7
        t = _craters(t, rng, 90, 1.5, 13, 0.22, 0.22)
    elif k == "venus":
        b = np.radians(lat) * 7 + 2.2 * n(80, 4, aspect=2.5)
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(240, 222, 170), 0.5 + 0.5 * np.sin(b),
                  bgr(214, 172, 100))
        t = _over(t, smoothstep(0.6, 1.6, n(40, 4, aspect=3)) * 0.5, bgr(250, 238, 205))
        t += n(12, 3)[..., None] * 5
    elif k == "earth":
        ocean = _over(np.zeros((H, W, 3), np.float32) + bgr(14, 46, 118), smoothstep(-1, 1.5, n(50)),
                      bgr(30, 92, 170))
        land = smoothstep(0.05, 0.22, n(60, 6, gain=0.55))
        dry = smoothstep(-0.2, 1.2, n(35, 4))
        land_col = _over(np.zeros_like(ocean) + bgr(58, 104, 42), dry, bgr(168, 140, 92))
        t = ocean + (land_col - ocean) * land[..., None]
        t = _over(t, smoothstep(66, 74, np.abs(lat) + 6 * n(20, 3)), bgr(240, 244, 248))
        clouds = smoothstep(0.5, 1.4, n(16, 5, aspect=2.5, gain=0.65)) * 0.9
        t = _over(t, clouds, bgr(250, 250, 252))
    elif k == "mars":
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(186, 84, 44), smoothstep(-1, 1.4, n(45, 5)),
                  bgr(222, 132, 76))
        t = _over(t, smoothstep(0.45, 1.3, n(70, 5)) * 0.8, bgr(112, 52, 32))
        t = _craters(t, rng, 35, 1.5, 8, 0.12, 0.12)
        t = _over(t, smoothstep(74, 80, np.abs(lat) + 4 * n(15, 3)), bgr(242, 236, 228))
    elif k == "jupiter":
        warp = 5.0 * n(70, 4, aspect=3.0) + 1.2 * n(12, 3, aspect=4.0)
        b = lat + warp
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(234, 220, 192),
                  smoothstep(-0.35, 0.35, np.sin(np.radians(b) * 9.0 + 0.4)), bgr(196, 154, 112))
        t = _over(t, smoothstep(0.55, 0.95, np.sin(np.radians(b) * 17.0 + 1.3)) * 0.7, bgr(150, 100, 70))
        t = _over(t, smoothstep(0.7, 1.0, np.sin(np.radians(b) * 5.0 - 0.8)) * 0.5, bgr(226, 184, 140))
        t += (n(3, 3, aspect=6.0))[..., None] * 8
        spot = _spot(-22, 25, 16, 7, b, lon)
        t = _over(t, smoothstep(1.3, 0.9, spot) * 0.5, bgr(240, 220, 200))
        t = _over(t, smoothstep(1.0, 0.5, spot), bgr(198, 102, 70))
    elif k == "saturn":
        b = lat + 3.0 * n(90, 3, aspect=3.0)
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(232, 210, 156),
                  0.5 + 0.5 * np.sin(np.radians(b) * 11.0), bgr(204, 172, 112))
        t = _over(t, smoothstep(0.7, 1.0, np.sin(np.radians(b) * 4.0 + 2)) * 0.35, bgr(180, 140, 90))
        t += n(4, 3, aspect=6.0)[..., None] * 4
    elif k == "uranus":
        b = lat + 2.0 * n(90, 3, aspect=3.0)
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(150, 214, 224),
                  0.5 + 0.5 * np.sin(np.radians(b) * 6.0), bgr(120, 196, 212))
        t = _over(t, smoothstep(55, 80, -lat) * 0.5, bgr(196, 236, 238))
        t += n(20, 3)[..., None] * 3
    elif k == "neptune":
        b = lat + 4.0 * n(80, 4, aspect=3.0)
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(40, 72, 178),
                  0.5 + 0.5 * np.sin(np.radians(b) * 8.0), bgr(66, 112, 214))
        spot = _spot(-20, -15, 14, 7, b, lon)
        t = _over(t, smoothstep(1.0, 0.6, spot), bgr(22, 34, 104))
        t = _over(t, smoothstep(0.9, 1.6, n(14, 4, aspect=5.0)) * 0.9, bgr(226, 236, 250))
    elif k == "pluto":
        t = _over(np.zeros((H, W, 3), np.float32) + bgr(184, 162, 150), smoothstep(-1, 1.3, n(40, 5)),
                  bgr(212, 192, 180))
        heart = np.minimum(np.minimum(_spot(18, -2, 15, 14, lat, lon), _spot(18, 24, 15, 14, lat, lon)),
                           _spot(2, 11, 18, 16, lat, lon) + np.clip(lat - 12, 0, None) / 8)
        t = _over(t, smoothstep(1.1, 0.7, heart + 0.25 * n(10, 3)), bgr(240, 228, 214))
        dark = smoothstep(1.0, 0.6, _spot(-12, -70, 45, 12, lat, lon) + 0.4 * n(20, 3))
        t = _over(t, dark * 0.9, bgr(104, 70, 60))
        t = _craters(t, rng, 25, 1.0, 5, 0.08, 0.08)
    else:  # moons and unknown planets: a grey or tinted rocky body
        tones = [bgr(128, 124, 118), bgr(166, 136, 98), bgr(150, 166, 184), bgr(156, 100, 72), bgr(176, 168, 150)]
        c0 = mix(bgr(120, 118, 114), tones[int(rng.integers(len(tones)))], 0.85)
        t = _over(np.zeros((H, W, 3), np.float32) + c0 * 0.8, smoothstep(-1.2, 1.2, n(50, 5)), c0 * 1.25)
        t += n(5, 3)[..., None] * 8
        t = _craters(t, rng, 60, 2, 14, 0.22, 0.25)
    return np.clip(t, 0, 255).astype(np.float32)


def render_sphere(cv: Canvas, cx: float, cy: float, R: float, tex: np.ndarray, light=(-0.55, -0.55, 0.63),
                  tilt_deg: float = 0.0, view_lat_deg: float = 12.0, lon0_deg: float = 0.0,
                  atmosphere=None, atm_strength: float = 0.0, ambient: float = 0.05,
                  ring: tuple[float, float] | None = None, ring_seed: int = 0, halo_mm: float = 0.0) -> None:
    """A shaded textured sphere of radius ``R`` mm at (cx, cy), optionally with a ring (Saturn)."""
    reach = R * (ring[1] if ring else 1.0) + halo_mm
    box = cv.box(cx - reach, cy - reach, cx + reach, cy + reach)
    if box is None:
        return
    X, Y = cv.centres(box)
    dx = (X - np.float32(cx)) / np.float32(R)
    dy = (Y - np.float32(cy)) / np.float32(R)
    dx, dy = np.broadcast_arrays(dx, dy)
    r2 = dx * dx + dy * dy
    dist = np.sqrt(r2)
    alpha = np.clip((1 - dist) * np.float32(R * cv.s) + 0.5, 0, 1)
    z = np.sqrt(np.clip(1 - r2, 0, 1))
    L = np.asarray(light, np.float32)
    L = L / np.linalg.norm(L)
    ct, st = math.cos(math.radians(tilt_deg)), math.sin(math.radians(tilt_deg))
    cl, sl = math.cos(math.radians(view_lat_deg)), math.sin(math.radians(view_lat_deg))
    bx = ct * dx + st * dy
    by = -st * dx + ct * dy
    by2 = cl * by - sl * z
    bz2 = sl * by + cl * z
    lat = -np.degrees(np.arcsin(np.clip(by2, -1, 1)))
    lon = np.degrees(np.arctan2(bx, bz2)) + np.float32(lon0_deg)
    th, tw = tex.shape[:2]
    mx = ((lon + 180.0) / 360.0 * tw - 0.5).astype(np.float32)
    my = ((90.0 - lat) / 180.0 * th - 0.5).astype(np.float32)
    col = cv2.remap(tex, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_WRAP)
    ndl = dx * L[0] + dy * L[1] + z * L[2]
    lam = smoothstep(-0.12, 1.0, ndl) ** 0.9
    shade = ambient + (1 - ambient) * lam
    limb = 0.72 + 0.28 * z
    col = col * (shade * limb)[..., None]
    if atmosphere is not None and atm_strength > 0:
        rim = (1 - z) ** 2.5 * np.clip(ndl + 0.35, 0, 1) * np.float32(atm_strength)
        col = col + rim[..., None] * np.asarray(atmosphere, np.float32)
    u0, v0, u1, v1 = box
    roi = cv.img[v0:v1, u0:u1].astype(np.float32)
    if halo_mm > 0 and atmosphere is not None:
        outside = np.clip((dist - 1) * R / halo_mm, 0, 1)
        side = np.clip((dx * L[0] + dy * L[1]) / np.maximum(dist, 1e-6) + 0.6, 0, 1.6) / 1.6
        hal = (1 - outside) ** 2.2 * (dist > 1) * side * np.float32(atm_strength * 0.6)
        roi = 255 - (255 - roi) * (1 - hal[..., None] * np.asarray(atmosphere, np.float32) / 255)
    if ring is None:
        roi += (col - roi) * alpha[..., None]
    else:
        rin, rout = ring
        sl_ = max(abs(sl), 0.05) * (1 if sl >= 0 else -1)
        t = cl * by / sl_  # depth (towards the viewer) where the pixel's ray meets the ring plane
        rho = np.sqrt(bx * bx + (by / sl_) ** 2)
        rband = (rho - rin) / (rout - rin)
        rr = rng_for("ring", ring_seed)
        prof = np.clip(0.55 + 0.45 * fbm(1, 256, 256, 1, 12.0, rr, octaves=4)[0], 0.1, 1.0)
        prof[int(256 * 0.62):int(256 * 0.68)] *= 0.15  # Cassini division
        idx = np.clip((rband * 255).astype(np.int32), 0, 255)
        dens = prof[idx] * ((rband >= 0) & (rband <= 1))
        edge = np.clip(np.minimum(rho - rin, rout - rho) * R * cv.s + 0.5, 0, 1)
        ra = dens * edge * 0.92
        rcol = mix(bgr(190, 170, 130), bgr(236, 222, 184), np.clip(rband, 0, 1)[..., None])
        lit = 0.55 + 0.45 * abs(float(L[1] * cl + L[2] * sl))
        rcol = rcol * np.float32(lit)
        # the ring's shadow on the far side of the planet and the planet's shadow on the ring are omitted
        roi += (rcol - roi) * (ra * (1 - alpha))[..., None]      # ring where the planet is not
        roi += (col - roi) * alpha[..., None]                    # the planet
        roi += (rcol - roi) * (ra * alpha * (t > 0))[..., None]  # the near half of the ring over it
    cv.img[v0:v1, u0:u1] = to_u8(roi)


# ----------------------------------------------------------------------------------------- rocks


def rock_colors(rng: np.random.Generator, n: int, warm: float = 0.5) -> np.ndarray:
    g = rng.uniform(70, 150, n)
    w = rng.uniform(-8, 14, n) * warm
    return np.column_stack([g - w, g, g + w * 0.9])  # BGR, brownish when warm > 0


def draw_rocks(cv: Canvas, region: BaseGeometry, rng: np.random.Generator, margin: float = 2.2,
               density: float = 0.55, rmin: float = 0.7, rmax: float = 4.5, light=(-0.6, -0.6),
               warm: float = 0.6) -> None:
    """Fill ``region`` with shaded grey rocks that keep ``margin`` mm from its boundary."""
    if region.is_empty:
        return
    area = region.area
    mean_a = np.pi * (rmin * 1.7) ** 2
    n = int(area * density / mean_a)
    u = rng.uniform(0, 1, n)
    rr = rmin + (rmax - rmin) * u ** 2.2
    rr = np.sort(rr)[::-1]
    pts = points_in(region.buffer(-(margin + rmin)), n, rng)
    n = len(pts)
    rr = rr[:n]
    px, py = pts[:, 0], pts[:, 1]
    cols = rock_colors(rng, n, warm)
    seeds = rng.integers(1 << 62, size=n)
    L = np.asarray(light, np.float64)
    L = L / np.linalg.norm(L)
    inner = {}
    for i in range(n):
        key = round(float(rr[i]) * 2) / 2
        if key not in inner:
            inner[key] = region.buffer(-(margin + key), quad_segs=8)
        g = inner[key]
        if g.is_empty or not shapely.contains_xy(g, px[i], py[i]):
            continue
        r = float(rr[i])
        sub = np.random.default_rng(int(seeds[i]))
        poly = blob_polygon(px[i], py[i], r, sub, n=9 if r > 1.5 else 6, rough=0.35)
        c = cols[i]
        shadow = poly - L * r * 0.22
        if r > 1.2:
            cv.fill_fast([shadow], c * 0.35)
        cv.fill_fast([poly], c * 0.62)
        hl = (poly - [px[i], py[i]]) * 0.62 + [px[i], py[i]] + L * r * 0.22
        cv.fill_fast([hl], c)
        if r > 2.0:
            hl2 = (poly - [px[i], py[i]]) * 0.3 + [px[i], py[i]] + L * r * 0.42
            cv.fill_fast([hl2], np.minimum(c * 1.3, 255))
            for _ in range(int(r)):
                a = sub.uniform(0, 2 * np.pi)
                d = sub.uniform(0, 0.5) * r
                cv.circle_fast(px[i] + d * math.cos(a), py[i] + d * math.sin(a), r * sub.uniform(0.08, 0.16),
                               c * 0.5)
