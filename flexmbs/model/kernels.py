"""Compiled (numba) kernels of the per-step hot path: body kinematics, marker states, FFRF inertia terms, the
``L``-mapping to coordinates, the library-joint constraint rows and the joint coordinates.

Each kernel is the loop form of the vectorized NumPy expression it replaces (same formulas, same order of the
terms, see the docstrings of :mod:`flexmbs.model.bodies`, :mod:`flexmbs.model.markers`, :mod:`flexmbs.engine.constraint_kernels`);
one call per evaluation instead of tens of small NumPy calls, so the cost of a residual is arithmetic, not Python.
Compiled once and cached on disk (``cache=True``).
"""
from __future__ import annotations

import math

import numpy as np

from flexmbs_jit import apart, njit

__all__ = ["body_kinematics", "body_rotation", "marker_states", "marker_pose", "marker_positions",
           "ffrf_mass_and_force", "map_mass", "constraint_rows", "constraint_value", "euler_row",
           "rigid_terms", "map_forces", "joint_coordinate", "coordinate_gradient", "axis_and_arm", "line_state",
           "line_load", "INNER", "INLINE"]

# ``njit(**INNER)``: a kernel only compiled code calls. numba makes no Python or C wrapper for it (Python cannot call
# it), and the library code it uses (``np.empty``, ``min``, ...) is shared with the functions compiled apart for
# compiled callers: numba compiles library code once per set of options of its caller (issue 42, the first compile)
INNER = dict(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
# ``njit(**INLINE)``: a piece of a formula shared by kernels, inlined into each (numba's IR inlining): a linked call
# of a larger function is not inlined by LLVM, and its arrays passed word by word cost more than its arithmetic
INLINE = dict(INNER, inline="always")


@njit(**INLINE)
def body_rotation(q, o, A, b):
    """``A(p̂)`` of body ``b`` (Euler parameters at ``q[o:o+4]``) into ``A[b]``; returns ``(|p|, p̂)`` (the one formula:
    :func:`body_kinematics` and the constraint values of :func:`marker_positions` use it)."""
    norm = np.sqrt(q[o] * q[o] + q[o + 1] * q[o + 1] + q[o + 2] * q[o + 2] + q[o + 3] * q[o + 3])
    e0, e1, e2, e3 = q[o] / norm, q[o + 1] / norm, q[o + 2] / norm, q[o + 3] / norm
    A[b, 0, 0] = 2.0 * (e0 * e0 + e1 * e1 - 0.5)
    A[b, 0, 1] = 2.0 * (e1 * e2 - e0 * e3)
    A[b, 0, 2] = 2.0 * (e1 * e3 + e0 * e2)
    A[b, 1, 0] = 2.0 * (e1 * e2 + e0 * e3)
    A[b, 1, 1] = 2.0 * (e0 * e0 + e2 * e2 - 0.5)
    A[b, 1, 2] = 2.0 * (e2 * e3 - e0 * e1)
    A[b, 2, 0] = 2.0 * (e1 * e3 - e0 * e2)
    A[b, 2, 1] = 2.0 * (e2 * e3 + e0 * e1)
    A[b, 2, 2] = 2.0 * (e0 * e0 + e3 * e3 - 0.5)
    return norm, e0, e1, e2, e3


@apart
def body_kinematics(q, v, offsets, A, G, omega):
    """Rotation matrices ``A(p̂)`` (n_b, 3, 3), ``G(p̂)/|p|`` (n_b, 3, 4) and body angular velocities
    ``ω' = 2 G ṗ`` (n_b, 3) of all bodies; ``p̂ = p/|p|`` (see :meth:`flexmbs.model.bodies._InertialBody.kinematics`)."""
    for b in range(offsets.size):
        o = offsets[b] + 3
        norm, e0, e1, e2, e3 = body_rotation(q, o, A, b)
        G[b, 0, 0], G[b, 0, 1], G[b, 0, 2], G[b, 0, 3] = -e1 / norm, e0 / norm, e3 / norm, -e2 / norm
        G[b, 1, 0], G[b, 1, 1], G[b, 1, 2], G[b, 1, 3] = -e2 / norm, -e3 / norm, e0 / norm, e1 / norm
        G[b, 2, 0], G[b, 2, 1], G[b, 2, 2], G[b, 2, 3] = -e3 / norm, e2 / norm, -e1 / norm, e0 / norm
        for i in range(3):
            s = 0.0
            for k in range(4):
                s += G[b, i, k] * v[o + k]
            omega[b, i] = 2.0 * s


@njit(**INLINE)
def marker_pose(i, b, o, m, q, A, local, orient, s_t, s_r, X, R):
    """Position ``x = r + A u`` and orientation ``A (I + θ̃) R_0`` of marker ``i`` on body ``b`` (coordinates from
    ``o``, ``m`` modes) into ``X[i]``, ``R[i]`` (``u = s + S q_f``, ``θ = S^θ q_f``, each component's sums in the
    order of k); returns ``a = A u``. The one formula of :func:`marker_states` and :func:`marker_positions`."""
    u0, th0 = local[i, 0], 0.0
    u1, th1 = local[i, 1], 0.0
    u2, th2 = local[i, 2], 0.0
    for k in range(m):
        qk = q[o + 7 + k]
        u0 += s_t[i, 0, k] * qk
        th0 += s_r[i, 0, k] * qk
        u1 += s_t[i, 1, k] * qk
        th1 += s_r[i, 1, k] * qk
        u2 += s_t[i, 2, k] * qk
        th2 += s_r[i, 2, k] * qk
    a0 = A[b, 0, 0] * u0 + A[b, 0, 1] * u1 + A[b, 0, 2] * u2
    a1 = A[b, 1, 0] * u0 + A[b, 1, 1] * u1 + A[b, 1, 2] * u2
    a2 = A[b, 2, 0] * u0 + A[b, 2, 1] * u1 + A[b, 2, 2] * u2
    X[i, 0] = q[o] + a0
    X[i, 1] = q[o + 1] + a1
    X[i, 2] = q[o + 2] + a2
    for c in range(3):  # orientation: A (I + θ̃) R_0, a column at a time
        rot0 = orient[i, 0, c] + (-th2 * orient[i, 1, c] + th1 * orient[i, 2, c])
        rot1 = orient[i, 1, c] + (th2 * orient[i, 0, c] - th0 * orient[i, 2, c])
        rot2 = orient[i, 2, c] + (-th1 * orient[i, 0, c] + th0 * orient[i, 1, c])
        for r in range(3):
            R[i, r, c] = A[b, r, 0] * rot0 + A[b, r, 1] * rot1 + A[b, r, 2] * rot2
    return a0, a1, a2


@njit(**INLINE)
def marker_positions(q, A, body, offsets, n_modes, local, orient, s_t, s_r, X, R):
    """Positions and orientations alone (:func:`marker_pose`) of all markers on bodies, at the rotation matrices
    ``A``: what constraint values need (no Jacobians, no velocities)."""
    for i in range(body.size):
        b = body[i]
        if b >= 0:
            marker_pose(i, b, offsets[b], n_modes[b], q, A, local, orient, s_t, s_r, X, R)


@apart
def marker_states(q, v, A, omega, body, offsets, n_modes, local, orient, s_t, s_r, X, R, JX, JTH, V, W):
    """States of all markers on bodies (``body[i] >= 0``), seed 003 eq. (2-145..2-151)::

        u = s + S q_f,  x = r + A u,  R = A (I + θ̃) R_0 with θ = S^θ q_f,
        J_x = [I, -ã A, A S],  J_θ = [0, A, A S^θ],  v = ṙ + ω × a + A S q̇_f,  w = ω + A S^θ q̇_f

    with ``a = A u`` and ``ω = A ω'``; ``s_t``, ``s_r`` (n_m, 3, m_max) are zero for rigid markers. Ground rows of
    the outputs are left untouched."""
    for i in range(body.size):  # (scalars, not scratch arrays: an array allocated per call costs as much as a marker)
        b = body[i]
        if b < 0:
            continue
        o, m = offsets[b], n_modes[b]
        wf0 = A[b, 0, 0] * omega[b, 0] + A[b, 0, 1] * omega[b, 1] + A[b, 0, 2] * omega[b, 2]
        wf1 = A[b, 1, 0] * omega[b, 0] + A[b, 1, 1] * omega[b, 1] + A[b, 1, 2] * omega[b, 2]
        wf2 = A[b, 2, 0] * omega[b, 0] + A[b, 2, 1] * omega[b, 1] + A[b, 2, 2] * omega[b, 2]
        a0, a1, a2 = marker_pose(i, b, o, m, q, A, local, orient, s_t, s_r, X, R)
        # S q̇_f, S^θ q̇_f, each component's sums in the order of k
        ud0, thd0, ud1, thd1, ud2, thd2 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        for k in range(m):
            vk = v[o + 7 + k]
            ud0 += s_t[i, 0, k] * vk
            thd0 += s_r[i, 0, k] * vk
            ud1 += s_t[i, 1, k] * vk
            thd1 += s_r[i, 1, k] * vk
            ud2 += s_t[i, 2, k] * vk
            thd2 += s_r[i, 2, k] * vk
        JX[i, 0, 0] = 1.0
        JX[i, 1, 1] = 1.0
        JX[i, 2, 2] = 1.0
        for c in range(3):  # -ã A
            JX[i, 0, 3 + c] = -(-a2 * A[b, 1, c] + a1 * A[b, 2, c])
            JX[i, 1, 3 + c] = -(a2 * A[b, 0, c] - a0 * A[b, 2, c])
            JX[i, 2, 3 + c] = -(-a1 * A[b, 0, c] + a0 * A[b, 1, c])
            for r in range(3):
                JTH[i, r, 3 + c] = A[b, r, c]
        for k in range(m):
            for r in range(3):
                JX[i, r, 6 + k] = A[b, r, 0] * s_t[i, 0, k] + A[b, r, 1] * s_t[i, 1, k] + A[b, r, 2] * s_t[i, 2, k]
                JTH[i, r, 6 + k] = A[b, r, 0] * s_r[i, 0, k] + A[b, r, 1] * s_r[i, 1, k] + A[b, r, 2] * s_r[i, 2, k]
        V[i, 0] = v[o] + wf1 * a2 - wf2 * a1
        V[i, 1] = v[o + 1] + wf2 * a0 - wf0 * a2
        V[i, 2] = v[o + 2] + wf0 * a1 - wf1 * a0
        for r in range(3):
            V[i, r] += A[b, r, 0] * ud0 + A[b, r, 1] * ud1 + A[b, r, 2] * ud2
        W[i, 0] = wf0 + A[b, 0, 0] * thd0 + A[b, 0, 1] * thd1 + A[b, 0, 2] * thd2
        W[i, 1] = wf1 + A[b, 1, 0] * thd0 + A[b, 1, 1] * thd1 + A[b, 1, 2] * thd2
        W[i, 2] = wf2 + A[b, 2, 0] * thd0 + A[b, 2, 1] * thd1 + A[b, 2, 2] * thd2


@apart
def ffrf_mass_and_force(A, w, q, qd, mass, first_moment, inertia_origin, i3, i4, i5, i6, i8, i8_sym, i9, mbar, qv):
    """Mass matrix ``M̄`` (6+m, 6+m) and quadratic-velocity vector ``Q̄v`` (6+m,) of a floating-frame body in
    quasi-velocities, written into ``mbar`` and ``qv`` (the formulas of :mod:`flexmbs.model.bodies`, seed 003
    eq. (2-156..2-171)).

    ``I9`` must have the symmetry of its definition, ``I9_jk = I9_kjᵀ`` (:meth:`flexmbs.model.bodies._InertialBody._set_invariants`
    makes it exact): only the blocks ``j ≤ k`` are read, once for ``Σ_k I9_jk q_k`` and ``J̇`` together (at 147 modes
    the two full passes over ``I9`` and ``I9 + I9ᵀ`` were 2 × 1.5 MB of memory traffic per call)."""
    m = q.size
    # three allocations for all the scratch (each np.zeros, np.empty or copy of another shape or kind is library
    # code numba compiles and links of its own: issue 42): small vectors, the I9 sums with J̇ and J, Σ q_k I5_k
    small = np.zeros((9, 3))
    ct, t, jw, jdw, iq, i3qd, c = small[0:3], small[3], small[4], small[5], small[6], small[7], small[8]
    for r in range(3):
        c[r] = first_moment[r]
    big = np.zeros((m + 2, 3, 3))
    i9q, jdot, J = big, big[m], big[m + 1]  # i9q[j] for j < m
    for a in range(3):
        for b in range(3):
            J[a, b] = inertia_origin[a, b]
    i_wq = np.empty((3, m))  # I4 + Σ q_k I5_k
    for a in range(3):
        for j in range(m):
            i_wq[a, j] = i4[a, j]
    for r in range(3):
        for k in range(m):
            c[r] += i3[r, k] * q[k]
            i3qd[r] += i3[r, k] * qd[k]
    # J = I7 + Σ q_j I8sym_j + Σ_jk q_j q_k I9_jk;  J̇ = Σ q̇_j I8sym_j + Σ_jk q̇_j q_k (I9_jk + I9_kj)
    for j in range(m):
        for a in range(3):
            for b in range(3):
                i9q[j, a, b] += i9[j, j, a, b] * q[j]
                jdot[a, b] += 2.0 * qd[j] * q[j] * i9[j, j, a, b]
        for k in range(j + 1, m):
            pair = qd[j] * q[k] + q[j] * qd[k]
            for a in range(3):
                for b in range(3):
                    bab, bba = i9[j, k, a, b], i9[j, k, b, a]  # I9_kj[a, b] = I9_jk[b, a]
                    i9q[j, a, b] += bab * q[k]
                    i9q[k, a, b] += bba * q[j]
                    jdot[a, b] += (bab + bba) * pair
    for j in range(m):
        for a in range(3):
            for b in range(3):
                J[a, b] += q[j] * i8_sym[j, a, b] + q[j] * i9q[j, a, b]
                jdot[a, b] += qd[j] * i8_sym[j, a, b]
    for k in range(m):
        for a in range(3):
            for j in range(m):
                i_wq[a, j] += q[k] * i5[k, a, j]
    for r in range(mbar.shape[0]):  # (loops and scalars, not slice assignments and arrays from lists: issue 42)
        for cc in range(mbar.shape[1]):
            mbar[r, cc] = 0.0
    for r in range(3):
        mbar[r, r] = mass
    # M̄_rω = -A c̃
    ct[0, 0], ct[0, 1], ct[0, 2] = 0.0, -c[2], c[1]
    ct[1, 0], ct[1, 1], ct[1, 2] = c[2], 0.0, -c[0]
    ct[2, 0], ct[2, 1], ct[2, 2] = -c[1], c[0], 0.0
    for r in range(3):
        for s in range(3):
            val = -(A[r, 0] * ct[0, s] + A[r, 1] * ct[1, s] + A[r, 2] * ct[2, s])
            mbar[r, 3 + s] = val
            mbar[3 + s, r] = val
            mbar[3 + r, 3 + s] = J[r, s]
    for k in range(m):
        for r in range(3):
            val = A[r, 0] * i3[0, k] + A[r, 1] * i3[1, k] + A[r, 2] * i3[2, k]
            mbar[r, 6 + k] = val
            mbar[6 + k, r] = val
            mbar[3 + r, 6 + k] = i_wq[r, k]
            mbar[6 + k, 3 + r] = i_wq[r, k]
        for j in range(m):
            mbar[6 + k, 6 + j] = i6[k, j]
    wc0, wc1, wc2 = w[1] * c[2] - w[2] * c[1], w[2] * c[0] - w[0] * c[2], w[0] * c[1] - w[1] * c[0]
    t[0] = (w[1] * wc2 - w[2] * wc1) + 2.0 * (w[1] * i3qd[2] - w[2] * i3qd[1])
    t[1] = (w[2] * wc0 - w[0] * wc2) + 2.0 * (w[2] * i3qd[0] - w[0] * i3qd[2])
    t[2] = (w[0] * wc1 - w[1] * wc0) + 2.0 * (w[0] * i3qd[1] - w[1] * i3qd[0])
    for r in range(3):
        qv[r] = -(A[r, 0] * t[0] + A[r, 1] * t[1] + A[r, 2] * t[2])
    for r in range(3):
        for s in range(3):
            jw[r] += J[r, s] * w[s]
            jdw[r] += jdot[r, s] * w[s]
        for k in range(m):
            iq[r] += i_wq[r, k] * qd[k]
    qv[3] = -(w[1] * jw[2] - w[2] * jw[1]) - jdw[0] - (w[1] * iq[2] - w[2] * iq[1])
    qv[4] = -(w[2] * jw[0] - w[0] * jw[2]) - jdw[1] - (w[2] * iq[0] - w[0] * iq[2])
    qv[5] = -(w[0] * jw[1] - w[1] * jw[0]) - jdw[2] - (w[0] * iq[1] - w[1] * iq[0])
    for j in range(m):
        cen = 0.0
        for a in range(3):
            for b in range(3):
                cen += w[a] * (i8[j, a, b] + i9q[j, a, b]) * w[b]
        cor = 0.0
        for k in range(m):
            for a in range(3):
                cor += qd[k] * w[a] * i5[k, a, j]
        qv[6 + j] = cen - 2.0 * cor


@njit(**INNER)
def map_mass(mbar, G, out, off):
    """``out[off:off+7+m, off:off+7+m] = Lᵀ M̄ L`` with ``L = diag(1, 2G, 1)``."""
    n = mbar.shape[0]
    lm = np.empty((n, n + 1))  # M̄ L
    for r in range(n):
        for c in range(3):
            lm[r, c] = mbar[r, c]
        for c in range(4):
            lm[r, 3 + c] = 2.0 * (mbar[r, 3] * G[0, c] + mbar[r, 4] * G[1, c] + mbar[r, 5] * G[2, c])
        for c in range(6, n):
            lm[r, c + 1] = mbar[r, c]
    for c in range(n + 1):
        for r in range(3):
            out[off + r, off + c] = lm[r, c]
        for r in range(4):
            out[off + 3 + r, off + c] = 2.0 * (G[0, r] * lm[3, c] + G[1, r] * lm[4, c] + G[2, r] * lm[5, c])
        for r in range(6, n):
            out[off + r + 1, off + c] = lm[r, c]


@njit(**INLINE)
def constraint_value(kind, i, j, a, b, X, R):
    """The value of one basic constraint row between markers ``i`` and ``j`` (``kind`` 0: point component
    ``x_j[a] - x_i[a]``; 1: dot-1 ``a_iᵀ b_j`` of the axes ``a`` of ``R_i`` and ``b`` of ``R_j``; 2: dot-2
    ``a_iᵀ (x_j - x_i)``): the one formula of :func:`constraint_rows` and of the constraint values alone."""
    if kind == 0:
        return X[j, a] - X[i, a]
    a0, a1, a2 = R[i, 0, a], R[i, 1, a], R[i, 2, a]
    if kind == 1:
        return a0 * R[j, 0, b] + a1 * R[j, 1, b] + a2 * R[j, 2, b]
    return a0 * (X[j, 0] - X[i, 0]) + a1 * (X[j, 1] - X[i, 1]) + a2 * (X[j, 2] - X[i, 2])


@njit(**INLINE)
def euler_row(q, o):
    """The Euler-parameter normalization row ``(pᵀp - 1) / 2`` of the parameters at ``q[o:o+4]``."""
    return 0.5 * (q[o] * q[o] + q[o + 1] * q[o + 1] + q[o + 2] * q[o + 2] + q[o + 3] * q[o + 3] - 1.0)


@apart
def constraint_rows(X, R, JX, JTH, kind, mi, mj, ia, ib, rows, body, offsets, nq_body, G, phi, jac, ji, jj,
                    with_jac):
    """The basic constraint rows (``kind`` 0: point component ``x_j[a] - x_i[a]``; 1: dot-1 ``a_iᵀ b_j``; 2: dot-2
    ``a_iᵀ (x_j - x_i)``), their quasi-coordinate Jacobians ``ji``, ``jj`` (k, n_max) and, if ``with_jac``, the
    coordinate rows ``Φ̄ L`` added into ``jac`` (see :mod:`flexmbs.engine.constraint_kernels`)."""
    n_max = JX.shape[2]
    for k in range(kind.size):
        i, j, a = mi[k], mj[k], ia[k]
        phi[rows[k]] = constraint_value(kind[k], i, j, a, ib[k], X, R)
        if kind[k] == 0:
            for n in range(n_max):
                ji[k, n] = -JX[i, a, n]
                jj[k, n] = JX[j, a, n]
        elif kind[k] == 1:
            bb = ib[k]
            a0, a1, a2 = R[i, 0, a], R[i, 1, a], R[i, 2, a]
            b0, b1, b2 = R[j, 0, bb], R[j, 1, bb], R[j, 2, bb]
            c0, c1, c2 = a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0
            for n in range(n_max):
                ji[k, n] = c0 * JTH[i, 0, n] + c1 * JTH[i, 1, n] + c2 * JTH[i, 2, n]
                jj[k, n] = -(c0 * JTH[j, 0, n] + c1 * JTH[j, 1, n] + c2 * JTH[j, 2, n])
        else:
            a0, a1, a2 = R[i, 0, a], R[i, 1, a], R[i, 2, a]
            d0, d1, d2 = X[j, 0] - X[i, 0], X[j, 1] - X[i, 1], X[j, 2] - X[i, 2]
            c0, c1, c2 = a1 * d2 - a2 * d1, a2 * d0 - a0 * d2, a0 * d1 - a1 * d0
            for n in range(n_max):
                ji[k, n] = (c0 * JTH[i, 0, n] + c1 * JTH[i, 1, n] + c2 * JTH[i, 2, n]) - (
                    a0 * JX[i, 0, n] + a1 * JX[i, 1, n] + a2 * JX[i, 2, n])
                jj[k, n] = a0 * JX[j, 0, n] + a1 * JX[j, 1, n] + a2 * JX[j, 2, n]
        if with_jac:
            for side in range(2):
                bd = body[i] if side == 0 else body[j]
                if bd < 0:
                    continue
                src = ji if side == 0 else jj
                o, nc = offsets[bd], nq_body[bd]
                r = rows[k]
                for c in range(3):
                    jac[r, o + c] += src[k, c]
                for c in range(4):
                    jac[r, o + 3 + c] += 2.0 * (src[k, 3] * G[bd, 0, c] + src[k, 4] * G[bd, 1, c]
                                                + src[k, 5] * G[bd, 2, c])
                for c in range(7, nc):
                    jac[r, o + c] += src[k, c - 1]


@apart(python=False, counted=False)
def rigid_terms(P, mass_out):
    """Mass blocks ``Lᵀ M̄ L`` (written into ``mass_out`` at each body's offset) and quasi-coordinate loads
    ``Q̄v + Q̄_gravity`` (written into rows of ``P.packed``, (n_b, 6+m_max)) of the rigid bodies ``P.rigid_index``
    at once: the ``m = 0`` case of :func:`ffrf_mass_and_force` plus the gravity terms (``m g``, ``c × Aᵀ g``) and
    the mapping of :func:`map_mass` (same formulas), one call for all rigid bodies of a model.

    ``P``: the compiled step's plan (:mod:`flexmbs.engine.plan_fields`), read by name (its arrays passed one by one
    were ≈ 100 words copied at every residual): ``r_mass``, ``r_fm`` (n_r, 3) and ``r_inertia`` (n_r, 3, 3, about
    the body origin) stacked in the order of ``rigid_index``, the body kinematics ``A``, ``omega``, ``G``."""
    A, w_all, G_all, index, offsets, gravity, qbar = P.A, P.omega, P.G, P.rigid_index, P.offsets, P.gravity, P.packed
    mass, first_moment, inertia = P.r_mass, P.r_fm, P.r_inertia
    for k in range(index.size):  # (scalars, not scratch arrays: no allocation per call)
        b = index[k]
        o = offsets[b]
        c = first_moment[k]
        J = inertia[k]
        w = w_all[b]
        G = G_all[b]
        m = mass[k]
        # M̄_rω = -A c̃ (3, 3); L = diag(1, 2G): translation block, coupling M̄_rω 2G, rotation block 4 Gᵀ J G
        for r in range(3):
            a0, a1, a2 = A[b, r, 0], A[b, r, 1], A[b, r, 2]
            mrw0 = -(a1 * c[2] - a2 * c[1])
            mrw1 = -(-a0 * c[2] + a2 * c[0])
            mrw2 = -(a0 * c[1] - a1 * c[0])
            for cc in range(3):
                mass_out[o + r, o + cc] = m if r == cc else 0.0
            for cc in range(4):
                val = 2.0 * (mrw0 * G[0, cc] + mrw1 * G[1, cc] + mrw2 * G[2, cc])
                mass_out[o + r, o + 3 + cc] = val
                mass_out[o + 3 + cc, o + r] = val
        for cc in range(4):
            jg0 = J[0, 0] * G[0, cc] + J[0, 1] * G[1, cc] + J[0, 2] * G[2, cc]
            jg1 = J[1, 0] * G[0, cc] + J[1, 1] * G[1, cc] + J[1, 2] * G[2, cc]
            jg2 = J[2, 0] * G[0, cc] + J[2, 1] * G[1, cc] + J[2, 2] * G[2, cc]
            for r in range(4):
                mass_out[o + 3 + r, o + 3 + cc] = 4.0 * (G[0, r] * jg0 + G[1, r] * jg1 + G[2, r] * jg2)
        # Q̄v: -A (ω × (ω × c)), -ω × J ω
        wc0 = w[1] * c[2] - w[2] * c[1]
        wc1 = w[2] * c[0] - w[0] * c[2]
        wc2 = w[0] * c[1] - w[1] * c[0]
        t0 = w[1] * wc2 - w[2] * wc1
        t1 = w[2] * wc0 - w[0] * wc2
        t2 = w[0] * wc1 - w[1] * wc0
        jw0 = J[0, 0] * w[0] + J[0, 1] * w[1] + J[0, 2] * w[2]
        jw1 = J[1, 0] * w[0] + J[1, 1] * w[1] + J[1, 2] * w[2]
        jw2 = J[2, 0] * w[0] + J[2, 1] * w[1] + J[2, 2] * w[2]
        for r in range(3):
            qbar[b, r] = -(A[b, r, 0] * t0 + A[b, r, 1] * t1 + A[b, r, 2] * t2) + m * gravity[r]
        g_b0 = A[b, 0, 0] * gravity[0] + A[b, 1, 0] * gravity[1] + A[b, 2, 0] * gravity[2]
        g_b1 = A[b, 0, 1] * gravity[0] + A[b, 1, 1] * gravity[1] + A[b, 2, 1] * gravity[2]
        g_b2 = A[b, 0, 2] * gravity[0] + A[b, 1, 2] * gravity[1] + A[b, 2, 2] * gravity[2]
        qbar[b, 3] = -(w[1] * jw2 - w[2] * jw1) + (c[1] * g_b2 - c[2] * g_b1)
        qbar[b, 4] = -(w[2] * jw0 - w[0] * jw2) + (c[2] * g_b0 - c[0] * g_b2)
        qbar[b, 5] = -(w[0] * jw1 - w[1] * jw0) + (c[0] * g_b1 - c[1] * g_b0)


@apart(python=False, counted=False)
def map_forces(P):
    """``P.force[o_b:o_b+7+m_b] = L_bᵀ Q̄_b`` for every body ``b`` (rows of ``P.packed``, (n_b, 6+m_max); ``P``: the
    plan, read by name as in :func:`rigid_terms`)."""
    qbar, G, offsets, n_modes, out = P.packed, P.G, P.offsets, P.n_modes, P.force
    for b in range(offsets.size):
        o = offsets[b]
        for r in range(3):
            out[o + r] = qbar[b, r]
        for r in range(4):
            out[o + 3 + r] = 2.0 * (G[b, 0, r] * qbar[b, 3] + G[b, 1, r] * qbar[b, 4] + G[b, 2, r] * qbar[b, 5])
        for r in range(n_modes[b]):
            out[o + 7 + r] = qbar[b, 6 + r]


@njit(cache=True)
def joint_coordinate(i, j, which, X, R, V, W):
    """Value and rate of the joint coordinate ``which`` (0 rotation, 1 translation) between markers ``i`` and ``j``,
    written once (the compiled step, its force elements and :func:`flexmbs.model.joints.rotation_coordinate`,
    :func:`~flexmbs.model.joints.translation_coordinate` call it): the angle about ``z_i`` from ``x_i`` to ``x_j``
    (rad) and its rate ``z_iᵀ (ω_j - ω_i)``, or the displacement ``z_iᵀ (x_j - x_i)`` (m) and its rate
    ``z_iᵀ (v_j - v_i) + (x_j - x_i)ᵀ (ω_i × z_i)``. ``X``, ``V``, ``W`` (n_m, 3), ``R`` (n_m, 3, 3): marker states."""
    z0, z1, z2 = R[i, 0, 2], R[i, 1, 2], R[i, 2, 2]
    if which == 0:
        ydx = R[i, 0, 1] * R[j, 0, 0] + R[i, 1, 1] * R[j, 1, 0] + R[i, 2, 1] * R[j, 2, 0]
        xdx = R[i, 0, 0] * R[j, 0, 0] + R[i, 1, 0] * R[j, 1, 0] + R[i, 2, 0] * R[j, 2, 0]
        rate = z0 * (W[j, 0] - W[i, 0]) + z1 * (W[j, 1] - W[i, 1]) + z2 * (W[j, 2] - W[i, 2])
        return math.atan2(ydx, xdx), rate
    d0, d1, d2 = X[j, 0] - X[i, 0], X[j, 1] - X[i, 1], X[j, 2] - X[i, 2]
    c0, c1, c2 = W[i, 1] * z2 - W[i, 2] * z1, W[i, 2] * z0 - W[i, 0] * z2, W[i, 0] * z1 - W[i, 1] * z0
    rate = z0 * (V[j, 0] - V[i, 0]) + z1 * (V[j, 1] - V[i, 1]) + z2 * (V[j, 2] - V[i, 2]) + d0 * c0 + d1 * c1 + d2 * c2
    return z0 * d0 + z1 * d1 + z2 * d2, rate


@njit(**INNER)
def coordinate_gradient(which, side, m, n, z0, z1, z2, c0, c1, c2, JX, JTH):
    """``∂θ/∂q̄_n`` of the joint coordinate at marker ``m`` (side 0: marker i, 1: marker j; ``z`` the axis z_i,
    ``c = z_i × (x_j - x_i)``): rotation ``∓ z_iᵀ J_θ``, translation ``cᵀ J_θ,i - z_iᵀ J_x,i`` and ``z_iᵀ J_x,j``
    (``joints.rotation_coordinate``, ``translation_coordinate``)."""
    if which == 0:
        g = z0 * JTH[m, 0, n] + z1 * JTH[m, 1, n] + z2 * JTH[m, 2, n]
        return -g if side == 0 else g
    if side == 0:
        return (c0 * JTH[m, 0, n] + c1 * JTH[m, 1, n] + c2 * JTH[m, 2, n]) - (
            z0 * JX[m, 0, n] + z1 * JX[m, 1, n] + z2 * JX[m, 2, n])
    return z0 * JX[m, 0, n] + z1 * JX[m, 1, n] + z2 * JX[m, 2, n]


@njit(**INNER)
def axis_and_arm(i, j, X, R):
    """The joint axis ``z_i`` and ``z_i × (x_j - x_i)`` (6 floats)."""
    d0, d1, d2 = X[j, 0] - X[i, 0], X[j, 1] - X[i, 1], X[j, 2] - X[i, 2]
    z0, z1, z2 = R[i, 0, 2], R[i, 1, 2], R[i, 2, 2]
    return z0, z1, z2, z1 * d2 - z2 * d1, z2 * d0 - z0 * d2, z0 * d1 - z1 * d0


@njit(**INNER)
def line_state(a, b, X, V):
    """The line from marker ``a`` to marker ``b``: its length ``L`` (m), unit vector ``e`` and rate ``eᵀ (v_b - v_a)``
    (m/s), as ``(L, e0, e1, e2, L̇)`` (the spring-dampers' kernels; :func:`flexmbs.model.measurements.line_between`
    in Python)."""
    d0, d1, d2 = X[b, 0] - X[a, 0], X[b, 1] - X[a, 1], X[b, 2] - X[a, 2]
    length = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
    e0, e1, e2 = d0 / length, d1 / length, d2 / length
    return length, e0, e1, e2, e0 * (V[b, 0] - V[a, 0]) + e1 * (V[b, 1] - V[a, 1]) + e2 * (V[b, 2] - V[a, 2])


@njit(**INNER)
def line_load(a, b, s, e0, e1, e2, JX, marker_body, n_modes, packed):
    """A pair of forces along a line into the quasi-coordinate loads ``packed``: ``s e`` at marker ``a`` and ``-s e``
    at marker ``b`` (``(±s e)ᵀ J_x`` on each marker's body; a ground marker takes none). A spring-damper's tension
    (N, ``e`` the unit vector from ``a`` to ``b``) and a distance's conjugate force (``s = f / L``, ``e = x_a - x_b``)
    are scattered here."""
    for side in range(2):
        m = a if side == 0 else b
        bd = marker_body[m]
        if bd < 0:
            continue
        f = s if side == 0 else -s
        for n in range(6 + n_modes[bd]):
            packed[bd, n] += f * (e0 * JX[m, 0, n] + e1 * JX[m, 1, n] + e2 * JX[m, 2, n])
