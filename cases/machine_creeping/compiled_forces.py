"""Compiled kernels of the machine's pads (:class:`.pads.PadSet`) and lateral guides (:class:`.guides.LateralGuide`)
for the compiled step (issue 26; protocol: :mod:`flexmbs.engine.force_kernels`). The same equations as the classes'
``generalized_forces`` and ``outputs`` (their docstrings; seed 003 L7476-7490 for the pads, Fig. 4-3 for the guides'
friction), checked against them at random states in ``tests/cases/test_machine_creeping_kernels.py``.
"""
from __future__ import annotations

import math

import numpy as np
from numba import carray

from flexmbs_jit import cfunc, njit

from flexmbs.engine.compiled_forces import friction_mu
from flexmbs.engine.contact_kernels import marker_body
from flexmbs.engine.force_kernels import FORCE_SIGNATURE, ForceKernel, apply_point_load, views

__all__ = ["pad_spec", "guide_spec"]


# --- pads: ipar [n, (marker, body, n_quasi) per pad], fpar [k (3), c (3), floor (n, 3)] ----------------------
@njit(cache=True)
def _pads(mode, X, V, JX, JTH, packed, ip, fp, out):
    """``F_p = -K (x_p - x0_p) - C ẋ_p`` (global axes) at each pad marker."""
    if mode == 1:
        out[0], out[1], out[2] = 0.0, 0.0, 0.0
    for p in range(ip.shape[0]):
        m = ip[p, 0]
        f = np.empty(3)
        for a in range(3):
            f[a] = -(X[m, a] - fp[6 + 3 * p + a]) * fp[a] - V[m, a] * fp[3 + a]
        apply_point_load(m, ip[p, 1], ip[p, 2], f[0], f[1], f[2], 0.0, 0.0, 0.0, JX, JTH, packed)
        if mode == 1:
            for a in range(3):
                out[a] += f[a]
                out[3 + 3 * p + a] = f[a]


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
def _guide(mode, X, R, V, W, JX, JTH, packed, ip, fp, out):
    """``F = -(k e + c ė) n`` plus the friction ``-μ(|v_t|) |F_n| v_t/|v_t|`` in the guide's plane."""
    mp, mo = ip[0], ip[3]
    n = R[mo, :, 1]
    arm = X[mp] - X[mo]
    wo = W[mo]
    vr = np.empty(3)
    for a in range(3):
        vr[a] = V[mp, a] - V[mo, a] - (wo[(a + 1) % 3] * arm[(a + 2) % 3] - wo[(a + 2) % 3] * arm[(a + 1) % 3])
    vn = n[0] * vr[0] + n[1] * vr[1] + n[2] * vr[2]
    deflection = n[0] * arm[0] + n[1] * arm[1] + n[2] * arm[2] - fp[0]
    f_n = -(fp[1] * deflection + fp[2] * vn)
    s0, s1, s2 = vr[0] - vn * n[0], vr[1] - vn * n[1], vr[2] - vn * n[2]
    speed = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    g = 0.0
    if speed > 0.0 and (fp[3] != 0.0 or fp[4] != 0.0):
        g = -friction_mu(speed, fp[3], fp[4], fp[5], fp[6]) * abs(f_n) / speed
    F0, F1, F2 = f_n * n[0] + g * s0, f_n * n[1] + g * s1, f_n * n[2] + g * s2
    apply_point_load(mp, ip[1], ip[2], F0, F1, F2, 0.0, 0.0, 0.0, JX, JTH, packed)
    apply_point_load(mo, ip[4], ip[5], -F0, -F1, -F2, -(arm[1] * F2 - arm[2] * F1), -(arm[2] * F0 - arm[0] * F2),
                     -(arm[0] * F1 - arm[1] * F0), JX, JTH, packed)
    if mode == 1:
        out[0], out[1], out[2] = f_n, abs(g) * speed, deflection


@cfunc(FORCE_SIGNATURE, cache=True)
def guide_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    _guide(mode, X, R, V, W, JX, JTH, packed, carray(ipar_, 6), carray(fpar_, 7), carray(out_, 3))


def guide_spec(guide, system):
    """The :class:`~flexmbs.engine.force_kernels.ForceKernel` of a :class:`.guides.LateralGuide`."""
    v_s = guide.stiction_velocity
    v_d = 1.5 * v_s if guide.dynamic_velocity is None else float(guide.dynamic_velocity)
    ipar = [guide.point.index, *marker_body(guide.point), guide.frame.index, *marker_body(guide.frame)]
    fpar = [guide.offset, guide.stiffness, guide.damping, guide.static, guide.dynamic, v_s, v_d]
    return ForceKernel(guide_kernel.address, np.array(fpar, dtype=float), np.array(ipar),
                       list(guide.output_units)), ""
