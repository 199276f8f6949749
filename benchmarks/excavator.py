"""Benchmark: the excavator's 12 s digging task (seed 001 §5), target <= 60 s wall on the 2-core reference machine.

Usage::

    python benchmarks/excavator.py [--runs 3] [--scenario digging] [--t-end 12]

Prints the wall time of each run (model assembly, static initial state and time integration, no file output),
the median, the solver statistics of the last run and one JSON line with the figures for docs/benchmarks.md.
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
    parser.add_argument("--scenario", default="digging")
    parser.add_argument("--t-end", type=float, default=None)
    args = parser.parse_args(argv)

    from cases.excavator import run

    walls, cpus, last = [], [], None
    for k in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        last = run({"scenario": args.scenario}, t_end=args.t_end)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        print(f"run {k + 1}: {walls[-1]:.2f} s wall, {cpus[-1]:.2f} s CPU, {last['steps']} steps, "
              f"max constraint violation {last['max_constraint_violation']:.2e}", file=sys.stderr)
    median = statistics.median(walls)
    print(f"excavator {args.scenario} t_end={last['t_end']:g} s: median wall {median:.2f} s, median CPU "
          f"{statistics.median(cpus):.2f} s over {args.runs} runs "
          f"(min {min(walls):.1f}, max {max(walls):.1f})")
    print(json.dumps({"benchmark": "excavator", "scenario": args.scenario, "t_end_s": last["t_end"],
                      "runs": args.runs, "median_wall_s": round(median, 2), "walls_s": [round(w, 2) for w in walls],
                      "median_cpu_s": round(statistics.median(cpus), 2),
                      "steps": last["steps"], "machine": platform.machine(), "python": platform.python_version(),
                      "date": time.strftime("%Y-%m-%d")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
