"""Random, deterministic scenes for each game, with pieces near every kind of decision boundary.

``random_scene(game, seed)`` returns a :class:`~simulator.scene.SceneFile` whose pieces carry
their exact verdicts; ``empty_scene`` the same table with no pieces (the calibration photo).
Everything is drawn from ``numpy.random.default_rng(seed)``: the same seed gives the same scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from calibration.camera import CameraModel, Intrinsics, IntrinsicsPart, Pose, PosePart
from calibration.model import Layout, TilePlacement
from calibration.profile import BoardProfile

from .scene import TABLE_STYLES, Hand, Lighting, PieceTruth, SceneFile, Sensor
from .shapes import footprint_of, piece_prisms
from .truth import TruthJudge


@dataclass
class SceneOptions:
    """Ranges the random scenes are drawn from (the benchmark's "realistic settings")."""

    image_size: tuple[int, int] = (1920, 1080)
    height_mm: tuple[float, float] = (600.0, 1000.0)
    tilt_deg: tuple[float, float] = (0.0, 20.0)
    k1: tuple[float, float] = (-0.2, 0.05)
    k2: tuple[float, float] = (-0.02, 0.04)
    tangential: float = 0.0015
    roll_deg: float = 6.0
    fill: tuple[float, float] = (0.80, 0.93)  # fraction of the frame the boards may fill
    noise: tuple[float, float] = (1.0, 4.0)
    blur_px: tuple[float, float] = (0.35, 1.0)
    jpeg: tuple[int, int] = (75, 95)
    table_styles: tuple[str, ...] = TABLE_STYLES
    pieces: tuple[int, int] | None = None  # override the per-game piece count range
    hands: float = 0.0  # probability of a hand over the table
    near_boundary: float = 0.6  # fraction of pieces placed close to a decision boundary


# ------------------------------------------------------------------------------------ placements

def random_placements(profile: BoardProfile, rng: np.random.Generator) -> list[TilePlacement]:
    arr = profile.data.arrangement
    if arr.kind == "free" and arr.grid is not None:
        cols, rows = arr.grid
        ids = [t.id for t in profile.tiles]
        order = rng.permutation(len(ids))
        out = []
        w = max(t.size_mm[0] for t in profile.tiles)
        h = max(t.size_mm[1] for t in profile.tiles)
        for k, idx in enumerate(order[: cols * rows]):
            tile = profile.tiles[idx]
            r, c = divmod(k, cols)
            gap = rng.uniform(0.5, arr.gap_mm * 1.5)
            quarter = int(rng.integers(4))
            jitter = rng.normal(0, 0.8)
            rot = quarter * 90.0 + jitter
            cx = c * (w + gap) + w / 2 + rng.normal(0, 1.0)
            cy = r * (h + gap) + h / 2 + rng.normal(0, 1.0)
            # rotate about the tile centre: offset = centre - R @ (size/2)
            R = _rot(rot)
            off = np.array([cx, cy]) - R @ (np.array(tile.size_mm) / 2)
            out.append(TilePlacement(tile=tile.id, rotation_deg=round(rot, 4), offset_mm=(round(off[0], 4), round(off[1], 4))))
        return out
    # fixed arrangement: nominal placement, turned as a whole, with small per-tile shifts
    theta = rng.uniform(0, 360) if profile.game in ("pitrush", "galaktico") else rng.normal(0, 3)
    R = _rot(theta)
    out = []
    for p in arr.nominal:
        jit = rng.normal(0, 0.4, 2) if len(arr.nominal) > 1 else np.zeros(2)
        off = R @ np.array([p.x, p.y]) + jit
        out.append(TilePlacement(tile=p.tile, rotation_deg=round((p.rotation_deg + theta) % 360, 4),
                                 offset_mm=(round(off[0], 4), round(off[1], 4))))
    return out


def _rot(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


# ---------------------------------------------------------------------------------------- camera

def random_camera(layout: Layout, rng: np.random.Generator, opt: SceneOptions) -> CameraModel:
    """A camera 600-1000 mm above the boards, tilted up to 20 degrees, framing them all."""
    support = layout.support
    c = np.asarray(support.centroid.coords[0])
    H = rng.uniform(*opt.height_mm)
    tilt = rng.uniform(*opt.tilt_deg)
    az = rng.uniform(0, 2 * np.pi)
    d = H * math.tan(math.radians(tilt))
    eye = np.array([c[0] + d * math.cos(az), c[1] + d * math.sin(az), -H])
    target = np.array([c[0], c[1], 0.0])
    roll = math.radians(rng.normal(0, opt.roll_deg / 2))
    up = np.array([math.sin(roll), -math.cos(roll), 0.0])
    w, h = opt.image_size
    # the boards plus 25 mm of table fill the chosen fraction of the frame, centred
    ring = np.asarray(support.convex_hull.buffer(25.0, quad_segs=4).exterior.coords)
    pts = np.column_stack([ring, np.zeros(len(ring))])
    fill = rng.uniform(*opt.fill)
    cx = (w - 1) / 2 + rng.normal(0, w * 0.006)
    cy = (h - 1) / 2 + rng.normal(0, h * 0.006)
    aspect = 1 + rng.normal(0, 0.0015)
    dist = np.array([rng.uniform(*opt.k1), rng.uniform(*opt.k2), *rng.uniform(-opt.tangential, opt.tangential, 2), 0.0])
    f = 0.8 * w
    cam = None
    for _ in range(8):
        pose = Pose.look_at(eye, target, up_hint=up)
        K = np.array([[f, 0, cx], [0, f * aspect, cy], [0, 0, 1.0]])
        cam = CameraModel(Intrinsics((w, h), K, dist), pose)
        px = cam.project(pts)
        lo, hi = px.min(axis=0), px.max(axis=0)
        f *= min(fill * w / (hi[0] - lo[0]), fill * h / (hi[1] - lo[1]))
        # slide the camera (tilt kept) so the boards' image is centred
        aim = cam.backproject(np.array([(lo + hi) / 2]))[0]
        shift = np.array([aim[0] - target[0], aim[1] - target[1], 0.0])
        eye, target = eye + shift, target + shift
    return cam


def random_lighting(layout: Layout, rng: np.random.Generator) -> Lighting:
    c = np.asarray(layout.support.centroid.coords[0])
    lamp = (c[0] + rng.uniform(-700, 700), c[1] + rng.uniform(-700, 700), -rng.uniform(1100, 2400))
    return Lighting(lamp_mm=tuple(round(v, 2) for v in lamp), lamp_power=round(rng.uniform(0.8, 1.2), 3),
                    ambient=round(rng.uniform(0.3, 0.6), 3), color_temp_k=round(rng.uniform(2900, 6500), 0),
                    glare=round(rng.uniform(0.0, 0.45), 3),
                    gradient=(round(rng.uniform(-0.25, 0.25), 3), round(rng.uniform(-0.25, 0.25), 3)))


def random_sensor(rng: np.random.Generator, opt: SceneOptions) -> Sensor:
    return Sensor(exposure=round(rng.uniform(0.85, 1.2), 3), vignetting=round(rng.uniform(0.1, 0.4), 3),
                  blur_px=round(rng.uniform(*opt.blur_px), 3), noise=round(rng.uniform(*opt.noise), 3),
                  shot_noise=round(rng.uniform(0.3, 1.0), 3), jpeg_quality=int(rng.integers(opt.jpeg[0], opt.jpeg[1] + 1)))


# ---------------------------------------------------------------------------------------- pieces

@dataclass
class _Placer:
    profile: BoardProfile
    layout: Layout
    judge: TruthJudge
    rng: np.random.Generator
    opt: SceneOptions
    pieces: list[PieceTruth] = field(default_factory=list)
    shapes: list[Polygon] = field(default_factory=list)

    @property
    def table_depth(self) -> float:
        return self.layout.table_depth_mm

    def footprint(self, kind, color, xy, heading, base, upright=False, tilt=0.0, tilt_axis=0.0) -> np.ndarray:
        spec = self.profile.piece(kind, color)
        return footprint_of(piece_prisms(spec, upright), xy, heading, base, tilt, tilt_axis)

    def free(self, fp: Polygon, clearance: float = 0.8, ignore: set[int] = frozenset()) -> bool:
        return all(shapely.distance(fp, g) >= clearance for i, g in enumerate(self.shapes) if i not in ignore)

    def add(self, **kw) -> PieceTruth:
        kw.setdefault("seed", int(self.rng.integers(1 << 30)))
        pt = PieceTruth(id=len(self.pieces), **kw)
        self.pieces.append(pt)
        self.shapes.append(Polygon(pt.footprint_mm))
        return pt

    def random_point_on_support(self, inset: float = 0.0) -> np.ndarray:
        region = self.layout.support.buffer(-inset) if inset else self.layout.support
        x0, y0, x1, y1 = region.bounds
        for _ in range(200):
            p = np.array([self.rng.uniform(x0, x1), self.rng.uniform(y0, y1)])
            if region.contains(Point(p)):
                return p
        return np.asarray(region.representative_point().coords[0])

    def random_point_near(self, geom, spread: float) -> np.ndarray:
        """A point within ``spread`` mm of the boundary of ``geom``."""
        b = geom.boundary
        p = np.asarray(b.interpolate(self.rng.uniform(0, b.length)).coords[0])
        return p + self.rng.normal(0, spread / 2, 2)


NO_BOUNDARY_MM = 999.0  # margin of a verdict no small shift can flip (JSON has no infinity)


def _fp_list(fp: np.ndarray) -> list[tuple[float, float]]:
    return [(round(float(x), 4), round(float(y), 4)) for x, y in fp]


def _pitchfleet_pieces(pl: _Placer, n_range: tuple[int, int]) -> None:
    rng = pl.rng
    T = pl.table_depth
    n_ships = int(rng.integers(n_range[0], n_range[1] + 1))
    ships = [("red", i) for i in range(3)] + [("blue", i) for i in range(3)]
    rng.shuffle(ships)
    n_beams = int(rng.integers(0, 4))
    todo = [("starship", c) for c, _ in ships[:n_ships]] + [("beam", "silver")] * n_beams
    support = pl.layout.support
    for kind, color in todo:
        for _attempt in range(60):
            mode = rng.random()
            upright = kind == "beam" and rng.random() < 0.3
            heading = rng.uniform(0, 360)
            spec = pl.profile.piece(kind, color)
            h = (float(np.ptp(spec.footprint()[:, 0])) if upright else spec.height_mm)
            if mode < 0.12:  # off the boards, on the table, maybe touching the edge
                xy = pl.random_point_near(support, 30.0)
                base = -T
                fp = pl.footprint(kind, color, xy, heading, base, upright)
                poly = Polygon(fp)
                if shapely.distance(poly, support) < 0.3:
                    continue
                rests = "table"
            elif mode < 0.25:  # overhanging a board edge (centre still over the boards)
                xy = pl.random_point_near(support, 24.0)
                inside, dist = pl.judge.over_support(xy)
                if not inside:
                    continue
                base = 0.0
                fp = pl.footprint(kind, color, xy, heading, base, upright)
                poly = Polygon(fp)
                rests = "board"
            elif mode < 0.25 + 0.6 * pl.opt.near_boundary:  # near a zone's dotted line
                zid, zg = pl.judge.zones[int(rng.integers(len(pl.judge.zones)))]
                xy = pl.random_point_near(zg, 34.0)
                if not pl.judge.over_support(xy)[0]:
                    continue
                base = 0.0
                fp = pl.footprint(kind, color, xy, heading, base, upright)
                poly = Polygon(fp)
                rests = "board"
            else:
                xy = pl.random_point_on_support(5.0)
                base = 0.0
                fp = pl.footprint(kind, color, xy, heading, base, upright)
                poly = Polygon(fp)
                rests = "board"
            if not pl.free(poly):
                continue
            inside, dist = pl.judge.over_support(xy)
            outbound = rests != "board"
            margin = dist
            zones, zm = ([], np.inf) if outbound else pl.judge.zones_touched(poly)
            pl.add(kind=kind, color=color, center_mm=(round(xy[0], 4), round(xy[1], 4)), heading_deg=round(heading, 3),
                   base_mm=base, height_mm=h, upright=upright, footprint_mm=_fp_list(fp), rests_on=rests,
                   outbound=outbound, zones=zones, state="surface" if not outbound else "off_board",
                   margin_mm=round(float(min(margin, zm, NO_BOUNDARY_MM)), 4))
            break
    # occasionally a ship stacked on another piece (counts as outbound, Pitch Fleet Q&A)
    if pl.pieces and rng.random() < 0.15:
        lower = pl.pieces[int(rng.integers(len(pl.pieces)))]
        if lower.rests_on == "board" and not lower.upright:
            used = {(p.kind, p.color) for p in pl.pieces if p.kind == "starship"}
            counts = {c: sum(1 for p in pl.pieces if p.kind == "starship" and p.color == c) for c in ("red", "blue")}
            color = "red" if counts["red"] < 3 else ("blue" if counts["blue"] < 3 else None)
            if color is not None:
                xy = np.asarray(lower.center_mm) + rng.normal(0, 3.0, 2)
                heading = rng.uniform(0, 360)
                base = lower.base_mm + lower.height_mm
                fp = pl.footprint("starship", color, xy, heading, base)
                poly = Polygon(fp)
                if pl.free(poly, ignore={lower.id}):
                    spec = pl.profile.piece("starship", color)
                    pl.add(kind="starship", color=color, center_mm=(round(xy[0], 4), round(xy[1], 4)),
                           heading_deg=round(heading, 3), base_mm=base, height_mm=spec.height_mm,
                           footprint_mm=_fp_list(fp), rests_on="piece", outbound=True, zones=[], state="on_piece",
                           margin_mm=NO_BOUNDARY_MM)
                    _ = used


def _pitrush_pieces(pl: _Placer, n_range: tuple[int, int]) -> None:
    from calibration.nominal import DISC_COUNTS

    rng = pl.rng
    T = pl.table_depth
    spec0 = pl.profile.data.pieces[0]
    r_d = spec0.diameter_mm / 2
    h_d = spec0.height_mm
    pits = pl.layout.pits()
    n = int(rng.integers(n_range[0], n_range[1] + 1))
    left = dict(DISC_COUNTS)
    colors = [c for c in left]
    filled: dict[str, int] = {}  # pit id -> index of the disc in it (top of stack)
    hung: set[str] = set()
    pit_by_id = {p.id: p for p in pits}

    def pick_color():
        avail = [c for c in colors if left[c] > 0]
        c = avail[int(rng.integers(len(avail)))]
        left[c] -= 1
        return c

    for _ in range(n):
        if not any(left.values()):
            break
        for _attempt in range(40):
            mode = rng.random()
            color = None
            heading = rng.uniform(0, 360)
            empty = [p for p in pits if p.id not in filled and p.id not in hung]
            if mode < 0.30 and empty:  # in a pit
                pit = empty[int(rng.integers(len(empty)))]
                slack = pit.radius - r_d
                a = rng.uniform(0, 2 * np.pi)
                rr = slack * math.sqrt(rng.uniform(0, 1))
                xy = np.asarray(pit.center) + rr * np.array([math.cos(a), math.sin(a)])
                base = -pit.depth_mm
                state, pit_id, rests = "in_pit", pit.id, "pit"
                fp = pl.footprint("disc", "red", xy, heading, base)
                poly = Polygon(fp)
                margin = 5.0 + (slack - rr)  # an in-pit disc is far from any flip
                ignore = set()
            elif mode < 0.45 and filled:  # stacked on a disc in a pit, covering part of the pit
                pid = list(filled)[int(rng.integers(len(filled)))]
                lower = pl.pieces[filled[pid]]
                pit = pit_by_id[pid]
                off = rng.uniform(0, 11.0)
                a = rng.uniform(0, 2 * np.pi)
                xy = np.asarray(lower.center_mm) + off * np.array([math.cos(a), math.sin(a)])
                base = lower.base_mm + h_d
                fp = pl.footprint("disc", "red", xy, heading, base)
                poly = Polygon(fp)
                d = float(np.linalg.norm(xy - np.asarray(pit.center)))
                margin = (r_d + pit.radius) - d  # covering part of the pit
                state, pit_id, rests = "stacked", pid, "piece"
                ignore = {i for i, q in enumerate(pl.pieces) if q.pit == pid}
            elif mode < 0.58 and empty:  # hanging on the edge of an empty pit, flat on the rim
                pit = empty[int(rng.integers(len(empty)))]
                a = rng.uniform(0, 2 * np.pi)
                overlap = rng.uniform(1.5, r_d - 1.0)
                d = pit.radius + r_d - overlap
                if d < pit.radius + 0.5:  # the centre must stay over the board, else it drops in
                    continue
                xy = np.asarray(pit.center) + d * np.array([math.cos(a), math.sin(a)])
                base = 0.0
                fp = pl.footprint("disc", "red", xy, heading, base)
                poly = Polygon(fp)
                margin = overlap
                state, pit_id, rests = "hanging", pit.id, "rim"
                ignore = set()
            elif mode < 0.68:  # off the board, on the table
                xy = pl.random_point_near(pl.layout.support, 40.0)
                base = -T
                fp = pl.footprint("disc", "red", xy, heading, base)
                poly = Polygon(fp)
                if shapely.distance(poly, pl.layout.support) < 0.3:
                    continue
                margin = float(shapely.distance(Point(xy), pl.layout.support))
                state, pit_id, rests = "off_board", None, "table"
                ignore = set()
            else:  # on the surface, often close to a pit or the board edge
                if rng.random() < pl.opt.near_boundary and pits:
                    pit = pits[int(rng.integers(len(pits)))]
                    a = rng.uniform(0, 2 * np.pi)
                    d = pit.radius + r_d + rng.uniform(0.2, 8.0)
                    xy = np.asarray(pit.center) + d * np.array([math.cos(a), math.sin(a)])
                else:
                    xy = pl.random_point_on_support(r_d * 0.3)
                base = 0.0
                fp = pl.footprint("disc", "red", xy, heading, base)
                poly = Polygon(fp)
                if not pl.judge.over_support(xy)[0]:
                    continue
                gaps = [-(ov) for _, ov in pl.judge.pit_near(poly)]
                if gaps and min(gaps) < 0.2:
                    continue
                margin = min(gaps) if gaps else np.inf
                margin = min(margin, pl.judge.over_support(xy)[1])
                state, pit_id, rests = "surface", None, "board"
                ignore = set()
            if not pl.free(poly, ignore=ignore):
                continue
            color = pick_color()
            pt = pl.add(kind="disc", color=color, center_mm=(round(xy[0], 4), round(xy[1], 4)),
                        heading_deg=round(heading, 3), base_mm=round(base, 4), height_mm=h_d,
                        footprint_mm=_fp_list(fp), rests_on=rests, outbound=state == "off_board", pit=pit_id,
                        state=state, margin_mm=round(float(min(margin, NO_BOUNDARY_MM)), 4))
            if state in ("in_pit", "stacked"):
                filled[pit_id] = pt.id
            if state == "hanging":
                hung.add(pit_id)
            break


def _galaktico_pieces(pl: _Placer, n_range: tuple[int, int]) -> None:
    from calibration.nominal import GK_COLORS, GK_FIGURES

    rng = pl.rng
    spaces = pl.judge.spaces
    n = int(rng.integers(n_range[0], n_range[1] + 1))
    used_spaces: set[str] = set()
    kinds = [f"figure:{k}" for k in GK_FIGURES] + ["meteor"]
    for _ in range(n):
        for _attempt in range(40):
            kind = kinds[int(rng.integers(len(kinds)))]
            color = "grey" if kind == "meteor" else GK_COLORS[int(rng.integers(3))]
            sid, sg = spaces[int(rng.integers(len(spaces)))]
            if sid in used_spaces:
                continue
            c = np.asarray(sg.centroid.coords[0])
            spread = 14.0 if rng.random() < pl.opt.near_boundary else 4.0
            xy = c + rng.normal(0, spread / 2, 2)
            heading = rng.uniform(0, 360)
            fp = pl.footprint(kind, color, xy, heading, 0.0)
            poly = Polygon(fp)
            if not pl.free(poly, clearance=0.5):
                continue
            space, m = pl.judge.space_of(xy)
            if space is None:
                continue
            used_spaces.add(space)
            spec = pl.profile.piece(kind, color)
            pl.add(kind=kind, color=color, center_mm=(round(xy[0], 4), round(xy[1], 4)), heading_deg=round(heading, 3),
                   base_mm=0.0, height_mm=spec.height_mm, footprint_mm=_fp_list(fp), rests_on="board",
                   outbound=False, space=space, state="surface", margin_mm=round(m, 4))
            break


def _asf_pieces(pl: _Placer, n_range: tuple[int, int]) -> None:
    rng = pl.rng
    T = pl.table_depth
    n = int(rng.integers(n_range[0], n_range[1] + 1))
    zones = pl.judge.zones
    for _ in range(n):
        for _attempt in range(40):
            face = "face_up" if rng.random() < 0.6 else "face_down"
            r = rng.random()
            if r < 0.55:
                zid, zg = zones[int(rng.integers(len(zones)))]
                xy = np.asarray(zg.centroid.coords[0]) + rng.normal(0, 6.0, 2)
                heading = float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 3.0))
            else:
                xy = pl.random_point_on_support(30.0) if r < 0.9 else pl.random_point_near(pl.layout.support, 80.0)
                heading = rng.uniform(0, 360)
            on_board = pl.judge.over_support(xy)[0]
            base = 0.0 if on_board else -T
            fp = pl.footprint("card", face, xy, heading, base)
            poly = Polygon(fp)
            if not pl.free(poly, clearance=1.0):
                continue
            if not on_board and shapely.distance(poly, pl.layout.support) < 0.3:
                continue
            zones_t, zm = pl.judge.zones_touched(poly) if on_board else ([], np.inf)
            inside, dist = pl.judge.over_support(xy)
            pl.add(kind="card", color=face, center_mm=(round(xy[0], 4), round(xy[1], 4)), heading_deg=round(heading, 3),
                   base_mm=base, height_mm=0.35, footprint_mm=_fp_list(fp), rests_on="board" if on_board else "table",
                   outbound=not on_board, zones=zones_t, state=face,
                   margin_mm=round(float(min(zm, dist, NO_BOUNDARY_MM)), 4))
            break


_PIECES = {"pitchfleet": (_pitchfleet_pieces, (2, 6)), "pitrush": (_pitrush_pieces, (8, 26)),
           "galaktico": (_galaktico_pieces, (6, 18)), "asfccg": (_asf_pieces, (4, 12))}


def random_hand(layout: Layout, rng: np.random.Generator) -> Hand:
    x0, y0, x1, y1 = layout.support.bounds
    side = int(rng.integers(4))
    tip = np.array([rng.uniform(x0 + 50, x1 - 50), rng.uniform(y0 + 50, y1 - 50)])
    wrist = {0: (tip[0] + rng.uniform(-80, 80), y1 + 60), 1: (tip[0] + rng.uniform(-80, 80), y0 - 60),
             2: (x0 - 60, tip[1] + rng.uniform(-80, 80)), 3: (x1 + 60, tip[1] + rng.uniform(-80, 80))}[side]
    return Hand(wrist_mm=tuple(map(float, wrist)), fingertip_mm=tuple(map(float, tip)),
                width_mm=float(rng.uniform(70, 95)), height_mm=float(rng.uniform(40, 90)))


def random_scene(game: str, seed: int, opt: SceneOptions | None = None, profile: BoardProfile | None = None,
                 with_pieces: bool = True, pieces_seed: int | None = None) -> SceneFile:
    """A random scene of ``game`` (deterministic for ``seed``) with exact ground truth.

    ``seed`` draws the table (boards, camera, light); the pieces follow from the same stream, or
    from ``pieces_seed`` when given, so several layouts of pieces can share one calibrated table.
    """
    opt = opt or SceneOptions()
    profile = profile or BoardProfile.builtin(game)
    rng = np.random.default_rng(seed)
    placements = random_placements(profile, rng)
    layout = Layout(profile, placements)
    cam = random_camera(layout, rng, opt)
    lighting = random_lighting(layout, rng)
    sensor = random_sensor(rng, opt)
    style = opt.table_styles[int(rng.integers(len(opt.table_styles)))]
    scene = SceneFile(game=game, profile=f"builtin:{game}", seed=seed, intrinsics=IntrinsicsPart.of(cam.intrinsics),
                      pose=PosePart.of(cam.pose), placements=placements, table_style=style, lighting=lighting,
                      sensor=sensor)
    if with_pieces:
        fn, n_range = _PIECES[game]
        if pieces_seed is not None:
            rng = np.random.default_rng([seed, pieces_seed])
        # another photo of the same table: its own sensor noise
        scene.shot = 1 if pieces_seed is None else int(pieces_seed) + 1
        pl = _Placer(profile, layout, TruthJudge(layout), rng, opt)
        fn(pl, opt.pieces or n_range)
        scene.pieces = pl.pieces
        if opt.hands and rng.random() < opt.hands:
            scene.hands = [random_hand(layout, rng)]
    return scene


def empty_scene(game: str, seed: int, opt: SceneOptions | None = None, profile: BoardProfile | None = None) -> SceneFile:
    """The same table as ``random_scene(game, seed)`` with no pieces: a calibration photo."""
    return random_scene(game, seed, opt, profile, with_pieces=False)
