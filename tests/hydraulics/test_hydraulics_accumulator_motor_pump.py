"""Gas accumulator, hydraulic motor and variable-displacement pump against closed forms.

References (independent of the component code):
- accumulator: the polytropic gas law ``(p + p_atm) V_g^n = (p_0 + p_atm) V_0^n`` (absolute pressures);
- motor: flow balance ``Q = D_r omega + C_i dp`` and torque balance ``D_r dp = T_load + T_friction`` at steady
  speed; the datasheet efficiencies ``eta_v = D_r omega / Q``, ``eta_hm = T / (D_r dp)`` at the rated point;
- pump: the regulator's static characteristic ``p_P = p_ref - eps dp_band`` with ``eps D n`` equal to the flow of
  the load orifice ``C_d A sqrt(2 p / rho)`` (solved with scipy's brentq).
"""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

import hydraulics as h

RHO = h.HLP46.density
P_ATM = 101325.0


def test_accumulator_charged_from_a_source_holds_the_polytropic_volume():
    """Empty accumulator on a 100 bar source: the oil volume settles at V_0 (1 - ((p_0 + p_atm)/(p + p_atm))^(1/n)).
    Tolerance 1e-6 relative (the settled orifice flow is zero to round-off)."""
    for n in (1.0, 1.4):
        c = h.Circuit("charge")
        c.add(h.PressureSource("S", 100e5))
        acc = c.add(h.GasAccumulator("acc", 4e-3, 30e5, n, port_area=1e-4), P="S")
        res = h.simulate_circuit(c, t_end=20.0)
        expected = 4e-3 * (1.0 - ((30e5 + P_ATM) / (100e5 + P_ATM)) ** (1.0 / n))
        assert res.outputs["acc.oil_volume"][-1] == pytest.approx(expected, rel=1e-6)
        assert res.outputs["acc.gas_pressure"][-1] == pytest.approx(100e5, rel=1e-6)
        assert acc.equilibrium_oil_volume(100e5) == pytest.approx(expected, rel=1e-12)


def test_accumulator_charged_by_constant_flow_follows_the_adiabatic_law():
    """A 0.1 L/s pump fills a 4 L accumulator (precharge 30 bar) through a 1 cm^2 port for 10 s: the gas pressure is
    (p_0 + p_atm) (V_0 / (V_0 - Q t))^1.4 - p_atm at every time (oil volume Q t less the oil compressed into the
    1 cm^3 node, < 1e-9 m^3). Tolerance 1e-4 relative; the isothermal law differs by > 10 % at 10 s."""
    q = 1e-4
    c = h.Circuit("fill")
    c.add(h.Tank("T"))
    c.add(h.Volume("N", 1e-6, initial_pressure=30e5))
    c.add(h.FixedDisplacementPump.from_flow("pump", q), S="T", P="N")
    c.add(h.GasAccumulator("acc", 4e-3, 30e5, 1.4, port_area=1e-4), P="N")
    times = np.array([2.0, 5.0, 10.0])
    res = h.simulate_circuit(c, t_end=10.0, t_eval=times, rtol=1e-8)
    expected = (30e5 + P_ATM) * (4e-3 / (4e-3 - q * times)) ** 1.4 - P_ATM
    assert np.allclose(res.outputs["acc.gas_pressure"], expected, rtol=1e-4)
    isothermal = (30e5 + P_ATM) * (4e-3 / (4e-3 - q * times[-1])) - P_ATM
    assert abs(isothermal - expected[-1]) > 0.1 * expected[-1]


def test_accumulator_gives_no_oil_below_its_precharge():
    """Drained through an orifice to tank, the accumulator empties to the poppet and stops: the oil volume never falls
    below -1e-3 of the closing volume, the gas stays at the precharge (1e-3 relative), the node falls to tank."""
    c = h.Circuit("drain")
    c.add(h.Tank("T"))
    c.add(h.Volume("N", 1e-5, initial_pressure=80e5))
    acc = c.add(h.GasAccumulator("acc", 1e-3, 30e5, 1.0, port_area=1e-5, initial_pressure=80e5), P="N")
    c.add(h.Orifice("bleed", 2e-6), A="N", B="T")
    res = h.simulate_circuit(c, t_end=20.0)
    assert res.outputs["acc.oil_volume"].min() > -1e-3 * acc.closing_volume
    assert res.outputs["acc.gas_pressure"][-1] == pytest.approx(30e5, rel=1e-3)
    assert res.outputs["N.pressure"][-1] < 1e5


def motor_point(motor, omega, p_a, p_b):
    c = h.Circuit("motor")
    c.add(h.PressureSource("A", p_a))
    c.add(h.PressureSource("B", p_b))
    c.add(motor, A="A", B="B")
    return c.outputs(0.0, c.initial_state(), np.array([0.0]), np.array([omega]))


def test_motor_datasheet_efficiencies_are_reproduced_at_the_rated_point():
    """50 cm^3/rev, 1500 rpm, 200 bar, eta_v = 0.95, eta_hm = 0.92: Q = D n / eta_v and T = eta_hm D dp / (2 pi)
    (tolerance 1e-12 relative)."""
    d, n, dp = 50e-6, 25.0, 200e5
    motor = h.HydraulicMotor.from_datasheet("m", d, n, dp, 0.95, 0.92)
    out = motor_point(motor, 2 * math.pi * n, dp, 0.0)
    assert out["m.flow"] == pytest.approx(d * n / 0.95, rel=1e-12)
    assert out["m.torque"] == pytest.approx(0.92 * d * dp / (2 * math.pi), rel=1e-12)


def test_motor_with_inertia_settles_at_the_flow_and_torque_balance_speed():
    """A 20 L/min pump drives a motor (D 20 cm^3/rev, C_i 2e-12, viscous 0.01 N m s, Coulomb 2 N m) with inertia
    0.05 kg m^2 against 30 N m (damping ratio ~0.12 at ~25 rad/s: settled to < 1e-9 by 8 s). Steady state by hand:
    D_r dp = T_L + T_c + b w and Q = D_r w + C_i dp, so w = (Q - C_i (T_L + T_c)/D_r) / (D_r + C_i b / D_r).
    Tolerance 1e-5 relative."""
    q, d, ci, b, tc, tl, inertia = 20 / 60000, 20e-6, 2e-12, 0.01, 2.0, 30.0, 0.05
    c = h.Circuit("drive")
    c.add(h.Tank("T"))
    dr = d / (2 * math.pi)
    omega = (q - ci * (tl + tc) / dr) / (dr + ci * b / dr)
    c.add(h.Volume("M", 5e-4, initial_pressure=(tl + tc) / dr))
    c.add(h.FixedDisplacementPump.from_flow("pump", q), S="T", P="M")
    c.add(h.HydraulicMotor("motor", d, internal_leakage=ci,
                           friction=h.CoulombViscousFriction(tc, b, 1e-3)), A="M", B="T")
    res = h.simulate_with_mass(c, inertia, t_end=8.0, initial_position=0.0, initial_velocity=0.8 * omega,
                               load=lambda t: -tl)  # started 20 % below the speed (from rest it would cavitate)
    assert res.velocity[-1] == pytest.approx(omega, rel=1e-5)
    assert res.outputs["M.pressure"][-1] == pytest.approx((tl + tc + b * omega) / dr, rel=1e-5)


def pump_circuit(load_pressure=None, orifice_area=2e-6):
    c = h.Circuit("pump")
    c.add(h.Tank("T"))
    c.add(h.Volume("P", 1e-4, initial_pressure=50e5))
    kwargs = {}
    if load_pressure is not None:
        c.add(h.PressureSource("LS", load_pressure))
        kwargs = {"LS": "LS"}
    margin = None if load_pressure is None else 20e5
    c.add(h.VariableDisplacementPump("pump", 30e-6, 25.0, 250e5, margin_pressure=margin, regulation_band=5e5,
                                     time_constant=0.03), S="T", P="P", **kwargs)
    c.add(h.Orifice("load", orifice_area), A="P", B="T")
    return c


def regulated_pressure(reference, orifice_area, band=5e5, full_flow=30e-6 * 25.0):
    """p = reference - eps band with eps full_flow = C_d A sqrt(2 p / rho) (the regulator characteristic)."""
    def residual(p):
        return p - (reference - band * 0.7 * orifice_area * math.sqrt(2 * p / RHO) / full_flow)
    return brentq(residual, reference - band, reference)


@pytest.mark.parametrize("load_pressure, reference", [(None, 250e5), (80e5, 100e5), (240e5, 250e5)])
def test_pump_regulates_to_cut_off_or_load_plus_margin(load_pressure, reference):
    """Pressure compensator alone (cut-off 250 bar), load sensing at 80 bar (target 80 + 20 bar) and at 240 bar (the
    cut-off limits): the steady pump pressure is the regulator characteristic's solution (1e-5 relative)."""
    c = pump_circuit(load_pressure)
    res = h.simulate_circuit(c, t_end=2.0)
    expected = regulated_pressure(reference, 2e-6)
    assert res.outputs["P.pressure"][-1] == pytest.approx(expected, rel=1e-5)
    assert 0.0 < res.outputs["pump.displacement_fraction"][-1] < 1.0


MOTOR_DRIVE = dict(q=10 / 60000, d=10e-6, ci=1e-11, b=0.02, tc=1.0)  # pump flow, motor, its losses (SI)


def motor_drive_model(housing: bool = False):
    """A disc (J = 0.02 kg m^2) on a revolute joint driven by a 10 L/min pump (run up over 0.2 s) through a motor
    (D 10 cm^3/rev, C_i 1e-11, viscous 0.02 N m s, Coulomb 1 N m); with ``housing`` the motor's housing is a
    second disc (J = 0.05 kg m^2) on a frictionless bearing to the ground, the motor's shaft joint between the two.
    Returns the model and the steady speed of the flow and torque balance (as above with T_L = 0; with a housing
    the relative speed: the disc and the housing stop accelerating when the motor's torque is zero)."""
    import flexmbs as fm

    p = MOTOR_DRIVE
    dr = p["d"] / (2 * math.pi)
    omega = (p["q"] - p["ci"] * p["tc"] / dr) / (dr + p["ci"] * p["b"] / dr)
    model = fm.Model("disc", gravity=(0.0, 0.0, 0.0))
    disc = model.add_rigid_body("disc", mass=1.0, inertia=(0.01, 0.01, 0.02))
    base = model.add_marker(model.ground, "base")
    if housing:
        body = model.add_rigid_body("housing", mass=3.0, inertia=(0.03, 0.03, 0.05))
        model.add_joint("revolute", base, model.add_marker(body, "housing.bearing"), name="bearing")
        base = model.add_marker(body, "housing.seat")
    shaft = model.add_joint("revolute", base, model.add_marker(disc, "hub"), name="shaft")
    c = h.Circuit("drive")
    c.add(h.Tank("T"))
    c.add(h.Volume("M", 2e-4))
    c.add(h.FixedDisplacementPump("pump", p["q"], h.Ramp("n", 0.0, 0.2)), S="T", P="M")
    c.add(h.HydraulicMotor("motor", p["d"], measurement=fm.JointCoordinate(shaft), internal_leakage=p["ci"],
                           friction=h.CoulombViscousFriction(p["tc"], p["b"], 1e-2)), A="M", B="T")
    model.add_element(c)
    return model, omega


@pytest.mark.slow
def test_motor_drives_a_revolute_joint_of_a_flexmbs_model():
    """The motor as part of a state element of a flexmbs model (:func:`motor_drive_model`) settles at the speed of
    the flow and torque balance, 1e-4 relative (the integrator's tolerance), on the compiled step. The shaft turns
    15 times: the recorded angle (unwrapped over the turns) is the trapezoid integral of the recorded speed over
    the samples (every step), to 1e-5 of the angle (1e-3 rad, far from a lost turn of 2 pi; measured 4e-4 rad: the
    integrator's update of the Euler parameters is not the trapezoid rule)."""
    import flexmbs as fm

    p = MOTOR_DRIVE
    model, omega = motor_drive_model()
    res = fm.simulate(model, 1.2, rtol=1e-7, atol=1e-9)
    assert res.success, res.message
    assert res.statistics["engine"].startswith("compiled"), res.statistics["engine"]
    dr = p["d"] / (2 * math.pi)
    assert res["element/drive/motor.speed"][-1] == pytest.approx(omega, rel=1e-4)
    assert res["element/drive/M.pressure"][-1] == pytest.approx((p["tc"] + p["b"] * omega) / dr, rel=1e-4)
    angle, speed = res["element/drive/y/rotation(shaft)"], res["element/drive/motor.speed"]
    turned = np.concatenate(([0.0], np.cumsum(0.5 * np.diff(res.time) * (speed[1:] + speed[:-1]))))
    assert angle[-1] > 15 * 2 * math.pi
    assert np.max(np.abs(angle - angle[0] - turned)) < 1e-5 * angle[-1]


@pytest.mark.parametrize("housing", [False, True])
def test_motor_on_the_compiled_step_equals_the_python_path(housing):
    """:func:`motor_drive_model` over 0.6 s (the shaft turns 6 times) on ``engine="compiled"`` (the motor's kernel,
    the joint angle measured in the compiled step, unwrapped against the last accepted step) and on
    as a user's Python element called back (``HydraulicMotor``'s methods, ``JointCoordinate.evaluate``,
    integration_tolerance.as_callbacks): the same equations, solved
    with the same algorithm, so the histories of speed, pressure and angle at the same output times agree to
    1e-6 of their range (ten times ``rtol``; measured 5e-10 to 1e-8, the same step counts). With the
    housing (the measurement's joint between two moving bodies) the angular momentum about the shaft stays zero,
    ``J_h w_h + J_d w_d = 0``, to 1e-4 of the disc's (an independent check of the torque applied to both sides;
    measured 3e-5 on both engines: the integrator's error over the run-up, while a torque on one side only would
    leave the whole momentum), and the relative speed is the steady speed of the balance (1e-3 relative: still
    settling at 0.6 s)."""
    import flexmbs as fm

    from integration_tolerance import as_callbacks

    runs = {}
    for engine in ("python", "compiled"):  # "python": the circuit as a user's Python element, called back
        model, omega = motor_drive_model(housing)
        if engine == "python":
            as_callbacks(model)
        runs[engine] = res = fm.simulate(model, 0.6, rtol=1e-7, atol=1e-9, output_interval=0.01)
        assert res.success, res.message
        assert res.statistics["engine"] == "compiled", res.statistics["engine"]
    slow, fast = runs["python"], runs["compiled"]
    np.testing.assert_allclose(fast.time, slow.time, rtol=0.0, atol=1e-6)
    for key in ("motor.speed", "M.pressure", "y/rotation(shaft)", "motor.torque"):
        a, b = slow[f"element/drive/{key}"], fast[f"element/drive/{key}"]
        assert np.max(np.abs(a - b)) <= 1e-6 * np.ptp(a), key
    assert slow["element/drive/y/rotation(shaft)"][-1] > 6 * 2 * math.pi
    if housing:
        for res in (slow, fast):
            w_h, w_d = res["body/housing/angular_velocity"][:, 2], res["body/disc/angular_velocity"][:, 2]
            assert np.max(np.abs(0.05 * w_h + 0.02 * w_d)) < 1e-4 * np.max(np.abs(0.02 * w_d))
            assert w_d[-1] - w_h[-1] == pytest.approx(omega, rel=1e-3)
            assert res["element/drive/motor.speed"][-1] == pytest.approx(w_d[-1] - w_h[-1], rel=1e-9)
