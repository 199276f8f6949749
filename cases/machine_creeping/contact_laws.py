"""Compiled kernels of the machine's pads (:class:`.pads.PadSet`) and lateral guides (:class:`.guides.LateralGuide`)
for the compiled step (issue 26; protocol: :mod:`flexmbs.engine.force_kernels`). Each law is written once here
(:func:`pad_law`, :func:`guide_law`; seed 003 L7476-7490 for the pads, Fig. 4-3 for the guides' friction) and the
classes' ``generalized_forces`` and ``outputs`` call it too; ``tests/cases/test_machine_creeping_kernels.py`` checks
the laws against their closed forms and the kernels' loads against the classes' projection at random states.
"""
from __future__ import annotations

import math

import numpy as np
from numba import carray

from flexmbs_jit import cfunc, njit

from flexmbs.engine.contact_kernels import marker_body
from flexmbs.engine.force_kernels import FORCE_SIGNATURE, ForceKernel, apply_point_load, views
from flexmbs.model.contact_laws import sliding_friction_coefficient

__all__ = ["pad_law", "guide_law", "guide_parameters", "pad_spec", "guide_spec"]


# --- pads: ipar [n, (marker, body, n_quasi) per pad], fpar [k (3), c (3), floor (n, 3)] ----------------------
@njit(cache=True)
def pad_law(X, V, markers, floor, k, c):
    """The pads' law (seed 003 L7476-7490), written once: ``F_p = -K (x_p - x0_p) - C ẋ_p`` (global axes, N) of
    each pad marker ``markers[p]`` (positions ``X``, velocities ``V`` of all markers, (n_m, 3)) against its floor
    point ``floor[p]`` (n, 3) with the diagonal stiffness ``k`` (3,) N/m and damping ``c`` (3,) N s/m. Returns (n, 3).
    """
    f = np.empty((markers.size, 3))
    for p in range(markers.size):
        m = markers[p]
        for a in range(3):
            f[p, a] = -(X[m, a] - floor[p, a]) * k[a] - V[m, a] * c[a]
    return f


@njit(cache=True)
def _pads(mode, X, V, JX, JTH, packed, ip, fp, out):
    """:func:`pad_law` at each pad marker, applied there."""
    n = ip.shape[0]
    f = pad_law(X, V, ip[:, 0].copy(), fp[6:6 + 3 * n].reshape((n, 3)), fp[0:3], fp[3:6])
    if mode == 1:
        out[0], out[1], out[2] = 0.0, 0.0, 0.0
    for p in range(n):
        apply_point_load(ip[p, 0], ip[p, 1], ip[p, 2], f[p, 0], f[p, 1], f[p, 2], 0.0, 0.0, 0.0, JX, JTH, packed)
        if mode == 1:
            for a in range(3):
                out[a] += f[p, a]
                out[3 + 3 * p + a] = f[p, a]


@cfunc(FORCE_SIGNATURE, cache=True)
def pad_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    n = carray(ipar_, 1)[0]
    _pads(mode, X, V, JX, JTH, packed, carray(ipar_, 1 + 3 * n)[1:].reshape((n, 3)),
          carray(fpar_, 6 + 3 * n), carray(out_, 3 + 3 * n))


def pad_spec(pads, system):
    """The :class:`~flexmbs.engine.force_kernels.ForceKernel` of a :class:`.pads.PadSet`."""
    ipar = [len(pads.pad_markers)]
    for m in pads.pad_markers:
        ipar += [m.index, *marker_body(m)]
    fpar = np.concatenate([pads.k, pads.c, pads.floor.ravel()])
    names = ["Fx", "Fy", "Fz"] + [f"{n}_{a}" for n in pads.names for a in ("Fx", "Fy", "Fz")]
    if names != list(pads.output_units):  # the order the kernel writes
        return None, "the pads' outputs differ from the kernel's"
    return ForceKernel(pad_kernel.address, fpar, np.array(ipar), names), ""


# --- lateral guide: ipar [point, its body, n_quasi, frame, its body, n_quasi], fpar [y0, k, c, μ_s, μ_d, v_s, v_d]
@njit(cache=True)
def guide_law(arm, normal, velocity, fp):
    """The lateral guide's law, written once (:mod:`.guides`): with the deflection ``e = n · arm - y0`` and the
    relative velocity ``v`` of the point against the frame, ``F_n = -(k e + c n · v)`` along ``n`` plus the friction
    ``-μ(|v_t|) |F_n| v_t/|v_t|`` of seed 003 Fig. 4-3 in the guide's plane (``v_t = v - (n · v) n``).

    Parameters
    ----------
    arm, normal, velocity : (3,) m, 1, m/s
        ``x_p - x_o``, the frame's y axis, ``v_p - v_o - ω_o × arm``.
    fp : (7,)
        ``[y0, k, c, μ_s, μ_d, v_s, v_d]``.

    Returns
    -------
    force : (3,) N, on the point;  normal_force : float, N;  friction_force : float, N (magnitude);
    deflection : float, m
    """
    n = normal
    vn = n[0] * velocity[0] + n[1] * velocity[1] + n[2] * velocity[2]
    deflection = n[0] * arm[0] + n[1] * arm[1] + n[2] * arm[2] - fp[0]
    f_n = -(fp[1] * deflection + fp[2] * vn)
    s0, s1, s2 = velocity[0] - vn * n[0], velocity[1] - vn * n[1], velocity[2] - vn * n[2]
    speed = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    g = 0.0
    if speed > 0.0 and (fp[3] != 0.0 or fp[4] != 0.0):
        g = -sliding_friction_coefficient(speed, fp[3], fp[4], fp[5], fp[6])[0] * abs(f_n) / speed
    force = np.empty(3)
    force[0], force[1], force[2] = f_n * n[0] + g * s0, f_n * n[1] + g * s1, f_n * n[2] + g * s2
    return force, f_n, abs(g) * speed, deflection


@njit(cache=True)
def _guide(mode, X, R, V, W, JX, JTH, packed, ip, fp, out):
    """:func:`guide_law` between the guide point and the frame, applied at both."""
    mp, mo = ip[0], ip[3]
    arm = X[mp] - X[mo]
    wo = W[mo]
    vr = np.empty(3)
    for a in range(3):
        vr[a] = V[mp, a] - V[mo, a] - (wo[(a + 1) % 3] * arm[(a + 2) % 3] - wo[(a + 2) % 3] * arm[(a + 1) % 3])
    F, f_n, friction, deflection = guide_law(arm, R[mo, :, 1].copy(), vr, fp)
    F0, F1, F2 = F[0], F[1], F[2]
    apply_point_load(mp, ip[1], ip[2], F0, F1, F2, 0.0, 0.0, 0.0, JX, JTH, packed)
    apply_point_load(mo, ip[4], ip[5], -F0, -F1, -F2, -(arm[1] * F2 - arm[2] * F1), -(arm[2] * F0 - arm[0] * F2),
                     -(arm[0] * F1 - arm[1] * F0), JX, JTH, packed)
    if mode == 1:
        out[0], out[1], out[2] = f_n, friction, deflection


@cfunc(FORCE_SIGNATURE, cache=True)
def guide_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    _guide(mode, X, R, V, W, JX, JTH, packed, carray(ipar_, 6), carray(fpar_, 7), carray(out_, 3))


def guide_parameters(guide) -> np.ndarray:
    """``fpar`` of :func:`guide_law`: ``[y0, k, c, μ_s, μ_d, v_s, v_d]`` (``v_d`` defaults to ``1.5 v_s``)."""
    v_s = guide.stiction_velocity
    v_d = 1.5 * v_s if guide.dynamic_velocity is None else float(guide.dynamic_velocity)
    return np.array([guide.offset, guide.stiffness, guide.damping, guide.static, guide.dynamic, v_s, v_d])


def guide_spec(guide, system):
    """The :class:`~flexmbs.engine.force_kernels.ForceKernel` of a :class:`.guides.LateralGuide`."""
    ipar = [guide.point.index, *marker_body(guide.point), guide.frame.index, *marker_body(guide.frame)]
    return ForceKernel(guide_kernel.address, guide_parameters(guide), np.array(ipar), list(guide.output_units)), ""
