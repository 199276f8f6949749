"""The stress field of a reduced body: scopes, FE stress recovery, compact storage, older files, CLI."""
from __future__ import annotations

import json
import subprocess
import sys

import h5py
import numpy as np
import pytest

from fem.meshing import structured_bar_mesh
from fem.model import solid_model
from fem.solid import surface_nodes
from reduction import read_flexbody, reduce, write_flexbody
from reduction.stressfield import GROUP


@pytest.fixture(scope="module")
def block():
    """A steel block 0.3 m × 60 mm × 40 mm of 12 × 3 × 2 linear hexahedra with RBE2 interfaces at both ends."""
    mesh = structured_bar_mesh(0.3, 0.06, 0.04, 12, 3, 2)
    model = solid_model(mesh, "steel")
    model.add_reference_node("a", "box:-1e-4,-1,-1,1e-4,1,1", "rbe2")
    model.add_reference_node("b", "box:0.2999,-1,-1,0.3001,1,1", "rbe2")
    return model


def test_scopes_select_surface_all_and_node_sets(block):
    all_nodes = reduce(block, ["a", "b"], 3, compare_modes=0, stress_field="all")
    surface = reduce(block, ["a", "b"], 3, compare_modes=0)
    sets = reduce(block, ["a", "b"], 3, compare_modes=0, stress_field=["box:-1,-1,-1,0.05,1,1"])
    none = reduce(block, ["a", "b"], 3, compare_modes=0, stress_field="none")
    n_mesh = block.mesh.n_nodes
    np.testing.assert_array_equal(all_nodes.stress_field.nodes, np.arange(n_mesh))
    # the surface of a 12 × 3 × 2 block: all nodes but the (12-1)(3-1)(2-1) interior ones
    assert surface.stress_field.nodes.size == n_mesh - 11 * 2 * 1
    np.testing.assert_array_equal(surface.stress_field.nodes, surface_nodes(block.solid))
    np.testing.assert_array_equal(sets.stress_field.nodes, np.flatnonzero(block.positions[:n_mesh, 0] <= 0.05))
    assert none.stress_field is None
    # the same recovery wherever it is stored: the surface rows of the all-node field
    rows = np.searchsorted(all_nodes.stress_field.nodes, surface.stress_field.nodes)
    np.testing.assert_array_equal(all_nodes.stress_field.modal_stress[rows], surface.stress_field.modal_stress)


def test_field_is_the_fe_stress_of_the_mode_shapes(block):
    """Independent path: expand the stored translational mode shapes of the mesh nodes and recover the stress
    with the FE operator (fem.solid.nodal_stress through FEModel.stress)."""
    body = reduce(block, ["a", "b"], 3, compare_modes=0)
    n_mesh = block.mesh.n_nodes
    u = np.zeros((block.n_full_dofs, body.n_modes))
    u[block.translation_dofs[:n_mesh].ravel()] = body.translations[:n_mesh].reshape(-1, body.n_modes)
    reference = block.stress(u, body.stress_field.nodes)
    np.testing.assert_allclose(body.stress_field.modal_stress, reference, rtol=1e-6,
                               atol=1e-6 * np.abs(reference).max())  # float32: 6e-8 relative


def test_file_stores_float32_chunked_compressed_and_older_files_still_read(block, tmp_path):
    body = reduce(block, ["a", "b"], 3, compare_modes=0, stress_field="all")
    path = write_flexbody(body, str(tmp_path / "block.flex.h5"))
    with h5py.File(path, "r") as f:
        ds = f[GROUP]["modal_stress"]
        # this smooth small field deflates by more than a quarter: compressed, chunked by node blocks
        assert ds.dtype == np.float32 and ds.chunks is not None and ds.compression == "gzip"
        assert f[GROUP].attrs["scope"] == "all"
    again = read_flexbody(path)
    np.testing.assert_array_equal(again.stress_field.modal_stress, body.stress_field.modal_stress)
    with h5py.File(path, "a") as f:  # a file written before stress fields: no group
        del f[GROUP]
    older = read_flexbody(path)
    assert older.stress_field is None and older.n_modes == body.n_modes


def test_file_compresses_a_dataset_only_where_deflate_saves_a_quarter_of_its_bytes(block, tmp_path):
    """Zero rotations of a solid part deflate to almost nothing and are compressed; mode shapes replaced by random
    noise (incompressible: its mantissa bits are random) are stored without a filter; both read back bit for bit."""
    from reduction.stressfield import COMPRESS_MIN_SAVING, filters

    assert filters(np.zeros((5000, 3))) and not filters(np.random.default_rng(0).standard_normal((5000, 3)))
    assert 0.0 < COMPRESS_MIN_SAVING < 1.0
    body = reduce(block, ["a", "b"], 3, compare_modes=0)
    body.translations = np.random.default_rng(1).standard_normal(body.translations.shape)
    assert body.translations.size > 4096  # smaller datasets are never filtered
    path = write_flexbody(body, str(tmp_path / "noise.flex.h5"))
    with h5py.File(path, "r") as f:
        assert f["modes/translations"].compression is None
        assert f["modes/rotations"].compression == "gzip"  # all zero: the block has no rotational dofs
    again = read_flexbody(path)
    np.testing.assert_array_equal(again.translations, body.translations)
    np.testing.assert_array_equal(again.rotations, body.rotations)


def test_cli_reduce_stress_field_and_info_size(tmp_path):
    import meshio

    mesh = structured_bar_mesh(0.3, 0.06, 0.04, 12, 3, 2)
    msh = str(tmp_path / "block.vtu")
    meshio.write(msh, meshio.Mesh(mesh.points, [("hexahedron", mesh.cells)]))
    out = str(tmp_path / "block.flex.h5")
    run = lambda *a: subprocess.run([sys.executable, "-m", "flexmbs", *a], capture_output=True, text=True)  # noqa
    result = run("reduce", msh, "--material", "steel", "-o", out, "--interface", "a=box:-1e-4,-1,-1,1e-4,1,1", "--interface",
                 "b=box:0.2999,-1,-1,0.3001,1,1", "--modes", "3", "--compare", "0", "--stress-field", "all",
                 "--json")
    assert result.returncode == 0, result.stderr
    info = run("info", out, "--json")
    field = json.loads(info.stdout)["stress_field"]
    assert field["nodes"] == mesh.n_nodes and field["scope"] == "all"
    assert field["memory_bytes"] == mesh.n_nodes * 6 * 9 * 4 + mesh.n_nodes * 8  # float32 stress + int64 nodes
    assert 0 < field["file_bytes"]
    text = run("info", out).stdout
    assert f"stress field: {mesh.n_nodes} nodes (all)" in text
