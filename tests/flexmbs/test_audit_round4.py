"""Issue 43, the second fresh audit's fixes (the whole audit: ``tools/audit_round4.py``, 500+ new cases, not in the
test run): each row of the round-4 message table of docs/safety.md has its case here — one line naming the input
the user gave (exit 2 at the CLI, a ``FlexmbsError`` in Python), or a note for a likely unit slip; nothing written.
Physics reference where a body is noted: the uniform box of the given principal moments (sides from
``a² = 6 (I₂ + I₃ − I₁)/m``); a mass in g typed as kg makes it 3e7 times denser."""
import math
import os
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import flexmbs as fm
import hydraulics as h
from flexmbs.cli.app import main
from flexmbs.results.plausibility import PlausibilityWarning
from safe_helpers import guarded_files, one_error_line, refused

ROOT = Path(__file__).resolve().parents[2]


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return guarded_files(tmp_path_factory.mktemp("audit4"))


def model():
    m = fm.Model("m", gravity=(0, 0, -9.81))
    return m, m.add_rigid_body("b", 1.0, (1e-3,) * 3)


def test_a_force_function_returning_nan_is_named():
    """Was "the mass matrix is singular": NaN from the user's function reached the solver."""
    m, b = model()
    m.add_force(fm.PointForce(m.add_marker(b, "k"), force=lambda t: (math.nan, 0, 0)))
    refused(lambda: fm.simulate(m, 0.01), "point force at 'k'", "force function", "nan", "finite")
    m, b = model()
    m.add_force(fm.PointForce(m.add_marker(b, "k"), torque=lambda t: (1.0, 0.0)))
    refused(lambda: fm.simulate(m, 0.01), "point force at 'k'", "torque function", "3 numbers")


def test_springs_markers_and_joints_name_their_argument():
    def spring(**kw):
        m, b = model()
        return fm.SpringDamper(m.add_marker(m.ground, "g"), m.add_marker(b, "k"), **kw)

    refused(lambda: spring(stiffness=None), "spring(g,k)", "stiffness", "N/m")
    refused(lambda: spring(stiffness=math.inf), "stiffness", "finite")
    refused(lambda: spring(damping="1"), "damping", "N s/m")
    refused(lambda: spring(preload=math.nan), "preload", "finite")
    refused(lambda: spring(free_length="0.1"), "free_length", "m")
    refused(lambda: fm.SpringDamper(None, None, 1.0), "spring-damper", "marker_i", "NoneType")
    refused(lambda: fm.PointForce(None, force=(1, 0, 0)), "point force", "marker", "NoneType")
    m, b = model()
    refused(lambda: m.add_joint("prismatic", m.add_marker(m.ground, "g"), m.add_marker(b, "k"), axis="x"), "axis",
            "'x'")
    refused(lambda: m.add_force(fm.SpringDamper), "add_force", "the class SpringDamper")
    assert spring(stiffness=100.0, damping=1.0).stiffness == 100.0  # a valid spring is made


def test_flexible_body_modes_and_damping_are_checked(files):
    refused(lambda: fm.Model("m").add_flexible_body("b", files["flex"], modes="all"), "body 'b'", "modes")
    refused(lambda: fm.Model("m").add_flexible_body("b", files["flex"], modes=[0, 0]), "body 'b'", "twice")
    refused(lambda: fm.Model("m").add_flexible_body("b", files["flex"], damping_ratio="low"), "damping_ratio")


def test_simulate_options_and_fem_api():
    from fem.mesh import load_mesh
    from reduction.reduce import reduce

    refused(lambda: fm.simulate(model()[0], 0.01, tolerances="tight"), "tolerances", "dict")
    refused(lambda: fm.simulate(model()[0], True), "t_end", "bool")
    refused(lambda: load_mesh(None), "load_mesh", "NoneType")
    refused(lambda: reduce(None, [], 2), "reduce expects an FE model", "NoneType")


def test_fem_material_reference_node_and_reduce_interfaces(files):
    from fem.mesh import load_mesh
    from fem.model import solid_model
    from reduction.reduce import reduce

    refused(lambda: solid_model(load_mesh(files["mesh"]), 42), "material", "42")
    fe = solid_model(load_mesh(files["mesh"]), "steel")
    refused(lambda: fe.add_reference_node("q", None, "rbe2"), "interface 'q'", "nodes")
    refused(lambda: fe.add_reference_node("p", "box:0.999,-1,-1,1.001,1,1", "rbe2", point=(math.nan, 0, 0)),
            "interface 'p'", "point")
    refused(lambda: reduce(fe, None, 2, compare_modes=0), "interfaces", "None")


def test_results_signal_names_and_csv_suffix(files, tmp_path):
    from flexmbs.results.results import load_results

    res = load_results(files["res"])
    refused(lambda: res[3], "signal", "3", "int")
    refused(lambda: res.to_csv(str(tmp_path / "x.xlsx")), "to_csv", "x.xlsx", ".csv")
    assert not (tmp_path / "x.xlsx").exists()


def test_hydraulic_values_that_are_not_finite():
    refused(lambda: h.Volume("V", math.inf), "'V'", "volume", "finite")
    refused(lambda: h.Volume("V", 1e-3, wall_bulk_modulus=math.nan), "'V'", "wall_bulk_modulus")
    refused(lambda: h.Orifice("o", math.inf), "'o'", "area", "finite")
    refused(lambda: h.Orifice("o", "1e-6"), "'o'", "area", "'1e-6'")
    refused(lambda: h.Orifice("o", 1e-6, discharge_coefficient=5.0), "'o'", "discharge_coefficient", "(0, 1]")
    refused(lambda: h.Cylinder("c", 1e-3, 5e-4, math.inf), "'c'", "stroke", "finite")


def test_zero_inertia_and_a_body_denser_than_any_material_are_noted():
    """5000 kg with 1e-6 kg m²: the uniform box of these moments is 35 µm across and 1.2e17 kg/m³ (a mass in g
    typed as kg); the slider crank's crank (1 kg, 1e-6 kg m² about its axis, a thin rod: 1.1e6 kg/m³) is not
    noted."""
    with pytest.warns(PlausibilityWarning, match="body 'pin'.*denser than any material.*g typed as kg"):
        fm.Model("m").add_rigid_body("pin", 5000.0, (1e-6,) * 3)
    with pytest.warns(PlausibilityWarning, match="body 'z': inertia is zero"):
        fm.Model("m").add_rigid_body("z", 1.0, (0.0, 0.0, 0.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fm.Model("m").add_rigid_body("crank", 1.0, (1e-6, 0.15 ** 2 / 12, 0.15 ** 2 / 12))


def test_write_flexbody_needs_an_h5_name(files, tmp_path):
    from reduction.io import read_flexbody, write_flexbody

    refused(lambda: write_flexbody(read_flexbody(files["flex"]), str(tmp_path / "x.txt")), "x.txt", ".h5")
    assert not (tmp_path / "x.txt").exists()


def test_cli_lines_of_the_round_4_audit(files, tmp_path):
    line = one_error_line(cli("linearize", "fourbar-hydraulic", "--at", "1e9"))
    assert "--at 1e+09 s" in line and "t_end = 3 s" in line and "<= 30 s" in line
    line = one_error_line(cli("linearize", "fourbar-hydraulic", "--at", "@0.1"))
    assert "--at '@0.1'" in line and "before '@'" in line
    line = one_error_line(cli("run", "slider-crank", "--t-end", "1e12", "--quiet"))
    assert "--t-end 1e+12 s" in line and "t_end = 0.1 s" in line
    line = one_error_line(cli("run", "slider-crank", "--set", "=1", "--quiet"))
    assert "--set '=1'" in line and "name before '='" in line
    line = one_error_line(cli("run", "slider-crank", "--set", "crank_length=0.5", "--quiet"))
    assert "crank_length (0.5 m)" in line and "link_length (0.5 m)" in line
    line = one_error_line(cli("run", "fourbar-hydraulic", "--set", "rod_diameter=1", "--quiet"))
    assert "rod_diameter (1 m)" in line and "bore_diameter" in line
    line = one_error_line(cli("study", "slider-crank", "--vary", "crank_mass=1,2", "--set", "crank_mass=3", "-o",
                              tmp_path / "st"))
    assert "--set crank_mass and --vary crank_mass" in line
    assert not (tmp_path / "st").exists()
    line = one_error_line(cli("modes", files["flex"], "--scale", "0", "--out", tmp_path / "m.png"))
    assert "scale 0 (--scale)" in line
    line = one_error_line(cli("animate", files["res"], "--out", tmp_path / "a.gif", "--fps", "1e-9"))
    assert "--fps" in line and "[0.01, 1000]" in line
    assert not (tmp_path / "m.png").exists() and not (tmp_path / "a.gif").exists()


def test_a_report_replaces_only_a_report(files, tmp_path):
    """`reduce --report notes.txt` replaced the user's notes (any text file counted as a report); a report
    flexmbs wrote is replaced by the next one."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    args = ["reduce", files["mesh"], "--interface", "a=box:-0.001,-1,-1,0.001,1,1", "--modes", "2", "--compare", "0",
            "--material", "steel"]
    line = one_error_line(cli(*args, "-o", tmp_path / "r.flex.h5", "--report", notes))
    assert "--report" in line and "notes.txt" in line and "did not write as a report" in line
    assert notes.read_text() == "my notes\n" and not (tmp_path / "r.flex.h5").exists()
    report = tmp_path / "r.md"
    for _ in range(2):
        result = cli(*args, "-o", tmp_path / "r.flex.h5", "--report", report)
        assert result.exit_code == 0, result.stderr
    assert report.read_text().startswith("# Reduction report")


def test_a_solver_failure_after_set_names_the_values_farthest_from_their_defaults():
    """The hint `run` appends to a solver failure: the --set values ranked by their distance from the defaults
    (decades), with units; none for a failure of another kind or without --set."""
    import cases
    from flexmbs.cli.run import changed_inputs_hint

    module = cases.get_case("slider-crank")
    failure = "slider-crank: Newton iteration failed (too many iterations) at t = 0.0021 s ... 'slider_pin' (row 3)"
    hint = changed_inputs_hint(module, {"crank_speed": 1.0e4, "crank_mass": 1.5}, failure)
    assert hint.startswith("; this run sets crank_speed = 10000 rad/s (default 125.664), crank_mass = 1.5 kg")
    assert "nearer their defaults" in hint
    assert changed_inputs_hint(module, {}, failure) == ""
    assert changed_inputs_hint(module, {"crank_speed": 1.0e4}, "slider-crank: interrupted by the user") == ""


def test_ctrl_c_while_gmsh_meshes_ends_in_one_line(tmp_path):
    """gmsh restored the default Ctrl-C action and the process died by the signal without a word, leaving its
    temporary. Now: exit 130, one line, no temporary and no lock left. The signal is sent once the command holds
    its output's lock (it meshes then; a 4 mm bar takes tens of seconds)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FLEXMBS_COMPILE_NOTICE": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "flexmbs", "mesh", "bar", "fine.msh", "--size", "0.004",
                             "--force"], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    lock = tmp_path / "fine.msh.lock"
    while not lock.exists() and proc.poll() is None:
        time.sleep(0.05)
    time.sleep(1.0)  # into gmsh's meshing
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate()
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == ["error: interrupted: gmsh was meshing; nothing was written to 'fine.msh'"], err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_case_lines_name_the_parameters():
    line = one_error_line(cli("run", "clamp-locking", "--set", "flexible=false", "--set", "piston_inner_radius=1",
                              "--quiet"))
    assert "piston_inner_radius (1 m)" in line and "piston_outer_radius (0.45 m)" in line
    line = one_error_line(cli("run", "clamp-locking", "--set", "flexible=false", "--set", "tie_bar_spacing_x=0",
                              "--quiet"))
    assert "tie_bar_spacing_x = 0 m" in line and "bar_length = 2.5 m" in line
    line = one_error_line(cli("run", "excavator", "--set", "light_mass_fraction=2", "--quiet"))
    assert "light_mass_fraction" in line and "< 1" in line
    line = one_error_line(cli("run", "slider-crank", "--set", "initial_crank_angle=1e9", "--quiet"))
    assert "initial_crank_angle" in line and "<= 100 rad" in line


def test_study_inputs_of_the_round_4_audit(tmp_path):
    import json

    line = one_error_line(cli("study", "slider-crank", "--vary", "drive=speed,banana", "-o", tmp_path / "a"))
    assert "drive must be 'speed' or 'torque', got 'banana'" in line and "--vary drive=banana" in line
    line = one_error_line(cli("study", "slider-crank", "--vary", "crank_mass=1,,2", "-o", tmp_path / "b"))
    assert "--vary crank_mass: an empty value" in line
    study = tmp_path / "st"
    (study / "runs").mkdir(parents=True)
    manifest = {"format": "flexmbs-study", "format_version": 1, "case": "slider-crank", "variations": {}}
    (study / "study.json").write_text(json.dumps(manifest))
    line = one_error_line(cli("study", "slider-crank", "--vary", "crank_mass=1,2", "-o", study / "runs"))
    assert "lies in the study folder" in line
    assert sorted(p.name for p in (study / "runs").iterdir()) == []
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_api_names_and_units_of_the_round_4_audit():
    import cases
    from fem.materials import parse_material
    from flexmbs.catalog.parameters import validate_parameters
    from flexmbs.cli.reduce import parse_interface

    refused(lambda: fm.Model(None), "model's name")
    refused(lambda: fm.Model("x").add_rigid_body("", 1.0, (1, 1, 1)), "body's name")
    refused(lambda: fm.Model("x").add_rigid_body("ground", 1.0, (1, 1, 1)), "'ground'")
    with pytest.warns(PlausibilityWarning, match="gravity 9810 m/s².*mm/s² typed as m/s²"):
        fm.Model("x", gravity=(0, 0, -9810.0))
    m, b = model()
    refused(lambda: m.add_marker(b, "k", orientation=np.ones((3, 3))), "marker 'k'", "not a rotation")
    refused(lambda: fm.simulate(model()[0], 0.01, static_start="no"), "static_start", "'no'")
    refused(lambda: fm.simulate(model()[0], 0.01, output=3), "output", "3")
    refused(lambda: validate_parameters(cases.get_case("spin-up-beam"), {"nope": 1.0}), "unknown parameter 'nope'")
    refused(lambda: validate_parameters(cases.get_case("spin-up-beam"), {"omega_s": None}), "'omega_s'", "None")
    refused(lambda: parse_material("E=210e9,nu=0.3,rho=7850,E=70e9"), "E twice")
    refused(lambda: parse_interface("a=box:0,0,0,1,1,1:rbe3:rbe2"), "--interface", "spider is given twice")
    refused(lambda: parse_interface("a=box:0,0,0,1,1,1:dofs="), "--interface", "dofs= is empty")


def test_hydraulic_circuit_inputs_of_the_round_4_audit():
    refused(lambda: h.Circuit(None), "circuit's name")
    refused(lambda: h.PressureSource("P", None), "'P'", "pressure")
    from hydraulics.nodes import PressureWarning

    with pytest.warns(PressureWarning, match="'P': pressure 2e\\+09 Pa is 2e\\+04 bar.*bar typed as Pa"):
        h.PressureSource("P", 2e9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        h.PressureSource("P", 350e5)  # 350 bar: no note
