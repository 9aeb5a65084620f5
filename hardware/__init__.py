"""Frame sources: cameras (picamera2, USB/OpenCV), recorded folders and the simulator, behind one interface.

``open_source(spec, **options)`` opens one (``usb:0``, ``pi``, ``folder:PATH``, ``video:PATH``,
``sim:GAME[:SEED][:empty]``; see :mod:`hardware.source`); every source is a :class:`FrameSource`
used as a context manager whose ``read()`` returns a :class:`Frame`.
"""

from .source import EndOfStream, Frame, FrameSource, open_source

__all__ = ["EndOfStream", "Frame", "FrameSource", "open_source"]
