"""Fixtures for the visualization tests: a reduced gmsh bar (real reduction) and results files written by the
multibody core's own recorder with prescribed motion, so the readers are tested against the real schema and the
expected values are known by construction."""
from __future__ import annotations

import numpy as np
import pytest

from fem.mesh import load_mesh
from fem.meshing import bar_mesh
from fem.model import solid_model
from helpers_viz import ARM_MODES, MODAL_DIRECTION, PLANTED_OUTPUT, write_results


@pytest.fixture(scope="session")
def bar_body(tmp_path_factory):
    """A reduced steel bar 1 m × 50 mm × 50 mm (linear tetrahedra, 50 mm), 2 RBE2 interfaces, every mesh node an
    output node."""
    from reduction.reduce import reduce

    folder = tmp_path_factory.mktemp("viz_bar")
    mesh = load_mesh(bar_mesh(str(folder / "bar.msh"), size=0.05, order=1))
    model = solid_model(mesh, "steel")
    model.add_reference_node("end_a", model.select("box:-0.001,-1,-1,0.001,1,1"), "rbe2")
    model.add_reference_node("end_b", model.select("box:0.999,-1,-1,1.001,1,1"), "rbe2")
    # compare_modes=0: no full free-free FE run (the tests that need those frequencies set them explicitly)
    # stress_field="none": these tests exercise the output-node path (files reduced before stress fields);
    # tests/viz/test_durability*.py cover the full-field path
    return reduce(model, ["end_a", "end_b"], 4, output_nodes=np.arange(mesh.n_nodes), name="bar",
                  compare_modes=0, stress_field="none")


@pytest.fixture(scope="session")
def bar_file(bar_body, tmp_path_factory):
    from reduction.io import write_flexbody

    return write_flexbody(bar_body, str(tmp_path_factory.mktemp("viz_flex") / "bar.flex.h5"))


@pytest.fixture(scope="session")
def planted(bar_body):
    """The bar with output node number PLANTED_OUTPUT given a uniaxial modal stress σxx far above every other
    node's: σxx_j = A sign(v_j) for the simulated modes, so σxx(t) = A Σ|v_j| envelope(t) there."""
    import copy

    body = copy.deepcopy(bar_body)
    v = MODAL_DIRECTION
    amplitude = 100.0 * float(np.abs(body.modal_stress).max())
    body.modal_stress[PLANTED_OUTPUT] = 0.0
    for j, mode in enumerate(ARM_MODES):
        body.modal_stress[PLANTED_OUTPUT, 0, mode] = amplitude * np.sign(v[j])
    return body, amplitude * float(np.abs(v).sum())


@pytest.fixture(scope="session")
def results_file(planted, tmp_path_factory):
    body, _ = planted
    path = str(tmp_path_factory.mktemp("viz_results") / "arm.results.h5")
    info = write_results(body, path)
    return path, info


@pytest.fixture(scope="session")
def swing_file(planted, tmp_path_factory):
    """The README's swinging bar as prescribed motion (helpers_viz.write_swing)."""
    from helpers_viz import write_swing

    body, _ = planted
    path = str(tmp_path_factory.mktemp("viz_swing") / "swing.results.h5")
    return path, write_swing(body, path)
