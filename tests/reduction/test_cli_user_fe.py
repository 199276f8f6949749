"""The command line with a user's FE model: supports of single dofs (NAFEMS FV32 from the CLI alone) and the
interface reference point (``--interface a=SEL:rbe2@x,y,z``)."""
import json
import subprocess
import sys

import numpy as np
import pytest

from fem.meshing import bar_mesh

FV32_HZ = np.array([44.623, 130.03, 162.70, 246.05, 379.90, 391.44])  # NAFEMS R0015 test 32 (plane stress)


def run(*args):
    return subprocess.run([sys.executable, "-m", "flexmbs", *args], capture_output=True, text=True)


def test_fv32_from_the_command_line(tmp_path):
    """FV32 from the command line alone: `flexmbs mesh nafems-fv32` (the documented 16 × 8 × 1 hexahedra of 27
    nodes) and `modal --fix group:root:dofs=12 --fix group:bottom:dofs=3`: within 1 % of the NAFEMS targets
    (measured ≤ 0.01 %)."""
    mesh = str(tmp_path / "fv32.msh")
    made = run("mesh", "nafems-fv32", mesh)
    assert made.returncode == 0, made.stderr
    result = run("modal", mesh, "--material", "E=200e9,nu=0.3,rho=8000", "--fix", "group:root:dofs=12", "--fix",
                 "group:bottom:dofs=3", "--modes", "6", "--json")
    assert result.returncode == 0, result.stderr
    np.testing.assert_allclose(json.loads(result.stdout)["frequencies_hz"], FV32_HZ, rtol=0.01)


@pytest.fixture(scope="module")
def bar(tmp_path_factory):
    return bar_mesh(str(tmp_path_factory.mktemp("refpoint") / "bar.msh"), order=1, size=0.025)


def test_interface_reference_point_from_the_command_line(bar, tmp_path):
    """`a=SEL:rbe2@x,y,z` puts the reference node at x, y, z (here 0.1 m in front of the end face); without it the
    node is at the area-weighted centroid of the face's nodes."""
    from reduction.io import read_flexbody

    out = str(tmp_path / "bar.flex.h5")
    result = run("reduce", bar, "--material", "steel", "-o", out, "--interface",
                 "a=box:-1e-9,-1,-1,1e-9,1,1:rbe2@-0.1,0.025,0.025", "--interface",
                 "b=box:0.9999999,-1,-1,1.0000001,1,1:rbe3:dofs=123", "--modes", "4", "--compare", "0", "--json")
    assert result.returncode == 0, result.stderr
    body = read_flexbody(out)
    a, b = (body.positions[i.node] for i in body.interfaces)
    np.testing.assert_allclose(a, [-0.1, 0.025, 0.025], atol=1e-12)
    assert b[0] == pytest.approx(1.0, abs=1e-9) and np.all((b[1:] > 0.0) & (b[1:] < 0.05))
    assert body.interfaces[1].retained_dofs == "123"


@pytest.mark.parametrize("spec", ["a=box:-1e-9,-1,-1,1e-9,1,1:rbe2@1,2", "a=box:-1e-9,-1,-1,1e-9,1,1:rbe2@x,0,0"])
def test_bad_reference_point_is_one_line_error(bar, tmp_path, spec):
    result = run("reduce", bar, "--material", "steel", "-o", str(tmp_path / "x.flex.h5"), "--interface", spec)
    assert result.returncode == 2 and result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "three numbers" in lines[0]


def test_fix_with_bad_dofs_is_one_line_error(bar):
    result = run("modal", bar, "--material", "steel", "--fix", "box:-1e-9,-1,-1,1e-9,1,1:dofs=7")
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "123456" in lines[0]


def test_ansys_archive_and_full_from_the_command_line(tmp_path):
    """`flexmbs modal HexBeam.cdb` (ansys-mapdl-reader's ANSYS example) takes the archive's MPDATA material: the
    same frequencies as `--material E=7e10,nu=0.35,rho=2700` (1e-9); the reduction of clamped .full matrices (the
    example's file.full is clamped at z = 0) is one error line (an archive without material: test_fem_ansys.py)."""
    examples = pytest.importorskip("ansys.mapdl.reader.examples")
    runs = [run("modal", examples.hexarchivefile, "--modes", "9", "--json", *extra)
            for extra in ([], ["--material", "E=7e10,nu=0.35,rho=2700"])]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    f_file, f_flag = (np.array(json.loads(r.stdout)["frequencies_hz"][6:]) for r in runs)
    np.testing.assert_allclose(f_file, f_flag, rtol=1e-9)
    assert "note:" in runs[1].stderr and "note:" not in runs[0].stderr
    bad = run("reduce", "--stiffness", examples.fullfile, "--mass", examples.fullfile, "--nodes",
              examples.hexarchivefile, "-o", str(tmp_path / "x.flex.h5"), "--interface", "a=group:NCOMP2")
    lines = [line for line in bad.stderr.splitlines() if line.startswith("error:")]
    assert bad.returncode == 2 and len(lines) == 1 and "63 constrained dofs" in lines[0], bad.stderr
