"""Geometric (stress) stiffness of a finite-element model and the unit load cases that cause it.

A member carrying a stress gains stiffness under tension and loses it under compression (up to buckling). For a
frame model the stress state is the axial force ``N`` of each element, and the element geometric stiffness is
:func:`fem.beam.frame_geometric_stiffness`. The unit *inertia* load cases of a body whose frame moves with angular
velocity ``ω``, angular acceleration ``α`` and acceleration ``a`` (body axes) are the d'Alembert loads
``f = −M ä_rigid`` of the rigid acceleration field ``ä = a + α × s + ω × (ω × s)``, split into one field per
parameter: the six products ``ω_i ω_j`` (``ω × (ω × s) = (ω ωᵀ − ωᵀω 1) s``), the three components of ``a`` and
the three of ``α`` (docs/theory-multibody.md). Gravity is the ``a`` case with ``a = −g``.

Solid (tet/hex) models: the stress tensor ``σ`` at the quadrature points (``σ = λ tr ε 1 + 2 μ ε``) gives the
continuum geometric stiffness ``K_G[a i, b j] = δ_ij ∫ ∇N_aᵀ σ ∇N_b dV`` (Bathe, *Finite Element Procedures*,
1996, eq. (6.61), the ``τ`` term of the updated/total Lagrangian tangent); :func:`projected_geometric_stiffness`
contracts it with the modes element by element without assembling it.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fem.beam import frame_axial_forces, frame_geometric_stiffness
from fem.errors import ModelError
from fem.rigid_body import rigid_body_fields

__all__ = ["INERTIA_CASES", "inertia_load_cases", "element_axial_forces", "unit_geometric_stiffness",
           "geometric_stiffness", "projected_geometric_stiffness", "solid_stress"]

_SOLID_CHUNK = 1000  # at most this many elements per batch of the solid contraction
_SOLID_WORDS = 4_000_000  # floats of one batch's modal gradients (9 n_qp m per element): bounds the memory

# parameter of each inertia load case, in the order of the columns of :func:`inertia_load_cases`
INERTIA_CASES = ("wx*wx", "wy*wy", "wz*wz", "wx*wy", "wy*wz", "wx*wz", "ax", "ay", "az", "alpha_x", "alpha_y",
                 "alpha_z")
_PRODUCTS = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))


def _frame(model):
    frame = getattr(model, "frame", None)
    if frame is None:
        raise ModelError("geometric stiffness needs a frame model (fem.frame_model) or a solid model "
                         "(fem.solid_model): reduce this model without geometric_stiffness")
    return frame


def inertia_load_cases(model) -> np.ndarray:
    """d'Alembert loads ``−M ä_c`` of the twelve unit rigid acceleration fields (:data:`INERTIA_CASES`).

    Returns
    -------
    (n_full_dofs, 12) float: N per (rad/s)² for the ``ω_i ω_j`` products, N per m/s² for ``a``, N per rad/s² for
    ``α`` (N m on rotational dofs).
    """
    n = model.n_full_dofs
    tt, rr = rigid_body_fields(model.positions, model.translation_dofs,
                               model.rotation_dofs if np.any(model.rotation_dofs >= 0) else None, n)
    fields = np.zeros((n, 12))
    pos = model.positions
    for c, (i, j) in enumerate(_PRODUCTS):
        acc = np.zeros_like(pos)  # coefficient of ω_i ω_j in (ω ωᵀ − ωᵀω 1) s
        if i == j:
            acc[:, i] += pos[:, i]
            acc -= pos
        else:
            acc[:, i] += pos[:, j]
            acc[:, j] += pos[:, i]
        fields[model.translation_dofs.ravel(), c] = acc.ravel()
    fields[:, 6:9] = tt
    fields[:, 9:12] = rr
    return -(model.full_mass @ fields)


def element_axial_forces(model, full_displacements: np.ndarray) -> np.ndarray:
    """Axial forces (n_el, k) N of the frame elements for full-dof displacement fields (n_full_dofs, k)."""
    frame = _frame(model)
    u = np.asarray(full_displacements, dtype=float).reshape(model.n_full_dofs, -1)
    translations = u[model.translation_dofs]  # (n_nodes, 3, k)
    return frame_axial_forces(model.positions, frame.elements, frame.youngs_modulus * frame.section.area,
                              translations)


def unit_geometric_stiffness(model) -> tuple[np.ndarray, np.ndarray]:
    """Element geometric stiffness per unit axial force (n_el, 12, 12) in global axes and the full dofs of each
    element (n_el, 12)."""
    frame = _frame(model)
    elements = np.asarray(frame.elements, dtype=np.int64)
    unit = frame_geometric_stiffness(model.positions, elements, frame.section, np.ones(len(elements)),
                                     frame.orientation)
    dofs = np.concatenate([np.hstack([model.translation_dofs[elements[:, k]], model.rotation_dofs[elements[:, k]]])
                           for k in range(2)], axis=1)
    return unit, dofs


def geometric_stiffness(model, axial_force: np.ndarray) -> sp.csr_matrix:
    """Assembled geometric stiffness (n_full_dofs, n_full_dofs) for element axial forces (n_el,) N."""
    unit, dofs = unit_geometric_stiffness(model)
    values = unit * np.asarray(axial_force, dtype=float)[:, None, None]
    rows = np.repeat(dofs, 12, axis=1).ravel()
    cols = np.tile(dofs, (1, 12)).ravel()
    n = model.n_full_dofs
    return sp.csr_matrix((values.ravel(), (rows, cols)), shape=(n, n))


def solid_stress(model, gradients: np.ndarray, element_nodes: np.ndarray, elements: slice,
                 fields: np.ndarray) -> np.ndarray:
    """Stress tensors (c, q, 3, 3, k) Pa at the quadrature points of the solid elements ``elements`` (skfem order)
    for mesh displacement fields ``fields`` (n_mesh_nodes, 3, k) m; ``gradients`` (c, q, nb, 3) from
    :func:`fem.solid._gradients`."""
    lam, mu = model._lame
    disc = model.solid
    lam_e = lam[disc.element_order[elements]][:, None, None, None, None]
    mu_e = mu[disc.element_order[elements]][:, None, None, None, None]
    du = np.einsum("cqai,cajk->cqjik", gradients, fields[element_nodes], optimize=True)  # ∂u_j/∂x_i
    strain = 0.5 * (du + du.transpose(0, 1, 3, 2, 4))
    trace = np.einsum("cqiik->cqk", strain)[:, :, None, None, :]
    return lam_e * trace * np.eye(3)[None, None, :, :, None] + 2.0 * mu_e * strain


def projected_geometric_stiffness(model, modes: np.ndarray, fields: np.ndarray) -> np.ndarray:
    """``Sᵀ K_G(σ(u_c)) S`` for each displacement field ``u_c``: (k, m, m).

    Parameters
    ----------
    model : FEModel
        A frame model or a solid model.
    modes : (n_full_dofs, m) float
        The basis ``S`` over all FE dofs.
    fields : (n_full_dofs, k) float, m
        Displacement fields whose stress (frame: axial force; solid: stress tensor) loads the geometric stiffness.
    """
    modes = np.asarray(modes, dtype=float)
    fields = np.asarray(fields, dtype=float).reshape(model.n_full_dofs, -1)
    if getattr(model, "frame", None) is None and model.solid is not None:
        return _solid_projection(model, modes, fields)
    unit, dofs = unit_geometric_stiffness(model)
    per_element = np.einsum("eim,eij,ejn->emn", modes[dofs], unit, modes[dofs], optimize=True)
    return np.einsum("ec,emn->cmn", element_axial_forces(model, fields), per_element, optimize=True)


def _solid_projection(model, modes: np.ndarray, fields: np.ndarray) -> np.ndarray:
    """``Σ_p w_p σ_il(u_c) (∂_i s_j,m)(∂_l s_j,n)`` over the quadrature points ``p``: the modal displacement gradients
    ``∂_i s_j`` (rows ``(p, i, j)``) of a batch of elements, then per field one matrix product
    ``(σ·∇S)ᵀ ∇S`` (BLAS), so the cost is ``9 n_points m²`` per field and the memory a few ``9 n_batch m``."""
    from fem.solid import _gradients

    disc = model.solid
    if getattr(disc, "quadrature_released", False):
        raise ModelError("the solid's quadrature was released after its assembly (reduce(..., release=True)); build "
                         "the model again for the geometric stiffness")
    n_mesh = disc.mesh.n_nodes
    mesh_dofs = model.translation_dofs[:n_mesh]
    shapes, loads = modes[mesh_dofs], fields[mesh_dofs]  # (n, 3, m), (n, 3, k)
    m, k = shapes.shape[2], loads.shape[2]
    out = np.zeros((k, m, m))
    n_el = disc.element_nodes.shape[0]
    n_qp = disc.basis.dx.shape[1]
    chunk = max(1, min(_SOLID_CHUNK, _SOLID_WORDS // (9 * n_qp * max(m, k))))
    for start in range(0, n_el, chunk):
        sl = slice(start, min(start + chunk, n_el))
        grad = _gradients(disc.basis, sl)  # (c, q, nb, 3)
        nodes = disc.element_nodes[sl]
        stress = solid_stress(model, grad, nodes, sl, loads)  # (c, q, 3, 3, k)
        stress = (stress * disc.basis.dx[sl][:, :, None, None, None]).reshape(-1, 3, 3, k)
        gm = np.einsum("cqai,cajm->cqijm", grad, shapes[nodes], optimize=True).reshape(-1, 3, 3, m)
        flat = gm.reshape(-1, m)  # rows (p, l, j): ∂_l s_j
        for c in range(k):
            weighted = np.einsum("pil,pijm->pljm", stress[..., c], gm, optimize=True)  # Σ_i σ_il ∂_i s_j
            out[c] += weighted.reshape(-1, m).T @ flat
    return out
