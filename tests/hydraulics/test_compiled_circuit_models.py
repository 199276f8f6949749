"""Circuits with the newer compiled kinds in a multibody model: the compiled step against the Python path.

A rigid arm (1 DOF, pivot at one end) lifted by a cylinder, as in tests/flexmbs/test_compiled_step.py, with three
circuits: (1) a supply line with fluid inertia (``add_line``: two pipe segments and a hose node) and an end cushion,
(2) a load-sensing supply (variable pump, pressure compensator, shuttle valve), (3) closed-loop position control
(PID on the measured stroke, set-point a smooth step, the command through a Sum, a play hysteresis and the
normalised ±10 V range) supplied by a fixed pump with a gas accumulator. The circuit's kernel (hydraulics.layout)
and the circuit as a user's Python element called back (the component methods; integration_tolerance.as_callbacks)
solve the same equations; both converge to the same solution, so their
difference is integration error, bounded in proportion to the tolerance ``rtol`` (atol = rtol / 100): the
cylinder force within ``2e3 rtol`` of its range (RMS), the pressures within ``2e3 rtol`` of their range (max), the
arm rotation within ``100 rtol`` rad (at rtol 1e-7: 2e-4, 2e-4, 1e-5 rad; measured: line circuit 3e-5, 4e-5,
4e-8 rad; control circuit 1.2e-4, 5e-6, 1e-7 rad). A slider on a prismatic joint, its cylinder reading the joint's
translation (``JointCoordinate``, measured in the compiled step), settles at the spring's closed-form equilibrium.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import flexmbs as fm
import hydraulics as hy
from integration_tolerance import as_callbacks

MASS, LENGTH, PIN, GRAVITY = 120.0, 1.0, 0.25, 9.81
L0 = math.sqrt(2.0) * PIN  # cylinder length with the arm level
BORE, ROD = 2.0e-3, 1.2e-3  # m^2, piston and annulus areas
OIL = hy.Fluid("oil", 870.0, 1.6e9, 46e-6)


def holding_pressure() -> float:
    """Piston-side pressure (Pa, rod side at 0) that holds the arm level: torque balance about the pivot."""
    return MASS * GRAVITY * 0.5 * LENGTH / (PIN * PIN / L0) / BORE


def arm(circuit_builder):
    """The arm and a circuit from ``circuit_builder(distance)`` (its cylinder reads ``distance``)."""
    model = fm.Model("arm", gravity=(0.0, -GRAVITY, 0.0), planar=True)
    body = model.add_rigid_body("arm", mass=MASS, inertia=(MASS * LENGTH**2 / 12.0,) * 3, position=(0.5, 0.0, 0.0))
    model.add_joint("revolute", model.add_marker(model.ground, "pivot"),
                    model.add_marker(body, "arm.pivot", position=(-0.5, 0.0, 0.0)), name="pivot")
    base = model.add_marker(model.ground, "base", position=(0.0, -PIN, 0.0))
    pin = model.add_marker(body, "arm.pin", position=(PIN - 0.5, 0.0, 0.0))
    model.add_element(circuit_builder(fm.Distance(base, pin)))
    return model


def cylinder(distance):
    """Stroke 0.15 m, at 0.05 m with the arm level; Coulomb-viscous friction."""
    return hy.Cylinder("cyl", BORE, ROD, 0.15, measurement=distance, retracted_length=L0 - 0.05,
                       dead_volume_a=5e-5, dead_volume_b=5e-5, friction=hy.CoulombViscousFriction(2e4, 50.0))


def lines_circuit(distance):
    """Supply through a 6 m line of two pipe segments (inertia, laminar-turbulent loss), valve, cushion on A."""
    c = hy.Circuit("hyd", OIL)
    c.add(hy.PressureSource("P", 160e5))
    c.add(hy.Tank("T", 0.0))
    p_a = holding_pressure()
    for name, volume, p0 in (("S", 2e-5, 160e5), ("VA", 2e-5, p_a), ("CA", 1e-6, p_a), ("VB", 2e-5, 0.0)):
        c.add(hy.Volume(name, volume, initial_pressure=p0))
    hy.add_line(c, "line", "P", "S", 6.0, 0.008, segments=2, wall_bulk_modulus=1e9, minor_loss_coefficient=1.0,
                initial_pressure=160e5)
    cyl = c.add(cylinder(distance), A="CA", B="VB")
    c.add(hy.Cushion("cushion", cyl, [0.0, 0.03, 0.045], [3e-7, 3e-7, 2e-5], 5e-6), chamber="CA", line="VA")
    command = hy.PiecewiseLinear("command", [0.0, 0.05, 0.1, 0.3, 0.35, 1.0], [0.0, 0.0, 0.3, 0.3, -1.0, -1.0])
    c.add(hy.closed_centre_valve("valve", 1.5e-5, command, spool=hy.FirstOrderSpool(0.01)),
          P="S", T="T", A="VA", B="VB")
    return c


def load_sensing_circuit(distance):
    """Variable pump with load sensing, its compensator and the shuttle picking the higher load pressure."""
    c = hy.Circuit("hyd", OIL)
    c.add(hy.Tank("T", 0.0))
    p_a = holding_pressure()
    for name, volume, p0 in (("pump", 1e-4, p_a + 20e5), ("metered", 2e-5, p_a + 10e5), ("LS", 5e-6, p_a),
                             ("VA", 2e-5, p_a), ("VB", 2e-5, 0.0)):
        c.add(hy.Volume(name, volume, initial_pressure=p0))
    c.add(hy.VariableDisplacementPump("ls_pump", 10e-6, 25.0, 200e5, margin_pressure=15e5, initial_fraction=0.05),
          S="T", P="pump", LS="LS")
    c.add(hy.PressureCompensator("comp", 5e-5, 8e5, time_constant=3e-3), P="pump", A="metered", X="LS")
    c.add(hy.ShuttleValve("shuttle", 1e-6), A="VA", B="VB", C="LS")
    c.add(hy.Orifice("bleed", 2e-8), A="LS", B="T")
    c.add(hy.ReliefValve("relief", 220e5, 1e-10, width=2e5), P="pump", T="T")
    c.add(cylinder(distance), A="VA", B="VB")
    command = hy.PiecewiseLinear("command", [0.0, 0.05, 0.1, 0.2, 0.25, 0.35], [0.0, 0.0, 0.5, 0.5, -0.5, -0.5])
    c.add(hy.closed_centre_valve("valve", 1.5e-5, command), P="metered", T="T", A="VA", B="VB")
    return c


def control_circuit(distance):
    """PID position control of the stroke: set-point +40 mm (smooth step), PID -> Sum (V) -> hysteresis -> U;
    supplied by a fixed pump (12 l/min, built-in relief) and a gas accumulator."""
    c = hy.Circuit("hyd", OIL)
    c.add(hy.Tank("T", 0.0))
    c.add(hy.Volume("P", 2e-5, initial_pressure=160e5))
    c.add(hy.FixedDisplacementPump("pump", 8e-6, 25.0, leakage_conductance=1e-12, relief_pressure=165e5), S="T",
          P="P")
    c.add(hy.GasAccumulator("acc", 0.5e-3, 100e5, initial_pressure=160e5), P="P")
    c.add(hy.Volume("VA", 2e-5, initial_pressure=holding_pressure()))
    c.add(hy.Volume("VB", 2e-5, initial_pressure=0.0))
    c.add(cylinder(distance), A="VA", B="VB")
    y0 = L0
    reference = hy.SmoothStep("reference", 0.05, 0.45, y0, y0 + 0.04)
    pid = hy.PID("pid", reference, hy.MeasurementSensor("stroke", distance, unit="m"), 40.0, 0.5, 0.02,
                 filter_time=0.005, output_limits=(-1.0, 1.0))
    volts = hy.Sum("volts", [pid], [10.0], unit="V")
    command = hy.NormalisedCommand("U", hy.Hysteresis("play", volts, 0.1), hy.VOLTAGE_10V)
    c.add(hy.closed_centre_valve("valve", 1.5e-5, command, spool=hy.SecondOrderSpool(60.0, 0.8)),
          P="P", T="T", A="VA", B="VB")
    return c


def both_paths(builder, t_end, rtol=1e-7):
    runs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for engine in ("compiled", "python"):  # "python": the circuit as a user's Python element, called back
            model = arm(builder) if engine == "compiled" else as_callbacks(arm(builder))
            runs[engine] = fm.simulate(model, t_end, rho_inf=0.5, rtol=rtol, atol=0.01 * rtol)
    return runs["compiled"], runs["python"]


def assert_same_solution(fast, slow, pressures, rtol=1e-7):
    assert fast.statistics["engine"] == slow.statistics["engine"] == "compiled"

    def on_slow_times(key):
        return np.interp(slow.time, fast.time, np.asarray(fast[key]).reshape(-1)), np.asarray(slow[key]).reshape(-1)

    fast_force, slow_force = on_slow_times("element/hyd/cyl.force")
    assert np.sqrt(np.mean((fast_force - slow_force) ** 2)) < 2e3 * rtol * np.ptp(slow_force)
    for node in pressures:
        a, b = on_slow_times(f"element/hyd/{node}.pressure")
        assert np.max(np.abs(a - b)) < 2e3 * rtol * np.ptp(b), node
    a, b = on_slow_times("joint/pivot/rotation")
    assert np.max(np.abs(a - b)) < 100 * rtol
    return slow


def test_line_with_inertia_and_cushion():
    fast, slow = both_paths(lines_circuit, 0.8)
    assert_same_solution(fast, slow, ("S", "line.1", "VA", "CA", "VB"))
    assert np.ptp(slow["element/hyd/line[0].flow"]) > 1e-4  # the line carried flow (0.1 l/s and more)
    assert np.min(slow["element/hyd/cyl.position"]) < 0.03  # the piston entered the cushion's small area


def test_load_sensing_supply():
    """At rtol 1e-6 (the regulation loop is stiff: at 1e-7 the Python path needs ~50 s for 0.6 s)."""
    fast, slow = both_paths(load_sensing_circuit, 0.35, rtol=1e-6)
    assert_same_solution(fast, slow, ("pump", "metered", "LS", "VA", "VB"), rtol=1e-6)
    assert np.ptp(slow["element/hyd/ls_pump.displacement_fraction"]) > 0.05  # the pump regulated


def test_closed_loop_position_control():
    fast, slow = both_paths(control_circuit, 1.0)
    assert_same_solution(fast, slow, ("P", "VA", "VB"))
    stroke = np.asarray(slow["element/hyd/cyl.position"])
    assert abs(stroke[-1] - 0.09) < 5e-3  # the loop took the stroke to the set-point (0.05 + 0.04 m)


SLIDER_STIFFNESS, SUPPLY, PLUNGER = 2e5, 50e5, 1e-3  # N/m, Pa, m^2


def slider(length: str, moving_rail: bool = False):
    """A 20 kg slider on a prismatic joint along z, pushed by a single-acting cylinder (plunger 1e-3 m^2) from a
    50 bar source through an orifice against a spring (2e5 N/m, free at the start, 2e3 N s/m). The cylinder reads
    the joint's translation (``length="translation"``: ``JointCoordinate``) or, the same length on the ground rail
    at the origin, the distance of the joint's markers (``"distance"``) or the carriage's z coordinate
    (``"marker"``: ``MarkerCoordinate``). With ``moving_rail`` the rail is a 30 kg body sliding along z on the
    ground (the spring and the cylinder act between the two bodies)."""
    model = fm.Model("slider", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("slider", mass=20.0, inertia=(0.1, 0.1, 0.1), position=(0.0, 0.0, 0.5))
    rail = model.add_marker(model.ground, "rail")
    if moving_rail:
        base = model.add_rigid_body("base", mass=30.0, inertia=(0.2, 0.2, 0.2))
        model.add_joint("prismatic", rail, model.add_marker(base, "base.guide"), name="guide")
        rail = model.add_marker(base, "base.rail")
    carriage = model.add_marker(body, "carriage")
    joint = model.add_joint("prismatic", rail, carriage, name="rail")
    model.add_force(fm.SpringDamper(rail, carriage, stiffness=SLIDER_STIFFNESS, damping=2e3, free_length=0.5))
    c = hy.Circuit("hyd", OIL)
    c.add(hy.PressureSource("P", SUPPLY))
    c.add(hy.Volume("VA", 1e-5, initial_pressure=0.0))
    c.add(hy.Orifice("inlet", 2e-6), A="P", B="VA")
    length = {"translation": lambda: fm.JointCoordinate(joint), "distance": lambda: fm.Distance(rail, carriage),
              "marker": lambda: fm.MarkerCoordinate(carriage, "z")}[length]()
    c.add(hy.Cylinder("cyl", PLUNGER, 0.0, 0.3, measurement=length, retracted_length=0.4, single_acting=True,
                      dead_volume_a=1e-5), A="VA")
    model.add_element(c)
    return model


@pytest.mark.parametrize("moving_rail", [False, True])
def test_cylinder_on_a_prismatic_joint_translation(moving_rail):
    """The compiled step's joint translation (``z_iᵀ (x_j - x_i)``, its rate and its force on both bodies) against
    the Python path's ``JointCoordinate`` (and, on the ground rail, a distance and a marker coordinate of the same
    length, the marker coordinate on both engines):
    position, velocity and pressure histories agree to 1e-6 of their range (ten times ``rtol``; measured 1e-8 to
    9e-8), and the slider settles where the spring holds the supply pressure on the plunger, ``0.5 m + p_s A / k``
    (to 1e-6 of the 25 mm travel). On the moving rail the momentum along z stays zero (1e-6 of the slider's, measured
    1e-14: the plunger and the spring push both bodies)."""
    runs = {}
    cases = [("python", "translation", "python"), ("compiled", "translation", "compiled")]
    if not moving_rail:  # the same length measured two other ways; the marker coordinate on both engines
        cases += [("distance", "distance", "compiled"), ("marker", "marker", "compiled"),
                  ("marker on the Python path", "marker", "python")]
    for name, length, engine in cases:
        model = slider(length, moving_rail)
        runs[name] = res = fm.simulate(as_callbacks(model) if engine == "python" else model, 1.0, rtol=1e-7,
                                       atol=1e-9, output_interval=0.01)
        assert res.success, res.message
        assert res.statistics["engine"] == "compiled", res.statistics["engine"]
    travel = SUPPLY * PLUNGER / SLIDER_STIFFNESS
    for name, res in runs.items():
        assert res["element/hyd/cyl.position"][-1] == pytest.approx(0.1 + travel, abs=1e-6 * travel), name
        if moving_rail:
            momentum = 20.0 * res["body/slider/velocity"][:, 2] + 30.0 * res["body/base/velocity"][:, 2]
            assert np.max(np.abs(momentum)) < 1e-6 * np.max(np.abs(20.0 * res["body/slider/velocity"][:, 2]))
    reference = runs["python"]
    for name in runs.keys() - {"python"}:
        for key in ("cyl.position", "cyl.velocity", "VA.pressure"):
            a, b = reference[f"element/hyd/{key}"], runs[name][f"element/hyd/{key}"]
            assert np.max(np.abs(a - b)) <= 1e-6 * np.ptp(a), (name, key)


@pytest.mark.parametrize("length", ["distance", "marker"])
def test_compiled_length_measurements_are_their_closed_forms(length):
    """The compiled measurements a circuit reads (``flexmbs.engine.step.measurements``: a ``Distance``, a
    ``MarkerCoordinate``) at every sample of the slider pushed out by its cylinder, against closed forms of the
    recorded marker positions and body velocity: the distance is the Euclidean norm of the markers' position
    difference (to 1e-12 of it: round-off), the marker coordinate the carriage's z (bitwise), and the cylinder's
    velocity, the measurement's rate, the slider's velocity along z (1e-9 of its largest: the rail and the
    measurement lie on z)."""
    res = fm.simulate(slider(length), 0.2, rtol=1e-7, atol=1e-9, output_interval=0.01)
    assert res.success, res.message
    name = {"distance": "distance(rail,carriage)", "marker": "z(carriage)"}[length]
    measured = res[f"element/hyd/y/{name}"]
    carriage, rail = res["marker/carriage/position"], res["marker/rail/position"]
    assert np.ptp(measured) > 0.01  # the slider moved
    if length == "distance":
        np.testing.assert_allclose(measured, np.linalg.norm(carriage - rail, axis=1), rtol=1e-12, atol=0.0)
    else:
        np.testing.assert_array_equal(measured, carriage[:, 2])
    speed = res["body/slider/velocity"][:, 2]
    np.testing.assert_allclose(res["element/hyd/cyl.velocity"], speed, rtol=0.0, atol=1e-9 * np.abs(speed).max())
