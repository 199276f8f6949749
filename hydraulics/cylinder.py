"""Hydraulic cylinders between two markers of the multibody model, friction models, end stops and cushions."""
from __future__ import annotations

import math

import numpy as np

from fem.errors import ModelError

from .core import Component, finite, non_negative, positive, store
from .laws import brown_mcphee_friction, coulomb_viscous_friction


class FrictionLaw:
    """Base of the friction laws: ``LAW`` (of :mod:`hydraulics.laws`) of the velocity and the attributes named in
    ``PARAMETERS`` (in its order; the compiled kernel's parameters too)."""

    def force(self, velocity: float) -> tuple[float, float]:
        """Friction force opposing the motion (N) and ``dF/dv`` (N s/m)."""
        return self.LAW(velocity, *[getattr(self, name) for name in self.PARAMETERS])


class CoulombViscousFriction(FrictionLaw):
    """Viscous plus Coulomb friction, seed 001 eq. (23): ``F = b v + F_c sign(v)``, sign regularised by
    ``tanh(v / v_eps)``.

    Parameters
    ----------
    coulomb_force : float, N
    viscous_coefficient : float, N s/m
    velocity_width : float, m/s
    """

    LAW = staticmethod(coulomb_viscous_friction)
    PARAMETERS = ("coulomb_force", "viscous_coefficient", "velocity_width")

    def __init__(self, coulomb_force: float = 0.0, viscous_coefficient: float = 0.0, velocity_width: float = 1.0e-3):
        store(self, non_negative, "friction", coulomb_force=coulomb_force, viscous_coefficient=viscous_coefficient)
        store(self, positive, "friction", velocity_width=velocity_width)


class BrownMcPheeFriction(FrictionLaw):
    """Brown-McPhee friction, seed 002 eq. (8):

    ``F = F_c tanh(4 v/v_s) + (F_s - F_c) (v/v_s) / (1/4 (v/v_s)^2 + 3/4)^2 + sigma_2 v``.

    Parameters
    ----------
    coulomb_force : float, N
        ``F_c``.
    static_force : float, N
        ``F_s`` (the peak near ``v = v_s``).
    stribeck_velocity : float, m/s
        ``v_s``.
    viscous_coefficient : float, N s/m
        ``sigma_2``.
    """

    LAW = staticmethod(brown_mcphee_friction)
    PARAMETERS = ("coulomb_force", "static_force", "stribeck_velocity", "viscous_coefficient")

    def __init__(self, coulomb_force: float, static_force: float, stribeck_velocity: float,
                 viscous_coefficient: float):
        store(self, non_negative, "friction", coulomb_force=coulomb_force, static_force=static_force,
              viscous_coefficient=viscous_coefficient)
        store(self, positive, "friction", stribeck_velocity=stribeck_velocity)

    def scaled(self, factor: float) -> "BrownMcPheeFriction":
        """The same law with ``F_c``, ``F_s`` and ``sigma_2`` multiplied by ``factor`` (seed 002 Table 3)."""
        return BrownMcPheeFriction(self.coulomb_force * factor, self.static_force * factor, self.stribeck_velocity,
                                   self.viscous_coefficient * factor)


class Cylinder(Component):
    """A hydraulic cylinder acting along a distance measurement between two markers.

    Stroke ``x = y - retracted_length`` from the measurement ``y`` (pin-to-pin distance); chambers
    ``V_A = V_dA + A_A x`` (bore side, port ``A``) and ``V_B = V_dB + A_B (stroke - x)`` (rod side, port ``B``)
    join the volumes they are connected to (with the cylinder-wall modulus, seed 002 eq. (2), (72)..(75)).
    The force pushing the markers apart (seed 002 eq. (7); seed 001 eq. (22)..(24)):
    ``F = p_A A_A - p_B A_B - F_mu(xdot) - F_stop(x, xdot)``.

    End stops (seed 001 eq. (25), with the sign that pushes the piston back into its stroke): a penalty
    ``c * penetration`` plus a damping ``d * step(penetration) * penetration_rate`` ramped in over
    ``stop_damping_depth`` (the step of seed 003 eq. (4-1)).

    A cylinder whose ports see closed volumes behaves as the oil spring of seed 001 eq. (26), (27) without special
    code: the chamber pressures change with ``V`` through the continuity equation.

    Parameters
    ----------
    name : str
    piston_area : float, m^2
        ``A_A``, bore side.
    rod_side_area : float, m^2
        ``A_B``, annulus (0 and ``single_acting=True`` for a plunger/single-acting cylinder).
    stroke : float, m
    measurement : flexmbs measurement, optional
        A Distance-type measurement. Omit it for standalone use: the cylinder then reads a prescribed input.
    retracted_length : float, m
        Measurement value at ``x = 0``.
    dead_volume_a, dead_volume_b : float, m^3
    friction : CoulombViscousFriction or BrownMcPheeFriction, optional
    stop_stiffness : float, N/m
    stop_damping : float, N s/m
    stop_damping_depth : float, m
    wall_bulk_modulus : float, Pa
        ``B_c`` of the cylinder tube (``inf`` rigid).
    single_acting : bool
        Only port ``A``; the rod side is vented.
    """

    MEASUREMENTS = ("measurement",)

    OUTPUT_UNITS = {"position": "m", "velocity": "m/s", "force": "N", "pressure_force": "N", "friction_force": "N",
                    "friction_power": "W", "stop_force": "N"}

    def __init__(self, name: str, piston_area: float, rod_side_area: float, stroke: float, measurement=None,
                 retracted_length: float = 0.0, dead_volume_a: float = 0.0, dead_volume_b: float = 0.0,
                 friction=None, stop_stiffness: float = 1.0e9, stop_damping: float = 1.0e5,
                 stop_damping_depth: float = 1.0e-4, wall_bulk_modulus: float = math.inf, single_acting: bool = False):
        super().__init__(name)
        if not (isinstance(piston_area, (int, float)) and 0.0 < piston_area < math.inf):  # nan too (issue 43)
            raise ModelError(f"cylinder '{name}': piston_area must be positive, got {piston_area!r} m^2")
        if not isinstance(rod_side_area, (int, float)) or not rod_side_area >= 0.0 or (
                not single_acting and rod_side_area == 0.0):
            raise ModelError(f"cylinder '{name}': rod_side_area must be positive (use single_acting=True for none), "
                             f"got {rod_side_area!r} m^2")
        if rod_side_area > piston_area:  # the annulus is the piston less the rod (issue 43)
            raise ModelError(f"cylinder '{name}': rod_side_area {rod_side_area:g} m^2 is larger than piston_area "
                             f"{piston_area:g} m^2; the annulus is the piston area less the rod's: swapped?")
        store(self, positive, name, stroke=stroke, stop_damping_depth=stop_damping_depth,
              wall_bulk_modulus=wall_bulk_modulus)
        finite(name, "m", stroke=stroke)  # issue 43: a stroke of inf was accepted
        store(self, non_negative, name, dead_volume_a=dead_volume_a, dead_volume_b=dead_volume_b,
              stop_stiffness=stop_stiffness, stop_damping=stop_damping)
        self.piston_area, self.rod_side_area = float(piston_area), float(rod_side_area)
        self.single_acting = bool(single_acting)
        self.ports = ("A",) if single_acting else ("A", "B")
        self.measurement = measurement if measurement is not None else PrescribedStroke(f"{name}.stroke")
        self.retracted_length = float(retracted_length)
        self.friction = friction

    @classmethod
    def from_diameters(cls, name: str, bore_diameter: float, rod_diameter: float, stroke: float, **kwargs):
        """A cylinder given by bore and rod diameters (m)."""
        positive(name, bore_diameter=bore_diameter)
        if not 0.0 <= rod_diameter < bore_diameter:
            raise ModelError(f"cylinder '{name}': need 0 <= rod_diameter < bore_diameter")
        a = 0.25 * math.pi * bore_diameter**2
        return cls(name, a, a - 0.25 * math.pi * rod_diameter**2, stroke, **kwargs)


class Cushion(Component):
    """End-of-stroke cushion: a stroke-dependent orifice in parallel with a check valve (seed 003 Fig. 3-8).

    Between the cylinder chamber node (port ``chamber``) and the line (port ``line``): the outflow from the chamber
    passes the orifice whose area is a table of the cylinder stroke ``x`` (large before the cushion, small at the
    end), the inflow bypasses it through a check valve (area ``bypass_area``, cracking ``bypass_cracking``):
    ``Q = Q_o(p_c - p_l; k A(x)) - Q_o(p_l - p_c; k A_b s)`` from chamber to line, ``Q_o`` the orifice law with its
    cubic laminar region (``transition_pressure``), ``k = C_d sqrt(2/rho)``, ``A(x)`` the table (end values held),
    ``s`` the smooth step of ``p_l - p_c`` from ``p_crack`` to ``2 p_crack + 1 Pa``.

    Parameters
    ----------
    name : str
    cylinder : Cylinder
    positions : array_like, m
        Stroke positions of the area table (increasing).
    areas : array_like, m^2
        Orifice area at those positions.
    bypass_area : float, m^2
    bypass_cracking : float, Pa
    discharge_coefficient : float, 1
    """

    OUTPUT_UNITS = {"flow": "m^3/s", "power_loss": "W"}

    ports = ("chamber", "line")

    def __init__(self, name: str, cylinder: Cylinder, positions, areas, bypass_area: float,
                 bypass_cracking: float = 0.5e5, discharge_coefficient: float = 0.7,
                 transition_pressure: float = 0.5e5):
        super().__init__(name)
        self.cylinder = cylinder
        self.positions = np.asarray(positions, dtype=float)
        self.areas = np.asarray(areas, dtype=float)
        if self.positions.size < 2 or self.positions.size != self.areas.size or np.any(np.diff(self.positions) <= 0):
            raise ModelError(f"cushion '{name}': give increasing positions and one area per position")
        if np.any(self.areas < 0.0):
            raise ModelError(f"cushion '{name}': areas must not be negative")
        store(self, positive, name, bypass_area=bypass_area)
        self.bypass_cracking = float(bypass_cracking)
        self.discharge_coefficient, self.transition_pressure = float(discharge_coefficient), float(transition_pressure)
        self.density = None

    def measurements(self):
        return self.cylinder.measurements()


class PrescribedStroke:
    """Stand-in measurement for a cylinder used without a multibody model: its value is the prescribed input."""

    unit = "m"

    def __init__(self, name: str):
        self.name = name

    def markers(self):
        """A prescribed stroke is not attached to a multibody model."""
        raise ModelError(f"'{self.name}' is a prescribed stroke: give the cylinder "
                         "measurement=flexmbs.Distance(marker_a, marker_b) to use it in a multibody model")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
