"""Compile every kernel of an installation into its own kernel cache (issue 42: the first run is the hundredth).

Usage::

    python -m flexmbs_jit.build [ROOT] [--jobs 2] [--into DIR] [--no-check | --check-only] [--status FILE]

``ROOT`` is the folder that holds the project's packages (default: this installation's). The package build runs
it on the built tree (``setup.py``), so ``pip install .`` ships the compiled kernels in
``flexmbs_jit/kernels/<key>``. The work is split over ``--jobs`` processes that share the cache: one runs the
engine's warm-up (:mod:`flexmbs.engine.warmup`, the compiled step), the others import the modules whose kernels
compile when defined (the hydraulic circuit, contacts, the cases' own elements). A last pass in fresh processes
(the same groups, at once) checks that everything loads without compiling. Prints one line with the time taken and
each process's wall and CPU time; exit status 0 even when compiling failed (the kernels then compile at first use,
with the notice). The package's build backend (``build_backend.py``) runs it with ``--into``, ``--no-check`` and
``--status`` on the source tree while pip resolves the dependencies, and the wheel's build then only runs the check
(``--check-only``) on the built tree holding those kernels.
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
    parser.add_argument("--into", help="the folder of the kernels (default: ROOT/flexmbs_jit/kernels)")
    parser.add_argument("--no-check", action="store_true", help="compile only; no check that everything loads")
    parser.add_argument("--check-only", action="store_true", help="only the check (it compiles what is missing)")
    parser.add_argument("--status", help="a JSON file written at the end: {\"ok\": ..., \"keys\": [the key "
                        "folders in the kernels' folder]} (the package build waits for it, setup.py)")
    parser.add_argument("--worker", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return 3 if _worker(args.worker[0], args.worker[1:]) else 0
    root = Path(args.root).resolve()
    if args.verify:
        return _verify(root, args.warm_up or list(WARM_UPS))
    into = Path(args.into).resolve() if args.into else root / "flexmbs_jit" / "kernels"
    env = dict(os.environ, FLEXMBS_KERNEL_CACHE=str(into), FLEXMBS_COMPILE_NOTICE="0",
               PYTHONPATH=os.pathsep.join([str(root)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                                         if p]))
    warm_ups = args.warm_up or list(WARM_UPS)
    side = [name for name in SIDE_WARM_UPS if args.warm_up is None
            and (root / (name.replace(".", "/") + ".py")).is_file()]
    others = [name for name in compiled_modules(root) if name not in warm_ups] + side
    jobs = max(1, args.jobs)
    groups = [warm_ups] + ([others] if jobs == 1 else [others[k::jobs - 1] for k in range(jobs - 1)])
    start, cpu0 = time.perf_counter(), os.times()
    command = [sys.executable, "-m", "flexmbs_jit.build", str(root), "--worker"]
    runs, checks = [], []
    if not args.check_only:
        if jobs == 1:
            runs = [_run([command + ["warm-up"] + names], env, root)[0] for names in groups]
        else:
            runs = _run([command + ["warm-up"] + names for names in groups], env, root)
    if not args.no_check:
        # all of it once more in fresh processes (the same groups, at once): everything must load without
        # compiling (a check that compiles leaves the kernel in the cache: the build is complete anyway)
        checks = _run([command + ["check"] + names for names in ([others + warm_ups] if jobs == 1 else groups)],
                      env, root)
    cpu1 = os.times()
    cpu = (cpu1.children_user - cpu0.children_user) + (cpu1.children_system - cpu0.children_system)
    ok = not any(code for code, _, _ in runs + checks)
    times = [f"{w:.0f} s/{c:.0f} s CPU" for _, w, c in runs] + [f"check {w:.0f} s/{c:.0f} s CPU" for _, w, c in checks]
    print(f"flexmbs_jit.build: {'compiled' if ok else 'could not compile all of'} the kernels into {into} in "
          f"{time.perf_counter() - start:.0f} s ({cpu:.0f} s CPU; {', '.join(times)})"
          f"{'' if ok else '; they compile at first use instead'}", file=sys.stderr)
    if args.status:
        import json

        keys = sorted(p.name for p in into.iterdir() if p.is_dir()) if into.is_dir() else []
        partial = Path(args.status).with_suffix(".partial")
        partial.write_text(json.dumps({"ok": ok, "keys": keys}))
        os.replace(partial, args.status)
    return 0


def _run(commands: list[list[str]], env: dict, cwd: Path) -> list[tuple[int, float, float]]:
    """Run ``commands`` at once; each one's exit status, wall and CPU time (s), in order."""
    start = time.perf_counter()
    running = {subprocess.Popen(c, env=env, cwd=cwd).pid: k for k, c in enumerate(commands)}
    done = [(0, 0.0, 0.0)] * len(commands)
    while running:
        pid, status, usage = os.wait4(-1, 0)
        if pid in running:
            done[running.pop(pid)] = (os.waitstatus_to_exitcode(status), time.perf_counter() - start,
                                      usage.ru_utime + usage.ru_stime)
    return done


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
