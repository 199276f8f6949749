"""Canonical form of mode shapes: the same modes on every CPU, BLAS kernel and thread count.

An eigensolver returns each mode with an arbitrary sign, and any orthonormal basis of a (near-)degenerate
eigenspace (the two bending modes of a square bar, the six rigid-body modes of a free part). Which one comes out
depends on rounding, i.e. on the BLAS kernels OpenBLAS picks for the CPU at run time. Every mode the project
writes is therefore brought into one documented form, **convention version 1** (:data:`CONVENTION_VERSION`):

1. **Groups.** Modes sorted by eigenvalue ``λ`` form one group while consecutive eigenvalues satisfy
   ``λ_{i+1} − λ_i ≤ 2 τ max(|λ_i|, |λ_{i+1}|)`` with ``τ = GROUP_GAP = 1e-3``: a relative *frequency* gap below
   0.1 %. The rigid-body modes of a free part form one group whatever the round-off in their eigenvalues (the
   solver marks them: :func:`fem.analysis.modal_analysis` free–free, ``|λ| < 10⁻⁴ |σ|`` of its shift). Inside
   such a group the eigenvectors are not determined by the data to better than ``ε / gap``: measured across
   OpenBLAS kernels ``ε`` ≈ 1e-14 … 2e-11 (relative), so a gap of 0.1 % leaves ≤ 2e-8.
2. **Basis of a group.** The group's span is aligned with fixed probe fields built from the geometry alone: node
   positions are centred on the middle of their bounding box and divided by its largest half-extent (``u``), and
   the probes are the translation fields ``e_d u_x^a u_y^b u_z^c`` in the fixed order: total degree ``a+b+c = 0,
   1, …, 4``, within a degree the exponent tuples in descending lexicographic order of ``(a, b, c)``, and for each
   monomial ``d = x, y, z``; each scaled to unit Euclidean norm over the nodes (probes that vanish everywhere are
   skipped). Each probe is projected on the group (mass inner product); the part not yet spanned is
   kept as the next basis vector if its norm is at least ``PROBE_ACCEPT = 1e-3`` times the largest projection of
   any probe, until the group is full. A bar's degenerate bending pair thus becomes the bending in ``y`` and the
   bending in ``z``.
3. **Sign.** Each mode is scaled by ±1 so that its largest-magnitude translational component is positive. Ties
   are broken robustly to rounding: the deciding component is the *first* (node order, then x, y, z) whose
   magnitude is within a relative ``SIGN_TIE = 1e-6`` of the largest.

A group cut by the number of modes asked for (the 12th mode of a solve is one of a pair) would still leave the
kept member arbitrary, so the solvers compute ``GROUP_PAD = 3`` modes more than asked, bring all into canonical form
and drop the extra ones: the kept member of a cut group is then its canonical first member(s).

Within a group the eigenvalues returned are the Rayleigh quotients of the rotated vectors (the diagonal of
``Qᵀ Λ Q``); the off-diagonal coupling that a diagonal modal stiffness drops is at most the group's eigenvalue
spread (≤ 2 τ per member: 0.2 % of ``λ``) and is reported as ``max_coupling``; it is zero for an exactly
degenerate group.
"""
from __future__ import annotations

from itertools import product

import numpy as np

__all__ = ["CONVENTION_VERSION", "GROUP_GAP", "GROUP_PAD", "canonical_transform", "mode_groups", "probe_coefficients",
           "probe_fields"]

CONVENTION_VERSION = 1
GROUP_GAP = 1.0e-3  # τ: relative frequency gap below which modes form a (near-)degenerate group
PROBE_ACCEPT = 1.0e-3  # a probe's new part must be this fraction of the largest probe projection
SIGN_TIE = 1.0e-6  # components within this relative margin of the largest count as tied
PROBE_DEGREE = 4
GROUP_PAD = 3  # extra modes solved so that a group cut by the requested count is complete


def mode_groups(eigenvalues: np.ndarray, gap: float = GROUP_GAP, zero: np.ndarray | None = None) -> list[np.ndarray]:
    """Index groups of (near-)degenerate modes, eigenvalues ascending (rule 1 of the module docstring).

    ``zero`` (k,) bool marks rigid-body modes: they form one group whatever their round-off eigenvalues; the
    other modes are grouped by the relative gap.
    """
    lam = np.asarray(eigenvalues, dtype=float)
    zero = np.zeros(lam.size, dtype=bool) if zero is None else np.asarray(zero, dtype=bool)
    groups = [np.flatnonzero(zero)] if zero.any() else []
    current: list[int] = []
    for i in np.flatnonzero(~zero):
        if current and lam[i] - lam[current[-1]] > 2.0 * gap * max(abs(lam[i]), abs(lam[current[-1]])):
            groups.append(np.array(current))
            current = []
        current.append(int(i))
    if current:
        groups.append(np.array(current))
    return groups


def _monomials(degree: int) -> list[tuple[int, int, int]]:
    out = []
    for total in range(degree + 1):
        out += sorted((e for e in product(range(total + 1), repeat=3) if sum(e) == total), reverse=True)
    return out


def probe_fields(positions: np.ndarray, degree: int = PROBE_DEGREE) -> np.ndarray:
    """The scalar probe values of rule 2 at the nodes, (n_nodes, n_probes) in monomial order: each monomial of the
    centred, scaled coordinates up to ``degree``, scaled to unit Euclidean norm over the nodes; monomials that vanish
    at every node (e.g. ``y`` of a straight beam) are left out. 35 columns at degree 4 (16 MB for 60 000 nodes)."""
    pos = np.asarray(positions, dtype=float)
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    half = 0.5 * float(np.max(hi - lo)) or 1.0
    u = (pos - 0.5 * (lo + hi)) / half
    powers = [[np.ones(len(u))] for _ in range(3)]
    for axis in range(3):
        for _ in range(degree):
            powers[axis].append(powers[axis][-1] * u[:, axis])
    out = []
    for a, b, c in _monomials(degree):
        value = powers[0][a] * powers[1][b] * powers[2][c]
        norm = float(np.linalg.norm(value))
        if norm > 1e-12 * np.sqrt(value.size):
            out.append(value / norm)
    return np.column_stack(out) if out else np.zeros((len(u), 0))


def probe_coefficients(m_vectors: np.ndarray, positions: np.ndarray, translation_dofs: np.ndarray,
                       degree: int = PROBE_DEGREE, fields: np.ndarray | None = None) -> np.ndarray:
    """Mass inner products ``vᵀ M p`` (k, n_probes) of modes with the probe fields of rule 2, in probe order.

    ``m_vectors`` are the products ``M v`` (n_dofs, k). The probe fields are the scalar probes of
    :func:`probe_fields` (``fields``, computed here when not given) times each translation direction, in the order
    (monomial, direction); the vector probes are never formed (three GEMMs with the scalar ones).
    """
    scalar = probe_fields(positions, degree) if fields is None else fields
    m_vectors = np.asarray(m_vectors)
    per_direction = [m_vectors[translation_dofs[:, d]].T @ scalar for d in range(3)]  # (k, n_scalar) each
    return np.stack(per_direction, axis=2).reshape(m_vectors.shape[1], 3 * scalar.shape[1])


def canonical_transform(vectors: np.ndarray, eigenvalues: np.ndarray, mass, positions: np.ndarray,
                        translation_dofs: np.ndarray, zero: np.ndarray | None = None,
                        gap: float = GROUP_GAP) -> tuple[np.ndarray, np.ndarray, dict]:
    """The orthogonal transform ``Q`` (k, k) that brings mass-orthonormal modes into canonical form.

    Parameters
    ----------
    vectors : (n_dofs, k) float
        Mode shapes over the full FE dofs, mass-orthonormal (``Vᵀ M V = I``), eigenvalues ascending.
    eigenvalues : (k,) float, (rad/s)²
    mass : (n_dofs, n_dofs) sparse or dense
        The mass matrix of the inner product.
    positions : (n_nodes, 3) float, m
    translation_dofs : (n_nodes, 3) int
        Dof numbers (rows of ``vectors``) of each node's x, y, z translations.
    zero : (k,) bool, optional
        Rigid-body modes (zero eigenvalue to round-off, marked by the caller); they form one group.

    Returns
    -------
    q : (k, k) float
        Apply as ``V Q`` to any representation of the modes (independent or full dofs, stresses follow).
    eigenvalues : (k,) float
        Rayleigh quotients ``diag(Qᵀ Λ Q)`` (unchanged outside groups).
    info : dict
        ``groups`` (list of index lists with more than one mode), ``max_coupling`` (largest dropped
        off-diagonal ``|(Qᵀ Λ Q)_ij|`` relative to the group's largest ``|λ|``), ``incomplete`` (groups the probes
        could not span; their remaining directions are left as the solver gave them).
    """
    v = np.asarray(vectors, dtype=float)
    lam = np.asarray(eigenvalues, dtype=float)
    k = lam.size
    q = np.eye(k)
    info = {"groups": [], "max_coupling": 0.0, "incomplete": []}
    rigid = np.zeros(k, dtype=bool) if zero is None else np.asarray(zero, dtype=bool)
    lam_out = lam.copy()
    fields = None
    for g in (g for g in mode_groups(lam, gap, rigid) if g.size > 1):
        fields = probe_fields(positions) if fields is None else fields  # once per call, for all groups
        rotation, complete = _group_rotation(probe_coefficients(mass @ v[:, g], positions, translation_dofs,
                                                                fields=fields))
        q[np.ix_(g, g)] = rotation
        block = rotation.T @ np.diag(lam[g]) @ rotation
        lam_out[g] = np.diag(block)
        if not rigid[g].all():  # the rigid group's eigenvalues are round-off: no coupling to speak of
            off = block - np.diag(np.diag(block))
            info["max_coupling"] = max(info["max_coupling"], float(np.abs(off).max()) / float(np.abs(lam[g]).max()))
        info["groups"].append(g.tolist())
        if not complete:
            info["incomplete"].append(g.tolist())
    trans = (v @ q)[np.asarray(translation_dofs).ravel()]  # node order, then x, y, z
    negative = trans < 0.0
    magnitude = np.abs(trans, out=trans)  # in place: each (n_dofs, k) copy of 147 modes at 60k dofs is 71 MB
    first = np.argmax(magnitude >= (1.0 - SIGN_TIE) * magnitude.max(axis=0, initial=0.0), axis=0)
    signs = np.where(negative[first, np.arange(k)], -1.0, 1.0)
    return q * signs, lam_out, info


def _group_rotation(coefficients: np.ndarray) -> tuple[np.ndarray, bool]:
    """Orthonormal (g, g) basis from probe coefficients (g, n_probes) by Gram–Schmidt in probe order."""
    g = coefficients.shape[0]
    threshold = PROBE_ACCEPT * float(np.linalg.norm(coefficients, axis=0).max(initial=0.0))
    basis = []
    for j in range(coefficients.shape[1]):
        r = coefficients[:, j].copy()
        for _ in range(2):  # twice is enough (classical Gram–Schmidt, re-orthogonalized)
            for b in basis:
                r -= (b @ r) * b
        norm = float(np.linalg.norm(r))
        if threshold > 0.0 and norm >= threshold:
            basis.append(r / norm)
            if len(basis) == g:
                return np.column_stack(basis), True
    # not spanned: complete with the solver's own directions (reported as incomplete), taking each time the unit
    # vector e_i with the largest part outside the basis so far (pivoted Gram–Schmidt): its squared norm is at least
    # (g − len(basis)) / g, so the completion never stalls however large the group (a fixed acceptance threshold did
    # for groups of ~100 modes)
    while len(basis) < g:
        spanned = np.column_stack(basis) if basis else np.zeros((g, 0))
        rest = np.eye(g) - spanned @ spanned.T
        i = int(np.argmax(np.einsum("ij,ij->j", rest, rest)))
        r = rest[:, i]
        for b in basis:  # re-orthogonalized once more
            r -= (b @ r) * b
        basis.append(r / np.linalg.norm(r))
    return np.column_stack(basis), False
