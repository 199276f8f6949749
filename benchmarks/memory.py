"""Peak resident memory: of `flexmbs run excavator` for a short and a ten times longer simulated time, or of
`flexmbs reduce` phase by phase (issue 46).

Results are streamed to disk in chunks (a scratch file when no -o is given), so the peak should not grow with the
simulated time. Each run is measured in its own child process (peak RSS of that process tree, from getrusage).

    python benchmarks/memory.py            # 12 s and 120 s of the digging task (the long one takes minutes)
    python benchmarks/memory.py 2 20       # other end times
    python benchmarks/memory.py reduce BAR.msh [REDUCE OPTIONS]   # e.g. --solver iterative --compare 0

The reduce mode runs ``flexmbs reduce BAR.msh --material steel --interface a=group:end_x0 --interface
b=group:end_x1 --modes 20`` (a bar of ``flexmbs mesh bar``) in one child process that samples its own resident set
every 20 ms and prints each progress line with the wall and CPU time, the resident memory then and the peak since the
line before (so the peak of each phase is on the line that ends it), then the whole run's peak (getrusage, KiB/1e6,
the unit of /usr/bin/time's figures in docs/benchmarks.md) and the load average.
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


PHASES = r"""
import os, resource, sys, tempfile, threading, time
import psutil

proc = psutil.Process()
state = {"peak": 0, "t0": time.perf_counter(), "c0": time.process_time()}


def sample():
    while True:
        state["peak"] = max(state["peak"], proc.memory_info().rss)
        time.sleep(0.02)


threading.Thread(target=sample, daemon=True).start()


def mark(text):
    rss = proc.memory_info().rss
    print(f"{time.perf_counter() - state['t0']:8.1f} s {time.process_time() - state['c0']:8.1f} s cpu "
          f"{rss / 1e9:6.2f} GB {max(state['peak'], rss) / 1e9:6.2f} GB  {text}", flush=True)
    state["peak"] = 0


import fem.mesh, fem.model, flexmbs.cli.reduce as cli
for module, name in ((fem.mesh, "load_mesh"), (fem.model, "solid_model")):
    def timed(*a, _f=getattr(module, name), _n=name, **k):
        mark(f"start: {_n}")
        out = _f(*a, **k)
        mark(f"end: {_n}")
        return out
    setattr(module, name, timed)
cli.log = mark
from flexmbs.cli.app import main

with tempfile.TemporaryDirectory() as tmp:
    print(f"{'wall':>10} {'CPU':>12} {'RSS':>9} {'peak':>9}  phase (the peak since the line before)")
    main(["reduce", sys.argv[1], "-o", os.path.join(tmp, "body.flex.h5"), "--material", "steel", "--interface",
          "a=group:end_x0", "--interface", "b=group:end_x1", "--modes", "20", *sys.argv[2:]], standalone_mode=False)
    mark("end")
usage = resource.getrusage(resource.RUSAGE_SELF)
print(f"peak RSS {usage.ru_maxrss / 1e6:.2f} GB (KiB/1e6), user {usage.ru_utime:.1f} s, system {usage.ru_stime:.1f} s, "
      f"load average {os.getloadavg()[0]:.2f}")
"""


def reduce_phases(argv) -> None:
    """Per-phase resident memory of one ``flexmbs reduce`` of a bar mesh in a fresh process (module docstring)."""
    if not argv:
        raise SystemExit("usage: python benchmarks/memory.py reduce MESH [REDUCE OPTIONS]")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print(f"load average before {os.getloadavg()[0]:.2f}", flush=True)
    done = subprocess.run([sys.executable, "-c", PHASES, *argv], cwd=root, text=True, stderr=subprocess.STDOUT)
    if done.returncode:
        raise SystemExit(f"reduce failed (exit {done.returncode})")


def main(argv) -> None:
    if argv and argv[0] == "reduce":
        reduce_phases(argv[1:])
        return
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
