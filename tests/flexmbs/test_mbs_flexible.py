"""Floating-frame flexible bodies (seed 003 §2.1.2.2/3) against full FE and analytic references."""
import numpy as np
import pytest
from scipy.special import ellipk

import flexmbs as fm
from mbs_helpers import beam_matrices, cantilever_frequencies, craig_bampton_flexbody, zero_crossing_times

G = 9.81


@pytest.fixture(scope="module")
def steel_beam():
    K, M, positions = beam_matrices(length=0.5, n_elements=10)  # 20 x 20 mm steel, 0.5 m
    return K, M, positions, craig_bampton_flexbody(K, M, positions, n_normal=4)


def test_clamped_flexible_body_rings_at_the_full_fe_cantilever_frequency(steel_beam):
    K, M, _, flexbody = steel_beam
    f_fe = cantilever_frequencies(K, M, 1)[0]  # independent reference: the full FE model clamped at node 0
    model = fm.Model("cantilever")
    beam = model.add_flexible_body("beam", flexbody)
    model.add_joint("fixed", model.add_marker(model.ground, "clamp"), model.add_marker(beam, "root", node="end0"))
    tip = model.add_marker(beam, "tip", node="end1")
    pulse = 0.5 / f_fe  # half-sine tip impulse lasting half a period
    model.add_force(fm.PointForce(tip, force=lambda t: (0.0, 50.0 * np.sin(np.pi * t / pulse) if t < pulse else 0.0,
                                                        0.0)))
    res = fm.simulate(model, 0.1, rtol=1e-5, atol=1e-8)
    assert res.success, res.message
    after = res.time > 2 * pulse
    crossings = zero_crossing_times(res.time[after], res["marker/tip/position"][after, 1])
    frequency = (crossings.size - 1) / (2.0 * (crossings[-1] - crossings[0]))
    assert frequency == pytest.approx(f_fe, rel=1e-2)
    assert abs(frequency / f_fe - 1.0) < 2e-3  # what it actually achieves (CB basis with the tip interface)


def test_flexible_body_frame_inertia_matches_the_analytic_rod(steel_beam):
    _, _, _, flexbody = steel_beam
    model = fm.Model("inertia")
    beam = model.add_flexible_body("beam", flexbody)
    mass = 7850.0 * 0.02 * 0.02 * 0.5
    assert beam.mass == pytest.approx(mass, rel=1e-12)
    np.testing.assert_allclose(beam.first_moment, [mass * 0.25, 0.0, 0.0], atol=1e-12)
    # about the frame origin (rod end): I_zz = I_yy = m L²/3 (Euler-Bernoulli elements carry no rotary inertia of
    # the section in bending), I_xx = ρ J_p L = m (b² + h²)/12 from the torsional mass
    inertia_zz = mass * 0.5**2 / 3.0
    assert beam.inertia_origin[2, 2] == pytest.approx(inertia_zz, rel=1e-10)
    assert beam.inertia_origin[0, 0] == pytest.approx(mass * 2 * 0.02**2 / 12.0, rel=1e-10)


def test_flexible_body_with_all_modes_disabled_swings_like_the_rigid_compound_pendulum(steel_beam):
    _, _, _, flexbody = steel_beam
    model = fm.Model("rigidified", gravity=(0.0, -G, 0.0))
    beam = model.add_flexible_body("beam", flexbody, modes=[])
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"), model.add_marker(beam, "root", node="end0"))
    res = fm.simulate(model, 1.5, rtol=1e-6, atol=1e-9)
    length = 0.5
    # compound pendulum about the end: ω0² = g (L/2) / (L²/3)
    omega0 = np.sqrt(G * length / 2.0 / (length**2 / 3.0))
    period = 4.0 * ellipk(0.5) / omega0
    w = res["body/beam/angular_velocity"][:, 2]
    turn = zero_crossing_times(res.time[1:], w[1:])[1]
    assert turn == pytest.approx(period, rel=1e-4)


def test_pendulum_with_an_undamped_flexible_link_conserves_energy_over_5_s():
    K, M, positions = beam_matrices(length=1.0, n_elements=10, width=0.01, height=0.01)
    flexbody = craig_bampton_flexbody(K, M, positions, n_normal=2)
    model = fm.Model("flexible pendulum", gravity=(0.0, -G, 0.0))
    beam = model.add_flexible_body("beam", flexbody)
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"), model.add_marker(beam, "root", node="end0"))
    res = fm.simulate(model, 5.0, rtol=3e-6, atol=3e-8, output_interval=0.002)
    assert res.success, res.message
    energy = res.energy()
    assert energy["strain"].max() > 3e-5  # the link really deforms (about 0.1 mJ)
    assert np.ptp(energy["total"]) / energy["kinetic"].max() < 1e-3


def test_flexible_body_from_a_flex_file_behaves_like_the_object(steel_beam, tmp_path):
    from reduction.io import write_flexbody

    _, _, _, flexbody = steel_beam
    path = write_flexbody(flexbody, str(tmp_path / "beam.flex.h5"))
    from_file = fm.FlexibleBody.from_file("beam", path)
    np.testing.assert_allclose(from_file.frequencies_hz, flexbody.frequencies_hz, rtol=1e-12)
    assert from_file.mass == pytest.approx(flexbody.invariants.mass, rel=1e-12)
    model = fm.Model("from file")
    model.add_body(from_file)
    assert model.add_marker(from_file, "tip", node="end1").node == flexbody.interface("end1").node


def test_solid_bar_reduced_by_the_pipeline_rings_at_the_clamped_fe_frequency():
    # end to end: hexahedral solid → RBE2 interfaces → reduction.reduce → FlexibleBody clamped at interface A,
    # against the full solid FE model with the same end face clamped (fem.analysis.modal_analysis)
    from fem.analysis import modal_analysis
    from fem.model import solid_model
    from mbs_helpers import hexahedral_bar
    from reduction.reduce import reduce

    fe = solid_model(hexahedral_bar(), "aluminium")
    face = fe.select("box:-1e-9,-1,-1,1e-9,1,1")
    fe.add_reference_node("A", face, "rbe2", point=(0.0, 0.0, 0.0))
    fe.add_reference_node("B", fe.select("box:0.2999999,-1,-1,0.3000001,1,1"), "rbe2", point=(0.3, 0.0, 0.0))
    f_fe = modal_analysis(solid_model(hexahedral_bar(), "aluminium"), 1, [face]).frequencies_hz[0]
    rod = reduce(fe, ["A", "B"], 4, name="rod", compare_modes=0)
    model = fm.Model("solid cantilever")
    body = model.add_flexible_body("rod", rod)
    model.add_joint("fixed", model.add_marker(model.ground, "clamp"), model.add_marker(body, "A", node="A"))
    tip = model.add_marker(body, "B", node="B")
    pulse = 0.5 / f_fe
    model.add_force(fm.PointForce(tip, force=lambda t: (0.0, 5.0 * np.sin(np.pi * t / pulse) if t < pulse else 0.0,
                                                        0.0)))
    res = fm.simulate(model, 12.0 / f_fe, rtol=1e-5, atol=1e-9)
    assert res.success, res.message
    after = res.time > 2 * pulse
    crossings = zero_crossing_times(res.time[after], res["marker/B/position"][after, 1])
    frequency = (crossings.size - 1) / (2.0 * (crossings[-1] - crossings[0]))
    assert frequency == pytest.approx(f_fe, rel=1e-2)


def test_kinetic_energy_of_a_deformed_spinning_body_equals_the_nodal_sum(steel_beam):
    # independent reference: seed 003 eq. (2-144), the nodal sum ½ Σ m_p |ṙ_p|² + ½ Σ ω_pᵀ J_p ω_p with every
    # node's velocity of the moving, deformed body (body axes): translations Aᵀṙ + ω × (s_p + S_p q) + S_p q̇
    # (eq. 2-146), rotations ω + S^θ_p q̇ (eq. 2-152). With a diagonal (lumped) mass matrix the invariants reproduce
    # it exactly, so every block of M̄(q) is checked.
    import copy

    import scipy.sparse as sp

    from reduction.flexbody import compute_invariants

    _, _, positions, flexbody = steel_beam
    n = positions.shape[0]
    node_mass = np.full(n, 7850.0 * 4e-4 * 0.05)  # seed 003 Table 2-3 style lumping: ρ A ℓ, half at the ends
    node_mass[[0, -1]] *= 0.5
    lumped = np.diag(np.column_stack([np.repeat(node_mass[:, None], 3, axis=1),
                                      np.full((n, 3), 2e-6)]).ravel())  # isotropic nodal inertia J_p
    tdofs = np.arange(6 * n).reshape(n, 6)[:, :3]
    m = flexbody.n_modes
    basis = np.zeros((6 * n, m))
    basis[tdofs.ravel()] = flexbody.translations.reshape(-1, m)
    basis[(tdofs + 3).ravel()] = flexbody.rotations.reshape(-1, m)
    diagonal = copy.copy(flexbody)
    diagonal.invariants = compute_invariants(sp.csr_matrix(lumped), basis, positions, tdofs, tdofs + 3)
    body = fm.FlexibleBody("beam", diagonal)
    rng = np.random.default_rng(1)
    q_b = np.concatenate([[0.1, -0.2, 0.3], fm.model.rotations.quaternion_from_axis_angle([1, 2, 3], 0.7),
                          1e-2 * rng.standard_normal(m)])
    v_b = np.concatenate([[1.0, -2.0, 0.5], rng.standard_normal(4), rng.standard_normal(m)])
    kin = body.kinematics(q_b, v_b)
    u = positions + body.node_translations @ kin.qf
    vel = np.zeros((n, 6))
    vel[:, :3] = kin.A.T @ kin.rdot + np.cross(kin.omega, u) + body.node_translations @ kin.qfdot
    vel[:, 3:] = kin.omega + body.node_rotations @ kin.qfdot
    nodal_sum = 0.5 * np.sum(np.diag(lumped) * vel.ravel() ** 2)
    assert body.kinetic_energy(kin) == pytest.approx(nodal_sum, rel=1e-12)
