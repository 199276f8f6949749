"""Newton matrices by *local* differences: each part of the residual differenced only over the coordinates it
depends on, evaluating only that part (for models with many coordinates, e.g. a flexible body of 150 modes).

The residual ``R = M(q) q̈ - Q - Q_v + Φ_qᵀ λ`` is a sum of parts with known couplings:

* **body terms** (inertia ``M̄ u̇``, quadratic velocity ``Q̄_v``, gravity, elastic ``-K_ff q_f - D_ff q̇_f``) depend on
  the body's own coordinates only: differenced body by body (``2 (7 + m)`` evaluations of that body's inertia
  kernel, not of the whole model);
* **force elements** with an analytic ``jacobian(ctx)`` (e.g. :class:`flexmbs.SlidingContact`) add their blocks;
* **marker-local force elements** (their loads depend on the model only through the states of their own markers:
  bushings, springs, point-plane contacts, point forces, elements with ``marker_local = True``) are differenced
  over the 6 + 6 pose and velocity directions of each of their markers, and the result chained with the markers'
  Jacobians ``J_x``, ``J_θ`` (``∂Q̄_a/∂δ_b = Σ_m ∂Q̄_a/∂x_m J_x,m + ∂Q̄_a/∂θ_m J_θ,m``): 12 evaluations of the element
  per marker instead of ``2 n_q`` evaluations of the model;
* other force elements are differenced over the coordinates of the bodies of their markers, evaluating only them;
* the **constraint term** ``Φ_qᵀ λ`` is differenced over the coordinates of jointed bodies only;
* **state elements** (hydraulics, controllers) over the coordinates of the bodies their measurements see.

This Jacobian is **approximate** where noted — the marker-local blocks keep the marker Jacobians fixed, i.e. they
leave out the geometric terms ``(∂J/∂q)ᵀ F`` of those loads and the dependence of marker velocities on positions
(the same approximation as the analytic blocks of :class:`flexmbs.SlidingContact`), and all blocks leave out the
derivative of ``Lᵀ`` times the load. Newton only uses the matrix: the residual, hence the solution, stays exact;
only the convergence rate can suffer (checked against the dense forward-difference Jacobian in
``tests/flexmbs/test_local_jacobian.py``).
"""
from __future__ import annotations

import numpy as np

from flexmbs.model.contacts import PlaneContact
from flexmbs.model.forces import Bushing, JointActuator, PointForce, RotationalSpringDamper, SpringDamper
from flexmbs.model.kernels import map_force, map_mass
from flexmbs.model.markers import MarkerState
from .newton_blocks import JacobianBlocks, dynamics_residual, state_blocks
from .system import _l_matrix, body_terms, measure

__all__ = ["local_difference_blocks", "MARKER_LOCAL_TYPES"]

# force elements whose loads depend on the model only through ctx.t and ctx.marker(m) for m in markers()
MARKER_LOCAL_TYPES = (Bushing, SpringDamper, PointForce, PlaneContact, RotationalSpringDamper, JointActuator)

_EPS = 1e-7


def _increment(x: float) -> float:
    return _EPS * max(1.0, abs(x))


def local_difference_blocks(system, q, v, qdd, z, lam, t, velocity: bool = True, blocks_type=None):
    """All Jacobian blocks ``K = ∂R/∂q``, ``C = ∂R/∂q̇``, ``D_z``, ``G_q``, ``G_v``, ``G_z`` at one state by local
    differences (see the module docstring); returns a :class:`flexmbs.engine.newton_blocks.JacobianBlocks`."""

    n_q, n_z = system.n_q, system.n_z
    K, C = np.zeros((n_q, n_q)), np.zeros((n_q, n_q))
    Gq, Gv = np.zeros((n_z, n_q)), np.zeros((n_z, n_q))
    ctx = system.context(q, v, t, lam)
    ctx.z = z  # elements with internal states (a joint friction's stick state) read them from the context
    count = 0
    for body in system.bodies:
        count += _body_blocks(system, body, ctx, qdd, K, C, velocity)
    quasi: dict = {}  # (a, b) -> [∂Q̄_a/∂δ_b, ∂Q̄_a/∂u_b], summed over the elements, mapped once
    for element in system.forces:
        if callable(getattr(element, "jacobian", None)):
            _collect(quasi, element.jacobian(ctx))
        elif isinstance(element, Bushing):
            _collect(quasi, _bushing_blocks(element, ctx))
        elif isinstance(element, MARKER_LOCAL_TYPES) or getattr(element, "marker_local", False):
            _collect(quasi, _marker_blocks(element, ctx, velocity))
        else:
            count += _element_blocks(system, element, ctx, K, C, velocity)
    _add_quasi_blocks(ctx, [(system.bodies[a], system.bodies[b], k_ab, c_ab)
                            for (a, b), (k_ab, c_ab) in quasi.items()], K, C, velocity)
    count += _constraint_blocks(system, ctx, K)
    if n_z:
        count += _state_element_blocks(system, ctx, z, K, C, Gq, Gv, velocity)
        res0 = _full_residual(system, q, v, qdd, z, lam, t)
        Dz, Gz, n_eval = state_blocks(system, q, v, qdd, z, lam, t, *res0)
        count += n_eval
    else:
        Dz, Gz = np.zeros((n_q, 0)), np.zeros((0, 0))
    return JacobianBlocks(K, C, Dz, Gq, Gv, Gz, count)


def _full_residual(system, q, v, qdd, z, lam, t):
    return dynamics_residual(system, q, v, qdd, z, lam, t)


# --- bodies ----------------------------------------------------------------------------------------------
def _body_residual(system, body, q_b, v_b, qdd_b, with_mass: bool = True) -> np.ndarray:
    """``Lᵀ M̄ L q̈_b - Lᵀ (Q̄_v + Q̄_gravity + Q̄_elastic)`` (7+m,) of one body alone (as System.forces_and_mass)."""
    kin = body.kinematics(q_b, v_b)
    gravity = system.model.gravity
    mbar, qbar = body_terms(body, kin, gravity if np.any(gravity) else None)
    n = body.n_coordinates
    force = np.empty(n)
    map_force(qbar, kin.G, force, 0)
    if not with_mass:
        return -force
    mass = np.zeros((n, n))
    map_mass(mbar, kin.G, mass, 0)
    return mass @ qdd_b - force


def _body_blocks(system, body, ctx, qdd, K, C, velocity) -> int:
    """Differences of the body's own terms over its own coordinates.

    For a flexible body only the 7 frame columns are differenced; its elastic columns carry the modal stiffness
    and damping ``K_ff``, ``D_ff`` (exact, diagonal) and the geometric stiffness where the body has it (exact,
    :meth:`flexmbs.model.bodies.FlexibleBody.geometric_jacobian`) and leave out the dependence of the inertia terms on ``q_f``
    and ``q̇_f`` (``∂(M̄ u̇ - Q̄_v)/∂q_f``: terms of order ``ω²``, ``ω̇``, ``ω q̇_f`` times the modal invariants, small
    against ``K_ff`` unless the body spins near its lowest elastic frequency) — approximate, see the module
    docstring."""
    sl = body.slice
    q_b, v_b, qdd_b = ctx.q[sl].copy(), ctx.v[sl].copy(), qdd[sl]
    res0 = _body_residual(system, body, q_b, v_b, qdd_b)
    n_diff = 7 if body.n_modes else body.n_coordinates
    if body.n_modes:
        elastic = np.arange(sl.start + 7, sl.stop)
        K[elastic, elastic] += body.modal_stiffness
        if getattr(body, "has_geometric_stiffness", False):  # issue 28: exact, as K_ff
            kin = ctx.kin[body.index]
            K[np.ix_(elastic, elastic)] += body.geometric_jacobian(kin, kin.A.T @ system.model.gravity)
            K[np.ix_(elastic, elastic)] += body.acceleration_stiffness(kin, qdd[sl])
        if velocity:
            C[elastic, elastic] += body.modal_damping
    for j in range(n_diff):
        h = _increment(q_b[j])
        q_b[j] += h
        K[sl, sl.start + j] += (_body_residual(system, body, q_b, v_b, qdd_b) - res0) / h
        q_b[j] = ctx.q[sl.start + j]
    if not velocity:
        return n_diff
    free0 = _body_residual(system, body, q_b, v_b, qdd_b, with_mass=False)
    for j in range(n_diff):
        h = _increment(v_b[j])
        v_b[j] += h
        C[sl, sl.start + j] += (_body_residual(system, body, q_b, v_b, qdd_b, with_mass=False) - free0) / h
        v_b[j] = ctx.v[sl.start + j]
    return 2 * n_diff


# --- force elements --------------------------------------------------------------------------------------
def _add_quasi_blocks(ctx, blocks, K, C, velocity) -> None:
    """Add quasi-coordinate blocks ``(body_a, body_b, ∂Q̄_a/∂δ_b, ∂Q̄_a/∂u_b)``: ``∂R/∂q = -L_aᵀ ∂Q̄_a/∂δ_b L_b``."""
    for body_a, body_b, k_ab, c_ab in blocks:
        la = _l_matrix(body_a, ctx.kin[body_a.index])
        lb = _l_matrix(body_b, ctx.kin[body_b.index])
        K[body_a.slice, body_b.slice] -= la.T @ k_ab @ lb
        if velocity and c_ab is not None:
            C[body_a.slice, body_b.slice] -= la.T @ c_ab @ lb


def _collect(quasi: dict, blocks) -> None:
    for body_a, body_b, k_ab, c_ab in blocks:
        key = (body_a.index, body_b.index)
        if key in quasi:
            quasi[key][0] = quasi[key][0] + k_ab
            if c_ab is not None:
                quasi[key][1] = c_ab if quasi[key][1] is None else quasi[key][1] + c_ab
        else:
            quasi[key] = [k_ab, c_ab]


def _bushing_blocks(element, ctx) -> list:
    """Analytic blocks of a :class:`flexmbs.Bushing` with marker i's axes held fixed: ``dF = -S_t (dx_j - dx_i)
    - S_ct (dv_j - dv_i)``, ``dT = -S_r (dθ_j - dθ_i) - S_cr (dω_j - dω_i)`` with ``S = R_i diag(k) R_iᵀ``; the
    moment arm ``(x_j - x_i) × F`` on body i is differentiated in ``F`` only (approximate: geometric terms left
    out)."""
    mi, mj = element.marker_i, element.marker_j
    si, sj = ctx.marker(mi), ctx.marker(mj)
    ri = si.R
    s_kt, s_ct = (ri * element.kt) @ ri.T, (ri * element.ct) @ ri.T
    s_kr, s_cr = (ri * element.kr) @ ri.T, (ri * element.cr) @ ri.T
    arm = cross_matrix(sj.x - si.x)
    # loads per marker as linear maps of the marker motions: (force rows, torque rows) on body a from motion of b
    sides = [(mj, sj, 1.0)] + ([(mi, si, -1.0)] if not mi.on_ground else [])
    sides = [sd for sd in sides if not sd[0].on_ground]
    out = []
    for ma, sa, sign_a in sides:
        for mb, sb, sign_b in sides:
            # dF = -sign_b S_t dx_b,  dT = -sign_b S_r dθ_b; on marker j: (F, T); on marker i: (-F, -T - arm F)
            def loads(s_t, s_r, jx_b, jth_b):
                d_force = -sign_b * (s_t @ jx_b)
                d_torque = -sign_b * (s_r @ jth_b)
                if sign_a > 0:
                    return sa.Jx.T @ d_force + sa.Jth.T @ d_torque
                return -(sa.Jx.T @ d_force) - sa.Jth.T @ (d_torque + arm @ d_force)
            k_ab = loads(s_kt, s_kr, sb.Jx, sb.Jth)
            c_ab = loads(s_ct, s_cr, sb.Jx, sb.Jth)
            out.append((ma.body, mb.body, k_ab, c_ab))
    return out


class _PerturbedContext:
    """A context whose marker states are overridden (the element sees only its markers and the time)."""

    def __init__(self, ctx, states: dict):
        self._ctx, self._states = ctx, states
        self.t, self.kin, self.q, self.v, self.lam, self.system = ctx.t, ctx.kin, ctx.q, ctx.v, ctx.lam, ctx.system
        self.z = getattr(ctx, "z", None)

    def marker(self, marker):
        state = self._states.get(marker.index)
        return state if state is not None else self._ctx.marker(marker)


def _loads(element, ctx) -> dict:
    out: dict = {}
    for body, gen in element.generalized_forces(ctx):
        if body.index in out:
            out[body.index] = out[body.index] + gen
        else:
            out[body.index] = np.array(gen, dtype=float)
    return out


def _difference(base: dict, new: dict, h: float) -> dict:
    keys = set(base) | set(new)
    return {k: (new.get(k, 0.0) - base.get(k, 0.0)) / h for k in keys}


def _marker_blocks(element, ctx, velocity) -> list:
    """Quasi-coordinate blocks of a marker-local element: the element differenced over each marker's pose
    (δx, δθ global) and velocity (δv, δω), chained with the marker Jacobians (held fixed: approximate)."""
    markers = [m for m in element.markers() if not m.on_ground]
    if not markers:
        return []
    base = _loads(element, ctx)
    k_acc: dict = {}
    c_acc: dict = {}
    for marker in markers:
        s = ctx.marker(marker)
        b = marker.body.index
        for kind in ("x", "th", "v", "w") if velocity else ("x", "th"):
            rows = s.Jx if kind in ("x", "v") else s.Jth  # (3, n_b)
            for k in range(3):
                h = _EPS * (max(1.0, float(np.abs(s.x).max())) if kind == "x" else 1.0)
                e = np.zeros(3)
                e[k] = h
                if kind == "x":
                    trial = MarkerState(s.x + e, s.R, s.Jx, s.Jth, s.v, s.w)
                elif kind == "th":
                    trial = MarkerState(s.x, s.R + cross_matrix(e) @ s.R, s.Jx, s.Jth, s.v, s.w)
                elif kind == "v":
                    trial = MarkerState(s.x, s.R, s.Jx, s.Jth, s.v + e, s.w)
                else:
                    trial = MarkerState(s.x, s.R, s.Jx, s.Jth, s.v, s.w + e)
                diff = _difference(base, _loads(element, _PerturbedContext(ctx, {marker.index: trial})), h)
                acc = k_acc if kind in ("x", "th") else c_acc
                for a, dq in diff.items():
                    key = (a, b)
                    block = np.outer(dq, rows[k])
                    acc[key] = acc[key] + block if key in acc else block
    bodies = ctx.system.bodies  # loads may also act on bodies of the element that carry no perturbed marker
    out = [(bodies[a], bodies[b], k_ab, c_acc.get((a, b))) for (a, b), k_ab in k_acc.items()]
    out += [(bodies[a], bodies[b], np.zeros_like(c_ab), c_ab) for (a, b), c_ab in c_acc.items() if (a, b) not in k_acc]
    return out


def cross_matrix(v: np.ndarray) -> np.ndarray:
    """Skew matrix ``ṽ`` (3, 3) with ``ṽ a = v × a``."""
    return np.array([[0.0, -v[2], v[1]], [v[2], 0.0, -v[0]], [-v[1], v[0], 0.0]])


def _element_bodies(element) -> list:
    seen = {}
    for m in element.markers():
        if not m.on_ground:
            seen[m.body.index] = m.body
    return list(seen.values())


def _coordinate_loads(system, element, ctx) -> np.ndarray:
    """The element's generalized force in coordinates (n_q,): ``Lᵀ Q̄`` per body."""
    out = np.zeros(system.n_q)
    for body, gen in element.generalized_forces(ctx):
        part = np.empty(body.n_coordinates)
        map_force(np.ascontiguousarray(gen, dtype=float), ctx.G[body.index], part, 0)
        out[body.slice] += part
    return out


def _perturbed(system, ctx, body, which: str):
    """``(j, h, context)`` with coordinate (``which = "q"``) or velocity (``"v"``) ``j`` of ``body`` moved by the
    forward-difference increment ``h``."""
    for j in range(body.slice.start, body.slice.stop):
        qp, vp = ctx.q.copy(), ctx.v.copy()
        x = qp if which == "q" else vp
        h = _increment(x[j])
        x[j] += h
        trial = system.context(qp, vp, ctx.t, ctx.lam)
        trial.z = getattr(ctx, "z", None)
        yield j, h, trial


def _element_blocks(system, element, ctx, K, C, velocity) -> int:
    """An element without a declared structure: differenced over the coordinates of its markers' bodies (or of
    all bodies if it names no markers), evaluating only the element."""
    bodies = _element_bodies(element) or list(system.bodies)
    base = _coordinate_loads(system, element, ctx)
    count = 0
    for which, matrix in (("q", K), ("v", C)) if velocity else (("q", K),):
        for body in bodies:
            for j, h, trial in _perturbed(system, ctx, body, which):
                matrix[:, j] -= (_coordinate_loads(system, element, trial) - base) / h
                count += 1
    return count


# --- constraints -----------------------------------------------------------------------------------------
def _constraint_blocks(system, ctx, K) -> int:
    """``∂(Φ_qᵀ λ)/∂q`` over the coordinates of bodies with joints (and the Euler-parameter rows, ``λ_p I``)."""
    if ctx.lam is None or not system.n_c:
        return 0
    lam = ctx.lam
    for k, body in enumerate(system.bodies):  # Euler-parameter normalization rows ½(pᵀp - 1): ∂(p λ_k)/∂p = λ_k I
        p_rows = np.arange(body.offset + 3, body.offset + 7)
        K[p_rows, p_rows] += lam[k]
    lam_rows = system.expand_multipliers(lam)  # by the rows of every joint (zero in dropped redundant rows)
    joints = [j for j in system.joints if np.any(lam_rows[j.offset:j.offset + j.n_equations])]
    if not joints:
        return 0
    bodies = {}
    for joint in joints:
        for m in (joint.marker_i, joint.marker_j):
            if not m.on_ground:
                bodies[m.body.index] = m.body
    n_b = len(system.bodies)
    lam_j = lam.copy()
    lam_j[:n_b] = 0.0  # the normalization rows are done above
    base = system.constraints(ctx)[1].T @ lam_j
    count = 0
    for body in bodies.values():
        for j in range(body.slice.start, body.slice.stop):
            qp = ctx.q.copy()
            h = _increment(qp[j])
            qp[j] += h
            trial = system.context(qp, ctx.v, ctx.t, lam)
            K[:, j] += (system.constraints(trial)[1].T @ lam_j - base) / h
            count += 1
    return count


# --- state elements --------------------------------------------------------------------------------------
def _state_element_terms(system, ctx, z, k, element, f=None, measured=None):
    """Coordinate loads (n_q,) and rates of one state element (``f``: given element forces instead of evaluating
    them, rates then ``None``; ``measured``: ``measure(ctx, element.measurements)`` if already done)."""
    cols = slice(system.z_offsets[k], system.z_offsets[k + 1])
    y, ydot, grads = measured if measured is not None else measure(ctx, element.measurements)
    rates = None
    if f is None:
        f = np.asarray(element.forces(ctx.t, z[cols], y, ydot), dtype=float).reshape(-1)
        rates = np.asarray(element.rates(ctx.t, z[cols], y, ydot), dtype=float).reshape(-1)
    qbars = {}
    for f_k, grad in zip(f, grads):
        for body, g in grad:
            qbars[body.index] = qbars.get(body.index, 0.0) + f_k * g
    out = np.zeros(system.n_q)
    for b, qbar in qbars.items():
        body = system.bodies[b]
        part = np.empty(body.n_coordinates)
        map_force(np.ascontiguousarray(qbar, dtype=float), ctx.G[b], part, 0)
        out[body.slice] += part
    return out, rates, cols, grads


_MEASURED_BLOCKS = ("rates_y", "rates_ydot", "forces_y", "forces_ydot")


def _analytic_measured_blocks(element, t, z_e, y, ydot):
    """The element's own ``∂(forces, rates)/∂(y, ẏ)`` (its ``jacobians``) if it gives all four, else ``None``."""
    jac_fn = getattr(element, "jacobians", None)
    if not callable(jac_fn):
        return None
    blocks = jac_fn(t, z_e, y, ydot)
    if blocks is None or any(key not in blocks for key in _MEASURED_BLOCKS):
        return None
    return {key: np.atleast_2d(np.asarray(blocks[key], dtype=float)) for key in _MEASURED_BLOCKS}


def _state_element_blocks(system, ctx, z, K, C, Gq, Gv, velocity) -> int:
    """Blocks of the state elements (circuits, controllers) over the coordinates of the bodies they measure.

    An element that gives ``∂/∂y`` and ``∂/∂ẏ`` of its forces and rates (``jacobians``, e.g. a hydraulic circuit)
    is evaluated once: a coordinate step moves only its measurements ``y``, ``ẏ`` and their gradients (cheap
    kinematics), and its forces and rates follow by the chain rule, ``Δf = F_y Δy + F_ẏ Δẏ`` - exact to first
    order like the difference itself, at one circuit evaluation instead of ``2 (7 + m)`` per measured body.
    Other elements are evaluated at every step."""
    count = 0
    for k, element in enumerate(system.elements):
        measured0 = measure(ctx, element.measurements)
        y0, ydot0, _ = measured0
        cols = slice(system.z_offsets[k], system.z_offsets[k + 1])
        f0 = np.asarray(element.forces(ctx.t, z[cols], y0, ydot0), dtype=float).reshape(-1)
        rates0 = np.asarray(element.rates(ctx.t, z[cols], y0, ydot0), dtype=float).reshape(-1)
        base, _, _, grads = _state_element_terms(system, ctx, z, k, element, f=f0, measured=measured0)
        bodies = {body.index: body for grad in grads for body, _ in grad}
        analytic = _analytic_measured_blocks(element, ctx.t, z[cols], y0, ydot0)
        for body in bodies.values():
            for which, matrix, gmat in (("q", K, Gq), ("v", C, Gv)) if velocity else (("q", K, Gq),):
                for j, h, trial in _perturbed(system, ctx, body, which):
                    if analytic is None:
                        loads, rates, _, _ = _state_element_terms(system, trial, z, k, element)
                        gmat[cols, j] += (rates - rates0) / h
                        count += 1
                    else:
                        measured = measure(trial, element.measurements)
                        dy, dydot = measured[0] - y0, measured[1] - ydot0
                        f = f0 + analytic["forces_y"] @ dy + analytic["forces_ydot"] @ dydot
                        loads = _state_element_terms(system, trial, z, k, element, f=f, measured=measured)[0]
                        gmat[cols, j] += (analytic["rates_y"] @ dy + analytic["rates_ydot"] @ dydot) / h
                    matrix[:, j] -= (loads - base) / h
    return count


def uses_local_blocks(system) -> bool:
    """Whether :func:`flexmbs.engine.jacobian.finite_difference_blocks` takes the local route: always, unless the model
    sets ``model.local_jacobian = False`` (then the dense forward differences over all coordinates, ``2 n_q + 1``
    model evaluations per Newton matrix, kept as the reference of ``tests/flexmbs/test_local_jacobian.py``).

    Local differences were first used only for bodies of more than 60 coordinates; measured CPU on an idle machine
    (issue 19), they pay on every model with a Newton matrix refreshed more than once: excavator 12 s digging
    8.7 → 7.2 s, clamp-locking stroke 24.1 → 19.2 s (Newton matrix 0.56 → 0.11 s), same step counts."""
    flag = getattr(system.model, "local_jacobian", None)
    return True if flag is None else bool(flag)
