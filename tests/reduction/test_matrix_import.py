"""Reduction of matrices imported from another solver (Abaqus *MATRIX GENERATE text, Nastran DMIG and OP4).

Reference: our own K and M of a meshed bar, written in the Abaqus format, read back and reduced, give the same
flexible body as the mesh route (frequencies, mode shapes, invariants to 1e-8 relative): the format round trip and
the matrix route lose nothing.
"""
import warnings

import numpy as np
import pytest

from fem.errors import MeshError, ModelError
from fem.matrices import (matrix_model, read_abaqus_mtx, read_dmig, read_matrix, read_node_positions,
                          write_abaqus_mtx, write_dmig)
from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model
from fem.op4 import write_op4
from reduction.reduce import reduce

END_A, END_B = "box:-1e-9,-1,-1,1e-9,1,1", "box:0.9999999,-1,-1,1.0000001,1,1"
POINT_A, POINT_B = (0.0, 0.025, 0.025), (1.0, 0.025, 0.025)


@pytest.fixture(scope="module")
def mesh(tmp_path_factory):
    return load_mesh(bar_mesh(str(tmp_path_factory.mktemp("mtx") / "bar.msh"), order=2, hexahedra=True,
                              size=0.05))


def export(mesh, folder, with_inp=False, fmt="mtx"):
    """Our K and M of the bare mesh as Abaqus (``mtx``) or Nastran (``dmig``: one punch file with KAAX and MAAX)
    would write them, and the node positions."""
    model = solid_model(mesh, "steel")
    dof_nodes = np.repeat(model.node_ids, 3)
    dof_components = np.tile([1, 2, 3], model.n_nodes)
    if fmt.startswith("dmig"):
        punch, digits = str(folder / "job.pch"), ("punch" if fmt == "dmig-punch" else "max")
        write_dmig(punch, "KAAX", model.full_stiffness, dof_nodes, dof_components, digits=digits)
        write_dmig(punch, "MAAX", model.full_mass, dof_nodes, dof_components, mode="a", digits=digits)
        k, m = punch + ":KAAX", punch + ":MAAX"
    elif fmt.startswith("op4"):  # rows in ascending grid id order, as read_op4 takes them
        pytest.importorskip("pyyeti")  # the optional extra 'op4'
        order = np.argsort(dof_nodes * 10 + dof_components, kind="stable")
        op4 = write_op4(str(folder / "job.op4"), {"KAAX": model.full_stiffness[order][:, order],
                                                  "MAAX": model.full_mass[order][:, order]},
                        binary=fmt == "op4-binary")
        k, m = op4 + ":KAAX", op4 + ":MAAX"
    elif fmt in ("coordinate", "mmf"):
        return export_coordinate(model, folder, fmt)
    else:
        k = write_abaqus_mtx(str(folder / "job_STIF2.mtx"), model.full_stiffness, dof_nodes, dof_components)
        m = write_abaqus_mtx(str(folder / "job_MASS2.mtx"), model.full_mass, dof_nodes, dof_components)
    nodes = str(folder / ("job.inp" if with_inp else "nodes.txt"))
    with open(nodes, "w") as handle:
        if with_inp:
            handle.write("*Heading\n*Node\n")
        handle.writelines(f"{i}, {x:.17g}, {y:.17g}, {z:.17g}\n"
                          for i, (x, y, z) in zip(model.node_ids, model.positions))
        if with_inp:  # the end faces as node sets, for group: selectors
            for name, x in (("END-A", 0.0), ("END-B", 1.0)):
                ids = model.node_ids[np.abs(model.positions[:, 0] - x) < 1e-9]
                handle.write(f"*Nset, nset={name}\n" + "\n".join(", ".join(map(str, ids[i:i + 16]))
                                                                 for i in range(0, ids.size, 16)) + "\n")
    return k, m, nodes


def export_coordinate(model, folder, fmt):
    """K and M in coordinate form, as Abaqus ``*MATRIX OUTPUT, FORMAT=COORDINATE`` writes them (``row column value``,
    both triangles, equations in the ``.inp`` node order, three per node) or as ANSYS ``*EXPORT, , MMF`` with its DOF
    mapping file (MatrixMarket ``coordinate real symmetric``: the lower triangle; the nodes in a shuffled solver
    order the mapping file names) and its node export (a header line, tabs, decimal commas)."""
    n = model.n_nodes
    order = np.arange(n) if fmt == "coordinate" else np.random.default_rng(3).permutation(n)
    dofs = (3 * order[:, None] + np.arange(3)).ravel()  # matrix equation -> our full dof
    paths = []
    for what, matrix in (("STIF1", model.full_stiffness), ("MASS1", model.full_mass)):
        a = matrix[dofs][:, dofs].tocoo()
        if fmt == "coordinate":
            path = str(folder / f"job_{what}.mtx")
            lines = [f"{r + 1} {c + 1}  {v:.16e}\n" for r, c, v in zip(a.row, a.col, a.data)]
        else:
            low = a.row >= a.col
            path = str(folder / f"{what.lower()}.txt")
            lines = ["%%MatrixMarket matrix coordinate real symmetric \n", "% Creator: (test)\n",
                     f"{3 * n} {3 * n} {int(low.sum())}\n"]
            lines += [f"{r + 1} {c + 1} {v:.16E}\n" for r, c, v in zip(a.row[low], a.col[low], a.data[low])]
        with open(path, "w") as handle:
            handle.writelines(lines)
        paths.append(path)
    if fmt == "coordinate":
        nodes = str(folder / "job.inp")
        with open(nodes, "w") as handle:
            handle.write("*Heading\n*Node\n")
            handle.writelines(f"{i}, {x:.17g}, {y:.17g}, {z:.17g}\n"
                              for i, (x, y, z) in zip(model.node_ids, model.positions))
        return paths[0], paths[1], nodes
    nodes, mapping = str(folder / "nodes.txt"), str(folder / "mapping.txt")
    with open(nodes, "w") as handle:
        handle.write("Node number\tX-Position (m)\tY-Position (m)\tZ-Position (m)\t\n")
        handle.writelines("\t".join([str(i)] + [f"{x:.16e}".replace(".", ",") for x in p]) + "\t\n"
                          for i, p in zip(model.node_ids, model.positions))
    with open(mapping, "w") as handle:
        handle.write(f"%%MatrixMarket matrix array integer general \n% (test)\n{n} 1\n")
        handle.writelines(f"{model.node_ids[k]}\n" for k in order)
    return paths[0], paths[1], (nodes, mapping)


def _body(model):
    model.add_reference_node("a", END_A, "rbe2", point=POINT_A)
    model.add_reference_node("b", END_B, "rbe2", point=POINT_B)
    return reduce(model, ["a", "b"], 6, compare_modes=0, stress_field="none")


@pytest.mark.parametrize("with_inp,fmt,rtol", [(False, "mtx", 1e-8), (True, "mtx", 1e-8), (False, "coordinate", 1e-8),
                                               (False, "mmf", 1e-8), (False, "dmig", 1e-7),
                                               (False, "dmig-punch", 1e-5), (False, "op4", 1e-8),
                                               (False, "op4-binary", 1e-8)])
def test_imported_matrices_give_the_mesh_body(mesh, tmp_path, with_inp, fmt, rtol):
    """Abaqus .mtx (17 significant digits) and Nastran OP4 (pyyeti, ASCII 17 digits or binary double): the mesh body
    to 1e-8. Nastran DMIG* (large field, 16 columns): bending frequencies come from differences of entries ~(L/h)²
    larger, so the rounding of the entries is amplified. Written as Nastran punches them (``1.234567890E+05``, 10
    digits) it shows as 2.4e-6 in the frequencies and 1.3e-7 in the shapes (tolerance 1e-5); written with the most
    digits a 16-column field holds (``1.234567890123+5``, 12-13 digits) as 2.1e-8 and ~6e-8 (tolerance 1e-7): a
    DMIG text file cannot carry 1e-8 on this slender bar. Rigid modes of rounded matrices, zero only to ~1e-8 of the
    largest eigenvalue, are removed (by the gap rule, with a warning, where they lie above the round-off threshold)."""
    k, m, nodes = export(mesh, tmp_path, with_inp, fmt)
    nodes, mapping = nodes if isinstance(nodes, tuple) else (nodes, None)
    positions = read_node_positions(nodes)
    imported = matrix_model(read_matrix(k, "--stiffness", positions, mapping),
                            read_matrix(m, "--mass", positions, mapping), positions)
    assert imported.n_dofs == 3 * mesh.n_nodes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        body_file = _body(imported)
    if fmt == "mtx":  # exact matrices: the rigid modes are zero to round-off, no gap rule
        assert not any("precision of imported matrices" in str(w.message) for w in caught)
    body_mesh = _body(solid_model(mesh, "steel"))
    np.testing.assert_allclose(body_file.frequencies_hz, body_mesh.frequencies_hz, rtol=rtol)
    scale = np.abs(body_mesh.translations).max()
    np.testing.assert_allclose(body_file.translations, body_mesh.translations, rtol=0, atol=rtol * scale)
    assert body_file.invariants.mass == pytest.approx(body_mesh.invariants.mass, rel=1e3 * rtol ** 2 + 1e-12)
    np.testing.assert_allclose(body_file.positions, body_mesh.positions, rtol=0, atol=1e-15)


def test_constrained_or_internal_dofs_are_one_line_errors(mesh, tmp_path):
    k, m, nodes = export(mesh, tmp_path)
    entries, mass = read_abaqus_mtx(k), read_abaqus_mtx(m)

    def without_uz_of_node_1(e):  # what an export with a boundary condition u_z = 0 at node 1 holds
        return e[~(((e[:, 0] == 1) & (e[:, 1] == 3)) | ((e[:, 2] == 1) & (e[:, 3] == 3)))]

    with pytest.raises(ModelError, match="free–free"):
        matrix_model(without_uz_of_node_1(entries), without_uz_of_node_1(mass), read_node_positions(nodes))
    internal = np.vstack([entries, [[-5, 1, -5, 1, 1.0]]])
    with pytest.raises(ModelError, match="internal node"):
        matrix_model(internal, mass, read_node_positions(nodes))
    positions = read_node_positions(nodes)
    positions.pop(int(entries[0, 0]))
    with pytest.raises(ModelError, match="no position"):
        matrix_model(entries, mass, positions)
    (tmp_path / "bad.mtx").write_text("1, 1, 1, 1\n")
    with pytest.raises(MeshError, match="node, dof, node, dof, value"):
        read_abaqus_mtx(str(tmp_path / "bad.mtx"))


@pytest.mark.parametrize("fmt", ["mtx", "op4"])
def test_body_from_imported_matrices_runs_in_a_model(mesh, tmp_path, fmt):
    """The body reduced from imported matrices (Abaqus .mtx or Nastran OP4), through its file, clamped at interface
    a and struck at b, rings at the first clamped frequency of the full imported FE model (modal analysis with the
    end face fixed), to 1 % (measured 41.859 Hz against 41.886 Hz, −0.07 %)."""
    import flexmbs as fm
    from fem.analysis import modal_analysis
    from reduction.io import write_flexbody

    k, m, nodes = export(mesh, tmp_path, fmt=fmt)
    positions = read_node_positions(nodes)
    model = matrix_model(read_matrix(k, "--stiffness", positions), read_matrix(m, "--mass", positions), positions)
    f_fe = modal_analysis(model, 1, [model.select(END_A)]).frequencies_hz[0]
    path = write_flexbody(_body(model), str(tmp_path / "imported.flex.h5"))
    scene = fm.Model("imported cantilever")
    body = scene.add_body(fm.FlexibleBody.from_file("bar", path))
    scene.add_joint("fixed", scene.add_marker(scene.ground, "clamp", position=POINT_A),
                    scene.add_marker(body, "a", node="a"))
    tip = scene.add_marker(body, "b", node="b")
    pulse = 0.5 / f_fe
    scene.add_force(fm.PointForce(tip, force=lambda t: (0.0, 5.0 * np.sin(np.pi * t / pulse) if t < pulse else 0.0,
                                                        0.0)))
    res = fm.simulate(scene, 10.0 / f_fe, rtol=1e-5, atol=1e-9)
    assert res.success, res.message
    after = res.time > 2 * pulse
    y = res["marker/b/position"][after, 1] - POINT_B[1]
    y = y - y.mean()
    t = res.time[after]
    i = np.flatnonzero(np.sign(y[:-1]) != np.sign(y[1:]))
    crossings = t[i] - y[i] * (t[i + 1] - t[i]) / (y[i + 1] - y[i])  # linear interpolation
    frequency = (crossings.size - 1) / (2.0 * (crossings[-1] - crossings[0]))
    assert frequency == pytest.approx(f_fe, rel=1e-2)


@pytest.mark.parametrize("fmt,rtol", [("mtx", 1e-8), ("dmig", 1e-7), ("op4", 1e-8)])
def test_reduce_command_takes_the_matrices(mesh, tmp_path, fmt, rtol):
    """`flexmbs reduce --stiffness K --mass M --nodes JOB.inp` (Abaqus .mtx, or one Nastran punch file as
    FILE.pch:KAAX / FILE.pch:MAAX) with interfaces on the job's node sets writes the body of the mesh route
    (frequencies to 1e-8, DMIG 1e-7 as above, OP4 with rows in grid order 1e-8); a MESH together with matrices, or
    an incomplete set, is one error line."""
    import json
    import subprocess
    import sys

    k, m, nodes = export(mesh, tmp_path, with_inp=True, fmt=fmt)
    out = str(tmp_path / "imported.flex.h5")
    run = lambda *a: subprocess.run([sys.executable, "-m", "flexmbs", "reduce", *a], capture_output=True,  # noqa
                                    text=True)
    result = run("--stiffness", k, "--mass", m, "--nodes", nodes, "-o", out, "--interface",
                 f"a=group:END-A:rbe2@{','.join(map(str, POINT_A))}", "--interface",
                 f"b=group:END-B:rbe2@{','.join(map(str, POINT_B))}", "--modes", "6", "--compare", "0", "--json")
    assert result.returncode == 0, result.stderr
    expected = _body(solid_model(mesh, "steel")).frequencies_hz
    np.testing.assert_allclose(json.loads(result.stdout)["reduced_hz"], expected, rtol=rtol)  # see above
    for args in (["--stiffness", k, "--mass", m], [str(tmp_path / "x.msh"), "--stiffness", k, "--mass", m,
                                                   "--nodes", nodes]):
        bad = run(*args, "-o", str(tmp_path / "y.flex.h5"), "--interface", f"a={END_A}")
        lines = [line for line in bad.stderr.splitlines() if line.startswith("error:")]
        assert bad.returncode == 2 and len(lines) == 1 and "--stiffness K --mass M --nodes" in lines[0]


def test_stress_field_where_the_node_file_is_the_mesh(tmp_path):
    """Matrices with the job's .inp as node file (a C3D10 mesh with two *Solid Sections: steel and aluminium): the
    modal stress field is recovered from the imported modes with that mesh and its materials and equals the mesh
    route's to 1e-7 of its largest entry (the same modes and recovery; the field is stored in float32; measured
    3.9e-9); an id, x, y, z node file gives no stress field and says why."""
    import sys

    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "fem"))
    from test_fem_inp_materials import write_inp

    from fem.matrices import load_matrix_model

    tet10 = load_mesh(bar_mesh(str(tmp_path / "bar.msh"), order=2, size=0.025))
    inp = write_inp(tmp_path / "job.inp", tet10)
    reference = solid_model(load_mesh(inp))
    dof_nodes, dof_components = np.repeat(reference.node_ids, 3), np.tile([1, 2, 3], reference.n_nodes)
    k = write_abaqus_mtx(str(tmp_path / "job_STIF2.mtx"), reference.full_stiffness, dof_nodes, dof_components)
    m = write_abaqus_mtx(str(tmp_path / "job_MASS2.mtx"), reference.full_mass, dof_nodes, dof_components)
    imported = load_matrix_model(k, m, inp)
    assert imported.solid is not None and "stress field from" in imported.stress_note
    def body(model):
        model.add_reference_node("a", END_A, "rbe2", point=POINT_A)
        model.add_reference_node("b", END_B, "rbe2", point=POINT_B)
        return reduce(model, ["a", "b"], 6, compare_modes=0, stress_field="surface")

    body_file, body_mesh = body(imported), body(reference)
    np.testing.assert_allclose(body_file.frequencies_hz, body_mesh.frequencies_hz, rtol=1e-8)
    a, b = body_file.stress_field, body_mesh.stress_field
    np.testing.assert_array_equal(a.nodes, b.nodes)
    scale = np.abs(b.modal_stress).max()
    difference = np.abs(np.asarray(a.modal_stress, float) - np.asarray(b.modal_stress, float)).max() / scale
    assert difference < 1e-7, difference  # one float32 rounding (6e-8) of the stored field; measured 3.9e-9
    with open(tmp_path / "nodes.txt", "w") as handle:
        handle.writelines(f"{i}, {x:.17g}, {y:.17g}, {z:.17g}\n" for i, (x, y, z) in zip(reference.node_ids,
                                                                                          reference.positions))
    plain = load_matrix_model(k, m, str(tmp_path / "nodes.txt"))
    assert plain.solid is None and plain.stress_note == "the node file is not a mesh"


def test_coordinate_and_matrix_market_files_equal_the_same_matrices_read_another_way(mesh, tmp_path):
    """Issue 48: the ANSYS MatrixMarket pair (half-stored, shuffled DOF mapping) and the Abaqus COORDINATE pair
    load to the very matrices SciPy's own MatrixMarket reader (``scipy.io.mmread``) and a plain triplet read give
    (entries to round-off); their free–free frequencies (dense, all modes, the same equation order) agree to 1e-10
    relative."""
    import scipy.io
    import scipy.linalg as sla
    import scipy.sparse as sp

    from fem.matrices import load_matrix_model

    def elastic_hz(k, m):
        lam = sla.eigh(k, m, eigvals_only=True)[6:]
        return np.sqrt(lam) / (2.0 * np.pi)

    k, m, (nodes, mapping) = export(mesh, tmp_path, fmt="mmf")
    ours = load_matrix_model(k, m, nodes, dof_mapping=mapping)
    # our dofs in the solver's equation order (the mapping file's node of each 3-dof block), so that both dense
    # solves see the same matrix up to the reading
    block_nodes = scipy.io.mmread(mapping).ravel()
    where = {int(i): n for n, i in enumerate(ours.node_ids)}
    order = ours.translation_dofs[[where[int(i)] for i in block_nodes]].ravel()
    k_other, m_other = scipy.io.mmread(k).toarray(), scipy.io.mmread(m).toarray()
    k_ours, m_ours = ours.full_stiffness.toarray()[np.ix_(order, order)], ours.full_mass.toarray()[np.ix_(order, order)]
    assert np.abs(k_ours - k_other).max() <= 1e-15 * np.abs(k_other).max()
    other, mine = elastic_hz(k_other, m_other), elastic_hz(k_ours, m_ours)
    assert np.max(np.abs(mine / other - 1.0)) < 1e-10
    folder = tmp_path / "abaqus"
    folder.mkdir()
    k, m, nodes = export(mesh, folder, fmt="coordinate")
    ours = load_matrix_model(k, m, nodes)

    def triplets(path):
        t = np.loadtxt(path)
        n = int(t[:, 0].max())
        return sp.coo_matrix((t[:, 2], (t[:, 0] - 1, t[:, 1] - 1)), shape=(n, n)).toarray()

    other = elastic_hz(triplets(k), triplets(m))
    mine = elastic_hz(ours.full_stiffness.toarray(), ours.full_mass.toarray())
    assert np.max(np.abs(mine / other - 1.0)) < 1e-10


def test_a_coordinate_matrix_larger_than_the_node_file_is_one_line(mesh, tmp_path):
    k, m, nodes = export(mesh, tmp_path, fmt="coordinate")
    positions = read_node_positions(nodes)
    fewer = dict(list(positions.items())[:-1])
    with pytest.raises(ModelError, match="equations but the node numbering gives") as error:
        read_matrix(k, "--stiffness", fewer)
    assert "\n" not in str(error.value)
