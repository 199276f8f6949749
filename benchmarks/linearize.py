"""Linearization cost (seed 002 §4.6): the four-bar's minimal Jacobian vs the conventional central-difference
Jacobian (eq. 95-100), and the clamp-locking model (3 x 19 elastic coordinates + circuit) vs one simulated stroke.

Run: ``OMP_NUM_THREADS=1 python benchmarks/linearize.py`` (from the repository root). Prints one line per figure.
The clamp-locking part needs the cached bar reduction (about a minute the first time).
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import flexmbs as fm  # noqa: E402


def _best(fun, repeat=3):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fun()
        times.append(time.perf_counter() - t0)
    return min(times), out


def fourbar():
    from cases.fourbar_hydraulic import build_model

    model, *_ = build_model()
    lin = fm.linearize(model, at="static", coordinates=["joint/O1/rotation"])
    op = lin.operating_point
    point = fm.OperatingPoint(op.t, op.q, op.v, op.z, kind="state")
    t_min, lin = _best(lambda: fm.linearize(model, at=point, coordinates=["joint/O1/rotation"]))
    t_conv, (J, _) = _best(lambda: fm.conventional_jacobian(lin, step=1e-7))
    print(f"four-bar minimal Jacobian {lin.A.shape[0]}x{lin.A.shape[1]}: {t_min:.3f} s; conventional "
          f"{J.shape[0]}x{J.shape[1]}: {t_conv:.3f} s ({t_conv / t_min:.1f}x); seed 002: 0.005 s vs 0.016 s (3x, "
          "MATLAB, other hardware)")


def clamp_locking():
    from cases.clamp_locking import parameters
    from cases.clamp_locking.simulation import build_model

    p = parameters()
    model, _ = build_model(p)
    t0 = time.perf_counter()
    res = fm.simulate(model, p["t_end"], rtol=p["rtol"], max_step=2e-3, output_interval=p["output_interval"])
    t_stroke = time.perf_counter() - t0
    if not res.success:
        raise SystemExit(f"clamp-locking stroke failed: {res.message}")
    for t in (0.3, 0.6):
        t0 = time.perf_counter()
        lin = fm.linearize(model, at=(res, t), inputs={"valve_command": "element/hydraulics/command"},
                           outputs={"p_bore": "element/hydraulics/CA.pressure"})
        t_lin = time.perf_counter() - t0
        lam = lin.eigenvalues()
        osc = np.sort(np.abs(lam.imag[lam.imag > 0])) / (2 * np.pi)
        info = lin.info
        print(f"clamp-locking at t = {t} s: {info['n_coordinates']} coordinates, {info['n_constraints']} constraints,"
              f" {info['n_states_elements']} circuit states -> {lin.n_states} states; linearization {t_lin:.2f} s vs "
              f"one stroke ({p['t_end']} s) {t_stroke:.1f} s; lowest oscillating modes "
              f"{', '.join(f'{f:.1f}' for f in osc[:4])} Hz")


if __name__ == "__main__":
    fourbar()
    if "--fourbar-only" not in sys.argv:
        clamp_locking()
