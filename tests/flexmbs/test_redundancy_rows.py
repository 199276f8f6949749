"""The kept constraint rows (flexmbs.engine.redundancy.independent_rows) against their definition: a row is kept when
its distance from the span of the rows kept before it exceeds RANK_TOL times its size (rows scaled by their largest
entry). The reference distance comes from a least-squares fit (numpy.linalg.lstsq), independent of the Gram–Schmidt
loop and of the one-SVD shortcut for matrices whose rows are all independent. The multipliers of all rows (the
minimum-norm split of the reactions, flexmbs.engine.step.all_multipliers) against numpy's minimum-norm least squares
and a two-hinge door's statics."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.initial import assemble_positions, initial_accelerations
from flexmbs.engine.redundancy import RANK_TOL, independent_rows, minimum_norm_multipliers
from flexmbs.engine.system import System


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


def test_multipliers_of_redundant_rows_are_the_minimum_norm_split():
    """The multipliers of every row from the kept rows' (flexmbs.engine.step.all_multipliers, the one implementation
    the compiled step and Context.full_lam call) against numpy's minimum-norm least-squares solution of
    ``Φ_qᵀ λ_all = Φ_q,keptᵀ λ`` (an independent reference: LAPACK's SVD-based solver), for 8 rows of rank 5."""
    rng = np.random.default_rng(11)
    base = rng.normal(size=(5, 9))
    mix = rng.normal(size=(3, 4))  # the dependent rows: combinations of the rows before them
    jac = np.vstack([base[:2], mix[0, :2] @ base[:2], base[2:4], mix[1:] @ base[:4], base[4:]])
    kept, dropped = independent_rows(jac)
    assert kept.tolist() == [0, 1, 3, 4, 7] and dropped.tolist() == [2, 5, 6]
    lam = rng.normal(size=kept.size)
    got = minimum_norm_multipliers(jac, kept, lam)
    reference = np.linalg.lstsq(jac.T, jac[kept].T @ lam, rcond=None)[0]
    scale = np.abs(reference).max()
    np.testing.assert_allclose(got, reference, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(jac.T @ got, jac[kept].T @ lam, rtol=0, atol=1e-12 * scale * np.abs(jac).max())
    full = np.eye(4)  # no redundant row: the kept rows' multipliers themselves
    np.testing.assert_array_equal(minimum_norm_multipliers(full, np.arange(4), lam[:4]), lam[:4])


def test_a_door_on_two_coaxial_hinges_carries_its_weight_half_on_each():
    """A 20 kg door hung on two revolute joints on one axis (5 redundant rows dropped), gravity along the axis: the
    hinges' reactions on the door balance its weight and the moment of its weight about each hinge (statics,
    round-off of m g), and the minimum-norm split gives each hinge half the weight (the split is linear in the load
    and the mirror z → -z swaps the hinges and reverses the load). The reactions of the compiled samples (results
    file) and of ``Context.joint_reaction`` (Python: Context.full_lam) are checked alike."""
    mass, g = 20.0, 9.81
    model = fm.Model("door", gravity=(0.0, 0.0, -g))
    door = model.add_rigid_body("door", mass=mass, inertia=(2.0, 2.0, 1.0), position=(0.4, 0.0, 0.0))
    hinges = [model.add_joint("revolute", model.add_marker(model.ground, f"g{k}", position=(0.0, 0.0, z)),
                              model.add_marker(door, f"d{k}", position=(-0.4, 0.0, z)), name=f"hinge{k}")
              for k, z in enumerate((-0.5, 0.5))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the redundant-constraint report
        result = fm.simulate(model, 0.01)
        system = System(model)
        q, v, z = system.initial_state()
        q = assemble_positions(system, q)
        lam = initial_accelerations(system, q, v, z)[1]
    assert result.success and len(system.redundant_joints) == 2
    ctx = system.context(q, v, 0.0, lam)
    weight, centre = np.array([0.0, 0.0, -mass * g]), np.array([0.4, 0.0, 0.0])
    for reactions in ([(result[f"joint/{h.name}/force"][0], result[f"joint/{h.name}/torque"][0]) for h in hinges],
                      [ctx.joint_reaction(h) for h in hinges]):
        force = sum(f for f, _ in reactions)
        moment = sum(t + np.cross(np.array([0.0, 0.0, z]) - centre, f) for (f, t), z in zip(reactions, (-0.5, 0.5)))
        np.testing.assert_allclose(force, -weight, rtol=0, atol=1e-9 * mass * g)
        np.testing.assert_allclose(moment, 0.0, rtol=0, atol=1e-9 * mass * g)
        for f, _ in reactions:
            assert f[2] == pytest.approx(0.5 * mass * g, rel=1e-9)
