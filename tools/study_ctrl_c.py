"""Ctrl-C at many times of a `flexmbs study`: the exit status and stderr of each run, counted.

Run: ``PYTHONPATH=. nice -n 19 python tools/study_ctrl_c.py --runs 100 [--group] [--after-records]`` (about 10 s a
run). Each run studies the test case ``spring-mass`` (tests/flexmbs/study_helpers.py, installed into a temporary
folder) with six variants on one worker (``hold_s=1.5``), sends SIGINT to the study's process (``--group``: to its
process group, as a terminal's Ctrl-C) after a random delay in 0..``--max-delay`` s (``--after-records``: 0-0.3 s
after its k-th finished record, k in 1..4, as the slow test does) and classifies the outcome:

* ``130, one line``: what a Ctrl-C must give (every finished record kept, the table has their rows);
* ``130, more lines``: tracebacks or Dask's log lines besides the message;
* ``ended before the signal``: the study had finished already;
* ``-2``: the process died by the signal (before Python ran flexmbs code, or while the interpreter exited);
* anything else: the exit status.

Not part of the test run (tests/flexmbs/test_study.py has the deterministic phases). Measured by h41c at load 5-8,
before the Ctrl-C fix: of 100 runs (random times, SIGINT to the process) 20 ended 130 with tracebacks or Dask error
lines and 13 took 6-16 s to end; of 40 terminal-style runs one ended 0 after running every variant (the
KeyboardInterrupt was raised in an import's weakref callback and only printed). A study started as a background job
of a shell script ignores SIGINT altogether (the exit 0 with an empty stderr of the CI's slow test).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "flexmbs"))
from study_helpers import make_case_package  # noqa: E402


def _finished(runs: pathlib.Path) -> list[dict]:
    records = []
    for path in runs.glob("[!.]*.json") if runs.is_dir() else []:
        try:
            records.append(json.loads(path.read_text()))
        except (OSError, ValueError):
            continue
    return [r for r in records if r.get("status") == "finished"]


def one_run(folder: pathlib.Path, site: pathlib.Path, rng: random.Random, args) -> tuple[str, str]:
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{ROOT}", FLEXMBS_COMPILE_NOTICE="0", OMP_NUM_THREADS="1")
    command = [sys.executable, "-m", "flexmbs", "study", "spring-mass", "--vary", "mass=1,1.5,2,2.5,3,3.5", "--set",
               "hold_s=1.5", "--workers", "1", "-o", str(folder), "--quiet"]
    proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    if args.after_records:
        k = rng.randint(1, 4)
        end = time.monotonic() + 600
        while time.monotonic() < end and proc.poll() is None and len(_finished(folder / "runs")) < k:
            time.sleep(0.05)
        time.sleep(rng.uniform(0.0, 0.3))
        when = f"after record {k}"
    else:
        delay = rng.uniform(0.0, args.max_delay)
        time.sleep(delay)
        when = f"at {delay:.2f} s"
    if proc.poll() is not None:
        proc.communicate()
        return "ended before the signal", when
    if args.group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return "hung (killed after 300 s)", when
    took = time.monotonic() - sent
    lines = err.strip().splitlines()
    kept = len(_finished(folder / "runs"))
    detail = f"{when}, ended {took:.1f} s later, {kept} records kept: {lines[-1][:100] if lines else ''}"
    if proc.returncode == 130:
        return ("130, one line" if len(lines) == 1 and lines[0].startswith("error: interrupted") else
                "130, more lines"), detail
    return str(proc.returncode), detail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--max-delay", type=float, default=20.0)
    parser.add_argument("--after-records", action="store_true")
    parser.add_argument("--group", action="store_true")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="study-ctrl-c-") as tmp:
        site = make_case_package(pathlib.Path(tmp) / "site")
        for i in range(args.runs):
            folder = pathlib.Path(tmp) / f"study-{i}"
            outcome, detail = one_run(folder, site, rng, args)
            counts[outcome] += 1
            print(f"{i:3d} {outcome}: {detail}", flush=True)
            shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(dict(counts)))


if __name__ == "__main__":
    main()
