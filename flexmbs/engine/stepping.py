"""A run you step yourself: create it from a model, advance it to a time, set inputs, read outputs and states,
save and restore its state, and finish it into :class:`~flexmbs.results.results.Results` (issue 41 item 3; an
example and its behaviour: docs/fmi.md, "The stepping run underneath").

:func:`flexmbs.simulate` is this run advanced to ``t_end`` in one piece (one loop for both). ``advance_to(t)``
sets the end of the run to ``t`` (the step size control clips the last step to it and keeps its step size for the
next advance, as the run's own end does): advancing in pieces agrees with one ``simulate`` to the integration
tolerance, not to round-off. Each :class:`flexmbs.model.inputs.Input` is a slot of the plan's signal array that
:meth:`Run.set_input` writes; the step reads it like a constant signal (no Python call per step for it).

A state saved by :meth:`Run.save_state` holds everything the integrator continues from: ``q, q̇, z``, the
accelerations and pseudo-accelerations, the multipliers, the step size and its history, the Newton matrix and its
factorization, the flags of the step size control, the contact gaps' armed flags, the running integrals,
the inputs and the statistics. Restoring it drops the samples recorded after its time.
"""
from __future__ import annotations

import copy
import difflib
import json
import math
import os
import sys
import time as _time

import numpy as np

from fem.errors import ModelError, SimulationError

from flexmbs.model.inputs import Input
from flexmbs.model.model import Model
from flexmbs.results.outputs import NotRecordedError, default_outputs, not_recorded_message
from flexmbs.results.results import Results
from .events import EventLocator
from .initial import initial_accelerations
from .integrator import GeneralizedAlpha, StepState
from .loop import C_TEND
from .plan import _SIGNAL_CALLBACK
from .preflight import check_request, check_start, check_tolerances_resolvable
from .recorder import Recorder
from .finish import plausibility_guards, record_sample, run_warnings
from .start import consistent_start, one_blas_thread, run_attributes, start_run
from .step import F_PREV, H_PREV
from .system import System
from .watchdog import Watchdog

__all__ = ["Run", "RunState", "model_inputs"]

_END = 1e-12  # relative: a run's loop ends when t >= t_end (1 - 1e-12)


def model_inputs(model) -> dict[str, Input]:
    """The :class:`~flexmbs.model.inputs.Input` objects a model uses, by name, found in its elements' attributes
    (lists, dicts, nested objects and the closures of functions of time). Two inputs of one name: ModelError."""
    found: dict[str, Input] = {}
    if not Input.live:  # no input exists in this process: none is in the model
        return found
    seen: set[int] = set()
    todo = [(model, 0)]
    while todo:
        obj, depth = todo.pop()
        if id(obj) in seen or depth > 10 or isinstance(obj, (str, bytes, int, float, complex, np.ndarray)):
            continue
        seen.add(id(obj))
        if isinstance(obj, Input):
            if found.setdefault(obj.name, obj) is not obj:
                raise ModelError(f"two inputs are named {obj.name!r}: give each input of a model its own name")
            continue
        if isinstance(obj, dict):
            children = list(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            children = list(obj)
        elif callable(obj) and getattr(obj, "__closure__", None):
            children = [cell.cell_contents for cell in obj.__closure__ if _cell_set(cell)]
        else:
            children = list(getattr(obj, "__dict__", {}).values())
            if hasattr(obj, "__self__") and not isinstance(obj.__self__, type):  # a bound method's object
                children.append(obj.__self__)
        todo.extend((child, depth + 1) for child in children)
    return found


def _cell_set(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


class RunState:
    """A saved state of a :class:`Run` (opaque: pass it to :meth:`Run.restore_state` of the same run).

    Attributes
    ----------
    t : float, s
        The time it was saved at.
    """

    def __init__(self, t: float, arrays: list, python: dict):
        self.t, self._arrays, self._python = float(t), arrays, python

    def __repr__(self) -> str:
        return f"RunState(t={self.t:.9g} s)"


class _LastSample:
    """The latest recorded sample of a recorder, whether it keeps samples in memory or writes them to a file."""

    def __init__(self, recorder: Recorder):
        self.recorder, self.time, self.row = recorder, None, {}
        writer = recorder.writer
        if writer is not None:  # the row goes to the file: keep the last one as it passes
            append, append_block = writer.append, writer.append_block

            def one(t, row, *rest):
                self.time, self.row = float(t), row
                return append(t, row, *rest)

            def block(times, columns, *rest):
                self.time, self.row = float(times[-1]), {k: np.asarray(v)[-1] for k, v in columns.items()}
                return append_block(times, columns, *rest)

            writer.append, writer.append_block = one, block

    def latest(self) -> tuple[float | None, dict]:
        rec = self.recorder
        if rec.writer is not None:
            return self.time, self.row
        if rec.blocks:
            times, columns, _ = rec.blocks[-1]
            return float(times[-1]), {k: np.asarray(v)[-1] for k, v in columns.items()}
        if rec.rows:
            return rec.times[-1], rec.rows[-1]
        return None, {}


class Run:
    """One integration run that the caller steps (see the module docstring).

    Parameters
    ----------
    model : flexmbs.Model
    t_end : float, s, optional
        The horizon the step-size defaults refer to, as in :func:`flexmbs.simulate` (``max_step`` t_end / 20,
        first step min(1e-4, t_end / 100), the watchdog's floor). ``advance_to`` may go beyond it. Without it:
        no largest step unless ``max_step`` is given, first step 1e-4 s.
    **options
        The keyword options of :func:`flexmbs.simulate` (which is this run advanced to ``t_end`` in one piece);
        ``progress``: a tqdm bar on stderr up to ``t_end``, closed by :meth:`finish`.
    """

    def __init__(self, model, t_end: float | None = None, *, rtol: float = 1e-4, atol: float = 1e-6,
                 rho_inf: float = 0.8, initial_step: float | None = None, max_step: float | None = None,
                 min_step: float = 1e-12, output: str | None = None, output_interval: float | None = None,
                 static_start: bool = False, relax_elastic: bool = True, case: str | None = None,
                 parameters: dict | None = None, max_steps: int = 10_000_000, event_tolerance: float = 1e-6,
                 tolerances: dict | None = None, force: bool = False, stall_window: float = 60.0,
                 stall_step: float | None = None, engine: str = "auto", progress: bool = False, outputs=None):
        if not isinstance(model, Model):
            raise ModelError(f"Run expects a model (fm.Model, with bodies, joints and forces added), got "
                             f"{type(model).__name__}")
        horizon = 1.0 if t_end is None else t_end
        check_request(horizon, max_steps, rtol=rtol, atol=atol, rho_inf=rho_inf, initial_step=initial_step,
                      max_step=max_step, min_step=min_step, output_interval=output_interval,
                      event_tolerance=event_tolerance)
        for option, value in (("progress", progress), ("static_start", static_start)):
            if isinstance(value, (str, bytes)) or not isinstance(value, (bool, int, np.bool_, type(None))):
                # issue 43: static_start="no" ran a static start
                raise SimulationError(f"{option} must be True or False, got {value!r} ({type(value).__name__})")
        if output is not None and not isinstance(output, (str, os.PathLike)):  # issue 43: output=3 became '3'
            raise SimulationError(f"output must be the name of a results file (RUN.results.h5), got {output!r} "
                                  f"({type(output).__name__})")
        if tolerances is not None and not isinstance(tolerances, dict):  # issue 43: 'tight' was dict()'s ValueError
            raise SimulationError(f"tolerances must be a dict of absolute tolerances by kind (for example "
                                  f"{{'position': 1e-6, 'Pa': 100.0}}), got {tolerances!r}")
        self.model, self.t_end, self.max_steps = model, None if t_end is None else float(t_end), int(max_steps)
        self.inputs = model_inputs(model)
        # discrete blocks sampled by the run (a co-simulation FMU, flexmbs.fmi.imports): their outputs are inputs
        self._blocks = list({id(i.block): i.block for i in self.inputs.values() if hasattr(i, "block")}.values()
                            ) if self.inputs else []  # (most models have no input: no comprehension, a call)
        for block in self._blocks:
            block.attach(self)
        for item in self.inputs.values():  # a run starts from the inputs' start values
            item.value = item.start
        self._parameters = parameters
        self._status, self._message, self._finished = "finished", "integration finished", None
        self._wall = 0.0
        self._unexpected = False  # a failure that is not the integration's: no last sample at its state
        self._bar = _progress_bar(self.t_end) if progress and self.t_end is not None else None
        # the signals to record (flexmbs.results.outputs; None: all, or the command line's --outputs)
        self._outputs = outputs if outputs is not None else default_outputs()
        self.recorder = None
        # kernels compiled from here to the first step are counted (flexmbs_jit says so), the start's included: a
        # first run that compiled the start's kernels read as "6490x slower than real time" (issue 43)
        watchdog = self.watchdog = Watchdog(self.t_end if self.t_end is not None else 1.0, stall_step, stall_window)
        watchdog.begin_compile_note()
        with one_blas_thread():
            wall0 = _time.perf_counter()
            try:
                self._start(model, rtol, atol, rho_inf, initial_step, max_step, min_step, output, output_interval,
                            static_start, relax_elastic, case, parameters, event_tolerance, tolerances, force, engine)
            except BaseException:
                watchdog.end_compile_note()
                if self.recorder is not None:  # the writer lets go of the target untouched
                    self.recorder.finish("failed", "the run failed before its first sample", {})
                raise
            self._wall += _time.perf_counter() - wall0

    def _start(self, model, rtol, atol, rho_inf, initial_step, max_step, min_step, output, output_interval,
               static_start, relax_elastic, case, parameters, event_tolerance, tolerances, force, engine) -> None:
        """The start: system, consistent state, checks, integrator, recorder, the compiled run and its first sample."""
        system = self.system = System(model)
        request = Recorder.check_outputs(system, self._outputs)  # a wrong pattern before anything runs
        state = consistent_start(system, static_start, relax_elastic)
        check_start(system, state)
        integ = self.integ = GeneralizedAlpha(system, rho_inf=rho_inf, rtol=rtol, atol=atol, tolerances=tolerances)
        check_tolerances_resolvable(system, integ, state.q, state.z)
        horizon = self.t_end
        max_step = max_step or (horizon / 20.0 if horizon is not None else math.inf)
        first = min(initial_step or min(1e-4, horizon / 100.0 if horizon is not None else 1e-4), max_step)
        attributes = run_attributes(model, case, parameters)
        if system.redundancy:
            attributes["redundant_joints"] = ",".join(system.redundant_joints)
            attributes["redundant_constraints"] = "\n".join(system.redundancy.values())
        recorder = self.recorder = Recorder(system, output, attributes, force=force, outputs=request)
        self._last = _LastSample(recorder)
        # (the compiled run asks its sampler for the recorder's request before the start's sample: the samples
        # record, and compute, the requested signals only)
        self._run, self.engine = start_run(system, integ, recorder, state, state.t, first, max_step, min_step,
                                           output_interval, EventLocator(system, event_tolerance), self.max_steps,
                                           engine)
        self._slots = self._input_slots()
        self._changed = False  # an input changed value since the last advance: restart there

    def _restart(self) -> None:
        """Start the integrator again at the present state under the new inputs, as at t = 0 and after an event:
        accelerations, multipliers and state rates consistent with the new loads (``initial_accelerations``), the
        pseudo-accelerations equal to them and no step history for the error estimate of ``z``; the step size is
        kept. Without it, generalized-α's pseudo-acceleration would carry the load before the change into the
        first steps after it (an error of the order of the step size at the change)."""
        run = self._run
        s = run.state
        qdd, lam, zd = initial_accelerations(self.system, s.q, s.v, s.z, s.t)
        for k, value in ((2, qdd), (3, qdd), (5, zd), (6, zd), (7, lam), (8, zd)):
            run.cur[k][:] = value
        run.sc[H_PREV] = 0.0
        run.fl[F_PREV] = 0
        run._sync()
        self._changed = False

    # ---------------------------------------------------------------- inputs
    def _input_slots(self) -> dict[str, np.ndarray]:
        """Slots of each input in the compiled plan's signal array; the plan's signal callback no longer calls
        them (they are constant signals that :meth:`set_input` writes)."""
        plan = self._run.plan
        slots: dict[str, list] = {}
        for i, (kind, data) in enumerate(plan.signals):
            if kind == "function" and isinstance(data, Input):
                slots.setdefault(data.name, []).append(i)
                plan.signals[i] = ("constant", data.value)
        if slots:
            plan.callback = _SIGNAL_CALLBACK(plan._signal_function())  # the timed signals without the inputs
        return {name: np.array(index, dtype=np.int64) for name, index in slots.items()} if slots else {}

    def set_input(self, name: str, value: float) -> None:
        """Hold input ``name`` at ``value`` (its unit: ``run.inputs[name].unit``) from now on."""
        self._open()
        if name not in self.inputs:
            raise ModelError(f"the model has no input {name!r}{_known(name, self.inputs)}")
        old = self.inputs[name].value
        value = self.inputs[name].set(value)
        self._changed = self._changed or value != old
        if name in self._slots:
            self._run.plan.sig[self._slots[name]] = value

    # ---------------------------------------------------------------- time
    @property
    def time(self) -> float:
        """The time the run has reached, s."""
        return float(self._run.state.t)

    def advance_to(self, t: float) -> None:
        """Integrate to exactly ``t`` (s; a step ends there) with the inputs held; sampled blocks (co-simulation
        FMUs) take their samples on the way.

        Raises SimulationError when the integration fails (the run is then failed; :meth:`finish` still returns
        everything computed) and re-raises KeyboardInterrupt (the run is then interrupted)."""
        self._open()
        try:
            t = float(t)
        except (TypeError, ValueError):
            raise ModelError(f"advance_to takes a time in s, got {t!r}") from None
        now = self._run.state.t
        if not math.isfinite(t) or t < now - _END * max(1.0, abs(now)):
            raise ModelError(f"advance_to({t}) lies before the run's time {now:.9g} s: a run goes forward "
                             "(restore_state goes back to a saved state)")
        if not self._blocks:
            self._advance(t)
            return
        while True:
            now = self.time
            due = [b for b in self._blocks if b.next_sample() <= now + _END * max(1.0, abs(now)) * 4]
            for block in due:
                block.sample(self)
            if self._reached(t):
                return
            self._advance(min(t, min(b.next_sample() for b in self._blocks)))

    def _reached(self, t: float) -> bool:
        now = self._run.state.t
        return t <= now * (1.0 + _END) or t - now <= _END * max(1.0, abs(t))

    def _advance(self, t: float) -> None:
        run = self._run
        if self._reached(t):
            return
        self._set_end(t)
        wall0 = _time.perf_counter()
        try:
            with one_blas_thread():
                if self._changed:
                    self._restart()
                while run.state.t < t * (1.0 - _END):
                    run.attempt()  # (raises at max_steps: the compiled loop counts them)
                    self.watchdog.check(run.h, run.state.t, run.limiting_names, run.attempts_per_call)
                    if self._bar is not None:  # update() honours tqdm's minimum refresh interval
                        self._bar.update(round(min(run.state.t, self._bar.total), 9) - self._bar.n)
        except KeyboardInterrupt:
            self._fail("interrupted", f"interrupted by the user at t = {run.state.t:.6g} s; results up to there kept")
            raise
        except SimulationError as exc:
            self._fail("failed", str(exc))
            raise
        except Exception as exc:
            self._unexpected = True
            self._fail("failed", f"{type(exc).__name__}: {exc} at t = {run.state.t:.6g} s")
            raise
        finally:
            self.watchdog.end_compile_note()
            self._wall += _time.perf_counter() - wall0

    def _set_end(self, t: float) -> None:
        self._run.t_end = t
        self._run.coef[C_TEND] = t  # the compiled step reads its end from the plan's coefficients

    def _fail(self, status: str, message: str) -> None:
        self._status, self._message = status, message
        self._run.flush()

    # ---------------------------------------------------------------- outputs and state
    @property
    def output_names(self) -> list[str]:
        """The names :meth:`output` takes (those of the results: ``joint/<name>/rotation``, ``element/...``)."""
        self._run.flush()
        return sorted(self._last.latest()[1])

    def output(self, name: str):
        """The value of output ``name`` at :attr:`time` (a float, or an array for vector signals)."""
        self._run.flush()
        t, row = self._last.latest()
        if name not in row:
            request = self.recorder.request
            if request is not None and name in request.names:
                raise NotRecordedError(not_recorded_message(name, request.patterns))
            raise ModelError(f"the run has no output {name!r}{_known(name, row)}")
        if t is None or abs(t - self.time) > 1e-9 * max(1.0, abs(self.time)):  # pragma: no cover
            raise SimulationError(f"no sample at t = {self.time:.9g} s (the last is at {t})")
        value = np.asarray(row[name], dtype=float)
        return float(value) if value.ndim == 0 else value.copy()

    def outputs(self, names) -> list:
        """:meth:`output` of each name, in order."""
        return [self.output(name) for name in names]

    def unit(self, name: str) -> str:
        """The unit of output ``name``."""
        return self.recorder.units.get(name, "")

    @property
    def state(self) -> StepState:
        """The integrator's state at :attr:`time` (a copy: ``t, q, v, a, qdd, z, zd, w, lam``)."""
        return copy.deepcopy(self._run.state)

    def save_state(self) -> RunState:
        """Everything needed to continue from now bit for bit (see the module docstring)."""
        self._open()
        if self._blocks:
            raise ModelError("a run with co-simulation FMU blocks cannot save its state (the FMUs' own states are "
                             "not part of it)")
        run, keep = self._run, self.system.row_keep
        run.flush()  # the sample buffer is empty in a saved state: a restore never replays buffered samples
        arrays = [(a, a.copy()) for a in _compiled_arrays(run)]
        python = {"stats": dict(run.stats), "resteps": run.resteps, "chunk": run.chunk,
                  "armed": dict(run.events._armed), "events": list(run.events.events),
                  "integrals": dict(run.integrals.values), "integ_stats": dict(run.integ.stats),
                  "state": copy.deepcopy(run.state), "row_keep": None if keep is None else np.array(keep),
                  "angles": [copy.deepcopy(vars(meas)) for _, meas in run.plan.angles],
                  "fallback_notes": list(self.system.fallback_notes),
                  "inputs": {name: item.value for name, item in self.inputs.items()},
                  "changed": self._changed, "stop": float(run.t_end)}
        return RunState(run.state.t, arrays, python)

    def restore_state(self, saved: RunState) -> None:
        """Go back (or forward) to a state saved by this run; the samples recorded after it are dropped."""
        self._open()
        if not isinstance(saved, RunState):
            raise ModelError(f"restore_state takes a state from save_state(), got {type(saved).__name__}")
        if self.recorder.writer is not None:
            raise ModelError("restore_state needs a run kept in memory: create the Run without output=... (a "
                             "results file cannot take back the samples after the restored time)")
        run, py = self._run, saved._python
        run.flush()
        current = _compiled_arrays(run)
        if len(current) != len(saved._arrays) or any(a is not b for a, (b, _) in zip(current, saved._arrays)):
            raise ModelError("restore_state takes a state saved by the same run")
        for target, copy_ in saved._arrays:
            np.copyto(target, copy_)
        run.stats.clear()
        run.stats.update(py["stats"])
        run.resteps, run.chunk = py["resteps"], py["chunk"]
        run.integrals.values.clear()
        run.integrals.values.update(py["integrals"])
        run.integ.stats.update(py["integ_stats"])
        for (_, meas), values in zip(run.plan.angles, py["angles"]):
            vars(meas).update(copy.deepcopy(values))
        run.state = copy.deepcopy(py["state"])
        run.events._armed.clear()
        run.events._armed.update(py["armed"])
        run.events.events[:] = py["events"]
        if py["row_keep"] is not None:
            self.system.row_keep[:] = py["row_keep"]
        self.system.fallback_notes = list(py["fallback_notes"])
        for name, value in py["inputs"].items():
            self.inputs[name].value = value
        self._changed = py["changed"]
        self._set_end(py["stop"])
        _truncate(self.recorder, saved.t)
        self._status, self._message = "finished", "integration finished"

    # ---------------------------------------------------------------- the end
    def finish(self) -> Results:
        """End the run: the results (file closed, warnings and plausibility guards as :func:`simulate` gives)."""
        if self._finished is not None:
            return self._finished
        run, system, recorder = self._run, self.system, self.recorder
        if self._bar is not None:
            self._bar.close()
        self._run.flush()
        stats = run.stats
        for key, value in self.integ.stats.items():  # (a loop: a comprehension is a call in Python 3.11)
            stats[key] = int(value)
        stats["t_end"] = float(run.state.t)
        stats["wall_time_s"] = self._wall
        stats["compile_time_s"] = float(self.watchdog.compile_seconds)  # kernels compiled by this run
        stats["rho_inf"] = float(self.integ.rho_inf)  # the plausibility check of numerical dissipation (issue 43)
        stats["engine"] = self.engine
        status, message = self._status, self._message
        if not self._unexpected and recorder.last_time is not None and recorder.last_time < run.state.t:
            try:
                record_sample(recorder, system, run.state, 0.0, 0, stats, integrals=run.integrals.values)
            except SimulationError as exc:
                status, message = "failed", f"{message}; {exc}"
        notes = run_warnings(system, run.integrals, stats)
        parameters = self._parameters if self._parameters is not None else self.model.parameters
        guards = plausibility_guards(system, recorder, stats, parameters, run.limiting_names)
        if run.events.events:
            stats["events"] = json.dumps(run.events.events)
        results = recorder.finish(status, message, stats, guards + notes)
        results.events = list(run.events.events)
        results.final_state = run.state
        results.system = system
        results.accelerations = lambda q, v, z, t: initial_accelerations(system, q, v, z, t)[0]
        results.integrals = dict(run.integrals.values)
        results.warnings = notes
        self._finished = results
        return results

    def _open(self) -> None:
        if self._finished is not None:
            raise ModelError("the run is finished: create a new Run to integrate again")


def _progress_bar(t_end: float):
    from tqdm import tqdm

    return tqdm(total=t_end, unit="s", file=sys.stderr, bar_format="{l_bar}{bar}| {n:.4g}/{total:.4g} s [{elapsed}]")


def _compiled_arrays(run) -> list:
    """Every array a compiled run steps with (the run's state and step-size control, the plan's workspace, Newton
    matrix, factorization, running integrals, armed gaps, signals and sample buffer), in a fixed order."""
    plan = run.plan
    roots = [run.cur, run.new, run.sc, run.fl, run.counters, run.coef]
    roots += [getattr(plan, k) for k in sorted(vars(plan)) if k not in ("sampler",)]
    roots.append(plan.sampler.bf)
    out, seen = [], set()

    def walk(obj):
        if isinstance(obj, np.ndarray):
            if id(obj) not in seen and obj.flags.writeable:
                seen.add(id(obj))
                out.append(obj)
        elif isinstance(obj, (tuple, list)):
            for item in obj:
                walk(item)

    for root in roots:
        walk(root)
    return out


def _truncate(recorder: Recorder, t: float) -> None:
    """Drop the in-memory samples after ``t`` (a restored state)."""
    limit = t + 1e-12 * max(1.0, abs(t))
    if recorder.blocks:
        kept = []
        for times, columns, states in recorder.blocks:
            keep = times <= limit
            if keep.all():
                kept.append((times, columns, states))
            elif keep.any():
                kept.append((times[keep], {k: np.asarray(v)[keep] for k, v in columns.items()},
                             tuple(np.asarray(s)[keep] for s in states)))
        recorder.blocks[:] = kept
    if recorder.times:
        n = int(np.searchsorted(np.asarray(recorder.times), limit, side="right"))
        del recorder.times[n:], recorder.rows[n:], recorder.states[n:]
    n_blocks = sum(len(b[0]) for b in recorder.blocks)
    recorder.n_samples = n_blocks + len(recorder.times)
    last = [recorder.blocks[-1][0][-1]] if recorder.blocks else []
    last += [recorder.times[-1]] if recorder.times else []
    recorder.last_time = float(max(last)) if last else None


def _known(name: str, names) -> str:
    close = difflib.get_close_matches(name, list(names), n=3)
    if close:
        return f"; did you mean {', '.join(repr(c) for c in close)}?"
    return f"; it has {', '.join(repr(n) for n in sorted(names)[:8])}{', ...' if len(names) > 8 else ''}" if names else ""
