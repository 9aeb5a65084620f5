"""Colour names of pieces, robust to the light: white balance from the board, names by hue and lightness.

The calibration learns per-channel gains that map the photo's colours onto the colours of the
boards' own pictures (the board is the colour reference: its print is known).  A piece's colour is
then the median of its pixels after those gains, named by the nearest *generic* prototype among the
colours the profile's pieces can have, compared in CIE Lab with hue weighted over lightness for
chromatic colours.  The prototypes are textbook colours, not values fitted to any photo; a
"show the pieces" photo at calibration may replace them with learned ones (``appearance.colors``).
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

# generic sRGB prototypes (R, G, B)
PROTOTYPES_RGB = {
    "red": (200, 35, 35), "blue": (35, 80, 200), "yellow": (235, 200, 40), "green": (40, 150, 60),
    "white": (238, 238, 238), "black": (28, 28, 30), "silver": (185, 188, 192), "grey": (120, 120, 120),
    "orange": (235, 120, 30), "violet": (130, 60, 170),
}
ACHROMATIC = {"white", "black", "silver", "grey"}
GREY_CHROMA = 12.0    # a prototype with less chroma than this is named as a grey (by lightness)
HUELESS_CHROMA = 10.0  # a colour with less chroma than this has no hue to speak of


def achromatic(name: str, proto_lab) -> bool:
    """Whether a colour name, with its prototype (Lab), is named by lightness rather than by hue."""
    return name in ACHROMATIC or float(np.hypot(proto_lab[1], proto_lab[2])) < GREY_CHROMA


def _lab(rgb) -> np.ndarray:
    a = np.asarray(rgb, dtype=np.float32).reshape(1, -1, 3) / 255.0
    return cv2.cvtColor(a, cv2.COLOR_RGB2Lab).reshape(-1, 3)


def textbook_lab(name: str) -> np.ndarray:
    """The textbook prototype of a colour name, CIE Lab (L 0..100)."""
    return _textbook_lab(name).copy()


@lru_cache(maxsize=None)
def _textbook_lab(name: str) -> np.ndarray:
    # (the detector names every posed piece among the same few colours: converted once each)
    return _lab(PROTOTYPES_RGB[name])[0]


class ColorNamer:
    """Names a (white-balanced) colour among the colours a game's pieces can have."""

    def __init__(self, names: list[str], learned: dict[str, list[float]] | None = None):
        self.names = [n for n in names if n in PROTOTYPES_RGB or (learned and n in learned)]
        protos = []
        for n in self.names:
            if learned and n in learned:
                protos.append(np.asarray(learned[n], dtype=np.float32))
            else:
                protos.append(textbook_lab(n))
        self.protos = np.array(protos, dtype=np.float32).reshape(-1, 3)
        self._achromatic = np.array([achromatic(n, p) for n, p in zip(self.names, self.protos)], bool)

    def name(self, bgr: np.ndarray) -> tuple[str, float]:
        """Best name and a confidence in [0, 1] for a BGR colour (0..255)."""
        lab = cv2.cvtColor(np.asarray(bgr, dtype=np.float32).reshape(1, 1, 3) / 255.0, cv2.COLOR_BGR2Lab).reshape(3)
        return self.name_lab(lab)

    def name_lab(self, lab: np.ndarray) -> tuple[str, float]:
        """Best name and a confidence in [0, 1] for a CIE Lab colour (L 0..100)."""
        if len(self.names) == 1:
            return self.names[0], 1.0
        d = self.distances(np.asarray(lab, dtype=np.float32))
        order = np.argsort(d)
        best = order[0]
        second = d[order[1]] if len(order) > 1 else d[best] + 50
        conf = float(np.clip((second - d[best]) / (second + 1e-6), 0, 1))
        return self.names[best], conf

    def distances(self, lab: np.ndarray) -> np.ndarray:
        """Distance of a CIE Lab colour (3,) to each name's colour: (names,); of many (N, 3): (N, names)."""
        lab = np.asarray(lab, dtype=np.float32)
        if not len(self.names):
            return np.zeros(lab.shape[:-1] + (0,))
        # (every name at once, the colours along a last axis: the same arithmetic, element for
        # element, as name by name; the detector names a frame's pieces hundreds of times)
        L, a, b = lab[..., 0, None], lab[..., 1, None], lab[..., 2, None]
        pL, pa, pb = self.protos[:, 0], self.protos[:, 1], self.protos[:, 2]
        dh = np.hypot(a - pa, b - pb)
        dL = np.abs(L - pL)
        # achromatic prototypes: lightness matters, chroma away from the prototype's is a penalty
        # (a textbook grey has none; one learned under a lamp may have a cast)
        grey = dL * 1.0 + np.maximum(0.0, dh - 12) * 1.5
        # chromatic: hue angle and chroma first, lightness weakly
        hued = dh + 0.35 * dL + np.where(np.hypot(a, b) < HUELESS_CHROMA, 25.0, 0.0)
        return np.where(self._achromatic, grey, hued)


def white_balance_gains(photo_px: np.ndarray, picture_px: np.ndarray) -> list[float]:
    """Per-channel gains (B, G, R) mapping photo colours to the board pictures' colours.

    Both are (N,3) BGR samples at the same board points; mid-tone samples only, median ratio.
    """
    p = photo_px.astype(np.float64)
    q = picture_px.astype(np.float64)
    ok = np.all((p > 20) & (p < 235) & (q > 20) & (q < 235), axis=1)
    if ok.sum() < 50:
        return [1.0, 1.0, 1.0]
    r = np.median(q[ok] / p[ok], axis=0)
    r = r / r[1]  # keep the exposure; only the cast
    return [float(v) for v in r]


def apply_gains(bgr: np.ndarray, gains) -> np.ndarray:
    g = np.asarray(gains, dtype=np.float32).reshape(1, 1, 3) if np.ndim(bgr) == 3 else np.asarray(gains, np.float32)
    return np.clip(bgr.astype(np.float32) * g, 0, 255)


def learn_colours(labs: np.ndarray, choices: list[list[str]], max_rounds: int = 50
                  ) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Colour prototypes learned from pieces seen in "show the pieces" photos (white-balanced CIE Lab).

    ``labs`` (n, 3): each piece's colour; ``choices[i]``: the colour names piece i's kind comes in.
    The pieces of kinds that come in the same colours are clustered into as many clusters as there
    are colours (k-medians in Lab, started from the textbook prototypes), or fewer where two come
    out near one another (a colour not shown, another split in two), then the clusters are named
    so that the names' textbook prototypes lie nearest overall (one name per cluster): a set whose
    blue is navy, or a lamp that turns red towards magenta, gets prototypes of what this table
    shows, where naming each piece by the nearest textbook colour would have called the navy discs
    black.  So the photo should show every colour at least once; the colours of a kind that no
    cluster was named (or whose cluster cannot be that colour at all, see :func:`_could_be`) keep
    their textbook prototypes.  Returns the learned prototypes and how many pieces each was
    learned from.
    """
    from scipy.optimize import linear_sum_assignment

    labs = np.asarray(labs, dtype=np.float32).reshape(-1, 3)
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, c in enumerate(choices):
        names = tuple(sorted(n for n in set(c) if n in PROTOTYPES_RGB))
        if names:
            groups.setdefault(names, []).append(i)
    learned: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    # (kinds of more colours first: a piece of a kind of fewer, whose colour lies nearer a colour
    # already learned of another kind than any textbook colour of its own, and ``APART_RATIO`` times
    # further from those than the nearest piece of its kind, was read as the wrong kind — a pale
    # red figure read as a grey meteor — and does not teach its kind's colour: it would teach a
    # pinkish grey that names it grey surely.  Pieces all alike far from the textbook, the cast of
    # a set or a lamp, still do)
    for names, idx in sorted(groups.items(), key=lambda g: (-len(g[0]), g[0])):
        protos = np.array([textbook_lab(n) for n in names], np.float32)
        namer = ColorNamer(list(names))
        others = [n for n in learned if n not in names]
        if others:
            own = np.min(namer.distances(labs[idx]), axis=1)
            other = np.min(ColorNamer(others, learned).distances(labs[idx]), axis=1)
            idx = [i for i, d, o in zip(idx, own, other) if not (o < d and d > APART_RATIO * own.min())]
        X = labs[idx]
        # two clusters nearer than a quarter of the closest two of these colours' textbook prototypes
        # are one colour split in two (a colour not shown): fewer clusters are taken then
        near = 0.25 * float(min((np.linalg.norm(a - b) for i, a in enumerate(protos) for b in protos[i + 1:]),
                                default=np.inf))
        for k in range(min(len(names), len(X)), 0, -1):
            C, owner = _k_medians(X, protos, k, max_rounds)
            gaps = [np.linalg.norm(a - b) for i, a in enumerate(C) for b in C[i + 1:]]
            if not gaps or min(gaps) >= near:
                break
        far = np.array([namer.distances(c) for c in C])
        rows, cols = linear_sum_assignment(far)
        named = {j: names[n] for j, n in zip(rows, cols) if _could_be(C[j], names[n])}
        for j, n in _hues_kept_apart(C, named, {j: float(far[j, n]) for j, n in zip(rows, cols)}).items():
            learned[n] = [round(float(v), 2) for v in C[j]]
            counts[n] = int((owner == j).sum())
    return learned, counts


def _hue_deg(lab) -> float:
    return float(np.degrees(np.arctan2(lab[2], lab[1])))


def _hue_gap(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _hues_kept_apart(C: np.ndarray, named: dict[int, str], far: dict[int, float]) -> dict[int, str]:
    """Of clusters ``C`` named ``named`` (cluster -> name), those that keep their names' hues apart
    (``far``: each cluster's distance from its name's textbook colour, as the naming weighed it).

    One colour lit and shaded keeps its hue (it changes in lightness and chroma): two clusters
    named after two colours of the set whose hues lie less than ``MIN_HUE_GAP_FRAC`` of their names'
    textbook gap apart are one colour split in two, one of them named after a colour the photo did
    not show (Galaktico bench scene 7154: yellow figures and no red one, the lit ones a cluster 6
    degrees of hue from the shaded ones' where red's and yellow's lie 57 apart; named red, 47
    degrees from red's hue, within what a lamp may turn a colour, it named four yellow figures red
    surely).  The one further from its name's textbook colour is not learned.  A lamp does not
    turn every hue alike, so no more than that is asked: under one, held-out scene 8080's figures
    turned red towards magenta and blue not at all, the two 46 degrees apart where the textbook
    has 100."""
    kept = dict(named)
    while True:
        worst = None
        chroma = [j for j, n in kept.items() if not achromatic(n, textbook_lab(n))]
        for i, j in ((i, j) for k, i in enumerate(chroma) for j in chroma[k + 1:]):
            pi, pj = textbook_lab(kept[i]), textbook_lab(kept[j])
            if _hue_gap(_hue_deg(C[i]), _hue_deg(C[j])) < MIN_HUE_GAP_FRAC * _hue_gap(_hue_deg(pi), _hue_deg(pj)):
                worst = i if far[i] > far[j] else j
                break
        if worst is None:
            return kept
        del kept[worst]


APART_RATIO = 2.0         # a piece this many times further from its kind's colours than the nearest of its kind
                          # lies apart from them (see learn_colours)
MIN_HUE_GAP_FRAC = 0.25   # two colours of a set lie at least this part of their textbook hues' gap apart
MAX_HUE_SHIFT_DEG = 60.0   # a set's colour (its plastic, the lamp) turns a named colour's hue by less
MAX_GREY_CHROMA = 35.0     # ... and leaves an achromatic one (black, grey, silver, white) about this grey


def _could_be(lab: np.ndarray, name: str) -> bool:
    """Whether a cluster's colour (Lab) can be the set's ``name`` at all: within MAX_HUE_SHIFT_DEG of
    the textbook hue for a chromatic name, no more chroma than MAX_GREY_CHROMA for an achromatic
    one.  A colour the photo did not show leaves another one split in two clusters, one of them
    named after the colour not shown (a second red as the blue): that one is not learned."""
    p = textbook_lab(name)
    c = float(np.hypot(lab[1], lab[2]))
    if achromatic(name, p):
        return c <= MAX_GREY_CHROMA
    turn = abs((np.degrees(np.arctan2(lab[2], lab[1]) - np.arctan2(p[2], p[1])) + 180.0) % 360.0 - 180.0)
    return c >= HUELESS_CHROMA and turn <= MAX_HUE_SHIFT_DEG


def _k_medians(X: np.ndarray, protos: np.ndarray, k: int, max_rounds: int) -> tuple[np.ndarray, np.ndarray]:
    """k clusters of colours X (n, 3; Lab): the centres (medians) and each colour's cluster.  Started
    from the ``k`` of the textbook ``protos`` nearest the colours; a cluster left empty restarts at
    the colour its cluster explains worst."""
    d0 = np.linalg.norm(X[:, None] - protos[None], axis=2)
    C = protos[np.argsort(d0.min(axis=0))[:k]] if k < len(protos) else protos.copy()
    owner = None
    for _ in range(max_rounds):
        d = np.linalg.norm(X[:, None] - C[None], axis=2)
        a = d.argmin(axis=1)
        for j in range(k):
            if not (a == j).any():
                worst = d[np.arange(len(X)), a]
                worst[[(a == a[m]).sum() < 2 for m in range(len(X))]] = -1  # (never empty another)
                a[int(worst.argmax())] = j
        if owner is not None and np.array_equal(a, owner):
            break
        owner = a
        C = np.array([np.median(X[a == j], axis=0) for j in range(k)], np.float32)
    return C, owner
