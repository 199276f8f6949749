"""Peak resident memory of `flexmbs run excavator` for a short and a ten times longer simulated time.

Results are streamed to disk in chunks (a scratch file when no -o is given), so the peak should not grow with the
simulated time. Each run is measured in its own child process (peak RSS of that process tree, from getrusage).

    python benchmarks/memory.py            # 12 s and 120 s of the digging task (the long one takes minutes)
    python benchmarks/memory.py 2 20       # other end times
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

PROBE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
if done.returncode:
    sys.exit(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_rss_mb(t_end: float) -> tuple[float, float]:
    """Peak RSS (MB) and wall time (s) of one `flexmbs run excavator --t-end t_end` in a fresh process."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", PROBE, sys.executable, "-m", "flexmbs", "run", "excavator",
                          "--t-end", str(t_end), "--quiet"], cwd=root, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"run --t-end {t_end} failed: {out.stderr.strip()}")
    return int(out.stdout.strip()) / 1024.0, time.perf_counter() - start


def main(argv) -> None:
    short, long = (float(a) for a in argv) if len(argv) == 2 else (12.0, 120.0)
    rows = []
    for t in (short, long):
        rows.append((t, *peak_rss_mb(t)))
        print(f"flexmbs run excavator --t-end {t:g}: peak RSS {rows[-1][1]:.1f} MB, {rows[-1][2]:.1f} s wall",
              flush=True)
    ratio = rows[1][1] / rows[0][1]
    print(f"peak RSS ratio {long:g} s / {short:g} s: {ratio:.3f} ({100 * (ratio - 1):+.1f} %; target within 20 %)")


if __name__ == "__main__":
    main(sys.argv[1:])
