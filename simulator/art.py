"""The simulator's art: top-down textures of boards, table tops, cards and piece tops.

Public API (all pictures are BGR uint8 numpy arrays):

* :func:`tile_art` - a tile (board) in its canonical orientation, pixel ``(u, v)`` covering tile mm
  ``((u + 0.5) / s, (v + 0.5) / s)``; zone dotted lines lie exactly inside their polygons;
* :func:`table_texture` - the table top around the boards (oak, walnut, white, green_felt, grey_cloth);
* :func:`card_art` - an ASF-style card, face up (varied per seed) or face down (one shared back);
* :func:`piece_top_texture` - the top face of a piece; :data:`COLORS` - base colours of named colours.

Everything is deterministic in its arguments and drawn from mm-space designs (positions, sizes and noise
lattices in mm, from seeded generators), so a tile looks the same at 2 and at 6 px/mm, apart from
resolution.  The implementation is split over ``art_common`` (canvas, noise, drawing), ``art_space``
(nebulae, stars, planets, rocks), ``art_pitchfleet``, ``art_boards`` (PitRush, Galaktico, ASF mat),
``art_surfaces`` (wood, cloth, laminate, neoprene) and ``art_pieces`` (cards, piece tops).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable

import numpy as np

from calibration.profile import Tile

from .art_boards import asf_mat, galaktico_sector, pitrush_board
from .art_common import NEUTRAL_BGR, Canvas, add_grain, bgr, rng_for, to_u8
from .art_pieces import COLORS, card_back, card_face, piece_top
from .art_pitchfleet import DOT_MM, PITCH_MM, pitchfleet_tile
from .art_surfaces import table

TABLE_STYLES = ("oak", "walnut", "white", "green_felt", "grey_cloth")
GAME_ART = {"pitchfleet": pitchfleet_tile, "pitrush": pitrush_board, "galaktico": galaktico_sector,
            "asfccg": asf_mat}

__all__ = ["tile_art", "table_texture", "card_art", "piece_top_texture", "COLORS", "TABLE_STYLES", "DOT_MM",
           "PITCH_MM", "NEUTRAL_BGR", "CACHE_BYTES", "clear_cache"]

# In-memory only (nothing is written to disk): the renderer asks for the same tiles and card backs again
# and again.  Callers get copies, so they may modify what they receive.  Set to 0 to disable.
CACHE_BYTES = 384 << 20
_cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
_cache_lock = threading.Lock()


def clear_cache() -> None:
    with _cache_lock:
        _cache.clear()


def _cached(key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
    if CACHE_BYTES <= 0:
        return make()
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit.copy()
    img = make()
    if img.nbytes <= CACHE_BYTES // 3:
        with _cache_lock:
            _cache[key] = img.copy()
            total = sum(v.nbytes for v in _cache.values())
            while total > CACHE_BYTES and len(_cache) > 1:
                _, old = _cache.popitem(last=False)
                total -= old.nbytes
    return img


def tile_art(game: str, tile: Tile, px_per_mm: float, seed: int = 0) -> np.ndarray:
    """Top-down picture of ``tile`` at ``px_per_mm``: shape ``(round(h_mm * s), round(w_mm * s), 3)``.

    Outside the tile's outline the picture is a neutral grey (the renderer masks it).  Unknown games
    ("generic") get a plain printed board with each zone's dotted line.
    """
    s = float(px_per_mm)
    if not s > 0:
        raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
    fn = GAME_ART.get(game) or _generic
    img = _cached(("tile", game, tile.model_dump_json(), s, int(seed)), lambda: fn(tile, s, int(seed)))
    h, w = int(round(tile.size_mm[1] * s)), int(round(tile.size_mm[0] * s))
    assert img.shape == (h, w, 3) and img.dtype == np.uint8, (img.shape, (h, w))
    return img


def table_texture(width_px: int, height_px: int, px_per_mm: float, style: str, seed: int = 0) -> np.ndarray:
    """The table top: an ``(height_px, width_px, 3)`` picture at ``px_per_mm`` of the given style."""
    if style not in TABLE_STYLES:
        raise ValueError(f"unknown table style '{style}' (one of {', '.join(TABLE_STYLES)})")
    w, h = max(1, int(width_px)), max(1, int(height_px))

    def make() -> np.ndarray:
        img = to_u8(table(w, h, float(px_per_mm), style, seed))
        add_grain(img, rng_for("table-grain", style, seed, w, h), sigma=1.6 if style != "white" else 1.0, chroma=0.2)
        return img

    return _cached(("table", w, h, float(px_per_mm), style, int(seed)), make)


def card_art(face_up: bool, seed: int, px_per_mm: float, size_mm=(63.0, 88.0)) -> np.ndarray:
    """An ASF-style card (``(round(h*s), round(w*s), 3)``): a varied face, or the one shared back.

    Corners are rounded (3 mm) with a neutral grey outside (the renderer masks them).
    """
    size = (float(size_mm[0]), float(size_mm[1]))
    s = float(px_per_mm)
    if not s > 0:
        raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
    if face_up:
        return _cached(("card", int(seed), s, size), lambda: card_face(int(seed), s, size))
    return _cached(("back", s, size), lambda: card_back(s, size))


def piece_top_texture(kind: str, color: str, size_px: tuple[int, int], seed: int = 0) -> np.ndarray:
    """The top face of a piece, filling an ``(h, w)`` array (u along the piece's +x heading, v along +y).

    Kinds: ``starship`` (decal with a cockpit stripe pointing to +x), ``beam`` (brushed metal),
    ``disc`` (plastic with a raised rim), ``figure:*`` (cast metal), ``meteor`` (stone); others get a
    plain colour.
    """
    return piece_top(kind, color, (int(size_px[0]), int(size_px[1])), seed)


def _generic(tile: Tile, s: float, seed: int) -> np.ndarray:
    """A plain grey-blue printed board with every zone's dotted line (for profiles of other games)."""
    from .art_common import fbm
    from .art_boards import _outside_neutral

    W, H = tile.size_mm
    cv = Canvas(W, H, s)
    rng = rng_for("generic", tile.id, seed)
    f = np.empty((cv.h, cv.w, 3), np.float32)
    f[...] = bgr(58, 66, 84)
    f *= (1 + 0.06 * fbm(cv.h, cv.w, W, H, 80.0, rng, octaves=4))[..., None]
    cv.img = to_u8(f)
    for z in tile.zones:
        cv.fill(z.geometry().buffer(-DOT_MM - 0.6), bgr(90, 110, 150), alpha=0.25)
        cv.dotted_outline(z.geometry(), bgr(236, 236, 228), DOT_MM, PITCH_MM)
    for p in tile.pits:
        cv.disc(p.center[0], p.center[1], p.radius, bgr(25, 25, 25))
    _outside_neutral(cv, tile)
    add_grain(cv.img, rng_for("generic-grain", tile.id, seed, s), sigma=2.0)
    return cv.img
