"""Tracking pieces from shot to shot (vision.track), on judgements built by hand."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections
from vision.judgement import Judgement
from vision.track import Tracker, TrackResult

PIT = "t1/p1"
DISC_R, DISC_H, PIT_DEPTH = 12.0, 6.0, 8.0


def _circle(x: float, y: float, r: float = DISC_R, n: int = 24) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack([x + r * np.cos(a), y + r * np.sin(a)])


def _piece(color, x, y, state="surface", pit=None, kind="disc", base=None, r=DISC_R):
    if base is None:
        base = {"in_pit": -PIT_DEPTH, "stacked": -PIT_DEPTH + DISC_H}.get(state, 0.0)
    return {"kind": kind, "color": color, "x": x, "y": y, "state": state, "pit": pit, "base": base, "r": r}


def _judgement(pieces: list[dict]) -> Judgement:
    """A judgement as the detector would give it, built from (kind, colour, centre, state, pit)."""
    if not pieces:
        return Judgement.empty()
    det = Detections(kind=[p["kind"] for p in pieces], color=[p["color"] for p in pieces],
                     center_px=[[p["x"] / 2, p["y"] / 2] for p in pieces],
                     center_mm=[[p["x"], p["y"]] for p in pieces],
                     footprint_mm=[_circle(p["x"], p["y"], p["r"]) for p in pieces],
                     height_mm=[DISC_H] * len(pieces), base_mm=[p["base"] for p in pieces])
    n = len(pieces)
    return Judgement(det, outbound=[p["state"] in ("off_board", "on_piece") for p in pieces], zones=[()] * n,
                     pit=[p["pit"] for p in pieces], state=[p["state"] for p in pieces], space=[None] * n,
                     margin_mm=[5.0] * n, confidence=[0.9] * n, review=[False] * n,
                     reasons=[f"{p['state']} (by hand)" for p in pieces])


def _id_at(res: TrackResult, x: float, y: float, tol: float = 3.0) -> int:
    d = np.linalg.norm(res.detections.center_mm - [x, y], axis=1)
    i = int(np.argmin(d))
    assert d[i] < tol
    return int(res.detections.track_id[i])


def test_first_update_assigns_ids():
    tr = Tracker()
    res = tr.update(_judgement([_piece("red", 0, 0), _piece("green", 100, 0)]), t=1.0)
    assert sorted(res.detections.track_id) == [1, 2]
    assert res.appeared == (1, 2)
    assert res.moved == res.knocked == res.vanished == () and res.shot is None
    assert res.sentences[0].startswith("first view: 2 piece(s)")


def test_shot_knocks_another():
    tr = Tracker()
    before = [_piece("red", 0, 0), _piece("green", 100, 0), _piece("blue", 300, 300), _piece("green", 100, 200)]
    r0 = tr.update(_judgement(before), t=1.0)
    red, green, blue, green2 = (_id_at(r0, x, y) for x, y in [(0, 0), (100, 0), (300, 300), (100, 200)])
    after = [_piece("green", 100.4, 200.3),            # jitter, not a move
             _piece("blue", 300.5, 299.6),
             _piece("green", 151.0, 12.0),              # knocked 52 mm
             _piece("red", 76.0, 0.5)]                  # shot 76 mm, stopped where green was hit
    res = tr.update(_judgement(after), t=5.0)
    assert _id_at(res, 76, 0.5) == red and _id_at(res, 151, 12) == green
    assert _id_at(res, 100.4, 200.3) == green2 and _id_at(res, 300.5, 299.6) == blue
    assert res.shot == red
    assert res.moved == (red, green)
    assert res.knocked == (green,)
    assert res.appeared == res.vanished == res.covered == res.removed == ()
    assert res.displacement_mm[red] == pytest.approx(76.0, abs=0.1)
    assert any(s.startswith(f"track {red} (disc/red) was shot: moved 76.0 mm") for s in res.sentences)
    assert any(s.startswith(f"track {green} (disc/green) was knocked: moved") for s in res.sentences)
    # rows come back in the input's order, one per piece
    assert list(res.detections.color) == ["green", "blue", "green", "red"]


def test_shot_hint_wins_over_the_farthest_mover():
    tr = Tracker()
    tr.update(_judgement([_piece("red", 0, 0), _piece("green", 100, 0)]), t=0.0)
    res = tr.update(_judgement([_piece("red", 60, 0), _piece("green", 200, 0)]), t=1.0, shot_hint=1)
    assert res.shot == 1 and res.knocked == (2,)
    with pytest.raises(ValueError, match="not a current track"):
        tr.update(_judgement([_piece("red", 60, 0)]), t=2.0, shot_hint=99)


def test_fewest_moves_explain_a_shot_of_same_coloured_pieces():
    """Two green discs in a row, the first shot past the second: no swap of identities."""
    tr = Tracker()
    tr.update(_judgement([_piece("green", 0, 0), _piece("green", 60, 0)]), t=0.0)
    res = tr.update(_judgement([_piece("green", 60, 0), _piece("green", 100, 0)]), t=1.0)
    assert _id_at(res, 60, 0) == 2 and _id_at(res, 100, 0) == 1
    assert res.moved == (1,) and res.shot == 1 and res.knocked == ()


def test_colours_never_match():
    tr = Tracker()
    tr.update(_judgement([_piece("red", 0, 0)]), t=0.0)
    res = tr.update(_judgement([_piece("green", 0.5, 0)]), t=1.0)
    assert res.appeared == (2,) and res.removed == (1,)


def test_disc_covered_by_a_stacked_disc_is_kept():
    tr = Tracker()
    r0 = tr.update(_judgement([_piece("red", 50, 50, "in_pit", PIT), _piece("green", 150, 50),
                               _piece("yellow", 250, 250)]), t=0.0)
    red, green = _id_at(r0, 50, 50), _id_at(r0, 150, 50)
    # the green disc is shot onto the red one in the pit: only green is seen, and the detector,
    # seeing one disc over the pit, calls it in the pit
    res = tr.update(_judgement([_piece("yellow", 250, 250), _piece("green", 50.8, 49.5, "in_pit", PIT)]), t=3.0)
    assert res.shot == green and res.moved == (green,)
    assert res.vanished == (red,) and res.covered == (red,) and res.removed == ()
    assert res.hidden == (red,) and res.corrected == (green,)
    i_red, i_green = res.row_of(red), res.row_of(green)
    jud = res.judgement
    assert len(jud) == 3 and i_red == 2  # the hidden disc comes after the pieces seen
    assert jud.state[i_red] == "in_pit" and jud.pit[i_red] == PIT and jud.detections.color[i_red] == "red"
    assert jud.state[i_green] == "stacked" and jud.pit[i_green] == PIT
    assert jud.detections.base_mm[i_green] == pytest.approx(-PIT_DEPTH + DISC_H)
    assert jud.detections.base_mm[i_red] == pytest.approx(-PIT_DEPTH)
    assert "covered under track" in jud.reasons[i_red]
    assert any("covered, kept as in pit t1/p1" in s for s in res.sentences)
    # next shot: nothing changes over the pit; the red disc is still there, hidden, same ids
    res2 = tr.update(_judgement([_piece("green", 50.3, 50.2, "in_pit", PIT), _piece("yellow", 300, 250)]), t=6.0)
    assert res2.hidden == (red,) and res2.covered == res2.removed == ()
    assert res2.moved == (3,) and res2.shot == 3
    assert res2.judgement.state[res2.row_of(green)] == "stacked"
    assert any(f"track {red} (disc/red) is still hidden under track {green}" in s for s in res2.sentences)
    # the green disc is knocked away: the red one is seen again, with its old id
    res3 = tr.update(_judgement([_piece("green", 130, 60), _piece("yellow", 300, 250),
                                 _piece("red", 50.2, 49.9, "in_pit", PIT)]), t=9.0)
    assert _id_at(res3, 50.2, 49.9) == red and res3.uncovered == (red,)
    assert res3.hidden == () and res3.moved == (green,)


def test_detector_saying_stacked_needs_no_correction():
    tr = Tracker()
    tr.update(_judgement([_piece("red", 50, 50, "in_pit", PIT), _piece("green", 150, 50)]), t=0.0)
    res = tr.update(_judgement([_piece("green", 50.5, 50, "stacked", PIT)]), t=1.0)
    assert res.covered == (1,) and res.corrected == ()
    assert res.judgement.detections.base_mm[res.row_of(2)] == pytest.approx(-PIT_DEPTH + DISC_H)


def test_disc_knocked_into_a_pit_under_the_shooter():
    """A disc hanging on a pit's edge is knocked in and the shooter lands on it."""
    tr = Tracker()
    tr.update(_judgement([_piece("red", 62, 50, "hanging", PIT), _piece("green", 180, 50)]), t=0.0)
    res = tr.update(_judgement([_piece("green", 50, 50, "in_pit", PIT)]), t=1.0)
    assert res.covered == (1,) and res.shot == 2 and res.knocked == (1,)
    row = res.row_of(1)
    assert res.judgement.state[row] == "in_pit"
    assert res.judgement.detections.center_mm[row] == pytest.approx([50, 50])
    assert res.judgement.detections.base_mm[row] == pytest.approx(-PIT_DEPTH)
    assert res.judgement.state[res.row_of(2)] == "stacked"


def test_one_disc_per_pit_a_hidden_one_lies_between():
    """A hanging disc knocked in under the shooter while another disc is seen in the pit: it is stacked."""
    tr = Tracker()
    tr.update(_judgement([_piece("yellow", 49, 50, "in_pit", PIT), _piece("red", 62, 50, "hanging", PIT),
                          _piece("green", 180, 50)]), t=0.0)
    res = tr.update(_judgement([_piece("yellow", 49, 50, "in_pit", PIT),
                                _piece("green", 52, 50, "stacked", PIT, base=-PIT_DEPTH + 2 * DISC_H)]), t=1.0)
    assert res.covered == (2,) and res.shot == 3
    assert res.judgement.state[res.row_of(2)] == "stacked"
    assert list(res.judgement.state).count("in_pit") == 1


def test_piece_covered_by_a_piece_on_top_pitch_fleet():
    tr = Tracker()
    tr.update(_judgement([_piece("white", 0, 0, kind="ship", r=20), _piece("blue", 200, 0, kind="ship", r=15)]),
              t=0.0)
    res = tr.update(_judgement([_piece("blue", 3, 2, "on_piece", kind="ship", base=DISC_H, r=15)]), t=1.0)
    assert res.covered == (1,) and res.removed == ()
    assert res.judgement.state[res.row_of(1)] == "surface"  # it stays where it was, under the other
    assert res.judgement.detections.center_mm[res.row_of(1)] == pytest.approx([0, 0])


def test_piece_removed():
    tr = Tracker()
    tr.update(_judgement([_piece("red", 0, 0), _piece("green", 100, 0), _piece("blue", 200, 100)]), t=0.0)
    res = tr.update(_judgement([_piece("green", 100, 0.5), _piece("blue", 200, 100)]), t=1.0)
    assert res.vanished == (1,) and res.removed == (1,) and res.covered == ()
    assert res.moved == () and res.shot == 1  # nothing moved, one piece gone: it flew off
    assert res.row_of(1) is None and len(res.judgement) == 2
    assert 1 not in tr.tracks and 1 in tr.removed
    assert any("removed (off the table" in s for s in res.sentences)
    # a red disc put back elsewhere is a new piece
    res2 = tr.update(_judgement([_piece("green", 100, 0.5), _piece("blue", 200, 100), _piece("red", 0, 60)]), t=2.0)
    assert res2.appeared == (4,) and res2.returned == ()


def test_piece_missed_once_gets_its_id_back():
    tr = Tracker()
    tr.update(_judgement([_piece("red", 0, 0), _piece("green", 100, 0)]), t=0.0)
    res = tr.update(_judgement([_piece("green", 100, 0)]), t=1.0)  # the detector missed the red disc
    assert res.removed == (1,)
    res = tr.update(_judgement([_piece("green", 100, 0), _piece("red", 0.6, 0.3)]), t=2.0)
    assert res.returned == (1,) and res.appeared == () and res.moved == ()
    assert res.detections.track_id.tolist() == [2, 1] and 1 in tr.tracks and not tr.removed
    assert any("seen again at (0.6, 0.3) mm, where it vanished" in s for s in res.sentences)


def test_ids_stable_across_three_updates():
    rng = np.random.default_rng(7)
    tr = Tracker()
    layout = {"a": ("red", 0, 0), "b": ("red", 40, 0), "c": ("green", 40, 40), "d": ("green", 80, 40),
              "e": ("blue", 300, 100), "f": ("red", 200, 200)}
    ids: dict[str, int] = {}
    for step in range(3):
        if step == 2:  # shot: f moves 90 mm, next to the other reds
            layout["f"] = ("red", 110, 30)
        names = list(layout)
        rng.shuffle(names)
        pieces = [_piece(layout[k][0], layout[k][1] + rng.normal(0, 0.4), layout[k][2] + rng.normal(0, 0.4))
                  for k in names]
        res = tr.update(_judgement(pieces), t=float(step))
        got = {k: int(res.detections.track_id[i]) for i, k in enumerate(names)}
        if step == 0:
            ids = got
            assert sorted(ids.values()) == list(range(1, 7))
        else:
            assert got == ids
        assert res.appeared == (() if step else tuple(range(1, 7)))
        assert res.vanished == ()
    assert res.moved == (ids["f"],) and res.shot == ids["f"]


def test_unknown_colour_takes_the_tracks_colour():
    tr = Tracker()
    tr.update(_judgement([_piece("red", 0, 0)]), t=0.0)
    res = tr.update(_judgement([_piece("unknown", 0.5, 0)]), t=1.0)
    assert res.detections.track_id[0] == 1 and res.detections.color[0] == "red"


def test_a_disc_of_unknown_colour_is_the_one_that_lay_there_not_one_from_afar():
    """PitRush bench scene 7018: a black disc lay in pit p3, a white one in p7.  Then a yellow disc
    came to lie on the black one and a black one on it, and a blue one on the white one.  The
    detector saw at p3 the yellow and black discs over a disc of unknown colour, and at p7 a blue
    disc alone.  With nothing but the colours to go by, the unknown disc was the white one, shot
    70 mm into p3, and the black one knocked onto the stack.  It is the black one, where it lay; the
    white one is hidden under the blue one, which lies on it."""
    p3, p7 = "t1/p3", "t1/p7"
    tr = Tracker()
    tr.update(_judgement([_piece("black", 247.3, 149.4, "in_pit", p3), _piece("white", 316.6, 161.9, "in_pit", p7)]),
              t=0.0)
    res = tr.update(_judgement([_piece("yellow", 252.5, 149.2, "stacked", p3),
                                _piece("unknown", 247.4, 150.3, "in_pit", p3),
                                _piece("black", 240.5, 151.1, "stacked", p3),
                                _piece("blue", 315.0, 162.1, "in_pit", p7)]), t=1.0)
    j = res.judgement
    assert _id_at(res, 247.4, 150.3) == 1 and j.detections.color[1] == "black"
    assert res.moved == () and res.covered == (2,)
    assert j.state[3] == "stacked" and res.corrected == (_id_at(res, 315.0, 162.1),)
    white = res.row_of(2)
    assert white is not None and j.state[white] == "in_pit" and j.pit[white] == p7
    assert "(disc/blue, stacked t1/p7)" in j.reasons[white]  # the piece over it as finally judged


def test_a_disc_under_a_stack_does_not_come_out_on_top():
    """PitRush bench scene 7023: a red disc in a pit, a blue one stacked on it, then a green one on
    the blue one.  The detector sees the red crescent in the pit and the green disc stacked; the
    blue one is hidden under the green one, not under the red one (the red one lay under it)."""
    tr = Tracker()
    tr.update(_judgement([_piece("red", 50, 50, "in_pit", PIT), _piece("blue", 49, 48, "stacked", PIT)]), t=0.0)
    res = tr.update(_judgement([_piece("red", 50.5, 50.5, "in_pit", PIT), _piece("green", 48, 47, "stacked", PIT)]),
                    t=1.0)
    j = res.judgement
    red, green, blue = res.row_of(1), res.row_of(3), res.row_of(2)
    assert res.covered == (2,) and "under track 3 (disc/green" in j.reasons[blue]
    assert j.state[red] == "in_pit" and res.corrected == ()
    # the green disc lies on the blue one, which lay one disc over the pit's floor
    assert j.detections.base_mm[green] == pytest.approx(-PIT_DEPTH + 2 * DISC_H)
    assert j.detections.base_mm[blue] == pytest.approx(-PIT_DEPTH + DISC_H)


def test_a_hidden_disc_is_seen_again_where_it_lay_or_not_at_all():
    """PitRush bench scene 7013: a black disc hidden under a red one in one pit; another black disc
    lands in a pit 185 mm away.  It is a new disc, not the hidden one shot from under the red one."""
    far = "t1/p2"
    tr = Tracker()
    tr.update(_judgement([_piece("black", 50, 50, "in_pit", PIT), _piece("green", 240, 50, "in_pit", far)]), t=0.0)
    r1 = tr.update(_judgement([_piece("red", 50.5, 50, "in_pit", PIT), _piece("green", 240, 50, "in_pit", far)]), t=1.0)
    assert r1.covered == (1,)
    res = tr.update(_judgement([_piece("red", 50.5, 50, "stacked", PIT), _piece("green", 240, 50, "in_pit", far),
                                _piece("black", 236, 52, "stacked", far)]), t=2.0)
    assert res.moved == () and res.appeared == (4,) and res.hidden == (1,)
    assert _id_at(res, 236, 52) == 4
    hidden = res.row_of(1)
    assert res.judgement.pit[hidden] == PIT and res.judgement.state[hidden] == "in_pit"


def test_a_disc_in_a_pit_stays_under_one_of_its_colour_that_came_after():
    """PitRush bench scene 7021: two black discs in one pit, the second on the first.  The detector
    sees the one that lay there (it did not move) as stacked and the newcomer as in the pit; the
    one that lay there stays in it, and the newcomer lies on it."""
    tr = Tracker()
    tr.update(_judgement([_piece("black", 50, 50, "in_pit", PIT)]), t=0.0)
    res = tr.update(_judgement([_piece("black", 50.4, 50.5, "stacked", PIT), _piece("black", 48, 46, "in_pit", PIT)]),
                    t=1.0)
    j = res.judgement
    assert _id_at(res, 50.4, 50.5) == 1 and res.moved == () and res.appeared == (2,)
    assert j.state[res.row_of(1)] == "in_pit" and j.detections.base_mm[res.row_of(1)] == pytest.approx(-PIT_DEPTH)
    assert j.state[res.row_of(2)] == "stacked"
    assert any("lay in t1/p1 and lies there still" in s for s in res.sentences)


def test_a_disc_inferred_hidden_in_a_pit_is_the_one_that_lay_in_it():
    """PitRush bench scene 7026: a blue disc in a pit, a yellow one on it; then a blue one on the
    yellow one.  The detector sees the top blue one and infers a disc of unknown colour in the pit.
    That disc is the blue one that lay there (not the yellow one, which lay over it), and the
    yellow one is hidden under the newcomer."""
    tr = Tracker()
    tr.update(_judgement([_piece("blue", 50, 50, "in_pit", PIT), _piece("yellow", 51.3, 53.7, "stacked", PIT)]), t=0.0)
    res = tr.update(_judgement([_piece("blue", 49.8, 54.7, "stacked", PIT),
                                _piece("unknown", 48.6, 51.9, "in_pit", PIT)]), t=1.0)
    j = res.judgement
    assert _id_at(res, 48.6, 51.9) == 1 and j.detections.color[res.row_of(1)] == "blue"
    assert res.appeared == (3,) and res.covered == (2,)
    assert j.state[res.row_of(3)] == "stacked"
    assert j.detections.base_mm[res.row_of(3)] == pytest.approx(-PIT_DEPTH + 2 * DISC_H)


def test_a_disc_found_higher_is_posed_again_along_its_view_ray():
    """With the camera, a disc the tracker raises (it lies on a hidden one) keeps its top face where
    the photo shows it: its centre moves along the view ray, and its image centre is its footprint's."""
    from calibration.camera import CameraModel, Intrinsics, Pose

    cam = CameraModel(Intrinsics.from_fov((1280, 720), 70, [0.0] * 5), Pose.look_at([300, 300, -800], [0, 0, 0]))
    tr = Tracker(camera=cam)
    tr.update(_judgement([_piece("red", 50, 50, "in_pit", PIT)]), t=0.0)
    res = tr.update(_judgement([_piece("green", 50.8, 49.5, "in_pit", PIT)]), t=1.0)
    d = res.detections
    g = res.row_of(2)
    assert d.base_mm[g] == pytest.approx(-PIT_DEPTH + DISC_H)
    top_before = cam.project_plane(np.array([[50.8, 49.5]]), -PIT_DEPTH + DISC_H)
    top_after = cam.project_plane(d.center_mm[g:g + 1], d.base_mm[g] + DISC_H)
    assert top_after == pytest.approx(top_before, abs=1e-6)
    assert np.linalg.norm(d.center_mm[g] - [50.8, 49.5]) > 1.0  # seen from aside, 6 mm higher is not the same place
    assert d.center_px[g] == pytest.approx(cam.project_plane(d.center_mm[g:g + 1], d.base_mm[g])[0], abs=1e-6)
    assert np.mean(d.footprint_mm[g], axis=0) == pytest.approx(d.center_mm[g], abs=1e-6)


def test_a_disc_in_a_pit_read_dark_under_a_stack_is_the_one_that_lay_there():
    """PitRush bench scene 7240: a blue disc in a pit, then a green one lands right on it.  The
    detector sees the green one stacked and, in its shadow, a black one in the pit: that is the blue
    one, not a new disc (nothing gets under a disc in a pit).  A colour read neither dark nor as the
    disc over it is believed (scene 7018: the disc that lay there had been read wrong before)."""
    tr = Tracker()
    tr.update(_judgement([_piece("blue", 50, 50, "in_pit", PIT)]), t=0.0)
    res = tr.update(_judgement([_piece("black", 50.1, 49.8, "in_pit", PIT),
                                _piece("green", 50.6, 47.7, "stacked", PIT)]), t=1.0)
    j = res.judgement
    assert _id_at(res, 50.1, 49.8) == 1 and j.detections.color[res.row_of(1)] == "blue"
    assert res.appeared == (2,) and res.vanished == () and len(j) == 2
    assert "read black in its shadow" in " ".join(res.sentences)

    tr = Tracker()
    tr.update(_judgement([_piece("white", 50, 50, "in_pit", PIT)]), t=0.0)
    res = tr.update(_judgement([_piece("blue", 50.1, 49.8, "in_pit", PIT),
                                _piece("green", 50.6, 47.7, "stacked", PIT)]), t=1.0)
    assert _id_at(res, 50.1, 49.8) == 2 and res.covered == (1,)


def test_empty_scenes():
    tr = Tracker()
    res = tr.update(Judgement.empty(), t=0.0)
    assert len(res.judgement) == 0 and res.appeared == ()
    res = tr.update(_judgement([_piece("red", 0, 0)]), t=1.0)
    assert res.appeared == (1,)
    res = tr.update(Judgement.empty(), t=2.0)
    assert res.removed == (1,) and res.to_json()["removed"] == [1]


def test_where_pieces_lie_on_others_one_that_came_over_a_vanished_one_lies_on_it():
    """Pitch Fleet (``on_pieces``): a red ship came to rest over the blue one, which the detector no
    longer sees (it read the two as one piece, on the board).  The blue one lay there: it is kept,
    hidden, and the red one lies on it — outbound, raised by the blue one's height.  Without
    ``on_pieces`` (PitRush: discs rest on discs only in pits) the blue one is removed, the red one
    stays on the board; and a piece that did not move this shot is not put on a vanished one."""
    def play(on_pieces: bool, red_from: tuple[float, float] | None) -> TrackResult:
        tr = Tracker(on_pieces=on_pieces)
        first = [_piece("blue", 100, 100, kind="starship"), _piece("green", 300, 0, kind="starship")]
        if red_from is not None:
            first.append(_piece("red", *red_from, kind="starship"))
        tr.update(_judgement(first), t=1.0)
        return tr.update(_judgement([_piece("red", 106, 104, kind="starship"),
                                     _piece("green", 300, 0, kind="starship")]), t=2.0)

    for red_from in (None, (400.0, 0.0)):  # a red ship new to the table, or shot from across it
        res = play(True, red_from)
        red = int(np.flatnonzero(np.array(res.judgement.detections.color) == "red")[0])
        assert res.judgement.state[red] == "on_piece" and res.judgement.outbound[red]
        assert res.judgement.detections.base_mm[red] == pytest.approx(DISC_H)
        assert res.covered == (1,) and res.removed == () and 1 in res.hidden
        assert any("lies on it" in s for s in res.sentences)
    res = play(False, None)
    assert res.removed == (1,) and res.judgement.state[0] == "surface" and not res.judgement.outbound[0]
    # the red ship lay there already (it did not move): the blue one vanished from under nothing new
    res = play(True, (106.0, 104.0))
    assert res.removed == (1,) and res.judgement.state[0] == "surface"
