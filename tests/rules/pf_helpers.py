"""Shared helpers of the Pitch Fleet engine tests: ships, locations, a rigged game, a shot."""

from __future__ import annotations

from rules.pitchfleet import BLIND_SHOT, Game, Location, LocationKind, ShipId, ShipResult, ShotResult, team_cards_for

R1, B1, R2, B2, R3, B3 = (ShipId("red", 1), ShipId("blue", 1), ShipId("red", 2), ShipId("blue", 2),
                          ShipId("red", 3), ShipId("blue", 3))
K = LocationKind
START, GOAL, NEXT = "mercury", "venus", "earth"


def planet(b):
    return Location.planet(b)


def sat(b, stars, n=1):
    return Location(b, f"satellite{n}", K.SATELLITE, stars)


def charging(b, n=1):
    return Location(b, f"charging{n}", K.CHARGING_SATELLITE)


def belt(b, n=1):
    return Location(b, f"belt{n}", K.ASTEROID_BELT)


def moved(ship, *locs, upright=True):
    return ShipResult(ship, False, frozenset(locs), moved=True, knocked=False, upright=upright)


def knocked(ship, *locs):
    return ShipResult(ship, False, frozenset(locs), moved=True, knocked=True)


def still(ship, *locs):
    return ShipResult(ship, False, frozenset(locs), moved=False)


def gone(ship, *, knocked=False):
    return ShipResult(ship, True, frozenset(), moved=True, knocked=knocked)


def deck(*tops, n=2, extra=40, draws=()):
    """Pile i's face-up top is tops[i]; the cards drawn first after the deal are ``draws``; the rest Blind Shot."""
    d = [BLIND_SHOT] * (3 * n + extra)
    for i, c in enumerate(tops):
        d[3 * i] = c
    for i, c in enumerate(draws):
        d[3 * n + i] = c
    return d


def make(n=2, tops=(), planets=(START, GOAL, NEXT), deals=None, extra=40, draws=(), **kw):
    if deals is None:
        deals = [team_cards_for(n)] * 10      # P0 red 1, P1 blue 1, P2 red 2, P3 blue 2 ...
    return Game(n, planet_deck=planets, power_deck=deck(*tops, n=n, extra=extra, draws=draws),
                team_deals=deals, **kw)


def shoot(g, ship, *ships, card=BLIND_SHOT, collided=False, beams=(), placed=None, end=False):
    g.begin_turn(g.current_player, ship, card, placed=placed)
    ev = g.resolve_shot(ShotResult(ship, ships, collided, beams))
    if end:
        ev += g.end_turn()
    return ev


def park(g, ship, *locs):
    """The current player moves ``ship`` to ``locs`` (default: it stays on the starting planet) and ends the turn."""
    locs = locs or (planet(START),)
    others = [still(s, *l) for s, l in g.ships_on_board().items() if s != ship]
    return shoot(g, ship, moved(ship, *locs), *others, end=True)


def total(ev, player):
    return sum(e.points for e in ev if e.player == player)


def kinds(ev):
    return [e.kind for e in ev]


