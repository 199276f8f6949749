"""Benchmark: one mould close of the machine-creeping case (seed 003 ch. 5) with the ≈ 150-coordinate flexible
clamp unit and the case's default model (the ch. 4 hydraulic stroke drive, the guided moving platen; ``--set
stroke_drive=servo`` for the stand-in); target ≤ 5 min wall on the 2-core reference machine (the thesis: about 10 h,
seed 003 L7513-7515).

Usage::

    python benchmarks/machine_creeping.py [--runs 1] [--set key=value ...]

The reduction of the structure (once; then a cache file, ``$FLEXMBS_CACHE``) is timed separately: the first call
reports it, later calls only the cache load. ``--cold N`` instead times N cold-cache builds of the structure as the
simulation gets it (meshing, assembly, reduction without the full free–free comparison, writing and reading the
cache file), each in a fresh process with an empty cache folder: CPU (user + system) and wall, medians, load. Each timed run is what ``flexmbs
run machine-creeping`` does without a results file: structure load, model assembly, the quasi-static elastic start,
time integration and the analysis. Prints each run's wall and CPU time, the split, and one JSON line for
docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--set", dest="assignments", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--cold", type=int, default=0, metavar="N", help="time N cold-cache structure builds")
    args = parser.parse_args(argv)
    if args.cold:
        return cold_structure(args.cold, args.assignments)

    from cases.machine_creeping import parameters
    from cases.machine_creeping.simulation import run_scenario
    from cases.machine_creeping.structure import reduced_structure

    p = parameters(dict(item.split("=", 1) for item in args.assignments))
    t0 = time.perf_counter()
    body = reduced_structure(p, progress=True)
    first = time.perf_counter() - t0
    reduction_s = float(body.report.get("seconds", float("nan")))
    print(f"structure: {body.n_modes} elastic coordinates from {body.report['physical_dofs']} dofs; reduction "
          f"{reduction_s:.0f} s (recorded when it ran), this load {first:.1f} s", file=sys.stderr)
    walls, cpus, last = [], [], None
    for k in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        last = run_scenario(p)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        out = last["outputs"]
        print(f"run {k + 1}: {walls[-1]:.1f} s wall ({last['simulation_wall_s']:.1f} s simulate), {cpus[-1]:.1f} s "
              f"CPU, {last['steps']} steps over {last['t_end']:g} s, peak force ratio {out['peak_force_ratio']:.3f}",
              file=sys.stderr)
    median = statistics.median(walls)
    print(f"machine-creeping {p['scenario']} ({p['stroke_drive']} drive, guides {p['platen_guides']}), "
          f"t_end={last['t_end']:g} s, {body.n_modes} modes: median wall "
          f"{median:.1f} s over {args.runs} run(s) (target <= 300 s; thesis about 10 h)")
    print(json.dumps({"benchmark": "machine_creeping", "scenario": p["scenario"], "stroke_drive": p["stroke_drive"],
                      "platen_guides": p["platen_guides"], "t_end_s": last["t_end"],
                      "elastic_coordinates": body.n_modes, "wall_s": walls, "cpu_s": cpus, "median_wall_s": median,
                      "simulate_wall_s": last["simulation_wall_s"], "steps": last["steps"],
                      "reduction_s": reduction_s, "cache_load_s": first, "machine": platform.machine(),
                      "python": platform.python_version()}))
    return 0


COLD = """
import sys
from cases.machine_creeping import parameters
from cases.machine_creeping.structure import reduced_structure
body = reduced_structure(parameters(dict(a.split("=", 1) for a in sys.argv[2:])), cache=sys.argv[1])
print(body.n_modes, body.report["physical_dofs"])
"""


def cold_structure(runs: int, assignments: list[str]) -> int:
    """Time ``runs`` cold-cache builds of the structure, each in a fresh process (imports included)."""
    import os
    import resource
    import subprocess
    import tempfile

    load_before, rows = os.getloadavg(), []
    for k in range(runs):
        with tempfile.TemporaryDirectory() as cache:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            out = subprocess.run([sys.executable, "-c", COLD, cache, *assignments], check=True, capture_output=True,
                                 text=True).stdout.split()
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            size = sum(os.path.getsize(os.path.join(cache, f)) for f in os.listdir(cache)) / 1e6
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        rows.append((wall, cpu, after.ru_maxrss / 1024.0))
        print(f"cold run {k + 1}: {wall:.1f} s wall, {cpu:.1f} s CPU, {out[0]} elastic coordinates from {out[1]} "
              f"dofs, cache file {size:.0f} MB, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
    wall, cpu = (statistics.median(r[i] for r in rows) for i in (0, 1))
    print(f"machine-creeping structure, cold cache: median {wall:.1f} s wall, {cpu:.1f} s CPU over {runs} run(s) "
          f"(walls {', '.join(f'{r[0]:.1f}' for r in rows)}; CPUs {', '.join(f'{r[1]:.1f}' for r in rows)}); peak "
          f"RSS {max(r[2] for r in rows):.0f} MB; load {load_before[0]:.2f} before, {os.getloadavg()[0]:.2f} after "
          "(target <= 15 s CPU, issue 31)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
