"""PitRush scoring: rules A and B, neutral and hanging discs, formations, the rulebook's figure."""

from __future__ import annotations

from rules.pitrush import BoardState, DiscState, Player, score_position

import pitrush_nominal as nominal

GEO = nominal.geometry()
# blue shoots from seat5 (p1..p3 worth 1 ... p17..p19 worth 5), yellow from the opposite seat2, red from seat1
BLUE, YELLOW, RED = Player("blue", "seat5"), Player("yellow", "seat2"), Player("red", "seat1")
PLAYERS = (BLUE, YELLOW, RED)
B, Y, R = 0, 1, 2


def inp(color, pit):
    return DiscState.in_pit(color, pit)


def on(color, pit, level=1):
    return DiscState.stacked(color, pit, level)


def sheet(*discs, players=PLAYERS, **kw):
    return score_position(GEO, BoardState.of(*discs), players, **kw)


def texts(s, kind=None):
    return [e.text for e in s.events if kind is None or e.kind == kind]


def test_rule_a_disc_in_a_pit_scores_its_value_for_the_owner_seat():
    s = sheet(inp("blue", "p2"), inp("blue", "p18"), inp("yellow", "p17"))
    assert s.points == (1 + 5, 1, 0)          # p17 is worth 1 to yellow (seat2)
    assert "blue in p2: +1 blue" in texts(s) and "blue in p18: +5 blue" in texts(s)


def test_rule_a_own_disc_on_top_is_allowed_and_rule_b_scores_the_top_disc_too():
    s = sheet(inp("blue", "p9"), on("blue", "p9"))
    assert s.points[B] == 3 + 3
    assert texts(s, "pit_score") == ["blue in p9 (own disc on top): +3 blue", "blue on p9 over blue: +3 blue"]


def test_opponent_on_top_takes_the_pit_over():
    s = sheet(inp("blue", "p7"), on("yellow", "p7"))
    assert s.points == (0, 4, 0)
    assert "yellow on p7 over blue: +4 yellow" in texts(s)
    assert "blue in p7 under yellow: +0 (an opponent disc is on top)" in texts(s)


def test_rule_b_every_disc_on_top_scores_whatever_is_beneath():
    # p10 (worth 3 from every seat): blue inside, then red, blue, blue on top
    s = sheet(inp("blue", "p10"), on("red", "p10", 1), on("blue", "p10", 2), on("blue", "p10", 3))
    assert s.points == (3 + 3, 0, 3)          # blue's bottom disc is covered by red: only the two on top score
    assert texts(s, "pit_score") == ["red on p10 over blue: +3 red", "blue on p10 over red: +3 blue",
                                     "blue on p10 over blue: +3 blue"]
    assert [e.data["rule"] for e in s.events if e.kind == "pit_score"] == ["B", "B", "B"]


def test_stack_order_comes_from_the_level_not_the_list_order():
    s = sheet(on("yellow", "p7", 2), on("red", "p7", 1), inp("blue", "p7"))
    assert texts(s, "pit_score") == ["red on p7 over blue: +2 red", "yellow on p7 over red: +4 yellow"]


def test_neutral_discs_score_nobody_but_discs_on_them_score():
    s = sheet(inp("white", "p5"), on("blue", "p5"), inp("black", "p14"))
    assert s.points == (2, 0, 0)
    assert "neutral white in p5: scores nobody" in texts(s)
    assert "blue on p5 over neutral white: +2 blue" in texts(s)
    assert "neutral black in p14: scores nobody" in texts(s)


def test_a_neutral_disc_on_top_does_not_block_rule_a():
    s = sheet(inp("blue", "p5"), on("white", "p5"))
    assert s.points[B] == 2


def test_hanging_discs_score_nothing():
    s = sheet(DiscState.hanging_on("blue", "p18"), DiscState.surface_disc("red"), inp("red", "p19"))
    assert s.points == (0, 0, 1)
    assert "blue hanging on p18: +0 (hanging discs score nothing)" in texts(s)


def test_a_disc_stacked_over_an_empty_pit_scores_nothing():
    s = sheet(on("blue", "p4"))
    assert s.points == (0, 0, 0)
    assert texts(s, "no_score") == ["blue over empty p4: +0 (no disc inside the pit beneath it)"]


def test_childrens_scoring_every_pit_is_worth_one():
    discs = (inp("blue", "p18"), on("yellow", "p18"), inp("red", "p1"), inp("blue", "p3"))
    assert sheet(*discs, scoring="children", formations=False).points == (1, 1, 1)
    assert sheet(*discs, formations=False).points == (1, 1, 5)


# ------------------------------------------------------------------------------------- formations

def test_small_triangle_is_worth_one():
    s = sheet(inp("red", "p1"), inp("red", "p2"), inp("red", "p5"))
    assert s.formation_points == (0, 0, 1)
    assert texts(s, "formation") == ["small triangle p1-p2-p5: +1 red"]


def test_complete_row_is_worth_its_number_of_pits():
    s = sheet(*(inp("yellow", p) for p in ("p4", "p5", "p6", "p7")))
    assert s.formation_points == (0, 4, 0)
    assert texts(s, "formation") == ["complete row p4-p5-p6-p7: +4 yellow"]
    s5 = sheet(*(inp("blue", f"p{i}") for i in range(8, 13)))
    assert texts(s5, "formation") == ["complete row p8-p9-p10-p11-p12: +5 blue"]


def test_a_row_that_is_not_complete_scores_nothing():
    s = sheet(inp("yellow", "p4"), inp("yellow", "p5"), inp("yellow", "p6"), inp("blue", "p7"))
    assert s.formation_points == (0, 0, 0)
    # three in a line inside a longer row is not a row
    assert sheet(*(inp("blue", f"p{i}") for i in range(8, 11))).formation_points == (0, 0, 0)


def test_a_pit_taken_over_leaves_the_formation():
    base = [inp("red", "p1"), inp("red", "p2"), inp("red", "p3")]
    assert sheet(*base).formation_points[R] == 3
    taken = sheet(*base, on("blue", "p3"))
    assert taken.formation_points[R] == 0 and taken.points[B] == 1
    own_on_top = sheet(*base, on("red", "p3"))
    assert own_on_top.formation_points[R] == 3


def test_a_formation_scores_once_however_many_discs():
    one = sheet(inp("red", "p1"), inp("red", "p2"), inp("red", "p5"))
    many = sheet(inp("red", "p1"), on("red", "p1"), inp("red", "p2"), on("red", "p2"), on("red", "p2", 2),
                 inp("red", "p5"), on("red", "p5"))
    assert one.formation_points == many.formation_points == (0, 0, 1)
    assert many.pit_points[R] > one.pit_points[R]


def test_a_pit_can_belong_to_formations_of_several_players():
    # blue and red each have a disc on top of every pit of the triangle p1-p2-p5 (over neutral discs)
    discs = []
    for p in ("p1", "p2", "p5"):
        discs += [inp("white", p), on("blue", p, 1), on("red", p, 2)]
    s = sheet(*discs)
    assert s.formation_points == (1, 0, 1)
    # ... and a pit may be in several formations of one player: p1 is in the row and in the triangle
    s2 = sheet(inp("blue", "p1"), inp("blue", "p2"), inp("blue", "p3"), inp("blue", "p5"))
    assert sorted(texts(s2, "formation")) == ["complete row p1-p2-p3: +3 blue", "small triangle p1-p2-p5: +1 blue"]


def test_formations_can_be_switched_off():
    s = sheet(inp("red", "p1"), inp("red", "p2"), inp("red", "p3"), formations=False)
    assert s.formation_points == (0, 0, 0)
    assert s.points[R] == s.pit_points[R] == 5 + 4 + 3      # seat1: p1 worth 5, p2 4, p3 3
    assert texts(s, "formation") == []


def test_rulebook_figure_blue_scores_18():
    """The scoring figure reconstructed on the nominal board.

    The rulebook's figure shows "a complete row (+3), a row that is not complete (+0), a small
    triangle (+1), and a combined formation ... the blue player scores 18 points".  On the nominal
    board, blue at seat5 (values 1 on p1..p3 up to 5 on p17..p19):

    * complete row: blue in p1, p2, p3 -> 1 + 1 + 1 from the pits, +3 for the row;
    * small triangle: blue in p9, p13, p14 -> 3 + 4 + 4 from the pits, +1 for the triangle;
      blue = 6 + 12 = 18 (the only way to show both on this board at 18: the row nearest the seat
      and a triangle in the far half);
    * row that is not complete: red (seat1, worth 2 on each of p7, p11, p15, p18) holds p7, p11
      and p18 but yellow holds p15 -> red 6, +0;
    * combined formation: yellow (seat2) holds p12, p15, p16, p19, with a second yellow disc on
      p19: the row p12-p16-p19 (+3) and the triangle p15-p16-p19 (+1) share p16 and p19, and the
      second disc adds its pit value but no second formation (FAQ) -> 3+2+2+1+1 + 4 = 13.
    """
    discs = [inp("blue", p) for p in ("p1", "p2", "p3", "p9", "p13", "p14")]
    discs += [inp("red", p) for p in ("p7", "p11", "p18")]
    discs += [inp("yellow", p) for p in ("p12", "p15", "p16", "p19")] + [on("yellow", "p19")]
    s = sheet(*discs)
    assert s.points[B] == 18
    assert (s.pit_points[B], s.formation_points[B]) == (14, 4)
    assert sorted(texts(s, "formation")) == ["complete row p1-p2-p3: +3 blue",
                                             "complete row p12-p16-p19: +3 yellow",
                                             "small triangle p15-p16-p19: +1 yellow",
                                             "small triangle p9-p13-p14: +1 blue"]
    assert s.points == (18, 13, 6)
    assert "total blue: 18 (14 from pits, 4 from formations)" in texts(s)
    assert ("p7", "p11", "p15", "p18") in GEO.rows       # red's row is a real, incomplete row


def test_events_explain_every_point():
    discs = [inp("blue", "p1"), on("red", "p1"), inp("red", "p2"), inp("red", "p5"), on("red", "p5"),
             inp("white", "p10"), on("yellow", "p10"), DiscState.hanging_on("blue", "p3")]
    s = sheet(*discs)
    for i in range(3):
        scored = [e for e in s.events if e.player == i and e.kind != "total"]
        assert sum(e.points for e in scored) == s.points[i]
        assert all(f"+{e.points}" in e.text for e in scored)
