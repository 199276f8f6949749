"""Geometry of the hydraulically actuated four-bar of seed 002 §4 and its independent virtual-work check.

The paper's mechanism moves in its Y1Z1 plane with gravity along -Z1; here that plane is the global XY plane
(paper Y1 -> X, Z1 -> Y, gravity along -Y, joint axes along Z).

Derivation of the lengths from the initial values of seed 002 eq. (90):

* ``y_G2 = (L2/2) cos 60° = 0.5 m``                    ->  ``L2 = 2 m``;
* ``s0^2 = d1^2 + (L2/2)^2 + d1 L2 cos 60° = 3``        ->  ``d1^2 + d1 - 2 = 0``, ``d1 = 1 m`` (eq. (78));
  then ``tan(alpha0) = sin 60° / (cos 60° + 2 d1/L2)`` gives ``alpha0 = 30°`` as printed;
* the loop closure (eq. (67), (69), (70)) with ``theta3 = phi2 + phi32`` and ``theta4 = theta3 + phi43`` reads
  ``L2 cos(phi2) + L3 cos(theta3) + L4 cos(theta4) = L1`` and ``L2 sin(phi2) + L3 sin(theta3) + L4 sin(theta4) = 0``.
  Table 1 of the paper is not part of the seed, so ``L3 = 2.25 m`` is our choice; the printed angles
  ``phi32 = 322.1°``, ``phi43 = 266.4°`` then give ``L4 = 2.719 m`` and ``L1 = 3.947 m`` (rounded to 1 mm; with them
  the closure reproduces 322.1° and 266.4° to 0.1°).
"""
from __future__ import annotations

import math

import numpy as np

GRAVITY = 9.81  # m/s^2


def link_lengths(l3: float = 2.25) -> dict[str, float]:
    """Lengths (m) consistent with seed 002 eq. (90) for a chosen coupler length ``l3`` (see module docstring)."""
    l2, d1 = 2.0, 1.0
    phi2 = math.radians(60.0)
    theta3 = phi2 + math.radians(322.1)
    theta4 = theta3 + math.radians(266.4)
    l4 = -(l2 * math.sin(phi2) + l3 * math.sin(theta3)) / math.sin(theta4)
    l1 = l2 * math.cos(phi2) + l3 * math.cos(theta3) + l4 * math.cos(theta4)
    return {"L1": round(l1, 3), "L2": l2, "L3": l3, "L4": round(l4, 3), "d1": d1}


def configuration(phi2: float, lengths: dict[str, float], branch_hint=None) -> dict[str, np.ndarray]:
    """Joint points and link angles for an input angle ``phi2`` (rad) by closing the loop analytically.

    Returns points ``O1, C, D, O2, Oc, G2, G3, G4`` (2-vectors, m) and absolute angles ``theta2..theta4`` (rad).
    ``branch_hint`` (a D point) selects the assembly branch; the default is the branch of seed 002 eq. (90).
    """
    l1, l2, l3, l4, d1 = (lengths[k] for k in ("L1", "L2", "L3", "L4", "d1"))
    o1, o2, oc = np.zeros(2), np.array([l1, 0.0]), np.array([-d1, 0.0])
    c = l2 * np.array([math.cos(phi2), math.sin(phi2)])
    dist = float(np.linalg.norm(o2 - c))
    a = (l3**2 - l4**2 + dist**2) / (2 * dist)
    h = math.sqrt(max(l3**2 - a**2, 0.0))
    u = (o2 - c) / dist
    n = np.array([-u[1], u[0]])
    candidates = [c + a * u + h * n, c + a * u - h * n]
    if branch_hint is None:
        branch_hint = c + l3 * np.array([math.cos(phi2 + math.radians(322.1)), math.sin(phi2 + math.radians(322.1))])
    d = min(candidates, key=lambda p: float(np.linalg.norm(p - branch_hint)))
    theta3 = math.atan2(*(d - c)[::-1])
    theta4 = math.atan2(*(o2 - d)[::-1])
    return {"O1": o1, "C": c, "D": d, "O2": o2, "Oc": oc, "G2": 0.5 * c, "G3": 0.5 * (c + d), "G4": 0.5 * (d + o2),
            "theta2": phi2, "theta3": theta3, "theta4": theta4}


def cylinder_length(phi2: float, lengths: dict[str, float]) -> float:
    """Pin distance ``s`` between Oc and G2, m (seed 002 eq. (78))."""
    conf = configuration(phi2, lengths)
    return float(np.linalg.norm(conf["G2"] - conf["Oc"]))


def relative_angles_deg(phi2: float, lengths: dict[str, float]) -> tuple[float, float]:
    """``phi32`` and ``phi43`` in degrees in [0, 360) (the paper's relative coordinates)."""
    conf = configuration(phi2, lengths)
    return (math.degrees(conf["theta3"] - conf["theta2"]) % 360.0,
            math.degrees(conf["theta4"] - conf["theta3"]) % 360.0)


def potential_energy(phi2: float, lengths: dict[str, float], masses: dict[str, float]) -> float:
    """Gravitational potential of the three links, J (gravity along -Y)."""
    conf = configuration(phi2, lengths)
    return GRAVITY * sum(masses[k] * conf[g][1] for k, g in (("m2", "G2"), ("m3", "G3"), ("m4", "G4")))


def virtual_work_cylinder_force(phi2: float, lengths, masses, step: float = 1e-6) -> float:
    """Cylinder force (N, positive pushing) that balances gravity: ``F ds/dphi2 = dV/dphi2`` (virtual work).

    Derivatives by central differences of the closed-form kinematics, independent of the multibody solver.
    """
    dv = (potential_energy(phi2 + step, lengths, masses) - potential_energy(phi2 - step, lengths, masses)) / (2 * step)
    ds = (cylinder_length(phi2 + step, lengths) - cylinder_length(phi2 - step, lengths)) / (2 * step)
    return dv / ds
