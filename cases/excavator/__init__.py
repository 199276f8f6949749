"""Case ``excavator``: planar 12-body hydraulic excavator (CAT 330D L) with digging, seed 001.

Scenarios (``--set scenario=...``):

* ``free-fall``: gravity only, no hydraulics, all 12 bodies with inertia (seed 001 Fig. 10a, 11);
* ``free-fall-light``: the same with only boom, stick and bucket carrying inertia (Fig. 10b);
* ``digging``: the 12 s task, stick valve open 0..8 s, bucket valve 4..10 s, boom cylinder locked (Fig. 12..19);
* ``digging-flexible-boom``: the same task with the boom as a reduced flexible body (Craig-Bampton);
* ``digging-load-sensing``: the digging task with a load-sensing supply per function (LS pump, pressure compensator,
  shuttle, datasheet valve; issue #32, not in the seed).

Model, parameters and the choices we had to make: docs/cases/excavator.md.
"""
from __future__ import annotations

from cases._common import case_parameters, toml_defaults

NAME = "excavator"
DESCRIPTION = ("Planar 12-body hydraulic excavator CAT 330D L (seed 001): free fall energy check and 12 s digging "
               "task with relief valves and soil force (--set scenario=free-fall|free-fall-light|digging|"
               "digging-flexible-boom|digging-load-sensing)")

SCENARIOS = ("free-fall", "free-fall-light", "digging", "digging-flexible-boom", "digging-load-sensing")
DEFAULTS = toml_defaults(__file__, "excavator.toml")
parameters = case_parameters(NAME, DEFAULTS, {"scenario": SCENARIOS})


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Run a scenario; returns the JSON-able summary ``case, t_end, steps, wall_s, max_constraint_violation,
    outputs`` (see docs/cases/excavator.md for the outputs of each scenario).

    Parameters
    ----------
    params : dict
        Overrides of ``DEFAULTS`` (``scenario`` selects the run).
    t_end : float, s, optional
        End time (default: ``t_end_free_fall`` or ``t_end_digging``).
    out : str, optional
        Results file ``*.results.h5``; CSV and PNG outputs go to ``<out without .results.h5>_outputs/``.
    progress : bool
        Progress bar on stderr.
    """
    from .scenarios import run_scenario

    return run_scenario(parameters(params), t_end, out, progress)


LINEARIZATION_TIME = 0.5  # s of the digging task


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize excavator``: the rigid-boom digging model (mechanism, three circuits, soil force)
    about its state at ``LINEARIZATION_TIME`` of the task (stick valve opening, bucket in the air), where no static
    equilibrium is unique (the closed-centre valves trap the chamber pressures); outputs: ``--output``."""
    from fem.errors import ModelError

    from .scenarios import build_scenario

    p = parameters(params)
    if p["scenario"] == "digging-flexible-boom":
        raise ModelError("excavator: linearize is defined for the rigid-boom scenarios (free-fall, free-fall-light, "
                         "digging, digging-load-sensing), got scenario=digging-flexible-boom")
    model, _, rtol = build_scenario(p)
    return {"model": model, "at": LINEARIZATION_TIME,
            "simulate_options": {"rtol": rtol, "atol": p["atol"], "max_step": p["max_step"]},
            "inputs": {}, "outputs": {}}
