"""Kinematic joints as holonomic constraints between two markers ``i`` (base) and ``j`` (follower).

Every joint is composed of the basic constraints of Haug (also seed 003 eq. (2-194..2-197) in planar form):

* point coincidence ``x_j - x_i = 0``                                  (3 equations)
* perpendicular axes ``a_iᵀ b_j = 0``          ("dot-1", 1 equation)
* point in a plane ``a_iᵀ (x_j - x_i) = 0``     ("dot-2", 1 equation)

Axes are the marker frame columns ``x, y, z``; the joint axis (revolute, prismatic, cylindrical) is ``z`` of marker
``i``. Each function returns the residual rows and their Jacobians with respect to the quasi-coordinates of the two
bodies (see :mod:`flexmbs.model.markers`). A joint coordinate (revolute angle about ``z_i`` from ``x_i`` to ``x_j``,
prismatic displacement ``z_iᵀ (x_j - x_i)``) can be prescribed as a function of time.
"""
from __future__ import annotations

from itertools import groupby

import numpy as np

from fem.errors import ModelError

from .kernels import joint_coordinate
from .rotations import cross
from .timefunctions import as_time_function, integrated_time_function

__all__ = ["Joint", "Fixed", "Revolute", "Spherical", "Prismatic", "Cylindrical", "Universal", "Planar", "Generic",
           "PointOnLine", "PointOnPlane"]


def point_rows(si, sj):
    """Point coincidence ``x_j - x_i`` (3,), Jacobians (3, n_i), (3, n_j)."""
    return sj.x - si.x, -si.Jx, sj.Jx


def _cross_columns(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Column-wise cross products of (3, k) arrays."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def dot1_rows(si, sj, pairs):
    """``a_iᵀ b_j`` for axis-index pairs ``([a, ...], [b, ...])`` of marker i and marker j frames."""
    a = si.R[:, pairs[0]]
    b = sj.R[:, pairs[1]]
    axb = _cross_columns(a, b)  # (3, k)
    return np.einsum("ik,ik->k", a, b), axb.T @ si.Jth, -axb.T @ sj.Jth


def dot2_rows(si, sj, axes):
    """``a_iᵀ (x_j - x_i)`` for axis indices ``axes`` of marker i."""
    d = sj.x - si.x
    a = si.R[:, axes]  # (3, k)
    axd = _cross_columns(a, d[:, None] * np.ones((1, len(axes))))
    return d @ a, axd.T @ si.Jth - a.T @ si.Jx, a.T @ sj.Jx


def _coordinate(which: int, si, sj) -> tuple[float, float]:
    """Value and rate of joint coordinate ``which`` (0 rotation, 1 translation): the compiled law
    :func:`flexmbs.model.kernels.joint_coordinate` on the two marker states."""
    pair = lambda a, b: np.array([a, b], dtype=float)  # noqa: E731
    return joint_coordinate(0, 1, which, pair(si.x, sj.x), pair(si.R, sj.R), pair(si.v, sj.v), pair(si.w, sj.w))


def rotation_coordinate(si, sj):
    """Angle (rad) about ``z_i`` from ``x_i`` to ``x_j``, its Jacobians (n_i,), (n_j,) and its rate, rad/s."""
    zi = si.R[:, 2]
    angle, rate = _coordinate(0, si, sj)
    return angle, -zi @ si.Jth, zi @ sj.Jth, rate


def translation_coordinate(si, sj):
    """Displacement ``z_iᵀ (x_j - x_i)`` (m), its Jacobians and its rate (m/s)."""
    zi = si.R[:, 2]
    value, rate = _coordinate(1, si, sj)
    return value, cross(zi, sj.x - si.x) @ si.Jth - zi @ si.Jx, zi @ sj.Jx, rate


def primitive_rows(primitives, si, sj):
    """The rows of basic constraints ``primitives`` (a joint's ``PRIMITIVES``), a run of one kind evaluated at once:
    residual (k,) and Jacobians (k, n_i), (k, n_j)."""
    blocks = []
    for kind, run in groupby(primitives, key=lambda p: p[0]):
        run = list(run)
        if kind == "point":
            blocks.append(point_rows(si, sj))
        elif kind == "dot1":
            blocks.append(dot1_rows(si, sj, ([p[1] for p in run], [p[2] for p in run])))
        else:
            blocks.append(dot2_rows(si, sj, [p[1] for p in run]))
    if len(blocks) == 1:
        return blocks[0]
    return tuple(np.concatenate([b[k] for b in blocks]) for k in range(3))


class Joint:
    """Base class: a set of constraint equations between markers ``marker_i`` and ``marker_j``.

    Subclasses declare their base rows as basic constraints (``PRIMITIVES``, or :meth:`base_rows` of their own) and
    the names of their coordinates (``"rotation"``, ``"translation"``).
    """

    coordinates: tuple[str, ...] = ()
    n_base = 0  # number of base rows (a joint with PRIMITIVES counts them)
    # the base rows as basic constraints, in row order: ("point",) = 3 rows, ("dot1", a, b), ("dot2", a); the system
    # evaluates joints that declare them vectorized (custom joints may define base_rows only)
    PRIMITIVES: tuple = ()

    def __init__(self, marker_i, marker_j, name: str | None = None):
        if marker_i is marker_j or marker_i.body is marker_j.body:
            raise ModelError(f"joint {name or type(self).__name__}: both markers are on body {marker_i.body.name!r}")
        self.marker_i = marker_i
        self.marker_j = marker_j
        self.name = name or f"{type(self).__name__.lower()}({marker_i.body.name},{marker_j.body.name})"
        self.drivers: list[tuple[str, callable]] = []
        self.row_mask: np.ndarray | None = None  # planar models drop out-of-plane rows
        self.offset = 0  # first row in the system's constraint vector
        rows = self.declared_rows()
        if rows:  # 3 rows per point coincidence, 1 per other basic constraint
            self.n_base = sum(3 if p[0] == "point" else 1 for p in rows)

    # --- equations ---------------------------------------------------------------------------------
    def declared_rows(self) -> tuple:
        """The basic constraints of this joint: its ``PRIMITIVES``, or those of the nearest library class it derives
        from (a user's subclass with ``PRIMITIVES = ()`` keeps its library's rows, evaluated in Python)."""
        return self.PRIMITIVES or next((c.PRIMITIVES for c in type(self).__mro__ if getattr(c, "PRIMITIVES", ())), ())

    def base_rows(self, si, sj):
        """Residual (k,) and Jacobians (k, n_i), (k, n_j) of the base rows: those of :meth:`declared_rows`."""
        rows = self.declared_rows()
        if not rows:  # pragma: no cover - a custom joint defines its own
            raise NotImplementedError
        return primitive_rows(rows, si, sj)

    def coordinate(self, which: str, si, sj):
        """Value, Jacobians (n_i,), (n_j,) and rate of joint coordinate ``which``."""
        if which not in self.coordinates:
            known = ", ".join(self.coordinates) or "none"
            raise ModelError(f"joint {self.name!r} has no {which} coordinate; it has: {known}")
        return rotation_coordinate(si, sj) if which == "rotation" else translation_coordinate(si, sj)

    def default_coordinate(self) -> str:
        if not self.coordinates:
            raise ModelError(f"joint {self.name!r} ({type(self).__name__}) has no joint coordinate")
        return self.coordinates[0]

    def prescribe(self, position=None, velocity=None, coordinate: str | None = None, initial: float = 0.0):
        """Prescribe the joint coordinate as a function of time.

        Parameters
        ----------
        position : callable t -> value, or float
            Coordinate (rad or m) as a function of time (s).
        velocity : callable t -> rate, or float
            Alternatively its rate (rad/s or m/s); the position is ``initial + ∫ velocity dt``.
        coordinate : {"rotation", "translation"} or None
            Which coordinate (needed for cylindrical joints only).
        initial : float
            Coordinate at t = 0 when ``velocity`` is given.
        """
        which = coordinate or self.default_coordinate()
        if which not in self.coordinates:
            raise ModelError(f"joint {self.name!r} has no {which} coordinate to prescribe")
        if (position is None) == (velocity is None):
            raise ModelError(f"joint {self.name!r}: prescribe exactly one of position or velocity")
        func = as_time_function(position) if position is not None else integrated_time_function(velocity, initial)
        self.drivers.append((which, func))
        return self

    @property
    def n_equations(self) -> int:
        base = self.n_base if self.row_mask is None else int(np.count_nonzero(self.row_mask))
        return base + len(self.drivers)

    def equations(self, si, sj, t: float):
        """Residual (k,), Jacobians (k, n_i), (k, n_j) of the base rows (the active ones of a planar model); the
        prescribed motions' rows ``coordinate - f(t)`` follow them, written by the engine's compiled law
        (:func:`flexmbs.engine.force_elements.driver_rows`). ``t`` (s) is for joints whose rows depend on time."""
        phi, ji, jj = self.base_rows(si, sj)
        if self.row_mask is not None:
            phi, ji, jj = phi[self.row_mask], ji[self.row_mask], jj[self.row_mask]
        return phi, ji, jj

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}: {self.marker_i.name} -> {self.marker_j.name})"


class Fixed(Joint):
    """Welds marker j to marker i: coincident points and parallel frames (6 equations)."""

    PRIMITIVES = (("point",), ("dot1", 2, 0), ("dot1", 2, 1), ("dot1", 0, 1))


class Revolute(Joint):
    """Rotation about the common ``z`` axis of the two markers (5 equations)."""

    PRIMITIVES = (("point",), ("dot1", 2, 0), ("dot1", 2, 1))
    coordinates = ("rotation",)


class Spherical(Joint):
    """Coincident points, free rotation (3 equations)."""

    PRIMITIVES = (("point",),)


class Prismatic(Joint):
    """Translation along ``z_i``, no relative rotation (5 equations)."""

    PRIMITIVES = (("dot1", 2, 0), ("dot1", 2, 1), ("dot1", 0, 1), ("dot2", 0), ("dot2", 1))
    coordinates = ("translation",)


class Cylindrical(Joint):
    """Translation along and rotation about ``z_i`` (4 equations)."""

    PRIMITIVES = (("dot1", 2, 0), ("dot1", 2, 1), ("dot2", 0), ("dot2", 1))
    coordinates = ("rotation", "translation")


class Universal(Joint):
    """Coincident points; rotation about ``z_i`` (on body i) and ``z_j`` (on body j), ``z_i ⟂ z_j`` (4 equations)."""

    PRIMITIVES = (("point",), ("dot1", 2, 2))


class Planar(Joint):
    """Marker j moves in the ``x_i y_i`` plane and turns about ``z_i`` only (3 equations)."""

    PRIMITIVES = (("dot2", 2), ("dot1", 2, 0), ("dot1", 2, 1))


# the basic constraint that locks the small relative rotation about each axis of marker i (as in Fixed, Prismatic)
_ROTATION_LOCKS = {"x": ("dot1", 2, 1), "y": ("dot1", 2, 0), "z": ("dot1", 0, 1)}
_AXES = {"x": 0, "y": 1, "z": 2}


class Generic(Joint):
    """A joint with a free choice of locked axes, like Exudyn's ``GenericJoint`` (its ``constrainedAxes``).

    ``translations`` names the axes of marker i along which the position of marker j relative to marker i is held
    (``"xyz"``: coincident points; ``"xy"``: marker j stays on the ``z_i`` line; ``"z"``: in the ``x_i y_i`` plane);
    ``rotations`` names the axes about which the relative rotation is held (Haug's dot-1 conditions: about x
    ``z_iᵀ y_j = 0``, about y ``z_iᵀ x_j = 0``, about z ``x_iᵀ y_j = 0``; start with the frames aligned about the
    held axes). Joint coordinates: ``"translation"`` (``z_iᵀ (x_j - x_i)``, m) when z is free, ``"rotation"`` (about
    ``z_i``, rad) when only the rotation about z is free.

    Examples
    --------
    ``Generic(mi, mj, "xyz", "xy")`` is a revolute joint, ``Generic(mi, mj, "xy", "")`` a point-on-line joint.
    """

    def __init__(self, marker_i, marker_j, translations: str = "xyz", rotations: str = "", name: str | None = None):
        for what, value in (("translations", translations), ("rotations", rotations)):
            if not isinstance(value, str) or not set(value) <= set("xyz") or len(set(value)) != len(value):
                raise ModelError(f"joint {name or 'generic'}: {what} must name distinct axes from 'xyz' (e.g. 'xy'), "
                                 f"got {value!r}")
        self.translations = "".join(sorted(translations))
        self.rotations = "".join(sorted(rotations))
        if not self.translations and not self.rotations:
            raise ModelError(f"joint {name or 'generic'}: it locks nothing; name translations and/or rotations")
        prims = [("point",)] if self.translations == "xyz" else [("dot2", _AXES[a]) for a in self.translations]
        self.PRIMITIVES = tuple(prims + [_ROTATION_LOCKS[a] for a in self.rotations])
        coords = []
        if self.rotations == "xy":
            coords.append("rotation")
        if "z" not in self.translations:
            coords.append("translation")
        self.coordinates = tuple(coords)
        super().__init__(marker_i, marker_j, name=name)


class PointOnLine(Generic):
    """Marker j's origin stays on the ``z_i`` axis of marker i; rotations free (2 equations)."""

    def __init__(self, marker_i, marker_j, name: str | None = None):
        super().__init__(marker_i, marker_j, "xy", "", name=name)


class PointOnPlane(Generic):
    """Marker j's origin stays in the ``x_i y_i`` plane of marker i; rotations free (1 equation)."""

    def __init__(self, marker_i, marker_j, name: str | None = None):
        super().__init__(marker_i, marker_j, "z", "", name=name)
