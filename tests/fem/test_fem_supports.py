"""Supports of single dofs and the eigen-solver on hard spectra, against published benchmarks and exact spectra.

NAFEMS R0015 "Selected benchmarks for natural frequency analysis" (Abbassian, Dawswell, Knowles, 1987):
test 32 (FV32, cantilevered tapered membrane) and test 12 (FV12, free thin square plate).
"""
import numpy as np
import pytest
import scipy.sparse as sp

from fem.analysis import free_dofs, modal_analysis
from fem.eigen import block_shift_invert
from fem.errors import ModelError
from fem.mesh import load_mesh
from fem.meshing import bar_mesh, tapered_membrane_mesh
from fem.model import solid_model

NAFEMS = "E=200e9,nu=0.3,rho=8000"
FV32_HZ = np.array([44.623, 130.03, 162.70, 246.05, 379.90, 391.44])  # R0015 test 32, plane stress
# FV12's plate, elastic modes 7..14: Kirchhoff values of the completely free square plate, ν = 0.3 (Leissa, J. Sound
# Vib. 31 (1973) 257-293, Ritz with 36 terms: λ = ωa²√(ρh/D) = 13.469, 19.596, 24.270, 34.801 (2), 61.093 (2),
# 63.687; here f = 0.120406 λ Hz).
# NAFEMS R0015 lists 1.622, 2.360, 2.922, 4.233 (2), 7.416: see cases/nafems_free_vibration (the pair at 4.233 lies
# 1.0 % above Leissa's 4.190).
FV12_HZ = np.array([1.622, 2.360, 2.922, 4.190, 4.190, 7.356, 7.356, 7.668])


@pytest.fixture(scope="module")
def fv32(mesh_dir):
    return solid_model(load_mesh(tapered_membrane_mesh(str(mesh_dir / "fv32.msh"), 16, 8)), NAFEMS)


def test_fv32_membrane_held_per_dof_matches_nafems(fv32):
    """FV32 with supports of single dofs: u_x = u_y = 0 on the root, u_z = 0 on the bottom face (membrane);
    16 × 8 × 1 hexahedra of 27 nodes. Tolerance 1 % (the issue's acceptance; measured ≤ 0.01 %)."""
    supports = [(fv32.select("group:root"), "12"), (fv32.select("group:bottom"), "3")]
    f = modal_analysis(fv32, 6, supports).frequencies_hz
    np.testing.assert_allclose(f, FV32_HZ, rtol=0.01)


def test_single_dof_supports_leave_the_other_rigid_motions(mesh_dir):
    """A bar held only in z on its bottom face keeps the three in-plane rigid motions (x, y, rotation about z)
    as zero-frequency modes, and loses the other three (kinematics)."""
    model = solid_model(load_mesh(bar_mesh(str(mesh_dir / "supports_bar.msh"), order=1, size=0.025)), "steel")
    bottom = model.select("box:-1,-1,-1e-9,2,1,1e-9")
    f = modal_analysis(model, 5, [(bottom, "3")]).frequencies_hz
    elastic = f[3:]
    assert np.all(np.abs(f[:3]) < 1e-3 * elastic[0]) and elastic[0] > 100.0
    dofs = free_dofs(model, [(bottom, "3")])
    assert model.n_dofs - dofs.size == bottom.size  # one dof per node held


@pytest.mark.parametrize("dofs", ["7", "33", "", "x"])
def test_bad_support_dofs_are_one_line_errors(fv32, dofs):
    with pytest.raises(ModelError, match="123456"):
        free_dofs(fv32, [(fv32.select("group:root"), dofs)])


def test_rotation_support_on_solid_nodes_is_an_error(fv32):
    with pytest.raises(ModelError, match="translations 1-3 only"):
        free_dofs(fv32, [(fv32.select("group:root"), "456")])


def test_cluster_at_the_cut_off_is_resolved():
    """A diagonal pencil with a 5-fold eigenvalue split by the number of modes asked for (modes 8..12 equal, 10
    asked): the lowest 10 eigenvalues come out exactly (to 1e-9), the cluster complete in the Krylov space."""
    n = 2000
    values = np.concatenate([np.arange(1.0, 8.0), np.full(5, 8.0), np.linspace(9.0, 500.0, n - 12)])
    k, m = sp.diags(values).tocsr(), sp.identity(n, format="csr")
    got, vectors = block_shift_invert(k, m, 10, lambda rhs: rhs / values[:, None], 0.0)
    np.testing.assert_allclose(got, np.sort(values)[:10], rtol=1e-9)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(10), atol=1e-9)


def test_block_lanczos_many_modes_match_the_analytic_string():
    """40 lowest modes of a fixed–fixed string of 3000 linear elements (lumped mass): the locking of converged pairs
    and the final check over all pairs (issue 31) return the analytic discrete eigenvalues
    λ_k = (2/h²)(1 − cos(kπ/n)) · T/ρ to 1e-9 and M-orthonormal vectors (1e-9)."""
    import scipy.sparse.linalg as spla

    n, length = 3000, 1.0
    h = length / n
    main, off = np.full(n - 1, 2.0 / h), np.full(n - 2, -1.0 / h)  # tension 1 N, 1 kg/m
    k = sp.diags([off, main, off], [-1, 0, 1], format="csc")
    m = sp.identity(n - 1, format="csr") * h
    lu = spla.splu(k)
    got, vectors = block_shift_invert(k.tocsr(), m, 40, lu.solve, 0.0)
    exact = 2.0 / h**2 * (1.0 - np.cos(np.arange(1, 41) * np.pi / n))
    np.testing.assert_allclose(np.sort(got), exact, rtol=1e-9)
    np.testing.assert_allclose(vectors.T @ (m @ vectors), np.eye(40), atol=1e-9)


@pytest.mark.slow
def test_fv12_fourteen_modes_converge(mesh_dir):
    """FV12, free thin square plate 10 m × 10 m × 0.05 m, 40 × 40 × 1 hexahedra of 27 nodes (59 049 dofs): 14 modes
    (6 rigid + 8 elastic) converge (they used to stall at the round-off level and fail) and match the Kirchhoff plate
    (Leissa, above) to 1 % (measured ≤ 0.1 %)."""
    path = bar_mesh(str(mesh_dir / "fv12.msh"), 10.0, 10.0, 0.05, size=0.25, order=2, hexahedra=True)
    model = solid_model(load_mesh(path), NAFEMS)
    assert model.n_dofs == 59049
    f = modal_analysis(model, 14).frequencies_hz
    assert np.all(np.abs(f[:6]) < 1e-3 * f[6])
    np.testing.assert_allclose(f[6:], FV12_HZ, rtol=0.01)
