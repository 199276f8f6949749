"""The evaluation of a circuit (the compiled kernel, a user's subclass as a Python callback of it), and its Jacobian
against central differences.

References: the continuity equation by hand (a user's subclass), central differences of the rates and forces
(rtol 1e-4, atol 1e-5 of the block's largest entry, as test_hydraulics_circuit_protocol.py), the same circuit built
with the offset source pressure (an input offset, rtol 1e-12), a pickled copy (the same numbers, ``==``).
"""
import math

import numpy as np
import pytest

import hydraulics as h
from hydraulics_checks import finite_difference_jacobian


class _Measurement:
    """A stand-in for a flexmbs measurement (the circuit uses it as a key only)."""

    unit = "m"


def open_centre_circuit():
    """Open-centre valve with a first-order spool, a time-function pressure source, a variable orifice, a static
    relief valve, a volume whose pressure feeds a set-point (a node with a state-dependent source), a check valve and
    a cushion bypass within their opening ranges, an orifice whose area follows the stroke and a cylinder beyond
    its stops at some points."""
    c = h.Circuit("open_centre", fluid=h.MINERAL_OIL)
    c.add(h.PressureSource("P", lambda t: 100e5 + 1e6 * math.sin(t)))
    c.add(h.Tank("T", 2e5))
    c.add(h.Volume("A", 1e-4, initial_pressure=30e5))
    c.add(h.Volume("B", 0.0, initial_pressure=10e5))
    c.add(h.Volume("C", 2e-5, wall_bulk_modulus=7e8, initial_pressure=5e5, min_volume=1e-5))
    follower = h.Sum("follow", [h.PressureSensor("pA", "A"), 5e5])
    c.add(h.PressureSource("F", follower))
    cyl = h.Cylinder("cyl", 3e-3, 1.5e-3, 0.4, measurement=_Measurement(), dead_volume_a=1e-5,
                     friction=h.CoulombViscousFriction(300.0, 2e3, 1e-3), stop_stiffness=1e8)
    c.add(cyl, A="A", B="B")
    c.add(h.open_centre_valve("ocv", 4e-5, h.Ramp("u", 0.0, 1.0, -1.2, 1.2), h.FirstOrderSpool(0.02)),
          P="P", T="T", A="A", B="B")
    c.add(h.Orifice("var", h.Ramp("area", 0.0, 2.0, -1e-6, 3e-6)), A="F", B="C")
    c.add(h.ReliefValve("prv", 150e5, 2e-9), P="A", T="T")
    c.add(h.Orifice("leak", 1e-7, transition="linear"), A="C", B="T")
    c.add(h.CheckValve("cv", 1e-5, cracking_pressure=0.5e5, opening_pressure_range=2e7, leakage_fraction=0.01),
          A="A", B="C")
    c.add(h.Cushion("cushion", cyl, [0.0, 0.2, 0.4], [1e-6, 1e-5, 2e-6], bypass_area=1e-5, bypass_cracking=1e7),
          chamber="B", line="C")
    area = h.LookupTable("area_of_x", h.MeasurementSensor("x", cyl.measurement), [-0.1, 0.5], [-1e-7, 2e-6])
    c.add(h.Orifice("sensed", area), A="C", B="T")
    c.add(h.tandem_centre_valve("tcv", 1e-5, lambda t: math.cos(3 * t)), P="P", T="T", A="C", B="B")
    return c


class SlowOrifice(h.Orifice):
    """A user subclass with its own law (half the orifice flow, turbulent): a Python callback of the kernel."""

    def port_flows(self, ev):
        dp = self.port_pressure(ev, "A") - self.port_pressure(ev, "B")
        k = self.discharge_coefficient * ev.signal(self.area) * math.sqrt(2.0 / self.density)
        q = 0.5 * k * math.copysign(math.sqrt(abs(dp)), dp)
        return {"A": -q, "B": q}


class PlainVolume(h.Volume):
    """A Volume subclass (no change): the kernel's continuity equation."""


def subclass_circuit():
    c = h.Circuit("subclass")
    c.add(h.PressureSource("P", 50e5))
    c.add(h.Tank("T"))
    c.add(PlainVolume("V", 1e-4, initial_pressure=10e5))
    c.add(SlowOrifice("in", 1e-6), A="P", B="V")
    c.add(h.Throttle("out", 2e-9), A="V", B="T")
    return c


def test_open_centre_circuit_jacobian_is_the_central_difference_of_its_rates_and_forces():
    """Through the kernel (every kind here has one), beyond the cylinder's stops at some points."""
    c = open_centre_circuit().finalize()
    rng = np.random.default_rng(3)
    for _ in range(6):
        z = c.initial_state() * (1.0 + 0.05 * rng.standard_normal(c.n_states))
        z[-1] = rng.uniform(0.05, 0.3)  # the spool off the table's breakpoint at 0 (a kink: no derivative there)
        y, ydot = rng.uniform(-0.05, 0.45, 1), rng.uniform(-0.4, 0.4, 1)
        t = rng.uniform(0.0, 2.0)
        assert c.evaluate(t, z, y, ydot).kernel is not None
        numeric = finite_difference_jacobian(c, t, z, y, ydot)
        for key, value in c.jacobians(t, z, y, ydot).items():
            scale = max(1.0, np.abs(numeric[key]).max())
            assert np.allclose(value, numeric[key], rtol=1e-4, atol=1e-5 * scale), key


def test_user_subclass_is_a_callback_of_the_kernel():
    circuit = subclass_circuit().finalize()
    z = np.array([20e5])
    assert circuit.compiled_element()[0] is None  # a Python callback: the engine calls the circuit back
    rate = circuit.rates(0.0, z, np.zeros(0), np.zeros(0))[0]
    # reference: the continuity equation by hand with the halved inflow of the subclass, dp/dt = B (Q_in - Q_out) / V
    q_in = 0.5 * 0.7 * 1e-6 * math.sqrt(2.0 * 30e5 / h.HLP46.density)
    q_out = 2e-9 * math.sqrt(20e5)
    assert math.isclose(rate, h.HLP46.bulk_modulus * (q_in - q_out) / 1e-4, rel_tol=1e-12)  # same formula, round-off


def test_replaced_signal_method_is_honoured():
    """flexmbs.linearize offsets an input by replacing the signal's ``evaluate`` on the instance: the replacement is
    a callback that reads the kernel's value and shifts it while the offset holds; reference: the circuit whose
    source is 1 bar higher."""
    c = open_centre_circuit().finalize()
    t, z, y, ydot = 0.3, c.initial_state(), np.array([0.2]), np.array([0.0])
    base = c.evaluate(t, z, y, ydot).rates.copy()
    source = c.node("P").pressure_signal
    original = source.evaluate
    source.evaluate = lambda ev: original(ev) + 1e5
    try:
        shifted = c.evaluate(t, z, y, ydot).rates.copy()
    finally:
        del source.evaluate
    twin = open_centre_circuit()
    twin.node("P").pressure_signal.function = lambda t: 100e5 + 1e6 * math.sin(t) + 1e5
    np.testing.assert_allclose(shifted, twin.finalize().evaluate(t, z, y, ydot).rates, rtol=1e-12, atol=1e-6)
    assert not np.array_equal(shifted, base)
    assert np.array_equal(c.evaluate(t, z, y, ydot).rates, base)


def test_evaluated_circuit_pickles_and_its_copy_evaluates_the_same():
    """A circuit is sent to study workers by pickling: the plan holds plain data, the evaluation no closure."""
    import pickle

    c = h.Circuit("plain")
    c.add(h.PressureSource("P", 50e5))
    c.add(h.Tank("T"))
    c.add(h.Volume("V", 1e-4, initial_pressure=10e5))
    c.add(h.Orifice("in", 1e-6), A="P", B="V")
    c.add(h.CheckValve("out", 1e-6, cracking_pressure=5e5), A="V", B="T")
    z, none = np.array([20e5]), np.zeros(0)
    first = c.evaluate(0.0, z, none, none)
    copy = pickle.loads(pickle.dumps(c))
    second = copy.evaluate(0.0, z, none, none)
    assert np.array_equal(first.rates, second.rates) and np.array_equal(first.d_rates, second.d_rates)
    assert copy.integrands(0.0, z, none, none) == c.integrands(0.0, z, none, none)


def test_a_circuit_with_measurements_evaluates_the_same_after_pickle_and_deepcopy():
    """The measurement lookup is keyed by object identity; a copy (a study worker's pickle, ``copy.deepcopy``)
    changes the identities and used to fail with "measurement ... is not read by any component"."""
    import copy
    import pickle

    c = h.Circuit("cylinder", fluid=h.MINERAL_OIL)
    c.add(h.PressureSource("P", 150e5))
    c.add(h.Tank("T", 2e5))
    c.add(h.Volume("A", 0.0, initial_pressure=30e5))
    c.add(h.Volume("B", 0.0, initial_pressure=10e5))
    c.add(h.Cylinder("cyl", 3e-3, 1.5e-3, 0.4, measurement=_Measurement(), dead_volume_a=1e-5, dead_volume_b=1e-5),
          A="A", B="B")
    c.add(h.closed_centre_valve("valve", 4e-5, h.Ramp("u", 0.0, 1.0, -1.0, 1.0)), P="P", T="T", A="A", B="B")
    z, y, ydot = np.array([40e5, 12e5]), np.array([0.15]), np.array([0.05])
    first = c.evaluate(0.7, z, y, ydot)
    for clone in (pickle.loads(pickle.dumps(c)), copy.deepcopy(c)):
        assert [clone.measurement_index(m) for m in clone.measurements] == [0]
        second = clone.evaluate(0.7, z, y, ydot)
        assert np.array_equal(first.rates, second.rates) and np.array_equal(first.d_rates, second.d_rates)
        assert np.array_equal(clone.forces(0.7, z, y, ydot), c.forces(0.7, z, y, ydot))


def test_a_parameter_changed_after_use_is_read_after_refresh():
    """The kernel's arrays hold the parameters of the first evaluation; ``refresh`` reads them again. Reference: the
    continuity equation ``dp/dt = B/V C_d A sqrt(2 dp / rho)`` with the new ``C_d`` (same formula: rtol 1e-12)."""
    c = h.Circuit("refresh")
    c.add(h.PressureSource("P", 50e5))
    c.add(h.Volume("V", 1e-4))
    orifice = c.add(h.Orifice("in", 1e-6, 0.7), A="P", B="V")
    z, none = np.array([20e5]), np.zeros(0)
    first = c.rates(0.0, z, none, none)[0]
    orifice.discharge_coefficient = 0.35
    c.refresh()
    expected = h.HLP46.bulk_modulus / 1e-4 * 0.35 * 1e-6 * math.sqrt(2.0 * 30e5 / h.HLP46.density)
    assert c.rates(0.0, z, none, none)[0] == pytest.approx(expected, rel=1e-12)
    assert first == pytest.approx(2.0 * expected, rel=1e-12)
