"""Signals inside the compiled circuit kernel: the signals that read other signals, measurements, pressures or their
own states (:mod:`hydraulics.signals`, :mod:`hydraulics.datasheet`), values only.

Every signal of a compiled circuit has a slot in the kernel's signal vector ``sv``. Functions of time (constants,
tables, Python ``f(t)``) are evaluated by the engine and copied from its ``sig`` array (record ``TIME``); the
others are evaluated here, one record each, in an order where every input comes before the signals that read it
(:func:`hydraulics.layout.compile_circuit` lays the records out so and refuses a loop). A user's signal
(record ``CALLBACK``) is evaluated in Python between two runs of the records before and after it
(:mod:`hydraulics.circuit`). Signals with states (``PID``, ``Hysteresis``) also write
their state rates. Each block names the class whose docstring states its equation.

Record layout ``[kind, length, slot, fields...]``; the fields per kind are listed at each block.

**A signal's own kernel** (record ``PLUGIN``; docs/element-protocol.md, "A signal with its own kernel"): a
:class:`~hydraulics.core.Signal` subclass whose class defines ``compiled_signal(index)`` (a case's controller)
brings a numba ``cfunc`` with the C signature :data:`SIGNAL_SIGNATURE`; the circuit kernel calls it through its
address (:func:`call_signal`), so the signal's code lives with the signal (hydraulics knows nothing of it).
"""
from __future__ import annotations

import math

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from flexmbs_jit import njit

from fem.scalar_laws import interp, smoothstep

from .laws import softplus

(TIME, SUM, LOOKUP, SMOOTH_STEP, MEASUREMENT, PRESSURE, PID, PROFILE, NORMALISED, HYSTERESIS, COPY,
 PLUGIN, CALLBACK) = range(1, 14)  # CALLBACK: a user's signal, its slot written by the circuit (Python)
SIGNAL_SIGNATURE = types.float64(types.int64, types.float64, *([types.CPointer(types.float64)] * 5),
                                 types.CPointer(types.int64), types.int64, types.CPointer(types.float64),
                                 types.CPointer(types.float64))


@intrinsic
def call_signal(typingctx, address, want, t, z, y, ydot, sv, fpar, ipar, i, rates, out):
    """Call the ``cfunc`` at ``address`` (:data:`SIGNAL_SIGNATURE`) with the data pointers of the arrays."""
    sig = types.float64(address, want, t, z, y, ydot, sv, fpar, ipar, i, rates, out)

    def codegen(context, builder, signature, args):
        dbl, i64 = ir.DoubleType(), ir.IntType(64)
        fnty = ir.FunctionType(dbl, [i64, dbl] + [dbl.as_pointer()] * 5 + [i64.as_pointer(), i64]
                               + [dbl.as_pointer()] * 2)
        values = [args[1], args[2]]
        for aty, val in zip(signature.args[3:], args[3:]):
            values.append(context.make_array(aty)(context, builder, val).data if isinstance(aty, types.Array)
                          else val)
        return builder.call(builder.inttoptr(args[0], fnty.as_pointer()), values)

    return sig, codegen


@njit(cache=True, counted=False)  # (Python calls it too: hydraulics.circuit)
def eval_signals(t, z, y, ydot, sig, fpar, ipar, r, n_rec, p, sv, rates, out, want):
    """Fill ``sv`` from the ``n_rec`` signal records starting at ``ipar[r]``; returns the index after them.
    ``p`` holds the pressures of the volume and tank nodes (pressure sensors read them); with ``want`` the signals
    with their own kernels write their outputs into ``out``."""
    for _ in range(n_rec):
        kind, length, slot = ipar[r], ipar[r + 1], ipar[r + 2]
        if kind == TIME:  # Constant, PiecewiseLinear, Ramp, TimeFunction: evaluated by the engine; [sig index]
            sv[slot] = sig[ipar[r + 3]]
        elif kind == COPY:  # a pressure sensor on a pressure source: the source's signal; [slot of it]
            sv[slot] = sv[ipar[r + 3]]
        elif kind == SUM:  # Sum: [n, f (weights), input slots...]
            n, f = ipar[r + 3], ipar[r + 4]
            value = 0.0
            for k in range(n):
                value += fpar[f + k] * sv[ipar[r + 5 + k]]
            sv[slot] = value
        elif kind == LOOKUP:  # LookupTable: [input slot, n, xs]
            xs, n = ipar[r + 5], ipar[r + 4]
            sv[slot] = interp(sv[ipar[r + 3]], fpar[xs:xs + n], fpar[xs + n:xs + 2 * n])[0]
        elif kind == SMOOTH_STEP:  # SmoothStep: [f]; t_start, t_end, initial, final
            f = ipar[r + 3]
            s = smoothstep(t, fpar[f], fpar[f + 1])[0]
            sv[slot] = fpar[f + 2] + (fpar[f + 3] - fpar[f + 2]) * s
        elif kind == MEASUREMENT:  # MeasurementSensor: [y index, rate]
            sv[slot] = ydot[ipar[r + 3]] if ipar[r + 4] else y[ipar[r + 3]]
        elif kind == PRESSURE:  # PressureSensor: [node]
            sv[slot] = p[ipar[r + 3]]
        elif kind == PID:  # PID: [setpoint slot, measured slot, state, f]
            _pid(sv, z, fpar, rates, slot, sv[ipar[r + 3]] - sv[ipar[r + 4]], ipar[r + 5], ipar[r + 6])
        elif kind == PROFILE:  # VelocityProfile: [position slot, f]
            sv[slot] = _profile(t, sv[ipar[r + 3]], fpar, ipar[r + 4])
        elif kind == NORMALISED:  # datasheet.NormalisedCommand: [input slot, f]; centre, half span
            f = ipar[r + 4]
            sv[slot] = (sv[ipar[r + 3]] - fpar[f]) / fpar[f + 1]
        elif kind == HYSTERESIS:  # datasheet.Hysteresis: [input slot, state, f]; b, tau
            i, f = ipar[r + 4], ipar[r + 5]
            u, held, b = sv[ipar[r + 3]], z[i], fpar[f]
            sv[slot] = held
            up = softplus(u - held - b, b / 100.0)[0]
            down = softplus(held - u - b, b / 100.0)[0]
            rates[i] = (up - down) / fpar[f + 1]
        elif kind == PLUGIN:  # a signal's own kernel: [address, first output, fpar start, own fields...]
            sv[slot] = call_signal(ipar[r + 3], 1 if want else 0, t, z, y, ydot, sv, fpar, ipar, r + 4, rates, out)
        r += length
    return r


@njit(cache=True, counted=False, no_cpython_wrapper=True)
def _pid(sv, z, fpar, rates, slot, e, i, f):
    """The PID law of ``PID`` (seed 003 eq. (4-12)); ``fpar[f:f+7]`` = gain, ``K_P/T_I`` (0
    without integral part), ``K_P T_D/T``, filter time ``T``, lower and upper limit, tracking time ``T_t``."""
    integral, xi = z[i], z[i + 1]
    u = fpar[f] * e + integral + fpar[f + 2] * (e - xi)
    u_sat = u
    if u > fpar[f + 5]:
        u_sat = fpar[f + 5]
    elif u < fpar[f + 4]:
        u_sat = fpar[f + 4]
    sv[slot] = u_sat
    rates[i] = fpar[f + 1] * e + (u_sat - u) / fpar[f + 6]
    rates[i + 1] = (e - xi) / fpar[f + 3]


@njit(cache=True, counted=False, no_cpython_wrapper=True)
def _profile(t, x, fpar, f):
    """``VelocityProfile``; ``fpar[f:f+8]`` = start time, acceleration, max velocity, deceleration, end
    position, final velocity, safety distance, direction."""
    t0, acc, v_max, dec, x_end, v_f, safety, direction = (fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3],
                                                          fpar[f + 4], fpar[f + 5], fpar[f + 6], fpar[f + 7])
    if t <= t0:
        return 0.0
    remaining = direction * (x_end - x) - safety
    v_acc = acc * (t - t0)
    v_dec = v_f if remaining <= 0.0 else math.sqrt(v_f ** 2 + 2.0 * dec * remaining)
    v = v_acc
    if v_max < v:
        v = v_max
    if v_dec < v:
        v = v_dec
    return direction * v
