"""PitRush game flow: setup, Contest and Arena phases, neutral discs, match ends, status, series."""

from __future__ import annotations

from collections import Counter

import pytest

from rules.base import GameOverError, IllegalActionError, NeedsConfirmation, SetupError, WrongPlayerError
from rules.pitrush import BoardState, DiscState, Game, Phase, Player, Series, Status

import pitrush_nominal as nominal

GEO = nominal.geometry()
BLUE, RED, YELLOW, GREEN = (Player("blue", "seat5"), Player("red", "seat2"), Player("yellow", "seat1"),
                            Player("green", "seat4"))
PITS = nominal.PIT_IDS


def inp(color, pit):
    return DiscState.in_pit(color, pit)


def surf(color, **kw):
    return DiscState.surface_disc(color, **kw)


class Scene:
    """The table as the referee's vision would report it, edited shot by shot."""

    def __init__(self):
        self.discs: list[DiscState] = []

    def add(self, *discs):
        self.discs += discs
        return self.board

    def remove(self, disc):
        self.discs.remove(disc)
        return self.board

    def replace(self, old, new):
        self.discs[self.discs.index(old)] = new
        return self.board

    @property
    def board(self):
        return BoardState(tuple(self.discs))


def frozen(game):
    return (game.phase, game.turn, [game.supply(i) for i in range(len(game.players))], game.board,
            game.history, game.is_neutral_due(), game.neutral_pool())


# ------------------------------------------------------------------------------------------- setup

def test_default_disc_counts_by_mode_and_players():
    assert Game("contest", [BLUE, RED], GEO).discs_per_player == 10
    assert Game("contest", [BLUE, RED, YELLOW], GEO).discs_per_player == 7
    assert Game("contest", [BLUE, RED, YELLOW, GREEN], GEO).discs_per_player == 5
    assert Game("arena", [BLUE, RED, YELLOW], GEO).discs_per_player == 10
    assert Game("arena", [BLUE, RED, YELLOW, GREEN], GEO).discs_per_player == 8
    six = [Player(c, f"seat{i + 1}") for i, c in enumerate(("red", "blue", "yellow", "green", "white", "black"))]
    assert Game("arena", six, GEO).discs_per_player == 5
    assert Game("arena", six[:5], GEO).discs_per_player == 6


@pytest.mark.parametrize("mode, players, why", [
    ("contest", [BLUE], "players"),
    ("contest", [BLUE, RED, YELLOW, GREEN, Player("white", "seat3")], "players"),
    ("arena", [BLUE, RED], "players"),
    ("arena", [BLUE, RED, Player("black", "seat3")], "black has only 5"),        # needs 10
    ("arena", [BLUE, RED, YELLOW, Player("white", "seat3")], "white has only 6"),  # needs 8
    ("contest", [BLUE, RED, Player("black", "seat1")], "black has only 5"),      # needs 7
    ("contest", [BLUE, Player("blue", "seat2")], "same colour"),
    ("contest", [BLUE, Player("purple", "seat2")], "unknown colour"),
    ("contest", [BLUE, Player("red", "seat5")], "share a seat"),
    ("contest", [BLUE, Player("red", "seat9")], "no seat"),
    ("golf", [BLUE, RED], "unknown mode"),
])
def test_setup_errors(mode, players, why):
    with pytest.raises(SetupError, match=why):
        Game(mode, players, GEO)


def test_setup_option_errors():
    with pytest.raises(SetupError):
        Game("contest", [BLUE, RED], GEO, scoring="adults")
    with pytest.raises(SetupError):
        Game("contest", [BLUE, RED], GEO, starting_player=2)
    with pytest.raises(SetupError):
        Game("contest", [BLUE, Player("green", "seat2")], GEO, discs_per_player=9)
    # 4-player contest with the small colours is fine (5 discs each)
    g = Game("contest", [Player("black", "seat1"), Player("white", "seat2"), Player("green", "seat3"), BLUE], GEO)
    assert g.neutral_colors == ("red", "yellow")


def test_formations_default_by_mode():
    assert Game("contest", [BLUE, RED], GEO).formations is True
    assert Game("arena", [BLUE, RED, YELLOW], GEO).formations is False
    assert Game("arena", [BLUE, RED, YELLOW], GEO, formations=True).formations is True


# ----------------------------------------------------------------------------------------- contest

def test_contest_turns_take_backs_and_neutral_placement():
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=2)
    sc = Scene()
    assert g.legal_shooters() == (0,)
    ev = g.shot(0, sc.add(inp("blue", "p1")))
    assert [e.kind for e in ev] == ["shot"] and g.turn == 1
    before = frozen(g)
    with pytest.raises(WrongPlayerError):
        g.shot(0, sc.board)
    assert frozen(g) == before
    g.shot(1, sc.add(surf("red")))
    blue_surface = surf("blue")
    g.shot(0, sc.add(blue_surface))
    ev = g.shot(1, sc.add(inp("red", "p19")))
    assert [e.kind for e in ev] == ["shot", "phase"] and g.is_phase_two() and g.turn == 0
    # Phase II: no discs left, take one back (not one in a pit), one at a time, on one's turn
    with pytest.raises(IllegalActionError, match="take one back"):
        g.shot(0, sc.board)
    assert g.legal_take_backs(0) == (blue_surface,) and g.legal_take_backs(1) == ()
    with pytest.raises(WrongPlayerError):
        g.take_back(1)
    with pytest.raises(IllegalActionError):
        g.take_back(0, inp("blue", "p1"))
    ev = g.take_back(0)
    assert ev[0].kind == "take_back" and g.supply(0) == 1 and blue_surface not in g.board.discs
    with pytest.raises(IllegalActionError, match="one disc"):
        g.take_back(0)
    # the shot stops on the surface next to a hanging disc: nothing fell into a pit -> red owes a neutral disc
    sc.remove(blue_surface)
    hanging = DiscState.hanging_on("blue", "p10")
    ev = g.shot(0, sc.add(hanging))
    assert [e.kind for e in ev] == ["shot", "neutral_due"] and g.is_neutral_due() and g.turn == 1
    assert "red places a neutral disc into an empty pit" in ev[-1].text
    assert "p10" not in g.legal_neutral_pits() and "p1" not in g.legal_neutral_pits()
    assert len(g.legal_neutral_pits()) == 19 - 2 - 1
    before = frozen(g)
    for act in (lambda: g.shot(1, sc.board), lambda: g.take_back(1)):
        with pytest.raises(IllegalActionError, match="neutral"):
            act()
    with pytest.raises(IllegalActionError, match="not empty"):
        g.place_neutral("p1")
    with pytest.raises(IllegalActionError, match="hanging disc covers it"):
        g.place_neutral("p10")
    with pytest.raises(IllegalActionError):
        g.place_neutral("p99")
    with pytest.raises(IllegalActionError):
        g.place_neutral("p2", color="blue")           # a player's colour is not neutral
    assert frozen(g) == before
    ev = g.place_neutral("p2")
    assert ev[0].text == "red places a neutral yellow disc into p2"
    assert g.neutral_pool()["yellow"] == 9 and not g.is_neutral_due()
    sc.add(inp("yellow", "p2"))
    assert g.status() == Status.VALID
    # red takes back its surface disc and shoots it into p3: a disc fell, no neutral disc is due --
    # but now both red discs are inside pits: end C
    red_surface = surf("red")
    g.take_back(1, red_surface)
    sc.remove(red_surface)
    ev = g.shot(1, sc.add(inp("red", "p3")))
    assert [e.kind for e in ev] == ["shot", "match_end"] and not g.is_neutral_due()
    assert g.outcome().reason == "end C: all discs of red are inside pits"
    # in p3 red is worth 5 (seat2), p19 1; blue: hanging on p10 scores nothing, p1 worth 1
    assert g.scores() == (1, 6) and g.outcome().scores == (1, 6) and g.outcome().winner == 1


def test_a_disc_falling_into_a_pit_means_no_neutral_disc():
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=2)
    sc = Scene()
    for p, d in ((0, surf("blue")), (1, surf("red")), (0, surf("blue")), (1, surf("red"))):
        g.shot(p, sc.add(d))
    g.take_back(0)
    sc.remove(surf("blue"))
    ev = g.shot(0, sc.add(inp("blue", "p4")))
    assert [e.kind for e in ev] == ["shot"] and g.turn == 1 and not g.is_neutral_due()
    assert g.legal_shooters() == () and g.legal_take_backs(1) == (surf("red"), surf("red"))


def test_a_stacking_shot_is_not_a_disc_falling_into_a_pit():
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=3)
    sc = Scene()
    for p, d in ((0, inp("blue", "p1")), (1, inp("red", "p2")), (0, surf("blue")), (1, surf("red")),
                 (0, surf("blue")), (1, surf("red"))):
        g.shot(p, sc.add(d))
    assert g.is_phase_two() and g.turn == 0
    g.take_back(0)
    sc.remove(surf("blue"))
    ev = g.shot(0, sc.add(DiscState.stacked("blue", "p2")))    # takes red's pit over, but nothing fell in
    assert [e.kind for e in ev] == ["shot", "neutral_due"] and g.is_neutral_due()
    assert g.scores() == (1 + 1, 0)                             # blue: p1 and on p2, worth 1 each from seat5


def test_end_a_every_pit_filled_by_the_last_neutral_disc():
    g = Game("contest", [BLUE, RED], GEO)
    sc = Scene()
    for i, pit in enumerate(PITS[:18]):
        g.shot(i % 2, sc.add(inp("blue" if i % 2 == 0 else "red", pit)))
    g.shot(0, sc.add(surf("blue")))
    ev = g.shot(1, sc.add(surf("red")))
    assert ev[-1].kind == "phase" and g.turn == 0
    g.take_back(0)
    ev = g.shot(0, sc.board)                        # the disc stops on the surface again
    assert ev[-1].kind == "neutral_due" and g.legal_neutral_pits() == ("p19",)
    ev = g.place_neutral("p19")
    assert ev[-1].kind == "match_end" and g.is_game_over()
    out = g.outcome()
    assert out.reason == "end A: every pit is filled"
    assert out.scores == g.scores() and out.winners == tuple(i for i in (0, 1) if out.scores[i] == max(out.scores))
    with pytest.raises(GameOverError):
        g.take_back(1)
    with pytest.raises(GameOverError):
        g.shot(1, sc.board)


def test_end_a_in_phase_one_comes_with_end_c():
    g = Game("contest", [BLUE, RED], GEO)
    sc = Scene()
    for i, pit in enumerate(PITS):
        ev = g.shot(i % 2, sc.add(inp("blue" if i % 2 == 0 else "red", pit)))
    assert g.is_game_over() and ev[-1].kind == "match_end"
    assert g.outcome().reason == "end A: every pit is filled; end C: all discs of blue are inside pits"


def test_end_b_neutral_disc_due_but_every_empty_pit_is_covered_by_a_hanging_disc():
    g = Game("contest", [BLUE, RED], GEO)
    sc = Scene()
    for i, pit in enumerate(PITS[:18]):
        g.shot(i % 2, sc.add(inp("blue" if i % 2 == 0 else "red", pit)))
    g.shot(0, sc.add(surf("blue")))
    g.shot(1, sc.add(DiscState.hanging_on("red", "p19")))
    g.take_back(0)
    ev = g.shot(0, sc.board)
    assert [e.kind for e in ev] == ["shot", "neutral_due", "match_end"]
    assert g.outcome().reason == "end B: a neutral disc is due but no pit is valid"


def test_end_c_all_discs_of_a_player_inside_pits():
    g = Game("contest", [BLUE, RED], GEO)
    sc = Scene()
    pits = iter(PITS)
    for k in range(9):
        g.shot(0, sc.add(inp("blue", next(pits))))
        g.shot(1, sc.add(surf("red")))
    assert not g.is_game_over()
    ev = g.shot(0, sc.add(DiscState.stacked("blue", "p1")))     # the 10th blue disc lands on top of p1
    assert ev[-1].kind == "match_end" and g.outcome().reason == "end C: all discs of blue are inside pits"
    assert g.outcome().winners == (0,)


def test_no_neutral_disc_in_phase_one_and_turns_skip_empty_hands():
    g = Game("contest", [BLUE, RED, YELLOW], GEO, discs_per_player=1)
    sc = Scene()
    g.shot(0, sc.add(surf("blue")))
    assert not g.is_neutral_due() and g.turn == 1
    g.shot(1, sc.add(surf("red")))
    ev = g.shot(2, sc.add(surf("yellow")))
    assert ev[-1].kind == "phase" and g.turn == 0 and not g.is_neutral_due()


def test_contest_removal_only_on_own_turn_and_back_to_the_owner():
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=3)
    sc = Scene()
    g.shot(0, sc.add(inp("blue", "p9")))
    intruder = DiscState.surface_disc("red", seat_area="seat5")
    g.shot(1, sc.add(intruder))
    with pytest.raises(WrongPlayerError):
        g.remove_to_corner(1, inp("blue", "p9"))
    assert g.legal_removals(0) == (intruder,)
    ev = g.remove_to_corner(0, intruder)
    assert ev[0].kind == "corner" and g.supply(1) == 3 and intruder not in g.board.discs
    with pytest.raises(IllegalActionError):
        g.remove_to_corner(0, intruder)               # no longer in the scene


def test_shot_must_start_from_the_shooting_line():
    g = Game("contest", [BLUE, RED], GEO)
    before = frozen(g)
    with pytest.raises(IllegalActionError, match="shooting line"):
        g.shot(0, BoardState.of(surf("blue")), from_line=False)
    assert frozen(g) == before


# ------------------------------------------------------------------------------------------- arena

def arena(**kw):
    return Game("arena", [BLUE, RED, YELLOW], GEO, **kw)


def test_arena_first_shot_by_the_starting_player_then_anyone():
    g = arena(starting_player=1)
    sc = Scene()
    assert g.legal_shooters() == (1,) and g.turn is None
    with pytest.raises(WrongPlayerError):
        g.shot(0, sc.add(surf("blue")))
    sc.discs.clear()
    g.shot(1, sc.add(inp("red", "p1")))
    assert g.legal_shooters() == (0, 1, 2)
    ev = g.shot((0, 2), sc.add(inp("blue", "p2"), surf("yellow")))  # two shots settled together
    assert [e.kind for e in ev] == ["shot", "shot"]
    assert (g.supply(0), g.supply(1), g.supply(2)) == (9, 9, 9)
    ev = g.shot(2, sc.add(inp("yellow", "p3")))
    assert g.supply(2) == 8


def test_arena_observe_attributes_discs_by_colour():
    g = arena()
    sc = Scene()
    g.shot(0, sc.add(inp("blue", "p1")))
    ev = g.observe(sc.add(inp("blue", "p2"), surf("blue"), inp("yellow", "p19")))
    assert sorted(e.player for e in ev if e.kind == "shot") == [0, 0, 2]
    assert (g.supply(0), g.supply(1), g.supply(2)) == (7, 10, 9)
    assert g.observe(sc.board) == []
    before = frozen(g)
    with pytest.raises(NeedsConfirmation):
        g.observe(sc.add(*[surf("red")] * 11))
    assert frozen(g) == before


def test_arena_take_back_only_when_out_of_discs_one_at_a_time_not_from_a_pit():
    g = arena(discs_per_player=2)
    sc = Scene()
    g.shot(0, sc.add(inp("blue", "p1")))
    loose = surf("blue")
    with pytest.raises(IllegalActionError, match="outside the board"):
        g.take_back(0)
    g.shot(0, sc.add(loose))
    with pytest.raises(IllegalActionError, match="has no disc outside the board to shoot"):
        g.shot(0, sc.board)
    assert g.legal_take_backs(0) == (loose,)
    with pytest.raises(IllegalActionError):
        g.take_back(0, inp("blue", "p1"))
    g.take_back(0, loose)                             # any time in Phase I, no turns
    with pytest.raises(IllegalActionError):
        g.take_back(0)
    sc.remove(loose)
    g.shot(0, sc.add(DiscState.hanging_on("blue", "p2")))
    assert g.legal_take_backs(0) == (DiscState.hanging_on("blue", "p2"),)


def test_arena_phase_one_removal_to_a_corner_returns_the_disc_to_its_owner():
    g = arena()
    sc = Scene()
    g.shot(0, sc.add(surf("blue")))
    in_my_area = DiscState.surface_disc("red", seat_area="seat5")
    on_my_line = DiscState.surface_disc("yellow", touches_line="seat5")
    elsewhere = DiscState.surface_disc("yellow", seat_area="seat2")
    g.shot((1, 2, 2), sc.add(in_my_area, on_my_line, elsewhere))
    assert set(g.legal_removals(0)) == {in_my_area, on_my_line}
    with pytest.raises(IllegalActionError):
        g.remove_to_corner(0, elsewhere)
    with pytest.raises(IllegalActionError):
        g.remove_to_corner(0, surf("blue"))           # one's own disc: take it back instead
    g.remove_to_corner(0, in_my_area)
    ev = g.remove_to_corner(0, on_my_line)            # no turns in Phase I
    assert ev[0].kind == "corner" and (g.supply(1), g.supply(2)) == (10, 9)


def fill_arena_board(g, sc):
    """Blue starts on the surface; pits p1..p19 filled blue, red, yellow in turn; extra discs around."""
    g.shot(0, sc.add(surf("blue")))
    g.shot(1, sc.add(DiscState.hanging_on("red", "p19")))
    colors = ("blue", "red", "yellow")
    ev = []
    for i, pit in enumerate(PITS):
        if pit == "p10":
            g.shot(2, sc.add(surf("yellow", seat_area="seat5")))
        if pit == "p12":
            g.shot(1, sc.add(DiscState.stacked("red", "p1")))
        ev = g.shot(i % 3, sc.add(inp(colors[i % 3], pit)))
    return ev


def test_arena_phase_two_begins_when_every_pit_is_filled_and_discs_not_in_pits_are_gathered():
    g = arena()
    sc = Scene()
    ev = fill_arena_board(g, sc)
    assert [e.kind for e in ev] == ["shot", "phase", "gather", "gather", "gather"]
    assert ev[1].text == "every pit is filled: Phase II begins"
    # in pits: blue 7 (p1, p4, ...), red 6 + 1 stacked on p1, yellow 6; gathered: the rest
    assert (g.supply(0), g.supply(1), g.supply(2)) == (3, 3, 4)
    assert ev[2].text == "blue gathers 1 disc(s) not in pits: 3 to shoot in Phase II"     # + 2 never shot
    assert all(d.state in ("in_pit", "stacked") for d in g.board.discs) and len(g.board) == 20
    assert g.phase is Phase.PHASE_II and g.turn == 0 and g.legal_shooters() == (0,)
    assert g.status() == Status.VALID


def test_arena_phase_two_turns_removals_out_of_the_game_and_the_end():
    g = arena()
    sc = Scene()
    fill_arena_board(g, sc)
    sc.discs = list(g.board.discs)
    with pytest.raises(WrongPlayerError):
        g.shot(1, sc.board)
    with pytest.raises(IllegalActionError):
        g.take_back(0)                                  # no take-backs in Arena Phase II
    g.shot(0, sc.add(DiscState.stacked("blue", "p2")))
    assert g.turn == 1
    g.shot(1, sc.add(surf("red")))
    obstacle = DiscState.surface_disc("yellow", touches_line="seat2")   # yellow's shot stops on red's line
    g.shot(2, sc.add(obstacle))
    assert g.turn == 0 and g.legal_removals(1) == ()
    with pytest.raises(WrongPlayerError):
        g.remove_to_corner(1, obstacle)                 # only on one's own turn outside Arena Phase I
    g.shot(0, sc.add(surf("blue")))
    assert g.turn == 1 and g.legal_removals(1) == (obstacle,)
    ev = g.remove_to_corner(1, obstacle)
    assert ev[0].kind == "out_of_game" and g.out_of_game(2) == 1
    assert (g.supply(0), g.supply(1), g.supply(2)) == (1, 2, 3)
    sc.remove(obstacle)
    assert g.status() == Status.VALID
    shooters = []
    while not g.is_game_over():
        p = g.turn
        shooters.append(p)
        ev = g.shot(p, sc.add(surf(("blue", "red", "yellow")[p])))
    assert shooters == [1, 2, 0, 1, 2, 2]               # players without discs are skipped
    assert ev[-1].kind == "match_end"
    assert g.outcome().reason == "every player has shot all their discs in Phase II"
    assert g.score().formation_points == (0, 0, 0)      # formations are off by default in Arena mode


def test_arena_with_formations():
    g = arena(formations=True)
    sc = Scene()
    g.shot(0, sc.add(inp("blue", "p1")))
    g.shot((0, 0), sc.add(inp("blue", "p2"), inp("blue", "p5")))
    assert g.score().formation_points == (1, 0, 0)


# ------------------------------------------------------------------------------- status and declare

def test_status_flags_odd_scenes():
    g = Game("contest", [BLUE, RED], GEO)
    assert g.status() == Status.VALID
    g.shot(0, BoardState.of(inp("blue", "p1"), surf("blue")))
    assert g.status() == Status.DISC_COUNT_MISMATCH          # two blue discs, one shot
    g.shot(1, BoardState.of(inp("blue", "p1"), DiscState.stacked("red", "p2")))
    assert g.status() == Status.STACK_ON_EMPTY_PIT
    g.shot(0, BoardState.of(inp("blue", "p1"), inp("red", "p1"), inp("blue", "p2")))
    assert g.status() == Status.PIT_OVERFULL
    g.shot(1, BoardState.of(inp("blue", "p1"), inp("red", "p2"), inp("blue", "p2")))
    assert g.status() == Status.PIT_OVERFULL | Status.DISC_MISSING   # and a red disc flew off
    g.shot(0, BoardState.of(inp("blue", "p1"), inp("blue", "p2"), inp("blue", "p5"), inp("red", "p42"),
                            inp("red", "p3"), inp("white", "p4"), surf("purple")))
    assert g.status() == Status.UNKNOWN_PIT | Status.DISC_COUNT_MISMATCH | Status.UNKNOWN_COLOR
    a = arena()
    a.shot(0, BoardState.of(surf("blue"), inp("white", "p1")))
    assert a.status() == Status.NEUTRAL_IN_ARENA | Status.DISC_COUNT_MISMATCH


def test_vision_pit_names_with_a_tile_prefix_are_accepted():
    g = Game("contest", [BLUE, RED], GEO)
    g.shot(0, BoardState.of(DiscState.in_pit("blue", "board/p7")))
    assert g.board.is_filled("p7") and g.status() == Status.VALID and g.scores() == (2, 0)


def test_declare_a_disc_that_flew_off_and_was_found():
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=2)
    g.shot(0, BoardState())                                   # blue's disc flew off the board
    assert g.status() == Status.DISC_MISSING and g.supply(0) == 1
    with pytest.raises(IllegalActionError, match="no red disc is missing"):
        g.declare("found a red one", found="red")
    ev = g.declare("blue disc found under the table", found="blue", player=0)
    assert ev[0].kind == "declared" and ev[0].text == "declared: blue disc found under the table"
    assert ev[1].kind == "corner" and g.supply(0) == 2 and g.status() == Status.VALID
    assert g.history[-2:] == tuple(ev)
    with pytest.raises(IllegalActionError):
        g.declare("")


def test_declare_in_arena_phase_two_puts_the_found_disc_out_of_the_game():
    g = arena()
    sc = Scene()
    fill_arena_board(g, sc)
    sc.discs = list(g.board.discs)
    g.shot(0, sc.board)                                       # blue's disc flies off
    ev = g.declare("found it", found="blue")
    assert ev[-1].kind == "out_of_game" and g.out_of_game(0) == 1


def test_declare_a_corrected_scene_and_whether_a_neutral_disc_is_due():
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=2)
    sc = Scene()
    for p, d in ((0, surf("blue")), (1, DiscState.hanging_on("red", "p3")), (0, surf("blue")), (1, surf("red"))):
        g.shot(p, sc.add(d))
    g.take_back(0)
    sc.remove(surf("blue"))
    ev = g.shot(0, sc.add(DiscState.hanging_on("blue", "p1")))
    assert g.is_neutral_due()
    # a person looks closer: blue's disc did fall into p1
    ev = g.declare("blue is inside p1", board=sc.replace(DiscState.hanging_on("blue", "p1"), inp("blue", "p1")),
                   neutral_due=False)
    assert [e.kind for e in ev] == ["declared", "neutral_cancelled"]
    assert not g.is_neutral_due() and g.board.is_filled("p1") and g.turn == 1
    ev = g.declare("on second thoughts, it is due", neutral_due=True)
    assert g.is_neutral_due() and ev[-1].kind == "neutral_due"
    with pytest.raises(IllegalActionError):
        arena().declare("x", neutral_due=True)


def test_illegal_player_index():
    g = Game("contest", [BLUE, RED], GEO)
    with pytest.raises(IllegalActionError):
        g.shot(5, BoardState())
    with pytest.raises(IllegalActionError):
        g.shot((0, 1), BoardState())                          # simultaneous shots only in Arena Phase I


# ------------------------------------------------------------------------------------------- series

def finished_game(blue_pits, red_pits):
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=len(blue_pits))
    sc = Scene()
    for b, r in zip(blue_pits, red_pits):
        if not g.is_game_over():
            g.shot(0, sc.add(inp("blue", b)))
        if not g.is_game_over():
            g.shot(1, sc.add(inp("red", r) if r else surf("red")))
    assert g.is_game_over()
    return g


def test_series_totals_over_five_matches():
    s = Series(["blue", "red"])
    assert s.outcome() is None and s.planned == 5
    g = finished_game(["p17"], [None])                        # blue 5, red 0: end C
    assert g.outcome().scores == (5, 0)
    ev = s.add(g)
    assert [e.text for e in ev] == ["match 1: blue 5 (total 5)", "match 1: red 0 (total 0)"]
    s.add((3, 7))
    s.add(g.outcome())
    s.add([0, 4])
    assert not s.is_complete() and s.outcome() is None
    s.add([1, 0])
    assert s.totals() == (14, 11) and s.is_complete()
    assert s.outcome().winners == (0,) and s.outcome().reason == "total after 5 matches"
    with pytest.raises(GameOverError):
        s.add([1, 1])
    assert g.outcome().winner == 0


def test_series_maps_players_by_name_and_rejects_unfinished_matches():
    s = Series(["red", "blue"], matches=2)
    s.add(finished_game(["p17"], [None]))
    assert s.totals() == (0, 5)
    with pytest.raises(IllegalActionError):
        s.add(Game("contest", [BLUE, RED], GEO))
    with pytest.raises(SetupError):
        s.add([1, 2, 3])
    with pytest.raises(SetupError):
        Series(["red", "red"])
    s.add([5, 0])
    assert s.outcome().is_tie and s.outcome().winners == (0, 1)


# ------------------------------------------------------------------------------------ more edges

def test_end_b_when_no_neutral_disc_is_left():
    # four players with red, blue, yellow, green: only white (6) and black (5) are neutral
    players = [Player("red", "seat1"), Player("blue", "seat2"), Player("yellow", "seat3"), Player("green", "seat4")]
    g = Game("contest", players, GEO)
    assert g.neutral_pool() == {"white": 6, "black": 5}
    sc = Scene()
    for k in range(20):
        g.shot(k % 4, sc.add(surf(players[k % 4].color)))
    assert g.is_phase_two()
    placed = []
    while not g.is_game_over():
        p = g.turn
        g.take_back(p)
        ev = g.shot(p, sc.board)                      # nothing ever falls into a pit
        if g.is_neutral_due():
            pit = g.legal_neutral_pits()[0]
            ev = g.place_neutral(pit)
            sc.add(inp(ev[0].data["color"], pit))
            placed.append(ev[0].data["color"])
    assert Counter(placed) == {"white": 6, "black": 5} and placed[:2] == ["white", "white"]
    assert g.outcome().reason == "end B: a neutral disc is due but none is left"
    assert g.outcome().scores == (0, 0, 0, 0) and g.outcome().is_tie


def test_arena_phase_one_ends_when_nobody_can_shoot():
    g = arena(discs_per_player=1)
    g.shot(0, BoardState.of(inp("blue", "p1")))
    ev = g.shot((1, 2), BoardState.of(inp("blue", "p1"), inp("red", "p2"), inp("yellow", "p3")))
    assert [e.kind for e in ev][-5:] == ["phase", "gather", "gather", "gather", "match_end"]
    assert ev[2].text == "nobody can shoot any more: Phase II begins"
    assert g.outcome().reason == "nobody has a disc to shoot in Phase II"


def test_generate_legal_actions():
    g = Game("contest", [BLUE, RED], GEO, discs_per_player=1)
    assert list(g.generate_legal_actions()) == [("shot", 0)]
    g.shot(0, BoardState.of(surf("blue")))
    obstacle = DiscState.surface_disc("red", touches_line="seat5")
    g.shot(1, BoardState.of(surf("blue"), obstacle))
    assert list(g.generate_legal_actions()) == [("take_back", 0, surf("blue")), ("remove_to_corner", 0, obstacle)]
    g.take_back(0)
    g.shot(0, BoardState.of(surf("blue"), obstacle))
    acts = list(g.generate_legal_actions())
    assert len(acts) == 19 and all(a[0] == "place_neutral" for a in acts)


def test_module_docstring_example_is_true():
    import doctest

    import rules.pitrush

    res = doctest.testmod(rules.pitrush)
    assert res.attempted >= 8 and res.failed == 0
