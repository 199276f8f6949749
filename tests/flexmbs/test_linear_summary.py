"""print(lin) of a LinearModel: one screen, zero eigenvalues named (issue 44)."""
from __future__ import annotations

import numpy as np

from flexmbs.linear.linear_model import LinearModel


def _model(A, names):
    n = A.shape[0]
    return LinearModel(A=A, B=np.zeros((n, 1)), C=np.zeros((1, n)), D=np.zeros((1, 1)), state_names=names,
                       state_units=["1"] * n, input_names=["u"], input_units=["V"], output_names=["y"],
                       output_units=["m"])


def test_summary_names_a_neutral_direction_and_fits_a_screen():
    # two pressures behind a closed valve: dp1/dt = -dp2/dt·(a2/a1) → one zero eigenvalue (any common level holds),
    # and an oscillator ω = 2π·3 Hz, ζ = 0.05 on element states
    w = 2 * np.pi * 3.0
    A = np.zeros((4, 4))
    A[0, 1], A[1, 0], A[1, 1] = 1.0, -w * w, -2 * 0.05 * w
    A[2, 3] = -2.0
    A[3, 3] = -2.0 * 0.5  # eigenvalues 0 (state 2) and -1 (state 3 coupled)
    text = str(_model(A, ["element/h/x", "element/h/v", "element/h/A.pressure", "element/h/B.pressure"]))
    lines = text.splitlines()
    assert len(lines) <= 25 and max(len(l) for l in lines) <= 160
    zero = [l for l in lines if "zero:" in l]
    assert len(zero) == 1 and "neutral direction of the states" in zero[0] and "A.pressure" in zero[0]
    pair = [l.split() for l in lines if "h/x 50%" in l]
    # damped frequency 3·sqrt(1 − ζ²) Hz and ζ = 0.05 as built
    assert len(pair) == 1 and float(pair[0][0]) == round(3 * np.sqrt(1 - 0.05**2), 3) and pair[0][1] == "0.0500"


def test_summary_of_many_states_is_cut_to_one_screen():
    lam = -0.01 - 1j * np.arange(1, 60)
    A = np.zeros((118, 118))
    for k, l in enumerate(lam):
        A[2 * k:2 * k + 2, 2 * k:2 * k + 2] = [[l.real, -l.imag], [l.imag, l.real]]
    text = str(_model(A, [f"element/e/s{k}" for k in range(118)]))
    assert len(text.splitlines()) <= 25 and "more rows" in text


def test_fourbar_prints_on_one_screen_with_its_two_zero_eigenvalues_named():
    from cases.fourbar_hydraulic.declaration import parameters
    from cases.fourbar_hydraulic.linear import linear_model

    lines = str(linear_model(parameters({}))).splitlines()
    assert len(lines) <= 25 and max(len(l) for l in lines) <= 160
    zero = [l for l in lines if "zero:" in l]
    # seed 002 Table 3 and text: two null eigenvalues at the closed-valve equilibrium (p3 and phi2 linked; p2
    # follows from p1, p3)
    assert len(zero) == 2
    assert any("neutral direction of the states" in l and "pressure" in l for l in zero)
