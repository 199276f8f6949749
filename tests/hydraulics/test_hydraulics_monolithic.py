"""A circuit as a state element of a flexmbs model: hydraulics and mechanics in one implicit solver."""
import math

import numpy as np
import pytest

import hydraulics as h

import flexmbs as fm

# marker axes with z along global x (prismatic joints slide along marker z)
Z_ALONG_X = np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])


def slider_model(mass, x0):
    """A rigid body sliding along global x; a Distance from the origin to it is the cylinder length."""
    model = fm.Model("slider", gravity=(0.0, 0.0, 0.0))
    body = model.add_rigid_body("piston", mass=mass, inertia=(1.0, 1.0, 1.0), position=(x0, 0.0, 0.0))
    base = model.add_marker(model.ground, "base")
    rail = model.add_marker(model.ground, "rail", orientation=Z_ALONG_X)
    slider = model.add_marker(body, "slider", orientation=Z_ALONG_X)
    model.add_joint("prismatic", rail, slider, name="guide")
    return model, fm.Distance(base, slider), slider


def test_steady_extension_speed_in_the_multibody_solver():
    """Same hand calculation as the standalone test (orifice equations + force balance), through flexmbs."""
    p_s, a1, a2, area, load, m = 100e5, 2e-3, 1e-3, 2.8e-6, 1e4, 100.0
    model, distance, slider = slider_model(m, 1.05)
    c = h.Circuit("extend")
    c.add(h.PressureSource("P", p_s))
    c.add(h.Tank("T"))
    c.add(h.Volume("A", 2e-4, initial_pressure=p_s / 2))
    c.add(h.Volume("B", 2e-4))
    c.add(h.Cylinder("cyl", a1, a2, 2.0, measurement=distance, retracted_length=1.0), A="A", B="B")
    c.add(h.closed_centre_valve("dcv", area, 1.0), P="P", T="T", A="A", B="B")
    model.add_element(c)
    model.add_force(fm.PointForce(slider, force=(-load, 0.0, 0.0), name="load"))
    res = fm.simulate(model, 1.0)
    k = h.HLP46.density / (2 * 0.7**2 * area**2)
    v_hand = math.sqrt((p_s * a1 - load) / (k * (a1**3 + a2**3)))
    assert res.success
    assert res["body/piston/velocity"][-1, 0] == pytest.approx(v_hand, rel=0.01)
    assert res["element/extend/cyl.velocity"][-1] == pytest.approx(v_hand, rel=0.01)


def test_oil_spring_frequency_in_the_multibody_solver():
    """Locked cylinder (closed valve) on a sliding mass: omega^2 = (beta A1^2/V1 + beta A2^2/V2)/m, 1 %."""
    a1, a2, m, stroke, x0 = 2e-3, 1.2e-3, 500.0, 1.0, 0.5
    hose_a, hose_b, p1 = 4e-4, 3e-4, 50e5
    model, distance, _ = slider_model(m, 1.0 + x0)
    model.bodies[0].initial_velocity = np.array([1e-3, 0.0, 0.0])
    c = h.Circuit("locked")
    c.add(h.PressureSource("P", 100e5))
    c.add(h.Tank("T"))
    c.add(h.Volume("A", hose_a, initial_pressure=p1))
    c.add(h.Volume("B", hose_b, initial_pressure=p1 * a1 / a2))
    c.add(h.Cylinder("cyl", a1, a2, stroke, measurement=distance, retracted_length=1.0), A="A", B="B")
    c.add(h.closed_centre_valve("dcv", 1e-5, 0.0, overlap=0.05), P="P", T="T", A="A", B="B")
    model.add_element(c)
    beta = h.HLP46.bulk_modulus
    omega = math.sqrt((beta * a1**2 / (hose_a + a1 * x0) + beta * a2**2 / (hose_b + a2 * (stroke - x0))) / m)
    period = 2 * math.pi / omega
    res = fm.simulate(model, 4 * period, rtol=1e-6, max_step=period / 40, rho_inf=1.0)
    t, v = res.time, res["body/piston/velocity"][:, 0]
    crossings = [t[i] - v[i] * (t[i + 1] - t[i]) / (v[i + 1] - v[i]) for i in range(len(t) - 1) if v[i] > 0 >= v[i + 1]]
    assert len(crossings) >= 3
    assert np.mean(np.diff(crossings)) == pytest.approx(period, rel=0.01)
