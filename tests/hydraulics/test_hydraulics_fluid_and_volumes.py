"""Fluid properties, the continuity equation, effective bulk modulus, volume guard and cavitation floor."""
import math

import numpy as np
import pytest

import hydraulics as h
from fem.errors import ModelError


def test_hlp46_preset_is_the_seed_fluid():
    # seed 003 §3.2.2.1: nu = 46 mm^2/s, rho = 835.2 kg/m^3, E = 1.49e9 Pa
    assert h.HLP46.kinematic_viscosity == pytest.approx(46e-6)
    assert h.HLP46.density == pytest.approx(835.2)
    assert h.HLP46.bulk_modulus == pytest.approx(1.49e9)
    assert h.HLP46.dynamic_viscosity == pytest.approx(835.2 * 46e-6)
    assert h.HLP46.effective_bulk_modulus(100e5) == (1.49e9, 0.0)


def test_entrained_air_bulk_modulus_hand_values():
    fluid = h.HLP46.with_air(0.02)
    # At atmospheric pressure (0 gauge): 1/E = 0.98/E_oil + 0.02/p_atm (isothermal), mixture volume 1.
    expected = 1.0 / (0.98 / 1.49e9 + 0.02 / 101325.0)
    assert fluid.effective_bulk_modulus(0.0)[0] == pytest.approx(expected, rel=1e-12)
    # At 300 bar the air is compressed 297-fold and E approaches the oil value.
    high = fluid.effective_bulk_modulus(300e5)[0]
    assert 0.9 * 1.49e9 < high < 1.49e9
    # Derivative against central differences.
    for p in (0.0, 5e5, 50e5):
        d = fluid.effective_bulk_modulus(p)[1]
        fd = (fluid.effective_bulk_modulus(p + 10.0)[0] - fluid.effective_bulk_modulus(p - 10.0)[0]) / 20.0
        assert d == pytest.approx(fd, rel=1e-5)


def test_closed_volume_with_constant_inflow_is_linear_in_time():
    """p(t) = p0 + beta q t / V (seed 002 eq. (1) with constant V and B_e)."""
    volume, flow, p0, beta = 2e-3, 3e-4, 1e5, h.HLP46.bulk_modulus
    c = h.Circuit("closed")
    c.add(h.Tank("T"))
    c.add(h.Volume("V", volume, initial_pressure=p0))
    c.add(h.FixedDisplacementPump.from_flow("q", flow), S="T", P="V")
    times = np.linspace(0.0, 0.05, 11)
    result = h.simulate_circuit(c, t_end=0.05, t_eval=times)
    exact = p0 + beta * flow * times / volume
    assert np.allclose(result.outputs["V.pressure"], exact, rtol=1e-6, atol=0.0)


def test_hose_and_wall_compliance_follow_seed002_eq2():
    """1/B_e = 1/B_oil + V_h/(V B_h) + V_c/(V B_c) (seed 002 eq. (2), (75)): pressure rise per volume inflow."""
    v_hose, b_hose, area, x, b_cyl = 1e-3, 8e8, 2e-3, 0.25, 4e10
    c = h.Circuit("compliant")
    c.add(h.Tank("T"))
    c.add(h.Volume("V", v_hose, wall_bulk_modulus=b_hose))
    cyl = h.Cylinder("cyl", area, 1e-3, 0.5, wall_bulk_modulus=b_cyl, single_acting=True)
    c.add(cyl, A="V")
    c.add(h.FixedDisplacementPump.from_flow("q", 1e-4), S="T", P="V")
    v_total = v_hose + area * x
    b_e = 1.0 / (1.0 / 1.49e9 + v_hose / (v_total * b_hose) + area * x / (v_total * b_cyl))
    rate = c.rates(0.0, c.initial_state(), np.array([x]), np.array([0.0]))[0]
    assert rate == pytest.approx(b_e / v_total * 1e-4, rel=1e-12)


def test_minimum_volume_guard_keeps_the_pressure_rate_finite():
    c = h.Circuit("guard")
    c.add(h.Tank("T"))
    c.add(h.Volume("V", min_volume=1e-6))
    c.add(h.Cylinder("cyl", 1e-3, 5e-4, 0.5, single_acting=True), A="V")
    c.add(h.FixedDisplacementPump.from_flow("q", 1e-5), S="T", P="V")
    # Beyond the retracted end the chamber volume would be negative; the guard holds V at min_volume.
    rate = c.rates(0.0, c.initial_state(), np.array([-0.01]), np.array([0.0]))[0]
    assert rate == pytest.approx(1.49e9 / 1e-6 * 1e-5, rel=1e-12)
    # Well above the guard the volume is exact.
    out = c.outputs(0.0, c.initial_state(), np.array([0.1]), np.array([0.0]))
    assert out["V.volume"] == pytest.approx(1e-4, rel=1e-14)


def test_cavitation_floor_holds_and_is_reported():
    """Pulling a piston out of a closed chamber: without the floor p = p0 - beta ln(V/V0) would go to -inf."""
    area, speed, v0, p0 = 1e-3, 0.1, 1e-4, 10e5
    c = h.Circuit("cavitation")
    c.add(h.Volume("V", v0, initial_pressure=p0))
    c.add(h.Cylinder("cyl", area, 5e-4, 1.0, single_acting=True), A="V")
    result = h.simulate_circuit(c, lambda t: speed * t, lambda t: speed, t_end=0.05)
    p = result.outputs["V.pressure"]
    floor = c.node("V").cavitation_pressure
    g, w = 1e-6, 1e3  # floor conductance m^3/(s Pa) and width Pa (Volume defaults)
    # Once on the floor the fill flow carries the whole volume growth: A v = G w softplus((p_cav - p)/w).
    p_floor = floor - w * math.log(math.expm1(area * speed / (g * w)))
    assert p[-1] == pytest.approx(p_floor, rel=1e-4)
    assert p.min() > p_floor - 1e3
    # Reported when the fill flow exceeds 1e-9 m^3/s, i.e. at p = p_cav - w ln(expm1(1e-9/(G w))).
    p_detect = floor - w * math.log(math.expm1(1e-9 / (g * w)))
    t_expected = v0 * math.expm1((p0 - p_detect) / 1.49e9) / (area * speed)
    assert "V" in result.cavitation
    assert result.cavitation["V"] == pytest.approx(t_expected, rel=0.05)


def test_fluid_rejects_nonphysical_values():
    with pytest.raises(ModelError, match="must be positive"):
        h.Fluid("bad", -1.0, 1e9, 1e-5)
    with pytest.raises(ModelError, match="air_fraction"):
        h.Fluid("bad", 850.0, 1e9, 1e-5, air_fraction=1.2)
