"""Abaqus ``.inp`` files: materials, sections, node ids and surfaces of the file are used (no silent steel).

References: the mass of a box is Σ ρ_i V_i (exact for the consistent mass); the frequencies with the file's
material equal those with the same values given explicitly (the acceptance of issue #29); surface nodes lie on
the plane of the face (geometry).
"""
import numpy as np
import pytest

from fem.analysis import modal_analysis
from fem.errors import MaterialError, MeshError
from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model

BOX = (1.0, 0.05, 0.05)
STEEL = (210e9, 0.3, 7850.0)
ALU = (70e9, 0.33, 2700.0)
ID_OFFSET = 1000  # file node ids start at 1001: the file's numbering must survive


def _material_cards(name, e, nu, rho):
    return [f"*Material, name={name}", "*Elastic", f"{e:.10g}, {nu:.10g}", "*Density", f"{rho:.10g},"]


def write_inp(path, mesh, materials=True, split=True):
    """A C3D10 input file of ``mesh`` as Abaqus/CAE writes one: sets, two sections, an element-face surface."""
    ids = np.arange(mesh.n_nodes) + 1 + ID_OFFSET
    centre_x = mesh.points[mesh.cells[:, :4]].mean(axis=1)[:, 0]
    left = np.flatnonzero(centre_x < 0.5) + 1
    right = np.flatnonzero(centre_x >= 0.5) + 1
    lines = ["*Heading", "** generated for a flexmbs test", "*Node"]
    lines += [f"{i}, {x:.17g}, {y:.17g}, {z:.17g}" for i, (x, y, z) in zip(ids, mesh.points)]
    lines.append("*Element, type=C3D10")
    lines += [f"{k + 1}, " + ", ".join(str(int(ids[n])) for n in cell) for k, cell in enumerate(mesh.cells)]
    for name, elems in (("Left", left), ("Right", right)):
        lines.append(f"*Elset, elset={name}")
        lines += [", ".join(str(e) for e in elems[i:i + 16]) for i in range(0, elems.size, 16)]
    lines += ["*Elset, elset=ALL, generate", f"1, {mesh.n_elements}, 1"]
    # the elements with a face on x = 0, and which face (S1..S4) it is
    on_plane = np.abs(mesh.points[:, 0]) < 1e-9
    faces = {1: (0, 1, 2), 2: (0, 3, 1), 3: (1, 3, 2), 4: (2, 3, 0)}
    for face, corners in faces.items():
        hit = np.flatnonzero(on_plane[mesh.cells[:, list(corners)]].all(axis=1)) + 1
        if hit.size:
            lines.append(f"*Elset, elset=_end_S{face}")
            lines += [", ".join(str(e) for e in hit[i:i + 16]) for i in range(0, hit.size, 16)]
    lines.append("*Surface, type=ELEMENT, name=END")
    lines += [f"_end_S{face}, S{face}" for face in faces if f"*Elset, elset=_end_S{face}" in lines]
    if materials:
        if split:
            lines += ["** Section: left", "*Solid Section, elset=LEFT, material=Steel", ","]
            lines += ["*Solid Section, elset=right, material=ALU", ","]
        else:
            lines += ["*Solid Section, elset=ALL, material=Steel", ","]
        lines += _material_cards("Steel", *STEEL) + _material_cards("Alu", *ALU)
    lines += ["*Step, name=freq", "*Frequency", "12,", "*End Step"]
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def tet10_mesh(mesh_dir):
    return load_mesh(bar_mesh(str(mesh_dir / "inp_bar.msh"), order=2, size=0.025))


def test_sections_give_each_region_its_material(tet10_mesh, tmp_path):
    """Two *Solid Sections with two materials: mass = ρ_steel V/2 + ρ_alu V/2 (to 1e-10: the consistent mass is
    exact for straight tetrahedra); the file's node ids are kept."""
    mesh = load_mesh(write_inp(tmp_path / "two.inp", tet10_mesh))
    assert set(mesh.materials) == {"Left", "Right"}
    assert mesh.materials["Left"].youngs_modulus == STEEL[0] and mesh.materials["Right"].density == ALU[2]
    volume = BOX[0] * BOX[1] * BOX[2]
    left = mesh.element_sets["Left"]
    from fem.solid import discretize

    disc = discretize(mesh)  # the gmsh mesh is not split at x = 0.5: the left set's volume from its elements
    volumes = np.empty(mesh.n_elements)
    volumes[disc.element_order] = disc.basis.dx.sum(axis=1)
    v_left = volumes[left].sum()
    expected = STEEL[2] * v_left + ALU[2] * (volume - v_left)
    assert solid_model(mesh).rigid_body_properties()["mass"] == pytest.approx(expected, rel=1e-10)
    assert mesh.node_ids.min() == ID_OFFSET + 1
    model = solid_model(mesh)
    picked = model.select(f"nodes:{ID_OFFSET + 1},{ID_OFFSET + 3}")
    assert list(picked) == [0, 2]


def test_file_material_equals_the_same_material_typed(tet10_mesh, tmp_path):
    """Acceptance (#29): a C3D10 .inp with *Material gives the same frequencies with and without an explicit
    material of the same values (to 1e-9 relative: the same matrices)."""
    mesh = load_mesh(write_inp(tmp_path / "one.inp", tet10_mesh, split=False))
    from_file = modal_analysis(solid_model(mesh), 10).frequencies_hz[6:]
    typed = modal_analysis(solid_model(mesh, f"E={STEEL[0]},nu={STEEL[1]},rho={STEEL[2]}"), 10).frequencies_hz[6:]
    np.testing.assert_allclose(from_file, typed, rtol=1e-9)
    assert from_file[0] > 100.0


def test_mesh_without_material_is_a_one_line_error(tet10_mesh, tmp_path):
    mesh = load_mesh(write_inp(tmp_path / "bare.inp", tet10_mesh, materials=False))
    with pytest.raises(MaterialError, match="defines no material") as err:
        solid_model(mesh)
    assert "\n" not in str(err.value) and "--material" in str(err.value)
    with pytest.raises(MaterialError, match="defines no material"):
        solid_model(tet10_mesh)  # a gmsh mesh has no material either


def test_element_surface_is_a_node_group(tet10_mesh, tmp_path):
    """*Surface, type=ELEMENT (faces S1..S4 of element sets): its nodes are exactly the mesh nodes on x = 0,
    corner and mid-side (the end face of the bar)."""
    mesh = load_mesh(write_inp(tmp_path / "surf.inp", tet10_mesh))
    model = solid_model(mesh)
    on_end = np.flatnonzero(np.abs(mesh.points[:, 0]) < 1e-9)
    np.testing.assert_array_equal(model.select("group:END"), on_end)


def test_unused_incomplete_material_is_no_error(tet10_mesh, tmp_path):
    """A material library entry without *Density (a thermal-only material, say) that no section uses is fine."""
    path = write_inp(tmp_path / "lib.inp", tet10_mesh, split=False)
    with open(path, "a") as handle:
        handle.write("*Material, name=Thermal\n*Conductivity\n45.,\n")
    assert set(load_mesh(path).materials) == {"ALL"}


@pytest.mark.parametrize("cards,message", [
    (["*Solid Section, elset=ALL, material=Nothing", ","], "does not define"),
    (["*Solid Section, elset=NoSet, material=Steel", ","] + _material_cards("Steel", *STEEL), "NoSet"),
    (["*Material, name=Steel", "*Elastic", "210e9, 0.3", "*Solid Section, elset=ALL, material=Steel"],
     r"no \*Density"),
    (["*Material, name=Steel", "*Elastic, type=ENGINEERING CONSTANTS", "1,2,3,4,5,6,7,8,9", "*Density", "7850,"],
     "isotropic"),
])
def test_bad_material_cards_are_one_line_errors(tet10_mesh, tmp_path, cards, message):
    path = write_inp(tmp_path / "bad.inp", tet10_mesh, materials=False)
    with open(path, "a") as handle:
        handle.write("\n".join(cards) + "\n")
    with pytest.raises((MaterialError, MeshError), match=message) as err:
        load_mesh(path)
    assert "\n" not in str(err.value)


def _modal_cli(*args):
    import json
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "flexmbs", "modal", *args, "--json"], capture_output=True,
                            text=True)
    return result, (json.loads(result.stdout) if result.returncode == 0 else None)


def test_cli_uses_the_file_material_and_notes_an_override(tet10_mesh, tmp_path):
    """`flexmbs modal FILE.inp` takes the file's material; `--material` of the same values gives the same
    frequencies (to 1e-9) and a note that it replaces the file's; a mesh without material fails with one line."""
    path = write_inp(tmp_path / "one.inp", tet10_mesh, split=False)
    plain, data = _modal_cli(path, "--modes", "8")
    assert plain.returncode == 0, plain.stderr
    typed, data_typed = _modal_cli(path, "--modes", "8", "--material", f"E={STEEL[0]},nu={STEEL[1]},rho={STEEL[2]}")
    assert typed.returncode == 0, typed.stderr
    np.testing.assert_allclose(data["frequencies_hz"][6:], data_typed["frequencies_hz"][6:], rtol=1e-9)
    assert "replaces the material(s)" in typed.stderr and "replaces" not in plain.stderr
    assert "material from the file: ALL: Steel (E=2.1e+11 Pa, nu=0.3, rho=7850 kg/m³)" in plain.stderr
    bare, _ = _modal_cli(write_inp(tmp_path / "bare.inp", tet10_mesh, materials=False))
    assert bare.returncode == 2 and bare.stdout == ""
    lines = [line for line in bare.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "defines no material" in lines[0] and "--material" in lines[0]


def test_cli_rejects_file_materials_in_other_units(tet10_mesh, tmp_path):
    """A mm-t-s file (E in MPa, ρ in t/mm³) is not read as SI silently: one line saying so."""
    path = write_inp(tmp_path / "mm.inp", tet10_mesh, materials=False)
    with open(path, "a") as handle:
        handle.write("\n".join(["*Solid Section, elset=ALL, material=Steel", ","]
                               + _material_cards("Steel", 210000.0, 0.3, 7.85e-9)) + "\n")
    result, _ = _modal_cli(path)
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "mm-t-s" in lines[0]


def test_c3d20_faces_are_the_face_nodes():
    """Element faces S1..S6 of a 20-node hexahedron (meshio/VTK order = Abaqus C3D20 order) on the unit cube: each
    is the 4 corners and 4 mid-side nodes lying in that face's plane (the Abaqus face numbering: S1 z = 0, S2 z = 1,
    S3 y = 0, S4 x = 1, S5 y = 1, S6 x = 0)."""
    from fem.abaqus import face_nodes

    corners = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [1, 1, 1], [0, 1, 1]], float)
    edges = [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4), (0, 4), (1, 5), (2, 6), (3, 7)]
    points = np.vstack([corners, [(corners[a] + corners[b]) / 2 for a, b in edges]])
    planes = [(2, 0.0), (2, 1.0), (1, 0.0), (0, 1.0), (1, 1.0), (0, 0.0)]
    for face, (axis, value) in enumerate(planes, start=1):
        nodes = face_nodes(np.arange(20)[None, :], "hexahedron20", face)
        np.testing.assert_array_equal(nodes, np.flatnonzero(points[:, axis] == value))
        assert nodes.size == 8
