"""Simulated recorded games: a rules engine plays, the simulator photographs every settled shot.

Each shot is made up (where the shot ship lands, whether it knocks another), its exact verdicts come
from the simulator's own geometry, and the engine fed with those verdicts gives the expected events
and scores.  The result is a recording folder (:mod:`referee.recording`) that ``tableref replay``
must referee from the photos alone to the same scores.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import shapely
from shapely.geometry import Point, Polygon

from calibration.model import Layout
from calibration.profile import BoardProfile
from tableref.files import write_bytes, write_json

from .generate import SceneOptions, random_scene
from .render import render_scene
from .scene import PieceTruth, SceneFile
from .shapes import footprint_of, piece_prisms
from .truth import TruthJudge

# simple power cards whose effects need no beams or relocations (their effects are still scored)
PF_FIXTURE_CARDS = ["blind_shot", "recharge", "asteroid_miner", "reverse_gravity", "safety_net", "domino"]


class _Table:
    """One simulated table: the scene without pieces, its layout and exact judge."""

    def __init__(self, game: str, seed: int, size: tuple[int, int]):
        self.profile = BoardProfile.builtin(game)
        self.scene = random_scene(game, seed, SceneOptions(image_size=size), self.profile, with_pieces=False)
        self.layout = Layout(self.profile, self.scene.placements)
        self.judge = TruthJudge(self.layout)
        self.shot = 0

    def piece(self, pid: int, kind: str, color: str, xy, heading: float, base: float) -> PieceTruth:
        spec = self.profile.piece(kind, color)
        fp = footprint_of(piece_prisms(spec), xy, heading, base)
        return PieceTruth(id=pid, kind=kind, color=color, center_mm=(round(float(xy[0]), 3), round(float(xy[1]), 3)),
                          heading_deg=round(float(heading), 2), base_mm=base, height_mm=spec.height_mm,
                          footprint_mm=[(round(float(x), 3), round(float(y), 3)) for x, y in fp],
                          rests_on="board" if base == 0 else "table", outbound=base != 0, seed=pid + 1)

    def photo(self, pieces: list[PieceTruth], path: Path) -> SceneFile:
        self.shot += 1
        sc = self.scene.model_copy(deep=True)
        sc.pieces = pieces
        sc.shot = self.shot
        sc.image = path.name
        res = render_scene(sc, self.profile)
        write_bytes(path, res.jpeg)
        return sc


def simulate_pitchfleet_stage(out_dir: Path, seed: int = 7, players=("Ann", "Bo", "Cy", "Di"),
                              size: tuple[int, int] = (1920, 1080), progress=None) -> Path:
    """One stage (three rounds) of a four-player game, photographed after every shot."""
    from rules.pitchfleet import (Game, Location, LocationKind, ShipId, ShipResult, ShotResult, card,
                                  team_cards_for)

    out_dir = Path(out_dir)
    (out_dir / "frames").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    tb = _Table("pitchfleet", seed, size)
    planets = [t.id for t in tb.profile.tiles]
    start, goal = [planets[i] for i in rng.choice(len(planets), 2, replace=False)]
    n = len(players)
    deck = [PF_FIXTURE_CARDS[i] for i in rng.integers(len(PF_FIXTURE_CARDS), size=3 * n + 24)]
    deals = [[f"{s.team}{s.number}" for s in team_cards_for(n)]]
    game = Game(list(players), planet_deck=[start, goal], power_deck=[card(c) for c in deck],
                team_deals=[tuple(ShipId(d[:-1], int(d[-1])) for d in deal) for deal in deals])
    zones = {z.id: z for z in tb.layout.zones()}
    T = tb.layout.table_depth_mm
    support = tb.layout.support
    poses: dict = {}  # ShipId -> (x, y, heading)
    ship_spec = tb.profile.piece("starship", "red")

    def fp_of(xy, heading, base=0.0):
        return Polygon(footprint_of(piece_prisms(ship_spec), xy, heading, base))

    def free(poly, skip):
        return all(shapely.distance(poly, fp_of(p[:2], p[2])) > 1.0 for s, p in poses.items() if s != skip)

    def zone_centre(zid):
        return np.asarray(Polygon(zones[zid].polygon).centroid.coords[0])

    tb.photo([], out_dir / "empty.jpg")
    turns, all_events = [], []
    for t in range(3 * n):
        p = game.current_player
        own = ShipId(deals[0][p][:-1], int(deals[0][p][-1]))
        legal = game.legal_ships()
        ship = own if own in legal and rng.random() < 0.75 else legal[int(rng.integers(len(legal)))]
        cards = game.legal_cards()
        c = cards[int(rng.integers(len(cards)))]
        # where the shot ship starts
        if ship not in poses:
            for _ in range(100):
                xy = zone_centre(f"{start}/planet") + rng.normal(0, 14, 2)
                h = rng.uniform(0, 360)
                if free(fp_of(xy, h), ship):
                    break
            poses[ship] = (xy[0], xy[1], h)
        old = dict(poses)
        # where it lands: near a zone of the goal board mostly, sometimes elsewhere or off the boards
        r = rng.random()
        landed = False
        for _ in range(200):
            h = rng.uniform(0, 360)
            if r < 0.65:
                zid = rng.choice([z for z in zones if z.startswith(goal + "/")])
                xy = zone_centre(zid) + rng.normal(0, 14, 2)
            elif r < 0.8:
                xy = np.array(support.representative_point().coords[0]) + rng.normal(0, 150, 2)
            else:  # over the edge of the boards onto the table
                b = support.boundary
                xy = np.asarray(b.interpolate(rng.uniform(0, b.length)).coords[0])
                out = xy - np.asarray(support.centroid.coords[0])
                xy = xy + out / np.linalg.norm(out) * rng.uniform(22, 60)
            on_board = support.covers(Point(xy))
            poly = fp_of(xy, h, 0.0 if on_board else -T)
            if not on_board and shapely.distance(poly, support) < 0.5:
                continue
            if on_board and support.boundary.distance(Point(xy)) < 3.0:
                continue
            if free(poly, ship):
                poses[ship] = (xy[0], xy[1], h)
                landed = True
                break
        if not landed:
            r = 1.0
        # sometimes it knocks a ship near where it lands
        knocked = set()
        if landed and rng.random() < 0.5:
            sx, sy, _ = poses[ship]
            near = [s for s, q in poses.items() if s != ship and math.hypot(q[0] - sx, q[1] - sy) < 90]
            for s in near[:1]:
                q = poses[s]
                d = np.array([q[0] - sx, q[1] - sy])
                d /= np.linalg.norm(d) + 1e-9
                for step in (25.0, 18.0, 12.0):
                    nxy = np.array(q[:2]) + d * step
                    if support.covers(Point(nxy)) and support.boundary.distance(Point(nxy)) > 3 and \
                            free(fp_of(nxy, q[2] + 15), s):
                        poses[s] = (nxy[0], nxy[1], q[2] + 15)
                        knocked.add(s)
                        break
        # exact verdicts
        results = []
        for s, q in poses.items():
            on_board = support.covers(Point(q[:2]))
            moved = s == ship or s in knocked
            if not on_board:
                results.append(ShipResult(s, outbound=True, moved=moved, knocked=s in knocked))
                continue
            touched, _ = tb.judge.zones_touched(fp_of(q[:2], q[2]))
            locs = frozenset(Location(z.split("/")[0], z.split("/")[1], LocationKind(zones[z].kind),
                                      zones[z].stars or 0) for z in touched)
            results.append(ShipResult(s, locations=locs, moved=moved, knocked=s in knocked))
        ev = game.begin_turn(p, ship, c)
        ev += game.resolve_shot(ShotResult(ship, tuple(results), collided=bool(knocked)))
        ev += game.end_turn()
        all_events += ev
        # the photo after the shot
        pieces = []
        for i, (s, q) in enumerate(sorted(poses.items())):
            on_board = support.covers(Point(q[:2]))
            pieces.append(tb.piece(i, "starship", s.team, q[:2], q[2], 0.0 if on_board else -T))
        frame = f"frames/{t + 1:04d}.jpg"
        sc = tb.photo(pieces, out_dir / frame)
        write_json(out_dir / "truth" / f"{t + 1:04d}.json", sc)
        turns.append({"player": p, "ship": f"{ship.team}{ship.number}", "card": c.id, "shots": [{"frame": frame}]})
        # outbound ships are taken off the table
        for s, q in list(poses.items()):
            if not support.covers(Point(q[:2])):
                del poses[s]
        if progress:
            progress()
        _ = old
    manifest = {
        "format": "tableref-recording/1", "game": "pitchfleet",
        "title": f"Simulated Pitch Fleet stage, {n} players, {start} to {goal}",
        "players": list(players), "empty_photo": "empty.jpg",
        "setup": {"planet_deck": [start, goal], "power_deck": deck, "team_deals": deals},
        "turns": turns,
        "expected": {"scores": list(game.scores()), "events": [e.text for e in all_events]},
    }
    write_json(out_dir / "manifest.json", manifest)
    return out_dir


def simulate_pitrush_match(out_dir: Path, mode: str = "contest", seed: int = 5,
                           size: tuple[int, int] = (1600, 900), max_frames: int = 24, progress=None) -> Path:
    """A short PitRush match (Contest: two players; Arena: three shooting at once), photographed
    after every settled shot."""
    from rules.pitrush import BoardGeometry, BoardState, DiscState, Game, Player

    out_dir = Path(out_dir)
    (out_dir / "frames").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    tb = _Table("pitrush", seed, size)
    pits = {p.id.split("/")[-1]: p for p in tb.layout.pits()}
    seats = {s.id.split("/")[-1]: s for s in tb.layout.seats()}
    geometry = BoardGeometry.from_data(
        pits={k: (tuple(p.center), p.radius) for k, p in pits.items()},
        seats={k: (tuple(map(tuple, s.shooting_line)), [tuple(v) for v in s.shooting_area]) for k, s in seats.items()})
    if mode == "contest":
        names, colors, seat_ids, per = ["Ann", "Bo"], ["blue", "red"], ["seat1", "seat4"], 5
    else:
        names, colors, seat_ids, per = ["Ann", "Bo", "Cy"], ["blue", "red", "yellow"], ["seat1", "seat3", "seat5"], 3
    game = Game(mode, [Player(c, s, n) for c, s, n in zip(colors, seat_ids, names)], geometry, discs_per_player=per)
    spec = tb.profile.piece("disc", "red")
    r_d, h_d = spec.diameter_mm / 2, spec.height_mm
    T = tb.layout.table_depth_mm
    support = tb.layout.support
    discs: list[dict] = []  # color, xy, state, pit, base

    def disc_poly(d):
        return Point(d["xy"]).buffer(r_d)

    def clear(xy, skip=()):
        return all(np.hypot(xy[0] - d["xy"][0], xy[1] - d["xy"][1]) > 2 * r_d + 1.0
                   for d in discs if d not in skip and d["state"] not in ("in_pit",) or False) and True

    def occupied():
        return {d["pit"] for d in discs if d["state"] == "in_pit"}

    def land(color):
        """Where a newly shot disc ends up (a plausible outcome, drawn at random)."""
        for _ in range(200):
            r = rng.random()
            full = occupied()
            hung = {d["pit"] for d in discs if d["state"] == "hanging"}
            empty = [k for k in pits if k not in full and k not in hung]
            if r < 0.4 and empty:
                k = empty[int(rng.integers(len(empty)))]
                a, rr = rng.uniform(0, 2 * np.pi), (pits[k].radius - r_d) * np.sqrt(rng.uniform())
                xy = np.asarray(pits[k].center) + rr * np.array([np.cos(a), np.sin(a)])
                return dict(color=color, xy=xy, state="in_pit", pit=k, base=-pits[k].depth_mm)
            if r < 0.55 and full:
                k = sorted(full)[int(rng.integers(len(full)))]
                if any(d["state"] == "stacked" and d["pit"] == k for d in discs):
                    continue
                low = next(d for d in discs if d["state"] == "in_pit" and d["pit"] == k)
                a = rng.uniform(0, 2 * np.pi)
                xy = low["xy"] + rng.uniform(0, 9) * np.array([np.cos(a), np.sin(a)])
                return dict(color=color, xy=xy, state="stacked", pit=k, base=low["base"] + h_d)
            if r < 0.65 and empty:
                k = empty[int(rng.integers(len(empty)))]
                a = rng.uniform(0, 2 * np.pi)
                d = pits[k].radius + r_d - rng.uniform(3.0, 9.0)
                xy = np.asarray(pits[k].center) + d * np.array([np.cos(a), np.sin(a)])
                cand = dict(color=color, xy=xy, state="hanging", pit=k, base=0.0)
            elif r < 0.9:
                xy = np.asarray(support.representative_point().coords[0]) + rng.normal(0, 150, 2)
                cand = dict(color=color, xy=xy, state="surface", pit=None, base=0.0)
                if any(np.hypot(*(xy - np.asarray(p.center))) < p.radius + r_d + 1.5 for p in pits.values()):
                    continue
            else:
                b = support.boundary
                xy = np.asarray(b.interpolate(rng.uniform(0, b.length)).coords[0])
                out = xy - np.asarray(support.centroid.coords[0])
                xy = xy + out / np.linalg.norm(out) * rng.uniform(r_d + 2, 60)
                cand = dict(color=color, xy=xy, state="off_board", pit=None, base=-T)
            if cand["state"] != "off_board":
                if not support.buffer(-r_d * 0.2).contains(Point(xy)):
                    continue
            elif shapely.distance(Point(xy).buffer(r_d), support) < 0.5:
                continue
            if all(np.hypot(*(xy - d["xy"])) > 2 * r_d + 1.0 for d in discs):
                return cand
        return None

    def board_state():
        out = []
        for d in discs:
            if d["state"] == "in_pit":
                out.append(DiscState.in_pit(d["color"], d["pit"]))
            elif d["state"] == "stacked":
                out.append(DiscState.stacked(d["color"], d["pit"], 1))
            elif d["state"] == "hanging":
                out.append(DiscState.hanging_on(d["color"], d["pit"]))
            elif d["state"] == "off_board":
                out.append(DiscState(d["color"], "off_board"))
            else:
                c = Point(d["xy"])
                area = next((k for k, s in seats.items() if s.shooting_area and Polygon(s.shooting_area).contains(c)), None)
                out.append(DiscState.surface_disc(d["color"], seat_area=area))
        return BoardState(tuple(out))

    def sync(board):
        """Take off the table what the engine took off the board (gathered, removed, taken back)."""
        want: dict = {}
        for ds in board.discs:
            want[(ds.color, ds.state, ds.pit)] = want.get((ds.color, ds.state, ds.pit), 0) + 1
        keep = []
        for d in discs:
            key = (d["color"], d["state"], d["pit"])
            if want.get(key, 0) > 0:
                want[key] -= 1
                keep.append(d)
        discs[:] = keep

    tb.photo([], out_dir / "empty.jpg")
    turns, all_events, frames = [], [], 0
    while not game.is_game_over() and frames < max_frames:
        if game.is_neutral_due():
            pits_ok = game.legal_neutral_pits()
            k = pits_ok[int(rng.integers(len(pits_ok)))]
            ev = game.place_neutral(k)
            all_events += ev
            col = ev[0].data["color"]
            discs.append(dict(color=col, xy=np.asarray(pits[k].center, dtype=float), state="in_pit", pit=k,
                              base=-pits[k].depth_mm))
            turns.append({"action": "neutral", "pit": k, "color": col})
            continue
        shooters = game.legal_shooters()
        if not shooters and game.turn is not None and game.legal_take_backs(game.turn):
            shooters = (game.turn,)  # Phase II: the player on turn takes a disc back and shoots it
        if not shooters:
            break
        if mode == "arena" and not game.is_phase_two():
            group = [i for i in shooters if game.supply(i) > 0]
            if not group:
                break
            for i in group:
                d = land(colors[i])
                if d is not None:
                    discs.append(d)
            action = {"action": "observe"}
            ev_fn = lambda b: game.observe(b)  # noqa: E731
        else:
            p = shooters[0]
            if game.supply(p) == 0:
                ev = game.take_back(p)
                all_events += ev
                taken = ev[0].data["disc"]
                for d in discs:
                    if d["color"] == taken.color and d["state"] == taken.state and d["pit"] == taken.pit:
                        discs.remove(d)
                        break
                turns.append({"action": "take_back", "player": p})
            d = land(colors[p])
            if d is not None:
                discs.append(d)
            action = {"action": "shot", "player": p}
            ev_fn = lambda b, p=p: game.shot(p, b)  # noqa: E731
        frames += 1
        frame = f"frames/{frames:04d}.jpg"
        pieces = [tb.piece(i, "disc", d["color"], d["xy"], rng.uniform(0, 360), d["base"]) for i, d in enumerate(discs)]
        for pc, d in zip(pieces, discs):
            pc.state, pc.pit = d["state"], (f"board/{d['pit']}" if d["pit"] else None)
            pc.outbound = d["state"] == "off_board"
        sc = tb.photo(pieces, out_dir / frame)
        write_json(out_dir / "truth" / f"{frames:04d}.json", sc)
        ev = ev_fn(board_state())
        all_events += ev
        sync(game.board)
        turns.append({**action, "shots": [{"frame": frame}]})
        if progress:
            progress()
    sheet = game.score()
    manifest = {
        "format": "tableref-recording/1", "game": "pitrush",
        "title": f"Simulated PitRush {mode} match, {len(names)} players",
        "players": names, "empty_photo": "empty.jpg",
        "setup": {"mode": mode, "colors": colors, "seats": seat_ids, "discs_per_player": per},
        "turns": turns,
        "expected": {"scores": list(sheet.points), "events": [e.text for e in all_events + list(sheet.events)]},
    }
    write_json(out_dir / "manifest.json", manifest)
    return out_dir
