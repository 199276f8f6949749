"""Nastran ``OUTPUT4`` (``.op4``) matrices, ASCII or binary, read and written with pyyeti.

pyNastran, the usual Nastran library, does not import under NumPy 2.4 (see :mod:`fem.nastran`); pyyeti
(``pip install 'flexmbs[op4]'``), a maintained structural-dynamics package, reads and writes every OP4 variant (dense,
sparse "bigmat", single or double precision, ASCII or binary) and installs without changing NumPy.

An OP4 matrix carries no dof labels. flexmbs takes its rows as the a-set of a free–free export (``OUTPUT4 KAAX, MAAX``
with no SPCs) in Nastran's internal order without resequencing (``PARAM,OLDSEQ,-1``): grid ids ascending, components
ascending, three (solids) or six dofs per grid, over the grids of the node file. A matrix whose size is neither 3 nor 6
times the number of grids is refused.
"""
from __future__ import annotations

import os

import numpy as np
import scipy.sparse as sp

from fem.errors import MeshError, ModelError

__all__ = ["read_op4", "write_op4"]


def _op4():
    try:
        from pyyeti.nastran import op4
    except ImportError:
        raise MeshError("reading or writing OP4 matrices needs pyyeti: pip install 'flexmbs[op4]'") from None
    return op4


def read_op4(path: str, name: str | None, node_ids: np.ndarray) -> np.ndarray:
    """Entries of one real matrix of an OP4 file as (n, 5) float ``row grid, row component, column grid, column
    component, value`` (upper triangle), the rows being the grids ``node_ids`` in ascending order with 3 or 6
    components each (see the module docstring)."""
    if not os.path.exists(path):
        raise MeshError(f"matrix file {path!r} does not exist")
    try:
        matrices = _op4().load(path, sparse=True)
    except MeshError:
        raise
    except Exception as exc:  # noqa: BLE001  pyyeti raises several kinds on a malformed file
        raise MeshError(f"cannot read OP4 file {path!r}: {str(exc).splitlines()[0] if str(exc) else exc}") from None
    if name is None and len(matrices) == 1:
        name = next(iter(matrices))
    if name is None or name.lower() not in matrices:
        raise MeshError(f"{path}: {'which OP4 matrix?' if matrices else 'no matrix'} (matrices: "
                        f"{', '.join(matrices) or 'none'}); name it as FILE:NAME")
    matrix, _form, mtype = matrices[name.lower()]
    if mtype > 2 or np.iscomplexobj(matrix.data if sp.issparse(matrix) else matrix):
        raise MeshError(f"{path}: OP4 matrix {name} is complex; flexmbs takes real matrices")
    n = matrix.shape[0]
    if matrix.shape[1] != n:
        raise ModelError(f"{path}: OP4 matrix {name} is {matrix.shape[0]} x {matrix.shape[1]}, not square")
    nodes = np.sort(np.asarray(node_ids, dtype=np.int64))
    per = n // max(nodes.size, 1)
    if per not in (3, 6) or per * nodes.size != n:
        raise ModelError(f"{path}: OP4 matrix {name} has {n} rows for {nodes.size} grids of the node file; flexmbs "
                         "takes 3 or 6 dofs per grid in ascending grid order (a free-free a-set, PARAM,OLDSEQ,-1): "
                         "give the node file of exactly the exported grids")
    upper = sp.triu(sp.coo_matrix(matrix)).tocoo()
    grid, comp = np.repeat(nodes, per), np.tile(np.arange(1, per + 1), nodes.size)
    return np.column_stack([grid[upper.row], comp[upper.row], grid[upper.col], comp[upper.col],
                            upper.data]).astype(float)


def write_op4(path: str, matrices: dict, binary: bool = False) -> str:
    """Write ``{name: symmetric matrix}`` as an OP4 file (ASCII with 17 significant digits, or binary double
    precision; sparse matrices in "bigmat" form), rows in the order of :func:`read_op4`."""
    _op4().write(path, {k: (sp.csc_matrix(v) if sp.issparse(v) else v, 6) for k, v in matrices.items()},
                 binary=binary, digits=16)
    return path
