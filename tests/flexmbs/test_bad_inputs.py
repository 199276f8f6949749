"""Bad inputs at the front door (issue 17): every one exits with status 2 and one `error: ...` line on stderr, no
traceback, names what to change, and leaves existing outputs byte for byte untouched.

The table runs in-process (click's CliRunner) so that 90 commands take seconds; the commands that used to hang
(a 0.001 m mesh of the 1 m bar, a 1e12 Pa pump) also run as subprocesses with a 10 s timeout.
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import flexmbs as fm
from flexmbs.cli.app import main

ROOT = str(Path(fm.__file__).parents[1])
KEEP = ("keep.msh", "keep.flex.h5", "keep.png", "keep.csv", "keep.gif", "keep.xyz", "keep.md")

BOX_A, BOX_B = "box:-0.001,-1,-1,0.001,1,1", "box:0.999,-1,-1,1.001,1,1"
ALL = "box:-1,-1,-1,2,1,1"

# (id, command line with {mesh} {flex} {res} {failed} {d} placeholders, text the error line must contain)
BAD = [
    # mesh: sizes, lengths, names, element count
    ("mesh-size-0", "mesh bar {d}/keep.msh --size 0", "--size"),
    ("mesh-size-neg", "mesh bar {d}/keep.msh --size -0.01", "--size"),
    ("mesh-size-nan", "mesh bar {d}/keep.msh --size nan", "--size"),
    ("mesh-size-inf", "mesh bar {d}/keep.msh --size inf", "--size"),
    ("mesh-length-0", "mesh bar {d}/keep.msh --length 0", "--length"),
    ("mesh-length-neg", "mesh connecting-bar {d}/keep.msh --length -2", "--length"),
    ("mesh-unknown-ext", "mesh bar {d}/keep.xyz", ".msh"),
    ("mesh-no-folder", "mesh bar {d}/nowhere/bar.msh", "does not exist"),
    ("mesh-out-is-folder", "mesh bar {d}", "directory"),
    ("mesh-too-many", "mesh bar {d}/keep.msh --size 0.001", "elements"),
    ("mesh-size-too-big", "mesh bar {d}/keep.msh --size 2", "--size"),
    ("mesh-hex-connecting", "mesh connecting-bar {d}/keep.msh --hex", "--hex"),
    ("mesh-order-3", "mesh bar {d}/keep.msh --order 3", "--order"),
    ("mesh-unknown-shape", "mesh cube {d}/keep.msh", "cube"),
    # modal
    ("modal-no-mesh", "modal {d}/none.msh", "none.msh"),
    ("modal-E-210Pa", "modal {mesh} --material E=210,nu=0.3,rho=7850", "Young's modulus"),
    ("modal-E-inf", "modal {mesh} --material E=inf,nu=0.3,rho=7850", "finite"),
    ("modal-nu-half", "modal {mesh} --material E=2e11,nu=0.5,rho=7850", "Poisson"),
    ("modal-rho-neg", "modal {mesh} --material E=2e11,nu=0.3,rho=-1", "density"),
    ("modal-unknown-material", "modal {mesh} --material unobtainium", "unobtainium"),
    ("modal-modes-0", "modal {mesh} --modes 0", "--modes"),
    ("modal-modes-text", "modal {mesh} --modes abc", "--modes"),
    ("modal-bad-selector", "modal {mesh} --material steel --fix sphere:1,2", "sphere"),
    ("modal-not-a-mesh", "modal {d}/keep.png", "keep.png"),
    # reduce
    ("reduce-no-folder", "reduce {mesh} -o {d}/nowhere/b.flex.h5 --interface a=" + BOX_A, "does not exist"),
    ("reduce-wrong-suffix", "reduce {mesh} -o {d}/keep.png --interface a=" + BOX_A, ".flex.h5"),
    ("reduce-report-no-folder", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A
     + " --report {d}/nowhere/r.md", "--report"),
    ("reduce-damping-text", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A + " --damping abc",
     "--damping"),
    ("reduce-damping-150%", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A + " --damping 1.5",
     "--damping"),
    ("reduce-damping-nan", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A + " --damping nan",
     "--damping"),
    ("reduce-damping-neg", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A + " --damping -0.1",
     "--damping"),
    ("reduce-damping-band", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A + " --damping 100:2",
     "--damping"),
    ("reduce-modes-0", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A + " --modes 0", "--modes"),
    ("reduce-overlap", "reduce {mesh} --material steel -o {d}/keep.flex.h5 --interface a=" + ALL
     + " --interface b=" + ALL,
     "overlap"),
    ("reduce-interface-syntax", "reduce {mesh} -o {d}/keep.flex.h5 --interface nothing", "--interface"),
    ("reduce-interface-empty", "reduce {mesh} --material steel -o {d}/keep.flex.h5 --interface a=sphere:9,9,9,0.001", "sphere"),
    ("reduce-E-210Pa", "reduce {mesh} -o {d}/keep.flex.h5 --interface a=" + BOX_A
     + " --material E=210,nu=0.3,rho=7850", "Young's modulus"),
    # info
    ("info-missing", "info {d}/none.results.h5", "does not exist"),
    ("info-not-hdf5", "info {d}/keep.png", "keep.png"),
    # run: unknown things, time, output, and the silent-wrong parameters of the issue
    ("run-unknown-case", "run nope", "nope"),
    ("run-unknown-key", "run excavator --set bogus=1", "bogus"),
    ("run-set-syntax", "run excavator --set supply_pressure", "key=value"),
    ("run-set-text", "run excavator --set supply_pressure=abc", "supply_pressure"),
    ("run-t-end-0", "run excavator --t-end 0", "--t-end"),
    ("run-t-end-nan", "run excavator --t-end nan", "--t-end"),
    ("run-t-end-neg", "run excavator --t-end -1", "--t-end"),
    ("run-out-no-folder", "run excavator -o {d}/nowhere/r.results.h5", "does not exist"),
    ("run-out-wrong-suffix", "run excavator -o {d}/keep.png", ".h5"),
    ("run-supply-1e10", "run excavator --set supply_pressure=1e10", "supply_pressure"),
    ("run-supply-neg", "run excavator --set supply_pressure=-1", "supply_pressure"),
    ("run-mass-0", "run excavator --set machine=0", "machine"),
    ("run-seed-float", "run excavator --set noise_seed=1.5", "noise_seed"),
    ("run-modes-float", "run excavator --set n_modes=2.5", "n_modes"),
    ("run-bulk-nan", "run excavator --set oil_bulk_modulus=nan", "oil_bulk_modulus"),
    ("run-link-E-1e3", "run slider-crank --set link_youngs_modulus=1e3", "link_youngs_modulus"),
    ("run-link-elements-2.5", "run slider-crank --set link_elements=2.5", "link_elements"),
    ("run-link-nu-half", "run slider-crank --set link_poisson_ratio=0.5", "link_poisson_ratio"),
    ("run-link-density-nan", "run slider-crank --set link_density=nan", "link_density"),
    ("run-link-length-0", "run slider-crank --set link_length=0", "link_length"),
    ("run-pump-1e12", "run fourbar-hydraulic --set pump_pressure=1e12", "pump_pressure"),
    ("run-pump-neg", "run fourbar-hydraulic --set pump_pressure=-1e5", "pump_pressure"),
    ("run-L3-inf", "run fourbar-hydraulic --set L3=inf", "L3"),
    ("run-clamp-E-210", "run clamp-locking --set youngs_modulus=210", "youngs_modulus"),
    ("run-clamp-segments-0", "run clamp-locking --set hose_segments=0", "hose_segments"),
    ("run-clamp-nu", "run clamp-locking --set poisson_ratio=-1", "poisson_ratio"),
    ("run-clamp-relief-1e10", "run clamp-locking --set relief_pressure=1e10", "relief_pressure"),
    ("run-clamp-bool", "run clamp-locking --set flexible=maybe", "flexible"),
    # modes
    ("modes-no-folder", "modes {flex} --out {d}/nowhere/m.png", "does not exist"),
    ("modes-wrong-suffix", "modes {flex} --out {d}/keep.xyz", ".png"),
    ("modes-scale-nan", "modes {flex} --out {d}/keep.png --scale nan", "--scale"),
    ("modes-scale-inf", "modes {flex} --out {d}/keep.png --scale inf", "--scale"),
    ("modes-mode-99", "modes {flex} --out {d}/keep.png --mode 99", "99"),
    ("modes-missing-body", "modes {d}/none.flex.h5 --out {d}/keep.png", "none.flex.h5"),
    ("modes-size", "modes {flex} --out {d}/keep.png --size 10x10", "size"),
    # animate
    ("animate-scale-nan", "animate {res} --out {d}/keep.gif --scale nan", "--scale"),
    ("animate-fps-0", "animate {res} --out {d}/keep.gif --fps 0", "--fps"),
    ("animate-fps-nan", "animate {res} --out {d}/keep.gif --fps nan", "--fps"),
    ("animate-no-folder", "animate {res} --out {d}/nowhere/a.gif", "does not exist"),
    ("animate-wrong-suffix", "animate {res} --out {d}/keep.png", ".gif"),
    ("animate-missing", "animate {d}/none.results.h5 --out {d}/keep.gif", "does not exist"),
    ("animate-frames-1", "animate {res} --out {d}/keep.gif --max-frames 1", "--max-frames"),
    # plot
    ("plot-no-folder", "plot {res} body/ball/position --out {d}/nowhere/p.png", "does not exist"),
    ("plot-unknown-signal", "plot {res} nosuch/signal --out {d}/keep.png", "nosuch"),
    ("plot-wrong-suffix", "plot {res} body/ball/position --out {d}/keep.xyz", ".png"),
    ("plot-failed-run", "plot {failed} body/ball/position --out {d}/keep.png", "nothing to plot"),
    ("plot-not-results", "plot {d}/keep.png body/ball/position --out {d}/keep.csv", "keep.png"),
    ("plot-size", "plot {res} body/ball/position --out {d}/keep.png --size 0x0", "size"),
    # stress
    ("stress-unknown-body", "stress {res} --body nosuch --hotspot --out {d}/keep.csv", "nosuch"),
    ("stress-no-folder", "stress {res} --body ball --hotspot --out {d}/nowhere/s.csv", "does not exist"),
    ("stress-no-node", "stress {res} --body ball --out {d}/keep.csv", "--node"),
    ("stress-cycles-folder", "stress {res} --body ball --hotspot --out {d}/keep.csv --cycles {d}/nowhere/c.csv",
     "does not exist"),
    ("stress-bins-0", "stress {res} --body ball --hotspot --out {d}/keep.csv --bins 0", "--bins"),
    # the command line itself
    ("unknown-command", "simulate excavator", "simulate"),
    ("run-missing-case", "run", "CASE"),
]




@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """A mesh, a reduced body, a good and a failed results file, and existing outputs with known bytes."""
    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model
    from reduction.io import write_flexbody
    from reduction.reduce import reduce

    d = tmp_path_factory.mktemp("bad_inputs")
    mesh = bar_mesh(str(d / "bar.msh"), size=0.05, order=1)
    model = solid_model(load_mesh(mesh), "steel")
    model.add_reference_node("a", model.select(BOX_A), "rbe2")
    model.add_reference_node("b", model.select(BOX_B), "rbe2")
    flex = write_flexbody(reduce(model, ["a", "b"], 3, name="bar", compare_modes=0), str(d / "bar.flex.h5"))
    ball = fm.Model("fall", gravity=(0, 0, -9.81))
    ball.add_rigid_body("ball", 1.0, (1e-3, 1e-3, 1e-3))
    fm.simulate(ball, 0.2, output=str(d / "good.results.h5"))

    class Fail(fm.PointForce):
        def generalized_forces(self, ctx):
            if ctx.t > 0:
                raise fm.SimulationError("broken model")
            return []

    broken = fm.Model("fall", gravity=(0, 0, -9.81))
    b = broken.add_rigid_body("ball", 1.0, (1e-3, 1e-3, 1e-3))
    broken.add_force(Fail(broken.add_marker(b, "m"), force=(0, 0, 0), name="fail"))
    fm.simulate(broken, 0.2, output=str(d / "failed.results.h5"))
    for k, name in enumerate(KEEP):
        (d / name).write_bytes(f"precious output {k}\n".encode())
    # a real flexible body under the name the reduce rows target: their own error comes first, not the refusal to
    # replace a file of another kind (issue 30)
    (d / "keep.flex.h5").write_bytes(Path(flex).read_bytes())
    from PIL import Image

    for name in ("keep.png", "keep.gif"):
        Image.new("RGB", (3, 2), (200, 10, 10)).save(d / name)
    return {"d": str(d), "mesh": mesh, "flex": flex, "res": str(d / "good.results.h5"),
            "failed": str(d / "failed.results.h5")}


def _snapshot(folder: str) -> dict:
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir()) if p.is_file()}


@pytest.mark.parametrize("name,command,expected", BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_line_exit_2_and_touches_nothing(inputs, name, command, expected):
    before = _snapshot(inputs["d"])
    args = [a.format(**inputs) for a in command.split()]
    result = CliRunner().invoke(main, args)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert result.exit_code == 2, (result.exit_code, result.stderr, result.exception)
    # one error line and nothing else (reduce holds its progress lines until every selection is resolved)
    assert len(errors) == 1 and lines == errors, result.stderr
    assert "Traceback" not in result.stderr + result.output
    assert expected.lower() in errors[0].lower(), errors[0]
    assert _snapshot(inputs["d"]) == before  # no output replaced, no stray .part/.lock/temporary left


def test_there_are_at_least_60_bad_inputs_over_every_command():
    commands = {b[1].split()[0] for b in BAD}
    assert len(BAD) >= 60
    assert {"mesh", "modal", "reduce", "info", "run", "modes", "animate", "plot", "stress"} <= commands


def test_mp4_without_the_video_extra_is_refused_before_rendering(inputs, monkeypatch):
    monkeypatch.setitem(sys.modules, "imageio_ffmpeg", None)  # the extra is not installed
    before = _snapshot(inputs["d"])
    for args in (["animate", inputs["res"], "--out", f"{inputs['d']}/a.mp4"],
                 ["modes", inputs["flex"], "--out", f"{inputs['d']}/m.mp4"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and "video extra" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert _snapshot(inputs["d"]) == before


def test_debug_shows_the_traceback(inputs):
    result = CliRunner().invoke(main, ["--debug", "run", "excavator", "--set", "supply_pressure=1e10"])
    assert result.exit_code != 0 and isinstance(result.exception, fm.FlexmbsError)


def test_an_unexpected_exception_is_one_line(monkeypatch):
    import flexmbs.catalog.registry

    def boom(*args, **kwargs):
        raise np.linalg.LinAlgError("SVD did not converge")

    monkeypatch.setattr(flexmbs.catalog.registry, "get_case", boom)
    result = CliRunner().invoke(main, ["run", "excavator"])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "SVD did not converge" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["mesh bar {d}/tiny.msh --size 0.001",
                                     "run fourbar-hydraulic --set pump_pressure=1e12"])
def test_former_hangs_end_within_10_s(tmp_path, command):
    """The kernel stops the command after 10 s of CPU time (RLIMIT_CPU: a busy hang dies, whatever the machine's
    load); the wall-clock timeout only catches a hang that sleeps. Idle, these take about 2 s (mostly imports)."""
    import resource

    def limit_cpu():
        resource.setrlimit(resource.RLIMIT_CPU, (10, 10))

    args = [a.format(d=tmp_path) for a in command.split()]
    env = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "flexmbs", *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=str(tmp_path), preexec_fn=limit_cpu)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_users_cases_py_next_to_the_script_is_named(tmp_path):
    (tmp_path / "cases.py").write_text("# the user's own module\n")
    env = {**os.environ, "PYTHONPATH": ROOT, "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-m", "flexmbs", "cases"], capture_output=True, text=True, env=env,
                          cwd=str(tmp_path), timeout=60)
    assert done.returncode == 2 and "cases.py" in done.stderr and "hides" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    (tmp_path / "cases.py").unlink()
    (tmp_path / "fem.py").write_text("# the user's own module\n")
    done = subprocess.run([sys.executable, "-m", "flexmbs", "cases"], capture_output=True, text=True, env=env,
                          cwd=str(tmp_path), timeout=60)
    assert done.returncode == 2 and "fem.py" in done.stderr and len(done.stderr.strip().splitlines()) == 1
