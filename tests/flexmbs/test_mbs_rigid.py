"""Rigid-body dynamics against analytic references: pendulum period, joint reactions, energy of a four-bar."""
import numpy as np
import pytest
from scipy.special import ellipk

import flexmbs as fm
from flexmbs.model.rotations import rotation_about
from mbs_helpers import zero_crossing_times

G = 9.81


def compound_pendulum(length=1.0, mass=2.0, angle=0.0, planar=False):
    """A slender rod pinned at one end to ground about global z; released at ``angle`` from horizontal."""
    model = fm.Model("pendulum", gravity=(0.0, -G, 0.0), planar=planar)
    rot = rotation_about("z", angle)
    rod = model.add_rigid_body("rod", mass=mass, inertia=(1e-4, mass * length**2 / 12, mass * length**2 / 12),
                               position=rot @ [0.5 * length, 0.0, 0.0], orientation=rot)
    pivot = model.add_marker(model.ground, "pivot")
    end = model.add_marker(rod, "end", position=(-0.5 * length, 0.0, 0.0))
    model.add_joint("revolute", pivot, end, name="pivot")
    return model


def test_pendulum_period_matches_elliptic_integral_for_90_degree_release():
    # compound pendulum: ω0² = m g l_c / I_O = g / (2 L / 3); period T = 4 K(sin²(θ0/2)) / ω0 (θ0 = 90°)
    length = 1.0
    res = fm.simulate(compound_pendulum(length), 2.2, rtol=1e-6, atol=1e-9)
    assert res.success, res.message
    omega0 = np.sqrt(G / (2.0 * length / 3.0))
    period = 4.0 * ellipk(np.sin(np.pi / 4.0) ** 2) / omega0
    w = res["body/rod/angular_velocity"][:, 2]
    turns = zero_crossing_times(res.time[1:], w[1:])  # ω = 0 at both turning points: T/2 and T
    assert turns.size >= 2
    assert abs(turns[1] - period) / period < 1e-4
    assert abs(2.0 * turns[0] - period) / period < 1e-4


def test_hanging_pendulum_reaction_equals_weight_statically_and_in_time():
    model = compound_pendulum(angle=-np.pi / 2)
    eq = fm.static_equilibrium(model)
    force = eq["joint/pivot/force"][0]
    np.testing.assert_allclose(force, [0.0, 2.0 * G, 0.0], atol=1e-9 * 2.0 * G)
    res = fm.simulate(model, 0.5)
    forces = res["joint/pivot/force"]
    np.testing.assert_allclose(forces[:, 1], 2.0 * G, rtol=1e-8)
    np.testing.assert_allclose(forces[:, [0, 2]], 0.0, atol=1e-8)


def test_swinging_pendulum_reaction_at_bottom_equals_analytic():
    # released from horizontal, at the bottom: ω² = 3 g / L, tension = m g + m ω² L/2 = 2.5 m g
    length, mass = 1.0, 2.0
    res = fm.simulate(compound_pendulum(length, mass), 1.0, rtol=1e-6, atol=1e-9)
    angle = np.unwrap(np.arctan2(res["body/rod/position"][:, 1], res["body/rod/position"][:, 0]))
    k = int(np.argmin(np.abs(angle + np.pi / 2)))
    assert abs(angle[k] + np.pi / 2) < 2e-2
    fy = np.interp(-np.pi / 2, angle[k - 2:k + 3][::-1], res["joint/pivot/force"][k - 2:k + 3, 1][::-1])
    assert fy == pytest.approx(2.5 * mass * G, rel=1e-3)


def four_bar(planar: bool):
    model = fm.Model("four-bar", gravity=(0.0, -G, 0.0), planar=planar)
    points = {"A": (0.0, 0.0, 0.0), "B": (0.0, 0.2, 0.0), "C": (0.45, 0.3, 0.0), "D": (0.4, 0.0, 0.0)}

    def bar(name, p0, p1, mass):
        p0, p1 = np.array(p0), np.array(p1)
        length = np.linalg.norm(p1 - p0)
        rot = rotation_about("z", np.arctan2(*(p1 - p0)[[1, 0]]))
        body = model.add_rigid_body(name, mass=mass, inertia=(1e-3, mass * length**2 / 12, mass * length**2 / 12),
                                    position=0.5 * (p0 + p1), orientation=rot)
        return (body, model.add_marker(body, f"{name}.0", position=(-length / 2, 0, 0)),
                model.add_marker(body, f"{name}.1", position=(length / 2, 0, 0)))

    crank, c0, c1 = bar("crank", points["A"], points["B"], 1.0)
    _, u0, u1 = bar("coupler", points["B"], points["C"], 1.5)
    _, r0, r1 = bar("rocker", points["D"], points["C"], 1.2)
    crank.initial_angular_velocity[:] = (0.0, 0.0, 5.0)
    ga = model.add_marker(model.ground, "A", position=points["A"])
    gd = model.add_marker(model.ground, "D", position=points["D"])
    model.add_joint("revolute", ga, c0, name="A")
    if planar:
        model.add_joint("revolute", c1, u0, name="B")
        model.add_joint("revolute", u1, r1, name="C")
    else:  # a 3D loop needs joints that remove fewer freedoms than four revolutes (Grübler)
        model.add_joint("spherical", c1, u0, name="B")
        half = np.linalg.norm(np.subtract(points["C"], points["D"])) / 2
        cross_axis = model.add_marker(model.body("rocker"), "rocker.u", position=(half, 0, 0),
                                      orientation=rotation_about("x", np.pi / 2))
        model.add_joint("universal", u1, cross_axis, name="C")
    model.add_joint("revolute", gd, r0, name="D")
    return model


@pytest.mark.parametrize("planar", [True, False])
def test_four_bar_conserves_energy_over_5_s(planar):
    res = fm.simulate(four_bar(planar), 5.0, rtol=5e-7, atol=5e-9, output_interval=0.01)
    assert res.success, res.message
    energy = res.energy()
    total = energy["total"]
    # seed 001 Fig. 11 check: total energy constant; relative to the largest kinetic energy of the motion
    assert np.ptp(total) / energy["kinetic"].max() < 1e-3
    assert res.statistics["max_constraint_violation"] < 1e-6


def test_approximate_placement_is_assembled_and_velocities_made_consistent():
    # the rod is placed 2 cm off its pivot and tilted 3° out of the joint axis, spinning at 2 rad/s about z
    model = fm.Model("sloppy placement")
    tilt = rotation_about("x", np.radians(3.0))
    rod = model.add_rigid_body("rod", mass=1.0, inertia=(1e-3, 1e-2, 1e-2), position=(0.52, 0.02, 0.0),
                               orientation=tilt, angular_velocity=(0.0, 0.0, 2.0))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                    model.add_marker(rod, "end", position=(-0.5, 0.0, 0.0)), name="pivot")
    res = fm.simulate(model, 1e-3)
    end = res["marker/end/position"][0]
    np.testing.assert_allclose(end, 0.0, atol=1e-12)  # the joint closes exactly
    centre = res["body/rod/position"][0]
    assert np.linalg.norm(centre) == pytest.approx(0.5, rel=1e-12)  # the rod keeps its length to the pivot
    w = res["body/rod/angular_velocity"][0]
    np.testing.assert_allclose(w[:2], 0.0, atol=1e-12)  # only rotation about the joint axis survives
    np.testing.assert_allclose(res["body/rod/velocity"][0], np.cross(w, centre), atol=1e-12)  # v = ω × r


def test_free_body_tumbling_about_its_intermediate_axis_conserves_momentum_and_energy():
    # Dzhanibekov flip: rotation about the intermediate principal axis is unstable, the body turns over again and
    # again, through every attitude (a singular one for any three-angle parametrization). Without forces the
    # angular momentum A J ω' (global) and the kinetic energy ½ ω'ᵀ J ω' are constant.
    from flexmbs.model.rotations import rotation_matrix

    inertia = np.diag([1.0, 2.0, 3.0])
    model = fm.Model("tumbling")
    model.add_rigid_body("block", mass=1.0, inertia=np.diag(inertia), angular_velocity=(0.01, 5.0, 0.01))
    res = fm.simulate(model, 6.0, rtol=1e-8, atol=1e-10, output_interval=0.01)
    assert res.success, res.message
    quats, omega = res["body/block/orientation"], res["body/block/angular_velocity"]
    momentum = np.array([rotation_matrix(p) @ inertia @ rotation_matrix(p).T @ w for p, w in zip(quats, omega)])
    energy = np.array([0.5 * w @ rotation_matrix(p) @ inertia @ rotation_matrix(p).T @ w for p, w in zip(quats, omega)])
    assert np.abs(momentum - momentum[0]).max() < 1e-5 * np.linalg.norm(momentum[0])
    assert np.abs(energy - energy[0]).max() < 1e-5 * energy[0]
    body_rate = np.array([rotation_matrix(p).T @ w for p, w in zip(quats, omega)])
    assert body_rate[:, 1].min() < -4.0  # it really flipped (ω' about the intermediate axis reverses)
