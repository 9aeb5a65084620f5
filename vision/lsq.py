"""The pose fit's least-squares solver: scipy's Trust Region Reflective method, as
``scipy.optimize.least_squares(fun, x0, jac=jac, loss="soft_l1", x_scale=..., method="trf")`` runs it
on a problem without bounds and with a dense Jacobian (its ``trf_no_bounds`` with the ``exact``
trust-region solver), step for step and to the bit, without its set-up and bookkeeping per call.

Why not call scipy: the pose fit solves hundreds of tiny problems a frame (3-4 unknowns, ~57
residuals, about ten steps each). There scipy's wrapping (its function objects, the checks of
every input, the loss function's closure, the SVD's checks) cost a third of the fit's time, as much
per step as the model's residuals and Jacobian. ``tests/test_lsq.py`` holds this to scipy's
answers on random robust fits: the same solution, residuals and evaluation counts (on the real
outlines of 12 bench tables it was checked bit-identical when written).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.linalg import norm
from scipy.linalg import svd

EPS = np.finfo(float).eps


@dataclass
class Solution:
    x: np.ndarray      # the solution
    fun: np.ndarray    # the residuals there (not scaled by the loss)
    nfev: int          # residual evaluations (the first, at x0, included)
    njev: int          # Jacobian evaluations
    status: int        # as scipy's: 0 the evaluations ran out, 1 gtol, 2 ftol, 3 xtol, 4 ftol and xtol


def _soft_l1(f: np.ndarray, f_scale: float):
    """The soft-l1 loss's rho and its two derivatives per residual (scaled as scipy scales them)."""
    t = 1 + (f / f_scale) ** 2
    rho = np.empty((3, len(f)))
    rho[0] = 2 * (t ** 0.5 - 1)
    rho[1] = t ** -0.5
    rho[2] = -0.5 * t ** -1.5
    rho[0] *= f_scale ** 2
    rho[2] /= f_scale ** 2
    return rho


def _soft_l1_cost(f: np.ndarray, f_scale: float) -> float:
    t = 1 + (f / f_scale) ** 2
    return 0.5 * f_scale ** 2 * np.sum(2 * (t ** 0.5 - 1))


def _scaled(J: np.ndarray, f: np.ndarray, rho: np.ndarray):
    """Jacobian and residuals scaled for the robust loss (in place)."""
    J_scale = rho[1] + 2 * rho[2] * f ** 2
    J_scale[J_scale < EPS] = EPS
    J_scale **= 0.5
    f *= rho[1] / J_scale
    J *= J_scale[:, np.newaxis]
    return J, f


def _trust_region_step(n: int, m: int, uf: np.ndarray, s: np.ndarray, V: np.ndarray, Delta: float,
                       initial_alpha: float, rtol: float = 0.01, max_iter: int = 10):
    """The step within the trust region (Moré's method on one SVD), as scipy's
    ``solve_lsq_trust_region``: the step, the Levenberg-Marquardt parameter."""
    def phi_and_derivative(alpha):
        denom = s ** 2 + alpha
        p_norm = norm(suf / denom)
        return p_norm - Delta, -np.sum(suf ** 2 / denom ** 3) / p_norm

    suf = s * uf
    full_rank = s[-1] > EPS * m * s[0] if m >= n else False
    if full_rank:
        p = -V.dot(uf / s)
        if norm(p) <= Delta:
            return p, 0.0
    alpha_upper = norm(suf) / Delta
    if full_rank:
        phi, phi_prime = phi_and_derivative(0.0)
        alpha_lower = -phi / phi_prime
    else:
        alpha_lower = 0.0
    if not full_rank and initial_alpha == 0:
        alpha = max(0.001 * alpha_upper, (alpha_lower * alpha_upper) ** 0.5)
    else:
        alpha = initial_alpha
    for _ in range(max_iter):
        if alpha < alpha_lower or alpha > alpha_upper:
            alpha = max(0.001 * alpha_upper, (alpha_lower * alpha_upper) ** 0.5)
        phi, phi_prime = phi_and_derivative(alpha)
        if phi < 0:
            alpha_upper = alpha
        ratio = phi / phi_prime
        alpha_lower = max(alpha_lower, alpha - ratio)
        alpha -= (phi + Delta) * ratio / Delta
        if np.abs(phi) < rtol * Delta:
            break
    p = -V.dot(suf / (s ** 2 + alpha))
    p *= Delta / norm(p)
    return p, alpha


def least_squares_soft_l1(fun: Callable[[np.ndarray], np.ndarray], x0: np.ndarray,
                          jac: Callable[[np.ndarray], np.ndarray], x_scale: np.ndarray, f_scale: float = 1.0,
                          max_nfev: int = 100, xtol: float = 1e-8, ftol: float = 1e-8,
                          gtol: float = 1e-8) -> Solution:
    """Minimise ``sum(rho(fun(x)))`` with the soft-l1 loss from ``x0``: what
    ``scipy.optimize.least_squares(fun, x0, jac=jac, loss="soft_l1", f_scale=f_scale,
    x_scale=x_scale, max_nfev=max_nfev, xtol=xtol, ftol=ftol, gtol=gtol)`` returns for a problem
    without bounds (``fun`` and ``jac`` return new float arrays; they are scaled in place)."""
    x = np.atleast_1d(np.asarray(x0, dtype=float)).copy()
    x_scale = np.asarray(x_scale, dtype=float)
    f = fun(x)
    if not np.all(np.isfinite(f)):
        raise ValueError("Residuals are not finite in the initial point.")
    J = jac(x)
    nfev = njev = 1
    f_true = f.copy()
    m, n = J.shape
    rho = _soft_l1(f, f_scale)
    cost = 0.5 * np.sum(rho[0])
    J, f = _scaled(J, f, rho)
    g = J.T.dot(f)
    d = x_scale  # (the variables' scale: fixed, not the Jacobian's)
    Delta = norm(x * (1 / x_scale))
    if Delta == 0:
        Delta = 1.0
    alpha = 0.0
    status = None
    while True:
        if norm(g, ord=np.inf) < gtol:
            status = 1
        if status is not None or nfev == max_nfev:
            break
        g_h = d * g
        J_h = J * d
        U, s, V = svd(J_h, full_matrices=False, check_finite=False)
        V = V.T
        uf = U.T.dot(f)
        actual_reduction = -1
        while actual_reduction <= 0 and nfev < max_nfev:
            step_h, alpha = _trust_region_step(n, m, uf, s, V, Delta, alpha)
            Js = J_h.dot(step_h)
            predicted_reduction = -(0.5 * np.dot(Js, Js) + np.dot(step_h, g_h))
            step = d * step_h
            x_new = x + step
            f_new = fun(x_new)
            nfev += 1
            step_h_norm = norm(step_h)
            if not np.all(np.isfinite(f_new)):
                Delta = 0.25 * step_h_norm
                continue
            cost_new = _soft_l1_cost(f_new, f_scale)
            actual_reduction = cost - cost_new
            # the trust region's radius after the step's quality
            if predicted_reduction > 0:
                ratio = actual_reduction / predicted_reduction
            elif predicted_reduction == actual_reduction == 0:
                ratio = 1
            else:
                ratio = 0
            Delta_new = Delta
            if ratio < 0.25:
                Delta_new = 0.25 * step_h_norm
            elif ratio > 0.75 and step_h_norm > 0.95 * Delta:
                Delta_new = Delta * 2.0
            step_norm = norm(step)
            ftol_ok = actual_reduction < ftol * cost and ratio > 0.25
            xtol_ok = step_norm < xtol * (xtol + norm(x))
            if ftol_ok or xtol_ok:
                status = 4 if ftol_ok and xtol_ok else 2 if ftol_ok else 3
                break
            alpha *= Delta / Delta_new
            Delta = Delta_new
        if actual_reduction > 0:
            x = x_new
            f = f_new
            f_true = f.copy()
            cost = cost_new
            J = jac(x)
            njev += 1
            rho = _soft_l1(f, f_scale)
            J, f = _scaled(J, f, rho)
            g = J.T.dot(f)
    return Solution(x, f_true, nfev, njev, 0 if status is None else status)
