"""Refereeing PitRush: disc states from the photos, the players' inputs, the engine's scoring.

The vision judgement gives every disc's colour and state (surface, in a pit, stacked on a disc in a
pit, hanging on an empty pit's edge, off the board); this module adds what one photo cannot show:
a disc hidden right under a stacked one is remembered from the scene before (a disc that vanished
where another now lies is covered, not removed), and which seat's shooting area or line a disc is
on.  The engine then scores from the board's own geometry (the calibration's pits and seats).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import shapely
from shapely.geometry import LineString, Polygon

from calibration.model import Calibration
from rules.base import Event
from rules.pitrush import BoardGeometry, BoardState, DiscState, Game, Player
from tableref.errors import InputError
from vision.judgement import Judgement

from .recording import Turn

LINE_HALF_WIDTH_MM = 1.5  # painted shooting lines are ~3 mm wide


def local(item_id: str | None) -> str | None:
    return None if item_id is None else item_id.split("/")[-1]


@dataclass
class PitRushReferee:
    calibration: Calibration
    players: list[str]
    setup: dict
    game: Game = field(init=False)
    pit_stacks: dict[str, list[str]] = field(init=False, default_factory=dict)  # pit -> colours, bottom first

    def __post_init__(self) -> None:
        s = self.setup
        cal = self.calibration.data
        pits = {local(p.id): (tuple(p.center), p.radius) for p in cal.pits}
        seats = {local(st.id): (tuple(map(tuple, st.shooting_line)),
                                None if st.shooting_area is None else [tuple(v) for v in st.shooting_area])
                 for st in cal.seats}
        self.geometry = BoardGeometry.from_data(pits=pits, seats=seats)
        colors = s.get("colors")
        seats_of = s.get("seats")
        if not colors or not seats_of or len(colors) != len(self.players) or len(seats_of) != len(self.players):
            raise InputError("a PitRush recording's set-up needs 'colors' and 'seats', one per player")
        players = [Player(c, st, n) for c, st, n in zip(colors, seats_of, self.players)]
        kwargs = {k: s[k] for k in ("scoring", "formations", "starting_player", "discs_per_player") if k in s}
        self.game = Game(s.get("mode", "contest"), players, self.geometry, **kwargs)
        self.areas = {local(st.id): Polygon(st.shooting_area) for st in cal.seats if st.shooting_area}
        self.lines = {local(st.id): LineString(st.shooting_line).buffer(LINE_HALF_WIDTH_MM) for st in cal.seats}

    def scores(self) -> tuple[int, ...]:
        return tuple(self.game.score().points)

    # ------------------------------------------------------------------------------------ turns
    def play_turn(self, turn: Turn, judgements: list[Judgement]) -> list[Event]:
        g = self.game
        if turn.action == "neutral":
            if not turn.pit:
                raise InputError("a neutral placement needs 'pit'")
            ev = g.place_neutral(turn.pit, turn.color)
            self.pit_stacks[turn.pit] = [ev[0].data.get("color", turn.color)] if ev else [turn.color]
            return ev
        if turn.action == "take_back":
            return g.take_back(turn.player)
        if turn.action == "declare":
            return g.declare(turn.note or "declared")
        events: list[Event] = []
        for shot, j in zip(turn.shots, judgements):
            board, review = self.board_state(j)
            events += review
            if turn.action == "observe":
                events += g.observe(board)
            else:
                if turn.player is None:
                    raise InputError("a PitRush shot needs 'player'")
                events += g.shot(turn.player, board, from_line=turn.from_line)
        return events

    # ------------------------------------------------------------------------------- the scene
    def board_state(self, j: Judgement) -> tuple[BoardState, list[Event]]:
        det = j.detections
        discs: list[DiscState] = []
        review: list[Event] = []
        stacks: dict[str, list[tuple[float, str]]] = {}
        for i in range(len(det)):
            if det.kind[i] != "disc":
                continue
            state = str(j.state[i])
            pit = local(j.pit[i])
            color = str(det.color[i])
            if state in ("in_pit", "stacked") and pit:
                stacks.setdefault(pit, []).append((float(det.base_mm[i]), color))
                continue
            fp = Polygon(det.footprint_mm[i])
            c = shapely.points(det.center_mm[i])
            area = next((s for s, a in self.areas.items() if a.contains(c)), None)
            line = next((s for s, ln in self.lines.items() if ln.intersects(fp)), None)
            if state == "hanging":
                discs.append(DiscState(color, "hanging", pit, 0, area, line))
            elif state == "off_board" or j.outbound[i]:
                discs.append(DiscState(color, "off_board"))
            else:
                discs.append(DiscState(color, "surface", None, 0, area, line))
            if j.review[i]:
                review.append(Event("review", f"{color} disc: {j.reasons[i]} (a person should confirm)"))
        new_stacks: dict[str, list[str]] = {}
        for pit, items in stacks.items():
            items.sort()
            colours = [c for _, c in items]
            before = self.pit_stacks.get(pit, [])
            hidden = [c for c in colours if c == "unknown"]
            colours = [c for c in colours if c != "unknown"]
            if before and len(colours) == 1 and colours[0] != before[-1] and not hidden:
                # a disc of another colour now lies where a disc was in this pit: that disc is
                # covered (one photo cannot see under a disc lying right over it)
                colours = before + colours
            elif hidden and before:
                colours = before[: len(before)] + colours if colours and before[-1] != colours[0] else colours
            elif hidden:
                review.append(Event("review", f"a disc hidden under the stack on {pit}: its colour is unknown"))
            new_stacks[pit] = colours
        for pit, colours in new_stacks.items():
            for level, color in enumerate(colours):
                discs.append(DiscState(color, "in_pit" if level == 0 else "stacked", pit, level))
        self.pit_stacks = new_stacks
        return BoardState(tuple(discs)), review
