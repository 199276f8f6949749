"""The scalar laws that flexmbs and hydraulics share, written once as compiled functions: the smooth step and the
table lookup.

Why here, in ``fem``: flexmbs and hydraulics may not import each other (hydraulics joins flexmbs through the
duck-typed element protocol only, tests/test_layering.py), so a law both use lives in a package both may import.
Of those, ``flexmbs_jit`` is the compiler's own package and holds no physics; ``fem`` is the lowest project
package, and both already import it (``fem.errors``). This module imports nothing of the project but
``flexmbs_jit``.

Every function has an explicit signature (float arguments, a ``(value, derivative)`` tuple back): numba compiles
each once, at import from its cache; compiled callers link it (LLVM inlines these small leaves), and Python calls the
same machine code wherever it needs a value.
"""
from __future__ import annotations

from flexmbs_jit import njit

__all__ = ["smoothstep", "interp", "interp_many"]

_PAIR = "UniTuple(float64, 2)"


@njit(_PAIR + "(float64, float64, float64)", cache=True)
def smoothstep(x, x0, x1):
    """The one smooth step of the project (ADAMS ``STEP``): the C1 cubic ``3 s^2 - 2 s^3`` of
    ``s = (x - x0)/(x1 - x0)``, 0 at and before ``x0``, 1 at and after ``x1`` (``x1 < x0`` steps the other way; a
    jump at ``x0`` if ``x1 == x0``), with its derivative ``6 s (1 - s)/(x1 - x0)`` wrt ``x``.

    Parameters
    ----------
    x, x0, x1 : float
        Argument and the two ends, in one unit.

    Returns
    -------
    value : float, 1
    derivative : float, 1/(unit of x)
    """
    if x1 == x0:
        return (1.0 if x >= x1 else 0.0), 0.0
    s = (x - x0) / (x1 - x0)
    if s <= 0.0:
        return 0.0, 0.0
    if s >= 1.0:
        return 1.0, 0.0
    return s * s * (3.0 - 2.0 * s), 6.0 * s * (1.0 - s) / (x1 - x0)


@njit(_PAIR + "(float64, float64[:], float64[:])", cache=True)
def interp(x, xs, ys):
    """The one table lookup of flexmbs and hydraulics: piecewise linear between the breakpoints, **the end values
    held** beyond the ends (slope 0 there), as ``numpy.interp``.

    The rule was chosen once for both packages (a tabulated spring therefore has no stiffness beyond its last
    point: give points out to the largest deflection it will see).

    Parameters
    ----------
    x : float
        Abscissa.
    xs : ndarray, shape (n,)
        Strictly increasing breakpoints, ``n >= 2``.
    ys : ndarray, shape (n,)
        Values at the breakpoints.

    Returns
    -------
    value, slope : float
        The slope of the piece right of ``x`` at an inner breakpoint.
    """
    n = xs.size
    if x <= xs[0]:
        return ys[0], 0.0
    if x >= xs[n - 1]:
        return ys[n - 1], 0.0
    lo, hi = 0, n - 1  # xs[lo] <= x < xs[hi]: the last breakpoint at or below x
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    slope = (ys[lo + 1] - ys[lo]) / (xs[lo + 1] - xs[lo])
    return ys[lo] + slope * (x - xs[lo]), slope


@njit("float64[:](float64[:], float64[:], float64[:])", cache=True)
def interp_many(x, xs, ys):
    """:func:`interp` at each of the abscissae ``x`` (n_x,): the values (n_x,)."""
    out = x.copy()
    for k in range(x.size):
        out[k] = interp(x[k], xs, ys)[0]
    return out
