"""How flexmbs.engine.redundancy.independent_rows decides the kept rows (the rows' pattern or the SVD shortcut when
no row is dependent, else the row-by-row test), against the rows' definition (a row is kept when its distance from the span of the rows kept before it exceeds RANK_TOL times its
size, rows scaled by their largest entry; distances by numpy.linalg.lstsq, independent of both), on random Jacobians
with dependent, duplicated, zero and nearly dependent rows."""
from __future__ import annotations

import numpy as np
import pytest

from flexmbs.engine.redundancy import RANK_TOL, independent_rows


def _by_definition(jacobian: np.ndarray) -> list[int]:
    scale = np.abs(jacobian).max(axis=1, keepdims=True)
    scale[scale == 0.0] = 1.0
    rows = jacobian / scale
    kept = []
    for r, row in enumerate(rows):
        size = np.linalg.norm(row)
        if size == 0.0:
            continue
        if kept:
            basis = rows[kept].T
            distance = np.linalg.norm(row - basis @ np.linalg.lstsq(basis, row, rcond=None)[0])
        else:
            distance = size
        if distance > RANK_TOL * size:
            kept.append(r)
    return kept


def _jacobian(rng, n_r: int, n_q: int) -> np.ndarray:
    jac = rng.normal(size=(n_r, n_q)) * 10.0 ** rng.uniform(-3, 3, size=(n_r, 1))
    jac[:, rng.random(n_q) < 0.3] = 0.0  # columns no row touches (bodies a joint does not hold)
    for _ in range(n_r // 3):  # dependent rows: combinations of others (before or after them)
        i, j, k = rng.integers(0, n_r, size=3)
        jac[i] = rng.normal() * jac[j] + rng.normal() * jac[k]
    jac[rng.integers(0, n_r)] = 0.0  # a zero row
    i, j = rng.integers(0, n_r, size=2)
    jac[i] = jac[j]  # a duplicated row
    return jac


@pytest.mark.parametrize("seed", range(6))
def test_kept_rows_follow_the_definition(seed):
    rng = np.random.default_rng(seed)
    for n_r, n_q in ((6, 7), (13, 9), (25, 40)):
        jac = _jacobian(rng, n_r, n_q)
        kept, dropped = independent_rows(jac)
        assert kept.dtype == dropped.dtype == np.int64
        assert kept.tolist() == _by_definition(jac)
        assert sorted(kept.tolist() + dropped.tolist()) == list(range(n_r))
        # independent rows (the shortcut's case): all kept
        free = rng.normal(size=(n_q // 2, n_q))
        assert independent_rows(free)[0].tolist() == list(range(n_q // 2))


def test_non_finite_rows_are_kept_as_before():
    """A row with NaN is neither zero nor near the span (numpy's comparisons with NaN are false): kept, and the
    rows after it too (a NaN placement then fails the assembly with its own message)."""
    jac = np.array([[1.0, 0.0, 0.0], [np.nan, 1.0, 0.0], [1.0, 0.0, 0.0]])
    assert independent_rows(jac)[0].tolist() == [0, 1, 2]


@pytest.mark.parametrize("seed", range(4))
def test_rows_on_disjoint_columns_follow_the_definition(seed):
    """The pattern test (rows touching disjoint columns are orthogonal: all kept) against the definition, also with a
    zero row among them and with one row made to share a column (then the SVD and the loop decide)."""
    rng = np.random.default_rng(seed)
    for n_r, n_q in ((6, 7), (9, 21), (3, 3)):
        owner = rng.permutation(np.arange(n_q) % n_r)  # column -> the one row touching it (every row some)
        jac = np.zeros((n_r, n_q))
        jac[owner, np.arange(n_q)] = rng.normal(size=n_q) * 10.0 ** rng.uniform(-6, 6, size=n_q)
        assert independent_rows(jac)[0].tolist() == _by_definition(jac) == list(range(n_r))
        shared = jac.copy()
        shared[0] += 1e-9 * shared[1]  # no longer disjoint, nearly the same rows
        assert independent_rows(shared)[0].tolist() == _by_definition(shared)
        jac[rng.integers(0, n_r)] = 0.0
        assert independent_rows(jac)[0].tolist() == _by_definition(jac)


def test_non_finite_rows_on_disjoint_columns_are_kept_as_before():
    """The pattern test with a NaN or inf among rows on disjoint columns: all kept, as the row-by-row test keeps
    them (its comparisons with NaN are false)."""
    jac = np.array([[0.0, 2.0, 0.0, 0.0], [np.nan, 0.0, 0.0, 1.0], [0.0, 0.0, np.inf, 0.0]])
    assert independent_rows(jac)[0].tolist() == [0, 1, 2]
