"""Issue 46: the operators that let a large reduction hold each matrix once — the upper triangle PARDISO factorizes
as the interior stiffness itself (SymmetricUpper), the interior mass read from the mass (PrincipalBlock), the norm
without a copy (inf_norm) — against SciPy's products with the full matrices (an independent reference)."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import fem.linalg as linalg
from fem.eigen import block_shift_invert
from fem.linalg import PrincipalBlock, SPDFactor, SymmetricUpper, inf_norm, principal_submatrix, spmm


def _spd(n: int = 2000, seed: int = 3) -> sp.csr_matrix:
    """A random sparse symmetric positive definite matrix (diagonally dominant), entries of mixed sign."""
    a = sp.random(n, n, density=0.004, random_state=seed, format="csr")
    a.data -= 0.5
    a = (a + a.T).tocsr()
    return (a + sp.diags(np.asarray(abs(a).sum(axis=1)).ravel() + 1.0)).tocsr()


def _laplacian(nx: int, ny: int) -> sp.csr_matrix:
    """The 5-point Laplacian of an nx × ny grid with Dirichlet ends (well separated lowest eigenvalues)."""
    def line(n):
        return sp.diags([-np.ones(n - 1), 2.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])

    return (sp.kron(line(nx), sp.identity(ny)) + sp.kron(sp.identity(nx), line(ny))).tocsr()


@pytest.mark.parametrize("split", [False, True])
def test_symmetric_upper_product_equals_the_full_matrix(monkeypatch, split):
    """U x + Uᵀ x − D x equals A x to round-off (1e-13 of ‖A‖∞ ‖x‖∞), for blocks and single vectors, on one thread and
    split over two (SPLIT_WORK lowered); the dense form and the stored-entry count are those of A."""
    if split:
        monkeypatch.setattr(linalg, "SPLIT_WORK", 10)
    a = _spd()
    u = SymmetricUpper(sp.triu(a))
    x = np.random.default_rng(0).standard_normal((a.shape[0], 7))
    scale = inf_norm(a) * np.abs(x).max()
    assert np.abs(u @ x - a @ x).max() <= 1e-13 * scale
    assert np.abs(spmm(u, x) - a @ x).max() <= 1e-13 * scale
    assert np.abs(u @ x[:, 0] - a @ x[:, 0]).max() <= 1e-13 * scale
    np.testing.assert_array_equal(u.toarray(), a.toarray())
    assert u.nnz == a.nnz
    assert u.nbytes < 0.6 * (a.data.nbytes + a.indices.nbytes + a.indptr.nbytes)


def test_inf_norm_without_a_copy_equals_scipys():
    """‖A‖∞ by blocks of rows, and from the upper triangle alone, equals SciPy's abs(A).sum(axis=1).max()."""
    a = _spd()
    reference = float(abs(a).sum(axis=1).max())
    assert inf_norm(a) == pytest.approx(reference, rel=1e-14)
    assert inf_norm(SymmetricUpper(sp.triu(a))) == pytest.approx(reference, rel=1e-14)
    keep = np.arange(0, a.shape[0], 3)
    assert inf_norm(PrincipalBlock(a, keep)) == pytest.approx(float(abs(a[keep][:, keep]).sum(axis=1).max()),
                                                              rel=1e-14)


def test_principal_block_equals_the_submatrix():
    """(A [x; 0])_k equals A[k][:, k] x (exactly: the same sums, the other terms are zeros)."""
    a = _spd()
    keep = np.setdiff1d(np.arange(a.shape[0]), [5, 17, 400, 1999])
    block = PrincipalBlock(a, keep)
    x = np.random.default_rng(1).standard_normal((keep.size, 4))
    sub = principal_submatrix(a, keep)
    np.testing.assert_allclose(block @ x, sub @ x, rtol=0, atol=1e-13 * inf_norm(a) * np.abs(x).max())
    np.testing.assert_array_equal(block.toarray(), sub.toarray())


def test_factor_of_the_upper_triangle_solves_and_serves_the_products():
    """PARDISO (or SuperLU) reads the zero-based upper triangle as it is: A x = b to 1e-10 relative (a grid
    Laplacian, condition ≈ 700); the factor's ``upper`` is A's product; the lowest eigenpairs by shift-invert
    Lanczos on (SymmetricUpper, PrincipalBlock) equal those on the full matrices (dense reference, 1e-9
    relative)."""
    a = _laplacian(30, 41)
    b = np.random.default_rng(2).standard_normal((a.shape[0], 3))
    factor = SPDFactor(SymmetricUpper(sp.triu(a)), "test matrix")
    x = factor.solve(b)
    assert np.abs(a @ x - b).max() <= 1e-10 * np.abs(b).max()
    if factor.upper is not None:  # PARDISO
        y = np.random.default_rng(4).standard_normal(a.shape[0])
        assert np.abs(factor.upper @ y - a @ y).max() <= 1e-13 * inf_norm(a) * np.abs(y).max()
    mass = sp.diags(np.linspace(1.0, 2.0, a.shape[0] + 2)).tocsr()
    keep = np.arange(1, a.shape[0] + 1)
    values, vectors = block_shift_invert(SymmetricUpper(sp.triu(a)), PrincipalBlock(mass, keep), 6,
                                         lambda r: factor.solve(r, refine=False), tol=1e-9)
    import scipy.linalg as sla

    reference = sla.eigh(a.toarray(), principal_submatrix(mass, keep).toarray(), subset_by_index=[0, 5],
                         eigvals_only=True)
    np.testing.assert_allclose(np.sort(values), reference, rtol=1e-9)
    factor.release()
