"""Plausibility of a circuit before a run (issue 30): settings that contradict each other make a model that runs
and reports wrong numbers, so they are refused in one line before any work.

* An ideal pressure source above every relief setting: no relief can limit it (1000 bar against a 230 bar relief
  ran and reported 4x the rated cylinder forces).
* A relief cracking below the supply: it stands open, drains the source and limits nothing at its setting.
* A cylinder starting outside its stroke (``x < 0`` or ``x > stroke`` beyond 1 % of the stroke): the mounting
  points or ``retracted_length`` do not match the cylinder.

:meth:`hydraulics.circuit.Circuit.plausibility` returns these as text lines; flexmbs calls it through the
element protocol (docs/element-protocol.md) if an element has it, without importing hydraulics.
"""
from __future__ import annotations

from .cylinder import Cylinder
from .nodes import PressureSource
from .orifices import ReliefValve

__all__ = ["circuit_plausibility", "STROKE_TOLERANCE"]

STROKE_TOLERANCE = 0.01  # fraction of the stroke a cylinder may start outside it (end-stop penetration, round-off)


def _constant_setpoint(source: PressureSource) -> float | None:
    signal = source.pressure_signal
    value = getattr(signal, "constant", getattr(signal, "value", None))
    return float(value) if isinstance(value, (int, float)) else None


def circuit_plausibility(circuit, y=None) -> list[str]:
    """Contradicting settings of ``circuit`` (one line each); ``y``: its measurements at the start (for the
    cylinder positions), if known."""
    problems = []
    supplies = [(p, s.name) for s in circuit.components if isinstance(s, PressureSource)
                for p in [_constant_setpoint(s)] if p is not None]
    reliefs = [(float(r.cracking_pressure), r.name) for r in circuit.components if isinstance(r, ReliefValve)]
    if supplies and reliefs:
        supply, source = max(supplies)
        highest, _ = max(reliefs)
        if supply > highest:
            problems.append(f"circuit '{circuit.name}': the supply {source!r} at {supply / 1e5:.4g} bar is above every "
                            f"relief setting (highest {highest / 1e5:.4g} bar): no relief can limit the pressure; "
                            "lower the supply or raise the relief setting")
        else:
            for cracking, name in sorted(reliefs):
                if cracking < supply:
                    problems.append(f"circuit '{circuit.name}': relief {name!r} cracks at {cracking / 1e5:.4g} bar, "
                                    f"below the supply {source!r} at {supply / 1e5:.4g} bar: it would stand open and "
                                    "limit nothing; set it above the supply")
    if y is not None:
        for cyl in (c for c in circuit.components if isinstance(c, Cylinder)):
            x = float(y[circuit.measurement_index(cyl.measurement)]) - cyl.retracted_length
            slack = STROKE_TOLERANCE * cyl.stroke
            if not -slack <= x <= cyl.stroke + slack:
                problems.append(f"cylinder {cyl.name!r} starts at x = {x:.4g} m, outside its stroke 0..{cyl.stroke:.4g}"
                                " m: check its mounting points, retracted_length and the initial placement")
    return problems
