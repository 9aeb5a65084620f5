"""Sources read through ``cv2.VideoCapture``: USB cameras (``usb:N``, ``usb:/dev/videoN``) and video
files (``video:PATH``).

USB cameras
-----------
The headless OpenCV wheel has no GUI but keeps video capture: V4L2 on Linux (the Raspberry Pi
too), Media Foundation / DirectShow on Windows, AVFoundation on macOS.  On Linux the V4L2 backend
is asked for explicitly (the camera properties below are backend-specific).  Opening does:

1. ``VideoCapture(device, backend)``; ``CameraError`` if it does not open or delivers no frame.
2. ``fourcc`` (e.g. ``MJPG`` — most USB-2 webcams give 1280x720 and above at a usable frame rate
   only in MJPG), then ``width``/``height`` and ``fps`` when given.  The driver picks the nearest
   mode it has; the frames' real size is :attr:`size` (a warning is logged when it differs).
   ``buffers`` sets ``CAP_PROP_BUFFERSIZE`` (V4L2 only; 1 gives the freshest frames).
3. Stale-buffer flush: the first ``flush`` frames (default 5) are grabbed and dropped — the driver
   queues frames taken while the sensor was still starting up.
4. With ``lock`` (default on): auto exposure / auto white balance run for ``settle`` seconds
   (default 1.0; frames keep being grabbed so the queue stays fresh), then are switched off,
   keeping the values they chose, and ``flush`` more frames are dropped.  :attr:`locks` records
   what worked.

What OpenCV can and cannot do here:

* ``CAP_PROP_AUTO_EXPOSURE`` is passed to the driver as is.  With V4L2 it is
  ``V4L2_CID_EXPOSURE_AUTO``: 1 = manual, 3 = aperture priority (auto).  DirectShow uses 0.25 =
  manual, 0.75 = auto.  Other backends mostly ignore it.  ``CAP_PROP_EXPOSURE`` is then
  ``exposure_time_absolute`` in units of 100 µs on V4L2 (log2 seconds on DirectShow).
* The value the auto-exposure chose is only readable when the driver reports it (UVC cameras
  that mark the control auto-updating do; others return the last manual value).  So the current
  value is read *before* switching to manual and written back only if the switch changed it.
* ``CAP_PROP_AUTO_WB`` (``V4L2_CID_AUTO_WHITE_BALANCE``) and ``CAP_PROP_WB_TEMPERATURE`` work the
  same way where the camera has them; many webcams have no manual white balance at all.
* Gain has no separate auto switch through OpenCV (UVC ties it to auto exposure); there is no
  per-frame metadata (exposure, gain) and no sensor timestamp we trust across backends, so the
  timestamp is ``time.monotonic()`` when ``read`` returns.
* ``set`` returning True does not prove the camera obeyed; each lock is checked by reading the
  property back.  Nothing here can tell whether a camera firmware quietly keeps adapting.

For full control of a UVC camera use ``v4l2-ctl -d /dev/videoN --list-ctrls`` (and ``--set-ctrl``).

Video files
-----------
``video:PATH`` reads any file FFmpeg (bundled with the wheel) can decode; the timestamp of a frame
is its presentation time (``CAP_PROP_POS_MSEC`` after reading it) in seconds, falling back to
``index / fps`` when the container has none.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from tableref.errors import CameraError, InputError

from .source import EndOfStream, FrameSource, opt_bool, opt_choice, opt_float, opt_int, opt_str, positive

log = logging.getLogger("tableref.hardware")

_BACKENDS = ("auto", "v4l2", "dshow", "msmf", "avfoundation", "any")


@contextlib.contextmanager
def _quiet_opencv():
    """Silence OpenCV's own WARN lines while probing a device (our error says it better)."""
    import cv2

    try:
        old = cv2.utils.logging.getLogLevel()
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    except Exception:  # older/odd builds without the logging API
        yield
        return
    try:
        yield
    finally:
        cv2.utils.logging.setLogLevel(old)


def _backend_id(name: str) -> int:
    import cv2

    if name == "auto":
        return cv2.CAP_V4L2 if sys.platform.startswith("linux") else cv2.CAP_ANY
    return {"v4l2": cv2.CAP_V4L2, "dshow": cv2.CAP_DSHOW, "msmf": cv2.CAP_MSMF,
            "avfoundation": cv2.CAP_AVFOUNDATION, "any": cv2.CAP_ANY}[name]


def _as_bgr(frame: np.ndarray) -> np.ndarray:
    if frame.ndim == 2:
        import cv2

        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return np.ascontiguousarray(frame[:, :, :3])
    return frame


class UsbCameraSource(FrameSource):
    """A USB (UVC/V4L2) camera through OpenCV; see the module docstring for what opening does."""

    kind = "usb"
    OPTIONS: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "width": positive(opt_int), "height": positive(opt_int), "fps": positive(opt_float),
        "fourcc": opt_str, "buffers": positive(opt_int), "flush": positive(opt_int, allow_zero=True),
        "lock": opt_bool, "settle": positive(opt_float, allow_zero=True), "backend": opt_choice(*_BACKENDS)}

    def __init__(self, spec: str, device: int | str, width: int | None = None, height: int | None = None,
                 fps: float | None = None, fourcc: str | None = None, buffers: int | None = None,
                 flush: int | None = None, lock: bool | None = None, settle: float | None = None,
                 backend: str | None = None):
        import cv2

        super().__init__(spec)
        self.device = device
        self.flush = 5 if flush is None else int(flush)
        self.settle = 1.0 if settle is None else float(settle)
        self.locks: dict[str, bool] = {}
        self.controls: dict[str, float] = {}
        name = f"/dev/video{device}" if isinstance(device, int) else str(device)
        self._name = name
        if isinstance(device, str) and sys.platform.startswith("linux") and not Path(device).exists():
            raise CameraError(f"USB camera {device}: no such device",
                              "is it plugged in? `ls /dev/video*` lists the cameras")
        with _quiet_opencv():
            cap = cv2.VideoCapture(device, _backend_id(backend or "auto"))
        self._cap = cap
        if cap is None or not cap.isOpened():
            self._release()
            raise CameraError(f"cannot open USB camera {name}",
                              "check that it is plugged in (`ls /dev/video*`), that no other program is using it, "
                              "and that you may use it (member of the 'video' group)")
        try:
            if fourcc:
                if len(fourcc) != 4:
                    raise InputError(f"source '{spec}': fourcc must be 4 characters (e.g. MJPG), got {fourcc!r}")
                self._set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*fourcc.upper()), "fourcc")
            if width:
                self._set(cv2.CAP_PROP_FRAME_WIDTH, width, "width")
            if height:
                self._set(cv2.CAP_PROP_FRAME_HEIGHT, height, "height")
            if fps:
                self._set(cv2.CAP_PROP_FPS, fps, "fps")
            if buffers:
                self._set(cv2.CAP_PROP_BUFFERSIZE, buffers, "buffers")
            self._drop(self.flush)
            first = self._grab_frame(opening=True)
            self._size = (int(first.shape[1]), int(first.shape[0]))
            if (width and width != self._size[0]) or (height and height != self._size[1]):
                log.warning("%s: asked for %sx%s, the camera delivers %dx%d", name, width or "?", height or "?",
                            *self._size)
            if lock is None or lock:
                self._lock()
        except BaseException:
            self._release()
            raise

    # ------------------------------------------------------------------------------ helpers
    def _set(self, prop: int, value: float, what: str) -> bool:
        ok = bool(self._cap.set(prop, value))
        if not ok:
            log.info("%s: the camera refused %s=%s", self._name, what, value)
        return ok

    def _get(self, prop: int) -> float:
        try:
            return float(self._cap.get(prop))
        except Exception:
            return -1.0

    def _drop(self, n: int) -> None:
        for _ in range(n):
            if not self._cap.grab():
                break

    def _grab_frame(self, opening: bool = False) -> np.ndarray:
        ok, frame = self._cap.read()
        if not ok or frame is None or frame.size == 0:
            if opening:
                raise CameraError(f"USB camera {self._name} opened but delivers no frames",
                                  "another program may hold it, or it cannot do this resolution/format; "
                                  "try other width/height or fourcc=MJPG")
            raise CameraError(f"USB camera {self._name} stopped delivering frames",
                              "check the cable and the USB power; unplug and replug it")
        return _as_bgr(frame)

    def _manual_exposure_value(self) -> float:
        try:
            backend = self._cap.getBackendName().upper()
        except Exception:
            backend = ""
        return 0.25 if backend == "DSHOW" else 1.0  # DirectShow convention; V4L2_EXPOSURE_MANUAL

    def _lock(self) -> None:
        """Let auto exposure / white balance settle, then switch them off keeping their values."""
        import cv2

        t0 = time.monotonic()
        while time.monotonic() - t0 < self.settle:
            if not self._cap.grab():
                break
        # exposure
        exposure = self._get(cv2.CAP_PROP_EXPOSURE)
        manual = self._manual_exposure_value()
        self.controls["exposure"] = exposure
        locked = self._set(cv2.CAP_PROP_AUTO_EXPOSURE, manual, "auto_exposure=manual")
        if locked:
            locked = abs(self._get(cv2.CAP_PROP_AUTO_EXPOSURE) - manual) < 1e-6
            after = self._get(cv2.CAP_PROP_EXPOSURE)
            if locked and exposure > 0 and abs(after - exposure) > 1e-6:
                self._set(cv2.CAP_PROP_EXPOSURE, exposure, "exposure")
        self.locks["exposure"] = bool(locked)
        # white balance
        wb = self._get(cv2.CAP_PROP_WB_TEMPERATURE)
        self.controls["wb_temperature"] = wb
        locked = self._set(cv2.CAP_PROP_AUTO_WB, 0, "auto_wb=off")
        if locked:
            locked = self._get(cv2.CAP_PROP_AUTO_WB) == 0
            after = self._get(cv2.CAP_PROP_WB_TEMPERATURE)
            if locked and wb > 0 and abs(after - wb) > 1e-6:
                self._set(cv2.CAP_PROP_WB_TEMPERATURE, wb, "wb_temperature")
        self.locks["white_balance"] = bool(locked)
        for what, ok in self.locks.items():
            if not ok:
                log.warning("%s: could not lock %s through OpenCV; it may drift with the light "
                            "(see `v4l2-ctl -d %s --list-ctrls`)", self._name, what.replace("_", " "), self._name)
        self._drop(self.flush)  # frames queued before the controls took effect

    def _release(self) -> None:
        cap = getattr(self, "_cap", None)
        self._cap = None
        if cap is not None:
            with contextlib.suppress(Exception):
                cap.release()

    # ------------------------------------------------------------------------------ interface
    @property
    def size(self) -> tuple[int, int]:
        return self._size

    @property
    def is_live(self) -> bool:
        return True

    def _read(self) -> tuple[np.ndarray, float]:
        img = self._grab_frame()
        return img, time.monotonic()

    def _close(self) -> None:
        self._release()


class VideoFileSource(FrameSource):
    """A video file through OpenCV/FFmpeg; timestamps are the frames' presentation times."""

    kind = "video"
    OPTIONS: ClassVar[dict[str, Callable[[Any], Any]]] = {"fps": positive(opt_float)}

    def __init__(self, spec: str, path: Path, fps: float | None = None):
        import cv2

        super().__init__(spec)
        p = Path(path).expanduser()
        if not p.exists():
            raise InputError(f"{p}: no such video file", "check the path")
        if p.is_dir():
            raise InputError(f"{p}: is a folder", "use folder:PATH for a folder of frames")
        self.path = p
        with _quiet_opencv():
            cap = cv2.VideoCapture(str(p))
        self._cap = cap
        if not cap.isOpened():
            self._release()
            raise InputError(f"{p}: not a readable video (corrupt, or a format FFmpeg cannot decode)",
                             "re-export or re-copy the recording")
        file_fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = float(fps) if fps else (file_fps if file_fps > 0 else 10.0)
        n = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self._length = n if n > 0 else None
        self._pos = 0
        self._last_t: float | None = None
        first = self._next()
        if first is None:
            self._release()
            raise InputError(f"{p}: the video has no frames it can decode", "re-export or re-copy the recording")
        self._pending: tuple[np.ndarray, float] | None = first
        self._size = (int(first[0].shape[1]), int(first[0].shape[0]))

    def _next(self) -> tuple[np.ndarray, float] | None:
        import cv2

        ok, frame = self._cap.read()
        if not ok or frame is None:
            return None
        msec = self._get_msec(cv2.CAP_PROP_POS_MSEC)
        t = msec / 1000.0 if msec is not None else self._pos / self.fps
        if self._last_t is not None and (msec is None or t < self._last_t or (t == self._last_t and self._pos > 0)):
            t = self._last_t + 1.0 / self.fps  # no usable presentation time: continue at the frame rate
        self._last_t = t
        self._pos += 1
        return _as_bgr(frame), t

    def _get_msec(self, prop: int) -> float | None:
        try:
            v = float(self._cap.get(prop))
        except Exception:
            return None
        return v if np.isfinite(v) and v >= 0 else None

    def _release(self) -> None:
        cap = getattr(self, "_cap", None)
        self._cap = None
        if cap is not None:
            with contextlib.suppress(Exception):
                cap.release()

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    @property
    def length(self) -> int | None:
        return self._length

    def _read(self) -> tuple[np.ndarray, float]:
        if self._pending is not None:
            out, self._pending = self._pending, None
            return out
        nxt = self._next() if self._cap is not None else None
        if nxt is None:
            raise EndOfStream(f"{self.path}: end of the video after {self._pos} frames")
        if (nxt[0].shape[1], nxt[0].shape[0]) != self._size:
            raise InputError(f"{self.path}: frame {self._pos - 1} is {nxt[0].shape[1]}x{nxt[0].shape[0]}, "
                             f"the video started at {self._size[0]}x{self._size[1]}")
        return nxt

    def _close(self) -> None:
        self._pending = None
        self._release()
