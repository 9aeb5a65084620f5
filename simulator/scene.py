"""Simulated scenes (``tableref-scene/1``): what is on the table, how it is lit and photographed,
and the exact ground truth of every piece.

Frames: ``center_mm``, ``footprint_mm`` and the lamp position are in the table frame (mm on the
board plane, x right, y down; 3-D points above the board have negative z, see
:mod:`calibration.camera`).  ``base_mm`` is the elevation of a piece's underside above the board
plane at its centre (negative: on the table or in a pit).
"""

from __future__ import annotations

from typing import Literal

import pydantic

from calibration.camera import CameraModel, IntrinsicsPart, PosePart
from calibration.model import TilePlacement
from calibration.profile import BoardProfile
from tableref.files import FileModel, Part

XY = tuple[float, float]
XYZ = tuple[float, float, float]

TABLE_STYLES = ("oak", "walnut", "white", "green_felt", "grey_cloth")


class Lighting(Part):
    """A lamp above the table plus ambient light; colour temperature of the light in kelvin."""

    lamp_mm: XYZ = (0.0, 0.0, -1800.0)
    lamp_power: float = pydantic.Field(1.0, gt=0)
    ambient: float = pydantic.Field(0.45, ge=0, le=1)
    color_temp_k: float = pydantic.Field(5000.0, ge=2000, le=10000)
    glare: float = pydantic.Field(0.2, ge=0, le=1, description="specular strength of glossy board prints")
    gradient: tuple[float, float] = pydantic.Field((0.0, 0.0), description="extra linear fall-off across the image (x, y)")


class Sensor(Part):
    """What the camera does to the light: exposure, vignetting, blur, noise, JPEG."""

    exposure: float = pydantic.Field(1.0, gt=0)
    vignetting: float = pydantic.Field(0.25, ge=0, le=0.9, description="relative fall-off in the corners")
    blur_px: float = pydantic.Field(0.6, ge=0, description="optical blur, Gaussian sigma in output px")
    noise: float = pydantic.Field(2.0, ge=0, description="read noise sigma in 8-bit DN")
    shot_noise: float = pydantic.Field(0.6, ge=0, description="photon noise scale")
    jpeg_quality: int = pydantic.Field(88, ge=10, le=100)


class Hand(Part):
    """A hand (or arm) reaching over the table: an occluder for motion/settle tests (table mm)."""

    wrist_mm: XY
    fingertip_mm: XY
    width_mm: float = 80.0
    height_mm: float = 60.0


class PieceTruth(Part):
    """One piece: its pose and its exact verdicts."""

    id: int
    kind: str
    color: str
    center_mm: XY
    heading_deg: float = 0.0
    base_mm: float = 0.0
    height_mm: float
    tilt_deg: float = 0.0
    tilt_axis_deg: float = 0.0
    upright: bool = pydantic.Field(False, description="a beam standing on its end")
    footprint_mm: list[XY] = pydantic.Field(description="the piece's shape projected on the board plane, table mm")
    rests_on: Literal["board", "table", "pit", "piece", "rim"] = "board"
    outbound: bool = False
    zones: list[str] = []
    pit: str | None = None
    state: str = "surface"
    space: str | None = None
    margin_mm: float = pydantic.Field(999.0, description="distance to the nearest decision boundary (999: none near)")
    seed: int = 0


class SceneFile(FileModel):
    """``scene.json``: a simulated photo's set-up and ground truth."""

    format: Literal["tableref-scene/1"] = "tableref-scene/1"
    game: str
    profile: str = pydantic.Field(description="'builtin:<game>' or a path to a profile file")
    seed: int = 0
    shot: int = pydantic.Field(0, ge=0, description="which photo of this table: draws the sensor noise")
    image: str | None = None
    intrinsics: IntrinsicsPart
    pose: PosePart
    placements: list[TilePlacement]
    table_style: str = "oak"
    lighting: Lighting = Lighting()
    sensor: Sensor = Sensor()
    pieces: list[PieceTruth] = []
    hands: list[Hand] = []

    def camera(self) -> CameraModel:
        return CameraModel(self.intrinsics.to_intrinsics(), self.pose.to_pose())

    def load_profile(self, base_dir=None) -> BoardProfile:
        if self.profile.startswith("builtin:"):
            return BoardProfile.builtin(self.profile.split(":", 1)[1])
        from pathlib import Path

        p = Path(self.profile)
        if base_dir is not None and not p.is_absolute():
            p = Path(base_dir) / p
        return BoardProfile.load(p)
