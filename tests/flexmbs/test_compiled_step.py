"""The compiled step (issue 26): the same equations as the Python path, chosen automatically, refused with a reason.

The model is the valve–cylinder–arm of ``benchmarks/race_hydraulic.py`` (Exudyn's hydraulic-actuator example):
a 120 kg arm on a revolute joint, a double-acting cylinder fed by a 4/3 valve.
"""
from __future__ import annotations

import gc
import math
import warnings
import weakref

import numpy as np
import pytest

import flexmbs as fm
import hydraulics as hy
from fem.errors import ModelError
from integration_tolerance import TIGHTER, as_callbacks, assert_agree

MASS, LENGTH, AREA, PIN = 120.0, 1.0, 0.01, 0.25
L0 = math.sqrt(2.0) * PIN
GRAVITY = 9.81


def holding_force() -> float:
    """Cylinder force holding the arm level (torque balance about the pivot, lever PIN sin 45°), N."""
    return MASS * GRAVITY * 0.5 * LENGTH / (PIN * PIN / L0)


def command(t: float) -> float:
    s = min(max((t - 0.05) / 0.05, 0.0), 1.0)
    r = min(max((t - 0.3) / 0.05, 0.0), 1.0)
    return 0.02 * (s * s * (3 - 2 * s) - r * r * (3 - 2 * r))


def arm_model(valve_command=command, wrap=None, command_of_pivot=None, supply=200e5):
    """The arm, its cylinder and valve; ``command_of_pivot(joint)``, if given, makes the valve command from the pivot
    joint (a controller of the arm angle: tests/flexmbs/fmi_controller.py)."""
    model = fm.Model("arm", gravity=(0.0, -GRAVITY, 0.0), planar=True)
    arm = model.add_rigid_body("arm", mass=MASS, inertia=(MASS * LENGTH**2 / 12.0,) * 3, position=(0.5, 0.0, 0.0))
    pivot = model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                            model.add_marker(arm, "arm.pivot", position=(-0.5, 0.0, 0.0)), name="pivot")
    if command_of_pivot is not None:
        valve_command = command_of_pivot(pivot)
    base = model.add_marker(model.ground, "base", position=(0.0, -PIN, 0.0))
    pin = model.add_marker(arm, "arm.pin", position=(PIN - 0.5, 0.0, 0.0))
    circuit = hy.Circuit("hyd", hy.Fluid("oil", 850.0, 1.0e11, 46e-6))
    p_b = 2.0e6
    circuit.add(hy.PressureSource("P", supply))
    circuit.add(hy.Tank("T", 0.0))
    circuit.add(hy.Volume("VA", 0.0, initial_pressure=p_b + holding_force() / AREA))
    circuit.add(hy.Volume("VB", 0.0, initial_pressure=p_b))
    circuit.add(hy.Cylinder("cyl", AREA, AREA, 0.5 * L0, measurement=fm.Distance(base, pin), retracted_length=L0,
                            dead_volume_a=1.0, dead_volume_b=1.0, friction=hy.CoulombViscousFriction(0.0, 2e5),
                            stop_stiffness=0.0, stop_damping=0.0), A="VA", B="VB")
    area = 2e-5 / (0.7 * math.sqrt(2.0 / 850.0))
    circuit.add(hy.closed_centre_valve("valve", area, valve_command, transition_pressure=1e3),
                P="P", T="T", A="VA", B="VB")
    model.add_element(wrap(circuit) if wrap else circuit)
    return model


class PythonOnly:
    """A user's own Python state element (docs/element-protocol.md) that forwards to a circuit: no compiled
    kernel, so its model takes the Python path."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.measurements = inner.measurements
        self.state_names, self.state_units = inner.state_names, inner.state_units

    def initial_state(self):
        return self.inner.initial_state()

    def rates(self, t, z, y, ydot):
        return self.inner.rates(t, z, y, ydot)

    def forces(self, t, z, y, ydot):
        return self.inner.forces(t, z, y, ydot)

    def outputs(self, t, z, y, ydot):
        return self.inner.outputs(t, z, y, ydot)


def test_closed_valve_holds_the_arm_at_the_analytic_force():
    """Valve closed, started at the holding pressure: the arm stays level and the cylinder force equals
    m g (L/2) / lever (independent torque balance) to 1e-6 relative."""
    res = fm.simulate(arm_model(valve_command=lambda t: 0.0), 0.5, engine="compiled")
    assert res.success and res.statistics["engine"] == "compiled"
    force = res["element/hyd/cyl.force"]
    assert np.max(np.abs(force / holding_force() - 1.0)) < 1e-6
    assert np.max(np.abs(res["element/hyd/cyl.position"] - res["element/hyd/cyl.position"][0])) < 1e-9


def test_user_python_element_matches_its_compiled_twin():
    """The same circuit behind a Python-only element (a callback of the one engine: flexmbs.engine.callbacks) and
    compiled: the same answer within the integration tolerance (rtol 1e-7: force within 0.2 N RMS)."""
    fast = fm.simulate(arm_model(), 0.6, rho_inf=0.5, rtol=1e-7, atol=1e-9)
    slow = fm.simulate(arm_model(wrap=PythonOnly), 0.6, rho_inf=0.5, rtol=1e-7, atol=1e-9)
    assert fast.statistics["engine"] == slow.statistics["engine"] == "compiled"
    force = np.interp(slow.time, fast.time, fast["element/hyd/cyl.force"])
    assert np.sqrt(np.mean((force - slow["element/hyd/cyl.force"]) ** 2)) < 0.2


def test_a_finished_run_is_freed_by_reference_counting():
    """No reference cycle through a run (system - evaluator - plan - system, a ctypes callback cast to its address):
    with the garbage collector off, dropping the results frees the system, its evaluator and plan (a cycle left them
    to the collector, ≈ 0.2 ms a run in the race); the results work while held (issue 41). Compiled circuit, the
    same circuit as a Python part, and with end stops whose event gaps Python evaluates (a callback of the plan)."""
    for wrap, stops in ((None, False), (PythonOnly, False), (None, True)):
        model = arm_model(wrap=wrap)
        if stops:
            model.add_force(fm.HardStop(model.joints[0], lower=-0.12, upper=0.5, stiffness=1e6, damping=1e3))
        fm.simulate(model, 0.02)
        gc.collect()
        gc.disable()
        try:
            res = fm.simulate(model, 0.1)
            system = weakref.ref(res.system)
            plan = weakref.ref(res.system._evaluator.plan)
            q, v = res.final_state.q, res.final_state.v
            a = res.accelerations(q, v, res.final_state.z, res.final_state.t)  # the system's evaluator, held weakly
            assert a.shape == q.shape and np.all(np.isfinite(a))
            del res
            assert system() is None and plan() is None
        finally:
            gc.enable()
    from flexmbs.engine.evaluate import evaluator
    from flexmbs.engine.system import System

    orphan = evaluator(System(arm_model()))  # the system goes with the call: one line says so, not a None
    with pytest.raises(ReferenceError, match="keep the System while its evaluator is used"):
        orphan.constraints(np.zeros(7), 0.0)


def test_hard_stops_on_the_compiled_step():
    """A hard stop on the pivot (its load compiled, its contact gaps called back after each step and located by
    the event locator), the arm driven into both stops: the same two onsets within 2e-6 s and
    impact speeds within 1e-3 as the same stop as a user's Python element (its ``HardStop`` methods, called
    back: integration_tolerance.as_callbacks), the motion within 1e-5 of its range and the reactions within
    1e-4 RMS of their peak."""
    def drive(t):
        return 1.0 if 0.05 < t < 0.9 else (-1.0 if t > 1.2 else 0.0)

    def build(python=False):
        model = arm_model(valve_command=drive)
        model.add_force(fm.HardStop(model.joints[0], lower=-0.12, upper=0.5, stiffness=1e6, damping=1e3,
                                    name="stop"))
        return as_callbacks(model, elements=False) if python else model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow, fast = (fm.simulate(build(python), 1.5, rho_inf=0.5, rtol=1e-7, atol=1e-9) for python in (True, False))
    assert fast.statistics["engine"] == "compiled"
    assert [e["name"] for e in fast.events] == [e["name"] for e in slow.events]
    assert {e["name"] for e in slow.events} == {"stop.upper", "stop.lower"}
    for a, b in zip(fast.events, slow.events):
        assert abs(a["time"] - b["time"]) < 2e-6
        assert a["gap_rate"] == pytest.approx(b["gap_rate"], rel=1e-3)

    def difference(key):
        x = np.asarray(slow[key]).reshape(len(slow.time), -1)
        y = np.asarray(fast[key]).reshape(len(fast.time), -1)
        y = np.stack([np.interp(slow.time, fast.time, y[:, i]) for i in range(y.shape[1])], 1)
        return np.max(np.abs(y - x)), np.sqrt(np.mean((y - x) ** 2)), np.max(np.abs(x))

    biggest, _, size = difference("joint/pivot/rotation")
    assert biggest < 1e-5 * size
    _, rms, size = difference("joint/pivot/force")
    assert rms < 1e-4 * size


def test_error_in_a_signal_function_reaches_the_caller():
    def broken(t):
        if t > 0.1:
            raise ValueError("command table ended")
        return 0.0

    with pytest.raises(ValueError, match="command table ended"):
        fm.simulate(arm_model(valve_command=broken), 0.3, engine="compiled")


def test_two_signal_functions_reach_the_kernel_and_their_errors_the_caller():
    """Two functions of time (the valve command and the supply pressure) are evaluated by one callback per time:
    the recorded spool position (no spool dynamics) and source pressure are the functions' values at the sample times
    (1e-12 relative), and an error in either reaches the caller."""
    def supply(t):
        return 200e5 + 1e6 * t

    res = fm.simulate(arm_model(valve_command=command, supply=supply), 0.2, output_interval=0.01)
    assert res.success
    t = np.asarray(res.time)
    expected_command = np.array([command(x) for x in t])
    assert np.max(np.abs(res["element/hyd/valve.spool"] - expected_command)) <= 1e-12 * 0.02
    assert np.max(np.abs(res["element/hyd/P.pressure"] / supply(t) - 1.0)) < 1e-12

    def broken(t):
        if t > 0.1:
            raise ValueError("supply table ended")
        return 200e5

    with pytest.raises(ValueError, match="supply table ended"):
        fm.simulate(arm_model(valve_command=command, supply=broken), 0.3)


def test_contact_events_of_cylinder_stops_match_the_python_element():
    """End stops on (1e9 N/m, 1e5 N s/m): the valve drives the arm out, then fully back onto the retracted stop,
    which it hits three times (bounces). The compiled step watches the gaps and hands each closing step to the
    event locator (flexmbs.engine.events); onset times agree within 2 event tolerances (2e-6 s) and the impact
    speeds within 1e-3 relative of the same circuit as a user's Python element (its component methods, called
    back: integration_tolerance.as_callbacks)."""
    def drive(t):
        return 1.0 if 0.05 < t < 0.9 else (-1.0 if t > 1.2 else 0.0)

    runs = {}
    for engine in ("python", "compiled"):
        model = arm_model(valve_command=drive)
        cylinder = model.elements[0].component("cyl")
        cylinder.stop_stiffness, cylinder.stop_damping = 1e9, 1e5
        if engine == "python":
            as_callbacks(model, forces=False)
        runs[engine] = fm.simulate(model, 1.5, rho_inf=0.5, rtol=1e-6, atol=1e-8)
    slow, fast = runs["python"].events, runs["compiled"].events
    assert len(slow) == 3 and [e["name"] for e in fast] == [e["name"] for e in slow] == ["hyd.cyl.retracted_stop"] * 3
    for a, b in zip(fast, slow):
        assert abs(a["time"] - b["time"]) < 2e-6
        assert a["gap_rate"] == pytest.approx(b["gap_rate"], rel=1e-3)
        assert a["located"] and b["located"]


def test_spring_damper_and_joint_actuator_take_the_compiled_step():
    """A linear spring-damper (tip to a ground anchor, preloaded) and a sinusoidal motor torque on the pivot are
    compiled force elements: same motion, spring force and pivot reaction as the same elements as a user's Python
    elements (their methods, called back: integration_tolerance.as_callbacks) (rtol 1e-8 runs: within 1e-5 of
    each signal's largest value)."""
    def build(python=False):
        model = arm_model()
        tip = model.add_marker(model.bodies[0], "tip", position=(0.5, 0.0, 0.0))
        anchor = model.add_marker(model.ground, "anchor", position=(1.0, 0.6, 0.0))
        model.add_force(fm.SpringDamper(anchor, tip, stiffness=2e4, damping=300.0, free_length=0.5, preload=100.0,
                                        name="spring"))
        model.add_force(fm.JointActuator(model.joints[0], lambda t: 200.0 * math.sin(4 * t), name="motor"))
        return as_callbacks(model, elements=False) if python else model

    runs = {e: fm.simulate(build(e == "python"), 0.4, rho_inf=0.5, rtol=1e-8, atol=1e-10) for e in ("python", "auto")}
    slow, fast = runs["python"], runs["auto"]
    assert fast.statistics["engine"] == "compiled"
    for key in ("force/spring/force", "force/spring/length", "joint/pivot/force", "element/hyd/cyl.force",
                "body/arm/angular_velocity"):
        x = np.asarray(slow[key])
        y = np.asarray(fast[key]).reshape(len(fast.time), -1)
        y = np.stack([np.interp(slow.time, fast.time, y[:, i]) for i in range(y.shape[1])], 1).reshape(x.shape)
        assert np.max(np.abs(y - x)) < 1e-5 * np.max(np.abs(x)), key


class UserSpring(fm.SpringDamper):
    """A user's own force element (here a subclass, so it has no compiled kernel): evaluated in Python and called
    back from the compiled step (docs/element-protocol.md)."""


def test_user_python_force_element_gives_the_answer_of_its_compiled_twin():
    """The same spring-damper as a compiled kernel and as a user's Python element called back from the compiled
    step: both models take the compiled step and agree within the integration error of the rtol-1e-8 runs
    (integration_tolerance.assert_agree: 4 x the twin's error against an rtol-1e-11 run, + 1e-8 of the peak; the
    steps may differ between CPUs, so round-off is no bound)."""
    def build(kind):
        model = arm_model()
        tip = model.add_marker(model.bodies[0], "tip", position=(0.5, 0.0, 0.0))
        anchor = model.add_marker(model.ground, "anchor", position=(1.0, 0.6, 0.0))
        model.add_force(kind(anchor, tip, stiffness=2e4, damping=300.0, free_length=0.5, preload=100.0,
                             name="spring"))
        return model

    twin = fm.simulate(build(fm.SpringDamper), 0.4, rho_inf=0.5, rtol=1e-8, atol=1e-10)
    user = fm.simulate(build(UserSpring), 0.4, rho_inf=0.5, rtol=1e-8, atol=1e-10)
    reference = fm.simulate(build(fm.SpringDamper), 0.4, rho_inf=0.5, rtol=1e-8 * TIGHTER, atol=1e-10 * TIGHTER)
    assert twin.statistics["engine"] == user.statistics["engine"] == "compiled"
    assert_agree(twin, user, reference, ("force/spring/force", "force/spring/velocity", "joint/pivot/force",
                                         "element/hyd/cyl.force"), rtol=1e-8)
    wrong = fm.simulate(build(lambda *a, **k: UserSpring(*a, **dict(k, damping=290.0))), 0.4, rho_inf=0.5, rtol=1e-8,
                        atol=1e-10)  # the bound tells a 3 % damping change from the same element
    with pytest.raises(AssertionError, match="force/spring/velocity: the runs differ"):
        assert_agree(twin, wrong, reference, ("force/spring/velocity",), rtol=1e-8)


def test_info_says_which_engine_ran(tmp_path):
    """`flexmbs info` of a results file names the engine and the step counts (solver attributes of the file)."""
    from click.testing import CliRunner

    from flexmbs.cli import main

    path = str(tmp_path / "arm.results.h5")
    res = fm.simulate(arm_model(), 0.05, output=path)
    out = CliRunner().invoke(main, ["info", path]).output
    assert f"solver: compiled engine, {res.statistics['steps']} steps" in out
