"""The smooth laws of the hydraulic components as numba functions: values only, for the compiled circuit kernel
(:mod:`hydraulics.compiled_kernel`). Each mirrors the Python function it names (:mod:`hydraulics.smooth`,
:mod:`hydraulics.orifices`, :mod:`hydraulics.fluid`, :mod:`hydraulics.lines`, :mod:`hydraulics.pumps`); the
equations and their seed references are there.
"""
from __future__ import annotations

import math

from flexmbs_jit import njit


# hydraulics.lines: Reynolds numbers of the laminar-turbulent blend
_RE_LAMINAR, _RE_TURBULENT = 2300.0, 4000.0


@njit(cache=True, inline="always")
def orifice_flow(dp, coefficient, lim, cubic):
    """``orifices.orifice_flow``: flow only."""
    if abs(dp) >= lim:
        return coefficient * math.copysign(math.sqrt(abs(dp)), dp)
    root_lim = math.sqrt(lim)
    if not cubic:
        return coefficient * dp / root_lim
    r = dp / lim
    return coefficient * root_lim * (1.25 * r - 0.25 * r ** 3)


@njit(cache=True, inline="always")
def softplus(x, width):
    """``smooth.softplus``: value only."""
    s = x / width
    if s > 40.0:
        return x
    e = math.exp(s)
    if s < -40.0:
        return width * e
    return width * math.log1p(e)


@njit(cache=True, inline="always")
def smooth_lower_limit(x, limit, width):
    """``smooth.smooth_lower_limit``: value only."""
    d = x - limit
    if d >= width:
        return x
    if d <= -width:
        return limit
    return limit + (d + width) ** 2 / (4.0 * width)


@njit(cache=True, inline="always")
def smoothstep(x, x0, x1):
    """``smooth.smoothstep``: value only."""
    if x1 == x0:
        return 1.0 if x >= x1 else 0.0
    s = (x - x0) / (x1 - x0)
    if s <= 0.0:
        return 0.0
    if s >= 1.0:
        return 1.0
    return s * s * (3.0 - 2.0 * s)


@njit(cache=True, inline="always")
def interp(x, fpar, xs, n):
    """``smooth.interp_with_slope`` on ``fpar[xs:xs+n]`` (abscissae) and ``fpar[xs+n:xs+2n]`` (values)."""
    if x <= fpar[xs]:
        return fpar[xs + n]
    if x >= fpar[xs + n - 1]:
        return fpar[xs + 2 * n - 1]
    i = 0
    while fpar[xs + i + 1] <= x:
        i += 1
    slope = (fpar[xs + n + i + 1] - fpar[xs + n + i]) / (fpar[xs + i + 1] - fpar[xs + i])
    return fpar[xs + n + i] + slope * (x - fpar[xs + i])


@njit(cache=True, inline="always")
def bulk_modulus(p, fpar, f):
    """``Fluid.effective_bulk_modulus``: ``fpar[f:f+4]`` = oil modulus, air fraction, polytropic index, air
    reference pressure (absolute); value only."""
    modulus, a0, n, p_ref = fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3]
    if a0 == 0.0:
        return modulus
    p_abs = max(p + 101325.0, 1.0e3)
    oil = 1.0 - a0
    air = a0 * (p_ref / p_abs) ** (1.0 / n)
    return (oil + air) / (oil / modulus + air / (n * p_abs))


@njit(cache=True, inline="always")
def smooth_clamp01(x, width):
    """``pumps.smooth_clamp01``: value only."""
    low = smooth_lower_limit(x, 0.0, width)
    return 1.0 - smooth_lower_limit(1.0 - low, 0.0, width)


@njit(cache=True, inline="always")
def pipe_loss(flow, fpar, f):
    """``Pipe.pressure_loss`` (seed 003 eq. (2-232), (2-210)): value only. ``fpar[f:f+4]`` = laminar gain
    ``128 rho nu l / (pi d^4)``, Reynolds number per flow ``d / (A nu)``, minor-loss factor ``zeta rho / (2 A^2)``,
    Blasius factor ``0.3164 (d/(A nu))^-0.25 (l/d) rho / (2 A^2)``."""
    laminar_gain, reynolds_per_flow, minor, k_turb = fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3]
    q = abs(flow)
    reynolds = q * reynolds_per_flow
    dp_minor = minor * flow * q
    if reynolds <= _RE_LAMINAR:
        return laminar_gain * flow + dp_minor
    dp_turb = k_turb * math.copysign(q ** 1.75, flow)
    s = smoothstep(reynolds, _RE_LAMINAR, _RE_TURBULENT)
    return (1.0 - s) * (laminar_gain * flow) + s * dp_turb + dp_minor
