"""The compactor's forward model: Table 1 tree → flexmbs model (planar, lean) + contacts, drives, exciter; runs.

Lean model (docs/cases/compactor.md, "Forward model"): straight travel in the vertical plane with the joints of
:data:`geometry.LOCKED_PLANAR` locked (and the rear silent blocs 8–11 unless ``rear_silent_blocs``), a free planar
chassis body instead of the massless chain 1–5, welded links merged into one body, the massless links carrying the
stand-in ``virtual_mass``. ``support = "rigid"`` welds the chassis to the ground and glues the drums to a 1e11 N/m
bilateral support (for the harmonic check of the estimator).
"""
from __future__ import annotations

import numpy as np

from scipy.optimize import fsolve

from fem.errors import SimulationError
from flexmbs.model.timefunctions import smooth_step
from flexmbs.tree.dh import forward_kinematics, inverse_dynamics
from flexmbs.tree.model import build_tree_model

from .elements import DrumContact, road_profile
from .geometry import BASE_ORIENTATION, LOCKED_PLANAR, link_parameters, rest_pose, table1

__all__ = ["build_machine", "exciter_speed", "drum_speed", "static_front_load", "static_pose", "contact_wrenches",
           "GRAVITY"]

GRAVITY = 9.81


def exciter_speed(p: dict):
    """Prescribed exciter speed q̇23(t), rad/s: smooth ramp to 2π f over ``exciter_ramp`` (0 when not vibrating)."""
    omega = 2.0 * np.pi * p["exciter_frequency"] if p["scenario"] in ("vibrating", "driving") else 0.0
    ramp = p["exciter_ramp"]
    return lambda t: float(smooth_step(t, 0.0, 0.0, ramp, omega)) if ramp > 0 else omega


def drum_speed(p: dict):
    """Reference relative speed of the half-drums q̇21 = q̇22 = −v/R (rolling forward along +X), rad/s."""
    v = p["driving_speed"] if p["scenario"] == "driving" else p["travel_speed"]
    target = -v / p["drum_radius"]
    return lambda t: float(smooth_step(t, 0.0, 0.0, 0.5, target))


def static_front_load(p: dict) -> float:
    """Static front-drum load (N) of the rest pose by moment balance about the rear contact line (independent of the
    tree): front unit weight + the chassis weight share ``a/D``."""
    unit = 2 * (p["support_mass"] + p["half_drum_mass"]) + p["exciter_mass"]
    return GRAVITY * (unit + p["chassis_mass"] * p["chassis_com_ahead"] / p["wheelbase"])


def contact_wrenches(tree, q, radius, width, stiffness, road_height=0.0):
    """Static drum–road wrenches (``fe``, ``me`` (n, 3), BY the half-drums ON the road, link frames, moments about
    the link origins) of the Kelvin–Voigt contact at rest (flat road at ``z0 = road_height``)."""
    A0, P0 = forward_kinematics(tree, q)
    fe, me = np.zeros((tree.n, 3)), np.zeros((tree.n, 3))
    up = np.array([0.0, 0.0, 1.0])
    for j, inward in ((12, 1.0), (13, -1.0), (21, 1.0), (22, -1.0)):
        k = j - 1
        centre = P0[k] + A0[k] @ np.array([0.0, 0.0, inward * width / 4.0])
        penetration = radius - (centre[2] - road_height)
        force = stiffness * max(penetration, 0.0) * up  # on the drum
        arm = centre - radius * up - P0[k]
        fe[k] = -A0[k].T @ force
        me[k] = -A0[k].T @ np.cross(arm, force)
    return fe, me


def static_pose(tree, params, q_guess, unknowns, radius, width, stiffness) -> np.ndarray:
    """Static equilibrium in joint space by the Newton–Euler model: ``Γ_j(q, 0, 0) = 0`` (gravity, silent blocs,
    static contact wrenches) for the passive joints ``unknowns`` (1-based); the other joints keep ``q_guess``."""
    idx = np.asarray(unknowns) - 1
    zero = np.zeros(tree.n)

    def residual(x):
        q = q_guess.copy()
        q[idx] = x
        fe, me = contact_wrenches(tree, q, radius, width, stiffness)
        return inverse_dynamics(tree, params, q, zero, zero, gravity=(0.0, 0.0, -GRAVITY), f_ext=fe,
                                m_ext=me)[idx]

    x, info, ok, message = fsolve(residual, q_guess[idx], full_output=True, xtol=1e-13)
    weight = GRAVITY * float(params.mass.sum())
    if np.abs(residual(x)).max() > 1e-9 * weight:  # fsolve may stop short of xtol on a stiff support: judge Γ
        raise SimulationError(f"compactor: static pose not found ({message}); check masses and stiffnesses")
    q = q_guess.copy()
    q[idx] = x
    return q


def build_machine(p: dict, support: str = "soil"):
    """The forward model. Returns ``(tree_model, parts)`` with ``parts`` = dict of the contacts, drives and the
    initial joint positions ``q0`` (23,)."""
    R, L = p["drum_radius"], p["drum_width"]
    tree_full = table1(L, p["wheelbase"])
    q_rest = rest_pose(R)
    params = link_parameters(p, tree_full, q_rest)
    q0 = q_rest.copy()  # initial guess near the static equilibrium: drums sunk by their load
    locked = list(LOCKED_PLANAR) + ([] if p["rear_silent_blocs"] else [8, 9, 10, 11])
    free_base = 6
    if support == "rigid":
        locked += [1, 3, 5]
        free_base = None
        stiffness = 1e11
    else:
        stiffness = p["soil_stiffness"]
        q0[2] -= static_front_load(p) / (2.0 * stiffness)
    tree = tree_full.with_fixed(locked, q0)
    unknowns = [17, 18, 19, 20] + ([8, 9, 10, 11] if p["rear_silent_blocs"] else []) + ([3, 5] if free_base else [])
    q0 = static_pose(tree, params, q0, unknowns, R, L, stiffness)
    speed = drum_speed(p)
    drives = {j: (p["drive_gain"], speed) for j in (12, 13, 21, 22)}  # hydrostatic drum motors (speed sources)
    tm = build_tree_model(tree, params, q=q0, gravity=(0.0, 0.0, -GRAVITY), base_orientation=BASE_ORIENTATION,
                          free_base=free_base, planar=True, virtual_mass=p["virtual_mass"],
                          virtual_inertia=p["virtual_mass"] * 1e-3, drives=drives, name="compactor")
    model = tm.model
    model.parameters = dict(p)
    road = road_profile(p["surface"], p["step_height"], p["step_position"] + p["wheelbase"], p["step_length"])
    contacts = {}
    for j, inward in ((12, 1.0), (13, -1.0), (21, 1.0), (22, -1.0)):
        centre = model.add_marker(tm.body_of_link[j - 1], f"{tree.names[j - 1]}.centre",
                                  position=(0.0, 0.0, inward * L / 4.0))
        contacts[j] = model.add_force(DrumContact(
            centre, R, stiffness, p["soil_damping"], p["soil_damping_depth"], p["traction_coefficient"],
            p["traction_slip_velocity"], p["rolling_resistance"], road, bilateral=support == "rigid",
            name=f"contact{j}"))
    tm.joints[23].prescribe(velocity=exciter_speed(p))
    return tm, {"contacts": contacts, "q0": q0, "full_tree": tree_full, "params": params}
