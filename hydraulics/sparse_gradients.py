"""Sparse gradient arithmetic of the circuit fast path (:mod:`hydraulics.fastpath`).

A gradient is a dict ``{index in w: value}`` of its entries that may be non-zero. Node pressures whose gradient is a
unit vector (a Volume's state) or zero (a tank, a source set by a time function) carry its index in ``_Point.unit``
(-1 for zero, -2 for any other gradient), so that the kernels write ``c * (grad p_a - grad p_b)`` directly.
"""
from __future__ import annotations

import numpy as np


def sub(a: dict, b: dict) -> dict:
    """``a - b`` elementwise."""
    if not b:
        return a
    if not a:
        return {j: -v for j, v in b.items()}
    return {j: a.get(j, 0.0) - b.get(j, 0.0) for j in a.keys() | b.keys()}


def scale(c: float, a: dict) -> dict:
    """``c * a``."""
    return {j: c * v for j, v in a.items()}


def axpy(d: dict, c: float, g: dict) -> dict:
    """``d + c * g`` into ``d`` (a dict the caller owns)."""
    for j, v in g.items():
        d[j] = d.get(j, 0.0) + c * v
    return d


def pair(pt, c: float, a: int, b: int) -> dict:
    """``c * (grad p_a - grad p_b)`` for the pressures of nodes ``a`` and ``b`` (a new dict)."""
    unit = pt.unit
    ia, ib = unit[a], unit[b]
    if ia > -2 and ib > -2 and (ia != ib or ia == -1):
        if ia >= 0:
            if ib >= 0:
                return {ia: c * 1.0, ib: c * -1.0}
            return {ia: c * 1.0}
        if ib >= 0:
            return {ib: c * -1.0}
        return {}
    pressures = pt.pressures
    return scale(c, sub(pressures[a][1], pressures[b][1]))


def dense_to_sparse(g) -> dict:
    g = np.asarray(g, dtype=float).reshape(-1)
    return {int(j): float(g[j]) for j in np.flatnonzero(g)}


def sparse_to_dense(g: dict, n: int) -> np.ndarray:
    out = np.zeros(n)
    for j, v in g.items():
        out[j] = v
    return out


def accumulate(target: dict, g: dict) -> None:
    """``target += g`` in place."""
    for j, v in g.items():
        target[j] = target.get(j, 0.0) + v
