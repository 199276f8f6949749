"""Figures of the clamp locking case: mechanism drawing and the equivalents of seed 003 Fig. 3-9, 3-10, 3-11."""
from __future__ import annotations

import math

import numpy as np

from . import geometry
from .analysis import bar_axial_force, stress_history

LABELS = {"bar_h": "horizontal bar", "bar_vop": "vertical bar, operator side", "bar_vnop": "vertical bar, non-op. side"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def stroke_figures(res, model, params: dict, stem: str) -> list[str]:
    """Pressures (Fig. 3-9), cylinder and bar forces (Fig. 3-10), stress history (Fig. 3-11); returns the paths."""
    plt = _pyplot()
    t = res.time
    title = f"{'locking (extension)' if params['stroke_direction'] == 'lock' else 'unlocking (retraction)'}, " \
            f"{'flexible' if params['flexible'] else 'rigid'} bars, {params['valve_type']} valve"
    paths = []

    fig, ax = plt.subplots(figsize=(7, 3.8))
    for node, label in (("CA", "bore side (CA)"), ("CB", "rod side (CB)"), ("P", "valve port P")):
        ax.plot(t, res[f"element/hydraulics/{node}.pressure"] / 1e5, label=label)
    ax.set(xlabel="time [s]", ylabel="pressure [bar]", title=f"Cylinder pressures — {title}")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    paths.append(_save(fig, f"{stem}_pressures.png"))

    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(t, res["element/hydraulics/cylinder.force"] / 1e3, "k", lw=1.2, label="cylinder force (push +)")
    for bar in geometry.BARS:
        ax.plot(t, bar_axial_force(res, bar) / 1e3, label=f"{LABELS[bar]} (tension +)")
    ax.set(xlabel="time [s]", ylabel="force [kN]", title=f"Cylinder and connecting-bar forces — {title}")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    paths.append(_save(fig, f"{stem}_forces.png"))

    stress = stress_history(res, model, params)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.plot(t, stress["von_mises"] / 1e6, label="von Mises")
    ax.plot(t, stress["axial"] / 1e6, label="axial stress σ_xx")
    where = ", ".join(f"{v * 1e3:.0f}" for v in stress["position"])
    ax.set(xlabel="time [s]", ylabel="stress [MPa]",
           title=f"Horizontal bar, node {stress['node_id']} at ({where}) mm — {stress['source']}")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    paths.append(_save(fig, f"{stem}_stress.png"))
    return paths


def _save(fig, path: str) -> str:
    for ax in fig.axes:
        ax.title.set_fontsize(9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    _pyplot().close(fig)
    return path


def mechanism_drawing(params: dict, path: str) -> str:
    """Front view (platen plane) of the mechanism, unlocked (solid) and locked (dashed), dimensions in mm."""
    plt = _pyplot()
    lay = geometry.layout(params)
    rho = lay["rotation"]
    fig, ax = plt.subplots(figsize=(8.2, 6.6))
    colours = {"bar_h": "tab:red", "bar_vop": "tab:blue", "bar_vnop": "tab:green"}
    for name, centre in lay["axes"].items():
        ax.add_patch(plt.Circle(centre, params["piston_outer_radius"], fc="0.92", ec="0.5"))
        ax.add_patch(plt.Circle(centre, params["piston_inner_radius"], fc="0.75", ec="0.4"))
        ax.text(centre[0], centre[1] + 0.02, name.replace("piston", "piston "), ha="center", va="center", fontsize=8)
    for state, style in ((0.0, "-"), (rho, "--")):
        for bar, (near, far) in geometry.BARS.items():
            r = geometry.lug_radius(params, bar)
            a_near, a_far = lay["lugs"][bar]
            p_near = lay["axes"][near] + r * geometry.unit(a_near + state)
            p_far = lay["axes"][far] + r * geometry.unit(a_far + geometry.far_rotation(
                state, lay["axes"][far] - lay["axes"][near], params["bar_length"], r, a_near, a_far))
            for axis, pin in ((lay["axes"][near], p_near), (lay["axes"][far], p_far)):
                ax.plot(*np.c_[axis, pin], style, color="0.3", lw=1)
            ax.plot(*np.c_[p_near, p_far], style, color=colours[bar], lw=3 if style == "-" else 1.5,
                    label=LABELS[bar] if state == 0.0 else None)
            ax.plot(*np.c_[p_near, p_far], "o", color=colours[bar], ms=4)
        cyl = lay["cylinder"]
        pin = lay["axes"]["piston4"] + cyl["crank_radius"] * geometry.unit(cyl["crank_start_angle"] + state)
        ax.plot(*np.c_[lay["axes"]["piston4"], pin], style, color="0.3", lw=1)
        ax.plot(*np.c_[cyl["base"], pin], style, color="tab:purple", lw=6 if style == "-" else 2,
                label="locking cylinder" if state == 0.0 else None, solid_capstyle="butt")
    ax.plot(*cyl["base"], "s", color="tab:purple")
    a, b = 0.5 * params["tie_bar_spacing_x"], 0.5 * params["tie_bar_spacing_y"]
    ax.annotate("", (-a, b + 0.55), (a, b + 0.55), arrowprops={"arrowstyle": "<->"})
    ax.text(0, b + 0.6, f"{params['tie_bar_spacing_x'] * 1e3:.0f} mm", ha="center")
    ax.annotate("", (a + 0.75, -b), (a + 0.75, b), arrowprops={"arrowstyle": "<->"})
    ax.text(a + 0.8, 0, f"{params['tie_bar_spacing_y'] * 1e3:.0f} mm", rotation=90, va="center")
    ax.set_xlim(-a - 1.1, a + 1.0)
    ax.set_aspect("equal")
    ax.set(xlabel="X [m] (operator side +X)", ylabel="Y [m] (up)",
           title=f"Clamp locking mechanism, front view: unlocked (solid), locked (dashed, "
                 f"{math.degrees(rho):+.0f}° piston rotation)")
    ax.title.set_fontsize(9)
    ax.legend(loc="center", fontsize=8)
    ax.grid(alpha=0.2)
    fig.tight_layout()
    fig.savefig(path, dpi=70)
    plt.close(fig)
    return path
