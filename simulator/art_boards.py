"""PitRush's wooden board, Galaktico's sectors and the ASF CCG play mat (see :mod:`simulator.art`)."""

from __future__ import annotations

import math

import numpy as np
from shapely.geometry import LineString, Polygon, box as shp_box
from shapely.ops import unary_union

from calibration.profile import Tile

from .art_common import (NEUTRAL_BGR, Canvas, add_grain, bgr, mix, regular_polygon, rng_for,
                         to_u8)
from .art_space import nebula, star_field
from .art_surfaces import neoprene, wood


def _outside_neutral(cv: Canvas, tile: Tile) -> None:
    """Neutral colour outside the board's outline (the renderer masks it)."""
    if tile.outline is None:
        return
    outside = shp_box(-1, -1, cv.w_mm + 1, cv.h_mm + 1).difference(tile.outline_polygon())
    cv.fill(outside, NEUTRAL_BGR)


# ---------------------------------------------------------------------------------------- PitRush

# a slightly different stain for each seat's shooting area (multiplies the wood)
_SEAT_TINTS = [bgr(255, 228, 222), bgr(226, 234, 255), bgr(255, 250, 214), bgr(226, 250, 226),
               bgr(250, 246, 240), bgr(222, 222, 226)]


def pitrush_board(tile: Tile, s: float, seed: int = 0) -> np.ndarray:
    W, H = tile.size_mm
    cv = Canvas(W, H, s)
    rng = rng_for("pitrush", tile.id, seed)
    cv.img = wood(W, H, s, rng, "birch", tone=-0.2)
    outline = tile.outline_polygon()

    # shooting areas: a faint stain, and the painted shooting lines
    for k, seat in enumerate(tile.seats):
        if seat.shooting_area is not None:
            area = Polygon(seat.shooting_area).intersection(outline.buffer(-0.5))
            tint = _SEAT_TINTS[k % len(_SEAT_TINTS)]
            _stain(cv, area, tint)
    for k, seat in enumerate(tile.seats):
        a, b = np.asarray(seat.shooting_line[0]), np.asarray(seat.shooting_line[1])
        paint = bgr(28, 26, 24)
        cv.stroke([a, b], 3.0, paint, alpha=0.93)
        # brush texture: a faint lighter streak along the middle
        cv.stroke([a, b], 0.7, bgr(70, 66, 60), alpha=0.25)

    # the maker's mark, burned in between the first seat's line and the pits (real boards carry one:
    # it tells which way round the six-fold board lies)
    if tile.seats:
        a, b = np.asarray(tile.seats[0].shooting_line[0]), np.asarray(tile.seats[0].shooting_line[1])
        mid = (a + b) / 2
        inward = np.asarray(outline.centroid.coords[0]) - mid
        inward /= np.linalg.norm(inward)
        pos = mid + inward * 34.0
        ang = np.degrees(np.arctan2((b - a)[1], (b - a)[0]))
        cv.text("PITRUSH", pos[0], pos[1], 15.0, bgr(70, 45, 25), weight=800, alpha=0.75, spacing=0.2,
                rotate180=abs(((ang + 90) % 360) - 180) > 90)

    # pits: dark wood inside (the renderer cuts the hole), a chamfer ring around
    L = np.array([-0.6, -0.7])
    L /= np.linalg.norm(L)
    for pit in tile.pits:
        cx, cy = pit.center
        r = pit.radius
        box = cv.box(cx - r - 3, cy - r - 3, cx + r + 3, cy + r + 3)
        if box is None:
            continue
        X, Y = cv.centres(box)
        dx, dy = X - np.float32(cx), Y - np.float32(cy)
        d = np.sqrt(dx * dx + dy * dy)
        u0, v0, u1, v1 = box
        roi = cv.img[v0:v1, u0:u1].astype(np.float32)
        # chamfer: 2 mm bevel sloping into the hole; its lit side faces the light
        t = np.clip((d - r) / 2.0, 0, 1)  # 0 at the hole edge .. 1 at the top
        facing = -(dx * L[0] + dy * L[1]) / np.maximum(d, 1e-3)  # bevel normal tilts towards the centre
        aa_out = np.clip((r + 2.0 - d) * s + 0.5, 0, 1) * np.clip((d - r) * s + 0.5, 0, 1)
        shade = 0.62 + 0.16 * facing - 0.12 * (1 - t)
        roi = roi * (1 - aa_out[..., None]) + roi * shade[..., None] * aa_out[..., None]
        inside = np.clip((r - d) * s + 0.5, 0, 1)
        dark = roi * np.float32(0.42)
        roi = roi + (dark - roi) * inside[..., None]
        cv.img[v0:v1, u0:u1] = to_u8(roi)

    # the board's edge: a rounded-over rim about 2.5 mm wide
    _rim(cv, outline, 2.5, L)
    add_grain(cv.img, rng_for("pitrush-grain", tile.id, seed, s), sigma=1.8, chroma=0.2)
    _outside_neutral(cv, tile)
    return cv.img


def _stain(cv: Canvas, geom, tint) -> None:
    cv.multiply(geom, np.asarray(tint, np.float32) / 255, alpha=0.6)


def _rim(cv: Canvas, outline: Polygon, width: float, L) -> None:
    """The board's rounded-over edge: each side's strip shaded by how it faces the light."""
    pts = np.asarray(outline.exterior.coords)[:-1]
    inner = outline.buffer(-width, join_style="mitre")
    ipts = np.asarray(inner.exterior.coords)[:-1]
    c = np.asarray(outline.centroid.coords[0])
    n_out = len(pts)
    for i in range(n_out):
        a, b = pts[i], pts[(i + 1) % n_out]
        e = b - a
        n = np.array([e[1], -e[0]]) / (np.linalg.norm(e) + 1e-9)
        if np.dot(n, (a + b) / 2 - c) < 0:
            n = -n
        # the inner corners nearest to a and b (mitred offset of the outline)
        ia = ipts[np.argmin(np.hypot(*(ipts - (a - n * width)).T))]
        ib = ipts[np.argmin(np.hypot(*(ipts - (b - n * width)).T))]
        f = float(0.9 + 0.16 * np.dot(n, -np.asarray(L)))
        cv.multiply(np.array([a, b, ib, ia]), f)
        # the crease where the round-over meets the flat top, and a highlight on the very edge
        crease = LineString([ia, ib]).buffer(0.35, cap_style="flat")
        cv.multiply(crease, 0.86)
        edge = LineString([a - n * 0.3, b - n * 0.3]).buffer(0.3, cap_style="flat")
        cv.multiply(edge, 1.0 + 0.1 * max(0.0, float(np.dot(n, -np.asarray(L)))))


# -------------------------------------------------------------------------------------- Galaktico

_ACCENTS = {"sector1": bgr(220, 60, 50), "sector2": bgr(50, 110, 225), "sector3": bgr(235, 195, 40)}
_ACCENT_LIST = list(_ACCENTS.values())


def galaktico_sector(tile: Tile, s: float, seed: int = 0) -> np.ndarray:
    W, H = tile.size_mm
    cv = Canvas(W, H, s)
    rng = rng_for("galaktico", tile.id, seed)
    accent = _ACCENTS.get(tile.id, _ACCENT_LIST[int(rng.integers(3))])
    bg = nebula(cv, rng, mix(accent, bgr(60, 40, 120), 0.6) * 0.7, bgr(20, 60, 120), strength=0.8, dust=0.6)
    cv.img = to_u8(bg)
    star_field(cv, rng, density=0.03, bright=5, max_r=0.28)
    outline = tile.outline_polygon()
    line_col = bgr(178, 196, 226)

    for grid in tile.grids:
        o, u, v = np.array(grid.origin), np.array(grid.u), np.array(grid.v)
        marks = {k: set(vs) for k, vs in grid.marks.items()}
        inr = abs(u[0] * v[1] - u[1] * v[0]) / (2 * max(np.linalg.norm(u), np.linalg.norm(v)))
        for r in range(grid.rows):
            for c in range(grid.cols):
                key = f"{r},{c}"
                poly = np.asarray(grid.space_polygon(r, c))
                ctr = o + (c + 0.5) * u + (r + 0.5) * v
                # a faint bevelled panel in every space
                inner = Polygon(poly).buffer(-1.6, join_style="mitre")
                cv.fill(inner, bgr(120, 150, 210), alpha=0.05)
                if key in marks.get("start", ()):
                    cv.fill(inner, accent, alpha=0.11)
                if key in marks.get("station", ()):
                    _station_icon(cv, ctr, inr, accent)
                if key in marks.get("meteor", ()):
                    _meteor_ring(cv, ctr, inr * 0.55)
        # the grid lines (thin, light)
        for r in range(grid.rows + 1):
            p0 = o + r * v
            cv.stroke([p0, p0 + grid.cols * u], 0.8, line_col, alpha=0.85)
        for c in range(grid.cols + 1):
            p0 = o + c * u
            cv.stroke([p0, p0 + grid.rows * v], 0.8, line_col, alpha=0.85)

    # the sector's accent colour along its border: a band with a bright inner line
    band = outline.difference(outline.buffer(-3.2, join_style="mitre"))
    cv.fill(band, accent * 0.8, alpha=0.85)
    edge = outline.buffer(-3.2, join_style="mitre")
    cv.fill(edge.difference(edge.buffer(-0.5, join_style="mitre")), mix(accent, bgr(255, 255, 255), 0.45), alpha=0.9)
    add_grain(cv.img, rng_for("galaktico-grain", tile.id, seed, s), sigma=2.0, chroma=0.4)
    _outside_neutral(cv, tile)
    return cv.img


def _station_icon(cv: Canvas, c, inr: float, accent) -> None:
    x, y = c
    light = mix(accent, bgr(255, 255, 255), 0.55)
    cv.disc(x, y, inr * 0.78, accent * 0.35, alpha=0.5, soft_mm=1.5)
    for rr, wd in ((inr * 0.66, 1.0), (inr * 0.48, 0.5)):
        ring = Polygon(regular_polygon(x, y, rr + wd / 2, 96)).difference(
            Polygon(regular_polygon(x, y, rr - wd / 2, 96)))
        cv.fill(ring, light, alpha=0.95)
    for k in range(6):
        a = k * math.pi / 3 + math.pi / 6
        p0 = (x + inr * 0.5 * math.cos(a), y + inr * 0.5 * math.sin(a))
        p1 = (x + inr * 0.64 * math.cos(a), y + inr * 0.64 * math.sin(a))
        cv.stroke([p0, p1], 0.9, light, alpha=0.95)
    cv.fill(regular_polygon(x, y, inr * 0.2, 6, 30), light, alpha=0.9)


def _meteor_ring(cv: Canvas, c, r: float) -> None:
    x, y = c
    n = 14
    a = np.arange(n) * 2 * np.pi / n
    pts = np.column_stack([x + r * np.cos(a), y + r * np.sin(a)])
    cv.stamp_discs(pts, 0.55, bgr(200, 200, 196), alpha=0.85)
    cv.disc(x, y, r * 0.75, bgr(110, 100, 96), alpha=0.12, soft_mm=1.0)


# ---------------------------------------------------------------------------------------- ASF CCG

_LABELS = {"spaceline": "PLANET", "draw_deck": "DRAW DECK", "intervention_pile": "INTERVENTIONS",
           "station_row": "STATION"}


def asf_mat(tile: Tile, s: float, seed: int = 0) -> np.ndarray:
    W, H = tile.size_mm
    cv = Canvas(W, H, s)
    rng = rng_for("asfccg", tile.id, seed)
    base = neoprene(W, H, s, rng)
    # the mat's printed art: a faint nebula and the limb of a big planet, low contrast
    art = nebula(cv, rng, bgr(60, 40, 130), bgr(20, 80, 120), base=bgr(0, 0, 0), strength=0.6, dust=0.3)
    img = base + art * np.float32(0.55)
    cv.img = to_u8(img)
    px, py, pr = W * float(rng.uniform(0.2, 0.8)), H + 260.0, 330.0
    cv.disc(px, py, pr, bgr(40, 70, 120), alpha=0.35, soft_mm=6.0)
    cv.glow(px, py, pr + 25, bgr(80, 140, 220), strength=0.25, falloff=0.8)
    slots = unary_union([z.geometry().boundary for z in tile.zones]) if tile.zones else None
    star_field(cv, rng, density=0.006, bright=3, max_r=0.3,
               exclude_bright=slots.buffer(9.0) if slots is not None else None)
    cv.text("ARIES STAR FLEET", W / 2, (111.0 + 166.0) / 2, 11.0, bgr(120, 136, 170), weight=800, alpha=0.55,
            spacing=0.35)

    line = bgr(160, 178, 206)
    counts: dict[str, int] = {}
    for z in tile.zones:
        g = z.geometry()
        counts[z.kind] = counts.get(z.kind, 0) + 1
        rr = 2.5
        rounded = g.buffer(-rr, join_style="mitre").buffer(rr, quad_segs=8)
        cv.fill(rounded.buffer(-0.8), bgr(140, 160, 200), alpha=0.06)
        cv.fill(rounded.difference(rounded.buffer(-0.8, quad_segs=8)), line, alpha=0.9)
        label = _LABELS.get(z.kind, z.kind.replace("_", " ").upper())
        if z.kind == "spaceline":
            label = f"{label} {counts[z.kind]}"
        x0, y0, x1, y1 = g.bounds
        top_player = (z.id.startswith("p2") or (y0 + y1) / 2 < H * 0.3)
        # labels face their player: p2 sits across the table
        if top_player:
            cv.text(label, (x0 + x1) / 2, y0 + 5.0, 3.6, line, weight=600, alpha=0.8, rotate180=True, spacing=0.2)
        else:
            cv.text(label, (x0 + x1) / 2, y1 - 5.0, 3.6, line, weight=600, alpha=0.8, spacing=0.2)
        if z.kind in ("draw_deck", "intervention_pile", "spaceline"):
            _card_icon(cv, (x0 + x1) / 2, (y0 + y1) / 2, line, top_player)
    add_grain(cv.img, rng_for("asf-grain", tile.id, seed, s), sigma=2.5, chroma=0.3)
    return cv.img


def _card_icon(cv: Canvas, x: float, y: float, color, flip: bool) -> None:
    """A faint card silhouette in the middle of a slot."""
    w, h = 14.0, 19.0
    off = 1.6 if not flip else -1.6
    for k, a in ((1, 0.18), (0, 0.3)):
        r = shp_box(x - w / 2 + k * off, y - h / 2 - k * off, x + w / 2 + k * off, y + h / 2 - k * off)
        r = r.buffer(-1.0).buffer(1.0)
        cv.fill(r.difference(r.buffer(-0.5)), color, alpha=a)


__all__ = ["pitrush_board", "galaktico_sector", "asf_mat"]
