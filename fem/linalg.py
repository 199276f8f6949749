"""Sparse symmetric positive definite factorization, factorized once and reused for many right-hand sides.

Backend: Intel MKL PARDISO through ``pypardiso`` where it is installed (x86_64), else SciPy's SuperLU. On a
143 000-dof quadratic-tetrahedron stiffness PARDISO factorizes in about 4 s on this 2-core machine against 25 s and
4.3 GB for SuperLU (see docs/benchmarks.md), which is why it is the default.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla  # SuperLU fallback

from fem.errors import ModelError

__all__ = ["SPDFactor", "PrincipalBlock", "SymmetricUpper", "backend_name", "inf_norm", "principal_submatrix",
           "return_freed_memory", "spmm"]

_pypardiso = None
_backend_checked = False


def _pardiso():
    """The ``pypardiso`` module, imported on first use (None where it or MKL's ``mkl_rt`` is missing).

    Lazy, so that runs that never factorize a sparse matrix (a cached reduction, a multibody run) do not pay for
    it, and with ``PYPARDISO_MKL_RT`` pointed at ``<prefix>/lib/libmkl_rt.so*`` first where it is there: without
    it pypardiso globs the whole of ``sys.prefix`` recursively for every solver it creates, including one at its
    own import (about 1 s each on this machine).
    """
    global _pypardiso, _backend_checked
    if not _backend_checked:
        _backend_checked = True
        try:  # pragma: no cover - depends on the platform
            import glob
            import os
            import sys

            if "PYPARDISO_MKL_RT" not in os.environ:
                found = sorted(glob.glob(os.path.join(sys.prefix, "lib", "libmkl_rt.so*")), key=len)
                if found:
                    os.environ["PYPARDISO_MKL_RT"] = found[0]
            import pypardiso

            probe = pypardiso.PyPardisoSolver(mtype=2)
            os.environ.setdefault("PYPARDISO_MKL_RT", probe.libmkl._name)  # later solvers: no search
            _pypardiso = pypardiso
        except Exception:  # ImportError, or mkl_rt missing
            _pypardiso = None
    return _pypardiso


_mkl_controller = None


def _one_mkl_thread():
    """Context: MKL (PARDISO) on one thread. PARDISO's solve phase runs on one thread anyway (issue 31: CPU equal to
    wall at idle), but its OpenMP team stays awake and spin-waits: on the shared 2-core machine 12 solves of 8
    right-hand sides at 177k dofs took 7.2 s CPU and 18-20 s wall with the team of two against 4.7 s CPU and
    4.8-10.7 s wall on one thread (load 4.4-5.2). The factorization keeps both threads."""
    global _mkl_controller
    if _mkl_controller is None:
        from threadpoolctl import ThreadpoolController

        _mkl_controller = ThreadpoolController().select(internal_api="mkl")
    return _mkl_controller.limit(limits=1)


#: sparse × dense products with fewer stored entries × columns than this run on one thread (splitting a small product
#: costs more in thread hand-over than it saves)
SPLIT_WORK = 20_000_000
_pool = None  # (process id, executor): the worker thread of spmm
try:  # SciPy's own kernel of ``csr @ dense`` (``y += A x`` over row-major x, y), called on each half of the rows so
    # that both write into one result; ``a @ x`` would allocate each half's result and copy it (page faults: 0.06 s
    # of 0.18 s at 177k dofs × 24 columns). Private but unchanged since SciPy 0.14; without it spmm is ``a @ x``.
    from scipy.sparse._sparsetools import csc_matvecs as _csc_matvecs, csr_matvecs as _csr_matvecs
except ImportError:  # pragma: no cover
    _csr_matvecs = _csc_matvecs = None


def _product_threads() -> int:
    """Threads for :func:`spmm`: the CPUs this process may use, at most two, and one where ``OMP_NUM_THREADS=1``
    asks for single-threaded numerics (a Dask worker running several reductions at once)."""
    import os

    available = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if os.environ.get("OMP_NUM_THREADS", "").strip() == "1":
        return 1
    return min(2, available)


def spmm(a: sp.spmatrix, x: np.ndarray) -> np.ndarray:
    """``a @ x`` for a sparse CSR ``a`` and a dense (n, k) ``x``, its rows split over two threads when large.

    SciPy's sparse × dense kernel runs on one thread and releases the GIL, so the two halves of the rows run
    at once, each written in place into one result. Products below :data:`SPLIT_WORK` entries × columns, other
    formats, complex values and 1-D ``x`` are plain ``a @ x``. The same numbers as ``a @ x`` bit for bit (each
    row's sum is the same sequence of operations in the same kernel). A :class:`SymmetricUpper` makes its own
    product (its two triangles on the two threads).
    """
    if isinstance(a, (SymmetricUpper, PrincipalBlock)):
        return a @ x
    if (_csr_matvecs is None or not sp.issparse(a) or a.format != "csr" or np.ndim(x) != 2
            or a.nnz * x.shape[1] < SPLIT_WORK or _product_threads() < 2
            or not (np.issubdtype(a.dtype, np.floating) and np.issubdtype(np.asarray(x).dtype, np.floating))):
        return a @ x
    pool = _worker()
    x = np.ascontiguousarray(x, dtype=float)  # row-major, as the kernel reads it (scipy would copy it per call)
    n, k = a.shape[0], x.shape[1]
    middle = int(np.searchsorted(a.indptr, a.indptr[-1] // 2))  # half of the stored entries on each side
    out = np.zeros((n, k))
    data = a.data if a.data.dtype == np.float64 else a.data.astype(float)

    def half(start: int, stop: int) -> None:  # out[start:stop] += a[start:stop] @ x, written in place
        _csr_matvecs(stop - start, a.shape[1], k, a.indptr[start:stop + 1], a.indices, data, x.ravel(),
                     out[start:stop].ravel())

    other = pool.submit(half, middle, n)
    half(0, middle)
    other.result()
    return out


def _worker():
    """The one worker thread of the sparse products (made again in a forked child, which has none of its parent's)."""
    global _pool
    import os

    if _pool is None or _pool[0] != os.getpid():
        from concurrent.futures import ThreadPoolExecutor

        _pool = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="fem-spmm"))
    return _pool[1]


class SymmetricUpper:
    """A symmetric sparse matrix held by its upper triangle only (CSR, diagonal included): ``A x = U x + Uᵀ x − D x``.

    Half the memory of the full matrix, and the very arrays PARDISO factorizes (:class:`SPDFactor` ``upper=``), so
    that the interior stiffness of a large part is stored once instead of three times (the full ``K_ii``, its upper
    triangle and PARDISO's one-based index copies: issue 46). ``U x`` (SciPy's CSR kernel) and ``Uᵀ x`` (its CSC
    kernel on the same arrays) run on the two threads of :func:`spmm`. Equal to the product with the full matrix to
    round-off (the sums run in another order).

    Parameters
    ----------
    upper : (n, n) sparse
        The upper triangle with the diagonal (``sp.triu(A)``); converted to CSR with sorted 32-bit indices.
    """

    def __init__(self, upper):
        upper = sp.csr_matrix(upper)
        upper.sort_indices()
        if max(upper.nnz, upper.shape[0]) < 2**31:
            upper.indices = upper.indices.astype(np.int32, copy=False)
            upper.indptr = upper.indptr.astype(np.int32, copy=False)
        if upper.data.dtype != np.float64:
            upper.data = upper.data.astype(float)
        self.upper = upper
        self.shape = upper.shape
        self.dtype = np.dtype(float)
        self.ndim = 2
        self._diagonal = upper.diagonal()

    @property
    def nnz(self) -> int:
        """Stored entries of the full matrix this stands for."""
        return 2 * self.upper.nnz - int(np.count_nonzero(self._diagonal))

    @property
    def nbytes(self) -> int:
        u = self.upper
        return u.data.nbytes + u.indices.nbytes + u.indptr.nbytes + self._diagonal.nbytes

    def diagonal(self) -> np.ndarray:
        return self._diagonal.copy()

    def toarray(self) -> np.ndarray:
        dense = self.upper.toarray()
        return dense + dense.T - np.diag(self._diagonal)

    def tocsr(self) -> sp.csr_matrix:
        """The full matrix (a new array: for small matrices and tests)."""
        u = self.upper
        return (u + sp.triu(u, k=1, format="csr").T).tocsr()

    def dot(self, x):
        return self @ x

    def __matmul__(self, x):
        x = np.asarray(x)
        if sp.issparse(x) or x.ndim not in (1, 2):
            return self.tocsr() @ x
        u = self.upper
        n, k = u.shape[0], (1 if x.ndim == 1 else x.shape[1])
        xc = np.ascontiguousarray(x.reshape(n, k), dtype=float)
        out, lower = np.zeros((n, k)), np.zeros((n, k))

        def upper_part():
            _csr_matvecs(n, n, k, u.indptr, u.indices, u.data, xc.ravel(), out.ravel())

        def lower_part():
            _csc_matvecs(n, n, k, u.indptr, u.indices, u.data, xc.ravel(), lower.ravel())

        if _csr_matvecs is None:  # pragma: no cover
            out[:], lower[:] = u @ xc, u.T @ xc
        elif u.nnz * k >= SPLIT_WORK // 2 and _product_threads() >= 2:
            other = _worker().submit(lower_part)
            upper_part()
            other.result()
        else:
            upper_part()
            lower_part()
        out += lower
        np.multiply(self._diagonal[:, None], xc, out=lower)  # D x, counted twice above
        out -= lower
        return out.reshape(x.shape)


class PrincipalBlock:
    """``A[keep][:, keep]`` as an operator on ``A`` itself (no copy of the block): ``A_kk x = (A [x; 0])_k``.

    For the interior mass ``M_ii`` of a reduction, whose few boundary dofs would otherwise cost a copy of ``M``
    (issue 46); each product pads ``x`` to the full size and picks the kept rows (two n × k temporaries).
    """

    def __init__(self, matrix, keep: np.ndarray):
        self.matrix = matrix
        self.keep = np.asarray(keep, dtype=np.int64)
        self.shape = (self.keep.size, self.keep.size)
        self.dtype = np.dtype(float)
        self.ndim = 2

    def toarray(self) -> np.ndarray:
        return principal_submatrix(self.matrix, self.keep).toarray()

    def tocsr(self) -> sp.csr_matrix:
        return principal_submatrix(self.matrix, self.keep)

    def diagonal(self) -> np.ndarray:
        return self.matrix.diagonal()[self.keep]

    def dot(self, x):
        return self @ x

    def __matmul__(self, x):
        x = np.asarray(x)
        full = np.zeros((self.matrix.shape[0],) + x.shape[1:])
        full[self.keep] = x
        return spmm(self.matrix, full)[self.keep] if x.ndim == 2 else (self.matrix @ full)[self.keep]


def inf_norm(a) -> float:
    """``‖A‖∞`` (largest row sum of absolute values) of a sparse ``A`` without a copy of the whole matrix (``abs(A)``
    was a fresh matrix as large as ``A`` at the peak of a reduction: issue 46); a :class:`SymmetricUpper` from its
    triangle (row sums plus column sums less the diagonal)."""
    if hasattr(a, "inf_norm"):  # an operator that knows its own (reduction.solvers.BlockStiffness)
        return float(a.inf_norm())
    if isinstance(a, PrincipalBlock):
        a = a.tocsr()
    if not sp.issparse(a) and not isinstance(a, SymmetricUpper):
        return float(np.max(np.abs(np.asarray(a)).sum(axis=1), initial=0.0))
    return float(np.max(abs_row_sums(a), initial=0.0))


def abs_row_sums(a) -> np.ndarray:
    """Row sums of ``|A|`` of a sparse matrix or a :class:`SymmetricUpper`, by blocks (no copy of ``A``)."""
    if isinstance(a, SymmetricUpper):
        u = a.upper
        cols = np.zeros(u.shape[1])
        for start in range(0, u.nnz, 1 << 22):
            stop = min(start + (1 << 22), u.nnz)
            cols += np.bincount(u.indices[start:stop], weights=np.abs(u.data[start:stop]), minlength=u.shape[1])
        return _row_abs_sums(u) + cols - np.abs(a._diagonal)
    return _row_abs_sums(sp.csr_matrix(a))


def _row_abs_sums(a: sp.csr_matrix) -> np.ndarray:
    """Row sums of ``|A|`` by blocks of rows (temporaries of a few MB)."""
    n = a.shape[0]
    out = np.zeros(n)
    step = 65536
    for start in range(0, n, step):
        stop = min(start + step, n)
        lo, hi = a.indptr[start], a.indptr[stop]
        if hi > lo:
            rows = np.repeat(np.arange(stop - start), np.diff(a.indptr[start:stop + 1]))
            out[start:stop] = np.bincount(rows, weights=np.abs(a.data[lo:hi]), minlength=stop - start)
    return out


def principal_submatrix(a: sp.spmatrix, keep: np.ndarray, rows_per_chunk: int = 65536) -> sp.csr_matrix:
    """``a[keep][:, keep]`` for a square sparse ``a`` and sorted indices (or a boolean mask) ``keep``: the same
    matrix, entries in the same order, by a mask over the stored entries instead of SciPy's row gather and column
    index (issue 31: 0.45 → 0.15 s for the 177k-dof bar's stiffness, from which a few hundred spider or interface dofs
    are dropped).

    By blocks of ``rows_per_chunk`` rows written into the result's arrays: the temporaries are those of one block
    (the whole-matrix masks and gathers were 1.5 times the matrix on top of it and its copy, the 3 M-dof reduction's
    peak: issue 46)."""
    a = a.tocsr()
    n = a.shape[0]
    mask = np.zeros(n, dtype=bool)
    mask[keep] = True
    kept_rows = np.flatnonzero(mask)
    index_dtype = np.int32 if max(a.nnz, n) < 2**31 else np.int64
    column_of = (np.cumsum(mask) - 1).astype(index_dtype)  # new number of each kept dof
    per_row = np.zeros(kept_rows.size, dtype=np.int64)
    for lo in range(0, kept_rows.size, rows_per_chunk):  # kept entries of every kept row
        rows = kept_rows[lo:lo + rows_per_chunk]
        starts, stops = a.indptr[rows], a.indptr[rows + 1]
        first, last = starts[0], stops[-1]
        inside = mask[a.indices[first:last]]
        counts = np.concatenate([[0], np.cumsum(inside, dtype=np.int64)])
        per_row[lo:lo + rows.size] = counts[stops - first] - counts[starts - first]
    indptr = np.zeros(kept_rows.size + 1, dtype=index_dtype)
    np.cumsum(per_row, out=indptr[1:])
    data = np.empty(int(indptr[-1]), dtype=a.data.dtype)
    indices = np.empty(int(indptr[-1]), dtype=index_dtype)
    for lo in range(0, kept_rows.size, rows_per_chunk):
        rows = kept_rows[lo:lo + rows_per_chunk]
        first, last = a.indptr[rows[0]], a.indptr[rows[-1] + 1]
        entry = mask[a.indices[first:last]]
        # entries of dropped rows inside the range are dropped too
        row_mask = np.repeat(mask[rows[0]:rows[-1] + 1], np.diff(a.indptr[rows[0]:rows[-1] + 2]))
        entry &= row_mask
        out_lo, out_hi = indptr[lo], indptr[lo + rows.size]
        data[out_lo:out_hi] = a.data[first:last][entry]
        indices[out_lo:out_hi] = column_of[a.indices[first:last][entry]]
    out = sp.csr_matrix((data, indices, indptr), shape=(kept_rows.size,) * 2)
    out.has_sorted_indices = a.has_sorted_indices
    return out


def return_freed_memory() -> None:
    """Give memory freed inside the process back to the system (glibc's ``malloc_trim(0)``; nothing elsewhere).

    Arrays below glibc's (dynamic, up to 32 MB) mmap threshold live on the heap, and what they leave when freed stays
    with the process: after the assembly and the release of the full stiffness of the 177k-dof bar 0.12–0.14 GB of
    its resident memory was such free heap (issue 46), which the factor then came on top of."""
    global _libc
    if _libc is None:
        import ctypes
        import ctypes.util

        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):  # pragma: no cover - not glibc
            _libc = False
    if _libc:
        _libc.malloc_trim(0)


_libc = None


def backend_name() -> str:
    return "MKL PARDISO" if _pardiso() is not None else "SuperLU"


class SPDFactor:
    """Factorization of a sparse symmetric positive definite matrix.

    Parameters
    ----------
    matrix : (n, n) sparse
        Symmetric positive definite; only the upper triangle is read by PARDISO.
    what : str
        Name of the matrix for error messages (e.g. "interior stiffness").

    Raises
    ------
    ModelError
        The matrix is singular or indefinite (a mechanism, an unconstrained part, a disconnected mesh).
    """

    def __init__(self, matrix: sp.spmatrix, what: str = "matrix", analyze_only: bool = False):
        self.shape = matrix.shape
        self.what = what
        self.analyzed_bytes = None  # PARDISO's own estimate of the factorization's memory (after the analysis)
        self.factor_nonzeros = None
        self._factorized = False
        pardiso = _pardiso()
        if pardiso is not None:
            # the upper triangle, zero-based 32-bit indices as PARDISO reads them (iparm[34] = 1): no index copies
            self._upper = (matrix if isinstance(matrix, SymmetricUpper) else SymmetricUpper(sp.triu(matrix))).upper
            if self._upper.indices.dtype != np.int32:
                raise ModelError(f"the {what} has {self._upper.nnz} stored entries, beyond PARDISO's 32-bit indices")
            self._solver = pardiso.PyPardisoSolver(mtype=2)
            self._lu = None
            self._defaults()
            self._phase(11)  # analysis: ordering and symbolic factorization; says how much memory the factor takes
            iparm = self._solver.iparm
            # MKL: iparm[14] peak of the analysis, iparm[15] permanent memory of the analysis, iparm[16] memory of
            # the numerical factorization and solution, all in kB; iparm[17] nonzeros of the factor
            self.analyzed_bytes = 1024.0 * max(int(iparm[14]), int(iparm[15]) + int(iparm[16]))
            self.factor_nonzeros = int(iparm[17])
            if not analyze_only:
                self.factorize()
        else:
            self._upper = None
            self._matrix = matrix.tocsr() if isinstance(matrix, SymmetricUpper) else matrix
            self._lu = None
            self._solver = None
            if not analyze_only:
                self.factorize()

    @property
    def upper(self) -> "SymmetricUpper | None":
        """The factorized matrix as a :class:`SymmetricUpper` on the arrays PARDISO reads (no copy); None with
        SuperLU or after :meth:`release`."""
        return SymmetricUpper(self._upper) if self._upper is not None else None

    def _defaults(self) -> None:
        """MKL's default parameters for a symmetric positive definite matrix (``pardisoinit``: the same as
        ``iparm[0] = 0`` gave, e.g. the parallel nested dissection ``iparm[1] = 3``) with zero-based indices
        (``iparm[34] = 1``): PARDISO then reads the CSR arrays of the upper triangle as they are."""
        import ctypes

        solver = self._solver
        init = solver.libmkl.pardisoinit
        init.argtypes = [ctypes.POINTER(solver._pt_type[0]), ctypes.POINTER(ctypes.c_int32),
                         ctypes.POINTER(ctypes.c_int32)]
        init.restype = None
        init(solver.pt.ctypes.data_as(ctypes.POINTER(solver._pt_type[0])), ctypes.byref(ctypes.c_int32(2)),
             solver.iparm.ctypes.data_as(ctypes.POINTER(ctypes.c_int32)))
        solver.iparm[0], solver.iparm[34] = 1, 1

    def factorize(self) -> "SPDFactor":
        """The numerical factorization (after the analysis of ``analyze_only=True``)."""
        if self._factorized:
            return self
        if self._solver is not None:
            try:
                self._phase(22)
            except Exception:
                raise ModelError(f"the {self.what} is singular or not positive definite: the part may be "
                                 "unconstrained, contain a mechanism or a disconnected piece") from None
        else:
            try:
                self._lu = spla.splu(sp.csc_matrix(self._matrix), permc_spec="MMD_AT_PLUS_A")
            except RuntimeError:
                raise ModelError(f"the {self.what} is singular: the part may be unconstrained, contain a "
                                 "mechanism or a disconnected piece") from None
            self._matrix = None
        self._factorized = True
        return self

    def _phase(self, phase: int) -> None:
        self._solver.set_phase(phase)
        self._call_pardiso(np.zeros((self.shape[0], 1), order="F"))

    def solve(self, rhs: np.ndarray, refine: bool = True) -> np.ndarray:
        """Solve ``A x = rhs`` for one (n,) or many (n, k) right-hand sides.

        ``refine=False`` skips PARDISO's iterative refinement (by default two refinement steps, each one more
        pass over the factor and a product with ``A``: a refined solve costs about 3× a plain one, 1.9 s against
        0.66 s for 12 right-hand sides at 177k dofs). A Cholesky solve is backward stable without it; the Krylov
        solves of :mod:`fem.eigen` use it (their pairs are accepted on the true residual), the constraint modes
        and static solves keep the refinement.
        """
        rhs = np.asarray(rhs, dtype=float)
        if self._lu is not None:
            return self._lu.solve(rhs)
        solver = self._solver
        solver.set_phase(33)  # solve with the stored factorization; no re-hashing of the matrix per call
        iparm = solver.iparm  # filled with MKL's defaults by the factorization (iparm[0] = 1: values are read)
        steps = iparm[7]
        if not refine:
            iparm[0], iparm[7] = 1, 0
        try:
            with _one_mkl_thread():
                return self._call_pardiso(np.asfortranarray(rhs))
        finally:
            iparm[7] = steps

    def _call_pardiso(self, b: np.ndarray) -> np.ndarray:
        """pypardiso's ``_call_pardiso`` without its per-call work: the zero-based index arrays of the upper triangle
        passed as they are (pypardiso converts and copies them on every call; a one-based copy kept instead was
        0.1 GB at 667k dofs, issue 46), the solution written into an uninitialized Fortran-order array and returned
        as it is (pypardiso zero-fills it and then copies it to C order): issue 31."""
        import ctypes

        from pypardiso.pardiso_wrapper import PyPardisoError

        solver = self._solver
        ia, ja = self._upper.indptr, self._upper.indices
        x = np.empty_like(b, order="F")
        error = ctypes.c_int32(0)
        c_int32_p, c_float64_p = ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_double)
        solver._mkl_pardiso(solver.pt.ctypes.data_as(ctypes.POINTER(solver._pt_type[0])),
                            ctypes.byref(ctypes.c_int32(1)), ctypes.byref(ctypes.c_int32(1)),
                            ctypes.byref(ctypes.c_int32(solver.mtype)), ctypes.byref(ctypes.c_int32(solver.phase)),
                            ctypes.byref(ctypes.c_int32(self._upper.shape[0])),
                            self._upper.data.ctypes.data_as(c_float64_p), ia.ctypes.data_as(c_int32_p),
                            ja.ctypes.data_as(c_int32_p), solver.perm.ctypes.data_as(c_int32_p),
                            ctypes.byref(ctypes.c_int32(1 if b.ndim == 1 else b.shape[1])),
                            solver.iparm.ctypes.data_as(c_int32_p), ctypes.byref(ctypes.c_int32(solver.msglvl)),
                            b.ctypes.data_as(c_float64_p), x.ctypes.data_as(c_float64_p), ctypes.byref(error))
        if error.value != 0:
            raise PyPardisoError(error.value)
        return x

    def release(self) -> None:
        """Free the factor's memory now rather than at garbage collection."""
        if self._lu is None and self._solver is not None:
            self._solver.free_memory(everything=True)
            self._solver = None
        self._lu = self._upper = None
