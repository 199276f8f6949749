"""Gas-loaded (bladder, diaphragm, piston) accumulator with a polytropic gas law and precharge."""
from __future__ import annotations

from fem.errors import ModelError

from .core import Component, positive, store
from .laws import ATMOSPHERE


class GasAccumulator(Component):
    """A gas accumulator on port ``P``: state ``oil_volume`` (m^3 of oil inside).

    Gas (absolute pressures, polytropic change from the precharge state, the gas law of Hopsan's
    HydraulicAckumulator and of any fluid-power text): ``(p_g + p_atm) (V_0 - V_oil)^n = (p_0 + p_atm) V_0^n``, i.e.

        p_g = (p_0 + p_atm) (V_0 / (V_0 - V_oil))^n - p_atm,

    with the nominal gas volume ``V_0`` (the accumulator size of the datasheet), the precharge ``p_0`` (gauge) and
    the polytropic index ``n`` (1 isothermal for slow cycles, 1.4 adiabatic for fast ones; datasheets size with
    both). The oil flows in through the port resistance (orifice law, seed 002 eq. (5)) ``Q = orifice(p_P - p_g)``
    and ``dV_oil/dt = Q``. Below the precharge the bladder closes the anti-extrusion poppet: the outflow area is
    multiplied by ``step(V_oil; 0, V_close)``, so the accumulator cannot give more oil than it holds (the
    inflow is never shut: the gate is blended by ``step(p_P - p_g; -w, w)``). The gas volume is guarded below by
    ``0.01 V_0`` (a full accumulator; the guard is reported by the output ``gas_volume``).

    Parameters
    ----------
    name : str
    gas_volume : float, m^3
        ``V_0``, nominal gas volume (the size, e.g. 4 L).
    precharge : float, Pa (gauge)
        ``p_0``.
    polytropic_index : float, 1
    port_area : float, m^2
        Area of the port resistance.
    discharge_coefficient : float, 1
    initial_pressure : float, Pa (gauge), optional
        Start in equilibrium with this pressure (sets ``oil_volume``).
    closing_volume : float, m^3, optional
        ``V_close`` of the poppet (default ``1e-3 V_0``).
    """

    OUTPUT_UNITS = {"flow": "m^3/s", "gas_pressure": "Pa", "oil_volume": "m^3", "gas_volume": "m^3"}

    ports = ("P",)
    state_names = ("oil_volume",)
    state_units = ("m^3",)

    def __init__(self, name: str, gas_volume: float, precharge: float, polytropic_index: float = 1.4,
                 port_area: float = 1.0e-4, discharge_coefficient: float = 0.7, initial_pressure: float | None = None,
                 closing_volume: float | None = None, switching_pressure: float = 1.0e4,
                 transition_pressure: float = 0.2e5):
        super().__init__(name)
        store(self, positive, name, gas_volume=gas_volume, polytropic_index=polytropic_index, port_area=port_area,
              discharge_coefficient=discharge_coefficient, switching_pressure=switching_pressure,
              transition_pressure=transition_pressure)
        if precharge + ATMOSPHERE <= 0.0:
            raise ModelError(f"'{name}': precharge must be above vacuum (> -{ATMOSPHERE} Pa gauge), got {precharge}")
        self.precharge, self.density = float(precharge), None
        self.closing_volume = float(1.0e-3 * gas_volume if closing_volume is None else closing_volume)
        positive(name, closing_volume=self.closing_volume)
        if initial_pressure is not None:
            self._initial["oil_volume"] = self.equilibrium_oil_volume(initial_pressure)

    def equilibrium_oil_volume(self, pressure: float) -> float:
        """Oil held at a gauge pressure (m^3): ``V_0 (1 - ((p_0 + p_atm)/(p + p_atm))^(1/n))``, 0 below ``p_0``."""
        if pressure <= self.precharge:
            return 0.0
        ratio = (self.precharge + ATMOSPHERE) / (pressure + ATMOSPHERE)
        return self.gas_volume * (1.0 - ratio ** (1.0 / self.polytropic_index))
