"""Fatigue: vectorized rainflow against the ``rainflow`` package, Miner damage against the hand formula n/N(S)."""
from __future__ import annotations

import numpy as np
import pytest
import rainflow

from flexmbs.post.fatigue import (SN_PRESETS, SNCurve, damage_field, goodman_amplitude, miner_damage, parse_sn,
                             rainflow_blocks)
from fem.errors import FlexmbsError

SN = SNCurve("test", 5.0, 200e6, 1e6, 500e6)


def _random_histories(rng, n_rows=120, n_t=400):
    x = np.cumsum(rng.normal(size=(n_rows, n_t)), axis=1) * 1e6
    x[:20] = np.round(x[:20] / 1e6) * 1e6  # plateaus and repeated values
    x[20] = 3e6  # constant
    x[21, :50] = x[21, 0]  # leading plateau
    x[22, -40:] = x[22, -41]  # trailing plateau
    x[23] = rng.choice([-1e6, 1e6], size=n_t)  # only two levels
    x[24, ::2], x[24, 1::2] = 5e6, -5e6  # alternating
    return x


def test_vectorized_rainflow_yields_the_rainflow_package_cycles_exactly(rng):
    """Same cycles (range, mean, count, start and end sample) in the same order for every history; the
    reference is the ``rainflow`` package (ASTM E1049-85), run per history."""
    x = _random_histories(rng)
    mine = rainflow_blocks(x, keep_cycles=True)
    total = 0
    for row in range(x.shape[0]):
        reference = list(rainflow.extract_cycles(x[row]))
        sel = mine["row"] == row
        got = list(zip(mine["range"][sel], mine["mean"][sel], mine["count"][sel], mine["start"][sel],
                       mine["end"][sel]))
        assert got == reference, row
        total += len(reference)
    assert total > 10000


def test_miner_damage_of_random_histories_equals_the_cycles_of_the_rainflow_package(rng):
    x = _random_histories(rng, n_rows=30)
    result = miner_damage(x, SN)
    for row in range(x.shape[0]):
        cycles = np.array([(r, m, c) for r, m, c, _, _ in rainflow.extract_cycles(x[row])]).reshape(-1, 3)
        amplitude = 0.5 * cycles[:, 0]
        mean = cycles[:, 1]
        amplitude = np.where(mean > 0, amplitude / (1 - mean / SN.ultimate_strength), amplitude)  # Goodman
        with np.errstate(divide="ignore"):
            expected = np.sum(cycles[:, 2] / (SN.knee_cycles * (amplitude / SN.fatigue_strength) ** -SN.slope))
        assert result.damage[row] == pytest.approx(expected, rel=1e-12, abs=1e-300)
        assert result.cycles[row] == pytest.approx(cycles[:, 2].sum(), rel=1e-15)


@pytest.mark.parametrize("mean", [0.0, 120e6, -80e6])
def test_constant_amplitude_damage_is_n_over_N(mean):
    """n full cycles of amplitude S_a about mean S_m: D = n / N(S_a,eq), Basquin N = N_D (S/S_D)^-k with Goodman
    S_a,eq = S_a / (1 - S_m / R_m) for a tensile mean and S_a for a compressive one (hand formula)."""
    n, amplitude = 250, 150e6
    series = mean + amplitude * np.resize([1.0, -1.0], 2 * n + 1)  # +a, -a, ..., +a: n full cycles
    result = miner_damage(series[None, :], SN)
    s_eq = amplitude / (1.0 - mean / SN.ultimate_strength) if mean > 0 else amplitude
    expected = n / (SN.knee_cycles * (s_eq / SN.fatigue_strength) ** (-SN.slope))
    assert abs(result.damage[0] / expected - 1.0) < 1e-9
    assert result.cycles[0] == n
    plain = miner_damage(series[None, :], SN, mean_correction="none")
    assert abs(plain.damage[0] / (n / (SN.knee_cycles * (amplitude / SN.fatigue_strength) ** -SN.slope)) - 1) < 1e-9


def test_damage_field_superposes_modal_stress_before_counting():
    """Two nodes, two modes: σ = Σ σ_j q_j(t) with a constant-amplitude modal history; damage n/N(S) per node
    (hand formula on the superposed amplitude). Signed von Mises of a uniaxial stress is the stress itself."""
    n = 40
    wave = np.resize([1.0, -1.0], 2 * n + 1)
    q = np.column_stack([wave, 0.5 * wave])  # (n_t, 2)
    modal = np.zeros((2, 6, 2), dtype=np.float32)
    modal[0, 0] = [60e6, 40e6]  # node 0: σxx = 80 MPa × wave
    modal[1, 1] = [20e6, 20e6]  # node 1: σyy = 30 MPa × wave
    result = damage_field(modal, q, SN, quantity="signed_von_mises", mean_correction="none")
    amplitudes = np.array([80e6, 30e6])
    expected = n / (SN.knee_cycles * (amplitudes / SN.fatigue_strength) ** (-SN.slope))
    np.testing.assert_allclose(result.damage, expected, rtol=1e-9)


def test_goodman_and_static_failure_are_reported():
    amp = goodman_amplitude(np.array([100e6, 100e6, 100e6]), np.array([250e6, -250e6, 600e6]), 500e6)
    np.testing.assert_allclose(amp[:2], [200e6, 100e6], rtol=1e-15)
    assert np.isinf(amp[2])
    series = 700e6 + 10e6 * np.resize([1.0, -1.0], 9)  # mean above R_m: static failure, infinite damage
    result = miner_damage(series[None, :], SN)
    assert np.isinf(result.damage[0]) and result.static_failures[0] == 4.0  # 8 half cycles


def test_sn_presets_and_user_values():
    steel = parse_sn("structural-steel")
    assert steel is SN_PRESETS["structural-steel"] and parse_sn("steel") is steel
    user = parse_sn("k=3,sd=80MPa,nd=2e6,rm=0.5GPa")
    assert (user.slope, user.fatigue_strength, user.knee_cycles, user.ultimate_strength) == (3.0, 80e6, 2e6, 500e6)
    with pytest.raises(FlexmbsError, match="unknown S-N curve"):
        parse_sn("titanium")
    with pytest.raises(FlexmbsError, match="positive k, sd, nd and rm"):
        parse_sn("k=3,sd=80MPa")
