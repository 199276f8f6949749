"""Issue 48, defects 3 and 4: an atol below round-off is one clear line; a corrected start is reported.

* An ``atol`` whose error scale lies below the round-off of double precision in an unknown ended in "Newton
  iteration failed (diverging) … largest residual 1.11e-16": the residual was machine epsilon, not divergence.
* An inconsistent start (a slider off its rail, a crank spinning about a tilted axis) was projected onto the joints
  silently (``res.warnings == []``); Exudyn users expect the start they gave, so the correction is said.
"""
import math

import numpy as np
import pytest

import flexmbs as fm
from fem.errors import SimulationError
from flexmbs.engine.integrator import GeneralizedAlpha
from flexmbs.engine.preflight import check_tolerances_resolvable
from flexmbs.engine.system import System


def pendulum():
    model = fm.Model("pendulum", gravity=(0.0, -9.81, 0.0))
    link = model.add_rigid_body("link", mass=1.0, inertia=(1e-3, 0.1, 0.1), position=(0.5, 0.0, 0.0))
    model.add_joint("revolute", model.add_marker(model.ground, "p"),
                    model.add_marker(link, "p1", position=(-0.5, 0.0, 0.0)), name="hinge")
    return model


def test_an_atol_below_round_off_is_one_line_naming_the_unknown_and_a_usable_atol():
    """Reference: double precision resolves ε|x| = 2.2e-16 in an Euler parameter (|p| = 1); atol 1e-16 asks for
    less. The suggested atol passes the same check."""
    with pytest.raises(SimulationError, match="round-off") as error:
        fm.simulate(pendulum(), 0.01, rtol=1e-12, atol=1e-16)
    message = str(error.value)
    assert "\n" not in message and "diverging" not in message and "body 'link'" in message
    suggested = float(message.split("use atol >= ")[1].split()[0])
    assert 1e-15 <= suggested <= 1e-13
    system = System(pendulum())
    q, _, z = system.initial_state()
    check_tolerances_resolvable(system, GeneralizedAlpha(system, rtol=1e-12, atol=suggested), q, z)  # no error


def slider_and_crank(slider_offset=0.0, slider_sideways=0.0, crank_tilt=0.0):
    """A slider on a rail along z (the prismatic axis) and a crank on a hinge about z, independent; the start is
    consistent unless the slider is placed ``slider_offset`` m off the rail (y), moves ``slider_sideways`` m/s
    across it, or the crank spins at 6 rad/s about an axis tilted by ``crank_tilt`` rad from z (in the y–z
    plane)."""
    model = fm.Model("start", gravity=(0.0, 0.0, 0.0))
    slider = model.add_rigid_body("slider", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(0.0, slider_offset, 0.3),
                                  velocity=(0.0, slider_sideways, 1.5))
    model.add_joint("prismatic", model.add_marker(model.ground, "rail"), model.add_marker(slider, "s"), name="rail")
    omega = 6.0 * np.array([0.0, math.sin(crank_tilt), math.cos(crank_tilt)])  # the hinge axis is z
    crank = model.add_rigid_body("crank", mass=1.0, inertia=(0.02, 0.02, 0.02), position=(0.0, 1.0, 0.0),
                                 angular_velocity=omega)
    model.add_joint("revolute", model.add_marker(model.ground, "bearing", position=(0.0, 1.0, 0.0)),
                    model.add_marker(crank, "hub"), name="crank")
    return model


def test_a_consistent_start_says_nothing():
    res = fm.simulate(slider_and_crank(), 0.01)
    assert res.success and res.warnings == []


def test_a_corrected_start_is_reported_with_bodies_and_sizes():
    """Closed form of the projection: the rail holds y = 0 and v_y = 0, so the slider moves back 2.4 mm and keeps
    1.5 m/s along the rail; the hinge keeps only the z spin, so the crank's angular velocity drops from 6 rad/s to
    6 cos(0.2) = 5.880 rad/s. The warning names both bodies with these numbers (to the 3-4 digits printed)."""
    with pytest.warns(fm.engine.solver.SolverFallbackWarning, match="corrected onto them"):
        res = fm.simulate(slider_and_crank(slider_offset=0.0024, slider_sideways=0.2, crank_tilt=0.2), 0.01)
    assert res.success
    note = next(w for w in res.warnings if "corrected onto them" in w)
    assert "body 'slider' moved 2.4 mm" in note
    assert f"velocity {math.hypot(1.5, 0.2):.4g} → 1.5 m/s" in note
    assert f"body 'crank' angular velocity 6 → {6.0 * math.cos(0.2):.4g} rad/s" in note
    assert "crank' moved" not in note and "turned" not in note  # nothing else was changed
    assert res["body/slider/position"][0][1] == pytest.approx(0.0, abs=1e-12)


def test_a_body_placed_upright_at_rest_starts_with_the_numbers_of_the_general_formulas():
    """The shortcuts of ``initial_coordinates`` (an upright body's p, a body at rest's ṗ) give the bytes the general
    formulas give (quaternion_from_matrix, ½ Gᵀ Aᵀ ω); a turned, spinning body takes the formulas."""
    from flexmbs.model.rotations import g_matrix, quaternion_from_matrix, rotation_about

    model = fm.Model("bodies")
    upright = model.add_rigid_body("upright", mass=1.0, inertia=(1.0, 1.0, 1.0))
    turned = model.add_rigid_body("turned", mass=1.0, inertia=(1.0, 1.0, 1.0), orientation=rotation_about("z", 0.3),
                                  angular_velocity=(0.0, 0.0, 2.0))
    for body in (upright, turned):
        q, v = body.initial_coordinates()
        p = quaternion_from_matrix(body.initial_orientation)
        pdot = 0.5 * g_matrix(p.tolist()).T @ (body.initial_orientation.T @ body.initial_angular_velocity)
        assert q[3:7].tobytes() == p.tobytes() and v[3:7].tobytes() == pdot.tobytes()
