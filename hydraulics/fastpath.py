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
from .sparse_gradients import accumulate, axpy, dense_to_sparse, pair, scale, sparse_to_dense, sub
from .valves import DirectionalValve, FirstOrderSpool, SecondOrderSpool

_EMPTY: dict = {}


# -- the plan ----------------------------------------------------------------------------------------------------
class Plan:
    """Precomputed structure of a finalised circuit: node numbers, component roles and kernels.

    Each role list holds ``(kernel, component, ports, data)``: ``ports`` maps port names to node numbers, ``data``
    is the node number of a volume or the tables of a valve or cushion (plain data: a pickled circuit keeps it).
    """

    def __init__(self, circuit):
        self.nodes = [c for c in circuit.components if _is_node(c)]
        numbers = {id(n): k for k, n in enumerate(self.nodes)}

        def entry(kernels, comp, default):
            ports = {port: numbers[id(node)] for port, node in comp.nodes.items()}
            data = numbers.get(id(comp))
            if type(comp) is DirectionalValve:
                data = [(p.from_port, p.to_port, p.positions.tolist(), p.fractions.tolist()) for p in comp.paths]
            elif type(comp) is Cushion:
                data = (comp.positions.tolist(), comp.areas.tolist())
            return kernels.get(type(comp), default), comp, ports, data

        flowing, with_rates, with_forces = circuit._roles()
        self.flowing = [entry(_FLOW_KERNELS, c, _generic_flows) for c in flowing]
        self.rates = [entry(_RATE_KERNELS, c, _generic_volume_rates if isinstance(c, Volume) else _generic_rates)
                      for c in with_rates]
        self.forces = [entry(_FORCE_KERNELS, c, _generic_forces) for c in with_forces]
        self.measurement_index = circuit.measurement_index

    def node_number(self, node) -> int:
        """Number of a node in :attr:`nodes`."""
        return next(k for k, n in enumerate(self.nodes) if n is node)


def _is_node(comp) -> bool:
    return isinstance(comp, Node)


class _Point:
    """Values shared by the kernels at one evaluation point."""

    __slots__ = ("ev", "t", "z", "y", "ydot", "n_z", "n_y", "pressures", "unit", "signals", "plan", "flow_v",
                 "flow_g", "chambers", "volumes")

    def __init__(self, ev: Evaluation, plan: Plan):
        self.ev, self.plan = ev, plan
        self.t = ev.t
        self.z, self.y, self.ydot = ev.z.tolist(), ev.y.tolist(), ev.ydot.tolist()
        self.n_z, self.n_y = ev.n_z, ev.n_y
        self.signals: dict = {}
        self.pressures, self.unit = [], []
        for node in plan.nodes:
            value, grad, index = self.node_pressure(node)
            self.pressures.append((value, grad))
            self.unit.append(index)
        n = len(plan.nodes)
        self.flow_v = [0.0] * n  # net inflow of each node (Circuit._evaluate_components: 0 + q of each component)
        self.flow_g = [{} for _ in range(n)]  # and its gradient
        self.chambers = [[] for _ in range(n)]  # cylinder chambers at each node
        self.volumes: dict = {}  # node -> (q_cav, guarded volume, capacitance, dp/dt, bulk modulus) of a Volume

    def node_pressure(self, node):
        """``(value, gradient, index)``: index of the unit gradient, -1 for zero, -2 for another gradient."""
        kind = type(node)
        if kind is Volume:
            i = node.state_offset
            return self.z[i], {i: 1.0}, i
        if kind is Tank:
            return node.tank_pressure, _EMPTY, -1
        if kind is PressureSource:
            value, grad = self.signal(node.pressure_signal)
        else:
            value, grad = self.ev.pressure(node)
            grad = dense_to_sparse(grad)
        return value, grad, (-1 if not grad else -2)

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
            result = value, dense_to_sparse(grad)
        self.signals[id(sig)] = result
        return result

    def materialize(self, ev: Evaluation) -> None:
        """Fill ``ev.inflow`` and ``ev.chamber_map`` (dense gradients), for the outputs."""
        _materialize(ev, self)

    def measurement(self, comp_measurement):
        """``(y_k, index of y_k in w)``."""
        k = self.plan.measurement_index(comp_measurement)
        return self.y[k], self.n_z + k

    def measurement_rate(self, comp_measurement):
        """``(ydot_k, index of ydot_k in w)``."""
        k = self.plan.measurement_index(comp_measurement)
        return self.ydot[k], self.n_z + self.n_y + k


def evaluate(circuit, plan: Plan, t, z, y, ydot) -> Evaluation:
    """Rates, forces and their Jacobians at one point (the result of ``Circuit._evaluate_components``, see the
    module docstring)."""
    ev = Evaluation(circuit, t, z, y, ydot)
    pt = _Point(ev, plan)
    for kernel, comp, ports, data in plan.flowing:
        kernel(pt, comp, ports, data)
    n_z, n_y, n_w = ev.n_z, ev.n_y, ev.n_w
    rates, d_rates = [0.0] * n_z, [0.0] * (n_z * n_w)
    for kernel, comp, ports, data in plan.rates:
        for k, (value, grad) in enumerate(kernel(pt, comp, ports, data)):
            row = comp.state_offset + k
            rates[row] = value
            base = row * n_w
            for j, v in grad.items():
                d_rates[base + j] = v
    forces, d_forces = [0.0] * n_y, [0.0] * (n_y * n_w)
    for kernel, comp, ports, data in plan.forces:
        for measurement, value, grad in kernel(pt, comp, ports, data):
            k = plan.measurement_index(measurement)
            forces[k] += value
            base = k * n_w
            for j, v in grad.items():
                d_forces[base + j] += v
    ev.rates, ev.forces = np.array(rates), np.array(forces)
    ev.d_rates = np.array(d_rates).reshape(n_z, n_w)
    ev.d_forces = np.array(d_forces).reshape(n_y, n_w)
    ev.fill = pt.materialize  # a bound method, not a closure: an evaluation (and its circuit) stays picklable
    ev.point = pt
    return ev


def fictive_flows(ev: Evaluation, volume) -> tuple[float, float]:
    """``Volume.fictive_flows`` from the numbers of a fast evaluation (the same operations)."""
    pt = ev.point
    k = pt.plan.node_number(volume)
    found = pt.volumes.get(k)
    if found is None or type(volume) is not Volume:
        return volume.fictive_flows(ev)
    q_cav, guarded, c, rate, modulus = found
    true_volume = volume.fixed_volume + sum(ch[1] for ch in pt.chambers[k])
    excess = guarded - true_volume
    if excess <= 0.0:
        return q_cav, 0.0
    return q_cav, excess / modulus * rate


def _materialize(ev: Evaluation, pt) -> None:
    """Fill ``ev.inflow`` and ``ev.chamber_map`` (dense gradients) from a fast evaluation, for the outputs."""
    n_w = ev.n_w
    for node, value, grad, items in zip(pt.plan.nodes, pt.flow_v, pt.flow_g, pt.chambers):
        ev.inflow[id(node)] = (value, sparse_to_dense(grad, n_w))
        if items:
            ev.chamber_map[id(node)] = [(port, v, sparse_to_dense(dv, n_w), vdot, sparse_to_dense(dvdot, n_w), b)
                                        for port, v, dv, vdot, dvdot, b in items]


# -- generic kernels: the component's own methods, dense gradients converted --------------------------------------
def _generic_flows(pt: _Point, comp, ports, data=None):
    for port, (q, dq) in comp.port_flows(pt.ev).items():
        node = ports[port]
        pt.flow_v[node] += q
        accumulate(pt.flow_g[node], dense_to_sparse(dq))
    for c in comp.chambers(pt.ev):
        pt.chambers[ports[c[0]]].append((c[0], c[1], dense_to_sparse(c[2]), c[3], dense_to_sparse(c[4]), c[5]))


def _generic_rates(pt: _Point, comp, ports, data=None):
    return [(value, dense_to_sparse(grad)) for value, grad in comp.state_rates(pt.ev)]


def _generic_volume_rates(pt: _Point, comp, ports, data=None):
    """A Volume subclass: its ``pressure_rate`` with the inflow and chambers as dense gradients."""
    k, n_w = data, pt.ev.n_w
    chambers = [(port, v, sparse_to_dense(dv, n_w), vdot, sparse_to_dense(dvdot, n_w), b)
                for port, v, dv, vdot, dvdot, b in pt.chambers[k]]
    value, grad = comp.pressure_rate(pt.ev, pt.flow_v[k], sparse_to_dense(pt.flow_g[k], n_w), chambers)
    return [(value, dense_to_sparse(grad))]


def _generic_forces(pt: _Point, comp, ports, data=None):
    return [(m, value, dense_to_sparse(grad)) for m, value, grad in comp.forces(pt.ev)]


# -- flow kernels ------------------------------------------------------------------------------------------------
def _two_port(pt: _Point, a: int, b: int, q: float, dq: dict) -> None:
    """Port flows ``{A: -q, B: +q}`` of a two-port element (``Orifice.port_flows``) added to the nodes' inflows
    (``x + (-q) == x - q`` exactly)."""
    flow_v, flow_g = pt.flow_v, pt.flow_g
    flow_v[a] -= q
    flow_v[b] += q
    ga, gb = flow_g[a], flow_g[b]
    for j, v in dq.items():
        ga[j] = ga.get(j, 0.0) - v
        gb[j] = gb.get(j, 0.0) + v


def _orifice_flows(pt: _Point, comp, ports, data=None):
    """``Orifice.flow`` / ``Throttle`` (coefficient from ``flow_coefficient``)."""
    a, b = ports["A"], ports["B"]
    pa, pb = pt.pressures[a][0], pt.pressures[b][0]
    if type(comp) is Throttle:
        gamma, d_gamma = comp.flow_coefficient, _EMPTY
    else:
        area, d_area = pt.signal(comp.area)
        k = comp.discharge_coefficient * math.sqrt(2.0 / comp.density)
        gamma, d_gamma = k * max(area, 0.0), (scale(k, d_area) if area > 0.0 else _EMPTY)
    q, dq_dp, dq_dg = orifice_flow(pa - pb, gamma, comp.transition_pressure, comp.transition)
    return _two_port(pt, a, b, q, axpy(pair(pt, dq_dp, a, b), dq_dg, d_gamma))


def _check_valve_flows(pt: _Point, comp, ports, data=None):
    """``CheckValve.flow``."""
    a, b = ports["A"], ports["B"]
    dp = pt.pressures[a][0] - pt.pressures[b][0]
    s, ds = smoothstep(dp, comp.cracking_pressure, comp.cracking_pressure + comp.opening_pressure_range)
    eps = comp.leakage_fraction
    k = comp.discharge_coefficient * comp.max_area * math.sqrt(2.0 / comp.density)
    gamma, d_gamma = k * (eps + (1.0 - eps) * s), k * (1.0 - eps) * ds
    q, dq_dp, dq_dg = orifice_flow(dp, gamma, comp.transition_pressure)
    return _two_port(pt, a, b, q, pair(pt, dq_dp + dq_dg * d_gamma, a, b))


def _relief_opening(pt: _Point, comp, ports, data=None):
    """``ReliefValve.static_opening``: ``(o, do/d(p_P - p_T))``."""
    o, do = softplus(pt.pressures[ports["P"]][0] - pt.pressures[ports["T"]][0] - comp.cracking_pressure,
                     comp.width)
    return o, do


def _relief_flows(pt: _Point, comp, ports, data=None):
    """``ReliefValve.flow``."""
    gain = comp.flow_gain
    if comp.time_constant:
        i = comp.state_offset
        return _two_port(pt, ports["P"], ports["T"], gain * pt.z[i], {i: gain * 1.0})
    o, do = _relief_opening(pt, comp, ports)
    d = pair(pt, do, ports["P"], ports["T"])
    return _two_port(pt, ports["P"], ports["T"], gain * o, {j: gain * v for j, v in d.items()})


def _pump_flows(pt: _Point, comp, ports, data=None):
    """``FixedDisplacementPump.flow``."""
    n, dn = pt.signal(comp.speed)
    s, p = ports["S"], ports["P"]
    ps, pp = pt.pressures[s][0], pt.pressures[p][0]
    q = comp.displacement * n - comp.leakage_conductance * (pp - ps)
    dq = sub(scale(comp.displacement, dn), pair(pt, comp.leakage_conductance, p, s))
    if comp.relief_pressure is not None:
        o, do = softplus(pp - ps - comp.relief_pressure, comp.relief_width)
        q -= comp.relief_gain * o
        dq = sub(dq, pair(pt, comp.relief_gain * do, p, s))
    return _two_port(pt, s, p, q, dq)


def _pipe_flows(pt: _Point, comp, ports, data=None):
    """``Pipe.port_flows``: the own state."""
    i = comp.state_offset
    return _two_port(pt, ports["A"], ports["B"], pt.z[i], {i: 1.0})


def _valve_reference(pt: _Point, comp):
    """``DirectionalValve.reference``."""
    u, du = pt.signal(comp.command)
    if abs(u) > 1.0:
        return math.copysign(1.0, u), _EMPTY
    return u, du


def _valve_flows(pt: _Point, comp, ports, data=None):
    """``DirectionalValve.path_flows`` and ``port_flows`` (flows summed per port first, as there). A closed edge
    (fraction and slope 0) adds exact zeros there and is skipped."""
    if comp.spool is None:
        u, du = _valve_reference(pt, comp)
    else:
        i = comp.state_offset
        u, du = pt.z[i], {i: 1.0}
    u = float(u)
    k = comp.discharge_coefficient * comp.max_area * math.sqrt(2.0 / comp.density)
    flows = {port: [0.0, {}] for port in comp.ports}
    pressures = pt.pressures
    lim, transition = comp.transition_pressure, comp.transition
    for from_port, to_port, xl, yl in data:
        if u <= xl[0]:  # smooth.interp_with_slope on lists prepared once
            fraction, slope = float(yl[0]), 0.0
        elif u >= xl[-1]:
            fraction, slope = float(yl[-1]), 0.0
        else:
            n = bisect.bisect_right(xl, u) - 1
            slope = (yl[n + 1] - yl[n]) / (xl[n + 1] - xl[n])
            fraction = yl[n] + slope * (u - xl[n])
        if fraction == 0.0 and slope == 0.0:
            continue
        a, b = ports[from_port], ports[to_port]
        q, dq_dp, dq_dg = orifice_flow(pressures[a][0] - pressures[b][0], k * fraction, lim, transition)
        dq = pair(pt, dq_dp, a, b)
        if du:
            axpy(dq, dq_dg * k * slope, du)
        acc = flows[from_port]
        acc[0] -= q
        g = acc[1]
        for j, v in dq.items():
            g[j] = g.get(j, 0.0) - v
        acc = flows[to_port]
        acc[0] += q
        g = acc[1]
        for j, v in dq.items():
            g[j] = g.get(j, 0.0) + v
    flow_v, flow_g = pt.flow_v, pt.flow_g
    for port, (q, dq) in flows.items():
        node = ports[port]
        flow_v[node] += q
        if dq:
            accumulate(flow_g[node], dq)


def _cylinder_chambers(pt: _Point, comp, ports, data=None):
    """``Cylinder.chambers``."""
    y, ix = pt.measurement(comp.measurement)
    x = y - comp.retracted_length
    v, iv = pt.measurement_rate(comp.measurement)
    a, b = comp.piston_area, comp.rod_side_area
    result = [("A", comp.dead_volume_a + a * x, {ix: a * 1.0}, a * v, {iv: a * 1.0}, comp.wall_bulk_modulus)]
    if not comp.single_acting:
        result.append(("B", comp.dead_volume_b + b * (comp.stroke - x), {ix: -b * 1.0}, -b * v, {iv: -b * 1.0},
                       comp.wall_bulk_modulus))
    for chamber in result:
        pt.chambers[ports[chamber[0]]].append(chamber)


def _cushion_flows(pt: _Point, comp, ports, data=None):
    """``Cushion.flow``."""
    c, line = ports["chamber"], ports["line"]
    pc, pl = pt.pressures[c][0], pt.pressures[line][0]
    cyl = comp.cylinder
    y, ix = pt.measurement(cyl.measurement)
    x = y - cyl.retracted_length
    k = comp.discharge_coefficient * math.sqrt(2.0 / comp.density)
    xs, areas = data
    area, slope = interp_with_slope(x, xs, areas)
    q, dq_dp, dq_dg = orifice_flow(pc - pl, k * area, comp.transition_pressure)
    dq = axpy(pair(pt, dq_dp, c, line), dq_dg * k * slope, {ix: 1.0})
    s, ds = smoothstep(pl - pc, comp.bypass_cracking, 2.0 * comp.bypass_cracking + 1.0)
    qc, dqc_dp, dqc_dg = orifice_flow(pl - pc, k * comp.bypass_area * s, comp.transition_pressure)
    dqc = pair(pt, dqc_dp + dqc_dg * k * comp.bypass_area * ds, line, c)
    return _two_port(pt, c, line, q - qc, sub(dq, dqc))


# -- rate kernels ------------------------------------------------------------------------------------------------
def _volume_rates(pt: _Point, comp, ports, data=None):
    """``Volume.pressure_rate`` with ``cavitation_flow`` and ``capacitance`` (entries of the dense expressions that
    are exact zeros left out)."""
    k = data
    q_in, dq_in, own = pt.flow_v[k], pt.flow_g[k], pt.chambers[k]
    i = comp.state_offset
    p = pt.z[i]
    w = comp.cavitation_width
    s, ds = softplus((comp.cavitation_pressure - p) / w, 1.0)
    g = comp.cavitation_conductance
    q_cav, dq_cav = g * w * s, -g * ds * 1.0  # its gradient has the one entry i
    volume, wall = 0, 0
    for v, b in comp.subvolumes:  # Volume.fixed_volume and the walls' sum, in the same order
        volume += v
        if math.isfinite(b):
            wall += v / b
    modulus, d_modulus = comp.fluid.effective_bulk_modulus(p)
    if not own:
        guarded = smooth_lower_limit(volume, comp.min_volume, 0.5 * comp.min_volume)[0]
        c = guarded / modulus + wall
        coef = guarded * d_modulus / modulus**2
        rate = (q_in + q_cav - 0) / c
        pt.volumes[k] = (q_cav, guarded, c, rate, modulus)
        row = {j: x / c for j, x in dq_in.items()}
        row[i] = (dq_in.get(i, 0.0) + dq_cav - 0.0) / c - rate / c * (0.0 - coef + 0.0)
        return [(rate, row)]
    if len(own) == 1:  # one chamber: the sums below with one term (0 + x == x)
        _, v, d_volume, volume_rate, d_volume_rate, b = own[0]
        volume += v
        if math.isfinite(b):
            wall += v / b
            d_wall = {j: x / b for j, x in d_volume.items()}
        else:
            d_wall = _EMPTY
    else:
        volume_rate = sum(ch[3] for ch in own)
        d_volume_rate, d_volume, d_wall = {}, {}, {}
        for ch in own:
            accumulate(d_volume_rate, ch[4])
        for _, v, dv, _, _, b in own:
            volume += v
            accumulate(d_volume, dv)
            if math.isfinite(b):
                wall += v / b
                accumulate(d_wall, {j: x / b for j, x in dv.items()})
    guarded, slope = smooth_lower_limit(volume, comp.min_volume, 0.5 * comp.min_volume)
    c = guarded / modulus + wall
    coef = guarded * d_modulus / modulus**2
    rate = (q_in + q_cav - volume_rate) / c
    pt.volumes[k] = (q_cav, guarded, c, rate, modulus)
    r_c = rate / c
    row = {j: x / c for j, x in dq_in.items()}  # entries without cavitation, chamber or capacitance terms
    special = {i, *d_volume_rate, *d_volume, *d_wall}
    for j in special:
        # dc = d_guarded / modulus - coef * dp + d_wall;  row = (d_inflow + dq_cav - d_volume_rate) / c - rate/c dc
        dc = (slope * d_volume.get(j, 0.0) / modulus - coef * (1.0 if j == i else 0.0)) + d_wall.get(j, 0.0)
        top = (dq_in.get(j, 0.0) + (dq_cav if j == i else 0.0)) - d_volume_rate.get(j, 0.0)
        row[j] = top / c - r_c * dc
    return [(rate, row)]


def _relief_rates(pt: _Point, comp, ports, data=None):
    """``ReliefValve.state_rates``."""
    if not comp.time_constant:
        return []
    i = comp.state_offset
    o = pt.z[i]
    s, ds = _relief_opening(pt, comp, ports)
    tau = comp.time_constant
    top = pair(pt, ds, ports["P"], ports["T"])
    top[i] = top.get(i, 0.0) - 1.0
    return [((s - o) / tau, {j: x / tau for j, x in top.items()})]


def _valve_rates(pt: _Point, comp, ports, data=None):
    """``DirectionalValve.state_rates`` with ``FirstOrderSpool.rates`` / ``SecondOrderSpool.rates``."""
    spool = comp.spool
    if spool is None:
        return []
    kind = type(spool)
    if kind is not FirstOrderSpool and kind is not SecondOrderSpool:
        return _generic_rates(pt, comp, ports, data)
    i = comp.state_offset
    ref, d_ref = _valve_reference(pt, comp)
    u = pt.z[i]
    top = dict(d_ref)
    top[i] = top.get(i, 0.0) - 1.0  # d_reference - du
    if kind is FirstOrderSpool:
        tau = spool.time_constant
        return [((ref - u) / tau, {j: x / tau for j, x in top.items()})]
    v = pt.z[i + 1]
    w, zeta = spool.natural_frequency, spool.damping_ratio
    row = {j: w * w * x for j, x in top.items()}
    row[i + 1] = row.get(i + 1, 0.0) - 2.0 * zeta * w * 1.0
    return [(v, {i + 1: 1.0}), (w * w * (ref - u) - 2.0 * zeta * w * v, row)]


def _pipe_rates(pt: _Point, comp, ports, data=None):
    """``Pipe.state_rates``."""
    i = comp.state_offset
    q = pt.z[i]
    a, b = ports["A"], ports["B"]
    loss, d_loss = comp.pressure_loss(q)
    inertance = comp.inertance
    top = pair(pt, 1.0, a, b)
    top[i] = top.get(i, 0.0) - d_loss * 1.0
    return [((pt.pressures[a][0] - pt.pressures[b][0] - loss) / inertance, {j: x / inertance for j, x in top.items()})]


# -- force kernels -----------------------------------------------------------------------------------------------
def _cylinder_forces(pt: _Point, comp, ports, data=None):
    """``Cylinder.force``: pressure force minus friction minus end stops."""
    a = ports["A"]
    area_a = comp.piston_area
    fp = pt.pressures[a][0] * area_a
    ia = pt.unit[a]
    if comp.single_acting:
        ib = -1
    else:
        b = ports["B"]
        ib = pt.unit[b]
        fp = fp - pt.pressures[b][0] * comp.rod_side_area
    if ia > -2 and ib > -2 and (ia != ib or ia == -1):  # p_A A_A - p_B A_B with unit/zero pressure gradients
        g = {}
        if ia >= 0:
            g[ia] = 1.0 * area_a
        if ib >= 0:
            g[ib] = 0.0 - 1.0 * comp.rod_side_area
    else:
        g = scale(area_a, pt.pressures[a][1])
        if not comp.single_acting:
            g = sub(g, scale(comp.rod_side_area, pt.pressures[ports["B"]][1]))
        g = dict(g)
    v, iv = pt.measurement_rate(comp.measurement)
    y, ix = pt.measurement(comp.measurement)
    x = y - comp.retracted_length
    if comp.friction is None:
        fr = 0.0
    else:
        fr, d = comp.friction.force(v)
        g[iv] = g.get(iv, 0.0) - d * 1.0
    if 0.0 <= x <= comp.stroke:
        return [(comp.measurement, fp - fr - 0.0, g)]
    sign = 1.0 if x > comp.stroke else -1.0
    depth = x - comp.stroke if x > comp.stroke else -x
    s, ds = smoothstep(depth, 0.0, comp.stop_damping_depth)
    rate = sign * v
    force = comp.stop_stiffness * depth + comp.stop_damping * s * rate
    # d_force = (K + C ds rate) sign dx + C s sign dv; the total gradient is (dfp - dfr) - sign d_force
    g[ix] = g.get(ix, 0.0) - sign * ((comp.stop_stiffness + comp.stop_damping * ds * rate) * sign * 1.0)
    g[iv] = g.get(iv, 0.0) - sign * (0.0 + comp.stop_damping * s * sign * 1.0)
    return [(comp.measurement, fp - fr - sign * force, g)]


_FLOW_KERNELS = {Orifice: _orifice_flows, Throttle: _orifice_flows, CheckValve: _check_valve_flows,
                 ReliefValve: _relief_flows, FixedDisplacementPump: _pump_flows, Pipe: _pipe_flows,
                 DirectionalValve: _valve_flows, Cylinder: _cylinder_chambers, Cushion: _cushion_flows}
_RATE_KERNELS = {Volume: _volume_rates, ReliefValve: _relief_rates, DirectionalValve: _valve_rates,
                 Pipe: _pipe_rates}
_FORCE_KERNELS = {Cylinder: _cylinder_forces}
