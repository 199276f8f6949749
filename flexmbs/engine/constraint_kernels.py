"""Vectorized evaluation of the basic constraints of all library joints at once.

Each scalar row of a joint declaring ``PRIMITIVES`` (see :mod:`flexmbs.model.joints`) becomes one entry of a table:
point-coincidence component ``c``: ``x_j[c] - x_i[c]``; dot-1 ``(a, b)``: ``a_iᵀ b_j``; dot-2 ``a``:
``a_iᵀ (x_j - x_i)``. One evaluation gathers the marker arrays of the context, computes every residual and its
quasi-coordinate Jacobian rows in one compiled kernel (:func:`flexmbs.model.kernels.constraint_rows`), and adds them into
``Φ`` and ``Φ_q`` body by body (``Φ_q = Φ̄ L``). Joints without primitives (user-defined) and the driver rows of
prescribed motions are evaluated joint by joint by :class:`flexmbs.engine.system.System`.
"""
from __future__ import annotations

import numpy as np

from flexmbs.model.kernels import constraint_rows as _constraint_rows

__all__ = ["CompiledConstraints", "scalar_rows"]

_POINT = ((0, 0, 0), (0, 1, 0), (0, 2, 0))  # the three components of a point coincidence (kind, a, b)
_SCALAR_ROWS: dict = {}  # a joint's PRIMITIVES -> (kind, a, b) of each of its scalar rows, in row order


def scalar_rows(primitives: tuple) -> tuple:
    """``(kind, a, b)`` of each scalar row of ``primitives`` (a joint's ``PRIMITIVES``), in the joint's row order:
    kind 0 a point component ``a``, 1 a dot-1 ``(a, b)``, 2 a dot-2 ``a``; found once per kind of joint."""
    found = _SCALAR_ROWS.get(primitives)
    if found is None:
        found = _SCALAR_ROWS[primitives] = tuple(
            comp for prim in primitives
            for comp in (_POINT if prim[0] == "point" else ((1, prim[1], prim[2]),) if prim[0] == "dot1"
                         else ((2, prim[1], 0),)))
    return found


class CompiledConstraints:
    """The base rows of all library joints of a system, as index tables."""

    def __init__(self, joints):
        # per kind (0 point, 1 dot-1, 2 dot-2): (marker i, marker j, a, b, row, kind) of each kept row; per row in
        # joint order: (kind, position in its kind); per joint: the end of its rows there
        tables: tuple = ([], [], [])
        kinds, ends = [], []
        for joint in joints:
            mask = None if joint.row_mask is None else joint.row_mask.tolist()
            mi, mj, row = joint.marker_i.index, joint.marker_j.index, joint.offset
            for local, (code, a, b) in enumerate(scalar_rows(joint.PRIMITIVES)):
                if mask is None or mask[local]:
                    table = tables[code]
                    kinds.append((code, len(table)))
                    table.append((mi, mj, a, b, row, code))
                    row += 1
            ends.append(len(kinds))
        first = (0, len(tables[0]), len(tables[0]) + len(tables[1]))
        self.n_rows = len(kinds)
        # joint -> positions of its rows in the concatenated (point, dot1, dot2) order (views of one array: an
        # array per joint cost ≈ 2 µs each of a start)
        flat = np.array([first[code] + k for code, k in kinds], dtype=np.int64)
        self.positions = {joint: flat[start:end] for joint, start, end in zip(joints, [0, *ends], ends)}
        # flat tables for the compiled kernel (kinds 0 point, 1 dot-1, 2 dot-2, in the concatenated row order)
        tab = np.array(tables[0] + tables[1] + tables[2], dtype=np.int64).reshape(-1, 6).T.copy()
        self.flat_mi, self.flat_mj, self.flat_a, self.flat_b, self.flat_rows, self.flat_kind = tab

    def evaluate(self, ctx, phi: np.ndarray, jac: np.ndarray | None):
        """Write the rows into ``phi`` (n_c,) and, if given, ``jac`` (n_c, n_q); returns the quasi Jacobians."""
        if not self.n_rows:
            return None
        X, R, JX, JTH = ctx.marker_arrays()[:4]
        n_max = JX.shape[2]
        ji, jj = np.empty((self.n_rows, n_max)), np.empty((self.n_rows, n_max))
        with_jac, s = jac is not None, ctx.system  # (the system's own tables)
        _constraint_rows(X, R, JX, JTH, self.flat_kind, self.flat_mi, self.flat_mj, self.flat_a, self.flat_b,
                         self.flat_rows, s.marker_body, s.body_offsets, s.body_n_coordinates, ctx.G, phi,
                         jac if with_jac else np.zeros((0, 0)), ji, jj, with_jac)
        return ji, jj
