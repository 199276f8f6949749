"""Solves without a factorization, for parts whose factor does not fit in memory (issue 46).

* :class:`AMGPreconditioner`: PyAMG's smoothed aggregation hierarchy (Vaněk, Mandel, Brezina 1996) built with the six
  rigid-body modes of elasticity as its near-nullspace ``B``, applied as one symmetric V-cycle to a whole block of
  vectors at once (Chebyshev–Jacobi smoothing of degree 2 on the interval ``[0.1, 1.1] ρ(D⁻¹A)``, the defaults of
  PETSc's GAMG; a dense Cholesky on the coarsest level). A block cycle reads each level's matrix once per smoothing
  step for all vectors, where PyAMG's own cycle runs column by column.
* :func:`block_pcg`: preconditioned conjugate gradients for many right-hand sides in lock step (independent
  recurrences, one block product per step), stopped on the relative residual ``‖b − A x‖ / ‖b‖`` of every column.
* :func:`lobpcg_modes`: the lowest eigenpairs of ``K x = λ M x`` by LOBPCG (Knyazev 2001) with such a
  preconditioner, holding six blocks of vectors, accepted on the relative residual ``‖K x − λ M x‖ / (λ ‖M x‖)`` of
  every pair.

Memory: the hierarchy holds the operator complexity of the fine matrix less one (≈ 0.2–0.5 of it for elasticity with
six candidates) plus the prolongators; no fill-in. See docs/benchmarks.md (issue 46) for times and sizes.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from fem.errors import ModelError
from fem.linalg import spmm

__all__ = ["AMGPreconditioner", "block_pcg", "lobpcg_modes", "node_blocks"]

#: degree of the Chebyshev smoother, and its interval as fractions of the estimated ρ(D⁻¹A) (PETSc GAMG's defaults)
CHEBYSHEV_DEGREE = 2
CHEBYSHEV_INTERVAL = (0.1, 1.1)
MAX_COARSE = 600  # dofs of the coarsest level (dense Cholesky)
#: strength-of-connection threshold of the aggregation: node pairs whose 3×3 block is below this fraction of the
#: geometric mean of their diagonal blocks (Frobenius norms) are not aggregated together. 0 (every entry a
#: connection) made aggregates of ≈ 100 nodes of a tet10 mesh and a V-cycle that needed 50 CG iterations to 1e-10;
#: 0.04 needs 20 at an operator complexity of 1.27 (177k-dof bar; 0.08: 20 at 1.52; 0.12: 200; issue 46, session 16)
STRENGTH_THETA = 0.04
#: the threshold of the leaner hierarchy, for parts where the faster one does not fit in memory (operator complexity
#: 1.08 against 1.27–1.29, the hierarchy ≈ 0.4 against 0.85 × the fine matrix; 2.5× the CG iterations)
LEAN_STRENGTH_THETA = 0.0


def node_blocks(dof_nodes: np.ndarray, dof_components: np.ndarray) -> bool:
    """True when the dofs come in consecutive (x, y, z) triples of one node each: the matrix can then be aggregated
    node by node (blocks of 3), as elasticity needs."""
    if dof_nodes.size == 0 or dof_nodes.size % 3:
        return False
    n3 = dof_nodes.reshape(-1, 3)
    c3 = dof_components.reshape(-1, 3)
    return bool(np.all(n3 == n3[:, :1]) and np.all(c3 == np.arange(3)))


class _Level:
    __slots__ = ("a", "p", "dinv", "lo", "hi")


class _Prolongator:
    """A prolongator ``P`` (n × n_c, CSR) held once, in two halves of rows: ``P c`` and the restriction ``Pᵀ x``
    each on two threads. Storing ``R = Pᵀ`` as well was 1.4 GB more at 3 M dofs (issue 46)."""

    def __init__(self, p):
        p = sp.csr_matrix(p)
        self.shape = p.shape
        self.middle = int(np.searchsorted(p.indptr, p.indptr[-1] // 2))
        self.top, self.bottom = p[:self.middle], p[self.middle:]
        self.nnz = p.nnz

    @property
    def nbytes(self) -> int:
        return sum(m.data.nbytes + m.indices.nbytes + m.indptr.nbytes for m in (self.top, self.bottom))

    def prolong(self, c: np.ndarray) -> np.ndarray:
        from fem.linalg import _worker

        out = np.empty((self.shape[0],) + c.shape[1:])
        other = _worker().submit(lambda: self.bottom @ c)
        out[:self.middle] = self.top @ c
        out[self.middle:] = other.result()
        return out

    def restrict(self, x: np.ndarray) -> np.ndarray:
        from fem.linalg import _worker

        other = _worker().submit(lambda: self.bottom.T @ x[self.middle:])
        out = self.top.T @ x[:self.middle]
        out += other.result()
        return out

    def tocsr(self) -> sp.csr_matrix:
        return sp.vstack([self.top, self.bottom], format="csr")


class AMGPreconditioner:
    """One symmetric smoothed-aggregation V-cycle, ``z = B⁻¹ r`` for blocks ``r`` (n, k).

    Parameters
    ----------
    matrix : (n, n) sparse, symmetric positive definite
    near_nullspace : (n, q) float
        Rigid-body modes of the dofs (6 for 3-D elasticity: 3 translations and 3 rotations about the centroid).
    blocks_of_three : bool
        Aggregate nodes (3×3 blocks) rather than single dofs (see :func:`node_blocks`).
    strength_theta : float
        Strength-of-connection threshold of the aggregation (:data:`STRENGTH_THETA`, or :data:`LEAN_STRENGTH_THETA`
        for a smaller hierarchy and a slower V-cycle).
    """

    def __init__(self, matrix, near_nullspace: np.ndarray, blocks_of_three: bool = False,
                 strength_theta: float | None = None):
        import pyamg

        fine = a = sp.csr_matrix(matrix)
        b = np.ascontiguousarray(near_nullspace, dtype=float)
        if blocks_of_three:
            a = a.tobsr(blocksize=(3, 3))
        theta = STRENGTH_THETA if strength_theta is None else float(strength_theta)
        ml = pyamg.smoothed_aggregation_solver(
            a, B=b, symmetry="symmetric", strength=("symmetric", {"theta": theta}),
            smooth=("jacobi", {"omega": 4.0 / 3.0}), improve_candidates=None, max_coarse=MAX_COARSE,
            max_levels=12, presmoother=None, postsmoother=None, keep=False)
        del a
        self.levels = []
        for k, lvl in enumerate(ml.levels[:-1]):
            level = _Level()
            # the fine level is the given matrix itself (its CSR copy from PyAMG's blocks was one more K_ii: issue 46)
            level.a = fine if k == 0 else sp.csr_matrix(lvl.A)
            level.p = _Prolongator(lvl.P)
            level.dinv = 1.0 / level.a.diagonal()
            rho = _spectral_radius(level.a, level.dinv)
            level.lo, level.hi = CHEBYSHEV_INTERVAL[0] * rho, CHEBYSHEV_INTERVAL[1] * rho
            self.levels.append(level)
        coarse = ml.levels[-1].A.toarray()
        del ml
        self.coarse_matrix = 0.5 * (coarse + coarse.T)
        self.coarse = sla.cho_factor(self.coarse_matrix)
        self.sizes = [lv.a.shape[0] for lv in self.levels] + [coarse.shape[0]]
        self.complexity = sum(lv.a.nnz for lv in self.levels) / max(self.levels[0].a.nnz, 1) if self.levels else 1.0

    def coarse_start(self, mass, n_vectors: int, max_size: int = 60000) -> np.ndarray:
        """A starting block for the lowest modes: the eigenvectors of the Galerkin problem ``(Pᵀ K P, Pᵀ M P)`` on
        the finest coarse level of at most ``max_size`` dofs, prolongated to the fine level (n, n_vectors)."""
        from fem.eigen import block_shift_invert
        from fem.linalg import SPDFactor

        depth = next((k for k in range(1, len(self.sizes)) if self.sizes[k] <= max_size), len(self.sizes) - 1)
        depth = max(depth, 1)
        m = _galerkin_mass(mass, self.levels[0].p)
        for k in range(1, depth):
            p = self.levels[k].p.tocsr()
            m = sp.csr_matrix(p.T @ (m @ p))
        a = self.levels[depth].a if depth < len(self.levels) else sp.csr_matrix(self.coarse_matrix)
        a = 0.5 * (a + a.T)
        m = 0.5 * (m + m.T)
        n_vectors = min(n_vectors, a.shape[0] - 1)
        factor = SPDFactor(sp.csr_matrix(a), "coarse-level stiffness")
        try:
            _, x = block_shift_invert(sp.csr_matrix(a), m.tocsr(), n_vectors, lambda r: factor.solve(r, refine=False),
                                      tol=1e-4)
        finally:
            factor.release()
        for k in reversed(range(depth)):
            x = self.levels[k].p.prolong(x)
        return x

    @property
    def nbytes(self) -> int:
        total = 0
        for lv in self.levels[1:]:
            total += lv.a.data.nbytes + lv.a.indices.nbytes + lv.a.indptr.nbytes
        for lv in self.levels:
            total += lv.p.nbytes
        return total

    def __call__(self, r: np.ndarray) -> np.ndarray:
        r = np.asarray(r, dtype=float)
        vector = r.ndim == 1
        x = self._cycle(0, r.reshape(r.shape[0], -1))
        return x[:, 0] if vector else x

    def _cycle(self, k: int, b: np.ndarray) -> np.ndarray:
        if k == len(self.levels):
            return sla.cho_solve(self.coarse, b)
        lv = self.levels[k]
        x = _chebyshev(lv, b, None)
        residual = b - spmm(lv.a, x)
        x += lv.p.prolong(self._cycle(k + 1, lv.p.restrict(residual)))
        return _chebyshev(lv, b, x)


def _galerkin_mass(mass, p: _Prolongator, rows: int = 200_000) -> sp.csr_matrix:
    """``Pᵀ M P`` by blocks of rows of ``P`` (``M``: a sparse matrix or a :class:`fem.linalg.PrincipalBlock` on the
    full mass): the products' temporaries are those of one block (the whole ``M P`` was 3.6 GB at 3 M dofs, and
    ``M_ii`` a copy of the mass: issue 46)."""
    from fem.linalg import PrincipalBlock

    p = p.tocsr()
    if isinstance(mass, PrincipalBlock):  # rows and columns of M at the kept dofs
        keep, full = mass.keep, sp.csr_matrix(mass.matrix)
    else:
        keep, full = None, sp.csr_matrix(mass)
    n = p.shape[0]
    out = sp.csr_matrix((p.shape[1], p.shape[1]))
    for lo in range(0, n, rows):
        hi = min(lo + rows, n)
        block = (full[lo:hi] if keep is None else full[keep[lo:hi]][:, keep]) @ p
        out = out + sp.csr_matrix(p[lo:hi].T @ block)
        del block
    return out


def _spectral_radius(a, dinv, iterations: int = 15) -> float:
    """ρ(D⁻¹A) by power iteration (an estimate from below; the smoother's interval adds 10 %)."""
    rng = np.random.default_rng(1)
    v = rng.standard_normal(a.shape[0])
    value = 1.0
    for _ in range(iterations):
        w = dinv * (a @ v)
        value = float(np.linalg.norm(w) / np.linalg.norm(v))
        v = w / np.linalg.norm(w)
    return value


def _chebyshev(lv: _Level, b: np.ndarray, x: np.ndarray | None) -> np.ndarray:
    """Chebyshev iteration on ``D⁻¹A`` over ``[lo, hi]`` (Saad, Iterative Methods, alg. 12.1), from ``x`` (0 when
    None), ``CHEBYSHEV_DEGREE`` steps."""
    theta, delta = 0.5 * (lv.hi + lv.lo), 0.5 * (lv.hi - lv.lo)
    sigma = theta / delta
    rho = 1.0 / sigma
    dinv = lv.dinv[:, None]
    r = b.copy() if x is None else b - spmm(lv.a, x)
    d = dinv * r / theta
    x = np.zeros_like(b) if x is None else x
    for step in range(CHEBYSHEV_DEGREE):
        x += d
        if step == CHEBYSHEV_DEGREE - 1:
            break
        r -= spmm(lv.a, d)
        rho_new = 1.0 / (2.0 * sigma - rho)
        d = (rho_new * rho) * d + (2.0 * rho_new / delta) * (dinv * r)
        rho = rho_new
    return x


def block_pcg(matrix, rhs: np.ndarray, precondition, rtol: float = 1e-10, max_iterations: int = 2000,
              progress=None) -> np.ndarray:
    """``A x = b`` for every column of ``rhs`` (n, k) by preconditioned CG, the columns in lock step.

    Stops when ``‖b − A x‖ ≤ rtol ‖b‖`` for every column (the recursively updated residual; the true one is checked
    at the end and must be below ``10 rtol``). Raises ModelError when that is not reached in ``max_iterations``.
    """
    b = np.asarray(rhs, dtype=float).reshape(rhs.shape[0], -1)
    norms = np.linalg.norm(b, axis=0)
    norms[norms == 0.0] = 1.0
    x = np.zeros_like(b)
    r = b.copy()
    z = precondition(r)
    p = z.copy()
    rz = np.einsum("ij,ij->j", r, z)
    start = time.perf_counter()
    for it in range(1, max_iterations + 1):
        q = spmm(matrix, p)
        alpha = rz / np.einsum("ij,ij->j", p, q)
        x += p * alpha
        r -= q * alpha
        worst = float(np.max(np.linalg.norm(r, axis=0) / norms))
        if progress is not None and it % 10 == 0:
            progress(it, worst, time.perf_counter() - start)
        if worst <= rtol:
            break
        z = precondition(r)
        rz_new = np.einsum("ij,ij->j", r, z)
        p = z + p * (rz_new / rz)
        rz = rz_new
    true = float(np.max(np.linalg.norm(b - spmm(matrix, x), axis=0) / norms))
    if true > 10.0 * rtol:
        raise ModelError(f"conjugate gradients did not reach the relative residual {rtol:g} in {it} iterations "
                         f"(reached {true:.2g}); use --solver direct if the factor fits in memory")
    return x


def lobpcg_modes(stiffness, mass, start: np.ndarray, precondition, n_modes: int, rtol: float = 1e-6,
                 max_iterations: int = 600, progress=None, chunk_columns: int = 8):
    """Lowest ``n_modes`` eigenpairs of ``K x = λ M x`` by LOBPCG (Knyazev 2001) from the block ``start``
    (n, b ≥ n_modes), holding few blocks of b vectors (issue 46: SciPy's LOBPCG held about 20, 13 GB at 3 M dofs).

    Each iteration: the residuals ``R = K X − M X Λ`` of the Ritz vectors ``X`` (M-orthonormal), ``W = B⁻¹ R`` by the
    preconditioner ``chunk_columns`` columns at a time written over ``R``, ``W`` and the search directions ``P``
    made M-orthogonal to ``X``, then Rayleigh–Ritz on ``[X, W, P]``: its Gram matrices are formed block by block
    (one product ``K B`` or ``M B`` alive at a time), scaled to a unit diagonal and made rank-revealing (the
    eigen-decomposition of the mass Gram matrix, directions below 1e-13 of its largest dropped), so a nearly
    dependent ``W`` or ``P`` of a converging pair costs nothing. ``X`` is replaced by the lowest b Ritz vectors and
    ``P`` by their part in ``[W, P]``. At most five n × b arrays are alive (X, P, M X, R and W while the preconditioner
    runs with some pairs locked; X, W, P and one product while the Gram matrices are formed; K X dies with R's
    forming).
    Soft locking: a wanted pair whose residual is below ``rtol / 2`` gets no column in ``W`` (no preconditioner
    application) while it stays there; it remains in ``X`` and is judged every iteration.

    Accepted when ``‖K x − λ M x‖ ≤ rtol · λ ‖M x‖`` for every wanted pair (then the eigenvalue's relative error is of
    the order of ``rtol²`` over the relative gap to its neighbours); the guard vectors beyond ``n_modes`` only speed
    convergence.

    ``start`` may be a function that returns the block: then no reference to it survives the first
    orthonormalization (an argument stays referenced by the caller for the whole call: 0.62 GB at 3 M dofs).

    Returns eigenvalues (n_modes,) ascending, vectors (n, n_modes) M-normalized, the worst relative residual and the
    number of iterations.
    """
    x = _m_orthonormal(mass, np.asarray(start() if callable(start) else start, dtype=float))
    del start
    b = x.shape[1]
    p = None
    worst = np.inf
    values = np.zeros(b)
    for iteration in range(max_iterations + 1):
        kx = spmm(stiffness, x)
        mx = spmm(mass, x)
        gk_xx, gm_xx = x.T @ kx, x.T @ mx
        values = np.diag(gk_xx) / np.diag(gm_xx)
        r = mx * values
        np.subtract(kx, r, out=r)
        del kx  # the Gram blocks of W and P with X come from K W and K P (K symmetric): one n × b block less
        rel = np.linalg.norm(r, axis=0) / (np.abs(values) * np.linalg.norm(mx, axis=0))
        worst = float(rel[:n_modes].max())
        if progress is not None:
            progress(iteration, worst)
        if worst <= rtol or iteration == max_iterations:
            break
        # soft locking: a wanted pair below half the tolerance gets no new direction (it stays in the Rayleigh–Ritz
        # space and is judged again each iteration); the guard vectors always do
        active = np.flatnonzero((rel > 0.5 * rtol) | (np.arange(b) >= n_modes))
        if active.size == b:
            for lo, hi in _chunks(b, chunk_columns):  # W = B⁻¹ R over R's own storage
                r[:, lo:hi] = precondition(np.ascontiguousarray(r[:, lo:hi]))
            w = r
        else:
            w = np.empty((r.shape[0], active.size))
            for lo, hi in _chunks(active.size, chunk_columns):
                w[:, lo:hi] = precondition(np.ascontiguousarray(r[:, active[lo:hi]]))
        del r
        _subtract(w, x, mx.T @ w)  # M-orthogonal to X (X is M-orthonormal to round-off)
        blocks = [x, w]
        if p is not None:
            _subtract(p, x, mx.T @ p)
            blocks.append(p)
        sizes = [blk.shape[1] for blk in blocks]
        at = np.concatenate([[0], np.cumsum(sizes)])
        gk = np.zeros((at[-1], at[-1]))
        gm = np.zeros((at[-1], at[-1]))
        gk[:b, :b], gm[:b, :b] = gk_xx, gm_xx
        del mx
        for j in range(1, len(blocks)):  # one product alive at a time
            for g, matrix in ((gk, stiffness), (gm, mass)):
                product = spmm(matrix, blocks[j])
                g[at[j]:at[j + 1], :b] = product.T @ x  # = blocks[j]ᵀ K X (or M X): K and M are symmetric
                for i in range(j, len(blocks)):
                    g[at[i]:at[i + 1], at[j]:at[j + 1]] = blocks[i].T @ product
                del product
        gk = np.tril(gk) + np.tril(gk, -1).T
        gm = np.tril(gm) + np.tril(gm, -1).T
        scale = 1.0 / np.sqrt(np.maximum(np.diag(gm), 1e-300))
        gk *= np.outer(scale, scale)
        gm *= np.outer(scale, scale)
        wm, vm = np.linalg.eigh(gm)
        keep = wm > 1e-13 * wm.max()
        q = vm[:, keep] / np.sqrt(wm[keep])
        reduced = q.T @ gk @ q
        _, y = np.linalg.eigh(0.5 * (reduced + reduced.T))
        coeffs = scale[:, None] * (q @ y[:, :b])
        new_p = _combine(blocks[1:], [coeffs[at[j]:at[j + 1]] for j in range(1, len(blocks))])
        del w, blocks
        p = new_p
        new_x = x @ coeffs[:b]
        new_x += p
        x = new_x
        del new_x
    if worst > rtol:
        raise ModelError(f"LOBPCG did not converge to the relative residual {rtol:g} in {max_iterations} iterations "
                         f"(reached {worst:.2g}); use --solver direct if the factor fits in memory")
    order = np.argsort(values)[:n_modes]
    return values[order], x[:, order], worst, iteration


def _chunks(n: int, most: int) -> list:
    """``n`` columns in as few chunks of at most ``most`` as possible, of equal widths (± 1): each application of the
    V-cycle reads every level's matrices once, so 28 columns as 7 + 7 + 7 + 7 cost 11 % less than 8 + 8 + 8 + 4
    (177k-dof bar, issue 46 session 16; the same numbers, column by column)."""
    bounds = np.linspace(0, n, -(-n // max(most, 1)) + 1).round().astype(int)
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def _subtract(target: np.ndarray, block: np.ndarray, c: np.ndarray, rows: int = 65536) -> None:
    """``target -= block @ c`` in place, by blocks of rows."""
    for lo in range(0, target.shape[0], rows):
        target[lo:lo + rows] -= block[lo:lo + rows] @ c


def _combine(blocks: list, coefficients: list, rows: int = 65536) -> np.ndarray:
    """``Σ blocks[k] @ coefficients[k]`` by blocks of rows (no n × b temporary per term)."""
    out = blocks[0] @ coefficients[0]
    for block, c in zip(blocks[1:], coefficients[1:]):
        for lo in range(0, block.shape[0], rows):
            out[lo:lo + rows] += block[lo:lo + rows] @ c
    return out


def _m_orthonormal(mass, block: np.ndarray) -> np.ndarray:
    block = block / np.maximum(np.sqrt(np.einsum("ij,ij->j", block, spmm(mass, block))), 1e-300)
    gram = block.T @ spmm(mass, block)
    w, v = np.linalg.eigh(0.5 * (gram + gram.T))
    keep = w > 1e-12 * w.max()
    return block @ (v[:, keep] / np.sqrt(w[keep]))
