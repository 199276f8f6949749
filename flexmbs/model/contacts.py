"""Friction, one-sided penalty contact and hard stops (docs/theory-multibody.md §5).

* Joint friction (seed 003 §3.2.1.1, Fig. 3-4): the joint friction of ADAMS' FRICTION statement (seed 003 L64), from
  the joint reaction split into the radial force ``F_r`` (transverse to the axis), the axial force ``F_a``, the
  bending moment ``T_b`` and the torsional moment ``T_t``, with the preload ``F_pre`` and the arms of
  :class:`JointFriction` (a term whose arm is not given is left out)::

      revolute:   T_f = -μ(v) [R_p (F_pre + |F_r| + |T_b| / R_b) + R_n |F_a|],   v = ω R_p
      prismatic:  F_f = -μ(v) (F_pre + |F_r| + |T_b| / X_s + |T_t| / R_n)

  ``μ(v)`` rises from 0 to ``μ_s`` up to the stiction transition velocity ``v_s`` (regularized stiction: a stuck
  joint creeps slower than ``v_s``), then falls to ``μ_d`` at ``1.5 v_s`` (cubic).
* Contact (seed 003 eq. (4-1)): a marker point against the plane ``z = 0`` of another marker, penetration ``x``,
  ``F_n = k x^e + step(x, 0, 0, x_d, d) ẋ`` for ``x > 0`` (never pulling), Coulomb friction ``μ(v_slip) F_n``
  with the coefficient of Fig. 4-3 (0 at rest, ``μ_s`` at ``v_s``, ``μ_d`` from ``v_d``).
* Hard stop on a joint coordinate: the same penalty law beyond ``lower`` / ``upper``.

Contacts and hard stops offer gap functions (``event_gaps``), so the integrator locates their onsets as events
(:mod:`flexmbs.engine.events`): time of contact and impact speed at the root of the gap, not at an output sample.
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError

from .contact_laws import (hard_stop_load, joint_friction_load, penalty_force, plane_contact_law,
                           sliding_friction_coefficient, steady_friction_coefficient)
from .forces import ForceElement, OnJoint, apply_at_marker, coordinate_loads
from .measurements import JointCoordinate, body_loads
from .rotations import cross

__all__ = ["friction_coefficient", "revolute_friction_load", "prismatic_friction_load", "JointFriction", "PlaneContact",
           "HardStop", "penalty_force", "StictionState", "steady_friction_coefficient"]


def friction_coefficient(velocity: float, static: float, dynamic: float, stiction_velocity: float,
                         dynamic_velocity: float | None = None) -> float:
    """Signed friction coefficient at sliding ``velocity`` (m/s), seed 003 Fig. 3-4 / Fig. 4-3: the law
    :func:`flexmbs.model.contact_laws.sliding_friction_coefficient` (equations there), with ``v_d`` defaulting to
    ``1.5 v_s`` (the joint friction model of the seed)."""
    v_d = 1.5 * stiction_velocity if dynamic_velocity is None else dynamic_velocity
    return sliding_friction_coefficient(velocity, static, dynamic, stiction_velocity, v_d)[0]


def _vectors(*vectors):
    return tuple(np.ascontiguousarray(v, dtype=float).reshape(3) for v in vectors)


def revolute_friction_load(force, torque, axis, pin_radius: float, friction_arm: float = 0.0,
                           bending_arm: float | None = None, preload: float = 0.0) -> dict:
    """Friction torque per unit friction coefficient of a revolute joint (N m), MSC Adams form (module docstring;
    the law :func:`flexmbs.model.contact_laws.joint_friction_load`).

    Parameters
    ----------
    force, torque : (3,) arrays, N and N m
        Joint reaction (any consistent sign) and its moment about the joint point, global axes.
    axis : (3,) unit vector of the joint axis
    pin_radius : float, m (``R_p``);  friction_arm : float, m (``R_n``, 0: axial force left out)
    bending_arm : float or None, m (``R_b``, None: bending moment left out);  preload : float, N (``F_pre``)

    Returns
    -------
    dict with ``load`` = ``R_p (F_pre + |F_r| + |T_b|/R_b) + R_n |F_a|`` (N m), ``radial``, ``axial`` (N),
    ``bending`` (N m) and ``normal`` = ``load / R_p`` (N, the equivalent normal force).
    """
    p = np.array([0.0, 0.0, 0.0, pin_radius, preload, friction_arm, bending_arm or 0.0, 0.0])
    load, normal, radial, axial, bending, _ = joint_friction_load(*_vectors(force, torque, axis), 1, p)
    return {"load": load, "radial": radial, "axial": axial, "bending": bending, "normal": normal}


def prismatic_friction_load(force, torque, axis, overlap: float | None = None, reaction_arm: float | None = None,
                            preload: float = 0.0) -> dict:
    """Friction force per unit friction coefficient of a prismatic joint (N), MSC Adams form (module docstring; the
    law :func:`flexmbs.model.contact_laws.joint_friction_load`):
    ``F_pre + |F_r| + |T_b| / X_s + |T_t| / R_n`` with ``X_s`` = ``overlap`` and ``R_n`` = ``reaction_arm`` (m, None:
    the term left out). Returns ``load``, ``radial``, ``axial`` (N), ``bending``, ``torsion`` (N m), ``normal``."""
    p = np.array([0.0, 0.0, 0.0, 1.0, preload, reaction_arm or 0.0, 0.0, overlap or 0.0])
    load, normal, radial, axial, bending, torsion = joint_friction_load(*_vectors(force, torque, axis), 0, p)
    return {"load": load, "radial": radial, "axial": axial, "bending": bending, "torsion": torsion, "normal": normal}


class JointFriction(OnJoint):
    """Friction in a revolute or prismatic joint computed from the forces and moments the joint carries.

    Parameters
    ----------
    joint : Revolute or Prismatic (or Cylindrical: its translation)
    static, dynamic : float
        Friction coefficients ``μ_s``, ``μ_d``.
    stiction_velocity : float, m/s
        Transition velocity ``v_s`` (Fig. 3-4); the coefficient is ``μ_d`` above ``1.5 v_s``.
    pin_radius : float, m
        Revolute joint: pin radius ``R_p`` (sliding velocity ``ω R_p``; arm of the radial force, the preload and the
        bending term).
    preload : float, N
        Normal force added to the reaction (seals, preloaded bearings).
    friction_arm : float, m
        Revolute joint: arm ``R_n`` of the axial reaction force (0: left out).
    bending_arm : float, m, optional
        Revolute joint: bending reaction arm ``R_b``; the bending moment enters as the force ``|T_b| / R_b``
        (None: left out). For a pin of bearing length ``L`` held at its two edges, ``R_b = L / 2``.
    overlap, reaction_arm : float, m, optional
        Prismatic joint: overlap ``X_s`` of the sliding parts (bending moment ``|T_b| / X_s``) and arm ``R_n`` of the
        torsional moment (``|T_t| / R_n``); None leaves the term out.
    stiction_deformation : float, m, optional
        Stick state instead of the regularized stiction: the largest elastic deflection ``δ`` of the contact before
        it slides (Adams' MAX_STICTION_DEFORMATION). A state ``s`` (m; :class:`StictionState`, added to the model
        with the force) follows the LuGre bristle law ``ṡ = v - |v| s / s_ss(v)``, ``s_ss = δ μ_ss(v) / μ_s``, and
        ``μ = μ_s s / δ + σ_1 ṡ``: stuck, the joint holds elastically without creeping (docs/theory-multibody.md §5).
    stiction_damping : float, s/m
        ``σ_1`` of the stick state (damping of the stuck contact per unit normal load).
    """

    output_units = {"friction": "N or N m", "normal_force": "N", "radial_force": "N", "axial_force": "N",
                    "bending_moment": "N m", "sliding_velocity": "m/s", "coefficient": "1"}

    def __init__(self, joint, static: float, dynamic: float, stiction_velocity: float, pin_radius: float = 0.0,
                 preload: float = 0.0, name: str | None = None, friction_arm: float = 0.0,
                 bending_arm: float | None = None, overlap: float | None = None, reaction_arm: float | None = None,
                 stiction_deformation: float | None = None, stiction_damping: float = 0.0):
        if "translation" in joint.coordinates:
            self.which = "translation"
        elif "rotation" in joint.coordinates:
            self.which = "rotation"
            if not pin_radius > 0.0:
                raise ModelError(f"friction in revolute joint {joint.name!r} needs a pin_radius > 0 (m)")
        else:
            raise ModelError(f"joint {joint.name!r} has no coordinate to carry friction")
        if not stiction_velocity > 0.0:
            raise ModelError("the stiction transition velocity must be positive (m/s)")
        for label, value in (("friction_arm", friction_arm), ("bending_arm", bending_arm), ("overlap", overlap),
                             ("reaction_arm", reaction_arm), ("preload", preload)):
            if value is not None and not value >= 0.0:
                raise ModelError(f"friction in joint {joint.name!r}: {label} must be >= 0, got {value!r}")
        self.joint = joint
        self.static, self.dynamic, self.stiction_velocity = float(static), float(dynamic), float(stiction_velocity)
        self.pin_radius, self.preload = float(pin_radius), float(preload)
        self.arm = self.pin_radius if self.which == "rotation" else 1.0  # sliding velocity per coordinate rate
        self.friction_arm = float(friction_arm)
        self.bending_arm, self.overlap, self.reaction_arm = bending_arm, overlap, reaction_arm
        self.name = name or f"friction({joint.name})"
        self.stick = None
        if stiction_deformation is not None:
            if not (stiction_deformation > 0.0 and self.static > 0.0 and self.dynamic > 0.0):
                raise ModelError(f"friction in joint {joint.name!r}: a stick state needs stiction_deformation > 0 (m) "
                                 "and both friction coefficients > 0")
            self.stick = StictionState(self, float(stiction_deformation), float(stiction_damping))

    @property
    def state_elements(self) -> list:
        """State elements the model adds with this force (the stick state, if any)."""
        return [] if self.stick is None else [self.stick]

    def _coefficient(self, ctx, sliding: float) -> float:
        if self.stick is None:
            return friction_coefficient(sliding, self.static, self.dynamic, self.stiction_velocity)  # Fig. 3-4
        z = getattr(ctx, "z", None)
        if z is None:
            raise ModelError(f"{self.name}: the stick state needs the element states (evaluate through the System)")
        system = ctx.system
        deflection = float(z[system.z_offsets[system.elements.index(self.stick)]])
        return self.stick.coefficient(deflection, sliding)

    def _state(self, ctx):
        _, gi, gj, rate = self.coordinate(ctx)
        force, torque = ctx.joint_reaction(self.joint)
        axis = ctx.marker(self.joint.marker_i).R[:, 2]
        if self.which == "rotation":  # seed 003 §3.2.1.1: friction from the joint's forces and moments (Adams form)
            parts = revolute_friction_load(force, torque, axis, self.pin_radius, self.friction_arm,
                                           self.bending_arm, self.preload)
        else:
            parts = prismatic_friction_load(force, torque, axis, self.overlap, self.reaction_arm, self.preload)
        sliding = rate * self.arm
        mu = self._coefficient(ctx, sliding)
        return gi, gj, -mu * parts["load"], parts, sliding, mu

    def generalized_forces(self, ctx):
        gi, gj, load, _, _, _ = self._state(ctx)
        return coordinate_loads(self.joint.marker_i, self.joint.marker_j, load, gi, gj)

    def outputs(self, ctx):
        _, _, load, parts, sliding, mu = self._state(ctx)
        return {"friction": load, "normal_force": parts["normal"], "radial_force": parts["radial"],
                "axial_force": parts["axial"], "bending_moment": parts["bending"], "sliding_velocity": sliding,
                "coefficient": mu}


class StictionState:
    """State element (docs/element-protocol.md) of a :class:`JointFriction` with a stick state: the deflection ``s``
    (m) of the contact at the sliding surface; it applies no force itself (the friction element reads ``s``)."""

    state_units = ["m"]
    output_units: dict[str, str] = {}

    def __init__(self, friction, deformation: float, damping: float):
        self.friction, self.deformation, self.damping = friction, deformation, damping
        self.name = f"{friction.name}.stick"
        self.measurements = [JointCoordinate(friction.joint, friction.which)]
        self.state_names = ["deflection"]

    def initial_state(self) -> np.ndarray:
        return np.zeros(1)

    def _rate(self, deflection: float, sliding: float) -> float:
        f = self.friction
        steady = self.deformation * steady_friction_coefficient(sliding, f.static, f.dynamic,
                                                                f.stiction_velocity) / f.static
        return sliding - abs(sliding) * deflection / steady

    def rates(self, t, z, y, ydot) -> np.ndarray:
        return np.array([self._rate(float(z[0]), float(ydot[0]) * self.friction.arm)])

    def forces(self, t, z, y, ydot) -> np.ndarray:
        return np.zeros(1)

    def coefficient(self, deflection: float, sliding: float) -> float:
        """Signed coefficient ``μ_s s / δ + σ_1 ṡ`` at deflection ``s`` (m) and sliding velocity (m/s)."""
        return (self.friction.static * deflection / self.deformation
                + self.damping * self._rate(deflection, sliding))


class PlaneContact(ForceElement):
    """One-sided penalty contact of a marker point with the ``x-y`` plane of another marker (normal ``+z``).

    Parameters
    ----------
    point : Marker
        The contacting point (any body).
    plane : Marker
        Plane through its origin with outward normal along its z axis; penetration when the point is below.
    stiffness : float, N/m^e;  exponent : float (> 1 recommended, seed 003: 1.2 .. 2.2)
    damping : float, N s/m, reached at penetration ``damping_depth`` (m)
    static, dynamic : float, friction coefficients; ``stiction_velocity``, ``dynamic_velocity`` : m/s (Fig. 4-3)
    half_length : float, m, optional
        Limit the plane to ``|x| ≤ half_length`` along the plane marker's x axis (a line contact in planar models).
    """

    output_units = {"normal_force": "N", "friction_force": "N", "penetration": "m", "slip_velocity": "m/s"}

    def __init__(self, point, plane, stiffness: float, exponent: float = 1.5, damping: float = 0.0,
                 damping_depth: float = 1e-4, static: float = 0.0, dynamic: float = 0.0,
                 stiction_velocity: float = 1e-3, dynamic_velocity: float | None = None,
                 half_length: float | None = None, name: str | None = None):
        self.point, self.plane = point, plane
        self.stiffness, self.exponent = float(stiffness), float(exponent)
        self.damping, self.damping_depth = float(damping), float(damping_depth)
        self.static, self.dynamic = float(static), float(dynamic)
        self.stiction_velocity = float(stiction_velocity)
        self.dynamic_velocity = float(dynamic_velocity) if dynamic_velocity is not None else 2.0 * stiction_velocity
        self.half_length = half_length
        self.name = name or f"contact({point.name},{plane.name})"

    def markers(self):
        return [self.point, self.plane]

    def law_parameters(self) -> np.ndarray:
        """``[k, e, d, x_d, μ_s, μ_d, v_s, v_d, half_length]`` of
        :func:`flexmbs.model.contact_laws.plane_contact_law` (half_length 0 when the plane is not limited)."""
        return np.array([self.stiffness, self.exponent, self.damping, self.damping_depth, self.static, self.dynamic,
                         self.stiction_velocity, self.dynamic_velocity,
                         0.0 if self.half_length is None else float(self.half_length)])

    def _state(self, ctx):
        sp, so = ctx.marker(self.point), ctx.marker(self.plane)
        offset = np.ascontiguousarray(sp.x - so.x, dtype=float)
        v_rel = sp.v - so.v - cross(so.w, offset)  # against the plane's material point under the marker point
        force, penetration, f_n, friction, speed = plane_contact_law(
            offset, np.ascontiguousarray(so.R[:, 2], dtype=float), np.ascontiguousarray(so.R[:, 0], dtype=float),
            np.ascontiguousarray(v_rel, dtype=float), self.law_parameters(), self.half_length is not None)
        return sp, so, offset, force, penetration, f_n, friction, speed

    def generalized_forces(self, ctx):
        sp, so, offset, force, _, f_n, _, _ = self._state(ctx)
        if f_n == 0.0:
            return []
        return body_loads((self.point, apply_at_marker(sp, force)),
                          (self.plane, apply_at_marker(so, -force, -cross(offset, force))))

    def event_gaps(self, ctx):
        """Gap function of the contact (flexmbs.engine.events): ``−penetration`` (m) and its rate (m/s)."""
        sp, so = ctx.marker(self.point), ctx.marker(self.plane)
        normal = so.R[:, 2]
        offset = sp.x - so.x
        rate = float(normal @ (sp.v - so.v - cross(so.w, offset)))
        if self.half_length is not None and abs(float(so.R[:, 0] @ offset)) > self.half_length:
            return {"gap": (1.0, rate)}  # beside the line: open (as in the force law)
        return {"gap": (float(normal @ offset), rate)}

    def potential_energy(self, ctx):
        """Elastic energy of the penalty spring, ``k x^(e+1) / (e+1)`` (J)."""
        penetration = self._state(ctx)[4]
        return self.stiffness * max(penetration, 0.0) ** (self.exponent + 1.0) / (self.exponent + 1.0)

    def outputs(self, ctx):
        _, _, _, _, penetration, f_n, friction, speed = self._state(ctx)
        return {"normal_force": f_n, "friction_force": friction, "penetration": penetration, "slip_velocity": speed}


class HardStop(OnJoint):
    """Penalty end stops on a joint coordinate: pushes back beyond ``lower`` or ``upper`` (m or rad).

    Parameters
    ----------
    joint : joint with a coordinate;  lower, upper : float or None
    stiffness : float, N/m^e or N m/rad^e;  exponent : float;  damping : float;  damping_depth : float
    """

    output_units = {"load": "N or N m"}

    def __init__(self, joint, lower=None, upper=None, stiffness: float = 1e7, exponent: float = 1.5,
                 damping: float = 0.0, damping_depth: float = 1e-4, coordinate: str | None = None,
                 name: str | None = None):
        self.joint = joint
        self.which = coordinate or joint.default_coordinate()
        self.lower, self.upper = lower, upper
        self.stiffness, self.exponent = float(stiffness), float(exponent)
        self.damping, self.damping_depth = float(damping), float(damping_depth)
        self.name = name or f"stop({joint.name})"

    def law_parameters(self) -> np.ndarray:
        """``[lower, upper, has lower, has upper, k, e, d, x_d]`` of
        :func:`flexmbs.model.contact_laws.hard_stop_load`."""
        return np.array([self.lower or 0.0, self.upper or 0.0, self.lower is not None, self.upper is not None,
                         self.stiffness, self.exponent, self.damping, self.damping_depth], dtype=float)

    def _load(self, ctx):
        value, gi, gj, rate = self.coordinate(ctx)
        return gi, gj, hard_stop_load(float(value), float(rate), self.law_parameters())

    def generalized_forces(self, ctx):
        gi, gj, load = self._load(ctx)
        return [] if load == 0.0 else coordinate_loads(self.joint.marker_i, self.joint.marker_j, load, gi, gj)

    def outputs(self, ctx):
        return {"load": self._load(ctx)[2]}

    def event_gaps(self, ctx):
        """Gap functions (flexmbs.engine.events): distance to each stop (m or rad, > 0 while free) and its rate."""
        value, _, _, rate = self.coordinate(ctx)
        gaps = {}
        if self.lower is not None:
            gaps["lower"] = (float(value - self.lower), float(rate))
        if self.upper is not None:
            gaps["upper"] = (float(self.upper - value), -float(rate))
        return gaps

    def potential_energy(self, ctx):
        value = self.coordinate(ctx)[0]
        depth = max(0.0, (self.lower - value) if self.lower is not None else 0.0,
                    (value - self.upper) if self.upper is not None else 0.0)
        return self.stiffness * depth ** (self.exponent + 1.0) / (self.exponent + 1.0)
