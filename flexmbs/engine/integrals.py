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
        """The elements' own judgement of their integrals (``integral_warnings``), at the start state."""
        lines = []
        if not self.elements:
            return lines
        for element, args in self._arguments(self.start):
            if hasattr(element, "integral_warnings"):
                prefix = f"element/{element.name}/"
                own = {k[len(prefix):]: v for k, v in self.values.items() if k.startswith(prefix)}
                lines += element.integral_warnings(own, *args)
        return lines
