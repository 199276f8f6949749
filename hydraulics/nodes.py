"""Hydraulic nodes: fluid volumes (pressure states), tanks and ideal pressure sources."""
from __future__ import annotations

import math
import warnings

import numpy as np

from fem.errors import ModelError

from .core import Node, Signal, _number, finite, non_negative, positive, store
from .fluid import Fluid
from .signals import as_signal


class Volume(Node):
    """A lumped fluid volume with uniform pressure (a hydraulic node with capacitance).

    Continuity (seed 002 eq. (1); seed 001 eq. (44)..(46); seed 003 eq. (2-222)):
    ``dp/dt = (sum Q_in - dV/dt) / C`` with the capacitance ``C = V / B_e`` and the effective bulk modulus of
    seed 002 eq. (2): ``1/B_e = 1/B_oil(p) + sum_k V_k / (V B_k)``, i.e. ``C = V / B_oil(p) + sum_k V_k / B_k``
    over the sub-volumes ``V_k`` (hoses, pipes, cylinder chambers) with wall bulk moduli ``B_k``.

    The total volume is guarded by a smooth lower limit ``min_volume`` (exact above 1.5 ``min_volume``), and the
    pressure by a smooth cavitation floor: a one-sided fill flow ``Q_cav = G w softplus((p_cav - p)/w)`` from
    the vapour phase that keeps ``p`` within about ``Q / G`` of ``p_cav``. Its value is reported as the output
    ``cavitation_flow``; any non-negligible value means the floor was reached.

    Parameters
    ----------
    name : str
    volume : float, m^3
        Fixed fluid volume of the node (hoses, pipes, bores), without cylinder chambers.
    wall_bulk_modulus : float, Pa
        Bulk modulus ``B_h`` of the walls of the fixed volume (``inf`` for rigid steel blocks).
    initial_pressure : float, Pa (gauge)
    fluid : Fluid, optional
        Defaults to the circuit's fluid.
    min_volume : float, m^3
        Smallest volume used in the continuity equation.
    cavitation_pressure : float, Pa (gauge)
        Pressure of the floor (default -1e5 Pa gauge, about the vapour pressure of oil).
    cavitation_conductance : float, m^3/(s Pa)
        Stiffness ``G`` of the floor.
    cavitation_width : float, Pa
        Rounding width ``w`` of the floor.
    """

    OUTPUT_UNITS = {"pressure": "Pa", "cavitation_flow": "m^3/s", "guard_flow": "m^3/s", "volume": "m^3",
                    "compression_power": "W"}

    state_names = ("pressure",)
    state_units = ("Pa",)

    def __init__(self, name: str, volume: float = 0.0, wall_bulk_modulus: float = math.inf,
                 initial_pressure: float = 0.0, fluid: Fluid | None = None, min_volume: float = 1.0e-7,
                 cavitation_pressure: float = -1.0e5, cavitation_conductance: float = 1.0e-6,
                 cavitation_width: float = 1.0e3):
        super().__init__(name)
        non_negative(name, volume=volume)
        finite(name, "m^3", volume=volume)
        store(self, positive, name, min_volume=min_volume, cavitation_conductance=cavitation_conductance,
              cavitation_width=cavitation_width)
        self.subvolumes: list[tuple[float, float]] = []
        self.add_subvolume(volume, wall_bulk_modulus)
        self.fluid = fluid
        self.cavitation_pressure = float(cavitation_pressure)
        if not (isinstance(initial_pressure, (int, float)) and math.isfinite(initial_pressure)):  # issue 43
            raise ModelError(f"'{name}': initial_pressure must be a finite gauge pressure in Pa, got "
                             f"{initial_pressure!r}")
        self._initial["pressure"] = float(initial_pressure)

    def add_subvolume(self, volume: float, wall_bulk_modulus: float = math.inf) -> None:
        """Add a fixed sub-volume (a hose, a pipe segment), m^3, with its wall bulk modulus, Pa."""
        non_negative(self.name, volume=volume)
        _number(self.name, "wall_bulk_modulus", wall_bulk_modulus)
        if not wall_bulk_modulus > 0.0:  # nan too (issue 43)
            raise ModelError(f"'{self.name}': wall_bulk_modulus must be positive (use inf for rigid walls)")
        if volume > 0.0:  # (a Volume of 0 m^3 has no sub-volume of its own)
            self.subvolumes.append((float(volume), float(wall_bulk_modulus)))

    @property
    def fixed_volume(self) -> float:
        """Sum of the fixed sub-volumes, m^3."""
        return sum(v for v, _ in self.subvolumes)


class Tank(Node):
    """A reservoir at constant pressure (default atmospheric, 0 Pa gauge); an infinite sink and source."""

    OUTPUT_UNITS = {"pressure": "Pa", "flow": "m^3/s", "power": "W"}

    def __init__(self, name: str, pressure: float = 0.0):
        super().__init__(name)
        if not (isinstance(pressure, (int, float)) and math.isfinite(pressure)):  # issue 43: nan ran
            raise ModelError(f"'{name}': tank pressure must be a finite gauge pressure in Pa, got {pressure!r}")
        self.tank_pressure = float(pressure)


class PressureWarning(UserWarning):
    """A hydraulic value that is computed with but looks like a unit slip (printed as one ``warning:`` line)."""


# a constant source above this gauge pressure (Pa, 5000 bar) is noted: no hydraulic machine reaches it (issue 43)
MAX_PRESSURE = 5.0e8


class PressureSource(Node):
    """An ideal pressure source: holds a prescribed pressure whatever the flow (seed 003 §3.2.2.1, §4.2.2).

    Parameters
    ----------
    name : str
    pressure : float or callable or Signal
        Gauge pressure, Pa: a constant, a function of time ``p(t)`` or a signal.
    """

    SIGNALS = ("pressure_signal",)

    OUTPUT_UNITS = {"pressure": "Pa", "flow": "m^3/s", "power": "W"}

    def __init__(self, name: str, pressure):
        super().__init__(name)
        if isinstance(pressure, (int, float, np.integer, np.floating)) and not math.isfinite(float(pressure)):
            raise ModelError(f"'{name}': pressure must be a finite gauge pressure in Pa, got {pressure}")
        if pressure is None or isinstance(pressure, (str, bytes)):  # issue 43: named as '{name}.setpoint' before
            raise ModelError(f"'{name}': pressure must be a gauge pressure in Pa, a function of time or a signal, got "
                             f"{pressure!r}")
        if isinstance(pressure, (int, float, np.integer, np.floating)) and abs(float(pressure)) > MAX_PRESSURE:
            warnings.warn(f"'{name}': pressure {float(pressure):.4g} Pa is {float(pressure) / 1e5:.4g} bar, above "
                          f"{MAX_PRESSURE / 1e5:.0f} bar that hydraulic machines reach: bar typed as Pa x 1e5, or "
                          "kPa as Pa? pressure is in Pa", PressureWarning, stacklevel=2)
        self.pressure_signal: Signal = as_signal(pressure, f"{name}.setpoint", unit="Pa")
