"""Pitch Fleet planet boards: printed space scenes with dotted zone lines (see :mod:`simulator.art`)."""

from __future__ import annotations

import math

import numpy as np
from shapely.geometry import Point, box as shp_box
from shapely.ops import unary_union

from calibration.profile import Tile

from .art_common import Canvas, add_grain, bgr, mix, rng_for, star_polygon, text_width_mm, to_u8
from .art_space import draw_rocks, nebula, planet_texture, render_sphere, star_field

DOT_MM = 1.2
PITCH_MM = 2.5
DOT_COLOR = bgr(238, 236, 226)
LINE_CLEAR_MM = 3.6  # no bright art this close to a dotted line (outside the zone)

# per planet: the two nebula colours (RGB), sphere tilt, view latitude, atmosphere colour and strength
_LOOK = {
    "mercury": dict(neb=((120, 70, 30), (70, 40, 110)), tilt=8, vlat=10, atm=None),
    "venus": dict(neb=((150, 90, 20), (120, 30, 80)), tilt=-5, vlat=8, atm=((255, 230, 170), 0.7)),
    "earth": dict(neb=((20, 70, 150), (10, 110, 110)), tilt=-23, vlat=18, atm=((110, 170, 255), 0.9)),
    "mars": dict(neb=((150, 40, 30), (80, 30, 110)), tilt=25, vlat=15, atm=((255, 150, 110), 0.35)),
    "jupiter": dict(neb=((150, 90, 40), (30, 60, 140)), tilt=-3, vlat=6, atm=((255, 225, 190), 0.35)),
    "saturn": dict(neb=((140, 110, 40), (20, 100, 110)), tilt=-18, vlat=22, atm=((255, 235, 180), 0.3)),
    "uranus": dict(neb=((20, 120, 120), (40, 120, 50)), tilt=82, vlat=10, atm=((180, 250, 255), 0.6)),
    "neptune": dict(neb=((30, 50, 170), (90, 30, 150)), tilt=-28, vlat=12, atm=((120, 160, 255), 0.7)),
    "pluto": dict(neb=((150, 60, 110), (40, 60, 140)), tilt=15, vlat=20, atm=None),
}
_PLANET_KINDS = set(_LOOK)


def _look(tile: Tile, rng: np.random.Generator) -> tuple[str, dict]:
    key = (tile.id or "").lower()
    planet = next((z.name or "" for z in tile.zones if z.kind == "planet"), "").lower()
    for k in (key, planet):
        if k in _LOOK:
            return k, _LOOK[k]
    kinds = sorted(_LOOK)
    k = kinds[int(rng.integers(len(kinds)))]
    return "moon", _LOOK[k]


def pitchfleet_tile(tile: Tile, s: float, seed: int = 0) -> np.ndarray:
    W, H = tile.size_mm
    cv = Canvas(W, H, s)
    rng = rng_for("pitchfleet", tile.id, seed)
    kind, look = _look(tile, rng)
    (c1, c2) = look["neb"]
    la = rng.uniform(200, 250)  # light from the upper left, varying per tile
    light = (math.cos(math.radians(la)), math.sin(math.radians(la)), 0.75)

    zones = list(tile.zones)
    geoms = [z.geometry() for z in zones]
    boundaries = unary_union([g.boundary for g in geoms]) if geoms else None

    # --- where the planet's name goes (decided in mm, before drawing)
    name_spot = _name_spot(tile, geoms)

    # --- background
    bg = nebula(cv, rng, bgr(*c1), bgr(*c2), strength=1.0)
    cv.img = to_u8(bg)
    exclude = boundaries.buffer(LINE_CLEAR_MM) if boundaries is not None else None
    if name_spot is not None:
        tb = name_spot[3]
        exclude = tb if exclude is None else exclude.union(tb)
    bright_ex = unary_union(geoms + [exclude]).buffer(5.0) if exclude is not None else None
    star_field(cv, rng, density=0.045, exclude=exclude, bright=int(rng.integers(4, 9)), exclude_bright=bright_ex)

    # a few faint distant galaxies / far planets in free space
    _distant_things(cv, rng, tile, geoms, exclude)

    # --- zones
    sat_i = 0
    for z, g in zip(zones, geoms):
        zr = rng_for("pitchfleet", tile.id, seed, z.id)
        if z.kind == "planet":
            _planet(cv, z, g, zr, kind, look, light)
        elif z.kind == "satellite":
            _satellite(cv, z, g, zr, light, sat_i)
            sat_i += 1
        elif z.kind == "charging_satellite":
            _charging(cv, g, zr)
        elif z.kind == "asteroid_belt":
            _belt(cv, g, zr, light)
        else:
            cv.fill(g.buffer(-DOT_MM - 0.5), bgr(120, 140, 200), alpha=0.12)

    if name_spot is not None:
        x, y, size, _, text = name_spot
        cv.text(text, x, y, size, bgr(240, 238, 230), weight=700, shadow=bgr(0, 0, 0), shadow_mm=0.8,
                spacing=0.12)

    # --- the dotted lines, last and crisp
    for g in geoms:
        cv.dotted_outline(g, DOT_COLOR, DOT_MM, PITCH_MM)

    add_grain(cv.img, rng_for("pitchfleet-grain", tile.id, seed, s), sigma=2.2, chroma=0.4)
    return cv.img


# ------------------------------------------------------------------------------------- elements


def _circle_of(g) -> tuple[float, float, float]:
    """Centre and inscribed-ish radius of a (round) zone."""
    c = g.centroid
    r = math.sqrt(g.area / math.pi)
    return c.x, c.y, r


def _planet(cv: Canvas, z, g, rng, kind: str, look: dict, light) -> None:
    cx, cy, r = _circle_of(g)
    tex = planet_texture(kind if kind in _PLANET_KINDS else "moon", rng)
    atm = look.get("atm")
    atm_col = bgr(*atm[0]) if atm else None
    atm_s = atm[1] if atm else 0.0
    # a faint coloured glow inside the zone, then the sphere
    if atm_col is not None:
        cv.glow(cx, cy, r - DOT_MM - 0.6, atm_col * 0.5, strength=0.35, falloff=1.6)
    lon0 = float(rng.uniform(-60, 60))
    if kind == "saturn":
        R = (r - DOT_MM - 1.6) / 1.85
        render_sphere(cv, cx, cy, R, tex, light=light, tilt_deg=look["tilt"], view_lat_deg=look["vlat"],
                      lon0_deg=lon0, atmosphere=atm_col, atm_strength=atm_s, ring=(1.25, 1.85),
                      ring_seed=int(rng.integers(1 << 30)))
    else:
        R = r - DOT_MM - 3.2
        render_sphere(cv, cx, cy, R, tex, light=light, tilt_deg=look["tilt"], view_lat_deg=look["vlat"],
                      lon0_deg=lon0, atmosphere=atm_col, atm_strength=atm_s,
                      halo_mm=2.0 if atm_col is not None else 0.0)


def _satellite(cv: Canvas, z, g, rng, light, index: int) -> None:
    cx, cy, r = _circle_of(g)
    inner = r - DOT_MM
    tint = [bgr(90, 120, 200), bgr(160, 120, 200), bgr(90, 190, 170), bgr(200, 150, 90)][int(rng.integers(4))]
    cv.disc(cx, cy, inner - 0.8, tint * 0.35, alpha=0.55, soft_mm=1.5)
    stars = int(z.stars or 0)
    mr = inner * (0.42 if stars else 0.55)
    my = cy - (inner * 0.2 if stars else 0.0)
    mx = cx + float(rng.uniform(-0.08, 0.08)) * inner
    tex = planet_texture("moon", rng, (128, 256))
    render_sphere(cv, mx, my, mr, tex, light=light, tilt_deg=float(rng.uniform(-30, 30)),
                  view_lat_deg=float(rng.uniform(-10, 20)), lon0_deg=float(rng.uniform(-90, 90)))
    if stars:
        sr = min(inner * 0.2, 3.2)
        gap = sr * 2.15
        sy = cy + inner * 0.5
        for k in range(stars):
            sx = cx + (k - (stars - 1) / 2) * gap
            cv.fill(star_polygon(sx + 0.25, sy + 0.3, sr), bgr(40, 20, 0), alpha=0.7)      # print shadow
            cv.fill(star_polygon(sx, sy, sr), bgr(200, 130, 20))
            cv.fill(star_polygon(sx - 0.12 * sr, sy - 0.12 * sr, sr * 0.72, sr * 0.3), bgr(255, 214, 70))
            cv.fill(star_polygon(sx - 0.2 * sr, sy - 0.25 * sr, sr * 0.3, sr * 0.12), bgr(255, 246, 200), alpha=0.8)


BOLT = np.array([(-0.05, -1.0), (0.48, -1.0), (0.12, -0.18), (0.46, -0.18), (-0.28, 1.0), (-0.04, 0.16),
                 (-0.4, 0.16)])


def _charging(cv: Canvas, g, rng) -> None:
    cx, cy, r = _circle_of(g)
    inner = r - DOT_MM
    cv.disc(cx, cy, inner - 0.6, bgr(10, 40, 70), alpha=0.7, soft_mm=1.2)
    cv.glow(cx, cy, inner - 0.8, bgr(60, 200, 255), strength=0.45, falloff=1.4)
    # a thin ring of energy ticks
    n = 24
    for k in range(n):
        a = 2 * math.pi * k / n + float(rng.uniform(0, 0.1))
        p0 = (cx + (inner - 3.2) * math.cos(a), cy + (inner - 3.2) * math.sin(a))
        p1 = (cx + (inner - 2.4) * math.cos(a), cy + (inner - 2.4) * math.sin(a))
        cv.stroke([p0, p1], 0.35, bgr(120, 220, 255), alpha=0.55)
    sc = inner * 0.62
    bolt = BOLT * sc + [cx, cy]
    cv.fill(bolt + [0.4, 0.5], bgr(30, 10, 0), alpha=0.8)
    cv.fill(bolt, bgr(230, 120, 10))
    inner_bolt = (BOLT * 0.78 + [0.02, 0.02]) * sc + [cx, cy]
    cv.fill(inner_bolt, bgr(255, 214, 40))
    cv.fill((BOLT * 0.4 + [0.04, 0.0]) * sc + [cx, cy], bgr(255, 250, 200), alpha=0.85)


def _belt(cv: Canvas, g, rng, light) -> None:
    # dusty haze, faint sparkles, then rocks
    cv.fill(g.buffer(-DOT_MM - 0.4), bgr(120, 95, 70), alpha=0.22)
    draw_rocks(cv, g, rng, margin=DOT_MM + 1.4, density=0.32, rmin=0.6, rmax=5.0, light=light[:2])


def _distant_things(cv: Canvas, rng, tile: Tile, geoms, exclude) -> None:
    """One or two faint spiral galaxies / far stars clusters in free space (makes tiles distinct)."""
    W, H = tile.size_mm
    free = shp_box(8, 8, W - 8, H - 8)
    for g in geoms:
        free = free.difference(g.buffer(LINE_CLEAR_MM + 6))
    if exclude is not None:
        free = free.difference(exclude.buffer(4))
    k = int(rng.integers(1, 3))
    for _ in range(k):
        for _try in range(30):
            x, y = rng.uniform(0, W), rng.uniform(0, H)
            rr = float(rng.uniform(4, 8))
            if free.contains(Point(x, y).buffer(rr + 1)):
                break
        else:
            continue
        ang = float(rng.uniform(0, math.pi))
        col = [bgr(200, 180, 255), bgr(255, 210, 170), bgr(170, 230, 255)][int(rng.integers(3))]
        # an elliptical glow with a bright core
        for j in range(8):
            t = j / 8
            a = ang + t * 2.2
            d = rr * (0.25 + 0.7 * t)
            cv.glow(x + d * math.cos(a) * 0.6, y + d * math.sin(a) * 0.3, rr * (0.5 - 0.3 * t), col * 0.6,
                    strength=0.25, falloff=2.0)
            cv.glow(x - d * math.cos(a) * 0.6, y - d * math.sin(a) * 0.3, rr * (0.5 - 0.3 * t), col * 0.6,
                    strength=0.25, falloff=2.0)
        cv.glow(x, y, rr * 0.45, mix(col, bgr(255, 255, 255), 0.5), strength=0.6, falloff=2.5)


def _name_spot(tile: Tile, geoms) -> tuple[float, float, float, object, str] | None:
    """(x, y, size_mm, keep-out geometry, text) for the planet's name, clear of every zone."""
    planet = next((z for z in tile.zones if z.kind == "planet"), None)
    if planet is None:
        return None
    text = (planet.name or tile.name or tile.id).upper()
    W, H = tile.size_mm
    pg = planet.geometry()
    cx, cy, r = _circle_of(pg)
    others = unary_union(geoms).buffer(LINE_CLEAR_MM + 0.6)
    inside = shp_box(5, 5, W - 5, H - 5)
    for size in (9.0, 8.0, 7.0, 6.0):
        tw = text_width_mm(text, size, 700, 0.12)
        th = size * 0.78
        for ang in (90, 270, 60, 120, 240, 300, 30, 150, 210, 330, 0, 180):
            a = math.radians(ang)
            dirx, diry = math.cos(a), math.sin(a)
            for extra in (1.0, 4.0, 8.0, 14.0):
                # distance so that the box clears the circle along the direction
                half = abs(dirx) * tw / 2 + abs(diry) * th / 2
                d = r + LINE_CLEAR_MM + extra + half
                x, y = cx + dirx * d, cy + diry * d
                bx = shp_box(x - tw / 2 - 1, y - th / 2 - 1.2, x + tw / 2 + 1, y + th / 2 + 1.2)
                if inside.contains(bx) and not bx.intersects(others):
                    return x, y, size, bx.buffer(1.5), text
    return None


def tile_is_pitchfleet_like(tile: Tile) -> bool:
    return any(z.kind in ("planet", "satellite", "charging_satellite", "asteroid_belt") for z in tile.zones)


__all__ = ["pitchfleet_tile", "DOT_MM", "PITCH_MM", "DOT_COLOR"]
