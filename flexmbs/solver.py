"""The front door: :func:`simulate` a model in time, or find its :func:`static_equilibrium`."""
from __future__ import annotations

import sys
import time as _time

import numpy as np

from fem.errors import SimulationError

from .initial import (assemble_positions, equation_names, initial_accelerations, project_velocities,
                      static_equilibrium as _static)
from .integrator import GeneralizedAlpha, NewtonFailure, StepState
from .recorder import Recorder
from .results import Results
from .system import System

__all__ = ["simulate", "static_equilibrium"]

# gentle step-size changes: generalized-α's algorithmic acceleration carries the step history, and abrupt changes
# excite the parasitic root in stiff elastic modes and multipliers
STEP_SHRINK_MIN = 0.3
STEP_GROWTH_MAX = 1.5


def _software_version() -> str:
    from . import __version__

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
        if quasi_static_elastic:
            q, v = _relax_elastic_coordinates(system, q, v, z)
    qdd, lam, zd = initial_accelerations(system, q, v, z)
    return StepState(0.0, q, v, qdd.copy(), qdd, z, zd, zd.copy(), lam)


def _relax_elastic_coordinates(system, q, v, z, max_iter: int = 8):
    """Deform flexible bodies quasi-statically under the initial loads (inertia of the initial motion, gravity,
    forces) so that their elastic accelerations vanish at t = 0: a body placed undeformed in a loaded state would
    otherwise start ringing at its natural frequencies. Newton on ``q̈_f(q_f) = 0`` with a difference Jacobian,
    positions re-assembled and velocities re-projected at every trial."""
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

    qf = q[idx].copy()
    acc, q_now, v_now = elastic_accelerations(qf)
    for _ in range(max_iter):
        scale = np.abs(acc / stiffness)
        if scale.max() <= 1e-9 * max(1e-12, np.abs(qf).max()):
            break
        jac = np.empty((idx.size, idx.size))
        for j in range(idx.size):
            h = 1e-7 * max(np.abs(qf).max(), scale.max(), 1e-9)
            trial = qf.copy()
            trial[j] += h
            jac[:, j] = (elastic_accelerations(trial)[0] - acc) / h
        qf = qf - np.linalg.solve(jac, acc)
        acc, q_now, v_now = elastic_accelerations(qf)
    return q_now, v_now


def simulate(model, t_end: float, *, rtol: float = 1e-4, atol: float = 1e-6, rho_inf: float = 0.8,
             initial_step: float | None = None, max_step: float | None = None, min_step: float = 1e-12,
             output: str | None = None, output_interval: float | None = None, progress: bool = False,
             static_start: bool = False, case: str | None = None, parameters: dict | None = None,
             max_steps: int = 10_000_000) -> Results:
    """Integrate a model from t = 0 to ``t_end`` (s).

    Parameters
    ----------
    model : flexmbs.Model
    t_end : float, s
    rtol, atol : float
        Local error tolerances (atol in m for positions, scaled by √mass for modal coordinates, in state units
        for state elements).
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
    case, parameters : optional
        Stored in the results file.

    Returns
    -------
    Results
        ``success`` is False (with a ``message`` saying when and which equation) if the integration failed or was
        interrupted (Ctrl-C); everything computed until then is kept.
    """
    wall0 = _time.perf_counter()
    if not t_end > 0.0:
        raise SimulationError(f"t_end must be positive, got {t_end}")
    system = System(model)
    state = _consistent_start(system, static_start)
    integ = GeneralizedAlpha(system, rho_inf=rho_inf, rtol=rtol, atol=atol)
    max_step = max_step or t_end / 20.0
    h = min(initial_step or min(1e-4, t_end / 100.0), max_step)
    recorder = Recorder(system, output, _attributes(model, case, parameters))
    stats = {"steps": 0, "rejected_steps": 0, "newton_failures": 0, "max_constraint_violation": 0.0}
    bar = _progress_bar(t_end, progress)
    status, message = "finished", "integration finished"
    _record(recorder, system, state, 0.0, 0, stats)
    next_output = output_interval or 0.0
    integ.refresh_jacobian(state)
    fresh = True
    try:
        while state.t < t_end * (1.0 - 1e-12):
            if stats["steps"] >= max_steps:
                raise SimulationError(f"maximum number of steps ({max_steps}) reached at t = {state.t:.6g} s")
            h_try = min(h, t_end - state.t)
            try:
                new, iters = integ.step(state, h_try)
            except NewtonFailure as failure:
                stats["newton_failures"] += 1
                if not fresh:
                    integ.refresh_jacobian(state)
                    fresh = True
                    continue
                h = 0.25 * h_try
                if h < min_step:
                    raise SimulationError(_newton_message(system, state.t, h_try, failure)) from None
                continue
            err = integ.error_norm(state, new, h_try)
            if not np.isfinite(err):
                err = 1e6
            if err > 1.0:
                stats["rejected_steps"] += 1
                h = h_try * max(STEP_SHRINK_MIN, 0.9 * err ** (-1.0 / 3.0))
                if h < min_step:
                    worst = int(np.argmax(np.abs(integ.error_vector(state, new, h_try))))
                    raise SimulationError(
                        f"step size fell below {min_step:g} s at t = {state.t:.6g} s: the error test keeps failing, "
                        f"largest error in {equation_names(system)[worst]} (an impact, a discontinuous force or a "
                        "solution that blows up?)")
                continue
            previous, state = state, new
            stats["steps"] += 1
            fresh = False
            if iters > 3:
                integ.refresh_jacobian(state)
                fresh = True
            factor = min(STEP_GROWTH_MAX, max(0.5, 0.9 * err ** (-1.0 / 3.0) if err > 0 else STEP_GROWTH_MAX))
            if h_try >= h * (1.0 - 1e-12) and (factor < 0.9 or factor > 1.2):
                h = min(max_step, h_try * factor)
            if h < min_step * max(1.0, abs(state.t)):
                worst = int(np.argmax(np.abs(integ.relative_change(previous, state))))
                raise SimulationError(
                    f"step size fell below {min_step:g} s at t = {state.t:.6g} s; the solution changes too fast in "
                    f"{equation_names(system)[worst]} (does it blow up?)")
            if output_interval is None or state.t >= next_output - 1e-12 * t_end or state.t >= t_end * (1 - 1e-12):
                _record(recorder, system, state, h_try, iters, stats)
                next_output = state.t + (output_interval or 0.0)
            if bar is not None:
                bar.n = round(min(state.t, t_end), 9)
                bar.refresh()
    except KeyboardInterrupt:
        status, message = "interrupted", f"interrupted by the user at t = {state.t:.6g} s; results up to there kept"
    except SimulationError as exc:
        status, message = "failed", str(exc)
    finally:
        if bar is not None:
            bar.close()
    stats.update({k: int(v) for k, v in integ.stats.items()})
    stats["t_end"] = float(state.t)
    stats["wall_time_s"] = _time.perf_counter() - wall0
    if recorder.times and recorder.times[-1] < state.t:
        _record(recorder, system, state, 0.0, 0, stats)
    results = recorder.finish(status, message, stats)
    results.final_state = state
    results.system = system
    return results


def _record(recorder, system, state, h, iters, stats, consistent_reactions: bool = True):
    """Record a sample. Reactions come from the acceleration-level equations at the sample's ``(q, q̇)``
    (``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]``): the index-3 multipliers of the integrator carry a parasitic
    oscillation after step-size changes, these do not."""
    phi, _ = system.constraints(system.context(state.q, state.v, state.t), False)
    violation = float(np.max(np.abs(phi), initial=0.0))
    stats["max_constraint_violation"] = max(stats["max_constraint_violation"], violation)
    lam = state.lam
    if consistent_reactions and system.n_c:
        try:
            lam = initial_accelerations(system, state.q, state.v, state.z, state.t, phi0=phi)[1]
        except Exception:  # a singular instant: keep the integrator's multipliers
            lam = state.lam
    recorder.record(state.t, state.q, state.v, state.z, lam,
                    {"step_size": h, "newton_iterations": iters, "constraint_violation": violation})


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
