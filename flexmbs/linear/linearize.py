"""Linearization of the whole coupled model in minimal coordinates (seed 002 §3, steps 1–7, eq. (16)–(64)).

The model is the index-3 DAE of :mod:`flexmbs.engine.system` (seed 002 eq. (9)–(13) with every state element in ``z``)::

    R(q, q̇, q̈, z, λ, u, t) = M(q) q̈ - Q(q, q̇, z, u, t) + Φ_qᵀ λ = 0,   Φ(q, t) = 0,   ż = g(q, q̇, z, u, t)

About a reference solution ``(q⁰, q̇⁰, q̈⁰, λ⁰, z⁰)`` (seed 002 eq. (16)–(20); an equilibrium or a motion) the
variations obey (eq. (23), (24), (26), (28); the spool states of the seed are part of ``z``)::

    M₀ q̈̃ + K q̃ + C q̇̃ + D_z z̃ + R_u ũ + Φ_qᵀ λ̃ = 0,     K = ∂R/∂q, C = ∂R/∂q̇, D_z = ∂R/∂z
    ż̃ = G_q q̃ + G_v q̇̃ + G_z z̃ + g_u ũ

Minimal coordinates ``θ`` (n - m of them) are either a subset of the coordinates (seed 002 eq. (29), chosen by
column-pivoted QR of ``Φ_q``) or named scalar functions of ``q`` (joint coordinates, ...), with gradient ``G``.
With ``A = [Φ_q; G]`` (n × n, regular) the transformation of eq. (31) is ``T = A⁻¹ [0; I]`` (so ``Φ_q T = 0`` and
``T₀ᵀ Φ_qᵀ = 0``, step 1, eq. (32)) and::

    q̃ = T θ̃                                            step 4, eq. (43) (holonomic: V^{h,ai} = T)
    q̇̃ = T θ̇̃ + V̿ q̃,     V̿ = -A⁻¹ [∂(Φ_q q̇⁰ + Φ_t)/∂q; 0]                       step 2, eq. (33)-(35)
    q̈̃ = T θ̈̃ + U q̇̃ + V q̃,  U = -A⁻¹ [∂Φ̈/∂q̇; 0],  V = -A⁻¹ [∂Φ̈/∂q; 0]          step 3, eq. (36)-(40)

with ``Φ̈ = Φ_q q̈⁰ + (Φ_q q̇)_q q̇ + 2 Φ_qt q̇ + Φ_tt`` (eq. (36), reconstructed in wave2-spec A.2). Step 7
(eq. (57)-(60), (63), (64)): ``m₀ = Tᵀ M₀ T``, ``R₀ = -Tᵀ (C + M₀ U)``, ``S₀ = -Tᵀ (K + M₀ V)`` and the first-order
system in ``X̃ = (θ̃, θ̇̃, z̃)``::

    θ̈̃ = m₀⁻¹ [(R₀ V̿ + S₀) T θ̃ + R₀ T θ̇̃ - Tᵀ D_z z̃ - Tᵀ R_u ũ]
    ż̃  = (G_q + G_v V̿) T θ̃ + G_v T θ̇̃ + G_z z̃ + g_u ũ                   (H₀ = H_x + H_ẋ V̿, eq. (60))

Steps 5-6 (nonholonomic constraints) do not arise: flexmbs has holonomic constraints only (l = 0).
Derivatives: ``D_z``, ``G_z`` from the elements' analytic ``jacobians()`` where they exist (the integrator's
pieces), everything else by central differences along the columns of ``T`` (only n - m directions, not n), with a
step scaled to each variable. :func:`conventional_jacobian` is the counterpart of eq. (95)-(100).
"""
from __future__ import annotations

import time as _time

import numpy as np
import scipy.linalg as sla

from fem.errors import ModelError

from flexmbs.engine.evaluate import evaluator
from flexmbs.engine.initial import check_constraints
from .linear_model import LinearModel
from .linear_signals import evaluate_outputs, resolve_input, resolve_output, unit_scale
from .operating_point import OperatingPoint, resolve_operating_point
from flexmbs.engine.system import measure, to_coordinates_vector

__all__ = ["linearize", "conventional_jacobian", "OperatingPoint", "coordinate_labels"]

DEFAULT_STEP = 1e-6  # relative central-difference step (truncation ~1e-12, round-off ~1e-10)
KINEMATIC_STEP = 1e-4  # outer step of the nested differences of the constraint curvature (moving points)


def coordinate_labels(system) -> list[tuple[str, str]]:
    """Name and unit of every coordinate of ``q``: ``body/<b>/position/x``, ``.../orientation/e1``, modes."""
    labels = []
    for body in system.bodies:
        base = f"body/{body.name}/"
        labels += [(base + f"position/{c}", "m") for c in "xyz"]
        labels += [(base + f"orientation/e{k}", "1") for k in range(4)]
        labels += [(base + f"modal_coordinates/q{k + 1}", "m kg^0.5") for k in range(body.n_modes)]
    return labels


def _state_labels(system) -> list[tuple[str, str]]:
    return [(f"element/{element.name}/{s}", u) for element in system.elements
            for s, u in zip(element.state_names, getattr(element, "state_units", [""] * len(element.state_names)))]


def _directional(fun, x0: np.ndarray, directions: np.ndarray, scale: np.ndarray, step: float,
                 angle_rows: np.ndarray | None = None) -> np.ndarray:
    """Central differences of ``fun`` along each column ``w`` of ``directions``: ``∂f/∂x w``.

    The step along ``w`` moves no variable by more than ``step`` times its scale."""
    cols = []
    for w in directions.T:
        ratio = float(np.max(np.abs(w) / scale, initial=0.0))
        if ratio == 0.0:
            cols.append(None)
            continue
        h = step / ratio
        diff = fun(x0 + h * w) - fun(x0 - h * w)
        if angle_rows is not None and angle_rows.any():
            diff[angle_rows] = (diff[angle_rows] + np.pi) % (2.0 * np.pi) - np.pi
        cols.append(diff / (2.0 * h))
    size = next((c.size for c in cols if c is not None), None)
    if size is None:
        size = fun(x0).size
    return np.column_stack([np.zeros(size) if c is None else c for c in cols]) if cols else np.zeros((size, 0))


class _Evaluator:
    """``[R, ż, y]`` of the model at perturbed positions, velocities, states and inputs: ``R`` and ``ż`` from the
    compiled residual the run integrates (:class:`flexmbs.engine.evaluate.Evaluator`; the Python residual for a model
    the compiled plan cannot build yet), the outputs ``y`` from their signals (:mod:`.linear_signals`)."""

    def __init__(self, system, op: OperatingPoint, outputs):
        self.system, self.op, self.outputs = system, op, outputs
        self.engine = evaluator(system)
        self.refresh()

    def refresh(self) -> None:
        """Build the plan at the operating point (angles unwrapped there), reading the model's parameters again
        (an input signal offset for :func:`_input_columns`)."""
        op = self.op
        self.engine.rebuild(op.q, op.v, op.z, op.t)

    def __call__(self, q=None, v=None, z=None) -> np.ndarray:
        op = self.op
        q = op.q if q is None else q
        v = op.v if v is None else v
        z = op.z if z is None else z
        res, zdot, _, _, _ = self.engine.residual(op.t, q, v, op.a, z, op.lam)
        return np.concatenate([res, zdot, evaluate_outputs(self.system, self.outputs, q, v, z, op.t, op.lam)])


def _analytic_state_blocks(system, op: OperatingPoint, Dz: np.ndarray, Gz: np.ndarray) -> list[str]:
    """Overwrite ``D_z``, ``G_z`` columns with the elements' analytic Jacobians where they provide them
    (``D_z = -(∂y/∂q)ᵀ ∂f/∂z``, as the run's Newton blocks); returns the elements done so."""
    done = []
    ctx = system.context(op.q, op.v, op.t, op.lam)
    for k, element in enumerate(system.elements):
        jac_fn = getattr(element, "jacobians", None)
        if not callable(jac_fn):
            continue
        cols = slice(system.z_offsets[k], system.z_offsets[k + 1])
        y, ydot, grads = measure(ctx, element.measurements)
        blocks = jac_fn(op.t, op.z[cols], y, ydot)
        if not blocks or "rates_z" not in blocks or "forces_z" not in blocks:
            continue
        Gz[:, cols] = 0.0
        Gz[cols, cols] = np.atleast_2d(blocks["rates_z"])
        Dz[:, cols] = 0.0
        forces_z = np.atleast_2d(blocks["forces_z"])
        for i_y, grad in enumerate(grads):
            for body, g in grad:
                Dz[body.slice, cols] -= np.outer(to_coordinates_vector(g, ctx.kin[body.index]), forces_z[i_y])
        done.append(element.name)
    return done


# ------------------------------------------------------------------------------------ independent coordinates
def _independent_coordinates(system, op, jac, coordinates):
    """Gradient rows ``G`` (k, n), names and units of the minimal coordinates, and ``G(q)`` for named ones
    (``None``: constant, a subset of ``q``)."""
    n, m = system.n_q, system.n_c
    k = n - m
    labels = coordinate_labels(system)
    if coordinates is None:  # seed 002 eq. (29): the best-conditioned dependent set by column-pivoted QR
        if m:
            _, _, piv = sla.qr(jac, pivoting=True, mode="economic")
            independent = np.sort(piv[m:])
        else:
            independent = np.arange(n)
        G = np.zeros((k, n))
        G[np.arange(k), independent] = 1.0
        return G, [labels[i] for i in independent], None
    coordinates = list(coordinates)
    if len(coordinates) != k:
        raise ModelError(f"the model has {k} degree(s) of freedom but {len(coordinates)} coordinate(s) were named "
                         f"({', '.join(coordinates)}); name exactly {k} or let linearize choose (coordinates=None)")
    outs = [resolve_output(system, name) for name in coordinates]
    for out in outs:
        if out.gradient is None:
            raise ModelError(f"{out.name!r} cannot be a minimal coordinate: it is not a function of the positions "
                             "alone; use joint coordinates, body or marker positions or modal coordinates")
    gradient = lambda q: np.array([o.gradient(system.context(q, op.v, op.t)) for o in outs])  # noqa: E731
    return gradient(op.q), [(o.name, o.unit) for o in outs], gradient


def _transformation(system, jac, G, names):
    """``A = [Φ_q; G]`` and ``T = A⁻¹ [0; I]`` (seed 002 eq. (31)) with a conditioning check."""
    n, m = system.n_q, system.n_c
    A = np.vstack([jac, G])
    row_scale = np.abs(A).max(axis=1, keepdims=True)
    row_scale[row_scale == 0.0] = 1.0
    s = np.linalg.svd(A / row_scale, compute_uv=False)
    if s[-1] < 1e-10 * s[0]:
        raise ModelError(f"the minimal coordinates {', '.join(nm for nm, _ in names)} do not describe the motion "
                         "independently of the joints (the constrained model fixes or couples them); name other "
                         "coordinates or let linearize choose (coordinates=None)")
    lu = sla.lu_factor(A)
    rhs = np.zeros((n, n - m))
    rhs[m:, :] = np.eye(n - m)
    return lu, sla.lu_solve(lu, rhs)


# ------------------------------------------------------------------------------------ constraint kinematics
def _rheonomic(system) -> bool:
    return any(j.drivers for j in system.joints)


def _constraint_rate(system, q, v, t, rheonomic, gradient=None):
    """``ḣ = h_q q̇ + h_t`` (n_c [+ k],) of ``h = [Φ; θ(q)]`` (the coordinate rows only for named coordinates)."""
    ev = evaluator(system)
    _, jac = ev.constraints(q, t)
    rate = jac @ v
    if rheonomic:
        rate = rate + ev.constraint_rate(q, t)
    return rate if gradient is None else np.concatenate([rate, gradient(q) @ v])


def constraint_acceleration(system, q, v, a, t, rheonomic: bool, gradient=None) -> np.ndarray:
    """``ḧ = h_q q̈ + (h_q q̇)_q q̇ + 2 h_qt q̇ + h_tt`` of ``h = [Φ; θ(q)]``: seed 002 eq. (36) (the derivative of
    ``ḣ`` along the path ``(q + s q̇, t + s)`` by central differences, ``s |q̇|`` about 1e-4 so round-off stays
    small); ``gradient``: ``θ_q(q)`` of named minimal coordinates (``None``: only ``Φ``)."""
    _, jac = evaluator(system).constraints(q, t)
    if gradient is not None:
        jac = np.vstack([jac, gradient(q)])
    speed = float(np.max(np.abs(v), initial=0.0))
    if speed == 0.0 and not rheonomic:
        return jac @ a
    s = 1e-4 / max(speed, 1.0) if rheonomic else 1e-4 / speed
    dt = s if rheonomic else 0.0
    plus = _constraint_rate(system, q + s * v, v, t + dt, rheonomic, gradient)
    minus = _constraint_rate(system, q - s * v, v, t - dt, rheonomic, gradient)
    return jac @ a + (plus - minus) / (2.0 * s)


def _kinematic_terms(system, op, lu, T, scale_q, scale_v, gradient):
    """``V̿ T``, ``U T``, ``U V̿ T``, ``V T`` (each n × k) of steps 2 and 3; zero at rest without drivers.

    Named minimal coordinates ``θ(q)`` enter like constraints (``h = [Φ; θ(q) - θ̃]``), so that ``θ̃`` is the
    variation of the named coordinate itself along a moving reference."""
    n = system.n_q
    k = T.shape[1]
    zero = np.zeros((n, k))
    rheonomic = _rheonomic(system)
    if not rheonomic and not np.any(op.v) and not np.any(op.a):
        return zero, zero, zero, zero

    def solve(rows):  # -A⁻¹ [rows; 0] (rows: Φ only) or -A⁻¹ rows (Φ and θ)
        rhs = np.zeros((n, rows.shape[1]))
        rhs[:rows.shape[0]] = rows
        return -sla.lu_solve(lu, rhs)

    hdot = lambda q: _constraint_rate(system, q, op.v, op.t, rheonomic, gradient)  # noqa: E731
    W1 = solve(_directional(hdot, op.q, T, scale_q, KINEMATIC_STEP))  # V̿ T, eq. (34)-(35)
    acc_q = lambda q: constraint_acceleration(system, q, op.v, op.a, op.t, rheonomic, gradient)  # noqa: E731
    acc_v = lambda v: constraint_acceleration(system, op.q, v, op.a, op.t, rheonomic, gradient)  # noqa: E731
    VT = solve(_directional(acc_q, op.q, T, scale_q, KINEMATIC_STEP))  # eq. (40)
    pv = _directional(acc_v, op.v, np.hstack([T, W1]), scale_v, KINEMATIC_STEP)
    UT, UW1 = solve(pv[:, :k]), solve(pv[:, k:])  # eq. (39)
    return W1, UT, UW1, VT


# ------------------------------------------------------------------------------------------------ front door
def linearize(model, at="static", inputs=(), outputs=(), coordinates=None, step: float = DEFAULT_STEP,
              simulate_options: dict | None = None) -> LinearModel:
    """Linear state-space model ``Ẋ̃ = A X̃ + B ũ``, ``ỹ = C X̃ + D ũ`` of ``model`` in minimal coordinates.

    Parameters
    ----------
    model : flexmbs.Model
    at : operating point
        ``"static"`` (the static equilibrium near the initial placement, :func:`flexmbs.static_equilibrium`);
        a time ``T`` in s (simulate from 0 to ``T`` and take the state there); ``"RUN.results.h5@T"`` or
        ``(results, T)`` (a state read from a results file / in-memory :class:`Results` at time ``T``, projected onto
        the constraints); or an :class:`OperatingPoint` (a consistent state, velocities allowed; ``kind="static"``
        asks for a check that it is an equilibrium).
    inputs, outputs : sequence of str, or dict {short name: full name}
        Signal names, see :mod:`flexmbs.linear.linear_signals` and docs/linearization.md.
    coordinates : sequence of str or None
        Names of the ``n - m`` minimal coordinates (e.g. ``["joint/O1/rotation"]``); ``None`` chooses coordinates
        of ``q`` by column-pivoted QR of ``Φ_q``.
    step : float
        Relative central-difference step.
    simulate_options : dict, optional
        Keywords for :func:`flexmbs.simulate` when ``at`` is a time.

    Returns
    -------
    LinearModel
    """
    wall0 = _time.perf_counter()
    in_names, in_full = _names(inputs)
    out_names, out_full = _names(outputs)
    system, op = resolve_operating_point(model, at, simulate_options)
    input_signals = [resolve_input(model, name) for name in in_full]
    output_signals = [resolve_output(system, name) for name in out_full]
    n, m, n_z = system.n_q, system.n_c, system.n_z
    evaluate = _Evaluator(system, op, output_signals)
    phi, jac = evaluate.engine.constraints(op.q, op.t)
    check_constraints(system, jac)
    G, coord, gradient = _independent_coordinates(system, op, jac, coordinates)
    lu, T = _transformation(system, jac, G, coord)
    k = n - m
    scale_q = np.maximum(np.abs(op.q), 1.0)
    scale_v = np.maximum(np.abs(op.v), 1.0)
    states = _state_labels(system)
    z_floor = np.array([unit_scale(u) for _, u in states])
    scale_z = np.maximum(np.abs(op.z), z_floor) if n_z else np.ones(0)
    angle = np.concatenate([np.zeros(n + n_z, bool), [o.angle for o in output_signals]]).astype(bool)
    W1, UT, UW1, VT = _kinematic_terms(system, op, lu, T, scale_q, scale_v, gradient)
    # derivatives along the minimal directions: positions T, velocities T and V̿T (steps 2 and 7)
    dq = _directional(lambda q: evaluate(q=q), op.q, T, scale_q, step, angle)
    dv = _directional(lambda v: evaluate(v=v), op.v, np.hstack([T, W1]), scale_v, step, angle)
    dz = _directional(lambda z: evaluate(z=z), op.z, np.eye(n_z), scale_z, step, angle)
    du = _input_columns(evaluate, input_signals, n + n_z + len(output_signals), step)
    Dz, Gz = dz[:n].copy(), dz[n:n + n_z].copy()
    analytic = _analytic_state_blocks(system, op, Dz, Gz)
    mass = evaluate.engine.residual(op.t, op.q, op.v, op.a, op.z, op.lam)[4]
    A, B, C, D = _first_order_system(T, mass, dq, dv, dz, du, Dz, Gz, (W1, UT, UW1, VT), n, n_z,
                                     len(output_signals))
    labels = coord + [(f"d/dt {nm}", f"{u}/s" if u != "1" else "1/s") for nm, u in coord] + states
    y0 = evaluate_outputs(system, output_signals, op.q, op.v, op.z, op.t, op.lam)
    return LinearModel(
        A=A, B=B, C=C, D=D, state_names=[nm for nm, _ in labels], state_units=[u for _, u in labels],
        input_names=in_names, input_units=[s.unit for s in input_signals], output_names=out_names,
        output_units=[o.unit for o in output_signals], operating_point=op, output_values=y0,
        transformation=T, velocity_transformation=W1, system=system, method="minimal",
        info={"n_coordinates": n, "n_constraints": m, "n_states_elements": n_z, "minimal_coordinates": k,
              "analytic_state_jacobians": analytic, "step": step, "wall_s": _time.perf_counter() - wall0,
              "residual": "compiled" if evaluate.engine.compiled else f"python: {evaluate.engine.reason}",
              "operating_point": op.kind, "note": op.note})


def _input_columns(evaluate, input_signals, size: int, step: float) -> np.ndarray:
    """``∂[R, ż, y]/∂u`` (size, n_u) by central differences of each input signal (step ``step`` × unit scale)."""
    du = np.zeros((size, len(input_signals)))
    for j, signal in enumerate(input_signals):
        h = step * unit_scale(signal.unit)
        values = []
        for delta in (h, -h):
            with signal.offset(delta):
                evaluate.refresh()  # the compiled plan reads the shifted signal
                values.append(evaluate())
        evaluate.refresh()
        du[:, j] = (values[0] - values[1]) / (2.0 * h)
    return du


def _first_order_system(T, mass, dq, dv, dz, du, Dz, Gz, kinematic, n, n_z, n_y):
    """Step 7 (seed 002 eq. (53)-(60), (63), (64)): ``A, B, C, D`` in ``X̃ = (θ̃, θ̇̃, z̃)`` from the directional
    derivatives ``dq = ∂[R, ż, y]/∂q T``, ``dv = ∂[…]/∂q̇ [T, V̿T]``, ``dz``, ``du`` and the kinematic terms."""
    W1, UT, UW1, VT = kinematic
    k = T.shape[1]
    KT, GqT, YqT = dq[:n], dq[n:n + n_z], dq[n + n_z:]
    CT, CW1 = dv[:n, :k], dv[:n, k:]
    GvT, GvW1, YvT, YvW1 = dv[n:n + n_z, :k], dv[n:n + n_z, k:], dv[n + n_z:, :k], dv[n + n_z:, k:]
    Yz = dz[n + n_z:]
    Ru, gu, Yu = du[:n], du[n:n + n_z], du[n + n_z:]
    m0 = T.T @ mass @ T  # eq. (57)
    R0T = -T.T @ (CT + mass @ UT)  # R₀ T, eq. (58)
    S0T = -T.T @ (KT + mass @ VT + mass @ UW1 + CW1)  # (R₀ V̿ + S₀) T, eq. (59)
    try:
        m0_factor = sla.cho_factor(m0)
    except np.linalg.LinAlgError:
        raise ModelError("the generalized mass matrix T^T M T of the minimal coordinates is not positive definite; "
                         "a body without mass or inertia in a free direction?") from None
    inv = lambda x: sla.cho_solve(m0_factor, x)  # noqa: E731
    n_x = 2 * k + n_z
    A = np.zeros((n_x, n_x))
    B = np.zeros((n_x, du.shape[1]))
    A[:k, k:2 * k] = np.eye(k)
    A[k:2 * k, :k] = inv(S0T)
    A[k:2 * k, k:2 * k] = inv(R0T)
    A[k:2 * k, 2 * k:] = inv(-T.T @ Dz)
    B[k:2 * k] = inv(-T.T @ Ru)
    if n_z:  # eq. (55), (60): H₀ = H_x + H_ẋ V̿
        A[2 * k:, :k] = GqT + GvW1
        A[2 * k:, k:2 * k] = GvT
        A[2 * k:, 2 * k:] = Gz
        B[2 * k:] = gu
    C = np.hstack([YqT + YvW1, YvT, Yz]) if n_y else np.zeros((0, n_x))
    return A, B, C, Yu


def _names(items) -> tuple[list[str], list[str]]:
    if isinstance(items, dict):
        return list(items), list(items.values())
    items = [items] if isinstance(items, str) else list(items or [])
    return list(items), list(items)


# ------------------------------------------------------------------------------------ conventional counterpart
def _full_rates(system, q, v, z, t, lam_guess=None) -> np.ndarray:
    """``(q̇, q̈, ż)`` of the index-1 form, seed 002 eq. (95)-(98): ``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; Q_d]``."""
    n, m = system.n_q, system.n_c
    ev = evaluator(system)
    zero = np.zeros(n)
    lam = np.zeros(m) if lam_guess is None else lam_guess
    res, zdot, _, _, mass = ev.residual(t, q, v, zero, z, lam, constraints=False)
    _, jac = ev.constraints(q, t)
    kkt = np.zeros((n + m, n + m))
    kkt[:n, :n], kkt[:n, n:], kkt[n:, :n] = mass, jac.T, jac
    q_d = jac @ np.zeros(n) - constraint_acceleration(system, q, v, np.zeros(n), t, _rheonomic(system))
    lu = sla.lu_factor(kkt, check_finite=False)
    sol = sla.lu_solve(lu, np.concatenate([-res, q_d]))
    if system.forces:  # joint-reaction-dependent forces (friction): one refinement, as initial_accelerations
        res, zdot, _, _, _ = ev.residual(t, q, v, zero, z, sol[n:], constraints=False)
        sol = sla.lu_solve(lu, np.concatenate([-res, q_d]))
    return np.concatenate([v, sol[:n], zdot])


def conventional_jacobian(model_or_linear, step: float = 1e-5, at="static") -> tuple[np.ndarray, list[str]]:
    """The conventional Jacobian ``J = ∂F/∂X`` of the full first-order form ``X = (q, q̇, z)`` by central
    differences, seed 002 eq. (95)-(100): ``J_j = (F(X⁰ + h_j e_j) - F(X⁰ - h_j e_j)) / (2 h_j)`` with
    ``h_j = step · max(1, |X_j|)``. Size ``2 n + n_z``; it carries ``2 m`` spurious (near-)zero eigenvalues from the
    constraint directions (eq. (99), L627).

    ``model_or_linear``: a :class:`LinearModel` (its operating point is reused) or a model (``at`` as in
    :func:`linearize`). Returns ``(J, state names)``.
    """
    if isinstance(model_or_linear, LinearModel):
        system, op = model_or_linear.system, model_or_linear.operating_point
    else:
        system, op = resolve_operating_point(model_or_linear, at, None)
    n = system.n_q
    x0 = np.concatenate([op.q, op.v, op.z])
    J = np.empty((x0.size, x0.size))
    for j in range(x0.size):
        h = step * max(1.0, abs(x0[j]))
        xp, xm = x0.copy(), x0.copy()
        xp[j] += h
        xm[j] -= h
        fp = _full_rates(system, xp[:n], xp[n:2 * n], xp[2 * n:], op.t, op.lam)
        fm = _full_rates(system, xm[:n], xm[n:2 * n], xm[2 * n:], op.t, op.lam)
        J[:, j] = (fp - fm) / (2.0 * h)
    labels = [nm for nm, _ in coordinate_labels(system)]
    names = labels + [f"d/dt {nm}" for nm in labels] + [nm for nm, _ in _state_labels(system)]
    return J, names
