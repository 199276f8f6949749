"""Nastran bulk data (``.bdf``, ``.nas``, ``.dat``) read with pyNastran: grids in the basic system, solid elements,
their ``PSOLID`` properties and ``MAT1`` materials.

meshio's Nastran reader ignores grid coordinate systems (``CP``), node ids and materials; pyNastran
(``pip install pyNastran``, or the ``nastran`` extra of flexmbs) reads the bulk data with cross-referencing, so
``GRID`` positions come out in the basic system. Every ``PSOLID`` becomes an element set ``PSOLID<pid>`` whose
material is its ``MAT1`` (``E``, ``ν``, ``ρ`` as written: SI expected; a missing ``ν`` is computed by pyNastran from
``E`` and ``G``). Element ordering: Nastran ``CTETRA`` (4/10) and ``CHEXA`` (8) grids are in the VTK order meshio
uses.
"""
from __future__ import annotations

import contextlib
import io

import meshio
import numpy as np

from fem.errors import MaterialError, MeshError
from fem.materials import Material

__all__ = ["read_nastran"]

_CELL_TYPES = {("CTETRA", 4): "tetra", ("CTETRA", 10): "tetra10", ("CHEXA", 8): "hexahedron",
               ("CHEXA", 20): "hexahedron20", ("CPENTA", 6): "wedge", ("CPENTA", 15): "wedge15"}


def read_nastran(path: str) -> tuple[meshio.Mesh, dict]:
    """A ``meshio.Mesh`` (node ids in ``point_data['node_ids']``, element sets ``PSOLID<pid>``) and the materials
    ``{set name: Material}`` of a Nastran bulk data file; ``(None, {})`` when pyNastran finds no solid element
    (the caller then reads the file with meshio).

    Raises
    ------
    MeshError
        pyNastran missing or the file unreadable.
    MaterialError
        A ``PSOLID`` whose material is not a ``MAT1`` or lacks ``E`` or ``RHO``.
    """
    try:
        from pyNastran.bdf.bdf import read_bdf
    except ImportError:
        raise MeshError(f"reading the properties of {path!r} needs pyNastran: pip install pyNastran (or give "
                        "--material and a mesh meshio reads)") from None
    chatter = io.StringIO()
    try:
        with contextlib.redirect_stdout(chatter), contextlib.redirect_stderr(chatter):
            model = read_bdf(_bulk_only(path), xref=True, punch=True, debug=None)
    except Exception as exc:  # noqa: BLE001  pyNastran raises many kinds; one line for the user
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise MeshError(f"cannot read Nastran bulk data {path!r}: {reason}") from None
    node_ids = np.array(sorted(model.nodes), dtype=np.int64)
    points = np.array([model.nodes[i].get_position() for i in node_ids], dtype=float)
    index = {int(n): k for k, n in enumerate(node_ids)}
    blocks, pids = {}, {}
    for eid in sorted(model.elements):
        elem = model.elements[eid]
        nodes = [n for n in elem.node_ids if n is not None]
        cell_type = _CELL_TYPES.get((elem.type, len(nodes)))
        if cell_type is None:
            continue  # shells, beams, springs: not part of the solid (meshio's checks name what is left)
        blocks.setdefault(cell_type, []).append([index[int(n)] for n in nodes])
        pids.setdefault(cell_type, []).append(int(elem.pid))
    if not blocks:  # e.g. meshio's own dialect (CTETRA_ cards for 10-node tetrahedra), which meshio reads back
        return None, {}
    cells = [(t, np.array(c, dtype=np.int64)) for t, c in blocks.items()]
    order = [t for t, _ in cells]
    cell_sets, materials = {}, {}
    for pid in sorted({p for values in pids.values() for p in values}):
        name = f"PSOLID{pid}"
        cell_sets[name] = [np.flatnonzero(np.asarray(pids[t]) == pid) for t in order]
        materials[name] = _material(path, model, pid)
    raw = meshio.Mesh(points, cells, point_data={"node_ids": node_ids}, cell_sets=cell_sets)
    return raw, materials


def _bulk_only(path: str):
    """The bulk data of ``path`` for pyNastran's ``punch`` mode: the file itself when it is bulk data only, else
    its lines after ``BEGIN BULK`` (executive and case control, which flexmbs does not use, left out)."""
    with open(path, errors="replace") as handle:
        lines = handle.readlines()
    starts = [k for k, line in enumerate(lines) if line.strip().upper().startswith("BEGIN BULK")]
    if not starts:
        return path
    return io.StringIO("".join(lines[starts[-1] + 1:]))


def _material(path: str, model, pid: int) -> Material:
    prop = model.properties.get(pid)
    if prop is None or prop.type != "PSOLID":
        raise MaterialError(f"{path}: solid elements reference property {pid}, which is not a PSOLID")
    mat = model.materials.get(prop.mid)
    if mat is None or mat.type != "MAT1":
        raise MaterialError(f"{path}: PSOLID {pid} references material {prop.mid}, which is not a MAT1 (flexmbs takes "
                            "isotropic materials; give --material)")
    if not mat.e or not mat.rho:
        raise MaterialError(f"{path}: MAT1 {prop.mid} lacks E or RHO; complete it in the file or give --material")
    return Material(float(mat.e), float(mat.nu), float(mat.rho), f"MAT1 {prop.mid}")
