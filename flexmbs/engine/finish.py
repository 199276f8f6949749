"""The end of a run, shared by :func:`flexmbs.simulate` and :class:`flexmbs.Run`: the last sample, the fallback
and element warnings, the plausibility guards, and the message of a failed Newton iteration."""
from __future__ import annotations

import warnings

import numpy as np

from fem.errors import FlexmbsError
from flexmbs.results import plausibility  # (at import: the import inside the guards cost ≈ 4 µs a run)

from .equations import newton_message  # (with the equations' names: the compiled run's failure says it)
from .initial import initial_accelerations

__all__ = ["SolverFallbackWarning", "record_sample", "run_warnings", "plausibility_guards", "newton_message"]


class SolverFallbackWarning(UserWarning):
    """The solver used a fallback (a start or a reaction computed another way than asked); stored in the results
    (``statistics["warnings"]``) and printed."""


def plausibility_guards(system, recorder, stats, parameters, limiting) -> list[str]:
    """Plausibility warnings of the run (issued as :class:`PlausibilityWarning` and stored in the results)."""
    try:
        found = plausibility.plausibility_warnings(system, recorder.extremes, stats, parameters, limiting)
    except Exception as exc:  # noqa: BLE001  a guard must never lose a run
        found = [f"plausibility checks could not run: {type(exc).__name__}: {exc}"]
    for text in found:
        warnings.warn(text, plausibility.PlausibilityWarning, stacklevel=3)
    return found


def run_warnings(system, integrals, stats) -> list[str]:
    """Fallbacks and element warnings of a run: issued as :class:`SolverFallbackWarning`, stored in ``stats``
    (the results file's ``solver`` attributes: ``warnings``, newline-separated, and one ``integral:NAME`` per
    integrated quantity)."""
    notes = list(system.fallback_notes)
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


def record_sample(recorder, system, state, h, iters, stats, integrals=None):
    """Record a sample. Reactions come from the acceleration-level equations at the sample's ``(q, q̇)``
    (``[M Φ_qᵀ; Φ_q 0] [q̈; λ] = [Q; γ]``): the index-3 multipliers of the integrator carry a parasitic
    oscillation after step-size changes, these do not."""
    ctx = system.context(state.q, state.v, state.t)
    phi = system.constraints(ctx)[0]
    violation = float(np.max(np.abs(phi), initial=0.0))
    stats["max_constraint_violation"] = max(stats["max_constraint_violation"], violation)
    lam = state.lam
    if system.n_c:
        try:
            lam = initial_accelerations(system, state.q, state.v, state.z, state.t, ctx=ctx)[1]
        except FlexmbsError:  # a singular instant: keep the integrator's multipliers
            lam = state.lam
            first, count = getattr(system, "reaction_fallbacks", (state.t, 0))
            system.reaction_fallbacks = (first, count + 1)
    ctx.lam = lam
    recorder.record(state.t, state.q, state.v, state.z, lam,
                    {"step_size": h, "newton_iterations": iters, "constraint_violation": violation}, ctx=ctx,
                    extra=integrals)
