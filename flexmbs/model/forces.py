"""Force elements: point loads, spring-dampers (linear and tabulated), rotational spring-dampers, bushings.

A force element returns generalized forces in the quasi-coordinates of the bodies it acts on. A global force ``F``
and torque ``T`` applied at marker ``k`` give ``Q̄ = Jxᵀ F + Jθᵀ T`` (virtual work ``δW = Fᵀ δx + Tᵀ δθ``); on a
flexible body this is the projection of a nodal load on the modes, ``S_pᵀ Aᵀ F`` (seed 003 eq. (2-145)).

Every element has ``name``, :meth:`generalized_forces` (list of ``(body, Q̄)``), :meth:`outputs` (named SI
signals for the results file, units in ``output_units``) and :meth:`potential_energy` (J; zero for non-conservative
elements).
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError

from .checks import check_marker, check_number, check_vector
from .joints import rotation_coordinate
from .measurements import body_loads, line_between
from .rotations import cross
from .force_laws import bushing_law, spring_force
from .timefunctions import Table, as_time_function

__all__ = ["ForceElement", "PointForce", "SpringDamper", "RotationalSpringDamper", "Bushing", "MatrixBushing",
           "JointActuator", "apply_at_marker"]


def apply_at_marker(state, force=None, torque=None) -> np.ndarray:
    """Generalized force (6+m,) of a global ``force`` (N) at the marker point and a global ``torque`` (N m)."""
    out = np.zeros(state.Jx.shape[1])
    if force is not None:
        out += force @ state.Jx
    if torque is not None:
        out += torque @ state.Jth
    return out


class ForceElement:
    """Base class of force elements."""

    name = "force"
    output_units: dict[str, str] = {}

    def markers(self) -> list:
        return []

    def generalized_forces(self, ctx) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def outputs(self, ctx) -> dict[str, float]:
        return {}

    def potential_energy(self, ctx) -> float:
        return 0.0


_NO_TABLE = np.zeros(0)


def _spring_law(stiffness) -> tuple[float, np.ndarray, np.ndarray]:
    """The linear stiffness (0 for a Table) and the abscissae and values of a Table stiffness, or two empty arrays
    (:func:`.force_laws.spring_force`)."""
    return (0.0, stiffness.x, stiffness.y) if isinstance(stiffness, Table) else (float(stiffness), _NO_TABLE, _NO_TABLE)


def coordinate_loads(marker_i, marker_j, load: float, gi: np.ndarray, gj: np.ndarray) -> list:
    """Generalized forces of a ``load`` (N or N m) along a joint coordinate whose gradients in the quasi-coordinates
    of the bodies of ``marker_i`` and ``marker_j`` are ``gi`` and ``gj``: ``[(body, load g), ...]`` (ground left
    out)."""
    return body_loads((marker_i, load * gi), (marker_j, load * gj))


def _vector_function(value, owner: str = "point force", what: str = "force", unit: str = "N"):
    if value is None:
        return None
    if callable(value):
        def checked(t):
            # issue 43: a function of time that returns NaN or a wrong shape is named here, in the user's words
            # (before, NaN reached the solver and ended in "the mass matrix is singular")
            try:
                out = np.asarray(value(t), dtype=float).reshape(3)
            except (TypeError, ValueError) as exc:
                raise ModelError(f"{owner}: the {what} function must return 3 numbers in {unit} at each time t (s); "
                                 f"at t = {t:g} s it failed: {exc}") from None
            if not np.isfinite(out).all():
                raise ModelError(f"{owner}: the {what} function returned {out.tolist()} at t = {t:g} s; it must "
                                 f"return 3 finite numbers in {unit}")
            return out

        return checked
    const = check_vector(owner, what, value, unit)  # issue 43: text or NaN named
    return lambda t: const


class _BetweenMarkers(ForceElement):
    """A force element between ``marker_i`` and ``marker_j``."""

    def markers(self):
        return [self.marker_i, self.marker_j]


class _SixDof(_BetweenMarkers):
    """A force and torque on marker j, the opposite ones on marker i (:class:`Bushing`, :class:`MatrixBushing`: their
    ``_loads(ctx)`` return the two marker states, the global force (N) and torque (N m) on marker j, ...)."""

    output_units = {"Fx": "N", "Fy": "N", "Fz": "N", "Tx": "N m", "Ty": "N m", "Tz": "N m"}

    def generalized_forces(self, ctx):
        si, sj, force, torque = self._loads(ctx)[:4]
        return body_loads((self.marker_j, apply_at_marker(sj, force, torque)),
                          (self.marker_i, apply_at_marker(si, -force, -torque - cross(sj.x - si.x, force))))

    def outputs(self, ctx):
        force, torque = self._loads(ctx)[2:4]
        return dict(zip(self.output_units, np.concatenate([force, torque]).tolist()))


class PointForce(ForceElement):
    """A force and/or torque at a marker given as functions of time.

    Parameters
    ----------
    marker : Marker
    force, torque : (3,) array or callable t -> (3,), N and N m
    local : bool
        If True the vectors are in the marker's axes (they turn with it), else in global axes.
    """

    output_units = {"Fx": "N", "Fy": "N", "Fz": "N", "Tx": "N m", "Ty": "N m", "Tz": "N m"}

    def __init__(self, marker, force=None, torque=None, local: bool = False, name: str | None = None):
        check_marker("point force", "marker", marker)
        self.marker = marker
        owner = f"point force at {marker.name!r}"
        self.force = _vector_function(force, owner, "force", "N")
        self.torque = _vector_function(torque, owner, "torque", "N m")
        # constant vectors (N, N m), None for a function of time or none given: the compiled kernel takes these
        self.constant_force = None if force is None or callable(force) else self.force(0.0)
        self.constant_torque = None if torque is None or callable(torque) else self.torque(0.0)
        self.local = local
        self.name = name or f"point_force({marker.name})"

    def markers(self):
        return [self.marker]

    def _vectors(self, ctx):
        s = ctx.marker(self.marker)
        f = self.force(ctx.t) if self.force else np.zeros(3)
        tq = self.torque(ctx.t) if self.torque else np.zeros(3)
        if self.local:
            f, tq = s.R @ f, s.R @ tq
        return s, f, tq

    def generalized_forces(self, ctx):
        if self.marker.on_ground:
            return []
        s, f, tq = self._vectors(ctx)
        return [(self.marker.body, apply_at_marker(s, f, tq))]

    def outputs(self, ctx):
        _, f, tq = self._vectors(ctx)
        return dict(zip(self.output_units, np.concatenate([f, tq]).tolist()))


class SpringDamper(_BetweenMarkers):
    """Translational spring-damper between two marker points.

    Tension positive: ``F = k (L - L0) + c L̇ + preload`` or ``F = table(L - L0) + c L̇`` pulls the points together.

    Parameters
    ----------
    marker_i, marker_j : Marker
    stiffness : float, N/m, or Table of force (N) over deflection (m)
    damping : float, N s/m
    free_length : float, m (None: the initial distance)
    preload : float, N
    """

    output_units = {"force": "N", "length": "m", "velocity": "m/s"}

    def __init__(self, marker_i, marker_j, stiffness=0.0, damping=0.0, free_length=None, preload=0.0,
                 name: str | None = None):
        for what, marker in (("marker_i", marker_i), ("marker_j", marker_j)):
            check_marker("spring-damper", what, marker)
        owner = f"spring({marker_i.name},{marker_j.name})" if name is None else f"spring {name!r}"
        if not isinstance(stiffness, Table):
            stiffness = check_number(owner, "stiffness", stiffness, "N/m")
        self.marker_i, self.marker_j = marker_i, marker_j
        self.stiffness = stiffness
        self.damping = check_number(owner, "damping", damping, "N s/m")
        self.free_length = None if free_length is None else check_number(owner, "free_length", free_length, "m")
        self.preload = check_number(owner, "preload", preload, "N")
        self.name = name or f"spring({marker_i.name},{marker_j.name})"

    def _state(self, ctx):
        si, sj = ctx.marker(self.marker_i), ctx.marker(self.marker_j)
        length, e, rate = line_between(si, sj, f"spring {self.name!r}")
        if self.free_length is None:
            self.free_length = length  # first evaluation is the initial configuration
        k, xs, ys = _spring_law(self.stiffness)
        tension = spring_force(length - self.free_length, rate, k, self.damping, self.preload, xs, ys)
        return si, sj, e, length, rate, tension

    def generalized_forces(self, ctx):
        si, sj, e, _, _, tension = self._state(ctx)
        return body_loads((self.marker_i, apply_at_marker(si, tension * e)),
                          (self.marker_j, apply_at_marker(sj, -tension * e)))

    def outputs(self, ctx):
        _, _, _, length, rate, tension = self._state(ctx)
        return {"force": tension, "length": length, "velocity": rate}

    def potential_energy(self, ctx):
        _, _, _, length, _, _ = self._state(ctx)
        stretch = length - self.free_length
        if isinstance(self.stiffness, Table):
            return self.stiffness.integral(stretch) + self.preload * stretch
        return 0.5 * float(self.stiffness) * stretch**2 + self.preload * stretch


class RotationalSpringDamper(_BetweenMarkers):
    """Torque about ``z_i`` between two markers: ``T = -k (θ - θ0) - c θ̇`` (or a Table of torque over angle).

    The angle is measured as in a revolute joint (about ``z_i`` from ``x_i`` to ``x_j``); the markers' ``z`` axes
    should stay (nearly) parallel, e.g. across a revolute joint.
    """

    output_units = {"torque": "N m", "angle": "rad", "rate": "rad/s"}

    def __init__(self, marker_i, marker_j, stiffness=0.0, damping=0.0, free_angle: float = 0.0,
                 name: str | None = None):
        self.marker_i, self.marker_j = marker_i, marker_j
        self.stiffness, self.damping, self.free_angle = stiffness, float(damping), float(free_angle)
        self.name = name or f"torsion_spring({marker_i.name},{marker_j.name})"

    def _state(self, ctx):
        si, sj = ctx.marker(self.marker_i), ctx.marker(self.marker_j)
        angle, gi, gj, rate = rotation_coordinate(si, sj)
        k, xs, ys = _spring_law(self.stiffness)
        torque = -spring_force(angle - self.free_angle, rate, k, self.damping, 0.0, xs, ys)
        return gi, gj, angle, rate, torque

    def generalized_forces(self, ctx):
        gi, gj, _, _, torque = self._state(ctx)
        return coordinate_loads(self.marker_i, self.marker_j, torque, gi, gj)

    def outputs(self, ctx):
        _, _, angle, rate, torque = self._state(ctx)
        return {"torque": torque, "angle": angle, "rate": rate}

    def potential_energy(self, ctx):
        _, _, angle, _, _ = self._state(ctx)
        twist = angle - self.free_angle
        if isinstance(self.stiffness, Table):
            return self.stiffness.integral(twist)
        return 0.5 * float(self.stiffness) * twist**2


class Bushing(_SixDof):
    """Six-dof linear bushing: ``F = -K_t δ - C_t δ̇``, ``T = -K_r θ - C_r θ̇`` in marker-i axes.

    ``δ`` is the position of marker j relative to marker i (in i's axes) and ``θ`` the small relative rotation
    vector (from ``R_iᵀ R_j``). Forces act on marker j; the opposite force and torque act on marker i.

    Parameters
    ----------
    translational_stiffness, rotational_stiffness : (3,) N/m, N m/rad
    translational_damping, rotational_damping : (3,) N s/m, N m s/rad
    """

    def __init__(self, marker_i, marker_j, translational_stiffness, rotational_stiffness,
                 translational_damping=(0, 0, 0), rotational_damping=(0, 0, 0), name: str | None = None):
        self.marker_i, self.marker_j = marker_i, marker_j
        self.kt, self.kr, self.ct, self.cr = (np.broadcast_to(np.asarray(v, float), (3,)) for v in (
            translational_stiffness, rotational_stiffness, translational_damping, rotational_damping))
        self.name = name or f"bushing({marker_i.name},{marker_j.name})"

    def law_parameters(self) -> np.ndarray:
        """``[K_t, K_r, C_t, C_r]`` (12,) of :func:`flexmbs.model.force_laws.bushing_law`."""
        return np.concatenate([self.kt, self.kr, self.ct, self.cr])

    def _loads(self, ctx):
        si, sj = ctx.marker(self.marker_i), ctx.marker(self.marker_j)
        d = np.ascontiguousarray(sj.x - si.x, dtype=float)
        force, torque, delta, theta = bushing_law(
            np.ascontiguousarray(si.R, dtype=float), np.ascontiguousarray(sj.R, dtype=float), d,
            np.ascontiguousarray(sj.v - si.v - cross(si.w, d), dtype=float),
            np.ascontiguousarray(sj.w - si.w, dtype=float), self.law_parameters())
        return si, sj, force, torque, delta, theta

    def potential_energy(self, ctx):
        _, _, _, _, delta, theta = self._loads(ctx)
        return 0.5 * float(self.kt @ delta**2 + self.kr @ theta**2)


class MatrixBushing(_SixDof):
    """Six-dof spring-damper with a full 6×6 stiffness and damping, an offset and a preload (Exudyn's
    ``RigidBodySpringDamper`` / ``GenericJoint`` spring).

    The relative motion of marker j with respect to marker i is ``s = [δ; θ]`` (6,): ``δ = R_iᵀ (x_j − x_i)`` (m)
    and the small rotation vector ``θ`` of ``R_iᵀ R_j`` (rad, its skew part as in :class:`Bushing`), with rates
    ``ṡ = [R_iᵀ (v_j − v_i − ω_i × (x_j − x_i)); R_iᵀ (ω_j − ω_i)]``. The load on marker j, in marker-i axes, is

        ``[F; T] = −K (s − s₀) − D ṡ + P``

    and the opposite force and torque act on marker i. With ``axes="global"`` every quantity is taken in the global
    axes instead (``δ = x_j − x_i``, ``θ`` of ``R_j R_iᵀ``, ``ṡ = [v_j − v_i; ω_j − ω_i]``): a damper that does not
    turn with the bodies, beside the corotational default.

    Parameters
    ----------
    stiffness, damping : (6, 6) float
        ``K`` (N/m, N/rad, N m/m, N m/rad blocks) and ``D`` (the same per m/s, rad/s); a (6,) vector is a diagonal.
    offset : (6,) float, m and rad
        ``s₀``: the relative position at which the spring is unloaded.
    preload : (6,) float, N and N m
        ``P``: a constant load on marker j (in the same axes).
    axes : {"marker_i", "global"}
    """

    def __init__(self, marker_i, marker_j, stiffness, damping=None, offset=None, preload=None,
                 axes: str = "marker_i", name: str | None = None):
        self.marker_i, self.marker_j = marker_i, marker_j
        self.name = name or f"matrix_bushing({marker_i.name},{marker_j.name})"
        self.stiffness = self._matrix(stiffness, "stiffness")
        self.damping = self._matrix(np.zeros(6) if damping is None else damping, "damping")
        self.offset = self._vector(offset, "offset")
        self.preload = self._vector(preload, "preload")
        if axes not in ("marker_i", "global"):
            raise ModelError(f"bushing {self.name!r}: axes must be 'marker_i' or 'global', got {axes!r}")
        self.axes = axes

    def _matrix(self, value, what: str) -> np.ndarray:
        a = np.asarray(value, dtype=float)
        if a.shape == (6,):
            a = np.diag(a)
        if a.shape != (6, 6) or not np.all(np.isfinite(a)):
            raise ModelError(f"bushing {self.name!r}: {what} must be a finite 6×6 matrix or 6 diagonal values, "
                             f"got shape {a.shape}")
        return a

    def _vector(self, value, what: str) -> np.ndarray:
        a = np.zeros(6) if value is None else np.asarray(value, dtype=float).reshape(-1)
        if a.shape != (6,) or not np.all(np.isfinite(a)):
            raise ModelError(f"bushing {self.name!r}: {what} must be 6 finite values (translations, rotations)")
        return a

    def relative_motion(self, si, sj) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``s`` (6,), ``ṡ`` (6,) and the axes ``R`` (3, 3) they are taken in (columns, global)."""
        d = sj.x - si.x
        if self.axes == "global":
            axes = np.eye(3)
            rel = sj.R @ si.R.T
            rate = np.concatenate([sj.v - si.v, sj.w - si.w])
        else:
            axes = si.R
            rel = si.R.T @ sj.R
            rate = np.concatenate([si.R.T @ (sj.v - si.v - cross(si.w, d)), si.R.T @ (sj.w - si.w)])
        theta = 0.5 * np.array([rel[2, 1] - rel[1, 2], rel[0, 2] - rel[2, 0], rel[1, 0] - rel[0, 1]])
        return np.concatenate([axes.T @ d, theta]), rate, axes

    def _loads(self, ctx):
        si, sj = ctx.marker(self.marker_i), ctx.marker(self.marker_j)
        s, rate, axes = self.relative_motion(si, sj)
        load = -self.stiffness @ (s - self.offset) - self.damping @ rate + self.preload
        return si, sj, axes @ load[:3], axes @ load[3:], s

    def potential_energy(self, ctx):
        """``½ (s − s₀)ᵀ K_sym (s − s₀) − Pᵀ s`` (J): exact for the translations, to second order in θ."""
        _, _, _, _, s = self._loads(ctx)
        e = s - self.offset
        return float(0.5 * e @ (0.5 * (self.stiffness + self.stiffness.T)) @ e - self.preload @ s)


class OnJoint(ForceElement):
    """A force element along the coordinate ``which`` of ``joint`` (:class:`JointActuator`,
    :class:`~flexmbs.model.contacts.HardStop`, :class:`~flexmbs.model.contacts.JointFriction`)."""

    def markers(self):
        return [self.joint.marker_i, self.joint.marker_j]

    def coordinate(self, ctx):
        """Value, gradients (n_i,), (n_j,) and rate of the joint coordinate (:meth:`.joints.Joint.coordinate`)."""
        return self.joint.coordinate(self.which, ctx.marker(self.joint.marker_i), ctx.marker(self.joint.marker_j))


class JointActuator(OnJoint):
    """A torque (revolute) or force (prismatic) along a joint coordinate, as a function of time (N m or N)."""

    output_units = {"load": "N m or N"}

    def __init__(self, joint, load, coordinate: str | None = None, name: str | None = None):
        self.joint = joint
        self.which = coordinate or joint.default_coordinate()
        self.load = as_time_function(load)
        self.name = name or f"actuator({joint.name})"

    def generalized_forces(self, ctx):
        _, gi, gj, _ = self.coordinate(ctx)
        return coordinate_loads(self.joint.marker_i, self.joint.marker_j, self.load(ctx.t), gi, gj)

    def outputs(self, ctx):
        return {"load": float(self.load(ctx.t))}
