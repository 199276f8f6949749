"""A flexmbs machine as a co-simulation FMU 2.0 (issue 47 item 1), built with pythonfmu; docs/fmi.md, "Export".

``flexmbs fmu CASE --set k=v --input M2 --output joint/O1/rotation -o machine.fmu`` or, from Python,
``export_fmu("fourbar-hydraulic", "machine.fmu", inputs=["M2"], outputs=["joint/O1/rotation"])``.

What the FMU holds: a short Python class (:data:`SLAVE_SOURCE`, pythonfmu's ``Fmi2Slave``) and a JSON description of
the machine (``resources/flexmbs_fmu.json``: the case or the importable builder, the ``--set`` values, the inputs and
outputs with units, the case's numeric parameters with their provenance, the integrator options). At
``exitInitializationMode`` the FMU builds the model on the target and creates a
:class:`flexmbs.engine.stepping.Run`; ``doStep(t, h)`` sets the inputs (held over the step: a zero-order hold) and
calls ``run.advance_to(t + h)``; ``fmi2GetFMUstate``/``fmi2SetFMUstate`` save and restore the run (in memory).
**The FMU needs Python with flexmbs on the target** (a tool-coupling FMU: pythonfmu's binary starts that Python).
Inputs: :func:`attach_inputs`.
"""
from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import sys
import tempfile
import zipfile
from xml.etree import ElementTree

from fem.errors import ModelError

from flexmbs._version import __version__
from flexmbs.catalog.registry import get_case, typed_parameters
from flexmbs.engine.stepping import Run, model_inputs
from flexmbs.model.inputs import Input

__all__ = ["export_fmu", "machine_spec", "build_machine", "SLAVE_SOURCE"]

SPEC_FILE = "flexmbs_fmu.json"
OPTIONS = ("rtol", "atol", "max_step", "initial_step", "output_interval", "rho_inf")


def _source_module(source: str):
    """``(kind, module)`` of an export source: a registered case name or ``"package.module:function"``."""
    if ":" in source:
        module_name, _, function = source.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ModelError(f"cannot import the model builder {source!r}: {exc}") from None
        if not callable(getattr(module, function, None)):
            raise ModelError(f"{module_name} has no function {function!r} that builds a model")
        return "builder", getattr(module, function)
    return "case", get_case(source)


def build_machine(spec: dict, parameters: dict | None = None):
    """The model an FMU runs: built from its case (with ``--set`` values, then the FMU's parameter values) or its
    builder, with its inputs attached. Returns ``(model, case parameters or None)``."""
    kind, found = _source_module(spec["source"])
    params = None
    if kind == "case":
        params = {**found.DEFAULTS, **spec.get("settings", {}), **(parameters or {})}
        if not callable(getattr(found, "build_model", None)):
            raise ModelError(f"case {spec['source']!r} has no build_model(params): it cannot be exported as an FMU")
        model = found.build_model(params)
    else:
        model = found(**dict(spec.get("settings", {}), **(parameters or {})))
    if isinstance(model, tuple):  # cases return (model, handles, ...)
        model = model[0]
    attach_inputs(model, [item["name"] for item in spec["inputs"]])
    return model, params


def attach_inputs(model, names) -> dict[str, Input]:
    """Make each name an input of ``model``: an :class:`Input` already in it, else the function of time of the
    element so named (a joint actuator's load, a circuit's ``TimeFunction``) replaced by an input that starts at
    that function's value at t = 0."""
    present = model_inputs(model)
    return {name: present[name] if name in present else _replace_function(model, name) for name in names}


def _replace_function(model, name: str) -> Input:
    from flexmbs.model.forces import JointActuator

    for force in model.forces:
        if getattr(force, "name", None) == name and isinstance(force, JointActuator):
            unit = "N.m" if force.which == "rotation" else "N"
            item = Input(name, unit, start=float(force.load(0.0)),
                         description=f"load of joint actuator {name!r} on joint {force.joint.name!r}")
            force.load = item
            return item
    for element in getattr(model, "elements", []):
        for signal in getattr(element, "components", []):  # a hydraulics circuit's components, signals among them
            if getattr(signal, "name", None) == name and callable(getattr(signal, "function", None)):
                item = Input(name, getattr(signal, "unit", ""), start=float(signal.function(0.0)),
                             description=f"signal {name!r} of {element.name!r}")
                signal.function = item
                return item
    actuators = sorted(f.name for f in model.forces if isinstance(f, JointActuator))
    raise ModelError(f"no input, joint actuator or time-function signal named {name!r} in the model"
                     + (f"; its joint actuators: {', '.join(actuators)}" if actuators else ""))


def _provenance(spec: dict) -> str:
    parts = [spec.get("description", ""), f"provenance: {spec['provenance']}" if "provenance" in spec else "",
             spec.get("source", "")]
    return "; ".join(p for p in parts if p)


def machine_spec(source: str, *, inputs=(), outputs=(), settings=None, t_end: float | None = None,
                 options: dict | None = None, name: str | None = None) -> dict:
    """The description an exported FMU carries, checked by building the model and starting a run here: every
    input and output exists, and the outputs' units and start values are read from the run."""
    kind, module = _source_module(source)
    settings = dict(settings or {})
    if kind == "case":
        from flexmbs.catalog.parameters import validate_parameters

        settings = typed_parameters(settings, module.DEFAULTS, getattr(module, "NAME", source))
        validate_parameters(module, settings)
    if not outputs:
        raise ModelError("an FMU needs at least one output: give --output NAME (a results signal such as "
                         "joint/<name>/rotation)")
    options = {k: float(v) for k, v in (options or {}).items() if v is not None}
    unknown = set(options) - set(OPTIONS)
    if unknown:
        raise ModelError(f"unknown integrator option(s) {sorted(unknown)}; the FMU takes {', '.join(OPTIONS)}")
    spec = {"source": source, "settings": settings, "inputs": [{"name": n} for n in inputs], "options": options,
            "t_end": t_end}
    model, params = build_machine(spec)
    found = model_inputs(model)
    spec["inputs"] = [{"name": n, "unit": found[n].unit, "start": found[n].start,
                       "description": found[n].description} for n in inputs]
    horizon = t_end if t_end is not None else (params or {}).get("t_end")
    spec["t_end"] = None if horizon is None else float(horizon)
    run = Run(model, spec["t_end"], **options)
    try:
        spec["outputs"] = []
        for out in outputs:
            value = run.output(out)  # one line naming close names when it does not exist
            if not isinstance(value, float):
                raise ModelError(f"output {out!r} is a vector; an FMU output is a scalar: name one component")
            spec["outputs"].append({"name": out, "unit": run.unit(out), "start": value})
    finally:
        run.finish()
    spec["parameters"] = []
    if kind == "case":
        declared = dict(getattr(module, "PARAMETERS", {}) or {})
        for key, value in sorted(params.items()):
            if isinstance(value, (int, float)) and not isinstance(value, bool) and key != "t_end":
                about = declared.get(key, {})
                spec["parameters"].append({"name": key, "start": float(value), "unit": about.get("unit", ""),
                                           "integer": isinstance(value, int), "description": _provenance(about)})
    base = name or (getattr(module, "NAME", None) if kind == "case" else source.partition(":")[2]) or "machine"
    spec["model_name"] = "flexmbs_" + re.sub(r"\W", "_", str(base))
    spec["flexmbs_version"] = __version__
    return spec


SLAVE_SOURCE = '''"""A flexmbs machine as a co-simulation FMU (written by flexmbs.fmi.export; needs flexmbs on this machine)."""
import ctypes
import glob
import json
import os
import sys

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "flexmbs_fmu.json")) as _f:
    _MODEL_NAME = json.load(_f)["model_name"]


def _release_interpreter_guard(resources):
    """Release pythonfmu's interpreter guard now when the host is a Python process (docs/fmi.md, "Exit of the host").

    pythonfmu's Linux library keeps the guard in a static std::shared_ptr that is released twice when the process
    exits with the library loaded (glibc keeps it loaded after dlclose): the C++ static destructor frees it, then
    the library's destructor finalizePythonInterpreter, run later by _dl_fini, decrements its count in the freed block,
    which damages the heap (glibc "corrupted double-linked list"; PythonFMU issue 229). In a Python host the guard
    owns nothing (the interpreter is the host's), and released here, through the library's own
    finalizePythonInterpreter, it is null at exit: neither destructor releases anything."""
    if not sys.platform.startswith("linux") or not sys.orig_argv:  # not a Python executable's interpreter
        return
    for path in glob.glob(os.path.join(os.path.dirname(os.path.normpath(resources)), "binaries", "linux64", "*.so")):
        try:
            library = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)  # only if loaded: this FMU's library
        except OSError:
            continue
        release = getattr(library, "finalizePythonInterpreter", None)
        if release is not None:
            release()


class FlexmbsMachine(Fmi2Slave):
    author = "flexmbs"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        _release_interpreter_guard(self.resources)
        with open(os.path.join(self.resources, "flexmbs_fmu.json")) as f:
            self.spec = json.load(f)
        self.modelName = self.spec["model_name"]
        self.description = (f"flexmbs machine {self.spec['source']!r} (flexmbs {self.spec['flexmbs_version']}); "
                            "a tool-coupling FMU: needs Python with flexmbs installed")
        self.values, self.run, self.stop = {}, None, None
        for item in self.spec["inputs"]:
            self._register(item, Fmi2Causality.input, Fmi2Variability.continuous)
        for item in self.spec["outputs"]:
            self._register(item, Fmi2Causality.output, Fmi2Variability.continuous)
        for item in self.spec["parameters"]:
            self._register(item, Fmi2Causality.parameter, Fmi2Variability.fixed)

    def _register(self, item, causality, variability):
        name = item["name"]
        self.values[name] = float(item["start"])
        output = causality == Fmi2Causality.output
        self.register_variable(Real(name, causality=causality, variability=variability,
                                    description=item.get("description") or None,
                                    start=None if output else float(item["start"]),
                                    getter=lambda: self.values[name],
                                    setter=None if output else (lambda v: self.values.__setitem__(name, float(v)))),
                               nested=False)

    def setup_experiment(self, start_time, stop_time, tolerance):
        self.stop = stop_time

    def exit_initialization_mode(self):
        from flexmbs.engine.stepping import Run
        from flexmbs.fmi.export import build_machine

        params = {p["name"]: (int(self.values[p["name"]]) if p.get("integer") else self.values[p["name"]])
                  for p in self.spec["parameters"]}
        model, _ = build_machine(self.spec, params)
        horizon = self.spec["t_end"] if self.spec["t_end"] is not None else self.stop
        self.run = Run(model, horizon, **self.spec["options"])
        self._set_inputs()
        self._read_outputs()

    def _set_inputs(self):
        for item in self.spec["inputs"]:
            self.run.set_input(item["name"], self.values[item["name"]])

    def _read_outputs(self):
        for item in self.spec["outputs"]:
            self.values[item["name"]] = self.run.output(item["name"])

    def do_step(self, current_time, step_size):
        self._set_inputs()
        self.run.advance_to(current_time + step_size)
        self._read_outputs()
        return True

    def terminate(self):
        if self.run is not None:
            self.run.finish()
            self.run = None  # flexmbs's objects freed while the interpreter lives

    def _get_fmu_state(self):
        return {"values": dict(self.values), "run": None if self.run is None else self.run.save_state()}

    def _set_fmu_state(self, state):
        self.values.update(state["values"])
        if state["run"] is not None:
            self.run.restore_state(state["run"])
'''


def export_fmu(source: str, path: str, *, inputs=(), outputs=(), settings: dict | None = None,
               t_end: float | None = None, options: dict | None = None, name: str | None = None,
               force: bool = False) -> str:
    """Write a co-simulation FMU 2.0 of a case or model builder; returns its path.

    Parameters
    ----------
    source : str
        A registered case (``flexmbs cases``) or ``"package.module:function"`` returning a model (keywords:
        ``settings``), importable on the target.
    path : str
        The ``.fmu`` file to write.
    inputs, outputs : sequence of str
        Input names (:func:`attach_inputs`) and output names (results signals, e.g. ``joint/O1/rotation``).
    settings : dict, optional
        Case parameters (``--set``), or the builder's keywords.
    t_end : float, s, optional
        Horizon of the step-size defaults (the case's ``t_end`` by default; else the importer's stop time).
    options : dict, optional
        Integrator options of the run: ``rtol``, ``atol``, ``max_step``, ``initial_step``, ``output_interval``,
        ``rho_inf``.
    force : bool
        Replace an existing file.
    """
    try:
        from pythonfmu import FmuBuilder
    except ImportError:
        raise ModelError("exporting an FMU needs pythonfmu: pip install 'flexmbs[fmi]'") from None
    path = os.path.abspath(path)
    if not path.endswith(".fmu"):
        raise ModelError(f"an FMU file ends in .fmu, got {path!r}")
    if os.path.exists(path) and not force:
        raise ModelError(f"{path} exists; give force=True (--force) to replace it")
    if not os.path.isdir(os.path.dirname(path)):
        raise ModelError(f"the folder of {path} does not exist")
    spec = machine_spec(source, inputs=inputs, outputs=outputs, settings=settings, t_end=t_end, options=options,
                        name=name)
    with tempfile.TemporaryDirectory(prefix="flexmbs_fmu_") as folder:
        script = os.path.join(folder, "flexmbs_machine.py")
        with open(script, "w") as f:
            f.write(SLAVE_SOURCE)
        data = os.path.join(folder, SPEC_FILE)
        with open(data, "w") as f:
            json.dump(spec, f, indent=1)
        built = os.path.join(folder, spec["model_name"] + ".fmu")
        try:
            FmuBuilder.build_FMU(script, dest=built, project_files=[data], canGetAndSetFMUstate=True,
                                 canHandleVariableCommunicationStepSize=True)
        finally:  # pythonfmu imported the class from this temporary folder: an FMU loaded later in this process
            sys.modules.pop("flexmbs_machine", None)  # must import it from its own resources (else a crash)
        _add_units(built, spec)
        shutil.move(built, path)
    return path


def _add_units(fmu: str, spec: dict) -> None:
    """pythonfmu writes no units: add ``unit`` to each variable and the ``UnitDefinitions`` FMI 2.0 asks for, and
    the stop time of the case as the default experiment."""
    units = {item["name"]: item.get("unit", "") for key in ("inputs", "outputs", "parameters") for item in spec[key]}
    with zipfile.ZipFile(fmu) as z:
        entries = {n: z.read(n) for n in z.namelist()}
    root = ElementTree.fromstring(entries["modelDescription.xml"])
    used = set()
    for var in root.iter("ScalarVariable"):
        unit = _fmi_unit(units.get(var.get("name"), ""))
        real = var.find("Real")
        if unit and real is not None:
            real.set("unit", unit)
            used.add(unit)
    if used:
        definitions = ElementTree.Element("UnitDefinitions")
        for unit in sorted(used):
            ElementTree.SubElement(definitions, "Unit", name=unit)
        children = list(root)
        after = max(i for i, c in enumerate(children) if c.tag in ("CoSimulation", "ModelExchange"))
        root.insert(after + 1, definitions)
    if spec.get("t_end") and root.find("DefaultExperiment") is None:
        experiment = ElementTree.Element("DefaultExperiment", startTime="0", stopTime=repr(spec["t_end"]))
        children = list(root)
        before = next(i for i, c in enumerate(children) if c.tag in ("VendorAnnotations", "ModelVariables"))
        root.insert(before, experiment)
    root.set("variableNamingConvention", "flat")  # names as the results have them: joint/O1/rotation
    structure = root.find("ModelStructure")
    outputs = [i + 1 for i, var in enumerate(root.iter("ScalarVariable")) if var.get("causality") == "output"]
    if structure is not None and outputs and structure.find("InitialUnknowns") is None:
        initial = ElementTree.SubElement(structure, "InitialUnknowns")  # after Outputs (and Derivatives: none)
        for index in outputs:
            ElementTree.SubElement(initial, "Unknown", index=str(index))
    entries["modelDescription.xml"] = ElementTree.tostring(root, encoding="UTF-8", xml_declaration=True)
    with zipfile.ZipFile(fmu, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content in entries.items():
            z.writestr(name, content)


def _fmi_unit(unit: str) -> str:
    """A results unit as an FMI unit name (``N m`` → ``N.m``; free text such as ``N m or N`` dropped)."""
    unit = unit.strip()
    if not unit or " or " in unit or unit == "-":
        return ""
    return unit.replace(" ", ".")
