"""Recorded frames in a folder (``folder:PATH``): replaying a recorded game.

The frames are the folder's ``.jpg``/``.jpeg``/``.png`` files (any letter case; hidden files
skipped) in natural name order, so ``frame-2.jpg`` comes before ``frame-10.jpg`` and zero-padded
names sort as usual.  Sub-folders are ignored.

Timestamps come from ``frames.json`` in the folder when it exists (or the file given with the
``manifest`` option)::

    {"format": "tableref-frames/1",
     "frames": [{"file": "000000.jpg", "timestamp": 0.0}, {"file": "000001.jpg", "timestamp": 0.104}]}

``timestamp`` is seconds on the recording's clock (any origin).  The manifest must name every
image of the folder and only those, with timestamps that do not decrease in name order; anything
else is refused with an ``InputError`` naming the file.  Without a manifest the timestamp of frame
``i`` is ``i / fps`` (option ``fps``, default 10).

Images are read lazily, one per :meth:`read`; an unreadable image raises ``InputError``
(:class:`~tableref.errors.ImageError`) naming the file, as does an image whose size differs from
the first one's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

import numpy as np
import pydantic

from tableref.errors import InputError
from tableref.files import FileModel, Part, load_model, read_image

from .source import EndOfStream, FrameSource, opt_float, opt_path, positive

IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png")
MANIFEST_NAME = "frames.json"


class FrameEntry(Part):
    file: str = pydantic.Field(description="image file name, relative to the folder")
    timestamp: float = pydantic.Field(description="seconds on the recording's clock")


class FramesManifest(FileModel):
    """``frames.json``: the capture time of every frame of a recorded folder."""

    format: Literal["tableref-frames/1"] = "tableref-frames/1"
    frames: list[FrameEntry] = []


def natural_key(name: str) -> tuple:
    """Sort key that orders digit runs by value: ``f2`` < ``f10`` (ties broken by the exact name)."""
    parts = tuple((0, int(t), t) if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name.lower()) if t)
    return parts, name


def list_images(folder: Path) -> list[Path]:
    files = [p for p in folder.iterdir()
             if p.is_file() and not p.name.startswith(".") and p.suffix.lower() in IMAGE_EXTENSIONS]
    return sorted(files, key=lambda p: natural_key(p.name))


class FolderSource(FrameSource):
    """Images of a folder in name order (see the module docstring)."""

    kind = "folder"
    OPTIONS: ClassVar[dict[str, Callable[[Any], Any]]] = {"fps": positive(opt_float), "manifest": opt_path}

    def __init__(self, spec: str, path: Path, fps: float | None = None, manifest: Path | None = None):
        super().__init__(spec)
        folder = Path(path).expanduser()
        if not folder.exists():
            raise InputError(f"{folder}: no such folder", "check the path of the recording")
        if not folder.is_dir():
            raise InputError(f"{folder}: not a folder", "folder:PATH wants a folder of .jpg/.png frames")
        self.folder = folder
        self.files = list_images(folder)
        if not self.files:
            raise InputError(f"{folder}: no images (.jpg, .png) in this folder", "is this the recording's folder?")
        self.fps = float(fps) if fps is not None else 10.0
        self.manifest_path: Path | None = None
        mpath = Path(manifest).expanduser() if manifest is not None else folder / MANIFEST_NAME
        if manifest is not None and not mpath.exists():
            raise InputError(f"{mpath}: no such frames manifest", "check the path given with manifest=")
        if mpath.exists():
            self.manifest_path = mpath
            self.timestamps = self._timestamps_from(load_model(mpath, FramesManifest, "frames manifest"), mpath)
        else:
            self.timestamps = [i / self.fps for i in range(len(self.files))]
        first = read_image(self.files[0])
        self._size = (int(first.shape[1]), int(first.shape[0]))
        self._pending: np.ndarray | None = first
        self._pos = 0

    def _timestamps_from(self, man: FramesManifest, mpath: Path) -> list[float]:
        by_name: dict[str, float] = {}
        for i, e in enumerate(man.frames):
            if e.file in by_name:
                raise InputError(f"{mpath}: frames[{i}] names '{e.file}' a second time",
                                 "fix or regenerate the manifest")
            if not np.isfinite(e.timestamp):
                raise InputError(f"{mpath}: frames[{i}] ('{e.file}') has no finite timestamp")
            by_name[e.file] = float(e.timestamp)
        names = {p.name for p in self.files}
        missing = [n for n in by_name if n not in names]
        if missing:
            raise InputError(f"{mpath}: lists '{missing[0]}' but {self.folder} has no such image"
                             + (f" ({len(missing) - 1} more missing)" if len(missing) > 1 else ""),
                             "the recording is incomplete; restore the frames or fix the manifest")
        out = []
        for p in self.files:
            if p.name not in by_name:
                raise InputError(f"{p}: not listed in {mpath.name}, so its time is unknown",
                                 "remove the stray image or add it to the manifest")
            t = by_name[p.name]
            if out and t < out[-1]:
                raise InputError(f"{mpath}: '{p.name}' has timestamp {t} before the previous frame's {out[-1]}",
                                 "frames in name order must have non-decreasing timestamps")
            out.append(t)
        return out

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    @property
    def length(self) -> int:
        return len(self.files)

    def _read(self) -> tuple[np.ndarray, float]:
        if self._pos >= len(self.files):
            raise EndOfStream(f"{self.folder}: no more frames after {len(self.files)}")
        path = self.files[self._pos]
        if self._pending is not None:
            img, self._pending = self._pending, None
        else:
            img = read_image(path)
        if (img.shape[1], img.shape[0]) != self._size:
            raise InputError(f"{path}: is {img.shape[1]}x{img.shape[0]} pixels but the recording's frames are "
                             f"{self._size[0]}x{self._size[1]}", "frames of one recording must share one size")
        t = self.timestamps[self._pos]
        self._pos += 1
        return img, t

    def _close(self) -> None:
        self._pending = None
