"""The assembly pattern of solid meshes against the construction it replaced (issue 31: rewritten for speed, it must
give the same arrays)."""
import numpy as np
import pytest

from fem.mesh import load_mesh
from fem.meshing import bar_mesh
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
    indptr, indices, gather = _node_pattern(disc)
    ref_indptr, ref_indices, ref_position = _sorted_key_pattern(disc.element_nodes, mesh.n_nodes)
    assert indptr.dtype == np.int64 and indices.dtype == np.int32
    np.testing.assert_array_equal(indptr, ref_indptr)
    np.testing.assert_array_equal(indices, ref_indices)
    size = disc.element_nodes.size * disc.element_nodes.shape[1]
    assert gather.format == "csc" and gather.shape == (indices.size, size)
    np.testing.assert_array_equal(gather.indptr, np.arange(size + 1))
    np.testing.assert_array_equal(gather.indices, ref_position)
    assert np.all(gather.data == 1.0)
