"""The detections of one image: parallel numpy arrays, one row per piece.

Frames: ``center_px`` is in image pixels (the footprint's centre projected into the input image);
``center_mm``, ``footprint_mm`` are in the table frame (mm on the board plane, x right, y down);
``base_mm`` is the elevation of the piece's underside above the board plane (0 resting on a board,
``-table_depth`` on the table, negative in a pit, positive when stacked); ``height_mm`` is the
piece's own height.

Modelled on supervision's ``Detections``: validated in ``__post_init__``, filtered with boolean
masks or index arrays (``det[det.kind == "disc"]``), ``Detections.empty()`` instead of ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Iterator

import numpy as np


def _obj_array(items: list[Any]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    for i, it in enumerate(items):
        out[i] = it
    return out


def _spliced(a, index, b) -> dict[str, Any]:
    """The fields of dataclass of parallel arrays ``a`` with the rows at ``index`` replaced by those
    of ``b`` (one per index, same fields), as new arrays."""
    index = np.asarray(index, dtype=int)
    if len(index) != len(b):
        raise ValueError(f"{len(index)} rows to replace, {len(b)} given")
    out = {}
    for f in fields(a):
        v = getattr(a, f.name)
        if isinstance(v, np.ndarray):
            v = v.copy()
            if v.dtype == object:
                for k, i in enumerate(index):  # (rows that are arrays or tuples themselves)
                    v[i] = getattr(b, f.name)[k]
            else:
                v[index] = getattr(b, f.name)
        out[f.name] = v
    return out


def _gathered(cls, rows, skip: str = "") -> dict[str, Any]:
    """The fields (but ``skip``) of dataclass of parallel arrays ``cls`` made of the given rows of
    instances of it (each an instance and a row of it), in order."""
    # (rows come from one or two instances, the frame before's and this frame's: each field is
    # taken from each by one index array, not row by row)
    by_source: dict[int, tuple[Any, list[int], list[int]]] = {}
    for k, (a, i) in enumerate(rows):
        _, at, index = by_source.setdefault(id(a), (a, [], []))
        at.append(k)
        index.append(i)
    out = {}
    for f in fields(cls):
        if f.name == skip:
            continue
        first = getattr(rows[0][0], f.name)
        v = np.empty((len(rows),) + first.shape[1:], dtype=first.dtype)
        for a, at, index in by_source.values():
            v[at] = getattr(a, f.name)[index]
        out[f.name] = v
    return out


@dataclass(eq=False)
class Detections:
    kind: np.ndarray                      # (N,) str
    color: np.ndarray                     # (N,) str
    center_px: np.ndarray                 # (N, 2) float, image px
    center_mm: np.ndarray                 # (N, 2) float, table mm
    footprint_mm: np.ndarray              # (N,) object: each a (K, 2) float array, table mm
    height_mm: np.ndarray                 # (N,) float
    base_mm: np.ndarray = field(default=None)        # (N,) float, elevation of the underside
    heading_deg: np.ndarray = field(default=None)    # (N,) float, direction of the piece's +x axis
    confidence: np.ndarray = field(default=None)     # (N,) float in [0, 1]
    track_id: np.ndarray = field(default=None)       # (N,) int, -1 = untracked
    tilt_deg: np.ndarray = field(default=None)       # (N,) float, 0 = lying flat

    def __post_init__(self) -> None:
        n = len(self.kind)
        for f in fields(self):
            a = getattr(self, f.name)
            if a is not None and len(a) != n:
                raise ValueError(f"Detections.{f.name} has {len(a)} rows, expected {n} (one per piece)")
        self.kind = np.asarray(self.kind, dtype=object).reshape(n)
        self.color = np.asarray(self.color, dtype=object).reshape(n)
        self.center_px = np.asarray(self.center_px, dtype=np.float64).reshape(n, 2)
        self.center_mm = np.asarray(self.center_mm, dtype=np.float64).reshape(n, 2)
        if not (isinstance(self.footprint_mm, np.ndarray) and self.footprint_mm.dtype == object):
            self.footprint_mm = _obj_array([np.asarray(f, dtype=np.float64).reshape(-1, 2) for f in self.footprint_mm])
        self.height_mm = np.asarray(self.height_mm, dtype=np.float64).reshape(n)
        defaults = {"base_mm": 0.0, "heading_deg": 0.0, "confidence": 1.0, "track_id": -1, "tilt_deg": 0.0}
        for name, val in defaults.items():
            arr = getattr(self, name)
            dtype = np.int64 if name == "track_id" else np.float64
            arr = np.full(n, val, dtype=dtype) if arr is None else np.asarray(arr, dtype=dtype).reshape(n)
            setattr(self, name, arr)
        for f in fields(self):
            a = getattr(self, f.name)
            if len(a) != n:
                raise ValueError(f"Detections.{f.name} has {len(a)} rows, expected {n}")
        for i, fp in enumerate(self.footprint_mm):
            if fp.ndim != 2 or fp.shape[1] != 2 or fp.shape[0] < 3:
                raise ValueError(f"footprint {i} must be a (K>=3, 2) array, got {fp.shape}")
        if n and (np.any(self.confidence < 0) or np.any(self.confidence > 1)):
            raise ValueError("confidence must lie in [0, 1]")

    @classmethod
    def empty(cls) -> "Detections":
        return cls(kind=[], color=[], center_px=np.zeros((0, 2)), center_mm=np.zeros((0, 2)),
                   footprint_mm=_obj_array([]), height_mm=[])

    def __len__(self) -> int:
        return len(self.kind)

    def __getitem__(self, index) -> "Detections":
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        vals = {f.name: getattr(self, f.name)[index] for f in fields(self)}
        return Detections(**vals)

    @classmethod
    def gather(cls, rows: list[tuple[Detections, int]]) -> Detections:
        """Detections of the given rows of others (each detections and a row of them), in order."""
        return cls(**_gathered(cls, rows)) if rows else cls.empty()

    def with_rows(self, index, other: Detections) -> Detections:
        """A copy with the rows at ``index`` (in order) replaced by ``other``'s."""
        return Detections(**_spliced(self, index, other))

    def __iter__(self) -> Iterator["Detections"]:
        for i in range(len(self)):
            yield self[i]

    @classmethod
    def merge(cls, items: list["Detections"]) -> "Detections":
        items = [d for d in items if len(d)]
        if not items:
            return cls.empty()
        vals = {}
        for f in fields(cls):
            arrs = [getattr(d, f.name) for d in items]
            if f.name == "footprint_mm":
                vals[f.name] = _obj_array([fp for a in arrs for fp in a])
            else:
                vals[f.name] = np.concatenate(arrs, axis=0)
        return cls(**vals)

    def keys(self) -> np.ndarray:
        """``kind/color`` of each piece."""
        return np.array([f"{k}/{c}" for k, c in zip(self.kind, self.color)], dtype=object)

    def row(self, i: int) -> dict[str, Any]:
        return {
            "kind": str(self.kind[i]), "color": str(self.color[i]),
            "center_px": [round(float(v), 2) for v in self.center_px[i]],
            "center_mm": [round(float(v), 2) for v in self.center_mm[i]],
            "footprint_mm": [[round(float(x), 2), round(float(y), 2)] for x, y in self.footprint_mm[i]],
            "height_mm": round(float(self.height_mm[i]), 2), "base_mm": round(float(self.base_mm[i]), 2),
            "heading_deg": round(float(self.heading_deg[i]), 1), "confidence": round(float(self.confidence[i]), 3),
            "track_id": int(self.track_id[i]), "tilt_deg": round(float(self.tilt_deg[i]), 1),
        }

    @classmethod
    def from_rows(cls, rows: list[dict[str, Any]]) -> "Detections":
        if not rows:
            return cls.empty()
        cols = {f.name: [r.get(f.name) for r in rows] for f in fields(cls)}
        for opt in ("base_mm", "heading_deg", "confidence", "track_id", "tilt_deg"):
            if any(v is None for v in cols[opt]):
                cols[opt] = None
        cols["footprint_mm"] = _obj_array([np.asarray(f, dtype=np.float64) for f in cols["footprint_mm"]])
        return cls(**cols)
