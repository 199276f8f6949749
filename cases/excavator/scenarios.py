"""Assemble and run the scenarios of the excavator case (free fall, digging, digging with a flexible boom)."""
from __future__ import annotations

import os
import time

from flexmbs import Distance

from cases._common import run_summary, simulate_run

from . import circuits, mechanics
from .digging import DiggingForce, SoilOscillation
from .scaling import ScaledCircuit

__all__ = ["build_free_fall", "build_digging", "build_scenario", "simulate_scenario", "run_scenario"]


def build_free_fall(p: dict, light: bool = False):
    """Gravity only, no hydraulics, conservative supports (no dampers): seed 001 Fig. 10, 11."""
    return mechanics.build_mechanism(p, light=light, support_damping=False, pose=mechanics.start_pose(p))


def build_digging(p: dict, boom_body=None, boom_centre=None):
    """Mechanism + three circuits + soil force, starting in static equilibrium; returns ``(model, handles)``.

    ``boom_centre`` (2,) m: centre of mass of a flexible boom in the boom frame (for the initial pressures).
    """
    forces = mechanics.static_cylinder_forces(p, centres={"boom": tuple(boom_centre)} if boom_centre is not None
                                              else None)
    model, handles = mechanics.build_mechanism(p, boom_body=boom_body)
    handles["static_forces"] = forces
    handles["circuits"] = {}
    for cyl, (tube, rod) in handles["cylinder_pins"].items():
        key = cyl.removesuffix("_cylinder")
        pressures = circuits.initial_pressures(p, key, forces[cyl])
        circuit = circuits.build_circuit(p, key, Distance(tube, rod), handles["retracted_lengths"][cyl], pressures,
                                         load_sensing=p["scenario"] == "digging-load-sensing")
        model.add_element(ScaledCircuit(circuit, p["pressure_atol"] / p["atol"]))
        handles["circuits"][key] = circuit
    oscillation = SoilOscillation(int(p["noise_seed"]), p["noise_frequency"])
    model.add_force(DiggingForce(handles["tip"], p["ground_y"], p["specific_resistance"], p["bucket_width"],
                                 p["normal_ratio"], p["depth_smoothing"], p["velocity_smoothing"], oscillation,
                                 p["noise_amplitude"]))
    return model, handles


def build_scenario(p: dict, boom_body=None, boom_centre=None):
    """The model of ``p["scenario"]``; returns ``(model, handles, rtol)`` (free fall: ``rtol_free_fall``)."""
    if p["scenario"].startswith("free-fall"):
        return *build_free_fall(p, light=p["scenario"] == "free-fall-light"), p["rtol_free_fall"]
    return *build_digging(p, boom_body=boom_body, boom_centre=boom_centre), p["rtol"]


def simulate_scenario(p: dict, t_end: float | None = None, out: str | None = None, progress: bool = False,
                      boom_body=None, boom_centre=None):
    """Build the scenario's model and integrate it; returns ``(results, handles)``.

    Raises ``flexmbs.SimulationError`` if the integration fails.
    """
    scenario = p["scenario"]
    model, handles, rtol = build_scenario(p, boom_body, boom_centre)
    if t_end is None:
        t_end = p["t_end_free_fall" if scenario.startswith("free-fall") else "t_end_digging"]
    res = simulate_run("excavator", model, float(t_end), p, out, progress, label=f"excavator ({scenario})", rtol=rtol,
                       atol=p["atol"], max_step=p["max_step"], output_interval=p["output_interval"])
    return res, handles


def run_scenario(p: dict, t_end: float | None, out: str | None, progress: bool) -> dict:
    """Run, post-process (CSV/PNG next to ``out``) and summarise as the case's JSON dictionary."""
    from . import outputs

    wall0 = time.perf_counter()
    boom_body, flex_info, boom_centre = None, None, None
    if p["scenario"] == "digging-flexible-boom":
        from .flexboom import flexible_boom_factory

        boom_body, flex_info = flexible_boom_factory(p, progress)
        boom_centre = flex_info["centre_of_mass"]
    res, handles = simulate_scenario(p, t_end, out, progress, boom_body, boom_centre)
    wall = time.perf_counter() - wall0
    summary = outputs.summarise(res, handles, p, flex_info)
    if out:
        folder = outputs.output_folder(out)
        os.makedirs(folder, exist_ok=True)
        summary["files"] = outputs.write_outputs(res, handles, p, folder, flex_info)
        if p["scenario"].startswith("free-fall"):  # Fig. 10a vs 10b: both inertia variants in one plot
            other = dict(p, scenario="free-fall-light" if p["scenario"] == "free-fall" else "free-fall")
            res_other, _ = simulate_scenario(other, t_end)
            pair = (res, res_other) if p["scenario"] == "free-fall" else (res_other, res)
            summary["files"].append(outputs.compare_tip_paths(*pair, folder))
    return run_summary("excavator", res, summary, wall)

