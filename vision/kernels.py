"""The pose fit's inner arithmetic, compiled (numba): image px in, image px out.

The pose fit evaluates an outline's signed distances to a silhouette, and their Jacobian, a
thousand times and more a frame, on ~56 points against ~20 edges.  Written with numpy, each call
builds a dozen (points x edges) planes and pays numpy's per-call cost on each; compiled, one pass
over the pairs does it.  The arithmetic is numpy's own, operation for operation, so the results are
the same to the bit (``tests/test_kernels.py`` holds them to the numpy formulation they replace).

Compiled on first use and cached on disk (numba's ``cache=True``: next to this file, or in the
user's cache folder where that is read-only), so only the first run on a machine pays the ~seconds
of compiling.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def signed_distance_edges(points, a, b, starts, grad):  # pragma: no cover - compiled
    """Signed distance (px, negative inside) of ``points`` (N, 2) to the union of convex polygons
    given by their edges: edge j runs from ``a[j]`` by ``b[j]`` (E, 2); polygon h's edges are
    ``starts[h]`` up to the next start (H,).  Returns the distances (N,) and, if ``grad``, each
    point's gradient (N, 2; unit, outward; zero on the boundary), its nearest edge of the nearest
    polygon (N,) and the place along that edge (0..1) of the nearest boundary point (N,).

    Ties and order as :func:`vision.silhouette.signed_distance_grad`'s numpy formulation: the
    first polygon of the least signed distance, its first edge of the least distance."""
    n = points.shape[0]
    n_edges = a.shape[0]
    n_hulls = starts.shape[0]
    sd = np.empty(n)
    g = np.zeros((n, 2))
    e_out = np.zeros(n, np.int64)
    t_out = np.zeros(n)
    for i in range(n):
        x, y = points[i, 0], points[i, 1]
        best = np.inf
        best_e = 0
        best_t = 0.0
        best_dx = 0.0
        best_dy = 0.0
        for h in range(n_hulls):
            j0 = starts[h]
            j1 = starts[h + 1] if h + 1 < n_hulls else n_edges
            d2_min = np.inf
            e_min = j0
            t_min = 0.0
            dx_min = 0.0
            dy_min = 0.0
            c_min = np.inf
            c_max = -np.inf
            for j in range(j0, j1):
                px = x - a[j, 0]
                py = y - a[j, 1]
                bx = b[j, 0]
                by = b[j, 1]
                t = (px * bx + py * by) / max(bx * bx + by * by, 1e-12)
                t = min(max(t, 0.0), 1.0)
                dx = px - t * bx
                dy = py - t * by
                d2 = dx * dx + dy * dy
                if d2 < d2_min:
                    d2_min = d2
                    e_min = j
                    t_min = t
                    dx_min = dx
                    dy_min = dy
                cross = bx * py - by * px
                c_min = min(c_min, cross)
                c_max = max(c_max, cross)
            dist = np.sqrt(d2_min)
            signed = -dist if (c_min >= 0 or c_max <= 0) else dist
            if signed < best:
                best = signed
                best_e = e_min
                best_t = t_min
                best_dx = dx_min
                best_dy = dy_min
        sd[i] = best
        if grad:
            e_out[i] = best_e
            t_out[i] = best_t
            norm = np.sqrt(best_dx * best_dx + best_dy * best_dy)
            if norm > 1e-12:
                sign = 1.0 if best > 0 else (-1.0 if best < 0 else 0.0)
                g[i, 0] = best_dx / norm * sign
                g[i, 1] = best_dy / norm * sign
    return sd, g, e_out, t_out


@njit(cache=True, nogil=True)
def used_vertices(v0, v1, n_vertices):  # pragma: no cover - compiled
    """The vertices (sorted) that bound the points' nearest edges, and each of ``v0``, ``v1``'s
    place among them: ``np.unique(np.concatenate([v0, v1]), return_inverse=True)``, split."""
    seen = np.zeros(n_vertices, np.int64)
    for v in v0:
        seen[v] = 1
    for v in v1:
        seen[v] = 1
    place = np.empty(n_vertices, np.int64)
    k = 0
    for v in range(n_vertices):
        place[v] = k
        k += seen[v]
    used = np.empty(k, np.int64)
    for v in range(n_vertices):
        if seen[v]:
            used[place[v]] = v
    ia = np.empty(len(v0), np.int64)
    ib = np.empty(len(v1), np.int64)
    for i in range(len(v0)):
        ia[i] = place[v0[i]]
    for i in range(len(v1)):
        ib[i] = place[v1[i]]
    return used, ia, ib


@njit(cache=True, nogil=True)
def moved_vertices(q, x, y, step, turn, c, s):  # pragma: no cover - compiled
    """Model points (table mm, (U, 3)) and the same moved by ``step`` mm along x, along y and, if
    ``turn``, turned about ``(x, y)`` by the angle whose cosine and sine are ``c``, ``s``:
    ((2 or 3) + 1) * U rows, in that order."""
    u = q.shape[0]
    k = 4 if turn else 3
    out = np.empty((k * u, 3))
    for i in range(u):
        qx, qy, qz = q[i, 0], q[i, 1], q[i, 2]
        out[i, 0], out[i, 1], out[i, 2] = qx, qy, qz
        out[u + i, 0], out[u + i, 1], out[u + i, 2] = qx + step, qy + 0.0, qz + 0.0
        out[2 * u + i, 0], out[2 * u + i, 1], out[2 * u + i, 2] = qx + 0.0, qy + step, qz + 0.0
        if turn:
            ax, ay = qx - x, qy - y
            out[3 * u + i, 0] = c * ax - s * ay + x
            out[3 * u + i, 1] = s * ax + c * ay + y
            out[3 * u + i, 2] = qz
    return out


@njit(cache=True, nogil=True)
def pose_jacobian_columns(J, img, u, step, g, t, ia, ib):  # pragma: no cover - compiled
    """Fill ``J``'s first columns (one per move of :func:`moved_vertices`) with the points'
    distances' derivatives: minus the gradient ``g`` (N, 2) dotted with the motion of each point's
    nearest boundary point, which lies at ``t`` along the edge from vertex ``ia`` to ``ib`` (places
    among the U projected vertices; ``img`` ((moves + 1) * U, 2) their image px, unmoved first)."""
    moves = img.shape[0] // u - 1
    for j in range(moves):
        o = (j + 1) * u
        for i in range(g.shape[0]):
            a, b = ia[i], ib[i]
            da0 = (img[o + a, 0] - img[a, 0]) / step
            da1 = (img[o + a, 1] - img[a, 1]) / step
            db0 = (img[o + b, 0] - img[b, 0]) / step
            db1 = (img[o + b, 1] - img[b, 1]) / step
            w = 1.0 - t[i]
            dc0 = w * da0 + t[i] * db0
            dc1 = w * da1 + t[i] * db1
            J[i, j] = -(g[i, 0] * dc0 + g[i, 1] * dc1)
