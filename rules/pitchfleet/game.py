"""The Pitch Fleet multiplayer engine (2-6 players): set-up, turns, examinations, rounds, stages.

See the package docstring (:mod:`rules.pitchfleet`) for the API walk-through and the choices made
where the rulebook is silent.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, field, replace
from typing import Iterable, Sequence

from ..base import (Event, GameOverError, IllegalActionError, Outcome, SetupError, WrongPlayerError,
                    winners_of)
from .cards import (ASTEROID_MINER, CHAIN_REACTION, COMBO, DECOY_BEAM, DOMINO, KNUCKLE,
                    MAGNETIC_BARRIER, RECHARGE, REVERSE_GRAVITY, SAFETY_NET, SPRINGBOARD, WARP_DRIVE, PowerCard,
                    advanced_deck, basic_deck)
from .model import (PLANET_CARDS_BY_PLAYERS, PLANETS, STARTING_TEAM_CARD, TEAMS, Location, LocationKind,
                    ShipId, ShotResult, planet_name, team_cards_for)

ROUNDS_PER_STAGE = 3
PILE_SIZE = 3
START_VP = 3
TEAM_BONUS_VP = 3
MAX_BEAMS = 6


class Status(enum.IntFlag):
    """Odd positions (VALID = 0 when there is nothing odd)."""

    VALID = 0
    #: a ship was placed off the starting planet (elsewhere on its board) because it was crowded
    SHIP_OFF_START_PLANET = 1
    #: a ship on the board does not lie flat (its last ShipResult had ``upright=False``)
    SHIP_NOT_FLAT = 2
    #: the scene shows a ship nobody controls this stage (more ships on the board than players)
    SHIP_NOT_IN_PLAY = 4
    #: more than the six magnetic beams of the box are on the board
    TOO_MANY_BEAMS = 8
    #: the power deck and the discard pile are both empty: no card can be drawn
    POWER_DECK_EMPTY = 16


class Phase(enum.Enum):
    """Where the current turn is."""

    CHOOSE = "choose"        #: waiting for :meth:`Game.begin_turn`
    SHOOT = "shoot"          #: ship and card chosen: waiting for :meth:`Game.resolve_shot`
    RESOLVED = "resolved"    #: shot examined: :meth:`Game.restart`, drawn-card choice or :meth:`Game.end_turn`
    OVER = "over"            #: the game has ended


@dataclass
class _Turn:
    player: int
    ship: ShipId
    card: PowerCard
    pile: int | None                 # pile the card came from (None: drawn at a charging satellite)
    start: frozenset[Location]       # where the ship stands right before the shot
    beam: int | None = None          # beam placed (Magnetic Barrier) or shot (Decoy Beam)
    collided: bool = False
    pending: list[PowerCard] = field(default_factory=list)   # drawn cards waiting for the use/keep choice
    used: list[PowerCard] = field(default_factory=list)      # cards to discard at the end of the turn
    shots: int = 0

    def clone(self) -> "_Turn":
        return replace(self, pending=list(self.pending), used=list(self.used))


@dataclass
class _State:
    rng: random.Random
    names: tuple[str, ...]
    stage: int
    round: int
    turn_index: int
    starting_player: int
    planet_deck: list[str]
    planets_used: list[str]
    start: str
    goal: str
    teams: list[ShipId]
    team_deals: list[tuple[ShipId, ...]]
    vp: list[int]
    face_down: list[list[PowerCard]]
    restart_cards: list[bool]
    bonus_token: bool
    records_on_goal: set[ShipId]
    board: dict[ShipId, frozenset[Location]]
    off_start: set[ShipId]
    not_flat: set[ShipId]
    beams: set[int]
    deck: list[PowerCard]
    discard: list[PowerCard]
    piles: list[list[PowerCard]]
    face_up: list[bool]
    turn: _Turn | None
    phase: Phase
    log: list[Event]
    bonus_awards: list[tuple[int, str]]
    stages_played: int = 0

    def clone(self) -> "_State":
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        return replace(
            self, rng=rng, planet_deck=list(self.planet_deck), planets_used=list(self.planets_used),
            teams=list(self.teams), team_deals=list(self.team_deals), vp=list(self.vp),
            face_down=[list(f) for f in self.face_down], restart_cards=list(self.restart_cards),
            records_on_goal=set(self.records_on_goal), board=dict(self.board), off_start=set(self.off_start),
            not_flat=set(self.not_flat), beams=set(self.beams), deck=list(self.deck), discard=list(self.discard),
            piles=[list(p) for p in self.piles], face_up=list(self.face_up),
            turn=self.turn.clone() if self.turn else None, log=list(self.log), bonus_awards=list(self.bonus_awards))


@dataclass
class _Change:
    player: int
    points: int
    kind: str
    text: str
    data: dict


def _ships_text(ships: Iterable[ShipId]) -> str:
    names = [str(s) for s in ships]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _locs_text(locs: Iterable[Location]) -> str:
    locs = sorted(locs)
    return ", ".join(str(loc) for loc in locs) if locs else "no location"


class Game:
    """A Pitch Fleet game for 2-6 players (see :mod:`rules.pitchfleet` for the walk-through).

    ``players``: a count (names "Player 1".."Player n") or a sequence of names. ``seed``/``rng``:
    the only source of randomness. ``advanced``: shuffle the 25 advanced cards into the Power Deck.
    Explicit decks make a game exact: ``planet_deck`` (planet ids in draw order: start, first goal,
    next goals; any length 2..9, default the table length for the player count), ``power_deck``
    (top first, used as is), ``team_deals`` (for each stage in turn, the team card of each player;
    stages past the given deals are dealt at random).
    """

    def __init__(self, players: int | Sequence[str] = 2, *, seed: int | None = None,
                 rng: random.Random | None = None, advanced: bool = False,
                 planet_deck: Sequence[str] | None = None, power_deck: Sequence[PowerCard] | None = None,
                 team_deals: Sequence[Sequence[ShipId]] | None = None) -> None:
        if isinstance(players, int):
            names = tuple(f"Player {i + 1}" for i in range(players))
        else:
            names = tuple(str(p) for p in players)
        n = len(names)
        if n not in PLANET_CARDS_BY_PLAYERS:
            raise SetupError(f"Pitch Fleet is for 2 to 6 players, not {n}")
        if len(set(names)) != n:
            raise SetupError("player names must differ")
        if rng is None:
            rng = random.Random(seed)
        elif seed is not None:
            raise SetupError("give either seed= or rng=, not both")

        if planet_deck is None:
            planets = rng.sample(PLANETS, PLANET_CARDS_BY_PLAYERS[n])
        else:
            planets = [str(p) for p in planet_deck]
            unknown = [p for p in planets if p not in PLANETS]
            if unknown:
                raise SetupError(f"unknown planet(s) {unknown}; expected ids from {PLANETS}")
            if len(set(planets)) != len(planets):
                raise SetupError("a planet card appears twice in the planet deck")
            if len(planets) < 2:
                raise SetupError("the planet deck needs at least a starting and a goal planet")

        if power_deck is None:
            deck = basic_deck() + (advanced_deck() if advanced else [])
            rng.shuffle(deck)
        else:
            deck = list(power_deck)
            if not all(isinstance(c, PowerCard) for c in deck):
                raise SetupError("power_deck must hold PowerCard values")
            if not advanced and any(c.advanced for c in deck):
                raise SetupError("advanced cards in power_deck need advanced=True")

        cards = team_cards_for(n)
        deals: list[tuple[ShipId, ...]] = []
        for d in team_deals or ():
            d = tuple(d)
            if sorted(d) != sorted(cards):
                raise SetupError(f"a team deal for {n} players must hand out exactly {[str(c) for c in cards]}")
            deals.append(d)

        start, goal = planets[0], planets[1]
        self._s = _State(
            rng=rng, names=names, stage=1, round=1, turn_index=0, starting_player=0,
            planet_deck=planets[2:], planets_used=[start, goal], start=start, goal=goal, teams=[],
            team_deals=deals, vp=[START_VP] * n, face_down=[[] for _ in range(n)], restart_cards=[True] * n,
            bonus_token=True, records_on_goal=set(), board={}, off_start=set(), not_flat=set(), beams=set(),
            deck=deck, discard=[], piles=[[] for _ in range(n)], face_up=[False] * n, turn=None,
            phase=Phase.CHOOSE, log=[], bonus_awards=[])
        s = self._s
        ev = [Event("setup", f"Pitch Fleet for {n} players: planet deck of {len(planets)} cards "
                             f"({len(planets) - 1} stages); stage 1 from {planet_name(start)} to "
                             f"{planet_name(goal)}; 3 VP to every player, a 3 VP token on the goal",
                    data={"planets": tuple(planets), "stage": 1})]
        ev += self._deal_piles(s)
        ev += self._deal_teams(s)
        s.log.extend(ev)
        self._snapshot: _State | None = None

    # ------------------------------------------------------------------ queries

    @property
    def names(self) -> tuple[str, ...]:
        return self._s.names

    @property
    def players(self) -> int:
        return len(self._s.names)

    @property
    def phase(self) -> Phase:
        return self._s.phase

    @property
    def stage(self) -> int:
        """The current stage, 1-based (the last one once the game is over)."""
        return self._s.stage

    @property
    def round(self) -> int:
        """The round of the current stage, 1..3."""
        return self._s.round

    @property
    def start(self) -> str:
        """The starting planet (board id) of this stage."""
        return self._s.start

    @property
    def goal(self) -> str:
        """The goal planet (board id) of this stage."""
        return self._s.goal

    @property
    def starting_player(self) -> int:
        """Who holds the starting player token."""
        return self._s.starting_player

    @property
    def current_player(self) -> int | None:
        """Whose turn it is (None once the game is over)."""
        s = self._s
        if s.phase is Phase.OVER:
            return None
        if s.turn is not None:
            return s.turn.player
        return (s.starting_player + s.turn_index) % len(s.names)

    @property
    def current_ship(self) -> ShipId | None:
        """The ship chosen for the turn in progress."""
        return self._s.turn.ship if self._s.turn else None

    @property
    def current_card(self) -> PowerCard | None:
        """The power card of the turn in progress (or of the bonus shot with a drawn card)."""
        return self._s.turn.card if self._s.turn else None

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event so far (the events of a shot undone by a restart are dropped)."""
        return tuple(self._s.log)

    @property
    def planets_used(self) -> tuple[str, ...]:
        """Planet cards turned up so far (start of stage 1, then each goal)."""
        return tuple(self._s.planets_used)

    @property
    def planet_deck(self) -> tuple[str, ...]:
        """Planet cards still to come as goals."""
        return tuple(self._s.planet_deck)

    @property
    def stages_played(self) -> int:
        """Stages completed so far."""
        return self._s.stages_played

    def name(self, player: int) -> str:
        return self._s.names[player]

    def ship_of(self, player: int) -> ShipId:
        """The ship (= team card) of ``player`` this stage."""
        return self._s.teams[player]

    def team_of(self, player: int) -> str:
        return self._s.teams[player].team

    def controller(self, ship: ShipId) -> int | None:
        """The player whose team card is this ship (None: not in play this stage)."""
        try:
            return self._s.teams.index(ship)
        except ValueError:
            return None

    def teams(self) -> dict[str, tuple[int, ...]]:
        """Players of each team this stage."""
        return {t: tuple(i for i, c in enumerate(self._s.teams) if c.team == t) for t in TEAMS}

    def ships_in_play(self) -> tuple[ShipId, ...]:
        return tuple(sorted(self._s.teams))

    def ships_on_board(self) -> dict[ShipId, frozenset[Location]]:
        """Each ship on the board and the locations it touches."""
        return dict(self._s.board)

    def beams_on_board(self) -> frozenset[int]:
        return frozenset(self._s.beams)

    def legal_ships(self) -> tuple[ShipId, ...]:
        """Ships the current player may move: their own and their teammates'."""
        p = self.current_player
        if p is None:
            return ()
        team = self._s.teams[p].team
        return tuple(sorted(c for c in self._s.teams if c.team == team))

    def face_up_cards(self) -> dict[int, PowerCard]:
        """The face-up top card of each pile that has one, by pile index."""
        s = self._s
        return {i: p[0] for i, p in enumerate(s.piles) if p and s.face_up[i]}

    def legal_cards(self) -> tuple[PowerCard, ...]:
        """The distinct power cards the current player may play (face-up tops of any pile)."""
        if self._s.phase is not Phase.CHOOSE:
            return ()
        out: list[PowerCard] = []
        for c in self.face_up_cards().values():
            if c not in out:
                out.append(c)
        return tuple(out)

    def pile_sizes(self) -> tuple[int, ...]:
        return tuple(len(p) for p in self._s.piles)

    def deck_size(self) -> int:
        return len(self._s.deck)

    def discard_pile(self) -> tuple[PowerCard, ...]:
        return tuple(self._s.discard)

    def pending_cards(self) -> tuple[PowerCard, ...]:
        """Cards drawn at a charging satellite this turn, waiting for the keep/use choice."""
        return tuple(self._s.turn.pending) if self._s.turn else ()

    def vp_tokens(self, player: int) -> int:
        return self._s.vp[player]

    def face_down_cards(self, player: int) -> tuple[PowerCard, ...]:
        return tuple(self._s.face_down[player])

    def has_restart_card(self, player: int) -> bool:
        return self._s.restart_cards[player]

    def has_bonus_token(self) -> bool:
        """Is the 3 VP token still on the goal planet card?"""
        return self._s.bonus_token

    def record_tokens_on_goal(self) -> frozenset[ShipId]:
        return frozenset(self._s.records_on_goal)

    def team_bonuses(self) -> tuple[tuple[int, str], ...]:
        """(stage, team) of every team bonus awarded so far."""
        return tuple(self._s.bonus_awards)

    def scores(self) -> tuple[int, ...]:
        """VP tokens plus 1 VP for every two face-down power cards."""
        s = self._s
        return tuple(v + len(f) // 2 for v, f in zip(s.vp, s.face_down))

    def is_game_over(self) -> bool:
        return self._s.phase is Phase.OVER

    def is_turn_in_progress(self) -> bool:
        return self._s.turn is not None

    def is_awaiting_shot(self) -> bool:
        return self._s.phase is Phase.SHOOT

    def is_restart_allowed(self) -> bool:
        """After a shot without collision, when the current player still holds a restart card."""
        s = self._s
        return (s.phase is Phase.RESOLVED and s.turn is not None and not s.turn.collided
                and s.restart_cards[s.turn.player])

    def status(self) -> Status:
        s = self._s
        st = Status.VALID
        if s.off_start & set(s.board):
            st |= Status.SHIP_OFF_START_PLANET
        if s.not_flat & set(s.board):
            st |= Status.SHIP_NOT_FLAT
        if any(sid not in s.teams for sid in s.board):
            st |= Status.SHIP_NOT_IN_PLAY
        if len(s.beams) > MAX_BEAMS:
            st |= Status.TOO_MANY_BEAMS
        if not s.deck and not s.discard:
            st |= Status.POWER_DECK_EMPTY
        return st

    def outcome(self) -> Outcome | None:
        if self._s.phase is not Phase.OVER:
            return None
        scores = self.scores()
        return Outcome(winners_of(scores), scores,
                       f"no planet card left for a new goal after {self._s.stages_played} stages")

    # ------------------------------------------------------------------ actions

    def begin_turn(self, player: int, ship: ShipId, card: PowerCard | int, *,
                   placed: Iterable[Location] | None = None) -> list[Event]:
        """Choose the ship and play a face-up power card (a PowerCard, or a pile index).

        ``placed``: where the ship stands before the shot, when that is not where the engine has it:
        a ship off the board placed elsewhere on the starting planet's board (crowded), or the
        relocation of Warp Drive (required) and Hop. Magnetic Barrier and Decoy Beam put a beam on
        the board (the engine numbers it).
        """
        s0 = self._s
        self._check_not_over()
        if s0.phase is not Phase.CHOOSE:
            raise IllegalActionError("a turn is in progress: resolve the shot or end the turn first")
        p = self.current_player
        if player != p:
            raise WrongPlayerError(f"it is {s0.names[p]}'s turn, not {self._who(player)}'s")
        if ship not in self.legal_ships():
            raise IllegalActionError(f"{s0.names[p]} can move only their own or a teammate's ship "
                                     f"({_ships_text(self.legal_ships())}), not {ship}")
        pile = self._pile_of(card)
        s = s0.clone()
        c = s.piles[pile].pop(0)
        s.face_up[pile] = False
        ev = [Event("turn", f"{s.names[p]} moves {ship} with {c.name} (pile {pile + 1})", p,
                    data={"ship": ship, "card": c.id, "pile": pile, "stage": s.stage, "round": s.round})]
        ev += self._prepare_shot(s, p, ship, c, pile, placed)
        self._commit(s, ev)
        self._snapshot = s.clone()
        return ev

    def resolve_shot(self, result: ShotResult) -> list[Event]:
        """Examine the judged scene after the shot: outbound (rules 1-3), then arrival; gains before losses."""
        s0 = self._s
        self._check_not_over()
        if s0.phase is not Phase.SHOOT:
            raise IllegalActionError("no shot is expected now: begin a turn first")
        t0 = s0.turn
        if result.ship != t0.ship:
            raise IllegalActionError(f"the shot ship is {t0.ship}, but the result is about {result.ship}")
        if t0.card is DECOY_BEAM and result.moved_ship is not None:
            raise IllegalActionError(f"{t0.ship} was replaced by a beam (Decoy Beam): it cannot be in the scene")
        s = s0.clone()
        ev = self._examine(s, result)
        self._commit(s, ev)
        return ev

    def restart(self) -> list[Event]:
        """Use the restart card: undo the shot (the ship goes back), shoot again with the same card."""
        s0 = self._s
        self._check_not_over()
        if s0.phase is not Phase.RESOLVED or self._snapshot is None:
            raise IllegalActionError("a restart follows a shot")
        p = s0.turn.player
        if not s0.restart_cards[p]:
            raise IllegalActionError(f"{s0.names[p]} has no restart card")
        if s0.turn.collided:
            raise IllegalActionError("no restart: the moved ship touched another ship or a beam")
        undone = tuple(s0.log[len(self._snapshot.log):])
        s = self._snapshot.clone()
        s.restart_cards[p] = False
        ev = [Event("restart", f"{s.names[p]} used the restart card: {s.turn.ship} goes back to "
                               f"{_locs_text(s.turn.start) if s.turn.start else 'where it started'} and "
                               f"shoots again with {s.turn.card.name}; the shot is undone", p,
                    data={"undone": undone, "ship": s.turn.ship})]
        self._commit(s, ev)
        return ev

    def keep_drawn_card(self) -> list[Event]:
        """Place the (first) card drawn at a charging satellite face down (two face-down cards = 1 VP)."""
        s0 = self._s
        self._check_not_over()
        if s0.phase is not Phase.RESOLVED or not s0.turn.pending:
            raise IllegalActionError("no drawn card waits for a choice")
        s = s0.clone()
        ev = self._keep(s, s.turn.player, s.turn.pending.pop(0))
        self._commit(s, ev)
        return ev

    def use_drawn_card(self, ship: ShipId | None = None, *,
                       placed: Iterable[Location] | None = None) -> list[Event]:
        """Use the (first) card drawn at a charging satellite now: another shot this turn with it.

        ``ship`` defaults to the ship just moved (any ship of the player's team may be chosen).
        Other drawn cards still pending are kept face down.
        """
        s0 = self._s
        self._check_not_over()
        if s0.phase is not Phase.RESOLVED or not s0.turn.pending:
            raise IllegalActionError("no drawn card waits for a choice")
        t0 = s0.turn
        ship = t0.ship if ship is None else ship
        if ship not in self.legal_ships():
            raise IllegalActionError(f"{s0.names[t0.player]} can move only their own or a teammate's ship")
        s = s0.clone()
        t = s.turn
        c = t.pending.pop(0)
        ev = []
        while t.pending:
            ev += self._keep(s, t.player, t.pending.pop(0))
        ev.append(Event("use_drawn_card", f"{s.names[t.player]} uses the drawn {c.name} now with {ship}",
                        t.player, data={"ship": ship, "card": c.id}))
        ev += self._prepare_shot(s, t.player, ship, c, None, placed)
        self._commit(s, ev)
        self._snapshot = s.clone()
        return ev

    def end_turn(self) -> list[Event]:
        """End the turn (drawn cards not yet decided are kept face down); round/stage/game end follow."""
        s0 = self._s
        self._check_not_over()
        if s0.phase is not Phase.RESOLVED:
            raise IllegalActionError("the turn ends after its shot has been resolved")
        s = s0.clone()
        t = s.turn
        ev: list[Event] = []
        while t.pending:
            ev += self._keep(s, t.player, t.pending.pop(0))
        s.discard.extend(t.used)
        s.discard.append(t.card)
        s.turn = None
        s.phase = Phase.CHOOSE
        self._snapshot = None
        s.turn_index += 1
        if s.turn_index == len(s.names):
            ev += self._end_round(s)
        self._commit(s, ev)
        return ev

    def play_turn(self, player: int, ship: ShipId, card: PowerCard | int, result: ShotResult, *,
                  placed: Iterable[Location] | None = None) -> list[Event]:
        """begin_turn + resolve_shot + end_turn (drawn cards kept face down)."""
        s0, snap = self._s, self._snapshot
        try:
            ev = self.begin_turn(player, ship, card, placed=placed)
            ev += self.resolve_shot(result)
            ev += self.end_turn()
        except Exception:
            self._s, self._snapshot = s0, snap
            raise
        return ev

    # ------------------------------------------------------------------ internals

    def _who(self, player: object) -> str:
        if isinstance(player, int) and 0 <= player < len(self._s.names):
            return self._s.names[player]
        return repr(player)

    def _check_not_over(self) -> None:
        if self._s.phase is Phase.OVER:
            raise GameOverError("the game is over")

    def _commit(self, s: _State, ev: list[Event]) -> None:
        s.log.extend(ev)
        self._s = s

    def _pile_of(self, card: PowerCard | int) -> int:
        up = self.face_up_cards()
        if isinstance(card, bool) or not isinstance(card, (int, PowerCard)):
            raise IllegalActionError(f"play a PowerCard or a pile index, not {card!r}")
        if isinstance(card, int):
            if card not in up:
                raise IllegalActionError(f"pile {card + 1} has no face-up card")
            return card
        for i, c in up.items():
            if c == card:
                return i
        raise IllegalActionError(f"{card.name} is not face up on any power card pile")

    def _draw(self, s: _State) -> tuple[PowerCard | None, list[Event]]:
        ev: list[Event] = []
        if not s.deck and s.discard:
            s.deck = s.discard
            s.discard = []
            s.rng.shuffle(s.deck)
            ev.append(Event("reshuffle", f"The power deck ran out: the discard pile ({len(s.deck)} cards) "
                                         f"is shuffled into a new deck"))
        if not s.deck:
            return None, ev
        return s.deck.pop(0), ev

    def _deal_piles(self, s: _State) -> list[Event]:
        ev: list[Event] = []
        for i in range(len(s.names)):
            s.discard.extend(s.piles[i])   # never more than leftovers; normally empty
            s.piles[i] = []
            for _ in range(PILE_SIZE):
                c, e = self._draw(s)
                ev += e
                if c is not None:
                    s.piles[i].append(c)
            s.face_up[i] = bool(s.piles[i])
        short = [i for i, p in enumerate(s.piles) if len(p) < PILE_SIZE]
        tops = ", ".join(f"{i + 1}: {p[0].name}" for i, p in enumerate(s.piles) if p)
        ev.append(Event("piles", f"Power card piles dealt ({PILE_SIZE} per player); face up: {tops}"
                                 + (f"; piles {[i + 1 for i in short]} are short: the deck ran out" if short else ""),
                        data={"tops": tuple(p[0].id if p else None for p in s.piles)}))
        return ev

    def _deal_teams(self, s: _State) -> list[Event]:
        if s.team_deals:
            deal = list(s.team_deals.pop(0))
        else:
            deal = list(team_cards_for(len(s.names)))
            s.rng.shuffle(deal)
        s.teams = deal
        s.starting_player = deal.index(STARTING_TEAM_CARD)
        s.turn_index = 0
        parts = "; ".join(f"{s.names[i]}: {c}" for i, c in enumerate(deal))
        return [Event("teams", f"Team cards dealt for stage {s.stage} ({parts}); {s.names[s.starting_player]} "
                               f"holds {STARTING_TEAM_CARD} and starts", s.starting_player,
                      data={"teams": tuple(deal), "stage": s.stage})]

    def _place_beam(self, s: _State) -> tuple[int, str]:
        free = [i for i in range(MAX_BEAMS) if i not in s.beams]
        if free:
            s.beams.add(free[0])
            return free[0], f"beam {free[0]}"
        b = min(s.beams)
        return b, f"beam {b} (all beams were on the board: taken from where it was)"

    def _prepare_shot(self, s: _State, p: int, ship: ShipId, c: PowerCard, pile: int | None,
                      placed: Iterable[Location] | None) -> list[Event]:
        """Put the ship (and beam) where they stand before the shot; set the turn to SHOOT."""
        ev: list[Event] = []
        placed = frozenset(placed) if placed is not None else None
        start_planet = Location.planet(s.start)
        beam = None
        on_board = ship in s.board
        if c is DECOY_BEAM:
            if placed is not None:
                raise IllegalActionError("Decoy Beam relocates nothing: the beam takes the ship's place")
            where = s.board.pop(ship) if on_board else frozenset({start_planet})
            s.off_start.discard(ship)
            s.not_flat.discard(ship)
            beam, btxt = self._place_beam(s)
            ev.append(Event("beam_placed", f"Decoy Beam: {btxt} replaces {ship} at {_locs_text(where)}; "
                                           f"{ship} leaves the board", p, data={"beam": beam, "ship": ship}))
            pos = frozenset()
        else:
            if not on_board:
                pos = frozenset({start_planet})
                if c.relocates:
                    ev.append(Event("ship_placed", f"{ship} placed on {planet_name(s.start)} (starting planet)",
                                    p, data={"ship": ship}))
                elif placed is not None and placed != pos:
                    off = [loc for loc in placed if loc.board != s.start]
                    if off:
                        raise IllegalActionError(f"{ship} must be placed on the starting planet's board "
                                                 f"({planet_name(s.start)}), not on {_locs_text(off)}")
                    if start_planet in placed:
                        raise IllegalActionError(f"{ship} placed on {planet_name(s.start)} cannot touch "
                                                 f"another location ({_locs_text(placed - {start_planet})})")
                    pos = placed
                    s.off_start.add(ship)
                    ev.append(Event("ship_placed_off_start",
                                    f"{ship} placed off {planet_name(s.start)} on its board ({_locs_text(pos)}): "
                                    f"the starting planet was crowded", p, data={"ship": ship}))
                else:
                    ev.append(Event("ship_placed", f"{ship} placed on {planet_name(s.start)} (starting planet)",
                                    p, data={"ship": ship}))
            else:
                pos = s.board[ship]
                if placed is not None and not c.relocates:
                    raise IllegalActionError(f"{c.name} does not relocate the ship: {ship} shoots from where it is")
            if c.relocates:
                if placed is None and c is WARP_DRIVE:
                    raise IllegalActionError("Warp Drive: say on which planet the ship was relocated (placed=...)")
                if placed is not None:
                    pos = placed
                if c is WARP_DRIVE and not any(loc.is_planet and loc.board != s.goal for loc in pos):
                    raise IllegalActionError(f"Warp Drive relocates the ship on a planet other than the goal "
                                             f"({planet_name(s.goal)}), not on {_locs_text(pos)}")
                s.off_start.discard(ship)
                ev.append(Event("relocated", f"{c.name}: {ship} relocated to {_locs_text(pos)} before the shot", p,
                                data={"ship": ship, "locations": pos}))
            s.board[ship] = pos
            if c is MAGNETIC_BARRIER:
                beam, btxt = self._place_beam(s)
                ev.append(Event("beam_placed", f"Magnetic Barrier: {btxt} placed on the board before the shot", p,
                                data={"beam": beam}))
        if c.declared:
            ev.append(Event("declared", f"{s.names[p]} declares: {c.declared} ({c.name})", p,
                            data={"card": c.id, "declared": c.declared}))
        if s.turn is None:
            s.turn = _Turn(p, ship, c, pile, pos, beam)
        else:   # a bonus shot with a card drawn at a charging satellite
            t = s.turn
            t.used.append(t.card)
            t.ship, t.card, t.pile, t.start, t.beam, t.collided = ship, c, pile, pos, beam, False
        s.phase = Phase.SHOOT
        return ev

    def _keep(self, s: _State, p: int, c: PowerCard) -> list[Event]:
        s.face_down[p].append(c)
        k = len(s.face_down[p])
        if k % 2 == 0:
            return [Event("face_down_pair", f"{s.names[p]} keeps {c.name} face down: two face-down power cards "
                                            f"make 1 VP: +1 VP to {s.names[p]}", p, 1, {"card": c.id})]
        return [Event("face_down", f"{s.names[p]} keeps {c.name} face down ({k} face-down card)", p,
                      data={"card": c.id})]

    def _examine(self, s: _State, result: ShotResult) -> list[Event]:
        t = s.turn
        p, card, mover = t.player, t.card, t.ship
        name = s.names[p]
        team = s.teams[p].team
        before = dict(s.board)
        in_play = set(s.teams)
        decoy = card is DECOY_BEAM
        failed = card is SPRINGBOARD and result.on_springboard
        seen = {r.ship: r for r in result.ships}
        infos: list[Event] = []
        changes: list[_Change] = []

        # which ships left the board
        outbound: list[ShipId] = []
        for r in result.ships:
            if r.outbound and not (failed and r.ship == mover):
                outbound.append(r.ship)
        for sid in sorted(before):
            if sid not in seen and not (failed and sid == mover):
                outbound.append(sid)
                infos.append(Event("missing", f"{sid} is not in the scene any more: it counts as outbound",
                                   data={"ship": sid}))
        outbound = sorted(set(outbound))
        mover_out = (not decoy) and mover in outbound
        own_out = [x for x in outbound if x in in_play and x.team == team]
        opp_out = [x for x in outbound if x in in_play and x.team != team]
        rule1 = list(own_out)
        chain = card is CHAIN_REACTION and not mover_out
        if card is SAFETY_NET and mover_out:
            rule1.remove(mover)
            infos.append(Event("card", f"Safety Net: no loss for {mover} going outbound", p,
                               data={"card": card.id, "ship": mover}))
        if chain and rule1:
            infos.append(Event("card", f"Chain Reaction: {_ships_text(rule1)} of {name}'s own team went outbound, "
                                       f"outbound rule 1 is ignored", p, data={"card": card.id}))
            rule1 = []

        if failed:
            infos.append(Event("springboard_failed", f"Springboard: {mover} stayed on the springboard; the move "
                                                     f"failed and the ship goes back", p,
                               data={"card": card.id, "ship": mover}))
        elif rule1:
            changes.append(_Change(p, -1, "outbound_own",
                                   f"{_ships_text(rule1)} went outbound (own team: no gains this turn)",
                                   {"ships": tuple(rule1)}))
        else:
            for x in opp_out:
                c = s.teams.index(x)
                changes.append(_Change(c, -1, "outbound", f"{x} went outbound", {"ship": x}))
                changes.append(_Change(p, 1, "outbound_opponent", f"opposing {x} went outbound", {"ship": x}))
            if chain:
                for x in outbound:
                    if x != mover and x in in_play:
                        changes.append(_Change(p, 1, "chain_reaction", f"Chain Reaction: {x} went outbound",
                                               {"ship": x, "card": card.id}))
            draws = self._arrivals(s, result, before, seen, infos, changes)
            for loc in draws:
                c, e = self._draw(s)
                infos.extend(e)
                if c is None:
                    infos.append(Event("charging_satellite", f"{mover} arrived {loc}: the power deck is empty, "
                                                             f"no card for {name}", p,
                                       data={"ship": mover, "location": loc}))
                else:
                    t.pending.append(c)
                    infos.append(Event("charging_satellite", f"{mover} arrived {loc}: {name} draws {c.name} "
                                                             f"(use it now or keep it face down)", p,
                                       data={"ship": mover, "location": loc, "card": c.id}))

        ev = infos + self._apply(s, changes)

        # the board after the shot
        board: dict[ShipId, frozenset[Location]] = {}
        for r in result.ships:
            if failed and r.ship == mover:
                continue
            if not r.outbound:
                board[r.ship] = r.locations
        if failed and not decoy:
            board[mover] = t.start
        gone = sorted(set(before) - set(board))
        if gone:
            ev.append(Event("removed", f"Outbound ships set aside: {_ships_text(gone)}", data={"ships": tuple(gone)}))
        s.board = board
        s.not_flat = {r.ship for r in result.ships
                      if r.ship in board and not r.upright and not (failed and r.ship == mover)}
        s.off_start = {x for x in s.off_start if x in board and not (x in seen and seen[x].moved)}
        for b in result.beams:
            if not b.on_board or (b.moved and not (decoy and b.index == t.beam)):
                s.beams.discard(b.index)
            else:
                s.beams.add(b.index)
        t.collided = result.collided
        t.shots += 1
        s.phase = Phase.RESOLVED
        return ev

    def _arrivals(self, s: _State, result: ShotResult, before: dict[ShipId, frozenset[Location]],
                  seen: dict, infos: list[Event], changes: list[_Change]) -> list[Location]:
        """Arrival examination of the moved ship (and the cards); returns the charging satellites to draw for."""
        t = s.turn
        p, card, mover = t.player, t.card, t.ship
        r = seen.get(mover)
        new: list[Location] = []
        if card is not DECOY_BEAM and r is not None and not r.outbound and r.moved:
            start_keys = {loc.key for loc in t.start}
            new = sorted(loc for loc in r.locations if loc.key not in start_keys)
            stayed = sorted(loc for loc in r.locations if loc.key in start_keys)
            if stayed:
                infos.append(Event("no_reactivation", f"{mover} is still on {_locs_text(stayed)} where it started: "
                                                      f"no effect there again", p, data={"ship": mover}))
        draws: list[Location] = []
        reverse = card is REVERSE_GRAVITY
        for loc in new:
            d = {"ship": mover, "location": loc}
            if loc.kind is LocationKind.SATELLITE and reverse:
                if loc.stars:
                    changes.append(_Change(p, -loc.stars, "reverse_gravity",
                                           f"{mover} arrived {loc} (Reverse Gravity: lose instead of gain)", d))
                continue
            if loc.board != s.goal:
                continue
            if loc.kind is LocationKind.SATELLITE:
                if loc.stars:
                    changes.append(_Change(p, loc.stars, "vp_satellite", f"{mover} arrived {loc}", d))
            elif loc.kind is LocationKind.CHARGING_SATELLITE:
                draws.append(loc)
            elif loc.kind is LocationKind.PLANET:
                if mover not in s.teams:
                    continue
                if mover in s.records_on_goal:
                    infos.append(Event("record_token", f"{mover} arrived {loc} (goal planet): its record token "
                                                       f"is already there", p, data=d))
                else:
                    s.records_on_goal.add(mover)
                    infos.append(Event("record_token", f"{mover} arrived {loc} (goal planet): its record token "
                                                       f"moves to the goal planet card", p, data=d))
            elif loc.kind is LocationKind.ASTEROID_BELT:
                if card is ASTEROID_MINER:
                    infos.append(Event("card", f"{mover} arrived {loc}: no loss (Asteroid Miner)", p,
                                       data={"card": card.id, "ship": mover}))
                else:
                    changes.append(_Change(p, -1, "asteroid_belt", f"{mover} arrived {loc}", d))

        def first(kinds: tuple[LocationKind, ...]) -> Location | None:
            return next((loc for loc in new if loc.kind in kinds), None)

        cd = {"card": card.id, "ship": mover}
        if card is ASTEROID_MINER and (loc := first((LocationKind.ASTEROID_BELT,))):
            changes.append(_Change(p, 1, "card", f"Asteroid Miner: {mover} arrived {loc}", cd))
        elif card is RECHARGE and (loc := first((LocationKind.CHARGING_SATELLITE,))):
            changes.append(_Change(p, 1, "card", f"Recharge: {mover} arrived {loc}", cd))
        elif card is KNUCKLE and (loc := first((LocationKind.PLANET,))):
            changes.append(_Change(p, 1, "card", f"Knuckle Shot: {mover} arrived {loc}", cd))
        elif card is SPRINGBOARD and (loc := first((LocationKind.PLANET,))):
            changes.append(_Change(p, 3, "card", f"Springboard: {mover} arrived {loc}", cd))
        elif card is COMBO:
            special = [loc for loc in new if loc.kind is not LocationKind.ASTEROID_BELT]
            if len(special) >= 2:
                changes.append(_Change(p, 2, "card", f"Combo: {mover} arrived {len(special)} special locations "
                                                     f"({_locs_text(special)})", cd))
        elif card is DOMINO:
            for k in result.ships:
                if k.ship == mover or k.outbound or not (k.knocked or k.moved):
                    continue
                was = {loc.key for loc in before.get(k.ship, frozenset())}
                planet = next((loc for loc in sorted(k.locations) if loc.is_planet and loc.key not in was), None)
                if planet is not None:
                    changes.append(_Change(p, 1, "card", f"Domino: knocked {k.ship} arrived {planet}",
                                           {"card": card.id, "knocked": k.ship, "planet": planet}))
        elif card is DECOY_BEAM:
            team = s.teams[p].team
            hit = [k.ship for k in result.ships
                   if k.ship in s.teams and k.ship.team != team and (k.knocked or k.moved)]
            if hit:
                n = min(2, len(hit))
                changes.append(_Change(p, n, "card", f"Decoy Beam: the beam knocked opposing {_ships_text(hit)}"
                                                     + (" (at most 2 VP)" if len(hit) > 2 else ""),
                                       {"card": card.id, "ships": tuple(hit)}))
        return draws

    def _apply(self, s: _State, changes: list[_Change]) -> list[Event]:
        """Gains first, then losses; no score below zero (losses take VP tokens only)."""
        ev: list[Event] = []
        for c in changes:
            if c.points > 0:
                s.vp[c.player] += c.points
                ev.append(Event(c.kind, f"{c.text}: +{c.points} VP to {s.names[c.player]}", c.player, c.points,
                                c.data))
        for c in changes:
            if c.points < 0:
                want = -c.points
                lost = min(want, s.vp[c.player])
                s.vp[c.player] -= lost
                txt = f"{c.text}: -{want} VP to {s.names[c.player]}"
                if lost < want:
                    txt += f" (only {lost} VP token{'s' if lost != 1 else ''} to give: no score below zero)"
                ev.append(Event(c.kind, txt, c.player, -lost, c.data))
        return ev

    def _end_round(self, s: _State) -> list[Event]:
        n = len(s.names)
        ev = [Event("round_end", f"Round {s.round} of stage {s.stage} ends", data={"stage": s.stage, "round": s.round})]
        if s.bonus_token:
            done = [team for team in TEAMS
                    if any(c.team == team for c in s.teams)
                    and all(c in s.records_on_goal for c in s.teams if c.team == team)]
            goal = planet_name(s.goal)
            if len(done) == 1:
                team = done[0]
                s.bonus_token = False
                s.bonus_awards.append((s.stage, team))
                for i, c in enumerate(s.teams):
                    if c.team == team:
                        s.vp[i] += TEAM_BONUS_VP
                        ev.append(Event("team_bonus", f"All {team} record tokens are on {goal}: team bonus "
                                                      f"+{TEAM_BONUS_VP} VP to {s.names[i]}", i, TEAM_BONUS_VP,
                                        {"team": team, "stage": s.stage, "round": s.round}))
            elif len(done) == 2:
                s.bonus_token = False
                ev.append(Event("bonus_token_removed", f"Both teams have all their record tokens on {goal}: "
                                                       f"nobody gains, the 3 VP token is removed",
                                data={"stage": s.stage, "round": s.round}))
            elif s.round == ROUNDS_PER_STAGE:
                s.bonus_token = False
                ev.append(Event("bonus_token_removed", f"No team has all its record tokens on {goal} after the "
                                                       f"last round: the 3 VP token is removed",
                                data={"stage": s.stage, "round": s.round}))
        for i, pile in enumerate(s.piles):
            s.face_up[i] = bool(pile)
        s.turn_index = 0
        if s.round < ROUNDS_PER_STAGE:
            s.round += 1
            s.starting_player = (s.starting_player + 1) % n
            ev.append(Event("starting_player", f"The starting player token passes to {s.names[s.starting_player]}; "
                                               f"round {s.round} begins", s.starting_player,
                            data={"stage": s.stage, "round": s.round}))
            return ev
        s.stages_played += 1
        if not s.planet_deck:
            s.phase = Phase.OVER
            scores = tuple(v + len(f) // 2 for v, f in zip(s.vp, s.face_down))
            win = winners_of(scores)
            who = " and ".join(s.names[i] for i in win)
            ev.append(Event("game_over", f"No planet card left for a new goal: the game ends after "
                                         f"{s.stages_played} stages; scores "
                                         f"{', '.join(f'{s.names[i]} {v}' for i, v in enumerate(scores))}; "
                                         f"{who} win{'s' if len(win) == 1 else ' (shared victory)'}",
                            data={"scores": scores, "winners": win}))
            return ev
        return ev + self._new_stage(s)

    def _new_stage(self, s: _State) -> list[Event]:
        s.stage += 1
        s.round = 1
        s.start = s.goal
        s.goal = s.planet_deck.pop(0)
        s.planets_used.append(s.goal)
        s.bonus_token = True
        ev = [Event("stage", f"Stage {s.stage}: {planet_name(s.start)} becomes the starting planet, the new goal is "
                             f"{planet_name(s.goal)} with a 3 VP token on it", data={"stage": s.stage})]
        ev += self._deal_piles(s)
        s.board = {}
        s.beams = set()
        s.off_start = set()
        s.not_flat = set()
        s.records_on_goal = set()
        ev.append(Event("board_cleared", "All starships and magnetic beams are removed from the board"))
        ev += self._deal_teams(s)
        scores = [v + len(f) // 2 for v, f in zip(s.vp, s.face_down)]
        low = min(scores)
        for i, sc in enumerate(scores):
            if sc == low:
                if s.restart_cards[i]:
                    ev.append(Event("restart_card", f"{s.names[i]} has the lowest score ({sc}) but already holds "
                                                    f"a restart card (at most one)", i))
                else:
                    s.restart_cards[i] = True
                    ev.append(Event("restart_card", f"{s.names[i]} has the lowest score ({sc}): takes a restart "
                                                    f"card", i))
        return ev


__all__ = ["Game", "Phase", "Status", "ROUNDS_PER_STAGE", "PILE_SIZE", "START_VP", "TEAM_BONUS_VP", "MAX_BEAMS"]
