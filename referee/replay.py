"""Replaying a recorded game: calibrate, judge every settled frame, let the rules engine score.

``replay(folder)`` returns every event (each award explained in words and numbers) and the final
scoreboard; it writes an overlay of every judged frame (the verdicts drawn on the photo, with the
events of that turn) when an output folder is given.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import cv2
import numpy as np

from calibration.model import Calibration
from calibration.profile import BoardProfile, builtin_profile_path
from rules.base import Event
from tableref.errors import InputError
from tableref.files import read_image, write_image, write_json

from .recording import Recording

if TYPE_CHECKING:
    from .log import MatchLog


@dataclass
class ReplayResult:
    game: str
    title: str | None
    players: list[str]
    events: list[Event]
    scores: list[int]
    winners: list[str]
    frames: int
    seconds: float
    overlays: list[Path] = field(default_factory=list)
    reviews: int = 0
    expected: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "title": self.title, "players": self.players,
                "events": [{"kind": e.kind, "text": e.text, "player": e.player, "points": e.points}
                           for e in self.events],
                "scores": dict(zip(self.players, self.scores)), "winners": self.winners,
                "frames": self.frames, "reviews": self.reviews}


def _profile(rec: Recording) -> BoardProfile:
    ref = rec.data.profile
    if ref == "builtin":
        return BoardProfile.load(builtin_profile_path(rec.data.game))
    return BoardProfile.load(rec.path(ref))


def _calibration(rec: Recording, profile: BoardProfile, out_dir: Path | None):
    """The recording's calibration, or one made now from its photo of the empty table."""
    from calibration.register import register

    if rec.data.calibration:
        cal = Calibration.load(rec.path(rec.data.calibration)).check()
        ref = rec.path(rec.data.calibration).parent / (cal.data.reference_image or "")
        if not cal.data.reference_image or not ref.exists():
            raise InputError(f"{rec.path(rec.data.calibration)}: its photo of the empty table is missing")
        return cal, read_image(ref)
    photo = read_image(rec.path(rec.data.empty_photo))
    reg = register(photo, profile, source_image=rec.data.empty_photo, profile_ref=f"builtin:{rec.data.game}")
    cal = Calibration(reg.calibration).check()
    if out_dir is not None:
        write_json(out_dir / "calibration.json", reg.calibration)
    return cal, photo


def replay(folder: str | Path, out_dir: str | Path | None = None,
           on_frame: Callable[[int, int], None] | None = None, log: MatchLog | None = None) -> ReplayResult:
    """Referee a recorded game from its photos and the players' inputs (recorded in ``log`` if given)."""
    from vision.detect import Detector
    from vision.overlay import draw_judgement

    t0 = time.perf_counter()
    rec = Recording(folder)
    out = Path(out_dir) if out_dir is not None else None
    profile = _profile(rec)
    cal, reference = _calibration(rec, profile, out)
    detector = Detector(cal, profile, reference)
    referee = make_referee(rec, cal)
    events: list[Event] = []
    overlays: list[Path] = []
    total = rec.n_frames
    done = 0
    if on_frame:
        on_frame(done, total)
    match_id = None if log is None else log.start(rec.data.game, list(rec.data.players), {
        "source": "replay", "folder": str(Path(folder).resolve()), "title": rec.data.title})
    last = None
    for ti, turn in enumerate(rec.data.turns):
        judgements, images = [], []
        for shot in turn.shots:
            img = read_image(rec.path(shot.frame))
            w, h = cal.data.intrinsics.image_size
            if img.shape[1] != w or img.shape[0] != h:
                raise InputError(f"{rec.path(shot.frame)}: is {img.shape[1]}x{img.shape[0]}, the table was calibrated "
                                 f"at {w}x{h}")
            res = detector.detect(img, previous=last)  # what the shot left alone keeps its pieces
            last = res
            judgements.append(res.judgement)
            images.append(img)
        ev = referee.play_turn(turn, judgements)
        events += ev
        if log is not None:
            log.add(match_id, ev, frame=turn.shots[-1].frame if turn.shots else None)
        for shot, img, j in zip(turn.shots, images, judgements):
            if out is not None:
                ov = draw_judgement(img, j, cal)
                _caption(ov, [e.text for e in ev if e.kind != "turn"][:8])
                p = out / "overlays" / (Path(shot.frame).stem + ".jpg")
                write_image(p, ov, jpeg_quality=85)
                overlays.append(p)
            done += 1
            if on_frame:
                on_frame(done, total)
    scores = list(referee.scores())
    best = max(scores) if scores else 0
    winners = [n for n, s in zip(rec.data.players, scores) if s == best]
    if log is not None:
        log.finish(match_id, scores)
    return ReplayResult(rec.data.game, rec.data.title, list(rec.data.players), events, scores, winners, total,
                        time.perf_counter() - t0, overlays, sum(1 for e in events if e.kind == "review"),
                        dict(rec.data.expected))


def make_referee(rec: Recording, cal: Calibration):
    if rec.data.game == "pitchfleet":
        from .pitchfleet import PitchFleetReferee

        return PitchFleetReferee(cal, list(rec.data.players), dict(rec.data.setup))
    if rec.data.game == "pitrush":
        from .pitrush import PitRushReferee

        return PitRushReferee(cal, list(rec.data.players), dict(rec.data.setup))
    raise InputError(f"no referee for game '{rec.data.game}' yet")


def _caption(img: np.ndarray, lines: list[str]) -> None:
    fs = img.shape[1] / 1800
    th = max(1, round(img.shape[1] / 1000))
    y = int(40 * fs * 1.6)
    for line in lines:
        cv2.putText(img, line, (20, y), cv2.FONT_HERSHEY_SIMPLEX, fs, (0, 0, 0), 4 * th, cv2.LINE_AA)
        cv2.putText(img, line, (20, y), cv2.FONT_HERSHEY_SIMPLEX, fs, (255, 255, 255), th, cv2.LINE_AA)
        y += int(36 * fs * 1.6)
