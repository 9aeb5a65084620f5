"""tableref: shared foundations of the referee (errors, versioned files, configuration).

The pipeline stages live in their own top-level packages and depend on this one only:
``hardware`` (frames) -> ``calibration`` (camera + boards) -> ``vision`` (pieces, judgement)
-> ``rules`` (pure game engines) -> ``referee`` (live loop, replay, log, UI).
"""

__version__ = "0.1.0"
