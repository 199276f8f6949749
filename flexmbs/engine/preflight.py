"""Checks of a model at its start, before the first step (issue 30; docs/safety.md, "Before the first step"):
contradicting settings make a model that runs and reports wrong numbers, so they are refused in one line: what a
state element's own ``plausibility(t, z, y, ydot)`` says (docs/element-protocol.md), a negative constant stiffness
or damping, solver options out of range (:func:`check_request`) and tolerances below round-off.
"""
from __future__ import annotations

import math

import numpy as np

from fem.errors import ModelError, SimulationError

from .initial import equation_names
from .integrator import _body_extents
from .system import measure
from .watchdog import MAX_STEPS_LIMIT

__all__ = ["check_start", "check_request", "check_tolerances_resolvable"]

MIN_T_END = 1e-9  # s: the shortest end time (a step of 1e-12 s at a time of 1 s is round-off)
ROUND_OFF_MARGIN = 2.0  # a tolerance below this many units of round-off of its unknown cannot be met


_OPTION_RANGES = {  # option -> (lowest, lowest allowed?, highest, None allowed?): checked before any work
    "rtol": (0.0, True, 1.0, False), "atol": (0.0, False, math.inf, False), "rho_inf": (0.0, True, 1.0, False),
    "initial_step": (0.0, False, math.inf, True), "max_step": (0.0, False, math.inf, True),
    "min_step": (0.0, True, math.inf, False), "output_interval": (0.0, True, math.inf, True),
    "event_tolerance": (0.0, False, math.inf, False)}


def check_request(t_end, max_steps, **options) -> None:
    """Before any work, one line each: a finite, positive end time, a bounded step count and finite solver options
    in range (``inf`` as end time ran forever, a NaN step size looped forever)."""
    try:
        if isinstance(t_end, (str, bytes, bool)):  # issue 43: True ran as 1 s
            raise TypeError
        t_end = float(t_end)
    except (TypeError, ValueError):
        raise SimulationError(f"t_end must be a number, a time in s, got {t_end!r} ({type(t_end).__name__})") \
            from None
    if not (t_end > 0.0 and math.isfinite(t_end)):
        raise SimulationError(f"t_end must be a positive, finite time in s, got {t_end}")
    if t_end < MIN_T_END:  # issue 43: 1e-300 s ended in a ZeroDivisionError
        raise SimulationError(f"t_end = {t_end:g} s is shorter than {MIN_T_END:g} s, below what a step can resolve; "
                              "give the end time in s")
    if not (isinstance(max_steps, (int, np.integer)) and 1 <= max_steps <= MAX_STEPS_LIMIT):
        raise SimulationError(f"max_steps must be a whole number in 1..{MAX_STEPS_LIMIT:.0e}, got {max_steps!r}")
    for name, value in options.items():
        low, closed, high, optional = _OPTION_RANGES[name]
        if value is None and optional:
            continue
        try:
            if isinstance(value, (str, bytes)):
                raise TypeError
            number = float(value)
        except (TypeError, ValueError):
            raise SimulationError(f"{name} must be a number, got {value!r} ({type(value).__name__})") from None
        if not (math.isfinite(number) and (number >= low if closed else number > low) and number <= high):
            bound = f"{'>=' if closed else '>'} {low:g}" + (f" and <= {high:g}" if math.isfinite(high) else "")
            raise SimulationError(f"{name} must be a finite number {bound}, got {value!r}")


def _sign_problems(forces) -> list[str]:
    problems = []
    for force in forces:
        name = getattr(force, "name", type(force).__name__)
        for attr in ("stiffness", "damping", "kt", "kr", "ct", "cr"):
            value = getattr(force, attr, None)
            if value is None or callable(value):
                continue
            try:
                array = np.asarray(value, dtype=float)
            except (TypeError, ValueError):
                continue
            if np.any(array < 0.0):
                kind = "stiffness" if attr in ("stiffness", "kt", "kr") else "damping"
                problems.append(f"force {name!r} has a negative {kind} ({attr} = {array.tolist()}): a {kind} must "
                                "be >= 0; check its sign and unit")
    return problems


def check_start(system, state) -> None:
    """Raise a one-line :class:`ModelError` listing the contradictions of the model at ``state`` (first three)."""
    problems = _sign_problems(system.forces)
    elements = [(k, e) for k, e in enumerate(system.elements) if hasattr(e, "plausibility")]
    if elements:
        # at rest at the placement (a start at rest): the kinematics found there (System.context)
        ctx = system.context(state.q, state.v, state.t)
        measured = {}
        for k, element in elements:
            z_e = state.z[system.z_offsets[k]:system.z_offsets[k + 1]]
            y, ydot, _ = measure(ctx, element.measurements, gradients=False)
            measured[k] = (y.copy(), ydot.copy())
            problems += list(element.plausibility(state.t, z_e, y, ydot))
        # the elements' measurements at the start, for their integral warnings at the run's end
        # (flexmbs.engine.integrals.Integrals.warnings: no second evaluation of the same state)
        system.start_measures = (state, measured)
    system._placement_kinematics = None  # the start is checked: the placement is not read again
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise ModelError("; ".join(problems[:3]) + more)


_EPS = float(np.finfo(float).eps)


def check_tolerances_resolvable(system, integrator, q: np.ndarray, z: np.ndarray) -> None:
    """One-line SimulationError when a tolerance asks for less than double precision can resolve in an unknown.

    The Newton iteration of a step stops when every update is below 1e-3 of its unknown's error scale
    (:meth:`GeneralizedAlpha._q_scale`); the updates cannot fall below the round-off ``ε |x|`` of the unknown
    (``ε`` = 2.2e-16; ``|x|``: a body's position magnitude or extent for its frame translations, 1 for Euler
    parameters, ``|z|`` for element states). A scale under ``ROUND_OFF_MARGIN ε |x|`` ended in "Newton iteration
    failed (diverging) … largest residual 1.1e-16" or a collapsing step size, neither of which names the cause.
    Measured on a 1 m pendulum with rtol 1e-12: atol 1e-15 runs (scale 4.5 ε), 3e-16 (1.35 ε) and 1e-16 fail.
    """
    eps = _EPS
    extents = _body_extents(system)
    # a bound first: every error scale is at least `low` (the kinds' absolute tolerances; the rotations' at least
    # atol), every round-off floor at most `high`; when low >= high no unknown can be below its floor
    # (in Python floats: the arrays are short, and numpy's reductions cost ≈ 4 µs of the start; a NaN left out of
    # a bound here makes no error below either)
    low = min([*integrator._scale_q.tolist(), *(integrator._scale_z.tolist() if z.size else ()),
               integrator.atol if integrator._rotation.size else math.inf])
    high = ROUND_OFF_MARGIN * eps * max([1.0, *extents, *map(abs, q.tolist()), *map(abs, z.tolist())])
    if low >= high:
        return
    magnitude = np.zeros(system.n_q)
    for body, length in zip(system.bodies, extents):
        o = body.offset
        magnitude[o:o + 3] = max(float(np.max(np.abs(q[o:o + 3]))), length)
        magnitude[o + 3:o + 7] = 1.0
    scale = np.concatenate([integrator._q_scale(q), integrator._z_scale(z) if z.size else np.zeros(0)])
    magnitude = np.concatenate([magnitude, np.abs(z)])
    floor = ROUND_OFF_MARGIN * eps * magnitude
    ratio = np.where(floor > 0.0, scale / np.where(floor > 0.0, floor, 1.0), np.inf)
    worst = int(np.argmin(ratio)) if ratio.size else 0
    if ratio.size and ratio[worst] < 1.0:
        name = equation_names(system)[worst].replace("motion of", "coordinate of")
        needed = 10.0 ** math.ceil(math.log10(integrator.atol * 10.0 / ratio[worst]))
        raise SimulationError(f"atol = {integrator.atol:g} (rtol = {integrator.rtol:g}) asks for {scale[worst]:.2g} "
                              f"in {name}, below the round-off of double precision there "
                              f"({eps * magnitude[worst]:.2g}): no step can converge; use atol >= {needed:g} "
                              "(or loosen the tolerances= entry of that kind)")
