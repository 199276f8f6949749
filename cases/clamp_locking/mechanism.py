"""The multibody model of the clamp locking mechanism (seed 003 §3.2.1.1): 9 moving parts, one degree of freedom.

Bodies: four clamp pistons (rigid), three connecting bars (rigid, or floating-frame flexible bodies from the
cached Craig–Bampton reduction), cylinder body and cylinder rod. Joints as in the seed's survey:

=====================  =====================================================  ==========
joint                  where                                                  equations
=====================  =====================================================  ==========
4 revolute             pistons on the platen (tie-bar axes, friction)         4 × 5
6 spherical            bar bearings on the piston lugs                        6 × 3
1 spherical            cylinder body on the platen                            3
1 translational        cylinder rod in the cylinder body                      5
1 cylindrical          cylinder rod eye on the lug of piston 4 (axis Z)       4
3 roll locks           no spin of a bar about its own axis                    3 × 1
=====================  =====================================================  ==========

9 × 6 − 53 = 1 degree of freedom (plus the elastic coordinates of flexible bars). Friction in the piston
revolute joints and the cylinder end stops (seed 003 eq. (4-1)) are the core's ``JointFriction`` and ``HardStop``.
"""
from __future__ import annotations

import math

import numpy as np

import flexmbs as fm

from fem.errors import ModelError

from . import geometry
from flexmbs.model.contacts import HardStop, JointFriction

from .elements import RollLock

GRAVITY = 9.81  # m/s^2


def _cylinder_frame(base: np.ndarray, pin: np.ndarray) -> np.ndarray:
    """Cylinder axes (3, 3): z from the platen pivot to the rod eye, x along global Z, y = z × x."""
    ez = np.append(pin - base, 0.0)
    ez /= np.linalg.norm(ez)
    ex = np.array([0.0, 0.0, 1.0])
    return np.column_stack([ex, np.cross(ez, ex), ez])


def _add_pistons(model, params, lay):
    if not 0.0 <= params["piston_inner_radius"] < params["piston_outer_radius"]:  # issue 43: a ring inside out ran
        raise ModelError(f"clamp-locking: piston_inner_radius ({params['piston_inner_radius']:g} m) must be at least 0 "
                         f"and smaller than piston_outer_radius ({params['piston_outer_radius']:g} m)")
    inertia = geometry.ring_inertia(params["piston_mass"], params["piston_outer_radius"],
                                    params["piston_inner_radius"], params["piston_length"])
    z_c = -0.5 * params["piston_length"]
    pistons, revolutes = {}, {}
    for name in geometry.PISTONS:
        axis = lay["axes"][name]
        body = model.add_rigid_body(name, mass=params["piston_mass"], inertia=inertia, centre_of_mass=(0, 0, z_c),
                                    position=(axis[0], axis[1], 0.0))
        on_platen = model.add_marker(model.ground, f"platen.{name}", position=(axis[0], axis[1], z_c))
        on_piston = model.add_marker(body, f"{name}.axis", position=(0.0, 0.0, z_c))
        joint = model.add_joint("revolute", on_platen, on_piston, name=f"rev_{name}")
        # seed 003 §3.2.1.1: friction "from the forces and moments applied to the joint" (Adams form, contacts.py)
        model.add_force(JointFriction(joint, params["friction_static"], params["friction_dynamic"],
                                      params["friction_transition_velocity"], pin_radius=params["friction_pin_radius"],
                                      friction_arm=params["friction_arm"],
                                      bending_arm=params["friction_bending_arm"],
                                      preload=params["friction_preload"], name=f"friction_{name}",
                                      stiction_deformation=params["friction_stiction_deformation"] or None,
                                      stiction_damping=params["friction_stiction_damping"]))
        pistons[name], revolutes[name] = body, joint
    return pistons, revolutes


def _add_bar(model, name, params, lay, pistons, flexbody):
    pin_near, pin_far = lay["pins"][name]
    frame = geometry.bar_frame(pin_near, pin_far)
    if flexbody is None:
        props = geometry.bar_mass_properties(params)
        body = model.add_rigid_body(name, mass=props["mass"], inertia=props["inertia"],
                                    centre_of_mass=props["centre_of_mass"], position=pin_near, orientation=frame)
        ends = [model.add_marker(body, f"{name}.a", position=(0.0, 0.0, 0.0)),
                model.add_marker(body, f"{name}.b", position=(params["bar_length"], 0.0, 0.0))]
    else:
        node_a = flexbody.positions[flexbody.interface("a").node]
        body = model.add_flexible_body(name, flexbody, position=pin_near - frame @ node_a, orientation=frame,
                                       damping_ratio=params["modal_damping"])
        ends = [model.add_marker(body, f"{name}.a", node="a"), model.add_marker(body, f"{name}.b", node="b")]
    joints = []
    for end, piston_name, pin, marker in zip("ab", geometry.BARS[name], (pin_near, pin_far), ends):
        piston = pistons[piston_name]
        lug = model.add_marker(piston, f"{piston_name}.lug_{name}", position=pin - piston.initial_position)
        joints.append(model.add_joint("spherical", lug, marker, name=f"sph_{name}_{end}"))
        if end == "a":
            model.add_joint(RollLock(lug, marker, name=f"roll_{name}"))
    return body, joints


def _add_cylinder(model, params, lay, piston4):
    cyl = lay["cylinder"]
    z = cyl["plane"]
    base, pin = cyl["base"], cyl["pin_start"]
    frame = _cylinder_frame(base, pin)
    length = cyl["retracted_length"]
    body = model.add_rigid_body("cyl_body", mass=params["cylinder_body_mass"],
                                inertia=geometry.ring_inertia(params["cylinder_body_mass"], 0.08, 0.0, 0.6),
                                centre_of_mass=(0.0, 0.0, 0.3), position=(*base, z), orientation=frame)
    rod = model.add_rigid_body("cyl_rod", mass=params["cylinder_rod_mass"],
                               inertia=geometry.ring_inertia(params["cylinder_rod_mass"], 0.045, 0.0, 0.6),
                               centre_of_mass=(0.0, 0.0, -0.3), position=(*pin, z), orientation=frame)
    pivot = model.add_marker(model.ground, "platen.cylinder", position=(*base, z))
    body_end = model.add_marker(body, "cyl_body.pivot")
    model.add_joint("spherical", pivot, body_end, name="sph_cylinder")
    guide = model.add_joint("prismatic", body_end, model.add_marker(rod, "cyl_rod.guide"), name="trans_cylinder")
    lug = model.add_marker(piston4, "piston4.lug_cylinder", position=(*(pin - piston4.initial_position[:2]), z))
    eye = model.add_marker(rod, "cyl_rod.eye", orientation=frame.T)
    model.add_joint("cylindrical", lug, eye, name="cyl_cylinder")
    stop = HardStop(guide, lower=length, upper=length + params["stroke"], stiffness=params["stop_stiffness"],
                    exponent=params["stop_exponent"], damping=params["stop_damping"],
                    damping_depth=params["stop_damping_depth"], name="end_stops")
    model.add_force(stop)
    return fm.Distance(pivot, eye), length


def build_mechanism(params: dict, flexbodies: dict | None = None):
    """The mechanism in its unlocked configuration.

    Parameters
    ----------
    params : dict
        Case parameters (see clamp_locking.toml).
    flexbodies : dict of bar name -> FlexBody, optional
        Reduced bars; rigid bars when omitted.

    Returns
    -------
    model : flexmbs.Model
    handles : dict
        ``layout``, ``pistons``, ``revolutes``, ``bar_joints`` (bar -> [near, far] spherical joints),
        ``cylinder_length`` (Distance measurement), ``retracted_length`` (m).
    """
    lay = geometry.layout(params)
    model = fm.Model("clamp-locking", gravity=(0.0, -GRAVITY, 0.0))
    pistons, revolutes = _add_pistons(model, params, lay)
    bar_joints = {}
    for name in geometry.BARS:
        fb = None if flexbodies is None else flexbodies[name]
        _, bar_joints[name] = _add_bar(model, name, params, lay, pistons, fb)
    distance, retracted = _add_cylinder(model, params, lay, pistons["piston4"])
    handles = {"layout": lay, "pistons": pistons, "revolutes": revolutes, "bar_joints": bar_joints,
               "cylinder_length": distance, "retracted_length": retracted}
    if params["stroke_direction"] == "unlock":
        _place_locked(model, handles, params)
    return model, handles


def _place_locked(model, handles, params):
    """Move the initial placement to the locked end (pistons +ρ, bars and cylinder on the closed four-bars)."""
    lay = handles["layout"]
    rho = lay["rotation"]
    rot = np.array([[math.cos(rho), -math.sin(rho), 0.0], [math.sin(rho), math.cos(rho), 0.0], [0.0, 0.0, 1.0]])
    for piston in handles["pistons"].values():
        piston.initial_orientation = rot @ piston.initial_orientation
    for name, pistons in geometry.BARS.items():
        r = geometry.lug_radius(params, name)
        p_near, p_far = (np.append(lay["axes"][piston] + r * geometry.unit(angle + rho), lay["bar_planes"][name])
                         for piston, angle in zip(pistons, lay["lugs"][name]))
        body = model.body(name)
        frame = geometry.bar_frame(p_near, p_far)
        offset = body.initial_orientation.T @ (body.initial_position - lay["pins"][name][0])
        body.initial_orientation = frame
        body.initial_position = p_near + frame @ offset
    cyl = lay["cylinder"]
    frame = _cylinder_frame(cyl["base"], cyl["pin_end"])
    model.body("cyl_body").initial_orientation = frame
    rod = model.body("cyl_rod")
    rod.initial_orientation = frame
    rod.initial_position = np.append(cyl["pin_end"], cyl["plane"])
    handles["cylinder_length"].marker_b.local_orientation = frame.T  # the rod eye marker keeps global axes
