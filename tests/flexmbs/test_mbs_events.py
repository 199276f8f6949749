"""Contact onsets located as events (flexmbs.engine.events) against free-fall kinematics: t = √(2h/g), v = √(2gh).

Free fall is integrated exactly by generalized-α (constant acceleration) and interpolated exactly by the cubic
Hermite interpolant, so the located event must match the analytic time to the event tolerance and the speed to
round-off — independently of the output interval and of the integration tolerance.
"""
import json

import numpy as np
import pytest

import flexmbs as fm
from flexmbs.engine.events import read_events
from flexmbs.model.rotations import rotation_about

G = 9.81


def dropped_ball(height):
    model = fm.Model("drop", gravity=(0.0, 0.0, -G))
    ball = model.add_rigid_body("ball", mass=1.0, inertia=(4e-4, 4e-4, 4e-4), position=(0.0, 0.0, height))
    model.add_force(fm.PlaneContact(model.add_marker(ball, "south"), model.add_marker(model.ground, "floor"),
                                    stiffness=1e8, exponent=1.5, damping=50.0, name="floor"))
    return model


@pytest.mark.parametrize("rtol, interval", [(1e-4, 1e-2), (1e-6, None)])
def test_plane_contact_onset_is_the_free_fall_time_and_speed(rtol, interval):
    """0.2 m drop: contact at 0.201928 s with 1.98091 m/s, whatever the tolerance and the output grid (a 10 ms grid
    would read the speed up to 10 ms after the impact, when the penalty contact has already stopped the ball)."""
    res = fm.simulate(dropped_ball(0.2), 0.25, rtol=rtol, atol=1e-9, output_interval=interval)
    assert res.success, res.message
    events = read_events(res)
    assert [e["name"] for e in events] == ["floor.gap"]
    event = events[0]
    assert event["time"] == pytest.approx(np.sqrt(2 * 0.2 / G), abs=1e-6)  # the default event tolerance
    assert event["gap_rate"] == pytest.approx(-np.sqrt(2 * G * 0.2), rel=1e-6)
    assert event["step_end"] - event["time"] <= 1e-6 and event["located"]


def test_hard_stop_onset_and_events_in_the_results_file(tmp_path):
    """A slider falls 5 cm onto the upper stop of its prismatic joint: t = √(2·0.05/g), v = √(2 g 0.05); the event
    is stored in the results file (solver attribute ``events``) and read back."""
    model = fm.Model("stop", gravity=(0.0, -G, 0.0))
    down = rotation_about("x", np.pi / 2)  # marker z = -Y
    slider = model.add_rigid_body("slider", mass=3.0, inertia=(0.01, 0.01, 0.01))
    guide = model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=down),
                            model.add_marker(slider, "carriage", orientation=down), name="rail")
    model.add_force(fm.HardStop(guide, upper=0.05, stiffness=1e6, exponent=1.0, damping=500.0, name="end"))
    path = str(tmp_path / "stop.results.h5")
    res = fm.simulate(model, 0.2, rtol=1e-5, atol=1e-10, output=path, output_interval=5e-3)
    assert res.success, res.message
    event = read_events(res)[0]
    assert event["name"] == "end.upper"
    assert event["time"] == pytest.approx(np.sqrt(2 * 0.05 / G), abs=1e-6)
    # rel 1e-4: in a joint (index-3 constraints) the velocities carry the integration error (rtol 1e-5)
    assert -event["gap_rate"] == pytest.approx(np.sqrt(2 * G * 0.05), rel=1e-4)
    stored = read_events(fm.load_results(path))
    assert json.loads(json.dumps(stored)) == stored and stored[0]["time"] == pytest.approx(event["time"], abs=0)


def test_cylinder_end_stops_offer_gap_functions():
    """hydraulics.Cylinder: gaps x and stroke − x with rates ẋ and −ẋ; none without end stops."""
    import hydraulics as h

    circuit = h.Circuit("c")
    circuit.add(h.Volume("A", 1e-4))
    circuit.add(h.Volume("B", 1e-4))
    cylinder = circuit.add(h.Cylinder("cyl", 2e-3, 1e-3, 0.3), A="A", B="B")
    circuit.finalize()
    z = circuit.initial_state()
    gaps = circuit.event_gaps(0.0, z, np.array([0.1]), np.array([0.2]))
    assert gaps == {"cyl.retracted_stop": (0.1, 0.2), "cyl.extended_stop": (pytest.approx(0.2), -0.2)}
    cylinder.stop_stiffness, cylinder.stop_damping = 0.0, 0.0
    circuit.refresh()
    assert circuit.event_gaps(0.0, z, np.array([0.1]), np.array([0.2])) == {}
