"""System tests of issue #32: a load-sensing pump with a pressure-compensated valve, and a counterbalance valve
lowering and holding a hanging load.

Both circuits drive a vertical cylinder carrying a mass (``simulate_with_mass``: ``m x'' = F_cyl - m g``).

References (independent of the component code):
- load sensing: the compensator keeps the metering edge's drop in ``[dp_set - band, dp_set]``, so the cylinder
  speed is the orifice law ``v = C_d A_edge sqrt(2 dp / rho) / A_A`` for that range, whatever the load;
- counterbalance: in steady lowering the meter-in edge, the force balance of the cylinder, the counterbalance
  valve's opening balance (``(p_A - p_V) + psi (p_B - p_V) - p_crack`` in ``[0, opening range]``) and the meter-out
  edge give the speed by hand (solved with brentq at both ends of the opening range).
"""
import math

import numpy as np
from scipy.optimize import brentq

import hydraulics as h

RHO = h.HLP46.density
G = 9.81
BORE, ROD = 0.08, 0.045
A_A = 0.25 * math.pi * BORE**2
A_B = A_A - 0.25 * math.pi * ROD**2
EDGE_AREA = 2e-5
U_CMD = 0.5


def cylinder():
    return h.Cylinder.from_diameters("cyl", BORE, ROD, 1.0, dead_volume_a=1e-4, dead_volume_b=1e-4,
                                     friction=h.BrownMcPheeFriction(100.0, 300.0, 0.01, 500.0))


def ls_circuit(mass, compensated=True):
    """LS pump (45 L/min, margin 20 bar, cut-off 250 bar) -> 2-way compensator (10 bar, band 1 bar) -> closed-centre
    valve -> cylinder lifting ``mass``; LS line from the cylinder ports through a shuttle, with a 0.3 mm bleed.
    ``compensated=False``: the same valve fed by a 150 bar source without compensator."""
    p_load = mass * G / A_A
    c = h.Circuit("ls")
    c.add(h.Tank("T"))
    for name, p in (("A", p_load), ("B", 0.0), ("C", p_load + 10e5)):
        c.add(h.Volume(name, 5e-4, wall_bulk_modulus=1e9, initial_pressure=p))
    if compensated:
        c.add(h.Volume("P", 5e-4, wall_bulk_modulus=1e9, initial_pressure=p_load + 18e5))
        c.add(h.Volume("LS", 1e-6, initial_pressure=p_load))
        c.add(h.VariableDisplacementPump("pump", 30e-6, 25.0, 250e5, margin_pressure=20e5, regulation_band=3e5,
                                         time_constant=0.03), S="T", P="P", LS="LS")
        c.add(h.ShuttleValve("shuttle", 1e-6), A="A", B="B", C="LS")
        c.add(h.Orifice("ls_bleed", 7e-8), A="LS", B="T")
        c.add(h.PressureCompensator("comp", 1e-4, 10e5, opening_range=1e5, time_constant=5e-3), P="P", A="C", X="A")
    else:
        c.add(h.PressureSource("P", 150e5))
        c.add(h.Orifice("feed", 1e-4), A="P", B="C")
    command = h.PiecewiseLinear("u", [0.0, 0.2], [0.0, U_CMD])
    c.add(h.closed_centre_valve("dcv", EDGE_AREA, command), P="C", A="A", B="B", T="T")
    c.add(cylinder(), A="A", B="B")
    return c


def mean_speed(res, t0, t1):
    return (np.interp(t1, res.t, res.position) - np.interp(t0, res.t, res.position)) / (t1 - t0)


def test_load_sensing_with_compensator_keeps_the_speed_independent_of_the_load():
    """Lifting 1 t (20 bar) and 5 t (98 bar): both speeds lie in the compensator's range
    v(dp) = 0.7 A_edge U sqrt(2 dp / rho) / A_A for dp in [9, 10] bar (0.5 % margin: the mean speed over 1.0..1.5 s
    includes the compression of the growing bore-side volume), so they differ by less than 1 - sqrt(0.9) = 5.1 %.
    The same valve on a 150 bar source without compensator changes its speed by > 20 % between the loads (the
    seed-style constant-pressure supply; measured 0.213 vs 0.134 m/s when written)."""
    v_hi = 0.7 * EDGE_AREA * U_CMD * math.sqrt(2 * 10e5 / RHO) / A_A
    v_lo = v_hi * math.sqrt(0.9)
    speeds = {}
    for mass in (1000.0, 5000.0):
        res = h.simulate_with_mass(ls_circuit(mass), mass, t_end=1.5, initial_position=0.2,
                                   load=lambda t, m=mass: -m * G, t_eval=np.linspace(0.0, 1.5, 301), rtol=1e-6)
        assert not res.cavitation
        speeds[mass] = mean_speed(res, 1.0, 1.5)
        assert v_lo * (1 - 5e-3) <= speeds[mass] <= v_hi * (1 + 5e-3), (mass, speeds[mass], v_lo, v_hi)
        assert 0.0 < res.outputs["comp.opening"][-1] < 1.0  # regulating, not saturated
    assert abs(speeds[1000.0] - speeds[5000.0]) / v_hi < 1 - math.sqrt(0.9)
    plain = {}
    for mass in (1000.0, 5000.0):
        res = h.simulate_with_mass(ls_circuit(mass, compensated=False), mass, t_end=1.5, initial_position=0.2,
                                   load=lambda t, m=mass: -m * G, t_eval=np.linspace(0.0, 1.5, 301), rtol=1e-6)
        plain[mass] = mean_speed(res, 1.0, 1.5)
    assert plain[1000.0] > 1.2 * plain[5000.0]


# -- counterbalance ---------------------------------------------------------------------------------------------
MASS_CB = 3000.0
SUPPLY = 100e5
CRACK, PSI, RANGE = 100e5, 4.0, 10e5
F_C, B_VISC, V_EPS = 500.0, 2000.0, 1e-3   # seal friction of the lowered cylinder (assumed)


def cb_circuit(supply):
    """Supply (pressure source ``supply(t)``) -> closed-centre valve lowering (U = -0.5: P -> B, A -> T) -> cylinder
    holding ``MASS_CB`` on its bore side through a counterbalance valve (setting 100 bar, pilot 4:1, pilot from B)."""
    p_load = MASS_CB * G / A_A
    c = h.Circuit("cb")
    c.add(h.Tank("T"))
    c.add(h.PressureSource("P", supply))
    for name, p in (("A", p_load), ("VA", 0.0), ("B", 0.0)):
        c.add(h.Volume(name, 5e-4, wall_bulk_modulus=1e9, initial_pressure=p))
    command = h.PiecewiseLinear("u", [0.0, 0.2], [0.0, -U_CMD])
    c.add(h.closed_centre_valve("dcv", EDGE_AREA, command), P="P", A="VA", B="B", T="T")
    c.add(h.CounterbalanceValve("cbv", 2e-5, CRACK, PSI, opening_range=RANGE, time_constant=0.01),
          L="A", V="VA", X="B")
    c.add(h.Cylinder.from_diameters("cyl", BORE, ROD, 1.0, dead_volume_a=1e-4, dead_volume_b=1e-4,
                                    friction=h.CoulombViscousFriction(F_C, B_VISC, V_EPS)), A="A", B="B")
    return c


def lowering_speed(delta):
    """Steady lowering speed u > 0 with the valve's balance at ``p_crack + delta``; the seal friction
    ``F_c tanh(u / v_eps) + b u`` acts upwards while lowering."""
    gamma = 0.7 * EDGE_AREA * U_CMD * math.sqrt(2.0 / RHO)

    def pressures(u):
        p_va = (A_A * u / gamma) ** 2                      # meter-out edge A -> T
        weight = MASS_CB * G - F_C * math.tanh(u / V_EPS) - B_VISC * u
        p_b = (CRACK + delta + (1 + PSI) * p_va - weight / A_A) / (A_B / A_A + PSI)   # valve + force balance
        return p_va, p_b

    def residual(u):                                        # meter-in edge P -> B carries A_B u
        p_b = pressures(u)[1]
        return gamma * math.sqrt(max(SUPPLY - p_b, 0.0)) - A_B * u
    u = brentq(residual, 1e-6, 1.0)
    return u, pressures(u)[1]


def test_counterbalance_lowers_at_the_valve_speed_and_holds_when_the_pump_stops():
    """Lowering 3 t: the steady speed lies between the hand solutions at both ends of the counterbalance valve's
    opening range (0.5 % margin), the rod side stays pressurised while lowering (above half its hand value, no
    cavitation floor reached: no runaway; the rod side may touch the floor briefly while the valve closes after the
    supply has stopped, reported by ``res.cavitation``), and after the supply
    falls to 0 at 2.0..2.1 s (valve still open) the load is held: the position moves less than 0.1 mm from 2.5 s to
    4 s."""
    supply = h.PiecewiseLinear("supply", [0.0, 2.0, 2.1], [SUPPLY, SUPPLY, 0.0], unit="Pa")
    c = cb_circuit(supply)
    t = np.linspace(0.0, 4.0, 801)
    res = h.simulate_with_mass(c, MASS_CB, t_end=4.0, initial_position=0.5, load=lambda t: -MASS_CB * G, t_eval=t,
                               rtol=1e-6)
    assert all(start > 2.0 for start in res.cavitation.values()), res.cavitation  # none while lowering
    u_closed, p_b_closed = lowering_speed(0.0)
    u_open, p_b_open = lowering_speed(RANGE)
    speed = -mean_speed(res, 1.2, 1.9)
    assert min(u_closed, u_open) * (1 - 5e-3) <= speed <= max(u_closed, u_open) * (1 + 5e-3), (speed, u_closed,
                                                                                                 u_open)
    lowering = (res.t > 1.0) & (res.t < 2.0)
    assert res.outputs["B.pressure"][lowering].min() > 0.5 * min(p_b_closed, p_b_open)
    hold = np.interp(4.0, res.t, res.position) - np.interp(2.5, res.t, res.position)
    assert abs(hold) < 1e-4
    assert res.outputs["cbv.opening"][-1] < 1e-6
