"""Case ``fourbar-hydraulic``: the hydraulically actuated 3D four-bar of seed 002 §4.

The mechanism rests at phi2 = 60° (seed 002 eq. (90)) on a closed circuit with p3 = 3.5 MPa and p1 = p2 from the
static equilibrium (eq. (82), (91)); the torque pulse of eq. (92) deflects it, and after ``t2`` it returns to the
equilibrium: overdamped with the nominal Brown-McPhee friction, oscillating with friction /10 and /100 (Table 3).
Geometry, parameters and the choices we had to make are documented in docs/cases/fourbar-hydraulic.md. The three
friction scenarios are the study plan ``studies/friction-scenarios.toml``
(``flexmbs study fourbar-hydraulic --plan friction-scenarios``); :func:`study_report` sets them beside Table 3.
"""
from __future__ import annotations

import math
import time

import numpy as np

from cases._common import run_summary, simulate_run

from .declaration import DEFAULTS, DESCRIPTION, NAME, PARAMETERS, parameters  # noqa: F401  (read by the registry here)


def simulate_case(params: dict | None = None, t_end: float | None = None, out: str | None = None,
                  progress: bool = False):
    """Equilibrium, model and time integration; returns ``(results, equilibrium, parameters)``."""
    model, _, eq, p = build_model(params)
    t_end = float(t_end if t_end is not None else p["t_end"])
    res = simulate_run(NAME, model, t_end, p, out, progress, max_step=min(0.01, t_end / 50), rtol=1e-5)
    return res, eq, p


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None, progress: bool = False) -> dict:
    """Run the case; returns the JSON-able summary (common keys plus ``outputs``)."""
    from .analysis import response_summary
    from .model import PAPER_P2_MPA

    wall0 = time.perf_counter()
    res, eq, p = simulate_case(params, t_end, out, progress)
    phi2 = res["joint/O1/rotation"]
    summary = response_summary(res.time, phi2, math.radians(p["phi2_deg"]), p["torque_t2"], p["settling_band"])
    return run_summary(NAME, res, {
        "friction_scale": p["friction_scale"],
        "equilibrium_pressures_MPa": {k: eq[k] / 1e6 for k in ("p1", "p2", "p3")},
        "paper_p2_MPa": PAPER_P2_MPA,
        "equilibrium_cylinder_force_N": eq["cylinder_force"],
        "settling_time_s": summary["settling_time_s"],
        "response": summary["response"],
        "zero_crossings_after_t2": summary["zero_crossings"],
        "deflection_at_t2_deg": summary["deflection_at_t2_deg"],
        "final_deviation_deg": summary["final_deviation_deg"],
        "max_pressure_MPa": {k: float(np.max(res[f"element/hydraulics/{k}.pressure"])) / 1e6
                             for k in ("V1", "V2", "V3")},
        **_linear_outputs(res, p),
    }, time.perf_counter() - wall0)


def _linear_outputs(res, p: dict) -> dict:
    """Seed 002 §4.4-4.5 for this run: eigenvalues of the 6x6 minimal Jacobian about the equilibrium and the
    linear model's phi2 from t2 against this run (largest difference relative to the excursion)."""
    from .linear import classify, compare_after_release, linear_model

    lin = linear_model(p)
    lam = lin.eigenvalues()
    out = {"linear_eigenvalues": [[float(v.real), float(v.imag)] for v in lam],
           "linear_response": classify(lam)}
    window = float(res.time[-1]) - p["torque_t2"]
    if window > 0.0:
        out["linear_vs_nonlinear_max_difference"] = compare_after_release(res, lin, p, window)["relative_difference"]
    return out


def build_model(params: dict | None = None, with_torque: bool = True):
    """The four-bar with its circuit at the equilibrium pressures; returns ``(model, handles, equilibrium, p)``."""
    from .assembly import build_model as build

    return build(params, with_torque)


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize fourbar-hydraulic`` (seed 002 §4.4): the static equilibrium at phi2 = 60°,
    minimal coordinate phi2 (eq. (87)), inputs valve command and torque M2, outputs phi2 and the pressures."""
    from .linear import equilibrium_point

    model, _, _, _ = build_model(params)
    return {"model": model, "at": equilibrium_point(model), "coordinates": ["joint/O1/rotation"],
            "inputs": {"valve_command": "element/hydraulics/valve.command", "torque": "force/M2"},
            "outputs": {"phi2": "joint/O1/rotation", "p1": "element/hydraulics/V1.pressure",
                        "p2": "element/hydraulics/V2.pressure", "p3": "element/hydraulics/V3.pressure"}}


# seed 002 Table 3: eigenvalues of the linearized system for the three friction scenarios (real with the nominal
# friction, complex pairs with /10 and /100) → the kind of return to equilibrium
SEED_TABLE_3 = {1.0: "real eigenvalues: overdamped", 0.1: "complex pair: oscillatory",
                0.01: "complex pair: oscillatory"}


def study_report(table, manifest: dict) -> str | None:
    """Markdown: a ``friction_scale`` study beside seed 002 Table 3 (hook of ``flexmbs study``)."""
    if manifest.get("varied") != ["friction_scale"]:
        return None
    rows = table[table["status"] == "finished"].sort_values("friction_scale", ascending=False)
    lines = ["| friction_scale | response after t2 | zero crossings | settling time (band) | deflection at t2 | "
             "seed 002 Table 3 |", "|---|---|---|---|---|---|"]
    for _, row in rows.iterrows():
        settling = row["settling_time_s"]
        reached = not str(row["response"]).startswith("not reached")
        settling = ("—" if not reached else "not settled" if settling is None or settling != settling
                    else f"{float(settling):.3f} s")
        crossings = f"{int(row['zero_crossings_after_t2'])}" if reached else "—"
        deflection = f"{float(row['deflection_at_t2_deg']):.4f}°" if reached else "—"
        lines.append(f"| {float(row['friction_scale']):g} | {row['response']} | {crossings} | {settling} | "
                     f"{deflection} | {SEED_TABLE_3.get(float(row['friction_scale']), '—')} |")
    return "### fourbar-hydraulic friction scenarios vs seed 002 Table 3\n\n" + "\n".join(lines) + "\n"
