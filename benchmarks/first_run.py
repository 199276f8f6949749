"""Benchmark: the README's first quick-start command on a fresh virtual environment (issue 42).

Usage::

    python benchmarks/first_run.py [--source .] [--cases excavator,fourbar-hydraulic] [--no-build-kernels]

Makes a fresh virtual environment in a temporary folder, then times, each in its own process:

1. ``python -m pip install SOURCE`` (the package build compiles the kernels unless ``--no-build-kernels``);
2. ``flexmbs run excavator -o digging.results.h5`` (the README's first command ends here);
3. the first ``flexmbs run`` of each further case with ``--t-end`` as given, then the same run again (warm).

Prints wall and CPU seconds (CPU of the child processes) of each step, the compile notices the runs printed, the
load average before and after, and one JSON line. pip's downloads come from its cache after the first time; the
package index is still asked, so the install time depends on the network.
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
from pathlib import Path


def _timed(command: list[str], cwd: str, env: dict) -> tuple[float, float, str, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stderr, done.returncode


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--cases", default="fourbar-hydraulic,slider-crank,platen-stroke,compactor")
    parser.add_argument("--t-end", type=float, default=0.2, help="simulated time of the further cases, s")
    parser.add_argument("--no-build-kernels", action="store_true")
    args = parser.parse_args(argv)
    load0 = os.getloadavg()
    work = tempfile.mkdtemp(prefix="flexmbs-first-run-")
    venv.create(os.path.join(work, "venv"), with_pip=True)
    bin_dir = os.path.join(work, "venv", "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FLEXMBS_KERNEL_CACHE", "NUMBA_CACHE_DIR")}
    env.update(PATH=bin_dir + os.pathsep + env.get("PATH", ""), XDG_CACHE_HOME=os.path.join(work, "cache"),
               VIRTUAL_ENV=os.path.join(work, "venv"))
    if args.no_build_kernels:
        env["FLEXMBS_BUILD_KERNELS"] = "0"
    steps = {}
    wall, cpu, err, code = _timed([os.path.join(bin_dir, "python"), "-m", "pip", "install", "--quiet", args.source],
                                  work, env)
    steps["install"] = (wall, cpu, code)
    print(f"install: {wall:.1f} s wall, {cpu:.1f} s CPU (exit {code})", file=sys.stderr)
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
                      "steps": {k: {"wall_s": round(v[0], 1), "cpu_s": round(v[1], 1), "exit": v[2]}
                                for k, v in steps.items()},
                      "readme_first_command_wall_s": round(steps["install"][0] + steps["excavator"][0], 1),
                      "load_before": round(load0[0], 2), "load_after": round(load1[0], 2),
                      "date": time.strftime("%Y-%m-%d %H:%M")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
