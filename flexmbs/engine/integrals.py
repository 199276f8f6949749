"""Integrals over the accepted steps of quantities that state elements declare (docs/element-protocol.md)."""
from __future__ import annotations

from .system import measure

__all__ = ["Integrals"]


class Integrals:
    """Integrals over the accepted steps (trapezoid rule with the integrator's own steps, not over output samples)
    of the quantities state elements declare with ``integral_units`` and ``integrands`` (docs/element-protocol.md):
    no extra state, so the Newton matrices and the error control of the model are unchanged. The compiled step adds
    the trapezoids (:func:`flexmbs.engine.loop.advance`); this keeps their values by name and the elements' warnings."""

    def __init__(self, system, state):
        self.system = system
        self.elements = [(k, e) for k, e in enumerate(system.elements) if hasattr(e, "integrands")]
        self.values = {f"element/{e.name}/{key}": 0.0 for _, e in self.elements for key in e.integral_units}
        self.start = state

    def warnings(self) -> list[str]:
        """The elements' own judgement of their integrals (``integral_warnings``), at the start state (the
        measurements there as the start's check found them, :func:`flexmbs.engine.preflight.check_start`)."""
        lines, ctx = [], None
        state, system = self.start, self.system
        found = getattr(system, "start_measures", None)
        known = found[1] if found is not None and found[0] is state else {}
        for k, element in self.elements:
            if not hasattr(element, "integral_warnings"):
                continue
            z_e = state.z[system.z_offsets[k]:system.z_offsets[k + 1]]
            if k in known:  # (the start check's own copies, read here only: no copy again)
                y, ydot = known[k]
            else:
                ctx = ctx if ctx is not None else system.context(state.q, state.v, state.t)
                y, ydot, _ = measure(ctx, element.measurements)
            prefix = f"element/{element.name}/"
            own = {key[len(prefix):]: v for key, v in self.values.items() if key.startswith(prefix)}
            lines += element.integral_warnings(own, state.t, z_e, y, ydot)
        return lines
