"""Issue 43, the fresh audit's fast subset (the whole audit: ``tools/audit_round3.py``, 400+ cases, not in the test
run): absurd inputs at the API and the CLI are one line naming the input; a unit slip is a note; a harmless input
runs. Each row of the message table of docs/safety.md ("Round 3, second session") has its case here.
Physics reference where a body is accepted: the triangle inequality of principal inertias (I₁ + I₂ − I₃ = 2∫z²dm
≥ 0) — a uniform box's moments satisfy it exactly and are accepted."""
import math
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import flexmbs as fm
import hydraulics as h
from flexmbs.cli.app import main
from flexmbs.results.plausibility import PlausibilityWarning
from safe_helpers import guarded_files, one_error_line, refused


def test_rigid_body_mass_and_inertia_are_physical():
    m = fm.Model("m")
    refused(lambda: m.add_rigid_body("b", 0.0, (1, 1, 1)), "body 'b'", "mass", "kg")
    refused(lambda: m.add_rigid_body("b", math.nan, (1, 1, 1)), "body 'b'", "mass")
    refused(lambda: m.add_rigid_body("b", "1", (1, 1, 1)), "body 'b'", "mass must be a number")
    refused(lambda: m.add_rigid_body("b", 1.0, (1, 1, 3)), "body 'b'", "triangle inequality")
    refused(lambda: m.add_rigid_body("b", 1.0, (math.inf,) * 3), "body 'b'", "inertia")
    refused(lambda: m.add_rigid_body("b", 1.0, "abc"), "body 'b'", "inertia")
    refused(lambda: m.add_rigid_body("b", 1.0, (-1, 1, 1)), "body 'b'", "positive semi-definite")
    a, b, c = 2.0, 0.3, 0.1  # a uniform box 2 x 0.3 x 0.1 m of 60 kg: its moments pass (triangle inequality holds)
    box = 60.0 / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m.add_rigid_body("box", 60.0, box)


def test_tonnes_typed_as_kg_is_noted():
    """The excavator boom's 5027 kg typed as 5.027 with its inertia in kg m²: the uniform box of these moments
    weighs 2.8e-5 kg/m³; one note naming the body and the unit."""
    with pytest.warns(PlausibilityWarning, match="body 'boom'.*tonnes typed as kg"):
        fm.Model("m").add_rigid_body("boom", 5.027, (1e4, 1e4, 1e3))


def test_pose_vectors_are_numbers():
    m = fm.Model("m")
    refused(lambda: m.add_rigid_body("b", 1.0, (1, 1, 1), position=(math.nan, 0, 0)), "body 'b'", "position")
    refused(lambda: m.add_rigid_body("b", 1.0, (1, 1, 1), position="origin"), "body 'b'", "position")
    refused(lambda: m.add_rigid_body("b", 1.0, (1, 1, 1), velocity=(math.inf, 0, 0)), "velocity")
    refused(lambda: m.add_rigid_body("b", 1.0, (1, 1, 1), orientation=np.ones((3, 3))), "not a rotation")
    refused(lambda: m.add_rigid_body("b", 1.0, (1, 1, 1), orientation=np.diag([1.0, 1.0, -1.0])), "not a rotation")
    refused(lambda: m.add_rigid_body("b", 1.0, (1, 1, 1), centre_of_mass=(0, math.nan, 0)), "centre_of_mass")
    refused(lambda: fm.Model("x", gravity="down"), "gravity")
    refused(lambda: fm.Model("x", gravity=(0, 0, math.nan)), "gravity")
    b = m.add_rigid_body("b", 1.0, (1, 1, 1))
    refused(lambda: m.add_marker(b, "k", position=(math.nan, 0, 0)), "marker 'k'", "position")
    refused(lambda: fm.PointForce(m.add_marker(b, "p"), force="up"), "force")
    refused(lambda: fm.PointForce(m.add_marker(b, "q"), torque=(0, math.nan, 0)), "torque")


def test_hydraulic_components_refuse_absurd_values():
    refused(lambda: h.DirectionalValve("v", [], 0.0, 1.0), "'v'", "max_area", "area 0")
    refused(lambda: h.Volume("V", "1e-3"), "'V'", "volume must be a number")
    refused(lambda: h.Volume("V", 1e-3, initial_pressure=math.nan), "'V'", "initial_pressure")
    refused(lambda: h.Orifice("o", math.nan), "'o'", "area")
    refused(lambda: h.Cylinder("c", 1e-3, 2e-3, 0.5), "cylinder 'c'", "larger than piston_area")
    refused(lambda: h.Cylinder("c", math.nan, 5e-4, 0.5), "cylinder 'c'", "piston_area")
    refused(lambda: h.Tank("T", math.nan), "'T'", "tank pressure")


def test_simulate_output_must_be_a_results_file(tmp_path):
    model = fm.Model("m")
    model.add_rigid_body("b", 1.0, (1, 1, 1))
    refused(lambda: fm.simulate(model, 0.01, output=str(tmp_path / "x.txt")), "x.txt", ".h5")
    refused(lambda: fm.simulate(model, 1e-300), "t_end", "1e-300")
    assert not (tmp_path / "x.txt").exists()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return guarded_files(tmp_path_factory.mktemp("audit3"))


def cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cli_absurd_values_are_one_line(files, tmp_path):
    line = one_error_line(cli("modes", files["flex"], "--scale", "1e12", "--out", tmp_path / "m.png"))
    assert "scale 1e+12 (--scale)" in line and "use a scale <=" in line
    assert not (tmp_path / "m.png").exists()
    line = one_error_line(cli("animate", files["res"], "--out", tmp_path / "a.gif", "--fps", "1e9"))
    assert "--fps" in line
    line = one_error_line(cli("reduce", files["mesh"], "--interface", "a=box:-0.001,-1,-1,0.001,1,1", "--modes", "2",
                              "--name", " ", "-o", tmp_path / "r.flex.h5"))
    assert "--name" in line
    line = one_error_line(cli("study", "slider-crank", "--vary", "crank_mass=1,2,1", "-o", tmp_path / "s"))
    assert "crank_mass" in line and "twice" in line
    assert not (tmp_path / "s").exists()


def test_a_unit_slip_of_a_case_parameter_is_noted():
    """--set values a unit factor from their default (kg as tonnes, Pa as bar, degrees as radians) get a note;
    a value 2x the default none."""
    import cases
    from flexmbs.catalog.parameters import validate_parameters

    module = cases.get_case("excavator")
    for key, value, words in (("boom", 5.027, "tonnes typed as kg"), ("supply_pressure", 280.0, "bar typed as Pa"),
                              ("boom_angle_deg", 0.314, "radians typed as degrees")):
        with pytest.warns(PlausibilityWarning, match=words):
            validate_parameters(module, {key: value})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        validate_parameters(module, {"boom": 2 * 5027.0})
    spin = cases.get_case("slider-crank")
    with pytest.warns(PlausibilityWarning, match="degrees typed as radians"):
        validate_parameters(spin, {"initial_crank_angle": 90.0})


def test_damping_ratio_of_a_flexible_body(files):
    refused(lambda: fm.Model("m").add_flexible_body("b", files["flex"], damping_ratio=-1.0), "body 'b'",
            "damping_ratio")
    refused(lambda: fm.Model("m").add_flexible_body("b", None), "body 'b'", "flexbody")


def test_reduction_and_pump_api_name_the_argument():
    """The audit's leftovers: a mode count given as text, a body that is not one, a pump flow of NaN — one line
    naming the argument (they were a TypeError, an AttributeError and a message about ``displacement``)."""
    from reduction.io import write_flexbody
    from reduction.reduce import reduce

    refused(lambda: reduce(None, [], "x"), "n_modes", "'x'")
    refused(lambda: write_flexbody(None, "unused.flex.h5"), "write_flexbody", "body", "NoneType")
    refused(lambda: h.FixedDisplacementPump.from_flow("p", math.nan), "pump 'p'", "flow", "m^3/s")
