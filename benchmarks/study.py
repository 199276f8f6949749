"""Benchmark: a 16-variant clamp-locking study on a local Dask cluster vs 16 × one run (parallel efficiency).

Usage::

    python benchmarks/study.py [--workers 2] [--valve 0.05,0.07,0.11,0.13] [--stiffness 0.5,1,2,5] [--t-end T]
                               [--rigid] [-o /tmp/study-benchmark]

The study runs the grid valve_response_time × stiffness_scale (4 × 4 = 16 flexible variants by default) with an
empty reduction cache (``$FLEXMBS_CACHE`` set to a fresh folder), so the study itself builds the bar reduction —
once, whichever worker comes first, while the other waits on the cache lock — and every worker reads it once and
keeps it (``CACHE_STATS`` of each worker, collected with ``Client.run``). Then one variant (nominal) is run in this
process the way ``flexmbs run clamp-locking -o X`` runs it (cache on disk, nothing in memory), which gives
"16 × one run". Prints the figures and one JSON line for docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time


def _cache_stats():
    from cases.clamp_locking.flexbars import CACHE_STATS

    return dict(CACHE_STATS)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--valve", default="0.05,0.07,0.11,0.13", help="valve_response_time values, s")
    parser.add_argument("--stiffness", default="0.5,1,2,5", help="stiffness_scale values")
    parser.add_argument("--t-end", type=float, default=None)
    parser.add_argument("--rigid", action="store_true", help="rigid bars (quick check of the set-up)")
    parser.add_argument("-o", "--out", default=os.path.join(tempfile.gettempdir(), "flexmbs-study-benchmark"))
    args = parser.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # this checkout, also on workers

    from distributed import Client, LocalCluster

    import flexmbs
    from cases.clamp_locking import run
    from cases.clamp_locking import flexbars

    shutil.rmtree(args.out, ignore_errors=True)
    cache = os.path.join(args.out, "cache")
    os.makedirs(cache)
    os.environ["FLEXMBS_CACHE"] = cache  # inherited by the worker processes: the reduction starts from nothing
    variations = {"valve_response_time": [float(v) for v in args.valve.split(",")],
                  "stiffness_scale": [float(v) for v in args.stiffness.split(",")]}
    fixed = {"flexible": not args.rigid}
    n_variants = len(variations["valve_response_time"]) * len(variations["stiffness_scale"])
    load0 = os.getloadavg()

    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, silence_logs=40)
    client = Client(cluster)
    try:
        t0 = time.perf_counter()
        result = flexmbs.study("clamp-locking", variations, fixed=fixed, t_end=args.t_end,
                               out=os.path.join(args.out, "study"), client=client)
        study_wall = time.perf_counter() - t0
        stats = client.run(_cache_stats)
    finally:
        client.close()
        cluster.close()
    if not result.success:
        print(f"study incomplete: {result}", file=sys.stderr)
        return 1

    flexbars._BODIES.clear()  # one run as `flexmbs run` does it: the reduction from the disk cache, nothing in memory
    t0 = time.perf_counter()
    one = run({**fixed}, t_end=args.t_end, out=os.path.join(args.out, "one.results.h5"))
    one_wall = time.perf_counter() - t0
    load1 = os.getloadavg()

    totals = {k: sum(s[k] for s in stats.values()) for k in ("reduced", "read", "reused", "reduce_s")}
    speedup = n_variants * one_wall / study_wall
    runs_wall = study_wall - totals["reduce_s"]  # the other workers wait on the cache lock meanwhile
    speedup_runs = n_variants * one_wall / runs_wall
    table = result.table
    print(f"{n_variants}-variant clamp-locking study ({'rigid' if args.rigid else 'flexible'} bars, "
          f"t_end {one['t_end']:g} s) on {args.workers} workers: {study_wall:.1f} s wall (first reduction included)")
    print(f"one run: {one_wall:.1f} s → {n_variants} × one run = {n_variants * one_wall:.1f} s; speed-up "
          f"{speedup:.2f}, parallel efficiency {speedup / args.workers:.0%}; without the one reduction "
          f"({totals['reduce_s']:.1f} s): speed-up {speedup_runs:.2f}, efficiency {speedup_runs / args.workers:.0%}")
    busy = table["wall_s"].sum() / (args.workers * study_wall)  # Dask overhead and idle workers lower it
    print(f"per-variant wall on the workers: median {table['wall_s'].median():.1f} s "
          f"(min {table['wall_s'].min():.1f}, max {table['wall_s'].max():.1f}); workers busy {busy:.0%} of the "
          "study's wall time")
    print(f"bar reduction cache: {totals['reduced']} reduction(s), {totals['read']} file read(s), "
          f"{totals['reused']} in-memory reuse(s) over {len(stats)} workers: {stats}")
    print(f"load average (1 min) before {load0[0]:.1f}, after {load1[0]:.1f}")
    print(json.dumps({"benchmark": "study", "variants": n_variants, "workers": args.workers,
                      "study_wall_s": round(study_wall, 1), "one_run_wall_s": round(one_wall, 1),
                      "speedup": round(speedup, 2), "efficiency": round(speedup / args.workers, 3),
                      "reduction_s": round(totals["reduce_s"], 1), "workers_busy": round(busy, 3),
                      "efficiency_without_reduction": round(speedup_runs / args.workers, 3),
                      "reductions": totals["reduced"], "cache_reads": totals["read"], "reuses": totals["reused"],
                      "load_before": round(load0[0], 1), "load_after": round(load1[0], 1),
                      "machine": platform.machine(), "cores": os.cpu_count(), "python": platform.python_version(),
                      "date": time.strftime("%Y-%m-%d")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
