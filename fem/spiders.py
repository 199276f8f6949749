"""Interface spiders: RBE2 (rigid) and RBE3 (weighted average) multipoint constraints.

Both are eliminated exactly with a transformation ``u_full = T u_independent`` so that ``Tᵀ K T`` and ``Tᵀ M T``
stay symmetric and the reference node keeps six independent dofs that a joint (or a Craig–Bampton boundary) can use.

* **RBE2**: every connected node moves with the reference node as a rigid body,
  ``u_s = u_r + θ_r × (x_s − x_r)`` (and ``θ_s = θ_r`` where the node has rotations). Adds stiffness (rigid).
* **RBE3**: the reference node moves as the weighted least-squares rigid fit of the connected translations,
  ``[u_r; θ_r] = G u_c`` with ``G = H⁻¹ Σ w_i A_iᵀ``, ``A_i = [I, −d̃_i]``, ``H = Σ w_i A_iᵀ A_i`` and weights
  ``w_i`` = surface-area weights (tributary areas of the bore's faces) or equal weights. As in Nastran's ``UM``
  option, six connected dofs ``u_b`` with a well-conditioned block ``G_b`` (QR with column pivoting) are made
  dependent, ``u_b = G_b⁻¹ (u_ref − G_a u_a)``: a change of variables, so RBE3 adds no stiffness and no mass.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from fem.errors import ModelError

__all__ = ["rbe2_rows", "rbe3_rows", "skew"]


def skew(v: np.ndarray) -> np.ndarray:
    """Skew-symmetric matrices ṽ with ṽ w = v × w; (..., 3) -> (..., 3, 3)."""
    v = np.asarray(v, dtype=float)
    out = np.zeros(v.shape + (3,))
    out[..., 0, 1], out[..., 0, 2] = -v[..., 2], v[..., 1]
    out[..., 1, 0], out[..., 1, 2] = v[..., 2], -v[..., 0]
    out[..., 2, 0], out[..., 2, 1] = -v[..., 1], v[..., 0]
    return out


def rbe2_rows(reference_point: np.ndarray, reference_dofs: np.ndarray, node_points: np.ndarray,
              node_translation_dofs: np.ndarray, node_rotation_dofs: np.ndarray | None):
    """Dependent dofs of an RBE2 and their rows in terms of the reference dofs.

    Returns
    -------
    dependent : (n_dep,) int
        Full dof numbers made dependent.
    columns : (n_dep, 6) int
        The reference dofs each row combines.
    coefficients : (n_dep, 6) float
    """
    offsets = node_points - reference_point
    n = len(offsets)
    coef = np.zeros((n, 3, 6))
    coef[:, :, :3] = np.eye(3)
    coef[:, :, 3:] = -skew(offsets)  # θ × d = -d̃ θ
    dependent = [node_translation_dofs.reshape(-1)]
    coefficients = [coef.reshape(-1, 6)]
    if node_rotation_dofs is not None:
        has = node_rotation_dofs[:, 0] >= 0
        if has.any():
            rot = np.zeros((int(has.sum()), 3, 6))
            rot[:, :, 3:] = np.eye(3)
            dependent.append(node_rotation_dofs[has].reshape(-1))
            coefficients.append(rot.reshape(-1, 6))
    dependent = np.concatenate(dependent)
    columns = np.tile(reference_dofs, (len(dependent), 1))
    return dependent, columns, np.concatenate(coefficients)


def rbe3_rows(reference_point: np.ndarray, reference_dofs: np.ndarray, node_points: np.ndarray,
              node_translation_dofs: np.ndarray, weights: np.ndarray):
    """Dependent dofs of an RBE3 (six connected translations) in terms of the reference and remaining dofs.

    Returns
    -------
    dependent : (6,) int
    columns : (6, n_cols) int
    coefficients : (6, n_cols) float
    """
    offsets = node_points - reference_point
    n = len(offsets)
    if n < 3:
        raise ModelError("an RBE3 spider needs at least 3 connected nodes")
    a = np.zeros((n, 3, 6))
    a[:, :, :3] = np.eye(3)
    a[:, :, 3:] = -skew(offsets)
    w = np.asarray(weights, dtype=float)
    h = np.einsum("n,nji,njk->ik", w, a, a)
    if np.linalg.cond(h) > 1e12:
        raise ModelError("RBE3 connected nodes are collinear: the reference rotation is undefined; select a "
                         "surface (e.g. a bore), not a line of nodes")
    g = np.linalg.solve(h, (w[:, None, None] * a).transpose(2, 0, 1).reshape(6, 3 * n))  # (6, 3n)
    _, _, pivots = sla.qr(g, pivoting=True, mode="economic")
    b = np.sort(pivots[:6])
    rest = np.setdiff1d(np.arange(3 * n), b)
    gb_inv = np.linalg.inv(g[:, b])
    # u_b = G_b⁻¹ u_ref − G_b⁻¹ G_a u_a
    coefficients = np.hstack([gb_inv, -gb_inv @ g[:, rest]])
    conn = node_translation_dofs.reshape(-1)
    columns = np.tile(np.concatenate([reference_dofs, conn[rest]]), (6, 1))
    return conn[b], columns, coefficients
