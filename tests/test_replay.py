"""End to end: the bundled recorded games, refereed from their photos, reach the expected scores.

The expected scores come from the rules engine fed with the simulator's exact verdicts; the replay
sees only the photos and the players' inputs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from referee.recording import Recording
from referee.replay import replay
from tableref.errors import InputError

GAMES = Path(__file__).resolve().parent.parent / "fixtures" / "games"


@pytest.mark.parametrize("name", ["pitchfleet-stage", "pitrush-contest", "pitrush-arena"])
def test_replay_reaches_the_expected_scores(tmp_path, name):
    res = replay(GAMES / name, tmp_path)
    assert res.scores == res.expected["scores"]
    # every judged frame has its overlay
    assert len(res.overlays) == res.frames and all(p.exists() for p in res.overlays)
    if name == "pitchfleet-stage":
        # the same events, in the same words, as the engine gave on the exact verdicts
        got = [e.text for e in res.events if e.kind != "review"]
        assert got == res.expected["events"]


def test_replay_cli_json(tmp_path):
    r = subprocess.run([sys.executable, "-m", "referee.cli", "replay", str(GAMES / "pitrush-arena"), "--json",
                        "--out", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert list(doc["scores"].values()) == json.loads((GAMES / "pitrush-arena" / "manifest.json").read_text())[
        "expected"]["scores"]


def test_recording_errors_are_clear(tmp_path):
    with pytest.raises(InputError, match="no such recording folder"):
        Recording(tmp_path / "nope")
    (tmp_path / "rec").mkdir()
    with pytest.raises(InputError, match="no manifest.json"):
        Recording(tmp_path / "rec")
    manifest = json.loads((GAMES / "pitrush-arena" / "manifest.json").read_text())
    manifest["turns"][0]["shots"][0]["frame"] = "frames/missing.jpg"
    (tmp_path / "rec" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="missing"):
        Recording(tmp_path / "rec")
