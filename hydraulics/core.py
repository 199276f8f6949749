"""Building blocks of a circuit: the evaluation point and the component base classes.

The built-in components' laws live in the compiled circuit kernel (:mod:`hydraulics.kernel`); their classes hold
parameters, ports, states and the names and units of their outputs. A user's component or signal writes the hooks
of :data:`HOOKS` (values at an :class:`Evaluation`, floats in and out) and is a Python callback of the compiled
circuit (docs/element-protocol.md, "A hydraulic component in Python"; docs/hydraulics.md).
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError

#: The hooks a user's component or signal writes (a class that defines one is evaluated as a Python callback).
HOOKS = ("port_flows", "chambers", "state_rates", "forces", "evaluate", "outputs")


def _block(k: int, doc: str) -> property:
    """A Jacobian block of :class:`Evaluation`, differentiated when first read."""
    def read(self) -> np.ndarray:
        if self._blocks[k] is None and self.differentiate is not None:
            self.differentiate(self)
        return self._blocks[k]

    def write(self, value) -> None:
        self._blocks[k] = value

    return property(read, write, doc=doc)


class Evaluation:
    """One evaluation point ``(t, z, y, ydot)`` of a circuit: what a user's component or signal reads (values).

    Parameters
    ----------
    circuit : hydraulics.Circuit
    t : float, s
    z : ndarray, shape (n_z,)
        Circuit states.
    y, ydot : ndarray, shape (n_y,)
        Measurements and their time derivatives (SI units of each measurement).
    compiled : hydraulics.layout.CompiledCircuit, optional
        The compiled circuit whose node pressures and signal slots the circuit sets here.
    """

    def __init__(self, circuit, t: float, z, y, ydot, compiled=None):
        self.circuit = circuit
        self.t = float(t)
        self.z = np.asarray(z, dtype=float)
        self.y = np.asarray(y, dtype=float).reshape(-1)
        self.ydot = np.asarray(ydot, dtype=float).reshape(-1)
        self.n_z = self.z.size
        self.n_y = self.y.size
        self.n_w = self.n_z + 2 * self.n_y
        self._p = self._sv = None  # (the circuit sets them)
        self._compiled = compiled
        self.rates = self.forces = None
        self.kernel = None  # (compiled circuit, time signals, integrands, outputs)
        self.differentiate = None  # sets d_rates and d_forces when first read
        self._blocks = [None, None]

    d_rates = _block(0, "``∂rates/∂w``, shape (n_z, n_w), ``w = [z, y, ydot]``.")
    d_forces = _block(1, "``∂forces/∂w``, shape (n_y, n_w).")

    def state(self, index: int) -> float:
        """State ``z[index]``."""
        return float(self.z[index])

    def measurement(self, measurement) -> float:
        """Value ``y_k`` of a measurement object (its SI unit)."""
        return float(self.y[self.circuit.measurement_index(measurement)])

    def measurement_rate(self, measurement) -> float:
        """Rate ``ydot_k`` of a measurement object."""
        return float(self.ydot[self.circuit.measurement_index(measurement)])

    def pressure(self, node) -> float:
        """Pressure of a node, Pa (gauge); a pressure source's is its signal's value."""
        slot = self._compiled.source_slots.get(id(node))
        if slot is not None and self._sv is not None:
            return float(self._sv[slot])
        return float(self._p[self._compiled.node_numbers[id(node)]])

    def signal(self, signal) -> float:
        """Value of a signal (its inputs come before it: a user's signal reads the values of those it names in
        ``inputs``)."""
        return float(self._sv[self._compiled.signal_slots[id(signal)]])


class Component:
    """Base of every circuit component: a name, named ports, own states.

    Subclasses set ``ports`` (names of hydraulic ports), ``state_names``, ``state_units`` and the attributes that
    hold the signals and measurements they read (``SIGNALS``, ``MEASUREMENTS``). The circuit assigns
    ``state_offset`` (index of the first own state in ``z``) and ``nodes`` (port name -> node) when it is
    finalised. A user's component writes the hooks ``port_flows``, ``chambers``, ``state_rates``, ``forces``,
    ``outputs`` it needs (values at an :class:`Evaluation`, listed below); the built-in ones have none (their laws
    are in the compiled kernel).
    """

    ports: tuple[str, ...] = ()
    state_names: tuple[str, ...] = ()
    state_units: tuple[str, ...] = ()
    OUTPUT_UNITS: dict = {}  # a built-in kind's outputs (name -> SI unit), in the order its kernel writes them
    SIGNALS: tuple[str, ...] = ()  # the attributes that hold the signals it reads (signals())
    MEASUREMENTS: tuple[str, ...] = ()  # the attributes that hold the measurements it reads (measurements())

    def __init__(self, name: str):
        if not isinstance(name, str) or not name:
            raise ModelError("every hydraulic component needs a non-empty name")
        self.name = name
        self.state_offset = 0
        self.nodes: dict = {}
        self._initial: dict[str, float] = {}

    # -- states -----------------------------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        """Initial values of the own states, shape (len(state_names),)."""
        return np.array([self._initial.get(n, 0.0) for n in self.state_names], dtype=float)

    def set_initial(self, state_name: str, value: float) -> None:
        """Set the initial value of one own state (SI unit of that state)."""
        if state_name not in self.state_names:
            raise ModelError(f"'{self.name}' has no state '{state_name}'; its states are {list(self.state_names)}")
        self._initial[state_name] = float(value)

    def own_state(self, ev: Evaluation, k: int = 0) -> float:
        """The own state number ``k`` at an evaluation point."""
        return ev.state(self.state_offset + k)

    # -- what the circuit needs of every component ------------------------------------------------------------
    def signals(self) -> list:
        """Signals this component reads (commands, set-points); the circuit registers them."""
        return [getattr(self, name) for name in self.SIGNALS]

    def measurements(self) -> list:
        """Measurement objects this component reads (flexmbs measurements or prescribed inputs)."""
        return [getattr(self, name) for name in self.MEASUREMENTS]

    def output_units(self) -> dict[str, str]:
        """Names and SI units of the outputs, in the order the outputs are written (``Circuit.outputs`` prefixes
        the component name)."""
        return dict(self.OUTPUT_UNITS)

    def check(self) -> None:
        """Raise :class:`fem.errors.ModelError` if the parameters are not physical."""

    def node(self, port: str):
        """The node connected at ``port``."""
        return self.nodes[port]

    def port_pressure(self, ev: Evaluation, port: str) -> float:
        """Pressure at a port, Pa."""
        return ev.pressure(self.nodes[port])

    # -- the hooks of a user's component (Python callbacks; values only) ----------------------------------------
    # port_flows(ev) -> {port: flow into the node at that port, m^3/s}
    # chambers(ev) -> [(port, volume m^3, volume rate m^3/s, wall bulk modulus Pa)]: volumes joining the nodes
    # state_rates(ev) -> [rate of each own state]
    # forces(ev) -> [(measurement, force conjugate to it)]
    # outputs(ev) -> {name: value} for the names of output_units()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Node(Component):
    """A hydraulic node: a point of uniform pressure that flow elements connect to (Volume, Tank,
    PressureSource)."""


class Signal(Component):
    """A scalar control signal (command, sensor, controller output). A user's signal writes
    ``evaluate(ev) -> value`` (and ``state_rates``, ``outputs`` if it has states or more outputs)."""

    unit: str = "1"
    INPUTS: tuple[str, ...] = ()  # the attributes that hold the signals it reads (inputs())

    def __init__(self, name: str, unit: str | None = None):
        super().__init__(name)
        if unit is not None:  # else the class's
            self.unit = unit

    def inputs(self) -> list:
        """Signals this signal reads (the circuit registers them and evaluates them first)."""
        return [getattr(self, name) for name in self.INPUTS]

    def evaluate(self, ev: Evaluation) -> float:
        """The value: a built-in signal's comes from the kernel (its slot); a user's signal writes its own law here.
        Replaced on an instance (an input offset), the replacement reads the kernel's value through this."""
        return ev.signal(self)

    def output_units(self) -> dict[str, str]:
        return {"value": self.unit}


def positive(owner: str, **values: float) -> None:
    """Raise ModelError unless each named value is a positive number (inf allowed)."""
    _check(owner, values, lambda v: np.isnan(v) or v <= 0.0, "be positive")


def finite(owner: str, unit: str, **values: float) -> None:
    """Raise ModelError unless each named value is a finite number (issue 43: a volume or a stroke of inf ran)."""
    _check(owner, values, lambda v: not np.isfinite(v), f"be a finite number in {unit}")


def non_negative(owner: str, **values: float) -> None:
    """Raise ModelError unless each named value is a non-negative number."""
    _check(owner, values, lambda v: np.isnan(v) or v < 0.0, "not be negative")


def store(obj, check, owner: str, **values: float) -> None:
    """``check(owner, **values)`` (:func:`positive` or :func:`non_negative`), then each value as a float attribute
    of ``obj`` by its name."""
    check(owner, **values)
    for key, value in values.items():
        setattr(obj, key, float(value))


def _check(owner: str, values: dict, bad, must: str) -> None:
    """Raise ModelError for the first value that is not a number or is ``bad``: "KEY must MUST"."""
    for key, value in values.items():
        _number(owner, key, value)
        if bad(value):
            raise ModelError(f"'{owner}': {key} must {must}, got {value}")


def _number(owner: str, key: str, value) -> None:
    """A number, not text or None (issue 43: ``Volume('V', '1e-3')`` raised a TypeError from numpy)."""
    if isinstance(value, (str, bytes, bool)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ModelError(f"'{owner}': {key} must be a number (SI units), got {value!r} ({type(value).__name__})")
