"""Post-processing of a clamp locking stroke: bar forces from joint reactions, phases, locking time, stresses.

Sign conventions: bar axial force positive in tension; cylinder force positive pushing (extension); pressures
gauge. Tables and plots use kN, bar, MPa, mm (STYLE.md: SI inside, engineering units at the edges).
"""
from __future__ import annotations

import numpy as np

from .geometry import BAR_LABELS, BARS

CHAMBERS = {"CA": "bore side (A)", "CB": "rod side (B)"}
LINE_NODES = ("P", "VA", "VB", "CA_port", "CB_port")


def bar_axial_force(res, bar: str) -> np.ndarray:
    """Axial force (n,) N of ``bar``, tension positive: mean of the bearing reactions projected on the bar axis.

    At bearing a the joint pushes the bar with ``F_a``, at bearing b with ``F_b``; with ``e`` the unit vector from
    a to b, the tension at a is ``-F_a·e`` and at b ``F_b·e``; their mean is the force at mid-length (the two
    differ by the bar's own axial inertia and weight).
    """
    xa = res[f"marker/{bar}.a/position"]
    xb = res[f"marker/{bar}.b/position"]
    e = (xb - xa) / np.linalg.norm(xb - xa, axis=1, keepdims=True)
    fa = res[f"joint/sph_{bar}_a/force"]
    fb = res[f"joint/sph_{bar}_b/force"]
    return 0.5 * (np.einsum("ij,ij->i", fb, e) - np.einsum("ij,ij->i", fa, e))


def stroke_position(res) -> np.ndarray:
    """Cylinder stroke x (n,) m."""
    return res["element/hydraulics/cylinder.position"]


def locking_time(res, params: dict, tolerance: float = 1.0e-3) -> float | None:
    """Time (s) from the valve command until the stroke is within ``tolerance`` (m) of its end; None if never."""
    x = stroke_position(res)
    if params["stroke_direction"] == "lock":
        done = np.flatnonzero(x >= params["stroke"] - tolerance)
    else:
        done = np.flatnonzero(x <= tolerance)
    if done.size == 0:
        return None
    return float(res.time[done[0]] - params["valve_delay"])


def phase_masks(res, params: dict) -> tuple[np.ndarray, np.ndarray]:
    """Acceleration (valve opening, first half of the stroke) and deceleration (second half, cushion) samples."""
    x = stroke_position(res)
    progress = x / params["stroke"] if params["stroke_direction"] == "lock" else 1.0 - x / params["stroke"]
    first_half_end = np.flatnonzero(progress >= 0.5)
    split = first_half_end[0] if first_half_end.size else res.time.size
    accel = np.arange(res.time.size) < split
    return accel, ~accel


def bar_force_peaks(res, params: dict) -> dict:
    """Peak |axial force| (N) of each bar in the acceleration and deceleration phases and overall."""
    accel, decel = phase_masks(res, params)
    out = {}
    for bar in BARS:
        force = np.abs(bar_axial_force(res, bar))
        out[BAR_LABELS[bar]] = {"acceleration": float(force[accel].max(initial=0.0)),
                                "deceleration": float(force[decel].max(initial=0.0)), "peak": float(force.max())}
    return out


def von_mises(stress: np.ndarray) -> np.ndarray:
    """Von Mises stress (n,) of stress rows (n, 6) ``xx, yy, zz, yz, xz, xy``."""
    sxx, syy, szz, syz, sxz, sxy = stress.T
    return np.sqrt(0.5 * ((sxx - syy) ** 2 + (syy - szz) ** 2 + (szz - sxx) ** 2)
                   + 3.0 * (syz**2 + sxz**2 + sxy**2))


def stress_history(res, model, params: dict, bar: str = "bar_h") -> dict:
    """Stress (Pa) at the stress output node of ``bar``: components (n, 6), von Mises and axial ``σ_xx``.

    Flexible bars: modal stress × modal coordinates (the modal stress matrix of seed 003 §3.2.1.2). Rigid bars:
    the nominal axial stress ``N / A_shank`` (no bending) so that the rigid variant still reports an order of
    magnitude; ``source`` says which.
    """
    body = model.body(bar)
    if getattr(body, "n_modes", 0) and np.asarray(body.flexbody.modal_stress).size:
        modal = np.asarray(body.flexbody.modal_stress)[0][:, body.mode_indices]  # (6, m)
        q = res[f"body/{bar}/modal_coordinates"]
        stress = q @ modal.T
        node_id = int(body.flexbody.node_ids[body.flexbody.output_nodes[0]])
        position = body.flexbody.positions[body.flexbody.output_nodes[0]]
        source = "modal stress"
    else:
        axial = bar_axial_force(res, bar) / (params["bar_width"] * params["bar_height"])
        stress = np.zeros((axial.size, 6))
        stress[:, 0] = axial
        node_id, position, source = -1, np.array([0.5 * params["bar_length"], 0.0, 0.0]), "nominal N/A (rigid bar)"
    return {"components": stress, "von_mises": von_mises(stress), "axial": stress[:, 0], "node_id": node_id,
            "position": np.asarray(position), "source": source}


def end_stop_contact(res, params: dict) -> dict | None:
    """Time (s) and speed (m/s) at which the piston reaches the end stop at the end of the stroke, from the event
    the integrator located at the root of the stop's gap (flexmbs.engine.events), not from an output sample; None if the
    stop was not reached."""
    from flexmbs.engine.events import read_events

    name = "end_stops.upper" if params["stroke_direction"] == "lock" else "end_stops.lower"
    hits = [e for e in read_events(res) if e["name"] == name]
    if not hits:
        return None
    return {"time_s": hits[0]["time"], "speed_m_s": abs(hits[0]["gap_rate"])}


def summary(res, model, params: dict) -> dict:
    """The ``outputs`` of a run (JSON-able), engineering units as named."""
    peaks = bar_force_peaks(res, params)
    stress = stress_history(res, model, params)
    pressures = {node: float(res[f"element/hydraulics/{node}.pressure"].max()) / 1e5
                 for node in (*CHAMBERS, *LINE_NODES)}
    contact = end_stop_contact(res, params)
    return {
        "stroke_direction": params["stroke_direction"],
        "flexible": bool(params["flexible"]),
        "valve_type": params["valve_type"],
        "locking_time_s": locking_time(res, params),
        "final_stroke_mm": float(stroke_position(res)[-1] * 1e3),
        "peak_bar_force_kN": {k: v["peak"] / 1e3 for k, v in peaks.items()},
        "bar_force_phases_kN": {k: {p: v[p] / 1e3 for p in ("acceleration", "deceleration")}
                                for k, v in peaks.items()},
        "peak_cylinder_force_kN": float(np.abs(res["element/hydraulics/cylinder.force"]).max()) / 1e3,
        "max_pressure_bar": pressures,
        "max_line_pressure_bar": max(pressures[n] for n in LINE_NODES),
        "max_speed_m_s": float(np.abs(res["element/hydraulics/cylinder.velocity"]).max()),
        "peak_end_stop_force_kN": float(np.abs(res["force/end_stops/load"]).max()) / 1e3,
        "end_stop_contact_speed_m_s": contact["speed_m_s"] if contact else None,
        "end_stop_contact_time_s": contact["time_s"] if contact else None,
        "max_von_mises_MPa": float(stress["von_mises"].max()) / 1e6,
        "axial_stress_range_MPa": [float(stress["axial"].min()) / 1e6, float(stress["axial"].max()) / 1e6],
        "stress_node": {"id": stress["node_id"], "position_m": stress["position"].tolist(),
                        "source": stress["source"]},
    }
