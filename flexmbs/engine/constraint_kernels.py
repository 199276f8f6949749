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

__all__ = ["CompiledConstraints"]


class CompiledConstraints:
    """The base rows of all library joints of a system, as index tables."""

    def __init__(self, system, joints):
        self.joints = joints
        tables = {"point": [], "dot1": [], "dot2": []}
        self.positions = {}  # joint -> positions of its rows in the concatenated (point, dot1, dot2) order
        for joint in joints:
            mask = joint.row_mask if joint.row_mask is not None else np.ones(joint.n_base, dtype=bool)
            local, kept = 0, 0
            entries = []
            for prim in joint.PRIMITIVES:
                comps = [(prim[0], c, None) for c in range(3)] if prim[0] == "point" else [
                    (prim[0], prim[1], prim[2] if prim[0] == "dot1" else None)]
                for kind, a, b in comps:
                    if mask[local]:
                        row = joint.offset + kept
                        entries.append((kind, len(tables[kind])))
                        tables[kind].append((joint.marker_i.index, joint.marker_j.index, a, b if b is not None else 0,
                                             row))
                        kept += 1
                    local += 1
            self.positions[joint] = entries
        self.kinds = [k for k in ("point", "dot1", "dot2") if tables[k]]
        offsets, start = {}, 0
        for kind in self.kinds:
            arr = np.array(tables[kind], dtype=np.int64).reshape(-1, 5)
            setattr(self, kind, arr)
            offsets[kind] = start
            start += len(arr)
        self.n_rows = start
        for joint, entries in self.positions.items():
            self.positions[joint] = np.array([offsets[kind] + k for kind, k in entries], dtype=np.int64)
        self.rows = np.concatenate([getattr(self, k)[:, 4] for k in self.kinds]) if self.kinds else np.zeros(0, int)
        body_of = np.array([m.body.index for m in system.markers] + [-1])
        self.n_bodies = len(system.bodies)
        # flat tables for the compiled kernel (kinds 0 point, 1 dot-1, 2 dot-2, in the concatenated row order)
        codes = {"point": 0, "dot1": 1, "dot2": 2}
        tab = np.concatenate([getattr(self, k) for k in self.kinds]) if self.kinds else np.zeros((0, 5), np.int64)
        self.flat_kind = np.concatenate([np.full(len(getattr(self, k)), codes[k], dtype=np.int64)
                                         for k in self.kinds]) if self.kinds else np.zeros(0, np.int64)
        self.flat_mi, self.flat_mj = np.ascontiguousarray(tab[:, 0]), np.ascontiguousarray(tab[:, 1])
        self.flat_a, self.flat_b = np.ascontiguousarray(tab[:, 2]), np.ascontiguousarray(tab[:, 3])
        self.flat_rows = np.ascontiguousarray(self.rows, dtype=np.int64)
        self.marker_body = np.ascontiguousarray(body_of[:-1], dtype=np.int64)
        self.body_offsets = np.array([b.offset for b in system.bodies], dtype=np.int64)
        self.body_n_coordinates = np.array([b.n_coordinates for b in system.bodies], dtype=np.int64)

    def evaluate(self, ctx, phi: np.ndarray, jac: np.ndarray | None):
        """Write the rows into ``phi`` (n_c,) and, if given, ``jac`` (n_c, n_q); returns the quasi Jacobians."""
        if not self.n_rows:
            return None
        X, R, JX, JTH = ctx.marker_arrays()[:4]
        n_max = JX.shape[2]
        ji, jj = np.empty((self.n_rows, n_max)), np.empty((self.n_rows, n_max))
        G = getattr(ctx, "G", None)
        if G is None:
            G = np.array([kin.G for kin in ctx.kin]).reshape(-1, 3, 4)
        with_jac = jac is not None
        _constraint_rows(X, R, JX, JTH, self.flat_kind, self.flat_mi, self.flat_mj, self.flat_a, self.flat_b,
                         self.flat_rows, self.marker_body, self.body_offsets, self.body_n_coordinates, G, phi,
                         jac if with_jac else np.zeros((0, 0)), ji, jj, with_jac)
        return ji, jj
