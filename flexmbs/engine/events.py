"""Located events: contact onsets as roots of gap functions, found by the integrator, not by the output grid
(docs/theory-multibody.md, "Events").

Elements that open or close a contact (end stops, hard stops, plane contacts, cylinder end stops) offer *gap
functions*: ``g > 0`` while the contact is open, ``g ≤ 0`` once it is closed, and the rate ``ġ``. A force element
implements ``event_gaps(ctx) -> {name: (g, ġ)}``, a state element ``event_gaps(t, z, y, ẏ) -> {name: (g, ġ)}``
(both optional; see docs/element-protocol.md).

After every accepted step ``[t₀, t₁]`` the gaps at ``t₁`` are evaluated. A gap that went from open (by more than
:data:`REARM_GAP` since its last closure, so round-off chatter of a contact resting at zero gap is no impact) to
closed has its root located on the step's interpolant (cubic Hermite; Brent's method to ``tolerance / 4``); a step
that ends more than ``tolerance`` after the root is repeated with its end ``tolerance / 2`` after it. The event's
time and gap rate (impact speed) are read from the interpolant *at the root*; :func:`read_events` reads the events
of a ``Results`` in memory or from its file.
"""
from __future__ import annotations

import json

import numpy as np

from .system import measure

__all__ = ["EventLocator", "read_events", "interpolate_state", "owner_gaps", "MAX_RESTEPS"]

MAX_RESTEPS = 8  # re-steps onto one root before the event is taken from the interpolant of a longer step
REARM_GAP = 1.0e-6  # m (rad for angular stops): a contact must open this far before its next onset counts


def _hermite(t0, t1, y0, y1, d0, d1, t):
    """Cubic Hermite value and derivative at ``t`` between ``(t0, y0, d0)`` and ``(t1, y1, d1)``."""
    h = t1 - t0
    s = (t - t0) / h
    h00, h10, h01, h11 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s, -2 * s**3 + 3 * s**2, s**3 - s**2
    d00, d10, d01, d11 = 6 * s**2 - 6 * s, 3 * s**2 - 4 * s + 1, -6 * s**2 + 6 * s, 3 * s**2 - 2 * s
    value = h00 * y0 + h10 * h * d0 + h01 * y1 + h11 * h * d1
    rate = (d00 * y0 + d01 * y1) / h + d10 * d0 + d11 * d1
    return value, rate


def interpolate_state(old, new, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``q``, ``q̇``, ``z`` at ``t`` in ``[old.t, new.t]`` (cubic Hermite; ``q̇`` is the interpolant's derivative)."""
    q, v = _hermite(old.t, new.t, old.q, new.q, old.v, new.v, t)
    z, _ = _hermite(old.t, new.t, old.z, new.z, old.zd, new.zd, t)
    return q, v, z


def owner_gaps(system, forces, elements, context, t, z):
    """``(owner's name, its gaps {name: (g, ġ)})`` of the force elements ``forces`` and the state elements
    ``elements`` (indices) at ``context()`` (made on first use) and ``(t, z)``: one walk for the locator's gaps and
    the compiled step's gap callback (:mod:`flexmbs.engine.plan`)."""
    for force in forces:
        yield force.name, force.event_gaps(context())
    offsets = system.z_offsets
    for k in elements:
        element = system.elements[k]
        y, ydot, _ = measure(context(), element.measurements)
        yield element.name, element.event_gaps(t, z[offsets[k]:offsets[k + 1]], y, ydot)


class EventLocator:
    """Gap functions of a system and the location of their roots (see the module docstring)."""

    def __init__(self, system, tolerance: float):
        self.system = system
        self.tolerance = float(tolerance)
        self.forces = [f for f in system.forces if hasattr(f, "event_gaps")]
        self.elements = [k for k, e in enumerate(system.elements) if hasattr(e, "event_gaps")]
        self.events: list[dict] = []
        self._armed: dict[str, bool] = {}

    @property
    def active(self) -> bool:
        return bool(self.forces or self.elements)

    def gaps(self, t: float, q: np.ndarray, v: np.ndarray, z: np.ndarray) -> dict[str, tuple[float, float]]:
        """``{element.gap: (g, ġ)}`` at one state."""
        ctx = self.system.context(q, v, t)
        return {f"{owner}.{name}": (float(g), float(rate)) for owner, gaps in
                owner_gaps(self.system, self.forces, self.elements, lambda: ctx, t, z)
                for name, (g, rate) in gaps.items()}

    def start(self, state) -> None:
        self._rearm(self.gaps(state.t, state.q, state.v, state.z))

    def _rearm(self, gaps: dict) -> None:
        """A gap is armed once it is open by more than :data:`REARM_GAP` and stays armed while it is open: a
        contact resting at zero gap (an unloaded guide, a settled stop) chatters around ``g = 0`` by round-off, and
        each of those sign changes would otherwise be located as an impact (thousands of re-steps)."""
        for name, (g, _) in gaps.items():
            self._armed[name] = g > REARM_GAP or (g > 0.0 and self._armed.get(name, False))

    def check(self, old, new) -> tuple[float | None, dict]:
        """Earliest onset in the step ``old → new``: ``(t_root, event)`` or ``(None, gaps at new)``."""
        now = self.gaps(new.t, new.q, new.v, new.z)
        closing = [name for name, (g, _) in now.items() if g <= 0.0 and self._armed.get(name, False)]
        if not closing:
            return None, now
        best = None
        for name in closing:
            def gap(t, name=name):
                if t >= new.t:
                    return now[name][0]
                return self.gaps(t, *interpolate_state(old, new, t))[name][0]

            # the interpolant may close slightly earlier or later than the step end: bracket on [t₀, t₁]
            from scipy.optimize import brentq  # here: scipy.optimize costs 0.25 s of `import flexmbs`

            root = new.t if gap(new.t) == 0.0 else brentq(gap, old.t, new.t, xtol=0.25 * self.tolerance,
                                                          rtol=4 * np.finfo(float).eps)
            if best is None or root < best[0]:
                best = (root, name)
        root, name = best
        q, v, z = interpolate_state(old, new, root) if root < new.t else (new.q, new.v, new.z)
        g, rate = self.gaps(root, q, v, z)[name]
        event = {"name": name, "kind": "contact_onset", "time": float(root), "gap": g, "gap_rate": rate,
                 "step_end": float(new.t), "located": bool(new.t - root <= self.tolerance)}
        return root, {"event": event, "gaps": now}

    def accept(self, gaps: dict, event: dict | None = None) -> None:
        self._rearm(gaps)
        if event is not None:
            self.events.append(event)


def read_events(results) -> list[dict]:
    """The located events of a :class:`~flexmbs.results.results.Results` (in memory or loaded from a file)."""
    events = getattr(results, "events", None)
    if events is not None:
        return list(events)
    stored = (getattr(results, "statistics", None) or {}).get("events")
    return json.loads(stored) if isinstance(stored, str) else []
