"""Which force elements have a compiled kernel (:mod:`flexmbs.engine.force_kernels`), and the check of a kernel
(or of a kind of :func:`flexmbs.engine.force_elements.force_element`) against its element's own methods."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from fem.scalar_laws import interp
from flexmbs.model.contacts import JointFriction, PlaneContact
from flexmbs.model.forces import Bushing, PointForce, RotationalSpringDamper, SpringDamper
from flexmbs.model.sliding import SlidingContact

from .force_elements import N_OUT, compiled_force, force_element, force_tables
from .force_kernels import ForceKernel, evaluate_kernel

__all__ = ["force_kernel", "check_force_kernel"]

_CONTACTS = (SlidingContact, PlaneContact)  # the keys of contact_kernels.BUILTIN
_SPRINGS = (Bushing, RotationalSpringDamper, SpringDamper, PointForce)  # the keys of spring_kernels.BUILTIN


def force_kernel(force, system) -> tuple[ForceKernel | None, str]:
    """The kernel of ``force`` (built-in kind or its own class's ``compiled_force``), or ``(None, why not)``."""
    if type(force) in _CONTACTS:  # loading their compiled kernels costs ≈ 0.25 s: only where used
        from .contact_kernels import BUILTIN

        return BUILTIN[type(force)](force, system)
    if type(force) in _SPRINGS:
        from .spring_kernels import BUILTIN

        return BUILTIN[type(force)](force, system)
    own = type(force).__dict__.get("compiled_force")
    if own is None:
        return None, f"{type(force).__name__} has no compiled kernel"
    return own(force, system)


def check_force_kernel(system, force, q, v, t: float = 0.0) -> dict:
    """A force element's kernel and its Python methods at one state ``(q, q̇)`` of an assembled ``system``:
    ``{"loads": (kernel, python)}`` (n_b, n_quasi) quasi-coordinate loads and ``{"outputs": (kernel, python)}``
    (dicts). For the kernel-vs-method tests of every kernel (the Python methods are the reference). A built-in kind
    of :func:`flexmbs.engine.force_elements.force_element` is checked there (:func:`_check_builtin`)."""
    if compiled_force(force):
        return _check_builtin(system, force, q, v, t)
    spec, why = force_kernel(force, system)
    if spec is None:
        raise ValueError(why)
    n_b, n_m, n_quasi = len(system.bodies), len(system.markers), system.n_quasi_max
    q, v = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float)
    ints = lambda x: np.ascontiguousarray(np.asarray(x, dtype=np.int64).reshape(-1))  # noqa: E731
    packed, out = np.zeros((n_b, n_quasi)), np.zeros(max(len(spec.output_names), 1))
    evaluate_kernel(spec.address, 1, t, q, v, ints(system.body_offsets), ints(system.body_n_modes),
                    ints(system.marker_body), system.marker_local, system.marker_orient, system.marker_s_t,
                    system.marker_s_r, np.empty((n_b, 3, 3)), np.empty((n_b, 3, 4)), np.empty((n_b, 3)),
                    system.ground_positions.copy(), system.ground_axes.copy(), np.zeros((n_m, 3, n_quasi)),
                    np.zeros((n_m, 3, n_quasi)), np.zeros((n_m, 3)), np.zeros((n_m, 3)), packed,
                    ints([q.size, n_b, n_m, n_quasi]), np.ascontiguousarray(spec.fpar, dtype=float),
                    ints(spec.ipar), out)
    return _compared(system, force, q, v, t, packed, spec.output_names, out)


def _compared(system, force, q, v, t: float, packed: np.ndarray, names, out) -> dict:
    """The kernel's loads and outputs beside the element's own ``generalized_forces`` and ``outputs``."""
    ctx = system.context(q, v, t)
    reference = np.zeros_like(packed)
    for body, gen in force.generalized_forces(ctx):
        reference[body.index, :gen.size] += gen
    return {"loads": (packed, reference), "outputs": (dict(zip(names, out)), force.outputs(ctx))}


def _signal_value(kind: str, data, t: float) -> float:
    """A signal of the compiled step at ``t`` (``plan._Plan._signal_function``)."""
    if kind == "constant":
        return float(data)
    if kind == "table":
        return interp(float(t), np.asarray(data[0], float), np.asarray(data[1], float))[0]
    return float(data(t))


def _check_builtin(system, force, q, v, t: float) -> dict:
    """:func:`check_force_kernel` for a kind of :func:`flexmbs.engine.force_elements.force_element`: its tables and
    signals at ``t``, the marker states at ``(q, q̇)`` (its context's), then the element. Joint friction reads the
    reactions of the constraint rows and is checked on the engines instead."""
    if type(force) is JointFriction:
        raise ValueError("JointFriction reads the joint reactions: compare the engines instead")
    q, v = np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(v, dtype=float)
    signals = []
    (kind, mi, mj, sig_index, which), par, rows = force_tables(system, [force], SimpleNamespace(q=q, v=v, t=t),
                                                               signals)
    sig = np.array([_signal_value(k, data, t) for k, data in signals] + [0.0])
    ctx = system.context(q, v, t)  # the body kinematics and marker states of the compiled step's kernels
    X, R, JX, JTH, V, W = ctx.marker_arrays()
    packed, out = np.zeros((len(system.bodies), system.n_quasi_max)), np.zeros(N_OUT)
    no_rows = np.zeros((1, system.n_quasi_max))
    force_element(0, kind, mi, mj, sig_index, which, par, rows, sig, q, np.zeros(1), ctx.A, X, R, JX, JTH, V, W,
                  no_rows, no_rows, system.body_offsets, system.marker_body, system.body_n_modes, packed, out)
    return _compared(system, force, q, v, t, packed, force.output_units, out)
