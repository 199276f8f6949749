"""Directional and proportional control valves with spool dynamics.

A valve is a set of metering edges (``SpoolPath``): each connects two ports through an orifice whose opening
area is a table of the normalised spool position ``U`` in [-1, 1] (seed 003 §3.2.2.1: look-up tables of the
relative opening area of one port vs spool position; seed 002 eq. (3): ``Q = C_v U sqrt(|dp|)``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fem.errors import ModelError

from .core import Component, positive, store
from .orifices import DEFAULT_TRANSITION_PRESSURE
from .signals import as_signal


@dataclass
class SpoolPath:
    """One metering edge: flow from ``from_port`` to ``to_port`` through ``A = A_max * fraction(U)``.

    Parameters
    ----------
    from_port, to_port : str
    positions : sequence of float, 1
        Normalised spool positions (strictly increasing, within [-1, 1]).
    fractions : sequence of float, 1
        Relative opening area at those positions (0 closed, 1 = ``max_area``).
    """

    from_port: str
    to_port: str
    positions: tuple
    fractions: tuple

    def __post_init__(self):
        self.positions = np.asarray(self.positions, dtype=float)
        self.fractions = np.asarray(self.fractions, dtype=float)
        if self.positions.size < 2 or self.positions.size != self.fractions.size:
            raise ModelError(f"spool path {self.from_port}->{self.to_port}: give >= 2 positions and as many fractions")
        if np.any(np.diff(self.positions) <= 0.0):
            raise ModelError(f"spool path {self.from_port}->{self.to_port}: positions must increase strictly")
        if np.any(self.fractions < 0.0):
            raise ModelError(f"spool path {self.from_port}->{self.to_port}: opening fractions must not be negative")


class FirstOrderSpool:
    """Spool position as a first-order lag of the command: ``U' = (U_ref - U)/tau`` (seed 002 eq. (4)).

    The pilot-operated valve of seed 003 §3.2.2.1 reaches its end position in about 90 ms; a lag that reaches
    95 % in 90 ms has ``tau = 0.09 / 3 = 0.03 s`` (see :meth:`from_response_time`).

    Parameters
    ----------
    time_constant : float, s
    """

    state_names = ("spool",)
    state_units = ("1",)

    def __init__(self, time_constant: float):
        store(self, positive, "spool", time_constant=time_constant)

    @classmethod
    def from_response_time(cls, response_time: float, fraction: float = 0.95) -> "FirstOrderSpool":
        """Lag that reaches ``fraction`` of a step in ``response_time`` s: ``tau = -t / ln(1 - fraction)``."""
        return cls(-response_time / math.log(1.0 - fraction))


class SecondOrderSpool:
    """Spool position as a second-order lag (PT2, seed 003 §4.2.2): ``U'' = w^2 (U_ref - U) - 2 zeta w U'``.

    Parameters
    ----------
    natural_frequency : float, rad/s
    damping_ratio : float, 1
    """

    state_names = ("spool", "spool_velocity")
    state_units = ("1", "1/s")

    def __init__(self, natural_frequency: float, damping_ratio: float = 0.7):
        store(self, positive, "spool", natural_frequency=natural_frequency, damping_ratio=damping_ratio)


class DirectionalValve(Component):
    """A spool valve built from metering edges, with optional spool dynamics.

    Parameters
    ----------
    name : str
    paths : list of SpoolPath
    max_area : float, m^2
        Opening area of an edge at fraction 1.
    command : float or callable or Signal
        Normalised spool reference ``U_ref`` in [-1, 1] (clipped).
    spool : FirstOrderSpool or SecondOrderSpool or None
        ``None``: the spool follows the command instantly.
    discharge_coefficient : float, 1
    transition_pressure : float, Pa
    transition : {"cubic", "linear"}
    """

    SIGNALS = ("command",)

    def __init__(self, name: str, paths, max_area: float, command, spool=None, discharge_coefficient: float = 0.7,
                 transition_pressure: float = DEFAULT_TRANSITION_PRESSURE, transition: str = "cubic"):
        super().__init__(name)
        if not (isinstance(max_area, (int, float)) and 0.0 < max_area < float("inf")):  # issue 43: 0 and nan
            raise ModelError(f"'{name}': max_area must be a positive, finite area in m^2, got {max_area!r} (a valve "
                             "of area 0 passes nothing: give its full opening area, or leave the valve out)")
        store(self, positive, name, discharge_coefficient=discharge_coefficient)
        self.paths = list(paths)
        if not self.paths:
            raise ModelError(f"'{name}': a directional valve needs at least one SpoolPath")
        self.ports = tuple(dict.fromkeys(port for p in self.paths for port in (p.from_port, p.to_port)))
        self.max_area = float(max_area)
        self.transition_pressure, self.transition = float(transition_pressure), transition
        self.command = as_signal(command, f"{name}.command")
        self.spool = spool
        if spool is not None:
            self.state_names, self.state_units = spool.state_names, spool.state_units
        self.density = None

    def output_units(self) -> dict[str, str]:
        """``spool``, the flow of each port pair (parallel paths add), ``power_loss``."""
        units = {"spool": "1"}
        units.update({f"flow_{path.from_port}{path.to_port}": "m^3/s" for path in self.paths})
        units["power_loss"] = "W"
        return units


def _centre(from_port, to_port, fraction, closing):
    """Centre edge: open (``fraction``) at U = 0, closed for ``|U| >= closing``."""
    return SpoolPath(from_port, to_port, (-1.0, -closing, 0.0, closing, 1.0), (0.0, 0.0, fraction, 0.0, 0.0))


def _edge(from_port, to_port, start, end):
    """Edge that opens linearly from 0 at |U| = start to 1 at |U| = end on the side of sign(end)."""
    if end > 0:
        return SpoolPath(from_port, to_port, (-1.0, start, end, 1.0 + 1e-9), (0.0, 0.0, 1.0, 1.0))
    return SpoolPath(from_port, to_port, (-1.0 - 1e-9, end, start, 1.0), (1.0, 1.0, 0.0, 0.0))


def _working_edges(start: float = 0.0, negative_start: float = 0.0) -> list:
    """The edges of a 4/3 valve's working positions: ``U > 0`` P->A and B->T, ``U < 0`` P->B and A->T, opening
    from ``U = start`` and ``U = negative_start`` (the overlap and its negative)."""
    return [_edge("P", "A", start, 1.0), _edge("B", "T", start, 1.0),
            _edge("P", "B", negative_start, -1.0), _edge("A", "T", negative_start, -1.0)]


def closed_centre_valve(name: str, max_area: float, command, spool=None, overlap: float = 0.0, **kwargs):
    """4/3 closed-centre valve: ``U > 0`` connects P->A and B->T, ``U < 0`` P->B and A->T, all blocked at 0.

    ``overlap`` (normalised) is the dead band ``|U| < overlap`` in which every edge stays closed; 0 gives a
    zero-lapped (critical-centre) proportional valve as in seed 001 eq. (41)..(42).
    """
    return DirectionalValve(name, _working_edges(overlap, -overlap), max_area, command, spool, **kwargs)


def open_centre_valve(name: str, max_area: float, command, spool=None, centre_fraction: float = 0.3,
                      centre_closing: float = 0.3, **kwargs):
    """4/3 open-centre valve: at ``U = 0`` P, A and B are connected to T (``centre_fraction`` of ``max_area``),
    those centre edges close by ``|U| = centre_closing`` while the working edges open as in the closed centre."""
    c, w = centre_fraction, centre_closing
    paths = _working_edges() + [_centre("P", "T", c, w), _centre("A", "T", c, w), _centre("B", "T", c, w)]
    return DirectionalValve(name, paths, max_area, command, spool, **kwargs)


def tandem_centre_valve(name: str, max_area: float, command, spool=None, centre_fraction: float = 0.5,
                        centre_closing: float = 0.3, **kwargs):
    """4/3 tandem-centre valve: at ``U = 0`` P is unloaded to T and A, B are blocked (the cylinder is locked)."""
    paths = _working_edges() + [_centre("P", "T", centre_fraction, centre_closing)]
    return DirectionalValve(name, paths, max_area, command, spool, **kwargs)


def regenerative_valve(name: str, max_area: float, command, spool=None, centre_fraction: float = 0.1,
                       centre_closing: float = 0.2, **kwargs):
    """The non-standard spool of seed 003 §3.2.2.1 (Fig. 3-7), as opening-area tables.

    Centre: A and B connected to T (small ``centre_fraction``). ``U > 0``: P->B and A->T (retraction).
    ``U < 0``: P->A and B->P, i.e. the rod side feeds the bore side (regenerative extension).
    """
    c, w = centre_fraction, centre_closing
    paths = [_centre("A", "T", c, w), _centre("B", "T", c, w), _edge("P", "B", 0.0, 1.0), _edge("A", "T", 0.0, 1.0),
             _edge("P", "A", 0.0, -1.0), _edge("B", "P", 0.0, -1.0)]
    return DirectionalValve(name, paths, max_area, command, spool, **kwargs)


def area_from_nominal_flow(nominal_flow: float, nominal_pressure_drop: float, density: float,
                           discharge_coefficient: float = 0.7) -> float:
    """Edge area from catalogue data ``Q_nom`` at ``dp_nom`` per edge (seed 003 eq. (4-3)).

    ``A = Q_nom / (C_d sqrt(2 dp_nom / rho))``.

    Parameters
    ----------
    nominal_flow : float, m^3/s
    nominal_pressure_drop : float, Pa
    density : float, kg/m^3
    discharge_coefficient : float, 1

    Returns
    -------
    area : float, m^2
    """
    positive("valve", nominal_flow=nominal_flow, nominal_pressure_drop=nominal_pressure_drop)
    return nominal_flow / (discharge_coefficient * math.sqrt(2.0 * nominal_pressure_drop / density))


def proportional_valve(name: str, nominal_flow: float, nominal_pressure_drop: float, density: float, command,
                       spool=None, discharge_coefficient: float = 0.7, **kwargs):
    """A zero-lapped 4/3 proportional valve sized from catalogue data (``Q_nom`` at ``dp_nom`` per edge)."""
    area = area_from_nominal_flow(nominal_flow, nominal_pressure_drop, density, discharge_coefficient)
    return closed_centre_valve(name, area, command, spool, overlap=0.0,
                               discharge_coefficient=discharge_coefficient, **kwargs)
