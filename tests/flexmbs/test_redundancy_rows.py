"""The kept constraint rows (flexmbs.engine.redundancy.independent_rows) against their definition: a row is kept when
its distance from the span of the rows kept before it exceeds RANK_TOL times its size (rows scaled by their largest
entry). The reference distance comes from a least-squares fit (numpy.linalg.lstsq), independent of the Gram–Schmidt
loop and of the one-SVD shortcut for matrices whose rows are all independent."""
from __future__ import annotations

import numpy as np
import pytest

from flexmbs.engine.redundancy import RANK_TOL, independent_rows


def _by_definition(jacobian: np.ndarray) -> list[int]:
    rows = jacobian / np.abs(jacobian).max(axis=1, keepdims=True)
    kept = []
    for r, row in enumerate(rows):
        if kept:
            basis = rows[kept].T
            distance = np.linalg.norm(row - basis @ np.linalg.lstsq(basis, row, rcond=None)[0])
        else:
            distance = np.linalg.norm(row)
        if distance > RANK_TOL * np.linalg.norm(row):
            kept.append(r)
    return kept


def test_well_conditioned_rows_are_all_kept():
    rng = np.random.default_rng(3)
    jac = rng.normal(size=(6, 9))
    kept, dropped = independent_rows(jac)
    assert kept.tolist() == _by_definition(jac) == list(range(6))
    assert dropped.size == 0


@pytest.mark.parametrize("offset, kept_expected", [(0.3 * RANK_TOL, False), (3.0 * RANK_TOL, True)])
def test_a_nearly_dependent_row_is_decided_by_its_distance(offset, kept_expected):
    # row 2 = row 0 + offset · (a unit direction orthogonal to rows 0 and 1): its scaled distance from their span is
    # offset (row sizes ≈ 1): dropped below RANK_TOL, kept above (2 × RANK_TOL: inside the shortcut's margin)
    rows = np.zeros((3, 5))
    rows[0, :2] = [1.0, 0.0]
    rows[1, :2] = [0.0, 1.0]
    rows[2] = rows[0]
    rows[2, 4] = offset
    kept, dropped = independent_rows(rows)
    assert kept.tolist() == _by_definition(rows)
    assert (2 in kept.tolist()) is kept_expected
    assert sorted(kept.tolist() + dropped.tolist()) == [0, 1, 2]
