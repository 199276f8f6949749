"""Operating points for :func:`flexmbs.linearize`: a static equilibrium, a state at a time, or a given state.

Seed 002 eq. (16)-(20) linearize about a reference *solution* ``(q⁰, q̇⁰, q̈⁰, λ⁰, z⁰)``; an equilibrium is the
special case ``q̇⁰ = q̈⁰ = ż⁰ = 0``. Every operating point is made consistent here: positions satisfy ``Φ = 0``,
velocities ``Φ_q q̇ + Φ_t = 0``, and ``q̈⁰``, ``λ⁰`` come from the acceleration-level equations
``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]`` (:func:`flexmbs.engine.initial.initial_accelerations`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem.errors import ModelError, SimulationError

from flexmbs.engine.redundancy import check_dropped_rows
from flexmbs.engine.initial import (assemble_positions, constraint_row_owner, equation_names, initial_accelerations,
                                   force_scale, project_velocities, relative_imbalance, relative_rates,
                                   static_equilibrium as _static)
from flexmbs.model.rotations import g_matrix, rotation_matrix
from flexmbs.engine.system import System

__all__ = ["OperatingPoint", "resolve_operating_point", "check_equilibrium", "state_from_results"]

CONSISTENCY_TOL = 1e-8  # m (positions), m/s (velocities): a given state must meet its constraints this well
EQUILIBRIUM_TOL = 1e-6  # unbalanced force relative to the force scale; state rates relative per second


@dataclass
class OperatingPoint:
    """A reference state: time (s), coordinates ``q``, rates ``q̇``, element states ``z``; ``a`` (``q̈``) and
    ``lam`` (``λ``) are completed by :func:`resolve_operating_point`. ``kind`` is ``"static"``, ``"time"``,
    ``"results"`` or ``"state"``; ``note`` reports corrections made (e.g. a projection onto the constraints)."""

    t: float
    q: np.ndarray
    v: np.ndarray
    z: np.ndarray
    a: np.ndarray | None = None
    lam: np.ndarray | None = None
    kind: str = "state"
    note: str = ""


def check_equilibrium(system, op: OperatingPoint, zdot: np.ndarray) -> None:
    """Raise a one-line ModelError if ``op`` is not at rest with vanishing accelerations and state rates.

    "Vanishing" is relative, the measure the static solver converges on (:func:`flexmbs.engine.initial.
    relative_imbalance`, :func:`~flexmbs.engine.initial.relative_rates`): the unbalanced force ``M q̈`` on every
    coordinate below ``EQUILIBRIUM_TOL`` of the model's force scale (or ``q̈`` below ``EQUILIBRIUM_TOL`` m/s², rad/s²),
    state rates below ``EQUILIBRIUM_TOL`` per second of the states; the solver stops 1000× tighter, so whatever
    :func:`static_equilibrium` returns passes here, for a 5 g beam as for a 5 t boom.
    """
    names = equation_names(system)
    speed = float(np.max(np.abs(op.v), initial=0.0))
    if speed > CONSISTENCY_TOL:
        worst = int(np.argmax(np.abs(op.v)))
        what = names[worst].replace("motion", "velocity")
        raise ModelError(f"the operating point is not an equilibrium: it moves ({what} = {op.v[worst]:.3g}); "
                         "linearize about the state (kind='state') or find the equilibrium with at='static'")
    from flexmbs.engine.evaluate import evaluator

    lam = op.lam if op.lam is not None else np.zeros(system.n_c)
    res, _, _, jac, mass = evaluator(system).residual(op.t, op.q, op.v, np.zeros(system.n_q), op.z, lam,
                                                      constraints=False)
    force = -res  # R = M q̈ - Q - Q_v at q̈ = 0, without Φ_qᵀ λ
    _, jac = evaluator(system).constraints(op.q, op.t)
    reaction = jac.T @ op.lam if op.lam is not None and op.lam.size else np.zeros(system.n_q)
    acc = relative_imbalance(mass @ op.a, force_scale(system, force, reaction))
    acc[np.abs(op.a) <= EQUILIBRIUM_TOL] = 0.0  # below 1e-6 m/s² (rad/s²) is at rest whatever the scale
    rates = relative_rates(zdot, op.z)
    if acc.max(initial=0.0) > EQUILIBRIUM_TOL or rates.max(initial=0.0) > EQUILIBRIUM_TOL:
        if acc.max(initial=0.0) >= rates.max(initial=0.0):
            worst = int(np.argmax(acc))
            what = (f"acceleration {op.a[worst]:.3g} in {names[worst]}, an unbalanced force {acc[worst]:.2g} of "
                    "the model's largest load")
        else:
            worst = int(np.argmax(rates))
            what = f"rate {zdot[worst]:.3g} /s of {names[system.n_q + worst]}"
        raise ModelError(f"at='static' but the operating point is not an equilibrium ({what}); the model is not at "
                         "rest there: linearize about a time (at=T) or a given state instead")


def _complete(system, op: OperatingPoint, static: bool) -> OperatingPoint:
    dropped = system.select_rows(op.q, op.t)  # redundant rows: an independent set, as the engine solves it
    ctx = system.context(op.q, op.v, op.t)
    if dropped.size:
        check_dropped_rows(system, *system.all_constraints(ctx), system.row_keep, dropped)
        system.report_redundancy()
    phi, jac = system.constraints(ctx)
    bad = float(np.max(np.abs(phi), initial=0.0))
    if bad > CONSISTENCY_TOL:
        row = int(np.argmax(np.abs(phi)))
        raise ModelError(f"the operating point violates the constraints by {bad:.3g} in "
                         f"{constraint_row_owner(system, row)}; give a consistent state (assembled positions)")
    vel = jac @ op.v + (system.constraint_rate(op.q, op.v, op.t) if any(j.drivers for j in system.joints) else 0.0)
    if np.max(np.abs(vel), initial=0.0) > CONSISTENCY_TOL * max(1.0, float(np.max(np.abs(op.v), initial=0.0))):
        row = int(np.argmax(np.abs(vel)))
        raise ModelError(f"the operating point's velocities violate {constraint_row_owner(system, row)} by "
                         f"{abs(vel[row]):.3g}; give consistent velocities")
    a, lam, zdot = initial_accelerations(system, op.q, op.v, op.z, op.t)
    op.a, op.lam = a, lam
    if static:
        if not np.any(op.v):
            op.v = np.zeros_like(op.q)
        check_equilibrium(system, op, zdot)
        op.a = np.zeros_like(op.q)  # at rest: q̈⁰ = 0 (seed 002 L451); the residual acceleration passed the check
    return op


def _project(system, q, v, t) -> tuple[np.ndarray, np.ndarray, str]:
    """Positions and velocities made consistent; the note says how far they moved."""
    q1 = assemble_positions(system, q, t)
    v1 = project_velocities(system, q1, v, t)
    moved_q = float(np.max(np.abs(q1 - q), initial=0.0))
    moved_v = float(np.max(np.abs(v1 - v), initial=0.0))
    note = f"projected onto the constraints (max change {moved_q:.2e} in q, {moved_v:.2e} in q̇)"
    return q1, v1, note


def state_from_results(system, results, t: float):
    """``(q, q̇, z)`` at time ``t`` (s) from a :class:`Results` (in memory: raw states, linear interpolation
    between samples; loaded from a file: rebuilt from the body and element signals, modal velocities by
    differentiating the modal coordinates in time)."""
    time = np.asarray(results.time)
    if not time[0] - 1e-12 <= t <= time[-1] + 1e-12:
        raise ModelError(f"time {t:g} s is outside the results ({time[0]:g} .. {time[-1]:g} s)")
    if getattr(results, "states", None):
        q, v, z = (np.array([np.interp(t, time, col) for col in results.states[key].T]) for key in ("q", "v", "z"))
        return q, v, z
    q = np.zeros(system.n_q)
    v = np.zeros(system.n_q)
    for body in system.bodies:
        base = f"body/{body.name}/"
        at = lambda name: np.array([np.interp(t, time, col) for col in np.atleast_2d(  # noqa: E731
            results[base + name].T).reshape(-1, time.size)])
        o = body.offset
        q[o:o + 3], q[o + 3:o + 7] = at("position"), at("orientation")
        q[o + 3:o + 7] /= np.linalg.norm(q[o + 3:o + 7])
        p = q[o + 3:o + 7]
        omega_body = rotation_matrix(p).T @ at("angular_velocity")
        v[o:o + 3], v[o + 3:o + 7] = at("velocity"), 0.5 * g_matrix(p).T @ omega_body
        if body.n_modes:
            modal = np.atleast_2d(results[base + "modal_coordinates"])
            q[o + 7:o + body.n_coordinates] = [np.interp(t, time, modal[:, j]) for j in range(body.n_modes)]
            rates = np.gradient(modal, time, axis=0)
            v[o + 7:o + body.n_coordinates] = [np.interp(t, time, rates[:, j]) for j in range(body.n_modes)]
    z = [float(np.interp(t, time, results[f"element/{element.name}/{s}"])) for element in system.elements
         for s in element.state_names]
    return q, v, np.array(z)


def _parse_results_spec(text: str):
    path, _, when = text.rpartition("@")
    try:
        return path, float(when)
    except ValueError:
        raise ModelError(f"operating point {text!r}: write RUN.results.h5@T with T in s") from None


def resolve_operating_point(model, at, simulate_options=None) -> tuple[System, OperatingPoint]:
    """The system and the completed :class:`OperatingPoint` for ``at`` (see :func:`flexmbs.linearize`)."""
    if isinstance(at, str) and at.strip().lower() == "static":
        system = System(model)
        q0, _, z0 = system.initial_state()
        q = assemble_positions(system, q0)
        try:
            q, z, _ = _static(system, q, z0)
        except SimulationError as exc:
            raise ModelError(f"at='static': no static equilibrium near the initial placement of model "
                             f"{model.name!r} ({exc}); linearize about a time (at=T) or a given state instead"
                             ) from None
        op = OperatingPoint(0.0, q, np.zeros_like(q), z, kind="static", note="static equilibrium")
    elif isinstance(at, (int, float)) and not isinstance(at, bool):
        from flexmbs.engine.solver import simulate

        if at <= 0.0:
            raise ModelError(f"operating time must be positive, got {at}")
        res = simulate(model, float(at), **(simulate_options or {}))
        if not res.success:
            raise SimulationError(f"cannot reach the operating time {at:g} s: {res.message}")
        state = res.final_state
        system = res.system
        q, v, note = _project(system, state.q, state.v, state.t)  # the index-3 integrator meets Φ_q q̇ = 0 to its tol
        op = OperatingPoint(state.t, q, v, state.z.copy(), kind="time",
                            note=f"state of a simulation at t = {state.t:g} s, " + note)
    elif isinstance(at, str) or (isinstance(at, tuple) and len(at) == 2):
        if isinstance(at, str):
            from flexmbs.results.results import load_results

            path, t = _parse_results_spec(at)
            try:
                results = load_results(path)
            except OSError as exc:
                raise ModelError(f"cannot read results file {path!r}: {exc}") from None
        else:
            results, t = at
        system = System(model)
        q, v, z = state_from_results(system, results, float(t))
        if z.size != system.n_z:
            raise ModelError(f"the results have {z.size} element states, the model {system.n_z}: not the same model")
        q, v, note = _project(system, q, v, float(t))
        op = OperatingPoint(float(t), q, v, z, kind="results", note=f"state from results at t = {t:g} s, " + note)
    elif isinstance(at, OperatingPoint):
        system = System(model)
        if at.q.size != system.n_q or at.v.size != system.n_q or at.z.size != system.n_z:
            raise ModelError(f"operating point sizes q {at.q.size}, v {at.v.size}, z {at.z.size} do not match the "
                             f"model (n_q = {system.n_q}, n_z = {system.n_z})")
        op = OperatingPoint(float(at.t), np.array(at.q, float), np.array(at.v, float), np.array(at.z, float),
                            kind=at.kind, note=at.note or "given state")
    else:
        raise ModelError(f"unknown operating point {at!r}: use 'static', a time in s, 'RUN.results.h5@T', "
                         "(results, T) or an OperatingPoint")
    return system, _complete(system, op, static=op.kind == "static")
