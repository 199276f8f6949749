"""Each hydraulic law against its closed form at random states, and each Jacobian block against central differences.

These tests need one implementation only: whatever evaluates a circuit (``Circuit.rates``, ``forces``, ``outputs``,
``jacobians``) is compared with the textbook equation written out here, not with a second copy of the code.

References and tolerances:
- orifice law ``Q = C_d A sqrt(2 |dp| / rho) sign(dp)`` (seed 002 eq. (5)) above the transition pressure, the odd
  cubic ``Q = gamma/sqrt(dp_lim) (5/4 dp - 1/4 dp^3/dp_lim^2)`` or the line ``Q = gamma dp/sqrt(dp_lim)``
  (seed 002 eq. (6)) below it; seen through the continuity equation of a closed volume, ``dp/dt = B/V Q``:
  rtol 1e-12 (the same formula, round-off only);
- cylinder force balance ``F = p_A A_A - p_B A_B - F_mu(v)`` inside the stroke, with the Coulomb-viscous
  (seed 001 eq. (23)), Brown-McPhee (seed 002 eq. (8)) and exponential Stribeck laws: rtol 1e-12 + 1e-9 N;
- volume pressure build-up ``dp/dt = B/V (Q_in - dV/dt)`` of a cylinder chamber fed by an orifice: rtol 1e-12;
- check-valve opening ``gamma = k (eps + (1 - eps) s)``, ``s = 3 u^2 - 2 u^3`` over the opening range, and the
  relief valve's ``Q = k_v w log(1 + exp((dp - p_cr)/w))`` (seed 001 eq. (43), rounded): rtol 1e-12;
- the table lookup: piecewise linear inside, the end values held outside (the one extrapolation rule, also
  ``flexmbs.Table``'s): rtol 1e-14;
- Jacobian blocks against central differences of the rates and forces (relative step 1e-6 of ``max(1, |x|)``):
  within 1e-4 relative and 1e-5 of the block's largest entry, as test_hydraulics_circuit_protocol.py.
"""
import math

import numpy as np
import pytest

import hydraulics as h
from hydraulics_checks import finite_difference_jacobian

from test_hydraulics_circuit_protocol import rich_circuit
from test_hydraulics_new_components_jacobian import components_circuit

OIL = h.Fluid("test oil", density=850.0, bulk_modulus=1.6e9, kinematic_viscosity=40e-6)  # no air: B constant
NO_Y = np.zeros(0)


class _Measurement:
    """A stand-in distance measurement (the circuit uses it as a key only)."""

    unit = "m"


def _orifice_law(dp, gamma, lim, transition="cubic"):
    """The closed form of the orifice law with its laminar region."""
    if abs(dp) >= lim:
        return gamma * math.copysign(math.sqrt(abs(dp)), dp)
    if transition == "linear":
        return gamma * dp / math.sqrt(lim)
    return gamma / math.sqrt(lim) * (1.25 * dp - 0.25 * dp**3 / lim**2)


def _step(x, x0, x1):
    """``3 u^2 - 2 u^3`` of ``u = (x - x0)/(x1 - x0)`` clipped to [0, 1]."""
    u = min(max((x - x0) / (x1 - x0), 0.0), 1.0)
    return u * u * (3.0 - 2.0 * u)


def _closed_volume_with(element, **ports):
    """A pressure source ``S`` feeding a closed volume ``V`` (1e-4 m^3) through ``element`` (ports given)."""
    c = h.Circuit("law", fluid=OIL)
    supply = [0.0]
    c.add(h.PressureSource("S", lambda t: supply[0]))
    c.add(h.Volume("V", 1e-4, initial_pressure=10e5))
    c.add(element, **ports)
    return c.finalize(), supply


@pytest.mark.parametrize("transition", ["cubic", "linear"])
def test_orifice_flow_is_the_square_root_law_with_its_laminar_region(transition):
    area, cd, lim = 2e-6, 0.65, 3e5
    c, supply = _closed_volume_with(h.Orifice("o", area, cd, transition_pressure=lim, transition=transition),
                                    A="S", B="V")
    gamma = cd * area * math.sqrt(2.0 / OIL.density)
    rng = np.random.default_rng(41)
    laminar = 0
    for _ in range(200):
        pv = rng.uniform(1e5, 250e5)
        dp = rng.choice([rng.uniform(-lim, lim), rng.uniform(-200e5, 200e5)])
        supply[0] = pv + dp
        laminar += abs(dp) < lim
        q = _orifice_law(dp, gamma, lim, transition)
        rate = c.rates(0.0, np.array([pv]), NO_Y, NO_Y)[0]
        assert rate == pytest.approx(OIL.bulk_modulus / 1e-4 * q, rel=1e-12, abs=1e-300)
        assert c.outputs(0.0, np.array([pv]), NO_Y, NO_Y)["o.flow"] == pytest.approx(q, rel=1e-12, abs=1e-300)
    assert laminar > 50  # both regions were sampled


def test_check_valve_opens_on_its_cubic_step_with_leakage():
    area, cd, crack, rng_open, eps, lim = 1e-5, 0.7, 2e5, 8e5, 0.02, 0.2e5
    c, supply = _closed_volume_with(h.CheckValve("cv", area, crack, rng_open, cd, eps, lim), A="S", B="V")
    k = cd * area * math.sqrt(2.0 / OIL.density)
    rng = np.random.default_rng(5)
    for _ in range(200):
        pv = rng.uniform(1e5, 100e5)
        dp = rng.uniform(-3e5, 12e5)
        supply[0] = pv + dp
        q = _orifice_law(dp, k * (eps + (1.0 - eps) * _step(dp, crack, crack + rng_open)), lim)
        assert c.outputs(0.0, np.array([pv]), NO_Y, NO_Y)["cv.flow"] == pytest.approx(q, rel=1e-12, abs=1e-300)


def test_relief_valve_follows_its_rounded_linear_characteristic():
    crack, gain, width = 150e5, 2e-11, 2e4
    c = h.Circuit("relief", fluid=OIL)
    c.add(h.Tank("T", 3e5))
    c.add(h.Volume("P", 1e-4))
    c.add(h.ReliefValve("prv", crack, gain, width), P="P", T="T")
    c.finalize()
    rng = np.random.default_rng(9)
    for p in np.concatenate([rng.uniform(0.0, 300e5, 100), crack + 3e5 + rng.uniform(-1e5, 1e5, 100)]):
        x = (p - 3e5 - crack) / width
        q = gain * width * (x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x)))
        assert c.outputs(0.0, np.array([p]), NO_Y, NO_Y)["prv.flow"] == pytest.approx(q, rel=1e-12, abs=1e-300)
    # far from the corner: the linear law of seed 001 eq. (43) and zero
    assert c.outputs(0.0, np.array([200e5]), NO_Y, NO_Y)["prv.flow"] == pytest.approx(gain * (197e5 - crack),
                                                                                     rel=1e-12)
    assert c.outputs(0.0, np.array([100e5]), NO_Y, NO_Y)["prv.flow"] < 1e-30


_FRICTION = {
    "coulomb-viscous": (h.CoulombViscousFriction(400.0, 3e3, 2e-3),
                        lambda v: 3e3 * v + 400.0 * math.tanh(v / 2e-3)),
    "brown-mcphee": (h.BrownMcPheeFriction(300.0, 700.0, 0.02, 2.5e3),
                     lambda v: (300.0 * math.tanh(4 * v / 0.02) + 400.0 * (v / 0.02) / (0.25 * (v / 0.02)**2
                                                                                    + 0.75)**2 + 2.5e3 * v)),
    "stribeck": (h.StribeckFriction(300.0, 500.0, 0.01, 2e3, 1e-3, 2.0),
                 lambda v: (300.0 + 200.0 * math.exp(-(abs(v) / 0.01)**2)) * math.tanh(v / 1e-3) + 2e3 * v),
}


@pytest.mark.parametrize("law", sorted(_FRICTION))
def test_cylinder_force_balance_and_chamber_pressure_build_up(law):
    """Inside the stroke: ``F = p_A A_A - p_B A_B - F_mu(v)``; chamber A fed from a source through an orifice and
    chamber B closed: ``dp_A/dt = B/V_A (Q_in - A_A v)``, ``dp_B/dt = B/V_B (A_B v)``."""
    friction, closed_form = _FRICTION[law]
    a_a, a_b, stroke, dead_a, dead_b, retracted = 3e-3, 1.8e-3, 0.5, 2e-5, 3e-5, 0.9
    c = h.Circuit("cylinder", fluid=OIL)
    supply = [0.0]
    c.add(h.PressureSource("S", lambda t: supply[0]))
    c.add(h.Volume("A", 0.0))
    c.add(h.Volume("B", 0.0))
    c.add(h.Orifice("feed", 3e-6, 0.7), A="S", B="A")
    cyl = c.add(h.Cylinder("cyl", a_a, a_b, stroke, measurement=_Measurement(), retracted_length=retracted,
                           dead_volume_a=dead_a, dead_volume_b=dead_b, friction=friction), A="A", B="B")
    c.finalize()
    k = 0.7 * 3e-6 * math.sqrt(2.0 / OIL.density)
    rng = np.random.default_rng(17)
    for _ in range(100):
        pa, pb = rng.uniform(2e5, 200e5, 2)
        supply[0] = rng.uniform(2e5, 200e5)
        x = rng.uniform(0.01, stroke - 0.01)
        v = rng.choice([rng.uniform(-0.3, 0.3), rng.uniform(-0.03, 0.03)])
        z, y, ydot = np.array([pa, pb]), np.array([retracted + x]), np.array([v])
        force = pa * a_a - pb * a_b - closed_form(v)
        assert c.forces(0.0, z, y, ydot)[0] == pytest.approx(force, rel=1e-12, abs=1e-9)
        q_in = _orifice_law(supply[0] - pa, k, h.orifices.DEFAULT_TRANSITION_PRESSURE)
        rates = c.rates(0.0, z, y, ydot)
        assert rates[0] == pytest.approx(OIL.bulk_modulus / (dead_a + a_a * x) * (q_in - a_a * v), rel=1e-12)
        assert rates[1] == pytest.approx(OIL.bulk_modulus / (dead_b + a_b * (stroke - x)) * (a_b * v), rel=1e-12)
        assert c.outputs(0.0, z, y, ydot)["cyl.friction_force"] == pytest.approx(closed_form(v), rel=1e-12,
                                                                                abs=1e-9)
    assert cyl.measurement is c.measurements[0]


def test_table_lookup_is_linear_inside_and_holds_its_end_values():
    """The one table rule of hydraulics (valve openings, cushions, LookupTable) and of ``flexmbs.Table``."""
    import flexmbs as fm
    from fem.scalar_laws import interp

    xs = np.array([-0.3, -0.1, 0.0, 0.25, 0.6])
    ys = np.array([2.0, -1.0, 0.5, 0.5, 4.0])
    table = fm.Table(xs, ys)
    rng = np.random.default_rng(3)
    for x in np.concatenate([rng.uniform(-1.0, 1.0, 300), xs]):
        if x <= xs[0]:
            expected = ys[0]
        elif x >= xs[-1]:
            expected = ys[-1]
        else:
            i = np.flatnonzero(xs <= x)[-1]
            expected = ys[i] + (ys[i + 1] - ys[i]) * (x - xs[i]) / (xs[i + 1] - xs[i])
        value, slope = interp(x, xs, ys)
        assert value == pytest.approx(expected, rel=1e-14, abs=1e-15)
        assert table(x) == pytest.approx(expected, rel=1e-14, abs=1e-15)
        inside = xs[0] < x < xs[-1] and not np.any(x == xs)
        if inside:
            i = np.flatnonzero(xs <= x)[-1]
            assert slope == pytest.approx((ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]), rel=1e-14)
        elif x < xs[0] or x > xs[-1]:
            assert slope == 0.0


def _random_states(circuit, rng):
    z0 = circuit.initial_state()
    units = circuit.state_units
    z = z0 * (1.0 + 0.05 * rng.standard_normal(z0.size))
    z += np.array([rng.uniform(0.0, 0.3) if u == "1" else 0.0 for u in units])
    return z


def _assert_blocks_match(analytic, numeric):
    for key, value in analytic.items():
        scale = max(1.0, np.abs(numeric[key]).max())
        assert np.allclose(value, numeric[key], rtol=1e-4, atol=1e-5 * scale), key


@pytest.mark.parametrize("which", ["rich", "components"])
def test_every_jacobian_block_is_the_central_difference_of_the_rates_and_forces(which):
    """``Circuit.jacobians`` (the blocks the engines and linearize use) and the component methods' gradients (the
    evaluation of a circuit that does not compile) against central differences of ``Circuit.rates``/``forces``."""
    if which == "rich":
        c, _ = rich_circuit()
        c.finalize()
        n_y = len(c.measurements)
        points = [(0.1, _random_states(c, rng), rng.uniform(0.05, 0.3, n_y), rng.uniform(-0.2, 0.2, n_y))
                  for rng in [np.random.default_rng(s) for s in range(4)]]
    else:
        c, _, _ = components_circuit()
        c.finalize()
        points = [(0.3, _random_states(c, rng), np.array([0.2, 1.0]),
                   np.array([rng.uniform(-0.2, 0.2), rng.uniform(-20.0, 20.0)]))
                  for rng in [np.random.default_rng(10 + s) for s in range(4)]]
    for t, z, y, ydot in points:
        numeric = finite_difference_jacobian(c, t, z, y, ydot, step=1e-8 if which == "components" else 1e-6)
        _assert_blocks_match(c.jacobians(t, z, y, ydot), numeric)
