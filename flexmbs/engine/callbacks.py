"""The Python parts of a compiled model: a user's own elements, called back from the compiled step (issue 41).

The compiled step (:mod:`flexmbs.engine.step`) evaluates every built-in law itself. What a user wrote in
Python joins it as a *callback evaluated only for itself*, as MuJoCo's ``mjcb_passive`` and Exudyn's user
functions do:

* a **force element** without a kernel (``generalized_forces(ctx)``): its loads in quasi-coordinates;
* a **state element** without a compiled kernel, or one that reads a measurement the compiled step does not
  know (a hydraulic circuit with a user's component, a controller, a user's measurement type): its rates
  ``ż = rates(t, z, y, ẏ)`` and its loads ``Σ f_k ∂y_k/∂q̄`` (``forces``, :func:`flexmbs.engine.system.measure`);
* a **joint** without library rows (a user's joint class): its rows ``Φ`` and their Jacobians from
  ``joint.equations`` (:meth:`flexmbs.engine.system.System._joint_rows`).

The compiled step hands the state over in the buffers of :attr:`PythonParts.buffers` and calls
:meth:`PythonParts.evaluate` (one ``ctypes`` callback per residual). A difference column of the Jacobian evaluates
again only the parts coupled to it (the rest keep their base-point values), so a callback costs its own columns,
not the model's: a part is coupled to the coordinates and velocities of its markers' bodies (a force element's
``markers()``, a measurement's markers or joint, a joint's two markers; all bodies when it names none), a state
element to its own states, a force element unless marker-local (``marker_local = True``) to every state ``z`` (it
may read ``ctx.z``).
"""
from __future__ import annotations


import numpy as np

from flexmbs.model.markers import Marker

from .system import HoldsSystem, add_joint_rows, measure

__all__ = ["PythonParts"]

# the empty buffers of a model without Python parts (every such plan's: nothing is ever written into them)
_NONE, _NONE_2, _NO_INDEX = np.zeros(0), np.zeros((0, 0)), np.zeros(0, dtype=np.int64)
for _empty in (_NONE, _NONE_2, _NO_INDEX):
    _empty.flags.writeable = False
del _empty


def _marker_bodies(markers) -> list[int] | None:
    """Indices of the bodies of ``markers`` (None: unknown, i.e. every body)."""
    if markers is None:
        return None
    return sorted({m.body.index for m in markers if not m.on_ground})


def _force_markers(force):
    markers = getattr(force, "markers", None)
    if not callable(markers):
        return None
    try:
        found = list(markers())
    except Exception:  # noqa: BLE001  an element that cannot name its markers is coupled to every body
        return None
    return found or None


def _measurement_markers(meas):
    """The markers a measurement reads (its ``markers()``, its marker attributes or its joint's), or None."""
    markers = getattr(meas, "markers", None)
    if callable(markers):
        return list(markers())
    found = [value for value in vars(meas).values() if isinstance(value, Marker)]
    joint = getattr(meas, "joint", None)
    if joint is not None and hasattr(joint, "marker_i"):
        found += [joint.marker_i, joint.marker_j]
    return found or None


class PythonParts(HoldsSystem):
    """The Python force elements, state elements and joints of one compiled model, and their callback.

    Parameters
    ----------
    system : flexmbs.engine.system.System
    forces : list
        Force elements evaluated in Python (``generalized_forces(ctx)``).
    elements : list of int
        Indices (in ``system.elements``) of the state elements evaluated in Python.
    joints : list
        Joints whose rows Python evaluates (``system.fallback_joints``).
    """

    def __init__(self, system, forces: list, elements: list, joints: list):
        self._system, self.forces, self.joints = system, list(forces), list(joints)
        self.elements = [(k, system.elements[k]) for k in elements]
        n_q, n_z, n_b = system.n_q, system.n_z, len(system.bodies)
        self.active = bool(self.forces or self.elements or self.joints)
        offsets = system.z_offsets
        z_rows = [i for k, _ in self.elements for i in range(offsets[k], offsets[k + 1])]
        # (joint, its first row in phi/jac here, its first row among all rows (System.constraints), rows)
        self.joint_rows, pos = [], 0
        for joint in self.joints:
            n = joint.n_equations - len(joint.drivers)  # the prescribed motions' rows are compiled (driver_rows)
            self.joint_rows.append((joint, pos, joint.offset, n))
            pos += n
        p_rows = [first + i for _, _, first, n in self.joint_rows for i in range(n)]
        # (the state: also the contact gaps' callback reads it, flexmbs.engine.plan._Plan._gap_function)
        self.q, self.v, self.z, self.lam = np.zeros(n_q), np.zeros(n_q), np.zeros(n_z), np.zeros(system.n_c)
        if self.active:
            self.loads = np.zeros((n_b, system.n_quasi_max))
            self.zdot, self.phi, self.jac = np.zeros(len(z_rows)), np.zeros(len(p_rows)), np.zeros((len(p_rows), n_q))
        else:  # never called back: empty arrays that nothing writes, shared (≈ 3 µs of a start)
            self.loads, self.zdot, self.phi, self.jac = _NONE_2, _NONE, _NONE, _NONE_2
        # the Python elements' integrands (``integrands``, in the order of ``integral_units``) go into the compiled
        # step's ``aux`` after the kernels' (set by the plan: :meth:`integrand_slots`)
        self.integrating = [(i, e) for i, (_, e) in enumerate(self.elements) if hasattr(e, "integrands")]
        self.aux, self.aux_first = _NONE, 0
        self.control = np.array([-1, 1 if self.active else 0, 1 if self.integrating else 0], dtype=np.int64)
        # coupling: the parts (("f", i), ("e", i), ("j", i)) each difference column re-evaluates
        parts = ([("f", i, self._force_columns(f)) for i, f in enumerate(self.forces)]
                 + [("e", i, self._element_columns(k, e)) for i, (k, e) in enumerate(self.elements)]
                 + [("j", i, self._body_columns([j.marker_i, j.marker_j], velocity=False))
                    for i, (j, *_) in enumerate(self.joint_rows)]) if self.active else ()
        # (without parts the compiled step never calls back: no column lists)
        self.by_column: list[list] = [[] for _ in range(2 * n_q + n_z)] if self.active else []
        # 1: a part re-evaluates for this column (read by the compiled step only where it calls back)
        self.columns = np.zeros(2 * n_q + n_z, dtype=np.int64) if self.active else _NO_INDEX
        for kind, i, columns in parts:
            for c in columns:
                self.by_column[c].append((kind, i))
                self.columns[c] = 1
        self.z_rows, self.p_rows = (np.array(z_rows, dtype=np.int64), np.array(p_rows, dtype=np.int64)) \
            if self.active else (_NO_INDEX, _NO_INDEX)
        self.buffers = (self.q, self.v, self.z, self.lam, self.loads, self.zdot, self.z_rows, self.phi, self.jac,
                        self.p_rows, self.control, self.columns)
        # the values of the last full evaluation (the base point of the difference columns)
        self._force_base: list = [[] for _ in self.forces]
        self._element_base: list = [None] * len(self.elements)
        # (without parts the buffers are empty: nothing to keep apart; np.zeros_like: three times the time)
        bases = (self.loads, self.zdot, self.phi, self.jac)
        self._loads_base, self._zdot_base, self._phi_base, self._jac_base = (
            [np.zeros(b.shape) for b in bases] if self.active else bases)
        self.errors: list = []
        self.calls = 0  # evaluations of user parts (for the cost of a callback: docs/element-protocol.md)

    _holder = "plan's Python parts"  # (the one-line message of HoldsSystem.system)

    def integrand_slots(self) -> list[str]:
        """The result keys of the Python elements' integrals, in the order of their ``aux`` slots."""
        return [f"element/{e.name}/{key}" for _, e in self.integrating for key in e.integral_units]

    def _integrands(self, ctx, t) -> None:
        """The Python elements' integrands at the state in the buffers into their ``aux`` slots."""
        offsets, slot = self.system.z_offsets, self.aux_first
        for i, element in self.integrating:
            k = self.elements[i][0]
            y, ydot, _ = measure(ctx, element.measurements)
            values = element.integrands(t, self.z[offsets[k]:offsets[k + 1]], y, ydot)
            for key in element.integral_units:
                self.aux[slot] = float(values[key])
                slot += 1

    # --- coupling --------------------------------------------------------------------------------------------
    def _body_columns(self, markers, velocity: bool = True) -> list[int]:
        """The difference columns of the coordinates (and velocities) of the bodies of ``markers`` (None: all)."""
        system, chosen = self.system, _marker_bodies(markers)
        bodies = system.bodies if chosen is None else [system.bodies[b] for b in chosen]
        cols = [j for body in bodies for j in range(body.slice.start, body.slice.stop)]
        return cols + [system.n_q + j for j in cols] if velocity else cols

    def _force_columns(self, force) -> list[int]:
        cols = self._body_columns(_force_markers(force))
        if not getattr(force, "marker_local", False):
            cols += [2 * self.system.n_q + i for i in range(self.system.n_z)]
        return cols

    def _element_columns(self, k, element) -> list[int]:
        markers: list | None = []
        for meas in element.measurements:
            found = _measurement_markers(meas)
            if found is None:
                markers = None
                break
            markers += found
        offsets = self.system.z_offsets
        return self._body_columns(markers) + [2 * self.system.n_q + i for i in range(offsets[k], offsets[k + 1])]

    # --- evaluation --------------------------------------------------------------------------------------------
    def _context(self, t):
        ctx = self.system.context(self.q, self.v, t, self.lam)
        ctx.z = self.z
        return ctx

    def _force(self, i, ctx) -> list:
        self.calls += 1
        return [(body.index, np.asarray(gen, dtype=float).copy()) for body, gen in self.forces[i].generalized_forces(ctx)]

    def _element(self, i, ctx, t) -> tuple:
        """``(rates, [(body index, load)])`` of Python state element ``i``."""
        self.calls += 1
        k, element = self.elements[i]
        offsets = self.system.z_offsets
        z_e = self.z[offsets[k]:offsets[k + 1]]
        y, ydot, grads = measure(ctx, element.measurements)
        rates = np.asarray(element.rates(t, z_e, y, ydot), dtype=float).reshape(-1)
        f = np.asarray(element.forces(t, z_e, y, ydot), dtype=float).reshape(-1)
        loads = [(body.index, f_k * np.asarray(g, dtype=float)) for f_k, grad in zip(f, grads) for body, g in grad]
        return rates, loads

    def _joint(self, i, ctx, phi, jac) -> None:
        """Rows ``Φ`` and ``Φ_q`` of Python joint ``i`` (``System._joint_rows``) into its rows of ``phi``, ``jac``."""
        self.calls += 1
        joint, pos, _, n = self.joint_rows[i]
        res, ji, jj = joint.equations(ctx.marker(joint.marker_i), ctx.marker(joint.marker_j), ctx.t)
        rows = np.zeros((n, self.system.n_q))
        add_joint_rows(rows, slice(None), joint, np.asarray(ji)[:n], np.asarray(jj)[:n], ctx.kin)
        phi[pos:pos + n], jac[pos:pos + n] = np.asarray(res, dtype=float)[:n], rows

    def evaluate(self, t: float) -> None:
        """The callback: the parts the compiled step's column code asks for, at the state in the buffers."""
        try:
            self._evaluate(float(t))
        except BaseException as exc:  # noqa: BLE001  raised again in Python after the compiled call
            self.errors.append(exc)
            self.loads[:] = np.nan
            self.zdot[:] = np.nan
            self.phi[:] = np.nan

    def _evaluate(self, t: float) -> None:
        col = int(self.control[0])
        ctx = self._context(t)
        if col == -3:  # the integrands alone (step.integrands, after an accepted step)
            self._integrands(ctx, t)
            return
        if col == -2:  # the joints' rows alone (step.constraints_at)
            for i in range(len(self.joint_rows)):
                self._joint(i, ctx, self.phi, self.jac)
            return
        if col < 0:  # a full evaluation: the new base point
            loads = self._loads_base
            loads[:] = 0.0
            for i in range(len(self.forces)):
                self._force_base[i] = part = self._force(i, ctx)
                _add_loads(loads, (), part)
            lo = 0
            for i, (k, _) in enumerate(self.elements):
                self._element_base[i] = rates, part = self._element(i, ctx, t)
                self._zdot_base[lo:lo + rates.size] = rates
                lo += rates.size
                _add_loads(loads, (), part)
            for i in range(len(self.joint_rows)):
                self._joint(i, ctx, self._phi_base, self._jac_base)
            if self.integrating:  # with the kernels' (mode 0 at every evaluation): the samples integrate them
                self._integrands(ctx, t)
        # the base values; for a difference column, the parts coupled to it evaluated again
        self.loads[:] = self._loads_base
        self.zdot[:] = self._zdot_base
        self.phi[:] = self._phi_base
        self.jac[:] = self._jac_base
        for kind, i in self.by_column[col] if col >= 0 else ():
            if kind == "f":
                _add_loads(self.loads, self._force_base[i], self._force(i, ctx))
            elif kind == "e":
                rates, part = self._element(i, ctx, t)
                _add_loads(self.loads, self._element_base[i][1], part)
                lo = int(np.searchsorted(self.z_rows, self.system.z_offsets[self.elements[i][0]]))
                self.zdot[lo:lo + rates.size] = rates
            else:
                self._joint(i, ctx, self.phi, self.jac)


def _add_loads(loads: np.ndarray, old: list, new: list) -> None:
    """A part's loads ``[(body index, load)]`` into ``loads`` (bodies, quasi-coordinates): ``old`` (its loads at
    the base point) taken out, ``new`` added."""
    for b, gen in old:
        loads[b, :gen.size] -= gen
    for b, gen in new:
        loads[b, :gen.size] += gen
