"""Conservative force elements: the generalized forces of each element's compiled law (the kernel the engine
runs, evaluated through ``check_force_kernel``) against central differences of the element's potential energy, at
random states of two free blocks and zero velocity (issue 41, item 5: one implementation, checked against the
energy, not against a second implementation)."""
import numpy as np
import pytest

import flexmbs as fm
from fem.errors import ModelError
from flexmbs.engine.force_specs import check_force_kernel
from flexmbs.engine.system import System

H = 1e-6  # m and rad: central-difference step


def _blocks():
    model = fm.Model("two blocks", gravity=(0.0, 0.0, 0.0))
    a = model.add_rigid_body("a", 2.0, (0.1, 0.2, 0.3), position=(0.3, -0.2, 0.5))
    b = model.add_rigid_body("b", 5.0, (0.4, 0.3, 0.2), position=(0.1, 0.1, 0.0))
    return model, a, b


def _direction(system, q, rng, rotations: str):
    """A random coordinate direction: translations, and rotations in body axes (``"all"``, ``"z"`` or ``"none"``)
    mapped to Euler-parameter rates ``ė = Gᵀ ω / 2`` (tangent to the unit sphere)."""
    ctx = system.context(q, np.zeros_like(q), 0.0)
    d = np.zeros_like(q)
    for body in system.bodies:
        o = body.offset
        d[o:o + 3] = rng.normal(size=3)
        omega = rng.normal(size=3)
        if rotations == "z":
            omega[:2] = 0.0
        elif rotations == "none":
            omega[:] = 0.0
        d[o + 3:o + 7] = 0.5 * ctx.kin[body.index].G.T @ omega
    return d


def _check(model, force, rotations="all", states=8, rel=1e-6, spread=0.02):
    system = System(model)
    q0, _, _ = system.initial_state()
    rng = np.random.default_rng(3)
    for _ in range(states):
        q = q0.copy()
        for body in system.bodies:
            o = body.offset
            q[o:o + 3] += rng.normal(0.0, spread, 3)
            if rotations != "none":
                q[o + 3:o + 7] += rng.normal(0.0, 0.05, 4) * (np.array([0, 0, 0, 1.0]) if rotations == "z" else 1.0)
                q[o + 3:o + 7] /= np.linalg.norm(q[o + 3:o + 7])
        v = np.zeros_like(q)
        packed = check_force_kernel(system, force, q, v, 0.0)["loads"][0]
        ctx = system.context(q, v, 0.0)
        d = _direction(system, q, rng, rotations)
        work = 0.0
        for body in system.bodies:  # Q̄ · (ṙ, ω): the virtual work of the quasi-coordinate loads
            o, kin = body.offset, ctx.kin[body.index]
            work += packed[body.index, 0:3] @ d[o:o + 3] + packed[body.index, 3:6] @ (2.0 * kin.G @ d[o + 3:o + 7])

        def energy(x):
            return force.potential_energy(system.context(x, v, 0.0))

        slope = (energy(q + H * d) - energy(q - H * d)) / (2 * H)
        assert work == pytest.approx(-slope, rel=rel, abs=1e-9 * max(abs(work), 1.0))


@pytest.mark.parametrize("tabulated", [False, True])
def test_spring_forces_are_the_gradient_of_the_spring_energy(tabulated):
    model, a, b = _blocks()
    stiffness = fm.Table([-1.0, -0.05, 0.0, 0.04, 1.0], [-3e4, -900.0, 0.0, 1500.0, 5e4]) if tabulated else 2.5e4
    spring = model.add_force(fm.SpringDamper(model.add_marker(a, "i", position=(0.05, 0.02, -0.1)),
                                             model.add_marker(b, "j", position=(-0.1, 0.03, 0.2)), stiffness,
                                             damping=40.0, free_length=0.55, preload=120.0))
    _check(model, spring)


def test_rotational_spring_torque_is_the_gradient_of_its_energy_about_its_axis():
    model, a, b = _blocks()
    table = fm.Table([-2.0, -0.1, 0.0, 0.2, 2.0], [-900.0, -30.0, 0.0, 50.0, 700.0])
    spring = model.add_force(fm.RotationalSpringDamper(model.add_marker(a, "i"), model.add_marker(b, "j"), table,
                                                       damping=3.0, free_angle=0.1))
    _check(model, spring, rotations="z")


def test_bushing_force_is_the_gradient_of_its_energy_in_translation():
    model, a, b = _blocks()
    bushing = model.add_force(fm.Bushing(model.add_marker(a, "i", position=(0.1, 0.0, 0.0)),
                                         model.add_marker(b, "j", position=(0.2, -0.3, 0.5)), (1e5, 2e5, 3e5),
                                         (1e3, 2e3, 3e3)))
    _check(model, bushing, rotations="none")


def test_plane_contact_force_is_the_gradient_of_its_penalty_energy():
    model, a, b = _blocks()
    # the tip 2 mm below the face of block b: penetrating at the perturbed states (0.2 mm spread)
    tip = model.add_marker(a, "tip", position=(-0.2, 0.3, -0.502))
    face = model.add_marker(b, "face")
    contact = model.add_force(fm.PlaneContact(tip, face, stiffness=1e8, exponent=1.4, damping=1e3,
                                              static=0.3, dynamic=0.2))
    system = System(model)
    assert contact.potential_energy(system.context(*system.initial_state()[:2], 0.0)) > 0.0
    _check(model, contact, rotations="none", rel=1e-5, spread=2e-4)


def test_hard_stop_load_is_the_gradient_of_its_penalty_energy():
    model, a, b = _blocks()
    rail = model.add_joint("prismatic", model.add_marker(b, "rail"), model.add_marker(a, "slider"))
    stop = model.add_force(fm.HardStop(rail, lower=-1.0, upper=-0.8, stiffness=1e6, exponent=1.5, damping=500.0))
    system = System(model)
    assert stop.potential_energy(system.context(*system.initial_state()[:2], 0.0)) > 0.0
    _check(model, stop, rotations="none", rel=1e-5)


def test_a_spring_or_distance_between_coinciding_markers_says_what_to_change():
    """Bad input: a spring-damper (evaluated in Python, as a callback or for its outputs) and a distance whose two
    markers coincide have no direction; one line names the element and asks to place the markers apart."""
    model, a, b = _blocks()
    i = model.add_marker(a, "i")
    j = model.add_marker(b, "j", position=(0.2, -0.3, 0.5))  # the centre of block a
    spring = model.add_force(fm.SpringDamper(i, j, 1e3, free_length=0.1, name="coil"))
    system = System(model)
    ctx = system.context(*system.initial_state()[:2], 0.0)
    with pytest.raises(ModelError, match=r"spring 'coil': its two markers coincide .*place them apart"):
        spring.outputs(ctx)
    with pytest.raises(ModelError, match=r"measurement distance\(i,j\): its two markers coincide"):
        fm.Distance(i, j).evaluate(ctx)
