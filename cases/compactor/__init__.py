"""Case ``compactor``: vibratory asphalt compactor (CB544 class) as a tree of 23 joints in modified DH parameters
(seed 004 Table 1), simulated forward with flexmbs, and the contact-force estimator of seed 004 eq. (19)–(23) fed
by its simulated sensor signals.

Scenarios (``--set scenario=...``): ``static`` (machine at rest), ``vibrating`` (standing, front exciter spun up to
``exciter_frequency``), ``driving`` (travelling at ``driving_speed`` with the exciter on, ``surface=flat|step``).
Model, parameters, outputs and choices: docs/cases/compactor.md.
"""
from __future__ import annotations

from .declaration import DEFAULTS, DESCRIPTION, NAME  # noqa: F401  (read by the registry here)


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Simulate a scenario, estimate the contact forces from the sensor signals, compare with the simulated truth.

    Returns ``case, t_end, steps, wall_s, max_constraint_violation, outputs`` (outputs: RMS estimation errors,
    amplitudes, the static load check).
    """
    from .simulation import run_case

    return run_case(params or {}, t_end, out, progress)


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize compactor``: the machine standing at rest on its drums (the ``static`` scenario's
    model: exciter and drum drives at rest) about its static equilibrium, no inputs or outputs: the rigid-body modes
    on the soil and the silent blocs (and the drives' speed-source damping)."""
    from .machine import build_machine
    from .simulation import parameters

    p = parameters({**(params or {}), "scenario": "static"})
    return {"model": build_machine(p, support=p["support"])[0].model, "at": "static", "inputs": {}, "outputs": {}}
