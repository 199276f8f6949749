"""Node selectors, as typed on the command line.

``sphere:x,y,z,r`` · ``box:x0,y0,z0,x1,y1,z1`` · ``cylinder:x0,y0,z0,x1,y1,z1,r`` (nodes on the surface of a bore of
radius r around the axis through the two points, within the axis segment) · ``group:NAME`` (a named node set of the
mesh: a gmsh physical group, an Abaqus ``*Nset``/``*Elset``/``*Surface``, a Nastran ``PSOLID<pid>``, an ANSYS
component or ``MAT<id>``; case-insensitive where that is unambiguous) · ``nodes:ID,ID,...`` (mesh node ids).

The geometric selectors take a tolerance in metres after their numbers, ``tol=T``: ``cylinder:…,r,tol=0.0005``
picks the nodes within 0.5 mm of the bore surface (default ``max(1 % of r, 10⁻⁶ of the mesh size)``: a faceted or
slightly oval bore of a CAD export needs more); for ``sphere``/``box`` it widens the shape (default 10⁻⁶ of the mesh
size).
"""
from __future__ import annotations

import numpy as np

from fem.errors import SelectionError

__all__ = ["select_nodes"]

_ARITY = {"sphere": 4, "box": 6, "cylinder": 7}


def select_nodes(selector: str, points: np.ndarray, node_ids: np.ndarray, node_sets: dict,
                 describe_box: str = "", tolerance: float | None = None) -> np.ndarray:
    """Indices of the nodes a selector picks.

    Parameters
    ----------
    selector : str
        See the module docstring.
    points : (n, 3) float, m
    node_ids : (n,) int
    node_sets : dict[str, ndarray]
    describe_box : str
        Bounding box text for the error message.
    tolerance : float, m, optional
        Geometric tolerance; default 1e-6 of the mesh size (and 1 % of r for cylinders).

    Returns
    -------
    ndarray of int, sorted
    """
    kind, _, args = selector.partition(":")
    kind = kind.strip().lower()
    extent = float(np.max(np.ptp(points, axis=0))) if len(points) else 1.0
    tol = tolerance if tolerance is not None else 1e-6 * extent
    if kind in _ARITY:
        args, given = _tolerance_option(selector, args)
        values = _numbers(selector, args, _ARITY[kind])
        hits = _geometric(kind, values, points, tol if given is None else given, given is not None)
    elif kind == "group":
        # exact name first; else the one name equal ignoring case (Abaqus sets and ANSYS components are
        # case-insensitive in their own solvers)
        same = [k for k in node_sets if k.casefold() == args.casefold()]
        name = args if args in node_sets else (same[0] if len(same) == 1 else None)
        if name is None:
            known = ", ".join(sorted(node_sets)) or "none"
            raise SelectionError(f"selector {selector!r}: the mesh has no group {args!r} (groups: {known})")
        hits = np.asarray(node_sets[name], dtype=np.int64)
    elif kind == "nodes":
        wanted = _numbers(selector, args, None).astype(np.int64)
        lookup = {int(i): k for k, i in enumerate(node_ids)}
        missing = [int(w) for w in wanted if int(w) not in lookup]
        if missing:
            raise SelectionError(f"selector {selector!r}: no node with id {missing[:5]} in the mesh")
        hits = np.array([lookup[int(w)] for w in wanted], dtype=np.int64)
    else:
        raise SelectionError(f"unknown selector {selector!r}; use sphere:, box:, cylinder:, group: or nodes:")
    hits = np.unique(hits)
    if hits.size == 0:
        raise SelectionError(f"selector {selector!r} matches no node; the mesh spans {describe_box}")
    return hits


def _tolerance_option(selector: str, args: str) -> tuple[str, float | None]:
    """Split a trailing ``tol=T`` (m, ≥ 0) off the arguments of a geometric selector."""
    head, _, last = args.rpartition(",")
    key, eq, value = last.partition("=")
    if not eq:
        return args, None
    if key.strip().lower() != "tol":
        raise SelectionError(f"selector {selector!r}: unknown option {key.strip()!r}; the only option is tol=METRES")
    try:
        tol = float(value)
    except ValueError:
        raise SelectionError(f"selector {selector!r}: tol={value.strip()!r} is not a number of metres") from None
    if not (np.isfinite(tol) and tol >= 0.0):
        raise SelectionError(f"selector {selector!r}: tol must be a distance >= 0 m, got {tol}")
    return head, tol


def _numbers(selector: str, args: str, count: int | None) -> np.ndarray:
    try:
        values = np.array([float(a) for a in args.split(",") if a.strip()])
    except ValueError:
        raise SelectionError(f"selector {selector!r}: arguments must be numbers separated by commas") from None
    if count is not None and values.size != count:
        raise SelectionError(f"selector {selector!r}: expected {count} numbers, got {values.size}")
    return values


def _geometric(kind: str, v: np.ndarray, points: np.ndarray, tol: float, exact_tol: bool = False) -> np.ndarray:
    if kind == "sphere":
        return np.flatnonzero(np.linalg.norm(points - v[:3], axis=1) <= v[3] + tol)
    if kind == "box":
        lo, hi = np.minimum(v[:3], v[3:]), np.maximum(v[:3], v[3:])
        return np.flatnonzero(np.all((points >= lo - tol) & (points <= hi + tol), axis=1))
    a, b, radius = v[:3], v[3:6], v[6]
    axis = b - a
    length = np.linalg.norm(axis)
    if length == 0:
        raise SelectionError("cylinder selector: the two axis points coincide")
    axis = axis / length
    rel = points - a
    along = rel @ axis
    radial = np.linalg.norm(rel - np.outer(along, axis), axis=1)
    rtol = tol if exact_tol else max(tol, 0.01 * radius)
    return np.flatnonzero((np.abs(radial - radius) <= rtol) & (along >= -tol) & (along <= length + tol))
