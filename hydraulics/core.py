"""Building blocks of a circuit: the evaluation point and the component base classes.

Every quantity a component computes is a pair ``(value, gradient)``, where the gradient is a dense vector over
the circuit's variables ``w = [z, y, ydot]`` (states, measurements, measurement rates). Components write their
equation and its chain-rule derivative side by side (the Hopsan lesson of STYLE.md), the scalar laws taken from
:mod:`hydraulics.compiled_laws`. A circuit the compiled kernel covers is evaluated by the kernel, its Jacobian by
differences of it; for any other circuit (a user's component or signal) the circuit stacks these gradients into the
Jacobian of the state-element protocol (docs/element-protocol.md).
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError


_MISSING = object()
_UNIT_ROWS: dict = {}


def _unit_rows(n: int) -> list:
    """Read-only unit gradients ``e_0 … e_{n-1}`` and the zero gradient (last), shape (n,) each, built once per n:
    the evaluation asks for them tens of times per point."""
    rows = _UNIT_ROWS.get(n)
    if rows is None:
        table = np.vstack([np.eye(n), np.zeros((1, n))])
        table.setflags(write=False)
        rows = _UNIT_ROWS[n] = list(table)
    return rows


class Evaluation:
    """One evaluation point ``(t, z, y, ydot)`` of a circuit, with cached node pressures and signals.

    Parameters
    ----------
    circuit : hydraulics.Circuit
    t : float, s
    z : ndarray, shape (n_z,)
        Circuit states.
    y, ydot : ndarray, shape (n_y,)
        Measurements and their time derivatives (SI units of each measurement).
    """

    def __init__(self, circuit, t: float, z, y, ydot):
        self.circuit = circuit
        self.t = float(t)
        self.z = np.asarray(z, dtype=float)
        self.y = np.asarray(y, dtype=float).reshape(-1)
        self.ydot = np.asarray(ydot, dtype=float).reshape(-1)
        self.n_z = self.z.size
        self.n_y = self.y.size
        self.n_w = self.n_z + 2 * self.n_y
        self._cache: dict = {}
        self._busy: set = set()
        self.inflow: dict = {}     # id(node) -> (net inflow, gradient), filled by the circuit
        self.chamber_map: dict = {}  # id(node) -> chamber tuples of attached cylinders, filled by the circuit
        self.fill = None  # set by a kernel evaluation: fills inflow and chamber_map (component methods) when first read
        self.kernel = None  # a kernel evaluation: (compiled circuit, time signals, integrands, outputs)
        self.differentiate = None  # a kernel evaluation: sets d_rates and d_forces when first read
        self._blocks = [None, None]

    @property
    def d_rates(self) -> np.ndarray:
        """``∂rates/∂w``, shape (n_z, n_w)."""
        if self._blocks[0] is None and self.differentiate is not None:
            self.differentiate(self)
        return self._blocks[0]

    @d_rates.setter
    def d_rates(self, value) -> None:
        self._blocks[0] = value

    @property
    def d_forces(self) -> np.ndarray:
        """``∂forces/∂w``, shape (n_y, n_w)."""
        if self._blocks[1] is None and self.differentiate is not None:
            self.differentiate(self)
        return self._blocks[1]

    @d_forces.setter
    def d_forces(self, value) -> None:
        self._blocks[1] = value

    def node_inflow(self, node) -> tuple[float, np.ndarray]:
        """Net flow from all connected components into a node, m^3/s, and its gradient."""
        if self.fill is not None:
            self._fill()
        return self.inflow.get(id(node), (0.0, self.zero()))

    def node_chambers(self, node) -> list:
        """Cylinder chambers attached to a node: ``(port, V, dV, Vdot, dVdot, wall_bulk_modulus)``."""
        if self.fill is not None:
            self._fill()
        return self.chamber_map.get(id(node), [])

    def _fill(self) -> None:
        fill, self.fill = self.fill, None
        fill(self)

    def zero(self) -> np.ndarray:
        """A zero gradient, shape (n_w,); shared and read-only (combine gradients with ``+``, ``*``, not in place)."""
        return _unit_rows(self.n_w)[self.n_w]

    def unit(self, index: int) -> np.ndarray:
        """The gradient of the variable at ``index`` of ``w``; shared and read-only like :meth:`zero`."""
        return _unit_rows(self.n_w)[index]

    def state(self, index: int) -> tuple[float, np.ndarray]:
        """State ``z[index]`` and its gradient."""
        return float(self.z[index]), self.unit(index)

    def measurement(self, measurement) -> tuple[float, np.ndarray]:
        """Value ``y_k`` of a measurement object and its gradient."""
        k = self.circuit.measurement_index(measurement)
        return float(self.y[k]), self.unit(self.n_z + k)

    def measurement_rate(self, measurement) -> tuple[float, np.ndarray]:
        """Rate ``ydot_k`` of a measurement object and its gradient."""
        k = self.circuit.measurement_index(measurement)
        return float(self.ydot[k]), self.unit(self.n_z + self.n_y + k)

    def cached(self, key, compute):
        """Evaluate ``compute(self)`` once per evaluation point; detect algebraic loops."""
        found = self._cache.get(key, _MISSING)
        if found is not _MISSING:
            return found
        if key in self._busy:
            raise ModelError(f"algebraic loop through '{getattr(key, 'name', key)}': "
                             "break it with a state (a filter, a spool lag or a PID)")
        self._busy.add(key)
        try:
            result = compute(self)
        finally:
            self._busy.discard(key)
        self._cache[key] = result
        return result

    def pressure(self, node) -> tuple[float, np.ndarray]:
        """Pressure of a node (Pa, gauge) and its gradient."""
        return self.cached(node, node.pressure)

    def signal(self, signal) -> tuple[float, np.ndarray]:
        """Value of a signal and its gradient."""
        return self.cached(signal, signal.evaluate)


class Component:
    """Base of every circuit component: a name, named ports, own states.

    Subclasses set ``ports`` (names of hydraulic ports), ``state_names`` and ``state_units`` and override the
    hooks below. The circuit assigns ``state_offset`` (index of the first own state in ``z``) and ``nodes``
    (port name -> node) when it is finalised.
    """

    ports: tuple[str, ...] = ()
    state_names: tuple[str, ...] = ()
    state_units: tuple[str, ...] = ()

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

    def own_state(self, ev: Evaluation, k: int = 0) -> tuple[float, np.ndarray]:
        """The own state number ``k`` at an evaluation point."""
        return ev.state(self.state_offset + k)

    def state_rates(self, ev: Evaluation) -> list[tuple[float, np.ndarray]]:
        """Time derivatives of the own states (value, gradient) in the order of ``state_names``."""
        return []

    # -- hydraulic coupling -----------------------------------------------------------------------------------
    def port_flows(self, ev: Evaluation) -> dict[str, tuple[float, np.ndarray]]:
        """Volume flow from this component into the node at each port, m^3/s."""
        return {}

    def chambers(self, ev: Evaluation) -> list:
        """Fluid chambers this component adds to nodes: ``(port, V, dV, Vdot, dVdot, wall_bulk_modulus)``."""
        return []

    def forces(self, ev: Evaluation) -> list:
        """Generalized forces on measurements: ``(measurement, value, gradient)``."""
        return []

    def signals(self) -> list:
        """Signals this component reads (commands, set-points); the circuit registers them."""
        return []

    def measurements(self) -> list:
        """Measurement objects this component reads (flexmbs measurements or prescribed inputs)."""
        return []

    def outputs(self, ev: Evaluation) -> dict[str, tuple[float, str]]:
        """Named output signals ``{quantity: (value, unit)}``; the circuit prefixes the component name."""
        return {}

    def check(self) -> None:
        """Raise :class:`fem.errors.ModelError` if the parameters are not physical."""

    def node(self, port: str):
        """The node connected at ``port``."""
        return self.nodes[port]

    def port_pressure(self, ev: Evaluation, port: str) -> tuple[float, np.ndarray]:
        """Pressure at a port (Pa) and its gradient."""
        return ev.pressure(self.nodes[port])

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Node(Component):
    """A hydraulic node: a point of uniform pressure that flow elements connect to."""

    def pressure(self, ev: Evaluation) -> tuple[float, np.ndarray]:  # pragma: no cover - abstract
        raise NotImplementedError


class Signal(Component):
    """A scalar control signal (command, sensor, controller output) with value and gradient."""

    unit: str = "1"

    def evaluate(self, ev: Evaluation) -> tuple[float, np.ndarray]:  # pragma: no cover - abstract
        raise NotImplementedError

    def inputs(self) -> list:
        """Signals this signal reads (the circuit registers them too)."""
        return []

    def outputs(self, ev: Evaluation) -> dict[str, tuple[float, str]]:
        return {"value": (ev.signal(self)[0], self.unit)}


def positive(owner: str, **values: float) -> None:
    """Raise ModelError unless each named value is a positive number (inf allowed)."""
    for key, value in values.items():
        _number(owner, key, value)
        if np.isnan(value) or value <= 0.0:
            raise ModelError(f"'{owner}': {key} must be positive, got {value}")


def finite(owner: str, unit: str, **values: float) -> None:
    """Raise ModelError unless each named value is a finite number (issue 43: a volume or a stroke of inf ran)."""
    for key, value in values.items():
        _number(owner, key, value)
        if not np.isfinite(value):
            raise ModelError(f"'{owner}': {key} must be a finite number in {unit}, got {value}")


def non_negative(owner: str, **values: float) -> None:
    """Raise ModelError unless each named value is a non-negative number."""
    for key, value in values.items():
        _number(owner, key, value)
        if np.isnan(value) or value < 0.0:
            raise ModelError(f"'{owner}': {key} must not be negative, got {value}")


def _number(owner: str, key: str, value) -> None:
    """A number, not text or None (issue 43: ``Volume('V', '1e-3')`` raised a TypeError from numpy)."""
    if isinstance(value, (str, bytes, bool)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ModelError(f"'{owner}': {key} must be a number (SI units), got {value!r} ({type(value).__name__})")
