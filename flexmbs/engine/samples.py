"""Output samples of the compiled step (issue 26): index arrays for :func:`flexmbs.engine.loop.take_sample`,
its buffers, and the conversion of a full buffer into the named columns of the results file.

A sample costs no second Newton solve and no Python: the compiled loop fills one buffer row per output time (the
numbers ``Recorder.record`` computes: consistent reactions, body and marker states, joint reactions and coordinates,
element measurements, forces, outputs and integrals); Python turns a full buffer into columns (one slice per
signal, not per sample) and hands them to ``Recorder.record_block``.

A run that requests some outputs only (:mod:`flexmbs.results.outputs`) gets those columns, and its samples do only
the work they need (:meth:`Sampler.request`: the ``SAMPLE_*`` bits of :func:`flexmbs.engine.loop.take_sample`, a
value in the sample counter's array, not a compiled variant).
"""
from __future__ import annotations

import itertools

import numpy as np

from .force_elements import N_OUT
from .loop import (SAMPLE_ALL, SAMPLE_COORDINATES, SAMPLE_ELEMENT_OUTPUTS, SAMPLE_FORCE_OUTPUTS, SAMPLE_JOINTS,
                   SAMPLE_REACTIONS)
from .recorder import Recorder, element_signals, joint_signals
from .system import HoldsSystem

__all__ = ["Sampler", "CAPACITY", "int_array", "int_arrays"]

#: the positions of the buffers in ``Sampler.bf`` (plan_fields.ALIASES: sample_times, ...)
(_TIMES, _H, _ITERATIONS, _VIOLATION, _Q, _V, _Z, _OMEGA, _MARKERS, _Y, _FY, _OUT, _INT, _JF, _JT, _JC, _FO, _KO, _LAM,
 _FALLBACKS, _COUNT) = range(21)
# the work of a sample that recorded buffers need (Sampler.request): joint/NAME/force and torque; joint/NAME/rotation
# and translation; force/NAME/KEY of the force kernels; element/NAME/KEY of the element kernels
_SAMPLE_WORK = (((_JF, _JT), SAMPLE_REACTIONS | SAMPLE_JOINTS), ((_JC,), SAMPLE_COORDINATES),
                ((_KO,), SAMPLE_FORCE_OUTPUTS), ((_OUT,), SAMPLE_ELEMENT_OUTPUTS))
_SOLVER_COLUMNS = (("solver/step_size", _H, slice(None)), ("solver/newton_iterations", _ITERATIONS, slice(None)),
                   ("solver/constraint_violation", _VIOLATION, slice(None)))
CAPACITY = 256  # samples per buffer: Python runs once per this many samples (and per chunk of steps); a write
# error (full disk) then stops the run within 256 samples


def int_array(x) -> np.ndarray:
    """``x`` as a flat C-contiguous int64 array (an array that is one already: itself)."""
    a = np.asarray(x, dtype=np.int64)
    return a if a.ndim == 1 and a.flags.c_contiguous else np.ascontiguousarray(a.reshape(-1))


def int_arrays(*lists) -> list[np.ndarray]:
    """:func:`int_array` of each of several flat lists of integers, as slices of one array: one conversion for the
    dozen short index lists of a plan (0.4 µs each); an empty list gets an empty array of its own, as there."""
    data = np.array([x for xs in lists for x in xs], dtype=np.int64)
    out, at = [], 0
    for xs in lists:
        n = len(xs)
        out.append(data[at:at + n] if n else np.zeros(0, dtype=np.int64))
        at += n
    return out


class Sampler(HoldsSystem):
    """Index arrays (``sp``), buffers (``bf``) and column names of the compiled samples of one model (``n_y``: the
    measurements of the state elements with kernels, ``n_aux`` their integrands, as the plan counted them)."""

    def __init__(self, system, elements_out: list, n_y: int, n_aux: int, integral_keys: list, compiled_forces: list,
                 python_forces: list, drivers: np.ndarray, kernel_forces: list, compiled_elements: list):
        self.compiled_forces, self.python_forces = compiled_forces, python_forces
        # the state elements with compiled kernels (the others are Python parts: flexmbs.engine.callbacks)
        self.compiled_elements = list(compiled_elements)
        self.kernel_forces = list(kernel_forces)  # (element, its output names) with their own kernels
        n_kout = sum(len(names) for _, names in self.kernel_forces)
        model_markers = system.model.markers
        joints = system.model.joints
        cc = system.compiled
        # per joint in one pass (Python 3.11: a comprehension is a call, ≈ 0.5 µs each at a start): the marker on the
        # side of its reactions (j's unless on the ground), whether that is j, its body, both markers; its coordinates
        sides, on_j, side_bodies, mi, mj, c_mi, c_mj, c_kind = [], [], [], [], [], [], [], []
        reactions = []  # (joint, position among the compiled rows, multiplier row) of each row of a reaction
        for j, joint in enumerate(joints):  # (a user's joint has no compiled rows: its reactions in Python, flush)
            marker_i, marker_j = joint.marker_i, joint.marker_j
            ground = marker_j.on_ground
            side = marker_i if ground else marker_j
            sides.append(side.index)
            on_j.append(int(not ground))
            side_bodies.append(side.body.index)
            mi.append(marker_i.index)
            mj.append(marker_j.index)
            for which in joint.coordinates:
                c_mi.append(marker_i.index)
                c_mj.append(marker_j.index)
                c_kind.append(0 if which == "rotation" else 1)
            positions = cc.positions.get(joint)
            if positions is not None:  # (Python integers: a numpy scalar per row cost ≈ 0.3 µs)
                reactions += zip([j] * positions.size, positions.tolist(), cc.flat_rows[positions].tolist())
            if len(drivers):  # the prescribed motions' rows (driving loads; most models have none)
                first, end = joint.offset + joint.n_equations - len(joint.drivers), joint.offset + joint.n_equations
                reactions += [(j, pos, row) for row, pos in zip(drivers[:, 0], drivers[:, 5]) if first <= row < end]
        # each element's first output column (Python integers: _column_plan adds to them per column)
        self.out_offsets = [0, *itertools.accumulate(map(len, elements_out))]
        self.sp = tuple(int_arrays([len(model_markers)], sides, on_j, side_bodies, mi, mj,
                                   *(zip(*reactions) if reactions else ((), (), ())), c_mi, c_mj, c_kind,
                                   self.out_offsets))
        n_q, n_z, n_b = system.n_q, system.n_z, len(system.bodies)
        n = CAPACITY
        self.bf = (np.zeros(n), np.zeros(n), np.zeros(n), np.zeros(n), np.zeros((n, n_q)), np.zeros((n, n_q)),
                   np.zeros((n, n_z)), np.zeros((n, n_b, 3)), np.zeros((n, len(model_markers), 3)), np.zeros((n, n_y)),
                   np.zeros((n, n_y)), np.zeros((n, max(self.out_offsets[-1], 1))), np.zeros((n, n_aux)),
                   np.zeros((n, len(joints), 3)), np.zeros((n, len(joints), 3)), np.zeros((n, len(c_kind))),
                   np.zeros((n, max(len(compiled_forces), 1), N_OUT)), np.zeros((n, max(n_kout, 1))),
                   np.zeros((n, system.n_c)), np.zeros(2),
                   np.array([0, SAMPLE_ALL], dtype=np.int64))  # [samples in the buffer, the work of a sample]
        self.selection, self._parts = None, None  # the run's OutputRequest (None: every signal), _python_parts
        self._system, self.elements_out, self.integral_keys = system, elements_out, integral_keys
        compiled = set(self.compiled_elements)
        self._python = [k for k in range(len(system.elements)) if k not in compiled]  # (the state elements in Python)
        # the Python elements' angles at the last sample (at first their evaluation at the start)
        self._angle_refs = [getattr(m, "_last", None) for k in self._python for m in system.elements[k].measurements
                            if hasattr(m, "follow")] if self._python else []

    _holder = "plan's sampler"  # (the one-line message of HoldsSystem.system)

    def request(self, selection) -> None:
        """Record the signals of the :class:`~flexmbs.results.outputs.OutputRequest` ``selection`` (None: all) and
        set the work of a sample to what they need: the consistent multipliers (the acceleration-level solve) only
        for joint reactions and for the Python parts' signals (their context carries the multipliers); friction
        that reads the reactions keeps the solve whatever is recorded (:func:`flexmbs.engine.loop.take_sample`).
        Asked again for the same request (the run's start sample, then the run's caller), it keeps what it set."""
        if selection is self.selection and (selection is None or getattr(self, "_plan", None) is not None):
            return
        self.selection, self._plan, self._parts = selection, None, None
        count = self.bf[-1]
        if selection is None:
            count[1] = SAMPLE_ALL
            return
        # the recorded columns (each name asked once; the flushes use them): the buffers they read say the work
        self._plan = self._column_plan()
        used = self._plan[3]
        self._parts = self._python_parts(selection)  # (kept for the flushes)
        work = SAMPLE_REACTIONS if any(self._parts) else 0  # (their context carries λ)
        for buffers, bits in _SAMPLE_WORK:
            if not used.isdisjoint(buffers):
                work |= bits
        count[1] = work

    def _python_sample(self, q, v, z, lam, t, python_elements, user_joints) -> dict:
        """The signals of the Python state elements and of the user's joints at one sample's state."""
        system = self.system
        ctx = system.context(q.copy(), v.copy(), t, lam.copy())
        ctx.z = z.copy()
        out: dict = {}
        for k in python_elements:
            element_signals(out, ctx, system.elements[k], ctx.z[system.z_offsets[k]:system.z_offsets[k + 1]], t)
        if user_joints:
            system.constraints(ctx)  # the joints' rows (Context.joint_reaction reads them)
        for joint in user_joints:
            joint_signals(out, ctx, joint, ctx.joint_reaction(joint))
        return out

    def _python_parts(self, selection) -> tuple[list, list, list]:
        """The Python force elements, state elements (indices) and user joints with a signal that ``selection``
        (an OutputRequest; None: every signal) records."""
        system = self.system
        if not (self.python_forces or self._python or system.fallback_joints):  # (most models: no comprehension)
            return [], [], []
        recorded = (lambda prefix: True) if selection is None else selection.any_under
        return ([f for f in self.python_forces if recorded(f"force/{f.name}/")],
                [k for k in self._python if recorded(f"element/{system.elements[k].name}/")],
                [j for j in system.fallback_joints if recorded(f"joint/{j.name}/")])

    @property
    def count(self) -> int:
        return int(self.bf[-1][0])

    def _column_plan(self) -> tuple:
        """Per column of the buffers: ``(name, buffer number in bf, index into its first n rows)``, in the results'
        order, built once (names and slices are the same at every flush): the columns before the Python force
        elements', those of the state elements with kernels, and the integrals and solver columns; and the numbers of
        the buffers they read (a flush takes each buffer's first n rows once)."""
        system, every, request = self.system, slice(None), self.selection
        recorded = (lambda name: True) if request is None else request.test()
        # the rooms with a recorded signal (None: any): the columns of the others are not built (the race's request
        # of element signals: 11 columns fewer, ≈ 3 µs of a start)
        rooms = None if request is None else request.rooms
        first, elements = [], []
        if rooms is None or "body" in rooms:
            for k, b in enumerate(system.bodies):
                o, base = b.offset, f"body/{b.name}/"
                first += [(base + "position", _Q, (every, slice(o, o + 3))),
                          (base + "orientation", _Q, (every, slice(o + 3, o + 7))),
                          (base + "velocity", _V, (every, slice(o, o + 3))),
                          (base + "angular_velocity", _OMEGA, (every, k))]
                if b.n_modes:
                    first.append((base + "modal_coordinates", _Q, (every, slice(o + 7, o + 7 + b.n_modes))))
        if rooms is None or "marker" in rooms:
            for i, marker in enumerate(system.model.markers):
                first.append((f"marker/{marker.name}/position", _MARKERS, (every, i)))
        if rooms is None or "joint" in rooms:
            c = 0
            for j, joint in enumerate(system.model.joints):
                first += [(f"joint/{joint.name}/force", _JF, (every, j)),
                          (f"joint/{joint.name}/torque", _JT, (every, j))]
                for which in joint.coordinates:
                    first.append((f"joint/{joint.name}/{which}", _JC, (every, c)))
                    c += 1
        if rooms is None or "force" in rooms:
            for k, force in enumerate(self.compiled_forces):  # force_elements.force_element: in output_units order
                for i, key in enumerate(force.output_units):
                    first.append((f"force/{force.name}/{key}", _FO, (every, k, i)))
            o = 0
            for force, names in self.kernel_forces:  # force_kernels: outputs in the order of their spec's names
                for key in names:
                    first.append((f"force/{force.name}/{key}", _KO, (every, o)))
                    o += 1
        y0 = 0
        for c, k in enumerate(self.compiled_elements):  # (only the recorded columns: a circuit has dozens of outputs)
            element = system.elements[k]
            prefix = f"element/{element.name}/"
            lo = system.z_offsets[k]
            elements += [(key, _Z, (every, lo + i)) for i, name in enumerate(element.state_names)
                         if recorded(key := prefix + name)]
            measurements = element.measurements
            for i, meas in enumerate(measurements):
                for key, b in ((f"{prefix}y/{meas.name}", _Y), (f"{prefix}force/{meas.name}", _FY)):
                    if recorded(key):
                        elements.append((key, b, (every, y0 + i)))
            y0 += len(measurements)
            out = self.out_offsets[c]
            elements += [(key, _OUT, (every, out + i)) for i, name in enumerate(self.elements_out[c])
                         if recorded(key := prefix + name)]
        last = [(key, _INT, (every, i)) for i, key in enumerate(self.integral_keys)
                if key is not None and recorded(key)]
        last += _SOLVER_COLUMNS  # (recorded always: outputs.ALWAYS)
        if request is not None and first:
            first = [c for c in first if recorded(c[0])]
        used = {b for part in (first, elements, last) for _, b, _ in part}
        return first, elements, last, used

    def flush(self, recorder: Recorder, stats: dict) -> None:
        """Hand the buffered samples to the recorder as columns and empty the buffer."""
        (times, hs, its, viol, Q, V, Z, OM, XM, Y, FY, OUT, INT, JF, JT, JC, FO, KO, LAM, FB, cnt) = self.bf
        n = int(cnt[0])
        if not n:  # (the count and, below, the system read without a property call: ≈ 1 µs a run's end)
            return
        if self.selection is not recorder.request:  # the recorder's request from the first block on (the start's)
            self.request(recorder.request)
        plan = getattr(self, "_plan", None)
        if plan is None:
            plan = self._plan = self._column_plan()
        first, elements, last, used = plan
        head = {b: self.bf[b][:n] for b in used}  # the buffers' first n rows
        cols = {key: head[b][index].copy() for key, b, index in first} if first else {}  # (no call: a comprehension is one)
        selection = self.selection
        python_forces, python_elements, user_joints = self._parts or self._python_parts(selection)
        if python_forces:  # their own outputs, in Python at each sample's state (Recorder.record does the same)
            system, rows = self.system, []
            for r in range(n):
                ctx = system.context(Q[r].copy(), V[r].copy(), float(times[r]), LAM[r].copy())
                ctx.z = Z[r].copy()
                rows.append({f"force/{f.name}/{key}": float(value) for f in python_forces
                             for key, value in f.outputs(ctx).items()})
            _columns(rows, selection, cols)
        cols.update({key: head[b][index].copy() for key, b, index in elements})
        if python_elements or user_joints:  # Python parts: in Python at each sample's state (as Recorder.record)
            # a continuous angle unwraps against the previous sample's, not against the callbacks' last evaluation
            # (the end of the chunk); the callbacks' reference is restored after
            system = self.system
            angles = [m for k in self._python for m in system.elements[k].measurements
                      if hasattr(m, "follow")]
            current = [getattr(m, "_last", None) for m in angles]
            rows = []
            for r in range(n):
                for m, ref in zip(angles, self._angle_refs):
                    m._last = ref
                rows.append(self._python_sample(Q[r], V[r], Z[r], LAM[r], float(times[r]), python_elements,
                                                user_joints))
                self._angle_refs = [getattr(m, "_last", None) for m in angles]
            for m, ref in zip(angles, current):
                m._last = ref
            _columns(rows, selection, cols)
        cols.update({key: head[b][index].copy() for key, b, index in last})
        # (np.maximum.reduce: ndarray.max without its Python wrapper)
        stats["max_constraint_violation"] = max(stats["max_constraint_violation"], float(np.maximum.reduce(viol[:n])))
        if FB[0]:
            system = self.system
            t_first, count = getattr(system, "reaction_fallbacks", (float(FB[1]), 0))
            system.reaction_fallbacks = (t_first, count + int(FB[0]))
            FB[:] = 0.0
        recorder.record_block(times[:n].copy(), cols, (Q[:n].copy(), V[:n].copy(), Z[:n].copy()))
        cnt[0] = 0


def _columns(rows: list[dict], selection, cols: dict) -> None:
    """The Python parts' signals of the samples ``rows`` (one dict each) into ``cols`` as columns, the requested
    ones (``selection``, an OutputRequest; None: all)."""
    for key in rows[0]:
        if selection is None or key in selection:
            cols[key] = np.array([row[key] for row in rows])
