"""A hydraulic crane with a flexible boom: the code of docs/tutorial.md.

The boom is a 2 m × 50 × 50 mm steel bar meshed by gmsh (the mesh of ``flexmbs mesh bar``), reduced by
Craig–Bampton with an RBE2 spider at the foot, an RBE3 lug on its underside for the cylinder and an RBE2 spider at
the tip. It pivots on the ground at its foot; a 100 kg payload hangs 1 m below the tip on a hinge. A double-acting
cylinder (bore 40 mm, rod 25 mm) stands vertically under the lug; a 4/3 proportional valve specified from its
datasheet (20 L/min at 35 bar per edge, ±10 V, 30 Hz at -90°), a fixed-displacement pump with a relief valve and a
proportional position controller drive it.

Run ``python crane.py`` in an empty folder: it meshes, reduces, runs the lift, linearizes the crane at its static
pose and prints every number that docs/tutorial.md checks by hand (``hand_checks`` has the same formulas).
"""
from __future__ import annotations

import math
import os
import sys

import numpy as np

import flexmbs as fm
import hydraulics as h

# --- parameters (SI) -----------------------------------------------------------------------------------------
DEFAULTS = {
    "boom_length": 2.0,        # m
    "boom_section": 0.05,      # m, square section side (the `flexmbs mesh bar` section)
    "mesh_size": 0.025,        # m
    "n_modes": 6,              # fixed-interface modes of the reduction
    "damping": 0.02,           # modal damping ratio of the boom
    "lug_x": 0.5,              # m, lug (cylinder pin) on the boom's underside, from the foot
    "cylinder_height": 0.6,    # m, pin-to-pin length at the horizontal pose (cylinder vertical)
    "bore": 0.040,             # m
    "rod": 0.025,              # m
    "stroke": 0.4,             # m
    "cylinder_damping": 5.0e3,  # N s/m, viscous friction of the seals
    "hose_volume": 2.0e-4,     # m^3, each work port
    "payload": 100.0,          # kg
    "rope_length": 1.0,        # m, hinge at the tip to the payload's centre of mass
    "payload_inertia": 0.1,    # kg m^2, about its centre of mass (a compact block)
    "pump_displacement": 10e-6,  # m^3/rev
    "pump_speed": 25.0,        # rev/s (1500 rpm): 15 L/min
    "relief_pressure": 100e5,  # Pa
    "valve_nominal_flow": 20.0 / 60000.0,  # m^3/s at 35 bar per edge (datasheet)
    "valve_rated_drop": 35e5,  # Pa per edge
    "valve_f90": 30.0,         # Hz, -90° phase frequency (datasheet)
    "valve_leakage": 0.01,     # centre leakage of each edge, fraction of the full edge area
    "gain": 30.0,              # V/m, position controller (100 V/m makes the payload bounce unstable)
    "lift": 0.05,              # m, cylinder extension of the lift
    "t_end": 6.0,              # s
}
GRAVITY = 9.81
STEEL = {"E": 2.1e11, "rho": 7850.0}


def parameters(overrides: dict | None = None) -> dict:
    """DEFAULTS with ``overrides``; an unknown key is a one-line error."""
    unknown = set(overrides or {}) - set(DEFAULTS)
    if unknown:
        raise fm.ModelError(f"crane: unknown parameter(s) {', '.join(sorted(unknown))}; known: {', '.join(DEFAULTS)}")
    return {**DEFAULTS, **(overrides or {})}


# --- the boom: mesh and reduction --------------------------------------------------------------------------
def boom_body(p: dict, folder: str = ".") -> str:
    """Mesh the boom (gmsh, quadratic tetrahedra) and reduce it; returns the ``*.flex.h5`` path (kept, reused)."""
    from fem.mesh import load_mesh
    from fem.meshing import bar_mesh
    from fem.model import solid_model
    from reduction import reduce, write_flexbody

    path = os.path.join(folder, "boom.flex.h5")
    if os.path.exists(path):
        return path
    L, b, x = p["boom_length"], p["boom_section"], p["lug_x"]
    mesh = bar_mesh(os.path.join(folder, "boom.msh"), length=L, width=b, height=b, size=p["mesh_size"])
    fe = solid_model(load_mesh(mesh), "steel")
    # the pivot pin and the payload hinge at the centres of the end faces, where build_model places them (the
    # centroid of a quadratic mesh's face nodes lies up to 0.3 mm off it: the start was corrected by 0.4 mm)
    fe.add_reference_node("foot", "group:end_x0", "rbe2", point=(0.0, b / 2, b / 2))
    fe.add_reference_node("tip", "group:end_x1", "rbe2", point=(L, b / 2, b / 2))
    # the lug: nodes of the underside (y = 0) within 30 mm of x = lug_x, averaged (RBE3: adds no stiffness), its
    # pin on the boom's centre line (where the pivot and the tip are too)
    fe.add_reference_node("lug", f"box:{x - 0.03},-0.001,-0.001,{x + 0.03},0.001,{b + 0.001}", "rbe3",
                          point=(x, b / 2, b / 2))
    body = reduce(fe, {"foot": "123456", "tip": "123456", "lug": "123"}, n_modes=p["n_modes"],
                  damping=p["damping"], name="boom", compare_modes=4)
    write_flexbody(body, path)
    return path


# --- the machine ------------------------------------------------------------------------------------------
def cylinder_areas(p: dict) -> tuple[float, float]:
    """Piston area ``A_A`` and annulus ``A_B``, m^2."""
    a_a = 0.25 * math.pi * p["bore"] ** 2
    return a_a, a_a - 0.25 * math.pi * p["rod"] ** 2


def setpoint_profile(p: dict) -> tuple[list, list]:
    """Cylinder length set-point: hold, extend by ``lift`` in 1 s, hold, retract in 1 s, hold (s, m)."""
    s0, ds = p["cylinder_height"], p["lift"]
    return [0.0, 0.3, 1.3, 1.6, 2.6, 1e3], [s0, s0, s0 + ds, s0 + ds, s0, s0]


def build_model(p: dict, body_file: str, initial_pressures=(30e5, 10e5)) -> fm.Model:
    """The crane: boom, payload, cylinder, valve, pump, relief valve and position controller."""
    L, b, x_lug, l_rope = p["boom_length"], p["boom_section"], p["lug_x"], p["rope_length"]
    model = fm.Model("crane", gravity=(0.0, -GRAVITY, 0.0))
    boom = model.add_flexible_body("boom", body_file)             # body frame = mesh frame: horizontal along x
    foot = model.add_marker(boom, "boom.foot", node="foot")
    model.add_joint("revolute", model.add_marker(model.ground, "pivot", position=(0.0, b / 2, b / 2)), foot,
                    name="pivot")                                  # axis: global z
    tip = (L, b / 2, b / 2)
    payload = model.add_rigid_body("payload", mass=p["payload"], inertia=(p["payload_inertia"],) * 3,
                                   position=(tip[0], tip[1] - l_rope, tip[2]))
    model.add_joint("revolute", model.add_marker(boom, "boom.tip", node="tip"),
                    model.add_marker(payload, "payload.hook", position=(0.0, l_rope, 0.0)), name="hook")
    anchor = model.add_marker(model.ground, "anchor", position=(x_lug, b / 2 - p["cylinder_height"], b / 2))
    lug = model.add_marker(boom, "boom.lug", node="lug")
    length = fm.Distance(anchor, lug)
    model.add_element(build_circuit(p, length, initial_pressures))
    return model


def valve_datasheet(p: dict) -> h.ValveDatasheet:
    """The proportional valve as its datasheet gives it: nominal flow at the rated drop per edge, ±10 V, PT2."""
    return h.ValveDatasheet(p["valve_nominal_flow"], p["valve_rated_drop"], per_edge=True,
                            command_range=h.VOLTAGE_10V, frequency_90deg=p["valve_f90"], damping_ratio=0.7)


def build_circuit(p: dict, length, initial_pressures) -> h.Circuit:
    """Pump -> P (relief to tank) -> 4/3 valve -> cylinder ports A (bore) and B (rod); P controller on the length."""
    a_a, a_b = cylinder_areas(p)
    c = h.Circuit("hydraulics", h.HLP46)
    c.add(h.Tank("tank"))
    c.add(h.Volume("P", 5e-4, initial_pressure=p["relief_pressure"]))
    c.add(h.Volume("A", p["hose_volume"], initial_pressure=initial_pressures[0]))
    c.add(h.Volume("B", p["hose_volume"], initial_pressure=initial_pressures[1]))
    c.add(h.FixedDisplacementPump("pump", p["pump_displacement"], p["pump_speed"]), S="tank", P="P")
    c.add(h.ReliefValve("relief", p["relief_pressure"], 2e-9, width=2e5), P="P", T="tank")
    c.add(h.Cylinder("cylinder", a_a, a_b, p["stroke"], measurement=length,
                     retracted_length=p["cylinder_height"] - p["stroke"] / 2,
                     friction=h.CoulombViscousFriction(0.0, p["cylinder_damping"])), A="A", B="B")
    times, values = setpoint_profile(p)
    setpoint = h.PiecewiseLinear("setpoint", times, values, unit="m")
    sensor = h.MeasurementSensor("length_sensor", length, unit="m")
    command = h.Sum("controller", [setpoint, sensor], [p["gain"], -p["gain"]], unit="V")  # u = K (s_ref - s)
    ds = valve_datasheet(p)
    c.add(h.valve_from_datasheet("valve", ds, command), P="P", T="tank", A="A", B="B")
    # a real spool leaks across its lands: P->A->T and P->B->T. Without this the closed centre traps the chamber
    # pressures, and any pair with the same cylinder force holds the boom (a neutral direction, docs/tutorial.md)
    leak = p["valve_leakage"] * ds.edge_area(h.HLP46.density)
    for a, b in (("P", "A"), ("A", "tank"), ("P", "B"), ("B", "tank")):
        c.add(h.Orifice(f"leak_{a}{b}", leak), A=a, B=b)
    return c


# --- what the tutorial checks by hand ------------------------------------------------------------------------
def hand_checks(p: dict) -> dict:
    """Closed-form values of the numbers the tutorial prints (docs/tutorial.md, 'Checking by hand').

    * ``bending_hz``: first free–free bending frequency of an Euler–Bernoulli beam,
      ``f = (4.7300^2 / 2π L^2) sqrt(E I / (ρ A))`` with ``I = b^4/12``;
    * ``load_pressure_pa``: moment balance about the pivot at the horizontal pose, cylinder vertical under the lug:
      ``(p_A − p_B A_B/A_A) A_A x_lug = m_boom g L/2 + m_payload g L``;
    * ``pendulum_hz``: the payload swinging on its hinge, ``f = sqrt(m g l / (m l^2 + I)) / 2π``;
    * ``spool_hz``: the valve spool, a PT2 with ``f_n`` = the datasheet's -90° frequency and ζ = 0.7, oscillates at
      ``f_n sqrt(1 − ζ²)``;
    * ``payload_bounce_hz``: the payload bouncing on the boom: tip stiffness of the overhanging beam
      (flexibility ``c^2 (a + c) / 3EI``, supported at the pivot and the lug) in series with the oil columns
      (``k_h = B (A_A^2/V_A + A_B^2/V_B)`` seen at the tip through ``(a/L)^2``); mass ``m_payload`` plus the
      overhang's own mass with the Rayleigh factor of a cantilever, ``33/140 m_boom c/L``.
    """
    L, b = p["boom_length"], p["boom_section"]
    area, inertia = b * b, b**4 / 12.0
    m_boom = STEEL["rho"] * area * L
    ei = STEEL["E"] * inertia
    bending = 4.730040745**2 / (2 * math.pi * L**2) * math.sqrt(ei / (STEEL["rho"] * area))
    a_a, a_b = cylinder_areas(p)
    moment = m_boom * GRAVITY * L / 2 + p["payload"] * GRAVITY * L
    load_pressure = moment / (p["lug_x"] * a_a)
    m, l = p["payload"], p["rope_length"]
    pendulum = math.sqrt(m * GRAVITY * l / (m * l**2 + p["payload_inertia"])) / (2 * math.pi)
    a, c = p["lug_x"], L - p["lug_x"]
    k_beam = 3 * ei / (c**2 * (a + c))
    x0 = p["stroke"] / 2
    v_a, v_b = p["hose_volume"] + a_a * x0, p["hose_volume"] + a_b * (p["stroke"] - x0)
    k_oil = h.HLP46.bulk_modulus * (a_a**2 / v_a + a_b**2 / v_b) * (a / L) ** 2
    k_tip = 1.0 / (1.0 / k_beam + 1.0 / k_oil)
    bounce = math.sqrt(k_tip / (p["payload"] + 33.0 / 140.0 * m_boom * c / L)) / (2 * math.pi)
    spool = p["valve_f90"] * math.sqrt(1.0 - 0.7**2)  # PT2 with ω_n = 2π f_-90°, ζ = 0.7: ω_d = ω_n sqrt(1 − ζ²)
    return {"boom_mass_kg": m_boom, "bending_hz": bending, "load_pressure_pa": load_pressure,
            "pendulum_hz": pendulum, "payload_bounce_hz": bounce, "spool_hz": spool}


# --- run, linearize, report --------------------------------------------------------------------------------------
def run(p: dict, body_file: str, out: str | None = None) -> fm.Results:
    """The lift: 3.5 s, results streamed to ``out``."""
    return fm.simulate(build_model(p, body_file), p["t_end"], output=out, max_step=5e-3, case="crane",
                       parameters=p)


def load_pressure(res, p: dict, window: float = 0.5) -> float:
    """``p_A − p_B A_B/A_A`` averaged over the last ``window`` seconds, Pa."""
    a_a, a_b = cylinder_areas(p)
    keep = res.time >= res.time[-1] - window
    pa, pb = res["element/hydraulics/A.pressure"][keep], res["element/hydraulics/B.pressure"][keep]
    return float(np.mean(pa - pb * a_b / a_a))


def linearize(p: dict, body_file: str):
    """The crane linearized at its static equilibrium (boom horizontal), valve command in, cylinder stroke out."""
    model = build_model(p, body_file)
    return fm.linearize(model, at="static", inputs={"command": "element/hydraulics/controller"},
                        outputs={"stroke": "element/hydraulics/cylinder.position"})


def payload_modes(lin) -> list[float]:
    """Frequencies (Hz) of the oscillating modes whose largest participant is the payload, lowest first: the
    pendulum, the payload swinging sideways on the twisting boom, the payload bouncing on the bending boom."""
    return sorted(row["f_hz"] for row in lin.eigen().rows(top=1)
                  if row["im"] > 0.0 and (row["zeta"] or 0.0) < 0.5 and row["participants"]
                  and row["participants"][0][0] == "body payload")


def spool_mode(lin) -> float:
    """Frequency (Hz) of the oscillating mode led by the valve spool."""
    return next(row["f_hz"] for row in lin.eigen().rows(top=1)
                if row["im"] > 0.0 and row["participants"][0][0].startswith("element/hydraulics/valve.spool"))


def main(folder: str = ".") -> dict:
    p = parameters()
    body_file = boom_body(p, folder)
    from reduction.io import read_flexbody

    body = read_flexbody(body_file)
    res = run(p, body_file, os.path.join(folder, "lift.results.h5"))
    lin = linearize(p, body_file)
    pendulum, _sideways, bounce = payload_modes(lin)[:3]
    numbers = {
        "boom_mass_kg": float(body.invariants.mass),
        "bending_hz": float(body.frequencies_hz[0]),
        "load_pressure_pa": load_pressure(res, p),
        "pendulum_hz": pendulum,
        "payload_bounce_hz": bounce,
        "spool_hz": spool_mode(lin),
    }
    print(res.message)
    print(lin)
    hand = hand_checks(p)
    for key, value in numbers.items():
        print(f"{key:20s} {value:12.4g}   by hand {hand[key]:12.4g}   ({100 * (value / hand[key] - 1):+.2f} %)")
    return numbers


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
