"""Benchmark: one locking stroke of the clamp locking case with three flexible bars and its hydraulics (seed 003
ch. 3), target <= 60 s wall on the 2-core reference machine.

Usage::

    python benchmarks/clamp_locking.py [--runs 3] [--t-end 1.2] [--rigid] [--set key=value ...]

The bars are reduced (or loaded from the cache) once before the timed runs. Each timed run is what
``flexmbs run clamp-locking`` does without a results file: model assembly (cached reduced bars loaded), consistent
initial state, time integration and the summary. Prints each run's wall time, the median, and one JSON line with
the figures for docs/benchmarks.md.
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
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--t-end", type=float, default=None)
    parser.add_argument("--rigid", action="store_true", help="rigid bars instead of flexible ones")
    parser.add_argument("--set", dest="assignments", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)

    from cases.clamp_locking import parameters, run
    from cases.clamp_locking.flexbars import reduced_bar

    changes = dict(item.split("=", 1) for item in args.assignments)
    changes["flexible"] = not args.rigid
    params = parameters(changes)
    if params["flexible"]:
        t0 = time.perf_counter()
        reduced_bar(params, progress=True)  # warm the cache: the benchmark times the stroke, not the reduction
        print(f"reduced bar ready in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    import os

    walls, cpus, last = [], [], None
    load_before = os.getloadavg()[0]
    for k in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        last = run(changes, t_end=args.t_end)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        print(f"run {k + 1}: {walls[-1]:.2f} s wall, {cpus[-1]:.2f} s CPU, {last['steps']} steps, locking time "
              f"{last['outputs']['locking_time_s']} s, max constraint violation "
              f"{last['max_constraint_violation']:.2e}", file=sys.stderr)
    median = statistics.median(walls)
    bars = "flexible" if params["flexible"] else "rigid"
    print(f"clamp-locking {params['stroke_direction']} stroke, {bars} bars, t_end={last['t_end']:g} s: median wall "
          f"{median:.2f} s, median CPU {statistics.median(cpus):.2f} s over {args.runs} runs (min {min(walls):.2f}, "
          f"max {max(walls):.2f} s wall); engine {last.get('engine', '?')}; load {load_before:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after")
    print(json.dumps({"benchmark": "clamp_locking", "bars": bars, "t_end_s": last["t_end"], "runs": args.runs,
                      "median_wall_s": round(median, 2), "walls_s": [round(w, 2) for w in walls],
                      "median_cpu_s": round(statistics.median(cpus), 2), "cpus_s": [round(c, 2) for c in cpus],
                      "steps": last["steps"], "machine": platform.machine(), "python": platform.python_version(),
                      "date": time.strftime("%Y-%m-%d")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
