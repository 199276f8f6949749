"""Resistive flow elements: orifice, throttle, check valve, pressure-relief valve.

Flow convention: a two-port element with ports ``A`` and ``B`` carries ``Q > 0`` from ``A`` to ``B``.
"""
from __future__ import annotations

import math

from fem.errors import ModelError

from .core import Component, non_negative, positive, store
from .signals import as_signal
from . import laws

#: Laminar-turbulent transition pressure drop of seed 002 (Delta p_lim = 2 bar), Pa.
DEFAULT_TRANSITION_PRESSURE = 2.0e5


def flow_coefficient(area: float, discharge_coefficient: float, density: float) -> float:
    """Semi-empirical flow coefficient ``C_v = C_d A sqrt(2/rho)`` of seed 002 eq. (5), m^3/(s Pa^0.5)."""
    return discharge_coefficient * area * math.sqrt(2.0 / density)


def orifice_flow(pressure_drop: float, coefficient: float, transition_pressure: float = DEFAULT_TRANSITION_PRESSURE,
                 transition: str = "cubic") -> tuple[float, float, float]:
    """The orifice law :func:`hydraulics.laws.orifice_flow` (square-root law, laminar region of
    ``transition_pressure``; equations there) with the transition named ``"cubic"`` or ``"linear"``.

    Returns
    -------
    flow : float, m^3/s
    d_flow_d_pressure : float, m^3/(s Pa)
    d_flow_d_coefficient : float, Pa^0.5
    """
    return laws.orifice_flow(pressure_drop, coefficient, transition_pressure, transition != "linear")


class Orifice(Component):
    """A sharp-edged orifice (fixed or variable area) between ports ``A`` and ``B``.

    ``Q = C_d A sqrt(2 |dp| / rho) sign(dp)`` with the laminar region of :func:`orifice_flow`.

    Parameters
    ----------
    name : str
    area : float or callable or Signal
        Opening area, m^2 (a signal makes it a variable orifice).
    discharge_coefficient : float, 1
        ``C_d`` (0.6..0.9, seed 003 §2.2.1.5).
    transition_pressure : float, Pa
        ``dp_lim`` of seed 002 eq. (6).
    transition : {"cubic", "linear"}
    """

    SIGNALS = ("area",)

    OUTPUT_UNITS = {"flow": "m^3/s", "power_loss": "W"}

    ports = ("A", "B")

    def __init__(self, name: str, area, discharge_coefficient: float = 0.7,
                 transition_pressure: float = DEFAULT_TRANSITION_PRESSURE, transition: str = "cubic"):
        super().__init__(name)
        if isinstance(area, (str, bytes)):  # issue 43: '1e-6' became a constant signal of text
            raise ModelError(f"'{name}': area must be a number in m^2, a function of time or a signal, got {area!r}")
        if isinstance(area, (int, float)) and not area >= 0.0:  # nan too (issue 43)
            raise ModelError(f"'{name}': area must not be negative, got {area} m^2")
        if isinstance(area, (int, float)) and not math.isfinite(area):
            raise ModelError(f"'{name}': area must be a finite number in m^2, got {area}")
        positive(name, discharge_coefficient=discharge_coefficient, transition_pressure=transition_pressure)
        if discharge_coefficient > 1.0:  # issue 43: 5 was accepted (an orifice passes less than its ideal flow)
            raise ModelError(f"'{name}': discharge_coefficient must be in (0, 1] (0.6-0.8 for a sharp edge), got "
                             f"{discharge_coefficient}")
        if transition not in ("cubic", "linear"):
            raise ModelError(f"'{name}': transition must be 'cubic' or 'linear'")
        self.area = as_signal(area, f"{name}.area", unit="m^2")
        self.discharge_coefficient = float(discharge_coefficient)
        self.transition_pressure = float(transition_pressure)
        self.transition = transition
        self.density = None  # set by the circuit from its fluid


class Throttle(Orifice):
    """A throttle valve given by its flow coefficient ``C_vt`` (seed 002 eq. (5)): ``Q = C_vt sqrt(|dp|) sign(dp)``.

    Parameters
    ----------
    name : str
    flow_coefficient : float, m^3/(s Pa^0.5)
    transition_pressure : float, Pa
    transition : {"cubic", "linear"}
    """

    SIGNALS = ()

    def __init__(self, name: str, flow_coefficient: float, transition_pressure: float = DEFAULT_TRANSITION_PRESSURE,
                 transition: str = "cubic"):
        if flow_coefficient < 0.0:
            raise ModelError(f"'{name}': flow_coefficient must not be negative, got {flow_coefficient}")
        super().__init__(name, 0.0, 1.0, transition_pressure, transition)
        self.flow_coefficient = float(flow_coefficient)


class CheckValve(Component):
    """A check valve that lets fluid pass from ``A`` to ``B`` once ``p_A - p_B`` exceeds the cracking pressure.

    Opening area ``A(dp) = A_max (eps + (1 - eps) step(dp; p_crack, p_crack + dp_open))`` with a C1 cubic step
    and a leakage fraction ``eps``; the flow follows the orifice law of :func:`orifice_flow`.

    Parameters
    ----------
    name : str
    area : float, m^2
        Fully open area ``A_max``.
    cracking_pressure : float, Pa
    opening_pressure_range : float, Pa
        Pressure rise above cracking at which the valve is fully open.
    discharge_coefficient : float, 1
    leakage_fraction : float, 1
        ``eps``, area fraction when closed.
    """

    OUTPUT_UNITS = {"flow": "m^3/s", "power_loss": "W"}

    ports = ("A", "B")

    def __init__(self, name: str, area: float, cracking_pressure: float = 0.5e5,
                 opening_pressure_range: float = 1.0e5, discharge_coefficient: float = 0.7,
                 leakage_fraction: float = 0.0, transition_pressure: float = 0.2e5):
        super().__init__(name)
        positive(name, area=area)
        store(self, positive, name, opening_pressure_range=opening_pressure_range,
              discharge_coefficient=discharge_coefficient, transition_pressure=transition_pressure)
        store(self, non_negative, name, cracking_pressure=cracking_pressure, leakage_fraction=leakage_fraction)
        self.max_area, self.density = float(area), None


class ReliefValve(Component):
    """Pressure-relief valve from ``P`` to ``T`` with the linear static characteristic of seed 001 eq. (43).

    ``Q = k_v (dp - p_cr)`` above the cracking pressure, 0 below, with ``dp = p_P - p_T``; the corner is rounded by
    ``Q = k_v w softplus((dp - p_cr)/w)`` (error below ``k_v w e^{-(dp - p_cr)/w}`` away from the corner). With
    ``time_constant`` the opening lags: state ``o`` (Pa), ``o' = (softplus - o)/tau``, ``Q = k_v o``.

    Parameters
    ----------
    name : str
    cracking_pressure : float, Pa
        ``p_cr``.
    flow_gain : float, m^3/(s Pa)
        ``k_v``, slope of the static characteristic.
    width : float, Pa
        Rounding width ``w`` of the corner.
    time_constant : float, s, optional
        First-order opening dynamics.
    """

    OUTPUT_UNITS = {"flow": "m^3/s", "power_loss": "W"}

    ports = ("P", "T")

    def __init__(self, name: str, cracking_pressure: float, flow_gain: float, width: float = 1.0e4,
                 time_constant: float | None = None):
        super().__init__(name)
        store(self, positive, name, cracking_pressure=cracking_pressure, flow_gain=flow_gain, width=width)
        self.time_constant = None if time_constant is None else float(time_constant)
        if self.time_constant is not None:
            positive(name, time_constant=self.time_constant)
            self.state_names, self.state_units = ("opening",), ("Pa",)
