"""Pitch Fleet solo / family mode: a run of seven challenge cards, judged from the scene.

The rulebook prints the setup and goal of challenge cards 1-16 but not their VP nor their move
limit (both are on the card faces). Our choice, by difficulty: VP 1-4 and 2-4 moves (table
:data:`CHALLENGES`). None of cards 1-16 imposes a power card's movement (``power_card`` None).
Cards 17-28 are not described in the rulebook text and are left out.

Each checker reads the scenes of the current attempt (what the blue ship arrived, which red ships
moved or went outbound, which beams moved or fell). Where the scene cannot tell (challenges 9 and
10: "bouncing with the beams" before the goal), a person's declaration is needed:
:meth:`SoloGame.shoot` raises :class:`~rules.base.NeedsConfirmation` unless ``declared=`` is given.
Family mode is the same engine: the players take turns and share the one score.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from ..base import Event, GameOverError, IllegalActionError, NeedsConfirmation, Outcome, SetupError
from .game import Status
from .model import Location, LocationKind, ShipId, ShotResult, _Value

#: the ship you move in solo mode
SOLO_SHIP = ShipId("blue", 1)
RED = (ShipId("red", 1), ShipId("red", 2), ShipId("red", 3))
RUN_LENGTH = 7

#: (lowest total, evaluation), best first (rulebook table)
EVALUATION: tuple[tuple[int, str], ...] = (
    (18, "Solar-mighty"), (15, "Impressive"), (11, "Expert"), (7, "Average pilot"),
    (5, "Don't drive my Starship"), (0, "Back to internship!"))


def evaluation(score: int) -> str:
    """The rulebook's evaluation of a solo total: 18+ Solar-mighty ... 0-4 Back to internship!"""
    for low, text in EVALUATION:
        if score >= low:
            return text
    return EVALUATION[-1][1]


class Verdict(enum.Enum):
    DONE = "done"
    FAILED = "failed"
    ONGOING = "ongoing"
    NEEDS_DECLARATION = "needs_declaration"


@dataclass(frozen=True)
class Progress(_Value):
    """What the current attempt at a challenge has achieved so far (built from the scenes)."""

    moves: int = 0
    blue_at: frozenset[Location] = frozenset()         # where the blue ship is now
    arrived: frozenset[Location] = frozenset()         # every location the blue ship arrived this attempt
    arrived_now: frozenset[Location] = frozenset()     # ... in the last move
    blue_out: bool = False
    blue_upright: bool = True
    red_moved: frozenset[ShipId] = frozenset()
    red_out: frozenset[ShipId] = frozenset()
    beams_moved: frozenset[int] = frozenset()
    beam_down: bool = False
    last: ShotResult | None = None

    def has_arrived(self, board: str) -> bool:
        return Location.planet(board) in self.arrived

    def arrived_kind(self, *kinds: LocationKind) -> bool:
        return any(loc.kind in kinds for loc in self.arrived)

    def red(self, ship: ShipId):
        return self.last.result_of(ship) if self.last else None

    def advanced(self, result: ShotResult) -> "Progress":
        b = result.result_of(SOLO_SHIP)
        blue_out = b is None or b.outbound
        now = frozenset() if blue_out else b.locations
        was = {loc.key for loc in self.blue_at}
        new = frozenset(loc for loc in now if loc.key not in was) if (b is not None and b.moved) else frozenset()
        red_moved = set(self.red_moved)
        red_out = set(self.red_out)
        for r in result.ships:
            if r.ship.team == "red" and (r.moved or r.knocked):
                red_moved.add(r.ship)
                if r.outbound:
                    red_out.add(r.ship)
        return Progress(
            moves=self.moves + 1, blue_at=now, arrived=self.arrived | new, arrived_now=new, blue_out=blue_out,
            blue_upright=b.upright if b is not None else True, red_moved=frozenset(red_moved),
            red_out=frozenset(red_out),
            beams_moved=self.beams_moved | {x.index for x in result.beams if x.moved or not x.on_board},
            beam_down=self.beam_down or any(not x.upright for x in result.beams), last=result)


Checker = Callable[[Progress, "bool | None"], Verdict]


@dataclass(frozen=True)
class ChallengeCard(_Value):
    """A challenge card: its rulebook setup and goal, its VP and move limit (our choice), the setup pieces."""

    number: int
    setup: str
    challenge: str
    vp: int
    max_moves: int
    red_ships: int = 0
    beams: int = 0
    power_card: str | None = None
    needs_declaration: str = ""

    def judge(self, progress: Progress, declared: bool | None = None) -> Verdict:
        """Is the challenge done, failed or still going after the moves in ``progress``?"""
        if progress.blue_out:
            return Verdict.FAILED
        return _CHECKERS[self.number](progress, declared)

    def __str__(self) -> str:
        return f"Challenge {self.number}"


def _done_if(cond: bool) -> Verdict:
    return Verdict.DONE if cond else Verdict.ONGOING


def _red_outbound(ship: ShipId) -> Checker:
    return lambda a, d: _done_if(ship in a.red_out)


def _bounce(a: Progress, declared: bool | None) -> bool | None:
    """Did the blue ship bounce off the beams in the last move? False without a collision."""
    if a.last is None or not a.last.collided:
        return False
    return declared


def _c1(a: Progress, d) -> Verdict:
    r = a.red(RED[0])
    if RED[0] in a.red_out or (a.last is not None and r is None):
        return Verdict.FAILED
    return _done_if(r is not None and RED[0] in a.red_moved and Location.planet("venus") in r.locations)


def _c6(a: Progress, d) -> Verdict:
    if a.arrived_kind(LocationKind.SATELLITE, LocationKind.CHARGING_SATELLITE):
        return Verdict.FAILED
    return _done_if(a.has_arrived("pluto"))


def _c7(a: Progress, d) -> Verdict:
    if a.beam_down:
        return Verdict.FAILED
    return _done_if(a.has_arrived("jupiter"))


def _c9(a: Progress, d) -> Verdict:
    if RED[0] not in a.red_out:
        return Verdict.ONGOING
    bounce = _bounce(a, d)
    if bounce is None:
        return Verdict.NEEDS_DECLARATION
    return Verdict.DONE if bounce else Verdict.FAILED


def _c10(a: Progress, d) -> Verdict:
    if Location.planet("venus") not in a.arrived_now:
        return Verdict.ONGOING
    bounce = _bounce(a, d)
    if bounce is None:
        return Verdict.NEEDS_DECLARATION
    return _done_if(bounce)


def _c14(a: Progress, d) -> Verdict:
    return _done_if(Location.planet("earth") in a.arrived_now and a.blue_upright)


def _c15(a: Progress, d) -> Verdict:
    rs = [a.red(s) for s in RED]
    if a.last is not None and any(r is None for r in rs):
        return Verdict.FAILED
    return _done_if(all(r is not None and not r.outbound for r in rs))


def _c16(a: Progress, d) -> Verdict:
    if len(a.red_out & set(RED[:2])) >= 2:
        return Verdict.FAILED
    if len(a.red_out & set(RED[:2])) == 1:
        other = next(s for s in RED[:2] if s not in a.red_out)
        r = a.red(other)
        return _done_if(r is not None and not r.outbound)
    return Verdict.ONGOING


_CHECKERS: dict[int, Checker] = {
    1: _c1,
    2: lambda a, d: _done_if(a.has_arrived("mars") and {RED[0], RED[1]} <= a.red_moved),
    3: lambda a, d: _done_if(a.has_arrived("saturn") and len(a.beams_moved) >= 4),
    4: _red_outbound(RED[0]),
    5: _red_outbound(RED[0]),
    6: _c6,
    7: _c7,
    8: _red_outbound(RED[0]),
    9: _c9,
    10: _c10,
    11: lambda a, d: _done_if({RED[0], RED[1]} <= a.red_out),
    12: lambda a, d: _done_if(a.has_arrived("venus") and a.has_arrived("neptune")),
    13: lambda a, d: _done_if(a.has_arrived("mercury")),
    14: _c14,
    15: _c15,
    16: _c16,
}

_BOUNCE = "the blue ship bounced off the beams before"

#: Challenge cards 1-16 (rulebook wording); vp and max_moves are our choice (by difficulty).
CHALLENGES: dict[int, ChallengeCard] = {c.number: c for c in (
    ChallengeCard(1, "One red Starship on the asteroid belt of Venus.",
                  "Let the red Starship arrive Venus.", vp=1, max_moves=2, red_ships=1),
    ChallengeCard(2, "Two red Starships on both satellites of Mars.",
                  "Arrive Mars and let both red starships moved.", vp=2, max_moves=3, red_ships=2),
    ChallengeCard(3, "Equally separate your Starship and Saturn by four magnetic beams.",
                  "Arrive Saturn and let all magnetic beams moved.", vp=3, max_moves=3, beams=4),
    ChallengeCard(4, "One red Starship on Saturn and equally separate your Starship and Saturn by two magnetic beams.",
                  "Outbound the red Starship.", vp=2, max_moves=3, red_ships=1, beams=2),
    ChallengeCard(5, "One red Starship on any planet of a corner board.",
                  "Outbound the red Starship.", vp=1, max_moves=2, red_ships=1),
    ChallengeCard(6, "None.", "Arrive Pluto without arriving any satellite.", vp=2, max_moves=3),
    ChallengeCard(7, "One upstanding magnetic beam on each of the three satellites of Jupiter.",
                  "Arrive Jupiter without knocking down any beam.", vp=2, max_moves=3, beams=3),
    ChallengeCard(8, "One red Starship on Mars, surrounded by four magnetic beams.",
                  "Outbound the red Starship.", vp=3, max_moves=3, red_ships=1, beams=4),
    ChallengeCard(9, "Six upstanding magnetic beams side-by-side on the asteroid belt of Venus. Stable the beams "
                     "with your other hand. One red Starship on Venus.",
                  "Bounding with the beams, and then outbound the red Starship.", vp=3, max_moves=2,
                  red_ships=1, beams=6, needs_declaration=_BOUNCE + " the red ship went outbound"),
    ChallengeCard(10, "Six upstanding magnetic beams side-by-side on the asteroid belt of Venus. Stable the beams "
                      "with your other hand.",
                  "Bounding with the beams, and then arrive Venus.", vp=3, max_moves=2, beams=6,
                  needs_declaration=_BOUNCE + " arriving Venus"),
    ChallengeCard(11, "Two red Starships on both satellites of Neptune.",
                  "Outbound both red Starships.", vp=3, max_moves=3, red_ships=2),
    ChallengeCard(12, "None.", "Arrive Venus and Neptune.", vp=2, max_moves=4),
    ChallengeCard(13, "Set six magnetic beams on Mercury. Stack them up as a campfire.",
                  "Arrive Mercury.", vp=1, max_moves=2, beams=6),
    ChallengeCard(14, "Surround Earth with three magnetic beams.",
                  "Arrive Earth with your Starship not overlap any beam.", vp=2, max_moves=3, beams=3),
    ChallengeCard(15, "Stack three red Starships on Mars.",
                  "Let all red Starships touch the board.", vp=3, max_moves=3, red_ships=3),
    ChallengeCard(16, "Stack two red Starships on Mercury.",
                  "Outbound one and only one red Starship.", vp=4, max_moves=2, red_ships=2),
)}


@dataclass
class _SoloState:
    deck: list[ChallengeCard]
    card: ChallengeCard | None
    vp_on_card: int
    score: int
    progress: Progress
    completed: list[ChallengeCard]
    discarded: list[ChallengeCard]
    log: list[Event] = field(default_factory=list)

    def clone(self) -> "_SoloState":
        return replace(self, deck=list(self.deck), completed=list(self.completed), discarded=list(self.discarded),
                       log=list(self.log))


class SoloGame:
    """Solo / family mode: seven challenge cards, each completed (its VP won) or discarded.

    ``cards``: the challenge cards (or numbers) you chose, at least seven (default: 1-16);
    ``shuffle``: shuffle them (with ``seed``/``rng``) before taking seven; ``shuffle=False`` keeps
    the given order (exact tests).
    """

    def __init__(self, cards: Iterable[int | ChallengeCard] | None = None, *, seed: int | None = None,
                 rng: random.Random | None = None, shuffle: bool = True, player: str = "Player 1") -> None:
        chosen: list[ChallengeCard] = []
        for c in (cards if cards is not None else sorted(CHALLENGES)):
            if isinstance(c, ChallengeCard):
                chosen.append(c)
            elif c in CHALLENGES:
                chosen.append(CHALLENGES[c])
            else:
                raise SetupError(f"unknown challenge card {c!r} (cards 1-16 are known)")
        if len(chosen) < RUN_LENGTH:
            raise SetupError(f"choose at least {RUN_LENGTH} challenge cards, not {len(chosen)}")
        if rng is None:
            rng = random.Random(seed)
        if shuffle:
            rng.shuffle(chosen)
        self.player = player
        self._s = _SoloState(deck=chosen[:RUN_LENGTH], card=None, vp_on_card=0, score=0, progress=Progress(),
                             completed=[], discarded=[])
        self._s.log.extend(self._next_card(self._s))

    # ------------------------------------------------------------------ queries

    @property
    def current_card(self) -> ChallengeCard | None:
        return self._s.card

    @property
    def vp_on_card(self) -> int:
        return self._s.vp_on_card

    @property
    def progress(self) -> Progress:
        return self._s.progress

    @property
    def moves_left(self) -> int:
        return self._s.card.max_moves - self._s.progress.moves if self._s.card else 0

    @property
    def score(self) -> int:
        return self._s.score

    @property
    def events(self) -> tuple[Event, ...]:
        return tuple(self._s.log)

    def cards_left(self) -> int:
        """Challenge cards still face down in the run."""
        return len(self._s.deck)

    def completed(self) -> tuple[ChallengeCard, ...]:
        return tuple(self._s.completed)

    def discarded(self) -> tuple[ChallengeCard, ...]:
        return tuple(self._s.discarded)

    def scores(self) -> tuple[int, ...]:
        return (self._s.score,)

    def is_game_over(self) -> bool:
        return self._s.card is None

    def evaluation(self) -> str:
        return evaluation(self._s.score)

    def status(self) -> Status:
        """SHIP_NOT_FLAT when the blue ship's last scene has it not lying flat; VALID otherwise."""
        return Status.VALID if self._s.progress.blue_upright else Status.SHIP_NOT_FLAT

    def outcome(self) -> Outcome | None:
        if not self.is_game_over():
            return None
        return Outcome((0,), (self._s.score,), f"{RUN_LENGTH} challenge cards completed or discarded: "
                                               f"{self._s.score} VP, {self.evaluation()}")

    # ------------------------------------------------------------------ actions

    def place_ship(self, locations: Iterable[Location]) -> list[Event]:
        """Where the blue ship is placed before the first move of an attempt (any planet but the goal)."""
        s0 = self._check()
        if s0.progress.moves:
            raise IllegalActionError("the ship is placed before the first move of an attempt")
        s = s0.clone()
        s.progress = replace(s.progress, blue_at=frozenset(locations))
        where = ", ".join(map(str, sorted(s.progress.blue_at))) or "the board"
        ev = [Event("ship_placed", f"{SOLO_SHIP} placed on {where}",
                    0, data={"locations": s.progress.blue_at})]
        s.log.extend(ev)
        self._s = s
        return ev

    def shoot(self, result: ShotResult, *, declared: bool | None = None) -> list[Event]:
        """Judge one move. ``declared``: a person's answer where the scene cannot tell (see the card)."""
        s0 = self._check()
        if result.ship != SOLO_SHIP:
            raise IllegalActionError(f"in solo mode you move {SOLO_SHIP}, not {result.ship}")
        card = s0.card
        prog = s0.progress.advanced(result)
        verdict = card.judge(prog, declared)
        if verdict is Verdict.NEEDS_DECLARATION:
            raise NeedsConfirmation(f"{card}: confirm whether {card.needs_declaration} (declared=True/False)")
        s = s0.clone()
        s.progress = prog
        ev = [Event("move", f"{card}, move {prog.moves} of {card.max_moves}", 0,
                    data={"card": card.number, "move": prog.moves})]
        if declared is not None and card.needs_declaration:
            ev.append(Event("declared", f"Declared: {card.needs_declaration}: {'yes' if declared else 'no'}", 0,
                            data={"declared": declared}))
        if verdict is Verdict.DONE:
            gained = s.vp_on_card
            s.score += gained
            s.completed.append(card)
            ev.append(Event("challenge_done", f"{card} completed in {prog.moves} move{'s' * (prog.moves != 1)}: "
                                              f"+{gained} VP to {self.player}", 0, gained,
                            {"card": card.number}))
            ev += self._next_card(s)
        elif verdict is Verdict.FAILED:
            why = "your Starship went outbound" if prog.blue_out else "the challenge cannot be met any more"
            ev += self._failed(s, why)
        elif prog.moves >= card.max_moves:
            ev += self._failed(s, f"not done within {card.max_moves} moves")
        s.log.extend(ev)
        self._s = s
        return ev

    def fail(self, reason: str = "a rule of the challenge was broken") -> list[Event]:
        """A person reports a failed attempt the scene cannot show (wrong finger, touched a piece ...)."""
        s = self._check().clone()
        ev = self._failed(s, reason)
        s.log.extend(ev)
        self._s = s
        return ev

    # ------------------------------------------------------------------ internals

    def _check(self) -> _SoloState:
        if self._s.card is None:
            raise GameOverError("the solo run is over")
        return self._s

    def _failed(self, s: _SoloState, why: str) -> list[Event]:
        card = s.card
        s.vp_on_card -= 1
        if s.vp_on_card <= 0:
            s.discarded.append(card)
            ev = [Event("challenge_failed", f"{card} failed ({why}): 1 VP removed from the card, none left: "
                                            f"the card is discarded", 0, data={"card": card.number})]
            return ev + self._next_card(s)
        s.progress = Progress()
        return [Event("challenge_failed", f"{card} failed ({why}): 1 VP removed from the card ({s.vp_on_card} left); "
                                          f"set up again and re-challenge", 0, data={"card": card.number})]

    def _next_card(self, s: _SoloState) -> list[Event]:
        s.progress = Progress()
        if not s.deck:
            s.card = None
            s.vp_on_card = 0
            return [Event("solo_over", f"All {RUN_LENGTH} challenge cards are completed or discarded: "
                                       f"{s.score} VP, {evaluation(s.score)}", 0,
                          data={"score": s.score, "evaluation": evaluation(s.score)})]
        s.card = s.deck.pop(0)
        s.vp_on_card = s.card.vp
        c = s.card
        return [Event("challenge", f"{c}: {c.challenge} Setup: {c.setup} ({c.vp} VP on the card, at most "
                                   f"{c.max_moves} moves)", 0, data={"card": c.number})]
