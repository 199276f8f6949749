"""The compiled time loop (issue 26): generalized-α Newton step, error estimate and step-size control.

The one time loop of flexmbs: the generalized-α method of Arnold & Brüls with the coefficients of
:class:`flexmbs.engine.integrator.GeneralizedAlpha`, on the arrays of :mod:`flexmbs.engine.plan`. :func:`advance`
steps until the next output time, the end, or a failure, and returns to Python only then.

A state is the tuple ``(q, v, a, q̈, z, ż, w, λ, ż_previous)`` (``a`` and ``w`` the pseudo-accelerations and
pseudo-rates). When Newton fails at the smallest step, Python re-chooses the constraint rows
(:func:`flexmbs.engine.redundancy.reselect_rows`) and the loop goes on with a fresh Jacobian (``mode`` 4).
"""
from __future__ import annotations

import math

import numpy as np

from flexmbs_jit import apart, njit
from flexmbs_jit.stack import scratch

from flexmbs.model.kernels import INLINE, INNER

from .flex_terms import modal_scale, observe_amplitudes
from .lapack import factor, solve
from .equations import REACTION_PASSES, REACTION_RTOL
from .force_elements import joint_reaction
from .step import (ERR, END, NEXT, ERROR_FAILED, F_FRESH, F_HALVED, F_PREV, F_REJECTED, H, H_PREV, H_TRY,
                            MAX_STEPS, NEWTON_FAILED, OUTPUT, S_FACT, S_ITER, S_JAC, S_LAST_ITERS, S_NEWTON_FAIL,
                            S_REJECTED, S_RES, S_STEPS, S_WORST, STEP_TOO_SMALL, T, all_multipliers, call_kernel,
                            constraint_values, constraints_at, force_elements, force_kernels, integrands,
                            jacobian_blocks, keep_angles, residual, signals_at, to_python)

# coefficient slots
(C_AM, C_AF, C_G, C_B, C_RTOL, C_ATOL, C_MAXNEWTON, C_TEND, C_MAXSTEP, C_MINSTEP, C_SAFETY, C_SHRINK, C_GROW,
 C_INTERVAL) = range(14)
# the work of a sample: bits of ``P.sample_count[1]`` (:meth:`flexmbs.engine.samples.Sampler.request` sets them from
# the signals the run records; all of them by default). A runtime value, not a compiled specialization (issue 42).
SAMPLE_REACTIONS = 1  # consistent multipliers: the acceleration-level solve (consistent_sample)
SAMPLE_JOINTS = 2  # joint reactions from those multipliers
SAMPLE_FORCE_OUTPUTS = 4  # outputs of the force elements with their own kernels (force_kernels mode 1)
SAMPLE_ELEMENT_OUTPUTS = 8  # outputs of the state elements' kernels (mode 1)
SAMPLE_COORDINATES = 16  # joint coordinates (rotation, translation)
SAMPLE_ALL = 31
STACK_KKT = 48  # unknowns: a sample's KKT matrix up to this size on the stack (18 kB; flexmbs_jit.stack)
CONTINUE = 6  # advance() returns after a chunk of steps (watchdog, progress, Ctrl-C)
EVENT = 7  # an armed contact gap closed in the pending step: Python locates its root (flexmbs.engine.events)


@njit(**INNER)
def _scale_q(rot, scale_q, fx_bodies, offsets, n_modes, amplitude, coef, qa, qb, out):
    """:meth:`GeneralizedAlpha._q_scale`: ``atol`` per kind, Euler parameters the tighter of that and
    ``atol + rtol·max|p|``, modal coordinates plus ``rtol`` × the body's deformation amplitude. ``out`` may be
    longer than ``q``."""
    for i in range(scale_q.size):
        out[i] = scale_q[i]
    for k in range(rot.size):
        i = rot[k]
        size = max(abs(qa[i]), abs(qb[i]))
        out[i] = min(out[i], coef[C_ATOL] + coef[C_RTOL] * size)
    if fx_bodies.size:
        modal_scale(fx_bodies, offsets, n_modes, amplitude, coef[C_RTOL], qa, qb, out)


@apart(python=False, counted=False)
def newton_step(h, P):
    """One attempt ``t → t + h`` from ``P.cur`` into ``P.new``; returns the iteration count, or -1 non-finite
    residual, -2 non-finite update (singular matrix), -3 diverging, -4 too many iterations (``P.rhs`` holds the
    residual)."""
    cur, new, coef, sc, stats, cb, rhs, mat, piv = P.cur, P.new, P.coef, P.sc, P.stats, P.cb, P.rhs, P.mat, P.piv
    q, v, a, qdd, z, zd, w, lam, zdp = cur
    q1, v1, a1, qdd1, z1, zd1, w1, lam1, zdp1 = new
    K, C, Dz, Gq, Gv, Gz = P.K, P.C, P.Dz, P.Gq, P.Gv, P.Gz
    res, zdot, phi, jac, mass = P.res, P.zdot, P.phi, P.jac, P.mass
    am, af, g, b = coef[C_AM], coef[C_AF], coef[C_G], coef[C_B]
    n_q, n_z, n_c = q.size, z.size, lam.size
    n = n_q + n_z + n_c
    work = P.nwork  # [zbase (n_z) | λ h² β (n_c) | q weights (n_q) | z weights (n_z) | update (n)]: no allocations
    zbase = work[:n_z]
    lam_s = work[n_z:n_z + n_c]
    weights = work[n_z + n_c:n_z + n_c + n_q]
    zw = work[n_z + n_c + n_q:2 * n_z + n_c + n_q]
    delta = work[2 * n_z + n_c + n_q:2 * n_z + n_c + n_q + n]
    t1 = sc[T] + h
    signals_at(t1, sc, cb)
    bh2 = b * h * h
    for i in range(n_q):
        a1[i] = (qdd[i] - am * a[i]) / (1.0 - am)
        qdd1[i] = qdd[i]
        q1[i] = q[i] + h * v[i] + h * h * ((0.5 - b) * a[i] + b * a1[i])
        v1[i] = v[i] + h * ((1.0 - g) * a[i] + g * a1[i])
    for i in range(n_z):
        w1[i] = (zd[i] - am * w[i]) / (1.0 - am)
        z1[i] = z[i] + h * ((1.0 - g) * w[i] + g * w1[i])
        zbase[i] = z[i] + h * (1.0 - g) * w[i]
    for r in range(n_c):
        lam_s[r] = lam[r] * bh2
    beta_p = (1.0 - am) / ((1.0 - af) * bh2)
    gamma_p = g / (b * h)
    _scale_q(P.rot, P.scale_q, P.fx_bodies, P.offsets, P.n_modes, P.amplitude, coef, q1, q1, weights)
    for i in range(n_q):
        weights[i] = 1.0 / weights[i]
    for i in range(n_z):
        zw[i] = 1.0 / (P.scale_z[i] + coef[C_RTOL] * abs(z1[i]))
    previous = -1.0
    c_m = (1.0 - am) / (1.0 - af)
    c_z = (1.0 - af) / (1.0 - am)
    gh = g * h
    done = 0
    for it in range(1, int(coef[C_MAXNEWTON]) + 1):
        for r in range(n_c):
            lam1[r] = lam_s[r] / bh2
        residual(t1, q1, v1, qdd1, z1, lam1, P, res, zdot, phi, jac, mass, True)
        stats[S_RES] += 1
        for i in range(n_q):
            rhs[i] = -bh2 * res[i]
        for i in range(n_z):
            w_new = ((1.0 - af) * zdot[i] + af * zd[i] - am * w[i]) / (1.0 - am)
            rhs[n_q + i] = -(z1[i] - zbase[i] - h * g * w_new)
        for r in range(n_c):
            rhs[n_q + n_z + r] = -phi[r]
        for i in range(n):
            if not math.isfinite(rhs[i]):
                return -1
        if it == 1:  # the iteration matrix: fresh M(q) and Φ_q, reused K, C, ... blocks
            for i in range(n_q, n):  # the rows of z and λ, whose blocks (z, λ), (λ, z), (λ, λ) stay zero; the rows
                for j in range(n):  # of q are written whole below (a row from column 0: plain vector stores)
                    mat[i, j] = 0.0
            for i in range(n_q):
                for j in range(n_q):
                    mat[i, j] = c_m * mass[i, j] + gh * C[i, j] + bh2 * K[i, j]
                for r in range(n_c):
                    mat[i, n_q + n_z + r] = jac[r, i]
                    mat[n_q + n_z + r, i] = jac[r, i]
                for j in range(n_z):
                    mat[i, n_q + j] = bh2 * Dz[i, j]
                    mat[n_q + j, i] = -gh * c_z * (Gq[j, i] + Gv[j, i] * g / (b * h))
            for i in range(n_z):
                for j in range(n_z):
                    mat[n_q + i, n_q + j] = (1.0 if i == j else 0.0) - gh * c_z * Gz[i, j]
            stats[S_FACT] += 1
            if not factor(P.getrf, mat, piv):
                return -2
        for i in range(n):
            delta[i] = rhs[i]
        solve(P.getrs, mat, piv, delta)
        for i in range(n):
            if not math.isfinite(delta[i]):
                return -2
        ssum = 0.0
        for i in range(n_q):
            dq = delta[i]
            q1[i] += dq
            v1[i] += gamma_p * dq
            qdd1[i] += beta_p * dq
            ssum += (dq * weights[i]) ** 2
        for i in range(n_z):
            z1[i] += delta[n_q + i]
            ssum += (delta[n_q + i] * zw[i]) ** 2
        for r in range(n_c):
            lam_s[r] += delta[n_q + n_z + r]
        norm = math.sqrt(ssum / max(1, n_q + n_z))
        stats[S_ITER] += 1
        pmax = 0.0
        for r in range(n_c):
            pmax = max(pmax, abs(phi[r]))
        small_phi = pmax < 1e-6
        converged = norm < 1e-3 and small_phi
        if not converged and previous >= 0.0:
            rate = norm / previous
            converged = rate < 1.0 and norm * rate / (1.0 - rate) < 3e-2 and small_phi
            if not converged and rate > 0.9 and norm > 1e-2:
                return -3
        if converged:
            done = it
            break
        previous = norm
    if done == 0:
        return -4
    # converged: pseudo-rates, rates, pseudo-accelerations, multipliers
    for i in range(n_z):
        w1[i] = (z1[i] - zbase[i]) / (h * g)
        zd1[i] = ((1.0 - am) * w1[i] + am * w[i] - af * zd[i]) / (1.0 - af)
        zdp1[i] = zd[i]
    for i in range(n_q):
        a1[i] = a1[i] + (1.0 - af) / (1.0 - am) * (qdd1[i] - qdd[i])
    for r in range(n_c):
        lam1[r] = lam_s[r] / (b * h * h)
    return done


@apart(python=False, counted=False)
def error_vector(h, P):
    """The local error (:mod:`flexmbs.engine.integrator`) into ``P.errv`` (n_q + n_z,) from the step ``P.cur`` →
    ``P.new``, ``(q, a, z, ż) → (q1, a1, z1, ż1)`` (``zdp``: ``ż`` of the step before); returns the weighted RMS."""
    cur, new, coef, fl, sc, out = P.cur, P.new, P.coef, P.fl, P.sc, P.errv
    q, a, z, zd, zdp = cur[0], cur[2], cur[4], cur[5], cur[8]
    q1, a1, z1, zd1 = new[0], new[2], new[4], new[5]
    scale_z = P.scale_z
    n_q, n_z = q.size, z.size
    c = h * h * abs(coef[C_B] - 1.0 / 6.0)
    _scale_q(P.rot, P.scale_q, P.fx_bodies, P.offsets, P.n_modes, P.amplitude, coef, q, q1, out)
    s = 0.0
    for i in range(n_q):
        out[i] = c * (a1[i] - a[i]) / out[i]
        s += out[i] ** 2
    for i in range(n_z):
        if fl[F_PREV] == 1 and sc[H_PREV] > 0.0:
            extrapolated = zd[i] + (zd[i] - zdp[i]) * (h / sc[H_PREV])
            e = h / 2.0 * (zd1[i] - extrapolated)
        else:
            e = h / 6.0 * (zd1[i] - zd[i])
        out[n_q + i] = e / (scale_z[i] + coef[C_RTOL] * max(abs(z[i]), abs(z1[i])))
        s += out[n_q + i] ** 2
    n = n_q + n_z
    return math.sqrt(s / n) if n else 0.0


@njit(**INNER)
def _copy(source, target):
    """``target[:] = source`` of two vectors of one size (a loop: numba's slice assignment of an array brings its
    shape check and error message, string formatting included, into every function that has one; issue 42)."""
    for i in range(source.size):
        target[i] = source[i]


@njit(**INNER)
def _largest(values):
    """``np.argmax(np.abs(values))``: the first index of the largest magnitude, or of the first NaN."""
    worst, largest = 0, -1.0
    for i in range(values.size):
        size = abs(values[i])
        if size != size:
            return i
        if size > largest:
            worst, largest = i, size
    return worst


@njit(**INNER)
def _trapezoid(h, aux, integrals, aux_prev):
    """Add the trapezoid of the step ``h`` with the integrands ``aux`` at its end (``aux_prev`` at its start)."""
    for k in range(aux.size):
        integrals[k] += 0.5 * h * (aux_prev[k] + aux[k])
        aux_prev[k] = aux[k]


@njit(cache=True)
def advance(mode, chunk, max_steps, P):
    """Step the plan ``P`` (:mod:`flexmbs.engine.plan_fields`: the model's arrays and the run's state) from
    ``P.cur``, sampling at the output times into the buffers ``P.bf`` (:func:`take_sample`), until the end, a full
    buffer (OUTPUT), ``chunk`` step attempts (CONTINUE) or a failure; returns a code. ``mode`` 0: the start instead
    (first sample, Jacobian, integrands; one compiled entry point loads faster than several); ``mode`` 2: accept the
    step left pending by an EVENT return (Python located the contact onset in it); ``mode`` 4: a fresh Jacobian at
    the current state."""
    cur, new, coef, sc, fl, stats = P.cur, P.new, P.coef, P.sc, P.fl, P.stats
    limiting, errv, integrals, aux_prev = P.limiting, P.errv, P.integrals, P.aux_prev
    if mode == 0:
        take_sample(0.0, 0, P, False)
        _refresh(P)
        integrands_at(P)
        _copy(P.aux, aux_prev)
        if P.gap_pos.size:
            _gaps_at(sc[T], cur, P)
        return CONTINUE
    if mode == 4:  # a fresh Jacobian at the current state (after Python re-chose the constraint rows)
        _refresh(P)
        fl[F_FRESH] = 1
        return CONTINUE
    t_end = coef[C_TEND]
    done = 0
    h_try, err, iters = sc[H_TRY], sc[ERR], stats[S_LAST_ITERS]  # mode 2: the pending step's
    while True:
        if mode != 2:
            if done >= chunk:
                return CONTINUE
            done += 1
            if stats[S_STEPS] >= max_steps:
                return MAX_STEPS
            h_try = min(sc[H], t_end - sc[T])
            sc[H_TRY] = h_try
            iters = newton_step(h_try, P)
            if iters < 0:  # Newton failed: halve once, then a fresh Jacobian, then a quarter step (Python re-chooses the rows)
                stats[S_NEWTON_FAIL] += 1
                if fl[F_FRESH] == 0 and fl[F_HALVED] == 0 and 0.5 * h_try >= coef[C_MINSTEP]:
                    fl[F_HALVED] = 1
                    sc[H] = 0.5 * h_try
                    continue
                if fl[F_FRESH] == 0:
                    _refresh(P)
                    fl[F_FRESH] = 1
                    continue
                sc[H] = 0.25 * h_try
                if sc[H] < coef[C_MINSTEP]:
                    stats[S_LAST_ITERS] = iters
                    return NEWTON_FAILED
                continue
            err = error_vector(h_try, P)
            if not math.isfinite(err):
                err = 1e6
            if err > 1.0:  # the step is rejected: shrink by the error
                stats[S_REJECTED] += 1
                fl[F_REJECTED] = 1
                worst = _largest(errv)
                limiting[worst] += 1
                sc[H] = h_try * max(coef[C_SHRINK], coef[C_SAFETY] * err ** (-1.0 / 3.0))
                if sc[H] < coef[C_MINSTEP]:
                    stats[S_WORST] = worst
                    return ERROR_FAILED
                continue
            if P.gap_pos.size:  # a closing contact goes to Python for its root
                _gaps_at(sc[T] + h_try, new, P)
                if _closing(P):
                    sc[ERR] = err
                    stats[S_LAST_ITERS] = iters
                    return EVENT
        # accept: take ``new``, integrate, control the step, sample
        for k in range(len(cur)):
            _copy(new[k], cur[k])
        keep_angles(P.meas_kind, P.y, P.angle_ref)  # the last evaluation was at (or a Newton correction from) ``new``
        if P.fx_bodies.size:
            observe_amplitudes(P.fx_bodies, P.offsets, P.n_modes, P.amplitude, cur[0])
        sc[H_PREV] = h_try
        fl[F_PREV] = 1
        sc[T] = sc[T] + h_try
        stats[S_STEPS] += 1
        stats[S_LAST_ITERS] = iters
        sc[ERR] = err
        end = sc[T] >= t_end * (1.0 - 1e-12)
        interval = coef[C_INTERVAL]
        sample = interval == 0.0 or sc[T] >= sc[NEXT] - 1e-12 * t_end or end  # the output rule
        integrate = P.aux.size > 0  # the trapezoid of the elements' integrands (flexmbs.engine.integrals)
        if integrate and not sample:  # a sample evaluates the integrands at this state anyway (and integrates)
            integrands_at(P)
            _trapezoid(h_try, P.aux, integrals, aux_prev)
        fl[F_FRESH] = 0
        fl[F_HALVED] = 0
        if iters > 3:
            _refresh(P)
            fl[F_FRESH] = 1
        if err > 0:
            factor = min(coef[C_GROW], max(0.5, coef[C_SAFETY] * err ** (-1.0 / 3.0)))
        else:
            factor = coef[C_GROW]
        if fl[F_REJECTED] == 1:
            factor = min(factor, 1.0)
            fl[F_REJECTED] = 0
        if h_try >= sc[H] * (1.0 - 1e-12) and (factor < 0.9 or factor > 1.2):
            sc[H] = min(coef[C_MAXSTEP], h_try * factor)
        code = -1
        if sc[H] < coef[C_MINSTEP] * max(1.0, abs(sc[T])):
            if integrate and sample:
                integrands_at(P)
                _trapezoid(h_try, P.aux, integrals, aux_prev)
            code = STEP_TOO_SMALL
        else:
            if sample:
                take_sample(h_try, iters, P, True)
                sc[NEXT] = sc[T] + interval
            if end:
                code = END
            elif P.sample_count[0] >= P.sample_times.size:
                code = OUTPUT
        if mode == 2:
            return CONTINUE if code < 0 else code
        if P.gap_pos.size:
            _rearm(P)
        if code >= 0:
            return code


@apart(python=False)
def _gaps_at(t, state, P):
    """The elements' event gaps and rates at ``state`` (kernel mode 2) into ``P.gaps``."""
    q, v, a, qdd, z, zd, w, lam, zdp = state
    el_g, gaps = P.gap_offsets, P.gaps
    residual(t, q, v, qdd, z, lam, P, P.res, P.zdot, P.phi, P.jac, P.mass, False)
    el_z, el_y, el_s, el_f, el_i = P.el_z, P.el_y, P.el_s, P.el_f, P.el_i
    ipar, fpar, sig, y, ydot = P.ipar, P.fpar, P.sig, P.y, P.ydot
    rates, forces = np.empty(z.size + 1), np.empty(y.size + 1)
    if P.n_force_gaps[0]:  # force elements' gaps (contacts), in Python, after the elements'
        to_python(q, v, z, lam, P)
        P.gap_cb(t)
    kernels = P.el_kernels
    for e in range(kernels.size):
        if el_g[e + 1] > el_g[e]:
            z0, y0, s0, f0, i0 = el_z[e], el_y[e], el_s[e], el_f[e], el_i[e]
            call_kernel(kernels[e], 2, t, P.zs[z0:], y[y0:], ydot[y0:], sig[s0:], fpar[f0:], ipar[i0:], rates,
                        forces, gaps[el_g[e]:])


@njit(**INNER)
def _closing(P):
    """An armed gap closed (``g ≤ 0``): :meth:`flexmbs.engine.events.EventLocator.check`."""
    pos, gaps, armed = P.gap_pos, P.gaps, P.gap_armed
    for k in range(pos.size):
        if gaps[pos[k]] <= 0.0 and armed[k] == 1:
            return True
    return False


@njit(**INNER)
def _rearm(P):
    """:meth:`flexmbs.engine.events.EventLocator._rearm` with the gaps at the accepted state."""
    pos, gaps, armed, rearm = P.gap_pos, P.gaps, P.gap_armed, P.gap_rearm[0]
    for k in range(pos.size):
        g = gaps[pos[k]]
        armed[k] = 1 if (g > rearm or (g > 0.0 and armed[k] == 1)) else 0


@apart(python=False, counted=False)
def _refresh(P):
    """Fresh Jacobian blocks at ``P.cur``."""
    q, v, a, qdd, z, zd, w, lam, zdp = P.cur
    sc, stats = P.sc, P.stats
    stats[S_RES] += jacobian_blocks(sc[T], q, v, qdd, z, lam, P, P.cb, sc)
    stats[S_JAC] += 1


@apart(python=False, counted=False)
def integrands_at(P):
    """The elements' integrands at the current state into ``P.aux`` (after an accepted step, at the start)."""
    sc, cur = P.sc, P.cur
    signals_at(sc[T], sc, P.cb)
    integrands(sc[T], cur[0], cur[1], cur[4], P, P.zdot)


@njit(**INLINE)  # (in sample_reactions, which counts references: a large model's matrix is allocated)
def consistent_sample(P, out_lam):
    """The multipliers of :func:`flexmbs.engine.initial.initial_accelerations` at the current state into ``out_lam``
    (models without force elements): ``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]`` with ``γ`` from the second difference of
    ``Φ(q + s q̇)`` (and of ``t + s`` with prescribed motions); returns False when the matrix is singular. The
    workspace (forces, element signals, ``Φ``) is left at the sample's state. Nothing is allocated up to
    :data:`STACK_KKT` unknowns: the matrix and one vector for the rest are on the caller's stack
    (:func:`flexmbs_jit.stack.scratch`), the pivots in the Newton matrix's (free between steps); a sample runs at
    every output time, and an allocation with its reference counts cost about as much as the small solve itself."""
    q, v, a, qdd, z, zd, w, lam, zdp = P.cur
    sc, cb = P.sc, P.cb
    res, zdot, phi, jac, mass = P.res, P.zdot, P.phi, P.jac, P.mass
    n_q, n_c = q.size, lam.size
    n = n_q + n_c
    speed = 0.0
    for i in range(n_q):
        speed += v[i] * v[i]
    s = 1e-4 / max(math.sqrt(speed), 1.0)
    work = scratch(2 * n + n_q + n_c)  # [right-hand side | zero q̈ | zero λ | q ± s q̇ | γ], on the stack
    for i in range(work.size):
        work[i] = 0.0
    rhs, zero_q, zero_c = work[:n], work[n:n + n_q], work[n + n_q:2 * n]
    shifted, gamma = work[2 * n:2 * n + n_q], work[2 * n + n_q:]
    rheonomic = P.drv.shape[0] > 0  # prescribed motions: Φ(q + s q̇, t + s)
    values_only = not rheonomic and P.py_rows.size == 0  # Φ alone (the residual below sets everything else)
    for k in (-1.0, 1.0):
        t_k = sc[T] + k * s if rheonomic else sc[T]
        signals_at(t_k, sc, cb)
        for i in range(n_q):
            shifted[i] = q[i] + k * s * v[i]
        if values_only:
            constraint_values(shifted, P, phi, False)
        else:
            constraints_at(t_k, shifted, v, P, phi, jac)
        for r in range(n_c):
            gamma[r] -= phi[r] / s ** 2
    signals_at(sc[T], sc, cb)
    residual(sc[T], q, v, zero_q, z, zero_c, P, res, zdot, phi, jac, mass, True)
    if n <= STACK_KKT:  # a small matrix on the stack; a large one (flexible bodies' modes) from the heap
        kkt = scratch(n * n).reshape((n, n))
        for i in range(n):
            for j in range(n):
                kkt[i, j] = 0.0
    else:
        kkt = np.zeros((n, n))
    for i in range(n_q):
        rhs[i] = -res[i]
        for j in range(n_q):
            kkt[i, j] = mass[i, j]
        for r in range(n_c):
            kkt[i, n_q + r] = jac[r, i]
            kkt[n_q + r, i] = jac[r, i]
    for r in range(n_c):
        gamma[r] += 2.0 * phi[r] / s ** 2
        rhs[n_q + r] = gamma[r]
    piv = P.piv[:n]  # (free between steps: each step factorizes its Newton matrix anew)
    if not factor(P.getrf, kkt, piv):
        return False
    solve(P.getrs, kkt, piv, rhs)
    if P.f_friction[0]:  # friction from the reactions: the fixed point λ = λ(Q(λ)) (initial.initial_accelerations)
        for _ in range(REACTION_PASSES):
            for r in range(n_c):
                out_lam[r] = rhs[n_q + r]
            residual(sc[T], q, v, zero_q, z, out_lam, P, res, zdot, phi, jac, mass, True)
            for i in range(n_q):
                s_ = -res[i]
                for r in range(n_c):
                    s_ += jac[r, i] * out_lam[r]
                rhs[i] = s_
            for r in range(n_c):
                rhs[n_q + r] = gamma[r]
            solve(P.getrs, kkt, piv, rhs)
            change, size = 0.0, 0.0
            for r in range(n_c):
                change = max(change, abs(rhs[n_q + r] - out_lam[r]))
                size = max(size, abs(rhs[n_q + r]))
            if change <= REACTION_RTOL * max(size, 1e-300):
                break
    for i in range(n):
        if not math.isfinite(rhs[i]):
            return False
    for r in range(n_c):
        out_lam[r] = rhs[n_q + r]
    return True


@apart(python=False)
def sample_reactions(P, lam_c):
    """A sample's reactions: the consistent multipliers into ``lam_c`` (:func:`consistent_sample`; at a singular
    instant the integrator's, reported) and, if recorded, the joints' reactions from them into the sample's row
    (``Context.joint_reaction``). Apart from :func:`take_sample`, so that it alone counts references (the matrix of
    a large model and the multipliers of redundant rows are allocated): a sample without them counts none (every
    read of the plan's arrays was an atomic increment and decrement: ≈ 0.15 µs of a 1 µs sample on the race)."""
    q, lam = P.cur[0], P.cur[7]
    sc, FB, row = P.sc, P.sample_fallbacks, P.sample_count[0]
    if not consistent_sample(P, lam_c):
        _copy(lam, lam_c)  # a singular instant: the integrator's multipliers (reported)
        if FB[0] == 0:
            FB[1] = sc[T]
        FB[0] += 1
    if not P.sample_count[1] & SAMPLE_JOINTS:
        return
    JF, JT = P.sample_joint_force, P.sample_joint_torque
    jt_side, jt_on_j, jt_body, jt_mi, jt_mj = P.jt_side, P.jt_on_j, P.jt_body, P.jt_mi, P.jt_mj
    jr_joint, jr_pos, jr_lam = P.jr_joint, P.jr_pos, P.jr_lam
    A, X, ji, jj, offsets = P.A, P.X, P.ji, P.jj, P.offsets
    gen = scratch(6 * jt_side.size).reshape((jt_side.size, 6))
    lam_all = all_multipliers(P.keep, P.jac_all, lam_c)
    for j in range(jt_side.size):
        for c in range(6):
            gen[j, c] = 0.0
    for k in range(jr_joint.size):
        j, p, r = jr_joint[k], jr_pos[k], jr_lam[k]
        for c in range(6):
            gen[j, c] -= (jj[p, c] if jt_on_j[j] == 1 else ji[p, c]) * lam_all[r]
    for j in range(jt_side.size):
        joint_reaction(gen[j], jt_mi[j], jt_mj[j], jt_side[j], jt_body[j], jt_on_j[j] == 1, q, A, X, offsets,
                       JF[row, j], JT[row, j])


@apart(python=False, counted=False)
def take_sample(h, iters, P, integrate):
    """One output sample into row ``P.sample_count[0]`` of the buffers (the numbers ``Recorder.record`` takes from
    a context): consistent and joint reactions (:func:`sample_reactions`), body and marker states, joint
    coordinates, element measurements, forces, outputs (through the elements' output kernels) and integrals, step
    size, iterations, constraint violation. ``integrate``: first add the accepted step ``h`` to the integrals (the
    trapezoid of :func:`advance`) with the integrands of the sample's own residual at this state (they depend on
    ``t, q, q̇, z`` only, not on ``q̈`` or ``λ``).

    ``P.sample_count[1]`` says which work the recorded signals need (the ``SAMPLE_*`` bits): without
    ``SAMPLE_REACTIONS`` (and without friction reading the reactions, ``P.f_friction``) the acceleration-level solve is
    left out and only the residual it ends with is evaluated (``q̈ = 0``, ``λ = 0``: the same forces, measurements and
    element signals; the multipliers kept are the integrator's), and of that only what a sample reads when no Python
    part, prescribed motion or user joint takes part (:func:`integrands`, the force elements, ``Φ`` by
    :func:`constraint_values`; on the hydraulic race ≈ 0.7 µs less per sample); the other bits leave out the joint
    reactions, the force kernels' and the elements' outputs and the joint coordinates."""
    q, v, a, qdd, z, zd, w, lam, zdp = P.cur
    sc, integrals = P.sc, P.integrals
    # the buffers and index arrays by name (unpacking P.bf and P.sp, 21 and 13 arrays, cost ≈ 2 s of compile); those
    # read in loops once here
    OM, XM, FO, OUT, JC = P.sample_omega, P.sample_markers, P.sample_forces, P.sample_out, P.sample_joint_coordinate
    cnt = P.sample_count
    jc_mi, jc_mj, jc_kind, eo = P.jc_mi, P.jc_mj, P.jc_kind, P.out_offsets
    el_z, el_y, el_s, el_f, el_i = P.el_z, P.el_y, P.el_s, P.el_f, P.el_i
    ipar, fpar, sig = P.ipar, P.fpar, P.sig
    A, omega, X, R, y, ydot, fy = P.A, P.omega, P.X, P.R, P.y, P.ydot, P.fy
    offsets = P.offsets
    row, work = cnt[0], cnt[1]
    lam_c = scratch(lam.size)  # (scratch vectors on this call's stack: flexmbs_jit.stack)
    zeros = scratch(q.size + lam.size)
    if work & (SAMPLE_REACTIONS | SAMPLE_JOINTS) or P.f_friction[0]:  # (the joints need the first: samples.py)
        sample_reactions(P, lam_c)
    else:  # what the sample reads of the residual consistent_sample ends with, at this state
        for i in range(zeros.size):
            zeros[i] = 0.0
        signals_at(sc[T], sc, P.cb)
        control = P.py_control
        if control[1] == 0 and control[2] == 0 and P.drv.shape[0] == 0 and P.py_rows.size == 0:
            # marker states, measurements, element signals and integrands, the force elements' outputs and Φ
            # alone (the same numbers): no masses, loads, Φ_q, nor the library rows' quasi-coordinate Jacobians
            integrands(sc[T], q, v, z, P, P.zdot)
            if P.f_kind.size:
                force_elements(q, zeros[q.size:], P)
            constraint_values(q, P, P.phi, True)  # (A, X, R: integrands, above)
        else:
            residual(sc[T], q, v, zeros[:q.size], z, zeros[q.size:], P, P.res, P.zdot, P.phi, P.jac, P.mass, True)
        _copy(lam, lam_c)
    if integrate:
        _trapezoid(h, P.aux, integrals, P.aux_prev)
    phi = P.phi
    pmax = 0.0
    for r in range(phi.size):
        pmax = max(pmax, abs(phi[r]))
    P.sample_times[row], P.sample_h[row], P.sample_iterations[row], P.sample_violation[row] = sc[T], h, iters, pmax
    _copy(q, P.sample_q[row])  # (loops, not slice assignments: see _copy)
    _copy(v, P.sample_v[row])
    _copy(z, P.sample_z[row])
    for b in range(offsets.size):
        for i in range(3):
            OM[row, b, i] = A[b, i, 0] * omega[b, 0] + A[b, i, 1] * omega[b, 1] + A[b, i, 2] * omega[b, 2]
    for m in range(P.n_markers[0]):
        for i in range(3):
            XM[row, m, i] = X[m, i]
    _copy(y, P.sample_y[row])
    _copy(fy, P.sample_fy[row])
    f_out = P.f_out
    for k in range(f_out.shape[0]):
        for i in range(f_out.shape[1]):
            FO[row, k, i] = f_out[k, i]
    if P.k_addr.size and work & SAMPLE_FORCE_OUTPUTS:  # force elements' own kernels: outputs (mode 1) at this state
        loads = scratch(P.packed.size).reshape((P.packed.shape[0], P.packed.shape[1]))  # (their loads: not kept)
        for i in range(loads.shape[0]):
            for k in range(loads.shape[1]):
                loads[i, k] = 0.0
        force_kernels(1, sc[T], q, v, A, omega, X, R, P.V, P.W, P.JX, P.JTH, loads, P.dims, P.k_addr, P.k_index,
                      P.k_fpar, P.k_ipar, P.sample_kernel_out[row])
    _copy(lam_c, P.sample_lam[row])
    _copy(integrals, P.sample_integrals[row])
    rates, forces = scratch(z.size + 1), scratch(y.size + 1)
    kernels = P.el_kernels
    for e in range(kernels.size if work & SAMPLE_ELEMENT_OUTPUTS else 0):
        z0, y0, s0, f0, i0 = el_z[e], el_y[e], el_s[e], el_f[e], el_i[e]
        out = OUT[row, eo[e]:]
        call_kernel(kernels[e], 1, sc[T], P.zs[z0:], y[y0:], ydot[y0:], sig[s0:], fpar[f0:], ipar[i0:], rates,
                    forces, out)
    for c in range(jc_kind.size if work & SAMPLE_COORDINATES else 0):  # joints.rotation_/translation_coordinate
        i, j = jc_mi[c], jc_mj[c]
        if jc_kind[c] == 0:
            ydx = R[i, 0, 1] * R[j, 0, 0] + R[i, 1, 1] * R[j, 1, 0] + R[i, 2, 1] * R[j, 2, 0]
            xdx = R[i, 0, 0] * R[j, 0, 0] + R[i, 1, 0] * R[j, 1, 0] + R[i, 2, 0] * R[j, 2, 0]
            JC[row, c] = math.atan2(ydx, xdx)
        else:
            JC[row, c] = (R[i, 0, 2] * (X[j, 0] - X[i, 0]) + R[i, 1, 2] * (X[j, 1] - X[i, 1])
                          + R[i, 2, 2] * (X[j, 2] - X[i, 2]))
    cnt[0] = row + 1
