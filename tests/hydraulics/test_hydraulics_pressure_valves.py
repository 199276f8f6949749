"""Counterbalance, pressure-reducing, compensator, pilot-operated check and shuttle valves against their defining
balances.

References (independent of the component code): the poppet/spool force balance each valve is built for
(a counterbalance valve opens at ``p_L + psi p_X = p_crack``; a pilot-operated check valve reverses at
``psi (p_X - p_A) = p_B - p_A + p_crack``; a reducing valve and a compensator regulate within their band), and the
orifice law ``Q = C_d A sqrt(2 dp / rho)`` for a fully open edge.
"""
import math

import numpy as np
import pytest

import hydraulics as h

RHO = h.HLP46.density


def flows_at(component, pressures, **ports):
    """Outputs of one component between pressure sources (``pressures``: node -> Pa)."""
    c = h.Circuit("bench")
    for node, p in pressures.items():
        c.add(h.PressureSource(node, p))
    c.add(component, **ports)
    return c.outputs(0.0, c.initial_state(), np.zeros(0), np.zeros(0))


def full_flow(area, dp):
    return 0.7 * area * math.sqrt(2.0 * dp / RHO)


def test_counterbalance_holds_until_load_plus_pilot_reach_the_setting():
    """Setting 200 bar, pilot ratio 4, load 150 bar, outlet at tank: the pilot opening pressure is
    (200 - 150)/4 = 12.5 bar. Just below it no flow (exactly 0, tight poppet); beyond it plus the opening range / psi
    the relief stage is fully open (orifice law, 1e-12 relative); without pilot it relieves above 200 bar."""
    def flow(p_load, p_pilot):
        valve = h.CounterbalanceValve("cbv", 1e-5, 200e5, 4.0, opening_range=10e5)
        return flows_at(valve, {"L": p_load, "V": 0.0, "X": p_pilot}, L="L", V="V", X="X")["cbv.flow"]

    assert flow(150e5, 12.5e5 - 0.01e5) == 0.0
    assert flow(150e5, 12.5e5 + 10e5 / 4 + 0.01e5) == pytest.approx(full_flow(1e-5, 150e5), rel=1e-12)
    assert flow(199.9e5, 0.0) == 0.0
    assert flow(210.1e5, 0.0) == pytest.approx(full_flow(1e-5, 210.1e5), rel=1e-12)


def test_counterbalance_lets_the_lifting_flow_through_its_check_stage():
    valve = h.CounterbalanceValve("cbv", 1e-5, 200e5, 4.0, check_area=2e-5, check_cracking=0.5e5)
    out = flows_at(valve, {"L": 50e5, "V": 80e5, "X": 0.0}, L="L", V="V", X="X")
    assert out["cbv.flow"] == pytest.approx(-full_flow(2e-5, 30e5), rel=1e-12)


def test_pilot_operated_check_valve_blocks_reverse_flow_until_piloted():
    """psi = 5, cracking 0.5 bar, range 2 bar; load side B at 100 bar, A at 0: the pilot opens it at
    p_X = (100 + 0.5)/5 = 20.1 bar (fully at 20.5 bar). Forward A -> B is free above the cracking pressure."""
    def flow(p_a, p_b, p_x):
        valve = h.PilotOperatedCheckValve("pocv", 1e-5, 5.0, cracking_pressure=0.5e5, opening_range=2e5)
        return flows_at(valve, {"A": p_a, "B": p_b, "X": p_x}, A="A", B="B", X="X")["pocv.flow"]

    assert flow(0.0, 100e5, 20.09e5) == 0.0
    assert flow(0.0, 100e5, 20.51e5) == pytest.approx(-full_flow(1e-5, 100e5), rel=1e-12)
    assert flow(0.0, 100e5, 0.0) == 0.0
    assert flow(60e5, 50e5, 0.0) == pytest.approx(full_flow(1e-5, 10e5), rel=1e-12)


@pytest.mark.parametrize("load_area", [2e-7, 6e-7, 1.5e-6])
def test_pressure_reducing_valve_keeps_the_outlet_within_its_band(load_area):
    """Inlet 150 bar, setting 40 bar, band 5 bar; outlet node drained through a load orifice: the settled outlet
    pressure lies in [35, 40] bar for small to large loads."""
    c = h.Circuit("prv")
    c.add(h.PressureSource("S", 150e5))
    c.add(h.Tank("T"))
    c.add(h.Volume("R", 1e-5))
    c.add(h.PressureReducingValve("prv", 1e-5, 40e5, opening_range=5e5), P="S", A="R", T="T")
    c.add(h.Orifice("load", load_area), A="R", B="T")
    p = h.simulate_circuit(c, t_end=1.0).outputs["R.pressure"][-1]
    assert 35e5 <= p <= 40e5


@pytest.mark.parametrize("supply, outlet", [(60e5, 20e5), (120e5, 20e5), (200e5, 20e5), (200e5, 150e5)])
def test_flow_control_valve_delivers_its_set_flow_whatever_the_pressures(supply, outlet):
    """2-way flow control (compensator 10 bar, band 1 bar, 10 L/min): the metering drop stays in [9, 10] bar, so the
    flow lies in [sqrt(0.9), 1] x 10 L/min for any supply and outlet pressure with enough headroom."""
    q_set = 10 / 60000
    c = h.Circuit("fcv")
    c.add(h.PressureSource("S", supply))
    c.add(h.PressureSource("O", outlet))
    h.add_flow_control_valve(c, "fcv", "S", "O", q_set, 10e5, compensator_area=2e-5)
    res = h.simulate_circuit(c, t_end=0.5)
    q = res.outputs["fcv.orifice.flow"][-1]
    assert math.sqrt(0.9) * q_set * (1 - 1e-9) <= q <= q_set * (1 + 1e-9)


def test_shuttle_valve_passes_the_higher_pressure():
    """A dead-ended load-sensing node behind a shuttle settles at max(p_A, p_B) (1 Pa), either way round."""
    for p_a, p_b in ((80e5, 30e5), (30e5, 120e5)):
        c = h.Circuit("shuttle")
        c.add(h.PressureSource("A", p_a))
        c.add(h.PressureSource("B", p_b))
        c.add(h.Volume("LS", 1e-6, initial_pressure=50e5))
        c.add(h.ShuttleValve("sv", 1e-6), A="A", B="B", C="LS")
        res = h.simulate_circuit(c, t_end=1.0, rtol=1e-9)
        assert res.outputs["LS.pressure"][-1] == pytest.approx(max(p_a, p_b), abs=1.0)


def test_pressure_valves_from_datasheet_numbers():
    """Counterbalance valve rated 60 L/min at 20 bar (fully open), response 30 ms: fully piloted it passes 60 L/min
    at 20 bar (1e-12) and its opening lag is tau = 0.03 / ln 20; a compensator sized the same way likewise."""
    q_nom = 60 / 60000
    cbv = h.CounterbalanceValve.from_datasheet("cbv", q_nom, 20e5, 200e5, 4.0, response_time=0.03)
    assert cbv.time_constant == pytest.approx(0.03 / math.log(20.0), rel=1e-12)
    static = h.CounterbalanceValve.from_datasheet("cbv", q_nom, 20e5, 200e5, 4.0)
    out = flows_at(static, {"L": 20e5, "V": 0.0, "X": 100e5}, L="L", V="V", X="X")
    assert out["cbv.flow"] == pytest.approx(q_nom, rel=1e-12)
    comp = h.PressureCompensator.from_datasheet("comp", q_nom, 20e5, 10e5)
    out = flows_at(comp, {"P": 20e5, "A": 0.0, "X": 0.0}, P="P", A="A", X="X")
    assert out["comp.flow"] == pytest.approx(q_nom, rel=1e-12)
