"""A user's own case package, installed the way pip installs one (package + ``*.dist-info/entry_points.txt``) into a
temporary folder that the tests put on ``PYTHONPATH`` of ``flexmbs`` subprocesses; and helpers to run them."""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

WORKTREE = pathlib.Path(__file__).resolve().parents[2]

# A mass on a bushing (1 translational dof of interest): released with speed v0 it oscillates with
# T = 2 pi sqrt(m / k) and amplitude v0 / omega. `hold_s` and `pid_dir` are test hooks: a pause before the run
# (so that a test can interrupt the study or kill the worker mid-task) and a file with the worker's process id.
# `gate_dir`: a variant runs only with a token, a file <gate_dir>/token.* it takes (deletes), or once the file
# <gate_dir>/open exists, so that a test decides how many variants can finish before it interrupts the study, however
# loaded the machine. `exit_hold_s`: the worker process writes <pid_dir>/exit.<pid> when it exits and pauses there
# until <gate_dir>/exit-open exists, at most `exit_hold_s` (a test interrupts the study while Dask closes its cluster).
CASE_SOURCE = textwrap.dedent('''
    """Case ``spring-mass``: a mass on a bushing released with an initial speed (a user's own case)."""
    import atexit
    import glob
    import math
    import os
    import time

    import numpy as np

    import flexmbs as fm

    NAME = "spring-mass"
    DESCRIPTION = "A mass on a spring released with an initial speed (test package)"
    DEFAULTS = {"mass": 2.5, "stiffness": 4.0e4, "initial_speed": 0.05, "t_end": 0.1, "hold_s": 0.0, "pid_dir": "",
                "gate_dir": "", "exit_hold_s": 0.0}
    _AT_EXIT = []


    def _hold_exit(pid_dir, gate_dir, seconds):
        if pid_dir:
            open(os.path.join(pid_dir, f"exit.{os.getpid()}"), "w").close()
        end = time.monotonic() + seconds
        while time.monotonic() < end and not (gate_dir and os.path.exists(os.path.join(gate_dir, "exit-open"))):
            time.sleep(0.05)


    def _take_token(gate_dir):
        end = time.monotonic() + 600  # hang protection only
        while not os.path.exists(os.path.join(gate_dir, "open")) and time.monotonic() < end:
            for token in glob.glob(os.path.join(gate_dir, "token.*")):
                try:
                    os.unlink(token)
                    return
                except FileNotFoundError:  # another worker took it
                    continue
            time.sleep(0.05)


    def run(params, t_end=None, out=None, progress=False):
        p = {**DEFAULTS, **(params or {})}
        if not p["mass"] > 0.0:
            raise fm.ModelError(f"spring-mass: mass must be positive, got {p['mass']}")
        if p["pid_dir"]:
            tag = os.path.basename(out or "run").split(".")[0]
            with open(os.path.join(p["pid_dir"], f"{tag}.{os.getpid()}.pid"), "w") as handle:
                handle.write(str(os.getpid()))
        if p["exit_hold_s"] and not _AT_EXIT:
            _AT_EXIT.append(atexit.register(_hold_exit, p["pid_dir"], p["gate_dir"], p["exit_hold_s"]))
        if p["gate_dir"]:
            _take_token(p["gate_dir"])
        time.sleep(p["hold_s"])
        wall0 = time.perf_counter()
        m, k, v0 = p["mass"], p["stiffness"], p["initial_speed"]
        model = fm.Model(NAME)
        body = model.add_rigid_body("mass", mass=m, inertia=(0.1, 0.1, 0.1), velocity=(0.0, v0, 0.0))
        model.add_force(fm.Bushing(model.add_marker(model.ground, "base"), model.add_marker(body, "mount"),
                                   translational_stiffness=(k, k, k), rotational_stiffness=(1e3, 1e3, 1e3)))
        t_end = float(t_end if t_end is not None else p["t_end"])
        res = fm.simulate(model, t_end, rtol=1e-6, atol=1e-9, output=out, case=NAME, parameters=p)
        y = res["body/mass/position"][1:, 1]
        t = res.time[1:]
        s = np.sign(y)
        i = np.flatnonzero(s[:-1] * s[1:] < 0)
        crossings = t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i])
        return {"case": NAME, "t_end": float(res.time[-1]), "steps": int(res.statistics.get("steps", 0)),
                "wall_s": time.perf_counter() - wall0,
                "max_constraint_violation": float(res.statistics.get("max_constraint_violation", 0.0)),
                "outputs": {"period_s": float(2.0 * np.mean(np.diff(crossings))),
                            "amplitude_m": float(np.max(np.abs(y))),
                            "worker_pid": os.getpid()}}
''')


def make_case_package(root: pathlib.Path) -> pathlib.Path:
    """Write the package ``my_machines`` and its ``dist-info`` (entry point ``flexmbs.cases``) under ``root``."""
    pkg = root / "my_machines"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "spring_mass.py").write_text(CASE_SOURCE)
    info = root / "my_machines-0.1.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-machines\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[flexmbs.cases]\nspring-mass = my_machines.spring_mass\n")
    return root


def environment(site: pathlib.Path | None = None) -> dict:
    """Environment of a subprocess: the user's package (if any) and this worktree first on the path, one thread."""
    paths = ([str(site)] if site else []) + [str(WORKTREE)]
    env = dict(os.environ)
    env.update(PYTHONPATH=os.pathsep.join(paths + [env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return env


def flexmbs(args, site=None, timeout=600, **kwargs) -> subprocess.CompletedProcess:
    """``python -m flexmbs ARGS`` in a subprocess (bounded by ``timeout``)."""
    return subprocess.run([sys.executable, "-m", "flexmbs", *map(str, args)], env=environment(site), cwd=WORKTREE,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def analytic_period(mass: float, stiffness: float) -> float:
    import math

    return 2.0 * math.pi * math.sqrt(mass / stiffness)
