"""`flexmbs reduce` / `flexmbs info` from the command line: JSON contract and one-line errors."""
import json
import subprocess
import sys

import pytest

from fem.meshing import connecting_bar_mesh


def run(*args):
    return subprocess.run([sys.executable, "-m", "flexmbs", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def coarse_bar(tmp_path_factory):
    return connecting_bar_mesh(str(tmp_path_factory.mktemp("cli") / "bar.msh"), size=0.04)


def test_reduce_json_and_info(coarse_bar, tmp_path):
    out = str(tmp_path / "bar.flex.h5")
    report = str(tmp_path / "report.md")
    result = run("reduce", coarse_bar, "--material", "steel", "-o", out, "--interface", "a=group:bore_a", "--interface",
                 "b=group:bore_b:rbe3:dofs=123", "--modes", "8", "--damping", "0.05", "--report", report,
                 "--output-nodes", "box:1.2,-1,-1,1.3,1,1", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in ("physical_dofs", "interfaces", "fixed_interface_hz", "rigid_modes_removed", "elastic_modes",
                "reduced_hz", "full_free_free_hz", "mac", "mass", "center_of_mass", "inertia", "seconds", "file",
                "pairs", "warnings"):
        assert key in data
    assert data["rigid_modes_removed"] == 6 and data["elastic_modes"] == 8 + 6 + 3 - 6
    assert data["interfaces"][1] == {"name": "b", "spider": "rbe3", "nodes": data["interfaces"][1]["nodes"],
                                     "dofs": "123"}
    assert data["reduced_hz"] == sorted(data["reduced_hz"])
    assert abs(data["reduced_hz"][0] / data["full_free_free_hz"][0] - 1) < 0.01
    assert "| full mode | character | full FE free–free [Hz] | reduced mode |" in open(report).read()
    assert data["pairs"][0]["full_mode"] == 1 and data["pairs"][0]["mac"] > 0.99  # first bending: paired by shape
    assert isinstance(data["warnings"], list)
    info = run("info", out, "--json")
    assert info.returncode == 0 and json.loads(info.stdout)["elastic_modes"] == data["elastic_modes"]


@pytest.mark.parametrize("args,message", [
    (["--interface", "a=sphere:9,9,9,0.01", "--modes", "4"], "matches no node"),
    (["--interface", "a=group:bore_a", "--modes", "0"], "at least 1"),
    (["--interface", "a=group:nothing", "--modes", "4"], "no group"),
    (["--interface", "a", "--modes", "4"], "NAME=SELECTOR"),
    (["--interface", "a=group:bore_a", "--max-frequency", "-5"], "--max-frequency"),
])
def test_reduce_errors_are_one_line(coarse_bar, tmp_path, args, message):
    result = run("reduce", coarse_bar, "--material", "steel", "-o", str(tmp_path / "x.flex.h5"), *args)
    assert result.returncode == 2 and result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and message in lines[0]
    assert not (tmp_path / "x.flex.h5").exists()


def test_disconnected_mesh_is_one_line_error(two_piece_mesh, tmp_path):
    result = run("reduce", two_piece_mesh, "--material", "steel", "-o", str(tmp_path / "x.flex.h5"), "--interface", "a=box:-1e-9,-1,-1,1e-9,1,1")
    assert result.returncode == 2
    assert [line for line in result.stderr.splitlines() if line.startswith("error:")] == [
        "error: the mesh has 2 disconnected pieces; a flexible body must be one connected part (mesh the parts "
        "separately or join them)"]


def test_reduce_geometric_stiffness_flag_stores_the_matrices(coarse_bar, tmp_path):
    """``--geometric-stiffness`` writes the optional group (issue 28); the file reads back with it."""
    from reduction import read_flexbody

    out = str(tmp_path / "gs.flex.h5")
    result = run("reduce", coarse_bar, "-o", out, "--interface", "a=group:bore_a", "--interface", "b=group:bore_b",
                 "--modes", "4", "--compare", "0", "--stress-field", "none", "--material", "steel",
                 "--geometric-stiffness")
    assert result.returncode == 0, result.stderr
    body = read_flexbody(out)
    m = body.n_modes
    assert body.geometric_stiffness.inertia.shape == (12, m, m)
    assert body.geometric_stiffness.deformation.shape == (m, m, m)
