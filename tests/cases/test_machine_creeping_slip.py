"""Rigid machine on Coulomb pads (seed 003 §5.3, Table 5-2 procedure) against the analytic stick–slip solution."""
import numpy as np
import pytest

from cases.machine_creeping.creep import displacement_table, force_ratio, slip_displacement

MASS, G = 130e3, 9.81  # Q2700: ≈ 130 t (seed 003 L391-401)


def _pulse(force, duration, t_end=2.0, n=200001):
    t = np.linspace(0.0, t_end, n)
    return t, np.where(t < duration, force, 0.0), np.full(t.size, MASS * G)


def test_rectangular_force_pulse_slides_the_machine_by_the_analytic_distance():
    mu, force, tau = 0.4, 0.6 * MASS * G, 0.05
    t, lat, ver = _pulse(force, tau)
    moved, _ = slip_displacement(t, lat, ver, MASS, mu)
    # accelerate with (F − μN)/m for τ, then brake with μ g until rest
    a, b = (force - mu * MASS * G) / MASS, mu * G
    expected = 0.5 * a * tau**2 + (a * tau) ** 2 / (2.0 * b)
    assert moved == pytest.approx(expected, rel=1e-3)  # time grid 10 µs against a 50 ms pulse


def test_a_ratio_below_mu_never_moves_and_displacement_does_not_grow_with_mu():
    t = np.linspace(0.0, 1.0, 20001)
    lat = 0.9 * MASS * G * np.sin(2 * np.pi * 8.2 * t) * np.exp(-3 * t)  # 8.2 Hz ringing (seed 003 L7540)
    ver = np.full(t.size, MASS * G)
    ratio = force_ratio(lat, ver)
    table = displacement_table(t, lat, ver, MASS, [0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    moved = [d for _, d in table]
    assert np.all(np.diff(moved) >= 0.0)  # Table 5-2 trend: non-increasing in μ (listed for decreasing μ)
    assert slip_displacement(t, lat, ver, MASS, np.abs(ratio).max() + 1e-6)[0] == 0.0  # |R| < μ: sticks
    assert moved[-1] > 0.0
