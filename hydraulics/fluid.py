"""Hydraulic fluid: density, (pressure-dependent) bulk modulus and viscosity.

Pressures in ``hydraulics`` are gauge pressures (Pa above atmosphere), as in the seeds (tank at 0, supply at
185 bar, seed 003 §3.2.2); the entrained-air model converts to absolute pressure internally.
"""
from __future__ import annotations

from dataclasses import dataclass

from fem.errors import ModelError

from .laws import ATMOSPHERE, bulk_modulus


@dataclass(frozen=True)
class Fluid:
    """A hydraulic fluid.

    Parameters
    ----------
    name : str
        Label used in reports.
    density : float, kg/m^3
        Density ``rho`` (constant; seed 003 §2.2.2.1 keeps density and viscosity constant).
    bulk_modulus : float, Pa
        Bulk modulus of the air-free oil ``E_oil``.
    kinematic_viscosity : float, m^2/s
        Kinematic viscosity ``nu``.
    air_fraction : float, 1
        Volume fraction of entrained (undissolved) air at ``air_reference_pressure``; 0 gives a constant
        bulk modulus.
    air_reference_pressure : float, Pa (absolute)
        Absolute pressure at which ``air_fraction`` is given.
    polytropic_index : float, 1
        Polytropic exponent of the air (1 isothermal, 1.4 adiabatic).
    """

    name: str
    density: float
    bulk_modulus: float
    kinematic_viscosity: float
    air_fraction: float = 0.0
    air_reference_pressure: float = ATMOSPHERE
    polytropic_index: float = 1.0

    def __post_init__(self):
        if self.density <= 0.0 or self.bulk_modulus <= 0.0 or self.kinematic_viscosity <= 0.0:
            raise ModelError(f"fluid '{self.name}': density, bulk_modulus and kinematic_viscosity must be positive")
        if not 0.0 <= self.air_fraction < 1.0:
            raise ModelError(f"fluid '{self.name}': air_fraction must lie in [0, 1), got {self.air_fraction}")

    @property
    def dynamic_viscosity(self) -> float:
        """Dynamic viscosity ``mu = rho nu``, Pa s."""
        return self.density * self.kinematic_viscosity

    def effective_bulk_modulus(self, pressure: float) -> tuple[float, float]:
        """Bulk modulus of the oil-air mixture at a gauge pressure, and its derivative.

        With air fraction ``a0`` at absolute pressure ``p_ref``, the air volume per unit reference volume is
        ``a(p) = a0 (p_ref / p_abs)^(1/n)`` and the oil volume ``1 - a0``; the mixture compliance is the
        volume-weighted sum ``1/E = ((1 - a0)/E_oil + a/(n p_abs)) / ((1 - a0) + a)`` (the series law of
        seed 002 eq. (2) applied to oil and air, with the air's isentropic/isothermal modulus ``n p_abs``).

        Parameters
        ----------
        pressure : float, Pa (gauge)

        Returns
        -------
        bulk_modulus : float, Pa
        derivative : float, 1 (dE/dp)
        """
        return bulk_modulus(pressure, self.bulk_modulus, self.air_fraction, self.polytropic_index,
                            self.air_reference_pressure)

    def with_air(self, air_fraction: float, polytropic_index: float = 1.0) -> "Fluid":
        """The same oil with a given entrained-air volume fraction (at atmospheric pressure)."""
        return Fluid(f"{self.name}+air{air_fraction:g}", self.density, self.bulk_modulus,
                     self.kinematic_viscosity, air_fraction, ATMOSPHERE, polytropic_index)


#: HLP46 mineral oil at 40 °C, seed 003 §3.2.2.1: nu = 46 mm^2/s, rho = 835.2 kg/m^3, E = 1.49e9 Pa.
HLP46 = Fluid("HLP46", density=835.2, bulk_modulus=1.49e9, kinematic_viscosity=46.0e-6)

#: Generic mineral oil with the round figures of textbook examples (rho 870 kg/m^3, E 1.5e9 Pa, 32 mm^2/s).
MINERAL_OIL = Fluid("mineral oil", density=870.0, bulk_modulus=1.5e9, kinematic_viscosity=32.0e-6)

PRESETS = {"HLP46": HLP46, "mineral oil": MINERAL_OIL}
