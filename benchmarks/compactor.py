"""Benchmark: ``flexmbs run compactor --set scenario=vibrating`` (2 s, front exciter at 50 Hz), target < 60 s wall.

Usage::

    python benchmarks/compactor.py [--runs 1] [--scenario vibrating] [--t-end 2]

Times the whole case run (model, static pose, time integration, sensor signals and estimation, no file output) in
this process, splits off the simulation time, and prints the solver statistics, the machine load and one JSON line
for docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--scenario", default="vibrating")
    parser.add_argument("--t-end", type=float, default=None)
    args = parser.parse_args(argv)

    from cases.compactor import run

    walls, sims, last = [], [], None
    load_before = os.getloadavg()[0]
    for k in range(args.runs):
        t0 = time.perf_counter()
        last = run({"scenario": args.scenario}, t_end=args.t_end)
        walls.append(time.perf_counter() - t0)
        sims.append(last["outputs"]["simulation_wall_s"])
        print(f"run {k + 1}: {walls[-1]:.1f} s wall ({sims[-1]:.1f} s simulation), {last['steps']} steps",
              file=sys.stderr)
    out = last["outputs"]
    print(f"compactor {args.scenario} t_end={last['t_end']:g} s: median wall {statistics.median(walls):.1f} s "
          f"(simulation {statistics.median(sims):.1f} s), load average {load_before:.1f} -> {os.getloadavg()[0]:.1f}")
    for key in ("FX", "FY", "CZ21", "CZ22"):
        print(f"  {key}: rms error {out[key + '_rms_error']:.3g} of amplitude {out[key + '_amplitude']:.4g}")
    print(json.dumps({"benchmark": "compactor", "scenario": args.scenario, "t_end_s": last["t_end"],
                      "runs": args.runs, "median_wall_s": round(statistics.median(walls), 2),
                      "median_simulation_s": round(statistics.median(sims), 2), "steps": last["steps"],
                      "samples": out["samples"], "load_average": round(load_before, 1),
                      "machine": f"{platform.machine()}, {os.cpu_count()} cores", "python": platform.python_version(),
                      "date": time.strftime("%Y-%m-%d")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
