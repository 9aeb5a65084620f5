"""Refereeing Pitch Fleet: settled scenes plus the players' inputs in, explained events out.

The vision judgement says where every starship and beam rests and which zones it touches; this
module keeps who is who (ships of one colour look alike: identities follow from where each ship was
before the shot — the shot ship is the one the player named, the others moved only if knocked),
turns the verdicts into the engine's :class:`~rules.pitchfleet.ShotResult`, and lets the rules
engine award the points.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import linear_sum_assignment

from calibration.model import Calibration
from rules.base import Event
from rules.pitchfleet import (BeamResult, Game, Location, LocationKind, ShipId, ShipResult, ShotResult, card)
from tableref.errors import InputError
from vision.judgement import Judgement

from .recording import Turn

MOVED_MM = 2.0          # a piece that moved less than this did not move (measurement noise is ~0.5 mm)
SHOT_SHIP_COST = 60.0   # assignment cost of the shot ship to any detection (it may land anywhere)


def parse_ship(text: str) -> ShipId:
    t = text.strip().lower().replace(" ", "").replace("ship", "")
    for team in ("red", "blue"):
        if t.startswith(team) and t[len(team):].isdigit():
            return ShipId(team, int(t[len(team):]))
    raise InputError(f"'{text}' is not a ship", "name ships like red1 or blue3")


def ship_key(s: ShipId) -> str:
    return f"{s.team}{s.number}"


@dataclass
class PitchFleetReferee:
    """One game of Pitch Fleet refereed from settled scenes."""

    calibration: Calibration
    players: list[str]
    setup: dict
    game: Game = field(init=False)
    positions: dict[ShipId, np.ndarray] = field(init=False, default_factory=dict)
    beam_positions: dict[int, np.ndarray] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        s = self.setup
        kwargs = {}
        if "planet_deck" in s:
            kwargs["planet_deck"] = list(s["planet_deck"])
        if "power_deck" in s:
            try:
                kwargs["power_deck"] = [card(c) for c in s["power_deck"]]
            except KeyError as e:
                raise InputError(f"unknown power card {e} in the recording's set-up") from None
        if "team_deals" in s:
            kwargs["team_deals"] = [tuple(parse_ship(x) for x in deal) for deal in s["team_deals"]]
        if "seed" in s:
            kwargs["seed"] = int(s["seed"])
        kwargs["advanced"] = bool(s.get("advanced", False))
        self.game = Game(list(self.players), **kwargs)
        self.zones = {z.id: z for z in self.calibration.data.zones}

    # ------------------------------------------------------------------------------------ turns
    def play_turn(self, turn: Turn, judgements: list[Judgement]) -> list[Event]:
        """Play one recorded turn: one judgement per shot (several when the player restarted)."""
        g = self.game
        if turn.player is None or turn.ship is None or turn.card is None:
            raise InputError("a Pitch Fleet turn needs 'player', 'ship' and 'card'")
        ship = parse_ship(turn.ship)
        if turn.card.startswith("pile:"):
            the_card = int(turn.card.split(":", 1)[1]) - 1
        else:
            try:
                the_card = card(turn.card)
            except KeyError:
                raise InputError(f"unknown power card '{turn.card}'") from None
        events = g.begin_turn(turn.player, ship, the_card)
        before = dict(self.positions)
        if ship not in before:
            before[ship] = self._start_point()
        for shot, j in zip(turn.shots, judgements):
            result, review, assigned = self.shot_result(ship, j, before)
            events += review
            events += g.resolve_shot(result)
            if shot.restart:
                events += g.restart()
                continue
            self._remember(result, j, assigned)
        if turn.drawn == "use":
            raise InputError("using a drawn card in a recording is not supported yet", "record it as 'keep'")
        events += g.end_turn()
        # ships that left the board (outbound, or a new stage) are forgotten
        on_board = g.ships_on_board()
        self.positions = {s: p for s, p in self.positions.items() if s in on_board}
        if not g.beams_on_board():
            self.beam_positions = {}
        return events

    def _start_point(self) -> np.ndarray:
        z = self.zones.get(f"{self.game.start}/planet")
        if z is None:
            return np.array(self.calibration.support.centroid.coords[0])
        return np.asarray(z.polygon).mean(axis=0)

    # ------------------------------------------------------------------------------- the scene
    def shot_result(self, shot_ship: ShipId, j: Judgement, before: dict[ShipId, np.ndarray]):
        """The engine's ShotResult for a judged scene, review events for flagged verdicts, and which
        detection each ship is."""
        det = j.detections
        review: list[Event] = []
        ships_res: list[ShipResult] = []
        assigned: dict[ShipId, int] = {}
        for team in ("red", "blue"):
            idx = [i for i in range(len(det)) if det.kind[i] == "starship" and det.color[i] == team]
            ships = [s for s in before if s.team == team]
            if not ships:
                continue
            cost = np.full((len(ships), max(len(idx), 1)), 1e6)
            for a, s in enumerate(ships):
                for b, i in enumerate(idx):
                    if s == shot_ship:
                        cost[a, b] = SHOT_SHIP_COST
                    else:
                        d = float(np.linalg.norm(det.center_mm[i] - before[s]))
                        cost[a, b] = d if d < 150.0 else 1e5
            if idx:
                rows, cols = linear_sum_assignment(cost)
                for r, c in zip(rows, cols):
                    if cost[r, c] < 1e5:
                        assigned[ships[r]] = idx[c]
        moved_any_other = False
        for s in before:
            i = assigned.get(s)
            if i is None:
                # on the board before, not found now: it left the board (the engine counts it outbound)
                ships_res.append(ShipResult(s, outbound=True, moved=True, knocked=s != shot_ship))
                moved_any_other |= s != shot_ship
                continue
            moved = s == shot_ship or float(np.linalg.norm(det.center_mm[i] - before[s])) > MOVED_MM
            outbound = bool(j.outbound[i]) or j.state[i] == "on_piece"
            locs = frozenset() if outbound else frozenset(self._location(z) for z in j.zones[i])
            ships_res.append(ShipResult(s, outbound=outbound, locations=locs, moved=moved,
                                        knocked=moved and s != shot_ship))
            moved_any_other |= moved and s != shot_ship
            if j.review[i]:
                review.append(Event("review", f"{s}: {j.reasons[i]} (a person should confirm)", None, 0,
                                    {"ship": ship_key(s), "margin_mm": float(j.margin_mm[i])}))
        beams = self._beams(j)
        moved_beam = any(b.moved for b in beams)
        return ShotResult(shot_ship, tuple(ships_res), collided=moved_any_other or moved_beam,
                          beams=tuple(beams)), review, assigned

    def _beams(self, j: Judgement) -> list[BeamResult]:
        det = j.detections
        idx = [i for i in range(len(det)) if det.kind[i] == "beam"]
        out = []
        known = dict(self.beam_positions)
        for k, i in enumerate(idx):
            near = min(known.items(), key=lambda kv: np.linalg.norm(kv[1] - det.center_mm[i]), default=None)
            if near is not None and np.linalg.norm(near[1] - det.center_mm[i]) < 60.0:
                index = near[0]
                moved = float(np.linalg.norm(near[1] - det.center_mm[i])) > MOVED_MM
                known.pop(index)
            else:
                index = max(list(self.beam_positions) + [-1]) + 1 + k
                moved = False
            upright = float(det.height_mm[i]) > 15.0
            out.append(BeamResult(index % 6, moved=moved, upright=upright, on_board=not bool(j.outbound[i])))
        return out

    def _location(self, zone_id: str) -> Location:
        z = self.zones[zone_id]
        board, zone = zone_id.split("/", 1)
        return Location(board, zone, LocationKind(z.kind), z.stars or 0)

    def _remember(self, result: ShotResult, j: Judgement, assigned: dict[ShipId, int]) -> None:
        det = j.detections
        for sr in result.ships:
            if sr.outbound or sr.ship not in assigned:
                self.positions.pop(sr.ship, None)
            else:
                self.positions[sr.ship] = det.center_mm[assigned[sr.ship]].copy()
        for k, i in enumerate([i for i in range(len(det)) if det.kind[i] == "beam"]):
            self.beam_positions[k] = det.center_mm[i].copy()

    # ----------------------------------------------------------------------------- the outcome
    def scores(self) -> tuple[int, ...]:
        return self.game.scores()

    def scoreboard(self) -> list[tuple[str, int]]:
        return list(zip(self.game.names, self.game.scores()))
