"""The machinery under every compiled kernel of flexmbs: one place decides how a kernel compiles, where its machine
code is cached, and what the user is told while it compiles (issue 42).

* :func:`njit` and :func:`cfunc` are numba's, with ``cache=True``, cached under one key over all compiled sources
  (:mod:`flexmbs_jit.cache`: an edited kernel can never be loaded stale);
* :func:`apart` compiles a function once and lets compiled callers call it by its address instead of linking its
  code into each of them (:mod:`flexmbs_jit.calls`: numba optimizes and generates every callee's code again inside
  each caller, which made the first compile of the step ≈ 100 s);
* :mod:`flexmbs_jit.notice` prints one line when anything compiles (what, and roughly how long), and Ctrl-C stops it;
* ``python -m flexmbs_jit.build`` compiles every kernel into the installed package (the package build runs it).

Every project module with compiled code imports its decorators from here, never from numba directly
(``tests/test_compile.py`` checks it), so the cache locator is in place before the first kernel is defined.

This package imports nothing of the project: every package may use it (docs/architecture.md).
"""
from __future__ import annotations

import functools
import os
import sys

# numba formats the message of every failed typing attempt (many per compile, all discarded) through colorama:
# about 100,000 stream wrappers in a compile of the engine (issue 42, session 15). Plain messages: set before numba
# is imported (it reads the variable once, at import), and only if the user has not chosen.
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")

import numba  # noqa: E402
from numba.core import targetconfig  # noqa: E402

from .cache import cache_key, kernel_cache_dir
from .calls import apart as _apart
from .locator import KernelLocator, install as _install_locator
from .notice import announce, install as _install_notice

__all__ = ["njit", "cfunc", "apart", "cache_key", "kernel_cache_dir"]

_install_locator()
_install_notice()


def _option_values_by_merge() -> None:
    """numba's ``TargetConfig.values()`` calls one property per option (≈ 420,000 calls in a compile of the engine,
    from the keys of numba's overload caches; 4.3 s of 58 s, issue 42). The same dict, in the same key order, is
    the options' defaults updated by the values set: replaced by that, after checking it on numba's own flags."""
    original = targetconfig.TargetConfig.values
    defaults: dict = {}

    def values(self):
        cls = type(self)
        base = defaults.get(cls)
        if base is None:
            base = defaults[cls] = {k: option.default for k, option in cls.options.items()}
        out = dict(base)
        for k, v in self._values.items():
            if k in out:  # a copy from another class of config may hold keys this class has no option for
                out[k] = v
        return out

    from numba.core.compiler import Flags

    probe = Flags()
    probe.nrt, probe.no_cpython_wrapper, probe.error_model = True, True, "numpy"
    if list(values(probe).items()) == list(original(probe).items()):
        targetconfig.TargetConfig.values = values


_option_values_by_merge()


def njit(*args, **options):
    """:func:`numba.njit` with ``cache=True`` (the project's kernel cache)."""
    options.setdefault("cache", True)
    if args and callable(args[0]) and not options.get("signature"):
        return numba.njit(**options)(args[0])
    return numba.njit(*args, **options)


def cfunc(signature, **options):
    """:func:`numba.cfunc` with ``cache=True`` (the project's kernel cache). A cfunc compiles when it is defined
    (numba sends no compile event for it): the notice is printed first when its cache index is missing."""
    options.setdefault("cache", True)
    decorate = numba.cfunc(signature, **options)

    def wrap(func):
        locator = KernelLocator.from_function(func, func.__code__.co_filename)
        if locator is not None:
            module = os.path.splitext(os.path.basename(func.__code__.co_filename))[0]
            index = os.path.join(locator.get_cache_path(), f"{module}.{func.__qualname__}-{locator.get_disambiguator()}"
                                 f".py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}.nbi")
            if not os.path.exists(index):
                announce(func.__name__)
        return decorate(func)
    return wrap


def apart(func=None, **options):
    """Decorator: compile ``func`` on its own and call it by address from compiled callers
    (:func:`flexmbs_jit.calls.apart`)."""
    if func is None:
        return functools.partial(_apart, **options)
    return _apart(func, **options)
