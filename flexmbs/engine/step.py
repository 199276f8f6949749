"""The compiled step's equations (issue 26), on the flat arrays of :mod:`flexmbs.engine.plan`:

* residual ``M q̈ - Q - Q_v + Φ_qᵀ λ``, ``ż``, ``Φ``, ``Φ_q`` (:func:`residual`) from the kernels of
  :mod:`flexmbs.model.kernels` (body kinematics, rigid-body terms, marker states, library-joint rows), the element
  measurements (distances; joint and marker coordinates, :func:`measure`) and the state elements' own compiled
  kernels, called through their C addresses (docs/element-protocol.md, "compiled elements");
* Jacobian blocks ``K, C, D_z, G_q, G_v, G_z`` by forward differences (:func:`jacobian_blocks`), reused across steps
  and refreshed when Newton converges slowly or fails.

The generalized-α Newton step, its error estimate and the step-size control are in :mod:`flexmbs.engine.loop`; the
Newton matrix is factorized once per step (:func:`flexmbs.engine.lapack.factor`: an inline LU below
:data:`~flexmbs.engine.lapack.SMALL` unknowns, LAPACK's ``dgetrf`` above) and reused in every iteration (numba's
``np.linalg.solve`` would factorize at every iteration). Signals that are Python functions of time are evaluated by
one callback per new time (:func:`signals_at`).
"""
from __future__ import annotations

import math

import numpy as np

from numba import types
from numba.extending import intrinsic

from flexmbs_jit import apart, njit

from flexmbs.model.kernels import (INLINE, INNER, body_kinematics, body_rotation, constraint_rows, constraint_value,
                                   euler_row, line_load, map_forces, marker_positions, marker_states, rigid_terms)

from .flex_terms import flexible_terms
from .force_elements import apply_coordinate_load, driver_rows, force_element, joint_coordinate
from .force_kernels import address_call, call_force
from .plan_fields import PLAN_TYPE  # noqa: F401 (the plan's type and its fields, registered before any compile)

# return codes of advance()
OUTPUT, END, NEWTON_FAILED, ERROR_FAILED, STEP_TOO_SMALL, MAX_STEPS = 0, 1, 2, 3, 4, 5
# stats slots
S_STEPS, S_REJECTED, S_NEWTON_FAIL, S_ITER, S_JAC, S_FACT, S_RES, S_WORST, S_LAST_ITERS = range(9)
# scalar slots: t, h, h_previous, last signal time, error of the last accepted step, h of the last attempt, next
# output time
T, H, H_PREV, T_SIG, ERR, H_TRY, NEXT = range(7)
# flag slots
F_FRESH, F_HALVED, F_REJECTED, F_PREV = range(4)
# element measurement kinds (flexmbs.model.measurements): Distance, JointCoordinate "rotation" and "translation"
# (``which`` 0 and 1 of force_elements.joint_coordinate), MarkerCoordinate (its axis in place of a second marker)
DISTANCE, ROTATION, TRANSLATION, MARKER = 0, 1, 2, 3


@intrinsic
def call_kernel(typingctx, address, mode, t, z, y, ydot, sig, fpar, ipar, rates, forces, aux):
    """Call the element kernel at ``address`` (C signature of docs/element-protocol.md) with the arrays' data
    pointers. The addresses live in one int64 array, so a model's number of elements is not part of the compiled
    step's type (a tuple of function pointers was: every new count compiled the whole step again, ≈ 1.5 min)."""
    return types.void(address, mode, t, z, y, ydot, sig, fpar, ipar, rates, forces, aux), address_call


@apart(python=False, counted=False)  # allocates nothing (the force elements count: force_elements)
def residual(t, q, v, qdd, z, lam, P, res, zdot, phi, jac, mass, with_constraints):
    """``res = M q̈ - Q - Q_v (+ Φ_qᵀ λ)``, ``ż``, ``Φ`` and ``Φ_q`` of the kept rows; ``mass`` is ``M(q)``
    (``P``: the plan, :mod:`flexmbs.engine.plan_fields`). The bodies' mass blocks are written whole; the entries
    between two bodies are never written: ``mass`` comes zeroed (every caller's is), not zeroed at every call."""
    # (the callees that take the plan read their own fields: a call passing tens of arrays is code in every caller)
    offsets, n_modes, marker_body = P.offsets, P.n_modes, P.marker_body
    meas_a, meas_b, meas_kind, zscale = P.meas_a, P.meas_b, P.meas_kind, P.zscale
    A, omega, X, R, JX, JTH, V, W = P.A, P.omega, P.X, P.R, P.JX, P.JTH, P.V, P.W
    packed, y, fy, force = P.packed, P.y, P.fy, P.force
    mass_mode, mq_kept = P.mass_mode[0], P.mq_kept  # 0: M q̈ from M(q); 1: also keep it; 2: the kept one
    body_kinematics(q, v, offsets, A, P.G, omega)
    _zero(packed)
    rigid_terms(P, mass)
    if P.fx_bodies.size:
        flexible_terms(q, v, P, mass, packed)
    marker_states(q, v, A, omega, marker_body, offsets, n_modes, P.m_local, P.m_orient, P.s_t, P.s_r, X, R, JX, JTH,
                  V, W)
    py_on = P.py_control[1] != 0
    if py_on:  # the Python parts (callbacks, flexmbs.engine.callbacks): only if coupled to the column differenced
        python_parts(t, q, v, z, lam, P)
    measurements(P)
    element_kernels(t, z, P, zdot)
    for i in range(z.size):
        zdot[i] /= zscale[i]
    if py_on:
        z_rows, z_py = P.py_z_rows, P.py_zdot
        for k in range(z_rows.size):
            zdot[z_rows[k]] = z_py[k]
    for k in range(meas_a.size):  # (∂y/∂q̄)ᵀ f on both markers' bodies
        a, b = meas_a[k], meas_b[k]
        if meas_kind[k] == DISTANCE:  # f ∂L/∂x_b = (f / L) (x_b - x_a) at b, its opposite at a
            line_load(b, a, fy[k] / y[k], X[b, 0] - X[a, 0], X[b, 1] - X[a, 1], X[b, 2] - X[a, 2], JX, marker_body,
                      n_modes, packed)
        else:
            measurement_load(meas_kind[k], a, b, fy[k], X, R, JX, JTH, marker_body, n_modes, packed)
    rows_done = False
    if P.f_friction[0]:  # friction reads the joint reactions: the rows (and ji, jj) before the forces
        _constraint_block(q, P, phi, jac)
        rows_done = True
    if P.f_kind.size:
        force_elements(q, lam, P)
    if P.k_addr.size:  # (a call with its 18 arrays costs even when there is no kernel)
        force_kernels(0, t, q, v, A, omega, X, R, V, W, JX, JTH, packed, P.dims, P.k_addr, P.k_index, P.k_fpar,
                      P.k_ipar, P.k_out)
    if py_on:  # the Python parts' loads (evaluated above: docs/element-protocol.md)
        py_packed = P.py_loads
        for b in range(packed.shape[0]):
            for n in range(packed.shape[1]):
                packed[b, n] += py_packed[b, n]
    map_forces(P)
    n_q = q.size
    if mass_mode == 2:
        for i in range(n_q):
            res[i] = mq_kept[i] - force[i]
    else:
        _mass_times(mass, qdd, force, res)
        if mass_mode == 1:
            for i in range(n_q):
                mq_kept[i] = res[i] + force[i]
    if not with_constraints:
        return
    if not rows_done:
        _constraint_block(q, P, phi, jac)
    _add_reactions(jac, lam, P.keep.size, res)


@njit(**INLINE)
def _mass_times(mass, qdd, force, res):
    """``res = M q̈ - Q`` row by row, each row's sum ``-Q_i + Σ_j M_ij q̈_j`` in the order of ``j``; four rows at a
    time, so that their sums (chains of dependent additions) overlap: the same operations, the same bits."""
    n = res.size
    i = 0
    while i + 4 <= n:
        s0, s1, s2, s3 = -force[i], -force[i + 1], -force[i + 2], -force[i + 3]
        for j in range(n):
            x = qdd[j]
            s0 += mass[i, j] * x
            s1 += mass[i + 1, j] * x
            s2 += mass[i + 2, j] * x
            s3 += mass[i + 3, j] * x
        res[i], res[i + 1], res[i + 2], res[i + 3] = s0, s1, s2, s3
        i += 4
    while i < n:
        s = -force[i]
        for j in range(n):
            s += mass[i, j] * qdd[j]
        res[i] = s
        i += 1


@njit(**INLINE)
def _add_reactions(jac, lam, n_c, res):
    """``res += Φ_qᵀ λ`` of the first ``n_c`` rows, each column's sum in the order of the rows and added at the end
    (four columns at a time, as :func:`_mass_times`)."""
    n = res.size
    j = 0
    while j + 4 <= n:
        s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
        for r in range(n_c):
            x = lam[r]
            s0 += jac[r, j] * x
            s1 += jac[r, j + 1] * x
            s2 += jac[r, j + 2] * x
            s3 += jac[r, j + 3] * x
        res[j] += s0
        res[j + 1] += s1
        res[j + 2] += s2
        res[j + 3] += s3
        j += 4
    while j < n:
        s = 0.0
        for r in range(n_c):
            s += jac[r, j] * lam[r]
        res[j] += s
        j += 1


@apart(python=False)  # (counts references: the multipliers of all rows are a new array)
def force_elements(q, lam, P):
    """The force elements' loads into ``P.packed`` and their outputs into ``P.f_out``; friction reads the reactions
    of all rows (on redundant rows split by the minimum norm, ``Context.full_lam``)."""
    lam_f = lam
    keep = P.keep
    if P.f_friction[0] and keep.size < P.phi_all.size:
        lam_f = all_multipliers(keep, P.jac_all, lam)
    f_kind, f_out = P.f_kind, P.f_out
    for k in range(f_kind.size):
        force_element(k, f_kind, P.f_mi, P.f_mj, P.f_sig, P.f_which, P.f_par, P.f_rows, P.sig, q, lam_f, P.A, P.X,
                      P.R, P.JX, P.JTH, P.V, P.W, P.ji, P.jj, P.offsets, P.marker_body, P.n_modes, P.packed, f_out[k])


@apart(python=False, counted=False)
def integrands(t, q, v, z, P, zdot):
    """The elements' integrands at a state into ``P.aux``: body kinematics, marker states,
    measurements and the element kernels, the part of :func:`residual` before the loads. They depend on
    ``t, z, y, ẏ`` alone (:class:`flexmbs.engine.integrals.Integrals` evaluates them the same way), so masses,
    forces and constraints are left out (on the hydraulic race: 1.3 µs instead of a 2.5 µs residual per accepted
    step)."""
    offsets, A, omega = P.offsets, P.A, P.omega
    body_kinematics(q, v, offsets, A, P.G, omega)
    marker_states(q, v, A, omega, P.marker_body, offsets, P.n_modes, P.m_local, P.m_orient, P.s_t, P.s_r, P.X, P.R,
                  P.JX, P.JTH, P.V, P.W)
    measurements(P)
    element_kernels(t, z, P, zdot)
    control = P.py_control
    if control[2] != 0:  # Python state elements' integrands (column code -3: flexmbs.engine.callbacks)
        control[0] = -3
        python_parts(t, q, v, z, z[:0], P)
        control[0] = -1


@apart(python=False, counted=False)
def measurements(P):
    """Every element measurement into ``P.y``, ``P.ydot``: distances here (``Distance.evaluate``), the others by
    :func:`measure`, at the marker states of ``P``. (The plan, not its arrays one by one: numba passes an array as
    5 + 2·ndim words, and the ten arrays were ≈ 80 words copied at every residual.)"""
    meas_a, meas_b, meas_kind, X, V, R, W, angle_ref, y, ydot = P.meas_a, P.meas_b, P.meas_kind, P.X, P.V, P.R, P.W, \
        P.angle_ref, P.y, P.ydot
    for k in range(meas_a.size):
        a, b = meas_a[k], meas_b[k]
        if meas_kind[k] == DISTANCE:
            d0, d1, d2 = X[b, 0] - X[a, 0], X[b, 1] - X[a, 1], X[b, 2] - X[a, 2]
            length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
            y[k] = length
            ydot[k] = (d0 * (V[b, 0] - V[a, 0]) + d1 * (V[b, 1] - V[a, 1]) + d2 * (V[b, 2] - V[a, 2])) / length
        else:
            measure(meas_kind[k], a, b, X, V, R, W, angle_ref[k], y, ydot, k)


@apart(python=False, counted=False)
def element_kernels(t, z, P, zdot):
    """The state elements' kernels in mode 0 (``zdot`` in the kernels' units: an element may present scaled
    states, ``zs = z · zscale``)."""
    zscale, zs, kernels, sig, y, ydot, fy, aux = P.zscale, P.zs, P.el_kernels, P.sig, P.y, P.ydot, P.fy, P.aux
    el_z, el_y, el_s, el_a, el_f, el_i, ipar, fpar = P.el_z, P.el_y, P.el_s, P.el_a, P.el_f, P.el_i, P.ipar, P.fpar
    for i in range(z.size):
        zs[i] = z[i] * zscale[i]
    for e in range(kernels.size):
        z0, y0, s0, a0, f0, i0 = el_z[e], el_y[e], el_s[e], el_a[e], el_f[e], el_i[e]
        call_kernel(kernels[e], 0, t, zs[z0:], y[y0:], ydot[y0:], sig[s0:], fpar[f0:], ipar[i0:], zdot[z0:], fy[y0:],
                    aux[a0:])


@apart  # once, not in each caller (the residual, the samples, and Python: Context.full_lam)
def all_multipliers(keep, jac_all, lam):
    """``λ`` of every constraint row (n_c_all,) from the kept rows' ``λ`` (``keep``: their indices among the rows of
    ``jac_all`` = ``Φ_q`` (n_c_all, n_q)): the same vector without redundant rows; with them, the minimum-norm split
    with the same ``Φ_qᵀ λ`` (the one implementation: the compiled step, its samples and
    :func:`flexmbs.engine.redundancy.minimum_norm_multipliers` call it). That split is the projection of the
    scattered vector onto the column space of ``Φ_q``, whose dimension is the number of kept rows; unique, whatever
    the factorization's signs.

    The column space from Householder QR with column pivoting (LAPACK's ``dgeqp3`` order, exact column norms at
    each step); numba's SVD binding brought ≈ 2.5 s of compile (issue 42)."""
    n_all, n_q = jac_all.shape
    rank = keep.size
    if rank == n_all:
        return lam
    w = np.zeros(n_all)
    for r in range(rank):
        w[keep[r]] = lam[r]
    a = np.empty((n_q, n_all))  # Φ_qᵀ: a column of Φ_q per row, contiguous for the reflections
    for i in range(n_all):
        for j in range(n_q):
            a[j, i] = jac_all[i, j]
    house = np.zeros((rank, n_all))  # the reflectors I - 2 u uᵀ, u of unit length, zero above row c
    used = np.zeros(n_q)  # 1.0 once a pivot (floats: an int64 np.zeros was library code compiled for it alone)
    n_ref = 0
    for c in range(rank):
        best, p = 0.0, -1
        for j in range(n_q):  # the pivot: the column with the largest norm below row c
            if used[j]:
                continue
            s = 0.0
            for i in range(c, n_all):
                s += a[j, i] * a[j, i]
            if s > best:
                best, p = s, j
        if p < 0:  # no column left (rank below the kept rows': cannot happen for independent kept rows)
            break
        used[p] = 1.0
        norm = math.sqrt(best)
        u = house[c]
        for i in range(c, n_all):
            u[i] = a[p, i]
        u[c] += norm if u[c] >= 0.0 else -norm
        size = 0.0
        for i in range(c, n_all):
            size += u[i] * u[i]
        size = math.sqrt(size)
        for i in range(c, n_all):
            u[i] /= size
        for j in range(n_q):
            if used[j]:
                continue
            s = 0.0
            for i in range(c, n_all):
                s += u[i] * a[j, i]
            s *= 2.0
            for i in range(c, n_all):
                a[j, i] -= s * u[i]
        n_ref += 1
    for c in range(n_ref):  # Qᵀ w, its first n_ref components, then Q back
        _reflect(house[c], c, w)
    for i in range(n_ref, n_all):
        w[i] = 0.0
    for c in range(n_ref - 1, -1, -1):
        _reflect(house[c], c, w)
    return w


@njit(**INNER)
def _reflect(u, c, w):
    """``w ← (I - 2 u uᵀ) w`` for a unit ``u`` zero above index ``c``."""
    s = 0.0
    for i in range(c, w.size):
        s += u[i] * w[i]
    s *= 2.0
    for i in range(c, w.size):
        w[i] -= s * u[i]


@njit(**INNER)
def unwrapped(angle, reference):
    """The branch of ``angle`` (rad) within π of ``reference``: ``JointCoordinate.evaluate``'s continuous angle,
    with the same arithmetic."""
    return reference + (angle - reference + math.pi) % (2.0 * math.pi) - math.pi


@njit(**INNER)
def measure(kind, a, b, X, V, R, W, reference, y, ydot, k):
    """An element measurement other than a distance into ``y[k]``, ``ydot[k]``: a joint coordinate between markers
    ``a``, ``b`` (``JointCoordinate.evaluate``, :func:`flexmbs.engine.force_elements.joint_coordinate`) or the
    global coordinate ``b`` of marker ``a`` (``MarkerCoordinate.evaluate``).

    A joint angle is unwrapped against ``reference``, the measurement's value at the last accepted step
    (``angle_ref`` in the workspace, set from the Python measurement at the start and by :func:`keep_angles`
    after each accepted step). The Python measurement unwraps against its previous evaluation, whatever it was;
    both give the same continuous angle while the shaft turns less than π between the reference and any state
    Newton visits in a step. The accepted value is the safer reference: a rejected step or a diverging Newton
    iteration cannot carry the angle onto another turn, and the difference Jacobian's columns never move it."""
    if kind == MARKER:
        y[k], ydot[k] = X[a, b], V[a, b]
        return
    value, rate = joint_coordinate(a, b, kind - ROTATION, X, R, V, W)
    ydot[k] = rate
    y[k] = unwrapped(value, reference) if kind == ROTATION else value


@njit(**INNER)
def measurement_load(kind, a, b, f, X, R, JX, JTH, marker_body, n_modes, packed):
    """``(∂y/∂q̄)ᵀ f`` of a measurement of :func:`measure` on its markers' bodies: ``e_bᵀ J_x`` of a marker
    coordinate, ``f`` along a joint coordinate (:func:`flexmbs.engine.force_elements.apply_coordinate_load`, a joint
    actuator's projection); a marker on the ground takes none."""
    if kind == MARKER:
        body = marker_body[a]
        if body >= 0:
            for n in range(6 + n_modes[body]):
                packed[body, n] += f * JX[a, b, n]
        return
    apply_coordinate_load(a, b, kind - ROTATION, f, X, R, JX, JTH, marker_body, n_modes, packed)


@njit(**INNER)
def keep_angles(meas_kind, y, angle_ref):
    """After an accepted step: the angles of its last evaluation become the references of the next
    (:func:`measure`); only the branch matters, so the evaluation at the converged Newton iterate serves."""
    for k in range(meas_kind.size):
        if meas_kind[k] == ROTATION:
            angle_ref[k] = y[k]


@apart(python=False, counted=False)
def force_kernels(mode, t, q, v, A, omega, X, R, V, W, JX, JTH, packed, dims, addresses, index, fpar, ipar, out):
    """The force elements with their own kernels (:mod:`flexmbs.engine.force_kernels`): loads into ``packed``,
    with ``mode`` 1 their outputs into ``out``."""
    for e in range(addresses.size):
        f0, i0, o0 = index[e, 0], index[e, 1], index[e, 2]
        call_force(addresses[e], mode, t, q, v, A, omega, X, R, V, W, JX, JTH, packed, dims, fpar[f0:], ipar[i0:],
                   out[o0:])


@apart(python=False, counted=False)
def constraints_at(t, q, v, P, phi, jac):
    """``Φ`` and ``Φ_q`` of the kept rows alone (kinematics, markers and rows; no forces): for the second difference
    of ``Φ`` in :func:`flexmbs.engine.loop.consistent_sample`."""
    offsets, A, omega = P.offsets, P.A, P.omega
    body_kinematics(q, v, offsets, A, P.G, omega)
    marker_states(q, v, A, omega, P.marker_body, offsets, P.n_modes, P.m_local, P.m_orient, P.s_t, P.s_r, P.X, P.R,
                  P.JX, P.JTH, P.V, P.W)
    if P.py_rows.size:  # the user joints' rows alone (column code -2)
        P.py_control[0] = -2
        python_parts(t, q, v, q[:0], q[:0], P)
        P.py_control[0] = -1
    _constraint_block(q, P, phi, jac)


@apart(python=False, counted=False)
def constraint_values(q, P, phi, posed):
    """``Φ`` of the kept rows alone at ``q``: the Euler-parameter rows and the library-joint rows from the rotation
    matrices and the marker positions and orientations (:func:`flexmbs.model.kernels.marker_positions`), nothing of
    the Jacobians or velocities; the same numbers as :func:`constraints_at` (the same formulas,
    :func:`flexmbs.model.kernels.constraint_value`). For plans without prescribed motions and user joints (their rows
    need the full marker states: :func:`constraints_at`). Leaves ``A``, ``X``, ``R`` and ``phi_all`` at ``q``;
    ``posed``: they are at ``q`` already (a sample's :func:`integrands` has just set them), only the rows are
    evaluated."""
    offsets, marker_body, A, X, R, phi_all, keep = P.offsets, P.marker_body, P.A, P.X, P.R, P.phi_all, P.keep
    c_kind, c_mi, c_mj, c_a, c_b, c_rows = P.c_kind, P.c_mi, P.c_mj, P.c_a, P.c_b, P.c_rows
    for b in range(offsets.size):
        o = offsets[b] + 3
        if not posed:
            body_rotation(q, o, A, b)
        phi_all[b] = euler_row(q, o)
    if not posed:
        marker_positions(q, A, marker_body, offsets, P.n_modes, P.m_local, P.m_orient, P.s_t, P.s_r, X, R)
    for k in range(c_kind.size):
        phi_all[c_rows[k]] = constraint_value(c_kind[k], c_mi[k], c_mj[k], c_a[k], c_b[k], X, R)
    for r in range(keep.size):
        phi[r] = phi_all[keep[r]]


@njit(**INNER)
def to_python(q, v, z, lam, P):
    """The state into the buffers the Python callbacks read (``z`` and ``λ`` only where given; the buffers by name:
    the tuple ``P.py`` of 12 arrays as an argument was code at every call)."""
    pq, pv, pz, plam = P.py_q, P.py_v, P.py_z, P.py_lam
    for i in range(q.size):
        pq[i] = q[i]
        pv[i] = v[i]
    for i in range(min(z.size, pz.size)):
        pz[i] = z[i]
    for r in range(min(lam.size, plam.size)):
        plam[r] = lam[r]


@apart(python=False, counted=False)  # once, not in each of the residual, the integrands and the constraints
def python_parts(t, q, v, z, lam, P):
    """Call the Python parts back (:mod:`flexmbs.engine.callbacks`, ``P.force_cb``) unless the difference column
    being evaluated (``P.py_control[0]``: ``j`` of ``q``, ``n_q + j`` of ``q̇``, ``2 n_q + j`` of ``z``; -1 a full
    evaluation, -2 the user joints alone) is coupled to none of them: then their last values stand
    (``P.py_columns``, 1 where coupled)."""
    col, cols = P.py_control[0], P.py_columns
    if col >= 0 and cols[col] == 0:
        return
    to_python(q, v, z, lam, P)
    P.force_cb(t)


@apart(python=False, counted=False)
def _constraint_block(q, P, phi, jac):
    """``Φ`` and ``Φ_q`` of the kept rows (Euler-parameter normalization first, then the library-joint rows, the
    prescribed motions and the user joints' rows, ``py_rows``, evaluated in Python), at the marker states of ``P``."""
    X, R, JX, JTH, V, W, G = P.X, P.R, P.JX, P.JTH, P.V, P.W, P.G
    marker_body, offsets, n_coord, n_modes, keep, drv, sig = P.marker_body, P.offsets, P.n_coord, P.n_modes, P.keep, \
        P.drv, P.sig
    phi_all, jac_all, ji, jj, py_rows, py_phi, py_jac = P.phi_all, P.jac_all, P.ji, P.jj, P.py_rows, P.py_phi, P.py_jac
    n_b, n_q = offsets.size, q.size
    _zero(jac_all)
    for b in range(n_b):
        o = offsets[b] + 3
        phi_all[b] = euler_row(q, o)
        for c in range(4):
            jac_all[b, o + c] = q[o + c]
    constraint_rows(X, R, JX, JTH, P.c_kind, P.c_mi, P.c_mj, P.c_a, P.c_b, P.c_rows, marker_body, offsets, n_coord, G,
                    phi_all, jac_all, ji, jj, True)
    if drv.shape[0]:
        driver_rows(drv, sig, X, R, JX, JTH, V, W, G, marker_body, offsets, n_modes, phi_all, jac_all, ji, jj)
    for k in range(py_rows.size):
        phi_all[py_rows[k]] = py_phi[k]
        for j in range(n_q):
            jac_all[py_rows[k], j] = py_jac[k, j]
    for r in range(keep.size):
        row = keep[r]  # (once: the stores into jac could alias keep for all the compiler knows, a reload per entry)
        phi[r] = phi_all[row]
        for j in range(n_q):
            jac[r, j] = jac_all[row, j]


@njit(**INNER)
def signals_at(t, sc, cb):
    """Call the signal callback once per new time."""
    if sc[T_SIG] != t:
        cb(t)
        sc[T_SIG] = t


@njit(**INNER)
def _freeze(freeze, frame, j):
    """Flexible bodies' inertia terms for difference column ``j`` (``frame[j]``: the body whose frame coordinate
    ``j`` is, or -1): kept (2) for all bodies but that one. (The base point, which evaluates and keeps them all, sets
    ``freeze[:] = 1`` itself: a constant argument here compiled a second copy.)"""
    for f in range(freeze.size):
        freeze[f] = 0 if frame[j] == f else 2


@apart(python=False, counted=False)
def jacobian_blocks(t, q, v, qdd, z, lam, P, cb, sc):
    """``K, C, D_z, G_q, G_v, G_z`` by forward differences; returns the number of residual evaluations.

    A flexible body's floating-frame inertia terms ``M̄ u̇ - Q̄_v`` (the costly part of a residual at many modes) are
    evaluated only for the columns of its own frame coordinates; every other column takes them from the base point:
    exact for the other bodies' and the states' columns, and for its elastic columns the dependence of the inertia
    terms on ``q_f``, ``q̇_f`` is left out (terms of order ``ω²``, ``ω̇``, ``ω q̇_f`` times the modal invariants, small
    against ``K_ff``). Elastic, damping, gravity and geometric terms, forces and constraints are
    differenced in full. Newton uses only the matrix: the residual, hence the solution, stays exact.

    The perturbed states are written in Newton's work vector ``P.nwork`` (free between Newton steps; it holds
    ``2 n_q + n_z``): the function allocates nothing."""
    freeze, mass_mode = P.freeze, P.mass_mode
    P.py_control[0] = -1  # the column being differenced, for the Python parts (python_parts)
    signals_at(t, sc, cb)
    n_q, n_z = q.size, z.size
    work = P.nwork
    for i in range(n_q):
        work[i] = q[i]
        work[n_q + i] = v[i]
    for i in range(n_z):
        work[2 * n_q + i] = z[i]
    count = 1
    for which in (0, 2, 1):  # the columns of q, z, q̇ (no constraints: Φ does not depend on q̇)
        # the base point: evaluate the inertia terms and keep them. The columns of z share that of q (with the
        # constraints; they read only what the base keeps: M q̈, the inertia terms), unless Python parts take
        # part: the columns they are not coupled to take their last values, which must be the base point's
        if which != 2 or P.py_control[1] != 0:
            for f in range(freeze.size):
                freeze[f] = 1
            mass_mode[0] = 1
            residual(t, q, v, qdd, z, lam, P, P.res0, P.zdot0, P.phi, P.jac, P.mass, which != 1)
        count += _difference_columns(t, q, v, qdd, z, lam, P, which)
    for f in range(freeze.size):
        freeze[f] = 0
    mass_mode[0] = 0
    return count


@apart(python=False, counted=False)  # once for the three parts (a constant ``which`` compiles no copy)
def _difference_columns(t, q, v, qdd, z, lam, P, which):
    """The forward-difference columns of one part of the state (``which``: 0 ``q`` into ``K, G_q``; 1 ``q̇`` into
    ``C, G_v``; 2 ``z`` into ``D_z, G_z``) against the base point ``P.res0``, ``P.zdot0``; the perturbed vector is
    that part's copy in ``P.nwork`` (:func:`jacobian_blocks`). Returns the number of columns."""
    res, zd, phi, jac, mass = P.res, P.zdot, P.phi, P.jac, P.mass
    freeze, frame, mass_mode, column = P.freeze, P.frame, P.mass_mode, P.py_control
    n_q = q.size
    if which == 0:
        x, out_res, out_z = q, P.K, P.Gq
    elif which == 1:
        x, out_res, out_z = v, P.C, P.Gv
    else:
        x, out_res, out_z = z, P.Dz, P.Gz
    xp = P.nwork[which * n_q:which * n_q + x.size]
    mass_mode[0] = 2  # M(q) does not depend on q̇, nor on z (the columns of q set it each)
    if which == 2:  # the states change no inertia term
        for f in range(freeze.size):
            freeze[f] = 2
    for j in range(x.size):
        h = 1e-7 * max(1.0, abs(x[j]))
        xp[j] = x[j] + h
        if which != 2:
            _freeze(freeze, frame, j)
        if which == 0:  # M(q) unchanged: an elastic column (its inertia terms kept, above) or another body's
            mass_mode[0] = 2 if (frame[j] < 0 and _elastic(P, j)) else 0
        column[0] = which * n_q + j
        if which == 0:
            residual(t, xp, v, qdd, z, lam, P, res, zd, phi, jac, mass, True)
        elif which == 1:
            residual(t, q, xp, qdd, z, lam, P, res, zd, phi, jac, mass, False)
        else:
            residual(t, q, v, qdd, xp, lam, P, res, zd, phi, jac, mass, True)
        column[0] = -1
        xp[j] = x[j]
        _column(out_res, j, res, P.res0, h)
        _column(out_z, j, zd, P.zdot0, h)
    return x.size


@njit(**INNER)
def _column(out, j, value, base, h):
    """``out[:, j] = (value - base) / h`` (a loop: numba's slice assignment of an array brings its shape check and
    error message, string formatting included, into every function that has one; issue 42)."""
    for i in range(value.size):
        out[i, j] = (value[i] - base[i]) / h


@njit(**INNER)
def _zero(out):
    """``out[:, :] = 0.0`` (a loop, as :func:`_column`)."""
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = 0.0


@njit(**INNER)
def _elastic(P, j):
    """Coordinate ``j`` is an elastic (modal) coordinate of a flexible body."""
    offsets, n_modes = P.offsets, P.n_modes
    for b in range(offsets.size):
        if n_modes[b] and offsets[b] + 7 <= j < offsets[b] + 7 + n_modes[b]:
            return True
    return False
