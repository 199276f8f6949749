"""Rotation kinematics with Euler parameters (unit quaternions), free of singularities.

A body's orientation is the unit quaternion ``p = [e0, e1, e2, e3]`` (seed 003 uses Euler angles, eq. (2-6), which
are singular at some attitudes; Euler parameters with the normalization constraint ``pᵀp = 1`` are not). With
``e = [e1, e2, e3]``:

* ``A(p) = (2 e0² - 1) I + 2 (e eᵀ + e0 ẽ)``          rotation matrix body → global
* ``G(p) = [-e, -ẽ + e0 I]``  (3, 4)                body angular velocity ``ω' = 2 G ṗ``
* ``G ṗ = 0`` identity ``Ġ ṗ = 0`` (so ``ω̇' = 2 G p̈``)

The virtual rotation in body axes is ``δπ' = 2 G δp``; every Jacobian in this package is formed first with respect
to ``(δr, δπ', δq_f)`` and then mapped to ``(δr, δp, δq_f)`` with ``2 G``.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = [
    "skew",
    "rotation_matrix",
    "g_matrix",
    "quaternion_from_matrix",
    "quaternion_from_axis_angle",
    "matrix_from_axis_angle",
    "rotation_about",
]


def skew(vector: np.ndarray) -> np.ndarray:
    """Skew-symmetric matrix ``ṽ`` with ``ṽ a = v × a``; (3,) -> (3, 3)."""
    x, y, z = vector
    return np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])


def rotation_matrix(p: np.ndarray) -> np.ndarray:
    """Rotation matrix ``A(p)`` (3, 3), body → global, of a unit quaternion ``p`` (4,)."""
    e0, e1, e2, e3 = p
    return 2.0 * np.array(
        [
            [e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
            [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
            [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5],
        ]
    )


def g_matrix(p: np.ndarray) -> np.ndarray:
    """``G(p)`` (3, 4) with body angular velocity ``ω' = 2 G(p) ṗ``."""
    e0, e1, e2, e3 = p
    return np.array([[-e1, e0, e3, -e2], [-e2, -e3, e0, e1], [-e3, e2, -e1, e0]])


def _sqrt(x: float) -> float:
    """``np.sqrt`` of a float: NaN below zero (a matrix that is no rotation), not math's ValueError."""
    return math.sqrt(x) if x >= 0.0 else math.nan


def quaternion_from_matrix(matrix: np.ndarray) -> np.ndarray:
    """Unit quaternion (4,) of a rotation matrix (3, 3) (Shepperd's method, robust near 180°). The scalar work in
    Python floats (the same IEEE operations as on numpy's scalars, in a third of the time: a run's start reads
    every body's)."""
    (m00, m01, m02), (m10, m11, m12), (m20, m21, m22) = np.asarray(matrix, dtype=float).tolist()
    trace = m00 + m11 + m22
    candidates = (trace, m00, m11, m22)
    k = 0  # the first largest (numpy's argmax)
    for i in (1, 2, 3):
        if candidates[i] > candidates[k]:
            k = i
    if k == 0:
        e0 = 0.5 * _sqrt(1.0 + trace)
        p = [e0, (m21 - m12) / (4 * e0), (m02 - m20) / (4 * e0), (m10 - m01) / (4 * e0)]
    elif k == 1:
        e1 = 0.5 * _sqrt(1.0 + 2 * m00 - trace)
        p = [(m21 - m12) / (4 * e1), e1, (m01 + m10) / (4 * e1), (m02 + m20) / (4 * e1)]
    elif k == 2:
        e2 = 0.5 * _sqrt(1.0 + 2 * m11 - trace)
        p = [(m02 - m20) / (4 * e2), (m01 + m10) / (4 * e2), e2, (m12 + m21) / (4 * e2)]
    else:
        e3 = 0.5 * _sqrt(1.0 + 2 * m22 - trace)
        p = [(m10 - m01) / (4 * e3), (m02 + m20) / (4 * e3), (m12 + m21) / (4 * e3), e3]
    if p[0] < 0.0:
        p = [-x for x in p]
    p = np.array(p)
    return p / math.sqrt(p.dot(p))  # np.linalg.norm's own formula for a vector (its sqrt: the same IEEE root)


def quaternion_from_axis_angle(axis, angle: float) -> np.ndarray:
    """Unit quaternion (4,) of a rotation by ``angle`` (rad) about ``axis`` (3,)."""
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[np.cos(0.5 * angle)], np.sin(0.5 * angle) * axis])


def matrix_from_axis_angle(axis, angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) of a rotation by ``angle`` (rad) about ``axis`` (3,)."""
    return rotation_matrix(quaternion_from_axis_angle(axis, angle))


def rotation_about(axis: str, angle: float) -> np.ndarray:
    """Rotation matrix (3, 3) about a global axis ``"x"``, ``"y"`` or ``"z"`` by ``angle`` (rad)."""
    vec = {"x": [1.0, 0, 0], "y": [0, 1.0, 0], "z": [0, 0, 1.0]}[axis]
    return matrix_from_axis_angle(vec, angle)


_IDENTITY = np.eye(3)


def orientation_matrix(orientation) -> np.ndarray:
    """A rotation matrix from ``None`` (identity), a (3, 3) matrix or a (4,) quaternion."""
    if orientation is None:
        return _IDENTITY.copy()  # (np.eye's own work, a few µs, for every marker and body placed without one)
    arr = np.asarray(orientation, dtype=float)
    if arr.shape == (4,):
        return rotation_matrix(arr / np.linalg.norm(arr))
    if arr.shape == (3, 3):
        u, _, vt = np.linalg.svd(arr)
        return u @ vt
    from fem.errors import ModelError

    raise ModelError(
        f"an orientation must be a 3x3 rotation matrix or a quaternion [e0,e1,e2,e3], got shape {arr.shape}")


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a × b`` for two (3,) vectors (much cheaper than ``np.cross`` for single vectors)."""
    a0, a1, a2 = a
    b0, b1, b2 = b
    return np.array([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])
