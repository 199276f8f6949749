"""Joints with prescribed motion and force elements against closed-form answers."""
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.model.rotations import rotation_about
from mbs_helpers import zero_crossing_times

G = 9.81


def test_cylindrical_joint_with_prescribed_rotation_and_translation_follows_a_helix():
    model = fm.Model("screw")
    nut = model.add_rigid_body("nut", mass=1.0, inertia=(0.01, 0.01, 0.02), position=(0.0, 0.0, 0.0))
    model.add_rigid_body("arm", mass=0.1, inertia=(1e-4, 1e-4, 1e-4), position=(0.2, 0.0, 0.0))
    axis = model.add_joint("cylindrical", model.add_marker(model.ground, "axis"), model.add_marker(nut, "nut.axis"),
                           name="screw")
    axis.prescribe(velocity=3.0, coordinate="rotation")
    axis.prescribe(position=lambda t: 0.05 * np.sin(2.0 * t), coordinate="translation")
    model.add_joint("fixed", model.add_marker(nut, "nut.arm", position=(0.2, 0.0, 0.0)),
                    model.add_marker(model.body("arm"), "arm.root"), name="weld")
    res = fm.simulate(model, 1.0, rtol=1e-7, atol=1e-10)
    assert res.success, res.message
    t = res.time
    p = res["body/arm/position"]
    np.testing.assert_allclose(p[:, 0], 0.2 * np.cos(3.0 * t), atol=1e-7)
    np.testing.assert_allclose(p[:, 1], 0.2 * np.sin(3.0 * t), atol=1e-7)
    np.testing.assert_allclose(p[:, 2], 0.05 * np.sin(2.0 * t), atol=1e-7)
    # the driver's reaction torque about z equals J_total dω/dt = 0 at constant speed
    np.testing.assert_allclose(res["joint/screw/torque"][:, 2], 0.0, atol=1e-6)


def test_bushing_mass_oscillates_at_sqrt_k_over_m():
    k, m = 4.0e4, 2.5
    model = fm.Model("bushing")
    body = model.add_rigid_body("mass", mass=m, inertia=(0.1, 0.1, 0.1), velocity=(0.0, 0.05, 0.0))
    model.add_force(fm.Bushing(model.add_marker(model.ground, "base"), model.add_marker(body, "mount"),
                               translational_stiffness=(k, k, k), rotational_stiffness=(1e3, 1e3, 1e3)))
    res = fm.simulate(model, 0.3, rtol=1e-7, atol=1e-10)
    crossings = zero_crossing_times(res.time[1:], res["body/mass/position"][1:, 1])
    period = 2.0 * np.mean(np.diff(crossings))
    assert period == pytest.approx(2.0 * np.pi * np.sqrt(m / k), rel=1e-4)


def test_rotational_spring_pendulum_frequency_and_tabulated_spring_static_deflection():
    # torsional oscillator: ω = sqrt(k_t / J) about the revolute axis
    kt, inertia = 50.0, 0.02
    model = fm.Model("torsion")
    disc = model.add_rigid_body("disc", mass=1.0, inertia=(0.01, 0.01, inertia), angular_velocity=(0, 0, 1.0))
    base, hub = model.add_marker(model.ground, "base"), model.add_marker(disc, "hub")
    model.add_joint("revolute", base, hub, name="shaft")
    model.add_force(fm.RotationalSpringDamper(base, hub, stiffness=kt, name="torsion"))
    res = fm.simulate(model, 0.5, rtol=1e-7, atol=1e-10)
    crossings = zero_crossing_times(res.time[1:], res["joint/shaft/rotation"][1:])
    assert 2.0 * np.mean(np.diff(crossings)) == pytest.approx(2.0 * np.pi * np.sqrt(inertia / kt), rel=1e-4)
    # progressive tabulated spring under a 2 kg weight: rests where table(δ) = m g
    table = fm.Table([-0.1, 0.0, 0.01, 0.02, 0.05], [-1e4, 0.0, 10.0, 30.0, 200.0])
    model = fm.Model("hanging", gravity=(0.0, -G, 0.0))
    weight = model.add_rigid_body("weight", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(0.0, -0.5, 0.0))
    model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=rotation_about("x", -np.pi / 2)),
                    model.add_marker(weight, "slide", orientation=rotation_about("x", -np.pi / 2)), name="rail")
    model.add_force(fm.SpringDamper(model.add_marker(model.ground, "hook"), model.add_marker(weight, "eye"),
                                    stiffness=table, free_length=0.5, name="spring"))
    eq = fm.static_equilibrium(model)
    stretch = 0.01 + (2.0 * G - 10.0) / ((30.0 - 10.0) / 0.01)  # m g = 19.6 N lies on the piece 0.01..0.02 m
    assert eq["force/spring/length"][0] == pytest.approx(0.5 + stretch, rel=1e-9)
    assert eq["force/spring/force"][0] == pytest.approx(2.0 * G, rel=1e-9)
