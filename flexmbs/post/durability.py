"""Stress histories over the whole flexible body by modal superposition, and hot spots (docs/durability.md).

The stress at node ``p`` of a flexible body is the modal superposition (linear elasticity, small deformation)

    σ_p(t) = Σ_j σ_pj q_j(t)

of the modal stress ``σ_pj`` (Pa per unit modal coordinate, six components ``xx, yy, zz, yz, xz, xy`` in body
axes, :mod:`reduction.stressfield`) with the elastic coordinates ``q(t)`` of a run: one matrix product per block of
nodes (:func:`iter_histories`), reduced per block to what is asked for; nothing loops over nodes or samples in
Python. Equivalent stresses (Pa): ``von_mises``; ``signed_von_mises`` (von Mises with the sign of the principal
stress of largest magnitude, the usual signed equivalent for cycle counting); ``max_principal`` /
``min_principal`` (:func:`principal_stresses`); the components ``xx`` … ``xy``.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from fem.errors import FlexmbsError

__all__ = ["QUANTITIES", "COMPONENTS", "principal_stresses", "equivalent_stress", "node_blocks",
           "iter_histories", "stress_histories", "peak_statistics", "Hotspot", "hotspots", "body_stress",
           "BodyStress", "flexbody_stress", "reduced_static_response", "stressed_shape"]

COMPONENTS = ("xx", "yy", "zz", "yz", "xz", "xy")
QUANTITIES = ("von_mises", "signed_von_mises", "max_principal", "min_principal") + COMPONENTS
MAX_BYTES = 256e6  # default bound of the work arrays of one block


def principal_stresses(components: np.ndarray, axis: int = -1) -> np.ndarray:
    """Principal stresses, descending, of Voigt components along ``axis`` (xx, yy, zz, yz, xz, xy), Pa.

    Closed form for symmetric 3×3 matrices (trigonometric solution of the characteristic cubic):
    ``q = tr σ / 3``, ``p = sqrt(Σ (σ − q I)² / 6)``, ``r = det((σ − q I)/p) / 2``, ``φ = acos(r) / 3``,
    ``σ1 = q + 2 p cos φ``, ``σ3 = q + 2 p cos(φ + 2π/3)``, ``σ2 = 3 q − σ1 − σ3``.

    Returns
    -------
    ndarray with ``axis`` of length 3: σ1 ≥ σ2 ≥ σ3.
    """
    s = np.moveaxis(np.asarray(components, dtype=float), axis, 0)
    xx, yy, zz, yz, xz, xy = s
    q = (xx + yy + zz) / 3.0
    a, b, c = xx - q, yy - q, zz - q
    p = np.sqrt((a * a + b * b + c * c + 2.0 * (xy * xy + xz * xz + yz * yz)) / 6.0)
    safe = np.where(p > 0.0, p, 1.0)
    det = a * (b * c - yz * yz) - xy * (xy * c - yz * xz) + xz * (xy * yz - b * xz)
    r = np.clip(0.5 * det / safe**3, -1.0, 1.0)
    phi = np.arccos(r) / 3.0
    s1 = q + 2.0 * p * np.cos(phi)
    s3 = q + 2.0 * p * np.cos(phi + 2.0 * np.pi / 3.0)
    s2 = 3.0 * q - s1 - s3
    return np.moveaxis(np.stack([s1, s2, s3]), 0, axis)


def _von_mises(s: np.ndarray) -> np.ndarray:
    xx, yy, zz, yz, xz, xy = s
    return np.sqrt(0.5 * ((xx - yy) ** 2 + (yy - zz) ** 2 + (zz - xx) ** 2) + 3.0 * (yz**2 + xz**2 + xy**2))


def equivalent_stress(components: np.ndarray, quantity: str = "von_mises", axis: int = -1) -> np.ndarray:
    """A scalar stress from Voigt components along ``axis`` (Pa): one of :data:`QUANTITIES`."""
    s = np.moveaxis(np.asarray(components, dtype=float), axis, 0)
    if quantity == "von_mises":
        return _von_mises(s)
    if quantity == "signed_von_mises":
        p = principal_stresses(s, axis=0)
        return np.where(p[0] + p[2] >= 0.0, 1.0, -1.0) * _von_mises(s)  # sign of the larger-magnitude principal
    if quantity == "max_principal":
        return principal_stresses(s, axis=0)[0]
    if quantity == "min_principal":
        return principal_stresses(s, axis=0)[2]
    if quantity in COMPONENTS:
        return s[COMPONENTS.index(quantity)]
    raise FlexmbsError(f"unknown stress quantity {quantity!r}; use one of {', '.join(QUANTITIES)}")


def node_blocks(n_nodes: int, n_samples: int, max_bytes: float = MAX_BYTES) -> list[slice]:
    """Slices of nodes whose stress histories fit ``max_bytes``: 6 components and the ~26 scalar temporaries of
    the principal stresses and the rainflow stack, float64 (measured: the clamp-locking bars peak near the bound)."""
    per_node = 8.0 * max(1, n_samples) * 32
    size = int(max(1, min(n_nodes, max_bytes // per_node)))
    return [slice(a, min(a + size, n_nodes)) for a in range(0, n_nodes, size)]


def iter_histories(modal_stress: np.ndarray, q: np.ndarray, quantity: str = "von_mises",
                   max_bytes: float = MAX_BYTES) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(node slice, history (n_block, n_t))`` of ``quantity`` (Pa) for blocks of nodes: one product
    ``Σ[block] (n_b·6, m) @ Qᵀ (m, n_t)`` each, the blocks' work arrays below ``max_bytes`` (:func:`node_blocks`).

    Parameters
    ----------
    modal_stress : (n, 6, m) float, Pa per unit modal coordinate
    q : (n_t, m) float
        Elastic coordinates of the same modes over time.
    """
    modal_stress = np.asarray(modal_stress)
    q = np.asarray(q, dtype=float)
    n, _, m = modal_stress.shape
    if q.ndim != 2 or q.shape[1] != m:
        raise FlexmbsError(f"modal coordinates {q.shape} do not fit the modal stress of {m} modes")
    qt = np.ascontiguousarray(q.T)
    for block in node_blocks(n, q.shape[0], max_bytes):
        sigma = (modal_stress[block].astype(float).reshape(-1, m) @ qt).reshape(-1, 6, q.shape[0])
        yield block, equivalent_stress(sigma, quantity, axis=1)


def stress_histories(modal_stress: np.ndarray, q: np.ndarray, quantity: str = "von_mises",
                     max_bytes: float = MAX_BYTES) -> np.ndarray:
    """``quantity`` (Pa) at every node and sample, (n, n_t) — for node sets small enough to hold."""
    modal_stress = np.asarray(modal_stress)
    out = np.empty((modal_stress.shape[0], np.shape(q)[0]))
    for block, values in iter_histories(modal_stress, q, quantity, max_bytes):
        out[block] = values
    return out


def peak_statistics(modal_stress: np.ndarray, q: np.ndarray, quantity: str = "von_mises",
                    max_bytes: float = MAX_BYTES) -> dict[str, np.ndarray]:
    """Per node over all samples: ``max``, ``argmax``, ``min``, ``argmin`` of ``quantity`` (Pa), (n,) each."""
    n = np.shape(modal_stress)[0]
    out = {"max": np.empty(n), "argmax": np.empty(n, dtype=np.int64), "min": np.empty(n),
           "argmin": np.empty(n, dtype=np.int64)}
    for block, values in iter_histories(modal_stress, q, quantity, max_bytes):
        out["argmax"][block], out["argmin"][block] = values.argmax(axis=1), values.argmin(axis=1)
        out["max"][block], out["min"][block] = values.max(axis=1), values.min(axis=1)
    return out


@dataclass
class BodyStress:
    """The stress field of one flexible body of a run.

    Attributes
    ----------
    body : str
    nodes : (n,) int           indices into the body's node arrays
    node_ids : (n,) int        the mesh's own node ids (indices if the results do not store ids)
    positions : (n, 3) float   undeformed positions in the body frame, m
    modal_stress : (n, 6, m)   Pa per unit modal coordinate of the simulated modes
    q : (n_t, m)               elastic coordinates
    time : (n_t,) s
    full_field : bool          True for the stored stress field, False for the few output nodes of older files
    """

    body: str
    nodes: np.ndarray
    node_ids: np.ndarray
    positions: np.ndarray
    modal_stress: np.ndarray
    q: np.ndarray
    time: np.ndarray
    full_field: bool


def stressed_shape(scene, body: str, remedy: str = "(flexmbs reduce --stress-field surface, the default) or with "
                   "--output-nodes SEL"):
    """The :class:`flexmbs.post.viz.scene.BodyShape` of flexible body ``body`` with modal stress; one line naming
    the flexible bodies, or the ``remedy`` (how to reduce it with stress), otherwise."""
    shape = scene.body(body)
    if not shape.flexible:
        flexible = [b.name for b in scene.bodies if b.flexible]
        raise FlexmbsError(f"body {body!r} is {shape.kind}: stress needs a flexible body "
                           f"({', '.join(flexible) or 'the results have none'})")
    if shape.stress_table()[0].size == 0:
        raise FlexmbsError(f"flexible body {body!r} has no modal stress: reduce it with a stress field {remedy}")
    return shape


def body_stress(scene, body: str) -> BodyStress:
    """The stress field (or the output nodes, for older files) of flexible body ``body`` of a scene."""
    shape = stressed_shape(scene, body)
    nodes, modal = shape.stress_table()
    ids = shape.node_ids[nodes] if shape.node_ids is not None else nodes
    return BodyStress(body, nodes, np.asarray(ids, dtype=np.int64), shape.points[nodes], modal,
                      scene.modal_coordinates(body), scene.time, bool(shape.stress_nodes.size))


def flexbody_stress(flexbody, q: np.ndarray, time: np.ndarray, modes=None, name: str | None = None) -> BodyStress:
    """The stress field of a :class:`reduction.flexbody.FlexBody` with elastic coordinates ``q`` (n_t, m) of the
    modes ``modes`` (indices, default all) at ``time`` (n_t,) s — for runs held in memory."""
    field = getattr(flexbody, "stress_field", None)
    if field is None:
        raise FlexmbsError(f"flexible body {flexbody.name!r} has no stress field: reduce it with stress_field="
                           "'surface' (the default) or 'all'")
    sel = np.arange(flexbody.n_modes) if modes is None else np.asarray(modes, dtype=np.int64)
    return BodyStress(name or flexbody.name, field.nodes, np.asarray(flexbody.node_ids)[field.nodes],
                      np.asarray(flexbody.positions)[field.nodes], field.modal_stress[:, :, sel],
                      np.atleast_2d(np.asarray(q, dtype=float)), np.atleast_1d(np.asarray(time, dtype=float)), True)


def reduced_static_response(flexbody, clamp: int, loads: dict) -> np.ndarray:
    """Elastic coordinates of the reduced body clamped at node ``clamp`` under static nodal ``loads`` (linear,
    small deformation): the truncation check against a full FE static solution (docs/durability.md).

    The displacement is ``R a + S q`` with the six rigid-body fields ``R`` and the elastic basis ``S``;
    ``diag(0, ω²) [a; q] + Cᵀ λ = [Rᵀ f; Sᵀ f]`` and ``C [a; q] = 0`` with ``C`` the clamp node's translation and
    rotation rows of ``[R, S]`` (the node needs rotational rows: an interface reference node).

    Parameters
    ----------
    flexbody : reduction.flexbody.FlexBody
    clamp : int
        Node index (e.g. ``flexbody.interface("root").node``).
    loads : dict[int, array_like]
        Node index -> force (3,) N, or force and moment (6,) N, N m, body axes.

    Returns
    -------
    (m,) float, elastic coordinates
    """
    pos = np.asarray(flexbody.positions, dtype=float)
    trans, rot = np.asarray(flexbody.translations), np.asarray(flexbody.rotations)
    m = trans.shape[2]

    def rows(p):  # (6, 6 + m): translation and rotation of node p per rigid and elastic coordinate
        x, y, z = pos[p]
        skew = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
        rigid = np.block([[np.eye(3), -skew], [np.zeros((3, 3)), np.eye(3)]])
        return np.hstack([rigid, np.vstack([trans[p], rot[p]])])

    if not flexbody.has_rotation[clamp]:
        raise FlexmbsError("clamp a node with rotational dofs (an interface reference node)")
    force = np.zeros(6 + m)
    for p, value in loads.items():
        value = np.asarray(value, dtype=float)
        force += rows(int(p))[: value.size].T @ value
    c = rows(int(clamp))
    k = np.zeros((6 + m, 6 + m))
    k[6:, 6:] = np.asarray(flexbody.stiffness)
    kkt = np.block([[k, c.T], [c, np.zeros((6, 6))]])
    solution = np.linalg.solve(kkt, np.concatenate([force, np.zeros(6)]))
    return solution[6:6 + m]


@dataclass
class Hotspot:
    """One of the most stressed nodes.

    Attributes
    ----------
    rank : int                 1 = most stressed
    node_id : int              mesh node id
    node_index : int           index into the body's node arrays
    position : (3,) m          undeformed, body frame
    peak : float, Pa           largest value of the quantity over the run
    time_of_peak : float, s
    range : float, Pa          largest minus smallest value over the run
    minimum : float, Pa
    time_of_minimum : float, s
    """

    rank: int
    node_id: int
    node_index: int
    position: np.ndarray
    peak: float
    time_of_peak: float
    range: float
    minimum: float
    time_of_minimum: float


def hotspots(stress: BodyStress, top: int = 10, by: str = "peak", quantity: str = "von_mises",
             max_bytes: float = MAX_BYTES) -> list[Hotspot]:
    """The ``top`` most stressed nodes over the whole run, ranked by ``peak`` or by ``range`` of ``quantity``."""
    if by not in ("peak", "range"):
        raise FlexmbsError(f"rank hot spots by 'peak' or 'range', not {by!r}")
    stats = peak_statistics(stress.modal_stress, stress.q, quantity, max_bytes)
    score = stats["max"] if by == "peak" else stats["max"] - stats["min"]
    order = np.argsort(-score, kind="stable")
    return [Hotspot(rank, int(stress.node_ids[k]), int(stress.nodes[k]), stress.positions[k].copy(),
                    float(stats["max"][k]), float(stress.time[stats["argmax"][k]]),
                    float(stats["max"][k] - stats["min"][k]), float(stats["min"][k]),
                    float(stress.time[stats["argmin"][k]])) for rank, k in enumerate(order[:top], start=1)]
