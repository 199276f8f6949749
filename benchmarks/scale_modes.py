"""Cost per step vs number of elastic coordinates: the slider crank of ``slider_crank_flex.py`` with the rod reduced
to 14, 60 and 150 elastic coordinates (8, 54, 144 fixed-interface modes + 12 interface modes − 6 rigid).

For each size, CPU time (``process_time``: the machine is shared, wall times would measure the load) of

* one residual evaluation of the compiled engine (``Evaluator.residual``: kinematics, markers, mass matrix, forces,
  constraints),
* one Newton-matrix evaluation (``Evaluator.blocks``: forward differences of the compiled residual),
* one LU of the Newton iteration matrix (n_q + n_c unknowns),
* steps of at most 2e-4 s on the compiled engine (``simulate``, its start included): CPU per step and per Newton
  iteration,
* recording one output sample (``finish.record_sample``: consistent reactions from the acceleration-level equations and
  the recorder), which ``simulate`` does after every accepted step by default.

Usage::

    python benchmarks/scale_modes.py [--sizes 8,54,144] [--steps 100]
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

H = 2e-4  # s, fixed step of the per-step measurement


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


def measure(n_fixed: int, n_steps: int) -> dict:
    import scipy.linalg as sla
    from threadpoolctl import threadpool_limits

    from flexmbs.engine.evaluate import evaluator
    from flexmbs.engine.start import consistent_start as _consistent_start
    from flexmbs.engine.system import System

    rod = reduced_rod(n_fixed)
    model = bench.build(rod)
    system = System(model)
    s = _consistent_start(system, False, True)
    n = system.n_q + system.n_c
    with threadpool_limits(1, user_api="blas"):
        ev = evaluator(system, s.q, s.v, s.z)  # the run's compiled residual and Newton blocks
        residual = per_call(lambda: ev.residual(0.0, s.q, s.v, s.qdd, s.z, s.lam))
        jacobian = per_call(lambda: ev.blocks(0.0, s.q, s.v, s.qdd, s.z, s.lam), 1.0)
        mat = np.random.default_rng(0).random((n, n)) + n * np.eye(n)
        lu = per_call(lambda: sla.lu_factor(mat, check_finite=False))
    from flexmbs.engine.recorder import Recorder
    from flexmbs.engine.finish import record_sample as _record
    from flexmbs.engine.solver import simulate

    with threadpool_limits(1, user_api="blas"):
        # steps of at most H on the one (compiled) engine, its start included; one sample at the end
        c0 = time.process_time()
        res = simulate(bench.build(rod), n_steps * H, initial_step=H, max_step=H, output_interval=n_steps * H)
        steps = max(int(res.statistics["steps"]), 1)
        iterations = max(int(res.statistics["newton_iterations"]), 1)
        step_cpu = (time.process_time() - c0) / steps
        state = res.final_state
        recorder, stats = Recorder(system, None, {}), {"max_constraint_violation": 0.0}
        record = per_call(lambda: _record(recorder, system, state, H, 2, stats))
    return {"elastic": int(rod.n_modes), "n_q": system.n_q, "unknowns": n, "residual_us": 1e6 * residual,
            "jacobian_ms": 1e3 * jacobian, "lu_us": 1e6 * lu, "newton_per_step": iterations / steps,
            "step_ms": 1e3 * step_cpu, "newton_ms": 1e3 * step_cpu * steps / iterations, "record_ms": 1e3 * record,
            "step_with_record_ms": 1e3 * (step_cpu + record)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="8,54,144", help="fixed-interface modes per size")
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args(argv)
    rows = [measure(int(k), args.steps) for k in args.sizes.split(",")]
    head = ("elastic", "n_q", "unknowns", "residual_us", "jacobian_ms", "lu_us", "newton_per_step", "step_ms",
            "newton_ms", "record_ms", "step_with_record_ms")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(f"{r[h]:.3g}" if isinstance(r[h], float) else str(r[h]) for h in head) + " |")


if __name__ == "__main__":
    main()
