"""LAPACK's LU (``dgetrf``/``dgetrs`` from SciPy's ``cython_lapack``) for the compiled step's larger Newton matrices.

The compiled step factorizes its Newton matrix once per step and solves with it once per iteration. Below
:data:`SMALL` unknowns the partial-pivoting LU of :mod:`flexmbs.engine.step` costs less than the call; above,
LAPACK's blocked LU is ≈ 4× faster (n = 200: 0.48 ms against 1.9 ms per factorization and solve, one BLAS thread,
which :func:`flexmbs.simulate` sets). The functions come in as ctypes pointers (arguments of the compiled functions, so
their caches stay valid across processes). The matrix is stored row by row, LAPACK reads it column by column: it
factorizes ``Aᵀ``, and the solve uses ``TRANS = 'T'``.
"""
from __future__ import annotations

import ctypes
import functools

import numpy as np
from numba.extending import get_cython_function_address

from flexmbs_jit import apart, njit

from flexmbs.model.kernels import INNER

__all__ = ["lapack_functions", "factor", "solve", "SMALL"]

SMALL = 40  # unknowns: below, the inline LU
_I = ctypes.POINTER(ctypes.c_int)
_D = ctypes.POINTER(ctypes.c_double)
_C = ctypes.POINTER(ctypes.c_ubyte)
_GETRF = ctypes.CFUNCTYPE(None, _I, _I, _D, _I, _I, _I)
_GETRS = ctypes.CFUNCTYPE(None, _C, _I, _I, _D, _I, _I, _D, _I, _I)


@functools.cache
def lapack_functions() -> tuple:
    """``(dgetrf, dgetrs)`` as ctypes function pointers (kept alive by the cache)."""
    address = lambda name: get_cython_function_address("scipy.linalg.cython_lapack", name)  # noqa: E731
    return _GETRF(address("dgetrf")), _GETRS(address("dgetrs"))


@njit(**INNER)
def _lu_factor(a, piv):
    """In-place LU with partial pivoting (``a = P L U``); returns False when a pivot is zero or not finite."""
    n = a.shape[0]
    for k in range(n):
        p = k
        big = abs(a[k, k])
        for i in range(k + 1, n):
            if abs(a[i, k]) > big:
                big, p = abs(a[i, k]), i
        piv[k] = p
        if not big > 0.0 or not np.isfinite(big):
            return False
        if p != k:
            for j in range(n):
                a[k, j], a[p, j] = a[p, j], a[k, j]
        inv = 1.0 / a[k, k]
        m = n - k - 1
        for i in range(k + 1, n):
            f = a[i, k] * inv
            a[i, k] = f
            if f != 0.0:
                for j in range(m):  # column k + 1 + j: from 0, the compiler sees it is no negative index (no
                    a[i, k + 1 + j] -= f * a[k, k + 1 + j]  # wrap-around per entry: 15 unknowns ≈ 30 % faster)
    return True


@njit(**INNER)
def _lu_solve(a, piv, b):
    """Solve in place with the factors of :func:`_lu_factor`."""
    n = a.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= a[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= a[i, j] * b[j]
        b[i] = s / a[i, i]


@apart(python=False)  # once, not in each caller (the Newton step and the samples)
def factor(getrf, a, piv):
    """Factorize ``a`` in place (pivots into ``piv``, int64); False when singular or not finite (``getrf``:
    LAPACK's ``dgetrf``, :func:`lapack_functions`)."""
    n = a.shape[0]
    if n < SMALL:
        return _lu_factor(a, piv)
    for i in range(n):
        for j in range(n):
            if not np.isfinite(a[i, j]):
                return False
    ib = np.empty(2, dtype=np.int32)
    ib[0], ib[1] = n, 0
    ipiv = np.empty(n, dtype=np.int32)
    getrf(ib[0:].ctypes, ib[0:].ctypes, a.ctypes, ib[0:].ctypes, ipiv.ctypes, ib[1:].ctypes)
    for i in range(n):
        piv[i] = ipiv[i]
    return ib[1] == 0


@apart(python=False)
def solve(getrs, a, piv, b):
    """Solve ``a x = b`` in place with the factors of :func:`factor` (``getrs``: LAPACK's ``dgetrs``)."""
    n = a.shape[0]
    if n < SMALL:
        _lu_solve(a, piv, b)
        return
    ib = np.empty(3, dtype=np.int32)
    ib[0], ib[1], ib[2] = n, 0, 1
    ipiv = np.empty(n, dtype=np.int32)
    for i in range(n):
        ipiv[i] = piv[i]
    trans = np.empty(1, dtype=np.uint8)
    trans[0] = 84  # 'T': the factors are those of aᵀ
    getrs(trans.ctypes, ib[0:].ctypes, ib[2:].ctypes, a.ctypes, ib[0:].ctypes, ipiv.ctypes, b.ctypes, ib[0:].ctypes,
           ib[1:].ctypes)
