"""hydraulics: fluid power and controls for flexmbs machine models.

Components are small classes with parameters, ports, states and outputs (the Hopsan lesson of STYLE.md); their
laws are written once, in the compiled circuit kernel (:mod:`hydraulics.kernel`). A :class:`Circuit` collects them
and joins a flexmbs model as a state element (docs/element-protocol.md) or runs alone (:func:`simulate_circuit`).
See docs/hydraulics.md for the equations and their seed references.
"""
from .accumulators import GasAccumulator
from .circuit import Circuit
from .core import Component, Evaluation, Node, Signal
from .cylinder import BrownMcPheeFriction, CoulombViscousFriction, Cushion, Cylinder, PrescribedStroke
from .datasheet import (CURRENT_4_20MA, VOLTAGE_0_10V, VOLTAGE_10V, CommandRange, Hysteresis, NormalisedCommand,
                        ValveDatasheet, three_way_valve, valve_from_datasheet)
from .fluid import HLP46, MINERAL_OIL, PRESETS, Fluid
from .friction import StribeckFriction, scale_friction
from .lines import Pipe, add_line
from .nodes import PressureSource, Tank, Volume
from .motors import HydraulicMotor, PrescribedAngle
from .orifices import CheckValve, Orifice, ReliefValve, Throttle, flow_coefficient, orifice_flow
from .pressure_valves import (CounterbalanceValve, PilotOperatedCheckValve, PilotValve, PressureCompensator,
                              PressureReducingValve, ShuttleValve, add_flow_control_valve)
from .pumps import VariableDisplacementPump
from .signals import (PID, Constant, LookupTable, MeasurementSensor, PiecewiseLinear, PressureSensor, Ramp,
                      SmoothStep, Sum, TimeFunction, VelocityProfile, as_signal)
from .simulate import CircuitResult, simulate_circuit, simulate_with_mass
from .sources import FixedDisplacementPump
from .valves import (DirectionalValve, FirstOrderSpool, SecondOrderSpool, SpoolPath, area_from_nominal_flow,
                     closed_centre_valve, open_centre_valve, proportional_valve, regenerative_valve,
                     tandem_centre_valve)

__all__ = [
    "Circuit", "Component", "Evaluation", "Node", "Signal",
    "BrownMcPheeFriction", "CoulombViscousFriction", "Cushion", "Cylinder", "PrescribedStroke",
    "HLP46", "MINERAL_OIL", "PRESETS", "Fluid", "Pipe", "add_line", "PressureSource", "Tank", "Volume",
    "CheckValve", "Orifice", "ReliefValve", "Throttle", "flow_coefficient", "orifice_flow",
    "PID", "Constant", "LookupTable", "MeasurementSensor", "PiecewiseLinear", "PressureSensor", "Ramp",
    "SmoothStep", "Sum", "TimeFunction", "VelocityProfile", "as_signal",
    "CircuitResult", "simulate_circuit", "simulate_with_mass", "FixedDisplacementPump",
    "DirectionalValve", "FirstOrderSpool", "SecondOrderSpool", "SpoolPath", "area_from_nominal_flow",
    "closed_centre_valve", "open_centre_valve", "proportional_valve", "regenerative_valve", "tandem_centre_valve",
    "GasAccumulator", "HydraulicMotor", "PrescribedAngle", "VariableDisplacementPump", "CounterbalanceValve",
    "PilotOperatedCheckValve", "PilotValve", "PressureCompensator", "PressureReducingValve", "ShuttleValve",
    "add_flow_control_valve", "CommandRange", "CURRENT_4_20MA", "VOLTAGE_0_10V", "VOLTAGE_10V", "Hysteresis",
    "NormalisedCommand", "ValveDatasheet", "three_way_valve", "valve_from_datasheet", "StribeckFriction",
    "scale_friction",
]
