"""Vectorized evaluation of the basic constraints of all library joints at once.

Each scalar row of a joint declaring ``PRIMITIVES`` (see :mod:`flexmbs.joints`) becomes one entry of a table:
point-coincidence component ``c``: ``x_j[c] - x_i[c]``; dot-1 ``(a, b)``: ``a_iᵀ b_j``; dot-2 ``a``:
``a_iᵀ (x_j - x_i)``. One evaluation gathers the marker arrays of the context, computes every residual and its
quasi-coordinate Jacobian rows with a handful of array operations, and scatters them into ``Φ`` and ``Φ_q`` body by
body (``Φ_q = Φ̄ L``). Joints without primitives (user-defined) and the driver rows of prescribed motions are
evaluated joint by joint by :class:`flexmbs.system.System`.
"""
from __future__ import annotations

import numpy as np

__all__ = ["CompiledConstraints"]


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross products of (k, 3) arrays."""
    out = np.empty_like(a)
    out[:, 0] = a[:, 1] * b[:, 2] - a[:, 2] * b[:, 1]
    out[:, 1] = a[:, 2] * b[:, 0] - a[:, 0] * b[:, 2]
    out[:, 2] = a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]
    return out


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
        mi = np.concatenate([getattr(self, k)[:, 0] for k in self.kinds]) if self.kinds else np.zeros(0, int)
        mj = np.concatenate([getattr(self, k)[:, 1] for k in self.kinds]) if self.kinds else np.zeros(0, int)
        self.n_bodies = len(system.bodies)
        self.scatter = [self._scatter_plan(system, body_of[m]) for m in (mi, mj)]

    def _scatter_plan(self, system, bodies: np.ndarray):
        """Where each table row's coordinate Jacobian (7 + m of its body) lands in the flattened ``Φ_q``."""
        k_idx, c_idx, flat = [], [], []
        for k, b in enumerate(bodies):
            if b < 0:
                continue
            body = system.bodies[b]
            width = body.n_coordinates
            k_idx.append(np.full(width, k))
            c_idx.append(np.arange(width))
            flat.append(self.rows[k] * system.n_q + body.offset + np.arange(width))
        gather = np.where(bodies < 0, self.n_bodies, bodies)
        if not flat:
            return gather, np.zeros(0, int), np.zeros(0, int), np.zeros(0, int)
        return gather, np.concatenate(k_idx), np.concatenate(c_idx), np.concatenate(flat)

    def evaluate(self, ctx, phi: np.ndarray, jac: np.ndarray | None):
        """Write the rows into ``phi`` (n_c,) and, if given, ``jac`` (n_c, n_q); returns the quasi Jacobians."""
        if not self.n_rows:
            return None
        X, R, JX, JTH = ctx.marker_arrays()[:4]
        vals, jis, jjs = [], [], []
        if "point" in self.kinds:
            mi, mj, c = self.point[:, 0], self.point[:, 1], self.point[:, 2]
            vals.append(X[mj, c] - X[mi, c])
            jis.append(-JX[mi, c, :])
            jjs.append(JX[mj, c, :])
        if "dot1" in self.kinds:
            mi, mj, a_idx, b_idx = self.dot1[:, 0], self.dot1[:, 1], self.dot1[:, 2], self.dot1[:, 3]
            a, b = R[mi, :, a_idx], R[mj, :, b_idx]  # (k, 3)
            axb = _cross(a, b)
            vals.append(np.einsum("kc,kc->k", a, b))
            jis.append(np.einsum("kc,kcn->kn", axb, JTH[mi]))
            jjs.append(-np.einsum("kc,kcn->kn", axb, JTH[mj]))
        if "dot2" in self.kinds:
            mi, mj, a_idx = self.dot2[:, 0], self.dot2[:, 1], self.dot2[:, 2]
            a = R[mi, :, a_idx]
            d = X[mj] - X[mi]
            vals.append(np.einsum("kc,kc->k", a, d))
            jis.append(np.einsum("kc,kcn->kn", _cross(a, d), JTH[mi]) - np.einsum("kc,kcn->kn", a, JX[mi]))
            jjs.append(np.einsum("kc,kcn->kn", a, JX[mj]))
        values = np.concatenate(vals) if len(vals) > 1 else vals[0]
        ji = np.concatenate(jis) if len(jis) > 1 else jis[0]
        jj = np.concatenate(jjs) if len(jjs) > 1 else jjs[0]
        phi[self.rows] = values
        if jac is not None:
            g_stack = np.zeros((self.n_bodies + 1, 3, 4))
            g_stack[:self.n_bodies] = [kin.G for kin in ctx.kin]
            flat_jac = jac.reshape(-1)
            for (gather, k_idx, c_idx, flat), jbar in zip(self.scatter, (ji, jj)):
                if flat.size:
                    coords = np.empty((jbar.shape[0], jbar.shape[1] + 1))
                    coords[:, 0:3] = jbar[:, 0:3]
                    coords[:, 3:7] = 2.0 * np.einsum("kc,kcd->kd", jbar[:, 3:6], g_stack[gather])
                    coords[:, 7:] = jbar[:, 6:]
                    flat_jac[flat] += coords[k_idx, c_idx]
        return ji, jj
