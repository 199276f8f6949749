"""Benchmark: one closing stroke of the platen-stroke case (seed 003 ch. 4), about 5 s of motion in 6.5 s simulated;
target <= 30 s wall on the 2-core reference machine (the thesis' co-simulation: about 10 min).

Usage::

    python benchmarks/platen_stroke.py [--runs 3] [--set key=value ...]

Each timed run is what ``flexmbs run platen-stroke`` does without a results file: model assembly, time integration
and the summary. Prints each run's wall and CPU time, the median, and one JSON line for docs/benchmarks.md.
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
    parser.add_argument("--set", dest="assignments", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)

    from cases.platen_stroke import run

    changes = dict(item.split("=", 1) for item in args.assignments)
    walls, cpus, last = [], [], None
    for k in range(args.runs):
        t0, c0 = time.perf_counter(), time.process_time()
        last = run(changes)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
        out = last["outputs"]
        print(f"run {k + 1}: {walls[-1]:.1f} s wall, {cpus[-1]:.1f} s CPU, {last['steps']} steps, stroke time "
              f"{out['stroke_time_s']:.3f} s, peak speed {out['peak_velocity_m_s'] * 1e3:.0f} mm/s", file=sys.stderr)
    median = statistics.median(walls)
    print(f"platen-stroke {out['scenario']}, t_end={last['t_end']:g} s: median wall {median:.1f} s over {args.runs} "
          f"runs (min {min(walls):.1f}, max {max(walls):.1f}); median CPU {statistics.median(cpus):.1f} s")
    print(json.dumps({"benchmark": "platen_stroke", "scenario": out["scenario"], "t_end_s": last["t_end"],
                      "runs": args.runs, "median_wall_s": round(median, 2), "walls_s": [round(w, 2) for w in walls],
                      "cpu_s": [round(c, 2) for c in cpus], "steps": last["steps"],
                      "stroke_time_s": out["stroke_time_s"], "machine": platform.machine(),
                      "python": platform.python_version(), "date": time.strftime("%Y-%m-%d")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
