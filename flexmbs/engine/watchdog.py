"""The progress watchdog of :func:`flexmbs.simulate`: a run whose simulated time stops advancing is stopped with one
line naming the likely cause, and keeps its results so far (docs/safety.md, "Crawls").

"Stops advancing" means: the step size stays below a floor (``stall_step``, default 1e-9 of the end time) for a
stretch of wall time (``stall_window``, default 60 s). The wall clock is read every ``every`` step attempts only,
so the watchdog costs nothing measurable per step.
"""
from __future__ import annotations

import math
import time as _time

from fem.errors import FlexmbsError, SimulationError

__all__ = ["Watchdog", "StalledError", "MAX_STEPS_LIMIT"]

MAX_STEPS_LIMIT = 10 ** 9  # more steps than any run of this project could take in a day


class StalledError(SimulationError):
    """A run made no progress: its step size stayed below the floor for the whole stall window."""


class Watchdog:
    """Stall detector of one run.

    Parameters
    ----------
    t_end : float, s
    stall_step : float, s, optional
        Step-size floor (default ``1e-9 * t_end``).
    stall_window : float, s
        Wall time the step size may stay below the floor (0: stop at the first check below it).
    every : int
        Step attempts between two looks at the wall clock.
    """

    def __init__(self, t_end: float, stall_step: float | None = None, stall_window: float = 60.0, every: int = 32):
        self.floor = 1e-9 * t_end if stall_step is None else float(stall_step)
        if not (math.isfinite(self.floor) and self.floor >= 0.0):
            raise FlexmbsError(f"stall_step must be a finite step size >= 0 in s, got {stall_step}")
        if not (math.isfinite(stall_window) and stall_window >= 0.0):
            raise FlexmbsError(f"stall_window must be a finite time >= 0 in s, got {stall_window}")
        self.window, self.every = float(stall_window), max(1, int(every))
        self._count, self._since = 0, None

    def check(self, h: float, t: float, causes) -> None:
        """Call once per step attempt with the current step size ``h`` (s) and time ``t`` (s); ``causes()``
        returns ``{equation name: rejected steps}``. Raises :class:`StalledError` when the run stalled."""
        self._count += 1
        if self._count % self.every:
            return
        if h >= self.floor:
            self._since = None
            return
        now = _time.monotonic()
        if self._since is None:
            self._since = now
        if now - self._since >= self.window:
            counted = causes()
            cause = max(counted, key=counted.get) if counted else None
            hint = (f"the equation of {cause!r} limits the step ({counted[cause]} rejected steps): check the "
                    "parameters it depends on (a huge load, stiffness or pressure, or a discontinuity)"
                    if cause else "check for a huge load, stiffness or pressure, or a discontinuity")
            raise StalledError(f"no progress: the step size stayed below {self.floor:.3g} s for "
                               f"{now - self._since:.0f} s of wall time at t = {t:.6g} s; {hint}; the results "
                               "up to there are kept")
