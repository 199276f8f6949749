"""Scalar measurements ``y(q, t)`` of the multibody system read by state elements (docs/element-protocol.md).

Each measurement's :meth:`evaluate` returns ``(y, ẏ, gradient)`` where ``gradient`` is a list of
``(body, ∂y/∂q̄_body)`` in that body's quasi-coordinates (6+m,). The solver adds ``(∂y/∂q)ᵀ f`` to the generalized
forces for the element's conjugate force ``f`` (seed 002 eq. (9)).
"""
from __future__ import annotations

import math

import numpy as np

from fem.errors import ModelError

__all__ = ["Distance", "JointCoordinate", "MarkerCoordinate", "line_between"]


def line_between(sa, sb, owner: str) -> tuple[float, np.ndarray, float]:
    """Length (m), unit vector and length rate (m/s) of the line from marker state ``sa`` to ``sb`` (a distance, a
    spring-damper; compiled: :func:`flexmbs.model.kernels.line_state`); ``owner`` names what needs it where the
    markers coincide (no direction)."""
    return _line(sa.x, sb.x, sa.v, sb.v, owner)


def _line(xa, xb, va, vb, owner) -> tuple[float, np.ndarray, float]:
    """:func:`line_between` of the points ``xa``, ``xb`` (3,) moving at ``va``, ``vb`` (3,)."""
    d = xb - xa
    length = math.sqrt(d.dot(d))  # np.linalg.norm's own formula for a vector, without its call
    if length < 1e-12:
        raise ModelError(f"{owner}: its two markers coincide (no direction between them); place them apart")
    e = d / length
    return length, e, float(e @ (vb - va))


def body_loads(*pairs) -> list:
    """``[(body, vector), ...]`` of ``(marker, vector)`` pairs, the markers on the ground left out (a measurement's
    gradient, a force element's generalized forces)."""
    return [(marker.body, vec) for marker, vec in pairs if not marker.on_ground]


class Distance:
    """Distance between two marker points, m; conjugate force pushes them apart (N)."""

    unit = "m"

    def __init__(self, marker_a, marker_b):
        self.marker_a, self.marker_b = marker_a, marker_b
        self.name = f"distance({marker_a.name},{marker_b.name})"

    def markers(self):
        return [self.marker_a, self.marker_b]

    def evaluate(self, ctx):
        sa, sb = ctx.marker(self.marker_a), ctx.marker(self.marker_b)
        length, e, rate = line_between(sa, sb, f"measurement {self.name}")
        return length, rate, body_loads((self.marker_a, -e @ sa.Jx), (self.marker_b, e @ sb.Jx))

    def value_rate(self, ctx) -> tuple[float, float]:
        """``(y, ẏ)`` of :meth:`evaluate`, without the gradient and the marker states (≈ 6 µs of the hydraulic
        race's start, whose check reads no gradient: :func:`flexmbs.engine.system.measure`)."""
        arrays, a, b = ctx.marker_arrays(), self.marker_a.index, self.marker_b.index
        X, V = arrays[0], arrays[4]
        length, _, rate = _line(X[a], X[b], V[a], V[b], f"measurement {self.name}")
        return length, rate


class JointCoordinate:
    """A joint's rotation angle (rad) or translation (m); conjugate torque (N m) or force (N) in its sense.

    Angles are continuous over many turns (unwrapped against the previous evaluation), starting in (-π, π].
    """

    def __init__(self, joint, coordinate: str | None = None):
        self.joint = joint
        self.which = coordinate or joint.default_coordinate()
        if self.which not in joint.coordinates:
            raise ModelError(f"joint {joint.name!r} has no {self.which} coordinate")
        self.unit = "rad" if self.which == "rotation" else "m"
        self.name = f"{self.which}({joint.name})"

    def markers(self):
        return [self.joint.marker_i, self.joint.marker_j]

    def reset(self) -> None:
        """Forget the unwrapping history (called when a simulation starts)."""
        self._last = None

    def follow(self, angle: float) -> None:
        """Unwrap the next evaluation against ``angle`` (rad): the compiled step, which unwraps in its own
        workspace (:func:`flexmbs.engine.step.measure`), hands its angle back so that an
        evaluation in Python during its run stays on the same turn."""
        self._last = float(angle)

    def evaluate(self, ctx):
        si, sj = ctx.marker(self.joint.marker_i), ctx.marker(self.joint.marker_j)
        value, gi, gj, rate = self.joint.coordinate(self.which, si, sj)
        value = float(value)
        if self.which == "rotation":  # continuous angle: unwrap against the previous evaluation (steps < π)
            last = getattr(self, "_last", None)
            if last is not None:
                value = last + (value - last + np.pi) % (2.0 * np.pi) - np.pi
            self._last = value
        return value, float(rate), body_loads((self.joint.marker_i, gi), (self.joint.marker_j, gj))


class MarkerCoordinate:
    """Global coordinate ``axis`` (0, 1, 2 or "x", "y", "z") of a marker point, m; conjugate force along it (N)."""

    unit = "m"

    def __init__(self, marker, axis):
        self.marker = marker
        self.axis = {"x": 0, "y": 1, "z": 2}.get(axis, axis)
        if self.axis not in (0, 1, 2):
            raise ModelError(f"MarkerCoordinate axis must be x, y, z or 0, 1, 2, got {axis!r}")
        self.name = f"{'xyz'[self.axis]}({marker.name})"

    def markers(self):
        return [self.marker]

    def evaluate(self, ctx):
        s = ctx.marker(self.marker)
        return float(s.x[self.axis]), float(s.v[self.axis]), body_loads((self.marker, s.Jx[self.axis]))
