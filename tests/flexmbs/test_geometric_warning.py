"""Issue 28, item 3: a flexible body without geometric stiffness that spins fast or carries axial interface loads
near buckling gets ONE warning naming ``reduce(..., geometric_stiffness=True)`` / ``flexmbs reduce
--geometric-stiffness``; with the data, or slow and lightly loaded, none. References: the statics of an end-loaded
column (the load read back), the Euler load of a uniform pinned–pinned beam and its free–free frequency (analytic)."""
import warnings
from pathlib import Path

import numpy as np
import pytest

import flexmbs as fm
import cases.spin_up_beam as spin_up
from fem.materials import parse_material
from flexmbs.results.plausibility import LOAD_FRACTION, PlausibilityWarning, axial_load_operator
from cases.spin_up_beam.column import LENGTH as L_COLUMN, column_model, reduced_beam, section

SECTION = section()
OPTION = ("geometric_stiffness=True", "flexmbs reduce --geometric-stiffness")


@pytest.fixture(scope="module")
def plain_column():
    x = np.linspace(0.0, L_COLUMN, 21)
    return reduced_beam(np.column_stack([x, 0 * x, 0 * x]), SECTION, "steel", ("a", "b"), geometric=False)


def euler_weak_axis():
    steel = parse_material("steel")
    return np.pi**2 * steel.youngs_modulus * min(SECTION.iy, SECTION.iz) / L_COLUMN**2


def geometric_lines(model, t_end, **options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fm.simulate(model, t_end, **options)
    assert res.success
    found = [str(w.message) for w in caught if w.category is PlausibilityWarning and "geometric stiffness" in
             str(w.message)]
    assert found == [w for w in res.attributes["warnings"] if "geometric stiffness" in w]  # listed in the results
    return found


def test_axial_load_operator_reads_back_an_end_load_and_estimates_the_euler_load(plain_column):
    """Static elastic coordinates of the column pressed by N = −1 kN at its ends (``K_ff q = (T_b − T_a)ᵀ e N``):
    the operator returns N to 1e-9. The Euler estimate from the lowest free–free frequency is the weak-axis
    pinned–pinned ``π² E I_min / L²`` within 1 % (uniform beam: β₁L = 4.730 exactly)."""
    body = fm.Model("m").add_flexible_body("column", plain_column)
    pairs, operator, p_cr = axial_load_operator(body)
    assert pairs == ["a–b"]
    e = np.array([1.0, 0.0, 0.0])
    t_a, t_b = body.node_translations[body.node("a")], body.node_translations[body.node("b")]
    q = (e @ (t_b - t_a)) * -1000.0 / body.modal_stiffness
    assert operator @ q == pytest.approx([-1000.0], rel=1e-9)
    assert p_cr == pytest.approx([euler_weak_axis()], rel=0.01)


def test_a_column_pressed_near_buckling_without_the_data_warns_once(plain_column):
    """Pressed with 0.5 of the (strong-axis) Euler load: |N|/P_cr,est ≈ 1.1 > LOAD_FRACTION, one warning that names
    compression and the option; at 0.005 of it (0.011 of the estimate, below 0.02) none."""
    steel = parse_material("steel")
    p_strong = np.pi**2 * steel.youngs_modulus * SECTION.iy / L_COLUMN**2
    lines = geometric_lines(column_model(plain_column, 0.5 * p_strong), 0.05)
    assert len(lines) == 1 and "compression between its interfaces a–b" in lines[0]
    assert all(option in lines[0] for option in OPTION)
    assert 0.005 * p_strong / euler_weak_axis() < LOAD_FRACTION
    assert geometric_lines(column_model(plain_column, 0.005 * p_strong), 0.05) == []


def test_the_same_column_with_geometric_stiffness_is_silent():
    x = np.linspace(0.0, L_COLUMN, 21)
    body = reduced_beam(np.column_stack([x, 0 * x, 0 * x]), SECTION, "steel", ("a", "b"), geometric=True)
    steel = parse_material("steel")
    assert geometric_lines(column_model(body, 0.5 * np.pi**2 * steel.youngs_modulus * SECTION.iy / L_COLUMN**2),
                           0.05) == []


def spin_up_lines(**params):
    p = spin_up.parameters(params)
    return geometric_lines(spin_up.build_model(p), p["t_end"], rtol=p["rtol"], atol=p["atol"])


def test_spin_up_beam_at_10_rad_s_without_the_data_gets_one_warning():
    """The case at Ωs = 10 rad/s, first 4 s (hub at 1.06 rad/s, 0.044 of the free–free 24.2 rad/s; centrifugal
    tension root–tip ≈ ρAΩ²L²/3 = 45 N, 0.033 of the 1.38 kN Euler estimate): one line with both reasons and the
    option; with geometric stiffness (the case default) none."""
    lines = spin_up_lines(omega_s=10.0, t_end=4.0, geometric_stiffness=False)
    assert len(lines) == 1 and all(option in lines[0] for option in OPTION)
    assert "spins at up to" in lines[0] and "tension between its interfaces root–tip" in lines[0]
    assert spin_up_lines(omega_s=10.0, t_end=4.0, geometric_stiffness=True) == []


def test_a_slowly_spun_beam_without_the_data_is_silent():
    """Ωs = 0.3 rad/s reached in 5 s (0.012 of the free–free frequency, below SPIN_FRACTION = 0.02): no warning."""
    assert spin_up_lines(omega_s=0.3, t_spin=5.0, t_end=6.0, geometric_stiffness=False) == []


def test_two_bodies_without_the_data_share_one_warning():
    """Two plain Kane beams spinning at 2 rad/s (0.08 of 24.2 rad/s) on two hubs: ONE line per run naming both."""
    body = spin_up.build_body(spin_up.parameters({"geometric_stiffness": False}))
    model = fm.Model("two rotors")
    for k, y in enumerate((0.0, 30.0)):
        beam = model.add_flexible_body(f"beam{k}", body, position=(0.0, y, 0.0), angular_velocity=(0.0, 0.0, 2.0))
        hub = model.add_joint("revolute", model.add_marker(model.ground, f"hub{k}", position=(0.0, y, 0.0)),
                              model.add_marker(beam, f"r{k}", node="root"), name=f"hub{k}")
        hub.prescribe(velocity=2.0)
    lines = geometric_lines(model, 0.2)
    assert len(lines) == 1 and "body 'beam0'" in lines[0] and "body 'beam1'" in lines[0]
    assert all(option in lines[0] for option in OPTION)


def test_a_body_with_many_interfaces_has_one_segment_between_neighbours():
    """100 interfaces on a line: 99 segments, each between neighbours along the body's axis (no n²/2 pairs); every
    interface is in a segment."""
    from types import SimpleNamespace

    n, m = 100, 4
    positions = np.column_stack([np.linspace(0.0, 1.0, n), np.zeros(n), np.zeros(n)])
    shapes = np.random.default_rng(0).standard_normal((n, 3, m))
    interfaces = [SimpleNamespace(name=f"i{k}", node=k, retained_dofs="123") for k in range(n)]
    body = SimpleNamespace(flexbody=SimpleNamespace(interfaces=interfaces), modal_stiffness=np.ones(m),
                           node_positions=positions, node_translations=shapes, frequencies_hz=np.ones(m), mass=1.0)
    pairs, operator, p_cr = axial_load_operator(body)
    assert pairs == [f"i{k}–i{k + 1}" for k in range(n - 1)] and operator.shape == (n - 1, m)


def test_an_off_axis_lug_is_not_read_as_axial_load(tmp_path):
    """Issue 43: the crane of docs/tutorial.md with its cylinder lug on the boom's underside (25 mm below the axis)
    instead of on the centre line. Before, the lug's displacement along the axis (local bending) was read as an
    elongation: "4.63e+04 N of compression between tip–lug" and a false geometric-stiffness warning. Now no warning,
    and the axial force of the segment foot–lug is the pivot reaction along the boom's axis (independent reference:
    the joint's constraint force on its second body, ``N = −F·e``), lug–tip that of the hook, within 0.1 of the boom's weight (its own
    weight and inertia, spread over the body, are what the interface forces leave out)."""
    import sys

    from scipy.spatial.transform import Rotation

    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model
    from reduction import reduce, write_flexbody

    sys.path.insert(0, str(Path(fm.__file__).parents[1] / "examples" / "crane"))
    try:
        import crane
    finally:
        sys.path.pop(0)
    p = crane.parameters({})
    length, b, x = p["boom_length"], p["boom_section"], p["lug_x"]
    fe = solid_model(load_mesh(bar_mesh(str(tmp_path / "boom.msh"), length=length, width=b, height=b,
                                        size=p["mesh_size"])), "steel")
    fe.add_reference_node("foot", "group:end_x0", "rbe2")
    fe.add_reference_node("tip", "group:end_x1", "rbe2")
    fe.add_reference_node("lug", f"box:{x - 0.03},-0.001,-0.001,{x + 0.03},0.001,{b + 0.001}", "rbe3",
                          point=(x, 0.0, b / 2))  # the pin on the underside: 25 mm off the axis
    path = write_flexbody(reduce(fe, {"foot": "123456", "tip": "123456", "lug": "123"}, n_modes=p["n_modes"],
                                 damping=p["damping"], name="boom", compare_modes=0), str(tmp_path / "b.flex.h5"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = crane.run(p, path)
    assert res.success
    assert not [w for w in caught if "geometric stiffness" in str(w.message)]
    boom = next(body for body in res.system.bodies if body.name == "boom")
    pairs, operator, _ = axial_load_operator(boom)
    assert pairs == ["foot–lug", "lug–tip"]
    axial = res["body/boom/modal_coordinates"] @ operator.T
    quaternion = res["body/boom/orientation"]  # (w, x, y, z)
    e = Rotation.from_quat(quaternion[:, [1, 2, 3, 0]]).apply([1.0, 0.0, 0.0])  # the boom's axis, global
    weight = boom.mass * 9.81
    for k, joint in enumerate(("pivot", "hook")):
        reference = -np.einsum("ti,ti->t", res[f"joint/{joint}/force"], e)
        assert np.max(np.abs(reference)) > 0.2 * weight  # a load worth checking (old reading: 4.6e4 N)
        np.testing.assert_allclose(axial[:, k], reference, atol=0.1 * weight)


def test_block_samples_track_the_same_axial_extreme_as_single_samples(plain_column):
    """The compiled step records blocks of samples (``Extremes.update_block``): the largest |N|/P_cr and its load
    (to round-off), pair and time equal those of the same samples one by one."""
    from flexmbs.results.plausibility import Extremes

    model = fm.Model("m")
    model.add_flexible_body("column", plain_column)
    system = type("S", (), {"bodies": model.bodies})()
    key = "body/column/modal_coordinates"
    times = np.linspace(0.0, 1.0, 25)
    q = np.random.default_rng(3).standard_normal((25, plain_column.n_modes)) * 1e-4
    one, block = Extremes(system), Extremes(system)
    for t, row in zip(times, q):
        one.update(t, {key: row}, {key: "m kg^0.5"})
    block.update_block(times, {key: q}, {key: "m kg^0.5"})
    assert one.axial[key][2:] == block.axial[key][2:] and one.axial[key][0] > 0.0
    assert np.allclose(one.axial[key][:2], block.axial[key][:2], rtol=1e-12, atol=0.0)
