"""Regenerate the example files of docs/formats.md (run from anywhere: ``python docs/examples/make_examples.py``).

``profile.json`` and ``frames.json`` are written by hand; everything else here is made by running
tableref:

* ``board.jpg``    the top-down picture of the example board (3 px/mm), painted by the simulator;
* ``empty.jpg``    a simulated photo of the empty table with the board, and ``empty.json``, its
                   ``tableref-scene/1`` ground truth;
* ``calibration.json`` (and ``calibration.reference.jpg``, ``overlay.jpg``) from
                   ``tableref calibrate board --profile profile.json empty.jpg -o calibration.json``;
* ``camera.json``  from ``tableref calibrate camera --chessboard 9x6 --square-mm 25 --fix-aspect`` on
                   OpenCV's 13 sample chessboard photos (``left01.jpg`` ...), when a folder holding
                   them is given with ``--chessboard DIR``;
* ``scene.json``   an excerpt (five pieces) of ``fixtures/scenes/pitrush/scene-02.json``.

The simulator paints the boards of a game it does not know (``"game": "generic"``) as plain grey
card with the dotted lines, too little print for registration to find.  Real boards have print,
so this script paints the example board as birch plywood (the PitRush board's look) with the
dotted line of its zone, both in ``board.jpg`` and in the photo.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SEED = 4                      # the simulated table (camera, light, board placement)
PHOTO_SIZE = (960, 720)
PROFILE_PX_PER_MM = 3.0
SCENE_SOURCE = ROOT / "fixtures" / "scenes" / "pitrush" / "scene-02.json"
SCENE_PIECES = (0, 1, 2, 3, 5)  # in a pit, on the board, stacked in a pit, hanging on a pit's rim, off the board


def _board_art(tile, s: float, seed: int = 0):
    from simulator import art
    from simulator.art_boards import pitrush_board
    from simulator.art_common import Canvas

    cv = Canvas(tile.size_mm[0], tile.size_mm[1], s, pitrush_board(tile, s, seed))
    for z in tile.zones:
        cv.dotted_outline(z.geometry(), (40, 40, 40), art.DOT_MM, art.PITCH_MM)
    return cv.img


def _run(*args: str) -> None:
    cmd = [sys.executable, "-m", "referee.cli", *args]
    print("$ tableref " + " ".join(args))
    r = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True, check=False)
    print(r.stdout + r.stderr, end="")
    if r.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")


def make_board_and_photo() -> None:
    from calibration.profile import BoardProfile
    from simulator import art
    from simulator.api import write_scene
    from simulator.generate import SceneOptions, empty_scene
    from simulator.render import render_scene
    from tableref.files import write_image

    art.GAME_ART["generic"] = _board_art
    profile = BoardProfile.load(HERE / "profile.json")
    for tile in profile.tiles:
        write_image(HERE / tile.image, art.tile_art(profile.game, tile, PROFILE_PX_PER_MM), jpeg_quality=90)
    scene = empty_scene(profile.game, SEED, SceneOptions(image_size=PHOTO_SIZE), profile=profile)
    scene.profile = "profile.json"
    photo, truth = write_scene(scene, render_scene(scene, profile), HERE / "empty.jpg")
    print(f"wrote {photo} and {truth}")


def make_scene_excerpt() -> None:
    from simulator.scene import SceneFile
    from tableref.files import validate_model, write_json

    data = json.loads(SCENE_SOURCE.read_text())
    data["pieces"] = [p for p in data["pieces"] if p["id"] in SCENE_PIECES]
    write_json(HERE / "scene.json", validate_model(data, SceneFile, SCENE_SOURCE))
    print(f"wrote {HERE / 'scene.json'} (pieces {list(SCENE_PIECES)} of {SCENE_SOURCE.relative_to(ROOT)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chessboard", type=Path, help="folder with OpenCV's sample photos left01.jpg ... left14.jpg")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    make_board_and_photo()
    _run("calibrate", "board", "--profile", "profile.json", "empty.jpg", "-o", "calibration.json",
         "--overlay", "overlay.jpg")
    if args.chessboard:
        photos = sorted(str(p.resolve()) for p in args.chessboard.glob("left*.jpg"))
        _run("calibrate", "camera", "--chessboard", "9x6", "--square-mm", "25", "--fix-aspect", *photos,
             "-o", "camera.json")
    make_scene_excerpt()


if __name__ == "__main__":
    main()
