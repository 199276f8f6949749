"""State elements (docs/element-protocol.md) integrated monolithically with the mechanics."""
import numpy as np
import pytest

import flexmbs as fm


class ActuatorLag:
    """First-order lag actuator: τ u̇ = F_cmd - u, pushing a marker along global x with force u."""

    state_names = ["u"]
    state_units = ["N"]
    output_units = {"command": "N"}

    def __init__(self, marker, command, tau, with_jacobians):
        self.name = "lag"
        self.measurements = [fm.MarkerCoordinate(marker, "x")]
        self.command, self.tau = command, tau
        if not with_jacobians:
            self.jacobians = None

    def initial_state(self):
        return np.zeros(1)

    def rates(self, t, z, y, ydot):
        return np.array([(self.command - z[0]) / self.tau])

    def forces(self, t, z, y, ydot):
        return np.array([z[0]])

    def jacobians(self, t, z, y, ydot):
        return {"rates_z": [[-1.0 / self.tau]], "forces_z": [[1.0]], "rates_y": [[0.0]], "forces_y": [[0.0]],
                "rates_ydot": [[0.0]], "forces_ydot": [[0.0]]}

    def outputs(self, t, z, y, ydot):
        return {"command": self.command}


def sliding_mass(mass):
    model = fm.Model("lag-driven mass")
    block = model.add_rigid_body("block", mass=mass, inertia=(0.1, 0.1, 0.1))
    guide = model.add_marker(model.ground, "guide", orientation=[[0, 0, 1], [0, 1, 0], [-1, 0, 0]])  # z_i = +x
    follower = model.add_marker(block, "follower", orientation=[[0, 0, 1], [0, 1, 0], [-1, 0, 0]])
    model.add_joint("prismatic", guide, follower, name="slide")
    return model, follower


@pytest.mark.parametrize("with_jacobians", [True, False])
def test_first_order_lag_drives_mass_like_the_analytic_solution(with_jacobians):
    mass, force, tau, t_end = 2.0, 10.0, 5e-3, 0.05
    model, follower = sliding_mass(mass)
    model.add_element(ActuatorLag(follower, force, tau, with_jacobians))
    res = fm.simulate(model, t_end, rtol=1e-6, atol=1e-9)
    assert res.success, res.message
    t = res.time
    u_exact = force * (1.0 - np.exp(-t / tau))
    x_exact = force / mass * (0.5 * t**2 - tau * t + tau**2 * (1.0 - np.exp(-t / tau)))
    np.testing.assert_allclose(res["element/lag/u"], u_exact, atol=1e-4 * force)
    np.testing.assert_allclose(res["element/lag/force/x(follower)"], res["element/lag/u"], rtol=1e-12)
    assert res.units["element/lag/force/x(follower)"] == "N" and res.units["element/lag/u"] == "N"
    np.testing.assert_allclose(res["body/block/position"][:, 0], x_exact, atol=1e-4 * x_exact[-1])
    assert res["element/lag/y/x(follower)"][-1] == pytest.approx(x_exact[-1], rel=1e-4)
    # the joint coordinate of the prismatic joint is the same displacement
    assert res["joint/slide/translation"][-1] == pytest.approx(x_exact[-1], rel=1e-4)


def test_stiff_lag_is_stable_with_steps_far_above_its_time_constant():
    # τ = 1 µs, steps forced to ~1 ms: an implicit, L-stable-enough method must not blow up
    mass, force, tau = 1.0, 3.0, 1e-6
    model, follower = sliding_mass(mass)
    model.add_element(ActuatorLag(follower, force, tau, True))
    res = fm.simulate(model, 0.2, rtol=1e-3, atol=1e-6, initial_step=1e-3)
    assert res.success, res.message
    t_end = res.time[-1]
    assert res["element/lag/u"][-1] == pytest.approx(force, rel=1e-6)
    assert res["body/block/position"][-1, 0] == pytest.approx(0.5 * force / mass * t_end**2, rel=1e-3)


def test_distance_and_joint_coordinate_measurements_have_consistent_gradients():
    # a spring written as a state-free element on a Distance measurement equals the built-in spring-damper
    k, c = 400.0, 3.0

    class SpringElement:
        name = "spring-element"
        state_names, state_units = [], []

        def __init__(self, a, b):
            self.measurements = [fm.Distance(a, b)]

        def initial_state(self):
            return np.zeros(0)

        def rates(self, t, z, y, ydot):
            return np.zeros(0)

        def forces(self, t, z, y, ydot):
            return np.array([-k * (y[0] - 0.5) - c * ydot[0]])

    runs = []
    for use_element in (True, False):
        model = fm.Model("spring", gravity=(0, -9.81, 0))
        body = model.add_rigid_body("bob", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.3, -0.5, 0.1),
                                    velocity=(0.2, 0.0, -0.3))
        top = model.add_marker(model.ground, "top")
        bob = model.add_marker(body, "bob")
        if use_element:
            model.add_element(SpringElement(top, bob))
        else:
            model.add_force(fm.SpringDamper(top, bob, stiffness=k, damping=c, free_length=0.5))
        runs.append(fm.simulate(model, 0.5, rtol=1e-7, atol=1e-10, output_interval=0.05))
    a, b = (r["body/bob/position"] for r in runs)
    np.testing.assert_allclose(a[-1], b[-1], atol=1e-7)


def test_measured_values_without_gradients_are_those_of_evaluate():
    # check_start asks values and rates only (Distance.value_rate): the same numbers as evaluate, bit for bit, and
    # the same error where the markers coincide
    from fem.errors import ModelError
    from flexmbs.engine.system import System, measure

    model = fm.Model("distance", gravity=(0, -9.81, 0))
    body = model.add_rigid_body("bob", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.3, -0.5, 0.1),
                                velocity=(0.2, 0.1, -0.3), angular_velocity=(0.4, -1.0, 2.0))
    top, bob = model.add_marker(model.ground, "top"), model.add_marker(body, "bob", position=(0.1, 0.2, -0.05))
    same = model.add_marker(body, "same", position=(0.1, 0.2, -0.05))
    system = System(model)
    q, v, _ = system.initial_state()
    measurements = [fm.Distance(top, bob), fm.MarkerCoordinate(bob, "y"), fm.Distance(bob, top)]
    y, ydot, grads = measure(system.context(q, v, 0.0), measurements)
    y0, ydot0, none = measure(system.context(q, v, 0.0), measurements, gradients=False)
    assert none is None and len(grads) == 3
    assert y.tobytes() == y0.tobytes() and ydot.tobytes() == ydot0.tobytes()
    with pytest.raises(ModelError, match="its two markers coincide"):
        fm.Distance(bob, same).value_rate(system.context(q, v, 0.0))


def test_joint_angle_measurement_is_continuous_over_several_turns():
    # a disc driven at 10 rad/s for 2 s (3.2 turns); an element integrates the measured angle: ∫ θ dt = 10 t²/2
    class AngleIntegrator:
        name = "integrator"
        state_names, state_units = ["angle_integral"], ["rad s"]

        def __init__(self, joint):
            self.measurements = [fm.JointCoordinate(joint)]

        def initial_state(self):
            return np.zeros(1)

        def rates(self, t, z, y, ydot):
            return np.array([y[0]])

        def forces(self, t, z, y, ydot):
            return np.zeros(1)

    model = fm.Model("spinning disc")
    disc = model.add_rigid_body("disc", mass=1.0, inertia=(0.01, 0.01, 0.02))
    shaft = model.add_joint("revolute", model.add_marker(model.ground, "base"), model.add_marker(disc, "hub"),
                            name="shaft")
    shaft.prescribe(velocity=10.0)
    model.add_element(AngleIntegrator(shaft))
    res = fm.simulate(model, 2.0, rtol=1e-7, atol=1e-9)
    assert res.success, res.message
    assert res["element/integrator/y/rotation(shaft)"][-1] == pytest.approx(20.0, rel=1e-9)
    assert res["element/integrator/angle_integral"][-1] == pytest.approx(10.0 * 2.0**2 / 2.0, rel=1e-6)
