"""Case ``classic-mechanisms``: the classic mechanisms with redundant constraints (issue 27), each against an
independent reference — Bricard's linkage (a minimal-coordinate model of our own), a door on two hinges and a
parallelogram of three cranks (the exact pendulum equation). Model and references: docs/cases/classic-mechanisms.md.
"""
from __future__ import annotations

from cases._common import case_parameters, run_summary, simulate_run, toml_defaults

NAME = "classic-mechanisms"
DESCRIPTION = ("Redundant constraints as machine builders model them: Bricard's 6R linkage (IFToMM A04), a door on two "
               "coaxial hinges, a parallelogram of three cranks in 3D (--set mechanism=bricard|door|parallelogram)")
DEFAULTS = toml_defaults(__file__, "classic_mechanisms.toml")
CHOICES = {"mechanism": ("bricard", "door", "parallelogram")}
PARAMETERS = DEFAULTS.specs

parameters = case_parameters(NAME, DEFAULTS, CHOICES)


def build_model(p: dict):
    """The flexmbs model of ``p["mechanism"]``."""
    from . import bricard, door

    if p["mechanism"] == "bricard":
        return bricard.build_model()
    if p["mechanism"] == "door":
        return door.build_door(p["initial_angle"])
    return door.build_parallelogram(p["initial_angle"])


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Simulate the chosen mechanism; outputs: the dropped equations, energy drift, final positions."""
    p = parameters(params)
    t_end = float(t_end if t_end is not None else p["t_end"])
    model = build_model(p)
    res = simulate_run(NAME, model, t_end, p, out, progress, rtol=p["rtol"], atol=p["atol"],
                       output_interval=t_end / 100.0)
    energy = res.energy()["total"]
    return run_summary(NAME, res, {
        "mechanism": p["mechanism"],
        "redundant_constraints": res.attributes.get("redundant_constraints", "").split("\n"),
        "redundant_joints": res.attributes.get("redundant_joints", ""),
        "energy_drift_J": float(energy.max() - energy.min()),
        "final_positions_m": {b.name: res[f"body/{b.name}/position"][-1].tolist() for b in model.bodies},
    })


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize classic-mechanisms``: with ``--set mechanism=door`` the damped door about its
    hanging equilibrium, minimal coordinate the first hinge's angle; Bricard's linkage and the parallelogram about
    the static equilibrium near their start (coordinates chosen by pivoted QR)."""
    from . import door

    p = parameters(params)
    if p["mechanism"] != "door":  # Bricard's linkage, the parallelogram: about the static equilibrium near the start
        return {"model": build_model(p), "at": "static", "inputs": {}, "outputs": {}}
    return {"model": door.build_door(0.0, hinges=2, hinge_damping=2.0), "at": "static",
            "coordinates": ["joint/hinge1/rotation"], "inputs": {}, "outputs": {"angle": "joint/hinge1/rotation"}}
