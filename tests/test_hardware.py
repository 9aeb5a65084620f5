"""Frame sources: spec parsing, recorded folders, video files, USB and Pi cameras (faked), the simulator."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import types
from pathlib import Path

import cv2
import numpy as np
import pytest

import hardware
from hardware import EndOfStream, Frame, FrameSource, open_source
from hardware.source import parse_spec
from tableref.errors import CameraError, InputError

# ---------------------------------------------------------------------------------------- helpers

def _img(value: int, size=(32, 24)) -> np.ndarray:
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    img[...] = (value, 255 - value, 7)
    return img


def _write(folder: Path, name: str, value: int, size=(32, 24)) -> Path:
    p = folder / name
    assert cv2.imwrite(str(p), _img(value, size))
    return p


@pytest.fixture
def recording(tmp_path) -> Path:
    """frame-2, frame-10, frame-1 (png/jpg mixed) plus things that are not frames."""
    _write(tmp_path, "frame-10.png", 30)
    _write(tmp_path, "frame-2.png", 20)
    _write(tmp_path, "frame-1.PNG", 10)
    _write(tmp_path, "frame-11.jpg", 40)
    (tmp_path / "notes.txt").write_text("not a frame")
    (tmp_path / ".hidden.png").write_bytes(b"junk")
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub", "frame-0.png", 0)
    return tmp_path


ORDER = ["frame-1.PNG", "frame-2.png", "frame-10.png", "frame-11.jpg"]


# ---------------------------------------------------------------------------------------- package

def test_package_exports_and_imports_nothing_heavy():
    assert {"open_source", "Frame", "FrameSource"} <= set(hardware.__all__)
    assert "frame sources" in hardware.__doc__.lower()
    code = ("import sys, hardware, hardware.source, hardware.pi, hardware.usb, hardware.folder; "
            "assert 'picamera2' not in sys.modules; assert 'simulator.render' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])


def test_frame_is_frozen():
    f = Frame(image=_img(1), timestamp=0.5, index=3)
    assert f.size == (32, 24)
    with pytest.raises(AttributeError):
        f.index = 4  # type: ignore[misc]


# ---------------------------------------------------------------------------------------- spec parsing

@pytest.mark.parametrize("spec, kind, args", [
    ("usb:0", "usb", {"device": 0}),
    ("usb:3", "usb", {"device": 3}),
    ("usb", "usb", {"device": 0}),
    ("usb:/dev/video2", "usb", {"device": "/dev/video2"}),
    ("pi", "pi", {"camera": 0}),
    ("pi:1", "pi", {"camera": 1}),
    ("folder:/some/where", "folder", {"path": Path("/some/where")}),
    ("video:game.mp4", "video", {"path": Path("game.mp4")}),
    ("sim:pitrush", "sim", {"game": "pitrush", "seed": 0, "empty": False}),
    ("sim:pitrush:7", "sim", {"game": "pitrush", "seed": 7, "empty": False}),
    ("sim:Galaktico:7:empty", "sim", {"game": "galaktico", "seed": 7, "empty": True}),
    ("sim:asfccg:empty", "sim", {"game": "asfccg", "seed": 0, "empty": True}),
])
def test_parse_spec_forms(spec, kind, args):
    k, a, q = parse_spec(spec)
    assert (k, a, q) == (kind, args, {})


def test_parse_spec_options_after_question_mark():
    k, a, q = parse_spec("sim:pitrush:3?size=320x180&shots=2")
    assert k == "sim" and a["seed"] == 3 and q == {"size": "320x180", "shots": "2"}


def test_plain_folder_path_is_a_folder_source(recording):
    assert parse_spec(str(recording))[0] == "folder"
    with open_source(str(recording)) as src:
        assert src.length == 4


@pytest.mark.parametrize("spec", ["webcam:0", "usb:abc", "pi:x", "sim:", "sim:pitrush:x", "sim:pitrush:1:2",
                                  "folder:", "", "/no/such/folder/anywhere", "rtsp://camera/stream"])
def test_unknown_specs_name_the_spec_and_the_accepted_forms(spec):
    with pytest.raises(InputError) as e:
        open_source(spec)
    msg = str(e.value)
    assert f"'{spec}'" in msg
    for form in ("usb:N", "usb:/dev/videoN", "pi:N", "folder:PATH", "video:PATH", "sim:GAME[:SEED]"):
        assert form in msg


def test_unknown_option_and_bad_values(recording):
    with pytest.raises(InputError, match=r"unknown option 'fsp'.*fps"):
        open_source(f"folder:{recording}", fsp=5)
    with pytest.raises(InputError, match=r"fps=-1"):
        open_source(f"folder:{recording}", fps=-1)
    with pytest.raises(InputError, match="WIDTHxHEIGHT"):
        open_source("sim:pitrush:1", size="big")
    with pytest.raises(InputError, match="no game 'chess'"):
        open_source("sim:chess:1")


# ---------------------------------------------------------------------------------------- folders

def test_folder_natural_order_and_fps_timestamps(recording):
    with open_source(f"folder:{recording}", fps=4) as src:
        assert isinstance(src, FrameSource) and not src.is_live
        assert [p.name for p in src.files] == ORDER
        assert src.size == (32, 24)
        frames = list(src.frames())
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert [f.timestamp for f in frames] == [0.0, 0.25, 0.5, 0.75]
    assert [int(f.image[0, 0, 0]) for f in frames[:3]] == [10, 20, 30]  # png: exact
    assert abs(int(frames[3].image[0, 0, 0]) - 40) <= 3  # jpg
    assert all(f.image.dtype == np.uint8 and f.image.shape == (24, 32, 3) for f in frames)


def test_natural_name_order():
    from hardware.folder import natural_key

    names = ["f10.png", "f1b.png", "f2.png", "f1.png", "F1.png", "g.png", "f01.png", "frame-000.png"]
    assert sorted(names, key=natural_key) == ["f01.png", "F1.png", "f1.png", "f1b.png", "f2.png", "f10.png",
                                              "frame-000.png", "g.png"]


def test_folder_default_fps_is_10_and_end_of_stream(recording):
    with open_source(f"folder:{recording}") as src:
        assert [f.timestamp for f in src.frames(limit=2)] == [0.0, 0.1]
        src.read(), src.read()
        with pytest.raises(EndOfStream):
            src.read()
        assert list(src.frames()) == []
    with pytest.raises(ValueError, match="closed"):
        src.read()


def _manifest(folder: Path, entries) -> None:
    (folder / "frames.json").write_text(json.dumps(
        {"format": "tableref-frames/1", "frames": [{"file": f, "timestamp": t} for f, t in entries]}))


def test_folder_timestamps_from_manifest(recording):
    _manifest(recording, [("frame-11.jpg", 12.5), ("frame-1.PNG", 10.0), ("frame-2.png", 10.1),
                          ("frame-10.png", 10.4)])
    with open_source(f"folder:{recording}") as src:
        assert [f.timestamp for f in src.frames()] == [10.0, 10.1, 10.4, 12.5]


@pytest.mark.parametrize("entries, pattern", [
    ([("frame-1.PNG", 0), ("frame-2.png", 1), ("frame-10.png", 2)], r"frame-11\.jpg: not listed"),
    ([("frame-1.PNG", 0), ("frame-2.png", 1), ("frame-10.png", 2), ("frame-11.jpg", 3), ("frame-12.jpg", 4)],
     r"lists 'frame-12\.jpg'.*no such image"),
    ([("frame-1.PNG", 0), ("frame-2.png", 5), ("frame-10.png", 2), ("frame-11.jpg", 3)],
     r"'frame-10\.png' has timestamp 2"),
])
def test_folder_manifest_problems_are_refused(recording, entries, pattern):
    _manifest(recording, entries)
    with pytest.raises(InputError, match=pattern):
        open_source(f"folder:{recording}")


def test_folder_malformed_manifest_names_file_and_field(recording):
    (recording / "frames.json").write_text(json.dumps({"format": "tableref-frames/1",
                                                       "frames": [{"file": "frame-1.PNG"}]}))
    with pytest.raises(InputError, match=r"frames\.json.*frames\[0\]\.timestamp"):
        open_source(f"folder:{recording}")


def test_folder_unreadable_image_names_the_file(recording):
    (recording / "frame-3.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"garbage" * 10 + b"IEND")
    with open_source(f"folder:{recording}") as src:
        src.read(), src.read()
        with pytest.raises(InputError, match=r"frame-3\.png"):
            src.read()


def test_folder_unreadable_first_image_fails_at_open(tmp_path):
    (tmp_path / "a.jpg").write_bytes(b"")
    with pytest.raises(InputError, match=r"a\.jpg: empty file"):
        open_source(f"folder:{tmp_path}")


def test_folder_frame_of_another_size_is_refused(recording):
    _write(recording, "frame-12.png", 50, size=(64, 48))
    with open_source(f"folder:{recording}") as src, \
            pytest.raises(InputError, match=r"frame-12\.png: is 64x48 pixels"):
        list(src.frames())


def test_folder_missing_or_empty(tmp_path):
    with pytest.raises(InputError, match="no such folder"):
        open_source(f"folder:{tmp_path / 'nope'}")
    (tmp_path / "x.txt").write_text("x")
    with pytest.raises(InputError, match="no images"):
        open_source(f"folder:{tmp_path}")


# ---------------------------------------------------------------------------------------- video files

def test_video_file_timestamps_and_end(tmp_path):
    path = tmp_path / "game.avi"
    vw = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    assert vw.isOpened()
    for i in range(4):
        vw.write(np.full((48, 64, 3), 40 * i, np.uint8))
    vw.release()
    with open_source(str(path)) as src:  # a plain video path works too
        assert src.size == (64, 48) and not src.is_live
        frames = list(src.frames())
    assert [f.index for f in frames] == [0, 1, 2, 3]
    assert np.allclose([f.timestamp for f in frames], [0.0, 0.2, 0.4, 0.6])
    assert [abs(int(f.image.mean()) - 40 * i) <= 3 for i, f in enumerate(frames)] == [True] * 4


def test_video_file_errors(tmp_path):
    with pytest.raises(InputError, match="no such video"):
        open_source(f"video:{tmp_path / 'nope.mp4'}")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"not a video at all")
    with pytest.raises(InputError, match=r"bad\.mp4: not a readable video"):
        open_source(f"video:{bad}")


# ---------------------------------------------------------------------------------------- USB (fake OpenCV capture)

class FakeCapture:
    """Stands in for cv2.VideoCapture: numbered frames, V4L2-style properties, a call log."""

    def __init__(self, device, api=None, opened=True, deliver=True, exposure_resets=True):
        self.device, self.api = device, api
        self.opened, self.deliver = opened, deliver
        self.exposure_resets = exposure_resets
        self.count = 0
        self.log: list[tuple] = [("open", device, api)]
        self.props = {cv2.CAP_PROP_AUTO_EXPOSURE: 3.0, cv2.CAP_PROP_EXPOSURE: 156.0,
                      cv2.CAP_PROP_AUTO_WB: 1.0, cv2.CAP_PROP_WB_TEMPERATURE: 4600.0,
                      cv2.CAP_PROP_FRAME_WIDTH: 640.0, cv2.CAP_PROP_FRAME_HEIGHT: 480.0}
        self.released = False

    def isOpened(self):
        return self.opened

    def getBackendName(self):
        return "V4L2"

    def grab(self):
        if not self.deliver:
            return False
        self.count += 1
        self.log.append(("grab", self.count - 1))
        return True

    def read(self):
        if not self.grab():
            return False, None
        w, h = int(self.props[cv2.CAP_PROP_FRAME_WIDTH]), int(self.props[cv2.CAP_PROP_FRAME_HEIGHT])
        img = np.full((h, w, 3), (self.count - 1) % 256, np.uint8)
        return True, img

    def set(self, prop, value):
        self.log.append(("set", prop, value))
        if prop == cv2.CAP_PROP_AUTO_EXPOSURE and value == 1 and self.exposure_resets:
            self.props[cv2.CAP_PROP_EXPOSURE] = 100.0  # this camera falls back to its default exposure
        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            value = 1280.0 if value >= 1280 else 640.0
        if prop == cv2.CAP_PROP_FRAME_HEIGHT:
            value = 720.0 if value >= 720 else 480.0
        self.props[prop] = float(value)
        return True

    def get(self, prop):
        return self.props.get(prop, 0.0)

    def release(self):
        self.released = True
        self.log.append(("release",))


@pytest.fixture
def fake_cv2_capture(monkeypatch):
    made: list[FakeCapture] = []
    behaviour: dict = {}

    def factory(device, api=None):
        cap = FakeCapture(device, api, **behaviour)
        made.append(cap)
        return cap

    monkeypatch.setattr(cv2, "VideoCapture", factory)
    return made, behaviour


def test_usb_open_failure_is_a_camera_error_saying_what_to_check(fake_cv2_capture):
    made, behaviour = fake_cv2_capture
    behaviour["opened"] = False
    with pytest.raises(CameraError) as e:
        open_source("usb:4")
    msg = str(e.value)
    assert "/dev/video4" in msg and "plugged in" in msg and "other program" in msg
    assert made[0].released


def test_usb_camera_without_frames_is_a_camera_error(fake_cv2_capture):
    made, behaviour = fake_cv2_capture
    behaviour["deliver"] = False
    with pytest.raises(CameraError, match="delivers no frames"):
        open_source("usb:0", lock=False)
    assert made[0].released


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="device paths are Linux")
def test_usb_missing_device_path(fake_cv2_capture):
    with pytest.raises(CameraError, match=r"/dev/video97: no such device"):
        open_source("usb:/dev/video97")


def test_usb_flushes_stale_frames_and_sets_the_resolution(fake_cv2_capture):
    made, _ = fake_cv2_capture
    with open_source("usb:2", width=1280, height=720, flush=5, lock=False) as src:
        cap = made[0]
        assert cap.device == 2 and src.is_live
        assert src.size == (1280, 720)
        sets = [c for c in cap.log if c[0] == "set"]
        assert {cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT} <= {c[1] for c in sets}
        # frames 0-4 dropped, 5 looked at for the size: the first frame handed out is frame 6
        f0, f1 = src.read(), src.read()
        assert (int(f0.image[0, 0, 0]), int(f1.image[0, 0, 0])) == (6, 7)
        assert (f0.index, f1.index) == (0, 1) and f1.timestamp >= f0.timestamp
    assert cap.released and src.closed


def test_usb_locks_exposure_and_white_balance_then_flushes_again(fake_cv2_capture):
    made, _ = fake_cv2_capture
    with open_source("usb:0", flush=3, settle=0) as src:
        cap = made[0]
        assert src.locks == {"exposure": True, "white_balance": True}
        assert cap.props[cv2.CAP_PROP_AUTO_EXPOSURE] == 1.0      # V4L2_EXPOSURE_MANUAL
        assert cap.props[cv2.CAP_PROP_EXPOSURE] == 156.0         # the value AE had chosen, written back
        assert cap.props[cv2.CAP_PROP_AUTO_WB] == 0.0
        assert cap.props[cv2.CAP_PROP_WB_TEMPERATURE] == 4600.0  # unchanged by the switch, not re-set
        log = cap.log
        i_manual = log.index(("set", cv2.CAP_PROP_AUTO_EXPOSURE, 1.0))
        assert [c for c in log[i_manual:] if c[0] == "grab"][:3] == [("grab", 4), ("grab", 5), ("grab", 6)]
        assert int(src.read().image[0, 0, 0]) == 7  # 3 dropped + 1 probe + 3 dropped after locking


def test_usb_camera_that_stops_delivering(fake_cv2_capture):
    made, _ = fake_cv2_capture
    with open_source("usb:0", lock=False, flush=0) as src:
        made[0].deliver = False
        with pytest.raises(CameraError, match="stopped delivering"):
            src.read()


# ---------------------------------------------------------------------------------------- Raspberry Pi (fake picamera2)

def _fake_picamera2(calls: list, cameras: int = 1, latency: int = 2, fail_init: Exception | None = None):
    """A picamera2 module that records calls; set controls show in the metadata ``latency`` frames later."""
    mod = types.ModuleType("picamera2")

    class Picamera2:
        @staticmethod
        def global_camera_info():
            return [{"Model": "imx708", "Num": i} for i in range(cameras)]

        def __init__(self, camera_num=0):
            if fail_init:
                raise fail_init
            calls.append(("init", camera_num))
            self.frame = 0
            self.auto = {"ExposureTime": 16667, "AnalogueGain": 2.5, "ColourGains": (1.9, 1.6), "DigitalGain": 1.0}
            self.pending: list[tuple[int, dict]] = []
            self.size = None
            self.ae = True

        def _config(self, kind, main, controls, default):
            calls.append((kind, dict(main), dict(controls or {})))
            size = tuple(main.get("size", default))
            self.size = size
            return {"main": {"format": main["format"], "size": size}, "controls": dict(controls or {})}

        def create_still_configuration(self, main=None, controls=None, **kw):
            return self._config("create_still_configuration", main, controls, (4608, 2592))

        def create_video_configuration(self, main=None, controls=None, **kw):
            return self._config("create_video_configuration", main, controls, (1280, 720))

        def configure(self, config):
            calls.append(("configure", config["main"]["size"]))

        def start(self):
            calls.append(("start",))

        def _next(self):
            self.frame += 1
            if self.ae:  # AE keeps hunting while it is on
                self.auto["ExposureTime"] = int(self.auto["ExposureTime"] * 1.1)
            for due, ctl in [p for p in self.pending if p[0] <= self.frame]:
                self.auto.update({k: v for k, v in ctl.items() if k in ("ExposureTime", "AnalogueGain", "ColourGains")})
                self.ae = ctl.get("AeEnable", self.ae)
                self.pending.remove((due, ctl))

        def capture_metadata(self):
            self._next()
            calls.append(("capture_metadata",))
            return dict(self.auto)

        def set_controls(self, controls):
            calls.append(("set_controls", dict(controls)))
            self.pending.append((self.frame + latency + 1, dict(controls)))

        def capture_array(self, name="main"):
            self._next()
            calls.append(("capture_array", name))
            w, h = self.size
            return np.full((h, w, 3), self.frame % 256, np.uint8)

        def stop(self):
            calls.append(("stop",))

        def close(self):
            calls.append(("close",))

    mod.Picamera2 = Picamera2
    return mod


@pytest.fixture
def no_sleep(monkeypatch):
    slept: list[float] = []
    import hardware.pi

    monkeypatch.setattr(hardware.pi, "_sleep", slept.append)
    return slept


def test_pi_without_picamera2_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes `import picamera2` fail
    with pytest.raises(CameraError) as e:
        open_source("pi")
    assert str(e.value) == "picamera2 is not installed: pip install 'tableref[pi]' on the Raspberry Pi"


def test_pi_video_mode_locks_exposure_after_settling(monkeypatch, no_sleep):
    calls: list = []
    monkeypatch.setitem(sys.modules, "picamera2", _fake_picamera2(calls))
    with open_source("pi", width=1280, height=720, fps=15) as src:
        assert src.is_live and src.size == (1280, 720) and no_sleep == [1.0]
        frame = src.read()
        assert frame.image.shape == (720, 1280, 3) and frame.image.dtype == np.uint8
    names = [c[0] for c in calls]
    assert names[:4] == ["init", "create_video_configuration", "configure", "start"]
    assert calls[1][1] == {"format": "RGB888", "size": (1280, 720)} and calls[1][2] == {"FrameRate": 15.0}
    # settle, read the metadata once, lock with those values
    i_set = names.index("set_controls")
    assert names[4:i_set] == ["capture_metadata"]
    assert calls[i_set][1] == {"AeEnable": False, "AwbEnable": False, "ExposureTime": 18333, "AnalogueGain": 2.5,
                               "ColourGains": (1.9, 1.6)}  # what the metadata said (16667 * 1.1, AE hunting)
    assert src.locked == calls[i_set][1]
    # stale frames dropped after the change (at least `flush` = 4), before any frame is handed out
    i_arr = names.index("capture_array")
    assert names[i_set + 1:i_arr] == ["capture_metadata"] * (i_arr - i_set - 1) and i_arr - i_set - 1 >= 4
    assert names[i_arr:] == ["capture_array", "stop", "close"]


def test_pi_waits_for_the_lock_to_show_in_the_metadata(monkeypatch, no_sleep):
    calls: list = []
    monkeypatch.setitem(sys.modules, "picamera2", _fake_picamera2(calls, latency=6))
    with open_source("pi:0", mode="still", flush=1, settle=0.5):
        pass
    names = [c[0] for c in calls]
    assert calls[1][0] == "create_still_configuration" and calls[1][1] == {"format": "RGB888"}
    assert no_sleep == [0.5]
    after = names[names.index("set_controls") + 1:names.index("stop")]
    assert after == ["capture_metadata"] * 7  # flush=1 is not enough: it waits until the 7th frame shows the lock


def test_pi_without_lock_sets_no_controls(monkeypatch, no_sleep):
    calls: list = []
    monkeypatch.setitem(sys.modules, "picamera2", _fake_picamera2(calls))
    with open_source("pi", lock=False) as src:
        src.read()
    assert "set_controls" not in [c[0] for c in calls] and no_sleep == []


def test_pi_camera_problems(monkeypatch, no_sleep):
    monkeypatch.setitem(sys.modules, "picamera2", _fake_picamera2([], cameras=0))
    with pytest.raises(CameraError, match="no Raspberry Pi camera found; check the ribbon cable"):
        open_source("pi")
    monkeypatch.setitem(sys.modules, "picamera2", _fake_picamera2([], cameras=1))
    with pytest.raises(CameraError, match="no Raspberry Pi camera 1: 1 camera"):
        open_source("pi:1")
    busy = RuntimeError("Failed to acquire camera: Device or resource busy")
    monkeypatch.setitem(sys.modules, "picamera2", _fake_picamera2([], fail_init=busy))
    with pytest.raises(CameraError, match="busy.*another program"):
        open_source("pi")
    with pytest.raises(InputError, match="both width and height"):
        open_source("pi", width=640)


# ---------------------------------------------------------------------------------------- simulator

SIM = "sim:pitchfleet:5"
SIM_OPTS = {"size": "320x180", "shots": 1, "lead": 1, "hand_frames": 2, "move_frames": 2, "settle_frames": 2}


@pytest.fixture(scope="module")
def sim_stream():
    with open_source(SIM, **SIM_OPTS) as src:
        frames, phases, scenes = [], [], []
        for f in src.frames():
            frames.append(f)
            phases.append(src.phase)
            scenes.append(src.scene)
        info = {"renders": src.renders, "length": src.length, "plan": src._plans[0], "size": src.size,
                "live": src.is_live}
    assert src.closed
    return frames, phases, scenes, info


def _same(a: Frame, b: Frame) -> bool:
    return a.image.shape == b.image.shape and bool(np.array_equal(a.image, b.image))


def test_sim_stream_layout(sim_stream):
    frames, phases, scenes, info = sim_stream
    assert phases == ["still", "hand", "hand", "move", "move", "settled", "settled"]
    assert info["length"] == len(frames) == 7 and not info["live"]
    assert [f.index for f in frames] == list(range(7))
    assert np.allclose([f.timestamp for f in frames], np.arange(7) / 10.0)
    assert all(f.image.shape == (180, 320, 3) and f.image.dtype == np.uint8 for f in frames)
    assert info["size"] == (320, 180)
    assert [len(s.hands) for s in scenes] == [0, 1, 1, 1, 0, 0, 0]
    # identical states are rendered once: still, 2 hand, 1 moving, 1 at rest (last move frame + settled)
    assert info["renders"] == 5


def test_sim_frames_change_while_the_hand_and_piece_move_and_not_once_settled(sim_stream):
    frames = sim_stream[0]
    for a, b in itertools.pairwise(frames[:5]):
        assert not _same(a, b), (a.index, b.index)
    assert _same(frames[4], frames[5]) and _same(frames[5], frames[6])
    assert not _same(frames[0], frames[6])  # a piece did move
    # a fresh copy per read: changing one frame does not change the next
    frames[5].image[:] = 0
    assert not _same(frames[5], frames[6])


def test_sim_moves_one_piece_only_and_rejudges_it(sim_stream):
    _, _, scenes, info = sim_stream
    plan = info["plan"]
    assert plan.piece is not None
    first, last = scenes[0].pieces, scenes[-1].pieces
    assert len(first) == len(last)
    moved = [i for i, (p, q) in enumerate(zip(first, last, strict=True)) if p.center_mm != q.center_mm]
    assert moved == [plan.piece]
    p, q = first[plan.piece], last[plan.piece]
    assert 40 <= np.hypot(q.center_mm[0] - p.center_mm[0], q.center_mm[1] - p.center_mm[1]) <= 140.01
    assert not q.outbound and q.rests_on == "board"
    # mid-move the piece is between its start and its rest
    mid = scenes[3].pieces[plan.piece].center_mm
    d_total = np.hypot(q.center_mm[0] - p.center_mm[0], q.center_mm[1] - p.center_mm[1])
    d_mid = np.hypot(mid[0] - p.center_mm[0], mid[1] - p.center_mm[1])
    assert 0 < d_mid < d_total
    # the hand reaches towards the piece, then pulls back
    tips = [np.asarray(s.hands[0].fingertip_mm) for s in scenes[1:4]]
    dist = [np.hypot(*(t - np.asarray(p.center_mm))) for t in tips]
    assert dist[1] < dist[0] and dist[2] > dist[1]


def test_sim_is_deterministic(sim_stream):
    frames, phases, _, info = sim_stream
    with open_source(SIM + "?size=320x180", **{k: v for k, v in SIM_OPTS.items() if k != "size"}) as src:
        assert src._plan_until(0) is None and src._plans[0] == info["plan"]
        assert [src.phase_of(i) for i in range(7)] == phases
        f0, f1 = src.read(), src.read()  # the still frame and the first hand frame, rendered afresh
    assert _same(f0, frames[0]) and _same(f1, frames[1])


def test_sim_empty_table_and_context_manager(monkeypatch):
    with open_source("sim:pitchfleet:5:empty", size=(320, 180), count=2) as src:
        assert src.length == 2 and src.scene.pieces == []
        a, b = list(src.frames())
        assert _same(a, b) and src.renders == 1
        with pytest.raises(EndOfStream):
            src.read()
    assert src.closed
    with pytest.raises(ValueError, match="closed"):
        src.read()
    src.close()  # twice is fine
    with pytest.raises(InputError, match="count= is for the empty table"):
        open_source("sim:pitchfleet:5", count=3)
