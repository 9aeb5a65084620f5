"""Benchmarks: ``tableref bench calibration | accuracy | speed``.

Scenes are simulated (realistic settings: tilt 0-20 degrees, lens distortion, noise, JPEG, shadows,
pieces near every kind of boundary) and cached on disk, so a second run only measures (kept apart
by what drew them: :func:`render_key`).  Numbers are
printed beside their targets; nothing here is a pass/fail test.
"""

from __future__ import annotations

import functools
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tableref import files
from tableref.errors import InputError
from tableref.files import load_model, read_image, write_bytes, write_json

GAMES = ("pitchfleet", "pitrush", "galaktico", "asfccg")


def one_core() -> None:
    """Run this process on one core: OpenCV's threads and the BLAS threads numpy and scipy use
    (left alone, OpenBLAS spins threads that count as CPU time and skew the figures)."""
    import cv2
    import scipy.linalg  # noqa: F401  (loads scipy's own OpenBLAS, so that the limit reaches it too)
    from threadpoolctl import threadpool_limits

    cv2.setNumThreads(1)
    threadpool_limits(limits=1)


# what draws a bench photo and its truth: a change to any of these draws other photos
_RENDER_SOURCES = ("simulator", "calibration/profiles", "calibration/camera.py", "calibration/model.py",
                   "calibration/profile.py", "calibration/nominal.py")


@functools.cache
def render_key() -> str:
    """A short fingerprint of what draws the bench's photos: the simulator's and the built-in
    profiles' files, the versions of the libraries it draws with, and the CPU kernels they run (an
    AVX-512 kernel rounds differently from an AVX2 one, and a photo's last bits move).  Photos drawn
    under another key are other photos: the cache keeps them apart (see :func:`cache_dir`).  Worked
    out once per process (the files and libraries do not change under it)."""
    import hashlib
    import os

    import cv2
    import shapely
    from numpy._core._multiarray_umath import __cpu_features__

    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha1()
    for src in _RENDER_SOURCES:
        base = root / src
        for f in sorted([base] if base.is_file() else (q for q in base.rglob("*") if q.is_file())):
            if "__pycache__" in f.parts:
                continue
            h.update(f.relative_to(root).as_posix().encode())
            h.update(f.read_bytes())
    h.update(f"cv2 {cv2.__version__} numpy {np.__version__} shapely {shapely.__version__}".encode())
    h.update(" ".join(sorted(k for k, on in __cpu_features__.items() if on)).encode())
    h.update(f"opencv cpu {os.environ.get('OPENCV_CPU_DISABLE', '')}".encode())
    return h.hexdigest()[:12]


def cache_dir() -> Path:
    """The bench's photos, kept per :func:`render_key`: a photo drawn by another simulator, library
    or CPU is not measured as this one's."""
    d = files.cache_dir("bench") / render_key()
    d.mkdir(parents=True, exist_ok=True)
    return d


def cached_scene(game: str, seed: int, size: tuple[int, int], empty: bool, layout: int = 1):
    """A simulated photo and its ground truth, rendered once and kept in the cache."""
    from simulator.api import simulate
    from simulator.scene import SceneFile

    name = f"{game}-{seed}-{size[0]}x{size[1]}-{'empty' if empty else f'l{layout}'}"
    img_p = cache_dir() / f"{name}.jpg"
    js_p = cache_dir() / f"{name}.json"
    if not (img_p.exists() and js_p.exists()):
        scene, res = simulate(game, seed, size, empty=empty, pieces_seed=None if empty else layout)
        write_bytes(img_p, res.jpeg)
        write_json(js_p, scene)
    return load_model(js_p, SceneFile), read_image(img_p)


def cached_shot(game: str, seed: int, size: tuple[int, int]):
    """The simulated photo of :func:`cached_scene` (layout 1) after a shot: one piece resting on the
    board moved 30 mm across it, the camera's noise drawn anew; rendered once and cached."""
    from calibration.profile import BoardProfile
    from simulator.render import render_scene

    img_p = cache_dir() / f"{game}-{seed}-{size[0]}x{size[1]}-l1-shot.jpg"
    if not img_p.exists():
        scene, _ = cached_scene(game, seed, size, empty=False)
        sc = scene.model_copy(deep=True)
        sc.shot = scene.shot + 1
        p = next(q for q in sc.pieces if q.rests_on == "board")
        dx, dy = 30.0, 10.0
        p.center_mm = (p.center_mm[0] + dx, p.center_mm[1] + dy)
        p.footprint_mm = [(x + dx, y + dy) for x, y in p.footprint_mm]
        write_bytes(img_p, render_scene(sc, BoardProfile.builtin(game)).jpeg)
    return read_image(img_p)


def scenes_before(scene) -> list:
    """The simulated table of ``scene`` before each shot that laid a piece on another, in the order
    they came (``SceneFile`` each, its camera noise drawn anew): first with every piece that rests
    on another taken away, then with one more of them each time; empty when no piece rests on
    another.

    In play the referee sees the table after every shot: a disc that lands right over a disc in a
    pit hides it, and only the photos before tell that it is there."""
    on = [p for p in scene.pieces if p.rests_on == "piece"]  # (in the order the simulator laid them)
    out = []
    for k in range(len(on)):
        sc = scene.model_copy(deep=True)
        sc.shot = scene.shot + 2 + k  # (+1 is cached_shot's)
        later = {p.id for p in on[k:]}
        sc.pieces = [p for p in sc.pieces if p.id not in later]
        out.append(sc)
    return out


def cached_before(scene, game: str, seed: int, size: tuple[int, int]) -> list[np.ndarray]:
    """The photos of :func:`scenes_before` of ``scene``, :func:`cached_scene` (layout 1), rendered
    once and cached."""
    from calibration.profile import BoardProfile
    from simulator.render import render_scene

    out = []
    for k, sc in enumerate(scenes_before(scene)):
        img_p = cache_dir() / f"{game}-{seed}-{size[0]}x{size[1]}-l1-before{k or ''}.jpg"
        if not img_p.exists():
            write_bytes(img_p, render_scene(sc, BoardProfile.builtin(game)).jpeg)
        out.append(read_image(img_p))
    return out


def play_through(det, photos: list[np.ndarray]):
    """As the live referee: each photo judged with the one before it (``previous=``) and tracked.
    The tracker and the last result (None without photos), for the photo that follows."""
    from vision.track import Tracker

    tracker, prev = Tracker(camera=det.cal.camera, on_pieces=det.pieces_lie_on_pieces), None
    for k, photo in enumerate(photos):
        prev = det.detect(photo, previous=prev)
        tracker.update(prev.judgement, float(k))
    return tracker, prev


# ------------------------------------------------------------------------------ calibration

@dataclass
class CalRow:
    game: str
    seed: int
    ok: bool
    identity: bool = False
    rotation: bool = False
    corners: list[float] = field(default_factory=list)
    ious: list[float] = field(default_factory=list)
    pits: list[float] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    problems: list[str] = field(default_factory=list)  # quality figures out of bounds: the referee refuses it


def _cal_job(args) -> CalRow:
    from calibration.evaluate import compare
    from calibration.model import Calibration
    from calibration.profile import BoardProfile
    from calibration.register import register

    game, seed, size = args
    one_core()
    scene, img = cached_scene(game, seed, size, empty=True)
    prof = BoardProfile.builtin(game)
    t0 = time.process_time()
    try:
        reg = register(img, prof)
    except Exception as e:  # a failure is a result here
        return CalRow(game, seed, False, seconds=time.process_time() - t0, error=str(e)[:120])
    dt = time.process_time() - t0
    e = compare(reg.calibration, prof, scene.camera(), scene.placements)
    return CalRow(game, seed, True, e.identity_ok, e.rotation_ok, e.corner_mm.tolist(), e.zone_iou.tolist(),
                  e.pit_mm.tolist(), dt, problems=Calibration(reg.calibration).problems())


def bench_calibration(scenes: int, games: tuple[str, ...], size: tuple[int, int], workers: int, on_row=None):
    return _run_jobs(_cal_job, [(g, 5000 + s, size) for g in games for s in range(scenes)], workers, on_row)


def _run_jobs(job, jobs: list, workers: int, on_row=None) -> list:
    """Run ``job`` over ``jobs`` in ``workers`` processes, in order, reporting each row as it comes."""
    rows = []
    with ProcessPoolExecutor(max_workers=workers) as ex:
        for r in ex.map(job, jobs):
            rows.append(r)
            if on_row:
                on_row(r)
    return rows


# --------------------------------------------------------------------------------- accuracy

@dataclass
class AccRow:
    game: str
    seed: int
    n_true: int = 0
    missed: int = 0
    false: int = 0
    center: list[float] = field(default_factory=list)
    verdicts: dict = field(default_factory=dict)
    ms: float = 0.0
    error: str = ""
    hidden: int = 0      # missed pieces that others lying on them cover (almost) whole
    unseen: int = 0      # missed pieces more than half outside the photo
    review: int = 0      # pieces flagged for a person to confirm
    unsteady: int = 0    # pieces read otherwise (found or missed, kind, colour, a verdict) in a jittered photo
    unsteady_clear: int = 0  # ... of them, pieces >= 1.5 mm from every boundary (or missed at first)
    unsteady_silent: int = 0  # ... of them, pieces the first reading did not flag for a person (or missed)


JITTER_SIGMA = 0.5  # grey levels: about a third of the values move by one level, far less than the noise
                    # between two frames of a real camera; a reading that changes under it is a toss-up


def jittered(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``img`` with rounded Gaussian noise of :data:`JITTER_SIGMA` grey levels added: the same
    photo as far as anyone can see."""
    noise = np.rint(rng.normal(0.0, JITTER_SIGMA, img.shape))
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def piece_readings(s) -> tuple[dict[int, tuple], dict[int, float]]:
    """What a scored reading (:class:`vision.evaluate.SceneScore`) says of each true piece, and each
    found piece's smallest margin (mm) to a boundary over its verdicts.  A found piece's reading is
    what was detected for each verdict (kind, colour, outbound, zones, ...); a missed one's is
    ``("missed",)``.  Two readings of one scene compare piece by piece."""
    readings: dict[int, tuple] = {i: ("missed",) for i in s.missed_ids}
    margins: dict[int, float] = {}
    per_piece = [(v, lst) for v, lst in sorted(s.verdicts.items()) if len(lst) == len(s.matched)]
    for k, (i, _) in enumerate(s.matched):
        readings[i] = tuple((v, lst[k][1]) for v, lst in per_piece)
        margins[i] = min((lst[k][2] for _, lst in per_piece), default=float("inf"))
    return readings, margins


def flagged_pieces(s, review) -> set[int]:
    """The true pieces (ids) whose match in a scored reading (:class:`vision.evaluate.SceneScore`)
    the judgement flagged for a person to confirm (``review``: its per-piece flags)."""
    return {int(i) for i, k in s.matched if bool(review[int(k)])}


def _acc_job(args) -> AccRow:
    from calibration.model import Calibration, Quality, build_calibration
    from calibration.profile import BoardProfile
    from calibration.register import board_white_balance, register
    from vision.detect import Detector
    from vision.evaluate import score_scene

    game, seed, size, true_cal, learn, in_play, jitter = args
    one_core()
    prof = BoardProfile.builtin(game)
    empty_scene, empty = cached_scene(game, seed, size, empty=True)
    scene, img = cached_scene(game, seed, size, empty=False)
    try:
        if true_cal:
            cam = scene.camera()
            cf = build_calibration(prof, scene.placements, cam, Quality(),
                                   appearance={"wb_gains": board_white_balance(empty, prof, scene.placements, cam)})
        else:
            cf = register(empty, prof).calibration
        cal = Calibration(cf)
        det = Detector(cal, prof, empty)
        if learn:
            _learn_colours(det, cached_scene(game, seed, size, empty=False, layout=2)[1])
        tracker, prev = play_through(det, cached_before(scene, game, seed, size)) if in_play else (None, None)
        t0 = time.process_time()
        res = det.detect(img, previous=prev)
        ms = (time.process_time() - t0) * 1000
        jud = res.judgement if tracker is None else tracker.update(res.judgement, float(tracker.updates)).judgement
    except Exception as e:
        return AccRow(game, seed, len(scene.pieces), len(scene.pieces), 0, error=str(e)[:120])
    s = score_scene(jud, scene.pieces, scene.camera(), cal.camera, game)
    row = AccRow(game, seed, s.n_true, s.missed, s.false, s.center_err_mm, s.verdicts, ms,
                 hidden=s.missed_hidden, review=int(jud.review.sum()), unseen=s.missed_unseen)
    if jitter:
        first, margins = piece_readings(s)
        rng = np.random.default_rng([seed, 1])
        changed: set[int] = set()
        for _ in range(jitter):
            try:
                j2 = det.detect(jittered(img, rng)).judgement
            except Exception:  # a photo read once and not again: every piece's reading changed
                changed = set(first)
                break
            again, _ = piece_readings(score_scene(j2, scene.pieces, scene.camera(), cal.camera, game))
            changed |= {i for i in first if again.get(i) != first[i]}
        row.unsteady = len(changed)
        row.unsteady_clear = sum(margins.get(i, float("inf")) >= 1.5 for i in changed)
        # a toss-up put before a person is not decided silently; one the reading is sure of is
        row.unsteady_silent = len(changed - flagged_pieces(s, jud.review))
    return row


def _learn_colours(det, show) -> None:
    """The pieces' colours learned from a "show the pieces" photo of the detector's table (as
    'tableref calibrate pieces' does): here another layout of the scene's pieces, same table, light
    and camera."""
    from vision.colors import learn_colours

    det.cal.data.appearance["colors"] = learn_colours(*det.piece_colours(show, det.detect(show)))[0]


def bench_accuracy(scenes: int, games: tuple[str, ...], size: tuple[int, int], workers: int, true_cal: bool,
                   on_row=None, learn_colours: bool = False, in_play: bool = False, first_seed: int = 7000,
                   jitter: int = 0):
    """Tables ``first_seed``, ``first_seed + 1``, ...  ``in_play``: each scene in which pieces rest on others is judged as the live referee judges
    it, after the photos of the table before each of those pieces came (:func:`cached_before`),
    through the tracker; the others as a single photo.  ``jitter``: each photo is read that many times
    more with imperceptible noise added (:func:`jittered`; single photos only), and the pieces whose
    reading changes are counted."""
    if jitter and in_play:
        raise InputError("--jitter re-reads single photos, --in-play judges tracked shots", "leave out one of them")
    return _run_jobs(_acc_job, [(g, first_seed + s, size, true_cal, learn_colours, in_play, jitter)
                                for g in games for s in range(scenes)], workers, on_row)


# ------------------------------------------------------------------------------------ speed

@dataclass
class SpeedRow:
    ms_median: float
    ms_worst: float
    pieces: int               # on the tables, all told
    after_shot_ms: float      # the frame after a shot, judged with the one before
    after_shot_worst: float
    regions_posed: int        # ... regions of change posed again (the rest were taken over), all told
    regions: int


SPEED_SEED = 9100  # the speed bench's first table (apart from the accuracy bench's ranges)


def bench_speed(frames: int = 20, size: tuple[int, int] = (1920, 1080), scenes: int = 1,
                progress=None) -> dict:
    """Detection + judgement time of settled frames on one core: of a frame judged from scratch
    (median, worst), and of the frame after a shot that moved one piece, judged with the frame
    before it (the live referee's case: the regions that did not change keep their pieces); and
    the settle check rate.  ``scenes`` tables (seeds from :data:`SPEED_SEED`), each timed
    ``frames`` times: the medians and the worst are over all of their frames (one table's pieces
    and print may be quicker or slower to read than another's).  ``progress(game, table)`` is
    called before each table."""
    from calibration.model import Calibration
    from calibration.profile import BoardProfile
    from calibration.register import register
    from vision.detect import Detector

    one_core()
    out = {}
    for game in GAMES:
        prof = BoardProfile.builtin(game)
        cold, shot = [], []
        pieces = posed = regions = 0
        for k in range(scenes):
            if progress is not None:
                progress(game, k)
            seed = SPEED_SEED + k
            _, empty = cached_scene(game, seed, size, empty=True)
            _, img = cached_scene(game, seed, size, empty=False)
            after = cached_shot(game, seed, size)
            det = Detector(Calibration(register(empty, prof).calibration), prof, empty)
            before = det.detect(img)  # also the warm-up
            for _ in range(frames):
                t0 = time.perf_counter()
                det.detect(img)
                t1 = time.perf_counter()
                res = det.detect(after, previous=before)
                t2 = time.perf_counter()
                cold.append((t1 - t0) * 1000)
                shot.append((t2 - t1) * 1000)
            pieces += len(before.judgement)
            posed += res.blobs - res.reused
            regions += res.blobs
        out[game] = SpeedRow(float(np.median(cold)), float(np.max(cold)), pieces, float(np.median(shot)),
                             float(np.max(shot)), posed, regions)
    try:
        from vision.motion import motion_benchmark

        out["motion_fps"] = motion_benchmark()
    except ImportError:
        out["motion_fps"] = None
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out
