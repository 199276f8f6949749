"""Issue 48: the generic joint (free choice of locked axes), point-on-line / point-on-plane and the axis= helper,
against closed forms of small oscillations and of the constraint geometry."""
import math

import numpy as np
import pytest

import flexmbs as fm
from fem.errors import ModelError

G = 9.81


def hanging_body(kind, axis=(1.0, 0.0, 0.0), mass=1.5, d=0.4, inertia=(0.11, 0.07, 0.05), **options):
    """A body hanging by a point ``d`` above its centre of mass from a joint at the global origin."""
    model = fm.Model(kind, gravity=(0.0, -G, 0.0))
    body = model.add_rigid_body("body", mass=mass, inertia=inertia, position=(0.0, -d, 0.0))
    model.add_joint(kind, model.add_marker(model.ground, "support"), model.add_marker(body, "pivot",
                    position=(0.0, d, 0.0)), name="joint", axis=axis, **options)
    return model


def frequencies(model):
    lam = fm.linearize(model, at="static").eigenvalues()
    scale = np.abs(lam).max()
    return np.sort(lam.imag[lam.imag > 1e-6 * scale]), int(np.sum(np.abs(lam) < 1e-6 * scale))


def test_point_on_line_pendulum_has_both_closed_form_frequencies():
    """The pivot slides freely along a horizontal line (x). Swinging across the line (about x) is a pendulum about
    the pivot, ω² = m g d / (I_xx + m d²); swinging along it (about z) leaves the centre of mass in place (no
    horizontal force), ω² = m g d / I_zz; the slide along x and the spin about the vertical are free (4 zero
    eigenvalues). Closed forms, 1e-8 relative."""
    mass, d, (ixx, _, izz) = 1.5, 0.4, (0.11, 0.07, 0.05)
    found, zeros = frequencies(hanging_body("point-on-line"))
    expected = np.sort([math.sqrt(mass * G * d / (ixx + mass * d**2)), math.sqrt(mass * G * d / izz)])
    assert found == pytest.approx(expected, rel=1e-8)
    assert zeros == 4


def test_generic_joint_with_revolute_locks_equals_the_revolute_joint():
    """Generic(translations='xyz', rotations='xy') about the axis x is a hinge: one frequency
    ω² = m g d / (I_xx + m d²) (closed form), like the library revolute joint."""
    mass, d, ixx = 1.5, 0.4, 0.11
    expected = math.sqrt(mass * G * d / (ixx + mass * d**2))
    for model in (hanging_body("generic", translations="xyz", rotations="xy"), hanging_body("revolute")):
        found, _ = frequencies(model)
        assert found == pytest.approx([expected], rel=1e-8)


def test_point_on_plane_keeps_the_point_in_the_plane_and_the_axis_helper_orients_the_line():
    """A point-on-plane with normal y (axis helper) under gravity: the body drops onto the plane's reaction, the
    reaction equals its weight (m g, 1e-9) and the pivot stays at y = 0. The axis helper's markers have z along the
    axis given."""
    model = hanging_body("point-on-plane", axis=(0.0, 1.0, 0.0))
    joint = model.joint("joint")
    assert np.allclose(joint.marker_i.local_orientation[:, 2], [0.0, 1.0, 0.0])
    res = fm.static_equilibrium(model)
    assert np.linalg.norm(res["joint/joint/force"][0]) == pytest.approx(1.5 * G, rel=1e-9)
    assert res["marker/pivot/position"][0][1] == pytest.approx(0.0, abs=1e-10)


def test_generic_joint_input_errors_are_one_line():
    model = fm.Model("bad")
    body = model.add_rigid_body("b", mass=1.0, inertia=(1, 1, 1))
    mi, mj = model.add_marker(model.ground, "g"), model.add_marker(body, "b")
    for kwargs, text in (({"translations": "xw"}, "distinct axes"), ({"translations": "", "rotations": ""},
                                                                       "locks nothing")):
        with pytest.raises(ModelError, match=text) as error:
            model.add_joint("generic", mi, mj, **kwargs)
        assert "\n" not in str(error.value)
    with pytest.raises(ModelError, match="non-zero"):
        model.add_joint("revolute", mi, mj, axis=(0.0, 0.0, 0.0))
