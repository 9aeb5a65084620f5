"""Convenience entry points of the simulator: one scene to files, scenes in memory."""

from __future__ import annotations

from pathlib import Path

from tableref.errors import InputError
from tableref.files import write_bytes, write_image, write_json

from .generate import SceneOptions, random_scene
from .render import RenderResult, render_scene
from .scene import SceneFile


def simulate(game: str, seed: int, size: tuple[int, int] = (1920, 1080), empty: bool = False,
             options: SceneOptions | None = None, pieces_seed: int | None = None) -> tuple[SceneFile, RenderResult]:
    """A random scene of ``game`` and its rendering (image, label map, JPEG bytes)."""
    opt = options or SceneOptions()
    opt.image_size = size
    scene = random_scene(game, seed, opt, with_pieces=not empty, pieces_seed=pieces_seed)
    return scene, render_scene(scene)


def write_scene(scene: SceneFile, result: RenderResult, out: Path) -> tuple[Path, Path]:
    """Write the photo (JPEG as the simulated camera encoded it, or PNG) and ``<stem>.json`` beside it."""
    out = Path(out)
    ext = out.suffix.lower()
    if ext not in (".jpg", ".jpeg", ".png"):
        raise InputError(f"{out}: the image must be .jpg or .png")
    scene.image = out.name
    truth = out.with_suffix(".json")
    if ext in (".jpg", ".jpeg") and result.jpeg is not None:
        write_bytes(out, result.jpeg)
    else:
        write_image(out, result.image)
    write_json(truth, scene)
    return out, truth


def render_to_files(game: str, seed: int, out: Path, size: tuple[int, int], empty: bool = False) -> tuple[Path, Path]:
    scene, result = simulate(game, seed, size, empty)
    return write_scene(scene, result, out)
