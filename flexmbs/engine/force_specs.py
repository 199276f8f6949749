"""Which force elements have a compiled kernel (:mod:`flexmbs.engine.force_kernels`), and the check of a kernel
against its element's own methods."""
from __future__ import annotations

import numpy as np

from flexmbs.model.contacts import PlaneContact
from flexmbs.model.forces import Bushing, PointForce, RotationalSpringDamper
from flexmbs.model.sliding import SlidingContact

from .force_kernels import ForceKernel, evaluate_kernel

__all__ = ["force_kernel", "check_force_kernel"]

_CONTACTS = (SlidingContact, PlaneContact)  # the keys of contact_kernels.BUILTIN
_SPRINGS = (Bushing, RotationalSpringDamper, PointForce)  # the keys of spring_kernels.BUILTIN


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
    (dicts). For the kernel-vs-method tests of every kernel (the Python methods are the reference)."""
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
    ctx = system.context(q, v, t)
    reference = np.zeros((n_b, n_quasi))
    for body, gen in force.generalized_forces(ctx):
        reference[body.index, :gen.size] += gen
    return {"loads": (packed, reference),
            "outputs": (dict(zip(spec.output_names, out)), force.outputs(ctx))}
