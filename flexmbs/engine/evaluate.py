"""The compiled residual, callable from Python: what the start, static equilibrium and linearization evaluate.

The thin wrappers below call the run's own compiled functions (:func:`flexmbs.engine.step.residual`,
:func:`~flexmbs.engine.step.jacobian_blocks`: the same machine code, on the plan of
:class:`flexmbs.engine.plan._Plan`) from Python, so the consistent start (:mod:`flexmbs.engine.initial`),
:func:`static_equilibrium` and :func:`flexmbs.linear.linearize` solve the very equations the run integrates (the
anchors' pattern: MuJoCo's ``mjd_transitionFD`` differences the same step it integrates), a model's Python parts
called back as in the run (:mod:`flexmbs.engine.callbacks`). The consistent accelerations solve the equations of the
run's samples (:func:`flexmbs.engine.loop.consistent_sample`) with numpy on the compiled residual (wrapping
``consistent_sample`` itself made numba's typing re-enter its compilation for a new model's types).

:class:`Evaluator` holds a system's plan and answers residuals, constraints, consistent accelerations and the
Jacobian blocks at any ``(t, q, q̇, q̈, z, λ)``; its plan is the one the run steps (:meth:`Evaluator.plan_for_run`).
"""
from __future__ import annotations

import math
import weakref

import numpy as np
import scipy.linalg as sla

from flexmbs_jit import apart

from .equations import REACTION_PASSES, REACTION_RTOL
from .integrator import StepState
from .plan import _Plan
from .step import T_SIG, constraints_at, jacobian_blocks, residual
from .system import HoldsSystem

__all__ = ["Evaluator", "evaluator"]


# (the signal callback is read from the plan, ``plan.cb``: a ctypes function as an argument costs ≈ 4 µs a call from
# Python, numba unboxing it)
@apart
def evaluate_residual(t, q, v, qdd, z, lam, plan, res, zdot, phi, jac, mass, with_constraints):
    """``res = M q̈ - Q - Q_v (+ Φ_qᵀ λ)``, ``ż`` (in the states' units), ``Φ``, ``Φ_q`` (kept rows) and ``M`` at
    ``(t, q, q̇, q̈, z, λ)``: the signals at ``t`` (the plan's callback), then :func:`step.residual`."""
    plan.cb(t)
    residual(t, q, v, qdd, z, lam, plan, res, zdot, phi, jac, mass, with_constraints)


@apart
def evaluate_constraints(t, q, v, plan, phi, jac):
    """``Φ``, ``Φ_q`` of the kept rows at ``(t, q)`` (every row in the plan's ``phi_all``, ``jac_all``)."""
    plan.cb(t)
    constraints_at(t, q, v, plan, phi, jac)


@apart
def evaluate_blocks(t, q, v, qdd, z, lam, plan):
    """``K, C, D_z, G_q, G_v, G_z`` into ``blk`` by the run's forward differences
    (:func:`step.jacobian_blocks`); returns the number of residual evaluations."""
    sc = np.zeros(7)
    sc[T_SIG] = np.nan
    return jacobian_blocks(t, q, v, qdd, z, lam, plan, plan.cb, sc)


def _flat(x) -> np.ndarray:
    return np.ascontiguousarray(x, dtype=float).reshape(-1)


class _StepScales:
    """What a plan reads of an integrator: the step's error scales (``_scale_q``, ``_scale_z``) and the Euler
    parameters' rows (``_rotation``), shaped as those of ``GeneralizedAlpha(system)`` (default tolerances). Only the
    compiled step reads them, never an evaluation here: :meth:`Evaluator.plan_for_run` copies a run's integrator's
    in (and a run whose integrator's shapes differ builds its own plan)."""

    def __init__(self, system):
        self._rotation = np.array([b.offset + k for b in system.bodies for k in range(3, 7)], dtype=int)
        self._scale_q = np.zeros(system.n_q)
        # (integrator.tolerance_kinds: a scale per state unit, at most n_z)
        units = sum(len(getattr(element, "state_units", element.state_names)) for element in system.elements)
        self._scale_z = np.zeros(min(units, system.n_z))


class Evaluator(HoldsSystem):
    """The compiled residual of one :class:`~flexmbs.engine.system.System` (its plan built at a state).

    Parameters
    ----------
    system : System
    q, v, z : ndarray, optional
        The state the plan is built at (joint angles are unwrapped about it; springs without a free length take
        their length there). Default: the system's initial placement.
    t : float, s
    """

    def __init__(self, system, q=None, v=None, z=None, t: float = 0.0):
        self._system = system
        q0, v0, z0 = system.initial_state() if q is None or z is None else (None, None, None)
        self._at = (_flat(q if q is not None else q0), _flat(v if v is not None else np.zeros(system.n_q)),
                    _flat(z if z is not None else z0), float(t))
        self.rebuild()

    _holder = "evaluator"  # (the one-line message of HoldsSystem.system)

    # ------------------------------------------------------------------------------------------------- plan
    def rebuild(self, q=None, v=None, z=None, t=None) -> None:
        """Build the plan again (after the kept constraint rows or a model parameter changed; at a new state)."""
        system = self.system
        if q is not None or v is not None or z is not None or t is not None:  # (a new state; none: the last one)
            self._at = tuple(old if new is None else convert(new) for old, new, convert in
                             zip(self._at, (q, v, z, t), (_flat, _flat, _flat, float)))
        q0, v0, z0, t0 = self._at
        zero_q, zero_z = np.zeros(system.n_q), np.zeros(system.n_z)
        state = StepState(t0, q0, v0, zero_q, zero_q, z0, zero_z, zero_z, np.zeros(system.n_c))
        self._keep = None if system.row_keep is None else np.array(system.row_keep)
        self._n_c = system.n_c
        self.plan = None
        self.plan = _Plan(system, _StepScales(system), state)
        if type(self._system) is weakref.ref:  # the system's own evaluator (see :func:`evaluator`)
            self.plan.hold_system_weakly()

    def follow_angles(self, q, v, t: float) -> None:
        """Unwrap the joint angles the elements read about their values at ``(t, q, q̇)`` (the Python
        measurements follow the angle continuously; the compiled one within π of a reference,
        :func:`flexmbs.engine.step.measure`)."""
        if not self.plan.angles:
            return
        ctx = self.system.context(q, v, t)
        for k, meas in self.plan.angles:
            self.plan.ws[24][k] = float(meas.evaluate(ctx)[0])

    @property
    def compiled(self) -> bool:
        """True: the compiled residual serves every system (its Python parts called back); the plan follows the
        kept constraint rows."""
        self._follow_rows()
        return True

    def _follow_rows(self) -> None:
        """The kept constraint rows of the system may have been chosen again (:meth:`System.select_rows`)."""
        keep, system = self._keep, self.system
        same = (system.row_keep is None and keep is None) or (
            system.row_keep is not None and keep is not None and np.array_equal(system.row_keep, keep))
        if not same or system.n_c != self._n_c:
            self.rebuild()

    # ----------------------------------------------------------------------------------------- evaluations
    def residual(self, t, q, v, qdd, z, lam, constraints: bool = True):
        """``(res, ż, Φ, Φ_q, M)``: ``res = M q̈ - Q - Q_v + Φ_qᵀ λ`` (n_q,) (without ``Φ_qᵀ λ``, and ``Φ``, ``Φ_q``
        left zero, when ``constraints`` is False), ``ż`` (n_z,), ``Φ`` (n_c,), ``Φ_q`` (n_c, n_q), ``M`` (n_q, n_q)."""
        self._follow_rows()
        return self._residual(t, _flat(q), _flat(v), _flat(qdd), _flat(z), _flat(lam), constraints)

    def _residual(self, t, q, v, qdd, z, lam, constraints: bool = True):
        """:meth:`residual` at flat float arrays, on the plan as it is (the kept rows followed by the caller)."""
        system = self.system
        n_q, n_z, n_c = system.n_q, system.n_z, system.n_c
        p = self.plan
        out = (np.zeros(n_q), np.zeros(n_z), np.zeros(n_c), np.zeros((n_c, n_q)), np.zeros((n_q, n_q)))
        evaluate_residual(float(t), q, v, qdd, z, lam, p.struct, *out, bool(constraints))
        self.plan.check()
        return out

    def constraints(self, q, t: float = 0.0):
        """``Φ`` and ``Φ_q`` of the kept rows at ``(t, q)``."""
        system = self.system
        self._follow_rows()
        p = self.plan
        n_c, n_q = system.n_c, system.n_q
        phi, jac = np.zeros(n_c), np.zeros((n_c, n_q))
        evaluate_constraints(float(t), _flat(q), np.zeros(n_q), p.struct, phi, jac)
        self.plan.check()
        return phi, jac

    def constraint_rate(self, q, t: float, dt: float = 1e-6) -> np.ndarray:
        """``Φ_t`` (n_c,) by central differences in time (prescribed motions), as
        :meth:`flexmbs.engine.system.System.constraint_rate`."""
        return (self.constraints(q, t + dt)[0] - self.constraints(q, t - dt)[0]) / (2.0 * dt)

    def accelerations(self, t, q, v, z):
        """Consistent ``(q̈, λ, ż)`` at ``(t, q, q̇, z)`` (``q̈``, ``λ`` finite), or None when ``[M Φ_qᵀ; Φ_q 0]`` is
        singular or its solution not finite: the equations of :func:`flexmbs.engine.loop.consistent_sample` (the
        run's samples) on the compiled residual, ``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]`` with ``γ`` the second
        difference of ``Φ(q + s q̇, t + s)`` (``s |q̇| = 1e-4``), and friction that reads the reactions iterated to
        the fixed point ``λ = λ(Q(λ))``."""
        system = self.system
        self._follow_rows()
        p = self.plan
        q, v, z = _flat(q), _flat(v), _flat(z)
        n_q, n_c = system.n_q, system.n_c
        rheonomic = p.mi[31].shape[0] > 0  # prescribed motions: Φ(q + s q̇, t + s)
        zero_q, zero_c = np.zeros(n_q), np.zeros(n_c)
        res, zdot, phi, jac, mass = self._residual(t, q, v, zero_q, z, zero_c)
        if rheonomic or np.count_nonzero(v):  # (v.any(): its reduction machinery, ≈ 3 µs of a start)
            s = 1e-4 / max(math.sqrt(float(v @ v)), 1.0)
            dt = s if rheonomic else 0.0
            gamma = -(self.constraints(q + s * v, t + dt)[0] + self.constraints(q - s * v, t - dt)[0]) / s**2
            gamma += 2.0 * phi / s**2
        else:  # at rest with time-free rows: γ = -(Φ_q q̇)_q q̇ is exactly zero (its differences: round-off)
            gamma = np.zeros(n_c)
        kkt = np.zeros((n_q + n_c, n_q + n_c))
        kkt[:n_q, :n_q], kkt[:n_q, n_q:], kkt[n_q:, :n_q] = mass, jac.T, jac
        rhs = np.concatenate([-res, gamma])
        if not p.mi[30][0]:  # one solve (numpy's: a third of scipy's LU calls for these small matrices)
            try:
                sol = np.linalg.solve(kkt, rhs)
            except np.linalg.LinAlgError:  # exactly singular (scipy's LU gave non-finite values there)
                return None
            return (sol[:n_q], sol[n_q:], zdot) if np.isfinite(sol).all() else None
        try:  # friction from the reactions (loop.consistent_sample): one factorization, several solves
            lu = sla.lu_factor(kkt, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            return None
        sol = sla.lu_solve(lu, rhs, check_finite=False)
        for _ in range(REACTION_PASSES):
            lam = sol[n_q:]
            res = self._residual(t, q, v, zero_q, z, lam, constraints=False)[0]
            new = sla.lu_solve(lu, np.concatenate([-res, gamma]), check_finite=False)
            change = np.max(np.abs(new[n_q:] - lam), initial=0.0)
            sol = new
            if change <= REACTION_RTOL * max(np.max(np.abs(new[n_q:]), initial=0.0), 1e-300):
                break
        if not np.all(np.isfinite(sol)):
            return None
        return sol[:n_q], sol[n_q:], zdot

    def blocks(self, t, q, v, qdd, z, lam) -> dict:
        """The run's Jacobian blocks ``K = ∂R/∂q``, ``C = ∂R/∂q̇``, ``D_z = ∂R/∂z``, ``G_q``, ``G_v``, ``G_z``
        (``∂ż/∂·``) by forward differences of the compiled residual (:func:`step.jacobian_blocks`)."""
        self._follow_rows()
        p = self.plan
        evaluate_blocks(float(t), _flat(q), _flat(v), _flat(qdd), _flat(z), _flat(lam), p.struct)
        self.plan.check()
        return dict(zip(("K", "C", "Dz", "Gq", "Gv", "Gz"), (b.copy() for b in p.blk)))

    def plan_for_run(self, integ, state):
        """The plan the consistent start evaluated, handed to the run (:func:`flexmbs.engine.plan.
        compiled_run`) so that the start and the steps share one plan, built once: the integrator's error scales
        copied in, the flexible bodies' deformation amplitudes and the joint angles' references taken at the run's
        first state ``state``. None when the plan does not fit the integrator (the run builds its own)."""
        self._follow_rows()
        p, system = self.plan, self.system
        scale_q, scale_z, rotation = p.mf[9], p.mf[10], p.mi[21]
        if (scale_q.shape != integ._scale_q.shape or scale_z.shape != integ._scale_z.shape
                or rotation.shape != np.shape(integ._rotation)):
            return None
        scale_q[:] = integ._scale_q
        scale_z[:] = integ._scale_z
        rotation[:] = integ._rotation
        amplitude = p.mf[14][12]
        for f, body in enumerate(b for b in system.bodies if b.n_modes):
            elastic = state.q[body.offset + 7:body.offset + 7 + body.n_modes]
            amplitude[f] = float(np.max(np.abs(elastic)))
        self.follow_angles(state.q, state.v, state.t)
        return p


def evaluator(system, q=None, v=None, z=None, t: float = 0.0) -> Evaluator:
    """The system's :class:`Evaluator`, kept on the system (built once; rebuilt when its kept rows change)."""
    found = getattr(system, "_evaluator", None)
    if found is None:
        found = Evaluator(system, q, v, z, t)
        found.hold_system_weakly()  # the system holds the evaluator: no reference cycle
        found.plan.hold_system_weakly()
        system._evaluator = found
    return found

