"""Stroke hydraulics (seed 003 §4.2.2, Fig. 4-4): ideal 185 bar source, proportional valve, two stroke cylinders.

One rod-side and one bore-side node collect both cylinders' chambers and the lines; their fixed volumes are set so
that chambers + lines at mould close equal the seed's ``Vr0``, ``Vb0`` (L6892). The proportional valve is a
zero-lapped 4/3 spool: ``u < 0`` connects P→rod and bore→T (retraction = mould close, seed eq. (4-4)), ``u > 0``
P→bore and rod→T. Its metering edges are orifices (eq. (4-3), ``Q = C_d A √(2Δp/ρ)``) whose area tables reproduce
the seed's flow gains ``α, β`` at small commands (L6894) and the calibrated full opening; the spool follows the
command through a second-order lag (L6360).
"""
from __future__ import annotations

import math

import numpy as np

import hydraulics as h

from .controls import StrokeCommand, valve_gains

DISCHARGE = 0.7  # assumed: C_d of the metering edges (only C_d A enters; the gains are given as C_d A sqrt(2/rho))


def cylinder_areas(params: dict) -> tuple[float, float]:
    """Bore and annulus area of ONE stroke cylinder, m² (Ø140/Ø100 mm, seed 003:L6890)."""
    a = 0.25 * math.pi * params["bore_diameter"] ** 2
    return a, a - 0.25 * math.pi * params["rod_diameter"] ** 2


def valve_paths(params: dict, linear: bool):
    """Metering edges of the stroke valve as opening tables over the normalised spool ``U = u/10 V``."""
    lim = params["command_limit"]
    cmd = np.array([0.0, lim] if linear else [0.0, params["fine_metering_command"], lim])  # table points, V
    g_rod, g_bore = valve_gains(cmd, params, linear)
    g_max = g_rod[-1]
    frac_rod, frac_bore = g_rod / g_max, g_bore / g_max
    pos = cmd / lim

    def retract(from_port, to_port, frac):  # open for U < 0
        return h.SpoolPath(from_port, to_port, np.concatenate([-pos[::-1], [1.0]]),
                           np.concatenate([frac[::-1], [0.0]]))

    def extend(from_port, to_port, frac):  # open for U > 0
        return h.SpoolPath(from_port, to_port, np.concatenate([[-1.0], pos]), np.concatenate([[0.0], frac]))

    paths = [retract("P", "rod", frac_rod), retract("bore", "T", frac_bore),
             extend("P", "bore", frac_bore), extend("rod", "T", frac_rod)]
    area = g_max / (DISCHARGE * math.sqrt(2.0 / params["oil_density"]))
    return paths, area


def build_circuit(params: dict, handles: dict, direction: int, max_velocity: float, deceleration: float,
                  pid: bool = False, command=None, full_acceleration: bool = False,
                  deceleration_profile: str = "constant", deceleration_time: float | None = None,
                  controller=None) -> h.Circuit:
    """The stroke circuit with its controls; ``command`` (V, number/callable/Signal) overrides the profile,
    ``controller`` (V, Signal or function of time) the PID of a PID scenario (:class:`.controls.StrokeCommand`)."""
    linear = bool(params["linear_model"])
    modulus = params["linear_bulk_modulus"] if linear else params["oil_bulk_modulus"]
    fluid = h.Fluid("HLP46", params["oil_density"], modulus, params["oil_viscosity"])
    circuit = h.Circuit("hydraulics", fluid)
    circuit.add(h.PressureSource("P", params["linear_supply_pressure"] if linear else params["supply_pressure"]))
    circuit.add(h.Tank("T"))
    a_bore, a_rod = cylinder_areas(params)
    margin, stroke = params["cylinder_margin"], params["stroke"]
    cyl_stroke = stroke + 2.0 * margin
    rod_line = params["rod_volume_at_close"] - 2.0 * a_rod * (cyl_stroke - margin)
    bore_line = params["bore_volume_at_close"] - 2.0 * a_bore * margin
    circuit.add(h.Volume("rod", rod_line))
    circuit.add(h.Volume("bore", bore_line))
    for i, distance in enumerate(handles["cylinders"]):
        circuit.add(h.Cylinder(f"cylinder{i + 1}", a_bore, a_rod, cyl_stroke, measurement=distance,
                               retracted_length=handles["cylinder_length_closed"] - margin), A="bore", B="rod")
    if command is None:
        command = StrokeCommand("controller", handles["gap"], params, direction, max_velocity, deceleration, pid,
                                full_acceleration, deceleration_profile, deceleration_time, controller)
    else:
        command = h.as_signal(command, "controller", unit="V")
    spool_ref = h.Sum("spool_reference", [command], [1.0 / params["command_limit"]])
    spool = None if linear else h.SecondOrderSpool(params["spool_frequency"], params["spool_damping"])
    paths, area = valve_paths(params, linear)
    circuit.add(h.DirectionalValve("valve", paths, area, spool_ref, spool, discharge_coefficient=DISCHARGE,
                                   transition_pressure=params["transition_pressure"]),
                P="P", T="T", bore="bore", rod="rod")
    return circuit
