"""Property tests over random boards and positions: nothing scores twice, points add up."""

from __future__ import annotations

import math
from collections import Counter

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from rules.base import RulesError
from rules.pitrush import COLORS, BoardGeometry, BoardState, DiscState, Game, Player, pit_owners, score_position

import pitrush_nominal as nominal

NOMINAL = nominal.geometry()
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def boards(draw):
    """The nominal board, or a random patch of a jittered, turned triangular lattice with 1..3 seats."""
    if draw(st.booleans()):
        return NOMINAL
    spacing = draw(st.floats(40.0, 90.0))
    th = draw(st.floats(0.0, 2 * math.pi))
    coords = [(q, r) for q in range(-3, 4) for r in range(-3, 4) if abs(q + r) <= 3]
    chosen = draw(st.lists(st.sampled_from(coords), min_size=3, max_size=20, unique=True))
    pits = {}
    for i, (q, r) in enumerate(chosen):
        x, y = (q + r / 2) * spacing, r * spacing * math.sqrt(3) / 2
        jx, jy = draw(st.floats(-1.5, 1.5)), draw(st.floats(-1.5, 1.5))
        pits[f"p{i + 1}"] = ((x * math.cos(th) - y * math.sin(th) + jx, x * math.sin(th) + y * math.cos(th) + jy),
                             spacing / 4)
    seats = {}
    for k in range(draw(st.integers(1, 3))):
        a = draw(st.floats(0.0, 2 * math.pi))
        d = 4.5 * spacing
        n, t = (math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))
        mid = (n[0] * d, n[1] * d)
        seats[f"s{k + 1}"] = ((mid[0] - 60 * t[0], mid[1] - 60 * t[1]), (mid[0] + 60 * t[0], mid[1] + 60 * t[1]))
    return BoardGeometry.from_data(pits, seats)


@st.composite
def positions(draw, geo=None):
    geo = geo or draw(boards())
    seats = list(geo.seat_ids)
    n = draw(st.integers(1, min(4, len(seats)) if len(seats) > 1 else 1))
    colors = draw(st.permutations(COLORS))[:n]
    players = tuple(Player(c, s) for c, s in zip(colors, draw(st.permutations(seats))[:n]))
    discs = []
    for pit in geo.pit_ids:
        height = draw(st.integers(0, 3))
        orphan = height and draw(st.integers(0, 9)) == 0          # now and then a stack with nothing inside
        for lvl in range(height):
            c = draw(st.sampled_from(COLORS))
            if lvl == 0 and not orphan:
                discs.append(DiscState.in_pit(c, pit))
            else:
                discs.append(DiscState.stacked(c, pit, lvl if not orphan else lvl + 1))
        if not height and draw(st.integers(0, 4)) == 0:
            discs.append(DiscState.hanging_on(draw(st.sampled_from(COLORS)), pit))
    discs += [DiscState.surface_disc(c) for c in draw(st.lists(st.sampled_from(COLORS), max_size=3))]
    discs = draw(st.permutations(discs))
    return geo, players, BoardState(tuple(discs))


def oracle(geo, players, board, scoring="standard"):
    """Per-disc contributions, written independently of the engine: disc index -> (player, points)."""
    owner = {p.color: i for i, p in enumerate(players)}
    out = {}
    for pit in geo.pit_ids:
        here = [(d.level, d.state != "in_pit", i) for i, d in enumerate(board.discs)
                if d.pit == pit and d.state in ("in_pit", "stacked")]
        order = [i for _l, _s, i in sorted(here)]
        if not order or board.discs[order[0]].state != "in_pit":
            continue
        for k, i in enumerate(order):
            c = board.discs[i].color
            if c not in owner:
                continue
            above = {board.discs[j].color for j in order[k + 1:]}
            if k > 0 or not any(a in owner and a != c for a in above):
                out[i] = (owner[c], geo.values(players[owner[c]].seat, scoring)[pit])
    return out


@SETTINGS
@given(positions(), st.booleans(), st.sampled_from(["standard", "children"]))
def test_points_add_up_and_no_disc_scores_twice(pos, formations, scoring):
    geo, players, board = pos
    s = score_position(geo, board, players, scoring=scoring, formations=formations)
    pit_events = [e for e in s.events if e.kind == "pit_score"]
    # no disc scores twice
    scored = Counter(e.data["disc"] for e in pit_events)
    assert all(v == 1 for v in scored.values())
    # every disc in or over a pit, or hanging, is explained exactly once
    explained = Counter(e.data["disc"] for e in s.events if e.kind in ("pit_score", "no_score"))
    assert explained == Counter(i for i, d in enumerate(board.discs) if d.state != "surface")
    # total pit points equal the sum of per-disc contributions (an independent oracle)
    want = oracle(geo, players, board, scoring)
    assert {e.data["disc"]: (e.player, e.points) for e in pit_events} == want
    for i in range(len(players)):
        assert s.pit_points[i] == sum(v for o, v in want.values() if o == i)
        assert s.points[i] == s.pit_points[i] + s.formation_points[i]
        assert sum(e.points for e in s.events if e.player == i and e.kind != "total") == s.points[i]
    # a pit belongs (for formations) to exactly the players who score from it
    for pit in geo.pit_ids:
        assert pit_owners(board, pit, players) == {e.player for e in pit_events if e.data["pit"] == pit}
    if scoring == "children":
        assert sum(s.pit_points) == len(want)
    if not formations:
        assert s.formation_points == (0,) * len(players)


@SETTINGS
@given(positions())
def test_formations_never_count_twice_for_one_player(pos):
    geo, players, board = pos
    s = score_position(geo, board, players)
    forms = [(e.player, e.data["formation"], e.data["pits"]) for e in s.events if e.kind == "formation"]
    assert len(forms) == len(set(forms))
    for i in range(len(players)):
        mine = [f for f in forms if f[0] == i]
        assert s.formation_points[i] == sum(1 if k == "triangle" else len(p) for _o, k, p in mine)
        assert all(f[2] in geo.triangles or f[2] in geo.rows for f in mine)
    # piling more of a player's own discs onto the pits it already scores from adds pit points only
    extra = list(board.discs)
    for e in s.events:
        if e.kind == "pit_score":
            extra.append(DiscState.stacked(e.data["color"], e.data["pit"], 99))
    s2 = score_position(geo, BoardState(tuple(extra)), players)
    assert s2.formation_points == s.formation_points
    assert all(b >= a for a, b in zip(s.pit_points, s2.pit_points))


@SETTINGS
@given(boards())
def test_values_rise_with_distance_from_1_to_5(geo):
    for seat in geo.seat_ids:
        v = geo.values(seat)
        d = {p: geo.distance(seat, p) for p in geo.pit_ids}
        order = sorted(geo.pit_ids, key=d.get)
        assert all(v[a] <= v[b] for a, b in zip(order, order[1:]))
        assert v[order[0]] == 1 and set(v.values()) <= {1, 2, 3, 4, 5}
        if len(geo.distance_rows(seat)) > 1:
            assert v[order[-1]] == 5
    assert all(len(set(t)) == 3 and all(geo.adjacent(a, b) for a in t for b in t if a != b) for t in geo.triangles)
    assert all(len(r) >= 3 for r in geo.rows)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_contest_play_keeps_the_books_and_refuses_cleanly(data):
    n = data.draw(st.integers(2, 4))
    colors = data.draw(st.permutations(COLORS))[:n]
    seats = data.draw(st.permutations(NOMINAL.seat_ids))[:n]
    g = Game("contest", [Player(c, s) for c, s in zip(colors, seats)], NOMINAL,
             discs_per_player=data.draw(st.integers(1, 4)))
    discs: list[DiscState] = []
    for _ in range(60):
        if g.is_game_over():
            break
        before = (g.phase, g.turn, [g.supply(i) for i in range(n)], g.board, g.history, g.is_neutral_due())
        action = data.draw(st.sampled_from(["shot", "shot", "take_back", "neutral", "wrong"]))
        try:
            if action == "neutral" or g.is_neutral_due():
                pit = data.draw(st.sampled_from(NOMINAL.pit_ids))
                g.place_neutral(pit)
                discs.append(g.board.discs[-1])
            elif action == "take_back":
                p = g.turn
                d = g.take_back(p)[0].data["disc"]
                discs.remove(d)
            elif action == "wrong":
                g.shot((g.turn + 1) % n, BoardState(tuple(discs)))
            else:
                p = g.turn
                empty = g.board.empty_pits(NOMINAL.pit_ids)
                where = data.draw(st.sampled_from(["pit", "surface", "hanging", "stack"]))
                c = colors[p]
                if where == "pit" and empty:
                    new = DiscState.in_pit(c, data.draw(st.sampled_from(empty)))
                elif where == "hanging" and empty:
                    new = DiscState.hanging_on(c, data.draw(st.sampled_from(empty)))
                elif where == "stack" and g.board.filled_pits():
                    pit = data.draw(st.sampled_from(sorted(g.board.filled_pits())))
                    new = DiscState.stacked(c, pit, len(g.board.stack(pit)))
                else:
                    new = DiscState.surface_disc(c)
                g.shot(p, BoardState(tuple(discs + [new])))
                discs.append(new)
        except RulesError:
            after = (g.phase, g.turn, [g.supply(i) for i in range(n)], g.board, g.history, g.is_neutral_due())
            assert after == before                 # an illegal call leaves the state unchanged
        # the books balance: every disc is outside the board or on it
        for i in range(n):
            assert g.supply(i) >= 0
            assert g.board.count(colors[i]) == g.expected_on_board(i)
        assert g.status() == 0
        assert len(g.board.filled_pits()) <= len(NOMINAL.pit_ids)
    event(g.outcome().reason.split(":")[0] if g.is_game_over() else f"still playing, phase {int(g.phase)}")
    if g.is_game_over():
        assert g.outcome().scores == g.scores()
        assert max(g.outcome().scores) == g.outcome().scores[g.outcome().winners[0]]
