"""Rigid-body displacement fields over a model's dofs: translations and small rotations of every node
(used for mass properties here and for rigid-mode removal and invariants in :mod:`reduction`)."""
from __future__ import annotations

import numpy as np

__all__ = ["rigid_body_fields"]


def _skew_columns(vectors: np.ndarray) -> np.ndarray:
    """Rows ``e_k × v_p`` for k = 0, 1, 2: (n, 3) -> (n, 3, 3) with [p, :, k] = e_k × v_p."""
    out = np.zeros(vectors.shape + (3,))
    x, y, z = vectors[:, 0], vectors[:, 1], vectors[:, 2]
    # e_x × v = (0, -z, y); e_y × v = (z, 0, -x); e_z × v = (-y, x, 0)
    out[:, 1, 0], out[:, 2, 0] = -z, y
    out[:, 0, 1], out[:, 2, 1] = z, -x
    out[:, 0, 2], out[:, 1, 2] = -y, x
    return out


def rigid_body_fields(
    positions: np.ndarray, translation_dofs: np.ndarray, rotation_dofs: np.ndarray | None, ndof: int
) -> tuple[np.ndarray, np.ndarray]:
    """Rigid translation and rotation fields ``Tt``, ``Rr0`` over the FE dofs.

    Parameters
    ----------
    positions : (n_nodes, 3) float, m
    translation_dofs : (n_nodes, 3) int
        Global dof numbers of each node's x, y, z translation.
    rotation_dofs : (n_nodes, 3) int or None
        Global dof numbers of each node's rotations, ``-1`` where a node has none.
    ndof : int

    Returns
    -------
    Tt, Rr0 : (ndof, 3) float
    """
    tt = np.zeros((ndof, 3))
    rr = np.zeros((ndof, 3))
    for k in range(3):
        tt[translation_dofs[:, k], k] = 1.0
    rr[translation_dofs.ravel(), :] = _skew_columns(positions).reshape(-1, 3)
    if rotation_dofs is not None:
        has = rotation_dofs[:, 0] >= 0
        for k in range(3):
            rr[rotation_dofs[has, k], k] = 1.0
    return tt, rr
