"""Consistent initial conditions, constraint diagnostics and static equilibrium.

* positions: the closest configuration to the approximate placement that satisfies ``Φ(q, 0) = 0``
  (``min ½|q - q_0|²`` subject to ``Φ = 0``, solved by sequential quadratic programming);
* velocities: the closest ``q̇`` to the given one with ``Φ_q q̇ + Φ_t = 0``;
* accelerations and multipliers: ``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; -(Φ_q q̇)_q q̇ - 2 Φ_qt q̇ - Φ_tt]``;
* static equilibrium: ``Q(q, 0, z) = Φ_qᵀ λ``, ``Φ = 0``, ``g(q, 0, z) = 0`` by damped Newton.
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError, SimulationError

from .equations import constraint_row_owner, equation_names
from .redundancy import check_dropped_rows, scaled_rows
from .system import same_values

__all__ = ["assemble_positions", "project_velocities", "start_corrections", "initial_accelerations",
           "check_constraints", "static_equilibrium", "equation_names", "constraint_row_owner"]


def check_constraints(system, jacobian: np.ndarray, tol: float = 1e-9) -> None:
    """Raise :class:`ModelError` naming the joints of redundant (dependent) constraint rows."""
    if jacobian.shape[0] == 0:
        return
    u, s, _ = np.linalg.svd(scaled_rows(jacobian), full_matrices=True)
    rank = int(np.sum(s > tol * max(1.0, s[0])))
    if rank == jacobian.shape[0]:
        return
    null = u[:, rank:]
    weight = np.sqrt((null**2).sum(axis=1))
    rows = np.flatnonzero(weight > 0.1 * weight.max())
    owners = list(dict.fromkeys(constraint_row_owner(system, int(r)).split(" (row")[0] for r in rows))  # (once each)
    raise ModelError(
        f"redundant or inconsistent constraints: {jacobian.shape[0] - rank} constraint equation(s) depend on the "
        f"others, the system is singular; involved: {'; '.join(owners)}. Replace a joint by one that removes fewer "
        "freedoms (e.g. revolute -> spherical or universal) or use Model(planar=True) for planar mechanisms"
    )


def correction_weights(system) -> np.ndarray:
    """Inverse weights (n_q,) of the initial-condition corrections: elastic coordinates are 10⁶ times stiffer to
    move than frame coordinates, so an approximate placement is fixed by moving frames, not by deforming bodies."""
    inverse = np.ones(system.n_q)
    for body in system.bodies:
        inverse[body.offset + 7:body.offset + body.n_coordinates] = 1e-6
    return inverse


ROUND_OFF_STALL = 1e-9  # m: a Newton stalled below this is at round-off (large coordinates), not inconsistent


def assemble_positions(system, q0: np.ndarray, t: float = 0.0, tol: float = 1e-12, max_iter: int = 50):
    """Closest ``q`` to ``q0`` with ``Φ(q, t) = 0``; raises :class:`ModelError` if the constraints cannot be met."""
    dropped = system.select_rows(q0, t)  # an independent set of equations at the given placement
    q = _assemble(system, q0, t, tol, max_iter)
    # the rank at the assembled position decides (an approximate placement may hide or fake a dependency); a
    # placement that already met the constraints was not moved, and the same rows are found there again
    if not same_values(q, q0):
        dropped = system.select_rows(q, t)
    if dropped.size:
        q = _assemble(system, q, t, tol, max_iter)
        phi, jac = system.all_constraints(system.context(q, np.zeros_like(q), t))
        check_dropped_rows(system, phi, jac, system.row_keep, dropped)
        system.report_redundancy()
    return q


def _assemble(system, q0: np.ndarray, t: float, tol: float, max_iter: int):
    q = q0.copy()
    phi, jac = constraints(system, q, t)
    if np.abs(phi).max(initial=0.0) < tol:  # placed consistently (the first test of the loop below)
        return q
    weight = 1.0 / correction_weights(system)
    n_q, n_c = system.n_q, system.n_c
    kkt = np.zeros((n_q + n_c, n_q + n_c))
    previous = np.inf
    for _ in range(max_iter):
        residual = np.max(np.abs(phi), initial=0.0)
        # converged, or stalled at round-off (no further decrease) below ROUND_OFF_STALL: also satisfied
        if residual < tol or (residual < ROUND_OFF_STALL and residual >= 0.5 * previous):
            return q
        previous = residual
        kkt[:n_q, :n_q] = np.diag(weight)
        kkt[:n_q, n_q:] = jac.T
        kkt[n_q:, :n_q] = jac
        rhs = np.concatenate([-weight * (q - q0), -phi])
        try:
            step = np.linalg.solve(kkt, rhs)[:n_q]
        except np.linalg.LinAlgError:
            step = np.linalg.lstsq(kkt, rhs, rcond=None)[0][:n_q]
        q = q + step
        phi, jac = constraints(system, q, t)
    worst = np.argsort(-np.abs(phi))[:3]
    culprits = "; ".join(f"{constraint_row_owner(system, int(r))}: {phi[r]:.3g}" for r in worst)
    raise ModelError(f"cannot assemble the model: the constraints cannot all be satisfied near the given placement "
                     f"(largest residuals: {culprits}); check marker positions and joint axes")


def constraints(system, q, t: float = 0.0, rate: bool = False):
    """``Φ``, ``Φ_q`` (kept rows) at ``(t, q)``, or with ``rate`` ``Φ_t``: on the compiled plan once the system has
    one (:func:`flexmbs.engine.evaluate.evaluator`, built by the first consistent accelerations: a plan built before
    the positions are assembled would give springs without a free length the unassembled one), else on
    :meth:`System.constraints` (the assembly of the positions)."""
    ev = getattr(system, "_evaluator", None)
    if ev is not None:
        return ev.constraint_rate(q, t) if rate else ev.constraints(q, t)
    if rate:
        return system.constraint_rate(q, np.zeros_like(q), t)
    found = getattr(system, "rows_at", None)  # System.select_rows evaluated them at this (q, t) already
    if found is not None and system.row_keep is None and found[1] == t and same_values(found[0], q):
        return found[2].copy(), found[3].copy()
    return system.constraints(system.context(q, np.zeros_like(q), t))


def project_velocities(system, q: np.ndarray, v0: np.ndarray, t: float = 0.0) -> np.ndarray:
    """Closest ``q̇`` to ``v0`` (weighted, see :func:`correction_weights`) satisfying ``Φ_q q̇ + Φ_t = 0``."""
    _, jac = constraints(system, q, t)
    if not np.count_nonzero(v0) and not rheonomic(system) and np.isfinite(jac).all():  # (v0.any(): ≈ 2 µs more)
        return v0.copy()  # at rest with Φ_t = 0: the test below finds Φ_q q̇ + Φ_t = 0 exactly (without its product)
    phi_t = constraints(system, q, t, rate=True) if rheonomic(system) else np.zeros(jac.shape[0])
    rhs = jac @ v0 + phi_t
    if not rhs.any():  # the velocities given satisfy the constraints exactly (a start at rest): no correction
        return v0.copy()
    inverse = correction_weights(system)
    scaled = jac * inverse  # Φ_q W⁻¹
    correction = scaled.T @ np.linalg.solve(scaled @ jac.T, rhs)
    return v0 - correction


def rheonomic(system) -> bool:
    """Whether ``Φ`` may depend on time: prescribed motions, or joints with their own (Python) equations. The
    library joints' rows do not (:class:`flexmbs.engine.constraint_kernels.CompiledConstraints`), and without these
    ``Φ_t`` is exactly zero."""
    return bool(getattr(system, "driven_joints", True) or getattr(system, "fallback_joints", True))


def initial_accelerations(system, q, v, z, t: float = 0.0, ctx=None):
    """Consistent ``q̈`` (n_q,), ``λ`` (n_c,) and ``ż`` (n_z,) at ``(t, q, q̇, z)``.

    On the compiled residual (:class:`flexmbs.engine.evaluate.Evaluator`, the run's own equations, its Python
    parts called back). ``ctx``, if given, gets the multipliers ``λ``.
    """
    from .evaluate import evaluator

    ev = evaluator(system, q, v, z, t)
    ev.follow_angles(q, v, t)
    found = ev.accelerations(t, q, v, z)  # (finite q̈ and λ, or None: the state rates' test remains)
    if found is None or not np.isfinite(found[2]).all():
        raise ModelError("the mass matrix is singular on the constraint manifold; a body without mass or "
                         "inertia in a free direction?")
    if ctx is not None:
        ctx.lam = found[1]
    return found


NEUTRAL_RCOND = 1e-10  # smallest/largest singular value of the equilibrated static matrix: singular below this


START_TOL = 1e-8  # m, rad, m/s, rad/s: a start moved more than this by assembly or projection is reported


def start_corrections(system, q0, v0, q, v, tol: float = START_TOL) -> str:
    """What the consistent start changed of the positions and velocities the user gave ('' when nothing beyond
    ``tol``): per body, how far its frame moved (mm) and turned (°), and how its velocity and angular velocity
    changed (from → to, m/s and rad/s; only for bodies given a velocity: a body placed at rest lets the joints and
    their prescribed motions set its start velocity). Exudyn starts where the user placed the bodies; this start is
    projected onto the joints, so the difference is said (issue 48: a slider moved 2.4 mm, a crank turned 3.6° and
    slowed from 6 to 5.93 rad/s, silently)."""
    if same_values(q, q0) and same_values(v, v0):  # placed consistently: nothing was corrected
        return ""
    from flexmbs.model.rotations import g_matrix, rotation_matrix
    parts = []
    for body in system.bodies:
        o = body.offset
        said = []
        moved = float(np.linalg.norm(q[o:o + 3] - q0[o:o + 3]))
        p0, p1 = q0[o + 3:o + 7] / np.linalg.norm(q0[o + 3:o + 7]), q[o + 3:o + 7]
        turned = 2.0 * float(np.arccos(min(1.0, abs(float(p0 @ p1)))))
        if moved > tol:
            said.append(f"moved {moved * 1e3:.3g} mm")
        if turned > tol:
            said.append(f"turned {np.degrees(turned):.3g}°")
        if np.any(v0[o:o + 7]):  # a body placed at rest lets the joints (drivers) set its start motion
            omega0 = rotation_matrix(p0) @ (2.0 * g_matrix(p0) @ v0[o + 3:o + 7])
            omega1 = rotation_matrix(p1) @ (2.0 * g_matrix(p1) @ v[o + 3:o + 7])
            for what, x0, x1, unit in (("velocity", v0[o:o + 3], v[o:o + 3], "m/s"),
                                       ("angular velocity", omega0, omega1, "rad/s")):
                if np.linalg.norm(x1 - x0) > tol * max(1.0, float(np.linalg.norm(x0))):
                    said.append(f"{what} {np.linalg.norm(x0):.4g} → {np.linalg.norm(x1):.4g} {unit} (changed by "
                                f"{np.linalg.norm(x1 - x0):.3g} {unit})")
        if said:
            parts.append(f"body {body.name!r} " + ", ".join(said))
    if not parts:
        return ""
    return ("the start given does not satisfy the joints and was corrected onto them: " + "; ".join(parts)
            + " (place the bodies consistently, or set their velocities to a consistent motion, to start exactly "
              "where you placed them)")


STATIC_RTOL = 1e-9  # force imbalance relative to the model's force scale at which the static solver stops


def force_scale(system, applied: np.ndarray, reaction: np.ndarray) -> float:
    """The model's force scale (N, N·m, modal force): the largest load on a coordinate,
    ``max_i |Q_i| + |Φ_qᵀλ|_i``, and at least the total weight ``Σ m_b |g|`` (gravity and a spring cancel inside
    ``Q`` at rest: a hanging weight's net load is zero there)."""
    weight = float(np.linalg.norm(system.model.gravity)) * sum(float(b.mass) for b in system.bodies)
    load = float(np.max(np.abs(applied) + np.abs(reaction), initial=0.0))
    return max(load, weight, 1e-300)


def relative_imbalance(unbalanced: np.ndarray, scale: float) -> np.ndarray:
    """Per-coordinate force imbalance ``|Q − Φ_qᵀλ|_i`` (``unbalanced``, = ``M q̈``, either sign) over the
    model's force ``scale`` (:func:`force_scale`).

    Scale-free: a 5 g beam under gravity and a 5 t boom get the same verdict for the same relative imbalance; an
    absolute threshold does not (the static solver stopped at 1e-9 N, where a 5 g beam's rotation still accelerated
    at 1.2e-5 rad/s², more than the 1e-6 an equilibrium check asked).
    """
    return np.abs(unbalanced) / scale


def relative_rates(zdot: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Element state rates relative to the states, ``|ż| / max(|z|, 1)`` (1/s)."""
    return np.abs(zdot) / np.maximum(np.abs(z), 1.0) if zdot.size else np.zeros(0)


def static_equilibrium(system, q0, z0, t: float = 0.0, tol: float = STATIC_RTOL, max_iter: int = 60):
    """Static equilibrium ``(q, z, λ)`` near ``(q0, z0)`` by damped Newton with finite-difference stiffness.

    Converged when every coordinate's force imbalance is below ``tol`` relative to the loads there
    (:func:`relative_imbalance`), every state rate below ``tol`` relative to the state (:func:`relative_rates`)
    and the constraints hold to 1e-10 (m, rad): the same measures, with 1000× margin, that
    :func:`flexmbs.linear.operating_point.check_equilibrium` asks of an equilibrium.
    """
    from .evaluate import evaluator

    n_q, n_z, n_c = system.n_q, system.n_z, system.n_c
    q, z, lam = q0.copy(), z0.copy(), np.zeros(n_c)
    v = np.zeros(n_q)
    acc = np.zeros(n_q)
    ev = evaluator(system, q, v, z, t)  # the compiled residual (the run's, Python parts called back)
    if n_c:
        # the reactions at rest as the first multipliers: ∂(Φ_qᵀλ)/∂q then carries the stiffness of the loads the
        # joints hold (gravity on a pendulum) from the first Newton step; with λ = 0 it does not, and a pendulum
        # under a torque was stepped to the inverted branch
        try:
            lam = initial_accelerations(system, q, v, z, t)[1]
        except ModelError:
            lam = np.zeros(n_c)

    def residual(q_, z_, lam_):
        res, zdot, phi, jac, _ = ev.residual(t, q_, v, acc, z_, lam_)
        return np.concatenate([res, zdot, phi]), jac

    def scale_of(r_, jac_, lam_):
        reaction = jac_.T @ lam_ if n_c else np.zeros(n_q)
        return force_scale(system, reaction - r_[:n_q], reaction)  # r = −Q + Φ_qᵀλ at rest

    def converged(r_, jac_, z_, lam_):
        force = relative_imbalance(r_[:n_q], max(scale_of(r_, jac_, lam_), start_load))
        return (np.max(force, initial=0.0) <= tol and np.max(relative_rates(r_[n_q:n_q + n_z], z_), initial=0.0)
                <= tol and np.abs(r_[n_q + n_z:]).max(initial=0.0) < 1e-10)

    r, jac = residual(q, z, lam)
    start_load = float(np.max(np.abs(r[:n_q]), initial=0.0))  # the unbalanced load at the start sets the scale too
    for _ in range(max_iter):
        if converged(r, jac, z, lam):
            return q, z, lam
        blocks = static_blocks(ev, t, q, z, lam)
        mat = np.block([[blocks["K"], blocks["Dz"], jac.T], [blocks["Gq"], blocks["Gz"], np.zeros((n_z, n_c))],
                        [jac, np.zeros((n_c, n_z + n_c))]])
        step = _scaled_lstsq(mat, -r)
        # line search on a scale-free residual: forces relative to the model's largest load, state rates relative
        # to the states, constraints in m and rad. Forces in N against constraints in m let the constraint
        # curvature of a full rotation step (m) veto every step of a 5e-5 kg pendulum (loads 5e-4 N): Newton crept
        load = max(scale_of(r, jac, lam), start_load)
        weight = np.concatenate([np.full(n_q, 1.0 / load), 1.0 / np.maximum(np.abs(z), 1.0), np.ones(n_c)])
        norm = np.linalg.norm(weight * r)
        alpha = 1.0
        while alpha > 1e-4:
            r_new, jac_new = residual(q + alpha * step[:n_q], z + alpha * step[n_q:n_q + n_z],
                                      lam + alpha * step[n_q + n_z:])
            if np.linalg.norm(weight * r_new) < (1.0 - 0.25 * alpha) * norm or alpha < 2e-4:
                break
            alpha *= 0.5
        q, z, lam = q + alpha * step[:n_q], z + alpha * step[n_q:n_q + n_z], lam + alpha * step[n_q + n_z:]
        r, jac = r_new, jac_new
    if converged(r, jac, z, lam):
        return q, z, lam
    names = equation_names(system)
    worst = int(np.argmax(np.abs(r)))
    raise SimulationError(f"static equilibrium not found in {max_iter} Newton iterations; largest residual "
                          f"{r[worst]:.3g} in {names[worst]}{_neutral_note(mat, names, n_q, n_z)}")


def static_blocks(ev, t, q, z, lam) -> dict:
    """``K = ∂R/∂q``, ``D_z``, ``G_q``, ``G_z`` at rest: the run's compiled difference blocks
    (:meth:`flexmbs.engine.evaluate.Evaluator.blocks`)."""
    zero = np.zeros(q.size)
    return ev.blocks(t, q, zero, zero, z, lam)


def _neutral_note(mat: np.ndarray, names: list, n_q: int, n_z: int) -> str:
    """Why Newton could not settle when the static matrix is singular along element states: ``"; the equilibrium is
    not unique: ... can change together"`` naming them (e.g. the chamber pressures behind a closed-centre valve,
    which any pair with the same cylinder force keeps in equilibrium), or ``""``."""
    scaled, _, cols = _equilibrated(mat)
    _, sigma, vt = np.linalg.svd(scaled)
    if sigma[-1] > NEUTRAL_RCOND * sigma[0]:
        return ""
    direction = np.abs(vt[-1] * cols)
    direction /= direction.max()
    states = [k for k in range(n_q, n_q + n_z) if direction[k] > 0.1]
    if not states:
        return ""
    listed = ", ".join(names[k].replace("state ", "") for k in states)
    return (f"; the equilibrium is not unique: {listed} can change together without a residual (a closed valve "
            "trapping chamber pressures: any pair giving the same force holds); give the circuit a leakage path "
            "(an Orifice) or linearize about a run's state")


def _scaled_lstsq(mat: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Least-squares Newton step with rows and columns equilibrated first: forces (N), constraint rows (m) and
    modal coordinates differ by many orders, which alone gave a preloaded column's static matrix a condition number
    of 5e14 — at the truncation limit of ``lstsq``, so a direction was dropped and the constraint residual stalled
    at 8e-10; equilibrated, 2e7."""
    scaled, rows, cols = _equilibrated(mat)
    return cols * np.linalg.lstsq(scaled, rhs * rows, rcond=None)[0]


def _equilibrated(mat: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(D_r mat D_c, d_r, d_c)``: ``mat`` with its rows, then its columns, scaled to unit length."""
    rows = 1.0 / np.maximum(np.linalg.norm(mat, axis=1), 1e-300)
    scaled = mat * rows[:, None]
    cols = 1.0 / np.maximum(np.linalg.norm(scaled, axis=0), 1e-300)
    return scaled * cols[None, :], rows, cols
