"""Full-field stress of reduced bodies held in multibody models against the full FE static solution: modal
superposition over the whole surface, hot spot at a stress concentration, principal stresses."""
from __future__ import annotations

import numpy as np
import pytest

import flexmbs as fm
from fem.analysis import static_analysis
from fem.mesh import load_mesh
from fem.meshing import gmsh_session, structured_bar_mesh
from fem.model import solid_model
from fem.solid import surface_nodes, von_mises
from flexmbs.post.durability import equivalent_stress, flexbody_stress, hotspots, principal_stresses, stress_histories
from reduction import read_flexbody, reduce, write_flexbody


FORCE_SCALE = 1.0  # load factor (the geometric error below scales with it)


def _held_in_multibody(flexbody, load, clamp="root", loaded="tip"):
    """Static equilibrium of the body clamped (fixed joint) at interface ``clamp`` with the constant force ``load``
    (N, global) at interface ``loaded``; returns the elastic coordinates (m,)."""
    model = fm.Model("held")
    body = model.add_flexible_body("body", flexbody)
    model.add_joint("fixed", model.add_marker(model.ground, "clamp"), model.add_marker(body, "root", node=clamp))
    model.add_force(fm.PointForce(model.add_marker(body, "load", node=loaded), force=tuple(load)))
    res = fm.static_equilibrium(model)
    assert res.success, res.message
    return res["body/body/modal_coordinates"][0]


@pytest.fixture(scope="module")
def cantilever(tmp_path_factory):
    """Linear-hexahedron steel cantilever 0.6 m × 40 mm × 30 mm, RBE2 interfaces at both end faces (the load
    point is an interface, so the static tip-load response lies in the Craig–Bampton span: exact)."""
    mesh = structured_bar_mesh(0.6, 0.04, 0.03, 24, 4, 3)
    model = solid_model(mesh, "steel")
    model.add_reference_node("root", "box:-1e-4,-1,-1,1e-4,1,1", "rbe2", point=(0.0, 0.0, 0.0))
    model.add_reference_node("tip", "box:0.5999,-1,-1,0.6001,1,1", "rbe2", point=(0.6, 0.0, 0.0))
    body = reduce(model, ["root", "tip"], 6, name="cantilever", compare_modes=0)
    path = write_flexbody(body, str(tmp_path_factory.mktemp("durab") / "cantilever.flex.h5"))
    return model, read_flexbody(path)  # through the file: float32 stress field as stored


def test_stress_field_covers_the_surface_in_float32(cantilever):
    model, body = cantilever
    field = body.stress_field
    assert field.scope == "surface" and field.modal_stress.dtype == np.float32
    # the surface of a structured nx × ny × nz hexahedron block: all nodes minus the interior ones
    nx, ny, nz = 24, 4, 3
    assert field.nodes.size == (nx + 1) * (ny + 1) * (nz + 1) - (nx - 1) * (ny - 1) * (nz - 1)
    np.testing.assert_array_equal(field.nodes, surface_nodes(model.solid))


def test_tip_load_von_mises_over_the_surface_matches_full_fe(cantilever):
    """Acceptance: von Mises from modal superposition (body in a multibody model, static equilibrium) vs the
    full FE static solution (root reference node clamped, same tip force) at the same nodes, whole surface and
    root section. 3 % is the issue's bound; the static response is exact in this basis, so what is left is
    float32 storage and the multibody equilibrium tolerance."""
    model, body = cantilever
    force = FORCE_SCALE * np.array([0.0, 2000.0, -1500.0])  # N: ~4 mm tip deflection (L/140), ~0.01 rad
    q = _held_in_multibody(body, force)
    u = static_analysis(model, {model.references["tip"].node: force},
                        fixed_nodes=[np.array([model.references["root"].node])])
    nodes = body.stress_field.nodes
    vm_fe = von_mises(model.stress(u, nodes))[:, 0]
    vm = stress_histories(body.stress_field.modal_stress, q[None, :], "von_mises")[:, 0]
    scale = vm_fe.max()
    surface_error = np.abs(vm - vm_fe) / scale
    root = model.positions[nodes, 0] < 0.6 / 24 + 1e-9  # the root face and the first node layer
    root_error = np.abs(vm[root] - vm_fe[root]) / vm_fe[root]
    worst = nodes[np.argmax(surface_error)]
    print(f"max |Δσ_vM| / max σ_vM over {nodes.size} surface nodes: {surface_error.max():.2e} at node "
          f"{model.node_ids[worst]} {model.positions[worst]}; root nodes: max relative {root_error.max():.2e}")
    assert root_error.max() < 0.03
    assert surface_error.max() < 0.03
    # what it achieves: 1.1e-3 at the root. The basis is exact for this load; the rest is geometric: the floating
    # frame turns with the root's elastic rotation (~1e-3 rad here) and the global-axes load turns with it in body
    # axes (the error scales with the load: 1e-5 at a hundredth of it)
    assert root_error.max() < 2e-3


def test_truncation_check_reduced_static_equals_full_fe(cantilever):
    """The linear truncation check of docs/durability.md: the reduced body clamped at its root interface under the
    tip load (no multibody, no frame rotation) gives the full FE static stress over the whole surface; exact for
    a load at an interface (constraint modes), so only float32 storage remains."""
    from flexmbs.post.durability import reduced_static_response

    model, body = cantilever
    force = np.array([0.0, 2000.0, -1500.0])
    q = reduced_static_response(body, body.interface("root").node, {body.interface("tip").node: force})
    u = static_analysis(model, {model.references["tip"].node: force},
                        fixed_nodes=[np.array([model.references["root"].node])])
    nodes = body.stress_field.nodes
    vm_fe = von_mises(model.stress(u, nodes))[:, 0]
    vm = stress_histories(body.stress_field.modal_stress, q[None, :], "von_mises")[:, 0]
    print(f"truncation check: max |Δσ_vM| / max σ_vM = {np.abs(vm - vm_fe).max() / vm_fe.max():.2e}")
    assert np.abs(vm - vm_fe).max() / vm_fe.max() < 1e-5


def _plate_with_hole(path: str, length=0.2, width=0.05, thickness=0.01, radius=0.008, size=0.012) -> str:
    with gmsh_session("plate-with-hole") as gmsh:
        occ = gmsh.model.occ
        plate = occ.addBox(0.0, -width / 2, -thickness / 2, length, width, thickness)
        hole = occ.addCylinder(length / 2, 0.0, -thickness, 0.0, 0.0, 2 * thickness, radius)
        solid, _ = occ.cut([(3, plate)], [(3, hole)])
        occ.synchronize()
        gmsh.model.addPhysicalGroup(3, [t for _, t in solid], name="plate")
        gmsh.model.mesh.field.add("Ball", 1)
        for key, value in (("Radius", 1.5 * radius), ("XCenter", length / 2), ("YCenter", 0.0), ("ZCenter", 0.0),
                           ("Thickness", radius), ("VIn", size / 5), ("VOut", size)):
            gmsh.model.mesh.field.setNumber(1, key, value)
        gmsh.model.mesh.field.setAsBackgroundMesh(1)
        gmsh.option.setNumber("Mesh.MeshSizeMax", size)
        gmsh.model.mesh.generate(3)
        gmsh.model.mesh.setOrder(2)
        gmsh.write(path)
    return path


def test_hot_spot_of_a_plate_with_a_hole_is_the_fe_stress_concentration(tmp_path):
    """A plate in tension with a central hole: the hot spot over the whole surface and a load history is the
    node of the full FE static solution's largest von Mises stress, on the hole edge at 90° to the load
    (Kirsch), with a concentration factor near Kt = 3 (net-section Peterson chart for d/W = 0.32: about 2.3 of
    the net stress, 3.4 of the gross stress; ±15 % for the coarse mesh and the through-thickness effect)."""
    mesh = load_mesh(_plate_with_hole(str(tmp_path / "plate.msh")))
    model = solid_model(mesh, "steel")
    model.add_reference_node("left", "box:-1e-4,-1,-1,1e-4,1,1", "rbe2", point=(0.0, 0.0, 0.0))
    model.add_reference_node("right", "box:0.1999,-1,-1,0.2001,1,1", "rbe2", point=(0.2, 0.0, 0.0))
    body = reduce(model, ["left", "right"], 4, name="plate", compare_modes=0)
    force = np.array([10e3, 0.0, 0.0])
    q_static = _held_in_multibody(body, force, clamp="left", loaded="right")
    time = np.linspace(0.0, 1.0, 41)
    load_factor = np.sin(2 * np.pi * time) * np.exp(-time)  # a load history: peak at the first crest
    spots = hotspots(flexbody_stress(body, load_factor[:, None] * q_static, time), top=3)
    u = static_analysis(model, {model.references["right"].node: force},
                        fixed_nodes=[np.array([model.references["left"].node])])
    nodes = body.stress_field.nodes
    vm_fe = von_mises(model.stress(u, nodes))[:, 0]
    fe_hot = int(model.node_ids[nodes[np.argmax(vm_fe)]])
    assert spots[0].node_id == fe_hot
    x, y, _ = spots[0].position
    assert abs(x - 0.1) < 1e-3 and abs(abs(y) - 0.008) < 1e-4  # on the hole edge across the load
    assert spots[0].time_of_peak == pytest.approx(time[np.argmax(load_factor)])
    gross = force[0] / (0.05 * 0.01)
    print(f"hot spot node {spots[0].node_id} at {spots[0].position} (FE max node {fe_hot}), "
          f"peak / gross stress {spots[0].peak / load_factor.max() / gross:.3f}")
    assert spots[0].peak / load_factor.max() / gross == pytest.approx(3.4, rel=0.15)


def test_principal_and_signed_von_mises_against_numpy(rng):
    s = rng.normal(size=(200, 6)) * 1e7
    s[:3, 3:] = 0.0  # diagonal tensors (repeated-root branch of the closed form)
    s[3] = [5e6, 5e6, 5e6, 0, 0, 0]
    tensor = np.empty((200, 3, 3))
    idx = [(0, 0), (1, 1), (2, 2), (1, 2), (0, 2), (0, 1)]
    for k, (i, j) in enumerate(idx):
        tensor[:, i, j] = tensor[:, j, i] = s[:, k]
    reference = np.linalg.eigvalsh(tensor)[:, ::-1]  # independent: LAPACK
    np.testing.assert_allclose(principal_stresses(s), reference, atol=1e-6 * np.abs(s).max())
    signed = equivalent_stress(s, "signed_von_mises")
    dominant = np.where(np.abs(reference[:, 0]) >= np.abs(reference[:, 2]), reference[:, 0], reference[:, 2])
    np.testing.assert_allclose(np.abs(signed), equivalent_stress(s, "von_mises"), rtol=1e-12)
    clear = np.abs(np.abs(reference[:, 0]) - np.abs(reference[:, 2])) > 1e-6 * np.abs(s).max()
    assert np.all(np.sign(signed[clear]) == np.sign(dominant[clear]))
