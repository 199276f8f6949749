"""Running a circuit on its own: prescribed cylinder motion, or a 1-dof mass on the cylinder.

Both use SciPy's stiff integrators (``solve_ivp`` with BDF or Radau) with the circuit's analytic Jacobian. In a
machine model the circuit is instead a state element of the flexmbs solver (docs/element-protocol.md).
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from fem.errors import ModelError, SimulationError

#: Default absolute tolerances by state unit.
_ATOL_BY_UNIT = {"Pa": 1.0, "m^3/s": 1.0e-10, "1": 1.0e-8, "1/s": 1.0e-6, "m": 1.0e-9, "m/s": 1.0e-8}

#: A node counts as cavitating when its floor fill flow exceeds this, m^3/s.
CAVITATION_FLOW_THRESHOLD = 1.0e-9


@dataclass
class CircuitResult:
    """Result of a standalone circuit simulation (fields in SI units).

    Attributes
    ----------
    t : ndarray, shape (n_t,), s
    states : ndarray, shape (n_t, n_z)
    outputs : dict[str, ndarray]
        Every output signal of the circuit at ``t`` (units in ``output_units``).
    success : bool
    message : str
    nfev, njev, nlu : int
        Rate evaluations, Jacobian evaluations, LU decompositions.
    cavitation : dict[str, float]
        Nodes whose cavitation floor was reached, with the first time it was reached, s.
    added_oil : dict[str, float]
        Per volume node, ``NODE.added_oil_cavitation`` (integral of the floor's fill flow) and
        ``NODE.added_oil_guard`` (integral of ``|guard_flow|`` of the minimum-volume guard), m^3: oil that does not
        exist, integrated with the trapezoid rule over the integrator's accepted steps (not over ``t``).
    warnings : list[str]
        The added-oil warnings (``Circuit.integral_warnings``), also issued as :class:`AddedOilWarning`.
    position, velocity : ndarray, optional
        Mass coordinate and velocity of :func:`simulate_with_mass`.
    """

    t: np.ndarray
    states: np.ndarray
    outputs: dict
    output_units: dict
    state_names: list
    success: bool
    message: str
    nfev: int
    njev: int
    nlu: int
    cavitation: dict = field(default_factory=dict)
    position: np.ndarray | None = None
    velocity: np.ndarray | None = None
    solution: object = None
    added_oil: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)

    def state(self, name: str) -> np.ndarray:
        """History of one state by name (``"A.pressure"``)."""
        if name not in self.state_names:
            raise ModelError(f"no state '{name}'; states are {self.state_names}")
        return self.states[:, self.state_names.index(name)]


class AddedOilWarning(UserWarning):
    """A cavitation floor or minimum-volume guard added more oil than ``ADDED_OIL_FRACTION`` of a node's volume."""


def _added_oil(circuit, sol, arguments) -> tuple[dict, list]:
    """Trapezoid integrals of ``circuit.integrands`` over the accepted steps of ``sol`` (``sol.sol.ts``; the dense
    output reproduces the step values there); ``arguments(t, x) -> (y, ydot, z)``."""
    ts = np.asarray(sol.sol.ts if sol.sol is not None else sol.t)
    keys = list(circuit.integral_units)
    rates = np.zeros((ts.size, len(keys)))
    for i, t in enumerate(ts):
        y, ydot, z = arguments(t, sol.sol(t))
        found = circuit.integrands(t, z, y, ydot)
        rates[i] = [found[k] for k in keys]
    values = {k: float(v) for k, v in zip(keys, np.sum(0.5 * np.diff(ts)[:, None] * (rates[1:] + rates[:-1]),
                                                       axis=0))}
    y0, ydot0, z0 = arguments(ts[0], sol.sol(ts[0]))
    lines = circuit.integral_warnings(values, ts[0], z0, y0, ydot0)
    for line in lines:
        warnings.warn(line, AddedOilWarning, stacklevel=4)
    return values, lines


def _result(circuit, sol, states, y_fun, ydot_fun, arguments, **extra) -> CircuitResult:
    """The result of a solution ``sol`` whose circuit states at ``sol.t`` are ``states``: outputs, cavitation and
    added oil (``arguments`` as :func:`_added_oil`'s)."""
    outputs, cavitation = _collect(circuit, sol.t, states, y_fun, ydot_fun)
    added, lines = _added_oil(circuit, sol, arguments)
    return CircuitResult(sol.t, states, outputs, dict(circuit.output_units), list(circuit.state_names), sol.success,
                         sol.message, sol.nfev, sol.njev, sol.nlu, cavitation, solution=sol.sol, added_oil=added,
                         warnings=lines, **extra)


def _default_atol(circuit) -> np.ndarray:
    return np.array([_ATOL_BY_UNIT.get(u, 1.0e-6) for u in circuit.state_units])


def _as_vector_function(function, n_y: int, what: str) -> Callable[[float], np.ndarray]:
    if n_y == 0:
        return lambda t: np.zeros(0)
    if function is None:
        raise ModelError(f"the circuit reads {n_y} measurement(s): give {what} as a function of time")
    return lambda t: np.atleast_1d(np.asarray(function(t), dtype=float)).reshape(n_y)


def _collect(circuit, t, states, y_fun, ydot_fun):
    names = list(circuit.output_units)
    outputs = {k: np.empty(len(t)) for k in names}
    for i, ti in enumerate(t):
        out = circuit.outputs(ti, states[i], y_fun(ti), ydot_fun(ti))
        for k in names:
            outputs[k][i] = out[k]
    cavitation = {}
    for volume in circuit.volumes:
        flow = outputs[f"{volume.name}.cavitation_flow"]
        hit = np.nonzero(flow > CAVITATION_FLOW_THRESHOLD)[0]
        if hit.size:
            cavitation[volume.name] = float(t[hit[0]])
    return outputs, cavitation


def simulate_circuit(circuit, stroke_of_t=None, stroke_rate_of_t=None, t_end: float = 1.0, t_start: float = 0.0,
                     initial_state=None, method: str = "Radau", rtol: float = 1.0e-6, atol=None,
                     max_step: float = np.inf, t_eval=None, first_step=None) -> CircuitResult:
    """Integrate a circuit alone with prescribed measurements ``y(t)``, ``ydot(t)`` (e.g. cylinder strokes).

    Parameters
    ----------
    circuit : Circuit
    stroke_of_t, stroke_rate_of_t : callable, optional
        ``y(t)`` and ``ydot(t)``: scalars (one measurement) or arrays (n_y,), in the measurement's unit (m, m/s
        for a cylinder without a multibody measurement: its stroke). Not needed if the circuit reads none.
    t_end, t_start : float, s
    initial_state : array_like, optional
        ``z(t_start)``; default ``circuit.initial_state()``.
    method : {"Radau", "BDF"}
        Radau (L-stable) is the default: the higher BDF orders are not A-stable and can sustain the lightly
        damped oscillations of hydraulic lines and oil springs.
    rtol : float
    atol : float or array_like, optional
        Default by state unit (1 Pa for pressures, 1e-8 for spool positions, ...).
    max_step : float, s
    t_eval : array_like, optional
        Output times; default the solver's steps.

    Returns
    -------
    CircuitResult
    """
    circuit.finalize()
    n_y = len(circuit.measurements)
    y_fun = _as_vector_function(stroke_of_t, n_y, "stroke_of_t")
    ydot_fun = _as_vector_function(stroke_rate_of_t, n_y, "stroke_rate_of_t")
    z0 = circuit.initial_state() if initial_state is None else np.asarray(initial_state, dtype=float)

    def rhs(t, z):
        return circuit.rates(t, z, y_fun(t), ydot_fun(t))

    def jac(t, z):
        return circuit.jacobians(t, z, y_fun(t), ydot_fun(t))["rates_z"]

    from scipy.integrate import solve_ivp  # here: scipy.integrate costs 0.3 s of `import hydraulics`

    sol = solve_ivp(rhs, (t_start, t_end), z0, method=method, jac=jac, rtol=rtol,
                    atol=_default_atol(circuit) if atol is None else atol, max_step=max_step, t_eval=t_eval,
                    first_step=first_step, dense_output=True)
    if sol.status < 0:
        raise SimulationError(f"circuit '{circuit.name}': {sol.message} at t = {sol.t[-1]:.6g} s; "
                              "check for a node without flow path or reduce max_step")
    return _result(circuit, sol, sol.y.T, y_fun, ydot_fun, lambda t, x: (y_fun(t), ydot_fun(t), x))


def simulate_with_mass(circuit, mass: float, t_end: float, initial_position: float, initial_velocity: float = 0.0,
                       load: Callable[[float], float] | None = None, measurement=None, t_start: float = 0.0,
                       method: str = "Radau", rtol: float = 1.0e-8, atol=None, max_step: float = np.inf,
                       t_eval=None) -> CircuitResult:
    """A circuit driving one point mass along one measurement: ``m y'' = f_k(t, z, y, y') + load(t)``.

    The 1-dof coupling used by the tests (independent of the flexmbs solver); the mass moves along measurement
    ``k`` (a cylinder stroke), the other measurements stay at 0.

    Parameters
    ----------
    circuit : Circuit
    mass : float, kg
    t_end : float, s
    initial_position : float, m
        ``y(t_start)`` of the driven measurement.
    initial_velocity : float, m/s
    load : callable, optional
        External force along ``y`` as a function of time, N (e.g. ``lambda t: -m g`` for a vertical cylinder).
    measurement : object, optional
        The measurement the mass moves along (default: the only one of the circuit).

    Returns
    -------
    CircuitResult
        with ``position`` and ``velocity``.
    """
    circuit.finalize()
    n_y = len(circuit.measurements)
    if measurement is None:
        if n_y != 1:
            raise ModelError(f"circuit '{circuit.name}' reads {n_y} measurements; say which one the mass moves along")
        k = 0
    else:
        k = circuit.measurement_index(measurement)
    if mass <= 0.0:
        raise ModelError(f"mass must be positive, got {mass} kg")
    load = (lambda t: 0.0) if load is None else load
    nz = circuit.n_states

    def split(t, x):
        y, ydot = np.zeros(n_y), np.zeros(n_y)
        y[k], ydot[k] = x[0], x[1]
        return y, ydot, x[2:]

    def rhs(t, x):
        y, ydot, z = split(t, x)
        ev = circuit.evaluate(t, z, y, ydot)
        return np.concatenate(([x[1], (ev.forces[k] + load(t)) / mass], ev.rates))

    def jac(t, x):
        y, ydot, z = split(t, x)
        j = circuit.jacobians(t, z, y, ydot)
        out = np.zeros((nz + 2, nz + 2))
        out[0, 1] = 1.0
        out[1, 0], out[1, 1] = j["forces_y"][k, k] / mass, j["forces_ydot"][k, k] / mass
        out[1, 2:] = j["forces_z"][k] / mass
        out[2:, 0], out[2:, 1], out[2:, 2:] = j["rates_y"][:, k], j["rates_ydot"][:, k], j["rates_z"]
        return out

    x0 = np.concatenate(([initial_position, initial_velocity], circuit.initial_state()))
    tol = np.concatenate(([1e-10, 1e-9], _default_atol(circuit))) if atol is None else atol
    from scipy.integrate import solve_ivp

    sol = solve_ivp(rhs, (t_start, t_end), x0, method=method, jac=jac, rtol=rtol, atol=tol, max_step=max_step,
                    t_eval=t_eval, dense_output=True)
    if sol.status < 0:
        raise SimulationError(f"circuit '{circuit.name}' with mass: {sol.message} at t = {sol.t[-1]:.6g} s")
    y_hist, v_hist = sol.y[0], sol.y[1]

    def along(history):  # the measurements at t with the mass's coordinate or velocity interpolated at place k
        def values(t):
            y = np.zeros(n_y)
            y[k] = np.interp(t, sol.t, history)
            return y
        return values

    return _result(circuit, sol, sol.y[2:].T, along(y_hist), along(v_hist), split, position=y_hist,
                   velocity=v_hist)
