"""Variable-displacement pump with a pressure compensator (cut-off) and a load-sensing controller."""
from __future__ import annotations

from fem.errors import ModelError

from .core import Component, non_negative, positive, store
from .signals import as_signal


class VariableDisplacementPump(Component):
    """Swash-plate pump ``S -> P`` with a pressure compensator and, with ``margin_pressure``, load sensing.

    State ``displacement_fraction`` ``eps`` (1 = full swash angle). The controller sets the pressure target

        p_ref = p_c                                  (pressure compensator only)
        p_ref = min(p_LS + dp_margin, p_c)           (load sensing, min rounded over ``dp_band / 10``)

    and commands the swash plate proportionally to the pressure error, ``eps_cmd = clamp((p_ref - p_P) / dp_band)``
    to [0, 1] (C1 clamp); the swash plate follows with a first-order lag ``eps' = (eps_cmd - eps) / tau`` (the
    regulator of Hopsan's HydraulicPressureControlledPump reduced to its static characteristic ``r_p`` and one
    time constant). In steady state the pump pressure lies in ``[p_ref - dp_band, p_ref]``: ``dp_band`` is the
    regulator droop between standby (``eps = 0``) and full flow (``eps = 1``), ``p_P = p_ref - eps dp_band``.
    Delivered flow ``Q = eps D n - G_leak (p_P - p_S)``. The LS port draws no flow.

    Parameters
    ----------
    name : str
    displacement : float, m^3/rev
        Maximum displacement ``D``.
    speed : float or callable or Signal, rev/s
    compensator_pressure : float, Pa
        Cut-off ``p_c`` (gauge).
    margin_pressure : float, Pa, optional
        Load-sensing margin ``dp_margin`` (standby); adds port ``LS``.
    regulation_band : float, Pa
        ``dp_band``.
    time_constant : float, s
        Swash-plate lag ``tau`` (datasheets: response/settling time from zero to full stroke ~ 3 tau).
    leakage_conductance : float, m^3/(s Pa)
    initial_fraction : float, 1
    """

    SIGNALS = ("speed",)

    OUTPUT_UNITS = {"flow": "m^3/s", "displacement_fraction": "1", "target_pressure": "Pa", "hydraulic_power": "W",
                    "shaft_power": "W"}

    state_names = ("displacement_fraction",)
    state_units = ("1",)

    def __init__(self, name: str, displacement: float, speed, compensator_pressure: float,
                 margin_pressure: float | None = None, regulation_band: float = 5.0e5, time_constant: float = 0.03,
                 leakage_conductance: float = 0.0, initial_fraction: float = 0.0):
        super().__init__(name)
        store(self, positive, name, displacement=displacement, compensator_pressure=compensator_pressure,
              regulation_band=regulation_band, time_constant=time_constant)
        store(self, non_negative, name, leakage_conductance=leakage_conductance)
        if margin_pressure is not None:
            positive(name, margin_pressure=margin_pressure)
        if not 0.0 <= initial_fraction <= 1.0:
            raise ModelError(f"'{name}': initial_fraction must be in [0, 1], got {initial_fraction}")
        self.margin_pressure = None if margin_pressure is None else float(margin_pressure)
        self.speed = as_signal(speed, f"{name}.speed", unit="rev/s")
        self.ports = ("S", "P") if margin_pressure is None else ("S", "P", "LS")
        self._initial["displacement_fraction"] = float(initial_fraction)
