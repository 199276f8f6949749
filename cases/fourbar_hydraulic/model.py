"""Model of the hydraulically actuated four-bar of seed 002 §4: mechanism (flexmbs) + circuit (hydraulics).

Mechanism (seed 002 §4.1): slender rods 2, 3, 4 on revolute joints O1, C, D, O2 in a ``Model(planar=True)``; the
massless cylinder between O_c on the ground and G2 is a ``flexmbs.Distance`` measurement ``s``. Circuit (seed 002
§4.2, Fig. 5, eq. (72)..(75)): pump and tank on a 4/3 closed-centre valve, V1 -> throttle -> V2 (piston side), V3
(rod side); ``l2 = s - c1 - c2`` (eq. (73)) is the cylinder's ``x = s - retracted_length``, eq. (75) the effective
bulk moduli, eq. (6) the valve and throttle law with dp_lim = 2 bar. In full: docs/cases/fourbar-hydraulic.md, "Model".
"""
from __future__ import annotations

import math

import numpy as np

import flexmbs as fm
import hydraulics as h
from fem.errors import ModelError

from . import geometry

PAPER_P2_MPA = 2.82  # seed 002 eq. (91)


def link_masses(params: dict, lengths: dict) -> dict[str, float]:
    """Link masses (kg) from the mass per unit length (slender uniform rods)."""
    mu = params["mass_per_length"]
    return {"m2": mu * lengths["L2"], "m3": mu * lengths["L3"], "m4": mu * lengths["L4"]}


def cylinder_areas(params: dict) -> tuple[float, float]:
    """Piston-side ``A2`` and rod-side ``A3`` areas, m^2."""
    if not params["rod_diameter"] < params["bore_diameter"]:  # issue 43: was the cylinder's rod_side_area line
        raise ModelError(f"fourbar-hydraulic: rod_diameter ({params['rod_diameter']:g} m) must be smaller than "
                         f"bore_diameter ({params['bore_diameter']:g} m)")
    a2 = 0.25 * math.pi * params["bore_diameter"] ** 2
    return a2, a2 - 0.25 * math.pi * params["rod_diameter"] ** 2


def torque_pulse(params: dict):
    """External torque on the input link, seed 002 eq. (92): ramp to M0 until t1, hold until t2, then 0 (N m)."""
    m0, t1, t2 = params["torque_M0"], params["torque_t1"], params["torque_t2"]

    def torque(t: float) -> float:
        if t < t1:
            return m0 * t / t1
        return m0 if t <= t2 else 0.0

    return torque


def friction_law(params: dict) -> h.BrownMcPheeFriction:
    """Brown-McPhee friction (seed 002 eq. (8)) with F_c*, F_s*, sigma_2* scaled by ``friction_scale``."""
    nominal = h.BrownMcPheeFriction(params["coulomb_force"], params["static_force"], params["stribeck_velocity"],
                                    params["viscous_coefficient"])
    return nominal.scaled(params["friction_scale"])


def build_mechanism(params: dict, with_torque: bool = True):
    """The four-bar at phi2 = 60° (seed 002 eq. (90)); returns ``(model, handles)``."""
    lengths = geometry.link_lengths(params["L3"])
    masses = link_masses(params, lengths)
    conf = geometry.configuration(math.radians(params["phi2_deg"]), lengths)
    model = fm.Model("fourbar-hydraulic", gravity=(0.0, -geometry.GRAVITY, 0.0), planar=True)
    links = {}
    for key, length, centre, angle in (("link2", lengths["L2"], conf["G2"], conf["theta2"]),
                                       ("coupler", lengths["L3"], conf["G3"], conf["theta3"]),
                                       ("link4", lengths["L4"], conf["G4"], conf["theta4"])):
        mass = masses[{"link2": "m2", "coupler": "m3", "link4": "m4"}[key]]
        transverse = mass * length**2 / 12.0
        rot = np.array([[math.cos(angle), -math.sin(angle), 0.0], [math.sin(angle), math.cos(angle), 0.0],
                        [0.0, 0.0, 1.0]])
        # rod along body x; the axial inertia is negligible for a slender rod (1e-4 of the transverse one)
        links[key] = model.add_rigid_body(key, mass=mass, inertia=(1e-4 * transverse, transverse, transverse),
                                          position=(centre[0], centre[1], 0.0), orientation=rot)
    ground = model.ground
    m = {
        "O1_g": model.add_marker(ground, "O1", position=(0.0, 0.0, 0.0)),
        "O2_g": model.add_marker(ground, "O2", position=(lengths["L1"], 0.0, 0.0)),
        "Oc": model.add_marker(ground, "Oc", position=(-lengths["d1"], 0.0, 0.0)),
        "O1_2": model.add_marker(links["link2"], "link2.O1", position=(-lengths["L2"] / 2, 0.0, 0.0)),
        "C_2": model.add_marker(links["link2"], "link2.C", position=(lengths["L2"] / 2, 0.0, 0.0)),
        "G2": model.add_marker(links["link2"], "link2.G2", position=(0.0, 0.0, 0.0)),
        "C_3": model.add_marker(links["coupler"], "coupler.C", position=(-lengths["L3"] / 2, 0.0, 0.0)),
        "D_3": model.add_marker(links["coupler"], "coupler.D", position=(lengths["L3"] / 2, 0.0, 0.0)),
        "D_4": model.add_marker(links["link4"], "link4.D", position=(-lengths["L4"] / 2, 0.0, 0.0)),
        "O2_4": model.add_marker(links["link4"], "link4.O2", position=(lengths["L4"] / 2, 0.0, 0.0)),
    }
    # marker frames are built from the body orientation: express the revolute axes (global Z) -> identity in body
    input_joint = model.add_joint("revolute", m["O1_g"], m["O1_2"], name="O1")
    model.add_joint("revolute", m["C_2"], m["C_3"], name="C")
    model.add_joint("revolute", m["D_3"], m["D_4"], name="D")
    model.add_joint("revolute", m["O2_4"], m["O2_g"], name="O2")
    if with_torque:
        model.add_force(fm.JointActuator(input_joint, torque_pulse(params), name="M2"))
    handles = {"lengths": lengths, "masses": masses, "markers": m, "input_joint": input_joint,
               "cylinder_length": fm.Distance(m["Oc"], m["G2"]), "phi2": fm.JointCoordinate(input_joint)}
    return model, handles


def build_circuit(params: dict, distance, pressures: tuple[float, float, float]) -> h.Circuit:
    """The circuit of seed 002 Fig. 5 with initial pressures ``(p1, p2, p3)``, Pa."""
    a2, a3 = cylinder_areas(params)
    fluid = h.Fluid("seed 002 oil", params["oil_density"], params["oil_bulk_modulus"], params["oil_viscosity"])
    dp_lim = params["transition_pressure"]
    c = h.Circuit("hydraulics", fluid)
    c.add(h.PressureSource("pump", params["pump_pressure"]))
    c.add(h.Tank("tank"))
    b_h = params["hose_bulk_modulus"]
    c.add(h.Volume("V1", params["hose_volume_1"], b_h, initial_pressure=pressures[0]))
    c.add(h.Volume("V2", params["hose_volume_2"], b_h, initial_pressure=pressures[1]))
    c.add(h.Volume("V3", params["hose_volume_3"], b_h, initial_pressure=pressures[2]))
    c.add(h.Cylinder("cylinder", a2, a3, params["chamber_length"], measurement=distance,
                     retracted_length=params["c1"] + params["c2"], friction=friction_law(params),
                     wall_bulk_modulus=params["cylinder_bulk_modulus"]), A="V2", B="V3")
    c.add(h.Throttle("throttle", params["throttle_coefficient"], dp_lim, transition="linear"), A="V1", B="V2")
    valve_area = params["valve_coefficient"] / (0.7 * math.sqrt(2.0 / fluid.density))  # C_vd = C_d A sqrt(2/rho)
    c.add(h.closed_centre_valve("valve", valve_area, params["spool_reference"],
                                h.FirstOrderSpool(params["valve_time_constant"]), transition_pressure=dp_lim,
                                transition="linear"), P="pump", T="tank", A="V1", B="V3")
    return c
