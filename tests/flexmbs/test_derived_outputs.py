"""Issue 48: marker velocities and accelerations, body accelerations, body-local quantities, Tait–Bryan angles and
output at a fixed interval, each against a closed form."""
import math

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.model.rotations import rotation_about
from flexmbs.results.derived import tait_bryan_xyz

OMEGA, RADIUS = 3.0, 0.5


def spinning_disc(t_end=1.0, **options):
    """A disc spinning freely at OMEGA about the global z axis (its principal axis), no gravity; a marker on its rim."""
    model = fm.Model("spin", gravity=(0.0, 0.0, 0.0))
    disc = model.add_rigid_body("disc", mass=2.0, inertia=(0.1, 0.1, 0.2), angular_velocity=(0.0, 0.0, OMEGA))
    model.add_marker(disc, "rim", position=(RADIUS, 0.0, 0.0))
    return fm.simulate(model, t_end, rtol=1e-9, atol=1e-11, **options)


def test_rim_marker_velocity_and_centripetal_acceleration_of_a_spinning_disc():
    """v = ω × r (|v| = ω R, tangential), a = −ω² r (centripetal); the disc's angular acceleration is zero, its
    body-local angular velocity (0, 0, ω), its Tait–Bryan φz = ω t (wrapped). Tolerances 1e-6 relative to the
    closed-form magnitudes (integration at rtol 1e-9)."""
    res = spinning_disc()
    t = res.time
    r = RADIUS * np.column_stack([np.cos(OMEGA * t), np.sin(OMEGA * t), np.zeros_like(t)])
    v = OMEGA * RADIUS * np.column_stack([-np.sin(OMEGA * t), np.cos(OMEGA * t), np.zeros_like(t)])
    assert np.abs(res["marker/rim/velocity"] - v).max() < 1e-6 * OMEGA * RADIUS
    assert np.abs(res["marker/rim/acceleration"] + OMEGA**2 * r).max() < 1e-6 * OMEGA**2 * RADIUS
    assert np.abs(res["body/disc/angular_acceleration"]).max() < 1e-6 * OMEGA**2
    assert np.abs(res["body/disc/local_angular_velocity"] - [0.0, 0.0, OMEGA]).max() < 1e-6 * OMEGA
    wrapped = (OMEGA * t + np.pi) % (2.0 * np.pi) - np.pi
    assert np.abs(res["body/disc/tait_bryan"][:, 2] - wrapped).max() < 1e-6
    assert res.units["marker/rim/acceleration"] == "m/s^2"


def test_pendulum_accelerations_follow_the_closed_form_along_the_swing():
    """A compound pendulum released from the horizontal: at angle θ below the horizontal the angular acceleration is
    α = (m g d / I_p) cos θ and (energy) ω² = 2 m g d sin θ / I_p; the centre of mass accelerates with
    α × r + ω × (ω × r), r = d (cos θ, −sin θ, 0). Tolerance 1e-6 g (integration at rtol 1e-9)."""
    mass, d, i_c, g = 1.2, 0.3, 0.02, 9.81
    i_p = i_c + mass * d**2
    model = fm.Model("pendulum", gravity=(0.0, -g, 0.0))
    link = model.add_rigid_body("link", mass=mass, inertia=(0.01, i_c, i_c), position=(d, 0.0, 0.0))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                    model.add_marker(link, "top", position=(-d, 0.0, 0.0)), name="hinge")
    res = fm.simulate(model, 0.3, rtol=1e-9, atol=1e-11)
    theta = -res["joint/hinge/rotation"]  # the hinge angle about +z; falling turns it negative
    alpha = mass * g * d / i_p * np.cos(theta)
    omega2 = 2.0 * mass * g * d * np.sin(theta) / i_p
    r = d * np.column_stack([np.cos(theta), -np.sin(theta), np.zeros_like(theta)])
    tangential = alpha[:, None] * np.column_stack([-np.sin(theta), -np.cos(theta), np.zeros_like(theta)]) * d
    expected = tangential - omega2[:, None] * r
    assert np.abs(res["body/link/acceleration"] - expected).max() < 1e-6 * g
    assert np.abs(res["body/link/angular_acceleration"][:, 2] + alpha).max() < 1e-6 * g / d
    # the body-local acceleration is the same vector in the link's axes (x along the link)
    local = res["body/link/local_acceleration"]
    assert np.abs(local[:, 0] + omega2 * d).max() < 1e-6 * g  # centripetal, towards the pivot (−x body)


def test_tait_bryan_angles_of_a_given_orientation_and_fixed_interval_output():
    """A resting body turned by R_x(0.3) R_y(−0.2) R_z(0.5) reports exactly those angles; the spinning disc resampled
    every 10 ms puts its rim marker at R (cos ωt, sin ωt) (1e-6 R: cubic interpolation at integration accuracy)."""
    turn = rotation_about("x", 0.3) @ rotation_about("y", -0.2) @ rotation_about("z", 0.5)
    assert tait_bryan_xyz(turn) == pytest.approx([0.3, -0.2, 0.5], abs=1e-14)
    model = fm.Model("rest", gravity=(0.0, 0.0, 0.0))
    model.add_rigid_body("block", mass=1.0, inertia=(0.1, 0.1, 0.1), orientation=turn)
    res = fm.simulate(model, 0.01)
    assert res["body/block/tait_bryan"] == pytest.approx(np.tile([0.3, -0.2, 0.5], (res.time.size, 1)), abs=1e-12)
    fixed = spinning_disc(t_end=0.5).resample(0.01)
    assert np.diff(fixed.time) == pytest.approx(np.full(50, 0.01), abs=1e-12)
    t = fixed.time
    expected = RADIUS * np.column_stack([np.cos(OMEGA * t), np.sin(OMEGA * t), np.zeros_like(t)])
    assert np.abs(fixed["marker/rim/position"] - expected).max() < 1e-6 * RADIUS


def test_derived_signal_errors_are_one_line():
    res = spinning_disc(t_end=0.05)
    with pytest.raises(fm.FlexmbsError, match="no marker 'tip'") as error:
        res["marker/tip/acceleration"]
    assert "\n" not in str(error.value)
    with pytest.raises(fm.FlexmbsError, match="positive interval"):
        res.resample(0.0)
