"""Issue #32 components: the circuit's Jacobian against central differences, and their outputs.

Reference: central finite differences of the same rates/forces (tolerance as test_hydraulics_circuit_protocol.py:
rtol 1e-4, atol 1e-5 of the block's largest entry).
"""
import numpy as np

import hydraulics as h
from hydraulics_checks import finite_difference_jacobian


class _Measurement:
    """Stand-in for a flexmbs measurement."""

    unit = "m"


def components_circuit():
    """Every new component, each within its regulating range at the evaluation points below."""
    c = h.Circuit("new_parts")
    c.add(h.Tank("T"))
    c.add(h.PressureSource("S", 150e5))
    for name, p in (("P", 120e5), ("LS", 80e5), ("C", 95e5), ("A", 80e5), ("B", 20e5), ("M", 60e5), ("R", 39e5),
                    ("X", 30e5), ("Q", 50e5)):
        c.add(h.Volume(name, 1e-4, initial_pressure=p))
    c.add(h.VariableDisplacementPump("pump", 2e-5, 25.0, 250e5, margin_pressure=20e5, regulation_band=5e5,
                                     initial_fraction=0.4), S="T", P="P", LS="LS")
    c.add(h.ShuttleValve("shuttle", 1e-6, switching_range=100e5), A="A", B="B", C="LS")
    c.add(h.PressureCompensator("comp", 1e-4, 15e5, opening_range=10e5, time_constant=5e-3), P="P", A="C", X="A")
    cmd = h.Hysteresis("hyst", h.NormalisedCommand("u", lambda t: 4.0 + t, h.VOLTAGE_10V), 0.02)
    ds = h.ValveDatasheet(40 / 60000, 10e5, per_edge=False, dead_band=0.05, frequency_90deg=40.0)
    c.add(h.valve_from_datasheet("dcv", ds, lambda t: 6.0 + t), P="C", A="A", B="B", T="T")
    c.add(h.three_way_valve("v32", 2e-6, cmd), P="S", A="X", T="T")
    cyl = h.Cylinder("cyl", 3e-3, 1.5e-3, 0.5, measurement=_Measurement(),
                     friction=h.StribeckFriction(300.0, 500.0, 0.01, 2e3, 1e-3))
    c.add(cyl, A="A", B="B")
    motor = h.HydraulicMotor.from_datasheet("motor", 50e-6, 25.0, 200e5, 0.95, 0.92)
    c.add(motor, A="M", B="T")
    c.add(h.CounterbalanceValve("cbv", 1e-5, 200e5, 4.0, time_constant=4e-3), L="A", V="Q", X="B")
    c.add(h.PressureReducingValve("prv", 1e-5, 40e5, opening_range=5e5), P="S", A="R", T="T")
    c.add(h.PilotOperatedCheckValve("pocv", 1e-5, 5.0, opening_range=40e5), A="X", B="Q", X="B")
    c.add(h.GasAccumulator("acc", 4e-3, 30e5, 1.4, port_area=1e-5, initial_pressure=50e5), P="Q")
    c.add(h.Orifice("load", 1e-6), A="R", B="T")
    c.add(h.Orifice("feed", 1e-6), A="S", B="M")
    return c, cyl, motor


def test_new_components_analytic_jacobian_matches_central_differences():
    c, cyl, motor = components_circuit()
    c.finalize()
    rng = np.random.default_rng(7)
    z0 = c.initial_state()
    units = c.state_units
    for _ in range(6):
        z = z0 * (1.0 + 0.05 * rng.standard_normal(z0.size))
        z += np.array([rng.uniform(0.0, 0.3) if u == "1" else 0.0 for u in units])
        y = np.array([0.2, 1.0])
        ydot = np.array([rng.uniform(-0.2, 0.2), rng.uniform(-20.0, 20.0)])
        analytic = c.jacobians(0.3, z, y, ydot)
        numeric = finite_difference_jacobian(c, 0.3, z, y, ydot, step=1e-8)  # oil volumes ~1e-3 m^3: small step
        for key, value in analytic.items():
            scale = max(1.0, np.abs(numeric[key]).max())
            assert np.allclose(value, numeric[key], rtol=1e-4, atol=1e-5 * scale), key


def test_every_new_component_reports_its_outputs_with_units():
    c, _, _ = components_circuit()
    out = c.outputs(0.0, c.initial_state(), np.array([0.2, 0.0]), np.array([0.0, 0.0]))
    assert set(out) == set(c.output_units)
    for key in ("acc.gas_pressure", "motor.torque", "pump.displacement_fraction", "cbv.opening", "comp.opening",
                "prv.flow", "pocv.flow", "shuttle.flow_AC", "hyst.value"):
        assert key in out
