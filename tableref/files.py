"""Versioned JSON files and images: reading with clear errors, writing atomically.

Every file a user keeps (camera, profile, calibration, scene ground truth, recorded-game manifest)
is JSON whose first field ``format`` names its kind and version, e.g. ``"tableref-profile/1"``.
Each kind is a pydantic model; :func:`load_model` validates a file and turns the first problem into a
:class:`~tableref.errors.FileFormatError` that names the file, the field and what was expected.

Writers never leave a half-written file: they write a temporary file beside the target and rename
it into place.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pydantic

from .errors import FileFormatError, ImageError, InputError

M = TypeVar("M", bound=pydantic.BaseModel)


class FileModel(pydantic.BaseModel):
    """Base of every versioned file kind.

    Subclasses declare ``format: Literal["tableref-<kind>/<version>"] = "tableref-<kind>/<version>"``
    as their first field; unknown fields are refused so that a typo is caught, not ignored.
    """

    model_config = pydantic.ConfigDict(extra="forbid")


class Part(pydantic.BaseModel):
    """Base of the nested parts of a file (no ``format`` of their own; unknown fields refused)."""

    model_config = pydantic.ConfigDict(extra="forbid")


def _format_loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe_validation_error(path: str | os.PathLike[str], err: pydantic.ValidationError) -> FileFormatError:
    """Turn the first pydantic error into a FileFormatError naming file, field and expectation.

    An unknown field is reported before a missing one: a misspelt name causes both.
    """
    errors = err.errors(include_url=False)
    first = next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])
    loc = tuple(p for p in first.get("loc", ()) if not (isinstance(p, str) and p.startswith("function-")))
    msg = first.get("msg", "invalid value")
    kind = first.get("type", "")
    if kind == "missing":
        expected = "is required but missing"
    elif kind == "extra_forbidden":
        expected = "is not a known field (misspelt, or from a newer version?)"
    else:
        got = first.get("input", None)
        if kind == "value_error" and msg.lower().startswith("value error, "):
            msg = msg[len("value error, "):]
        expected = f"{msg[0].lower() + msg[1:] if msg else 'invalid'} (got {_short(got)})"
        expected = "expected: " + expected if not expected.startswith("expected") else expected
    more = len(err.errors()) - 1
    hint = f"{more} more problem(s) after this one" if more else None
    return FileFormatError(str(path), _format_loc(loc), expected, hint)


def read_json(path: str | os.PathLike[str], what: str = "file") -> Any:
    """Read a JSON document, raising InputError with a one-line reason on any failure."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such {what}", "check the path")
    if p.is_dir():
        raise InputError(f"{p}: is a folder, expected a {what} (JSON)")
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{p}: not a text file, expected a {what} (JSON)") from None
    except OSError as e:
        raise InputError(f"{p}: cannot read ({e.strerror})") from None
    if not text.strip():
        raise InputError(f"{p}: empty file, expected a {what} (JSON)", "regenerate it")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FileFormatError(str(p), None, f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}",
                              "fix the file or regenerate it") from None


def validate_model(data: Any, model: type[M], path: str | os.PathLike[str] = "<data>") -> M:
    """Validate already-parsed JSON against a versioned model (checks ``format`` first)."""
    expected_format = model.model_fields["format"].default if "format" in model.model_fields else None
    if expected_format is not None:
        if not isinstance(data, dict):
            raise FileFormatError(str(path), None, f"expected a JSON object with format '{expected_format}'")
        found = data.get("format")
        if found is None:
            raise FileFormatError(str(path), "format", f"is required but missing (expected '{expected_format}')")
        if found != expected_format:
            same_kind = isinstance(found, str) and found.split("/")[0] == expected_format.split("/")[0]
            hint = ("this version of tableref reads version " + expected_format.split("/")[-1]
                    if same_kind else "is this the right file?")
            raise FileFormatError(str(path), "format", f"expected '{expected_format}', got {_short(found)}", hint)
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        raise describe_validation_error(path, e) from None


def load_model(path: str | os.PathLike[str], model: type[M], what: str | None = None) -> M:
    """Read and validate a versioned JSON file."""
    what = what or model.__name__
    return validate_model(read_json(path, what), model, path)


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, pydantic.BaseModel):
        return obj.model_dump(mode="json")
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def dumps(data: Any) -> str:
    if isinstance(data, pydantic.BaseModel):
        data = data.model_dump(mode="json", exclude_none=True)
    return json.dumps(data, indent=1, default=_json_default, ensure_ascii=False) + "\n"


def write_json(path: str | os.PathLike[str], data: Any) -> Path:
    """Write JSON (a model or plain data) atomically; returns the path written."""
    p = Path(path)
    _atomic_write_bytes(p, dumps(data).encode("utf-8"))
    return p


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    p = Path(path)
    _atomic_write_bytes(p, data)
    return p


def cache_dir(name: str) -> Path:
    """The folder ``name`` of tableref's cache ($TABLEREF_CACHE, or ~/.cache/tableref); not created."""
    return Path(os.environ.get("TABLEREF_CACHE", Path.home() / ".cache" / "tableref")) / name


# ----------------------------------------------------------------------------------------- images

_IMAGE_EXT = {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}


def _looks_truncated(data: bytes) -> str | None:
    """Return why the encoded image looks cut short, or None."""
    if data[:3] == b"\xff\xd8\xff":  # JPEG: must end with EOI (allow trailing padding)
        if b"\xff\xd9" not in data[-64:]:
            return "the JPEG data is cut short (no end-of-image marker)"
    elif data[:8] == b"\x89PNG\r\n\x1a\n":
        if b"IEND" not in data[-32:]:
            return "the PNG data is cut short (no IEND chunk)"
    return None


def read_image(path: str | os.PathLike[str], grayscale: bool = False) -> np.ndarray:
    """Read an image as BGR uint8 (or grey), refusing missing, empty, corrupt and truncated files."""
    import cv2

    p = Path(path)
    if not p.exists():
        raise ImageError(f"{p}: no such image", "check the path")
    if p.is_dir():
        raise ImageError(f"{p}: is a folder, expected an image file")
    data = p.read_bytes()
    if not data:
        raise ImageError(f"{p}: empty file, expected an image", "re-take or re-copy the photo")
    why = _looks_truncated(data)
    if why:
        raise ImageError(f"{p}: {why}", "re-take or re-copy the photo")
    arr = np.frombuffer(data, np.uint8)
    img = cv2.imdecode(arr, cv2.IMREAD_GRAYSCALE if grayscale else cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        raise ImageError(f"{p}: not a readable image (corrupt, or not PNG/JPEG)", "re-take or re-copy the photo")
    return img


def write_image(path: str | os.PathLike[str], img: np.ndarray, jpeg_quality: int = 92) -> Path:
    """Encode and write an image atomically; the format follows the extension (.png, .jpg)."""
    import cv2

    p = Path(path)
    ext = p.suffix.lower()
    if ext not in _IMAGE_EXT:
        raise InputError(f"{p}: unknown image extension '{ext}'", "use .png or .jpg")
    params = [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)] if ext in (".jpg", ".jpeg") else []
    ok, buf = cv2.imencode(ext, img, params)
    if not ok:
        raise InputError(f"{p}: could not encode the image")
    _atomic_write_bytes(p, buf.tobytes())
    return p
