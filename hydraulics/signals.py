"""Signals and controllers: commands, tables, sensors, PID and the velocity-profile generator.

A signal has a value, evaluated by the compiled circuit kernel (:mod:`hydraulics.signal_kernels`, the equations in
the docstrings here); signals with internal states (PID) are circuit states too, so controllers are integrated by
the same implicit solver as the hydraulics and the mechanics.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from fem.errors import ModelError

from .core import Signal, positive, store


class Constant(Signal):
    """A constant value."""

    def __init__(self, name: str, value: float, unit: str = "1"):
        super().__init__(name, unit)
        self.constant = float(value)


class TimeFunction(Signal):
    """A prescribed function of time ``f(t)`` (no dependence on the states)."""

    def __init__(self, name: str, function: Callable[[float], float], unit: str = "1"):
        super().__init__(name, unit)
        self.function = function


class PiecewiseLinear(Signal):
    """A piecewise-linear table of time, constant beyond its ends (a valve command sequence).

    Parameters
    ----------
    name : str
    times : array_like, s
        Strictly increasing breakpoints.
    values : array_like
        Values at the breakpoints.
    """

    def __init__(self, name: str, times, values, unit: str = "1"):
        super().__init__(name, unit)
        self.times, self.values = _table(name, times, values)


class SmoothStep(Signal):
    """A C1 step from ``initial`` to ``final`` between ``t_start`` and ``t_end`` (cubic ``3s^2 - 2s^3``)."""

    def __init__(self, name: str, t_start: float, t_end: float, initial: float = 0.0, final: float = 1.0,
                 unit: str = "1"):
        super().__init__(name, unit)
        if t_end < t_start:
            raise ModelError(f"'{name}': t_end must not precede t_start")
        self.t_start, self.t_end, self.initial, self.final = map(float, (t_start, t_end, initial, final))


class Ramp(PiecewiseLinear):
    """A linear ramp from ``initial`` at ``t_start`` to ``final`` at ``t_end``, constant outside."""

    def __init__(self, name: str, t_start: float, t_end: float, initial: float = 0.0, final: float = 1.0,
                 unit: str = "1"):
        if t_end <= t_start:
            raise ModelError(f"'{name}': t_end must be later than t_start")
        super().__init__(name, [t_start, t_end], [initial, final], unit)


class LookupTable(Signal):
    """A piecewise-linear function of another signal (valve characteristic, command vs velocity).

    Parameters
    ----------
    name : str
    input_signal : Signal
    x, y : array_like
        Table; ``x`` strictly increasing; constant extrapolation.
    """

    INPUTS = ("input_signal",)

    def __init__(self, name: str, input_signal: Signal, x, y, unit: str = "1"):
        super().__init__(name, unit)
        self.input_signal = as_signal(input_signal, f"{name}.input")
        self.x, self.y = _table(name, x, y)


class Sum(Signal):
    """A weighted sum of signals, ``sum_k w_k s_k`` (e.g. a set-point minus a measurement)."""

    def __init__(self, name: str, signals, weights=None, unit: str = "1"):
        super().__init__(name, unit)
        self.terms = [as_signal(s, f"{name}.{k}") for k, s in enumerate(signals)]
        self.weights = [1.0] * len(self.terms) if weights is None else [float(w) for w in weights]
        if len(self.weights) != len(self.terms):
            raise ModelError(f"'{name}': give one weight per signal")

    def inputs(self):
        return list(self.terms)


class PressureSensor(Signal):
    """The pressure of a node, Pa."""

    unit = "Pa"

    def __init__(self, name: str, node: str):
        super().__init__(name)
        self.node_name = node


class MeasurementSensor(Signal):
    """A multibody measurement ``y`` (a Distance, a JointCoordinate, ...), or its rate ``ydot`` if ``rate``."""

    MEASUREMENTS = ("measurement",)

    def __init__(self, name: str, measurement, rate: bool = False, unit: str = "1"):
        super().__init__(name, unit)
        self.measurement = measurement
        self.rate = rate


class PID(Signal):
    """PID controller with filtered derivative, saturation and back-calculation anti-windup.

    Transfer function of seed 003 eq. (4-12): ``u = K_P (1 + 1/(T_I s) + T_D s / (1 + T s)) e`` with
    ``e = setpoint - measurement``. States: the integral part ``I`` (in output units) and the derivative filter
    state ``xi`` (``xi' = (e - xi)/T``, derivative part ``K_P T_D (e - xi)/T``). The output is saturated to
    ``[u_min, u_max]``; anti-windup by back-calculation: ``I' = K_P e / T_I + (u_sat - u)/T_t``.

    Parameters
    ----------
    name : str
    setpoint, measurement : Signal or float or callable
    gain : float
        ``K_P`` (output unit per input unit; may be negative, seed 003 uses K_P = -4).
    integral_time : float, s
        ``T_I`` (``inf`` switches the integral part off).
    derivative_time : float, s
        ``T_D``.
    filter_time : float, s
        ``T`` of the derivative filter.
    output_limits : (float, float)
    tracking_time : float, s, optional
        ``T_t`` of the anti-windup; default ``T_I`` (or 1 s without integral part).
    """

    INPUTS = ("setpoint", "measured")

    state_names = ("integral", "derivative_filter")

    def __init__(self, name: str, setpoint, measurement, gain: float, integral_time: float = math.inf,
                 derivative_time: float = 0.0, filter_time: float = 0.01,
                 output_limits: tuple[float, float] = (-math.inf, math.inf), tracking_time: float | None = None,
                 unit: str = "1"):
        super().__init__(name, unit)
        self.setpoint = as_signal(setpoint, f"{name}.setpoint")
        self.measured = as_signal(measurement, f"{name}.measurement")
        store(self, positive, name, integral_time=integral_time, filter_time=filter_time)
        if derivative_time < 0.0:
            raise ModelError(f"'{name}': derivative_time must not be negative")
        if output_limits[0] >= output_limits[1]:
            raise ModelError(f"'{name}': output_limits must be (lower, upper) with lower < upper")
        self.gain, self.derivative_time = float(gain), float(derivative_time)
        self.u_min, self.u_max = map(float, output_limits)
        default_tt = integral_time if math.isfinite(integral_time) else 1.0
        self.tracking_time = float(tracking_time if tracking_time is not None else default_tt)
        self.state_units = (unit, "1")


class VelocityProfile(Signal):
    """Open-loop velocity reference of seed 003 §4.2.3: time-based acceleration, position-based deceleration.

    ``v = direction * min(a (t - t_0), v_max, sqrt(v_f^2 + 2 d max(s_rem, 0)))`` with the remaining travel
    ``s_rem = direction (x_end - x) - safety_distance``; ``v = 0`` before ``t_0``.

    Parameters
    ----------
    name : str
    position : Signal
        Measured position ``x`` (m), e.g. a MeasurementSensor.
    start_time : float, s
    acceleration, deceleration : float, m/s^2
    max_velocity, final_velocity : float, m/s
    end_position : float, m
    safety_distance : float, m
    direction : +1 or -1
    """

    INPUTS = ("position",)

    unit = "m/s"

    def __init__(self, name: str, position, start_time: float, acceleration: float, max_velocity: float,
                 deceleration: float, end_position: float, final_velocity: float = 0.0,
                 safety_distance: float = 0.0, direction: int = 1):
        super().__init__(name)
        store(self, positive, name, acceleration=acceleration, max_velocity=max_velocity, deceleration=deceleration)
        if direction not in (1, -1):
            raise ModelError(f"'{name}': direction must be +1 or -1")
        self.position = as_signal(position, f"{name}.position")
        self.start_time, self.end_position = float(start_time), float(end_position)
        self.final_velocity, self.safety_distance = float(final_velocity), float(safety_distance)
        self.direction = direction


def as_signal(value, name: str, unit: str = "1") -> Signal:
    """Wrap a number (constant), a callable ``f(t)`` or a Signal as a Signal."""
    if isinstance(value, Signal):
        return value
    if callable(value):
        return TimeFunction(name, value, unit)
    try:
        return Constant(name, float(value), unit)
    except (TypeError, ValueError):
        raise ModelError(f"'{name}': expected a number, a function of time or a Signal, got {value!r}") from None


def _table(name: str, x, y) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    if x.size < 2 or x.size != y.size:
        raise ModelError(f"'{name}': a table needs at least two points and as many values as breakpoints")
    if np.any(np.diff(x) <= 0.0):
        raise ModelError(f"'{name}': table breakpoints must be strictly increasing")
    return x, y
