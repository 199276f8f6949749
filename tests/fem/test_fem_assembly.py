"""The assembly pattern of solid meshes, the piece count of models and the boundary triangles of meshes, against
constructions independent of the code (issue 31: rewritten for speed, they must give the same results)."""
import numpy as np
import pytest
import scipy.sparse as sp

from fem.beam import rectangular_section
from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import FEModel, frame_model, solid_model
from fem.solid import _node_pattern, discretize


def _sorted_key_pattern(element_nodes: np.ndarray, n: int):
    """The node-pair pattern by sorting the keys ``i n + j`` of every element entry (the former construction)."""
    n_el, nb = element_nodes.shape
    key = (np.repeat(element_nodes, nb, axis=1).astype(np.int64) * n + np.tile(element_nodes, (1, nb))).ravel()
    unique, position = np.unique(key, return_inverse=True)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(unique // n, minlength=n), out=indptr[1:])
    return indptr, (unique % n).astype(np.int32), position.ravel()


@pytest.mark.parametrize("order,hexahedra", [(1, False), (2, False), (1, True), (2, True)])
def test_node_pattern_equals_the_sorted_keys(mesh_dir, order, hexahedra):
    mesh = load_mesh(bar_mesh(str(mesh_dir / f"pattern_{order}_{hexahedra}.msh"), length=0.2, size=0.025,
                              order=order, hexahedra=hexahedra))
    disc = discretize(mesh)
    indptr, indices, position = _node_pattern(disc)
    ref_indptr, ref_indices, ref_position = _sorted_key_pattern(disc.element_nodes, mesh.n_nodes)
    assert indptr.dtype == np.int64 and indices.dtype == np.int32
    np.testing.assert_array_equal(indptr, ref_indptr)
    np.testing.assert_array_equal(indices, ref_indices)
    assert position.dtype == np.int32 and position.size == disc.element_nodes.size * disc.element_nodes.shape[1]
    np.testing.assert_array_equal(position, ref_position)


def _two_frames():
    x = np.linspace(0.0, 1.0, 6)
    line = np.column_stack([x, 0 * x, 0 * x])
    elements = np.column_stack([np.arange(5), np.arange(1, 6)])
    return frame_model(np.vstack([line, line + [0.0, 1.0, 0.0]]), np.vstack([elements, elements + 6]),
                       rectangular_section(0.01, 0.01), "steel")


def test_connected_pieces_of_two_boxes(two_piece_mesh):
    """Two boxes 0.1 m apart in one mesh: two pieces; one spring or one spider across the gap joins them; a node
    without stiffness is a piece of its own."""
    mesh = load_mesh(two_piece_mesh)
    assert solid_model(mesh, "steel").connected_pieces() == 2
    joined = solid_model(mesh, "steel")
    left = np.flatnonzero(joined.positions[:, 0] < 0.55)
    right = np.flatnonzero(joined.positions[:, 0] > 0.55)
    joined.add_spring(int(left[0]), int(right[0]), 1e6)
    assert joined.connected_pieces() == 1
    spider = solid_model(mesh, "steel")
    spider.add_reference_node("across", "box:0.45,-1,-1,0.65,1,1", "rbe2")
    assert spider.connected_pieces() == 1
    spider.add_node([2.0, 0.0, 0.0])
    assert spider.connected_pieces() == 2


def test_connected_pieces_of_a_pattern_stored_as_one_triangle():
    """Two separate frames: two pieces, also when the stiffness is stored as one triangle (the pattern is not
    symmetric, so its strongly connected components are single dofs)."""
    frames = _two_frames()
    assert frames.connected_pieces() == 2
    for triangle in (sp.triu, sp.tril):
        k = triangle(frames.full_stiffness, format="csr")
        model = FEModel(frames.positions, frames.node_ids, k, frames.full_mass, frames.translation_dofs,
                        frames.rotation_dofs)
        assert model.connected_pieces() == 2
        model.add_spring(5, 11, [1e3, 0.0, 0.0])  # x only: still joins the two frames
        assert model.connected_pieces() == 1


@pytest.mark.parametrize("hexahedra", [False, True])
def test_boundary_triangles_equal_the_unique_faces(mesh_dir, hexahedra):
    """The faces of one element only, in the order of ``np.unique`` over the sorted face keys; computed once per
    mesh (each call its own copy) and again when the cells are replaced."""
    from fem.mesh import _FACES, boundary_triangles

    mesh = load_mesh(bar_mesh(str(mesh_dir / f"boundary_{hexahedra}.msh"), length=0.2, size=0.025,
                              hexahedra=hexahedra))

    def reference(cells):
        faces = cells[:, _FACES["hex" if hexahedra else "tet"]].reshape(-1, 4 if hexahedra else 3)
        _, first, counts = np.unique(np.sort(faces, axis=1), axis=0, return_index=True, return_counts=True)
        outer = faces[first[counts == 1]]
        return np.vstack([outer[:, [0, 1, 2]], outer[:, [0, 2, 3]]]) if hexahedra else outer

    first = boundary_triangles(mesh)
    np.testing.assert_array_equal(first, reference(mesh.cells))
    first[:] = -1
    np.testing.assert_array_equal(boundary_triangles(mesh), reference(mesh.cells))
    mesh.cells = mesh.cells[np.random.default_rng(0).permutation(mesh.n_elements)][:-1]
    np.testing.assert_array_equal(boundary_triangles(mesh), reference(mesh.cells))
