"""Smooth scalar helpers shared by the hydraulic components.

Every function returns ``(value, derivative)`` so that a component can write its equation and its Jacobian
entry side by side. The regularisations keep the right-hand sides continuously differentiable, which is what an
implicit (Newton-based) integrator needs.
"""
from __future__ import annotations

import bisect
import math

import numpy as np


def softplus(x: float, width: float) -> tuple[float, float]:
    """Smooth ``max(x, 0)``: ``width * log(1 + exp(x / width))``.

    Parameters
    ----------
    x : float
        Argument (any unit).
    width : float
        Rounding width in the unit of ``x``; the error against ``max(x, 0)`` is at most ``width * log 2``
        and decays like ``width * exp(-|x| / width)``.

    Returns
    -------
    value, derivative : float
    """
    s = x / width
    if s > 40.0:
        return x, 1.0
    if s < -40.0:
        e = math.exp(s)
        return width * e, e
    e = math.exp(s)
    return width * math.log1p(e), e / (1.0 + e)


def smoothstep(x: float, x0: float, x1: float) -> tuple[float, float]:
    """C1 cubic step from 0 at ``x0`` to 1 at ``x1`` (``3 s^2 - 2 s^3``), with its derivative wrt ``x``."""
    if x1 == x0:
        return (1.0 if x >= x1 else 0.0), 0.0
    s = (x - x0) / (x1 - x0)
    if s <= 0.0:
        return 0.0, 0.0
    if s >= 1.0:
        return 1.0, 0.0
    return s * s * (3.0 - 2.0 * s), 6.0 * s * (1.0 - s) / (x1 - x0)


def smooth_sign(x: float, width: float) -> tuple[float, float]:
    """``tanh(x / width)``: a sign function regularised over ``width``."""
    th = math.tanh(x / width)
    return th, (1.0 - th * th) / width


_SHORT_TABLE = 32


def interp_with_slope(x: float, xs: np.ndarray, ys: np.ndarray) -> tuple[float, float]:
    """Piecewise-linear interpolation (constant beyond the ends) and its exact slope.

    Parameters
    ----------
    x : float
        Abscissa.
    xs : ndarray, shape (n,)
        Strictly increasing breakpoints.
    ys : ndarray, shape (n,)
        Values at the breakpoints.
    """
    if len(xs) <= _SHORT_TABLE:  # Python floats: ~5x faster than NumPy scalars for the short tables of valves
        xl, yl = xs.tolist() if hasattr(xs, "tolist") else list(xs), ys.tolist() if hasattr(ys, "tolist") else list(ys)
        x = float(x)
        if x <= xl[0]:
            return float(yl[0]), 0.0
        if x >= xl[-1]:
            return float(yl[-1]), 0.0
        i = bisect.bisect_right(xl, x) - 1
        slope = (yl[i + 1] - yl[i]) / (xl[i + 1] - xl[i])
        return float(yl[i] + slope * (x - xl[i])), float(slope)
    if x <= xs[0]:
        return float(ys[0]), 0.0
    if x >= xs[-1]:
        return float(ys[-1]), 0.0
    i = int(np.searchsorted(xs, x, side="right")) - 1
    slope = (ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i])
    return float(ys[i] + slope * (x - xs[i])), float(slope)


def smooth_lower_limit(x: float, limit: float, width: float) -> tuple[float, float]:
    """C1 ``max(x, limit)`` that is exact for ``x >= limit + width`` and for ``x <= limit - width``.

    Between, a quadratic blend ``limit + (x - limit + width)^2 / (4 width)`` joins value and slope.
    """
    d = x - limit
    if d >= width:
        return x, 1.0
    if d <= -width:
        return limit, 0.0
    return limit + (d + width) ** 2 / (4.0 * width), (d + width) / (2.0 * width)
