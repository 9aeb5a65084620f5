"""The vision stage's entry point: a photo in, the judged pieces out.

``Detector(calibration, profile, reference)`` prepares everything that depends only on the table
(the empty-table reference, the piece models, colour names, pits); ``detect(frame)`` then:

1. finds what changed against the empty table (:mod:`vision.foreground`), shadows excluded — but
   for pieces the colour of a shadow: with cards, a darkening wider than a shadow can be (a dark
   card back); anywhere, a shadow-like change that hides the board's print or brings a texture of
   its own (a grey rock on a grey board);
2. takes over, from the previous frame's result if given, the pieces of every region of change
   that is where it was and looks as it did (after a shot only what the shot moved is posed);
3. poses piece models on each other region's outline (:mod:`vision.fit`): the kinds (and counts)
   its size allows, named by colour (white-balanced with the gains learned at calibration); cards
   as many as the region holds, a face-down one aligned to the profile's picture of its back;
   a reading with a poorly posed piece is tried again with gaps of ``join_gap_mm`` closed (a
   piece across a line of its own colour); hands (large regions entering from the edge of the
   view) are ignored;
4. keeps one of a piece posed twice (from two regions), and, where pieces do not stack
   (``pieces_stack`` of the profile), one of two overlapping;
5. re-poses at the heights a piece can rest at — on a board, on the table (the board's thickness
   lower), in a pit, on a disc in a pit — the one the geometry allows: a disc over a pit is in it
   only within the pit's play of its centre, else it lies on a disc hidden there (reported unseen);
   of two discs over a pit, the one whose colour shows where they overlap lies on top;
6. judges the footprints (:mod:`vision.judge`).

Frames: image px in, table mm (board plane) out.
"""

from __future__ import annotations

from copy import copy
from dataclasses import dataclass, field, replace
from functools import cached_property

import cv2
import numpy as np
import shapely
from scipy.optimize import minimize

from calibration.model import Calibration, union
from calibration.profile import BoardProfile
from tableref.config import VisionConfig

from .colors import MAX_GREY_CHROMA, PROTOTYPES_RGB, ColorNamer, achromatic, apply_gains, textbook_lab
from .detections import Detections
from .fit import (
    MIN_OUTLINE_POINTS,
    Fit,
    explained,
    fast_pose,
    fit_layers,
    fit_many,
    fit_one,
    initial_pose,
    outline_points,
    ring_normals,
    split_points,
)
from .foreground import Background, ChangeMap, channel_max, components, fill_holes, median, smoothing_disc
from .judge import by_photo_edge, judge
from .judgement import Judgement
from .silhouette import PieceShape, main_axis, pose_points, silhouette_hulls, silhouette_mask

MIN_COLOUR_PX = 6  # a piece's colour is read from this many pixels at least (else from its whole region's)
MIN_ARC_POINTS = 6  # a disc of known radius is posed on an arc of its outline this many points long at least
# the reason a disc read in a pit from a single photo carries (see Detector._pit_states)
IN_PIT_OR_ON_HIDDEN = "or on a disc it hides there: one photo cannot tell, the live referee knows from the photos before"


@dataclass
class Candidate:
    fit: Fit
    color_conf: float
    state: str = "surface"
    pit: str | None = None
    pit_margin: float = np.inf  # how far the reading of where it rests is from flipping: a pit's
                                # (in it, on its disc, hanging, near its edge); 0 where one photo
                                # cannot tell (which of two alike lies on the other)
    upright: bool = False
    colour_dist: float = 0.0
    colour_lab: np.ndarray | None = None  # the colour its top shows (white-balanced CIE Lab)
    hidden: bool = False  # not seen: inferred (a disc under a stacked one)
    faint: bool = False   # found as a piece the colour of a shadow (Detector._shadow_coloured)
    note: str = ""        # what the reading rests on, where a person should know it (the verdict's reason)
    # the width (mm) of its widest part no other piece of its reading covers (inf: posed alone); its
    # being seen at all is decided by this against ``min_seen_mm``
    seen_mm: float = np.inf
    # a card's share of its core (its silhouette less a tenth of a card all round) that lies where
    # the photo changed (see Detector._covered); 1 for other pieces
    cover: float = 1.0
    # how much more the next kind's fit to its outline costs than its own's, where its kind was weighed
    # against the others by the photo's size (see Detector._sized_in_photo; inf: not weighed so)
    kind_gap: float = np.inf
    # the outline of the region of change it was posed on, shared by the pieces posed together on it
    # (image px, in order along it; kept where a region held more than one piece)
    region: np.ndarray | None = field(default=None, repr=False)


@dataclass
class _Region:
    """A region of change of a judged frame and the pieces posed on it, kept so that the next
    frame can take them over where that region has not changed (image px)."""

    bbox: tuple[int, int, int, int]
    cands: list[Candidate]
    reused: bool = False  # taken over from the frame before (unchanged), not posed again
    by_photo_colours: bool = False  # posed by the colours the photos taught (see Detector.detect)


@dataclass
class FrameResult:
    judgement: Judgement
    hand: bool = False
    blobs: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    reused: int = 0                # regions whose pieces were taken over from the previous frame
    _regions: list[_Region] = field(default_factory=list, repr=False)
    # refits, stacking orders and judgements of pieces (see Detector._carried and Detector._judged)
    _refits: dict = field(default_factory=dict, repr=False)
    _small: np.ndarray | None = field(default=None, repr=False)  # the frame at the change map's scale
    _by: int = field(default=0, repr=False)  # id() of the Detector that judged it
    _cands: list[Candidate] = field(default_factory=list, repr=False)  # the pieces, in the judgement's order
    _changes: ChangeMap | None = field(default=None, repr=False)  # the frame's change map
    # the colours its pieces show, by pose (see Detector._piece_colours)
    _shown: dict = field(default_factory=dict, repr=False)


def _quick_kind_taken(colour_cost: float, set_aside: list[float]) -> bool:
    """Whether a region's quick pose (of a kind whose colour costs ``colour_cost``) is taken: not
    where a kind set aside for its size (``set_aside``: their colour costs) has the nearer colour.
    The size of a quick pose is the outline's, shadow and glare and all: a pale yellow Galaktico
    scout whose outline a glare grew by 2 px (bench scene 7168) was taken quickly for the one kind
    whose size fitted, a grey meteor 16 further in colour; the photo's two such scouts then taught
    it a yellow grey that named them grey surely.  The full fits weigh both kinds' poses and
    colours."""
    return not any(c < colour_cost for c in set_aside)


def _fits_well(c: Candidate) -> bool:
    """A piece whose outline lies on the model's edge nearly all round."""
    return _fit_well(c.fit)


def _fit_well(f: Fit) -> bool:
    """A pose whose outline lies on the model's edge nearly all round."""
    return f.rms_px < 1.3 and f.inlier_frac > 0.92


def _region_colour(lab: np.ndarray) -> np.ndarray:
    """A region's colour (CIE Lab) from its pixels' (``lab``, (n, 3)): hue from its more saturated
    half, lightness from all of it (side walls in shade and pale highlights carry little hue)."""
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    sat = chroma >= median(chroma)
    return np.array([median(lab[:, 0]), median(lab[sat, 1]), median(lab[sat, 2])], np.float32)


def _colour_cost(dist: float) -> float:
    """What a piece's colour adds to its pose's cost: nothing within 15 of its name's colour (CIE
    Lab), then a unit of cost for every 20 further."""
    return max(0.0, dist - 15.0) / 20.0


def _weak(c: Candidate) -> bool:
    """A piece posed poorly: unsure of its colour, or its outline off the model."""
    return c.color_conf < 0.5 or c.fit.rms_px > 1.5 or c.faint


def _centroid_px(mask: np.ndarray) -> np.ndarray:
    """The centroid (x, y) of a mask's set pixels (px of the mask; it must have some)."""
    m = cv2.moments(mask.view(np.uint8) if mask.dtype == bool else mask, True)
    return np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]])


def _touching(mask: np.ndarray, seed: np.ndarray) -> np.ndarray:
    """The connected regions of ``mask`` (uint8, set where non-zero) that reach into ``seed``
    (bool, the same shape), as a uint8 0/1 mask."""
    n, lab = components(mask)[:2]
    keep = np.zeros(n, bool)
    keep[np.unique(lab[seed])] = True
    keep[0] = False
    return keep[lab].astype(np.uint8)


def _grown_box(frame: np.ndarray, box, g: int) -> tuple[int, int, int, int]:
    """A box (x0, y0, x1, y1, image px, x1 and y1 exclusive) grown by ``g`` px each way, clipped to
    the frame."""
    h, w = frame.shape[:2]
    return max(0, box[0] - g), max(0, box[1] - g), min(w, box[2] + g), min(h, box[3] + g)


def _overlap(a: shapely.Polygon, b: shapely.Polygon) -> float:
    """The area two footprints share, as a fraction of the smaller one's."""
    return a.intersection(b).area / max(min(a.area, b.area), 1e-9)


POSE_OVERLAP_FRAC = 0.3  # footprints overlapping by less (of the smaller one) may be a pose's error, or pieces that touch


def _overlapping(footprints: list[np.ndarray], frac: float = POSE_OVERLAP_FRAC) -> bool:
    """Whether two of the footprints (table mm) overlap by more than ``frac`` of the smaller one
    (less is a pose's error, or pieces that touch)."""
    polys = [shapely.Polygon(fp) for fp in footprints]
    return any(_overlap(polys[i], polys[k]) > frac for i in range(len(polys)) for k in range(i + 1, len(polys)))


def _reach_out(a: shapely.Polygon, b: shapely.Polygon) -> float:
    """How far (mm) footprint ``a`` reaches out of footprint ``b``: the largest distance from ``b``
    of a point of ``a``'s outline (0 when ``a`` lies within ``b``)."""
    pts = shapely.get_coordinates(shapely.segmentize(a.exterior, 0.5))
    return float(shapely.distance(b, shapely.points(pts)).max())


class Detector:
    """Finds and judges pieces in photos of one calibrated table."""

    def __init__(self, calibration: Calibration, profile: BoardProfile, reference_bgr: np.ndarray,
                 cfg: VisionConfig | None = None):
        self.cal = calibration
        self.profile = profile
        self.cfg = cfg or VisionConfig()
        self.cam = calibration.camera
        self.T = calibration.data.table_depth_mm
        app = calibration.data.appearance or {}
        self.gains = np.asarray(app.get("wb_gains", [1.0, 1.0, 1.0]), dtype=np.float32)
        self.shapes: dict[str, list[PieceShape]] = {}
        for spec in profile.data.pieces:
            self.shapes.setdefault(spec.color, []).append(PieceShape.from_spec(spec))
        self.cards = "card" in {s.kind for s in profile.data.pieces}
        board = np.zeros(reference_bgr.shape[:2], np.uint8)
        for poly in calibration.support.geoms if hasattr(calibration.support, "geoms") else [calibration.support]:
            ring = np.asarray(poly.exterior.coords)
            dense = shapely.get_coordinates(shapely.segmentize(shapely.linearrings(ring), 5.0))
            px = self.cam.project_plane(dense)
            cv2.fillPoly(board, [np.round(px).astype(np.int32)], 1)
        self.board_mask = board
        # a darkening wider than the pieces' shadows can be is something lying there; only with
        # cards: they cast next to no shadow, while a person's soft shadow over a table of tall
        # pieces is wide too (and, for lack of print of its own, left to the shadow test)
        tallest = max(s.height_mm for ss in self.shapes.values() for s in ss)
        shadow_mm = self.cfg.shadow_reach * tallest + self.cfg.shadow_soft_mm if self.cards else 0.0
        self.bg = Background(reference_bgr, scale=self._change_scale(), board_mask=board,
                             shadow_px=shadow_mm / self.mm_per_px, smooth_px=self.cfg.shadow_smooth_mm / self.mm_per_px,
                             textured_frac=self.cfg.shadow_textured_frac,
                             texture_contrast=self.cfg.shadow_texture_contrast,
                             plain_max_px=0.0 if self.cards else
                             self.cfg.plain_max_area * self._biggest_mm2 / self.mm_per_px ** 2,
                             plain_min_r_px=0.0 if self.cards else
                             0.5 * (self.cfg.shadow_reach * tallest + self.cfg.shadow_soft_mm) / self.mm_per_px,
                             # (where pieces may lie on one another, a dark part beside a piece may
                             # be a piece on or under it, posed from that piece's region)
                             by_pieces=not self.cards and not self.profile.data.pieces_stack)
        self.pits = calibration.data.pits
        self.pit_c = calibration.pit_centers
        self.pit_r = calibration.pit_radii
        self.card_back = self._card_back()
        self._refits_before: dict = {}  # refits at other heights (see _refit): the previous frame's
        self._refits_now: dict = {}     # ... and this frame's
        self._lay_before: list[Candidate] = []  # the pieces of the last settled frame (see _lay_there)
        self._hidden_before: list[Candidate] = []  # ... and those it inferred hidden
        self._first_look = True  # judged without a settled frame of this detector before it
        self._card_back_blurred = (None if self.card_back is None else
                                   cv2.GaussianBlur(self.card_back, (0, 0), self.cfg.card_face_blur_mm))
        # the pieces' colours (CIE Lab by name) as the photos judged so far show them, where the
        # calibration learned none, and whether they name the pieces now (see detect())
        self.photo_colours: dict[str, list[float]] = {}
        self._by_photo_colours = False

    # ---------------------------------------------------------------------------------- helpers
    @cached_property
    def _card_mm(self) -> tuple[int, int]:
        """A card's width and length (mm; the profile's card), or (0, 0) without cards."""
        cards = [s for ss in self.shapes.values() for s in ss if s.kind == "card"]
        if not cards:
            return 0, 0
        w, h = np.ptp(cards[0].footprint, axis=0)
        return int(round(w)), int(round(h))

    def _card_back(self) -> np.ndarray | None:
        """The profile's picture of the card back, grey, 1 px per mm, or None."""
        for spec in self.profile.data.pieces:
            if spec.kind == "card" and spec.image and self.profile.path is not None:
                from tableref.files import read_image

                p = self.profile.path.parent / spec.image
                if p.exists():
                    img = cv2.cvtColor(read_image(p), cv2.COLOR_BGR2GRAY)
                    return cv2.resize(img, self._card_mm, interpolation=cv2.INTER_AREA).astype(np.float32)
        return None

    @cached_property
    def _back_template(self) -> np.ndarray:
        """The card back at ``card_register_px_per_mm`` (for aligning a card)."""
        s = self.cfg.card_register_px_per_mm
        w, h = self._card_mm
        return cv2.resize(self.card_back, (int(round(w * s)), int(round(h * s))), interpolation=cv2.INTER_CUBIC)

    def _silhouette_hull_px(self, shape: PieceShape, xy: np.ndarray, clip_below: float | None = None) -> np.ndarray:
        """The convex outline (image px, float32) of a piece's silhouette lying at a place (image px);
        ``clip_below``: of its part above that height only."""
        hulls = silhouette_hulls(shape, self.cam, float(xy[0]), float(xy[1]), 0.0, 0.0, clip_below)
        hull = hulls[0] if len(hulls) == 1 else cv2.convexHull(np.concatenate(hulls).astype(np.float32)).reshape(-1, 2)
        return hull.astype(np.float32)

    def _expected_area_px(self, shape: PieceShape, xy: np.ndarray, clip_below: float | None = None) -> float:
        """The area (px) of a piece's silhouette at a place (image px); ``clip_below``: of its part
        above that height only."""
        return float(cv2.contourArea(self._silhouette_hull_px(shape, xy, clip_below)))

    def _grown_area_px(self, shape: PieceShape, xy: np.ndarray) -> float:
        """The area (px) of a piece's silhouette at a place (image px) grown all round by the blur that
        shifts an outline (``fit_blur_px``): the region of change a piece lying alone makes."""
        hull = self._silhouette_hull_px(shape, xy)
        g = self.cfg.fit_blur_px
        return float(cv2.contourArea(hull) + cv2.arcLength(hull, True) * g + np.pi * g * g)

    # ------------------------------------------------------------------------------- the frame
    def detect(self, frame: np.ndarray, previous: FrameResult | None = None) -> FrameResult:
        """Find and judge the pieces of a frame.  ``previous``: this detector's result for an earlier
        frame of the same table (the last settled one): the pieces of every region of change that
        is where it was and looks as it did are taken over, not posed again (after a shot, only
        what the shot moved is).

        Where the calibration learned no colours ('tableref calibrate pieces'), the photos judged
        teach them: textbook colours cannot tell a red figure that a warm lamp turned pale magenta
        from a grey meteor, while the photo's other red figures show what red looks like on this
        table.  The pieces found are clustered by colour as a "show the pieces" photo's are
        (:func:`vision.colors.learn_colours`), and a colour learned from ``photo_colour_min`` pieces
        at least is kept.  Where a colour comes out more than
        ``photo_colour_shift`` from its textbook one, the regions with a piece those colours
        name otherwise are judged again by them; the others keep their pieces, and a piece whose
        colour was or is unsure takes how sure they are of its name.  The photo's colours judge
        those regions only: a reading chosen by its fit and its colours together is balanced for
        the textbook colours' distances (nearer learned colours made a shadowed ship's edge a
        second ship under it)."""
        res = self._detect_once(frame, previous)
        if (self.cal.data.appearance or {}).get("colors") or not self._colours_taught:
            return res
        from .colors import learn_colours

        ours = previous is not None and previous._by == id(self)
        labs, choices, res._shown = self._piece_colours(frame, res, previous._shown if ours else {})
        learned, counts = learn_colours(labs, choices)
        # (a colour from ``photo_colour_min`` pieces at least: one pale yellow figure read as a grey
        # rock would teach a yellowish grey)
        self.photo_colours = {**self.photo_colours,
                              **{n: v for n, v in learned.items() if counts[n] >= self.cfg.photo_colour_min}}
        if max((float(np.linalg.norm(np.subtract(v, textbook_lab(n)))) for n, v in self.photo_colours.items()),
               default=0.0) <= self.cfg.photo_colour_shift:
            return res
        self._by_photo_colours = True
        try:
            again_at, surer = self._renamed_by_photo(res)
            # (not a region posed so already, taken over from the frame before)
            again = [] if not again_at else self._regions_of(res, again_at, lambda r: not r.by_photo_colours)
            if again:
                first = res.timings
                redo = {id(r) for r in again}
                kept = replace(res, _regions=[r for r in res._regions if id(r) not in redo])
                shown = res._shown
                res = self._detect_once(frame, previous, kept)
                res.timings = {**res.timings, "colours": sum(first.values())}
                res._shown = shown
                surer = self._renamed_by_photo(res)[1]
            return self._surer(res, surer)
        finally:
            self._by_photo_colours = False

    def _renamed_by_photo(self, res: FrameResult) -> tuple[list[Candidate], dict[int, float]]:
        """Of the pieces of ``res`` whose colour was unsure, or is unsure or another by the colours
        the photos taught: those to be posed again, which these colours name otherwise (another
        colour of its kind, or nearest a colour its kind does not come in: a red figure read as a
        grey meteor), and how sure these colours are of the others' names (by id)."""
        sure = self.cfg.color_confidence_min
        every = self._namer(list(self.shapes))
        again, surer = [], {}
        for c in res._cands:
            if c.colour_lab is None or c.hidden:
                continue
            name, conf, _ = self._naming(c.fit.shape.kind, c.colour_lab)
            if not (c.color_conf < sure or conf < sure or name != c.fit.shape.color):
                continue
            nearest = every.names[int(np.argmin(every.distances(c.colour_lab)))]
            if name != c.fit.shape.color or nearest not in self._colours_of(c.fit.shape.kind):
                again.append(c)
            else:
                surer[id(c)] = conf
        return again, surer

    def _regions_of(self, res: FrameResult, cands: list[Candidate], which) -> list[_Region]:
        """The regions of ``res`` (those ``which`` takes) in whose box one of ``cands`` lies."""
        at = np.array([self.cam.project_plane(np.array([[c.fit.x, c.fit.y]]), c.fit.base_mm)[0] for c in cands])
        return [r for r in res._regions if which(r) and np.any(
            (at[:, 0] >= r.bbox[0]) & (at[:, 0] <= r.bbox[2]) & (at[:, 1] >= r.bbox[1]) & (at[:, 1] <= r.bbox[3]))]

    def _surer(self, res: FrameResult, conf: dict[int, float]) -> FrameResult:
        """``res`` judged again (not posed again) with the colour confidence of each piece in
        ``conf`` (by id) set to its value there: how sure the colours the photos taught are of the
        name it keeps."""
        idx = [i for i, c in enumerate(res._cands) if id(c) in conf]
        if not idx:
            return res
        for i in idx:
            res._cands[i].color_conf = conf[id(res._cands[i])]
        # (a piece's judgement is its own — its pose, state, pit and confidence — so those pieces
        # are judged again, not the frame)
        return replace(res, judgement=res.judgement.with_rows(idx, self._judged([res._cands[i] for i in idx])))

    def _judged(self, cands: list[Candidate]) -> Judgement:
        """The judgement of a frame's pieces.  A piece's judgement is its own (its pose, state, pit,
        margins, note and confidence: :func:`judge` judges each against the calibration alone), so
        that of a piece read as it was (taken over from the frame before, or not changed since
        this frame's first judgement) is kept, not worked out again: after a shot, only the pieces
        it moved are judged (the entries hold the pose and its shape, whose ids the key names)."""
        keys = [self._judge_key(c) for c in cands]
        known = []
        for k, c in zip(keys, cands):
            g = self._refits_now.get(k) or self._refits_before.get(k)
            known.append(g if g is not None and g[0][0] is c.fit and g[0][1] is c.fit.shape else None)
        new = [i for i, g in enumerate(known) if g is None]
        got = self._judge([cands[i] for i in new]) if new else Judgement.empty()
        for j, i in enumerate(new):
            known[i] = ((cands[i].fit, cands[i].fit.shape), (got, j))
        for k, g in zip(keys, known):
            self._refits_now[k] = g
        return got if len(new) == len(cands) else Judgement.gather([g[1] for g in known])

    @staticmethod
    def _judge_key(c: Candidate) -> tuple:
        """What a piece's judgement is made of (see :meth:`_to_detections` and :func:`judge`)."""
        f = c.fit
        return ("judged", id(f), id(f.shape), f.shape.kind, f.shape.color, c.hidden, f.x, f.y, f.heading, f.base_mm,
                f.rms_px, f.inlier_frac, c.color_conf, c.state, c.pit, c.pit_margin, c.note, c.seen_mm, c.kind_gap)

    def _judge(self, cands: list[Candidate]) -> Judgement:
        """:func:`judge` of pieces (see :meth:`_judged`)."""
        return judge(self._to_detections(cands), self.cal, [c.state for c in cands], [c.pit for c in cands],
                     [c.pit_margin for c in cands], self.cfg, notes=[c.note for c in cands],
                     seen_mm=[c.seen_mm for c in cands])

    def _detect_once(self, frame: np.ndarray, previous: FrameResult | None,
                     kept: FrameResult | None = None) -> FrameResult:
        """One pass of :meth:`detect` by the colours known now.  ``kept``: this frame judged before,
        with the regions whose pieces stand (the others are posed again; its change map is used)."""
        import time

        t0 = time.perf_counter()
        ours = previous is not None and previous._by == id(self)  # (judged by this detector)
        # (after a shot, the change map is worked out again only where the picture changed since)
        ch = kept._changes if kept is not None else self.bg.changes(
            frame, min_area_px=self.min_area_px, close_px=self._close_px,
            since=previous._changes if ours else None)
        t1 = time.perf_counter()
        cands: list[Candidate] = []
        regions: list[_Region] = []
        hand = False
        reused = 0
        self._refits_before = {**(previous._refits if ours else {}), **(kept._refits if kept is not None else {})}
        # the pieces this detector found on the table before (the last settled frame): one that lay
        # there still lies under any that came to rest on it
        self._lay_before = [c for c in previous._cands if not c.hidden and c.state != "on_piece"] if ours else []
        self._hidden_before = [c for c in previous._cands if c.hidden] if ours else []
        self._first_look = not ours
        self._refits_now = {}
        # (a region beside other pieces last: it is looked in apart from the pieces posed there)
        for blob in sorted(ch.blobs, key=lambda b: b.by_piece):
            if self._is_hand(frame, blob):
                hand = True
                continue
            old = self._unchanged(frame, blob.bbox, ch, previous if kept is None else kept)
            found = [copy(c) for c in old.cands] if old is not None else \
                self._by_piece(frame, blob, ch, cands) if blob.by_piece else self._pieces_in(frame, blob, ch, cands)
            # (a region kept from this frame's first judgement was taken over if it was then)
            over = old is not None and (kept is None or old.reused)
            reused += over
            regions.append(_Region(blob.bbox, [copy(c) for c in found], over,
                                   old.by_photo_colours if old is not None else self._by_photo_colours))
            cands.extend(found)
        t2 = time.perf_counter()
        cands = self._suppress(cands, frame)
        self._named_in_photo(cands)
        self._sized_in_photo(cands)
        cands = self._resolve_elevations(cands, frame)
        if ours and len(self.pits):
            cands = self._came_unseen(cands, frame, [r.bbox for r in regions if not r.reused], ch, previous)
        jud = self._judged(cands)
        # pieces posed the quick way that lie near a decision boundary get the full fit
        near = [i for i, c in enumerate(cands) if not c.fit.refined and c.fit.points is not None
                and jud.margin_mm[i] < self.cfg.refine_margin_mm]
        if near:
            for i in near:
                f = cands[i].fit
                g = self._refit(f, f.base_mm, f.clip_below, (f.x, f.y, f.heading))
                g.upright = f.upright
                cands[i].fit = g
            jud = self._judged(cands)
        t3 = time.perf_counter()
        return FrameResult(jud, hand, len(ch.blobs), {"changes": t1 - t0, "fit": t2 - t1, "judge": t3 - t2}, reused,
                           regions, self._refits_now, ch.small, id(self), cands, ch)

    def piece_colours(self, frame: np.ndarray, result: FrameResult) -> tuple[np.ndarray, list[list[str]]]:
        """What ``vision.colors.learn_colours`` learns from: each piece of ``result`` (this detector's
        judgement of ``frame``) that shows, in the colour the photo shows it (white-balanced CIE Lab,
        from where no other piece covers it; (n, 3)), and the colours its kind comes in."""
        labs, choices, _ = self._piece_colours(frame, result, {})
        return labs, choices

    @staticmethod
    def _pose_key(c: Candidate) -> tuple:
        """A posed piece's kind, colour and pose (table mm, degrees)."""
        f = c.fit
        return f.shape.kind, f.shape.color, f.x, f.y, f.heading, f.base_mm

    def _piece_colours(self, frame: np.ndarray, result: FrameResult,
                       known: dict) -> tuple[np.ndarray, list[list[str]], dict]:
        """:meth:`piece_colours`, and the colours found by piece (by its pose and those of the pieces
        reaching near it).  ``known``: those of the frame before, where its pieces were taken over:
        a piece that lies as it lay, among pieces that lie as they lay, shows what it showed (its
        region did not change)."""
        cands = result._cands
        hulls = [c.fit.hulls(self.cam) for c in cands]
        # (each piece's extent, image px: only the pieces reaching into one's box can cover it)
        ext = np.array([[*np.min(np.concatenate(h), 0), *np.max(np.concatenate(h), 0)] if len(h)
                        else [np.inf, np.inf, -np.inf, -np.inf] for h in hulls]).reshape(-1, 4)
        labs, choices, shown = [], [], {}
        for i, c in enumerate(cands):
            if c.hidden or not len(hulls[i]):
                continue
            box = self._hulls_box(frame, hulls[i], 1)
            if box[2] - box[0] < 3 or box[3] - box[1] < 3:
                continue
            near = (ext[:, 0] < box[2]) & (ext[:, 2] >= box[0]) & (ext[:, 1] < box[3]) & (ext[:, 3] >= box[1])
            key = (self._pose_key(c), *(self._pose_key(cands[k]) for k in np.flatnonzero(near) if k != i))
            if key in known:
                lab = known[key]
            else:
                none = np.zeros((box[3] - box[1], box[2] - box[0]), np.uint8)
                masks = [silhouette_mask(h, box) if near[k] else none for k, h in enumerate(hulls)]
                # (off its outline: blur mixes the board in there)
                own = self._core(self._uncovered(masks[i], masks, i))
                lab = self._lab_of(frame, own, box) if np.count_nonzero(own) >= MIN_COLOUR_PX else None
            shown[key] = lab
            if lab is not None:
                labs.append(lab)
                choices.append(self._colours_of(c.fit.shape.kind))
        return np.array(labs, np.float32).reshape(-1, 3), choices, shown

    def _region_box(self, frame: np.ndarray, bbox) -> tuple[int, int, int, int]:
        """A region's box grown by the few px the coarse change map's outline may be off (image px)."""
        return _grown_box(frame, bbox, int(np.ceil(max(6.0, 3.0 / self.bg.scale))))

    def _unchanged(self, frame: np.ndarray, bbox, ch, previous: FrameResult | None) -> _Region | None:
        """The previous frame's region at the same place (to the change map's px) where no pixel of
        the change map's copy of the frame differs from the previous one by the change threshold
        (but for specks of noise)."""
        if previous is None or previous._by != id(self) or previous._small is None:
            return None  # (another detector's result: another calibration, or none)
        tol = 2.0 / self.bg.scale + 1
        for r in previous._regions:
            if max(abs(a - b) for a, b in zip(r.bbox, bbox)) > tol:
                continue
            s = self.bg.scale
            box = self._region_box(frame, [min(a, b) for a, b in zip(r.bbox[:2], bbox[:2])] +
                                   [max(a, b) for a, b in zip(r.bbox[2:], bbox[2:])])
            x0, y0 = int(box[0] * s), int(box[1] * s)
            x1, y1 = int(np.ceil(box[2] * s)), int(np.ceil(box[3] * s))
            if ch.small_unchanged(previous._small, (x0, y0, x1, y1)):
                return r  # (not a pixel differs: the change map did not work the frame out again there)
            d = cv2.absdiff(ch.small[y0:y1, x0:x1], previous._small[y0:y1, x0:x1])
            moved = (channel_max(d) > ch.threshold).astype(np.uint8)
            if not cv2.morphologyEx(moved, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)).any():
                return r
        return None

    def _carried(self, key: tuple, fits: tuple[Fit, ...], make):
        """``make()``, worked out once for the poses ``fits`` (``key`` names the question, with their
        ids): a piece taken over from the previous frame keeps its pose, and what was worked out of
        that pose then holds still (the entry holds the poses, so that their ids are not reused)."""
        got = self._refits_before.get(key)
        if got is None or any(a is not b for a, b in zip(got[0], fits)):
            got = (fits, make())
        self._refits_now[key] = got
        return got[1]

    def _refit(self, f: Fit, base_mm: float, clip_below: float | None, init) -> Fit:
        """fit_one() on a posed piece's outline at another height; a piece taken over from the
        previous frame keeps its refits too."""
        return self._carried((id(f), base_mm, clip_below, tuple(init)), (f,),
                             lambda: fit_one(f.shape, self.cam, f.points, base_mm, clip_below, init=init))

    def _on_top(self, frame: np.ndarray, a: Candidate, b: Candidate, edges: bool = True) -> int | None:
        """Which of two overlapping pieces lies on the other (0: ``a``, 1: ``b``; None: the photo
        does not tell): by the colour where they overlap (:meth:`_upper`), else, with ``edges``, by
        whose edge runs on there (:meth:`_upper_by_edges`).  Two pieces taken over from the frame
        before (posed as they were: their regions did not change) are told as they were then."""
        def tell() -> int | None:
            u = self._upper(frame, a, b)
            return self._upper_by_edges(frame, a, b) if u is None and edges else u

        return self._carried(("on_top", id(a.fit), id(b.fit), a.hidden, b.hidden, edges), (a.fit, b.fit), tell)

    @property
    def pieces_lie_on_pieces(self) -> bool:
        """Whether pieces come to rest on others on the board, judged ``on_piece`` (Pitch Fleet; a
        PitRush disc rests on another only in a pit)."""
        return self.profile.game == "pitchfleet"

    @cached_property
    def mm_per_px(self) -> float:
        """The board plane's scale at the middle of the boards (mm per image px)."""
        c = np.asarray(self.cal.support.centroid.coords[0])
        return float(self.cam.mm_per_px_at(c[None])[0])

    def _change_scale(self) -> float:
        """The scale of the coarse change map: as coarse as lets the smallest piece still cover
        ``change_piece_px`` pixels there (regions of change are then examined at full resolution).
        Set from the calibration, so a 12 MP camera and a webcam do the same work per piece."""
        if self.cards:
            # a card on a mat (or on another card) differs from it in print and thin borders,
            # which a coarse map blurs away, however big the card
            return self.cfg.change_max_scale
        smallest_px = self.min_area_px / self.cfg.min_piece_area_frac
        s = float(np.clip(np.sqrt(self.cfg.change_piece_px / max(smallest_px, 1.0)),
                          self.cfg.change_min_scale, self.cfg.change_max_scale))
        # a power of two at least that fine: OpenCV shrinks by 1/2, 1/4... several times faster
        return float(2.0 ** -np.floor(np.log2(1.0 / s) + 1e-9))

    @cached_property
    def _card_gap_px(self) -> float:
        """A tenth of a card's short side (image px): a card's print may match the mat in places,
        so its region of change may have gaps that wide.  0 without cards."""
        return 0.1 * min(self._card_mm) / self.mm_per_px

    @cached_property
    def _close_px(self) -> int:
        """Gaps (coarse change map px) closed in a region of change."""
        return max(3, int(round(self._card_gap_px * self.bg.scale)))

    @cached_property
    def min_area_px(self) -> float:
        """The least area (image px) a region must have to be a piece: a fraction of the smallest piece."""
        smallest = min((s for ss in self.shapes.values() for s in ss), key=lambda s: s.area_mm2)
        return self.cfg.min_piece_area_frac * smallest.area_mm2 / self.mm_per_px ** 2

    @cached_property
    def _biggest_mm2(self) -> float:
        """The largest piece's footprint area (mm^2)."""
        return max(s.area_mm2 for ss in self.shapes.values() for s in ss)

    def _is_hand(self, frame: np.ndarray, blob) -> bool:
        area_mm2 = blob.area_px * self.mm_per_px ** 2
        return blob.touches_border and area_mm2 > 6 * self._biggest_mm2 or area_mm2 > 40 * self._biggest_mm2

    def _pieces_in(self, frame: np.ndarray, blob, ch, posed: list[Candidate] = ()) -> list[Candidate]:
        """Pose piece models on one region of change; name each piece's colour from its top face.
        ``posed``: the pieces posed on the frame's other regions so far."""
        box = self._region_box(frame, blob.bbox)
        if blob.plain:
            return self._plain_piece(frame, box, ch) or self._plain_rock(frame, box, ch)
        if blob.shadow_like:
            # a piece the colour of a shadow, posed apart from the pieces posed on the clear regions
            # beside it: its change (shadows and all) runs on into theirs, and the one piece posed
            # on the whole may be theirs again (PitRush 7276: a black disc by a green one, whose
            # region gave the green disc a second time and the black one not at all)
            return self._shadow_coloured(frame, box, box, ch, self._posed_near(posed, box) if posed else None)
        wide, score = self.bg.crop_score(frame, box, ch.gains)
        out = self._pieces_in_mask(frame, score, (score > ch.threshold).astype(np.uint8), box, ch)
        alt = None  # the region's cards posed on ``wide`` (see _cards_on_wide), once
        changed = self._card_region((wide > ch.threshold).astype(np.uint8)) if self.cards else None
        if self.cards and wide is not score and any(c.fit.inlier_frac < self.cfg.card_repose_inliers
                                                    or self._covered(c.fit, changed, box) < self.cfg.card_cover_min
                                                    for c in out):
            alt = self._cards_on_wide(frame, wide, box, ch)
            out = self._cards_unscored(alt, out)
        if len(out) > 1 and not self.cards and any(_weak(c) or c.upright for c in out):
            # (a lying beam across a line of its own colour also shows as a row of standing ones)
            out = self._joined(frame, score, box, ch, out)
        if wide is not score:
            # where nothing was posed with shadows scored down: a piece as dark as a shadow of the
            # board (a dark card back) and wider than the pieces' shadows can be; its edges are
            # taken from the score that counts it (soft contact shadow and all)
            rest = (wide > ch.threshold) & (self._posed_near(out, box) == 0)
            if rest.sum() >= self.min_area_px:
                got = self._pieces_in_mask(frame, wide, rest.astype(np.uint8), box, ch)
                if not got and self.cards:
                    got = self._cards_apart(self._cards_on_wide(frame, wide, box, ch) if alt is None else alt, out)
                out += got
        if self.cards:
            for c in out:
                c.cover = self._covered(c.fit, changed, box)
                if c.cover < self.cfg.card_cover_min:
                    c.note = (c.note + "; " if c.note else "") + (
                        f"posed on part of its change: {c.cover:.0%} of it lies where the photo changed")
        if not out and not self.cards:
            # nothing posed on what clearly changed: a piece much like the board (a grey meteor on
            # grey print) shows only in parts; take its weaker parts that hang together with them
            out = self._pieces_in_mask(frame, score, self._hysteresis(score, ch.threshold), box, ch)
        if not self.cards and self.bg.textured_frac > 0:
            # a clear change that no posed piece explains: a piece the colour of a shadow (a grey
            # rock), of which only a part lighter than the board shows; looked for around it, a
            # piece's size further out, apart from the pieces posed
            rest = (score > ch.threshold) & (self._posed_near(out, box) == 0)
            if np.count_nonzero(rest) >= 0.5 * self.min_area_px:
                ys, xs = np.nonzero(rest)
                seed = (box[0] + xs.min(), box[1] + ys.min(), box[0] + xs.max() + 1, box[1] + ys.max() + 1)
                big = self._grown(frame, seed)
                posed = [c.fit.footprint_polygon() for c in out]
                near = self._posed_near(out, big) | self._others_near(ch, big, seed)
                for c in self._shadow_coloured(frame, big, seed, ch, near):
                    # not where a piece already stands (two pieces on the board cannot share ground)
                    fp = c.fit.footprint_polygon()
                    if all(_overlap(fp, q) < 0.2 for q in posed):
                        out.append(c)
        return out

    def _by_piece(self, frame: np.ndarray, blob, ch, posed: list[Candidate]) -> list[Candidate]:
        """One piece the colour of a shadow in a textured shadow-like region beside other pieces
        (``blob.by_piece``), looked for apart from the pieces ``posed`` on the other regions and
        their soft shadows (a rock's part that changed clearly may have joined the region of the
        figure beside it).  Kept only where its outline lies on the model's all round and its colour
        is its kind's: the print in a piece's shadow may show a texture that no piece explains.
        Not posed on an outline ring: a ring closed and filled takes in the rock's soft shadow, and
        a piece posed on it does not fit well all round (none of ~150 so posed on 80 Galaktico
        tables was kept here, and posing them took an eighth of the frames' time, up to 0.7 s).
        A grey rock need only lie on the model for ``rock_inliers_min`` of its outline: on grey
        print its edge is lost in places, where a coloured figure's shows all round (of the 13
        pieces not fitting well on 160 tables, the 3 grey rocks were real meteors beside figures,
        the 10 coloured figures parts of figures and their shadows; a grey one of a colour unlike
        the rocks' was a figure's too)."""
        box = self._region_box(frame, blob.bbox)
        lim = self.cfg.kind_colour_dist * self._colour_spread()
        return [c for c in self._shadow_coloured(frame, box, box, ch, self._posed_near(posed, box), ring=False)
                if c.colour_dist <= lim and (_fits_well(c) or (self._achromatic_kind(c.fit.shape.kind)
                                                               and c.fit.inlier_frac >= self.cfg.rock_inliers_min))]

    def _cards_on_wide(self, frame: np.ndarray, wide: np.ndarray, box, ch) -> list[Candidate]:
        """A region's cards posed on its change with darkenings wider than a shadow can be counted
        (``wide``, box px: a card's dark print with the border around it)."""
        return self._pieces_in_mask(frame, wide, (wide > ch.threshold).astype(np.uint8), box, ch)

    def _card_region(self, mask: np.ndarray) -> np.ndarray:
        """A region's change where cards are posed on it (uint8 0/1, box px): specks opened away,
        gaps up to a tenth of a card closed (a card's print may match the mat in places) and the
        holes filled (a card is solid)."""
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        k = max(3, int(round(self._card_gap_px)))
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        return cv2.drawContours(np.zeros_like(mask), cnts, -1, 1, cv2.FILLED)

    def _covered(self, f: Fit, changed: np.ndarray, box) -> float:
        """The share of a posed card's core that lies on ``changed`` (uint8, box px: its region's
        change, see :meth:`_card_region`), counted within the photo.  The core is its silhouette
        less a tenth of a card all round (image px): a card's border may match the mat, and its
        change shows no further than its inner frame there.  A card posed where it lies covers its
        core all but wholly; one posed on part of its change only (a card overhanging the mat onto
        a pale table, where its pale top changes nothing) leaves a strip of its core on the bare
        mat.  (ASF CCG, 280 tables, 2263 cards: every card posed within 3.2 mm of the truth covered
        97% of its core or more; of the five posed 20 mm or more off, four covered 11-88%, and the
        fifth, 95%, runs half out of the photo and is flagged for that.)"""
        hs = f.hulls(self.cam)
        pts = np.concatenate(hs)
        h, w = self.cam.image_size[1], self.cam.image_size[0]
        x0, y0 = np.maximum(np.floor(pts.min(axis=0)).astype(int) - 1, 0)
        x1, y1 = np.minimum(np.ceil(pts.max(axis=0)).astype(int) + 2, [w, h])
        if x1 <= x0 or y1 <= y0:
            return 1.0
        own = (int(x0), int(y0), int(x1), int(y1))
        k = 2 * round(self._card_gap_px / 2) + 1
        core = cv2.erode(silhouette_mask(hs, own), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        n = np.count_nonzero(core)
        if n == 0:
            return 1.0
        on = np.zeros_like(core)
        a0, b0 = max(own[0], box[0]), max(own[1], box[1])
        a1, b1 = min(own[2], box[2]), min(own[3], box[3])
        if a1 > a0 and b1 > b0:
            on[b0 - own[1]:b1 - own[1], a0 - own[0]:a1 - own[0]] = changed[b0 - box[1]:b1 - box[1], a0 - box[0]:a1 - box[0]]
        return float(np.count_nonzero(core & on)) / n

    def _cards_unscored(self, alt: list[Candidate], out: list[Candidate]) -> list[Candidate]:
        """Cards ``out`` posed poorly on a region's change with shadows scored down (some card's
        outline off its edge for over half of it, ``card_repose_inliers``, or its core partly on
        the bare mat, ``card_cover_min``: see :meth:`_covered`), or ``alt``, the region's
        cards posed on its change with darkenings wider than a shadow can be counted
        (:meth:`_cards_on_wide`): the reading that fits better.  A card's dark border on
        a mat that it darkens like a shadow is narrower than a shadow may be, so it is scored down
        with the shadows: the outline then runs along the border's inside where the mat is like
        that and along its outside elsewhere (a card overhanging a grey mat onto a green table was
        posed 4 mm off, not flagged).  Cards posed fairly are not posed again: there ``wide`` holds
        the card's own soft shadow too, and the reading that fits it a little better more often
        lies further off (ASF CCG 7000-7039 and 9600-9639: of 168 cards posed fairly whose
        reading there was taken, 15 lay 0.3-1.1 mm further from the truth, 3 nearer)."""
        if len(alt) == len(out) and (self._reading_cost([c.fit for c in alt], len(alt))
                                     < self._reading_cost([c.fit for c in out], len(out))):
            return alt
        return out

    def _cards_apart(self, alt: list[Candidate], out: list[Candidate]) -> list[Candidate]:
        """Cards where a region changed clearly, apart from the cards ``out`` posed there, though
        none was posed on that part alone: of ``alt``, the region's cards posed on its whole change
        counting darkenings wider than a shadow (:meth:`_cards_on_wide`), those lying apart from
        ``out`` (sharing less than a fifth of a card).  A dark card back on a grey mat is scored down like a
        shadow all round its dark border, so that its outline with shadows scored down runs along
        the gold frame inside it, a card's tenth in: no card fits it; and what is left of the
        change beside a card posed next to it may hold that card's fringe too, which no single card
        fits either (held-out ASF CCG 9531: a face-down card on the mat, in full view, missed)."""
        posed = [c.fit.footprint_polygon() for c in out]
        return [c for c in alt if all(_overlap(c.fit.footprint_polygon(), q) < 0.2 for q in posed)]

    def _joined(self, frame: np.ndarray, score: np.ndarray, box, ch, out: list[Candidate]) -> list[Candidate]:
        """A region read as several pieces, one of them poorly, may be one piece across a line of
        its own colour (a silver beam over the gap between two tiles, where it changes nothing):
        with gaps up to ``join_gap_mm`` closed, a reading of no more pieces, each posed well, wins;
        so does one of no more pieces, none weak, that fits better, its pieces counted
        (:meth:`_reading_cost`): a ship across a beam whose ends poke out, one of them cut off by a
        line of its own colour, read as two ships; a silver beam lying on white clouds, of which
        only patches changed, read as two beams standing on their ends; and one of fewer pieces,
        none weak, where the first reading has beams standing on their ends, however they fit.  Not
        where as many pieces as the first reading's, each of those posed well and sure of its
        colour: two pieces apart are not one piece cut."""
        k = 2 * int(np.ceil(self.cfg.join_gap_mm / self.mm_per_px / 2)) + 1
        m = cv2.morphologyEx((score > ch.threshold).astype(np.uint8), cv2.MORPH_CLOSE,
                             cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
        fewer = self._pieces_in_mask(frame, score, m, box, ch)
        if not fewer or any(_weak(c) for c in fewer):
            return out
        if len(fewer) > len(out):
            # more pieces, where part of one was lost to the region: a black disc on a yellow one in
            # a pit, its top scored down as a shadow, left the yellow one posed poorly over both
            # (PitRush 7091).  Taken only where a piece of the first reading is weak and fits
            # poorly, and the joined one (none of its pieces weak) costs less, its pieces counted
            if not any(_weak(c) and not _fits_well(c) for c in out):
                return out
            better = self._reading_cost([c.fit for c in fewer], len(fewer)) < \
                self._reading_cost([c.fit for c in out], len(out))
            return fewer if better else out
        if len(fewer) == len(out) and all(_fits_well(c) and not _weak(c) for c in out):
            # (a beam standing on its end, its top alone seen, beside one lying: joined, they
            # fitted a little better as two lying beams, 12 mm off; Pitch Fleet 9918)
            return out
        if all(_fits_well(c) for c in fewer) or (len(fewer) < len(out) and any(c.upright for c in out)):
            # (several beams standing on their ends side by side are rarer than one lying across
            # patches where it changed nothing: Pitch Fleet 9700, once its outline's points along
            # the clouds' edges were left out, fitted as three standing ones a little better)
            return fewer
        if (self._reading_cost([c.fit for c in fewer], len(fewer))
                < self._reading_cost([c.fit for c in out], len(out))):
            return fewer
        return out

    def _posed_near(self, cands: list[Candidate], box) -> np.ndarray:
        """Where posed pieces lie, grown by the reach of a soft contact shadow (uint8, box px)."""
        posed = np.zeros((box[3] - box[1], box[2] - box[0]), np.uint8)
        for c in cands:
            posed |= silhouette_mask(c.fit.hulls(self.cam), box)
        return self._with_soft_shadow(posed)

    def _with_soft_shadow(self, mask: np.ndarray) -> np.ndarray:
        """A mask (uint8, image px) grown by the reach of a soft contact shadow."""
        k = 2 * int(np.ceil(self.cfg.shadow_soft_mm / self.mm_per_px)) + 1
        return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))

    def _grown(self, frame: np.ndarray, box) -> tuple[int, int, int, int]:
        """A box (image px) grown by the largest piece's size, within the photo."""
        return _grown_box(frame, box, int(np.ceil(self._largest_px)))

    def _others_near(self, ch, box, seed) -> np.ndarray:
        """The regions of clear change in a box (image px) that do not reach into ``seed`` (a box):
        other pieces, posed from their own regions; grown by the reach of a soft contact shadow
        (uint8, box px)."""
        s = ch.scale
        x0, y0 = int(box[0] * s), int(box[1] * s)
        x1, y1 = int(np.ceil(box[2] * s)), int(np.ceil(box[3] * s))
        n, lab = components(np.ascontiguousarray(ch.mask[y0:y1, x0:x1]))[:2]
        ours = np.zeros(n, bool)
        sx0, sy0 = max(0, int(seed[0] * s) - x0), max(0, int(seed[1] * s) - y0)
        sx1, sy1 = int(np.ceil(seed[2] * s)) - x0, int(np.ceil(seed[3] * s)) - y0
        ours[np.unique(lab[sy0:sy1, sx0:sx1])] = True
        ours[0] = True
        other = (~ours[lab]).astype(np.uint8)
        return self._with_soft_shadow(cv2.resize(other, (box[2] - box[0], box[3] - box[1]),
                                                 interpolation=cv2.INTER_NEAREST))

    def _shadow_coloured(self, frame: np.ndarray, box, seed, ch, posed: np.ndarray | None = None,
                         ring: bool = True) -> list[Candidate]:
        """One piece the colour of a shadow in a box (image px), where it changed the picture
        (shadows and all) and either its colour balance or the board's texture (see
        :meth:`Background.texture_residual`); its shadow, which keeps the board's texture, is left
        out.  Only regions reaching into ``seed`` (a box) count, and only where ``posed`` (box px) is
        not set; where it is set somewhere (the region ran into pieces posed beside it), the piece
        must show a colour of its own (:meth:`_shows_colour`).  One piece, taken by
        :meth:`_one_piece_cost`: a second one there would have shown where shadows are scored down.
        ``ring``: where too little shows, also posed on its outline ring (:meth:`_on_outline_ring`)."""
        d, plain, tex = self.bg.crop_texture(frame, box, ch.gains)
        thr = ch.threshold
        shows = ((plain > thr) | (tex > thr)).astype(np.uint8)  # where it differs in colour balance or texture
        m = ((d > thr) & (shows > 0)).astype(np.uint8)
        m = fill_holes(cv2.morphologyEx(m, cv2.MORPH_CLOSE, smoothing_disc(self.bg.smooth_px)))
        if posed is not None:
            m &= posed == 0
        n, lab = components(m)[:2]
        touched = np.zeros(n, bool)
        touched[np.unique(lab[seed[1] - box[1]:seed[3] - box[1], seed[0] - box[0]:seed[2] - box[0]])] = True
        touched[0] = False
        if not touched.any():
            return []
        # its outline where it shows within a few px, not along its shadow's edge
        keep = cv2.dilate(shows, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
        region = touched[lab].astype(np.uint8)
        out = self._pieces_in_mask(frame, d, region, box, ch, keep)
        if not any(_fits_well(c) for c in out):
            # a dark piece in its own dark shadow: the change (shadow and all) does not fall at its
            # edge (none posed there, or none well: pulled into the shadow), where its colour
            # balance or texture stops showing does
            out += self._pieces_in_mask(frame, np.maximum(plain, tex), region, box, ch, keep)
        if not out and ring:
            out = self._on_outline_ring(frame, d, region, box, ch, posed)
        if not out:
            # no outline at all: a faint piece inside its own soft shadow
            out = self._above_own_shadow(frame, d, region, box, ch)
        # the piece is the one on the seed (the region may run on into a piece beside it, posed too)
        sx0, sy0, sx1, sy1 = seed[0] - box[0], seed[1] - box[1], seed[2] - box[0], seed[3] - box[1]
        on_seed = [c for c in out if silhouette_mask(c.fit.hulls(self.cam), box)[sy0:sy1, sx0:sx1].any()]
        for c in on_seed or out:
            if c.region is not None:
                # posed as one of several on the region, it was named from the part of it the others
                # left it (a crescent of its edge and the board beside it: PitRush 7119, a black
                # disc posed twice on its shade, the one taken named white); one piece is taken, so
                # it is named from all of it that shows
                self._renamed(frame, c, region, box)
        cost = {id(c): self._one_piece_cost(c) for c in on_seed or out}
        out = sorted(on_seed or out, key=lambda c: cost[id(c)])[:1]
        if posed is not None and posed.any() and out and not self._shows_colour(out[0], box, ch.gains):
            # where the region ran into pieces posed beside it, what is left may be their shadow or
            # the rim of a pit they shade: a piece posed there must show a colour of its own, not
            # the board's (PitRush 7166: a white disc posed on the shade beside a green one; Pitch
            # Fleet 7211: a standing beam's walls posed as a lying beam)
            return []
        for c in out:
            # (one posed poorly may lie mostly off where it shows, further than placing it by its
            # texture reaches: moved onto that first)
            f = c.fit if _fits_well(c) else self._centred(c.fit, region, box)
            c.fit = self._placed_by_texture(f, tex, box, posed)
            c.faint = True
        return out

    def _one_piece_cost(self, c: Candidate) -> float:
        """The cost of taking a piece posed on a region of shadow-like change as the region's one
        piece: its pose's and its colour's.  Posed as one of several on the region, it must explain
        the region's whole outline.  Its colour counts: the better posed of two may be posed on a
        part of the piece, whose colour is no piece's (PitRush 7149, 7207, 7282: black discs read
        white)."""
        geo = c.fit.cost if c.region is None else c.fit.scored_on(self.cam, c.region).cost
        return geo + _colour_cost(c.colour_dist)

    def _on_outline_ring(self, frame: np.ndarray, d: np.ndarray, region: np.ndarray, box, ch,
                         posed: np.ndarray | None) -> list[Candidate]:
        """A piece the colour of a shadow of which too little shows for a piece (``region``, box px:
        a grey rock's mottled inside much like the board's print), posed on its outline ring, which
        does show — its dark edge and soft shadow in the change (``d``, shadow and all), broken where
        faint: its weaker parts that hang together with the rest taken, its gaps closed, its inside
        filled; not where ``posed`` (box px) is set.  A piece of a grey only (a beam's top beside its
        own shadow on a blue nebula is not a blue ship)."""
        ring = fill_holes(cv2.morphologyEx(self._hysteresis(d, ch.threshold), cv2.MORPH_CLOSE,
                                           smoothing_disc(self.bg.smooth_px)))
        if posed is not None:
            ring &= posed == 0
        return [c for c in self._pieces_in_mask(frame, d, _touching(ring, region > 0), box, ch)
                if achromatic(c.fit.shape.color, textbook_lab(c.fit.shape.color))]

    def _above_own_shadow(self, frame: np.ndarray, d: np.ndarray, region: np.ndarray, box, ch) -> list[Candidate]:
        """A piece the colour of a shadow, faintly textured, that no outline was found for: where it
        shows (``region``, box px) lies inside its own soft shadow, so neither the change (``d``,
        shadow and all) nor its texture crosses the threshold at its edge.  The piece darkens the
        picture more than its shadow does: its outline is taken where the change crosses the level
        halfway between the two (their medians: inside ``region``, and where the change shows
        beyond it)."""
        thr = ch.threshold
        shade = (d > thr) & (cv2.dilate(region, np.ones((5, 5), np.uint8)) == 0)
        if np.count_nonzero(region) < 0.5 * self.min_area_px or np.count_nonzero(shade) < 0.5 * self.min_area_px:
            return []
        level = float(median(d[region > 0]) + median(d[shade])) / 2
        if level <= thr:
            return []
        return self._pieces_in_mask(frame, d, _touching((d > level).astype(np.uint8), region > 0), box,
                                    replace(ch, threshold=level))

    def _plain_piece(self, frame: np.ndarray, box, ch) -> list[Candidate]:
        """One piece as plain and dark as a shadow (a black disc) in a box (image px), where no shadow
        of a piece can be: posed on where the picture changed like a shadow there (it and its own
        shadow, not the pieces next to it); kept only if its outline lies on the model's all round
        and its colour is a piece's."""
        d, plain = self.bg.crop_change(frame, box, ch.gains)
        # where it changed like a shadow: not the pieces next to it
        m = (d > ch.threshold) & (plain <= ch.threshold)
        out = self._pieces_in_mask(frame, d, m.astype(np.uint8), box, ch)
        out = [c for c in out if _fits_well(c) and c.colour_dist <= self.cfg.plain_colour_dist * self._colour_spread()]
        return sorted(out, key=lambda c: c.fit.cost)[:1]

    def _plain_rock(self, frame: np.ndarray, box, ch) -> list[Candidate]:
        """A region the change map took for plain (no texture of its own at either scale) where no
        plain piece fits: a piece the colour of a shadow after all (a dark, finely mottled rock,
        whose texture shows only against the board right around it), looked for a piece's size
        around the region, apart from the other regions of change (the pieces beside it)."""
        big = self._grown(frame, box)
        return self._shadow_coloured(frame, big, box, ch, self._others_near(ch, big, box))

    def _placed_by_texture(self, f: Fit, tex: np.ndarray, box, posed: np.ndarray | None = None) -> Fit:
        """A piece known by its own texture (``tex``: the texture residual in a box, image px) rather
        than by an outline — a grey rock whose outline runs into its soft shadow — placed where its
        silhouette covers the most texture (:meth:`_placed_by_votes`)."""
        return self._placed_by_votes(f, tex, box, posed)

    def _placed_by_change(self, f: Fit, score: np.ndarray, box, posed: np.ndarray | None = None) -> Fit:
        """A piece much like the board (a grey rock on the grey print) whose outline does not lie on
        its model all round — the change shows only in patches, and the outline found runs into
        the rock along the edges of its mottling — placed where its silhouette covers the most
        change (``score``: the change score in a box, image px; :meth:`_placed_by_votes`): the
        region it changed says where it is better than a ragged outline does."""
        return self._placed_by_votes(f, score, box, posed)

    def _placed_by_votes(self, f: Fit, level: np.ndarray, box, posed: np.ndarray | None = None) -> Fit:
        """A posed piece moved to where its silhouette covers the most of what tells it from the
        board (``level``: a texture residual or change score in a box, image px): each pixel of the
        smoothed level votes for the piece or for the board by where it lies between their levels
        (the medians inside its posed silhouette and in a band around it), and the silhouette is
        moved, by half its size at most, to where the votes it covers sum highest (a matched
        filter; to a fraction of a px by a parabola through the peak).  Where other pieces are
        posed (``posed``, box px) counts as board.  The heading and height are kept.  A piece
        narrower than the smoothing reaches is left as posed: its level there is not told from
        the board's."""
        sil = silhouette_mask(f.hulls(self.cam), box)
        if not cv2.erode(sil, smoothing_disc(max(0.5, self.bg.smooth_px))).any():
            return f  # narrower than the smoothing reaches
        sig = max(1.0, self.bg.smooth_px / 2)
        disc = smoothing_disc(sig)
        inner = cv2.erode(sil, disc) > 0
        near = cv2.dilate(sil, disc) > 0
        band = (cv2.dilate(sil, smoothing_disc(2 * sig)) > 0) & ~near
        if np.count_nonzero(inner) < 20 or not band.any():
            return f
        e = cv2.GaussianBlur(level, (0, 0), sig)
        a, b = float(median(e[inner])), float(median(e[band]))
        if a <= b:
            return f
        if posed is not None:
            e[posed > 0] = b
        ys, xs = np.nonzero(sil)
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        kern = sil[y0:y1, x0:x1].astype(np.float32)
        # placements a piece's size either way, beyond the box: board there
        py, px = y1 - y0, x1 - x0
        # each pixel a vote, for the piece or for the board (a part far unlike the board, such as
        # where it covers the board's coloured rim, must not outweigh the rest of it)
        vote = np.clip((e - np.float32((a + b) / 2)) * np.float32(2 / (a - b)), -1, 1)
        w = cv2.copyMakeBorder(vote, py, py, px, px, cv2.BORDER_CONSTANT, value=-1.0)
        r = cv2.matchTemplate(w, kern, cv2.TM_CCORR)
        # moved by half its size at most (as far as the shadow it was posed into reaches): further
        # off lies other texture (print, a piece not posed)
        r0y, r0x = y0 + py, x0 + px  # where it lies now
        win = r[r0y - py // 2:r0y + py // 2 + 1, r0x - px // 2:r0x + px // 2 + 1]
        iy, ix = np.unravel_index(int(np.argmax(win)), win.shape)
        iy, ix = iy + r0y - py // 2, ix + r0x - px // 2

        def vertex(lo, mid, hi):  # the parabola's peak through three samples, relative to the middle
            den = lo - 2 * mid + hi
            return 0.0 if den >= 0 else float(np.clip(0.5 * (lo - hi) / den, -0.5, 0.5))
        sx = vertex(r[iy, ix - 1], r[iy, ix], r[iy, ix + 1]) if 0 < ix < r.shape[1] - 1 else 0.0
        sy = vertex(r[iy - 1, ix], r[iy, ix], r[iy + 1, ix]) if 0 < iy < r.shape[0] - 1 else 0.0
        return self._shifted(f, np.array([ix + sx - px - x0, iy + sy - py - y0]))

    def _shifted(self, f: Fit, shift_px: np.ndarray) -> Fit:
        """A pose moved so that its middle (halfway up) moves by ``shift_px`` in the image; the
        heading and height kept."""
        h_mid = f.base_mm + f.shape.height_mm / 2
        c_px = self.cam.project_plane(np.array([[f.x, f.y]]), h_mid)
        xy = self.cam.backproject(c_px + shift_px, h_mid)[0]
        return replace(f, x=float(xy[0]), y=float(xy[1]), refined=True)

    def _centred(self, f: Fit, region: np.ndarray, box) -> Fit:
        """A pose that covers less than half of ``region`` (uint8, box px: where one piece
        shows, no bigger than twice its silhouette) moved so that its silhouette's centroid lies on
        the region's; otherwise as it is."""
        sil = silhouette_mask(f.hulls(self.cam), box)
        n_sil, n_reg = np.count_nonzero(sil), np.count_nonzero(region)
        if not 0 < n_reg <= 2 * n_sil or np.count_nonzero(sil & region) >= 0.5 * n_reg:
            return f
        return self._shifted(f, _centroid_px(region) - _centroid_px(sil))

    @cached_property
    def _largest_px(self) -> float:
        """The largest piece's greatest width (image px at the middle of the boards)."""
        return max(float(np.ptp(s.footprint, axis=0).max()) for ss in self.shapes.values() for s in ss) / self.mm_per_px

    def _pieces_in_mask(self, frame: np.ndarray, score: np.ndarray, mask: np.ndarray, box, ch,
                        keep: np.ndarray | None = None) -> list[Candidate]:
        """Pose pieces on a region's mask (box px); ``keep``: outline points only where it is set
        (box px; a piece's soft shadow is in the mask but must not pull the fit)."""
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if mask.sum() < 10:
            return []
        if self.cards:
            # (a card's print may match the mat in places: gaps a tenth of a card wide are closed;
            # opening it again changes nothing)
            return self._cards_in(frame, score, self._card_region(mask), box, ch.threshold)
        # a piece is solid: fill the holes where it happens to look like the board behind it
        cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        mask = cv2.drawContours(np.zeros_like(mask), cnts, -1, 1, cv2.FILLED)
        n_lab, lab, stats, _ = components(mask)
        out = []
        min_px = self.min_area_px
        for li in range(1, n_lab):
            if stats[li, cv2.CC_STAT_AREA] < min_px:
                continue
            comp = (lab == li).astype(np.uint8)
            outlines = self._within_frame(outline_points(score, comp, ch.threshold, (box[0], box[1])), frame)
            if not outlines:
                continue
            pts = self._where_edge_shows(max(outlines, key=len), frame)
            if keep is not None:
                ij = np.round(pts - box[:2]).astype(int)
                ij = np.clip(ij, 0, [keep.shape[1] - 1, keep.shape[0] - 1])
                kept = keep[ij[:, 1], ij[:, 0]] > 0
                if kept.sum() >= MIN_OUTLINE_POINTS:
                    pts = pts[kept]
            got = self._fit_component(frame, pts, comp, box, float(stats[li, cv2.CC_STAT_AREA]))
            if (keep is None and len(got) == 1 and not _fits_well(got[0])
                    and self._achromatic_kind(got[0].fit.shape.kind) and got[0].fit.shape.roundish
                    and not got[0].fit.upright):
                # a grey piece on a grey board whose outline strays into it: placed by the change
                # it made (the other regions here are other pieces: board to it).  Not where the
                # region holds its soft shadow (``keep``): there the change is the shadow's too.
                # Only a roundish one lying down: the placing keeps the heading, which such a
                # piece's silhouette hardly shows (a long one posed turned would be moved along the
                # turn), and a piece standing on its end shows mostly its walls
                others = ((lab > 0) & (lab != li)).astype(np.uint8) if n_lab > 2 else None
                got[0].fit = self._placed_by_change(got[0].fit, score, box, others)
            if len(got) > 1:
                for c in got:
                    c.region = pts
            out.extend(got)
        return out

    def _within_frame(self, outlines: list[np.ndarray], frame: np.ndarray) -> list[np.ndarray]:
        """Outlines (image px) without their points by the photo's edge (``frame_edge_px``): where
        a piece runs out of the photo, the edge there is the photo's, not the piece's."""
        h, w = frame.shape[:2]
        out = []
        for pts in outlines:
            keep = ~by_photo_edge(pts, (w, h), self.cfg.frame_edge_px)
            if keep.sum() >= MIN_OUTLINE_POINTS:
                out.append(pts[keep])
        return out

    def _where_edge_shows(self, pts: np.ndarray, frame: np.ndarray) -> np.ndarray:
        """An outline (image px, in order round the region) without its points where the board
        behind the piece turns its colour and the piece hides it: across them the empty board shows
        an edge and the photo none (its colours ``faded_edge_px`` either side differ by less than
        ``faded_edge_frac`` of the outline's median contrast, and by less than half the board's).
        There the region ends, not the piece (a silver beam whose end lies over a white strip):
        its edge runs on unseen.  Kept whole where that would leave less than half of it, and in
        games whose pieces are all about as wide every way: a long piece's fit slides along its
        axis to such points, a round one's is held by the rest of its rim (PitRush's touching discs
        gained nothing, and a region of four lost its reading)."""
        if len(pts) < 2 * MIN_OUTLINE_POINTS or all(s.roundish for s, _ in self._shape_options()):
            return pts
        n = ring_normals(pts, 3)
        d = self.cfg.faded_edge_px

        def contrast(img: np.ndarray) -> np.ndarray:
            sides = []
            for sgn in (-1.0, 1.0):
                q = (pts + sgn * d * n).astype(np.float32)
                sides.append(cv2.remap(img, q[:, 0:1], q[:, 1:2], cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE).reshape(len(pts), -1).astype(np.float32))
            return np.linalg.norm(sides[1] - sides[0], axis=1)

        photo, board = contrast(frame), contrast(self.bg.full)
        faded = (photo < self.cfg.faded_edge_frac * float(np.median(photo))) & (board > 2.0 * photo)
        if (~faded).sum() < max(MIN_OUTLINE_POINTS, len(pts) // 2):
            return pts
        return pts[~faded]

    def _hysteresis(self, score: np.ndarray, thr: float) -> np.ndarray:
        """Foreground of a region (uint8): the pixels above the threshold, grown into the pixels
        above ``change_weak_frac`` of it that touch them (a grey piece on a grey board differs from
        it only in places; its weaker parts are kept when they hang together with the strong)."""
        return _touching((score > self.cfg.change_weak_frac * thr).astype(np.uint8), score > thr)

    def _shape_options(self) -> list[tuple[PieceShape, bool]]:
        """Every distinct piece geometry of the game (colour aside), beams also standing."""
        seen, opts = set(), []
        for ss in self.shapes.values():
            for s in ss:
                if s.kind in seen:
                    continue
                seen.add(s.kind)
                opts.append((s, False))
                if s.kind == "beam":
                    opts.append((s.upright(), True))
        return opts

    def _fit_component(self, frame, pts, comp, box, area_px: float) -> list[Candidate]:
        """Try the piece geometries (and counts) that the region's size and colour allow; keep the
        one whose outline fit and colour agree best.  A colour far from every colour that kind of
        piece comes in counts against it (a yellow figure is not a grey meteor)."""
        xy = self.cam.backproject(pts, 0.0).mean(axis=0)
        stacking = self.profile.data.pieces_stack  # (whether pieces may lie on one another)
        px_lab = self._pixels_lab(frame, comp, box)
        lab = _region_colour(px_lab)
        options = []
        for s, up in self._shape_options():
            ratio = area_px / max(self._expected_area_px(s, xy), 1.0)
            if up and ratio < 0.6:
                # a beam standing on its end whose walls are much the board's colour shows its top
                # alone (see _top_seen): the region's size is that of its top
                ratio = area_px / max(self._expected_area_px(s, xy, s.height_mm - self.cfg.top_seen_mm), 1.0)
            options.append((s, up, ratio, self._kind_colour_dist(s.kind, lab)))
        # a region whose colour fits no piece of a kind is not tried as that kind (unless nothing
        # fits); how well a colour fits is judged against the best fit (a light unlike the
        # calibration's pales every colour alike), on the scale of the colours' spread
        k = self._colour_spread()
        near = max(self.cfg.kind_colour_dist * k, min(o[3] for o in options) + 0.5 * self.cfg.kind_colour_dist * k)
        # ... and a region of clear hue all over is not a grey piece's, however far the colours of the
        # kinds that have one (a red scout under a warm lamp is far from the textbook red, and the
        # grey rock's distance grows only with the chroma beyond a grey's).  All over: a metal
        # piece mirrors the colours around it in places
        greys = [self._achromatic_kind(o[0].kind) for o in options]
        hued = any(greys) and float(median(np.hypot(px_lab[:, 1], px_lab[:, 2]))) > MAX_GREY_CHROMA
        plausible = [o for o, grey in zip(options, greys) if o[3] < near and not (hued and grey)]
        plausible = plausible or [o for o in options if o[3] < near]

        def on_one_another(fits) -> bool:
            """Pieces lying on one another where one piece stands per place: no reading."""
            return not stacking and _overlapping([f.footprint() for f in fits])

        def attempt(s, up, kk):
            # (one start where the quick pose found the outline's shape: its heading tells the
            # piece's two ends apart, and the fit starts near where it ends)
            if kk == 1:
                fits = [fit_one(s, self.cam, pts, 0.0, init=starts.get((s.kind, up)))]
            else:
                # (a reading whose pieces lie on one another from their first fits, where that is
                # no reading, is not fitted further: judged() refuses it)
                refused = None if stacking else on_one_another
                fits = fit_many([s] * kk, self.cam, pts, [0.0] * kk, [None] * kk, refused=refused)
                if kk == 2 and not s.round and not all(_fit_well(f) for f in fits):
                    # two long pieces side by side, their outline cut across by k-means: also split
                    # along its long axis, the better reading kept where they lie side by side
                    # (Pitch Fleet 10013: two beams side by side read as four standing on their
                    # ends); one piece's halves both give that piece (7026: a ship read as two)
                    along = fit_many([s] * kk, self.cam, pts, [0.0] * kk, [None] * kk, refused=refused,
                                     lengthwise=True)
                    if not _overlapping([f.footprint() for f in along]) and \
                            self._reading_cost(along, kk) < self._reading_cost(fits, kk):
                        fits = along
                if stacking and not up:
                    # pieces lying on one another: also started one on the other (beams standing on
                    # their ends do not lie on one another), the better reading kept
                    layers = fit_layers([s] * kk, self.cam, pts, [0.0] * kk, [None] * kk, self.cfg.fit_blur_px)
                    if layers is not None and self._reading_cost(layers, kk) < self._reading_cost(fits, kk):
                        fits = layers
            return judged(fits, [up] * kk)

        def judged(fits, ups):
            """A reading's cost and its pieces (named), or (inf, []) where it is no reading."""
            kk = len(fits)
            fits, ups = list(fits), list(ups)
            masks = [silhouette_mask(f.hulls(self.cam), box) for f in fits]
            # a piece of the reading of which no more than a sliver shows (the others cover it but
            # for a crescent of rim, blur and shade) is not seen: it may have soaked up a highlight
            # or a shadow, but neither its colour nor its being there can come from that crescent.
            # The least seen goes first (of two pieces on one spot, one stays, then seen whole).
            while len(fits) > 1:
                widths = [self._seen_mm(comp, masks, i, fits[i]) for i in range(len(fits))]
                worst = int(np.argmin(widths))
                if widths[worst] >= self.cfg.min_seen_mm:
                    break
                del fits[worst], masks[worst], ups[worst]
            seen = widths if len(fits) > 1 else [np.inf] * len(fits)  # (one piece left: seen whole)
            if on_one_another(fits):
                return np.inf, []  # one piece per place: pieces lying on one another are not a reading
            if _overlapping([f.footprint() for f, up in zip(fits, ups) if up]):
                return np.inf, []  # nor beams standing on their ends on one another
            # a piece changes the picture where it shows: one whose part that no other piece of the
            # reading covers lies mostly outside the region (beside two stations on plain board,
            # fitted to an arc of their outline) is not a reading's piece
            if kk > 1 and min(self._inside_frac(comp, masks, i) for i in range(len(masks))) < self.cfg.min_inside_frac:
                return np.inf, []
            cands = []
            for i, f in enumerate(fits):
                f.upright = ups[i]
                # a piece's colour from where it is alone: where two overlap, one hides the other
                own = comp & ~self._others(masks, i, comp) if len(fits) > 1 else comp
                if len(fits) > 1 and not f.shape.round:
                    # ... and from that part's core, where it has one: a part seen as a crescent is
                    # mostly rim, whose pixels blur its colour with its neighbours' (the board's,
                    # the piece lying on it: a red crescent under a blue ship reads purple).  Not a
                    # disc's: over a pit a disc's crescent is mostly the pit's shade or the rim of
                    # a disc under it, whose core names it wrong (see _by_colour; PitRush's held-out
                    # tables lost two discs and named a third wrong)
                    core = self._core(own & masks[i].astype(bool))
                    own = core if np.count_nonzero(core) >= MIN_COLOUR_PX else own
                cands.append(self._named(frame, f, own.astype(np.uint8), box))
                cands[-1].seen_mm = float(seen[i])
            scored = [c.fit for c in cands]
            if len(fits) < kk:
                # the outline the unseen pieces were fitted to is now the others' to explain
                scored = explained(scored, self.cam, pts)
            geo = self._reading_cost(scored, kk)
            colour = float(np.mean([c.colour_dist for c in cands]))
            return geo + _colour_cost(colour), cands

        best = None
        # one piece: the kinds whose size matches, best matches first
        # (up to twice its area: a thin piece's region grows much with blur and a soft shadow, and a
        # single piece must fit the whole outline well to be taken)
        singles = sorted((o for o in plausible if 0.6 < o[2] < self.cfg.single_area_max),
                         key=lambda o: abs(np.log(o[2])) + o[3] / 40.0)
        # the quick way first: a single piece, seen whole, posed from its outline's centroid, of the
        # kind (among those whose size matches) whose silhouette and colour agree best; the full fit
        # is left for pieces near a decision boundary (see detect())
        quick = None
        starts = {}  # a quick pose that fits the outline's shape but not its size: the full fit's start
        set_aside = []  # ... and the colour costs of those kinds
        # a region bigger than one disc may be a disc on another, where pieces lie on one another;
        # where they do not (Galaktico), a second piece beside it would show in the outline, which
        # the single piece's fit must follow all round: the extra area is its shadow
        for s, up, ratio, cdist in singles[:3]:
            if stacking and s.round and ratio > self.cfg.multi_area_ratio:
                continue
            f = fast_pose(s, self.cam, pts, 0.0)
            colour = _colour_cost(cdist)
            cost = f.cost + colour
            # (its inflation is free: a model of the wrong size fits a shrunk or grown outline
            # well, so the outline must lie within blur of the model's edge, as fit_one's prior has it)
            if f.rms_px >= 1.2 or f.inlier_frac <= 0.92:
                continue
            if abs(f.inflation_px) >= 2 * self.cfg.fit_blur_px:
                starts[s.kind, up] = (f.x, f.y, f.heading)
                set_aside.append(colour)
            elif quick is None or cost < quick[0]:
                f.upright = up
                f.refined = False
                quick = (cost, f, colour)
        if quick is not None and _quick_kind_taken(quick[2], set_aside):
            return self._top_seen([self._named(frame, quick[1], comp, box)], pts)
        oversized = False
        for s, up, ratio, _ in singles[:3]:
            res = attempt(s, up, 1)
            if best is None or res[0] < best[0]:
                best, oversized = res, stacking and s.round and ratio > self.cfg.multi_area_ratio
        good = best is not None and _fits_well(best[1][0])
        by_colour = []
        if not good or oversized:
            if stacking:
                # a piece lying on one of another kind (a ship on a beam whose ends poke out, of any
                # colour: the region's is mostly the upper one's): the pair posed one on the other, the
                # upper one on the whole outline
                lying = [o[0] for o in options if not o[1]]

                def take(fits) -> None:
                    """Take a reading of lying pieces where it beats the best so far and all are seen
                    (fewer of them are a reading of their own, tried as such)."""
                    nonlocal best
                    res = judged(fits, [False] * len(fits))
                    if len(res[1]) == len(fits) and (best is None or res[0] < best[0]):
                        best = res
                for s, s2 in [(s, s2) for s in lying for s2 in lying if s2.kind != s.kind]:
                    fits = fit_layers([s, s2], self.cam, pts, [0.0, 0.0], [None, None], self.cfg.fit_blur_px)
                    if fits is not None:
                        take(fits)
                # ... or side by side (a beam touching a ship): the outline split between them.  Which
                # part of the split goes to which kind is the split's toss-up (a ship fitted to the
                # beam's part and the beam to the ship's fits neither): where the pair does not fit
                # well, the other way round too
                for i, s in enumerate(lying):
                    for s2 in lying[i + 1:]:
                        if s2.kind != s.kind:
                            fits = fit_many([s, s2], self.cam, pts, [0.0, 0.0], [None, None])
                            take(fits)
                            if not all(_fit_well(f) for f in fits):
                                take(fit_many([s2, s], self.cam, pts, [0.0, 0.0], [None, None]))

                def held(lows: list[Fit]) -> None:
                    """Readings of the pieces ``lows`` held where they lay and one more that came to
                    rest on them, posed on the part of the outline they do not explain."""
                    d_low = np.min([low.off_edge_px(self.cam, pts) for low in lows], axis=0)
                    rest = pts[d_low > 2.0 * self.cfg.fit_blur_px]
                    if len(rest) < MIN_OUTLINE_POINTS:
                        return
                    on = max(low.base_mm + low.shape.height_mm for low in lows)  # (it lies on the highest)
                    for s in lying:
                        # (held where they lay: the newcomer's outline, which runs over them, would
                        # pull them.  The newcomer's part of the outline is partial and may mislead a
                        # heading taken from it: started every 45 degrees, the reading that explains
                        # the whole outline best kept)
                        cx, cy, _ = initial_pose(s, self.cam, rest, on)
                        tops = [fit_one(s, self.cam, rest, on, init=(cx, cy, float(th)))
                                for th in ([0] if s.round else range(0, 360, 45))]
                        top = min(tops, key=lambda t: self._reading_cost(
                            explained([*lows, t], self.cam, pts), len(lows) + 1))
                        mine = pts[top.off_edge_px(self.cam, pts) <= d_low]
                        if len(mine) >= MIN_OUTLINE_POINTS:
                            top = fit_one(s, self.cam, mine, on, init=(top.x, top.y, top.heading))
                        take(explained([*lows, top], self.cam, pts))
                # a piece that lay here in the last settled frame (the live referee's, after a shot)
                # most likely lies here still, under the one that came: the reading is also started
                # from where it lay, the newcomer on the part of the outline it does not explain;
                # where several lay here (a tower), from where they all lay too
                lows = []
                for b in self._lay_before_in(comp, box):
                    sb = next((o[0] for o in options if not o[1] and o[0].kind == b.fit.shape.kind), None)
                    if sb is not None:
                        lows.append(replace(b.fit, shape=sb))
                for low in lows:
                    held([low])
                if len(lows) > 1:
                    held(lows)
            if stacking:
                # two pieces of one kind and different colours lying on one another: each posed on
                # its colour's part of the region
                by_colour = self._by_colour(pts, comp, box, px_lab, lying, judged)
                for res in by_colour:
                    if best is None or res[0] < best[0]:
                        best = res
            # several touching pieces of one kind, every kind the region's size and colour allow,
            # the kinds whose area the region's fits best first (overlapping pieces show less than
            # their sum: a disc on another one).  Not only the best two: area alone often puts a
            # small kind first (two stations of 2.2 stations' area are also 7.8 scouts, nearer a
            # whole count), whose pieces each fit a part of the outline
            multis = sorted((o for o in plausible if o[2] >= self.cfg.multi_area_ratio),
                            key=lambda o: abs(np.log(o[2] / max(2, round(o[2])))) + o[3] / 40.0)
            # (as many as the area holds; where pieces lie on one another, rounded either way, fewer
            # first: overlaps, blur and soft shadows make the count of a region's area the least
            # sure — two ships touching one of two and a half.  Where one piece stands per place, its
            # kinds differ by size, and fewer of one kind read where a bigger one stands)
            def counts(s, ratio):
                near = {np.round(ratio)}
                if stacking:
                    near = {np.floor(ratio), np.ceil(ratio)}
                    # ... and the count of the region's area where each piece's silhouette is grown
                    # by the blur all round, as a region's outline is: a thin piece's region is much
                    # bigger than its silhouette (two beams side by side hold 3.3 beams' area)
                    grown = area_px / max(self._grown_area_px(s, xy), 1.0)
                    near |= {np.floor(grown), np.ceil(grown)}
                return sorted({int(np.clip(c, 2, 6)) for c in near})
            readings = [(s, up, k) for s, up, ratio, _ in multis for k in counts(s, ratio)]
            # the readings of fewer pieces first (the kinds in the order above within a count): many
            # small pieces each fit a part of the outline of a few big ones well (four beams standing
            # on their ends read two lying side by side), and five pieces take five times as long to
            # pose as one
            readings.sort(key=lambda r: r[2])
            for s, up, k in readings:
                res = attempt(s, up, k)
                if best is None or res[0] < best[0]:
                    best = res
                if res[1] and all(_fits_well(c) for c in res[1]):
                    break  # every piece of this reading fits its outline well: no other count or kind is tried
            # where the region shows two piece colours, a reading without a piece of one of them
            # leaves part of the photo unexplained: the colours' reading is taken (none of it weak)
            colours = {c.fit.shape.color for c in best[1]} if best is not None else set()
            sure = [r for r in by_colour if not any(_weak(c) for c in r[1])]
            if sure and not {c.fit.shape.color for c in sure[0][1]} <= colours:
                best = min(sure, key=lambda r: r[0])
            if stacking and best is not None:
                best = self._end_under(best, pts, lying, judged)
        if not stacking and best is not None and len(best[1]) > 1:
            best = self._other_kinds(best, pts, options, judged)
        if stacking and best is not None and best[1] and all(c.fit.shape.round for c in best[1]):
            best = self._one_more_disc(best, pts, comp, box, px_lab, judged)
        return [] if best is None else self._top_seen(self._slid(best[1], pts), pts)

    def _end_under(self, best, pts: np.ndarray, lying: list[PieceShape], judged):
        """Where pieces lie on one another: a reading of two pieces of one kind, one of them weak
        (unsure of its colour, or posed poorly), may be one piece and a ghost of it posed on what
        that piece does not explain: the end of a piece of another kind poking out from under it
        (Pitch Fleet 8032: a ship on a beam, read as the ship and a ghost ship of no clear colour,
        and the ship judged on the board).  fit_layers misses it: the upper piece posed alone on
        the whole outline is pulled by that end, and the lower one, posed on the rest alone, is
        drawn to centre on its end.  Here the sure piece is held (posed again on its part of the
        outline, lying on the other kind), and a piece of each other kind lying is posed where the
        two silhouettes together cover the region best (their union against the region's outline:
        the lower piece's hidden part costs nothing), started from the rest's centre and from
        halfway to the held piece's (it runs on under it) every 45 degrees; that pose, as it is and
        posed jointly with the held one, is taken where ``judged`` costs it less (colours count: a
        ghost's is far from its name)."""
        if len(best[1]) != 2:
            return best
        a, b = best[1]
        if a.fit.shape.kind != b.fit.shape.kind or _weak(a) == _weak(b):
            return best
        held = (b if _weak(a) else a).fit
        region = shapely.Polygon(pts).buffer(0)

        def seen(f: Fit) -> shapely.Geometry:
            """A pose's silhouette grown by its inflation, as its outline is."""
            return union([shapely.Polygon(h) for h in f.hulls(self.cam)]).buffer(f.inflation_px)

        def cost(v, model: Fit, upper: shapely.Geometry) -> float:
            """How far ``model`` posed at ``v`` (x, y mm, heading) and the upper piece's silhouette
            ``upper`` together are from covering the region: the area between them (px²)."""
            both = union([upper, seen(replace(model, x=float(v[0]), y=float(v[1]), heading=float(v[2])))])
            return float(shapely.area(shapely.symmetric_difference(region, both)))
        off = held.off_edge_px(self.cam, pts) > 2.0 * self.cfg.fit_blur_px
        if off.sum() < MIN_OUTLINE_POINTS or (~off).sum() < MIN_OUTLINE_POINTS:
            return best
        for s2 in lying:
            if s2.kind == held.shape.kind:
                continue
            # (posed again on its part of the outline as lying on the other one: posed on the
            # board, its outline is off the upper piece's by the parallax of the other's height)
            top = fit_one(held.shape, self.cam, pts[~off], s2.height_mm, init=(held.x, held.y, held.heading))
            rest = pts[top.off_edge_px(self.cam, pts) > 2.0 * self.cfg.fit_blur_px]
            if len(rest) < MIN_OUTLINE_POINTS:
                continue
            end = self.cam.backproject(rest, 0.0).mean(axis=0)
            starts = [end, (end + np.array([top.x, top.y])) / 2]
            # (posed where the two pieces' silhouettes together cover the region best, not by
            # fit_one on the outline's part the upper one leaves: the lower piece's own outline
            # is cut where it runs under the upper one, and a model fitted to a part of its
            # outline is drawn to centre on it)
            model = replace(fit_one(s2, self.cam, rest, 0.0), inflation_px=top.inflation_px)
            upper = seen(top)
            tries = sorted((cost(v, model, upper), tuple(v)) for v in
                           [(x, y, th) for x, y in starts for th in ([0] if s2.round else range(0, 360, 45))])
            found = [minimize(cost, np.array(v), args=(model, upper), method="Nelder-Mead",
                              options={"initial_simplex": np.array(v) + np.array([[0, 0, 0], [2, 0, 0], [0, 2, 0], [0, 0, 20]]),
                                       "xatol": 0.1, "fatol": 0.5, "maxiter": 120}) for _, v in tries[:3]]
            v = min(found, key=lambda r: r.fun).x
            low = replace(model, x=float(v[0]), y=float(v[1]), heading=float(v[2]))
            joint = fit_many([top.shape, s2], self.cam, pts, [s2.height_mm, 0.0], [None, None],
                             inits=[(top.x, top.y, top.heading), (low.x, low.y, low.heading)])
            for fits in (explained([top, low], self.cam, pts), joint):
                res = judged(fits, [False, False])
                if len(res[1]) == 2 and res[0] < best[0]:
                    best = res
        return best

    def _other_kinds(self, best, pts: np.ndarray, options: list, judged):
        """Where one piece stands per place (Galaktico), touching pieces are read as pieces of one
        kind at a time.  A piece of such a reading unsure of its colour's name and nearer a colour
        another kind comes in than any its own kind does (a grey meteor touching a yellow fighter,
        read as two fighters, the meteor a blue one) is posed again as each such kind on the part of
        the outline nearest it, then all of them together; the reading is taken where it costs less
        (``options``: _fit_component's kinds, ``judged``: its scoring)."""
        fits = [c.fit for c in best[1]]
        owner = np.argmin(np.stack([f.off_edge_px(self.cam, pts) for f in fits]), axis=0)
        k = len(fits)
        for i, c in enumerate(best[1]):
            if c.colour_lab is None or c.color_conf >= self.cfg.color_confidence_min:
                continue
            sel = pts[owner == i]
            if len(sel) < MIN_OUTLINE_POINTS:
                continue
            # (its colour_dist: how far its colour lies from its own kind's nearest)
            for s in {o[0].kind: o[0] for o in options if not o[1] and o[0].kind != c.fit.shape.kind}.values():
                if self._kind_colour_dist(s.kind, c.colour_lab) >= c.colour_dist:
                    continue
                f_new = fit_one(s, self.cam, sel, 0.0)
                shapes = [f.shape for f in fits]
                shapes[i] = s
                inits = [(f.x, f.y, f.heading) for f in fits]
                inits[i] = (f_new.x, f_new.y, f_new.heading)
                res = judged(fit_many(shapes, self.cam, pts, [0.0] * k, [None] * k, inits=inits), [False] * k)
                if len(res[1]) == k and res[0] < best[0]:
                    best = res
        return best

    def _one_more_disc(self, best, pts: np.ndarray, comp: np.ndarray, box, lab: np.ndarray, judged):
        """Discs lying on one another (PitRush towers): a colour that shows in a band at least
        ``min_seen_mm`` wide, clearly one of the discs' colours, where no disc of the reading of that
        colour lies, is a disc the reading missed (a white disc between two red ones adds little to
        the outline): the reading of one disc more is taken where that disc is named that colour
        and posed well, and no other disc of it is posed poorly.  ``lab``: the region's pixel
        colours (see :meth:`_pixels_lab`)."""
        cands = best[1]
        shape = cands[0].fit.shape
        names = self._colours_of(shape.kind)
        if len(names) < 2 or len(cands) >= 5:
            return best
        namer = self._namer(names)
        named, _ = self._named_pixels(comp, lab, namer)
        have = {c.fit.shape.color for c in cands}
        # (a colour counts from a fifth of a disc's area, or from a band min_seen_mm wide where that
        # is less: the same for every colour)
        least_px = min(self.cfg.split_colour_frac * self.min_area_px, self._band_px(cands[0].fit))
        found = []
        for ci, name in enumerate(namer.names):
            m = (named == ci).astype(np.uint8)
            if name in have:
                # of a colour the reading has: where none of its discs of that colour lies (a red disc
                # under a white one under a red one shows beside the top one)
                mine = [silhouette_mask(c.fit.hulls(self.cam), box) for c in cands if c.fit.shape.color == name]
                m &= ~cv2.dilate(np.bitwise_or.reduce(mine), np.ones((5, 5), np.uint8)).astype(bool)
            m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            if m.sum() < least_px:
                continue
            _, lab_i, stats, _ = components(m)
            patch = (lab_i == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))).astype(np.uint8)
            if self._widest_mm(patch, cands[0].fit) < self.cfg.min_seen_mm:
                continue
            # the missing disc posed on the region's outline where its colour shows inside it.  A
            # band between discs may meet the outline for a few points only, where the discs over
            # it bound it all but there: a circle of known radius through them, then posed again
            # with the others, tells (PitRush 7017: a blue disc's band, 2.5 mm wide, meets it for 8)
            along = self._along(pts, patch, box)
            if along.sum() < MIN_ARC_POINTS:
                continue
            # (started where its colour shows: a band between two discs meets the outline in two
            # short arcs on either side, whose own start may lie far off)
            ys, xs = np.nonzero(patch)
            at = self.cam.backproject(np.array([[xs.mean() + box[0], ys.mean() + box[1]]]), shape.height_mm / 2)[0]
            f_new = fit_one(shape, self.cam, pts[along], 0.0, init=(float(at[0]), float(at[1]), 0.0))
            # then all of them posed again together, each on the outline nearest it (a disc of the
            # reading may have been stretched over the missing one's outline)
            olds = [c.fit for c in cands]
            k = len(olds) + 1
            fits = fit_many([f.shape for f in olds] + [shape], self.cam, pts, [0.0] * k, [None] * k,
                            inits=[(f.x, f.y, f.heading) for f in olds] + [(f_new.x, f_new.y, 0.0)])
            res = judged(fits, [False] * k)
            # (its colour as the patch's pixels named it: the colour of its silhouette's own part is
            # less sure, a blur of its neighbours' edges on a band a few mm wide)
            if len(res[1]) == k and res[1][-1].fit.shape.color == name and res[1][-1].fit.rms_px <= 1.5 and \
                    not any(_weak(c) for c in res[1][:-1]):
                found.append(res)
        if found:
            return min(found, key=lambda r: r[0])
        return best

    def _band_px(self, f: Fit) -> float:
        """The area (image px) of the narrowest band of a round piece that counts as seen: the part
        of its footprint beyond a chord ``min_seen_mm`` in from its edge (a disc of which no more
        shows between the discs on it)."""
        r, w = f.shape.radius_mm, min(self.cfg.min_seen_mm, f.shape.radius_mm)
        mm2 = r * r * np.arccos((r - w) / r) - (r - w) * np.sqrt(2 * r * w - w * w)
        return float(mm2 / float(self.cam.mm_per_px_at(np.array([[f.x, f.y]]))[0]) ** 2)

    def _slid(self, cands: list[Candidate], pts: np.ndarray) -> list[Candidate]:
        """A long piece, alone in its region, posed poorly: where its outline shows one end but not
        the other (that end over a pale table, its end wall the board's colour), its fit lies in a
        long valley along its axis and may stop a few mm short of the end that shows.  It is also
        started a quarter of its length either way along its axis; the best fit is kept."""
        if len(cands) != 1 or cands[0].fit.shape.roundish or _fits_well(cands[0]):
            return cands
        f = cands[0].fit
        local = pose_points(f.shape.footprint, 0.0, 0.0, -f.shape.axis_deg)
        step = float(np.ptp(local[:, 0])) / 4
        a = np.radians(f.heading + f.shape.axis_deg)
        for d in (-step, step):
            g = fit_one(f.shape, self.cam, pts, f.base_mm, f.clip_below,
                        init=(f.x + d * np.cos(a), f.y + d * np.sin(a), f.heading))
            if g.cost < cands[0].fit.cost:
                g.upright = f.upright
                cands[0].fit = g
        return cands

    def _top_seen(self, cands: list[Candidate], pts: np.ndarray) -> list[Candidate]:
        """A piece standing on its end (a beam) whose walls are much the board's colour shows little
        but its top, seen a piece's height further from the nadir than its footprint: where the top
        alone, posed, fits the outline better, it is posed so."""
        if len(cands) != 1 or not cands[0].upright:
            return cands
        f = cands[0].fit
        top = fit_one(f.shape, self.cam, pts, f.base_mm, f.base_mm + f.shape.height_mm - self.cfg.top_seen_mm,
                      init=(f.x, f.y, f.heading))
        if top.cost < f.cost:
            top.upright = True
            cands[0].fit = top
        return cands

    def _by_colour(self, pts: np.ndarray, comp: np.ndarray, box, lab: np.ndarray, shapes: list[PieceShape],
                   judged) -> list:
        """Readings of a region as two pieces of one kind and of different colours, one on the other
        (a red ship on a blue one, a crescent of which shows).  The region's pixels (``lab``: their
        colours, see :meth:`_pixels_lab`) are named one by one; the upper piece is posed on the
        outline of its colour's part (the line where its colour meets the other's is its edge), the
        lower one on the region's outline away from it.  Each colour is tried on top; ``judged``
        scores the readings as _fit_component's others."""
        # (not discs: those lying on one another over a pit are told apart by where they lie, see
        # _pit_states; there the pit's shade and hidden discs' crescents pass for colours)
        shapes = [s for s in shapes if len(self._colours_of(s.kind)) > 1 and not s.round]
        if not shapes:
            return []
        inside = comp > 0
        out = []
        for s in shapes:
            namer = self._namer(self._colours_of(s.kind))
            named, d = self._named_pixels(comp, lab, namer)
            # the colours shown (the lower piece may show in several crescents): their largest patches
            present = []
            for ci in range(len(namer.names)):
                m = cv2.morphologyEx((named == ci).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
                n_lab, lab_i, stats, _ = components(m)
                if n_lab >= 2 and stats[1:, cv2.CC_STAT_AREA].sum() >= self.cfg.split_colour_frac * self.min_area_px:
                    present.append((ci, lab_i == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))))
            if len(present) != 2:
                continue
            for (top, core), (low, _) in (present, present[::-1]):
                # the upper piece's part: where its colour is the nearer of the two (the line where
                # they meet lies halfway through the blur between them), the patch of its core, its
                # holes (highlights, print) filled
                nearer = np.zeros(comp.shape, np.uint8)
                nearer[inside] = d[:, top] < d[:, low]
                n_lab, lab_i = components(nearer)[:2]
                patch = 1 + np.bincount(lab_i[core], minlength=n_lab)[1:].argmax()
                part = fill_holes((lab_i == patch).astype(np.uint8))
                cnts, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
                c = max(cnts, key=len).reshape(-1, 2).astype(np.float64)
                # (a contour runs through the part's edge pixels: its edge lies half a pixel further out)
                normal = ring_normals(c, 2)
                probe = np.clip(np.round(c + 1.5 * normal).astype(int), 0, [comp.shape[1] - 1, comp.shape[0] - 1])
                normal[part[probe[:, 1], probe[:, 0]] > 0] *= -1
                up_pts = c + 0.5 * normal + box[:2]
                # the upper piece's outline: the region's where it runs along it, else its colour's edge
                along = self._along(pts, part, box)
                dist_to_region = np.min(np.linalg.norm(up_pts[:, None, :] - pts[None, ::2, :], axis=2), axis=1)
                upper = np.concatenate([pts[along], up_pts[dist_to_region > 3.0]])
                lower = pts[~along]
                if len(upper) < MIN_OUTLINE_POINTS or len(lower) < MIN_OUTLINE_POINTS:
                    continue
                f_up = fit_one(s, self.cam, upper, 0.0)
                f_low = fit_one(s, self.cam, lower, 0.0)
                res = judged([f_up, f_low], [False, False])
                if len(res[1]) == 2 and {c.fit.shape.color for c in res[1]} == {namer.names[top], namer.names[low]}:
                    out.append(res)
        return out

    def _named_pixels(self, comp: np.ndarray, lab: np.ndarray, namer: ColorNamer) -> tuple[np.ndarray, np.ndarray]:
        """A region's pixels named by colour: the index of the name (box px; -1 outside ``comp`` and
        where no colour is clearly the pixel's: a highlight, a shadow, a blur), and each pixel's
        distances to the names (``lab``: the region's pixel colours, see :meth:`_pixels_lab`)."""
        d = namer.distances(lab)
        order = np.argsort(d, axis=1)
        rows = np.arange(len(d))
        sure = d[rows, order[:, 0]] < self.cfg.split_colour_ratio * d[rows, order[:, 1]]
        named = np.full(comp.shape, -1, np.int16)
        named[comp > 0] = np.where(sure, order[:, 0], -1)
        return named, d

    @staticmethod
    def _along(pts: np.ndarray, part: np.ndarray, box) -> np.ndarray:
        """Which outline points (image px) run along a part of a region (box px mask): within 2 px of it."""
        grown = cv2.dilate(part, np.ones((5, 5), np.uint8))
        ij = np.clip(np.round(pts - box[:2]).astype(int), 0, [part.shape[1] - 1, part.shape[0] - 1])
        return grown[ij[:, 1], ij[:, 0]] > 0

    def _widest_mm(self, m: np.ndarray, f: Fit) -> float:
        """Width (mm) of the widest part of a mask (box px, 0/1) near a posed piece: 0 for a strip
        one or two pixels wide (each of its pixels by its edge), which is as wide as blur and the
        change threshold shift an outline, whatever that is in mm (a webcam's photo of ~1 mm per
        pixel made such slivers 2 mm wide, a piece's part seen)."""
        d = float(cv2.distanceTransform(np.pad(m.astype(np.uint8), 1), cv2.DIST_L2, 3).max())
        if d <= 1.0:
            return 0.0
        return 2.0 * d * float(self.cam.mm_per_px_at(np.array([[f.x, f.y]]))[0])

    def _pixels_lab(self, frame, m, box) -> np.ndarray:
        """The white-balanced colours (CIE Lab, (n, 3)) of a region's pixels (``m``: box px), in
        the order numpy's mask indexing gives them."""
        crop = frame[box[1]:box[3], box[0]:box[2]]
        pix = np.clip(crop[m > 0].astype(np.float32) * self.gains.reshape(1, 3) / 255.0, 0, 1)
        return cv2.cvtColor(pix.reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3)

    def _lab_of(self, frame, m, box) -> np.ndarray:
        """White-balanced colour of a region (CIE Lab; see :func:`_region_colour`)."""
        return _region_colour(self._pixels_lab(frame, m, box))

    @staticmethod
    def _others(masks: list[np.ndarray], i: int, comp: np.ndarray) -> np.ndarray:
        """Where the pieces of a reading other than the i-th one lie (bool)."""
        others = np.zeros(comp.shape, bool)
        for k, m in enumerate(masks):
            if k != i:
                others |= m.astype(bool)
        return others

    def _core(self, m: np.ndarray) -> np.ndarray:
        """A mask (bool) without its rim as wide as blur shifts an outline (``fit_blur_px``, one
        pixel at least): where the photo shows a piece's colour unmixed with its neighbours'."""
        r = max(1, round(self.cfg.fit_blur_px))
        return cv2.erode(m.astype(np.uint8), np.ones((2 * r + 1, 2 * r + 1), np.uint8)).astype(bool)

    def _uncovered(self, comp: np.ndarray, masks: list[np.ndarray], i: int) -> np.ndarray:
        """The part of the i-th piece of a reading that no other one covers (bool, box px)."""
        return masks[i].astype(bool) & ~self._others(masks, i, comp)

    def _inside_frac(self, comp: np.ndarray, masks: list[np.ndarray], i: int) -> float:
        """The share of the part of the i-th piece of a reading that no other one covers lying
        within the region ``comp`` (box px), leaving out its rim as wide as blur shifts an outline
        (where that leaves any of it): a region's edge lies anywhere in that rim, and a piece
        seen as a thin crescent is mostly rim."""
        own = self._uncovered(comp, masks, i)
        core = self._core(own)
        if core.any():
            own = core
        return np.count_nonzero(comp.astype(bool) & own) / max(np.count_nonzero(own), 1)

    def _seen_mm(self, comp: np.ndarray, masks: list[np.ndarray], i: int, f: Fit) -> float:
        """Width (mm) of the widest part of the i-th piece of a reading that no other one covers."""
        return self._widest_mm(comp & self._uncovered(comp, masks, i), f)

    def _colour_spread(self) -> float:
        """How close the game's piece colours lie to one another on this table, against the textbook
        colours (1 without colours learned; 0.5 where the two nearest learned ones
        lie half as far apart as the two nearest textbook ones: a lamp that turned red towards
        magenta and grey towards blue).  Colour tolerances are on that scale."""
        names = [n for n in self.shapes if n in PROTOTYPES_RGB]
        if len(names) < 2 or not self._learned_colours():
            return 1.0

        def nearest_two(namer: ColorNamer) -> float:
            d = np.array([namer.distances(p) for p in namer.protos])
            return float(np.min(d + np.diag(np.full(len(d), np.inf))))
        return float(np.clip(nearest_two(self._namer(names)) / max(nearest_two(ColorNamer(names)), 1e-6), 0.1, 1.0))

    def _achromatic_kind(self, kind: str) -> bool:
        """Whether every colour a kind of piece comes in is a grey (black, grey, silver, white)."""
        namer = self._namer(self._colours_of(kind))
        return bool(namer.names) and all(achromatic(n, p) for n, p in zip(namer.names, namer.protos))

    def _kind_colour_dist(self, kind: str, lab: np.ndarray) -> float:
        """How far a colour (CIE Lab) lies from the nearest colour a kind of piece comes in."""
        return float(np.min(self._namer(self._colours_of(kind)).distances(lab)))

    @cached_property
    def _colours_taught(self) -> bool:
        """Whether the photos can teach a colour of this game's pieces: some kind comes in a named
        colour (:data:`vision.colors.PROTOTYPES_RGB`; cards come face up or down, which
        :func:`vision.colors.learn_colours` has nothing to learn of)."""
        return any(c in PROTOTYPES_RGB for c in self.shapes)

    def _colours_of(self, kind: str) -> list[str]:
        """The colours the profile's pieces of ``kind`` come in."""
        return [c for c, ss in self.shapes.items() if any(s.kind == kind for s in ss)]

    def _learned_colours(self) -> dict[str, list[float]]:
        """The pieces' colours learned at calibration ('tableref calibrate pieces') where there are
        some, else, while it judges again the regions it named unsurely, those the photos judged
        so far showed (see :meth:`detect`); maybe none."""
        return (self.cal.data.appearance or {}).get("colors") or (self.photo_colours if self._by_photo_colours else {})

    def _namer(self, names: list[str]) -> ColorNamer:
        """Names among ``names``, by the colours learned (see :meth:`_learned_colours`), else by
        textbook ones."""
        return ColorNamer(names, self._learned_colours())

    def _named(self, frame: np.ndarray, f: Fit, comp: np.ndarray, box) -> Candidate:
        """Name a posed piece's colour from the pixels of its silhouette."""
        m = silhouette_mask(f.hulls(self.cam), box) & comp
        colour_lab = self._lab_of(frame, m if m.sum() >= MIN_COLOUR_PX else comp, box)
        name, conf, dist = self._naming(f.shape.kind, colour_lab)
        spec_shape = next(s for s in self.shapes[name] if s.kind == f.shape.kind)
        f.shape = spec_shape.upright() if f.upright else spec_shape
        c = Candidate(f, conf, upright=f.upright)
        c.colour_dist = dist
        c.colour_lab = colour_lab
        return c

    def _shows_colour(self, c: Candidate, box, gains: np.ndarray) -> bool:
        """Whether a named piece shows a colour of its own there where it lies (``box``: image px).
        One of a kind that comes in hues differs from the board under it (the empty reference as
        this frame's light shows it, ``gains``: see :meth:`Background.fit_gains`) by
        ``board_colour_dist``.  A grey one's mottled colour may average to a grey print's (its
        texture shows it), but it must be its kind's grey, within ``kind_colour_dist`` (as
        :meth:`_by_piece` asks of a piece the colour of a shadow beside another: Pitch Fleet 7211,
        the walls of a beam standing on its end posed apart from it as a lying beam, 48 from its
        silver)."""
        if c.colour_lab is None:
            return True
        if self._achromatic_kind(c.fit.shape.kind):
            return c.colour_dist <= self.cfg.kind_colour_dist * self._colour_spread()
        m = silhouette_mask(c.fit.hulls(self.cam), box)
        if not m.any():
            return False
        ref = apply_gains(self.bg.full[box[1]:box[3], box[0]:box[2]], gains).astype(np.uint8)
        board = self._lab_of(ref, m, (0, 0, box[2] - box[0], box[3] - box[1]))
        return float(np.linalg.norm(c.colour_lab - board)) >= self.cfg.board_colour_dist * self._colour_spread()

    def _renamed(self, frame: np.ndarray, c: Candidate, comp: np.ndarray, box) -> None:
        """Name a posed piece's colour again, from the pixels of its silhouette within ``comp``
        (box px): :meth:`_named` gives its fit the named colour's shape, and the candidate takes
        that naming's confidence, distance and colour."""
        got = self._named(frame, c.fit, comp, box)
        c.color_conf, c.colour_dist, c.colour_lab = got.color_conf, got.colour_dist, got.colour_lab

    def _naming(self, kind: str, lab: np.ndarray) -> tuple[str, float, float]:
        """A colour (CIE Lab) named among those a kind of piece comes in: the name, how sure (0..1:
        how much nearer than the next name; for a kind of one colour, how near it) and how far."""
        namer = self._namer(self._colours_of(kind))
        d = namer.distances(lab)
        i = int(np.argmin(d))
        second = np.partition(d, 1)[1] if len(d) > 1 else d[i] + 50.0
        conf = float(np.clip((second - d[i]) / (second + 1e-6), 0, 1)) if len(d) > 1 else float(np.clip(1 - d[i] / 60, 0, 1))
        return namer.names[i], conf, float(d[i])

    def _named_in_photo(self, cands: list[Candidate]) -> None:
        """Name again, by this photo's own colours, the pieces whose colour was unsure.

        A lamp's glare or a cast the white balance left may put a piece's colour between two
        prototypes (a black disc under glare as grey as between black and white) while the other
        pieces of the photo, under the same light, are named surely.  Where at least
        ``photo_colour_min`` pieces of a kind were named a colour with confidence
        (``color_confidence_min``), their median colour stands for that colour in this photo; an
        unsure piece whose two nearest colours both have one is named by those."""
        sure: dict[tuple[str, str], list[np.ndarray]] = {}
        for c in cands:
            if c.colour_lab is not None and not c.hidden and c.color_conf >= self.cfg.color_confidence_min:
                sure.setdefault((c.fit.shape.kind, c.fit.shape.color), []).append(c.colour_lab)
        learned: dict[str, dict[str, np.ndarray]] = {}  # kind -> colour -> the photo's median colour
        for c in cands:
            if c.colour_lab is None or c.hidden or c.color_conf >= self.cfg.color_confidence_min:
                continue
            kind = c.fit.shape.kind
            names = self._colours_of(kind)
            if len(names) < 2:
                continue
            if kind not in learned:
                learned[kind] = {n: np.median(np.array(sure[(kind, n)]), axis=0) for n in names
                                 if len(sure.get((kind, n), ())) >= self.cfg.photo_colour_min}
            here = learned[kind]
            namer = self._namer(names)
            # (only between two colours the photo shows surely: one of them learned here, the other
            # not, would tip the choice by the light alone)
            two = [namer.names[k] for k in np.argsort(namer.distances(c.colour_lab))[:2]]
            if not all(n in here for n in two):
                continue
            protos = {n: p for n, p in zip(namer.names, namer.protos)}
            protos.update(here)
            name, conf = ColorNamer(list(protos), protos).name_lab(c.colour_lab)
            if name != c.fit.shape.color:
                shape = next(s_ for s_ in self.shapes[name] if s_.kind == kind)
                c.fit.shape = shape.upright() if c.fit.upright else shape
                c.note = (c.note + "; " if c.note else "") + (
                    f"named {name} by this photo's {name} pieces (unsure by the calibration's colours)")
            c.color_conf = conf

    @staticmethod
    def _sized_family(cands: list[Candidate]) -> list[Candidate]:
        """The pieces a photo's inflation is learned from (see :meth:`_sized_in_photo`): seen, lying,
        posed on an outline, of a round footprint."""
        return [c for c in cands if not c.hidden and not c.upright and c.fit.points is not None
                and (c.fit.shape.round or c.fit.shape.round_footprint)]

    def _photo_inflation(self, fam: list[Candidate]) -> float | None:
        """The photo's inflation (px): the median of the pieces ``fam`` (its :meth:`_sized_family`;
        see :meth:`_sized_in_photo`), None where fewer than ``size_photo_min`` tell it."""
        if len(fam) < self.cfg.size_photo_min:
            return None
        return float(np.median([c.fit.inflation_px for c in fam]))

    def _sized_in_photo(self, cands: list[Candidate]) -> None:
        """Tell apart again, by this photo's own outlines, pieces of one colour that differ only in
        size (Galaktico's figures: round bases 4 mm apart).

        A pose's inflation (how far the outline lies outside the model's silhouette, px) is the same
        for every piece of a photo to a pixel or so: blur, the change threshold and soft shadows
        grow or shrink them all alike.  A kind is chosen by its fit's cost, which counts the
        inflation from 0; where a photo's outlines are all grown by a pixel or two, the next bigger
        kind shrunk to the outline costs less than the right one, and one whose outline a shadow
        or glare grows (or a neighbour's edge cuts) is read a kind bigger (smaller).  So the
        photo's inflation is learned from its pieces of a round footprint (the median, of at least
        ``size_photo_min`` of them), and a piece whose inflation lies more than
        ``size_dev_px`` from it is posed again, on its outline, as every kind of its colour of a
        round footprint smaller (its outline inside the silhouette) or bigger (outside) than its
        own, counting the inflation from the photo's: the cheapest is kept."""
        fam = self._sized_family(cands)
        m = self._photo_inflation(fam)
        if m is None:
            return
        for c in fam:
            f = c.fit
            if abs(f.inflation_px - m) <= self.cfg.size_dev_px:
                continue
            # (an outline lying inside the model's silhouette, against the photo's, is a smaller
            # piece's; one lying outside it a bigger one's)
            smaller = f.inflation_px < m
            others = [s for s in self.shapes.get(f.shape.color, [])
                      if s.kind != f.shape.kind and (s.round or s.round_footprint)
                      and (s.radius_mm < f.shape.radius_mm) == smaller and s.radius_mm != f.shape.radius_mm]
            if not others:
                continue
            # (like against like: a piece posed the quick way, not fitted, costs more than the fitted
            # other kinds for no fault of its kind; it is weighed as fitted, and kept as it was)
            # (kept with the pose: a piece taken over from the frame before, after a shot, is asked
            # again, and the poses do not depend on the photo's inflation, only the choice does)
            kinds = ([] if f.refined else [f.shape]) + others
            key = (tuple(id(s) for s in kinds), id(f.shape), id(f.points), f.x, f.y, f.heading, f.base_mm,
                   f.clip_below)
            posed = [replace(g) for g in f._kept("_sized_posed", key, (tuple(kinds), f.shape, f.points), lambda: [
                fit_one(s, self.cam, f.points, f.base_mm, f.clip_below, init=(f.x, f.y, f.heading))
                for s in kinds])]
            own = f if f.refined else posed.pop(0)
            ranked = sorted([own] + posed, key=lambda g: g.cost_from(m))
            best = ranked[0]
            if best is not own:
                c.note = (c.note + "; " if c.note else "") + (
                    f"read {best.shape.kind}, not {f.shape.kind}: its outline lies {f.inflation_px - m:+.1f} px "
                    f"off the {f.shape.kind}'s against this photo's pieces")
                c.fit = best
            # an outline lying between two kinds' sizes fits both alike: which kind it is, a person
            # confirms (Galaktico 7140: a yellow destroyer whose outline lies 1.7 px inside a station's
            # and 1.8 px outside a destroyer's, against this photo's, read a station silently)
            rival = next((g for g in ranked[1:] if g.shape.kind != best.shape.kind), None)
            if rival is not None:
                c.kind_gap = rival.cost_from(m) - best.cost_from(m)
                if c.kind_gap < self.cfg.kind_doubt_cost:
                    c.note = (c.note + "; " if c.note else "") + (
                        f"{best.shape.kind} or {rival.shape.kind}: the two fit its outline within "
                        f"{c.kind_gap:.2f} of each other at this photo's size")

    def _cards_in(self, frame, score, mask, box, thr) -> list[Candidate]:
        outlines = self._within_frame(outline_points(score, mask, thr, (box[0], box[1])), frame)
        shapes = {s.color: s for ss in self.shapes.values() for s in ss if s.kind == "card"}
        if not shapes:
            return []
        shape = next(iter(shapes.values()))
        out = []
        for pts in outlines:
            for f in self._card_fits(shape, pts, box):
                ncc, flip = self._back_ncc(frame, f)
                if ncc > 0.5 * self.cfg.card_back_ncc:
                    # (maybe) a back: posed on its print, which may also show it better than the
                    # outline's pose did (a degree or a few mm off spoils the correlation)
                    f, aligned = self._align_back(frame, f, flip)
                    ncc = max(ncc, aligned)
                else:
                    aligned = -1.0
                if not self._card_like(f) and aligned < self.cfg.card_back_ncc:
                    # a pose no card's outline fits is kept only where a card back's print aligns to
                    # it: a dark back on a grey mat is scored down like a shadow all round its dark
                    # border, and its outline is then the gold frame a card's tenth in (ASF CCG 7073)
                    continue
                thr = self.cfg.card_back_ncc
                face = "face_down" if ncc > thr else "face_up"
                conf = float(np.clip(abs(ncc - thr) * 2.5, 0, 1)) if self.card_back is not None else 0.5
                f.shape = shapes.get(face, shape)
                out.append(Candidate(f, conf, state=face))
        return out

    def _card_fits(self, shape: PieceShape, pts: np.ndarray, box) -> list[Fit]:
        """Pose cards on one outline (image px): as many as its area holds (cards lying side by side
        or overlapping make one region), the reading with one card fewer kept when it fits better;
        none on an outline smaller than a card can show, nor where the outline is not a card's.
        Several cards start from a split of the region's area (k-means in table mm): the outline
        alone does not say where one card ends and the next begins.  A reading costs more by the
        share of its cards' area that lies outside the outline (``card_spill_frac``): more cards
        fit a ragged outline better, laid where the photo shows the mat (one card read as two
        crosswise, overhanging it on both sides).  A reading that lays some card's core partly off
        the outline's region (:meth:`_cores_on`) is taken only where every reading does: a card
        whose grey border and dark picture match the mat, beside another, was read as two cards
        turned across it on one another, one of them 39 mm off (ASF CCG 9914).  The reading's every
        pose is returned, card-like or not (:meth:`_card_like`: the caller keeps the others where a
        card back's print aligns to them)."""
        xy = self.cam.backproject(pts, 0.0).mean(axis=0)
        # (the hull: an outline's points run with gaps where no edge was found)
        hull = cv2.convexHull(pts.astype(np.float32))
        ratio = cv2.contourArea(hull) / max(self._expected_area_px(shape, xy), 1.0)
        if ratio < self.cfg.min_piece_area_frac:
            return []  # a fragment (print that differs from the mat), not a card
        if ratio < self.cfg.multi_area_ratio:
            return [self._one_card(shape, pts)]
        region = np.zeros((box[3] - box[1], box[2] - box[0]), np.uint8)
        cv2.fillPoly(region, [np.round(hull.reshape(-1, 2) - box[:2]).astype(np.int32)], 1)
        step = max(1, int(round(0.2 * self._card_gap_px)))  # ~50 samples across a card
        ys, xs = np.nonzero(region[::step, ::step])
        area_mm = self.cam.backproject(np.column_stack([xs, ys]) * step + np.asarray(box[:2], float), 0.0)
        # the outline's region, grown by as much as blur shifts an outline (box px)
        r = int(np.ceil(2 * self.cfg.fit_blur_px)) + 1
        inside = cv2.dilate(cv2.fillPoly(np.zeros_like(region), [np.round(pts - box[:2]).astype(np.int32)], 1),
                            np.ones((2 * r + 1, 2 * r + 1), np.uint8))
        best = None
        for k in sorted({max(1, int(round(ratio)) - 1), max(2, int(round(ratio)))}):
            if k == 1:
                fits = [self._one_card(shape, pts)]
            else:
                fits = fit_many([shape] * k, self.cam, pts, [0.0] * k, [None] * k,
                                inits=self._area_starts(shape, area_mm, k))
            # (cards where the photo shows the mat: a reading that lays them there costs more)
            laid = np.zeros_like(region)
            for f in fits:
                laid |= silhouette_mask(f.hulls(self.cam), box)
            spill = np.count_nonzero(laid & (1 - inside)) / max(np.count_nonzero(laid), 1)
            cost = self._reading_cost(fits, k) * (1 + spill / self.cfg.card_spill_frac)
            short = not self._cores_on(fits, inside, box)
            if best is None or (short, cost) < best[0]:
                best = ((short, cost), fits)
        return best[1]

    def _cores_on(self, fits: list[Fit], region: np.ndarray, box) -> bool:
        """Whether each card of a reading lays its core on ``region`` (uint8, box px) for
        ``card_cover_min`` of it at least (see :meth:`_covered`)."""
        return all(self._covered(f, region, box) >= self.cfg.card_cover_min for f in fits)

    def _one_card(self, shape: PieceShape, pts: np.ndarray) -> Fit:
        """One card posed on an outline (image px), started along the outline's main axis and, where
        that fits poorly and the outline runs to the photo's edge, across it, kept if it fits well
        there: the part of a card running out of the photo may be wider than long."""
        f = fit_one(shape, self.cam, pts, 0.0)
        # (the outline's points by the edge were left out: it runs to the edge if it ends a few px off)
        if _fit_well(f) or not by_photo_edge(pts, self.cam.image_size, self.cfg.frame_edge_px + 3.0).any():
            return f
        x0, y0, ths = initial_pose(shape, self.cam, pts, 0.0)
        g = fit_one(shape, self.cam, pts, 0.0, init=(x0, y0, ths[0] + 90.0))
        return g if _fit_well(g) and g.cost < f.cost else f

    def _reading_cost(self, fits: list[Fit], k: int) -> float:
        """How badly a reading of ``k`` pieces (``fits``: those left of it) fits its outline: its
        pieces' mean cost, and a share more per piece beyond one (more pieces fit any outline
        better)."""
        return float(np.mean([f.cost for f in fits])) * (1 + self.cfg.multi_piece_cost * (k - 1))

    def _card_like(self, f: Fit) -> bool:
        """Whether a card pose's outline lies on the card's edge, give or take a tenth of a card, for
        a third of it at least (a pose shrunk to part of a card's print is not a card)."""
        return abs(f.inflation_px) <= self._card_gap_px and f.inlier_frac >= 1 / 3

    @staticmethod
    def _area_starts(shape: PieceShape, xy_mm: np.ndarray, k: int) -> list[tuple[float, float, float]]:
        """Starting poses of k pieces of one shape covering a region (its points in table mm):
        the k-means centres, each heading along its part's main axis."""
        labels, centres = split_points(xy_mm, k)
        starts = []
        for i in range(k):
            part = xy_mm[labels == i]
            th = (main_axis(part)[0] - shape.axis_deg) % 360.0 if len(part) >= 3 else 0.0
            starts.append((float(centres[i][0]), float(centres[i][1]), float(th)))
        return starts

    def _back_ncc(self, frame: np.ndarray, f: Fit) -> tuple[float, bool]:
        """How well a posed card's top correlates with the profile's picture of the card back (-1
        without one), and whether the back lies turned by 180 degrees against the fit's heading."""
        if self.card_back is None:
            return -1.0, False
        w, h = self._card_mm
        top = self._card_top(frame, f, np.arange(w) - (w - 1) / 2, np.arange(h) - (h - 1) / 2)
        # both blurred a little: a fit a degree or a millimetre off must not hide the back's fine print
        top = cv2.GaussianBlur(top, (0, 0), self.cfg.card_face_blur_mm)
        scores = []
        for flip in (False, True):  # a card lies either way round
            ref = self._card_back_blurred[::-1, ::-1] if flip else self._card_back_blurred
            a, b = top - top.mean(), ref - ref.mean()
            scores.append(float((a * b).sum() / (np.sqrt((a * a).sum() * (b * b).sum()) + 1e-6)))
        return max(scores), scores[1] > scores[0]

    def _card_top(self, frame: np.ndarray, f: Fit, xs_mm: np.ndarray, ys_mm: np.ndarray) -> np.ndarray:
        """The photo (grey, float32) sampled on a grid over a posed card's top (card mm: rows at
        ``ys_mm``, columns at ``xs_mm``, both increasing); only those pixels are made grey, not the
        whole frame.  Every eighth grid point is projected through the camera and the others
        interpolated between them: the lens and the perspective bend the grid by less than a
        hundredth of a px over eight of its steps, and projecting them all cost a millisecond a card."""
        def nodes(n):  # every eighth index, and the last
            return np.unique(np.r_[np.arange(0, n, 8), n - 1])

        def weights(n, at):  # (n, len(at)): linear interpolation from the values at indices ``at`` to all n
            return np.stack([np.interp(np.arange(n), at, e) for e in np.eye(len(at))], axis=1)
        ix, iy = nodes(len(xs_mm)), nodes(len(ys_mm))
        gx, gy = np.meshgrid(np.asarray(xs_mm, float)[ix], np.asarray(ys_mm, float)[iy])
        px = self.cam.project_plane(pose_points(np.column_stack([gx.ravel(), gy.ravel()]), f.x, f.y, f.heading),
                                    f.base_mm + f.shape.height_mm).reshape(len(iy), len(ix), 2)
        wy, wx = weights(len(ys_mm), iy), weights(len(xs_mm), ix)
        mx = (wy @ px[..., 0] @ wx.T).astype(np.float32)
        my = (wy @ px[..., 1] @ wx.T).astype(np.float32)
        top = cv2.remap(frame, mx, my, cv2.INTER_LINEAR)
        return (cv2.cvtColor(top, cv2.COLOR_BGR2GRAY) if top.ndim == 3 else top).astype(np.float32)

    def _align_back(self, frame: np.ndarray, f: Fit, flip: bool) -> tuple[Fit, float]:
        """A face-down card posed on its back's print: the photo of the card's top (and a margin
        around it) is aligned to the profile's picture of the back by OpenCV's ECC (a rigid motion in
        the card's plane).  Its outline may be unsure (a dark border on a dark mat, a soft contact
        shadow); its print is not.  Kept only when the alignment correlates as well as a card back
        must and moves the card less than the margin; the alignment's correlation (-1: failed)."""
        s, m = self.cfg.card_register_px_per_mm, self.cfg.card_register_margin_mm
        tpl = self._back_template[::-1, ::-1].copy() if flip else self._back_template
        th, tw = tpl.shape
        w, h = tw + int(round(2 * m * s)), th + int(round(2 * m * s))
        top = self._card_top(frame, f, (np.arange(w) + 0.5) / s - tw / (2 * s) - m,
                             (np.arange(h) + 0.5) / s - th / (2 * s) - m)
        warp = np.array([[1, 0, m * s], [0, 1, m * s]], np.float32)
        try:
            # coarse to fine: the print's big shapes first (a start a few mm and degrees off), then its detail
            for blur in (2.0 * s, 0.5 * s):
                a, b = cv2.GaussianBlur(tpl, (0, 0), blur), cv2.GaussianBlur(top, (0, 0), blur)
                cc, warp = cv2.findTransformECC(a, b, warp, cv2.MOTION_EUCLIDEAN,
                                                (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-4), None, 1)
        except cv2.error:
            return f, -1.0
        centre = warp @ np.array([tw / 2 - 0.5, th / 2 - 0.5, 1.0])
        local = (centre + 0.5) / s - [tw / (2 * s) + m, th / (2 * s) + m]
        turn = float(np.degrees(np.arctan2(warp[1, 0], warp[0, 0])))
        if cc < self.cfg.card_back_ncc or np.hypot(*local) > m or abs(turn) > self.cfg.card_register_max_turn_deg:
            return f, -1.0
        x, y = pose_points(local[None], f.x, f.y, f.heading)[0]
        return replace(f, x=float(x), y=float(y), heading=(f.heading + turn) % 360.0), float(cc)

    def _suppress(self, cands: list[Candidate], frame: np.ndarray | None = None) -> list[Candidate]:
        """Drop a piece posed twice (see below), and weak candidates lying mostly on a stronger piece
        (a highlight, a printed detail; a faint one, found as a piece the colour of a shadow, is weak
        and weighed last) — any such candidate where pieces do not stack; two strong overlapping
        pieces are a stack: the one whose outline fits best lies on top."""
        if len(cands) < 2:
            return cands
        polys = [c.fit.footprint_polygon() for c in cands]
        touching: list[set[int]] = [set() for _ in cands]  # the footprints each one touches
        for a, b in shapely.STRtree(polys).query(polys, predicate="intersects").T:
            if a != b:
                touching[a].add(int(b))
        # (where one piece stands per place, a piece posed off its size, its outline further than
        # ``size_dev_px`` from the photo's, is weighed after those posed at theirs: Galaktico 7123's
        # sliver of change between three figures, posed as a scout 4.9 px inside its outline, was
        # surer of its colour than the destroyer under it and took its place)
        fam = [] if self.profile.data.pieces_stack else self._sized_family(cands)
        m = self._photo_inflation(fam)
        sized = {id(c) for c in fam} if m is not None else set()
        off = [id(c) in sized and abs(c.fit.inflation_px - m) > self.cfg.size_dev_px for c in cands]
        order = sorted(range(len(cands)),
                       key=lambda i: (cands[i].faint, off[i], -cands[i].color_conf * cands[i].fit.inlier_frac))
        kept: list[int] = []
        for i in order:
            near = [k for k in kept if k in touching[i]]
            # the same piece posed twice (from two regions of change whose boxes both hold it): a
            # piece of the same kind that reaches out of a stronger one by less than a piece must
            # show to be seen (see _fit_component) is that piece
            # ... but not two of different colours posed together on one region: a reading of it
            # (a disc in a pit whose crescent shows under the disc stacked on it, PitRush 10008)
            same = [k for k in near if cands[k].fit.shape.kind == cands[i].fit.shape.kind
                    and not (self._posed_together(cands[i], cands[k])
                             and cands[i].fit.shape.color != cands[k].fit.shape.color)]
            if same and min(_reach_out(polys[i], polys[k]) for k in same) < self.cfg.min_seen_mm:
                continue
            weak = _weak(cands[i])
            clash = [k for k in near if _overlap(polys[i], polys[k]) > POSE_OVERLAP_FRAC]
            if clash and weak and self.profile.data.pieces_stack and not cands[i].faint and \
                    all(self._unlike(cands[i], cands[k]) or self._read_with(cands[i], cands[k])
                        or self._needed_with(cands[i], cands[k]) for k in clash):
                # posed poorly, or unsure which colour it is, but surely not of the colour of the
                # pieces it lies on or under: a piece of its own (under another one, posed on the
                # crescent of it that shows; or on one, only a shaded rim of it its own part) ...
                # or sure of its colour, and posed with one of that colour on one region, as the
                # region's reading: a disc under one of its colour, its crescent showing, posed
                # poorly as on the board (PitRush 10013: a red disc on a red one in a pit)
                weak = False
            if clash and (weak or not self.profile.data.pieces_stack):
                continue
            kept.append(i)
        out = [cands[i] for i in sorted(kept)]
        if self.pieces_lie_on_pieces:
            out = self._stacks(out, frame)
        return out

    @staticmethod
    def _posed_together(a: Candidate, b: Candidate) -> bool:
        """Whether ``a`` and ``b`` were posed together on one region, as its reading (see
        :meth:`_pieces_in_mask`)."""
        return a.region is not None and a.region is b.region

    @classmethod
    def _read_with(cls, a: Candidate, b: Candidate) -> bool:
        """Whether ``a``, sure of its colour, was posed with ``b``, of that colour, on one region
        (the two are that region's reading, not a piece and a detail of another posed apart)."""
        return cls._posed_together(a, b) and a.fit.shape.color == b.fit.shape.color and a.color_conf >= 0.5

    def _needed_with(self, a: Candidate, b: Candidate) -> bool:
        """Whether ``a`` was posed with ``b`` on one region, as its reading, and ``b`` alone does not
        explain their outlines (it does not lie on ``b``'s edge nearly all round, see
        :func:`_fit_well`): a piece the region's outline needs, not a detail of ``b``'s."""
        if not self._posed_together(a, b) or a.fit.points is None or b.fit.points is None:
            return False
        return not _fit_well(b.fit.scored_on(self.cam, np.vstack([a.fit.points, b.fit.points])))

    def _unlike(self, a: Candidate, b: Candidate) -> bool:
        """Whether the colour ``a`` shows is surely not ``b``'s: nearer ``a``'s colour than ``b``'s by
        ``unlike_colour_ratio`` (a piece of one colour shaded or lit unlike the calibration may lie
        between two colours, but not between its own and a far one)."""
        ca, cb = a.fit.shape.color, b.fit.shape.color
        if ca == cb or a.colour_lab is None:
            return False
        d = self._namer([ca, cb]).distances(a.colour_lab)
        return bool(d[0] < self.cfg.unlike_colour_ratio * d[1])

    def _stacks(self, cands: list[Candidate], frame: np.ndarray | None = None) -> list[Candidate]:
        """Pitch Fleet: of two pieces whose footprints overlap, one lies on the other (and is
        outbound): the one whose colour the photo shows where they overlap (see :meth:`_upper`),
        else the one whose edge shows there (:meth:`_upper_by_edges`), else the better posed."""
        polys = [c.fit.footprint_polygon() for c in cands]
        for i in range(len(cands)):
            for k in range(i + 1, len(cands)):
                if _overlap(polys[i], polys[k]) > 0.15:
                    top, low = (i, k) if cands[i].fit.rms_px <= cands[k].fit.rms_px else (k, i)
                    u = None
                    if frame is not None:
                        u = self._on_top(frame, cands[i], cands[k])
                        if u is not None:
                            top, low = (i, k) if u == 0 else (k, i)
                    # ... but one of them that lay there before the shot, the other not, is under it
                    # (the photo's cues are weak where the two are alike)
                    was = [self._lay_there(cands[i]), self._lay_there(cands[k])]
                    if was[0] != was[1]:
                        top, low = (k, i) if was[0] else (i, k)
                    # two of one colour, in one photo: their colours cannot tell which is on top, and
                    # their edges are a weak cue (a ship right over another): no margin, confirmed
                    # by a person (the one on top is outbound, the other may score a zone)
                    doubt = ""
                    if was[0] == was[1] and cands[i].fit.shape.color == cands[k].fit.shape.color:
                        f0 = cands[i].fit.shape
                        doubt = (f"which of two {f0.color} {f0.kind}s lies on the other the photo tells "
                                 + ("by their edges alone" if u is not None else "not (the better posed taken on top)")
                                 + ": confirm")
                    f = cands[top].fit
                    base = cands[low].fit.base_mm + cands[low].fit.shape.height_mm
                    f2 = self._refit(f, base, None, (f.x, f.y, f.heading))
                    if cands[top].region is not None and cands[top].region is cands[low].region and \
                            not (_fit_well(f2) and _fit_well(cands[low].fit)):
                        f_low, f2 = self._pair_to_region(cands[low].fit, f2, cands[top].region)
                        cands[low] = replace(cands[low], fit=f_low)
                    cands[top] = Candidate(f2, cands[top].color_conf, "on_piece", upright=cands[top].upright)
                    if doubt:
                        cands[top].pit_margin, cands[top].note = 0.0, doubt
                        cands[low] = replace(cands[low], pit_margin=0.0, note=doubt)
        return cands

    def _lay_before_in(self, comp: np.ndarray, box) -> list[Candidate]:
        """The pieces lying flat in the last settled frame this detector judged whose centre falls
        within the region ``comp`` (box px; none without a previous frame)."""
        out = []
        for b in self._lay_before:
            if b.upright:
                continue
            x, y = np.round(self.cam.project_plane(np.array([[b.fit.x, b.fit.y]]), b.fit.base_mm)[0]
                            - np.asarray(box[:2])).astype(int)
            if 0 <= y < comp.shape[0] and 0 <= x < comp.shape[1] and comp[y, x]:
                out.append(b)
        return out

    def _lay_there(self, c: Candidate) -> bool:
        """Whether a piece of ``c``'s kind and colour lay as ``c`` lies in the last settled frame
        this detector judged (see :meth:`_lay_as`)."""
        return self._lay_as(c) is not None

    def _lay_as(self, c: Candidate) -> Candidate | None:
        """The piece of ``c``'s kind and colour that lay as ``c`` lies (its centre within
        ``stack_before_mm``, turned by no more than ``stack_before_deg``) in the last settled frame
        this detector judged, the nearest; None (always without a previous frame)."""
        f = c.fit
        per = f.shape.period_deg
        best, best_d = None, np.inf
        for b in self._lay_before:
            if b.fit.shape.kind != f.shape.kind or b.fit.shape.color != f.shape.color:
                continue
            d = np.hypot(b.fit.x - f.x, b.fit.y - f.y)
            if d > self.cfg.stack_before_mm or d >= best_d:
                continue
            if f.shape.round or abs((b.fit.heading - f.heading + per / 2) % per - per / 2) <= self.cfg.stack_before_deg:
                best, best_d = b, d
        return best

    def _pair_to_region(self, low: Fit, top: Fit, region) -> tuple[Fit, Fit]:
        """Two pieces lying one on the other, posed again together so that their silhouettes cover
        the region they were found in (its outline ``region``, image px), and no more.  Each was
        fitted to the part of the outline nearest it; where they are alike (a ship on a ship of its
        colour) a wrong pair of poses explains the outline as well, its silhouettes sticking out of
        the region where no outline runs.  Tried where either is posed poorly (a pair whose outline
        lies on both models' edges all round is taken as fitted); taken where it covers the region
        better by ``pair_cover_gain`` of its area."""
        S = 2  # (rasterised at twice the photo's resolution: a smoother cost)
        off = np.floor(region.min(axis=0)) - 10
        w, h = (np.ceil(region.max(axis=0)) - off + 10).astype(int)

        def raster(poly: np.ndarray, m: np.ndarray) -> None:
            q = ((poly - off + 0.5) * S - 0.5) * 16
            cv2.fillPoly(m, [np.round(q).astype(np.int32)], 1, cv2.LINE_8, 4)

        seen = np.zeros((h * S, w * S), np.uint8)
        raster(region, seen)
        seen = seen.astype(bool)
        area = max(int(seen.sum()), 1)

        def miss(p) -> float:
            m = np.zeros((h * S, w * S), np.uint8)
            for f, (x, y, hd) in ((low, p[0:3]), (top, p[3:6])):
                for hull in silhouette_hulls(f.shape, self.cam, x, y, hd, f.base_mm, f.clip_below):
                    raster(hull, m)
            return np.count_nonzero(m.astype(bool) ^ seen) / area

        p0 = np.array([low.x, low.y, low.heading, top.x, top.y, top.heading])
        # started as posed and turned: the outline fit may have found the wrong pair of headings
        turns = (0.0, 40.0, -40.0, 80.0, -80.0, 180.0)
        starts = sorted((p0 + [0, 0, a, 0, 0, b] for a in turns for b in turns), key=miss)[:3]
        step = np.array([1.0, 1.0, 8.0, 1.0, 1.0, 8.0])
        best = None
        for q in starts:
            simplex = np.vstack([q] + [q + np.eye(6)[i] * step[i] for i in range(6)])
            res = minimize(miss, q, method="Nelder-Mead",
                           options={"initial_simplex": simplex, "xatol": 0.05, "fatol": 1e-4, "maxfev": 600})
            if best is None or res.fun < best.fun:
                best = res
        if not best.fun < miss(p0) - self.cfg.pair_cover_gain:
            return low, top
        p = best.x
        fits = [replace(low, x=float(p[0]), y=float(p[1]), heading=float(p[2]) % 360.0),
                replace(top, x=float(p[3]), y=float(p[4]), heading=float(p[5]) % 360.0)]
        fl, ft = explained(fits, self.cam, np.vstack([low.points, top.points]))
        return fl, ft

    # --------------------------------------------------------------------------- elevations
    def _resolve_elevations(self, cands: list[Candidate], frame: np.ndarray | None = None) -> list[Candidate]:
        """Re-pose pieces whose place says they cannot lie on the board surface."""
        support = self.cal.support
        out = []
        for c in cands:
            f = c.fit
            if c.state in ("face_up", "face_down"):
                if not shapely.contains_xy(support, f.x, f.y):
                    f = self._refit(f, -self.T, None, (f.x, f.y, f.heading))
                out.append(replace(c, fit=f))
                continue
            if not shapely.contains_xy(support, f.x, f.y):
                # off the boards: it lies on the table, lower by the board's thickness
                f2 = self._refit(f, -self.T, None, (f.x, f.y, f.heading))
                if not shapely.contains_xy(support, f2.x, f2.y):
                    out.append(Candidate(f2, c.color_conf, "off_board", upright=c.upright, seen_mm=c.seen_mm))
                    continue
            out.append(c)
        if len(self.pits):
            out = self._pit_states(out, frame)
        return out

    def _pit_states(self, cands: list[Candidate], frame: np.ndarray | None = None) -> list[Candidate]:
        """PitRush: in a pit, stacked on a disc in a pit, hanging on an empty pit's edge, or surface.
        ``frame``: the photo, to tell which of two discs over a pit lies on the other."""
        occupied: dict[int, int] = {}
        states = []
        for i, c in enumerate(cands):
            f = c.fit
            if c.state == "off_board":
                states.append(("off_board", None, np.inf, f))
                continue
            d = np.linalg.norm(self.pit_c - [f.x, f.y], axis=1)
            j = int(np.argmin(d))
            r_disc = f.shape.radius_mm
            rp = float(self.pit_r[j])
            depth = float(self.pits[j].depth_mm)
            overlap = (r_disc + rp) - d[j]
            if d[j] < rp - r_disc + 2.5:
                # cannot rest on the surface here: in the pit, or on a disc in it
                states.append(("sunk", j, rp - r_disc + 2.5 - d[j], f))
            elif overlap > 0:
                states.append(("over", j, overlap, f))
            else:
                states.append(("surface", None, -overlap, f))
        # of the discs sunk at a pit, the one nearest its centre is in it (a disc in a pit has a
        # millimetre or two of play); another one there lies on it
        for i, (st, j, mg, f) in enumerate(states):
            if st == "sunk":
                k = occupied.get(j)
                if k is None or np.hypot(f.x - self.pit_c[j][0], f.y - self.pit_c[j][1]) < np.hypot(
                        states[k][3].x - self.pit_c[j][0], states[k][3].y - self.pit_c[j][1]):
                    occupied[j] = i
        # ... unless of two discs of different colours there, the photo shows that one on top: where
        # two discs overlap, the colour seen is the upper one's (the lower one, a crescent beside
        # it, may have been posed further out than it lies)
        if frame is not None:
            for j in list(occupied):
                at = [k for k, o in enumerate(states) if o[1] == j and o[0] in ("sunk", "over")]
                if len(at) == 2:
                    top = self._on_top(frame, cands[at[0]], cands[at[1]], edges=False)
                    if top is not None:
                        occupied[j] = at[1 - top]
        # the pits no disc is seen in where one is hidden (see _hidden_in)
        hidden_in = self._hidden_in(states, occupied)
        # two discs lying flat where no pit is under them (on the surface, hanging on a pit's edge, off
        # the boards) do not overlap: a disc lies on another only over a pit.  Two posed so are one
        # disc posed twice (its shaded side read as a disc of another colour, or its outline as two
        # discs a few mm apart): the one whose pose explains both outlines best stays
        twice = self._posed_twice(cands, states, set(occupied) | set(hidden_in))
        if twice:
            return self._pit_states([c for k, c in enumerate(cands) if k not in twice], frame)
        # a disc in a pit lies within its play of the pit's centre (the pit's radius less the disc's).
        # Posed in the pit, the lowest disc seen over it that lies further out cannot be in it: it
        # lies on a disc hidden in the pit, and the ones on it a disc higher.  (One right over the
        # hidden disc looks like one in the pit: one photo cannot tell, the tracker can, see
        # vision.track.)  Not so a disc whose pose does not say where it lies (see _posed_where)
        posed_in: dict[int, Fit] = {}
        on_hidden: dict[int, float] = {}  # pit -> by how much its lowest disc seen lies beyond the play
        notes: dict[int, str] = {}        # pit -> what the reading of a disc on a hidden one rests on
        for j, i in occupied.items():
            f = states[i][3]
            posed_in[j] = f_in = self._refit(f, -float(self.pits[j].depth_mm), 0.0, (f.x, f.y, 0.0))
            play = float(self.pit_r[j]) - f.shape.radius_mm
            off = float(np.hypot(f_in.x - self.pit_c[j][0], f_in.y - self.pit_c[j][1])) - play
            if off > self.cfg.pit_play_tol_mm and self._posed_where(cands[i]):
                on_hidden[j] = off - self.cfg.pit_play_tol_mm
            else:
                # in play, one that lay on the pit's disc in the last settled frame lies on it still:
                # the disc that came over them hides the one in the pit (nothing sinks into a pit
                # under a disc lying in it)
                # (a disc held where it lay, see _fit_component's held(), is its own nearest: 0 mm)
                was = self._lay_as(cands[i])
                if was is not None and was.state == "stacked" and was.pit == self.pits[j].id:
                    on_hidden[j] = was.pit_margin
                    notes[j] = was.note
        # discs lying over a pit's disc: how many of them each lies on (a tower's)
        tier = self._tiers(cands, states, occupied, frame)
        out = []
        for i, (st, j, mg, f) in enumerate(states):
            c = cands[i]
            pit_id = self.pits[j].id if j is not None else None
            depth = float(self.pits[j].depth_mm) if j is not None else 0.0
            if st in ("sunk", "over") and occupied.get(j) == i:
                if j in on_hidden:
                    on, under = self._on_hidden(c, j, on_hidden[j])
                    on.note = notes.get(j, "")
                    out += [on, under]
                else:
                    # (from one photo a disc in a pit and one lying right over a disc it hides there
                    # look alike, their outlines within a pixel of each other: said so where no frame
                    # before tells)
                    out.append(Candidate(posed_in[j], c.color_conf, "in_pit", pit_id, max(mg, 5.0), seen_mm=c.seen_mm,
                                         note=IN_PIT_OR_ON_HIDDEN if self._first_look else ""))
            elif st in ("sunk", "over") and j in occupied:
                base = -depth + (1 + tier.get(i, 0) + (1 if j in on_hidden else 0)) * f.shape.height_mm
                f2 = self._refit(f, base, None, (f.x, f.y, 0.0))
                # (it lies on the pit's disc as far as that one is seen: of one that shows only a sliver,
                # barely ``min_seen_mm`` wide, the reading hangs on that sliver)
                under = cands[occupied[j]].seen_mm
                under_mg = under - self.cfg.min_seen_mm
                out.append(Candidate(f2, c.color_conf, "stacked", pit_id, min(mg, under_mg), seen_mm=c.seen_mm,
                                     note=f"on a disc of which {under:.1f} mm shows" if under_mg < mg else ""))
            elif st == "over":
                # a disc hanging on a pit's edge has its weight over the board (its centre at least
                # the pit's radius from the pit's centre, or it tips in); one flat further in lies
                # higher: on a stack of discs in the pit, hidden under it
                inside = self._inside_mm(f, j)
                if inside > 0:
                    out += self._on_hidden(c, j, inside)
                elif j in hidden_in:
                    # (as far from flipping as it covers the pit, or as the disc hidden there is sure)
                    out += self._on_hidden(c, j, min(mg, hidden_in[j]))
                else:
                    out.append(Candidate(f, c.color_conf, "hanging", pit_id, mg, seen_mm=c.seen_mm))
            elif st == "sunk":
                out.append(Candidate(f, c.color_conf, "in_pit", pit_id, mg, seen_mm=c.seen_mm))
            else:
                out.append(Candidate(f, c.color_conf, st, None, mg, seen_mm=c.seen_mm))
        # one disc hidden in a pit (several discs lying over it rest on one stack), none where one is seen
        seen_in = {c.pit for c in out if c.state == "in_pit" and not c.hidden}
        first = {}
        for k, c in enumerate(out):
            if c.hidden:
                first.setdefault(c.pit, k)
        return [c for k, c in enumerate(out) if not c.hidden or (c.pit not in seen_in and first[c.pit] == k)]

    def _hidden_in(self, states: list, occupied: dict[int, int]) -> dict[int, float]:
        """The pits no disc is seen in (``states`` and ``occupied`` as in :meth:`_pit_states`) over
        which a disc lies further in than one hanging on its edge can (:meth:`_inside_mm`): a disc
        is hidden in each, and the other discs over it lie on that one, not on its edge (PitRush
        7187, 7242, 7297: of a tower whose discs all lie off the pit's centre, the one furthest out
        read hanging, silently).  Pit -> how far in the furthest in lies (how sure the hidden disc is)."""
        hidden: dict[int, float] = {}
        for st, j, _, f in states:
            inside = self._inside_mm(f, j) if st == "over" and j not in occupied else 0.0
            if inside > 0:
                hidden[j] = max(hidden.get(j, 0.0), inside)
        return hidden

    def _inside_mm(self, f: Fit, j: int) -> float:
        """How far (mm) a disc's centre lies inside pit ``j`` beyond where one hanging on its edge
        can (the pit's radius less ``pit_play_tol_mm``): above 0, it does not hang there."""
        return float(self.pit_r[j]) - self.cfg.pit_play_tol_mm - float(np.hypot(f.x - self.pit_c[j][0],
                                                                                f.y - self.pit_c[j][1]))

    @staticmethod
    def _posed_where(c: Candidate) -> bool:
        """Whether a disc's pose says where it lies to within a pit's play (to tell that the lowest
        disc over a pit lies beyond it, on a hidden one): not where it is weak (see :func:`_weak`).
        A disc in a pit of which a crescent shows beside the disc on it, unsure of its colour in the
        pit's shade, is posed on that crescent, a few mm off towards it; read as lying on a hidden
        disc, it added that disc (a false one) and raised the tower by one."""
        return not _weak(c)

    def _posed_twice(self, cands: list[Candidate], states: list, stacks: set[int]) -> set[int]:
        """Of discs lying flat apart from the pits' stacks (``states`` as in :meth:`_pit_states`: on the
        surface, hanging on the edge of a pit no disc is in, off the boards; ``stacks``: the pits a
        disc is in, seen or hidden), those whose footprints
        overlap by more than a pose's error (``POSE_OVERLAP_FRAC``): one disc posed twice.  The one
        whose pose explains their outlines together best stays (the other was posed on part of
        them: a shaded side, an arc); the others, to drop, are returned."""
        flat = []
        for i, (st, j, _, f) in enumerate(states):
            if st in ("surface", "off_board") or (st == "over" and j not in stacks and self._inside_mm(f, j) <= 0):
                flat.append(i)
        if len(flat) < 2:
            return set()
        # (the stronger first, as _suppress weighs them: where no outline is kept, it stays)
        flat.sort(key=lambda i: (cands[i].faint, -cands[i].color_conf * cands[i].fit.inlier_frac))

        def cost(i: int, group: list[int]) -> float:
            pts = [cands[k].fit.points for k in group if cands[k].fit.points is not None]
            if not pts:
                return float(flat.index(i))
            return cands[i].fit.scored_on(self.cam, np.vstack(pts)).cost

        kept: list[int] = []
        for i in flat:
            f = cands[i].fit
            clash = [k for k in kept if np.hypot(f.x - cands[k].fit.x, f.y - cands[k].fit.y) <
                     f.shape.radius_mm + cands[k].fit.shape.radius_mm and
                     _overlap(f.footprint_polygon(), cands[k].fit.footprint_polygon()) > POSE_OVERLAP_FRAC]
            if clash:
                group = clash + [i]
                best = min(group, key=lambda k: cost(k, group))
                kept = [k for k in kept if k not in clash or k == best]
                if best != i:
                    continue
            kept.append(i)
        return set(flat) - set(kept)

    def _tiers(self, cands: list[Candidate], states: list, occupied: dict[int, int],
               frame: np.ndarray | None) -> dict[int, int]:
        """Of the discs lying over a pit's disc (``states`` as in :meth:`_pit_states`), how many
        others each lies on: where two of them overlap, the photo shows which is on top (its
        colour where they overlap, else its edge running on over the other); a disc lies one tier
        above the highest it lies on.  A tower's top disc is posed at its height (posed one disc
        up, a disc three up lay 2-3 mm off by parallax).  In play, the order the discs came in
        (the last settled frame's) wins over the photo.  None known without the photo."""
        if frame is None:
            return {}
        on: dict[int, set[int]] = {}
        for j, low in occupied.items():
            over = [i for i, o in enumerate(states) if o[1] == j and o[0] in ("sunk", "over") and i != low]
            for a_, b_ in [(a_, b_) for n, a_ in enumerate(over) for b_ in over[n + 1:]]:
                if not _overlapping([states[a_][3].footprint(), states[b_][3].footprint()], 0.05):
                    continue
                top = self._on_top(frame, cands[a_], cands[b_])
                # ... but in play, of two discs one of which lay there in the last settled frame and
                # the other not, the one that came lies on it; of two that both lay there, the one
                # that lay higher is on top still (the photo's cues are weak where one disc lies
                # right over the other, and a disc does not slip in under one lying on a stack)
                was = [self._lay_as(cands[a_]), self._lay_as(cands[b_])]
                if (was[0] is None) != (was[1] is None):
                    top = 1 if was[0] is not None else 0
                elif was[0] is not None and was[0] is not was[1] and was[0].fit.base_mm != was[1].fit.base_mm:
                    top = 0 if was[0].fit.base_mm > was[1].fit.base_mm else 1
                if top is not None:
                    upper, lower = (a_, b_) if top == 0 else (b_, a_)
                    on.setdefault(upper, set()).add(lower)
        tier: dict[int, int] = {}

        def level(i: int, seen: frozenset = frozenset()) -> int:
            if i not in tier:
                below = [k for k in on.get(i, ()) if k not in seen]
                tier[i] = 1 + max((level(k, seen | {i}) for k in below), default=-1)
            return tier[i]

        for i in on:
            level(i)
        return tier

    @staticmethod
    def _hulls_box(frame: np.ndarray, hulls: list[np.ndarray], grow: int) -> tuple[int, int, int, int]:
        """The box (image px, clipped to the frame) of silhouette hulls, grown by ``grow`` px."""
        allp = np.concatenate(hulls)
        return _grown_box(frame, (int(allp[:, 0].min()), int(allp[:, 1].min()),
                                  int(allp[:, 0].max()) + 1, int(allp[:, 1].max()) + 1), grow)

    def _upper(self, frame: np.ndarray, a: Candidate, b: Candidate) -> int | None:
        """Which of two overlapping pieces of different colours lies on the other (0: ``a``, 1:
        ``b``): the one whose colour the photo shows where their silhouettes overlap.  None when
        they are of one colour, overlap too little, or the colour there is like neither."""
        ca, cb = a.fit.shape.color, b.fit.shape.color
        if ca == cb or a.hidden or b.hidden:
            return None
        ha, hb = a.fit.hulls(self.cam), b.fit.hulls(self.cam)
        box = self._hulls_box(frame, ha + hb, 0)
        if box[2] - box[0] < 4 or box[3] - box[1] < 4:
            return None
        both = cv2.erode(silhouette_mask(ha, box) & silhouette_mask(hb, box), np.ones((5, 5), np.uint8))
        if np.count_nonzero(both) < 20:
            return None
        namer = self._namer([ca, cb])
        d = namer.distances(self._lab_of(frame, both, box))
        if min(d) > 0.7 * max(d):
            return None
        return int(namer.names[int(np.argmin(d))] == cb)

    def _upper_by_edges(self, frame: np.ndarray, a: Candidate, b: Candidate) -> int | None:
        """Which of two overlapping pieces lies on the other (0: ``a``, 1: ``b``), by whose edge the
        photo shows where they overlap: the upper piece's outline runs on over the lower one (its
        wall, its shadow on it), the lower one's is hidden under the upper one's top.  The median
        colour step across each one's outline, and its upper layers' (a ship's raised deck), within
        the other's silhouette (a line of the top's print crossing it steps along it, not across);
        None where either runs there too short or neither step is clearly the greater."""
        ha, hb = a.fit.hulls(self.cam), b.fit.hulls(self.cam)
        box = self._hulls_box(frame, ha + hb, 5)  # (room for the steps sampled outside the outlines)
        if box[2] - box[0] < 8 or box[3] - box[1] < 8:
            return None
        crop = cv2.GaussianBlur(frame[box[1]:box[3], box[0]:box[2]].astype(np.float32), (0, 0), 1.0)
        sil = [union([shapely.Polygon(q) for q in hh]).buffer(0) for hh in (ha, hb)]
        # (a piece's silhouette is one patch; should its hulls' union come apart, its convex hull)
        sil = [q if q.geom_type == "Polygon" else q.convex_hull for q in sil]
        if any(q.geom_type != "Polygon" for q in sil):
            return None
        step = []
        for me, other, hh in ((sil[0], sil[1], ha), (sil[1], sil[0], hb)):
            # its outline, and those of its upper layers (a ship's raised deck): the upper piece's
            # are seen whole, the lower one's run under the upper one's top
            ps, ns = [], []
            for r in [me.exterior] + [shapely.Polygon(h).exterior for h in hh[1:] if len(h) >= 3]:
                ring = shapely.get_coordinates(shapely.segmentize(r, 1.0))[:-1]
                ps.append(ring)
                ns.append(ring_normals(ring, 1))  # (either way round: both sides are sampled)
            ring, normal = np.concatenate(ps), np.concatenate(ns)
            inner = other.buffer(-3.0)
            keep = shapely.contains_xy(inner, ring[:, 0], ring[:, 1]) if not inner.is_empty else np.zeros(len(ring), bool)
            if keep.sum() < 10:
                return None
            p, n = ring[keep] - box[:2], normal[keep]
            sides = []
            for q in (p + 2.0 * n, p - 2.0 * n):
                ij = np.clip(np.round(q).astype(int), 0, [crop.shape[1] - 1, crop.shape[0] - 1])
                sides.append(crop[ij[:, 1], ij[:, 0]])
            step.append(float(np.median(np.linalg.norm(sides[0] - sides[1], axis=1))))
        if max(step) < self.cfg.stack_edge_ratio * min(step):
            return None
        return int(np.argmax(step))

    def _came_unseen(self, cands: list[Candidate], frame: np.ndarray, posed: list, ch,
                     previous: FrameResult) -> list[Candidate]:
        """PitRush, in play: the shot changed the picture (``posed``: the boxes of the regions of
        change posed again, image px) but no piece is seen that did not lie as it lies in the last
        settled frame.  Where it changed at just one disc seen in a pit, alone there, which lay in
        that pit (of its colour, within ``stack_before_mm``) and looks as it did (its mean colour
        within the change threshold of the last frame's: not another colour misnamed), the disc
        that came lies right over it, of its colour, and hides it: the one seen is posed one disc
        up and the one under it is hidden.  One photo cannot tell the two apart, nor can their
        outline: the verdict has no margin and goes to a person to confirm.  (A disc knocked off
        the table that only nudged the one in the pit reads the same; the review shows it.)"""
        if not posed or previous._small is None or len(cands) > len(previous._cands) or \
                any(not c.hidden and not self._lay_there(c) for c in cands):
            return cands  # (more pieces than before, seen or inferred: the one that came is among them)
        boxes = [self._region_box(frame, b) for b in posed]

        def in_posed(c: Candidate) -> bool:
            x, y = self.cam.project_plane(np.array([[c.fit.x, c.fit.y]]), c.fit.base_mm)[0]
            return any(b[0] <= x < b[2] and b[1] <= y < b[3] for b in boxes)

        sc = self.bg.scale

        def lay_alone_as(i: int) -> Candidate | None:
            """The disc it lay as, where it lies alone in its pit (no disc seen on it, none inferred
            under it), a disc of its colour lay in that pit, and it has the colour it had then (at
            the change map's scale, where the frame before is kept: not another colour misnamed);
            else None."""
            was = self._lay_as(cands[i])
            if was is None or was.state != "in_pit" or was.pit != cands[i].pit or \
                    any(c.pit == cands[i].pit for k, c in enumerate(cands) if k != i):
                return None
            hulls = [h * sc for h in cands[i].fit.hulls(self.cam)]
            box = self._hulls_box(ch.small, hulls, 0)
            m = cv2.erode(silhouette_mask(hulls, box), np.ones((3, 3), np.uint8)) > 0
            if np.count_nonzero(m) < 6:
                return None
            now, then = (im[box[1]:box[3], box[0]:box[2]][m].mean(axis=0) for im in (ch.small, previous._small))
            return was if float(np.max(np.abs(now - then))) < ch.threshold else None

        at = [i for i, c in enumerate(cands) if c.state == "in_pit" and not c.hidden and in_posed(c)]
        if len(at) > 1:
            # several discs in pits where the picture changed (camera noise re-poses regions too):
            # the one whose rim changed, if only one did
            at = [i for i in at if self._rim_changed(cands[i], ch, previous) >= self.cfg.came_rim_frac]
        was = lay_alone_as(at[0]) if len(at) == 1 else None
        if was is None:
            return cands
        i = at[0]
        j = [p.id for p in self.pits].index(cands[i].pit)
        on, under = self._on_hidden(cands[i], j, 0.0)
        colour = cands[i].fit.shape.color
        on.note = (f"the shot changed the {colour} disc in {was.pit} and brought no disc seen: one of its colour "
                   "came right over it (one photo cannot tell them apart: confirm)")
        under.note = f"hidden under the {colour} disc that came right over it"
        return cands[:i] + [on, under] + cands[i + 1:]

    def _rim_changed(self, c: Candidate, ch: ChangeMap, previous: FrameResult) -> float:
        """The share of a disc's rim (its outline as posed, 2 px either way at the change map's scale)
        whose picture changed since the frame before (``previous``; ``ch``: this frame's change map):
        a disc come right over it steps its outline out by its height's parallax and casts its
        shadow there."""
        sc = self.bg.scale
        hulls = [h * sc for h in c.fit.hulls(self.cam)]
        box = self._hulls_box(ch.small, hulls, 3)
        m = silhouette_mask(hulls, box)
        k = np.ones((5, 5), np.uint8)
        rim = (cv2.dilate(m, k) > 0) & ~(cv2.erode(m, k) > 0)
        d = cv2.absdiff(ch.small[box[1]:box[3], box[0]:box[2]], previous._small[box[1]:box[3], box[0]:box[2]])
        return float(np.mean(d.max(axis=2)[rim] >= ch.threshold)) if rim.any() else 0.0

    def _on_hidden(self, c: Candidate, j: int, margin: float) -> list[Candidate]:
        """A disc that lies on a disc hidden in pit ``j``: it posed one disc's height above the
        board, and the disc under it, not seen (colour unknown, for a person to confirm), where a
        disc lay in that pit in the last settled frame, else at the pit's centre."""
        f, pit = c.fit, self.pits[j]
        depth = float(pit.depth_mm)
        f_on = self._refit(f, -depth + f.shape.height_mm, None, (f.x, f.y, 0.0))
        lay = next((b.fit for b in self._lay_before + self._hidden_before if b.state == "in_pit" and b.pit == pit.id),
                   None)
        x, y = (lay.x, lay.y) if lay is not None else (float(self.pit_c[j][0]), float(self.pit_c[j][1]))
        under = Fit(f.shape, x, y, 0.0, -depth, 0.0, 0.0, 1.0, 0, 0.0)
        return [Candidate(f_on, c.color_conf, "stacked", pit.id, margin, seen_mm=c.seen_mm),
                Candidate(under, 0.0, "in_pit", pit.id, margin, hidden=True)]

    def _to_detections(self, cands: list[Candidate]) -> Detections:
        if not cands:
            return Detections.empty()
        kinds, colors, cmm, fps, hs, bases, heads, confs = [], [], [], [], [], [], [], []
        for c in cands:
            f = c.fit
            fp = f.footprint()
            kinds.append(f.shape.kind)
            colors.append("unknown" if c.hidden else f.shape.color)
            cmm.append([f.x, f.y])
            fps.append(fp)
            hs.append(f.shape.height_mm)
            bases.append(f.base_mm)
            heads.append(f.heading)
            fit_q = float(np.clip(1.5 - f.rms_px, 0, 1)) * f.inlier_frac
            conf = 0.0 if c.hidden else float(np.clip(0.5 * c.color_conf + 0.5 * fit_q, 0, 1))
            if c.cover < self.cfg.card_cover_min:
                # a card posed on part of its change only: below the review line, by how little it covers
                conf = min(conf, self.cfg.color_confidence_min * c.cover)
            if c.kind_gap < self.cfg.kind_doubt_cost:
                # unsure of its kind (see _sized_in_photo): below the review line, by how little the two differ
                conf = min(conf, self.cfg.color_confidence_min * c.kind_gap / self.cfg.kind_doubt_cost)
            confs.append(conf)
        cpx = self.cam.project_plane(np.array(cmm), np.array(bases))  # the footprints' centres, all at once
        return Detections(kind=kinds, color=colors, center_px=cpx, center_mm=cmm, footprint_mm=fps, height_mm=hs,
                          base_mm=bases, heading_deg=heads, confidence=confs)
