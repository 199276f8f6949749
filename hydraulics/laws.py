"""The scalar laws of the hydraulic components, written once: numba functions that return the value and its
derivative.

The compiled circuit kernel (:mod:`hydraulics.kernel`) calls them and keeps the values; Python calls
the same functions where it needs a value (a friction law's ``force``, ``Pipe.pressure_loss``, ``Fluid``). The
smooth step and the table lookup are those of flexmbs too, :func:`fem.scalar_laws.smoothstep` and
:func:`fem.scalar_laws.interp`. The regularisations keep the right-hand sides continuously differentiable, which
is what an implicit (Newton-based) integrator needs.

Every function has an explicit signature (float arguments, a ``(value, derivative)`` tuple back): numba compiles
each once, at import from its cache, and a Python caller's integers are converted to floats.
"""
from __future__ import annotations

import math

from flexmbs_jit import njit

from fem.scalar_laws import smoothstep


_PAIR = "UniTuple(float64, 2)"
#: Atmospheric pressure, Pa (absolute): the gas laws (entrained air, accumulators) work in absolute pressure, the
#: circuit in gauge pressure.
ATMOSPHERE = 101325.0
#: Reynolds numbers between which the pipe friction factor blends from laminar to turbulent (hydraulics.lines).
LAMINAR_REYNOLDS, TURBULENT_REYNOLDS = 2300.0, 4000.0


@njit("UniTuple(float64, 3)(float64, float64, float64, boolean)", cache=True)
def orifice_flow(dp, coefficient, lim, cubic):
    """Orifice law with a laminar region around zero pressure drop (seed 002 eq. (5), (6); seed 003 eq. (2-228)).

    For ``|dp| >= dp_lim``: ``Q = gamma_2 sign(dp) sqrt(|dp|)`` (turbulent square-root law). For ``|dp| < dp_lim``:
    with ``cubic`` ``Q = gamma_2/sqrt(dp_lim) (5/4 dp - 1/4 dp^3/dp_lim^2)``, the odd cubic that matches value and
    slope of the square-root law at ``+-dp_lim`` (C1, monotone); else ``Q = gamma_2 dp / sqrt(dp_lim)``, seed 002
    eq. (6) exactly (continuous value, the slope jumps by a factor 2 at ``dp_lim``).

    Parameters
    ----------
    dp : float, Pa
        ``p_A - p_B``.
    coefficient : float, m^3/(s Pa^0.5)
        ``gamma_2 = C_d A sqrt(2/rho)``.
    lim : float, Pa
        ``dp_lim``.
    cubic : bool

    Returns
    -------
    flow : float, m^3/s
    d_flow_d_pressure : float, m^3/(s Pa)
    d_flow_d_coefficient : float, Pa^0.5
    """
    if abs(dp) >= lim:
        root = math.sqrt(abs(dp))
        return coefficient * math.copysign(root, dp), 0.5 * coefficient / root, math.copysign(root, dp)
    root_lim = math.sqrt(lim)
    if cubic:
        r = dp / lim
        shape = root_lim * (1.25 * r - 0.25 * r ** 3)
        slope = (1.25 - 0.75 * r * r) / root_lim
    else:
        shape, slope = dp / root_lim, 1.0 / root_lim
    return coefficient * shape, coefficient * slope, shape


@njit(_PAIR + "(float64, float64)", cache=True)
def softplus(x, width):
    """Smooth ``max(x, 0)``: ``width * log(1 + exp(x / width))``; the error against ``max(x, 0)`` is at most
    ``width * log 2`` and decays like ``width * exp(-|x| / width)`` (``width`` in the unit of ``x``)."""
    s = x / width
    if s > 40.0:
        return x, 1.0
    if s < -746.0:  # exp(s) would be +0.0 through libm's slow underflow path (errno): a volume's cavitation floor
        return width * 0.0, 0.0  # takes it at every evaluation at working pressure (race: 70 ns of a 520 ns circuit)
    e = math.exp(s)
    if s < -40.0:
        return width * e, e
    return width * math.log1p(e), e / (1.0 + e)


@njit(_PAIR + "(float64, float64, float64)", cache=True)
def smooth_lower_limit(x, limit, width):
    """C1 ``max(x, limit)``, exact for ``x >= limit + width`` and for ``x <= limit - width``; between, the quadratic
    blend ``limit + (x - limit + width)^2 / (4 width)`` joins value and slope."""
    d = x - limit
    if d >= width:
        return x, 1.0
    if d <= -width:
        return limit, 0.0
    return limit + (d + width) ** 2 / (4.0 * width), (d + width) / (2.0 * width)


@njit(_PAIR + "(float64, float64)", cache=True)
def smooth_sign(x, width):
    """``tanh(x / width)``: a sign function regularised over ``width``."""
    th = math.tanh(x / width)
    return th, (1.0 - th * th) / width


@njit(_PAIR + "(float64, float64, float64, float64, float64)", cache=True)
def bulk_modulus(p, modulus, air_fraction, n, p_ref):
    """Bulk modulus of an oil-air mixture at the gauge pressure ``p`` (Pa) and ``dE/dp``
    (:meth:`hydraulics.fluid.Fluid.effective_bulk_modulus`, where the law is derived): air fraction ``a0`` at the
    absolute pressure ``p_ref``, polytropic index ``n``, ``1/E = ((1 - a0)/E_oil + a/(n p_abs)) / ((1 - a0) + a)``
    with ``a = a0 (p_ref/p_abs)^(1/n)`` and ``p_abs = max(p + 1 atm, 1 kPa)``."""
    if air_fraction == 0.0:
        return modulus, 0.0
    p_abs = max(p + ATMOSPHERE, 1.0e3)
    dp_abs = 1.0 if p + ATMOSPHERE > 1.0e3 else 0.0
    oil = 1.0 - air_fraction
    air = air_fraction * (p_ref / p_abs) ** (1.0 / n)
    d_air = -air / (n * p_abs) * dp_abs
    compliance = oil / modulus + air / (n * p_abs)
    d_compliance = -air * (1.0 + n) / (n * n * p_abs * p_abs) * dp_abs
    volume = oil + air
    return volume / compliance, (d_air * compliance - volume * d_compliance) / compliance ** 2


@njit(_PAIR + "(float64, float64)", cache=True)
def smooth_clamp01(x, width):
    """C1 clamp of ``x`` to [0, 1], exact outside ``width`` of the limits (:func:`smooth_lower_limit` twice)."""
    low, d_low = smooth_lower_limit(x, 0.0, width)
    high, d_high = smooth_lower_limit(1.0 - low, 0.0, width)
    return 1.0 - high, d_high * d_low


@njit(_PAIR + "(float64, float64, float64, float64, float64)", cache=True)
def pipe_loss(flow, laminar_gain, reynolds_per_flow, minor, k_turb):
    """Friction pressure drop of a pipe (Pa) at a flow (m^3/s) and its derivative (Pa s/m^3), seed 003
    eq. (2-232), (2-210): ``lambda = 64/Re`` (``laminar_gain = 128 rho nu l / (pi d^4)``) up to Re = 2300, Blasius
    ``0.3164 Re^-0.25`` (``k_turb = 0.3164 (d/(A nu))^-0.25 (l/d) rho / (2 A^2)``) from Re = 4000, blended by
    :func:`fem.scalar_laws.smoothstep` between; plus the minor loss ``minor q|q|`` (``minor = zeta rho / (2 A^2)``).
    ``reynolds_per_flow = d / (A nu)``."""
    q = abs(flow)
    reynolds = q * reynolds_per_flow
    dp_minor, d_minor = minor * flow * q, 2.0 * minor * q
    if reynolds <= LAMINAR_REYNOLDS:
        return laminar_gain * flow + dp_minor, laminar_gain + d_minor
    dp_turb, d_turb = k_turb * math.copysign(q ** 1.75, flow), 1.75 * k_turb * q ** 0.75
    s, ds_dre = smoothstep(reynolds, LAMINAR_REYNOLDS, TURBULENT_REYNOLDS)
    dp_lam = laminar_gain * flow
    d_s = ds_dre * reynolds_per_flow * math.copysign(1.0, flow)  # ds/dq
    return ((1.0 - s) * dp_lam + s * dp_turb + dp_minor,
            (1.0 - s) * laminar_gain + s * d_turb + d_s * (dp_turb - dp_lam) + d_minor)


# -- friction laws: the force opposing the motion and its velocity derivative (N, N s/m; N m, N m s/rad) ------------
@njit(_PAIR + "(float64, float64, float64, float64)", cache=True)
def coulomb_viscous_friction(v, coulomb, viscous, width):
    """Seed 001 eq. (23): ``F = b v + F_c tanh(v / v_eps)``."""
    s, ds = smooth_sign(v, width)
    return viscous * v + coulomb * s, viscous + coulomb * ds


@njit(_PAIR + "(float64, float64, float64, float64, float64)", cache=True)
def brown_mcphee_friction(v, coulomb, static, stribeck_velocity, viscous):
    """Seed 002 eq. (8): ``F = F_c tanh(4 v/v_s) + (F_s - F_c) (v/v_s) / (1/4 (v/v_s)^2 + 3/4)^2 + sigma_2 v``."""
    r = v / stribeck_velocity
    th = math.tanh(4.0 * r)
    den = 0.25 * r * r + 0.75
    stribeck = r / den ** 2
    d_stribeck = (1.0 / den ** 2 - r * r * den ** -3) / stribeck_velocity
    return (coulomb * th + (static - coulomb) * stribeck + viscous * v,
            coulomb * 4.0 * (1.0 - th * th) / stribeck_velocity + (static - coulomb) * d_stribeck + viscous)


@njit(_PAIR + "(float64, float64, float64, float64, float64, float64, float64)", cache=True)
def stribeck_friction(v, coulomb, static, stribeck_velocity, viscous, width, exponent):
    """Exponential Stribeck curve (Armstrong-Helouvry; Hopsan's and Simscape's translational friction):
    ``F = (F_c + (F_s - F_c) exp(-(|v|/v_s)^delta)) tanh(v / v_eps) + b v``."""
    r = abs(v) / stribeck_velocity
    e = math.exp(-r ** exponent)
    excess = static - coulomb
    g = coulomb + excess * e
    dg = -excess * e * exponent * r ** (exponent - 1.0) * math.copysign(1.0, v) / stribeck_velocity if r > 0.0 \
        else 0.0
    th = math.tanh(v / width)
    return g * th + viscous * v, dg * th + g * (1.0 - th * th) / width + viscous
