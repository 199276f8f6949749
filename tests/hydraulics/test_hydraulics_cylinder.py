"""Cylinders driving a 1-dof mass: oil spring, steady speed, friction laws, end stops, cushion, energy balance."""
import math

import numpy as np
import pytest

import hydraulics as h

RHO, BETA = h.HLP46.density, h.HLP46.bulk_modulus


def test_locked_cylinder_oscillates_at_the_oil_spring_frequency():
    """Closed valve: omega = sqrt((beta A1^2/V1 + beta A2^2/V2) / m) (oil spring, seed 001 eq. (26), (27)).

    V1, V2 are the chamber volumes (hose + swept volume) at the mid-stroke operating point.
    """
    a1, a2, m, stroke, x0 = 2e-3, 1.2e-3, 500.0, 1.0, 0.5
    hose_a, hose_b = 4e-4, 3e-4
    p1 = 50e5
    p2 = p1 * a1 / a2  # force balance without load
    c = h.Circuit("locked")
    c.add(h.PressureSource("P", 100e5))
    c.add(h.Tank("T"))
    c.add(h.Volume("A", hose_a, initial_pressure=p1))
    c.add(h.Volume("B", hose_b, initial_pressure=p2))
    c.add(h.Cylinder("cyl", a1, a2, stroke), A="A", B="B")
    c.add(h.closed_centre_valve("dcv", 1e-5, 0.0, overlap=0.05), P="P", T="T", A="A", B="B")
    v1, v2 = hose_a + a1 * x0, hose_b + a2 * (stroke - x0)
    omega = math.sqrt((BETA * a1**2 / v1 + BETA * a2**2 / v2) / m)
    period = 2 * math.pi / omega
    t = np.linspace(0.0, 5 * period, 2001)
    result = h.simulate_with_mass(c, m, 5 * period, x0, initial_velocity=1e-3, t_eval=t, rtol=1e-10)
    v = result.velocity
    crossings = [t[i] - v[i] * (t[i + 1] - t[i]) / (v[i + 1] - v[i]) for i in range(len(t) - 1) if v[i] > 0 >= v[i + 1]]
    measured = np.mean(np.diff(crossings))
    assert len(crossings) >= 4
    assert measured == pytest.approx(period, rel=0.01)
    assert not result.cavitation


def extension_circuit(p_supply, area, a1, a2, friction=None):
    c = h.Circuit("extend")
    c.add(h.PressureSource("P", p_supply))
    c.add(h.Tank("T"))
    c.add(h.Volume("A", 2e-4, initial_pressure=p_supply / 2))
    c.add(h.Volume("B", 2e-4))
    c.add(h.Cylinder("cyl", a1, a2, 2.0, friction=friction), A="A", B="B")
    c.add(h.closed_centre_valve("dcv", area, 1.0), P="P", T="T", A="A", B="B")
    return c


def test_steady_extension_speed_matches_the_orifice_hand_calculation():
    """Q_A = C_d a sqrt(2 (p_s - p_A)/rho) = A_A v, Q_B = C_d a sqrt(2 p_B/rho) = A_B v, p_A A_A - p_B A_B = F
    => v^2 = (p_s A_A - F) / (k (A_A^3 + A_B^3)), k = rho / (2 C_d^2 a^2)."""
    p_s, a1, a2, area, load, m = 100e5, 2e-3, 1e-3, 2.8e-6, 1e4, 100.0
    c = extension_circuit(p_s, area, a1, a2)
    result = h.simulate_with_mass(c, m, 1.0, 0.05, load=lambda t: -load)
    k = RHO / (2 * 0.7**2 * area**2)
    v_hand = math.sqrt((p_s * a1 - load) / (k * (a1**3 + a2**3)))
    assert result.velocity[-1] == pytest.approx(v_hand, rel=0.01)
    # and both edges are turbulent (|dp| > 2 bar), where the square-root law is exact
    assert p_s - result.outputs["A.pressure"][-1] > 2e5 and result.outputs["B.pressure"][-1] > 2e5


def test_brown_mcphee_friction_shape():
    """Seed 002 eq. (8): odd, F(0) = 0, F(v_s) = F_c tanh 4 + F_s - F_c + sigma_2 v_s, F -> F_c + sigma_2 v."""
    fr = h.BrownMcPheeFriction(210.0, 830.0, 0.01, 330.0)
    assert fr.force(0.0)[0] == 0.0
    assert fr.force(-0.02)[0] == -fr.force(0.02)[0]
    assert fr.force(0.01)[0] == pytest.approx(210 * math.tanh(4) + 620 + 3.3, rel=1e-14)
    assert fr.force(10.0)[0] == pytest.approx(210 + 3300, rel=1e-6)
    for v in (-0.03, 0.0, 0.004, 0.01, 0.5):
        fd = (fr.force(v + 1e-8)[0] - fr.force(v - 1e-8)[0]) / 2e-8
        assert fr.force(v)[1] == pytest.approx(fd, rel=1e-6)
    scaled = fr.scaled(0.1)
    assert (scaled.coulomb_force, scaled.static_force, scaled.viscous_coefficient) == pytest.approx((21, 83, 33))


def test_coulomb_viscous_friction_seed001_eq23():
    fr = h.CoulombViscousFriction(500.0, 2000.0, velocity_width=1e-4)
    assert fr.force(0.1)[0] == pytest.approx(500 + 200, rel=1e-12)
    assert fr.force(-0.1)[0] == pytest.approx(-700, rel=1e-12)


def test_end_stops_push_back_into_the_stroke():
    """Seed 001 eq. (25): penalty c * penetration beyond either end, directed back into the stroke."""
    c = h.Circuit("stops")
    c.add(h.Tank("T"))
    cyl = h.Cylinder("cyl", 1e-3, 5e-4, 0.4, retracted_length=1.0, stop_stiffness=2e8)
    c.add(cyl, A="T", B="T")
    beyond = c.forces(0.0, [], np.array([1.4 + 1e-3]), np.array([0.0]))[0]
    below = c.forces(0.0, [], np.array([1.0 - 2e-3]), np.array([0.0]))[0]
    inside = c.forces(0.0, [], np.array([1.2]), np.array([0.0]))[0]
    assert beyond == pytest.approx(-2e8 * 1e-3)
    assert below == pytest.approx(2e8 * 2e-3)
    assert inside == 0.0


def test_cushion_brakes_the_piston_before_the_end():
    """Extending into a cushion: the small orifice raises the rod-side pressure and slows the piston down, and
    at the end the flow it passes equals A_B v (continuity through the cushion orifice)."""
    p_s, a1, a2, m = 100e5, 2e-3, 1e-3, 200.0
    c = h.Circuit("cushion")
    c.add(h.PressureSource("P", p_s))
    c.add(h.Tank("T"))
    c.add(h.Volume("A", 2e-4, initial_pressure=50e5))
    c.add(h.Volume("B", 5e-5))
    c.add(h.Volume("B_line", 2e-4))
    cyl = h.Cylinder("cyl", a1, a2, 0.3)
    c.add(cyl, A="A", B="B")
    c.add(h.Cushion("cush", cyl, [0.0, 0.22, 0.27, 0.3], [1e-4, 1e-4, 2e-7, 2e-7], bypass_area=1e-5),
          chamber="B", line="B_line")
    c.add(h.closed_centre_valve("dcv", 1e-5, 1.0), P="P", T="T", A="A", B="B_line")
    result = h.simulate_with_mass(c, m, 1.0, 0.0, t_eval=np.linspace(0, 1.0, 2001))
    x, v = result.position, result.velocity
    v_free = v[np.searchsorted(x, 0.2)]
    v_cushion = v[np.searchsorted(x, 0.28)]
    assert v_cushion < 0.3 * v_free
    assert result.outputs["B.pressure"].max() > p_s  # the cushion pressure exceeds the supply (area ratio 2)
    i = np.searchsorted(x, 0.28)
    assert result.outputs["cush.flow"][i] == pytest.approx(a2 * v[i], rel=0.02)


def test_energy_balance_of_a_lifting_cycle():
    """Hydraulic work in - dissipation - stored compression energy = change of mechanical energy (1 %).

    Pressure source -> valve (opens, then closes) -> cylinder lifting a mass against gravity with Brown-McPhee
    friction; every power is an output of the circuit; integrated with Simpson's rule.
    """
    from scipy.integrate import simpson

    p_s, a1, a2, m, g = 120e5, 2e-3, 1.2e-3, 800.0, 9.81
    c = h.Circuit("lift")
    c.add(h.PressureSource("P", p_s))
    c.add(h.Tank("T"))
    c.add(h.Volume("A", 3e-4, wall_bulk_modulus=1e9, initial_pressure=m * g / a1))
    c.add(h.Volume("B", 3e-4))
    c.add(h.Cylinder("cyl", a1, a2, 1.0, friction=h.BrownMcPheeFriction(210, 830, 0.01, 330)), A="A", B="B")
    command = h.PiecewiseLinear("cmd", [0.0, 0.05, 0.3, 0.35, 0.5, 0.55], [0, 1, 1, 0, 0, -0.3])
    c.add(h.closed_centre_valve("dcv", 4e-6, command, h.FirstOrderSpool(0.01)), P="P", T="T", A="A", B="B")
    t = np.linspace(0.0, 0.8, 8001)
    r = h.simulate_with_mass(c, m, 0.8, 0.2, load=lambda t: -m * g, t_eval=t, max_step=2e-3)
    o = r.outputs
    work_in = simpson(o["P.power"] + o["T.power"], x=t)
    dissipated = simpson(o["dcv.power_loss"] + o["cyl.friction_power"], x=t)
    stored = simpson(o["A.compression_power"] + o["B.compression_power"], x=t)
    mechanical = 0.5 * m * (r.velocity[-1] ** 2 - r.velocity[0] ** 2) + m * g * (r.position[-1] - r.position[0])
    assert mechanical > 0.1 * work_in  # the mass really was lifted
    assert work_in - dissipated - stored == pytest.approx(mechanical, rel=0.01)
