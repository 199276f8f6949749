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

from .checks import check_orientation
from .rotations import orientation_matrix

__all__ = ["Marker", "MarkerState"]


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
        if orientation is not None:  # issue 43: np.ones((3, 3)) was projected silently (None: the identity)
            check_orientation(f"marker {name!r}", orientation)
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
        elif hasattr(body, "node_positions") and position is not None:
            raise ModelError(f"marker {name!r}: markers on flexible body {body.name!r} must sit on a node (interface or "
                             "output node); pass node=<interface name or node id>")
        else:
            self.local_position = np.zeros(3) if position is None else np.asarray(position, dtype=float).reshape(3)

    @property
    def on_ground(self) -> bool:
        return self.body.index < 0

    def __repr__(self) -> str:
        where = f"node {self.node}" if self.node is not None else f"{self.local_position.tolist()}"
        return f"Marker({self.name!r} on {self.body.name!r} at {where})"
