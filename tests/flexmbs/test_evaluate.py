"""The compiled residual called from Python (flexmbs.engine.evaluate): the consistent start, static equilibrium and
linearize on it, against closed forms; its Jacobian blocks against differences of the residual."""
import math

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.evaluate import Evaluator
from flexmbs.engine.initial import assemble_positions, initial_accelerations
from flexmbs.engine.system import System

AXIS_Y = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # marker frame with z along global y
G = 9.81


def hanging_weight(mass=3.0, stiffness=2e4, damping=40.0, free_length=0.5):
    """A weight on a vertical prismatic guide, hung from a spring-damper under gravity (−y)."""
    model = fm.Model("hanging weight", gravity=(0.0, -G, 0.0))
    weight = model.add_rigid_body("weight", mass=mass, inertia=(0.01, 0.01, 0.01), position=(0.0, -free_length, 0.0))
    hook = model.add_marker(model.ground, "hook", orientation=AXIS_Y)
    eye = model.add_marker(weight, "eye", orientation=AXIS_Y)
    model.add_joint("prismatic", hook, eye, name="guide")
    model.add_force(fm.SpringDamper(hook, eye, stiffness=stiffness, damping=damping, free_length=free_length,
                                    name="spring"))
    return model


def pendulum(mass=2.0, length=0.8, damping=0.0):
    """A point-like mass (small inertia about its centre) on a massless-looking rod: a revolute about z at the
    origin, the mass hanging at −y."""
    model = fm.Model("pendulum", gravity=(0.0, -G, 0.0))
    bob = model.add_rigid_body("bob", mass=mass, inertia=(1e-6, 1e-6, 1e-6), position=(0.0, -length, 0.0))
    pivot = model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                            model.add_marker(bob, "rod", position=(0.0, length, 0.0)), name="pivot")
    if damping:
        model.add_force(fm.RotationalSpringDamper(pivot.marker_i, pivot.marker_j, stiffness=0.0, damping=damping,
                                                  name="damper"))
    return model


def test_the_plan_compiles_these_models():
    """The library's models take the compiled residual (else these tests would test the Python one)."""
    for model in (hanging_weight(), pendulum()):
        system = System(model)
        q0, v0, z0 = system.initial_state()
        assert Evaluator(system, assemble_positions(system, q0), v0, z0).compiled


def test_static_equilibrium_of_a_spring_under_gravity_is_the_closed_form():
    """The spring stretches by m g / k (closed form) to 1e-9 relative; its reaction-free guide carries nothing along
    y."""
    mass, stiffness, free_length = 3.0, 2e4, 0.5
    res = fm.static_equilibrium(hanging_weight(mass, stiffness, free_length=free_length))
    y = res.final_state.q[1]
    assert -y - free_length == pytest.approx(mass * G / stiffness, rel=1e-9)


def test_spring_mass_eigenvalues_are_the_analytic_ones():
    """λ = −c/2m ± i √(k/m − (c/2m)²) of the damped oscillator about the static equilibrium (1e-7 relative: the
    central differences of linearize)."""
    mass, stiffness, damping = 3.0, 2e4, 40.0
    lin = fm.linearize(hanging_weight(mass, stiffness, damping), at="static")
    lam = lin.eigenvalues()
    sigma = damping / (2.0 * mass)
    expected = complex(-sigma, math.sqrt(stiffness / mass - sigma**2))
    assert lam.size == 2
    top = lam[np.argmax(lam.imag)]
    assert abs(top - expected) / abs(expected) < 1e-7


def test_pendulum_eigenvalues_are_sqrt_g_over_l():
    """A point mass on a rod of length L: ±i √(g/L) (the bob's 1e-6 kg m² inertia shifts it by 1e-6/(m L²) ≈ 8e-7
    relative; tolerance 2e-6)."""
    mass, length = 2.0, 0.8
    lin = fm.linearize(pendulum(mass, length), at="static", coordinates=["joint/pivot/rotation"])
    omega = math.sqrt(G / length) / math.sqrt(1.0 + 1e-6 / (mass * length**2))
    lam = lin.eigenvalues()
    assert np.abs(lam.real).max() < 1e-8 * omega
    assert np.abs(lam.imag).max() == pytest.approx(omega, rel=1e-9)
    assert np.abs(lam.imag).max() == pytest.approx(math.sqrt(G / length), rel=2e-6)


def test_consistent_accelerations_of_a_swinging_pendulum_are_the_closed_form():
    """At angle θ with rate θ̇ the bob's tangential acceleration is −g sin θ and the rod force m (g cos θ + L θ̇²)
    (closed form; 1e-8 relative, the centripetal part 1e-7: γ is a second difference), from the compiled residual."""
    mass, length, theta, rate = 2.0, 0.8, 0.6, 1.7
    model = pendulum(mass, length)
    system = System(model)
    q, v, z = system.initial_state()
    o = system.bodies[0].offset
    c, s = math.cos(theta), math.sin(theta)
    q[o:o + 3] = (length * s, -length * c, 0.0)
    q[o + 3:o + 7] = (math.cos(theta / 2), 0.0, 0.0, math.sin(theta / 2))
    # q̇ of a rotation about z at θ̇: ṗ = ½ θ̇ (−sin θ/2, 0, 0, cos θ/2); ẋ = θ̇ L (cos θ, sin θ)
    v[o:o + 3] = (rate * length * c, rate * length * s, 0.0)
    v[o + 3:o + 7] = 0.5 * rate * np.array([-math.sin(theta / 2), 0.0, 0.0, math.cos(theta / 2)])
    qdd, lam, _ = initial_accelerations(system, q, v, z)
    assert system._evaluator.compiled
    tangential = qdd[o:o + 2] @ np.array([c, s])
    radial = qdd[o:o + 2] @ np.array([-s, c])  # towards the pivot
    inertia = 1e-6 / (mass * length**2)
    assert tangential == pytest.approx(-G * s / (1.0 + inertia), rel=1e-8)
    assert radial == pytest.approx(length * rate**2, rel=1e-7)  # γ by a second difference of Φ (s|q̇| = 1e-4)
    res, _, _, _, _ = system._evaluator.residual(0.0, q, v, qdd, z, lam)
    assert np.abs(res).max() < 1e-10 * mass * G  # the equations of motion hold at (q̈, λ)


@pytest.mark.parametrize("model", [hanging_weight, lambda: pendulum(damping=0.3)])
def test_compiled_jacobian_blocks_are_differences_of_the_compiled_residual(model):
    """K = ∂R/∂q and C = ∂R/∂q̇ of the run's Newton matrix (forward differences, step 1e-7) against central
    differences of the same residual (step 1e-5) at a moving, off-equilibrium state: agreement to 1e-5 of the
    block's size (the forward difference's truncation)."""
    system = System(model())
    q0, v, z = system.initial_state()
    q = assemble_positions(system, q0)
    rng = np.random.default_rng(7)
    ev = Evaluator(system, q, v, z)
    jac = ev.constraints(q)[1]
    null = np.linalg.svd(jac)[2][jac.shape[0]:].T  # velocities along the free motion
    v = null @ rng.normal(size=null.shape[1])
    qdd = rng.normal(size=q.size)
    lam = rng.normal(size=system.n_c) * 10.0
    blocks = ev.blocks(0.0, q, v, qdd, z, lam)
    for name, x, constraints in (("K", q, True), ("C", v, False)):
        cols = []
        for j in range(x.size):
            h = 1e-5 * max(1.0, abs(x[j]))
            xp, xm = x.copy(), x.copy()
            xp[j] += h
            xm[j] -= h
            args = (lambda y: (y, v)) if name == "K" else (lambda y: (q, y))
            rp = ev.residual(0.0, *args(xp), qdd, z, lam, constraints)[0]
            rm = ev.residual(0.0, *args(xm), qdd, z, lam, constraints)[0]
            cols.append((rp - rm) / (2.0 * h))
        reference = np.column_stack(cols)
        assert np.abs(reference).max() > 0.0
        assert np.abs(blocks[name] - reference).max() <= 1e-5 * np.abs(reference).max()
