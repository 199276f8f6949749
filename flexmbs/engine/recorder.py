"""Which signals a simulation records, with their units: the rows of the results file."""
from __future__ import annotations

import numpy as np

import itertools
import os

from flexmbs.results.outputs import OutputRequest, request_outputs
from flexmbs.results.plausibility import Extremes
from flexmbs.results.results import Results, ResultsWriter, load_results, scratch_folder
from .system import measure

__all__ = ["Recorder"]

XYZ = ["x", "y", "z"]
_FORCE_UNITS = {"m": "N", "rad": "N m"}  # conjugate force of a measurement, by the measurement's unit
# a body's signals: (key, unit, components); the components' lists are shared, read only (as XYZ)
_BODY_SIGNALS = (("position", "m", XYZ), ("orientation", "1", ["e0", "e1", "e2", "e3"]), ("velocity", "m/s", XYZ),
                 ("angular_velocity", "rad/s", XYZ))
_NO_UNITS = ("",) * 99  # the state units of an element without state_units
_SOLVER_UNITS = {"solver/step_size": "s", "solver/newton_iterations": "1", "solver/constraint_violation": "1"}


class Recorder:
    """Collects one row of named signals per output instant.

    With a results file (``path``, or a scratch file inside :func:`flexmbs.results.results.scratch_results`) the rows are
    streamed to disk and not kept in memory; the :class:`Results` of :meth:`finish` then reads the file on access.
    ``outputs``: the signal-name patterns to record (:mod:`flexmbs.results.outputs`; None: every signal), checked
    against the model's signals before a file is opened; ``request`` is then the :class:`OutputRequest` (or None).
    """

    _counter = itertools.count()

    def __init__(self, system, path=None, attributes=None, flush_every: int = 200, force: bool = False,
                 outputs=None):
        self.system = system
        self.times: list[float] = []  # in-memory runs only
        self.rows: list[dict] = []
        self.attributes = attributes or {}
        self.states: list = []
        self.blocks: list = []  # in-memory runs of the compiled step: (times, columns, states) per block
        self.n_samples, self.last_time, self._first = 0, None, None
        self._n_keys = 0  # keys per row
        self._reactions = None  # the joints' reactions in one pass (built at the first sample; False: none)
        self.extremes = Extremes(system)  # running extremes for the plausibility guards
        declared = getattr(outputs, "declared", None)  # check_outputs declared the signals for this system already
        if declared is not None and declared[0] is system:
            outputs.declared = None  # (this recorder's from now on)
        else:
            declared = (system, *_declare(system))
        self.units, self.components = declared[1], declared[2]  # unit per signal; components of vector signals
        # a pattern matching nothing: ModelError, no file yet (an OutputRequest: checked by the caller already)
        self.request = outputs if isinstance(outputs, OutputRequest) else request_outputs(outputs, self.units)
        if self.request is not None:
            self.attributes["outputs"] = list(self.request.patterns)
        self.scratch = path is None and scratch_folder() is not None
        if self.scratch:
            path = os.path.join(scratch_folder(), f"run{next(self._counter)}.results.h5")
        self.writer = (ResultsWriter(path, self.attributes, model_description(system), flush_every,
                                     lock=not self.scratch, force=force or self.scratch) if path else None)

    @classmethod
    def check_outputs(cls, system, outputs) -> OutputRequest | None:
        """The :class:`OutputRequest` of ``outputs`` for ``system``'s signals (None: all), before anything runs."""
        if outputs is None:
            return None
        units, components = _declare(system)
        request = request_outputs(outputs, units)
        # the recorder of this run takes the declared signals over instead of declaring them again
        request.declared = (system, units, components)
        return request

    def record(self, t, q, v, z, lam, solver_row: dict, ctx=None, extra: dict | None = None) -> None:
        """Append one sample (``ctx``: a context at the same state, reused for its marker states; ``extra``: more
        signals by full name, e.g. the running integrals of state elements). The row's key order is the one of
        :func:`_declare`."""
        system = self.system
        if ctx is None:
            ctx = system.context(q, v, t, lam)
        if self._reactions is None:
            self._reactions = _Reactions.build(system)
        row = {}
        qc, vc = np.array(q, dtype=float), np.array(v, dtype=float)  # one copy each; the rows hold views of them
        omega = np.matmul(ctx.A, ctx.omega[:, :, None])[:, :, 0]  # global angular velocities (n_b, 3)
        for k, body in enumerate(system.bodies):
            o, base = body.offset, f"body/{body.name}/"
            row[base + "position"] = qc[o:o + 3]
            row[base + "orientation"] = qc[o + 3:o + 7]
            row[base + "velocity"] = vc[o:o + 3]
            row[base + "angular_velocity"] = omega[k]
            if body.n_modes:
                row[base + "modal_coordinates"] = qc[o + 7:o + body.n_coordinates]
        if system.model.markers:
            positions = ctx.marker_arrays()[0].copy()
            for marker in system.model.markers:
                row[f"marker/{marker.name}/position"] = positions[marker.index]
        together = self._reactions.evaluate(ctx, q) if self._reactions else None
        for k, joint in enumerate(system.model.joints):
            n = together[0][k] if together is not None else -1
            joint_signals(row, ctx, joint, (together[1][n], together[2][n]) if n >= 0 else ctx.joint_reaction(joint))
        for force in system.forces:
            for key, value in force.outputs(ctx).items():
                row[f"force/{force.name}/{key}"] = float(value)
        for k, element in enumerate(system.elements):
            element_signals(row, ctx, element, z[system.z_offsets[k]:system.z_offsets[k + 1]], t)
        for key, value in (extra or {}).items():
            row[key] = float(value)
        for key, value in solver_row.items():
            row[f"solver/{key}"] = float(value)
        if self.request is not None:  # the requested signals only (Python's samples: the run's last, a static one)
            row = {key: value for key, value in row.items() if key in self.request}
        if self.n_samples == 0 or len(row) != self._n_keys:
            self.units.update({key: "" for key in row if key not in self.units})  # (undeclared signals)
            self._n_keys = len(row)
        self.n_samples += 1
        self.last_time = float(t)
        self.extremes.update(float(t), row, self.units)
        states = (qc, vc, z.copy())
        if self.writer is None and self.blocks:  # after blocks (a compiled run's last sample): one more block
            self.blocks.append((np.array([float(t)]), {k: np.asarray(v)[None] for k, v in row.items()},
                                tuple(x[None] for x in states)))
            return
        if self.writer is None:
            self.times.append(float(t))
            self.rows.append(row)
            self.states.append(states)
            return
        if self._first is None:
            self._first = (float(t), row, states)
        self.writer.append(float(t), row, self.units, self.components, states)

    def record_block(self, times: np.ndarray, columns: dict, states: tuple) -> None:
        """Append several samples at once (the compiled step, :mod:`flexmbs.engine.samples`): ``columns``
        maps full signal names to arrays with one row per time, ``states`` is ``(q, v, z)`` with one row each."""
        if not len(times):
            return
        self.units.update({key: "" for key in columns if key not in self.units})  # (undeclared signals)
        self.n_samples += len(times)
        self.last_time = float(times[-1])
        self.extremes.update_block(times, columns, self.units)
        if self.writer is None:
            self.blocks.append((np.asarray(times, dtype=float), columns, states))
            return
        if self._first is None:
            self._first = (float(times[0]), {k: v[0] for k, v in columns.items()}, tuple(x[0] for x in states))
        self.writer.append_block(times, columns, self.units, self.components, states)

    def _join_blocks(self) -> tuple:
        """In-memory samples kept as several blocks, joined: ``(times, columns, states)`` as arrays (one row per
        sample)."""
        blocks = self.blocks
        times = np.concatenate([b[0] for b in blocks])
        columns = {k: np.concatenate([b[1][k] for b in blocks]) for k in blocks[0][1]}
        return times, columns, tuple(np.concatenate([b[2][k] for b in blocks]) for k in range(3))

    def finish(self, status: str, message: str, statistics: dict, warnings: list | None = None) -> Results:
        warnings = list(warnings or [])
        self.attributes["warnings"] = warnings
        if self.writer is not None:
            final = self.writer.close(status, message, statistics, warnings)
            if final is None and self._first is not None:  # no progress, an earlier file kept: the first sample
                self.times, self.rows, self.states = [self._first[0]], [self._first[1]], [self._first[2]]
                self.attributes = dict(self.attributes, kept_earlier_file=self.writer.path)
            elif final is not None:
                results = load_results(final, lazy=True)
                if results.status == "running":  # the file could not be finished (disk full): the .part
                    results.status, results.success = "failed", False
                    results.message = f"{message}; {self.writer.broken}; partial results in {final!r}"
                elif self.writer.kept_finished:  # a failed run beside a finished earlier file: both kept
                    results.message = (f"{results.message}; the finished earlier results file "
                                       f"{self.writer.kept_finished!r} is kept unchanged; this run's samples are "
                                       f"in {final!r}")
                results.statistics = statistics
                results.request = self.request
                if self.scratch:
                    results.path = None
                return results
        states = None
        if self.blocks:  # the compiled step's columns: joined, not split into rows and stacked again
            times, data, states = self.blocks[0] if len(self.blocks) == 1 else self._join_blocks()
        else:
            times = np.array(self.times)
            data = {key: np.array([r[key] for r in self.rows]) for key in (self.rows[0] if self.rows else ())}
            if self.states:
                states = [np.array([s[k] for s in self.states]) for k in range(3)]
        units = {k: self.units[k] for k in data}
        results = Results(times, data, units, self.components, success=status == "finished",
                          message=message, status=status, statistics=statistics,
                          path=self.writer.path if self.writer else None, attributes=self.attributes)
        results.request = self.request
        if states is not None:
            results.states = dict(zip(("q", "v", "z"), states))
        return results


def _declare(system) -> tuple[dict, dict]:
    """The unit of each of ``system``'s signals and the component names of its vector signals, in the results'
    order."""
    u, c = {}, {}
    for body in system.bodies:
        base = f"body/{body.name}/"
        for key, unit, comps in _BODY_SIGNALS:
            u[base + key], c[base + key] = unit, comps
        if body.n_modes:
            u[base + "modal_coordinates"] = "m kg^0.5"
            c[base + "modal_coordinates"] = [f"q{k + 1}" for k in range(body.n_modes)]
    for marker in system.model.markers:
        key = f"marker/{marker.name}/position"
        u[key], c[key] = "m", XYZ
    for joint in system.model.joints:
        base = f"joint/{joint.name}/"
        u[base + "force"], c[base + "force"] = "N", XYZ
        u[base + "torque"], c[base + "torque"] = "N m", XYZ
        for which in joint.coordinates:
            u[base + which] = "rad" if which == "rotation" else "m"
    for force in system.forces:
        for key, unit in force.output_units.items():
            u[f"force/{force.name}/{key}"] = unit
    for element in system.elements:
        prefix = f"element/{element.name}/"
        for name, unit in zip(element.state_names, getattr(element, "state_units", _NO_UNITS)):
            u[prefix + name] = unit
        for meas in element.measurements:
            unit = getattr(meas, "unit", "")
            u[f"{prefix}y/{meas.name}"] = unit
            u[f"{prefix}force/{meas.name}"] = _FORCE_UNITS.get(unit, "")
        # (one update per table: the same keys, order and units as one assignment each, in a third of the time)
        u.update({prefix + key: unit for key, unit in getattr(element, "output_units", {}).items()})
        if hasattr(element, "integrands"):  # running integrals over the accepted steps
            u.update({prefix + key: unit for key, unit in getattr(element, "integral_units", {}).items()})
    u.update(_SOLVER_UNITS)
    return u, c


def joint_signals(row: dict, ctx, joint, reaction: tuple) -> None:
    """A joint's signals at ``ctx`` into ``row``: its ``reaction`` (force, torque) and its joint coordinates."""
    base = f"joint/{joint.name}/"
    row[base + "force"], row[base + "torque"] = reaction
    if joint.coordinates:
        si, sj = ctx.marker(joint.marker_i), ctx.marker(joint.marker_j)
        for which in joint.coordinates:
            row[base + which] = float(joint.coordinate(which, si, sj)[0])


def element_signals(row: dict, ctx, element, z_e: np.ndarray, t: float, kept=None) -> None:
    """A state element's signals at ``ctx`` (its states ``z_e``) into ``row``: its states, measurements
    (``y/NAME``), their forces (``force/NAME``) and ``outputs``; ``kept``: its ``(z_e, y, ẏ, f)`` evaluated at
    this state already, or None."""
    prefix = f"element/{element.name}/"
    for name, value in zip(element.state_names, z_e.tolist()):
        row[prefix + name] = value
    if kept is not None and np.array_equal(kept[0], z_e):
        _, y, ydot, forces = kept
    else:
        y, ydot, _ = measure(ctx, element.measurements)
        forces = np.asarray(element.forces(t, z_e, y, ydot), dtype=float).reshape(-1)
    for meas, value, force in zip(element.measurements, y.tolist(), forces.tolist()):
        row[f"{prefix}y/{meas.name}"] = value
        row[f"{prefix}force/{meas.name}"] = force
    if hasattr(element, "outputs"):
        for key, value in element.outputs(t, z_e, y, ydot).items():
            row[prefix + key] = float(value)


class _Reactions:
    """Reactions of the joints whose rows are all vectorized (:class:`flexmbs.engine.constraint_kernels.CompiledConstraints`,
    no drivers) in one pass over the context's constraint blocks: the numbers of
    :meth:`flexmbs.engine.system.Context.joint_reaction`, summed in another order (round-off)."""

    def __init__(self, system, selected):
        compiled = system.compiled
        self.index = np.full(len(system.model.joints), -1)  # model joint -> row of the result (-1: joint by joint)
        positions, owner = [], []
        for n, (k, joint) in enumerate(selected):
            self.index[k] = n
            positions.append(compiled.positions[joint])
            owner.append(np.full(len(compiled.positions[joint]), n))
        self.positions = np.concatenate(positions)
        owner = np.concatenate(owner)
        self.lam_rows = compiled.flat_rows[self.positions]
        self.sums = np.zeros((len(selected), self.positions.size))  # sums the rows of each joint
        self.sums[owner, np.arange(self.positions.size)] = 1.0
        joints = [joint for _, joint in selected]
        # the side of marker j unless it is on the ground (then marker i's, with the force reversed)
        self.on_j = np.array([not joint.marker_j.on_ground for joint in joints])
        self.row_on_j = self.on_j[owner][:, None]
        side = [joint.marker_j if j_side else joint.marker_i for joint, j_side in zip(joints, self.on_j)]
        self.body = np.array([marker.body.index for marker in side])
        self.r_index = np.array([marker.body.offset for marker in side])[:, None] + np.arange(3)
        self.marker = np.array([marker.index for marker in side])
        self.marker_i = np.array([joint.marker_i.index for joint in joints])
        self.marker_j = np.array([joint.marker_j.index for joint in joints])

    @classmethod
    def build(cls, system):
        compiled = getattr(system, "compiled", None)
        selected = [(k, joint) for k, joint in enumerate(system.model.joints)
                    if compiled is not None and joint in compiled.positions and not joint.drivers
                    and len(compiled.positions[joint]) == joint.n_equations
                    and not (joint.marker_i.on_ground and joint.marker_j.on_ground)]
        return cls(system, selected) if selected else False

    def evaluate(self, ctx, q):
        """``(index, forces (n, 3) N, torques (n, 3) N m)`` on marker j's body, global axes, about marker j; ``None``
        without the context's constraint blocks or multipliers (then joint by joint)."""
        blocks = ctx.constraint_blocks
        if blocks is None or ctx.lam is None:
            return None
        rows = np.where(self.row_on_j, blocks[1][self.positions, :6], blocks[0][self.positions, :6])
        gen = -(self.sums @ (rows * ctx.full_lam[self.lam_rows][:, None]))  # minimum-norm split if redundant
        force = gen[:, 0:3]
        X = ctx.marker_arrays()[0]
        torque = np.einsum("kij,kj->ki", ctx.A[self.body], gen[:, 3:6]) - np.cross(
            X[self.marker] - np.asarray(q)[self.r_index], force)
        on_j = self.on_j[:, None]
        force_j = np.where(on_j, force, -force)
        torque_j = np.where(on_j, torque, -torque - np.cross(X[self.marker_i] - X[self.marker_j], force))
        return self.index, force_j, torque_j


def model_description(system) -> dict:
    """The static part of the results file: bodies (with node data of flexible bodies), joints, markers."""
    bodies = {}
    for body in system.bodies:
        entry = {"type": type(body).__name__, "mass": (body.mass, "kg"),
                 # where its coordinates are in the states q and q̇ (Results reads the body's pose from them)
                 "state_offset": (body.offset, "1"), "n_coordinates": (body.n_coordinates, "1")}
        if body.n_modes:
            entry["node_positions"] = (body.node_positions, "m")
            entry["node_translations"] = (body.node_translations, "m/(m kg^0.5)")
            entry["frequencies"] = (body.frequencies_hz, "Hz")
            entry["mode_indices"] = (body.mode_indices, "1")
            fb = body.flexbody
            if getattr(fb, "modal_stress", np.zeros((0, 6, 0))).size:
                entry["output_nodes"] = (fb.output_nodes, "1")
                entry["modal_stress"] = (np.asarray(fb.modal_stress)[:, :, body.mode_indices], "Pa/(m kg^0.5)")
            entry["node_ids"] = (fb.node_ids, "1")
            field = getattr(fb, "stress_field", None)
            if field is not None:  # full-field modal stress of the simulated modes, float32 (flexmbs.post.durability)
                entry["stress_nodes"] = (field.nodes, "1")
                entry["stress_field"] = (np.asarray(field.modal_stress, np.float32)[:, :, body.mode_indices],
                                         "Pa/(m kg^0.5)")
            if getattr(fb, "surface", np.zeros((0, 3))).size:
                entry["surface"] = (fb.surface, "1")
        bodies[body.name] = entry
    markers = {m.name: {"body": m.body.name, "local_position": (m.local_position, "m")}
               for m in system.model.markers}
    joints = {j.name: {"type": type(j).__name__, "marker_i": j.marker_i.name, "marker_j": j.marker_j.name}
              for j in system.model.joints}
    return {"bodies": bodies, "markers": markers, "joints": joints}
