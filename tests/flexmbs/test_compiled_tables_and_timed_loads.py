"""Tabulated springs and point forces of time on the compiled step (issue 26): each as a kernel and as a user's
Python element (called back) with the same answer, and each against an independent reference (a constant-stiffness spring, conservation of energy, the
analytic motion of a free body)."""
from __future__ import annotations

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.model.rotations import rotation_about
from integration_tolerance import TIGHTER, as_callbacks, assert_agree

G = 9.81
RUN = dict(rho_inf=0.5, rtol=1e-8, atol=1e-10)


def _on_python_times(slow, fast, key):
    """``fast[key]`` interpolated on the times of ``slow`` (one column per component)."""
    x = np.asarray(slow[key]).reshape(len(slow.time), -1)
    y = np.asarray(fast[key]).reshape(len(fast.time), -1)
    return x, np.stack([np.interp(slow.time, fast.time, y[:, i]) for i in range(y.shape[1])], 1)


def _both_engines(build, t_end, keys, tolerance):
    """Run ``build()`` with its force elements as a user's Python elements (their methods, called back:
    integration_tolerance.as_callbacks) and with their kernels; every signal in ``keys`` agrees within
    ``tolerance`` of its largest value. Returns the results of the kernels."""
    slow = fm.simulate(as_callbacks(build(), elements=False), t_end, **RUN)
    fast = fm.simulate(build(), t_end, **RUN)
    assert slow.statistics["engine"] == fast.statistics["engine"] == "compiled"
    for key in keys:
        x, y = _on_python_times(slow, fast, key)
        assert np.max(np.abs(y - x)) < tolerance * np.max(np.abs(x)), key
    return fast


def _hanging(stiffness):
    """A 2 kg weight on a vertical rail under a spring from a ground hook (free length 0.5 m), released at rest
    0.05 m below the spring's free length: it oscillates about its rest position."""
    model = fm.Model("hanging", gravity=(0.0, -G, 0.0))
    weight = model.add_rigid_body("weight", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(0.0, -0.55, 0.0))
    model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=rotation_about("x", -np.pi / 2)),
                    model.add_marker(weight, "slide", orientation=rotation_about("x", -np.pi / 2)), name="rail")
    model.add_force(fm.SpringDamper(model.add_marker(model.ground, "hook"), model.add_marker(weight, "eye"),
                                    stiffness=stiffness, damping=2.0, free_length=0.5, preload=1.0, name="spring"))
    return model


def test_tabulated_spring_damper_on_both_engines():
    """A progressive tabulated spring (beyond its last point too: the end value held) under a weight: the
    compiled step gives the Python path's motion and spring force (rtol 1e-8 runs: within 1e-6 of each signal's
    largest value)."""
    table = fm.Table([-0.02, 0.0, 0.01, 0.03], [-100.0, 0.0, 10.0, 60.0])  # the weight reaches 0.05 m: beyond
    fast = _both_engines(lambda: _hanging(table), 0.5, ("body/weight/position", "force/spring/force",
                                                         "force/spring/length", "joint/rail/force"), 1e-6)
    stretch = np.asarray(fast["force/spring/length"]) - 0.5
    assert stretch.max() > 0.03  # the run goes beyond the last point


def test_linear_table_spring_equals_the_constant_stiffness_spring():
    """A table on the line ``F = k δ`` (several pieces, its ends at ±1 m: a table holds its end values beyond them) is
    the linear spring: on the compiled step its run equals the constant-stiffness spring's (kind 0 of
    force_elements, an independent kernel) within the integration error of the rtol-1e-8 runs
    (integration_tolerance.assert_agree, against an rtol-1e-11 run: the two kernels round differently, and from the
    first step that rounds into another step size the runs differ by their integration errors)."""
    k = 4000.0
    xs = np.array([-1.0, -0.01, 0.0, 0.004, 0.02, 1.0])
    linear = fm.simulate(_hanging(k), 0.5, engine="compiled", **RUN)
    table = fm.simulate(_hanging(fm.Table(xs, k * xs)), 0.5, engine="compiled", **RUN)
    reference = fm.simulate(_hanging(k), 0.5, engine="compiled", **dict(RUN, rtol=RUN["rtol"] * TIGHTER,
                                                                         atol=RUN["atol"] * TIGHTER))
    assert linear.statistics["engine"] == table.statistics["engine"] == "compiled"
    assert_agree(linear, table, reference, ("body/weight/position", "force/spring/force", "force/spring/velocity"),
                 rtol=RUN["rtol"])


def _torsion_disc(table, spin):
    """A disc (polar inertia 0.02 kg m²) on a revolute shaft with a tabulated torsion spring, spun up to ``spin``
    rad/s at zero twist, no damping."""
    model = fm.Model("torsion")
    disc = model.add_rigid_body("disc", mass=1.0, inertia=(0.01, 0.01, 0.02), angular_velocity=(0, 0, spin))
    base, hub = model.add_marker(model.ground, "base"), model.add_marker(disc, "hub")
    model.add_joint("revolute", base, hub, name="shaft")
    model.add_force(fm.RotationalSpringDamper(base, hub, stiffness=table, name="torsion"))
    return model


def test_tabulated_torsion_spring_on_both_engines_conserves_energy():
    """A disc swinging on a progressive tabulated torsion spring past its points at ±0.3 rad (the last pieces continued
    to ±0.6 rad, where the table's held end values are never reached): the
    compiled step gives the Python path's angle, rate and torque within 1e-4 of each signal's largest value, and
    conserves the energy ``J θ̇²/2 + ∫₀^θ table dθ`` to 1e-4 of its value.

    Why 1e-4 and not the 1e-6 of the smooth models: at the table's kinks the Newton iterations of the two engines
    (their difference Jacobians differ) stop at different points within the Newton tolerance, and the difference
    grows over the swings. Measured (rtol 1e-8 runs over 0.3 s): the engines differ by 1.7e-5 of the largest angle,
    each is 6.2e-5 from a run at rtol 1e-11, the energy drifts by 1.4e-5; the same disc with a linear table agrees
    between the engines to 5e-10."""
    table = fm.Table([-0.6, -0.3, -0.1, 0.0, 0.1, 0.3, 0.6], [-69.0, -30.0, -4.0, 0.0, 4.0, 30.0, 69.0])
    fast = _both_engines(lambda: _torsion_disc(table, 25.0), 0.3, ("force/torsion/angle", "force/torsion/rate",
                                                                   "force/torsion/torque"), 1e-4)
    angle, rate = np.asarray(fast["force/torsion/angle"]), np.asarray(fast["force/torsion/rate"])
    assert np.abs(angle).max() > 0.3  # beyond the points at ±0.3 rad, both ways
    assert angle.min() < -0.3
    # Table.integral counts from the table's first point: the spring's energy is its integral from zero twist
    energy = 0.5 * 0.02 * rate**2 + np.array([table.integral(a) for a in angle]) - table.integral(0.0)
    assert energy[0] == pytest.approx(0.5 * 0.02 * 625.0, rel=1e-12)
    assert np.max(np.abs(energy - energy[0])) < 1e-4 * energy[0]


F0, TORQUE0, OMEGA, MASS, INERTIA_Z = 3.0, 0.2, 7.0, 2.0, 0.05
DIRECTION = np.array([1.0, 0.5, -0.3])


def _pushed_block():
    """A free 2 kg block without gravity: a global force ``F0 sin(ωt) d`` at its centre and a torque ``T0 sin(ωt)``
    about the marker's x axis, which is the block's (principal) z axis (local)."""
    model = fm.Model("pushed", gravity=(0.0, 0.0, 0.0))
    block = model.add_rigid_body("block", mass=MASS, inertia=(0.03, 0.04, INERTIA_Z), position=(0.1, 0.2, 0.3))
    centre = model.add_marker(block, "centre")
    turned = model.add_marker(block, "turned", orientation=rotation_about("y", -np.pi / 2))  # its x = global z
    model.add_force(fm.PointForce(centre, force=lambda t: F0 * np.sin(OMEGA * t) * DIRECTION, name="push"))
    model.add_force(fm.PointForce(turned, torque=lambda t: (TORQUE0 * np.sin(OMEGA * t), 0.0, 0.0), local=True,
                                  name="twist"))
    return model


def test_point_forces_of_time_on_both_engines_and_the_free_block_motion():
    """Point forces of time (global, and local in turned marker axes) on a free block: the compiled step gives the
    Python path's motion and load outputs (rtol 1e-8 runs: within 1e-6 of each signal's largest value), and the
    analytic motion of a free body, ``v = F0 d (1 - cos ωt)/(m ω)``, ``x = x0 + F0 d (t - sin(ωt)/ω)/(m ω)`` and
    ``ω_z = T0 (1 - cos ωt)/(J_z ω)``, within 1e-5 of the largest value (the integration error of the rtol 1e-8
    run: 1.8e-6 measured on the velocity); the load outputs are the functions themselves (1e-12 N, N m)."""
    fast = _both_engines(_pushed_block, 1.0, ("body/block/position", "body/block/velocity",
                                               "body/block/angular_velocity", "force/push/Fx", "force/push/Fz",
                                               "force/twist/Tz"), 1e-6)
    t = np.asarray(fast.time)
    velocity = np.outer(F0 * (1.0 - np.cos(OMEGA * t)) / (MASS * OMEGA), DIRECTION)
    position = np.array([0.1, 0.2, 0.3]) + np.outer(F0 * (t - np.sin(OMEGA * t) / OMEGA) / (MASS * OMEGA),
                                                    DIRECTION)
    spin = TORQUE0 * (1.0 - np.cos(OMEGA * t)) / (INERTIA_Z * OMEGA)
    for key, exact in (("body/block/velocity", velocity), ("body/block/position", position)):
        got = np.asarray(fast[key]).reshape(exact.shape)
        assert np.max(np.abs(got - exact)) < 1e-5 * np.max(np.abs(exact)), key
    omega = np.asarray(fast["body/block/angular_velocity"]).reshape(len(t), 3)
    assert np.max(np.abs(omega[:, 2] - spin)) < 1e-5 * spin.max()
    assert np.max(np.abs(omega[:, :2])) < 1e-9 * spin.max()
    np.testing.assert_allclose(fast["force/twist/Tz"], TORQUE0 * np.sin(OMEGA * t), rtol=0, atol=1e-12)
    np.testing.assert_allclose(fast["force/push/Fx"], F0 * np.sin(OMEGA * t), rtol=0, atol=1e-12)
