"""The compiled pose fit (vision.kernels) against what it compiles: numpy's formulation of the
signed distances (to the bit), OpenCV's projection and convex hulls, LAPACK's SVD, numeric
differences of its own residuals, and scipy's least_squares on the same problem."""

import cv2
import numpy as np
import pytest
import shapely
from scipy.optimize import least_squares

from calibration.camera import CameraModel, Intrinsics, Pose
from calibration.profile import BoardProfile
from vision import kernels
from vision.fit import _JAC_TURN, JAC_STEP, fit_one
from vision.kernels import (
    camera_params,
    clip_height,
    fit_pose,
    kernel_camera,
    project_points,
    signed_distance_edges,
    silhouette_kernel,
    svd_thin,
    used_vertices,
)
from vision.silhouette import PieceShape, polygon_edges, signed_distance, silhouette_hulls


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
        got = signed_distance_edges(pts, *polygon_edges(hulls), True)
        for g, want in zip(got, numpy_signed_distance_grad(pts, hulls)):
            np.testing.assert_array_equal(g, want)
        np.testing.assert_array_equal(signed_distance(pts, hulls), got[0])


def test_signed_distances_skip_empty_polygons_and_without_any_are_infinite():
    rng = np.random.default_rng(7)
    hulls = _hulls(rng, 2)
    pts = rng.normal(0, 50, (20, 2))
    np.testing.assert_array_equal(signed_distance(pts, [hulls[0], np.zeros((0, 2)), hulls[1]]),
                                  numpy_signed_distance_grad(pts, hulls)[0])
    assert np.isinf(signed_distance(pts, [])).all()


def test_used_vertices_are_numpys_unique_split():
    rng = np.random.default_rng(3)
    for _ in range(50):
        m = int(rng.integers(1, 40))
        v0, v1 = rng.integers(0, m, 30), rng.integers(0, m, 30)
        used, ia, ib = used_vertices(v0, v1, m)
        want, inv = np.unique(np.concatenate([v0, v1]), return_inverse=True)
        np.testing.assert_array_equal(used, want)
        np.testing.assert_array_equal(np.concatenate([ia, ib]), inv)


@pytest.mark.parametrize("n_dist", [4, 5, 8, 12, 14])
def test_projection_is_opencvs(n_dist):
    rng = np.random.default_rng(n_dist)
    K = np.array([[1400.0, 0, 955], [0, 1390, 545], [0, 0, 1]])
    for _ in range(20):
        rvec = rng.normal(0, 0.3, 3)
        tvec = np.array([rng.normal(0, 50), rng.normal(0, 50), 700 + rng.normal(0, 50)])
        dist = rng.normal(0, 0.05, n_dist)
        if n_dist == 14:
            dist[12:] = rng.normal(0, 0.02, 2)   # a tilted sensor
        xyz = rng.normal(0, 200, (60, 3))
        want = cv2.projectPoints(xyz, rvec, tvec, K, dist)[0].reshape(-1, 2)
        got = project_points(xyz, camera_params(cv2.Rodrigues(rvec)[0], tvec, K, dist))
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


def _camera():
    return CameraModel(Intrinsics.from_fov((1920, 1080), 65, [-0.12, 0.02, 0, 0, 0]),
                       Pose.look_at([120, -80, -800], [300, 260, 0]))


SHAPES = [("galaktico", "figure:destroyer"), ("galaktico", "figure:station"), ("asfccg", "card"),
          ("pitrush", "disc"), ("pitchfleet", "starship")]


def _shape(game, kind):
    prof = BoardProfile.builtin(game)
    return PieceShape.from_spec(next(p for p in prof.data.pieces if p.kind == kind))


@pytest.mark.parametrize("game,kind", SHAPES)
@pytest.mark.parametrize("clipped", [False, True])
def test_silhouettes_are_opencvs_convex_hulls_of_the_projected_slices(game, kind, clipped):
    shape, cam = _shape(game, kind), _camera()
    clip = shape.height_mm / 2 if clipped else None   # (a disc sunk in a pit half its height)
    local, bottom, h0, h1, which = shape.stacked
    for x, y, th in [(250.0, 240.0, 30.0), (40.0, 400.0, 200.0)]:
        c, s = np.cos(np.radians(th)), np.sin(np.radians(th))
        xyz, px, verts, starts = silhouette_kernel(local, bottom, h0, h1, which, x, y, c, s, 0.0, clip_height(clip),
                                                   kernel_camera(cam))
        np.testing.assert_allclose(px, cam.project(xyz), rtol=0, atol=1e-9)
        polys = [px[v] for v in np.split(verts, starts[1:])]
        kept = which[h1 > clip] if clip is not None else which   # a slice below the clip is not seen
        assert len(polys) == len(set(kept)) >= 1
        for poly, sl in zip(polys, sorted(set(kept))):
            ref = cv2.convexHull(px[kept == sl].astype(np.float32)).reshape(-1, 2).astype(np.float64)
            a, b = shapely.Polygon(poly), shapely.Polygon(ref)
            assert a.is_valid and a.symmetric_difference(b).area < 1e-3 * b.area


@pytest.mark.parametrize("rank", [4, 3])
def test_the_thin_svd_is_lapacks(rank):
    rng = np.random.default_rng(rank)
    for m in (5, 20, 57):
        A = rng.normal(0, 3, (m, 4)) * [1.0, 10.0, 0.01, 1.0]
        if rank < 4:
            A[:, 2] = 0.0                      # a round piece's heading: a column of zeros
        U, s, V = svd_thin(A)
        want = np.linalg.svd(A, compute_uv=False)
        np.testing.assert_allclose(s, want, rtol=1e-12, atol=1e-12 * want[0])
        np.testing.assert_allclose(U @ np.diag(s) @ V.T, A, rtol=0, atol=1e-12 * want[0])
        np.testing.assert_allclose(V.T @ V, np.eye(4), atol=1e-12)
        live = s > 0
        np.testing.assert_allclose(U[:, live].T @ U[:, live], np.eye(live.sum()), atol=1e-12)


class CompiledModel:
    """The compiled fit's residuals and Jacobian of one piece's pose (``p`` = x, y[, heading],
    inflation), callable from Python (as scipy wants them)."""

    def __init__(self, shape, cam, pts, base=0.0, clip=None, prior=0.5, heading=None):
        self.args = (np.ascontiguousarray(pts, dtype=np.float64), *shape.stacked)
        self.rest = (base, clip_height(clip), kernel_camera(cam), prior)
        self.heading, self.cam = heading, kernel_camera(cam)
        self.prior = prior

    def _eval(self, p):
        fixed = self.heading is not None
        return kernels._model_eval(*self.args, np.asarray(p, dtype=np.float64), self.heading or 0.0, fixed,
                                   *self.rest)

    def residuals(self, p):
        return self._eval(p)[0]

    def jacobian(self, p):
        _, g, t, v0, v1, xyz = self._eval(p)
        return kernels._model_jacobian(np.asarray(p, dtype=np.float64), self.heading is not None, g, t, v0, v1, xyz,
                                       self.cam, self.prior, JAC_STEP, *_JAC_TURN)

    def fit(self, x0, x_scale, max_nfev=20, tol=1e-4):
        return fit_pose(*self.args, np.asarray(x0, dtype=np.float64), self.heading or 0.0, self.heading is not None,
                        *self.rest, np.asarray(x_scale, dtype=np.float64), 1.0, max_nfev, tol, tol, JAC_STEP,
                        *_JAC_TURN)


def _outline(shape, cam, rng, n=40, noise=1.0, outliers=0):
    """A noisy outline (image px) of the piece posed at (250, 240) mm, 30 degrees: points spread
    along its silhouette's boundary, ``outliers`` of them thrown off it."""
    sil = shapely.union_all([shapely.Polygon(h) for h in silhouette_hulls(shape, cam, 250.0, 240.0, 30.0, 0.0)])
    ring = sil.exterior
    at = shapely.line_interpolate_point(ring, np.sort(rng.uniform(0, 1, n)), normalized=True)
    pts = shapely.get_coordinates(at) + rng.normal(0, noise, (n, 2))
    pts[:outliers] += rng.normal(0, 12.0, (outliers, 2))
    return pts


@pytest.mark.parametrize("game,kind", SHAPES)
def test_pose_jacobian_agrees_with_numeric_differences(game, kind):
    shape, cam = _shape(game, kind), _camera()
    pts = _outline(shape, cam, np.random.default_rng(3))
    # a round piece's heading is not fitted (turning it changes nothing)
    model = CompiledModel(shape, cam, pts, heading=33.0 if shape.round else None)
    p = np.array([251.2, 238.9, 0.4]) if shape.round else np.array([251.2, 238.9, 33.0, 0.4])
    J = model.jacobian(p)
    num = np.zeros_like(J)
    for j in range(len(p)):
        dp = np.zeros(len(p))
        dp[j] = 1e-4
        num[:, j] = (model.residuals(p + dp) - model.residuals(p - dp)) / 2e-4
    for j in range(len(p)):
        err = np.linalg.norm(J[:, j] - num[:, j]) / np.linalg.norm(num[:, j])
        assert err < 0.02, (j, err)


@pytest.mark.parametrize("game,kind", SHAPES)
@pytest.mark.parametrize("seed", range(3))
def test_the_compiled_fit_takes_scipys_steps_to_scipys_answer(game, kind, seed):
    """The solver is scipy's Trust Region Reflective method with the soft-l1 loss: on the same
    residuals and Jacobian it lands where scipy lands, after as many evaluations."""
    shape, cam = _shape(game, kind), _camera()
    rng = np.random.default_rng(seed)
    pts = _outline(shape, cam, rng, n=int(rng.integers(20, 57)), outliers=4)
    model = CompiledModel(shape, cam, pts, heading=33.0 if shape.round else None)
    start = [250.0 + rng.normal(0, 2), 240.0 + rng.normal(0, 2)] + ([] if shape.round else [30 + rng.normal(0, 8)])
    x0, scale = np.array(start + [0.0]), np.array([0.5, 0.5] + ([] if shape.round else [2.0]) + [0.3])
    for max_nfev, tol in ((20, 1e-4), (5, 1e-4), (100, 1e-10)):
        ref = least_squares(model.residuals, x0, jac=model.jacobian, loss="soft_l1", f_scale=1.0, x_scale=scale,
                            max_nfev=max_nfev, xtol=tol, ftol=tol)
        x, fun, nfev = model.fit(x0, scale, max_nfev, tol)
        # (at a tolerance of 1e-10 rounding decides the last step or two: the SVDs differ in it)
        assert nfev == ref.nfev if tol > 1e-6 else abs(nfev - ref.nfev) <= 2
        np.testing.assert_allclose(x, ref.x, rtol=0, atol=1e-7)
        np.testing.assert_allclose(fun, ref.fun, rtol=0, atol=1e-7)
    assert np.hypot(x[0] - 250.0, x[1] - 240.0) < 1.0   # and, given time, it found the piece


def test_a_pose_with_nothing_above_the_clip_is_refused():
    """A piece wholly below the height it is clipped at has no silhouette: no distances, no fit."""
    shape, cam = _shape("pitrush", "disc"), _camera()
    pts = _outline(shape, cam, np.random.default_rng(1))
    _, fun, nfev = CompiledModel(shape, cam, pts, clip=shape.height_mm + 1).fit([250.0, 240.0, 0.0], [0.5, 0.5, 0.3])
    assert nfev == -1 and np.isinf(fun[:-1]).all()
    with pytest.raises(ValueError, match="not finite"):
        fit_one(shape, cam, pts, 0.0, clip_below=shape.height_mm + 1)


def _centroid_pose_with_opencv(shape, cam, oc, x, y, th, base, h_mid, iters=3):
    """The quick pose's centre as it was worked out before it was compiled: OpenCV's hull of the
    silhouette's vertices (in float32), its area centroid, a 2 x 2 solve per move."""
    from vision.fit import polygon_centroid

    for _ in range(iters):
        allp = np.concatenate(silhouette_hulls(shape, cam, x, y, th, base)).astype(np.float32)
        mc, _ = polygon_centroid(cv2.convexHull(allp).reshape(-1, 2).astype(np.float64))
        p0 = cam.project_plane(np.array([[x, y], [x + 1.0, y], [x, y + 1.0]]), h_mid)
        d = np.linalg.solve(np.column_stack([p0[1] - p0[0], p0[2] - p0[0]]), oc - mc)
        x, y = x + float(d[0]), y + float(d[1])
        if np.hypot(*d) < 0.02:
            break
    return x, y


@pytest.mark.parametrize("game,kind", SHAPES)
def test_the_quick_poses_centre_is_found_as_before(game, kind):
    """:func:`vision.kernels.centroid_pose` against the numpy and OpenCV steps it compiles: the
    same centre to 1e-4 mm (OpenCV rounds the hull's points to float32)."""
    from vision.fit import polygon_centroid
    from vision.kernels import centroid_pose

    shape, cam = _shape(game, kind), _camera()
    rng = np.random.default_rng(5)
    for _ in range(5):
        oc, _ = polygon_centroid(_outline(shape, cam, rng, n=50))
        x, y, th = 250.0 + rng.normal(0, 3), 240.0 + rng.normal(0, 3), 30.0 + rng.normal(0, 10)
        h_mid = shape.height_mm / 2
        want = _centroid_pose_with_opencv(shape, cam, oc, x, y, th, 0.0, h_mid)
        c, s = np.cos(np.radians(th)), np.sin(np.radians(th))
        got = centroid_pose(oc[0], oc[1], *shape.stacked, x, y, c, s, 0.0, clip_height(None), kernel_camera(cam), h_mid, 3)
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-4)
