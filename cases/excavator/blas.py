"""Run small dense linear algebra on one BLAS thread.

The multibody solver factorizes a ~170 x 170 Newton matrix every few steps. With OpenBLAS's default thread pool
on a loaded two-core machine one ``scipy.linalg.lu_factor`` of that size took 18..31 ms instead of 0.26 ms
(measured here), i.e. most of the run time. ``single_threaded_blas()`` limits the OpenBLAS libraries bundled with
numpy and scipy to one thread for the duration of a run (threadpoolctl if installed, else the OpenBLAS
``*_set_num_threads`` entry points through ctypes) and restores the previous setting afterwards. It is a no-op
where neither is available.
"""
from __future__ import annotations

import contextlib
import ctypes
import glob
import os

__all__ = ["single_threaded_blas"]


def _openblas_handles() -> list:
    """(set, get) function pairs of the OpenBLAS libraries shipped in the numpy and scipy wheels."""
    import numpy
    import scipy

    pairs = []
    for package in (numpy, scipy):
        libdir = os.path.join(os.path.dirname(package.__file__), os.pardir, f"{package.__name__}.libs")
        for path in glob.glob(os.path.join(libdir, "*openblas*.so*")):
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for prefix, suffix in (("scipy_openblas", "64_"), ("scipy_openblas", ""), ("openblas", "")):
                setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    getter.restype = ctypes.c_int
                    pairs.append((setter, getter))
                    break
    return pairs


@contextlib.contextmanager
def single_threaded_blas():
    """Context manager: BLAS/LAPACK calls inside use one thread."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        threadpool_limits = None
    if threadpool_limits is not None:
        with threadpool_limits(1, user_api="blas"):
            yield
        return
    pairs = _openblas_handles()
    previous = [getter() for _, getter in pairs]
    for setter, _ in pairs:
        setter(ctypes.c_int(1))
    try:
        yield
    finally:
        for (setter, _), n in zip(pairs, previous):
            setter(ctypes.c_int(max(1, n)))
