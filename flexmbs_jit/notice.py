"""One line on stderr whenever the project's kernels compile (issue 42, "say it").

numba compiles silently; the first run after an installation without a built cache sat at 0 % for minutes. Now the
first compile of a process prints what compiles and roughly how long it takes::

    flexmbs: compiling the compiled engine for this computer (advance, first use; about 35 s of CPU, once per
    installation and CPU; Ctrl-C stops it)

The estimate is the last full compile measured on this computer (kept beside the kernel cache), else
:data:`TYPICAL_SECONDS`. ``FLEXMBS_COMPILE_NOTICE=0`` silences it (the test suite does, where it checks that
errors are one line). The total compile time of the process is :func:`compile_seconds` (the watchdog leaves it out
of a run's pace).
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time

from numba.core import event

from .cache import ROOT, kernel_cache_dir

__all__ = ["announce", "compile_seconds", "TYPICAL_SECONDS", "install"]

TYPICAL_SECONDS = 40  # CPU seconds of a full compile of the engine on the 2-core reference machine (docs/benchmarks.md)
_state = {"announced": False, "depth": 0, "start": 0.0, "total": 0.0, "name": ""}
_lock = threading.Lock()


def _enabled() -> bool:
    return os.environ.get("FLEXMBS_COMPILE_NOTICE", "1").strip().lower() not in ("0", "false", "no", "off")


def _times_file():
    return kernel_cache_dir().parent / "compile-seconds.json"


def _estimate() -> float:
    try:
        return float(json.loads(_times_file().read_text())["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return float(TYPICAL_SECONDS)


def announce(what: str) -> None:
    """Print the compile notice for ``what`` (once per process)."""
    if _state["announced"]:
        return
    _state["announced"] = True
    if not _enabled():
        return
    seconds = _estimate()
    rough = f"about {max(5, int(round(seconds / 5.0)) * 5)} s" if seconds < 100 else f"about {seconds / 60:.0f} min"
    line = (f"flexmbs: compiling the compiled engine for this computer ({what}, first use; {rough} of CPU, once per "
            "installation and CPU; Ctrl-C stops it)")
    bars = sys.modules.get("tqdm")
    if bars is not None and getattr(bars.tqdm, "_instances", None):  # a progress bar on the line: the notice on its
        bars.tqdm.write(line, file=sys.stderr)  # own line above it (it was appended to the bar's line, unseen)
    else:
        print(line, file=sys.stderr, flush=True)


def compile_seconds() -> float:
    """Wall seconds this process has spent compiling the project's kernels so far."""
    with _lock:
        running = time.perf_counter() - _state["start"] if _state["depth"] else 0.0
        return _state["total"] + running


def _ours(dispatcher) -> bool:
    path = getattr(getattr(dispatcher, "py_func", None), "__code__", None)
    return path is not None and os.path.abspath(path.co_filename).startswith(str(ROOT) + os.sep)


class _Listener(event.Listener):
    def on_start(self, ev):
        dispatcher = ev.data.get("dispatcher")
        with _lock:
            _state["depth"] += 1
            if _state["depth"] > 1:
                return
            _state["start"] = time.perf_counter()
            _state["cpu"] = time.process_time()
            _state["name"] = getattr(getattr(dispatcher, "py_func", None), "__name__", "kernels")
        if _ours(dispatcher):
            announce(_state["name"])

    def on_end(self, ev):
        with _lock:
            _state["depth"] -= 1
            if _state["depth"]:
                return
            spent = time.perf_counter() - _state["start"]
            cpu = time.process_time() - _state["cpu"]
            _state["total"] += spent
        if cpu > 10.0:  # a full compile of the engine: its CPU time is the next notice's estimate
            try:
                _times_file().write_text(json.dumps({"seconds": round(cpu, 1), "what": _state["name"],
                                                     "date": time.strftime("%Y-%m-%d %H:%M")}))
            except OSError:
                pass


_installed = False


def install() -> None:
    """Listen to numba's compile events (once)."""
    global _installed
    if not _installed:
        _installed = True
        event.register("numba:compile", _Listener())
