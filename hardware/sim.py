"""The simulator as a frame source (``sim:GAME[:SEED]``, ``sim:GAME:SEED:empty``): the live referee
without a camera.

``sim:GAME:SEED`` renders the random scene ``simulator.generate.random_scene(GAME, SEED)`` (the same
table, camera and pieces as ``tableref simulate scene --game GAME --seed SEED``, at this source's
size; SEED defaults to 0) and plays shots on it.  The stream, frame by frame:

=================  ===========  ==================================================================
frames             ``phase``    what is in them
=================  ===========  ==================================================================
``lead``           ``still``    the scene at rest, no hand (default 10 frames)
then, for each of ``shots`` shots (default 3; 0 = shots without end):
``hand_frames``    ``hand``     a hand (``simulator.generate.random_hand``: its width, height and
                                the table edge it comes from) enters at the edge of the picture
                                and reaches in until its fingertip is just behind the piece about
                                to be shot (default 6 frames)
``move_frames``    ``move``     that piece slides along the shot (fast, then slowing) and turns a
                                little, to a free spot on the boards, while the hand pulls back the
                                way it came.  In the last of these frames the piece is at rest and
                                the hand gone, so it already equals the settled frames (default 8)
``settle_frames``  ``settled``  the new layout, no hand; these frames are bit-identical
                                (default 15 = 1.5 s at 10 fps, longer than the referee's settle time)
=================  ===========  ==================================================================

With the defaults that is 10 + 3 x 29 = 97 frames (9.7 s of stream) from 1 + 3 x 14 = 43 renders.
All other pieces stay still.  The piece moved is a free one resting flat on the boards (nothing
stacked on it, not in or on the rim of a pit); it lands fully on the boards, clear of the other
pieces (its whole path is), of pits (PitRush) and of occupied spaces (Galaktico).  If no piece can
be moved the shot is the hand alone.  Shot ``k`` is drawn from ``default_rng([SEED, k, ...])`` and
starts from where shot ``k - 1`` left the pieces.

``sim:GAME:SEED:empty`` is the same table with no pieces (a calibration photo): ``count`` identical
frames (default 1).

Options: ``size`` (``"640x360"`` or ``(w, h)``, default 640x360), ``fps`` (10), ``shots``, ``lead``,
``hand_frames``, ``move_frames``, ``settle_frames`` (above), ``count`` (empty table only),
``realtime`` (false), ``supersample`` (the renderer's default: 2 at these sizes), ``cache`` (renders
kept, 8).

Timestamps are ``index / fps``.  With ``realtime=true`` :meth:`read` also waits until that time has
passed since opening (``is_live`` is then true); otherwise frames come as fast as they render.

Cost: a render takes about a second at any small size (fixed costs: shadow maps, faces,
textures), so frames are rendered at ``size`` and identical states are rendered once (a ``lead`` or
``settled`` run costs one render); the simulator's art cache keeps the table-top texture.  The sensor noise is drawn from the scene's seed, so it is
the same in every frame: frames of one state are bit-identical, and the whole stream is the same
for the same seed and options.  Every read hands out a fresh copy of the image.

Ground truth: :attr:`SimSource.scene` is the scene of the last frame read (pieces, hand), and
:attr:`SimSource.phase` / :attr:`SimSource.shot` say where in the stream it was
(:meth:`SimSource.phase_of` tells without rendering).  A moved piece's verdicts (outbound, zones,
pit, space, margin) are recomputed where it comes to rest; while it is moving they are those of
where it started.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import shapely
from shapely.geometry import Point, Polygon
from shapely.ops import unary_union

from tableref.errors import InputError

from .source import EndOfStream, FrameSource, opt_bool, opt_float, opt_int, opt_size, positive

GAMES = ("pitchfleet", "pitrush", "galaktico", "asfccg")

Pose = tuple[float, float, float]  # centre x, centre y (table mm), heading (deg)


@dataclass(frozen=True)
class Shot:
    """One planned shot: which piece goes where, and where the hand comes from."""

    piece: int | None           # index into the pieces, None: the hand alone
    start: Pose | None
    end: Pose | None
    hand_width_mm: float
    hand_height_mm: float
    arm_dir: tuple[float, float]   # unit vector, wrist -> fingertip
    arm_len_mm: float
    tip_out: tuple[float, float]   # fingertip outside the boards
    tip_in: tuple[float, float]    # fingertip just behind the piece


def _ease_in_out(t: float) -> float:
    return 0.5 - 0.5 * math.cos(math.pi * t)


def _ease_out(t: float) -> float:
    return 1.0 - (1.0 - t) ** 2


def _rot(v: np.ndarray, deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def _moved_footprint(fp: np.ndarray, start: Pose, end: Pose) -> np.ndarray:
    """The footprint of a rigid, untilted piece moved from pose ``start`` to ``end``."""
    d = np.asarray(fp, dtype=np.float64) - np.array(start[:2])
    a = math.radians(end[2] - start[2])
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return d @ R.T + np.array(end[:2])


class SimSource(FrameSource):
    """Rendered frames of a simulated table where shots are played (see the module docstring)."""

    kind = "sim"
    OPTIONS: ClassVar[dict[str, Callable[[Any], Any]]] = {
        "size": opt_size, "fps": positive(opt_float), "shots": positive(opt_int, allow_zero=True),
        "lead": positive(opt_int, allow_zero=True), "hand_frames": positive(opt_int, allow_zero=True),
        "move_frames": positive(opt_int), "settle_frames": positive(opt_int),
        "count": positive(opt_int), "realtime": opt_bool, "supersample": positive(opt_int),
        "cache": positive(opt_int)}

    def __init__(self, spec: str, game: str, seed: int = 0, empty: bool = False,
                 size: tuple[int, int] | None = None, fps: float | None = None, shots: int | None = None,
                 lead: int | None = None, hand_frames: int | None = None, move_frames: int | None = None,
                 settle_frames: int | None = None, count: int | None = None, realtime: bool | None = None,
                 supersample: int | None = None, cache: int | None = None):
        from calibration.model import Layout
        from calibration.profile import BoardProfile
        from simulator.generate import SceneOptions, random_scene
        from simulator.truth import TruthJudge

        super().__init__(spec)
        if game not in GAMES:
            raise InputError(f"source '{spec}': the simulator has no game '{game}'", "games: " + ", ".join(GAMES))
        self.game = game
        self.seed = int(seed)
        self.empty = bool(empty)
        self._size = size or (640, 360)
        self.fps = float(fps) if fps else 10.0
        self.shots = 3 if shots is None else int(shots)
        self.lead = 10 if lead is None else int(lead)
        self.hand_frames = 6 if hand_frames is None else int(hand_frames)
        self.move_frames = 8 if move_frames is None else int(move_frames)
        self.settle_frames = 15 if settle_frames is None else int(settle_frames)
        self.count = 1 if count is None else int(count)
        if count is not None and not self.empty:
            raise InputError(f"source '{spec}': count= is for the empty table (sim:GAME:SEED:empty)",
                             "a shot stream's length is lead + shots x (hand_frames + move_frames + settle_frames)")
        self.realtime = bool(realtime)
        self.supersample = supersample
        self._cache_size = 8 if cache is None else max(1, int(cache))
        self._cache: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.renders = 0  # how many frames were actually rendered (the rest came from the cache)

        self.profile = BoardProfile.builtin(game)
        opt = SceneOptions(image_size=self._size)
        self.base_scene = random_scene(game, self.seed, opt, self.profile, with_pieces=not self.empty)
        self.base_scene.hands = []
        self.layout = Layout(self.profile, self.base_scene.placements)
        self.camera = self.base_scene.camera()
        self.judge = TruthJudge(self.layout)
        self._support_in = self.layout.support.buffer(-1.0)
        self._pit_discs = [Point(p.center).buffer(p.radius, quad_segs=16) for p in self.layout.pits()]
        # rest[k] = the pieces after shot k-1 (rest[0]: the initial layout)
        self._rest = [list(self.base_scene.pieces)]
        self._plans: list[Shot] = []
        self.scene = self.base_scene
        self.phase = "still"
        self.shot = -1
        self._t0 = time.monotonic()

    # ------------------------------------------------------------------------------ interface
    @property
    def size(self) -> tuple[int, int]:
        return self._size

    @property
    def is_live(self) -> bool:
        return self.realtime

    @property
    def length(self) -> int | None:
        if self.empty:
            return self.count
        if self.shots == 0:
            return None
        return self.lead + self.shots * self._per_shot

    @property
    def _per_shot(self) -> int:
        return self.hand_frames + self.move_frames + self.settle_frames

    def _read(self) -> tuple[np.ndarray, float]:
        i = self._next_index
        length = self.length
        if length is not None and i >= length:
            raise EndOfStream(f"{self.spec}: end of the simulated stream after {length} frames")
        phase, shot, pieces, hand = self.state(i)
        t = i / self.fps
        if self.realtime:
            wait = self._t0 + t - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        scene = self.base_scene.model_copy(update={"pieces": pieces, "hands": [hand] if hand is not None else []})
        img = self._render(scene, pieces, hand)
        self.scene, self.phase, self.shot = scene, phase, shot
        return img.copy(), t

    def _close(self) -> None:
        self._cache.clear()

    # ------------------------------------------------------------------------------ the stream
    def phase_of(self, index: int) -> str:
        """``still``, ``hand``, ``move`` or ``settled`` for frame ``index`` (no rendering)."""
        return self.state(index)[0]

    def state(self, index: int):
        """(phase, shot, pieces, hand or None) of frame ``index``, computed without rendering."""
        from simulator.scene import Hand

        if self.empty or index < self.lead:
            return "still", -1, self._rest[0], None
        j = index - self.lead
        k, r = divmod(j, self._per_shot)
        self._plan_until(k)
        plan = self._plans[k]
        before, after = self._rest[k], self._rest[k + 1]

        def hand_at(tip_xy) -> Hand:
            tip = np.asarray(tip_xy)
            wrist = tip - np.asarray(plan.arm_dir) * plan.arm_len_mm
            return Hand(wrist_mm=(round(float(wrist[0]), 3), round(float(wrist[1]), 3)),
                        fingertip_mm=(round(float(tip[0]), 3), round(float(tip[1]), 3)),
                        width_mm=plan.hand_width_mm, height_mm=plan.hand_height_mm)

        tip_out, tip_in = np.asarray(plan.tip_out), np.asarray(plan.tip_in)
        if r < self.hand_frames:
            t = _ease_in_out((r + 1) / self.hand_frames)
            return "hand", k, before, hand_at(tip_out + (tip_in - tip_out) * t)
        r -= self.hand_frames
        if r < self.move_frames:
            s = (r + 1) / self.move_frames
            hand = hand_at(tip_in + (tip_out - tip_in) * s) if (r < self.move_frames - 1 and self.hand_frames) else None
            if plan.piece is None:
                return "move", k, before, hand
            if r == self.move_frames - 1:
                return "move", k, after, hand
            e = _ease_out(s)
            x0, y0, h0 = plan.start
            x1, y1, h1 = plan.end
            pose = (x0 + (x1 - x0) * e, y0 + (y1 - y0) * e, h0 + (h1 - h0) * e)
            pieces = list(before)
            pieces[plan.piece] = self._posed(before[plan.piece], pose)
            return "move", k, pieces, hand
        return "settled", k, after, None

    def _posed(self, p, pose: Pose):
        start = (p.center_mm[0], p.center_mm[1], p.heading_deg)
        fp = _moved_footprint(np.asarray(p.footprint_mm), start, pose)
        return p.model_copy(update={
            "center_mm": (round(pose[0], 4), round(pose[1], 4)), "heading_deg": round(pose[2] % 360.0, 3),
            "footprint_mm": [(round(float(x), 4), round(float(y), 4)) for x, y in fp]})

    # ------------------------------------------------------------------------------ planning
    def _plan_until(self, k: int) -> None:
        while len(self._plans) <= k:
            n = len(self._plans)
            plan, after = self._plan_shot(n, self._rest[n])
            self._plans.append(plan)
            self._rest.append(after)

    def _movable(self, i: int, pieces) -> bool:
        p = pieces[i]
        if p.rests_on != "board" or p.base_mm != 0.0 or p.tilt_deg != 0.0 or p.outbound:
            return False
        poly = Polygon(p.footprint_mm)
        return not any(q.rests_on == "piece" and Polygon(q.footprint_mm).intersects(poly)
                       for j, q in enumerate(pieces) if j != i)

    def _plan_shot(self, k: int, pieces):
        from simulator.generate import random_hand

        rng = np.random.default_rng([self.seed, k, 0x5107])
        hand = random_hand(self.layout, rng)
        arm = np.asarray(hand.fingertip_mm) - np.asarray(hand.wrist_mm)
        arm_len = float(np.linalg.norm(arm))
        u = arm / arm_len
        others_cache = {}
        chosen = None
        candidates = [i for i in range(len(pieces)) if self._movable(i, pieces)]
        for i in (rng.permutation(candidates) if candidates else []):
            i = int(i)
            p = pieces[i]
            others = others_cache.setdefault(i, [Polygon(q.footprint_mm) for j, q in enumerate(pieces) if j != i])
            taken = {q.space for j, q in enumerate(pieces) if j != i and q.space}
            start = (p.center_mm[0], p.center_mm[1], p.heading_deg)
            poly0 = Polygon(p.footprint_mm)
            for _ in range(30):
                d = _rot(u, float(rng.normal(0.0, 20.0)))
                dist = float(rng.uniform(40.0, 140.0))
                c1 = np.asarray(start[:2]) + d * dist
                end = (float(c1[0]), float(c1[1]), float(start[2] + rng.normal(0.0, 25.0)))
                poly1 = Polygon(_moved_footprint(np.asarray(p.footprint_mm), start, end))
                if not self._support_in.covers(poly1):
                    continue
                path = unary_union([poly0, poly1]).convex_hull
                if any(shapely.distance(path, g) < 2.0 for g in others):
                    continue
                if any(shapely.distance(path, g) < 1.5 for g in self._pit_discs):
                    continue
                if self.game == "galaktico":
                    space = self.judge.space_of(c1)[0]
                    if space is None or space in taken:
                        continue
                chosen = (i, start, end, d)
                break
            if chosen:
                break
        if chosen is None:  # nothing can move: the hand alone, towards the middle of the boards
            target = np.asarray(self.layout.support.representative_point().coords[0])
            tip_in = target
            plan_piece, start, end = None, None, None
            after = list(pieces)
        else:
            i, start, end, d = chosen
            p = pieces[i]
            r = float(np.max(np.linalg.norm(np.asarray(p.footprint_mm) - np.asarray(start[:2]), axis=1)))
            tip_in = np.asarray(start[:2]) - d * (r + 10.0)
            plan_piece = i
            after = list(pieces)
            after[i] = self._rejudge(self._posed(p, end))
        tip_out = self._out_of_view(tip_in, u, hand.height_mm)
        plan = Shot(piece=plan_piece, start=start, end=end, hand_width_mm=hand.width_mm,
                    hand_height_mm=hand.height_mm, arm_dir=(float(u[0]), float(u[1])), arm_len_mm=arm_len,
                    tip_out=(float(tip_out[0]), float(tip_out[1])), tip_in=(float(tip_in[0]), float(tip_in[1])))
        return plan, after

    def _out_of_view(self, tip_in: np.ndarray, u: np.ndarray, height_mm: float) -> np.ndarray:
        """Where the fingertip starts (and ends): back along the arm from ``tip_in`` until it is
        just out of the picture, so the hand is in view from the first hand frame on."""
        cam = self.camera
        w, h = self._size
        steps = np.arange(0.0, 2000.0, 5.0)
        pts = tip_in[None, :] - steps[:, None] * u[None, :]
        px = cam.project(np.column_stack([pts, np.full(len(pts), -height_mm)]))
        out = (px[:, 0] < 0) | (px[:, 0] > w - 1) | (px[:, 1] < 0) | (px[:, 1] > h - 1) | ~np.isfinite(px).all(axis=1)
        first = int(np.argmax(out)) if out.any() else len(steps) - 1
        return pts[first] - u * 10.0

    def _rejudge(self, p):
        """Verdicts of a piece come to rest flat on the boards (as simulator.generate computes them)."""
        xy = np.asarray(p.center_mm)
        poly = Polygon(p.footprint_mm)
        _, dist = self.judge.over_support(xy)
        upd: dict = {"rests_on": "board", "outbound": False}
        if self.game == "galaktico":
            space, m = self.judge.space_of(xy)
            upd.update(space=space, margin_mm=round(float(m), 4))
        elif self.game == "pitrush":
            gaps = [-ov for _, ov in self.judge.pit_near(poly)]
            upd.update(pit=None, state="surface", margin_mm=round(float(min(gaps + [dist])), 4))
        else:
            zones, zm = self.judge.zones_touched(poly)
            upd.update(zones=zones, margin_mm=round(float(min(zm, dist)), 4))
            if self.game == "pitchfleet":
                upd["state"] = "surface"
        return p.model_copy(update=upd)

    # ------------------------------------------------------------------------------ rendering
    def _render(self, scene, pieces, hand) -> np.ndarray:
        from simulator.render import render_scene

        key = (tuple((p.center_mm, p.heading_deg) for p in pieces),
               None if hand is None else (hand.wrist_mm, hand.fingertip_mm))
        img = self._cache.get(key)
        if img is not None:
            self._cache.move_to_end(key)
            return img
        img = render_scene(scene, self.profile, supersample=self.supersample).image
        self.renders += 1
        self._cache[key] = img
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return img

