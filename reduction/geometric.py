"""Modal geometric stiffness of a reduced body (issue 28): what a floating-frame body needs to stiffen under
tension and soften under compression (docs/theory-multibody.md, "Geometric stiffening").

Two sets of modal matrices, both projections ``Sᵀ K_G(N) S`` of the FE geometric stiffness
(:mod:`fem.geometric`) on the elastic basis ``S``:

* ``inertia[c]`` (12, m, m): the stress of the unit inertia load case ``c`` (:data:`fem.geometric.INERTIA_CASES`:
  the six products ``ω_i ω_j``, the frame acceleration ``a`` and the angular acceleration ``α``) *with every
  interface dof held* — the particular solution ``u_i = K_ii⁻¹ f_i`` of the Craig–Bampton split;
* ``deformation[j]`` (m, m, m): the stress of the interface motion that mode ``j`` carries, ``Ψ S_b,j``
  (constraint modes, seed 003 eq. (2-105), times the boundary rows of mode ``j``). Interface loads deform a
  Craig–Bampton body through exactly these static shapes (``F_b = K̂_bb u_b``), so this term is the stress of the
  current interface loads — a column pressed by its ends, a blade pulled by its root — read off the elastic
  coordinates.

Held-interface inertia stress plus interface-motion stress is the exact static stress of the body under inertia
and interface loads (the Craig–Bampton statics are exact for loads on the boundary and, with ``K_ii⁻¹ f_i``, for the
distributed load); the fixed-interface normal modes' own stress is left out (it is that particular solution again,
as far as they represent it) so nothing is counted twice.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem.geometric import INERTIA_CASES, inertia_load_cases, projected_geometric_stiffness
from fem.linalg import SPDFactor

__all__ = ["GeometricStiffness", "modal_geometric_stiffness"]


@dataclass
class GeometricStiffness:
    """Modal geometric stiffness of a reduced body.

    Attributes
    ----------
    inertia : (12, m, m) float
        Per unit inertia parameter (:data:`fem.geometric.INERTIA_CASES`): 1/s² per (rad/s)² for the ``ω_i ω_j``
        products, 1/s² per m/s² for ``a``, per rad/s² for ``α`` (mass-normalized modal coordinates).
    deformation : (m, m, m) float
        ``[j]``: per unit modal coordinate ``q_j``, 1/s² per unit ``q_j``.
    cases : tuple of str
        Names of the inertia parameters.
    """

    inertia: np.ndarray
    deformation: np.ndarray
    cases: tuple = INERTIA_CASES


def modal_geometric_stiffness(model, cb, elastic: np.ndarray, progress=None) -> GeometricStiffness:
    """Project the FE geometric stiffness of the unit load cases on the elastic basis.

    Parameters
    ----------
    model : fem.model.FEModel
        A frame model (``fem.frame_model``).
    cb : reduction.craig_bampton.CraigBampton
        The basis the body was reduced with (constraint modes and boundary dofs).
    elastic : (n_dofs, m) float
        The elastic basis over the model's independent dofs (``OrthonormalBasis.elastic``).
    progress : callable(str), optional

    Returns
    -------
    GeometricStiffness
    """
    say = progress or (lambda message: None)
    say("geometric stiffness: inertia load cases with the interfaces held")
    n = model.n_dofs
    interior = np.setdiff1d(np.arange(n), cb.boundary)
    loads = model.transform.T @ inertia_load_cases(model)  # (n_dofs, 12)
    k_ii = model.stiffness[interior][:, interior].tocsr()
    factor = SPDFactor(k_ii, "interior stiffness K_ii with the interfaces held")
    try:
        held = np.zeros((n, loads.shape[1]))
        held[interior] = factor.solve(np.asarray(loads[interior])).reshape(interior.size, -1)
    finally:
        factor.release()
    constraint = cb.basis[:, cb.n_normal_modes:]  # Ψ (n_dofs, n_b): the constraint modes
    boundary_rows = elastic[cb.boundary]  # S_b (n_b, m): interface motion of each mode
    # the stress of Ψ S_b,j is Σ_r S_b[r, j] × (stress of Ψ_r): project whichever set is smaller (same result)
    by_constraint = constraint.shape[1] < boundary_rows.shape[1]
    static = constraint if by_constraint else constraint @ boundary_rows
    say(f"geometric stiffness: projecting {held.shape[1] + static.shape[1]} stress states on {elastic.shape[1]} "
        "modes")
    projected = projected_geometric_stiffness(model, model.expand(elastic), model.expand(np.hstack([held, static])))
    inertia, deformation = projected[:held.shape[1]], projected[held.shape[1]:]
    if by_constraint:
        deformation = np.tensordot(boundary_rows.T, deformation, 1)  # [j] = Σ_r S_b[r, j] G(Ψ_r)
    return GeometricStiffness(0.5 * (inertia + inertia.transpose(0, 2, 1)),
                              0.5 * (deformation + deformation.transpose(0, 2, 1)))
