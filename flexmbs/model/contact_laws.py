"""The contact laws of flexmbs, written once as compiled functions: the friction coefficient of seed 003 Fig. 3-4 /
Fig. 4-3, the penalty force of eq. (4-1), the sliding window of Fig. 5-1, the friction load of a joint from its
reaction and the point-plane contact.

The compiled kernels (:mod:`flexmbs.engine.force_elements`, :mod:`flexmbs.engine.contact_kernels`, the cases'
own kernels) link them; the element classes (:mod:`flexmbs.model.contacts`, :mod:`flexmbs.model.sliding`) call the
same functions from Python. The smooth step inside them is :func:`fem.scalar_laws.smoothstep` (the one of
hydraulics too). Explicit signatures: compiled once, at import from the cache.
"""
from __future__ import annotations

import math

import numpy as np

from flexmbs_jit import njit

from fem.scalar_laws import smoothstep

__all__ = ["sliding_friction_coefficient", "penalty_law", "penalty_force", "steady_friction_coefficient", "window",
           "friction_coefficients_many", "window_many", "penalty_many", "hard_stop_load", "joint_friction_load",
           "plane_contact_law"]

_PAIR = "UniTuple(float64, 2)"


@njit(_PAIR + "(float64, float64, float64, float64, float64)", cache=True)
def sliding_friction_coefficient(velocity, static, dynamic, stiction_velocity, dynamic_velocity):
    """Signed friction coefficient ``μ(v)`` of seed 003 Fig. 3-4 / Fig. 4-3 and ``dμ/dv`` (s/m).

    ``|v| <= v_s``: ``μ_s (3s/2 - s³/2)``, ``s = |v|/v_s`` (0 at rest, ``μ_s`` with zero slope at ``v_s``:
    regularized stiction); ``v_s <= |v| <= v_d``: the smooth step from ``μ_s`` to ``μ_d``; ``μ_d`` above. Odd in
    ``v``, so ``dμ/dv`` is even.

    Parameters
    ----------
    velocity : float, m/s
    static, dynamic : float, 1
        ``μ_s``, ``μ_d``.
    stiction_velocity, dynamic_velocity : float, m/s
        ``v_s < v_d``.
    """
    speed = abs(velocity)
    if speed <= stiction_velocity:
        s = speed / stiction_velocity
        mu, slope = static * (1.5 * s - 0.5 * s ** 3), static * 1.5 * (1.0 - s * s) / stiction_velocity
    else:
        step, d_step = smoothstep(speed, stiction_velocity, dynamic_velocity)
        mu, slope = static + (dynamic - static) * step, (dynamic - static) * d_step
    return math.copysign(mu, velocity), slope


@njit("UniTuple(float64, 3)(float64, float64, float64, float64, float64, float64)", cache=True)
def penalty_law(penetration, rate, stiffness, exponent, damping, damping_depth):
    """Seed 003 eq. (4-1): ``F = k x^e + step(x, 0, 0, x_d, d) ẋ`` for a penetration ``x > 0`` (m, its rate ``ẋ``
    in m/s), clipped at zero (no adhesion); 0 for ``x <= 0``. ``damping_depth`` 0: the full damping at once.

    Returns
    -------
    force : float, N (or N m for a rotation)
    d_force_d_penetration : float, N/m
    d_force_d_rate : float, N s/m
        Both 0 where the force is 0.
    """
    if penetration <= 0.0:
        return 0.0, 0.0, 0.0
    if damping_depth > 0:
        ramp, d_ramp = smoothstep(penetration, 0.0, damping_depth)
    else:
        ramp, d_ramp = 1.0, 0.0
    force = stiffness * penetration ** exponent + damping * ramp * rate
    if force <= 0.0:
        return 0.0, 0.0, 0.0
    return force, exponent * stiffness * penetration ** (exponent - 1.0) + damping * d_ramp * rate, damping * ramp


@njit("float64(float64, float64, float64, float64, float64, float64)", cache=True)
def penalty_force(penetration, rate, stiffness, exponent, damping, damping_depth):
    """The force of :func:`penalty_law` alone (N)."""
    return penalty_law(penetration, rate, stiffness, exponent, damping, damping_depth)[0]


@njit("float64(float64, float64, float64[:])", cache=True)
def hard_stop_load(x, rate, p):
    """Load (N or N m) along a joint coordinate of end stops at ``x`` (m or rad) moving at ``rate``: the penalty force
    (:func:`penalty_force`) beyond the lower stop, positive, and beyond the upper stop, negative (``HardStop``);
    ``p`` = ``[lower, upper, has lower, has upper, k, e, d, x_d]`` (``has``: 1.0 or 0.0)."""
    value = 0.0
    if p[2] > 0.0 and x < p[0]:
        value += penalty_force(p[0] - x, -rate, p[4], p[5], p[6], p[7])
    if p[3] > 0.0 and x > p[1]:
        value -= penalty_force(x - p[1], rate, p[4], p[5], p[6], p[7])
    return value


@njit("UniTuple(float64[:], 3)(float64[:], float64[:], float64, float64, float64, float64)", cache=True)
def penalty_many(penetration, rate, stiffness, exponent, damping, damping_depth):
    """:func:`penalty_law` at each penetration and rate (n,): forces and their two derivatives (n,)."""
    force, d_pen, d_rate = penetration.copy(), penetration.copy(), penetration.copy()
    for k in range(penetration.size):
        force[k], d_pen[k], d_rate[k] = penalty_law(penetration[k], rate[k], stiffness, exponent, damping,
                                                    damping_depth)
    return force, d_pen, d_rate


@njit("float64(float64, float64, float64, float64)", cache=True)
def steady_friction_coefficient(speed, static, dynamic, stiction_velocity):
    """Coefficient (> 0) of steady sliding at ``speed`` (m/s) of the stick-state joint friction: ``μ_s`` up to
    ``v_s``, the smooth step of seed 003 Fig. 3-4 to ``μ_d`` at ``1.5 v_s``, ``μ_d`` above."""
    return static + (dynamic - static) * smoothstep(abs(speed), stiction_velocity, 1.5 * stiction_velocity)[0]


@njit(_PAIR + "(float64, float64, float64, float64, float64)", cache=True)
def window(dz, d1, d3, d4, d2):
    """Weight ``w(DZ)`` of seed 003 Fig. 5-1 and ``dw/dDZ`` (1/m): 0 outside ``(d1, d2)``, 1 on ``[d3, d4]``, the
    smooth step up from ``d1`` to ``d3`` and down from ``d4`` to ``d2``."""
    up, d_up = smoothstep(dz, d1, d3)
    down, d_down = smoothstep(dz, d2, d4)
    return up * down, d_up * down + up * d_down


@njit("UniTuple(float64[:], 2)(float64[:], float64, float64, float64, float64)", cache=True)
def window_many(dz, d1, d3, d4, d2):
    """:func:`window` at each ``dz`` (n,): weights and derivatives (n,)."""
    w, dw = dz.copy(), dz.copy()
    for k in range(dz.size):
        w[k], dw[k] = window(dz[k], d1, d3, d4, d2)
    return w, dw


@njit("UniTuple(float64[:], 2)(float64[:], float64, float64, float64, float64)", cache=True)
def friction_coefficients_many(velocity, static, dynamic, stiction_velocity, dynamic_velocity):
    """:func:`sliding_friction_coefficient` at each velocity (n,): ``μ`` and ``dμ/dv`` (n,)."""
    mu, dmu = velocity.copy(), velocity.copy()
    for k in range(velocity.size):
        mu[k], dmu[k] = sliding_friction_coefficient(velocity[k], static, dynamic, stiction_velocity,
                                                     dynamic_velocity)
    return mu, dmu


@njit("UniTuple(float64, 6)(float64[:], float64[:], float64[:], int64, float64[:])", cache=True)
def joint_friction_load(force, torque, axis, rotation, p):
    """Friction load per unit coefficient of a joint from its reaction (seed 003 §3.2.1.1; MSC Adams form, the
    module docstring of :mod:`flexmbs.model.contacts`), written once.

    The reaction ``force`` (N) and ``torque`` (N m, about the joint point) split along the unit ``axis`` into the
    axial force ``F_a``, the radial force ``F_r``, the torsional moment ``T_t`` and the bending moment ``T_b``.
    Revolute (``rotation`` 1): ``R_p (F_pre + |F_r| + |T_b|/R_b) + R_n |F_a|`` (N m); prismatic (0):
    ``F_pre + |F_r| + |T_b|/X_s + |T_t|/R_n`` (N). An arm of 0 leaves its term out.

    Parameters
    ----------
    force, torque, axis : (3,)
    rotation : int
    p : (8,)
        ``[μ_s, μ_d, v_s, R_p (1 for a translation), F_pre, R_n, R_b, X_s]`` (the joint friction's parameter row).

    Returns
    -------
    load, normal, radial, axial, bending, torsion : float
        ``normal`` = ``load / R_p`` (revolute) or ``load`` (prismatic), N.
    """
    f_ax = force[0] * axis[0] + force[1] * axis[1] + force[2] * axis[2]
    t_ax = torque[0] * axis[0] + torque[1] * axis[1] + torque[2] * axis[2]
    r0, r1, r2 = force[0] - f_ax * axis[0], force[1] - f_ax * axis[1], force[2] - f_ax * axis[2]
    b0, b1, b2 = torque[0] - t_ax * axis[0], torque[1] - t_ax * axis[1], torque[2] - t_ax * axis[2]
    radial, bending = math.sqrt(r0 * r0 + r1 * r1 + r2 * r2), math.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
    axial, torsion = abs(f_ax), abs(t_ax)
    if rotation:
        load = p[3] * (p[4] + radial + (bending / p[6] if p[6] > 0.0 else 0.0)) + p[5] * axial
        return load, load / p[3], radial, axial, bending, torsion
    load = p[4] + radial + (bending / p[7] if p[7] > 0.0 else 0.0) + (torsion / p[5] if p[5] > 0.0 else 0.0)
    return load, load, radial, axial, bending, torsion


@njit(cache=True)
def plane_contact_law(offset, normal, x_axis, velocity, fp, limited):
    """Point-plane contact (seed 003 eq. (4-1), Fig. 4-3), written once: the penetration ``-n · offset`` of the point
    (``offset`` from the plane's origin, m) under the plane of unit normal ``normal``, none beside a line contact
    (``limited``: ``|x_axis · offset| > half_length``); the normal force :func:`penalty_force` at the penetration
    rate ``-n · v`` (``velocity`` of the point against the plane's material point under it, m/s) and the friction
    ``-μ(|v_t|) F_n v_t/|v_t|`` of the slip ``v_t = v - (n · v) n``.

    Parameters
    ----------
    offset, normal, x_axis, velocity : (3,)
    fp : (9,)
        ``[k, e, d, x_d, μ_s, μ_d, v_s, v_d, half_length]``.
    limited : bool

    Returns
    -------
    force : (3,) N, on the point;  penetration : float, m;  normal_force, friction_force : float, N;
    slip_speed : float, m/s
    """
    penetration = -(normal[0] * offset[0] + normal[1] * offset[1] + normal[2] * offset[2])
    if limited and abs(x_axis[0] * offset[0] + x_axis[1] * offset[1] + x_axis[2] * offset[2]) > fp[8]:
        penetration = -1.0
    vn = normal[0] * velocity[0] + normal[1] * velocity[1] + normal[2] * velocity[2]
    f_n = penalty_force(penetration, -vn, fp[0], fp[1], fp[2], fp[3])
    s0, s1, s2 = velocity[0] - vn * normal[0], velocity[1] - vn * normal[1], velocity[2] - vn * normal[2]
    speed = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    g = 0.0  # friction factor: friction = g * slip
    if f_n > 0.0 and speed > 0.0 and (fp[4] != 0.0 or fp[5] != 0.0):
        g = -sliding_friction_coefficient(speed, fp[4], fp[5], fp[6], fp[7])[0] * f_n / speed
    force = np.empty(3)
    force[0], force[1], force[2] = f_n * normal[0] + g * s0, f_n * normal[1] + g * s1, f_n * normal[2] + g * s2
    return force, penetration, f_n, abs(g) * speed, speed
