"""numba's cache, pointed at :func:`flexmbs_jit.cache.kernel_cache_dir` for the project's own files.

A locator class placed first in numba's list: for a function defined in one of the project's packages it names the
key directory (plus the file's folder inside the project) and stamps every index with the key, so numba's index is
void as soon as any compiled source changes. Functions of other files (a user's own kernels) keep numba's default
locators. numba looks the locator up when a function is decorated, so this is installed when :mod:`flexmbs_jit` is
imported, before any kernel of the project is defined.
"""
from __future__ import annotations

import os
from pathlib import Path

from numba.core import caching

from .cache import PACKAGES, ROOT, cache_key, kernel_cache_dir

__all__ = ["KernelLocator", "install"]


class KernelLocator(caching._CacheLocator):
    """The cache location and source stamp of a function defined in the project's packages."""

    def __init__(self, py_func, py_file: str, relative: Path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._path = kernel_cache_dir() / relative.parent

    def get_cache_path(self) -> str:
        return str(self._path)

    def get_source_stamp(self) -> str:
        return cache_key()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func, py_file):
        if not py_file or not os.path.exists(py_file):
            return None
        try:
            relative = Path(py_file).resolve().relative_to(ROOT)
        except ValueError:
            return None
        if relative.parts[0] not in PACKAGES:
            return None
        self = cls(py_func, py_file, relative)
        try:
            self.ensure_cache_path()
        except OSError:
            return None
        return self


def install() -> None:
    """Put :class:`KernelLocator` first in numba's locator list (once)."""
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
    if KernelLocator not in impl._locator_classes:
        impl._locator_classes.insert(0, KernelLocator)
