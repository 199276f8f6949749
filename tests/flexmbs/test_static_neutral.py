"""A static equilibrium that is not unique names the states that carry it (issue 44)."""
from __future__ import annotations

import numpy as np

from flexmbs.engine.initial import STATIC_RTOL, _neutral_note, relative_rates


def test_singular_pressure_direction_is_named():
    # one coordinate x and two pressures: force A_a p_a − A_b p_b − k x, and the rates of a closed valve (∂ż/∂p = 0,
    # ∂ż/∂x only): (p_a, p_b) ∝ (A_b, A_a) changes nothing — the neutral direction of a trapped cylinder
    a_a, a_b, k = 1.2e-3, 0.8e-3, 1e5
    mat = np.array([[-k, a_a, -a_b],
                    [-3e12 * a_a, 0.0, 0.0],
                    [3e12 * a_b, 0.0, 0.0]])
    names = ["motion x", "state 'A.pressure' of element 'h'", "state 'B.pressure' of element 'h'"]
    note = _neutral_note(mat, names, 1, 2)
    assert "not unique" in note and "'A.pressure'" in note and "'B.pressure'" in note
    mat[1, 1] = -1.0  # a leak from A: unique again
    assert _neutral_note(mat, names, 1, 2) == ""


def test_state_rates_converge_relative_to_the_state():
    # a 100 bar node whose rate is 1e-6 Pa/s has settled (1e-9 per second of its value); 1 Pa/s has not
    z = np.array([1e7])
    assert relative_rates(np.array([1e-6]), z)[0] <= STATIC_RTOL
    assert relative_rates(np.array([1.0]), z)[0] > STATIC_RTOL
