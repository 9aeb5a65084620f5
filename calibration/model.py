"""Calibrations (``tableref-calibration/1``): where the boards lie in one camera's view.

A calibration holds the camera (intrinsics and pose over the table), the placement of every tile of
the profile in the **table frame** (mm on the board plane, x right, y down), and — derived from the
profile and the placements — every zone, pit, seat and grid space in table mm, the support region
(the union of the boards, cracks between neighbouring tiles counted as board) and the quality
figures the referee checks before it accepts the calibration.

:class:`Layout` is the geometric part (placements -> table-frame geometry with prepared shapely
objects); the simulator uses the same code to compute ground truth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pydantic
import shapely
from shapely.geometry import MultiPolygon, Polygon

from tableref.errors import CalibrationRejected
from tableref.files import FileModel, Part, load_model

from .camera import CameraModel, IntrinsicsPart, PosePart
from .profile import BoardProfile

XY = tuple[float, float]


def rot2(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


class TilePlacement(Part):
    """A tile on the table: ``p_table = R(rotation_deg) @ p_tile + offset_mm`` (mm)."""

    tile: str
    rotation_deg: float = 0.0
    offset_mm: XY = (0.0, 0.0)
    match_score: float | None = pydantic.Field(None, description="identification score (1 = perfect)")
    corner_residual_mm: float | None = None

    def matrix(self) -> np.ndarray:
        """3x3 affine matrix tile mm -> table mm."""
        M = np.eye(3)
        M[:2, :2] = rot2(self.rotation_deg)
        M[:2, 2] = self.offset_mm
        return M

    def to_table(self, pts: Any) -> np.ndarray:
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        return p @ rot2(self.rotation_deg).T + np.asarray(self.offset_mm)

    def to_tile(self, pts: Any) -> np.ndarray:
        p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        return (p - np.asarray(self.offset_mm)) @ rot2(self.rotation_deg)


class ZoneOut(Part):
    id: str = pydantic.Field(description="'<tile id>/<zone id>'")
    kind: str
    name: str | None = None
    polygon: list[XY]
    holes: list[list[XY]] = []
    stars: int | None = None
    attributes: dict[str, Any] = {}


class PitOut(Part):
    id: str
    center: XY
    radius: float
    depth_mm: float


class SeatOut(Part):
    id: str
    shooting_line: tuple[XY, XY]
    shooting_area: list[XY] | None = None


class SpaceOut(Part):
    id: str
    polygon: list[XY]
    tags: list[str] = []


class Quality(Part):
    """Figures that say how far to trust a calibration; checked by :meth:`Calibration.check`."""

    reprojection_rms_px: float | None = pydantic.Field(None, description="edge/corner fit residual, px")
    corner_rms_mm: float | None = pydantic.Field(None, description="tile corner fit residual on the board, mm")
    worst_tile_score: float | None = pydantic.Field(None, description="lowest identification score of any tile")
    median_tile_score: float | None = pydantic.Field(None, description="the tiles' median identification score")
    worst_part_score: float | None = pydantic.Field(
        None, description="lowest median patch correlation over any well-printed part (~120 mm) of any tile")
    mm_per_px: float | None = pydantic.Field(None, description="board scale at the centre of the view")
    distortion_from: Literal["camera", "edges", "none", "simulator"] = "none"
    focal_told: float | None = pydantic.Field(
        None, description="how much of the focal length the photo told, 0..1 (the rest is the default lens's); "
                          "None: the lens came from camera.json")
    notes: list[str] = []


class Bounds(Part):
    max_reprojection_rms_px: float = 3.0  # noise of one picture correspondence; a wrong fit is far above
    max_corner_rms_mm: float = 1.5
    min_tile_score: float = 0.3  # median patch correlation; a wrong tile or turn scores near 0
    min_tile_score_ratio: float = 0.4  # a tile fitting far worse than the others is misplaced (one that
                                       # is partly off shows in the weakest part's score)
    max_mm_per_px: float = 2.0
    min_part_score: float = 0.15  # a part of a board whose print matches nothing: the fit misses it


class CalibrationFile(FileModel):
    """``calibration.json``."""

    format: Literal["tableref-calibration/1"] = "tableref-calibration/1"
    game: str
    profile: str | None = pydantic.Field(None, description="path of the profile used, relative to this file if possible")
    profile_name: str
    source_image: str | None = None
    reference_image: str | None = pydantic.Field(
        None, description="photo of the empty table, relative to this file: what the referee compares frames with")
    intrinsics: IntrinsicsPart
    pose: PosePart
    placements: list[TilePlacement]
    table_depth_mm: float = pydantic.Field(description="the table lies this far below the board surface")
    support: list[list[list[XY]]] = pydantic.Field(description="polygons of the support region: [exterior, *holes]")
    zones: list[ZoneOut] = []
    pits: list[PitOut] = []
    seats: list[SeatOut] = []
    spaces: list[SpaceOut] = []
    quality: Quality = Quality()
    bounds: Bounds = Bounds()
    appearance: dict[str, Any] = pydantic.Field({}, description="colour models learned at calibration")


def _ring(coords) -> list[XY]:
    return [(round(float(x), 4), round(float(y), 4)) for x, y in np.asarray(coords)[:-1]]


def polygon_to_rings(poly: Polygon) -> list[list[XY]]:
    return [_ring(poly.exterior.coords)] + [_ring(h.coords) for h in poly.interiors]


def union(geoms) -> shapely.Geometry:
    """The union of shapely geometries (mm or px).  GEOS's overlay can fail on valid inputs whose
    edges nearly coincide ("side location conflict": nine tiles placed edge to edge, buffered by 3
    mm, under GEOS 3.14); then the union is taken again with coordinates snapped to a nanometre
    grid, which always succeeds."""
    try:
        return shapely.union_all(geoms)
    except shapely.errors.GEOSException:
        return shapely.union_all(geoms, grid_size=1e-6)


class Layout:
    """Table-frame geometry of a profile's tiles at given placements (mm)."""

    def __init__(self, profile: BoardProfile, placements: list[TilePlacement], crack_mm: float | None = None):
        self.profile = profile
        self.placements = list(placements)
        gap = profile.data.arrangement.gap_mm if crack_mm is None else crack_mm
        self.crack_mm = max(gap, 0.0) + 2.0

    @cached_property
    def placement_by_tile(self) -> dict[str, TilePlacement]:
        return {p.tile: p for p in self.placements}

    def tile_polygon(self, placement: TilePlacement) -> Polygon:
        tile = self.profile.tile(placement.tile)
        ring = np.asarray(tile.outline_polygon().exterior.coords)
        return Polygon(placement.to_table(ring))

    @cached_property
    def tile_polygons(self) -> dict[str, Polygon]:
        return {p.tile: self.tile_polygon(p) for p in self.placements}

    @cached_property
    def support(self) -> MultiPolygon:
        """Union of the boards; cracks narrower than ``crack_mm`` between tiles count as board."""
        polys = list(self.tile_polygons.values())
        if not polys:
            return MultiPolygon()
        r = self.crack_mm / 2
        closed = union([p.buffer(r, join_style="mitre") for p in polys]).buffer(-r, join_style="mitre")
        merged = union([closed] + polys)
        if isinstance(merged, Polygon):
            merged = MultiPolygon([merged])
        return merged

    def zones(self) -> list[ZoneOut]:
        out = []
        for pl in self.placements:
            tile = self.profile.tile(pl.tile)
            for z in tile.zones:
                out.append(ZoneOut(id=f"{tile.id}/{z.id}", kind=z.kind, name=z.name,
                                   polygon=[tuple(p) for p in np.round(pl.to_table(z.polygon), 4).tolist()],
                                   holes=[[tuple(p) for p in np.round(pl.to_table(h), 4).tolist()] for h in z.holes],
                                   stars=z.stars, attributes=z.attributes))
        return out

    def pits(self) -> list[PitOut]:
        out = []
        for pl in self.placements:
            tile = self.profile.tile(pl.tile)
            for p in tile.pits:
                c = pl.to_table([p.center])[0]
                out.append(PitOut(id=f"{tile.id}/{p.id}", center=(round(c[0], 4), round(c[1], 4)), radius=p.radius,
                                  depth_mm=p.depth_mm))
        return out

    def seats(self) -> list[SeatOut]:
        out = []
        for pl in self.placements:
            tile = self.profile.tile(pl.tile)
            for s in tile.seats:
                line = pl.to_table(s.shooting_line)
                area = None if s.shooting_area is None else [tuple(p) for p in np.round(pl.to_table(s.shooting_area), 4).tolist()]
                out.append(SeatOut(id=f"{tile.id}/{s.id}", shooting_line=(tuple(line[0]), tuple(line[1])),
                                   shooting_area=area))
        return out

    def spaces(self) -> list[SpaceOut]:
        out = []
        for pl in self.placements:
            tile = self.profile.tile(pl.tile)
            for g in tile.grids:
                tags: dict[str, list[str]] = {}
                for tag, ids in g.marks.items():
                    for sid in ids:
                        tags.setdefault(f"{g.id}:{sid}", []).append(tag)
                for sid, poly in g.spaces():
                    out.append(SpaceOut(id=f"{tile.id}/{sid}",
                                        polygon=[tuple(p) for p in np.round(pl.to_table(poly), 4).tolist()],
                                        tags=tags.get(sid, [])))
        return out

    @property
    def table_depth_mm(self) -> float:
        return max(self.profile.tile(p.tile).thickness_mm for p in self.placements)

    def tile_corners(self, placement: TilePlacement) -> np.ndarray:
        tile = self.profile.tile(placement.tile)
        ring = np.asarray(tile.outline_polygon().exterior.coords)[:-1]
        return placement.to_table(ring)


# ----------------------------------------------------------------------------------- runtime view

@dataclass(eq=False)
class Calibration:
    """A loaded calibration with prepared shapely geometry for fast, vectorised judgement.

    All geometry is in the table frame (mm).  ``camera`` maps it to image pixels.
    """

    data: CalibrationFile
    path: str | None = None
    camera: CameraModel = field(init=False)

    def __post_init__(self) -> None:
        self.camera = CameraModel(self.data.intrinsics.to_intrinsics(), self.data.pose.to_pose())

    @classmethod
    def load(cls, path) -> "Calibration":
        return cls(load_model(path, CalibrationFile, "calibration"), str(path))

    @cached_property
    def support(self) -> shapely.Geometry:
        polys = [Polygon(r[0], r[1:]) for r in self.data.support]
        g = MultiPolygon(polys) if len(polys) != 1 else polys[0]
        shapely.prepare(g)
        return g

    @cached_property
    def zone_geoms(self) -> list[Polygon]:
        gs = [Polygon(z.polygon, z.holes) for z in self.data.zones]
        for g in gs:
            shapely.prepare(g)
        return gs

    @cached_property
    def zone_tree(self) -> shapely.STRtree:
        return shapely.STRtree(self.zone_geoms)

    @cached_property
    def pit_centers(self) -> np.ndarray:
        return np.array([p.center for p in self.data.pits], dtype=np.float64).reshape(-1, 2)

    @cached_property
    def pit_radii(self) -> np.ndarray:
        return np.array([p.radius for p in self.data.pits], dtype=np.float64)

    @cached_property
    def space_geoms(self) -> list[Polygon]:
        gs = [Polygon(s.polygon) for s in self.data.spaces]
        for g in gs:
            shapely.prepare(g)
        return gs

    @cached_property
    def space_tree(self) -> shapely.STRtree:
        return shapely.STRtree(self.space_geoms)

    def problems(self) -> list[str]:
        """Quality figures outside their bounds, each as a sentence (empty if the calibration is fit)."""
        q, b = self.data.quality, self.data.bounds
        out = []
        if q.reprojection_rms_px is not None and q.reprojection_rms_px > b.max_reprojection_rms_px:
            out.append(f"picture fit residual {q.reprojection_rms_px:.2f} px > {b.max_reprojection_rms_px} px")
        if q.corner_rms_mm is not None and q.corner_rms_mm > b.max_corner_rms_mm:
            out.append(f"tile corner residual {q.corner_rms_mm:.2f} mm > {b.max_corner_rms_mm} mm")
        if q.worst_tile_score is not None and q.worst_tile_score < b.min_tile_score:
            out.append(f"a tile was identified with score {q.worst_tile_score:.2f} < {b.min_tile_score}")
        elif (q.worst_tile_score is not None and q.median_tile_score
              and q.worst_tile_score < b.min_tile_score_ratio * q.median_tile_score):
            out.append(f"a tile fits its picture far worse than the others ({q.worst_tile_score:.2f} against "
                       f"{q.median_tile_score:.2f}): it may be misplaced")
        if q.worst_part_score is not None and q.worst_part_score < b.min_part_score:
            out.append(f"part of a board does not match its picture where the fit puts it (score "
                       f"{q.worst_part_score:.2f} < {b.min_part_score}): the fit misses that part")
        if q.mm_per_px is not None and q.mm_per_px > b.max_mm_per_px:
            out.append(f"resolution {q.mm_per_px:.2f} mm/px is coarser than {b.max_mm_per_px} mm/px")
        return out

    def check(self) -> "Calibration":
        """Raise CalibrationRejected if any quality figure is out of bounds; return self otherwise."""
        probs = self.problems()
        if probs:
            where = self.path or "calibration"
            raise CalibrationRejected(f"{where}: refused: " + "; ".join(probs),
                                      "re-run 'tableref calibrate board' with the boards well lit and fully in view")
        return self


def build_calibration(profile: BoardProfile, placements: list[TilePlacement], camera: CameraModel,
                      quality: Quality, *, profile_ref: str | None = None, source_image: str | None = None,
                      appearance: dict[str, Any] | None = None) -> CalibrationFile:
    """Assemble a calibration file from a profile, the tile placements and the camera."""
    lay = Layout(profile, placements)
    return CalibrationFile(
        game=profile.game, profile=profile_ref, profile_name=profile.data.name, source_image=source_image,
        intrinsics=IntrinsicsPart.of(camera.intrinsics), pose=PosePart.of(camera.pose),
        placements=placements, table_depth_mm=lay.table_depth_mm,
        support=[polygon_to_rings(p) for p in lay.support.geoms],
        zones=lay.zones(), pits=lay.pits(), seats=lay.seats(), spaces=lay.spaces(),
        quality=quality, appearance=appearance or {})
