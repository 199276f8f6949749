"""Compile every kernel of an installation into its own kernel cache (issue 42: the first run is the hundredth).

Usage::

    python -m flexmbs_jit.build [ROOT] [--jobs 2]

``ROOT`` is the folder that holds the project's packages (default: this installation's). The package build runs
it on the built tree (``setup.py``), so ``pip install .`` ships the compiled kernels in
``flexmbs_jit/kernels/<key>``. The work is split over ``--jobs`` processes that share the cache: one runs the
engine's warm-up (:mod:`flexmbs.engine.warmup`, the compiled step), the others import the modules whose kernels
compile when defined (the hydraulic circuit, contacts, the cases' own elements). A last pass in one process checks
that everything loads without compiling. Prints one line with the time taken; exit status 0 even when compiling
failed (the kernels then compile at first use, with the notice).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["compiled_modules", "main"]

WARM_UPS = ("flexmbs.engine.warmup",)  # modules with a warm_up() that compiles the engine by running it
# more warm-ups, run beside it in the other processes: the circuit kernels (their types do not depend on the circuit)
SIDE_WARM_UPS = ("hydraulics.warmup",)


def compiled_modules(root: Path) -> list[str]:
    """The project modules under ``root`` that define compiled code (they import :mod:`flexmbs_jit`)."""
    from .cache import PACKAGES, _COMPILED

    names = []
    for package in PACKAGES[1:]:
        for path in sorted((root / package).rglob("*.py")):
            if _COMPILED.search(path.read_text(encoding="utf-8", errors="replace")):
                parts = list(path.relative_to(root).with_suffix("").parts)
                if parts[-1] == "__init__":
                    parts.pop()
                names.append(".".join(parts))
    return names


def _worker(kind: str, names: list[str]) -> int:
    """Import ``names`` and run the ``warm_up()`` of those that have one (``kind`` "warm-up"); "check" does the same
    and returns the number of kernels it had to compile (0 when everything loads from the cache)."""
    import importlib
    import warnings

    from numba.core import event

    compiled = []
    event.register("numba:compile", type("Count", (event.Listener,), {
        "on_start": lambda self, ev: compiled.append(ev.data["dispatcher"]), "on_end": lambda self, ev: None})())
    warnings.simplefilter("ignore")
    for name in names:
        module = importlib.import_module(name)
        if hasattr(module, "warm_up"):
            module.warm_up()
    if kind == "check" and compiled:
        print(f"flexmbs_jit.build: the check compiled {len(compiled)} kernels again (a cached kernel did not load): "
              + ", ".join(sorted({d.py_func.__qualname__ for d in compiled})[:8]), file=sys.stderr)
    return len(compiled) if kind == "check" else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--warm-up", action="append", help="a module whose warm_up() runs the engine (default: "
                        + ", ".join(WARM_UPS) + ")")
    parser.add_argument("--verify", action="store_true", help="check that the kernels shipped with ROOT load "
                        "without compiling (in a fresh user cache); exit status 1 if any compiled")
    parser.add_argument("--worker", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return 3 if _worker(args.worker[0], args.worker[1:]) else 0
    root = Path(args.root).resolve()
    if args.verify:
        return _verify(root, args.warm_up or list(WARM_UPS))
    env = dict(os.environ, FLEXMBS_KERNEL_CACHE=str(root / "flexmbs_jit" / "kernels"), FLEXMBS_COMPILE_NOTICE="0",
               PYTHONPATH=os.pathsep.join([str(root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                         if p]))
    warm_ups = args.warm_up or list(WARM_UPS)
    side = [name for name in SIDE_WARM_UPS if args.warm_up is None
            and (root / (name.replace(".", "/") + ".py")).is_file()]
    others = [name for name in compiled_modules(root) if name not in warm_ups] + side
    groups = [("warm-up", warm_ups)]
    jobs = max(1, args.jobs)
    if jobs == 1:
        groups.append(("warm-up", others))
    else:
        for k in range(jobs - 1):
            groups.append(("warm-up", others[k::jobs - 1]))
    start, cpu0 = time.perf_counter(), os.times()
    command = [sys.executable, "-m", "flexmbs_jit.build", str(root), "--worker"]
    if jobs == 1:
        codes = [subprocess.call(command + [kind] + names, env=env, cwd=root) for kind, names in groups]
    else:
        running = [subprocess.Popen(command + [kind] + names, env=env, cwd=root) for kind, names in groups]
        codes = [p.wait() for p in running]
    # all of it once more in one process: everything must load without compiling
    check = subprocess.call(command + ["check"] + others + warm_ups, env=env, cwd=root)
    cpu1 = os.times()
    cpu = (cpu1.children_user - cpu0.children_user) + (cpu1.children_system - cpu0.children_system)
    ok = not any(codes) and not check
    print(f"flexmbs_jit.build: {'compiled' if ok else 'could not compile all of'} the kernels into "
          f"{root / 'flexmbs_jit' / 'kernels'} in {time.perf_counter() - start:.0f} s ({cpu:.0f} s CPU, {jobs} "
          f"processes){'' if ok else '; they compile at first use instead'}", file=sys.stderr)
    return 0


def _verify(root: Path, warm_ups: list[str]) -> int:
    """Run every warm-up of ``root`` in a fresh process with an empty user cache: the shipped kernels only."""
    import shutil
    import tempfile

    home = tempfile.mkdtemp(prefix="flexmbs-verify-")
    env = {k: v for k, v in os.environ.items() if k not in ("FLEXMBS_KERNEL_CACHE", "NUMBA_CACHE_DIR")}
    env.update(XDG_CACHE_HOME=home, FLEXMBS_COMPILE_NOTICE="0")
    names = [n for n in compiled_modules(root) if n not in warm_ups] + warm_ups + [
        n for n in SIDE_WARM_UPS if (root / (n.replace(".", "/") + ".py")).is_file()]
    try:
        code = subprocess.call([sys.executable, "-m", "flexmbs_jit.build", str(root), "--worker", "check"] + names,
                               env=env, cwd=home)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"flexmbs_jit.build: the kernels shipped in {root / 'flexmbs_jit' / 'kernels'} "
          f"{'load without compiling' if code == 0 else 'did not all load: they compile at first use'}",
          file=sys.stderr)
    return 1 if code else 0


if __name__ == "__main__":
    sys.exit(main())
