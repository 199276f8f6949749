"""The circuit evaluation in Python floats with sparse gradients (the hot path of :meth:`Circuit.evaluate`).

The component methods (``port_flows``, ``chambers``, ``state_rates``, ``forces``) carry every gradient as a dense
NumPy vector over ``w = [z, y, ydot]``; with 4..20 variables and 10..25 components one evaluation is then a few
hundred tiny NumPy operations and cache look-ups (0.16 ms for an excavator circuit, 0.4..0.7 ms for the clamp
circuit). Here the same equations are evaluated for the component kinds of the library with Python floats, each
gradient a dict ``{index in w: value}`` of its non-zero entries, in the same order of operations and of
accumulation as the component methods: a missing entry stands for an exact zero (``x + 0 = x``, ``a * 0 = 0``),
so every rate, force and Jacobian entry is the same number (tests/hydraulics/test_hydraulics_fastpath.py compares
them at random points). Components of other kinds (user subclasses, PID, ...) and signals that are not plain
functions of time, or whose ``evaluate`` was replaced on the instance (the input offsets of flexmbs.linearize), are
evaluated by their own methods on a :class:`~hydraulics.core.Evaluation` at the same point and their dense
gradients converted, so the fast path covers every circuit.

Each kernel mirrors one component method; the method named in its docstring is the definition (equations and seed
references there). Parameters are read from the components at every evaluation; the plan (node indices, roles,
table lists) is built once when the circuit is finalised.
"""
from __future__ import annotations

import bisect
import math

import numpy as np

from .core import Evaluation, Node
from .cylinder import Cushion, Cylinder
from .lines import Pipe
from .nodes import PressureSource, Tank, Volume
from .orifices import CheckValve, Orifice, ReliefValve, Throttle, orifice_flow
from .signals import Constant, PiecewiseLinear, Ramp, TimeFunction
from .smooth import interp_with_slope, smooth_lower_limit, smoothstep, softplus
from .sources import FixedDisplacementPump
from .valves import DirectionalValve, FirstOrderSpool, SecondOrderSpool

_EMPTY: dict = {}


# -- sparse gradient arithmetic (dicts are never modified after creation) ----------------------------------------
def _add(a: dict, b: dict) -> dict:
    """``a + b`` elementwise."""
    if not b:
        return a
    if not a:
        return b
    return {j: a.get(j, 0.0) + b.get(j, 0.0) for j in a.keys() | b.keys()}


def _sub(a: dict, b: dict) -> dict:
    """``a - b`` elementwise."""
    if not b:
        return a
    if not a:
        return {j: -v for j, v in b.items()}
    return {j: a.get(j, 0.0) - b.get(j, 0.0) for j in a.keys() | b.keys()}


def _scale(c: float, a: dict) -> dict:
    """``c * a``."""
    return {j: c * v for j, v in a.items()}


def _neg(a: dict) -> dict:
    return {j: -v for j, v in a.items()}


def _dense_to_sparse(g) -> dict:
    g = np.asarray(g, dtype=float).reshape(-1)
    return {int(j): float(g[j]) for j in np.flatnonzero(g)}


def _sparse_to_dense(g: dict, n: int) -> np.ndarray:
    out = np.zeros(n)
    for j, v in g.items():
        out[j] = v
    return out


# -- the plan ----------------------------------------------------------------------------------------------------
class Plan:
    """Precomputed structure of a finalised circuit: node numbers, component roles and kernels."""

    def __init__(self, circuit):
        self.nodes = [c for c in circuit.components if _is_node(c)]
        self.node_index = {id(n): k for k, n in enumerate(self.nodes)}
        flowing, with_rates, with_forces = circuit._roles()
        self.flowing = [(_FLOW_KERNELS.get(type(c), _generic_flows), c, self._ports(c)) for c in flowing]
        self.rates = [(_RATE_KERNELS.get(type(c), _generic_rates), c, self._ports(c)) for c in with_rates]
        self.forces = [(_FORCE_KERNELS.get(type(c), _generic_forces), c, self._ports(c)) for c in with_forces]
        self.tables = {}
        for comp in circuit.components:
            if type(comp) is DirectionalValve:
                self.tables[id(comp)] = [(p.positions.tolist(), p.fractions.tolist()) for p in comp.paths]
            elif type(comp) is Cushion:
                self.tables[id(comp)] = (comp.positions.tolist(), comp.areas.tolist())
        self.measurement_index = circuit.measurement_index

    def _ports(self, comp) -> dict:
        return {port: self.node_index[id(node)] for port, node in comp.nodes.items()}


def _is_node(comp) -> bool:
    return isinstance(comp, Node)


class _Point:
    """Values shared by the kernels at one evaluation point."""

    __slots__ = ("ev", "t", "z", "y", "ydot", "n_z", "n_y", "pressures", "signals", "plan")

    def __init__(self, ev: Evaluation, plan: Plan):
        self.ev, self.plan = ev, plan
        self.t = ev.t
        self.z, self.y, self.ydot = ev.z.tolist(), ev.y.tolist(), ev.ydot.tolist()
        self.n_z, self.n_y = ev.n_z, ev.n_y
        self.signals: dict = {}
        self.pressures = [self.node_pressure(node) for node in plan.nodes]

    def node_pressure(self, node):
        kind = type(node)
        if kind is Volume:
            i = node.state_offset
            return self.z[i], {i: 1.0}
        if kind is Tank:
            return node.tank_pressure, _EMPTY
        if kind is PressureSource:
            return self.signal(node.pressure_signal)
        value, grad = self.ev.pressure(node)
        return value, _dense_to_sparse(grad)

    def signal(self, sig):
        """``(value, sparse gradient)`` of a signal: time functions directly, the others through their method."""
        found = self.signals.get(id(sig))
        if found is not None:
            return found
        kind = type(sig)
        if "evaluate" in vars(sig):  # replaced on the instance (flexmbs.linearize input offsets)
            kind = None
        if kind is Constant:
            result = sig.constant, _EMPTY
        elif kind is PiecewiseLinear or kind is Ramp:
            result = interp_with_slope(self.t, sig.times, sig.values)[0], _EMPTY
        elif kind is TimeFunction:
            result = float(sig.function(self.t)), _EMPTY
        else:
            value, grad = self.ev.signal(sig)
            result = value, _dense_to_sparse(grad)
        self.signals[id(sig)] = result
        return result

    def measurement(self, comp_measurement):
        k = self.plan.measurement_index(comp_measurement)
        return self.y[k], {self.n_z + k: 1.0}

    def measurement_rate(self, comp_measurement):
        k = self.plan.measurement_index(comp_measurement)
        return self.ydot[k], {self.n_z + self.n_y + k: 1.0}


def evaluate(circuit, plan: Plan, t, z, y, ydot) -> Evaluation:
    """Rates, forces and their Jacobians at one point (the result of ``Circuit._evaluate`` with the component
    methods, see the module docstring)."""
    ev = Evaluation(circuit, t, z, y, ydot)
    pt = _Point(ev, plan)
    inflow, chambers = {}, {}
    for kernel, comp, ports in plan.flowing:
        flows, own_chambers = kernel(pt, comp, ports)
        for node, q, dq in flows:
            if node in inflow:
                v, g = inflow[node]
                inflow[node] = (v + q, _add(g, dq))
            else:
                inflow[node] = (0.0 + q, dq)
        for chamber in own_chambers:
            chambers.setdefault(ports[chamber[0]], []).append(chamber)
    n_z, n_y, n_w = ev.n_z, ev.n_y, ev.n_w
    rates, d_rates = [0.0] * n_z, [0.0] * (n_z * n_w)
    for kernel, comp, ports in plan.rates:
        for k, (value, grad) in enumerate(kernel(pt, comp, ports, inflow, chambers)):
            row = comp.state_offset + k
            rates[row] = value
            base = row * n_w
            for j, v in grad.items():
                d_rates[base + j] = v
    forces, d_forces = [0.0] * n_y, [_EMPTY] * n_y
    for kernel, comp, ports in plan.forces:
        for measurement, value, grad in kernel(pt, comp, ports):
            k = plan.measurement_index(measurement)
            forces[k] += value
            d_forces[k] = _add(d_forces[k], grad)
    ev.rates, ev.forces = np.array(rates), np.array(forces)
    ev.d_rates = np.array(d_rates).reshape(n_z, n_w)
    ev.d_forces = np.zeros((n_y, n_w))
    for k, grad in enumerate(d_forces):
        for j, v in grad.items():
            ev.d_forces[k, j] = v
    ev.fill = lambda e: _materialize(e, plan, inflow, chambers)
    return ev


def _materialize(ev: Evaluation, plan: Plan, inflow: dict, chambers: dict) -> None:
    """Fill ``ev.inflow`` and ``ev.chamber_map`` (dense gradients) from a fast evaluation, for the outputs."""
    n_w = ev.n_w
    for k, (value, grad) in inflow.items():
        ev.inflow[id(plan.nodes[k])] = (value, _sparse_to_dense(grad, n_w))
    for k, items in chambers.items():
        ev.chamber_map[id(plan.nodes[k])] = [(port, v, _sparse_to_dense(dv, n_w), vdot, _sparse_to_dense(dvdot, n_w),
                                              b) for port, v, dv, vdot, dvdot, b in items]


# -- generic kernels: the component's own methods, dense gradients converted --------------------------------------
def _generic_flows(pt: _Point, comp, ports):
    flows = [(ports[port], q, _dense_to_sparse(dq)) for port, (q, dq) in comp.port_flows(pt.ev).items()]
    own = [(c[0], c[1], _dense_to_sparse(c[2]), c[3], _dense_to_sparse(c[4]), c[5]) for c in comp.chambers(pt.ev)]
    return flows, own


def _generic_rates(pt: _Point, comp, ports, inflow, chambers):
    return [(value, _dense_to_sparse(grad)) for value, grad in comp.state_rates(pt.ev)]


def _generic_forces(pt: _Point, comp, ports):
    return [(m, value, _dense_to_sparse(grad)) for m, value, grad in comp.forces(pt.ev)]


# -- flow kernels ------------------------------------------------------------------------------------------------
def _two_port(a, b, q, dq):
    """Port flows ``{A: -q, B: +q}`` of a two-port element (``Orifice.port_flows``)."""
    return [(a, -q, _neg(dq)), (b, q, dq)], ()


def _orifice_flows(pt: _Point, comp, ports):
    """``Orifice.flow`` / ``Throttle`` (coefficient from ``flow_coefficient``)."""
    a, b = ports["A"], ports["B"]
    pa, dpa = pt.pressures[a]
    pb, dpb = pt.pressures[b]
    if type(comp) is Throttle:
        gamma, d_gamma = comp.flow_coefficient, _EMPTY
    else:
        area, d_area = pt.signal(comp.area)
        k = comp.discharge_coefficient * math.sqrt(2.0 / comp.density)
        gamma, d_gamma = k * max(area, 0.0), (_scale(k, d_area) if area > 0.0 else _EMPTY)
    q, dq_dp, dq_dg = orifice_flow(pa - pb, gamma, comp.transition_pressure, comp.transition)
    dq = _add(_scale(dq_dp, _sub(dpa, dpb)), _scale(dq_dg, d_gamma))
    return _two_port(a, b, q, dq)


def _check_valve_flows(pt: _Point, comp, ports):
    """``CheckValve.flow``."""
    a, b = ports["A"], ports["B"]
    pa, dpa = pt.pressures[a]
    pb, dpb = pt.pressures[b]
    dp = pa - pb
    s, ds = smoothstep(dp, comp.cracking_pressure, comp.cracking_pressure + comp.opening_pressure_range)
    eps = comp.leakage_fraction
    k = comp.discharge_coefficient * comp.max_area * math.sqrt(2.0 / comp.density)
    gamma, d_gamma = k * (eps + (1.0 - eps) * s), k * (1.0 - eps) * ds
    q, dq_dp, dq_dg = orifice_flow(dp, gamma, comp.transition_pressure)
    return _two_port(a, b, q, _scale(dq_dp + dq_dg * d_gamma, _sub(dpa, dpb)))


def _relief_opening(pt: _Point, comp, ports):
    """``ReliefValve.static_opening``."""
    pp, dpp = pt.pressures[ports["P"]]
    pt_, dpt = pt.pressures[ports["T"]]
    o, do = softplus(pp - pt_ - comp.cracking_pressure, comp.width)
    return o, _scale(do, _sub(dpp, dpt))


def _relief_flows(pt: _Point, comp, ports):
    """``ReliefValve.flow``."""
    if comp.time_constant:
        i = comp.state_offset
        o, do = pt.z[i], {i: 1.0}
    else:
        o, do = _relief_opening(pt, comp, ports)
    return _two_port(ports["P"], ports["T"], comp.flow_gain * o, _scale(comp.flow_gain, do))


def _pump_flows(pt: _Point, comp, ports):
    """``FixedDisplacementPump.flow``."""
    n, dn = pt.signal(comp.speed)
    s, p = ports["S"], ports["P"]
    ps, dps = pt.pressures[s]
    pp, dpp = pt.pressures[p]
    q = comp.displacement * n - comp.leakage_conductance * (pp - ps)
    dq = _sub(_scale(comp.displacement, dn), _scale(comp.leakage_conductance, _sub(dpp, dps)))
    if comp.relief_pressure is not None:
        o, do = softplus(pp - ps - comp.relief_pressure, comp.relief_width)
        q -= comp.relief_gain * o
        dq = _sub(dq, _scale(comp.relief_gain * do, _sub(dpp, dps)))
    return _two_port(s, p, q, dq)


def _pipe_flows(pt: _Point, comp, ports):
    """``Pipe.port_flows``: the own state."""
    i = comp.state_offset
    return _two_port(ports["A"], ports["B"], pt.z[i], {i: 1.0})


def _valve_reference(pt: _Point, comp):
    """``DirectionalValve.reference``."""
    u, du = pt.signal(comp.command)
    if abs(u) > 1.0:
        return math.copysign(1.0, u), _EMPTY
    return u, du


def _valve_flows(pt: _Point, comp, ports):
    """``DirectionalValve.path_flows`` and ``port_flows``."""
    if comp.spool is None:
        u, du = _valve_reference(pt, comp)
    else:
        i = comp.state_offset
        u, du = pt.z[i], {i: 1.0}
    k = comp.discharge_coefficient * comp.max_area * math.sqrt(2.0 / comp.density)
    flows = {port: (0.0, _EMPTY) for port in comp.ports}
    pressures = pt.pressures
    lim, transition = comp.transition_pressure, comp.transition
    for path, (xs, ys) in zip(comp.paths, pt.plan.tables[id(comp)]):
        fraction, slope = _interp(u, xs, ys)
        p1, dp1 = pressures[ports[path.from_port]]
        p2, dp2 = pressures[ports[path.to_port]]
        q, dq_dp, dq_dg = orifice_flow(p1 - p2, k * fraction, lim, transition)
        dq = _add(_scale(dq_dp, _sub(dp1, dp2)), _scale(dq_dg * k * slope, du))
        v, g = flows[path.from_port]
        flows[path.from_port] = (v - q, _sub(g, dq))
        v, g = flows[path.to_port]
        flows[path.to_port] = (v + q, _add(g, dq))
    return [(ports[port], q, dq) for port, (q, dq) in flows.items()], ()


def _interp(x, xl, yl):
    """``smooth.interp_with_slope`` on lists prepared once (same operations, same numbers)."""
    x = float(x)
    if x <= xl[0]:
        return float(yl[0]), 0.0
    if x >= xl[-1]:
        return float(yl[-1]), 0.0
    i = bisect.bisect_right(xl, x) - 1
    slope = (yl[i + 1] - yl[i]) / (xl[i + 1] - xl[i])
    return float(yl[i] + slope * (x - xl[i])), float(slope)


def _cylinder_position(pt: _Point, comp):
    y, dy = pt.measurement(comp.measurement)
    return y - comp.retracted_length, dy


def _cylinder_chambers(pt: _Point, comp, ports):
    """``Cylinder.chambers``."""
    x, dx = _cylinder_position(pt, comp)
    v, dv = pt.measurement_rate(comp.measurement)
    a, b = comp.piston_area, comp.rod_side_area
    result = [("A", comp.dead_volume_a + a * x, _scale(a, dx), a * v, _scale(a, dv), comp.wall_bulk_modulus)]
    if not comp.single_acting:
        result.append(("B", comp.dead_volume_b + b * (comp.stroke - x), _scale(-b, dx), -b * v, _scale(-b, dv),
                       comp.wall_bulk_modulus))
    return (), result


def _cushion_flows(pt: _Point, comp, ports):
    """``Cushion.flow``."""
    c, line = ports["chamber"], ports["line"]
    pc, dpc = pt.pressures[c]
    pl, dpl = pt.pressures[line]
    x, dx = _cylinder_position(pt, comp.cylinder)
    k = comp.discharge_coefficient * math.sqrt(2.0 / comp.density)
    xs, areas = pt.plan.tables[id(comp)]
    area, slope = _interp(x, xs, areas)
    q, dq_dp, dq_dg = orifice_flow(pc - pl, k * area, comp.transition_pressure)
    dq = _add(_scale(dq_dp, _sub(dpc, dpl)), _scale(dq_dg * k * slope, dx))
    s, ds = smoothstep(pl - pc, comp.bypass_cracking, 2.0 * comp.bypass_cracking + 1.0)
    qc, dqc_dp, dqc_dg = orifice_flow(pl - pc, k * comp.bypass_area * s, comp.transition_pressure)
    dqc = _scale(dqc_dp + dqc_dg * k * comp.bypass_area * ds, _sub(dpl, dpc))
    return _two_port(c, line, q - qc, _sub(dq, dqc))


# -- rate kernels ------------------------------------------------------------------------------------------------
def _volume_rates(pt: _Point, comp, ports, inflow, chambers):
    """``Volume.pressure_rate`` with ``cavitation_flow`` and ``capacitance``."""
    k = pt.plan.node_index[id(comp)]
    q_in, dq_in = inflow.get(k, (0.0, _EMPTY))
    own = chambers.get(k, ())
    p, dp = pt.pressures[k]
    w = comp.cavitation_width
    s, ds = softplus((comp.cavitation_pressure - p) / w, 1.0)
    g = comp.cavitation_conductance
    q_cav, dq_cav = g * w * s, _scale(-g * ds, dp)
    volume_rate = sum(c[3] for c in own)
    d_volume_rate = _EMPTY
    for c in own:
        d_volume_rate = _add(d_volume_rate, c[4])
    volume = comp.fixed_volume
    d_volume = _EMPTY
    wall = sum(v / b for v, b in comp.subvolumes if math.isfinite(b))
    d_wall = _EMPTY
    for _, v, dv, _, _, b in own:
        volume += v
        d_volume = _add(d_volume, dv)
        if math.isfinite(b):
            wall += v / b
            d_wall = _add(d_wall, {j: x / b for j, x in dv.items()})
    guarded, slope = smooth_lower_limit(volume, comp.min_volume, 0.5 * comp.min_volume)
    d_guarded = _scale(slope, d_volume)
    modulus, d_modulus = comp.fluid.effective_bulk_modulus(p)
    c = guarded / modulus + wall
    dc = _add(_sub({j: x / modulus for j, x in d_guarded.items()}, _scale(guarded * d_modulus / modulus**2, dp)),
              d_wall)
    net = q_in + q_cav - volume_rate
    rate = net / c
    top = _sub(_add(dq_in, dq_cav), d_volume_rate)
    return [(rate, _sub({j: x / c for j, x in top.items()}, _scale(rate / c, dc)))]


def _relief_rates(pt: _Point, comp, ports, inflow, chambers):
    """``ReliefValve.state_rates``."""
    if not comp.time_constant:
        return []
    i = comp.state_offset
    o = pt.z[i]
    s, ds = _relief_opening(pt, comp, ports)
    tau = comp.time_constant
    return [((s - o) / tau, {j: x / tau for j, x in _sub(ds, {i: 1.0}).items()})]


def _valve_rates(pt: _Point, comp, ports, inflow, chambers):
    """``DirectionalValve.state_rates`` with ``FirstOrderSpool.rates`` / ``SecondOrderSpool.rates``."""
    spool = comp.spool
    if spool is None:
        return []
    kind = type(spool)
    if kind is not FirstOrderSpool and kind is not SecondOrderSpool:
        return _generic_rates(pt, comp, ports, inflow, chambers)
    i = comp.state_offset
    ref, d_ref = _valve_reference(pt, comp)
    u, du = pt.z[i], {i: 1.0}
    if kind is FirstOrderSpool:
        tau = spool.time_constant
        return [((ref - u) / tau, {j: x / tau for j, x in _sub(d_ref, du).items()})]
    v, dv = pt.z[i + 1], {i + 1: 1.0}
    w, zeta = spool.natural_frequency, spool.damping_ratio
    return [(v, dv), (w * w * (ref - u) - 2.0 * zeta * w * v,
                      _sub(_scale(w * w, _sub(d_ref, du)), _scale(2.0 * zeta * w, dv)))]


def _pipe_rates(pt: _Point, comp, ports, inflow, chambers):
    """``Pipe.state_rates``."""
    i = comp.state_offset
    q, dq = pt.z[i], {i: 1.0}
    pa, dpa = pt.pressures[ports["A"]]
    pb, dpb = pt.pressures[ports["B"]]
    loss, d_loss = comp.pressure_loss(q)
    inertance = comp.inertance
    top = _sub(_sub(dpa, dpb), _scale(d_loss, dq))
    return [((pa - pb - loss) / inertance, {j: x / inertance for j, x in top.items()})]


# -- force kernels -----------------------------------------------------------------------------------------------
def _cylinder_forces(pt: _Point, comp, ports):
    """``Cylinder.force``: pressure force minus friction minus end stops."""
    pa, dpa = pt.pressures[ports["A"]]
    fp, dfp = pa * comp.piston_area, _scale(comp.piston_area, dpa)
    if not comp.single_acting:
        pb, dpb = pt.pressures[ports["B"]]
        fp, dfp = fp - pb * comp.rod_side_area, _sub(dfp, _scale(comp.rod_side_area, dpb))
    v, dv = pt.measurement_rate(comp.measurement)
    if comp.friction is None:
        fr, dfr = 0.0, _EMPTY
    else:
        fr, d = comp.friction.force(v)
        dfr = _scale(d, dv)
    x, dx = _cylinder_position(pt, comp)
    if 0.0 <= x <= comp.stroke:
        fs, dfs = 0.0, _EMPTY
    else:
        sign = 1.0 if x > comp.stroke else -1.0
        depth = x - comp.stroke if x > comp.stroke else -x
        s, ds = smoothstep(depth, 0.0, comp.stop_damping_depth)
        rate = sign * v
        force = comp.stop_stiffness * depth + comp.stop_damping * s * rate
        d_force = _add(_scale((comp.stop_stiffness + comp.stop_damping * ds * rate) * sign, dx),
                       _scale(comp.stop_damping * s * sign, dv))
        fs, dfs = sign * force, _scale(sign, d_force)
    return [(comp.measurement, fp - fr - fs, _sub(_sub(dfp, dfr), dfs))]


_FLOW_KERNELS = {Orifice: _orifice_flows, Throttle: _orifice_flows, CheckValve: _check_valve_flows,
                 ReliefValve: _relief_flows, FixedDisplacementPump: _pump_flows, Pipe: _pipe_flows,
                 DirectionalValve: _valve_flows, Cylinder: _cylinder_chambers, Cushion: _cushion_flows}
_RATE_KERNELS = {Volume: _volume_rates, ReliefValve: _relief_rates, DirectionalValve: _valve_rates,
                 Pipe: _pipe_rates}
_FORCE_KERNELS = {Cylinder: _cylinder_forces}
