"""JSON Schemas of the versioned file formats, generated from their pydantic models.

``python -m tableref.schemas [FOLDER]`` regenerates them (default: ``tableref/schemas/`` beside this
module, which is what the package ships).  ``tests/test_docs.py`` fails when the shipped schemas
differ from what the models generate now, so a change to a model must be followed by a regeneration.

One file per format and version, named after its ``format`` value: ``tableref-profile/1`` ->
``profile-1.schema.json``.  Each is ``Model.model_json_schema()`` (JSON Schema draft 2020-12,
validation mode) with three adjustments so that it says what :func:`tableref.files.load_model`
accepts and stays strict JSON:

* ``format`` is listed as required (the model has it as a default, but the loader refuses a file
  without it);
* a default that JSON cannot write (``inf``) is dropped, and said in a ``$comment``;
* ``$schema`` and a ``$comment`` naming the model are added at the top.

A schema checks structure and simple bounds only.  The loader also checks what JSON Schema cannot
say (simple polygons, unique ids, exactly one of ``polygon``/``diameter_mm``, ...); see
``docs/formats.md``.

The models live in the pipeline packages, which depend on this one, so they are imported only when
a schema is built.
"""

from __future__ import annotations

import importlib
import json
import math
import sys
from pathlib import Path
from typing import Any

from .files import write_bytes

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"

# every versioned file kind: "module:Model"
MODELS = (
    "calibration.profile:ProfileFile",
    "calibration.camera:CameraFile",
    "calibration.model:CalibrationFile",
    "simulator.scene:SceneFile",
    "hardware.folder:FramesManifest",
    "referee.recording:RecordingFile",
)


def models() -> list[type]:
    """The pydantic model of every versioned file kind."""
    out = []
    for ref in MODELS:
        module, name = ref.split(":")
        out.append(getattr(importlib.import_module(module), name))
    return out


def format_of(model: type) -> str:
    """The ``format`` value of a file model, e.g. ``tableref-profile/1``."""
    return model.model_fields["format"].default


def schema_filename(model: type) -> str:
    """``tableref-profile/1`` -> ``profile-1.schema.json``."""
    kind, version = format_of(model).split("/")
    return f"{kind.removeprefix('tableref-')}-{version}.schema.json"


def _strip_non_finite(node: Any) -> Any:
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "default" and isinstance(value, float) and not math.isfinite(value):
                out["$comment"] = f"default: {value} (not representable in JSON, so not given here)"
                continue
            out[key] = _strip_non_finite(value)
        return out
    if isinstance(node, list):
        return [_strip_non_finite(v) for v in node]
    return node


def json_schema(model: type) -> dict[str, Any]:
    """The JSON Schema of one file model (see the module docstring for the adjustments)."""
    schema = _strip_non_finite(model.model_json_schema())
    required = list(schema.get("required", []))
    if "format" not in required:
        required.insert(0, "format")
    schema["required"] = required
    head = {"$schema": SCHEMA_DIALECT,
            "$comment": f"'{format_of(model)}' files; generated from {model.__module__}.{model.__name__} "
                        "by 'python -m tableref.schemas', do not edit"}
    return head | schema


def schemas() -> dict[str, dict[str, Any]]:
    """File name -> JSON Schema, for every versioned file kind."""
    return {schema_filename(m): json_schema(m) for m in models()}


def dumps_schema(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_schemas(folder: str | Path = SCHEMA_DIR) -> list[Path]:
    """Write every schema into ``folder`` (atomically, one file per format); returns the paths."""
    folder = Path(folder)
    return [write_bytes(folder / name, dumps_schema(schema).encode("utf-8")) for name, schema in schemas().items()]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0].startswith("-")):
        print("usage: python -m tableref.schemas [FOLDER]  (default: the package's schemas/ folder)", file=sys.stderr)
        return 2
    folder = Path(args[0]) if args else SCHEMA_DIR
    for p in write_schemas(folder):
        print(f"wrote {p}")
    stale = sorted(p.name for p in folder.glob("*.schema.json") if p.name not in schemas())
    if stale:
        print(f"not generated any more (remove if no longer wanted): {', '.join(stale)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
