"""Lowest eigenpairs of ``K φ = λ M φ`` by block shift-invert Lanczos with one factorization.

Why not ARPACK (``eigsh``) alone: ARPACK asks for one solve at a time, and a solve with the factor of a
170 000-dof quadratic-tetrahedron stiffness streams about a gigabyte of factor data (≈ 0.7 s here); 26 modes took
70 such solves. A block method hands the factor ``b`` right-hand sides at once (one pass over the factor, BLAS-3),
which costs little more than one solve. The Krylov space ``[X, A X, A² X, ...]`` with ``A = (K − σM)⁻¹ M`` is
built block by block, M-orthonormalized against all previous blocks (twice, classical Gram–Schmidt), and the Ritz
pairs of ``Vᵀ K V`` (``Vᵀ M V = I`` by construction) are accepted when the residual ``‖K x − λ M x‖`` of every
wanted pair is below ``tol`` relative to ``max(|λ|, 10⁻³ λ_max) ‖M x‖`` (so rigid-body modes are judged
absolutely) plus the round-off floor ``ε ‖K‖ ‖x‖ / tol``. Shift-invert makes the wanted (lowest) eigenvalues the
dominant ones of ``A``, so a Krylov space of about two to three times the number of wanted modes suffices.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from fem.errors import ModelError

__all__ = ["block_shift_invert"]


def _m_orthonormalize(block: np.ndarray, basis: np.ndarray | None, m_basis: np.ndarray | None, mass):
    """M-orthonormalize ``block`` against ``basis`` (whose M-products are ``m_basis``) and within itself."""
    for _ in range(2):
        if basis is not None:
            block = block - basis @ (m_basis.T @ block)
    m_block = mass @ block
    gram = block.T @ m_block
    values, vectors = np.linalg.eigh(0.5 * (gram + gram.T))
    keep = values > 1e-10 * max(values.max(), 1e-300)
    transform = vectors[:, keep] / np.sqrt(values[keep])
    return block @ transform, m_block @ transform


def block_shift_invert(stiffness: sp.spmatrix, mass: sp.spmatrix, n_modes: int, solve, sigma: float = 0.0,
                       block_size: int | None = None, tol: float = 1e-7, max_dimension: int | None = None,
                       seed: int = 0):
    """Lowest ``n_modes`` eigenpairs.

    Parameters
    ----------
    stiffness, mass : (n, n) sparse, symmetric; ``mass`` positive (semi-)definite
    n_modes : int
    solve : callable
        ``solve(rhs (n, b)) -> (K − σ M)⁻¹ rhs`` from a factorization the caller made once.
    sigma : float, (rad/s)²
        The shift of that factorization.
    block_size : int, optional
        Right-hand sides per solve (default: ``min(max(8, n_modes // 2), 24)``).
    tol : float
        Relative residual accepted.

    Returns
    -------
    eigenvalues : (n_modes,) float, ascending
    vectors : (n, n_modes) float, mass-normalized
    """
    n = stiffness.shape[0]
    if n <= max(300, 4 * n_modes):  # small models: dense, in shift-invert form M x = μ (K − σM) x, μ = 1/(λ − σ),
        # which stays accurate when M is nearly singular (massless rotations) where eigh(K, M) would not be
        k, m = _dense(stiffness), _dense(mass)
        mu, vectors = sla.eigh(m, k - sigma * m, subset_by_index=[n - n_modes, n - 1])
        order = np.argsort(-mu)
        values, vectors = sigma + 1.0 / mu[order], vectors[:, order]
        vectors /= np.sqrt(np.einsum("ij,ij->j", vectors, m @ vectors))
        return values, vectors
    b = block_size or int(min(max(8, n_modes // 2 + 2), 24))
    limit = max_dimension or min(n - 1, max(6 * n_modes, 4 * b) + 10 * b)
    rng = np.random.default_rng(seed)
    block = solve(mass @ rng.standard_normal((n, b)))
    basis, m_basis = _m_orthonormalize(block, None, None, mass)
    k_small = basis.T @ (stiffness @ basis)  # projected stiffness, grown block by block (the projected mass is I)
    k_norm = float(abs(stiffness).sum(axis=1).max())  # ‖K‖∞: sets the round-off floor of the residuals
    n_check, history = n_modes, []
    while True:
        if basis.shape[1] >= n_check + b:
            n_check = _past_cluster(k_small, n_modes, basis.shape[1] - b)
            values, vectors, residual = _ritz(basis, stiffness, m_basis, k_small, n_check, k_norm * 1e-16 / tol)
            history.append(float(residual.max()))
            if history[-1] < tol or _stagnated(history, tol, basis.shape[1], n):
                return values[:n_modes], vectors[:, :n_modes]
        if basis.shape[1] >= limit + (n_check - n_modes):
            raise ModelError(f"eigenvalue iteration did not converge to {tol:g} within {basis.shape[1]} vectors "
                             f"(smallest worst residual {min(history, default=np.inf):.2g}); try fewer modes")
        block = solve(m_basis[:, -b:])
        new, m_new = _m_orthonormalize(block, basis, m_basis, mass)
        if new.shape[1] == 0:
            raise ModelError("eigenvalue iteration broke down (the Krylov space stopped growing)")
        k_new = stiffness @ new
        cross = basis.T @ k_new
        k_small = np.block([[k_small, cross], [cross.T, new.T @ k_new]])
        basis = np.hstack([basis, new])
        m_basis = np.hstack([m_basis, m_new])


#: a cluster continues while consecutive Ritz values differ by less than this (relative, in λ)
CLUSTER_GAP = 1e-3
#: residuals that stop decreasing below this multiple of ``tol`` are the round-off level of the model
STAGNATION_ACCEPT = 100.0


def _past_cluster(k_small: np.ndarray, n_modes: int, usable: int) -> int:
    """Number of Ritz pairs to check: ``n_modes``, extended past a (near-)degenerate cluster that the cut-off
    splits (its members converge together; one member alone mixes with its partners), at most ``usable``."""
    values = sla.eigh(0.5 * (k_small + k_small.T), eigvals_only=True,
                      subset_by_index=[0, min(usable, k_small.shape[0]) - 1])
    n_check = n_modes
    while n_check < values.size and values[n_check] - values[n_check - 1] <= CLUSTER_GAP * max(
            abs(values[n_check]), abs(values[n_check - 1])):
        n_check += 1
    return n_check


def _stagnated(history: list, tol: float, dimension: int, n: int) -> bool:
    """True when the worst residual has stopped decreasing (not halved over the last two extensions of the
    Krylov space) at less than ``STAGNATION_ACCEPT · tol``: the round-off level of the model (thin plates reach
    ≈ 1.2e-7 against the 1e-7 default); the pairs are accepted with a warning saying so."""
    if len(history) < 3 or history[-1] >= STAGNATION_ACCEPT * tol or min(history[-3:-1]) > 2.0 * history[-1]:
        return False
    warnings.warn(f"eigenvalue residuals stopped decreasing at {history[-1]:.2g} (asked {tol:g}) with {dimension} "
                  f"Krylov vectors of {n} dofs: the round-off level of this model; accepted", stacklevel=4)
    return True


def _dense(matrix) -> np.ndarray:
    dense = matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)
    return 0.5 * (dense + dense.T)


def _ritz(basis, stiffness, m_basis, k_small, n_modes, floor):
    values, coeffs = sla.eigh(0.5 * (k_small + k_small.T), subset_by_index=[0, n_modes - 1])
    vectors = basis @ coeffs
    k_vec = stiffness @ vectors
    m_vec = m_basis @ coeffs
    # relative to |λ| (or to 1e-3 of the largest wanted |λ| for the near-zero rigid-body modes), plus the level
    # that round-off in K x alone reaches (ε ‖K‖ ‖x‖ / tol), which no iteration can go below
    reference = np.maximum(np.abs(values), 1e-3 * np.abs(values).max())
    scale = reference * np.linalg.norm(m_vec, axis=0) + floor * np.linalg.norm(vectors, axis=0) + 1e-300
    residual = np.linalg.norm(k_vec - m_vec * values, axis=0) / scale
    return values, vectors, residual
