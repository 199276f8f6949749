"""A state element that rescales the states of a hydraulic circuit (a workaround for one absolute tolerance).

``flexmbs.simulate`` applies one absolute tolerance ``atol`` to positions (m) and to the element states (Pa for
pressures). Chamber pressures that sit near zero (tank side of a valve, a bore side close to its cavitation floor)
then get an error scale of ~``atol`` Pa, i.e. micro-pascals, and the step size collapses (measured here: the
stick's bore pressure limited 90 % of the steps). :class:`ScaledCircuit` presents the circuit's states divided by
``scale`` (per state), so the integrator's ``atol`` means ``atol * scale`` in the circuit's units; the relative
tolerance is unchanged. It also evaluates the circuit once per point for ``rates`` and ``forces`` (the solver asks
for both, the forces several times per point): the evaluation is kept for the point ``(t, z, y, ydot)`` and the
signal methods replaced on the instance (the input offsets of flexmbs.linearize replace a signal's ``evaluate``), so
an offset input is never served from the evaluation without it. Outputs (``"A.pressure"`` etc.) stay in SI units.
"""
from __future__ import annotations

import numpy as np

__all__ = ["ScaledCircuit"]


class ScaledCircuit:
    """The state-element protocol (docs/element-protocol.md) around a ``hydraulics.Circuit`` with scaled states.

    Parameters
    ----------
    circuit : hydraulics.Circuit
    pressure_scale : float, Pa
        Unit of the presented pressure states (the other states keep scale 1).
    """

    def __init__(self, circuit, pressure_scale: float):
        self.circuit = circuit
        self.name = circuit.name
        self.measurements = circuit.measurements
        self.state_names = list(circuit.state_names)
        units = list(circuit.state_units)
        self.scale = np.array([pressure_scale if u == "Pa" else 1.0 for u in units])
        self.state_units = [f"{s:g} {u}" if s != 1.0 else u for s, u in zip(self.scale, units)]
        self.output_units = circuit.output_units
        self._signals = [c for c in circuit.components if callable(getattr(c, "evaluate", None))]
        self._key = None
        self._ev = None

    def _evaluate(self, t, z, y, ydot):
        overrides = tuple(vars(s).get("evaluate") for s in self._signals)  # functions compare by identity
        key = (t, np.asarray(z).tobytes(), np.asarray(y).tobytes(), np.asarray(ydot).tobytes(), overrides)
        if key != self._key:
            self._ev = self.circuit.evaluate(t, z * self.scale, y, ydot)
            self._key = key
        return self._ev

    def initial_state(self) -> np.ndarray:
        return np.asarray(self.circuit.initial_state(), dtype=float) / self.scale

    def rates(self, t, z, y, ydot) -> np.ndarray:
        return self._evaluate(t, z, y, ydot).rates / self.scale

    def forces(self, t, z, y, ydot) -> np.ndarray:
        return self._evaluate(t, z, y, ydot).forces

    def jacobians(self, t, z, y, ydot) -> dict:
        ev = self._evaluate(t, z, y, ydot)
        nz, ny, s = ev.n_z, ev.n_y, self.scale
        dr, df = ev.d_rates, ev.d_forces
        return {"rates_z": dr[:, :nz] * s[None, :] / s[:, None], "rates_y": dr[:, nz:nz + ny] / s[:, None],
                "rates_ydot": dr[:, nz + ny:] / s[:, None], "forces_z": df[:, :nz] * s[None, :],
                "forces_y": df[:, nz:nz + ny], "forces_ydot": df[:, nz + ny:]}

    def compiled_element(self):
        """The circuit's compiled kernel (hydraulics.layout) with this element's state scale; no event gaps and
        no integrands, as this element declares none."""
        spec, why = self.circuit.compiled_element()
        if spec is not None:
            spec.state_scale, spec.gap_names = self.scale, []
        return spec, why

    def outputs(self, t, z, y, ydot) -> dict:
        return self.circuit.outputs(t, z * self.scale, y, ydot)

    def pressures(self, z) -> np.ndarray:
        """States in the circuit's units (Pa) from presented states."""
        return np.asarray(z) * self.scale
