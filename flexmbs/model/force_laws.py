"""The laws of the spring-dampers and the six-dof bushing, written once as compiled functions: the compiled kernels
(:mod:`flexmbs.engine.force_elements`, :mod:`flexmbs.engine.spring_kernels`) and the classes of
:mod:`flexmbs.model.forces` call them."""
from __future__ import annotations

import numpy as np

from flexmbs_jit import njit

from fem.scalar_laws import interp

__all__ = ["spring_force", "bushing_law"]


@njit("float64(float64, float64, float64, float64, float64, float64[:], float64[:])", cache=True)
def spring_force(deflection, rate, stiffness, damping, preload, xs, ys):
    """Force of a linear or tabulated spring-damper: ``k x + c ẋ + F_0``, or ``table(x) + c ẋ + F_0`` when a table
    is given (``xs`` not empty; :func:`fem.scalar_laws.interp`, end values held).

    Parameters
    ----------
    deflection, rate : float
        ``x`` (m or rad) from the free length or angle, ``ẋ`` (m/s or rad/s).
    stiffness, damping, preload : float
        ``k`` (N/m or N m/rad; unused with a table), ``c`` (N s/m or N m s/rad), ``F_0`` (N or N m).
    xs, ys : (n,)
        The table of force over deflection, or two empty arrays.

    Returns
    -------
    float
        The tension of a :class:`~flexmbs.model.forces.SpringDamper` (N); minus the torque of a
        :class:`~flexmbs.model.forces.RotationalSpringDamper` (N m, ``F_0 = 0``).
    """
    elastic = stiffness * deflection if xs.size == 0 else interp(deflection, xs, ys)[0]
    return elastic + damping * rate + preload


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
