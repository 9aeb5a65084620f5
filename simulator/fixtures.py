"""Regenerate the bundled fixtures and built-in profiles (``tableref simulate fixtures|profiles``).

Everything here is deterministic: the same code gives byte-identical JSON and the same pictures.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.nominal import BUILDERS
from calibration.profile import BUILTIN_DIR
from tableref.files import write_image, write_json

from . import art
from .api import simulate, write_scene

# per game: the table (seed) and three layouts of pieces on it; the empty table is the calibration photo
FIXTURE_SEEDS = {"pitchfleet": 101, "pitrush": 201, "galaktico": 301, "asfccg": 401}
FIXTURE_LAYOUTS = (1, 2, 3)
FIXTURE_SIZE = (1920, 1080)
PROFILE_IMAGE_PX_PER_MM = 3.0


def make_profiles(out_dir: Path | None = None) -> list[Path]:
    """Write the nominal profiles and a top-down picture of every tile."""
    out_dir = Path(out_dir) if out_dir else BUILTIN_DIR
    written = []
    for game, build in BUILDERS.items():
        prof = build()
        for tile in prof.tiles:
            if tile.image:
                img = art.tile_art(game, tile, PROFILE_IMAGE_PX_PER_MM, seed=0)
                written.append(write_image(out_dir / tile.image, img))
        for piece in prof.pieces:
            if piece.image and piece.kind == "card":
                fp = piece.footprint()
                size = (float(np.ptp(fp[:, 0])), float(np.ptp(fp[:, 1])))
                img = art.card_art(piece.color == "face_up", 0, 2 * PROFILE_IMAGE_PX_PER_MM, size)
                written.append(write_image(out_dir / piece.image, img))
        written.append(write_json(out_dir / f"{game}.json", prof))
    return written


def make_fixtures(out_dir: Path, docs_dir: Path, progress: bool = True) -> list[Path]:
    """Render the bundled scenes (photo + ground truth) per game and the contact sheet."""
    from rich.progress import track

    jobs = []
    for game, seed in FIXTURE_SEEDS.items():
        jobs.append((game, seed, None, out_dir / "scenes" / game / "empty.jpg"))
        for k in FIXTURE_LAYOUTS:
            jobs.append((game, seed, k, out_dir / "scenes" / game / f"scene-{k:02d}.jpg"))
    written = []
    thumbs: dict[str, list[np.ndarray]] = {}
    it = track(jobs, description="rendering fixtures") if progress else jobs
    for game, seed, layout, path in it:
        scene, result = simulate(game, seed, FIXTURE_SIZE, empty=layout is None, pieces_seed=layout)
        written.extend(write_scene(scene, result, path))
        thumbs.setdefault(game, []).append(result.image)
    written.append(contact_sheet(thumbs, docs_dir / "contact-sheet.png"))
    written.extend(make_game_fixtures(out_dir / "games"))
    return written


GAME_SIZE = (1600, 900)


def make_game_fixtures(out_dir: Path) -> list[Path]:
    """The bundled recorded games: a Pitch Fleet stage, a PitRush Contest and an Arena match."""
    from .games import simulate_pitchfleet_stage, simulate_pitrush_match

    return [simulate_pitchfleet_stage(out_dir / "pitchfleet-stage", seed=11, size=GAME_SIZE),
            simulate_pitrush_match(out_dir / "pitrush-contest", mode="contest", seed=5, size=GAME_SIZE),
            simulate_pitrush_match(out_dir / "pitrush-arena", mode="arena", seed=9, size=GAME_SIZE)]


def contact_sheet(images: dict[str, list[np.ndarray]], path: Path, thumb_w: int = 480) -> Path:
    rows = []
    for game, imgs in images.items():
        row = []
        for im in imgs:
            h = int(round(im.shape[0] * thumb_w / im.shape[1]))
            row.append(cv2.resize(im, (thumb_w, h), interpolation=cv2.INTER_AREA))
        strip = np.concatenate(row, axis=1)
        label = np.full((28, strip.shape[1], 3), 245, np.uint8)
        cv2.putText(label, game, (8, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (30, 30, 30), 1, cv2.LINE_AA)
        rows.append(np.concatenate([label, strip], axis=0))
    width = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, width - r.shape[1]), (0, 0)), constant_values=245) for r in rows]
    return write_image(path, np.concatenate(rows, axis=0))
