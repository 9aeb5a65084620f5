"""What the live view shows: the latest settled frame, the last events, the scoreboard.

The live loop calls :meth:`LiveState.update` after every settled frame it judged; the web UI's
``/live`` page polls :meth:`LiveState.snapshot` (as ``/live/state.json``) and fetches the picture
(``/live/frame.jpg``).  Every method is thread-safe; the JPEG is encoded only when someone asks.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np


def _event_json(e: Any) -> dict[str, Any]:
    from referee.log import jsonable

    if isinstance(e, Mapping):
        d = dict(e)
        return {"kind": str(d.get("kind", "")), "text": str(d.get("text", "")), "player": d.get("player"),
                "points": int(d.get("points") or 0), "data": jsonable(d.get("data") or {})}
    if isinstance(e, str):
        return {"kind": "note", "text": e, "player": None, "points": 0, "data": {}}
    return {"kind": str(getattr(e, "kind", "")), "text": str(getattr(e, "text", e)),
            "player": getattr(e, "player", None), "points": int(getattr(e, "points", 0) or 0),
            "data": jsonable(dict(getattr(e, "data", {}) or {}))}


def _scoreboard_json(sb: Any) -> list[dict[str, Any]]:
    """Rows ``{"player", "score"}`` from a mapping name -> score, pairs, or rows already."""
    if sb is None:
        return []
    if isinstance(sb, Mapping):
        if "rows" in sb:  # a MatchLog.scoreboard()
            return [{"player": str(r["player"]), "score": int(r["score"])} for r in sb["rows"]]
        return [{"player": str(k), "score": int(v)} for k, v in sb.items()]
    rows = []
    for item in sb:
        if isinstance(item, Mapping):
            rows.append({"player": str(item.get("player", item.get("name", ""))), "score": int(item.get("score", 0))})
        else:
            name, score = item
            rows.append({"player": str(name), "score": int(score)})
    return rows


class LiveState:
    """The latest state of a live game, shared between the live loop and the web UI."""

    def __init__(self, keep_events: int = 200, jpeg_quality: int = 85):
        self._lock = threading.Lock()
        self._jpeg_quality = int(jpeg_quality)
        self._events: deque[dict[str, Any]] = deque(maxlen=keep_events)
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new match)."""
        with self._lock:
            self._seq = 0
            self._updated: float | None = None
            self._image: np.ndarray | None = None
            self._image_seq = 0
            self._jpeg: tuple[int, bytes] | None = None
            self._judgement: Any = None
            self._events.clear()
            self._new = 0
            self._scoreboard: list[dict[str, Any]] = []

    def update(self, image_bgr: np.ndarray | None, judgement_json: Any = None, events: Sequence[Any] = (),
               scoreboard: Any = None) -> int:
        """Record a settled frame.

        ``image_bgr``: the picture to show -- normally the frame with the verdicts drawn on it
        (``vision.overlay.draw_judgement``); None keeps the previous one.  ``judgement_json``: the
        frame's judgement as JSON data (``Judgement.to_json()``).  ``events``: what the rules engine
        said about this frame (``rules.base.Event``, dicts or strings), appended to the last events.
        ``scoreboard``: the scores now (``{name: score}``, ``[(name, score), ...]`` or
        ``MatchLog.scoreboard()``); None keeps the previous one.  Returns the update's number.
        """
        img = None
        if image_bgr is not None:
            img = np.asarray(image_bgr)
            if img.dtype != np.uint8 or img.ndim not in (2, 3):
                raise ValueError("image_bgr must be a uint8 BGR (or grey) image")
            img = img.copy()  # the loop may reuse its buffer
        evs = [_event_json(e) for e in events]
        rows = None if scoreboard is None else _scoreboard_json(scoreboard)
        with self._lock:
            self._seq += 1
            self._updated = time.time()
            if img is not None:
                self._image = img
                self._image_seq = self._seq
                self._jpeg = None
            self._judgement = judgement_json
            for e in evs:
                self._events.append({**e, "update": self._seq})
            self._new = len(evs)
            if rows is not None:
                self._scoreboard = rows
            return self._seq

    def snapshot(self, max_events: int = 50) -> dict[str, Any]:
        """The state as JSON data (what ``/live/state.json`` answers)."""
        with self._lock:
            events = list(self._events)[-max_events:] if max_events > 0 else []
            return {"seq": self._seq, "updated": self._updated, "has_frame": self._image is not None,
                    "frame_seq": self._image_seq,
                    "judgement": self._judgement, "events": events, "new_events": self._new,
                    "scoreboard": list(self._scoreboard)}

    def frame_jpeg(self) -> tuple[int, bytes] | None:
        """(update number of the picture, JPEG bytes) of the latest picture, or None before the first."""
        with self._lock:
            if self._image is None:
                return None
            if self._jpeg is None or self._jpeg[0] != self._image_seq:
                ok, buf = cv2.imencode(".jpg", self._image, [cv2.IMWRITE_JPEG_QUALITY, self._jpeg_quality])
                if not ok:  # pragma: no cover
                    return None
                self._jpeg = (self._image_seq, buf.tobytes())
            return self._jpeg


__all__ = ["LiveState"]
