"""ANSYS files (fem/ansys.py, ansys-mapdl-reader): .cdb mesh, components and materials; .full matrices.

References: the example files that ship with ansys-mapdl-reader, written by ANSYS 2019 R2 (``HexBeam.cdb``: a
1 × 1 × 5 beam of 40 SOLID186 20-node hexahedra, aluminium E = 70 GPa, ν = 0.35, ρ = 2700; ``TetBeam.cdb``: the
same beam in tetrahedra, no material; ``file.full``: the stiffness and mass matrices ANSYS assembled for the HexBeam
mesh clamped at z = 0 with the material of ``file.rst``, EX = 16.9e6, NUXY = 0.31, DENS = 4.1408e-4). Masses are
checked against ρ V of the geometry; the .full matrices entry by entry against our own assembly of the .cdb mesh with
ANSYS's integration rules for SOLID186 (2 × 2 × 2 Gauss points for the stiffness, KEYOPT(2) = 0; the 14-point rule
for the mass), which checks the reader, the node and dof numbering and our 20-node element at once.
"""
import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("ansys.mapdl.reader")

from ansys.mapdl.reader import examples  # noqa: E402

from fem.analysis import modal_analysis  # noqa: E402
from fem.ansys import cdb_positions, read_full  # noqa: E402
from fem.errors import MaterialError, ModelError  # noqa: E402
from fem.materials import Material  # noqa: E402
from fem.mesh import load_mesh  # noqa: E402
from fem.model import solid_model  # noqa: E402


def test_cdb_mesh_components_and_material():
    """HexBeam.cdb: 321 nodes, 40 hexahedron20, its ANSYS node numbers, components as groups (the same through
    the node-file route), MAT1 as written; the mass is ρ V = 2700 × 5 m³ to 1e-12 and the free–free model has six
    zero modes."""
    mesh = load_mesh(examples.hexarchivefile)
    assert (mesh.cell_type, mesh.n_nodes, mesh.n_elements) == ("hexahedron20", 321, 40)
    assert set(mesh.node_ids) == set(range(1, 322))
    assert {"NCOMP2", "NODE_SELECTION", "ECOMP1", "ECOMP2", "MAT1"} <= set(mesh.node_sets)
    assert len(mesh.element_sets["ECOMP1"]) == 22 and len(mesh.node_sets["NCOMP2"]) == 98
    mat = mesh.materials["MAT1"]
    assert (mat.youngs_modulus, mat.poisson_ratio, mat.density) == (7.0e10, 0.35, 2700.0)
    positions, groups = cdb_positions(examples.hexarchivefile)  # the --nodes route of matrices from a .full
    assert all(np.array_equal(np.sort(ids), np.sort(mesh.node_ids[mesh.node_sets[name]]))
               for name, ids in groups.items()) and len(groups) == 4
    assert all(np.allclose(positions[int(i)], p) for i, p in zip(mesh.node_ids, mesh.points))
    model = solid_model(mesh)
    assert model.mass.sum() / 3 == pytest.approx(2700.0 * 5.0, rel=1e-12)
    f = modal_analysis(model, 8).frequencies_hz
    assert np.all(np.abs(f[:6]) < 1e-4 * f[6])


def test_cdb_material_flag_gives_the_same_frequencies():
    """The archive's material and --material with the same values give the same model (frequencies to 1e-10)."""
    mesh = load_mesh(examples.hexarchivefile)
    f_file = modal_analysis(solid_model(mesh), 9).frequencies_hz[6:]
    f_flag = modal_analysis(solid_model(mesh, Material(7.0e10, 0.35, 2700.0)), 9).frequencies_hz[6:]
    np.testing.assert_allclose(f_file, f_flag, rtol=1e-10)


def _edited_hexbeam(tmp_path, second_material: str) -> str:
    """HexBeam.cdb with elements 1-10 moved to material 2 (the MAT field of their EBLOCK record) and the given MPDATA
    lines for it."""
    lines = open(examples.hexarchivefile).read().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("EBLOCK")) + 2
    out, i = lines[:start], start
    while not lines[i].strip().startswith("-1"):
        fields = lines[i].split()
        if len(fields) == 19 and int(fields[10]) <= 10:  # first record line of elements 1-10
            lines[i] = f"{2:>10d}" + lines[i][10:]
        out.append(lines[i])
        i += 1
    out += lines[i:]
    at = next(k for k, line in enumerate(out) if line.startswith("MPDATA"))
    out.insert(at, second_material)
    path = tmp_path / "two.cdb"
    path.write_text("".join(out))
    return str(path)


def test_cdb_two_materials_and_refusals(tmp_path):
    """Two materials in one archive: mass 2700 V1 + 7850 V2 (the 40 elements are 0.125 m³ each), to 1e-12; a
    temperature table and an archive without material (TetBeam.cdb) are one-line errors."""
    steel = ("MPTEMP,R5.0, 1, 1,  0.00000000    ,\nMPDATA,R5.0, 1,EX  ,       2, 1, 2.1E+11,\n"
             "MPDATA,R5.0, 1,PRXY,       2, 1, 0.3,\nMPDATA,R5.0, 1,DENS,       2, 1, 7850.,\n")
    mesh = load_mesh(_edited_hexbeam(tmp_path, steel))
    assert sorted(mesh.materials) == ["MAT1", "MAT2"] and len(mesh.element_sets["MAT2"]) == 10
    model = solid_model(mesh)
    assert model.mass.sum() / 3 == pytest.approx(0.125 * (30 * 2700.0 + 10 * 7850.0), rel=1e-12)
    table = "MPDATA,R5.0, 2,EX  ,       2, 1, 2.1E+11, 2.0E+11,\nMPDATA,R5.0, 1,DENS,       2, 1, 7850.,\n"
    with pytest.raises(MaterialError, match="depends on temperature"):
        load_mesh(_edited_hexbeam(tmp_path, table))
    with pytest.raises(MaterialError, match="lacks PRXY/NUXY"):
        load_mesh(_edited_hexbeam(tmp_path, "MP,EX,2,2.1e11\nMP,DENS,2,7850\n"))
    with pytest.raises(MaterialError, match="defines no material"):
        solid_model(load_mesh(examples.tetarchivefile))


def _ansys_rules_matrices(mesh, e, nu, rho):
    """K with 2 × 2 × 2 Gauss points and M with the 14-point rule (Irons) on our 20-node elements."""
    import skfem

    from fem.solid import assemble_mass, assemble_stiffness, discretize

    disc = discretize(mesh)
    n = mesh.n_elements
    lam, mu = e * nu / ((1 + nu) * (1 - 2 * nu)), e / (2 * (1 + nu))
    disc.basis = skfem.CellBasis(disc.skmesh, disc.element, intorder=3)  # 2 points per direction
    k = assemble_stiffness(disc, np.full(n, lam), np.full(n, mu))
    a, b, w1, w2 = 0.795822425754222, 0.758786910639328, 0.886426592797784, 0.335180055401662
    points = [[s * a if i == j else 0.0 for j in range(3)] for i in range(3) for s in (-1, 1)]
    points += [[x * b, y * b, z * b] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    quadrature = ((np.array(points).T + 1.0) / 2.0, np.array([w1] * 6 + [w2] * 8) / 8.0)  # onto [0, 1]³
    disc.basis = skfem.CellBasis(disc.skmesh, disc.element, quadrature=quadrature)
    return k, assemble_mass(disc, np.full(n, rho))


def test_full_matrices_are_ansys_solid186_of_the_archive():
    """file.full read by our import (node, dof, node, dof, value) equals our assembly of HexBeam.cdb with ANSYS's
    SOLID186 rules and file.rst's material, on every unconstrained dof: relative to the largest entry 1e-10
    (measured 4e-14 for K, 2e-12 for M)."""
    from ansys.mapdl.reader import read_binary

    material = read_binary(examples.rstfile).materials[1]
    mesh = load_mesh(examples.hexarchivefile)
    k_ours, m_ours = _ansys_rules_matrices(mesh, material["EX"], material["NUXY"], material["DENS"])
    where = {int(i): k for k, i in enumerate(mesh.node_ids)}
    for which, ours in (("K", k_ours), ("M", m_ours)):
        entries = read_full(examples.fullfile, which, allow_constrained=True)
        rows = np.array([3 * where[int(n)] + int(d) - 1 for n, d in entries[:, :2]])
        cols = np.array([3 * where[int(n)] + int(d) - 1 for n, d in entries[:, 2:4]])
        theirs = sp.coo_matrix((entries[:, 4], (rows, cols)), shape=ours.shape).toarray()
        theirs = theirs + np.triu(theirs, 1).T
        kept = np.unique(rows)
        assert kept.size == 963 - 63  # the 21 nodes at z = 0 are clamped in the file
        ours = ours.toarray()[np.ix_(kept, kept)]
        difference = np.abs(theirs[np.ix_(kept, kept)] - ours).max() / np.abs(ours).max()
        assert difference < 1e-10, (which, difference)


def test_full_with_constraints_is_refused():
    with pytest.raises(ModelError, match="63 constrained dofs"):
        read_full(examples.fullfile, "K")
