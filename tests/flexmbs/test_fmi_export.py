"""Issue 47, export: the hydraulic four-bar as a co-simulation FMU (``flexmbs fmu``), validated by FMPy and run by
FMPy's own master with the torque pulse as its input, equals ``flexmbs run`` of the case to the error of the
communication step (a zero-order hold of the input)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

fmpy = pytest.importorskip("fmpy", reason="the fmi extra: pip install 'flexmbs[fmi]'")
pytest.importorskip("pythonfmu", reason="the fmi extra: pip install 'flexmbs[fmi]'")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
T_END = 2.0
CASE = ["fourbar-hydraulic", "--set", f"t_end={T_END}"]
ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""), FLEXMBS_COMPILE_NOTICE="0")

# FMPy's master in its own process (as another tool would run the FMU): the pulse of seed 002 eq. (92) with the
# case's defaults (ramp to 250 N m until 1 s, held until 1.5 s, then 0) as the input table. The process ends by a
# plain exit: its exit status 0 checks that the host does not abort at exit (docs/fmi.md, "Exit of the host")
MASTER = """
import json, sys
import numpy as np
import fmpy
path, h, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
table = np.array([(0.0, 0.0), (1.0, 250.0), (1.5, 250.0), (1.5, 0.0), (%r, 0.0)],
                 dtype=[("time", float), ("M2", float)])
r = fmpy.simulate_fmu(path, stop_time=%r, output_interval=h, input=table, output=["joint/O1/rotation"])
np.save(out, np.stack([r["time"], r["joint/O1/rotation"]], 1))
""" % (T_END, T_END)

# fmi2GetFMUstate / fmi2SetFMUstate through FMPy's low-level API: a step repeated from a saved state
STATE = """
import sys
import fmpy
from fmpy.fmi2 import FMU2Slave
path = sys.argv[1]
md = fmpy.read_model_description(path)
refs = {v.name: v.valueReference for v in md.modelVariables}
fmu = FMU2Slave(guid=md.guid, unzipDirectory=fmpy.extract(path), modelIdentifier=md.coSimulation.modelIdentifier)
fmu.instantiate()
fmu.setupExperiment(startTime=0.0)
fmu.enterInitializationMode()
fmu.exitInitializationMode()
t = 0.0
for k in range(50):
    fmu.setReal([refs["M2"]], [250.0 * t])
    fmu.doStep(t, 0.01)
    t += 0.01
state = fmu.getFMUstate()
fmu.setReal([refs["M2"]], [125.0])
fmu.doStep(t, 0.1)
first = fmu.getReal([refs["joint/O1/rotation"]])[0]
fmu.setFMUstate(state)
fmu.setReal([refs["M2"]], [125.0])
fmu.doStep(t, 0.1)
second = fmu.getReal([refs["joint/O1/rotation"]])[0]
fmu.terminate()
print(repr(first), repr(second), flush=True)
"""

def _flexmbs(*args, cwd):
    done = subprocess.run([sys.executable, "-m", "flexmbs", *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _master(fmu, h, folder) -> np.ndarray:
    out = os.path.join(folder, f"master_{h:g}.npy")
    done = subprocess.run([sys.executable, "-c", MASTER, fmu, repr(h), out], env=ENV, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return np.load(out)


def test_fourbar_fmu_round_trip(tmp_path):
    """The FMU passes FMPy's checks, carries units and the parameters' provenance, and FMPy's master drives it to
    the angle of ``flexmbs run``: within 1 % of the pulse's deflection (4.2e-4 rad) at a 10 ms communication step
    (measured 2.5e-6 rad, 0.6 %: the zero-order hold of the ramp's input plus both runs' integration errors at
    rtol 1e-5), and no worse at 5 ms (measured 2.1e-6 rad)."""
    from flexmbs.results.results import load_results

    folder = str(tmp_path)
    fmu = os.path.join(folder, "fourbar.fmu")
    _flexmbs("fmu", *CASE, "--input", "M2", "--output", "joint/O1/rotation", "--rtol", "1e-5", "--max-step", "0.01",
             "-o", fmu, cwd=folder)
    from fmpy.validation import validate_fmu

    assert validate_fmu(fmu) == []
    description = fmpy.read_model_description(fmu)
    variables = {v.name: v for v in description.modelVariables}
    assert variables["M2"].causality == "input" and variables["M2"].unit == "N.m"
    assert variables["joint/O1/rotation"].causality == "output" and variables["joint/O1/rotation"].unit == "rad"
    assert "provenance: assumed" in variables["torque_M0"].description and variables["torque_M0"].unit == "N.m"
    with zipfile.ZipFile(fmu) as z:
        spec = json.loads(z.read("resources/flexmbs_fmu.json"))
    assert spec["source"] == "fourbar-hydraulic" and spec["settings"] == {"t_end": T_END}

    reference = os.path.join(folder, "run.results.h5")
    _flexmbs("run", *CASE, "-o", reference, cwd=folder)
    run = load_results(reference)
    phi = np.asarray(run["joint/O1/rotation"])
    deflection = float(np.max(np.abs(phi - phi[0])))
    assert deflection > 1e-4  # the pulse moves the linkage (0.024 deg at t2 by the case's summary)

    errors = []
    for h in (0.01, 0.005):
        sampled = _master(fmu, h, folder)
        assert sampled[-1, 0] == pytest.approx(T_END)
        expected = np.interp(sampled[:, 0], run.time, phi)
        errors.append(float(np.max(np.abs(sampled[:, 1] - expected))))
    print("coupling errors (rad):", errors, "deflection", deflection)
    assert errors[0] < 0.01 * deflection

    # the FMU state: a step repeated after fmi2SetFMUstate gives the same angle to the last bit
    done = subprocess.run([sys.executable, "-c", STATE, fmu], env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = (float(x) for x in done.stdout.split()[-2:])
    assert first == second and abs(first - phi[0]) > 1e-6
    assert errors[1] <= errors[0]


def test_fmu_command_refuses_bad_names_in_one_line(tmp_path):
    """An unknown output or input: exit 2, one line naming what exists; nothing written."""
    target = os.path.join(str(tmp_path), "x.fmu")
    for args, said in ((["--output", "joint/O1/rotaton"], "did you mean 'joint/O1/rotation'"),
                       (["--input", "M3", "--output", "joint/O1/rotation"], "its joint actuators: M2")):
        done = subprocess.run([sys.executable, "-m", "flexmbs", "fmu", "fourbar-hydraulic", *args, "-o", target],
                              env=ENV, capture_output=True, text=True)
        assert done.returncode == 2
        lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
        assert len(lines) == 1 and said in lines[0]
        assert not os.path.exists(target)
