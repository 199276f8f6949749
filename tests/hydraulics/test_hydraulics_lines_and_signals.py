"""Pipes (resistance and inertia) and the signal/controller blocks."""
import math

import numpy as np
import pytest

import hydraulics as h

FLUID = h.HLP46
MU = FLUID.dynamic_viscosity


def pipe_between(p_a, p_b, length, diameter, segments=1):
    c = h.Circuit("pipe")
    c.add(h.PressureSource("A", p_a))
    c.add(h.PressureSource("B", p_b))
    h.add_line(c, "line", "A", "B", length, diameter, segments=segments)
    return c


def test_laminar_pipe_follows_hagen_poiseuille():
    """Steady q = pi d^4 dp / (128 mu l) for Re < 2300 (lambda = 64/Re in seed 003 eq. (2-232))."""
    dp, length, d = 1e5, 2.0, 0.004
    c = pipe_between(dp, 0.0, length, d, segments=3)
    result = h.simulate_circuit(c, t_end=0.5)  # the line rings down with rate R/(2L) = 16 nu/d^2 = 46 1/s
    q = result.outputs["line[0].flow"][-1]
    expected = math.pi * d**4 * dp / (128 * MU * length)
    assert q == pytest.approx(expected, rel=1e-6)
    assert q / (math.pi * d**2 / 4) * d / FLUID.kinematic_viscosity < 2300


def test_turbulent_pipe_follows_blasius():
    """dp = 0.3164 Re^-0.25 (l/d) rho v^2/2 (Blasius friction factor in eq. (2-232)) for Re > 4000."""
    dp, length, d = 30e5, 2.0, 0.01
    result = h.simulate_circuit(pipe_between(dp, 0.0, length, d), t_end=0.5)
    q = result.outputs["line.flow"][-1]
    area = math.pi * d**2 / 4
    v = q / area
    re = v * d / FLUID.kinematic_viscosity
    assert re > 4000
    assert 0.3164 * re**-0.25 * (length / d) * FLUID.density * v**2 / 2 == pytest.approx(dp, rel=1e-6)


def test_fluid_inertia_line_and_volume_ring_at_one_over_sqrt_lc():
    """Pipe (inertance L = rho l / A, seed 003 eq. (2-225)) feeding a closed volume (C = V/E): omega^2 = 1/(L C)
    less the laminar damping, omega_d = sqrt(1/(LC) - (R/2L)^2)."""
    length, d, volume, dp = 5.0, 0.012, 1e-3, 1e5
    c = h.Circuit("ring")
    c.add(h.PressureSource("S", dp))
    c.add(h.Volume("V", volume))
    c.add(h.Pipe("pipe", length, d), A="S", B="V")
    area = math.pi * d**2 / 4
    inertance = FLUID.density * length / area
    capacitance = volume / FLUID.bulk_modulus
    resistance = 128 * MU * length / (math.pi * d**4)
    omega_d = math.sqrt(1 / (inertance * capacitance) - (resistance / (2 * inertance)) ** 2)
    period = 2 * math.pi / omega_d
    t = np.linspace(0, 4 * period, 4001)
    p = h.simulate_circuit(c, t_end=4 * period, t_eval=t, rtol=1e-9).outputs["V.pressure"] - dp
    crossings = [t[i] - p[i] * (t[i + 1] - t[i]) / (p[i + 1] - p[i]) for i in range(len(t) - 1) if p[i] < 0 <= p[i + 1]]
    assert np.mean(np.diff(crossings)) == pytest.approx(period, rel=1e-3)


def test_tables_steps_and_ramps():
    c = h.Circuit("signals")
    c.add(h.Tank("T"))
    for sig in (h.PiecewiseLinear("pwl", [0, 1, 2], [0, 10, 5]), h.SmoothStep("step", 1.0, 2.0, 3.0, 7.0),
                h.Ramp("ramp", 0.5, 1.5, 0.0, 2.0)):
        c.add(sig)

    def out(t):
        return c.outputs(t, c.initial_state(), [], [])

    assert out(0.5)["pwl.value"] == 5.0 and out(1.5)["pwl.value"] == 7.5 and out(9.0)["pwl.value"] == 5.0
    assert out(0.0)["step.value"] == 3.0 and out(1.5)["step.value"] == 5.0 and out(3.0)["step.value"] == 7.0
    assert out(1.0)["ramp.value"] == 1.0 and out(2.0)["ramp.value"] == 2.0


def pid_bench(error_of_t, **pid_args):
    c = h.Circuit("pid")
    c.add(h.Tank("T"))
    c.add(h.PID("pid", setpoint=error_of_t, measurement=0.0, **pid_args))
    return c


def test_pid_integral_and_filtered_derivative_against_the_transfer_function():
    """Seed 003 eq. (4-12) with a ramp error e = r t: u = K_P (r t + r t^2/(2 T_I) + T_D r (1 - exp(-t/T)))."""
    kp, ti, td, tf, rate = 2.0, 0.5, 0.05, 0.01, 3.0
    c = pid_bench(lambda t: rate * t, gain=kp, integral_time=ti, derivative_time=td, filter_time=tf)
    t = np.array([0.01, 0.05, 0.2])
    u = h.simulate_circuit(c, t_end=0.2, t_eval=t, rtol=1e-10).outputs["pid.value"]
    expected = kp * (rate * t + rate * t**2 / (2 * ti) + td * rate * (1 - np.exp(-t / tf)))
    assert np.allclose(u, expected, rtol=1e-6)


def test_pid_saturation_and_back_calculation_anti_windup():
    """Constant error e under saturation: I settles where K_P e/T_I + (u_max - K_P e - I)/T_t = 0."""
    kp, ti, tt, e, u_max = 1.0, 0.1, 0.05, 2.0, 1.0
    c = pid_bench(e, gain=kp, integral_time=ti, tracking_time=tt, output_limits=(-u_max, u_max))
    r = h.simulate_circuit(c, t_end=2.0)
    assert r.outputs["pid.value"].max() == pytest.approx(u_max)
    assert r.state("pid.integral")[-1] == pytest.approx(u_max - kp * e + tt * kp * e / ti, rel=1e-6)


def test_velocity_profile_accelerates_in_time_and_decelerates_in_position():
    """Seed 003 §4.2.3: v = min(a (t - t0), v_max, sqrt(v_f^2 + 2 d (x_end - x - s)))."""
    c = h.Circuit("vp")
    cyl = h.Cylinder("cyl", 1e-3, 5e-4, 4.0)
    c.add(h.Tank("T"))
    c.add(cyl, A="T", B="T")
    x = h.MeasurementSensor("x", cyl.measurement, unit="m")
    c.add(h.VelocityProfile("vp", x, start_time=0.1, acceleration=1.0, max_velocity=0.76, deceleration=1.2,
                            end_position=3.3, final_velocity=0.025, safety_distance=0.0035))

    def out(t, pos):
        return c.outputs(t, [], np.array([pos]), np.array([0.0]))["vp.value"]

    assert out(0.05, 0.0) == 0.0
    assert out(0.4, 0.1) == pytest.approx(0.3)
    assert out(2.0, 1.0) == pytest.approx(0.76)
    remaining = 3.3 - 3.2 - 0.0035
    assert out(5.0, 3.2) == pytest.approx(math.sqrt(0.025**2 + 2 * 1.2 * remaining))
    assert out(5.0, 3.299) == pytest.approx(0.025)


def test_closed_loop_position_control_reaches_the_setpoint():
    """PID on a stroke sensor driving a proportional valve: the integral action removes the load offset, so the
    piston settles at the set-point, and the chamber pressures then balance the load: p_A A_A - p_B A_B = F."""
    p_s, a1, a2, m, load = 100e5, 2e-3, 1e-3, 100.0, 5e3
    c = h.Circuit("servo")
    c.add(h.PressureSource("P", p_s))
    c.add(h.Tank("T"))
    c.add(h.Volume("A", 2e-4, initial_pressure=load / a1))
    c.add(h.Volume("B", 2e-4))
    cyl = h.Cylinder("cyl", a1, a2, 1.0, friction=h.CoulombViscousFriction(0.0, 5e3))
    c.add(cyl, A="A", B="B")
    x = h.MeasurementSensor("x", cyl.measurement, unit="m")
    pid = h.PID("pid", setpoint=0.3, measurement=x, gain=20.0, integral_time=0.5, derivative_time=0.0,
                output_limits=(-1.0, 1.0))
    c.add(h.proportional_valve("dcv", 60e-3 / 60, 35e5, FLUID.density, pid, h.SecondOrderSpool(120.0, 0.7)),
          P="P", T="T", A="A", B="B")
    r = h.simulate_with_mass(c, m, 4.0, 0.2, load=lambda t: -load, max_step=0.01)
    assert r.position[-1] == pytest.approx(0.3, abs=1e-4)
    o = r.outputs
    assert o["A.pressure"][-1] * a1 - o["B.pressure"][-1] * a2 == pytest.approx(load, rel=1e-3)
