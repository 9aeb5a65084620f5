"""Thresholds and tunables, in one place (not literals in the code).

Each stage reads its own frozen dataclass; a JSON file given with ``--config`` may override any
field (``{"registration": {"min_inliers": 30}}``).  Nothing here is fitted to a fixture: the values
are physical tolerances (mm), image-processing scales chosen from first principles, or bounds the
referee uses to refuse bad input.  What varies between tables is learned at calibration time.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .errors import InputError


@dataclass(frozen=True)
class RegistrationConfig:
    """Board registration from one photo of the empty table (calibration/register.py)."""

    work_long_side_px: int = 1000          # feature matching runs on a copy this size (the fit is
                                           # refined on the full photo: this only has to find the boards)
    work_ppm: float = 1.6                  # ... or bigger, so that boards filling the frame would show
                                           # this many px per mm (a 1080p photo is barely reduced)
    photo_features: int = 12000
    tile_features: int = 2500
    ratio_test: float = 0.8
    flann_trees: int = 4                   # FLANN kd-trees over the photo's features ...
    flann_checks: int = 48                 # ... and leaves searched per template feature
    ransac_px: float = 4.0                 # at working resolution
    min_inliers: int = 12
    weak_min_inliers: int = 8              # boards not found so are looked for again needing this many, and
                                           # taken only where the calibration's quality bounds confirm them
    min_inlier_ratio: float = 0.08
    grid_fill_max: int = 3                 # a free grid (Pitch Fleet's 3x3) with up to this many tiles not
    grid_fill_per_found: int = 2           # matched, and this many times as many found (at least 4), has
                                           # them looked for in the empty cells of the grid the others make
    prior_hfov_deg: float = 62.0           # weak prior on the focal length when no camera.json is given
    prior_f_sigma: float = 0.35            # relative sigma of that prior
    min_focal_told: float = 0.5            # a photo that tells less of the focal length than this (the rest
                                           # is the prior's) gets a warning: the parallax is a guess
    prior_aspect_sigma: float = 0.005      # sigma of the prior on the pixels' aspect fy / fx around 1
    robust_px: float = 1.0                 # Huber scale of the bundle adjustment, full-resolution px
    max_points: int = 1200               # observations the bundle adjustment uses (spread over the tiles)
    refine_patch_px: int = 15              # half-size of the patches of the dense refinement
    refine_search_px: int = 4
    score_cell_mm: float = 120.0           # a tile's fit is scored in cells this big (its weakest counts)
    refine_patch_budget: float = 1.2       # picture patches matched per observation the adjustment keeps
    refine_max_passes: int = 4             # close passes of the dense refinement at most ...
    refine_settled_px: float = 0.2         # ... stopping once no board corner moves this much
    refine_line_ratio: float = 0.15        # a patch whose print varies this much less along one direction
                                           # than across it (structure tensor eigenvalues) is a line: it
                                           # slides along itself, so only its distance across counts
    min_brightness: float = 25.0           # mean grey level below which a photo is "too dark"
    min_sharpness: float = 8.0             # Laplacian RMS below which a photo is "too blurred"
    frame_margin_px: float = 2.0           # boards must lie this far inside the image
    drift_mm: float = 2.0                  # a board moved by more than this is re-registered


@dataclass(frozen=True)
class VisionConfig:
    """Piece detection and judgement (vision/)."""

    review_margin_mm: float = 1.5          # verdicts closer than this go to a person
    card_back_ncc: float = 0.45            # a card whose top correlates this well with the card back lies face down
    card_face_blur_mm: float = 1.5         # ... both blurred this much first
    card_spill_frac: float = 0.05          # a reading of cards laying this share of their area outside their
                                           # region's outline (where the photo shows the mat) costs twice as much
    card_repose_inliers: float = 0.5       # a card whose outline lies on its edge for less than this share of
                                           # it is posed again with darkenings wider than a shadow counted
    card_cover_min: float = 0.9            # a card whose core (less a tenth of a card all round) lies on its
                                           # region's change for less than this share of it is posed again with
                                           # darkenings wider than a shadow counted, and goes to a person if still
    card_register_px_per_mm: float = 2.0   # a face-down card is aligned to its back's print at this scale
    card_register_margin_mm: float = 8.0   # ... within this much of where its outline put it
    card_register_max_turn_deg: float = 10.0  # ... and of the heading it gave
    refine_margin_mm: float = 4.0          # pieces closer than this to a boundary get the full pose fit
    fit_blur_px: float = 0.8               # blur and the threshold shift an outline by about this much
                                           # (the prior of vision.fit.fit_one)
    min_piece_area_frac: float = 0.35      # of the expected top-face area, to count as a piece
    change_piece_px: float = 90.0          # the smallest piece covers about this many px of the coarse
                                           # change map (its scale follows the camera's mm per px)
    change_max_scale: float = 0.5          # ... but the change map is never finer than this
    change_min_scale: float = 0.25         # ... nor coarser than this
    change_weak_frac: float = 0.6          # where nothing was posed on a region: its weaker parts (this
                                           # much of the threshold) that touch the strong ones count too
    max_piece_area_frac: float = 2.6
    shadow_reach: float = 3.0              # a piece's shadow reaches at most this many times its height
                                           # (a lamp at least ~18 degrees above the table) ...
    shadow_soft_mm: float = 3.0            # ... plus this much penumbra: a darkening wider than that is
                                           # something lying there (a dark card back), not a shadow
    shadow_smooth_mm: float = 2.0          # a shadow darkens the board by much the same ratio over this
    shadow_textured_frac: float = 0.05     # ... a shadow-like region apart from any piece, this much of
                                           # it not so explained, is a piece the colour of a shadow
    shadow_texture_contrast: float = 3.0   # ... or, at full resolution, that much and this many times the
                                           # share of the board around it (its noise and JPEG)
    frame_edge_px: float = 4.0             # outline points this near the photo's edge are left out (a piece
                                           # running out of the photo ends at the photo's edge, not its own)
    faded_edge_px: float = 2.5             # outline points across which the photo (this far either side)
    faded_edge_frac: float = 0.3           # differs less than this share of the outline's median contrast
                                           # are left out: the region ends there, not the piece
    plain_max_area: float = 3.0            # a shadow-like region apart from any change, plain, and at most
                                           # this many times the largest piece's area (a piece with its
                                           # shadow) is looked at as a piece as dark as a shadow
    plain_colour_dist: float = 15.0        # ... and kept as one only this close to a piece colour (Lab)
    board_colour_dist: float = 15.0        # a piece of a kind that comes in hues, posed on shadow-like change
                                           # where it ran into pieces posed beside it, differs this much
                                           # from the board's colour under it (Lab, on the scale of the
                                           # colours' spread), else it is their shade
    kind_colour_dist: float = 40.0         # a region is tried as a kind of piece only this close to one of
                                           # its colours (Lab, on the scale of the colours' spread), or
                                           # within half that of the nearest kind's; a piece found by its
                                           # texture beside another (or a grey one posed on shadow-like
                                           # change apart from pieces posed beside it) is kept only as close
    rock_inliers_min: float = 0.5          # ... and, if it does not fit well, only a grey rock whose outline
                                           # lies on its model for this share of it
    join_gap_mm: float = 6.0               # a piece across a line of its own colour this wide (a silver beam
                                           # over the gap between two tiles) shows as two regions of change
    pit_play_tol_mm: float = 1.0           # a disc posed in a pit further than this beyond its play from
                                           # the pit's centre is not in it: it lies on a disc hidden there
    split_colour_ratio: float = 0.6        # a pixel is named a piece colour where it lies this much nearer it
                                           # than any other (Lab distance; two pieces of one kind told apart
                                           # by colour where they lie on one another)
    split_colour_frac: float = 0.2         # ... and a colour's part of the region counts from this much of
                                           # the smallest piece's area (px)
    multi_area_ratio: float = 1.15         # a region this much bigger than one piece may hold several
    single_area_max: float = 2.0           # ... and one up to this much bigger may still be one piece
    min_seen_mm: float = 2.0               # ... each showing a part at least this wide uncovered
    min_inside_frac: float = 0.5           # ... the part of each that no other covers at least this much
                                           # within the region (a piece changes the picture where it shows)
    stack_before_mm: float = 3.0           # of two pieces lying on one another, one of which lay within this of
                                           # where it lies in the last settled frame, the other not: it is under
    stack_before_deg: float = 15.0         # ... and turned by no more than this
    pair_cover_gain: float = 0.03          # two pieces on one another re-posed to cover their region: taken
                                           # where the area they miss or add falls by this share of it
    top_seen_mm: float = 1.0               # a piece standing on its end is also posed on its top alone (and
                                           # this much of its walls): its walls may be the board's colour
    unlike_colour_ratio: float = 0.5       # a colour (Lab) this much nearer one piece colour than another is
                                           # surely not the other's (pieces on one another told apart)
    multi_piece_cost: float = 0.15         # a reading of k pieces costs 1 + this x (k - 1) times its
                                           # pieces' mean fit cost (more pieces fit any outline better)
    stack_edge_ratio: float = 1.5          # of two ships lying on one another, the upper one's edge steps
                                           # this many times more than the lower one's where they overlap
    color_confidence_min: float = 0.5
    came_rim_frac: float = 0.05            # in play, of several discs in pits where a shot changed the picture
                                           # and brought no disc seen, the one whose rim changed this much got one
                                           # right over it (see Detector._came_unseen)
    size_photo_min: int = 4                # a photo's outlines' inflation is learned from this many pieces of a
                                           # round footprint at least (see Detector._sized_in_photo) ...
    size_dev_px: float = 1.0               # ... and a piece whose inflation lies further from it is tried as
                                           # the other kinds of its colour
    kind_doubt_cost: float = 0.1           # ... where two kinds fit it this near (fit cost: ~px), its kind is
                                           # unsure: flagged for a person (see Detector._sized_in_photo)
    photo_colour_min: int = 2              # an unsure piece is named by the colours of this many pieces of
                                           # its photo named surely (see Detector._named_in_photo); a photo
                                           # teaches a colour from this many pieces (see Detector.detect)
    photo_colour_shift: float = 10.0       # where the calibration learned no colours, the photos judged teach
                                           # them: where one lies this far (CIE Lab) from its textbook colour,
                                           # the regions of pieces named unsurely are judged again by them
    settle_seconds: float = 0.8            # nothing moves this long -> the shot has ended
    motion_threshold: float = 12.0         # grey-level change that counts as motion (on a 640x480 copy)
    motion_min_area_frac: float = 0.0004   # of the frame


@dataclass(frozen=True)
class Config:
    registration: RegistrationConfig = field(default_factory=RegistrationConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "config") -> "Config":
        parts = {}
        for f in dataclasses.fields(cls):
            sub = data.get(f.name, {})
            if not isinstance(sub, dict):
                raise InputError(f"{source}: '{f.name}' must be an object")
            sub_cls = f.default_factory  # type: ignore[misc]
            names = {g.name for g in dataclasses.fields(sub_cls)}
            unknown = set(sub) - names
            if unknown:
                raise InputError(f"{source}: unknown {f.name} setting(s) {sorted(unknown)}")
            parts[f.name] = sub_cls(**sub)
        unknown = set(data) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise InputError(f"{source}: unknown section(s) {sorted(unknown)}")
        return cls(**parts)


DEFAULT = Config()
