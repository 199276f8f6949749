"""Compiled kernels of the built-in marker force elements (issue 26; protocol in
:mod:`flexmbs.engine.force_kernels`): :class:`flexmbs.Bushing`, :class:`flexmbs.RotationalSpringDamper` (constant
or :class:`~flexmbs.model.timefunctions.Table` stiffness), :class:`flexmbs.SpringDamper` with a Table stiffness
and :class:`flexmbs.PointForce` with constant vectors (the same equations as their ``generalized_forces`` and
``outputs``, checked against them at random states in ``tests/flexmbs/test_force_kernels.py``). A linear
SpringDamper is kind 0 and a point force of a function of time kind 4 of :mod:`flexmbs.engine.force_elements`
(its functions of time are signals of the compiled step).

A table is stored in ``fpar`` as its abscissae followed by its values (``n`` each, ``n`` in ``ipar``); the laws are
those of :mod:`flexmbs.model.force_laws` (the table read by :func:`fem.scalar_laws.interp`).
"""
from __future__ import annotations


import numpy as np
from numba import carray

from flexmbs_jit import cfunc, njit

from flexmbs.model.force_laws import bushing_law, spring_force
from flexmbs.model.forces import Bushing, PointForce, RotationalSpringDamper, SpringDamper
from flexmbs.model.kernels import INNER, line_state
from flexmbs.model.timefunctions import Table

from .force_elements import joint_coordinate
from .force_kernels import FORCE_SIGNATURE, ForceKernel, apply_point_load, marker_body, views

__all__ = ["BUILTIN"]


def _table_floats(table: Table) -> np.ndarray:
    return np.concatenate([table.x, table.y])


# --- bushing: ipar [i, body i, n_quasi i, j, body j, n_quasi j], fpar [kt (3), kr (3), ct (3), cr (3)] ------------
@njit(**INNER)
def _bushing(mode, X, R, V, W, JX, JTH, packed, ip, fp, out):
    """:func:`flexmbs.model.force_laws.bushing_law` on marker j, the opposite force and torque on marker i."""
    i, j = ip[0], ip[3]
    d = X[j] - X[i]
    wi = W[i]
    dv = V[j] - V[i] - np.array([wi[1] * d[2] - wi[2] * d[1], wi[2] * d[0] - wi[0] * d[2], wi[0] * d[1] - wi[1] * d[0]])
    f, tq, _, _ = bushing_law(R[i], R[j], d, dv, W[j] - wi, fp)
    apply_point_load(j, ip[4], ip[5], f[0], f[1], f[2], tq[0], tq[1], tq[2], JX, JTH, packed)
    apply_point_load(i, ip[1], ip[2], -f[0], -f[1], -f[2], -tq[0] - (d[1] * f[2] - d[2] * f[1]),
                     -tq[1] - (d[2] * f[0] - d[0] * f[2]), -tq[2] - (d[0] * f[1] - d[1] * f[0]), JX, JTH, packed)
    if mode == 1:
        out[0], out[1], out[2], out[3], out[4], out[5] = f[0], f[1], f[2], tq[0], tq[1], tq[2]


@cfunc(FORCE_SIGNATURE, cache=True)
def bushing_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    _bushing(mode, X, R, V, W, JX, JTH, packed, carray(ipar_, 6), carray(fpar_, 12), carray(out_, 6))


def _bushing_spec(force: Bushing, system):
    ipar = [force.marker_i.index, *marker_body(force.marker_i), force.marker_j.index, *marker_body(force.marker_j)]
    fpar = force.law_parameters()
    return ForceKernel(bushing_kernel.address, fpar, np.array(ipar), list(force.output_units)), ""


# --- rotational spring-damper: ipar [i, body i, n_quasi i, j, body j, n_quasi j, n], fpar [k, c, θ0, table] -----
# (n = 0: constant stiffness k; n > 0: a Table of n points after θ0, k unused)
@njit(**INNER)
def _torsion(mode, X, R, V, W, JX, JTH, packed, ip, fp, out):
    """``T = -k (θ - θ0) - c θ̇`` (or ``-table(θ - θ0) - c θ̇``) about ``z_i`` (``joints.rotation_coordinate``):
    ``+T z_i`` on marker j, ``-T z_i`` on marker i (``∂θ/∂q̄ = ± z_iᵀ J_θ``)."""
    i, j = ip[0], ip[3]
    angle, rate = joint_coordinate(i, j, 0, X, R, V, W)
    n = ip[6]
    torque = -spring_force(angle - fp[2], rate, fp[0], fp[1], 0.0, fp[3:3 + n], fp[3 + n:3 + 2 * n])
    z0, z1, z2 = torque * R[i, 0, 2], torque * R[i, 1, 2], torque * R[i, 2, 2]
    apply_point_load(i, ip[1], ip[2], 0.0, 0.0, 0.0, -z0, -z1, -z2, JX, JTH, packed)
    apply_point_load(j, ip[4], ip[5], 0.0, 0.0, 0.0, z0, z1, z2, JX, JTH, packed)
    if mode == 1:
        out[0], out[1], out[2] = torque, angle, rate


@cfunc(FORCE_SIGNATURE, cache=True)
def torsion_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    ip = carray(ipar_, 7)
    _torsion(mode, X, R, V, W, JX, JTH, packed, ip, carray(fpar_, 3 + 2 * ip[6]), carray(out_, 3))


def _torsion_spec(force: RotationalSpringDamper, system):
    table = isinstance(force.stiffness, Table)
    ipar = [force.marker_i.index, *marker_body(force.marker_i), force.marker_j.index, *marker_body(force.marker_j),
            force.stiffness.x.size if table else 0]
    fpar = np.concatenate([[0.0 if table else float(force.stiffness), force.damping, force.free_angle],
                           _table_floats(force.stiffness) if table else []])
    return ForceKernel(torsion_kernel.address, fpar, np.array(ipar), list(force.output_units)), ""


# --- spring-damper with a Table: ipar [i, body i, n_quasi i, j, body j, n_quasi j, n], fpar [c, L0, F0, table] ----
@njit(**INNER)
def _table_spring(mode, X, V, JX, JTH, packed, ip, fp, out):
    """Tension ``F = table(L - L0) + c L̇ + preload`` (``SpringDamper._state``) pulls the points together: ``+F e``
    on marker i, ``-F e`` on marker j, ``e`` the unit vector from i to j."""
    i, j = ip[0], ip[3]
    length, e0, e1, e2, rate = line_state(i, j, X, V)
    n = ip[6]
    tension = spring_force(length - fp[1], rate, 0.0, fp[0], fp[2], fp[3:3 + n], fp[3 + n:3 + 2 * n])
    f0, f1, f2 = tension * e0, tension * e1, tension * e2
    apply_point_load(i, ip[1], ip[2], f0, f1, f2, 0.0, 0.0, 0.0, JX, JTH, packed)
    apply_point_load(j, ip[4], ip[5], -f0, -f1, -f2, 0.0, 0.0, 0.0, JX, JTH, packed)
    if mode == 1:
        out[0], out[1], out[2] = tension, length, rate


@cfunc(FORCE_SIGNATURE, cache=True)
def table_spring_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    ip = carray(ipar_, 7)
    _table_spring(mode, X, V, JX, JTH, packed, ip, carray(fpar_, 3 + 2 * ip[6]), carray(out_, 3))


def _spring_spec(force: SpringDamper, system):
    if not isinstance(force.stiffness, Table):
        return None, "a linear SpringDamper is kind 0 of flexmbs.engine.force_elements"
    if force.free_length is None:  # its first evaluation sets it: at the initial placement, as the Python path's
        q0, v0, _ = system.initial_state()
        force._state(system.context(q0, v0, 0.0))
    ipar = [force.marker_i.index, *marker_body(force.marker_i), force.marker_j.index, *marker_body(force.marker_j),
            force.stiffness.x.size]
    fpar = np.concatenate([[force.damping, float(force.free_length), force.preload], _table_floats(force.stiffness)])
    return ForceKernel(table_spring_kernel.address, fpar, np.array(ipar), list(force.output_units)), ""


# --- point force with constant vectors: ipar [marker, body, n_quasi, local], fpar [F (3), T (3)] -------------------
@njit(**INNER)
def _point(mode, R, JX, JTH, packed, ip, fp, out):
    f, tq = fp[0:3].copy(), fp[3:6].copy()
    if ip[3]:
        f, tq = R[ip[0]] @ f, R[ip[0]] @ tq
    apply_point_load(ip[0], ip[1], ip[2], f[0], f[1], f[2], tq[0], tq[1], tq[2], JX, JTH, packed)
    if mode == 1:
        out[0], out[1], out[2], out[3], out[4], out[5] = f[0], f[1], f[2], tq[0], tq[1], tq[2]


@cfunc(FORCE_SIGNATURE, cache=True)
def point_kernel(mode, t, q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_, fpar_, ipar_, out_):
    q, v, A, omega, X, R, V, W, JX, JTH, packed = views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_)
    _point(mode, R, JX, JTH, packed, carray(ipar_, 4), carray(fpar_, 6), carray(out_, 6))


def _point_spec(force: PointForce, system):
    constants = [getattr(force, "constant_force", None), getattr(force, "constant_torque", None)]
    if (force.force is not None and constants[0] is None) or (force.torque is not None and constants[1] is None):
        return None, "a PointForce of a function of time is kind 4 of flexmbs.engine.force_elements"
    fpar = np.concatenate([np.zeros(3) if c is None else c for c in constants])
    ipar = [force.marker.index, *marker_body(force.marker), int(force.local)]
    return ForceKernel(point_kernel.address, fpar, np.array(ipar), list(force.output_units)), ""


#: built-in marker force kinds with a kernel (exact types)
BUILTIN = {Bushing: _bushing_spec, RotationalSpringDamper: _torsion_spec, SpringDamper: _spring_spec,
           PointForce: _point_spec}
