"""Ctrl-C while a C library works without coming back to Python (gmsh meshing).

Python runs its Ctrl-C handler between bytecodes, so a long call into C (gmsh's ``generate``) would defer the
``KeyboardInterrupt`` until it returns; gmsh's own answer (``interruptible=True``) is to restore the default action,
and the process died by the signal without a line, leaving its temporary file (issue 43). :func:`exit_on_interrupt`
watches Python's wakeup file descriptor from a thread (a ctypes call releases the GIL): on Ctrl-C it removes the
command's temporaries, prints one ``error:`` line saying what was kept and ends the process with status 130.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading

__all__ = ["exit_on_interrupt"]


@contextlib.contextmanager
def exit_on_interrupt(message: str, temporaries=()):
    """Within the block, Ctrl-C ends the process at once with ``error: interrupted: MESSAGE`` (exit 130) after
    removing ``temporaries`` (names from :func:`flexmbs.results.safe_files.atomic_output`). Only in the main thread
    over Python's own Ctrl-C handler; elsewhere the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (ValueError, OSError):  # not the main interpreter
        os.close(read_end)
        os.close(write_end)
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while True:
            try:
                data = os.read(read_end, 64)
            except OSError:
                return
            if not data or done.is_set():
                return
            if signal.SIGINT in data:
                for path in temporaries:
                    with contextlib.suppress(OSError, TypeError):
                        os.unlink(path)
                sys.stderr.write(f"error: interrupted: {message}\n")
                sys.stderr.flush()
                os._exit(130)

    watcher = threading.Thread(target=watch, name="flexmbs-ctrl-c", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        signal.set_wakeup_fd(previous)
        os.close(write_end)  # the watcher reads the end of the pipe and returns
        watcher.join(1.0)
        os.close(read_end)
