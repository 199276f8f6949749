"""Stroke figure in the manner of seed 003 Figs. 4-8..4-11: travel, speed and reference, pressures, command, forces."""
from __future__ import annotations

from cases._common import pyplot, save_figure

from .model import travel


def stroke_figure(res, handles: dict, params: dict, settings: dict, path: str) -> str:
    """Four stacked panels over time; returns the PNG path."""
    t = res.time
    s = travel(res[f"element/hydraulics/y/{handles['gap'].name}"], params)
    speed = res["body/platen/velocity"][:, 0]
    ref = res["element/hydraulics/controller.velocity_reference"]
    fig, axes = pyplot().subplots(4, 1, figsize=(8, 10), sharex=True)
    ax = axes[0]
    ax.plot(t, 1e3 * speed, label="platen speed")
    ax.plot(t, 1e3 * ref, "--", label="reference")
    ax.set_ylabel("speed [mm/s]")
    ax2 = ax.twinx()
    ax2.plot(t, s * 1e3, color="0.5", lw=0.8)
    ax2.set_ylabel("travel [mm]", color="0.5")
    ax.legend(loc="lower center")
    axes[1].plot(t, res["element/hydraulics/rod.pressure"] / 1e5, label="rod side (A_r)")
    axes[1].plot(t, res["element/hydraulics/bore.pressure"] / 1e5, label="bore side (A_b)")
    axes[1].set_ylabel("pressure [bar]")
    axes[1].legend()
    axes[2].plot(t, res["element/hydraulics/controller.value"], label="command")
    axes[2].plot(t, 10.0 * res["element/hydraulics/valve.spool"], "--", label="spool (x 10 V)")
    axes[2].set_ylabel("valve [V]")
    axes[2].legend()
    friction = sum(res[f"force/shoe{i}/friction_force"] for i in range(1, 5))
    normal = sum(res[f"force/shoe{i}/normal_force"] for i in range(1, 5))
    axes[3].plot(t, normal / 1e3, label="vertical contacts, normal")
    axes[3].plot(t, friction / 1e3, label="contact friction")
    axes[3].plot(t, res["force/mould/normal_force"] / 1e3, label="mould contact")
    axes[3].set_ylabel("force [kN]")
    axes[3].set_xlabel("time [s]")
    axes[3].legend()
    axes[0].set_title(f"platen-stroke: {params['scenario']}")
    for a in axes:
        a.grid(True, lw=0.3)
    return save_figure(fig, path)


__all__ = ["stroke_figure"]
