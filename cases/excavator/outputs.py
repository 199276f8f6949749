"""Post-processing of the excavator runs: summary numbers, CSV tables and the figures of seed 001 §5.

Figures (PNG, bar/kN/mm only here): configuration with the bucket-tip path (Fig. 10, 14), energies (Fig. 11),
cylinder extensions and valve openings (Fig. 12, 13), chamber pressures (Fig. 15), cylinder velocities (Fig. 16),
reactions in joints A, D, G (Fig. 17), base motion (Fig. 18), bucket-tip velocity (Fig. 19), and for the flexible
boom its stress history.
"""
from __future__ import annotations

import math
import os

import numpy as np

from cases._common import pyplot, save_figure

from . import geometry as geo
from .mechanics import CYLINDER_NAMES
from .plotting import new_figure, write_csv

__all__ = ["output_folder", "summarise", "write_outputs", "draw_configuration", "frame_points", "pose_points",
           "configuration_figure", "compare_tip_paths", "tip_velocity", "base_motion", "energy_drift", "tip_travel",
           "BODY_OUTLINES"]

CHAMBER_KEYS = ("boom", "stick", "bucket")
# pins joined by lines to draw each body (marker names "<body>.<pin>")
BODY_OUTLINES = {
    "base": ["base.R", "base.A", "base.B", "base.Q", "base.R"],
    "boom": ["boom.A", "boom.C", "boom.D", "boom.E", "boom.A"],
    "stick": ["stick.F", "stick.D", "stick.I", "stick.G", "stick.I", "stick.H", "stick.F"],
    "bucket": ["bucket.G", "bucket.J", "bucket.L", "bucket.G"],
    "rocker": ["stick.I", "rocker.K"],
    "bucket_link": ["rocker.K", "bucket.J"],
}
CYLINDER_PINS = {c: (f"{c}_tube.@", f"{c}_rod.@") for c in CYLINDER_NAMES}


def output_folder(results_path: str) -> str:
    """``<results path without .results.h5>_outputs``."""
    base = results_path[:-len(".results.h5")] if results_path.endswith(".results.h5") else results_path
    return base + "_outputs"


def tip_velocity(res) -> np.ndarray:
    """Bucket-tip velocity (n, 2), m/s: ``v_G + omega x (r_L - r_G)`` from the bucket frame's motion."""
    origin = res["body/bucket/position"][:, :2]
    v_origin = res["body/bucket/velocity"][:, :2]
    omega = res["body/bucket/angular_velocity"][:, 2]
    d = res["marker/bucket.L/position"][:, :2] - origin
    return v_origin + np.column_stack([-omega * d[:, 1], omega * d[:, 0]])


def base_motion(res, p: dict) -> dict[str, np.ndarray]:
    """Centre of mass ``x``, ``y`` (m) and rotation (rad) of the base (seed 001 Fig. 18)."""
    e = res["body/base/orientation"]
    angle = 2.0 * np.arctan2(e[:, 3], e[:, 0])
    com = np.asarray(geo.CENTRES_OF_MASS["base"])
    origin = res["body/base/position"][:, :2]
    c, s = np.cos(angle), np.sin(angle)
    return {"x": origin[:, 0] + c * com[0] - s * com[1], "y": origin[:, 1] + s * com[0] + c * com[1],
            "rotation": angle}


def tip_travel(res) -> float:
    """Length of the bucket-tip path, m."""
    xy = res["marker/bucket.L/position"][:, :2]
    return float(np.sum(np.linalg.norm(np.diff(xy, axis=0), axis=1)))


def energy_drift(res) -> dict:
    """Energies per sample and the drift of the total relative to the largest change of the potential energy."""
    energy = res.energy()
    potential = energy["gravity"] + energy["springs"]
    total = energy["total"]
    change = float(np.max(np.abs(potential - potential[0])))
    drift = float(np.max(np.abs(total - total[0])))
    return {"energy": energy, "potential_change_J": change, "drift_J": drift,
            "drift_rel": drift / change if change > 0 else float("nan")}


def _window_extension(res, key: str, t0: float, t1: float) -> float:
    """Cylinder extension (m) between ``t0`` and ``t1``."""
    x = res[f"element/{key}/cylinder.position"]
    return float(np.interp(t1, res.time, x) - np.interp(t0, res.time, x))


def summarise(res, handles: dict, p: dict, flex_info: dict | None = None) -> dict:
    """The ``outputs`` dictionary of the case's JSON summary (SI inside; bar, kN, MPa as the keys say)."""
    out = {"scenario": p["scenario"], "bucket_tip_travel_m": tip_travel(res),
           "tip_final_position_m": res["marker/bucket.L/position"][-1, :2].tolist()}
    if p["scenario"].startswith("free-fall"):
        drift = energy_drift(res)
        out.update({"energy_drift_rel": drift["drift_rel"], "energy_drift_J": drift["drift_J"],
                    "potential_energy_change_J": drift["potential_change_J"]})
        strokes = {cyl: res[f"joint/{cyl}/translation"] for cyl in CYLINDER_NAMES}
        out["cylinder_length_change_m"] = {cyl: [float(s.min() - s[0]), float(s.max() - s[0])]
                                           for cyl, s in strokes.items()}
        return out
    pressures = {f"{key}_{chamber}": float(np.max(res[f"element/{key}/{chamber}.pressure"])) / 1e5
                 for key in CHAMBER_KEYS for chamber in ("A", "B")}
    out["max_pressure_bar"] = max(pressures.values())
    out["max_chamber_pressure_bar"] = pressures
    out["relief_cracking_bar"] = (1.0 + p["relief_margin"]) * p["supply_pressure"] / 1e5
    out["max_joint_force_kN"] = {j: float(np.max(np.linalg.norm(res[f"joint/{j}/force"][:, :2], axis=1))) / 1e3
                                 for j in ("A", "D", "G")}
    out["stick_extension_m"] = _window_extension(res, "stick", p["stick_valve_on"], p["stick_valve_off"])
    out["bucket_extension_m"] = _window_extension(res, "bucket", p["bucket_valve_on"], p["bucket_valve_off"])
    out["boom_length_change_mm"] = float(np.ptp(res["element/boom/cylinder.position"])) * 1e3
    out["max_digging_force_kN"] = float(np.max(res["force/digging/magnitude"])) / 1e3
    out["max_slice_thickness_m"] = float(np.max(res["force/digging/slice_thickness"]))
    out["max_tip_speed_m_s"] = float(np.max(np.linalg.norm(tip_velocity(res), axis=1)))
    base = base_motion(res, p)
    out["base_excursion_mm"] = {k: float(np.ptp(base[k])) * 1e3 for k in ("x", "y")}
    out["base_rotation_range_deg"] = math.degrees(float(np.ptp(base["rotation"])))
    if flex_info is not None:
        from .flexboom import stress_summary

        out.update(stress_summary(res, flex_info))
    return out


def draw_configuration(ax, points: dict, style: dict | None = None, labels: bool = False) -> None:
    """Draw the bodies as lines between their pins (``points``: marker name -> (2,) m) on ``ax``."""
    style = style or {}
    colours = {"base": "0.4", "boom": "tab:orange", "stick": "tab:blue", "bucket": "tab:green",
               "rocker": "tab:purple", "bucket_link": "tab:purple"}
    for body, names in BODY_OUTLINES.items():
        xy = np.array([points[n] for n in names])
        ax.plot(xy[:, 0], xy[:, 1], "-", color=colours[body], lw=style.get("lw", 2.0), alpha=style.get("alpha", 1))
    for tube, rod in CYLINDER_PINS.values():
        xy = np.array([points[tube], points[rod]])
        ax.plot(xy[:, 0], xy[:, 1], "-", color="tab:red", lw=style.get("lw", 2.0) * 2.0, alpha=style.get("alpha", 1))
    if labels:
        for name, xy in points.items():
            pin = name.split(".")[-1]
            if pin not in ("@",) and len(pin) == 1:
                ax.annotate(pin, xy, textcoords="offset points", xytext=(4, 4), fontsize=9)


def frame_points(res, k: int) -> dict:
    """Marker positions (2,) at sample ``k``."""
    names = {n for outline in BODY_OUTLINES.values() for n in outline}
    names |= {n for pair in CYLINDER_PINS.values() for n in pair}
    return {n: res[f"marker/{n}/position"][k, :2] for n in names}


def write_outputs(res, handles: dict, p: dict, folder: str, flex_info: dict | None = None) -> list[str]:
    """CSV tables and PNG figures of the run into ``folder``; returns the file paths."""
    files = [_plot_trajectory(res, p, folder)]
    t = res.time
    tip = res["marker/bucket.L/position"]
    if p["scenario"].startswith("free-fall"):
        drift = energy_drift(res)
        e = drift["energy"]
        files.append(write_csv(os.path.join(folder, "energy.csv"), {
            "time [s]": t, "kinetic [J]": e["kinetic"], "gravity [J]": e["gravity"], "springs [J]": e["springs"],
            "total [J]": e["total"], "tip x [m]": tip[:, 0], "tip y [m]": tip[:, 1]}))
        fig, (ax,) = new_figure()
        for key, label in (("kinetic", "1 kinetic"), ("gravity", "2 potential (gravity)"), ("total", "3 total")):
            ax.plot(t, (e[key] - (e["gravity"][0] if key != "kinetic" else 0.0)) / 1e3, label=label)
        ax.set(xlabel="time [s]", ylabel="energy [kJ] (potential relative to t = 0)",
               title=f"free fall: energies (seed 001 Fig. 11), drift {drift['drift_rel']:.1e} of |dU|")
        ax.legend()
        files.append(save_figure(fig, os.path.join(folder, "energy.png")))
        return files
    files += _digging_outputs(res, p, folder)
    if flex_info is not None:
        from .flexboom import write_stress_outputs

        files += write_stress_outputs(res, flex_info, folder)
    return files


def _plot_trajectory(res, p: dict, folder: str) -> str:
    fig, (ax,) = new_figure(height=5.0)
    n = res.time.size
    for k in np.linspace(0, n - 1, 6).astype(int):
        draw_configuration(ax, frame_points(res, k), {"lw": 1.2, "alpha": 0.35 + 0.65 * k / max(1, n - 1)})
    tip = res["marker/bucket.L/position"]
    ax.plot(tip[:, 0], tip[:, 1], "k--", lw=1.2, label="bucket tip L")
    if not p["scenario"].startswith("free-fall"):
        ax.axhline(p["ground_y"], color="saddlebrown", lw=1.0, label="ground line")
    ax.set_aspect("equal")
    ax.set(xlabel="x [m]", ylabel="y [m]", title=f"{p['scenario']}: configurations and bucket-tip path")
    ax.legend(loc="lower left", fontsize=8)
    return save_figure(fig, os.path.join(folder, "trajectory.png"))


def _digging_outputs(res, p: dict, folder: str) -> list[str]:
    from .circuits import valve_opening_table

    t = res.time
    files = []
    # Fig. 12, 13: extensions and valve openings
    fig, axes = new_figure(2)
    for key in ("stick", "bucket", "boom"):
        axes[0].plot(t, res[f"element/{key}/cylinder.position"] * 1e3, label=key)
        times, values = valve_opening_table(p, key)
        axes[1].plot(np.concatenate([times, [t[-1]]]), np.concatenate([values, [values[-1]]]) * 1e3, label=key)
    axes[0].set(ylabel="stroke [mm]", title="cylinder strokes (Fig. 12) and valve openings x_v (Fig. 13)")
    axes[1].set(xlabel="time [s]", ylabel="x_v [mm]")
    axes[0].legend()
    files.append(save_figure(fig, os.path.join(folder, "strokes_valves.png")))
    # Fig. 15: pressures
    fig, (ax,) = new_figure(height=4.0)
    columns = {"time [s]": t}
    for key in ("stick", "bucket", "boom"):
        for chamber in ("A", "B"):
            pr = res[f"element/{key}/{chamber}.pressure"]
            columns[f"{key} p_{chamber} [Pa]"] = pr
            ax.plot(t, pr / 1e5, label=f"{key} {'bore' if chamber == 'A' else 'rod'} side")
    ax.axhline((1 + p["relief_margin"]) * p["supply_pressure"] / 1e5, color="k", ls=":", label="PRV cracking")
    ax.axhline(p["supply_pressure"] / 1e5, color="0.5", ls="--", label="supply")
    ax.set(xlabel="time [s]", ylabel="pressure [bar]", title="chamber pressures (seed 001 Fig. 15)")
    ax.legend(fontsize=7, ncol=2)
    files.append(save_figure(fig, os.path.join(folder, "pressures.png")))
    files.append(write_csv(os.path.join(folder, "pressures.csv"), columns))
    # Fig. 16: cylinder velocities
    fig, (ax,) = new_figure()
    columns = {"time [s]": t}
    for key in ("stick", "bucket", "boom"):
        v = res[f"element/{key}/cylinder.velocity"]
        columns[f"{key} velocity [m/s]"] = v
        ax.plot(t, v * 1e3, label=key)
    ax.set(xlabel="time [s]", ylabel="velocity [mm/s]", title="cylinder velocities (seed 001 Fig. 16)")
    ax.legend()
    files.append(save_figure(fig, os.path.join(folder, "cylinder_velocities.png")))
    files.append(write_csv(os.path.join(folder, "cylinder_velocities.csv"), columns))
    # Fig. 17: joint reactions
    fig, (ax,) = new_figure(height=4.0)
    columns = {"time [s]": t}
    for joint in ("A", "D", "G"):
        f = res[f"joint/{joint}/force"]
        for k, comp in enumerate("xy"):
            columns[f"{joint} F{comp} [N]"] = f[:, k]
            ax.plot(t, f[:, k] / 1e3, label=f"{joint} {comp}")
    ax.set(xlabel="time [s]", ylabel="force [kN]", title="reactions in joints A, D, G on boom, stick, bucket (Fig. 17)")
    ax.legend(ncol=3, fontsize=8)
    files.append(save_figure(fig, os.path.join(folder, "joint_forces.png")))
    files.append(write_csv(os.path.join(folder, "joint_forces.csv"), columns))
    # Fig. 18: base motion
    base = base_motion(res, p)
    fig, axes = new_figure(2)
    axes[0].plot(t, (base["x"] - base["x"][0]) * 1e3, label="1 x")
    axes[0].plot(t, (base["y"] - base["y"][0]) * 1e3, label="2 y")
    axes[0].set(ylabel="displacement [mm]", title="base centre of mass and rotation (seed 001 Fig. 18)")
    axes[0].legend()
    axes[1].plot(t, np.degrees(base["rotation"]), label="3 rotation")
    axes[1].set(xlabel="time [s]", ylabel="rotation [deg]")
    files.append(save_figure(fig, os.path.join(folder, "base_motion.png")))
    files.append(write_csv(os.path.join(folder, "base_motion.csv"), {
        "time [s]": t, "x [m]": base["x"], "y [m]": base["y"], "rotation [rad]": base["rotation"]}))
    # Fig. 19: tip velocity, digging force
    v = tip_velocity(res)
    fig, axes = new_figure(2)
    axes[0].plot(t, v[:, 0], label="1 x")
    axes[0].plot(t, v[:, 1], label="2 y")
    axes[0].plot(t, np.linalg.norm(v, axis=1), label="3 |v|")
    axes[0].set(ylabel="velocity [m/s]", title="bucket-tip velocity (seed 001 Fig. 19) and digging force")
    axes[0].legend()
    axes[1].plot(t, res["force/digging/magnitude"] / 1e3, label="P [kN]")
    axes[1].plot(t, res["force/digging/slice_thickness"] * 1e3 / 10, label="h [cm]")
    axes[1].set(xlabel="time [s]", ylabel="P [kN], h [cm]")
    axes[1].legend()
    files.append(save_figure(fig, os.path.join(folder, "tip_velocity.png")))
    tip = res["marker/bucket.L/position"]
    files.append(write_csv(os.path.join(folder, "tip.csv"), {
        "time [s]": t, "x [m]": tip[:, 0], "y [m]": tip[:, 1], "vx [m/s]": v[:, 0], "vy [m/s]": v[:, 1],
        "digging force [N]": res["force/digging/magnitude"],
        "slice thickness [m]": res["force/digging/slice_thickness"]}))
    return files


def pose_points(pose: dict, p: dict) -> dict:
    """Marker-style names -> (2,) positions of a :func:`geometry.pose` (for :func:`draw_configuration`)."""
    pts = pose["points"]
    out = {"base.Q": np.array([p["front_x"], p["ground_y"]]), "base.R": np.array([p["rear_x"], p["ground_y"]])}
    for body, pins in (("base", "AB"), ("boom", "ACDE"), ("stick", "DFGHI"), ("bucket", "GJL"), ("rocker", "K")):
        for pin in pins:
            out[f"{body}.{pin}"] = pts[pin]
    for cyl, (_, tube_pin, _, rod_pin) in geo.CYLINDERS.items():
        out[f"{cyl}_tube.@"], out[f"{cyl}_rod.@"] = pts[tube_pin], pts[rod_pin]
    return out


def configuration_figure(p: dict, path: str, pose: dict | None = None) -> str:
    """The labelled configuration drawing of seed 001 Fig. 4 in the digging pose (docs/cases/excavator.png)."""
    from .mechanics import initial_pose, start_pose

    fig, (ax,) = new_figure(height=4.6)
    pose = pose or initial_pose(p)
    ff = start_pose(p, "free-fall")
    draw_configuration(ax, pose_points(ff, p), {"lw": 1.0, "alpha": 0.25})
    draw_configuration(ax, pose_points(pose, p), labels=True)
    y = p["ground_y"]
    ax.axhline(y, color="saddlebrown", lw=1.0)
    for x, label in ((p["front_x"], "QU"), (p["rear_x"], "RS")):
        ax.plot([x, x], [y - 0.5, y], "k:", lw=1.0)
        ax.annotate(label, (x, y - 0.5), textcoords="offset points", xytext=(3, -10), fontsize=8)
    ax.plot([p["front_x"] - 0.7, p["front_x"]], [y - 0.15, y - 0.15], "k:", lw=1.0)
    ax.annotate("QT", (p["front_x"] - 0.7, y - 0.15), textcoords="offset points", xytext=(-14, -4), fontsize=8)
    ax.set_aspect("equal")
    ax.set(xlabel="x [m] (origin at the boom foot pin A)", ylabel="y [m]",
           title="excavator: digging start pose (solid), free-fall start (faint)")
    return save_figure(fig, path)


def compare_tip_paths(res_full, res_light, folder: str) -> str:
    """Bucket-tip paths of the two free-fall variants (seed 001 Fig. 10a, 10b) and their distance over time."""
    fig, (ax, ax2) = pyplot().subplots(1, 2, figsize=(9.0, 4.2))
    for res, label, style in ((res_full, "a) all 12 bodies with inertia", "-"),
                              (res_light, "b) only boom, stick, bucket with inertia", "--")):
        tip = res["marker/bucket.L/position"]
        ax.plot(tip[:, 0], tip[:, 1], style, label=label)
        ax.plot(tip[-1, 0], tip[-1, 1], "o", color=ax.lines[-1].get_color())
    ax.set(xlabel="x [m]", ylabel="y [m]", title="bucket-tip paths in free fall")
    ax.legend(fontsize=7)
    t = res_full.time
    light = np.column_stack([np.interp(t, res_light.time, res_light["marker/bucket.L/position"][:, k])
                             for k in range(2)])
    ax2.plot(t, np.linalg.norm(res_full["marker/bucket.L/position"][:, :2] - light, axis=1) * 1e3)
    ax2.set(xlabel="time [s]", ylabel="distance [mm]", title="distance between the two tip positions")
    return save_figure(fig, os.path.join(folder, "tip_paths_variants.png"))
