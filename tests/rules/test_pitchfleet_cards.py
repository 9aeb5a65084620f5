"""Pitch Fleet power cards: the ten basic and five advanced effects, one group of tests each."""

from __future__ import annotations

import pytest

from rules.base import IllegalActionError
from rules.pitchfleet import (ADVANCED_CARDS, ALL_CARDS, ASTEROID_MINER, BASIC_CARDS, BEAM_CUE, BLIND_SHOT,
                              CHAIN_REACTION, COMBO, DECOY_BEAM, DOMINO, HOP, KNUCKLE, MAGNETIC_BARRIER, RECHARGE,
                              REVERSE_GRAVITY, SAFETY_NET, SPRINGBOARD, WARP_DRIVE, BeamResult, Phase, ShotResult, advanced_deck, basic_deck, card)

from pf_helpers import (B1, B2, B3, GOAL, NEXT, R1, R2, R3, START, K, belt, charging, deck, gone, kinds, knocked, make,  # noqa: F401
                        moved, park, planet, sat, shoot, still, total)



def play(g, ship, c, *ships, collided=False, beams=(), placed=None, on_springboard=False):
    ev = g.begin_turn(g.current_player, ship, c, placed=placed)
    return ev + g.resolve_shot(ShotResult(ship, ships, collided, beams, on_springboard))


# ---------------------------------------------------------------- the cards themselves

def test_fifteen_cards_with_stable_ids_and_text():
    assert len(BASIC_CARDS) == 10 and len(ADVANCED_CARDS) == 5
    assert [c.id for c in BASIC_CARDS] == ["asteroid_miner", "domino", "reverse_gravity", "magnetic_barrier",
                                           "beam_cue", "warp_drive", "recharge", "blind_shot", "safety_net", "hop"]
    assert [c.id for c in ADVANCED_CARDS] == ["knuckle", "combo", "decoy_beam", "chain_reaction", "springboard"]
    assert all(not c.advanced for c in BASIC_CARDS) and all(c.advanced for c in ADVANCED_CARDS)
    assert card("warp_drive") is WARP_DRIVE and len(ALL_CARDS) == 15
    assert REVERSE_GRAVITY.text == "If you arrive any VP satellite, you lose points instead of gain points."


def test_deck_distribution_five_of_each():
    b, a = basic_deck(), advanced_deck()
    assert len(b) == 50 and all(b.count(c) == 5 for c in BASIC_CARDS)
    assert len(a) == 25 and all(a.count(c) == 5 for c in ADVANCED_CARDS)


# ---------------------------------------------------------------- basic

def test_asteroid_miner_goal_belt_gains_instead_of_losing():
    g = make(tops=(ASTEROID_MINER,))
    ev = play(g, R1, ASTEROID_MINER, moved(R1, belt(GOAL)))
    assert g.scores() == (4, 3)
    assert not any(e.points < 0 for e in ev)


def test_asteroid_miner_any_board_once_per_shot():
    g = make(tops=(ASTEROID_MINER,))
    play(g, R1, ASTEROID_MINER, moved(R1, belt("mars"), belt("pluto")))
    assert g.scores() == (4, 3)


def test_asteroid_miner_nothing_without_belt():
    g = make(tops=(ASTEROID_MINER,))
    play(g, R1, ASTEROID_MINER, moved(R1, planet("mars")))
    assert g.scores() == (3, 3)


def test_domino_each_knocked_ship_arriving_a_planet():
    g = make(4, tops=(BLIND_SHOT, BLIND_SHOT, BLIND_SHOT, DOMINO))
    park(g, R1, sat("mars", 2))
    park(g, B1)
    park(g, R2, belt("pluto"))
    ev = play(g, B2, DOMINO, moved(B2, planet("saturn")), knocked(R1, planet("mars")),
              knocked(R2, planet("earth"), belt("pluto")), still(B1, planet(START)))
    assert g.scores() == (3, 3, 3, 5)
    assert sum(1 for e in ev if e.kind == "card") == 2


def test_domino_not_for_knocked_ship_staying_on_its_planet_or_outbound():
    g = make(4, tops=(BLIND_SHOT, BLIND_SHOT, BLIND_SHOT, DOMINO))
    park(g, R1)                                      # on the starting planet
    park(g, B1)
    park(g, R2)
    play(g, B2, DOMINO, moved(B2, planet("saturn")), knocked(R1, planet(START)), gone(R2, knocked=True),
         still(B1, planet(START)))
    assert g.scores() == (3, 3, 2, 4)               # only rule 2 for R2


def test_domino_not_for_the_moved_ship_itself():
    g = make(tops=(DOMINO,))
    play(g, R1, DOMINO, moved(R1, planet("mars")))
    assert g.scores() == (3, 3)


def test_reverse_gravity_goal_satellite_loses_stars():
    g = make(tops=(REVERSE_GRAVITY,))
    ev = play(g, R1, REVERSE_GRAVITY, moved(R1, sat(GOAL, 2)))
    assert g.scores() == (1, 3) and ev[-1].points == -2


def test_reverse_gravity_any_board_and_other_effects_unchanged():
    g = make(tops=(REVERSE_GRAVITY,))
    play(g, R1, REVERSE_GRAVITY, moved(R1, sat("mars", 1), planet(GOAL), charging(GOAL)))
    assert g.scores() == (2, 3)
    assert g.record_tokens_on_goal() == {R1} and len(g.pending_cards()) == 1


def test_magnetic_barrier_places_a_beam_that_stays_until_knocked():
    g = make(tops=(MAGNETIC_BARRIER,))
    ev = g.begin_turn(0, R1, MAGNETIC_BARRIER)
    assert "beam_placed" in kinds(ev) and g.beams_on_board() == {0}
    g.resolve_shot(ShotResult(R1, (moved(R1, planet("mars")),), beams=(BeamResult(0),)))
    g.end_turn()
    assert g.beams_on_board() == {0}
    shoot(g, B1, moved(B1, planet("mars")), still(R1, planet("mars")), beams=(BeamResult(0, moved=True),),
          collided=True)
    assert g.beams_on_board() == frozenset()
    assert not g.is_restart_allowed()


def test_magnetic_barrier_with_all_six_beams_on_board_reuses_one():
    g = make(tops=(MAGNETIC_BARRIER,))
    shoot(g, R1, moved(R1, planet(START)), beams=tuple(BeamResult(i) for i in range(6)), end=True)
    g2 = make(tops=(BLIND_SHOT, MAGNETIC_BARRIER))
    shoot(g2, R1, moved(R1, planet(START)), beams=tuple(BeamResult(i) for i in range(6)), end=True)
    ev = g2.begin_turn(1, B1, MAGNETIC_BARRIER)
    assert len(g2.beams_on_board()) == 6 and "all beams were on the board" in ev[-1].text


def test_beam_cue_is_declared():
    g = make(tops=(BEAM_CUE,))
    ev = g.begin_turn(0, R1, BEAM_CUE)
    assert any(e.kind == "declared" and "beam" in e.text for e in ev)


def test_warp_drive_needs_a_non_goal_planet():
    g = make(tops=(WARP_DRIVE,))
    with pytest.raises(IllegalActionError):
        g.begin_turn(0, R1, WARP_DRIVE)
    with pytest.raises(IllegalActionError):
        g.begin_turn(0, R1, WARP_DRIVE, placed={planet(GOAL)})
    with pytest.raises(IllegalActionError):
        g.begin_turn(0, R1, WARP_DRIVE, placed={sat("mars", 2)})
    assert g.phase is Phase.CHOOSE and g.pile_sizes() == (3, 3)
    ev = g.begin_turn(0, R1, WARP_DRIVE, placed={planet("mars")})
    assert "relocated" in kinds(ev) and g.ships_on_board()[R1] == {planet("mars")}


def test_warp_drive_relocation_is_the_start_of_the_move():
    g = make(tops=(WARP_DRIVE,))
    g.begin_turn(0, R1, WARP_DRIVE, placed={planet("mars"), sat("mars", 2)})
    g.resolve_shot(ShotResult(R1, (moved(R1, planet("mars"), sat(GOAL, 1)),)))
    assert g.scores() == (4, 3)


def test_recharge_any_charging_satellite():
    g = make(tops=(RECHARGE,))
    play(g, R1, RECHARGE, moved(R1, charging("mars")))
    assert g.scores() == (4, 3) and not g.pending_cards()


def test_recharge_on_goal_also_draws():
    g = make(tops=(RECHARGE,))
    play(g, R1, RECHARGE, moved(R1, charging(GOAL)))
    assert g.scores() == (4, 3) and len(g.pending_cards()) == 1


def test_blind_shot_is_declared():
    g = make()
    ev = g.begin_turn(0, R1, BLIND_SHOT)
    assert [e.text for e in ev if e.kind == "declared"] == ["Player 1 declares: shot with eyes closed (Blind Shot)"]


def test_safety_net_no_loss_for_moved_ship_outbound():
    g = make(tops=(SAFETY_NET,))
    ev = play(g, R1, SAFETY_NET, gone(R1))
    assert g.scores() == (3, 3) and R1 not in g.ships_on_board()
    assert any("Safety Net" in e.text for e in ev)


def test_safety_net_other_outbound_examination_still_follows():
    g = make(tops=(BLIND_SHOT, SAFETY_NET))
    park(g, R1)
    play(g, B1, SAFETY_NET, gone(B1), gone(R1, knocked=True))
    assert g.scores() == (2, 4)


def test_safety_net_teammate_outbound_still_rule1():
    g = make(4, tops=(BLIND_SHOT, BLIND_SHOT, SAFETY_NET))
    park(g, R1)
    park(g, B1)
    play(g, R2, SAFETY_NET, gone(R2), gone(R1, knocked=True), still(B1, planet(START)))
    assert g.scores() == (3, 3, 2, 3)


def test_hop_relocation_and_declaration():
    g = make(tops=(HOP,))
    ev = g.begin_turn(0, R1, HOP, placed={belt(START)})
    assert "relocated" in kinds(ev) and "declared" in kinds(ev)
    assert g.ships_on_board()[R1] == {belt(START)}


def test_hop_default_keeps_position_and_other_cards_cannot_relocate():
    g = make(tops=(HOP,))
    g.begin_turn(0, R1, HOP)
    assert g.ships_on_board()[R1] == {planet(START)}
    g2 = make()
    shoot(g2, R1, moved(R1, planet("mars")), end=True)
    park(g2, B1)
    park(g2, B1)
    with pytest.raises(IllegalActionError):
        g2.begin_turn(0, R1, BLIND_SHOT, placed={planet("earth")})


# ---------------------------------------------------------------- advanced

def test_knuckle_any_planet_plus_one():
    g = make(tops=(KNUCKLE,), advanced=True)
    ev = play(g, R1, KNUCKLE, moved(R1, planet("mars")))
    assert g.scores() == (4, 3)
    assert any(e.kind == "declared" and "second joint" in e.text for e in ev)


def test_knuckle_goal_planet_plus_one_and_record():
    g = make(tops=(KNUCKLE,), advanced=True)
    play(g, R1, KNUCKLE, moved(R1, planet(GOAL)))
    assert g.scores() == (4, 3) and g.record_tokens_on_goal() == {R1}


def test_knuckle_start_planet_does_not_count():
    g = make(tops=(KNUCKLE,), advanced=True)
    play(g, R1, KNUCKLE, moved(R1, planet(START)))
    assert g.scores() == (3, 3)


def test_combo_two_special_locations_plus_two():
    g = make(tops=(COMBO,), advanced=True)
    play(g, R1, COMBO, moved(R1, sat("mars", 2), charging("mars")))
    assert g.scores() == (5, 3)


def test_combo_belts_and_start_location_do_not_count():
    g = make(tops=(COMBO,), advanced=True)
    play(g, R1, COMBO, moved(R1, planet(START), sat("mars", 2), belt("mars")))
    assert g.scores() == (3, 3)


def test_decoy_beam_replaces_ship_and_scores_knocked_opponents_max_two():
    g = make(4, tops=(BLIND_SHOT, BLIND_SHOT, BLIND_SHOT, DECOY_BEAM), advanced=True)
    park(g, R1)
    park(g, B1)
    park(g, R2)
    ev = g.begin_turn(3, B1, DECOY_BEAM)
    assert B1 not in g.ships_on_board() and g.beams_on_board() == {0}
    assert "beam_placed" in kinds(ev)
    g.resolve_shot(ShotResult(B1, (knocked(R1, belt(START)), knocked(R2, planet("mars"))), collided=True,
                              beams=(BeamResult(0, moved=True),)))
    assert g.scores() == (3, 3, 3, 5)
    assert g.beams_on_board() == {0}      # the shot beam stays on the board


def test_decoy_beam_cap_and_own_ships_do_not_count():
    g = make(4, tops=(BLIND_SHOT, BLIND_SHOT, BLIND_SHOT, DECOY_BEAM), advanced=True)
    for s in (R1, B1, R2):
        park(g, s)
    g.begin_turn(3, B2, DECOY_BEAM)
    g.resolve_shot(ShotResult(B2, (knocked(R1, belt(START)), knocked(R2, belt(START)), knocked(B1, belt(START))),
                              collided=True, beams=(BeamResult(0, moved=True),)))
    assert g.scores() == (3, 3, 3, 5)


def test_decoy_beam_off_board_ship_beam_on_start_and_ship_not_in_scene():
    g = make(tops=(DECOY_BEAM,), advanced=True)
    g.begin_turn(0, R1, DECOY_BEAM)
    with pytest.raises(IllegalActionError):
        g.resolve_shot(ShotResult(R1, (moved(R1, planet(GOAL)),)))
    g.resolve_shot(ShotResult(R1, (), beams=(BeamResult(0, moved=True),)))
    assert g.ships_on_board() == {} and g.scores() == (3, 3)


def test_chain_reaction_own_team_outbound_no_loss_plus_one():
    g = make(4, tops=(BLIND_SHOT, BLIND_SHOT, CHAIN_REACTION), advanced=True)
    park(g, R1)
    park(g, B1)
    play(g, R2, CHAIN_REACTION, moved(R2, sat(GOAL, 2)), gone(R1, knocked=True), still(B1, planet(START)))
    assert g.scores() == (3, 3, 6, 3)       # +1 chain, +2 satellite (arrival still examined), no rule 1


def test_chain_reaction_opponent_outbound_rule2_plus_chain():
    g = make(tops=(BLIND_SHOT, CHAIN_REACTION), advanced=True)
    park(g, R1)
    play(g, B1, CHAIN_REACTION, moved(B1, planet(START)), gone(R1, knocked=True))
    assert g.scores() == (2, 5)


def test_chain_reaction_moved_ship_outbound_is_rule1():
    g = make(tops=(BLIND_SHOT, CHAIN_REACTION), advanced=True)
    park(g, R1)
    play(g, B1, CHAIN_REACTION, gone(B1), gone(R1, knocked=True))
    assert g.scores() == (3, 2)


def test_springboard_any_planet_plus_three():
    g = make(tops=(SPRINGBOARD,), advanced=True)
    ev = play(g, R1, SPRINGBOARD, moved(R1, planet("mars")))
    assert g.scores() == (6, 3) and "declared" in kinds(ev)


def test_springboard_failed_move_puts_ship_back():
    g = make(tops=(SPRINGBOARD,), advanced=True)
    ev = play(g, R1, SPRINGBOARD, moved(R1, sat(GOAL, 2)), on_springboard=True)
    assert "springboard_failed" in kinds(ev)
    assert g.scores() == (3, 3) and g.ships_on_board() == {R1: frozenset({planet(START)})}
