"""Issue 48: a 6-dof spring-damper with full 6×6 stiffness and damping, offset and preload, against closed forms.

A body whose centre of mass sits at the bushing's marker j, on a ground marker i with identical axes:
* statics: the load on j is ``−K (s − s₀) + P`` plus the weight, so the body rests at ``s = s₀ + K⁻¹ (P + F_g)``
  exactly (``s`` measured as the bushing defines it: position in i axes and the skew part of ``R_iᵀ R_j``);
* dynamics: about ``s = 0`` (no gravity, offset or preload) the small motion obeys ``M s̈ + D ṡ + K s = 0`` with
  ``M = diag(m, m, m, J)``: the linearized model's eigenvalues are those of ``[[0, I], [−M⁻¹K, −M⁻¹D]]``.
"""
import numpy as np
import pytest

import flexmbs as fm
from fem.errors import ModelError
from flexmbs.model.rotations import rotation_matrix

MASS, INERTIA = 3.0, np.array([0.04, 0.06, 0.05])


def coupled_matrices():
    """A symmetric positive definite 6×6 stiffness with translation–rotation coupling, and a damping with its own
    (non-proportional) coupling."""
    rng = np.random.default_rng(7)
    scale = np.diag([1.0, 1.0, 1.0, 0.1, 0.1, 0.1])  # m and 0.1 m per rad: N/m and N m/rad blocks of like size
    a = rng.standard_normal((6, 6))
    k = scale @ (a @ a.T + 6.0 * np.eye(6)) @ scale * 2e4
    b = rng.standard_normal((6, 6))
    d = scale @ (b @ b.T + 6.0 * np.eye(6)) @ scale * 5.0
    return k, d


def model_with(k, d, gravity=(0.0, 0.0, 0.0), offset=None, preload=None):
    model = fm.Model("bushing6", gravity=gravity)
    body = model.add_rigid_body("body", mass=MASS, inertia=tuple(INERTIA))
    model.add_force(fm.MatrixBushing(model.add_marker(model.ground, "seat"), model.add_marker(body, "centre"),
                                     stiffness=k, damping=d, offset=offset, preload=preload, name="mount"))
    return model


def test_offset_and_preload_move_the_rest_position_to_the_closed_form():
    k, d = coupled_matrices()
    offset = np.array([0.002, -0.001, 0.0015, 0.004, -0.003, 0.002])
    preload = np.array([30.0, -20.0, 10.0, 1.5, -0.5, 0.8])
    g = 9.81
    res = fm.static_equilibrium(model_with(k, d, gravity=(0.0, -g, 0.0), offset=offset, preload=preload))
    expected = offset + np.linalg.solve(k, preload + np.array([0.0, -MASS * g, 0.0, 0.0, 0.0, 0.0]))
    rel = rotation_matrix(res["body/body/orientation"][0])
    theta = 0.5 * np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]])
    found = np.concatenate([res["body/body/position"][0], theta])
    assert found == pytest.approx(expected, rel=1e-8, abs=1e-12)
    # the bushing carries the weight and the preload's opposite: its load on the body is (0, m g, 0, 0, 0, 0)
    load = np.array([res[f"force/mount/{c}"][0] for c in ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")])
    assert load == pytest.approx([0.0, MASS * g, 0.0, 0.0, 0.0, 0.0], abs=1e-7 * MASS * g)


def test_coupled_stiffness_and_damping_give_the_closed_form_eigenvalues():
    k, d = coupled_matrices()
    lam = np.sort_complex(fm.linearize(model_with(k, d), at="static").eigenvalues())
    m = np.diag(np.concatenate([np.full(3, MASS), INERTIA]))
    a = np.block([[np.zeros((6, 6)), np.eye(6)], [-np.linalg.solve(m, k), -np.linalg.solve(m, d)]])
    expected = np.sort_complex(np.linalg.eigvals(a))
    assert lam.size == 12
    assert np.max(np.abs(lam - expected) / np.abs(expected)) < 1e-7


def test_global_axes_damper_equals_the_corotational_one_for_small_motion_and_bad_sizes_are_one_line():
    """About s = 0 the global and the corotational axes coincide: the same eigenvalues (1e-7)."""
    k, d = coupled_matrices()
    model = fm.Model("global", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("body", mass=MASS, inertia=tuple(INERTIA))
    model.add_force(fm.MatrixBushing(model.add_marker(model.ground, "seat"), model.add_marker(body, "centre"),
                                     stiffness=k, damping=d, axes="global", name="mount"))
    lam = np.sort_complex(fm.linearize(model, at="static").eigenvalues())
    ref = np.sort_complex(fm.linearize(model_with(k, d), at="static").eigenvalues())
    assert np.max(np.abs(lam - ref) / np.abs(ref)) < 1e-7
    with pytest.raises(ModelError, match="6×6") as error:
        fm.MatrixBushing(model.markers[0], model.markers[1], stiffness=np.eye(3))
    assert "\n" not in str(error.value)
