"""A user's component and signal as Python callbacks of the compiled circuit (docs/element-protocol.md, "A
hydraulic component in Python"), against their built-in twins in the kernel.

References: the user's versions are written here from the documented closed forms (the orifice law of seed 002
eq. (5), (6) with its cubic laminar region; a first-order lag of a ramp; a plunger cylinder's chamber and force),
the built-in twins are the kernel's. Runs of the two circuits agree to their integration tolerance (rtol 1e-8:
the pressures within 1e-5 relative of their range); the evaluations at one point to round-off where both add the
same terms (rtol 1e-12); the Jacobian of a circuit with callbacks (central differences of kernel and callbacks)
against independent central differences (rtol 1e-4, 1e-5 of the block's largest entry, as the other Jacobian
tests).
"""
import math

import numpy as np
import pytest

import hydraulics as h
from fem.errors import ModelError
from hydraulics_checks import finite_difference_jacobian

RHO = h.HLP46.density


class UserOrifice(h.Component):
    """An orifice written by a user: ``Q = C_d A sqrt(2|dp|/rho) sign(dp)``, the cubic below ``dp_lim``."""

    ports = ("A", "B")

    def __init__(self, name, area, opening=None, discharge_coefficient=0.7, transition_pressure=2e5):
        super().__init__(name)
        self.area, self.opening = area, opening
        self.k = discharge_coefficient * math.sqrt(2.0 / RHO)
        self.lim = transition_pressure

    def signals(self):
        return [self.opening] if self.opening is not None else []

    def output_units(self):
        return {"flow": "m^3/s"}

    def flow(self, ev):
        dp = self.port_pressure(ev, "A") - self.port_pressure(ev, "B")
        gamma = self.k * self.area * (ev.signal(self.opening) if self.opening is not None else 1.0)
        if abs(dp) >= self.lim:
            return gamma * math.copysign(math.sqrt(abs(dp)), dp)
        r = dp / self.lim
        return gamma * math.sqrt(self.lim) * (1.25 * r - 0.25 * r**3)

    def port_flows(self, ev):
        q = self.flow(ev)
        return {"A": -q, "B": q}

    def outputs(self, ev):
        return {"flow": self.flow(ev)}


class UserLag(h.Signal):
    """A user's first-order lag ``x' = (u - x)/tau`` of its input, value ``x``."""

    state_names = ("x",)
    state_units = ("1",)

    def __init__(self, name, inp, tau):
        super().__init__(name)
        self.inp, self.tau = inp, tau

    def inputs(self):
        return [self.inp]

    def evaluate(self, ev):
        return self.own_state(ev)

    def state_rates(self, ev):
        return [(ev.signal(self.inp) - self.own_state(ev)) / self.tau]


class UserPlunger(h.Component):
    """A user's single-acting cylinder: chamber ``V = V_d + A x``, force ``p A`` on the stroke ``x``."""

    ports = ("A",)

    def __init__(self, name, area, dead_volume, measurement):
        super().__init__(name)
        self.area, self.dead_volume, self.measurement = area, dead_volume, measurement

    def measurements(self):
        return [self.measurement]

    def chambers(self, ev):
        x, v = ev.measurement(self.measurement), ev.measurement_rate(self.measurement)
        return [("A", self.dead_volume + self.area * x, self.area * v, math.inf)]

    def forces(self, ev):
        return [(self.measurement, self.port_pressure(ev, "A") * self.area)]


class _Stroke:
    unit = "m"
    name = "stroke"


def circuits():
    """The same circuit twice, with built-in orifices and with the user's (the inlet opened by a ramp)."""
    out = {}
    for user in (False, True):
        c = h.Circuit("user" if user else "builtin")
        c.add(h.PressureSource("P", 100e5))
        c.add(h.Tank("T"))
        c.add(h.Volume("V", 2e-4, initial_pressure=5e5))
        ramp = h.Ramp("u", 0.0, 0.05, 0.0, 1.0)
        if user:
            c.add(UserOrifice("in", 2e-6, opening=ramp), A="P", B="V")
            c.add(UserOrifice("out", 1e-6), A="V", B="T")
        else:
            c.add(h.Orifice("in", h.Sum("in.area", [ramp], [2e-6])), A="P", B="V")
            c.add(h.Orifice("out", 1e-6), A="V", B="T")
        out[user] = c
    return out[False], out[True]


def test_user_orifice_with_a_signal_runs_as_its_built_in_twin():
    """Filling a volume through an orifice opened by a ramp and draining it through another: the user's
    orifices (callbacks) against the kernel's, run by Radau at rtol 1e-8; the steady pressure from the closed form
    ``A_in sqrt(P - p) = A_out sqrt(p)`` (turbulent): ``p = P / (1 + (A_out/A_in)^2)`` = 80 bar."""
    builtin, user = circuits()
    assert builtin.compiled_element()[0] is not None  # the engine's compiled step takes it; the user's calls back
    spec, why = user.compiled_element()
    assert spec is None and "Python callbacks 'in', 'out'" in why
    runs = [h.simulate_circuit(c, t_end=0.3, rtol=1e-8, t_eval=np.linspace(0.0, 0.3, 61)) for c in (builtin, user)]
    pb, pu = runs[0].state("V.pressure"), runs[1].state("V.pressure")
    assert np.max(np.abs(pb - pu)) <= 1e-5 * np.ptp(pb)
    assert pu[-1] == pytest.approx(100e5 / (1.0 + 0.25), rel=1e-6)
    np.testing.assert_allclose(runs[1].outputs["in.flow"], runs[0].outputs["in.flow"], rtol=1e-4,
                               atol=1e-5 * np.max(np.abs(runs[0].outputs["in.flow"])))


def test_user_lag_signal_equals_its_closed_form():
    """A user's lag (a signal with a state, a callback) of a step command opening a built-in orifice: the lag's
    state is ``1 - exp(-t/tau)`` (rtol 1e-6 at rtol 1e-9 of the run) and the orifice (kernel) reads its slot."""
    c = h.Circuit("lag")
    c.add(h.PressureSource("P", 100e5))
    c.add(h.Tank("T"))
    c.add(h.Volume("V", 2e-4, initial_pressure=5e5))
    lag = UserLag("lag", h.Constant("one", 1.0), 0.02)
    c.add(h.Orifice("in", h.Sum("area", [lag], [2e-6])), A="P", B="V")
    c.add(h.Orifice("out", 1e-6), A="V", B="T")
    run = h.simulate_circuit(c, t_end=0.1, rtol=1e-9, t_eval=np.linspace(0.0, 0.1, 21))
    x = run.state("lag.x")
    np.testing.assert_allclose(x, 1.0 - np.exp(-run.t / 0.02), rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(run.outputs["area.value"], 2e-6 * x, rtol=1e-12)


def test_user_plunger_equals_the_built_in_cylinder_at_random_states():
    """A user's plunger (chamber and force callbacks) and the built-in single-acting cylinder on the same node:
    rates and forces equal to round-off (rtol 1e-12) at random pressures, strokes and velocities."""
    made = []
    for user in (False, True):
        stroke = _Stroke()
        c = h.Circuit("plunger")
        c.add(h.PressureSource("P", 100e5))
        c.add(h.Volume("V", 1e-5, initial_pressure=5e5))
        c.add(h.Orifice("in", 1e-6), A="P", B="V")
        if user:
            c.add(UserPlunger("cyl", 1e-3, 2e-6, stroke), A="V")
        else:
            c.add(h.Cylinder("cyl", 1e-3, 0.0, 0.5, measurement=stroke, single_acting=True, dead_volume_a=2e-6,
                             stop_stiffness=0.0, stop_damping=0.0), A="V")
        made.append(c.finalize())
    rng = np.random.default_rng(41)
    for _ in range(20):
        z = np.array([rng.uniform(0.0, 200e5)])
        y, ydot = np.array([rng.uniform(0.0, 0.5)]), np.array([rng.uniform(-0.3, 0.3)])
        a, b = (c.evaluate(0.0, z, y, ydot) for c in made)
        np.testing.assert_allclose(b.rates, a.rates, rtol=1e-12)
        np.testing.assert_allclose(b.forces, a.forces, rtol=1e-12)


def test_jacobian_with_callbacks_is_the_central_difference():
    """Central differences of kernel and callbacks (the circuit's Jacobian) against independent differences."""
    stroke = _Stroke()
    c = h.Circuit("mixed")
    c.add(h.PressureSource("P", 100e5))
    c.add(h.Tank("T"))
    c.add(h.Volume("V", 1e-5, initial_pressure=5e5))
    lag = UserLag("lag", h.MeasurementSensor("x", stroke, unit="m"), 0.02)
    c.add(UserOrifice("in", 2e-6, opening=lag), A="P", B="V")
    c.add(h.Orifice("out", 1e-6), A="V", B="T")
    c.add(UserPlunger("cyl", 1e-3, 2e-6, stroke), A="V")
    c.finalize()
    rng = np.random.default_rng(7)
    for _ in range(4):
        z = np.array([rng.uniform(1e5, 100e5), rng.uniform(0.1, 1.0)])
        y, ydot = np.array([rng.uniform(0.05, 0.4)]), np.array([rng.uniform(-0.3, 0.3)])
        numeric = finite_difference_jacobian(c, 0.0, z, y, ydot)
        for key, value in c.jacobians(0.0, z, y, ydot).items():
            scale = max(1.0, np.abs(numeric[key]).max())
            assert np.allclose(value, numeric[key], rtol=1e-4, atol=1e-5 * scale), key


class UserTwoStates(UserOrifice):
    """A user's orifice with two states of its own and its own initial values (int: read as floats)."""

    state_names = ("a", "b")
    state_units = ("1", "1")

    def initial_state(self):
        return np.array([3, -4])

    def state_rates(self, ev):
        return [0.0, 0.0]


def test_initial_state_is_every_components_in_circuit_order():
    """The circuit's initial state: the components' own values in circuit order, a user's ``initial_state`` too."""
    c = h.Circuit("init")
    c.add(h.PressureSource("P", 100e5))
    c.add(h.Volume("V", 2e-4, initial_pressure=5e5))
    c.add(UserTwoStates("user", 1e-6), A="P", B="V")
    c.add(h.Tank("T"))
    c.add(h.Volume("W", 1e-4, initial_pressure=7e5))
    c.add(h.Orifice("out", 1e-6), A="W", B="T")
    c.add(h.ReliefValve("PRV", 120e5, 1e-10, width=2e5, time_constant=2e-3), P="V", T="T")
    c.component("PRV").set_initial("opening", 0.25)
    z0 = c.initial_state()
    expected = np.concatenate([np.asarray(comp.initial_state(), dtype=float) for comp in c.components])
    assert z0.dtype == np.float64 and z0.tolist() == expected.tolist() == [5e5, 3.0, -4.0, 7e5, 0.25]
    assert len(z0) == c.n_states


def test_a_user_signal_without_a_law_is_refused():
    class Empty(h.Signal):
        pass

    c = h.Circuit("empty")
    c.add(h.PressureSource("P", Empty("nothing")))
    c.add(h.Volume("V", 1e-4))
    c.add(h.Orifice("in", 1e-6), A="P", B="V")
    with pytest.raises(ModelError, match="has no law: write its evaluate"):
        c.finalize()


class SourceReader(h.Signal):
    """A user's signal reading a pressure source's pressure: ``1e-13 p`` (m^2)."""

    def __init__(self, name, node):
        super().__init__(name)
        self.node = node

    def evaluate(self, ev):
        return 1e-13 * ev.pressure(self.node)


def test_user_signal_reading_a_source_pressure_equals_the_pressure_sensor():
    """The user's signal against the built-in ``Sum`` of a ``PressureSensor`` (the same value): rates to
    round-off (rtol 1e-12) at random volume pressures and times (the source follows a function of time)."""
    made = []
    for user in (False, True):
        c = h.Circuit("reader")
        source = c.add(h.PressureSource("P", lambda t: 100e5 + 10e5 * math.sin(9 * t)))
        c.add(h.Tank("T"))
        c.add(h.Volume("V", 2e-4, initial_pressure=5e5))
        area = SourceReader("area", source) if user else h.Sum("area", [h.PressureSensor("pP", "P")], [1e-13])
        c.add(h.Orifice("in", area), A="P", B="V")
        c.add(h.Orifice("out", 1e-6), A="V", B="T")
        made.append(c.finalize())
    rng = np.random.default_rng(3)
    for _ in range(10):
        t, z, none = rng.uniform(0.0, 1.0), np.array([rng.uniform(0.0, 90e5)]), np.zeros(0)
        np.testing.assert_allclose(made[1].rates(t, z, none, none), made[0].rates(t, z, none, none), rtol=1e-12)


def test_user_component_and_signal_in_a_multibody_model_agree_with_their_built_in_twins():
    """A cylinder pushing a sliding mass, fed through an orifice whose opening follows a lag of a unit step, in a
    flexmbs model: the user's orifice and lag (Python callbacks; the engine calls the circuit back) against the
    built-in orifice opened by the lag's closed form ``1 - exp(-t/tau)`` (the kernel). Agreement within FACTOR x the
    integration error of the built-in run (against an rtol 1e-9 run) + 1e-6 of each signal's peak
    (integration_tolerance.assert_agree)."""
    import flexmbs as fm
    from integration_tolerance import TIGHTER, assert_agree
    from test_hydraulics_monolithic import slider_model

    def build(user_orifice, user_lag):
        model, distance, _ = slider_model(50.0, 1.05)
        c = h.Circuit("hyd")
        c.add(h.PressureSource("P", 100e5))
        c.add(h.Tank("T"))
        c.add(h.Volume("A", 2e-4, initial_pressure=5e5))
        c.add(h.Volume("B", 2e-4, initial_pressure=5e5))
        c.add(h.Cylinder("cyl", 2e-3, 1e-3, 2.0, measurement=distance, retracted_length=1.0), A="A", B="B")
        opening = (UserLag("lag", h.Constant("one", 1.0), 0.05) if user_lag else
                   h.TimeFunction("lag", lambda t: 1.0 - math.exp(-t / 0.05)))
        if user_orifice:
            c.add(UserOrifice("in", 2e-6, opening=opening), A="P", B="A")
        else:
            c.add(h.Orifice("in", h.Sum("in.area", [opening], [2e-6])), A="P", B="A")
        c.add(h.Orifice("out", 2e-6), A="B", B="T")
        model.add_element(c)
        return model

    keys = ["body/piston/position", "element/hyd/A.pressure", "element/hyd/B.pressure"]
    rtol = 1e-6
    builtin = fm.simulate(build(False, False), 0.3, rtol=rtol)
    reference = fm.simulate(build(False, False), 0.3, rtol=rtol * TIGHTER)
    user = fm.simulate(build(True, True), 0.3, rtol=rtol)
    assert builtin.success and user.success
    assert_agree(builtin, user, reference, keys, rtol)
