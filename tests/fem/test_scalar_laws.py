"""The shared scalar laws (fem.scalar_laws) against their closed forms at random points: the smooth step and the
table lookup with its one extrapolation rule (end values held)."""
from __future__ import annotations

import numpy as np
import pytest

from fem.scalar_laws import interp, interp_many, smoothstep


def test_smoothstep_values_and_slopes_at_ends_and_middle():
    """``3 s² - 2 s³``: 0 and 1 with zero slope at the ends, 1/2 with slope ``1.5/(x1 - x0)`` in the middle."""
    x0, x1 = -0.3, 1.7
    assert smoothstep(x0, x0, x1) == (0.0, 0.0)
    assert smoothstep(x1, x0, x1) == (1.0, 0.0)
    value, slope = smoothstep(0.5 * (x0 + x1), x0, x1)
    assert value == pytest.approx(0.5, abs=1e-15)
    assert slope == pytest.approx(1.5 / (x1 - x0), rel=1e-14)
    assert smoothstep(x0 - 5.0, x0, x1) == (0.0, 0.0)  # held beyond the ends
    assert smoothstep(x1 + 5.0, x0, x1) == (1.0, 0.0)
    rising, falling = smoothstep(0.8, 0.0, 1.0), smoothstep(0.2, 1.0, 0.0)  # x1 < x0: the mirror image
    assert falling[0] == pytest.approx(rising[0], abs=1e-15)
    assert falling[1] == pytest.approx(-rising[1], abs=1e-15)


def test_smoothstep_against_the_cubic_and_its_differences_at_random_points():
    rng = np.random.default_rng(7)
    for _ in range(200):
        x0 = rng.uniform(-2.0, 2.0)
        x1 = x0 + rng.uniform(0.01, 3.0)
        x = rng.uniform(x0, x1)
        s = (x - x0) / (x1 - x0)
        value, slope = smoothstep(x, x0, x1)
        assert value == pytest.approx(3 * s**2 - 2 * s**3, rel=1e-13, abs=1e-15)
        h = 1e-6 * (x1 - x0)
        numeric = (smoothstep(x + h, x0, x1)[0] - smoothstep(x - h, x0, x1)[0]) / (2 * h)
        assert slope == pytest.approx(numeric, rel=1e-6, abs=1e-8)


def test_table_lookup_is_piecewise_linear_with_the_end_values_held():
    """Between breakpoints: the straight line through the two neighbours (closed form); beyond the ends: the end
    values, slope 0 (the one table rule)."""
    rng = np.random.default_rng(11)
    xs = np.cumsum(rng.uniform(0.1, 1.0, 9)) - 2.0
    ys = rng.normal(size=9)
    for _ in range(300):
        k = rng.integers(0, 8)
        x = rng.uniform(xs[k], xs[k + 1])
        slope = (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k])
        value, d = interp(x, xs, ys)
        assert value == pytest.approx(ys[k] + slope * (x - xs[k]), rel=1e-12, abs=1e-14)
        assert d == pytest.approx(slope, rel=1e-12)
    for k in range(9):
        assert interp(xs[k], xs, ys)[0] == pytest.approx(ys[k], abs=1e-15)
    assert interp(xs[0] - 10.0, xs, ys) == (ys[0], 0.0)
    assert interp(xs[-1] + 10.0, xs, ys) == (ys[-1], 0.0)
    grid = np.linspace(xs[0] - 1.0, xs[-1] + 1.0, 57)
    assert np.array_equal(interp_many(grid, xs, ys), [interp(x, xs, ys)[0] for x in grid])
