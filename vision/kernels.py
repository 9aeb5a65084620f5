"""The pose fit, compiled (numba): outline points in image px, poses in table mm.

A frame poses ~50 piece models, each by a dozen robust least-squares steps over ~56 outline points
and ~20 silhouette edges.  Written with numpy and OpenCV, every step paid a dozen calls' overhead;
here one call does a whole fit (:func:`fit_pose`): the model's points posed on the table, projected
through the camera (:func:`project_points`, OpenCV's lens model), their convex hulls
(:func:`silhouette_kernel`), the outline's signed distances to them
(:func:`signed_distance_edges`), the analytic Jacobian, and scipy's Trust Region Reflective steps.
:func:`centroid_pose` does the quick pose's centroid steps.  ``tests/test_kernels.py`` holds each
part to what it replaced: numpy's distances to the bit, OpenCV's projection and hulls, LAPACK's
SVD, scipy's solver.

Compiled on first use and cached on disk (numba's ``cache=True``: next to this file, or in the
user's cache folder where that is read-only): the first run on a machine compiles for ~20 s, later
ones load the cache.  :func:`compile_all` does it up front.
"""

from __future__ import annotations

import weakref

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def signed_distance_edges(points, a, b, starts, grad):  # pragma: no cover - compiled
    """Signed distance (px, negative inside) of ``points`` (N, 2) to the union of convex polygons
    given by their edges: edge j runs from ``a[j]`` by ``b[j]`` (E, 2); polygon h's edges are
    ``starts[h]`` up to the next start (H,).  Returns the distances (N,) and, if ``grad``, each
    point's gradient (N, 2; unit, outward; zero on the boundary), its nearest edge of the nearest
    polygon (N,) and the place along that edge (0..1) of the nearest boundary point (N,).

    Ties and order as the numpy formulation it replaced (see tests/test_kernels.py): the
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


# -- the whole pose fit, compiled ---------------------------------------------------------------
#
# The camera is passed as one float64 array (see :func:`camera_params`): R (9, row-major), t (3),
# fx, fy, cx, cy, the 14 distortion coefficients (zero-padded), and the sensor-tilt matrix (9).

CAM_R, CAM_T, CAM_K, CAM_DIST, CAM_TILT, CAM_LEN = 0, 9, 12, 16, 30, 39


def camera_params(R: np.ndarray, tvec: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """A camera (``X_cam = R @ X + tvec``, intrinsics ``K``, OpenCV's distortion coefficients
    ``dist``, 4 to 14 of them) packed for :func:`project_points`."""
    d = np.zeros(14)
    d[:len(dist)] = dist
    out = np.empty(CAM_LEN)
    out[CAM_R:CAM_T] = np.asarray(R, dtype=np.float64).ravel()
    out[CAM_T:CAM_K] = np.asarray(tvec, dtype=np.float64).ravel()
    out[CAM_K:CAM_DIST] = K[0, 0], K[1, 1], K[0, 2], K[1, 2]
    out[CAM_DIST:CAM_TILT] = d
    out[CAM_TILT:] = _tilt_matrix(d[12], d[13]).ravel()
    return out


def clip_height(clip_below_mm: float | None) -> float:
    """The kernels' ``clip``: the height (mm) below which a posed piece is hidden (a disc sunk in a
    pit shows only what rises above the board); minus infinity where nothing is."""
    return -np.inf if clip_below_mm is None else float(clip_below_mm)


_CAMERAS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def kernel_camera(cam) -> np.ndarray:
    """A :class:`calibration.camera.CameraModel` packed for :func:`project_points` (kept with it)."""
    got = _CAMERAS.get(cam)
    if got is None:
        got = _CAMERAS[cam] = camera_params(cam.pose.R, cam.pose.tvec, cam.intrinsics.K, cam.intrinsics.dist)
    return got


def _tilt_matrix(tau_x: float, tau_y: float) -> np.ndarray:
    """OpenCV's ``computeTiltProjectionMatrix``: the projection onto a sensor tilted by ``tau_x``,
    ``tau_y`` (radians); the identity for an untilted one."""
    cx, sx, cy, sy = np.cos(tau_x), np.sin(tau_x), np.cos(tau_y), np.sin(tau_y)
    rot_x = np.array([[1.0, 0.0, 0.0], [0.0, cx, sx], [0.0, -sx, cx]])
    rot_y = np.array([[cy, 0.0, -sy], [0.0, 1.0, 0.0], [sy, 0.0, cy]])
    rot = rot_y @ rot_x
    proj_z = np.array([[rot[2, 2], 0.0, -rot[0, 2]], [0.0, rot[2, 2], -rot[1, 2]], [0.0, 0.0, 1.0]])
    return proj_z @ rot


@njit(cache=True, nogil=True)
def project_points(xyz, cam):  # pragma: no cover - compiled
    """Image px (M, 2) of table-frame points (mm, (M, 3)): ``cv2.projectPoints``'s model (pinhole,
    radial and rational, tangential, thin-prism distortion, tilted sensor)."""
    m = xyz.shape[0]
    out = np.empty((m, 2))
    k = cam[CAM_DIST:CAM_TILT]
    tilt = cam[CAM_TILT:CAM_LEN]
    tilted = k[12] != 0.0 or k[13] != 0.0
    for i in range(m):
        px, py, pz = xyz[i, 0], xyz[i, 1], xyz[i, 2]
        X = cam[0] * px + cam[1] * py + cam[2] * pz + cam[9]
        Y = cam[3] * px + cam[4] * py + cam[5] * pz + cam[10]
        Z = cam[6] * px + cam[7] * py + cam[8] * pz + cam[11]
        z = 1.0 / Z if Z != 0.0 else 1.0
        x = X * z
        y = Y * z
        r2 = x * x + y * y
        r4 = r2 * r2
        r6 = r4 * r2
        a1 = 2 * x * y
        a2 = r2 + 2 * x * x
        a3 = r2 + 2 * y * y
        cdist = 1 + k[0] * r2 + k[1] * r4 + k[4] * r6
        icdist2 = 1.0 / (1 + k[5] * r2 + k[6] * r4 + k[7] * r6)
        xd = x * cdist * icdist2 + k[2] * a1 + k[3] * a2 + k[8] * r2 + k[9] * r4
        yd = y * cdist * icdist2 + k[2] * a3 + k[3] * a1 + k[10] * r2 + k[11] * r4
        if tilted:
            vx = tilt[0] * xd + tilt[1] * yd + tilt[2]
            vy = tilt[3] * xd + tilt[4] * yd + tilt[5]
            vz = tilt[6] * xd + tilt[7] * yd + tilt[8]
            inv = 1.0 / vz if vz != 0.0 else 1.0
            xd = inv * vx
            yd = inv * vy
        out[i, 0] = cam[CAM_K] * xd + cam[CAM_K + 2]
        out[i, 1] = cam[CAM_K + 1] * yd + cam[CAM_K + 3]
    return out


@njit(cache=True, nogil=True)
def _hull_of(px, lo, hi, out, n_out):  # pragma: no cover - compiled
    """Andrew's monotone chain over points ``lo``..``hi`` of ``px``: the convex hull's vertices
    (indices into ``px``, counter-clockwise in image coordinates' sense, no collinear ones) written
    to ``out`` from ``n_out``; returns the new ``n_out``."""
    n = hi - lo
    if n < 3:
        for i in range(lo, hi):
            out[n_out] = i
            n_out += 1
        return n_out
    order = np.empty(n, np.int64)  # by x, then y (insertion sort: a slice has a few dozen points)
    for i in range(n):
        j = i
        while j > 0 and (px[order[j - 1], 0] > px[lo + i, 0]
                         or (px[order[j - 1], 0] == px[lo + i, 0] and px[order[j - 1], 1] > px[lo + i, 1])):
            order[j] = order[j - 1]
            j -= 1
        order[j] = lo + i
    chain = np.empty(2 * n, np.int64)
    k = 0
    for half in range(2):
        start = k
        for jj in range(n):
            j = order[jj] if half == 0 else order[n - 1 - jj]
            while k >= start + 2:
                o, a = chain[k - 2], chain[k - 1]
                cross = ((px[a, 0] - px[o, 0]) * (px[j, 1] - px[o, 1])
                         - (px[a, 1] - px[o, 1]) * (px[j, 0] - px[o, 0]))
                if cross > 0:
                    break
                k -= 1
            chain[k] = j
            k += 1
        k -= 1  # the last point of each half is the first of the other
    for i in range(k):
        out[n_out] = chain[i]
        n_out += 1
    return n_out


@njit(cache=True, nogil=True)
def silhouette_kernel(local, bottom, h0, h1, which, x, y, c, s, base, clip, cam):  # pragma: no cover
    """A posed piece's model points (table mm, (M, 3), z down) and their image px (M, 2), and its
    silhouette's convex polygons: their vertices (indices into those points, one after another)
    and where each polygon's vertices begin — :func:`vision.silhouette.silhouette_hulls`, its
    heading given by its cosine and sine ``c``, ``s``, what lies below ``clip`` mm hidden (see
    :func:`clip_height`)."""
    n = local.shape[0]
    keep = np.empty(n, np.bool_)
    m = 0
    for i in range(n):
        keep[i] = base + h1[i] > clip
        m += keep[i]
    xyz = np.empty((m, 3))
    slice_of = np.empty(m, np.int64)
    j = 0
    for i in range(n):
        if not keep[i]:
            continue
        lx, ly = local[i, 0], local[i, 1]
        xyz[j, 0] = c * lx - s * ly + x
        xyz[j, 1] = s * lx + c * ly + y
        lo = max(base + h0[i], clip)
        xyz[j, 2] = -(lo if bottom[i] else base + h1[i])
        slice_of[j] = which[i]
        j += 1
    px = project_points(xyz, cam)
    verts = np.empty(m, np.int64)
    starts = np.empty(m + 1, np.int64)
    n_hulls = 0
    n_v = 0
    a = 0
    while a < m:
        b = a
        while b < m and slice_of[b] == slice_of[a]:
            b += 1
        starts[n_hulls] = n_v
        n_v = _hull_of(px, a, b, verts, n_v)
        n_hulls += 1
        a = b
    return xyz, px, verts[:n_v], starts[:n_hulls]


@njit(cache=True, nogil=True)
def _model_eval(pts, local, bottom, h0, h1, which, p, heading, fixed, base, clip, cam, prior):  # pragma: no cover
    """Residuals (N + 1: the points' signed distances less the inflation, and the inflation's
    prior) of pose ``p`` (x, y[, heading], inflation), and what their Jacobian needs."""
    th = heading if fixed else p[2]
    rad = np.radians(th)
    xyz, px, verts, starts = silhouette_kernel(local, bottom, h0, h1, which, p[0], p[1], np.cos(rad),
                                               np.sin(rad), base, clip, cam)
    n = pts.shape[0]
    f = np.empty(n + 1)
    infl = p[p.shape[0] - 1]
    if verts.shape[0] == 0:
        for i in range(n):
            f[i] = np.inf
        f[n] = prior * infl
        return f, np.zeros((n, 2)), np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), xyz
    nv = verts.shape[0]
    nxt = np.empty(nv, np.int64)
    for h in range(starts.shape[0]):
        j0 = starts[h]
        j1 = starts[h + 1] if h + 1 < starts.shape[0] else nv
        for j in range(j0, j1):
            nxt[j] = j + 1 if j + 1 < j1 else j0
    a = np.empty((nv, 2))
    b = np.empty((nv, 2))
    for j in range(nv):
        a[j, 0] = px[verts[j], 0]
        a[j, 1] = px[verts[j], 1]
        b[j, 0] = px[verts[nxt[j]], 0] - a[j, 0]
        b[j, 1] = px[verts[nxt[j]], 1] - a[j, 1]
    sd, g, e, t = signed_distance_edges(pts, a, b, starts, True)
    v0 = np.empty(n, np.int64)
    v1 = np.empty(n, np.int64)
    for i in range(n):
        f[i] = sd[i] - infl
        v0[i] = verts[e[i]]
        v1[i] = verts[nxt[e[i]]]
    f[n] = prior * infl
    return f, g, t, v0, v1, xyz


@njit(cache=True, nogil=True)
def _model_jacobian(p, fixed, g, t, v0, v1, xyz, cam, prior, step, c_step, s_step):  # pragma: no cover
    n = g.shape[0]
    n_p = p.shape[0]
    J = np.zeros((n + 1, n_p))
    for i in range(n):
        J[i, n_p - 1] = -1.0
    J[n, n_p - 1] = prior
    if xyz.shape[0] == 0:
        return J
    used, ia, ib = used_vertices(v0, v1, xyz.shape[0])
    img = project_points(moved_vertices(xyz[used], p[0], p[1], step, not fixed, c_step, s_step), cam)
    pose_jacobian_columns(J, img, used.shape[0], step, g, t, ia, ib)
    return J


# Plain loops, not numpy's functions, from here on: numba compiles np.linalg and the BLAS-backed
# products slowly (seconds each), and these vectors have 3 to 57 entries.

EPS = 2.220446049250313e-16  # np.finfo(float).eps


@njit(cache=True, nogil=True)
def _norm(v):  # pragma: no cover - compiled
    acc = 0.0
    for i in range(v.shape[0]):
        acc += v[i] * v[i]
    return np.sqrt(acc)


@njit(cache=True, nogil=True)
def _all_finite(v):  # pragma: no cover - compiled
    for i in range(v.shape[0]):
        if not np.isfinite(v[i]):
            return False
    return True


@njit(cache=True, nogil=True)
def _mat_vec(A, v):  # pragma: no cover - compiled
    out = np.zeros(A.shape[0])
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[i] += A[i, j] * v[j]
    return out


@njit(cache=True, nogil=True)
def _soft_l1_rho(f, f_scale):  # pragma: no cover - compiled
    """The soft-l1 loss's rho and its two derivatives per residual (scaled as scipy scales them)."""
    n = f.shape[0]
    rho = np.empty((3, n))
    for i in range(n):
        z = f[i] / f_scale
        t = 1 + z * z
        rho[0, i] = 2 * (np.sqrt(t) - 1) * f_scale * f_scale
        rho[1, i] = 1.0 / np.sqrt(t)
        rho[2, i] = -0.5 / (t * np.sqrt(t)) / (f_scale * f_scale)
    return rho


@njit(cache=True, nogil=True)
def _soft_l1_cost(f, f_scale):  # pragma: no cover - compiled
    s = 0.0
    for i in range(f.shape[0]):
        z = f[i] / f_scale
        s += 2 * (np.sqrt(1 + z * z) - 1)
    return 0.5 * f_scale * f_scale * s


@njit(cache=True, nogil=True)
def _scale_for_loss(J, f, rho):  # pragma: no cover - compiled
    """The Jacobian and residuals scaled for the robust loss (new arrays)."""
    Js = J.copy()
    fs = f.copy()
    for i in range(f.shape[0]):
        w = np.sqrt(max(rho[1, i] + 2 * rho[2, i] * f[i] * f[i], EPS))
        fs[i] = f[i] * rho[1, i] / w
        for j in range(J.shape[1]):
            Js[i, j] = J[i, j] * w
    return Js, fs


@njit(cache=True, nogil=True)
def svd_thin(A):  # pragma: no cover - compiled
    """The thin SVD of a tall matrix with a few columns (m x n, n small): ``U`` (m x n), the singular
    values ``s`` (descending) and ``V`` (n x n) with ``A = U @ diag(s) @ V.T``, by one-sided Jacobi
    rotations (Hestenes).  For the pose fit's 57 x 4 Jacobians this is as exact as LAPACK's and
    compiles in a fraction of the time numba's ``np.linalg.svd`` takes.  (A zero singular value's
    column of ``U`` is left zero.)"""
    m, n = A.shape
    U = A.copy()
    V = np.zeros((n, n))
    for i in range(n):
        V[i, i] = 1.0
    for _ in range(60):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                alpha = 0.0
                beta = 0.0
                gamma = 0.0
                for i in range(m):
                    alpha += U[i, p] * U[i, p]
                    beta += U[i, q] * U[i, q]
                    gamma += U[i, p] * U[i, q]
                if gamma == 0.0 or abs(gamma) <= EPS * np.sqrt(alpha * beta):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                t = (1.0 if zeta >= 0 else -1.0) / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
                c = 1.0 / np.sqrt(1.0 + t * t)
                s = c * t
                for i in range(m):
                    up, uq = U[i, p], U[i, q]
                    U[i, p] = c * up - s * uq
                    U[i, q] = s * up + c * uq
                for i in range(n):
                    vp, vq = V[i, p], V[i, q]
                    V[i, p] = c * vp - s * vq
                    V[i, q] = s * vp + c * vq
        if not rotated:
            break
    sv = np.empty(n)
    for k in range(n):
        acc = 0.0
        for i in range(m):
            acc += U[i, k] * U[i, k]
        sv[k] = np.sqrt(acc)
    order = np.arange(n)  # by singular value, descending (selection sort: n is small)
    for a in range(n):
        for b in range(a + 1, n):
            if sv[order[b]] > sv[order[a]]:
                order[a], order[b] = order[b], order[a]
    Uo = np.zeros((m, n))
    Vo = np.empty((n, n))
    so = np.empty(n)
    for kk in range(n):
        k = order[kk]
        so[kk] = sv[k]
        for i in range(n):
            Vo[i, kk] = V[i, k]
        if sv[k] > 0.0:
            for i in range(m):
                Uo[i, kk] = U[i, k] / sv[k]
    return Uo, so, Vo


@njit(cache=True, nogil=True)
def _phi(suf, s, alpha, Delta):  # pragma: no cover - compiled
    """The trust-region step's length less ``Delta`` at Levenberg-Marquardt parameter ``alpha``,
    and its derivative."""
    acc = 0.0
    der = 0.0
    for i in range(s.shape[0]):
        denom = s[i] * s[i] + alpha
        acc += (suf[i] / denom) ** 2
        der += suf[i] * suf[i] / (denom * denom * denom)
    p_norm = np.sqrt(acc)
    return p_norm - Delta, -der / p_norm


@njit(cache=True, nogil=True)
def _trust_region_step(n, m, uf, s, V, Delta, initial_alpha):  # pragma: no cover - compiled
    """The step within the trust region (Moré's method on one SVD) and the Levenberg-Marquardt
    parameter, as scipy's ``solve_lsq_trust_region``."""
    rtol = 0.01
    suf = s * uf
    full_rank = s[-1] > EPS * m * s[0] if m >= n else False
    if full_rank:
        p = -_mat_vec(V, uf / s)
        if _norm(p) <= Delta:
            return p, 0.0
    alpha_upper = _norm(suf) / Delta
    alpha_lower = 0.0
    if full_rank:
        phi, phi_prime = _phi(suf, s, 0.0, Delta)
        alpha_lower = -phi / phi_prime
    if not full_rank and initial_alpha == 0:
        alpha = max(0.001 * alpha_upper, np.sqrt(alpha_lower * alpha_upper))
    else:
        alpha = initial_alpha
    for _ in range(10):
        if alpha < alpha_lower or alpha > alpha_upper:
            alpha = max(0.001 * alpha_upper, np.sqrt(alpha_lower * alpha_upper))
        phi, phi_prime = _phi(suf, s, alpha, Delta)
        if phi < 0:
            alpha_upper = alpha
        ratio = phi / phi_prime
        alpha_lower = max(alpha_lower, alpha - ratio)
        alpha -= (phi + Delta) * ratio / Delta
        if abs(phi) < rtol * Delta:
            break
    p = -_mat_vec(V, suf / (s * s + alpha))
    p *= Delta / _norm(p)
    return p, alpha


@njit(cache=True, nogil=True)
def fit_pose(pts, local, bottom, h0, h1, which, x0, heading, fixed, base, clip, cam, prior,
             x_scale, f_scale, max_nfev, xtol, ftol, step, c_step, s_step):  # pragma: no cover - compiled
    """Pose one piece model to an outline (image px): ``x0`` = x mm, y mm[, heading deg], inflation
    px (the heading ``heading`` and not fitted if ``fixed``), robustly (soft-l1, scale
    ``f_scale``).  The steps are scipy's Trust Region Reflective method without bounds
    (``scipy.optimize.least_squares(..., loss="soft_l1", x_scale=x_scale, method="trf")``); the
    residuals are the outline points' signed distances to the posed silhouette less the
    inflation, and the inflation's prior (``prior`` * inflation), with their analytic Jacobian (a
    point's distance moves as its nearest boundary point does, and that point with the two model
    points whose projections bound its edge, each moved ``step`` mm or degrees to see how).
    Returns the solution, its residuals (N + 1) and the residual evaluations made (-1: not finite
    at ``x0``)."""
    x = x0.copy()
    f, g, t, v0, v1, xyz = _model_eval(pts, local, bottom, h0, h1, which, x, heading, fixed, base, clip, cam,
                                       prior)
    if not _all_finite(f):
        return x, f, -1
    J = _model_jacobian(x, fixed, g, t, v0, v1, xyz, cam, prior, step, c_step, s_step)
    nfev = 1
    f_true = f.copy()
    m, n = J.shape
    rho = _soft_l1_rho(f, f_scale)
    cost = 0.5 * rho[0].sum()
    J, f = _scale_for_loss(J, f, rho)
    grad = _mat_vec(J.T, f)
    d = x_scale
    Delta = _norm(x / x_scale)
    if Delta == 0:
        Delta = 1.0
    alpha = 0.0
    done = False
    while True:
        if np.abs(grad).max() < 1e-8:
            done = True
        if done or nfev == max_nfev:
            break
        g_h = d * grad
        J_h = J * d
        U, s, V = svd_thin(J_h)
        uf = _mat_vec(U.T, f)
        actual_reduction = -1.0
        x_new = x
        f_new = f
        cost_new = cost
        while actual_reduction <= 0 and nfev < max_nfev:
            step_h, alpha = _trust_region_step(n, m, uf, s, V, Delta, alpha)
            Js = _mat_vec(J_h, step_h)
            predicted_reduction = -(0.5 * (Js * Js).sum() + (step_h * g_h).sum())
            stp = d * step_h
            x_new = x + stp
            f_new, g, t, v0, v1, xyz = _model_eval(pts, local, bottom, h0, h1, which, x_new, heading, fixed, base,
                                                   clip, cam, prior)
            nfev += 1
            step_h_norm = _norm(step_h)
            if not _all_finite(f_new):
                Delta = 0.25 * step_h_norm
                continue
            cost_new = _soft_l1_cost(f_new, f_scale)
            actual_reduction = cost - cost_new
            if predicted_reduction > 0:
                ratio = actual_reduction / predicted_reduction
            elif predicted_reduction == actual_reduction and actual_reduction == 0:
                ratio = 1.0
            else:
                ratio = 0.0
            Delta_new = Delta
            if ratio < 0.25:
                Delta_new = 0.25 * step_h_norm
            elif ratio > 0.75 and step_h_norm > 0.95 * Delta:
                Delta_new = Delta * 2.0
            ftol_ok = actual_reduction < ftol * cost and ratio > 0.25
            xtol_ok = _norm(stp) < xtol * (xtol + _norm(x))
            if ftol_ok or xtol_ok:
                done = True
                break
            alpha *= Delta / Delta_new
            Delta = Delta_new
        if actual_reduction > 0:
            x = x_new
            f_true = f_new.copy()
            cost = cost_new
            if done or nfev == max_nfev:
                break  # (the Jacobian there would not be used)
            J = _model_jacobian(x, fixed, g, t, v0, v1, xyz, cam, prior, step, c_step, s_step)
            rho = _soft_l1_rho(f_new, f_scale)
            J, f = _scale_for_loss(J, f_new, rho)
            grad = _mat_vec(J.T, f)
        elif done or nfev >= max_nfev:
            break
    return x, f_true, nfev


@njit(cache=True, nogil=True)
def centroid_pose(oc_x, oc_y, local, bottom, h0, h1, which, x, y, c, s, base, clip, cam, h_mid, iters):  # pragma: no cover - compiled
    """The quick pose's centre (table mm): from ``(x, y)``, moved until the area centroid of the
    posed silhouette's convex hull falls on the outline's ``(oc_x, oc_y)`` (image px), at most
    ``iters`` times, each move by the image motion of a point ``h_mid`` mm up (the heading's
    cosine and sine ``c``, ``s``).  See :func:`vision.fit.fast_pose`."""
    grid = np.empty((3, 3))
    for _ in range(iters):
        _, px, verts, _ = silhouette_kernel(local, bottom, h0, h1, which, x, y, c, s, base, clip, cam)
        pts = px[verts]
        out = np.empty(pts.shape[0], np.int64)
        k = _hull_of(pts, 0, pts.shape[0], out, 0)
        a2 = 0.0
        sx = 0.0
        sy = 0.0
        for i in range(k):
            p, q = out[i], out[(i + 1) % k]
            cross = pts[p, 0] * pts[q, 1] - pts[q, 0] * pts[p, 1]
            a2 += cross
            sx += (pts[p, 0] + pts[q, 0]) * cross
            sy += (pts[p, 1] + pts[q, 1]) * cross
        if abs(a2 / 2) < 1e-9:
            mx = 0.0
            my = 0.0
            for i in range(k):
                mx += pts[out[i], 0] / k
                my += pts[out[i], 1] / k
        else:
            mx = sx / (3 * a2)
            my = sy / (3 * a2)
        grid[0, 0], grid[0, 1], grid[0, 2] = x, y, -h_mid
        grid[1, 0], grid[1, 1], grid[1, 2] = x + 1.0, y, -h_mid
        grid[2, 0], grid[2, 1], grid[2, 2] = x, y + 1.0, -h_mid
        p0 = project_points(grid, cam)
        j00, j01 = p0[1, 0] - p0[0, 0], p0[2, 0] - p0[0, 0]
        j10, j11 = p0[1, 1] - p0[0, 1], p0[2, 1] - p0[0, 1]
        det = j00 * j11 - j01 * j10
        rx, ry = oc_x - mx, oc_y - my
        dx = (j11 * rx - j01 * ry) / det
        dy = (-j10 * rx + j00 * ry) / det
        x += dx
        y += dy
        if np.sqrt(dx * dx + dy * dy) < 0.02:
            break
    return x, y


def compile_all() -> None:
    """Have every kernel the pose fit calls from Python compiled (or loaded from numba's cache):
    one tiny fit of a square, its silhouette, its quick pose and its distances.  The first run on
    a machine compiles for ~20 s; later runs load the cache in well under a second.  Called before
    long work so that the time is not charged to its first photo."""
    sq = np.array([[-5.0, -5.0], [5.0, -5.0], [5.0, 5.0], [-5.0, 5.0]])
    local = np.vstack([sq, sq])
    bottom = np.repeat([True, False], 4)
    h0, h1, which = np.zeros(8), np.full(8, 2.0), np.zeros(8, np.int64)
    cam = camera_params(np.eye(3), np.array([0.0, 0.0, 500.0]), np.array([[500.0, 0, 0], [0, 500.0, 0], [0, 0, 1]]),
                        np.zeros(5))
    pts = np.array([[x, y] for x in (-5.0, 0.0, 5.0) for y in (-5.0, 5.0)]) * 1.1
    pts = np.vstack([pts, pts[:, ::-1]])
    for fixed in (True, False):
        x0 = np.array([0.3, 0.2, 0.0]) if fixed else np.array([0.3, 0.2, 1.0, 0.0])
        fit_pose(pts, local, bottom, h0, h1, which, x0, 0.0, fixed, 0.0, -np.inf, cam, 1.0, np.ones(len(x0)), 1.0, 5,
                 1e-4, 1e-4, 1e-3, 1.0, 0.0)
    silhouette_kernel(local, bottom, h0, h1, which, 0.3, 0.2, 1.0, 0.0, 0.0, -np.inf, cam)
    centroid_pose(0.0, 0.0, local, bottom, h0, h1, which, 0.3, 0.2, 1.0, 0.0, 0.0, -np.inf, cam, 1.0, 3)
    signed_distance_edges(pts, sq, np.roll(sq, -1, axis=0) - sq, np.zeros(1, np.int64), False)
