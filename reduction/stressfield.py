"""Modal stress over the whole flexible body (or its surface, or named node sets), stored compactly.

The modal stress of node ``p`` and elastic mode ``j`` is the FE stress of the mode shape ``S_j`` expanded to all FE
dofs, recovered at the nodes by averaging the element stresses at the element nodes
(:func:`fem.solid.nodal_stress`, ``σ = λ tr(ε) I + 2 μ ε`` per element, plain average over the elements sharing
the node). A stress history is then the modal superposition ``σ_p(t) = Σ_j σ_pj q_j(t)`` (see
:mod:`flexmbs.post.durability`); it is exact for any deformation in the span of the basis (linear elasticity, small
deformation, modal truncation).

Storage: group ``/stress_field`` of the FlexBody file (optional, so files written before it still read):

* ``nodes`` (n,) int32 — indices into ``/nodes/ids`` (ascending);
* ``modal_stress`` (n, 6, m) float32, Pa per unit modal coordinate, components ``xx, yy, zz, yz, xz, xy`` in the
  body frame; compressed (gzip after the byte shuffle, chunked by node blocks) where that saves a quarter of the
  bytes (:func:`filters`), else contiguous;
* attributes ``scope`` (``"surface"``, ``"all"`` or the node-set selectors) and ``recovery``.

float32 keeps 7 significant digits: far below the discretization error of the recovered stress.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from fem.errors import FileFormatError, ModelError

__all__ = ["StressField", "stress_field_nodes", "modal_stress_field", "write_stress_field", "read_stress_field",
           "GROUP", "COMPRESSION", "filters"]

GROUP = "stress_field"
_RECOVERY = "nodal average of element stresses at the element nodes (fem.solid.nodal_stress)"
_WORK_BYTES = 256e6  # bound of the displacement and stress arrays of one block of modes

#: HDF5 filters of the large datasets of a flexible-body file (mode shapes, invariants, this stress field), chosen
#: by measurement (docs/benchmarks.md, "Writing the flexible-body file"; benchmarks/flex_compression.py): gzip level 1
#: after the byte shuffle is smaller and faster to write and read than the former gzip 4 (46.7 against 48.9 MB, 1.0
#: against 1.4 s write, 0.18 against 0.28 s read for the 177k-dof bar); both are built into every HDF5 library
COMPRESSION = {"compression": "gzip", "compression_opts": 1, "shuffle": True}
#: ... applied only where a trial of them on a sample of the dataset saves at least this share of its bytes. Dense
#: mode shapes and stress save ≈ 10 % at ≈ 70 MB/s of deflate, i.e. more CPU than the bytes cost to write or read;
#: the zero rotations of a solid part, connectivity and node ids save 60–99 % and are cheap to deflate
#: (docs/benchmarks.md, "Reduction at its limit", third round)
COMPRESS_MIN_SAVING = 0.25
_TRIAL_BLOCKS, _TRIAL_BLOCK = 16, 4096  # sample of a dataset for the trial: 16 blocks of 4096 items spread over it


def filters(data: np.ndarray) -> dict:
    """HDF5 filter keywords for ``data``: :data:`COMPRESSION` where deflate (level 1 after the byte shuffle) saves at
    least :data:`COMPRESS_MIN_SAVING` of a sample's bytes (16 blocks of 4096 items spread over the array), else none
    (datasets of at most 4096 items are never filtered)."""
    import zlib

    data = np.asarray(data)
    if data.size <= 4096:
        return {}
    if data.dtype.kind not in "biufc":
        return dict(COMPRESSION)
    flat = np.ascontiguousarray(data).reshape(-1)
    if flat.size > _TRIAL_BLOCKS * _TRIAL_BLOCK:
        starts = np.linspace(0, flat.size - _TRIAL_BLOCK, _TRIAL_BLOCKS).astype(np.int64)
        flat = np.concatenate([flat[s:s + _TRIAL_BLOCK] for s in starts])
    raw = np.ascontiguousarray(flat.view(np.uint8).reshape(-1, flat.itemsize).T).tobytes()  # the byte shuffle
    saving = 1.0 - len(zlib.compress(raw, 1)) / max(1, len(raw))
    return dict(COMPRESSION) if saving >= COMPRESS_MIN_SAVING else {}


@dataclass
class StressField:
    """Modal stress at many nodes of a flexible body.

    Attributes
    ----------
    nodes : (n,) int
        Ascending indices into the body's node arrays (``FlexBody.node_ids``).
    modal_stress : (n, 6, m) float32, Pa per unit modal coordinate
        Components ``xx, yy, zz, yz, xz, xy`` in the body frame.
    scope : str
        ``"surface"``, ``"all"`` or the node-set selectors it was restricted to.
    """

    nodes: np.ndarray
    modal_stress: np.ndarray
    scope: str = "surface"

    @property
    def nbytes(self) -> int:
        """Size of the arrays in memory, bytes (the file holds them compressed)."""
        return int(self.nodes.nbytes + self.modal_stress.nbytes)

    def scaled(self, factor: float) -> "StressField":
        """The field times ``factor`` (an E-modulus scaling multiplies the modal stress by it)."""
        return StressField(self.nodes, (np.asarray(self.modal_stress) * factor).astype(np.float32), self.scope)

    def modes(self, selection: np.ndarray) -> "StressField":
        """The field for a subset of modes (the modes a multibody body keeps)."""
        return StressField(self.nodes, np.ascontiguousarray(self.modal_stress[:, :, selection]), self.scope)


def stress_field_nodes(model, scope: str | Sequence[str] | np.ndarray | None) -> tuple[np.ndarray, str]:
    """Mesh node indices of a stress-field scope.

    Parameters
    ----------
    model : fem.model.FEModel
        A solid model (stress recovery needs one).
    scope : str, sequence of str, int array or None
        ``"surface"`` (every node of the outer surface, mid-side nodes included), ``"all"`` (every mesh node),
        ``"none"``/None (no field), node-set selectors such as ``"group:fillet"`` or ``"box:..."`` (one or a list),
        or node indices.

    Returns
    -------
    nodes : (n,) int, ascending
    label : str
        The scope as stored in the file.
    """
    from fem.solid import surface_nodes

    if scope is None or (isinstance(scope, str) and scope == "none"):
        return np.zeros(0, dtype=np.int64), "none"
    if model.solid is None:
        raise ModelError("a stress field needs a solid mesh model; use stress_field='none' for frame models")
    n_mesh = model.mesh.n_nodes
    if isinstance(scope, str) and scope == "surface":
        return surface_nodes(model.solid), "surface"
    if isinstance(scope, str) and scope == "all":
        return np.arange(n_mesh), "all"
    if isinstance(scope, str):
        scope = [scope]
    if len(scope) and all(isinstance(s, str) for s in scope):
        nodes = np.unique(np.concatenate([model.select(s) for s in scope]))
        nodes = nodes[nodes < n_mesh]  # a selector may also catch interface reference nodes: they carry no stress
        if nodes.size == 0:
            raise ModelError(f"stress-field node sets {', '.join(scope)} select no mesh node")
        label = ";".join(scope)
    else:
        nodes = np.unique(np.asarray(scope, dtype=np.int64))
        label = "nodes"
    if nodes.size and (nodes.min() < 0 or nodes.max() >= n_mesh):
        raise ModelError(f"stress-field node index out of range 0..{n_mesh - 1} (only mesh nodes carry stress)")
    return nodes, label


def modal_stress_field(model, modes: np.ndarray, nodes: np.ndarray, scope: str = "surface",
                       progress: Callable[[str], None] | None = None) -> StressField:
    """Recover the modal stress of every mode at ``nodes`` (blocks of modes bound the work memory).

    Parameters
    ----------
    model : fem.model.FEModel
    modes : (n_full_dofs, m) float
        Elastic basis over all FE dofs (spiders expanded).
    nodes : (n,) int
        Mesh node indices, e.g. from :func:`stress_field_nodes`.

    Returns
    -------
    StressField
    """
    nodes = np.asarray(nodes, dtype=np.int64)
    m = modes.shape[1]
    out = np.empty((nodes.size, 6, m), dtype=np.float32)
    if nodes.size == 0:
        return StressField(nodes, out, scope)
    # per mode: the mesh displacements handed to nodal_stress and its float64 sums and result at the nodes (the
    # element work arrays are bounded inside nodal_stress, which does best with many modes at once)
    per_mode = 8.0 * (3 * model.mesh.n_nodes + 2 * 6 * nodes.size)
    block = int(max(1, min(m, _WORK_BYTES // per_mode)))
    if progress:
        progress(f"modal stress at {nodes.size} nodes ({scope}) for {m} modes")
    for start in range(0, m, block):
        cols = slice(start, min(start + block, m))
        out[:, :, cols] = model.stress(modes[:, cols], nodes)
    return StressField(nodes, out, scope)


def write_stress_field(h5file, field: StressField | None) -> None:
    """Write ``field`` to group :data:`GROUP` of an open FlexBody file (nothing for None)."""
    if field is None or field.nodes.size == 0:
        return
    group = h5file.create_group(GROUP)
    group.attrs.update({"scope": field.scope, "recovery": _RECOVERY})
    nodes = np.asarray(field.nodes, dtype=np.int32)
    ds = group.create_dataset("nodes", data=nodes, **filters(nodes))
    ds.attrs["unit"] = "1"
    data = np.asarray(field.modal_stress, dtype=np.float32)
    chunk = (int(min(data.shape[0], max(1, 2**20 // max(1, 4 * 6 * data.shape[2])))), 6, data.shape[2])
    kwargs = filters(data)  # chunked by node blocks where it is compressed, else contiguous (no chunk padding)
    ds = group.create_dataset("modal_stress", data=data, **({"chunks": chunk, **kwargs} if kwargs else {}))
    ds.attrs["unit"] = "Pa"
    ds.attrs["components"] = "xx,yy,zz,yz,xz,xy"


def read_stress_field(h5file, n_nodes: int, n_modes: int, path: str = "") -> StressField | None:
    """The stress field of an open FlexBody file, or None if the file has none (older files)."""
    if GROUP not in h5file:
        return None
    group = h5file[GROUP]
    nodes = group["nodes"][()].astype(np.int64)
    stress = group["modal_stress"][()]
    if stress.shape != (nodes.size, 6, n_modes) or (nodes.size and (nodes.min() < 0 or nodes.max() >= n_nodes)):
        raise FileFormatError(f"{path!r} has an inconsistent stress field: the file is damaged; re-run flexmbs "
                              "reduce")
    return StressField(nodes, stress, str(group.attrs.get("scope", "")))


def stored_size(h5file) -> int:
    """Bytes the stress field takes in the file (compressed), 0 if there is none."""
    if GROUP not in h5file:
        return 0
    return int(sum(h5file[GROUP][k].id.get_storage_size() for k in h5file[GROUP]))
