"""The circuit: components, connections, state layout, and the state-element protocol (docs/element-protocol.md).

A :class:`Circuit` owns the states ``z`` (pressures, spool positions, line flows, controller states), reads the
measurements ``y`` of its cylinders and sensors, and returns ``zdot = g(t, z, y, ydot)``, the forces
``f(t, z, y, ydot)`` conjugate to ``y`` and their Jacobians: its compiled kernel (:mod:`hydraulics.kernel`) and
central differences of it, with a user's components and signals (or a signal whose ``evaluate`` was replaced on
the instance, as ``flexmbs.linearize`` offsets an input) as Python callbacks between the kernel's pieces
(docs/hydraulics.md, "A component of your own"). The kernel's arrays are read from the components at the first
evaluation and at every multibody run (:meth:`Circuit.compiled_element`); after changing a parameter of a circuit
already evaluated, call :meth:`Circuit.refresh`.
"""
from __future__ import annotations

import numpy as np

from fem.errors import ModelError
from fem.scalar_laws import interp

from .kernel import (HEAD, circuit_components, circuit_eval, circuit_gaps, circuit_jacobian,
                              node_pressures, source_pressures)
from .signal_kernels import eval_signals
from .core import Component, Evaluation, Node, Signal
from .cylinder import Cylinder
from .fluid import HLP46, Fluid
from .layout import compile_circuit
from .nodes import Volume
from .plausibility import circuit_plausibility

#: Oil added by the cavitation floor or the minimum-volume guard of a node is reported as a warning above this
#: fraction of the node's initial volume: 1e-3 of the volume, compressed into it, is a pressure change of
#: B·1e-3 ≈ 15 bar at B = 1.5 GPa (an error no longer small against working pressures).
ADDED_OIL_FRACTION = 1.0e-3
#: Floors of the difference steps of the Jacobian by unit (step ``1e-7 max(|w_j|, floor)``).
_STEP_FLOOR = {"Pa": 1e5, "m^3/s": 1e-5, "m^3": 1e-5, "1": 1.0}


class Circuit:
    """A hydraulic circuit with controllers, usable alone or as a state element of a flexmbs model.

    Parameters
    ----------
    name : str
    fluid : Fluid
        Fluid of every volume that does not set its own (default HLP46, seed 003 §3.2.2.1).

    Examples
    --------
    >>> from hydraulics import Circuit, Volume, Tank, PressureSource, Orifice
    >>> c = Circuit("demo")
    >>> c.add(PressureSource("P", 100e5)); c.add(Tank("T")); c.add(Volume("V", 1e-4))
    >>> c.add(Orifice("in", 1e-6), A="P", B="V"); c.add(Orifice("out", 1e-6), A="V", B="T")
    """

    def __init__(self, name: str = "circuit", fluid: Fluid = HLP46):
        if not isinstance(name, str) or not name.strip():  # issue 43: None was accepted
            raise ModelError(f"a circuit's name must be non-empty text, got {name!r}")
        self.name = name
        self.fluid = fluid
        self.components: list[Component] = []
        self._by_name: dict[str, Component] = {}
        self._connections: dict[tuple[str, str], str] = {}
        self._final = False

    # -- building ---------------------------------------------------------------------------------------------
    def add(self, component: Component, **connections: str) -> Component:
        """Add a component; keyword arguments connect its ports to nodes by name (``A="node"``)."""
        if self._final:
            raise ModelError(f"circuit '{self.name}' is already in use; add components before simulating")
        if not isinstance(component, Component):
            raise ModelError(f"circuit '{self.name}': cannot add {component!r}, expected a hydraulic component")
        if component.name in self._by_name:
            raise ModelError(f"circuit '{self.name}': a component named '{component.name}' exists already")
        self.components.append(component)
        self._by_name[component.name] = component
        for port, node in connections.items():
            self.connect(f"{component.name}.{port}", node)
        return component

    def connect(self, port: str, node: str) -> None:
        """Connect ``"component.port"`` to the node named ``node``."""
        owner, _, port_name = port.rpartition(".")
        component = self._by_name.get(owner)
        if component is None:
            raise ModelError(f"circuit '{self.name}': no component '{owner}' (in '{port}'); add it first")
        if port_name not in component.ports:
            raise ModelError(f"'{owner}' has no port '{port_name}'; its ports are {list(component.ports)}")
        self._connections[(owner, port_name)] = node

    def node(self, name: str) -> Node:
        """The node (Volume, Tank, PressureSource) with that name."""
        node = self._by_name.get(name)
        if not isinstance(node, Node):
            raise ModelError(f"circuit '{self.name}': no node named '{name}'; add a Volume, Tank or PressureSource")
        return node

    def component(self, name: str) -> Component:
        """The component with that name."""
        if name not in self._by_name:
            raise ModelError(f"circuit '{self.name}': no component named '{name}'")
        return self._by_name[name]

    # -- finalising -------------------------------------------------------------------------------------------
    def finalize(self) -> "Circuit":
        """Check connections and parameters, register signals and measurements, lay out the states."""
        if self._final:
            return self
        self._resolve_ports()
        self._collect_signals()
        self._check_volumes()
        self._layout()
        self._signal_list = [c for c in self.components if isinstance(c, Signal)]
        self._compiled = None
        self._final = True
        try:  # a loop of signals, a node or a law without kernel is refused here; the arrays are read at first use
            self._kernel()
        except ModelError:
            self._final = False
            raise
        self._compiled = None
        return self

    def _resolve_ports(self):
        for comp in list(self.components):
            comp.nodes = {}
            for port in comp.ports:
                node_name = self._connections.get((comp.name, port))
                if node_name is None:
                    raise ModelError(f"circuit '{self.name}': port '{comp.name}.{port}' is not connected; "
                                     f"connect it with circuit.connect('{comp.name}.{port}', NODE)")
                comp.nodes[port] = self.node(node_name)
            if hasattr(comp, "density") and comp.density is None:
                comp.density = self.fluid.density
            if hasattr(comp, "fluid") and getattr(comp, "fluid") is None:
                comp.fluid = self.fluid
            comp.check()

    def _collect_signals(self):
        pending = [s for comp in self.components for s in comp.signals()]
        pending += [s for comp in self.components if isinstance(comp, Signal) for s in comp.inputs()]  # added ones
        while pending:
            sig = pending.pop()
            if isinstance(sig, Signal) and sig not in self.components:
                if sig.name in self._by_name and self._by_name[sig.name] is not sig:
                    sig.name = f"{sig.name}#{len(self.components)}"
                self.components.append(sig)
                self._by_name[sig.name] = sig
            pending.extend(s for s in sig.inputs() if s not in self.components)

    def _check_volumes(self):
        attached = {id(comp.nodes[port]) for comp in self.components for port in comp.ports}
        chamber_nodes = {id(node) for comp in self.components
                         if isinstance(comp, Cylinder) or hasattr(comp, "chambers") for node in comp.nodes.values()}
        for comp in self.components:
            if isinstance(comp, Volume):
                if comp.fixed_volume <= 0.0 and id(comp) not in chamber_nodes:
                    raise ModelError(f"volume '{comp.name}' has no compliance: give it volume=... (m^3) "
                                     "or connect a cylinder chamber to it")
                if id(comp) not in attached:
                    raise ModelError(f"volume '{comp.name}' is connected to nothing; connect a port to it or remove it")

    def _layout(self):
        offset = 0
        self._state_names, self._state_units = [], []
        for comp in self.components:
            comp.state_offset = offset
            offset += len(comp.state_names)
            self._state_names += [f"{comp.name}.{s}" for s in comp.state_names]
            self._state_units += list(comp.state_units)
        # the volumes and the integrals' names (read by the layout, the engine's plan, integrals and recorder)
        self._volumes = [c for c in self.components if isinstance(c, Volume)]
        self._integral_units = _oil_integrals(self._volumes)
        # each measurement once, in the order the components first read it
        self._measurements = list({id(m): m for comp in self.components for m in comp.measurements()}.values())
        self._measurement_ids = {id(m): k for k, m in enumerate(self._measurements)}
        # the outputs' names in circuit order and each component's first (compile_circuit lays the kernel's out by them)
        self._output_units, self._output_names, self._output_first = {}, [], []
        for comp in self.components:
            self._output_first.append(len(self._output_names))
            for key, unit in comp.output_units().items():
                name = f"{comp.name}.{key}"
                self._output_names.append(name)
                self._output_units[name] = unit

    # -- protocol attributes (available once the circuit is complete) ------------------------------------------
    @property
    def measurements(self) -> list:
        """Measurement objects read by the circuit, in the order of ``y``."""
        return self.finalize()._measurements

    @property
    def state_names(self) -> list[str]:
        """Names of the states ``z`` (``"component.state"``)."""
        return self.finalize()._state_names

    @property
    def state_units(self) -> list[str]:
        """SI unit of each state."""
        return self.finalize()._state_units

    @property
    def output_units(self) -> dict[str, str]:
        """SI unit of each output signal."""
        return self.finalize()._output_units

    @property
    def n_states(self) -> int:
        """Number of states ``n_z``."""
        return len(self.state_names)

    @property
    def volumes(self) -> list:
        """The Volume nodes (pressure states; read only)."""
        return self._volumes if self._final else [c for c in self.components if isinstance(c, Volume)]

    def __getstate__(self) -> dict:
        """Pickling / ``copy.deepcopy``: without the compiled arrays (their time signals may be lambdas) and the
        handed evaluation; both are rebuilt on use."""
        state = dict(self.__dict__)
        state.pop("_handed", None)
        if "_compiled" in state:
            state["_compiled"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        """Unpickling / ``copy.deepcopy``: the measurement lookup is keyed by object identity, which a copy changes;
        rebuilt from the copied measurement list (a copy keeps the objects shared with the components shared)."""
        self.__dict__.update(state)
        if "_measurements" in state:
            self._measurement_ids = {id(m): k for k, m in enumerate(self._measurements)}

    def measurement_index(self, measurement) -> int:
        """Index of a measurement object in ``y``."""
        try:
            return self._measurement_ids[id(measurement)]
        except KeyError:
            raise ModelError(f"circuit '{self.name}': measurement {measurement!r} is not read by any component"
                             ) from None

    # -- the state-element protocol ---------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        """Initial states, shape (n_z,)."""
        self.finalize()
        values, own = [], Component.initial_state
        for comp in self.components:  # (one array, not one per component: ≈ 1 µs a component at every run's start)
            if type(comp).initial_state is own:
                values += [comp._initial.get(n, 0.0) for n in comp.state_names] if comp.state_names else ()
            else:
                values += np.asarray(comp.initial_state(), dtype=float).reshape(-1).tolist()
        return np.array(values, dtype=float)

    def set_initial(self, state: str, value: float) -> None:
        """Set an initial value by full state name (``"A.pressure"``, ``"valve.spool"``), SI units."""
        owner, _, local = state.rpartition(".")
        self.component(owner).set_initial(local, value)

    def evaluate(self, t, z, y, ydot) -> Evaluation:
        """Evaluate every component at one point; returns the :class:`Evaluation` with rates and forces.

        The evaluation is also handed, once, to the next :meth:`rates`, :meth:`outputs` or :meth:`integrands` call at
        the same ``(t, z, y, ydot)`` (the multibody solver asks for forces, then rates of one point; the recorder for
        forces, then outputs). One-shot, so that a parameter or signal changed in place between two calls (the
        input offsets of flexmbs.linearize) is never served from an older evaluation."""
        self.finalize()
        z = np.array(z, dtype=float).reshape(-1)
        y = np.array(y, dtype=float).reshape(-1)
        ydot = np.array(ydot, dtype=float).reshape(-1)
        ev = self._evaluate(t, z, y, ydot)
        self._handed = ((float(t), z.tobytes(), y.tobytes(), ydot.tobytes()), ev)
        return ev

    def _reuse(self, t, z, y, ydot) -> Evaluation:
        """The evaluation handed on by the last :meth:`evaluate` if it was at this point (then dropped), else a
        fresh one (not handed on)."""
        handed, self._handed = getattr(self, "_handed", None), None
        if handed is not None:
            key = (float(t), np.asarray(z, dtype=float).tobytes(), np.asarray(y, dtype=float).reshape(-1).tobytes(),
                   np.asarray(ydot, dtype=float).reshape(-1).tobytes())
            if handed[0] == key:
                return handed[1]
        ev = self.evaluate(t, z, y, ydot)
        self._handed = None
        return ev

    def _evaluate(self, t, z, y, ydot, want: bool = True) -> Evaluation:
        """Rates and forces at one point by the compiled kernel, with the Python callbacks between its pieces."""
        compiled = self._kernel()
        ev = Evaluation(self, t, z, y, ydot, compiled=compiled)
        sig = np.array([data if kind == "constant" else (interp(ev.t, *data)[0] if kind == "table" else data(ev.t))
                        for kind, data in compiled.signals], dtype=float)
        rates, forces = np.zeros(ev.n_z), np.zeros(ev.n_y)
        aux, out = np.zeros(max(compiled.n_aux, 1)), np.zeros(max(len(compiled.output_names), 1))
        if compiled.has_callbacks:
            self._evaluate_callbacks(ev, compiled, sig, rates, forces, aux, out, want)
        else:  # the node pressures for a reader of ev.pressure
            ev._p = circuit_eval(ev.t, ev.z, ev.y, ev.ydot, sig, compiled.fpar, compiled.ipar, rates, forces, aux,
                                 out, want)[0]
        ev.rates, ev.forces, ev.kernel = rates, forces, (compiled, sig, aux, out)
        ev.differentiate = self._differentiate
        return ev

    @staticmethod
    def _evaluate_callbacks(ev, compiled, sig, rates, forces, aux, out, want) -> None:
        """The kernel in pieces with the user's signals and components (Python callbacks) between them."""
        fpar, ipar, t, z, y, ydot = compiled.fpar, compiled.ipar, ev.t, ev.z, ev.y, ev.ydot
        p = node_pressures(z, fpar, ipar)
        sv = np.zeros(max(ipar[10], 1))
        ev._p, ev._sv = p, sv
        r, done = HEAD + 2 * ipar[4], 0
        for number, signal, own_record in compiled.callback_signals:
            r = eval_signals(t, z, y, ydot, sig, fpar, ipar, r, number - done, p, sv, rates, out, want)
            if own_record:  # the kernel's value first (a replaced evaluate reads it)
                r = eval_signals(t, z, y, ydot, sig, fpar, ipar, r, 1, p, sv, rates, out, want)
            else:
                r += ipar[r + 1]
            sv[compiled.signal_slots[id(signal)]] = signal.evaluate(ev)
            done = number + 1
        r = eval_signals(t, z, y, ydot, sig, fpar, ipar, r, ipar[11] - done, p, sv, rates, out, want)
        source_pressures(ipar, p, sv)
        nodal = np.zeros((4, ipar[4]))
        callers = [s for _, s, own in compiled.callback_signals if not own] + compiled.callback_components
        for comp in callers:
            _call_back(ev, comp, compiled, nodal, rates, forces, out if want else None)
        circuit_components(r, p, sv, z, y, ydot, fpar, ipar, nodal, rates, forces, aux, out, want)

    def refresh(self) -> None:
        """Read the components' parameters into the kernel's arrays again (at the next evaluation)."""
        self._compiled = None
        self._handed = None

    def _kernel(self):
        """The compiled circuit (:func:`hydraulics.layout.compile_circuit`, built on first use and again
        when a signal's ``evaluate`` is replaced on the instance or given back)."""
        replaced = tuple(id(sig) for sig in self._signal_list if "evaluate" in vars(sig))
        if self._compiled is None or getattr(self, "_replaced", ()) != replaced:
            self._compiled, self._replaced = compile_circuit(self)[0], replaced
        return self._compiled

    def _steps(self, ev: Evaluation) -> np.ndarray:
        """Difference steps ``1e-7 max(|w_j|, floor)`` over ``w = [z, y, ydot]``, the floor by unit: 1e5 Pa, 1e-5
        m^3/s and m^3, 1 for fractions, 1e-2 otherwise."""
        floors = [_STEP_FLOOR.get(unit, 1e-2) for unit in self._state_units]
        floors += [_STEP_FLOOR.get(getattr(m, "unit", ""), 1e-2) for m in self._measurements] * 2
        w = np.concatenate((ev.z, ev.y, ev.ydot))
        return 1e-7 * np.maximum(np.abs(w), np.array(floors, dtype=float).reshape(-1))

    def _differentiate(self, ev: Evaluation) -> None:
        """``ev.d_rates``, ``ev.d_forces`` by central differences of the kernel (with its callbacks, if any)."""
        compiled, sig = ev.kernel[0], ev.kernel[1]
        steps = self._steps(ev)
        d_rates, d_forces = np.zeros((ev.n_z, ev.n_w)), np.zeros((ev.n_y, ev.n_w))
        if not compiled.has_callbacks:
            circuit_jacobian(ev.t, ev.z, ev.y, ev.ydot, sig, compiled.fpar, compiled.ipar, steps, d_rates, d_forces,
                             False)
        else:
            w, n_z, n_y = np.concatenate((ev.z, ev.y, ev.ydot)), ev.n_z, ev.n_y
            for j, h in enumerate(steps):
                sides = []
                for sign in (1.0, -1.0):
                    wj = w.copy()
                    wj[j] += sign * h
                    sides.append(self._evaluate(ev.t, wj[:n_z], wj[n_z:n_z + n_y], wj[n_z + n_y:], want=False))
                d_rates[:, j] = (sides[0].rates - sides[1].rates) / (2.0 * h)
                d_forces[:, j] = (sides[0].forces - sides[1].forces) / (2.0 * h)
        ev.d_rates, ev.d_forces = d_rates, d_forces

    def rates(self, t, z, y, ydot) -> np.ndarray:
        """``zdot``, shape (n_z,)."""
        return self._reuse(t, z, y, ydot).rates.copy()

    def forces(self, t, z, y, ydot) -> np.ndarray:
        """Forces conjugate to the measurements, shape (n_y,) (N for distances)."""
        return self.evaluate(t, z, y, ydot).forces.copy()

    def jacobians(self, t, z, y, ydot) -> dict[str, np.ndarray]:
        """Jacobian blocks ``rates_z, rates_y, rates_ydot, forces_z, forces_y, forces_ydot``: central differences of
        the compiled kernel (with its Python callbacks, if any)."""
        ev = self.evaluate(t, z, y, ydot)
        nz, ny = ev.n_z, ev.n_y
        blocks = {}
        for key, matrix in (("rates", ev.d_rates), ("forces", ev.d_forces)):
            blocks[f"{key}_z"] = matrix[:, :nz].copy()
            blocks[f"{key}_y"] = matrix[:, nz:nz + ny].copy()
            blocks[f"{key}_ydot"] = matrix[:, nz + ny:].copy()
        return blocks

    def event_gaps(self, t, z, y, ydot) -> dict[str, tuple[float, float]]:
        """Gap functions ``{component.gap: (g, ġ)}`` of the cylinders' end stops (``x`` and ``stroke - x`` with
        their rates; :func:`~hydraulics.kernel.circuit_gaps`) and of a user's components that write
        ``event_gaps(ev)``, for the event location of the multibody integrator (flexmbs.engine.events)."""
        compiled = self.finalize()._kernel()
        y, ydot = np.asarray(y, dtype=float).reshape(-1), np.asarray(ydot, dtype=float).reshape(-1)
        n = len(compiled.gap_names)
        gaps = np.zeros(2 * n)
        circuit_gaps(y, ydot, compiled.fpar, compiled.ipar, gaps)
        out = {name: (float(gaps[k]), float(gaps[n + k])) for k, name in enumerate(compiled.gap_names)}
        users = [c for c in compiled.callback_components if callable(getattr(c, "event_gaps", None))]
        if users:
            ev = self.evaluate(t, z, y, ydot)
            for comp in users:
                for key, (g, rate) in comp.event_gaps(ev).items():
                    out[f"{comp.name}.{key}"] = (float(g), float(rate))
        return out

    def outputs(self, t, z, y, ydot) -> dict[str, float]:
        """Named output signals (SI units, see ``output_units``)."""
        compiled, _, _, values = self._reuse(t, z, y, ydot).kernel
        return {name: float(v) for name, v in zip(compiled.output_names, values)}

    # -- optional protocol: integrated outputs (docs/element-protocol.md) -----------------------------------------
    @property
    def integral_units(self) -> dict[str, str]:
        """Quantities the solver integrates over its accepted steps: per volume node the oil added by the
        cavitation floor (``NODE.added_oil_cavitation``, the integral of the fill flow) and the oil exchanged with
        the volume the ``min_volume`` guard adds (``NODE.added_oil_guard``, the integral of ``|guard_flow|``; read
        only)."""
        return self._integral_units if self._final else _oil_integrals(self.volumes)  # (a run reads them thrice)

    def integrands(self, t, z, y, ydot) -> dict[str, float]:
        """Rates of the :attr:`integral_units` quantities, m^3/s."""
        aux = self._reuse(t, z, y, ydot).kernel[2]
        out = {}
        for k, volume in enumerate(self.volumes):  # per volume: the fill flow and |guard flow| (kernel._volume)
            out[f"{volume.name}.added_oil_cavitation"] = float(aux[2 * k])
            out[f"{volume.name}.added_oil_guard"] = float(abs(aux[2 * k + 1]))
        return out

    def integral_warnings(self, integrals: dict[str, float], t, z, y, ydot) -> list[str]:
        """Warnings for added oil above ``ADDED_OIL_FRACTION`` of a node's volume at ``(t, z, y)`` (the start)."""
        if not any(value > 0.0 for value in integrals.values()):  # no oil added anywhere: nothing to size
            return []
        outputs = self.outputs(t, z, y, ydot)
        lines = []
        for volume in self.volumes:
            size = outputs[f"{volume.name}.volume"]
            for kind, what in (("cavitation", "the cavitation floor"), ("guard", "the minimum-volume guard")):
                added = integrals.get(f"{volume.name}.added_oil_{kind}", 0.0)
                if added > ADDED_OIL_FRACTION * size:
                    lines.append(f"circuit '{self.name}', node '{volume.name}': {what} added {added * 1e6:.4g} cm^3 "
                                 f"of oil that does not exist ({100 * added / size:.3g} % of the node's initial "
                                 f"{size * 1e6:.4g} cm^3); the results near that node are not physical there "
                                 "(check for a missing anti-cavitation/make-up path or a chamber emptied to its end)")
        return lines

    def compiled_element(self):
        """``(compiled, "")`` for the compiled step of a multibody engine (:mod:`hydraulics.layout`: kernel address,
        parameters, signals), or ``(None, reason)`` when a user's component or signal is a Python callback of it
        (the engine then calls the circuit back as a Python element: :meth:`rates`, :meth:`jacobians`, ...)."""
        self.finalize()._compiled = None  # the parameters of this run, for the Python evaluation too
        compiled = self._kernel()
        reason = compiled.reason(self.name)
        return (None, reason) if reason else (compiled, "")

    def plausibility(self, t=0.0, z=None, y=None, ydot=None) -> list[str]:
        """Settings that contradict each other (supply vs relief, cylinder start outside the stroke), one line
        each; called by flexmbs before a run through the element protocol (:mod:`hydraulics.plausibility`)."""
        return circuit_plausibility(self, y)

    def __repr__(self) -> str:
        return f"Circuit({self.name!r}, {len(self.components)} components)"


def _oil_integrals(volumes: list) -> dict[str, str]:
    return {f"{volume.name}.added_oil_{kind}": "m^3" for volume in volumes for kind in ("cavitation", "guard")}


def _call_back(ev: Evaluation, comp, compiled, nodal, rates, forces, out) -> None:
    """One user's component or state signal, evaluated for itself: its port flows and chambers into ``nodal``
    (net inflow, volume, volume rate, wall compliance per node), its state rates, its forces and (``out`` not
    None) its outputs."""
    numbers = compiled.node_numbers
    for port, flow in (comp.port_flows(ev) if hasattr(comp, "port_flows") else {}).items():
        nodal[0, numbers[id(comp.nodes[port])]] += flow
    for port, volume, volume_rate, wall_modulus in (comp.chambers(ev) if hasattr(comp, "chambers") else ()):
        k = numbers[id(comp.nodes[port])]
        nodal[1, k] += volume
        nodal[2, k] += volume_rate
        if np.isfinite(wall_modulus):
            nodal[3, k] += volume / wall_modulus
    if comp.state_names:
        rates[comp.state_offset:comp.state_offset + len(comp.state_names)] = comp.state_rates(ev)
    for measurement, force in (comp.forces(ev) if hasattr(comp, "forces") else ()):
        forces[ev.circuit.measurement_index(measurement)] += force
    if out is not None and hasattr(comp, "outputs"):
        first, keys = compiled.first_output[id(comp)], list(comp.output_units())
        for key, value in comp.outputs(ev).items():
            out[first + keys.index(key)] = value


# the library's own event gaps (hydraulics.layout.CompiledCircuit.gap_names_exact: a subclass overriding them is not)
Circuit.event_gaps.library_event_gaps = True
