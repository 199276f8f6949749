"""Jacobian blocks of the model equations for the Newton iteration matrix.

With ``R(q, q̇, q̈, z, λ) = M q̈ - Q - Q_v + Φ_qᵀ λ`` and ``ż = g(q, q̇, z)``:

* ``K = ∂R/∂q`` (includes ``∂(M q̈)/∂q`` and ``∂(Φ_qᵀ λ)/∂q``), ``C = ∂R/∂q̇``   — forward differences;
* ``D_z = ∂R/∂z``, ``G_z = ∂g/∂z`` — from the element's ``jacobians()`` where it provides them
  (``D_z = -(∂y/∂q)ᵀ ∂f/∂z``), forward differences otherwise;
* ``G_q = ∂g/∂q``, ``G_v = ∂g/∂q̇`` — forward differences (they come with the ``K``, ``C`` columns for free).

Force elements with a ``jacobian(ctx)`` method (e.g. :class:`flexmbs.SlidingContact`) are left out of the
differences and add their analytic quasi-coordinate blocks ``∂Q̄_a/∂δ_b``, ``∂Q̄_a/∂u_b`` mapped with ``L``.
"""
from __future__ import annotations

import numpy as np

from .local_jacobian import local_difference_blocks, uses_local_blocks
from .newton_blocks import JacobianBlocks, difference_increment, dynamics_residual, state_blocks
from .system import _l_matrix

__all__ = ["JacobianBlocks", "finite_difference_blocks"]


def finite_difference_blocks(system, q, v, qdd, z, lam, t, velocity: bool = True) -> JacobianBlocks:
    """All Jacobian blocks at one state (forward differences; ``velocity=False`` skips ``C`` and ``G_v``), with
    the analytic blocks of force elements that provide them. Models with a large flexible body take the local
    differences of :mod:`flexmbs.engine.local_jacobian` instead."""
    if uses_local_blocks(system):
        return local_difference_blocks(system, q, v, qdd, z, lam, t, velocity)
    analytic = [f for f in system.forces if callable(getattr(f, "jacobian", None))]
    if not analytic:
        return _difference_blocks(system, q, v, qdd, z, lam, t, velocity)
    forces = system.forces
    system.forces = [f for f in forces if f not in analytic]
    try:
        blocks = _difference_blocks(system, q, v, qdd, z, lam, t, velocity)
    finally:
        system.forces = forces
    ctx = system.context(q, v, t, lam)
    for element in analytic:
        for body_a, body_b, k_ab, c_ab in element.jacobian(ctx):
            la = _l_matrix(body_a, ctx.kin[body_a.index])
            lb = _l_matrix(body_b, ctx.kin[body_b.index])
            blocks.K[body_a.slice, body_b.slice] -= la.T @ k_ab @ lb  # R = M q̈ - Q: ∂R/∂q = -Lᵀ ∂Q̄/∂δ L
            if velocity:
                blocks.C[body_a.slice, body_b.slice] -= la.T @ c_ab @ lb
    return blocks


def _difference_blocks(system, q, v, qdd, z, lam, t, velocity: bool = True) -> JacobianBlocks:
    n_q, n_z = system.n_q, system.n_z
    res0, zdot0 = dynamics_residual(system, q, v, qdd, z, lam, t)
    K = np.empty((n_q, n_q))
    C = np.zeros((n_q, n_q))
    Gq = np.empty((n_z, n_q))
    Gv = np.zeros((n_z, n_q))
    count = 1
    qp = q.copy()
    for j in range(n_q):
        h = difference_increment(q[j])
        qp[j] = q[j] + h
        res, zdot = dynamics_residual(system, qp, v, qdd, z, lam, t)
        qp[j] = q[j]
        K[:, j] = (res - res0) / h
        Gq[:, j] = (zdot - zdot0) / h
        count += 1
    if velocity:
        res0_free, _ = dynamics_residual(system, q, v, qdd, z, lam, t, with_constraints=False)
        vp = v.copy()
        for j in range(n_q):
            h = difference_increment(v[j])
            vp[j] = v[j] + h
            res, zdot = dynamics_residual(system, q, vp, qdd, z, lam, t, with_constraints=False)
            vp[j] = v[j]
            C[:, j] = (res - res0_free) / h
            Gv[:, j] = (zdot - zdot0) / h
            count += 1
    Dz, Gz, n_eval = state_blocks(system, q, v, qdd, z, lam, t, res0, zdot0)
    return JacobianBlocks(K, C, Dz, Gq, Gv, Gz, count + n_eval)
