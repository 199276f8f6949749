"""Valves specified from their datasheets (e.g. Bosch Rexroth 4WREE, Parker D1FB, Moog D633): nominal flow at a
rated pressure drop, command range, dead band, spool bandwidth and damping, hysteresis; and the 3/2 valve.

:func:`valve_from_datasheet` turns them into the table-based :class:`~hydraulics.valves.DirectionalValve`: edge
area of seed 003 eq. (4-3), overlap = dead band, a :class:`~hydraulics.valves.SecondOrderSpool` whose natural
frequency is the datasheet's -90 deg frequency (a PT2 has phase -90 deg exactly at ``w``), and the command chain
raw signal -> :class:`NormalisedCommand` -> :class:`Hysteresis` (docs/hydraulics.md, "Datasheet parameterization").
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from fem.errors import ModelError

from .core import Signal, non_negative, positive
from .fluid import HLP46
from .signals import as_signal
from .valves import (DirectionalValve, SecondOrderSpool, _edge, area_from_nominal_flow, closed_centre_valve,
                     open_centre_valve, tandem_centre_valve)


@dataclass(frozen=True)
class CommandRange:
    """Electrical command range of a valve amplifier (SI: V or A) mapped linearly onto ``U`` in [-1, 1].

    Attributes
    ----------
    minimum, maximum : float
        Command at ``U = -1`` and ``U = +1`` (V or A).
    unit : str
    """

    minimum: float
    maximum: float
    unit: str

    def __post_init__(self):
        if not self.maximum > self.minimum:
            raise ModelError(f"command range: maximum must exceed minimum, got [{self.minimum}, {self.maximum}]")

    @property
    def centre(self) -> float:
        """Command at ``U = 0``."""
        return 0.5 * (self.minimum + self.maximum)

    @property
    def half_span(self) -> float:
        """Command change from centre to ``U = 1``."""
        return 0.5 * (self.maximum - self.minimum)


VOLTAGE_10V = CommandRange(-10.0, 10.0, "V")
"""+-10 V (0 V = centre)."""
CURRENT_4_20MA = CommandRange(4.0e-3, 20.0e-3, "A")
"""4..20 mA (12 mA = centre), in A."""
VOLTAGE_0_10V = CommandRange(0.0, 10.0, "V")
"""0..10 V (5 V = centre)."""


class NormalisedCommand(Signal):
    """A raw command (V or A) as the normalised spool reference ``U = (c - c_centre) / c_half_span``.

    Parameters
    ----------
    name : str
    raw : float or callable or Signal
        The amplifier command in the unit of ``command_range``.
    command_range : CommandRange
    """

    INPUTS = ("raw",)

    def __init__(self, name: str, raw, command_range: CommandRange):
        super().__init__(name)
        self.raw = as_signal(raw, f"{name}.raw", unit=command_range.unit)
        self.command_range = command_range


class Hysteresis(Signal):
    """Backlash (play) hysteresis of half-width ``b`` on a signal, as a fast first-order state.

    ``r' = (softplus(u - r - b, w) - softplus(r - u - b, w)) / tau``: the output ``r`` stays while ``|u - r| < b``
    and follows ``u`` at a distance ``b`` otherwise (a play operator, whose loop width ``2 b`` is the datasheet
    hysteresis), with the lag ``tau`` (default 0.1 ms, far above any valve's bandwidth) and the corners rounded over
    ``w = b / 100``. Following a ramp ``u'`` the output trails by
    ``b + w ln(expm1(|u'| tau / w))`` (about ``b + |u'| tau``): measured at a slow command, as
    datasheets do, the loop width is ``2 b``.

    Parameters
    ----------
    name : str
    input_signal : Signal or float or callable
    width : float
        Loop width ``2 b`` in the unit of the input (datasheet hysteresis x command span).
    time_constant : float, s
    """

    INPUTS = ("input_signal",)

    state_names = ("output",)

    def __init__(self, name: str, input_signal, width: float, time_constant: float = 1.0e-4, unit: str = "1"):
        super().__init__(name, unit)
        positive(name, width=width, time_constant=time_constant)
        self.input_signal = as_signal(input_signal, f"{name}.input")
        self.half_width, self.time_constant = 0.5 * float(width), float(time_constant)
        self.state_units = (unit,)


@dataclass(frozen=True)
class ValveDatasheet:
    """The datasheet numbers of a proportional directional valve (SI units).

    Attributes
    ----------
    nominal_flow : float, m^3/s
        ``Q_nom`` at ``rated_pressure_drop`` and full command.
    rated_pressure_drop : float, Pa
    per_edge : bool
        True if ``rated_pressure_drop`` is per metering edge, False if across the valve (two edges in series:
        ``dp_edge = dp / 2``).
    command_range : CommandRange
    dead_band : float, 1
        Overlap as a fraction of the full command (0.05 = 5 %).
    frequency_90deg : float, Hz, optional
        Frequency at -90 deg phase (small signal). None: the spool follows the command instantly.
    damping_ratio : float, 1
        Of the equivalent PT2 (datasheet amplitude ratio at -90 deg ``= 1 / (2 zeta)``).
    hysteresis : float, 1
        Loop width as a fraction of the full command span ``U`` in [-1, 1] (0.002 = 0.2 %); 0 for none.
    discharge_coefficient : float, 1
    """

    nominal_flow: float
    rated_pressure_drop: float
    per_edge: bool = True
    command_range: CommandRange = VOLTAGE_10V
    dead_band: float = 0.0
    frequency_90deg: float | None = None
    damping_ratio: float = 0.7
    hysteresis: float = 0.0
    discharge_coefficient: float = 0.7

    def __post_init__(self):
        positive("valve datasheet", nominal_flow=self.nominal_flow, rated_pressure_drop=self.rated_pressure_drop,
                 damping_ratio=self.damping_ratio, discharge_coefficient=self.discharge_coefficient)
        non_negative("valve datasheet", hysteresis=self.hysteresis)
        if not 0.0 <= self.dead_band < 1.0:
            raise ModelError(f"valve datasheet: dead_band must be in [0, 1) of the command, got {self.dead_band}")
        if self.frequency_90deg is not None:
            positive("valve datasheet", frequency_90deg=self.frequency_90deg)

    @property
    def edge_pressure_drop(self) -> float:
        """Pressure drop per metering edge at the nominal flow, Pa."""
        return self.rated_pressure_drop if self.per_edge else 0.5 * self.rated_pressure_drop

    def edge_area(self, density: float) -> float:
        """Fully open edge area, m^2 (seed 003 eq. (4-3))."""
        return area_from_nominal_flow(self.nominal_flow, self.edge_pressure_drop, density,
                                      self.discharge_coefficient)

    def spool(self) -> SecondOrderSpool | None:
        """The PT2 spool with ``w_n = 2 pi f_-90`` and the datasheet damping, or None."""
        if self.frequency_90deg is None:
            return None
        return SecondOrderSpool(2.0 * math.pi * self.frequency_90deg, self.damping_ratio)


def three_way_valve(name: str, max_area: float, command, spool=None, overlap: float = 0.0, **kwargs):
    """3/2 valve: ``U > 0`` connects P->A, ``U < 0`` A->T; both closed within ``|U| < overlap``.

    A switching (solenoid) 3/2 valve is the same with the command mapped to ``U = -1`` (rest, A->T, normally
    closed towards P) and ``U = +1`` (energised).
    """
    return DirectionalValve(name, [_edge("P", "A", overlap, 1.0), _edge("A", "T", -overlap, -1.0)], max_area,
                            command, spool, **kwargs)


_KINDS = {"4/3-closed": closed_centre_valve, "3/2": three_way_valve}


def valve_from_datasheet(name: str, datasheet: ValveDatasheet, command, kind: str = "4/3-closed",
                         density: float = HLP46.density, centre_fraction: float = 0.3, centre_closing: float = 0.3):
    """A directional valve from datasheet numbers (see the module docstring).

    Parameters
    ----------
    name : str
    datasheet : ValveDatasheet
    command : float or callable or Signal
        The raw amplifier command in the datasheet's unit (V or A), e.g. ``lambda t: 10.0``.
    kind : {"4/3-closed", "4/3-open", "4/3-tandem", "3/2"}
    density : float, kg/m^3
        Of the fluid the datasheet was measured with (ISO VG46 mineral oil usually).
    centre_fraction, centre_closing : float
        Neutral-position opening of open- and tandem-centre spools (not datasheet numbers: assumed).

    Returns
    -------
    DirectionalValve
        Its command is the chain raw -> :class:`NormalisedCommand` (-> :class:`Hysteresis`).
    """
    area = datasheet.edge_area(density)
    u = NormalisedCommand(f"{name}.U", command, datasheet.command_range)
    if datasheet.hysteresis > 0.0:
        u = Hysteresis(f"{name}.hysteresis", u, 2.0 * datasheet.hysteresis)
    spool, cd, d = datasheet.spool(), datasheet.discharge_coefficient, datasheet.dead_band
    if kind in _KINDS:
        return _KINDS[kind](name, area, u, spool, overlap=d, discharge_coefficient=cd)
    if kind in ("4/3-open", "4/3-tandem"):
        if d > 0.0:
            raise ModelError(f"valve '{name}': a dead band is only modelled for the closed-centre and 3/2 kinds; "
                             "give dead_band=0 for an open or tandem centre (the centre tables set the neutral)")
        factory = open_centre_valve if kind == "4/3-open" else tandem_centre_valve
        return factory(name, area, u, spool, centre_fraction=centre_fraction, centre_closing=centre_closing,
                       discharge_coefficient=cd)
    raise ModelError(f"valve '{name}': kind must be one of '4/3-closed', '4/3-open', '4/3-tandem', '3/2', "
                     f"got {kind!r}")

