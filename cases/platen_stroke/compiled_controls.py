"""The stroke controller (:class:`cases.platen_stroke.controls.StrokeCommand`) as a numba kernel, so that the stroke
circuit takes the compiled step (issue 26; the signal-kernel protocol of :mod:`hydraulics.compiled_signals`).

Values only, the same equations as ``StrokeCommand.reference``, ``evaluate``, ``state_rates`` and ``outputs``
(module docstring of :mod:`cases.platen_stroke.controls`: seed 003 §4.2.3, L6479, L6549-6571, the PID of
eq. (4-12)); tests/cases/test_platen_stroke_compiled.py checks them against the methods at random points.

``fpar`` (from ``ipar[i + 1]``): stroke, start time, max velocity, deceleration, acceleration, end of acceleration,
final velocity, safety distance, command limit, ``K_P``, ``K_P/T_I``, ``K_P T_D/T_f``, ``T_f``, tracking time,
deceleration time, trigger distance, hold time, then the velocity-voltage table (``n`` speeds, ``n`` commands).
``ipar`` (from ``ipar[i + 2]``): index of the gap measurement in ``y``, first own state, direction, PID on,
full acceleration, deceleration profile (0 constant, 1 cubic spline, 2 time ramp), ``n``.
"""
from __future__ import annotations

import math

from numba import carray

from flexmbs_jit import cfunc, njit

from fem.scalar_laws import interp, smoothstep

from hydraulics.compiled_kernel import HEAD
from hydraulics.compiled_signals import SIGNAL_SIGNATURE

# the phase codes of controls.PHASES (the "phase" output; the kernel test compares it)
REST, ACCELERATION, PID, OPEN_LOOP, FINAL, STOP, FULL_OPEN = range(7)


@njit("float64(float64, float64, float64, float64)", cache=True)
def spline_travel(sigma, v_max, v_final, duration):
    """Travel (m) covered along the cubic-spline deceleration after the normalised time ``σ = τ/T_d``:
    ``s(σ) = T_d (v_max σ − Δv σ³ + Δv σ⁴/2)``, the integral of ``v(τ) = v_max − Δv (3σ² − 2σ³)``
    (:mod:`cases.platen_stroke.controls`)."""
    dv = v_max - v_final
    return duration * (v_max * sigma - dv * sigma ** 3 + 0.5 * dv * sigma ** 4)


@njit("UniTuple(float64, 2)(float64, float64, float64, float64)", cache=True)
def spline_deceleration(remaining, v_max, v_final, duration):
    """The cubic-spline deceleration reference over the remaining travel ``r`` (m) to the safety distance, written
    once (the kernel and :func:`cases.platen_stroke.controls.spline_deceleration` call it).

    Returns ``(v, dv/dr)`` (m/s, 1/s): ``v_max`` for ``r ≥ D = T_d (v_max + v_f)/2``, ``v_f`` for ``r ≤ 0``, between
    them ``v = v_max − Δv step(σ)`` (the smooth step :func:`fem.scalar_laws.smoothstep`) with ``σ`` from
    ``s(σ) = D − r`` (Newton from ``σ = 0``: ``s`` is increasing and concave, so the iterates rise monotonically to
    the root). Seed 003 L7047–7049 (cubic spline, T_d = 0.5 s at L7043).
    """
    dv = v_max - v_final
    total = 0.5 * duration * (v_max + v_final)
    target = min(max(total - remaining, 0.0), total)
    sigma = 0.0
    for _ in range(100):
        v = v_max - dv * smoothstep(sigma, 0.0, 1.0)[0]
        step = (spline_travel(sigma, v_max, v_final, duration) - target) / (duration * v)
        sigma = min(sigma - step, 1.0)
        if abs(step) < 1e-14:
            break
    shape, slope = smoothstep(sigma, 0.0, 1.0)
    v = v_max - dv * shape
    return v, dv * slope / (duration * v)


@njit(cache=True)
def _deceleration(remaining, z, st, fpar, f, profile):
    """``StrokeCommand._deceleration``: the profile's speed at the remaining travel (m)."""
    v_max, v_final, duration = fpar[f + 2], fpar[f + 6], fpar[f + 14]
    if profile == 1:
        return spline_deceleration(remaining, v_max, v_final, duration)[0]
    if profile == 2:
        frac = z[st + 4] / duration
        if frac >= 1.0:
            return v_final
        return v_max - (v_max - v_final) * frac
    return math.sqrt(v_final ** 2 + 2.0 * fpar[f + 3] * remaining)


@njit(cache=True)
def _reference(t, gap, z, st, fpar, f, direction, pid, full, profile):
    """``StrokeCommand.reference``: ``(speed magnitude, phase)``."""
    stroke, start, safety = fpar[f], fpar[f + 1], fpar[f + 7]
    if t <= start:
        return 0.0, REST
    s = stroke + 1.0 - gap
    if direction > 0:
        remaining = stroke - safety - s
    else:
        remaining = s - safety
        if s <= 0.0:
            return 0.0, STOP
    if remaining <= 0.0:
        return fpar[f + 6], FINAL
    ramp = fpar[f + 4] * (t - start)
    v = min(fpar[f + 2], _deceleration(remaining, z, st, fpar, f, profile))
    if full and t < fpar[f + 5]:
        if z[st + 3] < 0.5:  # valve fully open until the platen reaches v_max (Fig. 4-10 b)
            return ramp, FULL_OPEN
    else:
        v = min(ramp, v)
    if t < fpar[f + 5]:
        return v, ACCELERATION
    return v, (PID if pid else OPEN_LOOP)


@njit(cache=True, inline="always")
def _feed_forward(v, fpar, f, direction, n):
    """``StrokeCommand.feed_forward``."""
    xs = f + 17
    return -direction * interp(v, fpar[xs:xs + n], fpar[xs + n:xs + 2 * n])[0]


@njit(cache=True)
def _controller(t, gap, rate, z, st, fpar, f, direction, pid, full, profile, n, rates):
    """``StrokeCommand.evaluate`` and ``state_rates``: returns ``(command, speed reference, phase)``."""
    v, phase = _reference(t, gap, z, st, fpar, f, direction, pid, full, profile)
    limit, kp, tracking, hold = fpar[f + 8], fpar[f + 9], fpar[f + 13], fpar[f + 16]
    sdot = -rate
    e = direction * v - sdot  # StrokeCommand._pid
    u = kp * e + z[st] + fpar[f + 11] * (e - z[st + 1])
    u_pid = math.copysign(limit, u) if abs(u) > limit else u
    uf = _feed_forward(v, fpar, f, direction, n)
    if phase == PID:
        value = u_pid
    elif phase == FULL_OPEN:
        value = -direction * limit
    elif pid and phase == FINAL:  # switched off: the last PID command is held until impact
        value = z[st + 2]
    else:
        value = uf
    if phase == PID:
        rates[st] = fpar[f + 10] * e + (value - u) / tracking
    else:  # bumpless transfer: the PID output follows the open-loop command while off
        rates[st] = (uf - u) / tracking
    rates[st + 1] = (e - z[st + 1]) / fpar[f + 12]
    if phase == FINAL and pid:
        rates[st + 2] = 0.0
    else:
        rates[st + 2] = ((u_pid if phase == PID else uf) - z[st + 2]) / hold
    latch = z[st + 3]
    target = 1.0 if full and (latch >= 0.5 or direction * sdot >= fpar[f + 2]) else 0.0
    rates[st + 3] = (target - latch) / hold
    clock = 0.0  # the time-ramp deceleration's clock runs once the platen has passed its trigger position
    if profile == 2 and t > fpar[f + 1]:
        s = fpar[f] + 1.0 - gap
        remaining = fpar[f] - fpar[f + 7] - s if direction > 0 else s - fpar[f + 7]
        clock = 1.0 if remaining <= fpar[f + 15] else 0.0
    rates[st + 4] = clock
    return value, v, phase


@cfunc(SIGNAL_SIGNATURE, cache=True)
def stroke_command_kernel(want, t, z_, y_, ydot_, sv_, fpar_, ipar_, i, rates_, out_):
    """The signal kernel of a StrokeCommand (:data:`hydraulics.compiled_signals.SIGNAL_SIGNATURE`)."""
    head = carray(ipar_, HEAD)
    ipar, fpar = carray(ipar_, head[6]), carray(fpar_, head[7])
    z, y, ydot, rates = carray(z_, head[0]), carray(y_, head[1]), carray(ydot_, head[1]), carray(rates_, head[0])
    f, iy, st, direction = ipar[i + 1], ipar[i + 2], ipar[i + 3], ipar[i + 4]
    value, v, phase = _controller(t, y[iy], ydot[iy], z, st, fpar, f, direction, ipar[i + 5] == 1,
                                  ipar[i + 6] == 1, ipar[i + 7], ipar[i + 8], rates)
    if want:
        out = carray(out_, head[8])
        out[ipar[i] + 1], out[ipar[i] + 2] = direction * v, float(phase)
    return value
