"""Case ``machine-creeping``: why an injection-moulding machine creeps across the floor (seed 003 ch. 5).

One flexible body (clamp base + stationary platen + tie bars, :mod:`.structure`, reduced to ≈ 150 coordinates) on
18 linear pads, the rigid injection unit (spherical joint, 4 pads), the rigid 65 t moving platen sliding on the
base's rails and carrying the tie bars through six :class:`flexmbs.SlidingContact`, guided laterally by four
guides (:mod:`.guides`), the ch. 4 cylinders, valve and circuit (:mod:`.hydraulic`, default) or a velocity-servo
**stand-in** of them (``stroke_drive=servo``, :mod:`.machine`), the mould impact contact. Scenarios
``--set scenario=normal-cycle|emergency-stop|impact``; outputs: the pad force ratio R(t) peak, the dominant
lateral-force frequency, the displacement per cycle vs floor μ (:mod:`.creep`, Table 5-2). Model, parameters and results:
docs/cases/machine-creeping.md.
"""
from __future__ import annotations

from cases._common import case_parameters, toml_defaults

NAME = "machine-creeping"
DESCRIPTION = ("Machine creeping on its pads (seed 003 ch. 5): flexible clamp unit (~150 modes) on 22 pads, moving "
               "platen on sliding contacts and guides, the ch. 4 hydraulics or a stand-in stroke servo "
               "(--set scenario=normal-cycle|emergency-stop|impact, stroke_drive=hydraulic|servo)")
DEFAULTS = toml_defaults(__file__, "machine_creeping.toml")
CHOICES = {"scenario": ("normal-cycle", "emergency-stop", "impact"), "stroke_drive": ("hydraulic", "servo")}
parameters = case_parameters(NAME, DEFAULTS, CHOICES)


def run(params: dict | None = None, t_end: float | None = None, out: str | None = None,
        progress: bool = False) -> dict:
    """Run one scenario; returns ``case, t_end, steps, wall_s, max_constraint_violation, outputs`` (peak force
    ratio, dominant lateral-force frequency, displacement per cycle vs μ, impact and drive peaks). The reduced
    structure is cached (``$FLEXMBS_CACHE``): the first run meshes and reduces it (about a minute at the default mesh)."""
    from .simulation import run_scenario

    result = run_scenario(parameters(params), t_end, out, progress)
    result.pop("histories")
    return result


SETTLE_TIME = 0.3  # s of rest before the linearization (the pads' contact forces settle)


def linearization(params: dict | None = None) -> dict:
    """Hook of ``flexmbs linearize machine-creeping``: the whole machine (flexible clamp unit on its pads, moving
    platen on its sliding contacts and guides, the stroke drive idle) about its state after ``SETTLE_TIME`` of rest,
    the state of :mod:`.modes` (the "clamp-unit mode" of seed 003 L7568-7582, measured at 8.2 Hz)."""
    from .machine import build_machine
    from .structure import reduced_structure

    p = parameters(params)
    p["start_time"] = 1e9  # the drive stays idle
    model, _ = build_machine(reduced_structure(p), p, "normal-cycle")
    return {"model": model, "at": SETTLE_TIME, "simulate_options": {"rtol": p["rtol"], "atol": 1e-6},
            "inputs": {}, "outputs": {}}
