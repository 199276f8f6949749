"""Modal and static analysis of an :class:`fem.model.FEModel`.

Modal analysis solves ``K φ = ω² M φ`` by block shift-invert Lanczos (:mod:`fem.eigen`)
with **one** factorization of ``K − σ M``. For a free–free part the shift is negative, ``σ = −(2π f_σ)²``, which keeps
``K − σ M`` positive definite (so a Cholesky-type factorization applies) while the six rigid-body modes (ω = 0)
and the lowest elastic modes are the eigenvalues nearest to it. Modes are mass-normalized (``φᵀ M φ = 1``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from fem.canonical import GROUP_PAD, canonical_transform
from fem.errors import ModelError
from fem.eigen import block_shift_invert
from fem.linalg import SPDFactor
from fem.model import FEModel

__all__ = ["ModalResult", "modal_analysis", "static_analysis", "free_dofs", "default_shift"]


@dataclass
class ModalResult:
    """Eigenpairs of a model.

    Attributes
    ----------
    frequencies_hz : (k,) float
        Ascending (inside a degenerate group of :mod:`fem.canonical` the Rayleigh quotients of the canonical
        modes, equal to the group's spread); near-zero rigid-body modes come out with |f| ≪ the first elastic
        frequency (sign kept).
    modes : (n_full_dofs, k) float
        Mass-normalized mode shapes over the full dofs (spider-dependent dofs included), in the canonical form of
        :mod:`fem.canonical` (signs and degenerate-group bases independent of the BLAS kernels).
    """

    frequencies_hz: np.ndarray
    modes: np.ndarray

    @property
    def eigenvalues(self) -> np.ndarray:
        """ω² in (rad/s)², signed."""
        f = self.frequencies_hz
        return np.sign(f) * (2.0 * np.pi * f) ** 2


def free_dofs(model: FEModel, fixed_nodes=None) -> np.ndarray:
    """Independent-dof indices that remain after the supports ``fixed_nodes``.

    Each support is a node index array (all dofs of those nodes clamped) or a pair ``(nodes, dofs)`` with ``dofs``
    the components held, digits of ``123456`` (1-3 translations x, y, z; 4-6 rotations), e.g. ``(nodes, "3")`` for
    ``u_z = 0`` (a simple support, a membrane held in its plane).
    """
    keep = np.ones(model.n_dofs, dtype=bool)
    for support in fixed_nodes or []:
        nodes, which = _support(support)
        dofs = model.node_dofs(nodes, which)
        if dofs.size == 0:
            raise ModelError(f"a support holds dofs {which} of nodes that have none (solid nodes have translations "
                             "1-3 only)")
        keep[model.independent_index(dofs)] = False
    return np.flatnonzero(keep)


def _support(support) -> tuple[np.ndarray, str]:
    """``nodes`` or ``(nodes, dofs)`` -> (node indices, dof digits); a ModelError for bad digits."""
    if isinstance(support, tuple) and len(support) == 2 and isinstance(support[1], str):
        nodes, which = support
        which = which.strip()
        if not which or not set(which) <= set("123456") or len(set(which)) != len(which):
            raise ModelError(f"support dofs {which!r} must be distinct digits from 123456 (1-3 translations, 4-6 "
                             "rotations), e.g. 3 for u_z = 0")
        return np.atleast_1d(np.asarray(nodes, dtype=np.int64)), "".join(sorted(which))
    return np.atleast_1d(np.asarray(support, dtype=np.int64)), "123456"


def default_shift(stiffness: sp.spmatrix, mass: sp.spmatrix) -> float:
    """A negative shift −(10⁻³ ω_e)², ω_e² = median of diag(K)/diag(M) (an element-level frequency)."""
    dk, dm = stiffness.diagonal(), mass.diagonal()
    ok = dm > 0
    if not ok.any():
        raise ModelError("the model has no mass; assign a density or point masses")
    omega_e2 = float(np.median(dk[ok] / dm[ok]))
    return -1e-6 * omega_e2


def modal_analysis(model: FEModel, n_modes: int = 12, fixed_nodes=None, shift: float | None = None) -> ModalResult:
    """Lowest ``n_modes`` eigenpairs of the model (free–free unless ``fixed_nodes`` are given).

    Parameters
    ----------
    model : FEModel
    n_modes : int
        Number of modes (for a free–free part this includes the six rigid-body modes).
    fixed_nodes : list of int arrays or (int array, str) pairs, optional
        Supports: nodes whose dofs are all clamped, or ``(nodes, "3")`` holding only the listed dofs (see
        :func:`free_dofs`).
    shift : float, (rad/s)², optional
        Shift σ (negative for free–free); see :func:`default_shift`.
    """
    if n_modes < 1:
        raise ModelError(f"--modes must be at least 1, got {n_modes}")
    keep = free_dofs(model, fixed_nodes)
    k = model.stiffness[keep][:, keep]
    m = model.mass[keep][:, keep]
    if n_modes >= keep.size:
        raise ModelError(f"asked for {n_modes} modes of a model with only {keep.size} free dofs")
    sigma = default_shift(k, m) if shift is None else shift
    factor = SPDFactor((k - sigma * m).tocsr(), "shifted stiffness K − σM")
    n_solve = min(n_modes + GROUP_PAD, keep.size - 1)  # complete a degenerate group cut at n_modes (fem.canonical)
    try:
        values, vectors = block_shift_invert(k, m, n_solve, lambda rhs: factor.solve(rhs, refine=False), sigma)
    finally:
        factor.release()
    order = np.argsort(values)
    values, vectors = values[order], vectors[:, order]
    full = np.zeros((model.n_dofs, n_solve))
    full[keep] = vectors
    modes = np.asarray(model.expand(full))
    q, values, _ = canonical_transform(modes, values, model.full_mass, model.positions, model.translation_dofs,
                                       zero=_rigid_body_modes(values, sigma, fixed_nodes))
    values = values[:n_modes]
    frequencies = np.sign(values) * np.sqrt(np.abs(values)) / (2.0 * np.pi)
    return ModalResult(frequencies, modes @ q[:, :n_modes])


def _rigid_body_modes(values: np.ndarray, sigma: float, fixed_nodes) -> np.ndarray:
    """Rigid-body modes of a free–free analysis: ``|λ| < 10⁻⁴ |σ|`` (round-off level; the shift σ lies 10⁻³ of an
    element frequency below zero, far under any elastic mode of a meshed part). None when whole nodes are clamped;
    with supports of some dofs only (``(nodes, dofs)``) the rigid motions they leave free are found the same way."""
    if fixed_nodes and all(_support(s)[1] == "123456" for s in fixed_nodes):
        return np.zeros(values.size, dtype=bool)
    return np.abs(values) < 1e-4 * abs(sigma)


def static_analysis(model: FEModel, loads: dict, fixed_nodes=None) -> np.ndarray:
    """Static displacement under nodal loads.

    Parameters
    ----------
    loads : dict[int, array_like]
        Node index -> force (3,) N or force and moment (6,) N, N m, in global axes (reference nodes included).
    fixed_nodes : list of int arrays or (int array, str) pairs
        Supports (see :func:`free_dofs`); the model must be statically determinate or better (no rigid-body
        motion left).

    Returns
    -------
    (n_full_dofs,) float, m and rad
    """
    f_full = np.zeros(model.n_full_dofs)
    for node, value in loads.items():
        value = np.asarray(value, dtype=float)
        dofs = model.node_dofs(node, "123456"[: value.size])
        if dofs.size != value.size:
            raise ModelError(f"node {node} has no rotational dofs for the moment in its load")
        f_full[dofs] += value
    f = model.transform.T @ f_full
    keep = free_dofs(model, fixed_nodes)
    factor = SPDFactor(model.stiffness[keep][:, keep].tocsr(), "constrained stiffness (is the part held?)")
    u = np.zeros(model.n_dofs)
    u[keep] = factor.solve(f[keep])
    factor.release()
    return np.asarray(model.expand(u))
