"""Benchmark: the README's first quick-start command on a fresh virtual environment (issue 42).

Usage::

    python benchmarks/first_run.py [--source .] [--cases excavator,fourbar-hydraulic] [--no-build-kernels]
                                   [--pip-args="--no-compile"] [--cold-pip-cache]

Makes a fresh virtual environment in a temporary folder, then times, each in its own process:

1. ``python -m pip install --no-compile SOURCE``, as the README says (``--pip-args`` to change the options; the
   package build compiles the kernels unless ``--no-build-kernels``);
2. ``flexmbs run excavator -o digging.results.h5`` (the README's first command ends here);
3. the first ``flexmbs run`` of each further case with ``--t-end`` as given, then the same run again (warm).

Prints wall and CPU seconds (CPU of the child processes and of their orphans, which this process adopts) of each
step, the phases of the install read from pip's
log (its build environment, the resolution and downloads, the package build with the kernels, the installation of
everything), the compile notices the runs printed, the load average before and after, and one JSON line.

The runs see a fresh user cache (``XDG_CACHE_HOME``: no kernels, no numba cache) and no ``PYTHONDONTWRITEBYTECODE``
(a user's shell does not set it: the first run writes the byte code of what it imports). pip keeps the invoking
user's download cache (``PIP_CACHE_DIR``; ``--cold-pip-cache`` for an empty one, so that all downloads come from
the network): the wheels are then not downloaded again, but the package index is still asked for every
requirement, so the install time depends on the network.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import venv
from datetime import datetime
from pathlib import Path

# the phases of `pip install` (pip 23-25), each from the first log line matching its start to the next phase
PHASES = (("build environment", "Installing build dependencies: started"),
          ("resolution and downloads", "Preparing metadata (pyproject.toml): finished"),
          ("package build (kernels)", "Building wheel for flexmbs (pyproject.toml): started"),
          ("installation", "Installing collected packages:"),
          ("clean-up", "Successfully installed"))


def _phases(log: str, end: float) -> dict:
    """Wall seconds of each of :data:`PHASES` in pip's ``--log`` file (``end``: the time pip exited, epoch s)."""
    starts = []
    for line in Path(log).read_text(errors="replace").splitlines():
        if len(starts) < len(PHASES) and PHASES[len(starts)][1] in line:
            stamp = datetime.strptime(line[:23], "%Y-%m-%dT%H:%M:%S,%f").timestamp()
            starts.append(stamp)
    if len(starts) < len(PHASES):
        return {}
    ends = starts[1:] + [end]
    return {name: round(b - a, 1) for (name, _), a, b in zip(PHASES, starts, ends)}


def _adopt_orphans() -> None:
    """Make this process the reaper of its descendants' orphans (Linux): the package build's early compile
    (build_backend.py) outlives the process that started it, and its CPU time is counted only when it is reaped."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _reap() -> None:
    """Wait for the adopted orphans (:func:`_adopt_orphans`) that have ended."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _timed(command: list[str], cwd: str, env: dict) -> tuple[float, float, str, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    _reap()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr, done.returncode


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--cases", default="fourbar-hydraulic,slider-crank,platen-stroke,compactor")
    parser.add_argument("--t-end", type=float, default=0.2, help="simulated time of the further cases, s")
    parser.add_argument("--no-build-kernels", action="store_true")
    parser.add_argument("--pip-args", default="--no-compile", help="options of `pip install` (default: the "
                        "README's, %(default)s)")
    parser.add_argument("--cold-pip-cache", action="store_true", help="an empty pip cache (all downloads)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (2.5 GB: the venv, pip's log)")
    args = parser.parse_args(argv)
    _adopt_orphans()
    load0 = os.getloadavg()
    work = tempfile.mkdtemp(prefix="flexmbs-first-run-")
    venv.create(os.path.join(work, "venv"), with_pip=True)
    bin_dir = os.path.join(work, "venv", "bin")
    pip_cache = os.environ.get("PIP_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "pip")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "FLEXMBS_KERNEL_CACHE", "NUMBA_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")}
    env.update(PATH=bin_dir + os.pathsep + env.get("PATH", ""), XDG_CACHE_HOME=os.path.join(work, "cache"),
               VIRTUAL_ENV=os.path.join(work, "venv"),
               PIP_CACHE_DIR=os.path.join(work, "pip-cache") if args.cold_pip_cache else pip_cache)
    if args.no_build_kernels:
        env["FLEXMBS_BUILD_KERNELS"] = "0"
    steps = {}
    log = os.path.join(work, "pip.log")
    wall, cpu, err, code = _timed([os.path.join(bin_dir, "python"), "-m", "pip", "install", "--quiet", "--log", log]
                                  + args.pip_args.split() + [args.source], work, env)
    phases = _phases(log, time.time())
    steps["install"] = (wall, cpu, code)
    print(f"pip install {args.pip_args} {args.source}: {wall:.1f} s wall, {cpu:.1f} s CPU (exit {code}); phases (s "
          f"wall): {phases}", file=sys.stderr)
    built = [line for line in err.splitlines() if "flexmbs_jit.build" in line]
    wall, cpu, err, code = _timed([os.path.join(bin_dir, "flexmbs"), "run", "excavator", "-o", "digging.results.h5"],
                                  work, env)
    steps["excavator"] = (wall, cpu, code)
    notices = [line for line in err.splitlines() if line.startswith("flexmbs: compiling")]
    print(f"flexmbs run excavator: {wall:.1f} s wall, {cpu:.1f} s CPU (exit {code}); compile notices: {notices}",
          file=sys.stderr)
    print(f"README's first command: {steps['install'][0] + steps['excavator'][0]:.1f} s wall", file=sys.stderr)
    for case in [c for c in args.cases.split(",") if c]:
        for when in ("first", "warm"):
            wall, cpu, err, code = _timed([os.path.join(bin_dir, "flexmbs"), "run", case, "--t-end", str(args.t_end),
                                           "-o", f"{case}-{when}.results.h5"], work, env)
            steps[f"{case} {when}"] = (wall, cpu, code)
            notices = [line for line in err.splitlines() if line.startswith("flexmbs: compiling")]
            print(f"{case} ({when}, t_end {args.t_end} s): {wall:.1f} s wall, {cpu:.1f} s CPU (exit {code})"
                  f"{'; ' + notices[0] if notices else ''}", file=sys.stderr)
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.2f}, after {load1[0]:.2f}; build line: {built}", file=sys.stderr)
    print(json.dumps({"benchmark": "first_run", "build_kernels": not args.no_build_kernels,
                      "pip_args": args.pip_args, "cold_pip_cache": args.cold_pip_cache, "install_phases_s": phases,
                      "steps": {k: {"wall_s": round(v[0], 1), "cpu_s": round(v[1], 1), "exit": v[2]}
                                for k, v in steps.items()},
                      "readme_first_command_wall_s": round(steps["install"][0] + steps["excavator"][0], 1),
                      "load_before": round(load0[0], 2), "load_after": round(load1[0], 2),
                      "date": time.strftime("%Y-%m-%d %H:%M")}))
    if args.keep:
        print(f"kept {work}", file=sys.stderr)
    else:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
