"""The pose fit's solver (vision.lsq) against scipy's least_squares, which it does step for step."""

import numpy as np
import pytest
from scipy.optimize import least_squares

from vision.lsq import least_squares_soft_l1


def _problem(rng, n_points: int, rank_deficient: bool):
    """A rotated, shifted ellipse's outline with outliers: residuals are the points' distances to
    the ellipse (roughly), unknowns x, y, turn (deg) and a growth; with ``rank_deficient`` a circle,
    whose turn changes nothing (a round piece's heading)."""
    a, b = (30.0, 30.0) if rank_deficient else (40.0, 22.0)
    t = rng.uniform(0, 2 * np.pi, n_points)
    x0, y0, th0 = rng.uniform(-50, 50), rng.uniform(-50, 50), rng.uniform(0, 180)
    c, s = np.cos(np.radians(th0)), np.sin(np.radians(th0))
    pts = np.column_stack([x0 + c * a * np.cos(t) - s * b * np.sin(t), y0 + s * a * np.cos(t) + c * b * np.sin(t)])
    pts += rng.normal(0, 0.3, pts.shape)
    out = rng.random(n_points) < 0.15
    pts[out] += rng.normal(0, 8.0, (out.sum(), 2))

    def fun(p):
        c, s = np.cos(np.radians(p[2])), np.sin(np.radians(p[2]))
        d = pts - p[:2]
        u, v = c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]
        r = np.hypot(u / a, v / b)
        return np.append((r - 1.0) * min(a, b) - p[3], 0.5 * p[3])

    def jac(p, h=1e-6):
        f0 = fun(p)
        J = np.empty((len(f0), len(p)))
        for k in range(len(p)):
            q = p.copy()
            q[k] += h
            J[:, k] = (fun(q) - f0) / h
        return J

    start = np.array([x0 + rng.normal(0, 4), y0 + rng.normal(0, 4), th0 + rng.normal(0, 10), 0.0])
    return fun, jac, start


@pytest.mark.parametrize("seed", range(12))
def test_the_solver_takes_scipys_steps_to_scipys_answer(seed):
    rng = np.random.default_rng(seed)
    fun, jac, x0 = _problem(rng, int(rng.integers(20, 80)), rank_deficient=seed % 3 == 0)
    scale = np.array([0.5, 0.5, 2.0, 0.3])
    for max_nfev, tol in ((20, 1e-4), (6, 1e-4), (100, 1e-10)):
        ref = least_squares(fun, x0, jac=jac, loss="soft_l1", f_scale=1.0, x_scale=scale, max_nfev=max_nfev,
                            xtol=tol, ftol=tol)
        got = least_squares_soft_l1(fun, x0, jac, scale, f_scale=1.0, max_nfev=max_nfev, xtol=tol, ftol=tol)
        assert (got.nfev, got.njev, got.status) == (ref.nfev, ref.njev, ref.status)
        np.testing.assert_allclose(got.x, ref.x, rtol=0, atol=1e-9)
        np.testing.assert_allclose(got.fun, ref.fun, rtol=0, atol=1e-9)


def test_a_step_to_where_the_residuals_are_not_finite_is_taken_back():
    """Where a step lands outside the model (non-finite residuals) the trust region shrinks, as
    scipy does; a start outside it is refused."""
    def fun(p):
        return np.array([np.log(p[0]) - np.log(0.01), p[1] - 2.0]) if p[0] > 0 else np.full(2, np.inf)

    def jac(p):
        return np.array([[1.0 / p[0], 0.0], [0.0, 1.0]])

    x0, scale = np.array([3.0, 0.0]), np.array([1.0, 1.0])
    ref = least_squares(fun, x0, jac=jac, loss="soft_l1", x_scale=scale, max_nfev=50, xtol=1e-8, ftol=1e-8)
    got = least_squares_soft_l1(fun, x0, jac, scale, max_nfev=50, xtol=1e-8, ftol=1e-8)
    assert got.nfev == ref.nfev
    np.testing.assert_allclose(got.x, ref.x, rtol=0, atol=1e-9)
    with pytest.raises(ValueError, match="not finite"):
        least_squares_soft_l1(fun, np.array([-1.0, 0.0]), jac, scale)
