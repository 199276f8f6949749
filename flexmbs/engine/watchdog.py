"""The progress watchdog of :func:`flexmbs.simulate`: a run whose step size stays below a floor for a stretch of
wall time is stopped with one line naming the likely cause, and keeps its results so far; a run that crawls gets one
``note: slow progress ...`` line (docs/safety.md, "Crawls"). The wall clock is read every ``every`` step attempts
only, so the watchdog costs nothing measurable per step.

Time spent compiling kernels (:func:`flexmbs_jit.notice.compile_seconds`) is left out of the pace and kept as
:attr:`Watchdog.compile_seconds` (the run's statistics ``compile_time_s``): a first run that compiled for two minutes
predicted "56 min more" one second before it ended.
"""
from __future__ import annotations

import math
import sys
import time as _time

from fem.errors import FlexmbsError, SimulationError
from flexmbs_jit.notice import compile_seconds

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

    def __init__(self, t_end: float, stall_step: float | None = None, stall_window: float = 60.0, every: int = 32,
                 notice_after: float = 60.0, notice=None):
        self.floor = 1e-9 * t_end if stall_step is None else float(stall_step)
        if not (math.isfinite(self.floor) and self.floor >= 0.0):
            raise FlexmbsError(f"stall_step must be a finite step size >= 0 in s, got {stall_step}")
        if not (math.isfinite(stall_window) and stall_window >= 0.0):
            raise FlexmbsError(f"stall_window must be a finite time >= 0 in s, got {stall_window}")
        self.window, self.every = float(stall_window), max(1, int(every))
        self._count, self._since = 0, None
        self.t_end, self.notice_after = float(t_end), float(notice_after)
        self._notice = notice or (lambda text: print(text, file=sys.stderr, flush=True))
        self._start, self._noticed = _time.monotonic(), False
        self._compiling = compile_seconds()  # time spent compiling kernels is not the run's pace (issue 42)
        self._compile_begin = None
        self.compile_seconds = 0.0  # s spent compiling kernels between begin_compile_note and the first step

    def begin_compile_note(self) -> None:
        """Mark the start of the run's first step: kernels that compile until :meth:`end_compile_note` (numba's
        first use of a kind of model, announced by :mod:`flexmbs_jit.notice`) are counted in
        :attr:`compile_seconds`."""
        self._compile_begin = compile_seconds()

    def end_compile_note(self) -> None:
        """End the count of :meth:`begin_compile_note` (idempotent)."""
        if self._compile_begin is not None:
            self.compile_seconds = compile_seconds() - self._compile_begin
            self._compile_begin = None

    def check(self, h: float, t: float, causes, attempts: int = 1) -> None:
        """Call once per step attempt (or once per ``attempts`` of them: the compiled step) with the current step
        size ``h`` (s) and time ``t`` (s); ``causes()`` returns ``{equation name: rejected steps}``. Raises
        :class:`StalledError` when the run stalled."""
        if self._compile_begin is not None:
            self.end_compile_note()
        before = self._count
        self._count += attempts
        if self._count // self.every == before // self.every:
            return
        now = _time.monotonic()
        running = now - self._start - (compile_seconds() - self._compiling)
        if not self._noticed and running >= self.notice_after:
            self._slow_notice(running, h, t, causes)
        if h >= self.floor:
            self._since = None
            return
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

    def _slow_notice(self, elapsed: float, h: float, t: float, causes) -> None:
        """Say once, in one line, that the run crawls (at the rate so far, more than 5 min and more than twice the
        elapsed wall time still to go)."""
        self._noticed = True
        remaining = elapsed * (self.t_end - t) / t if t > 0.0 else math.inf
        if remaining < max(300.0, 2.0 * elapsed):
            return
        counted = causes()
        cause = f", limited by {max(counted, key=counted.get)!r}" if counted else ""
        more = f"about {remaining / 60.0:.0f} min more" if math.isfinite(remaining) else "no estimate of the rest"
        self._notice(f"note: slow progress: t = {t:.4g} s of {self.t_end:.4g} s after {elapsed:.0f} s of wall time "
                     f"(step {h:.3g} s{cause}); at this rate {more}; Ctrl-C stops the run and keeps the results so "
                     "far")
