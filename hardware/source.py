"""One interface for every frame source, and ``open_source`` which turns a spec string into one.

A source is a context manager that hands out :class:`Frame` objects::

    with open_source("usb:0", width=1920, height=1080) as src:
        for frame in src.frames():
            ...  # frame.image (BGR uint8), frame.timestamp (s), frame.index

Spec strings (options come as keyword arguments, or after ``?`` in the spec,
``sim:pitrush:3?size=1280x720&shots=2``; keyword arguments win):

======================================  ==================================================================
``usb:N``, ``usb:/dev/videoN``          a USB/V4L2 camera through OpenCV (:mod:`hardware.usb`)
``pi``, ``pi:N``                        a Raspberry Pi camera through picamera2 (:mod:`hardware.pi`)
``folder:PATH`` or a folder path        recorded frames, jpg/png in name order (:mod:`hardware.folder`)
``video:PATH`` or a video file path     a video file through OpenCV (:mod:`hardware.usb`)
``sim:GAME[:SEED][:empty]``             the simulator playing shots, or an empty table (:mod:`hardware.sim`)
======================================  ==================================================================

Timestamps are seconds: ``time.monotonic()`` at capture for cameras (``is_live``), the recording's
clock for folders and videos, ``index / fps`` for the simulator.  ``index`` counts the frames this
source has delivered, from 0.

When a finite source (folder, video, simulator) has no more frames, :meth:`FrameSource.read` raises
:class:`EndOfStream` (a :class:`~tableref.errors.CameraError`) and :meth:`FrameSource.frames` simply
stops.  A camera that cannot be opened raises ``CameraError`` saying what to check; a spec or option
that makes no sense raises ``InputError``.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self
from urllib.parse import parse_qsl

import numpy as np

from tableref.errors import CameraError, InputError

SPEC_FORMS = ("usb:N", "usb:/dev/videoN", "pi", "pi:N", "folder:PATH (or a folder path)",
              "video:PATH (or a video file path)", "sim:GAME[:SEED]", "sim:GAME:SEED:empty")
VIDEO_EXTENSIONS = (".mp4", ".avi", ".mkv", ".mov", ".webm", ".m4v")


@dataclass(frozen=True, eq=False)
class Frame:
    """One picture from a source: BGR uint8 ``image`` (H, W, 3), ``timestamp`` in seconds, ``index`` from 0."""

    image: np.ndarray
    timestamp: float
    index: int

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


class EndOfStream(CameraError):
    """A finite source (folder, video file, simulator) has delivered its last frame."""


class FrameSource(ABC):
    """Base of every frame source.

    Subclasses implement :meth:`_read` (return ``(image, timestamp)`` or raise :class:`EndOfStream`),
    :attr:`size` and optionally :meth:`_close`, :attr:`is_live` and :attr:`length`.  ``OPTIONS``
    maps each keyword option the source accepts to the function that converts a value given as text
    (from a spec's ``?k=v``) or as a Python value.
    """

    kind: ClassVar[str] = "source"
    OPTIONS: ClassVar[dict[str, Callable[[Any], Any]]] = {}

    def __init__(self, spec: str):
        self.spec = spec
        self._closed = False
        self._next_index = 0

    # ------------------------------------------------------------------------------ interface
    @property
    @abstractmethod
    def size(self) -> tuple[int, int]:
        """(width, height) of the frames, pixels."""

    @property
    def is_live(self) -> bool:
        """True for a camera (frames happen in real time; timestamps are ``time.monotonic()``)."""
        return False

    @property
    def length(self) -> int | None:
        """How many frames the source will deliver in all, when known (None for cameras)."""
        return None

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self) -> Frame:
        """The next frame.  Raises :class:`EndOfStream` after the last frame of a finite source,
        ``CameraError`` when a camera stops delivering, ``InputError`` for an unreadable recorded frame."""
        if self._closed:
            raise ValueError(f"{self.spec}: read from a closed frame source")
        image, timestamp = self._read()
        frame = Frame(image=image, timestamp=float(timestamp), index=self._next_index)
        self._next_index += 1
        return frame

    def frames(self, limit: int | None = None) -> Iterator[Frame]:
        """Frames until the end of the stream (or ``limit`` frames)."""
        n = 0
        while limit is None or n < limit:
            try:
                frame = self.read()
            except EndOfStream:
                return
            yield frame
            n += 1

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def close(self) -> None:
        """Release the device or files; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        self._close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<{type(self).__name__} {self.spec!r} {state}>"

    # ------------------------------------------------------------------------------ to implement
    @abstractmethod
    def _read(self) -> tuple[np.ndarray, float]:
        """The next image (BGR uint8) and its timestamp in seconds."""

    def _close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        return None


# ---------------------------------------------------------------------------------- option parsing

def opt_int(value: Any) -> int:
    if isinstance(value, bool):
        raise ValueError("expected a whole number")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    raise ValueError("expected a whole number")


def opt_float(value: Any) -> float:
    if isinstance(value, bool):
        raise ValueError("expected a number")
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise ValueError("expected a number") from None
    if not np.isfinite(out):
        raise ValueError("expected a finite number")
    return out


def opt_bool(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError("expected true or false")


def opt_size(value: Any) -> tuple[int, int]:
    """``"640x360"`` or ``(640, 360)`` -> (width, height)."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+)\s*[xX*,]\s*(\d+)\s*", value)
        if not m:
            raise ValueError("expected WIDTHxHEIGHT, e.g. 640x360")
        w, h = int(m.group(1)), int(m.group(2))
    else:
        try:
            w, h = (opt_int(v) for v in value)
        except (TypeError, ValueError):
            raise ValueError("expected WIDTHxHEIGHT, e.g. 640x360") from None
    if w < 16 or h < 16:
        raise ValueError("expected at least 16x16 pixels")
    return w, h


def opt_str(value: Any) -> str:
    return str(value)


def opt_path(value: Any) -> Path:
    return Path(value)


def opt_choice(*choices: str) -> Callable[[Any], str]:
    def conv(value: Any) -> str:
        v = str(value).strip().lower()
        if v not in choices:
            raise ValueError("expected one of " + ", ".join(choices))
        return v

    return conv


def positive(conv: Callable[[Any], Any], allow_zero: bool = False) -> Callable[[Any], Any]:
    def check(value: Any) -> Any:
        v = conv(value)
        if v < 0 or (v == 0 and not allow_zero):
            raise ValueError("expected a number " + (">= 0" if allow_zero else "> 0"))
        return v

    return check


def convert_options(cls: type[FrameSource], spec: str, options: dict[str, Any]) -> dict[str, Any]:
    """Check option names against ``cls.OPTIONS`` and convert their values; InputError otherwise."""
    out = {}
    for name, value in options.items():
        conv = cls.OPTIONS.get(name)
        if conv is None:
            known = ", ".join(sorted(cls.OPTIONS)) or "none"
            raise InputError(f"source '{spec}': unknown option '{name}'", f"{cls.kind} sources accept: {known}")
        if value is None:
            out[name] = None
            continue
        try:
            out[name] = conv(value)
        except ValueError as e:
            raise InputError(f"source '{spec}': option {name}={value!r}: {e}") from None
    return out


# ---------------------------------------------------------------------------------- spec parsing

def _unknown(spec: str, why: str | None = None) -> InputError:
    what = f"'{spec}' is not a frame source" + (f" ({why})" if why else "")
    return InputError(what, "accepted forms: " + ", ".join(SPEC_FORMS))


def parse_spec(spec: str) -> tuple[str, dict[str, Any], dict[str, str]]:
    """``spec`` -> (kind, arguments, options from ``?k=v&...``).  Raises InputError for nonsense.

    kinds and their arguments: ``usb`` {device: int | str}, ``pi`` {camera: int}, ``folder`` {path},
    ``video`` {path}, ``sim`` {game, seed, empty}.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise _unknown(str(spec), "empty")
    text = spec.strip()
    query: dict[str, str] = {}
    scheme, sep, rest = text.partition(":")
    scheme_l = scheme.lower()
    known_scheme = scheme_l in ("usb", "pi", "folder", "video", "sim")
    if "?" in text and (known_scheme or not Path(text).exists()):
        text, _, q = text.partition("?")
        try:
            query = dict(parse_qsl(q, keep_blank_values=True, strict_parsing=True))
        except ValueError:
            raise _unknown(spec, f"cannot read the options '?{q}': expected ?name=value&name=value") from None
        scheme, sep, rest = text.partition(":")
        scheme_l = scheme.lower()

    if scheme_l == "usb":
        arg = rest.strip() if sep else "0"
        if re.fullmatch(r"\d+", arg):
            return "usb", {"device": int(arg)}, query
        if arg.startswith("/dev/"):
            return "usb", {"device": arg}, query
        raise _unknown(spec, "a USB camera is usb:N (0, 1, ...) or usb:/dev/videoN")
    if scheme_l == "pi":
        arg = rest.strip() if sep else "0"
        if re.fullmatch(r"\d+", arg):
            return "pi", {"camera": int(arg)}, query
        raise _unknown(spec, "a Raspberry Pi camera is pi or pi:N (N = 0, 1, ...)")
    if scheme_l in ("folder", "video"):
        if not rest.strip():
            raise _unknown(spec, f"{scheme_l}: needs a path")
        return scheme_l, {"path": Path(rest)}, query
    if scheme_l == "sim":
        parts = rest.split(":") if sep else []
        if not parts or not parts[0].strip():
            raise _unknown(spec, "the simulator is sim:GAME[:SEED][:empty]")
        game = parts[0].strip().lower()
        seed, empty = 0, False
        extra = [p.strip().lower() for p in parts[1:]]
        if extra and extra[-1] == "empty":
            empty = True
            extra = extra[:-1]
        if len(extra) > 1 or (extra and not re.fullmatch(r"\d+", extra[0])):
            raise _unknown(spec, "the simulator is sim:GAME[:SEED][:empty] with a whole-number SEED")
        if extra:
            seed = int(extra[0])
        return "sim", {"game": game, "seed": seed, "empty": empty}, query
    # no known scheme: a plain folder or video file path
    p = Path(text)
    if p.is_dir():
        return "folder", {"path": p}, query
    if p.suffix.lower() in VIDEO_EXTENSIONS:
        if not p.exists():
            raise InputError(f"{p}: no such video file", "check the path")
        return "video", {"path": p}, query
    if sep and len(scheme) > 1 and not p.exists():
        raise _unknown(spec, f"unknown kind '{scheme}:'")
    raise _unknown(spec, "no such folder" if not p.exists() else "not a folder or a video file")


def source_class(kind: str) -> type[FrameSource]:
    """The class implementing a kind (imported on demand: the simulator and picamera2 are heavy)."""
    if kind == "usb":
        from .usb import UsbCameraSource

        return UsbCameraSource
    if kind == "video":
        from .usb import VideoFileSource

        return VideoFileSource
    if kind == "pi":
        from .pi import PiCameraSource

        return PiCameraSource
    if kind == "folder":
        from .folder import FolderSource

        return FolderSource
    if kind == "sim":
        from .sim import SimSource

        return SimSource
    raise ValueError(f"unknown source kind {kind!r}")


def open_source(spec: str, **options: Any) -> FrameSource:
    """Open the frame source a spec string names (see the module docstring for the forms).

    Keyword options depend on the kind (``width``/``height`` for cameras, ``fps`` for folders,
    ``size``/``shots``/... for the simulator); each class documents its own.  Unknown options and
    bad values raise ``InputError``; a camera that cannot be opened raises ``CameraError``.
    """
    kind, args, query = parse_spec(spec)
    cls = source_class(kind)
    merged: dict[str, Any] = dict(query)
    merged.update(options)
    opts = convert_options(cls, spec, merged)
    for name in args:  # an option may not silently contradict the spec itself
        if name in opts and opts[name] is not None and opts[name] != args[name]:
            raise InputError(f"source '{spec}': option {name}={opts[name]!r} contradicts the spec")
        opts.pop(name, None)
    return cls(spec=spec, **args, **opts)
