"""Nastran bulk data read with pyNastran: PSOLID/MAT1 materials per region and GRID ids (no silent steel).

References: the consistent mass of straight tetrahedra is exactly Σ ρ_i V_i; frequencies with the file's MAT1
equal those with the same values given explicitly (the same matrices).
"""
import sys
import warnings

import meshio
import numpy as np
import pytest

from fem.analysis import modal_analysis
from fem.errors import MaterialError
from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model

try:
    import pyNastran.bdf.bdf  # noqa: F401
    HAVE_PYNASTRAN = True
except Exception:  # noqa: BLE001  missing, or pyNastran 1.4.1 under numpy >= 2.4
    HAVE_PYNASTRAN = False
needs_pynastran = pytest.mark.skipif(not HAVE_PYNASTRAN, reason="pyNastran missing or not importable here")

STEEL = (210e9, 0.3, 7850.0)
ALU = (70e9, 0.33, 2700.0)


def write_bdf(path, mesh, split=True):
    """Free-field bulk data of a tetra10 mesh: GRIDs numbered from 101, CTETRAs with PSOLID 1 (x < 0.5, steel)
    and 2 (aluminium, or steel when not ``split``)."""
    ids = np.arange(mesh.n_nodes) + 101
    lines = ["GRID,%d,,%.15e,%.15e,%.15e" % (i, *p) for i, p in zip(ids, mesh.points)]
    centre_x = mesh.points[mesh.cells[:, :4]].mean(axis=1)[:, 0]
    for k, cell in enumerate(mesh.cells):
        pid = 1 if centre_x[k] < 0.5 else 2
        lines.append(f"CTETRA,{k + 1},{pid}," + ",".join(str(ids[n]) for n in cell[:6]) + "\n,"
                     + ",".join(str(ids[n]) for n in cell[6:]))
    second = ALU if split else STEEL
    lines += ["PSOLID,1,11", "PSOLID,2,12", "MAT1,11,%.6e,,%.4f,%.4f" % STEEL, "MAT1,12,%.6e,,%.4f,%.4f" % second]
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def tet10_mesh(mesh_dir):
    return load_mesh(bar_mesh(str(mesh_dir / "bdf_bar.msh"), order=2, size=0.025))


@needs_pynastran
def test_psolid_regions_get_their_mat1(tet10_mesh, tmp_path):
    from fem.solid import discretize

    mesh = load_mesh(write_bdf(tmp_path / "two.bdf", tet10_mesh))
    assert set(mesh.materials) == {"PSOLID1", "PSOLID2"} and mesh.node_ids[0] == 101
    disc = discretize(mesh)
    volumes = np.empty(mesh.n_elements)
    volumes[disc.element_order] = disc.basis.dx.sum(axis=1)
    left = mesh.element_sets["PSOLID1"]
    expected = STEEL[2] * volumes[left].sum() + ALU[2] * (volumes.sum() - volumes[left].sum())
    assert solid_model(mesh).rigid_body_properties()["mass"] == pytest.approx(expected, rel=1e-10)


@needs_pynastran
def test_file_material_equals_the_same_material_typed(tet10_mesh, tmp_path):
    mesh = load_mesh(write_bdf(tmp_path / "one.bdf", tet10_mesh, split=False))
    from_file = modal_analysis(solid_model(mesh), 8).frequencies_hz[6:]
    typed = modal_analysis(solid_model(mesh, "E=210e9,nu=0.3,rho=7850"), 8).frequencies_hz[6:]
    np.testing.assert_allclose(from_file, typed, rtol=1e-9)


def test_without_pynastran_the_geometry_is_read_and_the_material_asked_for(tet10_mesh, tmp_path, monkeypatch):
    """pyNastran not importable: meshio reads the geometry, a warning says what is not read, and the model asks
    for --material instead of assuming one."""
    monkeypatch.setitem(sys.modules, "pyNastran", None)  # import pyNastran... raises ImportError
    monkeypatch.setitem(sys.modules, "pyNastran.bdf", None)
    monkeypatch.setitem(sys.modules, "pyNastran.bdf.bdf", None)
    path = str(tmp_path / "plain.bdf")
    meshio.write(path, meshio.Mesh(tet10_mesh.points, [("tetra10", tet10_mesh.cells)]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mesh = load_mesh(path)
    assert any("pyNastran is not installed" in str(w.message) for w in caught)
    assert mesh.n_elements == tet10_mesh.n_elements and not mesh.materials
    with pytest.raises(MaterialError, match="defines no material"):
        solid_model(mesh)
