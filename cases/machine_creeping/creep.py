"""Machine creeping on its support pads: force ratio and displacement per cycle (seed 003 §5.3, Table 5-2).

* Force ratio (L7600–7615, L7641–7653): ``R(t) = Σ_pads F_lateral(t) / Σ_pads F_vertical(t)`` over the 18 clamp-unit
  and 4 injection-unit pads, lateral = machine direction; the machine may slide whenever ``|R| > μ``.
* Displacement model (L7680–7694): the whole machine as **one rigid body** of mass ``m`` on Coulomb pads against the
  floor, loaded by the lateral and vertical force histories of the flexible model::

      m ẍ = F_lat(t) - μ N(t) sgn(ẋ)        while sliding
      ẋ = 0                                  while |F_lat| ≤ μ N (sticking)

  integrated exactly for forces that are linear over each sample interval's sliding phase (velocity update with the
  mean force of the interval, a stop detected inside the interval when the velocity would change sign).
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError

__all__ = ["force_ratio", "slip_displacement", "displacement_table"]


def force_ratio(lateral, vertical) -> np.ndarray:
    """``R = Σ F_lateral / Σ F_vertical`` per sample; ``lateral``, ``vertical`` (n_t, n_pads) or (n_t,), N."""
    lat, ver = (np.asarray(f, dtype=float) for f in (lateral, vertical))
    lat, ver = (f.sum(axis=1) if f.ndim == 2 else f for f in (lat, ver))  # summed over the pads
    if np.any(ver <= 0.0):
        raise ModelError("the summed vertical pad force must stay positive (the machine lifts off its pads)")
    return lat / ver


def slip_displacement(time, lateral, vertical, mass: float, mu: float) -> tuple[float, np.ndarray]:
    """Displacement (m) of a rigid machine on Coulomb pads under the force histories, and its path x(t) (m).

    Parameters
    ----------
    time : (n,) s, increasing
    lateral : (n,) N, summed lateral pad force in machine direction (the load the floor must hold)
    vertical : (n,) N, summed vertical pad force (normal force on the floor)
    mass : float, kg, the whole machine
    mu : float, Coulomb coefficient pad–floor (seed: 0.8 on concrete with fine mortar, L7641)
    """
    t = np.asarray(time, dtype=float)
    f = np.asarray(lateral, dtype=float)
    n = np.asarray(vertical, dtype=float)
    if not mass > 0.0 or mu < 0.0:
        raise ModelError("the machine mass must be positive and μ non-negative")
    x = np.zeros(t.size)
    v = 0.0
    for k in range(t.size - 1):  # post-processing of one history: a scalar recursion, not a model hot path
        dt = t[k + 1] - t[k]
        f_mid, limit = 0.5 * (f[k] + f[k + 1]), mu * 0.5 * (n[k] + n[k + 1])
        if v == 0.0 and abs(f_mid) <= limit:
            x[k + 1] = x[k]  # sticking
            continue
        direction = np.sign(v) if v != 0.0 else np.sign(f_mid)
        a = (f_mid - limit * direction) / mass
        v_new = v + a * dt
        if v != 0.0 and np.sign(v_new) != direction:  # stops inside the interval
            t_stop = -v / a
            x[k + 1] = x[k] + 0.5 * v * t_stop
            v = 0.0
        else:
            x[k + 1] = x[k] + 0.5 * (v + v_new) * dt
            v = v_new
    return float(x[-1] - x[0]), x


def displacement_table(time, lateral, vertical, mass: float, mus) -> list[tuple[float, float]]:
    """Table 5-2 form: ``[(μ, |displacement| in m), ...]`` for each friction coefficient."""
    return [(float(mu), abs(slip_displacement(time, lateral, vertical, mass, mu)[0])) for mu in mus]
