"""Redundant constraints: find the dependent rows of ``Φ_q``, keep an independent set, say which were dropped.

Machines are full of redundant constraints (a boom on two coaxial pin bearings, a door on two hinges, a spatial loop
with a special geometry such as Bricard's linkage). As in MSC Adams, the engine keeps an independent set of
constraint equations and reports the others, one line per joint. The kept set is the first rows, in model order,
that raise the rank of the row-scaled Jacobian. The Euler-parameter normalizations come first, so they are always
kept; of two hinges on one axis, the first keeps all five rows and the second keeps none of the rows the first
already imposes. The rank is decided as by a rank-revealing QR: a row is dependent when its distance from the span
of the kept rows is below ``tol`` times its size. The kept rows are orthogonalized twice, and the greedy order
gives the same set on every CPU.

A dropped row must still hold at the assembled position. One that does not is an *inconsistent* constraint (two
joints that disagree), and it stays an error that names both joints.

Reactions: where rows are redundant, the split of the reaction between them is not unique. The one reported is the
minimum-norm split ``λ_all = (I - N Nᵀ) E λ`` (``E`` scatters the kept multipliers, ``N`` spans the left null
space of ``Φ_q``; computed by the compiled :func:`flexmbs.engine.step.all_multipliers`). It gives the same generalized constraint force ``Φ_qᵀ λ``, and rows that take part in no
dependency keep their unique multipliers. The joints whose split is a choice are flagged in the results
(``redundant_joints``).
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError, SimulationError

__all__ = ["RedundantConstraintWarning", "independent_rows", "redundancy_report", "check_dropped_rows",
           "minimum_norm_multipliers", "reselect_rows"]

RANK_TOL = 1e-8  # relative distance of a scaled row from the span of the kept rows below which it is dependent
CONSISTENCY_TOL = 1e-6  # |Φ| of a dropped row at the assembled position above which the constraints disagree


class RedundantConstraintWarning(UserWarning):
    """Constraint equations that depend on the others were dropped: one warning per joint (the results keep the
    lines in the attributes ``redundant_constraints`` and the joints in ``redundant_joints``)."""


def scaled_rows(jacobian: np.ndarray) -> np.ndarray:
    """``jacobian`` with each nonzero row divided by its largest magnitude."""
    scale = np.abs(jacobian).max(axis=1, keepdims=True)
    scale[scale == 0.0] = 1.0
    return jacobian / scale


def independent_rows(jacobian: np.ndarray, tol: float = RANK_TOL) -> tuple[np.ndarray, np.ndarray]:
    """``(kept, dropped)`` row indices of ``jacobian`` (n_c, n_q): the first rows in order that raise the rank.

    A row's distance from the span of any other rows is at least the smallest singular value ``σ_min`` of the
    scaled rows (``|Aᵀc| ≥ σ_min |c|`` with ``c_r = 1``), so when ``σ_min`` exceeds twice the test's threshold every
    row raises the rank and all are kept: one SVD instead of the row-by-row loop (the usual case; the loop decides
    every other). (A compiled row-by-row test took ≈ 2 µs against ≈ 22 µs for a 6 × 7 Jacobian, but added a
    function of 0.6 s to the engine's compile: left out, issue 42.)

    Before the SVD, a test of the rows' pattern: nonzero rows that touch disjoint sets of columns (a planar model's
    pivot and planar guide on one body: the hydraulic race) are exactly orthogonal, so each row's distance from the
    span of the others is its size, and for ``tol < 1`` the loop itself keeps every row (its projections onto the
    kept rows are exact zeros). The pattern is read on the unscaled rows: the scaling keeps each nonzero row's
    largest entry and can only zero (underflow) others, so disjoint rows stay disjoint and nonzero. A NaN or inf
    among such rows changes nothing: the loop keeps the rows it reaches (its comparisons with NaN are false), as it
    keeps all others. (The SVD, its LAPACK code cold after the previous run's compiled steps, and the scaling took
    ≈ 25 µs of the hydraulic race's start.)"""
    jacobian = np.asarray(jacobian, dtype=float)
    n_r, n_q = jacobian.shape
    rows, columns = np.nonzero(jacobian)  # (one numpy call, the sets below in Python: ≈ 5 µs less than reductions)
    if (0 < n_r <= n_q and tol < 1.0 and columns.size <= n_q  # (at most one entry per column)
            and len(set(columns.tolist())) == columns.size  # one row per touched column
            and len(set(rows.tolist())) == n_r):  # no zero row
        return np.arange(n_r, dtype=np.int64), np.zeros(0, dtype=np.int64)
    rows = scaled_rows(jacobian)
    if 0 < rows.shape[0] <= rows.shape[1] and np.isfinite(rows).all():
        sizes = np.sqrt(np.einsum("ij,ij->i", rows, rows))
        if np.linalg.svd(rows, compute_uv=False)[-1] > 2.0 * tol * sizes.max():
            return np.arange(rows.shape[0], dtype=np.int64), np.zeros(0, dtype=np.int64)
    basis = np.zeros((min(rows.shape), rows.shape[1]))
    kept, dropped, n = [], [], 0
    for r, row in enumerate(rows):
        size = np.linalg.norm(row)
        if size == 0.0:
            dropped.append(r)
            continue
        residual = row.copy()
        for _ in range(2):  # Gram–Schmidt twice: orthogonal to round-off
            residual -= basis[:n].T @ (basis[:n] @ residual)
        distance = np.linalg.norm(residual)
        if distance <= tol * size:
            dropped.append(r)
            continue
        basis[n] = residual / distance
        n += 1
        kept.append(r)
    return np.array(kept, dtype=np.int64), np.array(dropped, dtype=np.int64)


def _row_owner(system, row: int) -> tuple[str, int]:
    for joint in system.joints:
        if joint.offset <= row < joint.offset + joint.n_equations:
            return joint.name, row - joint.offset
    return f"row {row}", 0


def _partners(jacobian: np.ndarray, kept: np.ndarray, row: int) -> np.ndarray:
    """Kept rows whose combination reproduces the dropped ``row`` (the rows it depends on)."""
    scaled = scaled_rows(jacobian)
    coefficients = np.linalg.lstsq(scaled[kept].T, scaled[row], rcond=None)[0]
    big = np.abs(coefficients) > 1e-6 * max(np.abs(coefficients).max(initial=0.0), 1e-300)
    return kept[big]


def redundancy_report(system, jacobian: np.ndarray, kept: np.ndarray,
                      dropped: np.ndarray) -> tuple[dict[str, str], list[str]]:
    """``(lines, involved)``: joint name -> one line on which of its equations were dropped and the joints they
    depend on (as Adams' redundant-constraint report); and every joint whose reaction split is not unique (the
    joints with dropped rows and those they depend on), in model order."""
    by_joint: dict[str, list[int]] = {}
    partners: dict[str, set[str]] = {}
    for row in dropped:
        name, local = _row_owner(system, int(row))
        by_joint.setdefault(name, []).append(local)
        owners = {_row_owner(system, int(p))[0] for p in _partners(jacobian, kept, int(row))} - {name}
        partners.setdefault(name, set()).update(o for o in owners if not o.startswith("row "))
    lines = {}
    for name, locals_ in by_joint.items():
        depends = ", ".join(repr(p) for p in sorted(partners[name])) or "the other joints"
        rows = ", ".join(str(k) for k in locals_)
        lines[name] = (f"redundant constraint: joint {name!r} equation(s) {rows} dropped (dependent on {depends}); "
                       "the reactions of these joints are a minimum-norm split")
    named = set(lines) | set().union(*partners.values())
    return lines, [j.name for j in system.joints if j.name in named]


def check_dropped_rows(system, phi_all: np.ndarray, jacobian: np.ndarray, kept: np.ndarray,
                       dropped: np.ndarray, tol: float = CONSISTENCY_TOL) -> None:
    """Raise :class:`ModelError` naming the joints that disagree if a dropped equation does not hold."""
    bad = dropped[np.abs(phi_all[dropped]) > tol]
    if not bad.size:
        return
    row = int(bad[np.argmax(np.abs(phi_all[bad]))])
    name, local = _row_owner(system, row)
    others = sorted({_row_owner(system, int(p))[0] for p in _partners(jacobian, kept, row)} - {name})
    raise ModelError(f"cannot assemble the model: inconsistent constraints, joint {name!r} (equation {local}) "
                     f"disagrees with "
                     f"{', '.join(repr(o) for o in others) or 'the other joints'} by {phi_all[row]:.3g} at the "
                     "assembled position; check their marker positions and axes")


def minimum_norm_multipliers(jacobian_all: np.ndarray, kept: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """``λ`` of every row (n_c_all,) from the kept rows' ``λ``: the minimum-norm split with the same ``Φ_qᵀ λ``, by
    the compiled step's own :func:`flexmbs.engine.step.all_multipliers` (one implementation for both)."""
    from .step import all_multipliers  # the compiled engine: loaded by the first model with redundant rows

    return all_multipliers(np.ascontiguousarray(kept, dtype=np.int64), np.ascontiguousarray(jacobian_all, dtype=float),
                           np.ascontiguousarray(lam, dtype=float))


def reselect_rows(system, q: np.ndarray, v: np.ndarray, t: float, lam: np.ndarray) -> tuple[str | None, np.ndarray]:
    """Re-check the kept rows where the Newton iteration failed (a singular position may have made them dependent).

    Returns ``(note, lam)``: ``note`` is ``None`` when the same rows are still the independent set. Otherwise it
    says which set replaced which, and ``lam`` holds the new rows' multipliers with the same generalized constraint
    force ``Φ_qᵀ λ``; the number of rows is unchanged, so the integrator's layout stays. When the number of independent
    equations itself changes (a bifurcation or dead point: the mechanism gains or loses a degree of freedom there),
    raises :class:`SimulationError` naming the joints involved; the solver keeps the rows and its step-size control,
    and adds that line to its error only if the run fails there (a toggle passing its dead point usually does not).
    """
    phi, jac = system.all_constraints(system.context(q, v, t))
    kept, dropped = independent_rows(jac)
    old = system.row_keep if system.row_keep is not None else np.arange(system.n_c_all)
    if np.array_equal(kept, old):
        return None, lam
    changed = sorted({_row_owner(system, int(r))[0] for r in np.setxor1d(kept, old)})
    if kept.size != old.size:
        raise SimulationError(
            f"singular position at t = {t:.6g} s: the independent constraint equations change from {old.size} to "
            f"{kept.size} (joints {', '.join(repr(c) for c in changed)}); the mechanism gains or loses a degree of "
            "freedom there (a dead point or bifurcation): change the geometry or drive it through")
    # the new rows' multipliers that give the same generalized constraint force Φ_qᵀ λ (least squares, exact)
    carried = np.linalg.lstsq(jac[kept].T, jac[old].T @ lam, rcond=None)[0]
    system.row_keep = kept if dropped.size else None
    system.redundancy, system.redundant_joints = (redundancy_report(system, jac, kept, dropped) if dropped.size
                                                  else ({}, []))
    note = (f"constraint equations re-chosen at t = {t:.6g} s (the kept ones became dependent): joints "
            f"{', '.join(repr(c) for c in changed)}; the constraint forces carried over unchanged")
    return note, carried
