"""Support pads of the machine (seed 003 L7476-7490): linear spring-dampers from body points to the floor, all pads
in one vectorized force element.

Each pad is a translational spring-damper in global axes between a marker and its floor point ``x0`` (the
marker's initial position)::

    F_p = -K (x_p - x0_p) - C ẋ_p,     K = diag(k_lat, k_lat, k_vert),  C = diag(c_lat, c_lat, c_vert)

written once in :func:`cases.machine_creeping.contact_laws.pad_law` (the kernel and this class call it); the same
law as a :class:`flexmbs.Bushing` from a ground marker at ``x0`` with no rotational stiffness (compared in
``tests/cases/test_machine_creeping_machine.py``), evaluated for the 18 + 4 pads in one pass over the marker
arrays. Pads are linear: lift-off is not modelled (as in the thesis, L7611-7623); a pad pulling down shows as a
negative vertical force.
"""
from __future__ import annotations

import numpy as np

from flexmbs.model.forces import ForceElement

__all__ = ["PadSet"]


class PadSet(ForceElement):
    """Linear pads from markers to their floor points.

    Parameters
    ----------
    markers : list of Marker
        Pad points on the machine's bodies (node markers of a flexible body or points of rigid bodies).
    floor_points : (n, 3) m
        Floor anchor of each pad (undeflected spring).
    stiffness, damping : (3,) N/m, N s/m
        Global-axis stiffness and damping of one pad.
    names : list of str
        Pad names; ``outputs`` gives ``<name>_Fx``, ``_Fy``, ``_Fz`` (N, force of the pad on the machine) and the
        sums ``Fx``, ``Fy``, ``Fz``.
    """

    def __init__(self, markers, floor_points, stiffness, damping, names, name: str = "pads"):
        self.pad_markers = list(markers)
        self.floor = np.asarray(floor_points, dtype=float).reshape(len(self.pad_markers), 3)
        self.k = np.asarray(stiffness, dtype=float).reshape(3)
        self.c = np.asarray(damping, dtype=float).reshape(3)
        self.names = list(names)
        self.name = name
        self.index = None  # marker indices, set at the first evaluation (after the model is assembled)
        self.output_units = {"Fx": "N", "Fy": "N", "Fz": "N"}
        self.output_units.update({f"{n}_{a}": "N" for n in self.names for a in ("Fx", "Fy", "Fz")})

    def markers(self):
        return list(self.pad_markers)

    def _groups(self):
        if self.index is None:
            self.index = np.array([m.index for m in self.pad_markers], dtype=np.int64)
            bodies = {}
            for k, m in enumerate(self.pad_markers):
                bodies.setdefault(m.body.index, (m.body, []))[1].append(k)
            self.groups = [(body, np.array(rows, dtype=np.int64)) for body, rows in bodies.values()]
        return self.groups

    def pad_forces(self, ctx) -> np.ndarray:
        """Force of each pad on the machine (n, 3), N, global axes (:func:`.contact_laws.pad_law`)."""
        from .contact_laws import pad_law

        self._groups()
        X, _, _, _, V, _ = ctx.marker_arrays()
        return pad_law(np.ascontiguousarray(X), np.ascontiguousarray(V), self.index, np.ascontiguousarray(self.floor),
                       np.ascontiguousarray(self.k), np.ascontiguousarray(self.c))

    def generalized_forces(self, ctx):
        groups = self._groups()
        force = self.pad_forces(ctx)
        JX = ctx.marker_arrays()[2]
        return [(body, np.einsum("pan,pa->n", JX[self.index[rows], :, :body.n_quasi], force[rows]))
                for body, rows in groups]

    def outputs(self, ctx):
        force = self.pad_forces(ctx)
        out = {"Fx": float(force[:, 0].sum()), "Fy": float(force[:, 1].sum()), "Fz": float(force[:, 2].sum())}
        for name, f in zip(self.names, force):
            out.update({f"{name}_Fx": float(f[0]), f"{name}_Fy": float(f[1]), f"{name}_Fz": float(f[2])})
        return out

    def compiled_force(self, system):
        """Its kernel for the compiled step (:mod:`.contact_laws`, protocol :mod:`flexmbs.engine.force_kernels`)."""
        from .contact_laws import pad_spec

        return pad_spec(self, system)

    def potential_energy(self, ctx):
        X = ctx.marker_arrays()[0]
        self._groups()
        return 0.5 * float(np.sum(self.k * (X[self.index] - self.floor) ** 2))
