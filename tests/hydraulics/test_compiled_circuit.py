"""The compiled circuit kernel (hydraulics.layout), the one implementation of the components' laws, against
closed forms at random points (the laws themselves: test_hydraulics_laws.py and the component tests).

Two circuits: one with every valve and cylinder law, one with the lines, the load-sensing supply, the
pilot-operated valves, every signal that reads other signals, measurements, pressures or states, and a user's
signal with its own kernel (``compiled_signal``). References: the cylinders' gaps ``x``, ``stroke - x`` and rates
(rtol 1e-12); the user's lag ``x' = (u - x)/tau`` and its output ``u - x`` (rtol 1e-12); the mass balance of the
circuit (pressure sources and tank deliver what the volumes, chambers and accumulator take up: rtol 1e-9 of the
largest flow); the motors' ``Q = D_r omega + C_i dp`` and ``T = D_r dp - T_f(omega)`` (rtol 1e-12).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from numba import carray, cfunc

import hydraulics as hy
from hydraulics.layout import compile_circuit
from hydraulics.kernel import HEAD
from hydraulics.signal_kernels import SIGNAL_SIGNATURE


class _Stroke:
    """A stand-in distance measurement (the kernel only needs its place in ``y``)."""

    unit = "m"

    def __init__(self, name):
        self.name = name


LAWS = {"coulomb-viscous": hy.CoulombViscousFriction(300.0, 2e3),
        "brown-mcphee": hy.BrownMcPheeFriction(300.0, 450.0, 0.01, 2e3),
        "stribeck": hy.StribeckFriction(300.0, 450.0, 0.01, 2e3, 1e-3, 1.5)}


def circuit_with_everything(law="coulomb-viscous"):
    oil = hy.Fluid("aerated", 870.0, 1.6e9, 46e-6, air_fraction=0.01)
    c = hy.Circuit("c", oil)
    c.add(hy.PressureSource("P", lambda t: 150e5 + 20e5 * math.sin(7 * t)))
    c.add(hy.Tank("T", 1e5))
    c.add(hy.Volume("VA", 2e-4, initial_pressure=50e5))
    c.add(hy.Volume("VB", 1e-4, wall_bulk_modulus=8e9, initial_pressure=20e5, min_volume=1.2e-4))
    c.add(hy.Volume("VC", 1e-5, initial_pressure=1e5))
    c.add(hy.Cylinder("cyl", 3e-3, 1.8e-3, 0.4, measurement=_Stroke("s"), retracted_length=1.0,
                      dead_volume_a=1e-5, dead_volume_b=1e-5, friction=LAWS[law],
                      stop_stiffness=1e8, stop_damping=1e5), A="VA", B="VB")
    c.add(hy.Cylinder("plunger", 1e-3, 0.0, 0.1, measurement=_Stroke("u"), retracted_length=0.5,
                      single_acting=True, dead_volume_a=2e-6), A="VC")
    c.add(hy.closed_centre_valve("valve", 2e-5, lambda t: 1.4 * math.sin(3 * t), spool=hy.FirstOrderSpool(0.02)),
          P="P", T="T", A="VA", B="VB")
    c.add(hy.Orifice("leak", hy.PiecewiseLinear("leak.area", [0.0, 1.0], [1e-7, 3e-7]), transition="linear"),
          A="VB", B="VC")
    c.add(hy.Throttle("bleed", 2e-9), A="VC", B="T")
    c.add(hy.CheckValve("makeup", 1e-5, 0.3e5, 0.2e5, transition_pressure=0.2e5), A="T", B="VA")
    c.add(hy.ReliefValve("PRV_A", 120e5, 1e-10, width=2e5), P="VA", T="T")
    c.add(hy.ReliefValve("PRV_B", 100e5, 1e-10, width=2e5, time_constant=2e-3), P="VB", T="T")
    c.add(hy.Pipe("line", 3.0, 0.01, minor_loss_coefficient=1.5), A="VA", B="VC")
    return c


@cfunc(SIGNAL_SIGNATURE, cache=True)
def _lag_kernel(want, t, z_, y_, ydot_, sv_, fpar_, ipar_, i, rates_, out_):
    """``_Lag`` as a signal kernel: fpar the time constant; ipar the input's slot and the state."""
    head = carray(ipar_, HEAD)
    ipar, fpar = carray(ipar_, head[6]), carray(fpar_, head[7])
    z, sv, rates = carray(z_, head[0]), carray(sv_, head[10]), carray(rates_, head[0])
    u, st = sv[ipar[i + 2]], ipar[i + 3]
    rates[st] = (u - z[st]) / fpar[ipar[i + 1]]
    if want:
        out = carray(out_, head[8])
        out[ipar[i] + 1] = u - z[st]
    return z[st]


class _Lag(hy.Signal):
    """A user's first-order lag with its own kernel (the signal-kernel protocol): ``x' = (u - x)/tau``, value ``x``,
    output ``error = u - x``."""

    state_names = ("x",)

    def __init__(self, name, inp, tau):
        super().__init__(name)
        self.inp, self.tau = hy.as_signal(inp, f"{name}.in"), tau

    def inputs(self):
        return [self.inp]

    def output_units(self):
        return {"value": "1", "error": "1"}

    def compiled_signal(self, index):
        return _lag_kernel.address, [self.tau], [index.signal(self.inp), self.state_offset], ["value", "error"]


class _OtherLag(_Lag):
    """A subclass of a signal with its own kernel, with a law of its own in Python: a callback."""

    def evaluate(self, ev):
        return self.own_state(ev)

    def state_rates(self, ev):
        return [(ev.signal(self.inp) - self.own_state(ev)) / self.tau]


class _Leak(hy.Orifice):
    """A user's own subclass of a compiled kind with its own law: a callback."""

    def port_flows(self, ev):
        q = 1e-12 * (self.port_pressure(ev, "A") - self.port_pressure(ev, "B"))
        return {"A": -q, "B": q}


class _Stepper(hy.Signal):
    """A user's own signal (a subclass the kernel does not know)."""

    def evaluate(self, ev):
        return 1.0 if ev.t > 0.5 else 0.0


def circuit_with_controls(stroke=None, command=None, lag=_Lag):
    """Lines (pipe with inertia, cushions), a load-sensing supply (variable pump, compensator, shuttle), the
    pilot-operated valves and signals that read signals, measurements, pressures and own states."""
    stroke = stroke or _Stroke("s")
    oil = hy.Fluid("oil", 870.0, 1.5e9, 46e-6)
    c = hy.Circuit("ctl", oil)
    c.add(hy.Tank("T", 0.0))
    supply = hy.Sum("supply", [180e5, hy.SmoothStep("bump", 0.2, 0.6, 0.0, 20e5)])
    c.add(hy.PressureSource("P", supply))
    for name, volume, p0 in (("pump", 1e-4, 150e5), ("metered", 5e-5, 120e5), ("LS", 1e-6, 90e5),
                             ("VA", 2e-4, 80e5), ("VB", 2e-4, 30e5), ("CA", 1e-5, 80e5), ("X", 1e-5, 20e5)):
        c.add(hy.Volume(name, volume, initial_pressure=p0))
    c.add(hy.VariableDisplacementPump("ls_pump", 45e-6, 25.0, 250e5, margin_pressure=20e5,
                                      leakage_conductance=1e-12), S="T", P="pump", LS="LS")
    c.add(hy.PressureCompensator("comp", 1e-4, 15e5, time_constant=3e-3), P="pump", A="metered", X="LS")
    c.add(hy.PressureReducingValve("reducer", 2e-5, 50e5), P="P", A="X", T="T")
    c.add(hy.ShuttleValve("shuttle", 1e-6), A="VA", B="VB", C="LS")
    c.add(hy.Orifice("ls_bleed", 1e-8), A="LS", B="T")
    cyl = c.add(hy.Cylinder("cyl", 3e-3, 1.8e-3, 0.4, measurement=stroke, retracted_length=1.0,
                            dead_volume_a=1e-5, dead_volume_b=1e-5), A="CA", B="VB")
    c.add(hy.Cushion("cushion", cyl, [0.0, 0.02, 0.05], [2e-6, 2e-6, 5e-5], 3e-5), chamber="CA", line="VA")
    hy.add_line(c, "hose", "VA", "X", 4.0, 0.012, segments=2, wall_bulk_modulus=5e8, minor_loss_coefficient=2.0)
    c.add(hy.CounterbalanceValve("cbv", 2e-5, 120e5, 4.0, time_constant=2e-3), L="VB", V="T", X="X")
    c.add(hy.PilotOperatedCheckValve("pocv", 1e-5, 5.0), A="X", B="VB", X="LS")
    c.add(hy.FixedDisplacementPump("charge", 2e-6, lambda t: 20.0 + 5.0 * t, leakage_conductance=1e-12,
                                   relief_pressure=30e5), S="T", P="X")
    c.add(hy.GasAccumulator("acc", 1e-3, 40e5, initial_pressure=80e5), P="VA")
    position = hy.MeasurementSensor("x", stroke, unit="m")
    profile = hy.VelocityProfile("profile", position, 0.1, 2.0, 0.3, 1.5, 1.35, 0.02, 0.01)
    pid = hy.PID("pid", profile, hy.MeasurementSensor("v", stroke, rate=True), 8.0, 0.2, 0.01,
                 output_limits=(-0.8, 0.8))
    lookup = hy.LookupTable("shape", pid, [-1.0, -0.1, 0.1, 1.0], [-1.0, -0.3, 0.3, 1.0])
    gap = hy.Sum("pressure_term", [lookup, hy.PressureSensor("pB", "VB"), hy.PressureSensor("pP", "P")],
                 [1.0, 1e-9, -1e-9])
    volts = hy.Sum("volts", [gap], [10.0]) if command is None else hy.as_signal(command, "volts")
    hyst = hy.Hysteresis("hyst", lag("lag", volts, 0.01), 0.2)
    c.add(hy.closed_centre_valve("valve", 3e-5, hy.NormalisedCommand("U", hyst, hy.VOLTAGE_10V),
                                 spool=hy.SecondOrderSpool(80.0, 0.7)), P="metered", T="T", A="VA", B="VB")
    return c


def random_points(circuit, rng, n=40):
    n_y = len(circuit.measurements)
    z0 = circuit.initial_state()
    for _ in range(n):
        z = z0.copy()
        for k, name in enumerate(circuit.state_names):
            if name.endswith("pressure"):  # near tank, near zero (laminar), cavitating and working pressures
                z[k] = rng.choice([rng.uniform(-2e5, 3e5), rng.uniform(0.0, 250e5), 1e5 + rng.normal() * 500])
            elif name.endswith(".flow"):  # pipes: Re = 2300 at 0.8 (line) and 0.7 (hose) l/s, 4000 at 1.4 and 1.2
                z[k] = rng.uniform(-3e-3, 3e-3)
            elif name.endswith("oil_volume"):  # accumulator (1 l of gas): the closing gate (1 cm^3), between, and
                z[k] = rng.choice([rng.uniform(-0.2e-6, 1.2e-6), rng.uniform(-0.1e-3, 1.1e-3)])  # the gas guard
            elif name.endswith("output"):  # hysteresis output (V)
                z[k] = rng.uniform(-12.0, 12.0)
            else:
                z[k] = rng.uniform(-1.2, 1.2)
        y = np.array([1.0 + rng.uniform(-0.02, 0.42), 0.5 + rng.uniform(-0.01, 0.11)])[:n_y]
        ydot = rng.normal(size=n_y) * 0.05
        yield rng.uniform(0.0, 2.0), z, y, ydot


def assert_closed_forms(circuit, rng):
    """Gaps, the lag and the mass balance at random points."""
    out_names = circuit.output_units
    for t, z, y, ydot in random_points(circuit, rng):
        rates = circuit.rates(t, z, y, ydot)
        out = circuit.outputs(t, z, y, ydot)
        assert list(out) == list(out_names)
        for comp in circuit.components:
            if isinstance(comp, hy.Cylinder) and comp.stop_stiffness:
                k = circuit.measurement_index(comp.measurement)
                x = y[k] - comp.retracted_length
                gaps = circuit.event_gaps(t, z, y, ydot)
                assert gaps[f"{comp.name}.retracted_stop"] == pytest.approx((x, ydot[k]), rel=1e-12, abs=1e-15)
                assert gaps[f"{comp.name}.extended_stop"] == pytest.approx((comp.stroke - x, -ydot[k]), rel=1e-12,
                                                                           abs=1e-15)
            if isinstance(comp, _Lag):
                u = out[f"{comp.inp.name}.value"]
                x = z[comp.state_offset]
                assert rates[comp.state_offset] == pytest.approx((u - x) / comp.tau, rel=1e-12, abs=1e-300)
                if type(comp) is _Lag:  # the error output: its kernel's
                    assert out[f"{comp.name}.error"] == pytest.approx(u - x, rel=1e-12, abs=1e-300)
        # mass balance: delivered by sources and tanks = taken up by the volumes' compression and the chambers
        delivered = sum(out[f"{n.name}.flow"] for n in circuit.components if isinstance(n, (hy.Tank,
                                                                                        hy.PressureSource)))
        stored = 0.0
        for v in circuit.volumes:  # (Q_in + Q_cav - dV/dt) = C dp/dt: the net inflow at each volume
            stored += out[f"{v.name}.compression_power"] / out[f"{v.name}.pressure"] - out[f"{v.name}.cavitation_flow"]
        chambers = sum(c.piston_area * ydot[circuit.measurement_index(c.measurement)]
                       - c.rod_side_area * ydot[circuit.measurement_index(c.measurement)] * (not c.single_acting)
                       for c in circuit.components if isinstance(c, hy.Cylinder))
        gas = sum(out[f"{a.name}.flow"] for a in circuit.components if isinstance(a, hy.GasAccumulator))
        scale = max(abs(out[k]) for k in out if k.endswith(".flow"))
        assert delivered == pytest.approx(stored + chambers + gas, abs=1e-9 * scale)


@pytest.mark.parametrize("seed, law", [(0, "coulomb-viscous"), (1, "coulomb-viscous"), (2, "brown-mcphee"),
                                        (3, "stribeck")])
def test_kernel_closed_forms_of_valves_and_cylinders(seed, law):
    circuit = circuit_with_everything(law)
    compiled, why = compile_circuit(circuit)
    assert why == "", why
    assert_closed_forms(circuit, np.random.default_rng(seed))


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_kernel_closed_forms_of_lines_load_sensing_and_signals(seed):
    circuit = circuit_with_controls()
    compiled, why = compile_circuit(circuit)
    assert why == "", why
    # the engine evaluates the functions of time; the other signals are in the kernel
    assert sorted(k for k, _ in compiled.signals) == ["constant", "constant", "constant", "function"]
    assert_closed_forms(circuit, np.random.default_rng(seed))


def test_subclass_of_a_signal_with_its_own_kernel_is_a_callback():
    circuit = circuit_with_controls(lag=_OtherLag)
    spec, why = circuit.compiled_element()
    assert spec is None and "Python callbacks 'lag'" in why
    assert_closed_forms(circuit, np.random.default_rng(9))


def test_user_signal_is_a_callback():
    spec, why = circuit_with_controls(command=_Stepper("stepper")).compiled_element()
    assert spec is None and "'stepper'" in why


def test_user_component_is_a_callback():
    circuit = circuit_with_everything()
    circuit.add(_Leak("leak2", 1e-7), A="VA", B="T")
    spec, why = circuit.compiled_element()
    assert spec is None and "Python callbacks 'leak2'" in why


class _Angle:
    """A stand-in shaft angle (the kernel only needs its place in ``y``; a motor reads only its rate)."""

    unit = "rad"

    def __init__(self, name):
        self.name = name


MOTOR_LAWS = {"none": None, "coulomb-viscous": hy.CoulombViscousFriction(4.0, 0.02, 0.5),
              "brown-mcphee": hy.BrownMcPheeFriction(4.0, 6.0, 2.0, 0.02),
              "stribeck": hy.StribeckFriction(4.0, 6.0, 2.0, 0.02, 0.5, 1.5)}


def circuit_with_motors():
    """A motor of each friction law (and one without) between volumes, a source and the tank, each on its own
    shaft; one from a datasheet (its leakage and Coulomb-viscous law from the efficiencies)."""
    c = hy.Circuit("motors")
    c.add(hy.PressureSource("P", lambda t: 150e5 + 20e5 * math.sin(7 * t)))
    c.add(hy.Tank("T", 1e5))
    c.add(hy.Volume("VA", 2e-4, initial_pressure=80e5))
    c.add(hy.Volume("VB", 1e-4, initial_pressure=20e5))
    ports = [("P", "VA"), ("VA", "VB"), ("VB", "T"), ("VA", "T")]
    for k, (law, (a, b)) in enumerate(zip(MOTOR_LAWS, ports)):
        c.add(hy.HydraulicMotor(f"m_{law}", (10 + 5 * k) * 1e-6, measurement=_Angle(f"phi{k}"),
                                internal_leakage=1e-11 * k, friction=MOTOR_LAWS[law]), A=a, B=b)
    c.add(hy.HydraulicMotor.from_datasheet("m_sheet", 50e-6, 25.0, 200e5, 0.95, 0.92, measurement=_Angle("phi4")),
          A="P", B="VB")
    return c


@pytest.mark.parametrize("seed", [7, 8])
def test_motor_kernel_closed_form(seed):
    """Every motor output against ``Q = D_r omega + C_i dp``, ``T = D_r dp - T_f(omega)`` (``T_f`` the law's
    ``force``), ``P_shaft = T omega``, ``P_hyd = dp Q`` (rtol 1e-12), and the torques conjugate to the shaft angles,
    at random pressures (near zero, working, cavitating), angles over several turns and speeds in every friction
    regime: standstill, inside the Coulomb width and the Stribeck velocity (0.5 and 2 rad/s), and up to 200 rad/s."""
    circuit = circuit_with_motors()
    compiled, why = compile_circuit(circuit)
    assert why == "", why
    assert [name for name in compiled.output_names if name.startswith("m_none.")] == [
        "m_none.flow", "m_none.speed", "m_none.torque", "m_none.shaft_power", "m_none.hydraulic_power"]
    rng = np.random.default_rng(seed)
    n_y = len(circuit.measurements)
    assert n_y == 5
    motors = [c for c in circuit.components if isinstance(c, hy.HydraulicMotor)]
    for _ in range(60):
        t = rng.uniform(0.0, 2.0)
        z = circuit.initial_state()
        z[:] = [rng.choice([rng.uniform(-2e5, 3e5), rng.uniform(0.0, 250e5)]) for _ in z]
        y = rng.uniform(-40.0, 40.0, n_y)
        ydot = rng.choice([0.0, 1.0, 10.0, 200.0]) * rng.uniform(-1.0, 1.0, n_y)
        out, forces = circuit.outputs(t, z, y, ydot), circuit.forces(t, z, y, ydot)
        for m in motors:
            k = circuit.measurement_index(m.measurement)
            dp = out[f"{m.nodes['A'].name}.pressure"] - out[f"{m.nodes['B'].name}.pressure"]
            w = ydot[k]
            q = m.radial_displacement * w + m.internal_leakage * dp
            torque = m.radial_displacement * dp - (m.friction.force(w)[0] if m.friction is not None else 0.0)
            expected = {"flow": q, "speed": w, "torque": torque, "shaft_power": torque * w, "hydraulic_power": dp * q}
            for key, value in expected.items():
                assert out[f"{m.name}.{key}"] == pytest.approx(value, rel=1e-12, abs=1e-12), key
            assert forces[k] == pytest.approx(torque, rel=1e-12, abs=1e-12)
