"""Interior solves of the Craig–Bampton reduction for parts of any size (issue 46).

Two routes, chosen from the factor's estimated size and the free memory (:func:`choose_route`) or by the user:

* **direct**: one PARDISO factorization of ``K_ii`` (:class:`fem.linalg.SPDFactor`); constraint modes by one
  multi-column solve, fixed-interface modes by block shift-invert Lanczos (:mod:`fem.eigen`).
* **iterative**: no factor. PyAMG smoothed aggregation with the six rigid-body modes as near-nullspace
  (:class:`fem.iterative.AMGPreconditioner`); constraint modes by block PCG to a relative residual of
  :data:`CG_RTOL`, fixed-interface modes by LOBPCG to a relative eigen-residual of :data:`LOBPCG_RTOL`, started from
  the Galerkin eigenvectors of a coarse level. Memory grows linearly with the dofs.

The report's free–free comparison (:func:`free_free_modes`) reuses the same interior solver: with the constraint
modes ``Ψ`` and the boundary block ``S = K_bb + K_bi Ψ`` of the reduced stiffness, ``K⁺ r = [K_ii⁻¹ r_i + Ψ u_b; u_b]``,
``u_b = S⁺ (r_b + Ψᵀ r_i)`` solves the free–free ``K u = r`` exactly for every load without rigid-body resultant;
projected off the rigid-body modes it is the shift-invert operator (σ = 0) of the free–free problem, so the full
modes come without a second factorization (direct route: block Lanczos with the factor's exact solves; iterative
route: a locally optimal block iteration started from the reduced body's own modes with the V-cycle in place of
``K_ii⁻¹``).
"""
from __future__ import annotations

import time

import numpy as np
import scipy.linalg as sla

from fem.errors import ModelError
from fem.linalg import PrincipalBlock, SPDFactor, backend_name, spmm

__all__ = ["BlockStiffness", "InteriorSolver", "choose_route", "free_free_modes", "available_memory", "Phases",
           "ROUTES", "CG_RTOL", "LOBPCG_RTOL", "COMPARE_TOL", "COMPARE_TOL_ITERATIVE"]

ROUTES = ("auto", "direct", "iterative")
#: relative residual of the constraint-mode solves on the iterative route
CG_RTOL = 1e-10
#: relative eigen-residual ‖K x − λ M x‖ / (λ ‖M x‖) of the fixed-interface modes on the iterative route: the
#: frequencies then agree with the direct route's to ≈ 1e-8 and the mode shapes to MAC ≥ 1 − 1e-13 (177k-dof bar;
#: 1e-6 gave 7e-11 in 7 more iterations; the residual's norm weighs the mesh's highest modes, so it overstates the
#: frequency error by far: docs/benchmarks.md, issue 46 session 16)
LOBPCG_RTOL = 1e-4
#: relative residual of the report's free–free modes (started from the reduced modes): a Ritz value's error is
#: bounded by ‖r‖²/gap, i.e. frequencies to ≈ COMPARE_TOL² / (2 relative gap) ≈ 1e-8 relative, mode shapes (MAC) to
#: ≈ (COMPARE_TOL / relative gap)²; the report prints frequencies to 0.001 % and MAC to 1e-4
COMPARE_TOL = 1e-4
#: the same on the iterative route, where each iteration of the comparison costs about one of the fixed-interface
#: modes' LOBPCG (≈ 11 s CPU at 490k dofs): stated accuracy 1e-6 relative in the frequencies and 1e-4 in the paired
#: MAC, the precision the report prints (0.001 %, four decimals); measured against the direct route's comparison or
#: the iterative one at 1e-4: 1.2e-8 / 1.7e-5 (4 575-dof bar), 4e-10 / 2.3e-6 (490k; docs/benchmarks.md, issue 46
#: session 16). ``--compare-method full`` asks for the separate modal analysis (a factorization of the full model)
COMPARE_TOL_ITERATIVE = 3e-3
#: fraction of the available memory a route may plan to use
MEMORY_SHARE = 0.9
#: factor bytes of the tet10 bars measured before (issue 46: 6.3 GB at 667k dofs, growing as dofs^1.45); only used to
#: skip PARDISO's analysis where the factor clearly cannot fit
FACTOR_LAW = (6.3e9, 667_065, 1.45)


def available_memory() -> float:
    """Bytes the process may still allocate: ``MemAvailable`` (psutil, else /proc/meminfo), or the environment's
    ``FLEXMBS_MEMORY_LIMIT`` (bytes, a budget for this process) less what the process holds already."""
    import os

    rss = _rss()
    limit = os.environ.get("FLEXMBS_MEMORY_LIMIT")
    try:
        import psutil

        free = float(psutil.virtual_memory().available)
    except ImportError:  # pragma: no cover
        with open("/proc/meminfo") as handle:
            info = dict(line.split(":", 1) for line in handle)
        free = 1024.0 * float(info["MemAvailable"].split()[0])
    if limit:
        free = max(0.0, min(free, float(limit) - rss))
    return free


def _rss() -> float:
    try:
        import psutil

        return float(psutil.Process().memory_info().rss)
    except ImportError:  # pragma: no cover
        with open("/proc/self/statm") as handle:
            return float(handle.read().split()[1]) * 4096.0


def _gb(x: float) -> str:
    return f"{x / 1e9:.3g} GB"


def _nbytes(a) -> int:
    return int(a.data.nbytes + a.indices.nbytes + a.indptr.nbytes)


SUPERLU_LIMIT = 20_000  # interior dofs up to which `auto` factorizes with SciPy's SuperLU where PARDISO is missing


def choose_route(n_interior: int, k_ii, n_boundary: int, n_modes: int, requested: str, say, available=None):
    """The route, for the direct one the analysed (not yet factorized) PARDISO factor, and the multigrid hierarchy's
    aggregation threshold for the iterative one (the faster hierarchy where it fits, else the lean one).

    Estimates (bytes beyond what the process holds now): direct = PARDISO's own figure for the factorization after
    its analysis (``iparm[15] + iparm[16]``) + the Lanczos basis and its work arrays (n_i × (4 m + 56) doubles) + the
    constraint modes; iterative = the largest phase: the multigrid setup (2.7 × ``K_ii``; the lean hierarchy's 2.3 ×),
    or the hierarchy (1.3 × ``K_ii`` with its V-cycle's work; lean 0.3 ×) with the CG workspace (≈ 12 n_i × n_b
    doubles) or the LOBPCG workspace (7 blocks of n_i × (m + 8) doubles and the V-cycle's on 8 columns). Refuses in
    one line when the chosen or every route exceeds :data:`MEMORY_SHARE` of the available memory.
    """
    if requested not in ROUTES:
        raise ModelError(f"solver {requested!r}: use auto, direct or iterative")
    free = available_memory() if available is None else available
    budget = MEMORY_SHARE * free
    block = n_modes + 8
    lanczos = 8.0 * n_interior * (4 * n_modes + 56) + 8.0 * n_interior * n_boundary
    # the largest of the phases (measured on the tet10 bars, issue 46: 490k and 3 M dofs): PyAMG's setup 2.3 × K_ii
    # beyond what is held; then the hierarchy (0.3 × K_ii) with the block CG (its six arrays and the V-cycle's on all
    # right-hand sides, ≈ 12 n × n_b doubles) or with LOBPCG (fem.iterative.lobpcg_modes: seven blocks of the
    # modes + guard vectors and the V-cycle's work on 8 columns)
    # (session 16: the default aggregation threshold fem.iterative.STRENGTH_THETA makes a hierarchy of 0.8 × K_ii, a
    # setup of 2.7 × K_ii, and an LOBPCG phase 1.24–1.32 × K_ii above the work arrays below, measured at 490k and
    # 667k dofs; the lean one, LEAN_STRENGTH_THETA, the figures above)
    from fem.iterative import LEAN_STRENGTH_THETA, STRENGTH_THETA

    k_bytes = _nbytes(k_ii)
    work = 8.0 * n_interior * max(12.0 * n_boundary, 7.0 * block + 64.0)
    lean_need = max(2.3 * k_bytes, 0.3 * k_bytes + work)
    fast_need = max(2.7 * k_bytes, 1.3 * k_bytes + work)
    iterative_need, theta = (fast_need, STRENGTH_THETA) if fast_need <= budget else (lean_need, LEAN_STRENGTH_THETA)
    have_pardiso = backend_name() == "MKL PARDISO"
    # without PARDISO (SciPy's SuperLU) the direct route serves small parts (the engine's warm-up beam in the package
    # build's environment, which has no pypardiso and no pyamg); larger ones take the iterative route
    if requested == "iterative" or (requested == "auto" and not have_pardiso and n_interior > SUPERLU_LIMIT):
        route = "iterative"
    elif requested == "auto":
        c, n0, e = FACTOR_LAW
        route = "iterative" if c * (n_interior / n0) ** e > 3.0 * budget else "direct"
    else:
        route = "direct"
    factor = None
    if route == "direct":
        factor = SPDFactor(k_ii, "interior stiffness K_ii with the interfaces held (the retained interface dofs must "
                                 "stop every rigid-body motion: all 6 dofs at one interface or translations at three "
                                 "non-collinear ones)", analyze_only=True)
        direct_need = (factor.analyzed_bytes or 0.0) + lanczos
        if direct_need > budget:
            if requested == "direct" or iterative_need > budget:
                factor.release()
                _refuse(direct_need, iterative_need, free, requested)
            say(f"memory: the factor of K_ii needs {_gb(direct_need)} with the eigen-solver, {_gb(free)} are "
                f"available: iterative route (AMG), {_gb(iterative_need)} estimated")
            factor.release()
            factor, route = None, "iterative"
        else:
            which = (f"PARDISO, factor {factor.factor_nonzeros / 1e6:.0f} M nonzeros" if factor.factor_nonzeros
                     else backend_name())
            say(f"memory: direct route ({which}), estimated "
                f"{_gb(direct_need)} more than now (process {_gb(_rss())}), {_gb(free)} available")
    if route == "iterative":
        if iterative_need > budget:
            _refuse(None, iterative_need, free, requested)
        lean = "" if theta == STRENGTH_THETA else (f"; the lean multigrid hierarchy (the faster one needs "
                                                    f"{_gb(fast_need)}: about 2× the iterations)")
        say(f"memory: iterative route (AMG-preconditioned CG and LOBPCG), estimated {_gb(iterative_need)} more than "
            f"now (process {_gb(_rss())}), {_gb(free)} available{lean}")
    return route, factor, theta


def _refuse(direct_need, iterative_need, free, requested) -> None:
    parts = []
    if direct_need is not None:
        parts.append(f"the direct route needs {_gb(direct_need)}")
    if requested != "direct":
        parts.append(f"the iterative route {_gb(iterative_need)}")
    remedy = ("use --solver iterative (AMG, memory linear in the dofs)" if requested == "direct" and iterative_need <=
              MEMORY_SHARE * free else "free memory (close other programs), coarsen the mesh (flexmbs mesh --size) "
                                       "or reduce on a larger machine (docs/distributed-reduction.md)")
    raise ModelError(f"not enough memory for this reduction: {' and '.join(parts)} beyond what is held, "
                     f"{_gb(free)} available; {remedy}")


class Phases:
    """Progress by phases with the estimated remaining time: each phase has an estimated duration (seconds); a
    phase that reports its own progress (a fraction done) refines its estimate from its rate."""

    def __init__(self, estimates: dict, say):
        self.estimates = dict(estimates)
        self.say = say
        self.done: dict = {}
        self.current = None
        self.t0 = self.t_phase = time.perf_counter()
        self.cpu0 = time.process_time()
        self.measured: set = set()  # phases whose estimate comes from their own rate (wall seconds already)

    def start(self, name: str) -> None:
        from fem.linalg import return_freed_memory

        return_freed_memory()  # what the phase before freed goes back to the system before the next one allocates
        now = time.perf_counter()
        if self.current is not None:
            self.done[self.current] = now - self.t_phase
        self.current, self.t_phase = name, now
        names = list(self.estimates)
        k = names.index(name) + 1 if name in names else len(self.done) + 1
        self.say(f"phase {k}/{len(names)}: {name} (elapsed {now - self.t0:.0f} s, estimated remaining "
                 f"{self.remaining():.0f} s)")

    def fraction(self, done: float) -> None:
        """The current phase is ``done`` (0..1) complete: its estimate becomes elapsed / done."""
        if self.current is None or not 0.0 < done <= 1.0:
            return
        elapsed = time.perf_counter() - self.t_phase
        self.estimates[self.current] = elapsed / done
        self.measured.add(self.current)
        self.say(f"  {self.current}: {100 * done:.0f} % (estimated remaining {self.remaining():.0f} s)")

    def remaining(self) -> float:
        """Seconds still estimated; the estimates are CPU-like figures of an idle machine, stretched by how much
        longer the wall has been than this process's CPU time so far (a shared, loaded machine: 3–4× at load 8)."""
        left = 0.0
        now = time.perf_counter()
        stretch = max(1.0, (now - self.t0) / max(time.process_time() - self.cpu0, 1e-3)) if now - self.t0 > 5 else 1.0
        for name, estimate in self.estimates.items():
            if name in self.done:
                continue
            scale = 1.0 if name in self.measured else stretch
            if name == self.current:
                left += max(estimate * scale - (now - self.t_phase), 0.0)
            else:
                left += estimate * scale
        return left


def phase_estimates(n_dofs: int, route: str, compare: bool) -> dict:
    """Seconds per phase from the fitted laws of docs/benchmarks.md (issue 46 table: CPU ≈ dofs^1.43 for the
    direct route, 177k-dof bar at idle: factorization 4.2 s, Lanczos 7 s, the rest 7 s); the iterative route's
    loops refine their own estimates from their convergence rate."""
    s = (n_dofs / 176_868) ** 1.43
    lin = n_dofs / 176_868
    if route == "direct":
        out = {"factorization": 4.2 * s, "constraint modes": 0.5 * s, "fixed-interface modes": 7.0 * lin}
    else:
        out = {"multigrid setup": 6.0 * lin, "constraint modes": 20.0 * lin, "fixed-interface modes": 60.0 * lin}
    out["orthonormalization"] = 1.0 * lin
    if compare:
        out["free-free comparison"] = (5.0 if route == "direct" else 45.0) * lin
    out["invariants, stress field, file"] = 6.0 * lin
    return out


class InteriorSolver:
    """``K_ii⁻¹`` by the chosen route, the lowest fixed-interface modes, and a preconditioner for the comparison."""

    def __init__(self, model, k_ii, m_ii, interior, boundary, n_modes: int, requested: str, say, phases=None):
        self.k_ii, self.m_ii, self.say, self.phases = k_ii, m_ii, say, phases
        self.route, self._factor, self._theta = choose_route(interior.size, k_ii, boundary.size, n_modes, requested,
                                                             say)
        self._amg = None
        self._model, self._interior = model, interior
        self.statistics = {"route": self.route, "backend": backend_name() if self.route == "direct" else "PyAMG SA"}
        if phases is not None:
            names = list(phases.estimates)
            phases.estimates = phase_estimates(model.n_dofs, self.route, "free-free comparison" in names)
        if self.route == "direct":
            # K_ii held once: the upper triangle PARDISO reads serves the products too (SymmetricUpper), and M_ii is
            # read from M (PrincipalBlock); the caller drops its K_ii and M_ii before :meth:`prepare` factorizes
            upper = self._factor.upper
            self.k_ii = upper if upper is not None else k_ii
            self.m_ii = PrincipalBlock(model.mass, interior)

    def prepare(self) -> "InteriorSolver":
        """The numerical factorization, or the multigrid setup (after the caller has dropped its own references to
        ``K_ii`` and ``M_ii``: the direct route does not hold them while PARDISO factorizes)."""
        model, interior, say, phases = self._model, self._interior, self.say, self.phases
        self._model = None
        if self.route == "direct":
            if phases is not None:
                phases.start("factorization")
            say(f"factorizing interior stiffness ({interior.size} dofs, PARDISO)")
            self._factor.factorize()
            self.statistics["factor_nonzeros"] = self._factor.factor_nonzeros
            self.statistics["factor_bytes_estimated"] = self._factor.analyzed_bytes
        else:
            if phases is not None:
                phases.start("multigrid setup")
            from fem.iterative import AMGPreconditioner, node_blocks

            t0 = time.perf_counter()
            nodes, components = _dof_nodes(model, interior)
            self._amg = AMGPreconditioner(self.k_ii, _near_nullspace(model, interior), node_blocks(nodes, components),
                                          strength_theta=self._theta)
            self.statistics.update({"amg_levels": self._amg.sizes, "amg_operator_complexity": self._amg.complexity,
                                    "amg_strength_theta": self._theta})
            say(f"smoothed aggregation: levels {', '.join(str(s) for s in self._amg.sizes)} dofs, operator "
                f"complexity {self._amg.complexity:.2f}, {time.perf_counter() - t0:.0f} s")
        return self

    def solve(self, rhs: np.ndarray) -> np.ndarray:
        """``K_ii⁻¹ rhs`` (exact to round-off, or CG to :data:`CG_RTOL`)."""
        if self._factor is not None:
            # without PARDISO's iterative refinement: 1.6e-11 relative change at 177k dofs (round-off)
            return self._factor.solve(rhs, refine=False).reshape(rhs.shape)
        from fem.iterative import block_pcg

        rate = []

        def report(it, worst, elapsed):
            rate.append((it, worst))
            if self.phases is not None and worst < 1.0 and self.phases.current == "constraint modes":
                self.phases.fraction(min(1.0, np.log(worst) / np.log(CG_RTOL)))

        x = block_pcg(self.k_ii, rhs, self._amg, CG_RTOL, progress=report)
        self.statistics["cg_iterations"] = rate[-1][0] if rate else 0
        return x

    def precondition(self, rhs: np.ndarray) -> np.ndarray:
        return self.solve(rhs) if self._factor is not None else self._amg(rhs)

    def lowest_modes(self, n_solve: int):
        if self._factor is not None:
            from fem.eigen import block_shift_invert

            values, phi = block_shift_invert(self.k_ii, self.m_ii, n_solve,
                                             lambda rhs: self._factor.solve(rhs, refine=False))
            order = np.argsort(values)
            return values[order], phi[:, order]
        from fem.iterative import lobpcg_modes

        guard = max(4, n_solve // 4)
        start_block = [self._amg.coarse_start(self.m_ii, n_solve + guard)]  # handed over, not kept (lobpcg_modes)
        first = []

        def report(iterations, worst):
            self.say(f"  LOBPCG iteration {iterations}: worst relative residual {worst:.2g}")
            first.append(worst)
            if self.phases is not None and len(first) > 1 and worst < first[0]:
                self.phases.fraction(min(1.0, np.log(worst / first[0]) / np.log(LOBPCG_RTOL / first[0])))

        values, phi, worst, iterations = lobpcg_modes(self.k_ii, self.m_ii, start_block.pop, self._amg, n_solve,
                                                      rtol=LOBPCG_RTOL, progress=report)
        self.statistics.update({"lobpcg_iterations": iterations, "lobpcg_residual": worst})
        return values, phi

    def keep_solves_only(self) -> None:
        """Drop the interior matrices: what remains (the factor's solves, the V-cycle) is all the report's
        comparison uses (:func:`free_free_modes`)."""
        self.k_ii = self.m_ii = None

    def release(self) -> None:
        if self._factor is not None:
            self._factor.release()
            self._factor = None
        self._amg = None
        self.k_ii = self.m_ii = None


class BlockStiffness:
    """The independent-dof stiffness ``K`` from its blocks, ``K x = [K_ii x_i + K_ib x_b; K_ibᵀ x_i + K_bb x_b]``,
    on the interior solver's own ``K_ii`` (PARDISO's upper triangle on the direct route): the reduction then frees
    the model's ``K`` (:meth:`fem.model.FEModel.release_stiffness`, 0.57 GB at 667k dofs, issue 46) and still forms
    ``Tᵀ K T`` and the report's free–free modes. Equal to ``K @ x`` to round-off."""

    def __init__(self, k_ii, k_ib, k_bb: np.ndarray, interior: np.ndarray, boundary: np.ndarray):
        import scipy.sparse as sp

        self.k_ii, self.k_ib = k_ii, sp.csr_matrix(k_ib)
        self.k_bi = sp.csr_matrix(self.k_ib.T)
        self.k_bb = np.asarray(k_bb, dtype=float)
        self.interior, self.boundary = interior, boundary
        n = interior.size + boundary.size
        self.shape, self.dtype, self.ndim = (n, n), np.dtype(float), 2

    def __matmul__(self, x):
        x = np.asarray(x)
        x_i, x_b = x[self.interior], x[self.boundary]
        out = np.empty(x.shape)
        y_i = spmm(self.k_ii, x_i)
        y_i += self.k_ib @ x_b
        out[self.interior] = y_i
        del y_i
        out[self.boundary] = self.k_bi @ x_i + self.k_bb @ x_b
        return out

    def dot(self, x):
        return self @ x

    def toarray(self) -> np.ndarray:
        """The dense matrix (small models and tests)."""
        return self @ np.eye(self.shape[0])

    def inf_norm(self) -> float:
        from fem.linalg import abs_row_sums

        rows_i = abs_row_sums(self.k_ii) + abs_row_sums(self.k_ib)
        rows_b = abs_row_sums(self.k_bi) + np.abs(self.k_bb).sum(axis=1)
        return float(max(rows_i.max(initial=0.0), rows_b.max(initial=0.0)))


def _dof_nodes(model, interior):
    full = model.independent_dofs[interior]
    node_of = np.full(model.n_full_dofs, -1)
    component = np.full(model.n_full_dofs, -1)
    td = model.translation_dofs
    node_of[td.ravel()] = np.repeat(np.arange(td.shape[0]), 3)
    component[td.ravel()] = np.tile(np.arange(3), td.shape[0])
    return node_of[full], component[full]


def _rigid_fields(model) -> np.ndarray:
    """The six rigid-body displacement fields over the independent dofs (rotations about the centroid)."""
    from fem.rigid_body import rigid_body_fields
    from fem.spiders import skew

    tt, rr = rigid_body_fields(model.positions, model.translation_dofs, model.rotation_dofs, model.n_full_dofs)
    centre = model.positions.mean(axis=0)
    return np.hstack([tt, rr + tt @ skew(centre)])[model.independent_dofs]


def _near_nullspace(model, interior) -> np.ndarray:
    return _rigid_fields(model)[interior]


def free_free_modes(model, cb, start: np.ndarray, n_modes: int, say=None):
    """The lowest ``n_modes`` elastic free–free modes of the full model with the interior solver of ``cb`` (kept by
    ``craig_bampton(keep_solver=True)``): no second factorization (module docstring).

    ``start`` (n_dofs, ≥ n_modes): the reduced body's elastic modes over the independent dofs. Returns eigenvalues
    ((rad/s)², ascending) and M-normalized vectors over the independent dofs, and the method's description.
    """
    solver = cb.solver
    k = cb.stiffness_operator if cb.stiffness_operator is not None else model.stiffness
    m = model.mass
    n_b_modes = cb.n_normal_modes
    interior, boundary = cb.interior, cb.boundary
    psi = cb.basis[interior, n_b_modes:]
    s = cb.stiffness[n_b_modes:, n_b_modes:]
    w, v = np.linalg.eigh(0.5 * (s + s.T))
    keep = w > 1e-10 * w.max()
    s_plus = (v[:, keep] / w[keep]) @ v[:, keep].T  # the boundary's rigid motions (6) are S's nullspace
    rigid = _rigid_fields(model)
    m_rigid = spmm(m, rigid)
    gram = sla.cho_factor(rigid.T @ m_rigid)

    def k_plus(rhs, inner):
        rhs = rhs - m_rigid @ sla.cho_solve(gram, rigid.T @ rhs)  # no rigid-body resultant
        r_i = rhs[interior]
        u_b = s_plus @ (rhs[boundary] + psi.T @ r_i)
        u = np.empty_like(rhs)
        del rhs
        x_i = inner(r_i)
        del r_i
        x_i += psi @ u_b  # in place: each n × b temporary is 39 MB at 667k dofs (issue 46)
        u[interior] = x_i
        del x_i
        u[boundary] = u_b
        u -= rigid @ sla.cho_solve(gram, m_rigid.T @ u)  # M-orthogonal to the rigid-body modes
        return u

    if solver.route == "direct":
        from fem.eigen import block_shift_invert

        # random start, blocks of 8: cheaper than a first block of the reduced modes (177k-dof bar, 23 modes to 1e-3:
        # 7.2 s against 10.2 s CPU; the wider block costs more in orthogonalization than it saves in iterations)
        values, vectors = block_shift_invert(k, m, n_modes, lambda rhs: k_plus(np.asarray(rhs), solver.solve),
                                             sigma=0.0, tol=COMPARE_TOL)
        method = (f"shift-invert block Lanczos (σ = 0) with the one factorization of K_ii and the constraint modes "
                  f"(no second factorization), relative residual {COMPARE_TOL:g}")
    else:
        from fem.iterative import lobpcg_modes

        def x0():  # made inside the iteration, so that no copy of it stays referenced (issue 46: 0.62 GB at 3 M)
            return start - rigid @ sla.cho_solve(gram, m_rigid.T @ start)

        values, vectors, worst, _ = lobpcg_modes(
            k, m, x0, lambda r: k_plus(np.asarray(r), solver.precondition), n_modes, rtol=COMPARE_TOL_ITERATIVE,
            max_iterations=200,
            progress=(lambda it, w: say(f"  block iteration {it}: worst relative residual {w:.2g}")) if say else None)
        method = (f"locally optimal block preconditioned iteration with the multigrid V-cycle and the constraint "
                  f"modes in K⁺ (no factorization), started from the reduced modes, relative residual "
                  f"{COMPARE_TOL_ITERATIVE:g} (frequencies to 1e-6 relative, paired MAC to 1e-4; --compare-method "
                  f"full: a separate modal analysis)")
    order = np.argsort(values)
    return values[order], vectors[:, order], method
