"""Force elements with their own compiled kernel (issue 26): the protocol, its tables and the call.

A force element joins the compiled step without a Python callback by defining, **in its own class**,
``compiled_force(self, system) -> (ForceKernel | None, reason)`` (docs/element-protocol.md, "A force element with its
own kernel"; the built-in kinds: :func:`flexmbs.engine.force_specs.force_kernel`): a numba ``cfunc`` with the
signature :data:`FORCE_SIGNATURE`, evaluated over the state arrays of the compiled step::

    kernel(mode, t, q, v, A, omega, X, R, V, W, JX, JTH, packed, dims, fpar, ipar, out)

``dims = [n_q, n_b, n_m, n_quasi]`` gives the shapes of the arrays behind the pointers (:func:`views` makes them
arrays again): ``q``, ``v`` (n_q,) coordinates and their rates; ``A`` (n_b, 3, 3) body rotation matrices; ``omega``
(n_b, 3) body angular velocities in body axes; ``X``, ``V``, ``W`` (n_m, 3) marker positions, velocities and angular
velocities, ``R`` (n_m, 3, 3) marker axes (columns), ``JX``, ``JTH`` (n_m, 3, n_quasi) their position and rotation
Jacobians in the body's quasi-coordinates, all global (:func:`flexmbs.model.kernels.marker_states`); ground markers
have their fixed pose and zero rates. The kernel **adds** its loads in quasi-coordinates to ``packed`` (n_b,
n_quasi): force ``F`` and torque ``T`` (global) at marker ``m`` of body ``b`` add ``Fᵀ JX[m] + Tᵀ JTH[m]`` over the
``6 + n_modes`` columns of ``b`` (:func:`flexmbs.model.forces.apply_at_marker`). With ``mode`` 1 (an output sample)
it also writes its outputs to ``out``, in the order of the names its spec gives; with ``mode`` 0 it need not.
``fpar``, ``ipar`` are the element's own parameters (marker and body indices, coordinate offsets, sizes: all it
needs, written by its spec). A subclass that does not define ``compiled_force`` itself keeps the callback (its
equations may differ).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from llvmlite import ir
from numba import carray, types
from numba.extending import intrinsic

from flexmbs_jit import njit

from flexmbs.model.kernels import INNER, body_kinematics, marker_states

__all__ = ["FORCE_SIGNATURE", "ForceKernel", "kernel_tables", "call_force", "views", "apply_point_load",
           "evaluate_kernel", "marker_body"]

_D, _I = types.CPointer(types.float64), types.CPointer(types.int64)
#: C signature of a force kernel (module docstring)
FORCE_SIGNATURE = types.void(types.int64, types.float64, _D, _D, _D, _D, _D, _D, _D, _D, _D, _D, _D, _I, _D, _I, _D)


@dataclass
class ForceKernel:
    """What a force element hands the compiled step: its kernel's address, parameters and output names."""

    address: int
    fpar: np.ndarray
    ipar: np.ndarray
    output_names: list = field(default_factory=list)


def marker_body(marker) -> tuple[int, int]:
    """``(body index, 6 + modes)`` of a marker's body, ``(-1, 0)`` on the ground."""
    if marker.on_ground:
        return -1, 0
    return marker.body.index, 6 + marker.body.n_modes


def kernel_tables(specs: list) -> tuple:
    """``(index (n, 3) [fpar start, ipar start, output start], ipar, fpar, n_out, addresses)`` of the kernels."""
    if not specs:  # no kernel (most models): the arrays below of an empty list (their shapes and strides), at once
        return (np.array([], dtype=np.int64).reshape(-1, 3), np.zeros(1, dtype=np.int64), np.zeros(1), 0,
                np.zeros(0, dtype=np.int64))
    counts = np.array([(len(s.fpar), len(s.ipar), len(s.output_names)) for s in specs], dtype=np.int64)
    ipar = np.concatenate([np.asarray(s.ipar, dtype=np.int64).ravel() for s in specs] + [np.zeros(1, np.int64)])
    fpar = np.concatenate([np.asarray(s.fpar, dtype=float).ravel() for s in specs] + [np.zeros(1)])
    return (np.cumsum(counts, axis=0) - counts, ipar, fpar, int(counts[:, 2].sum()),
            np.array([s.address for s in specs], dtype=np.int64))


def address_call(context, builder, signature, args):
    """Codegen of a call of the C function at ``args[0]`` with ``args[1:3]`` (int64 mode, double time) as values
    and every further argument (an array) as the pointer to its data: the shared body of :func:`call_force` and
    :func:`flexmbs.engine.step.call_kernel`."""
    kinds = [context.get_value_type(a.dtype).as_pointer() for a in signature.args[3:]]
    fnty = ir.FunctionType(ir.VoidType(), [ir.IntType(64), ir.DoubleType()] + kinds)
    values = [args[1], args[2]]
    for aty, val in zip(signature.args[3:], args[3:]):
        values.append(context.make_array(aty)(context, builder, val).data)
    builder.call(builder.inttoptr(args[0], fnty.as_pointer()), values)
    return context.get_dummy_value()


@intrinsic
def call_force(typingctx, address, mode, t, q, v, A, omega, X, R, V, W, JX, JTH, packed, dims, fpar, ipar, out):
    """Call the force kernel at ``address`` with the arrays' data pointers (as
    :func:`flexmbs.engine.step.call_kernel` does for state elements)."""
    arrays = (q, v, A, omega, X, R, V, W, JX, JTH, packed, dims, fpar, ipar, out)
    return types.void(address, mode, t, *arrays), address_call


@njit(**INNER)
def views(q_, v_, A_, om_, X_, R_, V_, W_, JX_, JTH_, packed_, dims_):
    """The arrays behind a kernel's pointers: ``(q, v, A, omega, X, R, V, W, JX, JTH, packed)``."""
    d = carray(dims_, 4)
    n_q, n_b, n_m, n_quasi = d[0], d[1], d[2], d[3]
    return (carray(q_, n_q), carray(v_, n_q), carray(A_, (n_b, 3, 3)), carray(om_, (n_b, 3)), carray(X_, (n_m, 3)),
            carray(R_, (n_m, 3, 3)), carray(V_, (n_m, 3)), carray(W_, (n_m, 3)), carray(JX_, (n_m, 3, n_quasi)),
            carray(JTH_, (n_m, 3, n_quasi)), carray(packed_, (n_b, n_quasi)))


@njit(**INNER)
def apply_point_load(m, body, n_quasi, f0, f1, f2, t0, t1, t2, JX, JTH, packed):
    """Force ``f`` and torque ``t`` (global) at marker ``m`` of body ``body`` (``n_quasi`` = 6 + its modes) into
    ``packed`` (:func:`flexmbs.model.forces.apply_at_marker`); nothing for a ground marker (``body < 0``)."""
    if body < 0:
        return
    for n in range(n_quasi):
        packed[body, n] += (f0 * JX[m, 0, n] + f1 * JX[m, 1, n] + f2 * JX[m, 2, n]
                            + t0 * JTH[m, 0, n] + t1 * JTH[m, 1, n] + t2 * JTH[m, 2, n])


@njit(cache=True)
def evaluate_kernel(address, mode, t, q, v, offsets, n_modes, marker_body, local, orient, s_t, s_r, A, G, omega, X,
                    R, JX, JTH, V, W, packed, dims, fpar, ipar, out):
    """Kinematics, marker states and one force kernel at ``(q, q̇)``
    (:func:`flexmbs.engine.force_specs.check_force_kernel`)."""
    body_kinematics(q, v, offsets, A, G, omega)
    marker_states(q, v, A, omega, marker_body, offsets, n_modes, local, orient, s_t, s_r, X, R, JX, JTH, V, W)
    call_force(address, mode, t, q, v, A, omega, X, R, V, W, JX, JTH, packed, dims, fpar, ipar, out)
