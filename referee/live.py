"""The live referee: frames from a camera, judged when a shot has settled.

Every frame goes through the settle check (cheap, on a small copy); when a shot has ended — nothing
moved for the configured time and no hand over the table — the frame is judged, the pieces are
tracked from the previous settled scene (which piece was shot, which were knocked, which vanished
under another), the boards are checked for drift now and then, and what happened is reported.
With ``sim:GAME:SEED`` as the camera the whole loop runs without hardware (the simulator calibrates
from its own photo of the empty table).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from calibration.model import Calibration
from tableref.config import Config
from tableref.errors import InputError
from tableref.files import read_image, write_json


@dataclass
class SettledScene:
    index: int                 # frame index
    t: float                   # frame time (s)
    pieces: int
    sentences: list[str]       # what changed, in words
    verdicts: list[str]        # each piece's verdict, in words
    review: int                # verdicts a person should confirm
    judgement: object = None
    image: object = None


@dataclass
class LiveSummary:
    frames: int = 0
    settled: list[SettledScene] = field(default_factory=list)
    calibration: Path | None = None


def _calibrate_sim(spec: str, size: tuple[int, int], out: Path | None):
    from calibration.api import resolve_profile
    from calibration.register import register
    from hardware import open_source

    parts = spec.split("?")[0].split(":")
    game = parts[1] if len(parts) > 1 else ""
    seed = parts[2] if len(parts) > 2 else "0"
    with open_source(f"sim:{game}:{seed}:empty", size=size) as src:
        empty = src.read().image
    profile, ref = resolve_profile(game)
    reg = register(empty, profile, profile_ref=ref, source_image="empty.jpg")
    if out is not None:
        from tableref.files import write_image

        reg.calibration.reference_image = "calibration.reference.jpg"
        write_image(out / "calibration.reference.jpg", empty)
        write_json(out / "calibration.json", reg.calibration)
    return Calibration(reg.calibration), profile, empty


def run_live(camera: str, calibration: str | Path | None = None, out_dir: Path | None = None,
             max_shots: int | None = None, size: tuple[int, int] | None = None, config: Config | None = None,
             on_scene: Callable[[SettledScene], None] | None = None,
             on_calibrated: Callable[[Calibration], None] | None = None) -> LiveSummary:
    """Watch a frame source and judge every settled scene until the source ends (or ``max_shots``)."""
    from calibration.drift import check_drift
    from hardware import open_source
    from vision.api import profile_of
    from vision.detect import Detector
    from vision.motion import SettleDetector
    from vision.track import Tracker

    cfg = config or Config()
    summary = LiveSummary()
    opts = {}
    if camera.startswith("sim:"):
        size = size or (1280, 720)
        opts["size"] = size
    if calibration is None:
        if not camera.startswith("sim:"):
            raise InputError("give --calibration (made with 'tableref calibrate board' for this camera)")
        cal, profile, reference = _calibrate_sim(camera, size, out_dir)
        summary.calibration = out_dir / "calibration.json" if out_dir else None
    else:
        cal = Calibration.load(calibration).check()
        profile = profile_of(cal)
        if not cal.data.reference_image:
            raise InputError(f"{calibration}: has no photo of the empty table", "calibrate again")
        reference = read_image(Path(calibration).parent / cal.data.reference_image)
    if on_calibrated:
        on_calibrated(cal)
    detector = Detector(cal, profile, reference, cfg.vision)
    settle = SettleDetector(cfg.vision, reference)
    tracker = Tracker(cfg.vision, camera=cal.camera, on_pieces=detector.pieces_lie_on_pieces)
    with open_source(camera, **opts) as src:
        w, h = cal.data.intrinsics.image_size
        if tuple(src.size) != (w, h):
            raise InputError(f"the camera gives {src.size[0]}x{src.size[1]} frames, the calibration is for {w}x{h}",
                             "set the camera to the resolution you calibrated with")
        last = None
        for frame in src.frames():
            summary.frames += 1
            st = settle.update(frame.image, frame.timestamp)
            if not st.just_settled:
                continue
            res = detector.detect(frame.image, previous=last)  # what the shot left alone keeps its pieces
            last = res
            tr = tracker.update(res.judgement, frame.timestamp)
            j = tr.judgement
            verdicts = []
            for i in range(len(j)):
                r = j.row(i)
                where = ", ".join(r["zones"]) or r["pit"] or r["space"] or ""
                verdict = "OUTBOUND" if r["outbound"] else r["state"]
                verdicts.append(f"#{r['track_id']} {r['kind']} {r['color']} at ({r['center_mm'][0]:.1f}, "
                                f"{r['center_mm'][1]:.1f}) mm: {verdict}{' ' + where if where else ''}"
                                f" (margin {r['margin_mm']:.1f} mm{', REVIEW' if r['review'] else ''})")
            sentences = list(tr.sentences)
            n = len(summary.settled)
            if n and n % 5 == 0:  # now and then: has a board moved?
                drift = check_drift(frame.image, cal, profile, cfg.registration)
                sentences += drift.sentences()
            scene = SettledScene(frame.index, frame.timestamp, len(j), sentences, verdicts, int(np.sum(j.review)),
                                 j, frame.image)
            summary.settled.append(scene)
            if on_scene:
                on_scene(scene)
            if out_dir is not None:
                from tableref.files import write_image
                from vision.overlay import draw_judgement

                write_image(out_dir / "settled" / f"{frame.index:05d}.jpg", draw_judgement(frame.image, j, cal),
                            jpeg_quality=85)
            if max_shots is not None and len(summary.settled) >= max_shots:
                break
    return summary
