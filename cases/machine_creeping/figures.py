"""Figure of the machine-creeping results: R(t) of the three scenarios (seed 003 Fig. 5-7 b, 5-8, 5-9), the
spectra of the lateral pad force, and the displacement per cycle vs μ (Table 5-2).

``python -m cases.machine_creeping.figures HIST_DIR OUT.png``: reads ``hist_<scenario>.npz`` files (time, Fx, Fz)
written by :func:`save_histories` and the scenarios' JSON summaries ``<scenario>.json``.
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

from cases._common import pyplot, save_figure

from .creep import force_ratio
from .simulation import HIGH_PASS_HZ, PEAK_SEARCH_HZ, TABLE_MU, high_pass_spectrum

SEED_PEAKS = {"normal-cycle": 0.2, "emergency-stop": 0.5, "impact": 1.4}  # seed 003 L7759-7765
SEED_TABLE = {"emergency-stop": (0.0, 0.0, 0.0, 0.0, 0.9, 7.0, 17.2), "impact": (0.4, 1.0, 3.0, 6.1, 10.2, 15.6, 25.5)}


def save_histories(result: dict, folder: str) -> None:
    """Write a scenario's histories (npz) and summary (json) as the figure reads them."""
    os.makedirs(folder, exist_ok=True)
    scenario = result["scenario"]
    np.savez(os.path.join(folder, f"hist_{scenario}.npz"), **result["histories"])
    summary = {k: v for k, v in result.items() if k != "histories"}
    with open(os.path.join(folder, f"{scenario}.json"), "w") as fh:
        json.dump(summary, fh, indent=1, default=float)


def figure(folder: str, out: str, start_time: float) -> None:
    fig, axes = pyplot().subplots(1, 3, figsize=(13, 3.8))
    for scenario, colour in (("normal-cycle", "C0"), ("emergency-stop", "C1"), ("impact", "C3")):
        path = os.path.join(folder, f"hist_{scenario}.npz")
        if not os.path.exists(path):
            continue
        h = np.load(path)
        keep = h["time"] >= start_time
        t, fx, fz = h["time"][keep], h["Fx"][keep], h["Fz"][keep]
        axes[0].plot(t, force_ratio(fx, fz), colour, lw=0.8,
                     label=f"{scenario} (seed peak {SEED_PEAKS[scenario]:g})")
        f, spec = high_pass_spectrum(t, fx)
        band = f <= 40.0
        axes[1].plot(f[band], spec[band] / spec[band].max(), colour, lw=0.9, label=scenario)
        summary = os.path.join(folder, f"{scenario}.json")
        if os.path.exists(summary) and scenario != "normal-cycle":
            with open(summary) as fh:
                table = json.load(fh)["outputs"]["displacement_per_cycle_mm"]
            axes[2].semilogy(TABLE_MU, [max(table[f"{m:.1f}"], 1e-3) for m in TABLE_MU], "o-", color=colour,
                             label=f"{scenario} (ours)")
            axes[2].semilogy(TABLE_MU, [max(v, 1e-3) for v in SEED_TABLE[scenario]], "x--", color=colour,
                             label=f"{scenario} (seed Table 5-2)")
    axes[0].axhline(0.8, color="k", lw=0.6, ls=":")
    axes[0].set(xlabel="time [s]", ylabel="R = ΣF_lateral / ΣF_vertical", title="pad force ratio")
    axes[0].legend(fontsize=7)
    axes[1].axvline(8.2, color="k", lw=0.6, ls=":")
    axes[1].axvline(PEAK_SEARCH_HZ, color="0.6", lw=0.6, ls="--")
    axes[1].set(xlabel="frequency [Hz]", ylabel="normalized |FFT|",
                title=f"spectrum of ΣF_lateral (high-pass {HIGH_PASS_HZ:g} Hz)")
    axes[1].legend(fontsize=7)
    axes[2].set(xlabel="floor μ", ylabel="displacement per cycle [mm] (0 drawn at 1e-3)", title="Table 5-2 form")
    axes[2].legend(fontsize=7)
    save_figure(fig, out)


if __name__ == "__main__":
    from . import DEFAULTS

    figure(sys.argv[1], sys.argv[2], DEFAULTS["start_time"])
