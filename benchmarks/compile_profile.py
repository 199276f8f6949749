"""Benchmark: what the compiled engine's numba compile costs, per dispatcher, from an empty cache.

Usage::

    python benchmarks/compile_profile.py [--case excavator] [--t-end 0.05] [--top 25]

Runs one case for a short time in a fresh process with an empty kernel cache (a temporary ``FLEXMBS_KERNEL_CACHE``)
and prints the total compile CPU time, the number of compiles, and the dispatchers that took longest (exclusive
time: a dispatcher's own compile without the callees it compiled on the way), then one JSON line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="excavator")
    parser.add_argument("--t-end", type=float, default=0.05)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--keep-cache", action="store_true", help="use the existing cache (a warm run)")
    args = parser.parse_args(argv)
    if not args.keep_cache:
        os.environ["FLEXMBS_KERNEL_CACHE"] = tempfile.mkdtemp(prefix="flexmbs-kernels-")
        os.environ["NUMBA_CACHE_DIR"] = os.environ["FLEXMBS_KERNEL_CACHE"]
    load0 = os.getloadavg()[0]
    from numba.core import event

    stack, exclusive, counts = [], {}, {}

    class Listener(event.Listener):
        def on_start(self, ev):
            stack.append([ev.data["dispatcher"], time.process_time(), 0.0])

        def on_end(self, ev):
            disp, start, child = stack.pop()
            spent = time.process_time() - start
            name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
            exclusive[name] = exclusive.get(name, 0.0) + spent - child
            counts[name] = counts.get(name, 0) + 1
            if stack:
                stack[-1][2] += spent

    listener = Listener()
    event.register("numba:compile", listener)
    c0, w0 = time.process_time(), time.perf_counter()
    from flexmbs.catalog.registry import get_case
    get_case(args.case).run({}, t_end=args.t_end)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    event.unregister("numba:compile", listener)
    total = sum(exclusive.values())
    print(f"{args.case}, t_end {args.t_end} s: {wall:.1f} s wall, {cpu:.1f} s CPU, of it compiling {total:.1f} s CPU "
          f"in {sum(counts.values())} compiles of {len(counts)} functions (load {load0:.2f} -> {os.getloadavg()[0]:.2f})")
    for name, spent in sorted(exclusive.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {spent:7.2f} s  x{counts[name]}  {name}")
    print(json.dumps({"benchmark": "compile_profile", "case": args.case, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                      "compile_cpu_s": round(total, 1), "compiles": sum(counts.values()), "functions": len(counts),
                      "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2),
                      "date": time.strftime("%Y-%m-%d %H:%M")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
