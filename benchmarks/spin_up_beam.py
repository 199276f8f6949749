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
from cases.spin_up_beam.corotational import spin_up_tip_deflection  # noqa: E402
from fem.beam import rectangular_section  # noqa: E402
from fem.model import frame_model  # noqa: E402
from reduction import reduce  # noqa: E402

L_BEAM, EA, EI, RHO_A, TS, T_END = 10.0, 2.8e7, 1.4e4, 1.2, 15.0, 20.0


def hub_angle(t, omega_s):
    if t < TS:
        return omega_s / TS * (t * t / 2.0 + (TS / (2.0 * np.pi)) ** 2 * (np.cos(2.0 * np.pi * t / TS) - 1.0))
    return omega_s * (t - TS / 2.0)


def body(geometric: bool):
    side = np.sqrt(12.0 * EI / EA)
    x = np.linspace(0.0, L_BEAM, 21)
    model = frame_model(np.column_stack([x, 0 * x, 0 * x]), np.column_stack([np.arange(20), np.arange(1, 21)]),
                        rectangular_section(side, side), f"E={EA / side**2},nu=0.3,rho={RHO_A / side**2}")
    model.add_interface_node("root", 0)
    model.add_interface_node("tip", 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reduce(model, ["root", "tip"], 6, compare_modes=0, geometric_stiffness=geometric)


def run(flexbody, omega_s):
    model = fm.Model("spin-up beam")
    beam = model.add_flexible_body("beam", flexbody)
    hub = model.add_joint("revolute", model.add_marker(model.ground, "hub"), model.add_marker(beam, "r", node="root"),
                          name="hub")
    hub.prescribe(position=lambda t: hub_angle(t, omega_s))
    model.add_marker(beam, "tip", node="tip")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fm.simulate(model, T_END, output_interval=0.005)
    angle = np.array([hub_angle(t, omega_s) for t in res.time])
    tip = res["marker/tip/position"]
    return res.time, -np.sin(angle) * tip[:, 0] + np.cos(angle) * tip[:, 1], res.success, res.message


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
