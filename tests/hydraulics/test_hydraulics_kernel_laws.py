"""Each law of the compiled circuit kernel against its closed form, written out here, at random states.

The kernel is the one implementation of the components' laws (no Python twin to compare with); these closed forms
come from the components' docstrings and the seeds: the orifice law with its cubic laminar region (seed 002
eq. (5), (6)), the valve paths (area fraction by the spool table, end values held), the spool lags, a pipe with
fluid inertia (seed 003 eq. (2-225), Hagen-Poiseuille below Re 2300, Blasius above 4000), the shuttle valve, the
load-sensing pump, the four pilot-operated valves, the gas accumulator, the PID of seed 003 eq. (4-12), the
hysteresis, the cylinder's end stops (seed 001 eq. (25)), the cushion, the fixed pump with its relief (seed 001
eq. (43)), the smooth step, the velocity profile (seed 003 §4.2.3) and the normalised command. Read through ``Circuit.outputs`` and ``Circuit.rates``; rtol 1e-12 (the same formulas, round-off).
"""
import math

import numpy as np
import pytest

import hydraulics as h

RHO = h.HLP46.density
ATM = 101325.0


def orifice(dp, gamma, lim):
    """Seed 002 eq. (5) with the odd cubic below ``lim``."""
    if abs(dp) >= lim:
        return gamma * math.copysign(math.sqrt(abs(dp)), dp)
    r = dp / lim
    return gamma * math.sqrt(lim) * (1.25 * r - 0.25 * r**3)


def step(x, a, b):
    """The cubic smooth step ``3 s^2 - 2 s^3`` of ``s = (x - a)/(b - a)`` clipped to [0, 1]."""
    s = min(max((x - a) / (b - a), 0.0), 1.0)
    return s * s * (3.0 - 2.0 * s)


def softplus(x, w):
    return w * math.log1p(math.exp(x / w)) if x / w < 40.0 else x


def k_of(comp, area):
    return comp.discharge_coefficient * area * math.sqrt(2.0 / RHO)


NODES = ("N1", "N2", "N3", "N4", "N5", "N6")


def law_circuit():
    """Every law below between six volumes and the tank (the pressures are set at random)."""
    c = h.Circuit("laws")
    c.add(h.Tank("T"))
    for name in NODES:
        c.add(h.Volume(name, 1e-4))
    c.add(h.closed_centre_valve("valve", 3e-5, 0.6, spool=h.FirstOrderSpool(0.01)), P="N1", T="T", A="N2", B="N3")
    c.add(h.closed_centre_valve("fast", 2e-5, h.Constant("u", -1.3)), P="N1", T="T", A="N4", B="N5")
    c.add(h.Pipe("pipe", 2.0, 0.01), A="N1", B="N6")
    c.add(h.ShuttleValve("shuttle", 1e-6), A="N2", B="N3", C="N4")
    c.add(h.VariableDisplacementPump("pump", 45e-6, 25.0, 250e5, margin_pressure=20e5, leakage_conductance=1e-12),
          S="T", P="N1", LS="N4")
    c.add(h.PressureCompensator("comp", 1e-4, 15e5), P="N1", A="N2", X="N4")
    c.add(h.PressureReducingValve("reducer", 2e-5, 50e5), P="N1", A="N5", T="T")
    c.add(h.CounterbalanceValve("cbv", 2e-5, 120e5, 4.0), L="N3", V="T", X="N5")
    c.add(h.PilotOperatedCheckValve("pocv", 1e-5, 5.0), A="N6", B="N3", X="N4")
    c.add(h.GasAccumulator("acc", 1e-3, 40e5), P="N6")
    pid = h.PID("pid", h.PressureSensor("p1", "N1"), h.PressureSensor("p2", "N2"), 1e-6, 0.2, 0.01,
                output_limits=(-0.8, 0.8))
    c.add(h.Hysteresis("hyst", pid, 0.2))
    return c.finalize()


def random_state(c, rng):
    z = c.initial_state()
    for k, name in enumerate(c.state_names):
        if name.endswith(".pressure"):
            z[k] = rng.choice([rng.uniform(-1e5, 3e5), rng.uniform(0.0, 300e5)])
        elif name == "pipe.flow":  # laminar (Re < 2300) or turbulent (Re > 4000)
            pipe = c.component("pipe")
            per_re = pipe.area * h.HLP46.kinematic_viscosity / pipe.diameter  # flow per Reynolds number
            z[k] = rng.choice([-1.0, 1.0]) * rng.choice([rng.uniform(0.0, 2200.0), rng.uniform(4100.0, 2e4)]) * per_re
        elif name == "acc.oil_volume":  # gate closed, opening and open; gas above its guard
            z[k] = rng.choice([rng.uniform(-0.5e-6, 1.5e-6), rng.uniform(0.0, 0.9e-3)])
        elif name.startswith("pid."):
            z[k] = rng.uniform(-1.0, 1.0)
        else:  # spool, hysteresis output, opening fractions
            z[k] = rng.uniform(-1.2, 1.2)
    return z


@pytest.mark.parametrize("seed", range(4))
def test_kernel_laws_equal_their_closed_forms(seed):
    c = law_circuit()
    rng = np.random.default_rng(seed)
    comp = c.component
    for _ in range(50):
        z = random_state(c, rng)
        t = rng.uniform(0.0, 1.0)
        none = np.zeros(0)
        out, rates = c.outputs(t, z, none, none), c.rates(t, z, none, none)
        p = {name: out[f"{name}.pressure"] for name in NODES}
        p["T"] = 0.0
        state = {name: z[k] for k, name in enumerate(c.state_names)}
        rate = {name: rates[k] for k, name in enumerate(c.state_names)}
        expect = {}
        # directional valves: each path an orifice of k_v * fraction(spool), the fractions by the table
        for valve, u in (("valve", state["valve.spool"]), ("fast", -1.0)):
            v = comp(valve)
            flows = {}
            for path in v.paths:
                a, b = v.nodes[path.from_port].name, v.nodes[path.to_port].name
                frac = np.interp(u, path.positions, path.fractions)
                key = f"{valve}.flow_{path.from_port}{path.to_port}"
                flows[key] = flows.get(key, 0.0) + orifice(p[a] - p[b], k_of(v, v.max_area) * frac,
                                                           v.transition_pressure)
            expect.update(flows)
        expect["valve.spool"] = state["valve.spool"]
        assert rate["valve.spool"] == pytest.approx((0.6 - state["valve.spool"]) / 0.01, rel=1e-12)
        # pipe: L q' = p_A - p_B - dp_loss(q), laminar 128 rho nu l q / (pi d^4), turbulent Blasius
        pipe, q = comp("pipe"), state["pipe.flow"]
        nu, d, area = h.HLP46.kinematic_viscosity, pipe.diameter, pipe.area
        reynolds = abs(q) * d / (area * nu)
        if reynolds < 2300.0:
            loss = 128.0 * RHO * nu * pipe.length * q / (math.pi * d**4)
        else:
            assert reynolds > 4000.0
            loss = 0.3164 * reynolds**-0.25 * pipe.length / d * 0.5 * RHO * q * abs(q) / area**2
        assert rate["pipe.flow"] == pytest.approx((p["N1"] - p["N6"] - loss) / (RHO * pipe.length / area),
                                                  rel=1e-9, abs=1e-9)
        expect["pipe.flow"], expect["pipe.power_loss"] = q, loss * q
        # shuttle: the higher of A and B passes to C
        sh = comp("shuttle")
        s = step(p["N2"] - p["N3"], -sh.switching_range, sh.switching_range)
        k = k_of(sh, sh.max_area)
        expect["shuttle.flow_AC"] = orifice(p["N2"] - p["N4"], k * s, sh.transition_pressure)
        expect["shuttle.flow_BC"] = orifice(p["N3"] - p["N4"], k * (1.0 - s), sh.transition_pressure)
        # load-sensing pump: target min(p_LS + margin, p_c) rounded, command clamp((p_ref - p_P)/band)
        pump, eps = comp("pump"), state["pump.displacement_fraction"]
        a = p["N4"] + pump.margin_pressure
        ref = a - softplus(a - pump.compensator_pressure, 0.1 * pump.regulation_band)
        command = (ref - p["N1"]) / pump.regulation_band
        if 0.02 <= command <= 0.98 or command <= -0.02 or command >= 1.02:  # the clamp exact there
            target = min(max(command, 0.0), 1.0)
            assert rate["pump.displacement_fraction"] == pytest.approx((target - eps) / pump.time_constant,
                                                                       rel=1e-12, abs=1e-12)
        expect["pump.flow"] = eps * pump.displacement * 25.0 - pump.leakage_conductance * p["N1"]
        expect["pump.target_pressure"] = ref
        # pilot-operated valves: opening = step(balance, 0, range); flow through k (eps + (1 - eps) opening)
        pilots = {"comp": ("N1", "N2", comp("comp").pressure_difference - (p["N2"] - p["N4"])),
                  "reducer": ("N1", "N5", comp("reducer").set_pressure - (p["N5"] - 0.0)),
                  "cbv": ("N3", "T", (p["N3"] - 0.0) + 4.0 * (p["N5"] - 0.0) - comp("cbv").cracking_pressure)}
        for name, (inlet, outlet, balance) in pilots.items():
            v = comp(name)
            opening = step(balance, 0.0, v.opening_range)
            gamma = k_of(v, v.max_area) * (v.leakage_fraction + (1.0 - v.leakage_fraction) * opening)
            flow = orifice(p[inlet] - p[outlet], gamma, v.transition_pressure)
            if name == "cbv":  # its check stage from V to L
                dp = 0.0 - p["N3"]
                flow -= orifice(dp, k_of(v, v.check_area) * step(dp, v.check_cracking,
                                                                 v.check_cracking + v.check_opening_range),
                                v.transition_pressure)
            expect[f"{name}.opening"], expect[f"{name}.flow"] = opening, flow
        v = comp("pocv")  # free flow A -> B above cracking, or piloted open by X
        sf = step(p["N6"] - p["N3"] - v.cracking_pressure, 0.0, v.opening_range)
        sp = step(5.0 * (p["N4"] - p["N6"]) - (p["N3"] - p["N6"]) - v.cracking_pressure, 0.0, v.opening_range)
        opening = 1.0 - (1.0 - sf) * (1.0 - sp)
        expect["pocv.opening"] = opening
        expect["pocv.flow"] = orifice(p["N6"] - p["N3"], k_of(v, v.max_area) * (v.leakage_fraction + (
            1.0 - v.leakage_fraction) * opening), v.transition_pressure)
        # gas accumulator: polytropic gas, a gate closing the port on an empty bladder
        acc, oil = comp("acc"), state["acc.oil_volume"]
        gas = acc.gas_volume - oil
        if gas >= 0.015 * acc.gas_volume:  # the gas guard exact there
            pg = (acc.precharge + ATM) * (acc.gas_volume / gas) ** acc.polytropic_index - ATM
            dp = p["N6"] - pg
            opening = step(dp, -acc.switching_pressure, acc.switching_pressure)
            gate = step(oil, 0.0, acc.closing_volume)
            flow = orifice(dp, k_of(acc, acc.port_area) * (opening + (1.0 - opening) * gate), acc.transition_pressure)
            expect["acc.gas_pressure"], expect["acc.flow"] = pg, flow
            assert rate["acc.oil_volume"] == pytest.approx(flow, rel=1e-12, abs=1e-18)
        # PID (seed 003 eq. (4-12)) with saturation and back-calculation; the hysteresis of its output
        pid = comp("pid")
        e = p["N1"] - p["N2"]
        integral, xi = state["pid.integral"], state["pid.derivative_filter"]
        u = pid.gain * e + integral + pid.gain * pid.derivative_time / pid.filter_time * (e - xi)
        u_sat = min(max(u, pid.u_min), pid.u_max)
        expect["pid.value"] = u_sat
        assert rate["pid.integral"] == pytest.approx(pid.gain / pid.integral_time * e + (u_sat - u)
                                                     / pid.tracking_time, rel=1e-12, abs=1e-12)
        assert rate["pid.derivative_filter"] == pytest.approx((e - xi) / pid.filter_time, rel=1e-12)
        hy, held = comp("hyst"), state["hyst.output"]
        b = hy.half_width
        up, down = softplus(u_sat - held - b, b / 100.0), softplus(held - u_sat - b, b / 100.0)
        assert rate["hyst.output"] == pytest.approx((up - down) / hy.time_constant, rel=1e-9, abs=1e-9)
        expect["hyst.value"] = held
        for key, value in expect.items():
            assert out[key] == pytest.approx(value, rel=1e-12, abs=1e-18), key


class _Stroke:
    unit = "m"
    name = "stroke"


def actuator_circuit():
    """A cylinder with end stops and a cushion, a fixed pump with its relief, and signals of time and stroke."""
    stroke = _Stroke()
    c = h.Circuit("actuator")
    c.add(h.Tank("T"))
    for name in ("S", "CA", "L", "B"):
        c.add(h.Volume(name, 1e-4))
    cyl = c.add(h.Cylinder("cyl", 3e-3, 1.8e-3, 0.4, measurement=stroke, retracted_length=1.0, dead_volume_a=1e-5,
                           dead_volume_b=1e-5, stop_stiffness=1e8, stop_damping=1e5), A="CA", B="B")
    c.add(h.Cushion("cushion", cyl, [0.0, 0.02, 0.05], [2e-6, 2e-6, 5e-5], 3e-5), chamber="CA", line="L")
    c.add(h.FixedDisplacementPump("pump", 2e-6, h.SmoothStep("speed", 0.2, 0.6, 10.0, 30.0),
                                  leakage_conductance=1e-12, relief_pressure=200e5), S="T", P="S")
    position = h.MeasurementSensor("x", stroke, unit="m")
    c.add(h.VelocityProfile("profile", position, 0.1, 2.0, 0.3, 1.5, 1.35, 0.02, 0.01))
    c.add(h.NormalisedCommand("U", h.Ramp("volts", 0.0, 1.0, 0.0, 10.0), h.VOLTAGE_10V))
    return c.finalize(), stroke


@pytest.mark.parametrize("seed", range(3))
def test_cylinder_cushion_pump_and_signals_equal_their_closed_forms(seed):
    """Cylinder force with its end stops (seed 001 eq. (25): ``c d + d_s step(d) d'``, pushing back into the
    stroke), the cushion (its docstring's law), the pump ``D n - G dp - k_v softplus(dp - p_cr)`` (seed 001
    eq. (43)), the smooth step of the speed, the velocity profile of seed 003 §4.2.3, the normalised command."""
    c, stroke = actuator_circuit()
    rng = np.random.default_rng(seed)
    cyl, cushion, pump = c.component("cyl"), c.component("cushion"), c.component("pump")
    for _ in range(50):
        t = rng.uniform(0.0, 1.2)
        z = np.array([rng.choice([rng.uniform(-1e5, 3e5), rng.uniform(0.0, 250e5)]) for _ in c.state_names])
        x = rng.choice([rng.uniform(-0.01, 0.06), rng.uniform(0.06, 0.41)])
        y, ydot = np.array([1.0 + x]), np.array([rng.uniform(-0.5, 0.5)])
        out, forces = c.outputs(t, z, y, ydot), c.forces(t, z, y, ydot)
        p = {name: out[f"{name}.pressure"] for name in ("S", "CA", "L", "B")}
        v = ydot[0]
        # cylinder: pressure force, no friction, end stops
        pressure_force = p["CA"] * cyl.piston_area - p["B"] * cyl.rod_side_area
        stop = 0.0
        if x < 0.0 or x > cyl.stroke:
            sign = 1.0 if x > cyl.stroke else -1.0
            depth = x - cyl.stroke if x > cyl.stroke else -x
            stop = sign * (cyl.stop_stiffness * depth + cyl.stop_damping * step(depth, 0.0, cyl.stop_damping_depth)
                           * sign * v)
        assert out["cyl.pressure_force"] == pytest.approx(pressure_force, rel=1e-12)
        assert out["cyl.stop_force"] == pytest.approx(stop, rel=1e-12, abs=1e-12)
        assert forces[0] == pytest.approx(pressure_force - stop, rel=1e-12, abs=1e-9)
        # cushion: table orifice out of the chamber, check-valve bypass into it
        k = cushion.discharge_coefficient * math.sqrt(2.0 / RHO)
        area = np.interp(x, cushion.positions, cushion.areas)
        dp = p["CA"] - p["L"]
        q = orifice(dp, k * area, cushion.transition_pressure) - orifice(
            -dp, k * cushion.bypass_area * step(-dp, cushion.bypass_cracking, 2.0 * cushion.bypass_cracking + 1.0),
            cushion.transition_pressure)
        assert out["cushion.flow"] == pytest.approx(q, rel=1e-12, abs=1e-18)
        # pump with its built-in relief; its speed a smooth step of time
        n = 10.0 + 20.0 * step(t, 0.2, 0.6)
        assert out["speed.value"] == pytest.approx(n, rel=1e-12)
        dp = p["S"] - 0.0
        q = pump.displacement * n - pump.leakage_conductance * dp - pump.relief_gain * softplus(
            dp - pump.relief_pressure, pump.relief_width)
        assert out["pump.flow"] == pytest.approx(q, rel=1e-12, abs=1e-18)
        # velocity profile: v = min(a (t - t0), v_max, sqrt(v_f^2 + 2 d s_rem)), 0 before t0
        remaining = (1.35 - (1.0 + x)) - 0.01
        v_dec = 0.02 if remaining <= 0.0 else math.sqrt(0.02**2 + 2.0 * 1.5 * remaining)
        expected = 0.0 if t <= 0.1 else min(2.0 * (t - 0.1), 0.3, v_dec)
        assert out["profile.value"] == pytest.approx(expected, rel=1e-12, abs=1e-15)
        # the normalised command of a 0..10 V ramp on the -10..10 V range: (c - 0 V) / 10 V
        assert out["U.value"] == pytest.approx(10.0 * min(t, 1.0) / 10.0, rel=1e-12, abs=1e-15)
