"""Motion and settling (vision.motion): synthetic streams and the simulator's shot stream."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from hardware import open_source
from tableref.config import VisionConfig
from vision.motion import PHASES, MotionState, SettleDetector, motion_benchmark

CFG = VisionConfig()
FPS = 10.0


def _table(size=(480, 360), seed=0) -> np.ndarray:
    w, h = size
    rng = np.random.default_rng(seed)
    small = rng.integers(80, 170, (h // 16, w // 16, 3), dtype=np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def _frame(base: np.ndarray, rng, sigma: float, blob=None, hand=None) -> np.ndarray:
    img = base + np.float32(sigma) * rng.standard_normal(base.shape, dtype=np.float32) if sigma else base.copy()
    if hand is not None:  # an arm from the left edge: (length px, centre row, thickness px)
        length, y, thick = hand
        cv2.rectangle(img, (0, y - thick // 2), (int(length), y + thick // 2), (120.0, 150.0, 215.0), -1)
    if blob is not None:
        cv2.circle(img, (int(blob[0]), int(blob[1])), 12, (25.0, 30.0, 190.0), -1, lineType=cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


def _run(det: SettleDetector, frames, fps=FPS, t0=0.0) -> list[MotionState]:
    return [det.update(f, t0 + i / fps) for i, f in enumerate(frames)]


# ---------------------------------------------------------------------------------- synthetic


@pytest.mark.parametrize("sigma", [0.0, 3.0, 30.0])
def test_noise_only_is_still(sigma):
    rng = np.random.default_rng(1)
    base = _table()
    states = _run(SettleDetector(CFG), [_frame(base, rng, sigma) for _ in range(25)])
    assert all(s.phase == "still" for s in states)
    assert not any(s.just_settled or s.hand for s in states)
    assert all(s.moved_px < CFG.motion_min_area_frac for s in states)
    if sigma >= 30:  # a noisy sensor raises the threshold above the configured grey-level change
        assert states[-1].threshold > CFG.motion_threshold
        assert states[-1].noise > 1.0


def test_fixed_threshold_would_see_motion_in_heavy_noise():
    """The same noise against the configured constant alone: what the noise-adaptive threshold avoids."""
    rng = np.random.default_rng(1)
    base = _table()
    det = SettleDetector(CFG)
    a, b = (det._small(_frame(base, rng, 30.0)) for _ in range(2))
    assert (cv2.absdiff(a, b) > CFG.motion_threshold).mean() > CFG.motion_min_area_frac


@pytest.mark.parametrize("fps", [10.0, 30.0])
def test_blob_moves_then_settles_once(fps):
    rng = np.random.default_rng(2)
    base = _table()
    frames, positions = [], []
    n_still, n_move = 5, 12
    n_after = int(np.ceil(CFG.settle_seconds * fps)) + 10
    for i in range(n_still + n_move + n_after):
        k = min(max(i - n_still, 0), n_move)
        pos = (100 + 25 * k, 200 + 5 * k)
        positions.append(pos)
        frames.append(_frame(base, rng, 3.0, blob=pos))
    states = _run(SettleDetector(CFG), frames, fps=fps)
    phases = [s.phase for s in states]
    assert set(phases) <= set(PHASES)
    assert phases[:n_still] == ["still"] * n_still
    moving = [i for i, p in enumerate(phases) if p == "moving"]
    assert moving == list(range(n_still + 1, n_still + n_move + 1))
    last = moving[-1]
    assert all(not states[i].hand for i in moving)
    x, y, w, h = states[last].bbox
    px, py = positions[last]
    assert x - 2 <= px <= x + w + 2 and y - 2 <= py <= y + h + 2
    settled = [i for i, s in enumerate(states) if s.just_settled]
    assert len(settled) == 1
    i = settled[0]
    t = [s.t for s in states]
    assert t[i] - t[last] >= CFG.settle_seconds - 1e-6 > t[i - 1] - t[last]
    assert states[i].settled_for == pytest.approx(t[i] - t[last])
    assert all(p == "settling" for p in phases[last + 1:i])
    assert all(p == "settled" for p in phases[i:])


def test_settle_time_comes_from_the_timestamps():
    rng = np.random.default_rng(3)
    base = _table()
    frames = [_frame(base, rng, 2.0, blob=(100 + 30 * min(i, 6), 240)) for i in range(20)]
    cfg = VisionConfig(settle_seconds=0.5)
    # frames 2 s apart: the first quiet frame is already 2 s after the last motion
    states = _run(SettleDetector(cfg), frames, fps=0.5)
    first_quiet = next(i for i, s in enumerate(states) if i > 1 and s.phase != "moving")
    assert states[first_quiet].just_settled


def test_hand_from_the_border_keeps_it_from_settling():
    rng = np.random.default_rng(4)
    base = _table()
    frames = [_frame(base, rng, 3.0) for _ in range(5)]
    frames += [_frame(base, rng, 3.0, hand=(60 * k, 300, 40)) for k in range(1, 6)]          # reaches in
    frames += [_frame(base, rng, 3.0, hand=(300, 300, 40)) for _ in range(40)]               # 4 s, still
    frames += [_frame(base, rng, 3.0, hand=(300 - 100 * k, 300, 40)) for k in range(1, 3)]  # pulls back
    frames += [_frame(base, rng, 3.0) for _ in range(20)]
    states = _run(SettleDetector(CFG), frames)
    held = states[10:50]
    assert all(s.hand for s in held), "a hand held still over the table is still a hand"
    assert all(s.phase == "moving" for s in held)
    assert not any(s.just_settled for s in states[:52])
    assert sum(s.just_settled for s in states) == 1
    i = next(i for i, s in enumerate(states) if s.just_settled)
    last = max(k for k, s in enumerate(states) if s.phase == "moving")
    assert last == 52  # the frame the hand has gone from
    assert states[i].t - states[last].t >= CFG.settle_seconds - 1e-6
    assert not states[-1].hand and states[-1].phase == "settled"


def test_hand_present_from_the_start_against_a_reference():
    rng = np.random.default_rng(5)
    base = _table()
    empty = _frame(base, rng, 0.0)
    frames = [_frame(base, rng, 3.0, hand=(320, 200, 50)) for _ in range(20)]
    states = _run(SettleDetector(CFG, reference=empty), frames)
    assert all(s.hand and s.phase == "moving" for s in states)
    assert not any(s.just_settled for s in states)


def test_piece_at_rest_does_not_count_as_a_hand():
    rng = np.random.default_rng(6)
    base = _table()
    empty = _frame(base, rng, 0.0)
    frames = [_frame(base, rng, 3.0, blob=(15, 180)) for _ in range(12)]  # a piece at the edge, still
    states = _run(SettleDetector(CFG, reference=empty), frames)
    assert not any(s.hand for s in states)
    assert all(s.phase == "still" for s in states)


def test_benchmark_runs():
    fps = motion_benchmark(n=30)
    assert fps > 0 and np.isfinite(fps)


# ---------------------------------------------------------------------------------- simulator


def test_simulated_shot_settles_only_when_settled():
    det = SettleDetector(CFG)
    rows = []
    with open_source("sim:pitrush:5?size=320x180&shots=1") as src:
        for frame in src.frames():
            s = det.update(frame.image, frame.timestamp)
            rows.append((src.phase, src.shot, s))
    truth = [p for p, _, _ in rows]
    assert "hand" in truth and "settled" in truth
    assert all(s.phase == "still" for p, _, s in rows if p == "still")
    assert any(s.phase == "moving" for p, _, s in rows if p == "hand")
    assert any(s.hand for p, _, s in rows if p in ("hand", "move"))
    for p, _, s in rows:
        if s.phase == "settled":
            assert p == "settled", "settled while the shot was still going on"
    ends = [(p, k) for p, k, s in rows if s.just_settled]
    assert ends == [("settled", 0)], ends
