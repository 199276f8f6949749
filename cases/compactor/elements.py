"""Force elements of the compactor case: drum–asphalt contact with traction and rolling resistance, road profile.

Drum–asphalt contact (stand-in, spec D.5; the seed has no soil model): a half-drum of radius ``R`` whose axis point
``C`` (a marker at the middle of the half-drum's width) lies at height ``y_C`` above a road ``y_s(x)`` in the
vertical XY plane. With the unit normal ``n = (−y_s', 1)/√(1 + y_s'²)`` and tangent ``t = (1, y_s')/√(1 + y_s'²)``::

    penetration  δ = R − (y_C − y_s(x_C)) / √(1 + y_s'²)          contact point P = C − R n
    normal force N = k δ + step(δ, 0, 0, δ_d, c) δ̇  for δ > 0, never pulling (seed 003 eq. (4-1) with e = 1)
    traction     T = −μ N tanh(v_slip / v_s),   v_slip = tᵀ (v_C + ω × (P − C))      (regularized Coulomb)
    rolling resistance moment about the axis  M_r = −c_r R N tanh(ω_z R / v_s)

The road is a local tangent line under the axis (the drum radius is large against the step ramp's curvature; a sharp
edge would touch the drum ahead of ``C`` first, which this stand-in does not resolve).
"""
from __future__ import annotations

import math

import numpy as np

from flexmbs.model.contacts import penalty_force
from flexmbs.model.forces import ForceElement, apply_at_marker
from flexmbs.model.rotations import cross

__all__ = ["DrumContact", "road_profile"]


def road_profile(kind: str, step_height: float = 0.0, step_position: float = 0.0, step_length: float = 0.1):
    """Road height ``y_s(x)`` and slope as a function ``x -> (height m, slope 1)``: flat, or a cosine-ramped step."""
    if kind == "flat":
        return lambda x: (0.0, 0.0)

    def step(x):
        s = (x - step_position) / step_length
        if s <= 0.0:
            return 0.0, 0.0
        if s >= 1.0:
            return step_height, 0.0
        return (0.5 * step_height * (1.0 - np.cos(np.pi * s)),
                0.5 * step_height * np.pi / step_length * np.sin(np.pi * s))

    return step


class DrumContact(ForceElement):
    """Unilateral Kelvin–Voigt contact of a half-drum with the road, with traction and rolling resistance.

    Parameters
    ----------
    centre : Marker on the half-drum, on its axis (z = axis) at mid-width
    radius : float, m;  stiffness : N/m;  damping : N s/m;  damping_depth : m
    traction_coefficient : 1;  slip_velocity : m/s;  rolling_resistance : 1
    road : callable x -> (height, slope)
    bilateral : bool
        Glue the drum to the road: the normal spring-dashpot also pulls and the tangential force is the same
        spring-dashpot on the drum centre's displacement along the road from its first evaluation (a rigid support
        for the harmonic check) instead of traction.
    """

    output_units = {"normal_force": "N", "traction_force": "N", "penetration": "m", "slip_velocity": "m/s",
                    "Fx": "N", "Fy": "N", "axis_moment": "N m"}

    def __init__(self, centre, radius, stiffness, damping, damping_depth, traction_coefficient, slip_velocity,
                 rolling_resistance, road, bilateral: bool = False, name=None):
        self.centre = centre
        self.radius, self.stiffness, self.damping = float(radius), float(stiffness), float(damping)
        self.damping_depth = float(damping_depth)
        self.mu, self.slip_velocity, self.rolling = float(traction_coefficient), float(slip_velocity), float(
            rolling_resistance)
        self.road = road
        self.bilateral = bool(bilateral)
        self.anchor = None  # drum centre x at the first evaluation (bilateral support)
        self.name = name or f"contact({centre.name})"

    def markers(self):
        return [self.centre]

    def _state(self, ctx):
        s = ctx.marker(self.centre)
        height, slope = self.road(float(s.x[0]))
        root = np.sqrt(1.0 + slope * slope)
        normal = np.array([-slope, 1.0, 0.0]) / root
        tangent = np.array([1.0, slope, 0.0]) / root
        penetration = self.radius - (s.x[1] - height) / root
        rate = -float(normal @ s.v)
        arm = -self.radius * normal  # P − C
        slip = float(tangent @ (s.v + cross(s.w, arm)))
        if self.bilateral:
            f_n = self.stiffness * penetration + self.damping * rate
            if self.anchor is None:
                self.anchor = float(s.x[0])
            traction = -self.stiffness * (float(s.x[0]) - self.anchor) - self.damping * float(tangent @ s.v)
        else:
            f_n = penalty_force(penetration, rate, self.stiffness, 1.0, self.damping, self.damping_depth)
            traction = -self.mu * f_n * math.tanh(slip / self.slip_velocity)
        moment_r = -self.rolling * self.radius * f_n * math.tanh(s.w[2] * self.radius / self.slip_velocity)
        force = f_n * normal + traction * tangent
        axis_moment = float(cross(arm, force)[2]) + moment_r
        return s, arm, force, moment_r, penetration, f_n, traction, slip, axis_moment

    def generalized_forces(self, ctx):
        s, arm, force, moment_r, _, f_n, *_ = self._state(ctx)
        if f_n == 0.0:
            return []
        torque = cross(arm, force)
        torque[2] += moment_r
        return [(self.centre.body, apply_at_marker(s, force, torque))]

    def outputs(self, ctx):
        _, _, force, _, penetration, f_n, traction, slip, axis_moment = self._state(ctx)
        return {"normal_force": f_n, "traction_force": traction, "penetration": penetration, "slip_velocity": slip,
                "Fx": float(force[0]), "Fy": float(force[1]), "axis_moment": axis_moment}
