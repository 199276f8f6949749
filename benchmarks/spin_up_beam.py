"""The spin-up beam (Kane, Ryan & Banerjee 1987; Simo & Vu-Quoc 1986) with and without geometric stiffness,
against the co-rotational reference of ``cases/spin_up_beam/corotational.py`` (issue 28).

Run: ``OMP_NUM_THREADS=1 python benchmarks/spin_up_beam.py [--plot docs/img/spin-up-beam.png]`` from the repository
root. Prints one line per run (peak tip deflection in the hub frame, its time, the amplitude after Ts) and, with
``--plot``, draws the tip-deflection histories. About a minute on the 2-core machine.
"""
from __future__ import annotations

import os
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import numpy as np  # noqa: E402

import flexmbs as fm  # noqa: E402
from cases.spin_up_beam import build_body, build_model, parameters, tip_deflection  # noqa: E402
from cases.spin_up_beam.corotational import spin_up_tip_deflection  # noqa: E402

TS, T_END = 15.0, 20.0  # s: the benchmark's spin-up time and run length (the case's defaults)


def body(geometric: bool):
    return build_body(parameters({"geometric_stiffness": geometric}))


def run(flexbody, omega_s):
    p = parameters({"omega_s": omega_s, "t_spin": TS})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fm.simulate(build_model(p, flexbody), T_END, output_interval=0.005)
    return res.time, tip_deflection(res, p), res.success, res.message


def summary(t, d):
    k = int(np.argmax(np.abs(d)))
    return d[k], t[k], np.abs(d[t > TS]).max() if np.any(t > TS) else np.nan


def main(plot: str | None) -> None:
    bodies = {"with geometric stiffness": body(True), "linear floating frame": body(False)}
    curves = {}
    for omega_s in (4.0, 6.0, 10.0):
        ref = spin_up_tip_deflection(omega_s, ts=TS, t_end=T_END, n_elements=40)
        peak, at, after = summary(ref[:, 0], ref[:, 1])
        print(f"Ωs = {omega_s:4.1f} rad/s  reference (co-rotational, 40 el.): peak {peak:+.4f} m at {at:.3f} s, "
              f"|d| after Ts ≤ {after:.4f} m")
        curves[omega_s] = {"reference": (ref[:, 0], ref[:, 1])}
        for label, flexbody in bodies.items():
            t0 = time.perf_counter()
            t, d, ok, message = run(flexbody, omega_s)
            p, a, aft = summary(t, d)
            state = "completed" if ok else f"FAILED ({message})"
            print(f"    {label:<26} peak {p:+.4f} m ({100 * (p / peak - 1):+5.1f} %) at {a:.3f} s "
                  f"({a - at:+.2f} s), |d| after Ts ≤ {aft:.4f} m, {state}, {time.perf_counter() - t0:.1f} s")
            curves[omega_s][label] = (t, d)
    if plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(13, 3.8), sharex=True)
        for ax, (omega_s, runs) in zip(axes, curves.items()):
            for label, (t, d) in runs.items():
                ax.plot(t, d, label=label, lw=1.6 if label == "reference" else 1.1,
                        ls="-" if label != "linear floating frame" else "--")
            ax.set_title(f"Ωs = {omega_s:g} rad/s")
            ax.set_xlabel("time [s]")
            ax.grid(alpha=0.3)
        axes[0].set_ylabel("tip deflection in the hub frame [m]")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(plot, dpi=110)
        print(f"figure: {plot}")


if __name__ == "__main__":
    main(sys.argv[sys.argv.index("--plot") + 1] if "--plot" in sys.argv else None)
