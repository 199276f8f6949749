"""Figures of the compactor case: estimated against simulated contact forces and torques."""
from __future__ import annotations

import numpy as np

from cases._common import pyplot, save_figure

__all__ = ["plot_comparison"]

LABELS = {"FX": ("FX21 + FX22 (along z17, down)", "kN", 1e-3), "FY": ("FY21 + FY22 (along z18, forward)", "kN", 1e-3),
          "CZ21": ("CZ21 (about the drum axis)", "kN m", 1e-3), "CZ22": ("CZ22 (about the drum axis)", "kN m", 1e-3)}


def plot_comparison(time, truth: dict, estimate: dict, path: str, noisy: dict | None = None,
                    window: float | None = 0.1, title: str = "") -> str:
    """Four panels: simulated truth, estimate from ideal sensors (and from noisy, filtered sensors); the last
    ``window`` seconds (all if None). Writes a PNG at ``path``."""
    sel = time >= time[-1] - window if window else np.ones(time.size, dtype=bool)
    fig, axes = pyplot().subplots(4, 1, figsize=(8, 9), sharex=True)
    for ax, key in zip(axes, ("FX", "FY", "CZ21", "CZ22")):
        label, unit, scale = LABELS[key]
        ax.plot(time[sel], truth[key][sel] * scale, "k-", lw=2.0, label="simulated (truth)")
        ax.plot(time[sel], estimate[key][sel] * scale, "C1--", lw=1.2, label="estimate, ideal sensors")
        if noisy is not None:
            ax.plot(time[sel], noisy[key][sel] * scale, "C0:", lw=1.0, label="estimate, noisy sensors")
        ax.set_ylabel(f"{key} [{unit}]")
        ax.set_title(label, fontsize=9)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper right")
    axes[-1].set_xlabel("time [s]")
    if title:
        fig.suptitle(title, fontsize=10)
    return save_figure(fig, path, dpi=80)
