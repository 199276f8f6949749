"""Issue 43: a long run whose integrator's numerical dissipation removed more than DISSIPATION_SHARE of the energy
of an oscillating elastic mode gets one warning; a damped mode, a mode of round-off size and rho_inf = 1 none.

References: the generalized-α method's defining limits (Chung & Hulbert 1993: spectral radius 1 as ωh → 0,
rho_inf as ωh → ∞) and the method's own recurrence on the undamped oscillator stepped by hand (x, v, a updated
from the Newmark formulas, not the amplification matrix the check uses), amplitude per step over 400 steps to 2e-4."""
from types import SimpleNamespace

import numpy as np
import pytest

from flexmbs.results.plausibility import (DISSIPATION_SHARE, Extremes, dissipation_warnings, spectral_radius)


def stepped_amplitude(big_omega: float, rho_inf: float, steps: int) -> float:
    """Amplitude sqrt(x² + (v/ω)²) of ẍ = −ω² x after ``steps`` generalized-α steps (h = 1, ω = Ω) from x = 1."""
    am, af = (2 * rho_inf - 1) / (rho_inf + 1), rho_inf / (rho_inf + 1)
    g = 0.5 + af - am
    b = 0.25 * (g + 0.5) ** 2
    x, v = 1.0, 0.0
    a = xdd = -big_omega**2 * x
    for _ in range(steps):
        c0, c1 = (af * xdd - am * a) / (1 - am), -(1 - af) * big_omega**2 / (1 - am)
        x1 = (x + v + (0.5 - b) * a + b * c0) / (1 - b * c1)
        a1 = c0 + c1 * x1
        v = v + (1 - g) * a + g * a1
        x, a, xdd = x1, a1, -big_omega**2 * x1
    return float(np.hypot(x, v / big_omega))


def test_spectral_radius_limits_and_the_stepped_oscillator():
    assert spectral_radius(1e-4, 0.8)[0] == pytest.approx(1.0, abs=1e-12)
    assert spectral_radius(1e7, 0.8)[0] == pytest.approx(0.8, rel=1e-4)
    assert np.allclose(spectral_radius([0.1, 1.0, 10.0, 1e4], 1.0), 1.0, atol=1e-9)  # no dissipation
    for big in (1.0, 2.0, 5.0):
        per_step = stepped_amplitude(big, 0.8, 400) ** (1 / 400)  # the start's transient spread over 400 steps
        assert spectral_radius(big, 0.8)[0] == pytest.approx(per_step, rel=2e-4)


def body(damping=0.0, size=1.0):
    """One elastic mode of 10 Hz (mass-normalized: k = ω²), nodes spanning ``size`` m, shape 1 m per unit."""
    omega = 2 * np.pi * 10.0
    return SimpleNamespace(name="beam", n_modes=1, modal_stiffness=np.array([omega**2]),
                           modal_damping=np.array([2 * damping * omega]),
                           node_positions=np.array([[0.0, 0, 0], [size, 0, 0]]),
                           node_translations=np.array([[[0.0], [0.0], [0.0]], [[0.0], [1.0], [0.0]]]))


def lines(amplitude, h, steps, damping=0.0, rho_inf=0.8):
    """The warning of a run whose mode swung A sin(ωt) (recorded in blocks, as the compiled step does)."""
    extremes = Extremes()
    t = np.arange(steps + 1) * h
    q = amplitude * np.sin(2 * np.pi * 10.0 * t)[:, None]
    key = "body/beam/modal_coordinates"
    for k in range(0, steps + 1, 97):
        extremes.update_block(t[k:k + 97], {key: q[k:k + 97]}, {key: "m kg^0.5"})
    stats = {"steps": steps, "t_end": float(t[-1]), "rho_inf": rho_inf}
    return dissipation_warnings([body(damping)], extremes, stats)


def test_an_undamped_mode_that_lost_its_energy_warns_once():
    """10 Hz at h = 5 ms (ωh = 0.31) over 2e5 steps: the amplitude shrinks to ρ^n, energy share 1 − ρ^(2n) > 10 %:
    one line naming the mode, its frequency (read from the recorded swing: 10 Hz to 2 %) and a max_step that keeps
    it; the frequency of the swing is the recorded one, the share matches ρ(ωh)^(2n)."""
    h, n = 5e-3, 200_000
    found = lines(1e-3, h, n)
    assert len(found) == 1 and "mode 1 of body 'beam'" in found[0] and "max_step <=" in found[0]
    share = 1.0 - spectral_radius(2 * np.pi * 10.0 * h, 0.8)[0] ** (2 * n)
    assert share > DISSIPATION_SHARE
    reported = float(found[0].split("removed about ")[1].split(" %")[0]) / 100
    assert reported == pytest.approx(share, abs=0.03)  # the rate from sample differences: sin(ωh/2)/(h/2), -0.4 %
    hz = float(found[0].split("oscillating at ")[1].split(" Hz")[0])
    assert hz == pytest.approx(10.0, rel=0.02)  # sampled extremes and differences at ωh = 0.31


def test_damped_tiny_or_undissipated_modes_do_not_warn():
    h, n = 5e-3, 200_000
    assert lines(1e-3, h, n, damping=0.02) == []  # the structure's 2 % damps it more than the integrator
    assert lines(1e-3, h, n, rho_inf=1.0) == []  # no numerical dissipation
    assert lines(1e-12, h, n) == []  # a swing of 1e-12 of the body's size: round-off, not an oscillation
    assert lines(1e-3, h, 1000) == []  # a short run: 1 − ρ^2000 ≈ 0.3 %
