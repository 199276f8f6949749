"""Scenarios of the platen stroke: build, simulate, summarise (seed 003 §4.3, §4.4.3)."""
from __future__ import annotations

import sys
import time

import numpy as np

from cases._common import run_summary, simulate_run

from .circuit import build_circuit
from .controls import steady_velocity, trigger_distance
from .model import build_mechanism, friction_at_speed, travel, weight

SCENARIOS = ("close", "open", "close-full-valve", "open-full-valve", "close-pid", "open-pid",
             "close-full-acceleration", "open-full-acceleration", "close-abrupt-deceleration")


def scenario_settings(params: dict) -> dict:
    """Direction, profile speed and deceleration, PID flag of ``params["scenario"]``.

    Full-valve variants (seed 003 L6546–6559): the profile's maximum speed is the full-open steady speed of the
    valve (so the table command reaches 10 V); PID variants (L7041–7049): deceleration shortened to
    ``pid_deceleration_time`` along ``pid_deceleration_profile`` (the seed's cubic spline, or ``constant``: the
    √-profile with the constant deceleration ``(v_max − v_f)/T_d``); ``close-abrupt-deceleration`` (Fig. 4-10 a,
    L6532–6542): the time-based linear ramp of the acceleration profile as deceleration, over
    ``abrupt_deceleration_time``, started where the standard profile starts to decelerate.
    """
    name = params["scenario"]
    direction = -1 if name.startswith("open") else 1
    v_max = params["max_velocity_close" if direction > 0 else "max_velocity_open"]
    if name.endswith("full-valve"):
        v_max = float(steady_velocity(params["command_limit"], params, direction))
    deceleration = params["deceleration"]
    pid = name.endswith("pid")
    full_acceleration = name.endswith("full-acceleration")
    profile, duration = "constant", None
    if pid:
        duration = params["pid_deceleration_time"]
        deceleration = (v_max - params["final_velocity"]) / duration
        profile = params["pid_deceleration_profile"]
    if name.endswith("abrupt-deceleration"):
        duration, profile = params["abrupt_deceleration_time"], "time-ramp"  # triggered where `deceleration` starts
    return {"direction": direction, "max_velocity": v_max, "deceleration": deceleration, "pid": pid,
            "full_acceleration": full_acceleration, "deceleration_profile": profile, "deceleration_time": duration}


def build_model(params: dict, controller=None):
    """Mechanism + circuit of one scenario; returns ``(model, handles, settings)``.

    ``controller`` (V: a Signal or a function of time, e.g. an imported FMU's output) replaces the PID of a PID
    scenario; its inputs are the circuit's signals ``speed_error``, ``feed_forward`` and ``pid_on``
    (:class:`.controls.StrokeCommand`, docs/cases/platen-stroke.md)."""
    settings = scenario_settings(params)
    model, handles = build_mechanism(params, open_position=settings["direction"] > 0)
    circuit = build_circuit(params, handles, settings["direction"], settings["max_velocity"],
                            settings["deceleration"], settings["pid"], full_acceleration=settings["full_acceleration"],
                            deceleration_profile=settings["deceleration_profile"],
                            deceleration_time=settings["deceleration_time"], controller=controller)
    model.add_element(circuit)
    handles["circuit"] = circuit
    return model, handles, settings


def simulate_stroke(params: dict, t_end: float | None = None, out: str | None = None, progress: bool = False):
    """Simulate one stroke; returns ``(results, handles, settings)``; raises SimulationError if it fails."""
    t_end = float(t_end if t_end is not None else params["t_end"])
    model, handles, settings = build_model(params)
    if progress:
        print(f"platen-stroke: simulating {t_end} s ({params['scenario']})", file=sys.stderr)
    res = simulate_run("platen-stroke", model, t_end, params, out, progress, rtol=params["rtol"], atol=1e-5,
                       max_step=0.02, output_interval=params["output_interval"])
    return res, handles, settings


def crossing_time(t, x, level: float) -> float | None:
    """Time (s) at which ``x`` first reaches ``level`` (linear interpolation between samples), None if never."""
    above = np.nonzero(x >= level)[0]
    if above.size == 0:
        return None
    i = int(above[0])
    if i == 0:
        return float(t[0])
    return float(t[i - 1] + (level - x[i - 1]) * (t[i] - t[i - 1]) / (x[i] - x[i - 1]))


def summary(res, handles: dict, params: dict, settings: dict) -> dict:
    """Stroke time, peak speed, pressures, contact/friction forces, command range (JSON-able)."""
    t = res.time
    gap_key = f"element/hydraulics/y/{handles['gap'].name}"
    s = travel(res[gap_key], params)
    direction = settings["direction"]
    progress_along = s if direction > 0 else params["stroke"] - s
    speed = np.gradient(s, t) * direction
    t0 = params["start_time"]
    end_level = params["stroke"] - 1e-4  # the mould face (closing) or the open position (opening), 0.1 mm short
    t_end_stroke = crossing_time(t, progress_along, end_level)
    cmd = res["element/hydraulics/controller.value"]
    p_rod, p_bore = res["element/hydraulics/rod.pressure"], res["element/hydraulics/bore.pressure"]
    cav = {k: float(np.max(res[f"element/hydraulics/{k}.cavitation_flow"])) for k in ("rod", "bore")}
    floor = -0.9e5  # Pa gauge: within 0.1 bar of the -1 bar cavitation floor of hydraulics.Volume
    vertical = sum(res[f"force/shoe{i}/normal_force"] for i in range(1, 5))
    lateral = sum(res[f"force/guide{i}/normal_force"] for i in range(1, 5))
    friction = sum(res[f"force/shoe{i}/friction_force"] for i in range(1, 5)) + \
        sum(res[f"force/guide{i}/friction_force"] for i in range(1, 5))
    # deceleration: from the position where the profile leaves v_max to the stroke end (the seed's "about 1 s",
    # L6571, L7041); reverse motion and cavitation before the stroke end (Fig. 4-10 a, L6532-6542)
    trigger = trigger_distance(settings["deceleration_profile"], settings["max_velocity"], params["final_velocity"],
                               settings["deceleration"], settings["deceleration_time"])
    t_dec = crossing_time(t, progress_along, params["stroke"] - params["safety_distance"] - trigger)
    moving = (t > t0) & (t < (t_end_stroke if t_end_stroke is not None else np.inf))
    v_along = res["body/platen/velocity"][:, 0] * direction
    rest = t < t0
    v_plateau = settings["max_velocity"]
    cruise = (np.abs(speed - v_plateau) < 0.02 * v_plateau)
    return {
        "scenario": params["scenario"],
        "stroke_time_s": None if t_end_stroke is None else t_end_stroke - t0,
        "stroke_completed": t_end_stroke is not None,
        "travel_m": float(progress_along.max()),
        "peak_velocity_m_s": float(speed.max()),
        "profile_max_velocity_m_s": v_plateau,
        "profile_deceleration_m_s2": settings["deceleration"],
        "deceleration_profile": settings["deceleration_profile"],
        "deceleration_profile_time_s": settings["deceleration_time"],
        "deceleration_trigger_travel_m": trigger,
        "deceleration_time_s": None if t_end_stroke is None or t_dec is None else t_end_stroke - t_dec,
        "min_speed_before_end_m_s": float(v_along[moving].min()) if moving.any() else None,
        "cavitation_before_end": bool(moving.any() and min(p_rod[moving].min(), p_bore[moving].min()) < floor),
        "command_range_V": [float(cmd.min()), float(cmd.max())],
        "command_within_limits": bool(np.max(np.abs(cmd)) <= params["command_limit"] + 1e-9),
        "max_pressure_bar": {"rod": float(p_rod.max()) / 1e5, "bore": float(p_bore.max()) / 1e5},
        "min_pressure_bar": {"rod": float(p_rod.min()) / 1e5, "bore": float(p_bore.min()) / 1e5},
        "cavitation": bool(min(p_rod.min(), p_bore.min()) < floor),
        "max_cavitation_flow_m3_s": cav,
        "vertical_contact_force_at_rest_N": float(np.mean(vertical[rest])) if rest.any() else None,
        "platen_weight_N": weight(params),
        "friction_at_constant_speed_N": float(np.mean(friction[cruise])) if cruise.any() else None,
        "mu_d_m_g_N": friction_at_speed(params),
        "max_lateral_contact_force_N": float(lateral.max()),
        "max_mould_contact_force_N": float(res["force/mould/normal_force"].max()),
        "final_mould_contact_force_N": float(res["force/mould/normal_force"][-1]),
        "final_speed_m_s": float(abs(res["body/platen/velocity"][-1][0])),
    }


def run_stroke(params: dict, t_end: float | None = None, out: str | None = None, progress: bool = False) -> dict:
    """Run one scenario; returns the JSON-able summary; figures beside ``out``."""
    wall0 = time.perf_counter()
    res, handles, settings = simulate_stroke(params, t_end, out, progress)
    outputs = summary(res, handles, params, settings)
    if out:
        from .figures import stroke_figure

        stem = out[:-len(".results.h5")] if out.endswith(".results.h5") else out.rsplit(".", 1)[0]
        outputs["figure"] = stroke_figure(res, handles, params, settings, f"{stem}_stroke.png")
    return run_summary("platen-stroke", res, outputs, time.perf_counter() - wall0)


def build_linearization_model(params: dict, lead: float = 0.002, command=None, settle_time: float = 1.0):
    """The single-mass model of seed 003 Fig. 4-13 at the working point: ``params["linear_model"]`` must be true.

    Constant command ``working_command``; the platen starts ``lead`` (m) + ``settle_time`` (s) of travel before mould
    contact with the speed and chamber pressures of eq. (4-7) so that the run to the linearization time is a steady
    motion. ``command`` (V, number or function of time) replaces the constant ``working_command`` (step-response
    tests).
    """
    from .studies import seed_plant

    wp = seed_plant(params)[1]  # the eq. (4-7) working point is part of the coefficients
    u0 = params["working_command"]
    start = params["stroke"] - lead - wp["v0"] * settle_time
    model, handles = build_mechanism(params, open_position=True, initial_travel=start, initial_velocity=wp["v0"])
    circuit = build_circuit(params, handles, 1, 0.0, 1.0, command=u0 if command is None else command)
    circuit.set_initial("rod.pressure", wp["Pr0"])
    circuit.set_initial("bore.pressure", wp["Pb0"])
    model.add_element(circuit)
    return model
