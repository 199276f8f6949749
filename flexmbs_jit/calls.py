"""Functions compiled once and called by address (issue 42: the first compile of the step).

numba gives every compiled function its own code library and, when a function is finalized, links the libraries of
all its callees into it and runs the optimizer and the code generator over the whole again. A function called from
five levels up is therefore optimized and generated five times: the step's 2,181 lines of compiled functions became
12,180 lines of code to optimize (docs/benchmarks.md, "The first run"). A function decorated with :func:`apart`
is compiled once, in its own library, for the argument types of its first call; its compiled callers only
*declare* it and call it through a process-wide symbol (``llvmlite.binding.add_symbol``) with numba's own calling
convention, so exceptions propagate exactly as for a linked call. The idea is numbox's ``proxy``
(Goykhman/numbox, ``numbox/core/proxy/proxy.py``), here without explicit signatures: the function is compiled
when a caller is typed, with the caller's argument types made non-literal (a constant argument compiled a second
copy before).

Caching. A caller's cached machine code refers to the symbol, so the symbol must exist before that code is
loaded. Each compiled function is recorded in the kernel cache (``apart/<symbol>.pkl``: module, name, argument
types, the symbols it calls itself); the first time numba loads any of the project's kernels in a process, every
recorded function is loaded (its dependencies first) and its symbol registered. A cached caller that refers to a
symbol that is not registered is not loaded but compiled again (it never reaches the loader).

Use it for large internal functions called from several places (the residual, the Jacobian, the Newton step, the
samples); keep small hot leaves (a few lines, called per element) linked, where inlining pays.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
import inspect
import os
import pickle
import re
import tempfile
import threading

import numba
from llvmlite import binding as ll
from numba.core import caching, cgutils, serialize, types
from numba.core.typing import signature as make_signature
from numba.core.typing.templates import infer, infer_global, make_intrinsic_template

from .cache import kernel_cache_dir

__all__ = ["apart", "preload", "registered"]

PREFIX, SUFFIX = "flexmbs_apart_", "_end"
# the names in a cached library's symbol table follow each other without a separator: the suffix ends one
_SYMBOL = re.compile(rb"flexmbs_apart_[A-Za-z0-9_]+?_[0-9a-f]{16}_end")
_lock = threading.RLock()
_FUNCTIONS: dict[tuple[str, str], object] = {}  # (module, qualname) -> dispatcher
_REGISTERED: dict[str, object] = {}  # symbol -> numba signature of the compiled function
_preloaded = False


def _symbol(dispatcher, argtypes) -> str:
    func = dispatcher.py_func
    name = re.sub(r"[^A-Za-z0-9]", "_", f"{func.__module__}_{func.__qualname__}")
    return f"{PREFIX}{name}_{hashlib.sha1(repr(argtypes).encode()).hexdigest()[:16]}{SUFFIX}"


def _registry_dir():
    return kernel_cache_dir() / "apart"


def _record(symbol: str, dispatcher, argtypes, calls: list) -> None:
    folder = _registry_dir()
    path = folder / f"{symbol}.pkl"
    if path.exists():
        return
    func = dispatcher.py_func
    try:  # numba's own pickler (types of ctypes callbacks are pickled by value, as in numba's cache index)
        data = serialize.dumps((func.__module__, func.__qualname__, argtypes, list(calls)))
    except Exception:  # noqa: BLE001 (an argument type numba cannot pickle: its callers are compiled anew each time)
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(dir=folder, suffix=".part")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(partial, path)
    except OSError:  # a read-only cache: the function is compiled again in the next process
        pass


def _called_symbols(library) -> list[str]:
    """The apart symbols a compiled library calls, read from its machine code (typing results are cached by numba,
    so the calls a function makes are not all seen while it is typed)."""
    try:
        code = library.serialize_using_object_code()[2][0]
    except Exception:  # noqa: BLE001 (another numba's layout: recorded without its calls)
        return []
    return sorted({name.decode() for name in _SYMBOL.findall(code)})


def compile_apart(dispatcher, argtypes: tuple):
    """Compile (or load) ``dispatcher`` for ``argtypes``, register its symbol; returns ``(symbol, signature)``."""
    argtypes = tuple(types.unliteral(t) for t in argtypes)
    symbol = _symbol(dispatcher, argtypes)
    with _lock:
        if symbol in _REGISTERED:
            return symbol, _REGISTERED[symbol]
        dispatcher.compile(argtypes)
        cres = dispatcher.overloads[argtypes]
        ll.add_symbol(symbol, cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))
        _REGISTERED[symbol] = cres.signature
        _record(symbol, dispatcher, argtypes, _called_symbols(cres.library))
        return symbol, cres.signature


def _typing(dispatcher, args):
    """The signature of a call with ``args`` (types) and its code: a call of the function's symbol."""
    symbol, compiled = compile_apart(dispatcher, args)
    sig = make_signature(compiled.return_type, *compiled.args)

    def codegen(context, builder, signature, llargs):
        fnty = context.call_conv.get_function_type(sig.return_type, sig.args)
        fn = cgutils.get_or_insert_function(builder.module, fnty, symbol)
        status, result = context.call_conv.call_function(builder, fn, sig.return_type, sig.args, llargs)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return result
    return sig, codegen


def apart(func, python: bool = True, counted: bool = True, **options):
    """Compile ``func`` (``numba.njit(cache=True, **options)``) on its own; compiled callers call it by address.

    The returned function is called from Python as the dispatcher would be (``python=False``: it is never called
    from Python, and numba makes no Python wrapper for it); in compiled code each call is a call through the
    function's symbol (see the module docstring). No C wrapper is made: callers use the native function.

    ``counted=False`` (only with ``python=False``): numba emits no reference counting in the function (its NRT is
    off for it). For a function that allocates nothing, returns no array and receives none newly allocated from a
    callee: every array it sees is owned by a caller, so its increments and decrements are pairs that do nothing,
    and emitting them was a large part of numba's lowering (issue 42). numba refuses an allocation in it."""
    options.setdefault("cache", True)
    options.setdefault("no_cfunc_wrapper", True)
    if not python:
        options["no_cpython_wrapper"] = True
    options["_nrt"] = counted  # set, not inherited from the first caller (flexmbs_jit.njit)
    if not counted and python:
        raise ValueError("apart(counted=False) needs python=False (the Python entry counts references)")
    dispatcher = numba.njit(**options)(func)
    _FUNCTIONS[(func.__module__, func.__qualname__)] = dispatcher
    params = [p.name for p in inspect.signature(func).parameters.values()]
    names = ", ".join(params)
    # numba reads the parameters of an intrinsic's definition from its Python signature: written out
    source = f"def call({', '.join(['typingctx'] + params)}):\n    return _typing(dispatcher, ({names},))\n"
    namespace = {"_typing": _typing, "dispatcher": dispatcher}
    exec(compile(source, f"<apart {func.__module__}.{func.__qualname__}>", "exec"), namespace)  # noqa: S102

    @functools.wraps(func)
    def python_entry(*args, **kwargs):
        if not python:  # numba made no Python wrapper: a call would jump to address 0
            raise TypeError(f"{func.__qualname__} is compiled for compiled callers only (@apart(python=False))")
        return dispatcher(*args, **kwargs)

    # in compiled code the function's name is the intrinsic itself (no wrapper function to compile and link)
    template = make_intrinsic_template(python_entry, namespace["call"], f"apart_{func.__name__}")
    infer(template)
    infer_global(python_entry, types.Function(template))
    python_entry.dispatcher = dispatcher
    return python_entry


def registered() -> dict:
    """Symbol → signature of every function compiled apart in this process."""
    return dict(_REGISTERED)


def preload() -> None:
    """Load every function recorded in the kernel cache and register its symbol (dependencies first); once."""
    global _preloaded
    with _lock:
        if _preloaded:
            return
        _preloaded = True
        folder = _registry_dir()
        entries = {}
        for path in folder.glob(f"{PREFIX}*.pkl") if folder.is_dir() else ():
            try:
                entries[path.stem] = pickle.loads(path.read_bytes())
            except Exception:  # noqa: BLE001 (a damaged record: its callers compile again)
                continue
        done: set = set()

        def load(symbol, trail=()):
            if symbol in done or symbol in trail or symbol not in entries:
                return
            module, qualname, argtypes, calls = entries[symbol]
            for other in calls:
                load(other, trail + (symbol,))
            done.add(symbol)
            try:
                importlib.import_module(module)
                dispatcher = _FUNCTIONS[(module, qualname)]
            except Exception:  # noqa: BLE001 (a module gone since: its callers compile again)
                return
            compile_apart(dispatcher, argtypes)

        for symbol in sorted(entries):
            load(symbol)


def _object_code(payload):
    """The machine code of a cached library (numba's payload), or None."""
    try:
        libdata = payload[0] if isinstance(payload, tuple) and isinstance(payload[0], tuple) else payload
        _name, kind, data = libdata
        return data[0] if kind == "object" else None
    except Exception:  # noqa: BLE001 (another numba's layout: nothing to check)
        return None


def _guard(original):
    def rebuild(self, target_context, payload):
        code = _object_code(payload)
        if code is not None and PREFIX.encode() in code:
            preload()
            if any(not ll.address_of_symbol(name.decode()) for name in set(_SYMBOL.findall(code))):
                return None  # numba's "not in the cache": compiled again, its callees registered on the way
        return original(self, target_context, payload)
    return rebuild


def _install_guard() -> None:
    if getattr(caching, "_flexmbs_apart_guard", False):
        return
    caching._flexmbs_apart_guard = True
    caching.CompileResultCacheImpl.rebuild = _guard(caching.CompileResultCacheImpl.rebuild)
    caching.CodeLibraryCacheImpl.rebuild = _guard(caching.CodeLibraryCacheImpl.rebuild)


_install_guard()
