"""Shared fixtures: meshes are generated with gmsh on demand (never committed)."""
import os
import sys

import numpy as np
import pytest

# the helpers of tests/flexmbs (integration_tolerance: agreement within the integration error, a model's elements
# as a user's Python callbacks) serve every test folder
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "flexmbs"))

from fem.meshing import bar_mesh


@pytest.fixture(scope="session")
def mesh_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("meshes")


@pytest.fixture(scope="session")
def bar_tet10(mesh_dir):
    """Steel bar 1.0 × 0.05 × 0.05 m, quadratic tetrahedra, 12.5 mm elements (40 k dofs)."""
    return bar_mesh(str(mesh_dir / "bar_tet10.msh"), order=2, size=0.0125)


@pytest.fixture(scope="session")
def rng():
    return np.random.default_rng(12345)


@pytest.fixture(scope="session")
def two_piece_mesh(mesh_dir):
    """Two separate 0.5 m boxes in one mesh file (a disconnected part)."""
    from fem.meshing import gmsh_session

    path = str(mesh_dir / "two_pieces.msh")
    with gmsh_session("two") as g:
        g.model.occ.addBox(0, 0, 0, 0.5, 0.05, 0.05)
        g.model.occ.addBox(0.6, 0, 0, 0.5, 0.05, 0.05)
        g.model.occ.synchronize()
        g.option.setNumber("Mesh.MeshSizeMax", 0.05)
        g.model.mesh.generate(3)
        g.write(path)
    return path


# The one-line compile notice (flexmbs_jit.notice) would add a line to the stderr of whichever test first compiles a
# kernel, where tests check that an error is exactly one line; tests/test_compile.py checks the notice itself.
import os as _os  # noqa: E402

_os.environ.setdefault("FLEXMBS_COMPILE_NOTICE", "0")
