"""The judgement of one settled scene: per piece, what the geometry says, with margins.

Rows line up with a :class:`~vision.detections.Detections`.  All distances are in table mm.

* ``outbound``: the piece touches the table (its centre of mass is not over the support region,
  or it rests on another piece, Pitch Fleet Q&A).
* ``zones``: every zone (``"<tile id>/<zone id>"``) the footprint touches or lies inside.
* ``pit``: the pit (``"<tile id>/<pit id>"``) the piece is in, stacked over, or hangs on; or None.
* ``state``: ``surface`` | ``in_pit`` | ``stacked`` | ``hanging`` | ``off_board`` | ``on_piece``;
  cards ``face_up`` | ``face_down``.
* ``space``: the grid space a Galaktico figure or meteor stands on.
* ``margin_mm``: how far the piece is from any of its verdicts flipping (the smallest of the
  distances to the decision boundaries involved); ``review`` is True when that is below the
  configured review margin: a person must confirm.
* ``reasons``: a sentence per piece saying why, with millimetres.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from .detections import Detections, _gathered, _obj_array, _spliced

STATES = ("surface", "in_pit", "stacked", "hanging", "off_board", "on_piece", "face_up", "face_down")


@dataclass(eq=False)
class Judgement:
    detections: Detections
    outbound: np.ndarray      # (N,) bool
    zones: np.ndarray         # (N,) object: tuple[str, ...]
    pit: np.ndarray           # (N,) object: str | None
    state: np.ndarray         # (N,) object: str
    space: np.ndarray         # (N,) object: str | None
    margin_mm: np.ndarray     # (N,) float
    confidence: np.ndarray    # (N,) float
    review: np.ndarray        # (N,) bool
    reasons: np.ndarray       # (N,) object: str

    def __post_init__(self) -> None:
        n = len(self.detections)
        self.outbound = np.asarray(self.outbound, dtype=bool).reshape(n)
        self.zones = _obj_array([tuple(z) for z in self.zones])
        self.pit = _obj_array(list(self.pit))
        self.state = np.asarray(self.state, dtype=object).reshape(n)
        self.space = _obj_array(list(self.space))
        self.margin_mm = np.asarray(self.margin_mm, dtype=np.float64).reshape(n)
        self.confidence = np.asarray(self.confidence, dtype=np.float64).reshape(n)
        self.review = np.asarray(self.review, dtype=bool).reshape(n)
        self.reasons = _obj_array([str(r) for r in self.reasons])
        for f in fields(self):
            if f.name != "detections" and len(getattr(self, f.name)) != n:
                raise ValueError(f"Judgement.{f.name} has {len(getattr(self, f.name))} rows, expected {n}")
        bad = [s for s in self.state if s not in STATES]
        if bad:
            raise ValueError(f"unknown piece state(s) {sorted(set(bad))}; expected one of {STATES}")

    @classmethod
    def empty(cls) -> "Judgement":
        return cls(Detections.empty(), [], [], [], [], [], [], [], [], [])

    def __len__(self) -> int:
        return len(self.detections)

    def __getitem__(self, index) -> "Judgement":
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        vals = {f.name: getattr(self, f.name)[index] for f in fields(self)}
        return Judgement(**vals)

    @classmethod
    def gather(cls, rows: list[tuple[Judgement, int]]) -> Judgement:
        """One judgement of the given rows of others (each a judgement and a row of it), in order."""
        if not rows:
            return cls.empty()
        vals = _gathered(cls, rows, skip="detections")
        return cls(Detections.gather([(j.detections, i) for j, i in rows]), **vals)

    def with_rows(self, index, other: Judgement) -> Judgement:
        """A copy with the rows at ``index`` (in order) replaced by ``other``'s, detections and all."""
        vals = _spliced(self, index, other)
        vals["detections"] = self.detections.with_rows(index, other.detections)
        return Judgement(**vals)

    def row(self, i: int) -> dict[str, Any]:
        """One piece in the ``tableref detect --json`` format."""
        d = self.detections.row(i)
        return {
            "kind": d["kind"], "color": d["color"], "center_px": d["center_px"], "center_mm": d["center_mm"],
            "footprint_mm": d["footprint_mm"], "outbound": bool(self.outbound[i]), "zones": list(self.zones[i]),
            "pit": self.pit[i], "space": self.space[i], "state": str(self.state[i]),
            "margin_mm": round(float(self.margin_mm[i]), 2), "confidence": round(float(self.confidence[i]), 3),
            "review": bool(self.review[i]), "reason": str(self.reasons[i]),
            "height_mm": d["height_mm"], "base_mm": d["base_mm"], "heading_deg": d["heading_deg"],
            "track_id": d["track_id"],
        }

    def to_json(self) -> dict[str, Any]:
        return {"pieces": [self.row(i) for i in range(len(self))]}

    @classmethod
    def from_json(cls, doc: dict[str, Any]) -> "Judgement":
        rows = doc.get("pieces", [])
        det = Detections.from_rows(rows)
        return cls(det, [r["outbound"] for r in rows], [r.get("zones", []) for r in rows],
                   [r.get("pit") for r in rows], [r.get("state", "surface") for r in rows],
                   [r.get("space") for r in rows], [r.get("margin_mm", 0.0) for r in rows],
                   [r.get("confidence", 1.0) for r in rows], [r.get("review", False) for r in rows],
                   [r.get("reason", "") for r in rows])
