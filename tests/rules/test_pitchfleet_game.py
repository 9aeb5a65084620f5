"""Pitch Fleet engine: set-up, turns, outbound and arrival examination, restart, rounds, stages, game end."""

from __future__ import annotations

import pytest

from rules.base import GameOverError, IllegalActionError, RulesError, SetupError, WrongPlayerError
from rules.pitchfleet import (BLIND_SHOT, PLANET_CARDS_BY_PLAYERS, PLANETS, REVERSE_GRAVITY, SPRINGBOARD, BeamResult,
                              Game,
                              Phase, ShipResult, ShotResult, Status, basic_deck,
                              team_cards_for)

from pf_helpers import (B1, B2, B3, GOAL, NEXT, R1, R2, R3, START, K, belt, charging, deck, gone, kinds, knocked, make,  # noqa: F401
                        moved, park, planet, sat, shoot, still, total)


# ---------------------------------------------------------------- set-up

@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_planet_deck_size_by_player_count(n):
    g = Game(n, seed=n)
    assert len(g.planets_used) + len(g.planet_deck) == PLANET_CARDS_BY_PLAYERS[n]
    assert len(set(g.planets_used + g.planet_deck)) == PLANET_CARDS_BY_PLAYERS[n]
    assert g.start == g.planets_used[0] and g.goal == g.planets_used[1]
    assert set(g.planets_used) <= set(PLANETS)


@pytest.mark.parametrize("n, red, blue", [(2, 1, 1), (3, 2, 1), (4, 2, 2), (5, 3, 2), (6, 3, 3)])
def test_team_cards_by_player_count(n, red, blue):
    g = Game(n, seed=1)
    teams = g.teams()
    assert (len(teams["red"]), len(teams["blue"])) == (red, blue)
    assert sorted(g.ships_in_play()) == sorted(team_cards_for(n))
    assert team_cards_for(n) == (R1, B1, R2, B2, R3, B3)[:n]


def test_red_1_holder_is_starting_player():
    g = Game(3, team_deals=[(B1, R2, R1)], seed=3)
    assert g.starting_player == 2 == g.current_player
    assert g.ship_of(0) == B1 and g.team_of(1) == "red"


@pytest.mark.parametrize("n", [2, 4, 6])
def test_piles_of_three_with_top_face_up(n):
    g = Game(n, seed=5)
    assert g.pile_sizes() == (3,) * n
    assert sorted(g.face_up_cards()) == list(range(n))
    assert g.deck_size() == 50 - 3 * n


def test_initial_tokens_restart_cards_and_bonus():
    g = Game(4, seed=2)
    assert g.scores() == (3, 3, 3, 3)
    assert all(g.has_restart_card(i) for i in range(4))
    assert g.has_bonus_token() and not g.record_tokens_on_goal()
    assert g.ships_on_board() == {} and g.stage == 1 and g.round == 1
    assert g.status() == Status.VALID and g.outcome() is None


def test_default_names_and_custom_names():
    assert Game(3, seed=0).names == ("Player 1", "Player 2", "Player 3")
    assert Game(["Ann", "Bo"], seed=0).name(1) == "Bo"


def test_basic_deck_is_fifty_and_advanced_adds_25():
    assert len(basic_deck()) == 50
    g = Game(2, seed=0, advanced=True)
    assert g.deck_size() + 6 == 75


def test_same_seed_same_game_different_seed_differs():
    a, b = Game(4, seed=11), Game(4, seed=11)
    assert a.planets_used == b.planets_used and a.face_up_cards() == b.face_up_cards()
    assert a.teams() == b.teams()
    others = {(Game(4, seed=s).planets_used, tuple(Game(4, seed=s).face_up_cards().values())) for s in range(8)}
    assert len(others) > 1


@pytest.mark.parametrize("kwargs", [
    dict(players=1), dict(players=7), dict(players=["a", "a"]),
    dict(players=2, planet_deck=["mars"]), dict(players=2, planet_deck=["mars", "mars"]),
    dict(players=2, planet_deck=["mars", "vulcan"]),
    dict(players=2, team_deals=[(R1, R2)]),
    dict(players=2, power_deck=basic_deck()[:5] + [SPRINGBOARD]),
])
def test_bad_setups(kwargs):
    with pytest.raises(SetupError):
        Game(**kwargs)


# ---------------------------------------------------------------- the turn: choices

def test_wrong_player_raises_and_changes_nothing():
    g = make()
    before = (g.events, g.pile_sizes(), g.phase)
    with pytest.raises(WrongPlayerError):
        g.begin_turn(1, B1, BLIND_SHOT)
    assert (g.events, g.pile_sizes(), g.phase) == before


def test_only_own_or_teammates_ship():
    g = make(4)
    assert g.legal_ships() == (R1, R2)
    with pytest.raises(IllegalActionError):
        g.begin_turn(0, B1, BLIND_SHOT)
    g.begin_turn(0, R2, BLIND_SHOT)         # a teammate's ship, even in the first round
    assert g.ships_on_board() == {R2: frozenset({planet(START)})}


def test_card_must_be_face_up():
    g = make(tops=(REVERSE_GRAVITY,))
    with pytest.raises(IllegalActionError):
        g.begin_turn(0, R1, SPRINGBOARD)
    g.begin_turn(0, R1, 0)                  # pile index
    assert g.current_card == REVERSE_GRAVITY
    g.resolve_shot(ShotResult(R1, (still(R1, planet(START)),)))
    g.end_turn()
    assert 0 not in g.face_up_cards()       # the next card of pile 1 stays face down this round
    with pytest.raises(IllegalActionError):
        g.begin_turn(1, B1, 0)


def test_piles_are_shared_any_face_up_pile():
    g = make(tops=(BLIND_SHOT, REVERSE_GRAVITY))
    g.begin_turn(0, R1, REVERSE_GRAVITY)    # the top of pile 2
    assert g.pile_sizes() == (3, 2)


def test_ship_off_board_is_placed_on_starting_planet():
    g = make()
    g.begin_turn(0, R1, BLIND_SHOT)
    assert g.ships_on_board()[R1] == frozenset({planet(START)})
    assert g.phase is Phase.SHOOT


def test_crowded_start_placement_flagged_and_validated():
    g = make()
    with pytest.raises(IllegalActionError):             # other board
        g.begin_turn(0, R1, BLIND_SHOT, placed={planet("mars")})
    with pytest.raises(IllegalActionError):             # starting planet and another location at once
        g.begin_turn(0, R1, BLIND_SHOT, placed={planet(START), sat(START, 1)})
    ev = g.begin_turn(0, R1, BLIND_SHOT, placed={sat(START, 1)})
    assert "ship_placed_off_start" in kinds(ev)
    assert g.status() & Status.SHIP_OFF_START_PLANET
    g.resolve_shot(ShotResult(R1, (moved(R1, planet("mars")),)))
    assert not g.status() & Status.SHIP_OFF_START_PLANET   # it moved away


def test_phase_errors():
    g = make()
    with pytest.raises(IllegalActionError):
        g.resolve_shot(ShotResult(R1, ()))
    with pytest.raises(IllegalActionError):
        g.end_turn()
    g.begin_turn(0, R1, BLIND_SHOT)
    with pytest.raises(IllegalActionError):
        g.begin_turn(0, R1, BLIND_SHOT)
    with pytest.raises(IllegalActionError):
        g.resolve_shot(ShotResult(R2, (moved(R2, planet(GOAL)),)))
    with pytest.raises(IllegalActionError):
        g.end_turn()


def test_declared_card_event():
    g = make()
    ev = g.begin_turn(0, R1, BLIND_SHOT)
    assert any(e.kind == "declared" and "eyes closed" in e.text for e in ev)


# ---------------------------------------------------------------- outbound examination

def test_rule1_own_moved_ship_outbound_loses_one_and_is_removed():
    g = make()
    ev = shoot(g, R1, gone(R1))
    assert g.scores() == (2, 3)
    assert any(e.text == "Red ship 1 went outbound (own team: no gains this turn): -1 VP to Player 1" for e in ev)
    assert R1 not in g.ships_on_board()


def test_rule1_teammate_knocked_outbound_costs_only_current_player():
    g = make(4)
    park(g, R1)                 # P0
    park(g, B1)                 # P1
    shoot(g, R2, gone(R1, knocked=True), moved(R2, sat(GOAL, 2)), still(B1, planet(START)))   # P2 knocks own teammate
    assert g.scores() == (3, 3, 2, 3)       # no gain for the satellite, P0 (controller) loses nothing


def test_rule2_opponent_outbound_controller_loses_current_gains():
    g = make()
    park(g, R1)
    ev = shoot(g, B1, moved(B1, planet(START)), gone(R1, knocked=True))
    assert g.scores() == (2, 4)
    assert any(e.text == "Red ship 1 went outbound: -1 VP to Player 1" for e in ev)
    assert any(e.player == 1 and e.points == 1 and e.kind == "outbound_opponent" for e in ev)


def test_rule2_each_opponent_ship_counts():
    g = make(4)
    park(g, R1)
    park(g, B1)
    park(g, R2)
    shoot(g, B2, moved(B2, planet(START)), gone(R1, knocked=True), gone(R2, knocked=True), still(B1, planet(START)))
    assert g.scores() == (2, 3, 2, 5)


def test_rule3_both_cases_execute_rule1_only():
    g = make()
    park(g, R1)
    shoot(g, B1, gone(B1), gone(R1, knocked=True))
    assert g.scores() == (3, 2)
    assert g.ships_on_board() == {}


def test_rule1_blocks_arrival_gains_and_record_token():
    g = make(4)
    park(g, R1)
    park(g, B1)
    shoot(g, R2, moved(R2, planet(GOAL), sat(GOAL, 2)), gone(R1, knocked=True), still(B1, planet(START)))
    assert g.scores() == (3, 3, 2, 3)
    assert not g.record_tokens_on_goal()


def test_ship_missing_from_scene_counts_as_outbound():
    g = make()
    park(g, R1)
    ev = shoot(g, B1, moved(B1, planet(START)))      # R1 is not in the scene any more
    assert "missing" in kinds(ev)
    assert g.scores() == (2, 4) and R1 not in g.ships_on_board()


# ---------------------------------------------------------------- arrival examination

def test_vp_satellite_on_goal_gains_its_stars():
    g = make()
    ev = shoot(g, R1, moved(R1, sat(GOAL, 2)))
    assert g.scores() == (5, 3)
    assert ev[-1].text == "Red ship 1 arrived Venus' 2-star satellite: +2 VP to Player 1"
    assert ev[-1].points == 2 and ev[-1].player == 0


def test_locations_off_the_goal_board_do_nothing():
    g = make()
    shoot(g, R1, moved(R1, sat("mars", 3), belt("mars"), charging("mars"), planet("mars")))
    assert g.scores() == (3, 3) and not g.pending_cards() and not g.record_tokens_on_goal()


def test_asteroid_belt_on_goal_loses_one():
    g = make()
    ev = shoot(g, R1, moved(R1, belt(GOAL)))
    assert g.scores() == (2, 3)
    assert ev[-1].text == "Red ship 1 arrived Venus' asteroid belt: -1 VP to Player 1"


def test_goal_planet_moves_record_token():
    g = make()
    ev = shoot(g, R1, moved(R1, planet(GOAL)))
    assert g.record_tokens_on_goal() == {R1}
    assert "record_token" in kinds(ev) and g.scores() == (3, 3)


def test_moving_a_teammates_ship_moves_its_record_token_and_scores_for_mover():
    g = make(4)
    shoot(g, R2, moved(R2, planet(GOAL), sat(GOAL, 1, n=2)))
    assert g.record_tokens_on_goal() == {R2}
    assert g.scores() == (4, 3, 3, 3)


def test_several_locations_at_once_all_count_gains_first():
    g = make()
    ev = shoot(g, R1, moved(R1, belt(GOAL), sat(GOAL, 1, n=1), sat(GOAL, 2, n=2)))
    assert g.scores() == (5, 3)
    pts = [e.points for e in ev if e.points]
    assert pts == [1, 2, -1] or pts == [2, 1, -1]


def test_knocked_ship_activates_nothing():
    g = make()
    park(g, R1)
    shoot(g, B1, moved(B1, planet(START)), knocked(R1, sat(GOAL, 2), planet(GOAL), belt(GOAL), charging(GOAL)))
    assert g.scores() == (3, 3)
    assert not g.record_tokens_on_goal() and not g.pending_cards()


def test_location_already_touched_does_not_activate_again():
    g = make()
    park(g, R1, sat(GOAL, 2), belt(GOAL))               # +2 -1
    assert g.scores() == (4, 3)
    park(g, B1)
    # round 2: P1 first, then P0 moves R1 and it still touches the satellite and belt, plus a new satellite
    park(g, B1)
    ev = shoot(g, R1, moved(R1, sat(GOAL, 2), belt(GOAL), sat(GOAL, 1, n=2)), still(B1, planet(START)))
    assert g.scores() == (5, 3)
    assert "no_reactivation" in kinds(ev)


def test_ship_reported_not_moved_activates_nothing():
    g = make()
    park(g, R1, sat(GOAL, 2))
    park(g, B1)
    park(g, B1)
    shoot(g, R1, still(R1, sat(GOAL, 2), sat(GOAL, 1, n=2)), still(B1, planet(START)))
    assert g.scores() == (5, 3)


def _broke_p0():
    """Player 1 at 0 VP (Reverse Gravity on a 3-star satellite), Player 2 to move B1, then Player 1's turn."""
    g = make(tops=(REVERSE_GRAVITY,))
    shoot(g, R1, moved(R1, sat("mars", 3)), card=REVERSE_GRAVITY, end=True)
    assert g.scores() == (0, 3)
    park(g, B1)
    park(g, B1)       # round 2: Player 2 starts
    return g


def test_gains_applied_before_losses():
    g = _broke_p0()
    shoot(g, R1, moved(R1, sat(GOAL, 2), belt(GOAL)), still(B1, planet(START)))
    assert g.scores() == (1, 3)         # 0 + 2 - 1 (losses first would clamp and give 2)


def test_no_score_below_zero_and_event_says_so():
    g = _broke_p0()
    ev = shoot(g, R1, moved(R1, belt(GOAL)), still(B1, planet(START)))
    assert g.scores() == (0, 3)
    e = ev[-1]
    assert e.points == 0 and "no score below zero" in e.text


def test_partial_clamp():
    g = make(tops=(REVERSE_GRAVITY,))
    g.begin_turn(0, R1, REVERSE_GRAVITY)
    ev = g.resolve_shot(ShotResult(R1, (moved(R1, sat("mars", 3), sat("mars", 2, n=2)),)))
    assert g.scores() == (0, 3)
    assert sum(e.points for e in ev) == -3


# ---------------------------------------------------------------- charging satellite

def test_charging_satellite_draws_and_default_keeps_face_down():
    top = REVERSE_GRAVITY
    g = make(draws=(top,))
    ev = shoot(g, R1, moved(R1, charging(GOAL)))
    assert g.pending_cards() == (top,)
    assert any(e.kind == "charging_satellite" for e in ev)
    g.end_turn()
    assert g.face_down_cards(0) == (top,) and g.scores() == (3, 3)


def test_two_face_down_cards_make_one_vp():
    g = make()
    shoot(g, R1, moved(R1, charging(GOAL), charging(GOAL, 2)))
    assert len(g.pending_cards()) == 2
    g.keep_drawn_card()
    ev = g.keep_drawn_card()
    assert ev[-1].points == 1 and g.scores() == (4, 3)


def test_use_drawn_card_shoots_again_this_turn():
    g = make(draws=(REVERSE_GRAVITY,))
    shoot(g, R1, moved(R1, charging(GOAL)))
    drawn = g.pending_cards()[0]
    g.use_drawn_card()
    assert g.phase is Phase.SHOOT and g.current_card == drawn == REVERSE_GRAVITY and g.current_player == 0
    g.resolve_shot(ShotResult(R1, (moved(R1, charging(GOAL), sat(GOAL, 2)),)))
    assert g.scores() == (1, 3)       # the drawn card's effect applies; the charging satellite does not draw again
    assert not g.pending_cards()
    g.end_turn()
    assert g.discard_pile() == (BLIND_SHOT, drawn) and g.current_player == 1


def test_no_card_when_rule1_applies():
    g = make(4)
    park(g, R1)
    park(g, B1)
    shoot(g, R2, moved(R2, charging(GOAL)), gone(R1, knocked=True), still(B1, planet(START)))
    assert not g.pending_cards()


def test_keep_or_use_without_a_drawn_card_raises():
    g = make()
    shoot(g, R1, moved(R1, planet(START)))
    with pytest.raises(IllegalActionError):
        g.keep_drawn_card()
    with pytest.raises(IllegalActionError):
        g.use_drawn_card()


# ---------------------------------------------------------------- restart

def test_restart_after_outbound_no_loss_same_card_card_consumed():
    g = make()
    shoot(g, R1, gone(R1))
    assert g.scores() == (2, 3) and g.is_restart_allowed()
    ev = g.restart()
    assert ev[0].kind == "restart" and ev[0].data["undone"]
    assert g.scores() == (3, 3) and not g.has_restart_card(0)
    assert g.phase is Phase.SHOOT and g.current_card == BLIND_SHOT
    assert g.ships_on_board() == {R1: frozenset({planet(START)})}
    assert not any(e.kind == "outbound_own" for e in g.events)     # the undone events left the log
    g.resolve_shot(ShotResult(R1, (moved(R1, sat(GOAL, 2)),)))
    assert g.scores() == (5, 3)
    with pytest.raises(IllegalActionError):
        g.restart()                                                  # no restart card left


def test_no_restart_after_collision():
    g = make()
    park(g, R1)
    shoot(g, B1, moved(B1, planet("mars")), knocked(R1, planet(START)), collided=True)
    assert not g.is_restart_allowed()
    with pytest.raises(IllegalActionError):
        g.restart()
    assert g.has_restart_card(1)


def test_restart_returns_drawn_card_to_deck():
    g = make()
    size = g.deck_size()
    shoot(g, R1, moved(R1, charging(GOAL)))
    assert g.deck_size() == size - 1
    g.restart()
    assert g.deck_size() == size and not g.pending_cards()


def test_restart_only_after_a_shot():
    g = make()
    with pytest.raises(IllegalActionError):
        g.restart()
    g.begin_turn(0, R1, BLIND_SHOT)
    with pytest.raises(IllegalActionError):
        g.restart()


# ---------------------------------------------------------------- rounds

def test_turn_order_and_starting_player_passes_left():
    g = make(3)
    order = []
    for _ in range(3):
        order.append(g.current_player)
        park(g, g.ship_of(g.current_player))
    assert order == [0, 1, 2]
    assert g.round == 2 and g.starting_player == 1
    order = []
    for _ in range(3):
        order.append(g.current_player)
        park(g, g.ship_of(g.current_player))
    assert order == [1, 2, 0] and g.starting_player == 2


def test_round_end_flips_top_cards():
    g = make()
    park(g, R1)
    assert len(g.face_up_cards()) == 1
    park(g, B1)
    assert sorted(g.face_up_cards()) == [0, 1] and g.pile_sizes() == (2, 2)


def test_team_bonus_to_the_only_team_with_all_records():
    g = make(3)                                           # red: P0, P2; blue: P1
    shoot(g, R1, moved(R1, planet(GOAL)), end=True)
    park(g, B1)
    ev = shoot(g, R2, moved(R2, planet(GOAL)), still(R1, planet(GOAL)), still(B1, planet(START)), end=True)
    bonus = [e for e in ev if e.kind == "team_bonus"]
    assert [(e.player, e.points) for e in bonus] == [(0, 3), (2, 3)]
    assert g.scores() == (6, 3, 6) and not g.has_bonus_token()
    assert g.team_bonuses() == ((1, "red"),)


def test_no_bonus_while_a_team_record_is_missing():
    g = make(3)
    shoot(g, R1, moved(R1, planet(GOAL)), end=True)
    park(g, B1)
    park(g, R2)
    assert g.has_bonus_token() and g.scores() == (3, 3, 3)


def test_bonus_only_once_per_stage():
    g = make()
    shoot(g, R1, moved(R1, planet(GOAL)), end=True)
    park(g, B1)                                           # end of round 1: red gets it
    assert g.scores() == (6, 3)
    park(g, B1, planet(GOAL))                             # blue now qualifies too
    park(g, R1, planet(GOAL))
    assert g.scores() == (6, 3) and g.team_bonuses() == ((1, "red"),)


def test_both_teams_qualify_nobody_gains_token_removed():
    g = make()
    shoot(g, R1, moved(R1, planet(GOAL)), end=True)
    ev = shoot(g, B1, moved(B1, planet(GOAL)), still(R1, planet(GOAL)), end=True)
    assert g.scores() == (3, 3) and not g.has_bonus_token()
    assert "bonus_token_removed" in kinds(ev) and not g.team_bonuses()


def test_token_removed_after_last_round_when_nobody_qualified():
    g = make()
    for _ in range(4):
        park(g, g.ship_of(g.current_player))
    assert g.has_bonus_token()
    park(g, g.ship_of(g.current_player))
    ev = park(g, g.ship_of(g.current_player))
    assert "bonus_token_removed" in kinds(ev)


# ---------------------------------------------------------------- stages and game end

def _play_stage(g, f=None):
    for _ in range(3 * g.players):
        p = g.current_player
        if f:
            f(g, p)
        else:
            park(g, g.ship_of(p))


def test_new_stage_moves_goal_to_start_and_resets():
    g = make(deals=[(R1, B1), (B1, R1)], extra=60)
    shoot(g, R1, moved(R1, planet(GOAL)), end=True)
    g.begin_turn(1, B1, BLIND_SHOT)
    g.resolve_shot(ShotResult(B1, (moved(B1, sat(GOAL, 2)), still(R1, planet(GOAL))), beams=(BeamResult(0),)))
    assert g.beams_on_board() == {0}
    g.end_turn()
    for _ in range(4):
        park(g, g.ship_of(g.current_player))
    assert g.stage == 2 and g.round == 1
    assert (g.start, g.goal) == (GOAL, NEXT) and g.has_bonus_token()
    assert g.ships_on_board() == {} and g.beams_on_board() == frozenset()
    assert not g.record_tokens_on_goal()
    assert g.pile_sizes() == (3, 3) and sorted(g.face_up_cards()) == [0, 1]
    assert g.ship_of(0) == B1 and g.ship_of(1) == R1 and g.starting_player == 1 == g.current_player


def test_restart_cards_to_lowest_scorers_at_most_one():
    g = make(3, deals=[team_cards_for(3)] * 3)
    shoot(g, R1, gone(R1))                        # P0: 3 -> 2
    g.restart()                                   # undone, but P0's restart card is used up
    g.resolve_shot(ShotResult(R1, (gone(R1),)))   # 2 VP, no restart card
    g.end_turn()
    shoot(g, B1, gone(B1))                        # P1 restarts too and ends at 3 VP without a card
    g.restart()
    g.resolve_shot(ShotResult(B1, (moved(B1, planet(START)),)))
    g.end_turn()
    shoot(g, R2, gone(R2), still(B1, planet(START)), end=True)     # P2: 2 VP, keeps its card
    while g.stage == 1:
        park(g, g.ship_of(g.current_player), planet("mars"))
    assert g.scores() == (2, 3, 2)
    assert g.has_restart_card(0) and g.has_restart_card(2) and not g.has_restart_card(1)
    ev = {e.player: e.text for e in g.events if e.kind == "restart_card"}
    assert set(ev) == {0, 2} and "takes a restart card" in ev[0] and "already holds" in ev[2]


def test_lowest_scorer_keeps_at_most_one_restart_card():
    g = make(deals=[(R1, B1)] * 3)
    shoot(g, R1, gone(R1), end=True)            # P0 2 VP, still holds a restart card
    _play_stage(g)
    assert g.stage == 2 and g.has_restart_card(0)
    ev = [e for e in g.events if e.kind == "restart_card"]
    assert len(ev) == 1 and "already holds" in ev[0].text


def test_game_ends_when_no_goal_card_left_stages_equal_cards_minus_one():
    g = make(planets=(START, GOAL, NEXT, "mars"))
    for _ in range(3):
        assert not g.is_game_over()
        _play_stage(g)
    assert g.is_game_over() and g.stages_played == 3 == len(g.planets_used) - 1
    o = g.outcome()
    assert o.winners == (0, 1) and o.is_tie and o.scores == (3, 3)
    with pytest.raises(GameOverError):
        g.begin_turn(0, R1, BLIND_SHOT)
    assert g.current_player is None and g.legal_ships() == ()


def test_default_game_lasts_planet_cards_minus_one_stages():
    g = Game(6, seed=9)
    turns = 0
    while not g.is_game_over():
        p = g.current_player
        s = g.ship_of(p)
        others = [still(x, *l) for x, l in g.ships_on_board().items() if x != s]
        g.play_turn(p, s, g.legal_cards()[0], ShotResult(s, (moved(s, planet("pluto") if g.goal != "pluto"
                                                                    else planet("mars")), *others)),
                    placed={planet("mars") if g.goal != "mars" else planet("earth")}
                    if g.legal_cards()[0].id == "warp_drive" else None)
        turns += 1
    assert g.stages_played == 3 == PLANET_CARDS_BY_PLAYERS[6] - 1 and turns == 3 * 3 * 6


def test_single_winner():
    g = make(planets=(START, GOAL))
    shoot(g, R1, moved(R1, sat(GOAL, 2)), end=True)
    for _ in range(5):
        park(g, g.ship_of(g.current_player))
    o = g.outcome()
    assert o.winner == 0 and o.scores == (5, 3) and not o.is_tie
    assert g.events[-1].kind == "game_over"


# ---------------------------------------------------------------- status flags

def test_status_flags():
    g = make()
    shoot(g, R1, moved(R1, planet(GOAL), upright=False), ShipResult(R3, locations=frozenset({planet("mars")})),
          beams=tuple(BeamResult(i) for i in range(7)))
    st = g.status()
    assert st & Status.SHIP_NOT_FLAT and st & Status.SHIP_NOT_IN_PLAY and st & Status.TOO_MANY_BEAMS
    assert not st & Status.POWER_DECK_EMPTY


def test_power_deck_empty_flag_and_no_card_drawn():
    g = make(extra=0)
    assert g.deck_size() == 0
    assert g.status() & Status.POWER_DECK_EMPTY
    ev = shoot(g, R1, moved(R1, charging(GOAL)))
    assert not g.pending_cards() and "deck is empty" in ev[0].text
    g.end_turn()
    assert not g.status() & Status.POWER_DECK_EMPTY       # the used card is on the discard pile now


def test_reshuffle_when_deck_runs_out():
    g = make(extra=0)
    shoot(g, R1, moved(R1, planet(START)), end=True)      # BLIND_SHOT goes to the discard pile
    ev = shoot(g, B1, moved(B1, charging(GOAL)), still(R1, planet(START)))
    assert "reshuffle" in kinds(ev) and g.pending_cards() == (BLIND_SHOT,)


def test_errors_are_rules_errors():
    assert issubclass(WrongPlayerError, RulesError) and issubclass(GameOverError, RulesError)


def test_module_docstring_example_runs():
    import re

    import rules.pitchfleet as pf
    block = pf.__doc__.split("::\n", 1)[1].split("\n\n``play_turn", 1)[0]
    code = "\n".join(line[4:] for line in block.splitlines())
    ns: dict = {}
    exec(compile(code, "<docstring>", "exec"), ns)      # the asserts inside must hold
    assert ns["g"].scores() == (2, 3) and re.search(r"Mars' 2-star", ns["ev"][-1].text)
