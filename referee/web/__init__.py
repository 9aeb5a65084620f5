"""The web UI of ``tableref serve``: calibration editor, match log, live view.

``create_app(calibration, log)`` builds the FastAPI app; the live loop updates
``app.state.live`` (a :class:`LiveState`).  Needs the ``web`` extra (FastAPI, uvicorn).
"""

from .live import LiveState

__all__ = ["LiveState", "create_app"]


def create_app(calibration=None, log=None, live=None):
    """See :func:`referee.web.app.create_app` (imported lazily: FastAPI is an optional extra)."""
    from .app import create_app as _create_app

    return _create_app(calibration, log, live)
