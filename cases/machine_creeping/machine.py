"""The machine model of seed 003 §5.1.3 (Fig. 5-4): the flexible structure (clamp base + stationary platen + tie
bars, :mod:`.structure`) on 18 pads, the rigid injection unit on 4 pads and a spherical joint, the rigid moving
platen sliding on the base's rails and carrying the tie bars (six :class:`flexmbs.SlidingContact`), a stroke drive
between the platens and the platen–platen (mould) impact contact.

**Stroke drive** (``p["stroke_drive"]``): ``"hydraulic"`` (the default) couples the ch. 4 cylinders, valve,
circuit and open-loop controller of ``cases/platen_stroke`` (:mod:`.hydraulic`); ``"servo"`` (the sensitivity row of
docs/cases/machine-creeping.md) is a stand-in, the ideal velocity servo :class:`StrokeDrive` limited to the forces of
the two ch. 4 cylinders at supply pressure (derived: rod / bore areas × 185 bar), following the ch. 4 velocity
profile (:func:`stroke_reference`).

**Lateral guides** (``p["platen_guides"]``, default true): four bilateral guides between the platen and the
structure's floating frame (:mod:`.guides`), against the platen's yaw.

Axes: x machine direction (the moving platen closes towards −x), z up, z = 0 the floor.
"""
from __future__ import annotations

import math

import numpy as np

import flexmbs as fm
from flexmbs.model.forces import ForceElement, apply_at_marker

from cases.platen_stroke.circuit import cylinder_areas

from .pads import PadSet
from .guides import add_guides
from .hydraulic import add_hydraulic_drive
from .structure import CYLINDER_MOUNT_Y, pad_positions, tie_bar_axes

_ALONG_X = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # marker z = global x
_FLIP_Z = np.diag([1.0, -1.0, -1.0])  # marker z = -global z (a shoe face whose slider lies below it)
SCENARIOS = ("normal-cycle", "emergency-stop", "impact")


def check_cylinder_diameters(p: dict) -> None:
    """The rod must be thinner than the bore (else the annulus area is zero or negative): one line naming both."""
    from fem.errors import ModelError

    bore, rod = float(p["bore_diameter"]), float(p["rod_diameter"])
    if not 0.0 < rod < bore:
        raise ModelError(f"machine-creeping: rod_diameter ({rod:g} m) must be positive and smaller than "
                         f"bore_diameter ({bore:g} m): the rod passes through the piston")


class StrokeDrive(ForceElement):
    """Velocity-servo stand-in of the stroke cylinders: ``F = clip(m (v_ref(t, x) − v)/τ + sgn(v_ref) F_f,
    −F_close, F_brake)`` along x on the moving platen (marker ``platen``) and, opposite, shared by the cylinder
    mounts; ``F_f = μ_d m g`` is the friction feed-forward (without it a proportional servo stalls below
    ``F_f τ / m`` ≈ 44 mm/s, above the 25 mm/s final velocity)."""

    output_units = {"force": "N", "velocity": "m/s", "reference": "m/s", "position": "m"}
    marker_local = True  # loads depend on ctx.t and its markers only (flexmbs.engine.callbacks: differenced only over its markers' bodies)

    def __init__(self, platen, mounts, mass, time_constant, close_force, brake_force, reference,
                 friction_force=0.0, name="stroke_drive"):
        self.platen, self.mounts = platen, list(mounts)
        self.gain = float(mass) / float(time_constant)
        self.friction_force = float(friction_force)
        self.close_force, self.brake_force = float(close_force), float(brake_force)
        self.reference, self.name = reference, name

    def markers(self):
        return [self.platen, *self.mounts]

    def _force(self, ctx):
        s = ctx.marker(self.platen)
        v, x = float(s.v[0]), float(s.x[0])
        ref = float(self.reference(ctx.t, x))
        command = self.gain * (ref - v) + math.copysign(self.friction_force, ref) * (ref != 0.0)
        return s, float(np.clip(command, -self.close_force, self.brake_force)), v, ref, x

    def generalized_forces(self, ctx):
        s, force, _, _, _ = self._force(ctx)
        e = np.array([1.0, 0.0, 0.0])
        share = -force / len(self.mounts)  # the reaction, shared by the mounts
        return [(self.platen.body, apply_at_marker(s, force * e))] + [
            (m.body, apply_at_marker(ctx.marker(m), share * e)) for m in self.mounts]

    def outputs(self, ctx):
        _, force, v, ref, x = self._force(ctx)
        return {"force": force, "velocity": v, "reference": ref, "position": x}


def stroke_reference(p: dict, scenario: str, contact_x: float):
    """Velocity reference ``v_ref(t, x)`` (m/s, negative = closing) of a scenario; ``x`` is the drive marker's
    position and ``contact_x`` its value at mould contact.

    Closing profile of ch. 4 (seed 003 L6479, L6549-6571): ``|v_ref| = min(a (t − t0), v_max, √(v_f² + 2 a_d r))``
    with ``a = v_max / acceleration_time``, ``r`` the travel left to the safety distance, ``v_f`` over the last
    ``d_s``. ``emergency-stop``: the same until ``stop_time``, then 0 (valve de-energized, L7668-7674).
    ``impact``: no deceleration (a wrong shut height, L7664-7667): the platen meets the mould at full speed.
    """
    t0, v_max = p["start_time"], p["max_velocity"]
    accel = v_max / p["acceleration_time"]
    a_dec, v_f, d_s = p["deceleration"], p["final_velocity"], p["safety_distance"]
    stop = p["stop_time"]

    def reference(t: float, x: float) -> float:
        if t <= t0 or (scenario == "emergency-stop" and t >= stop):
            return 0.0
        speed = min(accel * (t - t0), v_max)
        if scenario != "impact":
            remaining = x - contact_x - d_s
            speed = min(speed, math.sqrt(v_f * v_f + 2.0 * a_dec * max(remaining, 0.0)))
        return -speed

    return reference


def _path_spacing(body, name: str) -> float:
    pts = body.node_positions[body.path(name)]
    xs = np.sort(pts[:, 0])
    gaps = np.diff(xs)
    return float(np.median(gaps[gaps > 1e-6]))


def build_machine(structure, p: dict, scenario: str = "normal-cycle"):
    """The machine model of a scenario; returns ``(model, handles)`` with the pad set, the sliding contacts, the
    drive, the impact contact and the geometry used (``contact_x``, ``start_gap``)."""
    g = p["gravity"]
    model = fm.Model("machine-creeping", gravity=(0.0, 0.0, -g))
    H, W, t = p["base_height"], p["base_width"], p["girder_thickness"]
    tp, zc = p["platen_thickness"], p["base_height"] + p["platen_height"] / 2
    m_s, m_p, m_inj = structure.invariants.mass, p["moving_platen_mass"], p["injection_unit_mass"]
    k_v = p["pad_vertical_stiffness"]
    # initial placement near the static one: pads compressed by the weight they carry (uniform share)
    sag = (m_s + m_p + 0.5 * m_inj) * g / (18 * k_v)
    body = model.add_flexible_body("structure", structure, position=(0.0, 0.0, -sag))
    stiff = (p["pad_lateral_stiffness"], p["pad_lateral_stiffness"], k_v)
    damp = (p["pad_lateral_damping"], p["pad_lateral_damping"], p["pad_vertical_damping"])
    floor = list(pad_positions(p))
    pad_markers = [model.add_marker(body, f"pad_{k:02d}", node=f"pad_{k:02d}") for k in range(len(floor))]
    # injection unit: rigid box, spherical joint at the platen's back face, 4 pads (seed 003 L7458-7472)
    length, height = p["injection_unit_length"], p["injection_unit_height"]
    inj_pos = np.array([-length / 2, 0.0, height / 2])
    dims = np.array([length, p["injection_unit_width"], height])
    # its joint point where the structure's node is (both lowered by the structure's sag; issue 43: lowered by its own
    # pads' sag, the start was corrected by 7 µm and every run warned so); its pads carry the difference at t = 0
    inj = model.add_rigid_body("injection_unit", m_inj, _box_inertia(m_inj, dims), position=inj_pos - (0, 0, sag))
    model.add_joint("spherical", model.add_marker(inj, "inj_joint", position=np.array([0.0, 0.0, zc]) - inj_pos),
                    model.add_marker(body, "injection", node="injection"), name="injection_joint")
    half_w = p["injection_pad_track"] / 2
    for k, (x, y) in enumerate([(-0.5, -half_w), (-0.5, half_w), (-length + 0.5, -half_w), (-length + 0.5, half_w)]):
        point = np.array([x, y, 0.0])
        pad_markers.append(model.add_marker(inj, f"inj_pad_{k}", position=point - inj_pos))
        floor.append(point)
    pads = model.add_force(PadSet(pad_markers, floor, stiff, damp, [m.name for m in pad_markers]))
    # moving platen: rigid block on the rails, carrying the tie bars
    thick, mould = p["moving_platen_thickness"], p["mould_height"]
    contact_x = tp + mould  # x of the moving platen's front face at mould contact
    start_gap = {"normal-cycle": p["stroke"], "emergency-stop": p["stroke"], "impact": p["impact_run_up"]}[scenario]
    centre = np.array([contact_x + start_gap + thick / 2, 0.0, zc])
    inertia = _box_inertia(m_p, np.array([thick, W, p["platen_height"]]))
    # per-node contact law: the ch. 4 shoe law shared by the nodes under a shoe (F_shoe = k x^e = n k_n x^e)
    n_under = thick / _path_spacing(body, "rail_l")
    k_node, d_node = p["rail_stiffness"] / n_under, p["rail_damping"] / n_under
    pen = (m_p * g / 2 / n_under / k_node) ** (1.0 / p["rail_exponent"])
    platen = model.add_rigid_body("moving_platen", m_p, inertia, position=centre - (0, 0, sag + pen))
    law = dict(stiffness=k_node, exponent=p["rail_exponent"], damping=d_node, damping_depth=p["rail_damping_depth"],
               static=p["rail_static_friction"], dynamic=p["rail_dynamic_friction"],
               stiction_velocity=p["rail_stiction_velocity"], dynamic_velocity=p["rail_dynamic_velocity"])
    contacts = []
    for side, y in (("l", -(W - t) / 2), ("r", (W - t) / 2)):
        shoe = model.add_marker(platen, f"shoe_{side}", position=(0.0, y, H - zc))
        contacts.append(model.add_force(fm.SlidingContact(shoe, body, f"rail_{side}", shoe_length=thick,
                                                          name=f"rail_{side}", **law)))
    r = p["tie_bar_diameter"] / 2
    for k, (y, z) in enumerate(tie_bar_axes(p)):
        seat = model.add_marker(platen, f"bore_{k}", position=(0.0, y, z - r - zc), orientation=_FLIP_Z)
        contacts.append(model.add_force(fm.SlidingContact(seat, body, f"tie_bar_{k}", shoe_length=thick,
                                                          name=f"tie_bar_{k}", **law)))
    if p["platen_guides"]:  # lateral guides in the structure's floating frame (.guides: why not on a node)
        contacts += add_guides(model, platen, body, p, thick, W, t, H + 0.1 - zc)
    # stroke drive between the platens (cylinder height), and the mould impact contact (seed 003 L6297-6305)
    mounts = [model.add_marker(body, name, node=name) for name in CYLINDER_MOUNT_Y]
    z_cyl = H + 0.25 - zc
    check_cylinder_diameters(p)
    if p["stroke_drive"] == "hydraulic":  # the ch. 4 cylinders, valve, circuit and controller (.hydraulic)
        drive, _ = add_hydraulic_drive(model, platen, mounts, list(CYLINDER_MOUNT_Y.values()), p, scenario,
                                       -thick / 2, z_cyl, -thick / 2 - mould, contact_x - mould, zc)
    else:
        drive_marker = model.add_marker(platen, "drive", position=(-thick / 2, 0.0, z_cyl))
        area_bore, area_rod = (2 * a for a in cylinder_areas(p))  # two cylinders
        reference = stroke_reference(p, scenario, contact_x)
        drive = model.add_force(StrokeDrive(drive_marker, mounts, m_p, p["drive_time_constant"],
                                            p["supply_pressure"] * area_rod, p["supply_pressure"] * area_bore,
                                            reference, friction_force=p["rail_dynamic_friction"] * m_p * g))
    face_node = int(np.argmin(np.linalg.norm(structure.positions - [tp, 0.0, zc], axis=1)))
    plane = model.add_marker(body, "stationary_face", node=int(structure.node_ids[face_node]), orientation=_ALONG_X)
    point = model.add_marker(platen, "mould_face", position=(-thick / 2 - mould, 0.0, 0.0))
    impact = model.add_force(fm.PlaneContact(point, plane, stiffness=p["impact_stiffness"],
                                             exponent=p["impact_exponent"], damping=p["impact_damping"],
                                             damping_depth=p["impact_damping_depth"], name="impact"))
    return model, {"pads": pads, "contacts": contacts, "drive": drive, "impact": impact, "contact_x": contact_x,
                   "start_gap": start_gap, "node_stiffness": k_node, "nodes_under_shoe": n_under}


def _box_inertia(mass: float, dims: np.ndarray) -> np.ndarray:
    """Principal moments (3,) kg m² of a homogeneous box of edge lengths ``dims`` (m)."""
    a, b, c = dims ** 2
    return mass / 12.0 * np.array([b + c, a + c, a + b])
