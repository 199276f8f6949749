"""Geometric (stress) stiffness of a finite-element model and the unit load cases that cause it.

A member carrying a stress gains stiffness under tension and loses it under compression (up to buckling). For a
frame model the stress state is the axial force ``N`` of each element, and the element geometric stiffness is
:func:`fem.beam.frame_geometric_stiffness`. The unit *inertia* load cases of a body whose frame moves with angular
velocity ``ω``, angular acceleration ``α`` and acceleration ``a`` (body axes) are the d'Alembert loads
``f = −M ä_rigid`` of the rigid acceleration field ``ä = a + α × s + ω × (ω × s)``, split into one field per
parameter: the six products ``ω_i ω_j`` (``ω × (ω × s) = (ω ωᵀ − ωᵀω 1) s``), the three components of ``a`` and
the three of ``α`` (docs/theory-multibody.md). Gravity is the ``a`` case with ``a = −g``.

Solid (tet/hex) models: not yet (their element stress is available, :meth:`fem.model.FEModel.stress`, but the
solid geometric stiffness is not assembled); a clear error says so.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from fem.beam import frame_axial_forces, frame_geometric_stiffness
from fem.errors import ModelError
from fem.rigid_body import rigid_body_fields

__all__ = ["INERTIA_CASES", "inertia_load_cases", "element_axial_forces", "unit_geometric_stiffness",
           "geometric_stiffness"]

# parameter of each inertia load case, in the order of the columns of :func:`inertia_load_cases`
INERTIA_CASES = ("wx*wx", "wy*wy", "wz*wz", "wx*wy", "wy*wz", "wx*wz", "ax", "ay", "az", "alpha_x", "alpha_y",
                 "alpha_z")
_PRODUCTS = ((0, 0), (1, 1), (2, 2), (0, 1), (1, 2), (0, 2))


def _frame(model):
    frame = getattr(model, "frame", None)
    if frame is None:
        raise ModelError("geometric stiffness is available for frame (beam) models built with fem.frame_model; "
                         "solid models are not supported yet: reduce without geometric_stiffness")
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
