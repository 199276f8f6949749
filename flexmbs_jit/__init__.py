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


def _option_identity_by_fast_paths() -> None:
    """numba keys its overload caches by the compile flags, and hashes and compares them through ``values()``
    (≈ 180,000 comparisons in a compile of the engine, issue 42). The hash is that of the sorted option *names*
    (``sorted`` of a dict), the same for every instance of a class: computed once per class. Two configs of one
    class with the same values set are equal without building both dicts, else their ``values()`` decide, kept per
    set of values (most comparisons are between the same few sets of flags).
    Checked against numba's own on its flags first."""
    cls_ = targetconfig.TargetConfig
    original_hash, original_eq = cls_.__hash__, cls_.__eq__
    hashes: dict = {}

    def __hash__(self):
        value = hashes.get(type(self))
        if value is None:
            value = hashes[type(self)] = original_hash(self)
        return value

    merged: dict = {}

    def settled(config) -> dict:
        """``config.values()``, computed once per class and values set (a value numba cannot hash: each time)."""
        try:
            key = (type(config), tuple(config._values.items()))
            out = merged.get(key)
        except TypeError:
            return config.values()
        if out is None:
            out = merged[key] = config.values()
        return out

    def __eq__(self, other):
        if type(other) is type(self):
            return self._values == other._values or settled(self) == settled(other)
        return original_eq(self, other)

    from numba.core.compiler import Flags

    a, b = Flags(), Flags()
    a.nrt, b.no_cpython_wrapper = True, True
    if (all(original_hash(x) == original_hash(Flags()) for x in (a, b)) and not original_eq(a, b)
            and original_eq(a, a) and isinstance(getattr(a, "_values", None), dict)):
        cls_.__hash__, cls_.__eq__ = __hash__, __eq__
        for sub in (Flags, *Flags.__subclasses__()):  # subclasses made before: numba copies dunders at class creation
            if "__hash__" in vars(sub) and vars(sub)["__hash__"] is original_hash:
                sub.__hash__ = __hash__
            if "__eq__" in vars(sub) and vars(sub)["__eq__"] is original_eq:
                sub.__eq__ = __eq__


_option_identity_by_fast_paths()


def _variables_listed_in_one_pass() -> None:
    """numba's IR analyses list the variables of every statement many times per compile (``Inst._rec_list_vars``,
    ≈ 2.8 million recursive calls in a compile of the engine, each building a list; issue 42): the same list, in the
    same order, gathered into one list, and the leaves that hold no variable (locations, names, numbers) skipped by
    their type."""
    from numba.core import ir

    var, inst = ir.Var, ir.Inst
    leaves = frozenset((str, int, float, bool, type(None), ir.Loc))

    def collect(items, out):
        for val in items:
            kind = type(val)
            if kind in leaves:
                continue
            if kind is var or isinstance(val, var):
                out.append(val)
            elif isinstance(val, inst):
                out.extend(val.list_vars())
            elif isinstance(val, (list, tuple)):
                collect(val, out)
            elif isinstance(val, dict):
                collect(val.values(), out)

    def _rec_list_vars(self, val):
        out: list = []
        collect((val,), out)
        return out

    if "_rec_list_vars" in vars(ir.Inst) and not any("_rec_list_vars" in vars(c) for c in _subclasses(ir.Inst)):
        ir.Inst._rec_list_vars = _rec_list_vars


def _subclasses(cls) -> list:
    out, todo = [], [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            out.append(sub)
            todo.append(sub)
    return out


_variables_listed_in_one_pass()


def _operators_as_ufuncs_only_with_arrays() -> None:
    """numba types every binary operator (``x * y`` of two floats too) by trying numpy's ufunc rules first, which
    search the ufunc's loops (≈ 14,500 searches in a compile of the engine, ≈ 2 s; issue 42) and then drop the
    result when no operand is an array. The same answer, None, without the search: the rule is tried only when
    an operand (an optional one by its type) is an array."""
    from numba.core import types
    from numba.core.typing import npydecl

    rule = npydecl.NumpyRulesArrayOperator
    original = rule.generic
    if "generic" not in vars(rule):
        return

    def generic(self, args, kws):
        for arg in args:
            if isinstance(arg.type if isinstance(arg, types.Optional) else arg, types.ArrayCompatible):
                return original(self, args, kws)
        return None

    rule.generic = generic


_operators_as_ufuncs_only_with_arrays()


def _template_order_kept() -> None:
    """numba orders a function's typing templates by target (``utils.order_by_target_specificity``) at every
    resolution of a call, in typing and again in lowering (≈ 42,000 times in a compile of the engine, issue 42):
    the same order for the same target and templates, kept."""
    from numba.core import utils

    original = utils.order_by_target_specificity
    kept: dict = {}

    def order_by_target_specificity(target, templates, fnkey=""):
        try:
            key = (target, tuple(templates))
            order = kept.get(key)
        except TypeError:
            return original(target, templates, fnkey)
        if order is None:
            order = kept[key] = tuple(original(target, templates, fnkey))
        return list(order)

    utils.order_by_target_specificity = order_by_target_specificity


_template_order_kept()


def _functions_optimized_with_their_module() -> None:
    """numba runs LLVM's function passes over each function of a new module on its own and then, when the library
    is finalized, LLVM's full module pipeline over it and its linked callees, which simplifies every function again
    (about a quarter of LLVM's time in a compile of the engine, issue 42). The module pipeline alone, as a C
    compiler runs it; numba's reference-count pruning runs after it as before."""
    from numba.core import codegen

    library = codegen.CPUCodeLibrary
    if "_optimize_functions" not in vars(library):
        return

    def _optimize_functions(self, ll_module):
        ll_module.data_layout = self._codegen._data_layout

    library._optimize_functions = _optimize_functions


_functions_optimized_with_their_module()


def njit(*args, counted: bool = True, **options):
    """:func:`numba.njit` with ``cache=True`` (the project's kernel cache) and numba's reference counting on (set,
    not inherited: a function first compiled for a caller without it, ``apart(counted=False)``, would inherit
    that caller's setting and could not allocate). ``counted=False``: no reference counting in the function, for
    one that allocates nothing and returns no array (:func:`flexmbs_jit.calls.apart`)."""
    options.setdefault("cache", True)
    options["_nrt"] = counted
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
