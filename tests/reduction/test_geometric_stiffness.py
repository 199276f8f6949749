"""Geometric stiffness of frame models and its modal projection (issue 28) against analytic references."""
import numpy as np
import pytest
import scipy.linalg

from fem.beam import rectangular_section
from fem.errors import ModelError
from fem.geometric import element_axial_forces, geometric_stiffness, inertia_load_cases
from fem.model import frame_model
from reduction import read_flexbody, reduce, write_flexbody

L_COLUMN = 2.0
SECTION = rectangular_section(0.02, 0.03)


def column(n=20):
    x = np.linspace(0.0, L_COLUMN, n + 1)
    points = np.column_stack([x, np.zeros_like(x), np.zeros_like(x)])
    model = frame_model(points, np.column_stack([np.arange(n), np.arange(1, n + 1)]), SECTION, "steel")
    model.add_interface_node("a", 0)
    model.add_interface_node("b", n)
    return model


def test_frame_geometric_stiffness_gives_the_euler_loads_of_a_pinned_column():
    """Pinned–pinned column, 20 elements, unit compression: the two lowest buckling loads of
    ``(K + P K_G(−1)) φ = 0`` equal Euler's ``π² E I / L²`` about both section axes within 0.01 %."""
    model = column()
    n = 20
    k = model.full_stiffness.toarray()
    kg = geometric_stiffness(model, -np.ones(n)).toarray()
    held = [0, 1, 2, 3, 6 * n + 1, 6 * n + 2]  # u, v, w, twist at x = 0; v, w at x = L
    free = np.setdiff1d(np.arange(k.shape[0]), held)
    loads = scipy.linalg.eig(k[np.ix_(free, free)], -kg[np.ix_(free, free)], right=False)
    loads = np.sort(loads.real[np.isfinite(loads) & (loads.real > 0)])
    E = model.frame.youngs_modulus
    euler = np.pi**2 * E * np.array([SECTION.iz, SECTION.iy]) / L_COLUMN**2
    assert np.allclose(loads[:2], euler, rtol=1e-4)


def test_centrifugal_load_case_gives_the_analytic_axial_force_of_a_spinning_bar():
    """A bar along x spinning about z, clamped at x = 0 (held), free at the tip: the ``ω_z²`` load case gives
    ``N(x) = ρA (L² − x²)/2`` per (rad/s)² at the element midpoints within 0.5 % (exact for the consistent mass up to
    the element's linear N)."""
    model = column()
    loads = inertia_load_cases(model)[:, 2]  # ω_z ω_z
    k = model.full_stiffness.toarray()
    free = np.arange(6, k.shape[0])
    u = np.zeros(k.shape[0])
    u[free] = np.linalg.solve(k[np.ix_(free, free)], loads[free])
    force = element_axial_forces(model, u)[:, 0]
    rho_a = model.rigid_body_properties()["mass"] / L_COLUMN
    x = np.linspace(0.0, L_COLUMN, 21)
    mid = 0.5 * (x[1:] + x[:-1])
    exact = rho_a * (L_COLUMN**2 - mid**2) / 2.0
    assert np.allclose(force, exact, rtol=5e-3, atol=5e-3 * exact.max())


def test_modal_geometric_stiffness_is_written_and_read_and_optional(tmp_path):
    """``reduce(..., geometric_stiffness=True)`` stores (12, m, m) inertia and (m, m, m) deformation matrices that
    survive the file; a body reduced without them reads back with ``geometric_stiffness is None``. The deformation
    matrices times the modal coordinates of a static axial compression reproduce the column's Euler load (1 %):
    ``K_ff + Σ q_j G_j`` turns singular at ``P = π² E I / L²`` (the reduced body's own buckling check)."""
    model = column()
    body = reduce(model, ["a", "b"], 6, compare_modes=0, geometric_stiffness=True)
    m = body.n_modes
    assert body.geometric_stiffness.inertia.shape == (12, m, m)
    assert body.geometric_stiffness.deformation.shape == (m, m, m)
    path = write_flexbody(body, str(tmp_path / "col.flex.h5"))
    back = read_flexbody(path)
    assert np.array_equal(back.geometric_stiffness.deformation, body.geometric_stiffness.deformation)
    assert back.geometric_stiffness.cases == body.geometric_stiffness.cases
    plain = read_flexbody(write_flexbody(reduce(model, ["a", "b"], 6, compare_modes=0), str(tmp_path / "p.flex.h5")))
    assert plain.geometric_stiffness is None
    # modal coordinates of a unit axial shortening of b towards a: least squares on the interface rows
    b = body.interface("b").node
    a = body.interface("a").node
    rows = np.vstack([body.translations[b] - body.translations[a], body.rotations[b], body.rotations[a]])
    target = np.zeros(9)
    target[0] = -1.0  # 1 m shortening, per unit; N = −EA/L per metre
    q_unit = np.linalg.lstsq(rows, target, rcond=None)[0]
    E = model.frame.youngs_modulus
    force_per_m = E * SECTION.area / L_COLUMN
    kg = np.tensordot(q_unit, body.geometric_stiffness.deformation, 1) / force_per_m  # per newton of compression
    k = np.diag((2 * np.pi * body.frequencies_hz) ** 2)
    critical = np.sort(np.real(scipy.linalg.eigvals(k, -kg)))
    critical = critical[critical > 0]
    # the body is free–free: its lowest buckling load is the pinned–pinned one about the weak axis
    assert critical[0] == pytest.approx(np.pi**2 * E * SECTION.iz / L_COLUMN**2, rel=0.01)


def test_a_model_without_elements_gets_one_clear_error():
    """A model with neither frame nor solid elements (matrices only): the reduction says what is needed."""
    model = column()
    model.frame = None
    with pytest.raises(ModelError, match="needs a frame model .* or a solid model"):
        reduce(model, ["a", "b"], 6, compare_modes=0, geometric_stiffness=True)


def test_solid_geometric_stiffness_of_a_uniaxial_stress_is_exact():
    """Hexahedral bar 1 × 0.02 × 0.03 m under the uniaxial stretch ``u = ε (x, −ν y, −ν z)`` (``σ = E ε e_x e_x``):
    for the transverse field ``u_y = x`` the geometric stiffness gives ``∫ σ_xx (∂u_y/∂x)² dV = E ε V`` to
    round-off (continuum form, Bathe 1996 eq. (6.61))."""
    from fem.geometric import projected_geometric_stiffness
    from fem.materials import parse_material
    from fem.meshing import structured_bar_mesh
    from fem.model import solid_model

    model = solid_model(structured_bar_mesh(1.0, 0.02, 0.03, 30, 2, 3), "steel")
    steel = parse_material("steel")
    pos, dofs, eps = model.positions, model.translation_dofs, 1e-4
    stretch = np.zeros(model.n_full_dofs)
    stretch[dofs[:, 0]] = eps * pos[:, 0]
    stretch[dofs[:, 1]] = -steel.poisson_ratio * eps * pos[:, 1]
    stretch[dofs[:, 2]] = -steel.poisson_ratio * eps * pos[:, 2]
    shear = np.zeros(model.n_full_dofs)
    shear[dofs[:, 1]] = pos[:, 0]
    value = projected_geometric_stiffness(model, shear[:, None], stretch[:, None])
    assert value.item() == pytest.approx(steel.youngs_modulus * eps * 1.0 * 0.02 * 0.03, rel=1e-10)
