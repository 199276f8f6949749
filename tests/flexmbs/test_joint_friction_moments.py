"""Joint friction from the forces *and moments* a joint carries (seed 003 §3.2.1.1; MSC Adams FRICTION form):
revolute ``T_f = μ [R_p (F_pre + |F_r| + |T_b|/R_b) + R_n |F_a|]``, prismatic
``F_f = μ (F_pre + |F_r| + |T_b|/X_s + |T_t|/R_n)``, against hand calculations."""
import numpy as np
import pytest

import flexmbs as fm
from flexmbs.model.contacts import prismatic_friction_load, revolute_friction_load

G = 9.81


def test_revolute_load_splits_the_reaction_about_a_tilted_axis():
    # axis n = (0, 0.6, 0.8); u = (1, 0, 0), w = n × u = (0, 0.8, -0.6) complete an orthonormal frame.
    # F = 3 u + 4 w + 5 n  ->  |F_r| = 5, |F_a| = 5;  T = 1.2 u - 0.5 w + 7 n  ->  |T_b| = 1.3 (the axial 7 N m is
    # the joint's free direction and does not load it).  R_p = 0.05, R_b = 0.02, R_n = 0.08, F_pre = 2 N:
    # load = 0.05 (2 + 5 + 1.3 / 0.02) + 0.08 * 5 = 0.05 * 72 + 0.4 = 4.0 N m
    n, u = np.array([0.0, 0.6, 0.8]), np.array([1.0, 0.0, 0.0])
    w = np.cross(n, u)
    parts = revolute_friction_load(3 * u + 4 * w + 5 * n, 1.2 * u - 0.5 * w + 7 * n, n, pin_radius=0.05,
                                   friction_arm=0.08, bending_arm=0.02, preload=2.0)
    assert parts["radial"] == pytest.approx(5.0, rel=1e-12)  # round-off only: closed-form decomposition
    assert parts["axial"] == pytest.approx(5.0, rel=1e-12)
    assert parts["bending"] == pytest.approx(1.3, rel=1e-12)
    assert parts["load"] == pytest.approx(4.0, rel=1e-12)
    assert parts["normal"] == pytest.approx(4.0 / 0.05, rel=1e-12)
    # without the arms: the radial-force-only law R_p (F_pre + |F_r|)
    assert revolute_friction_load(3 * u + 4 * w + 5 * n, 1.2 * u, n, 0.05, preload=2.0)["load"] == \
        pytest.approx(0.05 * 7.0, rel=1e-12)


def test_prismatic_load_adds_bending_over_the_overlap_and_torsion_over_the_reaction_arm():
    # axis z; F = (3, 4, 10) -> |F_r| = 5 (the 10 N along the guide is its free direction);
    # T = (0.6, 0.8, 0.3) -> |T_b| = 1, |T_t| = 0.3;  X_s = 0.1, R_n = 0.05, F_pre = 1:  1 + 5 + 10 + 6 = 22 N
    parts = prismatic_friction_load([3.0, 4.0, 10.0], [0.6, 0.8, 0.3], [0.0, 0.0, 1.0], overlap=0.1,
                                    reaction_arm=0.05, preload=1.0)
    assert parts["load"] == pytest.approx(22.0, rel=1e-12)  # round-off only
    assert parts["torsion"] == pytest.approx(0.3, rel=1e-12)


def spinning_wheel(mu_s=0.4, mu_d=0.3, omega0=20.0):
    """A 50 kg wheel on a revolute joint (axis global Z, joint point at the origin) whose centre of mass sits
    e = 0.12 m along the axle, off the joint's mid-plane; a horizontal force P = 300 N and an axial force
    F_a = 200 N act at the centre of mass. Spin about a principal axis through the centre of mass: no gyroscopic
    moment, the centre of mass does not move."""
    m, e, inertia = 50.0, 0.12, 2.0
    model = fm.Model("offset-wheel", gravity=(0.0, -G, 0.0))
    wheel = model.add_rigid_body("wheel", mass=m, inertia=(1.5, 1.5, inertia), centre_of_mass=(0.0, 0.0, e),
                                 angular_velocity=(0.0, 0.0, omega0))
    axle = model.add_joint("revolute", model.add_marker(model.ground, "axle"), model.add_marker(wheel, "hub"),
                           name="axle")
    model.add_force(fm.PointForce(model.add_marker(wheel, "centre", position=(0.0, 0.0, e)),
                                  force=(300.0, 0.0, 200.0), name="load"))
    model.add_force(fm.JointFriction(axle, mu_s, mu_d, stiction_velocity=1e-3, pin_radius=0.04, preload=100.0,
                                     friction_arm=0.06, bending_arm=0.03, name="friction"))
    return model, dict(m=m, e=e, inertia=inertia, P=300.0, Fa=200.0, Rp=0.04, Rn=0.06, Rb=0.03, Fpre=100.0,
                       mu_d=mu_d, omega0=omega0)


def test_friction_torque_of_a_wheel_under_an_offset_load_equals_the_hand_calculation():
    model, p = spinning_wheel()
    res = fm.simulate(model, 0.1, rtol=1e-8, atol=1e-10)
    assert res.success, res.message
    # Hand calculation. Equilibrium of the (non-translating) wheel: the joint carries
    #   radial force  |F_r| = sqrt((m g)^2 + P^2) = sqrt(490.5^2 + 300^2) = 574.97 N,
    #   axial force   |F_a| = 200 N,
    #   bending moment |T_b| = e |F_r| (the transverse loads act e = 0.12 m off the joint point) = 69.00 N m.
    # Sliding (ω R_p = 0.4 .. 0.8 m/s >> 1.5 v_s): μ = μ_d = 0.3, so
    #   T_f = μ_d [R_p (F_pre + |F_r| + |T_b| / R_b) + R_n |F_a|]
    #       = 0.3 [0.04 (100 + 574.97 + 69.00 / 0.03) + 0.06 * 200] = 0.3 [0.04 * 2974.9 + 12] = 39.30 N m
    radial = np.hypot(p["m"] * G, p["P"])
    bending = p["e"] * radial
    torque = p["mu_d"] * (p["Rp"] * (p["Fpre"] + radial + bending / p["Rb"]) + p["Rn"] * p["Fa"])
    assert torque == pytest.approx(39.30, abs=0.01)  # the worked numbers above
    sliding = res.time > 0.0
    friction = res["force/friction/friction"][sliding]
    # 1e-6 relative (acceptance of issue 16): reactions of a rigid wheel from the consistent multipliers are exact
    # to round-off; the friction law is evaluated from them in closed form
    np.testing.assert_allclose(-friction, torque, rtol=1e-6)
    np.testing.assert_allclose(res["force/friction/bending_moment"], bending, rtol=1e-6)
    np.testing.assert_allclose(res["force/friction/radial_force"], radial, rtol=1e-6)
    np.testing.assert_allclose(res["force/friction/axial_force"], p["Fa"], rtol=1e-6)
    # the wheel decelerates at T_f / J. 1e-4: inside a step the friction is evaluated with the integrator's
    # index-3 multipliers, which differ from the consistent ones by ~1e-5 relative at rtol 1e-8 (2e-4 at 1e-6);
    # the recorded friction above uses the consistent multipliers and is exact
    omega = res["body/wheel/angular_velocity"][:, 2]
    assert -np.polyfit(res.time, omega, 1)[0] == pytest.approx(torque / p["inertia"], rel=1e-4)


def test_bending_term_leaves_the_radial_only_law_when_the_arm_is_not_given():
    # same wheel with bending_arm = None and friction_arm = 0: T_f = μ_d R_p (F_pre + |F_r|) = 0.3*0.04*674.97
    model, p = spinning_wheel()
    friction = model.forces[-1]
    friction.bending_arm, friction.friction_arm = None, 0.0
    res = fm.simulate(model, 0.05, rtol=1e-6, atol=1e-9)
    radial = np.hypot(p["m"] * G, p["P"])
    np.testing.assert_allclose(-res["force/friction/friction"][1:], p["mu_d"] * p["Rp"] * (p["Fpre"] + radial),
                               rtol=1e-6)  # closed form from exact reactions, as above


def wheel_with_torque(torque, stick: bool):
    """4 kg wheel on a horizontal axle (pin radius 20 mm, J = 0.05 kg m^2) under a constant torque; breakaway
    torque μ_s R m g = 0.8 * 0.02 * 39.24 = 0.628 N m; transition velocity 10 mm/s. With ``stick`` the friction
    has a stick state with δ = 10 µm, damped so that the stuck wheel does not swing back (below)."""
    mass, radius, inertia, mu_s, mu_d, delta = 4.0, 0.02, 0.05, 0.8, 0.6, 1e-5
    normal = mass * G
    sigma0 = mu_s / delta
    # stuck: rotational stiffness k (1 - s/δ), damping c (1 - s/δ), k = σ0 N R², c = σ1 N R²: damping ratio
    # ζ sqrt(1 - s/δ); ζ = 3 keeps it above 1 up to s = 0.89 δ (the hold point below is 0.80 δ): no swing back
    sigma1 = 3.0 * 2.0 * np.sqrt(sigma0 * inertia / (normal * radius**2)) if stick else 0.0
    model = fm.Model("wheel", gravity=(0.0, -G, 0.0))
    wheel = model.add_rigid_body("wheel", mass=mass, inertia=(0.03, 0.03, inertia))
    axle = model.add_joint("revolute", model.add_marker(model.ground, "axle"), model.add_marker(wheel, "hub"),
                           name="axle")
    model.add_force(fm.JointFriction(axle, mu_s, mu_d, stiction_velocity=1e-2, pin_radius=radius,
                                     stiction_deformation=delta if stick else None, stiction_damping=sigma1))
    model.add_force(fm.JointActuator(axle, torque, name="motor"))
    return model, dict(mu_s=mu_s, normal=normal, radius=radius, delta=delta,
                       alpha=(torque - mu_d * radius * normal) / inertia)


def test_stick_state_holds_a_wheel_below_breakaway_without_creep():
    model, p = wheel_with_torque(0.5, stick=True)
    res = fm.simulate(model, 2.0, rtol=1e-6, atol=1e-10)
    assert res.success, res.message
    t, angle = res.time, res["joint/axle/rotation"]
    # hand calculation: held at rest, μ_s s/δ N R = T  ->  s* = T δ / (μ_s N R) = 0.5e-5 / (0.8 * 39.24 * 0.02)
    #   = 7.963 µm.  Loading monotonically below v_s (s_ss = δ), ds/dx = 1 - s/δ along the sliding-surface travel
    #   x = R θ, so x* = -δ ln(1 - s*/δ) = 15.91 µm and θ* = x*/R = 7.955e-4 rad
    s_star = 0.5 * p["delta"] / (p["mu_s"] * p["normal"] * p["radius"])
    expected = -p["delta"] * np.log(1.0 - s_star / p["delta"]) / p["radius"]
    assert np.all(np.diff(angle) >= -1e-9)  # monotonic loading (the hand calculation's path), up to the Newton noise
    late = t > 1.0  # overdamped approach, slowest time constant ≈ c/k_min = 0.1 s
    # deflection: 1e-6 relative, at rest the held state is an exact equilibrium of the stick-state equations (the
    # approach has decayed by e^-10 at 1 s)
    np.testing.assert_allclose(res["element/friction(axle).stick/deflection"][late], s_star, rtol=1e-6)
    # angle: 1e-3, the travel integrates the loading path (hysteretic), integrated at rtol 1e-6
    np.testing.assert_allclose(angle[late], expected, rtol=1e-3)
    assert np.ptp(angle[late]) < 1e-8 * expected  # held: no creep over the last second (bound: Newton noise)
    # no creep: the regularized law drifts at the creep velocity (μ(v) N R = T below v_s), here ≈ 2e-3 rad/s
    model_reg, _ = wheel_with_torque(0.5, stick=False)
    reg = fm.simulate(model_reg, 2.0, rtol=1e-6, atol=1e-10)["joint/axle/rotation"]
    assert abs(reg[-1]) > 100 * abs(angle[-1] - angle[late][0]) + 1e-4


def test_stick_state_breaks_away_above_the_static_torque_and_slides_at_mu_d():
    model, p = wheel_with_torque(2.0, stick=True)
    res = fm.simulate(model, 1.0, rtol=1e-6, atol=1e-10)
    assert res.success, res.message
    t, angle = res.time, np.unwrap(res["joint/axle/rotation"])
    fit = np.polyfit(t[t > 0.2], angle[t > 0.2], 2)
    # α = (T - μ_d R m g) / J; 1e-3: the steady bristle deflection follows v within δ/v ≈ 1e-4 s
    assert 2.0 * fit[0] == pytest.approx(p["alpha"], rel=1e-3)
