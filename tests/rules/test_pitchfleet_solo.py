"""Pitch Fleet solo / family mode: challenge cards 1-16, the run of seven, failures, the evaluation table."""

from __future__ import annotations

import pytest

from rules.base import GameOverError, IllegalActionError, NeedsConfirmation, SetupError
from rules.pitchfleet import (CHALLENGES, EVALUATION, RUN_LENGTH, SOLO_SHIP, BeamResult, ChallengeCard, Location,
                              LocationKind, ShipId, ShipResult, ShotResult, SoloGame, Status, Verdict, evaluation)

BLUE = SOLO_SHIP
R1, R2, R3 = ShipId("red", 1), ShipId("red", 2), ShipId("red", 3)
K = LocationKind


def planet(b):
    return Location.planet(b)


def sat(b, stars=1, n=1):
    return Location(b, f"satellite{n}", K.SATELLITE, stars)


def blue(*locs, upright=True):
    return ShipResult(BLUE, False, frozenset(locs), moved=True, upright=upright)


def red(ship, *locs, moved=True):
    return ShipResult(ship, False, frozenset(locs), moved=moved, knocked=moved)


def red_out(ship, moved=True):
    return ShipResult(ship, True, frozenset(), moved=moved, knocked=moved)


def scene(*ships, collided=False, beams=()):
    return ShotResult(BLUE, ships, collided, beams)


def run(*first):
    """A run whose cards come in this order (padded to seven with other cards)."""
    rest = [n for n in range(1, 17) if n not in first]
    return SoloGame(list(first) + rest[:RUN_LENGTH - len(first)], shuffle=False)


def done(g, n):
    return any(e.kind == "challenge_done" and e.data["card"] == n for e in g.events)


# ---------------------------------------------------------------- cards and set-up

def test_sixteen_challenge_cards_with_vp_and_move_limits():
    assert sorted(CHALLENGES) == list(range(1, 17))
    assert all(1 <= c.vp <= 4 and 2 <= c.max_moves <= 4 for c in CHALLENGES.values())
    assert CHALLENGES[13].setup == "Set six magnetic beams on Mercury. Stack them up as a campfire."
    assert CHALLENGES[13].challenge == "Arrive Mercury."
    assert all(c.power_card is None for c in CHALLENGES.values())


def test_run_of_seven_cards_seeded():
    g = SoloGame(seed=4)
    assert g.cards_left() == RUN_LENGTH - 1 and g.current_card is not None
    assert g.vp_on_card == g.current_card.vp and g.moves_left == g.current_card.max_moves
    assert SoloGame(seed=4).current_card == g.current_card


def test_setup_errors():
    with pytest.raises(SetupError):
        SoloGame([1, 2, 3])
    with pytest.raises(SetupError):
        SoloGame([1, 2, 3, 4, 5, 6, 99])


def test_wrong_ship_raises():
    g = run(13)
    with pytest.raises(IllegalActionError):
        g.shoot(ShotResult(R1, (red(R1, planet("mercury")),)))


# ---------------------------------------------------------------- checkers

def test_c1_red_ship_arrives_venus():
    g = run(1)
    g.shoot(scene(blue(planet("earth")), red(R1, planet("venus"))))
    assert done(g, 1) and g.score == 1


def test_c1_red_ship_outbound_fails():
    g = run(1, 2)
    ev = g.shoot(scene(blue(planet("earth")), red_out(R1)))
    assert [e.kind for e in ev][-2:] == ["challenge_failed", "challenge"]     # 1 VP card: discarded, next card
    assert g.current_card.number == 2 and g.discarded() == (CHALLENGES[1],)


def test_c2_arrive_mars_and_both_red_ships_moved_over_moves():
    g = run(2)
    g.shoot(scene(blue(sat("mars", 2)), red(R1, planet("mars")), red(R2, sat("mars", 2, 2), moved=False)))
    assert not done(g, 2) and g.progress.moves == 1
    g.shoot(scene(blue(planet("mars")), red(R1, planet("mars"), moved=False), red(R2, planet("earth"))))
    assert done(g, 2) and g.score == 2


def test_c3_arrive_saturn_with_all_four_beams_moved():
    g = run(3)
    g.shoot(scene(blue(planet("saturn")), beams=tuple(BeamResult(i, moved=i < 3) for i in range(4))))
    assert not done(g, 3)
    g.shoot(scene(blue(planet("earth")), beams=(BeamResult(3, moved=True),)))
    assert done(g, 3)                      # Saturn was arrived earlier: the order does not matter


def test_c3_done_when_both_hold_after_a_move():
    g = run(3)
    g.shoot(scene(blue(planet("earth")), beams=tuple(BeamResult(i, moved=True) for i in range(4))))
    g.shoot(scene(blue(planet("saturn"))))
    assert done(g, 3) and g.score == 3


@pytest.mark.parametrize("n", [4, 5, 8])
def test_outbound_the_red_ship(n):
    g = run(n)
    g.shoot(scene(blue(planet("mars")), red(R1, planet("mars"), moved=False)))
    assert not done(g, n)
    g.shoot(scene(blue(planet("earth")), red_out(R1)))
    assert done(g, n) and g.score == CHALLENGES[n].vp


def test_blue_outbound_fails_even_if_goal_met():
    g = run(4)
    ev = g.shoot(scene(ShipResult(BLUE, True, moved=True), red_out(R1)))
    assert not done(g, 4) and ev[-1].kind == "challenge_failed" and "outbound" in ev[-1].text
    assert g.vp_on_card == CHALLENGES[4].vp - 1 and g.progress.moves == 0


def test_c6_pluto_without_satellites():
    g = run(6)
    g.shoot(scene(blue(planet("pluto"))))
    assert done(g, 6)
    g = run(6)
    g.shoot(scene(blue(sat("pluto"))))
    assert g.vp_on_card == CHALLENGES[6].vp - 1
    g = run(6)
    g.shoot(scene(blue(Location("neptune", "charging1", K.CHARGING_SATELLITE))))
    assert g.vp_on_card == CHALLENGES[6].vp - 1


def test_c7_jupiter_without_knocking_down_a_beam():
    g = run(7)
    g.shoot(scene(blue(planet("jupiter")), beams=(BeamResult(0, moved=True, upright=True),)))
    assert done(g, 7)
    g = run(7)
    g.shoot(scene(blue(planet("jupiter")), beams=(BeamResult(1, moved=True, upright=False),)))
    assert not done(g, 7) and g.vp_on_card == CHALLENGES[7].vp - 1


def test_c9_bounce_needs_a_declaration():
    g = run(9)
    s = scene(blue(planet("venus")), red_out(R1), collided=True)
    with pytest.raises(NeedsConfirmation):
        g.shoot(s)
    assert g.progress.moves == 0                    # unchanged
    ev = g.shoot(s, declared=True)
    assert done(g, 9) and any(e.kind == "declared" for e in ev)


def test_c9_without_bounce_fails():
    g = run(9)
    g.shoot(scene(blue(planet("venus")), red_out(R1), collided=True), declared=False)
    assert not done(g, 9) and g.vp_on_card == CHALLENGES[9].vp - 1
    g.shoot(scene(blue(planet("venus")), red_out(R1), collided=False))      # no collision: no bounce possible
    assert not done(g, 9) and g.vp_on_card == CHALLENGES[9].vp - 2


def test_c10_bounce_then_venus():
    g = run(10)
    g.shoot(scene(blue(planet("venus"))))             # no collision: not the challenge, but may go on
    assert not done(g, 10) and g.progress.moves == 1
    g.shoot(scene(blue(planet("earth"))))
    assert g.vp_on_card == CHALLENGES[10].vp - 1      # 2 moves used
    g.shoot(scene(blue(planet("venus")), collided=True), declared=True)
    assert done(g, 10)


def test_c11_both_red_ships_outbound():
    g = run(11)
    g.shoot(scene(blue(planet("neptune")), red_out(R1), red(R2, sat("neptune", 2), moved=False)))
    assert not done(g, 11)
    g.shoot(scene(blue(planet("neptune")), red_out(R2)))
    assert done(g, 11)


def test_c12_venus_and_neptune_any_order():
    g = run(12)
    g.shoot(scene(blue(planet("neptune"))))
    g.shoot(scene(blue(planet("venus"))))
    assert done(g, 12) and g.score == CHALLENGES[12].vp


def test_c13_arrive_mercury():
    g = run(13)
    g.shoot(scene(blue(planet("mercury"))))
    assert done(g, 13) and g.score == 1


def test_c14_earth_without_overlapping_a_beam():
    g = run(14)
    g.shoot(scene(blue(planet("earth"), upright=False)))
    assert not done(g, 14) and g.status() == Status.SHIP_NOT_FLAT
    g.shoot(scene(blue(planet("mars"))))
    g.shoot(scene(blue(planet("earth"))))
    assert done(g, 14)


def test_c15_all_red_ships_touch_the_board():
    g = run(15)
    g.shoot(scene(blue(planet("mars")), red(R1, planet("mars")), red_out(R2), red(R3, planet("mars"), moved=False)))
    assert not done(g, 15)
    g.shoot(scene(blue(planet("mars")), red(R1, planet("mars")), red(R2, planet("mars")), red(R3, planet("mars"))))
    assert done(g, 15)


def test_c15_red_ship_gone_fails():
    g = run(15)
    g.shoot(scene(blue(planet("mars")), red(R1, planet("mars")), red(R2, planet("mars"))))
    assert g.vp_on_card == CHALLENGES[15].vp - 1


def test_c16_one_and_only_one_red_ship():
    g = run(16)
    g.shoot(scene(blue(planet("earth")), red_out(R1), red(R2, planet("mercury"))))
    assert done(g, 16) and g.score == 4
    g = run(16)
    g.shoot(scene(blue(planet("earth")), red_out(R1), red_out(R2)))
    assert not done(g, 16) and g.vp_on_card == 3
    g = run(16)
    g.shoot(scene(blue(planet("earth")), red_out(R2, moved=False), red(R1, planet("mercury"), moved=False)))
    assert not done(g, 16)                          # a ship still stacked (unmoved) does not count


def test_judge_directly():
    from rules.pitchfleet import Progress
    p = Progress().advanced(scene(blue(planet("mercury"))))
    assert CHALLENGES[13].judge(p) is Verdict.DONE and CHALLENGES[12].judge(p) is Verdict.ONGOING


# ---------------------------------------------------------------- the run

def test_move_limit_failure_removes_one_vp_and_resets():
    g = run(12)
    for _ in range(CHALLENGES[12].max_moves):
        g.shoot(scene(blue(planet("earth"))))
    assert g.vp_on_card == CHALLENGES[12].vp - 1 and g.progress.moves == 0 and g.current_card.number == 12


def test_card_discarded_when_no_vp_left_then_next():
    g = run(16, 13)
    for i in range(4):
        g.shoot(scene(ShipResult(BLUE, True, moved=True)))
    assert g.current_card.number == 13 and g.discarded() == (CHALLENGES[16],) and g.score == 0


def test_reduced_vp_is_what_you_gain():
    g = run(12)
    g.fail("used the wrong finger")
    assert g.vp_on_card == 1
    g.shoot(scene(blue(planet("venus"), planet("neptune"))))
    assert g.score == 1


def test_full_run_evaluation_and_game_over():
    g = run(13, 5, 12, 4, 8, 16, 11)
    g.shoot(scene(blue(planet("mercury"))))                              # 13: 1
    g.shoot(scene(blue(planet("earth")), red_out(R1)))                   # 5: 1
    g.shoot(scene(blue(planet("venus"), planet("neptune"))))             # 12: 2
    g.shoot(scene(blue(planet("earth")), red_out(R1)))                   # 4: 2
    g.shoot(scene(blue(planet("earth")), red_out(R1)))                   # 8: 3
    g.shoot(scene(blue(planet("earth")), red_out(R1), red(R2, planet("mercury"))))   # 16: 4
    assert not g.is_game_over() and g.outcome() is None
    g.shoot(scene(blue(planet("earth")), red_out(R1), red_out(R2)))      # 11: 3
    assert g.is_game_over() and g.score == 16 and g.evaluation() == "Impressive"
    assert g.outcome().scores == (16,) and "Impressive" in g.outcome().reason
    assert len(g.completed()) == 7 and g.events[-1].kind == "solo_over"
    with pytest.raises(GameOverError):
        g.shoot(scene(blue(planet("earth"))))


def test_place_ship_only_before_first_move_and_counts_as_start():
    g = run(13)
    g.place_ship({planet("mercury")})
    g.shoot(scene(blue(planet("mercury"))))                   # never left Mercury: not an arrival
    assert not done(g, 13)
    with pytest.raises(IllegalActionError):
        g.place_ship({planet("earth")})


@pytest.mark.parametrize("score, text", [
    (30, "Solar-mighty"), (18, "Solar-mighty"), (17, "Impressive"), (15, "Impressive"), (14, "Expert"),
    (11, "Expert"), (10, "Average pilot"), (7, "Average pilot"), (6, "Don't drive my Starship"),
    (5, "Don't drive my Starship"), (4, "Back to internship!"), (0, "Back to internship!")])
def test_evaluation_table(score, text):
    assert evaluation(score) == text


def test_evaluation_table_is_the_rulebook_one():
    assert [t for _, t in EVALUATION] == ["Solar-mighty", "Impressive", "Expert", "Average pilot",
                                          "Don't drive my Starship", "Back to internship!"]
    assert isinstance(CHALLENGES[1], ChallengeCard)
