"""Flexible bodies on the compiled step (issue 26): their invariants as padded arrays, and their terms of the residual.

The terms of a :class:`flexmbs.model.bodies.FlexibleBody`: mass matrix and quadratic-velocity vector from the
floating-frame kernel :func:`flexmbs.model.kernels.ffrf_mass_and_force` (seed 003 eq. (2-156..2-171)), gravity
``m g``, ``c(q_f) × Aᵀ g``, ``I3ᵀ Aᵀ g``, elastic and modal damping forces ``-K q_f - D q̇_f`` (eq. (2-172),
(2-173)) and, where the body's file has it, the geometric stiffness of issue 28 (``-(K_G(ω, g) + Σ_j q_j G_j) q_f``
and the frame-acceleration coupling ``+B [Aᵀ r̈; ω̇']`` in the mass matrix; docs/theory-multibody.md).

The invariants of all flexible bodies are stacked with zero padding to the largest mode count ``M``; body ``f``
uses the leading ``m_f`` entries. The running deformation amplitude per body (the modal error reference of the
step's error control, :func:`modal_scale`) lives in ``amplitude`` and is updated on accepted steps.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from flexmbs_jit import apart, njit

from flexmbs.model.kernels import INNER, ffrf_mass_and_force, map_mass

__all__ = ["flexible_arrays", "flexible_terms", "observe_amplitudes", "modal_scale"]


def flexible_arrays(system, state_q) -> tuple:
    """``(bodies, data, work)``: indices of the flexible bodies (int64), their padded invariants and the running
    amplitudes (``data``), and scratch for their ``M̄``, ``Q̄`` (``work``)."""
    flex = [b for b in system.bodies if b.n_modes]
    if not flex and _RIGID:  # the arrays that compiled code never writes without flexible bodies (it loops over
        # none) shared; the frames and the difference Jacobian's freeze, mass mode and kept M q̈ the plan's own (≈ 7 µs)
        bodies, data, work = _RIGID
        frame = np.empty(system.n_q, dtype=np.int64)
        frame.fill(-1)
        return bodies, data, (*work[:4], np.zeros(1, dtype=np.int64), *work[5:7], frame, np.zeros(1, dtype=np.int64),
                              np.zeros(system.n_q))
    nf, M, R = 1, 1, 1  # (without flexible bodies: one padded slot of one mode)
    if flex:
        nf, M = len(flex), max(b.n_modes for b in flex)
        R = max([b._kg_weights.shape[1] for b in flex if getattr(b, "has_geometric_stiffness", False)] + [1])
    z = np.zeros
    mass, c0, J0 = z(nf), z((nf, 3)), z((nf, 3, 3))
    i3, i4, i5, i6 = z((nf, 3, M)), z((nf, 3, M)), z((nf, M, 3, M)), z((nf, M, M))
    i8, i8s, i9 = z((nf, M, 3, 3)), z((nf, M, 3, 3)), z((nf, M, M, 3, 3))
    k, d, amp = z((nf, M)), z((nf, M)), z(nf)
    kg_on = np.zeros(nf, dtype=np.int64)
    kg_in, kg_w, kg_h = z((nf, 12, M, M)), z((nf, M, R)), z((nf, R, M, M))
    for f, b in enumerate(flex):
        m = b.n_modes
        mass[f] = b.mass
        fm, io, a3, a4, a5, a6, a8, a8s, a9 = b._ffrf_args
        c0[f], J0[f] = fm, io
        i3[f, :, :m], i4[f, :, :m], i5[f, :m, :, :m], i6[f, :m, :m] = a3, a4, a5, a6
        i8[f, :m], i8s[f, :m], i9[f, :m, :m] = a8, a8s, a9
        k[f, :m], d[f, :m] = b.modal_stiffness, b.modal_damping
        amp[f] = float(np.max(np.abs(state_q[b.offset + 7:b.offset + 7 + m])))
        if getattr(b, "has_geometric_stiffness", False):
            kg_on[f] = 1
            r = b._kg_weights.shape[1]
            kg_in[f, :, :m, :m] = b._kg_inertia
            kg_w[f, :m, :r] = b._kg_weights
            kg_h[f, :r, :m, :m] = b._kg_shapes
    bodies = np.array([b.index for b in flex], dtype=np.int64)
    data = (mass, c0, J0, i3, i4, i5, i6, i8, i8s, i9, k, d, amp, kg_in, kg_w, kg_h, kg_on)
    frame = np.empty(system.n_q, dtype=np.int64)  # the flexible body (slot) whose frame coordinate a column is
    frame.fill(-1)  # (-1: none; np.full and -np.ones cost three times this)
    for f, b in enumerate(flex):
        frame[b.offset:b.offset + 7] = f
    work = (z((nf, 6 + M, 6 + M)), z((nf, 6 + M)), z((M, M)), z(M), np.zeros(nf, dtype=np.int64),
            z((nf, 6 + M, 6 + M)), z((nf, 6 + M)), frame, np.zeros(1, dtype=np.int64), z(system.n_q))
    return bodies, data, work


_RIGID: tuple = ()  # flexible_arrays without flexible bodies (read-only), made once below
_RIGID = flexible_arrays(SimpleNamespace(bodies=[], n_q=0), None)
for _array in (_RIGID[0], *_RIGID[1], *_RIGID[2]):
    _array.flags.writeable = False
del _array


@apart(python=False, counted=False)
def flexible_terms(q, v, P, mass_out, packed):
    """Mass blocks ``Lᵀ M̄ L`` into ``mass_out`` and the bodies' own loads into the rows of ``packed`` (module
    docstring), for every flexible body (``P``: the plan, :mod:`flexmbs.engine.plan_fields`, with the body
    kinematics at ``q``, ``q̇``). ``P.freeze[f]``: 0 evaluates the floating-frame inertia terms, 1 also keeps them,
    2 takes the kept ones (the difference Jacobian's columns that leave them unchanged or whose effect on them it
    leaves out, :func:`flexmbs.engine.step.jacobian_blocks`); gravity, elastic, damping and geometric terms are
    always evaluated. ``P.mass_mode[0]`` 2: the mass matrix is not needed (:func:`flexmbs.engine.step.residual`
    takes the kept ``M q̈``)."""
    A, omega, G, bodies, offsets, n_modes, gravity = P.A, P.omega, P.G, P.fx_bodies, P.offsets, P.n_modes, P.gravity
    # the invariants and scratch by name (unpacking the 17- and 10-tuples was code of its own: issue 42)
    mass, c0, J0, i3, i4, i5, i6 = P.fx_mass, P.fx_first_moment, P.fx_inertia, P.fx_i3, P.fx_i4, P.fx_i5, P.fx_i6
    i8, i8s, i9, kd, dd = P.fx_i8, P.fx_i8s, P.fx_i9, P.fx_stiffness, P.fx_damping
    kg_in, kg_w, kg_h, kg_on = P.fx_kg_inertia, P.fx_kg_weights, P.fx_kg_shapes, P.fx_kg_on
    mbar_all, qv_all, kmat, kq, freeze = P.fx_mbar, P.fx_qv, P.fx_kmat, P.fx_kq, P.freeze
    mbar_kept, qv_kept, mass_mode = P.fx_mbar_kept, P.fx_qv_kept, P.mass_mode
    with_mass = mass_mode[0] != 2
    for f in range(bodies.size):
        b = bodies[f]
        m = n_modes[b]
        o = offsets[b]
        qf = q[o + 7:o + 7 + m]
        qfd = v[o + 7:o + 7 + m]
        mbar = mbar_all[f, :6 + m, :6 + m]
        qv = qv_all[f, :6 + m]
        if freeze[f] == 2:  # the inertia terms kept from the last evaluation with freeze 1 (jacobian_blocks)
            _keep(mbar_kept, qv_kept, mbar_all, qv_all, f, 6 + m, 6 + m if with_mass else 0)
        else:
            ffrf_mass_and_force(A[b], omega[b], qf, qfd, mass[f], c0[f], J0[f], i3[f, :, :m], i4[f, :, :m],
                                i5[f, :m, :, :m], i6[f, :m, :m], i8[f, :m], i8s[f, :m], i9[f, :m, :m], mbar, qv)
            if freeze[f] == 1:
                _keep(mbar_all, qv_all, mbar_kept, qv_kept, f, 6 + m, 6 + m)
        # gravity: m g, c(q_f) × Aᵀ g, I3ᵀ Aᵀ g (scalars: this function allocates nothing)
        g0 = A[b, 0, 0] * gravity[0] + A[b, 1, 0] * gravity[1] + A[b, 2, 0] * gravity[2]
        g1 = A[b, 0, 1] * gravity[0] + A[b, 1, 1] * gravity[1] + A[b, 2, 1] * gravity[2]
        g2 = A[b, 0, 2] * gravity[0] + A[b, 1, 2] * gravity[1] + A[b, 2, 2] * gravity[2]
        for r in range(3):
            qv[r] += mass[f] * gravity[r]
        cx, cy, cz = c0[f, 0], c0[f, 1], c0[f, 2]  # c(q_f) = c0 + I3 q_f
        for j in range(m):
            cx += i3[f, 0, j] * qf[j]
            cy += i3[f, 1, j] * qf[j]
            cz += i3[f, 2, j] * qf[j]
        qv[3] += cy * g2 - cz * g1
        qv[4] += cz * g0 - cx * g2
        qv[5] += cx * g1 - cy * g0
        for j in range(m):
            qv[6 + j] += (i3[f, 0, j] * g0 + i3[f, 1, j] * g1 + i3[f, 2, j] * g2
                          - kd[f, j] * qf[j] - dd[f, j] * qfd[j])
        if kg_on[f]:
            _geometric(f, m, A[b], omega[b], g0, g1, g2, qf, kg_in, kg_w, kg_h, kmat, kq, mbar, qv)
        if with_mass:
            map_mass(mbar, G[b], mass_out, o)
        for n in range(6 + m):
            packed[b, n] = qv[n]


@njit(**INNER)
def _keep(mbar_from, qv_from, mbar_to, qv_to, f, n, n_mass):
    """Body ``f``'s inertia terms, ``M̄`` (``n_mass × n_mass``: 0 leaves it) and ``Q̄_v`` (``n``), from one pair of
    buffers into the other (loops: numba's slice assignment of an array brings its shape check and error message,
    string formatting included, into every function that has one; issue 42)."""
    for i in range(n_mass):
        for j in range(n_mass):
            mbar_to[f, i, j] = mbar_from[f, i, j]
    for i in range(n):
        qv_to[f, i] = qv_from[f, i]


@apart(python=False)
def _geometric(f, m, A, w, g0, g1, g2, qf, kg_in, kg_w, kg_h, kmat, kq, mbar, qv):
    """Issue 28's geometric stiffness of body ``f`` and its frame-acceleration coupling."""
    p = np.zeros(12)  # the parameters: ω_i ω_j, −g (body axes)
    p[0], p[1], p[2] = w[0] * w[0], w[1] * w[1], w[2] * w[2]
    p[3], p[4], p[5] = w[0] * w[1], w[1] * w[2], w[0] * w[2]
    p[6], p[7], p[8] = -g0, -g1, -g2
    R = kg_w.shape[2]
    for r in range(R):  # Σ_j q_j G_j = Σ_r (q·U_r) H_r
        s = 0.0
        for j in range(m):
            s += qf[j] * kg_w[f, j, r]
        kq[r] = s
    for i in range(m):
        for j in range(m):
            s = 0.0
            for c in range(9):
                s += p[c] * kg_in[f, c, i, j]
            for r in range(R):
                s += kq[r] * kg_h[f, r, i, j]
            kmat[i, j] = s
    for i in range(m):
        s = 0.0
        for j in range(m):
            s += kmat[i, j] * qf[j]
        qv[6 + i] -= s
    for i in range(m):  # B = [G_ax q, ..., G_αz q] (m, 6): M̄[6:, 0:3] += B[:, :3] Aᵀ, M̄[6:, 3:6] += B[:, 3:]
        bq = np.zeros(6)
        for c in range(6):
            s = 0.0
            for j in range(m):
                s += kg_in[f, 6 + c, i, j] * qf[j]
            bq[c] = s
        for r in range(3):
            mbar[6 + i, r] += bq[0] * A[r, 0] + bq[1] * A[r, 1] + bq[2] * A[r, 2]
            mbar[6 + i, 3 + r] += bq[3 + r]


@njit(**INNER)
def modal_scale(bodies, offsets, n_modes, amp, rtol, qa, qb, out):
    """``GeneralizedAlpha._q_scale`` of the modal coordinates: ``+ rtol · max(amplitude, max|q_f|)`` per body."""
    for f in range(bodies.size):
        b = bodies[f]
        o = offsets[b] + 7
        size = amp[f]
        for j in range(n_modes[b]):
            size = max(size, abs(qa[o + j]), abs(qb[o + j]))
        for j in range(n_modes[b]):
            out[o + j] += rtol * size


@njit(**INNER)
def observe_amplitudes(bodies, offsets, n_modes, amp, q):
    """The running max of ``|q_f|`` per flexible body (after each accepted step)."""
    for f in range(bodies.size):
        b = bodies[f]
        o = offsets[b] + 7
        for j in range(n_modes[b]):
            amp[f] = max(amp[f], abs(q[o + j]))
