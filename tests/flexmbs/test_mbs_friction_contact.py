"""Joint friction (seed 003 Fig. 3-4), penalty contact (eq. 4-1, Fig. 4-3) and hard stops against analytic results."""
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.model.rotations import rotation_about

G = 9.81


def block_on_incline(angle_deg, mu_s, mu_d, speed=0.0, v_s=1e-3):
    """A 2 kg block in a prismatic guide down an incline (guide axis z = downhill direction)."""
    a = np.radians(angle_deg)
    downhill = np.array([np.cos(a), -np.sin(a), 0.0])
    # marker axes: z downhill, x = global z, y = z × x
    frame = np.column_stack([[0.0, 0.0, 1.0], np.cross(downhill, [0.0, 0.0, 1.0]), downhill])
    model = fm.Model("incline", gravity=(0.0, -G, 0.0))
    block = model.add_rigid_body("block", mass=2.0, inertia=(0.01, 0.01, 0.01), velocity=speed * downhill)
    guide = model.add_joint("prismatic", model.add_marker(model.ground, "slope", orientation=frame),
                            model.add_marker(block, "shoe", orientation=frame), name="guide")
    model.add_force(fm.JointFriction(guide, mu_s, mu_d, v_s))
    return model


def test_block_below_the_static_coefficient_sticks():
    # tan 20° = 0.364 < μ_s = 0.5: held by stiction (regularized: creeps slower than v_s)
    res = fm.simulate(block_on_incline(20.0, 0.5, 0.4), 1.0, rtol=1e-6, atol=1e-9)
    assert res.success, res.message
    assert np.abs(res["joint/guide/translation"]).max() < 1e-3 * 1.0  # v_s × 1 s
    normal = res["force/friction(guide)/normal_force"][-1]
    assert normal == pytest.approx(2.0 * G * np.cos(np.radians(20.0)), rel=1e-6)  # N = m g cos α from the reaction
    assert res["force/friction(guide)/friction"][-1] == pytest.approx(-2.0 * G * np.sin(np.radians(20.0)), rel=1e-3)


def test_block_above_the_static_coefficient_slides_with_the_coulomb_acceleration():
    # tan 30° = 0.577 > μ_s = 0.5: slides, a = g (sin α - μ_d cos α)
    res = fm.simulate(block_on_incline(30.0, 0.5, 0.4), 1.0, rtol=1e-6, atol=1e-9)
    t, s = res.time, res["joint/guide/translation"]
    a = np.radians(30.0)
    expected = G * (np.sin(a) - 0.4 * np.cos(a))
    fit = np.polyfit(t[t > 0.3], s[t > 0.3], 2)
    assert 2.0 * fit[0] == pytest.approx(expected, rel=1e-3)


def test_sliding_block_decelerates_and_then_sticks():
    # tan 10° < μ_d = 0.25: a block launched downhill at 2 m/s decelerates at g (μ_d cos α - sin α), then stops
    a = np.radians(10.0)
    decel = G * (0.25 * np.cos(a) - np.sin(a))
    res = fm.simulate(block_on_incline(10.0, 0.3, 0.25, speed=2.0), 3.5, rtol=1e-6, atol=1e-9)
    t = res.time
    v = res["body/block/velocity"] @ np.array([np.cos(a), -np.sin(a), 0.0])
    sliding = (t > 0.2) & (t < 2.5)
    slope = np.polyfit(t[sliding], v[sliding], 1)[0]
    assert -slope == pytest.approx(decel, rel=1e-3)
    assert np.abs(v[t > 3.2]).max() < 1e-3  # stuck below the stiction velocity
    assert res["joint/guide/translation"][-1] == pytest.approx(2.0**2 / (2 * decel), rel=1e-2)


def puck_on_plane(speed=0.0, stiffness=1e6, exponent=1.5):
    model = fm.Model("puck", gravity=(0.0, 0.0, -G))
    puck = model.add_rigid_body("puck", mass=0.5, inertia=(1e-3, 1e-3, 1e-3), position=(0, 0, 0.0),
                                velocity=(speed, 0.0, 0.0))
    # keep the puck upright and in the x-z plane so that only the contact acts vertically and along x
    model.add_joint("planar", model.add_marker(model.ground, "wall", orientation=rotation_about("x", np.pi / 2)),
                    model.add_marker(puck, "puck.wall", orientation=rotation_about("x", np.pi / 2)), name="wall")
    contact = fm.PlaneContact(model.add_marker(puck, "puck.bottom"), model.add_marker(model.ground, "floor"),
                              stiffness=stiffness, exponent=exponent, damping=300.0, damping_depth=1e-5,
                              static=0.3, dynamic=0.2, stiction_velocity=1e-3, name="floor")
    model.add_force(contact)
    return model


def test_resting_contact_penetration_matches_the_penalty_law():
    # k x^e = m g  →  x = (m g / k)^(1/e)  (seed 003 eq. 4-1 at rest)
    res = fm.simulate(puck_on_plane(), 0.3, rtol=1e-6, atol=1e-10)
    assert res.success, res.message
    depth = (0.5 * G / 1e6) ** (1.0 / 1.5)
    assert res["force/floor/penetration"][-1] == pytest.approx(depth, rel=1e-4)
    assert res["force/floor/normal_force"][-1] == pytest.approx(0.5 * G, rel=1e-4)


def test_sliding_puck_decelerates_at_mu_d_g():
    res = fm.simulate(puck_on_plane(speed=1.0), 0.4, rtol=1e-6, atol=1e-10)
    t, v = res.time, res["body/puck/velocity"][:, 0]
    window = (t > 0.1) & (t < 0.35)
    assert -np.polyfit(t[window], v[window], 1)[0] == pytest.approx(0.2 * G, rel=2e-3)


def test_hard_stop_holds_a_falling_slider_at_the_penalty_depth():
    model = fm.Model("stop", gravity=(0.0, -G, 0.0))
    down = rotation_about("x", np.pi / 2)  # marker z = -Y
    slider = model.add_rigid_body("slider", mass=3.0, inertia=(0.01, 0.01, 0.01))
    guide = model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=down),
                            model.add_marker(slider, "carriage", orientation=down), name="rail")
    model.add_force(fm.HardStop(guide, upper=0.05, stiffness=1e6, exponent=1.0, damping=500.0, name="end"))
    res = fm.simulate(model, 1.0, rtol=1e-6, atol=1e-10)
    assert res.success, res.message
    # falls 5 cm freely, then rests at 0.05 + m g / k
    assert res["joint/rail/translation"][-1] == pytest.approx(0.05 + 3.0 * G / 1e6, abs=1e-7)
    assert res["force/end/load"][-1] == pytest.approx(-3.0 * G, rel=5e-3)  # k times the 1e-7 m position tolerance


@pytest.mark.parametrize("torque, turns", [(0.5, False), (2.0, True)])
def test_revolute_friction_holds_or_yields_to_a_torque(torque, turns):
    # wheel of 4 kg on a horizontal axle, pin radius 20 mm: breakaway torque μ_s R m g = 0.628 N m lies between
    # the two applied torques (0.5 and 2.0 N m)
    mass, radius, inertia, mu_s, mu_d = 4.0, 0.02, 0.05, 0.8, 0.6
    model = fm.Model("wheel", gravity=(0.0, -G, 0.0))
    wheel = model.add_rigid_body("wheel", mass=mass, inertia=(0.03, 0.03, inertia))
    axle = model.add_joint("revolute", model.add_marker(model.ground, "axle"), model.add_marker(wheel, "hub"),
                           name="axle")
    model.add_force(fm.JointFriction(axle, mu_s, mu_d, stiction_velocity=1e-4, pin_radius=radius))
    model.add_force(fm.JointActuator(axle, torque, name="motor"))
    res = fm.simulate(model, 1.0, rtol=1e-6, atol=1e-9)
    assert res.success, res.message
    angle = res["joint/axle/rotation"]
    if not turns:
        assert abs(angle[-1]) < 1e-4 / radius * 1.0  # creeps slower than the stiction velocity
        return
    t = res.time
    alpha = (torque - mu_d * radius * mass * G) / inertia  # the reaction is the weight m g
    fit = np.polyfit(t[t > 0.2], np.unwrap(angle[t > 0.2]), 2)
    assert 2.0 * fit[0] == pytest.approx(alpha, rel=1e-3)


def test_step_control_survives_an_impact_and_an_undamped_contact_returns_the_ball_to_its_drop_height():
    # 1 kg ball dropped from 0.2 m on a stiff Hertz-like contact (k = 1e8 N/m^1.5, e = 1.5, no damping):
    # the contact is conservative, so the ball must bounce back to 0.2 m
    model = fm.Model("bounce", gravity=(0.0, 0.0, -G))
    ball = model.add_rigid_body("ball", mass=1.0, inertia=(4e-4, 4e-4, 4e-4), position=(0.0, 0.0, 0.2))
    model.add_force(fm.PlaneContact(model.add_marker(ball, "south"), model.add_marker(model.ground, "floor"),
                                    stiffness=1e8, exponent=1.5, name="floor"))
    res = fm.simulate(model, 0.45, rtol=1e-6, atol=1e-9)  # impact at 0.202 s, apex again at 0.405 s
    assert res.success, res.message
    z = res["body/ball/position"][:, 2]
    t = res.time
    t_impact = np.sqrt(2 * 0.2 / G)
    assert res["force/floor/normal_force"].max() > 1e3  # a real impact: over 100 times the weight
    after = t > t_impact + 0.05
    # the apex from the flight energy z + ż²/2g (exact between samples in free flight), not the largest sampled z:
    # that one misses the apex by up to g h²/8 (6e-4 m at the 0.02 s flight steps) wherever the samples fall
    apex = z + res["body/ball/velocity"][:, 2] ** 2 / (2.0 * G)
    assert apex[after].max() == pytest.approx(0.2, rel=1e-3)
    assert apex[after].min() == pytest.approx(0.2, rel=1e-3)
    assert res.statistics["rejected_steps"] < 0.2 * res.statistics["steps"]
    energy = res.energy()["total"]  # kinetic + gravity + contact spring energy, through the impact
    assert np.ptp(energy) < 1e-3 * 1.0 * G * 0.2


def test_line_contact_ends_at_the_end_of_the_segment():
    # the same puck on a 0.1 m long strip (|x| <= 0.05 m): it slides off the end and falls freely
    model = fm.Model("strip", gravity=(0.0, 0.0, -G))
    puck = model.add_rigid_body("puck", mass=0.5, inertia=(1e-3, 1e-3, 1e-3), velocity=(1.0, 0.0, 0.0),
                                position=(0.0, 0.0, -(0.5 * G / 1e6) ** (1 / 1.5)))
    model.add_joint("planar", model.add_marker(model.ground, "wall", orientation=rotation_about("x", np.pi / 2)),
                    model.add_marker(puck, "puck.wall", orientation=rotation_about("x", np.pi / 2)), name="wall")
    model.add_force(fm.PlaneContact(model.add_marker(puck, "bottom"), model.add_marker(model.ground, "strip"),
                                    stiffness=1e6, exponent=1.5, damping=300.0, damping_depth=1e-5,
                                    half_length=0.05, name="strip"))
    res = fm.simulate(model, 0.15, rtol=1e-6, atol=1e-10)
    t, x, z = res.time, res["body/puck/position"][:, 0], res["body/puck/position"][:, 2]
    off = x > 0.05
    assert np.all(res["force/strip/normal_force"][off] == 0.0)
    t_off = t[off][0]
    late = t > t_off + 0.02
    # free fall after leaving the strip: z(t) = z_off - g (t - t_off)² / 2 (vertical speed ≈ 0 on the strip)
    np.testing.assert_allclose(z[late], z[off][0] - 0.5 * G * (t[late] - t_off) ** 2, atol=2e-4)
