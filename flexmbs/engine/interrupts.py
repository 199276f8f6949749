"""Ctrl-C while compiled code calls back into Python.

Python runs its SIGINT handler at the next bytecode it executes. During a compiled call that is the first line of a
Python callback (a time function, a user's force element), where the ``KeyboardInterrupt`` is raised *inside the
ctypes trampoline*: ctypes prints ``Exception ignored on calling ctypes callback function`` and drops it, and the run
went on to its end. :class:`deferred_interrupt` replaces the handler for the length of one compiled call by one that
only notes the signal; the caller raises ``KeyboardInterrupt`` after the call, once its state is consistent (a call
lasts at most ~0.25 s, so Ctrl-C stops the run within a second).
"""
from __future__ import annotations

import signal
import threading

__all__ = ["deferred_interrupt"]


class deferred_interrupt:  # noqa: N801  (used as a context manager, like contextlib's)
    """``with deferred_interrupt() as ctrl_c: compiled_call()`` then ``if ctrl_c.pending: raise KeyboardInterrupt``.

    Only in the main thread and only over Python's own Ctrl-C handler (a program's own handler, or a worker
    thread, is left alone)."""

    def __init__(self):
        self.pending = False
        self._previous = None

    def _note(self, signum, frame) -> None:
        self.pending = True

    def __enter__(self) -> "deferred_interrupt":
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._previous = signal.signal(signal.SIGINT, self._note)
        return self

    def __exit__(self, *exc) -> bool:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
            self._previous = None
        return False
