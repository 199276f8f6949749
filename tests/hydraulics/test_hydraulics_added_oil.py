"""Oil that does not exist: the cavitation floor's fill flow and the minimum-volume guard, integrated and reported.

A closed rigid volume ``V`` (constant bulk modulus ``B``, no air) emptied by a pump at a constant flow ``Q0``:
``C dp/dt = Q_cav - Q0`` with ``C = V/B``. Integrated over ``[0, T]`` (a conservation law, whatever the floor law):
``∫ Q_cav dt = Q0 T + C (p(T) - p0)``; once the floor holds, ``p(T)`` is the steady floor pressure
``p_cav - w ln(expm1(Q0 / (G w)))`` (the fill flow carries the whole pump flow).
"""
import math
import warnings

import numpy as np
import pytest

import flexmbs as fm
import hydraulics as h
from flexmbs.engine.solver import SolverFallbackWarning
from hydraulics.simulate import AddedOilWarning

OIL = h.Fluid("oil without air", 870.0, 1.5e9, 46e-6)  # constant B: the hand calculation needs C = V/B constant
V, P0, Q0, T_END = 1e-3, 10e5, 1e-5, 0.3  # m^3, Pa, m^3/s, s


def drained_volume():
    c = h.Circuit("drain", fluid=OIL)
    c.add(h.Volume("A", V, initial_pressure=P0))
    c.add(h.Tank("T"))
    c.add(h.FixedDisplacementPump.from_flow("pump", Q0), S="A", P="T")
    return c


def hand_added_oil(volume: h.Volume) -> float:
    g, w = volume.cavitation_conductance, volume.cavitation_width
    p_end = volume.cavitation_pressure - w * math.log(math.expm1(Q0 / (g * w)))
    return Q0 * T_END + V / OIL.bulk_modulus * (p_end - P0)


def test_added_oil_of_the_cavitation_floor_standalone():
    c = drained_volume()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = h.simulate_circuit(c, t_end=T_END, rtol=1e-8)
    expected = hand_added_oil(c.node("A"))  # 2.27e-6 m^3 (the floor is reached at 0.073 s)
    # 1e-6 relative: trapezoid over the Radau steps at rtol 1e-8 on a smooth fill flow
    assert res.added_oil["A.added_oil_cavitation"] == pytest.approx(expected, rel=1e-6)
    assert res.added_oil["A.added_oil_guard"] == 0.0  # 1 l never comes near the 0.1 ml guard
    # above 0.1 % of the node's 1 l: one warning naming the node and the amount
    assert len(res.warnings) == 1 and "node 'A'" in res.warnings[0] and "cavitation floor" in res.warnings[0]
    assert [str(w.message) for w in caught if w.category is AddedOilWarning] == res.warnings


def test_added_oil_of_the_cavitation_floor_in_the_multibody_solver(tmp_path):
    """The same circuit as a state element of a flexmbs model (one free body, no measurements): the integral is
    taken over the solver's accepted steps, recorded as a running signal and stored in the results file."""
    model = fm.Model("drain", gravity=(0.0, 0.0, 0.0))
    model.add_rigid_body("block", mass=1.0, inertia=(1.0, 1.0, 1.0))
    c = drained_volume()
    model.add_element(c)
    path = str(tmp_path / "drain.results.h5")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fm.simulate(model, T_END, rtol=1e-6, atol=1e-9, output=path, output_interval=0.05)
    expected = hand_added_oil(c.node("A"))
    key = "element/drain/A.added_oil_cavitation"
    # 1e-3 relative: second-order trapezoid over generalized-α steps at rtol 1e-6 across the floor's onset
    assert res.integrals[key] == pytest.approx(expected, rel=1e-3)
    assert res[key][-1] == res.integrals[key] and res.units[key] == "m^3"
    assert np.all(np.diff(res[key]) >= 0.0)  # a running integral of a non-negative flow
    # the output samples (every 0.05 s) are far too coarse for the fill flow's onset; the integral does not use them
    loaded = fm.load_results(path)
    assert loaded[key][-1] == pytest.approx(expected, rel=1e-3)
    assert loaded.statistics[f"integral:{key}"] == pytest.approx(expected, rel=1e-3)
    assert "cavitation floor added" in loaded.statistics["warnings"]
    assert any("node 'A'" in str(w.message) for w in caught if w.category is SolverFallbackWarning)


def test_guard_flow_is_the_oil_of_the_volume_the_guard_adds():
    """A chamber emptied to nothing: below 1.5 min_volume the guard holds the volume up; the oil it exchanges is
    integrated. Hand check of the output itself: guard_flow = (V_g - V)/B dp/dt at one state."""
    c = h.Circuit("guard", fluid=OIL)
    c.add(h.Volume("A", 0.0, initial_pressure=P0, min_volume=1e-6))
    c.add(h.Cylinder("cyl", 1e-3, 5e-4, 0.1, single_acting=True), A="A")
    c.add(h.Tank("T"))
    c.add(h.FixedDisplacementPump.from_flow("pump", 1e-6), S="T", P="A")
    c.finalize()
    z = c.initial_state()
    y, ydot = np.array([2e-4]), np.array([-1e-3])  # chamber 0.2 ml, shrinking at 1 ml/s
    rate = c.rates(0.0, z, y, ydot)[c.state_names.index("A.pressure")]
    out = c.outputs(0.0, z, y, ydot)
    guarded, q_guard = out["A.volume"], out["A.guard_flow"]
    assert guarded > 2e-7
    assert q_guard == pytest.approx((guarded - 2e-7) / OIL.bulk_modulus * rate, rel=1e-12)
    assert c.integrands(0.0, z, y, ydot)["A.added_oil_guard"] == pytest.approx(abs(q_guard), rel=1e-12)
