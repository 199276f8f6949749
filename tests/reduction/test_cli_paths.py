"""`flexmbs reduce --path`: sliding paths named in the FlexBody file, as interior nodes or as interface dofs."""
import json
import subprocess
import sys

import numpy as np
import pytest

from fem.meshing import bar_mesh

TOP = "box:0.05,0.0499,0.0999,0.95,0.0501,0.1001"  # top centre line of a 1 × 0.1 × 0.1 m bar, ends excluded


def run(*args):
    return subprocess.run([sys.executable, "-m", "flexmbs", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def bar(tmp_path_factory):
    return bar_mesh(str(tmp_path_factory.mktemp("paths") / "bar.msh"), length=1.0, width=0.1, height=0.1,
                    size=0.1, order=2, hexahedra=True)


@pytest.mark.parametrize("spec,dofs", [pytest.param(TOP, "", marks=pytest.mark.slow), (TOP + ":dofs=3", "3")])
def test_reduce_names_a_path_and_adds_its_static_modes(bar, tmp_path, spec, dofs):
    from reduction.io import read_flexbody

    out = str(tmp_path / "bar.flex.h5")
    result = run("reduce", bar, "--material", "steel", "-o", out, "--interface", "a=box:-1e-9,-1,-1,1e-9,1,1", "--interface",
                 "b=box:0.9999999,-1,-1,1.0000001,1,1", "--modes", "6", "--path", f"rail={spec}", "--compare", "0",
                 "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    n_path = 19  # nodes at x = 0.05 .. 0.95 every 0.05 m (27-node hexahedra of 0.1 m)
    assert data["paths"] == {"rail": {"nodes": n_path, "dofs": dofs}}
    # elastic coordinates = normal modes + boundary dofs − 6 rigid modes; each path node adds one boundary dof (z)
    assert data["elastic_modes"] == 6 + 12 - 6 + (n_path if dofs else 0)
    body = read_flexbody(out)
    x = body.positions[body.paths["rail"].nodes, 0]
    assert np.all(np.diff(x) > 0)  # stored in order along the path
    np.testing.assert_allclose(body.positions[body.paths["rail"].nodes, 2], 0.1)


def test_path_matching_one_node_is_a_one_line_error(bar, tmp_path):
    result = run("reduce", bar, "--material", "steel", "-o", str(tmp_path / "x.flex.h5"), "--interface", "a=box:-1e-9,-1,-1,1e-9,1,1",
                 "--modes", "4", "--path", "rail=sphere:0.5,0.05,0.1,0.001")
    assert result.returncode == 2 and result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "at least 2 nodes" in lines[0]
