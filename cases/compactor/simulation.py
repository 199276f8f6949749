"""Run a compactor scenario: simulate, read the "sensor" signals and the true contact wrench, estimate, compare.

Sensors are ideal at the recorded samples: the consistent accelerations ``q̈`` of each recorded state (the
acceleration-level equations ``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]``) give the accelerometer and angular-acceleration
signals; joint accelerations are the time derivative of the joint rates along ``(q̇, q̈)`` (central difference,
``ε = 1e-6 s``, error ~ (Ωε)² ≈ 1e-7 relative).
"""
from __future__ import annotations

import time

import numpy as np

from fem.errors import ModelError
from flexmbs.catalog.parameters import override_defaults

from cases._common import run_summary, simulate_run

from .estimator import SENSOR_NOISE_KEYS, add_noise, estimate_contact, identified_parameters
from .machine import GRAVITY, build_machine, static_front_load

__all__ = ["parameters", "run_case", "simulate_scenario", "sensor_signals", "amplitude_at", "compare"]

SCENARIOS = ("static", "vibrating", "driving")


def parameters(overrides: dict) -> dict:
    from .declaration import DEFAULTS, NAME

    p = override_defaults(NAME, DEFAULTS, overrides,
                          {"scenario": SCENARIOS, "surface": ("flat", "step"), "support": ("soil", "rigid")})
    if not 0.0 < p["exciter_frequency"] <= 100.0:
        raise ModelError(f"{NAME}: exciter_frequency must be in (0, 100] Hz (the class runs at 40-65 Hz)")
    return p


def simulate_scenario(p: dict, t_end: float | None = None, out: str | None = None, progress: bool = False):
    """Build and simulate; returns ``(results, tree_model, parts)``."""
    tm, parts = build_machine(p, support=p["support"])
    t_end = float(p["t_end"] if t_end is None else t_end)
    res = simulate_run("compactor", tm.model, t_end, p, out, progress, rtol=float(p["rtol"]), atol=float(p["atol"]),
                       rho_inf=float(p["rho_inf"]), output_interval=float(p["output_interval"]))
    return res, tm, parts


def _joint_coordinates(tm, ctx, links):
    """Value and rate, two (len(links),) arrays, of the default coordinate of each joint of ``links`` at ``ctx``."""
    out = []
    for j in links:
        joint = tm.joints[j]
        value, _, _, rate = joint.coordinate(joint.default_coordinate(), ctx.marker(joint.marker_i),
                                             ctx.marker(joint.marker_j))
        out.append((value, rate))
    return np.array(out).T


def sensor_signals(res, tm, parts, eps: float = 1e-6):
    """Sensor signals (dict of (n,) arrays, see :func:`estimate_contact`) and the true contact wrench (``FX, FY,
    CZ21, CZ22``, same convention) at every recorded sample."""
    from flexmbs.engine.initial import initial_accelerations
    from flexmbs.model.rotations import g_matrix

    system = res.system
    links = (17, 18, 19, 20, 21, 22, 23)
    # the sensors of eq. (19)-(22) (each has its noise level) and the silent blocs' accelerations
    s = {k: np.empty(res.time.size) for k in (*SENSOR_NOISE_KEYS, "qdd17", "qdd18")}
    truth = {k: np.empty(res.time.size) for k in ("FX", "FY", "CZ21", "CZ22")}
    g = tm.model.gravity
    for n, t in enumerate(res.time):
        q, v, z = res.states["q"][n], res.states["v"][n], res.states["z"][n]
        qdd = initial_accelerations(system, q, v, z, t)[0]  # consistent q̈ on the run's compiled residual
        ctx = system.context(q, v, t)
        values, rates = _joint_coordinates(tm, ctx, links)
        plus = _joint_coordinates(tm, system.context(q + eps * v + 0.5 * eps**2 * qdd, v + eps * qdd, t + eps), links)
        minus = _joint_coordinates(tm, system.context(q - eps * v + 0.5 * eps**2 * qdd, v - eps * qdd, t - eps), links)
        acc = (plus[1] - minus[1]) / (2.0 * eps)
        for k, j in enumerate(links):
            for key, val in ((f"q{j}", values[k]), (f"qd{j}", rates[k]), (f"qdd{j}", acc[k])):
                if key in s:
                    s[key][n] = val
        for j in (19, 20):  # engine supports: angular rate/acceleration about the drum axis, in the link frame
            body = tm.body_of_link[j - 1]
            kin = ctx.kin[body.index]
            p_dd = qdd[body.offset + 3:body.offset + 7]
            omega_dot = 2.0 * g_matrix(kin.p / np.linalg.norm(kin.p)) @ p_dd  # body axes (G(ṗ) ṗ = 0)
            R_link = tm.frames[j].local_orientation  # link frame in body axes
            if j == 20:
                s["wz20"][n] = (R_link.T @ kin.omega)[2]
                a_link = (kin.A @ R_link).T @ (qdd[body.offset:body.offset + 3] - g)  # accelerometer: a − g
                s["vdx20"][n], s["vdy20"][n] = a_link[0], a_link[1]
            s[f"wdz{j}"][n] = (R_link.T @ omega_dot)[2]
        drives = tm.loads.outputs(ctx)
        force = np.zeros(3)
        for j in (21, 22):
            s[f"gamma{j}"][n] = drives[f"joint{j}/drive"]
            o = parts["contacts"][j].outputs(ctx)
            force += np.array([o["Fx"], o["Fy"], 0.0])
            z_axis = ctx.marker(tm.frames[j]).R[:, 2]
            truth[f"CZ{j}"][n] = -z_axis[2] * o["axis_moment"]  # moment BY the drum ON the road about its axis
        truth["FX"][n] = -ctx.marker(tm.frames[17]).R[:, 2] @ force  # force BY the drum ON the road, along z17
        truth["FY"][n] = -ctx.marker(tm.frames[18]).R[:, 2] @ force
    s["q23"] = np.unwrap(s["q23"])
    return s, truth


def amplitude_at(time, signal, frequency: float, t_start: float) -> float:
    """Amplitude (signal units) of the harmonic at ``frequency`` (Hz) over ``t ≥ t_start``: least-squares fit of
    ``a + b cos ωt + c sin ωt`` (the samples need not be uniform)."""
    sel = time >= t_start
    w = 2.0 * np.pi * frequency * time[sel]
    basis = np.column_stack([np.ones(w.size), np.cos(w), np.sin(w)])
    coef, *_ = np.linalg.lstsq(basis, signal[sel], rcond=None)
    return float(np.hypot(coef[1], coef[2]))


def _rms(x):
    return float(np.sqrt(np.mean(np.square(x))))


def compare(s, truth, x, time, p):
    """Estimate from clean (and, if ``p['noise']``, noisy) sensors; RMS errors relative to each signal's amplitude."""
    est = estimate_contact(s, x)
    out = {"estimate": est}
    if p["noise"] and time.size > 1:
        out["estimate_noisy"] = estimate_contact(add_noise(s, p, time), x)
    stats = {}
    for key in ("FX", "FY", "CZ21", "CZ22"):
        ref = truth[key]
        stats[f"{key}_rms_error"] = _rms(est[key] - ref)
        stats[f"{key}_amplitude"] = 0.5 * float(np.ptp(ref)) if ref.size else 0.0
        stats[f"{key}_mean_true"] = float(np.mean(ref))
        stats[f"{key}_mean_estimate"] = float(np.mean(est[key]))
        if "estimate_noisy" in out:
            stats[f"{key}_rms_error_noisy"] = _rms(out["estimate_noisy"][key] - ref)
    out["stats"] = stats
    return out


def run_case(overrides: dict, t_end, out, progress) -> dict:
    start = time.perf_counter()
    p = parameters(overrides)
    res, tm, parts = simulate_scenario(p, t_end, out, progress)
    sim_wall = time.perf_counter() - start
    s, truth = sensor_signals(res, tm, parts)
    x = identified_parameters(parts["params"])
    comparison = compare(s, truth, x, res.time, p)
    outputs = dict(comparison["stats"])
    if p["figure"]:
        from .figures import plot_comparison

        title = (f"compactor, scenario {p['scenario']}, {p['exciter_frequency']:g} Hz, m_e e = "
                 f"{p['eccentric_moment']:g} kg m")
        outputs["figure"] = plot_comparison(res.time, truth, comparison["estimate"], p["figure"],
                                            comparison.get("estimate_noisy"), float(p["figure_window"]) or None,
                                            title)
    outputs.update({
        "scenario": p["scenario"], "support": p["support"],
        "static_front_load_N": static_front_load(p),
        "exciter_force_amplitude_N": p["eccentric_moment"] * (2.0 * np.pi * p["exciter_frequency"]) ** 2,
        "virtual_bodies": list(tm.virtual), "virtual_mass_kg": p["virtual_mass"],
        "simulation_wall_s": sim_wall, "samples": int(res.time.size), "results_file": out,
        "gravity_m_s2": GRAVITY,
    })
    t0 = p["exciter_ramp"] + 0.1
    if p["scenario"] != "static" and res.time[-1] > t0:
        for key in ("FX", "FY"):
            for kind, signal in (("estimate", comparison["estimate"][key]), ("true", truth[key])):
                outputs[f"{key}_{kind}_amplitude_at_exciter"] = amplitude_at(res.time, signal, p["exciter_frequency"],
                                                                             t0)
    return run_summary("compactor", res, outputs, time.perf_counter() - start)
