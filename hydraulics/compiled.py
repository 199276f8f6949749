"""A circuit as flat arrays and one compiled kernel: the circuit's part of the compiled step (issue 26).

:func:`compile_circuit` turns a finalised :class:`~hydraulics.circuit.Circuit` into parameter arrays (``fpar``
floats, ``ipar`` integers: node table and one record per component) and the address of :func:`circuit_kernel`, a
numba ``cfunc`` with the C signature of the compiled element protocol (docs/element-protocol.md, "compiled
elements")::

    void kernel(long mode, double t, double *z, double *y, double *ydot, double *sig, double *fpar, long *ipar,
                double *rates, double *forces, double *aux)

The multibody engine calls it through that address from its own compiled step, without returning to Python;
hydraulics does not import flexmbs (the package layering), the address is the whole interface.

The kernel evaluates the same equations as the component methods (each block names the method that defines it;
equations and seed references are there) for the kinds listed in :data:`SUPPORTED`: values only, the engine
differences them for its Jacobian. ``aux`` holds the integrands of ``Circuit.integrands`` (per volume: the
cavitation fill flow and ``|guard flow|``). Signals that are plain functions of time (constants, tables, Python
functions ``f(t)``) are evaluated by the engine once per time and handed in ``sig``; a circuit with any other kind
of component or signal (PID, user subclasses, cushions, pumps, ...) is not compiled: :func:`compile_circuit` says
which, and the engine keeps the circuit on its Python path.
"""
from __future__ import annotations

import math

import numpy as np
from numba import carray, cfunc, njit, types

from .cylinder import BrownMcPheeFriction, CoulombViscousFriction, Cylinder
from .friction import StribeckFriction
from .nodes import PressureSource, Tank, Volume
from .orifices import CheckValve, Orifice, ReliefValve, Throttle
from .signals import Constant, PiecewiseLinear, Ramp, TimeFunction
from .valves import DirectionalValve, FirstOrderSpool, SecondOrderSpool

__all__ = ["compile_circuit", "circuit_kernel", "circuit_eval", "SUPPORTED", "CompiledCircuit"]

SUPPORTED = ("PressureSource", "Tank", "Volume", "Orifice", "Throttle", "CheckValve", "ReliefValve",
             "DirectionalValve (no spool, first- or "
             "second-order spool)", "Cylinder (no, Coulomb-viscous, Brown-McPhee or Stribeck friction; end stops)")

# ipar header: n_z, n_y, n_sig, n_aux, n_nodes, n_records, len(ipar), len(fpar), n_out, n_gaps
_HEAD = 10
# node kinds
_VOLUME, _TANK, _SOURCE = 0, 1, 2
# record kinds
_ORIFICE, _THROTTLE, _VALVE, _CYLINDER, _VOLUME_RATE, _NODE_OUT, _SIGNAL_OUT, _CHECK, _RELIEF = 1, 2, 3, 4, 5, 6, 7, 8, 9


@njit(cache=True, inline="always")
def _orifice_flow(dp, coefficient, lim, cubic):
    """``orifices.orifice_flow``: flow only."""
    if abs(dp) >= lim:
        return coefficient * math.copysign(math.sqrt(abs(dp)), dp)
    root_lim = math.sqrt(lim)
    if not cubic:
        return coefficient * dp / root_lim
    r = dp / lim
    return coefficient * root_lim * (1.25 * r - 0.25 * r ** 3)


@njit(cache=True, inline="always")
def _softplus(x, width):
    """``smooth.softplus``: value only."""
    s = x / width
    if s > 40.0:
        return x
    e = math.exp(s)
    if s < -40.0:
        return width * e
    return width * math.log1p(e)


@njit(cache=True, inline="always")
def _smooth_lower_limit(x, limit, width):
    """``smooth.smooth_lower_limit``: value only."""
    d = x - limit
    if d >= width:
        return x
    if d <= -width:
        return limit
    return limit + (d + width) ** 2 / (4.0 * width)


@njit(cache=True, inline="always")
def _smoothstep(x, x0, x1):
    """``smooth.smoothstep``: value only."""
    if x1 == x0:
        return 1.0 if x >= x1 else 0.0
    s = (x - x0) / (x1 - x0)
    if s <= 0.0:
        return 0.0
    if s >= 1.0:
        return 1.0
    return s * s * (3.0 - 2.0 * s)


@njit(cache=True, inline="always")
def _interp(x, fpar, xs, n):
    """``smooth.interp_with_slope`` on ``fpar[xs:xs+n]`` (abscissae) and ``fpar[xs+n:xs+2n]`` (values)."""
    if x <= fpar[xs]:
        return fpar[xs + n]
    if x >= fpar[xs + n - 1]:
        return fpar[xs + 2 * n - 1]
    i = 0
    while fpar[xs + i + 1] <= x:
        i += 1
    slope = (fpar[xs + n + i + 1] - fpar[xs + n + i]) / (fpar[xs + i + 1] - fpar[xs + i])
    return fpar[xs + n + i] + slope * (x - fpar[xs + i])


@njit(cache=True, inline="always")
def _bulk_modulus(p, fpar, f):
    """``Fluid.effective_bulk_modulus``: ``fpar[f:f+4]`` = oil modulus, air fraction, polytropic index, air
    reference pressure (absolute); value only."""
    modulus, a0, n, p_ref = fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3]
    if a0 == 0.0:
        return modulus
    p_abs = max(p + 101325.0, 1.0e3)
    oil = 1.0 - a0
    air = a0 * (p_ref / p_abs) ** (1.0 / n)
    return (oil + air) / (oil / modulus + air / (n * p_abs))


@njit(cache=True)
def circuit_gaps(y, ydot, fpar, ipar, gaps):
    """``Circuit.event_gaps`` (``Cylinder.event_gaps``: ``x`` and ``stroke - x`` with their rates, for cylinders
    with end stops): values into ``gaps[:n]``, rates into ``gaps[n:2n]``, in the order of
    :attr:`CompiledCircuit.gap_names`."""
    n_nodes, n_rec, n = ipar[4], ipar[5], ipar[9]
    r = _HEAD + 2 * n_nodes
    for _ in range(n_rec):
        kind, length = ipar[r], ipar[r + 1]
        if kind == _CYLINDER and ipar[r + 8] >= 0:
            iy, f, g = ipar[r + 4], ipar[r + 6], ipar[r + 8]
            x = y[iy] - fpar[f + 3]
            gaps[g], gaps[n + g] = x, ydot[iy]
            gaps[g + 1], gaps[n + g + 1] = fpar[f + 2] - x, -ydot[iy]
        r += length


@njit(cache=True)
def circuit_eval(t, z, y, ydot, sig, fpar, ipar, rates, forces, aux, out, want):
    """Rates (n_z,), forces conjugate to the measurements (n_y,) and integrands (n_aux,) of a compiled circuit;
    with ``want`` also the outputs of ``Circuit.outputs`` into ``out`` (in :attr:`CompiledCircuit.output_names`
    order; each record carries the index of its first output)."""
    n_nodes, n_rec = ipar[4], ipar[5]
    p = np.empty(n_nodes)
    inflow = np.zeros(n_nodes)
    volume = np.zeros(n_nodes)  # chamber volumes at each node
    volume_rate = np.zeros(n_nodes)
    wall = np.zeros(n_nodes)
    chambers = np.zeros(n_nodes, dtype=np.int64)
    for k in range(n_nodes):  # node table: kind, index (state, fpar or signal)
        kind, idx = ipar[_HEAD + 2 * k], ipar[_HEAD + 2 * k + 1]
        p[k] = z[idx] if kind == _VOLUME else (fpar[idx] if kind == _TANK else sig[idx])
    for k in range(forces.size):
        forces[k] = 0.0
    r = _HEAD + 2 * n_nodes
    for _ in range(n_rec):
        kind, length = ipar[r], ipar[r + 1]
        if kind == _ORIFICE or kind == _THROTTLE:  # Orifice.flow / Throttle: [a, b, area signal, cubic, f]
            a, b, s_area, cubic, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 6]
            gamma = fpar[f] if kind == _THROTTLE else fpar[f] * max(sig[s_area], 0.0)
            q = _orifice_flow(p[a] - p[b], gamma, fpar[f + 1], cubic == 1)
            inflow[a] -= q
            inflow[b] += q
            if want:  # Orifice.outputs
                o = ipar[r + 7]
                out[o] = q
                out[o + 1] = (p[a] - p[b]) * q
        elif kind == _CHECK:  # CheckValve.flow: [a, b, f, out]; fpar: cracking, range, leakage, k, dp_lim
            a, b, f = ipar[r + 2], ipar[r + 3], ipar[r + 4]
            dp = p[a] - p[b]
            s = _smoothstep(dp, fpar[f], fpar[f] + fpar[f + 1])
            eps = fpar[f + 2]
            q = _orifice_flow(dp, fpar[f + 3] * (eps + (1.0 - eps) * s), fpar[f + 4], True)
            inflow[a] -= q
            inflow[b] += q
            if want:  # Orifice.outputs
                o = ipar[r + 5]
                out[o], out[o + 1] = q, dp * q
        elif kind == _RELIEF:  # ReliefValve.flow, state_rates: [P, T, state or -1, f, out]; cracking, width, gain, tau
            a, b, i, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5]
            static = _softplus(p[a] - p[b] - fpar[f], fpar[f + 1])
            q = fpar[f + 2] * (z[i] if i >= 0 else static)
            if i >= 0:
                rates[i] = (static - z[i]) / fpar[f + 3]
            inflow[a] -= q
            inflow[b] += q
            if want:
                o = ipar[r + 6]
                out[o], out[o + 1] = q, (p[a] - p[b]) * q
        elif kind == _VALVE:  # DirectionalValve.path_flows: [n_paths, command, spool, cubic, f, (from, to, n, xs)*]
            n_paths, s_cmd, spool, cubic, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 6]
            if spool >= 0:
                u = z[spool]
            else:
                u = sig[s_cmd]
                if abs(u) > 1.0:
                    u = math.copysign(1.0, u)
            kv, lim = fpar[f], fpar[f + 1]
            o = ipar[r + 8 + 5 * n_paths]
            if want:  # DirectionalValve.outputs: spool, flow per port pair (parallel edges add), power loss
                out[o] = u
                for j in range(n_paths):
                    out[ipar[r + 7 + 5 * j + 4]] = 0.0
                out[ipar[r + 9 + 5 * n_paths]] = 0.0
            for j in range(n_paths):
                e = r + 7 + 5 * j
                a, b, n, xs = ipar[e], ipar[e + 1], ipar[e + 2], ipar[e + 3]
                fraction = _interp(u, fpar, xs, n)
                q = _orifice_flow(p[a] - p[b], kv * fraction, lim, cubic == 1)
                inflow[a] -= q
                inflow[b] += q
                if want:
                    out[ipar[e + 4]] += q
                    out[ipar[r + 9 + 5 * n_paths]] += (p[a] - p[b]) * q
            if spool >= 0:  # FirstOrderSpool.rates / SecondOrderSpool.rates
                ref = sig[s_cmd]
                if abs(ref) > 1.0:
                    ref = math.copysign(1.0, ref)
                order = ipar[r + 7 + 5 * n_paths]
                if order == 1:
                    rates[spool] = (ref - u) / fpar[f + 2]
                else:
                    w, zeta = fpar[f + 2], fpar[f + 3]
                    rates[spool] = z[spool + 1]
                    rates[spool + 1] = w * w * (ref - u) - 2.0 * zeta * w * z[spool + 1]
        elif kind == _CYLINDER:  # Cylinder.chambers and Cylinder.force: [A, B or -1, y index, friction, f]
            na, nb, iy, fric, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 6]
            area_a, area_b, stroke, retracted = fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3]
            x = y[iy] - retracted
            v = ydot[iy]
            wall_modulus = fpar[f + 6]
            volume[na] += fpar[f + 4] + area_a * x
            volume_rate[na] += area_a * v
            chambers[na] += 1
            if math.isfinite(wall_modulus):
                wall[na] += (fpar[f + 4] + area_a * x) / wall_modulus
            force = p[na] * area_a
            if nb >= 0:
                vb = fpar[f + 5] + area_b * (stroke - x)
                volume[nb] += vb
                volume_rate[nb] += -area_b * v
                chambers[nb] += 1
                if math.isfinite(wall_modulus):
                    wall[nb] += vb / wall_modulus
                force = force - p[nb] * area_b
            pressure_force = force
            friction = 0.0
            if fric == 1:  # CoulombViscousFriction.force
                friction = fpar[f + 10] * v + fpar[f + 11] * math.tanh(v / fpar[f + 12])
            elif fric == 2:  # BrownMcPheeFriction.force (seed 002 eq. (8))
                fc, fs, vs, sigma2 = fpar[f + 10], fpar[f + 11], fpar[f + 12], fpar[f + 13]
                rr = v / vs
                friction = fc * math.tanh(4.0 * rr) + (fs - fc) * rr / (0.25 * rr * rr + 0.75) ** 2 + sigma2 * v
            elif fric == 3:  # friction.StribeckFriction.force
                fc, fs, vs, b_visc, width, delta = (fpar[f + 10], fpar[f + 11], fpar[f + 12], fpar[f + 13],
                                                    fpar[f + 14], fpar[f + 15])
                g_v = fc + (fs - fc) * math.exp(-(abs(v) / vs) ** delta)
                friction = g_v * math.tanh(v / width) + b_visc * v
            force = force - friction
            stop = 0.0
            if x < 0.0 or x > stroke:  # end stops
                sign = 1.0 if x > stroke else -1.0
                depth = x - stroke if x > stroke else -x
                s = _smoothstep(depth, 0.0, fpar[f + 9])
                stop = sign * (fpar[f + 7] * depth + fpar[f + 8] * s * sign * v)
                force = force - stop
            forces[iy] += force
            if want:  # Cylinder.outputs
                o = ipar[r + 7]
                out[o], out[o + 1], out[o + 2], out[o + 3] = x, v, force, pressure_force
                out[o + 4], out[o + 5], out[o + 6] = friction, friction * v, stop
        elif kind == _VOLUME_RATE:  # Volume.pressure_rate, cavitation_flow, capacitance, fictive_flows
            node, i, f, ia = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5]
            pv = z[i]
            w = fpar[f + 1]
            q_cav = fpar[f + 2] * w * _softplus((fpar[f] - pv) / w, 1.0)
            modulus = _bulk_modulus(pv, fpar, f + 6)
            fixed = fpar[f + 3]
            total = fixed + volume[node]
            guarded = _smooth_lower_limit(total, fpar[f + 5], 0.5 * fpar[f + 5])
            c = guarded / modulus + fpar[f + 4] + wall[node]
            rate = (inflow[node] + q_cav - volume_rate[node]) / c
            rates[i] = rate
            excess = guarded - total
            q_guard = excess / modulus * rate if excess > 0.0 else 0.0
            aux[ia] = q_cav
            aux[ia + 1] = abs(q_guard)
            if want:  # Volume.outputs
                o = ipar[r + 6]
                out[o], out[o + 1], out[o + 2], out[o + 3] = pv, q_cav, q_guard, guarded
                out[o + 4] = pv * (inflow[node] + q_cav - volume_rate[node])
        elif kind == _NODE_OUT:  # Tank.outputs, PressureSource.outputs
            if want:
                node, o = ipar[r + 2], ipar[r + 3]
                out[o], out[o + 1], out[o + 2] = p[node], -inflow[node], p[node] * -inflow[node]
        elif kind == _SIGNAL_OUT:  # Signal.outputs
            if want:
                out[ipar[r + 3]] = sig[ipar[r + 2]]
        r += length
    return p, inflow


_SIGNATURE = types.void(types.int64, types.float64, types.CPointer(types.float64), types.CPointer(types.float64),
                        types.CPointer(types.float64), types.CPointer(types.float64), types.CPointer(types.float64),
                        types.CPointer(types.int64), types.CPointer(types.float64), types.CPointer(types.float64),
                        types.CPointer(types.float64))


@cfunc(_SIGNATURE, cache=True)
def circuit_kernel(mode, t, z_, y_, ydot_, sig_, fpar_, ipar_, rates_, forces_, aux_):
    """:func:`circuit_eval` behind the C signature of the compiled element protocol: ``mode`` 0 writes the
    integrands into ``aux_``, mode 1 the outputs (``Circuit.outputs``, :attr:`CompiledCircuit.output_names`),
    mode 2 the event gaps and their rates (:func:`circuit_gaps`)."""
    head = carray(ipar_, _HEAD)
    ipar = carray(ipar_, head[6])
    fpar = carray(fpar_, head[7])
    z, y, ydot = carray(z_, head[0]), carray(y_, head[1]), carray(ydot_, head[1])
    rates, forces, sig = carray(rates_, head[0]), carray(forces_, head[1]), carray(sig_, head[2])
    if mode == 0:
        circuit_eval(t, z, y, ydot, sig, fpar, ipar, rates, forces, carray(aux_, head[3]), carray(aux_, 0), False)
    elif mode == 2:
        circuit_gaps(y, ydot, fpar, ipar, carray(aux_, 2 * head[9]))
    else:
        circuit_eval(t, z, y, ydot, sig, fpar, ipar, rates, forces, np.empty(head[3]), carray(aux_, head[8]), True)


class CompiledCircuit:
    """What the engine needs of a compiled circuit: kernel address, parameters, signals.

    ``output_names`` name the entries the kernel writes in mode 1, as ``Circuit.outputs``; ``gap_names`` the
    gaps of mode 2, as ``Circuit.event_gaps``.
    ``signals`` are ``(kind, data)`` per entry of ``sig``: ``("constant", value)``, ``("table", (times, values))``
    or ``("function", f)`` with ``f(t)`` a Python callable."""

    def __init__(self, fpar, ipar, signals, n_aux, output_names, gap_names):
        self.address = circuit_kernel.address
        self.fpar, self.ipar, self.signals, self.n_aux = fpar, ipar, signals, n_aux
        self.output_names, self.gap_names = output_names, gap_names


def _signal_entry(sig):
    kind = type(sig)
    if "evaluate" in vars(sig):  # replaced on the instance (flexmbs.linear input offsets)
        return None
    if kind is Constant:
        return "constant", sig.constant
    if kind is PiecewiseLinear or kind is Ramp:
        return "table", (np.asarray(sig.times, dtype=float), np.asarray(sig.values, dtype=float))
    if kind is TimeFunction:
        return "function", sig.function
    return None


def compile_circuit(circuit) -> tuple[CompiledCircuit | None, str]:
    """``(compiled, "")`` or ``(None, reason)`` when a component or signal is of a kind the kernel lacks."""
    circuit.finalize()
    fpar: list[float] = []
    signals, sig_index = [], {}

    def signal(sig):
        if id(sig) not in sig_index:
            entry = _signal_entry(sig)
            if entry is None:
                raise _Unsupported(f"signal {sig.name!r} ({type(sig).__name__})")
            sig_index[id(sig)] = len(signals)
            signals.append(entry)
        return sig_index[id(sig)]

    def floats(*values):
        start = len(fpar)
        fpar.extend(float(v) for v in values)
        return start

    try:
        nodes = [c for c in circuit.components if isinstance(c, (Volume, Tank, PressureSource))]
        number = {id(n): k for k, n in enumerate(nodes)}
        node_table = []
        for node in nodes:
            if type(node) is Volume:
                node_table += [_VOLUME, node.state_offset]
            elif type(node) is Tank:
                node_table += [_TANK, floats(node.tank_pressure)]
            elif type(node) is PressureSource:
                node_table += [_SOURCE, signal(node.pressure_signal)]
            else:
                raise _Unsupported(f"node {node.name!r} ({type(node).__name__})")
        records, names, first, late, gaps = [], [], {}, [], []
        for comp in circuit.components:
            first[id(comp)] = len(names)
            names += [f"{comp.name}.{key}" for key in _output_keys(comp)]
            if type(comp) in (Tank, PressureSource):  # after every flow is in
                late.append([_NODE_OUT, 4, number[id(comp)], first[id(comp)]])
            elif type(comp) in (Constant, PiecewiseLinear, Ramp, TimeFunction):
                records.append([_SIGNAL_OUT, 4, signal(comp), first[id(comp)]])
            else:
                rec = _record(comp, number, circuit, floats, signal, first[id(comp)])
                if rec is not None:
                    if rec[0] == _CYLINDER:  # its end stops as two event gaps (none without stops)
                        rec[1] += 1
                        stops = comp.stop_stiffness != 0.0 or comp.stop_damping != 0.0
                        rec.append(len(gaps) if stops else -1)
                        if stops:
                            gaps += [f"{comp.name}.retracted_stop", f"{comp.name}.extended_stop"]
                    records.append(rec)
        n_aux = 0
        for volume in circuit.volumes:  # after the flows and chambers: the order of Circuit.integrands
            f = floats(volume.cavitation_pressure, volume.cavitation_width, volume.cavitation_conductance,
                       volume.fixed_volume, sum(v / b for v, b in volume.subvolumes if math.isfinite(b)),
                       volume.min_volume, *_fluid(volume.fluid))
            records.append([_VOLUME_RATE, 7, number[id(volume)], volume.state_offset, f, n_aux, first[id(volume)]])
            n_aux += 2
        records += late
    except _Unsupported as exc:
        return None, f"circuit {circuit.name!r}: {exc} has no compiled kernel (compiled: {', '.join(SUPPORTED)})"
    body = node_table + [x for rec in records for x in rec]
    ipar = np.array([circuit.n_states, len(circuit.measurements), len(signals), n_aux, len(nodes), len(records),
                     _HEAD + len(body), max(len(fpar), 1), len(names), len(gaps)] + body, dtype=np.int64)
    return CompiledCircuit(np.array(fpar or [0.0], dtype=float), ipar, signals, n_aux, names, gaps), ""


class _Unsupported(Exception):
    pass


def _fluid(fluid) -> tuple:
    return fluid.bulk_modulus, fluid.air_fraction, fluid.polytropic_index, fluid.air_reference_pressure


def _output_keys(comp) -> list[str]:
    """The keys of ``comp.outputs`` (the methods named in :func:`circuit_eval`), in their order."""
    kind = type(comp)
    if kind is Volume:
        return ["pressure", "cavitation_flow", "guard_flow", "volume", "compression_power"]
    if kind in (Tank, PressureSource):
        return ["pressure", "flow", "power"]
    if kind in (Orifice, Throttle, CheckValve, ReliefValve):
        return ["flow", "power_loss"]
    if kind is DirectionalValve:
        keys = ["spool"]
        for path in comp.paths:
            key = f"flow_{path.from_port}{path.to_port}"
            if key not in keys:
                keys.append(key)
        return keys + ["power_loss"]
    if kind is Cylinder:
        return ["position", "velocity", "force", "pressure_force", "friction_force", "friction_power", "stop_force"]
    if kind in (Constant, PiecewiseLinear, Ramp, TimeFunction):
        return ["value"]
    return []


def _record(comp, number, circuit, floats, signal, out):
    """The ipar record of one component (kind, length, fields..., first output), None for volumes."""
    kind = type(comp)
    if kind is Volume:
        return None
    cubic = {"cubic": 1, "linear": 0}
    if kind is Orifice or kind is Throttle:
        a, b = number[id(comp.nodes["A"])], number[id(comp.nodes["B"])]
        if kind is Throttle:
            return [_THROTTLE, 8, a, b, -1, cubic[comp.transition],
                    floats(comp.flow_coefficient, comp.transition_pressure), out]
        k = comp.discharge_coefficient * math.sqrt(2.0 / comp.density)
        return [_ORIFICE, 8, a, b, signal(comp.area), cubic[comp.transition], floats(k, comp.transition_pressure),
                out]
    if kind is CheckValve:
        k = comp.discharge_coefficient * comp.max_area * math.sqrt(2.0 / comp.density)
        return [_CHECK, 6, number[id(comp.nodes["A"])], number[id(comp.nodes["B"])],
                floats(comp.cracking_pressure, comp.opening_pressure_range, comp.leakage_fraction, k,
                       comp.transition_pressure), out]
    if kind is ReliefValve:
        tau = comp.time_constant
        return [_RELIEF, 7, number[id(comp.nodes["P"])], number[id(comp.nodes["T"])],
                comp.state_offset if tau else -1, floats(comp.cracking_pressure, comp.width, comp.flow_gain,
                                                         tau or 1.0), out]
    if kind is DirectionalValve:
        spool = comp.spool
        if spool is not None and type(spool) not in (FirstOrderSpool, SecondOrderSpool):
            raise _Unsupported(f"valve {comp.name!r} spool ({type(spool).__name__})")
        k = comp.discharge_coefficient * comp.max_area * math.sqrt(2.0 / comp.density)
        extra = () if spool is None else ((spool.time_constant, 0.0) if type(spool) is FirstOrderSpool
                                          else (spool.natural_frequency, spool.damping_ratio))
        f = floats(k, comp.transition_pressure, *extra)
        paths, keys = [], _output_keys(comp)
        for path in comp.paths:
            xs = floats(*np.asarray(path.positions, dtype=float), *np.asarray(path.fractions, dtype=float))
            paths += [number[id(comp.nodes[path.from_port])], number[id(comp.nodes[path.to_port])],
                      len(path.positions), xs, out + keys.index(f"flow_{path.from_port}{path.to_port}")]
        order = 0 if spool is None else (1 if type(spool) is FirstOrderSpool else 2)
        fields = [len(comp.paths), signal(comp.command), comp.state_offset if spool is not None else -1,
                  cubic[comp.transition], f] + paths + [order, out, out + len(keys) - 1]
        return [_VALVE, 2 + len(fields)] + fields
    if kind is Cylinder:
        fric = comp.friction
        kinds = {type(None): (0, ()), CoulombViscousFriction: (1, ("viscous_coefficient", "coulomb_force",
                                                                    "velocity_width")),
                 BrownMcPheeFriction: (2, ("coulomb_force", "static_force", "stribeck_velocity",
                                           "viscous_coefficient")),
                 StribeckFriction: (3, ("coulomb_force", "static_force", "stribeck_velocity", "viscous_coefficient",
                                        "velocity_width", "exponent"))}
        if type(fric) not in kinds:
            raise _Unsupported(f"cylinder {comp.name!r} friction ({type(fric).__name__})")
        fric_code, names = kinds[type(fric)]
        law = [float(getattr(fric, name)) for name in names] + [1.0] * (6 - len(names))
        iy = circuit.measurement_index(comp.measurement)
        f = floats(comp.piston_area, comp.rod_side_area, comp.stroke, comp.retracted_length, comp.dead_volume_a,
                   comp.dead_volume_b, comp.wall_bulk_modulus, comp.stop_stiffness, comp.stop_damping,
                   comp.stop_damping_depth, *law)
        nb = -1 if comp.single_acting else number[id(comp.nodes["B"])]
        return [_CYLINDER, 8, number[id(comp.nodes["A"])], nb, iy, fric_code, f, out]
    raise _Unsupported(f"component {comp.name!r} ({kind.__name__})")
