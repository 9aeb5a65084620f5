"""Property tests over random Pitch Fleet games (random choices, random judged scenes)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.pitchfleet import (DECOY_BEAM, HOP, PLANETS, SPRINGBOARD, WARP_DRIVE, BeamResult, Game, Location,
                              LocationKind, ShipResult, ShotResult)

K = LocationKind
CATALOG = {b: (Location.planet(b), Location(b, "satellite1", K.SATELLITE, 1), Location(b, "satellite2", K.SATELLITE, 2),
               Location(b, "charging1", K.CHARGING_SATELLITE), Location(b, "belt1", K.ASTEROID_BELT))
           for b in PLANETS}


def random_locs(rnd: random.Random, g: Game) -> frozenset:
    board = rnd.choice([g.goal, g.goal, g.goal, g.start, rnd.choice(PLANETS)])
    return frozenset(rnd.sample(CATALOG[board], rnd.randint(0, 3)))


def random_scene(rnd: random.Random, g: Game) -> ShotResult:
    ship, card = g.current_ship, g.current_card
    ships = []
    for s, locs in g.ships_on_board().items():
        if s == ship:
            continue
        r = rnd.random()
        if r < 0.1:
            ships.append(ShipResult(s, True, moved=True, knocked=True))
        elif r < 0.4:
            ships.append(ShipResult(s, False, random_locs(rnd, g), moved=True, knocked=True))
        elif r < 0.45:
            continue                                     # vanished from the scene
        else:
            ships.append(ShipResult(s, False, locs, moved=False, upright=rnd.random() > 0.05))
    if card is not DECOY_BEAM:
        if rnd.random() < 0.15:
            ships.append(ShipResult(ship, True, moved=True))
        else:
            keep = g.ships_on_board().get(ship, frozenset()) if rnd.random() < 0.3 else frozenset()
            locs = random_locs(rnd, g) | keep
            ships.append(ShipResult(ship, False, locs, moved=rnd.random() > 0.05))
    rnd.shuffle(ships)
    beams = tuple(BeamResult(b, moved=rnd.random() < 0.3, upright=rnd.random() < 0.8, on_board=rnd.random() < 0.95)
                  for b in sorted(g.beams_on_board()))
    return ShotResult(ship, tuple(ships), rnd.random() < 0.3, beams,
                      on_springboard=card is SPRINGBOARD and rnd.random() < 0.2)


def placed_for(rnd: random.Random, g: Game, card) -> frozenset | None:
    if card is WARP_DRIVE:
        return frozenset({Location.planet(rnd.choice([b for b in PLANETS if b != g.goal]))})
    if card is HOP and rnd.random() < 0.5:
        return random_locs(rnd, g)
    return None


def check_invariants(g: Game) -> None:
    scores = g.scores()
    assert all(s >= 0 for s in scores)
    assert all(g.vp_tokens(p) >= 0 for p in range(g.players))
    for p in range(g.players):           # every VP is explained by an event
        assert scores[p] == 3 + sum(e.points for e in g.events if e.player == p)


def play_random_game(n: int, seed: int, advanced: bool) -> tuple[Game, int, list]:
    rnd = random.Random(seed)
    g = Game(n, seed=seed, advanced=advanced)
    turns = 0
    shot_events = []
    while not g.is_game_over():
        p = g.current_player
        ship = rnd.choice(g.legal_ships())
        card = rnd.choice(g.legal_cards())
        g.begin_turn(p, ship, card, placed=placed_for(rnd, g, card))
        while True:
            before = g.scores()
            ev = g.resolve_shot(random_scene(rnd, g))
            shot_events.append((g.current_ship, ev))
            check_invariants(g)
            if g.is_restart_allowed() and rnd.random() < 0.3:
                g.restart()
                assert g.scores() == before
                continue
            if g.pending_cards() and rnd.random() < 0.4:
                drawn = g.pending_cards()[0]
                g.use_drawn_card(rnd.choice(g.legal_ships()), placed=placed_for(rnd, g, drawn))
                continue
            break
        g.end_turn()
        check_invariants(g)
        turns += 1
    return g, turns, shot_events


GAMES = dict(n=st.integers(2, 6), seed=st.integers(0, 2 ** 32 - 1), advanced=st.booleans())


@settings(max_examples=25, deadline=None)
@given(**GAMES)
def test_random_games_keep_the_invariants(n, seed, advanced):
    g, turns, shots = play_random_game(n, seed, advanced)
    # no score below zero (also checked after every action)
    assert min(g.scores()) >= 0
    # stages = planet cards used - 1, every stage is three rounds of n turns
    assert g.stages_played == len(g.planets_used) - 1 and not g.planet_deck
    assert turns == 3 * n * g.stages_played
    # at most one team bonus per stage, awarded in one round to one team
    per_stage = Counter(stage for stage, _ in g.team_bonuses())
    assert all(v == 1 for v in per_stage.values())
    rounds = {}
    for e in g.events:
        if e.kind == "team_bonus":
            rounds.setdefault(e.data["stage"], set()).add((e.data["round"], e.data["team"]))
    assert all(len(v) == 1 for v in rounds.values())
    # location effects come only from the moved ship, never from a knocked one
    for ship, ev in shots:
        for e in ev:
            if "location" in e.data:
                assert e.data["ship"] == ship
    o = g.outcome()
    assert o is not None and set(o.winners) == {i for i, s in enumerate(o.scores) if s == max(o.scores)}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_knocked_ships_never_move_record_tokens(seed):
    """Only knocked ships reach the goal planet: no record token moves, no location effect at all."""
    rnd = random.Random(seed)
    g = Game(4, seed=seed)
    for _ in range(8):
        p = g.current_player
        ship = rnd.choice(g.legal_ships())
        card = rnd.choice(g.legal_cards())
        g.begin_turn(p, ship, card, placed=placed_for(rnd, g, card))
        ships = [ShipResult(s, False, frozenset(CATALOG[g.goal]), moved=True, knocked=True)
                 for s in g.ships_on_board() if s != ship]
        if card is not DECOY_BEAM:
            ships.append(ShipResult(ship, False, g.ships_on_board()[ship], moved=True))
        ev = g.resolve_shot(ShotResult(ship, tuple(ships), True))
        assert not g.record_tokens_on_goal()
        assert not any("location" in e.data for e in ev)
        g.end_turn()
