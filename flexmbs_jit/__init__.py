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
    """numba keys its overload caches by the compile flags (``templates._get_impl``: a copy of the flags per
    compile), and hashes and compares them through ``values()``. Its hash is that of the sorted option *names*
    (``sorted`` of a dict), the same for every instance of a class, so every lookup compared the flags with each
    cached set of other values (≈ 300,000 comparisons in a compile of the engine, issue 42). Here the hash is that
    of the values (numba's equality), and both are kept per instance while its values set stay the same (a table by
    ``id``, checked against a copy of the values set: a new object at a used address is recomputed unless it has
    the same class and values, which give the same answers). A value Python cannot hash (numba's option objects)
    enters the hash by its class. Checked against numba's own on its flags first."""
    cls_ = targetconfig.TargetConfig
    original_hash, original_eq = cls_.__hash__, cls_.__eq__
    kept: dict = {}  # id(config) -> (class, copy of its values set, values(), hash of the values or None)

    def canonical(config):
        entry = kept.get(id(config))
        own = config._values
        if entry is None or entry[0] is not type(config) or entry[1] != own:
            values = config.values()
            try:
                value_hash = hash(frozenset((k, _hashable(v)) for k, v in values.items()))
            except TypeError:
                value_hash = None
            if len(kept) >= 4096:  # configs live for one compile: the table is a cache, not a registry
                kept.clear()
            entry = kept[id(config)] = (type(config), dict(own), values, value_hash)
        return entry

    def _hashable(value):
        """The value, or for one Python cannot hash (numba's option objects compare by ``__eq__`` only) its
        class: equal values give equal hashes either way."""
        try:
            hash(value)
        except TypeError:
            return type(value)
        return value

    def __hash__(self):
        value_hash = canonical(self)[3]
        return original_hash(self) if value_hash is None else value_hash

    def __eq__(self, other):
        if type(other) is type(self):
            if self._values == other._values:
                return True
            a, b = canonical(self), canonical(other)
            if a[3] is not None and b[3] is not None and a[3] != b[3]:
                return False
            return a[2] == b[2]
        return original_eq(self, other)

    from numba.core.compiler import Flags

    a, b, c = Flags(), Flags(), Flags()
    a.nrt, b.no_cpython_wrapper, c.nrt, c.no_cpython_wrapper = True, True, True, False
    d = Flags()
    d.nrt = True
    if not (original_eq(a, d) and not original_eq(a, b) and original_eq(a, c) and original_eq(a, a)
            and isinstance(getattr(a, "_values", None), dict)):
        return
    if not (__eq__(a, d) and not __eq__(a, b) and __eq__(a, c) and __hash__(a) == __hash__(c) == __hash__(d)
            and __hash__(a) != __hash__(b)):
        return
    kept.clear()
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
    same order, gathered into one list. What to do with a value is decided once per type: the leaves that hold no
    variable (locations, names, numbers, ...) are skipped, a variable is taken, and a statement or expression whose
    ``list_vars`` is numba's own is read in place (its attributes, resp. its arguments) instead of through a call
    and a list of its own."""
    from numba.core import ir

    var, inst = ir.Var, ir.Inst
    stmt_list_vars, expr_list_vars = ir.Stmt.list_vars, ir.Expr.list_vars
    SKIP, TAKE, ATTRIBUTES, ARGUMENTS, CALL, ITEMS, VALUES = range(7)
    actions: dict = {}

    def action_of(kind):
        if issubclass(kind, var):
            return TAKE
        if issubclass(kind, inst):
            if "_rec_list_vars" in vars(kind) or any("_rec_list_vars" in vars(c) for c in kind.__mro__[1:]
                                                     if c is not ir.Inst):
                return CALL  # its own helper: numba's path
            if kind.list_vars is stmt_list_vars:
                return ATTRIBUTES
            if kind.list_vars is expr_list_vars:
                return ARGUMENTS
            return CALL
        if issubclass(kind, (list, tuple)):
            return ITEMS
        if issubclass(kind, dict):
            return VALUES
        return SKIP

    def collect(items, out):
        for val in items:
            action = actions.get(type(val))
            if action is None:
                action = actions[type(val)] = action_of(type(val))
            if action == SKIP:
                continue
            if action == TAKE:
                out.append(val)
            elif action == ATTRIBUTES:
                collect(val.__dict__.values(), out)
            elif action == ARGUMENTS:
                collect(val._kws.values(), out)
            elif action == CALL:
                out.extend(val.list_vars())
            elif action == ITEMS:
                collect(val, out)
            else:
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


def _array_structures_without_refresh() -> None:
    """numba asks, for every array it indexes or measures in compiled code, whether the array type has an
    ``__array__`` lowering (``arrayobj.make_array``: none in numba, so the answer is always no), and on that miss
    refreshes the whole target context (imports and registry scans: ≈ 2,800 of the ≈ 4,000 refreshes in a compile
    of the engine, issue 42). A refresh only installs what the context's registries gained since the last one: when
    their function registrations are as many as at the context's last refresh, the miss is answered without it
    (the same answer). Any other lookup, and this one after a new registration, refresh as before."""
    import weakref

    from numba.core import base

    context_cls = base.BaseContext
    if "refresh" not in vars(context_cls) or "get_function" not in vars(context_cls):
        return
    original_refresh, original_get = context_cls.refresh, context_cls.get_function
    counts = weakref.WeakKeyDictionary()  # context -> function registrations of its registries at its last refresh

    def registrations(context) -> int:
        return sum(len(registry.functions) for registry in context._registries)

    def refresh(self):
        original_refresh(self)
        try:
            counts[self] = registrations(self)
        except TypeError:  # a context that cannot be a weak key: numba's path for it
            pass

    def get_function(self, fn, sig, _firstcall=True):
        if _firstcall and type(fn) is str and fn == "__array__":
            try:
                if counts.get(self, -1) == registrations(self):
                    _firstcall = False
            except TypeError:
                pass
        return original_get(self, fn, sig, _firstcall)

    context_cls.refresh, context_cls.get_function = refresh, get_function


_array_structures_without_refresh()


def _locations_asked_once() -> None:
    """numba wraps every lowering implementation it looks up (≈ 7,000 per compile of the engine, issue 42) and
    asks each time, through ``inspect.signature``, whether it takes a ``loc`` argument: the answer per function
    kept (a function's parameters do not change)."""
    from numba.core import base

    original = getattr(base, "_has_loc", None)
    if original is None:
        return
    answers: dict = {}

    def _has_loc(fn):
        try:
            return answers[fn]
        except KeyError:
            answer = answers[fn] = original(fn)
            return answer
        except TypeError:  # an implementation Python cannot hash
            return original(fn)

    base._has_loc = _has_loc


_locations_asked_once()


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
