"""PID study on the linear model (seed 003 §4.4.2, appendix D): closed-loop poles, T_I stability limit, ISE optima."""
from __future__ import annotations

import json
import time

import numpy as np
import scipy.signal as ssig

from . import linear
from .circuit import cylinder_areas
from .controls import steady_velocity, valve_gains
from .model import friction_at_speed

ZIEGLER_NICHOLS = (-4.0, 0.07, 0.015)  # K_P, T_I (s), T_D (s), seed 003:L6956
APPENDIX_D = {-4.0: 0.0200, -10.0: 0.0347, -20.0: 0.0484, -30.0: 0.0573, -40.0: 0.0644}  # seed 003:L8803-8823


def seed_plant(params: dict) -> tuple:
    """Transfer function (4-9)/(4-10) from the case parameters (the seed's printed values, L6883-6896)."""
    a_bore, a_rod = cylinder_areas(params)
    coeff = linear.plant_coefficients(params["working_command"], params["linear_supply_pressure"], 0.0,
                                      friction_at_speed(params), 2 * a_rod, 2 * a_bore, -params["flow_gain_rod"],
                                      -params["flow_gain_bore"], params["linear_bulk_modulus"],
                                      params["rod_volume_at_close"], params["bore_volume_at_close"],
                                      params["platen_mass"])
    return linear.plant_transfer_function(coeff), coeff


# points of the stroke for the loop analysis: (label, direction, |command| V, distance from the mould m)
STROKE_POINTS = (("close, seed working point", 1, 1.0, 0.002), ("close, end of deceleration", 1, 3.0, 0.1),
                 ("close, cruise", 1, 8.67, 1.0), ("open, cruise", -1, 6.72, 1.0),
                 ("open, end of deceleration", -1, 2.0, 3.2))


def stroke_plant(params: dict, command: float, direction: int, distance: float, linear_flows: bool = False):
    """``(num, den)`` of closing speed (m/s) per signed command (V) of the case's valve and chambers at one point.

    Eq. (4-4) with the case's metering edges (:func:`valve_gains`, fed edge ``Q = g(u) √(PP − P_f)``, drained edge
    ``Q = g(u) √P_d``) linearized about the steady state of eq. (4-7) at ``|command|`` and ``distance`` (m) before
    the mould (rod side ``Vr0 − A_r x``, bore side ``Vb0 + A_b x``); opening: fed bore, drained rod. Partial
    derivatives by central differences. ``linear_flows`` with the ``linear_*`` settings gives eq. (4-8) itself.
    No valve lag (see :func:`linear.with_spool_lag`).
    """
    a_b, a_r = (2.0 * a for a in cylinder_areas(params))
    modulus = params["linear_bulk_modulus"] if linear_flows else params["oil_bulk_modulus"]
    pp = params["linear_supply_pressure"] if linear_flows else params["supply_pressure"]
    mass, fr = params["platen_mass"], friction_at_speed(params)
    v_r = params["rod_volume_at_close"] - a_r * distance
    v_b = params["bore_volume_at_close"] + a_b * distance
    a_f, a_d, v_f, v_d = (a_r, a_b, v_r, v_b) if direction > 0 else (a_b, a_r, v_b, v_r)

    def gains(u):
        g_r, g_b = valve_gains(abs(u), params, linear_flows)
        return (g_r, g_b) if direction > 0 else (g_b, g_r)

    v0 = float(steady_velocity(abs(command), params, direction, pp, linear_flows))
    g_f, g_d = gains(command)
    x0 = np.array([pp - (a_f * v0 / g_f) ** 2, (a_d * v0 / g_d) ** 2, v0])

    def rates(x, u):  # seed 003 eq. (4-4): fed pressure, drained pressure, speed along the stroke
        gf, gd = gains(u)
        return np.array([modulus / v_f * (gf * np.sqrt(max(pp - x[0], 0.0)) - a_f * x[2]),
                         modulus / v_d * (a_d * x[2] - gd * np.sqrt(max(x[1], 0.0))),
                         (x[0] * a_f - x[1] * a_d - fr) / mass])

    steps = np.array([1e-6 * pp, 1e-6 * pp, 1e-6 * max(v0, 1e-3)])
    jac = np.column_stack([(rates(x0 + np.eye(3)[j] * steps[j], command) - rates(x0 - np.eye(3)[j] * steps[j], command))
                           / (2.0 * steps[j]) for j in range(3)])
    du = 1e-5 * max(abs(command), 1.0)
    b = ((rates(x0, abs(command) + du) - rates(x0, abs(command) - du)) / (2.0 * du)).reshape(3, 1)
    num, den = ssig.ss2tf(jac, b, np.array([[0.0, 0.0, 1.0]]), np.zeros((1, 1)))
    # closing speed per signed command: closing opens with u < 0, opening with u > 0 and moves backwards
    num = num[0]
    first = int(np.argmax(np.abs(num) > 1e-9 * np.abs(num).max()))  # ss2tf leaves round-off in the s², s³ terms
    return -num[first:], den


def loop_along_the_stroke(params: dict) -> list[dict]:
    """Largest closed-loop pole real part of the case PID at :data:`STROKE_POINTS`, with and without the valve lag."""
    kp, ti, td, tf = (params[k] for k in ("pid_gain", "pid_integral_time", "pid_derivative_time", "pid_filter_time"))
    rows = []
    for label, direction, command, distance in STROKE_POINTS:
        plant = stroke_plant(params, command, direction, distance)
        lagged = linear.with_spool_lag(plant, params["spool_frequency"], params["spool_damping"])
        worst = [linear.closed_loop_poles(p, kp, ti, td, tf)[-1] for p in (plant, lagged)]
        rows.append({"point": label, "command_V": command, "distance_from_mould_m": distance,
                     "stiff_valve_pole": [float(worst[0].real), float(abs(worst[0].imag))],
                     "with_valve_lag_pole": [float(worst[1].real), float(abs(worst[1].imag))],
                     "stable_above_spool_frequency_rad_s": linear.spool_frequency_stability_limit(
                         plant, kp, ti, td, tf, params["spool_damping"])})
    return rows


def pid_ti_study(params: dict, out: str | None = None) -> dict:
    """The ``study=pid-ti`` run: plant, Ziegler–Nichols loop (4-14), T_I limit, ISE-optimal T_I per K_P."""
    wall0 = time.perf_counter()
    plant, coeff = seed_plant(params)
    td, tf = params["pid_derivative_time"], params["pid_filter_time"]
    kp0, ti0, td0 = ZIEGLER_NICHOLS
    num, den = linear.closed_loop(plant, linear.pid_transfer_function(kp0, ti0, td0, tf))
    kp1, ti1 = params["pid_gain"], params["pid_integral_time"]
    w_spool, z_spool = params["spool_frequency"], params["spool_damping"]
    optima = []
    for kp, printed in APPENDIX_D.items():
        ti = linear.ise_optimal_integral_time(plant, kp, td, tf)
        optima.append({"K_P": kp, "T_I": ti, "T_I_seed": printed, "relative_difference": ti / printed - 1.0,
                       "ISE": linear.integrated_squared_error(plant, kp, ti, td, tf),
                       "closed_loop_poles": linear.pole_summary(linear.closed_loop_poles(plant, kp, ti, td, tf))})
    outputs = {
        "working_point": {"v0_m_s": coeff["v0"], "Pr0_bar": coeff["Pr0"] / 1e5, "Pb0_bar": coeff["Pb0"] / 1e5},
        "plant": {"numerator": plant[0].tolist(), "denominator": plant[1].tolist(),
                  "poles": linear.pole_summary(np.roots(plant[1])),
                  "zero": float(-coeff["b"] / coeff["a"]), "dc_gain_m_s_per_V": coeff["b"] / coeff["e"]},
        "case_pid_loop": {"K_P": kp1, "T_I": ti1, "T_D": td, "T": tf,
                          "poles": linear.pole_summary(linear.closed_loop_poles(plant, kp1, ti1, td, tf))},
        # the same loop behind the case's valve lag (the nonlinear runs have it; eq. (4-4) assumes a stiff valve)
        "case_pid_loop_with_valve_lag": {
            "spool_frequency_rad_s": w_spool, "spool_damping": z_spool,
            "poles": linear.pole_summary(linear.closed_loop_poles(linear.with_spool_lag(plant, w_spool, z_spool),
                                                                  kp1, ti1, td, tf)),
            "stable_above_spool_frequency_rad_s": linear.spool_frequency_stability_limit(plant, kp1, ti1, td, tf,
                                                                                         z_spool)},
        "ziegler_nichols_loop": {"K_P": kp0, "T_I": ti0, "T_D": td0, "T": tf,
                                 "denominator": den.tolist(), "numerator": num.tolist(),
                                 "poles": linear.pole_summary(linear.closed_loop_poles(plant, kp0, ti0, td0, tf))},
        "case_pid_loop_along_the_stroke": loop_along_the_stroke(params),
        "T_I_stability_limit": {"K_P": kp0, "T_D": td, "T_I": linear.integral_time_stability_limit(
            plant, kp0, td, tf), "T_I_seed": 0.0142},
        "ise_optimal_T_I": optima,
    }
    if out:
        with open(out if out.endswith(".json") else out + ".json", "w") as handle:
            json.dump(outputs, handle, indent=1)
    return {"case": "platen-stroke", "t_end": 0.0, "steps": 0, "wall_s": time.perf_counter() - wall0,
            "max_constraint_violation": 0.0, "outputs": outputs}
