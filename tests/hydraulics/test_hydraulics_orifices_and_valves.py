"""Orifice law, throttle, check and relief valves, directional valves and spool dynamics."""
import math

import numpy as np
import pytest

import hydraulics as h
from hydraulics_checks import finite_difference_jacobian

RHO = h.HLP46.density


def test_orifice_is_the_exact_square_root_law_above_the_transition():
    """Q = C_d A sqrt(2 dp / rho) (seed 002 eq. (5), seed 003 eq. (2-217)) for |dp| >> dp_lim."""
    cd, area = 0.65, 3e-6
    gamma = h.flow_coefficient(area, cd, RHO)
    for dp in (2.5e5, 10e5, 150e5):
        q = h.orifice_flow(dp, gamma)[0]
        assert q == pytest.approx(cd * area * math.sqrt(2 * dp / RHO), rel=1e-14)


def test_orifice_transition_is_continuous_in_value_and_slope_and_odd():
    gamma, lim = 1e-7, 2e5
    below, above = h.orifice_flow(lim * (1 - 1e-12), gamma), h.orifice_flow(lim, gamma)
    assert below[0] == pytest.approx(above[0], rel=1e-10)
    assert below[1] == pytest.approx(above[1], rel=1e-10)  # slope gamma / (2 sqrt(dp_lim)) both sides
    assert above[1] == pytest.approx(gamma / (2 * math.sqrt(lim)), rel=1e-14)
    for dp in (1e2, 5e4, 1.99e5, 3e5, 1e7):
        plus, minus = h.orifice_flow(dp, gamma), h.orifice_flow(-dp, gamma)
        assert minus[0] == -plus[0]
        assert minus[1] == plus[1]
        assert plus[1] > 0.0
        eps = dp * 1e-6
        fd = (h.orifice_flow(dp + eps, gamma)[0] - h.orifice_flow(dp - eps, gamma)[0]) / (2 * eps)
        assert plus[1] == pytest.approx(fd, rel=1e-6)


def test_linear_transition_is_seed002_eq6():
    """gamma_1 = gamma_2 sqrt(dp_lim) / dp_lim in the laminar range (seed 002 eq. (6))."""
    gamma, lim = 2e-7, 2e5
    q = h.orifice_flow(0.5e5, gamma, lim, transition="linear")[0]
    assert q == pytest.approx(gamma * math.sqrt(lim) / lim * 0.5e5, rel=1e-14)
    assert h.orifice_flow(3e5, gamma, lim, transition="linear")[0] == pytest.approx(gamma * math.sqrt(3e5))


def two_sources(p_a, p_b):
    c = h.Circuit("pair")
    c.add(h.PressureSource("A", p_a))
    c.add(h.PressureSource("B", p_b))
    return c


def test_throttle_flow_coefficient_and_orifice_agree():
    c = two_sources(50e5, 10e5)
    cv = h.flow_coefficient(2e-6, 0.7, RHO)
    c.add(h.Throttle("thr", cv), A="A", B="B")
    c.add(h.Orifice("ori", 2e-6, 0.7), A="A", B="B")
    out = c.outputs(0.0, c.initial_state(), np.zeros(0), np.zeros(0))
    assert out["thr.flow"] == pytest.approx(cv * math.sqrt(40e5), rel=1e-14)
    assert out["ori.flow"] == pytest.approx(out["thr.flow"], rel=1e-14)
    assert out["A.flow"] == pytest.approx(2 * out["thr.flow"], rel=1e-14)
    assert out["ori.power_loss"] == pytest.approx(40e5 * out["ori.flow"], rel=1e-14)


def test_check_valve_blocks_reverse_flow_and_opens_fully():
    area, crack, span = 1e-5, 0.5e5, 1e5
    forward, reverse = two_sources(20e5, 0.0), two_sources(0.0, 20e5)
    for c in (forward, reverse):
        c.add(h.CheckValve("cv", area, cracking_pressure=crack, opening_pressure_range=span), A="A", B="B")
    q_fwd = forward.outputs(0.0, [], [], [])["cv.flow"]
    q_rev = reverse.outputs(0.0, [], [], [])["cv.flow"]
    assert q_rev == 0.0
    assert q_fwd == pytest.approx(0.7 * area * math.sqrt(2 * 20e5 / RHO), rel=1e-12)


@pytest.mark.parametrize("time_constant", [None, 0.002])
def test_relief_valve_holds_cracking_pressure_plus_flow_over_gain(time_constant):
    """Steady pressure p = p_cr + q / k_v for a given pump flow q (seed 001 eq. (43))."""
    p_cr, k_v, q = 150e5, 2e-9, 1e-3 / 60 * 30  # 30 l/min
    c = h.Circuit("relief")
    c.add(h.Tank("T"))
    c.add(h.Volume("V", 5e-4, initial_pressure=100e5))
    c.add(h.FixedDisplacementPump.from_flow("pump", q), S="T", P="V")
    c.add(h.ReliefValve("prv", p_cr, k_v, time_constant=time_constant), P="V", T="T")
    result = h.simulate_circuit(c, t_end=1.0)
    assert result.outputs["V.pressure"][-1] == pytest.approx(p_cr + q / k_v, rel=1e-6)
    assert result.outputs["prv.flow"][-1] == pytest.approx(q, rel=1e-6)


def test_pump_builtin_relief_matches_seed001_eq43():
    p_cr, k_v, q = 100e5, 1e-9, 5e-4
    c = h.Circuit("pump")
    c.add(h.Tank("T"))
    c.add(h.Volume("V", 1e-4))
    c.add(h.FixedDisplacementPump.from_flow("pump", q, relief_pressure=p_cr, relief_gain=k_v), S="T", P="V")
    result = h.simulate_circuit(c, t_end=0.5)
    assert result.outputs["V.pressure"][-1] == pytest.approx(p_cr + q / k_v, rel=1e-6)


def valve_bench(valve, p_supply=100e5):
    """Valve between a supply, a tank and two fixed-pressure consumer ports (A at 40 bar, B at 30 bar)."""
    c = h.Circuit("bench")
    c.add(h.PressureSource("P", p_supply))
    c.add(h.Tank("T"))
    c.add(h.PressureSource("A", 40e5))
    c.add(h.PressureSource("B", 30e5))
    c.add(valve, P="P", T="T", A="A", B="B")
    return c


def path_flows(valve, command):
    c = valve_bench(valve(command))
    return {k.split(".", 1)[1]: v for k, v in c.outputs(0.0, [], [], []).items() if k.startswith("dcv.flow")}


def test_closed_centre_valve_connections():
    def make(u):
        return h.closed_centre_valve("dcv", 1e-5, u, overlap=0.1)

    centre = path_flows(make, 0.05)
    assert all(v == 0.0 for v in centre.values())
    ext = path_flows(make, 1.0)
    full = 0.7 * 1e-5 * math.sqrt(2 / RHO)
    assert ext["flow_PA"] == pytest.approx(full * math.sqrt(60e5), rel=1e-12)
    assert ext["flow_BT"] == pytest.approx(full * math.sqrt(30e5), rel=1e-12)
    assert ext["flow_PB"] == ext["flow_AT"] == 0.0
    half = path_flows(make, -0.55)  # halfway between overlap 0.1 and full opening
    assert half["flow_PB"] == pytest.approx(0.5 * full * math.sqrt(70e5), rel=1e-12)
    assert half["flow_AT"] == pytest.approx(0.5 * full * math.sqrt(40e5), rel=1e-12)


def test_open_and_tandem_centres_connect_to_tank_in_neutral():
    open_c = path_flows(lambda u: h.open_centre_valve("dcv", 1e-5, u), 0.0)
    assert open_c["flow_PT"] > 0 and open_c["flow_AT"] > 0 and open_c["flow_BT"] > 0
    assert open_c["flow_PA"] == open_c["flow_PB"] == 0.0
    tandem = path_flows(lambda u: h.tandem_centre_valve("dcv", 1e-5, u), 0.0)
    assert tandem["flow_PT"] > 0
    assert tandem["flow_AT"] == tandem["flow_BT"] == tandem["flow_PA"] == tandem["flow_PB"] == 0.0


def test_regenerative_spool_of_seed003():
    """Fig. 3-7: centre A, B -> T; one side P -> B and A -> T; the other side A and B both on P."""
    def make(u):
        return h.regenerative_valve("dcv", 1e-5, u)

    centre = path_flows(make, 0.0)
    assert centre["flow_AT"] > 0 and centre["flow_BT"] > 0 and centre["flow_PA"] == 0 and centre["flow_PB"] == 0
    right = path_flows(make, 1.0)
    assert right["flow_PB"] > 0 and right["flow_AT"] > 0 and right["flow_PA"] == 0
    left = path_flows(make, -1.0)
    # A and B are both connected to P: B (30 bar) receives from P (100 bar) through B->P as a negative flow.
    assert left["flow_PA"] > 0 and left["flow_BP"] < 0 and left["flow_AT"] == 0 and left["flow_BT"] == 0


def test_proportional_valve_reproduces_its_catalogue_point():
    """Seed 003 eq. (4-3): area from Q_nom at dp_nom per edge; at that dp the flow is Q_nom times the command."""
    q_nom, dp_nom = 100e-3 / 60, 5e5
    c = h.Circuit("prop")
    c.add(h.PressureSource("P", dp_nom))
    c.add(h.Tank("T"))
    c.add(h.PressureSource("A", 0.0))
    c.add(h.PressureSource("B", dp_nom))
    c.add(h.proportional_valve("dcv", q_nom, dp_nom, RHO, 0.6), P="P", T="T", A="A", B="B")
    out = c.outputs(0.0, [], [], [])
    assert out["dcv.flow_PA"] == pytest.approx(0.6 * q_nom, rel=1e-12)
    assert out["dcv.flow_BT"] == pytest.approx(0.6 * q_nom, rel=1e-12)


def test_first_order_spool_step_response():
    """U(t) = 1 - exp(-t/tau) (seed 002 eq. (4)); 90 ms to 95 % gives tau = 30 ms (seed 003 §3.2.2.1)."""
    spool = h.FirstOrderSpool.from_response_time(0.09)
    assert spool.time_constant == pytest.approx(0.09 / math.log(20.0))
    c = valve_bench(h.closed_centre_valve("dcv", 1e-5, 1.0, spool))
    t = np.array([0.0, 0.01, 0.03, 0.09])
    result = h.simulate_circuit(c, t_end=0.09, t_eval=t)
    assert np.allclose(result.outputs["dcv.spool"], 1 - np.exp(-t / spool.time_constant), atol=1e-6)


def test_second_order_spool_overshoot_and_frequency():
    """PT2 step (seed 003 §4.2.2): overshoot exp(-zeta pi / sqrt(1 - zeta^2)) at t = pi / w_d."""
    w, zeta = 100.0, 0.3
    c = valve_bench(h.closed_centre_valve("dcv", 1e-5, 0.5, h.SecondOrderSpool(w, zeta)))
    wd = w * math.sqrt(1 - zeta**2)
    t_peak = math.pi / wd
    result = h.simulate_circuit(c, t_end=t_peak, t_eval=[t_peak], rtol=1e-9)
    overshoot = math.exp(-zeta * math.pi / math.sqrt(1 - zeta**2))
    assert result.outputs["dcv.spool"][-1] == pytest.approx(0.5 * (1 + overshoot), rel=1e-5)


def test_valve_jacobians_with_table_spools_and_signals():
    c = h.Circuit("valves")
    c.add(h.PressureSource("P", lambda t: 100e5 + 1e5 * t))
    c.add(h.Tank("T"))
    for name, p in (("A", 40e5), ("B", 30e5), ("C", 20e5), ("D", 50e5)):
        c.add(h.Volume(name, 1e-4, initial_pressure=p))
    sensor = h.PressureSensor("pA", "A")
    cmd = h.LookupTable("cmd", sensor, [0, 50e5, 100e5], [-1, 0.3, 1])
    c.add(h.open_centre_valve("ocv", 1e-5, cmd, h.FirstOrderSpool(0.02)), P="P", T="T", A="A", B="B")
    c.add(h.regenerative_valve("rgv", 1e-5, h.Sum("s", [cmd, 0.1]), h.FirstOrderSpool(0.03)),
          P="P", T="T", A="C", B="D")
    c.add(h.Orifice("var", h.LookupTable("area", h.PressureSensor("pD", "D"), [0, 1e7], [1e-6, 1e-5])), A="D", B="T")
    c.add(h.ReliefValve("prv", 45e5, 1e-9), P="D", T="T")
    z = c.initial_state()
    z[c.state_names.index("ocv.spool")] = 0.2
    z[c.state_names.index("rgv.spool")] = -0.4
    analytic = c.jacobians(0.3, z, np.zeros(0), np.zeros(0))
    numeric = finite_difference_jacobian(c, 0.3, z, np.zeros(0), np.zeros(0))
    scale = np.abs(numeric["rates_z"]).max()
    assert np.allclose(analytic["rates_z"], numeric["rates_z"], rtol=1e-4, atol=1e-6 * scale)
