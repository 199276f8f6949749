"""The compiled circuit kernel: one numba ``cfunc`` over the flat arrays of :mod:`hydraulics.layout`.

The one implementation of every built-in component's law (each block names the class whose docstring states the
equation and its seed reference), values only: the circuit and the engine difference them for the Jacobian. A
user's component or signal (a Python callback, :mod:`hydraulics.circuit`) adds its flows, chambers and forces to
``nodal`` and ``forces`` before :func:`circuit_components` runs the records, and its value to its signal slot
between the signal records (:func:`hydraulics.signal_kernels.eval_signals` runs them in pieces).

``ipar`` layout: the head (``HEAD`` integers: n_z, n_y, n_sig, n_aux, n_nodes, n_records, len(ipar), len(fpar),
n_out, n_gaps, n_slots, n_signal_records), the node table (kind, index per node), the signal records
(:mod:`hydraulics.signal_kernels`), then one record ``[kind, length, fields..., first output]`` per component.
Node pressures: volumes from their state, tanks from ``fpar``, pressure sources from their signal's slot.
"""
from __future__ import annotations

import math

import numpy as np
from numba import carray, types

from flexmbs_jit import cfunc, njit
from flexmbs_jit.stack import scratch

from fem.scalar_laws import interp, smoothstep

from .laws import (ATMOSPHERE, brown_mcphee_friction, bulk_modulus, coulomb_viscous_friction, orifice_flow, pipe_loss,
                            smooth_clamp01, smooth_lower_limit, softplus, stribeck_friction)
from .signal_kernels import eval_signals

# a component's kernel: only compiled code calls it (circuit_components), so no Python entry; it allocates nothing,
# so no reference counting (flexmbs_jit.njit); its C wrapper stays, so that LLVM sees the uses it saw before
PART = dict(cache=True, counted=False, no_cpython_wrapper=True)
HEAD = 12
# node kinds
VOLUME, TANK, SOURCE = 0, 1, 2
# record kinds
(ORIFICE, THROTTLE, VALVE, CYLINDER, VOLUME_RATE, NODE_OUT, SIGNAL_OUT, CHECK, RELIEF, PIPE, CUSHION, PUMP, PILOT,
 SHUTTLE, FIXED_PUMP, ACCUMULATOR, MOTOR) = range(1, 18)
# PILOT variants (hydraulics.pressure_valves)
COMPENSATOR, REDUCING, COUNTERBALANCE, PILOT_CHECK = 1, 2, 3, 4


@njit(cache=True, counted=False)  # (Python calls it too: hydraulics.circuit)
def circuit_gaps(y, ydot, fpar, ipar, gaps):
    """``Circuit.event_gaps`` (the cylinders' end stops: ``x`` and ``stroke - x`` with their rates, for cylinders
    with end stops): values into ``gaps[:n]``, rates into ``gaps[n:2n]``, in the order of
    :attr:`CompiledCircuit.gap_names`."""
    n_nodes, n_rec, n = ipar[4], ipar[5], ipar[9]
    r = HEAD + 2 * n_nodes
    for _ in range(ipar[11]):  # the signal records
        r += ipar[r + 1]
    for _ in range(n_rec):
        kind, length = ipar[r], ipar[r + 1]
        if kind == CYLINDER and ipar[r + 8] >= 0:
            iy, f, g = ipar[r + 4], ipar[r + 6], ipar[r + 8]
            x = y[iy] - fpar[f + 3]
            gaps[g], gaps[n + g] = x, ydot[iy]
            gaps[g + 1], gaps[n + g + 1] = fpar[f + 2] - x, -ydot[iy]
        r += length


@njit(cache=True)
def circuit_eval(t, z, y, ydot, sig, fpar, ipar, rates, forces, aux, out, want):
    """Rates (n_z,), forces conjugate to the measurements (n_y,) and integrands (n_aux,) of a compiled circuit;
    with ``want`` also the outputs of ``Circuit.outputs`` into ``out`` (in :attr:`CompiledCircuit.output_names`
    order; each record carries the index of its first output). Returns the node pressures and net inflows."""
    p, sv, nodal = np.empty(ipar[4]), np.empty(max(ipar[10], 1)), np.empty((4, ipar[4]))
    circuit_values(t, z, y, ydot, sig, fpar, ipar, rates, forces, aux, out, want, p, sv, nodal)
    return p, nodal[0]


@njit(cache=True, inline="always")
def circuit_values(t, z, y, ydot, sig, fpar, ipar, rates, forces, aux, out, want, p, sv, nodal):
    """:func:`circuit_eval` in the caller's vectors: node pressures ``p`` (n_nodes,), signal values ``sv``
    (n_slots,) and ``nodal`` (4, n_nodes), all overwritten (the kernel passes vectors on its stack: no allocation
    per call). Inlined into its two callers (a few lines: its 15 arguments, ≈ 90 words, were copied at every
    evaluation of the circuit)."""
    fill_pressures(z, fpar, ipar, p)
    r = eval_signals(t, z, y, ydot, sig, fpar, ipar, HEAD + 2 * ipar[4], ipar[11], p, sv, rates, out, want)
    source_pressures(ipar, p, sv)
    for k in range(forces.size):
        forces[k] = 0.0
    for i in range(4):
        for k in range(nodal.shape[1]):
            nodal[i, k] = 0.0
    circuit_components(r, p, sv, z, y, ydot, fpar, ipar, nodal, rates, forces, aux, out, want)


@njit(cache=True)
def node_pressures(z, fpar, ipar):
    """The node pressures of the volumes (their states) and tanks (``fpar``); sources 0 until
    :func:`source_pressures` (after the signals)."""
    p = np.empty(ipar[4])
    fill_pressures(z, fpar, ipar, p)
    return p


@njit(cache=True, counted=False)
def fill_pressures(z, fpar, ipar, p):
    """:func:`node_pressures` into ``p`` (n_nodes,)."""
    for k in range(ipar[4]):  # node table: kind, index (state, fpar)
        kind, idx = ipar[HEAD + 2 * k], ipar[HEAD + 2 * k + 1]
        p[k] = z[idx] if kind == VOLUME else (fpar[idx] if kind == TANK else 0.0)


@njit(cache=True, counted=False)  # (Python calls it too: hydraulics.circuit)
def source_pressures(ipar, p, sv):
    """The pressure sources' pressures from their signals' slots."""
    for k in range(ipar[4]):
        if ipar[HEAD + 2 * k] == SOURCE:
            p[k] = sv[ipar[HEAD + 2 * k + 1]]


@njit(cache=True)
def circuit_components(r, p, sv, z, y, ydot, fpar, ipar, nodal, rates, forces, aux, out, want):
    """The component records from ``ipar[r]`` on, at node pressures ``p`` and signal values ``sv``; ``nodal`` (4,
    n_nodes) holds what a user's components (Python callbacks) add to the nodes (net inflow, chamber volume,
    its rate, wall compliance), ``forces`` what they add to the forces."""
    for _ in range(ipar[5]):
        kind = ipar[r]
        if kind <= THROTTLE or kind == CHECK or kind == RELIEF:
            _orifices(kind, r, p, sv, z, fpar, ipar, rates, nodal[0], out, want)
        elif kind == VALVE:
            _valve(r, p, sv, z, fpar, ipar, rates, nodal[0], out, want)
        elif kind == CYLINDER:
            _cylinder(r, p, y, ydot, fpar, ipar, forces, nodal, out, want)
        elif kind == MOTOR:
            _motor(r, p, ydot, fpar, ipar, forces, nodal[0], out, want)
        elif kind == VOLUME_RATE:
            _volume(r, z, fpar, ipar, rates, nodal, aux, out, want)
        elif kind == PIPE or kind == CUSHION or kind == SHUTTLE:
            _lines(kind, r, p, z, y, fpar, ipar, rates, nodal[0], out, want)
        elif kind == PUMP or kind == PILOT:
            _controlled(kind, r, p, sv, z, fpar, ipar, rates, nodal[0], out, want)
        elif kind == FIXED_PUMP or kind == ACCUMULATOR:
            _sources(kind, r, p, sv, z, fpar, ipar, rates, nodal[0], out, want)
        elif want and kind == NODE_OUT:  # tank and pressure source outputs: pressure, delivered flow, power
            node, o = ipar[r + 2], ipar[r + 3]
            out[o], out[o + 1], out[o + 2] = p[node], -nodal[0, node], p[node] * -nodal[0, node]
        elif want and kind == SIGNAL_OUT:  # a signal's value
            out[ipar[r + 3]] = sv[ipar[r + 2]]
        r += ipar[r + 1]


@njit(cache=True)
def circuit_jacobian(t, z, y, ydot, sig, fpar, ipar, steps, d_rates, d_forces, want):
    """The Jacobian of :func:`circuit_eval` by central differences: ``d_rates`` (n_z, n_w) and ``d_forces``
    (n_y, n_w) over ``w = [z, y, ydot]``, column ``j`` from the steps ``±steps[j]`` (``want`` False: no outputs)."""
    n_z, n_y = z.size, y.size
    w = np.concatenate((z, y, ydot))
    rp, rm = np.zeros(n_z), np.zeros(n_z)
    fp, fm = np.zeros(n_y), np.zeros(n_y)
    aux, out = np.empty(max(ipar[3], 1)), np.empty(max(ipar[8], 1))
    for j in range(w.size):
        h = steps[j]
        for sign in (1.0, -1.0):
            wj = w.copy()
            wj[j] += sign * h
            r, f = (rp, fp) if sign > 0.0 else (rm, fm)
            circuit_eval(t, wj[:n_z], wj[n_z:n_z + n_y], wj[n_z + n_y:], sig, fpar, ipar, r, f, aux, out, want)
        for k in range(n_z):
            d_rates[k, j] = (rp[k] - rm[k]) / (2.0 * h)
        for k in range(n_y):
            d_forces[k, j] = (fp[k] - fm[k]) / (2.0 * h)


@njit(**PART)
def _edge(inflow, a, b, q):
    """A flow ``q`` from node ``a`` to node ``b``."""
    inflow[a] -= q
    inflow[b] += q


@njit(**PART)
def _orifices(kind, r, p, sv, z, fpar, ipar, rates, inflow, out, want):
    """Orifice, Throttle, CheckValve, ReliefValve; outputs flow and power loss."""
    a, b = ipar[r + 2], ipar[r + 3]
    dp = p[a] - p[b]
    if kind == ORIFICE or kind == THROTTLE:  # Orifice / Throttle: [a, b, area slot, cubic, f, out]
        f = ipar[r + 6]
        gamma = fpar[f] if kind == THROTTLE else fpar[f] * max(sv[ipar[r + 4]], 0.0)
        q = orifice_flow(dp, gamma, fpar[f + 1], ipar[r + 5] == 1)[0]
        o = ipar[r + 7]
    elif kind == CHECK:  # CheckValve: [a, b, f, out]; fpar: cracking, range, leakage, k, dp_lim
        f = ipar[r + 4]
        s = smoothstep(dp, fpar[f], fpar[f] + fpar[f + 1])[0]
        eps = fpar[f + 2]
        q = orifice_flow(dp, fpar[f + 3] * (eps + (1.0 - eps) * s), fpar[f + 4], True)[0]
        o = ipar[r + 5]
    else:  # ReliefValve: [P, T, state or -1, f, out]; cracking, width, gain, tau
        i, f = ipar[r + 4], ipar[r + 5]
        static = softplus(dp - fpar[f], fpar[f + 1])[0]
        q = fpar[f + 2] * (z[i] if i >= 0 else static)
        if i >= 0:
            rates[i] = (static - z[i]) / fpar[f + 3]
        o = ipar[r + 6]
    _edge(inflow, a, b, q)
    if want:
        out[o], out[o + 1] = q, dp * q


@njit(**PART)
def _valve(r, p, sv, z, fpar, ipar, rates, inflow, out, want):
    """DirectionalValve and its spool (FirstOrderSpool / SecondOrderSpool):
    [n_paths, command slot, spool state or -1, cubic, f, (from, to, n, xs, out)*, order, out, out of power]."""
    n_paths, s_cmd, spool, cubic, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 6]
    ref = sv[s_cmd]  # the command clamped to [-1, 1] (NaN passes): the spool reference or, spool-less, the position
    if abs(ref) > 1.0:
        ref = math.copysign(1.0, ref)
    u = z[spool] if spool >= 0 else ref
    kv, lim = fpar[f], fpar[f + 1]
    o, o_loss = ipar[r + 8 + 5 * n_paths], ipar[r + 9 + 5 * n_paths]
    if want:  # spool, flow per port pair (parallel edges add), power loss
        out[o] = u
        for j in range(n_paths):
            out[ipar[r + 7 + 5 * j + 4]] = 0.0
        out[o_loss] = 0.0
    for j in range(n_paths):
        e = r + 7 + 5 * j
        a, b, n, xs = ipar[e], ipar[e + 1], ipar[e + 2], ipar[e + 3]
        fraction = interp(u, fpar[xs:xs + n], fpar[xs + n:xs + 2 * n])[0]
        q = orifice_flow(p[a] - p[b], kv * fraction, lim, cubic == 1)[0]
        _edge(inflow, a, b, q)
        if want:
            out[ipar[e + 4]] += q
            out[o_loss] += (p[a] - p[b]) * q
    if spool >= 0:
        if ipar[r + 7 + 5 * n_paths] == 1:
            rates[spool] = (ref - u) / fpar[f + 2]
        else:
            w, zeta = fpar[f + 2], fpar[f + 3]
            rates[spool] = z[spool + 1]
            rates[spool + 1] = w * w * (ref - u) - 2.0 * zeta * w * z[spool + 1]


@njit(**PART)
def _friction(fric, v, fpar, f):
    """The friction law of a cylinder or a motor (there in N m and rad/s), parameters at ``fpar[f:f+6]``: none,
    :func:`~hydraulics.laws.coulomb_viscous_friction`, :func:`~hydraulics.laws.brown_mcphee_friction`
    (seed 002 eq. (8)), :func:`~hydraulics.laws.stribeck_friction`."""
    if fric == 1:
        x = v / fpar[f + 2]
        if fpar[f] == 0.0 and x == x:  # no Coulomb part: its tanh(x) only signs a zero, the zero copysign gives
            return fpar[f + 1] * v + fpar[f] * math.copysign(0.0, x)  # (the same bits; ≈ 20 ns of libm's tanh)
        return coulomb_viscous_friction(v, fpar[f], fpar[f + 1], fpar[f + 2])[0]
    if fric == 2:
        return brown_mcphee_friction(v, fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3])[0]
    if fric == 3:
        return stribeck_friction(v, fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3], fpar[f + 4], fpar[f + 5])[0]
    return 0.0


@njit(**PART)
def _cylinder(r, p, y, ydot, fpar, ipar, forces, nodal, out, want):
    """Cylinder: [A, B or -1, y index, friction, f, out, gap]."""
    na, nb, iy, fric, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 6]
    area_a, area_b, stroke, retracted = fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3]
    x = y[iy] - retracted
    v = ydot[iy]
    wall_modulus = fpar[f + 6]
    nodal[1, na] += fpar[f + 4] + area_a * x
    nodal[2, na] += area_a * v
    if math.isfinite(wall_modulus):
        nodal[3, na] += (fpar[f + 4] + area_a * x) / wall_modulus
    force = p[na] * area_a
    if nb >= 0:
        vb = fpar[f + 5] + area_b * (stroke - x)
        nodal[1, nb] += vb
        nodal[2, nb] += -area_b * v
        if math.isfinite(wall_modulus):
            nodal[3, nb] += vb / wall_modulus
        force = force - p[nb] * area_b
    pressure_force = force
    friction = _friction(fric, v, fpar, f + 10)
    force = force - friction
    stop = 0.0
    if x < 0.0 or x > stroke:  # end stops
        sign = 1.0 if x > stroke else -1.0
        depth = x - stroke if x > stroke else -x
        s = smoothstep(depth, 0.0, fpar[f + 9])[0]
        stop = sign * (fpar[f + 7] * depth + fpar[f + 8] * s * sign * v)
        force = force - stop
    forces[iy] += force
    if want:
        o = ipar[r + 7]
        out[o], out[o + 1], out[o + 2], out[o + 3] = x, v, force, pressure_force
        out[o + 4], out[o + 5], out[o + 6] = friction, friction * v, stop


@njit(**PART)
def _motor(r, p, ydot, fpar, ipar, forces, inflow, out, want):
    """HydraulicMotor: [A, B, y index, friction, f, out]; fpar: D_r
    (m^3/rad), C_i, the friction law (6). ``Q = D_r omega + C_i (p_A - p_B)`` from A to B,
    ``T = D_r (p_A - p_B) - T_f(omega)`` conjugate to the shaft angle (the angle itself is not read)."""
    na, nb, iy, fric, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 6]
    d_r = fpar[f]
    omega = ydot[iy]
    dp = p[na] - p[nb]
    q = d_r * omega + fpar[f + 1] * dp
    torque = d_r * dp - _friction(fric, omega, fpar, f + 2)
    _edge(inflow, na, nb, q)
    forces[iy] += torque
    if want:
        o = ipar[r + 7]
        out[o], out[o + 1], out[o + 2], out[o + 3], out[o + 4] = q, omega, torque, torque * omega, dp * q


@njit(**PART)
def _volume(r, z, fpar, ipar, rates, nodal, aux, out, want):
    """Volume: [node, state, f, aux, out];
    fpar: cavitation pressure, width, conductance, fixed volume, sub-volume compliance, min volume, fluid (4)."""
    node, i, f, ia = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5]
    pv = z[i]
    w = fpar[f + 1]
    q_cav = fpar[f + 2] * w * softplus((fpar[f] - pv) / w, 1.0)[0]
    modulus = bulk_modulus(pv, fpar[f + 6], fpar[f + 7], fpar[f + 8], fpar[f + 9])[0]
    total = fpar[f + 3] + nodal[1, node]
    guarded = smooth_lower_limit(total, fpar[f + 5], 0.5 * fpar[f + 5])[0]
    c = guarded / modulus + fpar[f + 4] + nodal[3, node]
    net = nodal[0, node] + q_cav - nodal[2, node]
    rate = net / c
    rates[i] = rate
    excess = guarded - total
    q_guard = excess / modulus * rate if excess > 0.0 else 0.0
    aux[ia] = q_cav
    aux[ia + 1] = abs(q_guard)
    if want:
        o = ipar[r + 6]
        out[o], out[o + 1], out[o + 2], out[o + 3] = pv, q_cav, q_guard, guarded
        out[o + 4] = pv * net


@njit(**PART)
def _lines(kind, r, p, z, y, fpar, ipar, rates, inflow, out, want):
    """Pipe (seed 003 eq. (2-225), (2-232)), Cushion and ShuttleValve."""
    if kind == PIPE:  # Pipe: [A, B, state, f, out]; loss (4), inertance
        a, b, i, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5]
        q = z[i]
        loss = pipe_loss(q, fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3])[0]
        rates[i] = (p[a] - p[b] - loss) / fpar[f + 4]
        _edge(inflow, a, b, q)
        if want:
            o = ipar[r + 6]
            out[o], out[o + 1] = q, loss * q
    elif kind == CUSHION:  # Cushion: [chamber, line, y index, n, xs, f, out]
        c, line, iy, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 7]
        k, retracted, k_bypass, cracking, lim = fpar[f], fpar[f + 1], fpar[f + 2], fpar[f + 3], fpar[f + 4]
        xs, n = ipar[r + 6], ipar[r + 5]
        area = interp(y[iy] - retracted, fpar[xs:xs + n], fpar[xs + n:xs + 2 * n])[0]
        q = orifice_flow(p[c] - p[line], k * area, lim, True)[0]
        s = smoothstep(p[line] - p[c], cracking, 2.0 * cracking + 1.0)[0]
        q = q - orifice_flow(p[line] - p[c], k_bypass * s, lim, True)[0]
        _edge(inflow, c, line, q)
        if want:
            o = ipar[r + 8]
            out[o], out[o + 1] = q, (p[c] - p[line]) * q
    else:  # ShuttleValve: [A, B, C, f, out]; k, switching range, dp_lim
        a, b, c, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5]
        k, w = fpar[f], fpar[f + 1]
        s = smoothstep(p[a] - p[b], -w, w)[0]
        qa = orifice_flow(p[a] - p[c], k * s, fpar[f + 2], True)[0]
        qb = orifice_flow(p[b] - p[c], k * (1.0 - s), fpar[f + 2], True)[0]
        _edge(inflow, a, c, qa)
        _edge(inflow, b, c, qb)
        if want:
            o = ipar[r + 6]
            out[o], out[o + 1] = qa, qb


@njit(**PART)
def _controlled(kind, r, p, sv, z, fpar, ipar, rates, inflow, out, want):
    """VariableDisplacementPump (pumps) and the PilotValve family (pressure_valves)."""
    if kind == PUMP:  # [S, P, LS or -1, state, speed slot, f, out]; D, p_c, margin, band, tau, G_leak
        s_node, p_node, ls, i, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 7]
        ref = fpar[f + 1]  # target_pressure
        if ls >= 0:
            a = p[ls] + fpar[f + 2]
            ref = a - softplus(a - fpar[f + 1], 0.1 * fpar[f + 3])[0]
        rates[i] = (smooth_clamp01((ref - p[p_node]) / fpar[f + 3], 0.02)[0] - z[i]) / fpar[f + 4]  # command, rates
        n = sv[ipar[r + 6]]
        q = z[i] * fpar[f] * n - fpar[f + 5] * (p[p_node] - p[s_node])  # flow
        _edge(inflow, s_node, p_node, q)
        if want:
            o = ipar[r + 8]
            dp = p[p_node] - p[s_node]
            out[o], out[o + 1], out[o + 2], out[o + 3] = q, z[i], ref, dp * q
            out[o + 4] = dp * z[i] * fpar[f] * n
        return
    # PilotValve: [variant, first, second, third, state or -1, f, out]; k, leakage, opening range, tau, dp_lim,
    # setting (dp_set / p_set / p_crack), pilot ratio, check k, check cracking, check range
    variant, n1, n2, n3, i, f = ipar[r + 2], ipar[r + 3], ipar[r + 4], ipar[r + 5], ipar[r + 6], ipar[r + 7]
    s = _pilot_opening(variant, p[n1], p[n2], p[n3], fpar, f)
    o_now = s
    if i >= 0:
        o_now = z[i]
        rates[i] = (s - z[i]) / fpar[f + 3]
    eps = fpar[f + 1]
    q = orifice_flow(p[n1] - p[n2], fpar[f] * (eps + (1.0 - eps) * o_now), fpar[f + 4], True)[0]  # metered_flow
    if variant == COUNTERBALANCE:  # CounterbalanceValve: V -> L
        dp = p[n2] - p[n1]
        s_check = smoothstep(dp, fpar[f + 8], fpar[f + 8] + fpar[f + 9])[0]
        q = q - orifice_flow(dp, fpar[f + 7] * s_check, fpar[f + 4], True)[0]
    _edge(inflow, n1, n2, q)
    if want:
        o = ipar[r + 8]
        out[o], out[o + 1], out[o + 2] = q, o_now, (p[n1] - p[n2]) * q


@njit(**PART)
def _sources(kind, r, p, sv, z, fpar, ipar, rates, inflow, out, want):
    """FixedDisplacementPump (sources; seed 001 eq. (43) for its relief) and GasAccumulator (accumulators)."""
    if kind == FIXED_PUMP:  # FixedDisplacementPump: [S, P, speed slot, relief, f, out]
        s_node, p_node, relief, f = ipar[r + 2], ipar[r + 3], ipar[r + 5], ipar[r + 6]
        dp = p[p_node] - p[s_node]
        geometric = fpar[f] * sv[ipar[r + 4]]
        q = geometric - fpar[f + 1] * dp  # D, G_leak, relief pressure, relief gain, relief width
        if relief:
            q -= fpar[f + 3] * softplus(dp - fpar[f + 2], fpar[f + 4])[0]
        _edge(inflow, s_node, p_node, q)
        if want:
            o = ipar[r + 7]
            out[o], out[o + 1], out[o + 2] = q, dp * q, dp * geometric
        return
    # GasAccumulator: [P, state, f, out]; V_0, n, precharge, closing volume,
    # switching pressure, k, dp_lim
    node, i, f = ipar[r + 2], ipar[r + 3], ipar[r + 4]
    v, v0 = z[i], fpar[f]
    gas = smooth_lower_limit(v0 - v, 0.01 * v0, 0.005 * v0)[0]
    pg = (fpar[f + 2] + ATMOSPHERE) * (v0 / gas) ** fpar[f + 1] - ATMOSPHERE
    dp = p[node] - pg
    gate = smoothstep(v, 0.0, fpar[f + 3])[0]
    opening = smoothstep(dp, -fpar[f + 4], fpar[f + 4])[0]
    q = orifice_flow(dp, fpar[f + 5] * (opening + (1.0 - opening) * gate), fpar[f + 6], True)[0]
    rates[i] = q
    inflow[node] -= q
    if want:
        o = ipar[r + 5]
        out[o], out[o + 1], out[o + 2], out[o + 3] = q, pg, v, v0 - v


@njit(**PART)
def _pilot_opening(variant, p1, p2, p3, fpar, f):
    """``PilotValve``: the step of ``balance`` over the opening range (PressureCompensator,
    PressureReducingValve, CounterbalanceValve), PilotOperatedCheckValve."""
    rng = fpar[f + 2]
    if variant == COMPENSATOR or variant == REDUCING:  # P, A, X: dp_set - (p_A - p_X); P, A, T: p_set - (p_A - p_T)
        b = fpar[f + 5] - (p2 - p3)
    elif variant == COUNTERBALANCE:  # L, V, X
        b = (p1 - p2) + fpar[f + 6] * (p3 - p2) - fpar[f + 5]
    else:  # A, B, X
        sf = smoothstep(p1 - p2 - fpar[f + 5], 0.0, rng)[0]
        sp = smoothstep(fpar[f + 6] * (p3 - p1) - (p2 - p1) - fpar[f + 5], 0.0, rng)[0]
        return 1.0 - (1.0 - sf) * (1.0 - sp)
    return smoothstep(b, 0.0, rng)[0]


SIGNATURE = types.void(types.int64, types.float64, types.CPointer(types.float64), types.CPointer(types.float64),
                       types.CPointer(types.float64), types.CPointer(types.float64), types.CPointer(types.float64),
                       types.CPointer(types.int64), types.CPointer(types.float64), types.CPointer(types.float64),
                       types.CPointer(types.float64))


@cfunc(SIGNATURE, cache=True)
def circuit_kernel(mode, t, z_, y_, ydot_, sig_, fpar_, ipar_, rates_, forces_, aux_):
    """:func:`circuit_eval` behind the C signature of the compiled element protocol: ``mode`` 0 writes the
    integrands into ``aux_``, mode 1 the outputs (``Circuit.outputs``, :attr:`CompiledCircuit.output_names`),
    mode 2 the event gaps and their rates (:func:`circuit_gaps`)."""
    head = carray(ipar_, HEAD)
    ipar = carray(ipar_, head[6])
    fpar = carray(fpar_, head[7])
    z, y, ydot = carray(z_, head[0]), carray(y_, head[1]), carray(ydot_, head[1])
    rates, forces, sig = carray(rates_, head[0]), carray(forces_, head[1]), carray(sig_, head[2])
    if mode == 2:
        circuit_gaps(y, ydot, fpar, ipar, carray(aux_, 2 * head[9]))
        return
    want = mode == 1  # a variable, not a literal: one specialisation of circuit_values
    n_nodes, n_slots = head[4], max(head[10], 1)
    work = scratch(5 * n_nodes + n_slots + (head[3] if want else 0))  # on this call's stack: no allocation
    p, sv = work[:n_nodes], work[n_nodes:n_nodes + n_slots]
    nodal = work[n_nodes + n_slots:5 * n_nodes + n_slots].reshape((4, n_nodes))
    if want:  # the integrands are not wanted: scratch
        aux, out = work[5 * n_nodes + n_slots:], carray(aux_, head[8])
    else:
        aux, out = carray(aux_, head[3]), carray(aux_, 0)
    circuit_values(t, z, y, ydot, sig, fpar, ipar, rates, forces, aux, out, want, p, sv, nodal)
