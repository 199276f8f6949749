"""Hydraulic motor coupled to a rotational coordinate of the multibody model (a revolute joint angle)."""
from __future__ import annotations

import math

from fem.errors import ModelError

from .core import Component, non_negative, positive, store
from .cylinder import CoulombViscousFriction, PrescribedStroke


class PrescribedAngle(PrescribedStroke):
    """Stand-in measurement for a motor used without a multibody model: the prescribed shaft angle, rad."""

    unit = "rad"

    def markers(self):
        raise ModelError(f"'{self.name}' is a prescribed angle: give the motor "
                         "measurement=flexmbs.JointCoordinate(revolute_joint) to use it in a multibody model")


class HydraulicMotor(Component):
    """Fixed-displacement hydraulic motor between ports ``A`` (inlet for positive rotation) and ``B``.

    Reads a rotational measurement ``phi`` (rad; ``flexmbs.JointCoordinate`` of a revolute joint, or a
    :class:`PrescribedAngle`) and returns the torque conjugate to it (N m). With ``D_r = D / (2 pi)`` (m^3/rad):

        Q_AB = D_r omega + C_i (p_A - p_B)
        T    = D_r (p_A - p_B) - T_f(omega)

    (the ideal machine of Hopsan's HydraulicMotorJload / HydraulicFixedDisplacementMotorQ with laminar internal
    leakage ``C_i`` for the volumetric losses and a friction law ``T_f`` -- Coulomb, viscous, Stribeck or
    Brown-McPhee, in N m and rad/s -- for the mechanical losses). Positive ``omega`` is driven by ``p_A > p_B``.

    Parameters
    ----------
    name : str
    displacement : float, m^3/rev
    measurement : flexmbs measurement or PrescribedAngle, optional
    internal_leakage : float, m^3/(s Pa)
        ``C_i``, port A to port B.
    friction : friction law, optional
        Torque opposing rotation, N m as a function of rad/s.
    """

    MEASUREMENTS = ("measurement",)

    OUTPUT_UNITS = {"flow": "m^3/s", "speed": "rad/s", "torque": "N m", "shaft_power": "W", "hydraulic_power": "W"}

    ports = ("A", "B")

    def __init__(self, name: str, displacement: float, measurement=None, internal_leakage: float = 0.0,
                 friction=None):
        super().__init__(name)
        store(self, positive, name, displacement=displacement)
        store(self, non_negative, name, internal_leakage=internal_leakage)
        self.measurement = measurement if measurement is not None else PrescribedAngle(f"{name}.angle")
        self.friction = friction

    @classmethod
    def from_datasheet(cls, name: str, displacement: float, rated_speed: float, rated_pressure: float,
                       volumetric_efficiency: float, hydromechanical_efficiency: float,
                       viscous_share: float = 0.5, velocity_width: float = 0.5, measurement=None):
        """A motor whose losses reproduce the datasheet efficiencies at the rated point.

        ``eta_v = D_r omega / Q`` gives ``C_i = D_r omega_r (1/eta_v - 1) / dp_r``; ``eta_hm = T / (D_r dp)`` gives
        the loss torque ``T_loss = (1 - eta_hm) D_r dp_r`` at the rated point, split into a viscous part
        ``viscous_share T_loss = b omega_r`` and a Coulomb part (the split is not on datasheets: an assumption).

        Parameters
        ----------
        displacement : float, m^3/rev
        rated_speed : float, rev/s
        rated_pressure : float, Pa
            Pressure difference of the rated point.
        volumetric_efficiency, hydromechanical_efficiency : float, 1
        viscous_share : float, 1
        velocity_width : float, rad/s
            Regularisation of the Coulomb sign.
        """
        positive(name, rated_speed=rated_speed, rated_pressure=rated_pressure)
        for key, eta in (("volumetric_efficiency", volumetric_efficiency),
                         ("hydromechanical_efficiency", hydromechanical_efficiency)):
            if not 0.0 < eta <= 1.0:
                raise ModelError(f"motor '{name}': {key} must be in (0, 1], got {eta}")
        if not 0.0 <= viscous_share <= 1.0:
            raise ModelError(f"motor '{name}': viscous_share must be in [0, 1], got {viscous_share}")
        d_r = displacement / (2.0 * math.pi)
        omega = 2.0 * math.pi * rated_speed
        leakage = d_r * omega * (1.0 / volumetric_efficiency - 1.0) / rated_pressure
        loss = (1.0 - hydromechanical_efficiency) * d_r * rated_pressure
        friction = CoulombViscousFriction((1.0 - viscous_share) * loss / math.tanh(omega / velocity_width),
                                          viscous_share * loss / omega, velocity_width)
        return cls(name, displacement, measurement, leakage, friction)

    @property
    def radial_displacement(self) -> float:
        """``D_r = D / (2 pi)``, m^3/rad."""
        return self.displacement / (2.0 * math.pi)
