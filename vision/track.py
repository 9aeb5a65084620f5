"""Tracking pieces from one settled scene to the next: who was shot, who was knocked, who is hidden.

:class:`Tracker` takes the :class:`~vision.judgement.Judgement` of each settled scene and gives
every piece a persistent ``track_id`` (from 1; ``-1`` is untracked):

* **association** — per kind, a Hungarian assignment (``scipy.optimize.linear_sum_assignment``) on
  the distance between centres in table mm, gated at ``gate_mm``; pieces of different colours never
  match (``"unknown"``, a piece whose colour the detector could not see, matches any colour and
  takes the track's, but only within ``unknown_gate_mm``: with no colour to go by, only its place
  says which piece it is — a disc inferred hidden in a pit is the one that lay in that pit, not one
  from across the board).  A match that moved more than ``move_tol_mm`` pays ``moved_cost_mm`` on
  top of its distance: of two explanations, the one in which fewer pieces moved wins (one shot moves
  one piece and perhaps knocks a few; it does not swap two pieces of the same colour).
* **per shot** — ``moved``: matched tracks displaced by more than ``move_tol_mm``; ``shot``: the
  caller's ``shot_hint`` if given, else the track that moved farthest (if nothing moved and one
  piece was removed, that one: it flew off); ``knocked``: moved, not shot; ``appeared``: new
  tracks; ``vanished``: tracks no longer seen, split into ``covered`` and ``removed``.
* **covered, not removed** — a piece that vanished where another piece now lies over it is
  *covered*: its old footprint overlaps a piece now ``stacked`` or ``on_piece``, or (PitRush) it
  was in, stacked in or hanging on a pit in whose stack a piece now lies.  It is kept (its last
  verdict, with its state set to ``in_pit`` under the stacker when it was not already in that
  pit's stack) and stays in the results until it is seen again or nothing lies over it any more
  (then it is removed).  Where pieces come to rest on others on the board (``on_pieces``: Pitch
  Fleet), a piece that vanished from under one that came this shot (new, or moved) over its place
  is covered too, even where the detector saw only the upper one, on the board: that one lies on it
  (``on_piece``, outbound), raised by its height.  A disc seen alone over a pit is reported
  ``in_pit`` by the detector (one photo cannot tell); when the tracker knows a disc is hidden in
  that pit, it corrects the one on top to ``stacked``, and any disc over a hidden one is raised to
  lie on it.  A piece raised or
  lowered by the tracker is posed again along its view ray when the tracker has the ``camera``
  (its top face, seen where it was, lies at another height, so its footprint shifts).
* **a pit's stack keeps its order** — a disc lay in a pit is matched there still: if the detector
  now sees it stacked (of two discs of one colour it may see the wrong one on top), it stays
  ``in_pit`` and the disc the detector reports in that pit beside it lies on it; a disc that lay
  under another in a pit and is still in it cannot be the one that now lies over it; a disc the
  detector infers hidden in a pit (colour unknown) is the one that lay in it, never one that was
  stacked there; a disc seen in a pit under a stack where a disc was seen lying is that disc, if
  it is read black (in the shadow of the one over it) or as the one over it, and no disc of that
  colour lay in the pit's stack; and a covered disc is seen again within ``return_gate_mm`` of where it lay or not
  at all (another of its colour elsewhere is another piece, not one shot from under a stack).
* **removed** — vanished with nothing over its place (flew off the table, taken away); dropped
  (kept in :attr:`Tracker.removed`).  A piece of its kind and colour found again within
  ``return_gate_mm`` of where it vanished gets its id back (``returned``: the detector had missed
  it), instead of a new one.

The :class:`TrackResult` carries the updated judgement (the input's rows, in order, with
``track_id`` filled, then the hidden tracks' rows), the lists of ids and a sentence per event.

Frames: table mm on the board plane only.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
from scipy.optimize import linear_sum_assignment
from shapely.geometry import Polygon

from calibration.camera import CameraModel
from tableref.config import VisionConfig

from .detections import Detections
from .judgement import Judgement

PIT_STACK = ("in_pit", "stacked")
_FORBIDDEN = 1e12


@dataclass(frozen=True)
class TrackResult:
    """What changed in one update.  Ids are track ids; ``judgement`` rows carry them in ``track_id``."""

    judgement: Judgement
    t: float
    shot: int | None
    moved: tuple[int, ...]
    knocked: tuple[int, ...]
    appeared: tuple[int, ...]
    vanished: tuple[int, ...]          # no longer seen this update: covered + removed
    covered: tuple[int, ...]           # vanished under another piece: kept, hidden
    removed: tuple[int, ...]           # vanished elsewhere (or no longer covered and not seen): dropped
    uncovered: tuple[int, ...] = ()    # hidden before, seen again now
    returned: tuple[int, ...] = ()     # removed before, seen again where it vanished (a missed detection)
    hidden: tuple[int, ...] = ()       # every track kept while hidden (rows at the end of ``judgement``)
    corrected: tuple[int, ...] = ()    # tracks whose state the tracker changed (in_pit <-> stacked)
    displacement_mm: dict[int, float] = field(default_factory=dict)   # of every matched track
    sentences: tuple[str, ...] = ()

    @property
    def detections(self) -> Detections:
        return self.judgement.detections

    def row_of(self, track_id: int) -> int | None:
        """Row of ``track_id`` in :attr:`judgement`, or None."""
        hit = np.flatnonzero(self.judgement.detections.track_id == track_id)
        return int(hit[0]) if len(hit) else None

    def to_json(self) -> dict:
        return {"t": self.t, "shot": self.shot, "moved": list(self.moved), "knocked": list(self.knocked),
                "appeared": list(self.appeared), "vanished": list(self.vanished), "covered": list(self.covered),
                "removed": list(self.removed), "uncovered": list(self.uncovered), "returned": list(self.returned),
                "hidden": list(self.hidden),
                "corrected": list(self.corrected),
                "displacement_mm": {str(k): round(v, 2) for k, v in sorted(self.displacement_mm.items())},
                "sentences": list(self.sentences), **self.judgement.to_json()}


@dataclass
class _Track:
    id: int
    row: Judgement             # one row: the last verdict, track_id set
    first_seen: float
    last_seen: float
    covered_by: int | None = None

    @property
    def kind(self) -> str:
        return str(self.row.detections.kind[0])

    @property
    def color(self) -> str:
        return str(self.row.detections.color[0])

    @property
    def center(self) -> np.ndarray:
        return self.row.detections.center_mm[0]

    @property
    def footprint(self) -> np.ndarray:
        return self.row.detections.footprint_mm[0]

    @property
    def state(self) -> str:
        return str(self.row.state[0])

    @property
    def pit(self) -> str | None:
        return self.row.pit[0]

    def label(self) -> str:
        return f"track {self.id} ({self.kind}/{self.color})"


def _copy(j: Judgement) -> Judgement:
    """A judgement with arrays of its own (fancy indexing copies)."""
    return j[np.arange(len(j))]


def _concat(items: list[Judgement]) -> Judgement:
    items = [j for j in items if len(j)]
    if not items:
        return Judgement.empty()
    det = Detections.merge([j.detections for j in items])
    vals = {f.name: np.concatenate([getattr(j, f.name) for j in items])
            for f in fields(Judgement) if f.name != "detections"}
    return Judgement(det, **vals)


def _cover_frac(a: Polygon, b: Polygon) -> float:
    """The area two footprints share, as a share of the smaller one's (0 where either is not a valid
    polygon)."""
    inter = a.intersection(b).area if a.is_valid and b.is_valid else 0.0
    return inter / max(min(a.area, b.area), 1e-9)


def _xy(p: np.ndarray) -> str:
    return f"({p[0]:.1f}, {p[1]:.1f}) mm"


def _where(state: str, pit: str | None) -> str:
    return f"{state.replace('_', ' ')} {pit}" if pit else state.replace("_", " ")


class Tracker:
    """Persistent track ids over the settled scenes of a game, and what each shot did.

    ``move_tol_mm``: a displacement above this is a move (detection jitter stays below it);
    ``gate_mm``: the farthest a piece is believed to travel in one shot; ``moved_cost_mm``: the
    price of explaining a piece as moved rather than still; ``cover_frac``: the overlap (of the
    smaller footprint) that makes a piece lie over a vanished one; ``return_gate_mm``: a new piece
    this close to where a removed track of its kind and colour vanished is that track again (the
    detector missed it for a shot or more), and a covered track is matched no farther than this
    from where it lay hidden; ``unknown_gate_mm``: the farthest a piece whose colour
    is unknown (the detector's or the track's) may be matched; ``camera``: the calibration's camera,
    to pose again a piece the tracker finds lying higher than the detector could see (without it
    only its elevation is changed); ``on_pieces``: pieces come to rest on others on the board (Pitch
    Fleet), so a vanished one under a piece that came over its place lies under it.
    """

    def __init__(self, cfg: VisionConfig | None = None, *, move_tol_mm: float = 2.0, gate_mm: float = 500.0,
                 moved_cost_mm: float = 10.0, cover_frac: float = 0.2, return_gate_mm: float = 5.0,
                 unknown_gate_mm: float = 5.0, camera: CameraModel | None = None, on_pieces: bool = False):
        self.cfg = cfg or VisionConfig()
        self.on_pieces = bool(on_pieces)
        self.camera = camera
        self.move_tol_mm = float(move_tol_mm)
        self.return_gate_mm = float(return_gate_mm)
        self.unknown_gate_mm = float(unknown_gate_mm)
        self.gate_mm = float(gate_mm)
        self.moved_cost_mm = float(moved_cost_mm)
        self.cover_frac = float(cover_frac)
        self.reset()

    def reset(self) -> None:
        self.tracks: dict[int, _Track] = {}
        self.removed: dict[int, _Track] = {}
        self._next_id = 1
        self.updates = 0

    # ------------------------------------------------------------------------------ matching
    def _cost(self, prev: list[_Track], det: Detections, state=None, pit=None) -> np.ndarray:
        """(len(prev), len(det)) assignment costs; _FORBIDDEN where no match is allowed.  With the
        detections' ``state`` and ``pit``, a pit's stack keeps its order (:meth:`_stack_order`)."""
        n, m = len(prev), len(det)
        cost = np.full((n, m), _FORBIDDEN)
        if not n or not m:
            return cost
        pc = np.array([t.center for t in prev])
        d = np.linalg.norm(pc[:, None, :] - det.center_mm[None, :, :], axis=2)
        pk = np.array([t.kind for t in prev], dtype=object)
        pcol = np.array([t.color for t in prev], dtype=object)
        same_kind = pk[:, None] == det.kind[None, :]
        unknown = (pcol[:, None] == "unknown") | (det.color[None, :] == "unknown")
        same_col = (pcol[:, None] == det.color[None, :]) | (unknown & (d <= self.unknown_gate_mm))
        # a piece hidden under another is seen again where it lay, or not at all: it cannot have
        # been shot from under the piece over it (another of its colour elsewhere is another piece)
        hid = np.array([t.covered_by is not None for t in prev])
        gate = np.where(hid, self.return_gate_mm, self.gate_mm)
        ok = same_kind & same_col & (d <= gate[:, None])
        if state is not None:
            # a disc in a pit under a stack is the one seen lying in that pit before (nothing gets under
            # a disc in a pit): in the shadow of the disc over it, its colour may be misread
            state_a, pit_a = np.asarray(state, dtype=object), np.asarray(pit, dtype=object)
            stacked_pits = set(pit_a[state_a == "stacked"]) - {None}
            d_under = (state_a == "in_pit") & np.isin(pit_a, list(stacked_pits))
            t_in = np.array([t.state == "in_pit" and t.covered_by is None for t in prev])
            t_pit = np.array([t.pit for t in prev], dtype=object)
            # — read dark (the shadow) or as the disc over it (its side shows over the lower one) — but
            # not where a disc of the colour it is read lay in that pit's stack (that one is it)
            in_stack = {(t.pit, t.color) for t in prev if t.state in PIT_STACK}
            over = {(p, c) for p, c, st in zip(pit_a, det.color, state_a) if st == "stacked"}
            d_under &= np.array([(p, c) not in in_stack and (c == "black" or (p, c) in over)
                                 for p, c in zip(pit_a, det.color)], bool)
            same_col |= (t_in[:, None] & d_under[None, :] & (t_pit[:, None] == pit_a[None, :])
                         & (d <= self.unknown_gate_mm))
            ok = same_kind & same_col & (d <= gate[:, None])
            ok &= self._stack_order(prev, det, state, pit)
        c = np.where(d <= self.move_tol_mm, d, d + self.moved_cost_mm)
        cost[ok] = c[ok]
        return cost

    @staticmethod
    def _stack_order(prev: list[_Track], det: Detections, state, pit) -> np.ndarray:
        """(len(prev), len(det)) False where a match would turn a pit's stack over.  A disc the
        detector infers hidden in a pit (colour unknown: the one it sees lies too far out to be in
        the pit) is the lowest there: the disc that lay in that pit if one did (nothing gets under a
        disc in a pit), so that disc matches no disc seen stacked there, and no disc that was
        stacked there matches the hidden one.  (Where it sees the discs of a pit, their distances
        say more than its stacking order, which for two discs of one colour may be the wrong way.)"""
        ok = np.ones((len(prev), len(det)), bool)
        t_pit = np.array([t.pit for t in prev], dtype=object)
        t_in = np.array([t.state == "in_pit" for t in prev])
        t_st = np.array([t.state == "stacked" for t in prev])
        state, d_pit = np.asarray(state, dtype=object), np.asarray(pit, dtype=object)
        d_hid = (state == "in_pit") & (det.color == "unknown")
        for p in set(t_pit[t_in]) & set(d_pit[d_hid]) - {None}:
            ok[np.ix_(t_in & (t_pit == p), (state == "stacked") & (d_pit == p))] = False
            ok[np.ix_(t_st & (t_pit == p), d_hid & (d_pit == p))] = False
        return ok

    def _assign(self, cost: np.ndarray) -> list[tuple[int, int]]:
        n, m = cost.shape
        if not n or not m:
            return []
        unmatched = 0.5 * (self.gate_mm + self.moved_cost_mm) + 1.0  # per side: a match in the gate is cheaper
        big = np.full((n + m, m + n), _FORBIDDEN)
        big[:n, :m] = cost
        big[:n, m:][np.diag_indices(n)] = unmatched
        big[n:, :m][np.diag_indices(m)] = unmatched
        big[n:, m:] = 0.0
        rows, cols = linear_sum_assignment(big)
        return [(int(r), int(c)) for r, c in zip(rows, cols) if r < n and c < m and big[r, c] < _FORBIDDEN]

    # ------------------------------------------------------------------------------ covering
    def _cover_of(self, v: _Track, jud: Judgement, ids: np.ndarray, polys: list[Polygon]) -> int | None:
        """Row of the current piece lying over vanished track ``v``'s place, or None."""
        best, best_score = None, 0.0
        pv = Polygon(v.footprint)
        v_base = float(v.row.detections.base_mm[0])
        for i in range(len(jud)):
            if ids[i] == v.id or self._was_under(v, v_base, int(ids[i]), jud.pit[i]):
                continue
            st = str(jud.state[i])
            pit_stack = (v.pit is not None and v.state in PIT_STACK + ("hanging",)
                         and jud.pit[i] == v.pit and st in PIT_STACK)
            frac = _cover_frac(pv, polys[i])
            over = st in ("stacked", "on_piece") and frac >= self.cover_frac
            if not (pit_stack or over):
                continue
            score = frac + (1.0 if pit_stack else 0.0)
            if best is None or score > best_score:
                best, best_score = i, score
        return best

    def _landed_on(self, v: _Track, jud: Judgement, ids: np.ndarray, polys: list[Polygon],
                   disp: dict[int, float]) -> int | None:
        """Where pieces come to rest on others (``on_pieces``, Pitch Fleet): row of the piece that came
        this shot (new, or moved more than ``move_tol_mm``) and lies on the board over vanished
        track ``v``'s place (overlapping ``cover_frac`` of the smaller footprint) — the detector read
        the two as one, or the lower one not at all, so ``v`` lies under it — or None."""
        if v.pit is not None or v.state not in ("surface", "on_piece"):
            return None
        pv = Polygon(v.footprint)
        best, best_frac = None, 0.0
        for i in range(len(jud)):
            tid = int(ids[i])
            came = tid not in self.tracks or disp.get(tid, 0.0) > self.move_tol_mm
            if not came or str(jud.state[i]) != "surface":
                continue
            frac = _cover_frac(pv, polys[i])
            if frac >= self.cover_frac and frac > best_frac:
                best, best_frac = i, frac
        return best

    def _lay_on(self, v: _Track, jud: Judgement, i: int) -> None:
        """Row ``i`` lies on vanished track ``v``: on a piece (outbound, no zone), posed again at the
        height of ``v``'s top."""
        vd = v.row.detections
        self._repose(jud.detections, i, float(vd.base_mm[0] + vd.height_mm[0]))
        jud.state[i], jud.outbound[i], jud.zones[i] = "on_piece", True, ()
        jud.reasons[i] = (f"rests on track {v.id} ({v.kind}/{v.color}), which lay there before this shot "
                          f"and is no longer seen (tracker): counts as outbound"
                          + (f"; detector: {jud.reasons[i]}" if jud.reasons[i] else ""))

    def _was_under(self, v: _Track, v_base: float, tid: int, pit_now: str | None) -> bool:
        """Track ``tid`` lay lower than ``v`` in ``v``'s pit and is still in it: it cannot lie over
        ``v`` now (a disc under a stack does not come out on top of it without leaving the pit)."""
        old = self.tracks.get(tid)
        return (old is not None and v.pit is not None and old.pit == v.pit == pit_now
                and old.state in PIT_STACK and float(old.row.detections.base_mm[0]) < v_base - 1e-6)

    def _hide(self, v: _Track, jud: Judgement, i: int, ids: np.ndarray) -> tuple[Judgement, bool]:
        """``v``'s row kept under current row ``i``; True when it had to move there (knocked in)."""
        row = _copy(v.row)
        d = row.detections
        pit_c = jud.pit[i]
        moved = False
        if pit_c is not None and not (v.state in PIT_STACK and v.pit == pit_c):
            # it was on the surface or hanging and is now under a disc in that pit: knocked in.  A pit
            # holds one disc: with another one seen in it, this one lies between (stacked)
            seen_in = any(k != i and jud.state[k] == "in_pit" and jud.pit[k] == pit_c for k in range(len(jud)))
            delta = jud.detections.center_mm[i] - d.center_mm[0]
            d.center_mm[0] = jud.detections.center_mm[i]
            d.center_px[0] = jud.detections.center_px[i]
            d.footprint_mm[0] = d.footprint_mm[0] + delta
            # under a disc the detector sees in the pit, it takes its place there (the one over it
            # is raised below); under a stacked one, it lies right under it
            d.base_mm[0] = jud.detections.base_mm[i] - (0.0 if jud.state[i] == "in_pit" else d.height_mm[0])
            row.state[0] = "stacked" if seen_in else "in_pit"
            row.pit[0], row.outbound[0], row.zones[0] = pit_c, False, ()
            moved = True
        return row, moved

    def _repose(self, d: Detections, i: int, base_mm: float) -> None:
        """Row ``i`` lies with its underside at ``base_mm``, not where the detector posed it: its top
        face, seen where it was, lies further along the view ray, so its centre and footprint (table
        mm) shift along the ray (in image px its top stays put)."""
        top = float(d.base_mm[i] + d.height_mm[i])
        rise = float(base_mm - d.base_mm[i])
        if self.camera is not None:
            c = d.center_mm[i:i + 1]
            px = self.camera.project_plane(c, top)
            shift = self.camera.backproject(px, top + rise)[0] - c[0]
            if np.all(np.isfinite(shift)):
                d.center_mm[i] = c[0] + shift
                d.footprint_mm[i] = d.footprint_mm[i] + shift
                d.center_px[i] = self.camera.project_plane(d.center_mm[i:i + 1], base_mm)[0]
        d.base_mm[i] = base_mm

    @staticmethod
    def _under(jud: Judgement, i: int, ids: np.ndarray) -> str:
        """What hides a covered track: current row ``i``, as finally judged."""
        return (f"under track {int(ids[i])} ({jud.detections.kind[i]}/{jud.detections.color[i]}, "
                f"{_where(str(jud.state[i]), jud.pit[i])})")

    # ------------------------------------------------------------------------------ update
    def update(self, judgement: Judgement, t: float, shot_hint: int | None = None) -> TrackResult:
        """Track the pieces of one settled scene (taken at time ``t``, s).  ``shot_hint``: the track the
        caller knows was shot (it wins over the farthest mover)."""
        t = float(t)
        if shot_hint is not None and shot_hint not in self.tracks:
            raise ValueError(f"shot_hint={shot_hint} is not a current track (tracks: {sorted(self.tracks)})")
        jud = _copy(judgement)
        det = jud.detections
        n_cur = len(jud)
        first = not self.tracks and self.updates == 0
        prev = list(self.tracks.values())
        ids = np.full(n_cur, -1, dtype=np.int64)

        # -- associate, per kind (the cost forbids kind and colour mismatches)
        pairs = self._assign(self._cost(prev, det, jud.state, jud.pit))
        disp: dict[int, float] = {}
        before: dict[int, np.ndarray] = {}
        uncovered: list[int] = []
        recolored: list[str] = []
        for r, c in pairs:
            tr = prev[r]
            ids[c] = tr.id
            disp[tr.id] = float(np.linalg.norm(det.center_mm[c] - tr.center))
            before[tr.id] = tr.center.copy()
            if det.color[c] == "unknown" and tr.color != "unknown":
                det.color[c] = tr.color
            elif det.color[c] != tr.color and tr.color != "unknown":   # under a stack (see _cost)
                recolored.append(f"{tr.label()} lies in {tr.pit} under the disc over it, read "
                                 f"{det.color[c]} in its shadow: it is the one that lay there")
                jud.reasons[c] = (f"{tr.color}: the disc that lay in {tr.pit} (tracker); detector: {det.color[c]}"
                                  + (f", {jud.reasons[c]}" if jud.reasons[c] else ""))
                det.color[c] = tr.color
            if tr.covered_by is not None:
                uncovered.append(tr.id)
        # -- a piece found where a removed track vanished is that track (a missed detection)
        returned: list[int] = []
        free = np.flatnonzero(ids < 0)
        gone = list(self.removed.values())
        if len(free) and gone:
            cost = self._cost(gone, det[free])
            cost[cost > self.return_gate_mm + self.moved_cost_mm] = _FORBIDDEN
            for r, c in self._assign(cost):
                tr = gone[r]
                ids[free[c]] = tr.id
                disp[tr.id] = float(np.linalg.norm(det.center_mm[free[c]] - tr.center))
                before[tr.id] = tr.center.copy()
                returned.append(tr.id)
                del self.removed[tr.id]
                self.tracks[tr.id] = tr  # back in play (bookkeeping below)
        # -- a disc that lay in a pit and is matched there still lies in it: nothing gets under a
        # disc in a pit (of two discs of one colour in a pit, the detector may see the wrong one on top)
        kept_in, corrections = [], recolored
        for r, c in pairs:
            tr = prev[r]
            if tr.state == "in_pit" and jud.pit[c] == tr.pit and str(jud.state[c]) == "stacked":
                jud.state[c] = "in_pit"
                self._repose(det, c, float(tr.row.detections.base_mm[0]))
                jud.reasons[c] = (f"in the pit {tr.pit}, where it lay (tracker)"
                                  + (f"; detector: {jud.reasons[c]}" if jud.reasons[c] else ""))
                kept_in.append((tr.id, c))
                corrections.append(f"{tr.label()} lay in {tr.pit} and lies there still: in the pit, not "
                                   f"stacked (a disc in a pit cannot get on one that came after it)")
        appeared = []
        for c in range(n_cur):
            if ids[c] < 0:
                ids[c] = self._next_id
                appeared.append(self._next_id)
                self._next_id += 1
        det.track_id[:] = ids
        matched = {prev[r].id for r, _ in pairs}
        # ... and a disc the detector sees in that pit beside it lies on it (a pit holds one disc)
        for tid, c in list(kept_in):
            top = float(det.base_mm[c] + det.height_mm[c])
            for k in range(n_cur):
                if k != c and jud.pit[k] == jud.pit[c] and str(jud.state[k]) == "in_pit":
                    jud.state[k] = "stacked"
                    self._repose(det, k, top)
                    jud.reasons[k] = (f"stacked {jud.pit[k]} on track {tid}, which lay in the pit (tracker)"
                                      + (f"; detector: {jud.reasons[k]}" if jud.reasons[k] else ""))
                    corrections.append(f"track {int(ids[k])} ({det.kind[k]}/{det.color[k]}) lies on track {tid} "
                                       f"in {jud.pit[k]}: stacked, not in the pit")
                    kept_in.append((int(ids[k]), k))

        # -- the ones not seen: covered (kept) or removed
        corrected = [tid for tid, _ in kept_in]
        polys = [Polygon(fp) for fp in det.footprint_mm]
        covered, removed, still_hidden, knocked_in = [], [], [], []
        hidden_rows: dict[int, tuple[Judgement, int]] = {}
        for tr in prev:
            if tr.id in matched:
                continue
            i = self._cover_of(tr, jud, ids, polys)
            if i is None and self.on_pieces:
                i = self._landed_on(tr, jud, ids, polys, disp)
                if i is not None:
                    self._lay_on(tr, jud, i)
                    corrected.append(int(ids[i]))
                    corrections.append(f"track {int(ids[i])} ({det.kind[i]}/{det.color[i]}) came to rest over "
                                       f"{tr.label()}, which lay there and is no longer seen: it lies on it "
                                       f"(outbound)")
            if i is None:
                removed.append(tr.id)
                continue
            row, moved_in = self._hide(tr, jud, i, ids)
            if moved_in:
                disp[tr.id] = float(np.linalg.norm(row.detections.center_mm[0] - tr.center))
                before[tr.id] = tr.center.copy()
                knocked_in.append(tr.id)
            hidden_rows[tr.id] = (row, i)
            (covered if tr.covered_by is None else still_hidden).append(tr.id)

        # -- a disc over a pit in whose stack a disc is hidden lies on it: seen alone there, it is
        # reported in the pit by the detector (one photo cannot tell), and stacked on one disc at most
        for i in range(n_cur):
            if str(jud.state[i]) not in PIT_STACK:
                continue
            under = [(tid, row) for tid, (row, k) in sorted(hidden_rows.items())
                     if k == i and str(row.state[0]) in PIT_STACK and row.pit[0] == jud.pit[i]]
            if not under:
                continue
            top = max(float(row.detections.base_mm[0] + row.detections.height_mm[0]) for _, row in under)
            if top > det.base_mm[i] + 1e-6:
                self._repose(det, i, top)
            if str(jud.state[i]) == "stacked":
                continue
            jud.state[i] = "stacked"
            names = ", ".join(f"track {tid} ({row.detections.kind[0]}/{row.detections.color[0]})" for tid, row in under)
            jud.reasons[i] = (f"stacked {jud.pit[i]} on {names}, hidden in the pit (tracker)"
                              + (f"; detector: {jud.reasons[i]}" if jud.reasons[i] else ""))
            corrected.append(int(ids[i]))
            corrections.append(f"track {int(ids[i])} ({det.kind[i]}/{det.color[i]}) lies on {names} hidden "
                               f"in {jud.pit[i]}: stacked, not in the pit")
        for tid, (row, i) in hidden_rows.items():  # under a raised stacker, the hidden one sits lower
            if tid in knocked_in:
                row.detections.base_mm[0] = det.base_mm[i] - row.detections.height_mm[0]
            row.reasons[0] = (f"not visible: covered {self._under(jud, i, ids)}; "
                              f"{_where(str(row.state[0]), row.pit[0])} from the track history")

        # -- what became of the ones not seen, said once the pieces over them are finally judged
        sentences: list[str] = []
        for tr in prev:
            if tr.id in removed and tr.covered_by is None:
                sentences.append(f"{tr.label()} vanished from {_xy(tr.center)} and nothing lies over that "
                                 f"place: removed (off the table or taken away)")
            elif tr.id in removed:
                sentences.append(f"{tr.label()}, hidden since under track {tr.covered_by}, is no longer "
                                 f"covered and not seen: removed")
            elif tr.id in covered:
                row, i = hidden_rows[tr.id]
                sentences.append(f"{tr.label()} vanished from {_xy(tr.center)} {self._under(jud, i, ids)}: "
                                 f"covered, kept as {_where(str(row.state[0]), row.pit[0])}")
        sentences += corrections

        # -- moves
        moved = sorted((tid for tid, d in disp.items() if d > self.move_tol_mm), key=lambda k: (-disp[k], k))
        vanished = sorted(covered + removed)
        if shot_hint is not None:
            shot = int(shot_hint)
        elif moved:
            shot = moved[0]
        elif len(removed) == 1 and not first:
            shot = removed[0]
        else:
            shot = None
        knocked = [k for k in moved if k != shot]

        # -- bookkeeping
        new_tracks: dict[int, _Track] = {}
        for c in range(n_cur):
            tid = int(ids[c])
            old = self.tracks.get(tid)
            new_tracks[tid] = _Track(tid, jud[[c]], old.first_seen if old else t, t)
        for tid, (row, i) in sorted(hidden_rows.items()):
            old = self.tracks[tid]
            new_tracks[tid] = _Track(tid, row, old.first_seen, old.last_seen, covered_by=int(ids[i]))
        for tid in removed:
            self.removed[tid] = self.tracks[tid]
        self.tracks = dict(sorted(new_tracks.items()))
        self.updates += 1

        out = _concat([jud] + [hidden_rows[k][0] for k in sorted(hidden_rows)])

        # -- sentences, most important first
        lines: list[str] = []
        labels = {tid: tr.label() for tid, tr in self.tracks.items()}
        labels.update({tid: tr.label() for tid, tr in self.removed.items()})

        def now(tid: int) -> str:
            tr = self.tracks.get(tid)
            return f", now {_where(tr.state, tr.pit)}" if tr is not None else ""

        if first:
            lines.append(f"first view: {n_cur} piece(s), track ids {', '.join(map(str, appeared)) or 'none'}")
        else:
            if shot is not None:
                if shot in disp and shot in moved:
                    lines.append(f"{labels[shot]} was shot: moved {disp[shot]:.1f} mm, {_xy(before[shot])} -> "
                                 f"{_xy(self.tracks[shot].center)}{now(shot)}"
                                 + (" (as the caller said)" if shot_hint is not None else " (the farthest mover)"))
                elif shot in removed:
                    lines.append(f"{labels[shot]} was most likely shot: nothing else moved and it is gone (removed)")
                else:
                    lines.append(f"{labels[shot]} was shot (as the caller said) but did not move more than "
                                 f"{self.move_tol_mm:.1f} mm")
            for k in knocked:
                how = "knocked into the pit under another disc" if k in knocked_in else "knocked"
                lines.append(f"{labels[k]} was {how}: moved {disp[k]:.1f} mm, {_xy(before[k])} -> "
                             f"{_xy(self.tracks[k].center)}{now(k)}")
            if not moved:
                lines.append(f"nothing moved more than {self.move_tol_mm:.1f} mm")
            for k in appeared:
                lines.append(f"{labels[k]} appeared at {_xy(self.tracks[k].center)}{now(k)}")
        lines.extend(sentences)
        for k in uncovered:
            lines.append(f"{labels[k]} is seen again at {_xy(self.tracks[k].center)} (was covered)")
        for k in returned:
            lines.append(f"{labels[k]} is seen again at {_xy(self.tracks[k].center)}, where it vanished "
                         f"(missed before, not removed after all)")
        for k in still_hidden:
            tr = self.tracks[k]
            lines.append(f"{labels[k]} is still hidden under track {tr.covered_by}")

        return TrackResult(judgement=out, t=t, shot=shot, moved=tuple(moved), knocked=tuple(knocked),
                           appeared=tuple(appeared), vanished=tuple(vanished), covered=tuple(sorted(covered)),
                           removed=tuple(sorted(removed)), uncovered=tuple(sorted(uncovered)),
                           returned=tuple(sorted(returned)),
                           hidden=tuple(sorted(hidden_rows)), corrected=tuple(sorted(corrected)),
                           displacement_mm=disp, sentences=tuple(lines))
