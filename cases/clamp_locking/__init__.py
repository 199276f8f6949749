"""Case ``clamp-locking``: the Quadloc clamp locking mechanism with flexible connecting bars (seed 003 ch. 3).

Four 1400 kg clamp pistons turned by 45° about the tie-bar axes, three 2.5 m connecting bars (rigid or
Craig–Bampton flexible bodies, reduced on first use and cached), a regenerative locking cylinder with cushions,
a pilot-operated directional valve (first-order lag, 90 ms) or a proportional valve with a ramped command.
Runs: locking stroke (``stroke_direction=lock``, extension) or unlocking stroke (``unlock``, retraction).
Model, parameters, studies and the choices we had to make: docs/cases/clamp-locking.md. The parameter studies of
seed 003 §3.3 are plans in ``studies/`` (``flexmbs study clamp-locking --plan valve-timing|stiffness|proportional``);
:func:`study_report` lays their tables out beside the seed's (``seed_tables.py``).
"""
from __future__ import annotations

from cases._common import case_parameters

from .declaration import CHOICES, DEFAULTS, DESCRIPTION, NAME  # noqa: F401  (read by the registry here)

parameters = case_parameters(NAME, DEFAULTS, CHOICES)


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Run one stroke; returns ``case, t_end, steps, wall_s, max_constraint_violation, outputs``.

    Parameters
    ----------
    params : dict
        Overrides of ``DEFAULTS``.
    t_end : float, s, optional
        End time (default ``DEFAULTS["t_end"]``).
    out : str, optional
        Results file ``*.results.h5``; the figures (PNG) go beside it (``<stem>_*.png``).
    progress : bool
        Progress messages and bar on stderr.

    Returns
    -------
    dict
        ``outputs`` holds ``locking_time_s``, ``peak_bar_force_kN`` (``horizontal``, ``vertical_op``,
        ``vertical_nonop``, each with ``acceleration`` and ``deceleration`` peaks), ``max_pressure_bar``,
        ``max_von_mises_MPa`` and more (docs/cases/clamp-locking.md).
    """
    from .simulation import run_stroke

    return run_stroke(parameters(params), t_end, out, progress)


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize clamp-locking``: the whole model (3 flexible bars, circuit) about its state in
    the middle of the locking stroke (t = 0.3 s of a run; no static equilibrium exists: the open-centre valve
    drains the chambers); input the valve command, outputs the cylinder chamber pressures and a piston angle."""
    from .simulation import build_model

    p = parameters(params)
    model, _ = build_model(p)
    return {"model": model, "at": 0.3,
            "simulate_options": {"rtol": p["rtol"], "max_step": 2e-3, "output_interval": p["output_interval"]},
            "inputs": {"valve_command": "element/hydraulics/command"},
            "outputs": {"p_bore": "element/hydraulics/CA.pressure", "p_rod": "element/hydraulics/CB.pressure"}}


def study_report(table, manifest: dict) -> str | None:
    """The finished study beside seed 003 Table 3-4 / 3-3 / §3.3.4 (hook of ``flexmbs study``)."""
    from .seed_tables import study_report as report

    return report(table, manifest)
