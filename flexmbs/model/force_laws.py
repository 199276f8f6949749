"""The law of the six-dof bushing, written once as a compiled function: the compiled kernel
(:mod:`flexmbs.engine.spring_kernels`) and :class:`flexmbs.model.forces.Bushing` both call it."""
from __future__ import annotations

import numpy as np

from flexmbs_jit import njit

__all__ = ["bushing_law"]


@njit(cache=True)
def bushing_law(ri, rj, d, dv, dw, fp):
    """``F = R_i (-K_t δ - C_t δ̇)``, ``T = R_i (-K_r θ - C_r θ̇)`` (global, on marker j).

    ``δ = R_iᵀ d`` with ``d = x_j - x_i`` (m), ``θ`` the small rotation vector of ``R_iᵀ R_j`` (its skew part),
    ``δ̇ = R_iᵀ dv`` with ``dv = v_j - v_i - ω_i × d`` (m/s), ``θ̇ = R_iᵀ dw`` with ``dw = ω_j - ω_i`` (rad/s).

    Parameters
    ----------
    ri, rj : (3, 3)
        Marker axes (columns), global.
    d, dv, dw : (3,)
    fp : (12,)
        ``[K_t (3), K_r (3), C_t (3), C_r (3)]``, N/m, N m/rad, N s/m, N m s/rad.

    Returns
    -------
    force, torque, delta, theta : (3,) each
    """
    rel = ri.T @ rj
    theta = 0.5 * np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]])
    delta, ddot, wrel = ri.T @ d, ri.T @ dv, ri.T @ dw
    f_loc, t_loc = np.empty(3), np.empty(3)
    for a in range(3):
        f_loc[a] = -fp[a] * delta[a] - fp[6 + a] * ddot[a]
        t_loc[a] = -fp[3 + a] * theta[a] - fp[9 + a] * wrel[a]
    return ri @ f_loc, ri @ t_loc, delta, theta
