"""Stiffness and mass matrices from the user's solver, as an :class:`fem.model.FEModel` ready for reduction.

Supported: Nastran ``DMIG`` matrices (a punch file of ``PARAM,EXTOUT,DMIGPCH``, e.g. ``KAAX`` and ``MAAX``; small-,
large- or free-field, real, symmetric: one triangle or both), read here because pyNastran does not import under NumPy
2.4 (see :mod:`fem.nastran`); Abaqus ``*MATRIX GENERATE`` / ``*MATRIX OUTPUT, FORMAT=MATRIX INPUT`` text files
(``jobname_STIF2.mtx``, ``jobname_MASS2.mtx``): one entry per line, ``row node, row dof, column node, column dof,
value``, the lower, upper or full triangle of a symmetric matrix (Abaqus Keywords Guide, ``*MATRIX INPUT``). Nastran OP4
matrices (:mod:`fem.op4`, pyyeti) and ANSYS ``.full`` files (:mod:`fem.ansys`, ansys-mapdl-reader) are read by those
modules. Node positions come from the ``*Node`` block of the job's ``.inp`` (the numbering of the matrices), an ANSYS
``.cdb``, the GRIDs of a Nastran ``.bdf`` or a text file of ``id, x, y, z`` lines.

Dofs 1-3 are translations, 4-6 rotations. Every node must carry all three translations (a free–free export: dofs
removed by boundary conditions cannot be reduced as a free body); a node with rotations must carry all three.
Nodes with negative labels (Abaqus internal nodes: Lagrange multipliers, element-internal nodes) have no position and
are refused. Numbers are read as SI, as written.
"""
from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from fem.errors import MeshError, ModelError
from fem.nastran import bulk_cards, card_fields as _card_fields

__all__ = ["read_abaqus_mtx", "write_abaqus_mtx", "read_dmig", "write_dmig", "read_matrix", "read_node_positions",
           "matrix_model", "load_matrix_model", "read_coordinate_matrix", "read_dof_mapping", "coordinate_entries"]


def read_coordinate_matrix(path: str) -> tuple[np.ndarray, bool]:
    """Triplets ``(row, column, value)`` (n, 3), 1-based equation numbers, of a matrix in coordinate form, and
    whether the file says it holds one triangle of a symmetric matrix.

    Two producers: Abaqus ``*MATRIX OUTPUT, FORMAT=COORDINATE`` (``jobname_STIF1.mtx``: ``row column value`` lines,
    both triangles) and ANSYS ``*EXPORT, ..., MMF`` (MatrixMarket: ``%`` comment lines, a ``rows columns entries``
    size line, then ``row column value``; ``coordinate real symmetric`` stores one triangle). An entry given in
    both triangles must agree (:func:`_assemble`).
    """
    if not os.path.exists(path):
        raise MeshError(f"matrix file {path!r} does not exist")
    rows, symmetric, market, size_seen = [], False, False, False
    with open(path, errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if number == 1 and text.lower().startswith("%%matrixmarket"):
                market = True
                words = text.lower().split()
                if "coordinate" not in words or "real" not in words:
                    raise MeshError(f"{path}: a MatrixMarket '{' '.join(words[1:])}' file; flexmbs reads 'matrix "
                                    "coordinate real' matrices (ANSYS *EXPORT with *SMAT)")
                symmetric = "symmetric" in words
                continue
            if not text or text.startswith(("%", "*", "#")):
                continue
            fields = text.replace(",", " ").split()
            if market and not size_seen:  # the size line: rows, columns, entries
                size_seen = True
                continue
            try:
                row, col, value = int(fields[0]), int(fields[1]), float(fields[2].replace("D", "E"))
            except (ValueError, IndexError):
                raise MeshError(f"{path}:{number}: expected 'row column value' (coordinate format), got "
                                f"{text[:60]!r}") from None
            if len(fields) != 3 or row < 1 or col < 1:
                raise MeshError(f"{path}:{number}: expected 'row column value' with 1-based equation numbers, got "
                                f"{text[:60]!r}")
            rows.append((row, col, value))
    if not rows:
        raise MeshError(f"matrix file {path!r} has no entries")
    return np.asarray(rows, dtype=float), symmetric


def read_dof_mapping(path: str) -> np.ndarray:
    """Node numbers of the matrix's 3-dof blocks, in matrix order, from an ANSYS DOF mapping file (the MatrixMarket
    ``array integer`` vector that ``*SMAT``/``*EXPORT`` writes beside the matrices: equation ``3 k + c`` is
    translation ``c`` of node ``mapping[k]``), (n_blocks,) int."""
    if not os.path.exists(path):
        raise MeshError(f"DOF mapping file {path!r} does not exist")
    values, size = [], None
    with open(path, errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text.startswith("%"):
                continue
            fields = text.split()
            try:
                numbers = [int(f) for f in fields]
            except ValueError:
                raise MeshError(f"{path}:{number}: expected node numbers, got {text[:60]!r}") from None
            if size is None and len(numbers) == 2:
                size = numbers[0]
                continue
            values += numbers
    if not values or (size is not None and size != len(values)):
        raise MeshError(f"{path}: the DOF mapping lists {len(values)} node numbers, its header {size}")
    return np.asarray(values, dtype=np.int64)


def coordinate_entries(triplets: np.ndarray, block_nodes: np.ndarray, path: str = "matrix") -> np.ndarray:
    """``(row node, row dof, column node, column dof, value)`` entries (n, 5) of coordinate triplets whose equation
    ``3 k + c`` (0-based) is translation ``c + 1`` of node ``block_nodes[k]`` (solid models: three dofs per node)."""
    n_eq = int(triplets[:, :2].max())
    if n_eq > 3 * block_nodes.size:
        raise ModelError(f"{path}: the matrix has {n_eq} equations but the node numbering gives {block_nodes.size} "
                         f"nodes × 3 = {3 * block_nodes.size}; give the node file of the job (or the DOF mapping "
                         "file of ANSYS) with every node of the matrix, three translations each")
    index = triplets[:, :2].astype(np.int64) - 1
    out = np.empty((triplets.shape[0], 5))
    out[:, 0], out[:, 1] = block_nodes[index[:, 0] // 3], index[:, 0] % 3 + 1
    out[:, 2], out[:, 3] = block_nodes[index[:, 1] // 3], index[:, 1] % 3 + 1
    out[:, 4] = triplets[:, 2]
    return out


def _three_field_lines(path: str) -> bool:
    """Whether a ``.mtx`` file holds coordinate triplets (Abaqus FORMAT=COORDINATE) rather than 5 fields."""
    with open(path, errors="replace") as handle:
        for line in handle:
            text = line.strip()
            if text.lower().startswith("%%matrixmarket"):
                return True
            if text and not text.startswith(("*", "%", "#")):
                return len(text.replace(",", " ").split()) == 3
    return False


def read_abaqus_mtx(path: str) -> np.ndarray:
    """Entries of an Abaqus matrix file: (n, 5) float, columns ``row node, row dof, col node, col dof, value``."""
    if not os.path.exists(path):
        raise MeshError(f"matrix file {path!r} does not exist")
    rows = []
    with open(path, errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text.startswith("*"):
                continue
            fields = [f for f in text.split(",") if f.strip()]
            try:
                rows.append([float(f.replace("D", "E").replace("d", "e")) for f in fields])
            except ValueError:
                rows = None
            if rows is None or len(rows[-1]) != 5:
                raise MeshError(f"{path}:{number}: expected 'node, dof, node, dof, value' (Abaqus FORMAT=MATRIX "
                                f"INPUT), got {text[:60]!r}")
    if not rows:
        raise MeshError(f"matrix file {path!r} has no entries")
    return np.asarray(rows, dtype=float)


def write_abaqus_mtx(path: str, matrix: sp.spmatrix, dof_nodes: np.ndarray, dof_components: np.ndarray) -> str:
    """Write the lower triangle of a symmetric ``matrix`` in Abaqus ``FORMAT=MATRIX INPUT`` (17 significant digits).

    ``dof_nodes`` (n,) are the node ids and ``dof_components`` (n,) the dof numbers 1-6 of the matrix rows.
    """
    lower = sp.tril(sp.coo_matrix(matrix)).tocoo()
    with open(path, "w") as handle:
        for r, c, v in zip(lower.row, lower.col, lower.data):
            handle.write(f"{int(dof_nodes[r])},{int(dof_components[r])}, {int(dof_nodes[c])},"
                         f"{int(dof_components[c])}, {v:.17g}\n")
    return path


def _nastran_real(text: str, where: str) -> float:
    import re

    try:
        return float(text)
    except ValueError:
        pass
    try:
        return float(re.sub(r"(?<=[0-9.])([+-])(?=[0-9])", r"e\1", text.replace("D", "E").replace("d", "e")))
    except ValueError:
        raise MeshError(f"{where}: {text!r} is not a number") from None


def _dmig_cards(path: str) -> dict:
    """``{matrix name: [card lines, ...]}`` of the DMIG cards of a Nastran bulk data or punch file."""
    cards = {}
    for lines in bulk_cards(path, "DMIG"):
        fields = _card_fields(lines[:1])
        cards.setdefault(fields[0].upper() if fields else "", []).append(lines)
    return cards


def read_dmig(path: str, name: str | None = None) -> np.ndarray:
    """Entries of a real symmetric ``DMIG`` matrix (a Nastran punch or bulk data file, e.g. ``KAAX``, ``MAAX``):
    (n, 5) float, ``row grid, row component, column grid, column component, value`` as :func:`read_abaqus_mtx`.

    ``name`` selects the matrix when the file holds several. Scalar points (component 0) and complex matrices are
    refused.
    """
    if not os.path.exists(path):
        raise MeshError(f"matrix file {path!r} does not exist")
    cards = _dmig_cards(path)
    if name is None and len(cards) == 1:
        name = next(iter(cards))
    if name is None or name.upper() not in cards:
        raise MeshError(f"{path}: {'no DMIG matrix' if not cards else 'which DMIG matrix?'} (matrices: "
                        f"{', '.join(cards) or 'none'}); name it as FILE:NAME")
    entries = []
    for lines in cards[name.upper()]:
        f = _card_fields(lines) + [""] * 4
        if f[1] == "0":  # header: IFO (6 symmetric, 1 square), TIN (1, 2 real; 3, 4 complex)
            if f[3] not in ("1", "2"):
                raise MeshError(f"{path}: DMIG {name} is complex (TIN={f[3]}); flexmbs takes real matrices")
            continue
        column = (int(f[1]), int(f[2] or 0))
        for k in range(4, len(f) - 2, 4):
            if f[k]:
                entries.append([int(f[k]), int(f[k + 1] or 0), *column,
                                _nastran_real(f[k + 2], f"{path}: DMIG {name}")])
    if not entries:
        raise MeshError(f"{path}: DMIG {name} has no entries")
    entries = np.asarray(entries, dtype=float)
    if np.any(entries[:, [1, 3]] == 0):
        raise ModelError(f"{path}: DMIG {name} has scalar points (component 0); flexmbs needs grid dofs 1-6")
    return entries


def _large_field_real(value: float) -> str:
    """``value`` in at most 16 characters with as many digits as fit: Nastran's exponent form without ``E`` and
    without leading exponent zeros (``-1.23456789012+5``), 12-13 significant digits (``1.234567890E+05`` has 10)."""
    for digits in range(14, 0, -1):
        mantissa, exponent = f"{value:.{digits}E}".split("E")
        text = f"{mantissa}{int(exponent):+d}"
        if len(text) <= 16:
            return text
    raise ValueError(value)


def write_dmig(path: str, name: str, matrix: sp.spmatrix, dof_nodes: np.ndarray, dof_components: np.ndarray,
               mode: str = "w", digits: str = "max") -> str:
    """Write the upper triangle of a symmetric ``matrix`` as a large-field real double-precision ``DMIG*`` (the
    punch format of ``PARAM,EXTOUT,DMIGPCH``). ``digits="max"``: 12-13 significant digits, the most a 16-column
    field holds (:func:`_large_field_real`); ``"punch"``: 10 digits (``1.234567890E+05``), as Nastran punches."""
    upper = sp.triu(sp.csc_matrix(matrix)).tocsc()
    lines = [f"{'DMIG':<8s}{name:<8s}{'0':>8s}{'6':>8s}{'2':>8s}{'0':>8s}{'':8s}{'':8s}{matrix.shape[0]:>8d}"]
    for j in range(upper.shape[1]):
        start, end = upper.indptr[j], upper.indptr[j + 1]
        if start == end:
            continue
        lines.append(f"{'DMIG*':<8s}{name:<16s}{int(dof_nodes[j]):>16d}{int(dof_components[j]):>16d}")
        for i, value in zip(upper.indices[start:end], upper.data[start:end]):
            text = _large_field_real(value) if digits == "max" else f"{value:.9E}"
            lines.append(f"{'*':<8s}{int(dof_nodes[i]):>16d}{int(dof_components[i]):>16d}{text:>16s}")
    with open(path, mode) as handle:
        handle.write("\n".join(lines) + "\n")
    return path


def read_node_positions(path: str) -> dict:
    """``{node id: (x, y, z)}`` (in file order) from an Abaqus ``.inp`` (its ``*Node`` block) or a text file of
    ``id, x, y, z`` lines (commas or blanks; ``#`` comments; the ANSYS node export, a header line and tab-separated
    numbers with decimal commas, is read too)."""
    if not os.path.exists(path):
        raise MeshError(f"node file {path!r} does not exist")
    positions, in_nodes, is_inp = {}, False, path.lower().endswith(".inp")
    with open(path, errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            text = line.split("#")[0].strip()
            if not text or text.startswith("**"):
                continue
            if text.startswith("*"):
                in_nodes = text[1:].split(",")[0].strip().upper() == "NODE"
                continue
            if is_inp and not in_nodes:
                continue
            if "\t" in line and "," in text and "." not in text:  # ANSYS text export: tabs, decimal commas
                fields = text.replace(",", ".").split()
            else:
                fields = text.replace(",", " ").split()
            try:
                positions[int(fields[0])] = tuple(float(f) for f in fields[1:4])
            except (ValueError, IndexError):
                if not positions and not is_inp and not _is_number(fields[0]):
                    continue  # a header line (ANSYS: "Node number  X-Position (m) ...")
                raise MeshError(f"{path}:{number}: expected 'id, x, y, z', got {text[:60]!r}") from None
            if len(positions[int(fields[0])]) != 3:
                raise MeshError(f"{path}:{number}: expected 'id, x, y, z', got {text[:60]!r}")
    if not positions:
        raise MeshError(f"{path} has no node positions ('id, x, y, z' lines or an Abaqus *Node block)")
    return positions


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _assemble(entries: np.ndarray, index: dict, n: int, what: str) -> sp.csr_matrix:
    """Symmetric sparse matrix from entries of one triangle, of both (which must agree), or a mix of the two."""
    keys = list(zip(entries[:, 0].astype(np.int64), entries[:, 1].astype(np.int64)))
    rows = np.array([index[k] for k in keys], dtype=np.int64)
    keys = list(zip(entries[:, 2].astype(np.int64), entries[:, 3].astype(np.int64)))
    cols = np.array([index[k] for k in keys], dtype=np.int64)
    given = sp.coo_matrix((entries[:, 4], (rows, cols)), shape=(n, n)).tocsr()
    pattern = given.copy()
    pattern.data[:] = 1.0
    both = pattern.multiply(pattern.T)  # entries given on both sides of the diagonal (and the diagonal)
    mismatch = abs((given - given.T).multiply(both)).max() if both.nnz else 0.0
    if mismatch > 1e-12 * max(abs(given).max(), 1e-300):
        raise ModelError(f"the {what} matrix is not symmetric (entries differ by {mismatch:.3g}); flexmbs reduces "
                         "symmetric matrices")
    return (given + given.T - given.multiply(both)).tocsr()


def matrix_model(stiffness_entries: np.ndarray, mass_entries: np.ndarray, positions: dict):
    """An :class:`fem.model.FEModel` over the dofs of imported matrices.

    Parameters
    ----------
    stiffness_entries, mass_entries : (n, 5) float
        From :func:`read_abaqus_mtx`: node, dof, node, dof, value (N/m, N, N m/rad; kg, kg m, kg m²).
    positions : dict[int, (3,) float]
        Node positions, m (:func:`read_node_positions`).

    Raises
    ------
    ModelError
        Internal (negative) nodes, nodes without a position, incomplete translation or rotation triples.
    """
    from fem.model import FEModel

    both = np.vstack([stiffness_entries, mass_entries])
    pairs = np.unique(np.vstack([both[:, :2], both[:, 2:4]]).astype(np.int64), axis=0)
    node_ids = np.unique(pairs[:, 0])
    if node_ids.min() <= 0:
        raise ModelError(f"the matrices use internal node {int(node_ids.min())} (non-positive label: a Lagrange "
                         "multiplier or element-internal node); export them without such constraints (use flexmbs "
                         "interfaces instead of MPCs)")
    missing = [int(i) for i in node_ids if int(i) not in positions]
    if missing:
        raise ModelError(f"{len(missing)} node(s) of the matrices have no position (first: {missing[:5]}); give the "
                         "job's .inp or a node file with every node")
    dofs_of = {int(i): set() for i in node_ids}
    for node, dof in pairs:
        if not 1 <= dof <= 6:
            raise ModelError(f"node {node}: dof {dof} is not 1-6 (translations 1-3, rotations 4-6)")
        dofs_of[int(node)].add(int(dof))
    translation, rotation, index = np.full((node_ids.size, 3), -1), np.full((node_ids.size, 3), -1), {}
    count = 0
    for k, node in enumerate(node_ids):
        have = dofs_of[int(node)]
        if not {1, 2, 3} <= have or (have & {4, 5, 6} and not {4, 5, 6} <= have):
            raise ModelError(f"node {int(node)} has dofs {sorted(have)} only; flexmbs needs all translations (and all "
                             "or no rotations): export free–free matrices, without boundary conditions")
        for dof in sorted(have):
            index[(int(node), dof)] = count
            (translation if dof <= 3 else rotation)[k, (dof - 1) % 3] = count
            count += 1
    stiffness = _assemble(stiffness_entries, index, count, "stiffness")
    mass = _assemble(mass_entries, index, count, "mass")
    points = np.array([positions[int(i)] for i in node_ids], dtype=float)
    return FEModel(points, node_ids, stiffness, mass, translation, rotation)


def load_matrix_model(stiffness: str, mass: str, nodes: str, dof_mapping: str | None = None):
    """:func:`matrix_model` from files: ``stiffness`` and ``mass`` as Abaqus ``.mtx`` text files, Nastran ``DMIG``
    matrices (``.pch``, ``.bdf``, ``.dat``; ``FILE:NAME`` picks one of several, e.g. ``out.pch:KAAX``), Nastran OP4
    matrices (``.op4``, :mod:`fem.op4`) or an ANSYS ``.full`` (its K for ``stiffness``, its M for ``mass``,
    :mod:`fem.ansys`); ``nodes`` an Abaqus ``.inp``, an ANSYS ``.cdb``, a Nastran ``.bdf``/``.nas`` (its GRIDs) or
    an ``id, x, y, z`` text file. Node sets of the node file (``*Nset``, components) become ``group:`` names.

    Matrices in coordinate form (:func:`read_coordinate_matrix`: Abaqus ``FORMAT=COORDINATE`` ``.mtx``, ANSYS
    MatrixMarket ``*EXPORT`` files) carry equation numbers only: equation ``3 k + c`` is translation ``c`` of the
    ``k``-th node of the ANSYS ``dof_mapping`` file or, without one, of the node file in file order (Abaqus numbers
    a one-part solid model's equations by its ``*Node`` order, three per node)."""
    positions, groups = _node_file(nodes)
    model = matrix_model(read_matrix(stiffness, "--stiffness", positions, dof_mapping),
                         read_matrix(mass, "--mass", positions, dof_mapping), positions)
    if nodes.lower().endswith(".inp"):
        model.node_sets = _inp_node_sets(nodes, model.node_ids)
    elif groups:
        where = {int(i): k for k, i in enumerate(model.node_ids)}
        model.node_sets = {name: np.unique([where[int(i)] for i in ids if int(i) in where]).astype(np.int64)
                           for name, ids in groups.items() if any(int(i) in where for i in ids)}
    return with_mesh_for_stress(model, nodes)


def with_mesh_for_stress(model, nodes: str):
    """The matrix model with the node file's mesh and materials attached for stress recovery, where the node file
    is a solid mesh with materials (Abaqus ``.inp`` with ``*Solid Section``, ANSYS ``.cdb`` with ``MPDATA``, Nastran
    ``.bdf`` with ``MAT1``) over exactly the matrices' nodes (3 dofs each) at the same positions: then the modal
    stress field is recovered from the imported modes with that mesh and material (``σ = λ tr ε I + 2 μ ε``, as for
    a mesh). Otherwise the model is returned unchanged and ``model.stress_note`` says why it has no stress field.
    The nodes are put in the mesh's order (``node_ids`` keep the numbering)."""
    from fem.errors import FlexmbsError
    from fem.mesh import load_mesh
    from fem.model import FEModel, _element_materials
    from fem.solid import discretize

    reason = None
    if not nodes.lower().endswith((".inp", ".cdb", ".bdf", ".nas")):
        reason = "the node file is not a mesh"
    else:
        try:
            mesh = load_mesh(nodes)
        except FlexmbsError as exc:
            mesh, reason = None, f"the node file is not a solid mesh ({exc})"
        if mesh is not None and not mesh.materials:
            reason = "the node file's mesh defines no material"
        elif mesh is not None and (mesh.n_nodes != model.n_nodes or set(mesh.node_ids.tolist())
                                   != set(model.node_ids.tolist()) or np.any(model.rotation_dofs >= 0)):
            reason = "the node file's mesh nodes are not the matrices' nodes (three dofs each)"
    if reason is None:
        where = {int(i): k for k, i in enumerate(model.node_ids)}
        order = np.array([where[int(i)] for i in mesh.node_ids], dtype=np.int64)
        size = float(np.ptp(mesh.points, axis=0).max())
        if np.abs(model.positions[order] - mesh.points).max() > 1e-9 * size:
            reason = "the node file's mesh positions differ from the node positions"
    if reason is not None:
        model.stress_note = reason
        return model
    lam, mu, _ = _element_materials(mesh, mesh.materials)
    k, m = model.full_stiffness, model.full_mass
    attached = FEModel(mesh.points, mesh.node_ids, k, m, model.translation_dofs[order], model.rotation_dofs[order],
                       mesh=mesh, solid=discretize(mesh), lame=(lam, mu))
    attached.stress_note = f"stress field from the mesh and materials of {nodes}"
    return attached


def _node_file(path: str) -> tuple[dict, dict]:
    """Node positions ``{id: (x, y, z)}`` and node groups ``{name: ids}`` of a node file (see
    :func:`load_matrix_model`)."""
    lower = path.lower()
    if lower.endswith(".cdb"):
        from fem.ansys import cdb_positions

        return cdb_positions(path)
    if lower.endswith((".bdf", ".nas")):
        from fem.mesh import load_mesh

        mesh = load_mesh(path)  # GRID ids (CP = 0 checked), PSOLID<pid> sets
        positions = {int(i): tuple(p) for i, p in zip(mesh.node_ids, mesh.points)}
        return positions, {k: mesh.node_ids[v] for k, v in mesh.node_sets.items()}
    return read_node_positions(path), {}


def read_matrix(spec: str, option: str = "matrix", positions: dict | None = None,
                dof_mapping: str | None = None) -> np.ndarray:
    """Entries of a matrix file by its extension (see :func:`load_matrix_model`); ``positions`` (the node file)
    give the row order of OP4 matrices and of coordinate-form matrices without a ``dof_mapping`` file."""
    path, name = spec, None
    if not os.path.exists(spec) and ":" in spec:
        path, name = spec.rsplit(":", 1)
    lower = path.lower()
    if lower.endswith((".mtx", ".txt", ".mm")) and os.path.exists(path) and _three_field_lines(path):
        triplets, _ = read_coordinate_matrix(path)
        if dof_mapping is not None:
            block_nodes = read_dof_mapping(dof_mapping)
        elif positions is not None:
            block_nodes = np.array(list(positions), dtype=np.int64)
        else:
            raise MeshError(f"{option} {spec!r}: a coordinate-form matrix needs the node file (or a DOF mapping "
                            "file) for its equation numbering")
        return coordinate_entries(triplets, block_nodes, f"{option} {spec}")
    if lower.endswith(".mtx"):
        return read_abaqus_mtx(path)
    if lower.endswith((".pch", ".bdf", ".dat", ".nas", ".dmig")):
        return read_dmig(path, name)
    if lower.endswith(".full"):
        from fem.ansys import read_full

        return read_full(path, name or ("M" if "mass" in option else "K"))
    if lower.endswith(".op4"):
        from fem.op4 import read_op4

        if positions is None:
            raise MeshError(f"{option} {spec!r}: OP4 matrices need the node file for their row order")
        return read_op4(path, name, np.array(sorted(positions), dtype=np.int64))
    raise MeshError(f"{option} {spec!r}: supported are Abaqus *MATRIX OUTPUT text files (.mtx, FORMAT=MATRIX INPUT "
                    "or COORDINATE), ANSYS MatrixMarket exports (.txt, .mm, .mtx), Nastran DMIG (.pch, .bdf, .dat) "
                    "and OP4 (.op4) matrices and ANSYS .full files")


def _inp_node_sets(path: str, node_ids: np.ndarray) -> dict:
    """The ``*Nset`` (and element-set node) groups of the job's ``.inp`` over the matrix model's nodes; empty when
    meshio cannot read the file as a mesh (the positions alone still serve)."""
    import contextlib
    import io

    import meshio

    from fem.abaqus import read_inp_properties

    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            raw = meshio.read(path)
    except (Exception, SystemExit):  # noqa: BLE001  a node-only file: no sets
        return {}
    file_ids = read_inp_properties(path).node_ids
    if file_ids.size != len(raw.points):
        return {}
    where = {int(i): k for k, i in enumerate(node_ids)}
    sets = {}
    for name, members in raw.point_sets.items():
        picked = [where[int(i)] for i in file_ids[np.asarray(members, dtype=np.int64)] if int(i) in where]
        if picked:
            sets[name] = np.unique(np.asarray(picked, dtype=np.int64))
    return sets
