"""The ch. 4 stroke hydraulics as the machine-creeping stroke drive (``stroke_drive = "hydraulic"``).

The two Ø140/Ø100 stroke cylinders, the proportional valve (zero-lapped 4/3 spool, second-order spool lag), the
185 bar source and the lines of ``cases/platen_stroke`` (:func:`cases.platen_stroke.circuit.build_circuit`), with its
open-loop velocity-profile controller (:class:`cases.platen_stroke.controls.StrokeCommand`, seed 003 §4.2.3,
L6479, L6549-6571), act between the moving platen (rod eyes on its mould face, at the cylinder height) and the two
cylinder-mount nodes of the flexible structure (``cylinder_l``, ``cylinder_r``; the servo stand-in's mounts). Seed
003 L7498-7500: the ch. 4 hydraulics and controls are used unchanged in ch. 5.

Parameters: :func:`stroke_parameters`, the ``platen_stroke.toml`` values with their provenance there, the shared
ones (``SHARED``) from ``machine_creeping.toml`` (docs/cases/machine-creeping.md, "Hydraulic stroke drive").

Scenarios: ``normal-cycle`` the profile; ``emergency-stop`` the valve command dropped to 0 V at ``stop_time`` (the
valve de-energized, the spool centred by its own lag, seed 003 L7668-7671); ``impact`` a wrong shut height (L7664-7667):
the controller believes the mould ``shut_height_error`` further away than it is, so it decelerates too late.
"""
from __future__ import annotations

import numpy as np

import flexmbs as fm
from hydraulics.core import Signal

SHARED = {  # platen-stroke parameter <- machine-creeping parameter (the values the two cases share)
    "platen_mass": "moving_platen_mass", "stroke": "stroke", "start_time": "start_time",
    "max_velocity_close": "max_velocity", "acceleration_time": "acceleration_time", "deceleration": "deceleration",
    "final_velocity": "final_velocity", "safety_distance": "safety_distance", "supply_pressure": "supply_pressure",
    "bore_diameter": "bore_diameter", "rod_diameter": "rod_diameter", "dynamic_friction": "rail_dynamic_friction",
    "static_friction": "rail_static_friction", "gravity": "gravity"}


class StopAfter(Signal):
    """The command ``inner`` until ``stop_time``, 0 V after it (emergency stop: the valve de-energized, L7668-7671)."""

    unit = "V"

    def __init__(self, name: str, inner: Signal, stop_time: float):
        super().__init__(name)
        self.inner, self.stop_time = inner, float(stop_time)

    def inputs(self):
        return [self.inner]

    def compiled_signal(self, index):
        """This signal's numba kernel for the circuit's compiled step (:mod:`.stop_kernel`)."""
        from .stop_kernel import stop_after_kernel

        return stop_after_kernel.address, [self.stop_time], [index.signal(self.inner)], ["value"]


def stroke_parameters(p: dict) -> dict:
    """Parameters of :func:`cases.platen_stroke.circuit.build_circuit` for the machine: the platen-stroke defaults
    with the shared values of the machine (``SHARED``); the full nonlinear valve (``linear_model = false``)."""
    from cases.platen_stroke import DEFAULTS

    sp = dict(DEFAULTS)
    sp.update({key: p[source] for key, source in SHARED.items()})
    sp["linear_model"] = False
    return sp


def add_hydraulic_drive(model, platen, mounts, mount_y, p: dict, scenario: str, rod_eye_x: float, z_cyl: float,
                        mould_x: float, contact_x: float, centre_z: float):
    """Add the cylinders, valve, circuit and controller to ``model``; returns ``(circuit, handles)``.

    Parameters
    ----------
    platen : rigid body (the moving platen);  mounts : structure markers (cylinder barrels)
    mount_y : m, global y of each mount (each rod eye sits at the same y)
    rod_eye_x, z_cyl : m, platen-local x and z of the rod eyes
    mould_x : m, platen-local x of the mould face point whose travel the controller measures
    contact_x : m, global x of that point at mould contact (the stationary platen's face + shut height)
    centre_z : m, global z of the platen's centre (height of the travel sensor's reference point)
    """
    from cases.platen_stroke.circuit import build_circuit
    from cases.platen_stroke.controls import StrokeCommand

    sp = stroke_parameters(p)
    cylinders = []
    for k, (mount, y) in enumerate(zip(mounts, mount_y)):
        eye = model.add_marker(platen, f"rod_eye_{k}", position=(rod_eye_x, float(y), z_cyl))
        cylinders.append(fm.Distance(mount, eye))
    # controller's travel sensor (platen-stroke's gap: value = stroke + 1 m - travel, so the controller's remaining
    # travel is gap - 1 m - safety distance): the reference point lies 1 m (+ the shut-height error of the impact
    # scenario) beyond the mould contact position, on the ground at the platen centre's height
    error = p["shut_height_error"] if scenario == "impact" else 0.0
    reference = model.add_marker(model.ground, "travel_reference", position=(contact_x - 1.0 - error, 0.0, centre_z))
    sensor = model.add_marker(platen, "travel_sensor", position=(mould_x, 0.0, 0.0))
    gap = fm.Distance(reference, sensor)
    handles = {"cylinders": cylinders, "gap": gap, "cylinder_length_closed": p["mould_height"]}
    command = StrokeCommand("controller", gap, sp, 1, sp["max_velocity_close"], sp["deceleration"])
    if scenario == "emergency-stop":
        command = StopAfter("valve_command", command, p["stop_time"])
    circuit = build_circuit(sp, handles, 1, sp["max_velocity_close"], sp["deceleration"], command=command)
    model.add_element(circuit)
    return circuit, handles


def drive_histories(res, platen_name: str = "moving_platen") -> dict:
    """Drive force on the platen along x (N, negative = closing; the sum of the two cylinder forces, which push the
    rod eyes away from the barrels, i.e. along +x) and the platen velocity along x (m/s)."""
    force = res["element/hydraulics/cylinder1.force"] + res["element/hydraulics/cylinder2.force"]
    return {"force": np.asarray(force), "velocity": np.asarray(res[f"body/{platen_name}/velocity"])[:, 0]}


__all__ = ["add_hydraulic_drive", "stroke_parameters", "drive_histories", "StopAfter", "SHARED"]
