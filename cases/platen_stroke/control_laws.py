"""The stroke controls of :mod:`cases.platen_stroke.controls` as numba laws, written once: the circuit's compiled
kernel calls them through the signal kernels at the end of this module (the signal-kernel protocol of
:mod:`hydraulics.signal_kernels`); the Python signals (``StrokeCommand``, ``StrokeQuantity``, ``StrokePID``) hold
the parameters and the layout.

Equations: module docstring of :mod:`cases.platen_stroke.controls` (seed 003 §4.2.3, L6479, L6549-6571, the PID of
eq. (4-12)); tests/cases/test_platen_stroke_compiled.py runs the kernels in every phase, and the case's tests check
the strokes against the seed's figures.

Command floats ``fpar[f:]`` (:data:`COMMAND_FLOATS`, then the velocity-voltage table: ``n`` speeds, ``n``
commands). Command integers (from ``ipar[i + 2]``): index of the gap measurement in ``y``, the command's first own
state, direction, PID on, full acceleration, deceleration profile (0 constant, 1 cubic spline, 2 time ramp), ``n``,
slot of the controller signal in ``sv`` (-1: none), quantity (0 the command, 1 the speed error, 2 the
feed-forward command, 3 the PID's on flag: :data:`QUANTITIES`).

PID floats ``fpar[f:f+6]``: ``K_P``, ``K_P/T_I``, ``K_P T_D/T``, ``T``, command limit, tracking time ``T_t``; PID
integers: slots of the error, tracking command and on flag in ``sv``, the PID's first own state.
"""
from __future__ import annotations

import math

from numba import carray

from flexmbs_jit import cfunc, njit

from fem.scalar_laws import interp, smoothstep

from hydraulics.kernel import HEAD
from hydraulics.signal_kernels import SIGNAL_SIGNATURE

# the phase codes of controls.PHASES (the "phase" output; the kernel test compares it)
REST, ACCELERATION, PID, OPEN_LOOP, FINAL, STOP, FULL_OPEN = range(7)
COMMAND_FLOATS = ("stroke", "start_time", "max_velocity", "deceleration", "acceleration", "acceleration_end",
                  "final_velocity", "safety_distance", "limit", "deceleration_time", "trigger_distance", "hold_time")
TABLE = len(COMMAND_FLOATS)  # the velocity-voltage table starts here
QUANTITIES = ("value", "speed_error", "feed_forward", "pid_on")


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
def remaining_travel(gap, fpar, f, direction):
    """Remaining travel (m) to the safety distance at the gap measurement ``gap`` (m); its derivative by the gap is
    ``direction``."""
    s = fpar[f] + 1.0 - gap
    return fpar[f] - fpar[f + 7] - s if direction > 0 else s - fpar[f + 7]


@njit(cache=True)
def stroke_reference(t, gap, latch, tau, fpar, f, direction, pid, full, profile):
    """The speed reference: ``(v, phase)``, the speed magnitude of the profile (m/s) and its phase code. ``gap`` (m)
    is the measurement ``stroke + 1 m − travel``, ``latch`` and ``tau`` the command's own states."""
    start, v_max, v_final = fpar[f + 1], fpar[f + 2], fpar[f + 6]
    if t <= start:
        return 0.0, REST
    if direction < 0 and fpar[f] + 1.0 - gap <= 0.0:  # an opening stroke back at travel 0
        return 0.0, STOP
    remaining = remaining_travel(gap, fpar, f, direction)
    if remaining <= 0.0:
        return v_final, FINAL
    ramp = fpar[f + 4] * (t - start)
    duration = fpar[f + 9]
    if profile == 1:  # the deceleration profile's speed
        v_dec = spline_deceleration(remaining, v_max, v_final, duration)[0]
    elif profile == 2:
        frac = tau / duration
        v_dec = v_final if frac >= 1.0 else v_max - (v_max - v_final) * frac
    else:
        v_dec = math.sqrt(v_final ** 2 + 2.0 * fpar[f + 3] * remaining)
    accelerating = t < fpar[f + 5]
    if full and accelerating and latch < 0.5:  # valve fully open until the platen reaches v_max (Fig. 4-10 b)
        return ramp, FULL_OPEN
    # the smallest of (ramp, v_max, deceleration), the first of equal ones; latched (full): the time ramp is over
    v = ramp if not (full and accelerating) and ramp <= v_max else v_max
    if v_dec < v:
        v = v_dec
    if accelerating:
        return v, ACCELERATION
    return v, (PID if pid else OPEN_LOOP)


@njit(cache=True)
def feed_forward(v, fpar, f, direction, n):
    """The open-loop command (V, signed: closing negative) of the speed ``v`` (m/s) from the velocity-voltage
    table."""
    xs = f + TABLE
    return -direction * interp(v, fpar[xs:xs + n], fpar[xs + n:xs + 2 * n])[0]


@njit(cache=True)
def command_law(t, gap, rate, held, latch, tau, u_controller, fpar, f, direction, pid, full, profile, n):
    """The command and its state rates: ``(value, v, phase, held_rate, latch_rate, clock_rate)``. ``rate`` is the
    gap's rate (m/s), ``held``, ``latch``, ``tau`` the own states, ``u_controller`` the PID's command (V; read only
    in the PID phase)."""
    v, phase = stroke_reference(t, gap, latch, tau, fpar, f, direction, pid, full, profile)
    limit, v_max, hold = fpar[f + 8], fpar[f + 2], fpar[f + 11]
    uf = feed_forward(v, fpar, f, direction, n)
    if phase == PID:
        value = u_controller
    elif phase == FULL_OPEN:
        value = -direction * limit
    elif pid and phase == FINAL:  # switched off: the last PID command is held until impact
        value = held
    else:
        value = uf
    if phase == FINAL and pid:
        held_rate = 0.0
    else:  # follows the command (first-order, 1 ms) so that it holds the last value at switch-off
        held_rate = ((u_controller if phase == PID else uf) - held) / hold
    sdot = -rate
    target = 1.0 if full and (latch >= 0.5 or direction * sdot >= v_max) else 0.0
    clock = 0.0  # the time-ramp deceleration's clock runs once the platen has passed its trigger position
    if profile == 2 and t > fpar[f + 1]:
        clock = 1.0 if remaining_travel(gap, fpar, f, direction) <= fpar[f + 10] else 0.0
    return value, v, phase, held_rate, (target - latch) / hold, clock


@njit(cache=True)
def pid_law(e, integral, xi, track, on, fpar, p):
    """The PID of seed 003 eq. (4-12) with a tracking input: ``u = K_P e + I + K_P T_D/T (e − ξ)``, saturated at
    ± the limit; on: ``I' = K_P/T_I e + (u_sat − u)/T_t`` (back-calculation anti-windup), off: ``I' = (track −
    u)/T_t`` (the output follows ``track``: bumpless transfer); ``ξ' = (e − ξ)/T``. Returns ``(u_sat, I', ξ')``.
    """
    kp, ki, kd, tf, limit, tracking = fpar[p], fpar[p + 1], fpar[p + 2], fpar[p + 3], fpar[p + 4], fpar[p + 5]
    u = kp * e + integral + kd * (e - xi)
    u_sat = math.copysign(limit, u) if abs(u) > limit else u
    rate = ki * e + (u_sat - u) / tracking if on else (track - u) / tracking
    return u_sat, rate, (e - xi) / tf


@njit(cache=True)
def command_quantity(quantity, t, gap, rate, latch, tau, fpar, f, direction, pid, full, profile, n):
    """``StrokeQuantity``'s value: the speed error ``direction v − ṡ`` (m/s), the feed-forward command (V) or the
    PID's on flag (1 in the PID phase, else 0)."""
    v, phase = stroke_reference(t, gap, latch, tau, fpar, f, direction, pid, full, profile)
    if quantity == 1:
        return direction * v + rate  # ṡ = −rate
    if quantity == 2:
        return feed_forward(v, fpar, f, direction, n)
    return 1.0 if phase == PID else 0.0


@cfunc(SIGNAL_SIGNATURE, cache=True)
def stroke_command_kernel(want, t, z_, y_, ydot_, sv_, fpar_, ipar_, i, rates_, out_):
    """The signal kernel of a StrokeCommand and of its StrokeQuantity views
    (:data:`hydraulics.signal_kernels.SIGNAL_SIGNATURE`)."""
    head = carray(ipar_, HEAD)
    ipar, fpar = carray(ipar_, head[6]), carray(fpar_, head[7])
    z, y, ydot, rates = carray(z_, head[0]), carray(y_, head[1]), carray(ydot_, head[1]), carray(rates_, head[0])
    sv = carray(sv_, head[10])
    f, iy, st, direction = ipar[i + 1], ipar[i + 2], ipar[i + 3], ipar[i + 4]
    pid, full, profile, n = ipar[i + 5] == 1, ipar[i + 6] == 1, ipar[i + 7], ipar[i + 8]
    controller, quantity = ipar[i + 9], ipar[i + 10]
    if quantity:
        return command_quantity(quantity, t, y[iy], ydot[iy], z[st + 1], z[st + 2], fpar, f, direction, pid, full,
                                profile, n)
    u_controller = sv[controller] if controller >= 0 else 0.0
    value, v, phase, held_rate, latch_rate, clock = command_law(
        t, y[iy], ydot[iy], z[st], z[st + 1], z[st + 2], u_controller, fpar, f, direction, pid, full, profile, n)
    rates[st], rates[st + 1], rates[st + 2] = held_rate, latch_rate, clock
    if want:
        out = carray(out_, head[8])
        out[ipar[i] + 1], out[ipar[i] + 2] = direction * v, float(phase)
    return value


@cfunc(SIGNAL_SIGNATURE, cache=True)
def stroke_pid_kernel(want, t, z_, y_, ydot_, sv_, fpar_, ipar_, i, rates_, out_):
    """The signal kernel of a StrokePID (:data:`hydraulics.signal_kernels.SIGNAL_SIGNATURE`)."""
    head = carray(ipar_, HEAD)
    ipar, fpar = carray(ipar_, head[6]), carray(fpar_, head[7])
    z, rates, sv = carray(z_, head[0]), carray(rates_, head[0]), carray(sv_, head[10])
    st = ipar[i + 5]
    law = pid_law(sv[ipar[i + 2]], z[st], z[st + 1], sv[ipar[i + 3]], sv[ipar[i + 4]] > 0.5, fpar, ipar[i + 1])
    rates[st], rates[st + 1] = law[1], law[2]
    return law[0]
