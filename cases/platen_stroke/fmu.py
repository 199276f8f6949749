"""The platen stroke's PID as an FMU, and the stroke with an imported FMU as its controller (issue 47).

The PID of the PID scenarios is a signal of its own (:class:`.controls.StrokePID`) fed by three views of the stroke
command (:class:`.controls.StrokeQuantity`): the speed error ``speed_error`` (m/s), the open-loop command it tracks
while off ``feed_forward`` (V) and its on flag ``pid_on``. :func:`pid_model` is that PID alone, its three inputs
:class:`flexmbs.Input` objects; :func:`export_pid_fmu` writes it as a co-simulation FMU (pythonfmu, through
:func:`flexmbs.fmi.export_fmu`), and :func:`fmu_controller` imports an FMU with these inputs and output as the
stroke's controller, sampled at its communication step. Any FMU with the inputs ``speed_error``, ``feed_forward``,
``pid_on`` and one output (V) can stand in for the PID (``fmu_controller(path, step, output=...)``). Example and
accuracy: docs/cases/platen-stroke.md, "The PID as a signal of its own, and an FMU in its place".
"""
from __future__ import annotations

import flexmbs as fm
import hydraulics as h

from .controls import StrokePID, StrokeQuantity

INPUTS = tuple(StrokeQuantity.UNITS)  # speed_error, feed_forward, pid_on
OUTPUT = "element/controller/pid.value"
SOURCE = "cases.platen_stroke.fmu:pid_model"


def pid_model(**settings) -> fm.Model:
    """The stroke's PID alone: a circuit ``controller`` with the :class:`.controls.StrokePID` ``pid`` whose error,
    tracking command and on flag are the model's inputs ``speed_error`` (m/s), ``feed_forward`` (V) and ``pid_on``
    (1); its command is the results signal :data:`OUTPUT` (V). ``settings``: case parameters (the gains)."""
    from . import parameters

    p = parameters(settings)
    model = fm.Model("stroke-pid", gravity=(0.0, 0.0, 0.0))
    stand = model.add_rigid_body("stand", mass=1.0, inertia=(1.0, 1.0, 1.0))
    model.add_joint("fixed", model.add_marker(model.ground, "base"), model.add_marker(stand, "seat"), name="seat")
    circuit = h.Circuit("controller", h.Fluid("HLP46", p["oil_density"], p["oil_bulk_modulus"], p["oil_viscosity"]))
    inputs = {key: h.TimeFunction(key, fm.Input(key, unit, 0.0, description=f"the stroke's {key}"), unit=unit)
              for key, unit in StrokeQuantity.UNITS.items()}
    circuit.add(StrokePID("pid", inputs["speed_error"], inputs["feed_forward"], inputs["pid_on"], p))
    model.add_element(circuit)
    return model


def export_pid_fmu(path: str, settings: dict | None = None, t_end: float = 6.5, options: dict | None = None,
                   force: bool = False) -> str:
    """Write :func:`pid_model` as a co-simulation FMU (inputs :data:`INPUTS`, output :data:`OUTPUT`); returns its
    path. ``options``: the FMU's integrator options (default rtol 1e-8, atol 1e-10: its states follow their held
    inputs exactly enough that the FMU's own integration error is far below the sampling error)."""
    from flexmbs.fmi import export_fmu

    return export_fmu(SOURCE, path, inputs=list(INPUTS), outputs=[OUTPUT], settings=settings, t_end=t_end,
                      options=options or {"rtol": 1e-8, "atol": 1e-10}, name="stroke_pid", force=force)


def fmu_controller(path: str, step: float, output: str = OUTPUT, circuit: str = "hydraulics"):
    """Import a PID FMU as a co-simulation block reading the stroke's ``speed_error``, ``feed_forward`` and
    ``pid_on`` (results signals of the circuit ``circuit``); returns ``(block, command)``, ``command`` the held
    output to give :func:`.simulation.build_model` as ``controller``. Step the model with ``fm.Run``."""
    from flexmbs.fmi import FMU

    block = FMU(path, inputs={key: f"element/{circuit}/{key}.value" for key in INPUTS}, outputs=[output],
                kind="co-simulation", step=step, name="pid_fmu")
    return block, block.output(output)
