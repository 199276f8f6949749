"""Results file: incremental and atomic writing, Ctrl-C keeps the run, signals by name with units, CSV export."""
import h5py
import numpy as np
import pytest

import flexmbs as fm

G = 9.81


def falling_mass():
    model = fm.Model("free fall", gravity=(0.0, 0.0, -G))
    model.add_rigid_body("ball", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), velocity=(1.0, 0.0, 0.0))
    return model


def test_results_file_holds_named_signals_with_units_and_the_exact_trajectory(tmp_path):
    path = tmp_path / "fall.results.h5"
    res = fm.simulate(falling_mass(), 1.0, output=str(path), case="free-fall-test", parameters={"g": G})
    assert res.success and path.exists() and not list(tmp_path.glob("*.part")) and not list(tmp_path.glob("*.lock"))
    back = fm.load_results(str(path))
    t = back.time
    np.testing.assert_allclose(back["body/ball/position"][:, 2], -0.5 * G * t**2, atol=1e-9)
    np.testing.assert_allclose(back["body/ball/position"][:, 0], t, atol=1e-12)
    assert back.units["body/ball/position"] == "m" and back.units["body/ball/velocity"] == "m/s"
    assert back.attributes["case"] == "free-fall-test" and back.attributes["parameters"] == {"g": G}
    assert back.attributes["software_version"] == fm.__version__
    assert back.statistics["steps"] == res.statistics["steps"]
    with h5py.File(path, "r") as fh:  # every dataset carries its unit
        missing = []
        fh.visititems(lambda name, obj: missing.append(name) if isinstance(obj, h5py.Dataset)
                      and "unit" not in obj.attrs else None)
    assert missing == []
    csv = tmp_path / "fall.csv"
    back.to_csv(str(csv), ["body/ball/position"])
    header = csv.read_text().splitlines()[0]
    assert header == "time [s],body/ball/position/x [m],body/ball/position/y [m],body/ball/position/z [m]"


class Interrupter(fm.PointForce):
    """A force element whose evaluation raises KeyboardInterrupt once t > 0.5 s (a user pressing Ctrl-C)."""

    def generalized_forces(self, ctx):
        if ctx.t > 0.5:
            raise KeyboardInterrupt
        return []


def test_ctrl_c_stops_cleanly_and_keeps_what_was_computed(tmp_path):
    model = falling_mass()
    model.add_force(Interrupter(model.add_marker(model.body("ball"), "c"), force=(0, 0, 0), name="ctrl-c"))
    path = tmp_path / "stopped.results.h5"
    res = fm.simulate(model, 2.0, output=str(path))
    assert not res.success and res.status == "interrupted" and "interrupted" in res.message
    assert 0.4 < res.time[-1] <= 0.5
    back = fm.load_results(str(path))
    assert back.status == "interrupted"
    np.testing.assert_allclose(back["body/ball/position"][:, 2], -0.5 * G * back.time**2, atol=1e-9)


def test_unknown_signal_names_the_similar_ones():
    res = fm.simulate(falling_mass(), 0.1)
    with pytest.raises(fm.FlexmbsError, match="body/ball/position"):
        res["position"]
    assert "body/ball/angular_velocity" in res.signals()


CRASHING_RUN = """
import os, sys
import flexmbs as fm
model = fm.Model("spring", gravity=(0, 0, -9.81))
ball = model.add_rigid_body("ball", 1.0, (1e-3, 1e-3, 1e-3), position=(0, 0, -1))
model.add_force(fm.SpringDamper(model.add_marker(model.ground, "top"), model.add_marker(ball, "m"), stiffness=1e3,
                                free_length=1.0))
class Crash(fm.PointForce):
    def generalized_forces(self, ctx):
        if ctx.t > 1.0:
            os._exit(3)  # the process dies without any cleanup
        return []
model.add_force(Crash(model.add_marker(ball, "c"), force=(0, 0, 0), name="crash"))
fm.simulate(model, 5.0, output=sys.argv[1], rtol=1e-7, atol=1e-10)
"""


def test_a_crashed_run_leaves_the_flushed_samples_in_the_part_file(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "crash.results.h5"
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_RUN)
    done = subprocess.run([sys.executable, str(script), str(path)], cwd=str(tmp_path), capture_output=True,
                          env={**__import__("os").environ, "PYTHONPATH": str(__import__("pathlib").Path(
                              fm.__file__).parents[1])})
    assert done.returncode == 3
    assert not path.exists()  # never renamed: the run did not finish
    (part,) = tmp_path.glob("crash.results.h5.*.part")  # <target>.<pid>.part
    kept = fm.load_results(str(part))
    assert kept.status == "running" and kept.time.size >= 200 and 0.5 < kept.time[-1] <= 1.0
    # the kept samples are the right physics: undamped oscillation about the static deflection m g / k
    z = kept["body/ball/position"][:, 2]
    # (global error of a 1e-7 relative tolerance on a 1 m coordinate over 5 periods: ~1e-4 m)
    np.testing.assert_allclose(z, -1.0 - 9.81e-3 * (1.0 - np.cos(np.sqrt(1e3) * kept.time)), atol=3e-4)
