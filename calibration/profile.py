"""Board profiles (``tableref-profile/1``): the physical boards and pieces of a game, in millimetres.

Geometry of a tile is given in the **tile's own frame**: origin at the tile's top-left corner in its
canonical orientation, x right, y down, mm.  A tile placed on the table is turned by a multiple of
90 degrees (plus a small hand-placement angle) and shifted: see :class:`calibration.model.TilePlacement`.

Zone polygons are the **outer edge** of the dotted line that marks the zone: a piece "touches the
dotted line" exactly when its footprint intersects the polygon.

See ``docs/formats.md`` for the format with examples; :func:`profile_json_schema` gives its JSON Schema.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pydantic
import shapely
from shapely.geometry import Point, Polygon, box

from tableref.errors import InputError
from tableref.files import FileModel, Part, load_model

GAMES = ("pitchfleet", "pitrush", "galaktico", "asfccg", "generic")
Game = Literal["pitchfleet", "pitrush", "galaktico", "asfccg", "generic"]
XY = tuple[float, float]


def _check_ring(ring: list[XY], what: str) -> list[XY]:
    if len(ring) < 3:
        raise ValueError(f"{what} needs at least 3 points, got {len(ring)}")
    poly = Polygon(ring)
    if not poly.is_valid or poly.area <= 0:
        raise ValueError(f"{what} is not a simple polygon with positive area ({shapely.is_valid_reason(poly)})")
    return ring


class Zone(Part):
    """A closed region marked on a tile (planet, satellite, asteroid belt, ...), tile mm."""

    id: str = pydantic.Field(min_length=1)
    kind: str = pydantic.Field(min_length=1, description="e.g. planet, satellite, charging_satellite, asteroid_belt")
    name: str | None = None
    polygon: list[XY] = pydantic.Field(description="outer edge of the dotted line, tile mm")
    holes: list[list[XY]] = []
    stars: int | None = pydantic.Field(None, ge=0, description="VP of a satellite")
    attributes: dict[str, Any] = {}

    @pydantic.field_validator("polygon")
    @classmethod
    def _poly(cls, v: list[XY]) -> list[XY]:
        return _check_ring(v, "polygon")

    @pydantic.field_validator("holes")
    @classmethod
    def _holes(cls, v: list[list[XY]]) -> list[list[XY]]:
        for i, h in enumerate(v):
            _check_ring(h, f"hole {i}")
        return v

    def geometry(self) -> Polygon:
        return Polygon(self.polygon, self.holes)


class Pit(Part):
    """A round hole in the board (PitRush), tile mm."""

    id: str = pydantic.Field(min_length=1)
    center: XY
    radius: float = pydantic.Field(gt=0)
    depth_mm: float = pydantic.Field(8.0, gt=0, description="depth of the hole below the board surface")

    def geometry(self, resolution: int = 64) -> Polygon:
        return Point(self.center).buffer(self.radius, quad_segs=max(4, resolution // 4))


class Seat(Part):
    """A player's seat: the shooting line (and optionally the shooting area), tile mm."""

    id: str = pydantic.Field(min_length=1)
    shooting_line: tuple[XY, XY]
    shooting_area: list[XY] | None = None

    @pydantic.field_validator("shooting_area")
    @classmethod
    def _area(cls, v: list[XY] | None) -> list[XY] | None:
        return None if v is None else _check_ring(v, "shooting_area")


class Grid(Part):
    """A lattice of parallelogram spaces (Galaktico sectors), tile mm.

    Space ``(r, c)`` (row ``0..rows-1``, column ``0..cols-1``) is the parallelogram with corners
    ``origin + c*u + r*v``, ``+u``, ``+u+v``, ``+v``.  Its id is ``"<grid id>:<r>,<c>"``.
    ``marks`` tags spaces, e.g. ``{"station": ["0,0"], "meteor": ["2,3", ...], "start": [...]}``.
    """

    id: str = pydantic.Field(min_length=1)
    origin: XY
    u: XY = pydantic.Field(description="edge vector of one space along a row, mm")
    v: XY = pydantic.Field(description="edge vector of one space along a column, mm")
    rows: int = pydantic.Field(gt=0)
    cols: int = pydantic.Field(gt=0)
    marks: dict[str, list[str]] = {}

    @pydantic.model_validator(mode="after")
    def _non_degenerate(self) -> "Grid":
        if abs(self.u[0] * self.v[1] - self.u[1] * self.v[0]) < 1e-6:
            raise ValueError("u and v must not be parallel")
        return self

    def space_id(self, r: int, c: int) -> str:
        return f"{self.id}:{r},{c}"

    def space_polygon(self, r: int, c: int) -> list[XY]:
        o, u, v = np.array(self.origin), np.array(self.u), np.array(self.v)
        p = o + c * u + r * v
        return [tuple(p), tuple(p + u), tuple(p + u + v), tuple(p + v)]

    def spaces(self) -> list[tuple[str, list[XY]]]:
        return [(self.space_id(r, c), self.space_polygon(r, c)) for r in range(self.rows) for c in range(self.cols)]


class Tile(Part):
    """One physical board (a Pitch Fleet planet board, the PitRush board, a Galaktico sector, a mat)."""

    id: str = pydantic.Field(min_length=1)
    name: str | None = None
    size_mm: XY = pydantic.Field(description="(width, height) of the tile's bounding rectangle, mm")
    thickness_mm: float = pydantic.Field(gt=0, description="the table lies this far below the board surface")
    outline: list[XY] | None = pydantic.Field(None, description="board shape inside the rectangle (default: the rectangle)")
    image: str | None = pydantic.Field(None, description="top-down picture, canonical orientation, relative path")
    symmetric: bool = pydantic.Field(False, description="True if turned copies cannot be told apart (rotation then ambiguous)")
    zones: list[Zone] = []
    pits: list[Pit] = []
    seats: list[Seat] = []
    grids: list[Grid] = []

    @pydantic.field_validator("size_mm")
    @classmethod
    def _size(cls, v: XY) -> XY:
        if v[0] <= 0 or v[1] <= 0:
            raise ValueError("width and height must be positive")
        return v

    @pydantic.field_validator("outline")
    @classmethod
    def _outline(cls, v: list[XY] | None) -> list[XY] | None:
        return None if v is None else _check_ring(v, "outline")

    @pydantic.model_validator(mode="after")
    def _unique_ids(self) -> "Tile":
        for name, items in (("zone", self.zones), ("pit", self.pits), ("seat", self.seats), ("grid", self.grids)):
            ids = [it.id for it in items]
            dup = {i for i in ids if ids.count(i) > 1}
            if dup:
                raise ValueError(f"duplicate {name} id(s) {sorted(dup)}")
        return self

    def outline_polygon(self) -> Polygon:
        if self.outline is not None:
            return Polygon(self.outline)
        return box(0.0, 0.0, self.size_mm[0], self.size_mm[1])


class Layer(Part):
    """A horizontal slice of a piece from ``h0`` to ``h1`` mm above its underside.

    Its shape is ``polygon`` or a circle of ``diameter_mm`` if given, else the piece's footprint;
    then scaled by ``scale`` and shifted by ``dx`` mm along the heading.  Pieces narrower at the top
    (a ship's cockpit, a figure's body over its base) are stacks of layers.
    """

    h0: float = pydantic.Field(ge=0)
    h1: float = pydantic.Field(gt=0)
    polygon: list[XY] | None = None
    diameter_mm: float | None = pydantic.Field(None, gt=0)
    scale: float = pydantic.Field(1.0, gt=0)
    dx: float = 0.0

    @pydantic.model_validator(mode="after")
    def _order(self) -> "Layer":
        if self.h1 <= self.h0:
            raise ValueError("h1 must be above h0")
        if self.polygon is not None and self.diameter_mm is not None:
            raise ValueError("give at most one of 'polygon' or 'diameter_mm'")
        return self


def circle_polygon(diameter_mm: float, n: int = 64) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = diameter_mm / 2
    return np.column_stack([r * np.cos(a), r * np.sin(a)])


class PieceSpec(Part):
    """A kind of piece: footprint (mm, around its own centre, heading +x), height, optional layers."""

    kind: str = pydantic.Field(min_length=1, description="e.g. starship, beam, disc, figure:scout, meteor, card")
    color: str = pydantic.Field(min_length=1)
    polygon: list[XY] | None = None
    diameter_mm: float | None = pydantic.Field(None, gt=0)
    height_mm: float = pydantic.Field(gt=0)
    count: int | None = pydantic.Field(None, ge=0, description="how many the game has")
    layers: list[Layer] | None = pydantic.Field(None, description="the 3-D shape as slices (default: one prism)")
    image: str | None = pydantic.Field(None, description="picture of the top face (e.g. a card back), relative path")

    @pydantic.model_validator(mode="after")
    def _one_footprint(self) -> "PieceSpec":
        if (self.polygon is None) == (self.diameter_mm is None):
            raise ValueError("give exactly one of 'polygon' or 'diameter_mm'")
        if self.polygon is not None:
            _check_ring(self.polygon, "polygon")
        if self.layers is not None and max(layer.h1 for layer in self.layers) > self.height_mm + 1e-6:
            raise ValueError("a layer reaches above height_mm")
        return self

    def footprint(self, n: int = 64) -> np.ndarray:
        """Footprint polygon (K,2) in mm around the piece centre, heading +x."""
        if self.polygon is not None:
            return np.asarray(self.polygon, dtype=np.float64)
        return circle_polygon(self.diameter_mm, n)

    def slices(self, n_circle: int = 40) -> list[tuple[np.ndarray, float, float]]:
        """The piece as (polygon (K,2) local mm, h0, h1) slices, bottom first."""
        if not self.layers:
            return [(self.footprint(n_circle), 0.0, self.height_mm)]
        out = []
        for layer in self.layers:
            if layer.polygon is not None:
                poly = np.asarray(layer.polygon, dtype=np.float64)
            elif layer.diameter_mm is not None:
                poly = circle_polygon(layer.diameter_mm, n_circle)
            else:
                poly = self.footprint(n_circle)
            out.append((poly * layer.scale + np.array([layer.dx, 0.0]), layer.h0, layer.h1))
        return out

    @property
    def key(self) -> str:
        return f"{self.kind}/{self.color}"


class NominalPlacement(Part):
    """Where a tile usually lies relative to the others (mm, degrees); used by the simulator."""

    tile: str
    x: float
    y: float
    rotation_deg: float = 0.0


class Arrangement(Part):
    """How the tiles of the profile are laid out on the table.

    ``free``: tiles are placed by hand, any order and quarter-turn (Pitch Fleet 3x3);
    ``fixed``: tiles keep the nominal placement up to small shifts (Galaktico's three sectors,
    a single PitRush board).
    """

    kind: Literal["free", "fixed"] = "fixed"
    grid: tuple[int, int] | None = pydantic.Field(None, description="(cols, rows) of a free grid arrangement")
    gap_mm: float = pydantic.Field(3.0, ge=0, description="typical gap between neighbouring tiles")
    nominal: list[NominalPlacement] = []


class ProfileFile(FileModel):
    """``profile.json``: the boards and pieces of one game."""

    format: Literal["tableref-profile/1"] = "tableref-profile/1"
    game: Game
    name: str
    nominal: bool = pydantic.Field(False, description="True when the geometry is nominal, not measured")
    notes: str | None = None
    tiles: list[Tile] = pydantic.Field(min_length=1)
    pieces: list[PieceSpec] = []
    pieces_stack: bool = pydantic.Field(True, description="pieces may lie on one another (False: one piece "
                                                          "per place, as on a board of spaces)")
    arrangement: Arrangement = Arrangement()

    @pydantic.model_validator(mode="after")
    def _unique_tiles(self) -> "ProfileFile":
        ids = [t.id for t in self.tiles]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise ValueError(f"duplicate tile id(s) {sorted(dup)}")
        known = set(ids)
        for p in self.arrangement.nominal:
            if p.tile not in known:
                raise ValueError(f"arrangement names unknown tile '{p.tile}'")
        if self.arrangement.kind == "fixed" and self.arrangement.nominal:
            placed = {p.tile for p in self.arrangement.nominal}
            left = sorted(known - placed)
            if left:
                raise ValueError(f"a fixed arrangement must place every tile; missing {left}")
        return self


class BoardProfile:
    """A loaded profile: the validated file plus where it came from (to resolve tile images)."""

    def __init__(self, data: ProfileFile, path: Path | None = None):
        self.data = data
        self.path = Path(path) if path is not None else None
        self._tile_images: dict[Path, np.ndarray] = {}  # tile pictures, read once
        self.derived: dict = {}  # what the registration derives from the pictures alone, made once

    @classmethod
    def load(cls, path: str | Path) -> "BoardProfile":
        p = Path(path)
        return cls(load_model(p, ProfileFile, "board profile"), p)

    @classmethod
    def builtin(cls, game: str) -> "BoardProfile":
        """The nominal profile shipped with tableref for a game."""
        path = builtin_profile_path(game)
        return cls.load(path)

    @property
    def game(self) -> str:
        return self.data.game

    @property
    def tiles(self) -> list[Tile]:
        return self.data.tiles

    @cached_property
    def tile_by_id(self) -> dict[str, Tile]:
        return {t.id: t for t in self.data.tiles}

    def tile(self, tile_id: str) -> Tile:
        try:
            return self.tile_by_id[tile_id]
        except KeyError:
            raise InputError(f"profile '{self.data.name}' has no tile '{tile_id}'") from None

    def piece(self, kind: str, color: str) -> PieceSpec:
        for p in self.data.pieces:
            if p.kind == kind and p.color == color:
                return p
        raise InputError(f"profile '{self.data.name}' has no piece {kind}/{color}")

    def tile_image_path(self, tile: Tile) -> Path | None:
        if tile.image is None:
            return None
        base = self.path.parent if self.path is not None else Path(".")
        return base / tile.image

    def load_tile_image(self, tile: Tile):
        """The tile's top-down picture (BGR, read-only: it is read once per profile and shared) and
        its scale in px per mm, or (None, None)."""
        from tableref.files import read_image

        p = self.tile_image_path(tile)
        if p is None:
            return None, None
        if p not in self._tile_images:
            img = read_image(p)
            img.flags.writeable = False
            self._tile_images[p] = img
        img = self._tile_images[p]
        ppm = img.shape[1] / tile.size_mm[0]
        if abs(img.shape[0] / ppm - tile.size_mm[1]) > 0.02 * tile.size_mm[1] + 1.0 / ppm:
            raise InputError(f"{p}: the picture of tile '{tile.id}' is {img.shape[1]}x{img.shape[0]} px, not the "
                             f"shape of its {tile.size_mm[0]:g}x{tile.size_mm[1]:g} mm", "re-take or re-crop it")
        return img, ppm


BUILTIN_DIR = Path(__file__).resolve().parent / "profiles"


def builtin_profile_path(game: str) -> Path:
    p = BUILTIN_DIR / f"{game}.json"
    if not p.exists():
        names = ", ".join(sorted(q.stem for q in BUILTIN_DIR.glob("*.json"))) or "none"
        raise InputError(f"no built-in profile for game '{game}'", f"built-in profiles: {names}")
    return p


def profile_json_schema() -> dict[str, Any]:
    return ProfileFile.model_json_schema()
