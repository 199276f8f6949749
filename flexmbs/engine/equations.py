"""Names of the equations of the Newton system (and the message of a failed Newton iteration, naming the worst)
and the constants of the consistent reactions, shared by the start
(:mod:`flexmbs.engine.initial`) and the compiled run (:mod:`flexmbs.engine.plan`,
:mod:`flexmbs.engine.loop`) without importing either."""
from __future__ import annotations

import numpy as np

__all__ = ["constraint_row_owner", "equation_name", "equation_names", "newton_message", "REACTION_PASSES",
           "REACTION_RTOL"]

REACTION_PASSES, REACTION_RTOL = 50, 1e-10  # fixed point of the friction-dependent reactions (initial_accelerations)


def constraint_row_owner(system, row: int) -> str:
    """Name of the joint (or body normalization) that owns constraint ``row`` of the kept (independent) rows."""
    if system.row_keep is not None:
        row = int(system.row_keep[row])
    if row < len(system.bodies):
        return f"Euler-parameter normalization of body {system.bodies[row].name!r}"
    for joint in system.joints:
        if joint.offset <= row < joint.offset + joint.n_equations:
            return f"joint {joint.name!r} (row {row - joint.offset})"
    return f"constraint row {row}"


def equation_names(system) -> list[str]:
    """Names of all equations in the order of the Newton system: coordinates, states, constraints."""
    return [equation_name(system, row) for row in range(system.n_q + system.n_z + system.n_c)]


def equation_name(system, row: int) -> str:
    """The name of equation ``row`` of the Newton system (the run's end names only the equations that limited
    steps)."""
    for body in system.bodies:
        if row < 7:
            return f"motion of body {body.name!r} ({('x', 'y', 'z', 'e0', 'e1', 'e2', 'e3')[row]})"
        if row < 7 + body.n_modes:
            return f"motion of body {body.name!r} (mode {row - 7 + 1})"
        row -= 7 + body.n_modes
    for element in system.elements:
        states = element.state_names
        if row < len(states):
            return f"state {states[row]!r} of element {element.name!r}"
        row -= len(states)
    return constraint_row_owner(system, row)


def newton_message(system, t, h, failure) -> str:
    """The message of a failed Newton iteration (an :class:`~flexmbs.engine.integrator.NewtonFailure`): why, when,
    and the equation of the largest residual."""
    names = equation_names(system)
    worst = int(np.nanargmax(np.where(np.isfinite(failure.residual), np.abs(failure.residual), np.inf)))
    return (f"Newton iteration failed ({failure.reason}) at t = {t:.6g} s with step {h:.3g} s; largest residual "
            f"{abs(failure.residual[worst]):.3g} in {names[worst]}")
