"""The PID loop of tests/flexmbs/test_fmi_pid.py: the valve–cylinder–arm of test_compiled_step with its valve
commanded by a PID of the arm angle, built in (one model) or with the PID as a model of its own, exported as an FMU
(``export_fmu("fmi_controller:controller", ...)``: importable where the FMU runs when this folder is on
``PYTHONPATH``)."""
from __future__ import annotations

import flexmbs as fm
import hydraulics as hy
from test_compiled_step import arm_model

TARGET = 0.05  # rad: the arm is raised from level to 0.05 rad
PID = dict(gain=0.4, integral_time=0.2, derivative_time=0.0, filter_time=0.01, output_limits=(-0.02, 0.02))


def pid(measurement):
    """The controller: valve command (fraction of the spool stroke) from the arm angle (rad)."""
    return hy.PID("pid", TARGET, measurement, **PID)


def arm(command=None):
    """The arm of test_compiled_step.arm_model; its valve commanded by ``command`` (a function of time or a
    signal), else by the PID of its pivot angle (the built-in loop)."""
    if command is not None:
        return arm_model(command)
    return arm_model(command_of_pivot=lambda pivot: pid(hy.MeasurementSensor("angle", fm.JointCoordinate(pivot),
                                                                             unit="rad")))


def controller():
    """The PID alone: its measured angle an input (``angle``), its command an output (``element/ctrl/pid.value``)."""
    model = fm.Model("pid", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("stand", mass=1.0, inertia=(0.1, 0.1, 0.1))
    model.add_joint("fixed", model.add_marker(model.ground, "base"), model.add_marker(body, "seat"), name="seat")
    circuit = hy.Circuit("ctrl", hy.Fluid("oil", 850.0, 1.0e11, 46e-6))
    circuit.add(pid(hy.TimeFunction("angle", fm.Input("angle", "rad", 0.0), unit="rad")))
    model.add_element(circuit)
    return model
