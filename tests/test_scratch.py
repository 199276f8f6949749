"""``flexmbs_jit.stack.scratch``: vectors on the caller's stack (no allocation, no reference counts)."""
from __future__ import annotations

import numpy as np

from flexmbs_jit import njit
from flexmbs_jit.stack import scratch


@njit
def _fill_and_sum(x):
    """A scratch vector (the squares of ``x``) and a 2 x n view of a second one (``x`` and ``2x``):
    ``Σ (x² + (x + 2x))`` term by term."""
    n = x.size
    squares = scratch(n)
    pair = scratch(2 * n).reshape((2, n))
    for i in range(n):
        squares[i] = x[i] * x[i]
        pair[0, i] = x[i]
        pair[1, i] = 2.0 * x[i]
    total = 0.0
    for i in range(n):
        total += squares[i] + (pair[0, i] + pair[1, i])
    return total


@njit
def _repeated(x, reps):
    """:func:`_fill_and_sum` called ``reps`` times from a loop (its stack is released at each return)."""
    total = 0.0
    for _ in range(reps):
        total += _fill_and_sum(x)
    return total


def test_scratch_vectors_hold_their_values():
    x = np.linspace(-1.0, 2.0, 7)
    expected = 0.0
    for v in x:
        expected += v * v + (v + 2.0 * v)
    assert _fill_and_sum(x) == expected  # the same operations in the same order: equal, not close


def test_scratch_is_released_when_its_function_returns():
    """200,000 calls of 24 kB each (4.8 GB if the stack were not released at each return: a crash)."""
    x = np.ones(1000)
    assert _repeated(x, 200_000) == 200_000 * 4000.0
