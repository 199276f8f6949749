"""The front door: :func:`simulate` a model in time, or find its :func:`static_equilibrium`.

:func:`simulate` is a :class:`flexmbs.Run` (:mod:`flexmbs.engine.stepping`) advanced to ``t_end`` in one piece and
finished: the stepping API and the batch run are one loop."""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError, SimulationError
from flexmbs.results.results import Results

from .finish import SolverFallbackWarning, record_sample
from .initial import assemble_positions, static_equilibrium as _static
from .integrator import StepState
from .recorder import Recorder
from .start import one_blas_thread, run_attributes
from .system import System

__all__ = ["simulate", "static_equilibrium", "SolverFallbackWarning"]


def simulate(model, t_end: float, *, rtol: float = 1e-4, atol: float = 1e-6, rho_inf: float = 0.8,
             initial_step: float | None = None, max_step: float | None = None, min_step: float = 1e-12,
             output: str | None = None, output_interval: float | None = None, progress: bool = False,
             static_start: bool = False, relax_elastic: bool = True, case: str | None = None,
             parameters: dict | None = None, max_steps: int = 10_000_000, event_tolerance: float = 1e-6,
             tolerances: dict | None = None, force: bool = False, stall_window: float = 60.0,
             stall_step: float | None = None, engine: str = "auto", outputs=None) -> Results:
    """Integrate a model from t = 0 to ``t_end`` (s).

    Parameters
    ----------
    model : flexmbs.Model
    t_end : float, s
    rtol, atol : float
        Local error tolerances, per kind of unknown (:func:`flexmbs.engine.integrator.tolerance_kinds`, which says
        why): body frames **absolute only**, ``atol`` metres of frame translation and of marker motion through
        rotations; modal coordinates ``atol`` metres of nodal deflection plus ``rtol`` × the body's deformation
        amplitude; element states ``atol`` in the state's unit (pressures: ``1e8 atol`` Pa, i.e. 100 Pa at the
        default) plus ``rtol·|z|``. The defaults (1e-4, 1e-6) put the steady-state piston-pin force error of the
        flexible slider crank of ``benchmarks/race_exudyn.py`` at ≈ 0.09 N (Exudyn at h = 2e-4: 0.026 N; 160 N
        amplitude).
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
    outputs : list of str, optional
        The signals to record, as patterns of their names (:mod:`fnmatch`: ``["element/hyd/*",
        "joint/pivot/force"]``; one text with commas works too); None (default): every signal. The time, the states
        ``q, q̇, z`` and the solver's signals and statistics are always recorded; a body's position, orientation,
        velocity and modal coordinates are read from the states when not requested. The samples then do only the
        work the requested signals need (no acceleration-level solve without a joint reaction among them, unless
        friction reads the reactions). A pattern that matches no signal of the model is a ModelError (listing
        close names); reading a signal that was not requested says so (:mod:`flexmbs.results.outputs`).
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
        Kept for scripts that name it: both mean the one compiled engine (:mod:`flexmbs.engine.plan`),
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

    from .stepping import Run

    if not isinstance(model, Model):
        raise ModelError(f"simulate expects a model (fm.Model, with bodies, joints and forces added), got "
                         f"{type(model).__name__}")
    with one_blas_thread():  # one setting for the start, the steps and the end
        run = Run(model, t_end, rtol=rtol, atol=atol, rho_inf=rho_inf, initial_step=initial_step, max_step=max_step,
                  min_step=min_step, output=output, output_interval=output_interval, static_start=static_start,
                  relax_elastic=relax_elastic, case=case, parameters=parameters, max_steps=max_steps,
                  event_tolerance=event_tolerance, tolerances=tolerances, force=force, stall_window=stall_window,
                  stall_step=stall_step, engine=engine, progress=progress, outputs=outputs)
        unexpected = None
        try:
            run.advance_to(run.t_end)
        except (KeyboardInterrupt, SimulationError):  # the run says so in its status and message; results kept
            pass
        except Exception as exc:  # noqa: BLE001  the results file is finished before the error goes on
            unexpected = exc
        results = run.finish()
    if unexpected is not None:
        raise unexpected
    return results


def static_equilibrium(model, t: float = 0.0) -> Results:
    """Static equilibrium near the initial placement; a one-sample :class:`Results` (reactions, poses, states)."""
    system = System(model)
    q0, _, z0 = system.initial_state()
    q = assemble_positions(system, q0, t)
    q, z, lam = _static(system, q, z0, t)
    recorder = Recorder(system, None, run_attributes(model, None, None))
    state = StepState(t, q, np.zeros_like(q), np.zeros_like(q), np.zeros_like(q), z, np.zeros_like(z),
                      np.zeros_like(z), lam)
    stats = {"max_constraint_violation": 0.0}
    record_sample(recorder, system, state, 0.0, 0, stats)
    results = recorder.finish("finished", "static equilibrium found", stats)
    results.final_state = state
    results.system = system
    return results
