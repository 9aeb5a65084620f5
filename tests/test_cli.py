"""The CLI's answers: --help on every verb, bad input as one line and exit status 2, no traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from referee.cli import main

VERBS = [[], ["calibrate"], ["calibrate", "camera"], ["calibrate", "board"], ["calibrate", "pieces"], ["profile"], ["profile", "learn"],
         ["detect"], ["replay"], ["live"], ["serve"], ["simulate"], ["simulate", "scene"], ["simulate", "fixtures"],
         ["simulate", "profiles"], ["bench"], ["bench", "calibration"], ["bench", "accuracy"], ["bench", "speed"]]


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: " ".join(v) or "tableref")
def test_help_on_every_verb(verb):
    r = CliRunner().invoke(main, verb + ["--help"])
    assert r.exit_code == 0, r.output
    assert "Usage:" in r.output


def run(*args: str) -> subprocess.CompletedProcess:
    """Run the real console entry point in a subprocess (what a user sees)."""
    return subprocess.run([sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, timeout=120)


def assert_one_line_error(r: subprocess.CompletedProcess, *fragments: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert lines[0].startswith("tableref: error: ")
    for f in fragments:
        assert f in lines[0], lines[0]


def test_bad_size_is_one_line(tmp_path):
    r = run("simulate", "scene", "--game", "pitrush", "--size", "huge", "-o", str(tmp_path / "x.jpg"))
    assert_one_line_error(r, "--size", "WxH")
    assert not list(tmp_path.iterdir())


def test_unknown_image_extension_writes_nothing(tmp_path):
    r = run("simulate", "scene", "--game", "asfccg", "--size", "320x240", "-o", str(tmp_path / "x.gif"))
    assert_one_line_error(r, ".jpg or .png")
    assert not list(tmp_path.iterdir())


def test_usage_errors_exit_2():
    r = run("simulate", "scene", "--game", "chess", "-o", "x.jpg")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


def test_calibrate_pieces_without_pieces_is_one_line_and_writes_nothing(tmp_path):
    """'tableref calibrate pieces' on a photo with no piece in it, or told to write elsewhere than
    beside the calibration: one line, exit status 2, the calibration unchanged."""
    from pathlib import Path

    empty = Path(__file__).resolve().parent.parent / "fixtures" / "scenes" / "pitrush" / "empty.jpg"
    r = run("calibrate", "board", str(empty), "--profile", "pitrush", "-o", str(tmp_path / "cal.json"))
    assert r.returncode == 0, r.stderr
    before = (tmp_path / "cal.json").read_bytes()
    r = run("calibrate", "pieces", str(empty), "--calibration", str(tmp_path / "cal.json"))
    assert_one_line_error(r, "no pieces found", "lay out")
    (tmp_path / "other").mkdir()
    r = run("calibrate", "pieces", str(empty), "--calibration", str(tmp_path / "cal.json"),
            "-o", str(tmp_path / "other" / "cal.json"))
    assert_one_line_error(r, "beside")
    assert (tmp_path / "cal.json").read_bytes() == before and not list((tmp_path / "other").iterdir())


def test_bench_accuracy_measures_the_tables_from_the_first_seed_asked(monkeypatch):
    """Held-out tables: ``--first-seed`` chooses which simulated tables are judged (the jobs are
    caught before any is rendered)."""
    import referee.bench as bench

    jobs = []
    monkeypatch.setattr(bench, "_run_jobs", lambda fn, todo, workers, on_row: jobs.extend(todo) or [])
    r = CliRunner().invoke(main, ["bench", "accuracy", "--games", "pitrush,galaktico", "--scenes", "3",
                                  "--first-seed", "8000"])
    assert r.exit_code == 0, r.output
    assert sorted((j[0], j[1]) for j in jobs) == [(g, s) for g in ("galaktico", "pitrush") for s in (8000, 8001, 8002)]
    assert "from seed 8000" in r.output
    jobs.clear()
    assert CliRunner().invoke(main, ["bench", "accuracy", "--games", "pitrush", "--scenes", "2"]).exit_code == 0
    assert [j[1] for j in jobs] == [7000, 7001]


def test_bench_photos_drawn_otherwise_are_kept_apart(tmp_path, monkeypatch, request):
    """The bench keeps the photos it draws; one drawn by another OpenCV, simulator or profile is
    another photo, kept in another folder, not measured as this one (an upgrade or a change to the
    simulator would otherwise be measured on the old photos)."""
    import cv2

    from referee import bench

    request.addfinalizer(bench.render_key.cache_clear)
    monkeypatch.setenv("TABLEREF_CACHE", str(tmp_path))
    bench.render_key.cache_clear()
    here = bench.cache_dir()
    assert here == tmp_path / "bench" / bench.render_key() and here.is_dir()
    assert bench.render_key() == here.name  # (the same files and libraries: the same folder)
    monkeypatch.setattr(cv2, "__version__", cv2.__version__ + ".1")
    bench.render_key.cache_clear()
    assert bench.cache_dir() != here
    monkeypatch.undo()
    monkeypatch.setenv("TABLEREF_CACHE", str(tmp_path))
    monkeypatch.setattr(bench, "_RENDER_SOURCES", bench._RENDER_SOURCES + ("rules/pitrush.py",))
    bench.render_key.cache_clear()
    assert bench.cache_dir() != here


def test_bench_accuracy_jitter_is_for_single_photos():
    """``--jitter`` re-reads single photos; with ``--in-play`` it is a usage error (one line, status 2),
    caught before any scene is rendered."""
    r = run("bench", "accuracy", "--games", "pitrush", "--scenes", "1", "--jitter", "2", "--in-play")
    assert_one_line_error(r, "--jitter", "--in-play")


def test_a_jittered_photo_is_the_same_photo_to_the_eye():
    """The bench's jitter moves about a third of the values by one grey level, hardly any by two,
    keeps the photo's shape and type and stays within 0-255."""
    import numpy as np

    from referee.bench import jittered

    img = np.random.default_rng(3).integers(0, 256, (200, 300, 3)).astype(np.uint8)
    img[:10] = 0
    img[-10:] = 255
    out = jittered(img, np.random.default_rng(0))
    assert out.shape == img.shape and out.dtype == np.uint8
    d = np.abs(out.astype(int) - img.astype(int))[10:-10]
    assert 0.25 < np.mean(d == 1) < 0.4 and np.mean(d >= 2) < 0.01 and d.max() <= 3
    assert not np.array_equal(out, jittered(img, np.random.default_rng(1)))


def test_piece_readings_compare_two_readings_piece_by_piece():
    """A found piece's reading is what was detected for each of its verdicts, a missed one's is
    'missed'; its margin is the smallest over its verdicts."""
    from referee.bench import piece_readings
    from vision.evaluate import SceneScore

    s = SceneScore(3, 1, 0, verdicts={"kind": [("disc", "disc", 4.0), ("disc", "disc", 0.5)],
                                       "outbound": [("False", "True", 2.0), ("False", "False", 0.8)],
                                       "zones": []},
                   missed_ids=[1], matched=[(2, 0), (0, 1)])
    r, margins = piece_readings(s)
    assert r[1] == ("missed",)
    assert r[2] == (("kind", "disc"), ("outbound", "True")) and r[0] == (("kind", "disc"), ("outbound", "False"))
    assert margins == {2: 2.0, 0: 0.5}


def test_flagged_pieces_are_the_true_pieces_whose_match_the_reading_flagged():
    """Of a scored reading, the true pieces whose matched detection is flagged for a person: a
    missed piece is never among them, and detections are looked up by their index, not the piece's."""
    import numpy as np

    from referee.bench import flagged_pieces
    from vision.evaluate import SceneScore

    s = SceneScore(4, 1, 0, missed_ids=[1], matched=[(2, 0), (0, 1), (3, 2)])
    assert flagged_pieces(s, np.array([True, False, True])) == {2, 3}
    assert flagged_pieces(s, np.array([False, True, False])) == {0}
    assert flagged_pieces(s, np.zeros(3, bool)) == set()


def test_a_slow_compile_is_announced_and_taken_back(monkeypatch):
    """The first run after installing compiles the pose fit (~20 s): past a second the CLI says so
    in the display it is given, takes the news back when done, and reports the time."""
    import time

    import vision.kernels
    from referee.cli import _compiled

    said = []
    monkeypatch.setattr(vision.kernels, "compile_all", lambda: time.sleep(1.3))
    took = _compiled(said.append)
    assert said[0].startswith("compiling the pose fit") and said[1:] == [None]
    assert 1.3 <= took < 5
    said.clear()
    monkeypatch.setattr(vision.kernels, "compile_all", lambda: None)   # (cached: nothing to say)
    assert _compiled(said.append) < 1.0 and said == []
