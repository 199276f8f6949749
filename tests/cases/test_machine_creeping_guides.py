"""The lateral guide of case machine-creeping (cases/machine_creeping/guides.py) on rigid blocks: the lateral
vibration against the analytic spring-mass frequency, the guide friction against Coulomb's law, and the reactions
on a free 'structure' against the conservation of linear and angular momentum."""
import numpy as np

import flexmbs as fm
from cases.machine_creeping.guides import LateralGuide
from flexmbs.model.rotations import rotation_matrix

M, K = 500.0, 2.0e6  # kg, N/m per guide
INERTIA = np.array([40.0, 60.0, 80.0])  # kg m², principal


def _block(model, name, position, velocity=(0.0, 0.0, 0.0), angular_velocity=(0.0, 0.0, 0.0)):
    return model.add_rigid_body(name, M, INERTIA, position=position, velocity=velocity,
                                angular_velocity=angular_velocity)


def _guides(model, block, frame, y0, damping=0.0, static=0.0, dynamic=0.0):
    """Two guides at x = ±0.4 m of the block, the guide line at frame y = y0 (the points' y at zero load)."""
    for i, dx in enumerate((-0.4, 0.4)):
        point = model.add_marker(block, f"shoe{i}", position=(dx, 0.0, 0.0))
        model.add_force(LateralGuide(point, frame, y0, K, damping, static=static, dynamic=dynamic,
                                     stiction_velocity=0.002, dynamic_velocity=0.01, name=f"guide{i}"))


def test_guided_block_vibrates_laterally_at_the_spring_mass_frequency_while_it_slides():
    model = fm.Model("guided block", gravity=(0.0, 0.0, 0.0))
    e0 = 1.0e-3  # m, initial lateral offset
    block = _block(model, "block", (0.0, e0, 0.0), velocity=(0.5, 0.0, 0.0))
    _guides(model, block, model.add_marker(model.ground, "frame"), 0.0)
    res = fm.simulate(model, 0.2, rtol=1e-6, atol=1e-9, output_interval=1e-3)
    t, y = res.time, res["body/block/position"][:, 1]
    omega = np.sqrt(2.0 * K / M)  # two springs in parallel, no damping, symmetric shoes (no yaw coupling)
    # analytic free vibration y = e0 cos ωt; 1 %: the integrator's numerical damping and phase error at rtol 1e-6
    np.testing.assert_allclose(y, e0 * np.cos(omega * t), rtol=0, atol=1e-2 * e0)
    # sliding along the guide line is free (no friction here): the axial speed stays 0.5 m/s
    np.testing.assert_allclose(res["body/block/velocity"][:, 0], 0.5, rtol=1e-6)


def test_guide_friction_decelerates_a_block_pressed_against_it_by_mu_g():
    g, mu_d = 9.81, 0.09
    model = fm.Model("pressed block", gravity=(0.0, -g, 0.0))  # 'gravity' presses the block onto the guides (−y)
    sag = M * g / (2.0 * K)  # static deflection of the two guides
    block = _block(model, "block", (0.0, -sag, 0.0), velocity=(1.0, 0.0, 0.0))
    _guides(model, block, model.add_marker(model.ground, "frame"), 0.0, damping=2.0e4, static=0.12, dynamic=mu_d)
    res = fm.simulate(model, 0.5, rtol=1e-6, atol=1e-9, output_interval=1e-3)
    t, v = res.time, res["body/block/velocity"][:, 0]
    late = t > 0.1  # after the small settling of the start
    slope = np.polyfit(t[late], v[late], 1)[0]
    # Coulomb: the guides carry m g, their friction μ_d m g decelerates the block at μ_d g (v ≫ v_d all along);
    # 0.5 %: the residual lateral ringing of the start (damped) modulates the normal force
    np.testing.assert_allclose(slope, -mu_d * g, rtol=5e-3)


def _momentum(res, names, k):
    p, ang = np.zeros(3), np.zeros(3)
    for name in names:
        r, v = res[f"body/{name}/position"][k], res[f"body/{name}/velocity"][k]
        w, q = res[f"body/{name}/angular_velocity"][k], res[f"body/{name}/orientation"][k]
        R = rotation_matrix(q / np.linalg.norm(q))
        p += M * v
        ang += M * np.cross(r, v) + R @ (INERTIA * (R.T @ w))
    return p, ang


def test_guide_reactions_on_a_free_structure_conserve_momentum():
    model = fm.Model("two free blocks", gravity=(0.0, 0.0, 0.0))
    platen = _block(model, "platen", (1.5, 0.002, 0.3), velocity=(0.8, 0.3, 0.0), angular_velocity=(0.0, 0.0, 0.5))
    base = _block(model, "base", (0.0, 0.0, 0.0), velocity=(0.0, -0.1, 0.0))
    frame = model.add_marker(base, "frame")
    # guide line 0.3 m below the shoes' plane (arm in z) and 1.5 m behind them (arm in x): reaction moments matter
    _guides(model, platen, frame, 0.0, damping=500.0, static=0.12, dynamic=0.09)
    res = fm.simulate(model, 0.3, rtol=1e-7, atol=1e-10, output_interval=1e-2)
    p0, l0 = _momentum(res, ("platen", "base"), 0)
    p1, l1 = _momentum(res, ("platen", "base"), -1)
    # no external load: both momenta are constant (the guide applies equal and opposite forces and the moment of
    # the force's offset on the frame); tolerance 1e-6 of their scale: the integrator's rtol
    scale_p = M * 1.0
    scale_l = M * 1.0 * 1.5
    np.testing.assert_allclose(p1, p0, rtol=0, atol=1e-6 * scale_p)
    np.testing.assert_allclose(l1, l0, rtol=0, atol=1e-6 * scale_l)
