"""Recorded output samples against analytic statics and dynamics: joint reactions of the vectorized joints (either
marker on the ground), and a state element's force recorded from the sample's friction-refinement pass."""
import numpy as np
import pytest

import flexmbs as fm
from test_mbs_state_elements import ActuatorLag

G = 9.81


def cantilever(ground_is_marker_i: bool, mass=3.0, length=0.8):
    """A rigid bar along +x, clamped (fixed joint) at its left end x = 0 to the ground, gravity -y."""
    model = fm.Model("cantilever", gravity=(0.0, -G, 0.0))
    bar = model.add_rigid_body("bar", mass=mass, inertia=(1e-3, mass * length**2 / 12, mass * length**2 / 12),
                               position=(0.5 * length, 0.0, 0.0))
    clamp = model.add_marker(model.ground, "clamp")
    root = model.add_marker(bar, "root", position=(-0.5 * length, 0.0, 0.0))
    pair = (clamp, root) if ground_is_marker_i else (root, clamp)
    model.add_joint("fixed", *pair, name="clamp")
    return model


@pytest.mark.parametrize("ground_is_marker_i", [True, False])
def test_clamp_reaction_of_a_cantilever_balances_its_weight(ground_is_marker_i):
    # statics of the bar: F = (0, m g, 0) on the bar, moment about the clamp M = m g L/2 about +z; the recorded
    # reaction acts on marker j's body: the bar (ground is marker i) or the ground (the opposite force and moment)
    mass, length = 3.0, 0.8
    sign = 1.0 if ground_is_marker_i else -1.0
    expected_force = sign * np.array([0.0, mass * G, 0.0])
    expected_torque = sign * np.array([0.0, 0.0, mass * G * 0.5 * length])
    res = fm.simulate(cantilever(ground_is_marker_i, mass, length), 0.05)
    assert res.success, res.message
    # tolerance: the acceleration-level reactions at rest are exact to round-off of the O(10) N loads
    np.testing.assert_allclose(res["joint/clamp/force"], np.tile(expected_force, (res.time.size, 1)), atol=1e-8)
    np.testing.assert_allclose(res["joint/clamp/torque"], np.tile(expected_torque, (res.time.size, 1)), atol=1e-8)


def test_pushed_block_with_joint_friction_records_the_lag_force_and_coulomb_friction():
    # the friction reads the joint multipliers, so each sample's reactions take a refinement pass in which the
    # element's force is reused; recorded: u = F (1 - exp(-t/τ)) (analytic), normal force m g, friction -μ_d m g
    mass, command, tau, mu_s, mu_d = 2.0, 20.0, 5e-3, 0.5, 0.4
    frame = np.column_stack([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # z along +x, right-handed
    model = fm.Model("pushed block", gravity=(0.0, -G, 0.0))
    block = model.add_rigid_body("block", mass=mass, inertia=(0.01, 0.01, 0.01))
    shoe = model.add_marker(block, "shoe", orientation=frame)
    guide = model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=frame), shoe, name="guide")
    model.add_force(fm.JointFriction(guide, mu_s, mu_d, 1e-3))
    model.add_element(ActuatorLag(shoe, command, tau, with_jacobians=False))
    res = fm.simulate(model, 0.1, rtol=1e-6, atol=1e-9)
    assert res.success, res.message
    t = res.time
    # tolerance: the integrator's error control at rtol 1e-6 on the lag state (as tests/flexmbs/test_mbs_state_elements)
    np.testing.assert_allclose(res["element/lag/u"], command * (1.0 - np.exp(-t / tau)), atol=1e-4 * command)
    np.testing.assert_allclose(res["element/lag/force/x(shoe)"], res["element/lag/u"], rtol=1e-12)  # f = u
    # tolerance: the reaction normal to the rail balances the weight to the solver's round-off
    np.testing.assert_allclose(res["force/friction(guide)/normal_force"], mass * G, rtol=1e-6)
    np.testing.assert_allclose(res["joint/guide/force"][:, 1], mass * G, rtol=1e-6)
    sliding = res["force/friction(guide)/sliding_velocity"] > 1.5e-3  # beyond the stiction transition: μ = μ_d
    assert sliding.sum() > 10
    # tolerance: the Coulomb law μ_d N is exact once sliding; the normal force as above
    np.testing.assert_allclose(res["force/friction(guide)/friction"][sliding], -mu_d * mass * G, rtol=1e-6)
