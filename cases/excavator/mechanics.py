"""The planar 12-body multibody model of the excavator (seed 001 §2, Fig. 4; docs/cases/excavator.md, "Mechanics").

Bodies: base 12 (travelling + swing body), boom 1, stick 2, bucket 3, the tube and the rod of the three cylinders,
rocker and bucket link. Joints: 12 revolute (``_REVOLUTES``, eq. (13), (14) in a ``flexmbs.Model(planar=True)``)
and 3 translational (the cylinders, eq. (17), (21)): 36 coordinates, 30 constraints, 6 degrees of freedom. The base
rests on the linear spring-dampers QU, QT, RS (eq. (26), (34), (35)) whose preloads carry the machine's weight in
the start pose exactly (:func:`support_loads`), so the base starts in equilibrium.
"""
from __future__ import annotations

import math

import numpy as np

import flexmbs as fm

from . import geometry as geo

__all__ = ["GRAVITY", "FRONT_BODIES", "CYLINDER_NAMES", "build_mechanism", "initial_pose", "start_pose",
           "retracted_lengths", "support_loads", "body_masses", "potential_energy", "static_cylinder_forces"]

GRAVITY = 9.81  # m/s^2
CYLINDER_NAMES = ("boom_cylinder", "stick_cylinder", "bucket_cylinder")
FRONT_BODIES = ("boom", "stick", "bucket")
LINKAGE_BODIES = ("boom_cylinder_tube", "boom_cylinder_rod", "stick_cylinder_tube", "stick_cylinder_rod",
                  "bucket_cylinder_tube", "bucket_cylinder_rod", "rocker", "bucket_link")
_REVOLUTES = (  # name, (body i, pin on i), (body j, pin on j); "@" is the body frame origin
    ("A", ("base", "A"), ("boom", "A")),
    ("B", ("base", "B"), ("boom_cylinder_tube", "@")),
    ("C", ("boom", "C"), ("boom_cylinder_rod", "@")),
    ("D", ("boom", "D"), ("stick", "D")),
    ("E", ("boom", "E"), ("stick_cylinder_tube", "@")),
    ("F", ("stick", "F"), ("stick_cylinder_rod", "@")),
    ("G", ("stick", "G"), ("bucket", "G")),
    ("H", ("stick", "H"), ("bucket_cylinder_tube", "@")),
    ("I", ("stick", "I"), ("rocker", "@")),
    ("K1", ("rocker", "K"), ("bucket_cylinder_rod", "@")),
    ("K2", ("rocker", "K"), ("bucket_link", "@")),
    ("J", ("bucket_link", "J"), ("bucket", "J")),
)
# marker frame of a translational joint: marker z along the body x axis (the cylinder axis)
_SLIDER_FRAME = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def initial_pose(p: dict) -> dict:
    """Pose of seed 001 Fig. 4 from the parameters ``boom_angle_deg``, ``stick_angle_deg``, ``bucket_angle_deg``."""
    return geo.pose(math.radians(p["boom_angle_deg"]), math.radians(p["stick_angle_deg"]),
                    math.radians(p["bucket_angle_deg"]))


def start_pose(p: dict, scenario: str | None = None) -> dict:
    """Pose at t = 0: the digging pose, or the raised ``free_fall_*_deg`` pose for the free-fall scenarios."""
    if (scenario or p["scenario"]).startswith("free-fall"):
        return geo.pose(*np.radians([p["free_fall_boom_deg"], p["free_fall_stick_deg"], p["free_fall_bucket_deg"]]))
    return initial_pose(p)


def retracted_lengths(p: dict) -> dict[str, float]:
    """Pin-to-pin length (m) of each cylinder at zero stroke: its length in the digging pose minus
    ``<cyl>_initial_fraction`` strokes (this fixes the cylinders' mounting for every scenario)."""
    pose = initial_pose(p)
    out = {}
    for name in CYLINDER_NAMES:
        key = name.split("_")[0]
        out[name] = pose["lengths"][name] - p[f"{key}_initial_fraction"] * p[f"{key}_stroke"]
    return out


def body_masses(p: dict, light: bool = False) -> dict[str, float]:
    """Masses (kg) of the 12 bodies; the base carries the rest of the 36 t (seed 001 §5).

    ``light=True``: cylinders and links keep only ``light_mass_fraction`` of their mass (the second free-fall
    variant of seed 001 Fig. 10b, where only boom, stick and bucket have inertia; a tiny mass keeps the mass matrix
    regular without changing the dynamics noticeably).
    """
    masses = {name: p[name] for name in FRONT_BODIES}
    for name in LINKAGE_BODIES:
        masses[name] = p[name] * (p["light_mass_fraction"] if light else 1.0)
    front_full = sum(p[name] for name in FRONT_BODIES + LINKAGE_BODIES)
    masses["base"] = p["machine"] - front_full
    return masses


def _body_data(p: dict, masses: dict, centres: dict | None = None) -> dict:
    """Mass, centre of mass (body frame, m) and planar inertia (kg m^2) per body (``centres`` overrides)."""
    lengths = retracted_lengths(p)
    data = {}
    centres = {**geo.CENTRES_OF_MASS, **(centres or {})}
    for name in ("base",) + FRONT_BODIES + ("rocker", "bucket_link"):
        com = centres[name] if name in centres else (0.5 * geo.LINK_LENGTHS[name], 0.0)  # links: at mid-length
        data[name] = (masses[name], com, geo.body_inertia(name, masses[name]))
    for cyl in CYLINDER_NAMES:
        length = lengths[cyl]
        for part, com_x in (("tube", 0.45 * length), ("rod", -0.45 * length)):
            m = masses[f"{cyl}_{part}"]
            data[f"{cyl}_{part}"] = (m, (com_x, 0.0), m * length**2 / 12.0)
    return data


def support_loads(p: dict, pose: dict, masses: dict) -> tuple[float, float]:
    """Vertical loads (N) on the front (Q) and rear (R) supports that balance the machine in ``pose``.

    Statics of the whole machine: ``W_Q + W_R = W`` and ``W_Q (x_Q - x_c) + W_R (x_R - x_c) = 0`` with the
    global centre of mass ``x_c``.
    """
    data = _body_data(p, masses)
    total, moment = 0.0, 0.0
    for name, (m, com, _) in data.items():
        origin, angle = pose["frames"][name]
        x = origin + geo.rotation(angle) @ np.asarray(com)
        total += m
        moment += m * x[0]
    x_c = moment / total
    weight = total * GRAVITY
    x_q, x_r = p["front_x"], p["rear_x"]
    w_q = weight * (x_c - x_r) / (x_q - x_r)
    return w_q, weight - w_q


def _rotation3(angle: float) -> np.ndarray:
    c, s = math.cos(angle), math.sin(angle)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def build_mechanism(p: dict, light: bool = False, support_damping: bool = True, boom_body=None,
                    pose: dict | None = None):
    """The 12-body model in the initial pose; returns ``(model, handles)``.

    Parameters
    ----------
    p : dict
        Case parameters.
    light : bool
        Cylinders and links (nearly) without inertia (seed 001 Fig. 10b).
    support_damping : bool
        Dampers of the base supports on (False: a conservative model for the energy check).
    boom_body : callable, optional
        ``boom_body(model, frame_origin, frame_angle) -> body`` replacing the rigid boom (the flexible variant);
        its markers are placed on the nodes named after the pins (``"A"``, ``"C"``, ``"D"``, ``"E"``).
    pose : dict, optional
        Start pose (:func:`geometry.pose`); the digging pose by default.

    Returns
    -------
    model : flexmbs.Model
    handles : dict with ``pose``, ``bodies``, ``markers`` (``"<body>.<pin>"``), ``cylinder_pins`` (tube, rod marker
        per cylinder), ``retracted_lengths``, ``tip`` (bucket tip marker L), ``support_loads``.
    """
    pose = pose or initial_pose(p)
    masses = body_masses(p, light)
    data = _body_data(p, masses)
    model = fm.Model("excavator", gravity=(0.0, -GRAVITY, 0.0), planar=True)
    bodies = {}
    for name, (m, com, inertia) in data.items():
        origin, angle = pose["frames"][name]
        if name == "boom" and boom_body is not None:
            bodies[name] = boom_body(model, origin, angle)
            continue
        bodies[name] = model.add_rigid_body(name, mass=m, inertia=(inertia, inertia, inertia),
                                            centre_of_mass=(com[0], com[1], 0.0),
                                            position=(origin[0], origin[1], 0.0), orientation=_rotation3(angle))
    markers = {}

    def marker(body: str, pin: str):
        key = f"{body}.{pin}"
        if key not in markers:
            if pin == "@":
                markers[key] = model.add_marker(bodies[body], key, position=(0.0, 0.0, 0.0))
            elif getattr(bodies[body], "n_modes", 0):
                markers[key] = model.add_marker(bodies[body], key, node=pin)
            else:
                xy = (geo.LINK_LENGTHS[body], 0.0) if body in geo.LINK_LENGTHS else geo.PINS[body][pin]
                markers[key] = model.add_marker(bodies[body], key, position=(xy[0], xy[1], 0.0))
        return markers[key]

    for name, (bi, pi), (bj, pj) in _REVOLUTES:
        model.add_joint("revolute", marker(bi, pi), marker(bj, pj), name=name)
    cylinder_pins = {}
    for cyl in CYLINDER_NAMES:
        tube, rod = bodies[f"{cyl}_tube"], bodies[f"{cyl}_rod"]
        slide_i = model.add_marker(tube, f"{cyl}.slide_tube", orientation=_SLIDER_FRAME)
        slide_j = model.add_marker(rod, f"{cyl}.slide_rod", orientation=_SLIDER_FRAME)
        model.add_joint("prismatic", slide_i, slide_j, name=cyl)
        cylinder_pins[cyl] = (markers[f"{cyl}_tube.@"], markers[f"{cyl}_rod.@"])
    w_q, w_r = support_loads(p, pose, masses)
    _add_supports(model, bodies["base"], p, w_q, w_r, support_damping)
    tip = marker("bucket", "L")
    handles = {"pose": pose, "bodies": bodies, "markers": markers, "cylinder_pins": cylinder_pins,
               "retracted_lengths": retracted_lengths(p), "tip": tip, "support_loads": (w_q, w_r),
               "masses": masses}
    return model, handles


def _add_supports(model, base, p: dict, w_q: float, w_r: float, damping: bool) -> None:
    """Spring-dampers QU, QT (front end Q) and RS (rear end R) between the base and the ground (1 m long)."""
    y = p["ground_y"]
    kv, kh = p["vertical_stiffness"], p["horizontal_stiffness"]
    cv = p["vertical_damping"] if damping else 0.0
    ch = p["horizontal_damping"] if damping else 0.0
    q = model.add_marker(base, "base.Q", position=(p["front_x"], y, 0.0))
    r = model.add_marker(base, "base.R", position=(p["rear_x"], y, 0.0))
    u = model.add_marker(model.ground, "ground.U", position=(p["front_x"], y - 1.0, 0.0))
    t = model.add_marker(model.ground, "ground.T", position=(p["front_x"] - 1.0, y, 0.0))
    s = model.add_marker(model.ground, "ground.S", position=(p["rear_x"], y - 1.0, 0.0))
    # tension positive: a compressive preload equal to the support load carries the weight
    model.add_force(fm.SpringDamper(u, q, kv, cv, free_length=1.0, preload=-w_q, name="QU"))
    model.add_force(fm.SpringDamper(t, q, kh, ch, free_length=1.0, name="QT"))
    model.add_force(fm.SpringDamper(s, r, kv, cv, free_length=1.0, preload=-w_r, name="RS"))


def potential_energy(p: dict, angles, light: bool = False, centres: dict | None = None) -> float:
    """Gravitational potential (J) of the front (base fixed) at ``angles`` = (boom, stick, bucket), rad."""
    pose = geo.pose(*angles)
    data = _body_data(p, body_masses(p, light), centres)
    energy = 0.0
    for name, (m, com, _) in data.items():
        if name == "base":
            continue
        origin, angle = pose["frames"][name]
        energy += m * GRAVITY * float(origin[1] + geo.rotation(angle)[1] @ np.asarray(com))
    return energy


def static_cylinder_forces(p: dict, step: float = 1e-6, centres: dict | None = None) -> dict[str, float]:
    """Axial cylinder forces (N, positive pushing the pins apart) holding the front in the initial pose.

    Virtual work with the base fixed: ``dV/dtheta_k = sum_i F_i dL_i/dtheta_k`` for the boom, stick and bucket
    angles ``theta_k`` (the three degrees of freedom of the front), derivatives by central differences of the
    closed-form geometry (:func:`geometry.pose`); independent of the multibody solver.
    """
    theta0 = np.radians([p["boom_angle_deg"], p["stick_angle_deg"], p["bucket_angle_deg"]])
    d_energy = np.empty(3)
    d_length = np.empty((3, 3))
    for k in range(3):
        e = np.zeros(3)
        e[k] = step
        d_energy[k] = (potential_energy(p, theta0 + e, centres=centres)
                       - potential_energy(p, theta0 - e, centres=centres)) / (2 * step)
        plus, minus = geo.pose(*(theta0 + e))["lengths"], geo.pose(*(theta0 - e))["lengths"]
        d_length[k] = [(plus[c] - minus[c]) / (2 * step) for c in CYLINDER_NAMES]
    forces = np.linalg.solve(d_length, d_energy)
    return dict(zip(CYLINDER_NAMES, forces.tolist()))
