"""One exception tree for everything the referee refuses on purpose.

Every error here carries a message written for the person at the table: what is wrong and
what to do.  The CLI prints ``str(error)`` on one line and exits with status 2; it never shows a
traceback for these.  Programming errors (bugs) are ordinary Python exceptions and are not
caught.
"""

from __future__ import annotations


class TablerefError(Exception):
    """Base of every deliberate refusal.  ``str(e)`` is one line: the problem, then the remedy."""

    def __init__(self, message: str, hint: str | None = None):
        self.message = message
        self.hint = hint
        super().__init__(message)

    def __str__(self) -> str:  # one line, problem then remedy
        if self.hint:
            return f"{self.message}; {self.hint}"
        return self.message


class InputError(TablerefError):
    """A file or argument the user gave is missing, unreadable or malformed."""


class FileFormatError(InputError):
    """A versioned JSON file failed validation.

    Attributes name the file, the field (dotted path, ``tiles[2].size_mm``) and what was expected.
    """

    def __init__(self, path: str, field: str | None, expected: str, hint: str | None = None):
        self.path = str(path)
        self.field = field
        self.expected = expected
        where = f"{self.path}: field '{field}'" if field else self.path
        super().__init__(f"{where}: {expected}", hint)


class ImageError(InputError):
    """An image file is missing, empty, corrupt or truncated."""


class BoardNotFound(TablerefError):
    """Calibration could not find (all of) the boards of the profile in a photo.

    ``reason`` says what was not found; ``overlay`` optionally holds a BGR image of what was seen,
    which the CLI writes when the user asked for an overlay; ``consistent``, where boards were
    looked for and not found, how many consistent features of each the photo showed.
    """

    def __init__(self, reason: str, hint: str | None = None, overlay=None, consistent: dict[str, int] | None = None):
        self.reason = reason
        self.overlay = overlay
        self.consistent = consistent
        super().__init__(f"board not found: {reason}", hint)


class CalibrationRejected(TablerefError):
    """A calibration exists but its quality figures are out of bounds; the referee refuses it."""


class CameraError(TablerefError):
    """A frame source could not be opened or stopped delivering frames."""


class NotBuiltYet(TablerefError):
    """A verb or option that is planned but not implemented yet."""
