"""What both routes to the Newton matrix share (:mod:`flexmbs.engine.jacobian`, dense differences, and
:mod:`flexmbs.engine.local_jacobian`, local differences): the blocks, the residual they difference, and the state
elements' blocks ``D_z``, ``G_z`` (analytic where an element gives them)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .system import measure, to_coordinates_vector

__all__ = ["JacobianBlocks", "dynamics_residual", "state_blocks"]


@dataclass
class JacobianBlocks:
    K: np.ndarray  # (n_q, n_q)
    C: np.ndarray  # (n_q, n_q)
    Dz: np.ndarray  # (n_q, n_z)
    Gq: np.ndarray  # (n_z, n_q)
    Gv: np.ndarray  # (n_z, n_q)
    Gz: np.ndarray  # (n_z, n_z)
    evaluations: int = 0


def dynamics_residual(system, q, v, qdd, z, lam, t, with_constraints=True):
    """``R = M q̈ - Q + Φ_qᵀ λ`` (n_q,) and ``ż`` (n_z,) at one state (``with_constraints=False`` leaves out ``Φ_qᵀ λ``)."""
    ctx = system.context(q, v, t, lam)
    mass, force, zdot = system.forces_and_mass(ctx, z)
    res = mass @ qdd - force
    if with_constraints and system.n_c:
        _, jac = system.constraints(ctx)
        res = res + jac.T @ lam
    return res, zdot


def difference_increment(x: float) -> float:
    """Forward-difference step for a coordinate of value ``x``."""
    return 1e-7 * max(1.0, abs(x))


def state_blocks(system, q, v, qdd, z, lam, t, res0, zdot0):
    """``D_z`` and ``G_z``: element Jacobians where given, forward differences otherwise."""
    n_q, n_z = system.n_q, system.n_z
    Dz = np.zeros((n_q, n_z))
    Gz = np.zeros((n_z, n_z))
    count = 0
    ctx = None
    for k, element in enumerate(system.elements):
        cols = slice(system.z_offsets[k], system.z_offsets[k + 1])
        jac_fn = getattr(element, "jacobians", None)
        blocks = None
        if callable(jac_fn):
            if ctx is None:
                ctx = system.context(q, v, t, lam)
            y, ydot, grads = measure(ctx, element.measurements)
            blocks = jac_fn(t, z[cols], y, ydot)
        if blocks is not None and "rates_z" in blocks and "forces_z" in blocks:
            Gz[cols, cols] = np.atleast_2d(blocks["rates_z"])
            forces_z = np.atleast_2d(blocks["forces_z"])  # (n_y, n_z_e)
            for i_y, grad in enumerate(grads):
                for body, g in grad:
                    gen = to_coordinates_vector(g, ctx.kin[body.index])
                    Dz[body.slice, cols] -= np.outer(gen, forces_z[i_y])
            continue
        zp = z.copy()
        for j in range(cols.start, cols.stop):
            h = difference_increment(z[j])
            zp[j] = z[j] + h
            res, zdot = dynamics_residual(system, q, v, qdd, zp, lam, t)
            zp[j] = z[j]
            Dz[:, j] = (res - res0) / h
            Gz[:, j] = (zdot - zdot0) / h
            count += 1
    return Dz, Gz, count
