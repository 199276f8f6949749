"""Nastran bulk data: PSOLID/MAT1 materials per region and GRID ids (no silent steel).

References: the consistent mass of straight tetrahedra is exactly Σ ρ_i V_i; frequencies with the file's MAT1
equal those with the same values given explicitly (the same matrices).
"""
import numpy as np
import pytest

from fem.analysis import modal_analysis
from fem.errors import MaterialError, MeshError
from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model
from fem.nastran import read_cards

STEEL = (210e9, 0.3, 7850.0)
ALU = (70e9, 0.33, 2700.0)


def _small(*fields):
    """One small-field card line (8 columns per field)."""
    return "".join(f"{str(f):<8s}" for f in fields).rstrip()


def write_bdf(path, mesh, split=True, materials=None):
    """Bulk data of a tetra10 mesh: GRIDs numbered from 101 (large field), CTETRAs (free field) with PSOLID 1
    (x < 0.5) and 2; MAT1 11 steel in small field with Nastran's exponent without E, MAT1 12 aluminium (or steel
    when not ``split``) in free field with ν blank and G given."""
    ids = np.arange(mesh.n_nodes) + 101
    lines = ["SOL 103", "CEND", "BEGIN BULK"]
    for i, (x, y, z) in zip(ids, mesh.points):
        lines += [f"GRID*   {i:<16d}{'':16s}{x:16.9e}{y:16.9e}", f"*       {z:16.9e}"]
    centre_x = mesh.points[mesh.cells[:, :4]].mean(axis=1)[:, 0]
    for k, cell in enumerate(mesh.cells):
        pid = 1 if centre_x[k] < 0.5 else 2
        lines.append(f"CTETRA,{k + 1},{pid}," + ",".join(str(ids[n]) for n in cell[:6]) + ",+C"
                     f"\n+C," + ",".join(str(ids[n]) for n in cell[6:]))
    e2, nu2, rho2 = ALU if split else STEEL
    if materials is None:
        materials = [_small("PSOLID", 1, 11), "PSOLID,2,12", _small("MAT1", 11, "2.1+11", "", 0.3, "7850."),
                     f"MAT1,12,{e2:.6e},{e2 / (2 * (1 + nu2)):.12e},,{rho2}"]
    lines += materials + ["ENDDATA"]
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def tet10_mesh(mesh_dir):
    return load_mesh(bar_mesh(str(mesh_dir / "bdf_bar.msh"), order=2, size=0.025))


def test_card_formats():
    """Small field with 1.5+3 exponents, free field, large field with RHO on the continuation; blanks as None."""
    import tempfile

    large = f"{'MAT1*':<8s}{9:<16d}{'2.0E+11':>16s}{'':16s}{'0.29':>16s}\n{'*':<8s}{'7.8E+03':>16s}\n"
    with tempfile.NamedTemporaryFile("w", suffix=".bdf", delete=False) as handle:
        handle.write(_small("MAT1", 7, "2.1+11", "", 0.3, "7.85+3") + "\nMAT1,8,7e10,,0.33,2700.\nPSOLID,3,8\n" + large)
    mat1, psolid = read_cards(handle.name)
    assert mat1 == {7: (2.1e11, None, 0.3, 7850.0), 8: (7e10, None, 0.33, 2700.0), 9: (2e11, None, 0.29, 7800.0)}
    assert psolid == {3: 8}


def test_psolid_regions_get_their_mat1(tet10_mesh, tmp_path):
    from fem.solid import discretize

    mesh = load_mesh(write_bdf(tmp_path / "two.bdf", tet10_mesh))
    assert set(mesh.materials) == {"PSOLID1", "PSOLID2"} and mesh.node_ids[0] == 101
    assert mesh.materials["PSOLID2"].poisson_ratio == pytest.approx(ALU[1], rel=1e-10)  # from E and G
    disc = discretize(mesh)
    volumes = np.empty(mesh.n_elements)
    volumes[disc.element_order] = disc.basis.dx.sum(axis=1)
    left = mesh.element_sets["PSOLID1"]
    expected = STEEL[2] * volumes[left].sum() + ALU[2] * (volumes.sum() - volumes[left].sum())
    assert solid_model(mesh).rigid_body_properties()["mass"] == pytest.approx(expected, rel=1e-10)
    assert list(solid_model(mesh).select("nodes:101,103")) == [0, 2]


def test_file_material_equals_the_same_material_typed(tet10_mesh, tmp_path):
    mesh = load_mesh(write_bdf(tmp_path / "one.bdf", tet10_mesh, split=False))
    from_file = modal_analysis(solid_model(mesh), 8).frequencies_hz[6:]
    typed = modal_analysis(solid_model(mesh, "E=210e9,nu=0.3,rho=7850"), 8).frequencies_hz[6:]
    np.testing.assert_allclose(from_file, typed, rtol=1e-9)


@pytest.mark.parametrize("cards,error,message", [
    (["PSOLID,1,11", "MAT1,11,2.1e11,,0.3,7850."], MaterialError, "property 2"),
    (["PSOLID,1,11", "PSOLID,2,99", "MAT1,11,2.1e11,,0.3,7850."], MaterialError, "not a MAT1"),
    (["PSOLID,1,11", "PSOLID,2,11", "MAT1,11,2.1e11,,0.3"], MaterialError, "RHO"),
])
def test_bad_cards_are_one_line_errors(tet10_mesh, tmp_path, cards, error, message):
    with pytest.raises(error, match=message) as err:
        load_mesh(write_bdf(tmp_path / "bad.bdf", tet10_mesh, materials=cards))
    assert "\n" not in str(err.value)


def test_local_grid_systems_are_refused(tmp_path):
    path = tmp_path / "cp.bdf"
    path.write_text("BEGIN BULK\nGRID,1,5,0.,0.,0.\nGRID,2,5,1.,0.,0.\nGRID,3,5,0.,1.,0.\nGRID,4,5,0.,0.,1.\n"
                    "CTETRA,1,1,1,2,3,4\nPSOLID,1,1\nMAT1,1,2.1e11,,0.3,7850.\nENDDATA\n")
    with pytest.raises(MeshError, match="coordinate systems"):
        load_mesh(str(path))


def test_set1_cards_are_node_groups(tet10_mesh, tmp_path):
    """SET1 of GRID ids (free field with continuation lines; small field with THRU) become `group:SET1<sid>`: the
    nodes with exactly those GRID ids (written here from the mesh's own end face), case-insensitive."""
    end = np.flatnonzero(tet10_mesh.points[:, 0] < 1e-9) + 101  # GRID ids of the face x = 0 (write_bdf numbering)
    first, rest = end[:3], end[3:]
    lines = [",".join(["SET1", "7", *map(str, first)]) + ",+A", "+A," + ",".join(map(str, rest[:8]))]
    lines += [",".join(["", *map(str, rest[8 * k:8 * k + 8])]) for k in range(1, (rest.size + 7) // 8)]
    small = _small("SET1", 8, 101, "THRU", 110)
    path = write_bdf(tmp_path / "sets.bdf", tet10_mesh, materials=[_small("PSOLID", 1, 11), "PSOLID,2,11",
                                                                   "MAT1,11,2.1e11,,0.3,7850.", *lines, small])
    mesh = load_mesh(path)
    np.testing.assert_array_equal(np.sort(mesh.node_ids[mesh.node_sets["SET17"]]), np.sort(end))
    np.testing.assert_array_equal(np.sort(mesh.node_ids[mesh.node_sets["SET18"]]), np.arange(101, 111))
    model = solid_model(mesh)
    np.testing.assert_array_equal(model.select("group:set17"), np.flatnonzero(tet10_mesh.points[:, 0] < 1e-9))
