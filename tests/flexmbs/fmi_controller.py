"""The PID loop of tests/flexmbs/test_fmi_pid.py: the valve–cylinder–arm of test_compiled_step with its valve
commanded by a PID of the arm angle, built in (one model) or with the PID as a model of its own, exported as an FMU
(``export_fmu("fmi_controller:controller", ...)``: importable where the FMU runs when this folder is on
``PYTHONPATH``)."""
from __future__ import annotations

import math

import flexmbs as fm
import hydraulics as hy
from test_compiled_step import AREA, GRAVITY, L0, LENGTH, MASS, PIN, holding_force

TARGET = 0.05  # rad: the arm is raised from level to 0.05 rad
PID = dict(gain=0.4, integral_time=0.2, derivative_time=0.0, filter_time=0.01, output_limits=(-0.02, 0.02))


def pid(measurement):
    """The controller: valve command (fraction of the spool stroke) from the arm angle (rad)."""
    return hy.PID("pid", TARGET, measurement, **PID)


def arm(command=None):
    """The arm of test_compiled_step.arm_model; its valve commanded by ``command`` (a function of time or a
    signal), else by the PID of its pivot angle (the built-in loop)."""
    model = fm.Model("arm", gravity=(0.0, -GRAVITY, 0.0), planar=True)
    body = model.add_rigid_body("arm", mass=MASS, inertia=(MASS * LENGTH**2 / 12.0,) * 3, position=(0.5, 0.0, 0.0))
    pivot = model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                            model.add_marker(body, "arm.pivot", position=(-0.5, 0.0, 0.0)), name="pivot")
    base = model.add_marker(model.ground, "base", position=(0.0, -PIN, 0.0))
    pin = model.add_marker(body, "arm.pin", position=(PIN - 0.5, 0.0, 0.0))
    circuit = hy.Circuit("hyd", hy.Fluid("oil", 850.0, 1.0e11, 46e-6))
    p_b = 2.0e6
    circuit.add(hy.PressureSource("P", 200e5))
    circuit.add(hy.Tank("T", 0.0))
    circuit.add(hy.Volume("VA", 0.0, initial_pressure=p_b + holding_force() / AREA))
    circuit.add(hy.Volume("VB", 0.0, initial_pressure=p_b))
    circuit.add(hy.Cylinder("cyl", AREA, AREA, 0.5 * L0, measurement=fm.Distance(base, pin), retracted_length=L0,
                            dead_volume_a=1.0, dead_volume_b=1.0, friction=hy.CoulombViscousFriction(0.0, 2e5),
                            stop_stiffness=0.0, stop_damping=0.0), A="VA", B="VB")
    if command is None:
        command = pid(hy.MeasurementSensor("angle", fm.JointCoordinate(pivot), unit="rad"))
    area = 2e-5 / (0.7 * math.sqrt(2.0 / 850.0))
    circuit.add(hy.closed_centre_valve("valve", area, command, transition_pressure=1e3), P="P", T="T", A="VA",
                B="VB")
    model.add_element(circuit)
    return model


def controller():
    """The PID alone: its measured angle an input (``angle``), its command an output (``element/ctrl/pid.value``)."""
    model = fm.Model("pid", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("stand", mass=1.0, inertia=(0.1, 0.1, 0.1))
    model.add_joint("fixed", model.add_marker(model.ground, "base"), model.add_marker(body, "seat"), name="seat")
    circuit = hy.Circuit("ctrl", hy.Fluid("oil", 850.0, 1.0e11, 46e-6))
    circuit.add(pid(hy.TimeFunction("angle", fm.Input("angle", "rad", 0.0), unit="rad")))
    model.add_element(circuit)
    return model
