"""docs/formats.md, the shipped JSON Schemas and docs/examples/ stay in step with the file models."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest

from calibration.model import CalibrationFile, Layout
from calibration.profile import BUILTIN_DIR, BoardProfile, ProfileFile
from tableref import schemas as S
from tableref.errors import FileFormatError
from tableref.files import load_model

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
FORMATS_MD = DOCS / "formats.md"
PACKAGES = ("tableref", "hardware", "calibration", "vision", "rules", "referee", "simulator")

# Formats defined in the code but not yet documented.  Each entry must name why; remove it once the
# model is in tableref.schemas.MODELS and has a section in docs/formats.md.
PENDING: dict[str, str] = {}


@pytest.fixture(scope="module")
def generated() -> dict[str, dict]:
    return S.schemas()


@pytest.fixture(scope="module")
def by_format() -> dict[str, tuple[type, dict]]:
    return {S.format_of(m): (m, S.json_schema(m)) for m in S.models()}


def _validator(schema: dict) -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


# ------------------------------------------------------------------------------------- schemas

def test_shipped_schemas_equal_the_generated_ones(generated):
    shipped = {p.name for p in S.SCHEMA_DIR.glob("*.json")}
    assert shipped == set(generated), (
        f"tableref/schemas/ holds {sorted(shipped)}, the models give {sorted(generated)}: "
        "run 'python -m tableref.schemas' (and remove stale files)")
    for name, schema in generated.items():
        text = (S.SCHEMA_DIR / name).read_text(encoding="utf-8")
        assert json.loads(text) == schema, f"{name} is out of date: run 'python -m tableref.schemas'"
        assert text == S.dumps_schema(schema), f"{name} is not formatted as generated: run 'python -m tableref.schemas'"


def test_schemas_are_valid_strict_json_schemas(generated):
    for name, schema in generated.items():
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == S.SCHEMA_DIALECT
        assert schema["required"][0] == "format", name
        json.dumps(schema, allow_nan=False)  # no Infinity/NaN: readable by any JSON parser


def test_write_schemas_writes_what_is_shipped(tmp_path, generated):
    written = S.write_schemas(tmp_path / "out")
    assert sorted(p.name for p in written) == sorted(generated)
    for p in written:
        assert p.read_bytes() == (S.SCHEMA_DIR / p.name).read_bytes()


def test_every_versioned_format_in_the_code_has_a_schema():
    """A ``format: Literal["tableref-.../N"]`` anywhere in the packages must be in tableref.schemas.MODELS."""
    found = set()
    for pkg in PACKAGES:
        for py in (ROOT / pkg).rglob("*.py"):
            found |= set(re.findall(r'Literal\["(tableref-[a-z-]+/\d+)"\]', py.read_text(encoding="utf-8")))
    known = {S.format_of(m) for m in S.models()}
    assert known <= found
    missing = found - known - set(PENDING)
    assert not missing, f"add {sorted(missing)} to tableref.schemas.MODELS and docs/formats.md"
    done = set(PENDING) & known
    assert not done, f"{sorted(done)} now has a schema: remove it from PENDING in tests/test_docs.py"
    gone = set(PENDING) - found
    assert not gone, f"{sorted(gone)} is no longer in the code: remove it from PENDING in tests/test_docs.py"


# ------------------------------------------------------------------------------------- examples

def _example_files() -> list[Path]:
    return sorted(EXAMPLES.rglob("*.json"))


def test_there_is_an_example_of_every_format(by_format):
    formats = {json.loads(p.read_text())["format"] for p in _example_files()}
    assert formats == set(by_format), f"examples cover {sorted(formats)}, the formats are {sorted(by_format)}"


@pytest.mark.parametrize("path", _example_files(), ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_example_validates_against_model_and_schema(path, by_format):
    data = json.loads(path.read_text(encoding="utf-8"))
    model, schema = by_format[data["format"]]
    load_model(path, model)
    _validator(schema).validate(data)


@pytest.mark.parametrize("game", sorted(p.stem for p in BUILTIN_DIR.glob("*.json")))
def test_builtin_profile_validates_against_the_profile_schema(game, by_format):
    _, schema = by_format["tableref-profile/1"]
    _validator(schema).validate(json.loads((BUILTIN_DIR / f"{game}.json").read_text(encoding="utf-8")))


def test_schema_refuses_what_the_loader_refuses(tmp_path, by_format):
    """Structural mistakes are caught by both: a wrong version, a misspelt field, a negative radius, no format."""
    model, schema = by_format["tableref-profile/1"]
    good = json.loads((EXAMPLES / "profile.json").read_text())
    mutations = [
        lambda d: d.__setitem__("format", "tableref-profile/2"),
        lambda d: d.pop("format"),
        lambda d: d["pieces"][0].__setitem__("colour", "red"),
        lambda d: d["tiles"][0]["pits"][0].__setitem__("radius", -17.0),
        lambda d: d["tiles"][0].__setitem__("size_mm", [240.0]),
        lambda d: d["arrangement"].__setitem__("kind", "loose"),
    ]
    for i, mutate in enumerate(mutations):
        data = copy.deepcopy(good)
        mutate(data)
        p = tmp_path / f"bad{i}.json"
        p.write_text(json.dumps(data))
        with pytest.raises(FileFormatError):
            load_model(p, model)
        assert not _validator(schema).is_valid(data), i


def test_example_calibration_belongs_to_the_example_profile():
    """calibration.json was made from profile.json: its table-frame geometry follows from the placements."""
    cal = load_model(EXAMPLES / "calibration.json", CalibrationFile)
    assert cal.profile is not None
    profile = BoardProfile.load(EXAMPLES / cal.profile)
    assert cal.profile_name == profile.data.name and cal.game == profile.game
    lay = Layout(profile, cal.placements)

    def dump(items):
        return [i.model_dump(mode="json") for i in items]

    assert dump(cal.zones) == dump(lay.zones())
    assert dump(cal.pits) == dump(lay.pits())
    assert json.loads(json.dumps(dump(cal.seats))) == json.loads(json.dumps(dump(lay.seats())))
    assert cal.table_depth_mm == lay.table_depth_mm
    for name in (cal.source_image, cal.reference_image):
        assert name and (EXAMPLES / name).is_file(), name
    for tile in profile.tiles:
        img, ppm = profile.load_tile_image(tile)
        assert img is not None and ppm == pytest.approx(3.0)


def test_example_scene_of_the_empty_table_names_its_profile():
    from simulator.scene import SceneFile

    scene = load_model(EXAMPLES / "empty.json", SceneFile)
    assert scene.load_profile(EXAMPLES).data.name == "Example board"
    assert scene.image and (EXAMPLES / scene.image).is_file()


# ------------------------------------------------------------------------------------- formats.md

def test_formats_md_names_every_format_and_schema(by_format):
    text = FORMATS_MD.read_text(encoding="utf-8")
    for fmt, (model, _) in by_format.items():
        assert f"`{fmt}`" in text, fmt
        assert S.schema_filename(model) in text, S.schema_filename(model)
    for p in _example_files():
        assert str(p.relative_to(DOCS)) in text, p


def test_formats_md_documents_every_field(by_format):
    """Every field of every format (and of its parts) appears in formats.md as `name` or `parent.name`."""
    text = FORMATS_MD.read_text(encoding="utf-8")
    missing = []
    for fmt, (_, schema) in by_format.items():
        objects = {schema["title"]: schema, **schema.get("$defs", {})}
        for title, obj in objects.items():
            for name in obj.get("properties", {}):
                if not re.search(rf"`(?:[\w.\[\]]+\.)?{re.escape(name)}`", text):
                    missing.append(f"{fmt}: {title}.{name}")
    assert not missing, f"not documented in docs/formats.md: {missing}"


def _close(a, b, rel: float = 1e-9) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == pytest.approx(b, rel=rel, abs=1e-12)
    return a == b


def test_json_blocks_marked_as_files_equal_the_files():
    """A ```json block right after ``<!-- file: examples/X.json -->`` must be the content of that file."""
    text = FORMATS_MD.read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- file: (\S+) -->\s*```json\n(.*?)```", text, flags=re.DOTALL)
    assert {b[0] for b in blocks} >= {"examples/profile.json", "examples/calibration.json"}
    for rel, body in blocks:
        # numbers to 1e-9 relative: regenerating an example may move the last digits (threaded OpenCV)
        assert _close(json.loads(body), json.loads((DOCS / rel).read_text(encoding="utf-8"))), (
            f"the copy of {rel} in docs/formats.md differs from the file: update it")


def _mutated_profile(tmp_path: Path, name: str, mutate) -> str:
    data = json.loads((EXAMPLES / "profile.json").read_text())
    mutate(data)
    (tmp_path / name).write_text(json.dumps(data, indent=2))
    return name


@pytest.mark.parametrize("name,mutate", [
    ("my-board.json", lambda d: d["tiles"][0]["pits"][0].__setitem__("radius", -17.0)),
    ("newer.json", lambda d: d.__setitem__("format", "tableref-profile/2")),
    ("camera.json", lambda d: d.__setitem__("format", "tableref-camera/1")),
])
def test_error_messages_shown_in_formats_md_are_real(tmp_path, monkeypatch, name, mutate):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileFormatError) as e:
        load_model(_mutated_profile(tmp_path, name, mutate), ProfileFile)
    line = f"tableref: error: {e.value}"
    assert line in FORMATS_MD.read_text(encoding="utf-8"), f"formats.md should show: {line}"
