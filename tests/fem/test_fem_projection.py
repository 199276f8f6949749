"""Tᵀ K T and Tᵀ M T over the independent dofs (fem.model.FEModel._projected) against the general product."""
import numpy as np
import pytest

from fem.beam import rectangular_section
from fem.meshing import bar_mesh
from fem.mesh import load_mesh
from fem.model import _symmetric, frame_model, solid_model


@pytest.fixture(scope="module")
def bar_model(tmp_path_factory):
    path = bar_mesh(str(tmp_path_factory.mktemp("proj") / "bar.msh"), size=0.05, order=2)
    return solid_model(load_mesh(path), "steel")


def _general(model, full):
    t = model.transform
    return _symmetric(t.T @ full @ t)


def test_solid_matrices_are_symmetric_bit_for_bit(bar_model):
    for full in (bar_model.full_stiffness, bar_model.full_mass):
        assert (full != full.T).nnz == 0


@pytest.mark.parametrize("spiders", [("rbe2", "rbe2"), ("rbe2", "rbe3"), ("rbe3", "rbe3")])
def test_projection_equals_general_product(bar_model, spiders):
    import copy

    model = copy.deepcopy(bar_model)
    model.add_reference_node("a", "box:-1e-9,-1,-1,1e-9,1,1", spiders[0])
    model.add_reference_node("b", "box:0.999999,-1,-1,1.000001,1,1", spiders[1])
    model.add_point_mass(model.references["a"].node, 3.0, np.diag([1.0, 2.0, 3.0]))
    model.add_spring(model.references["b"].node, None, [1e6, 2e6, 3e6, 1e3, 2e3, 3e3])
    for fast, full in ((model.stiffness, model.full_stiffness), (model.mass, model.full_mass)):
        reference = _general(model, full)
        assert (fast != fast.T).nnz == 0  # symmetric bit for bit
        # the same sums in another order: round-off of the largest entry (1e-15 relative)
        assert abs(fast - reference).max() <= 1e-15 * abs(reference).max()


def test_frame_with_spider_and_unsymmetric_block():
    points = np.column_stack([np.linspace(0.0, 1.0, 6), np.zeros(6), np.zeros(6)])
    model = frame_model(points, np.column_stack([np.arange(5), np.arange(1, 6)]),
                        rectangular_section(0.02, 0.03))
    model.add_reference_node("tip", "box:0.99,-1,-1,1.01,1,1", "rbe2", point=[1.2, 0.0, 0.0])
    block = np.array([[2.0, 1.0], [1.0 + 1e-9, 3.0]])  # not symmetric: its symmetric part is kept
    model.add_stiffness(model.node_dofs(0, "12"), block)
    for fast, full in ((model.stiffness, model.full_stiffness), (model.mass, model.full_mass)):
        assert (fast != fast.T).nnz == 0
        reference = _general(model, full)
        assert abs(fast - reference).max() <= 1e-15 * abs(reference).max()
