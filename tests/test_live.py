"""The live loop on the simulator: it judges each shot once, after it has settled, and tracks it."""

from __future__ import annotations

from referee.live import run_live


def test_live_on_the_simulator_judges_each_settled_shot(tmp_path):
    scenes = []
    summary = run_live("sim:pitchfleet:3?shots=2&lead=4&hand_frames=2&move_frames=2&settle_frames=12",
                       None, tmp_path, size=(1280, 720), on_scene=scenes.append)
    assert summary.frames > 20
    # a settled view before the first shot and one after each shot, each judged exactly once
    assert 2 <= len(summary.settled) <= 3
    assert (tmp_path / "calibration.json").exists()
    assert all(s.pieces > 0 for s in summary.settled)
    last = summary.settled[-1]
    assert any("shot" in line for line in last.sentences), last.sentences
    assert len(list((tmp_path / "settled").glob("*.jpg"))) == len(summary.settled)
