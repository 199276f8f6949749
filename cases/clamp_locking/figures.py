"""Figures of the clamp locking case: the equivalents of seed 003 Fig. 3-9, 3-10, 3-11."""
from __future__ import annotations

from cases._common import pyplot, save_figure

from . import geometry
from .analysis import bar_axial_force, stress_history

LABELS = {"bar_h": "horizontal bar", "bar_vop": "vertical bar, operator side", "bar_vnop": "vertical bar, non-op. side"}


def stroke_figures(res, model, params: dict, stem: str) -> list[str]:
    """Pressures (Fig. 3-9), cylinder and bar forces (Fig. 3-10), stress history (Fig. 3-11); returns the paths."""
    plt = pyplot()
    t = res.time
    title = f"{'locking (extension)' if params['stroke_direction'] == 'lock' else 'unlocking (retraction)'}, " \
            f"{'flexible' if params['flexible'] else 'rigid'} bars, {params['valve_type']} valve"
    paths = []

    ax = plt.subplots(figsize=(7, 3.8))[1]
    for node, label in (("CA", "bore side (CA)"), ("CB", "rod side (CB)"), ("P", "valve port P")):
        ax.plot(t, res[f"element/hydraulics/{node}.pressure"] / 1e5, label=label)
    ax.set(xlabel="time [s]", ylabel="pressure [bar]", title=f"Cylinder pressures — {title}")
    paths.append(_save(ax, f"{stem}_pressures.png"))

    ax = plt.subplots(figsize=(7, 3.8))[1]
    ax.plot(t, res["element/hydraulics/cylinder.force"] / 1e3, "k", lw=1.2, label="cylinder force (push +)")
    for bar in geometry.BARS:
        ax.plot(t, bar_axial_force(res, bar) / 1e3, label=f"{LABELS[bar]} (tension +)")
    ax.set(xlabel="time [s]", ylabel="force [kN]", title=f"Cylinder and connecting-bar forces — {title}")
    paths.append(_save(ax, f"{stem}_forces.png"))

    stress = stress_history(res, model, params)
    ax = plt.subplots(figsize=(7, 3.8))[1]
    ax.plot(t, stress["von_mises"] / 1e6, label="von Mises")
    ax.plot(t, stress["axial"] / 1e6, label="axial stress σ_xx")
    where = ", ".join(f"{v * 1e3:.0f}" for v in stress["position"])
    ax.set(xlabel="time [s]", ylabel="stress [MPa]",
           title=f"Horizontal bar, node {stress['node_id']} at ({where}) mm — {stress['source']}")
    paths.append(_save(ax, f"{stem}_stress.png"))
    return paths


def _save(ax, path: str) -> str:
    """Grid, legend and a 9-point title on the figure's one axes; writes and closes the figure."""
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    ax.title.set_fontsize(9)
    return save_figure(ax.figure, path)
