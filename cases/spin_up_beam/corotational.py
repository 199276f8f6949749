"""Independent reference for the spin-up beam: a geometrically exact planar beam (issue 28).

Co-rotational Euler–Bernoulli elements (Crisfield, *Non-linear Finite Element Analysis of Solids and Structures*,
vol. 1, 1991, §7.3): each element's rigid motion is followed exactly (chord length ``l`` and angle ``β``) and the
local deformation ``u = l − L₀``, ``θ̄ᵢ = θᵢ − (β − β₀)`` is small, so large rotations and the coupling of axial
force and bending (the stiffening the floating frame lacks) come out of the kinematics, with nothing linearized.
Lumped mass (``ρA h`` per node, ``ρI h`` rotary), explicit central differences, root node clamped to a hub whose
angle is prescribed. It shares no code with fem/, reduction/ or flexmbs/. Compiled with numba. Used by the
validation rows of this case, tests/flexmbs/test_spin_up_beam.py and benchmarks/spin_up_beam.py.
"""
from __future__ import annotations

import numpy as np

from flexmbs_jit import njit


@njit(cache=True)
def _internal_forces(x, y, th, length0, beta0, ea, ei, f):
    f[:] = 0.0
    for e in range(length0.size):
        dx, dy = x[e + 1] - x[e], y[e + 1] - y[e]
        l = np.sqrt(dx * dx + dy * dy)
        c, s = dx / l, dy / l
        beta = np.arctan2(dy, dx)
        u = (l * l - length0[e] ** 2) / (l + length0[e])
        t1 = th[e] - (beta - beta0[e])
        t2 = th[e + 1] - (beta - beta0[e])
        t1 = np.arctan2(np.sin(t1), np.cos(t1))
        t2 = np.arctan2(np.sin(t2), np.cos(t2))
        n = ea * u / length0[e]
        m1 = ei / length0[e] * (4.0 * t1 + 2.0 * t2)
        m2 = ei / length0[e] * (2.0 * t1 + 4.0 * t2)
        # f = Bᵀ [n, m1, m2]: ∂u/∂d = [−c, −s, 0, c, s, 0], ∂θ̄ᵢ/∂d = e_θᵢ − [s, −c, 0, −s, c, 0]/l
        msum = (m1 + m2) / l
        f[3 * e] += -c * n - s * msum
        f[3 * e + 1] += -s * n + c * msum
        f[3 * e + 2] += m1
        f[3 * e + 3] += c * n + s * msum
        f[3 * e + 4] += s * n - c * msum
        f[3 * e + 5] += m2


@njit(cache=True)
def _hub_angle(t, omega_s, ts):
    if t < ts:
        return omega_s / ts * (t * t / 2.0 + (ts / (2.0 * np.pi)) ** 2 * (np.cos(2.0 * np.pi * t / ts) - 1.0))
    return omega_s * (t - ts / 2.0)


@njit(cache=True)
def _run(n_el, length, ea, ei, rho_a, rho_i, omega_s, ts, t_end, dt, every):
    h = length / n_el
    n = n_el + 1
    x0 = np.linspace(0.0, length, n)
    length0 = np.full(n_el, h)
    beta0 = np.zeros(n_el)
    mass = np.empty(3 * n)
    for i in range(n):
        share = 0.5 if (i == 0 or i == n - 1) else 1.0
        mass[3 * i] = share * rho_a * h
        mass[3 * i + 1] = share * rho_a * h
        mass[3 * i + 2] = share * rho_i * h
    d = np.zeros(3 * n)
    for i in range(n):
        d[3 * i] = x0[i]
    v = np.zeros(3 * n)
    f = np.zeros(3 * n)
    steps = int(round(t_end / dt))
    n_out = steps // every + 1
    out = np.zeros((n_out, 2))
    k_out = 0
    for k in range(steps + 1):
        t = k * dt
        # prescribed root: position at the hub centre, rotation = hub angle
        d[0], d[1], d[2] = 0.0, 0.0, _hub_angle(t, omega_s, ts)
        if k % every == 0:
            a = d[2]
            xt, yt = d[3 * (n - 1)], d[3 * (n - 1) + 1]
            out[k_out, 0] = t
            out[k_out, 1] = -np.sin(a) * xt + np.cos(a) * yt  # tip deflection in the hub frame
            k_out += 1
        _internal_forces(d[0::3], d[1::3], d[2::3], length0, beta0, ea, ei, f)
        for j in range(3, 3 * n):
            v[j] += -dt * f[j] / mass[j]
            d[j] += dt * v[j]
    return out[:k_out]


def spin_up_tip_deflection(omega_s, ts=15.0, t_end=20.0, n_elements=40, length=10.0, ea=2.8e7, ei=1.4e4,
                           rho_a=1.2, dt=None, every=None):
    """Tip deflection (m) in the hub frame of the spin-up beam over time (s): (k, 2) array ``[t, deflection]``.

    The hub angle is ``Ωs/Ts (t²/2 + (Ts/2π)² (cos(2πt/Ts) − 1))`` for ``t < Ts`` and ``Ωs (t − Ts/2)`` after
    (Kane, Ryan & Banerjee 1987). Rotary inertia ``ρI = ρA · EI/EA`` (solid section). ``dt`` defaults to 40 % of
    the stability limit of the stiffest (rotational) node.
    """
    rho_i = rho_a * ei / ea
    h = length / n_elements
    if dt is None:
        w_rot = np.sqrt(2.0 * 6.0 * ei / h / (rho_i * h * 0.5))
        w_ax = 2.0 * np.sqrt(ea / rho_a) / h
        dt = 0.8 / max(w_rot, w_ax)
    if every is None:
        every = max(1, int(round(0.005 / dt)))
    return _run(n_elements, length, ea, ei, rho_a, rho_i, omega_s, ts, t_end, dt, every)
