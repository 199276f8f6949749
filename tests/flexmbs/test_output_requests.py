"""Output requests (``simulate(..., outputs=[patterns])``): the requested signals are those of the full run, bit for
bit (the same states, the same arithmetic per signal: a sample that skips work skips only what no requested signal
reads), the samples skip the acceleration-level solve when nothing needs it and keep it when friction reads the
reactions, and the physics of the recorded signals holds (weight balance, Coulomb friction)."""
import fnmatch
import math
import subprocess
import sys

import numpy as np
import pytest

import flexmbs as fm
import hydraulics as hy
from fem.errors import FlexmbsError, ModelError
from flexmbs.engine.loop import SAMPLE_REACTIONS
from test_mbs_state_elements import ActuatorLag
from test_recorder_samples import G, cantilever


def assert_same_run(full, part, names):
    """The two runs took the same steps (time and states bit for bit) and ``names`` are bitwise equal."""
    assert np.array_equal(full.time, part.time)
    for key in ("q", "v", "z"):
        assert np.array_equal(full.states[key], part.states[key]), key
    for name in names:
        assert np.array_equal(full[name], part[name]), name


def arm_with_cylinder():
    """A 1 m arm on a revolute pivot lifted by a double-acting cylinder through a 4/3 valve that opens at 0.05 s
    (benchmarks/race_hydraulic.py, smaller)."""
    model = fm.Model("arm", gravity=(0.0, -G, 0.0), planar=True)
    arm = model.add_rigid_body("arm", mass=120.0, inertia=(10.0,) * 3, position=(0.5, 0.0, 0.0))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                    model.add_marker(arm, "arm.pivot", position=(-0.5, 0.0, 0.0)), name="pivot")
    pin_g = model.add_marker(model.ground, "cyl.base", position=(0.0, -0.25, 0.0))
    pin_a = model.add_marker(arm, "arm.cyl", position=(-0.25, 0.0, 0.0))
    circuit = hy.Circuit("hyd", hy.Fluid("oil", 850.0, 1.5e9, 46e-6))
    length = 0.25 * math.sqrt(2.0)
    holding = 120.0 * G * 0.5 / (0.25 * 0.25 / length)  # N: the arm's weight about the pivot
    circuit.add(hy.PressureSource("P", 200e5))
    circuit.add(hy.Tank("T", 0.0))
    circuit.add(hy.Volume("VA", 0.0, initial_pressure=20e5 + holding / 0.01))
    circuit.add(hy.Volume("VB", 0.0, initial_pressure=20e5))
    circuit.add(hy.Cylinder("cyl", 0.01, 0.01, 0.5 * length, measurement=fm.Distance(pin_g, pin_a),
                            retracted_length=length, dead_volume_a=1e-3, dead_volume_b=1e-3,
                            friction=hy.CoulombViscousFriction(0.0, 2e5), stop_stiffness=0.0, stop_damping=0.0),
                A="VA", B="VB")
    circuit.add(hy.closed_centre_valve("valve", 6e-4, lambda t: 0.02 * float(fm.smooth_step(t, 0.05, 0.0, 0.1, 1.0))),
                P="P", T="T", A="VA", B="VB")
    model.add_element(circuit)
    return model


HYDRAULIC = ["element/hyd/cyl.force", "element/hyd/cyl.position", "element/hyd/V?.pressure",
             "element/hyd/valve.flow_*"]


def test_hydraulic_signals_without_reactions_skip_the_solve_and_equal_the_full_run():
    full = fm.simulate(arm_with_cylinder(), 0.2, output_interval=2e-3)
    run = fm.Run(arm_with_cylinder(), 0.2, output_interval=2e-3, outputs=HYDRAULIC)
    # the samples do no acceleration-level solve: no recorded signal needs the multipliers, no friction reads them
    assert not run._run.plan.sampler.bf[-1][1] & SAMPLE_REACTIONS
    run.advance_to(0.2)
    part = run.finish()
    assert full.success and part.success, (full.message, part.message)
    recorded = {n for n in part.signals() if not n.startswith("solver/")}
    assert recorded == {n for n in full.signals() if any(fnmatch.fnmatchcase(n, p) for p in HYDRAULIC)}
    assert len(recorded) == 8  # force, position, two pressures, four flows
    assert_same_run(full, part, part.signals())
    # physics of the recorded signals: the cylinder force is p_A A - p_B A - d ẋ (the rod's rate from the full run:
    # the same states); tolerance: round-off of the terms of some 10 kN
    force = (part["element/hyd/VA.pressure"] - part["element/hyd/VB.pressure"]) * 0.01
    force -= 2e5 * full["element/hyd/cyl.velocity"]
    np.testing.assert_allclose(part["element/hyd/cyl.force"], force, rtol=0.0, atol=1e-9 * np.max(np.abs(force)))
    assert np.ptp(part["element/hyd/cyl.position"]) > 1e-3  # the arm moves (m)
    # a body's pose is read from the states when it was not requested
    assert np.array_equal(part["body/arm/position"], full["body/arm/position"])
    with pytest.raises(FlexmbsError, match="was not recorded.*outputs"):
        part["joint/pivot/force"]


def test_requested_reactions_equal_the_full_run_and_balance_the_weight():
    mass, length = 3.0, 0.8
    full = fm.simulate(cantilever(True, mass, length), 0.05)
    part = fm.simulate(cantilever(True, mass, length), 0.05, outputs="joint/clamp/force,joint/clamp/torque")
    assert set(part.signals()) - {"joint/clamp/force", "joint/clamp/torque"} == {
        "solver/step_size", "solver/newton_iterations", "solver/constraint_violation"}
    assert_same_run(full, part, ["joint/clamp/force", "joint/clamp/torque"])
    # statics (tests/flexmbs/test_recorder_samples.py): F = m g up, M = m g L/2 about +z; tolerance: round-off
    np.testing.assert_allclose(part["joint/clamp/force"], np.tile([0.0, mass * G, 0.0], (part.time.size, 1)),
                               atol=1e-8)
    np.testing.assert_allclose(part["joint/clamp/torque"],
                               np.tile([0.0, 0.0, mass * G * 0.5 * length], (part.time.size, 1)), atol=1e-8)


def pushed_block(mass, mu_s, mu_d):
    frame = np.column_stack([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    model = fm.Model("pushed block", gravity=(0.0, -G, 0.0))
    block = model.add_rigid_body("block", mass=mass, inertia=(0.01, 0.01, 0.01))
    shoe = model.add_marker(block, "shoe", orientation=frame)
    guide = model.add_joint("prismatic", model.add_marker(model.ground, "rail", orientation=frame), shoe, name="guide")
    model.add_force(fm.JointFriction(guide, mu_s, mu_d, 1e-3))
    model.add_element(ActuatorLag(shoe, 20.0, 5e-3, with_jacobians=False))
    return model


def test_friction_reading_the_reactions_keeps_the_solve():
    # the friction force of a sample comes from the consistent reactions (the fixed point of consistent_sample):
    # requested without any joint reaction, the samples must still solve for them
    mass, mu_s, mu_d = 2.0, 0.5, 0.4
    full = fm.simulate(pushed_block(mass, mu_s, mu_d), 0.1, rtol=1e-6, atol=1e-9)
    part = fm.simulate(pushed_block(mass, mu_s, mu_d), 0.1, rtol=1e-6, atol=1e-9,
                       outputs=["force/friction(guide)/*"])
    assert not any(n.startswith(("joint/", "element/", "body/", "marker/")) for n in part.signals())
    assert_same_run(full, part, [n for n in part.signals() if n.startswith("force/")])
    # Coulomb once sliding: -μ_d m g (tests/flexmbs/test_recorder_samples.py); tolerance: the solver's round-off
    sliding = part["force/friction(guide)/sliding_velocity"] > 1.5e-3
    assert sliding.sum() > 10
    np.testing.assert_allclose(part["force/friction(guide)/friction"][sliding], -mu_d * mass * G, rtol=1e-6)


def test_a_results_file_holds_the_request_and_its_readers_say_what_was_left_out(tmp_path):
    path = str(tmp_path / "clamp.results.h5")
    full = fm.simulate(cantilever(True), 0.05)
    fm.simulate(cantilever(True), 0.05, output=path, outputs=["joint/*/force"])
    res = fm.load_results(path)
    assert set(res.signals()) == {"joint/clamp/force", "solver/step_size", "solver/newton_iterations",
                                  "solver/constraint_violation"}
    assert res.attributes["outputs"] == ["joint/*/force"]
    assert np.array_equal(res["joint/clamp/force"], full["joint/clamp/force"])
    assert np.array_equal(res["body/bar/orientation"], full["body/bar/orientation"])  # from the stored states
    # the command-line readers take what is there: a plot of a pose read from the states, one line for the rest
    from flexmbs.post.viz.plots import select_signals

    assert np.array_equal(select_signals(res, ["body/bar/position/y"])[0].values, full["body/bar/position"][:, 1])
    with pytest.raises(FlexmbsError, match="'joint/clamp/torque' was not recorded"):
        select_signals(res, ["joint/clamp/torque"])
    with pytest.raises(FlexmbsError, match="'marker/root/position' was not recorded.*--outputs"):
        res["marker/root/position"]
    # the animation draws the bodies from the stored states
    from flexmbs.post.viz.scene import load_scene

    scene = load_scene(path)
    assert np.array_equal(scene._poses["bar"][0], full["body/bar/position"])
    assert np.array_equal(scene._poses["bar"][1], full["body/bar/orientation"])


def test_a_request_as_one_function_answers_as_its_membership_test():
    """``OutputRequest.test()`` (the samples' column plan) answers as ``name in request``, with and without
    wildcards, the always-recorded solver signals included; ``rooms`` holds the room of every recorded name."""
    from flexmbs.results.outputs import OutputRequest

    names = ["element/hyd/cyl.force", "element/hyd/VA.pressure", "joint/pivot/force", "body/arm/position",
             "solver/step_size", "element/hyd/valve.flow_PA", "marker/tip/position"]
    for patterns in (["element/hyd/cyl.force", "joint/pivot/force"], ["element/hyd/*", "body/arm/position"],
                     ["marker/?ip/position"], []):
        request = OutputRequest(patterns, names)
        assert [request.test()(name) for name in names] == [name in request for name in names], patterns
        rooms = request.rooms  # (the column plan skips the other rooms; None: wildcards, every room)
        assert (rooms is None) == any("*" in p or "?" in p for p in patterns), patterns
        assert rooms is None or {name.partition("/")[0] for name in names if name in request} <= rooms, patterns


def test_a_pattern_that_matches_no_signal_is_one_line_naming_close_names():
    with pytest.raises(ModelError, match=r"'joint/clamp\.force' matches no signal.*joint/clamp/force"):
        fm.simulate(cantilever(True), 0.05, outputs=["joint/clamp.force"])
    run = fm.Run(cantilever(True), 0.05, outputs=["joint/clamp/*"])
    run.advance_to(0.01)
    assert run.output("joint/clamp/force").shape == (3,)
    with pytest.raises(ModelError, match="'marker/root/position' was not recorded"):
        run.output("marker/root/position")


def test_the_command_line_option_checks_its_patterns():
    done = subprocess.run([sys.executable, "-m", "flexmbs", "run", "slider-crank", "--quiet", "--t-end", "0.001",
                           "--outputs", "joint/slider_pin/force,marker/link.mid/position", "--outputs",
                           "joint/slider_pin.force"], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "'joint/slider_pin.force' matches no signal" in lines[0]
    assert "joint/slider_pin/force" in lines[0]


def test_a_case_summary_reading_a_signal_left_out_says_so_and_where_the_results_are(tmp_path):
    """``flexmbs run CASE --outputs P`` with P leaving out a signal the case's summary reads: exit 2, one line naming
    the signal and the results file, which the run has written (nothing computed is lost)."""
    path = tmp_path / "lift.results.h5"
    done = subprocess.run([sys.executable, "-m", "flexmbs", "run", "fourbar-hydraulic", "--quiet", "--t-end", "0.05",
                           "--outputs", "element/*", "-o", str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "was not recorded" in lines[0] and "the case's summary reads it" in lines[0]
    assert str(path) in lines[0]
    loaded = fm.load_results(str(path))
    assert loaded.success and loaded.time[-1] == pytest.approx(0.05)
    recorded = list(loaded.signals())
    assert any(name.startswith("element/") for name in recorded)  # the request, as recorded
    assert not any(name.startswith("joint/") for name in recorded)
