"""Benchmark: what the compiled engine's numba compile costs, per dispatcher, from an empty cache.

Usage::

    python benchmarks/compile_profile.py [--case excavator] [--t-end 0.05] [--top 25] [--passes] [--llvm]

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
    parser.add_argument("--signatures", action="store_true",
                        help="also list every function compiled more than once and numba's own, with the argument "
                             "types of each compile")
    parser.add_argument("--passes", action="store_true",
                        help="also split the compile by numba pass (typing, lowering, ...) and LLVM work, per function")
    parser.add_argument("--llvm", action="store_true",
                        help="also split LLVM's work into the optimization of each library's final module and its "
                             "machine code (MCJIT), per library")
    args = parser.parse_args(argv)
    if not args.keep_cache:
        os.environ["FLEXMBS_KERNEL_CACHE"] = tempfile.mkdtemp(prefix="flexmbs-kernels-")
        os.environ["NUMBA_CACHE_DIR"] = os.environ["FLEXMBS_KERNEL_CACHE"]
    load0 = os.getloadavg()[0]
    import flexmbs_jit  # noqa: F401 (first, as in a run: it sets numba up before numba is imported)
    from numba.core import event

    stack, exclusive, counts, signatures = [], {}, {}, {}
    by_pass, by_function = {}, {}  # exclusive CPU per pass name (and "llvm" under numba's LLVM lock); per function

    class Listener(event.Listener):
        """Every compile, pass and LLVM-lock event on one stack: each frame's time without its children's."""
        def __init__(self, kind):
            self.kind = kind

        def on_start(self, ev):
            if self.kind == "compile":
                disp = ev.data["dispatcher"]
                label = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
                caller = next((frame[1] for frame in reversed(stack) if frame[0] == "compile"
                               and not frame[1].startswith("numba.")), "-")
                signatures.setdefault(label, []).append(f"{ev.data.get('args')}  (for {caller})")
            elif self.kind == "pass":
                label = ev.data["name"].split(" [")[0]
            else:
                label = "llvm"
            stack.append([self.kind, label, time.process_time(), 0.0])

        def on_end(self, ev):
            kind, label, start, child = stack.pop()
            spent = time.process_time() - start
            own = spent - child
            if stack:
                stack[-1][3] += spent
            owner = next((frame[1] for frame in reversed(stack) if frame[0] == "compile"), None)
            if kind == "compile":
                exclusive[label] = exclusive.get(label, 0.0) + own
                counts[label] = counts.get(label, 0) + 1
                owner, label = label, "(dispatcher, outside passes)"
            if kind == "llvm" and stack and stack[-1][0] == "pass":  # LLVM work of a pass: kept apart
                label = f"llvm in {stack[-1][1]}"
            by_pass[label] = by_pass.get(label, 0.0) + own
            if owner is not None:
                parts = by_function.setdefault(owner, {})
                parts[label] = parts.get(label, 0.0) + own

    listeners = {"numba:compile": Listener("compile")}
    if args.passes:
        listeners.update({"numba:run_pass": Listener("pass"), "numba:llvm_lock": Listener("llvm")})
    for kind, listener in listeners.items():
        event.register(kind, listener)
    llvm_parts: dict = {}  # (library, "optimize" | "machine code") -> CPU seconds
    if args.llvm:
        from numba.core import codegen

        def timed(method, part):
            def wrapper(self, *a, **k):
                start = time.process_time()
                try:
                    return method(self, *a, **k)
                finally:
                    key = (self.name, part)
                    llvm_parts[key] = llvm_parts.get(key, 0.0) + time.process_time() - start
            return wrapper

        library = codegen.CPUCodeLibrary
        library._optimize_final_module = timed(library._optimize_final_module, "optimize")
        from llvmlite.binding import newpassmanagers

        pipelines = newpassmanagers.ModulePassManager
        run_pipeline = pipelines.run

        def run_timed(self, module, pb):  # numba runs a cheap pipeline (opt 0) then the full one on each library
            start = time.process_time()
            try:
                return run_pipeline(self, module, pb)
            finally:
                key = ("(all)", f"pipeline at opt {pb._pto.speed_level}")
                llvm_parts[key] = llvm_parts.get(key, 0.0) + time.process_time() - start
        pipelines.run = run_timed
        codegen.JITCodeLibrary._finalize_specific = timed(codegen.JITCodeLibrary._finalize_specific, "machine code")
    c0, w0 = time.process_time(), time.perf_counter()
    from flexmbs.catalog.registry import get_case
    get_case(args.case).run({}, t_end=args.t_end)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    for kind, listener in listeners.items():
        event.unregister(kind, listener)
    if args.passes:  # the compile events' exclusive time now holds only what ran outside any pass
        for name, parts in by_function.items():
            exclusive[name] = sum(parts.values())
    total = sum(exclusive.values())
    print(f"{args.case}, t_end {args.t_end} s: {wall:.1f} s wall, {cpu:.1f} s CPU, of it compiling {total:.1f} s CPU "
          f"in {sum(counts.values())} compiles of {len(counts)} functions (load {load0:.2f} -> {os.getloadavg()[0]:.2f})")
    for name, spent in sorted(exclusive.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {spent:7.2f} s  x{counts[name]}  {name}")
        if args.passes:
            parts = sorted(by_function.get(name, {}).items(), key=lambda kv: -kv[1])[:4]
            print("             " + ", ".join(f"{label} {value:.2f}" for label, value in parts))
    if args.signatures:
        print("compiled more than once, and numba's own functions (with the project function that needed them):")
        for name, sigs in sorted(signatures.items(), key=lambda kv: -len(kv[1])):
            if len(sigs) > 1 or name.startswith("numba."):
                print(f"  x{len(sigs)} {name} ({exclusive[name]:.2f} s)")
                for sig in sigs:
                    print(f"      {sig[:400]}")
    if args.passes:
        print("by pass (exclusive CPU, all functions):")
        for label, spent in sorted(by_pass.items(), key=lambda kv: -kv[1])[:15]:
            print(f"  {spent:7.2f} s  {label}")
    if args.llvm:
        for (name, part), spent in sorted(llvm_parts.items()):
            if name == "(all)":
                print(f"LLVM {part}: {spent:.2f} s CPU")
        for part in ("optimize", "machine code"):
            items = {name: v for (name, p), v in llvm_parts.items() if p == part}
            print(f"LLVM {part}: {sum(items.values()):.2f} s CPU in {len(items)} libraries; largest:")
            for name, spent in sorted(items.items(), key=lambda kv: -kv[1])[:12]:
                print(f"  {spent:7.2f} s  {name}")
    print(json.dumps({"benchmark": "compile_profile", "case": args.case, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                      "compile_cpu_s": round(total, 1), "compiles": sum(counts.values()), "functions": len(counts),
                      "load_before": round(load0, 2), "load_after": round(os.getloadavg()[0], 2),
                      "date": time.strftime("%Y-%m-%d %H:%M")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
