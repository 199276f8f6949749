"""Checks of a model at its start, before the first step (issue 30): contradicting settings make a model that runs
and reports wrong numbers, so they are refused in one line.

* every state element that offers ``plausibility(t, z, y, ydot) -> list[str]`` (docs/element-protocol.md; the
  hydraulic circuits check supply against relief settings and cylinder start positions, without flexmbs importing
  hydraulics) is asked at the consistent start;
* springs and dampers: a negative constant stiffness or damping coefficient (a spring that pushes away from its
  free length, a damper that feeds energy) is refused.
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError

from .system import measure

__all__ = ["check_start"]


def _sign_problems(forces) -> list[str]:
    problems = []
    for force in forces:
        name = getattr(force, "name", type(force).__name__)
        for attr in ("stiffness", "damping", "kt", "kr", "ct", "cr"):
            value = getattr(force, attr, None)
            if value is None or callable(value):
                continue
            try:
                array = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                continue
            if np.any(array < 0.0):
                kind = "stiffness" if attr in ("stiffness", "kt", "kr") else "damping"
                problems.append(f"force {name!r} has a negative {kind} ({attr} = {array.tolist()}): a {kind} must "
                                "be >= 0; check its sign and unit")
    return problems


def check_start(system, state) -> None:
    """Raise a one-line :class:`ModelError` listing the contradictions of the model at ``state`` (first three)."""
    problems = _sign_problems(system.forces)
    elements = [(k, e) for k, e in enumerate(system.elements) if hasattr(e, "plausibility")]
    if elements:
        ctx = system.context(state.q, state.v, state.t)
        for k, element in elements:
            z_e = state.z[system.z_offsets[k]:system.z_offsets[k + 1]]
            y, ydot, _ = measure(ctx, element.measurements)
            problems += list(element.plausibility(state.t, z_e, y, ydot))
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise ModelError("; ".join(problems[:3]) + more)
