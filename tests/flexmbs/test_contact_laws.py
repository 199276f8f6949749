"""The contact laws written once (flexmbs.model.contact_laws) against the closed forms of seed 003: the friction
coefficient of Fig. 3-4 / 4-3, the penalty force of eq. (4-1), the window of Fig. 5-1; and the element classes'
Python values are those laws."""
from __future__ import annotations

import numpy as np
import pytest

from flexmbs.model import contacts, sliding
from flexmbs.model.contact_laws import (friction_coefficients_many, penalty_force, sliding_friction_coefficient,
                                        steady_friction_coefficient, window, window_many)

MU_S, MU_D, V_S, V_D = 0.3, 0.18, 0.01, 0.025


def _fig_3_4(v):
    """Closed form of Fig. 3-4: μ_s (3s/2 - s³/2) up to v_s, μ_s + (μ_d - μ_s)(3u² - 2u³) up to v_d, μ_d above."""
    speed = abs(v)
    if speed <= V_S:
        s = speed / V_S
        mu = MU_S * (1.5 * s - 0.5 * s**3)
    elif speed < V_D:
        u = (speed - V_S) / (V_D - V_S)
        mu = MU_S + (MU_D - MU_S) * (3 * u**2 - 2 * u**3)
    else:
        mu = MU_D
    return np.sign(v) * mu


def test_friction_coefficient_curve_of_fig_3_4():
    assert sliding_friction_coefficient(0.0, MU_S, MU_D, V_S, V_D)[0] == 0.0
    assert sliding_friction_coefficient(V_S, MU_S, MU_D, V_S, V_D) == pytest.approx((MU_S, 0.0), abs=1e-15)
    assert sliding_friction_coefficient(-V_D, MU_S, MU_D, V_S, V_D) == pytest.approx((-MU_D, 0.0), abs=1e-15)
    assert sliding_friction_coefficient(0.0, MU_S, MU_D, V_S, V_D)[1] == pytest.approx(1.5 * MU_S / V_S)
    rng = np.random.default_rng(3)
    for v in rng.uniform(-3 * V_D, 3 * V_D, 300):
        mu, dmu = sliding_friction_coefficient(v, MU_S, MU_D, V_S, V_D)
        assert mu == pytest.approx(_fig_3_4(v), rel=1e-13, abs=1e-15)
        h = 1e-7
        assert dmu == pytest.approx((_fig_3_4(v + h) - _fig_3_4(v - h)) / (2 * h), rel=1e-5, abs=1e-6)
    v = rng.uniform(-3 * V_D, 3 * V_D, 50)
    mu, dmu = friction_coefficients_many(v, MU_S, MU_D, V_S, V_D)
    assert np.allclose(mu, [_fig_3_4(x) for x in v], rtol=1e-13, atol=1e-15)
    # the Python names are that law: joint friction's default v_d = 1.5 v_s, the sliding contact's arrays
    assert contacts.friction_coefficient(0.012, MU_S, MU_D, V_S) == sliding_friction_coefficient(
        0.012, MU_S, MU_D, V_S, 1.5 * V_S)[0]
    assert np.array_equal(sliding.friction_coefficients(v, MU_S, MU_D, V_S, V_D)[0], mu)


def test_steady_friction_coefficient_is_mu_s_then_the_step_to_mu_d():
    assert steady_friction_coefficient(0.0, MU_S, MU_D, V_S) == MU_S
    assert steady_friction_coefficient(-V_S, MU_S, MU_D, V_S) == MU_S
    assert steady_friction_coefficient(1.25 * V_S, MU_S, MU_D, V_S) == pytest.approx(0.5 * (MU_S + MU_D), rel=1e-14)
    assert steady_friction_coefficient(2.0 * V_S, MU_S, MU_D, V_S) == MU_D


def test_penalty_force_of_eq_4_1():
    """``k x^e + step(x, 0, 0, x_d, d) ẋ``, clipped at zero; nothing without penetration."""
    k, e, d, depth = 2.0e7, 1.5, 3.0e3, 1e-4
    rng = np.random.default_rng(5)
    for x, rate in zip(rng.uniform(-1e-4, 3e-4, 200), rng.uniform(-0.5, 0.5, 200)):
        u = min(max(x / depth, 0.0), 1.0)
        expected = max(0.0, k * x**e + d * (3 * u**2 - 2 * u**3) * rate) if x > 0 else 0.0
        assert penalty_force(x, rate, k, e, d, depth) == pytest.approx(expected, rel=1e-13, abs=1e-9)
        assert contacts.penalty_force(x, rate, k, e, d, depth) == penalty_force(x, rate, k, e, d, depth)
    assert penalty_force(1e-3, 5.0, k, e, d, 0.0) == pytest.approx(k * 1e-3**e + 5.0 * d)  # no ramp


def test_window_of_fig_5_1():
    d1, d3, d4, d2 = -0.3, -0.2, 0.25, 0.4
    assert window(0.0, d1, d3, d4, d2) == (1.0, 0.0)
    assert window(d1 - 0.1, d1, d3, d4, d2) == (0.0, 0.0)
    assert window(d2 + 0.1, d1, d3, d4, d2) == (0.0, 0.0)
    assert window(0.5 * (d1 + d3), d1, d3, d4, d2)[0] == pytest.approx(0.5, abs=1e-15)
    assert window(0.5 * (d4 + d2), d1, d3, d4, d2) == pytest.approx((0.5, -1.5 / (d2 - d4)), rel=1e-13)
    z = np.linspace(d1 - 0.05, d2 + 0.05, 101)
    w, dw = window_many(z, d1, d3, d4, d2)
    h = 1e-7
    numeric = (window_many(z + h, d1, d3, d4, d2)[0] - window_many(z - h, d1, d3, d4, d2)[0]) / (2 * h)
    assert np.allclose(dw, numeric, rtol=1e-5, atol=1e-5)
    assert np.array_equal(sliding.window(z, d1, d3, d4, d2), w)


def test_joint_coordinate_law_against_its_closed_form():
    """The one joint-coordinate law (flexmbs.model.kernels.joint_coordinate): the angle between two frames turned
    about a common z axis by α and β is β - α (rate ω_j,z - ω_i,z); the translation is the z-distance of the
    points, its rate the z-velocity difference plus the turning of z_i."""
    from flexmbs.model.kernels import joint_coordinate
    from flexmbs.model.rotations import rotation_about

    rng = np.random.default_rng(9)
    for _ in range(20):
        alpha, beta = rng.uniform(-1.5, 1.5, 2)
        tilt = rotation_about("x", rng.uniform(-1.0, 1.0))  # a common tilt of both frames
        R = np.array([tilt @ rotation_about("z", alpha), tilt @ rotation_about("z", beta)])
        X, V, W = rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
        angle, rate = joint_coordinate(0, 1, 0, X, R, V, W)
        z = R[0][:, 2]
        assert angle == pytest.approx(beta - alpha, abs=1e-13)
        assert rate == pytest.approx(z @ (W[1] - W[0]), rel=1e-13, abs=1e-15)
        value, rate = joint_coordinate(0, 1, 1, X, R, V, W)
        d = X[1] - X[0]
        assert value == pytest.approx(z @ d, rel=1e-13, abs=1e-15)
        assert rate == pytest.approx(z @ (V[1] - V[0]) + d @ np.cross(W[0], z), rel=1e-12, abs=1e-14)


def test_spring_force_law_linear_and_tabulated():
    """``k x + c ẋ + F_0``, and with a table the piecewise-linear force of the table (its end values held)."""
    from flexmbs.model.force_laws import spring_force

    none = np.zeros(0)
    assert spring_force(0.02, -0.3, 5e4, 200.0, 15.0, none, none) == pytest.approx(5e4 * 0.02 - 200.0 * 0.3 + 15.0)
    xs, ys = np.array([-0.1, 0.0, 0.05]), np.array([-800.0, 0.0, 1200.0])
    assert spring_force(0.02, 0.1, 0.0, 50.0, 0.0, xs, ys) == pytest.approx(1200.0 * 0.02 / 0.05 + 5.0)
    assert spring_force(0.5, 0.0, 0.0, 50.0, 3.0, xs, ys) == pytest.approx(1203.0)  # beyond the end: held
    assert spring_force(-0.5, 0.0, 0.0, 50.0, 0.0, xs, ys) == pytest.approx(-800.0)
