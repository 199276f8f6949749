"""Craig–Bampton reduction and the orthonormalization that exposes the rigid-body modes.

Seed 003 §2.1.2.1 and §2.1.2.3. With the independent FE dofs split into boundary ``b`` (retained interface dofs)
and interior ``i``:

* constraint modes ``Ψ = −K_ii⁻¹ K_ib`` (eq. 2-105), one column per boundary dof;
* fixed-interface normal modes ``(K_ii − ω² M_ii) Φ = 0`` (eq. 2-102), the lowest ``n_modes``;
* ``T = [[Φ, Ψ], [0, I]]`` (eq. 2-117, 2-142) and ``M_T = Tᵀ M T``, ``K_T = Tᵀ K T`` (eq. 2-119);
* orthonormalization ``K_T v = λ M_T v`` (eq. 2-140), ``S = T N`` (eq. 2-143), whose zero-frequency columns are the
  rigid-body modes of the part; they are identified (zero eigenvalue *and* projection on the rigid displacement
  fields) and removed.

``K_ii`` is factorized **once**; the same factor solves all constraint-mode right-hand sides (one multi-column
solve) and is the shift-invert operator (σ = 0) of the block Lanczos iteration (:mod:`fem.eigen`) for the
fixed-interface eigenproblem. Where the factor does not fit in memory, algebraic multigrid takes its place
(:mod:`reduction.solvers`, issue 46).
"""
from __future__ import annotations

import warnings

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from fem.canonical import GROUP_PAD, canonical_transform
from fem.errors import ModelError
from fem.linalg import PrincipalBlock, inf_norm, principal_submatrix, spmm
from fem.model import FEModel
from fem.spiders import skew
from reduction.flexbody import rigid_body_fields

__all__ = ["CraigBampton", "craig_bampton", "free_rigid_motions", "orthonormalize", "OrthonormalBasis"]


@dataclass
class CraigBampton:
    """A Craig–Bampton basis over the model's independent dofs.

    Attributes
    ----------
    basis : (n_dofs, n_modes + n_boundary) float
        Columns ``[Φ; 0]`` then ``[Ψ; I]`` in the model's independent dof order.
    boundary : (n_boundary,) int
        Independent-dof indices of the retained interface dofs.
    fixed_interface_hz : (n_modes,) float
    stiffness, mass : (n_cb, n_cb) float
        ``K_T`` and ``M_T``.
    """

    basis: np.ndarray
    boundary: np.ndarray
    fixed_interface_hz: np.ndarray
    stiffness: np.ndarray
    mass: np.ndarray

    statistics: dict | None = None  # what the interior solver did (route, factor size, iterations)
    solver: object = None  # the interior solver, kept alive for the report (craig_bampton(keep_solver=True))
    interior: np.ndarray | None = None
    stiffness_operator: object = None  # K from its blocks when the model's K was released (release_stiffness=True)

    @property
    def n_normal_modes(self) -> int:
        return int(self.fixed_interface_hz.size)

    def release(self) -> None:
        """Free the interior solver (the factor or the multigrid hierarchy) and the block stiffness on its K_ii."""
        if self.solver is not None:
            self.solver.release()
            self.solver = None
        self.stiffness_operator = None


def craig_bampton(model: FEModel, boundary: np.ndarray, n_modes: int, progress=None,
                  max_frequency_hz: float | None = None, solver: str = "auto",
                  keep_solver: bool = False, phases=None, release: bool = False,
                  release_stiffness: bool = False) -> CraigBampton:
    """Build the Craig–Bampton basis with one factorization of ``K_ii`` (or, when its factor does not fit in memory,
    with algebraic multigrid: :mod:`reduction.solvers`).

    Parameters
    ----------
    model : FEModel
    boundary : (n_b,) int
        Independent-dof indices of the interface dofs to retain.
    n_modes : int
        Number of fixed-interface normal modes (≥ 0).
    progress : callable(str), optional
        Receives short status messages.
    max_frequency_hz : float, optional
        Cut-off: retain every fixed-interface mode up to this frequency instead of ``n_modes`` (which is then only
        the first guess of how many to solve for; more are solved with the same factor until the cut-off is passed).
    solver : {"auto", "direct", "iterative"}
        Interior solves by PARDISO's factorization, by AMG-preconditioned CG and LOBPCG, or chosen from the
        factor's estimated size and the free memory (:func:`reduction.solvers.choose_route`).
    keep_solver : bool
        Keep the interior solver alive on the result (``cb.solver``) for the report's free–free comparison
        (:func:`reduction.solvers.free_free_modes`); the caller releases it (``cb.release()``).
    phases : reduction.solvers.Phases, optional
        Progress with estimated remaining time.
    release : bool
        Free the model's assembled full stiffness once ``K_ii`` and the couplings exist
        (:meth:`fem.model.FEModel.release_assembly`): the command line does, its model is not used again.
    release_stiffness : bool
        With ``release``: free the model's independent-dof stiffness too once the interior solver holds ``K_ii``;
        ``K`` is then applied from its blocks (:class:`reduction.solvers.BlockStiffness`, ``cb.stiffness_operator``)
        for ``Tᵀ K T`` and the report's comparison (issue 46). Not with a comparison by a separate modal analysis.
    """
    from reduction.solvers import InteriorSolver

    say = progress or (lambda message: None)
    n = model.n_dofs
    boundary = np.asarray(boundary, dtype=np.int64)
    interior = np.setdiff1d(np.arange(n), boundary)
    if n_modes < 0:
        raise ModelError(f"the number of modes must be ≥ 0, got {n_modes}")
    if n_modes > interior.size:
        raise ModelError(f"asked for {n_modes} fixed-interface modes but the part has {interior.size} interior dofs "
                         f"(n_modes = {interior.size} gives the complete basis)")
    if n_modes == interior.size and interior.size > COMPLETE_MAX:
        raise ModelError(f"a complete basis ({interior.size} fixed-interface modes) is solved densely, for models "
                         f"up to {COMPLETE_MAX} interior dofs (a cross-check); ask for fewer modes")
    m = model.mass
    _check_rigid_motions_held(model, boundary)
    # the blocks straight from the full stiffness where the spiders touch boundary dofs only (RBE2 with all six
    # reference dofs retained): no projected copy of K (issue 46)
    if release and model.solid is not None:  # the quadrature-point basis first (2.5 GB at 3 M dofs, issue 46)
        model.solid.release_quadrature()
    blocks = model.stiffness_blocks(boundary, interior) if release and release_stiffness else None
    if blocks is None:
        k = model.stiffness
        k_ii = principal_submatrix(k, interior)
        k_b = k[boundary]  # K is symmetric: K_ib = K_biᵀ from the few boundary rows
        k_ib, k_bb = k_b[:, interior].T, k_b[:, boundary].toarray()
        del k_b
    else:
        k = None
        k_ii, k_ib, k_bb = blocks
        del blocks
    m_ii = PrincipalBlock(m, interior)  # products on M itself: no copy of the interior mass (issue 46)
    if release:
        freed = model.release_assembly(project=k is not None)
        if freed:
            say(f"released the assembled full stiffness and element mass ({freed / 1e9:.2f} GB)")
    interior_solver = InteriorSolver(model, k_ii, m_ii, interior, boundary, max(n_modes, 1), solver, say, phases)
    del k_ii, m_ii  # the solver keeps what its route needs (the direct one: PARDISO's upper triangle, no copy)
    released = False
    stiffness_operator = None
    try:
        if release and release_stiffness:
            from reduction.solvers import BlockStiffness

            stiffness_operator = BlockStiffness(interior_solver.k_ii, k_ib, k_bb, interior, boundary)
            del k
            freed = model.release_stiffness()
            say(f"released the independent-dof stiffness ({freed / 1e9:.2f} GB): applied from K_ii and the couplings")
            k = stiffness_operator
        interior_solver.prepare()
        if phases is not None:
            phases.start("constraint modes")
        say(f"constraint modes ({boundary.size} right-hand sides)")
        psi = interior_solver.solve(k_ib.toarray())
        np.negative(psi, out=psi)  # in place (no second fresh n_i × n_b array)
        if n_modes or max_frequency_hz is not None:
            n_modes = max(n_modes, 1)
            if phases is not None:
                phases.start("fixed-interface modes")
            say(f"{n_modes} fixed-interface normal modes" + (f" (first guess; cut-off {max_frequency_hz:.4g} Hz)"
                                                             if max_frequency_hz is not None else "")
                + f" ({interior_solver.route})")
            # GROUP_PAD more, so that a degenerate group cut at n_modes is complete when made canonical
            n_solve = min(n_modes + GROUP_PAD, interior.size - 1)
            if n_modes == interior.size:  # the complete basis: every interior mode, dense (a cross-check)
                values, phi = sla.eigh(interior_solver.k_ii.toarray(), interior_solver.m_ii.toarray())
            else:
                values, phi = interior_solver.lowest_modes(n_solve)
            if max_frequency_hz is not None:
                cut = (2.0 * np.pi * max_frequency_hz) ** 2
                _check_cutoff(values, n_solve, interior.size, max_frequency_hz)
                while np.sum(values <= cut) + GROUP_PAD >= n_solve and n_solve < interior.size - 1:
                    n_solve = min(max(2 * n_solve, int(np.sum(values <= cut)) + GROUP_PAD + 1), interior.size - 1)
                    say(f"cut-off {max_frequency_hz:.4g} Hz not reached: solving {n_solve} fixed-interface modes")
                    values, phi = interior_solver.lowest_modes(n_solve)
                n_modes = max(1, min(int(np.sum(values <= cut)), interior.size - 2))
        else:
            values, phi = np.zeros(0), np.zeros((interior.size, 0))
        if not keep_solver:
            interior_solver.release()
            released = True
        else:
            interior_solver.keep_solves_only()
    except BaseException:
        interior_solver.release()
        raise
    del k_ib
    if n_modes:  # canonical signs and degenerate-group bases (fem.canonical), judged on the expanded shapes
        shapes = np.zeros((n, phi.shape[1]))
        shapes[interior] = phi
        q, values, _ = canonical_transform(model.expand(shapes), values, model.full_mass, model.positions,
                                           model.translation_dofs)
        del shapes
        phi, values = phi @ q[:, :n_modes], values[:n_modes]
    basis = np.zeros((n, n_modes + boundary.size))
    basis[interior, :n_modes] = phi
    del phi
    basis[interior, n_modes:] = psi
    del psi
    basis[boundary, n_modes:] = np.eye(boundary.size)
    k_t, m_t = _projected(k, basis), _projected(m, basis)
    fixed_hz = np.sqrt(np.maximum(values, 0.0)) / (2.0 * np.pi)
    cb = CraigBampton(basis, boundary, fixed_hz, 0.5 * (k_t + k_t.T), 0.5 * (m_t + m_t.T))
    cb.solver = None if released else interior_solver
    cb.interior = interior
    cb.stiffness_operator = stiffness_operator
    cb.statistics = interior_solver.statistics
    return cb


def _projected(matrix, basis: np.ndarray, width: int = 8) -> np.ndarray:
    """``Bᵀ A B`` by blocks of ``width`` columns: the products' temporaries are n × width (the whole ``A B`` and the
    block operator's copies of ``B`` were about 0.6 GB at 667k dofs while the factor was still held, issue 46)."""
    out = np.empty((basis.shape[1], basis.shape[1]))
    for start in range(0, basis.shape[1], width):
        stop = min(start + width, basis.shape[1])
        out[:, start:stop] = basis.T @ spmm(matrix, np.ascontiguousarray(basis[:, start:stop]))
    return out


COMPLETE_MAX = 3000  # interior dofs up to which a complete fixed-interface basis may be asked for (dense solve)
RIGID_HELD_TOL = 1e-8  # relative singular value of the boundary's rigid motions below which one counts as free


def free_rigid_motions(model: FEModel, boundary: np.ndarray) -> list[str]:
    """Rigid motions of the part that the boundary dofs leave free, described in words (empty when all are held).

    Judged on geometry alone, so the answer does not depend on spider weights or on round-off in ``K_ii``: the six
    rigid displacement fields (translations, rotations about the centroid scaled by the part's half-size ``L``)
    evaluated at the boundary dofs form ``B`` (n_b, 6); a right singular vector with ``σ < 1e-8 σ_max`` is a rigid
    motion the interfaces do not see. It counts as free only if it also costs no strain energy
    (``‖K u‖ ≤ 1e-8 ‖K‖ ‖u‖``: no grounded spring holds it).
    """
    full = model.independent_dofs
    tt, rr = rigid_body_fields(model.positions, model.translation_dofs, model.rotation_dofs, model.n_full_dofs)
    lo, hi = model.positions.min(axis=0), model.positions.max(axis=0)
    centre, half = 0.5 * (lo + hi), 0.5 * float(np.max(hi - lo)) or 1.0
    # rotation θ about the centre: u = θ × (x − c) = Rr θ + Tt (c̃ θ)
    fields = np.hstack([tt[full], half * (rr[full] + tt[full] @ skew(centre))])  # (n_dofs, 6)
    b = fields[np.asarray(boundary, dtype=np.int64)]
    if b.shape[0] == 0:
        null = np.eye(6)
    else:
        _, sigma, vt = np.linalg.svd(b, full_matrices=True)
        sigma = np.concatenate([sigma, np.zeros(6 - sigma.size)])
        null = vt[sigma <= RIGID_HELD_TOL * sigma.max()].T  # (6, n_free)
    if null.shape[1] == 0:
        return []
    motion = fields @ null
    k = model.stiffness
    k_norm = inf_norm(k)
    energy = np.linalg.norm(spmm(k, motion), axis=0) / (k_norm * np.linalg.norm(motion, axis=0))
    null = null[:, energy <= RIGID_HELD_TOL]
    out = []
    for t, phi in zip(null[:3].T, null[3:].T):
        theta = phi * half  # rad per unit of t's metres
        if np.linalg.norm(phi) > 1e-6 * np.linalg.norm(t):
            axis = theta / np.linalg.norm(theta)
            point = centre + np.cross(theta, t) / float(theta @ theta)
            axis *= np.sign(axis[np.argmax(np.abs(axis))])
            out.append("a rotation about the axis through ({:.4g}, {:.4g}, {:.4g}) m along ({:.3g}, {:.3g}, {:.3g})"
                       .format(*point, *(axis + 0.0)))
        else:
            direction = t / np.linalg.norm(t)
            direction *= np.sign(direction[np.argmax(np.abs(direction))])
            out.append("a translation along ({:.3g}, {:.3g}, {:.3g})".format(*(direction + 0.0)))
    return out


def _check_rigid_motions_held(model: FEModel, boundary: np.ndarray) -> None:
    """One-line ModelError when the retained interface dofs leave a rigid motion of the part free."""
    free = free_rigid_motions(model, boundary)
    if free:
        what = "a rigid-body motion" if len(free) == 1 else f"{len(free)} rigid-body motions"
        raise ModelError(f"the retained interface dofs leave {what} of the part free ({'; '.join(free)}), whatever "
                         "the spider weights; retain all 6 dofs ('123456') at one interface or translations at "
                         "three non-collinear interfaces")


@dataclass
class OrthonormalBasis:
    """The orthonormalized Craig–Bampton basis split into rigid and elastic parts.

    Attributes
    ----------
    elastic : (n_dofs, m) float
        ``S`` over the independent dofs, mass-orthonormal, rigid modes removed.
    eigenvalues : (m,) float, (rad/s)²
    rigid : (n_dofs, n_rigid) float
        The removed rigid-body modes.
    rigid_projection : (n_cb,) float
        Share (0..1) of each orthonormalized mode's mass norm lying in the rigid-body fields.
    canonical : dict
        What :func:`fem.canonical.canonical_transform` did to the elastic modes (groups, dropped coupling).
    """

    elastic: np.ndarray
    eigenvalues: np.ndarray
    rigid: np.ndarray
    rigid_projection: np.ndarray
    canonical: dict | None = None


def orthonormalize(model: FEModel, cb: CraigBampton) -> OrthonormalBasis:
    """Solve ``K_T v = λ M_T v`` (seed 003 eq. 2-140), form ``S = T N`` (eq. 2-143), remove the rigid modes.

    A mode is rigid when its eigenvalue is zero to round-off (``|λ| < 1e-8 λ_max``) and more than 99 % of its
    mass norm lies in the six rigid displacement fields of the undeformed part. Exactly six are expected:
    fewer means the interfaces cannot carry a rigid motion, more means a mechanism or a disconnected mesh.
    Matrices imported with fewer digits (a Nastran punch file has ten) leave the rigid eigenvalues at about their
    rounding times ``λ_max`` (1.2e-8 measured): a mode more than 99 % rigid whose eigenvalue also lies more than three
    orders below every other mode's counts as rigid too, with a warning that says so.
    The elastic modes are returned in the canonical form of :mod:`fem.canonical`.
    """
    values, vectors = sla.eigh(cb.stiffness, cb.mass)  # S = T N (n_dofs, n_cb) is mass-orthonormal
    projection = _rigid_projection(model, cb.basis, vectors)
    zero = np.abs(values) < 1e-8 * np.max(np.abs(values))
    rigid = zero & (projection > 0.99)
    rigid = rigid | _rigid_by_gap(values, projection, rigid)
    n_zero, n_rigid = int(zero.sum()), int(rigid.sum())
    if n_zero > 6:
        raise ModelError(f"the reduced part has {n_zero} zero-frequency modes, more than the 6 rigid-body modes: "
                         "the mesh has disconnected pieces or an internal mechanism; check the mesh")
    if n_rigid < 6:
        raise ModelError(f"only {n_rigid} rigid-body modes were found in the Craig–Bampton basis; the interfaces "
                         "must be able to carry a rigid motion of the part (retain all 6 dofs at one interface "
                         "or translations at three non-collinear interfaces)")
    keep = ~rigid
    # one canonical form (fem.canonical): signs and degenerate-group bases independent of the LAPACK kernels
    # (the columns of S formed only as needed: each (n_dofs, n_cb) array is ~75 MB of fresh memory at 60k dofs)
    elastic, elastic_values = cb.basis @ vectors[:, keep], values[keep]
    q, elastic_values, info = canonical_transform(model.expand(elastic), elastic_values, model.full_mass,
                                                  model.positions, model.translation_dofs)
    return OrthonormalBasis(elastic @ q, elastic_values, cb.basis @ vectors[:, rigid], projection, info)


def _rigid_by_gap(values: np.ndarray, projection: np.ndarray, rigid: np.ndarray) -> np.ndarray:
    """Modes > 99 % rigid whose |λ| is below 1e-3 of every other mode's but above the round-off threshold (see
    :func:`orthonormalize`); a warning names how far from zero they are."""
    candidate = (projection > 0.99) & ~rigid
    others = np.abs(values[projection <= 0.99])
    if not candidate.any() or others.size == 0:
        return np.zeros(values.size, dtype=bool)
    extra = candidate & (np.abs(values) < 1e-3 * others.min())
    if extra.any():
        warnings.warn(f"{int(extra.sum())} rigid-body mode(s) are zero only to "
                      f"{np.abs(values[extra]).max() / np.abs(values).max():.2g} of the largest eigenvalue (the "
                      "precision of imported matrices); removed as rigid: their mass lies in the rigid fields and "
                      "their eigenvalues more than 1e3 below the first elastic one", stacklevel=3)
    return extra


def _rigid_projection(model: FEModel, basis: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Share of each mode ``basis @ vectors`` 's mass norm in the span of the rigid-body fields (M-orthogonal
    projection), by way of the (6, n_cb) rigid couplings of the basis (the modes themselves are not formed)."""
    tt, rr = rigid_body_fields(model.positions, model.translation_dofs, model.rotation_dofs, model.n_full_dofs)
    fields = np.hstack([tt, rr])[model.independent_dofs]  # rigid motion of the independent dofs
    m = model.mass
    m_fields = spmm(m, fields)
    gram = fields.T @ m_fields
    coupling = (m_fields.T @ basis) @ vectors  # (6, n)
    return np.einsum("in,in->n", coupling, np.linalg.solve(gram, coupling))


MAX_CUTOFF_MODES = 1000  # fixed-interface modes a cut-off may ask for before it is refused (issue 43)


def _check_cutoff(values: np.ndarray, n_solved: int, n_interior: int, cutoff_hz: float) -> None:
    """Refuse, before solving them, a cut-off that needs more than :data:`MAX_CUTOFF_MODES` fixed-interface modes
    (``reduce --max-frequency 1e9`` solved 5,438 modes for minutes without a word). The count below the cut-off is
    bounded from below by the sparsest spectrum a part has, a beam's bending modes (f_k ~ k², so the count grows as
    √f): with the highest of the first ``n_solved`` modes at f_n, at least n √(cutoff / f_n) modes (a solid's
    grow as f³, far more)."""
    if values.size == 0 or np.sum(values <= (2.0 * np.pi * cutoff_hz) ** 2) + GROUP_PAD < n_solved:
        return
    f_top = float(np.sqrt(max(values[-1], 0.0)) / (2.0 * np.pi))
    estimate = min(n_solved * np.sqrt(cutoff_hz / f_top), n_interior) if f_top > 0.0 else n_interior
    if estimate > MAX_CUTOFF_MODES:
        raise ModelError(f"the cut-off {cutoff_hz:.4g} Hz (twice the highest frequency of interest, --max-frequency "
                         f"/ max_frequency) lies far above this part's modes: the lowest {n_solved} fixed-interface "
                         f"modes reach {f_top:.4g} Hz, so at least {estimate:.2g} modes lie below the cut-off, more "
                         f"than the {MAX_CUTOFF_MODES} a reduced body should carry; give the highest frequency the "
                         "machine excites as --max-frequency (Hz), or a mode count --modes N")
