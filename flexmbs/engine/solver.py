"""The front door: :func:`simulate` a model in time, or find its :func:`static_equilibrium`."""
from __future__ import annotations

import json
import os
import sys
import time as _time

import numpy as np
from threadpoolctl import ThreadpoolController

from fem.errors import FlexmbsError, ModelError, SimulationError

from .events import EventLocator
from .initial import (assemble_positions, equation_names, initial_accelerations, project_velocities,
                      start_corrections, static_equilibrium as _static)
from .compiled_plan import compiled_run
from .integrals import Integrals
from .integrator import GeneralizedAlpha, NewtonFailure, StepState
from .recorder import Recorder
from .preflight import check_request, check_start, check_tolerances_resolvable
from .watchdog import Watchdog
from flexmbs.results.results import Results
from .system import System

__all__ = ["simulate", "static_equilibrium", "SolverFallbackWarning"]

# gentle step-size changes: generalized-α's algorithmic acceleration carries the step history, and abrupt changes
# excite the parasitic root in stiff elastic modes and multipliers
STEP_SHRINK_MIN = 0.3
STEP_GROWTH_MAX = 1.5
SAFETY = 0.85


def _software_version() -> str:
    from flexmbs._version import __version__

    return __version__


def _attributes(model, case, parameters) -> dict:
    return {"case": case or model.name, "model": model.name, "software": "flexmbs",
            "software_version": _software_version(), "parameters": dict(parameters or model.parameters or {})}


def _consistent_start(system, static: bool, quasi_static_elastic: bool = True):
    q0, v0, z0 = system.initial_state()
    q = assemble_positions(system, q0)
    z = z0
    if static:
        q, z, _ = _static(system, q, z0)
        v = np.zeros_like(q)
    else:
        v = project_velocities(system, q, v0)
        corrected = start_corrections(system, q0, v0, q, v)  # before the (documented) elastic relaxation
        if corrected:
            _fallback(system, corrected)
        if quasi_static_elastic:
            q, v = _relax_elastic_coordinates(system, q, v, z)
    qdd, lam, zd = initial_accelerations(system, q, v, z)
    return StepState(0.0, q, v, qdd.copy(), qdd, z, zd, zd.copy(), lam)


class SolverFallbackWarning(UserWarning):
    """The solver used a fallback (a start or a reaction computed another way than asked); stored in the results
    (``statistics["warnings"]``) and printed."""


def _fallback(system, text: str) -> None:
    """Record a fallback on the system (collected into the results by :func:`_simulate`)."""
    notes = getattr(system, "fallback_notes", None)
    if notes is None:
        notes = system.fallback_notes = []
    if text not in notes:
        notes.append(text)


# the quasi-static start counts as converged when Newton stalls after reducing the modal error a million-fold: the
# remaining error (a race run stalled at 2e-15 m, round-off of the consistent accelerations) would ring at 1e-6 of
# the deformation the start removed
STAGNATION_REDUCTION = 1e-6
# smallest difference step of an elastic coordinate in the quasi-static start (m kg^0.5 for mass-normalized modes):
# each trial re-assembles the positions, which are exact to ~1e-12 only; a step scaled by a tiny modal error (2e-13
# for a 2e-6 error) differenced that assembly noise instead of the model and pointed Newton uphill
DIFFERENCE_FLOOR = 1e-8
# a modal error below the re-assembly's accuracy cannot be reduced (a moving-load beam starting at 1.2e-19 reported a
# failed start); such a stall is round-off, not a fallback (the start returned is the same either way)
ASSEMBLY_ROUNDOFF = 1e-12


def _relax_elastic_coordinates(system, q, v, z, max_iter: int = 8):
    """Deform flexible bodies quasi-statically under the initial loads (inertia of the initial motion, gravity,
    forces) so that their elastic accelerations vanish at t = 0: a body placed undeformed in a loaded state would
    otherwise start ringing at its natural frequencies. Newton on ``q̈_f(q_f) = 0``, positions re-assembled and
    velocities re-projected at every trial.

    The Newton matrix ``∂q̈_f/∂q_f`` is first the linearized acceleration equations, ``[M Φ_qᵀ; Φ_q 0]⁻¹`` applied
    to the run's Newton block's columns ``-∂R/∂q_f`` (the compiled residual's differences); where its step does not
    lower the error, a difference Jacobian over every elastic coordinate (``n_f`` consistent-acceleration solves: 147 of them for the machine-creeping
    structure, 37-50 s, against well under a second for the linearized matrix)."""
    idx = [np.arange(b.offset + 7, b.offset + b.n_coordinates) for b in system.bodies if b.n_modes]
    if not idx:
        return q, v
    idx = np.concatenate(idx)
    stiffness = np.concatenate([b.modal_stiffness for b in system.bodies])

    def elastic_accelerations(qf):
        trial = q.copy()
        trial[idx] = qf
        trial = assemble_positions(system, trial)
        rates = project_velocities(system, trial, v)
        return initial_accelerations(system, trial, rates, z)[0][idx], trial, rates

    def difference_jacobian(qf, acc, scale):
        jac = np.empty((idx.size, idx.size))
        for j in range(idx.size):
            h = max(1e-7 * max(np.abs(qf).max(), scale.max()), DIFFERENCE_FLOOR)
            trial = qf.copy()
            trial[j] += h
            jac[:, j] = (elastic_accelerations(trial)[0] - acc) / h
        return jac

    qf = q[idx].copy()
    acc, q_now, v_now = elastic_accelerations(qf)
    first = np.abs(acc / stiffness).max()
    floor = max(STAGNATION_REDUCTION * first, ASSEMBLY_ROUNDOFF)  # a stall below it is round-off, not a failure

    def converged(error):  # relative to the deformation, or the start's error reduced to round-off
        return error <= 1e-9 * max(1e-12, np.abs(qf).max()) or error <= 1e-10 * first

    def newton_step(jac, scale):
        # least squares: combinations of modes that the supports leave free (a rigid motion spelled in modes)
        # have no stiffness and get no step; halved steps until the modal error decreases
        step = np.linalg.lstsq(jac, acc, rcond=1e-10)[0]
        for alpha in (1.0, 0.5, 0.25, 0.125):
            try:
                new = elastic_accelerations(qf - alpha * step)
            except FlexmbsError:
                continue
            if np.abs(new[0] / stiffness).max() < scale.max():
                return qf - alpha * step, new
        return None

    for _ in range(max_iter):
        scale = np.abs(acc / stiffness)
        if converged(scale.max()):
            return q_now, v_now
        try:
            try:
                found = newton_step(_linearized_elastic_jacobian(system, q_now, v_now, z, idx), scale)
            except (np.linalg.LinAlgError, FlexmbsError):
                found = None
            if found is None:
                found = newton_step(difference_jacobian(qf, acc, scale), scale)
            if found is None:
                if scale.max() <= floor:  # round-off: nothing left to gain
                    return q_now, v_now
                raise FlexmbsError(f"no decrease of the modal error {scale.max():.3g} along the Newton step")
            qf, (acc, q_now, v_now) = found
        except (np.linalg.LinAlgError, FlexmbsError) as exc:  # keep the last good (possibly undeformed) start
            _fallback(system, f"the quasi-static elastic start failed ({type(exc).__name__}: {exc}); the flexible "
                      "bodies start from the last good iterate (undeformed if it failed at once) and may ring at "
                      "their natural frequencies at t = 0 (relax_elastic=False starts undeformed on purpose)")
            return q_now, v_now
    scale = np.abs(acc / stiffness)
    if not converged(scale.max()) and scale.max() > floor:
        _fallback(system, f"the quasi-static elastic start did not converge in {max_iter} Newton iterations "
                  f"(largest remaining modal displacement error {scale.max():.3g}); the flexible bodies start "
                  "slightly out of equilibrium and may ring at t = 0")
    return q_now, v_now


def _linearized_elastic_jacobian(system, q, v, z, idx):
    """``∂q̈_f/∂q_f`` (n_f, n_f) from the linearized acceleration equations: ``M δq̈ + Φ_qᵀ δλ = -K δq``,
    ``Φ_q δq̈ = 0`` with ``K = ∂R/∂q`` the run's own Newton block at the consistent accelerations (the compiled
    residual's differences, :meth:`flexmbs.engine.evaluate.Evaluator.blocks`; approximate: the re-assembly of the
    other coordinates and ``∂γ/∂q`` are left out - the line search of the caller checks). A model with Python parts
    (no compiled start) raises :class:`FlexmbsError`: the caller then differences the elastic accelerations."""
    from .evaluate import evaluator

    ev = evaluator(system, q, v, z)
    if not ev.compiled:
        raise FlexmbsError(f"no compiled start ({ev.reason})")
    n_q, n_c = system.n_q, system.n_c
    qdd, lam, _ = initial_accelerations(system, q, v, z)
    ctx = system.context(q, v, 0.0)
    mass = system.mass_matrix(ctx)
    _, jac = system.constraints(ctx)
    stiffness = ev.blocks(0.0, q, v, qdd, z, lam)["K"]
    kkt = np.zeros((n_q + n_c, n_q + n_c))
    kkt[:n_q, :n_q], kkt[:n_q, n_q:], kkt[n_q:, :n_q] = mass, jac.T, jac
    rhs = np.zeros((n_q + n_c, idx.size))
    rhs[:n_q] = -stiffness[:, idx]
    return np.linalg.lstsq(kkt, rhs, rcond=1e-12)[0][idx]


def simulate(model, t_end: float, *, rtol: float = 1e-4, atol: float = 1e-6, rho_inf: float = 0.8,
             initial_step: float | None = None, max_step: float | None = None, min_step: float = 1e-12,
             output: str | None = None, output_interval: float | None = None, progress: bool = False,
             static_start: bool = False, relax_elastic: bool = True, case: str | None = None,
             parameters: dict | None = None, max_steps: int = 10_000_000, event_tolerance: float = 1e-6,
             tolerances: dict | None = None, force: bool = False, stall_window: float = 60.0,
             stall_step: float | None = None, engine: str = "auto") -> Results:
    """Integrate a model from t = 0 to ``t_end`` (s).

    Parameters
    ----------
    model : flexmbs.Model
    t_end : float, s
    rtol, atol : float
        Local error tolerances, per kind of unknown (:func:`flexmbs.engine.integrator.tolerance_kinds`):

        * body frames: **absolute only**, ``atol`` metres of frame translation and ``atol`` metres of marker
          motion through rotations (``atol / L`` rad, L the body's extent). No ``rtol·|q|``: a position's size
          depends on where the origin is, and the relative term let a rod 0.35 m off the origin move by 1e-4 m per
          step (force error 60 × a compiled peer's, docs/benchmarks.md);
        * modal coordinates: ``atol`` metres of nodal deflection (divided by the mode's largest nodal
          translation) plus ``rtol`` × the body's deformation amplitude (running maximum of ``|q_f|``);
        * element states: ``atol`` in the state's unit (pressures: ``1e8 atol`` Pa, i.e. 100 Pa at the default)
          plus ``rtol·|z|``.

        The defaults (1e-4, 1e-6) put the steady-state piston-pin force error of the flexible slider crank of
        ``benchmarks/race_exudyn.py`` at ≈ 0.09 N (Exudyn at h = 2e-4: 0.026 N; 160 N amplitude).
    tolerances : dict, optional
        Absolute tolerances by kind, overriding the defaults above: ``"position"`` (m), ``"rotation"`` (rad),
        ``"deflection"`` (m) and element-state units (``"Pa"``, ``"1"``, ``"m^3/s"``, ...).
    rho_inf : float
        Spectral radius of the generalized-α method at infinite frequency (1: no numerical damping, 0: maximal).
    initial_step, max_step, min_step : float, s
    output : str, optional
        Path of the ``*.results.h5`` file, written incrementally (``<output>.part`` until the run ends).
    output_interval : float, optional
        Record at most one sample per interval (s); every accepted step by default.
    progress : bool
        Show a tqdm progress bar on stderr.
    static_start : bool
        Start from the static equilibrium near the initial placement instead of the given velocities.
    relax_elastic : bool
        Start flexible bodies deformed quasi-statically under the initial loads (default) instead of undeformed.
    case, parameters : optional
        Stored in the results file.
    event_tolerance : float, s
        Contact onsets (elements with gap functions: end stops, hard stops, contacts) are located as roots of their
        gap within this time (:mod:`flexmbs.engine.events`); ``Results.events`` lists them.

    force : bool
        Let ``output`` replace a file of another kind (a flexible body, a mesh, ...; refused by default).
    engine : {"auto", "compiled"}
        Kept for scripts that name it: both mean the one compiled engine (:mod:`flexmbs.engine.compiled_plan`),
        which calls a user's Python elements back (:mod:`flexmbs.engine.callbacks`); ``"python"`` (the former
        Python time loop) is refused in one line.
    stall_window, stall_step : float, s
        The progress watchdog (:mod:`flexmbs.engine.watchdog`): a run whose step size stays below ``stall_step``
        (default 1e-9 ``t_end``) for ``stall_window`` seconds of wall time stops ("no progress", results kept).

    Returns
    -------
    Results
        ``success`` is False (with a ``message`` saying when and which equation) if the integration failed or was
        interrupted (Ctrl-C); everything computed until then is kept.
    """
    from flexmbs.model.model import Model

    if not isinstance(model, Model):
        raise ModelError(f"simulate expects a model (fm.Model, with bodies, joints and forces added), got "
                         f"{type(model).__name__}")
    check_request(t_end, max_steps, rtol=rtol, atol=atol, rho_inf=rho_inf, initial_step=initial_step,
                  max_step=max_step, min_step=min_step, output_interval=output_interval,
                  event_tolerance=event_tolerance)
    for option, value in (("progress", progress), ("static_start", static_start)):
        if isinstance(value, (str, bytes)) or not isinstance(value, (bool, int, np.bool_, type(None))):
            # issue 43: static_start="no" ran a static start
            raise SimulationError(f"{option} must be True or False, got {value!r} ({type(value).__name__})")
    if output is not None and not isinstance(output, (str, os.PathLike)):  # issue 43: output=3 became '3'
        raise SimulationError(f"output must be the name of a results file (RUN.results.h5), got {output!r} "
                              f"({type(output).__name__})")
    if tolerances is not None and not isinstance(tolerances, dict):  # issue 43: 'tight' was a ValueError of dict()
        raise SimulationError(f"tolerances must be a dict of absolute tolerances by kind (for example "
                              f"{{'position': 1e-6, 'Pa': 100.0}}), got {tolerances!r}")
    t_end = float(t_end)
    # The Newton matrices are small and dense (tens to a few hundred unknowns): one BLAS thread is faster than a
    # thread pool, by 10-100x on a loaded 2-core machine (an LU of 170 x 170 took 18-31 ms threaded, 0.26 ms not).
    with _blas_controller().limit(limits=1, user_api="blas"):
        return _simulate(model, t_end, rtol, atol, rho_inf, initial_step, max_step, min_step, output,
                         output_interval, progress, static_start, relax_elastic, case, parameters, max_steps,
                         event_tolerance, tolerances, force, Watchdog(t_end, stall_step, stall_window), engine)


def _simulate(model, t_end, rtol, atol, rho_inf, initial_step, max_step, min_step, output, output_interval,
              progress, static_start, relax_elastic, case, parameters, max_steps, event_tolerance,
              tolerances=None, force=False, watchdog=None, engine="auto") -> Results:
    wall0 = _time.perf_counter()
    watchdog = watchdog or Watchdog(t_end)
    # kernels compiled from here to the first step are counted (flexmbs_jit says so), the start's included: a first
    # run that compiled the start's kernels read as "6490x slower than real time" (issue 43)
    watchdog.begin_compile_note()
    system = System(model)
    state = _consistent_start(system, static_start, relax_elastic)
    check_start(system, state)  # contradicting settings: one line before any step (issue 30)
    integ = GeneralizedAlpha(system, rho_inf=rho_inf, rtol=rtol, atol=atol, tolerances=tolerances)
    check_tolerances_resolvable(system, integ, state.q, state.z)  # an atol below round-off: one line (issue 48)
    max_step = max_step or t_end / 20.0
    attributes = _attributes(model, case, parameters)
    if system.redundancy:  # the redundant-constraint report (warned by System.select_rows) kept in the results
        attributes["redundant_joints"] = ",".join(system.redundant_joints)
        attributes["redundant_constraints"] = "\n".join(system.redundancy.values())
    recorder = Recorder(system, output, attributes, force=force)
    try:
        run, used = _start_run(system, integ, recorder, state, t_end,
                               min(initial_step or min(1e-4, t_end / 100.0), max_step), max_step, min_step,
                               output_interval, EventLocator(system, event_tolerance), max_steps, engine)
    except BaseException:  # the first sample failed: the writer lets go of the target untouched
        watchdog.end_compile_note()
        recorder.finish("failed", "the run failed before its first sample", {})
        raise
    bar = _progress_bar(t_end, progress)
    status, message, unexpected = "finished", "integration finished", None
    try:
        while run.state.t < t_end * (1.0 - 1e-12):
            if run.stats["steps"] >= max_steps:
                raise SimulationError(f"maximum number of steps ({max_steps}) reached at t = {run.state.t:.6g} s")
            run.attempt()
            watchdog.check(run.h, run.state.t, run.limiting_names, getattr(run, "attempts_per_call", 1))
            if bar is not None:  # update() honours tqdm's minimum refresh interval
                bar.update(round(min(run.state.t, t_end), 9) - bar.n)
    except KeyboardInterrupt:
        status, message = "interrupted", f"interrupted by the user at t = {run.state.t:.6g} s; results up to there kept"
    except SimulationError as exc:
        status, message = "failed", str(exc)
    except Exception as exc:  # noqa: BLE001  the results file is finished before the error goes on
        status, message, unexpected = "failed", f"{type(exc).__name__}: {exc} at t = {run.state.t:.6g} s", exc
    finally:
        watchdog.end_compile_note()
        if bar is not None:
            bar.close()
    if hasattr(run, "flush"):  # the compiled step's buffered samples (the start's, if no attempt ran)
        run.flush()
    stats = run.stats
    stats.update({k: int(v) for k, v in integ.stats.items()})
    stats["t_end"] = float(run.state.t)
    stats["wall_time_s"] = _time.perf_counter() - wall0
    stats["compile_time_s"] = float(watchdog.compile_seconds)  # kernels compiled by this run (said on stderr)
    stats["rho_inf"] = float(integ.rho_inf)  # the plausibility check of numerical dissipation (issue 43)
    stats["engine"] = used
    if unexpected is None and recorder.last_time is not None and recorder.last_time < run.state.t:
        try:
            _record(recorder, system, run.state, 0.0, 0, stats, integrals=run.integrals.values)
        except SimulationError as exc:  # the results file could not take the last sample
            status, message = "failed", f"{message}; {exc}"
    notes = _run_warnings(system, run.integrals, stats)
    guards = _guards(system, recorder, stats, parameters if parameters is not None else model.parameters,
                     run.limiting_names())
    if run.events.events:
        stats["events"] = json.dumps(run.events.events)  # solver attribute of the results file
    results = recorder.finish(status, message, stats, guards + notes)
    results.events = list(run.events.events)
    if unexpected is not None:
        raise unexpected
    results.final_state = run.state
    results.system = system
    results.accelerations = lambda q, v, z, t: initial_accelerations(system, q, v, z, t)[0]  # derived signals
    results.integrals = dict(run.integrals.values)
    results.warnings = notes
    return results


def _blas_controller() -> ThreadpoolController:
    """One controller per process: finding the BLAS libraries reads the process map (6 ms, as long as a short
    compiled run)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


_CONTROLLER = None


def _start_run(system, integ, recorder, state, t_end, h, max_step, min_step, output_interval, events, max_steps,
               engine):
    """The run object and the engine's name: the one compiled engine (a user's Python elements called back,
    :mod:`flexmbs.engine.callbacks`)."""
    if engine not in ("auto", "compiled"):
        raise ModelError(f"engine={engine!r}: there is one engine now, the compiled one (a user's Python elements are "
                         "called back from it); drop the engine argument")
    integrals = Integrals(system, state, eager=False)  # the compiled step integrates in its kernels
    hooks = {"integrals": integrals, "max_steps": max_steps, "newton_message": _newton_message,
             "safety": SAFETY, "shrink_min": STEP_SHRINK_MIN, "growth_max": STEP_GROWTH_MAX,
             "recorder": recorder, "events": events}
    run, _ = compiled_run(system, integ, state, t_end, h, max_step, min_step, output_interval, events, hooks)
    return run, "compiled"


def _guards(system, recorder, stats, parameters, limiting) -> list[str]:
    """Plausibility warnings of the run (issued as :class:`PlausibilityWarning` and stored in the results)."""
    import warnings

    from flexmbs.results.plausibility import PlausibilityWarning, plausibility_warnings

    try:
        found = plausibility_warnings(system, recorder.extremes, stats, parameters, limiting)
    except Exception as exc:  # noqa: BLE001  a guard must never lose a run
        found = [f"plausibility checks could not run: {type(exc).__name__}: {exc}"]
    for text in found:
        warnings.warn(text, PlausibilityWarning, stacklevel=3)
    return found


def _run_warnings(system, integrals, stats) -> list[str]:
    """Fallbacks and element warnings of a run: issued as :class:`SolverFallbackWarning`, stored in ``stats``
    (the results file's ``solver`` attributes: ``warnings``, newline-separated, and one ``integral:NAME`` per
    integrated quantity)."""
    import warnings

    notes = list(getattr(system, "fallback_notes", []))
    if hasattr(system, "reaction_fallbacks"):
        first, count = system.reaction_fallbacks
        notes.append(f"joint reactions of {count} sample(s), the first at t = {first:.6g} s, are the integrator's "
                     "multipliers, not the acceleration-level ones: the constrained mass matrix was singular there; "
                     "they may carry the parasitic oscillation of index-3 multipliers")
    notes += integrals.warnings()
    for key, value in integrals.values.items():
        stats[f"integral:{key}"] = float(value)
    stats["warnings"] = "\n".join(notes)
    for text in notes:
        warnings.warn(text, SolverFallbackWarning, stacklevel=4)
    return notes


def _record(recorder, system, state, h, iters, stats, consistent_reactions: bool = True, integrals=None):
    """Record a sample. Reactions come from the acceleration-level equations at the sample's ``(q, q̇)``
    (``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]``): the index-3 multipliers of the integrator carry a parasitic
    oscillation after step-size changes, these do not."""
    ctx = system.context(state.q, state.v, state.t)
    ctx.element_values = [None] * len(system.elements)  # (z_e, y, ẏ, f) for the recorder; no element rates
    phi, jac = system.constraints(ctx)
    violation = float(np.max(np.abs(phi), initial=0.0))
    stats["max_constraint_violation"] = max(stats["max_constraint_violation"], violation)
    lam = state.lam
    if consistent_reactions and system.n_c:
        try:
            lam = initial_accelerations(system, state.q, state.v, state.z, state.t, phi0=phi, ctx=ctx, jac=jac)[1]
        except FlexmbsError:  # a singular instant: keep the integrator's multipliers
            lam = state.lam
            first, count = getattr(system, "reaction_fallbacks", (state.t, 0))
            system.reaction_fallbacks = (first, count + 1)
    ctx.lam = lam
    recorder.record(state.t, state.q, state.v, state.z, lam,
                    {"step_size": h, "newton_iterations": iters, "constraint_violation": violation}, ctx=ctx,
                    extra=integrals)


def _newton_message(system, t, h, failure: NewtonFailure) -> str:
    names = equation_names(system)
    worst = int(np.nanargmax(np.where(np.isfinite(failure.residual), np.abs(failure.residual), np.inf)))
    return (f"Newton iteration failed ({failure.reason}) at t = {t:.6g} s with step {h:.3g} s; largest residual "
            f"{abs(failure.residual[worst]):.3g} in {names[worst]}")


def _progress_bar(t_end, enabled):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=t_end, unit="s", file=sys.stderr, bar_format="{l_bar}{bar}| {n:.4g}/{total:.4g} s [{elapsed}]")


def static_equilibrium(model, t: float = 0.0) -> Results:
    """Static equilibrium near the initial placement; a one-sample :class:`Results` (reactions, poses, states)."""
    system = System(model)
    q0, _, z0 = system.initial_state()
    q = assemble_positions(system, q0, t)
    q, z, lam = _static(system, q, z0, t)
    recorder = Recorder(system, None, _attributes(model, None, None))
    state = StepState(t, q, np.zeros_like(q), np.zeros_like(q), np.zeros_like(q), z, np.zeros_like(z),
                      np.zeros_like(z), lam)
    stats = {"max_constraint_violation": 0.0}
    _record(recorder, system, state, 0.0, 0, stats)
    results = recorder.finish("finished", "static equilibrium found", stats)
    results.final_state = state
    results.system = system
    return results
