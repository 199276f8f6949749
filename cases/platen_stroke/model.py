"""Mechanism of the platen stroke (seed 003 §4.2.1, Fig. 4-2): two rigid bodies, pads, contacts with friction.

Global axes: X along the stroke (closing = +X, towards the stationary platen), Z up, Y lateral; the floor is
``Z = 0`` and the sliding plane (top of the clamp base) ``Z = base_height``. Bodies:

* moving platen (62 400 kg, seed 003:L6888), a box for its inertia (assumed sizes), placed open at ``X = 0``;
* stationary-platen assembly (stationary platen + clamp base + tie bars, 59.8 t from appendix C), on the 18 support
  pads of ch. 5 lumped into one six-dof bushing at the pad centroid (stiffness and damping summed over the pad
  layout, exact for small motions).

Contacts (seed 003 eq. (4-1), :class:`flexmbs.PlaneContact`): 4 vertical sliding shoes and 4 lateral guides between
platen and clamp base (k = 1.6e11, d = 1.6e8, e = 1.2) with the Coulomb law of Fig. 4-3, and the mould-close contact
of the platen centre on the stationary platen (6e9, 6e6, 1.2). The platen starts at rest on its shoes with the static
penetration ``(m g / 4 k)^(1/e)`` and the assembly with the pad deflection under the total weight.
"""
from __future__ import annotations

import math

import numpy as np

import flexmbs as fm


def box_inertia(mass: float, lx: float, ly: float, lz: float) -> np.ndarray:
    """Principal inertia of a homogeneous box (kg m²) about its centre."""
    return mass / 12.0 * np.array([ly**2 + lz**2, lx**2 + lz**2, lx**2 + ly**2])


def pad_layout(params: dict) -> np.ndarray:
    """Pad positions ``(x, y)`` relative to the pad centroid, shape (2 n, 2) (assumed two rows)."""
    n = int(params["pads_per_side"])
    xs = (np.arange(n) - 0.5 * (n - 1)) * params["pad_pitch"]
    ys = 0.5 * params["pad_track"] * np.array([-1.0, 1.0])
    return np.array([(x, y) for y in ys for x in xs])


def lumped_pad_bushing(params: dict) -> dict:
    """Six-dof stiffness/damping of all pads about their centroid (derived: sums over the pad layout)."""
    xy = pad_layout(params)
    n = len(xy)
    kv, cv = params["pad_vertical_stiffness"], params["pad_vertical_damping"]
    kl, cl = params["pad_lateral_stiffness"], params["pad_lateral_damping"]
    sx2, sy2 = float(np.sum(xy[:, 0] ** 2)), float(np.sum(xy[:, 1] ** 2))
    return {"kt": (n * kl, n * kl, n * kv), "ct": (n * cl, n * cl, n * cv),
            "kr": (kv * sy2, kv * sx2, kl * (sx2 + sy2)), "cr": (cv * sy2, cv * sx2, cl * (sx2 + sy2))}


def static_penetration(load: float, stiffness: float, exponent: float) -> float:
    """Penetration (m) at which ``k x^e`` carries ``load`` (N), eq. (4-1) at rest."""
    return (load / stiffness) ** (1.0 / exponent)


def build_mechanism(params: dict, open_position: bool = True, initial_travel: float | None = None,
                    initial_velocity: float = 0.0):
    """The two-body model with pads and contacts; returns ``(model, handles)``.

    ``open_position``: the platen starts open (travel 0, closing scenarios) or at mould contact (travel = stroke,
    opening scenarios); ``initial_travel`` (m) and ``initial_velocity`` (m/s, along +X) override the start (the
    working point of the linearization). ``params["linear_model"]`` fixes the assembly to the ground (the
    single-mass model of seed 003 Fig. 4-13).
    """
    g = params["gravity"]
    model = fm.Model("platen-stroke", gravity=(0.0, 0.0, -g))
    m_p, m_a = params["platen_mass"], params["assembly_mass"]
    h_base, h_com = params["base_height"], params["platen_com_height"]
    k, e = params["contact_stiffness"], params["contact_exponent"]
    rigid_ground = bool(params["linear_model"])
    pads = lumped_pad_bushing(params)
    sag = 0.0 if rigid_ground else (m_p + m_a) * g / pads["kt"][2]
    pen = static_penetration(m_p * g / 4.0, k, e)
    stroke = params["stroke"]
    travel0 = (0.0 if open_position else stroke) if initial_travel is None else float(initial_travel)
    # pad centroid under the middle of the base; the platen's open position X = 0 is 1.0 m behind it (assumed)
    x_pads = 1.0 + 0.5 * stroke
    # initial placement at rest (derived): pads deflected by the total weight, assembly pitched by the weight moment
    # about the pad centroid (lumped rotational pad stiffness), platen parallel to the base on its shoes
    moment = g * (m_a * params["assembly_com_offset"] + m_p * (travel0 - x_pads))
    theta = 0.0 if rigid_ground else moment / pads["kr"][1]
    rot = np.array([[math.cos(theta), 0.0, math.sin(theta)], [0.0, 1.0, 0.0],
                    [-math.sin(theta), 0.0, math.cos(theta)]])
    shoe_plane_z = h_base - sag - theta * (travel0 - x_pads)
    assembly = model.add_rigid_body(
        "assembly", m_a, box_inertia(m_a, params["assembly_length"], params["assembly_width"],
                                     params["assembly_height"]),
        centre_of_mass=(params["assembly_com_offset"], 0.0, 0.5 * params["assembly_height"]),
        position=(x_pads, 0.0, -sag), orientation=rot)
    platen = model.add_rigid_body(
        "platen", m_p, box_inertia(m_p, params["platen_thickness"], params["platen_width"], params["platen_height"]),
        position=(travel0 + theta * h_com, 0.0, shoe_plane_z + h_com - pen), orientation=rot,
        velocity=(initial_velocity, 0.0, 0.0))
    on_ground = model.add_marker(model.ground, "ground.pads", position=(x_pads, 0.0, 0.0))
    on_assembly = model.add_marker(assembly, "assembly.pads")
    if rigid_ground:
        model.add_joint("fixed", on_ground, on_assembly, name="assembly_fixed")
    else:
        model.add_force(fm.Bushing(on_ground, on_assembly, pads["kt"], pads["kr"], pads["ct"], pads["cr"],
                                   name="support_pads"))
    friction = dict(static=params["static_friction"], dynamic=params["dynamic_friction"],
                    stiction_velocity=params["stiction_velocity"], dynamic_velocity=params["friction_velocity"])
    law = dict(stiffness=k, exponent=e, damping=params["contact_damping"], damping_depth=params["damping_depth"])
    contacts = {"vertical": [], "lateral": []}
    sx, sy, gy = 0.5 * params["shoe_spacing_x"], 0.5 * params["shoe_spacing_y"], 0.5 * params["guide_spacing_y"]
    for i, (dx, dy) in enumerate([(sx, -sy), (sx, sy), (-sx, -sy), (-sx, sy)]):
        point = model.add_marker(platen, f"platen.shoe{i + 1}", position=(dx, dy, -h_com))
        plane = model.add_marker(assembly, f"base.track{i + 1}", position=(-x_pads, dy, h_base))
        contacts["vertical"].append(model.add_force(fm.PlaneContact(point, plane, name=f"shoe{i + 1}", **law,
                                                                    **friction)))
    for i, (dx, side) in enumerate([(sx, -1.0), (sx, 1.0), (-sx, -1.0), (-sx, 1.0)]):
        # guide face at y = side * gy, normal pointing into the guideway (towards the platen)
        normal = np.array([0.0, -side, 0.0])
        axes = np.column_stack([[1.0, 0.0, 0.0], np.cross(normal, [1.0, 0.0, 0.0]), normal])
        point = model.add_marker(platen, f"platen.guide{i + 1}", position=(dx, side * gy, -h_com + 0.1))
        plane = model.add_marker(assembly, f"base.guide{i + 1}", position=(-x_pads, side * gy, h_base + 0.1),
                                 orientation=axes)
        contacts["lateral"].append(model.add_force(fm.PlaneContact(point, plane, name=f"guide{i + 1}", **law,
                                                                   **friction)))
    # mould-close contact: platen front face centre against the stationary platen face (normal -X)
    half = 0.5 * params["platen_thickness"]
    face_x = stroke + half - x_pads  # in assembly coordinates
    face_axes = np.column_stack([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
    mould_point = model.add_marker(platen, "platen.mould", position=(half, 0.0, 0.0))
    mould_face = model.add_marker(assembly, "stationary.face", position=(face_x, 0.0, h_base + h_com),
                                  orientation=face_axes)
    mould = model.add_force(fm.PlaneContact(mould_point, mould_face, params["mould_stiffness"],
                                            params["mould_exponent"], params["mould_damping"],
                                            params["damping_depth"], name="mould"))
    # travel measurement: platen centre to a point 1 m inside the stationary platen, on the stroke axis
    ref = model.add_marker(assembly, "stationary.reference", position=(face_x + 1.0, 0.0, h_base + h_com))
    gap = fm.Distance(mould_point, ref)
    # two stroke cylinders between the platens at the height of the platen centre of mass
    cylinders = []
    cy = 0.5 * params["cylinder_spacing_y"]
    for i, side in enumerate((-1.0, 1.0)):
        rod_eye = model.add_marker(platen, f"platen.cylinder{i + 1}", position=(0.0, side * cy, 0.0))
        barrel = model.add_marker(assembly, f"stationary.cylinder{i + 1}",
                                  position=(face_x + 1.0, side * cy, h_base + h_com))
        cylinders.append(fm.Distance(barrel, rod_eye))
    handles = {"platen": platen, "assembly": assembly, "contacts": contacts, "mould": mould, "gap": gap,
               "gap_at_open": stroke + 1.0, "cylinders": cylinders,
               "cylinder_length_closed": half + 1.0, "static_penetration": pen, "pad_sag": sag}
    return model, handles


def travel(gap_value, params) -> np.ndarray:
    """Platen travel from the open position (m) from the gap measurement."""
    return params["stroke"] + 1.0 - np.asarray(gap_value)


def weight(params: dict) -> float:
    """Weight of the moving platen, N."""
    return params["platen_mass"] * params["gravity"]


def friction_at_speed(params: dict) -> float:
    """``F_r = μ_d m g`` (N), seed 003:L6888 (55.1 kN)."""
    return params["dynamic_friction"] * weight(params)


__all__ = ["box_inertia", "pad_layout", "lumped_pad_bushing", "static_penetration", "build_mechanism", "travel",
           "weight", "friction_at_speed"]
