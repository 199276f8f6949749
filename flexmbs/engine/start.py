"""The start of a run, shared by :func:`flexmbs.simulate` and :class:`flexmbs.Run`: the results file's attributes,
the consistent initial state (assembled positions, projected velocities, the quasi-static elastic start,
consistent accelerations) and the run object of the one compiled engine."""
from __future__ import annotations

import contextlib
import threading

import numpy as np
from threadpoolctl import ThreadpoolController

from fem.errors import FlexmbsError, ModelError
from flexmbs._version import __version__

from .plan import compiled_run
from .initial import (assemble_positions, initial_accelerations, project_velocities, start_corrections,
                      static_equilibrium as _static)
from .integrals import Integrals
from .integrator import StepState

__all__ = ["run_attributes", "consistent_start", "start_run", "blas_controller", "one_blas_thread", "add_fallback"]

def run_attributes(model, case, parameters) -> dict:
    return {"case": case or model.name, "model": model.name, "software": "flexmbs",
            "software_version": __version__, "parameters": dict(parameters or model.parameters or {})}


def consistent_start(system, static: bool, quasi_static_elastic: bool = True):
    q0, v0, z = system.initial_state()
    q = assemble_positions(system, q0)
    if static:
        q, z, _ = _static(system, q, z)
        v = np.zeros_like(q)
    else:
        v = project_velocities(system, q, v0)
        corrected = start_corrections(system, q0, v0, q, v)  # before the (documented) elastic relaxation
        if corrected:
            add_fallback(system, corrected)
        if quasi_static_elastic:
            q, v = relax_elastic_coordinates(system, q, v, z)
    qdd, lam, zd = initial_accelerations(system, q, v, z)
    return StepState(0.0, q, v, qdd.copy(), qdd, z, zd, zd.copy(), lam)


def add_fallback(system, text: str) -> None:
    """Record a fallback on the system (collected into the results by :func:`flexmbs.engine.finish.run_warnings`)."""
    if text not in system.fallback_notes:
        system.fallback_notes.append(text)


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


def relax_elastic_coordinates(system, q, v, z, max_iter: int = 8):
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
                found = newton_step(linearized_elastic_jacobian(system, q_now, v_now, z, idx), scale)
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
            add_fallback(system, f"the quasi-static elastic start failed ({type(exc).__name__}: {exc}); the flexible "
                      "bodies start from the last good iterate (undeformed if it failed at once) and may ring at "
                      "their natural frequencies at t = 0 (relax_elastic=False starts undeformed on purpose)")
            return q_now, v_now
    scale = np.abs(acc / stiffness)
    if not converged(scale.max()) and scale.max() > floor:
        add_fallback(system, f"the quasi-static elastic start did not converge in {max_iter} Newton iterations "
                  f"(largest remaining modal displacement error {scale.max():.3g}); the flexible bodies start "
                  "slightly out of equilibrium and may ring at t = 0")
    return q_now, v_now


def linearized_elastic_jacobian(system, q, v, z, idx):
    """``∂q̈_f/∂q_f`` (n_f, n_f) from the linearized acceleration equations: ``M δq̈ + Φ_qᵀ δλ = -K δq``,
    ``Φ_q δq̈ = 0`` with ``K = ∂R/∂q`` the run's own Newton block at the consistent accelerations (the compiled
    residual's differences, :meth:`flexmbs.engine.evaluate.Evaluator.blocks`; approximate: the re-assembly of the
    other coordinates and ``∂γ/∂q`` are left out - the line search of the caller checks; where its step does not
    lower the error, the caller differences the elastic accelerations)."""
    from .evaluate import evaluator

    ev = evaluator(system, q, v, z)
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


def blas_controller() -> ThreadpoolController:
    """One controller per process: finding the BLAS libraries reads the process map (6 ms, as long as a short
    compiled run)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


_CONTROLLER = None
_DEPTH = threading.local()  # one_blas_thread nesting: only the outermost sets and restores


@contextlib.contextmanager
def one_blas_thread():
    """Run the block with one BLAS thread, the thread count restored after it. The Newton matrices are small and
    dense (tens to a few hundred unknowns): one BLAS thread is faster than a thread pool, by 10-100x on a loaded
    2-core machine (an LU of 170 x 170 took 18-31 ms threaded, 0.26 ms not). Nested blocks (``simulate`` around
    its :class:`~flexmbs.engine.stepping.Run`) cost nothing; the outermost sets the libraries directly (40 µs, a
    third of threadpoolctl's ``limit``)."""
    depth = getattr(_DEPTH, "n", 0)
    _DEPTH.n = depth + 1
    try:
        if depth:
            yield
            return
        libs = [lib for lib in blas_controller().lib_controllers if lib.user_api == "blas"]
        old = [lib.num_threads for lib in libs]
        for lib in libs:
            lib.set_num_threads(1)
        try:
            yield
        finally:
            for lib, n in zip(libs, old):
                lib.set_num_threads(n)
    finally:
        _DEPTH.n = depth


def start_run(system, integ, recorder, state, t_end, h, max_step, min_step, output_interval, events, max_steps,
               engine):
    """The run object and the engine's name: the one compiled engine (a user's Python elements called back,
    :mod:`flexmbs.engine.callbacks`)."""
    if engine not in ("auto", "compiled"):
        raise ModelError(f"engine={engine!r}: there is one engine now, the compiled one (a user's Python elements are "
                         "called back from it); drop the engine argument")
    run = compiled_run(system, integ, state, t_end, h, max_step, min_step, output_interval, recorder, events,
                       Integrals(system, state), max_steps)  # (the compiled step integrates in its kernels)
    return run, "compiled"
