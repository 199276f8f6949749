"""What meshio's Abaqus reader leaves out of an ``.inp`` file: materials, solid sections, node ids and surfaces.

meshio reads ``*Node``, ``*Element``, ``*Nset`` and ``*Elset``; this module reads, from the same file (and its
``*Include`` files):

* ``*Material, name=N`` with ``*Elastic`` (isotropic ``E, ν``) and ``*Density`` (``ρ``): numbers **as
  written**. Abaqus has no units; flexmbs works in SI, so a model in mm–t–s (E in MPa, ρ in t/mm³) fails
  the solid-range check of :func:`fem.materials.choose_material` with a message saying so; it is never
  converted silently.
* ``*Solid Section, elset=S, material=N``: the material of each element set (names compared case-insensitively,
  as Abaqus does).
* The ``*Node`` ids in file order (the numbering the user sees and that a ``*Matrix Generate`` output uses).
* ``*Surface, type=ELEMENT`` (``ELSET, Sk`` lines: face ``k`` of every element of the set) and ``type=NODE``
  (node ids or node sets): node sets for ``group:NAME`` selectors.

Only the keywords above are interpreted; every other keyword is skipped (as meshio does).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from fem.errors import MaterialError, MeshError
from fem.materials import Material

__all__ = ["InpProperties", "read_inp_properties", "face_nodes"]

#: Abaqus face k (S1..) of an element: its corner nodes (0-based, Abaqus = meshio corner order)
_FACE_CORNERS = {
    "tet": [(0, 1, 2), (0, 3, 1), (1, 3, 2), (2, 3, 0)],
    "hex": [(0, 1, 2, 3), (4, 7, 6, 5), (0, 4, 5, 1), (1, 5, 6, 2), (2, 6, 7, 3), (3, 7, 4, 0)],
}
#: mid-side node -> its edge's corner nodes (C3D10 = meshio tetra10 order)
_TET10_EDGES = {4: (0, 1), 5: (1, 2), 6: (2, 0), 7: (0, 3), 8: (1, 3), 9: (2, 3)}
#: mid-side node -> its edge's corner nodes (C3D20 = meshio hexahedron20 = VTK order)
_HEX20_EDGES = {8: (0, 1), 9: (1, 2), 10: (2, 3), 11: (3, 0), 12: (4, 5), 13: (5, 6), 14: (6, 7), 15: (7, 4),
                16: (0, 4), 17: (1, 5), 18: (2, 6), 19: (3, 7)}


@dataclass
class InpProperties:
    """The parts of an Abaqus input file that meshio does not read.

    Attributes
    ----------
    materials : dict[str, Material]
        By material name as written.
    sections : list[tuple[str, str]]
        ``(element set, material name)`` of each ``*Solid Section`` in file order.
    node_ids : (n,) int
        ``*Node`` ids in file order.
    element_surfaces : dict[str, list[tuple[str, int]]]
        Surface name -> ``(element set, face number 1..)`` pairs.
    node_surfaces : dict[str, list[str]]
        Surface name -> node ids (as text) or node set names.
    incomplete : dict[str, str]
        Materials without ``*Elastic`` or ``*Density`` -> the missing keyword (an error if a section uses one).
    """

    materials: dict = field(default_factory=dict)
    sections: list = field(default_factory=list)
    node_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    element_surfaces: dict = field(default_factory=dict)
    node_surfaces: dict = field(default_factory=dict)
    incomplete: dict = field(default_factory=dict)


def _keyword(line: str) -> tuple[str, dict]:
    """``*Solid Section, elset=A, material=B`` -> ("SOLID SECTION", {"ELSET": "A", "MATERIAL": "B"})."""
    head, *params = line[1:].split(",")
    options = {}
    for item in params:
        key, _, value = item.partition("=")
        if key.strip():
            options[key.strip().upper()] = value.strip().strip('"')
    return " ".join(head.upper().split()), options


def _lines(path: str):
    """Non-comment lines of ``path`` with ``*Include`` files spliced in."""
    with open(path, errors="replace") as handle:
        for raw in handle:
            line = raw.strip()
            if not line or line.startswith("**"):
                continue
            if line.startswith("*"):
                name, options = _keyword(line)
                if name == "INCLUDE" and "INPUT" in options:
                    included = options["INPUT"]
                    if not os.path.isabs(included):
                        included = os.path.join(os.path.dirname(path), included)
                    yield from _lines(included)
                    continue
            yield line


def read_inp_properties(path: str) -> InpProperties:
    """Materials, sections, node ids and surfaces of an Abaqus ``.inp`` file (see the module docstring).

    Raises
    ------
    MaterialError
        An anisotropic ``*Elastic`` or non-numeric values (a material without ``*Elastic`` or ``*Density`` is
        an error only when a section uses it: :func:`section_materials`).
    """
    props = InpProperties()
    elastic, density, ids = {}, {}, []
    block, options, material = "", {}, None
    for line in _lines(path):
        if line.startswith("*"):
            block, options = _keyword(line)
            if block == "MATERIAL":
                material = options.get("NAME", "")
                elastic.setdefault(material, None)
            elif block == "SOLID SECTION":
                props.sections.append((options.get("ELSET", ""), options.get("MATERIAL", "")))
            elif block == "ELASTIC" and options.get("TYPE", "ISOTROPIC").upper() != "ISOTROPIC":
                raise MaterialError(f"{path}: material {material!r} has *Elastic, type={options['TYPE']}; flexmbs "
                                    "takes isotropic materials only (give --material E=..,nu=..,rho=..)")
            elif block == "SURFACE":
                name = options.get("NAME", "")
                if options.get("TYPE", "ELEMENT").upper() == "NODE":
                    props.node_surfaces.setdefault(name, [])
                else:
                    props.element_surfaces.setdefault(name, [])
            continue
        values = [v.strip() for v in line.split(",") if v.strip()]
        if block == "NODE":
            ids.append(int(values[0]))
        elif block == "ELASTIC" and elastic.get(material) is None:  # first line (temperature tables: lowest)
            elastic[material] = _numbers(path, material, "*Elastic", values[:2])
        elif block == "DENSITY" and material not in density:
            density[material] = _numbers(path, material, "*Density", values[:1])
        elif block == "SURFACE":
            name = options.get("NAME", "")
            if name in props.node_surfaces:
                props.node_surfaces[name].append(values[0])
            elif len(values) >= 2:
                props.element_surfaces[name].append((values[0], _face_number(path, name, values[1])))
    for name, e_nu in elastic.items():
        if e_nu is None or name not in density:  # an error only where a section uses it (section_materials)
            props.incomplete[name] = "*Elastic" if e_nu is None else "*Density"
            continue
        props.materials[name] = Material(e_nu[0], e_nu[1], density[name][0], name)
    props.node_ids = np.asarray(ids, dtype=np.int64)
    return props


def _numbers(path: str, material, keyword: str, values: list) -> list:
    try:
        return [float(v.replace("D", "E").replace("d", "e")) for v in values]
    except ValueError:
        raise MaterialError(f"{path}: {keyword} of material {material!r} is not numeric: {values}") from None


def _face_number(path: str, surface: str, text: str) -> int:
    label = text.strip().upper()
    if len(label) < 2 or label[0] != "S" or not label[1:].isdigit():
        raise MeshError(f"{path}: surface {surface!r}: face {text!r} is not S1..S6 (edge or shell faces are not "
                        "supported)")
    return int(label[1:])


def face_nodes(cells: np.ndarray, cell_type: str, face: int) -> np.ndarray:
    """Node indices of Abaqus face ``face`` (1-based) of the elements ``cells`` (meshio order), corner and mid-side.

    Raises
    ------
    MeshError
        Face number out of range, or an element type whose faces are not mapped (27-node hexahedra).
        Mapped: C3D4, C3D10, C3D8, C3D20.
    """
    family = "tet" if cell_type.startswith("tetra") else "hex"
    corners = _FACE_CORNERS[family]
    if not 1 <= face <= len(corners):
        raise MeshError(f"face S{face} does not exist on {cell_type} elements (S1..S{len(corners)})")
    local = list(corners[face - 1])
    if cell_type in ("tetra10", "hexahedron20"):
        edges = _TET10_EDGES if cell_type == "tetra10" else _HEX20_EDGES
        local += [mid for mid, (a, b) in edges.items() if a in local and b in local]
    elif cell_type not in ("tetra", "hexahedron"):
        raise MeshError(f"element surfaces on {cell_type} elements are not supported; use a node set (*Nset)")
    return np.unique(cells[:, local])


def annotate_raw(raw, props: InpProperties, path: str) -> None:
    """Put the file's node ids and the node sets of its surfaces into a ``meshio.Mesh`` read from ``path`` (before
    :func:`fem.mesh.from_meshio` checks it and drops unused nodes)."""
    n = len(raw.points)
    if props.node_ids.size == n and np.unique(props.node_ids).size == n:
        raw.point_data["node_ids"] = props.node_ids
    index_of_id = {int(i): k for k, i in enumerate(props.node_ids)} if props.node_ids.size == n else None
    point_sets = {k.upper(): k for k in raw.point_sets}
    cell_sets = {k.upper(): k for k in raw.cell_sets}
    for name, items in props.node_surfaces.items():
        nodes = []
        for item in items:
            if item.upper() in point_sets:
                nodes.append(np.asarray(raw.point_sets[point_sets[item.upper()]], dtype=np.int64))
            elif item.lstrip("-").isdigit() and index_of_id is not None and int(item) in index_of_id:
                nodes.append(np.array([index_of_id[int(item)]]))
            else:
                raise MeshError(f"{path}: surface {name!r} names {item!r}, which is neither a node set nor a node")
        if nodes:
            raw.point_sets.setdefault(name, np.unique(np.concatenate(nodes)))
    for name, items in props.element_surfaces.items():
        nodes = []
        for set_name, face in items:
            if set_name.upper() not in cell_sets:
                raise MeshError(f"{path}: surface {name!r} names element set {set_name!r}, which the file lacks")
            for block, elems in zip(raw.cells, raw.cell_sets[cell_sets[set_name.upper()]]):
                if elems is not None and len(elems):
                    nodes.append(face_nodes(block.data[np.asarray(elems, dtype=np.int64)], block.type, face))
        if nodes:
            raw.point_sets.setdefault(name, np.unique(np.concatenate(nodes)))


def section_materials(props: InpProperties, element_sets: dict, path: str) -> dict:
    """``{element set: Material}`` of the file's ``*Solid Section`` cards (names matched case-insensitively).

    Raises
    ------
    MaterialError
        A section naming a material the file does not define, or an element set it does not have.
    """
    materials = {k.upper(): v for k, v in props.materials.items()}
    sets = {k.upper(): k for k in element_sets}
    out = {}
    incomplete = {k.upper(): (k, v) for k, v in props.incomplete.items()}
    for set_name, material in props.sections:
        if material.upper() in incomplete:
            name, missing = incomplete[material.upper()]
            raise MaterialError(f"{path}: material {name!r} has no {missing}; complete it in the file or give "
                                "--material")
        if material.upper() not in materials:
            raise MaterialError(f"{path}: *Solid Section on {set_name!r} names material {material!r}, which the "
                                f"file does not define (materials: {', '.join(props.materials) or 'none'})")
        if set_name.upper() not in sets:
            raise MaterialError(f"{path}: *Solid Section names element set {set_name!r}, which has no volume "
                                "elements in the file")
        out[sets[set_name.upper()]] = materials[material.upper()]
    return out
