"""The simulator's art: sizes, determinism, exact dotted lines, distinguishable tiles, surfaces, cards, pieces."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from calibration.nominal import BUILDERS
from calibration.profile import Tile, Zone
from simulator import art


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch):
    # every test draws for real (the cache would hide non-determinism)
    monkeypatch.setattr(art, "CACHE_BYTES", 0)


@pytest.fixture(scope="module")
def pf_tiles():
    return BUILDERS["pitchfleet"]().tiles


@pytest.fixture(scope="module")
def pf_at_2(pf_tiles):
    return {t.id: art.tile_art("pitchfleet", t, 2.0) for t in pf_tiles}


@pytest.fixture(scope="module")
def pf_at_6(pf_tiles):
    return {t.id: art.tile_art("pitchfleet", t, 6.0) for t in pf_tiles}


def _expected_shape(tile: Tile, s: float) -> tuple[int, int, int]:
    return (round(tile.size_mm[1] * s), round(tile.size_mm[0] * s), 3)


# ------------------------------------------------------------------------------------ tiles: basics


@pytest.mark.parametrize("game", ["pitchfleet", "pitrush", "galaktico", "asfccg"])
def test_tile_shape_and_determinism(game):
    tile = BUILDERS[game]().tiles[0]
    s = 1.7  # not an integer: sizes round
    a = art.tile_art(game, tile, s)
    assert a.shape == _expected_shape(tile, s) and a.dtype == np.uint8
    b = art.tile_art(game, tile, s)
    assert np.array_equal(a, b)
    c = art.tile_art(game, tile, s, seed=1)
    assert c.shape == a.shape and not np.array_equal(a, c)
    assert a.std() > 8  # a picture, not a flat fill


def test_cache_returns_private_copies(pf_tiles, monkeypatch):
    monkeypatch.setattr(art, "CACHE_BYTES", 64 << 20)
    art.clear_cache()
    a = art.tile_art("pitchfleet", pf_tiles[0], 1.0)
    a[:] = 0
    b = art.tile_art("pitchfleet", pf_tiles[0], 1.0)
    assert b.std() > 8
    art.clear_cache()


@pytest.mark.parametrize("game", ["pitrush", "galaktico"])
def test_outside_the_outline_is_neutral_and_inside_is_not(game):
    tile = BUILDERS[game]().tiles[0]
    s = 2.0
    img = art.tile_art(game, tile, s)
    outline = tile.outline_polygon()
    H, W = img.shape[:2]
    # a pixel well outside the outline, and one well inside
    xs, ys = np.meshgrid((np.arange(W) + 0.5) / s, (np.arange(H) + 0.5) / s)
    import shapely
    inside = shapely.contains_xy(outline.buffer(-3), xs.ravel(), ys.ravel()).reshape(H, W)
    outside = ~shapely.contains_xy(outline.buffer(3), xs.ravel(), ys.ravel()).reshape(H, W)
    assert outside.any() and inside.any()
    assert np.all(img[outside] == np.array(art.NEUTRAL_BGR, np.uint8))
    assert np.mean(np.all(img[inside] == np.array(art.NEUTRAL_BGR, np.uint8), axis=1)) < 0.001


def test_generic_game_gets_dotted_zones():
    tile = Tile(id="t", size_mm=(100, 80), thickness_mm=2,
                zones=[Zone(id="z", kind="area", polygon=[(20, 20), (70, 20), (70, 60), (20, 60)])])
    img = art.tile_art("generic", tile, 4.0)
    assert img.shape == (320, 400, 3)
    # the dots: on the line 0.6 mm inside the top edge, bright dots alternate with gaps
    row = img[int(20.6 * 4), int(25 * 4):int(65 * 4)].min(axis=1)
    assert (row > 180).mean() > 0.3 and (row < 150).mean() > 0.2


# ----------------------------------------------------------------------------- Pitch Fleet dotted lines


def _sample(img: np.ndarray, s: float, line, step: float = 0.1) -> np.ndarray:
    L = line.length
    n = max(8, int(L / step))
    pts = np.array([line.interpolate(t).coords[0] for t in np.linspace(0, L, n, endpoint=False)])
    u = np.clip(np.floor(pts[:, 0] * s).astype(int), 0, img.shape[1] - 1)
    v = np.clip(np.floor(pts[:, 1] * s).astype(int), 0, img.shape[0] - 1)
    return img[v, u].astype(int)


def _bright_line_pixels(px: np.ndarray) -> np.ndarray:
    """The dotted lines' colour: light and nearly grey."""
    return (px.min(axis=1) > 185) & (np.ptp(px, axis=1) < 50)


def test_dotted_lines_lie_exactly_inside_every_zone(pf_tiles, pf_at_6):
    s = 6.0
    for tile in pf_tiles:
        img = pf_at_6[tile.id]
        for z in tile.zones:
            g = z.geometry()
            inner = _sample(img, s, g.buffer(-0.6, quad_segs=32).boundary)   # dot centres
            outer = _sample(img, s, g.buffer(2.5, quad_segs=32).boundary)    # clear of the line
            frac = _bright_line_pixels(inner).mean()
            assert frac > 0.3, f"{tile.id}/{z.id}: only {frac:.2f} of the dot line is bright"
            assert not _bright_line_pixels(outer).any(), f"{tile.id}/{z.id}: line pixels 2.5 mm outside"


def test_dots_do_not_cross_the_polygon(pf_tiles, pf_at_6):
    """Just outside the polygon (0.3 mm) the dots must have faded: the outer edge is the polygon."""
    s = 6.0
    tile = next(t for t in pf_tiles if t.id == "saturn")  # has a ring zone with a hole
    img = pf_at_6[tile.id]
    for z in tile.zones:
        g = z.geometry()
        just_out = _sample(img, s, g.buffer(0.35, quad_segs=32).boundary)
        assert _bright_line_pixels(just_out).mean() < 0.02, z.id


# --------------------------------------------------------------------- Pitch Fleet: telling tiles apart


def _small(img: np.ndarray) -> np.ndarray:
    return cv2.resize(img, (48, 48), interpolation=cv2.INTER_AREA).astype(np.float32)


def test_nine_tiles_are_mutually_distinguishable(pf_at_2):
    small = {k: _small(v) for k, v in pf_at_2.items()}
    assert len(small) == 9
    for a, b in itertools.combinations(small, 2):
        d = np.abs(small[a] - small[b]).mean()
        assert d > 12, f"{a} and {b} look alike ({d:.1f})"
    # colour alone (mean hue/brightness histograms) also tells most of them apart
    means = {k: v.reshape(-1, 3).mean(axis=0) for k, v in small.items()}
    close = [(a, b) for a, b in itertools.combinations(means, 2) if np.abs(means[a] - means[b]).max() < 3]
    assert len(close) <= 2, close


def test_no_tile_equals_its_own_rotation(pf_at_2):
    for k, img in pf_at_2.items():
        sm = _small(img)
        for r in (1, 2, 3):
            d = np.abs(sm - np.rot90(sm, r)).mean()
            assert d > 12, f"{k} looks the same turned by {90 * r} degrees ({d:.1f})"


def test_planet_colours(pf_tiles, pf_at_2):
    """Each planet's sphere has its own colour: sample the middle of the planet zone."""
    def centre_colour(tile):
        z = next(z for z in tile.zones if z.kind == "planet")
        c = z.geometry().centroid
        img = pf_at_2[tile.id]
        u, v = int(c.x * 2), int(c.y * 2)
        patch = img[v - 8:v + 9, u - 16:u - 1].reshape(-1, 3).astype(float)  # lit side, left of centre
        return patch.mean(axis=0)  # BGR
    col = {t.id: centre_colour(t) for t in pf_tiles}
    b, g, r = col["mars"]
    assert r > g + 30 and r > b + 40                     # red-orange
    b, g, r = col["neptune"]
    assert b > r + 40                                    # deep blue
    b, g, r = col["uranus"]
    assert b > r + 20 and g > r + 20                     # cyan
    b, g, r = col["venus"]
    assert r > b + 30 and g > b + 20                     # yellow-cream
    assert max(col["earth"][0], col["earth"][1]) > col["earth"][2]  # blue-green


def test_same_design_at_every_resolution(pf_tiles, pf_at_2, pf_at_6):
    for tile in pf_tiles[:4]:
        lo = pf_at_2[tile.id].astype(np.float32)
        hi = cv2.resize(pf_at_6[tile.id], (lo.shape[1], lo.shape[0]), interpolation=cv2.INTER_AREA)
        a = cv2.GaussianBlur(lo, (0, 0), 1.5)
        b = cv2.GaussianBlur(hi.astype(np.float32), (0, 0), 1.5)
        assert np.abs(a - b).mean() < 4.0, tile.id


# ------------------------------------------------------------------------------- the other boards


def test_pitrush_lines_pits_and_areas():
    tile = BUILDERS["pitrush"]().tiles[0]
    s = 2.0
    img = art.tile_art("pitrush", tile, s).astype(float)
    lum = img.mean(axis=2)
    wood = np.median(lum[img.shape[0] // 2 - 20:img.shape[0] // 2 + 20, 40:80])
    for seat in tile.seats:
        (x0, y0), (x1, y1) = seat.shooting_line
        u, v = int((x0 + x1) / 2 * s), int((y0 + y1) / 2 * s)
        assert lum[v, u] < wood - 60, seat.id  # painted (black) shooting line
    for pit in tile.pits:
        u, v = int(pit.center[0] * s), int(pit.center[1] * s)
        assert lum[v, u] < wood * 0.6, pit.id   # dark wood in the hole
        ring = lum[v, int((pit.center[0] + pit.radius + 1.0) * s)]
        assert ring < wood - 10, pit.id           # the chamfer is darker than the top
    # each seat's shooting area has its own tint
    tints = []
    for seat in tile.seats:
        from shapely.geometry import Polygon
        c = Polygon(seat.shooting_area).representative_point()
        tints.append(img[int(c.y * s) - 3:int(c.y * s) + 4, int(c.x * s) - 3:int(c.x * s) + 4].reshape(-1, 3).mean(0))
    tints = np.array(tints)
    assert min(np.abs(a - b).max() for a, b in itertools.combinations(tints, 2)) > 2


def test_galaktico_sectors_have_their_accent_colour():
    tiles = BUILDERS["galaktico"]().tiles
    s = 2.0
    accents = {}
    for t in tiles:
        img = art.tile_art("galaktico", t, s)
        # the border band along the top edge
        band = img[int(1.2 * s):int(2.4 * s), int(60 * s):int(200 * s)].reshape(-1, 3).astype(float).mean(0)
        accents[t.id] = band  # BGR
    b, g, r = accents["sector1"]
    assert r > b + 40 and r > g + 40
    b, g, r = accents["sector2"]
    assert b > r + 40
    b, g, r = accents["sector3"]
    assert r > b + 40 and g > b + 40


def test_galaktico_grid_lines():
    t = BUILDERS["galaktico"]().tiles[0]
    s = 4.0
    img = art.tile_art("galaktico", t, s).astype(float).mean(axis=2)
    grid = t.grids[0]
    # on the horizontal line between rows 2 and 3 (y = 3 * v_y): bright; 5 mm off it: darker on average
    y = 3 * grid.v[1]
    xs = np.arange(3 * grid.v[0] + 10, 3 * grid.v[0] + 200, 0.5)
    on = img[int(y * s), (xs * s).astype(int)]
    off = img[int((y + 5) * s), ((xs + 5 * grid.v[0] / grid.v[1]) * s).astype(int)]
    assert on.mean() > off.mean() + 40


def test_asf_mat_slots_are_outlined():
    t = BUILDERS["asfccg"]().tiles[0]
    s = 2.0
    img = art.tile_art("asfccg", t, s).astype(float).mean(axis=2)
    base = np.median(img)
    assert base < 80  # dark neoprene
    for z in t.zones:
        x0, y0, x1, y1 = z.geometry().bounds
        xm = (x0 + x1) / 2
        # the outline runs inside the slot along its left edge; the middle of the slot stays dark
        assert img[int((y0 + y1) / 2 * s), int((x0 + 0.4) * s)] > base + 40, z.id
        assert img[int(y0 * s) - 4, int(xm * s)] < base + 25, z.id


# ------------------------------------------------------------------------------------------ tables


@pytest.mark.parametrize("style", art.TABLE_STYLES)
def test_table_textures(style):
    a = art.table_texture(300, 200, 1.5, style, seed=3)
    assert a.shape == (200, 300, 3) and a.dtype == np.uint8
    assert np.array_equal(a, art.table_texture(300, 200, 1.5, style, seed=3))
    assert not np.array_equal(a, art.table_texture(300, 200, 1.5, style, seed=4))
    assert 0.5 < a.astype(float).std(axis=(0, 1)).mean() < 40


def test_table_styles_look_like_their_materials():
    means = {st: art.table_texture(400, 300, 2.0, st, 1).reshape(-1, 3).astype(float).mean(0)
             for st in art.TABLE_STYLES}
    assert means["white"].min() > 200
    assert means["walnut"].mean() < means["oak"].mean() - 30
    b, g, r = means["green_felt"]
    assert g > r + 30 and g > b + 20
    b, g, r = means["grey_cloth"]
    assert max(b, g, r) - min(b, g, r) < 12
    b, g, r = means["oak"]
    assert r > g > b  # warm wood


@pytest.mark.parametrize("style", ["oak", "walnut"])
def test_wood_grain_runs_along_the_planks(style):
    img = art.table_texture(600, 600, 2.0, style, 2).astype(np.float32).mean(axis=2)
    gx = np.abs(np.diff(img, axis=1)).mean()
    gy = np.abs(np.diff(img, axis=0)).mean()
    assert gy > 1.5 * gx  # streaks along x: more change across them than along them


# ------------------------------------------------------------------------------------------- cards


def test_cards():
    s = 4.0
    up = [art.card_art(True, seed, s) for seed in range(3)]
    down = [art.card_art(False, seed, s) for seed in range(3)]
    for c in up + down:
        assert c.shape == (round(88 * s), round(63 * s), 3) and c.dtype == np.uint8
        assert np.all(c[0, 0] == np.array(art.NEUTRAL_BGR, np.uint8))  # rounded corner
        assert np.all(c[-1, -1] == np.array(art.NEUTRAL_BGR, np.uint8))
    for a, b in itertools.combinations(up, 2):
        assert np.abs(a.astype(float) - b.astype(float)).mean() > 10
    assert np.array_equal(down[0], down[1]) and np.array_equal(down[0], down[2])
    assert np.array_equal(up[1], art.card_art(True, 1, s))
    # the back is symmetric (180 degrees and mirrored), up to grain
    d = down[0].astype(float)
    assert np.abs(d - d[::-1, ::-1]).mean() < 6 and np.abs(d - d[:, ::-1]).mean() < 6
    assert np.abs(up[0].astype(float) - up[0][::-1, ::-1]).mean() > 20
    other = art.card_art(True, 5, 3.0, size_mm=(59.0, 86.0))
    assert other.shape == (round(86 * 3.0), round(59 * 3.0), 3)


# ------------------------------------------------------------------------------------------ pieces


def test_colors_table():
    for name in ("red", "blue", "yellow", "green", "white", "black", "silver", "grey", "orange", "violet"):
        c = art.COLORS[name]
        assert len(c) == 3 and all(0 <= v <= 255 for v in c)
    b, g, r = art.COLORS["red"]
    assert r > 150 and g < 80 and b < 80
    b, g, r = art.COLORS["blue"]
    assert b > r + 80


@pytest.mark.parametrize("kind,color", [("starship", "red"), ("starship", "blue"), ("beam", "silver"),
                                        ("disc", "red"), ("disc", "black"), ("disc", "white"),
                                        ("figure:scout", "yellow"), ("figure:station", "blue"), ("meteor", "grey"),
                                        ("token", "orange")])
def test_piece_tops(kind, color):
    a = art.piece_top_texture(kind, color, (40, 60), seed=2)
    assert a.shape == (40, 60, 3) and a.dtype == np.uint8
    assert np.array_equal(a, art.piece_top_texture(kind, color, (40, 60), seed=2))
    assert a.std() > 1.0  # never a flat colour
    if kind in ("disc", "figure:scout", "figure:station", "token"):
        # the piece's colour dominates its top face
        mean = a.reshape(-1, 3).astype(float).mean(0)
        base = np.array(art.COLORS[color], float)
        assert np.abs(mean - base).max() < 60


def test_starship_nose_is_visible():
    a = art.piece_top_texture("starship", "red", (60, 90)).astype(float).mean(axis=2)
    mid = a[27:33]
    front, back = mid[:, 50:85].mean(), mid[:, 5:40].mean()
    assert front > back + 15  # the light cockpit stripe runs forward along +x
    # and it is not symmetric front to back
    assert np.abs(a - a[:, ::-1]).mean() > 10


def test_disc_colours_are_distinct():
    cols = {c: art.piece_top_texture("disc", c, (30, 30)).reshape(-1, 3).astype(float).mean(0)
            for c in ("red", "blue", "yellow", "green", "white", "black")}
    for a, b in itertools.combinations(cols, 2):
        assert np.abs(cols[a] - cols[b]).max() > 60, (a, b)
