"""Compile a model for the compiled step (issue 26): flat arrays, a workspace, and the run that steps them.

:func:`compiled_run` turns an assembled :class:`~flexmbs.engine.system.System` into the arrays of
:mod:`flexmbs.engine.step` once (parameters, index maps, element kernels' addresses and parameters) and
returns a :class:`CompiledRun`, which steps them with :func:`flexmbs.engine.loop.advance`. What compiles and what
is called back in Python (:mod:`flexmbs.engine.callbacks`): docs/architecture.md, "The compiled step".
"""
from __future__ import annotations

import ctypes
import itertools
import time
import weakref
from ctypes import POINTER, c_double, c_int64

import numpy as np

from fem.errors import ModelError, SimulationError
from fem.scalar_laws import interp

from flexmbs.model.joints import Joint
from flexmbs.model.measurements import Distance, JointCoordinate, MarkerCoordinate

from .loop import (C_AF, C_AM, C_ATOL, C_B, C_G, C_GROW, C_INTERVAL, C_MAXNEWTON, C_MAXSTEP, C_MINSTEP,
                            C_RTOL, C_SAFETY, C_SHRINK, C_TEND, CONTINUE, EVENT, advance)
from .events import MAX_RESTEPS, REARM_GAP, owner_gaps
from .interrupts import deferred_interrupt
from .flex_terms import flexible_arrays
from .lapack import lapack_functions
from .force_elements import N_OUT, compiled_force, driver_table, force_tables, has_friction
from .callbacks import PythonParts
from .samples import Sampler, int_array, int_arrays
from .force_kernels import kernel_tables
from .force_specs import force_kernel
from .plan_fields import BLK, FNS, MF, MI, TMP, WS, constant_function, new_plan_of, pack
from .step import (END, ERROR_FAILED, H, MAX_STEPS, NEWTON_FAILED, OUTPUT, S_FACT, S_ITER, S_JAC,
                            S_LAST_ITERS, S_NEWTON_FAIL, S_REJECTED, S_RES, S_STEPS, S_WORST, STEP_TOO_SMALL, T,
                            T_SIG, DISTANCE, MARKER, ROTATION, TRANSLATION)

CHUNK = 64  # step attempts of the first compiled call: the watchdog, progress bar and Ctrl-C run between calls
# (a call costs ≈ 20 µs); the chunk doubles while a call takes less than CHUNK_WALL[0] s and halves above
# CHUNK_WALL[1] s (between 8 and CHUNK_MAX attempts), so they run at a steady rate whatever a step costs
CHUNK_MAX, CHUNK_WALL = 4096, (0.05, 0.25)
# gentle step-size changes: generalized-α's algorithmic acceleration carries the step history, and abrupt changes
# excite the parasitic root in stiff elastic modes and multipliers
STEP_SHRINK_MIN, STEP_GROWTH_MAX, SAFETY = 0.3, 1.5, 0.85
from .equations import equation_name, equation_names, newton_message
from .redundancy import reselect_rows
from .integrator import NewtonFailure, StepState
from .system import measure

__all__ = ["compiled_run", "CompiledRun", "ELEMENT_PROTOTYPE"]

#: the fields a plan writes when it is made, in the order of its values (:class:`_Plan`): the members of its tuples
#: by their names, then its single arrays, the signal callback and a run's state (:class:`CompiledRun`)
_TUPLE_LENGTHS = tuple(map(len, (MI, MF, WS, FNS, BLK, TMP)))
_PLAN_NAMES = (*MI, *MF, *WS, *FNS, *BLK, *TMP, "mat", "piv", "rhs", "errv", "limiting", "integrals", "aux_prev",
               "nwork", "sp", "bf", "gv", "cb", "cur", "new", "coef", "sc", "fl", "stats")
if len(set(_PLAN_NAMES)) != len(_PLAN_NAMES):  # pragma: no cover - one array per field
    raise ImportError("flexmbs.engine.plan: a field of the compiled plan is named twice")

_PD = POINTER(c_double)
#: C prototype of a compiled element kernel (docs/element-protocol.md):
#: ``kernel(mode, t, z, y, ydot, sig, fpar, ipar, rates, forces, aux)`` (mode 0: integrands into aux, 1: outputs)
ELEMENT_PROTOTYPE = ctypes.CFUNCTYPE(None, c_int64, c_double, _PD, _PD, _PD, _PD, _PD, POINTER(c_int64), _PD, _PD,
                                     _PD)
_SIGNAL_CALLBACK = ctypes.CFUNCTYPE(None, c_double)
# read-only arrays every plan may share: the armed gaps of a model without gaps, the gap above which a gap re-arms
_NO_GAPS, _REARM = np.zeros(0, dtype=np.int64), np.array([REARM_GAP])
_NO_GAPS.flags.writeable = _REARM.flags.writeable = False
_NO_CALLBACK = constant_function(_SIGNAL_CALLBACK(lambda t: None))
_NEWTON_REASONS = {-1: "non-finite residual", -2: "non-finite Newton update (singular or overflowing iteration "
                   "matrix)", -3: "diverging", -4: "too many iterations"}


def _release_cast(function) -> None:
    """Drop the reference a ctypes function holds to itself once cast (``ctypes.cast``: numba reads the address of
    the signal callback handed to a compiled function so): that cycle left a finished plan's callback, its closure
    and thunk to the garbage collector; the casts' pointers are long gone when this is called."""
    objects = getattr(function, "_objects", None)
    if type(objects) is dict:
        objects.pop(id(function), None)


def _refuse_meaningless(system) -> None:
    """One line for what no engine can integrate: a joint between two ground markers constrains no coordinate."""
    for joint in system.model.joints:
        if joint.marker_i.on_ground and joint.marker_j.on_ground:
            raise ModelError(f"joint {joint.name!r} connects two ground markers ({joint.marker_i.name!r}, "
                             f"{joint.marker_j.name!r}): it constrains nothing; remove it or attach it to a body")


def _reads_reactions(system, forces, state) -> bool:
    """A Python force element reads the joint reactions (a joint friction of the user's): the compiled samples then
    iterate the reactions to their fixed point (loop.consistent_sample), as with the kernels' friction."""
    if not forces:
        return False
    ctx = system.context(state.q, state.v, state.t, state.lam)
    ctx.z = state.z
    for force in forces:
        force.generalized_forces(ctx)
    return bool(ctx.multipliers_read)


def _element_kernel(system, k, state):
    """The spec of state element ``k``'s compiled kernel, or None: then it is a Python part
    (:mod:`flexmbs.engine.callbacks`): it offers no kernel, reads a measurement the compiled step does not evaluate,
    or has event gaps its kernel does not have."""
    element = system.elements[k]
    if not callable(getattr(element, "compiled_element", None)):
        return None
    for meas in element.measurements:
        if _measurement_row(meas) is None:
            return None
    spec = element.compiled_element()[0]
    # the kernel's gaps must be the element's own (unless the spec says its gap names are those of event_gaps()
    # by construction: docs/element-protocol.md, ``gap_names_exact``)
    if spec is not None and hasattr(element, "event_gaps") and not getattr(spec, "gap_names_exact", False):
        offsets = system.z_offsets
        ctx = system.context(state.q, state.v, state.t)
        y, ydot, _ = measure(ctx, element.measurements)
        own = list(element.event_gaps(state.t, state.z[offsets[k]:offsets[k + 1]], y, ydot))
        if own != list(getattr(spec, "gap_names", [])):
            return None
    return spec


def _measurement_row(meas) -> tuple[int, int, int] | None:
    """``(kind, a, b)`` of a measurement the compiled step evaluates (:func:`flexmbs.engine.step.measure`),
    or None: a ``Distance`` between its markers ``a``, ``b``; a ``JointCoordinate`` rotation or translation between
    its joint's markers ``i``, ``j`` (a joint class that defines its own ``coordinate``: its element is called back in Python);
    a ``MarkerCoordinate`` of marker ``a`` along axis ``b``."""
    if type(meas) is Distance:
        return DISTANCE, meas.marker_a.index, meas.marker_b.index
    if type(meas) is MarkerCoordinate:
        return MARKER, meas.marker.index, meas.axis
    if type(meas) is JointCoordinate and type(meas.joint).coordinate is Joint.coordinate:
        kind = {"rotation": ROTATION, "translation": TRANSLATION}.get(meas.which)
        if kind is not None:
            return kind, meas.joint.marker_i.index, meas.joint.marker_j.index
    return None


def _sorted_forces(system) -> tuple[list, list, list, list]:
    """The force elements in one pass: ``(built-in kinds of :func:`compiled_force`, those with a kernel of their own,
    their :class:`~flexmbs.engine.force_kernels.ForceKernel`, those called back in Python)``."""
    compiled, kernel, specs, python = [], [], [], []
    for f in system.forces:
        if compiled_force(f):
            compiled.append(f)
            continue
        spec = force_kernel(f, system)[0]
        if spec is None:
            python.append(f)
        else:
            kernel.append(f)
            specs.append(spec)
    return compiled, kernel, specs, python


class _Plan:
    """The arrays of one compiled model (see :mod:`flexmbs.engine.step` for their roles), and the compiled
    plan that refers to them by name (:attr:`struct`, :mod:`flexmbs.engine.plan_fields`; the tuples ``mi``, ``mf``,
    ``ws``, ... hold the same arrays in the order of :data:`~flexmbs.engine.plan_fields.MI`, ... for Python). A joint
    between two ground markers is refused in one line."""

    struct = None

    @property
    def callback(self):
        """The signal callback (ctypes); setting it also sets it in the compiled plan."""
        return self._callback

    @callback.setter
    def callback(self, value) -> None:
        old = self.__dict__.get("_callback")
        self._callback = value
        if self.struct is not None:
            pack(self.struct, self._held, cb=value)
        if old is not None and old is not value:
            _release_cast(old)

    @property
    def _held(self) -> dict:
        """What the compiled plan points to, by field (plan_fields.pack), made from the plan's values on first use (a
        dict of its ≈ 120 fields cost ≈ 3 µs of every start; a field is written again rarely: a new callback)."""
        held = self.__dict__.get("_held_fields")
        if held is None:
            held = self._held_fields = dict(zip(_PLAN_NAMES, self._values))
            self._values = None
        return held

    def __del__(self) -> None:
        callback = self.__dict__.get("_callback")
        if callback is not None:
            _release_cast(callback)

    def __init__(self, system, integ, state):
        _refuse_meaningless(system)
        all_specs = [_element_kernel(system, k, state) for k in range(len(system.elements))]
        self.compiled_forces, self.kernel_forces, k_specs, self.python_forces = _sorted_forces(system)
        # the state elements with compiled kernels, and those called back in Python (flexmbs.engine.callbacks)
        self.compiled_elements, self.python_elements = [], []
        for k, spec in enumerate(all_specs):
            (self.python_elements if spec is None else self.compiled_elements).append(k)
        specs = [all_specs[k] for k in self.compiled_elements]
        elements = [system.elements[k] for k in self.compiled_elements]
        self.parts = PythonParts(system, self.python_forces, self.python_elements, system.fallback_joints)

        made: list = []  # (not functools.cache: making its wrapper cost ≈ 5 µs of a start)

        def at_start():
            """The context of the start state, made on first use (models without gaps or angles need none)."""
            if not made:
                made.append(system.context(state.q, state.v, state.t, state.lam))
                made[0].z = state.z
            return made[0]

        # the force elements with contact gaps (located by flexmbs.engine.events), compiled or not: gaps in Python
        self.gap_forces = [f for f in system.forces if hasattr(f, "event_gaps")]
        # the Python state elements' gaps follow the force elements' (the same callback)
        self.gap_elements = [k for k, spec in enumerate(all_specs)
                             if spec is None and hasattr(system.elements[k], "event_gaps")]
        self.force_gap_names = [f"{owner}.{name}" for owner, gaps in owner_gaps(
            system, self.gap_forces, self.gap_elements, at_start, state.t, state.z) for name in gaps]
        n_q, n_z, n_c = system.n_q, system.n_z, system.n_c
        n_b, n_m = len(system.bodies), len(system.markers)
        cc = system.compiled
        keep = system.row_keep if system.row_keep is not None else np.arange(system.n_c_all)
        meas_a, meas_b, meas_kind, el = [], [], [], {k: [] for k in "zysafi"}
        angle_ref, self.angles = [], []  # rotation measurements: (row in y, measurement), for _sync_angles
        fx_bodies, fx_data, fx_work = flexible_arrays(system, state.q)
        fpar, ipar, signals, n_aux, n_f, n_i = [], [], [], 0, 0, 0
        z_offsets = system.z_offsets
        for k, element, spec in zip(self.compiled_elements, elements, specs):
            # the element's first state, measurement, signal, integrand, float and integer parameter
            for key, first in zip("zysafi", (z_offsets[k], len(meas_a), len(signals), n_aux, n_f, n_i)):
                el[key].append(first)
            for meas in element.measurements:
                kind, a, b = _measurement_row(meas)
                # an angle's first reference: the Python measurement's value at the start (continuous with the
                # consistent start's evaluations)
                if kind == ROTATION:
                    self.angles.append((len(meas_a), meas))
                angle_ref.append(float(meas.evaluate(at_start())[0]) if kind == ROTATION else 0.0)
                meas_kind.append(kind)
                meas_a.append(a)
                meas_b.append(b)
            fpar.append(np.asarray(spec.fpar, dtype=float))
            ipar.append(np.asarray(spec.ipar, dtype=np.int64))
            n_f += len(fpar[-1])
            n_i += len(ipar[-1])
            signals += list(spec.signals)
            n_aux += spec.n_aux
        py_keys = self.parts.integrand_slots()  # the Python elements' integrands after the kernels'
        self.parts.aux_first = n_aux
        n_aux += len(py_keys)
        f_ints, self._force_par, f_rows = force_tables(system, self.compiled_forces, state, signals)
        k_index, k_ipar, k_fpar, n_kout, self.force_kernels = kernel_tables(k_specs)
        self.kernel_outputs = [list(spec.output_names) for spec in k_specs]
        self.drivers = driver_table(system, signals)
        ints = int_array
        n_y = len(meas_a)
        # the index lists (and the number of the force elements' gaps, whether the samples iterate the reactions, the
        # kernels' dimensions) as slices of one array
        (meas_a, meas_b, el_z, el_y, el_s, el_a, el_f, el_i, n_force_gaps, reactions, dims, meas_kind) = int_arrays(
            meas_a, meas_b, el["z"], el["y"], el["s"], el["a"], el["f"], el["i"], [len(self.force_gap_names)],
            [has_friction(self.compiled_forces) or _reads_reactions(system, self.python_forces, state)],
            [n_q, n_b, n_m, system.n_quasi_max], meas_kind)
        # (the system's and its constraint tables' index arrays are int64 vectors already: taken as they are, as
        # int_array would; a conversion per array cost ≈ 0.5 µs of a start)
        self.mi = (system.body_offsets, system.body_n_modes, system._rigid_index, system.marker_body,
                   system.body_n_coordinates, cc.flat_kind, cc.flat_mi, cc.flat_mj, cc.flat_a, cc.flat_b, cc.flat_rows,
                   ints(keep), meas_a,
                   meas_b, el_z, el_y, el_s, el_a, el_f, el_i, ints(np.concatenate(ipar) if ipar else [0]),
                   ints(integ._rotation), *f_ints, n_force_gaps, fx_bodies, f_rows, reactions, self.drivers, k_index,
                   k_ipar, dims, meas_kind)
        self.sig = np.zeros(max(len(signals), 1))
        flo = lambda x: np.ascontiguousarray(x, dtype=float)  # noqa: E731
        zscale = np.empty(n_z)  # the states as the elements present them, in their kernels' units (1: the same;
        zscale.fill(1.0)  # np.ones costs three times this)
        for k, spec in enumerate(all_specs):
            if hasattr(spec, "state_scale"):
                zscale[z_offsets[k]:z_offsets[k + 1]] = spec.state_scale
        self.mf = (system._rigid_mass, system._rigid_first_moment, system._rigid_inertia, flo(system.model.gravity),
                   system.marker_local, system.marker_orient, system.marker_s_t, system.marker_s_r,
                   flo(np.concatenate(fpar) if fpar else [0.0]), flo(integ._scale_q), flo(integ._scale_z), self.sig,
                   self._force_par, zscale, fx_data, k_fpar)
        n_quasi = system.n_quasi_max
        n_rows = max(cc.n_rows + len(self.drivers), 1)  # library rows, then the prescribed motions'
        self.ws = (np.empty((n_b, 3, 3)), np.empty((n_b, 3, 4)), np.empty((n_b, 3)), system.ground_positions.copy(),
                   system.ground_axes.copy(), np.zeros((n_m, 3, n_quasi)), np.zeros((n_m, 3, n_quasi)),
                   np.zeros((n_m, 3)), np.zeros((n_m, 3)), np.zeros((n_b, n_quasi)), np.zeros((n_rows, n_quasi)),
                   np.zeros((n_rows, n_quasi)), np.zeros(system.n_c_all), np.zeros((system.n_c_all, n_q)),
                   np.zeros(n_y), np.zeros(n_y), np.zeros(n_y), np.zeros(n_aux), np.zeros(n_q),
                   np.zeros((max(len(self.compiled_forces), 1), N_OUT)), np.zeros(n_z), self.parts.buffers,
                   fx_work, np.zeros(max(n_kout, 1)), np.array(angle_ref, dtype=float))
        self.blk = (np.zeros((n_q, n_q)), np.zeros((n_q, n_q)), np.zeros((n_q, n_z)), np.zeros((n_z, n_q)),
                    np.zeros((n_z, n_q)), np.zeros((n_z, n_z)))
        self.tmp = (np.zeros(n_q), np.zeros(n_z), np.zeros(n_q), np.zeros(n_z), np.zeros(n_c), np.zeros((n_c, n_q)),
                    np.zeros((n_q, n_q)))
        n = n_q + n_z + n_c
        self.mat, self.piv, self.rhs = np.zeros((n, n)), np.zeros(n, dtype=np.int64), np.zeros(n)
        self.errv, self.limiting = np.zeros(n_q + n_z), np.zeros(n_q + n_z, dtype=np.int64)
        self.integrals, self.aux_prev = np.zeros(n_aux), np.zeros(n_aux)
        self.nwork = np.zeros(n_q + 2 * n_z + n_c + n)  # Newton's work vectors (loop.newton_step)
        # a run's state (fields cur, new, coef, sc, fl, stats), written in place by each run (CompiledRun): packed
        # with the rest here, not by the run (a pack of its own cost ≈ 15 µs of a start); the states at the step's
        # start and end as views of one vector each (a run writes each in one call)
        sizes = (n_q, n_q, n_q, n_q, n_z, n_z, n_z, n_c, n_z)
        ends = list(itertools.accumulate(sizes))
        self.run_vectors = np.zeros(ends[-1]), np.zeros(ends[-1])
        self.run_state = (*(tuple([x[end - k:end] for k, end in zip(sizes, ends)]) for x in self.run_vectors),
                          np.zeros(14), np.zeros(7), np.zeros(4, dtype=np.int64), np.zeros(9, dtype=np.int64))
        self.kernels = np.array([spec.address for spec in specs], dtype=np.int64)  # called by step.call_kernel
        self.errors: list = self.parts.errors
        # without Python parts (or gaps) the compiled step never calls them: one shared no-op then
        parts_called = self.parts.active or self.parts.integrating or self.parts.p_rows.size
        self.force_callback = _SIGNAL_CALLBACK(self.parts.evaluate) if parts_called else _NO_CALLBACK
        self.gap_callback = _SIGNAL_CALLBACK(self._gap_function(system)) if self.force_gap_names else _NO_CALLBACK
        self.fns = (self.kernels, self.force_callback, self.gap_callback, *lapack_functions(), self.force_kernels)
        keys = []  # the integral of each aux entry (None: the element does not declare its integrands)
        for e, spec in zip(elements, specs):
            own = [f"element/{e.name}/{key}" for key in e.integral_units] if hasattr(e, "integrands") else []
            keys += own if len(own) == spec.n_aux else [None] * spec.n_aux
        keys += py_keys
        self.aux_keys = keys
        self.parts.aux = self.ws[17]
        self.sampler = Sampler(system, [list(spec.output_names) for spec in specs], n_y, n_aux, keys,
                               self.compiled_forces, self.python_forces, self.drivers,
                               list(zip(self.kernel_forces, self.kernel_outputs)), self.compiled_elements)
        # event gaps: per element [values, rates] in one buffer; armed flags in the order of gap_names
        counts = [len(spec.gap_names) for spec in specs]
        n_fg = len(self.force_gap_names)  # the force elements' gaps after the elements' (values, then rates)
        if any(counts) or n_fg:
            el_g = [0, *itertools.accumulate(2 * n for n in counts)]  # (Python integers: no numpy scalar per gap)
            pos = [el_g[e] + k for e, n in enumerate(counts) for k in range(n)] + [el_g[-1] + k for k in range(n_fg)]
            self.gap_names = [f"{e.name}.{name}" for e, spec in zip(elements, specs)
                              for name in spec.gap_names] + self.force_gap_names
            gap_pos, gap_offsets = int_arrays(pos, el_g)
            armed, n_gaps = np.zeros(len(pos), dtype=np.int64), el_g[-1] + 2 * n_fg
        else:  # (most models) no gap: the compiled step reads none (P.gap_pos.size), nothing to arm (≈ 3 µs)
            self.gap_names, gap_pos, armed, n_gaps = [], _NO_GAPS, _NO_GAPS, 0
            gap_offsets = np.zeros(len(specs) + 1, dtype=np.int64)
        self.gv = (gap_pos, np.zeros(max(n_gaps, 1)), armed, gap_offsets, _REARM)
        self.signals = signals
        self.callback = _SIGNAL_CALLBACK(self._signal_function())
        tuples = (self.mi, self.mf, self.ws, self.fns, self.blk, self.tmp)
        if tuple(map(len, tuples)) != _TUPLE_LENGTHS:  # (a member added to a tuple without its name)
            raise TypeError(f"compiled plan: tuples of {tuple(map(len, tuples))} arrays, the names of "
                            f"{_TUPLE_LENGTHS} (flexmbs.engine.plan_fields.MI, MF, WS, FNS, BLK, TMP)")
        # what the compiled plan points to: held in this tuple (the dict pack needs, _held, made when a field is
        # written again)
        self._values = (*self.mi, *self.mf, *self.ws, *self.fns, *self.blk, *self.tmp, self.mat, self.piv, self.rhs,
                        self.errv, self.limiting, self.integrals, self.aux_prev, self.nwork, self.sampler.sp,
                        self.sampler.bf, self.gv, self.callback, *self.run_state)
        self.struct = new_plan_of(None, _PLAN_NAMES, self._values)

    def check(self) -> None:
        """Raise the first exception a Python callback noted during the last compiled call (the others dropped)."""
        if self.errors:
            exc = self.errors[0]
            self.errors.clear()
            raise exc

    def hold_system_weakly(self) -> None:
        """The Python parts and the sampler hold the system weakly (the plan of the system's own evaluator,
        :func:`flexmbs.engine.evaluate.evaluator`: no reference cycle system - evaluator - plan - system)."""
        self.parts.hold_system_weakly()
        self.sampler.hold_system_weakly()

    def _gap_function(self, system):
        """The callback of the Python force elements' contact gaps, at the state the compiled step handed over."""
        forces, errors, names = self.gap_forces, self.errors, self.force_gap_names
        if not names:
            return lambda t: None
        q, v, z, lam = self.ws[21][:4]
        plan = weakref.ref(self)  # the plan holds this callback: no reference cycle through it (nor to the system)

        def evaluate(t):
            try:
                owner = plan()
                system = owner.parts.system
                buf, base, n = owner.gv[1], int(owner.gv[3][-1]), len(names)
                ctx = system.context(q, v, t, lam)
                ctx.z = z
                k = 0
                for _, gaps in owner_gaps(system, forces, owner.gap_elements, lambda: ctx, t, z):
                    for g, rate in gaps.values():
                        buf[base + k], buf[base + n + k] = g, rate
                        k += 1
            except BaseException as exc:  # noqa: BLE001  raised again in Python after the compiled call
                errors.append(exc)
        return evaluate

    def _signal_function(self):
        sig, errors = self.sig, self.errors
        timed = []
        for i, (kind, data) in enumerate(self.signals):
            if kind == "constant":
                sig[i] = data
            elif kind == "table":
                x, y = np.asarray(data[0], float), np.asarray(data[1], float)
                timed.append((i, lambda t, x=x, y=y: interp(t, x, y)[0]))
            else:
                timed.append((i, data))

        if len(timed) == 1:  # one signal of time (a valve command): no loop in a call per time of the steps
            (first, function), = timed

            def evaluate(t):
                try:
                    sig[first] = function(t)
                except BaseException as exc:  # noqa: BLE001  raised again in Python after the compiled call
                    errors.append(exc)
                    sig[:] = np.nan
            return evaluate

        def evaluate(t):
            try:
                for i, f in timed:
                    sig[i] = f(t)
            except BaseException as exc:  # noqa: BLE001  raised again in Python after the compiled call
                errors.append(exc)
                sig[:] = np.nan
        return evaluate


class CompiledRun:
    """One integration run on the compiled step (what :func:`flexmbs.simulate` steps)."""

    chunk = CHUNK  # step attempts per compiled call (adapted to the wall time of a call)

    def __init__(self, system, integ, state, t_end, h, max_step, min_step, output_interval, plan, recorder, events,
                 integrals, max_steps):
        self.system, self.integ, self.state = system, integ, state
        self.t_end, self.output_interval, self.plan = t_end, output_interval, plan
        self.recorder, self.events, self.integrals = recorder, events, integrals
        self.max_steps, self.resteps = max_steps, 0
        self.stats = {"steps": 0, "rejected_steps": 0, "newton_failures": 0, "max_constraint_violation": 0.0,
                      "event_resteps": 0}
        # the run's state: the plan's arrays (compiled code reads them), every entry written here
        self.cur, self.new, coef, self.sc, self.fl, self.counters = plan.run_state
        coef[C_INTERVAL] = output_interval or 0.0
        coef[C_AM], coef[C_AF], coef[C_G], coef[C_B] = integ.alpha_m, integ.alpha_f, integ.gamma, integ.beta
        coef[C_RTOL], coef[C_ATOL], coef[C_MAXNEWTON] = integ.rtol, integ.atol, integ.max_newton
        coef[C_TEND], coef[C_MAXSTEP], coef[C_MINSTEP] = t_end, max_step, min_step
        coef[C_SAFETY], coef[C_SHRINK], coef[C_GROW] = SAFETY, STEP_SHRINK_MIN, STEP_GROWTH_MAX
        self.coef = coef
        self.sc[:] = state.t, h, 0.0, np.nan, 0.0, 0.0, state.t + (output_interval or 0.0)
        self.fl[:] = 1, 0, 0, 0  # fresh Jacobian at the start
        self.counters.fill(0)
        s = state
        start, end = plan.run_vectors
        np.concatenate((s.q, s.v, s.a, s.qdd, s.z, s.zd, s.w, s.lam, s.zd), out=start)
        end[:] = start
        # the start's sample, as every other, computes what the recorded signals need (without joint reactions
        # recorded: no acceleration-level solve, loop.take_sample)
        plan.sampler.request(getattr(recorder, "request", None))
        self._advance(0)  # the start: sample, Jacobian, integrands
        self.plan.check()
        if self.recorder.writer is not None:  # in memory, the start's sample waits in the buffer (see attempt)
            self.flush()
        if self.events.active and plan.gap_names:  # without gaps (the plan has every name) nothing to arm
            self.events.start(state)
            self._armed_to_compiled()
        self._sync()

    def flush(self) -> None:
        """Hand the buffered samples to the recorder (each attempt does; the start's sample waits for it)."""
        self.plan.sampler.flush(self.recorder, self.stats)

    @property
    def h(self) -> float:
        return float(self.sc[H])

    def limiting_names(self) -> dict[str, int]:
        """Rejected steps per limiting equation, by equation name."""
        out: dict[str, int] = {}
        for i in np.nonzero(self.plan.limiting)[0]:
            name = equation_name(self.system, int(i))
            out[name] = out.get(name, 0) + int(self.plan.limiting[i])
        return out

    def _sync(self) -> None:
        c = self.counters.tolist()  # (Python integers and floats: one conversion, not one per entry)
        stats, sc = self.stats, self.sc.tolist()
        stats["steps"], stats["rejected_steps"], stats["newton_failures"] = c[S_STEPS], c[S_REJECTED], c[S_NEWTON_FAIL]
        stats = self.integ.stats
        stats["newton_iterations"], stats["jacobian_evaluations"] = c[S_ITER], c[S_JAC]
        stats["factorizations"], stats["residual_evaluations"] = c[S_FACT], c[S_RES]
        self.state = self._state(self.cur, sc[T], sc[2])
        values = self.integrals.values
        for key, value in zip(self.plan.aux_keys, self.plan.integrals.tolist()):
            if key is not None:
                values[key] = value
        reference = self.plan.ws[24]
        for k, meas in self.plan.angles:  # Python's own evaluations (events, the last sample) on the same turn
            meas.follow(reference[k])

    def _advance(self, mode: int) -> int:
        return advance(mode, self.chunk, self.max_steps, self.plan.struct)

    def _armed_to_compiled(self) -> None:
        armed = self.events._armed
        self.plan.gv[2][:] = [1 if armed.get(name, False) else 0 for name in self.plan.gap_names]

    def _state(self, arrays, t: float, h_previous: float) -> StepState:
        q, v, a, qdd, z, zd, w, lam, zdp = [x.copy() for x in arrays]
        return StepState(t, q, v, a, qdd, z, zd, w, lam, zdp, h_previous)

    def _event(self) -> int:
        """The pending step with an armed gap closing in it: Python locates the root (the elements' own
        ``event_gaps``); a root more than the event tolerance before the step's end sends the step back onto it."""
        self.events._armed.update({name: bool(a) for name, a in zip(self.plan.gap_names, self.plan.gv[2])})
        old = self.state
        h_try = float(self.sc[5])
        new = self._state(self.new, old.t + h_try, h_try)
        root, found = self.events.check(old, new)
        if root is not None and new.t - root > self.events.tolerance and self.resteps < MAX_RESTEPS:
            self.resteps += 1
            self.stats["event_resteps"] += 1
            self.sc[H] = max(root - old.t + 0.5 * self.events.tolerance, self.coef[C_MINSTEP])
            return CONTINUE
        code = self._advance(2)
        if root is None:
            self.events.accept(found)
        else:
            self.events.accept(found["gaps"], found["event"])
            self.resteps = 0
        self._armed_to_compiled()
        return code

    _singular = ""
    _rechecked_at = None

    def _rows_rechosen(self, message: str) -> bool:
        """The last resort after a Newton failure: at a singular position the kept constraint rows may have become
        dependent; another independent set of the same size takes over (same ``Φ_qᵀ λ``) and the step is retried
        with a fresh Jacobian. Once per time; False when the rows are still independent or their number changes."""
        s = self.state
        if not self.system.n_c or self._rechecked_at == s.t:
            return False
        self._rechecked_at = s.t
        try:
            note, lam = reselect_rows(self.system, s.q, s.v, s.t, s.lam)
        except SimulationError as singular:  # the count changes: said with the failure
            self._singular = str(singular)
            return False
        if note is None:
            return False
        self.system.fallback_notes = [*self.system.fallback_notes, note]
        self.plan.mi[11][:] = self.system.row_keep
        self.cur[7][:] = lam
        self.sc[H] = float(self.sc[5])  # the step that failed, with the new rows
        self._advance(4)
        self._sync()
        return True

    @property
    def attempts_per_call(self) -> int:
        """Step attempts of the last compiled call (the watchdog counts attempts)."""
        return self._last_chunk

    def attempt(self) -> None:
        """Step in compiled code until the end, a full sample buffer or a chunk of steps; record the samples."""
        p = self.plan
        self._last_chunk = self.chunk
        start = time.perf_counter()
        with deferred_interrupt() as ctrl_c:  # Ctrl-C in a Python callback: noted, raised after the call
            code = self._advance(1)
        took = time.perf_counter() - start
        if took < CHUNK_WALL[0] and code == CONTINUE:
            self.chunk = min(2 * self.chunk, CHUNK_MAX)
        elif took > CHUNK_WALL[1]:
            self.chunk = max(self.chunk // 2, 8)
        self.sc[T_SIG] = np.nan  # signals may have been evaluated at a rejected time
        try:
            self.plan.check()
            if code == EVENT:
                self._sync()
                code = self._event()
                self.sc[T_SIG] = np.nan
                self.plan.check()
        finally:
            self._sync()
            if code != CONTINUE or self.recorder.writer is not None:  # in memory: a full buffer or the end
                self.flush()
        if ctrl_c.pending:
            raise KeyboardInterrupt
        if code in (OUTPUT, END, CONTINUE):
            return
        t, names = self.state.t, equation_names(self.system)
        if code == MAX_STEPS:
            raise SimulationError(f"maximum number of steps ({self.max_steps}) reached at t = {t:.6g} s")
        if code == NEWTON_FAILED:
            failure = NewtonFailure(p.rhs.copy(), _NEWTON_REASONS.get(int(self.counters[S_LAST_ITERS]), "failed"))
            message = newton_message(self.system, t, float(self.sc[5]), failure)
            if self._rows_rechosen(message):
                return
            raise SimulationError(message + (f"; {self._singular}" if self._singular else ""))
        worst = int(np.argmax(np.abs(p.errv)))
        if code == ERROR_FAILED:
            raise SimulationError(
                f"step size fell below {self.coef[C_MINSTEP]:g} s at t = {t:.6g} s: the error test keeps failing, "
                f"largest error in {names[int(self.counters[S_WORST])]} (an impact, a discontinuous force or a "
                "solution that blows up?)")
        if code == STEP_TOO_SMALL:
            raise SimulationError(f"step size fell below {self.coef[C_MINSTEP]:g} s at t = {t:.6g} s; the solution "
                                  f"changes too fast in {names[worst]} (does it blow up?)")
        raise SimulationError(f"compiled step returned an unknown code {code}")  # pragma: no cover


def compiled_run(system, integ, state, t_end, h, max_step, min_step, output_interval, recorder, events, integrals,
                 max_steps) -> CompiledRun:
    """The :class:`CompiledRun` of a consistent start (a joint between two ground markers is refused in one line):
    ``recorder`` records its samples, ``events`` (an ``EventLocator``) locates its contact gaps' roots,
    ``integrals`` (the run's ``Integrals``) holds its running integrals."""
    start = getattr(system, "_evaluator", None)  # the consistent start's compiled residual (engine/evaluate.py)
    plan = start.plan_for_run(integ, state) if start is not None else None
    return CompiledRun(system, integ, state, t_end, h, max_step, min_step, output_interval,
                       plan or _Plan(system, integ, state), recorder, events, integrals, max_steps)
