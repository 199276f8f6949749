"""Case ``slider-crank``: crank, slider and a flexible link reduced from a beam FE model (seed 003 §2.1.3).

The link is an Euler-Bernoulli frame model made here with :mod:`fem` and reduced by :func:`reduction.reduce`
(Craig-Bampton with the two end nodes as interfaces, orthonormalized, rigid modes removed). The mechanism moves in
the XY plane but is modelled in 3D: revolute crank bearing, spherical joint at the crank pin A, universal joint at
the slider pin B and a prismatic slider guide (17 equations, one rigid degree of freedom).

Model, parameters, outputs and choices: docs/cases/slider-crank.md.
"""
from __future__ import annotations

from .declaration import DEFAULTS, DESCRIPTION, NAME  # noqa: F401  (read by the registry here)
from .model import build_model, parameters, run_case  # parameters: a study checks each variant before any run

LINEARIZATION_TIME = 0.05  # s: a quarter turn of the crank at the default 30 rad/s


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Build and simulate the slider crank (``params``: overrides of :data:`DEFAULTS`, unknown keys are an error;
    ``t_end`` in s; ``out``: a ``*.results.h5`` path; ``progress``: tqdm bar on stderr); returns ``case, t_end, steps,
    wall_s, max_constraint_violation, outputs`` (outputs: link midpoint deflection, slider force, link frequencies)."""
    return run_case(params or {}, t_end, out, progress)


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize slider-crank``: the mechanism about its motion at ``LINEARIZATION_TIME`` of a run
    (the crank turning at its prescribed speed, or driven by its torque): the flexible link's modes about the moving
    reference (seed 002 minimal coordinates; with the speed drive the crank angle is prescribed, the remaining
    coordinates are the link's elastic ones); output the slider position."""
    p = parameters(params or {})
    return {"model": build_model(p), "at": LINEARIZATION_TIME,
            "simulate_options": {"rtol": float(p["rtol"]), "atol": float(p["atol"])}, "inputs": {},
            "outputs": {"slider_x": "body/slider/position/x"}}
