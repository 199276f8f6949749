"""ANSYS Mechanical APDL files: ``.cdb`` archives (mesh, components, materials) and ``.full`` matrices.

Read with ansys-mapdl-reader (``pip install 'flexmbs[ansys]'``; it installs without changing NumPy):

* ``.cdb`` (``CDWRITE``): nodes and solid elements through its ``Archive`` (``NBLOCK``/``EBLOCK``; the element shapes
  as VTK cells: SOLID185/186/187/285 and their degenerate tetrahedral forms), the ANSYS node numbers as node ids,
  node and element components (``CMBLOCK``) as ``group:`` names (their nodes for element components), and one element
  set ``MAT<id>`` per material number of the solid elements. The reader does not parse materials, so the
  ``MPDATA`` (and ``MP``) lines are read here: ``EX``, ``PRXY`` or ``NUXY`` (or ``GXY``), ``DENS`` of each material,
  **as written** (SI expected). Temperature tables, orthotropic values (``EY``/``EZ`` ≠ ``EX``) and a material
  without a Poisson ratio are refused with a line that says to give ``--material``.
* ``.full`` (``WRFULL`` or a modal solve): the stiffness and consistent mass matrices with their
  (node, dof) reference (``FullFile.load_km``). Constrained dofs (``D``) are removed from a ``.full`` by ANSYS, so a
  file with constraints is refused: a flexible body needs the free part (flexmbs adds the interface spiders).
  Lumped-mass and unsymmetric files are refused by the reader itself.

Element formulation: flexmbs integrates its elements fully. SOLID186's default (``KEYOPT(2)=0``) is the 2 × 2 × 2
reduced rule and SOLID185's the B-bar method, so a hexahedral ``.cdb`` mesh reduced here is slightly stiffer than
in ANSYS; imported ``.full`` matrices are ANSYS's own. ``tests/fem/test_fem_ansys.py`` checks the ``.full`` of the
reader's example (HexBeam, SOLID186) entry by entry against our 20-node assembly with ANSYS's rules (2 × 2 × 2
stiffness, 14-point mass).
"""
from __future__ import annotations

import os
import warnings

import numpy as np

from fem.errors import MaterialError, MeshError, ModelError
from fem.materials import Material

__all__ = ["read_cdb", "read_mp_cards", "cdb_positions", "read_full"]

#: VTK cell type -> meshio name (volume cells; ansys-mapdl-reader gives ANSYS solids as these)
_VTK_TO_MESHIO = {10: "tetra", 24: "tetra10", 12: "hexahedron", 25: "hexahedron20", 29: "hexahedron27",
                  13: "wedge", 26: "wedge15", 14: "pyramid", 27: "pyramid13"}
#: structural solid element routines (ET numbers) whose shapes are read
_STRUCTURAL_SOLIDS = {45, 92, 95, 185, 186, 187, 285}


def _reader():
    try:
        from ansys.mapdl import reader
    except ImportError:
        raise MeshError("reading ANSYS .cdb/.full files needs ansys-mapdl-reader: pip install "
                        "'flexmbs[ansys]'") from None
    return reader


def _archive(path: str):
    if not os.path.exists(path):
        raise MeshError(f"ANSYS archive {path!r} does not exist")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return _reader().Archive(path)
        except Exception as exc:  # noqa: BLE001  the reader raises many kinds
            raise MeshError(f"cannot read ANSYS archive {path!r}: {str(exc).splitlines()[0] if str(exc) else exc}") \
                from None


def _values(fields: list[str], path: str, line: str) -> list[float]:
    out = []
    for text in fields:
        if text.strip():
            try:
                out.append(float(text.replace("D", "E").replace("d", "e")))
            except ValueError:
                raise MaterialError(f"{path}: cannot read {line.strip()[:60]!r}") from None
    return out


def read_mp_cards(path: str) -> dict:
    """Linear material properties of an ANSYS input or archive file: ``{mat id: {label: value}}``.

    ``MPDATA,R5.0,n,Lab,MAT,STLOC,C1,...`` (the archive form) and ``MP,Lab,MAT,C0,C1,...`` (the command). A property
    given at several temperatures (``STLOC`` > 1, several values, or an ``MP`` polynomial) is refused.
    """
    props: dict = {}
    with open(path, errors="replace") as handle:
        for line in handle:
            head = line.split(",")[0].strip().upper()
            if head not in ("MPDATA", "MP"):
                continue
            f = [x.strip() for x in line.split("!")[0].split(",")]
            if head == "MPDATA":
                f = f[1:] if f[1].upper().startswith("R5") else f  # skip the R5.0 format tag
                label, mat, start, values = f[2].upper(), f[3], f[4], _values(f[5:], path, line)
                several = (start not in ("", "1")) or len(values) > 1
            else:
                label, mat, values = f[1].upper(), f[2], _values(f[3:], path, line)
                several = any(v != 0.0 for v in values[1:])
            try:
                mid = int(float(mat or 1))
            except ValueError:
                raise MaterialError(f"{path}: cannot read the material number of {line.strip()[:60]!r}") from None
            if several:
                raise MaterialError(f"{path}: material {mid} {label} depends on temperature; flexmbs takes one value "
                                    "per property: give --material")
            if values:
                props.setdefault(mid, {})[label] = values[0]
    return props


def _material(path: str, mid: int, p: dict) -> Material:
    e = p.get("EX")
    for other in ("EY", "EZ"):
        if other in p and e is not None and abs(p[other] - e) > 1e-9 * abs(e):
            raise MaterialError(f"{path}: material {mid} is orthotropic ({other} ≠ EX); flexmbs takes isotropic "
                                "materials: give --material")
    nu = p.get("PRXY", p.get("NUXY"))
    if nu is None and e is not None and "GXY" in p:
        nu = e / (2.0 * p["GXY"]) - 1.0
    if e is None or nu is None or "DENS" not in p:
        missing = [n for n, v in (("EX", e), ("PRXY/NUXY", nu), ("DENS", p.get("DENS"))) if v is None]
        raise MaterialError(f"{path}: material {mid} lacks {', '.join(missing)}; complete it in the file or give "
                            "--material")
    return Material(e, nu, p["DENS"], f"MAT {mid}")


def _cells(grid) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(meshio type, connectivity, grid cell indices) per volume cell type, in the grid's order."""
    celltypes = np.asarray(grid.celltypes)
    offsets = np.asarray(grid.cell_offsets if hasattr(grid, "cell_offsets") else grid.offset)  # n_cells + 1 starts
    conn = np.asarray(grid.cell_connectivity)
    blocks = []
    for vtk in dict.fromkeys(celltypes.tolist()):
        if vtk not in _VTK_TO_MESHIO:
            continue
        idx = np.flatnonzero(celltypes == vtk)
        data = np.stack([conn[offsets[i]:offsets[i + 1]] for i in idx]).astype(np.int64)
        blocks.append((_VTK_TO_MESHIO[vtk], data, idx))
    return blocks


def read_cdb(path: str):
    """A ``meshio.Mesh`` of the solid elements of an ANSYS archive and its materials.

    Returns
    -------
    raw : meshio.Mesh
        Points, volume cells, ``point_data['node_ids']`` (ANSYS node numbers), ``point_sets`` (node components),
        ``cell_sets`` (element components and ``MAT<id>``).
    materials : dict[str, Material]
        ``{"MAT<id>": Material}`` of the materials the solid elements use.

    Raises
    ------
    MeshError
        Missing reader, unreadable file, no solid elements, non-structural solid element types.
    MaterialError
        A material used by the solids that cannot be read as one isotropic constant material.
    """
    import meshio

    archive = _archive(path)
    grid = archive.grid
    blocks = _cells(grid)
    if not blocks:
        raise MeshError(f"{path} has no solid elements that flexmbs reads (SOLID185/186/187/285)")
    routine = np.asarray(grid.cell_data["ansys_elem_type_num"])
    used = np.concatenate([routine[idx] for _, _, idx in blocks])
    odd = sorted(set(int(r) for r in np.unique(used)) - _STRUCTURAL_SOLIDS)
    if odd:
        raise MeshError(f"{path}: element types {odd} are not structural solids (SOLID185/186/187/285)")
    raw = meshio.Mesh(np.asarray(grid.points, dtype=float), [(t, d) for t, d, _ in blocks])
    nnum = np.asarray(grid.point_data["ansys_node_num"], dtype=np.int64)
    raw.point_data["node_ids"] = nnum
    where = {int(n): k for k, n in enumerate(nnum)}
    raw.point_sets = {name: np.array([where[int(n)] for n in nodes if int(n) in where], dtype=np.int64)
                      for name, nodes in archive.node_components.items()}
    enum = np.asarray(grid.cell_data["ansys_elem_num"], dtype=np.int64)
    material = np.asarray(grid.cell_data["ansys_material_type"], dtype=np.int64)
    sets = {}
    for name, elems in archive.element_components.items():
        wanted = np.isin(enum, np.asarray(elems))
        sets[name] = [np.flatnonzero(wanted[idx]) for _, _, idx in blocks]
    props = read_mp_cards(path)
    materials = {}
    for mid in np.unique(np.concatenate([material[idx] for _, _, idx in blocks])):
        name = f"MAT{int(mid)}"
        sets[name] = [np.flatnonzero(material[idx] == mid) for _, _, idx in blocks]
        if int(mid) in props:
            materials[name] = _material(path, int(mid), props[int(mid)])
    raw.cell_sets = sets
    return raw, materials


def cdb_positions(path: str) -> tuple[dict, dict]:
    """``{node id: (x, y, z)}`` of every node of an archive and ``{component: node ids}`` of its node components
    and the nodes of its element components (for matrices imported from a ``.full``)."""
    archive = _archive(path)
    positions = {int(n): tuple(float(c) for c in xyz[:3]) for n, xyz in zip(archive.nnum, archive.nodes)}
    groups = {name: np.asarray(nodes, dtype=np.int64) for name, nodes in archive.node_components.items()}
    if len(archive.element_components):
        enum = np.asarray(archive.enum)
        for name, elems in archive.element_components.items():
            rows = [archive.elem[k] for k in np.flatnonzero(np.isin(enum, np.asarray(elems)))]
            nodes = np.concatenate([np.asarray(r[10:]) for r in rows]) if rows else np.array([], dtype=np.int64)
            groups.setdefault(name, np.unique(nodes[nodes > 0]).astype(np.int64))
    return positions, groups


def read_full(path: str, which: str, allow_constrained: bool = False) -> np.ndarray:
    """Entries of the stiffness (``which="K"``) or mass (``"M"``) matrix of an ANSYS ``.full`` file: (n, 5) float,
    ``row node, row dof, column node, column dof, value`` (dofs 1-6 = UX..ROTZ), upper triangle.

    ``allow_constrained`` returns the entries of the unconstrained dofs of a file with ``D`` constraints instead of
    refusing it (for comparing matrices; such a file is not a free body).

    Raises
    ------
    MeshError
        Missing file or reader, unreadable file (lumped or unsymmetric matrices), matrix not in the file.
    ModelError
        Constrained dofs (``D``) in the file, or dofs other than UX..ROTZ.
    """
    if not os.path.exists(path):
        raise MeshError(f"matrix file {path!r} does not exist")
    reader = _reader()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            full = reader.read_binary(path)  # a FullFile (by the file header)
            if type(full).__name__ != "FullFile":
                raise ValueError(f"it is a {type(full).__name__}, not a .full matrix file")
            dof_ref, k, m = full.load_km(sort=True)
        except Exception as exc:  # noqa: BLE001  NotImplementedError for lumped/unsymmetric, struct errors, ...
            raise MeshError(f"cannot read ANSYS .full {path!r}: {str(exc).splitlines()[0] if str(exc) else exc}") \
                from None
    const = np.asarray(full.const).reshape(-1, 2)
    if len(const) and not allow_constrained:
        raise ModelError(f"{path} has {len(const)} constrained dofs (first: node {int(const[0, 0])}, dof "
                         f"{int(const[0, 1]) + 1}); write the .full of the free part (no D constraints): flexmbs "
                         "adds the interface spiders itself")
    dof_ref = np.asarray(dof_ref, dtype=np.int64)
    if dof_ref[:, 1].max(initial=0) > 5:
        raise ModelError(f"{path}: the matrices carry dofs other than UX..ROTZ (label index "
                         f"{int(dof_ref[:, 1].max())}); flexmbs reduces structural matrices only")
    matrix = {"K": k, "M": m}.get(which.upper())
    if matrix is None:
        raise MeshError(f"{path}: a .full holds the matrices K and M, not {which!r}")
    import scipy.sparse as sp

    upper = sp.triu(sp.coo_matrix(matrix)).tocoo()
    rows, cols = dof_ref[upper.row], dof_ref[upper.col]
    return np.column_stack([rows[:, 0], rows[:, 1] + 1, cols[:, 0], cols[:, 1] + 1, upper.data]).astype(float)
