"""Where the compiled kernels live on disk, under a key that no edit can leave stale (issue 42).

numba keys each cached function by its own file only: an edited callee in another file left its callers' machine
code in place, and developers had to delete cache files by hand. Here every kernel of the project is cached under
one directory per **key**, a hash over

* the numba, llvmlite and Python versions, and
* the contents of every project source file that defines compiled code, and of every project module those files
  import (a global such as ``REACTION_PASSES``, imported from ``initial.py``, is frozen into the machine code),

so an edit of any of them moves every kernel to a fresh directory: a stale kernel cannot be loaded. numba's own
index (keyed by signature and CPU) works unchanged inside that directory.

The directory (:func:`kernel_cache_dir`) is, in this order:

1. ``$FLEXMBS_KERNEL_CACHE/<key>`` when that variable is set (the package build uses it);
2. ``$XDG_CACHE_HOME/flexmbs/kernels/<key>`` (default ``~/.cache/flexmbs/kernels/<key>``), the three most
   recently used keys kept (and any used within a day), older ones removed. When the package ships the kernels
   compiled at its build (``flexmbs_jit/kernels/<key>``, ``python -m flexmbs_jit.build``; from a checkout, those of
   an installed copy of the same sources), they are copied there once. A run never writes into the installed
   package: kernels it compiled there were left behind by ``pip uninstall`` and, as a namespace package
   ``flexmbs_jit``, hid a later editable install of it.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

__all__ = ["cache_key", "kernel_cache_dir", "compiled_sources", "ENV_VARIABLE", "SHIPPED", "KEEP_KEYS"]

ENV_VARIABLE = "FLEXMBS_KERNEL_CACHE"
PACKAGE_DIR = Path(__file__).resolve().parent
ROOT = PACKAGE_DIR.parent  # the folder holding the project's packages (a checkout or site-packages)
PACKAGES = ("flexmbs_jit", "fem", "reduction", "flexmbs", "hydraulics", "cases")
SHIPPED = PACKAGE_DIR / "kernels"  # the cache built with the package (flexmbs_jit.build)
KEEP_KEYS = 3  # key directories kept in the user's cache (a developer's last edits) ...
KEEP_SECONDS = 86400.0  # ... and any used in the last day: another process may be running on it (a worktree, a
# second installation); removing its folder under it failed that process's next kernel load

NOT_IN_KEY = ("flexmbs_jit.build",)  # the build's driver: never imported by a run, no machine code depends on it
_COMPILED = re.compile(r"^\s*(?:from\s+(?:numba|flexmbs_jit)\b|import\s+(?:numba|flexmbs_jit)\b)", re.M)
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w., \t]+)$", re.M)


def _module_files() -> dict[str, Path]:
    """Every module of the project's packages under :data:`ROOT`, by dotted name."""
    modules = {}
    for package in PACKAGES:
        base = ROOT / package
        if not base.is_dir():
            continue
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _imported(name: str, path: Path, text: str, modules: dict[str, Path]) -> set[str]:
    """The project modules that the source ``text`` of module ``name`` imports (read with regular expressions:
    an over-approximation is harmless, it only widens the key)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for dots, module, names in _FROM.findall(text):
        if dots:
            base = package[: len(package) - (len(dots) - 1)]
            target = ".".join(base + ([module] if module else []))
        else:
            target = module
        names = re.sub(r"#[^\n]*", "", names).strip("() \n")
        candidates = [target] + [f"{target}.{n.split()[0]}" for n in names.replace("\n", ",").split(",") if n.strip()]
        for candidate in candidates:
            while candidate and candidate not in modules:
                candidate = candidate.rpartition(".")[0]
            if candidate:
                found.add(candidate)
    for group in _IMPORT.findall(text):
        for item in group.split(","):
            candidate = item.strip().split(" ")[0]
            while candidate and candidate not in modules:
                candidate = candidate.rpartition(".")[0]
            if candidate:
                found.add(candidate)
    return found


@lru_cache(maxsize=1)
def compiled_sources() -> tuple[Path, ...]:
    """The project files the compiled kernels depend on: those that use numba or :mod:`flexmbs_jit`, and the
    project modules they import (whose globals compiled code may read; a compiled callee's own file is a compiled
    file itself)."""
    modules = _module_files()
    texts = {name: path.read_text(encoding="utf-8", errors="replace") for name, path in modules.items()}
    compiled = [name for name, text in texts.items() if _COMPILED.search(text) and name not in NOT_IN_KEY]
    seen = set(compiled)
    for name in compiled:
        seen |= _imported(name, modules[name], texts[name], modules)
    return tuple(sorted(modules[name] for name in seen))


@lru_cache(maxsize=1)
def cache_key() -> str:
    """The key of this installation's kernels: numba, llvmlite and Python versions and the sources of
    :func:`compiled_sources` (16 hex digits)."""
    import llvmlite
    import numba
    digest = hashlib.sha256()
    digest.update(f"numba {numba.__version__} llvmlite {llvmlite.__version__} python {sys.version_info[:2]} "
                  f"{getattr(sys, 'abiflags', '')}\n".encode())
    for path in compiled_sources():
        digest.update(str(path.relative_to(ROOT).as_posix()).encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def _writable(folder: Path) -> bool:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def _user_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "flexmbs" / "kernels"


def _prune(root: Path, keep: str) -> None:
    """Remove the key directories of ``root`` beyond the :data:`KEEP_KEYS` most recently used, unless used within
    :data:`KEEP_SECONDS` (every process touches its folder when it starts)."""
    try:
        folders = [p for p in root.iterdir() if p.is_dir() and p.name != keep and len(p.name) == 16]
    except OSError:
        return
    used = {}
    for p in folders:
        try:
            used[p] = p.stat().st_mtime
        except OSError:  # removed meanwhile by another process
            pass
    now = time.time()
    for old in sorted(used, key=used.get, reverse=True)[KEEP_KEYS - 1:]:
        if now - used[old] > KEEP_SECONDS:
            shutil.rmtree(old, ignore_errors=True)


def _installed_kernels(key: str) -> Path | None:
    """``flexmbs_jit/kernels/<key>`` of the installed distribution ``flexmbs``, if it has one."""
    try:
        from importlib.metadata import PackageNotFoundError, distribution
        folder = Path(distribution("flexmbs").locate_file(f"flexmbs_jit/kernels/{key}"))
    except (ImportError, PackageNotFoundError, OSError, TypeError):
        return None
    return folder if folder.is_dir() else None


@lru_cache(maxsize=1)
def kernel_cache_dir() -> Path:
    """The directory of this installation's compiled kernels (created; see the module docstring for the order)."""
    key = cache_key()
    configured = os.environ.get(ENV_VARIABLE)
    if configured:
        folder = Path(configured).expanduser() / key
        if not _writable(folder):
            raise OSError(f"{ENV_VARIABLE}={configured}: cannot write there; set it to a writable folder or unset it")
        return folder
    shipped = SHIPPED / key
    if not shipped.is_dir():  # a checkout run beside an installed copy of the same sources: that copy's kernels
        installed = _installed_kernels(key)
        shipped = installed if installed is not None else shipped
    root = _user_root()
    folder = root / key
    if shipped.is_dir() and not folder.is_dir():  # the package's kernels, copied once (read-only from then on)
        partial = root / f".{key}-{os.getpid()}"
        try:
            shutil.copytree(shipped, partial)
            os.replace(partial, folder)
        except OSError:
            shutil.rmtree(partial, ignore_errors=True)
    if not _writable(folder):
        folder = Path(tempfile.gettempdir()) / f"flexmbs-kernels-{os.getuid() if hasattr(os, 'getuid') else 0}" / key
        folder.mkdir(parents=True, exist_ok=True)
    else:
        try:
            os.utime(folder)
        except OSError:
            pass
        _prune(root, key)
    return folder
