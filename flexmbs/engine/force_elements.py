"""Force elements on the compiled step (issue 26): their tables, and one kernel over all instances.

Kinds (the same equations as the Python classes, see their docstrings):

* 0 :class:`flexmbs.model.forces.SpringDamper` (linear): tension ``k (L - L0) + c L̇ + preload`` pulls the points
  together (outputs force, length, velocity);
* 1 :class:`flexmbs.model.forces.JointActuator`: the load ``sig[f_sig]`` along the joint's rotation or translation
  coordinate (``joints.rotation_coordinate`` / ``translation_coordinate``);
* 2 :class:`flexmbs.model.contacts.JointFriction` without a stick state: the joint's reaction from the multipliers of
  its rows (``Context.joint_reaction``), the friction load of the Adams form from its axial, radial, torsional and
  bending parts (:func:`flexmbs.model.contact_laws.joint_friction_load`) times the coefficient of
  seed 003 Fig. 3-4 (:func:`flexmbs.model.contact_laws.sliding_friction_coefficient`) at the sliding velocity,
  along the joint coordinate;
* 3 :class:`flexmbs.model.contacts.HardStop`: penalty loads beyond ``lower``/``upper`` (seed 003 eq. (4-1),
  :func:`flexmbs.model.contact_laws.hard_stop_load`); its event gaps stay in Python (called back once per step,
  :mod:`flexmbs.engine.plan`).
* 4 :class:`flexmbs.model.forces.PointForce` with a force or torque that is a function of time: force and torque
  ``sig[f_sig:f_sig+6]`` (``Fx, Fy, Fz, Tx, Ty, Tz``; in the marker's axes if ``f_which`` is 1, turned by its ``R``)
  at the marker (``apply_at_marker``); outputs the global vectors (``PointForce.outputs``). Its functions of time
  are signals (:func:`vector_signals`); constant vectors of the same element are constant signals.

``f_par`` rows: kind 0 ``[k, c, L0, preload]``; kind 2 ``[μ_s, μ_d, v_s, R_p (1 for translation), F_pre, R_n,
R_b, X_s]`` (0: a term left out); kind 3 ``[lower, upper, has lower, has upper, k, e, d, x_d]``; kind 4 none.
``f_rows`` holds per element the positions of its joint's rows among all rows and their multiplier indices (-1
padded). A tabulated SpringDamper and a PointForce with constant vectors have kernels of their own
(:mod:`flexmbs.engine.spring_kernels`).
"""
from __future__ import annotations

import math

import numpy as np

from flexmbs_jit import apart, njit

from flexmbs.model.contact_laws import hard_stop_load, joint_friction_load, sliding_friction_coefficient
from flexmbs.model.contacts import HardStop, JointFriction
from flexmbs.model.force_laws import spring_force
from flexmbs.model.kernels import (INNER, axis_and_arm, coordinate_gradient,  # the one joint-coordinate law
                                   joint_coordinate, line_load, line_state)
from flexmbs.model.forces import JointActuator, PointForce, SpringDamper
from flexmbs.model.timefunctions import Table

from .force_kernels import apply_point_load

__all__ = ["compiled_force", "force_tables", "force_element", "vector_signals", "N_OUT"]

N_OUT = 7  # outputs per force element (JointFriction has the most)


def compiled_force(force) -> bool:
    """A force element with a kernel in :func:`force_element`."""
    kind = type(force)
    if kind is SpringDamper:
        return not isinstance(force.stiffness, Table)
    if kind is JointFriction:
        return force.stick is None
    if kind is PointForce:  # of a function of time (constant vectors: spring_kernels)
        return ((force.force is not None and getattr(force, "constant_force", None) is None)
                or (force.torque is not None and getattr(force, "constant_torque", None) is None))
    return kind is JointActuator or kind is HardStop


class _VectorComponents:
    """The three components of a vector function of time ``f(t) -> (3,)`` as three scalar signals, from one call of
    ``f`` per new time: the compiled step evaluates its signals in order at each new time, so the first component
    calls ``f`` and the other two read the vector it kept.

    Why three scalar signals and not one vector signal: every slot of ``sig`` is a scalar and the signals' kinds
    (``constant``, ``table``, ``function``; docs/element-protocol.md) are shared with the state elements; a vector
    kind would change the signal callback of every model for one element, while this costs one comparison of the
    time per component and leaves the callback as it is."""

    def __init__(self, function):
        self.function, self.time, self.value = function, math.nan, np.zeros(3)

    def component(self, axis: int):
        def value(t):
            if t != self.time:  # a new time (NaN at first: never equal)
                self.value = np.asarray(self.function(t), dtype=float).reshape(3)
                self.time = t
            return float(self.value[axis])
        return value


def vector_signals(function, constant) -> list:
    """Three signals (``plan`` kinds) of a PointForce vector: zeros without one, its constant, or the
    components of its function of time (:class:`_VectorComponents`)."""
    if function is None:
        return [("constant", 0.0)] * 3
    if constant is not None:
        return [("constant", float(c)) for c in constant]
    components = _VectorComponents(function)
    return [("function", components.component(axis)) for axis in range(3)]


def force_tables(system, forces, state, signals) -> tuple:
    """``(ints, par, rows)``: kind, markers, signal and coordinate (0 rotation, 1 translation) of each force element,
    its parameters and the rows of its joint. A spring without a free length gets the initial distance, as its own
    first evaluation would; JointActuator loads and PointForce vectors (six signals each) are appended to
    ``signals``."""
    if not forces:  # (most models) the empty tables the loop below would give, shared: nothing is written in them
        return _NO_FORCES
    table, par, rows = [], [], []  # table: per element its kind, markers, signal and coordinate
    ctx = None  # the start's context, made for the first spring without a free length (most models have none)
    cc = system.compiled
    for force in forces:
        p = np.zeros(8)
        r = -np.ones((2, 8), dtype=np.int64)
        s = -1
        if type(force) is SpringDamper:
            if force.free_length is None:
                if ctx is None:
                    ctx = system.context(state.q, state.v, state.t)
                force.free_length = float(np.linalg.norm(ctx.marker(force.marker_j).x - ctx.marker(force.marker_i).x))
            k, a, b, w = 0, force.marker_i, force.marker_j, 0
            p[:4] = float(force.stiffness), force.damping, force.free_length, force.preload
        elif type(force) is PointForce:
            k, a, b, w, s = 4, force.marker, force.marker, int(force.local), len(signals)
            signals += vector_signals(force.force, getattr(force, "constant_force", None))
            signals += vector_signals(force.torque, getattr(force, "constant_torque", None))
        else:
            joint = force.joint
            a, b, w = joint.marker_i, joint.marker_j, 0 if force.which == "rotation" else 1
            if type(force) is JointActuator:
                k, s = 1, len(signals)
                signals.append(("function", force.load))
            elif type(force) is JointFriction:
                k, rotation = 2, w == 0
                p[:8] = (force.static, force.dynamic, force.stiction_velocity, force.pin_radius if rotation else 1.0,
                         force.preload, force.friction_arm if rotation else (force.reaction_arm or 0.0),
                         (force.bending_arm or 0.0) if rotation else 0.0, 0.0 if rotation else (force.overlap or 0.0))
                positions = list(cc.positions[joint])
                lams = [cc.flat_rows[pos] for pos in positions]
                first = joint.offset + joint.n_equations - len(joint.drivers)
                driven = system.driven_joints
                k0 = cc.n_rows + sum(len(j.drivers) for j in driven[:driven.index(joint)]) if joint in driven else 0
                for d in range(len(joint.drivers)):  # its prescribed motion's rows too (Context.joint_reaction)
                    positions.append(k0 + d)
                    lams.append(first + d)
                r[0, :len(positions)] = positions
                r[1, :len(positions)] = lams
            else:  # HardStop
                k = 3
                p[:] = force.law_parameters()
        table.append((k, a.index, b.index, s, w))
        par.append(p)
        rows.append(r)
    par = np.array(par, dtype=float).reshape(-1, 8)
    rows = np.array(rows, dtype=np.int64).reshape(-1, 2, 8)
    return tuple(np.array(column, dtype=np.int64) for column in zip(*table)), par, rows


# the tables of a model without compiled force elements or prescribed motions, zero-size (so nothing is ever written
# in them): one set for every plan (≈ 2 µs of a start); the five columns of the force table are one array
_NONE, _NO_PAR, _NO_ROWS, _NO_DRIVERS = (np.zeros(0, dtype=np.int64), np.zeros((0, 8)),
                                         np.zeros((0, 2, 8), dtype=np.int64), np.zeros((0, 6), dtype=np.int64))
for _empty in (_NONE, _NO_PAR, _NO_ROWS, _NO_DRIVERS):
    _empty.flags.writeable = False
_NO_FORCES = ((_NONE,) * 5, _NO_PAR, _NO_ROWS)
del _empty


def has_friction(forces) -> bool:
    return any(type(f) is JointFriction for f in forces)


@njit(**INNER)
def apply_coordinate_load(i, j, which, value, X, R, JX, JTH, marker_body, n_modes, packed):
    """``value`` (N or N m) along the joint coordinate: ``value ∂θ/∂q̄`` on both bodies (``JointActuator``)."""
    z0, z1, z2, c0, c1, c2 = axis_and_arm(i, j, X, R)
    for side in range(2):
        m = i if side == 0 else j
        bd = marker_body[m]
        if bd < 0:
            continue
        for n in range(6 + n_modes[bd]):
            packed[bd, n] += value * coordinate_gradient(which, side, m, n, z0, z1, z2, c0, c1, c2, JX, JTH)


@njit(**INNER)
def joint_reaction(gen, i, j, m, b, on_j, q, A, X, offsets, force, torque):
    """``Context.joint_reaction`` from the generalized reaction ``gen`` (6,) on side marker ``m`` of body ``b``
    (marker j when ``on_j``, else marker i): force (N) and torque about marker j (N m), global axes, on marker j's
    body, into ``force``, ``torque`` (3,). Scalars, not 3-vectors: no allocation per joint and sample."""
    o = offsets[b]
    f0, f1, f2 = gen[0], gen[1], gen[2]
    t0 = A[b, 0, 0] * gen[3] + A[b, 0, 1] * gen[4] + A[b, 0, 2] * gen[5]
    t1 = A[b, 1, 0] * gen[3] + A[b, 1, 1] * gen[4] + A[b, 1, 2] * gen[5]
    t2 = A[b, 2, 0] * gen[3] + A[b, 2, 1] * gen[4] + A[b, 2, 2] * gen[5]
    d0, d1, d2 = X[m, 0] - q[o], X[m, 1] - q[o + 1], X[m, 2] - q[o + 2]
    t0 -= d1 * f2 - d2 * f1
    t1 -= d2 * f0 - d0 * f2
    t2 -= d0 * f1 - d1 * f0
    if on_j:
        force[0], force[1], force[2] = f0, f1, f2
        torque[0], torque[1], torque[2] = t0, t1, t2
        return
    e0, e1, e2 = X[i, 0] - X[j, 0], X[i, 1] - X[j, 1], X[i, 2] - X[j, 2]
    force[0], force[1], force[2] = -f0, -f1, -f2
    torque[0] = -t0 - (e1 * f2 - e2 * f1)
    torque[1] = -t1 - (e2 * f0 - e0 * f2)
    torque[2] = -t2 - (e0 * f1 - e1 * f0)


@apart  # also called from Python: force_specs checks a kernel against its element's methods
def force_element(k, f_kind, f_mi, f_mj, f_sig, f_which, f_par, f_rows, sig, q, lam, A, X, R, JX, JTH, V, W, ji, jj,
                  offsets, marker_body, n_modes, packed, out):
    """Force element ``k`` (module docstring) into the quasi-coordinate loads ``packed``; its outputs into ``out``
    (in the order of the class's ``output_units``)."""
    i, j = f_mi[k], f_mj[k]
    kind, which, p = f_kind[k], f_which[k], f_par[k]
    if kind == 0:
        length, e0, e1, e2, rate = line_state(i, j, X, V)
        tension = spring_force(length - p[2], rate, p[0], p[1], p[3], p[0:0], p[0:0])
        line_load(i, j, tension, e0, e1, e2, JX, marker_body, n_modes, packed)
        out[0], out[1], out[2] = tension, length, rate
        return
    if kind == 4:  # PointForce._vectors and apply_at_marker
        s0 = f_sig[k]
        f0, f1, f2, t0, t1, t2 = sig[s0], sig[s0 + 1], sig[s0 + 2], sig[s0 + 3], sig[s0 + 4], sig[s0 + 5]
        if which == 1:  # marker axes: R f, R T
            f0, f1, f2 = (R[i, 0, 0] * f0 + R[i, 0, 1] * f1 + R[i, 0, 2] * f2,
                          R[i, 1, 0] * f0 + R[i, 1, 1] * f1 + R[i, 1, 2] * f2,
                          R[i, 2, 0] * f0 + R[i, 2, 1] * f1 + R[i, 2, 2] * f2)
            t0, t1, t2 = (R[i, 0, 0] * t0 + R[i, 0, 1] * t1 + R[i, 0, 2] * t2,
                          R[i, 1, 0] * t0 + R[i, 1, 1] * t1 + R[i, 1, 2] * t2,
                          R[i, 2, 0] * t0 + R[i, 2, 1] * t1 + R[i, 2, 2] * t2)
        bd = marker_body[i]
        if bd >= 0:
            apply_point_load(i, bd, 6 + n_modes[bd], f0, f1, f2, t0, t1, t2, JX, JTH, packed)
        out[0], out[1], out[2], out[3], out[4], out[5] = f0, f1, f2, t0, t1, t2
        return
    if kind == 1:
        value = sig[f_sig[k]]
        out[0] = value
    elif kind == 2:
        # force, torque, the joint axis (z of marker i), the generalized reaction: one allocation, no array copy
        react = np.zeros(15)
        on_j, rows = marker_body[j] >= 0, f_rows[k]
        for n in range(rows.shape[1]):
            if rows[0, n] < 0:
                break
            for c in range(6):
                react[9 + c] -= (jj[rows[0, n], c] if on_j else ji[rows[0, n], c]) * lam[rows[1, n]]
        m = j if on_j else i
        joint_reaction(react[9:15], i, j, m, marker_body[m], on_j, q, A, X, offsets, react[0:3], react[3:6])
        for r in range(3):
            react[6 + r] = R[i, r, 2]
        load, normal, radial, axial, bending, _ = joint_friction_load(react[0:3], react[3:6], react[6:9], 1 - which, p)
        _, rate = joint_coordinate(i, j, which, X, R, V, W)
        sliding = rate * p[3]
        mu = sliding_friction_coefficient(sliding, p[0], p[1], p[2], 1.5 * p[2])[0]  # v_d = 1.5 v_s
        value = -mu * load
        out[0], out[1], out[2], out[3], out[4], out[5], out[6] = value, normal, radial, axial, bending, sliding, mu
    else:
        x, rate = joint_coordinate(i, j, which, X, R, V, W)
        value = hard_stop_load(x, rate, p)
        out[0] = value
        if value == 0.0:
            return
    apply_coordinate_load(i, j, which, value, X, R, JX, JTH, marker_body, n_modes, packed)


def driver_table(system, signals) -> np.ndarray:
    """Prescribed joint motions (``Joint.prescribe``): per driver ``[λ row, marker i, marker j, coordinate (0
    rotation, 1 translation), signal, position of its quasi-coordinate rows]`` (n_d, 6); ``f(t)`` is appended to
    ``signals``. The rows follow the joint's base rows (``Joint.driver_rows``); their quasi-coordinate Jacobians
    are stored after the library rows' (``ji``, ``jj`` rows ``n_rows + k``) for the joint reactions."""
    out, k = [], 0
    n_rows = system.compiled.n_rows
    for joint in system.driven_joints:
        first = joint.offset + joint.n_equations - len(joint.drivers)
        for d, (which, func) in enumerate(joint.drivers):
            out.append([first + d, joint.marker_i.index, joint.marker_j.index, 0 if which == "rotation" else 1,
                        len(signals), n_rows + k])
            signals.append(("function", func))
            k += 1
    return np.array(out, dtype=np.int64).reshape(-1, 6) if out else _NO_DRIVERS


@apart(python=False, counted=False)
def driver_rows(drv, sig, X, R, JX, JTH, V, W, G, marker_body, offsets, n_modes, phi_all, jac_all, ji, jj):
    """``coordinate - f(t)`` (rotations modulo 2π) and its Jacobian rows (``Joint.driver_rows``)."""
    for k in range(drv.shape[0]):
        row, i, j, which, s, pos = drv[k, 0], drv[k, 1], drv[k, 2], drv[k, 3], drv[k, 4], drv[k, 5]
        value, _ = joint_coordinate(i, j, which, X, R, V, W)
        error = value - sig[s]
        if which == 0:
            error = (error + math.pi) % (2.0 * math.pi) - math.pi
        phi_all[row] = error
        z0, z1, z2, c0, c1, c2 = axis_and_arm(i, j, X, R)
        for side in range(2):
            m = i if side == 0 else j
            bd = marker_body[m]
            jac = ji if side == 0 else jj  # this side's quasi-coordinate rows
            for n in range(jac.shape[1]):
                jac[pos, n] = 0.0
            if bd < 0:
                continue
            o = offsets[bd]
            for n in range(6 + n_modes[bd]):
                g = coordinate_gradient(which, side, m, n, z0, z1, z2, c0, c1, c2, JX, JTH)
                jac[pos, n] = g
                if n < 3:
                    jac_all[row, o + n] += g
                elif n < 6:
                    for c in range(4):
                        jac_all[row, o + 3 + c] += 2.0 * g * G[bd, n - 3, c]
                else:
                    jac_all[row, o + n + 1] += g
