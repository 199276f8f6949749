"""Scalar functions used to drive and parametrize elements: constants, tables, smooth steps, integrals."""
from __future__ import annotations

import numbers

import numpy as np

from fem.errors import ModelError
from fem.scalar_laws import interp, interp_many, smoothstep

__all__ = ["as_time_function", "integrated_time_function", "Table", "smooth_step"]


def smooth_step(x, x0: float, h0: float, x1: float, h1: float):
    """Cubic step from ``h0`` at ``x0`` to ``h1`` at ``x1`` with zero slope at both ends (ADAMS ``STEP``): the one
    smooth step :func:`fem.scalar_laws.smoothstep`, at a number or each entry of an array."""
    x = np.asarray(x, dtype=float)
    step = np.array([smoothstep(float(v), float(x0), float(x1))[0] for v in x.ravel()]).reshape(x.shape)
    return h0 + (h1 - h0) * step


class Table:
    """Piecewise-linear table ``y(x)``, its end values held beyond its ends (as ``numpy.interp``).

    That is the one table rule of flexmbs and hydraulics: the lookup is :func:`fem.scalar_laws.interp`, the one
    the compiled kernels call. A tabulated spring has no stiffness beyond its last point, so give points out to the
    largest deflection the spring will see.

    Parameters
    ----------
    x : (n,) increasing abscissae
    y : (n,) values
    """

    def __init__(self, x, y):
        self.x = np.asarray(x, dtype=float)
        self.y = np.asarray(y, dtype=float)
        if self.x.ndim != 1 or self.x.shape != self.y.shape or self.x.size < 2:
            raise ModelError("a table needs two 1-D arrays of the same length >= 2")
        if np.any(np.diff(self.x) <= 0.0):
            raise ModelError("table abscissae must increase strictly")

    def __call__(self, x):
        if np.ndim(x) == 0:
            return interp(float(x), self.x, self.y)[0]
        x = np.asarray(x, dtype=float)
        return interp_many(x.ravel(), self.x, self.y).reshape(x.shape)

    def integral(self, x: float) -> float:
        """``∫_{x_0}^{x} y dξ`` (potential energy of a tabulated spring), exact for the linear pieces."""
        grid = np.concatenate([self.x[self.x < x], [x]]) if x > self.x[0] else np.array([self.x[0], x])
        vals = self(grid)
        return float(np.sum(0.5 * (vals[1:] + vals[:-1]) * np.diff(grid)))


def as_time_function(value):
    """A callable ``f(t)`` from a number or a callable."""
    if isinstance(value, numbers.Real):
        const = float(value)
        return lambda t: const
    if callable(value):
        return value
    raise ModelError(f"expected a number or a function of time, got {type(value).__name__}")


def integrated_time_function(rate, initial: float = 0.0):
    """``f(t) = initial + ∫_0^t rate(τ) dτ`` (exact for a constant rate, adaptive quadrature otherwise)."""
    if isinstance(rate, numbers.Real):
        speed = float(rate)
        return lambda t: initial + speed * t
    from scipy.integrate import quad  # here, not at import: scipy.integrate costs 0.3 s of `import flexmbs`

    rate = as_time_function(rate)
    cache = {"t": 0.0, "value": float(initial)}

    def position(t: float) -> float:
        # integrate from the last evaluated time: time steps are small, so the quadrature stays cheap
        t0, f0 = cache["t"], cache["value"]
        if abs(t - t0) > abs(t):
            t0, f0 = 0.0, float(initial)
        value = f0 + quad(rate, t0, t, epsabs=1e-13, epsrel=1e-12, limit=200)[0]
        cache["t"], cache["value"] = t, value
        return value

    return position
