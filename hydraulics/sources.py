"""Flow sources: the fixed-displacement pump (with optional built-in relief)."""
from __future__ import annotations

import math

from fem.errors import ModelError

from .core import Component, non_negative, positive, store
from .signals import as_signal


class FixedDisplacementPump(Component):
    """Fixed-displacement pump from suction ``S`` to pressure port ``P``.

    ``Q = D n - G_leak (p_P - p_S) - Q_relief`` with the geometric flow ``D n`` (displacement times shaft speed),
    a laminar leakage conductance and, if ``relief_pressure`` is given, a built-in relief valve back to the
    suction side with the characteristic of seed 001 eq. (43): ``Q_relief = k_v max(p_P - p_S - p_cr, 0)``
    (rounded over ``relief_width``).

    Parameters
    ----------
    name : str
    displacement : float, m^3/rev
    speed : float or callable or Signal, rev/s
    leakage_conductance : float, m^3/(s Pa)
    relief_pressure : float, Pa, optional
    relief_gain : float, m^3/(s Pa)
    relief_width : float, Pa
    """

    SIGNALS = ("speed",)

    OUTPUT_UNITS = {"flow": "m^3/s", "hydraulic_power": "W", "shaft_power": "W"}

    ports = ("S", "P")

    def __init__(self, name: str, displacement: float, speed, leakage_conductance: float = 0.0,
                 relief_pressure: float | None = None, relief_gain: float = 1.0e-9, relief_width: float = 1.0e4):
        super().__init__(name)
        store(self, positive, name, displacement=displacement, relief_gain=relief_gain, relief_width=relief_width)
        store(self, non_negative, name, leakage_conductance=leakage_conductance)
        if relief_pressure is not None:
            positive(name, relief_pressure=relief_pressure)
        self.speed = as_signal(speed, f"{name}.speed", unit="rev/s")
        self.relief_pressure = relief_pressure

    @classmethod
    def from_flow(cls, name: str, flow: float, **kwargs) -> "FixedDisplacementPump":
        """A pump that delivers a geometric flow (m^3/s) at 1 rev/s."""
        if isinstance(flow, (str, bytes, bool)) or not isinstance(flow, (int, float)) or not math.isfinite(flow):
            raise ModelError(f"pump {name!r}: flow must be a finite number in m^3/s, got {flow!r}")
        return cls(name, displacement=flow, speed=1.0, **kwargs)
