"""The calibration editor's server side: what the page shows, and saving a person's corrections.

A person drags the corners of a tile on the photo (image pixels) and relabels zones.  On save the
corners are back-projected through the calibration's camera onto the board plane (table mm), the
tile's rigid placement (turn + offset, the tile's size is known) is fitted to them by least
squares, and the calibration is rebuilt from the profile with :func:`build_calibration` -- camera,
quality figures (plus a note), bounds, appearance and reference photo kept, zone kinds changed by
hand carried over.  The previous file is kept as ``<name>.bak``.
"""

from __future__ import annotations

import hashlib
import math
import threading
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pydantic

from calibration.model import Calibration, CalibrationFile, Layout, TilePlacement, ZoneOut, build_calibration
from calibration.profile import BoardProfile
from tableref.errors import InputError
from tableref.files import read_image, validate_model, write_bytes, write_json

FiniteFloat = pydantic.FiniteFloat
PointPx = tuple[FiniteFloat, FiniteFloat]


class EditError(Exception):
    """A correction the editor refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 422):
        super().__init__(message)
        self.status = status


class CalibrationEdit(pydantic.BaseModel):
    """What the editor page sends: moved corners (image px, per tile, in the tile's corner order)
    and zone kinds (zone id -> kind)."""

    model_config = pydantic.ConfigDict(extra="forbid")

    tiles: dict[str, list[PointPx]] = pydantic.Field(default_factory=dict)
    zones: dict[str, str] = pydantic.Field(default_factory=dict)
    revision: str | None = pydantic.Field(None, description="the revision the page was loaded at (refused if stale)")


def fit_rigid(src: np.ndarray, dst: np.ndarray) -> tuple[float, np.ndarray, float]:
    """Least-squares rotation + translation taking points ``src`` (N,2) onto ``dst`` (N,2).

    Returns (angle in degrees, translation (2,), RMS residual).  No scale: the tile's size is known.
    """
    src = np.asarray(src, dtype=np.float64)
    dst = np.asarray(dst, dtype=np.float64)
    cs, cd = src.mean(axis=0), dst.mean(axis=0)
    a, b = src - cs, dst - cd
    h = a.T @ b
    theta = math.atan2(h[0, 1] - h[1, 0], h[0, 0] + h[1, 1])
    r = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    t = cd - r @ cs
    res = src @ r.T + t - dst
    return math.degrees(theta), t, float(math.sqrt(np.mean(np.sum(res ** 2, axis=1))))


def _wrap(deg: float) -> float:
    return (deg + 180.0) % 360.0 - 180.0


def _densify(pts: np.ndarray, per_edge: int = 6) -> np.ndarray:
    """A closed ring with extra points on every edge (so projected edges follow the lens)."""
    pts = np.asarray(pts, dtype=np.float64)
    nxt = np.roll(pts, -1, axis=0)
    s = np.linspace(0.0, 1.0, per_edge, endpoint=False)
    return (pts[:, None, :] + (nxt - pts)[:, None, :] * s[None, :, None]).reshape(-1, 2)


class _StoredZonesLayout(Layout):
    """A layout whose zones are the calibration's stored ones (so hand-set kinds are drawn)."""

    def __init__(self, profile: BoardProfile, placements: list[TilePlacement], zones: list[ZoneOut]):
        super().__init__(profile, placements)
        self._stored = zones

    def zones(self) -> list[ZoneOut]:
        return list(self._stored)


@dataclass(eq=False)
class Loaded:
    """One revision of the calibration file on disk, with what the editor derives from it."""

    path: Path
    raw: bytes
    cal: Calibration
    profile: BoardProfile
    stamp: tuple[int, int]

    @cached_property
    def revision(self) -> str:
        return hashlib.sha1(self.raw).hexdigest()[:16]

    @cached_property
    def layout(self) -> Layout:
        return Layout(self.profile, self.cal.data.placements)

    @cached_property
    def corners_mm(self) -> dict[str, np.ndarray]:
        return {pl.tile: self.layout.tile_corners(pl) for pl in self.cal.data.placements}

    @cached_property
    def corners_px(self) -> dict[str, np.ndarray]:
        return {t: self.cal.camera.project_plane(c) for t, c in self.corners_mm.items()}

    @cached_property
    def zone_kinds(self) -> list[str]:
        """The kinds a zone may be given: every kind the profile uses (and any already in the file)."""
        kinds = {z.kind for t in self.profile.tiles for z in t.zones} | {z.kind for z in self.cal.data.zones}
        return sorted(kinds)

    @cached_property
    def profile_zone_kinds(self) -> dict[str, str]:
        return {z.id: z.kind for z in self.layout.zones()}

    @property
    def photo_path(self) -> Path:
        return self.path.parent / (self.cal.data.reference_image or "")


class CalibrationEditor:
    """The calibration file behind the editor pages (re-read whenever it changes on disk)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._lock = threading.RLock()
        self._loaded: Loaded | None = None
        self._photo: tuple[tuple[int, int], np.ndarray] | None = None
        self._overlay: tuple[str, bytes] | None = None
        lo = self.load()  # refuse a missing or broken calibration now, not on the first page view
        if not lo.cal.data.reference_image:
            raise InputError(f"{self.path}: has no photo of the empty table",
                             "calibrate again with 'tableref calibrate board' (it keeps one)")
        if not lo.photo_path.exists():
            raise InputError(f"{lo.photo_path}: the calibration's photo of the empty table is missing",
                             "put it back beside the calibration, or calibrate again")

    # ------------------------------------------------------------------------------- loading

    def load(self) -> Loaded:
        from vision.api import profile_of

        with self._lock:
            try:
                st = self.path.stat()
            except FileNotFoundError:
                raise InputError(f"{self.path}: no such calibration", "check the path") from None
            stamp = (st.st_mtime_ns, st.st_size)
            if self._loaded is not None and self._loaded.stamp == stamp:
                return self._loaded
            raw = self.path.read_bytes()
            cal = Calibration.load(self.path)
            self._loaded = Loaded(self.path, raw, cal, profile_of(cal), stamp)
            return self._loaded

    def photo(self) -> np.ndarray:
        lo = self.load()
        with self._lock:
            p = lo.photo_path
            st = p.stat()
            key = (st.st_mtime_ns, st.st_size)
            if self._photo is None or self._photo[0] != key:
                img = read_image(p)
                w, h = lo.cal.data.intrinsics.image_size
                if img.shape[1] != w or img.shape[0] != h:
                    raise InputError(f"{p}: is {img.shape[1]}x{img.shape[0]}, the calibration is for {w}x{h}")
                self._photo = (key, img)
            return self._photo[1]

    def overlay_png(self) -> bytes:
        """The photo with every tile (id and turn), zone, pit, seat and grid space drawn (PNG)."""
        from calibration.register import draw_overlay

        lo = self.load()
        with self._lock:
            if self._overlay is not None and self._overlay[0] == lo.revision:
                return self._overlay[1]
            lay = _StoredZonesLayout(lo.profile, lo.cal.data.placements, lo.cal.data.zones)
            img = draw_overlay(self.photo(), lo.cal.camera, lay, lo.cal.data)
            ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
            if not ok:  # pragma: no cover
                raise InputError("could not encode the overlay")
            self._overlay = (lo.revision, buf.tobytes())
            return self._overlay[1]

    def state(self) -> dict[str, Any]:
        """Everything the editor page draws over the photo, in image px."""
        lo = self.load()
        cam = lo.cal.camera
        d = lo.cal.data
        tiles = []
        for pl in d.placements:
            px = lo.corners_px[pl.tile]
            tiles.append({"id": pl.tile, "rotation_deg": pl.rotation_deg, "offset_mm": list(pl.offset_mm),
                          "corners_px": px.tolist(), "center_px": px.mean(axis=0).tolist(),
                          "match_score": pl.match_score})
        zones = []
        for z in d.zones:
            poly = np.asarray(z.polygon, dtype=np.float64)
            ring_px = cam.project_plane(_densify(poly, 4))
            centre = np.asarray(poly.mean(axis=0))
            zones.append({"id": z.id, "tile": z.id.split("/", 1)[0], "kind": z.kind, "name": z.name,
                          "profile_kind": lo.profile_zone_kinds.get(z.id), "stars": z.stars,
                          "polygon_px": np.round(ring_px, 2).tolist(),
                          "label_px": cam.project_plane(centre[None, :])[0].tolist()})
        w, h = d.intrinsics.image_size
        return {"path": str(self.path), "revision": lo.revision, "game": d.game, "profile_name": d.profile_name,
                "image_size": [w, h], "tiles": tiles, "zones": zones, "zone_kinds": lo.zone_kinds,
                "quality": d.quality.model_dump(mode="json"), "problems": lo.cal.problems()}

    # ------------------------------------------------------------------------------- editing

    def _apply(self, lo: Loaded, edit: CalibrationEdit) -> tuple[CalibrationFile, dict[str, Any]]:
        """The edited calibration file and a report; raises EditError for a refused edit."""
        d = lo.cal.data
        cam = lo.cal.camera
        w, h = d.intrinsics.image_size
        known = {pl.tile: pl for pl in d.placements}
        unknown = sorted(set(edit.tiles) - set(known))
        if unknown:
            raise EditError(f"unknown tile id(s) {unknown}; this calibration has {sorted(known)}")
        zone_ids = {z.id for z in d.zones}
        bad_zones = sorted(set(edit.zones) - zone_ids)
        if bad_zones:
            raise EditError(f"unknown zone id(s) {bad_zones}")
        bad_kinds = sorted({k for k in edit.zones.values() if k not in lo.zone_kinds})
        if bad_kinds:
            raise EditError(f"unknown zone kind(s) {bad_kinds}; the profile's kinds are {lo.zone_kinds}")

        placements: list[TilePlacement] = []
        fitted: dict[str, dict[str, Any]] = {}
        sq_sum, n_pts = 0.0, 0
        for pl in d.placements:
            if pl.tile not in edit.tiles:
                placements.append(pl)
                continue
            px = np.asarray(edit.tiles[pl.tile], dtype=np.float64).reshape(-1, 2)
            want = lo.corners_px[pl.tile]
            if px.shape[0] != want.shape[0]:
                raise EditError(f"tile {pl.tile}: {px.shape[0]} corner(s) given, the tile has {want.shape[0]}")
            outside = [i for i, (x, y) in enumerate(px) if not (-0.5 <= x <= w - 0.5 and -0.5 <= y <= h - 0.5)]
            if outside:
                i = outside[0]
                raise EditError(f"tile {pl.tile}: corner {i + 1} at ({px[i, 0]:.1f}, {px[i, 1]:.1f}) px is outside "
                                f"the {w}x{h} image")
            if np.max(np.abs(px - want)) < 0.05:  # not moved: keep the placement exactly
                placements.append(pl)
                continue
            c, rays = cam.rays_mm(px)
            with np.errstate(divide="ignore", invalid="ignore"):
                s = (0.0 - c[2]) / rays[:, 2]
            if not np.all(np.isfinite(s)) or np.any(s <= 0):
                raise EditError(f"tile {pl.tile}: a corner's line of sight does not meet the board plane")
            table = cam.backproject(px, 0.0)
            tile_pts = pl.to_tile(lo.corners_mm[pl.tile])  # the tile's own corners, mm
            deg, t, rms = fit_rigid(tile_pts, table)
            deg = pl.rotation_deg + _wrap(deg - pl.rotation_deg)  # keep the turn's numbering
            new = pl.model_copy(update={"rotation_deg": float(deg), "offset_mm": (float(t[0]), float(t[1])),
                                        "corner_residual_mm": round(rms, 4)})
            placements.append(new)
            sq_sum += rms ** 2 * len(px)
            n_pts += len(px)
            moved = new.to_table(tile_pts) - lo.corners_mm[pl.tile]
            fitted[pl.tile] = {"rotation_deg": new.rotation_deg, "offset_mm": list(new.offset_mm),
                               "residual_mm": rms, "moved_mm": float(np.max(np.linalg.norm(moved, axis=1))),
                               "corners_px": cam.project_plane(new.to_table(tile_pts)).tolist()}

        kinds = {z.id: z.kind for z in d.zones}  # kinds as stored: earlier hand edits are kept
        relabelled = {zid: (kinds[zid], k) for zid, k in edit.zones.items() if kinds[zid] != k}
        kinds.update(edit.zones)

        notes = []
        if fitted:
            notes.append("moved " + ", ".join(f"{t} (corner fit {f['residual_mm']:.2f} mm)" for t, f in fitted.items()))
        if relabelled:
            notes.append("relabelled " + ", ".join(f"{z} {a} -> {b}" for z, (a, b) in relabelled.items()))
        quality = d.quality.model_copy(deep=True)
        if notes:
            quality.notes = list(quality.notes) + [f"edited by hand in tableref serve "
                                                   f"{time.strftime('%Y-%m-%d %H:%M:%S')}: " + "; ".join(notes)]
        new_file = build_calibration(lo.profile, placements, cam, quality, profile_ref=d.profile,
                                     source_image=d.source_image, appearance=d.appearance)
        new_file.intrinsics = d.intrinsics  # exactly as stored, not round-tripped
        new_file.pose = d.pose
        new_file.reference_image = d.reference_image
        new_file.bounds = d.bounds
        new_file.profile_name = d.profile_name
        for z in new_file.zones:
            if z.id in kinds:
                z.kind = kinds[z.id]
        new_file = validate_model(new_file.model_dump(mode="json"), CalibrationFile, self.path)

        warnings = []
        limit = d.bounds.max_corner_rms_mm
        for t, f in fitted.items():
            if f["residual_mm"] > limit:
                warnings.append(f"tile {t}: the corners placed are not the tile's shape (rigid fit residual "
                                f"{f['residual_mm']:.2f} mm > {limit} mm); check them")
        lost = sorted(set(kinds) - {z.id for z in new_file.zones})
        if lost:  # pragma: no cover - the profile decides the zone ids, placements cannot drop one
            warnings.append(f"zone(s) {lost} are no longer in the calibration")
        residual = math.sqrt(sq_sum / n_pts) if n_pts else None
        report = {"residual_mm": residual, "tiles": fitted,
                  "zones": {z: {"from": a, "to": b} for z, (a, b) in relabelled.items()},
                  "problems": Calibration(new_file, str(self.path)).problems(), "warnings": warnings,
                  "changed": bool(fitted or relabelled)}
        return new_file, report

    def _check_revision(self, lo: Loaded, edit: CalibrationEdit) -> None:
        if edit.revision is not None and edit.revision != lo.revision:
            raise EditError(f"{self.path} changed on disk since the page was loaded (revision {edit.revision}, now "
                            f"{lo.revision}); reload the page and edit again", status=409)

    def preview(self, edit: CalibrationEdit) -> dict[str, Any]:
        """The fit of an edit, without saving anything."""
        with self._lock:
            lo = self.load()
            self._check_revision(lo, edit)
            _, report = self._apply(lo, edit)
            return report

    def save(self, edit: CalibrationEdit) -> dict[str, Any]:
        """Apply an edit and write the calibration atomically; the previous file becomes ``<name>.bak``."""
        with self._lock:
            lo = self.load()
            self._check_revision(lo, edit)
            new_file, report = self._apply(lo, edit)
            if not report["changed"]:
                return {**report, "saved": None, "backup": None, "revision": lo.revision}
            bak = self.path.with_name(self.path.name + ".bak")
            write_bytes(bak, lo.raw)
            write_json(self.path, new_file)
            self._loaded = None  # re-read what is on disk now
            now = self.load()
            return {**report, "saved": str(self.path), "backup": str(bak), "revision": now.revision}
