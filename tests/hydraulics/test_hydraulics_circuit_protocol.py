"""The circuit as a state element: analytic Jacobian, protocol attributes, model errors, standalone run."""
import math

import numpy as np
import pytest

import hydraulics as h
from fem.errors import ModelError

from hydraulics_checks import finite_difference_jacobian


def rich_circuit():
    """Every component kind in one circuit (valve with PT2 spool, PID on a stroke sensor, pipe, cushion, ...)."""
    c = h.Circuit("rich", fluid=h.HLP46.with_air(0.01))
    c.add(h.Tank("T"))
    c.add(h.Volume("S", 2e-4, wall_bulk_modulus=1e9, initial_pressure=150e5))
    c.add(h.Volume("A", 1e-4, initial_pressure=40e5))
    c.add(h.Volume("A_line", 5e-5, initial_pressure=60e5))
    c.add(h.Volume("B", 1e-4, initial_pressure=20e5))
    c.add(h.Volume("M", 1e-5, initial_pressure=30e5))
    pump = h.FixedDisplacementPump.from_flow("pump", 1e-3, relief_pressure=160e5, relief_gain=1e-8,
                                             leakage_conductance=1e-12)
    c.add(pump, S="T", P="S")
    cyl = h.Cylinder("cyl", 2e-3, 1.2e-3, 0.5, dead_volume_a=2e-5, dead_volume_b=2e-5,
                     friction=h.BrownMcPheeFriction(210, 830, 0.01, 330), wall_bulk_modulus=5e10)
    c.add(cyl, A="A", B="B")
    stroke = h.MeasurementSensor("x", cyl.measurement, unit="m")
    pid = h.PID("pid", setpoint=0.3, measurement=stroke, gain=8.0, integral_time=0.5, derivative_time=0.02,
                filter_time=0.01, output_limits=(-1, 1))
    c.add(h.closed_centre_valve("dcv", 5e-5, pid, h.SecondOrderSpool(150.0, 0.8), overlap=0.05),
          P="S", T="T", A="A_line", B="B")
    c.add(h.Cushion("cushion", cyl, [0.0, 0.02, 0.45, 0.5], [1e-6, 2e-5, 2e-5, 1e-6], bypass_area=1e-5),
          chamber="A", line="M")
    h.add_line(c, "hose", "M", "A_line", length=2.0, diameter=0.01, segments=2, wall_bulk_modulus=8e8)
    c.add(h.ReliefValve("prv", 120e5, 1e-9, time_constant=0.005), P="A", T="T")
    c.add(h.CheckValve("anti_cav", 1e-5, cracking_pressure=0.3e5), A="T", B="B")
    c.add(h.Throttle("bleed", 1e-8), A="B", B="T")
    return c, cyl


def test_analytic_jacobian_matches_finite_differences():
    c, cyl = rich_circuit()
    z = c.initial_state()
    rng = np.random.default_rng(1)
    z = z + rng.normal(0, 1, z.size) * np.where(np.array(c.state_units) == "Pa", 3e5, 1e-3)
    z[c.state_names.index("hose[0].flow")] = 2e-4
    z[c.state_names.index("dcv.spool")] = 0.4
    for y, ydot in ((0.47, 0.03), (0.2, -0.005), (0.51, 0.2)):
        y, ydot = np.array([y]), np.array([ydot])
        analytic = c.jacobians(0.1, z, y, ydot)
        numeric = finite_difference_jacobian(c, 0.1, z, y, ydot)
        for key, value in analytic.items():
            scale = np.abs(numeric[key]).max() + 1e-300
            assert np.allclose(value, numeric[key], rtol=1e-4, atol=1e-5 * scale), key


def test_protocol_attributes_are_consistent():
    c, cyl = rich_circuit()
    n_z = len(c.state_names)
    assert len(c.state_units) == n_z == c.initial_state().size
    assert c.measurements == [cyl.measurement]
    out = c.outputs(0.0, c.initial_state(), np.array([0.2]), np.array([0.0]))
    assert set(out) == set(c.output_units)
    assert c.output_units["A.pressure"] == "Pa"


def test_unconnected_port_is_reported():
    c = h.Circuit("bad")
    c.add(h.Tank("T"))
    c.add(h.Volume("V", 1e-4))
    c.add(h.Orifice("o", 1e-6), A="V")
    with pytest.raises(ModelError, match=r"port 'o.B' is not connected"):
        c.finalize()


def test_volume_without_compliance_is_reported():
    c = h.Circuit("bad")
    c.add(h.Tank("T"))
    c.add(h.Volume("V"))
    c.add(h.Orifice("o", 1e-6), A="V", B="T")
    with pytest.raises(ModelError, match="no compliance"):
        c.finalize()


def test_negative_area_is_reported():
    with pytest.raises(ModelError, match="piston_area must be positive"):
        h.Cylinder("c", -1e-3, 1e-3, 0.5)
    with pytest.raises(ModelError, match="area must not be negative"):
        h.Orifice("o", -1e-6)
    with pytest.raises(ModelError, match="rod_side_area"):
        h.Cylinder("c", 1e-3, -1e-4, 0.5)


def test_unknown_node_and_port_are_reported():
    c = h.Circuit("bad")
    c.add(h.Orifice("o", 1e-6))
    with pytest.raises(ModelError, match="no port 'C'"):
        c.connect("o.C", "X")
    c.connect("o.A", "nowhere")
    c.connect("o.B", "nowhere")
    with pytest.raises(ModelError, match="no node named 'nowhere'"):
        c.finalize()


def test_algebraic_loop_between_signals_is_reported():
    c = h.Circuit("loop")
    c.add(h.Tank("T"))
    total = h.Sum("total", [1.0])
    table = h.LookupTable("table", total, [0.0, 1.0], [0.0, 2.0])
    total.terms.append(table)
    total.weights.append(1.0)
    c.add(total)
    with pytest.raises(ModelError, match="algebraic loop"):
        c.finalize()


def test_cylinder_without_measurement_cannot_join_a_multibody_model():
    cyl = h.Cylinder("cyl", 1e-3, 5e-4, 0.5)
    with pytest.raises(ModelError, match="measurement=flexmbs.Distance"):
        cyl.measurement.markers()


def test_circuit_alone_with_prescribed_retraction_matches_orifice_law():
    """Cylinder pushed in at constant speed, rod-side open: the bore side drains through an orifice.

    Steady state: A_A v = C_d A_o sqrt(2 p / rho)  =>  p = rho/2 (A_A v / (C_d A_o))^2 (seed 003 eq. (2-217)).
    """
    fluid = h.HLP46
    c = h.Circuit("alone", fluid)
    c.add(h.Tank("T"))
    c.add(h.Volume("A", 1e-5))
    cyl = h.Cylinder("cyl", 1e-3, 5e-4, 0.5, dead_volume_a=1e-5, single_acting=True)
    c.add(cyl, A="A")
    c.add(h.Orifice("o", 2e-6, discharge_coefficient=0.7), A="A", B="T")
    speed = 0.05
    result = h.simulate_circuit(c, lambda t: 0.4 - speed * t, lambda t: -speed, t_end=0.5)
    expected = fluid.density / 2 * (1e-3 * speed / (0.7 * 2e-6)) ** 2
    assert result.success
    assert result.outputs["A.pressure"][-1] == pytest.approx(expected, rel=1e-5)
    assert result.outputs["cyl.force"][-1] == pytest.approx(expected * 1e-3, rel=1e-5)


@pytest.mark.parametrize("p_a, p_b", [(-0.99e5, 0.0), (0.3e5, 0.0), (0.6e5, 0.1e5), (1.5e5, 0.2e5),
                                      (50e5, 1e5), (121e5, 0.0), (2e5, 160e5)])
def test_jacobian_across_regimes_of_every_flow_law(p_a, p_b):
    """Analytic vs finite-difference Jacobian at pressures that put each law in another regime: cavitation floor,
    laminar/turbulent orifice and pipe, check valve opening, relief corner."""
    c = h.Circuit("regimes")
    c.add(h.Volume("A", 1e-4, initial_pressure=p_a))
    c.add(h.Volume("B", 1e-4, initial_pressure=p_b))
    c.add(h.Orifice("o", 1e-6), A="A", B="B")
    c.add(h.CheckValve("cv", 1e-6, cracking_pressure=0.5e5, opening_pressure_range=0.5e5), A="A", B="B")
    c.add(h.ReliefValve("prv", 120e5, 1e-9, width=2e5), P="A", T="B")
    c.add(h.Pipe("pipe", 1.0, 0.004), A="A", B="B")
    z = c.initial_state()
    for q in (1e-6, 2e-5, 1e-4, 2e-4):  # with the factors below: Re 7 to 6900 (laminar, blend, Blasius)
        for scale in (1.0, 5.0):
            z[c.state_names.index("pipe.flow")] = q * scale * (1 if p_a >= p_b else -1)
            analytic = c.jacobians(0.0, z, np.zeros(0), np.zeros(0))["rates_z"]
            numeric = finite_difference_jacobian(c, 0.0, z, np.zeros(0), np.zeros(0), step=1e-7)["rates_z"]
            assert np.allclose(analytic, numeric, rtol=2e-4, atol=1e-6 * np.abs(numeric).max())


def test_pipe_loss_derivative_through_the_laminar_turbulent_blend():
    pipe = h.Pipe("p", 2.0, 0.01)
    pipe.fluid = h.HLP46
    area = math.pi * 0.01**2 / 4
    for reynolds in (100.0, 2299.0, 2500.0, 3200.0, 3999.0, 8000.0):
        q = reynolds * area * h.HLP46.kinematic_viscosity / 0.01
        for flow in (q, -q):
            dq = 1e-7 * q
            fd = (pipe.pressure_loss(flow + dq)[0] - pipe.pressure_loss(flow - dq)[0]) / (2 * dq)
            assert pipe.pressure_loss(flow)[1] == pytest.approx(fd, rel=1e-5)
