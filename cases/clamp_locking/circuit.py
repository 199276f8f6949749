"""Hydraulic circuit of the clamp locking cylinder (seed 003 §3.2.2, Fig. 3-6).

::

    supply (185 bar) ─ pipe_p ─ P ─┬─ relief → tank
                                    └─ valve (P, T, A, B) ─ VA ─ hose_a ─ CA_port ─ cushion_a ─ CA (bore side)
                                                           ─ VB ─ hose_b ─ CB_port ─ cushion_b ─ CB (rod side)

* HLP46 (seed 003 §3.2.2.1); the pump set is an ideal pressure source; a relief valve on the pressure port guards
  the lines against the pressure surges of the fluid inertia.
* Pilot-operated directional valve: spool = first-order lag reaching 95 % in the response time (90 ms), the
  regenerative spool of Fig. 3-7 (``U < 0``: A and B on P, extension = locking; ``U > 0``: P → B, A → T).
  Alternatively a proportional valve (same spool cut, position-controlled fast spool) with a ramped command
  (seed 003 §3.3.4): time-based ramp up, position-based ramp down to the directional valve's speed before the
  cushion (the open-loop profile of seed 003 §4.2.3).
* Hoses with fluid inertia (seed 003 eq. (2-225)) and wall compliance.
* Cushions at both ends (Fig. 3-8): stroke-dependent orifice in parallel with a check valve.
"""
from __future__ import annotations

import numpy as np

import hydraulics as h

from .geometry import cylinder_areas


def cushion_tables(params: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Orifice area tables ``(positions, areas_bore_side, areas_rod_side)`` over the stroke x (m, m²).

    The bore-side cushion throttles near ``x = 0`` (end of retraction), the rod-side one near ``x = stroke``
    (end of extension). Outside the last ``cushion_length`` the passage is ``cushion_area_open``; at engagement it
    narrows over ``cushion_nose_length`` (the spear nose) to the entry area and then falls with the square root of
    the remaining travel ``s`` to ``cushion_area_end``: ``A(s) = A_end + (A_entry - A_end) sqrt(s / L_c)``. For a
    throttle at nearly constant pressure drop, ``Q = A_p v ∝ A`` so ``v ∝ sqrt(s)``: constant deceleration, the aim of a
    cushion profile (seed 003 Fig. 3-8 tabulates the measured curve; ours is this design curve).
    """
    stroke, length = params["stroke"], params["cushion_length"]
    a_open, a_end = params["cushion_area_open"], params["cushion_area_end"]
    fractions = np.array([0.0, 0.02, 0.1, 0.25, 0.5, 0.75, 1.0])
    nose = params["cushion_nose_length"]
    remaining = np.append(fractions * length, length + nose * np.array([1.0, 2.0, 3.0]) / 3.0)

    def profile(entry):  # the spear nose: 2, 5 and 100 times the entry area over cushion_nose_length before it
        return np.append(a_end + (entry - a_end) * np.sqrt(fractions), [2.0 * entry, 5.0 * entry, a_open])

    bore = profile(params["cushion_entry_area_a"])
    rod = profile(params["cushion_entry_area_b"])
    positions = np.concatenate([remaining, stroke - remaining[::-1]])
    return positions, np.concatenate([bore, np.full(remaining.size, a_open)]), \
        np.concatenate([np.full(remaining.size, a_open), rod[::-1]])


def valve_command(params: dict, distance, end_length: float):
    """Spool reference ``U_ref`` (signal): a step for the directional valve, a ramp profile for the proportional.

    Parameters
    ----------
    distance : flexmbs.Distance
        Cylinder pin-to-pin length (for the position-based ramp down of the proportional valve).
    end_length : float, m
        Pin-to-pin length at the end of the stroke.
    """
    sign = -1.0 if params["stroke_direction"] == "lock" else 1.0
    t0 = params["valve_delay"]
    if params["valve_type"] == "directional":
        return h.PiecewiseLinear("command", [0.0, t0, t0 + 1e-3], [0.0, 0.0, sign])
    final = 1.0 / params["proportional_boost"]
    ramp_down = 0.05  # m of stroke over which the command returns to the directional valve's opening
    profile = h.VelocityProfile("profile", h.MeasurementSensor("stroke_sensor", distance), start_time=t0,
                                acceleration=1.0 / params["proportional_ramp_time"], max_velocity=1.0,
                                deceleration=(1.0 - final**2) / (2.0 * ramp_down), end_position=end_length,
                                final_velocity=final, safety_distance=params["cushion_length"],
                                direction=-int(sign))
    return h.Sum("command", [profile], [-1.0])


def build_circuit(params: dict, distance, retracted_length: float) -> h.Circuit:
    """The circuit as a state element acting on the cylinder's pin-to-pin ``distance`` (flexmbs.Distance)."""
    areas = cylinder_areas(params["push_force"], params["pull_force"], params["rated_pressure"])
    c = h.Circuit("hydraulics", fluid=h.HLP46)
    c.add(h.PressureSource("supply", params["supply_pressure"]))
    p_tank = params["tank_pressure"]
    c.add(h.Tank("tank", p_tank))
    block = params["valve_block_volume"]
    c.add(h.Volume("P", block, initial_pressure=params["supply_pressure"]))
    for node, volume in (("VA", block), ("VB", block), ("CA_port", 1.0e-5), ("CB_port", 1.0e-5), ("CA", 0.0),
                         ("CB", 0.0)):
        c.add(h.Volume(node, volume, initial_pressure=p_tank))
    h.add_line(c, "pipe_p", "supply", "P", params["pipe_p_length"], params["pipe_p_diameter"], 1)
    for side in "AB":
        hose = f"hose_{side.lower()}"
        h.add_line(c, hose, f"V{side}", f"C{side}_port", params[f"{hose}_length"], params[f"{hose}_diameter"],
                   int(params["hose_segments"]), params["hose_bulk_modulus"], initial_pressure=p_tank)
    c.add(h.ReliefValve("relief", params["relief_pressure"], 2.0e-9, width=2.0e5), P="P", T="tank")
    cylinder = c.add(h.Cylinder("cylinder", areas["piston_area"], areas["rod_side_area"], params["stroke"],
                                measurement=distance, retracted_length=retracted_length,
                                dead_volume_a=params["dead_volume"], dead_volume_b=params["dead_volume"],
                                stop_stiffness=0.0, stop_damping=0.0,
                                wall_bulk_modulus=params["cylinder_bulk_modulus"]), A="CA", B="CB")
    positions, *side_areas = cushion_tables(params)
    for side, side_area in zip("AB", side_areas):  # bore side A, rod side B
        c.add(h.Cushion(f"cushion_{side.lower()}", cylinder, positions, side_area, params["cushion_bypass_area"]),
              chamber=f"C{side}", line=f"C{side}_port")
    end_length = retracted_length + (params["stroke"] if params["stroke_direction"] == "lock" else 0.0)
    command = valve_command(params, distance, end_length)
    if params["valve_type"] == "directional":
        area, response_time = params["valve_area"], params["valve_response_time"]
    else:
        area, response_time = params["valve_area"] * params["proportional_boost"], params["proportional_response_time"]
    c.add(h.regenerative_valve("valve", area, command, h.FirstOrderSpool.from_response_time(response_time),
                               centre_fraction=params["valve_centre_fraction"]), P="P", T="tank", A="VA", B="VB")
    return c
