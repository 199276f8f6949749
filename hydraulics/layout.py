"""A circuit as flat arrays and one compiled kernel: the circuit's part of the engine's step (issue 26).

:func:`compile_circuit` turns a finalised :class:`~hydraulics.circuit.Circuit` into parameter arrays (``fpar``
floats, ``ipar`` integers: a head, the node table, the signal records and one record per component, laid out as
:mod:`hydraulics.kernel` and :mod:`hydraulics.signal_kernels` say) and the address of
:func:`hydraulics.kernel.circuit_kernel`, a numba ``cfunc`` with the C signature of the compiled element protocol::

    void kernel(long mode, double t, double *z, double *y, double *ydot, double *sig, double *fpar, long *ipar,
                double *rates, double *forces, double *aux)

The engine calls it through that address from its own compiled step; hydraulics does not import flexmbs, the
address is the whole interface. ``aux`` holds the integrands of ``Circuit.integrands`` (per volume: the cavitation
fill flow and ``|guard flow|``). Which kinds compile (:func:`kernel_kind`), which signals the engine hands in
``sig`` and which the kernel evaluates, and when a user's component or signal (or a replaced ``evaluate``) is a
Python callback (:attr:`CompiledCircuit.callback_signals`, ``callback_components``; the engine then takes the
circuit as a Python element, :meth:`CompiledCircuit.reason`): docs/element-protocol.md, "What a circuit compiles".
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from . import kernel as K
from . import signal_kernels as S
from .accumulators import GasAccumulator
from fem.errors import ModelError

from .core import HOOKS, Signal
from .cylinder import BrownMcPheeFriction, CoulombViscousFriction, Cushion, Cylinder
from .datasheet import Hysteresis, NormalisedCommand
from .friction import StribeckFriction
from .lines import Pipe
from .motors import HydraulicMotor
from .nodes import PressureSource, Tank, Volume
from .orifices import CheckValve, Orifice, ReliefValve, Throttle, flow_coefficient
from .pressure_valves import (CounterbalanceValve, PilotOperatedCheckValve, PressureCompensator,
                              PressureReducingValve, ShuttleValve)
from .pumps import VariableDisplacementPump
from .signals import (PID, Constant, LookupTable, MeasurementSensor, PiecewiseLinear, PressureSensor, Ramp,
                      SmoothStep, Sum, TimeFunction, VelocityProfile)
from .sources import FixedDisplacementPump
from .valves import DirectionalValve, FirstOrderSpool, SecondOrderSpool

_TIME_SIGNALS = (Constant, PiecewiseLinear, Ramp, TimeFunction)
_SIGNALS = _TIME_SIGNALS + (SmoothStep, Sum, LookupTable, MeasurementSensor, PressureSensor, PID, VelocityProfile,
                            NormalisedCommand, Hysteresis)
_KINDS = frozenset(_SIGNALS + (PressureSource, Tank, Volume, Orifice, Throttle, CheckValve, ReliefValve,
                               DirectionalValve, Cylinder, Pipe, Cushion, VariableDisplacementPump, PressureCompensator,
                               PressureReducingValve, CounterbalanceValve, PilotOperatedCheckValve, ShuttleValve,
                               FixedDisplacementPump, GasAccumulator, HydraulicMotor))
_FLOAT = np.dtype(float)
_PILOTS = {PressureCompensator: K.COMPENSATOR, PressureReducingValve: K.REDUCING,
           CounterbalanceValve: K.COUNTERBALANCE, PilotOperatedCheckValve: K.PILOT_CHECK}


def kernel_kind(comp):
    """The built-in class whose kernel evaluates ``comp``, or None for a user's component or signal (a class on
    the way up that writes a hook of :data:`hydraulics.core.HOOKS` or has a kernel of its own)."""
    for cls in type(comp).__mro__:
        if cls in _KINDS:
            return cls
        if any(hook in cls.__dict__ for hook in HOOKS) or "compiled_signal" in cls.__dict__:
            return None
    return None


class CompiledCircuit:
    """What the engine needs of a compiled circuit: kernel address, parameters, signals.

    ``output_names`` name the entries the kernel writes in mode 1, as ``Circuit.outputs``; ``gap_names`` the
    gaps of mode 2, as ``Circuit.event_gaps``.
    ``signals`` are ``(kind, data)`` per entry of ``sig``: ``("constant", value)``, ``("table", (times, values))``
    or ``("function", f)`` with ``f(t)`` a Python callable. ``callback_signals`` are ``(record number, signal,
    own record)`` of the signals evaluated in Python (in record order; ``own record``: the kernel evaluates the
    signal's record first, an instance's replaced ``evaluate`` then reads it), ``callback_components`` the
    components evaluated in Python; ``node_numbers``, ``signal_slots``, ``source_slots`` and ``first_output`` map
    a node, signal, pressure source or component (by ``id``) to its node number, signal slot, its pressure's slot and
    first output."""

    def __init__(self, fpar, ipar, signals, n_aux, output_names, gap_names, builder):
        self.address = K.circuit_kernel.address
        self.fpar, self.ipar, self.signals, self.n_aux = fpar, ipar, signals, n_aux
        self.output_names, self.gap_names = output_names, gap_names
        self._circuit_type = type(builder.circuit)
        self.callback_signals, self.callback_components = builder.callbacks, builder.components
        self.node_numbers, self.signal_slots = builder.number, builder.slots
        self.first_output = builder.first_output
        self.source_slots = {node: builder.slots[id(sig)] for node, sig in builder.sources.items()}

    @property
    def gap_names_exact(self) -> bool:
        """Whether :attr:`gap_names` are all the keys of ``Circuit.event_gaps`` (the library's ``event_gaps``, no
        user's component with gaps of its own): the engine then takes them without evaluating ``event_gaps``
        (docs/element-protocol.md)."""
        return (getattr(self._circuit_type.event_gaps, "library_event_gaps", False)
                and not any(callable(getattr(c, "event_gaps", None)) for c in self.callback_components))

    @property
    def has_callbacks(self) -> bool:
        """Whether a user's component or signal is evaluated in Python."""
        return bool(self.callback_signals or self.callback_components)

    def reason(self, circuit_name: str) -> str:
        """Why the engine's compiled step takes this circuit as a Python element ("" if it does not)."""
        names = [c.name for c in self.callback_components] + [s.name for _, s, _ in self.callback_signals]
        return (f"circuit {circuit_name!r}: the Python callbacks {', '.join(repr(n) for n in names)} (a user's "
                "component or signal, or a replaced evaluate)") if names else ""


class _Builder:
    """Collects ``fpar``, the engine's time signals and the signal records (each signal once, inputs first)."""

    def __init__(self, circuit):
        self.circuit = circuit
        self.fpar: list[float] = []
        self.signals: list = []           # the engine's entries of ``sig``
        self.slots: dict = {}             # id(signal) -> slot in the kernel's signal vector
        self.busy: set = set()
        self.signal_records: list = []
        self.number: dict = {}            # id(node) -> node number
        self.sources: dict = {}           # id(pressure source) -> its pressure signal
        self.plugins: dict = {}           # id(signal) -> what its compiled_signal() gave
        self.first_output: dict = {}      # id(component) -> index of its first output
        self.names: list[str] = []        # the output names
        self.callbacks: list = []         # (signal record number, signal, own record) evaluated in Python
        self.components: list = []        # components evaluated in Python
        self.gaps: list[str] = []         # the event gaps' names (the cylinders' end stops)

    def ports(self, comp) -> list:
        """The node numbers of a component's ports, in the order of ``comp.ports``."""
        return [self.number[id(comp.nodes[port])] for port in comp.ports]

    def floats(self, *values) -> int:
        start = len(self.fpar)
        self.fpar.extend(map(float, values))
        return start

    def arrays(self, *arrays) -> int:
        """:meth:`floats` of the entries of float arrays (``tolist``: the same doubles, a fifth of the time)."""
        start = len(self.fpar)
        for values in arrays:
            if type(values) is np.ndarray and values.dtype is _FLOAT and values.ndim == 1:  # (SpoolPath's arrays)
                self.fpar.extend(values.tolist())
            else:
                self.fpar.extend(np.asarray(values, dtype=float).reshape(-1).tolist())
        return start

    def measurement_index(self, measurement) -> int:
        """Index of a measurement in ``y`` (for a signal's own kernel)."""
        return self.circuit.measurement_index(measurement)

    def own_kernel(self, sig):
        """``(address, floats, integers, output keys)`` of a signal with its own kernel (its class defines
        ``compiled_signal``), or None."""
        if "compiled_signal" not in type(sig).__dict__:
            return None
        if id(sig) not in self.plugins:
            self.plugins[id(sig)] = sig.compiled_signal(self)
        return self.plugins[id(sig)]

    def signal(self, sig) -> int:
        """The slot of a signal, its record (and those of its inputs) laid out on first use."""
        if id(sig) in self.slots:
            return self.slots[id(sig)]
        own = self.own_kernel(sig)
        kind = kernel_kind(sig) if own is None else type(sig)
        if id(sig) in self.busy:
            raise ModelError(f"algebraic loop through signal '{sig.name}': break it with a state (a filter, a "
                             "spool lag or a PID)")
        self.busy.add(id(sig))
        if kind is None:  # a user's signal: its inputs first, then its slot, written in Python
            if getattr(type(sig), "evaluate", None) is Signal.evaluate:
                raise ModelError(f"signal '{sig.name}' ({type(sig).__name__}) has no law: write its evaluate(ev) "
                                 "(docs/element-protocol.md)")
            for inp in sig.inputs():
                self.signal(inp)
            fields = [S.CALLBACK]
        else:
            fields = self._signal_fields(sig, kind) if own is None else self._own_fields(sig, own)
        self.busy.discard(id(sig))
        if kind is None or "evaluate" in vars(sig):
            self.callbacks.append((len(self.signal_records), sig, kind is not None))
        slot = self.slots[id(sig)] = len(self.slots)
        self.signal_records.append([fields[0], len(fields) + 2, slot] + fields[1:])
        return slot

    def _own_fields(self, sig, own) -> list:
        """``[PLUGIN, address, first output, fpar start, own integers...]`` (:mod:`hydraulics.signal_kernels`)."""
        address, floats, integers, keys = own
        first = self.first_output[id(sig)]
        if keys[:1] != ["value"] or self.names[first:first + len(keys)] != [f"{sig.name}.{key}" for key in keys]:
            raise ModelError(f"signal '{sig.name}' ({type(sig).__name__}): its kernel's outputs {keys} are not "
                             "those of its output_units(), 'value' first")
        return [S.PLUGIN, int(address), self.first_output[id(sig)], self.floats(*floats)] + [int(k) for k in integers]

    def _signal_fields(self, sig, kind) -> list:
        """``[kind, fields...]`` of one signal record (:mod:`hydraulics.signal_kernels`)."""
        if kind in _TIME_SIGNALS:
            self.signals.append(("constant", sig.constant) if kind is Constant else
                                ("function", sig.function) if kind is TimeFunction else
                                ("table", (np.asarray(sig.times, dtype=float), np.asarray(sig.values, dtype=float))))
            return [S.TIME, len(self.signals) - 1]
        if kind is Sum:
            inputs = [self.signal(s) for s in sig.terms]
            return [S.SUM, len(inputs), self.floats(*sig.weights)] + inputs
        if kind is LookupTable:
            return [S.LOOKUP, self.signal(sig.input_signal), len(sig.x), self.floats(*sig.x, *sig.y)]
        if kind is SmoothStep:
            return [S.SMOOTH_STEP, self.floats(sig.t_start, sig.t_end, sig.initial, sig.final)]
        if kind is MeasurementSensor:
            return [S.MEASUREMENT, self.circuit.measurement_index(sig.measurement), int(bool(sig.rate))]
        if kind is PressureSensor:
            node = self.circuit.node(sig.node_name)
            if id(node) in self.sources:  # a source's pressure is its signal
                return [S.COPY, self.signal(self.sources[id(node)])]
            return [S.PRESSURE, self.number[id(node)]]
        if kind is PID:
            ki = sig.gain / sig.integral_time if math.isfinite(sig.integral_time) else 0.0
            f = self.floats(sig.gain, ki, sig.gain * sig.derivative_time / sig.filter_time, sig.filter_time,
                            sig.u_min, sig.u_max, sig.tracking_time)
            return [S.PID, self.signal(sig.setpoint), self.signal(sig.measured), sig.state_offset, f]
        if kind is VelocityProfile:
            return [S.PROFILE, self.signal(sig.position),
                    self.floats(sig.start_time, sig.acceleration, sig.max_velocity, sig.deceleration,
                                sig.end_position, sig.final_velocity, sig.safety_distance, sig.direction)]
        if kind is NormalisedCommand:
            r = sig.command_range
            return [S.NORMALISED, self.signal(sig.raw), self.floats(r.centre, r.half_span)]
        return [S.HYSTERESIS, self.signal(sig.input_signal), sig.state_offset,
                self.floats(sig.half_width, sig.time_constant)]


def compile_circuit(circuit) -> tuple[CompiledCircuit, str]:
    """``(compiled, "")``, or ``(compiled, reason)`` when a user's component or signal is a Python callback of it
    (the reason the engine's compiled step takes the circuit as a Python element)."""
    circuit.finalize()
    b = _Builder(circuit)
    nodes = [c for c in circuit.components if isinstance(c, (Volume, Tank, PressureSource))]
    kinds = [kernel_kind(n) for n in nodes]
    b.number = {id(n): k for k, n in enumerate(nodes)}
    b.sources = {id(n): n.pressure_signal for n, kind in zip(nodes, kinds) if kind is PressureSource}
    names = b.names = _output_names(circuit, b)
    node_table = []
    for node, kind in zip(nodes, kinds):
        if kind is Volume:
            node_table += [K.VOLUME, node.state_offset]
        elif kind is Tank:
            node_table += [K.TANK, b.floats(node.tank_pressure)]
        elif kind is PressureSource:
            node_table += [K.SOURCE, b.signal(node.pressure_signal)]
        else:
            raise ModelError(f"circuit '{circuit.name}': node '{node.name}' ({type(node).__name__}) is a node of "
                             "your own; nodes are Volume, Tank or PressureSource (a user's component may add "
                             "chambers to a Volume)")
    volumes = circuit.volumes
    records, gaps = _component_records(circuit, volumes, b)
    body = node_table + list(itertools.chain.from_iterable(b.signal_records + records))
    n_aux = 2 * len(volumes)
    ipar = np.array([circuit.n_states, len(circuit.measurements), len(b.signals), n_aux, len(nodes), len(records),
                     K.HEAD + len(body), max(len(b.fpar), 1), len(names), len(gaps), len(b.slots),
                     len(b.signal_records)] + body, dtype=np.int64)
    compiled = CompiledCircuit(np.array(b.fpar or [0.0], dtype=float), ipar, b.signals, n_aux, names, gaps, b)
    return compiled, compiled.reason(circuit.name)


def _output_names(circuit, b: _Builder) -> list[str]:
    """The names of ``Circuit.outputs`` (each component's ``output_units``, in circuit order); notes each
    component's first output in ``b``. Those of a finalised circuit's layout (``Circuit.output_units``), else read
    here."""
    found, first = getattr(circuit, "_output_names", None), getattr(circuit, "_output_first", None)
    if found is not None and first is not None and len(first) == len(circuit.components):
        b.first_output.update(zip(map(id, circuit.components), first))
        return list(found)
    names = []
    for comp in circuit.components:
        b.first_output[id(comp)] = len(names)
        names += [f"{comp.name}.{key}" for key in comp.output_units()]
    return names


def _component_records(circuit, volumes: list, b: _Builder) -> tuple[list, list]:
    """The component records (flows and chambers first, then the volumes (``circuit.volumes``), then the tank and
    source outputs) and the gap names; a user's component goes to ``b.components`` (its signals laid out)."""
    records, late = [], []
    first = b.first_output
    for comp in circuit.components:
        kind = kernel_kind(comp)
        if isinstance(comp, Signal):
            records.append([K.SIGNAL_OUT, b.signal(comp), first[id(comp)]])
        elif kind in (Tank, PressureSource):  # after every flow is in
            late.append([K.NODE_OUT, b.number[id(comp)], first[id(comp)]])
        elif kind is None:
            for sig in comp.signals():
                b.signal(sig)
            b.components.append(comp)
        elif kind is not Volume:
            records.append(_record(comp, kind, b, first[id(comp)]))
    for k, volume in enumerate(volumes):  # after the flows and chambers: the order of Circuit.integrands
        f = b.floats(volume.cavitation_pressure, volume.cavitation_width, volume.cavitation_conductance,
                     volume.fixed_volume, sum(v / m for v, m in volume.subvolumes if math.isfinite(m)),
                     volume.min_volume, *_fluid(volume.fluid))
        records.append([K.VOLUME_RATE, b.number[id(volume)], volume.state_offset, f, 2 * k, first[id(volume)]])
    records += late
    for rec in records:  # the length after the kind: [kind, length, fields...]
        rec.insert(1, len(rec) + 1)
    return records, b.gaps


def _fluid(fluid) -> tuple:
    return fluid.bulk_modulus, fluid.air_fraction, fluid.polytropic_index, fluid.air_reference_pressure


def _k(comp, area) -> float:
    """``C_d A sqrt(2/rho)`` of a component (:func:`hydraulics.orifices.flow_coefficient`)."""
    return flow_coefficient(area, comp.discharge_coefficient, comp.density)


def _record(comp, kind, b: _Builder, out) -> list:
    """The ipar record of one component without its length (kind, fields..., first output)."""
    if kind is DirectionalValve:
        return _valve_record(comp, b, out)
    if kind is Cylinder:
        return _cylinder_record(comp, b, out)
    ports = b.ports(comp)
    if kind is Orifice or kind is Throttle:
        cubic = {"cubic": 1, "linear": 0}[comp.transition]
        if kind is Throttle:
            return [K.THROTTLE, *ports, -1, cubic, b.floats(comp.flow_coefficient, comp.transition_pressure), out]
        return [K.ORIFICE, *ports, b.signal(comp.area), cubic, b.floats(_k(comp, 1.0), comp.transition_pressure), out]
    if kind is CheckValve:
        return [K.CHECK, *ports, b.floats(comp.cracking_pressure, comp.opening_pressure_range, comp.leakage_fraction,
                                          _k(comp, comp.max_area), comp.transition_pressure), out]
    if kind is ReliefValve:
        tau = comp.time_constant
        return [K.RELIEF, *ports, comp.state_offset if tau else -1,
                b.floats(comp.cracking_pressure, comp.width, comp.flow_gain, tau or 1.0), out]
    if kind is HydraulicMotor:
        fric_code, law = _law(comp, "motor")  # fpar: D_r, C_i, the friction law (6)
        f = b.floats(comp.radial_displacement, comp.internal_leakage, *law)
        return [K.MOTOR, *ports, b.circuit.measurement_index(comp.measurement), fric_code, f, out]
    if kind is Pipe:
        return [K.PIPE, *ports, comp.state_offset, b.floats(*comp.loss_factors(), comp.inertance), out]
    if kind is Cushion:
        cyl = comp.cylinder
        k = _k(comp, 1.0)
        f = b.floats(k, cyl.retracted_length, k * comp.bypass_area, comp.bypass_cracking, comp.transition_pressure)
        return [K.CUSHION, *ports, b.circuit.measurement_index(cyl.measurement), len(comp.positions),
                b.floats(*comp.positions, *comp.areas), f, out]
    if kind is ShuttleValve:
        return [K.SHUTTLE, *ports, b.floats(_k(comp, comp.max_area), comp.switching_range, comp.transition_pressure),
                out]
    if kind is VariableDisplacementPump:  # [S, P, LS or -1, ...]
        f = b.floats(comp.displacement, comp.compensator_pressure, comp.margin_pressure or 0.0,
                     comp.regulation_band, comp.time_constant, comp.leakage_conductance)
        return [K.PUMP, *(ports + [-1])[:3], comp.state_offset, b.signal(comp.speed), f, out]
    if kind in _PILOTS:
        return _pilot_record(comp, kind, b, out, ports)
    if kind is FixedDisplacementPump:
        relief = comp.relief_pressure is not None
        f = b.floats(comp.displacement, comp.leakage_conductance, comp.relief_pressure if relief else 0.0,
                     comp.relief_gain, comp.relief_width)
        return [K.FIXED_PUMP, *ports, b.signal(comp.speed), int(relief), f, out]
    if kind is GasAccumulator:
        f = b.floats(comp.gas_volume, comp.polytropic_index, comp.precharge, comp.closing_volume,
                     comp.switching_pressure, _k(comp, comp.port_area), comp.transition_pressure)
        return [K.ACCUMULATOR, *ports, comp.state_offset, f, out]
    raise AssertionError(kind)  # pragma: no cover - every kind of _KINDS has a record


def _pilot_record(comp, kind, b: _Builder, out, ports) -> list:
    """PressureCompensator, PressureReducingValve, CounterbalanceValve, PilotOperatedCheckValve."""
    setting = {PressureCompensator: "pressure_difference", PressureReducingValve: "set_pressure"}.get(
        kind, "cracking_pressure")
    check = ((_k(comp, comp.check_area), comp.check_cracking, comp.check_opening_range)
             if kind is CounterbalanceValve else (0.0, 0.0, 1.0))
    tau = comp.time_constant
    f = b.floats(_k(comp, comp.max_area), comp.leakage_fraction, comp.opening_range, tau or 1.0,
                 comp.transition_pressure, getattr(comp, setting), getattr(comp, "pilot_ratio", 0.0), *check)
    return [K.PILOT, _PILOTS[kind], *ports, comp.state_offset if tau is not None else -1, f, out]


def _valve_record(comp, b: _Builder, out) -> list:
    spool = comp.spool
    if spool is not None and type(spool) not in (FirstOrderSpool, SecondOrderSpool):
        raise ModelError(f"valve '{comp.name}': spool {type(spool).__name__} has no kernel; use FirstOrderSpool or "
                         "SecondOrderSpool, or write the valve as your own component (docs/element-protocol.md)")
    extra = () if spool is None else ((spool.time_constant, 0.0) if type(spool) is FirstOrderSpool
                                      else (spool.natural_frequency, spool.damping_ratio))
    f = b.floats(_k(comp, comp.max_area), comp.transition_pressure, *extra)
    paths, keys = [], list(comp.output_units())
    for path in comp.paths:
        xs = b.arrays(path.positions, path.fractions)
        paths += [b.number[id(comp.nodes[path.from_port])], b.number[id(comp.nodes[path.to_port])],
                  len(path.positions), xs, out + keys.index(f"flow_{path.from_port}{path.to_port}")]
    order = 0 if spool is None else (1 if type(spool) is FirstOrderSpool else 2)
    return [K.VALVE, len(comp.paths), b.signal(comp.command), comp.state_offset if spool is not None else -1,
            {"cubic": 1, "linear": 0}[comp.transition], f, *paths, order, out, out + len(keys) - 1]


_LAWS = {type(None): (0, ()), **{law: (code, law.PARAMETERS) for code, law in
                                  enumerate((CoulombViscousFriction, BrownMcPheeFriction, StribeckFriction), 1)}}


def _law(comp, what: str) -> tuple[int, list]:
    """The friction law's code and its six parameters (:func:`hydraulics.kernel._friction`)."""
    fric = comp.friction
    if type(fric) not in _LAWS:
        raise ModelError(f"{what} '{comp.name}': friction law {type(fric).__name__} has no kernel; use "
                         "CoulombViscousFriction, BrownMcPheeFriction or StribeckFriction, or write the "
                         f"{what} as your own component (docs/element-protocol.md)")
    fric_code, names = _LAWS[type(fric)]
    return fric_code, [float(getattr(fric, name)) for name in names] + [1.0] * (6 - len(names))


def _cylinder_record(comp, b: _Builder, out) -> list:
    """[A, B or -1, y index, friction, f, out, first gap or -1]: its end stops as two event gaps (none without
    stops)."""
    fric_code, law = _law(comp, "cylinder")
    iy = b.circuit.measurement_index(comp.measurement)
    f = b.floats(comp.piston_area, comp.rod_side_area, comp.stroke, comp.retracted_length, comp.dead_volume_a,
                 comp.dead_volume_b, comp.wall_bulk_modulus, comp.stop_stiffness, comp.stop_damping,
                 comp.stop_damping_depth, *law)
    stops = comp.stop_stiffness != 0.0 or comp.stop_damping != 0.0
    gap = len(b.gaps) if stops else -1
    if stops:
        b.gaps += [f"{comp.name}.retracted_stop", f"{comp.name}.extended_stop"]
    return [K.CYLINDER, *(b.ports(comp) + [-1])[:2], iy, fric_code, f, out, gap]
