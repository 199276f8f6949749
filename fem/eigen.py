"""Lowest eigenpairs of ``K φ = λ M φ`` by block shift-invert Lanczos with one factorization.

Why not ARPACK (``eigsh``) alone: ARPACK asks for one solve at a time, and a solve with the factor of a
170 000-dof quadratic-tetrahedron stiffness streams about a gigabyte of factor data; 26 modes took 70 such solves.
A block method hands the factor ``b`` right-hand sides at once. Measured on the 177k-dof bar (issue 31, PARDISO
without iterative refinement): 0.15 s for 1 right-hand side, 0.49 s for 8, 0.61 s for 12, 0.90 s for 24, i.e.
about 0.12 s per pass plus 0.03 s per vector, so blocks save the per-pass part only, and the block size is kept
small (fewer Krylov vectors reach the accuracy). The Krylov space ``[X, A X, A² X, ...]`` with
``A = (K − σM)⁻¹ M`` is built block by block, M-orthonormalized against all previous blocks (twice, block
classical Gram–Schmidt: two GEMMs per pass), and the Ritz pairs of ``Vᵀ K V`` (``Vᵀ M V = I`` by construction) are
accepted when the residual ``‖K x − λ M x‖`` of every wanted pair is below ``tol`` relative to
``max(|λ|, 10⁻³ λ_max) ‖M x‖`` (so rigid-body modes are judged absolutely) plus the round-off floor
``ε ‖K‖ ‖x‖ / tol``. Shift-invert makes the wanted (lowest) eigenvalues the dominant ones of ``A``; at a 1e-7
residual the measured cases needed 2.9–4.2 times as many Krylov vectors as wanted modes.
"""
from __future__ import annotations

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from fem.errors import ModelError
from fem.linalg import inf_norm, spmm

__all__ = ["block_shift_invert"]

_dgemm = sla.blas.dgemm


def _m_orthonormalize(block: np.ndarray, basis: np.ndarray, mass):
    """M-orthonormalize ``block`` against the M-orthonormal ``basis`` (may have no columns) and within itself: block
    classical Gram–Schmidt, twice (``h = Vᵀ (M block)``: one product with ``M`` and two GEMMs per pass), then the
    block's own Gram matrix. Returns the block and its M-product.

    ``M V`` is not stored (issue 46: it doubled the Krylov basis, 0.5 GB at 667k dofs); ``Vᵀ (M b)`` costs one more
    sparse product with the block per pass, a small fraction of a solve."""
    for _ in range(2):
        if basis.shape[1]:
            h = basis.T @ spmm(mass, block)
            if block.flags.f_contiguous and basis.flags.f_contiguous:  # block −= basis h in one GEMM, in place
                block = _dgemm(-1.0, basis, h, 1.0, block, overwrite_c=True)
            else:
                block -= basis @ h
    m_block = spmm(mass, block)
    gram = block.T @ m_block
    values, vectors = np.linalg.eigh(0.5 * (gram + gram.T))
    keep = values > 1e-10 * max(values.max(), 1e-300)
    transform = vectors[:, keep] / np.sqrt(values[keep])
    return block @ transform, m_block @ transform


class _Basis:
    """The Krylov basis ``V`` in a preallocated (n, capacity) array, grown by a quarter when full (amortized linear
    copying instead of an ``hstack`` of the whole basis per block), with the projected stiffness ``Vᵀ K V`` (the
    projected mass is ``I``)."""

    def __init__(self, n: int, capacity: int):
        self.v = np.empty((n, capacity), order="F")  # pages are taken as columns are written
        self.k = np.empty((capacity, capacity))
        self.size = 0
        self.work = None  # the work array of _residual

    def view(self):
        return self.v[:, :self.size]

    def append(self, new: np.ndarray, stiffness) -> None:
        d, b = self.size, new.shape[1]
        if d + b > self.v.shape[1]:
            capacity = max(d + b, int(1.25 * self.v.shape[1]))
            grown = np.empty((self.v.shape[0], capacity), order="F")
            grown[:, :d] = self.v[:, :d]
            self.v = grown
            k = np.empty((capacity, capacity))
            k[:d, :d] = self.k[:d, :d]
            self.k = k
        k_new = spmm(stiffness, new)
        self.k[:d, d:d + b] = self.v[:, :d].T @ k_new
        self.k[d:d + b, :d] = self.k[:d, d:d + b].T
        self.k[d:d + b, d:d + b] = new.T @ k_new
        self.v[:, d:d + b] = new
        self.size = d + b

    def projected(self) -> np.ndarray:
        k = self.k[:self.size, :self.size]
        return 0.5 * (k + k.T)


def block_shift_invert(stiffness: sp.spmatrix, mass: sp.spmatrix, n_modes: int, solve, sigma: float = 0.0,
                       block_size: int | None = None, tol: float = 1e-7, max_dimension: int | None = None,
                       seed: int = 0, start: np.ndarray | None = None):
    """Lowest ``n_modes`` eigenpairs.

    Parameters
    ----------
    stiffness, mass : (n, n) sparse, symmetric; ``mass`` positive (semi-)definite
    n_modes : int
    solve : callable
        ``solve(rhs (n, b)) -> (K − σ M)⁻¹ rhs`` from a factorization the caller made once. Called on a worker
        thread (one call at a time, all done when this returns), while this thread works on the basis.
    sigma : float, (rad/s)²
        The shift of that factorization.
    block_size : int, optional
        Right-hand sides per solve (default: ``min(max(8, n_modes // 8 + 2), 16)``: a PARDISO solve costs about
        0.12 s + 0.03 s per right-hand side at 177k dofs, so a block saves little per vector, while smaller blocks
        reach the wanted accuracy with fewer Krylov vectors: 96 instead of 130 for 23 modes of the 177k-dof bar
        (block 8 against 13), 264 instead of 360 for 93 modes at 60k dofs (block 12 against 24)).
    tol : float
        Relative residual accepted.
    start : (n, b) float, optional
        Approximate eigenvectors to start from (the first block of the Krylov space; the block size is then ``b``),
        e.g. a reduced model's modes for the full model's comparison (issue 46). Without, random vectors.

    Returns
    -------
    eigenvalues : (n_modes,) float, ascending
    vectors : (n, n_modes) float, mass-normalized

    Notes
    -----
    Bookkeeping proportional to the work: the basis lives in preallocated arrays; residuals are computed only for
    the pairs not yet converged ("locked" pairs are not recomputed while the space grows), and every accepted set
    is confirmed by one residual check of all wanted pairs in the final space. The solve of the next block runs
    while the newest block's products and the checks are computed (:func:`_iterate`).
    """
    n = stiffness.shape[0]
    if n <= max(300, 4 * n_modes) and start is None:  # small models: dense, in shift-invert form
        # M x = μ (K − σM) x, μ = 1/(λ − σ), which stays accurate when M is nearly singular (massless rotations)
        # where eigh(K, M) would not be
        k, m = _dense(stiffness), _dense(mass)
        mu, vectors = sla.eigh(m, k - sigma * m, subset_by_index=[n - n_modes, n - 1])
        order = np.argsort(-mu)
        values, vectors = sigma + 1.0 / mu[order], vectors[:, order]
        vectors /= np.sqrt(np.einsum("ij,ij->j", vectors, m @ vectors))
        return values, vectors
    if start is not None:
        block_size = start.shape[1]
    b = block_size or int(min(max(8, n_modes // 8 + 2), 16))
    limit = max_dimension or min(n - 1, max(6 * n_modes, 4 * b) + 10 * b)
    rng = np.random.default_rng(seed)
    # capacity for the largest space the iteration may build (its limit and one block): growing copied the basis,
    # old and new alive at once (a 177k-dof bar that outgrew 3 × n_modes peaked 0.6 GB higher during the copy; the
    # 667k-dof bar's fixed-interface modes 1.2 GB above the factor, issue 46). The array is column-major and made
    # by np.empty, so the columns never written are never touched: only the vectors used take memory.
    space = _Basis(n, min(n, limit + 2 * b))
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fem-eigen-solve") as pool:
        seed_block = solve(spmm(mass, rng.standard_normal((n, b)))) if start is None else np.asarray(start, order="F")
        first, m_first = _m_orthonormalize(seed_block, space.v[:, :0], mass)
        pending = pool.submit(solve, m_first[:, -b:])
        space.append(first, stiffness)
        # leaving the pool waits for a solve still running (the caller frees the factor next)
        return _iterate(space, stiffness, mass, n_modes, solve, pool, pending, b, limit, tol)


def _iterate(space: _Basis, stiffness, mass, n_modes: int, solve, pool, pending, b: int, limit: int, tol: float):
    """The Lanczos loop of :func:`block_shift_invert`, with the solve of the next block running while the space is
    extended and checked.

    The next block's right-hand side ``M`` × (the newest ``b`` basis vectors) is known as soon as a block is
    M-orthonormalized, so the solve (PARDISO on one thread, outside the GIL) starts then, on a worker thread, and
    the projected stiffness (a product with ``K``) and the residual checks run on this thread at the same time: on
    the 177k-dof bar they are about as long as the solves (issue 31). The iteration is the same sequence of
    operations as one after another; a solve started before the check that accepts the pairs is discarded."""
    n = space.v.shape[0]
    k_norm = inf_norm(stiffness)  # ‖K‖∞: sets the round-off floor of the residuals
    floor = k_norm * 1e-16 / tol
    n_check, history, converged = n_modes, [], np.zeros(0, dtype=bool)
    checks = []  # (space size, worst open residual) of each check: the next check is due where the rate predicts
    while True:  # no residuals before the space is twice the wanted size (4× was needed in the cases above)
        at_limit = space.size >= limit + (n_check - n_modes)  # a skipped check is made up before giving up
        if space.size >= max(n_check + b, 2 * n_check, _next_check(checks, tol, b)) or at_limit:
            k_small = space.projected()
            n_check = _past_cluster(k_small, n_modes, space.size - b)
            converged = np.concatenate([converged[:n_check], np.zeros(max(0, n_check - converged.size), bool)])
            values, coeffs = sla.eigh(k_small, subset_by_index=[0, n_check - 1])
            open_ = np.flatnonzero(~converged)
            residual = _residual(space, stiffness, mass, values, coeffs, open_, floor, vectors=False)[0]
            converged[open_] = residual < tol
            history.append(float(residual.max()))
            checks.append((space.size, float(residual[residual >= tol].max(initial=0.0))))
            done = bool(converged.all())
            if done or _stagnated(history, tol, space.size, n):
                final, vectors = _residual(space, stiffness, mass, values, coeffs, np.arange(n_modes), floor)
                if final.max() < (1.0 if done else STAGNATION_ACCEPT) * tol:
                    return values[:n_modes], vectors
                # a locked pair is above tol in the final space: at the round-off level of the model (judged on the
                # worst residual of all pairs, as before locking) it is accepted; otherwise all are checked again
                history.append(float(final.max()))
                if done and _stagnated(history, tol, space.size, n):
                    return values[:n_modes], vectors
                converged[:n_modes] = final < tol
        if space.size >= limit + (n_check - n_modes):
            raise ModelError(f"eigenvalue iteration did not converge to {tol:g} within {space.size} vectors "
                             f"(smallest worst residual {min(history, default=np.inf):.2g}); try fewer modes")
        basis = space.view()
        new, m_new = _m_orthonormalize(pending.result(), basis, mass)
        if new.shape[1] == 0:
            raise ModelError("eigenvalue iteration broke down (the Krylov space stopped growing)")
        # the next right-hand side: M × the newest b vectors of the space as it will be after this block
        older = b - new.shape[1]
        pending = pool.submit(solve, m_new if older <= 0 else np.hstack([
            spmm(mass, basis[:, max(0, basis.shape[1] - older):]), m_new]))
        space.append(new, stiffness)


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


def _next_check(checks: list, tol: float, block: int) -> int:
    """Space size at which the next residual check is due: one block after the last check, or two where the rate
    of the worst open residual between the last two checks (log-linear in the Krylov dimension) says that at least
    two more blocks are needed to reach ``tol``. Each check costs a product of K with every open Ritz vector
    (0.2 s at 177k dofs); shift-invert Lanczos converges faster than linearly, so the rate overestimates the
    blocks still needed and skipping one check does not overshoot (the 177k-dof bar: checks at 48, 56, 72, 88 and
    96 vectors instead of every 8 from 48 to 96, the same 96 vectors)."""
    if len(checks) < 2:
        return checks[-1][0] + block if checks else 0
    (size_0, worst_0), (size, worst) = checks[-2], checks[-1]
    if not tol < worst < worst_0:
        return size + block
    blocks_needed = np.log(tol / worst) / np.log(worst / worst_0) * (size - size_0) / block
    return size + block * (2 if blocks_needed >= 2.0 else 1)


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
    dense = matrix.toarray() if hasattr(matrix, "toarray") else np.asarray(matrix)  # sparse or fem.linalg operators
    return 0.5 * (dense + dense.T)


def _residual(space: _Basis, stiffness, mass, values, coeffs, which, floor, vectors: bool = True):
    """Relative residuals ``‖K x − λ M x‖`` of the Ritz pairs ``which`` and their vectors ``x`` (None when
    ``vectors`` is False): relative to ``|λ|`` (or to 1e-3 of the largest wanted ``|λ|`` for the near-zero rigid-body
    modes), plus the level that round-off in ``K x`` alone reaches (``ε ‖K‖ ‖x‖ / tol``), which no iteration can go
    below.

    Column blocks of :data:`RESIDUAL_BLOCK` pairs through a work array kept on ``space`` (issue 31: ``x``, ``M x``
    and ``K x`` of all 93 wanted pairs at 60k dofs were 135 MB of fresh memory per check, most of the check's cost
    in page faults); ``M x`` is the sparse product (0.6 ms a column at 60k dofs) rather than ``(M V) c`` (1.7 ms a
    column at 273 Krylov vectors), equal to round-off."""
    basis = space.view()
    which = np.asarray(which)
    n, count = basis.shape[0], which.size
    out = np.empty((n, count)) if vectors else None
    residual = np.empty(count)
    reference = np.maximum(np.abs(values[which]), 1e-3 * np.abs(values).max())
    width = min(RESIDUAL_BLOCK, count)
    if space.work is None or space.work.shape[1] < width:
        space.work = np.empty((n, width))
    for start in range(0, count, RESIDUAL_BLOCK):
        sl = slice(start, min(start + RESIDUAL_BLOCK, count))
        c = coeffs[:, which[sl]]
        x = space.work[:, :c.shape[1]]
        np.matmul(basis, c, out=x)
        m_x, k_x = spmm(mass, x), spmm(stiffness, x)  # M x sparse: a third of the cost of (M V) c at 273 Krylov vectors
        scale = reference[sl] * np.linalg.norm(m_x, axis=0) + floor * np.linalg.norm(x, axis=0) + 1e-300
        m_x *= values[which[sl]]
        k_x -= m_x
        residual[sl] = np.linalg.norm(k_x, axis=0) / scale
        if vectors:
            out[:, sl] = x
    return residual, out


#: Ritz pairs per block of a residual check (a work array of n × this, and the products' n × this temporaries: 8
#: rather than 24 keeps a check's fresh memory at 0.15 GB for 667k dofs, issue 46)
RESIDUAL_BLOCK = 8
