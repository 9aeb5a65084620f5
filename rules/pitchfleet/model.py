"""Pitch Fleet value types: planets, locations, starships, beams and the judged result of a shot.

All of them are frozen dataclasses (hashable, comparable); the referee builds the scene types
(:class:`ShipResult`, :class:`BeamResult`, :class:`ShotResult`) from the vision judgement of a
settled scene.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

#: The nine planet boards; the lower-case ids are the board/tile ids the referee uses.
PLANETS: tuple[str, ...] = ("mercury", "venus", "earth", "mars", "jupiter", "saturn", "uranus", "neptune", "pluto")

TEAMS: tuple[str, ...] = ("red", "blue")

#: How many planet cards make the planet deck, by number of players (rulebook, Preparation 3).
PLANET_CARDS_BY_PLAYERS: dict[int, int] = {2: 8, 3: 7, 4: 6, 5: 5, 6: 4}

#: Zone id of the planet zone on every board (same convention as the calibration profiles).
PLANET_ZONE = "planet"


class _Value:
    """Mixin for frozen values: copying returns the value itself (cheap state snapshots)."""

    __slots__ = ()

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def planet_name(board: str) -> str:
    """``"mars"`` -> ``"Mars"``."""
    return board[:1].upper() + board[1:]


def possessive(board: str) -> str:
    """``"mars"`` -> ``"Mars'"``, ``"earth"`` -> ``"Earth's"``."""
    name = planet_name(board)
    return name + ("'" if name.endswith("s") else "'s")


class LocationKind(enum.Enum):
    """The kinds of dotted-line locations printed on a planet board (values = calibration zone kinds)."""

    PLANET = "planet"
    SATELLITE = "satellite"
    CHARGING_SATELLITE = "charging_satellite"
    ASTEROID_BELT = "asteroid_belt"


@dataclass(frozen=True, order=True)
class Location(_Value):
    """One location (zone) of a planet board: ``board`` is a planet id, ``zone`` the zone id on it.

    ``stars`` is the VP of a VP satellite (0 for every other kind). Two locations are the same
    place when their ``board`` and ``zone`` agree (:attr:`key`).
    """

    board: str
    zone: str
    kind: LocationKind = field(compare=False)
    stars: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if self.board not in PLANETS:
            raise ValueError(f"unknown planet board {self.board!r}; expected one of {PLANETS}")
        if not isinstance(self.kind, LocationKind):
            object.__setattr__(self, "kind", LocationKind(self.kind))
        if self.stars < 0:
            raise ValueError("stars cannot be negative")

    @classmethod
    def planet(cls, board: str) -> "Location":
        """The planet location of ``board`` (zone ``"planet"``)."""
        return cls(board, PLANET_ZONE, LocationKind.PLANET)

    @property
    def key(self) -> tuple[str, str]:
        return (self.board, self.zone)

    @property
    def is_planet(self) -> bool:
        return self.kind is LocationKind.PLANET

    @property
    def is_vp_satellite(self) -> bool:
        return self.kind is LocationKind.SATELLITE

    def describe(self) -> str:
        """``"Mars"``, ``"Mars' 2-star satellite"``, ``"Venus' charging satellite"``, ``"Pluto's asteroid belt"``."""
        if self.kind is LocationKind.PLANET:
            return planet_name(self.board)
        if self.kind is LocationKind.SATELLITE:
            return f"{possessive(self.board)} {self.stars}-star satellite"
        if self.kind is LocationKind.CHARGING_SATELLITE:
            return f"{possessive(self.board)} charging satellite"
        return f"{possessive(self.board)} asteroid belt"

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True, order=True)
class ShipId(_Value):
    """A starship token: its team colour (``"red"``/``"blue"``) and number 1..3.

    It is also the team card that makes a player the controller of that ship.
    """

    team: str
    number: int

    def __post_init__(self) -> None:
        if self.team not in TEAMS:
            raise ValueError(f"unknown team {self.team!r}; expected 'red' or 'blue'")
        if not 1 <= self.number <= 3:
            raise ValueError(f"ship number {self.number} out of 1..3")

    def __str__(self) -> str:
        return f"{self.team.capitalize()} ship {self.number}"


#: All six team cards in the order they are selected for a player count: red and blue
#: alternately, so the teams are as balanced as possible (2: 1v1, 3: 2 red v 1 blue, 4: 2v2 ...).
TEAM_CARD_ORDER: tuple[ShipId, ...] = (ShipId("red", 1), ShipId("blue", 1), ShipId("red", 2),
                                       ShipId("blue", 2), ShipId("red", 3), ShipId("blue", 3))

#: The team card that carries the starting player icon (our choice: the rulebook does not say which).
STARTING_TEAM_CARD = ShipId("red", 1)


def team_cards_for(players: int) -> tuple[ShipId, ...]:
    """The team cards used with ``players`` players (the first ``players`` of :data:`TEAM_CARD_ORDER`)."""
    return TEAM_CARD_ORDER[:players]


@dataclass(frozen=True)
class ShipResult(_Value):
    """Where one starship is after a shot.

    ``outbound``: it touches the table (or rests on another ship or beam, Q&A); ``locations``: the
    locations it touches or lies inside (empty when outbound or between zones); ``moved``: it
    changed place in this shot; ``knocked``: it changed place because something hit it (rather than
    being the shot ship); ``upright``: it lies flat on the board.
    """

    ship: ShipId
    outbound: bool = False
    locations: frozenset[Location] = frozenset()
    moved: bool = False
    knocked: bool = False
    upright: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.locations, frozenset):
            object.__setattr__(self, "locations", frozenset(self.locations))
        if self.outbound and self.locations:
            object.__setattr__(self, "locations", frozenset())


@dataclass(frozen=True)
class BeamResult(_Value):
    """Where one magnetic beam is after a shot: ``index`` 0..5 (the referee's numbering, the same one
    the engine uses for beams it places), whether it was moved (knocked) and is still upright and on
    the board."""

    index: int
    moved: bool = False
    upright: bool = True
    on_board: bool = True


@dataclass(frozen=True)
class ShotResult(_Value):
    """The judged scene after one shot.

    ``ship``: the ship that was shot (for the Decoy Beam card, the ship the beam replaced);
    ``ships``: every ship on the board (or that just left it); ships not on the board are absent;
    ``collided``: the moved ship (or beam) touched another ship or beam (this blocks a restart);
    ``beams``: the beams; ``on_springboard``: the ship stayed on the Springboard card (the move failed).
    """

    ship: ShipId
    ships: tuple[ShipResult, ...] = ()
    collided: bool = False
    beams: tuple[BeamResult, ...] = ()
    on_springboard: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.ships, tuple):
            object.__setattr__(self, "ships", tuple(self.ships))
        if not isinstance(self.beams, tuple):
            object.__setattr__(self, "beams", tuple(self.beams))
        seen = [s.ship for s in self.ships]
        if len(seen) != len(set(seen)):
            raise ValueError("a ship appears twice in the shot result")
        idx = [b.index for b in self.beams]
        if len(idx) != len(set(idx)):
            raise ValueError("a beam appears twice in the shot result")

    def result_of(self, ship: ShipId) -> ShipResult | None:
        for s in self.ships:
            if s.ship == ship:
                return s
        return None

    @property
    def moved_ship(self) -> ShipResult | None:
        return self.result_of(self.ship)
