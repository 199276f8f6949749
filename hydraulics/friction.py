"""Friction laws for cylinders and motors (force opposing the motion and its velocity derivative: N and N s/m for
a cylinder, N m and N m s/rad for a motor): the Stribeck law here, the Coulomb-viscous and Brown-McPhee laws in
:mod:`hydraulics.cylinder`; and :func:`scale_friction`, the independent scaling of their Coulomb, Stribeck and
viscous terms (docs/hydraulics.md, "Friction laws").
"""
from __future__ import annotations

from fem.errors import ModelError

from .laws import stribeck_friction
from .core import non_negative, positive, store
from .cylinder import BrownMcPheeFriction, CoulombViscousFriction, FrictionLaw


class StribeckFriction(FrictionLaw):
    """Coulomb + exponential Stribeck (Armstrong-Helouvry; the form of Hopsan's and Simscape's) + viscous friction.

    ``F = (F_c + (F_s - F_c) exp(-(|v|/v_s)^delta)) tanh(v / v_eps) + b v``.

    Parameters
    ----------
    coulomb_force : float, N
        ``F_c``.
    static_force : float, N
        ``F_s`` (breakaway), ``>= 0``.
    stribeck_velocity : float, m/s
        ``v_s``.
    viscous_coefficient : float, N s/m
        ``b``.
    velocity_width : float, m/s
        ``v_eps`` of the regularised sign.
    exponent : float, 1
        ``delta`` (2 Gaussian, 1 exponential decay), ``>= 1``.
    """

    LAW = staticmethod(stribeck_friction)
    PARAMETERS = ("coulomb_force", "static_force", "stribeck_velocity", "viscous_coefficient", "velocity_width",
                  "exponent")

    def __init__(self, coulomb_force: float, static_force: float, stribeck_velocity: float,
                 viscous_coefficient: float = 0.0, velocity_width: float = 1.0e-4, exponent: float = 2.0):
        store(self, non_negative, "friction", coulomb_force=coulomb_force, static_force=static_force,
              viscous_coefficient=viscous_coefficient)
        store(self, positive, "friction", stribeck_velocity=stribeck_velocity, velocity_width=velocity_width)
        if exponent < 1.0:
            raise ModelError(f"friction: the Stribeck exponent must be >= 1, got {exponent}")
        self.exponent = float(exponent)


def scale_friction(law, coulomb: float = 1.0, stribeck: float = 1.0, viscous: float = 1.0):
    """A copy of a friction law with each term scaled independently.

    Parameters
    ----------
    law : CoulombViscousFriction or StribeckFriction or BrownMcPheeFriction
    coulomb : float, 1
        Factor on ``F_c``.
    stribeck : float, 1
        Factor on the Stribeck excess ``F_s - F_c`` (the new static force is ``c F_c + s (F_s - F_c)``).
    viscous : float, 1
        Factor on the viscous coefficient.
    """
    non_negative("friction scaling", coulomb=coulomb, stribeck=stribeck, viscous=viscous)
    if isinstance(law, CoulombViscousFriction):
        if stribeck != 1.0:
            raise ModelError("friction scaling: a Coulomb-viscous law has no Stribeck term; leave stribeck=1")
        return CoulombViscousFriction(coulomb * law.coulomb_force, viscous * law.viscous_coefficient,
                                      law.velocity_width)
    static = coulomb * law.coulomb_force + stribeck * (law.static_force - law.coulomb_force)
    if static < 0.0:
        raise ModelError(f"friction scaling: the scaled static force would be negative ({static} N); "
                         "scale the Stribeck term less")
    if isinstance(law, StribeckFriction):
        return StribeckFriction(coulomb * law.coulomb_force, static, law.stribeck_velocity,
                                viscous * law.viscous_coefficient, law.velocity_width, law.exponent)
    if isinstance(law, BrownMcPheeFriction):
        return BrownMcPheeFriction(coulomb * law.coulomb_force, static, law.stribeck_velocity,
                                   viscous * law.viscous_coefficient)
    raise ModelError(f"friction scaling: unknown friction law {law!r}; use CoulombViscousFriction, "
                     "StribeckFriction or BrownMcPheeFriction")
