"""Integrals over the accepted steps of quantities that state elements declare (docs/element-protocol.md)."""
from __future__ import annotations

from .system import measure

__all__ = ["Integrals"]


class Integrals:
    """Integrals over the accepted steps (trapezoid rule with the integrator's own steps, not over output samples)
    of the quantities state elements declare with ``integral_units`` and ``integrands`` (docs/element-protocol.md):
    no extra state, so the Newton matrices and the error control of the model are unchanged."""

    def __init__(self, system, state, eager: bool = True):
        self.system = system
        self.elements = [(k, e) for k, e in enumerate(system.elements) if hasattr(e, "integrands")]
        self.values = {f"element/{e.name}/{key}": 0.0 for _, e in self.elements for key in e.integral_units}
        self.start = state
        # the integrands at the start; eager=False: on the first advance only (the compiled step integrates with its
        # own kernels and never asks; an element with a memory, e.g. a hysteresis signal, is evaluated in the same
        # order as before on the Python path, which builds its Integrals eagerly)
        self._start_rates = None
        if eager:
            self._start_rates = self._rates(state) if self.elements else {}

    @property
    def rates(self) -> dict:
        """The integrands at the last accepted state (at the start before the first step)."""
        if self._start_rates is None:
            self._start_rates = self._rates(self.start) if self.elements else {}
        return self._start_rates

    @rates.setter
    def rates(self, value: dict) -> None:
        self._start_rates = value

    def _arguments(self, state):
        ctx = self.system.context(state.q, state.v, state.t)
        for k, element in self.elements:
            z_e = state.z[self.system.z_offsets[k]:self.system.z_offsets[k + 1]]
            y, ydot, _ = measure(ctx, element.measurements)
            yield element, (state.t, z_e, y, ydot)

    def _rates(self, state) -> dict:
        return {f"element/{element.name}/{key}": float(value) for element, args in self._arguments(state)
                for key, value in element.integrands(*args).items()}

    def advance(self, old, new) -> None:
        """Add the trapezoid of the accepted step ``old → new``."""
        if not self.elements:
            return
        rates = self._rates(new)
        h = new.t - old.t
        for key, rate in rates.items():
            self.values[key] = self.values.get(key, 0.0) + 0.5 * h * (self.rates.get(key, 0.0) + rate)
        self.rates = rates

    def warnings(self) -> list[str]:
        """The elements' own judgement of their integrals (``integral_warnings``), at the start state (the
        measurements there as the start's check found them, :func:`flexmbs.engine.preflight.check_start`)."""
        lines = []
        judging = [(k, e) for k, e in self.elements if hasattr(e, "integral_warnings")]
        if not judging:
            return lines
        state, system = self.start, self.system
        found = getattr(system, "start_measures", None)
        known = found[1] if found is not None and found[0] is state else {}
        ctx = None
        for k, element in judging:
            z_e = state.z[system.z_offsets[k]:system.z_offsets[k + 1]]
            if k in known:
                y, ydot = (x.copy() for x in known[k])
            else:
                ctx = ctx if ctx is not None else system.context(state.q, state.v, state.t)
                y, ydot, _ = measure(ctx, element.measurements)
            prefix = f"element/{element.name}/"
            own = {key[len(prefix):]: v for key, v in self.values.items() if key.startswith(prefix)}
            lines += element.integral_warnings(own, state.t, z_e, y, ydot)
        return lines
