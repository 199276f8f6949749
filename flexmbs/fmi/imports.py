"""FMUs inside a flexmbs model (issue 47 item 2), loaded with FMPy; docs/fmi.md, "Import", has the coupling.

``fm.FMU(path, ...)`` returns for a **Model-Exchange** FMU a :class:`ModelExchangeFMU`, a state element
(docs/element-protocol.md) whose states the engine's implicit solver integrates with the machine (evaluated in
Python; FMUs with event indicators or time events are refused), and for a **co-simulation** FMU a
:class:`CoSimulationFMU`, a discrete block that :class:`flexmbs.engine.stepping.Run` samples at its communication
step (Jacobi coupling; its outputs are held :class:`~flexmbs.model.inputs.Input` objects, ``block.output("y")``).
"""
from __future__ import annotations

import numbers
import os
import sys
from ctypes import POINTER, c_double

import numpy as np

from fem.errors import ModelError

from flexmbs.model.inputs import Input

__all__ = ["FMU", "ModelExchangeFMU", "CoSimulationFMU"]


def FMU(path: str, inputs: dict | None = None, outputs=None, parameters: dict | None = None,
        name: str | None = None, kind: str = "auto", step: float | None = None):
    """An FMU 2.0 in a model: Model Exchange as a state element, co-simulation as a sampled block.

    Parameters
    ----------
    path : str
        The ``.fmu`` file.
    inputs, outputs : dict, list
        Model Exchange: inputs ``{fmu_input: source}``, the source a measurement (``fm.Distance``,
        ``fm.JointCoordinate``, ...: its value), ``("rate", measurement)``, a function of time or a number; outputs
        ``{fmu_output: measurement}`` (applied as the generalized force conjugate to it: N, N m) or a list of names
        (recorded only, ``element/<name>/<output>``). Co-simulation: inputs ``{fmu_input: results signal name,
        function of time or number}``, outputs a list of names.
    parameters : dict, optional
        Start values to set before initialization (``{name: value}``, SI).
    name : str, optional
        The element's name (default: the FMU's model name).
    kind : {"auto", "model-exchange", "co-simulation"}
        ``"auto"``: Model Exchange when the FMU offers it, else co-simulation.
    step : float, s
        Communication step of a co-simulation block (default: the FMU's default experiment step).
    """
    try:
        import fmpy
    except ImportError:
        raise ModelError("loading an FMU needs FMPy: pip install 'flexmbs[fmi]'") from None
    if not os.path.isfile(path):
        raise ModelError(f"FMU file not found: {path!r}")
    try:
        description = fmpy.read_model_description(path)
    except Exception as exc:  # noqa: BLE001  FMPy raises several kinds for a broken file
        raise ModelError(f"{path}: not a readable FMU ({exc})") from None
    if description.fmiVersion != "2.0":
        raise ModelError(f"{path}: FMI {description.fmiVersion}; flexmbs imports FMI 2.0 FMUs")
    if kind not in ("auto", "model-exchange", "co-simulation"):
        raise ModelError(f"kind must be 'auto', 'model-exchange' or 'co-simulation', got {kind!r}")
    if kind == "auto":
        kind = "model-exchange" if description.modelExchange is not None else "co-simulation"
    if kind == "model-exchange":
        if description.modelExchange is None:
            raise ModelError(f"{path} has no Model Exchange interface; use kind='co-simulation'")
        return ModelExchangeFMU(path, description, inputs or {}, outputs or [], parameters or {}, name)
    if description.coSimulation is None:
        raise ModelError(f"{path} has no co-simulation interface; use kind='model-exchange'")
    return CoSimulationFMU(path, description, inputs or {}, outputs or [], parameters or {}, name, step)


def _checked_variables(path, description, inputs, outputs) -> tuple[dict, list]:
    """The FMU's variables by name and the output names; an input or output it does not have is a one-line error."""
    variables = {v.name: v for v in description.modelVariables}
    for names, causality in ((inputs, "input"), (outputs, "output")):
        for n in names:
            if n not in variables:
                raise ModelError(f"{path} has no variable {n!r}; its {causality}s: "
                                 f"{', '.join(v for v, var in variables.items() if var.causality == causality)}")
    return variables, list(outputs)


def _instantiated(fmu_class, path, description, interface, name):
    """The FMU (FMPy's ``fmu_class`` of ``interface``) instantiated, and then the interpreter guard of an FMU built
    with pythonfmu released through its exported ``finalizePythonInterpreter`` (the guard owns nothing in a Python
    host; released at exit it is freed twice, PythonFMU issue 229: docs/fmi.md, "Exit of the host")."""
    from fmpy import extract

    fmu = fmu_class(guid=description.guid, unzipDirectory=extract(path), modelIdentifier=interface.modelIdentifier,
                    instanceName=name)
    fmu.instantiate()
    release = getattr(getattr(fmu, "dll", None), "finalizePythonInterpreter", None)
    if release is not None and sys.platform.startswith("linux"):
        release()
    return fmu


def _set_parameters(fmu, variables, parameters, path) -> None:
    for key, value in parameters.items():
        if key not in variables:
            raise ModelError(f"{path} has no parameter {key!r}")
        fmu.setReal([variables[key].valueReference], [float(value)])


class ModelExchangeFMU:
    """A Model-Exchange FMU as a state element (see :func:`FMU`)."""

    def __init__(self, path, description, inputs: dict, outputs, parameters: dict, name):
        from fmpy.fmi2 import FMU2Model

        self.path, self.description = path, description
        self.name = name or description.modelName
        if description.numberOfEventIndicators:
            raise ModelError(f"{path}: {description.numberOfEventIndicators} event indicator(s); flexmbs does not "
                             "hand state events to an imported FMU (use a co-simulation FMU)")
        variables, names = _checked_variables(path, description, inputs, outputs)
        self.measurements = []
        self._input_refs = [variables[key].valueReference for key in inputs]
        self._input_sources = [self._source(key, source) for key, source in inputs.items()]
        self._output_names = names
        self._output_refs = [variables[n].valueReference for n in names]
        # (output index, measurement row) of each output applied as a generalized force
        self._force_rows = [(k, self._row(target)) for k, target in enumerate(outputs.values())
                            if target is not None] if isinstance(outputs, dict) else []
        self.output_units = {n: variables[n].unit or variables[n].declaredType and
                             getattr(variables[n].declaredType, "unit", "") or "" for n in names}
        states = [d.variable.derivative for d in description.derivatives]
        self.state_names = [s.name for s in states]
        self.state_units = [s.unit or "1" for s in states]
        self._nx = len(states)
        self._fmu = _instantiated(FMU2Model, path, description, description.modelExchange, self.name)
        self._fmu.setupExperiment(startTime=0.0)
        _set_parameters(self._fmu, variables, parameters, path)
        self._fmu.enterInitializationMode()
        self._fmu.exitInitializationMode()
        needed, next_event = True, False
        while needed:
            needed, terminate, _, _, next_event, _ = self._fmu.newDiscreteStates()
        if next_event:
            raise ModelError(f"{path} schedules time events; flexmbs does not hand them to an imported FMU")
        self._fmu.enterContinuousTimeMode()
        self._x = np.zeros(self._nx)
        self._dx = np.zeros(self._nx)
        self._fmu.getContinuousStates(self._x.ctypes.data_as(POINTER(c_double)), self._nx)
        self._z0 = self._x.copy()
        self._key = None

    def _row(self, measurement) -> int:
        for k, m in enumerate(self.measurements):
            if m is measurement:
                return k
        self.measurements.append(measurement)
        return len(self.measurements) - 1

    def _source(self, key, source):
        if isinstance(source, numbers.Real):
            value = float(source)
            return lambda t, y, ydot: value
        if isinstance(source, tuple) and len(source) == 2 and source[0] == "rate":
            row = self._row(source[1])
            return lambda t, y, ydot: ydot[row]
        if hasattr(source, "evaluate"):  # a flexmbs measurement
            row = self._row(source)
            return lambda t, y, ydot: y[row]
        if callable(source):
            return lambda t, y, ydot: float(source(t))
        raise ModelError(f"input {key!r} of {self.name}: give a measurement, ('rate', measurement), a function of "
                         f"time or a number, got {type(source).__name__}")

    def _evaluate(self, t, z, y, ydot) -> None:
        """Set the FMU to ``(t, z, inputs)`` unless it is there already."""
        key = (float(t), np.asarray(z, dtype=float).tobytes(), np.asarray(y, dtype=float).tobytes(),
               np.asarray(ydot, dtype=float).tobytes())
        if key == self._key:
            return
        fmu = self._fmu
        fmu.setTime(float(t))
        self._x[:] = z
        fmu.setContinuousStates(self._x.ctypes.data_as(POINTER(c_double)), self._nx)
        if self._input_refs:
            fmu.setReal(self._input_refs, [f(t, y, ydot) for f in self._input_sources])
        self._key = key

    # the state-element protocol (docs/element-protocol.md)
    def initial_state(self) -> np.ndarray:
        return self._z0.copy()

    def rates(self, t, z, y, ydot) -> np.ndarray:
        self._evaluate(t, z, y, ydot)
        self._fmu.getDerivatives(self._dx.ctypes.data_as(POINTER(c_double)), self._nx)
        return self._dx.copy()

    def forces(self, t, z, y, ydot) -> np.ndarray:
        f = np.zeros(len(self.measurements))
        if self._force_rows:
            self._evaluate(t, z, y, ydot)
            values = self._fmu.getReal(self._output_refs)
            for k, row in self._force_rows:
                f[row] += values[k]
        return f

    def outputs(self, t, z, y, ydot) -> dict:
        if not self._output_refs:
            return {}
        self._evaluate(t, z, y, ydot)
        return dict(zip(self._output_names, (float(v) for v in self._fmu.getReal(self._output_refs))))

    def compiled_element(self):
        return None, f"FMU {self.name!r} is evaluated in Python (FMPy)"

    def __repr__(self) -> str:
        return f"ModelExchangeFMU({self.name!r}, states={self.state_names})"


class _BlockOutput(Input):
    """An output of a co-simulation block: held between its samples by the run that steps the block."""

    def __init__(self, block, name, unit, start):
        super().__init__(f"{block.name}.{name}", unit, start, description=f"output {name!r} of FMU {block.name!r}")
        self.block = block

    def __call__(self, t) -> float:
        if self.block.run is None and t > 0.0:  # its value at t = 0 is known without a run (building checks it)
            raise ModelError(f"{self.block.name!r} is a co-simulation FMU: it is sampled by a run (fm.simulate or "
                             "fm.Run), not evaluated on its own (a static equilibrium or a linearization)")
        return self.value


class CoSimulationFMU:
    """A co-simulation FMU sampled as a discrete block (see :func:`FMU`)."""

    def __init__(self, path, description, inputs: dict, outputs, parameters: dict, name, step):
        from fmpy.fmi2 import FMU2Slave

        self.path, self.description = path, description
        self.name = name or description.modelName
        variables, names = _checked_variables(path, description, inputs, outputs)
        self._variables = variables
        if step is None:
            experiment = description.defaultExperiment
            step = getattr(experiment, "stepSize", None) if experiment is not None else None
        if step is None or not float(step) > 0.0:
            raise ModelError(f"{path}: give the communication step (step=... s); the FMU has no default step")
        self.step = float(step)
        self._input_refs = [variables[k].valueReference for k in inputs]
        self._inputs = list(inputs.values())
        self._output_refs = [variables[n].valueReference for n in names]
        self._parameters = dict(parameters)
        self.run, self._k = None, 0
        self._fmu = _instantiated(FMU2Slave, path, description, description.coSimulation, self.name)
        starts = self._initialize()
        self._outputs = {n: _BlockOutput(self, n, variables[n].unit or "", v) for n, v in zip(names, starts)}

    def _initialize(self) -> list:
        """Initialize the FMU (inputs at their values at t = 0); its outputs at t = 0."""
        fmu = self._fmu
        fmu.setupExperiment(startTime=0.0)
        _set_parameters(fmu, self._variables, self._parameters, self.path)
        fmu.enterInitializationMode()
        self._set_inputs(0.0)
        fmu.exitInitializationMode()
        self._k = 0
        return fmu.getReal(self._output_refs) if self._output_refs else []

    def output(self, name: str) -> Input:
        """The held output ``name`` (use it as a function of time: a joint actuator's load, a signal)."""
        if name not in self._outputs:
            raise ModelError(f"FMU {self.name!r} has no output {name!r} (declared: {', '.join(self._outputs)})")
        return self._outputs[name]

    def _value(self, source, t):
        if isinstance(source, numbers.Real):
            return float(source)
        if isinstance(source, str):
            if self.run is None:
                raise ModelError(f"input {source!r} of FMU {self.name!r} is a results signal: read while a run "
                                 "(fm.simulate or fm.Run) steps the model")
            return float(self.run.output(source))
        return float(source(t))

    def _set_inputs(self, t) -> None:
        if self._input_refs:  # a results signal reads 0 before a run steps the block
            values = [0.0 if self.run is None and isinstance(s, str) else self._value(s, t) for s in self._inputs]
            self._fmu.setReal(self._input_refs, values)

    # the sampled-block protocol of flexmbs.engine.stepping.Run
    def attach(self, run) -> None:
        """A run starts: the FMU starts again at t = 0 if it stepped before."""
        if self._k:
            self._fmu.reset()
            starts = self._initialize()
            for out, value in zip(self._outputs.values(), starts):
                out.start = out.value = float(value)
        self.run = run

    def next_sample(self) -> float:
        """The time of the next sample, s (``k × step``)."""
        return self._k * self.step

    def sample(self, run) -> None:
        """At ``t_k = k step``: inputs from the run, outputs ``y_k`` held from now on, one FMU step to ``t_k+1``."""
        t = self.next_sample()
        self._set_inputs(t)
        values = self._fmu.getReal(self._output_refs) if self._output_refs else []
        for out, value in zip(self._outputs.values(), values):
            run.set_input(out.name, value)
        self._fmu.doStep(currentCommunicationPoint=t, communicationStepSize=self.step)
        self._k += 1

    def __repr__(self) -> str:
        return f"CoSimulationFMU({self.name!r}, step={self.step:g} s)"
