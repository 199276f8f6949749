"""PID study on the linear model (seed 003 §4.4.2, appendix D): closed-loop poles, T_I stability limit, ISE optima."""
from __future__ import annotations

import json
import time

import numpy as np

from . import linear
from .circuit import cylinder_areas
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


def pid_ti_study(params: dict, out: str | None = None) -> dict:
    """The ``study=pid-ti`` run: plant, Ziegler–Nichols loop (4-14), T_I limit, ISE-optimal T_I per K_P."""
    wall0 = time.perf_counter()
    plant, coeff = seed_plant(params)
    td, tf = params["pid_derivative_time"], params["pid_filter_time"]
    kp0, ti0, td0 = ZIEGLER_NICHOLS
    zn = linear.closed_loop_poles(plant, kp0, ti0, td0, tf)
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
                                 "poles": linear.pole_summary(zn)},
        "T_I_stability_limit": {"K_P": kp0, "T_D": td, "T_I": linear.integral_time_stability_limit(
            plant, kp0, td, tf), "T_I_seed": 0.0142},
        "ise_optimal_T_I": optima,
    }
    if out:
        with open(out if out.endswith(".json") else out + ".json", "w") as handle:
            json.dump(outputs, handle, indent=1)
    return {"case": "platen-stroke", "t_end": 0.0, "steps": 0, "wall_s": time.perf_counter() - wall0,
            "max_constraint_violation": 0.0, "outputs": outputs}
