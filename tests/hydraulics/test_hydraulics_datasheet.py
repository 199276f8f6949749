"""Valves from datasheet numbers, hysteresis, and the friction laws with independently scaled terms.

References: the datasheet's own definitions (nominal flow at the rated drop and full command; zero flow inside the
dead band; phase -90 deg at the stated frequency; hysteresis loop width), the orifice law for the flow at partial
opening, and the closed-form friction laws (seed 002 eq. (8) for Brown-McPhee).
"""
import math

import numpy as np
import pytest

import hydraulics as h

RHO = h.HLP46.density
Q_NOM = 60 / 60000  # 60 L/min


def valve_flow(datasheet, command, kind="4/3-closed", dp_edge=5e5):
    c = h.Circuit("bench")
    c.add(h.PressureSource("P", 2 * dp_edge))
    c.add(h.PressureSource("A", dp_edge))
    c.add(h.Tank("T"))
    ports = {"P": "P", "A": "A", "T": "T"}
    if kind != "3/2":
        c.add(h.PressureSource("B", dp_edge))
        ports["B"] = "B"
    c.add(h.valve_from_datasheet("v", datasheet, command, kind), **ports)
    out = c.outputs(0.0, c.initial_state(), np.zeros(0), np.zeros(0))
    return out["v.flow_PA"], out["v.flow_AT"]


@pytest.mark.parametrize("per_edge, rated", [(True, 5e5), (False, 10e5)])
def test_full_command_gives_the_nominal_flow_at_the_rated_drop(per_edge, rated):
    """60 L/min at 5 bar per edge, or at 10 bar across the valve (two edges): +10 V gives 60 L/min P->A at 5 bar
    per edge (1e-12 relative), -10 V the same A->T."""
    ds = h.ValveDatasheet(Q_NOM, rated, per_edge=per_edge)
    assert valve_flow(ds, 10.0)[0] == pytest.approx(Q_NOM, rel=1e-12)
    assert valve_flow(ds, -10.0)[1] == pytest.approx(Q_NOM, rel=1e-12)


def test_4_20_mA_command_and_dead_band():
    """4..20 mA, dead band 5 %: 20 mA full P->A, 12 mA and 12.3 mA (3.75 % of the half span) closed, 16 mA opens
    the edge to (0.5 - 0.05)/(1 - 0.05) of its area (orifice law, 1e-12 relative)."""
    ds = h.ValveDatasheet(Q_NOM, 5e5, command_range=h.CURRENT_4_20MA, dead_band=0.05)
    assert valve_flow(ds, 20e-3)[0] == pytest.approx(Q_NOM, rel=1e-12)
    assert valve_flow(ds, 12e-3) == (0.0, 0.0)
    assert valve_flow(ds, 12.3e-3) == (0.0, 0.0)
    assert valve_flow(ds, 16e-3)[0] == pytest.approx(Q_NOM * 0.45 / 0.95, rel=1e-12)
    assert valve_flow(ds, 4e-3)[1] == pytest.approx(Q_NOM, rel=1e-12)


def test_three_way_valve_switches_between_pressure_and_tank():
    ds = h.ValveDatasheet(Q_NOM, 5e5, command_range=h.VOLTAGE_0_10V)
    assert valve_flow(ds, 10.0, "3/2") == pytest.approx((Q_NOM, 0.0), rel=1e-12)
    assert valve_flow(ds, 0.0, "3/2") == pytest.approx((0.0, Q_NOM), rel=1e-12)


def test_spool_lags_90_degrees_at_the_datasheet_frequency():
    """A +-1 V sine at the datasheet's -90 deg frequency (40 Hz, damping 0.8): after 0.5 s the spool lags the command
    by 90 deg (within 0.5 deg; least-squares fit of sin and cos over the last 10 periods) and its amplitude ratio is
    1/(2 zeta) (1 %)."""
    f = 40.0
    ds = h.ValveDatasheet(Q_NOM, 5e5, frequency_90deg=f, damping_ratio=0.8)
    c = h.Circuit("bench")
    c.add(h.PressureSource("P", 10e5))
    c.add(h.Tank("T"))
    c.add(h.PressureSource("A", 5e5))
    c.add(h.PressureSource("B", 5e5))
    c.add(h.valve_from_datasheet("v", ds, lambda t: math.sin(2 * math.pi * f * t)), P="P", A="A", B="B", T="T")
    t = np.linspace(0.5, 0.75, 2001)
    res = h.simulate_circuit(c, t_end=0.75, t_eval=t, rtol=1e-9, max_step=1e-3)
    u = res.outputs["v.spool"]
    basis = np.column_stack([np.sin(2 * np.pi * f * t), np.cos(2 * np.pi * f * t)])
    (a, b), *_ = np.linalg.lstsq(basis, u, rcond=None)
    phase = math.degrees(math.atan2(b, a))
    assert phase == pytest.approx(-90.0, abs=0.5)
    assert math.hypot(a, b) == pytest.approx(0.1 / (2 * 0.8), rel=1e-2)  # amplitude 1 V = 0.1 of U


def test_hysteresis_loop_width_is_the_datasheet_value():
    """Hysteresis 1 % of the span (loop width 0.02 in U): a triangle command (1 Hz, |u'| = 2/s) gives outputs that
    differ at the same command on the way up and down by twice the steady trailing distance of the play model under
    a ramp, b + w ln(expm1(|u'| tau / w)) with b = 0.01, w = b/100, tau = 0.1 ms (= 0.0102: the play plus the lag),
    1e-3 relative."""
    ramp = h.PiecewiseLinear("u", [0.0, 0.5, 1.0], [-0.5, 0.5, -0.5])
    hyst = h.Hysteresis("hyst", ramp, 0.02)
    c = h.Circuit("bench")
    c.add(h.PressureSource("P", 0.0))
    c.add(h.Orifice("o", h.LookupTable("area", hyst, [-1.0, 1.0], [0.0, 1e-6])), A="P", B="P")
    res = h.simulate_circuit(c, t_end=1.0, t_eval=[0.25, 0.75], rtol=1e-9, max_step=1e-3)
    up, down = res.outputs["hyst.value"]
    b, w = 0.01, 1e-4
    assert down - up == pytest.approx(2 * (b + w * math.log(math.expm1(2.0 * 1e-4 / w))), rel=1e-3)


def test_stribeck_law_closed_form_and_independent_term_scaling():
    """F = (F_c + (F_s - F_c) exp(-(v/v_s)^2)) tanh(v/v_eps) + b v at three speeds (1e-12), and each term scaled
    alone changes only its own part."""
    law = h.StribeckFriction(200.0, 500.0, 0.01, 1e3, 1e-4)
    for v in (0.005, 0.01, 0.2):
        expected = (200.0 + 300.0 * math.exp(-(v / 0.01) ** 2)) * math.tanh(v / 1e-4) + 1e3 * v
        assert law.force(v)[0] == pytest.approx(expected, rel=1e-12)
        assert law.force(-v)[0] == -law.force(v)[0]
        fd = (law.force(v * (1 + 1e-7))[0] - law.force(v * (1 - 1e-7))[0]) / (2e-7 * v)
        assert law.force(v)[1] == pytest.approx(fd, rel=1e-5)
    v = 0.01
    base = law.force(v)[0]
    viscous_only = h.scale_friction(law, viscous=2.0).force(v)[0]
    assert viscous_only - base == pytest.approx(1e3 * v, rel=1e-12)
    stribeck_only = h.scale_friction(law, stribeck=0.0).force(v)[0]
    assert base - stribeck_only == pytest.approx(300.0 * math.exp(-1.0) * math.tanh(100.0), rel=1e-12)
    coulomb_only = h.scale_friction(law, coulomb=0.5).force(0.5)[0]  # Stribeck excess kept, decayed at 50 v_s
    assert law.force(0.5)[0] - coulomb_only == pytest.approx(100.0 * math.tanh(5e3), rel=1e-9)


def test_brown_mcphee_scaling_by_one_factor_is_the_seed_table3_scaling():
    """scale_friction(law, f, f, f) is BrownMcPheeFriction.scaled(f) (seed 002 Table 3 scales F_c, F_s, sigma_2)."""
    law = h.BrownMcPheeFriction(210.0, 830.0, 0.01, 330.0)
    for v in (-0.02, 0.003, 0.1):
        assert h.scale_friction(law, 1.5, 1.5, 1.5).force(v)[0] == pytest.approx(law.scaled(1.5).force(v)[0],
                                                                                  rel=1e-12)
    viscous = h.scale_friction(law, viscous=0.0)
    assert law.force(0.1)[0] - viscous.force(0.1)[0] == pytest.approx(330.0 * 0.1, rel=1e-12)


def test_bad_datasheet_input_is_one_clear_error():
    from fem.errors import ModelError

    with pytest.raises(ModelError, match="dead_band"):
        h.ValveDatasheet(Q_NOM, 5e5, dead_band=1.2)
    with pytest.raises(ModelError, match="kind"):
        h.valve_from_datasheet("v", h.ValveDatasheet(Q_NOM, 5e5), 0.0, kind="6/3")
    with pytest.raises(ModelError, match="dead band"):
        h.valve_from_datasheet("v", h.ValveDatasheet(Q_NOM, 5e5, dead_band=0.1), 0.0, kind="4/3-open")
    with pytest.raises(ModelError, match="maximum"):
        h.CommandRange(20e-3, 4e-3, "A")
