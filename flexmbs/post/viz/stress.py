"""Stress histories at output nodes of flexible bodies, the hot spot, and rainflow cycle counts.

The stress at output node ``p`` is the modal superposition ``σ_p(t) = Σ_j Σ_pj q_j(t)`` of the modal stress
``Σ_pj`` (Pa per unit modal coordinate, six components xx, yy, zz, yz, xz, xy in body axes, computed by the
reduction from the FE stress recovery) with the elastic coordinates ``q(t)`` of the results file. Von Mises and
principal stresses follow pointwise. Cycles are counted with the ``rainflow`` package (ASTM E1049-85 four-point
rainflow counting).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fem.errors import FlexmbsError

from flexmbs.post.durability import COMPONENTS

from .scene import MachineScene, as_scene, von_mises

__all__ = ["StressHistory", "stress_history", "hotspot", "principal_stresses", "rainflow_summary",
           "attach_flexbody", "COMPONENTS", "CYCLE_SIGNALS"]

CYCLE_SIGNALS = ("von_mises", "s1", "s2", "s3") + COMPONENTS


@dataclass
class StressHistory:
    """Stress at one output node over time.

    Attributes
    ----------
    body : str
    node_index : int            index into the body's node arrays
    node_id : int or None       mesh node id, if known
    position : (3,) float, m    undeformed position in the body frame
    time : (n_t,) float, s
    components : (n_t, 6) float, Pa   xx, yy, zz, yz, xz, xy in body axes
    von_mises : (n_t,) float, Pa
    principal : (n_t, 3) float, Pa    s1 ≥ s2 ≥ s3
    """

    body: str
    node_index: int
    node_id: int | None
    position: np.ndarray
    time: np.ndarray
    components: np.ndarray
    von_mises: np.ndarray
    principal: np.ndarray

    @property
    def label(self) -> str:
        where = ", ".join(f"{1e3 * c:.1f}" for c in self.position)
        node = f"node {self.node_id}" if self.node_id is not None else f"node index {self.node_index}"
        return f"{self.body} {node} at ({where}) mm"

    def signal(self, name: str) -> np.ndarray:
        """One of ``von_mises``, ``s1``, ``s2``, ``s3``, ``xx`` … ``xy`` (Pa)."""
        if name == "von_mises":
            return self.von_mises
        if name in ("s1", "s2", "s3"):
            return self.principal[:, int(name[1]) - 1]
        if name in COMPONENTS:
            return self.components[:, COMPONENTS.index(name)]
        raise FlexmbsError(f"unknown stress signal {name!r}; use one of {', '.join(CYCLE_SIGNALS)}")


def principal_stresses(components: np.ndarray) -> np.ndarray:
    """Principal stresses (..., 3), descending, of components (..., 6) ordered xx, yy, zz, yz, xz, xy (Pa)."""
    tensor = [[0, 5, 4], [5, 1, 3], [4, 3, 2]]  # the components' positions in the symmetric 3×3 tensor
    return np.linalg.eigvalsh(np.asarray(components, dtype=float)[..., tensor])[..., ::-1]


def attach_flexbody(scene: MachineScene, body_name: str, flex) -> None:
    """Take mesh node ids (and modal stress, if the results lack it) from the body's ``*.flex.h5`` file.

    Raises
    ------
    FlexmbsError
        If the file's nodes are not the ones the results were computed with.
    """
    from .modes import load_body

    body = scene.body(body_name)
    fb = load_body(flex)
    if fb.positions.shape != body.points.shape or not np.allclose(fb.positions, body.points, atol=1e-9):
        raise FlexmbsError(f"{flex!r} does not match body {body_name!r} of the results (different nodes): pass the "
                           "flexible-body file the simulation used")
    body.node_ids = np.asarray(fb.node_ids, dtype=np.int64)
    field = getattr(fb, "stress_field", None)
    if body.stress_nodes.size == 0 and field is not None:
        body.stress_nodes = np.asarray(field.nodes, dtype=np.int64)
        body.stress_field = np.asarray(field.modal_stress)[:, :, body.mode_indices]
    if body.modal_stress.size == 0 and fb.modal_stress.size:
        body.output_nodes = np.asarray(fb.output_nodes, dtype=np.int64)
        body.modal_stress = np.asarray(fb.modal_stress)[:, :, body.mode_indices]


def _flexible(scene: MachineScene, body_name: str):
    from flexmbs.post.durability import stressed_shape

    return stressed_shape(scene, body_name, "(--stress-field surface, the default) or --output-nodes SEL (or pass "
                          "--flex BODY.flex.h5 if the file has them)")


def _output_position(body, node: int | None, node_index: int | None) -> int:
    """Position in the body's stress nodes (the stress field, else the output nodes) of a node given by mesh id
    (``node``) or by node index."""
    outputs = body.stress_table()[0]
    if node is not None:
        if body.node_ids is None:
            raise FlexmbsError(f"the results file does not store the mesh node ids of body {body.name!r}: pass "
                               "--flex BODY.flex.h5 (the file the simulation used) to address nodes by id")
        hits = np.flatnonzero(body.node_ids == int(node))
        if hits.size == 0:
            raise FlexmbsError(f"body {body.name!r} has no node with id {node}")
        node_index = int(hits[0])
    where = np.flatnonzero(outputs == int(node_index))
    if where.size == 0:
        ids = body.node_ids[outputs] if body.node_ids is not None else outputs
        kind = "ids" if body.node_ids is not None else "indices"
        shown = ", ".join(str(int(i)) for i in ids[:12]) + (", …" if ids.size > 12 else "")
        what = f"node {node}" if node is not None else f"node index {node_index}"
        raise FlexmbsError(f"{what} of body {body.name!r} has no modal stress (not an output node or stress-field node); stress node {kind} are {shown} "
                           f"({ids.size} in all; --hotspot finds the most stressed one)")
    return int(where[0])


def stress_history(scene: MachineScene | str, body: str, node: int | None = None,
                   node_index: int | None = None) -> StressHistory:
    """Stress history at an output node given by mesh id ``node`` or by ``node_index`` (into the node arrays).

    Parameters
    ----------
    scene : MachineScene or path of a ``*.results.h5`` file
    body : str
        Name of a flexible body.
    node, node_index : int
        Exactly one of them.
    """
    scene = as_scene(scene)
    shape = _flexible(scene, body)
    if (node is None) == (node_index is None):
        raise FlexmbsError("give a node id or a node index (exactly one)")
    k = _output_position(shape, node, node_index)
    q = scene.modal_coordinates(body)
    nodes, modal = shape.stress_table()
    components = q @ np.asarray(modal[k], dtype=float).T  # (n_t, m) @ (m, 6) → (n_t, 6), Pa
    index = int(nodes[k])
    return StressHistory(body, index, None if shape.node_ids is None else int(shape.node_ids[index]),
                         shape.points[index].copy(), scene.time.copy(), components, von_mises(components),
                         principal_stresses(components))


def hotspot(scene: MachineScene | str, body: str, chunk_bytes: float = 64e6) -> tuple[int, int, float]:
    """The node with the highest von Mises stress over the stress field (else the output nodes) and all times.

    Returns
    -------
    node_index : int       index into the body's node arrays
    time_index : int       sample at which the maximum occurs
    von_mises : float, Pa  the maximum
    """
    from flexmbs.post.durability import peak_statistics

    scene = as_scene(scene)
    shape = _flexible(scene, body)
    nodes, modal = shape.stress_table()
    stats = peak_statistics(modal, scene.modal_coordinates(body), "von_mises", max_bytes=max(chunk_bytes, 1e6))
    p = int(np.argmax(stats["max"]))
    return int(nodes[p]), int(stats["argmax"][p]), float(stats["max"][p])


def rainflow_summary(series: np.ndarray, n_bins: int = 10) -> dict:
    """Rainflow cycle count of a history (ASTM E1049, ``rainflow`` package).

    Parameters
    ----------
    series : (n,) float, Pa
    n_bins : int
        Number of equal-width range bins from 0 to the largest range.

    Returns
    -------
    dict
        ``cycles``: (k, 3) array of range (Pa), mean (Pa), count (0.5 for a half cycle); ``total_cycles``;
        ``max_range`` (Pa); ``bin_edges`` (n_bins + 1,) Pa and ``bin_counts`` (n_bins,) cycles per range bin
        ``(lo, hi]``;
        ``damage_sum_m3``, ``damage_sum_m5``: Σ count · range^m (Pa^m), relative fatigue damage for S–N slopes
        m = 3 and 5 (divide by the S–N constant of the detail for Miner's damage).
    """
    import rainflow

    values = np.asarray(series, dtype=float)
    cycles = np.array([(rng, mean, count) for rng, mean, count, _, _ in rainflow.extract_cycles(values)],
                      dtype=float).reshape(-1, 3)
    max_range = float(cycles[:, 0].max(initial=0.0))  # (ranges are not negative)
    edges = np.linspace(0.0, max_range if max_range > 0 else 1.0, n_bins + 1)
    # bins are right-closed, (lo, hi], as in the rainflow package: the largest range falls in the top bin
    which = np.clip(np.searchsorted(edges, cycles[:, 0], side="left") - 1, 0, n_bins - 1)
    counts = np.bincount(which, weights=cycles[:, 2], minlength=n_bins)[:n_bins] if cycles.size else np.zeros(n_bins)
    return {"cycles": cycles, "total_cycles": float(cycles[:, 2].sum()), "max_range": max_range, "bin_edges": edges,
            "bin_counts": counts, "damage_sum_m3": float(np.sum(cycles[:, 2] * cycles[:, 0] ** 3)),
            "damage_sum_m5": float(np.sum(cycles[:, 2] * cycles[:, 0] ** 5))}
