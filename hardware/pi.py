"""A Raspberry Pi camera through picamera2 (``pi``, ``pi:N``).

picamera2 is imported only when a ``pi`` source is opened, so tableref imports (and runs every
other source) on machines without it.  Without it, opening raises
``CameraError("picamera2 is not installed: pip install 'tableref[pi]' on the Raspberry Pi")``.
(On Raspberry Pi OS the usual way is ``sudo apt install python3-picamera2`` and a virtual
environment made with ``--system-site-packages``, because picamera2 needs the system's libcamera
bindings.)

Opening does, in this order:

1. ``Picamera2.global_camera_info()`` — ``CameraError`` if there is no camera ``N``.
2. ``Picamera2(N)``; then ``create_still_configuration`` (``mode="still"``: full sensor
   resolution by default, for calibration photos) or ``create_video_configuration``
   (``mode="video"``, the default: the live loop), with ``main={"format": "RGB888", ...}`` —
   libcamera's RGB888 is B, G, R in memory, which is what OpenCV wants.  ``width``/``height`` set
   the main stream size, ``fps`` the frame rate (``FrameRate`` control).
3. ``configure``, ``start``.
4. With ``lock`` (default on): wait ``settle`` seconds (default 1.0) while AE/AWB converge, read
   the current ``ExposureTime``, ``AnalogueGain`` and ``ColourGains`` with ``capture_metadata()``
   and ``set_controls({"AeEnable": False, "AwbEnable": False, "ExposureTime": ..., "AnalogueGain": ...,
   "ColourGains": ...})``.  Controls take effect a few frames later, so frames are then dropped
   with ``capture_metadata()`` — at least ``flush`` (default 4), until the metadata shows the
   locked exposure and gain, at most ``flush + 8``.  :attr:`locked` holds the values set.
5. ``read()`` is ``capture_array("main")`` timestamped with ``time.monotonic()``; ``close()`` is
   ``stop()`` then ``close()``.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from tableref.errors import CameraError, InputError

from .source import FrameSource, opt_bool, opt_choice, opt_float, opt_int, positive

log = logging.getLogger("tableref.hardware")

NOT_INSTALLED = "picamera2 is not installed: pip install 'tableref[pi]' on the Raspberry Pi"

_sleep = time.sleep  # the tests replace this


def _import_picamera2():
    try:
        from picamera2 import Picamera2
    except ImportError as e:
        if getattr(e, "name", None) in (None, "picamera2") or "picamera2" in str(e):
            raise CameraError(NOT_INSTALLED) from None
        raise CameraError(f"picamera2 could not be imported ({e})",
                          "on Raspberry Pi OS: sudo apt install python3-picamera2, and make the virtual "
                          "environment with --system-site-packages") from None
    return Picamera2


def _close_to(a, b, rel: float) -> bool:
    try:
        return abs(float(a) - float(b)) <= rel * max(abs(float(b)), 1e-9)
    except (TypeError, ValueError):
        return False


class PiCameraSource(FrameSource):
    """A Raspberry Pi camera (libcamera) through picamera2; see the module docstring."""

    kind = "pi"
    OPTIONS: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "mode": opt_choice("still", "video"), "width": positive(opt_int), "height": positive(opt_int),
        "fps": positive(opt_float), "lock": opt_bool, "settle": positive(opt_float, allow_zero=True),
        "flush": positive(opt_int, allow_zero=True)}

    def __init__(self, spec: str, camera: int = 0, mode: str | None = None, width: int | None = None,
                 height: int | None = None, fps: float | None = None, lock: bool | None = None,
                 settle: float | None = None, flush: int | None = None):
        super().__init__(spec)
        Picamera2 = _import_picamera2()
        self.camera = int(camera)
        self.mode = mode or "video"
        self.flush = 4 if flush is None else int(flush)
        self.settle = 1.0 if settle is None else float(settle)
        self.locked: dict[str, object] = {}
        self._cam = None
        self._started = False
        if (width is None) != (height is None):
            raise InputError(f"source '{spec}': give both width and height, or neither")
        try:
            info = Picamera2.global_camera_info()
        except Exception as e:  # libcamera itself failed
            raise CameraError(f"cannot list the Raspberry Pi cameras ({e})",
                              "check the camera is enabled and `rpicam-hello --list-cameras` sees it") from None
        if not info:
            raise CameraError("no Raspberry Pi camera found",
                              "check the ribbon cable (contacts the right way round, fully seated) and that "
                              "`rpicam-hello --list-cameras` lists it")
        if self.camera >= len(info):
            raise CameraError(f"no Raspberry Pi camera {self.camera}: {len(info)} camera(s) found",
                              f"use pi:0{' to pi:' + str(len(info) - 1) if len(info) > 1 else ''}")
        try:
            self._cam = Picamera2(self.camera)
        except Exception as e:
            raise CameraError(f"cannot open Raspberry Pi camera {self.camera} ({e})",
                              "another program (rpicam-*, another tableref) may be using it") from None
        try:
            main: dict[str, object] = {"format": "RGB888"}
            if width is not None:
                main["size"] = (int(width), int(height))
            controls = {"FrameRate": float(fps)} if fps else {}
            kwargs: dict[str, object] = {"main": main}
            if controls:
                kwargs["controls"] = controls
            if self.mode == "still":
                config = self._cam.create_still_configuration(**kwargs)
            else:
                config = self._cam.create_video_configuration(**kwargs)
            self._cam.configure(config)
            self._size = self._configured_size(getattr(self._cam, "camera_config", None) or config, width, height)
            self._cam.start()
            self._started = True
            if lock is None or lock:
                self._lock()
            if self._size is None:  # the configuration did not say: look at one frame
                self._read()
        except CameraError:
            self._shutdown()
            raise
        except Exception as e:
            self._shutdown()
            raise CameraError(f"Raspberry Pi camera {self.camera} failed to start ({e})",
                              "try another width/height, or reboot if the camera is stuck") from None

    def _configured_size(self, config, width, height) -> tuple[int, int] | None:
        try:
            w, h = config["main"]["size"]
            return int(w), int(h)
        except Exception:  # noqa: BLE001 - any shape of configuration we do not understand
            return (int(width), int(height)) if width is not None else None

    def _lock(self) -> None:
        """Let AE/AWB settle, then fix exposure, gain and colour gains at the values they reached."""
        if self.settle > 0:
            _sleep(self.settle)
        md = self._cam.capture_metadata() or {}
        controls: dict[str, object] = {"AeEnable": False, "AwbEnable": False}
        if md.get("ExposureTime") is not None:
            controls["ExposureTime"] = int(md["ExposureTime"])
        if md.get("AnalogueGain") is not None:
            controls["AnalogueGain"] = float(md["AnalogueGain"])
        if md.get("ColourGains") is not None:
            controls["ColourGains"] = tuple(float(g) for g in md["ColourGains"])
        missing = [k for k in ("ExposureTime", "AnalogueGain", "ColourGains") if k not in controls]
        if missing:
            log.warning("pi:%d: the camera reports no %s; locking what it reports", self.camera, ", ".join(missing))
        self._cam.set_controls(controls)
        self.locked = dict(controls)
        # drop the frames captured before the new controls took effect
        confirmed = False
        for i in range(self.flush + 8):
            if i >= self.flush and confirmed:
                break
            md = self._cam.capture_metadata() or {}
            confirmed = all(_close_to(md.get(k), controls[k], 0.05)
                            for k in ("ExposureTime", "AnalogueGain") if k in controls)
        if not confirmed:
            log.warning("pi:%d: the locked exposure/gain did not show in the frames' metadata yet", self.camera)

    def _shutdown(self) -> None:
        cam, self._cam = self._cam, None
        if cam is None:
            return
        if self._started:
            with contextlib.suppress(Exception):
                cam.stop()
        with contextlib.suppress(Exception):
            cam.close()

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    @property
    def is_live(self) -> bool:
        return True

    def _read(self) -> tuple[np.ndarray, float]:
        try:
            arr = self._cam.capture_array("main")
        except Exception as e:
            raise CameraError(f"Raspberry Pi camera {self.camera} stopped delivering frames ({e})",
                              "check the ribbon cable and the power supply") from None
        t = time.monotonic()
        img = np.asarray(arr)
        if img.ndim == 3 and img.shape[2] == 4:  # XBGR8888 and friends: drop the padding byte
            img = img[:, :, :3]
        img = np.ascontiguousarray(img, dtype=np.uint8)
        self._size = (int(img.shape[1]), int(img.shape[0]))
        return img, t

    def _close(self) -> None:
        self._shutdown()
