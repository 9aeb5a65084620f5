"""Shapes shared by every game engine: the exception tree, events and the outcome value."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Mapping


class RulesError(Exception):
    """Base of every illegal call into a game engine (the engine's state is left unchanged)."""


class IllegalActionError(RulesError):
    """The action is not allowed now (wrong phase, piece not available, rule forbids it)."""


class WrongPlayerError(IllegalActionError):
    """It is not this player's turn."""


class GameOverError(IllegalActionError):
    """The game has ended; no more actions are accepted."""


class SetupError(RulesError):
    """The game cannot be set up like this (player count, options)."""


class NeedsConfirmation(RulesError):
    """The engine needs a person's input (a flagged verdict, a choice) before it can go on."""


@dataclass(frozen=True)
class Event:
    """Something that happened, with the points it moved and a sentence that explains it.

    ``kind`` is a short machine name (``"vp_satellite"``, ``"outbound"``, ``"pit_score"`` ...),
    ``player`` the index of the player concerned (or None), ``points`` the change of that player's
    score (0 for events that move no points), ``text`` the explanation a person reads, ``data``
    anything a machine may want (zone ids, margins).
    """

    kind: str
    text: str
    player: int | None = None
    points: int = 0
    data: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the winners (several on a tie), the final scores and why it ended."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    reason: str

    @property
    def winner(self) -> int | None:
        """The single winner, or None when the victory is shared."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def is_tie(self) -> bool:
        return len(self.winners) > 1


def winners_of(scores: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Indices of the players with the highest score (shared victory on a tie)."""
    best = max(scores)
    return tuple(i for i, s in enumerate(scores) if s == best)


class BaseStatus(enum.IntFlag):
    """Each engine defines its own Status(enum.IntFlag) with VALID = 0; this is the common base."""

    VALID = 0
