"""The three hydraulic circuits of the excavator (seed 001 §3, Fig. 9) and their initial pressures.

One circuit per cylinder (boom, stick, bucket), each with its own constant-pressure pump (seed 001 §3: "the pump is
modelled as a constant pressure source"), tank, a zero-lapped 4/3 closed-centre valve (eq. (41), (42): edge area
``w x_v(t)``, turbulent orifice law), the two chamber volumes with hoses (eq. (44)..(46)), a pressure-relief valve
on each chamber cracking 25 % above the rated pressure (eq. (43); PRV1, PRV2 on the stick and PRV3, PRV4 on the
bucket cylinder as in the paper, plus the same pair on the boom cylinder) and the cylinder with Coulomb + viscous
friction (eq. (23)) and hard stops (eq. (25)). Not in the seed (ours): a return-line back pressure ``tank_pressure``
and an anti-cavitation check valve from the return line into each chamber, as on the work ports of real
excavator valves; without them the bore side of the stick cylinder cavitates while gravity pulls the stick in.
With its valve closed the boom cylinder is locked and acts as the oil spring of eq. (26), (27) through the
continuity equations of its chambers. Valve openings ``x_v(t)`` (seed 001 Fig. 13): :func:`valve_opening_table`.

Variant ``load_sensing=True`` (scenario ``digging-load-sensing``, issue #32; not in the seed): the constant-pressure
source replaced by a load-sensing section per function (:func:`add_load_sensing_supply`; components, parameters and
simplifications: docs/cases/excavator.md, "digging-load-sensing").
"""
from __future__ import annotations

import math

import hydraulics as h
from fem.errors import ModelError

__all__ = ["cylinder_areas", "valve_opening_table", "build_circuit", "initial_pressures", "ls_valve_datasheet",
           "add_load_sensing_supply"]


def cylinder_areas(p: dict, cylinder: str) -> tuple[float, float]:
    """Piston area ``A_1`` and annulus ``A_2`` (m^2) of ``cylinder`` ("boom", "stick" or "bucket")."""
    bore, rod = p[f"{cylinder}_bore"], p[f"{cylinder}_rod"]
    if not rod < bore:
        raise ModelError(f"excavator: {cylinder}_rod ({rod:g} m) must be smaller than {cylinder}_bore ({bore:g} m): "
                         "the rod passes through the piston; give the rod diameter (e.g. 0.7 x the bore)")
    a1 = 0.25 * math.pi * bore**2
    return a1, a1 - 0.25 * math.pi * rod**2


def valve_opening_table(p: dict, cylinder: str) -> tuple[list, list]:
    """Breakpoints (s) and openings ``x_v`` (m) of the valve of ``cylinder`` (all zero for the boom): a trapezoid
    open in ``[<cylinder>_valve_on, <cylinder>_valve_off]``, ramping over ``valve_ramp`` at both ends."""
    if cylinder == "boom":
        return [0.0, 1.0], [0.0, 0.0]
    t_on, t_off, ramp = p[f"{cylinder}_valve_on"], p[f"{cylinder}_valve_off"], p["valve_ramp"]
    if not ramp > 0.0:
        raise ModelError(f"excavator: valve_ramp must be a positive time in s (the valves open and close over it), "
                         f"got {ramp:g}")
    if not t_off - t_on >= 2.0 * ramp:
        raise ModelError(f"excavator: {cylinder}_valve_off ({t_off:g} s) must come at least 2 x valve_ramp "
                         f"({2.0 * ramp:g} s) after {cylinder}_valve_on ({t_on:g} s): the valve opens over valve_ramp "
                         f"and closes over valve_ramp; set {cylinder}_valve_off >= {t_on + 2.0 * ramp:g} s"
                         + (" (on and off swapped?)" if t_off < t_on else ""))
    x_max = p[f"{cylinder}_opening"]
    times = [t_on, t_on + ramp, t_off - ramp, t_off]
    values = [0.0, x_max, x_max, 0.0]
    if t_on > 0.0:
        times, values = [0.0] + times, [0.0] + values
    return times, values


def build_circuit(p: dict, cylinder: str, measurement, retracted_length: float,
                  pressures: tuple[float, float], load_sensing: bool = False) -> h.Circuit:
    """Circuit of ``cylinder`` acting on the pin-distance ``measurement`` with initial chamber pressures (Pa); with
    ``load_sensing`` the supply is the load-sensing section of :func:`add_load_sensing_supply`."""
    fluid = h.Fluid("mineral oil", p["oil_density"], p["oil_bulk_modulus"], 46e-6)
    c = h.Circuit(cylinder, fluid)
    c.add(h.Tank("tank", p["tank_pressure"]))
    for node, p0 in zip(("A", "B"), pressures):
        c.add(h.Volume(node, p["hose_volume"], initial_pressure=p0, cavitation_width=p["cavitation_width"]))
    a1, a2 = cylinder_areas(p, cylinder)
    friction = h.CoulombViscousFriction(p["coulomb_friction"], p["viscous_friction"], p["friction_velocity"])
    c.add(h.Cylinder("cylinder", a1, a2, p[f"{cylinder}_stroke"], measurement=measurement,
                     retracted_length=retracted_length, friction=friction, stop_stiffness=p["stop_stiffness"]),
          A="A", B="B")
    times, openings = valve_opening_table(p, cylinder)
    x_max = p["valve_opening_max"]
    if load_sensing:
        add_load_sensing_supply(c, p, max(pressures))
        volts = h.PiecewiseLinear("command", times, [10.0 * x / x_max for x in openings], unit="V")
        c.add(h.valve_from_datasheet("valve", ls_valve_datasheet(p), volts, density=p["oil_density"]),
              P="metered", T="tank", A="A", B="B")
    else:
        c.add(h.PressureSource("pump", p["supply_pressure"]))
        command = h.PiecewiseLinear("x_v", times, [x / x_max for x in openings])
        # eq. (41), (42): Q = C_d w x_v sqrt(2 |dp| / rho) sign(dp); edge area at full command = w x_v,max
        c.add(h.closed_centre_valve("valve", p["area_gradient"] * x_max, command, spool=None,
                                    discharge_coefficient=p["discharge_coefficient"]),
              P="pump", T="tank", A="A", B="B")
    cracking = (1.0 + p["relief_margin"]) * p["supply_pressure"]
    for node in ("A", "B"):
        c.add(h.ReliefValve(f"PRV_{node}", cracking, p["relief_gain"], width=p["relief_width"]), P=node, T="tank")
    # anti-cavitation (make-up) check valves tank -> chamber, as on the work ports of excavator control valves
    for node in ("A", "B"):
        c.add(h.CheckValve(f"makeup_{node}", p["makeup_area"], p["makeup_cracking"], p["makeup_opening"],
                           transition_pressure=p["makeup_opening"]), A="tank", B=node)
    return c


def ls_valve_datasheet(p: dict) -> h.ValveDatasheet:
    """The datasheet of the load-sensing section's valve: ``ls_valve_nominal_flow`` at the compensator's drop per
    edge, +-10 V, zero lap, spool following instantly (as the seed's valve)."""
    return h.ValveDatasheet(p["ls_valve_nominal_flow"], p["ls_compensator_pressure"], per_edge=True,
                            command_range=h.VOLTAGE_10V, discharge_coefficient=p["discharge_coefficient"])


def add_load_sensing_supply(c: h.Circuit, p: dict, load_pressure: float) -> None:
    """LS pump -> node ``pump`` -> compensator -> node ``metered`` (the valve's P port); shuttle A/B -> ``LS``."""
    start = load_pressure + p["ls_margin_pressure"]
    c.add(h.Volume("pump", p["ls_pump_line_volume"], initial_pressure=start,
                   cavitation_width=p["cavitation_width"]))
    c.add(h.Volume("metered", p["ls_pump_line_volume"], initial_pressure=start,
                   cavitation_width=p["cavitation_width"]))
    c.add(h.Volume("LS", p["ls_line_volume"], initial_pressure=load_pressure, cavitation_width=p["cavitation_width"]))
    c.add(h.VariableDisplacementPump("ls_pump", p["ls_pump_displacement"], p["ls_pump_speed"],
                                     p["supply_pressure"], margin_pressure=p["ls_margin_pressure"],
                                     regulation_band=p["ls_regulation_band"], time_constant=p["ls_swash_time"]),
          S="tank", P="pump", LS="LS")
    c.add(h.PressureCompensator("compensator", p["ls_compensator_area"], p["ls_compensator_pressure"],
                                opening_range=p["ls_compensator_band"], time_constant=p["ls_compensator_time"],
                                discharge_coefficient=p["discharge_coefficient"]), P="pump", A="metered", X="LS")
    c.add(h.ShuttleValve("shuttle", p["ls_shuttle_area"]), A="A", B="B", C="LS")
    c.add(h.Orifice("ls_bleed", p["ls_bleed_area"]), A="LS", B="tank")


def initial_pressures(p: dict, cylinder: str, force: float) -> tuple[float, float]:
    """Chamber pressures (Pa) that give the static ``force`` (N): ``p_1 A_1 - p_2 A_2 = F`` (eq. (22)), the lower
    of the two at ``low_pressure``."""
    a1, a2 = cylinder_areas(p, cylinder)
    low = p["low_pressure"]
    if force >= low * (a1 - a2):
        return (force + low * a2) / a1, low
    return low, (low * a1 - force) / a2
