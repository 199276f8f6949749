"""Case ``slider-crank``: crank, slider and a flexible link reduced from a beam FE model (seed 003 §2.1.3).

The link is an Euler-Bernoulli frame model made here with :mod:`fem` and reduced by :func:`reduction.reduce`
(Craig-Bampton with the two end nodes as interfaces, orthonormalized, rigid modes removed). The mechanism moves in
the XY plane but is modelled in 3D: revolute crank bearing, spherical joint at the crank pin A, universal joint at
the slider pin B and a prismatic slider guide (17 equations, one rigid degree of freedom).

Model, parameters, outputs and choices: docs/cases/slider-crank.md.
"""
from __future__ import annotations

from .declaration import DEFAULTS, DESCRIPTION, NAME  # noqa: F401  (read by the registry here)
from .model import parameters  # noqa: F401  (a study checks each variant with it before any run)


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Build and simulate the slider crank (``params``: overrides of :data:`DEFAULTS`, unknown keys are an error;
    ``t_end`` in s; ``out``: a ``*.results.h5`` path; ``progress``: tqdm bar on stderr); returns ``case, t_end, steps,
    wall_s, max_constraint_violation, outputs`` (outputs: link midpoint deflection, slider force, link frequencies)."""
    from .model import run_case

    return run_case(params or {}, t_end, out, progress)


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize`` (see :mod:`.linear`)."""
    from .linear import linearization as hook

    return hook(params)
