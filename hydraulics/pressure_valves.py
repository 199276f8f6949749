"""Pilot-operated and pressure-controlled valves: counterbalance, pressure-reducing, 2-way pressure compensator,
pilot-operated check and shuttle valves, and the 2-way flow-control valve built from a compensator and an orifice.

Every valve here is a metering orifice (:func:`hydraulics.orifices.orifice_flow`, seed 002 eq. (5), (6)) whose
opening fraction ``s`` is a C1 cubic step (:func:`fem.scalar_laws.smoothstep`) of a pressure balance on the
poppet or spool: the spring (cracking or set pressure) against the hydraulic forces of the ports, as in the
steady-state models of Hopsan's pressure-control valves (docs/hydraulics.md has the table). With ``time_constant``
the opening lags the balance: state ``opening`` (1), ``o' = (s - o) / tau``, the spool dynamics of a pilot valve
(seed 002 eq. (4) applied to the opening). Flow convention: ``Q > 0`` from the first to the second port.
"""
from __future__ import annotations

import math

from fem.errors import ModelError

from .core import Component, non_negative, positive, store
from .fluid import HLP46
from .nodes import Volume
from .orifices import Orifice
from .valves import area_from_nominal_flow


class PilotValve(Component):
    """Base of a two-port metering valve whose opening follows a pressure balance (see the module docstring).

    Each kind sets ``ports`` (inlet first, outlet second) and states its ``balance`` (Pa) in its docstring: the
    valve opens from ``s = 0`` at ``balance = 0`` to ``s = 1`` at ``balance = opening_range`` (the law:
    :func:`hydraulics.kernel._pilot_opening`, ``_controlled``).

    Parameters
    ----------
    name : str
    area : float, m^2
        Fully open area of the metering edge.
    opening_range : float, Pa
        Pressure rise over which the valve goes from closed to fully open (the regulation band).
    discharge_coefficient : float, 1
    leakage_fraction : float, 1
        Area fraction left when closed (0: tight poppet).
    time_constant : float, s, optional
        First-order lag of the opening (spool/poppet dynamics).
    transition_pressure : float, Pa
        Laminar range of the orifice law.
    """

    OUTPUT_UNITS = {"flow": "m^3/s", "opening": "1", "power_loss": "W"}

    def __init__(self, name: str, area: float, opening_range: float, discharge_coefficient: float = 0.7,
                 leakage_fraction: float = 0.0, time_constant: float | None = None,
                 transition_pressure: float = 0.2e5):
        super().__init__(name)
        positive(name, area=area)
        store(self, positive, name, opening_range=opening_range, discharge_coefficient=discharge_coefficient,
              transition_pressure=transition_pressure)
        store(self, non_negative, name, leakage_fraction=leakage_fraction)
        if leakage_fraction >= 1.0:
            raise ModelError(f"'{name}': leakage_fraction must be below 1, got {leakage_fraction}")
        self.max_area = float(area)
        self.time_constant = None if time_constant is None else float(time_constant)
        if self.time_constant is not None:
            positive(name, time_constant=self.time_constant)
            self.state_names, self.state_units = ("opening",), ("1",)
        self.density = None

    @classmethod
    def from_datasheet(cls, name: str, nominal_flow: float, nominal_pressure_drop: float, *args,
                       response_time: float | None = None, density: float = HLP46.density,
                       discharge_coefficient: float = 0.7, **kwargs):
        """The valve sized from its datasheet: ``nominal_flow`` (m^3/s) through the fully open valve at
        ``nominal_pressure_drop`` (Pa) gives the area (seed 003 eq. (4-3)); a ``response_time`` (s, 0 -> 95 % of
        a step, the datasheet's opening time) gives the opening lag ``tau = -t / ln 0.05``. Further arguments as
        the class (after ``area``)."""
        area = area_from_nominal_flow(nominal_flow, nominal_pressure_drop, density, discharge_coefficient)
        if response_time is not None:
            positive(name, response_time=response_time)
            kwargs["time_constant"] = -response_time / math.log(0.05)
        return cls(name, area, *args, discharge_coefficient=discharge_coefficient, **kwargs)


class CounterbalanceValve(PilotValve):
    """Counterbalance (over-centre) valve: holds a load on port ``L`` until load and pilot pressure open it.

    Pressure balance of the poppet (outlet ``V`` back pressure acting on the spring side, a standard non-vented
    valve): ``b = (p_L - p_V) + psi (p_X - p_V) - p_crack``; the relief stage ``L -> V`` opens over
    ``opening_range``. With ``p_X = p_V`` it is a relief valve at ``p_crack``; a pilot pressure ``p_X`` lowers the
    load pressure that opens it by ``psi p_X`` (pilot ratio ``psi``). The reverse flow ``V -> L`` (lifting) passes a
    built-in check valve (``check_area``, ``check_cracking``).

    Parameters
    ----------
    name : str
    area : float, m^2
        Fully open area of the relief stage.
    cracking_pressure : float, Pa
        Setting ``p_crack`` (datasheets: 1.3 x the highest load-induced pressure).
    pilot_ratio : float, 1
        ``psi`` (area ratio pilot/relief seat; catalogue values 3:1 .. 10:1).
    opening_range : float, Pa
    check_area : float, m^2
    check_cracking : float, Pa
    Other parameters as :class:`PilotValve`.
    """

    ports = ("L", "V", "X")

    def __init__(self, name: str, area: float, cracking_pressure: float, pilot_ratio: float,
                 opening_range: float = 10.0e5, check_area: float | None = None, check_cracking: float = 0.5e5,
                 check_opening_range: float = 1.0e5, **kwargs):
        super().__init__(name, area, opening_range, **kwargs)
        store(self, positive, name, cracking_pressure=cracking_pressure, pilot_ratio=pilot_ratio,
              check_opening_range=check_opening_range)
        store(self, non_negative, name, check_cracking=check_cracking)
        self.check_area = float(area if check_area is None else check_area)
        positive(name, check_area=self.check_area)


class PressureReducingValve(PilotValve):
    """Direct-acting pressure-reducing valve ``P -> A``, normally open, closing as ``p_A`` reaches the setting.

    Balance ``b = p_set - (p_A - p_T)``: fully open for ``p_A - p_T`` below ``p_set - opening_range``, closed
    at ``p_A - p_T = p_set`` (spring chamber drained to ``T``). The regulated pressure therefore lies in
    ``[p_set - opening_range, p_set]`` over the flow range of the valve (the datasheet's pressure-flow curve).

    Parameters
    ----------
    name : str
    area : float, m^2
    set_pressure : float, Pa
    opening_range : float, Pa
    Other parameters as :class:`PilotValve`.
    """

    ports = ("P", "A", "T")

    def __init__(self, name: str, area: float, set_pressure: float, opening_range: float = 5.0e5, **kwargs):
        super().__init__(name, area, opening_range, **kwargs)
        store(self, positive, name, set_pressure=set_pressure)


class PressureCompensator(PilotValve):
    """2-way pressure compensator ``P -> A`` that keeps ``p_A - p_X`` at the spring setting ``dp_set``.

    Normally open; the spool sees ``p_A`` against the spring and ``p_X`` (the pressure downstream of the metering
    orifice it serves: the load or load-sensing pressure). Balance ``b = dp_set - (p_A - p_X)``: fully open while the
    metering orifice sees less than ``dp_set - opening_range``, closed at ``dp_set``. In regulation the metering
    pressure drop lies in ``[dp_set - opening_range, dp_set]`` whatever the supply and load pressures (the
    compensator's accuracy): the flow of the metering orifice is independent of the load.

    Parameters
    ----------
    name : str
    area : float, m^2
    pressure_difference : float, Pa
        Spring setting ``dp_set``.
    opening_range : float, Pa
    Other parameters as :class:`PilotValve`.
    """

    ports = ("P", "A", "X")

    def __init__(self, name: str, area: float, pressure_difference: float, opening_range: float = 1.0e5,
                 **kwargs):
        super().__init__(name, area, opening_range, **kwargs)
        store(self, positive, name, pressure_difference=pressure_difference)


class PilotOperatedCheckValve(PilotValve):
    """Pilot-operated check valve: free flow ``A -> B``; reverse flow ``B -> A`` once the pilot ``X`` opens it.

    Two poppet balances combined as ``s = 1 - (1 - s_f)(1 - s_p)`` (smooth "either opens it"):
    forward ``b_f = p_A - p_B - p_crack`` and pilot ``b_p = psi (p_X - p_A) - (p_B - p_A) - p_crack`` (pilot piston
    area ``psi`` times the poppet seat area, drain of the pilot piston on ``A``). The flow through the poppet is the
    orifice law in either direction.

    Parameters
    ----------
    name : str
    area : float, m^2
    pilot_ratio : float, 1
        ``psi`` (catalogue 1:3 .. 1:20 written as 3 .. 20).
    cracking_pressure : float, Pa
    opening_range : float, Pa
    Other parameters as :class:`PilotValve`.
    """

    ports = ("A", "B", "X")

    def __init__(self, name: str, area: float, pilot_ratio: float, cracking_pressure: float = 0.5e5,
                 opening_range: float = 2.0e5, **kwargs):
        super().__init__(name, area, opening_range, **kwargs)
        store(self, positive, name, pilot_ratio=pilot_ratio)
        store(self, non_negative, name, cracking_pressure=cracking_pressure)


class ShuttleValve(Component):
    """Shuttle (OR) valve: the higher of ``A`` and ``B`` is connected to ``C``, the other inlet is shut.

    The ball position is the static C1 step ``s = step(p_A - p_B; -w, w)`` (``w = switching_range``): edge
    ``A -> C`` has area ``A_max s``, edge ``B -> C`` ``A_max (1 - s)``; each follows the orifice law. Used to select
    the highest load pressure for a load-sensing line.

    Parameters
    ----------
    name : str
    area : float, m^2
    switching_range : float, Pa
    discharge_coefficient : float, 1
    """

    OUTPUT_UNITS = {"flow_AC": "m^3/s", "flow_BC": "m^3/s"}

    ports = ("A", "B", "C")

    def __init__(self, name: str, area: float, switching_range: float = 0.5e5, discharge_coefficient: float = 0.7,
                 transition_pressure: float = 0.2e5):
        super().__init__(name)
        positive(name, area=area)
        store(self, positive, name, switching_range=switching_range, discharge_coefficient=discharge_coefficient,
              transition_pressure=transition_pressure)
        self.max_area, self.density = float(area), None


def add_flow_control_valve(circuit, name: str, inlet: str, outlet: str, flow: float, pressure_difference: float,
                           compensator_area: float, intermediate_volume: float = 1.0e-6,
                           opening_range: float = 1.0e5, time_constant: float | None = 2.0e-3,
                           discharge_coefficient: float = 0.7) -> tuple:
    """A pressure-compensated 2-way flow-control valve ``inlet -> outlet``: a :class:`PressureCompensator` in series
    with a fixed metering orifice sized for ``flow`` at ``pressure_difference`` (the compensator's setting).

    Adds ``NAME.compensator`` (``inlet -> NAME.mid``), the volume ``NAME.mid`` and the orifice ``NAME.orifice``
    (``NAME.mid -> outlet``); the compensator senses ``outlet``. The set flow ``Q = C_d A sqrt(2 dp_set / rho)`` holds
    for ``p_inlet - p_outlet`` above ``dp_set`` plus the compensator's own drop.

    Parameters
    ----------
    circuit : Circuit
    name, inlet, outlet : str
    flow : float, m^3/s
        Set flow (at the compensator's spring setting).
    pressure_difference : float, Pa
    compensator_area : float, m^2
    intermediate_volume : float, m^3
    opening_range : float, Pa
    time_constant : float or None, s
    discharge_coefficient : float, 1

    Returns
    -------
    (PressureCompensator, Volume, Orifice)
    """
    positive(name, flow=flow)
    area = area_from_nominal_flow(flow, pressure_difference, circuit.fluid.density, discharge_coefficient)
    mid = f"{name}.mid"
    volume = circuit.add(Volume(mid, intermediate_volume))
    comp = circuit.add(PressureCompensator(f"{name}.compensator", compensator_area, pressure_difference,
                                           opening_range, discharge_coefficient=discharge_coefficient,
                                           time_constant=time_constant), P=inlet, A=mid, X=outlet)
    orifice = circuit.add(Orifice(f"{name}.orifice", area, discharge_coefficient), A=mid, B=outlet)
    return comp, volume, orifice
