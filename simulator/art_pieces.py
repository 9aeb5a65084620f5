"""Cards (ASF CCG style faces and the shared back) and the top faces of pieces (see :mod:`simulator.art`)."""

from __future__ import annotations

import math

import cv2
import numpy as np
from shapely.geometry import box as shp_box

from .art_common import (NEUTRAL_BGR, Canvas, add_grain, bgr, fbm, lattice_noise, mix, regular_polygon, rng_for,
                         smoothstep, star_polygon, to_u8)
from .art_space import nebula, planet_texture, render_sphere, star_field

# base BGR colour of each named colour (plastic / paint as a camera sees it under neutral light)
COLORS: dict[str, tuple[int, int, int]] = {
    "red": (38, 34, 196),
    "blue": (176, 84, 26),
    "yellow": (34, 196, 240),
    "green": (62, 142, 34),
    "white": (228, 232, 232),
    "black": (30, 29, 28),
    "silver": (192, 190, 186),
    "grey": (118, 120, 122),
    "orange": (28, 124, 236),
    "violet": (150, 58, 118),
}


def color_of(name: str) -> np.ndarray:
    return np.asarray(COLORS.get(name, COLORS["grey"]), np.float32)


# -------------------------------------------------------------------------------------------- cards

CARD_CORNER_MM = 3.0
_AFFILIATIONS = [("ARIES STAR FLEET", bgr(60, 110, 200)), ("UNITED EARTH", bgr(50, 150, 90)),
                 ("REBEL", bgr(190, 50, 45)), ("CIVILIAN", bgr(160, 160, 160)), ("ALIEN", bgr(130, 60, 170))]
_TYPES = ["SHIP", "CREW", "PLANET", "STATION", "UPGRADE", "ENHANCEMENT", "INTERVENTION", "OBJECTIVE"]
_SYL = ["ar", "ies", "vor", "tan", "kel", "ra", "dex", "nov", "ul", "tri", "zen", "mar", "os", "cor", "lyn",
        "tha", "bel", "qua", "sar", "ion", "ex", "vek", "dra", "mon"]
_WORDS = ("the a ship may crew play on at any time when your this card station planet move power skill "
          "battle reserve range each turn draw target opponent ships upgrade during command shield "
          "weapon engineer science navigation report destroy").split()


def _name(rng) -> str:
    w = lambda k: "".join(_SYL[int(i)] for i in rng.integers(len(_SYL), size=k)).capitalize()  # noqa: E731
    return f"{w(2)} {w(int(rng.integers(1, 3)))}" if rng.uniform() < 0.6 else w(3)


def _rounded_card(cv: Canvas, w_mm: float, h_mm: float, r: float):
    return shp_box(0, 0, w_mm, h_mm).buffer(-r, join_style="mitre").buffer(r, quad_segs=8)


def card_face(seed: int, s: float, size_mm=(63.0, 88.0)) -> np.ndarray:
    W, H = float(size_mm[0]), float(size_mm[1])
    cv = Canvas(W, H, s)
    rng = rng_for("card-face", seed)
    k = W / 63.0  # layout scales with the card (designed for 63 x 88 mm)
    kh = H / 88.0
    aff_name, aff = _AFFILIATIONS[int(rng.integers(len(_AFFILIATIONS)))]
    # black border and the affiliation's metallic frame
    cv.img[...] = to_u8(np.full((cv.h, cv.w, 3), 18, np.float32))
    frame = shp_box(2.2 * k, 2.2 * kh, W - 2.2 * k, H - 2.2 * kh).buffer(-1.5).buffer(1.5)
    box, m = cv.mask(frame)
    X, Y = cv.centres(box)
    grad = (0.65 + 0.55 * np.clip(1 - (Y / H), 0, 1) + 0.15 * np.sin(X / W * 6 + Y / H * 3)).astype(np.float32)
    cv.blend(box, m, aff[None, None, :] * grad[..., None] * 0.9)
    # picture
    px0, py0, px1, py1 = 4.6 * k, 11.6 * kh, W - 4.6 * k, 50.0 * kh
    pic = _card_picture(px1 - px0, py1 - py0, s, rng)
    _paste_canvas(cv, pic, px0, py0)
    cv.fill(shp_box(px0, py0, px1, py1).difference(shp_box(px0 + 0.35, py0 + 0.35, px1 - 0.35, py1 - 0.35)),
            bgr(10, 10, 12))
    # title bar
    tb = shp_box(3.6 * k, 3.6 * kh, W - 3.6 * k, 10.6 * kh).buffer(-1.2).buffer(1.2)
    box, m = cv.mask(tb)
    X, Y = cv.centres(box)
    g = (1.0 - 0.45 * (Y - 3.6 * kh) / (7.0 * kh)).astype(np.float32)
    cv.blend(box, m, bgr(40, 44, 56)[None, None, :] * g[..., None])
    title = _name(rng)
    if rng.uniform() < 0.5:
        cv.disc(5.7 * k, 7.1 * kh, 0.7, bgr(235, 235, 235))
    cv.text(title, 7.2 * k, 7.1 * kh, 3.6 * k, bgr(240, 236, 226), weight=700, anchor="left")
    cost = int(rng.integers(1, 9))
    cv.disc(W - 7.0 * k, 7.1 * kh, 2.6 * k, bgr(220, 200, 120))
    cv.disc(W - 7.0 * k, 7.1 * kh, 2.1 * k, bgr(40, 36, 30))
    cv.text(str(cost), W - 7.0 * k, 7.1 * kh, 3.2 * k, bgr(240, 220, 140), weight=800)
    # type line
    ty = _TYPES[int(rng.integers(len(_TYPES)))]
    cv.fill(shp_box(4.6 * k, 51.0 * kh, W - 4.6 * k, 55.6 * kh), bgr(30, 32, 40), alpha=0.9)
    cv.text(f"{ty}  -  {aff_name}", 6.0 * k, 53.3 * kh, 2.5 * k, bgr(220, 220, 220), weight=600, anchor="left")
    cv.disc(W - 7.0 * k, 53.3 * kh, 1.7 * k, aff * 1.1)
    # text box
    tbox = shp_box(4.6 * k, 56.8 * kh, W - 4.6 * k, 80.5 * kh)
    box, m = cv.mask(tbox)
    X, Y = cv.centres(box)
    paper = (bgr(226, 226, 218)[None, None, :] * (1 - 0.06 * (Y / H))[..., None]).astype(np.float32)
    cv.blend(box, m, paper)
    y = 59.6 * kh
    lines = int(rng.integers(3, 6))
    for li in range(lines):
        words = [_WORDS[int(i)] for i in rng.integers(len(_WORDS), size=8)]
        txt = " ".join(words)
        if li == 0:
            txt = txt.split(" ", 1)[0].capitalize() + ": " + txt.split(" ", 1)[1]
        maxw = W - 12.0 * k
        while len(txt) > 4 and _text_w(txt, 2.2 * k) > maxw:
            txt = txt.rsplit(" ", 1)[0]
        cv.text(txt, 6.0 * k, y, 2.2 * k, bgr(30, 30, 34), weight=700 if li == 0 else 450, anchor="left")
        y += 3.6 * kh
    # stats
    for i in range(int(rng.integers(2, 5))):
        x = 6.5 * k + i * 8.5 * k
        cv.fill(shp_box(x, 81.4 * kh, x + 7.0 * k, 85.2 * kh).buffer(-0.6).buffer(0.6),
                [bgr(190, 60, 50), bgr(60, 120, 200), bgr(60, 160, 80), bgr(200, 170, 60)][i % 4])
        cv.text(str(int(rng.integers(0, 10))), x + 3.5 * k, 83.3 * kh, 2.6 * k, bgr(250, 250, 250), weight=800)
    # rounded corners: neutral outside
    add_grain(cv.img, rng_for("card-grain", seed, s), sigma=2.0, chroma=0.3)
    card = _rounded_card(cv, W, H, CARD_CORNER_MM)
    cv.fill(shp_box(-1, -1, W + 1, H + 1).difference(card), NEUTRAL_BGR)
    return cv.img


def _text_w(txt: str, size_mm: float) -> float:
    from .art_common import text_width_mm
    return text_width_mm(txt, size_mm, 450)


def _paste_canvas(cv: Canvas, sub: Canvas, x_mm: float, y_mm: float) -> None:
    u0, v0 = int(round(x_mm * cv.s)), int(round(y_mm * cv.s))
    h, w = sub.img.shape[:2]
    u1, v1 = min(cv.w, u0 + w), min(cv.h, v0 + h)
    cv.img[v0:v1, u0:u1] = sub.img[: v1 - v0, : u1 - u0]


def _card_picture(w_mm: float, h_mm: float, s: float, rng) -> Canvas:
    pic = Canvas(w_mm, h_mm, s)
    hues = [bgr(150, 40, 120), bgr(30, 90, 170), bgr(170, 90, 30), bgr(30, 140, 120), bgr(120, 50, 170)]
    c1 = hues[int(rng.integers(len(hues)))]
    c2 = hues[int(rng.integers(len(hues)))]
    bg = nebula(pic, rng, c1 * 1.2, c2, strength=1.1, work_ppm=4.0)
    pic.img = to_u8(bg)
    star_field(pic, rng, density=0.08, bright=2, max_r=0.22, glow_scale=0.5)
    kinds = ["earth", "mars", "jupiter", "neptune", "venus", "moon", "uranus", "pluto", "mercury"]
    if rng.uniform() < 0.8:
        R = float(rng.uniform(0.2, 0.55)) * h_mm
        cx = float(rng.uniform(-0.1, 1.1)) * w_mm
        cy = float(rng.uniform(0.3, 1.1)) * h_mm
        tex = planet_texture(kinds[int(rng.integers(len(kinds)))], rng, (128, 256))
        render_sphere(pic, cx, cy, R, tex, light=(float(rng.uniform(-1, 1)), -0.6, 0.6),
                      tilt_deg=float(rng.uniform(-30, 30)), atmosphere=bgr(120, 170, 255), atm_strength=0.5)
    if rng.uniform() < 0.75:
        _spaceship(pic, rng, w_mm, h_mm)
    return pic


def _spaceship(cv: Canvas, rng, w_mm: float, h_mm: float) -> None:
    L = float(rng.uniform(0.35, 0.6)) * w_mm
    cx, cy = float(rng.uniform(0.35, 0.65)) * w_mm, float(rng.uniform(0.3, 0.7)) * h_mm
    ang = float(rng.uniform(-0.6, 0.6)) + (math.pi if rng.uniform() < 0.3 else 0.0)
    # half profile of the hull: x from tail (-0.5) to nose (+0.5), random widths
    xs = np.array([-0.5, -0.35, -0.1, 0.15, 0.35, 0.5])
    ys = np.array([0.10, 0.16, 0.14, 0.10, 0.06, 0.0]) * rng.uniform(0.7, 1.4, 6)
    ys[-1] = 0.0
    wing_x = float(rng.uniform(-0.3, 0.05))
    wing = float(rng.uniform(0.18, 0.38))
    top = list(zip(xs, -ys))
    top.insert(2, (wing_x - 0.08, -wing))
    top.insert(3, (wing_x + 0.05, -ys[2] * 0.9))
    hull = np.array(top + [(x, -y) for x, y in top[::-1][1:-1]])
    c, s_ = math.cos(ang), math.sin(ang)
    R = np.array([[c, -s_], [s_, c]])
    to = lambda p: (np.asarray(p) * L) @ R.T + [cx, cy]  # noqa: E731
    body = [bgr(180, 184, 190), bgr(200, 190, 170), bgr(150, 160, 175), bgr(210, 205, 200)][int(rng.integers(4))]
    # engine glow behind the tail
    tail = to([(-0.52, 0.0)])[0]
    glow = [bgr(120, 200, 255), bgr(255, 160, 80)][int(rng.integers(2))]
    cv.glow(tail[0], tail[1], 0.22 * L, glow, strength=0.9, falloff=1.5)
    cv.fill(to(hull) + [0.3, 0.4], bgr(0, 0, 0), alpha=0.5)
    cv.fill(to(hull), body * 0.55)
    cv.fill(to(hull * [0.92, 0.55] + [0.0, -0.02]), body)
    cv.fill(to(hull * [0.75, 0.25] + [0.02, -0.03]), np.minimum(body * 1.2, 255))
    cv.fill(to(np.array([(0.2, 0.0), (0.3, -0.025), (0.38, 0.0), (0.3, 0.025)])), bgr(40, 60, 90))
    cv.stroke(to([(-0.3, 0.0), (0.15, 0.0)]), 0.15, body * 0.4, alpha=0.6)


def card_back(s: float, size_mm=(63.0, 88.0)) -> np.ndarray:
    """The one card back shared by every card: symmetric under 180-degree turns and mirror images."""
    W, H = float(size_mm[0]), float(size_mm[1])
    cv = Canvas(W, H, s)
    rng = rng_for("card-back")
    cx, cy = W / 2, H / 2
    X = ((np.arange(cv.w, dtype=np.float32) + 0.5) / np.float32(s))[None, :] - np.float32(cx)
    Y = ((np.arange(cv.h, dtype=np.float32) + 0.5) / np.float32(s))[:, None] - np.float32(cy)
    r = np.sqrt(X * X + Y * Y)
    a = np.arctan2(Y, X)
    base = bgr(14, 22, 58)
    glow = np.exp(-(r / (0.45 * W)) ** 2)
    rays = (0.5 + 0.5 * np.cos(a * 16)) ** 6 * np.exp(-r / (0.5 * W))
    f = base[None, None, :] * (0.7 + 0.9 * glow)[..., None] + bgr(60, 90, 170)[None, None, :] * (0.35 * rays)[..., None]
    # a symmetric diamond lattice (symmetric under x -> -x and y -> -y)
    lat = (np.abs(np.sin((X + Y) * 0.55)) * np.abs(np.sin((X - Y) * 0.55)))
    f *= (1 + 0.08 * smoothstep(0.7, 0.95, lat))[..., None]
    cv.img = to_u8(f)
    gold = bgr(214, 180, 96)
    # border: black outer edge, gold double line
    cv.img[...] = np.where(_outer_mask(cv, W, H, 2.4)[..., None] > 0.5, cv.img, np.uint8(16))
    for inset, wd in ((3.4, 0.6), (4.6, 0.25)):
        rr = shp_box(inset, inset, W - inset, H - inset).buffer(-2.0).buffer(2.0)
        cv.fill(rr.difference(rr.buffer(-wd)), gold, alpha=0.95)
    # corner ornaments (mirrored)
    for sx in (-1, 1):
        for sy in (-1, 1):
            x, y = cx + sx * (W / 2 - 8.5), cy + sy * (H / 2 - 8.5)
            cv.fill(star_polygon(x, y, 2.6, 0.8, 4, 0), gold, alpha=0.9)
    # central emblem: rings, an 8-point star, a planet-like disc
    for rad, wd in ((19.0, 0.7), (16.5, 0.3), (11.0, 0.5)):
        ring = regular_polygon(cx, cy, rad + wd / 2, 128)
        inner = regular_polygon(cx, cy, rad - wd / 2, 128)
        cv.fill([ring, inner], gold, alpha=0.95)
    cv.fill(star_polygon(cx, cy, 15.5, 4.2, 8, -90), gold * 0.85, alpha=0.9)
    cv.fill(star_polygon(cx, cy, 10.0, 3.2, 4, -90), bgr(250, 226, 150))
    cv.disc(cx, cy, 4.2, bgr(20, 30, 80))
    cv.disc(cx, cy, 3.2, bgr(70, 120, 220))
    cv.disc(cx, cy, 1.4, bgr(200, 225, 255))
    # little stars placed symmetrically
    pts = rng.uniform([-W / 2 + 6, -H / 2 + 6], [-4, -4], (12, 2))
    for sx in (-1, 1):
        for sy in (-1, 1):
            q = pts * [sx, sy] + [cx, cy]
            q = q[np.hypot(q[:, 0] - cx, q[:, 1] - cy) > 21]
            cv.stamp_discs(q, 0.3, bgr(220, 225, 255), alpha=0.9)
    add_grain(cv.img, rng_for("card-back-grain", s), sigma=1.8, chroma=0.3)
    card = _rounded_card(cv, W, H, CARD_CORNER_MM)
    cv.fill(shp_box(-1, -1, W + 1, H + 1).difference(card), NEUTRAL_BGR)
    return cv.img


def _outer_mask(cv: Canvas, W: float, H: float, inset: float) -> np.ndarray:
    inner = shp_box(inset, inset, W - inset, H - inset).buffer(-1.5).buffer(1.5)
    box, m = cv.mask(inner, box=(0, 0, cv.w, cv.h))
    return m


# ------------------------------------------------------------------------------------------- pieces


def piece_top(kind: str, color: str, size_px: tuple[int, int], seed: int = 0) -> np.ndarray:
    h, w = max(int(size_px[0]), 1), max(int(size_px[1]), 1)
    if h < 8 or w < 8:  # tiny: draw larger and shrink
        big = piece_top(kind, color, (max(h, 8), max(w, 8)), seed)
        return cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
    rng = rng_for("piece", kind, color, seed)
    cv = Canvas(w, h, 1.0)  # drawn in pixel units
    base = color_of(color)
    if kind == "starship":
        _starship(cv, rng, base)
    elif kind == "beam":
        _brushed_metal(cv, rng, color_of("silver") if color in ("silver", "grey") else base)
    elif kind == "disc":
        _disc(cv, rng, base)
    elif kind.startswith("figure"):
        _cast_metal(cv, rng, base)
    elif kind == "meteor":
        _stone(cv, rng, color_of("grey") if color == "grey" else mix(color_of("grey"), base, 0.3))
    else:
        f = np.empty((h, w, 3), np.float32)
        f[...] = base
        f *= (1 + 0.04 * fbm(h, w, w, h, max(w, h) / 3, rng, octaves=3))[..., None]
        cv.img = to_u8(f)
    add_grain(cv.img, rng_for("piece-grain", kind, color, seed, h, w), sigma=1.5, chroma=0.2)
    return cv.img


def _shade_from_height(hgt: np.ndarray, strength: float, light=(-0.6, -0.7)) -> np.ndarray:
    gy, gx = np.gradient(hgt)
    L = np.asarray(light, np.float32)
    L = L / np.linalg.norm(L)
    return (1 - strength * (gx * L[0] + gy * L[1])).astype(np.float32)


def _starship(cv: Canvas, rng, base: np.ndarray) -> None:
    h, w = cv.h, cv.w
    X = ((np.arange(w, dtype=np.float32) + 0.5) / w)[None, :]
    Y = ((np.arange(h, dtype=np.float32) + 0.5) / h)[:, None]
    # body with a soft top-light gradient and a faint sticker print texture
    shade = 1.08 - 0.22 * np.abs(Y - 0.5) * 2 - 0.06 * (1 - X)
    f = base[None, None, :] * shade[..., None]
    f *= (1 + 0.03 * fbm(h, w, w, h, max(w, h) / 4, rng, octaves=3))[..., None]
    cv.img = to_u8(f)
    light = mix(base, bgr(255, 255, 255), 0.6)
    dark = base * 0.45
    # panel lines
    for yy in (0.22, 0.78):
        cv.stroke([(0.08 * w, yy * h), (0.62 * w, (0.5 + (yy - 0.5) * 0.7) * h)], max(0.6, 0.012 * h), dark,
                  alpha=0.7)
    cv.stroke([(0.18 * w, 0.1 * h), (0.18 * w, 0.9 * h)], max(0.6, 0.012 * h), dark, alpha=0.5)
    # the cockpit stripe along +x: from the middle of the ship, narrowing to the nose
    stripe = np.array([(0.42 * w, 0.4 * h), (0.84 * w, 0.45 * h), (0.995 * w, 0.5 * h), (0.84 * w, 0.55 * h),
                       (0.42 * w, 0.6 * h), (0.38 * w, 0.5 * h)])
    cv.fill(stripe, light)
    # two thin swept accent lines on the wings, pointing forward
    for sgn in (-1, 1):
        wing = np.array([(0.12 * w, (0.5 + sgn * 0.36) * h), (0.2 * w, (0.5 + sgn * 0.36) * h),
                         (0.46 * w, (0.5 + sgn * 0.14) * h), (0.4 * w, (0.5 + sgn * 0.14) * h)])
        cv.fill(wing, light, alpha=0.8)
    # canopy near the nose: dark glass with a highlight
    canopy = np.array([(0.64 * w, 0.465 * h), (0.76 * w, 0.475 * h), (0.8 * w, 0.5 * h), (0.76 * w, 0.525 * h),
                       (0.64 * w, 0.535 * h)])
    cv.fill(canopy, bgr(30, 36, 48))
    cv.fill(np.array([(0.66 * w, 0.475 * h), (0.75 * w, 0.48 * h), (0.77 * w, 0.492 * h), (0.67 * w, 0.492 * h)]),
            bgr(200, 220, 240), alpha=0.8)
    # engines at the back
    for yy in (0.3, 0.7):
        cv.fill(np.array([(0.0, (yy - 0.07) * h), (0.09 * w, (yy - 0.07) * h), (0.09 * w, (yy + 0.07) * h),
                          (0.0, (yy + 0.07) * h)]), bgr(40, 40, 44))
        cv.fill(np.array([(0.0, (yy - 0.04) * h), (0.05 * w, (yy - 0.04) * h), (0.05 * w, (yy + 0.04) * h),
                          (0.0, (yy + 0.04) * h)]), bgr(255, 170, 60))


def _brushed_metal(cv: Canvas, rng, base: np.ndarray) -> None:
    h, w = cv.h, cv.w
    streak = lattice_noise(h, w, w, h, max(w / 3.0, 4), 0.7, rng)
    streak2 = lattice_noise(h, w, w, h, max(w / 10.0, 2), 0.5, rng)
    Y = ((np.arange(h, dtype=np.float32) + 0.5) / h)[:, None]
    X = ((np.arange(w, dtype=np.float32) + 0.5) / w)[None, :]
    sheen = 0.92 + 0.16 * np.exp(-((Y - 0.35) / 0.25) ** 2) + 0.05 * np.sin(X * 3.0)
    lum = sheen * (1 + 0.05 * streak + 0.03 * streak2)
    edge = np.minimum(np.minimum(X, 1 - X) * w, np.minimum(Y, 1 - Y) * h)
    lum *= 1 - 0.18 * smoothstep(2.5, 0.0, edge)
    cv.img = to_u8(base[None, None, :] * lum[..., None])


def _disc(cv: Canvas, rng, base: np.ndarray) -> None:
    h, w = cv.h, cv.w
    R = min(h, w) / 2.0
    X = (np.arange(w, dtype=np.float32) + 0.5)[None, :] - np.float32(w / 2)
    Y = (np.arange(h, dtype=np.float32) + 0.5)[:, None] - np.float32(h / 2)
    r = np.sqrt(X * X + Y * Y) / np.float32(R)
    # height: a raised rim ring near the edge, a slightly dished centre
    hgt = 0.9 * np.exp(-((r - 0.88) / 0.055) ** 2) - 0.08 * (1 - r ** 2)
    hgt += 0.01 * fbm(h, w, w, h, max(R / 3, 2), rng, octaves=3)
    shade = _shade_from_height(hgt * np.float32(R / 6.0), 0.5)
    # a little specular sheen on the rim's lit side
    dirl = (-(X * -0.6 + Y * -0.7) / np.maximum(r * R, 1e-3))
    spec = np.exp(-((r - 0.88) / 0.04) ** 2) * np.clip(-dirl, 0, 1) * 0.25
    lum = shade * (1 + 0.015 * fbm(h, w, w, h, max(R / 8, 1.5), rng, octaves=2))
    f = base[None, None, :] * lum[..., None] + (255 - base)[None, None, :] * spec[..., None] * 0.6
    if float(base.mean()) < 60:  # black plastic shows its highlights more
        f += 30 * spec[..., None]
    cv.img = to_u8(f)


def _normals(hgt: np.ndarray, k: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    gy, gx = np.gradient(hgt * np.float32(k))
    nz = 1 / np.sqrt(1 + gx * gx + gy * gy)
    return -gx * nz, -gy * nz, nz


def _cast_metal(cv: Canvas, rng, base: np.ndarray) -> None:
    """Painted cast metal: smooth sculpted relief, strong specular glints, darker crevices."""
    h, w = cv.h, cv.w
    m = min(h, w)
    relief = fbm(h, w, w, h, max(m / 1.3, 3), rng, octaves=3, gain=0.4)
    hammer = fbm(h, w, w, h, max(m / 12.0, 1.5), rng, octaves=2, gain=0.5)
    hgt = relief + 0.05 * hammer
    nx, ny, nz = _normals(hgt, m / 9.0)
    L = np.array([-0.5, -0.6, 0.62], np.float32)
    L /= np.linalg.norm(L)
    Hh = L + np.array([0, 0, 1], np.float32)
    Hh /= np.linalg.norm(Hh)
    diff = np.clip(nx * L[0] + ny * L[1] + nz * L[2], 0, 1)
    spec = np.clip(nx * Hh[0] + ny * Hh[1] + nz * Hh[2], 0, 1) ** 40
    crev = smoothstep(-0.5, -1.6, relief) * 0.35
    metal = mix(base, bgr(150, 150, 156), 0.12)
    f = metal[None, None, :] * ((0.5 + 0.75 * diff) * (1 - crev))[..., None]
    f += (np.float32(250) - f) * (spec * 0.75)[..., None]
    cv.img = to_u8(f)


def _stone(cv: Canvas, rng, base: np.ndarray) -> None:
    h, w = cv.h, cv.w
    hgt = fbm(h, w, w, h, max(min(h, w) / 2.0, 3), rng, octaves=6, gain=0.6)
    shade = _shade_from_height(hgt * np.float32(min(h, w) / 8.0), 0.3)
    speck = lattice_noise(h, w, w, h, 1.2, 1.2, rng)
    tone = fbm(h, w, w, h, max(min(h, w) / 3.0, 2), rng, octaves=3)
    col = base[None, None, :] * (0.9 + 0.1 * tone)[..., None] * mix(bgr(1.0, 1.0, 1.0), bgr(1.05, 1.0, 0.93), 0.5)
    f = col * shade[..., None]
    f *= (1 - 0.18 * smoothstep(1.4, 2.4, speck) + 0.12 * smoothstep(-1.4, -2.4, speck))[..., None]
    cv.img = to_u8(f)


__all__ = ["COLORS", "card_face", "card_back", "piece_top"]
