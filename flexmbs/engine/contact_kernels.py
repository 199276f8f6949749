"""Compiled kernels of the built-in contact force elements (issue 26; protocol in :mod:`flexmbs.engine.force_kernels`).

* :class:`flexmbs.SlidingContact` (seed 003 §5.1.1, eq. (5-1), (5-2), Fig. 5-1, Fig. 4-3): per path node the
  windowed penalty force against the slider's shoe and its friction, the nodal load projected on the modes
  (eq. (2-145)); the same equations, the same order of the terms and the same near-node filter as
  :meth:`flexmbs.model.sliding.SlidingContact._evaluate` (see its module docstring).
* :class:`flexmbs.PlaneContact` (seed 003 eq. (4-1), Fig. 4-3): one-sided penalty contact of a point with a plane,
  with friction (:meth:`flexmbs.model.contacts.PlaneContact._state`).

The laws inside (window, penalty force, friction coefficient) are those of :mod:`flexmbs.model.contact_laws`, which
the classes call too; these kernels add the kinematics and the projection of the loads.

Both are checked against the classes' ``generalized_forces`` and ``outputs`` at random states in
``tests/flexmbs/test_force_kernels.py``.
"""
from __future__ import annotations


import numpy as np
from numba import carray

from flexmbs_jit import cfunc, njit

from flexmbs.model.contact_laws import penalty_force, plane_contact_law, sliding_friction_coefficient, window
from flexmbs.model.contacts import PlaneContact
from flexmbs.model.kernels import INNER
from flexmbs.model.sliding import WINDOW_MARGIN, SlidingContact

from .force_kernels import FORCE_SIGNATURE, ForceKernel, apply_point_load, marker_body, views

__all__ = ["BUILTIN", "marker_body"]


# --- sliding contact ----------------------------------------------------------------------------------------
# ipar: [slider marker, slider body (-1 ground), its offset, body, its offset, modes m, nodes k, node outputs]
# fpar: [d1, d3, d4, d2, K, e, D, depth, μ_s, μ_d, v_s, v_d, margin, local (k, 3), shapes (k, 3, m)]
_SF = 13


@njit(**INNER, fastmath={"reassoc", "contract"})  # reassociation: the modal sums vectorize (2-3× here)
def _sliding(mode, q, v, A, omega, X, R, V, W, packed, ms, bs, os_, b, o, m, k, node_out, fp, local, shapes, out):
    d1, d3, d4, d2 = fp[0], fp[1], fp[2], fp[3]
    stiff, expo, damp, depth, static, dynamic, v_s, v_d, margin = (fp[4], fp[5], fp[6], fp[7], fp[8], fp[9], fp[10],
                                                                   fp[11], fp[12])
    all_nodes = mode == 1
    Ab = A[b]
    wf = Ab @ omega[b]
    n = R[ms, :, 2].copy()
    ta = R[ms, :, 0].copy()
    xs, vs, ws = X[ms], V[ms], W[ms]
    qf, qfd = q[o + 7:o + 7 + m], v[o + 7:o + 7 + m]
    u, su, au, vel, rel, fb = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    total, fric, moment, max_pen, count = 0.0, 0.0, 0.0, -np.inf, 0
    for p in range(k):
        if not all_nodes:
            along = 0.0
            for a in range(3):
                along += (q[o + a] + Ab[a, 0] * local[p, 0] + Ab[a, 1] * local[p, 1] + Ab[a, 2] * local[p, 2]
                          - xs[a]) * ta[a]
            if not (along > d1 - margin and along < d2 + margin):
                continue
        for a in range(3):
            row = shapes[p, a]  # contiguous views: the modal sums vectorize (3× the indexed form)
            s, sd = 0.0, 0.0
            for j in range(m):
                s += row[j] * qf[j]
                sd += row[j] * qfd[j]
            u[a] = local[p, a] + s
            su[a] = sd
        for a in range(3):
            au[a] = Ab[a, 0] * u[0] + Ab[a, 1] * u[1] + Ab[a, 2] * u[2]
        dy, dz, vy, vz = 0.0, 0.0, 0.0, 0.0
        for a in range(3):
            rel[a] = q[o + a] + au[a] - xs[a]
        for a in range(3):
            c = (wf[(a + 1) % 3] * au[(a + 2) % 3] - wf[(a + 2) % 3] * au[(a + 1) % 3])
            vel[a] = v[o + a] + c + Ab[a, 0] * su[0] + Ab[a, 1] * su[1] + Ab[a, 2] * su[2]
            vsl = vs[a] + ws[(a + 1) % 3] * rel[(a + 2) % 3] - ws[(a + 2) % 3] * rel[(a + 1) % 3]
            dy += rel[a] * n[a]
            dz += rel[a] * ta[a]
            vy += (vel[a] - vsl) * n[a]
            vz += (vsl - vel[a]) * ta[a]
        w = window(dz, d1, d3, d4, d2)[0]
        force = w * penalty_force(dy, vy, stiff, expo, damp, depth) if w > 0.0 else 0.0
        mu = (sliding_friction_coefficient(vz, static, dynamic, v_s, v_d)[0] if (static != 0.0 or dynamic != 0.0)
              else 0.0)
        if all_nodes:
            total += force
            fric -= mu * force
            moment += force * dz
            max_pen = max(max_pen, dy)
            count += 1 if force != 0.0 else 0
            if node_out:
                out[5 + p] = force
        if force == 0.0:
            continue
        fn, ft = force, mu * force
        f0, f1, f2 = fn * n[0] - ft * ta[0], fn * n[1] - ft * ta[1], fn * n[2] - ft * ta[2]
        for a in range(3):
            fb[a] = Ab[0, a] * f0 + Ab[1, a] * f1 + Ab[2, a] * f2  # Aᵀ f, body axes
        packed[b, 0] -= f0
        packed[b, 1] -= f1
        packed[b, 2] -= f2
        packed[b, 3] -= u[1] * fb[2] - u[2] * fb[1]
        packed[b, 4] -= u[2] * fb[0] - u[0] * fb[2]
        packed[b, 5] -= u[0] * fb[1] - u[1] * fb[0]
        s0, s1, s2, pb = shapes[p, 0], shapes[p, 1], shapes[p, 2], packed[b, 6:6 + m]
        for j in range(m):
            pb[j] -= s0[j] * fb[0] + s1[j] * fb[1] + s2[j] * fb[2]
        if bs >= 0:  # the slider: f at the contact point x - DY n, moment about its body origin (body axes)
            As = A[bs]
            c0, c1, c2 = (q[o] + au[0] - dy * n[0] - q[os_], q[o + 1] + au[1] - dy * n[1] - q[os_ + 1],
                          q[o + 2] + au[2] - dy * n[2] - q[os_ + 2])
            r0, r1, r2 = (As[0, 0] * c0 + As[1, 0] * c1 + As[2, 0] * c2, As[0, 1] * c0 + As[1, 1] * c1 + As[2, 1] * c2,
                          As[0, 2] * c0 + As[1, 2] * c1 + As[2, 2] * c2)
            g0, g1, g2 = (As[0, 0] * f0 + As[1, 0] * f1 + As[2, 0] * f2, As[0, 1] * f0 + As[1, 1] * f1 + As[2, 1] * f2,
                          As[0, 2] * f0 + As[1, 2] * f1 + As[2, 2] * f2)
            packed[bs, 0] += f0
            packed[bs, 1] += f1
            packed[bs, 2] += f2
            packed[bs, 3] += r1 * g2 - r2 * g1
            packed[bs, 4] += r2 * g0 - r0 * g2
            packed[bs, 5] += r0 * g1 - r1 * g0
    if all_nodes:
        out[0], out[1] = total, fric
        out[2] = moment / total if total > 0.0 else 0.0
        out[3], out[4] = max_pen, count


@cfunc(FORCE_SIGNATURE, cache=True)
def sliding_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    ip = carray(ipar_, 8)
    ms, bs, os_, b, o, m, k = ip[0], ip[1], ip[2], ip[3], ip[4], ip[5], ip[6]
    fp = carray(fpar_, _SF + 3 * k + 3 * k * m)
    _sliding(mode, q, v, A, omega, X, R, V, W, packed, ms, bs, os_, b, o, m, k, ip[7], fp,
             fp[_SF:_SF + 3 * k].reshape((k, 3)), fp[_SF + 3 * k:].reshape((k, 3, m)), carray(out_, 5 + k))


def _sliding_spec(force: SlidingContact, system):
    body, slider = force.body, force.slider
    k, m = force.nodes.size, body.n_modes
    bs = -1 if slider.on_ground else slider.body.index
    os_ = 0 if slider.on_ground else slider.body.offset
    ipar = [slider.index, bs, os_, body.index, body.offset, m, k, int(force.node_outputs)]
    fpar = np.concatenate([[*force.window_bounds, force.stiffness, force.exponent, force.damping,
                            force.damping_depth, force.static, force.dynamic, force.stiction_velocity,
                            force.dynamic_velocity, WINDOW_MARGIN], force.local.ravel(), force.shapes.ravel()])
    return ForceKernel(sliding_kernel.address, fpar, np.array(ipar), list(force.output_units)), ""


# --- point-plane contact ------------------------------------------------------------------------------------
# ipar: [point marker, its body, plane marker, its body, n_quasi point body, n_quasi plane body, has half_length]
# fpar: [K, e, D, depth, μ_s, μ_d, v_s, v_d, half_length]
@njit(**INNER)
def _plane(mode, X, R, V, W, JX, JTH, packed, ip, fp, out):
    mp, bp, mo, bo, np_, no_ = ip[0], ip[1], ip[2], ip[3], ip[4], ip[5]
    off = X[mp] - X[mo]
    wo = W[mo]
    vr = np.empty(3)
    for a in range(3):
        vr[a] = V[mp, a] - (V[mo, a] + wo[(a + 1) % 3] * off[(a + 2) % 3] - wo[(a + 2) % 3] * off[(a + 1) % 3])
    F, penetration, f_n, friction, speed = plane_contact_law(off, R[mo, :, 2].copy(), R[mo, :, 0].copy(), vr, fp,
                                                             ip[6] != 0)
    if mode == 1:
        out[0], out[1], out[2], out[3] = f_n, friction, penetration, speed
    if f_n == 0.0:
        return
    F0, F1, F2 = F[0], F[1], F[2]
    apply_point_load(mp, bp, np_, F0, F1, F2, 0.0, 0.0, 0.0, JX, JTH, packed)
    apply_point_load(mo, bo, no_, -F0, -F1, -F2, -(off[1] * F2 - off[2] * F1), -(off[2] * F0 - off[0] * F2),
                     -(off[0] * F1 - off[1] * F0), JX, JTH, packed)


@cfunc(FORCE_SIGNATURE, cache=True)
def plane_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    _plane(mode, X, R, V, W, JX, JTH, packed, carray(ipar_, 7), carray(fpar_, 9), carray(out_, 4))


def _plane_spec(force: PlaneContact, system):
    bp, np_ = marker_body(force.point)
    bo, no_ = marker_body(force.plane)
    ipar = [force.point.index, bp, force.plane.index, bo, np_, no_, int(force.half_length is not None)]
    return ForceKernel(plane_kernel.address, force.law_parameters(), np.array(ipar), list(force.output_units)), ""


#: built-in force kinds with a kernel (exact types: a subclass may change the equations)
BUILTIN = {SlidingContact: _sliding_spec, PlaneContact: _plane_spec}
