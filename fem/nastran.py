"""What meshio's Nastran reader leaves out of bulk data (``.bdf``, ``.nas``): GRID ids, properties and materials.

meshio reads ``GRID`` and the element cards (with each element's property id in ``cell_data['nastran:ref']`` and
the GRID ids in ``points_id``). This module adds, from the same file:

* the ``GRID`` ids as the node ids the user sees (``nodes:`` selectors, matrices numbered by them);
* ``SET1`` cards (of GRID ids) as node groups ``SET1<sid>`` (``group:SET1<sid>`` selectors);
* one element set ``PSOLID<pid>`` per property id of the solid elements, with the material of its ``PSOLID`` card:
  ``MAT1`` ``E``, ``ν``, ``ρ`` **as written** (SI expected; a blank ``ν`` or ``E`` follows from the other two and
  ``G`` as Nastran defines it, ``G = E / (2 (1 + ν))``).

Why not pyNastran, the library for Nastran decks: its newest release (1.4.1) requires NumPy < 2 and does not import
under NumPy 2.4, which this project needs (pandas 3); installing it downgrades NumPy for everything else. The two
cards read here are simple, in small-field (8 columns), large-field (``MAT1*``, 16 columns) or free-field (commas)
format; only their first line is needed.

``GRID`` points in a local coordinate system (``CP`` ≠ 0) are refused: meshio takes their coordinates as basic ones.
"""
from __future__ import annotations

import re

import numpy as np

from fem.errors import MaterialError, MeshError
from fem.materials import Material

__all__ = ["annotate_raw", "read_cards", "read_set1", "card_fields", "bulk_cards"]

_EXPONENT = re.compile(r"(?<=[0-9.])([+-])(?=[0-9])")  # Nastran's 1.5+3 = 1.5e3 (no E)


def _fields(lines: list, number: int) -> list[str]:
    """The fields of the card on line ``number``: free field (commas), or fixed 8-column (small) or 16-column (large,
    name ending in ``*``; its continuation line starting with ``*`` appended) fields of columns 9-72."""
    text = lines[number].rstrip("\n")
    if "," in text:
        return [f.strip() for f in text.split(",")]
    large = text[:8].strip().endswith("*")
    width = 16 if large else 8
    fields = [text[:8].strip()] + [text[i:i + width].strip() for i in range(8, min(len(text), 72), width)]
    if large and number + 1 < len(lines) and lines[number + 1].startswith("*"):
        fields = fields + [""] * (5 - len(fields))  # the first line holds four large fields
        more = lines[number + 1].rstrip("\n")
        fields += [more[i:i + width].strip() for i in range(8, min(len(more), 72), width)]
    return fields


def _real(text: str, card: str, path: str) -> float | None:
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return float(_EXPONENT.sub(r"e\1", text.replace("D", "E").replace("d", "e")))
    except ValueError:
        raise MaterialError(f"{path}: {card}: {text!r} is not a number") from None


def read_cards(path: str) -> tuple[dict, dict]:
    """``MAT1`` and ``PSOLID`` cards of a bulk data file.

    Returns
    -------
    mat1 : dict[int, tuple[float|None, float|None, float|None, float|None]]
        MID -> (E, G, ν, ρ) as written (None where blank).
    psolid : dict[int, int]
        PID -> MID.
    """
    mat1, psolid = {}, {}
    with open(path, errors="replace") as handle:
        lines = handle.readlines()
    for number, line in enumerate(lines):
        head = line[:8].split(",")[0].strip().upper().rstrip("*")
        if head == "MAT1":
            f = _fields(lines, number) + [""] * 6
            try:
                mid = int(f[1])
            except ValueError:
                raise MaterialError(f"{path}: MAT1 card without a material id: {line.strip()[:60]!r}") from None
            mat1[mid] = tuple(_real(v, f"MAT1 {mid}", path) for v in f[2:6])
        elif head == "PSOLID":
            f = _fields(lines, number) + [""] * 3
            try:
                psolid[int(f[1])] = int(f[2])
            except ValueError:
                raise MaterialError(f"{path}: PSOLID card without property and material ids: "
                                    f"{line.strip()[:60]!r}") from None
    return mat1, psolid


def card_fields(lines: list[str]) -> list[str]:
    """Logical fields 2, 3, ... of one Nastran card from its physical lines: small field (8 columns, eight data
    fields a line), large field (name ending in ``*``, 16 columns, four a line) or free field (commas, eight a line);
    continuation markers (field 10 and the first field of continuation lines) dropped."""
    out = []
    for k, line in enumerate(lines):
        text = line.rstrip("\n")
        if "," in text:
            parts = [f.strip() for f in text.split(",")]
            out += parts[1:9]
            continue
        large = (text[:8].strip().endswith("*") if k == 0 else text.startswith("*"))
        width = 16 if large else 8
        out += [text[i:i + width].strip() for i in range(8, 72, width)]
    return out


def bulk_cards(path: str, name: str) -> list[list[str]]:
    """The ``name`` cards of a bulk data or punch file (small or large field, ``name*``, or free field), each as
    its lines with the continuation lines that follow it."""
    cards, current = [], None
    with open(path, errors="replace") as handle:
        for line in handle:
            if not line.strip() or line.startswith("$"):
                continue
            head = line[:8].split(",")[0].strip().upper()
            if head.rstrip("*") == name:
                current = [line]
                cards.append(current)
            elif current is not None and line[0] in "+* ," and not head.isalpha():
                current.append(line)
            else:
                current = None
    return cards


def read_set1(path: str) -> dict:
    """``SET1`` cards of a bulk data file: ``{sid: ids}`` (``THRU`` ranges expanded; small, large or free field,
    with continuation lines)."""
    sets = {}
    for lines in bulk_cards(path, "SET1"):
        f = [x for x in card_fields(lines) if x and not x.startswith("+")]  # continuation markers out
        try:
            sid, ids, k = int(f[0]), [], 1
            while k < len(f):
                if f[k].upper() == "THRU":
                    ids += list(range(ids[-1] + 1, int(f[k + 1]) + 1))
                    k += 2
                else:
                    ids.append(int(f[k]))
                    k += 1
        except (ValueError, IndexError):
            raise MeshError(f"{path}: cannot read the SET1 card {lines[0].strip()[:60]!r}") from None
        sets[sid] = np.asarray(ids, dtype=np.int64)
    return sets


def _material(path: str, mid: int, values) -> Material:
    e, g, nu, rho = values
    if e is None and g is not None and nu is not None:
        e = 2.0 * g * (1.0 + nu)
    if nu is None and e is not None and g is not None:
        nu = e / (2.0 * g) - 1.0
    if e is None or nu is None or rho is None:
        raise MaterialError(f"{path}: MAT1 {mid} lacks E, NU (or G) or RHO; complete it in the file or give "
                            "--material")
    return Material(e, nu, rho, f"MAT1 {mid}")


def annotate_raw(raw, path: str, volume_types) -> dict:
    """Put the GRID ids and the ``PSOLID<pid>`` element sets into a ``meshio.Mesh`` read from ``path`` and return
    ``{set name: Material}`` of the PSOLIDs the solid elements (meshio cell types ``volume_types``) use.

    Raises
    ------
    MeshError
        GRID points in a local coordinate system (CP ≠ 0).
    MaterialError
        A property that is not a PSOLID, a PSOLID whose material is not a MAT1, or an incomplete MAT1.
    """
    cp = (raw.point_data or {}).get("nastran:ref")
    if cp is not None and np.any(np.asarray(cp) != 0):
        raise MeshError(f"{path}: GRID points in local coordinate systems (CP = "
                        f"{int(np.asarray(cp)[np.asarray(cp) != 0][0])}) are not supported; export the grids in the "
                        "basic system")
    ids = getattr(raw, "points_id", None)
    if ids is not None and len(ids) == len(raw.points):
        raw.point_data["node_ids"] = np.asarray(ids, dtype=np.int64)
        where = {int(i): k for k, i in enumerate(ids)}
        for sid, members in read_set1(path).items():  # SET1 of grids as node groups SET1<sid>
            picked = [where[int(i)] for i in members if int(i) in where]
            if picked:
                raw.point_sets[f"SET1{sid}"] = np.asarray(picked, dtype=np.int64)
    refs = (raw.cell_data or {}).get("nastran:ref")
    if refs is None or len(refs) != len(raw.cells):
        return {}  # no property ids on the elements: no materials from the file
    mat1, psolid = read_cards(path)
    materials = {}
    solid = [np.asarray(r, dtype=np.int64) for r, block in zip(refs, raw.cells) if block.type in volume_types]
    for pid in np.unique(np.concatenate(solid)) if solid else []:
        name = f"PSOLID{pid}"
        raw.cell_sets[name] = [np.flatnonzero(np.asarray(r) == pid) for r in refs]
        if int(pid) not in psolid:
            raise MaterialError(f"{path}: elements reference property {pid}, which is not a PSOLID card of the file")
        mid = psolid[int(pid)]
        if mid not in mat1:
            raise MaterialError(f"{path}: PSOLID {pid} references material {mid}, which is not a MAT1 (flexmbs takes "
                                "isotropic materials; give --material)")
        materials[name] = _material(path, mid, mat1[mid])
    return materials
