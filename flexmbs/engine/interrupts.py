"""Ctrl-C while compiled code calls back into Python (docs/safety.md, "Ctrl-C in Python callbacks of the compiled
step": a ``KeyboardInterrupt`` raised in a callback inside the ctypes trampoline was printed, dropped, and the run
went on to its end). :class:`deferred_interrupt` replaces the handler for the length of one compiled call by one that
only notes the signal; the caller raises ``KeyboardInterrupt`` after the call, once its state is consistent (a call
lasts at most ~0.25 s, so Ctrl-C stops the run within a second). A second Ctrl-C during one call, or one while
numba compiles a kernel for its first use, raises at once.
"""
from __future__ import annotations

import _signal
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
        again, self.pending = self.pending, True  # noted first: a raise lost in a weakref callback is raised after
        if again or _compiling(frame):  # a second Ctrl-C, or numba compiling (minutes): stop now (issue 43)
            raise KeyboardInterrupt

    # ``_signal``'s functions, not ``signal``'s: the latter convert the handler to an enum and back on every call
    # (30 µs for both, against a short compiled call of a few ms; their checks are the same)
    def __enter__(self) -> "deferred_interrupt":
        if threading.current_thread() is threading.main_thread() and \
                _signal.getsignal(_SIGINT) is signal.default_int_handler:
            self._previous = _signal.signal(_SIGINT, self._note)
        return self

    def __exit__(self, *exc) -> bool:
        if self._previous is not None:
            _signal.signal(_SIGINT, self._previous)
            self._previous = None
        return False


_SIGINT = int(signal.SIGINT)


_COMPILER_NAMES = {"_compile_for_args", "compile_extra", "compile_ir", "_compile_core", "run_pass", "_runPass",
                   "compile_cfunc", "_compile_cached"}


def _compiling(frame, depth: int = 400) -> bool:
    """Whether the interrupted Python code is numba compiling a kernel (its first use in a process can take a
    minute of CPU; the deferred Ctrl-C waited for it: the run went on 30 s and more after Ctrl-C, issue 43). There
    is no ctypes trampoline between that code and the caller, so the KeyboardInterrupt travels up normally."""
    while frame is not None and depth > 0:
        code = frame.f_code
        if code.co_name in _COMPILER_NAMES and "numba" in code.co_filename:
            return True
        frame, depth = frame.f_back, depth - 1
    return False
