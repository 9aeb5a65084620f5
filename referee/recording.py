"""Recorded games (``tableref-recording/1``): the settled frames of a game plus the players' inputs.

A recording is a folder::

    manifest.json          this format
    empty.jpg              a photo of the empty table (the referee calibrates from it), and/or
    calibration.json       a calibration made beforehand (with its reference photo beside it)
    frames/0001.jpg ...    one settled frame after each shot

``manifest.json`` names the game, the players and the game's set-up (decks and deals, so a replay
is exact), then lists the turns in order.  Each turn says who played and what they chose (the inputs
only a person can give: whose turn, which card, which ship or disc, a restart) and which frame shows
the table after each shot.  ``confirm`` entries answer verdicts the referee flagged for review
(otherwise the detected verdict stands and the review is reported).  ``expected`` optionally holds
the final scores a test compares with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import pydantic

from tableref.errors import InputError
from tableref.files import FileModel, Part, load_model

XY = tuple[float, float]


class Shot(Part):
    """One shot of a turn: the settled frame after it, and whether the player then restarted."""

    frame: str = pydantic.Field(description="image path relative to the recording folder")
    restart: bool = pydantic.Field(False, description="Pitch Fleet: the player used the restart card after this shot")
    hands: list[str] = pydantic.Field([], description="PitRush Arena Phase I: players whose discs settled in this frame")


class Turn(Part):
    """A player's turn (Pitch Fleet) or action (PitRush)."""

    player: int | None = pydantic.Field(None, ge=0, description="index into players")
    action: Literal["shot", "neutral", "take_back", "remove", "declare", "observe"] = "shot"
    # Pitch Fleet
    ship: str | None = pydantic.Field(None, description="e.g. 'red1', 'blue3'")
    card: str | None = pydantic.Field(None, description="power card id, or 'pile:N' (1-based)")
    drawn: Literal["keep", "use"] | None = pydantic.Field(None, description="a card drawn at a charging satellite")
    # PitRush
    pit: str | None = pydantic.Field(None, description="pit id for a neutral disc, e.g. 'p7'")
    color: str | None = None
    from_line: bool = True
    note: str | None = None
    shots: list[Shot] = []


class Confirm(Part):
    """A person's answer to a flagged verdict: the piece nearest ``near_mm`` in ``frame`` is/ isn't..."""

    frame: str
    near_mm: XY
    outbound: bool | None = None
    zones: list[str] | None = None
    state: str | None = None


class RecordingFile(FileModel):
    format: Literal["tableref-recording/1"] = "tableref-recording/1"
    game: Literal["pitchfleet", "pitrush"]
    title: str | None = None
    players: list[str] = pydantic.Field(min_length=1)
    calibration: str | None = pydantic.Field(None, description="calibration.json relative to the folder")
    empty_photo: str | None = pydantic.Field(None, description="photo of the empty table to calibrate from")
    profile: str = pydantic.Field("builtin", description="'builtin' or a profile path relative to the folder")
    setup: dict[str, Any] = pydantic.Field({}, description="game set-up: decks, deals, mode, seats, colours")
    turns: list[Turn] = []
    confirm: list[Confirm] = []
    expected: dict[str, Any] = pydantic.Field({}, description="e.g. {'scores': [...]} for tests")

    @pydantic.model_validator(mode="after")
    def _source(self) -> "RecordingFile":
        if self.calibration is None and self.empty_photo is None:
            raise ValueError("give 'calibration' or 'empty_photo' (how the referee knows the table)")
        return self


class Recording:
    """A loaded recording folder."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder)
        if not self.folder.exists():
            raise InputError(f"{self.folder}: no such recording folder", "check the path")
        if not self.folder.is_dir():
            raise InputError(f"{self.folder}: is a file; a recording is a folder with manifest.json")
        manifest = self.folder / "manifest.json"
        if not manifest.exists():
            raise InputError(f"{self.folder}: no manifest.json", "a recording folder holds manifest.json and frames")
        self.data = load_model(manifest, RecordingFile, "recording manifest")
        for t in self.data.turns:
            for s in t.shots:
                if not (self.folder / s.frame).exists():
                    raise InputError(f"{manifest}: frame {s.frame} is missing", "re-copy the recording")

    def path(self, rel: str) -> Path:
        return self.folder / rel

    @property
    def n_frames(self) -> int:
        return sum(len(t.shots) for t in self.data.turns)
