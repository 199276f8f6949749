"""The multibody model: a container you add bodies, markers, joints, forces and state elements to.

Example
-------
>>> model = Model("pendulum", gravity=(0, -9.81, 0))
>>> link = model.add_rigid_body("link", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.5, 0, 0))
>>> pivot = model.add_marker(model.ground, "pivot")
>>> end = model.add_marker(link, "end", position=(-0.5, 0, 0))
>>> model.add_joint("revolute", pivot, end)

Planar models
-------------
``Model(planar=True)`` keeps every body in the global ``XY`` plane (a planar joint to ground each) and drops the rows
of the 3D joints that only restrain out-of-plane motion, so planar machines (seed 001) use the same joint library
without redundant constraints (docs/theory-multibody.md, "Planar machines"). A revolute axis must then be global
``Z``; sliding axes must lie in the plane.
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError

from . import joints as joint_module
from .bodies import FlexibleBody, Ground, RigidBody
from .checks import check_gravity, check_vector
from .forces import ForceElement
from .markers import Marker

__all__ = ["Model", "JOINT_TYPES"]

JOINT_TYPES = {
    "fixed": joint_module.Fixed,
    "revolute": joint_module.Revolute,
    "spherical": joint_module.Spherical,
    "prismatic": joint_module.Prismatic,
    "cylindrical": joint_module.Cylindrical,
    "universal": joint_module.Universal,
    "planar": joint_module.Planar,
    "point-on-line": joint_module.PointOnLine,
    "point-on-plane": joint_module.PointOnPlane,
    "generic": joint_module.Generic,
}


class Model:
    """A multibody model.

    Parameters
    ----------
    name : str
    gravity : (3,) float, m/s²
        Gravitational acceleration in global axes.
    planar : bool
        Restrict all bodies to the global XY plane (see module docstring).
    """

    def __init__(self, name: str = "model", gravity=(0.0, 0.0, 0.0), planar: bool = False):
        if not isinstance(name, str) or not name.strip():  # issue 43: None and "" were accepted
            raise ModelError(f"a model's name must be non-empty text, got {name!r}")
        self.name = name
        self.gravity = check_vector(f"model {name!r}", "gravity", gravity, "m/s²")
        check_gravity(name, self.gravity)
        self.planar = bool(planar)
        self.ground = Ground()
        self.bodies: list = []
        self.markers: list[Marker] = []
        self.joints: list = []
        self.forces: list = []
        self.elements: list = []
        self.parameters: dict = {}
        self._names: set[str] = set()

    # --- building ------------------------------------------------------------------------------------
    def _claim(self, kind: str, name: str) -> str:
        # (a body's name is non-empty text: checked where it is made, _InertialBody; add_body takes no other)
        if kind == "body" and name == "ground":
            raise ModelError("'ground' is the model's ground (model.ground); give the body another name")
        key = f"{kind}:{name}"
        if key in self._names:
            raise ModelError(f"model {self.name!r} already has a {kind} called {name!r}; names must be unique")
        self._names.add(key)
        return name

    def add_body(self, body):
        """Add a :class:`RigidBody` or :class:`FlexibleBody`; returns it."""
        if not isinstance(body, (RigidBody, FlexibleBody)):
            raise ModelError(f"add_body expects a RigidBody or FlexibleBody, got {type(body).__name__}")
        self._claim("body", body.name)
        body.index = len(self.bodies)
        self.bodies.append(body)
        return body

    def add_rigid_body(self, name: str, mass: float, inertia, **kwargs) -> RigidBody:
        """Create and add a :class:`RigidBody` (keywords as its constructor)."""
        return self.add_body(RigidBody(name, mass, inertia, **kwargs))

    def add_flexible_body(self, name: str, flexbody, **kwargs) -> FlexibleBody:
        """Create and add a :class:`FlexibleBody` from a FlexBody or a ``*.flex.h5`` path."""
        return self.add_body(FlexibleBody(name, flexbody, **kwargs))

    def add_marker(self, body, name: str | None = None, position=None, orientation=None, node=None) -> Marker:
        """Add a marker (frame) on ``body`` (or ``model.ground``).

        Parameters
        ----------
        body : Ground, RigidBody or FlexibleBody
        name : str, optional
        position : (3,) float, m
            Origin in the body frame (rigid bodies and ground).
        orientation : (3, 3) matrix or (4,) quaternion, optional
            Marker axes relative to the body frame (columns are the marker x, y, z axes).
        node : str or int
            On a flexible body: an interface name or a mesh node id (interface or output node).
        """
        if body is not self.ground and body not in self.bodies:
            raise ModelError(
                f"marker {name!r}: body {getattr(body, 'name', body)!r} is not part of model {self.name!r}")
        name = name or f"{body.name}.m{len(self.markers)}"
        self._claim("marker", name)
        if position is not None:  # issue 43: a NaN position ran
            check_vector(f"marker {name!r}", "position", position, "m")
        marker = Marker(name, body, position=position, orientation=orientation, node=node)
        marker.index = len(self.markers)
        self.markers.append(marker)
        return marker

    def add_joint(self, joint, marker_i=None, marker_j=None, name: str | None = None, axis=None, **options):
        """Add a joint object, or create one: ``add_joint("revolute", marker_i, marker_j, name=...)``.

        Kinds: ``fixed, revolute, spherical, prismatic, cylindrical, universal, planar, point-on-line,
        point-on-plane, generic`` (``generic`` takes ``translations=`` and ``rotations=``, the locked axes:
        :class:`flexmbs.model.joints.Generic`).

        ``axis`` (3,), global: the joint axis at the initial placement (the revolute, prismatic, cylindrical axis,
        the point-on-line's line, the point-on-plane's normal). The joint then acts between two new markers at the
        given markers' points whose ``z`` is ``axis`` (and whose ``x`` is the same for both), so that no
        orientation matrix needs to be built by hand.
        """
        if isinstance(joint, str):
            if joint not in JOINT_TYPES:
                raise ModelError(f"unknown joint type {joint!r}; known: {', '.join(JOINT_TYPES)}")
            if marker_i is None or marker_j is None:
                raise ModelError(f"a {joint} joint needs two markers")
            if axis is not None:
                marker_i, marker_j = (self._axis_marker(m, axis, name or joint) for m in (marker_i, marker_j))
            joint = JOINT_TYPES[joint](marker_i, marker_j, name=name, **options)
        elif axis is not None or options:
            raise ModelError("axis= and joint options apply when add_joint creates the joint from its kind name")
        if not isinstance(joint, joint_module.Joint):
            raise ModelError(f"add_joint expects a joint, got {type(joint).__name__}")
        for m in (joint.marker_i, joint.marker_j):
            self._check_marker(m, f"joint {joint.name!r}")
        self._claim("joint", joint.name)
        self.joints.append(joint)
        return joint

    def _axis_marker(self, marker, axis, joint_name: str):
        """A marker at ``marker``'s point whose z is the global ``axis`` at the bodies' initial placement; its x is
        the global axis least aligned with ``axis``, made perpendicular (the same for both markers of a joint)."""
        try:  # issue 43: text raised numpy's ValueError
            a = np.asarray(axis, dtype=float).reshape(3)
        except (TypeError, ValueError):
            raise ModelError(f"joint {joint_name!r}: axis must be 3 numbers (a direction), got {axis!r}") from None
        if not np.all(np.isfinite(a)) or np.linalg.norm(a) == 0.0:
            raise ModelError(f"joint {joint_name!r}: axis must be a non-zero vector, got {axis!r}")
        a = a / np.linalg.norm(a)
        e = np.eye(3)[int(np.argmin(np.abs(a)))]
        x = e - (e @ a) * a
        x /= np.linalg.norm(x)
        frame = np.column_stack([x, np.cross(a, x), a])  # global marker axes
        if marker.node is not None:
            raise ModelError(f"joint {joint_name!r}: axis= is for markers on rigid bodies and ground; give the "
                             f"flexible-body marker {marker.name!r} its orientation instead")
        body_axes = np.eye(3) if marker.on_ground else marker.body.initial_orientation
        base = f"{marker.name}@{joint_name}"
        name, k = base, 1
        while any(m.name == name for m in self.markers):
            name, k = f"{base}.{k}", k + 1
        return self.add_marker(marker.body, name, position=marker.local_position, orientation=body_axes.T @ frame)

    def add_force(self, force: ForceElement):
        """Add a force element (spring, bushing, point force, contact, friction, ...); returns it."""
        if isinstance(force, type) or not (callable(getattr(force, "markers", None))
                                           and callable(getattr(force, "generalized_forces", None))):
            raise ModelError(f"add_force expects a force element (fm.SpringDamper, fm.PointForce, ... or an object "
                             f"with markers() and generalized_forces(ctx)), got "
                             f"{'the class ' + force.__name__ + ' (call it to make one)' if isinstance(force, type) else type(force).__name__}")
        for m in force.markers():
            self._check_marker(m, f"force {force.name!r}")
        self._claim("force", force.name)
        self.forces.append(force)
        for element in getattr(force, "state_elements", ()):  # e.g. the stick state of a JointFriction
            self.add_element(element)
        return force

    def add_element(self, element):
        """Add a state element (hydraulic circuit, controller) following docs/element-protocol.md; returns it."""
        for attr in ("name", "measurements", "state_names", "initial_state", "rates", "forces"):
            if not hasattr(element, attr):
                raise ModelError(f"state element {getattr(element, 'name', element)!r} lacks {attr!r} "
                                 "(see docs/element-protocol.md)")
        z0 = np.asarray(element.initial_state(), dtype=float).reshape(-1)
        if z0.size != len(element.state_names):
            raise ModelError(f"state element {element.name!r}: initial_state has {z0.size} values but "
                             f"{len(element.state_names)} state names")
        for meas in element.measurements:
            for m in meas.markers():
                self._check_marker(m, f"element {element.name!r}")
        self._claim("element", element.name)
        self.elements.append(element)
        return element

    def add(self, item):
        """Add any item: body, joint, force element or state element."""
        if isinstance(item, (RigidBody, FlexibleBody)):
            return self.add_body(item)
        if isinstance(item, joint_module.Joint):
            return self.add_joint(item)
        if isinstance(item, ForceElement):
            return self.add_force(item)
        return self.add_element(item)

    def _check_marker(self, marker, owner: str):
        if not isinstance(marker, Marker) or marker.index < 0 or self.markers[marker.index] is not marker:
            raise ModelError(f"{owner}: marker {getattr(marker, 'name', marker)!r} was not added to this model")

    # --- lookup --------------------------------------------------------------------------------------
    def body(self, name: str):
        return _named(self.bodies, "body", "bodies", name)

    def joint(self, name: str):
        return _named(self.joints, "joint", "joints", name)

    def __repr__(self) -> str:
        return (f"Model({self.name!r}: {len(self.bodies)} bodies, {len(self.joints)} joints, "
                f"{len(self.forces)} forces, {len(self.elements)} state elements)")


def _named(items: list, kind: str, kinds: str, name: str):
    """The item called ``name`` of ``items``, or a one-line error listing their names."""
    for item in items:
        if item.name == name:
            return item
    raise ModelError(f"no {kind} {name!r}; {kinds}: {', '.join(item.name for item in items)}")
