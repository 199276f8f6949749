"""Issue 48, defect 1: a rigid motion the interfaces leave free is found from the geometry, whatever the weights.

Two RBE3 interfaces holding translations only (``{"a": "123", "b": "123"}``) cannot stop the spin about the line
through their reference nodes: an RBE3 fits a rigid motion exactly, so the spin moves neither reference node whatever
the weights. With the weights of Exudyn's plain average the interior stiffness was factorized on round-off and the
body came out with a 0.0 Hz fixed-interface mode (8 modes) or crashed in the canonical form (128 modes).
"""
import re

import numpy as np
import pytest
import scipy.sparse as sp

from fem.canonical import canonical_transform, probe_fields
from fem.errors import ModelError
from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model
from reduction import reduce
from reduction.craig_bampton import free_rigid_motions


@pytest.fixture(scope="module")
def bar_path(mesh_dir):
    return bar_mesh(str(mesh_dir / "bar_spin.msh"), order=2, size=0.025)


def _two_rbe3(path, plain_average: bool):
    model = solid_model(load_mesh(path), "steel")
    for side in ("end_x0", "end_x1"):
        nodes = model.select("group:" + side)
        model.add_reference_node(side, nodes, "rbe3", weights=np.ones(nodes.size) / nodes.size if plain_average
                                 else None)
    return model


@pytest.mark.parametrize("plain_average", [True, False])
@pytest.mark.parametrize("n_modes", [8, 128])
def test_free_spin_of_two_translation_only_rbe3_is_one_line(bar_path, plain_average, n_modes):
    """Reference: the free motion is the rotation about the line through the two reference nodes (geometry)."""
    model = _two_rbe3(bar_path, plain_average)
    a, b = (model.positions[model.references[s].node] for s in ("end_x0", "end_x1"))
    with pytest.raises(ModelError, match="leave a rigid-body motion of the part free") as error:
        reduce(model, {"end_x0": "123", "end_x1": "123"}, n_modes, compare_modes=0)
    message = str(error.value)
    assert "\n" not in message and "rotation about the axis through" in message
    # the axis named in the message is the line through the reference nodes (printed to 3-4 digits)
    found = re.search(r"through \(([^)]*)\) m along \(([^)]*)\)", message)
    point, direction = (np.array([float(x) for x in found.group(k).split(",")]) for k in (1, 2))
    axis = (b - a) / np.linalg.norm(b - a)
    assert abs(abs(direction @ axis) - 1.0) < 1e-3
    assert np.linalg.norm(np.cross(point - a, axis)) < 1e-3 * np.linalg.norm(b - a)


def test_held_interfaces_leave_nothing_free_and_a_single_node_leaves_rotations(bar_path):
    """All six dofs at one end hold every rigid motion; translations of one reference node leave its three
    rotations free (the rank of the boundary's rigid motions is 3)."""
    model = _two_rbe3(bar_path, plain_average=True)
    ref = model.references["end_x0"].node
    full = model.independent_index(model.node_dofs(ref, "123456"))
    assert free_rigid_motions(model, full) == []
    assert len(free_rigid_motions(model, full[:3])) == 3
    both = np.concatenate([full[:3], model.independent_index(model.node_dofs(model.references["end_x1"].node,
                                                                               "123"))])
    assert len(free_rigid_motions(model, both)) == 1


def test_canonical_form_completes_a_large_group_the_probes_do_not_span():
    """A degenerate group of 105 modes whose span holds 101 probe fields and 4 directions orthogonal to all probes
    (mixed into every member): the canonical transform stays orthogonal (105 × 105, round-off) and reports the group
    incomplete. Before: ValueError (105, 101) vs (105, 105) in fem/canonical.py."""
    rng = np.random.default_rng(1)
    n = 200
    positions = rng.uniform(-1.0, 1.0, (n, 3))
    translation_dofs = np.arange(3 * n).reshape(n, 3)
    scalar = probe_fields(positions)
    probes = np.zeros((3 * n, 3 * scalar.shape[1]))
    for d in range(3):
        probes[translation_dofs[:, d], d::3] = scalar
    spanned, _ = np.linalg.qr(probes)  # the 105 vector probes
    extra = rng.standard_normal((3 * n, 4))
    extra -= spanned @ (spanned.T @ extra)
    group, _ = np.linalg.qr(np.hstack([spanned[:, :101], extra]))
    group = group @ np.linalg.qr(rng.standard_normal((105, 105)))[0]
    values = 4.0e4 * (1.0 + 1e-6 * np.arange(105))
    q, _, info = canonical_transform(group, values, sp.identity(3 * n, format="csr"), positions, translation_dofs)
    assert q.shape == (105, 105)
    assert np.abs(q.T @ q - np.eye(105)).max() < 1e-12
    assert len(info["incomplete"]) == 1 and len(info["incomplete"][0]) == 105
