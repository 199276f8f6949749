"""Benchmark: the cost of a user's Python elements on the one engine (issue 41, item 4): the machine-creeping case
with its pads and lateral guides as compiled kernels and again as Python callbacks (the same classes without their
``compiled_force``), the same scenario and tolerances.

Usage::

    python benchmarks/callback_cost.py [--t-end 0.3] [--set key=value ...]

Prints, for both runs, the CPU time (process time), the load before and after, steps, Jacobian evaluations,
residual evaluations and the Python element evaluations per step and per Jacobian (the callback's own columns:
:mod:`flexmbs.engine.callbacks`), and the ratio of CPU times. One JSON line at the end for docs/benchmarks.md.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time


def _run(p, structure, t_end, python: bool) -> dict:
    import flexmbs as fm
    from cases.machine_creeping.guides import LateralGuide
    from cases.machine_creeping.machine import build_machine
    from cases.machine_creeping.pads import PadSet
    from flexmbs.engine import callbacks

    saved = {cls: cls.__dict__["compiled_force"] for cls in (PadSet, LateralGuide) if "compiled_force" in cls.__dict__}
    parts = []
    init = callbacks.PythonParts.__init__

    def keep(self, *args, **kwargs):
        init(self, *args, **kwargs)
        parts.append(self)

    callbacks.PythonParts.__init__ = keep
    try:
        if python:
            for cls in saved:
                delattr(cls, "compiled_force")
        model, _ = build_machine(structure, p, p["scenario"])
        load0 = os.getloadavg()[0]
        c0 = time.process_time()
        res = fm.simulate(model, t_end, rtol=p["rtol"], atol=1e-6, output_interval=p["output_interval"])
        cpu = time.process_time() - c0
        load1 = os.getloadavg()[0]
    finally:
        callbacks.PythonParts.__init__ = init
        for cls, method in saved.items():
            setattr(cls, "compiled_force", method)
    s = res.statistics
    calls = sum(part.calls for part in parts)
    n_python = sum(len(part.forces) for part in parts)
    return {"python_callbacks": python, "python_force_elements": n_python, "success": bool(res.success),
            "cpu_s": cpu, "load": [load0, load1], "steps": int(s["steps"]), "jacobians": int(s["jacobian_evaluations"]),
            "residuals": int(s["residual_evaluations"]), "element_calls": calls,
            "calls_per_step": calls / max(int(s["steps"]), 1), "n_q": int(res.system.n_q), "t_end": float(res.time[-1])}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=0.3)
    parser.add_argument("--set", dest="assignments", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    from cases.machine_creeping import parameters
    from cases.machine_creeping.structure import reduced_structure

    p = parameters(dict(item.split("=", 1) for item in args.assignments))
    structure = reduced_structure(p)
    for python in (False, True):  # warm-up: the first run of a process loads the kernels (not the subject here)
        _run(p, structure, 0.005, python)
    runs = [_run(p, structure, args.t_end, python) for python in (False, True)]
    for r in runs:
        kind = "Python callbacks" if r["python_callbacks"] else "kernels"
        print(f"{kind}: {r['cpu_s']:.1f} s CPU (load {r['load'][0]:.1f} -> {r['load'][1]:.1f}), {r['steps']} steps, "
              f"{r['jacobians']} Jacobians, {r['residuals']} residuals, {r['python_force_elements']} Python force "
              f"elements, {r['element_calls']} element evaluations ({r['calls_per_step']:.1f} per step), "
              f"n_q {r['n_q']}", file=sys.stderr)
    ratio = runs[1]["cpu_s"] / runs[0]["cpu_s"]
    print(f"CPU ratio callbacks / kernels: {ratio:.2f}", file=sys.stderr)
    print(json.dumps({"benchmark": "callback_cost", "t_end": args.t_end, "ratio": ratio, "runs": runs,
                      "date": time.strftime("%Y-%m-%d")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
