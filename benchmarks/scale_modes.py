"""Cost per step vs number of elastic coordinates: the slider crank of ``slider_crank_flex.py`` with the rod reduced
to 14, 60 and 150 elastic coordinates (8, 54, 144 fixed-interface modes + 12 interface modes − 6 rigid).

For each size, CPU time (``process_time``; the machine is shared, wall times are printed next to it) of

* one residual evaluation (``System.residual``: kinematics, markers, mass matrix, forces, constraints),
* one finite-difference Jacobian (``jacobian.finite_difference_blocks``: 2 n_q + 1 residual-type evaluations),
* one LU of the Newton iteration matrix (n_q + n_c unknowns),
* runs of 0.05 s and 0.15 s at rtol 3e-4: CPU per accepted step and per Newton iteration from their difference
  (recording every step included; the start - consistent state, elastic relaxation, first Jacobian - is
  ``start_cpu_s``; ``steps``/``newton`` are the differences, ``cpu_s``/``wall_s`` the long run's totals).

Usage::

    python benchmarks/scale_modes.py [--sizes 8,54,144] [--t-end 0.05]
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import slider_crank_flex as bench  # noqa: E402


def reduced_rod(n_fixed: int):
    from fem.model import solid_model
    from reduction.reduce import reduce

    model = solid_model(bench.hexahedral_rod(), "aluminium")
    eps = 1e-9
    model.add_reference_node("A", f"box:{-eps},-1,-1,{eps},1,1", "rbe2", point=(0.0, 0.0, 0.0))
    model.add_reference_node("B", f"box:{bench.ROD_LENGTH - eps},-1,-1,{bench.ROD_LENGTH + eps},1,1", "rbe2",
                             point=(bench.ROD_LENGTH, 0.0, 0.0))
    return reduce(model, ["A", "B"], n_fixed, name="rod", compare_modes=0)


def per_call(func, min_cpu: float = 0.3) -> float:
    """CPU seconds per call of ``func`` (repeated until ``min_cpu`` of CPU time)."""
    func()
    n, start = 0, time.process_time()
    while time.process_time() - start < min_cpu:
        func()
        n += 1
    return (time.process_time() - start) / n


def measure(n_fixed: int, t_end_short: float) -> dict:
    import scipy.linalg as sla
    from threadpoolctl import threadpool_limits

    import flexmbs as fm
    from flexmbs.jacobian import finite_difference_blocks
    from flexmbs.solver import _consistent_start
    from flexmbs.system import System

    rod = reduced_rod(n_fixed)
    model = bench.build(rod)
    system = System(model)
    s = _consistent_start(system, False, True)
    n = system.n_q + system.n_c
    with threadpool_limits(1, user_api="blas"):
        residual = per_call(lambda: system.residual(s.q, s.v, s.qdd, s.z, s.lam, 0.0))
        jacobian = per_call(lambda: finite_difference_blocks(system, s.q, s.v, s.qdd, s.z, s.lam, 0.0), 1.0)
        mat = np.random.default_rng(0).random((n, n)) + n * np.eye(n)
        lu = per_call(lambda: sla.lu_factor(mat, check_finite=False))
    runs = []
    for t_end in (t_end_short, 3.0 * t_end_short):  # the difference removes the start (consistent state, relaxation)
        w0, c0 = time.perf_counter(), time.process_time()
        res = fm.simulate(bench.build(rod), t_end, rtol=3e-4, atol=3e-7, rho_inf=0.4)
        st = res.statistics
        runs.append((time.perf_counter() - w0, time.process_time() - c0, st["steps"], st["newton_iterations"],
                     st["jacobian_evaluations"]))
    (w1, c1, s1, n1, j1), (w3, c3, s3, n3, j3) = runs
    return {"elastic": int(rod.n_modes), "n_q": system.n_q, "unknowns": n, "residual_us": 1e6 * residual,
            "jacobian_ms": 1e3 * jacobian, "lu_us": 1e6 * lu, "steps": int(s3 - s1), "newton": int(n3 - n1),
            "jacobians": int(j3 - j1), "cpu_ms_per_step": 1e3 * (c3 - c1) / max(1, s3 - s1),
            "cpu_ms_per_newton": 1e3 * (c3 - c1) / max(1, n3 - n1), "start_cpu_s": c1 - (c3 - c1) / 2.0,
            "wall_s": w3, "cpu_s": c3}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,54,144", help="fixed-interface modes per size")
    parser.add_argument("--t-end", type=float, default=0.05)
    args = parser.parse_args(argv)
    rows = [measure(int(k), args.t_end) for k in args.sizes.split(",")]
    head = ("elastic", "n_q", "unknowns", "residual_us", "jacobian_ms", "lu_us", "steps", "newton", "jacobians",
            "cpu_ms_per_step", "cpu_ms_per_newton", "start_cpu_s", "cpu_s", "wall_s")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(f"{r[h]:.3g}" if isinstance(r[h], float) else str(r[h]) for h in head) + " |")


if __name__ == "__main__":
    main()
