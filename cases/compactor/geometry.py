"""The compactor as a modified-DH tree: seed 004 Table 1 (L199–320, as read in wave2-spec D.2), its rest pose, and
the stand-in dynamic parameters of :mod:`compactor.toml` in the link frames.

Rest pose: at ``q = 0`` joints 4 and 6 (yaw, roll) are parallel and the drum axes vertical; the upright roller
needs the offsets ``q5 = −π/2``, ``q6 = +π/2`` (Khalil's floating-base variables carry such offsets), with the DH base
frame turned into global axes by :data:`BASE_ORIENTATION` (X forward = ``z1``, Y up = ``z3``, Z lateral). The axes
that follow (drums +Z, ``z17`` down, ``z18`` forward, ...): docs/cases/compactor.md, "Table 1 as read, and the rest
pose".
"""
from __future__ import annotations

import numpy as np

from flexmbs.tree.dh import DHTree, LinkParameters, forward_kinematics

__all__ = ["table1", "rest_pose", "BASE_ORIENTATION", "LOCKED_PLANAR", "link_parameters", "LINK_NAMES"]

H = np.pi / 2
# DH base frame 0 in global axes (columns: x0, y0, z0): x0 = −Z (lateral), y0 = −X, z0 = +Y (up)
BASE_ORIENTATION = np.array([[0.0, -1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]])
# straight travel in the vertical plane: lateral translation, yaw, roll, rear articulation, rear exciter (idle),
# front steering and pendular joint are locked (seed 004 L706–710: planar motion)
LOCKED_PLANAR = (2, 4, 6, 7, 14, 15, 16)

LINK_NAMES = ("virtual_x", "virtual_y", "virtual_z", "virtual_yaw", "virtual_pitch", "chassis", "rear_clamp",
              "rear_bloc_t1", "rear_bloc_t2", "rear_support1", "rear_support2", "rear_half_drum1",
              "rear_half_drum2", "rear_exciter", "front_steering", "front_clamp", "front_bloc_t1", "front_bloc_t2",
              "front_support1", "front_support2", "front_half_drum1", "front_half_drum2", "front_exciter")


def table1(drum_width: float, wheelbase: float) -> DHTree:
    """Seed 004 Table 1: rows ``j: μ, σ, a(j), γ, b, α, d, θ, r`` with the joint variable dropped (constant parts);
    ``L`` = drum width (silent-bloc planes at ±L/2), ``D`` = wheelbase (b15)."""
    L, D = float(drum_width), float(wheelbase)
    rows = [(0, 1, 0, 0, 0, H, 0, H, 0), (0, 1, 1, 0, 0, H, 0, H, 0), (0, 1, 2, 0, 0, H, 0, 0, 0),
            (0, 0, 3, 0, 0, 0, 0, 0, 0), (0, 0, 4, 0, 0, -H, 0, 0, 0), (0, 0, 5, 0, 0, -H, 0, 0, 0),
            (1, 0, 6, 0, 0, -H, 0, 0, 0), (0, 1, 7, 0, 0, 0, 0, 0, 0), (0, 1, 8, 0, 0, H, 0, H, 0),
            (0, 0, 9, 0, 0, H, 0, 0, -L / 2), (0, 0, 9, 0, 0, H, 0, 0, L / 2), (1, 0, 10, 0, 0, 0, 0, 0, 0),
            (1, 0, 11, 0, 0, 0, 0, 0, 0), (1, 0, 10, 0, 0, 0, 0, 0, 0), (1, 0, 6, 0, D, -H, 0, 0, 0),
            (0, 0, 15, 0, 0, H, 0, 0, 0), (0, 1, 16, 0, 0, -H, 0, 0, 0), (0, 1, 17, 0, 0, H, 0, H, 0),
            (0, 0, 18, 0, 0, H, 0, 0, -L / 2), (0, 0, 18, 0, 0, H, 0, 0, L / 2), (1, 0, 19, 0, 0, 0, 0, 0, 0),
            (1, 0, 20, 0, 0, 0, 0, 0, 0), (1, 0, 20, 0, 0, 0, 0, 0, 0)]
    r = np.array(rows, dtype=float)
    return DHTree(r[:, 2], r[:, 1], r[:, 3], r[:, 4], r[:, 5], r[:, 6], r[:, 7], r[:, 8], r[:, 0], LINK_NAMES)


def rest_pose(drum_radius: float) -> np.ndarray:
    """Joint positions (23,) of the upright roller with the drum axes at height ``drum_radius`` above frame 0."""
    q = np.zeros(23)
    q[2] = drum_radius  # z3: vertical translation (chassis frame origin = rear drum centre)
    q[4], q[5] = -H, H  # pitch and roll offsets, see the module docstring
    return q


def _inertial(A, mass, com_global, inertia_global):
    """First moment (3,) and inertia about the frame origin (3, 3) in link axes ``A`` (link → global) from a centre
    of mass offset and an inertia about the centre of mass, both in global axes at the rest pose."""
    c = A.T @ np.asarray(com_global, dtype=float)
    J_c = A.T @ np.asarray(inertia_global, dtype=float) @ A
    return mass * c, J_c + mass * (c @ c * np.eye(3) - np.outer(c, c))


def link_parameters(p: dict, tree: DHTree, q_rest: np.ndarray) -> LinkParameters:
    """Stand-in dynamic parameters (assumed, :mod:`compactor.toml`) of the 23 links in their own frames."""
    A0, _ = forward_kinematics(tree, q_rest)
    A = np.einsum("ab,nbc->nac", BASE_ORIENTATION, A0)  # link → global at rest
    n = tree.n
    mass, ms, J = np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3, 3))
    R, L = p["drum_radius"], p["drum_width"]

    def put(j, m, com, inertia):
        mass[j - 1] = m
        ms[j - 1], J[j - 1] = _inertial(A[j - 1], m, com, inertia)

    mc = p["chassis_mass"]
    put(6, mc, (p["chassis_com_ahead"], p["chassis_com_height"], 0.0),
        mc * np.diag([p["chassis_gyration_roll"], p["chassis_gyration_yaw"], p["chassis_gyration_pitch"]]) ** 2)
    ms_, md, me = p["support_mass"], p["half_drum_mass"], p["exciter_mass"]
    drum_axial = md * p["half_drum_axial_gyration"] ** 2
    drum_transverse = md * (R * R / 2.0 + (L / 2.0) ** 2 / 12.0)
    exc_transverse = me * L * L / 12.0
    for side, (support, drum, exciter) in enumerate(((10, 12, 14), (11, 13, None), (19, 21, None), (20, 22, 23))):
        inward = 1.0 if side % 2 == 0 else -1.0  # side 1 lies at −L/2 along +Z: the drum centre is towards +Z
        put(support, ms_, (0, 0, 0), p["support_inertia"] * np.eye(3))
        put(drum, md, (0, 0, inward * L / 4.0), np.diag([drum_transverse, drum_transverse, drum_axial]))
        if exciter is not None:
            put(exciter, me, (0, 0, inward * L / 2.0), np.diag([exc_transverse, exc_transverse,
                                                                   p["exciter_axial_inertia"]]))
    ms[23 - 1, 0:2] += (p["eccentric_moment"], 0.0)  # the unbalance m_e e along x23 (exciter frame)
    k, h, fs = np.zeros(n), np.zeros(n), np.zeros(n)
    for joints, mount in (((8, 9), "rear_translation"), ((10, 11), "rear_rotation"), ((17, 18), "front_translation"),
                          ((19, 20), "front_rotation")):
        for j in joints:
            k[j - 1], h[j - 1] = p[f"{mount}_stiffness"], p[f"{mount}_damping"]
    for j in (12, 13, 21, 22):
        h[j - 1], fs[j - 1] = p["drum_bearing_damping"], p["drum_bearing_coulomb"]
    h[23 - 1] = p["exciter_bearing_damping"]
    return LinkParameters(mass, ms, J, k, h, fs, friction_velocity=p["friction_velocity"])
