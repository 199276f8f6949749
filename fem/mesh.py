"""Volume meshes read through meshio, checked, with named node and element sets.

Supported volume cells: linear and quadratic tetrahedra (``tetra``, ``tetra10``), linear, serendipity (20-node, straight
edges) and complete-quadratic hexahedra (``hexahedron``, ``hexahedron20``, ``hexahedron27``). Any format meshio reads
works (Gmsh ``.msh`` v2/v4, ``.vtu``, Abaqus ``.inp``, Nastran ``.bdf``, ...). Gmsh physical groups become named element
sets and the node sets of their nodes; Abaqus/Nastran node and element sets come through meshio's
``point_sets``/``cell_sets``; an Abaqus file's materials, sections, node ids and surfaces through :mod:`fem.abaqus`, a
Nastran file's GRID ids, PSOLIDs and MAT1s through :mod:`fem.nastran`, an ANSYS ``.cdb`` archive (mesh, components,
materials) through :mod:`fem.ansys`.
"""
from __future__ import annotations

import contextlib
import io
import os
import warnings
from dataclasses import dataclass, field

import meshio
import numpy as np

from fem.errors import MeshError

__all__ = ["Mesh", "load_mesh", "from_meshio", "VOLUME_CELL_TYPES", "corner_count"]

#: meshio cell type -> (skfem family, order, number of corner vertices)
VOLUME_CELL_TYPES = {
    "tetra": ("tet", 1, 4),
    "tetra10": ("tet", 2, 4),
    "hexahedron": ("hex", 1, 8),
    "hexahedron20": ("hex", 2, 8),
    "hexahedron27": ("hex", 2, 8),
}
_KNOWN_UNSUPPORTED = {
    "wedge": "wedges (prisms)",
    "wedge15": "quadratic wedges",
    "wedge18": "quadratic wedges",
    "pyramid": "pyramids",
    "pyramid13": "quadratic pyramids",
    "pyramid14": "quadratic pyramids",
}


def corner_count(cell_type: str) -> int:
    return VOLUME_CELL_TYPES[cell_type][2]


@dataclass
class Mesh:
    """A volume mesh with one cell type.

    Attributes
    ----------
    points : (n_nodes, 3) float, m
    cells : (n_elements, n_per_cell) int
        Node indices in meshio/VTK ordering.
    cell_type : str
        meshio name, one of :data:`VOLUME_CELL_TYPES`.
    node_ids : (n_nodes,) int
        Ids the user sees (the file's numbering where it has one, else 1-based index).
    node_sets : dict[str, ndarray of int]
        Named node index sets.
    element_sets : dict[str, ndarray of int]
        Named element index sets.
    source : str
        Path of the file read ('' for meshes built in memory).
    materials : dict[str, fem.materials.Material]
        Materials the file assigns, by element set name (Abaqus ``*Solid Section``; empty when the file has none):
        :func:`fem.model.solid_model` uses them when no material is given.
    """

    points: np.ndarray
    cells: np.ndarray
    cell_type: str
    node_ids: np.ndarray
    node_sets: dict = field(default_factory=dict)
    element_sets: dict = field(default_factory=dict)
    source: str = ""
    materials: dict = field(default_factory=dict)
    # boundary_triangles' result with the cells and cell type it was computed from (not part of the mesh's value)
    _boundary: tuple | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def n_nodes(self) -> int:
        return int(self.points.shape[0])

    @property
    def n_elements(self) -> int:
        return int(self.cells.shape[0])

    @property
    def bounding_box(self) -> tuple[np.ndarray, np.ndarray]:
        return self.points.min(axis=0), self.points.max(axis=0)

    def describe_box(self) -> str:
        lo, hi = self.bounding_box
        return "[" + ", ".join(f"{a:.4g}..{b:.4g}" for a, b in zip(lo, hi)) + "] m"


def load_mesh(path: str | os.PathLike) -> Mesh:
    """Read a volume mesh with meshio and check it.

    Parameters
    ----------
    path : str
        Any mesh file meshio reads.

    Returns
    -------
    Mesh

    Raises
    ------
    MeshError
        Missing or unreadable file, no volume cells, unsupported or mixed volume cell types, inverted elements.
    """
    if not isinstance(path, (str, bytes, os.PathLike)):  # issue 43: None raised a TypeError
        raise MeshError(f"load_mesh expects the path of a mesh file, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.exists(path):
        raise MeshError(f"mesh file {path!r} does not exist")
    if path.lower().endswith(".cdb"):
        from fem.ansys import read_cdb

        raw, materials = read_cdb(path)  # ANSYS archive: ansys-mapdl-reader, MPDATA materials, components
        mesh = from_meshio(raw, source=path)
        mesh.materials = {k: v for k, v in materials.items() if k in mesh.element_sets}
        return mesh
    chatter = io.StringIO()
    try:
        # meshio's readers print to stdout/stderr (and one exits); keep both streams clean for --json and errors
        with contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter):
            raw = meshio.read(path)
    except (Exception, SystemExit) as exc:
        reason = str(exc).strip() if str(exc).strip() not in ("", "1") else chatter.getvalue().strip()
        reason = reason.splitlines()[0] if reason else type(exc).__name__
        raise MeshError(f"cannot read mesh {path!r}: {' '.join(reason.split())}") from None
    if path.lower().endswith(".med"):
        _med_to_vtk_order(raw, path)
    if path.lower().endswith((".bdf", ".nas")):
        from fem.nastran import annotate_raw as annotate_nastran

        materials = annotate_nastran(raw, path, VOLUME_CELL_TYPES)  # GRID ids, PSOLID<pid> sets and their MAT1
        mesh = from_meshio(raw, source=path)
        mesh.materials = {k: v for k, v in materials.items() if k in mesh.element_sets}
        return mesh
    if not path.lower().endswith(".inp"):
        return from_meshio(raw, source=path)
    from fem.abaqus import annotate_raw, read_inp_properties, section_materials

    props = read_inp_properties(path)  # materials, sections, node ids and surfaces meshio leaves out
    annotate_raw(raw, props, path)
    mesh = from_meshio(raw, source=path)
    mesh.materials = section_materials(props, mesh.element_sets, path)
    return mesh


# MED numbers the nodes of a 3D cell with the structure of VTK's (meshio's) but the opposite orientation (MED's
# reference elements, as written by gmsh and Salome); meshio reads MED connectivity as it is stored, so every cell
# came out inverted (issue 43: `flexmbs mesh x.med` could not be read back). Swapping two corners (tetrahedra: the
# last two; hexahedra: the bottom and top faces) and the mid-edge nodes with them turns one into the other.
_MED_TO_VTK = {
    "tetra": [0, 1, 3, 2],
    "tetra10": [0, 1, 3, 2, 4, 8, 7, 6, 5, 9],  # mid-edge nodes follow: 01, 13, 30, 02, 12, 32
    "hexahedron": [4, 5, 6, 7, 0, 1, 2, 3],
}


def _med_to_vtk_order(raw: meshio.Mesh, path: str) -> None:
    """Renumber the volume cells of a MED file read by meshio into VTK's node order (in place)."""
    for block in raw.cells:
        if block.type in _MED_TO_VTK:
            block.data = np.ascontiguousarray(block.data[:, _MED_TO_VTK[block.type]])
        elif block.type in VOLUME_CELL_TYPES:
            raise MeshError(f"mesh {path!r}: {block.type} cells from a MED file are not supported (their MED node "
                            "order is not converted); write the mesh as .msh, .vtu or .inp")


def from_meshio(raw: meshio.Mesh, source: str = "") -> Mesh:
    """Turn a ``meshio.Mesh`` into a checked :class:`Mesh` (see :func:`load_mesh`)."""
    name = source or "the mesh"
    volume_blocks = [(i, b) for i, b in enumerate(raw.cells) if b.type in VOLUME_CELL_TYPES]
    unsupported = sorted({b.type for b in raw.cells if b.type in _KNOWN_UNSUPPORTED})
    if unsupported:
        what = "; ".join(f"{t} ({_KNOWN_UNSUPPORTED[t]})" for t in unsupported)
        raise MeshError(f"{name} has unsupported volume cells: {what}; supported: {', '.join(VOLUME_CELL_TYPES)}")
    if not volume_blocks:
        found = ", ".join(sorted({b.type for b in raw.cells})) or "none"
        raise MeshError(f"{name} has no volume cells (found: {found}); mesh the solid in 3D (tetra/hexahedron)")
    types = sorted({b.type for _, b in volume_blocks})
    if len(types) > 1:
        raise MeshError(f"{name} mixes volume cell types {types}; use one element type per mesh")
    cell_type = types[0]
    _gmsh_physical_sets(raw)
    cells = np.concatenate([b.data for _, b in volume_blocks]).astype(np.int64)
    points = np.asarray(raw.points, dtype=float)
    if points.shape[1] == 2:
        raise MeshError(f"{name} is two-dimensional; flexmbs needs 3D volume meshes")
    element_sets = _element_sets(raw, volume_blocks)
    node_ids = _node_ids(raw, points.shape[0])
    node_sets = {k: np.unique(np.asarray(v, dtype=np.int64)) for k, v in (raw.point_sets or {}).items()}
    for set_name, elems in element_sets.items():
        node_sets.setdefault(set_name, np.unique(cells[elems]))
    for set_name, nodes in _surface_node_sets(raw).items():
        node_sets.setdefault(set_name, nodes)

    points, cells, node_ids, node_sets = _drop_unused_nodes(points, cells, node_ids, node_sets, name)
    _check_orientation(points, cells, cell_type, name)
    _check_size(points, name)
    return Mesh(points, cells, cell_type, node_ids, node_sets, element_sets, source)


def _element_sets(raw: meshio.Mesh, volume_blocks: list) -> dict:
    """Named element sets over the concatenated volume cells (gmsh physical groups, Abaqus/Nastran sets)."""
    offsets, start = {}, 0
    for i, block in volume_blocks:
        offsets[i] = start
        start += len(block.data)
    sets = {}
    for set_name, per_block in (raw.cell_sets or {}).items():
        if set_name.startswith("gmsh:"):
            continue
        idx = [np.asarray(per_block[i], dtype=np.int64) + offsets[i] for i in offsets if i < len(per_block)
               and per_block[i] is not None and len(per_block[i])]
        if idx:
            sets[set_name] = np.unique(np.concatenate(idx))
    return sets


def _gmsh_physical_sets(raw: meshio.Mesh) -> None:
    """Gmsh v2 files carry physical groups as ``gmsh:physical`` tags plus ``field_data`` names; turn them into
    named ``cell_sets`` as meshio already does for v4 files."""
    tags = (raw.cell_data or {}).get("gmsh:physical")
    if not raw.field_data or tags is None or any(not k.startswith("gmsh:") for k in (raw.cell_sets or {})):
        return
    for set_name, (tag, dim) in ((k, v[:2]) for k, v in raw.field_data.items()):
        raw.cell_sets[set_name] = [np.flatnonzero(np.asarray(t) == tag) for t in tags]


def _surface_node_sets(raw: meshio.Mesh) -> dict:
    """Node sets of named groups of lower-dimensional cells (gmsh physical surfaces, e.g. a bearing bore)."""
    sets = {}
    for set_name, per_block in (raw.cell_sets or {}).items():
        if set_name.startswith("gmsh:"):
            continue
        nodes = [raw.cells[i].data[np.asarray(idx, dtype=np.int64)].ravel() for i, idx in enumerate(per_block)
                 if i < len(raw.cells) and raw.cells[i].type not in VOLUME_CELL_TYPES and idx is not None
                 and len(idx)]
        if nodes:
            sets[set_name] = np.unique(np.concatenate(nodes))
    return sets


def _node_ids(raw: meshio.Mesh, n: int) -> np.ndarray:
    """The file's own node numbering where meshio keeps it, else 1..n."""
    for key in ("node_ids", "gmsh:node_ids"):
        ids = (raw.point_data or {}).get(key)
        if ids is not None and len(ids) == n and len(np.unique(ids)) == n:
            return np.asarray(ids, dtype=np.int64)
    return np.arange(1, n + 1, dtype=np.int64)


def _drop_unused_nodes(points, cells, node_ids, node_sets, name):
    used = np.zeros(points.shape[0], dtype=bool)
    used[cells.ravel()] = True
    if used.all():
        return points, cells, node_ids, node_sets
    n_unused = int((~used).sum())
    warnings.warn(f"{name}: dropped {n_unused} node(s) not used by any volume element", stacklevel=3)
    new_index = np.full(points.shape[0], -1, dtype=np.int64)
    new_index[used] = np.arange(int(used.sum()))
    sets = {}
    for k, v in node_sets.items():
        kept = new_index[v[used[v]]]
        if kept.size:
            sets[k] = kept
    return points[used], new_index[cells], node_ids[used], sets


def _check_orientation(points: np.ndarray, cells: np.ndarray, cell_type: str, name: str) -> None:
    """Reject elements with a non-positive corner Jacobian (VTK/meshio ordering)."""
    if VOLUME_CELL_TYPES[cell_type][0] == "tet":
        p = points[cells[:, :4]]
        det = np.einsum("ij,ij->i", np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0]), p[:, 3] - p[:, 0])
        scale = np.linalg.norm(p[:, 1] - p[:, 0], axis=1) ** 3
    else:
        p = points[cells[:, :8]]
        # corner Jacobians at the 8 vertices of a VTK hexahedron (bottom 0-3, top 4-7)
        nbr = [(0, 1, 3, 4), (1, 2, 0, 5), (2, 3, 1, 6), (3, 0, 2, 7), (4, 7, 5, 0), (5, 4, 6, 1), (6, 5, 7, 2),
               (7, 6, 4, 3)]
        dets = [np.einsum("ij,ij->i", np.cross(p[:, b] - p[:, a], p[:, c] - p[:, a]), p[:, d] - p[:, a])
                for a, b, c, d in nbr]
        det = np.min(dets, axis=0)
        scale = np.linalg.norm(p[:, 1] - p[:, 0], axis=1) ** 3
    bad = np.flatnonzero(det <= 1e-12 * np.maximum(scale, np.finfo(float).tiny))
    if bad.size:
        first = ", ".join(str(int(b)) for b in bad[:5])
        raise MeshError(f"{name} has {bad.size} inverted or degenerate element(s) (first at index {first}); "
                        "fix the element node ordering or the mesh")


def _check_size(points: np.ndarray, name: str) -> None:
    extent = float(np.max(points.max(axis=0) - points.min(axis=0)))
    if extent > 200.0 or extent < 1e-3:
        unit_hint = "millimetres? scale by 0.001" if extent > 200.0 else "tiny part; check the unit"
        warnings.warn(f"{name} is {extent:.4g} m across: flexmbs works in metres ({unit_hint})", stacklevel=3)


_FACES = {
    "tet": np.array([[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]]),
    "hex": np.array([[0, 3, 2, 1], [4, 5, 6, 7], [0, 1, 5, 4], [1, 2, 6, 5], [2, 3, 7, 6], [3, 0, 4, 7]]),
}


def boundary_triangles(mesh: Mesh) -> np.ndarray:
    """Triangles (n_tri, 3) over node indices covering the outer surface (corner nodes; quads split in two).

    Computed once per mesh and kept on it (a reduction asks twice: the surface areas of the spiders and the body's
    surface, issue 31); computed again if ``cells`` or ``cell_type`` are replaced (not if the cells array is changed
    in place). Each call returns its own copy.
    """
    cached = mesh._boundary
    if cached is not None and cached[0] is mesh.cells and cached[1] == mesh.cell_type:
        return cached[2].copy()
    family = VOLUME_CELL_TYPES[mesh.cell_type][0]
    faces = mesh.cells[:, _FACES[family]].reshape(-1, _FACES[family].shape[1])
    key = np.sort(faces, axis=1)
    # rows in lexicographic order, as np.unique(key, axis=0) has them (177k-dof bar: 0.04 s against 0.12-0.19 s)
    order = np.lexsort(key.T[::-1])
    key = key[order]
    same = np.all(key[1:] == key[:-1], axis=1)  # a face shared with the next one
    single = np.ones(len(key), dtype=bool)
    single[1:] &= ~same
    single[:-1] &= ~same
    outer = faces[order[single]]  # faces of one element only
    if outer.shape[1] == 4:
        outer = np.vstack([outer[:, [0, 1, 2]], outer[:, [0, 2, 3]]])
    mesh._boundary = (mesh.cells, mesh.cell_type, outer)
    return outer.copy()
