"""Run a benchmark body several times in fresh processes; report the median wall time and peak memory."""
from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import numpy as np


def measure(func, *args) -> dict:
    """Time ``func(*args)`` in this process; peak resident memory of the process (MB)."""
    start = time.perf_counter()
    info = func(*args) or {}
    info["wall_s"] = time.perf_counter() - start
    info["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return info


def repeat_in_subprocesses(script: str, args: list[str], runs: int) -> dict:
    """Run ``script --once args`` ``runs`` times; median of wall time and peak memory."""
    results = []
    for k in range(runs):
        out = subprocess.run([sys.executable, script, "--once", *args], capture_output=True, text=True, check=True)
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(f"run {k + 1}/{runs}: {results[-1]['wall_s']:.1f} s, {results[-1]['peak_mb']:.0f} MB", file=sys.stderr)
    summary = dict(results[-1])
    summary["wall_s_median"] = statistics.median(r["wall_s"] for r in results)
    summary["peak_mb_median"] = statistics.median(r["peak_mb"] for r in results)
    summary["runs"] = runs
    summary["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    return summary


def time_at_error(runs: list, error: float, key: str, error_key: str = "error_N") -> float | None:
    """log-log interpolation of the work–precision curve (``r[error_key]``, ``r[key]``) at ``error``; None outside
    the measured range."""
    pts = sorted((r[error_key], r[key]) for r in runs)
    e = np.log([p[0] for p in pts])
    w = np.log([p[1] for p in pts])
    le = np.log(error)
    if le < e.min() or le > e.max():
        return None
    return float(np.exp(np.interp(le, e, w)))
