"""Case ``platen-stroke``: the moving platen stroke of the Q2700 clamp unit (seed 003 ch. 4).

A 62.4 t moving platen slides on the clamp base (4 vertical + 4 lateral penalty contacts, eq. (4-1), with the
Coulomb law of Fig. 4-3) and closes against the stationary-platen assembly (mould contact; the assembly stands on the
18 support pads of ch. 5), driven by two Ø140/Ø100 mm stroke cylinders through a proportional valve (second-order
spool lag, metering edges from eq. (4-3)) from an ideal 185 bar source, HLP46 oil. Controls: the open-loop velocity
profile with its velocity–voltage table, the fully-open-valve variants and the PID of eq. (4-12).
Scenarios ``--set scenario=close|open|close-full-valve|open-full-valve|close-pid|open-pid`` (and the Fig. 4-10 b
variants ``close-full-acceleration|open-full-acceleration``, the Fig. 4-10 a variant ``close-abrupt-deceleration``;
PID deceleration ``pid_deceleration_profile=cubic-spline|constant``); the appendix D study on
the linear model ``--set study=pid-ti``; ``flexmbs linearize platen-stroke`` linearizes at the seed's working point.
Model, parameters and results: docs/cases/platen-stroke.md.
"""
from __future__ import annotations

from cases._common import case_parameters, toml_defaults

NAME = "platen-stroke"
DEFAULTS = toml_defaults(__file__, "platen_stroke.toml")
LINEARIZATION_TIME = 0.3  # s, steady motion from the eq. (4-7) start to the linearization point (assumed)
CHOICES = {"scenario": ("close", "open", "close-full-valve", "open-full-valve", "close-pid", "open-pid",
                        "close-full-acceleration", "open-full-acceleration", "close-abrupt-deceleration"),
           "pid_deceleration_profile": ("cubic-spline", "constant"),
           "study": ("none", "pid-ti")}
DESCRIPTION = ("Moving platen stroke (seed 003 ch. 4): 62.4 t platen on contacts with friction, stroke cylinders, "
               f"proportional valve, velocity profile or PID (--set scenario={'|'.join(CHOICES['scenario'])}, "
               "study=pid-ti)")


parameters = case_parameters(NAME, DEFAULTS, CHOICES)


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Run one stroke scenario (or the ``pid-ti`` study); returns ``case, t_end, steps, wall_s,
    max_constraint_violation, outputs`` (stroke time, peak speed, pressures, contact and friction forces, ...)."""
    p = parameters(params)
    if p["study"] == "pid-ti":
        from .studies import pid_ti_study

        return pid_ti_study(p, out)
    from .simulation import run_stroke

    return run_stroke(p, t_end, out, progress)


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize platen-stroke``: the single-mass model with the eq. (4-4) simplifications
    (``linear_model = true``) started at the working point of eq. (4-5)..(4-7) and linearized after
    ``LINEARIZATION_TIME`` of steady motion, 2 mm before mould contact (docs/cases/platen-stroke.md,
    "Linearization"). Input ``valve_command`` (V), output ``platen_velocity`` (closing speed, m/s).
    """
    from .simulation import build_linearization_model

    p = parameters(params)
    p["linear_model"] = True
    model = build_linearization_model(p, settle_time=LINEARIZATION_TIME)
    return {"model": model, "at": LINEARIZATION_TIME,
            "inputs": {"valve_command": "element/hydraulics/controller"},
            "outputs": {"platen_velocity": "body/platen/velocity/x"},
            "simulate_options": {"rtol": 1e-6, "max_step": 0.01}}
