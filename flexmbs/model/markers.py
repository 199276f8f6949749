"""Markers: frames attached to the ground, to a rigid body or to a node of a flexible body.

A marker on a flexible body follows its node (seed 003 eq. (2-145)): ``x = r + A (s_p + S_p q_f)``, and its frame
turns with the small nodal rotation ``θ_p = S^θ_p q_f`` (eq. (2-148..2-151)): ``R = A (I + θ̃_p) R_0``.
Each evaluation returns the Jacobians of position and of the (global) virtual rotation with respect to the body's
quasi-coordinates ``(δr, δπ', δq_f)``::

    δx = [I, -A ũ_p, A S_p] δ           δθ = [0, A, A S^θ_p] δ
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem.errors import ModelError

from .rotations import orientation_matrix

__all__ = ["Marker", "MarkerState"]

_EYE3 = np.eye(3)


@dataclass
class MarkerState:
    """A marker's pose and first-order kinematics at one instant.

    Attributes
    ----------
    x : (3,) global position, m
    R : (3, 3) marker axes in global coordinates (columns)
    Jx : (3, 6+m) position Jacobian in the body's quasi-coordinates (empty for ground)
    Jth : (3, 6+m) virtual-rotation Jacobian, global axes
    v : (3,) velocity, m/s
    w : (3,) angular velocity, rad/s, global axes
    """

    x: np.ndarray
    R: np.ndarray
    Jx: np.ndarray
    Jth: np.ndarray
    v: np.ndarray
    w: np.ndarray


class Marker:
    """A frame on a body.

    Create markers with :meth:`flexmbs.Model.add_marker`; the parameters are documented there.
    """

    def __init__(self, name: str, body, position=None, orientation=None, node=None):
        from flexmbs.model.checks import check_orientation

        check_orientation(f"marker {name!r}", orientation)  # issue 43: np.ones((3, 3)) was projected silently
        self.name = name
        self.body = body
        self.index = -1
        self.local_orientation = orientation_matrix(orientation)
        self.node = None
        if node is not None:
            if not hasattr(body, "node_positions"):
                raise ModelError(f"marker {name!r}: a node can only be given on a flexible body, not on {body.name!r}")
            try:
                self.node = body.node(node)
            except ModelError as exc:
                raise ModelError(f"marker {name!r}: {exc}") from None
            self.local_position = body.node_positions[self.node].copy()
            if position is not None:
                raise ModelError(f"marker {name!r}: give either a node or a position, not both")
        else:
            self.local_position = np.zeros(3) if position is None else np.asarray(position, dtype=float).reshape(3)
        if node is None and hasattr(body, "node_positions") and position is not None:
            raise ModelError(
                f"marker {name!r}: markers on flexible body {body.name!r} must sit on a node (interface or output "
                "node); pass node=<interface name or node id>"
            )
        self._ground_state = None

    @property
    def on_ground(self) -> bool:
        return self.body.index < 0

    def evaluate(self, kin) -> MarkerState:
        """Pose and Jacobians from the body kinematics ``kin`` (:class:`BodyKinematics`; ignored on ground)."""
        if self.on_ground:
            if self._ground_state is None:
                z = np.zeros((3, 0))
                self._ground_state = MarkerState(self.local_position, self.local_orientation, z, z, np.zeros(3),
                                                 np.zeros(3))
            return self._ground_state
        return MarkerGroup([self], self.body).evaluate(kin)[0]

    def __repr__(self) -> str:
        where = f"node {self.node}" if self.node is not None else f"{self.local_position.tolist()}"
        return f"Marker({self.name!r} on {self.body.name!r} at {where})"


class MarkerGroup:
    """The markers of one body with their data stacked, for one vectorized evaluation per body."""

    def __init__(self, markers: list, body):
        self.markers = markers
        self.body = body
        k = len(markers)
        self.local = np.array([m.local_position for m in markers]).reshape(k, 3)
        self.orient = np.array([m.local_orientation for m in markers]).reshape(k, 3, 3)
        nodes = [m.node for m in markers]
        self.flexible = bool(body.n_modes) and any(nd is not None for nd in nodes)
        if self.flexible:
            mask = np.array([nd is not None for nd in nodes], dtype=float)[:, None, None]
            idx = np.array([nd if nd is not None else 0 for nd in nodes])
            self.s_t = np.ascontiguousarray(body.node_translations[idx] * mask)  # (k, 3, m)
            self.s_r = np.ascontiguousarray(body.node_rotations[idx] * mask)
        self.jx_template = np.zeros((k, 3, body.n_quasi))
        self.jx_template[:, 0, 0] = self.jx_template[:, 1, 1] = self.jx_template[:, 2, 2] = 1.0

    def evaluate_arrays(self, kin):
        """Positions (k, 3), axes (k, 3, 3), Jacobians (k, 3, 6+m) ×2, velocities and angular velocities (k, 3)."""
        A = kin.A
        w_frame = A @ kin.omega
        jx = self.jx_template.copy()
        jth = np.zeros_like(jx)
        jth[:, :, 3:6] = A
        local, orient = self.local, self.orient
        if self.flexible:
            local = local + self.s_t @ kin.qf
            theta = self.s_r @ kin.qf  # (k, 3) small nodal rotations, eq. (2-148)
            orient = (_EYE3 + _skew_rows(theta)) @ orient  # eq. (2-150)
            jx[:, :, 6:] = A @ self.s_t
            jth[:, :, 6:] = A @ self.s_r
        au = local @ A.T  # (k, 3)
        jx[:, :, 3:6] = -(_skew_rows(au) @ A)
        vel = kin.rdot + _cross_rows(w_frame, au)
        if self.flexible:
            vel = vel + (self.s_t @ kin.qfdot) @ A.T
            ang = w_frame + (self.s_r @ kin.qfdot) @ A.T
        else:
            ang = np.broadcast_to(w_frame, au.shape)
        return kin.r + au, A @ orient, jx, jth, vel, ang

    def evaluate(self, kin) -> list[MarkerState]:
        """States of all markers of the body, vectorized over the markers."""
        x, rot, jx, jth, vel, ang = self.evaluate_arrays(kin)
        return [MarkerState(x[i], rot[i], jx[i], jth[i], vel[i], ang[i]) for i in range(len(self.markers))]


def _skew_rows(v: np.ndarray) -> np.ndarray:
    """Skew matrices of the rows of ``v`` (k, 3) → (k, 3, 3)."""
    out = np.zeros((v.shape[0], 3, 3))
    out[:, 0, 1], out[:, 0, 2], out[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    out[:, 1, 0], out[:, 2, 0], out[:, 2, 1] = v[:, 2], -v[:, 1], v[:, 0]
    return out


def _cross_rows(w: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``w × v_i`` for a (3,) vector and the rows of (k, 3)."""
    out = np.empty_like(v)
    out[:, 0] = w[1] * v[:, 2] - w[2] * v[:, 1]
    out[:, 1] = w[2] * v[:, 0] - w[0] * v[:, 2]
    out[:, 2] = w[0] * v[:, 1] - w[1] * v[:, 0]
    return out
