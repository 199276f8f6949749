"""Mesh input: formats, element types, named sets, and clear errors for bad input."""
import subprocess
import sys
import warnings

import meshio
import numpy as np
import pytest

from fem.errors import FlexmbsError, MeshError, SelectionError, MaterialError
from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model

BOX = (1.0, 0.05, 0.05)
VOLUME = BOX[0] * BOX[1] * BOX[2]


@pytest.mark.parametrize("order,hexahedra,size", [(1, False, 0.02), (2, False, 0.025), (1, True, 0.025),
                                                  (2, True, 0.025)])
def test_box_mass_equals_rho_v(mesh_dir, order, hexahedra, size):
    """Consistent mass of a meshed box is ρV to 1e-10 relative for P1, P2, Q1, Q2 elements."""
    path = bar_mesh(str(mesh_dir / f"box_{order}_{hexahedra}.msh"), order=order, hexahedra=hexahedra, size=size)
    mesh = load_mesh(path)
    expected_type = {(1, False): "tetra", (2, False): "tetra10", (1, True): "hexahedron",
                     (2, True): "hexahedron27"}[(order, hexahedra)]
    assert mesh.cell_type == expected_type
    model = solid_model(mesh, "steel")
    props = model.rigid_body_properties()
    assert props["mass"] == pytest.approx(7850.0 * VOLUME, rel=1e-10)
    assert np.allclose(props["center_of_mass"], np.array(BOX) / 2, atol=1e-10)
    # inertia about the centroid of a solid box: m (b² + c²) / 12
    m = props["mass"]
    assert props["inertia"][0, 0] == pytest.approx(m * (BOX[1] ** 2 + BOX[2] ** 2) / 12, rel=1e-9)
    assert props["inertia"][1, 1] == pytest.approx(m * (BOX[0] ** 2 + BOX[2] ** 2) / 12, rel=1e-9)
    assert model.nodal_masses().sum() == pytest.approx(m, rel=1e-10)
    assert np.all(model.nodal_masses() > 0)


@pytest.mark.parametrize("fmt", ["msh2", "msh4", "vtu", "inp", "bdf"])
def test_every_format_loads(mesh_dir, fmt):
    """The same tet10 bar written as Gmsh v2/v4, VTU, Abaqus and Nastran reads back with the same mass."""
    version = 2.2 if fmt == "msh2" else 4.1
    src = bar_mesh(str(mesh_dir / f"fmt_{fmt}.msh"), order=2, size=0.05, msh_version=version)
    if fmt.startswith("msh"):
        path = src
    else:
        raw = meshio.read(src)
        volume = [c for c in raw.cells if c.type == "tetra10"]
        path = str(mesh_dir / f"fmt.{fmt}")
        meshio.write(path, meshio.Mesh(raw.points, volume))
    mesh = load_mesh(path)
    assert mesh.cell_type == "tetra10"
    assert solid_model(mesh, "steel").rigid_body_properties()["mass"] == pytest.approx(7850.0 * VOLUME, rel=1e-10)
    if fmt.startswith("msh"):  # physical groups become named sets
        assert {"bar", "end_x0", "end_x1"} <= set(mesh.node_sets)
        assert len(mesh.element_sets["bar"]) == mesh.n_elements


def _tet_mesh():
    points = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], dtype=float)
    return points, np.array([[0, 1, 2, 3], [1, 2, 3, 4]])


def test_bad_meshes_raise_clear_errors(tmp_path):
    points, tets = _tet_mesh()
    surface = tmp_path / "surface.vtu"
    meshio.write(surface, meshio.Mesh(points, [("triangle", tets[:, :3])]))
    with pytest.raises(MeshError, match="no volume cells"):
        load_mesh(surface)
    inverted = tmp_path / "inverted.vtu"
    meshio.write(inverted, meshio.Mesh(points, [("tetra", tets[:, [0, 2, 1, 3]])]))
    with pytest.raises(MeshError, match="inverted"):
        load_mesh(inverted)
    wedge = tmp_path / "wedge.vtu"
    meshio.write(wedge, meshio.Mesh(np.vstack([points, [[0, 1, 1]]]), [("wedge", np.array([[0, 1, 2, 3, 4, 5]]))]))
    with pytest.raises(MeshError, match="wedge"):
        load_mesh(wedge)
    with pytest.raises(MeshError, match="does not exist"):
        load_mesh(tmp_path / "missing.msh")
    garbage = tmp_path / "garbage.msh"
    garbage.write_text("this is not a mesh\n")
    with pytest.raises(MeshError, match="cannot read"):
        load_mesh(garbage)


def test_unused_nodes_dropped_and_units_warned(tmp_path):
    points, tets = _tet_mesh()
    path = tmp_path / "mm.vtu"
    meshio.write(path, meshio.Mesh(np.vstack([points * 1000.0, [[5e3, 5e3, 5e3]]]), [("tetra", tets)]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mesh = load_mesh(path)
    text = " ".join(str(w.message) for w in caught)
    assert mesh.n_nodes == 5 and "dropped 1 node" in text and "metres" in text


def test_selectors_and_materials(bar_tet10):
    mesh = load_mesh(bar_tet10)
    model = solid_model(mesh, "aluminium")
    end = model.select("box:-1e-9,-1,-1,1e-9,1,1")
    assert np.allclose(model.positions[end, 0], 0.0)
    assert set(model.select("group:end_x0")) == set(end)
    sphere = model.select("sphere:0.5,0.025,0.025,0.02")
    assert np.all(np.linalg.norm(model.positions[sphere] - [0.5, 0.025, 0.025], axis=1) <= 0.02 + 1e-9)
    ids = mesh.node_ids[end[:3]]
    assert list(model.select("nodes:" + ",".join(map(str, ids)))) == list(end[:3])
    with pytest.raises(SelectionError, match="matches no node.*spans"):
        model.select("sphere:5,5,5,0.1")
    with pytest.raises(SelectionError, match="no group"):
        model.select("group:nothing")
    with pytest.raises(SelectionError, match="unknown selector"):
        model.select("ball:1,2,3")
    with pytest.raises(MaterialError):
        solid_model(mesh, "unobtainium")
    with pytest.raises(MaterialError, match="Poisson"):
        solid_model(mesh, "E=1e9,nu=0.7,rho=1000")


def test_per_region_materials(mesh_dir):
    """Two element sets with different densities: mass = Σ ρ_i V_i."""
    import gmsh

    from fem.meshing import gmsh_session

    path = str(mesh_dir / "two_regions.msh")
    with gmsh_session("two") as g:
        a = g.model.occ.addBox(0, 0, 0, 0.5, 0.05, 0.05)
        b = g.model.occ.addBox(0.5, 0, 0, 0.5, 0.05, 0.05)
        g.model.occ.fragment([(3, a)], [(3, b)])
        g.model.occ.synchronize()
        vols = sorted(g.model.getEntities(3), key=lambda e: g.model.occ.getCenterOfMass(*e)[0])
        g.model.addPhysicalGroup(3, [vols[0][1]], name="steel_part")
        g.model.addPhysicalGroup(3, [vols[1][1]], name="alu_part")
        g.option.setNumber("Mesh.MeshSizeMax", 0.025)
        g.model.mesh.generate(3)
        g.write(path)
    del gmsh
    mesh = load_mesh(path)
    model = solid_model(mesh, {"steel_part": "steel", "alu_part": "aluminium"})
    assert model.rigid_body_properties()["mass"] == pytest.approx((7850 + 2700) * VOLUME / 2, rel=1e-10)
    with pytest.raises(FlexmbsError, match="no material"):
        solid_model(mesh, {"steel_part": "steel"})


def test_cli_errors_are_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "flexmbs", "modal", str(tmp_path / "none.msh")],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines == [f"error: mesh file '{tmp_path / 'none.msh'}' does not exist"]
