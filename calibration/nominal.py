"""Nominal geometry of each game's standard boards and pieces (mm, tile frames).

These numbers are *nominal*: drawn from the rulebooks' descriptions and typical component sizes,
not measured from a retail copy.  A table with real boards should be learned with
``tableref profile learn`` and the result checked by a person.  The built-in profiles in
``calibration/profiles/`` are generated from this module (``tableref simulate profiles``).
"""

from __future__ import annotations

import math

import numpy as np
import shapely

from .profile import (Arrangement, Grid, Layer, NominalPlacement, PieceSpec, Pit, ProfileFile, Seat, Tile, Zone)


def circle(cx: float, cy: float, r: float, n: int = 72) -> list[tuple[float, float]]:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return [(round(cx + r * math.cos(t), 3), round(cy + r * math.sin(t), 3)) for t in a]


def annulus_sector(cx, cy, r0, r1, a0_deg, a1_deg, n=48) -> list[tuple[float, float]]:
    a = np.radians(np.linspace(a0_deg, a1_deg, n))
    outer = [(cx + r1 * math.cos(t), cy + r1 * math.sin(t)) for t in a]
    inner = [(cx + r0 * math.cos(t), cy + r0 * math.sin(t)) for t in a[::-1]]
    return [(round(x, 3), round(y, 3)) for x, y in outer + inner]


# ------------------------------------------------------------------------------------ Pitch Fleet

PF_TILE_MM = 200.0
PF_THICKNESS_MM = 2.0

# planet: (cx, cy, r); satellites: (cx, cy, r, stars); charging: (cx, cy, r);
# belts: ("sector", r0, r1, a0, a1) around the planet, ("ring", r0, r1), or ("poly", [...])
_PF_LAYOUT = {
    "mercury": dict(planet=(70, 72, 42), sats=[(162, 40, 16, 1), (42, 166, 15, 2)], charging=[(160, 162, 16)],
                    belts=[("sector", 52, 74, -10, 115)]),
    "venus": dict(planet=(112, 98, 44), sats=[(170, 172, 15, 2), (34, 172, 16, 1)], charging=[(168, 34, 16)],
                  belts=[("sector", 54, 76, 170, 290)]),
    "earth": dict(planet=(96, 104, 47), sats=[(168, 46, 17, 1), (32, 32, 14, 3)], charging=[(162, 166, 16)],
                  belts=[]),
    "mars": dict(planet=(100, 100, 40), sats=[(42, 42, 16, 2), (158, 158, 16, 2)], charging=[(162, 40, 15)],
                 belts=[("poly", [(12, 130), (70, 150), (92, 188), (14, 188)])]),
    "jupiter": dict(planet=(88, 108, 50), sats=[(168, 36, 15, 1), (172, 106, 15, 2), (162, 172, 14, 3)],
                    charging=[(32, 30, 15)], belts=[]),
    "saturn": dict(planet=(102, 98, 36), sats=[(28, 174, 16, 1), (174, 28, 15, 2)], charging=[(174, 172, 15)],
                   belts=[("ring", 47, 62)]),
    "uranus": dict(planet=(100, 96, 34), sats=[(38, 38, 14, 1), (162, 38, 14, 1), (34, 150, 14, 2),
                                              (166, 150, 14, 2), (100, 170, 14, 3)], charging=[], belts=[]),
    "neptune": dict(planet=(82, 118, 44), sats=[(162, 44, 16, 2), (170, 152, 15, 1)], charging=[(160, 100, 14)],
                    belts=[("poly", [(12, 12), (118, 12), (112, 40), (12, 44)])]),
    "pluto": dict(planet=(118, 80, 30), sats=[(48, 152, 17, 1)], charging=[(162, 166, 15)],
                  belts=[("sector", 40, 60, 100, 250)]),
}
PF_PLANETS = list(_PF_LAYOUT)


def _pf_tile(name: str) -> Tile:
    lay = _PF_LAYOUT[name]
    cx, cy, r = lay["planet"]
    zones = [Zone(id="planet", kind="planet", name=name.capitalize(), polygon=circle(cx, cy, r))]
    for i, (x, y, rr, stars) in enumerate(lay["sats"], 1):
        zones.append(Zone(id=f"satellite{i}", kind="satellite", polygon=circle(x, y, rr), stars=stars))
    for i, (x, y, rr) in enumerate(lay["charging"], 1):
        zones.append(Zone(id=f"charging{i}", kind="charging_satellite", polygon=circle(x, y, rr)))
    for i, belt in enumerate(lay["belts"], 1):
        if belt[0] == "sector":
            _, r0, r1, a0, a1 = belt
            zones.append(Zone(id=f"belt{i}", kind="asteroid_belt", polygon=annulus_sector(cx, cy, r0, r1, a0, a1)))
        elif belt[0] == "ring":
            _, r0, r1 = belt
            zones.append(Zone(id=f"belt{i}", kind="asteroid_belt", polygon=circle(cx, cy, r1),
                              holes=[circle(cx, cy, r0)[::-1]]))
        else:
            zones.append(Zone(id=f"belt{i}", kind="asteroid_belt", polygon=[tuple(map(float, p)) for p in belt[1]]))
    return Tile(id=name, name=name.capitalize(), size_mm=(PF_TILE_MM, PF_TILE_MM), thickness_mm=PF_THICKNESS_MM,
                image=f"pitchfleet/{name}.jpg", zones=zones)


STARSHIP_POLYGON = [(16.0, 0.0), (6.0, 7.5), (-10.0, 10.0), (-14.0, 6.0), (-14.0, -6.0), (-10.0, -10.0), (6.0, -7.5)]
BEAM_POLYGON = [(-15.0, -3.5), (15.0, -3.5), (15.0, 3.5), (-15.0, 3.5)]


def pitchfleet_profile() -> ProfileFile:
    tiles = [_pf_tile(n) for n in PF_PLANETS]
    pitch = PF_TILE_MM + 4.0
    nominal = [NominalPlacement(tile=n, x=(i % 3) * pitch, y=(i // 3) * pitch) for i, n in enumerate(PF_PLANETS)]
    ship_layers = [Layer(h0=0.0, h1=4.9), Layer(h0=4.9, h1=7.0, scale=0.42, dx=3.0)]  # hull, cockpit
    pieces = [PieceSpec(kind="starship", color=c, polygon=STARSHIP_POLYGON, height_mm=7.0, count=3, layers=ship_layers)
              for c in ("red", "blue")]
    pieces.append(PieceSpec(kind="beam", color="silver", polygon=BEAM_POLYGON, height_mm=7.0, count=6))
    return ProfileFile(game="pitchfleet", name="Pitch Fleet (nominal)", nominal=True,
                       notes="Nine 200 mm planet boards, 2 mm card; zone layout nominal. Learn real boards with "
                             "'tableref profile learn'.",
                       tiles=tiles, pieces=pieces,
                       arrangement=Arrangement(kind="free", grid=(3, 3), gap_mm=4.0, nominal=nominal))


# --------------------------------------------------------------------------------------- PitRush

PR_BOARD_R = 300.0          # circumradius of the hexagonal board, mm
PR_THICKNESS_MM = 15.0      # wooden board
PR_PIT_SPACING = 70.0
PR_PIT_RADIUS = 17.0
PR_PIT_DEPTH = 4.0
PR_DISC_DIAMETER = 30.0
PR_DISC_HEIGHT = 6.0
DISC_COLORS = ("red", "blue", "yellow", "green", "white", "black")
DISC_COUNTS = {"red": 10, "blue": 10, "yellow": 10, "green": 8, "white": 6, "black": 5}


def pitrush_pit_centres(center=(PR_BOARD_R, PR_BOARD_R * math.sqrt(3) / 2)) -> list[tuple[float, float]]:
    """19 pits in a hexagonal patch of a triangular lattice whose rows run parallel to the board's sides."""
    cx, cy = center
    out = []
    e1 = np.array([1.0, 0.0]) * PR_PIT_SPACING
    e2 = np.array([0.5, math.sqrt(3) / 2]) * PR_PIT_SPACING
    for q in range(-2, 3):
        for r in range(-2, 3):
            if abs(q + r) <= 2:
                p = q * e1 + r * e2
                out.append((p[0], p[1]))
    out.sort(key=lambda p: (round(p[1], 3), p[0]))
    return [(round(cx + x, 3), round(cy + y, 3)) for x, y in out]


def pitrush_profile() -> ProfileFile:
    R = PR_BOARD_R
    h = R * math.sqrt(3) / 2
    cx, cy = R, h
    # hexagon with flat top/bottom: vertices at 0, 60, ... degrees
    outline = [(round(cx + R * math.cos(math.radians(a)), 3), round(cy + R * math.sin(math.radians(a)), 3))
               for a in range(0, 360, 60)]
    pits = [Pit(id=f"p{i + 1}", center=c, radius=PR_PIT_RADIUS, depth_mm=PR_PIT_DEPTH)
            for i, c in enumerate(pitrush_pit_centres((cx, cy)))]
    seats = []
    inset, half_len = 40.0, 90.0
    for k in range(6):
        # side k between vertices k and k+1; its outward normal points at angle 30 + 60k
        a = math.radians(30 + 60 * k)
        n = np.array([math.cos(a), math.sin(a)])
        t = np.array([-n[1], n[0]])
        mid_edge = np.array([cx, cy]) + n * h
        mid_line = mid_edge - n * inset
        p0, p1 = mid_line - t * half_len, mid_line + t * half_len
        e0, e1 = mid_edge - t * (half_len + inset * 0.58), mid_edge + t * (half_len + inset * 0.58)
        area = [tuple(np.round(p, 3)) for p in (p0, p1, e1, e0)]
        seats.append(Seat(id=f"seat{k + 1}", shooting_line=(tuple(np.round(p0, 3)), tuple(np.round(p1, 3))),
                          shooting_area=area))
    tile = Tile(id="board", name="PitRush board", size_mm=(2 * R, 2 * h), thickness_mm=PR_THICKNESS_MM,
                outline=outline, image="pitrush/board.jpg", pits=pits, seats=seats, symmetric=True)
    pieces = [PieceSpec(kind="disc", color=c, diameter_mm=PR_DISC_DIAMETER, height_mm=PR_DISC_HEIGHT,
                        count=DISC_COUNTS[c]) for c in DISC_COLORS]
    return ProfileFile(game="pitrush", name="PitRush (nominal)", nominal=True,
                       notes="Hexagonal wooden board, 19 pits, six seats; dimensions nominal.",
                       tiles=[tile], pieces=pieces,
                       arrangement=Arrangement(kind="fixed", nominal=[NominalPlacement(tile="board", x=0, y=0)]))


# ------------------------------------------------------------------------------------- Galaktico

GK_SPACE_MM = 40.0
GK_N = 6
GK_THICKNESS_MM = 3.0
GK_COLORS = ("red", "blue", "yellow")
GK_FIGURES = {  # kind: (base radius mm, height mm, sides of the body polygon, count); sizes 2 mm apart
    "station": (17.0, 24.0, 6, 1),
    "destroyer": (15.0, 20.0, 3, 3),
    "fighter": (13.0, 16.0, 4, 3),
    "cruiser": (11.0, 14.0, 5, 4),
    "scout": (9.0, 11.0, 0, 5),  # 0: round
}


def _regular(n: int, r: float, phase_deg: float = 0.0) -> list[tuple[float, float]]:
    a = np.radians(phase_deg) + np.linspace(0, 2 * np.pi, n, endpoint=False)
    return [(round(r * math.cos(t), 3), round(r * math.sin(t), 3)) for t in a]


def galaktico_profile() -> ProfileFile:
    L = GK_SPACE_MM * GK_N
    hgt = L * math.sqrt(3) / 2
    # canonical sector: rhombus with a horizontal top edge, leaning right
    outline = [(0.0, 0.0), (L, 0.0), (1.5 * L, round(hgt, 3)), (0.5 * L, round(hgt, 3))]
    u = (GK_SPACE_MM, 0.0)
    v = (GK_SPACE_MM / 2, round(GK_SPACE_MM * math.sqrt(3) / 2, 4))
    tiles = []
    marks = {"station": ["0,0"], "meteor": ["1,3", "2,1", "2,4", "3,2", "3,5", "4,0", "4,3", "5,5"],
             "start": ["0,1", "0,2", "1,0", "1,1", "1,2", "2,0", "0,3"]}
    for k in range(3):
        tiles.append(Tile(id=f"sector{k + 1}", name=f"Sector {k + 1}", size_mm=(1.5 * L, round(hgt, 3)),
                          thickness_mm=GK_THICKNESS_MM, outline=outline, image=f"galaktico/sector{k + 1}.jpg",
                          grids=[Grid(id=f"s{k + 1}", origin=(0.0, 0.0), u=u, v=v, rows=GK_N, cols=GK_N,
                                      marks=marks)]))
    # the three rhombi meet with their 120-degree corner (L, 0) at the hexagon's centre (0, 0):
    # placement p_table = R(theta) p_tile + t with R(theta) (L, 0) + t = 0.
    nominal = []
    for k in range(3):
        th = math.radians(120.0 * k)
        nominal.append(NominalPlacement(tile=f"sector{k + 1}", x=round(-L * math.cos(th), 4),
                                        y=round(-L * math.sin(th), 4), rotation_deg=120.0 * k))
    pieces = []
    for color in GK_COLORS:
        for kind, (r, hh, sides, count) in GK_FIGURES.items():
            # a cast figure: a round base plate 2.5 mm high, the body, a smaller top
            if sides == 0:
                body = dict(diameter_mm=round(2 * r * 0.78, 3))
                top = dict(diameter_mm=round(2 * r * 0.45, 3))
            else:
                body = dict(polygon=_regular(sides, r * 0.78))
                top = dict(polygon=_regular(sides, r * 0.45))
            layers = [Layer(h0=0.0, h1=2.5), Layer(h0=2.5, h1=round(hh * 0.8, 3), **body),
                      Layer(h0=round(hh * 0.8, 3), h1=hh, **top)]
            pieces.append(PieceSpec(kind=f"figure:{kind}", color=color, diameter_mm=2 * r, height_mm=hh,
                                    count=count, layers=layers))
    # a rough heptagon, centred on its centroid (the piece's centre: a rock's heading is hard to
    # see, and should not move where the referee puts it)
    rock = [(11.485, -0.324), (7.485, 8.176), (-1.515, 10.676), (-9.515, 5.676), (-10.515, -3.324),
            (-4.515, -10.324), (5.485, -9.324)]
    pieces.append(PieceSpec(kind="meteor", color="grey", polygon=rock, height_mm=12.0, count=24,
                            layers=[Layer(h0=0.0, h1=6.6), Layer(h0=6.6, h1=12.0, scale=0.72)]))
    return ProfileFile(game="galaktico", name="Galaktico (nominal)", nominal=True,
                       notes="Three rhombic sectors of 6x6 spaces (40 mm) forming a hexagon; nominal.",
                       tiles=tiles, pieces=pieces, pieces_stack=False,  # one space ship per space
                       arrangement=Arrangement(kind="fixed", gap_mm=1.0, nominal=nominal))


# --------------------------------------------------------------------------------------- ASF CCG

CARD_W, CARD_H = 63.0, 88.0


def asfccg_profile() -> ProfileFile:
    W, H = 720.0, 420.0
    zones = []
    x0 = (W - 8 * 78.0) / 2 + 7.5
    for i in range(8):
        x = x0 + i * 78.0
        zones.append(Zone(id=f"planet{i + 1}", kind="spaceline",
                          polygon=[(x, 166.0), (x + 66.0, 166.0), (x + 66.0, 257.0), (x, 257.0)]))
    for p, y in (("p1", 310.0), ("p2", 20.0)):
        zones.append(Zone(id=f"{p}_draw", kind="draw_deck", polygon=[(620.0, y), (686.0, y), (686.0, y + 91), (620.0, y + 91)]))
        zones.append(Zone(id=f"{p}_interventions", kind="intervention_pile",
                          polygon=[(34.0, y), (100.0, y), (100.0, y + 91), (34.0, y + 91)]))
        zones.append(Zone(id=f"{p}_station", kind="station_row",
                          polygon=[(130.0, y), (590.0, y), (590.0, y + 91), (130.0, y + 91)]))
    tile = Tile(id="playmat", name="ASF play mat", size_mm=(W, H), thickness_mm=2.0, image="asfccg/playmat.jpg",
                zones=zones)
    card = [(-CARD_W / 2, -CARD_H / 2), (CARD_W / 2, -CARD_H / 2), (CARD_W / 2, CARD_H / 2), (-CARD_W / 2, CARD_H / 2)]
    pieces = [PieceSpec(kind="card", color="face_up", polygon=card, height_mm=0.35),
              PieceSpec(kind="card", color="face_down", polygon=card, height_mm=0.35, image="asfccg/card_back.jpg")]
    return ProfileFile(game="asfccg", name="ASF CCG on a play mat (nominal)", nominal=True,
                       notes="Cards are 63x88 mm; the play mat marks the spaceline and each player's piles.",
                       tiles=[tile], pieces=pieces,
                       arrangement=Arrangement(kind="fixed", nominal=[NominalPlacement(tile="playmat", x=0, y=0)]))


BUILDERS = {"pitchfleet": pitchfleet_profile, "pitrush": pitrush_profile, "galaktico": galaktico_profile,
            "asfccg": asfccg_profile}


def check_layout(profile: ProfileFile, min_gap_mm: float = 4.0) -> list[str]:
    """Problems in a profile's zone layout: zones outside their tile, or closer than ``min_gap_mm``."""
    problems = []
    for t in profile.tiles:
        out = t.outline_polygon()
        geoms = [(z.id, z.geometry()) for z in t.zones] + [(p.id, p.geometry()) for p in t.pits]
        for zid, g in geoms:
            if not out.buffer(-3.0).contains(g):
                problems.append(f"{t.id}/{zid} reaches past the tile edge")
        for i in range(len(geoms)):
            for j in range(i + 1, len(geoms)):
                d = shapely.distance(geoms[i][1], geoms[j][1])
                if d < min_gap_mm:
                    problems.append(f"{t.id}: {geoms[i][0]} and {geoms[j][0]} are {d:.1f} mm apart")
    return problems
