"""PitRush board geometry: pit values per seat, adjacency, small triangles and rows, on the nominal board."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from rules.base import SetupError
from rules.pitrush import BoardGeometry, Pit, Seat

import pitrush_nominal as nominal

GEO = nominal.geometry()
AX = nominal.lattice_coords()          # pit -> axial (q, r)
BY_AX = {v: k for k, v in AX.items()}
SEATS = [f"seat{k}" for k in range(1, 7)]


def test_copy_matches_calibration_nominal():
    cal = pytest.importorskip("calibration.nominal")
    tile = cal.pitrush_profile().tiles[0]
    assert [(p.id, tuple(p.center), p.radius) for p in tile.pits] == \
        [(pid, c, nominal.PIT_RADIUS) for pid, c in zip(nominal.PIT_IDS, nominal.pit_centres())]
    mine = nominal.seats()
    for s in tile.seats:
        line, area = mine[s.id]
        assert [c for q in s.shooting_line for c in q] == pytest.approx([c for q in line for c in q], abs=1e-3)
        assert [c for q in s.shooting_area for c in q] == pytest.approx([c for q in area for c in q], abs=1e-3)


def test_spacing_is_the_lattice_spacing():
    assert GEO.spacing == pytest.approx(70.0)
    assert len(GEO.pits) == 19 and len(GEO.seats) == 6


@pytest.mark.parametrize("seat", SEATS)
def test_each_seat_sees_five_rows_worth_1_to_5(seat):
    rows = GEO.distance_rows(seat)
    assert [len(r) for r in rows] == [3, 4, 5, 4, 3]
    values = GEO.values(seat)
    for i, row in enumerate(rows, 1):
        assert {values[p] for p in row} == {i}
    assert Counter(values.values()) == {1: 3, 2: 4, 3: 5, 4: 4, 5: 3}
    # closest pit(s) 1, furthest 5, values never decrease with distance
    d = {p: GEO.distance(seat, p) for p in GEO.pit_ids}
    assert values[min(d, key=d.get)] == 1 and values[max(d, key=d.get)] == 5
    by_d = sorted(GEO.pit_ids, key=d.get)
    assert all(values[a] <= values[b] for a, b in zip(by_d, by_d[1:]))


def test_values_of_two_opposite_seats_by_hand():
    # seat5's line is below p1..p3 (y = 40 mm), seat2's above p17..p19 (y = 479.6 mm)
    v5, v2 = GEO.values("seat5"), GEO.values("seat2")
    assert [v5[f"p{i}"] for i in range(1, 20)] == [1] * 3 + [2] * 4 + [3] * 5 + [4] * 4 + [5] * 3
    assert all(v5[p] + v2[p] == 6 for p in GEO.pit_ids)


def _rotate60(ax):
    q, r = ax           # axial rotation by +60 degrees about the centre pit: (q, r) -> (-r, q + r)
    return (-r, q + r)


def test_seats_are_symmetric_under_rotation():
    # seat k+1 sits 60 degrees further round than seat k, so its values are seat k's rotated
    for k in range(6):
        a, b = GEO.values(SEATS[k]), GEO.values(SEATS[(k + 1) % 6])
        assert all(b[BY_AX[_rotate60(AX[p])]] == a[p] for p in GEO.pit_ids)
    # the centre pit is worth 3 from everywhere
    assert {GEO.values(s)["p10"] for s in SEATS} == {3}


def test_childrens_scoring_is_one_everywhere():
    for s in SEATS:
        assert set(GEO.values(s, "children").values()) == {1}
    with pytest.raises(SetupError):
        GEO.values("seat1", "grown-ups")


def test_adjacency_counts_on_the_hex_patch():
    unit = [(1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1)]
    expected = {p: {BY_AX[(q + dq, r + dr)] for dq, dr in unit if (q + dq, r + dr) in BY_AX}
                for p, (q, r) in AX.items()}
    assert {p: set(GEO.neighbours(p)) for p in GEO.pit_ids} == expected
    assert len(GEO.edges) == 42                   # 3n(3n+1) edges in a hexagon of side n = 2
    assert Counter(len(GEO.neighbours(p)) for p in GEO.pit_ids) == {6: 7, 4: 6, 3: 6}
    assert not GEO.adjacent("p1", "p3") and GEO.adjacent("p1", "p2")


def test_small_triangles_by_hand():
    anchors = list(itertools.product(range(-3, 3), repeat=2))
    up = {frozenset({(q, r), (q + 1, r), (q, r + 1)}) for q, r in anchors}
    down = {frozenset({(q + 1, r), (q, r + 1), (q + 1, r + 1)}) for q, r in anchors}
    hand = {t for t in up | down if all(c in BY_AX for c in t)}
    assert len(hand) == 24                        # 6 n^2 small triangles in a hexagon of side n = 2
    assert {frozenset(AX[p] for p in t) for t in GEO.triangles} == hand
    assert len(GEO.triangles) == 24
    assert ("p1", "p2", "p5") in GEO.triangles


def test_rows_along_the_three_lattice_directions():
    # group the pits by the coordinate that stays constant along each lattice direction
    for key in (lambda a: a[1], lambda a: a[0], lambda a: a[0] + a[1]):
        groups = Counter(key(a) for a in AX.values())
        assert [groups[k] for k in sorted(groups)] == [3, 4, 5, 4, 3]
    assert sorted(len(t) for t in GEO.lines) == [3] * 6 + [4] * 6 + [5] * 3
    assert GEO.rows == GEO.lines                  # every maximal line has >= 3 pits: all are rows
    for row in GEO.rows:                          # each row is a chain of equal steps
        pts = [AX[p] for p in row]
        steps = {(b[0] - a[0], b[1] - a[1]) for a, b in zip(pts, pts[1:])}
        assert len(steps) == 1 and steps.pop() in {(1, 0), (0, 1), (-1, 1), (1, -1), (0, -1), (-1, 0)}
    assert ("p1", "p2", "p3") in GEO.rows and ("p8", "p9", "p10", "p11", "p12") in GEO.rows
    assert ("p1", "p4", "p8") in GEO.rows and ("p3", "p6", "p10", "p14", "p17") in GEO.rows
    # no row is a part of another one
    assert not any(set(a) < set(b) for a, b in itertools.permutations(GEO.rows, 2))


def test_a_jittered_rotated_board_works_from_its_profile_alone():
    # drilled 1.5 mm off, turned by 17 degrees and moved: same values, same lattice
    th = math.radians(17.0)
    jit = [(1.5, -1.0), (-1.2, 0.7), (0.4, 1.5), (-1.5, -0.3)]

    def move(p):
        return (p[0] * math.cos(th) - p[1] * math.sin(th) + 1000.0, p[0] * math.sin(th) + p[1] * math.cos(th) - 50.0)

    def drilled(p, i):
        return move((p[0] + jit[i % 4][0], p[1] + jit[i % 4][1]))

    pits = {pid: (drilled(c, i), 17.0) for i, (pid, c) in enumerate(zip(nominal.PIT_IDS, nominal.pit_centres()))}
    seats = {s: (tuple(move(q) for q in line), None) for s, (line, _a) in nominal.seats().items()}
    geo = BoardGeometry.from_data(pits, seats)
    for s in SEATS:
        assert geo.values(s) == GEO.values(s)
    assert geo.triangles == GEO.triangles and geo.rows == GEO.rows


def test_a_smaller_board_bands_its_rows():
    # a 7-pit hexagon seen from below: rows of 2, 3, 2 pits are worth 1, 3, 5
    s = 50.0
    pts = {"a": (-s / 2, -s * math.sqrt(3) / 2), "b": (s / 2, -s * math.sqrt(3) / 2), "c": (-s, 0.0),
           "d": (0.0, 0.0), "e": (s, 0.0), "f": (-s / 2, s * math.sqrt(3) / 2), "g": (s / 2, s * math.sqrt(3) / 2)}
    geo = BoardGeometry.from_data(pts, {"south": ((-60.0, -100.0), (60.0, -100.0))})
    assert geo.spacing == pytest.approx(s)
    assert geo.values("south") == {"a": 1, "b": 1, "c": 3, "d": 3, "e": 3, "f": 5, "g": 5}
    assert len(geo.triangles) == 6 and sorted(len(t) for t in geo.rows) == [3, 3, 3]
    assert sorted(len(t) for t in geo.lines) == [2] * 6 + [3] * 3     # the rim edges are not rows
    assert BoardGeometry.from_data(pts, min_row=2).rows == geo.lines


def test_single_row_and_single_pit_are_worth_one():
    geo = BoardGeometry.from_data({"a": (0.0, 100.0), "b": (70.0, 100.0)}, {"s": ((0.0, 0.0), (70.0, 0.0))})
    assert geo.values("s") == {"a": 1, "b": 1}
    lone = BoardGeometry.from_data({"a": (0.0, 100.0)}, {"s": ((0.0, 0.0), (70.0, 0.0))})
    assert lone.spacing == 0.0 and lone.values("s") == {"a": 1} and lone.triangles == ()


def test_shooting_line_and_area():
    assert GEO.touches_line("seat5", (300.0, 50.0), 15.0)
    assert not GEO.touches_line("seat5", (300.0, 60.0), 15.0)
    assert not GEO.touches_line("seat5", (420.0, 40.0), 15.0)        # past the end of the line
    assert GEO.in_area("seat5", (300.0, 20.0)) and not GEO.in_area("seat5", (300.0, 60.0))
    assert not GEO.in_area("seat2", (300.0, 20.0))
    no_area = BoardGeometry((Pit("a", (0.0, 0.0)),), (Seat("s", ((0.0, -50.0), (10.0, -50.0))),))
    assert not no_area.in_area("s", (5.0, -60.0))


@pytest.mark.parametrize("bad", [
    dict(pits=()),
    dict(pits=(Pit("a", (0, 0)), Pit("a", (70, 0)))),
    dict(pits=(Pit("a", (0, 0)),), seats=(Seat("s", ((0, 0), (0, 0))),)),
    dict(pits=(Pit("a", (0, 0)),), seats=(Seat("s", ((0, 0), (1, 0))), Seat("s", ((0, 5), (1, 5))))),
    dict(pits=(Pit("a", (0, 0)),), min_row=1),
    dict(pits=(Pit("a", (0, 0)),), adjacency_tolerance=0.7),
])
def test_bad_geometry_is_a_setup_error(bad):
    with pytest.raises(SetupError):
        BoardGeometry(**bad)
