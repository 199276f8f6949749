"""Soil resistance on the bucket tip (seed 001 §2.3, eq. (36)..(40)).

Tangential component ``P_t = k w h`` (eq. (36)) against the tip's motion, normal component ``P_n = psi P_t``
(eq. (37)), magnitude ``P = k w h sqrt(1 + psi^2)`` (eq. (38)). The slice thickness ``h`` is the depth of the tip
below the ground line, ``h = max(y_ground - y_tip, 0)``, so it follows the tip's path d-d (Fig. 8); the corner of
the max is rounded over ``depth_smoothing``. The force acts at the tip marker L; flexmbs projects it on the bucket's
coordinates (``Q = J_xᵀ P``, which is eq. (39) with the components of eq. (40) expressed in global axes).

Directions: ``t`` is the unit tip velocity; the tangential part opposes it, regularised as
``-v / sqrt(|v|^2 + v_eps^2)`` so the resistance fades out smoothly when the bucket stops (like Coulomb friction);
the normal part is perpendicular to ``t`` and points out of the soil (upwards), the usual assumption for a worn
cutting edge (seed 001 lists psi = 0.1..0.45 without the sense); for a tip moving (nearly) vertically the upward
normal is undefined, so it is faded out with ``tanh(t_x / 0.2)`` (C1 in the velocity). The periodic soil failures
the seed mentions: the magnitude times ``1 + a r(t)`` (:class:`SoilOscillation`).
"""
from __future__ import annotations

import math

import numpy as np

from flexmbs.model.forces import ForceElement, apply_at_marker

__all__ = ["SoilOscillation", "DiggingForce", "slice_thickness"]


def slice_thickness(tip_y: float, ground_y: float, smoothing: float) -> float:
    """Smooth ``max(ground_y - tip_y, 0)`` (m): ``s softplus((ground_y - tip_y)/s)``."""
    x = (ground_y - tip_y) / smoothing
    return smoothing * (x + math.log1p(math.exp(-x)) if x > 0.0 else math.log1p(math.exp(x)))


class SoilOscillation:
    """Reproducible random factor ``r(t)``: a sum of ``n_waves`` sinusoids with frequencies in ``[0.3, 1] *
    max_frequency`` and phases drawn from ``numpy.random.default_rng(seed)``, zero mean and unit RMS.

    Parameters
    ----------
    seed : int
        Seed of ``numpy.random.default_rng``.
    max_frequency : float, Hz
    n_waves : int
    """

    def __init__(self, seed: int, max_frequency: float, n_waves: int = 12):
        rng = np.random.default_rng(seed)
        self.omega = 2.0 * math.pi * max_frequency * rng.uniform(0.3, 1.0, n_waves)
        self.phase = rng.uniform(0.0, 2.0 * math.pi, n_waves)
        self.amplitude = math.sqrt(2.0 / n_waves)

    def __call__(self, t: float) -> float:
        return self.amplitude * float(np.sum(np.sin(self.omega * t + self.phase)))


class DiggingForce(ForceElement):
    """Soil resistance at the bucket tip marker (seed 001 eq. (36)..(40)).

    Parameters
    ----------
    tip : flexmbs marker
        Point L (T in seed 001 Fig. 8) on the bucket.
    ground_y : float, m
        Height of the ground line.
    specific_resistance : float, Pa
        ``k`` (200..300 kPa for wet clay).
    width : float, m
        Bucket width ``w``.
    normal_ratio : float
        ``psi``.
    depth_smoothing : float, m
    velocity_smoothing : float, m/s
    oscillation : callable t -> float, optional
        Random factor ``r(t)``; the magnitude is multiplied by ``1 + amplitude r(t)``.
    amplitude : float
    """

    output_units = {"Fx": "N", "Fy": "N", "magnitude": "N", "slice_thickness": "m"}

    def __init__(self, tip, ground_y: float, specific_resistance: float, width: float, normal_ratio: float,
                 depth_smoothing: float = 0.005, velocity_smoothing: float = 0.01, oscillation=None,
                 amplitude: float = 0.0, name: str = "digging"):
        self.tip = tip
        self.ground_y = float(ground_y)
        self.k, self.width, self.psi = float(specific_resistance), float(width), float(normal_ratio)
        self.depth_smoothing, self.velocity_smoothing = float(depth_smoothing), float(velocity_smoothing)
        self.oscillation, self.amplitude = oscillation, float(amplitude)
        self.name = name

    def markers(self):
        return [self.tip]

    def magnitude_factor(self, t: float) -> float:
        """``1 + a r(t)`` (never below 0)."""
        if self.oscillation is None or self.amplitude == 0.0:
            return 1.0
        return max(0.0, 1.0 + self.amplitude * self.oscillation(t))

    def force(self, t: float, position, velocity) -> tuple[np.ndarray, float]:
        """Global force on the tip (2,), N, and the slice thickness h, m."""
        h = slice_thickness(position[1], self.ground_y, self.depth_smoothing)
        tangential = self.k * self.width * h * self.magnitude_factor(t)  # eq. (36)
        v = np.asarray(velocity[:2], dtype=float)
        speed = math.sqrt(v @ v + self.velocity_smoothing**2)
        t_dir = v / speed  # |t_dir| < 1 near standstill: the resistance fades out
        # perpendicular to t, pointing out of the soil; faded out (tanh) when t is vertical, where "up" is undefined
        normal = np.array([-t_dir[1], t_dir[0]]) * math.tanh(t_dir[0] / 0.2)
        return -tangential * t_dir + self.psi * tangential * normal, h  # eq. (37), (38)

    def generalized_forces(self, ctx):
        s = ctx.marker(self.tip)
        f, _ = self.force(ctx.t, s.x, s.v)
        return [(self.tip.body, apply_at_marker(s, np.array([f[0], f[1], 0.0])))]

    def outputs(self, ctx):
        s = ctx.marker(self.tip)
        f, h = self.force(ctx.t, s.x, s.v)
        return {"Fx": float(f[0]), "Fy": float(f[1]), "magnitude": float(np.hypot(*f)), "slice_thickness": h}
