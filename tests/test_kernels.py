"""The compiled pose-fit arithmetic (vision.kernels) against the numpy formulation it replaced:
the same numbers to the bit, ties broken alike."""

import cv2
import numpy as np
import pytest

from vision.kernels import signed_distance_edges, used_vertices
from vision.silhouette import signed_distance_grad


def numpy_signed_distance_grad(points, hulls):
    """The numpy formulation (all points against all edges on (N, E) planes, reduced per polygon
    with ``reduceat``) that :func:`vision.kernels.signed_distance_edges` compiles."""
    starts = np.cumsum([0] + [len(h) for h in hulls[:-1]])
    a = np.concatenate(hulls)
    b = np.concatenate([np.concatenate([h[1:], h[:1]]) for h in hulls]) - a
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    px = points[:, 0:1] - ax
    py = points[:, 1:2] - ay
    t = np.clip((px * bx + py * by) / np.maximum(bx * bx + by * by, 1e-12), 0.0, 1.0)
    dx, dy = px - t * bx, py - t * by
    d2 = dx * dx + dy * dy
    dist = np.sqrt(np.minimum.reduceat(d2, starts, axis=1))
    cross = bx * py - by * px
    inside = (np.minimum.reduceat(cross, starts, axis=1) >= 0) | (np.maximum.reduceat(cross, starts, axis=1) <= 0)
    signed = np.where(inside, -dist, dist)
    k = signed.argmin(axis=1)
    sd = signed[np.arange(len(points)), k]
    hull_of_edge = np.repeat(np.arange(len(hulls)), [len(h) for h in hulls])
    e = np.where(hull_of_edge[None, :] == k[:, None], d2, np.inf).argmin(axis=1)
    rows = np.arange(len(points))
    v = np.column_stack([dx[rows, e], dy[rows, e]])
    n = np.linalg.norm(v, axis=1, keepdims=True)
    g = np.where(n > 1e-12, v / np.maximum(n, 1e-12), 0.0) * np.sign(sd)[:, None]
    return sd, g, e, t[rows, e]


def _hulls(rng, k):
    out = []
    for _ in range(k):
        p = rng.normal(0, 20, (int(rng.integers(3, 30)), 2)) + rng.normal(0, 30, 2)
        out.append(p[cv2.convexHull(p.astype(np.float32), returnPoints=False).ravel()])
    return out


@pytest.mark.parametrize("n_hulls", [1, 2, 3])
def test_signed_distances_are_numpys_to_the_bit(n_hulls):
    rng = np.random.default_rng(n_hulls)
    for _ in range(300):
        hulls = _hulls(rng, n_hulls)
        pts = rng.normal(0, 50, (int(rng.integers(3, 80)), 2))
        pts[:3] = hulls[-1][:3]                      # on vertices: two edges tie
        pts[3:5] = hulls[0].mean(axis=0)             # inside
        sd, (g, e, t) = signed_distance_grad(pts, hulls)
        ref = numpy_signed_distance_grad(pts, hulls)
        for got, want in zip((sd, g, e, t), ref):
            np.testing.assert_array_equal(got, want)


def test_signed_distances_skip_empty_polygons_and_without_any_are_infinite():
    rng = np.random.default_rng(7)
    hulls = _hulls(rng, 2)
    pts = rng.normal(0, 50, (20, 2))
    with_empty, _ = signed_distance_grad(pts, [hulls[0], np.zeros((0, 2)), hulls[1]])
    np.testing.assert_array_equal(with_empty, numpy_signed_distance_grad(pts, hulls)[0])
    assert np.isinf(signed_distance_grad(pts, [])[0]).all()
    # no gradient asked for: the distances alone, the same
    sd, g, e, t = signed_distance_edges(pts, hulls[0], np.roll(hulls[0], -1, axis=0) - hulls[0], np.array([0]), False)
    np.testing.assert_array_equal(sd, numpy_signed_distance_grad(pts, hulls[:1])[0])


def test_used_vertices_are_numpys_unique_split():
    rng = np.random.default_rng(3)
    for _ in range(50):
        m = int(rng.integers(1, 40))
        v0, v1 = rng.integers(0, m, 30), rng.integers(0, m, 30)
        used, ia, ib = used_vertices(v0, v1, m)
        want, inv = np.unique(np.concatenate([v0, v1]), return_inverse=True)
        np.testing.assert_array_equal(used, want)
        np.testing.assert_array_equal(np.concatenate([ia, ib]), inv)
