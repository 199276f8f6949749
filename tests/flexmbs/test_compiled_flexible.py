"""Flexible bodies and joint friction on the compiled step (issue 26): the same equations as the Python path.

The Python path's physics is validated elsewhere (the slider crank against seed 003 in tests/cases, geometric
stiffening against the co-rotational spin-up beam in tests/flexmbs/test_spin_up_beam.py, joint friction against the
analytic wheel in tests/flexmbs/test_mbs_friction_contact.py); here both engines run the same model and must agree
to well inside the integration tolerance (rtol 1e-6 … 1e-7 below).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import flexmbs as fm
from integration_tolerance import TIGHTER, as_callbacks, assert_agree

G = 9.81


def _interp(res, ref, key):
    """``res[key]`` at the sample times of ``ref`` (rows: samples, columns: components)."""
    y = np.asarray(res[key]).reshape(len(res.time), -1)
    return np.stack([np.interp(ref.time, res.time, y[:, i]) for i in range(y.shape[1])], 1)


def _both(build, t_end, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # plausibility notes (no geometric stiffness) are not this test's subject
        # its force and state elements as a user's Python elements (called back), then with their kernels
        return [fm.simulate(as_callbacks(build()), t_end, **kwargs), fm.simulate(build(), t_end, **kwargs)]


def test_flexible_slider_crank_is_the_same_on_both_engines():
    """The torque-driven flexible slider crank (seed 003's link, 9 elastic coordinates): link mid-span position,
    modal coordinates and crank-pin force within the integration error of the rtol-1e-6 runs
    (integration_tolerance.assert_agree, against a compiled rtol-1e-9 run)."""
    from cases.slider_crank.model import build_model, link_flexbody, parameters

    p = parameters({"drive": "torque"})
    body = link_flexbody(p)
    slow, fast = _both(lambda: build_model(p, body), 0.1, rtol=1e-6, atol=1e-8, output_interval=1e-3)
    assert fast.statistics["engine"] == "compiled"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = fm.simulate(build_model(p, body), 0.1, rtol=1e-6 * TIGHTER, atol=1e-8 * TIGHTER,
                                output_interval=1e-3, engine="compiled")
    assert_agree(slow, fast, reference, ("marker/link.mid/position", "body/link/modal_coordinates",
                                         "joint/crank_pin/force"), rtol=1e-6)


def test_spinning_beam_with_geometric_stiffness_is_the_same_on_both_engines():
    """A 10 m beam with its modal geometric stiffness (issue 28) spun up by a hub torque of 20 N m for 3 s (the
    centrifugal stiffening and the frame-acceleration coupling both act): hub angle within 1e-7 rad and tip
    deflection within 1e-6 of its peak."""
    from cases.spin_up_beam import build_body, parameters

    p = parameters({"n_elements": 10, "fixed_interface_modes": 4})
    body = build_body(p)

    def build():
        model = fm.Model("spin")
        beam = model.add_flexible_body("beam", body)
        hub = model.add_joint("revolute", model.add_marker(model.ground, "hub"),
                              model.add_marker(beam, "root", node="root"), name="hub")
        model.add_force(fm.JointActuator(hub, 20.0, name="torque"))
        model.add_marker(beam, "tip", node="tip")
        return model

    slow, fast = _both(build, 3.0, rtol=1e-7, atol=1e-9, output_interval=0.01)
    assert fast.statistics["engine"] == "compiled"
    assert body.geometric_stiffness is not None
    angle = slow["joint/hub/rotation"]
    assert np.max(np.abs(_interp(fast, slow, "joint/hub/rotation")[:, 0] - angle)) < 1e-7 * max(1.0, angle.max())
    q_slow = slow["body/beam/modal_coordinates"]
    assert np.max(np.abs(_interp(fast, slow, "body/beam/modal_coordinates") - q_slow)) < 1e-6 * np.abs(q_slow).max()


@pytest.mark.parametrize("torque", [0.5, 2.0])
def test_joint_friction_from_the_reactions_on_the_compiled_step(torque):
    """A 4 kg wheel on a rubbing axle (μ_s 0.8, μ_d 0.6, pin radius 20 mm; breakaway 0.628 N m): held by 0.5 N m,
    turned by 2 N m with α = (T - μ_d R m g)/J (analytic, 1e-3), and the same steps and motion as the Python path."""
    mass, radius, inertia, mu_s, mu_d = 4.0, 0.02, 0.05, 0.8, 0.6

    def build():
        model = fm.Model("wheel", gravity=(0.0, -G, 0.0))
        wheel = model.add_rigid_body("wheel", mass=mass, inertia=(0.03, 0.03, inertia))
        axle = model.add_joint("revolute", model.add_marker(model.ground, "axle"), model.add_marker(wheel, "hub"),
                               name="axle")
        model.add_force(fm.JointFriction(axle, mu_s, mu_d, stiction_velocity=1e-4, pin_radius=radius))
        model.add_force(fm.JointActuator(axle, torque, name="motor"))
        return model

    slow, fast = _both(build, 1.0, rtol=1e-6, atol=1e-9)
    assert fast.statistics["engine"] == "compiled"
    angle = fast["joint/axle/rotation"]
    if torque < mu_s * radius * mass * G:
        assert abs(angle[-1]) < 1e-4 / radius
    else:
        t = fast.time
        fit = np.polyfit(t[t > 0.2], np.unwrap(angle[t > 0.2]), 2)
        assert 2.0 * fit[0] == pytest.approx((torque - mu_d * radius * mass * G) / inertia, rel=1e-3)
    turned = np.interp(slow.time, fast.time, np.unwrap(fast["joint/axle/rotation"]))
    assert np.max(np.abs(turned - np.unwrap(slow["joint/axle/rotation"]))) < 1e-5
    friction = slow["force/friction(axle)/friction"]
    assert np.max(np.abs(_interp(fast, slow, "force/friction(axle)/friction")[:, 0] - friction)) < 1e-6


def test_prescribed_crank_speed_is_the_same_on_both_engines():
    """The slider crank driven at 1200 rpm (a prescribed motion: a rheonomic constraint row) with the flexible link:
    link mid-span position within 1e-6 of its range, the driving torque (the prescribed row's multiplier in the
    bearing's reaction) within 1e-4 of its peak."""
    from cases.slider_crank.model import build_model, link_flexbody, parameters

    p = parameters({})
    assert p["drive"] == "speed"
    body = link_flexbody(p)
    slow, fast = _both(lambda: build_model(p, body), 0.05, rtol=1e-7, atol=1e-9, output_interval=1e-3)
    assert fast.statistics["engine"] == "compiled"
    for key, tol in (("marker/link.mid/position", 1e-6), ("joint/bearing/torque", 1e-4)):
        ref = np.asarray(slow[key]).reshape(len(slow.time), -1)
        assert np.max(np.abs(_interp(fast, slow, key) - ref)) < tol * np.max(np.abs(ref)), key
