"""PitRush rules engine: board geometry, the Arena and Contest modes, scoring and formations.

Pure and deterministic: plain ``math``, no I/O.  The referee fills the value types below from
the vision judgement of each settled scene; the engine never sees pixels.

Value types
-----------
* :class:`Pit`, :class:`Seat`, :class:`BoardGeometry` -- the board, from the profile's plain data
  (pit id -> centre and radius in mm, seat id -> shooting line and optional shooting-area
  polygon).  Everything the rules need is derived from distances alone: the lattice spacing, the
  pit values per seat, adjacency, the small triangles and the complete rows.
* :class:`Player` (colour, seat, name), :class:`DiscState` (one disc as the scene shows it),
  :class:`BoardState` (all discs of one settled scene, with helpers per pit).
* :class:`ScoreSheet` (points per player and the events that explain every point),
  :class:`Status` (flags for odd positions), :class:`Series` (totals over several matches).

Game API
--------
``Game(mode, players, geometry, *, scoring="standard", formations=None, starting_player=0,
discs_per_player=None)``; players are listed in clockwise seating order.

* ``shot(player, board_after, *, from_line=True)`` -- one settled shot (Contest and Arena Phase II:
  the player on turn; Arena Phase I: anybody, or a tuple of players whose simultaneous shots
  settled together); ``observe(board_after)`` attributes the new discs of an Arena Phase I scene
  by colour.  Returns the events: the shot, a phase change, the gathering, a neutral disc due,
  the match end.
* ``take_back(player, disc=None)``, ``remove_to_corner(player, disc)``, ``place_neutral(pit,
  color=None)``, ``declare(note, *, found=None, board=None, neutral_due=None, player=None)``
  (a person's input where the scene cannot tell; logged as an Event of kind ``"declared"``).
* Pure helpers: ``score_position(geometry, board, players, scoring=, formations=)``,
  ``pit_owners(board, pit, players)`` (whom a pit belongs to for formations).
* Queries: ``legal_shooters()``, ``legal_take_backs(p)``, ``legal_removals(p)``,
  ``legal_neutral_pits()``, ``generate_legal_actions()``, ``is_game_over()``, ``is_neutral_due()``, ``is_phase_two()``,
  ``supply(p)``, ``status()``, ``scores()``, ``score()``, ``outcome()``, ``history``.

Example (a three-pit board; the nominal board has 19 pits and six seats)::

    >>> geo = BoardGeometry.from_data(
    ...     pits={"p1": ((0.0, 100.0), 17.0), "p2": ((70.0, 100.0), 17.0), "p3": ((35.0, 160.6), 17.0)},
    ...     seats={"south": ((0.0, 0.0), (70.0, 0.0)), "north": ((0.0, 260.0), (70.0, 260.0))})
    >>> geo.values("south"), geo.triangles
    ({'p1': 1, 'p2': 1, 'p3': 5}, (('p1', 'p2', 'p3'),))
    >>> game = Game("contest", [Player("blue", "south"), Player("red", "north")], geo)
    >>> [e.text for e in game.shot(0, BoardState.of(DiscState.in_pit("blue", "p1")))]
    ['blue shoots (9 disc(s) left outside the board)']
    >>> after = BoardState.of(DiscState.in_pit("blue", "p1"), DiscState.stacked("red", "p1"))
    >>> _ = game.shot(1, after)                     # red stops on top of blue's disc: p1 is red's now
    >>> sheet = game.score()
    >>> sheet.points
    (0, 5)
    >>> [e.text for e in sheet.events if e.kind == "pit_score"]
    ['red on p1 over blue: +5 red']
    >>> game.turn, game.legal_shooters(), game.outcome() is None
    (0, (0,), True)

A finished game goes into a :class:`Series` (``series.add(game)``, ``series.totals()``).

Rule choices where the rulebook is silent (documented here and in the tests)
---------------------------------------------------------------------------
* **Pit values** (``BoardGeometry.values``): the perpendicular distance from each pit centre to
  the (infinite) line through the seat's shooting line; pits sorted by it are cut into *distance
  rows* wherever two consecutive distances differ by more than ``row_tolerance`` x spacing
  (0.25 x 70 mm = 17.5 mm on the nominal board, whose rows are 60.6 mm apart).  With k rows,
  row i (0 = closest) is worth ``1 + round_half_up(4 i / (k - 1))`` (a single row is worth 1):
  the closest row 1, the furthest 5, non-decreasing in between.  On the nominal board every
  seat sees 5 rows of 3, 4, 5, 4, 3 pits worth 1..5.  (The rulebook's "the closest pit is worth 1
  point, the next three 2" does not match that nominal geometry, whose closest row has 3 pits.)
  ``scoring="children"``: every pit is worth 1.
* **Lattice**: the spacing is the median nearest-neighbour distance between pit centres; two pits
  are adjacent when their distance is within ``adjacency_tolerance`` (20 %) of it.  A small
  triangle is three mutually adjacent pits.  A line is a maximal chain a, b, c, ... of adjacent
  pits with equal steps (within the same tolerance); a *complete row* candidate is such a line of
  at least ``min_row`` = 3 pits (a 2-pit line is only an edge of a triangle; on the nominal board
  every maximal line has 3..5 pits, matching the rulebook's +3 example).
* **Formation membership**: a pit belongs to a player when that player scores from it under
  rule A or B (so a pit taken over by an opponent disc on top belongs to the opponent only; a pit
  with discs of two players on top belongs to both).  A formation scores once per player.
  Formations are on by default in Contest mode and off in Arena mode (FAQ: agree beforehand).
* **Neutral discs** score nobody, do not make a pit belong to anyone, and do not block rule A
  ("no opponent disc on top": a neutral disc is nobody's).  Discs of a colour nobody plays in
  Arena mode are treated like neutral discs (and flagged by ``status()``).
* A disc reported ``stacked`` over a pit with no disc inside scores nothing (nothing is beneath
  it) and raises ``Status.STACK_ON_EMPTY_PIT``.
* **Corners**: a disc removed to a corner (and a disc that flew off and was found) goes back to its
  owner's discs outside the board, except in Arena Phase II where it is out of the game.  Only
  *other* players' (or neutral) discs may be removed, and only from the remover's own shooting
  area or line; in Arena Phase I any time, otherwise on the remover's turn.
* **Take-back**: only a disc on the surface or hanging (not in a pit, not stacked on one), and only
  when the player has no disc outside the board (Arena Phase I; Contest Phase II, on turn).
* **Arena gathering**: at Phase II the discs on the surface or hanging are gathered; discs stacked
  on pits stay (they are "on top of another disc" and score).  Phase I also ends when nobody can
  shoot or take back any more.
* **"A disc fell into a pit"** (Contest Phase II): a pit that had no disc inside before the shot
  has one after it, or the colour inside a pit changed.  A person may override with
  ``declare(..., neutral_due=...)``.  If a neutral disc is due and none is left, the match ends
  like end B.
"""

from __future__ import annotations

import copy
import enum
import itertools
import math
import statistics
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Iterator, Mapping, Sequence

from .base import (Event, GameOverError, IllegalActionError, NeedsConfirmation, Outcome, RulesError,
                   SetupError, WrongPlayerError, winners_of)

__all__ = [
    "COLORS", "DISC_COUNTS", "ARENA_DISCS", "CONTEST_DISCS", "DISC_STATES", "Mode", "Phase", "Status",
    "Pit", "Seat", "BoardGeometry", "Player", "DiscState", "BoardState", "ScoreSheet", "score_position", "pit_owners",
    "Game", "Series",
]

COLORS = ("red", "blue", "yellow", "green", "white", "black")
DISC_COUNTS = {"red": 10, "blue": 10, "yellow": 10, "green": 8, "white": 6, "black": 5}
ARENA_DISCS = {3: 10, 4: 8, 5: 6, 6: 5}
CONTEST_DISCS = {2: 10, 3: 7, 4: 5}
DISC_STATES = ("surface", "in_pit", "stacked", "hanging", "off_board")
STACK_STATES = ("in_pit", "stacked")

Point = tuple[float, float]


class Mode(str, enum.Enum):
    ARENA = "arena"
    CONTEST = "contest"


class Phase(enum.IntEnum):
    PHASE_I = 1
    PHASE_II = 2
    OVER = 3


class Status(enum.IntFlag):
    """Odd things about the current scene (VALID when there are none)."""

    VALID = 0
    DISC_COUNT_MISMATCH = 1 << 0   # the scene shows more discs of a colour than are accounted on the board
    DISC_MISSING = 1 << 1          # fewer discs of a player's colour on the board than accounted (flew off?)
    STACK_ON_EMPTY_PIT = 1 << 2    # a disc stacked over a pit with no disc inside
    PIT_OVERFULL = 1 << 3          # two discs reported inside the same pit
    UNKNOWN_PIT = 1 << 4           # a disc refers to a pit the board does not have
    UNKNOWN_COLOR = 1 << 5         # a colour that is not in the game's set
    NEUTRAL_IN_ARENA = 1 << 6      # a disc of a colour nobody plays, in Arena mode


# ------------------------------------------------------------------------------------ geometry

def _dist(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def line_distance(p: Point, line: tuple[Point, Point]) -> float:
    """Perpendicular distance from ``p`` to the infinite line through the segment ``line``."""
    (x0, y0), (x1, y1) = line
    dx, dy = x1 - x0, y1 - y0
    n = math.hypot(dx, dy)
    if n == 0:
        return _dist(p, (x0, y0))
    return abs(dx * (p[1] - y0) - dy * (p[0] - x0)) / n


def segment_distance(p: Point, seg: tuple[Point, Point]) -> float:
    """Distance from ``p`` to the segment ``seg``."""
    (x0, y0), (x1, y1) = seg
    dx, dy = x1 - x0, y1 - y0
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - x0) * dx + (p[1] - y0) * dy) / L2))
    return _dist(p, (x0 + t * dx, y0 + t * dy))


def point_in_polygon(p: Point, poly: Sequence[Point]) -> bool:
    """Even-odd rule; points on the boundary may fall either way."""
    x, y = p
    inside = False
    n = len(poly)
    for i in range(n):
        (xa, ya), (xb, yb) = poly[i], poly[(i + 1) % n]
        if (ya > y) != (yb > y):
            xc = xa + (y - ya) * (xb - xa) / (yb - ya)
            if x < xc:
                inside = not inside
    return inside


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5 + 1e-9))


def _pt(p) -> Point:
    return (float(p[0]), float(p[1]))


@dataclass(frozen=True)
class Pit:
    id: str
    centre: Point
    radius: float = 17.0


@dataclass(frozen=True)
class Seat:
    """A seat: its shooting line (two end points) and, optionally, its shooting-area polygon."""

    id: str
    line: tuple[Point, Point]
    area: tuple[Point, ...] | None = None


@dataclass(frozen=True)
class BoardGeometry:
    """The pits and seats of one board, and everything derived from their distances.

    Derived values are computed on first use and cached.  Pit order is the order given (it
    orders the events and the names of formations).
    """

    pits: tuple[Pit, ...]
    seats: tuple[Seat, ...] = ()
    adjacency_tolerance: float = 0.2
    row_tolerance: float = 0.25
    min_row: int = 3

    def __post_init__(self) -> None:
        pits = tuple(Pit(p.id, _pt(p.centre), float(p.radius)) for p in self.pits)
        seats = tuple(Seat(s.id, (_pt(s.line[0]), _pt(s.line[1])),
                           None if s.area is None else tuple(_pt(q) for q in s.area)) for s in self.seats)
        object.__setattr__(self, "pits", pits)
        object.__setattr__(self, "seats", seats)
        if not pits:
            raise SetupError("the board has no pits")
        ids = [p.id for p in pits]
        if len(set(ids)) != len(ids):
            raise SetupError(f"duplicate pit ids in {ids}")
        sids = [s.id for s in seats]
        if len(set(sids)) != len(sids):
            raise SetupError(f"duplicate seat ids in {sids}")
        for s in seats:
            if _dist(*s.line) == 0:
                raise SetupError(f"{s.id}: the shooting line has zero length")
        if not (0 < self.adjacency_tolerance < 0.5) or not (0 < self.row_tolerance < 1):
            raise SetupError("tolerances must be in (0, 0.5) for adjacency and (0, 1) for rows")
        if self.min_row < 2:
            raise SetupError("a complete row needs at least 2 pits")

    @classmethod
    def from_data(cls, pits: Mapping[str, tuple[Point, float] | Point],
                  seats: Mapping[str, object] | None = None, **options) -> "BoardGeometry":
        """From plain profile data.

        ``pits``: pit id -> ``((x, y), radius)`` or just ``(x, y)``;
        ``seats``: seat id -> ``((x0, y0), (x1, y1))`` (the shooting line) or
        ``(line, area_polygon_or_None)``.
        """
        ps = []
        for pid, v in pits.items():
            if isinstance(v[0], (int, float)):
                ps.append(Pit(pid, _pt(v)))
            else:
                ps.append(Pit(pid, _pt(v[0]), float(v[1])))
        ss = []
        for sid, v in (seats or {}).items():
            v = tuple(v)
            if isinstance(v[0][0], (int, float)):          # just a line
                ss.append(Seat(sid, (v[0], v[1])))
            else:
                line, area = v[0], (v[1] if len(v) > 1 else None)
                ss.append(Seat(sid, (line[0], line[1]), None if area is None else tuple(area)))
        return cls(tuple(ps), tuple(ss), **options)

    # ---- lookups
    @cached_property
    def pit_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.pits)

    @cached_property
    def _pit(self) -> dict[str, Pit]:
        return {p.id: p for p in self.pits}

    @cached_property
    def _seat(self) -> dict[str, Seat]:
        return {s.id: s for s in self.seats}

    @cached_property
    def _order(self) -> dict[str, int]:
        return {pid: i for i, pid in enumerate(self.pit_ids)}

    @property
    def seat_ids(self) -> tuple[str, ...]:
        return tuple(s.id for s in self.seats)

    def pit(self, pit_id: str) -> Pit:
        try:
            return self._pit[pit_id]
        except KeyError:
            raise IllegalActionError(f"the board has no pit {pit_id!r}") from None

    def seat(self, seat_id: str) -> Seat:
        try:
            return self._seat[seat_id]
        except KeyError:
            raise SetupError(f"the board has no seat {seat_id!r}") from None

    def has_pit(self, pit_id: str) -> bool:
        return pit_id in self._pit

    # ---- lattice
    @cached_property
    def spacing(self) -> float:
        """The lattice spacing: the median of the pits' nearest-neighbour distances (0 for one pit)."""
        if len(self.pits) < 2:
            return 0.0
        nn = [min(_dist(p.centre, q.centre) for q in self.pits if q is not p) for p in self.pits]
        return float(statistics.median(nn))

    @cached_property
    def _adjacency(self) -> dict[str, tuple[str, ...]]:
        s, tol = self.spacing, self.adjacency_tolerance
        nb: dict[str, list[str]] = {p.id: [] for p in self.pits}
        if s > 0:
            for p, q in itertools.combinations(self.pits, 2):
                if abs(_dist(p.centre, q.centre) - s) <= tol * s:
                    nb[p.id].append(q.id)
                    nb[q.id].append(p.id)
        return {k: tuple(sorted(v, key=self._order.__getitem__)) for k, v in nb.items()}

    def neighbours(self, pit_id: str) -> tuple[str, ...]:
        return self._adjacency[self.pit(pit_id).id]

    def adjacent(self, a: str, b: str) -> bool:
        return b in self.neighbours(a)

    @cached_property
    def edges(self) -> tuple[tuple[str, str], ...]:
        o = self._order
        return tuple((a, b) for a in self.pit_ids for b in self._adjacency[a] if o[a] < o[b])

    @cached_property
    def triangles(self) -> tuple[tuple[str, str, str], ...]:
        """Small triangles: three mutually adjacent pits, each in pit order."""
        o = self._order
        out = []
        for a, b in self.edges:
            for c in self._adjacency[a]:
                if o[c] > o[b] and c in self._adjacency[b]:
                    out.append((a, b, c))
        return tuple(sorted(out, key=lambda t: tuple(o[x] for x in t)))

    def _step_ok(self, a: str, b: str, c: str) -> bool:
        """Whether b -> c repeats the step a -> b (the three pits on one lattice line)."""
        pa, pb, pc = self._pit[a].centre, self._pit[b].centre, self._pit[c].centre
        err = math.hypot((pc[0] - pb[0]) - (pb[0] - pa[0]), (pc[1] - pb[1]) - (pb[1] - pa[1]))
        return err <= self.adjacency_tolerance * self.spacing

    @cached_property
    def lines(self) -> tuple[tuple[str, ...], ...]:
        """Every maximal straight chain of adjacent pits with equal steps (2 pits or more)."""
        o = self._order
        nb = self._adjacency
        found = set()
        for a in self.pit_ids:
            for b in nb[a]:
                if any(self._step_ok(z, a, b) for z in nb[a] if z != b):
                    continue                        # a is not an end of this line
                chain = [a, b]
                while True:
                    nxt = [c for c in nb[chain[-1]] if c not in chain and self._step_ok(chain[-2], chain[-1], c)]
                    if not nxt:
                        break
                    chain.append(min(nxt, key=o.__getitem__))
                t = tuple(chain)
                if o[t[-1]] < o[t[0]]:
                    t = t[::-1]
                found.add(t)
        return tuple(sorted(found, key=lambda t: (-len(t), tuple(o[x] for x in t))))

    @cached_property
    def rows(self) -> tuple[tuple[str, ...], ...]:
        """The complete-row formations: maximal lines of at least ``min_row`` pits."""
        return tuple(t for t in self.lines if len(t) >= self.min_row)

    # ---- values
    def distance(self, seat_id: str, pit_id: str) -> float:
        return line_distance(self.pit(pit_id).centre, self.seat(seat_id).line)

    def distance_rows(self, seat_id: str) -> tuple[tuple[str, ...], ...]:
        """The pits grouped into rows by their distance to the seat's shooting line, closest first."""
        return self._distance_rows[seat_id] if seat_id in self._distance_rows else self._rows_for(seat_id)

    @cached_property
    def _distance_rows(self) -> dict[str, tuple[tuple[str, ...], ...]]:
        return {s.id: self._rows_for(s.id) for s in self.seats}

    def _rows_for(self, seat_id: str) -> tuple[tuple[str, ...], ...]:
        seat = self.seat(seat_id)
        d = {p.id: line_distance(p.centre, seat.line) for p in self.pits}
        order = sorted(self.pit_ids, key=lambda k: (d[k], self._order[k]))
        tol = self.row_tolerance * self.spacing
        rows: list[list[str]] = [[order[0]]]
        for prev, cur in zip(order, order[1:]):
            if d[cur] - d[prev] > tol:
                rows.append([])
            rows[-1].append(cur)
        return tuple(tuple(sorted(r, key=self._order.__getitem__)) for r in rows)

    def values(self, seat_id: str, scoring: str = "standard") -> dict[str, int]:
        """Pit id -> points for a disc of the player at ``seat_id`` (``scoring="children"``: all 1)."""
        if scoring == "children":
            self.seat(seat_id)
            return {p: 1 for p in self.pit_ids}
        if scoring != "standard":
            raise SetupError(f"unknown scoring option {scoring!r} (standard or children)")
        rows = self.distance_rows(seat_id)
        k = len(rows)
        out = {}
        for i, row in enumerate(rows):
            v = 1 if k == 1 else 1 + _round_half_up(4 * i / (k - 1))
            for p in row:
                out[p] = v
        return {p: out[p] for p in self.pit_ids}

    # ---- seats
    def touches_line(self, seat_id: str, centre: Point, radius: float) -> bool:
        """Whether a disc of ``radius`` at ``centre`` touches the seat's shooting line (segment)."""
        return segment_distance(_pt(centre), self.seat(seat_id).line) <= radius

    def in_area(self, seat_id: str, point: Point) -> bool:
        """Whether ``point`` lies inside the seat's shooting area (False when the seat has none)."""
        area = self.seat(seat_id).area
        return bool(area) and point_in_polygon(_pt(point), area)


# ------------------------------------------------------------------------------- the scene

@dataclass(frozen=True)
class Player:
    color: str
    seat: str
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or self.color


@dataclass(frozen=True)
class DiscState:
    """One disc of a settled scene.

    ``state``: ``surface`` (on the board, not over a pit), ``in_pit`` (inside a pit: the bottom of
    its stack), ``stacked`` (on top of the disc(s) in ``pit``), ``hanging`` (on the edge of
    ``pit``, covering part of it, not on a disc), ``off_board`` (seen, but not on the board).
    ``level``: position in the pit's stack, 0 = inside the pit, 1 = on the disc inside, ...
    ``seat_area`` / ``touches_line``: the seat whose shooting area holds the disc / whose shooting
    line the disc touches.
    """

    color: str
    state: str = "surface"
    pit: str | None = None
    level: int = 0
    seat_area: str | None = None
    touches_line: str | None = None

    def __post_init__(self) -> None:
        if self.state not in DISC_STATES:
            raise ValueError(f"unknown disc state {self.state!r}; expected one of {DISC_STATES}")
        if self.state in ("in_pit", "stacked", "hanging") and not self.pit:
            raise ValueError(f"a {self.state} disc needs its pit")
        if self.level < 0:
            raise ValueError("level must be >= 0")

    @classmethod
    def surface_disc(cls, color: str, *, seat_area: str | None = None, touches_line: str | None = None):
        return cls(color, "surface", None, 0, seat_area, touches_line)

    @classmethod
    def in_pit(cls, color: str, pit: str) -> "DiscState":
        return cls(color, "in_pit", pit, 0)

    @classmethod
    def stacked(cls, color: str, pit: str, level: int = 1) -> "DiscState":
        return cls(color, "stacked", pit, level)

    @classmethod
    def hanging_on(cls, color: str, pit: str) -> "DiscState":
        return cls(color, "hanging", pit, 0)

    @classmethod
    def off(cls, color: str) -> "DiscState":
        return cls(color, "off_board")

    @property
    def on_board(self) -> bool:
        return self.state != "off_board"

    @property
    def in_pit_stack(self) -> bool:
        return self.state in STACK_STATES

    def __str__(self) -> str:
        where = {"surface": "on the surface", "in_pit": f"in {self.pit}", "stacked": f"on {self.pit}",
                 "hanging": f"hanging on {self.pit}", "off_board": "off the board"}[self.state]
        return f"{self.color} {where}"


@dataclass(frozen=True)
class BoardState:
    """All discs of one settled scene (order is the referee's; it does not matter to the rules)."""

    discs: tuple[DiscState, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "discs", tuple(self.discs))

    @classmethod
    def of(cls, *discs: DiscState) -> "BoardState":
        return cls(tuple(discs))

    def __iter__(self) -> Iterator[DiscState]:
        return iter(self.discs)

    def __len__(self) -> int:
        return len(self.discs)

    def stack_indices(self, pit: str) -> tuple[int, ...]:
        """Indices into ``discs`` of the pit's stack, bottom to top."""
        idx = [i for i, d in enumerate(self.discs) if d.pit == pit and d.state in STACK_STATES]
        return tuple(sorted(idx, key=lambda i: (self.discs[i].level, self.discs[i].state != "in_pit", i)))

    def stack(self, pit: str) -> tuple[DiscState, ...]:
        """The discs in and on the pit, bottom to top."""
        return tuple(self.discs[i] for i in self.stack_indices(pit))

    def stacks(self) -> dict[str, tuple[DiscState, ...]]:
        pits = []
        for d in self.discs:
            if d.state in STACK_STATES and d.pit not in pits:
                pits.append(d.pit)
        return {p: self.stack(p) for p in pits}

    def hanging(self, pit: str) -> tuple[DiscState, ...]:
        return tuple(d for d in self.discs if d.state == "hanging" and d.pit == pit)

    def is_filled(self, pit: str) -> bool:
        """A disc is inside the pit."""
        return any(d.state == "in_pit" and d.pit == pit for d in self.discs)

    def filled_pits(self) -> frozenset[str]:
        return frozenset(d.pit for d in self.discs if d.state == "in_pit")

    def empty_pits(self, pit_ids: Iterable[str]) -> tuple[str, ...]:
        """Pits with no disc inside and none stacked over them."""
        used = {d.pit for d in self.discs if d.state in STACK_STATES}
        return tuple(p for p in pit_ids if p not in used)

    def valid_neutral_pits(self, pit_ids: Iterable[str]) -> tuple[str, ...]:
        """Empty pits that no hanging disc covers (Contest: where a neutral disc may go)."""
        hung = {d.pit for d in self.discs if d.state == "hanging"}
        return tuple(p for p in self.empty_pits(pit_ids) if p not in hung)

    def count(self, color: str, states: Iterable[str] | None = None) -> int:
        """Discs of ``color`` in ``states`` (default: every state but off_board)."""
        st = set(states) if states is not None else {"surface", "in_pit", "stacked", "hanging"}
        return sum(1 for d in self.discs if d.color == color and d.state in st)

    def in_pits(self, color: str) -> int:
        return self.count(color, STACK_STATES)

    def colors(self) -> tuple[str, ...]:
        out: list[str] = []
        for d in self.discs:
            if d.color not in out:
                out.append(d.color)
        return tuple(out)

    def without(self, disc: DiscState) -> "BoardState":
        for i, d in enumerate(self.discs):
            if d == disc:
                return BoardState(self.discs[:i] + self.discs[i + 1:])
        raise ValueError(f"{disc} is not in the scene")

    def with_disc(self, disc: DiscState) -> "BoardState":
        return BoardState(self.discs + (disc,))


# ------------------------------------------------------------------------------------- scoring

@dataclass(frozen=True)
class ScoreSheet:
    """Points per player (in player order) and the events that explain them."""

    points: tuple[int, ...]
    pit_points: tuple[int, ...]
    formation_points: tuple[int, ...]
    events: tuple[Event, ...]

    def for_player(self, player: int) -> tuple[Event, ...]:
        return tuple(e for e in self.events if e.player == player)

    def lines(self) -> list[str]:
        return [e.text for e in self.events]


def _owner_map(players: Sequence[Player]) -> dict[str, int]:
    return {p.color: i for i, p in enumerate(players)}


def pit_owners(board: BoardState, pit: str, players: Sequence[Player]) -> frozenset[int]:
    """The players who score from ``pit`` under rule A or B (whom the pit belongs to for formations)."""
    owner = _owner_map(players)
    stack = board.stack(pit)
    if not stack or stack[0].state != "in_pit":
        return frozenset()
    out = set()
    for lvl, d in enumerate(stack):
        o = owner.get(d.color)
        if o is None:
            continue
        if lvl == 0:
            if not any(owner.get(x.color) not in (None, o) for x in stack[1:]):
                out.add(o)
        else:
            out.add(o)
    return frozenset(out)


def score_position(geometry: BoardGeometry, board: BoardState, players: Sequence[Player], *,
                   scoring: str = "standard", formations: bool = True) -> ScoreSheet:
    """Score one position: rules A and B per disc, hanging and neutral discs, then formations.

    Unknown pits are ignored here (``Game.status`` flags them).
    """
    n = len(players)
    owner = _owner_map(players)
    values = [geometry.values(p.seat, scoring) for p in players]
    label = [p.label for p in players]

    def name(color: str) -> str:
        return label[owner[color]] if color in owner else f"neutral {color}"

    pit_pts = [0] * n
    owned: list[set[str]] = [set() for _ in range(n)]
    events: list[Event] = []
    for pit in geometry.pit_ids:
        idx = board.stack_indices(pit)
        stack = [board.discs[i] for i in idx]
        if not stack:
            continue
        if stack[0].state != "in_pit":
            for i in idx:
                d = board.discs[i]
                events.append(Event("no_score", f"{name(d.color)} over empty {pit}: +0 (no disc inside the pit "
                                    f"beneath it)", owner.get(d.color), 0,
                                    {"pit": pit, "disc": i, "color": d.color, "rule": None}))
            continue
        for lvl, i in enumerate(idx):
            d = board.discs[i]
            o = owner.get(d.color)
            data = {"pit": pit, "disc": i, "color": d.color, "level": lvl}
            if o is None:
                where = f"in {pit}" if lvl == 0 else f"on {pit} over {name(stack[lvl - 1].color)}"
                events.append(Event("no_score", f"neutral {d.color} {where}: scores nobody", None, 0,
                                    {**data, "rule": None}))
                continue
            v = values[o][pit]
            if lvl == 0:
                blockers = [x for x in stack[1:] if owner.get(x.color) not in (None, o)]
                if blockers:
                    events.append(Event("no_score", f"{label[o]} in {pit} under {name(blockers[0].color)}: +0 "
                                        f"(an opponent disc is on top)", o, 0, {**data, "rule": None}))
                    continue
                own_top = " (own disc on top)" if any(owner.get(x.color) == o for x in stack[1:]) else ""
                text = f"{label[o]} in {pit}{own_top}: +{v} {label[o]}"
                rule = "A"
            else:
                text = f"{label[o]} on {pit} over {name(stack[lvl - 1].color)}: +{v} {label[o]}"
                rule = "B"
            pit_pts[o] += v
            owned[o].add(pit)
            events.append(Event("pit_score", text, o, v, {**data, "rule": rule, "value": v}))
    for i, d in enumerate(board.discs):
        if d.state == "hanging":
            events.append(Event("no_score", f"{name(d.color)} hanging on {d.pit}: +0 (hanging discs score "
                                f"nothing)", owner.get(d.color), 0,
                                {"pit": d.pit, "disc": i, "color": d.color, "rule": None}))
    form_pts = [0] * n
    if formations:
        for o in range(n):
            mine = owned[o]
            if len(mine) < 2:
                continue
            for tri in geometry.triangles:
                if all(p in mine for p in tri):
                    form_pts[o] += 1
                    events.append(Event("formation", f"small triangle {'-'.join(tri)}: +1 {label[o]}", o, 1,
                                        {"formation": "triangle", "pits": tri}))
            for row in geometry.rows:
                if all(p in mine for p in row):
                    form_pts[o] += len(row)
                    events.append(Event("formation", f"complete row {'-'.join(row)}: +{len(row)} {label[o]}", o,
                                        len(row), {"formation": "row", "pits": row}))
    points = tuple(a + b for a, b in zip(pit_pts, form_pts))
    for o in range(n):
        events.append(Event("total", f"total {label[o]}: {points[o]} ({pit_pts[o]} from pits, {form_pts[o]} "
                            f"from formations)", o, 0,
                            {"total": points[o], "pits": pit_pts[o], "formations": form_pts[o]}))
    return ScoreSheet(points, tuple(pit_pts), tuple(form_pts), tuple(events))


# ----------------------------------------------------------------------------------------- game

@dataclass
class _State:
    phase: Phase
    turn: int | None
    supply: list[int]
    out: list[int]
    board: BoardState
    neutral_pool: dict[str, int]
    neutral_on_board: dict[str, int]
    neutral_due: bool = False
    shots: int = 0
    reason: str | None = None
    final: tuple[int, ...] | None = None
    history: list[Event] = field(default_factory=list)


class Game:
    """One PitRush match (see the module docstring)."""

    def __init__(self, mode: str | Mode, players: Sequence[Player], geometry: BoardGeometry, *,
                 scoring: str = "standard", formations: bool | None = None, starting_player: int = 0,
                 discs_per_player: int | None = None) -> None:
        try:
            self.mode = Mode(mode)
        except ValueError:
            raise SetupError(f"unknown mode {mode!r} (arena or contest)") from None
        self.players = tuple(players)
        self.geometry = geometry
        n = len(self.players)
        table = ARENA_DISCS if self.mode is Mode.ARENA else CONTEST_DISCS
        if n not in table:
            raise SetupError(f"{self.mode.value} mode is for {min(table)}-{max(table)} players, not {n}")
        colors = [p.color for p in self.players]
        for c in colors:
            if c not in DISC_COUNTS:
                raise SetupError(f"unknown colour {c!r}; the set has {', '.join(COLORS)}")
        if len(set(colors)) != n:
            raise SetupError(f"two players chose the same colour: {colors}")
        seats = [p.seat for p in self.players]
        if len(set(seats)) != n:
            raise SetupError(f"two players share a seat: {seats}")
        for s in seats:
            geometry.seat(s)
        if scoring not in ("standard", "children"):
            raise SetupError(f"unknown scoring option {scoring!r} (standard or children)")
        self.scoring = scoring
        self.formations = (self.mode is Mode.CONTEST) if formations is None else bool(formations)
        if not 0 <= starting_player < n:
            raise SetupError(f"starting player {starting_player} is not one of the {n} players")
        self.starting_player = starting_player
        self.discs_per_player = table[n] if discs_per_player is None else int(discs_per_player)
        if self.discs_per_player < 1:
            raise SetupError("every player needs at least one disc")
        for c in colors:
            if DISC_COUNTS[c] < self.discs_per_player:
                raise SetupError(f"{c} has only {DISC_COUNTS[c]} discs; {self.mode.value} mode with {n} players "
                                 f"needs {self.discs_per_player} per player")
        self.neutral_colors = tuple(c for c in COLORS if c not in colors) if self.mode is Mode.CONTEST else ()
        self._owner = _owner_map(self.players)
        self._s = _State(phase=Phase.PHASE_I,
                         turn=starting_player if self.mode is Mode.CONTEST else None,
                         supply=[self.discs_per_player] * n, out=[0] * n, board=BoardState(),
                         neutral_pool={c: DISC_COUNTS[c] for c in self.neutral_colors},
                         neutral_on_board={c: 0 for c in self.neutral_colors})

    # ------------------------------------------------------------------ state access
    @property
    def board(self) -> BoardState:
        return self._s.board

    @property
    def phase(self) -> Phase:
        return self._s.phase

    @property
    def turn(self) -> int | None:
        """Whose turn it is (None in Arena Phase I, where everyone shoots at will, and at the end)."""
        return self._s.turn

    @property
    def history(self) -> tuple[Event, ...]:
        return tuple(self._s.history)

    def supply(self, player: int) -> int:
        """The player's discs outside the board (in front of them or on a corner), ready to shoot."""
        return self._s.supply[self._index(player)]

    def out_of_game(self, player: int) -> int:
        return self._s.out[self._index(player)]

    def neutral_pool(self) -> dict[str, int]:
        return dict(self._s.neutral_pool)

    def expected_on_board(self, player: int) -> int:
        p = self._index(player)
        return self.discs_per_player - self._s.supply[p] - self._s.out[p]

    # ------------------------------------------------------------------ predicates
    def is_arena(self) -> bool:
        return self.mode is Mode.ARENA

    def is_contest(self) -> bool:
        return self.mode is Mode.CONTEST

    def is_phase_one(self) -> bool:
        return self._s.phase is Phase.PHASE_I

    def is_phase_two(self) -> bool:
        return self._s.phase is Phase.PHASE_II

    def is_game_over(self) -> bool:
        return self._s.phase is Phase.OVER

    def is_neutral_due(self) -> bool:
        return self._s.neutral_due

    def is_turn(self, player: int) -> bool:
        return self._s.turn == player

    def is_board_full(self, board: BoardState | None = None) -> bool:
        b = self._s.board if board is None else board
        return all(b.is_filled(p) for p in self.geometry.pit_ids)

    # ------------------------------------------------------------------ queries
    def legal_shooters(self) -> tuple[int, ...]:
        s = self._s
        if s.phase is Phase.OVER or s.neutral_due:
            return ()
        if self._free_for_all():
            if s.shots == 0:
                return (self.starting_player,) if s.supply[self.starting_player] else ()
            return tuple(i for i in range(len(self.players)) if s.supply[i] > 0)
        return (s.turn,) if s.turn is not None and s.supply[s.turn] > 0 else ()

    def legal_take_backs(self, player: int) -> tuple[DiscState, ...]:
        """The player's discs that may be taken back now (empty when no take-back is allowed)."""
        try:
            self._check_take_back(self._index(player))
        except RulesError:
            return ()
        return self._takeable(player)

    def legal_removals(self, player: int) -> tuple[DiscState, ...]:
        p = self._index(player)
        try:
            self._check_removal_time(p)
        except RulesError:
            return ()
        return tuple(d for d in self._s.board if self._removable(p, d))

    def legal_neutral_pits(self) -> tuple[str, ...]:
        if not self._s.neutral_due or self._s.phase is Phase.OVER:
            return ()
        return self._s.board.valid_neutral_pits(self.geometry.pit_ids)

    def generate_legal_actions(self) -> Iterator[tuple]:
        """Every action allowed now: ``("shot", p)``, ``("take_back", p, disc)``,
        ``("remove_to_corner", p, disc)``, ``("place_neutral", pit)``."""
        for pit in self.legal_neutral_pits():
            yield ("place_neutral", pit)
        for p in self.legal_shooters():
            yield ("shot", p)
        for p in range(len(self.players)):
            for d in self.legal_take_backs(p):
                yield ("take_back", p, d)
            for d in self.legal_removals(p):
                yield ("remove_to_corner", p, d)

    def values(self, player: int) -> dict[str, int]:
        """Pit id -> points for this player's discs."""
        return self.geometry.values(self.players[self._index(player)].seat, self.scoring)

    # ------------------------------------------------------------------ scoring and status
    def score(self) -> ScoreSheet:
        return score_position(self.geometry, self._s.board, self.players, scoring=self.scoring,
                              formations=self.formations)

    def scores(self) -> tuple[int, ...]:
        return self.score().points

    def outcome(self) -> Outcome | None:
        s = self._s
        if s.phase is not Phase.OVER:
            return None
        return Outcome(winners_of(s.final), s.final, s.reason or "")

    def status(self) -> Status:
        st = Status.VALID
        b = self._s.board
        for d in b:
            if d.color not in DISC_COUNTS:
                st |= Status.UNKNOWN_COLOR
            if d.pit is not None and not self.geometry.has_pit(d.pit):
                st |= Status.UNKNOWN_PIT
        for i, p in enumerate(self.players):
            have, want = b.count(p.color), self.expected_on_board(i)
            if have > want:
                st |= Status.DISC_COUNT_MISMATCH
            elif have < want:
                st |= Status.DISC_MISSING
        for c in COLORS:
            if c in self._owner:
                continue
            have = b.count(c)
            if self.is_arena() and have:
                st |= Status.NEUTRAL_IN_ARENA
            if have > self._s.neutral_on_board.get(c, 0):
                st |= Status.DISC_COUNT_MISMATCH
        for pit, stack in b.stacks().items():
            if stack[0].state != "in_pit":
                st |= Status.STACK_ON_EMPTY_PIT
            if sum(1 for d in stack if d.state == "in_pit") > 1:
                st |= Status.PIT_OVERFULL
        return st

    # ------------------------------------------------------------------ actions
    def shot(self, player: int | Sequence[int], board_after: BoardState, *, from_line: bool = True) -> list[Event]:
        """A settled shot (or several simultaneous Arena Phase I shots) and the scene after it."""
        with self._transaction():
            return self._shot(player, board_after, from_line)

    def observe(self, board_after: BoardState) -> list[Event]:
        """Arena Phase I: attribute the new discs of a scene by colour and take them as shots.

        A player whose colour shows more discs on the board than expected shot the difference.
        More new discs than the player had outside the board raises NeedsConfirmation.
        """
        with self._transaction():
            self._check_open()
            if not self._free_for_all():
                raise IllegalActionError("observe() is for the simultaneous shooting of Arena Phase I")
            board = self._normalise(board_after)
            shooters: list[int] = []
            for i, p in enumerate(self.players):
                extra = board.count(p.color) - self.expected_on_board(i)
                if extra > self._s.supply[i]:
                    raise NeedsConfirmation(f"the scene shows {extra} new {p.color} discs but {p.label} had only "
                                            f"{self._s.supply[i]} outside the board")
                shooters.extend([i] * max(0, extra))
            if not shooters:
                self._s.board = board
                return []
            return self._shot(tuple(shooters), board, True)

    def take_back(self, player: int, disc: DiscState | None = None) -> list[Event]:
        """Take one of the player's discs that is not in a pit back off the board, to shoot it."""
        with self._transaction():
            p = self._index(player)
            self._check_take_back(p)
            options = self._takeable(p)
            if disc is None:
                if not options:
                    raise IllegalActionError(f"{self.players[p].label} has no disc outside a pit to take back")
                disc = options[0]
            elif disc not in options:
                raise IllegalActionError(f"{disc} cannot be taken back: only {self.players[p].color} discs on the "
                                         f"surface or hanging (not in a pit)")
            self._s.board = self._s.board.without(disc)
            self._s.supply[p] += 1
            return self._log(Event("take_back", f"{self.players[p].label} takes back a disc ({disc})", p, 0,
                                   {"disc": disc}))

    def remove_to_corner(self, player: int, disc: DiscState) -> list[Event]:
        """Remove an obstructing disc from the player's shooting area (or line) to a corner."""
        with self._transaction():
            p = self._index(player)
            self._check_removal_time(p)
            if disc not in self._s.board.discs:
                raise IllegalActionError(f"{disc} is not in the current scene")
            if not self._removable(p, disc):
                raise IllegalActionError(f"{self.players[p].label} may only remove other players' discs that are "
                                         f"inside their shooting area or touching their shooting line")
            self._s.board = self._s.board.without(disc)
            return self._log(*self._to_corner(disc, f"{self.players[p].label} removes {disc} from their shooting "
                                                    f"area", p))

    def place_neutral(self, pit: str, color: str | None = None) -> list[Event]:
        """Contest: the player on turn puts the due neutral disc into an empty pit of their choice."""
        with self._transaction():
            self._check_open()
            s = self._s
            if not s.neutral_due:
                raise IllegalActionError("no neutral disc is due")
            self.geometry.pit(pit)
            if pit not in s.board.valid_neutral_pits(self.geometry.pit_ids):
                why = "a hanging disc covers it" if s.board.hanging(pit) and pit in s.board.empty_pits([pit]) \
                    else "it is not empty"
                raise IllegalActionError(f"a neutral disc cannot go into {pit}: {why}")
            if color is None:
                color = max(self.neutral_colors, key=lambda c: (s.neutral_pool[c], -COLORS.index(c)))
            if s.neutral_pool.get(color, 0) <= 0:
                raise IllegalActionError(f"no neutral {color} disc is left")
            s.neutral_pool[color] -= 1
            s.neutral_on_board[color] += 1
            s.board = s.board.with_disc(DiscState.in_pit(color, pit))
            s.neutral_due = False
            who = self.players[s.turn].label if s.turn is not None else "the next player"
            events = [Event("neutral", f"{who} places a neutral {color} disc into {pit}", s.turn, 0,
                            {"pit": pit, "color": color})]
            events += self._contest_end_checks()
            return self._log(*events)

    def declare(self, note: str, *, found: str | None = None, board: BoardState | None = None,
                neutral_due: bool | None = None, player: int | None = None) -> list[Event]:
        """A person's input where the scene cannot tell; always logged as an Event of kind "declared".

        ``found``: the colour of a disc that flew off the board and was found (handled like a disc
        removed from a shooting area).  ``board``: the corrected scene.  ``neutral_due``: whether a
        neutral disc is due after all (Contest Phase II).
        """
        with self._transaction():
            self._check_open()
            if not note:
                raise IllegalActionError("a declaration needs a note saying what the person saw")
            if player is not None:
                self._index(player)
            s = self._s
            events = [Event("declared", f"declared: {note}", player, 0,
                            {"found": found, "board": board is not None, "neutral_due": neutral_due})]
            if board is not None:
                s.board = self._normalise(board)
            if found is not None:
                missing = self._missing(found)
                if missing <= 0:
                    raise IllegalActionError(f"no {found} disc is missing from the board")
                events += self._to_corner(DiscState.off(found), f"a {found} disc that flew off was found", player)
            if neutral_due is not None:
                if not (self.is_contest() and self.is_phase_two()):
                    raise IllegalActionError("neutral discs are only due in Contest Phase II")
                if neutral_due and not s.neutral_due:
                    events += self._neutral_due_events()
                elif not neutral_due and s.neutral_due:
                    s.neutral_due = False
                    events.append(Event("neutral_cancelled", "no neutral disc is due after all", s.turn, 0))
            if board is not None and s.phase is not Phase.OVER:
                events += self._after_scene_checks()
            return self._log(*events)

    # ------------------------------------------------------------------ internals
    def _index(self, player: int) -> int:
        if not isinstance(player, int) or not 0 <= player < len(self.players):
            raise IllegalActionError(f"there is no player {player!r}")
        return player

    def _transaction(self):
        game = self

        class _Tx:
            def __enter__(self):
                self.saved = copy.deepcopy(game._s)

            def __exit__(self, et, ev, tb):
                if et is not None:          # an illegal call (or any failure) leaves the state unchanged
                    game._s = self.saved
                return False

        return _Tx()

    def _log(self, *events: Event) -> list[Event]:
        self._s.history.extend(events)
        return list(events)

    def _check_open(self) -> None:
        if self._s.phase is Phase.OVER:
            raise GameOverError(f"the match is over ({self._s.reason})")

    def _free_for_all(self) -> bool:
        return self.is_arena() and self._s.phase is Phase.PHASE_I

    def _normalise(self, board: BoardState) -> BoardState:
        """Accept the vision's ``"<tile>/<pit>"`` pit names when the suffix is a pit of the board."""
        out = []
        for d in board:
            if d.pit is not None and not self.geometry.has_pit(d.pit) and "/" in d.pit:
                tail = d.pit.rsplit("/", 1)[1]
                if self.geometry.has_pit(tail):
                    d = DiscState(d.color, d.state, tail, d.level, d.seat_area, d.touches_line)
            out.append(d)
        return BoardState(tuple(out))

    def _missing(self, color: str) -> int:
        if color in self._owner:
            return self.expected_on_board(self._owner[color]) - self._s.board.count(color)
        return self._s.neutral_on_board.get(color, 0) - self._s.board.count(color)

    def _takeable(self, player: int) -> tuple[DiscState, ...]:
        c = self.players[player].color
        return tuple(d for d in self._s.board if d.color == c and d.state in ("surface", "hanging"))

    def _check_take_back(self, p: int) -> None:
        self._check_open()
        s = self._s
        if s.neutral_due:
            raise IllegalActionError("a neutral disc must be placed first")
        if self._free_for_all():
            pass
        elif self.is_contest() and s.phase is Phase.PHASE_II:
            if s.turn != p:
                raise WrongPlayerError(f"it is {self.players[s.turn].label}'s turn")
        else:
            raise IllegalActionError("discs can be taken back only in Arena Phase I and Contest Phase II")
        if s.supply[p] > 0:
            raise IllegalActionError(f"{self.players[p].label} still has {s.supply[p]} disc(s) outside the board; "
                                     f"only one disc can be taken back at a time, when none is left")

    def _check_removal_time(self, p: int) -> None:
        self._check_open()
        if self._free_for_all():
            return
        if self._s.neutral_due:
            raise IllegalActionError("a neutral disc must be placed first")
        if self._s.turn != p:
            raise WrongPlayerError("outside Arena Phase I a disc can only be removed on one's own turn")

    def _removable(self, p: int, d: DiscState) -> bool:
        seat = self.players[p].seat
        return (d.color != self.players[p].color and d.state not in STACK_STATES
                and (d.seat_area == seat or d.touches_line == seat))

    def _to_corner(self, disc: DiscState, why: str, by: int | None) -> list[Event]:
        s = self._s
        o = self._owner.get(disc.color)
        if o is None:
            if disc.color in s.neutral_pool:
                s.neutral_pool[disc.color] += 1
                s.neutral_on_board[disc.color] = max(0, s.neutral_on_board[disc.color] - 1)
            return [Event("corner", f"{why}: the neutral {disc.color} disc goes back to the pool", by, 0,
                          {"color": disc.color})]
        if self.is_arena() and s.phase is Phase.PHASE_II:
            s.out[o] += 1
            return [Event("out_of_game", f"{why}: it goes out of the game ({self.players[o].label} cannot shoot it "
                          f"again)", o, 0, {"color": disc.color, "by": by})]
        s.supply[o] += 1
        return [Event("corner", f"{why}: it goes to a corner; {self.players[o].label} has {s.supply[o]} disc(s) "
                      f"outside the board", o, 0, {"color": disc.color, "by": by})]

    def _shot(self, player, board_after: BoardState, from_line: bool) -> list[Event]:
        self._check_open()
        s = self._s
        shooters = (player,) if isinstance(player, int) else tuple(player)
        if not shooters:
            raise IllegalActionError("a shot needs a shooter")
        for p in shooters:
            self._index(p)
        if s.neutral_due:
            raise IllegalActionError(f"{self.players[s.turn].label} must first place a neutral disc")
        if not from_line:
            raise IllegalActionError("discs must be flicked from the shooting line (touching it before the shot); "
                                     "replay the shot")
        if self._free_for_all():
            if s.shots == 0 and set(shooters) != {self.starting_player}:
                raise WrongPlayerError(f"{self.players[self.starting_player].label} starts the game with the first "
                                       f"shot")
        else:
            if len(shooters) > 1:
                raise IllegalActionError("only in Arena Phase I do players shoot simultaneously")
            if shooters[0] != s.turn:
                raise WrongPlayerError(f"it is {self.players[s.turn].label}'s turn")
        for p in set(shooters):
            k = shooters.count(p)
            if s.supply[p] < k:
                hint = " (take one back first)" if self._takeable(p) and (
                    self._free_for_all() or (self.is_contest() and s.phase is Phase.PHASE_II)) else ""
                raise IllegalActionError(f"{self.players[p].label} has no disc outside the board to shoot{hint}")
        before = s.board
        board = self._normalise(board_after)
        events = []
        for p in shooters:
            s.supply[p] -= 1
            events.append(Event("shot", f"{self.players[p].label} shoots ({s.supply[p]} disc(s) left outside the "
                                f"board)", p, 0, {"supply": s.supply[p]}))
        s.shots += 1
        s.board = board
        if self.is_contest():
            events += self._contest_end_checks()
            if s.phase is Phase.OVER:
                return self._log(*events)
            last = shooters[-1]
            if s.phase is Phase.PHASE_I:
                if all(x == 0 for x in s.supply):
                    s.phase = Phase.PHASE_II
                    s.turn = self._next(last)
                    events.append(Event("phase", "every player has shot their last disc: Phase II begins; from now "
                                        "on take back a disc that is not in a pit and shoot it", None, 0,
                                        {"phase": 2}))
                else:
                    s.turn = self._next(last, lambda i: s.supply[i] > 0)
            else:
                s.turn = self._next(last)
                if not self._fell_into_pit(before, board):
                    events += self._neutral_due_events()
        else:
            events += self._arena_after_shot(shooters[-1])
        return self._log(*events)

    def _next(self, after: int, ok=lambda i: True) -> int | None:
        n = len(self.players)
        for k in range(1, n + 1):
            i = (after + k) % n
            if ok(i):
                return i
        return None

    def _fell_into_pit(self, before: BoardState, after: BoardState) -> bool:
        for pit in self.geometry.pit_ids:
            a = sorted(d.color for d in after.discs if d.pit == pit and d.state == "in_pit")
            b = sorted(d.color for d in before.discs if d.pit == pit and d.state == "in_pit")
            if a and a != b:
                return True
        return False

    def _neutral_due_events(self) -> list[Event]:
        s = self._s
        valid = s.board.valid_neutral_pits(self.geometry.pit_ids)
        who = self.players[s.turn].label
        if not valid:
            return [Event("neutral_due", f"no disc fell into a pit: {who} must place a neutral disc, but no pit is "
                          f"valid", s.turn, 0)] + self._end("end B: a neutral disc is due but no pit is valid")
        if sum(s.neutral_pool.values()) <= 0:
            return [Event("neutral_due", f"no disc fell into a pit: {who} must place a neutral disc, but none is "
                          f"left", s.turn, 0)] + self._end("end B: a neutral disc is due but none is left")
        s.neutral_due = True
        return [Event("neutral_due", f"no disc fell into a pit: {who} places a neutral disc into an empty pit "
                      f"({len(valid)} valid) before shooting", s.turn, 0, {"valid_pits": valid})]

    def _contest_end_checks(self) -> list[Event]:
        """Contest match ends A and C (B is checked where a neutral disc falls due)."""
        s = self._s
        reasons = []
        if self.is_board_full():
            reasons.append("end A: every pit is filled")
        for i, p in enumerate(self.players):
            if s.supply[i] == 0 and s.board.in_pits(p.color) >= self.discs_per_player - s.out[i]:
                reasons.append(f"end C: all discs of {p.label} are inside pits")
        return self._end("; ".join(reasons)) if reasons else []

    def _arena_after_shot(self, last: int) -> list[Event]:
        s = self._s
        if s.phase is Phase.PHASE_I:
            full = self.is_board_full()
            stuck = all(s.supply[i] == 0 and not self._takeable(i) for i in range(len(self.players)))
            if full or stuck:
                return self._arena_phase_two("every pit is filled" if full else "nobody can shoot any more")
            return []
        s.turn = self._next(last, lambda i: s.supply[i] > 0)
        if s.turn is None:
            return self._end("every player has shot all their discs in Phase II")
        return []

    def _arena_phase_two(self, why: str) -> list[Event]:
        s = self._s
        events = [Event("phase", f"{why}: Phase II begins", None, 0, {"phase": 2})]
        s.phase = Phase.PHASE_II
        keep = [d for d in s.board if d.color not in self._owner or d.state in STACK_STATES]
        for i, p in enumerate(self.players):
            # every disc not in a pit is gathered: on the surface, hanging, or off the board
            k = self.discs_per_player - s.out[i] - s.supply[i] - s.board.in_pits(p.color)
            s.supply[i] += max(0, k)
            events.append(Event("gather", f"{p.label} gathers {max(0, k)} disc(s) not in pits: {s.supply[i]} "
                                f"to shoot in Phase II", i, 0, {"gathered": max(0, k), "supply": s.supply[i]}))
        s.board = BoardState(tuple(keep))
        s.turn = self.starting_player if s.supply[self.starting_player] else \
            self._next(self.starting_player, lambda i: s.supply[i] > 0)
        if s.turn is None:
            events += self._end("nobody has a disc to shoot in Phase II")
        return events

    def _after_scene_checks(self) -> list[Event]:
        if self.is_contest():
            return self._contest_end_checks()
        if self._free_for_all() and self._s.shots > 0:
            return self._arena_after_shot(self.starting_player)
        return []

    def _end(self, reason: str) -> list[Event]:
        s = self._s
        s.phase = Phase.OVER
        s.reason = reason
        s.neutral_due = False
        s.turn = None
        sheet = self.score()
        s.final = sheet.points
        table = ", ".join(f"{p.label} {v}" for p, v in zip(self.players, sheet.points))
        return [Event("match_end", f"the match ends ({reason}): {table}", None, 0,
                      {"reason": reason, "scores": sheet.points})]


# --------------------------------------------------------------------------------------- series

class Series:
    """Totals over several matches (the rulebook recommends 5)."""

    def __init__(self, players: Sequence[str], matches: int = 5) -> None:
        if len(players) < 2 or len(set(players)) != len(players):
            raise SetupError("a series needs at least two distinct players")
        if matches < 1:
            raise SetupError("a series needs at least one match")
        self.players = tuple(players)
        self.planned = matches
        self._results: list[tuple[int, ...]] = []
        self.history: list[Event] = []

    @property
    def results(self) -> tuple[tuple[int, ...], ...]:
        return tuple(self._results)

    def is_complete(self) -> bool:
        return len(self._results) >= self.planned

    def add(self, result: Game | Outcome | Sequence[int]) -> list[Event]:
        """Record one finished match (a Game whose players are named like the series', or scores in
        the series' player order)."""
        if self.is_complete():
            raise GameOverError(f"the series of {self.planned} matches is complete")
        if isinstance(result, Game):
            out = result.outcome()
            if out is None:
                raise IllegalActionError("the match is not over yet")
            labels = [p.label for p in result.players]
            if sorted(labels) != sorted(self.players):
                raise SetupError(f"the match's players {labels} are not the series' {list(self.players)}")
            scores = tuple(out.scores[labels.index(name)] for name in self.players)
        elif isinstance(result, Outcome):
            scores = tuple(result.scores)
        else:
            scores = tuple(int(x) for x in result)
        if len(scores) != len(self.players):
            raise SetupError(f"{len(scores)} scores for {len(self.players)} players")
        self._results.append(scores)
        totals = self.totals()
        k = len(self._results)
        events = [Event("match_scores", f"match {k}: {name} {v} (total {totals[i]})", i, v,
                        {"match": k, "total": totals[i]}) for i, (name, v) in enumerate(zip(self.players, scores))]
        self.history.extend(events)
        return events

    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r[i] for r in self._results) for i in range(len(self.players)))

    def outcome(self) -> Outcome | None:
        if not self.is_complete():
            return None
        t = self.totals()
        return Outcome(winners_of(t), t, f"total after {len(self._results)} matches")
